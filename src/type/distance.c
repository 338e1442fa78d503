/*
 * distance.c
 *		Hamming distance between fingerprints of every width, the radius
 *		test simhash_within, the similarity and the radius of a similarity,
 *		the similarity operator % with its setting
 *		simhash.similarity_threshold, and segment extraction.
 *
 * The popcount is PostgreSQL's pg_popcount64, which picks the CPU's POPCNT
 * instruction at run time where the CPU has it.
 */
#include "simhash.h"

#include <math.h>

#include "utils/guc.h"

#include "similar.h"
#include "words.h"

/*
 * simhash.similarity_threshold: fp % q is simhash_similarity(fp, q) >= this,
 * as pg_trgm's % reads pg_trgm.similarity_threshold.
 */
static double similarity_threshold = SIMHASH_DEFAULT_SIMILARITY;

/* The Hamming distance of the two arguments */
static inline int
distance_args(FunctionCallInfo fcinfo, int nwords)
{
	uint64		a1,
				b1;

	return simhash_words_distance(simhash_arg_words(fcinfo, 0, nwords, &a1),
								  simhash_arg_words(fcinfo, 1, nwords, &b1),
								  nwords);
}

/*
 * hamming_distance(a, b) -> simhash_distance 0..W: the number of differing
 * bits (Charikar 2002).  Immutable, strict, parallel safe, leakproof; never
 * errors.
 */
static inline Datum
distance_hamming_distance(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_INT32(distance_args(fcinfo, nwords));
}

/*
 * hamming_distance_int(a, b) -> integer: the Hamming distance as a plain
 * integer.  It is the GiST ordering operator <#>: ORDER BY fp <-> q is
 * rewritten to it (support.c), because the planner matches an index
 * ordering operator only when the sort expression has the operator's own
 * result type, and <-> returns a domain.
 */
#define distance_hamming_distance_int distance_hamming_distance

/*
 * simhash_within(a, b, k) -> boolean: a <-> b <= k.  The radius query as a
 * function, for ORMs; its planner support function (support.c) lets an
 * index on either argument answer it.
 */
static inline Datum
distance_within(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_BOOL(distance_args(fcinfo, nwords) <= PG_GETARG_INT32(2));
}

/*
 * cos(pi * d / bits): Charikar's estimate of the cosine similarity of the
 * two weighted feature vectors, since a bit differs with probability
 * angle / pi.  Computed exactly so (not as an equal sine), so that a
 * client calling the C library's cos (Python) gets the same double; V8's
 * Math.cos differs in the last place at a few distances, so the Node
 * client carries this function's values in a table.
 */
static inline double
similarity_of(int d, int bits)
{
	return cos(M_PI * (double) d / (double) bits);
}

/* simhash_similarity(a, b) -> double precision, as above */
static inline Datum
distance_similarity(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_FLOAT8(similarity_of(distance_args(fcinfo, nwords),
								   SIMHASH_BITS * nwords));
}

#define DISTANCE_FUNCS(P, N) \
	SIMHASH_ENTRY(P, N, distance, hamming_distance) SIMHASH_ENTRY(P, N, distance, hamming_distance_int) \
	SIMHASH_ENTRY(P, N, distance, within) SIMHASH_ENTRY(P, N, distance, similarity)

SIMHASH_EACH_WIDTH(DISTANCE_FUNCS)

/*
 * simhash_radius(similarity double precision, bits integer) -> integer
 *		The largest k in 0..bits whose similarity_of(k, bits) is at least
 *		similarity, so that fp <-> q <= simhash_radius(s, W) is
 *		simhash_similarity(fp, q) >= s, in the form an index answers.
 *		similarity must be in -1..1 and bits 64, 128 or 256 (errors:
 *		doc/simhash.md).
 */
static int
radius_of_similarity(double s, int bits)
{
	int			k;

	/* similarity_of falls as k grows: the last k that keeps s */
	for (k = 0; k < bits && similarity_of(k + 1, bits) >= s; k++)
		;
	return k;
}

/* 22023 unless bits is a width */
static void
check_width_bits(int32 bits)
{
	if (bits != 64 && bits != 128 && bits != 256)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fingerprint width %d is not supported", bits),
				 errdetail("The widths are 64, 128 and 256 bits.")));
}

PG_FUNCTION_INFO_V1(simhash_radius);
Datum
simhash_radius(PG_FUNCTION_ARGS)
{
	double		s = PG_GETARG_FLOAT8(0);
	int32		bits = PG_GETARG_INT32(1);

	check_width_bits(bits);
	if (!(s >= -1.0 && s <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity %g is out of range", s),
				 errdetail("A similarity is between -1 and 1.")));
	PG_RETURN_INT32(radius_of_similarity(s, bits));
}

/* ---------- the similarity operator ---------- */

/*
 * The radius simhash.similarity_threshold means at a width of nwords
 * words, kept until the setting changes (the operator asks once a row).
 */
static int
threshold_radius(int nwords)
{
	static double cached_threshold = -2.0;
	static int	cached_radius[SIMHASH_MAX_WORDS + 1];

	if (cached_threshold != similarity_threshold)
	{
		int			n;

		for (n = 1; n <= SIMHASH_MAX_WORDS; n *= 2)
			cached_radius[n] = radius_of_similarity(similarity_threshold,
													SIMHASH_BITS * n);
		cached_threshold = similarity_threshold;
	}
	return cached_radius[nwords];
}

/*
 * simhash_similarity_radius(bits integer) -> integer
 *		The radius of simhash.similarity_threshold at this width:
 *		simhash_radius(current_setting, bits).  Stable: what fp % q becomes
 *		(support.c), so that a kept plan reads the setting when it runs.
 */
PG_FUNCTION_INFO_V1(simhash_similarity_radius);
Datum
simhash_similarity_radius(PG_FUNCTION_ARGS)
{
	int32		bits = PG_GETARG_INT32(0);

	check_width_bits(bits);
	PG_RETURN_INT32(threshold_radius(bits / SIMHASH_BITS));
}

/*
 * fp % q -> boolean: simhash_similarity(fp, q) >=
 * simhash.similarity_threshold, which is fp <-> q <= the threshold's
 * radius.  Stable (it reads the setting); never errors.
 */
static inline Datum
distance_similar(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_BOOL(distance_args(fcinfo, nwords) <= threshold_radius(nwords));
}

#define SIMILAR_FUNCS(P, N) SIMHASH_ENTRY(P, N, distance, similar)

SIMHASH_EACH_WIDTH(SIMILAR_FUNCS)

/* Define simhash.similarity_threshold (from _PG_init) */
void
simhash_similarity_define_guc(void)
{
	DefineCustomRealVariable("simhash.similarity_threshold",
							 "The least simhash_similarity of two fingerprints that the % operator accepts.",
							 "fp % q is simhash_similarity(fp, q) >= this: fp <-> q <= simhash_radius(this, width).",
							 &similarity_threshold,
							 SIMHASH_DEFAULT_SIMILARITY, 0.0, 1.0,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/*
 * simhash_segment(fp simhash, i integer) -> integer 0..65535
 *		16-bit segment i (0..3), segment 0 being the most significant (the
 *		first four hex digits).  i outside 0..3 is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_segment);
Datum
simhash_segment(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	int32		i = PG_GETARG_INT32(1);

	if (i < 0 || i > 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("segment number %d is out of range", i),
				 errdetail("A simhash has segments 0 to 3.")));
	PG_RETURN_INT32((int32) ((v >> (48 - 16 * i)) & 0xFFFF));
}
