/*
 * distance.c
 *		Hamming distance between fingerprints, and segment extraction.
 *
 * The popcount is PostgreSQL's pg_popcount64, which picks the CPU's POPCNT
 * instruction at run time where the CPU has it.
 */
#include "simhash.h"

#include "port/pg_bitutils.h"

/*
 * hamming_distance(a simhash, b simhash) -> integer 0..64
 *		Number of differing bits (Charikar 2002).  Immutable, strict,
 *		parallel safe; never errors.
 */
PG_FUNCTION_INFO_V1(simhash_hamming_distance);
Datum
simhash_hamming_distance(PG_FUNCTION_ARGS)
{
	SimHash		a = PG_GETARG_SIMHASH(0);
	SimHash		b = PG_GETARG_SIMHASH(1);

	PG_RETURN_INT32(pg_popcount64(a ^ b));
}

/*
 * simhash_segment(fp simhash, i integer) -> integer 0..65535
 *		16-bit segment i (0..3), segment 0 being the most significant (the
 *		first four hex digits).  i outside 0..3 is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_segment);
Datum
simhash_segment(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	int32		i = PG_GETARG_INT32(1);

	if (i < 0 || i > 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("segment number %d is out of range", i),
				 errdetail("A simhash has segments 0 to 3.")));
	PG_RETURN_INT32((int32) ((v >> (48 - 16 * i)) & 0xFFFF));
}

/*
 * hamming_distance_int(a, b) -> integer: the Hamming distance as a plain
 * integer.  It is the GiST ordering operator <#>: ORDER BY fp <-> q is
 * rewritten to it (support.c), because the planner matches an index
 * ordering operator only when the sort expression has the operator's own
 * result type, and <-> returns a domain.
 */
PG_FUNCTION_INFO_V1(simhash_hamming_distance_int);
Datum
simhash_hamming_distance_int(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(pg_popcount64(PG_GETARG_SIMHASH(0) ^ PG_GETARG_SIMHASH(1)));
}
