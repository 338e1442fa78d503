/*
 * simhash_type.c
 *		The types simhash, simhash128 and simhash256: text and binary I/O,
 *		casts, B-tree and hash support.
 *
 * Contract (doc/simhash.md, "Types"): 1, 2 or 4 unsigned 64-bit words, word
 * 0 first.  Text form: each word as 16 hex digits, most significant first,
 * word 0 first (so a wide fingerprint's text starts with its 64-bit
 * prefix's), printed in lower case; binary, bytea and bit forms: the same
 * order, 8 bytes per word, big-endian.  Ordering is that of the bytes (word
 * 0 compared first, as an unsigned value).
 *
 * Every function has one body for all widths, called by a thin entry point
 * per width with the number of words (words.h).
 */
#include "simhash.h"

#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "port/pg_bswap.h"
#include "utils/builtins.h"
#include "utils/sortsupport.h"
#include "utils/varbit.h"

#include "words.h"

/* ---------- text and binary I/O ---------- */

/* Whether s is a decimal integer, which a 64-bit simhash is not */
static bool
is_decimal(const char *s)
{
	const char *p = s;

	if (*p == '-')
		p++;
	if (*p == '\0')
		return false;
	for (; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* The hint of a decimal integer (node-postgres sends a BigInt that way) */
static int
decimal_hint(const char *s)
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

/*
 * A hint for the usual mistakes: text where a fingerprint belongs
 * (fp <-> 'some words'), a decimal integer (64 bits) or a 64-bit simhash
 * (wider ones).  A mistyped digit, a 0x prefix or hex digits of the wrong
 * length get none: the detail says it.  nhex is the number of hex digits s
 * starts with.
 */
static int
input_hint(const char *s, int nhex, int nwords)
{
	const char *p;
	int			nchars = 0,
				nletters = 0;

	if (nwords == 1 && is_decimal(s))
		return decimal_hint(s);
	if (nwords > 1 && nhex == 16 && s[16] == '\0')
		return errhint("This is a 64-bit simhash.  Its %s has other words, hashed with other seeds: fingerprint the input again with to_%s.",
					   simhash_type_name(nwords), simhash_type_name(nwords));

	/*
	 * Text: two letters beyond f or non-ASCII bytes.  At 64 bits a
	 * character counts once and 16 characters get no hint (they may be a
	 * mistyped fingerprint); the wide types count bytes, as they always did.
	 */
	for (p = s; *p != '\0'; p++)
	{
		if (nwords == 1 && (*p & 0xC0) == 0x80)
			continue;			/* not the first byte of a character */
		nchars++;
		if (IS_HIGHBIT_SET(*p) || ((*p | 0x20) >= 'g' && (*p | 0x20) <= 'z'))
			nletters++;
	}
	if (nletters >= 2 && (nwords > 1 || nchars != 16))
		return errhint("To fingerprint text, use to_%s(text).",
					   simhash_type_name(nwords));
	return 0;
}

/*
 * simhash_in, simhash128_in, simhash256_in (cstring): exactly 16, 32 or 64
 * hex digits, either case; nothing else (no sign, prefix or whitespace).
 * Error 22P02 naming the text otherwise.
 */
static inline Datum
type_in(FunctionCallInfo fcinfo, int nwords)
{
	const char *s = PG_GETARG_CSTRING(0);
	uint64		one;
	uint64	   *w = simhash_new_words(nwords, &one);
	int			ndigits = 16 * nwords;
	int			i;

	memset(w, 0, sizeof(uint64) * nwords);
	for (i = 0; i < ndigits; i++)
	{
		int			d = simhash_hexval(s[i]);

		if (d < 0)
			break;
		w[i / 16] = (w[i / 16] << 4) | (uint64) d;
	}
	if (i != ndigits || s[ndigits] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"",
						simhash_type_name(nwords), s),
				 errdetail("A %s is exactly %d hexadecimal digits.",
						   simhash_type_name(nwords), ndigits),
				 input_hint(s, i, nwords)));
	return simhash_words_datum(w, nwords);
}

/* out: 16 lower-case hex digits a word */
static inline Datum
type_out(FunctionCallInfo fcinfo, int nwords)
{
	uint64		one;
	const uint64 *w = simhash_arg_words(fcinfo, 0, nwords, &one);
	char	   *s = palloc(16 * nwords + 1);

	simhash_words_hex(s, w, nwords);
	PG_RETURN_CSTRING(s);
}

