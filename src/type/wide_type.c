/*
 * wide_type.c
 *		The simhash128 and simhash256 types: text and binary I/O, casts,
 *		B-tree and hash support, Hamming distance, similarity, and the
 *		transition functions of min, max, bit_or and bit_and.
 *
 * Contract (doc/simhash.md, "Types"): 2 or 4 unsigned 64-bit
 * words, word 0 first.  Text form: each word as 16 hex digits, most
 * significant first, word 0 first (so a wide fingerprint's text starts
 * with its 64-bit prefix's); binary, bytea and bit forms: the same order,
 * 8 bytes per word, big-endian.  Ordering is that of the bytes (word 0
 * compared first, as an unsigned value).
 *
 * Every function exists once per width, as a thin entry point that passes
 * the number of words to the shared code below.
 */
#include "simhash.h"

#include <math.h>

#include "common/hashfn.h"
#include "libpq/pqformat.h"
#include "port/pg_bitutils.h"
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

static inline const char *
type_name(int nwords)
{
	return nwords == 2 ? "simhash128" : "simhash256";
}

static inline uint64 *
new_words(int nwords)
{
	return (uint64 *) palloc(sizeof(uint64) * nwords);
}

/* The number of differing bits of two fingerprints of nwords words */
static inline int
wide_distance(const uint64 *a, const uint64 *b, int nwords)
{
	int			d = 0;
	int			i;

	for (i = 0; i < nwords; i++)
		d += pg_popcount64(a[i] ^ b[i]);
	return d;
}

/* The byte order: word 0 first, each word as an unsigned value */
static inline int
wide_cmp(const uint64 *a, const uint64 *b, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/* ---------- text and binary I/O ---------- */

/*
 * A hint for two usual mistakes: a 64-bit simhash where a wide one belongs
 * (16 hex digits), and text where a fingerprint belongs.  nhex is the
 * number of hex digits s starts with.
 */
static int
wide_input_hint(const char *s, int nhex, int nwords)
{
	const char *p;
	int			nletters = 0;

	if (nhex == 16 && s[16] == '\0')
		return errhint("This is a 64-bit simhash.  Its %s has other words, hashed with other seeds: fingerprint the input again with to_%s.",
					   type_name(nwords), type_name(nwords));
	for (p = s; *p != '\0'; p++)
		if (IS_HIGHBIT_SET(*p) || ((*p | 0x20) >= 'g' && (*p | 0x20) <= 'z'))
			nletters++;
	if (nletters >= 2)
		return errhint("To fingerprint text, use to_%s(text).", type_name(nwords));
	return 0;
}

/*
 * simhash128_in, simhash256_in (cstring): exactly 32 or 64 hex digits,
 * either case, nothing else.  22P02 naming the text otherwise.
 */
static Datum
wide_in(const char *s, int nwords)
{
	uint64	   *w = new_words(nwords);
	int			ndigits = 16 * nwords;
	int			i;

	for (i = 0; i < ndigits; i++)
	{
		int			d = hexval(s[i]);

		if (d < 0)
			break;
		if (i % 16 == 0)
			w[i / 16] = 0;
		w[i / 16] = (w[i / 16] << 4) | (uint64) d;
	}
	if (i != ndigits || s[ndigits] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"",
						type_name(nwords), s),
				 errdetail("A %s is exactly %d hexadecimal digits.",
						   type_name(nwords), ndigits),
				 wide_input_hint(s, i, nwords)));
	return PointerGetDatum(w);
}

static Datum
wide_out(const uint64 *w, int nwords)
{
	char	   *s = palloc(16 * nwords + 1);
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
	return CStringGetDatum(s);
}

/* 8 bytes per word, network byte order; another length is 08P01 */
static Datum
wide_recv(StringInfo buf, int nwords)
{
	uint64	   *w = new_words(nwords);
	int			i;

	for (i = 0; i < nwords; i++)
		w[i] = (uint64) pq_getmsgint64(buf);
	return PointerGetDatum(w);
}

static Datum
wide_send(const uint64 *w, int nwords)
{
	StringInfoData buf;
	int			i;

	pq_begintypsend(&buf);
	for (i = 0; i < nwords; i++)
		pq_sendint64(&buf, (int64) w[i]);
	return PointerGetDatum(pq_endtypsend(&buf));
}

