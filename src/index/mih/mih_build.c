/*
 * mih_build.c
 *		CREATE INDEX for mih: one heap scan writes the code pages in heap
 *		order; then each table's entries are sorted by their substring
 *		(tuplesort, within maintenance_work_mem, spilling as it must) and
 *		written with their directory.
 */
#include "mih.h"

#include "access/tableam.h"
#include "catalog/index.h"
#include "catalog/pg_operator_d.h"
#include "catalog/pg_type_d.h"
#include "miscadmin.h"
#include "optimizer/plancat.h"
#include "utils/memutils.h"
#include "utils/tuplesort.h"

/* A page being filled by the build, written whole through generic WAL */
typedef struct BuildPage
{
	Relation	index;
	PGAlignedBlock data;
	BlockNumber nwritten;		/* pages written so far, the meta page too */
} BuildPage;

static void
flush_page(BuildPage *bp)
{
	Buffer		buf = mih_new_buffer(bp->index);
	GenericXLogState *state = GenericXLogStart(bp->index);
	Page		page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);

	memcpy(page, bp->data.data, BLCKSZ);
	GenericXLogFinish(state);
	Assert(BufferGetBlockNumber(buf) == bp->nwritten);
	UnlockReleaseBuffer(buf);
	bp->nwritten++;
}

typedef struct BuildState
{
	BuildPage	page;
	int			nwords;
	int			perpage;
	int			n;				/* rows on the page being filled */
	uint32		nrows;
	double		indtuples;
} BuildState;

static void
flush_codes(BuildState *bs)
{
	MihPageGetOpaque((Page) bs->page.data.data)->nitems = bs->n;
	flush_page(&bs->page);
	mih_init_page((Page) bs->page.data.data, MIH_CODES);
	bs->n = 0;
}

/* IndexBuildCallback: a row's code and TID onto the code pages */
static void
build_callback(Relation index, ItemPointer tid, Datum *values, bool *isnull,
			   bool tupleIsAlive, void *arg)
{
	BuildState *bs = (BuildState *) arg;
	Page		page = (Page) bs->page.data.data;
	const uint64 *code;
	uint64		word;

	if (isnull[0])
		return;					/* NULL is within no radius of anything */
	if (bs->nrows == PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("a mih index holds at most %u rows", PG_UINT32_MAX)));
	if (bs->nwords == 1)
	{
		word = DatumGetSimHash(values[0]);
		code = &word;
	}
	else
		code = (const uint64 *) DatumGetPointer(values[0]);
	memcpy(mih_page_codes(page) + (Size) bs->n * bs->nwords, code,
		   sizeof(uint64) * bs->nwords);
	mih_page_tids(page, bs->nwords)[bs->n] = *tid;
	bs->n++;
	bs->nrows++;
	bs->indtuples += 1;
	if (bs->n == bs->perpage)
		flush_codes(bs);
}

/*
 * The sort key of an entry: the substring's value above the row's
 * ordinal, the sign bit flipped so that signed int8 order is the
 * unsigned order of the values.
 */
static inline int64
entry_key(uint32 value, uint32 ordinal)
{
	return (int64) ((((uint64) value) << 32 | ordinal) ^ (UINT64CONST(1) << 63));
}

