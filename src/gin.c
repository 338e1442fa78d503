/*
 * gin.c
 *		GIN operator class simhash_gin_ops: exact radius search by the four
 *		16-bit segments.
 *
 * Each fingerprint is indexed under four int4 keys, (i << 16) | segment i.
 * Two fingerprints within distance k have, in some segment, at most
 * r = floor(k / 4) differing bits (pigeonhole; Manku et al. 2007 for k = 3,
 * multi-index hashing of Norouzi et al. 2012 for any k).  A query
 * fp <@ simhash_ball(q, k) therefore looks up every segment value within r
 * bits of q's, and the consistent function prunes with a lower bound of the
 * distance: a segment found in the index contributes its exact distance,
 * a segment not found at least r + 1.  The heap recheck then keeps the rows
 * really within k.  The index is PostgreSQL's own GIN, WAL-logged and
 * crash-safe.
 */
#include "simhash.h"

#include "access/gin.h"
#include "access/stratnum.h"
#include "port/pg_bitutils.h"

#define SIMHASH_SEGMENTS	4
#define SEGMENT_BITS		16
#define MAX_ENUM_RADIUS		4	/* beyond this, scan the whole index */

#define SEGMENT(v, i)	((uint32) (((v) >> (48 - SEGMENT_BITS * (i))) & 0xFFFF))
#define MAKE_KEY(i, s)	((int32) (((uint32) (i) << SEGMENT_BITS) | (s)))
#define KEY_SEGMENT(k)	((int) ((uint32) (k) >> SEGMENT_BITS))
#define KEY_VALUE(k)	((uint32) (k) & 0xFFFF)

/*
 * simhash_gin_extract_value(simhash, internal nkeys, internal nullFlags)
 *		The four segment keys of a fingerprint.
 */
PG_FUNCTION_INFO_V1(simhash_gin_extract_value);
Datum
simhash_gin_extract_value(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	Datum	   *keys = palloc(sizeof(Datum) * SIMHASH_SEGMENTS);
	int			i;

	for (i = 0; i < SIMHASH_SEGMENTS; i++)
		keys[i] = Int32GetDatum(MAKE_KEY(i, SEGMENT(v, i)));
	*nkeys = SIMHASH_SEGMENTS;
	PG_RETURN_POINTER(keys);
}

/*
 * simhash_gin_extract_query(simhash_ball, internal nkeys, int2 strategy,
 *		internal pmatch, internal extra_data, internal nullFlags,
 *		internal searchMode)
 *		For each segment, every value within r = floor(k / 4) bits of the
 *		query's.  A negative radius matches nothing; a radius too large to
 *		enumerate scans the whole index (every row is rechecked).
 */
PG_FUNCTION_INFO_V1(simhash_gin_extract_query);
Datum
simhash_gin_extract_query(PG_FUNCTION_ARGS)
{
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int32	   *searchMode = (int32 *) PG_GETARG_POINTER(6);
	int			r;
	int			n = 0,
				cap = 0,
				w,
				i;
	Datum	   *keys;

	*nkeys = 0;
	if (ball->radius < 0)
		PG_RETURN_POINTER(NULL);	/* nothing is within a negative radius */
	r = ball->radius / SIMHASH_SEGMENTS;
	if (r > MAX_ENUM_RADIUS)
	{
		*searchMode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

	/* number of 16-bit values within r bits: sum of C(16, w), w <= r */
	{
		int			c = 1;

		for (w = 0; w <= r; w++)
		{
			cap += c;
			c = c * (SEGMENT_BITS - w) / (w + 1);
		}
	}
	keys = palloc(sizeof(Datum) * cap * SIMHASH_SEGMENTS);
	for (i = 0; i < SIMHASH_SEGMENTS; i++)
	{
		uint32		s = SEGMENT(ball->center, i);

		keys[n++] = Int32GetDatum(MAKE_KEY(i, s));
		for (w = 1; w <= r; w++)
		{
			/* every 16-bit mask with w bits set, in increasing order */
			uint32		m = (1u << w) - 1;

			while (m < (1u << SEGMENT_BITS))
			{
				uint32		low = m & -m;
				uint32		ripple = m + low;

				keys[n++] = Int32GetDatum(MAKE_KEY(i, s ^ m));
				m = (((ripple ^ m) >> 2) / low) | ripple;
			}
		}
	}
	Assert(n == cap * SIMHASH_SEGMENTS);
	*nkeys = n;
	PG_RETURN_POINTER(keys);
}

/*
 * Lower bound of the distance from the query to an indexed fingerprint,
 * from which of the query keys it has: check[i] (or, from triconsistent,
 * tri[i] != GIN_FALSE).
 */
static int
distance_lower_bound(const SimHashBall *ball, int32 nkeys, const Datum *queryKeys,
					 const bool *check, const GinTernaryValue *tri)
{
	int			r = ball->radius / SIMHASH_SEGMENTS;
	int			best[SIMHASH_SEGMENTS];
	int			i,
				lb = 0;

	for (i = 0; i < SIMHASH_SEGMENTS; i++)
		best[i] = r + 1;
	for (i = 0; i < nkeys; i++)
	{
		int32		key = DatumGetInt32(queryKeys[i]);
		int			seg = KEY_SEGMENT(key);
		int			d;

		if (check ? !check[i] : tri[i] == GIN_FALSE)
			continue;
		d = pg_popcount32(KEY_VALUE(key) ^ SEGMENT(ball->center, seg));
		if (d < best[seg])
			best[seg] = d;
	}
	for (i = 0; i < SIMHASH_SEGMENTS; i++)
		lb += best[i];
	return lb;
}

/*
 * simhash_gin_consistent(internal check, int2 strategy, simhash_ball query,
 *		int4 nkeys, internal extra_data, internal recheck,
 *		internal queryKeys, internal nullFlags)
 *		May the item be within the radius?  Always rechecked on the heap.
 */
PG_FUNCTION_INFO_V1(simhash_gin_consistent);
Datum
simhash_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(2);
	int32		nkeys = PG_GETARG_INT32(3);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	Datum	   *queryKeys = (Datum *) PG_GETARG_POINTER(6);

	*recheck = true;
	if (nkeys == 0)
		PG_RETURN_BOOL(true);	/* GIN_SEARCH_MODE_ALL */
	PG_RETURN_BOOL(distance_lower_bound(ball, nkeys, queryKeys, check, NULL) <= ball->radius);
}

/*
 * simhash_gin_triconsistent(internal check, int2 strategy, simhash_ball
 *		query, int4 nkeys, internal extra_data, internal queryKeys,
 *		internal nullFlags)
 *		The same test over GIN_TRUE / GIN_FALSE / GIN_MAYBE: keys that may
 *		be present count as present.
 */
PG_FUNCTION_INFO_V1(simhash_gin_triconsistent);
Datum
simhash_gin_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(2);
	int32		nkeys = PG_GETARG_INT32(3);
	Datum	   *queryKeys = (Datum *) PG_GETARG_POINTER(5);

	if (nkeys == 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	if (distance_lower_bound(ball, nkeys, queryKeys, NULL, check) > ball->radius)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
	PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
}