/*
 * recv(internal): 8 bytes a word, network byte order.  A message of another
 * length is an error (08P01, from pq_getmsg*).
 */
static inline Datum
type_recv(FunctionCallInfo fcinfo, int nwords)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	uint64		one;
	uint64	   *w = simhash_new_words(nwords, &one);
	int			i;

	for (i = 0; i < nwords; i++)
		w[i] = (uint64) pq_getmsgint64(buf);
	return simhash_words_datum(w, nwords);
}

/* send -> bytea: 8 bytes a word, network byte order */
static inline Datum
type_send(FunctionCallInfo fcinfo, int nwords)
{
	uint64		one;
	const uint64 *w = simhash_arg_words(fcinfo, 0, nwords, &one);
	StringInfoData buf;
	int			i;

	pq_begintypsend(&buf);
	for (i = 0; i < nwords; i++)
		pq_sendint64(&buf, (int64) w[i]);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* ---------- casts: bytea, bit and bigint ---------- */

/*
 * The bytes of the bit and bytea forms: each word big-endian, most
 * significant byte first (bit 63 of word 0 is the first bit).  p may be
 * unaligned.
 */
static inline void
load_be(const unsigned char *p, uint64 *w, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
	{
		uint64		be;

		memcpy(&be, p + 8 * i, sizeof(be));
		w[i] = pg_ntoh64(be);
	}
}

static inline void
store_be(unsigned char *p, const uint64 *w, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
	{
		uint64		be = pg_hton64(w[i]);

		memcpy(p + 8 * i, &be, sizeof(be));
	}
}

/* from bytea: exactly 8 bytes a word, else 22023 */
static inline Datum
type_from_bytea(FunctionCallInfo fcinfo, int nwords)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	uint64		one;
	uint64	   *w = simhash_new_words(nwords, &one);

	if (VARSIZE_ANY_EXHDR(b) != (Size) (8 * nwords))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot cast bytea of length %d to %s",
						(int) VARSIZE_ANY_EXHDR(b), simhash_type_name(nwords)),
		/* one word has no word order to state */
				 nwords == 1 ?
				 errdetail("A simhash is exactly 8 bytes, most significant first.") :
				 errdetail("A %s is exactly %d bytes, word 0 first, each most significant byte first.",
						   simhash_type_name(nwords), 8 * nwords)));
	load_be((const unsigned char *) VARDATA_ANY(b), w, nwords);
	return simhash_words_datum(w, nwords);
}

static inline Datum
type_to_bytea(FunctionCallInfo fcinfo, int nwords)
{
	uint64		one;
	const uint64 *w = simhash_arg_words(fcinfo, 0, nwords, &one);
	bytea	   *b = (bytea *) palloc(VARHDRSZ + 8 * nwords);

	SET_VARSIZE(b, VARHDRSZ + 8 * nwords);
	store_be((unsigned char *) VARDATA(b), w, nwords);
	PG_RETURN_BYTEA_P(b);
}

/* from bit: exactly 64 bits a word, else 22023 */
static inline Datum
type_from_bit(FunctionCallInfo fcinfo, int nwords)
{
	VarBit	   *b = PG_GETARG_VARBIT_P(0);
	uint64		one;
	uint64	   *w = simhash_new_words(nwords, &one);

	if (VARBITLEN(b) != SIMHASH_BITS * nwords)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot cast bit string of length %d to %s",
						VARBITLEN(b), simhash_type_name(nwords)),
				 errdetail("A %s has exactly %d bits.", simhash_type_name(nwords),
						   SIMHASH_BITS * nwords)));
	load_be(VARBITS(b), w, nwords);
	return simhash_words_datum(w, nwords);
}

static inline Datum
type_to_bit(FunctionCallInfo fcinfo, int nwords)
{
	uint64		one;
	const uint64 *w = simhash_arg_words(fcinfo, 0, nwords, &one);
	int			len = VARBITTOTALLEN(SIMHASH_BITS * nwords);
	VarBit	   *b = (VarBit *) palloc0(len);

	SET_VARSIZE(b, len);
	VARBITLEN(b) = SIMHASH_BITS * nwords;
	store_be(VARBITS(b), w, nwords);
	PG_RETURN_VARBIT_P(b);
}

