/*
 * radius.c
 *		Radius search: the ball types simhash_ball, simhash128_ball and
 *		simhash256_ball, simhash_ball(fp, k) and fp <@ ball / ball @> fp
 *		(simhash_within is in distance.c); the chance of a radius.
 *
 * A ball is a centre fingerprint and a radius; fp <@ ball is true when fp
 * is within the radius in Hamming distance.  It is the operator the index
 * operator classes answer (strategy 1); the planner support functions
 * (support.c) rewrite the natural forms (fp <-> $1 <= k, simhash_within)
 * into it.
 *
 * Text form '(16, 32 or 64 hex digits,radius)', as the fingerprint's text
 * form; binary form: the centre as the fingerprint's binary form, then the
 * radius as a 4-byte integer.  Every function has one body for all widths,
 * called by a thin entry point per width (words.h).
 */
#include "simhash.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "utils/builtins.h"

#include "words.h"

/*
 * ball_in(cstring): '(16 * nwords hex digits,radius)', the digits in
 * either case, the radius any integer (negative radii contain nothing,
 * radii of the width and more everything).  Anything else is 22P02.
 */
static inline Datum
ball_in(FunctionCallInfo fcinfo, int nwords)
{
	char	   *s = PG_GETARG_CSTRING(0);
	void	   *b = simhash_ball_new(nwords);
	uint64	   *center = simhash_ball_center(b, nwords);
	int			ndigits = 16 * nwords;
	long		r;
	char	   *end;
	int			i;

	if (nwords == 1)
	{
		/*
		 * The 64-bit ball reads its centre with simhash_in, so a centre of
		 * 16 characters that are not all hex digits gets simhash_in's error.
		 */
		char		hex[17];

		if (strlen(s) < 20 || s[0] != '(' || s[17] != ',')
			goto bad;
		memcpy(hex, s + 1, 16);
		hex[16] = '\0';
		*center = DatumGetSimHash(DirectFunctionCall1(simhash_in,
													  CStringGetDatum(hex)));
	}
	else
	{
		if (s[0] != '(')
			goto bad;
		for (i = 0; i < ndigits; i++)
		{
			int			d = simhash_hexval(s[1 + i]);

			if (d < 0)
				goto bad;
			center[i / 16] = (center[i / 16] << 4) | (uint64) d;
		}
		if (s[1 + ndigits] != ',')
			goto bad;
	}
	errno = 0;
	r = strtol(s + 2 + ndigits, &end, 10);
	if (end == s + 2 + ndigits || errno != 0 || r < PG_INT32_MIN ||
		r > PG_INT32_MAX || strcmp(end, ")") != 0)
		goto bad;
	*simhash_ball_radius(b, nwords) = (int32) r;
	PG_RETURN_POINTER(b);

bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"",
					psprintf("%s_ball", simhash_type_name(nwords)), s),
			 errdetail("A %s_ball is written (%d hexadecimal digits,radius).",
					   simhash_type_name(nwords), ndigits)));
	PG_RETURN_NULL();
}

/* ball_out: '(hex digits,radius)', the digits in lower case */
static inline Datum
ball_out(FunctionCallInfo fcinfo, int nwords)
{
	void	   *b = PG_GETARG_POINTER(0);
	char		hex[16 * SIMHASH_MAX_WORDS + 1];

	simhash_words_hex(hex, simhash_ball_center(b, nwords), nwords);
	PG_RETURN_CSTRING(psprintf("(%s,%d)", hex, *simhash_ball_radius(b, nwords)));
}

/* binary: the centre's words, big-endian, word 0 first, then the radius */
static inline Datum
ball_recv(FunctionCallInfo fcinfo, int nwords)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	void	   *b = simhash_ball_new(nwords);
	uint64	   *center = simhash_ball_center(b, nwords);
	int			i;

	for (i = 0; i < nwords; i++)
		center[i] = (uint64) pq_getmsgint64(buf);
	*simhash_ball_radius(b, nwords) = pq_getmsgint(buf, 4);
	PG_RETURN_POINTER(b);
}

