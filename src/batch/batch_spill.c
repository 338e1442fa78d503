/*
 * batch_spill.c
 *		simhash_pairs and simhash_clusters on more rows than
 *		maintenance_work_mem holds: the same search as in memory
 *		(batch_search.c, word by word as batch_wide.c does), with the rows,
 *		their groups and each top-level pass's records in temporary files.
 *
 * The rows are sorted by fingerprint and id with a tuplesort, which spills
 * as any sort does; reading them back gives the groups of equal
 * fingerprints, written in order to a group file (fingerprint, number of
 * ids, the id or where the ids are in an id file).  Each word with a pass
 * (radius r_i >= 0, the radii of batch_wide.c) then runs the 64-bit search
 * pass by pass: a pass reads the group file once and writes each group's
 * record (permuted word, group, ids, fingerprint) to one of up to 256
 * bucket files by the leading bits of its segment c0, so that every run of
 * equal c0 lies in one bucket; each bucket is read back, its keys sorted and
 * its runs visited in memory.  A candidate (a pair within r_i in the word)
 * is measured on every word from the bucket's records: in memory when the
 * bucket's records fit, else read from the bucket file.  So memory holds
 * 32 bytes per record of the largest bucket, about n / 2^8 to n / 2^4
 * records, plus for simhash_clusters a union-find parent per group.
 *
 * simhash_pairs of two queries sorts the rows by (fingerprint, side, id),
 * so that a group's ids of the new query come first and the group records
 * how many: a candidate of two groups that cannot pair across the queries
 * is not measured, and a pair of groups gives only new x existing pairs.
 *
 * simhash_clusters then joins the groups sharing an id, takes each
 * component's smallest id and writes (id, cluster_id) in id order, with
 * three more sorts: (id, group), (root, id) and (id, cluster_id).
 */
#include "batch_spill.h"
#include "batch_search.h"

#include "catalog/pg_type.h"
#include "executor/tuptable.h"
#include "funcapi.h"
#include "port/pg_bitutils.h"
#include "storage/buffile.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#define SPILL_BUCKET_BITS	8	/* at most 256 bucket files a pass */
#define SPILL_SAMPLE		65536	/* groups sampled for the bits' worth */
#define Int8LessOperator	412 /* int8 < int8, pg_operator.dat */

/*
 * A group in the group file and in a bucket: its ids, then its words.
 * group is the group's number (simhash_clusters' union-find), except in
 * simhash_pairs of two queries, where it is how many of its ids, the
 * first, are the new query's (the rows were sorted by side before id).
 */
typedef struct SpillGroup
{
	uint32		nids;
	uint32		group;
	int64		id;				/* the id, or (nids > 1) the first's index in
								 * the id file */
} SpillGroup;

/* A bucket record: the permuted word, then a SpillGroup and the words */
#define BUCKET_REC_SIZE(nw)	(sizeof(uint64) + sizeof(SpillGroup) + sizeof(uint64) * (nw))

/* A sort of rows of int8 columns, all keys, ascending */
typedef struct SpillSort
{
	Tuplesortstate *ts;
	TupleDesc	desc;
	TupleTableSlot *in;			/* virtual, to put */
	TupleTableSlot *out;		/* minimal, to get */
	int			ncols;
} SpillSort;

struct SpillInput
{
	BatchKind	kind;
	int			nwords;
	SpillSort	rows;			/* (words..., id); two queries: (words...,
								 * side, id) */
	uint64		nrows;
};

/* The state of a spilled search and its output */
typedef struct Spill
{
	FunctionCallInfo fcinfo;
	BatchKind	kind;
	const char *fname;
	int			nw;
	int			k;
	int			radius[SIMHASH_MAX_WORDS];
	int			word;			/* of the current pass */
	uint32		only;			/* the words whose passes run: a bitmask */
	BufFile    *groups;			/* the group file */
	BufFile    *ids;			/* ids of groups of more than one */
	uint32		ngroups;
	uint64		nids;			/* in the id file */
	SimHash    *sample;			/* nsample groups, nw words each */
	uint32		nsample;
	uint32	   *parent;			/* simhash_clusters: union-find */
	Size		budget;			/* bytes for a bucket's records in memory */
	/* the bucket being searched: its records in memory, or in its file */
	char	   *brecs;
	BufFile    *bfile;
	char	   *abuf,
			   *bbuf;			/* two records read from bfile */
	uint64		ncand,
				npairs;
	uint64		work;
	uint32		nput;
} Spill;