/* ---------- casts: bytea, bit, and the prefixes ---------- */

static void
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

static void
store_be(unsigned char *p, const uint64 *w, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
	{
		uint64		be = pg_hton64(w[i]);

		memcpy(p + 8 * i, &be, sizeof(be));
	}
}

/* bytea of exactly 8 * nwords bytes, else 22023 */
static Datum
wide_from_bytea(bytea *b, int nwords)
{
	uint64	   *w = new_words(nwords);

	if (VARSIZE_ANY_EXHDR(b) != (Size) (8 * nwords))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot cast bytea of length %d to %s",
						(int) VARSIZE_ANY_EXHDR(b), type_name(nwords)),
				 errdetail("A %s is exactly %d bytes, word 0 first, each most significant byte first.",
						   type_name(nwords), 8 * nwords)));
	load_be((const unsigned char *) VARDATA_ANY(b), w, nwords);
	return PointerGetDatum(w);
}

static Datum
wide_to_bytea(const uint64 *w, int nwords)
{
	bytea	   *b = (bytea *) palloc(VARHDRSZ + 8 * nwords);

	SET_VARSIZE(b, VARHDRSZ + 8 * nwords);
	store_be((unsigned char *) VARDATA(b), w, nwords);
	return PointerGetDatum(b);
}

/* bit string of exactly 64 * nwords bits, else 22023 */
static Datum
wide_from_bit(VarBit *b, int nwords)
{
	uint64	   *w = new_words(nwords);

	if (VARBITLEN(b) != SIMHASH_BITS * nwords)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot cast bit string of length %d to %s",
						VARBITLEN(b), type_name(nwords)),
				 errdetail("A %s has exactly %d bits.", type_name(nwords),
						   SIMHASH_BITS * nwords)));
	load_be(VARBITS(b), w, nwords);
	return PointerGetDatum(w);
}

static Datum
wide_to_bit(const uint64 *w, int nwords)
{
	int			len = VARBITTOTALLEN(SIMHASH_BITS * nwords);
	VarBit	   *b = (VarBit *) palloc0(len);

	SET_VARSIZE(b, len);
	VARBITLEN(b) = SIMHASH_BITS * nwords;
	store_be(VARBITS(b), w, nwords);
	return PointerGetDatum(b);
}

/* ---------- the entry points of each width ---------- */

