/*
 * batch.h
 *		What the batch functions' wide fingerprints (batch_wide.c) share
 *		with the 64-bit machinery of batch.c: the input, its groups of equal
 *		fingerprints, and the search for all pairs of groups within k.
 */
#ifndef SIMHASH_BATCH_H
#define SIMHASH_BATCH_H

#include "simhash.h"

#define MAX_BATCH_RADIUS	16	/* of the 64-bit search */
#define INTERRUPT_MASK		0xFFFF	/* comparisons or rows between checks */

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
} BatchInput;

/* Called for every pair of groups within k (distance d >= 1), once */
typedef void (*PairCallback) (void *arg, uint32 ga, uint32 gb, int d);

/* batch.c: the 64-bit machinery */
extern void simhash_batch_build_groups(BatchInput *in);
extern void simhash_batch_group_pairs(BatchInput *in, int k, const char *fname,
									  PairCallback cb, void *arg);

/* batch_wide.c: the same for simhash128 and simhash256 */
extern Size simhash_batch_wide_memory(int nwords);
extern void simhash_batch_wide_groups(BatchInput *in);
extern void simhash_batch_wide_pairs(BatchInput *in, int k, const char *fname,
									 PairCallback cb, void *arg);

#endif							/* SIMHASH_BATCH_H */
