/*
 * radius.c
 *		Radius search: the simhash_ball type, fp <@ ball, and
 *		simhash_within(a, b, k).
 *
 * A ball is a centre fingerprint and a radius; fp <@ ball is true when fp
 * is within the radius in Hamming distance.  It is the operator the index
 * operator classes answer; the planner support functions (support.c)
 * rewrite the natural forms (fp <-> $1 <= k, simhash_within) into it.
 */
#include "simhash.h"

#include <math.h>

#include "libpq/pqformat.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"

/*
 * simhash_ball_in(cstring): '(16 hex digits,radius)'.  A malformed text is
 * 22P02; the radius must be an integer (any value: negative radii contain
 * nothing, radii of 64 and more contain everything).
 */
PG_FUNCTION_INFO_V1(simhash_ball_in);
Datum
simhash_ball_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	SimHashBall *b = palloc0(sizeof(SimHashBall));
	char		hex[17];
	long		r;
	char	   *end;

	if (strlen(s) < 20 || s[0] != '(' || s[17] != ',')
		goto bad;
	memcpy(hex, s + 1, 16);
	hex[16] = '\0';
	b->center = DatumGetSimHash(DirectFunctionCall1(simhash_in,
													CStringGetDatum(hex)));
	errno = 0;
	r = strtol(s + 18, &end, 10);
	if (end == s + 18 || errno != 0 || r < PG_INT32_MIN || r > PG_INT32_MAX ||
		strcmp(end, ")") != 0)
		goto bad;
	b->radius = (int32) r;
	PG_RETURN_POINTER(b);

bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"",
					"simhash_ball", s),
			 errdetail("A simhash_ball is written (16 hexadecimal digits,radius).")));
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(simhash_ball_out);
Datum
simhash_ball_out(PG_FUNCTION_ARGS)
{
	SimHashBall *b = (SimHashBall *) PG_GETARG_POINTER(0);
	char	   *c = DatumGetCString(DirectFunctionCall1(simhash_out,
														SimHashGetDatum(b->center)));

	PG_RETURN_CSTRING(psprintf("(%s,%d)", c, b->radius));
}

PG_FUNCTION_INFO_V1(simhash_ball_recv);
Datum
simhash_ball_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	SimHashBall *b = palloc0(sizeof(SimHashBall));

	b->center = (SimHash) pq_getmsgint64(buf);
	b->radius = pq_getmsgint(buf, 4);
	PG_RETURN_POINTER(b);
}

PG_FUNCTION_INFO_V1(simhash_ball_send);
Datum
simhash_ball_send(PG_FUNCTION_ARGS)
{
	SimHashBall *b = (SimHashBall *) PG_GETARG_POINTER(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, (int64) b->center);
	pq_sendint32(&buf, b->radius);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * simhash_ball(center simhash, radius integer) -> simhash_ball
 *		Immutable, strict, parallel safe; never errors.
 */
PG_FUNCTION_INFO_V1(simhash_ball);
Datum
simhash_ball(PG_FUNCTION_ARGS)
{
	SimHashBall *b = palloc0(sizeof(SimHashBall));

	b->center = PG_GETARG_SIMHASH(0);
	b->radius = PG_GETARG_INT32(1);
	PG_RETURN_POINTER(b);
}

/*
 * fp <@ ball -> boolean: Hamming distance from fp to the centre <= radius.
 * Immutable, strict, parallel safe, leakproof.
 */
PG_FUNCTION_INFO_V1(simhash_in_ball);
Datum
simhash_in_ball(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	SimHashBall *b = (SimHashBall *) PG_GETARG_POINTER(1);

	PG_RETURN_BOOL(pg_popcount64(v ^ b->center) <= b->radius);
}

/* ball @> fp: the commutator of <@ */
PG_FUNCTION_INFO_V1(simhash_ball_contains);
Datum
simhash_ball_contains(PG_FUNCTION_ARGS)
{
	SimHashBall *b = (SimHashBall *) PG_GETARG_POINTER(0);
	SimHash		v = PG_GETARG_SIMHASH(1);

	PG_RETURN_BOOL(pg_popcount64(v ^ b->center) <= b->radius);
}

/*
 * simhash_within(a simhash, b simhash, k integer) -> boolean
 *		a <-> b <= k.  The radius query as a function, for ORMs; its
 *		planner support function (support.c) lets an index on either
 *		argument answer it.  Immutable, strict, parallel safe, leakproof.
 */
PG_FUNCTION_INFO_V1(simhash_within);
Datum
simhash_within(PG_FUNCTION_ARGS)
{
	SimHash		a = PG_GETARG_SIMHASH(0);
	SimHash		b = PG_GETARG_SIMHASH(1);

	PG_RETURN_BOOL(pg_popcount64(a ^ b) <= PG_GETARG_INT32(2));
}

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