#define WIDE_IO(W, N) \
PG_FUNCTION_INFO_V1(simhash##W##_in); \
Datum simhash##W##_in(PG_FUNCTION_ARGS) \
{ return wide_in(PG_GETARG_CSTRING(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_out); \
Datum simhash##W##_out(PG_FUNCTION_ARGS) \
{ return wide_out(PG_GETARG_SIMHASH_WORDS(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_recv); \
Datum simhash##W##_recv(PG_FUNCTION_ARGS) \
{ return wide_recv((StringInfo) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_send); \
Datum simhash##W##_send(PG_FUNCTION_ARGS) \
{ return wide_send(PG_GETARG_SIMHASH_WORDS(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_from_bytea); \
Datum simhash##W##_from_bytea(PG_FUNCTION_ARGS) \
{ return wide_from_bytea(PG_GETARG_BYTEA_PP(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_to_bytea); \
Datum simhash##W##_to_bytea(PG_FUNCTION_ARGS) \
{ return wide_to_bytea(PG_GETARG_SIMHASH_WORDS(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_from_bit); \
Datum simhash##W##_from_bit(PG_FUNCTION_ARGS) \
{ return wide_from_bit(PG_GETARG_VARBIT_P(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_to_bit); \
Datum simhash##W##_to_bit(PG_FUNCTION_ARGS) \
{ return wide_to_bit(PG_GETARG_SIMHASH_WORDS(0), N); }

WIDE_IO(128, 2)
WIDE_IO(256, 4)

/*
 * The prefixes: word 0 of either width as a simhash (the 64-bit
 * fingerprint of the same input), words 0-1 of a simhash256 as a
 * simhash128.  Never error.
 */
PG_FUNCTION_INFO_V1(simhash_from_wide);
Datum
simhash_from_wide(PG_FUNCTION_ARGS)
{
	PG_RETURN_SIMHASH(PG_GETARG_SIMHASH_WORDS(0)[0]);
}

PG_FUNCTION_INFO_V1(simhash128_from_simhash256);
Datum
simhash128_from_simhash256(PG_FUNCTION_ARGS)
{
	uint64	   *w = new_words(2);

	memcpy(w, PG_GETARG_SIMHASH_WORDS(0), sizeof(uint64) * 2);
	PG_RETURN_POINTER(w);
}

/* ---------- B-tree and hash support ---------- */

static int
wide_cmp_128_ss(Datum a, Datum b, SortSupport ssup)
{
	return wide_cmp((const uint64 *) DatumGetPointer(a),
					(const uint64 *) DatumGetPointer(b), 2);
}

static int
wide_cmp_256_ss(Datum a, Datum b, SortSupport ssup)
{
	return wide_cmp((const uint64 *) DatumGetPointer(a),
					(const uint64 *) DatumGetPointer(b), 4);
}

#define WIDE_CMP_FUNC(W, N, name, op) \
PG_FUNCTION_INFO_V1(simhash##W##_##name); \
Datum simhash##W##_##name(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(wide_cmp(PG_GETARG_SIMHASH_WORDS(0), \
							PG_GETARG_SIMHASH_WORDS(1), N) op 0); \
}

/*
 * The hashes are hash_any over the 8 * nwords bytes of the words in memory
 * order: equal values hash equally, which is all a hash index, hash join or
 * hash partition of one server needs.
 */
#define WIDE_ORDER(W, N) \
WIDE_CMP_FUNC(W, N, eq, ==) \
WIDE_CMP_FUNC(W, N, ne, !=) \
WIDE_CMP_FUNC(W, N, lt, <) \
WIDE_CMP_FUNC(W, N, le, <=) \
WIDE_CMP_FUNC(W, N, gt, >) \
WIDE_CMP_FUNC(W, N, ge, >=) \
PG_FUNCTION_INFO_V1(simhash##W##_cmp); \
Datum simhash##W##_cmp(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_INT32(wide_cmp(PG_GETARG_SIMHASH_WORDS(0), \
							 PG_GETARG_SIMHASH_WORDS(1), N)); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_sortsupport); \
Datum simhash##W##_sortsupport(PG_FUNCTION_ARGS) \
{ \
	((SortSupport) PG_GETARG_POINTER(0))->comparator = wide_cmp_##W##_ss; \
	PG_RETURN_VOID(); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_hash); \
Datum simhash##W##_hash(PG_FUNCTION_ARGS) \
{ \
	return hash_any((const unsigned char *) PG_GETARG_SIMHASH_WORDS(0), 8 * N); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_hash_extended); \
Datum simhash##W##_hash_extended(PG_FUNCTION_ARGS) \
{ \
	return hash_any_extended((const unsigned char *) PG_GETARG_SIMHASH_WORDS(0), \
							 8 * N, (uint64) PG_GETARG_INT64(1)); \
}

WIDE_ORDER(128, 2)
WIDE_ORDER(256, 4)

/* ---------- distance, radius, similarity ---------- */

/*
 * hamming_distance(a, b) -> simhash_distance 0..W, and the same as a plain
 * integer (hamming_distance_int, the GiST ordering operator);
 * simhash_within(a, b, k) -> a <-> b <= k.  Immutable, strict, parallel
 * safe, leakproof; never error.
 */
#define WIDE_DISTANCE(W, N) \
PG_FUNCTION_INFO_V1(simhash##W##_hamming_distance); \
Datum simhash##W##_hamming_distance(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_INT32(wide_distance(PG_GETARG_SIMHASH_WORDS(0), \
								  PG_GETARG_SIMHASH_WORDS(1), N)); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_hamming_distance_int); \
Datum simhash##W##_hamming_distance_int(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_INT32(wide_distance(PG_GETARG_SIMHASH_WORDS(0), \
								  PG_GETARG_SIMHASH_WORDS(1), N)); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_within); \
Datum simhash##W##_within(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_BOOL(wide_distance(PG_GETARG_SIMHASH_WORDS(0), \
								 PG_GETARG_SIMHASH_WORDS(1), N) <= PG_GETARG_INT32(2)); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_similarity); \
Datum simhash##W##_similarity(PG_FUNCTION_ARGS) \
{ \
	PG_RETURN_FLOAT8(similarity_of(wide_distance(PG_GETARG_SIMHASH_WORDS(0), \
												 PG_GETARG_SIMHASH_WORDS(1), N), \
								   SIMHASH_BITS * N)); \
}

/*
 * cos(pi * d / bits): Charikar's estimate of the cosine similarity of the
 * two weighted feature vectors, since a bit differs with probability
 * angle / pi.  Computed exactly so (not as an equal sine), so that a
 * client's cos(pi * d / bits) gives the same double.
 */
static inline double
similarity_of(int d, int bits)
{
	return cos(M_PI * (double) d / (double) bits);
}

WIDE_DISTANCE(128, 2)
WIDE_DISTANCE(256, 4)

/* simhash_similarity(simhash, simhash) -> double precision, as above */
PG_FUNCTION_INFO_V1(simhash_similarity);
Datum
simhash_similarity(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(similarity_of(pg_popcount64(PG_GETARG_SIMHASH(0) ^
												 PG_GETARG_SIMHASH(1)),
								   SIMHASH_BITS));
}

/*
 * simhash_radius(similarity double precision, bits integer) -> integer
 *		The largest k in 0..bits whose similarity_of(k, bits) is at least
 *		similarity, so that fp <-> q <= simhash_radius(s, W) is
 *		simhash_similarity(fp, q) >= s, in the form an index answers.
 *		similarity must be in -1..1 and bits 64, 128 or 256 (errors:
 *		doc/simhash.md).
 */
PG_FUNCTION_INFO_V1(simhash_radius);
Datum
simhash_radius(PG_FUNCTION_ARGS)
{
	double		s = PG_GETARG_FLOAT8(0);
	int32		bits = PG_GETARG_INT32(1);
	int			k;

	if (bits != 64 && bits != 128 && bits != 256)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("fingerprint width %d is not supported", bits),
				 errdetail("The widths are 64, 128 and 256 bits.")));
	if (!(s >= -1.0 && s <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity %g is out of range", s),
				 errdetail("A similarity is between -1 and 1.")));
	/* similarity_of falls as k grows: the last k that keeps s */
	for (k = 0; k < bits && similarity_of(k + 1, bits) >= s; k++)
		;
	PG_RETURN_INT32(k);
}

