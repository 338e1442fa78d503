/*
 * gin.c
 *		GIN operator class simhash_gin_ops: exact radius search by the four
 *		16-bit segments, with the whole fingerprint in every key.
 *
 * Pigeonhole (Manku et al. 2007 for k = 3; multi-index hashing, Norouzi et
 * al. 2012, for any k): give segment i a radius r_i with
 * sum(r_i + 1) = k + 1; two fingerprints within distance k then differ in
 * some segment i by at most r_i bits, or the distance would be at least
 * k + 1.
 *
 * Each fingerprint is indexed under four int8 keys, one per segment i: two
 * bits of i, then the fingerprint rotated left by 16 i bits (segment i
 * first) less its last two bits.  A query fp <@ simhash_ball(q, k) looks up
 * every key prefix (i, v) with v within r_i bits of q's segment i, as a
 * partial match, and comparePartial measures each key found against q on
 * the 62 bits the key holds.  Only fingerprints within k on those bits
 * reach the heap, where the recheck settles the last two bits; keys sharing
 * only the segment value (the stock recipes' false candidates) are
 * rejected inside the index.
 *
 * simhash_gin_ops(compact = true) keeps only (i, segment value) in a key:
 * rows share keys, posting lists compress, and the index is about a
 * quarter of the size; queries look the values up exactly and the
 * consistent function prunes with a lower bound of the distance (a segment
 * found contributes its exact distance, a segment not found r_i + 1), but
 * rows sharing only a segment value reach the heap recheck.
 *
 * Either way the index is PostgreSQL's own GIN, WAL-logged and crash-safe.
 */
#include "simhash.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "port/pg_bitutils.h"

#define SIMHASH_SEGMENTS	4
#define SEGMENT_BITS		16
#define REST_BITS			46	/* bits of the fingerprint after the segment */
#define REST_MASK			((UINT64CONST(1) << REST_BITS) - 1)
#define MAX_QUERY_KEYS		4096	/* beyond this, scan the whole index */

static inline uint64
rotl64(uint64 v, int n)
{
	return n == 0 ? v : (v << n) | (v >> (64 - n));
}

/* The key of segment i: i, segment i, then the next 46 bits cyclically */
static inline uint64
make_key(SimHash v, int i)
{
	return ((uint64) i << 62) | (rotl64(v, SEGMENT_BITS * i) >> 2);
}

#define KEY_PREFIX(key)		((key) >> REST_BITS)	/* (i, segment value) */
#define KEY_SEGMENT_VALUE(key)	((uint32) (((key) >> REST_BITS) & 0xFFFF))

/* Operator class options: simhash_gin_ops(compact = true) */
typedef struct SimHashGinOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	bool		compact;
} SimHashGinOptions;

static bool
compact_keys(FunctionCallInfo fcinfo)
{
	return PG_HAS_OPCLASS_OPTIONS() &&
		((SimHashGinOptions *) PG_GET_OPCLASS_OPTIONS())->compact;
}

/* simhash_gin_options(internal): declares the option "compact" */
PG_FUNCTION_INFO_V1(simhash_gin_options);
Datum
simhash_gin_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(SimHashGinOptions));
	add_local_bool_reloption(relopts, "compact",
							 "keys hold only the segment, not the whole fingerprint",
							 false, offsetof(SimHashGinOptions, compact));
	PG_RETURN_VOID();
}

/* What comparePartial needs of the query, per segment */
typedef struct SegmentQuery
{
	uint32		value;			/* q's segment i */
	uint64		rest;			/* q's 46 bits after it, as in the keys */
	int32		radius;			/* the query radius k */
} SegmentQuery;

/*
 * What the consistent functions need, worked out once per query in
 * extractQuery rather than once per candidate row.
 */
typedef struct QueryInfo
{
	bool		compact;		/* keys are (segment, value) only */
	int			unmatched[SIMHASH_SEGMENTS];	/* bound for a segment not
												 * found: r_i + 1, 0 if not
												 * looked up */
	SegmentQuery sq[SIMHASH_SEGMENTS];
} QueryInfo;

/* extra_data of one query key */
typedef struct KeyInfo
{
	QueryInfo  *q;
	int			seg;			/* segment number */
	int			dist;			/* its value's distance from q's segment */
} KeyInfo;

