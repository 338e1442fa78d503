/*
 * gin_common.h
 *		What the GIN operator classes share (gin.c, gin_wide.c,
 *		gin_wide_word.c): the enumeration of segment values near the
 *		query's, the distance a partial-match key holds, the lower bound of
 *		the segment classes, and the consistent functions.
 *
 * The classes' keys differ (they are the indexes' stored form), so each
 * file makes its own; what they do with them is the same.
 */
#ifndef SIMHASH_GIN_COMMON_H
#define SIMHASH_GIN_COMMON_H

#include "simhash.h"

#include "access/gin.h"
#include "port/pg_bitutils.h"

#define SIMHASH_GIN_SEGMENT_BITS	16

static inline uint64
simhash_gin_rotl64(uint64 v, int n)
{
	return n == 0 ? v : (v << n) | (v >> (64 - n));
}

/*
 * Every 16-bit mask with d bits set, in increasing order:
 * for (m = simhash_gin_first_mask(d); m < SIMHASH_GIN_MASK_END;
 *		m = simhash_gin_next_mask(m, d))
 */
#define SIMHASH_GIN_MASK_END	(1u << SIMHASH_GIN_SEGMENT_BITS)

static inline uint32
simhash_gin_first_mask(int d)
{
	return (1u << d) - 1;
}

static inline uint32
simhash_gin_next_mask(uint32 m, int d)
{
	return d == 0 ? SIMHASH_GIN_MASK_END : simhash_next_combination(m);
}

/*
 * Whether an extractQuery(query, internal nkeys, int2 strategy, internal
 * pmatch, internal extra_data, internal nullFlags, internal searchMode)
 * whose radius needs cap keys looks any up: not for a negative radius
 * (nothing is within it: no keys), nor for more than max_keys keys (the
 * whole index is scanned instead, and every row rechecked).
 */
static inline bool
simhash_gin_query_looks_up(FunctionCallInfo fcinfo, int32 radius, double cap,
						   double max_keys)
{
	*(int32 *) PG_GETARG_POINTER(1) = 0;
	if (radius < 0)
		return false;
	if (cap > max_keys)
	{
		*(int32 *) PG_GETARG_POINTER(6) = GIN_SEARCH_MODE_ALL;
		return false;
	}
	return true;
}

/*
 * What comparePartial needs of the query for one key prefix: a key is
 * (tag, 16-bit segment value, rest_bits more bits), and the query's
 * segment value and rest as the keys hold them.
 */
typedef struct SimHashGinPartial
{
	uint32		value;			/* the query's segment */
	uint64		rest;			/* the bits after it, as in the keys */
	int32		radius;			/* the distance allowed on those bits */
} SimHashGinPartial;

/*
 * comparePartial: 0 if the key is within the radius of the query on the
 * bits it holds, -1 if not, 1 once past the keys of the prefix.
 */
static inline int32
simhash_gin_partial_cmp(uint64 prefix, uint64 key, int rest_bits,
						const SimHashGinPartial *q)
{
	uint64		rest_mask = (UINT64CONST(1) << rest_bits) - 1;
	int			d;

	if ((key >> rest_bits) != (prefix >> rest_bits))
		return 1;
	d = pg_popcount32((uint32) ((key >> rest_bits) & 0xFFFF) ^ q->value) +
		pg_popcount64((key & rest_mask) ^ q->rest);
	return d <= q->radius ? 0 : -1;
}

/* Whether any query key was found (found[i] nonzero), or none was asked */
static inline bool
simhash_gin_any_found(int32 nkeys, const char *found)
{
	int			i;

	if (nkeys == 0)
		return true;			/* a whole-index scan: every item */
	for (i = 0; i < nkeys; i++)
		if (found[i])
			return true;
	return false;
}

/*
 * The extra_data of a segment key: its query, the slot of its segment (a
 * set's segments are consecutive slots) and its value's distance from the
 * query's.
 */
typedef struct SimHashGinKey
{
	void	   *q;
	int			slot;
	int			dist;
} SimHashGinKey;

/*
 * The segment classes' lower bound of an item's distance from the query,
 * from which query keys it has (found[i] nonzero: a true bool, or GIN_TRUE
 * or GIN_MAYBE): best[slot] starts at r_i + 1 (no value found) and becomes
 * the distance of the nearest value found.
 */
static inline void
simhash_gin_found_bounds(int32 nkeys, Pointer *extra_data, const char *found,
						 int *best)
{
	int			i;

	/*
	 * An item has few of the query's keys: skip eight absent keys at a time
	 * (false and GIN_FALSE are both zero bytes).
	 */
	for (i = 0; i < nkeys; i++)
	{
		SimHashGinKey *ki;
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
		ki = (SimHashGinKey *) extra_data[i];
		if (ki->dist < best[ki->slot])
			best[ki->slot] = ki->dist;
	}
}

/*
 * The consistent functions of a class from may_match(fcinfo), which reads
 * the arguments the two share (check array 0, query 2, nkeys 3,
 * extra_data 4):
 * P_consistent(internal check, int2 strategy, query, int4 nkeys,
 *		internal extra_data, internal recheck, internal queryKeys,
 *		internal nullFlags): may_match over a bool check array;
 * P_triconsistent(internal check, int2 strategy, query, int4 nkeys,
 *		internal extra_data, internal queryKeys, internal nullFlags): the
 *		same over GIN_TRUE / GIN_FALSE / GIN_MAYBE (GIN_FALSE is a zero
 *		byte like false).
 * Every item is rechecked on the heap: the answer is never GIN_TRUE.
 */
#define SIMHASH_GIN_CONSISTENT(P, may_match) \
PG_FUNCTION_INFO_V1(P##_consistent); \
Datum \
P##_consistent(PG_FUNCTION_ARGS) \
{ \
	*(bool *) PG_GETARG_POINTER(5) = true; \
	PG_RETURN_BOOL(may_match(fcinfo)); \
} \
PG_FUNCTION_INFO_V1(P##_triconsistent); \
Datum \
P##_triconsistent(PG_FUNCTION_ARGS) \
{ \
	StaticAssertStmt(sizeof(GinTernaryValue) == sizeof(bool) && GIN_FALSE == 0, \
					 "check arrays must be bytes with false as zero"); \
	PG_RETURN_GIN_TERNARY_VALUE(may_match(fcinfo) ? GIN_MAYBE : GIN_FALSE); \
}

#endif							/* SIMHASH_GIN_COMMON_H */
