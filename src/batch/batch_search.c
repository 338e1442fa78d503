/*
 * batch_search.c
 *		All pairs of distinct 64-bit fingerprints within k, in a few sorted
 *		passes (Manku, Jain, Das Sarma 2007, section 3): the search under
 *		every batch function, also for each word of a wide fingerprint
 *		(batch_wide.c).
 *
 * The 64 bits are cut into m segments.  Two fingerprints within distance k
 * differ in at most k segments, so they agree exactly on at least t = m - k
 * of them.  The distinct fingerprints are sorted on one segment c0, the runs
 * of equal c0 sorted again on a second segment c1 > c0, and so on (see
 * visit_node); pairs agreeing on a choice of t segments are neighbours in a
 * run, and each pair of a run is measured.  A pair agrees on several
 * choices; it is reported only under the first of them (its t lowest
 * agreeing segments), so it comes out exactly once.
 *
 * The segments are chosen from the data.  Two random fingerprints agree on
 * bit b with probability q_b = p_b^2 + (1 - p_b)^2, p_b the share of ones
 * in bit b; a bit is worth -log2(q_b) bits of separation (1 when balanced,
 * 0.68 when p_b = 1/4, 0 when constant).  The bits are dealt to the m
 * segments so that every segment is worth about the same, and m is chosen per
 * (number of fingerprints, k, total worth) to balance the sorts (m - t + 1
 * of all fingerprints, and of the runs below them) against the expected
 * length of the runs.
 *
 * Each top-level pass sorts the compact records of batch_sort.c (the
 * fingerprint with its bits permuted so that each segment is contiguous and
 * c0 comes first, and the group number), and handles the runs of a bucket
 * while it is in the CPU cache, down the tree.  A bit permutation keeps
 * Hamming distances, so distances are taken on the permuted fingerprints
 * directly: the keys of a run are copied into the idle sort buffer and
 * measured by the loop batch_kernels.c chose for the CPU (measure_node),
 * and the cost model counts a comparison at what that loop costs.
 */
#include "batch_search.h"
#include "batch_kernels.h"
#include "batch_sort.h"

#include <math.h>

#include "utils/memutils.h"
#include "utils/timestamp.h"

/*
 * Costs of the work of the passes, in units of about 0.3 ns (one
 * candidate pair measured by an AVX-512 loop taking eight pairs per load;
 * batch_kernels.c has the cost of a pair for each loop); measured with
 * bench/batch.
 */
#define SORT_COST			60.0	/* one record through a top-level pass */
#define NODE_SORT_COST		16.0	/* one record sorted again in a node */
#define BIG_NODE_SORT_COST	32.0	/* the same in a node beyond the cache */
#define CACHE_RECORDS		16384	/* records of a node that fit in the cache */
#define SMALL_NODE			16	/* nodes up to this size are measured at once */

/*
 * The separating worth of every bit, -log2(p^2 + (1 - p)^2) with p the
 * share of ones among (a sample of at most 65,536 of) the fingerprints.
 */
static void
bit_worth(const SimHash *fps, uint32 n, double *worth)
{
	uint32		ones[64];
	uint32		step = Max(n / 65536, 1);
	uint32		taken = 0,
				i;
	int			b;

	memset(ones, 0, sizeof(ones));
	for (i = 0; i < n; i += step)
	{
		uint64		x = fps[i];

		for (b = 0; b < 64; b++)
			ones[b] += (x >> b) & 1;
		taken++;
	}
	for (b = 0; b < 64; b++)
	{
		double		p = (double) ones[b] / taken;
		double		q = p * p + (1 - p) * (1 - p);

		worth[b] = -log2(q);
	}
}

