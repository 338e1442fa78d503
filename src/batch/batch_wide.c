/*
 * batch_wide.c
 *		simhash_pairs, simhash_group_pairs and simhash_clusters on simhash128
 *		and simhash256 fingerprints, through the 64-bit search of
 *		batch_search.c.
 *
 * Pigeonhole on the words: give word i of the w words a radius r_i such
 * that the r_i + 1 add up to k + 1.  Two fingerprints within k bits are
 * then within r_i bits in at least one word i (were every word more than
 * r_i bits apart, they would differ in at least k + 1 bits).  The radii are
 * as equal as can be, floor((k + 1) / w) - 1 or one more, the larger ones
 * first; a word of radius -1 needs no pass (k = 1 on 256 bits: two of the
 * four words).  For each word i with a pass, the distinct values of word
 * i among the groups (of equal whole fingerprints, as for 64 bits) are
 * grouped again, and every pair of those values within r_i is found by the
 * 64-bit search (simhash_batch_group_pairs).  Each pair of groups under two
 * such values, or under one value, is a candidate: it is measured on all
 * words, and reported when within k and when no earlier word j < i is
 * within its r_j (it was a candidate there and was reported then).  So
 * every pair within k comes out exactly once, whatever the data.
 *
 * The passes are independent: simhash_word_pairs runs one of them
 * (simhash_batch_find_word_pairs), so that the passes of one table can run
 * on different machines and their union is the pairs of all of them.
 *
 * The 64-bit search takes radii up to MAX_BATCH_RADIUS (16): k up to 33 at
 * 128 bits and 67 at 256 bits.  Beyond that every pair of groups is
 * measured, which is exact at any k but costs n^2 / 2 comparisons; a single
 * pass then keeps the pairs whose first word within its radius is its own.
 *
 * The cost is that of the words' searches, plus the candidates: pairs that
 * agree within r_i on word i and are mostly far apart on the others.  At
 * radius 16 the 64-bit search measures about as many candidates as there
 * are pairs (a random pair of words is within 16 bits with probability
 * 3.9e-5, and segments of 64 / 17 bits separate little), so k near 33 or
 * 67 costs about what comparing every pair would.  A word that is nearly
 * constant over the table (zero padding, say) makes its value groups
 * large and its candidates many.
 */
#include "batch_wide.h"
#include "batch_search.h"
#include "batch_sort.h"

#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

/* One word's pass: the distinct values of word `word` and the pair test */
typedef struct WordPass
{
	const BatchInput *in;		/* the wide groups */
	BatchInput	vals;			/* the values of the word: ids are groups */
	int			word;			/* of the pass */
	int			radius[SIMHASH_MAX_WORDS];	/* r_i: -1 (no pass) .. */
	int			k;
	bool		own;			/* all pairs, one pass: its word must be
								 * within its radius too */
	PairCallback cb;
	void	   *arg;
	uint64		ncand;			/* pairs of groups measured */
	uint64		npairs;			/* reported */
	uint64		work;			/* since the last interrupt check */
} WordPass;

/*
 * The extra memory of the search, in bytes per row, beyond the rows and
 * their groups: a word's values (group number 8, value 8), their 16-byte
 * sort record, row list and starts 8, and the two sort buffers 4.
 */
Size
simhash_batch_wide_memory(int nwords)
{
	return sizeof(int64) + sizeof(SimHash) + sizeof(SortRec) +
		2 * sizeof(uint32) + 2 * (sizeof(SortRec) / 8);
}

/* ---------- groups of equal fingerprints ---------- */

#define ROW_ID_LEVEL(in)	((in)->nwords)	/* the level after the words */

/*
 * The sort key of row `row` at `level`: word `level` of its fingerprint,
 * or (level nwords) its id with the sign bit flipped, so that unsigned key
 * order is id order.
 */
static inline uint64
row_key(const BatchInput *in, uint32 row, int level)
{
	if (level < in->nwords)
		return in->fps[(Size) row * in->nwords + level];
	return (uint64) in->ids[row] ^ (UINT64CONST(1) << 63);
}

