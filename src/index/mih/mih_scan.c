/*
 * mih_scan.c
 *		Index scans of mih: fp <@ ball (radius k) and ORDER BY fp <#> q.
 *
 * A radius search looks up, in each table, the values within r_i of the
 * query's substring (the k + 1 units spread as simhash_segment_radii does),
 * collects the ordinals of the entries whose low bits agree, and reads
 * those rows' codes in ordinal order: each code page once.  The pending
 * rows are checked one by one.  When the tables would cost more than
 * reading every code (large k), every code is read instead: the scan is
 * never slower than a pass over the codes.
 *
 * ORDER BY returns the rows ring by ring: the radius search at k = m - 1,
 * 2m - 1, ... (each table's radius one more), each ring's new rows sorted
 * by distance, while the last ring found rows and the rings together cost
 * less than a pass; then passes over the codes return the rest by
 * distance.  The distances of a page's codes are taken in one loop built
 * for the CPU (mih_kernels.c).
 */
#include "mih.h"

#include <math.h>

#include "access/relscan.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/memutils.h"

#define BAND_FIRST	1000		/* rows of an ordered scan's first pass */

typedef struct MihHit
{
	ItemPointerData tid;
	int32		dist;
} MihHit;

typedef struct MihScanOpaqueData
{
	MemoryContext ctx;			/* freed at each rescan */
	MihMetaPageData meta;
	int			nwords;
	int			perpage;
	/* the scan keys: balls; the least radius first */
	int			nballs;
	int			radius[INDEX_MAX_KEYS];
	uint64		center[INDEX_MAX_KEYS][SIMHASH_MAX_WORDS];
	int			maxdist;		/* the least radius, or all bits */
	int			firstball;		/* balls checked on each row: 1 when the
								 * search is about ball 0's centre */
	/* ORDER BY */
	bool		ordered;
	uint64		query[SIMHASH_MAX_WORDS];
	/* results of gettuple, one ring at a time */
	MihHit	   *hits;
	int			nhits;
	int			next;
	int			done;			/* distances <= done are returned */
	int			band;			/* rows wanted of the next pass */
	double		spent;			/* the cost of the rings so far */
	Size		found;			/* the rows the last ring found */
	bool		finished;
	bool		started;
} MihScanOpaqueData;

typedef MihScanOpaqueData *MihScanOpaque;

typedef void (*HitFn) (void *arg, ItemPointer tid, int dist);

/* A page of the index, share-locked, kept while the next read is on it */
typedef struct PageReader
{
	Relation	index;
	Buffer		buf;
	BlockNumber blkno;
} PageReader;

static Page
read_page(PageReader *pr, BlockNumber blkno)
{
	if (pr->buf != InvalidBuffer && pr->blkno != blkno)
	{
		UnlockReleaseBuffer(pr->buf);
		pr->buf = InvalidBuffer;
	}
	if (pr->buf == InvalidBuffer)
	{
		pr->buf = ReadBuffer(pr->index, blkno);
		LockBuffer(pr->buf, BUFFER_LOCK_SHARE);
		pr->blkno = blkno;
	}
	return BufferGetPage(pr->buf);
}

static void
release_page(PageReader *pr)
{
	if (pr->buf != InvalidBuffer)
		UnlockReleaseBuffer(pr->buf);
	pr->buf = InvalidBuffer;
}

/* The directory of table tab at top value v */
static inline uint32
dir_at(PageReader *pr, const MihTable *tab, uint32 v)
{
	Page		page = read_page(pr, tab->directory + v / MIH_DIR_PER_PAGE);

	return ((uint32 *) PageGetContents(page))[v % MIH_DIR_PER_PAGE];
}

typedef struct TopValue
{
	uint32		value;
	int			dist;
} TopValue;

static int
cmp_top(const void *a, const void *b)
{
	uint32		x = ((const TopValue *) a)->value,
				y = ((const TopValue *) b)->value;

	return (x > y) - (x < y);
}

static int
cmp_uint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a,
				y = *(const uint32 *) b;

	return (x > y) - (x < y);
}

