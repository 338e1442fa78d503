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
 * Segment keys keep only (i, segment value): rows share keys, posting
 * lists compress, and the index is about a quarter of the size.  Queries
 * look the values up exactly and the consistent function prunes with a
 * lower bound of the distance (a segment found contributes its exact
 * distance, a segment not found r_i + 1).  With one set of segments
 * (simhash_gin_ops(compact = true), simhash_gin_segment_ops(segment_sets =
 * 1)) a row sharing one segment value with the query reaches the heap
 * recheck.  simhash_gin_segment_ops indexes by default a second set, four
 * segments of interleaved bits, and needs both sets' bounds within the
 * radius: at small radii a row passes only if it shares a value with the
 * query in each set, which for a random row is about as rare as sharing 32
 * bits, so almost no false candidate reaches the heap, for twice the keys
 * of one set.  From k = 8 queries look up set 0 only (see extractQuery).
 *
 * Either way the index is PostgreSQL's own GIN, WAL-logged and crash-safe.
 */
#include "simhash.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "access/stratnum.h"

#include "gin_common.h"

#define SIMHASH_SEGMENTS	4
#define MAX_SEGMENT_SETS	2
#define SEGMENT_BITS		SIMHASH_GIN_SEGMENT_BITS
#define REST_BITS			46	/* bits of the fingerprint after the segment */
#define REST_MASK			((UINT64CONST(1) << REST_BITS) - 1)
#define MAX_QUERY_KEYS		4096	/* beyond this, scan the whole index */
#define MAX_SET1_KEYS		100		/* beyond this, query set 0 only */

/* The key of segment i: i, segment i, then the next 46 bits cyclically */
static inline uint64
make_key(SimHash v, int i)
{
	return ((uint64) i << 62) | (simhash_gin_rotl64(v, SEGMENT_BITS * i) >> 2);
}

#define KEY_SEGMENT_VALUE(key)	((uint32) (((key) >> REST_BITS) & 0xFFFF))

/*
 * Segment i of set s.  Set 0: bits 16 i .. 16 i + 15 counted from the most
 * significant.  Set 1: every fourth bit from bit i, so that each of its
 * segments shares only 4 bits with each segment of set 0 and the two sets'
 * chances of a chance match are close to independent.
 */
static inline uint32
segment_value(SimHash v, int s, int i)
{
	uint32		value = 0;
	int			t;

	if (s == 0)
		return KEY_SEGMENT_VALUE(make_key(v, i));
	for (t = 0; t < SEGMENT_BITS; t++)
		value = (value << 1) | (uint32) ((v >> (63 - i - 4 * t)) & 1);
	return value;
}

/*
 * A segment key: (i, segment value), then bit 45 for set 1; set 0's keys
 * are those of simhash_gin_ops(compact = true).
 */
static inline uint64
make_segment_key(uint32 value, int s, int i)
{
	return ((uint64) i << 62) | ((uint64) value << REST_BITS) |
		((uint64) s << (REST_BITS - 1));
}

/*
 * Operator class options: simhash_gin_ops(compact = true) and
 * simhash_gin_segment_ops(segment_sets = 1 or 2).
 */
typedef struct SimHashGinOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	bool		compact;		/* simhash_gin_ops: one set of segment keys */
	int			segment_sets;	/* simhash_gin_segment_ops: 1 or 2 */
} SimHashGinOptions;

/* The index's layout: 0 for full keys, else the number of segment sets */
static int
segment_sets(FunctionCallInfo fcinfo)
{
	SimHashGinOptions *opts;

	if (!PG_HAS_OPCLASS_OPTIONS())
		return 0;
	opts = (SimHashGinOptions *) PG_GET_OPCLASS_OPTIONS();
	if (opts->segment_sets > 0)
		return opts->segment_sets;
	return opts->compact ? 1 : 0;
}

/* The options of both GIN classes live in one SimHashGinOptions. */
static local_relopts *
gin_relopts(FunctionCallInfo fcinfo)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(SimHashGinOptions));
	return relopts;
}