/*
 * Sort r[0..n) on `level` of their rows, then each run of equal keys on
 * the next level, down to the id: the order of the fingerprints' words,
 * then of ids.  Radix sorts of the 16-byte records, which check for
 * interrupts (a comparison sort would fetch two scattered fingerprints a
 * comparison and could not be cancelled).  r[0..n) is all or part of a
 * group of equal fingerprints at the level above: pad is set to 1 on the
 * first record of each group within it.
 */
static void
sort_rows(const BatchInput *in, SortRec *r, uint32 n, int level,
		  SortRec *tmp, uint32 tmpcap)
{
	uint32		i,
				start;

	for (i = 0; i < n; i++)
	{
		r[i].key = row_key(in, r[i].row, level);
		if ((i & INTERRUPT_MASK) == INTERRUPT_MASK)
			CHECK_FOR_INTERRUPTS();
	}
	simhash_batch_sort_segment(r, n, 0, 64, tmp, tmpcap);
	/* ids do not split groups; another word value does */
	for (i = 0; i < n; i++)
		r[i].pad = (i == 0 ||
					(level < ROW_ID_LEVEL(in) && r[i].key != r[i - 1].key));
	if (level == ROW_ID_LEVEL(in))
		return;
	for (start = 0; start < n; start = i)
	{
		for (i = start + 1; i < n && !r[i].pad; i++)
			;
		if (i - start > 1)
		{
			CHECK_FOR_INTERRUPTS();
			sort_rows(in, r + start, i - start, level + 1, tmp, tmpcap);
		}
	}
}

/*
 * Sort the rows by fingerprint and id and build the groups of equal
 * fingerprints, as simhash_batch_build_groups does for 64 bits: gfp (the
 * words of each group), gstart, and the ids in group order, each group's
 * in ascending order.  in->recs is freed (the passes have their own).
 */
static void
wide_groups(BatchInput *in)
{
	int			nw = in->nwords;
	int64	   *ordered;
	SortRec    *tmp;
	uint32		tmpcap = simhash_batch_tmp_records(in->n);
	uint32		i;

	in->recs = MemoryContextAllocHuge(CurrentMemoryContext,
									  sizeof(SortRec) * Max(in->n, 1));
	in->gstart = MemoryContextAllocHuge(CurrentMemoryContext,
										sizeof(uint32) * (in->n + 1));
	tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * tmpcap);
	for (i = 0; i < in->n; i++)
	{
		in->recs[i].row = i;
	}
	sort_rows(in, in->recs, in->n, 0, tmp, tmpcap);
	pfree(tmp);
	CHECK_FOR_INTERRUPTS();

	/* the groups: runs of equal fingerprints, as marked by the sort */
	in->ngroups = 0;
	for (i = 0; i < in->n; i++)
		if (in->recs[i].pad)
			in->gstart[in->ngroups++] = i;
	in->gstart[in->ngroups] = in->n;
	in->gfp = MemoryContextAllocHuge(CurrentMemoryContext,
									 sizeof(uint64) * nw * Max(in->ngroups, 1));
	/* these loops read scattered rows: a cache miss each, so check */
	for (i = 0; i < in->ngroups; i++)
	{
		memcpy(in->gfp + (Size) i * nw,
			   in->fps + (Size) in->recs[in->gstart[i]].row * nw,
			   sizeof(uint64) * nw);
		if ((i & INTERRUPT_MASK) == INTERRUPT_MASK)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(in->fps);
	in->fps = NULL;

	/* the ids in group order */
	ordered = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * Max(in->n, 1));
	for (i = 0; i < in->n; i++)
	{
		ordered[i] = in->ids[in->recs[i].row];
		if ((i & INTERRUPT_MASK) == INTERRUPT_MASK)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(in->ids);
	in->ids = ordered;
	pfree(in->recs);
	in->recs = NULL;
}

/* ---------- the pairs ---------- */

/*
 * A candidate: groups ga and gb, within its radius in word wp->word.
 * Reported (wp->cb) when within k, unless an earlier word is within its
 * radius too.
 */
