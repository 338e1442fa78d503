/*
 * gin_wide.c
 *		GIN operator classes simhash128_gin_ops and simhash256_gin_ops:
 *		exact radius search by 16-bit segments (8 at 128 bits, 16 at 256).
 *
 * Multi-index hashing (Norouzi et al. 2012), as gin.c does at 64 bits:
 * give segment i a radius r_i with sum(r_i + 1) = k + 1; a fingerprint
 * within distance k of the query then differs from it in some segment i by
 * at most r_i bits, or the distance would be at least k + 1.
 *
 * Each fingerprint is indexed under one integer key per segment, (i << 16)
 * | segment i's value; segment i is bits 63 - 16 (i mod 4) .. 48 - 16 (i
 * mod 4) of word i / 4, so segment 0 is the first four hex digits, as at 64
 * bits.  Rows share keys and posting lists compress.  A query
 * fp <@ simhash_ball(q, k) looks up, for each segment i, every value within
 * r_i bits of q's.  The consistent functions bound the distance from below
 * (a segment found contributes the distance of its value, one not found
 * r_i + 1) and drop an item whose bound exceeds k; every other item is
 * rechecked on the heap against the whole fingerprint, so answers are
 * exact.
 *
 * When the lookups would exceed MAX_QUERY_KEYS (large radii: above 36 at
 * 128 bits, above 65 at 256 bits), the query scans the whole index instead
 * (GIN_SEARCH_MODE_ALL) and rechecks every row: slow but never wrong.
 */
#include "simhash.h"

#include "access/gin.h"
#include "access/stratnum.h"

#define SEGMENT_BITS		16
#define MAX_SEGMENTS		(SIMHASH_MAX_BITS / SEGMENT_BITS)
#define MAX_QUERY_KEYS		16384	/* beyond this, scan the whole index */

/* Segment i of a fingerprint of 64-bit words */
static inline uint32
segment_value(const uint64 *w, int i)
{
	return (uint32) ((w[i / 4] >> (48 - SEGMENT_BITS * (i % 4))) & 0xFFFF);
}

static inline Datum
segment_key(int i, uint32 value)
{
	return Int32GetDatum((int32) (((uint32) i << SEGMENT_BITS) | value));
}

/* What the consistent functions need, worked out once per query */
typedef struct QueryInfo
{
	int			nsegments;
	int32		radius;			/* the query radius k */
	int			unmatched[MAX_SEGMENTS];	/* bound for a segment not found:
											 * r_i + 1 */
} QueryInfo;

/* extra_data of one query key */
typedef struct KeyInfo
{
	QueryInfo  *q;
	int			seg;			/* segment number */
	int			dist;			/* its value's distance from q's segment */
} KeyInfo;

/* extractValue: the keys of a fingerprint, one per segment */
static Datum
extract_value(const uint64 *w, int nwords, int32 *nkeys)
{
	int			nsegments = nwords * SIMHASH_BITS / SEGMENT_BITS;
	Datum	   *keys = palloc(sizeof(Datum) * nsegments);
	int			i;

	for (i = 0; i < nsegments; i++)
		keys[i] = segment_key(i, segment_value(w, i));
	*nkeys = nsegments;
	return PointerGetDatum(keys);
}

/*
 * extractQuery: for each segment i every value within r_i bits of the
 * query's.  A negative radius matches nothing (no keys); a radius needing
 * more than MAX_QUERY_KEYS keys scans the whole index.
 */
