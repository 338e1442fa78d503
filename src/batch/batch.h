/*
 * batch.h
 *		The internal interface of the batch functions (simhash_pairs,
 *		simhash_group_pairs, simhash_clusters), shared by their files:
 *
 *		batch_input.c	reading the query's rows, the memory and radius checks
 *		batch_sort.c	the radix sort of compact records, groups of equal
 *						64-bit fingerprints
 *		batch_search.c	the 64-bit search: segments and sorted passes
 *		batch_kernels.c the pair-measuring loops of the search (batch_kernels.h)
 *		batch_wide.c	simhash128 and simhash256, through the 64-bit search
 *		batch_verify.c	the verification stage: pairs kept by the Jaccard
 *						estimate of their minhash signatures
 *		batch_spill.c	simhash_pairs and simhash_clusters beyond
 *						maintenance_work_mem, through temporary files
 *		batch.c			the SQL-callable functions: pairs output, clusters
 */
#ifndef SIMHASH_BATCH_H
#define SIMHASH_BATCH_H

#include "simhash.h"

#include "fmgr.h"
#include "miscadmin.h"

#define MAX_BATCH_RADIUS	16	/* of the 64-bit search */
#define MAX_SEGMENTS		24	/* of the 64-bit search */
#define INTERRUPT_MASK		0xFFFF	/* comparisons or rows between checks */
#define PROGRESS_SECS		10	/* between NOTICEs of a long search */

/* The batch functions, for their messages and their memory */
typedef enum BatchKind
{
	BATCH_PAIRS,
	BATCH_GROUP_PAIRS,
	BATCH_CLUSTERS,
	BATCH_BLOCK_PAIRS,
	BATCH_PAIR_CLUSTERS			/* its memory: pair_clusters.c */
} BatchKind;

/* Their names, by BatchKind (batch_input.c) */
extern const char *const simhash_batch_fname[];

/* One record of a sort: a (permuted) fingerprint or id, and a row or group */
typedef struct SortRec
{
	uint64		key;
	uint32		row;
	uint32		pad;
} SortRec;

/*
 * The input: rows, and their groups of equal fingerprints.  Once grouped,
 * the rows are in group order: group g has the fingerprint gfp[g] (words
 * gfp[g * nwords] .. gfp[g * nwords + nwords - 1] of a wide one) and the
 * rows gstart[g] .. gstart[g + 1] - 1, in ascending id order, so that a
 * pair of groups costs one look-up of each id (not three scattered reads).
 */
typedef struct BatchInput
{
	int64	   *ids;			/* per row: in input order, then group order */
	SimHash    *fps;			/* per row while reading; then gfp */
	uint32		n;				/* rows */
	uint32		ngroups;
	int			nwords;			/* 1, or 2 and 4 for simhash128, simhash256 */
	SimHash    *gfp;			/* per group (64 bits: the memory of fps) */
	uint32	   *gstart;			/* ngroups + 1 */
	uint32	   *grow;			/* n, while grouping: the rows in group order */
	SortRec    *recs;			/* n records, the sort area */

	/*
	 * Verification (since 1.10; batch_verify.c): a minhash signature per
	 * row, in input order, or NULL.  Then ids hold row numbers (so that a
	 * row's signature is found from its place in a group) and rowids the
	 * rows' ids.
	 */
	uint8	   *sigs;
	int64	   *rowids;

	/*
	 * Spilled (batch_spill.c): the rows went to a sort, as they are more
	 * than maintenance_work_mem holds; nothing above is set but nwords.
	 */
	struct SpillInput *spill;
} BatchInput;

/* Called for every pair of groups within k (distance d >= 1), once */
typedef void (*PairCallback) (void *arg, uint32 ga, uint32 gb, int d);

/* Count work; check for interrupts every INTERRUPT_MASK units */
static inline void
simhash_batch_work(uint64 *work, uint64 units)
{
	*work += units;
	if (*work > INTERRUPT_MASK)
	{
		*work = 0;
		CHECK_FOR_INTERRUPTS();
	}
}

/* batch_input.c: 54000 beyond maintenance_work_mem */
extern void simhash_batch_check_memory(BatchKind kind, Size need, Size nrows,
									   Size per_row, bool more_to_come);
/* materialized result set up, rows read and grouped; k.  With a third
 * argument (the threshold of verification) the rows carry signatures. */
extern int32 simhash_batch_start(FunctionCallInfo fcinfo, BatchKind kind,
								 BatchInput *in);
/* the rows from arrays of ids (argument 1) and fingerprints (2), not yet
 * grouped; k is argument 3 */
extern int32 simhash_batch_start_arrays(FunctionCallInfo fcinfo, BatchKind kind,
										BatchInput *in);

/* ---------- batch_sort.c ---------- */

/* A permutation of the 64 bits, applied a byte at a time */
typedef struct BitMap
{
	uint64		tab[8][256];
} BitMap;

/* x with its bits permuted by bm */
static inline uint64
simhash_batch_bitmap_apply(const BitMap *bm, uint64 x)
{
	return bm->tab[0][x & 0xFF] | bm->tab[1][(x >> 8) & 0xFF] |
		bm->tab[2][(x >> 16) & 0xFF] | bm->tab[3][(x >> 24) & 0xFF] |
		bm->tab[4][(x >> 32) & 0xFF] | bm->tab[5][(x >> 40) & 0xFF] |
		bm->tab[6][(x >> 48) & 0xFF] | bm->tab[7][x >> 56];
}