/* simhash_gin_options(internal): simhash_gin_ops's option "compact" */
PG_FUNCTION_INFO_V1(simhash_gin_options);
Datum
simhash_gin_options(PG_FUNCTION_ARGS)
{
	add_local_bool_reloption(gin_relopts(fcinfo), "compact",
							 "keys hold only the segment, not the whole fingerprint",
							 false, offsetof(SimHashGinOptions, compact));
	PG_RETURN_VOID();
}

/*
 * simhash_gin_segment_options(internal): simhash_gin_segment_ops's option
 * "segment_sets", 1 or 2 (default 2); another value is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_gin_segment_options);
Datum
simhash_gin_segment_options(PG_FUNCTION_ARGS)
{
	add_local_int_reloption(gin_relopts(fcinfo), "segment_sets",
							"sets of four 16-bit segment keys per row: 1, or 2 with the second of interleaved bits",
							MAX_SEGMENT_SETS, 1, MAX_SEGMENT_SETS,
							offsetof(SimHashGinOptions, segment_sets));
	PG_RETURN_VOID();
}

/*
 * What the consistent functions need, worked out once per query in
 * extractQuery rather than once per candidate row.
 */
typedef struct QueryInfo
{
	int			sets;			/* 0: full keys; else sets of segment keys */
	int			unmatched[SIMHASH_SEGMENTS];	/* bound for a segment not
												 * found: r_i + 1 */
	/* full keys only: what comparePartial needs of the query, per segment */
	SimHashGinPartial sq[SIMHASH_SEGMENTS];
} QueryInfo;

/*
 * The extra_data of a query key is a SimHashGinKey: the QueryInfo, slot
 * SIMHASH_SEGMENTS * set + segment.
 */
#define KEY_QUERY(ki)	((QueryInfo *) ((SimHashGinKey *) (ki))->q)

/*
 * simhash_gin_extract_value(simhash, internal nkeys, internal nullFlags)
 *		The keys of a fingerprint: four per set of segments.
 */
PG_FUNCTION_INFO_V1(simhash_gin_extract_value);
Datum
simhash_gin_extract_value(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int			sets = segment_sets(fcinfo);
	Datum	   *keys = palloc(sizeof(Datum) * SIMHASH_SEGMENTS * Max(sets, 1));
	int			n = 0,
				s,
				i;

	if (sets == 0)
		for (i = 0; i < SIMHASH_SEGMENTS; i++)
			keys[n++] = SimHashGetDatum(make_key(v, i));
	for (s = 0; s < sets; s++)
		for (i = 0; i < SIMHASH_SEGMENTS; i++)
			keys[n++] = SimHashGetDatum(make_segment_key(segment_value(v, s, i), s, i));
	*nkeys = n;
	PG_RETURN_POINTER(keys);
}

/*
 * simhash_gin_extract_query(simhash_ball, internal nkeys, int2 strategy,
 *		internal pmatch, internal extra_data, internal nullFlags,
 *		internal searchMode)
 *		For each segment i of each set, every value within r_i bits of the
 *		query's: prefixes of full keys (partial match), or segment keys (of
 *		set 0 only where a set needs more than MAX_SET1_KEYS keys).  A
 *		negative radius matches nothing; a radius needing more than
 *		MAX_QUERY_KEYS keys per set scans the whole index (every row is
 *		rechecked).
 */