/* ---------- sorts of int8 columns ---------- */

static void
spill_sort_begin(SpillSort *s, int ncols, int workmem_kb, bool random_access)
{
	AttrNumber	att[SIMHASH_MAX_WORDS + 2];
	Oid			ops[SIMHASH_MAX_WORDS + 2];
	Oid			colls[SIMHASH_MAX_WORDS + 2];
	bool		nf[SIMHASH_MAX_WORDS + 2];
	int			i;

	Assert(ncols <= SIMHASH_MAX_WORDS + 2);
	s->ncols = ncols;
	s->desc = CreateTemplateTupleDesc(ncols);
	for (i = 0; i < ncols; i++)
	{
		TupleDescInitEntry(s->desc, (AttrNumber) (i + 1), NULL, INT8OID, -1, 0);
		att[i] = i + 1;
		ops[i] = Int8LessOperator;
		colls[i] = InvalidOid;
		nf[i] = false;
	}
	s->ts = tuplesort_begin_heap(s->desc, ncols, att, ops, colls, nf,
								 Max(workmem_kb, 64), NULL,
								 random_access ? TUPLESORT_RANDOMACCESS : TUPLESORT_NONE);
	s->in = MakeSingleTupleTableSlot(s->desc, &TTSOpsVirtual);
	s->out = MakeSingleTupleTableSlot(s->desc, &TTSOpsMinimalTuple);
}

static void
spill_sort_put(SpillSort *s, const int64 *v)
{
	int			i;

	ExecClearTuple(s->in);
	for (i = 0; i < s->ncols; i++)
	{
		s->in->tts_values[i] = Int64GetDatum(v[i]);
		s->in->tts_isnull[i] = false;
	}
	ExecStoreVirtualTuple(s->in);
	tuplesort_puttupleslot(s->ts, s->in);
}

/* The next row in order into v; false at the end */
static bool
spill_sort_get(SpillSort *s, int64 *v)
{
	int			i;

	if (!tuplesort_gettupleslot(s->ts, true, false, s->out, NULL))
		return false;
	slot_getallattrs(s->out);
	for (i = 0; i < s->ncols; i++)
		v[i] = DatumGetInt64(s->out->tts_values[i]);
	return true;
}

static void
spill_sort_end(SpillSort *s)
{
	tuplesort_end(s->ts);
	ExecDropSingleTupleTableSlot(s->in);
	ExecDropSingleTupleTableSlot(s->out);
	FreeTupleDesc(s->desc);
}

/* ---------- the input ---------- */

/*
 * Whether kind at this width and k can spill: simhash_pairs (all passes or
 * one word's, of one query or two) and simhash_clusters without
 * verification, within the 64-bit search's radius in every word.
 */
bool
simhash_batch_can_spill(BatchKind kind, int nwords, int32 k)
{
	if (kind != BATCH_PAIRS && kind != BATCH_CLUSTERS &&
		kind != BATCH_WORD_PAIRS && kind != BATCH_CROSS_PAIRS)
		return false;
	return nwords == 1 || (k + 1) / nwords + ((k + 1) % nwords ? 1 : 0) - 1 <= MAX_BATCH_RADIUS;
}

/* A sort of the rows in workmem_kb, to which simhash_batch_spill_put gives them */
SpillInput *
simhash_batch_spill_begin(BatchKind kind, int nwords, int workmem_kb)
{
	SpillInput *sp = palloc0(sizeof(SpillInput));

	sp->kind = kind;
	sp->nwords = nwords;
	spill_sort_begin(&sp->rows, nwords + (kind == BATCH_CROSS_PAIRS ? 2 : 1),
					 workmem_kb, false);
	return sp;
}

