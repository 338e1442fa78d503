/*
 * canary.c
 *		Two deliberate bugs, built the same way as the extension in
 *		test/asan/run and called once at the end of the run: the reports
 *		they must produce prove that a sanitizer report from the extension
 *		would have reached the logs the run checks.  Never installed
 *		outside the run's temporary copy of PostgreSQL.
 */
#include "postgres.h"

#include <stdlib.h>

#include "fmgr.h"

PG_MODULE_MAGIC;

/* writes and reads p[i] of an 8-byte malloc'd block: i = 8 overflows */
PG_FUNCTION_INFO_V1(asan_canary_heap);
Datum
asan_canary_heap(PG_FUNCTION_ARGS)
{
	int32		i = PG_GETARG_INT32(0);
	volatile char *p = malloc(8);
	char		c;

	p[i] = 1;
	c = p[i];
	free((void *) p);
	PG_RETURN_INT32(c);
}

/*
 * 1 << a in int: a = 40 is undefined.  (Not a signed overflow: PostgreSQL
 * compiles with -fwrapv, which defines it.)
 */
PG_FUNCTION_INFO_V1(ubsan_canary_shift);
Datum
ubsan_canary_shift(PG_FUNCTION_ARGS)
{
	int32		a = PG_GETARG_INT32(0);

	PG_RETURN_INT32(1 << a);
}
