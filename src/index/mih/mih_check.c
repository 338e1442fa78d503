/*
 * mih_check.c
 *		simhash_mih_check(index, heapallindexed): verify a mih index, in the
 *		spirit of amcheck's bt_index_check.  Every page of the sorted part
 *		and of the pending list is read under a share lock and checked
 *		against the meta page; with heapallindexed, every row of the table
 *		visible to a snapshot taken first must be in the index with its own
 *		fingerprint (a Bloom filter of the index's rows, probed by a heap
 *		scan, as amcheck does).  The first inconsistency raises XX002
 *		index_corrupted; a sound index returns nothing.
 */
#include "mih.h"

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/index.h"
#include "lib/bloomfilter.h"
#include "miscadmin.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"

typedef struct CheckState
{
	Relation	index;
	MihMetaPageData meta;
	int			perpage;
	BlockNumber nblocks;
	bloom_filter *filter;		/* heapallindexed: (TID, code) of each row */
	int64		nheap;			/* rows of the table checked */
} CheckState;

static void
corrupt(CheckState *cs, const char *detail, BlockNumber blkno)
{
	ereport(ERROR,
			(errcode(ERRCODE_INDEX_CORRUPTED),
			 errmsg("mih index \"%s\" is corrupt", RelationGetRelationName(cs->index)),
			 errdetail("%s (block %u).", detail, blkno),
			 errhint("REINDEX it.")));
}

/* A page of the index, share-locked, of the kind flags, or an error */
static Buffer
read_checked(CheckState *cs, BlockNumber blkno, uint16 flags, const char *what)
{
	Buffer		buf;
	Page		page;

	if (blkno == InvalidBlockNumber || blkno >= cs->nblocks)
		corrupt(cs, psprintf("%s points past the end of the index", what), blkno);
	buf = ReadBuffer(cs->index, blkno);
	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	if (PageIsNew(page) || PageGetSpecialSize(page) != MAXALIGN(sizeof(MihPageOpaqueData)) ||
		MihPageGetOpaque(page)->flags != flags)
		corrupt(cs, psprintf("%s is not a page of its kind", what), blkno);
	return buf;
}

/* The element of the Bloom filter of a row: its TID, then its code */
static void
filter_element(const ItemPointerData *tid, const uint64 *code, int nwords,
			   unsigned char *out)
{
	memcpy(out, tid, sizeof(ItemPointerData));
	memcpy(out + sizeof(ItemPointerData), code, sizeof(uint64) * nwords);
}

/* The rows of a code page with a live TID into the filter */
static void
add_rows(CheckState *cs, Page page)
{
	int			nw = cs->meta.nwords,
				i;
	unsigned char elem[sizeof(ItemPointerData) + sizeof(uint64) * SIMHASH_MAX_WORDS];

	for (i = 0; i < MihPageGetOpaque(page)->nitems; i++)
	{
		ItemPointerData *tid = &mih_page_tids(page, nw)[i];

		if (!ItemPointerIsValid(tid))
			continue;
		filter_element(tid, mih_page_codes(page) + (Size) i * nw, nw, elem);
		bloom_add_element(cs->filter, elem, sizeof(ItemPointerData) + sizeof(uint64) * nw);
	}
}

/*
 * The code pages of the sorted part: full but the last, which holds the
 * rest of nsorted.
 */
