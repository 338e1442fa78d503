/*
 * batch_search.h
 *		The 64-bit search (batch_search.c): every pair of distinct 64-bit
 *		fingerprints within k, in a few sorted passes.
 */
#ifndef SIMHASH_BATCH_SEARCH_H
#define SIMHASH_BATCH_SEARCH_H

#include "batch_common.h"

/* every pair of 64-bit groups within k, once, through cb */
extern void simhash_batch_group_pairs(BatchInput *in, int k, const char *fname,
									  PairCallback cb, void *arg);

/*
 * The search pass by pass, for fingerprints that are not all in memory
 * (batch_spill.c): begin, then for each top-level pass set it up and give
 * it every run of records sharing the leading bits of their permuted keys,
 * then end.
 */
typedef struct PassState PassState;
extern PassState *simhash_batch_search_begin(const SimHash *sample, uint32 nsample,
											 double n, int k, PairCallback cb,
											 void *arg, uint32 tmp_records);
extern int	simhash_batch_search_passes(const PassState *ps);
extern int	simhash_batch_search_pass(PassState *ps, int c0, BitMap *bm);
extern void simhash_batch_search_run(PassState *ps, SortRec *r, uint32 n);
extern void simhash_batch_search_end(PassState *ps, const char *fname);

#endif							/* SIMHASH_BATCH_SEARCH_H */