PG_FUNCTION_INFO_V1(simhash_gin_extract_query);
Datum
simhash_gin_extract_query(PG_FUNCTION_ARGS)
{
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int			radius[SIMHASH_SEGMENTS];
	QueryInfo  *q;
	SimHashGinKey *ki;
	int			n = 0,
				cap,
				sets = segment_sets(fcinfo),
				s,
				w,
				i;
	Datum	   *keys;

	cap = (int) simhash_segment_radii(ball->radius, SIMHASH_SEGMENTS,
									 SEGMENT_BITS, radius);
	if (!simhash_gin_query_looks_up(fcinfo, ball->radius, cap, MAX_QUERY_KEYS))
		PG_RETURN_POINTER(NULL);

	/*
	 * The second set's keys pay off while a set needs few keys (k <= 7):
	 * they keep rows sharing one segment value out of the heap.  At larger
	 * radii they double the posting lists GIN merges per row and save fewer
	 * rechecks than that costs (1M rows: 2.3 times slower at k = 8, 3.7
	 * times at k = 11), and set 0's bound alone is just as exact.
	 */
	if (sets > 1 && cap > MAX_SET1_KEYS)
		sets = 1;
	cap *= Max(sets, 1);

	keys = palloc(sizeof(Datum) * cap);
	*pmatch = palloc(sizeof(bool) * cap);
	*extra_data = palloc(sizeof(Pointer) * cap);
	ki = palloc(sizeof(SimHashGinKey) * cap);
	q = palloc(sizeof(QueryInfo));
	q->sets = sets;
	for (s = 0; s < Max(sets, 1); s++)
	{
		for (i = 0; i < SIMHASH_SEGMENTS; i++)
		{
			uint64		qkey = make_key(ball->center, i);
			uint32		value = segment_value(ball->center, s, i);
			SimHashGinPartial *sq = &q->sq[i];

			sq->value = value;
			sq->rest = qkey & REST_MASK;
			sq->radius = ball->radius;
			q->unmatched[i] = radius[i] + 1;
			for (w = 0; w <= radius[i]; w++)
			{
				uint32		m;

				for (m = simhash_gin_first_mask(w); m < SIMHASH_GIN_MASK_END;
					 m = simhash_gin_next_mask(m, w))
				{
					keys[n] = SimHashGetDatum(make_segment_key(value ^ m, s, i));
					(*pmatch)[n] = (sets == 0);
					ki[n].q = q;
					ki[n].slot = SIMHASH_SEGMENTS * s + i;
					ki[n].dist = w;
					(*extra_data)[n] = (Pointer) &ki[n];
					n++;
				}
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
	SimHashGinKey *ki = (SimHashGinKey *) PG_GETARG_POINTER(3);

	PG_RETURN_INT32(simhash_gin_partial_cmp((uint64) PG_GETARG_SIMHASH(0),
											(uint64) PG_GETARG_SIMHASH(1),
											REST_BITS,
											&KEY_QUERY(ki)->sq[ki->slot % SIMHASH_SEGMENTS]));
}

/*
 * Segment keys: is the distance from the query to an item, bounded below
 * from which query keys it has, within the radius in every set?  In each
 * set a segment found contributes its nearest value's distance, a segment
 * not found r_i + 1.
 */
static bool
segments_within(int32 nkeys, Pointer *extra_data, int32 radius,
				const char *found)
{
	QueryInfo  *q = KEY_QUERY(extra_data[0]);
	int			best[MAX_SEGMENT_SETS * SIMHASH_SEGMENTS];
	int			s,
				i;

	for (s = 0; s < q->sets; s++)
		memcpy(best + SIMHASH_SEGMENTS * s, q->unmatched, sizeof(q->unmatched));
	simhash_gin_found_bounds(nkeys, extra_data, found, best);
	for (s = 0; s < q->sets; s++)
	{
		int			lb = 0;

		for (i = 0; i < SIMHASH_SEGMENTS; i++)
			lb += best[SIMHASH_SEGMENTS * s + i];
		if (lb > radius)
			return false;
	}
	return true;
}

/*
 * May an item match, given which query keys it has (found[i] nonzero: a
 * true bool, or GIN_TRUE or GIN_MAYBE)?  Full keys: an item found by any key
 * is within the radius but for the two bits the keys do not hold.  Segment
 * keys: the lower bounds must be within the radius.  No keys (whole-index
 * scan): every item.  The arguments are those of the consistent functions.
 */
static bool
item_may_match(FunctionCallInfo fcinfo)
{
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	const char *found = (const char *) PG_GETARG_POINTER(0);

	if (nkeys > 0 && KEY_QUERY(extra_data[0])->sets > 0)
		return segments_within(nkeys, extra_data,
							   ((SimHashBall *) PG_GETARG_POINTER(2))->radius,
							   found);
	return simhash_gin_any_found(nkeys, found);
}

/* simhash_gin_consistent, simhash_gin_triconsistent (query simhash_ball) */
SIMHASH_GIN_CONSISTENT(simhash_gin, item_may_match)
