/*
 * batch_output.h
 *		The output of the batch functions into their materialized result
 *		(batch_output.c): the pairs of simhash_pairs, simhash_group_pairs
 *		and simhash_block_pairs, and the clusters of both forms of
 *		simhash_clusters.
 */
#ifndef SIMHASH_BATCH_OUTPUT_H
#define SIMHASH_BATCH_OUTPUT_H

#include "batch_common.h"

#include "utils/tuplestore.h"

#define EMIT_AHEAD			64	/* pairs waiting in the ring */

typedef struct PendingPair
{
	uint32		ga,
				gb;
	int			d;
} PendingPair;

/* The output of a pairs function: set up by simhash_batch_pairs_out_init */
typedef struct PairsOut
{
	Tuplestorestate *ts;
	TupleDesc	td;
	const BatchInput *in;
	uint32		nput;			/* rows put, for interrupt checks */
	void		(*emit) (struct PairsOut *o, uint32 ga, uint32 gb, int d);
	uint64		nqueued;		/* pairs that entered the ring */
	int			bits;			/* simhash_block_pairs: the width, */
	int			nblocks;		/* the number of blocks for k, */
	int			block;			/* and the block number to report */
	PendingPair ring[EMIT_AHEAD];
} PairsOut;

extern void simhash_batch_pairs_out_init(PairsOut *o, FunctionCallInfo fcinfo,
										 BatchInput *in, BatchKind kind);
extern void simhash_batch_put_pair(PairsOut *o, int64 ia, int64 ib, int d);
extern void simhash_batch_output_pairs(PairsOut *o, BatchInput *in, int32 k,
									   const char *fname);
extern void simhash_batch_emit_clusters(FunctionCallInfo fcinfo, const int64 *ids,
										uint32 n, const uint32 *rownode,
										uint32 *parent, int64 *minid,
										uint32 nnodes, SortRec *recs);

#endif							/* SIMHASH_BATCH_OUTPUT_H */
