/*
 * simhash.h
 *		Shared definitions of the simhash extension.
 *
 * A simhash is an unsigned 64-bit fingerprint, passed by value.  Bit b is
 * (v >> b) & 1, bit 0 least significant; segment i (i = 0..3) is bits
 * 63-16i .. 48-16i, so segment 0 is the first four hex digits.
 *
 * simhash128 and simhash256 are 2 and 4 such 64-bit words, passed by
 * reference (16 and 32 bytes, double aligned).  Word i is summed from the
 * same features and weights with the feature hash of seed i, so word 0 is
 * the 64-bit fingerprint (doc/contract.md).
 */
#ifndef SIMHASH_H
#define SIMHASH_H

#include "postgres.h"
#include "fmgr.h"
#include "access/attnum.h"
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
#define SIMHASH_MAX_WORDS		4	/* simhash256 */
#define SIMHASH_MAX_BITS		(SIMHASH_BITS * SIMHASH_MAX_WORDS)

/* A wide fingerprint's words, read in place (the Datum is a pointer) */
#define PG_GETARG_SIMHASH_WORDS(n)	((const uint64 *) PG_GETARG_POINTER(n))

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

/*
 * A Hamming ball of a wide fingerprint (radius.c): the radius first, so
 * code that needs only the radius (the GIN consistent functions) reads it
 * at the same place at every width, then the centre's nwords words.  Types
 * simhash128_ball (24 bytes) and simhash256_ball (40 bytes).
 */
typedef struct SimHashWideBall
{
	int32		radius;
	int32		pad;			/* always zero */
	uint64		center[FLEXIBLE_ARRAY_MEMBER];
} SimHashWideBall;

#define SIMHASH_WIDE_BALL_SIZE(nwords) \
	(offsetof(SimHashWideBall, center) + sizeof(uint64) * (nwords))

/* whether the current user may see these columns of any row (trigger.c) */
extern bool simhash_caller_may_read(Oid relid, Oid user, const AttrNumber *atts,
									int natts);

