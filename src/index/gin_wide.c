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

#include "gin_common.h"
#include "type/words.h"

#define SEGMENT_BITS		SIMHASH_GIN_SEGMENT_BITS
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

/* The extra_data of a query key is a SimHashGinKey, slot the segment */

/*
 * extractValue(simhashW, internal nkeys, internal nullFlags): the keys of
 * a fingerprint, one per segment
 */
static inline Datum
gin_extract_value(FunctionCallInfo fcinfo, int nwords)
{
	const uint64 *w = PG_GETARG_SIMHASH_WORDS(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	int			nsegments = nwords * SIMHASH_BITS / SEGMENT_BITS;
	Datum	   *keys = palloc(sizeof(Datum) * nsegments);
	int			i;

	for (i = 0; i < nsegments; i++)
		keys[i] = segment_key(i, segment_value(w, i));
	*nkeys = nsegments;
	return PointerGetDatum(keys);
}

/*
 * extractQuery (its arguments: gin_common.h): for each segment i every value
 * within r_i bits of the query's.  A negative radius matches nothing (no
 * keys); one needing more than MAX_QUERY_KEYS keys scans the whole index.
 */
static inline Datum
gin_extract_query(FunctionCallInfo fcinfo, int nwords)
{
	const SimHashWideBall *ball = (const SimHashWideBall *) PG_GETARG_POINTER(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int			nsegments = nwords * SIMHASH_BITS / SEGMENT_BITS;
	int			radius[MAX_SEGMENTS];
	double		cap;
	QueryInfo  *q;
	SimHashGinKey *ki;
	Datum	   *keys;
	int			n = 0,
				w,
				i;

	cap = simhash_segment_radii(ball->radius, nsegments, SEGMENT_BITS, radius);
	if (!simhash_gin_query_looks_up(fcinfo, ball->radius, cap, MAX_QUERY_KEYS))
		return PointerGetDatum(NULL);

	keys = palloc(sizeof(Datum) * (int) cap);
	*extra_data = palloc(sizeof(Pointer) * (int) cap);
	ki = palloc(sizeof(SimHashGinKey) * (int) cap);
	q = palloc(sizeof(QueryInfo));
	q->nsegments = nsegments;
	q->radius = ball->radius;
	for (i = 0; i < nsegments; i++)
	{
		uint32		value = segment_value(ball->center, i);

		q->unmatched[i] = radius[i] + 1;
		for (w = 0; w <= radius[i]; w++)
		{
			uint32		m;

			for (m = simhash_gin_first_mask(w); m < SIMHASH_GIN_MASK_END;
				 m = simhash_gin_next_mask(m, w))
			{
				keys[n] = segment_key(i, value ^ m);
				ki[n].q = q;
				ki[n].slot = i;
				ki[n].dist = w;
				(*extra_data)[n] = (Pointer) &ki[n];
				n++;
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
 * below.  No keys (whole-index scan): every item.  The arguments are those
 * of the consistent functions; the query's width is in extra_data.
 */
static bool
item_may_match(FunctionCallInfo fcinfo)
{
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	QueryInfo  *q;
	int			best[MAX_SEGMENTS];
	int			lb = 0;
	int			i;

	if (nkeys == 0)
		return true;
	q = (QueryInfo *) ((SimHashGinKey *) extra_data[0])->q;
	memcpy(best, q->unmatched, sizeof(int) * q->nsegments);
	simhash_gin_found_bounds(nkeys, extra_data,
							 (const char *) PG_GETARG_POINTER(0), best);
	for (i = 0; i < q->nsegments; i++)
		lb += best[i];
	return lb <= q->radius;
}

/* simhash_wide_gin_consistent, _triconsistent: both widths */
SIMHASH_GIN_CONSISTENT(simhash_wide_gin, item_may_match)

/* The entry points of each width: simhashW_gin_extract_value, _query */
#define GIN_FUNCS(P, N) \
	SIMHASH_ENTRY(P##_gin, N, gin, extract_value) \
	SIMHASH_ENTRY(P##_gin, N, gin, extract_query)

SIMHASH_EACH_WIDE_WIDTH(GIN_FUNCS)
