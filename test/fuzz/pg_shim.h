/*
 * pg_shim.h
 *		The few PostgreSQL backend services that the fuzzed extension files
 *		(src/type/simhash_type.c, src/type/radius.c, src/text/tokenize.c, src/text/fingerprint.c)
 *		link against, re-implemented for a libFuzzer process: palloc and
 *		friends on malloc (every block tracked, freed by shim_reset()), and
 *		ereport(ERROR) turned into a longjmp back to the harness.
 */
#ifndef PG_SHIM_H
#define PG_SHIM_H

#include "postgres.h"
#include "fmgr.h"

/* The last ERROR raised inside shim_call() */
typedef struct ShimError
{
	int			elevel;
	int			sqlerrcode;
	char		message[8192];
	char		detail[8192];
	char		hint[8192];
} ShimError;

extern ShimError shim_error;

/*
 * Call fn with up to two arguments.  Returns true and sets *result if it
 * returned (a NULL result aborts: none of the fuzzed functions returns
 * one), false if it raised an ERROR (described in shim_error).
 */
extern bool shim_call(PGFunction fn, int nargs, Datum a0, Datum a1,
					  Datum *result);

/* Run fn(arg) the same way, for code that is not fmgr-callable */
extern bool shim_try(void (*fn) (void *), void *arg);

/* Free every block palloc'd since the last reset */
extern void shim_reset(void);

/* Number of live palloc'd blocks */
extern size_t shim_live_blocks(void);

/*
 * Byte that fresh palloc/repalloc memory is filled with.  The harness
 * changes it between two calls on the same input: a result that depends on
 * uninitialised memory then shows up as a nondeterministic result.
 */
extern unsigned char shim_fill_byte;

#endif							/* PG_SHIM_H */