/* the type's I/O functions, called by radius.c */
extern PGDLLEXPORT Datum simhash_in(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_out(PG_FUNCTION_ARGS);

/* P(distance <= k) for two independent uniform fingerprints (support.c) */
extern double simhash_binomial_within(int k);
extern double simhash_binomial_within_bits(int k, int bits);
extern int	simhash_errhint_radius_width(int k, int bits);

/*
 * The binomial coefficient C(n, r), 0 <= n <= 256, as a double (exact up to
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
 * The next larger integer with as many bits set as m (m > 0): Gosper's
 * hack (HAKMEM item 175), to enumerate every segment value at a given
 * distance from the query's.
 */
static inline uint32
simhash_next_combination(uint32 m)
{
	uint32		low = m & -m;
	uint32		ripple = m + low;

	return (((ripple ^ m) >> 2) / low) | ripple;
}

/*
 * The radius of each of nsegments segments of segment_bits bits for a
 * query radius k >= 0 (multi-index hashing, Norouzi et al. 2012): the
 * k + 1 units of sum(r_i + 1) spread evenly, the larger shares first, so
 * that a fingerprint within k of the query is within r_i of it in some
 * segment i.  Returns the number of segment values this looks up.
 */
static inline double
simhash_segment_radii(int32 k, int nsegments, int segment_bits, int *radius)
{
	int64		units = (int64) k + 1;
	double		nkeys = 0;
	int			i;

	for (i = 0; i < nsegments; i++)
	{
		int64		share = units / nsegments + (i < units % nsegments ? 1 : 0);
		int			w;

		radius[i] = (int) Min(share - 1, segment_bits);
		for (w = 0; w <= radius[i]; w++)
			nkeys += simhash_binomial(segment_bits, w); /* values at distance w */
	}
	return nkeys;
}

/*
 * Charikar accumulator: one running sum per bit, in double precision, added
 * in input order, for nwords 64-bit words (1, 2 or 4).  Every entry point
 * builds its fingerprint through this; only the first 64 * nwords sums are
 * used.
 */
typedef struct SimHashAccum
{
	int32		nwords;
	bool		binary;			/* tokenizers: weight 1 per distinct feature */
	int64		nfeatures;
	double		v[SIMHASH_MAX_BITS];
} SimHashAccum;

/* The hash of a feature: XXH3_64bits of its UTF-8 bytes, seed 0 */
static inline uint64
simhash_feature_hash(const char *utf8, size_t len)
{
	return (uint64) XXH3_64bits(utf8, len);
}

/* The hash of a feature for word i of a wide fingerprint: seed i */
static inline uint64
simhash_feature_hash_seed(const void *bytes, size_t len, int i)
{
	return (uint64) XXH3_64bits_withSeed(bytes, len, (XXH64_hash_t) i);
}

/*
 * Union-find over nodes 0..n-1 in parent[] (a root is its own parent), for
 * the clusters of the batch functions and of a pairs query: the root of x,
 * with path halving; and the union of two nodes, the smaller root winning.
 */
static inline uint32
simhash_uf_find(uint32 *parent, uint32 x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static inline void
simhash_uf_union(uint32 *parent, uint32 a, uint32 b)
{
	uint32		ra = simhash_uf_find(parent, a),
				rb = simhash_uf_find(parent, b);

	if (ra != rb)
		parent[Max(ra, rb)] = Min(ra, rb);
}

/* blocks.c: the exact-match blocks of the distributed functions */
extern int	simhash_block_count(int bits, int32 k, const char *fname);
extern int64 simhash_block_key(const uint64 *words, int bits, int m, int i);
extern int	simhash_first_equal_block(const uint64 *a, const uint64 *b,
									  int bits, int m);

/* fingerprint.c */
extern void simhash_accum_init(SimHashAccum *acc);
extern void simhash_accum_init_words(SimHashAccum *acc, int nwords);
extern void simhash_accum_add(SimHashAccum *acc, uint64 h, double w);
extern void simhash_accum_add_bytes(SimHashAccum *acc, uint64 h0,
									const void *bytes, size_t len, double w);
extern SimHash simhash_accum_result(const SimHashAccum *acc);
extern Datum simhash_accum_datum(const SimHashAccum *acc);

/*
 * One fingerprint family at the three widths: fill adds the features of
 * the call's arguments to an accumulator of 1, 2 or 4 words.
 * SIMHASH_WIDTHS(f64, f128, f256, fill) defines the three SQL-callable C
 * functions.
 */
typedef void (*SimHashFill) (FunctionCallInfo fcinfo, SimHashAccum *acc);
extern Datum simhash_fingerprint_of(FunctionCallInfo fcinfo, int nwords,
									SimHashFill fill);

/* A SQL-callable C function sym whose whole body is "return call;" */
#define SIMHASH_FUNC_RETURNING(sym, call) \
PG_FUNCTION_INFO_V1(sym); \
Datum \
sym(PG_FUNCTION_ARGS) \
{ \
	return call; \
}
#define SIMHASH_WIDTH_FUNC_OF(sym, nwords, fill, of) \
	SIMHASH_FUNC_RETURNING(sym, of(fcinfo, nwords, fill))
#define SIMHASH_WIDTHS(f64, f128, f256, fill) \
	SIMHASH_WIDTH_FUNC_OF(f64, 1, fill, simhash_fingerprint_of) \
	SIMHASH_WIDTH_FUNC_OF(f128, 2, fill, simhash_fingerprint_of) \
	SIMHASH_WIDTH_FUNC_OF(f256, 4, fill, simhash_fingerprint_of)

/*
 * The binary-weight variant of a tokenizer family (since 1.10): the same
 * distinct features, each of weight 1 whatever its count, which finds more
 * near-duplicates at scale (doc/minhash.md).
 */
extern Datum simhash_fingerprint_binary_of(FunctionCallInfo fcinfo, int nwords,
										   SimHashFill fill);
#define SIMHASH_BINARY_WIDTHS(f64, f128, f256, fill) \
	SIMHASH_WIDTH_FUNC_OF(f64, 1, fill, simhash_fingerprint_binary_of) \
	SIMHASH_WIDTH_FUNC_OF(f128, 2, fill, simhash_fingerprint_binary_of) \
	SIMHASH_WIDTH_FUNC_OF(f256, 4, fill, simhash_fingerprint_binary_of)
extern double simhash_tf_weight(uint64 tf);
extern void simhash_check_weight(double w);
extern const char *simhash_to_utf8(const char *s, int len, int *outlen);

/* tokenize.c: the distinct features of a fingerprint, for features.c */
typedef void (*SimHashFeatureSink) (void *arg, const char *utf8, Size len,
									uint32 tf);
extern void simhash_set_feature_sink(SimHashFeatureSink sink, void *arg,
									 const char *fname);

/* minhash.c: a signature's size, and the Jaccard estimate of two (also the
 * verification stage of the batch functions) */
#define SIMHASH_MINHASH_BYTES	128
extern double simhash_minhash_similarity(const uint8 *a, const uint8 *b);

/* features.c: a tokenizer run with a sink, for minhash.c too */
extern void simhash_tokenizer_features(FunctionCallInfo fcinfo, PGFunction tokenizer,
									   const char *fname, SimHashFeatureSink sink,
									   void *arg);

#endif							/* SIMHASH_H */
