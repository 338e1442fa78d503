/*
 * aggregates.c
 *		Transition functions of min, max, bit_or and bit_and over simhash.
 *
 * min and max follow the type's B-tree order (the unsigned 64-bit value);
 * bit_or and bit_and combine fingerprints bit by bit, as the integer
 * aggregates of the same names do.  All are strict, so the aggregates skip
 * NULLs and give NULL over no rows; each is its own combine function.
 */
#include "simhash.h"

/*
 * simhash_smaller(a, b) -> simhash, simhash_larger(a, b) -> simhash
 *		The smaller (larger) of a and b as unsigned 64-bit values.
 *		Immutable, strict, parallel safe; never errors.
 */
PG_FUNCTION_INFO_V1(simhash_smaller);
Datum
simhash_smaller(PG_FUNCTION_ARGS)
{
	SimHash		a = PG_GETARG_SIMHASH(0);
	SimHash		b = PG_GETARG_SIMHASH(1);

	PG_RETURN_SIMHASH(a < b ? a : b);
}

PG_FUNCTION_INFO_V1(simhash_larger);
Datum
simhash_larger(PG_FUNCTION_ARGS)
{
	SimHash		a = PG_GETARG_SIMHASH(0);
	SimHash		b = PG_GETARG_SIMHASH(1);

	PG_RETURN_SIMHASH(a > b ? a : b);
}

/*
 * simhash_or(a, b) -> simhash, simhash_and(a, b) -> simhash
 *		Bitwise OR (AND) of two fingerprints.  Immutable, strict, parallel
 *		safe; never errors.
 */
PG_FUNCTION_INFO_V1(simhash_or);
Datum
simhash_or(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH(0) | PG_GETARG_SIMHASH(1));
}

PG_FUNCTION_INFO_V1(simhash_and);
Datum
simhash_and(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH(0) & PG_GETARG_SIMHASH(1));
}
