/*
 * batch_common.h
 *		The bottom layer of the batch functions (simhash_pairs,
 *		simhash_group_pairs, simhash_clusters, simhash_block_pairs,
 *		simhash_pair_clusters, simhash_word_pairs, simhash_pairs of two
 *		queries): the types and helpers
 *		all their files share.
 *		Each file above has its own header; a file includes only its own
 *		layer's and lower layers' headers (test/layers/run), lowest first:
 *
 *		batch_common.c	the functions' names, the memory check
 *		batch_sort.c	the radix sort of compact records, groups of equal
 *						64-bit fingerprints
 *		batch_kernels.c the pair-measuring loops of the 64-bit search
 *		batch_search.c	the 64-bit search: segments and sorted passes
 *		batch_wide.c	simhash128 and simhash256, through the 64-bit
 *						search; the search at any width
 *		batch_spill.c	simhash_pairs and simhash_clusters beyond
 *						maintenance_work_mem, through temporary files
 *		batch_input.c	reading the query's rows, the radius check
 *		batch_output.c	pairs and clusters into the materialized result
 *		batch_verify.c	the verification stage: pairs kept by the Jaccard
 *						estimate of their minhash signatures
 *		batch.c, pair_clusters.c	the SQL-callable functions
 */
#ifndef SIMHASH_BATCH_COMMON_H
#define SIMHASH_BATCH_COMMON_H

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
	BATCH_PAIR_CLUSTERS,		/* its memory: pair_clusters.c */
	BATCH_WORD_PAIRS,			/* simhash_pairs, one word's pass */
	BATCH_CROSS_PAIRS			/* simhash_pairs of two queries */
} BatchKind;

/* Their names, by BatchKind */
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
	 * simhash_word_pairs (since 1.12): only the passes of the words whose
	 * bits are set in `words` (batch_wide.c), and the pairs inside groups
	 * only with word 0's.
	 */
	bool		one_word;
	uint32		words;

	/*
	 * simhash_pairs of two queries (since 1.14): the rows of the new query
	 * come first, rows 0 .. nnew - 1, and ids hold row numbers (rowids the
	 * ids), as verifying does.  gside: per group, GROUP_NEW if it has a row
	 * of the new query, GROUP_EXISTING if of the existing one; a pair of
	 * groups that cannot give a pair across the two is not measured.
	 */
	bool		cross;
	uint32		nnew;
	uint8	   *gside;

#define GROUP_NEW			1
#define GROUP_EXISTING		2
#define GROUPS_CROSS(sa, sb) \
	((((sa) & GROUP_NEW) && ((sb) & GROUP_EXISTING)) || \
	 (((sb) & GROUP_NEW) && ((sa) & GROUP_EXISTING)))

#define ALL_WORDS(nwords)	((1U << (nwords)) - 1)

	/*
	 * Spilled (batch_spill.c): the rows went to a sort, as they are more
	 * than maintenance_work_mem holds; nothing above is set but nwords.
	 */
	struct SpillInput *spill;
} BatchInput;

/* Called for every pair of groups within k (distance d >= 1), once */
typedef void (*PairCallback) (void *arg, uint32 ga, uint32 gb, int d);

/* A permutation of the 64 bits, applied a byte at a time (batch_sort.c) */
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

/* The size of the sort buffer for n records: at most 2 bytes per record */
static inline uint32
simhash_batch_tmp_records(uint32 n)
{
	return n / 8 + 16;
}

/* 54000 beyond maintenance_work_mem */
extern void simhash_batch_check_memory(BatchKind kind, Size need, Size nrows,
									   Size per_row, bool more_to_come);

#endif							/* SIMHASH_BATCH_COMMON_H */