static void
check_codes(CheckState *cs)
{
	BlockNumber npages = (cs->meta.nsorted + cs->perpage - 1) / cs->perpage,
				b;

	for (b = 0; b < npages; b++)
	{
		Buffer		buf = read_checked(cs, cs->meta.codes + b, MIH_CODES, "a code page");
		Page		page = BufferGetPage(buf);
		uint32		want = (b + 1 < npages) ? (uint32) cs->perpage :
			cs->meta.nsorted - b * (uint32) cs->perpage;

		if (MihPageGetOpaque(page)->nitems != want)
			corrupt(cs, psprintf("a code page holds %u rows, not %u",
								 (unsigned) MihPageGetOpaque(page)->nitems, want),
					cs->meta.codes + b);
		if (cs->filter)
			add_rows(cs, page);
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
}

/* The substring of table tab of the row of ordinal o, from its code page */
static uint32
row_substring(CheckState *cs, const MihTable *tab, uint32 o)
{
	BlockNumber blkno = cs->meta.codes + o / cs->perpage;
	Buffer		buf = ReadBuffer(cs->index, blkno);
	uint32		v;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	v = mih_substring(mih_page_codes(BufferGetPage(buf)) +
					  (Size) (o % cs->perpage) * cs->meta.nwords,
					  tab->offset, tab->length);
	UnlockReleaseBuffer(buf);
	return v;
}

/* The directory of table tab at value v, through the page kept in *buf */
static uint32
dir_value(CheckState *cs, const MihTable *tab, uint32 v, Buffer *buf)
{
	BlockNumber b = tab->directory + v / MIH_DIR_PER_PAGE;
	Page		page;

	if (*buf == InvalidBuffer || BufferGetBlockNumber(*buf) != b)
	{
		if (*buf != InvalidBuffer)
			UnlockReleaseBuffer(*buf);
		*buf = read_checked(cs, b, MIH_DIRECTORY, "a directory page");
	}
	page = BufferGetPage(*buf);
	if (v % MIH_DIR_PER_PAGE >= MihPageGetOpaque(page)->nitems)
		corrupt(cs, "a directory page is shorter than the directory", b);
	return ((uint32 *) PageGetContents(page))[v % MIH_DIR_PER_PAGE];
}

/*
 * Table j: its directory rises from 0 to nsorted; the entries under each
 * top value hold rows whose substring has that top value and the entry's
 * low bits, in ascending order of the substring; each row once.  (An error
 * releases the buffers and their locks.)
 */
static void
check_table(CheckState *cs, int j)
{
	const MihTable *tab = &cs->meta.tables[j];
	uint32		ndir = (uint32) 1 << cs->meta.dirbits,
				v,
				at,
				next;
	uint8	   *seen;
	Buffer		dirbuf = InvalidBuffer,
				entbuf = InvalidBuffer;

	if (cs->meta.nsorted == 0)
		return;
	seen = palloc0((cs->meta.nsorted + 7) / 8);
	at = dir_value(cs, tab, 0, &dirbuf);
	if (at != 0)
		corrupt(cs, psprintf("the directory of table %d does not start at 0", j + 1), tab->directory);
	for (v = 0; v < ndir; v++, at = next)
	{
		int			lastlow = -1;
		uint32		p;

		next = dir_value(cs, tab, v + 1, &dirbuf);
		if (next < at || next > cs->meta.nsorted)
			corrupt(cs, psprintf("the directory of table %d is out of order at value %u", j + 1, v + 1),
					BufferGetBlockNumber(dirbuf));
		for (p = at; p < next; p++)
		{
			BlockNumber eb = tab->entries + p / MIH_ENTRIES_PER_PAGE;
			Page		ep;
			uint32		o;
			int			low;

			if (entbuf == InvalidBuffer || BufferGetBlockNumber(entbuf) != eb)
			{
				if (entbuf != InvalidBuffer)
					UnlockReleaseBuffer(entbuf);
				entbuf = read_checked(cs, eb, MIH_ENTRIES, "an entry page");
			}
			ep = BufferGetPage(entbuf);
			if (p % MIH_ENTRIES_PER_PAGE >= MihPageGetOpaque(ep)->nitems)
				corrupt(cs, psprintf("table %d has fewer entries than its directory counts", j + 1), eb);
			o = mih_page_ordinals(ep)[p % MIH_ENTRIES_PER_PAGE];
			low = mih_page_lows(ep)[p % MIH_ENTRIES_PER_PAGE];
			if (o >= cs->meta.nsorted)
				corrupt(cs, psprintf("an entry of table %d points to row %u of %u", j + 1, o, cs->meta.nsorted), eb);
			if (seen[o / 8] & (1 << (o % 8)))
				corrupt(cs, psprintf("row %u appears twice in table %d", o, j + 1), eb);
			seen[o / 8] |= 1 << (o % 8);
			if (low < lastlow || (low >> tab->lowbits) != 0)
				corrupt(cs, psprintf("the entries of table %d are out of order at value %u", j + 1, v), eb);
			lastlow = low;
			if (row_substring(cs, tab, o) != ((v << tab->lowbits) | (uint32) low))
				corrupt(cs, psprintf("an entry of table %d does not match the substring of row %u", j + 1, o), eb);
		}
		CHECK_FOR_INTERRUPTS();
	}
	if (at != cs->meta.nsorted)
		corrupt(cs, psprintf("the directory of table %d ends at %u, not at %u rows", j + 1, at, cs->meta.nsorted),
				BufferGetBlockNumber(dirbuf));
	UnlockReleaseBuffer(dirbuf);
	if (entbuf != InvalidBuffer)
		UnlockReleaseBuffer(entbuf);
	pfree(seen);
}

/*
 * The pending list: pages of its kind from the meta page's head to its
 * tail, their rows adding up to npending, ending within as many pages as
 * the index has.
 */
static void
check_pending(CheckState *cs)
{
	BlockNumber b = cs->meta.pendinghead,
				last = InvalidBlockNumber,
				npages = 0;
	uint64		nrows = 0;

	while (b != InvalidBlockNumber)
	{
		Buffer		buf = read_checked(cs, b, MIH_PENDING, "a pending page");
		Page		page = BufferGetPage(buf);

		if (MihPageGetOpaque(page)->nitems > cs->perpage)
			corrupt(cs, "a pending page holds more rows than fit", b);
		nrows += MihPageGetOpaque(page)->nitems;
		if (cs->filter)
			add_rows(cs, page);
		last = b;
		b = MihPageGetOpaque(page)->next;
		UnlockReleaseBuffer(buf);
		if (++npages > cs->nblocks)
			corrupt(cs, "the pending list does not end", last);
		CHECK_FOR_INTERRUPTS();
	}
	if (last != cs->meta.pendingtail)
		corrupt(cs, "the pending list does not end at the meta page's tail", last);
	if (nrows != cs->meta.npending)
		corrupt(cs, psprintf("the pending pages hold " UINT64_FORMAT " rows, the meta page counts %u",
							 nrows, cs->meta.npending), cs->meta.pendinghead);
}

/* IndexBuildCallback of the heap scan: each visible row must be indexed */
static void
heap_row(Relation index, ItemPointer tid, Datum *values, bool *isnull,
		 bool tupleIsAlive, void *arg)
{
	CheckState *cs = (CheckState *) arg;
	int			nw = cs->meta.nwords;
	unsigned char elem[sizeof(ItemPointerData) + sizeof(uint64) * SIMHASH_MAX_WORDS];
	uint64		word;
	const uint64 *code;

	if (isnull[0])
		return;					/* NULLs are not indexed */
	if (nw == 1)
	{
		word = DatumGetSimHash(values[0]);
		code = &word;
	}
	else
		code = (const uint64 *) DatumGetPointer(values[0]);
	filter_element(tid, code, nw, elem);
	cs->nheap++;
	if (bloom_lacks_element(cs->filter, elem, sizeof(ItemPointerData) + sizeof(uint64) * nw))
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("mih index \"%s\" is corrupt", RelationGetRelationName(cs->index)),
				 errdetail("The row (%u,%u) of table \"%s\" is not in the index with its fingerprint.",
						   ItemPointerGetBlockNumber(tid), ItemPointerGetOffsetNumber(tid),
						   get_rel_name(cs->index->rd_index->indrelid)),
				 errhint("REINDEX it.")));
}

