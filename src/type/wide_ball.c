/*
 * wide_ball.c
 *		Radius search at 128 and 256 bits: the types simhash128_ball and
 *		simhash256_ball, simhash_ball(fp, k) and fp <@ ball / ball @> fp.
 *
 * The same as radius.c's simhash_ball for a wide centre: every fingerprint
 * of the width within the radius of the centre in Hamming distance.  The
 * ball is the argument of the GIN and GiST operator classes' strategy 1;
 * the planner support functions (support.c) rewrite fp <-> q <= k and
 * simhash_within(fp, q, k) into fp <@ simhash_ball(q, k) for an index.
 *
 * Text form '(32 or 64 hex digits,radius)', as the fingerprint's text form;
 * binary form: the centre as the fingerprint's binary form, then the radius
 * as a 4-byte integer.  Every function exists once per width, as a thin
 * entry point that passes the number of words.
 */
#include "simhash.h"

#include "libpq/pqformat.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"

static inline const char *
ball_type_name(int nwords)
{
	return nwords == 2 ? "simhash128_ball" : "simhash256_ball";
}

static inline SimHashWideBall *
new_ball(int nwords)
{
	return (SimHashWideBall *) palloc0(SIMHASH_WIDE_BALL_SIZE(nwords));
}

static inline int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Within the ball: the distance from fp to the centre is at most the radius */
static inline bool
in_ball(const uint64 *fp, const SimHashWideBall *b, int nwords)
{
	int			d = 0;
	int			i;

	for (i = 0; i < nwords; i++)
		d += pg_popcount64(fp[i] ^ b->center[i]);
	return d <= b->radius;
}

/*
 * simhashW_ball_in(cstring): '(16 * nwords hex digits,radius)', the digits
 * in either case, the radius any integer (negative radii contain nothing,
 * radii of W and more everything).  Anything else is 22P02.
 */
static Datum
wide_ball_in(const char *s, int nwords)
{
	SimHashWideBall *b = new_ball(nwords);
	int			ndigits = 16 * nwords;
	long		r;
	char	   *end;
	int			i;

	if (s[0] != '(')
		goto bad;
	for (i = 0; i < ndigits; i++)
	{
		int			d = hexval(s[1 + i]);

		if (d < 0)
			goto bad;
		b->center[i / 16] = (b->center[i / 16] << 4) | (uint64) d;
	}
	if (s[1 + ndigits] != ',')
		goto bad;
	errno = 0;
	r = strtol(s + 2 + ndigits, &end, 10);
	if (end == s + 2 + ndigits || errno != 0 || r < PG_INT32_MIN ||
		r > PG_INT32_MAX || strcmp(end, ")") != 0)
		goto bad;
	b->radius = (int32) r;
	return PointerGetDatum(b);

bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"",
					ball_type_name(nwords), s),
			 errdetail("A %s is written (%d hexadecimal digits,radius).",
					   ball_type_name(nwords), ndigits)));
	return (Datum) 0;
}

/* simhashW_ball_out: '(hex digits,radius)', the digits in lower case */
static Datum
wide_ball_out(const SimHashWideBall *b, int nwords)
{
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '(');
	for (i = 0; i < nwords; i++)
		appendStringInfo(&buf, "%016llx", (unsigned long long) b->center[i]);
	appendStringInfo(&buf, ",%d)", b->radius);
	return CStringGetDatum(buf.data);
}

/* binary: the centre's words, big-endian, word 0 first, then the radius */
static Datum
wide_ball_recv(StringInfo buf, int nwords)
{
	SimHashWideBall *b = new_ball(nwords);
	int			i;

	for (i = 0; i < nwords; i++)
		b->center[i] = (uint64) pq_getmsgint64(buf);
	b->radius = pq_getmsgint(buf, 4);
	return PointerGetDatum(b);
}

static Datum
wide_ball_send(const SimHashWideBall *b, int nwords)
{
	StringInfoData buf;
	int			i;

	pq_begintypsend(&buf);
	for (i = 0; i < nwords; i++)
		pq_sendint64(&buf, (int64) b->center[i]);
	pq_sendint32(&buf, b->radius);
	return PointerGetDatum(pq_endtypsend(&buf));
}

/* simhash_ball(center simhashW, radius integer): never errors */
static Datum
wide_ball_make(const uint64 *center, int32 radius, int nwords)
{
	SimHashWideBall *b = new_ball(nwords);

	memcpy(b->center, center, sizeof(uint64) * nwords);
	b->radius = radius;
	return PointerGetDatum(b);
}

/*
 * The entry points of each width.  simhash_in_ball (fp <@ ball) and
 * simhash_ball_contains (ball @> fp, its commutator) are immutable,
 * strict, parallel safe and leakproof, and never error.
 */
#define WIDE_BALL(W, N) \
PG_FUNCTION_INFO_V1(simhash##W##_ball_in); \
Datum simhash##W##_ball_in(PG_FUNCTION_ARGS) \
{ return wide_ball_in(PG_GETARG_CSTRING(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_ball_out); \
Datum simhash##W##_ball_out(PG_FUNCTION_ARGS) \
{ return wide_ball_out((SimHashWideBall *) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_ball_recv); \
Datum simhash##W##_ball_recv(PG_FUNCTION_ARGS) \
{ return wide_ball_recv((StringInfo) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_ball_send); \
Datum simhash##W##_ball_send(PG_FUNCTION_ARGS) \
{ return wide_ball_send((SimHashWideBall *) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_ball); \
Datum simhash##W##_ball(PG_FUNCTION_ARGS) \
{ return wide_ball_make(PG_GETARG_SIMHASH_WORDS(0), PG_GETARG_INT32(1), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_in_ball); \
Datum simhash##W##_in_ball(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(in_ball(PG_GETARG_SIMHASH_WORDS(0), \
						   (SimHashWideBall *) PG_GETARG_POINTER(1), N)); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_ball_contains); \
Datum simhash##W##_ball_contains(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(in_ball(PG_GETARG_SIMHASH_WORDS(1), \
						   (SimHashWideBall *) PG_GETARG_POINTER(0), N)); \
}

WIDE_BALL(128, 2)
WIDE_BALL(256, 4)
