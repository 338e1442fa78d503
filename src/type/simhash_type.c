/*
 * simhash_type.c
 *		The simhash data type: text and binary I/O, casts, B-tree and hash
 *		support.
 *
 * Contract (doc/simhash.md, "Types"): an unsigned 64-bit value; text form is
 * exactly 16 hexadecimal digits, most significant first, printed in lower
 * case; binary form is 8 bytes in network byte order.  Ordering is that of
 * the unsigned value.
 */
#include "simhash.h"

#include "access/hash.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/varbit.h"

static const char hexdigits[] = "0123456789abcdef";

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

/*
 * A hint for the two usual mistakes: text where a fingerprint belongs
 * (fp <-> 'some words'), and a decimal integer (node-postgres sends a
 * BigInt that way).  A mistyped digit, a 0x prefix or hex digits of the
 * wrong length get none: the detail says it.
 */
static int
input_hint(const char *s)
{
	const char *p = s;
	bool		decimal;
	int			nchars = 0,
				nletters = 0;

	if (*p == '-')
		p++;
	decimal = (*p != '\0');
	for (; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			decimal = false;
	if (decimal)
	{
		char	   *end;
		SimHash		v;

		errno = 0;
		v = (*s == '-') ? (SimHash) strtoll(s, &end, 10) : (SimHash) strtoull(s, &end, 10);
		if (errno != 0)
			return errhint("A simhash is written in hexadecimal, and this number does not fit in 64 bits.");
		return errhint("A simhash is written in hexadecimal: the 64 bits of %s are '%s'. Clients send 16 hexadecimal digits.",
					   s, DatumGetCString(DirectFunctionCall1(simhash_out, SimHashGetDatum(v))));
	}
	/* text: two letters beyond f or non-ASCII characters, not 16 in all */
	for (p = s; *p != '\0'; p++)
	{
		if ((*p & 0xC0) == 0x80)
			continue;			/* not the first byte of a character */
		nchars++;
		if (IS_HIGHBIT_SET(*p) || ((*p | 0x20) >= 'g' && (*p | 0x20) <= 'z'))
			nletters++;
	}
	if (nletters >= 2 && nchars != 16)
		return errhint("To fingerprint text, use to_simhash(text).");
	return 0;
}

/*
 * simhash_in(cstring) -> simhash
 *		Exactly 16 hex digits, either case; nothing else (no sign, prefix or
 *		whitespace).  Error 22P02 naming the text otherwise.
 */
PG_FUNCTION_INFO_V1(simhash_in);
Datum
simhash_in(PG_FUNCTION_ARGS)
{
	const char *s = PG_GETARG_CSTRING(0);
	SimHash		v = 0;
	int			i;

	for (i = 0; i < 16; i++)
	{
		int			d = hexval(s[i]);

		if (d < 0)
			break;
		v = (v << 4) | (SimHash) d;
	}
	if (i != 16 || s[16] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"",
						"simhash", s),
				 errdetail("A simhash is exactly 16 hexadecimal digits."),
				 input_hint(s)));
	PG_RETURN_SIMHASH(v);
}

/*
 * simhash_out(simhash) -> cstring: 16 lower-case hex digits.
 */
PG_FUNCTION_INFO_V1(simhash_out);
Datum
simhash_out(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	char	   *s = palloc(17);
	int			i;

	for (i = 15; i >= 0; i--)
	{
		s[i] = hexdigits[v & 0xF];
		v >>= 4;
	}
	s[16] = '\0';
	PG_RETURN_CSTRING(s);
}

/*
 * simhash_recv(internal) -> simhash: 8 bytes, network byte order.
 * A message of another length is an error (08P01, from pq_getmsg*).
 */
PG_FUNCTION_INFO_V1(simhash_recv);
Datum
simhash_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);

	PG_RETURN_SIMHASH((SimHash) pq_getmsgint64(buf));
}

/*
 * simhash_send(simhash) -> bytea: 8 bytes, network byte order.
 */