/* A row into the sort; side (two queries): 0 new, 1 existing */
void
simhash_batch_spill_put(SpillInput *sp, int64 id, const SimHash *fp, int side)
{
	int64		v[SIMHASH_MAX_WORDS + 2];
	int			n = sp->nwords;

	memcpy(v, fp, sizeof(SimHash) * n);
	if (sp->kind == BATCH_CROSS_PAIRS)
		v[n++] = side;
	v[n] = id;
	spill_sort_put(&sp->rows, v);
	sp->nrows++;
}

/* ---------- reading and writing the files ---------- */

static void
spill_read(BufFile *f, void *buf, size_t len)
{
	/* PostgreSQL reports an I/O error itself; a short read is ours */
	if (BufFileRead(f, buf, len) != len)
		elog(ERROR, "a temporary file of the batch search ended early");
}

/* len bytes at byte offset off of f (a file of any number of segments) */
static void
spill_read_at(BufFile *f, uint64 off, void *buf, size_t len)
{
	if (BufFileSeekBlock(f, (long) (off / BLCKSZ)) != 0 ||
		BufFileSeek(f, 0, (off_t) (off % BLCKSZ), SEEK_CUR) != 0)
		elog(ERROR, "could not seek in a temporary file of the batch search");
	spill_read(f, buf, len);
}

static void
spill_rewind(BufFile *f)
{
	if (BufFileSeek(f, 0, 0, SEEK_SET) != 0)
		elog(ERROR, "could not seek in a temporary file of the batch search");
}

/* ---------- the output ---------- */

/* One output row (id1, id2, d); none for two rows of one id */
static void
put_row(Spill *s, int64 id1, int64 id2, int d)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) s->fcinfo->resultinfo;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (id1 == id2)
		return;
	values[0] = Int64GetDatum(id1);
	values[1] = Int64GetDatum(id2);
	values[2] = Int32GetDatum(d);
	tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	if ((++s->nput & INTERRUPT_MASK) == 0)
		CHECK_FOR_INTERRUPTS();
}

/* simhash_pairs: id1 < id2 */
static inline void
put_pair(Spill *s, int64 ia, int64 ib, int d)
{
	put_row(s, Min(ia, ib), Max(ia, ib), d);
}

/* Two queries: the pair (new id, existing id) */
static inline void
put_cross(Spill *s, int64 inew, int64 iold, int d)
{
	put_row(s, inew, iold, d);
}

/* Two queries: whether a group has ids of the new or the existing query */
#define SPILL_HAS_NEW(g)		((g)->group > 0)
#define SPILL_HAS_EXISTING(g)	((g)->group < (g)->nids)

/* The ids of a group: its one id, or read from the id file */
static int64 *
group_ids(Spill *s, const SpillGroup *g, int64 *one)
{
	int64	   *ids;

	if (g->nids == 1)
	{
		*one = g->id;
		return one;
	}
	ids = palloc(sizeof(int64) * g->nids);
	spill_read_at(s->ids, (uint64) g->id * sizeof(int64), ids, sizeof(int64) * g->nids);
	return ids;
}

/* Groups a and b within k (d bits apart): their pairs, or one union */
static void
report_groups(Spill *s, const SpillGroup *a, const SpillGroup *b, int d)
{
	int64		onea,
				oneb,
			   *ia,
			   *ib;
	uint32		i,
				j;

	s->npairs++;
	if (s->kind == BATCH_CLUSTERS)
	{
		simhash_uf_union(s->parent, a->group, b->group);
		return;
	}
	ia = group_ids(s, a, &onea);
	ib = group_ids(s, b, &oneb);
	if (s->kind == BATCH_CROSS_PAIRS)
	{
		/* each group's new ids first: new of a with existing of b, and back */
		for (i = 0; i < a->group; i++)
			for (j = b->group; j < b->nids; j++)
				put_cross(s, ia[i], ib[j], d);
		for (j = 0; j < b->group; j++)
			for (i = a->group; i < a->nids; i++)
				put_cross(s, ib[j], ia[i], d);
	}
	else
		for (i = 0; i < a->nids; i++)
			for (j = 0; j < b->nids; j++)
				put_pair(s, ia[i], ib[j], d);
	if (ia != &onea)
		pfree(ia);
	if (ib != &oneb)
		pfree(ib);
}