static inline void
measure_candidate(WordPass *wp, uint32 ga, uint32 gb)
{
	int			nw = wp->in->nwords;
	const uint64 *a = wp->in->gfp + (Size) ga * nw,
			   *b = wp->in->gfp + (Size) gb * nw;
	int			d = 0,
				j;

	/* two queries: groups of one side only never pair, not measured */
	if (wp->in->gside != NULL &&
		!GROUPS_CROSS(wp->in->gside[ga], wp->in->gside[gb]))
		return;
	wp->ncand++;
	for (j = 0; j < nw; j++)
	{
		int			dj = pg_popcount64(a[j] ^ b[j]);

		if (j < wp->word && dj <= wp->radius[j])
			return;				/* a candidate of word j: reported there */
		if (j == wp->word && wp->own && dj > wp->radius[j])
			return;				/* not a candidate of this word */
		d += dj;
	}
	if (d <= wp->k)
	{
		wp->cb(wp->arg, ga, gb, d);
		wp->npairs++;
	}
}

/*
 * PairCallback of the 64-bit search on a word's values: values va and vb
 * are within the word's radius; every pair of their groups is a candidate.
 */
static void
word_values_pair(void *arg, uint32 va, uint32 vb, int d)
{
	WordPass   *wp = (WordPass *) arg;
	const BatchInput *vals = &wp->vals;
	uint32		i,
				j;

	for (i = vals->gstart[va]; i < vals->gstart[va + 1]; i++)
	{
		for (j = vals->gstart[vb]; j < vals->gstart[vb + 1]; j++)
			measure_candidate(wp, (uint32) vals->ids[i], (uint32) vals->ids[j]);
		simhash_batch_work(&wp->work, vals->gstart[vb + 1] - vals->gstart[vb]);
	}
}

/*
 * One word's pass: group the groups by their value of the word, take the
 * pairs of groups under one value, then those under two values within the
 * word's radius.
 */
static void
word_pass(WordPass *wp, const char *fname)
{
	const BatchInput *in = wp->in;
	BatchInput *vals = &wp->vals;
	uint32		g,
				v;

	memset(vals, 0, sizeof(BatchInput));
	vals->nwords = 1;
	vals->n = in->ngroups;
	vals->ids = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * in->ngroups);
	vals->fps = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SimHash) * in->ngroups);
	for (g = 0; g < in->ngroups; g++)
	{
		vals->ids[g] = g;
		vals->fps[g] = in->gfp[(Size) g * in->nwords + wp->word];
	}
	simhash_batch_build_groups(vals);

	/* groups sharing the word's value: distance 0 in the word */
	for (v = 0; v < vals->ngroups; v++)
	{
		uint32		i,
					j;

		for (i = vals->gstart[v]; i + 1 < vals->gstart[v + 1]; i++)
		{
			for (j = i + 1; j < vals->gstart[v + 1]; j++)
				measure_candidate(wp, (uint32) vals->ids[i], (uint32) vals->ids[j]);
			simhash_batch_work(&wp->work, vals->gstart[v + 1] - i);
		}
	}
	/* values within the radius of each other */
	if (wp->radius[wp->word] > 0)
		simhash_batch_group_pairs(vals, wp->radius[wp->word], fname,
								  word_values_pair, wp);

	elog(DEBUG1, "%s: word %d of %d, %u distinct values at radius %d: " UINT64_FORMAT " candidate pairs measured so far, " UINT64_FORMAT " within k",
		 fname, wp->word + 1, in->nwords, vals->ngroups, wp->radius[wp->word],
		 wp->ncand, wp->npairs);
	pfree(vals->ids);
	pfree(vals->gfp);
	pfree(vals->gstart);
	pfree(vals->recs);
}

/*
 * Beyond the 64-bit search's radius: every pair of groups measured, with a
 * NOTICE every PROGRESS_SECS seconds.  wp->word is 0 (no earlier word to
 * defer to), or the word of a single pass (wp->own).
 */
