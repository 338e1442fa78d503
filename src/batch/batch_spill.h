/*
 * batch_spill.h
 *		simhash_pairs and simhash_clusters beyond maintenance_work_mem, the
 *		rows in a sort and the search through temporary files
 *		(batch_spill.c).
 */
#ifndef SIMHASH_BATCH_SPILL_H
#define SIMHASH_BATCH_SPILL_H

#include "batch_common.h"

typedef struct SpillInput SpillInput;
extern bool simhash_batch_can_spill(BatchKind kind, int nwords, int32 k);
extern SpillInput *simhash_batch_spill_begin(BatchKind kind, int nwords,
											  int workmem_kb);
extern void simhash_batch_spill_put(SpillInput *sp, int64 id, const SimHash *fp,
									int side);
extern void simhash_batch_spill_run(FunctionCallInfo fcinfo, SpillInput *sp, int32 k,
									uint32 words);

#endif							/* SIMHASH_BATCH_SPILL_H */
