/*
 * width_casts.c
 *		The casts between widths: a wide fingerprint's prefixes.
 *
 * Word i of every width is hashed with seed i (simhash.h), so the first
 * words of a wider fingerprint are the narrower fingerprint of the same
 * input.  The rest of the types' functions have one body for all widths
 * (simhash_type.c, distance.c, aggregates.c).
 */
#include "simhash.h"

/*
 * Word 0 of either wide width as a simhash (the 64-bit fingerprint of the
 * same input), words 0-1 of a simhash256 as a simhash128.  Never error.
 */
PG_FUNCTION_INFO_V1(simhash_from_wide);
Datum
simhash_from_wide(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH_WORDS(0)[0]);
}

PG_FUNCTION_INFO_V1(simhash128_from_simhash256);
Datum
simhash128_from_simhash256(PG_FUNCTION_ARGS)
{
	uint64	   *w = palloc(sizeof(uint64) * 2);

	memcpy(w, PG_GETARG_SIMHASH_WORDS(0), sizeof(uint64) * 2);
	PG_RETURN_POINTER(w);
}