/* Every value within r of q over bits 0..bits-1, with its distance */
static void
ball_values(uint32 q, int bits, int r, TopValue *out, int *n)
{
	int			pos[MIH_MAX_SUBSTRING];
	int			w,
				i;

	out[(*n)++] = (TopValue) {q, 0};
	for (w = 1; w <= Min(r, bits); w++)
	{
		for (i = 0; i < w; i++)
			pos[i] = i;
		for (;;)
		{
			uint32		v = q;

			for (i = 0; i < w; i++)
				v ^= (uint32) 1 << pos[i];
			out[(*n)++] = (TopValue) {v, w};
			/* the next combination of w positions among bits */
			i = w - 1;
			while (i >= 0 && pos[i] == bits - w + i)
				i--;
			if (i < 0)
				break;
			pos[i]++;
			for (i = i + 1; i < w; i++)
				pos[i] = pos[i - 1] + 1;
		}
	}
}

/* Whether the row passes every ball of the scan */
static inline bool
in_balls(MihScanOpaque so, const uint64 *code)
{
	int			i;

	for (i = so->firstball; i < so->nballs; i++)
		if (mih_distance(code, so->center[i], so->nwords) > so->radius[i])
			return false;
	return true;
}

/*
 * Read the code pages from..to (exclusive), or a page list from "from".
 * *hi is read for each row: fn may lower it (the band of an ordered scan),
 * and the rows beyond it then cost only their distance.
 */