/* Called on each bucket of sorted records; buckets come in key order */
typedef void (*BucketFn) (void *arg, SortRec *r, uint32 n);

extern void simhash_batch_bitmap_init(BitMap *bm, const int *dest);
extern bool simhash_batch_digit_places(const SortRec *r, uint32 n, int shift,
									   int width, uint32 pos[4][256], uint32 *ends);
extern void simhash_batch_sort_digit(SortRec *r, SortRec *tmp, uint32 n,
									 int shift, int width, uint32 *ends);
extern void simhash_batch_sort_segment(SortRec *r, uint32 n, int lo, int hi,
									   SortRec *tmp, uint32 tmpcap);
extern void simhash_batch_sort_records(const uint64 *src, uint32 n,
									   const BitMap *bm, uint64 flip, int bits,
									   SortRec *dst, SortRec *tmp,
									   BucketFn fn, void *arg);
extern void simhash_batch_build_groups(BatchInput *in);

/* The size of the sort buffer for n records: at most 2 bytes per record */
static inline uint32
simhash_batch_tmp_records(uint32 n)
{
	return n / 8 + 16;
}

/* Place record x at place p: into recs, or as its key and row */
static pg_attribute_always_inline void
simhash_batch_place_record(const SortRec *x, uint32 p, SortRec *recs,
						   uint64 *keys, uint32 *rows)
{
	if (recs)
		recs[p] = *x;
	else
	{
		keys[p] = x->key;
		rows[p] = x->row;
	}
}

/*
 * Move the records r[0..n) to the places simhash_batch_digit_places gave
 * them (pos, on the digit of dmask from bit shift), quarter by quarter as
 * they were counted: whole into recs, or (recs NULL) as keys and rows.
 * Inlined, so that each caller gets the loop for its own output.
 */
static pg_attribute_always_inline void
simhash_batch_scatter_digit(const SortRec *r, uint32 n, int shift, uint32 dmask,
							uint32 pos[4][256], SortRec *recs, uint64 *keys,
							uint32 *rows)
{
	uint32		q = n / 4,
				i;
	const SortRec *r1 = r + q,
			   *r2 = r + 2 * q,
			   *r3 = r + 3 * q;

	for (i = 0; i < q; i++)
	{
		uint32		p0 = pos[0][(r[i].key >> shift) & dmask]++,
					p1 = pos[1][(r1[i].key >> shift) & dmask]++,
					p2 = pos[2][(r2[i].key >> shift) & dmask]++,
					p3 = pos[3][(r3[i].key >> shift) & dmask]++;

		simhash_batch_place_record(&r[i], p0, recs, keys, rows);
		simhash_batch_place_record(&r1[i], p1, recs, keys, rows);
		simhash_batch_place_record(&r2[i], p2, recs, keys, rows);
		simhash_batch_place_record(&r3[i], p3, recs, keys, rows);
	}
	for (i = 4 * q; i < n; i++)
		simhash_batch_place_record(&r[i], pos[3][(r[i].key >> shift) & dmask]++,
								   recs, keys, rows);
}

/*
 * batch_search.c: the 64-bit search pass by pass, for fingerprints that
 * are not all in memory (batch_spill.c): begin, then for each top-level
 * pass set it up and give it every run of records sharing the leading bits
 * of their permuted keys, then end.
 */
typedef struct PassState PassState;
extern PassState *simhash_batch_search_begin(const SimHash *sample, uint32 nsample,
											 double n, int k, PairCallback cb,
											 void *arg, uint32 tmp_records);
extern int	simhash_batch_search_passes(const PassState *ps);
extern int	simhash_batch_search_pass(PassState *ps, int c0, BitMap *bm);
extern void simhash_batch_search_run(PassState *ps, SortRec *r, uint32 n);
extern uint64 simhash_batch_search_pairs(const PassState *ps);
extern void simhash_batch_search_end(PassState *ps, const char *fname);

/* batch_search.c: every pair of 64-bit groups within k, once, through cb */
extern void simhash_batch_group_pairs(BatchInput *in, int k, const char *fname,
									  PairCallback cb, void *arg);

/* batch_wide.c: the same for simhash128 and simhash256 */
extern Size simhash_batch_wide_memory(int nwords);
extern void simhash_batch_wide_groups(BatchInput *in);
extern void simhash_batch_wide_pairs(BatchInput *in, int k, const char *fname,
									 PairCallback cb, void *arg);

/* batch_spill.c: simhash_pairs and simhash_clusters beyond memory */
typedef struct SpillInput SpillInput;
extern bool simhash_batch_can_spill(BatchKind kind, int nwords, int32 k);
extern SpillInput *simhash_batch_spill_begin(BatchKind kind, int nwords,
											  int workmem_kb);
extern void simhash_batch_spill_put(SpillInput *sp, int64 id, const SimHash *fp);
extern void simhash_batch_spill_run(FunctionCallInfo fcinfo, SpillInput *sp, int32 k);

/* batch.c: the (id, cluster_id) output of both forms of simhash_clusters */
extern void simhash_batch_emit_clusters(FunctionCallInfo fcinfo, const int64 *ids,
										uint32 n, const uint32 *rownode,
										uint32 *parent, int64 *minid,
										uint32 nnodes, SortRec *recs);

#endif							/* SIMHASH_BATCH_H */