/*
 * The passes are a tree of prefixes of the choice T = (c0 < c1 < ... <
 * c(t-1)) of segments.  A top-level pass sorts all fingerprints on segment c0
 * (c0 = 0 .. m - t); each run of equal segment c0 (a node at depth 1) is
 * sorted in turn on every segment c1 > c0 that can follow, and each of its
 * runs (a node at depth 2) on every c2 > c1, and so on: the nodes at depth
 * j are the fingerprints agreeing on the segments of a prefix of length j,
 * and only the top level moves all fingerprints through memory; the nodes
 * below are small and sorted in the CPU cache.  A node at depth t, or one
 * so small that comparing all its pairs costs less than sorting it again,
 * has all its pairs measured.  A pair within k is measured in exactly one
 * node: the one of the longest prefix of its first t agreeing segments that
 * the tree visits, as it is reported only when no segment outside that
 * prefix and before its last segment agrees.
 */

/* Number of prefixes of length j of the choices of t segments out of m */
static double
prefixes(int m, int t, int j)
{
	return simhash_binomial(m - t + j, j);
}

/*
 * Number of segments for n fingerprints, radius k and total worth: the m > k
 * whose estimated work is least: m - t + 1 top-level sorts, the in-cache
 * sorts of the nodes down to some depth J, and the comparisons in the
 * nodes at depth J, whose segments are worth total * J / m bits, each
 * costing pair_cost.  More rows call for more segments: the comparisons
 * grow as n^2, the sorts as n.
 */
static int
choose_segments(double n, int k, double total, double pair_cost)
{
	int			best = k + 1;
	double		best_cost = -1;
	int			m;

	for (m = k + 1; m <= Min(MAX_SEGMENTS, k + 12); m++)
	{
		int			t = m - k;
		double		top = (m - t + 1) * n * SORT_COST;
		double		nodes = 0;
		int			j;

		for (j = 1; j <= t; j++)
		{
			double		cmp = prefixes(m, t, j) * n * n / 2.0 / pow(2.0, total * j / m) *
				pair_cost;
			double		cost;

			/* the nodes at depth j - 1 are sorted again, in the cache or not */
			if (j > 1)
				nodes += prefixes(m, t, j) * n *
					(n / pow(2.0, total * (j - 1) / m) > CACHE_RECORDS ?
					 BIG_NODE_SORT_COST : NODE_SORT_COST);
			cost = top + nodes + cmp;
			if (best_cost < 0 || cost < best_cost)
			{
				best = m;
				best_cost = cost;
			}
		}
	}
	return best;
}

/*
 * Deal the 64 bits to m segments of about equal worth (largest worth first,
 * each to the segment worth least so far).  Result: segment[b] per bit.
 */