static void
all_pairs(WordPass *wp, const char *fname)
{
	const BatchInput *in = wp->in;
	TimestampTz last = GetCurrentTimestamp();
	uint32		a,
				b;

	for (a = 0; a + 1 < in->ngroups; a++)
	{
		for (b = a + 1; b < in->ngroups; b++)
			measure_candidate(wp, a, b);
		simhash_batch_work(&wp->work, in->ngroups - a);
		if ((a & 0x3FF) == 0 &&
			TimestampDifferenceExceeds(last, GetCurrentTimestamp(), PROGRESS_SECS * 1000))
		{
			ereport(NOTICE,
					(errmsg("%s: %u of %u fingerprints compared with all later ones, " UINT64_FORMAT " pairs so far",
							fname, a + 1, in->ngroups, wp->npairs)));
			last = GetCurrentTimestamp();
		}
	}
}

/*
 * Every pair of groups (distinct wide fingerprints) within k, each exactly
 * once, through cb, as simhash_batch_group_pairs for 64 bits: the passes of
 * the words whose bits are set in `only` (every word: all bits).  Pairs
 * inside a group (distance 0) are the caller's.
 */
static void
wide_pairs(BatchInput *in, int k, uint32 only, const char *fname,
		   PairCallback cb, void *arg)
{
	WordPass	wp;
	int			i;

	if (in->ngroups < 2 || k == 0)
		return;
	memset(&wp, 0, sizeof(wp));
	wp.in = in;
	wp.k = k;
	wp.cb = cb;
	wp.arg = arg;
	/* the r_i + 1 add up to k + 1, the larger first */
	for (i = 0; i < in->nwords; i++)
		wp.radius[i] = (k + 1) / in->nwords - 1 + (i < (k + 1) % in->nwords ? 1 : 0);
	elog(DEBUG1, "%s: %u rows, %u distinct %d-bit fingerprints, k = %d, radius %d in word 1",
		 fname, in->n, in->ngroups, SIMHASH_BITS * in->nwords, k, wp.radius[0]);
	if (wp.radius[0] > MAX_BATCH_RADIUS)
	{
		/* every word: one round; some words: a round of its own each */
		if (only == ALL_WORDS(in->nwords))
		{
			wp.word = 0;
			all_pairs(&wp, fname);
			return;
		}
		wp.own = true;
		for (wp.word = 0; wp.word < in->nwords; wp.word++)
			if (only & (1U << wp.word))
				all_pairs(&wp, fname);
		return;
	}
	for (wp.word = 0; wp.word < in->nwords; wp.word++)
		if (wp.radius[wp.word] >= 0 && (only & (1U << wp.word)))
			word_pass(&wp, fname);
}

/* ---------- any width ---------- */

/* The groups of equal fingerprints and their rows, at the input's width */
void
simhash_batch_group_rows(BatchInput *in)
{
	if (in->nwords == 1)
		simhash_batch_build_groups(in);
	else
		wide_groups(in);
}

/*
 * Every pair of groups within k, once, through cb, at the input's width:
 * the 64-bit search, or its passes word by word.
 */
void
simhash_batch_find_pairs(BatchInput *in, int k, const char *fname,
						 PairCallback cb, void *arg)
{
	if (in->nwords == 1)
		simhash_batch_group_pairs(in, k, fname, cb, arg);
	else
		wide_pairs(in, k, ALL_WORDS(in->nwords), fname, cb, arg);
}

/*
 * The pairs of groups of the passes of the words set in `words` alone
 * (simhash_word_pairs): over the words with a pass, the union of the passes
 * is simhash_batch_find_pairs, each pair once.  At 64 bits word 0 is the
 * whole search.
 */
void
simhash_batch_find_word_pairs(BatchInput *in, int k, uint32 words,
							  const char *fname, PairCallback cb, void *arg)
{
	Assert(words != 0 && (words & ~ALL_WORDS(in->nwords)) == 0);
	if (in->nwords == 1)
		simhash_batch_group_pairs(in, k, fname, cb, arg);
	else
		wide_pairs(in, k, words, fname, cb, arg);
}
