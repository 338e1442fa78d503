/*
 * aggregates.c
 *		Transition functions of min, max, bit_or and bit_and over the
 *		fingerprints of every width.
 *
 * min and max follow the type's B-tree order (word 0 first, each word an
 * unsigned value); bit_or and bit_and combine fingerprints bit by bit, as
 * the integer aggregates of the same names do.  All are strict, so the
 * aggregates skip NULLs and give NULL over no rows; each is its own combine
 * function.  Immutable, strict, parallel safe; never error.
 */
#include "simhash.h"

#include "words.h"

/*
 * smaller(a, b) with sign 1, larger(a, b) with sign -1: a when a and b are
 * equal
 */
static inline Datum
agg_pick(FunctionCallInfo fcinfo, int nwords, int sign)
{
	uint64		a1,
				b1;
	int			c = simhash_words_cmp(simhash_arg_words(fcinfo, 0, nwords, &a1),
									  simhash_arg_words(fcinfo, 1, nwords, &b1),
									  nwords);

	return sign * c <= 0 ? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1);
}

static inline Datum
agg_smaller(FunctionCallInfo fcinfo, int nwords)
{
	return agg_pick(fcinfo, nwords, 1);
}

static inline Datum
agg_larger(FunctionCallInfo fcinfo, int nwords)
{
	return agg_pick(fcinfo, nwords, -1);
}

/* or(a, b), and(a, b): bitwise */
static inline Datum
agg_bitop(FunctionCallInfo fcinfo, int nwords, bool or)
{
	uint64		a1,
				b1,
				one;
	const uint64 *a = simhash_arg_words(fcinfo, 0, nwords, &a1);
	const uint64 *b = simhash_arg_words(fcinfo, 1, nwords, &b1);
	uint64	   *w = simhash_new_words(nwords, &one);
	int			i;

	for (i = 0; i < nwords; i++)
		w[i] = or ? (a[i] | b[i]) : (a[i] & b[i]);
	return simhash_words_datum(w, nwords);
}

static inline Datum
agg_or(FunctionCallInfo fcinfo, int nwords)
{
	return agg_bitop(fcinfo, nwords, true);
}

static inline Datum
agg_and(FunctionCallInfo fcinfo, int nwords)
{
	return agg_bitop(fcinfo, nwords, false);
}

#define AGG_FUNCS(P, N) \
	SIMHASH_ENTRY(P, N, agg, smaller) SIMHASH_ENTRY(P, N, agg, larger) \
	SIMHASH_ENTRY(P, N, agg, or) SIMHASH_ENTRY(P, N, agg, and)

SIMHASH_EACH_WIDTH(AGG_FUNCS)