/* ---------- min, max, bit_or, bit_and ---------- */

/*
 * simhashW_smaller, simhashW_larger: the smaller (larger) in the B-tree
 * order; simhashW_or, simhashW_and: bitwise.  Immutable, strict, parallel
 * safe; never error.
 */
#define WIDE_AGGS(W, N) \
PG_FUNCTION_INFO_V1(simhash##W##_smaller); \
Datum simhash##W##_smaller(PG_FUNCTION_ARGS) \
{ \
	return wide_cmp(PG_GETARG_SIMHASH_WORDS(0), PG_GETARG_SIMHASH_WORDS(1), N) <= 0 \
		? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_larger); \
Datum simhash##W##_larger(PG_FUNCTION_ARGS) \
{ \
	return wide_cmp(PG_GETARG_SIMHASH_WORDS(0), PG_GETARG_SIMHASH_WORDS(1), N) >= 0 \
		? PG_GETARG_DATUM(0) : PG_GETARG_DATUM(1); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_or); \
Datum simhash##W##_or(PG_FUNCTION_ARGS) \
{ \
	return wide_bitop(PG_GETARG_SIMHASH_WORDS(0), PG_GETARG_SIMHASH_WORDS(1), N, true); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_and); \
Datum simhash##W##_and(PG_FUNCTION_ARGS) \
{ \
	return wide_bitop(PG_GETARG_SIMHASH_WORDS(0), PG_GETARG_SIMHASH_WORDS(1), N, false); \
}

static Datum
wide_bitop(const uint64 *a, const uint64 *b, int nwords, bool or)
{
	uint64	   *w = new_words(nwords);
	int			i;

	for (i = 0; i < nwords; i++)
		w[i] = or ? (a[i] | b[i]) : (a[i] & b[i]);
	return PointerGetDatum(w);
}

WIDE_AGGS(128, 2)
WIDE_AGGS(256, 4)