static void
deal_bits(const double *worth, int m, int *order, int *segment)
{
	double		sum[MAX_SEGMENTS];
	int			size[MAX_SEGMENTS];
	int			i,
				j;

	/* bits by decreasing worth (insertion sort; ties by bit number) */
	for (i = 0; i < 64; i++)
	{
		for (j = i; j > 0 && worth[order[j - 1]] < worth[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (j = 0; j < m; j++)
	{
		sum[j] = 0;
		size[j] = 0;
	}
	for (i = 0; i < 64; i++)
	{
		int			bit = order[i];
		int			best = 0;

		for (j = 1; j < m; j++)
			if (sum[j] < sum[best] - 1e-9 ||
				(fabs(sum[j] - sum[best]) <= 1e-9 && size[j] < size[best]))
				best = j;
		segment[bit] = best;
		sum[best] += worth[bit];
		size[best]++;
	}
}

/* The state of the passes */
struct PassState
{
	PairScan	sc;				/* what the scans use: k, reporting */
	int			t,
				m;
	int			pos[MAX_SEGMENTS];	/* segment b is key bits [pos, pos + len) */
	int			len[MAX_SEGMENTS];
	uint64		pmask[MAX_SEGMENTS];	/* the same as masks */
	int			prefix[MAX_SEGMENTS]; /* the segments of the current node */
	SortRec    *tmp;			/* sort buffer */
	uint32		tmpcap;
	uint64		ncand;			/* pairs measured (candidates verified) */
	double		pair_cost;		/* of measuring one, in the units above */
	uint64		nresorted;		/* records sorted again in nodes */
	/* measure the pairs of keys[0], keys[stride], ...: any stride, stride 1 */
	PairScanFn	scan;
	PairScanFn	scan_dense;
	int			segment[64];	/* of each bit */
	int			ntop;			/* top-level passes */
};

/*
 * Measure every pair of the node r[0..n): its keys are copied to the sort
 * buffer (free while a node is measured) for a dense scan, or scanned in
 * place when the node is small (most nodes hold two or three records) or
 * larger than the buffer.
 */
static void
measure_node(PassState *ps, const SortRec *r, uint32 n)
{
	ps->ncand += (uint64) n * (n - 1) / 2;
	ps->sc.rstride = sizeof(SortRec) / sizeof(uint32);
	if (n > SMALL_NODE && n <= ps->tmpcap * (sizeof(SortRec) / sizeof(uint64)))
	{
		uint64	   *keys = (uint64 *) ps->tmp;
		uint32		i;

		for (i = 0; i < n; i++)
			keys[i] = r[i].key;
		ps->scan_dense(&ps->sc, keys, 1, &r[0].row, n);
	}
	else
		ps->scan(&ps->sc, &r[0].key, sizeof(SortRec) / sizeof(uint64), &r[0].row, n);
}

/* Measure every pair of a node given as its keys and its rows (n of each) */
static void
measure_keys(PassState *ps, const uint64 *keys, const uint32 *rows, uint32 n)
{
	ps->ncand += (uint64) n * (n - 1) / 2;
	ps->sc.rstride = 1;
	if (n > SMALL_NODE)
		ps->scan_dense(&ps->sc, keys, 1, rows, n);
	else
		ps->scan(&ps->sc, keys, 1, rows, n);
}

/*
 * The last sort of a node r[0..n) (16 < n <= tmpcap), on segment c of at
 * most 8 bits, whose runs are leaves: the keys and rows of the records are
 * placed in the order of that segment into the sort buffer (n keys, then n
 * rows), and the pairs of each run measured there; r is left as it was.
 */
static void
measure_leaves(PassState *ps, const SortRec *r, uint32 n, int c)
{
	uint32		pos[4][256],
				ends[256];
	uint64	   *keys = (uint64 *) ps->tmp;
	uint32	   *rows = (uint32 *) (keys + n);
	uint32		start,
				d;

	if (!simhash_batch_digit_places(r, n, ps->pos[c], ps->len[c], pos, ends))
	{
		measure_node(ps, r, n);
		return;
	}
	simhash_batch_scatter_digit(r, n, ps->pos[c], (1U << ps->len[c]) - 1, pos,
								NULL, keys, rows);
	for (start = 0, d = 0; start < n; start = ends[d++])
		if (ends[d] - start > 1)
			measure_keys(ps, keys + start, rows + start, ends[d] - start);
}

/* The value of segment b in a key */
static inline uint64
segment_value(const PassState *ps, uint64 key, int b)
{
	return (key & ps->pmask[b]) >> ps->pos[b];
}

static void visit_node(PassState *ps, SortRec *r, uint32 n, int j);

/*
 * A run r[0..n) of a node sorted again, a node at depth j: a small one is
 * measured at once (as visit_node would), a larger one visited; nbefore is
 * the number of segments outside its prefix before the prefix's end.
 */
static inline void
visit_child(PassState *ps, SortRec *r, uint32 n, int j, int nbefore)
{
	if (n > SMALL_NODE)
	{
		visit_node(ps, r, n, j);
		ps->sc.nbefore = nbefore;
	}
	else if (n > 1)
		measure_node(ps, r, n);
}

/*
 * A node at depth j: r[0..n) agree on the segments prefix[0..j).  Measure it,
 * or sort it on each segment that can come next and visit the runs.
 */
static void
visit_node(PassState *ps, SortRec *r, uint32 n, int j)
{
	int			last = ps->prefix[j - 1];
	int			nchoices = ps->m - ps->t + j - last;
	int			saved = ps->sc.nbefore;
	int			c;

	if (n < 2)
		return;
	/* all pairs cost n^2 / 2 pairs; sorting again nchoices * n records */
	if (j == ps->t || (double) n * ps->pair_cost <=
		2.0 * (n > CACHE_RECORDS ? BIG_NODE_SORT_COST : NODE_SORT_COST) * nchoices)
	{
		measure_node(ps, r, n);
		return;
	}
	for (c = last + 1; c <= ps->m - ps->t + j; c++)
	{
		uint32		start,
					end;

		/* segments skipped between the prefix's end and c come before it */
		if (c > last + 1)
			ps->sc.before[saved + c - last - 2] = ps->pmask[c - 1];
		ps->sc.nbefore = saved + c - last - 1;
		ps->prefix[j] = c;
		simhash_batch_work(&ps->sc.work, n);
		ps->nresorted += n;
		if (j + 1 == ps->t && ps->len[c] <= 8 && n <= ps->tmpcap)
		{
			/* the runs are leaves: measured where they are placed */
			measure_leaves(ps, r, n, c);
			continue;
		}
		if (ps->len[c] <= 8 && n <= ps->tmpcap)
		{
			/* one counting pass; its counts give the runs */
			uint32		ends[256];
			uint32		d;

			simhash_batch_sort_digit(r, ps->tmp, n, ps->pos[c], ps->len[c], ends);
			for (start = 0, d = 0; start < n; start = ends[d++])
				visit_child(ps, r + start, ends[d] - start, j + 1, saved + c - last - 1);
			continue;
		}
		simhash_batch_sort_segment(r, n, ps->pos[c], ps->pos[c] + ps->len[c],
								   ps->tmp, ps->tmpcap);
		for (start = 0; start < n; start = end)
		{
			uint64		v = segment_value(ps, r[start].key, c);

			for (end = start + 1; end < n && segment_value(ps, r[end].key, c) == v; end++)
				;
			visit_child(ps, r + start, end - start, j + 1, saved + c - last - 1);
		}
	}
	ps->sc.nbefore = saved;
}

/* Bucket callback of a top-level pass: visit every run of equal segment c0 */
static void
visit_bucket(void *arg, SortRec *r, uint32 n)
{
	PassState  *ps = (PassState *) arg;
	int			c0 = ps->prefix[0];
	uint32		start,
				end;

	for (start = 0; start < n; start = end)
	{
		uint64		v = segment_value(ps, r[start].key, c0);

		for (end = start + 1; end < n && segment_value(ps, r[end].key, c0) == v; end++)
			;
		if (end - start > 1)
		{
			ps->sc.nbefore = c0;
			visit_node(ps, r + start, end - start, 1);
		}
	}
}

/*
 * The search for n fingerprints (sample: some of them, for the worth of
 * their bits) within k, reporting through cb: the segments are chosen, no
 * pass is set up yet.  The sort buffer holds tmp_records records, and grows
 * with the runs given to simhash_batch_search_run.
 */
PassState *
simhash_batch_search_begin(const SimHash *sample, uint32 nsample, double n,
						   int k, PairCallback cb, void *arg, uint32 tmp_records)
{
	PassState  *ps = palloc0(sizeof(PassState));
	const PairScanKernels *kern = simhash_batch_kernels();
	double		worth[64];
	double		total = 0;
	int			order[64],
				b;

	bit_worth(sample, nsample, worth);
	for (b = 0; b < 64; b++)
		total += worth[b];
	ps->scan = kern->scan;
	ps->scan_dense = kern->scan_dense;
	ps->pair_cost = kern->pair_cost;
	ps->sc.k = k;
	ps->m = choose_segments(n, k, total, ps->pair_cost);
	ps->t = ps->m - k;
	ps->sc.cb = cb;
	ps->sc.arg = arg;
	deal_bits(worth, ps->m, order, ps->segment);
	ps->ntop = ps->m - ps->t + 1;
	ps->tmpcap = tmp_records;
	ps->tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * ps->tmpcap);
	elog(DEBUG1, "the search: %.0f distinct fingerprints, k = %d, %d segments, %d top-level passes, %.1f bits of separation",
		 n, k, ps->m, ps->ntop, total);
	return ps;
}

/* The number of top-level passes */
int
simhash_batch_search_passes(const PassState *ps)
{
	return ps->ntop;
}

/*
 * Set up top-level pass c0: bm gets the permutation of its keys (segment c0
 * on top, then the other segments in order, each contiguous).  Returns the
 * length of segment c0, the leading bits of a permuted key.
 */
int
simhash_batch_search_pass(PassState *ps, int c0, BitMap *bm)
{
	int			dest[64];
	int			next = 64,
				b,
				i;

	for (i = -1; i < ps->m; i++)
	{
		int			bb = (i < 0) ? c0 : i;

		if (i == c0)
			continue;
		ps->len[bb] = 0;
		for (b = 0; b < 64; b++)
		{
			if (ps->segment[b] != bb)
				continue;
			dest[b] = --next;
			ps->len[bb]++;
		}
		ps->pos[bb] = next;
		/* one segment of all 64 bits at radius 0 (a spilled word search) */
		ps->pmask[bb] = (ps->len[bb] == 64 ? ~UINT64CONST(0) :
						 (UINT64CONST(1) << ps->len[bb]) - 1) << next;
	}
	simhash_batch_bitmap_init(bm, dest);
	/* segments before c0 are outside every prefix that starts with it */
	for (b = 0; b < c0; b++)
		ps->sc.before[b] = ps->pmask[b];
	ps->prefix[0] = c0;
	return ps->len[c0];
}

/*
 * Records of the current pass (permuted keys and their rows), in any order
 * but holding every record of their values of segment c0: sorted on c0 and
 * each run visited.
 */
void
simhash_batch_search_run(PassState *ps, SortRec *r, uint32 n)
{
	int			c0 = ps->prefix[0];

	/* a buffer of the run's size: the nodes below take the counting sorts */
	if (n > ps->tmpcap)
	{
		pfree(ps->tmp);
		ps->tmpcap = n;
		ps->tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * ps->tmpcap);
	}
	simhash_batch_sort_segment(r, n, ps->pos[c0], 64, ps->tmp, ps->tmpcap);
	visit_bucket(ps, r, n);
}

/* The end of a search: its counts (DEBUG1), its memory */
void
simhash_batch_search_end(PassState *ps, const char *fname)
{
	elog(DEBUG1, "%s: " UINT64_FORMAT " candidate pairs measured, " UINT64_FORMAT " within k, " UINT64_FORMAT " records sorted again in nodes",
		 fname, ps->ncand, ps->sc.npairs, ps->nresorted);
	pfree(ps->tmp);
	pfree(ps);
}

/*
 * Every pair of groups (distinct 64-bit fingerprints) within k (at most
 * MAX_BATCH_RADIUS), each exactly once, through cb.  Pairs inside a group
 * (distance 0) are the caller's.  in->n is only reported (DEBUG1).
 */
void
simhash_batch_group_pairs(BatchInput *in, int k, const char *fname,
						  PairCallback cb, void *arg)
{
	uint32		n = in->ngroups;
	int			c0,
				ntop;
	BitMap	   *bm;
	PassState  *ps;
	TimestampTz last = GetCurrentTimestamp();

	if (n < 2 || k == 0)
		return;
	elog(DEBUG1, "%s: %u rows, %u distinct fingerprints", fname, in->n, n);
	ps = simhash_batch_search_begin(in->gfp, n, (double) n, k, cb, arg,
									simhash_batch_tmp_records(n));
	ntop = ps->ntop;
	bm = palloc(sizeof(BitMap));
	for (c0 = 0; c0 < ntop; c0++)
	{
		int			len = simhash_batch_search_pass(ps, c0, bm);

		simhash_batch_sort_records(in->gfp, n, bm, 0, len, in->recs,
								   ps->tmp, visit_bucket, ps);

		if (TimestampDifferenceExceeds(last, GetCurrentTimestamp(), PROGRESS_SECS * 1000))
		{
			ereport(NOTICE,
					(errmsg("%s: %d of %d sorted passes done, " UINT64_FORMAT " pairs so far",
							fname, c0 + 1, ntop, ps->sc.npairs)));
			last = GetCurrentTimestamp();
		}
	}
	pfree(bm);
	simhash_batch_search_end(ps, fname);
}