PG_FUNCTION_INFO_V1(simhash_send);
Datum
simhash_send(PG_FUNCTION_ARGS)
{
	SimHash		v = PG_GETARG_SIMHASH(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendint64(&buf, (int64) v);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/*
 * Casts.  bigint <-> simhash keep the same 64 bits (two's complement), so
 * they can never fail.  bit(64) and bytea (8 bytes, big-endian) must have
 * exactly 64 bits; anything else is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_from_bigint);
Datum
simhash_from_bigint(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH((SimHash) PG_GETARG_INT64(0));
}

PG_FUNCTION_INFO_V1(simhash_to_bigint);
Datum
simhash_to_bigint(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) PG_GETARG_SIMHASH(0));
}

/*
 * The 8 bytes of bit(64) and bytea forms: the fingerprint big-endian, most
 * significant byte first (bit 63 is the first bit).  p may be unaligned.
 */
static inline SimHash
load_be64(const unsigned char *p)
{
	uint64		be;

	memcpy(&be, p, sizeof(be));
	return (SimHash) pg_ntoh64(be);
}

static inline void
store_be64(unsigned char *p, SimHash v)
{
	uint64		be = pg_hton64((uint64) v);

	memcpy(p, &be, sizeof(be));
}

PG_FUNCTION_INFO_V1(simhash_from_bit);
Datum
simhash_from_bit(PG_FUNCTION_ARGS)
{
	VarBit	   *b = PG_GETARG_VARBIT_P(0);

	if (VARBITLEN(b) != SIMHASH_BITS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot cast bit string of length %d to simhash",
						VARBITLEN(b)),
				 errdetail("A simhash has exactly 64 bits.")));
	PG_RETURN_SIMHASH(load_be64(VARBITS(b)));
}

PG_FUNCTION_INFO_V1(simhash_to_bit);
Datum
simhash_to_bit(PG_FUNCTION_ARGS)
{
	int			len = VARBITTOTALLEN(SIMHASH_BITS);
	VarBit	   *b = (VarBit *) palloc0(len);

	SET_VARSIZE(b, len);
	VARBITLEN(b) = SIMHASH_BITS;
	store_be64(VARBITS(b), PG_GETARG_SIMHASH(0));
	PG_RETURN_VARBIT_P(b);
}

PG_FUNCTION_INFO_V1(simhash_from_bytea);
Datum
simhash_from_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);

	if (VARSIZE_ANY_EXHDR(b) != 8)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot cast bytea of length %d to simhash",
						(int) VARSIZE_ANY_EXHDR(b)),
				 errdetail("A simhash is exactly 8 bytes, most significant first.")));
	PG_RETURN_SIMHASH(load_be64((const unsigned char *) VARDATA_ANY(b)));
}

PG_FUNCTION_INFO_V1(simhash_to_bytea);
Datum
simhash_to_bytea(PG_FUNCTION_ARGS)
{
	bytea	   *b = (bytea *) palloc(VARHDRSZ + 8);

	SET_VARSIZE(b, VARHDRSZ + 8);
	store_be64((unsigned char *) VARDATA(b), PG_GETARG_SIMHASH(0));
	PG_RETURN_BYTEA_P(b);
}

/*
 * B-tree support: comparison of the unsigned 64-bit values.
 */
#define SIMHASH_CMP_FUNC(name, op) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(PG_GETARG_SIMHASH(0) op PG_GETARG_SIMHASH(1)); \
}

SIMHASH_CMP_FUNC(simhash_eq, ==)
SIMHASH_CMP_FUNC(simhash_ne, !=)
SIMHASH_CMP_FUNC(simhash_lt, <)
SIMHASH_CMP_FUNC(simhash_le, <=)
SIMHASH_CMP_FUNC(simhash_gt, >)
SIMHASH_CMP_FUNC(simhash_ge, >=)

/* simhash_cmp(a, b) -> -1, 0, 1 (B-tree support function 1) */
PG_FUNCTION_INFO_V1(simhash_cmp);
Datum
simhash_cmp(PG_FUNCTION_ARGS)
{
	SimHash		a = PG_GETARG_SIMHASH(0);
	SimHash		b = PG_GETARG_SIMHASH(1);

	PG_RETURN_INT32(a < b ? -1 : (a > b ? 1 : 0));
}

/* B-tree support function 2: the Datum itself is the unsigned value */
PG_FUNCTION_INFO_V1(simhash_sortsupport);
Datum
simhash_sortsupport(PG_FUNCTION_ARGS)
{
	((SortSupport) PG_GETARG_POINTER(0))->comparator = ssup_datum_unsigned_cmp;
	PG_RETURN_VOID();
}

/*
 * Hash support: the same hashes as bigint over the same 64 bits, so a hash
 * join or hash partition behaves as it would on the bigint cast.
 */
PG_FUNCTION_INFO_V1(simhash_hash);
Datum
simhash_hash(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall1(hashint8, PG_GETARG_DATUM(0));
}

PG_FUNCTION_INFO_V1(simhash_hash_extended);
Datum
simhash_hash_extended(PG_FUNCTION_ARGS)
{
	return DirectFunctionCall2(hashint8extended, PG_GETARG_DATUM(0),
							   PG_GETARG_DATUM(1));
}
