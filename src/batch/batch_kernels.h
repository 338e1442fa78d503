/*
 * batch_kernels.h
 *		The loops that measure every pair of a node of the 64-bit search
 *		(batch_kernels.c), and the part of the search's state they use.
 */
#ifndef SIMHASH_BATCH_KERNELS_H
#define SIMHASH_BATCH_KERNELS_H

#include "batch_common.h"

/*
 * What a scan needs: the radius, the segments whose agreement means that a
 * pair belongs to another node (it is reported there), and where to report.
 * The search (batch_search.c) keeps it up to date as it walks the nodes.
 */
typedef struct PairScan
{
	int			k;
	int			nbefore;		/* segments outside the prefix before its end */
	uint64		before[MAX_SEGMENTS];	/* their masks */
	Size		rstride;		/* rows of the node measured: rows[i * rstride] */
	uint64		work;			/* comparisons and moves since the last check */
	uint64		npairs;			/* reported */
	PairCallback cb;
	void	   *arg;
} PairScan;

/* Measure the pairs of keys[0], keys[stride], ... keys[(n - 1) * stride] */
typedef void (*PairScanFn) (PairScan *sc, const uint64 *keys, Size stride,
							const uint32 *rows, uint32 n);

/* The loops this CPU runs best, and what one measured pair costs there */
typedef struct PairScanKernels
{
	PairScanFn	scan;			/* any stride */
	PairScanFn	scan_dense;		/* stride 1 */
	double		pair_cost;		/* in the units of batch_search.c */
} PairScanKernels;

extern const PairScanKernels *simhash_batch_kernels(void);
extern void simhash_batch_kernels_define_guc(void);

#endif							/* SIMHASH_BATCH_KERNELS_H */
