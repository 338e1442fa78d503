/*
 * batch_wide.h
 *		The search at any width (batch_wide.c): simhash128 and simhash256
 *		through the 64-bit search, simhash by it directly.
 */
#ifndef SIMHASH_BATCH_WIDE_H
#define SIMHASH_BATCH_WIDE_H

#include "batch_common.h"

/* the extra memory of a wide search, in bytes per row */
extern Size simhash_batch_wide_memory(int nwords);
/* the groups of equal fingerprints, at the input's width */
extern void simhash_batch_group_rows(BatchInput *in);
/* every pair of groups within k, once, through cb, at the input's width */
extern void simhash_batch_find_pairs(BatchInput *in, int k, const char *fname,
									 PairCallback cb, void *arg);
/* those of the passes of some words only (simhash_word_pairs): a bitmask */
extern void simhash_batch_find_word_pairs(BatchInput *in, int k, uint32 words,
										  const char *fname, PairCallback cb,
										  void *arg);

#endif							/* SIMHASH_BATCH_WIDE_H */