/* Write the entries and the directory of table j */
static void
build_table(BuildState *bs, MihMetaPage meta, int j)
{
	MihTable   *tab = &meta->tables[j];
	BlockNumber b;
	Tuplesortstate *sort;
	uint32	   *dir;
	uint32		ndir = (uint32) 1 << meta->dirbits,
				pos = 0,
				n = 0,
				v;
	Page		page = (Page) bs->page.data.data;
	Datum		d;
	bool		isnull;

	/* every row's substring, from the code pages in ordinal order */
	sort = tuplesort_begin_datum(INT8OID, Int8LessOperator, InvalidOid, false,
								 maintenance_work_mem, NULL, TUPLESORT_NONE);
	for (b = meta->codes; b < meta->codes + (meta->nsorted + bs->perpage - 1) / bs->perpage; b++)
	{
		Buffer		buf = ReadBuffer(bs->page.index, b);
		Page		cp;
		uint64	   *codes;
		int			i,
					nitems;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		cp = BufferGetPage(buf);
		codes = mih_page_codes(cp);
		nitems = MihPageGetOpaque(cp)->nitems;
		for (i = 0; i < nitems; i++)
		{
			uint32		ord = (b - meta->codes) * bs->perpage + i;

			tuplesort_putdatum(sort,
							   Int64GetDatum(entry_key(mih_substring(codes + (Size) i * meta->nwords,
																	 tab->offset, tab->length),
													   ord)),
							   false);
		}
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
	tuplesort_performsort(sort);

	/* the entries, counting the directory as they go */
	dir = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * (ndir + 1));
	memset(dir, 0, sizeof(uint32) * (ndir + 1));
	tab->entries = bs->page.nwritten;
	mih_init_page(page, MIH_ENTRIES);
	while (simhash_tuplesort_getdatum(sort, &d, &isnull))
	{
		uint64		key = ((uint64) DatumGetInt64(d)) ^ (UINT64CONST(1) << 63);
		uint32		value = (uint32) (key >> 32);

		dir[(value >> tab->lowbits) + 1]++;
		mih_page_ordinals(page)[n] = (uint32) key;
		mih_page_lows(page)[n] = (uint8) (value & ((1u << tab->lowbits) - 1));
		if (++n == MIH_ENTRIES_PER_PAGE)
		{
			MihPageGetOpaque(page)->nitems = n;
			flush_page(&bs->page);
			mih_init_page(page, MIH_ENTRIES);
			n = 0;
		}
	}
	if (n > 0)
	{
		MihPageGetOpaque(page)->nitems = n;
		flush_page(&bs->page);
	}
	tuplesort_end(sort);

	/* the directory: the first entry of each top value, and the end */
	for (v = 0; v < ndir; v++)
		dir[v + 1] += dir[v];
	tab->directory = bs->page.nwritten;
	while (pos <= ndir)
	{
		uint32		k = Min(ndir + 1 - pos, (uint32) MIH_DIR_PER_PAGE);

		mih_init_page(page, MIH_DIRECTORY);
		memcpy(PageGetContents(page), dir + pos, sizeof(uint32) * k);
		MihPageGetOpaque(page)->nitems = k;
		flush_page(&bs->page);
		pos += k;
	}
	pfree(dir);
}

/* Write the meta page, block 0, as the build's last step */
static void
write_meta(Relation index, MihMetaPage meta, ForkNumber fork)
{
	Buffer		buf = ReadBufferExtended(index, fork, MIH_METAPAGE_BLKNO, RBM_NORMAL, NULL);
	GenericXLogState *state;
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	state = GenericXLogStart(index);
	page = GenericXLogRegisterBuffer(state, buf, GENERIC_XLOG_FULL_IMAGE);
	mih_init_page(page, MIH_META);
	memcpy(MihPageGetMeta(page), meta, sizeof(MihMetaPageData));
	GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
}

/*
 * ambuild: the layout for the table's estimated rows, the code pages, then
 * each table.  A layout chosen for far fewer or more rows than the table
 * comes to hold stays exact; REINDEX chooses again.
 */
IndexBuildResult *
mih_build(Relation heap, Relation index, struct IndexInfo *indexInfo)
{
	IndexBuildResult *result;
	BuildState	bs;
	MihMetaPageData meta;
	BlockNumber pages;
	double		tuples,
				allvisfrac;
	int32		widths[2] = {0, 0};
	int			j;

	if (RelationGetNumberOfBlocks(index) != 0)
		elog(ERROR, "index \"%s\" already contains data", RelationGetRelationName(index));

	bs.nwords = mih_index_nwords(index);
	bs.perpage = mih_codes_per_page(bs.nwords);
	estimate_rel_size(heap, widths, &pages, &tuples, &allvisfrac);
	mih_layout(&meta, bs.nwords, tuples);

	/* block 0 is the meta page, written last */
	bs.page.index = index;
	bs.page.nwritten = 0;
	mih_init_page((Page) bs.page.data.data, MIH_META);
	flush_page(&bs.page);

	meta.codes = bs.page.nwritten;
	mih_init_page((Page) bs.page.data.data, MIH_CODES);
	bs.n = 0;
	bs.nrows = 0;
	bs.indtuples = 0;
	result = (IndexBuildResult *) palloc(sizeof(IndexBuildResult));
	result->heap_tuples = table_index_build_scan(heap, index, indexInfo, true, true,
												 build_callback, &bs, NULL);
	if (bs.n > 0)
		flush_codes(&bs);
	meta.nsorted = bs.nrows;

	for (j = 0; j < meta.ntables; j++)
		build_table(&bs, &meta, j);

	write_meta(index, &meta, MAIN_FORKNUM);
	result->index_tuples = bs.indtuples;
	return result;
}

/* ambuildempty: the meta page of an empty index in the init fork */
void
mih_buildempty(Relation index)
{
	MihMetaPageData meta;
	Buffer		buf;
	int			j;

	mih_layout(&meta, mih_index_nwords(index), 0);
	meta.codes = 1;
	/* every table empty: its directory is all zeros, so no page is needed */
	for (j = 0; j < meta.ntables; j++)
		meta.tables[j].directory = meta.tables[j].entries = InvalidBlockNumber;
	buf = ReadBufferExtended(index, INIT_FORKNUM, P_NEW, RBM_NORMAL, NULL);
	ReleaseBuffer(buf);
	write_meta(index, &meta, INIT_FORKNUM);
}
