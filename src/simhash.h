/*
 * simhash.h
 *		Shared definitions of the simhash extension.
 *
 * A simhash is an unsigned 64-bit fingerprint, passed by value.  Bit b is
 * (v >> b) & 1, bit 0 least significant; segment i (i = 0..3) is bits
 * 63-16i .. 48-16i, so segment 0 is the first four hex digits.
 */
#ifndef SIMHASH_H
#define SIMHASH_H

#include "postgres.h"
#include "fmgr.h"
#include "compat.h"

/* xxHash from libxxhash-dev, compiled in so the hot loop can inline it */
#define XXH_INLINE_ALL
#include <xxhash.h>

#if SIZEOF_DATUM < 8
#error "simhash needs a 64-bit platform (the type is passed by value)"
#endif

typedef uint64 SimHash;

#define DatumGetSimHash(X)		((SimHash) DatumGetInt64(X))
#define SimHashGetDatum(X)		Int64GetDatum((int64) (X))
#define PG_GETARG_SIMHASH(n)	DatumGetSimHash(PG_GETARG_DATUM(n))
#define PG_RETURN_SIMHASH(x)	return SimHashGetDatum(x)

#define SIMHASH_BITS			64

/* Strategy numbers of the operator classes (sql/simhash.sql) */
#define SIMHASH_WITHIN_STRATEGY		1	/* fp <@ simhash_ball: GIN and GiST */
#define SIMHASH_DISTANCE_STRATEGY	15	/* fp <#> q: GiST ordering */

/* A Hamming ball: every fingerprint within radius of center (radius.c) */
typedef struct SimHashBall
{
	SimHash		center;
	int32		radius;
	int32		pad;			/* always zero */
} SimHashBall;

/* the type's I/O functions, called by radius.c */
extern PGDLLEXPORT Datum simhash_in(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_out(PG_FUNCTION_ARGS);

/* P(distance <= k) for two independent uniform 64-bit fingerprints */
extern double simhash_binomial_within(int k);

/*
 * The binomial coefficient C(n, r), 0 <= n <= 64, as a double (exact up to
 * 2^53): the number of r-bit patterns among n bits, for counting query keys
 * and table passes and for the distance distribution.
 */
static inline double
simhash_binomial(int n, int r)
{
	double		c = 1.0;
	int			i;

	if (r < 0 || r > n)
		return 0.0;
	for (i = 0; i < r; i++)
		c = c * (n - i) / (i + 1);
	return c;
}

/*
 * Charikar accumulator: one running sum per bit, in double precision, added
 * in input order.  Every entry point builds its fingerprint through this.
 */
typedef struct SimHashAccum
{
	double		v[SIMHASH_BITS];
	int64		nfeatures;
} SimHashAccum;

/* The hash of a feature: XXH3_64bits of its UTF-8 bytes, seed 0 */
static inline uint64
simhash_feature_hash(const char *utf8, size_t len)
{
	return (uint64) XXH3_64bits(utf8, len);
}

/* fingerprint.c */
extern void simhash_accum_init(SimHashAccum *acc);
extern void simhash_accum_add(SimHashAccum *acc, uint64 h, double w);
extern SimHash simhash_accum_result(const SimHashAccum *acc);
extern double simhash_tf_weight(uint64 tf);
extern void simhash_check_weight(double w);
extern const char *simhash_to_utf8(const char *s, int len, int *outlen);

/* tokenize.c: the distinct features of a fingerprint, for features.c */
typedef void (*SimHashFeatureSink) (void *arg, const char *utf8, Size len,
									uint32 tf);
extern void simhash_set_feature_sink(SimHashFeatureSink sink, void *arg,
									 const char *fname);

#endif							/* SIMHASH_H */