static inline Datum
ball_send(FunctionCallInfo fcinfo, int nwords)
{
	void	   *b = PG_GETARG_POINTER(0);
	const uint64 *center = simhash_ball_center(b, nwords);
	StringInfoData buf;
	int			i;

	pq_begintypsend(&buf);
	for (i = 0; i < nwords; i++)
		pq_sendint64(&buf, (int64) center[i]);
	pq_sendint32(&buf, *simhash_ball_radius(b, nwords));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* simhash_ball(center, radius integer) -> ball: never errors */
static inline Datum
make_ball(FunctionCallInfo fcinfo, int nwords)
{
	void	   *b = simhash_ball_new(nwords);
	uint64		one;

	memcpy(simhash_ball_center(b, nwords),
		   simhash_arg_words(fcinfo, 0, nwords, &one), sizeof(uint64) * nwords);
	*simhash_ball_radius(b, nwords) = PG_GETARG_INT32(1);
	PG_RETURN_POINTER(b);
}

/* Within the ball: the distance from fp to the centre is at most the radius */
static inline bool
in_ball(FunctionCallInfo fcinfo, int fparg, int ballarg, int nwords)
{
	void	   *b = PG_GETARG_POINTER(ballarg);
	uint64		one;

	return simhash_words_distance(simhash_arg_words(fcinfo, fparg, nwords, &one),
								  simhash_ball_center(b, nwords), nwords) <=
		*simhash_ball_radius(b, nwords);
}

/*
 * fp <@ ball and ball @> fp, its commutator: immutable, strict, parallel
 * safe and leakproof; never error.
 */
static inline Datum
fp_in_ball(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_BOOL(in_ball(fcinfo, 0, 1, nwords));
}

static inline Datum
ball_contains(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_BOOL(in_ball(fcinfo, 1, 0, nwords));
}

#define BALL_FUNCS(P, N) \
	SIMHASH_ENTRY(P##_ball, N, ball, in) SIMHASH_ENTRY(P##_ball, N, ball, out) \
	SIMHASH_ENTRY(P##_ball, N, ball, recv) SIMHASH_ENTRY(P##_ball, N, ball, send) \
	SIMHASH_ENTRY(P, N, make, ball) SIMHASH_ENTRY(P, N, fp, in_ball) \
	SIMHASH_ENTRY(P##_ball, N, ball, contains)

SIMHASH_EACH_WIDTH(BALL_FUNCS)

/*
 * Comparisons of a simhash_distance with an integer.  They exist so that
 * the parser picks them (an exact match on the domain) for fp <-> q <= k,
 * which lets their support function rewrite the clause into
 * simhash_within(); they compare as integers do.
 */
#define DIST_CMP_FUNC(name, op) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(PG_GETARG_INT32(0) op PG_GETARG_INT32(1)); \
}

DIST_CMP_FUNC(simhash_distance_lt, <)
DIST_CMP_FUNC(simhash_distance_le, <=)
DIST_CMP_FUNC(simhash_distance_eq, ==)
DIST_CMP_FUNC(simhash_distance_ne, !=)
DIST_CMP_FUNC(simhash_distance_ge, >=)
DIST_CMP_FUNC(simhash_distance_gt, >)

/*
 * The same with a smallint or bigint on either side: drivers bind small
 * integers as int2 (psycopg) or int8 (JDBC setLong), and without these the
 * parser would pick PostgreSQL's int4-int2 or int4-int8 comparisons, which
 * no index can answer.
 */
#define DIST_CMP_FUNC_T(name, op, get0, get1) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL((int64) get0(0) op (int64) get1(1)); \
}

#define DIST_CMP_FUNCS(cmp, op) \
DIST_CMP_FUNC_T(simhash_distance_##cmp##_int2, op, PG_GETARG_INT32, PG_GETARG_INT16) \
DIST_CMP_FUNC_T(simhash_int2_##cmp##_distance, op, PG_GETARG_INT16, PG_GETARG_INT32) \
DIST_CMP_FUNC_T(simhash_distance_##cmp##_int8, op, PG_GETARG_INT32, PG_GETARG_INT64) \
DIST_CMP_FUNC_T(simhash_int8_##cmp##_distance, op, PG_GETARG_INT64, PG_GETARG_INT32)

DIST_CMP_FUNCS(lt, <)
DIST_CMP_FUNCS(le, <=)
DIST_CMP_FUNCS(eq, ==)
DIST_CMP_FUNCS(ne, !=)
DIST_CMP_FUNCS(ge, >=)
DIST_CMP_FUNCS(gt, >)

/* ---------- the chance of a radius, and its hint ---------- */

/* The widths, as numbers of 64-bit words: simhash, simhash128, simhash256 */
#define NWIDTHS 3
static const int width_words[NWIDTHS] = {1, 2, 4};

static int
width_index(int bits)
{
	return bits <= 64 ? 0 : bits <= 128 ? 1 : 2;
}

/*
 * P(distance <= k) for two independent uniform fingerprints of bits bits
 * (64, 128 or 256): the binomial distribution with n = bits, p = 1/2.
 */
double
simhash_binomial_within_bits(int k, int bits)
{
	static double cdf[NWIDTHS][SIMHASH_MAX_BITS + 1];
	static bool ready[NWIDTHS];
	int			w = width_index(bits);

	bits = SIMHASH_BITS * width_words[w];
	if (!ready[w])
	{
		double		sum = 0.0;
		int			i;

		for (i = 0; i <= bits; i++)
		{
			sum += simhash_binomial(bits, i);
			cdf[w][i] = ldexp(sum, -bits);
		}
		ready[w] = true;
	}
	if (k < 0)
		return 0.0;
	if (k >= bits)
		return 1.0;
	return cdf[w][k];
}

/*
 * errhint() for a radius k given at a width of bits: radii scale with the
 * width, and the radius people bring is usually a 256-bit one (the width
 * the README recommends for text), so name what it is at this width.
 */
int
simhash_errhint_radius_width(int k, int bits)
{
	if (k < 0 || k > SIMHASH_MAX_BITS)
		return 0;				/* no width's radius: nothing to scale */
	if (bits < SIMHASH_MAX_BITS)
		return errhint("A radius is a share of the width: %d of %d bits is about %d of %d (simhash_radius(similarity, %d) gives the radius of a similarity).",
					   k, SIMHASH_MAX_BITS, k * bits / SIMHASH_MAX_BITS, bits, bits);
	return errhint("simhash_radius(similarity, %d) gives the radius of a similarity.", bits);
}

/* The same for 64-bit fingerprints */
double
simhash_binomial_within(int k)
{
	return simhash_binomial_within_bits(k, SIMHASH_BITS);
}
