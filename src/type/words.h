/*
 * words.h
 *		A fingerprint of any width as nwords 64-bit words (1, 2 or 4), for
 *		the code that is the same at every width: the type's functions, the
 *		balls, and the GIN and GiST support.
 *
 * The 64-bit simhash is passed by value (the Datum holds the word) and the
 * wide ones by reference (the Datum points to the words): the helpers here
 * read and return either as words, so that one body serves every width.
 * Callers pass nwords as a constant of a thin per-width entry point, so the
 * inline per-word loops below compile to straight code at each width.
 */
#ifndef SIMHASH_WORDS_H
#define SIMHASH_WORDS_H

#include "simhash.h"

#include "port/pg_bitutils.h"
#include "utils/sortsupport.h"

/*
 * SIMHASH_EACH_WIDTH(DEF) applies DEF(P, N) at the three widths: P starts
 * the C names of the width's SQL functions (simhash_in, simhash128_in,
 * simhash256_in), N is its number of words.  SIMHASH_ENTRY(P, N, body, f)
 * defines the entry point P_f, which calls body_f(fcinfo, N).
 */
#define SIMHASH_EACH_WIDTH(DEF) \
	DEF(simhash, 1) \
	DEF(simhash128, 2) \
	DEF(simhash256, 4)

/* The same at the wide widths only */
#define SIMHASH_EACH_WIDE_WIDTH(DEF) \
	DEF(simhash128, 2) \
	DEF(simhash256, 4)

#define SIMHASH_ENTRY(P, N, body, f) \
PG_FUNCTION_INFO_V1(P##_##f); \
Datum \
P##_##f(PG_FUNCTION_ARGS) \
{ \
	return body##_##f(fcinfo, N); \
}

/* The SQL name of the type of a width */
static inline const char *
simhash_type_name(int nwords)
{
	return nwords == 1 ? "simhash" : nwords == 2 ? "simhash128" : "simhash256";
}

/*
 * The words of a fingerprint Datum: the 64-bit Datum's one word copied
 * into one, the words of a wide fingerprint in place.
 */
static inline const uint64 *
simhash_datum_words(Datum d, int nwords, uint64 *one)
{
	if (nwords == 1)
	{
		*one = DatumGetSimHash(d);
		return one;
	}
	return (const uint64 *) DatumGetPointer(d);
}

/* The words of argument n */
static inline const uint64 *
simhash_arg_words(FunctionCallInfo fcinfo, int n, int nwords, uint64 *one)
{
	return simhash_datum_words(PG_GETARG_DATUM(n), nwords, one);
}

/* Room for a result's words: one for the 64-bit type, else palloc'd */
static inline uint64 *
simhash_new_words(int nwords, uint64 *one)
{
	return nwords == 1 ? one : (uint64 *) palloc(sizeof(uint64) * nwords);
}

/* The Datum of a result made in simhash_new_words's room */
static inline Datum
simhash_words_datum(const uint64 *w, int nwords)
{
	return nwords == 1 ? SimHashGetDatum(w[0]) : PointerGetDatum(w);
}

/* The number of differing bits of two fingerprints */
static inline int
simhash_words_distance(const uint64 *a, const uint64 *b, int nwords)
{
	int			d = 0;
	int			i;

	for (i = 0; i < nwords; i++)
		d += pg_popcount64(a[i] ^ b[i]);
	return d;
}

/* The B-tree order: word 0 first, each word as an unsigned value */
static inline int
simhash_words_cmp(const uint64 *a, const uint64 *b, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/*
 * Sort support comparators of Datums pointing to words in the B-tree order
 * (wide fingerprints, and GiST keys, which start with such words).
 */
#define SIMHASH_WORDS_SSUP_CMP(nwords) \
static inline int \
simhash_words_ssup_cmp_##nwords(Datum a, Datum b, SortSupport ssup) \
{ \
	return simhash_words_cmp((const uint64 *) DatumGetPointer(a), \
							 (const uint64 *) DatumGetPointer(b), nwords); \
}
SIMHASH_WORDS_SSUP_CMP(1)
SIMHASH_WORDS_SSUP_CMP(2)
SIMHASH_WORDS_SSUP_CMP(4)

typedef int (*SimHashSsupCmp) (Datum a, Datum b, SortSupport ssup);

static inline SimHashSsupCmp
simhash_words_comparator(int nwords)
{
	return nwords == 1 ? simhash_words_ssup_cmp_1 :
		nwords == 2 ? simhash_words_ssup_cmp_2 : simhash_words_ssup_cmp_4;
}

/* The value of a hex digit of either case, -1 for another character */
static inline int
simhash_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * The text form of the words into s (16 * nwords + 1 bytes): each word as
 * 16 lower-case hex digits, most significant first, word 0 first
 */
static inline void
simhash_words_hex(char *s, const uint64 *w, int nwords)
{
	static const char hexdigits[] = "0123456789abcdef";
	int			i,
				j;

	for (i = 0; i < nwords; i++)
	{
		uint64		v = w[i];

		for (j = 15; j >= 0; j--)
		{
			s[16 * i + j] = hexdigits[v & 0xF];
			v >>= 4;
		}
	}
	s[16 * nwords] = '\0';
}

/*
 * A ball of a width: a new one (zeroed), its centre and its radius.  The
 * 64-bit simhash_ball stores the centre first (SimHashBall), the wide balls
 * the radius first (SimHashWideBall): both layouts are the types' stored
 * form, so each is kept.
 */
static inline void *
simhash_ball_new(int nwords)
{
	return palloc0(nwords == 1 ? sizeof(SimHashBall) :
				   SIMHASH_WIDE_BALL_SIZE(nwords));
}

static inline uint64 *
simhash_ball_center(void *ball, int nwords)
{
	if (nwords == 1)
		return &((SimHashBall *) ball)->center;
	return ((SimHashWideBall *) ball)->center;
}

static inline int32 *
simhash_ball_radius(void *ball, int nwords)
{
	if (nwords == 1)
		return &((SimHashBall *) ball)->radius;
	return &((SimHashWideBall *) ball)->radius;
}

#endif							/* SIMHASH_WORDS_H */