PG_FUNCTION_INFO_V1(simhash_mih_check);

/*
 * simhash_mih_check(index regclass, heapallindexed boolean DEFAULT false)
 *		RETURNS void
 *		Verify a mih index: meta page, code pages, each table's directory
 *		and entries against the rows' codes, the pending list; with
 *		heapallindexed, that every row of the table visible to a snapshot
 *		is indexed with its fingerprint.  Needs SELECT on the table; takes
 *		AccessShareLock on the table and the index (writes go on).
 */
Datum
simhash_mih_check(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	bool		heapallindexed = PG_GETARG_BOOL(1);
	Oid			heapoid = mih_sql_table(indexoid, "simhash_mih_check");
	Relation	heap,
				index;
	CheckState	cs;
	Snapshot	snapshot = InvalidSnapshot;
	int			j;

	heap = table_open(heapoid, AccessShareLock);
	index = index_open(indexoid, AccessShareLock);
	mih_sql_check_am(index, "simhash_mih_check");
	if (!index->rd_index->indisvalid)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("simhash_mih_check: index \"%s\" is not valid",
						RelationGetRelationName(index)),
				 errhint("A CREATE INDEX CONCURRENTLY that failed leaves an invalid index: drop it or REINDEX it.")));

	/*
	 * The snapshot comes first: a row it sees committed before it, so its
	 * insertion into the index is on the pages read after.
	 */
	if (heapallindexed)
		snapshot = RegisterSnapshot(GetTransactionSnapshot());

	memset(&cs, 0, sizeof(cs));
	cs.index = index;
	mih_read_meta(index, &cs.meta);
	cs.perpage = mih_codes_per_page(cs.meta.nwords);
	cs.nblocks = RelationGetNumberOfBlocks(index);
	if (cs.meta.nwords != mih_index_nwords(index) || cs.meta.ntables < 1 ||
		cs.meta.ntables > MIH_MAX_TABLES || cs.meta.dirbits < 1 ||
		cs.meta.dirbits > MIH_MAX_SUBSTRING)
		corrupt(&cs, "the meta page's layout is impossible", MIH_METAPAGE_BLKNO);
	{
		int			bits = 0;

		for (j = 0; j < cs.meta.ntables; j++)
		{
			const MihTable *tab = &cs.meta.tables[j];

			if (tab->offset != bits || tab->length < cs.meta.dirbits ||
				tab->length > MIH_MAX_SUBSTRING || tab->lowbits != tab->length - cs.meta.dirbits ||
				tab->lowbits > MIH_MAX_LOW_BITS)
				corrupt(&cs, psprintf("the meta page's table %d is impossible", j + 1), MIH_METAPAGE_BLKNO);
			bits += tab->length;
		}
		if (bits != SIMHASH_BITS * cs.meta.nwords)
			corrupt(&cs, "the meta page's tables do not cover the fingerprint", MIH_METAPAGE_BLKNO);
	}

	if (heapallindexed)
		cs.filter = bloom_create((int64) cs.meta.nsorted + cs.meta.npending + 1,
								 maintenance_work_mem, 0);
	check_codes(&cs);
	for (j = 0; j < cs.meta.ntables; j++)
		check_table(&cs, j);
	check_pending(&cs);

	if (heapallindexed)
	{
		IndexInfo  *info = BuildIndexInfo(index);
		TableScanDesc scan;

		/* an MVCC scan of the snapshot's rows, as amcheck's */
		info->ii_Concurrent = true;
		scan = table_beginscan_strat(heap, snapshot, 0, NULL, true, true);
		table_index_build_scan(heap, index, info, true, false, heap_row, &cs, scan);
		bloom_free(cs.filter);
		UnregisterSnapshot(snapshot);
	}
	index_close(index, AccessShareLock);
	table_close(heap, AccessShareLock);
	PG_RETURN_VOID();
}
