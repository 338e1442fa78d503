/*
 * batch_input.h
 *		The start of the batch functions (batch_input.c): their rows read,
 *		checked and grouped.
 */
#ifndef SIMHASH_BATCH_INPUT_H
#define SIMHASH_BATCH_INPUT_H

#include "batch_common.h"

/* materialized result set up, rows read and grouped; k.  With a third
 * argument (the threshold of verification) the rows carry signatures. */
extern int32 simhash_batch_start(FunctionCallInfo fcinfo, BatchKind kind,
								 BatchInput *in);
/* the rows from arrays of ids (argument 1) and fingerprints (2), not yet
 * grouped; k is argument 3 */
extern int32 simhash_batch_start_arrays(FunctionCallInfo fcinfo, BatchKind kind,
										BatchInput *in);

#endif							/* SIMHASH_BATCH_INPUT_H */