static Datum
extract_query(const SimHashWideBall *ball, int nwords, int32 *nkeys,
			  Pointer **extra_data, int32 *searchMode)
{
	int			nsegments = nwords * SIMHASH_BITS / SEGMENT_BITS;
	int			radius[MAX_SEGMENTS];
	double		cap;
	QueryInfo  *q;
	KeyInfo    *ki;
	Datum	   *keys;
	int			n = 0,
				w,
				i;

	*nkeys = 0;
	if (ball->radius < 0)
		return PointerGetDatum(NULL);	/* nothing is within a negative radius */
	cap = simhash_segment_radii(ball->radius, nsegments, SEGMENT_BITS, radius);
	if (cap > MAX_QUERY_KEYS)
	{
		*searchMode = GIN_SEARCH_MODE_ALL;
		return PointerGetDatum(NULL);
	}

	keys = palloc(sizeof(Datum) * (int) cap);
	*extra_data = palloc(sizeof(Pointer) * (int) cap);
	ki = palloc(sizeof(KeyInfo) * (int) cap);
	q = palloc(sizeof(QueryInfo));
	q->nsegments = nsegments;
	q->radius = ball->radius;
	for (i = 0; i < nsegments; i++)
	{
		uint32		value = segment_value(ball->center, i);

		q->unmatched[i] = radius[i] + 1;
		for (w = 0; w <= radius[i]; w++)
		{
			/* every 16-bit mask with w bits set, in increasing order */
			uint32		m = (1u << w) - 1;

			while (m < (1u << SEGMENT_BITS))
			{
				keys[n] = segment_key(i, value ^ m);
				ki[n].q = q;
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
	Assert(n == (int) cap);
	*nkeys = n;
	return PointerGetDatum(keys);
}

/*
 * May an item be within the radius, given which query keys it has (found[i]
 * nonzero: a true bool, or GIN_TRUE or GIN_MAYBE)?  The sum over segments of
 * the nearest value found (r_i + 1 where none is) bounds its distance from
 * below.  No keys (whole-index scan): every item.
 */
static bool
item_may_match(int32 nkeys, Pointer *extra_data, const char *found)
{
	QueryInfo  *q;
	int			best[MAX_SEGMENTS];
	int			lb = 0;
	int			i;

	if (nkeys == 0)
		return true;
	q = ((KeyInfo *) extra_data[0])->q;
	memcpy(best, q->unmatched, sizeof(int) * q->nsegments);

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
		if (ki->dist < best[ki->seg])
			best[ki->seg] = ki->dist;
	}
	for (i = 0; i < q->nsegments; i++)
		lb += best[i];
	return lb <= q->radius;
}

/*
 * simhash_wide_gin_consistent(internal check, int2 strategy, ball query,
 *		int4 nkeys, internal extra_data, internal recheck,
 *		internal queryKeys, internal nullFlags)
 *		item_may_match over a bool check array; always rechecked on the heap.
 *		The same function for both widths (the query's width is in
 *		extra_data).
 */
PG_FUNCTION_INFO_V1(simhash_wide_gin_consistent);
Datum
simhash_wide_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);

	*recheck = true;
	PG_RETURN_BOOL(item_may_match(PG_GETARG_INT32(3),
								  (Pointer *) PG_GETARG_POINTER(4),
								  (const char *) PG_GETARG_POINTER(0)));
}

/*
 * simhash_wide_gin_triconsistent(internal check, int2 strategy, ball query,
 *		int4 nkeys, internal extra_data, internal queryKeys,
 *		internal nullFlags)
 *		The same over GIN_TRUE / GIN_FALSE / GIN_MAYBE: GIN_MAYBE or
 *		GIN_FALSE, never GIN_TRUE, as every item is rechecked.
 */
PG_FUNCTION_INFO_V1(simhash_wide_gin_triconsistent);
Datum
simhash_wide_gin_triconsistent(PG_FUNCTION_ARGS)
{
	StaticAssertStmt(sizeof(GinTernaryValue) == sizeof(bool) && GIN_FALSE == 0,
					 "check arrays must be bytes with false as zero");
	PG_RETURN_GIN_TERNARY_VALUE(item_may_match(PG_GETARG_INT32(3),
											   (Pointer *) PG_GETARG_POINTER(4),
											   (const char *) PG_GETARG_POINTER(0)) ?
								GIN_MAYBE : GIN_FALSE);
}

/*
 * The entry points of each width:
 * simhashW_gin_extract_value(simhashW, internal nkeys, internal nullFlags)
 * simhashW_gin_extract_query(simhashW_ball, internal nkeys, int2 strategy,
 *		internal pmatch, internal extra_data, internal nullFlags,
 *		internal searchMode)
 */
#define WIDE_GIN(W, N) \
PG_FUNCTION_INFO_V1(simhash##W##_gin_extract_value); \
Datum simhash##W##_gin_extract_value(PG_FUNCTION_ARGS) \
{ \
	return extract_value(PG_GETARG_SIMHASH_WORDS(0), N, \
						 (int32 *) PG_GETARG_POINTER(1)); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_gin_extract_query); \
Datum simhash##W##_gin_extract_query(PG_FUNCTION_ARGS) \
{ \
	return extract_query((SimHashWideBall *) PG_GETARG_POINTER(0), N, \
						 (int32 *) PG_GETARG_POINTER(1), \
						 (Pointer **) PG_GETARG_POINTER(4), \
						 (int32 *) PG_GETARG_POINTER(6)); \
}

WIDE_GIN(128, 2)
WIDE_GIN(256, 4)