/*
 * simhash_gin_extract_value(simhash, internal nkeys, internal nullFlags)
 *		The four keys of a fingerprint.
 */
PG_FUNCTION_INFO_V1(simhash_gin_extract_value);
Datum
simhash_gin_extract_value(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	Datum	   *keys = palloc(sizeof(Datum) * SIMHASH_SEGMENTS);
	int			i;
	bool		compact = compact_keys(fcinfo);

	for (i = 0; i < SIMHASH_SEGMENTS; i++)
	{
		uint64		key = make_key(v, i);

		if (compact)
			key &= ~REST_MASK;
		keys[i] = SimHashGetDatum(key);
	}
	*nkeys = SIMHASH_SEGMENTS;
	PG_RETURN_POINTER(keys);
}

/*
 * The radius of each segment for a query radius k >= 0: the k + 1 units of
 * sum(r_i + 1) spread evenly, the larger shares first.  Returns the number
 * of query keys this gives.
 */
static int
segment_radii(int32 k, int *radius)
{
	int64		units = (int64) k + 1;
	int			nkeys = 0;
	int			i;

	for (i = 0; i < SIMHASH_SEGMENTS; i++)
	{
		int64		share = units / SIMHASH_SEGMENTS + (i < units % SIMHASH_SEGMENTS ? 1 : 0);
		int			w;

		radius[i] = (int) Min(share - 1, SEGMENT_BITS);
		for (w = 0; w <= radius[i]; w++)
			nkeys += (int) simhash_binomial(SEGMENT_BITS, w);	/* values at distance w */
	}
	return nkeys;
}

/*
 * simhash_gin_extract_query(simhash_ball, internal nkeys, int2 strategy,
 *		internal pmatch, internal extra_data, internal nullFlags,
 *		internal searchMode)
 *		For each segment i, every value within r_i bits of the query's.  A
 *		negative radius matches nothing; a radius needing more than
 *		MAX_QUERY_KEYS keys scans the whole index (every row is rechecked).
 */