/* ---------- the groups ---------- */

/*
 * Read the sorted rows back into groups of equal fingerprints: the group
 * file, the id file, the sample, and (simhash_pairs) the pairs inside each
 * group, at distance 0.
 */
static void
build_groups(Spill *s, SpillInput *sp)
{
	int			nw = s->nw;
	bool		cross = s->kind == BATCH_CROSS_PAIRS;
	int64		v[SIMHASH_MAX_WORDS + 2];
	uint64		cur[SIMHASH_MAX_WORDS];
	int64	   *gids;
	uint32		ncur = 0,
				nnew = 0,
				cap = 64;
	uint64		step = Max(sp->nrows / SPILL_SAMPLE, 1);
	bool		have = false;

	tuplesort_performsort(sp->rows.ts);
	s->groups = BufFileCreateTemp(false);
	s->ids = BufFileCreateTemp(false);
	s->sample = palloc(sizeof(SimHash) * nw * (Min(sp->nrows, SPILL_SAMPLE) + 1));
	gids = palloc(sizeof(int64) * cap);

	for (;;)
	{
		bool		more = spill_sort_get(&sp->rows, v);

		if (have && (!more || memcmp(v, cur, sizeof(uint64) * nw) != 0))
		{
			SpillGroup	g;
			uint32		i,
						j;

			if (s->ngroups == PG_UINT32_MAX - 1)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s: too many rows", s->fname)));
			g.nids = ncur;
			g.group = cross ? nnew : s->ngroups;
			g.id = gids[0];
			if (ncur > 1)
			{
				g.id = (int64) s->nids;
				BufFileWrite(s->ids, gids, sizeof(int64) * ncur);
				s->nids += ncur;
				if (s->kind == BATCH_PAIRS ||
					(s->kind == BATCH_WORD_PAIRS && (s->only & 1)))
					for (i = 0; i + 1 < ncur; i++)
						for (j = i + 1; j < ncur; j++)
							put_pair(s, gids[i], gids[j], 0);
				if (cross)
					for (i = 0; i < nnew; i++)
						for (j = nnew; j < ncur; j++)
							put_cross(s, gids[i], gids[j], 0);
			}
			BufFileWrite(s->groups, &g, sizeof(g));
			BufFileWrite(s->groups, cur, sizeof(uint64) * nw);
			if (s->ngroups % step == 0 && s->nsample < SPILL_SAMPLE)
				memcpy(&s->sample[(Size) s->nsample++ * nw], cur, sizeof(uint64) * nw);
			s->ngroups++;
			ncur = 0;
			nnew = 0;
			if ((s->ngroups & INTERRUPT_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		if (!more)
			break;
		if (ncur == cap)
		{
			cap *= 2;
			gids = repalloc_huge(gids, sizeof(int64) * cap);
		}
		memcpy(cur, v, sizeof(uint64) * nw);
		if (cross && v[nw] == 0)
			nnew++;
		gids[ncur++] = v[cross ? nw + 1 : nw];
		have = true;
	}
	spill_sort_end(&sp->rows);
	pfree(gids);
}

/* ---------- the search ---------- */

/* Record i of the current bucket, in memory or read into buf */
static const char *
bucket_record(Spill *s, uint32 i, char *buf)
{
	Size		rs = BUCKET_REC_SIZE(s->nw);

	if (s->brecs)
		return s->brecs + (Size) i * rs;
	spill_read_at(s->bfile, (uint64) i * rs, buf, rs);
	return buf;
}

/*
 * PairCallback of a word's search: records la and lb of the bucket are
 * within the word's radius.  Measured on every word, reported when within
 * k and no earlier word is within its radius (it was reported there).
 */
static void
spill_candidate(void *arg, uint32 la, uint32 lb, int dword)
{
	Spill	   *s = (Spill *) arg;
	const char *ra = bucket_record(s, la, s->abuf),
			   *rb = bucket_record(s, lb, s->bbuf);
	SpillGroup	ga,
				gb;
	uint64		a[SIMHASH_MAX_WORDS],
				b[SIMHASH_MAX_WORDS];
	int			d = 0,
				j;

	memcpy(&ga, ra + sizeof(uint64), sizeof(SpillGroup));
	memcpy(&gb, rb + sizeof(uint64), sizeof(SpillGroup));
	/* two queries: groups of one side only never pair, not measured */
	if (s->kind == BATCH_CROSS_PAIRS &&
		!((SPILL_HAS_NEW(&ga) && SPILL_HAS_EXISTING(&gb)) ||
		  (SPILL_HAS_NEW(&gb) && SPILL_HAS_EXISTING(&ga))))
		return;
	s->ncand++;
	memcpy(a, ra + sizeof(uint64) + sizeof(SpillGroup), sizeof(uint64) * s->nw);
	memcpy(b, rb + sizeof(uint64) + sizeof(SpillGroup), sizeof(uint64) * s->nw);
	for (j = 0; j < s->nw; j++)
	{
		int			dj = pg_popcount64(a[j] ^ b[j]);

		if (j < s->word && dj <= s->radius[j])
			return;
		d += dj;
	}
	if (d <= s->k)
		report_groups(s, &ga, &gb, d);
}

/*
 * Search one bucket of a pass: its n records are in f; their keys (and,
 * when they fit in the budget, the records) are read into memory, sorted
 * on segment c0 and visited.
 */
static void
search_bucket(Spill *s, PassState *ps, BufFile *f, uint32 n)
{
	Size		rs = BUCKET_REC_SIZE(s->nw);
	SortRec    *r = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * n);
	uint32		i;

	spill_rewind(f);
	if ((Size) n * (rs + sizeof(SortRec)) <= s->budget)
	{
		s->brecs = MemoryContextAllocHuge(CurrentMemoryContext, rs * n);
		spill_read(f, s->brecs, rs * n);
		for (i = 0; i < n; i++)
			memcpy(&r[i].key, s->brecs + (Size) i * rs, sizeof(uint64));
	}
	else
	{
		char		buf[BUCKET_REC_SIZE(SIMHASH_MAX_WORDS)];

		for (i = 0; i < n; i++)
		{
			spill_read(f, buf, rs);
			memcpy(&r[i].key, buf, sizeof(uint64));
		}
	}
	for (i = 0; i < n; i++)
	{
		r[i].row = i;
		r[i].pad = 0;
	}
	s->bfile = f;
	simhash_batch_search_run(ps, r, n);
	if (s->brecs)
		pfree(s->brecs);
	s->brecs = NULL;
	s->bfile = NULL;
	pfree(r);
}

/* The passes of word s->word: each a scatter of the groups, then buckets */
static void
search_word(Spill *s)
{
	int			nw = s->nw;
	Size		rs = BUCKET_REC_SIZE(nw);
	SimHash    *wsample = palloc(sizeof(SimHash) * Max(s->nsample, 1));
	PassState  *ps;
	BitMap	   *bm = palloc(sizeof(BitMap));
	char	   *rec = palloc(rs);
	TimestampTz last = GetCurrentTimestamp();
	uint32		i;
	int			c0;

	for (i = 0; i < s->nsample; i++)
		wsample[i] = s->sample[(Size) i * nw + s->word];
	ps = simhash_batch_search_begin(wsample, s->nsample, (double) s->ngroups,
									s->radius[s->word], spill_candidate, s, 1024);
	for (c0 = 0; c0 < simhash_batch_search_passes(ps); c0++)
	{
		int			len = simhash_batch_search_pass(ps, c0, bm);
		int			bbits = Min(len, SPILL_BUCKET_BITS);	/* a segment has >= 1 bit */
		int			nb = 1 << bbits,
					b;
		BufFile   **bf = palloc0(sizeof(BufFile *) * nb);
		uint32	   *count = palloc0(sizeof(uint32) * nb);
		uint32		g;

		spill_rewind(s->groups);
		for (g = 0; g < s->ngroups; g++)
		{
			uint64		key;
			const uint64 *words = (const uint64 *) (rec + sizeof(uint64) + sizeof(SpillGroup));

			spill_read(s->groups, rec + sizeof(uint64), rs - sizeof(uint64));
			key = simhash_batch_bitmap_apply(bm, words[s->word]);
			memcpy(rec, &key, sizeof(uint64));
			b = (int) (key >> (64 - bbits));
			if (bf[b] == NULL)
				bf[b] = BufFileCreateTemp(false);
			BufFileWrite(bf[b], rec, rs);
			count[b]++;
			simhash_batch_work(&s->work, 1);
		}
		for (b = 0; b < nb; b++)
		{
			if (bf[b] == NULL)
				continue;
			if (count[b] > 1)
				search_bucket(s, ps, bf[b], count[b]);
			BufFileClose(bf[b]);
		}
		pfree(bf);
		pfree(count);
		if (TimestampDifferenceExceeds(last, GetCurrentTimestamp(), PROGRESS_SECS * 1000))
		{
			ereport(NOTICE,
					(errmsg("%s: word %d of %d, %d of %d sorted passes done (spilled), " UINT64_FORMAT " pairs so far",
							s->fname, s->word + 1, nw, c0 + 1,
							simhash_batch_search_passes(ps), s->npairs)));
			last = GetCurrentTimestamp();
		}
	}
	simhash_batch_search_end(ps, s->fname);
	pfree(rec);
	pfree(bm);
	pfree(wsample);
}

/* ---------- simhash_clusters: components to (id, cluster_id) ---------- */

static void
emit_clusters(Spill *s)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) s->fcinfo->resultinfo;
	Size		pbytes = sizeof(uint32) * (Size) Max(s->ngroups, 1);
	Size		mwm = (Size) maintenance_work_mem * 1024;

	/* two sorts at a time beside the parents, with room for their overhead */
	int			half = (int) ((mwm - Min(pbytes, mwm)) / 1024 * 3 / 8);
	SpillSort	byid,
				byroot,
				out;
	Size		rs = sizeof(SpillGroup) + sizeof(uint64) * s->nw;
	char	   *rec = palloc(rs);
	int64		v[2],
				prev[2];
	bool		have;
	uint32		g;

	/* (id, group) of every row, in id order: groups sharing an id join */
	spill_sort_begin(&byid, 2, half, true);
	spill_rewind(s->groups);
	for (g = 0; g < s->ngroups; g++)
	{
		SpillGroup	gr;
		int64		one,
				   *ids;
		uint32		i;

		spill_read(s->groups, rec, rs);
		memcpy(&gr, rec, sizeof(SpillGroup));
		ids = group_ids(s, &gr, &one);
		for (i = 0; i < gr.nids; i++)
		{
			v[0] = ids[i];
			v[1] = g;
			spill_sort_put(&byid, v);
		}
		if (ids != &one)
			pfree(ids);
		if ((g & INTERRUPT_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	tuplesort_performsort(byid.ts);
	have = false;
	while (spill_sort_get(&byid, v))
	{
		if (have && v[0] == prev[0])
			simhash_uf_union(s->parent, (uint32) prev[1], (uint32) v[1]);
		prev[0] = v[0];
		prev[1] = v[1];
		have = true;
	}

	/* (root, id): each component's smallest id comes first */
	spill_sort_begin(&byroot, 2, half, false);
	tuplesort_rescan(byid.ts);
	while (spill_sort_get(&byid, v))
	{
		int64		w[2];

		w[0] = simhash_uf_find(s->parent, (uint32) v[1]);
		w[1] = v[0];
		spill_sort_put(&byroot, w);
	}
	spill_sort_end(&byid);
	pfree(s->parent);
	s->parent = NULL;
	tuplesort_performsort(byroot.ts);

	/* (id, cluster_id), each id once, back in id order */
	spill_sort_begin(&out, 2, half, false);
	have = false;
	{
		int64		minid = 0;

		while (spill_sort_get(&byroot, v))
		{
			int64		w[2];

			if (have && v[0] == prev[0] && v[1] == prev[1])
				continue;		/* an id of two groups of the component */
			if (!have || v[0] != prev[0])
				minid = v[1];
			w[0] = v[1];
			w[1] = minid;
			spill_sort_put(&out, w);
			prev[0] = v[0];
			prev[1] = v[1];
			have = true;
		}
	}
	spill_sort_end(&byroot);
	tuplesort_performsort(out.ts);
	while (spill_sort_get(&out, v))
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(v[0]);
		values[1] = Int64GetDatum(v[1]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if ((++s->nput & INTERRUPT_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	spill_sort_end(&out);
	pfree(rec);
}

/* ---------- the entry point ---------- */

/*
 * simhash_pairs or simhash_clusters (sp->kind) on the spilled rows within
 * k: the rows of the result into fcinfo's materialized result.  words: the
 * words whose passes run, a bitmask (simhash_word_pairs; else all of them).
 */
void
simhash_batch_spill_run(FunctionCallInfo fcinfo, SpillInput *sp, int32 k,
						uint32 words)
{
	Spill		s;
	Size		mwm = (Size) maintenance_work_mem * 1024;
	Size		rs;
	int			i;

	memset(&s, 0, sizeof(s));
	s.fcinfo = fcinfo;
	s.kind = sp->kind;
	s.fname = simhash_batch_fname[sp->kind];
	s.nw = sp->nwords;
	s.k = k;
	s.only = words;
	rs = BUCKET_REC_SIZE(s.nw);
	for (i = 0; i < s.nw; i++)
		s.radius[i] = (k + 1) / s.nw - 1 + (i < (k + 1) % s.nw ? 1 : 0);
	build_groups(&s, sp);
	elog(DEBUG1, "%s: " UINT64_FORMAT " rows, %u distinct %d-bit fingerprints, k = %d, spilled to temporary files",
		 s.fname, sp->nrows, s.ngroups, SIMHASH_BITS * s.nw, k);

	s.budget = mwm;
	if (s.kind == BATCH_CLUSTERS)
	{
		Size		pbytes = sizeof(uint32) * (Size) Max(s.ngroups, 1);
		uint32		g;

		/* the union-find must stay in memory, beside a quarter for the sorts */
		if (pbytes > mwm / 4 * 3)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s needs %zu MB of memory for %u distinct fingerprints",
							s.fname, pbytes * 4 / 3 / (1024 * 1024) + 1, s.ngroups),
					 errdetail("Beyond maintenance_work_mem it spills the rows to temporary files, but keeps 4 bytes per distinct fingerprint in memory, within three quarters of maintenance_work_mem."),
					 errhint("Raise maintenance_work_mem (now %dkB) accordingly.",
							 maintenance_work_mem)));
		s.parent = MemoryContextAllocHuge(CurrentMemoryContext, pbytes);
		for (g = 0; g < s.ngroups; g++)
			s.parent[g] = g;
		s.budget = mwm - pbytes;
	}
	s.abuf = palloc(rs);
	s.bbuf = palloc(rs);

	/* distinct groups are at least one bit apart */
	if (k > 0 && s.ngroups > 1)
		for (s.word = 0; s.word < s.nw; s.word++)
			if (s.radius[s.word] >= 0 && (s.only & (1U << s.word)))
				search_word(&s);
	elog(DEBUG1, "%s: " UINT64_FORMAT " candidate pairs measured, " UINT64_FORMAT " pairs of groups within k",
		 s.fname, s.ncand, s.npairs);

	if (s.kind == BATCH_CLUSTERS)
		emit_clusters(&s);
	BufFileClose(s.groups);
	BufFileClose(s.ids);
	pfree(s.abuf);
	pfree(s.bbuf);
	pfree(s.sample);
}