static void
pass_pages(Relation index, MihScanOpaque so, const uint64 *q, int lo, int *hi,
		   BlockNumber from, BlockNumber to, bool list, HitFn fn, void *arg)
{
	BlockNumber b = from;
	uint16		dist[MIH_MAX_PAGE_CODES];

	while (list ? b != InvalidBlockNumber : b < to)
	{
		Buffer		buf = ReadBuffer(index, b);
		Page		page;
		uint64	   *codes;
		ItemPointerData *tids;
		int			i,
					n;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		page = BufferGetPage(buf);
		codes = mih_page_codes(page);
		tids = mih_page_tids(page, so->nwords);
		n = MihPageGetOpaque(page)->nitems;
		mih_distances(codes, n, so->nwords, q, dist);
		for (i = 0; i < n; i++)
		{
			int			d = dist[i];

			if (d <= *hi && d > lo && ItemPointerIsValid(&tids[i]) &&
				in_balls(so, codes + (Size) i * so->nwords))
				fn(arg, &tids[i], d);
		}
		b = list ? MihPageGetOpaque(page)->next : b + 1;
		UnlockReleaseBuffer(buf);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Every row with lo < distance(q) <= hi (and within the other balls)
 * through fn: the tables when they cost less than a pass (and pass is
 * false), else a pass; the pending rows always one by one.
 */
static void
search(Relation index, MihScanOpaque so, const uint64 *q, int lo, int *hi,
	   bool pass, HitFn fn, void *arg)
{
	const MihMetaPageData *meta = &so->meta;
	BlockNumber ncodepages = (meta->nsorted + so->perpage - 1) / so->perpage;

	if (meta->nsorted > 0 && !pass && mih_tables_cost(meta, *hi) < mih_pass_cost(meta))
	{
		int			r[MIH_MAX_TABLES];
		uint32	   *cand = NULL;
		Size		ncand = 0,
					capcand = 1024,
					i;
		PageReader	dirpr = {index, InvalidBuffer, InvalidBlockNumber},
					entpr = {index, InvalidBuffer, InvalidBlockNumber};
		int			j;

		cand = palloc(sizeof(uint32) * capcand);
		mih_table_radii(meta, *hi, r);
		for (j = 0; j < meta->ntables; j++)
		{
			const MihTable *tab = &meta->tables[j];
			uint32		qs = mih_substring(q, tab->offset, tab->length),
						qlow = qs & ((1u << tab->lowbits) - 1);
			int			rt = Min(r[j], (int) meta->dirbits),
						nv = 0,
						t;
			TopValue   *vals;

			if (r[j] < 0)
				continue;
			vals = palloc(sizeof(TopValue) *
						  (Size) (mih_ball_share(meta->dirbits, rt) * ldexp(1.0, meta->dirbits) + 1));
			ball_values(qs >> tab->lowbits, meta->dirbits, rt, vals, &nv);
			qsort(vals, nv, sizeof(TopValue), cmp_top);
			for (t = 0; t < nv; t++)
			{
				uint32		a = dir_at(&dirpr, tab, vals[t].value),
							b = dir_at(&dirpr, tab, vals[t].value + 1),
							p;
				int			rl = r[j] - vals[t].dist;

				for (p = a; p < b; p++)
				{
					Page		page = read_page(&entpr, tab->entries + p / MIH_ENTRIES_PER_PAGE);
					int			s = p % MIH_ENTRIES_PER_PAGE;

					if (pg_popcount32(mih_page_lows(page)[s] ^ qlow) > rl)
						continue;
					if (ncand == capcand)
					{
						capcand *= 2;
						cand = repalloc_huge(cand, sizeof(uint32) * capcand);
					}
					cand[ncand++] = mih_page_ordinals(page)[s];
				}
			}
			pfree(vals);
			CHECK_FOR_INTERRUPTS();
		}
		release_page(&dirpr);
		release_page(&entpr);

		/* each candidate once, in ordinal order: each code page once */
		qsort(cand, ncand, sizeof(uint32), cmp_uint32);
		for (i = 0; i < ncand; i++)
		{
			uint32		o = cand[i];
			Page		page;
			const uint64 *c;
			ItemPointerData *tid;
			int			d;

			if (i > 0 && cand[i - 1] == o)
				continue;
			page = read_page(&entpr, meta->codes + o / so->perpage);
			c = mih_page_codes(page) + (Size) (o % so->perpage) * so->nwords;
			tid = &mih_page_tids(page, so->nwords)[o % so->perpage];
			d = mih_distance(c, q, so->nwords);
			if (d > lo && d <= *hi && ItemPointerIsValid(tid) && in_balls(so, c))
				fn(arg, tid, d);
		}
		release_page(&entpr);
		pfree(cand);
	}
	else if (meta->nsorted > 0)
		pass_pages(index, so, q, lo, hi, meta->codes, meta->codes + ncodepages,
				   false, fn, arg);

	/* the pending rows, from the list's head as it is now */
	{
		Buffer		buf = ReadBuffer(index, MIH_METAPAGE_BLKNO);
		BlockNumber head;

		LockBuffer(buf, BUFFER_LOCK_SHARE);
		head = MihPageGetMeta(BufferGetPage(buf))->pendinghead;
		UnlockReleaseBuffer(buf);
		pass_pages(index, so, q, lo, hi, head, InvalidBlockNumber, true, fn, arg);
	}
}

IndexScanDesc
mih_beginscan(Relation index, int nkeys, int norderbys)
{
	IndexScanDesc scan = RelationGetIndexScan(index, nkeys, norderbys);
	MihScanOpaque so = palloc0(sizeof(MihScanOpaqueData));

	so->ctx = AllocSetContextCreate(CurrentMemoryContext, "mih scan",
									ALLOCSET_DEFAULT_SIZES);
	so->nwords = mih_index_nwords(index);
	so->perpage = mih_codes_per_page(so->nwords);
	/* the executor reads each row's distance here */
	if (norderbys > 0)
	{
		scan->xs_orderbyvals = palloc0(sizeof(Datum) * norderbys);
		scan->xs_orderbynulls = palloc(sizeof(bool) * norderbys);
	}
	scan->opaque = so;
	return scan;
}

/* A ball argument: its centre's words and its radius */
static void
ball_arg(int nwords, Datum arg, uint64 *center, int *radius)
{
	if (nwords == 1)
	{
		const SimHashBall *b = (const SimHashBall *) DatumGetPointer(arg);

		center[0] = b->center;
		*radius = b->radius;
	}
	else
	{
		const SimHashWideBall *b = (const SimHashWideBall *) DatumGetPointer(arg);

		memcpy(center, b->center, sizeof(uint64) * nwords);
		*radius = b->radius;
	}
}

void
mih_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys,
		   int norderbys)
{
	MihScanOpaque so = (MihScanOpaque) scan->opaque;
	int			i;

	if (keys && scan->numberOfKeys > 0)
		memmove(scan->keyData, keys, scan->numberOfKeys * sizeof(ScanKeyData));
	if (orderbys && scan->numberOfOrderBys > 0)
		memmove(scan->orderByData, orderbys, scan->numberOfOrderBys * sizeof(ScanKeyData));
	MemoryContextReset(so->ctx);
	mih_read_meta(scan->indexRelation, &so->meta);

	so->nballs = 0;
	so->maxdist = SIMHASH_BITS * so->nwords;
	for (i = 0; i < scan->numberOfKeys; i++)
	{
		ScanKey		sk = &scan->keyData[i];
		int			r;
		uint64		c[SIMHASH_MAX_WORDS];

		if (sk->sk_flags & SK_ISNULL)
		{
			so->maxdist = -1;	/* nothing is within a NULL ball */
			continue;
		}
		ball_arg(so->nwords, sk->sk_argument, c, &r);
		so->radius[so->nballs] = r;
		memcpy(so->center[so->nballs], c, sizeof(c));
		/* the least radius leads the search */
		if (r < so->maxdist)
		{
			so->maxdist = r;
			if (so->nballs > 0)
			{
				so->radius[so->nballs] = so->radius[0];
				memcpy(so->center[so->nballs], so->center[0], sizeof(c));
				so->radius[0] = r;
				memcpy(so->center[0], c, sizeof(c));
			}
		}
		so->nballs++;
	}
	so->ordered = scan->numberOfOrderBys > 0;
	if (so->ordered)
	{
		ScanKey		ob = &scan->orderByData[0];

		if (ob->sk_flags & SK_ISNULL)
			so->maxdist = -1;	/* a NULL distance orders nothing here */
		else if (so->nwords == 1)
			so->query[0] = DatumGetSimHash(ob->sk_argument);
		else
			memcpy(so->query, DatumGetPointer(ob->sk_argument), sizeof(uint64) * so->nwords);
	}
	/*
	 * A radius scan searches ball 0 and checks the others.  An ordered scan
	 * searches about the query and checks every ball; it stops at ball 0's
	 * radius only when ball 0 is about the query.
	 */
	so->firstball = so->ordered ? 0 : 1;
	if (so->ordered && so->maxdist >= 0 &&
		(so->nballs == 0 || memcmp(so->center[0], so->query, sizeof(uint64) * so->nwords) != 0))
		so->maxdist = SIMHASH_BITS * so->nwords;
	so->hits = NULL;
	so->nhits = so->next = 0;
	so->done = -1;
	so->band = BAND_FIRST;
	so->spent = 0;
	so->found = 0;
	so->finished = so->maxdist < 0;
	so->started = false;
}

typedef struct HitList
{
	MihHit	   *hits;
	Size		n;
	Size		cap;
} HitList;

static void
collect_hit(void *arg, ItemPointer tid, int dist)
{
	HitList    *hl = (HitList *) arg;

	if (hl->n == hl->cap)
	{
		hl->cap = Max(hl->cap * 2, 64);
		hl->hits = hl->hits ? repalloc_huge(hl->hits, sizeof(MihHit) * hl->cap)
			: MemoryContextAllocHuge(CurrentMemoryContext, sizeof(MihHit) * hl->cap);
	}
	hl->hits[hl->n].tid = *tid;
	hl->hits[hl->n].dist = dist;
	hl->n++;
}

static int
cmp_hit(const void *a, const void *b)
{
	const MihHit *x = a,
			   *y = b;

	if (x->dist != y->dist)
		return x->dist - y->dist;
	return ItemPointerCompare((ItemPointer) &x->tid, (ItemPointer) &y->tid);
}

/*
 * The nearest rows of a pass, at least "want" of them with every row at
 * the last distance kept: a list per distance, the farthest dropped while
 * the nearer ones reach want.
 */
typedef struct Band
{
	int			cutoff;			/* rows beyond it are dropped */
	int			want;
	Size		total;
	HitList		at[SIMHASH_MAX_BITS + 1];
} Band;

static void
band_hit(void *arg, ItemPointer tid, int dist)
{
	Band	   *band = (Band *) arg;

	if (dist > band->cutoff)
		return;
	collect_hit(&band->at[dist], tid, dist);
	band->total++;
	while (band->cutoff > 0 && band->total - band->at[band->cutoff].n >= (Size) band->want)
	{
		band->total -= band->at[band->cutoff].n;
		if (band->at[band->cutoff].hits)
			pfree(band->at[band->cutoff].hits);
		memset(&band->at[band->cutoff], 0, sizeof(HitList));
		band->cutoff--;
	}
}


/*
 * The next rows of a scan.  A radius scan: all of them at once.  An
 * ordered scan: the next ring of the tables while it costs less than a
 * pass, then bands: each pass keeps the nearest rows beyond the last band,
 * ten times as many as the band before.
 */
static void
next_ring(IndexScanDesc scan)
{
	MihScanOpaque so = (MihScanOpaque) scan->opaque;
	MemoryContext old = MemoryContextSwitchTo(so->ctx);
	HitList		hl = {NULL, 0, 0};
	int			bits = SIMHASH_BITS * so->nwords,
				end = Min(so->maxdist, bits),
				hi;

	if (so->hits)
		pfree(so->hits);
	so->hits = NULL;
	if (!so->ordered)
	{
		hi = end;
		search(scan->indexRelation, so, so->center[0], -1, &hi, false, collect_hit, &hl);
	}
	else
	{
		double		ring;

		hi = (so->done + 1) / so->meta.ntables * so->meta.ntables + so->meta.ntables - 1;
		ring = hi < end ? mih_tables_cost(&so->meta, hi) : 0;

		/*
		 * Rings while all of them together, this one included, cost less
		 * than a pass, so that a query never costs much more than two
		 * passes; and after the first ring only while the last ring found
		 * rows.  A ring that finds none means that the query's next rows
		 * are far (random codes of 10^7 rows lie about 90 of 256 bits from
		 * it), and the rings that would reach them cost more than the pass
		 * that finds them.
		 */
		if (hi < end && (so->done < 0 || so->found > 0) &&
			so->spent + ring < mih_pass_cost(&so->meta))
		{
			so->spent += ring;
			search(scan->indexRelation, so, so->query, so->done, &hi, false, collect_hit, &hl);
			so->found = hl.n;
			qsort(hl.hits, hl.n, sizeof(MihHit), cmp_hit);
		}
		else
		{
			Band	   *band = palloc0(sizeof(Band));
			int			d;

			band->cutoff = end;
			band->want = so->band;
			so->band = (int) Min((int64) so->band * 10, (int64) 100000000);
			search(scan->indexRelation, so, so->query, so->done, &band->cutoff, true, band_hit, band);
			hi = band->total < (Size) band->want ? end : band->cutoff;
			for (d = so->done + 1; d <= hi; d++)
			{
				Size		i;

				for (i = 0; i < band->at[d].n; i++)
					collect_hit(&hl, &band->at[d].hits[i].tid, d);
				if (band->at[d].hits)
					pfree(band->at[d].hits);
			}
			pfree(band);
		}
	}
	so->hits = hl.hits;
	so->nhits = hl.n;
	so->next = 0;
	so->done = hi;
	so->finished = hi >= end;
	MemoryContextSwitchTo(old);
}

bool
mih_gettuple(IndexScanDesc scan, ScanDirection dir)
{
	MihScanOpaque so = (MihScanOpaque) scan->opaque;

	if (!so->started)
	{
		so->started = true;
		pgstat_count_index_scan(scan->indexRelation);
		if (so->finished)
			return false;
		next_ring(scan);
	}
	while (so->next >= so->nhits)
	{
		if (so->finished)
			return false;
		next_ring(scan);
	}
	scan->xs_heaptid = so->hits[so->next].tid;
	scan->xs_recheck = false;
	if (so->ordered)
	{
		scan->xs_orderbyvals[0] = Int32GetDatum(so->hits[so->next].dist);
		scan->xs_orderbynulls[0] = false;
		scan->xs_recheckorderby = false;
	}
	so->next++;
	return true;
}

static void
add_to_bitmap(void *arg, ItemPointer tid, int dist)
{
	tbm_add_tuples((TIDBitmap *) arg, tid, 1, false);
}

int64
mih_getbitmap(IndexScanDesc scan, TIDBitmap *tbm)
{
	MihScanOpaque so = (MihScanOpaque) scan->opaque;
	int64		n = 0;

	pgstat_count_index_scan(scan->indexRelation);
	if (so->maxdist < 0 || so->nballs == 0)
		return 0;
	{
		HitList		hl = {NULL, 0, 0};
		Size		i;
		int			hi = so->maxdist;
		MemoryContext old = MemoryContextSwitchTo(so->ctx);

		search(scan->indexRelation, so, so->center[0], -1, &hi, false,
			   collect_hit, &hl);
		for (i = 0; i < hl.n; i++)
			add_to_bitmap(tbm, &hl.hits[i].tid, hl.hits[i].dist);
		n = hl.n;
		MemoryContextSwitchTo(old);
		MemoryContextReset(so->ctx);
	}
	return n;
}

void
mih_endscan(IndexScanDesc scan)
{
	MihScanOpaque so = (MihScanOpaque) scan->opaque;

	MemoryContextDelete(so->ctx);
	pfree(so);
}
