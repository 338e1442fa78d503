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
#include "port/pg_bitutils.h"

#define SIMHASH_SEGMENTS	4
#define MAX_SEGMENT_SETS	2
#define SEGMENT_BITS		16
#define REST_BITS			46	/* bits of the fingerprint after the segment */
#define REST_MASK			((UINT64CONST(1) << REST_BITS) - 1)
#define MAX_QUERY_KEYS		4096	/* beyond this, scan the whole index */
#define MAX_SET1_KEYS		100		/* beyond this, query set 0 only */

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
	int			sets;			/* 0: full keys; else sets of segment keys */
	int			unmatched[SIMHASH_SEGMENTS];	/* bound for a segment not
												 * found: r_i + 1 */
	SegmentQuery sq[SIMHASH_SEGMENTS];	/* full keys only */
} QueryInfo;

/* extra_data of one query key */
typedef struct KeyInfo
{
	QueryInfo  *q;
	int			set;			/* segment set */
	int			seg;			/* segment number */
	int			dist;			/* its value's distance from q's segment */
} KeyInfo;

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
	int32	   *searchMode = (int32 *) PG_GETARG_POINTER(6);
	int			radius[SIMHASH_SEGMENTS];
	QueryInfo  *q;
	KeyInfo    *ki;
	int			n = 0,
				cap,
				sets = segment_sets(fcinfo),
				s,
				w,
				i;
	Datum	   *keys;

	*nkeys = 0;
	if (ball->radius < 0)
		PG_RETURN_POINTER(NULL);	/* nothing is within a negative radius */
	cap = (int) simhash_segment_radii(ball->radius, SIMHASH_SEGMENTS,
									 SEGMENT_BITS, radius);
	if (cap > MAX_QUERY_KEYS)
	{
		*searchMode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

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
	ki = palloc(sizeof(KeyInfo) * cap);
	q = palloc(sizeof(QueryInfo));
	q->sets = sets;
	for (s = 0; s < Max(sets, 1); s++)
	{
		for (i = 0; i < SIMHASH_SEGMENTS; i++)
		{
			uint64		qkey = make_key(ball->center, i);
			uint32		value = segment_value(ball->center, s, i);
			SegmentQuery *sq = &q->sq[i];

			sq->value = value;
			sq->rest = qkey & REST_MASK;
			sq->radius = ball->radius;
			q->unmatched[i] = radius[i] + 1;
			for (w = 0; w <= radius[i]; w++)
			{
				/* every 16-bit mask with w bits set, in increasing order */
				uint32		m = (1u << w) - 1;

				while (m < (1u << SEGMENT_BITS))
				{
					keys[n] = SimHashGetDatum(make_segment_key(value ^ m, s, i));
					(*pmatch)[n] = (sets == 0);
					ki[n].q = q;
					ki[n].set = s;
					ki[n].seg = i;
					ki[n].dist = w;
					(*extra_data)[n] = (Pointer) &ki[n];
					n++;
					if (w == 0)
						break;
					m = simhash_next_combination(m);
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
 * Segment keys: is the distance from the query to an item, bounded below
 * from which query keys it may have (found[i] nonzero: a true bool, or
 * GIN_TRUE or GIN_MAYBE), within the radius in every set?  In each set a segment found contributes its
 * nearest value's distance, a segment not found r_i + 1.
 */
static bool
segments_within(int32 nkeys, Pointer *extra_data, int32 radius,
				const char *found)
{
	QueryInfo  *q = ((KeyInfo *) extra_data[0])->q;
	int			best[MAX_SEGMENT_SETS][SIMHASH_SEGMENTS];
	int			s,
				i;

	for (s = 0; s < q->sets; s++)
		memcpy(best[s], q->unmatched, sizeof(q->unmatched));

	/*
	 * An item has few of the query's keys: skip eight absent keys at a time
	 * (false and GIN_FALSE are both zero bytes).
	 */
	for (i = 0; i < nkeys; i++)
	{
		KeyInfo    *ki;
		uint64		word;

		if (i % 8 == 0 && i + 8 <= nkeys)
		{
			memcpy(&word, found + i, sizeof(word));
			if (word == 0)
			{
				i += 7;
				continue;
			}
		}
		if (!found[i])
			continue;
		ki = (KeyInfo *) extra_data[i];
		if (ki->dist < best[ki->set][ki->seg])
			best[ki->set][ki->seg] = ki->dist;
	}
	for (s = 0; s < q->sets; s++)
	{
		int			lb = 0;

		for (i = 0; i < SIMHASH_SEGMENTS; i++)
			lb += best[s][i];
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
 * scan): every item.
 */
static bool
item_may_match(int32 nkeys, Pointer *extra_data, int32 radius,
			   const char *found)
{
	int			i;

	if (nkeys == 0)
		return true;
	if (((KeyInfo *) extra_data[0])->q->sets > 0)
		return segments_within(nkeys, extra_data, radius, found);
	for (i = 0; i < nkeys; i++)
		if (found[i])
			return true;
	return false;
}

/*
 * simhash_gin_consistent(internal check, int2 strategy, simhash_ball query,
 *		int4 nkeys, internal extra_data, internal recheck,
 *		internal queryKeys, internal nullFlags)
 *		item_may_match over a bool check array; always rechecked on the heap.
 */
PG_FUNCTION_INFO_V1(simhash_gin_consistent);
Datum
simhash_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);

	*recheck = true;
	PG_RETURN_BOOL(item_may_match(PG_GETARG_INT32(3),
								  (Pointer *) PG_GETARG_POINTER(4),
								  ((SimHashBall *) PG_GETARG_POINTER(2))->radius,
								  (const char *) PG_GETARG_POINTER(0)));
}

/*
 * simhash_gin_triconsistent(internal check, int2 strategy, simhash_ball
 *		query, int4 nkeys, internal extra_data, internal queryKeys,
 *		internal nullFlags)
 *		The same over GIN_TRUE / GIN_FALSE / GIN_MAYBE (GIN_FALSE is a zero
 *		byte like false): GIN_MAYBE or GIN_FALSE, never GIN_TRUE, as every
 *		item is rechecked.
 */
PG_FUNCTION_INFO_V1(simhash_gin_triconsistent);
Datum
simhash_gin_triconsistent(PG_FUNCTION_ARGS)
{
	StaticAssertStmt(sizeof(GinTernaryValue) == sizeof(bool) && GIN_FALSE == 0,
					 "check arrays must be bytes with false as zero");
	PG_RETURN_GIN_TERNARY_VALUE(item_may_match(PG_GETARG_INT32(3),
											   (Pointer *) PG_GETARG_POINTER(4),
											   ((SimHashBall *) PG_GETARG_POINTER(2))->radius,
											   (const char *) PG_GETARG_POINTER(0)) ?
								GIN_MAYBE : GIN_FALSE);
}