/*
 * bigint <-> simhash keep the same 64 bits (two's complement), so they can
 * never fail.  64 bits only: a bigint holds one word.
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

/* ---------- B-tree and hash support ---------- */

/* The B-tree order of the two arguments: -1, 0 or 1 */
static inline int
type_cmp_args(FunctionCallInfo fcinfo, int nwords)
{
	uint64		a1,
				b1;

	return simhash_words_cmp(simhash_arg_words(fcinfo, 0, nwords, &a1),
							 simhash_arg_words(fcinfo, 1, nwords, &b1), nwords);
}

#define TYPE_CMP_OP(name, op) \
static inline Datum \
type_##name(FunctionCallInfo fcinfo, int nwords) \
{ \
	PG_RETURN_BOOL(type_cmp_args(fcinfo, nwords) op 0); \
}
TYPE_CMP_OP(eq, ==)
TYPE_CMP_OP(ne, !=)
TYPE_CMP_OP(lt, <)
TYPE_CMP_OP(le, <=)
TYPE_CMP_OP(gt, >)
TYPE_CMP_OP(ge, >=)

/* cmp(a, b) -> -1, 0, 1 (B-tree support function 1) */
static inline Datum
type_cmp(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_INT32(type_cmp_args(fcinfo, nwords));
}

/*
 * B-tree support function 2.  The 64-bit Datum is the unsigned value
 * itself, which PostgreSQL's own comparator orders; wider Datums point to
 * their words.
 */
static inline Datum
type_sortsupport(FunctionCallInfo fcinfo, int nwords)
{
	((SortSupport) PG_GETARG_POINTER(0))->comparator =
		nwords == 1 ? ssup_datum_unsigned_cmp : simhash_words_comparator(nwords);
	PG_RETURN_VOID();
}

/*
 * Hash support.  A simhash hashes as bigint does over the same 64 bits, so
 * a hash join or hash partition behaves as it would on the bigint cast; a
 * wide one is hash_any over its words in memory order, so equal values
 * hash equally, which is all a hash index, hash join or hash partition of
 * one server needs.  Hash partitions store rows by these hashes, so
 * neither may change.
 */
static inline Datum
type_hash(FunctionCallInfo fcinfo, int nwords)
{
	if (nwords == 1)
		return DirectFunctionCall1(hashint8, PG_GETARG_DATUM(0));
	return hash_any((const unsigned char *) PG_GETARG_SIMHASH_WORDS(0),
					8 * nwords);
}

static inline Datum
type_hash_extended(FunctionCallInfo fcinfo, int nwords)
{
	if (nwords == 1)
		return DirectFunctionCall2(hashint8extended, PG_GETARG_DATUM(0),
								   PG_GETARG_DATUM(1));
	return hash_any_extended((const unsigned char *) PG_GETARG_SIMHASH_WORDS(0),
							 8 * nwords, (uint64) PG_GETARG_INT64(1));
}

/* ---------- the entry points of each width ---------- */

#define TYPE_FUNCS(P, N) \
	SIMHASH_ENTRY(P, N, type, in) SIMHASH_ENTRY(P, N, type, out) \
	SIMHASH_ENTRY(P, N, type, recv) SIMHASH_ENTRY(P, N, type, send) \
	SIMHASH_ENTRY(P, N, type, from_bytea) SIMHASH_ENTRY(P, N, type, to_bytea) \
	SIMHASH_ENTRY(P, N, type, from_bit) SIMHASH_ENTRY(P, N, type, to_bit) \
	SIMHASH_ENTRY(P, N, type, eq) SIMHASH_ENTRY(P, N, type, ne) SIMHASH_ENTRY(P, N, type, lt) \
	SIMHASH_ENTRY(P, N, type, le) SIMHASH_ENTRY(P, N, type, gt) SIMHASH_ENTRY(P, N, type, ge) \
	SIMHASH_ENTRY(P, N, type, cmp) SIMHASH_ENTRY(P, N, type, sortsupport) \
	SIMHASH_ENTRY(P, N, type, hash) SIMHASH_ENTRY(P, N, type, hash_extended)

SIMHASH_EACH_WIDTH(TYPE_FUNCS)