PG_FUNCTION_INFO_V1(simhash_gin_extract_query);
Datum
simhash_gin_extract_query(PG_FUNCTION_ARGS)
{
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int32	   *searchMode = (int32 *) PG_GETARG_POINTER(6);
	int			radius[SIMHASH_SEGMENTS];
	QueryInfo  *q;
	KeyInfo    *ki;
	int			n = 0,
				cap,
				w,
				i;
	Datum	   *keys;

	*nkeys = 0;
	if (ball->radius < 0)
		PG_RETURN_POINTER(NULL);	/* nothing is within a negative radius */
	cap = segment_radii(ball->radius, radius);
	if (cap > MAX_QUERY_KEYS)
	{
		*searchMode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

	keys = palloc(sizeof(Datum) * cap);
	*pmatch = palloc(sizeof(bool) * cap);
	*extra_data = palloc(sizeof(Pointer) * cap);
	ki = palloc(sizeof(KeyInfo) * cap);
	q = palloc(sizeof(QueryInfo));
	q->compact = compact_keys(fcinfo);
	for (i = 0; i < SIMHASH_SEGMENTS; i++)
	{
		uint64		qkey = make_key(ball->center, i);
		SegmentQuery *sq = &q->sq[i];

		sq->value = KEY_SEGMENT_VALUE(qkey);
		sq->rest = qkey & REST_MASK;
		sq->radius = ball->radius;
		q->unmatched[i] = radius[i] + 1;
		for (w = 0; w <= radius[i]; w++)
		{
			/*
			 * every 16-bit mask with w bits set, in increasing order: the
			 * next one is Gosper's hack (HAKMEM item 175)
			 */
			uint32		m = (1u << w) - 1;

			while (m < (1u << SEGMENT_BITS))
			{
				uint32		low = m & -m;
				uint32		ripple = m + low;

				keys[n] = SimHashGetDatum(((uint64) i << 62) |
										  ((uint64) (sq->value ^ m) << REST_BITS));
				(*pmatch)[n] = !q->compact;
				ki[n].q = q;
				ki[n].seg = i;
				ki[n].dist = w;
				(*extra_data)[n] = (Pointer) &ki[n];
				n++;
				if (w == 0)
					break;
				m = (((ripple ^ m) >> 2) / low) | ripple;
			}
		}
	}
	Assert(n == cap);
	*nkeys = n;
	PG_RETURN_POINTER(keys);
}

/*
 * simhash_gin_compare_partial(simhash prefix, simhash key, int2 strategy,
 *		internal extra_data)
 *		0 if the key's fingerprint is within the radius on the 62 bits the
 *		key holds, -1 if not, 1 once past the keys of the prefix.
 */
PG_FUNCTION_INFO_V1(simhash_gin_compare_partial);
Datum
simhash_gin_compare_partial(PG_FUNCTION_ARGS)
{
	uint64		prefix = (uint64) PG_GETARG_SIMHASH(0);
	uint64		key = (uint64) PG_GETARG_SIMHASH(1);
	KeyInfo    *ki = (KeyInfo *) PG_GETARG_POINTER(3);
	SegmentQuery *sq = &ki->q->sq[ki->seg];
	int			d;

	if (KEY_PREFIX(key) != KEY_PREFIX(prefix))
		PG_RETURN_INT32(1);
	d = pg_popcount32(KEY_SEGMENT_VALUE(key) ^ sq->value) +
		pg_popcount64((key & REST_MASK) ^ sq->rest);
	PG_RETURN_INT32(d <= sq->radius ? 0 : -1);
}

/*
 * Compact keys: a lower bound of the distance from the query to an item,
 * from which query keys it has (check[i], or tri[i] != GIN_FALSE).
 */
static int
compact_lower_bound(int32 nkeys, Pointer *extra_data,
					const bool *check, const GinTernaryValue *tri)
{
	QueryInfo  *q = ((KeyInfo *) extra_data[0])->q;
	int			best[SIMHASH_SEGMENTS];
	int			i,
				lb = 0;

	memcpy(best, q->unmatched, sizeof(best));
	for (i = 0; i < nkeys; i++)
	{
		KeyInfo    *ki = (KeyInfo *) extra_data[i];

		if (check ? !check[i] : tri[i] == GIN_FALSE)
			continue;
		if (ki->dist < best[ki->seg])
			best[ki->seg] = ki->dist;
	}
	for (i = 0; i < SIMHASH_SEGMENTS; i++)
		lb += best[i];
	return lb;
}

/*
 * simhash_gin_consistent(internal check, int2 strategy, simhash_ball query,
 *		int4 nkeys, internal extra_data, internal recheck,
 *		internal queryKeys, internal nullFlags)
 *		Full keys: an item found by any key is within the radius but for the
 *		two bits the keys do not hold.  Compact keys: the lower bound must
 *		be within the radius.  Always rechecked on the heap.
 */
PG_FUNCTION_INFO_V1(simhash_gin_consistent);
Datum
simhash_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(2);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	int			i;

	*recheck = true;
	if (nkeys == 0)
		PG_RETURN_BOOL(true);	/* GIN_SEARCH_MODE_ALL */
	if (((KeyInfo *) extra_data[0])->q->compact)
		PG_RETURN_BOOL(compact_lower_bound(nkeys, extra_data, check, NULL) <=
					   ball->radius);
	for (i = 0; i < nkeys; i++)
		if (check[i])
			PG_RETURN_BOOL(true);
	PG_RETURN_BOOL(false);
}

/*
 * simhash_gin_triconsistent(internal check, int2 strategy, simhash_ball
 *		query, int4 nkeys, internal extra_data, internal queryKeys,
 *		internal nullFlags)
 *		The same over GIN_TRUE / GIN_FALSE / GIN_MAYBE.
 */
PG_FUNCTION_INFO_V1(simhash_gin_triconsistent);
Datum
simhash_gin_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(2);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	int			i;

	if (nkeys == 0)
		PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	if (((KeyInfo *) extra_data[0])->q->compact)
		PG_RETURN_GIN_TERNARY_VALUE(compact_lower_bound(nkeys, extra_data, NULL, check) >
									ball->radius ? GIN_FALSE : GIN_MAYBE);
	for (i = 0; i < nkeys; i++)
		if (check[i] != GIN_FALSE)
			PG_RETURN_GIN_TERNARY_VALUE(GIN_MAYBE);
	PG_RETURN_GIN_TERNARY_VALUE(GIN_FALSE);
}
