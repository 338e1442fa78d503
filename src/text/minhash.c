/*
 * minhash.c
 *		The minhash type: a signature of a text's feature set for the
 *		verification stage (is the Jaccard similarity of two candidates'
 *		feature sets at least t?), and the exact Jaccard similarity.
 *
 * One-permutation hashing (Li, Owen and Zhang 2012) with optimal
 * densification (Shrivastava 2017) and 4-bit values (b-bit minwise hashing,
 * Li and König 2010): each feature is hashed once, its top 8 bits choose
 * one of 256 bins, and a bin keeps its smallest hash.  An empty bin borrows
 * the value of the first non-empty bin in a sequence of bins that depends
 * only on its own number, so two sets agree in a bin with probability J.
 * Each bin stores 4 bits of a mix of its smallest hash: 256 values in 128
 * bytes.  The cost is one hash per distinct feature whatever the number of
 * bins, where k-permutation MinHash needs k; at a fixed size, 4 bits in
 * 256 bins give a smaller error at J = 0.65 than 8 bits in 128 or 16 in 64.
 * The exact contract, the error and the test vectors: doc/minhash.md.
 *
 * The features are exactly those of the fingerprint functions: the
 * tokenizer runs with a sink attached (as for simhash_features), and the
 * signature is built from its table of distinct features.
 */
#include "simhash.h"

#include "catalog/pg_type.h"
#include "libpq/pqformat.h"
#include "port/pg_bitutils.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#define MINHASH_BINS		256
#define MINHASH_BYTES		SIMHASH_MINHASH_BYTES
StaticAssertDecl(MINHASH_BYTES * 2 == MINHASH_BINS, "two 4-bit bins a byte");
/* the feature hash: XXH3_64bits with this seed ("MinHash1" in ASCII) */
#define MINHASH_SEED		UINT64CONST(0x4D696E4861736831)
/* densification tries this many bins before the cyclic fallback */
#define MINHASH_MAX_TRIES	(1 << 16)

typedef struct MinHash
{
	uint8		b[MINHASH_BYTES];	/* bin 2i in the high nibble of b[i] */
} MinHash;

typedef struct MinHashAccum
{
	uint64		minh[MINHASH_BINS];
	bool		filled[MINHASH_BINS];
	int64		nfeatures;
} MinHashAccum;

#define PG_GETARG_MINHASH(n)	((MinHash *) PG_GETARG_POINTER(n))

/* the tokenizers' own entry points (tokenize.c) */
extern PGDLLEXPORT Datum simhash_from_text(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_ngram(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_shingle(PG_FUNCTION_ARGS);

/* SplitMix64's output function (Steele, Lea and Flood 2014) */
static inline uint64
mix64(uint64 z)
{
	z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

static void
accum_init(MinHashAccum *acc)
{
	memset(acc->filled, 0, sizeof(acc->filled));
	acc->nfeatures = 0;
}

/* One distinct feature, its UTF-8 bytes */
static void
accum_add(MinHashAccum *acc, const char *utf8, Size len)
{
	uint64		h = (uint64) XXH3_64bits_withSeed(utf8, len, MINHASH_SEED);
	int			bin = (int) (h >> 56);

	if (!acc->filled[bin] || h < acc->minh[bin])
	{
		acc->minh[bin] = h;
		acc->filled[bin] = true;
	}
	acc->nfeatures++;
}

/*
 * Optimal densification's probe sequence for empty bin j is
 * mix64((j << 32) | a) >> 56 for a = 1, 2, ...; it borrows from the first
 * non-empty bin it meets.  Walking it costs about 256 / f hashes an empty
 * bin for f non-empty ones, thousands for a short text, so the sequences
 * are walked once per backend instead: probe_key[c][j] is
 * (a << 8) | c for the attempt a at which bin c first appears in j's
 * sequence (NEVER if not within MINHASH_MAX_TRIES), and an empty j borrows
 * from the low byte of the smallest key over the non-empty c: the bin the
 * walk meets first, as distinct bins appear at distinct attempts.  256 KB,
 * a contiguous row per non-empty bin, and a minimum without branches.
 */
#define NEVER	PG_UINT32_MAX
static uint32 (*probe_key)[MINHASH_BINS] = NULL;

static void
build_probe_key(void)
{
	uint32		(*t)[MINHASH_BINS];
	int			j,
				c;

	t = MemoryContextAlloc(TopMemoryContext,
						   sizeof(uint32) * MINHASH_BINS * MINHASH_BINS);
	for (c = 0; c < MINHASH_BINS; c++)
		for (j = 0; j < MINHASH_BINS; j++)
			t[c][j] = NEVER;
	for (j = 0; j < MINHASH_BINS; j++)
	{
		uint32		attempt;
		int			seen = 0;

		for (attempt = 1; attempt <= MINHASH_MAX_TRIES && seen < MINHASH_BINS; attempt++)
		{
			c = (int) (mix64(((uint64) j << 32) | attempt) >> 56);
			if (t[c][j] == NEVER)
			{
				t[c][j] = (attempt << 8) | (uint32) c;
				seen++;
			}
		}
	}
	probe_key = t;
}

/*
 * The signature: each bin's 4-bit value, an empty bin's borrowed by
 * optimal densification; no feature at all gives 128 zero bytes.
 */
static MinHash *
accum_result(const MinHashAccum *acc)
{
	MinHash    *m = (MinHash *) palloc0(sizeof(MinHash));
	uint8		v[MINHASH_BINS];
	uint32		best[MINHASH_BINS];
	int			nfilled = 0;
	int			c,
				j;

	if (acc->nfeatures == 0)
		return m;
	for (c = 0; c < MINHASH_BINS; c++)
		if (acc->filled[c])
		{
			v[c] = (uint8) (mix64(acc->minh[c]) >> 60);
			nfilled++;
		}
	if (nfilled < MINHASH_BINS)
	{
		if (probe_key == NULL)
			build_probe_key();
		for (j = 0; j < MINHASH_BINS; j++)
			best[j] = NEVER;
		for (c = 0; c < MINHASH_BINS; c++)
		{
			const uint32 *row = probe_key[c];

			if (!acc->filled[c])
				continue;
			for (j = 0; j < MINHASH_BINS; j++)
				best[j] = Min(best[j], row[j]);
		}
		for (j = 0; j < MINHASH_BINS; j++)
		{
			if (acc->filled[j])
				continue;
			/* never taken in practice: the next non-empty bin, cyclically */
			if (best[j] == NEVER)
				for (c = (j + 1) % MINHASH_BINS;; c = (c + 1) % MINHASH_BINS)
					if (acc->filled[c])
					{
						best[j] = (uint32) c;
						break;
					}
			v[j] = v[best[j] & 0xFF];
		}
	}
	for (c = 0; c < MINHASH_BYTES; c++)
		m->b[c] = (uint8) ((v[2 * c] << 4) | v[2 * c + 1]);
	return m;
}

/* ---------- type I/O ---------- */

/*
 * minhash_in(cstring): 256 hexadecimal digits, digit i the value of bin i;
 * anything else is 22P02.
 */
PG_FUNCTION_INFO_V1(minhash_in);
Datum
minhash_in(PG_FUNCTION_ARGS)
{
	char	   *s = PG_GETARG_CSTRING(0);
	MinHash    *m = (MinHash *) palloc(sizeof(MinHash));
	int			i;

	if (strlen(s) != 2 * MINHASH_BYTES)
		goto bad;
	for (i = 0; i < 2 * MINHASH_BYTES; i++)
	{
		int			d;
		char		c = s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			goto bad;
		if (i % 2 == 0)
			m->b[i / 2] = (uint8) (d << 4);
		else
			m->b[i / 2] |= (uint8) d;
	}
	PG_RETURN_POINTER(m);

bad:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", "minhash", s),
			 errdetail("A minhash is exactly %d hexadecimal digits.",
					   2 * MINHASH_BYTES)));
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(minhash_out);
Datum
minhash_out(PG_FUNCTION_ARGS)
{
	MinHash    *m = PG_GETARG_MINHASH(0);
	char	   *s = palloc(2 * MINHASH_BYTES + 1);
	static const char hex[] = "0123456789abcdef";
	int			i;

	for (i = 0; i < MINHASH_BYTES; i++)
	{
		s[2 * i] = hex[m->b[i] >> 4];
		s[2 * i + 1] = hex[m->b[i] & 0x0F];
	}
	s[2 * MINHASH_BYTES] = '\0';
	PG_RETURN_CSTRING(s);
}

/* Binary I/O: the 128 bytes; another length is 08P01 */
PG_FUNCTION_INFO_V1(minhash_recv);
Datum
minhash_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	MinHash    *m = (MinHash *) palloc(sizeof(MinHash));

	if (buf->len - buf->cursor != MINHASH_BYTES)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary minhash: %d bytes, not %d",
						buf->len - buf->cursor, MINHASH_BYTES)));
	pq_copymsgbytes(buf, (char *) m->b, MINHASH_BYTES);
	PG_RETURN_POINTER(m);
}

PG_FUNCTION_INFO_V1(minhash_send);
Datum
minhash_send(PG_FUNCTION_ARGS)
{
	MinHash    *m = PG_GETARG_MINHASH(0);
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, (char *) m->b, MINHASH_BYTES);
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

/* minhash = minhash, minhash <> minhash: the 128 bytes compared */
PG_FUNCTION_INFO_V1(minhash_eq);
Datum
minhash_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(memcmp(PG_GETARG_MINHASH(0)->b, PG_GETARG_MINHASH(1)->b,
						  MINHASH_BYTES) == 0);
}

PG_FUNCTION_INFO_V1(minhash_ne);
Datum
minhash_ne(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(memcmp(PG_GETARG_MINHASH(0)->b, PG_GETARG_MINHASH(1)->b,
						  MINHASH_BYTES) != 0);
}

/* ---------- signatures ---------- */

static void
sink_minhash(void *arg, const char *utf8, Size len, uint32 tf)
{
	accum_add((MinHashAccum *) arg, utf8, len);
}

static Datum
minhash_of(FunctionCallInfo fcinfo, PGFunction tokenizer, const char *fname)
{
	MinHashAccum acc;

	accum_init(&acc);
	simhash_tokenizer_features(fcinfo, tokenizer, fname, sink_minhash, &acc);
	PG_RETURN_POINTER(accum_result(&acc));
}

/*
 * to_minhash(text), minhash_ngram(text, n), minhash_shingle(text, n):
 * the signature of the distinct features of to_simhash(text),
 * simhash_ngram(text, n), simhash_shingle(text, n), with their errors.
 */
SIMHASH_FUNC_RETURNING(minhash_from_text, minhash_of(fcinfo, simhash_from_text, "to_minhash"))
SIMHASH_FUNC_RETURNING(minhash_ngram, minhash_of(fcinfo, simhash_ngram, "minhash_ngram"))
SIMHASH_FUNC_RETURNING(minhash_shingle, minhash_of(fcinfo, simhash_shingle, "minhash_shingle"))

/*
 * to_minhash(text[]): the signature of the array's distinct elements (their
 * UTF-8 bytes).  Errors as to_simhash(text[]): a multi-dimensional array is
 * 2202E, a null element 22004.
 */
PG_FUNCTION_INFO_V1(minhash_from_features);
Datum
minhash_from_features(PG_FUNCTION_ARGS)
{
	ArrayType  *a = PG_GETARG_ARRAYTYPE_P(0);
	MinHashAccum acc;
	Datum	   *d;
	bool	   *nulls;
	int			n,
				i;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("feature array must be one-dimensional")));
	deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &d, &nulls, &n);
	accum_init(&acc);
	for (i = 0; i < n; i++)
	{
		text	   *t;
		const char *u;
		int			len;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("feature array must not contain nulls"),
					 errdetail("Element %d is null.", i + 1)));
		t = DatumGetTextPP(d[i]);
		u = simhash_to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &len);
		/* a repeated element changes no minimum: the set is what counts */
		accum_add(&acc, u, len);
	}
	PG_RETURN_POINTER(accum_result(&acc));
}

/* ---------- Jaccard similarity ---------- */

/*
 * The estimate of the Jaccard similarity of the feature sets of two
 * signatures (their MINHASH_BYTES bytes), as minhash_jaccard returns it.  With m of 256 bins equal and
 * C = 1/16 the chance that 4-bit values of different features agree,
 * (m/256 - C) / (1 - C), clamped to [0, 1].  Two signatures of empty sets
 * are equal, so 1.
 */
double
simhash_minhash_similarity(const uint8 *a, const uint8 *b)
{
	int			differ = 0;
	int			i;
	double		p,
				j;

	for (i = 0; i < MINHASH_BYTES; i++)
	{
		uint8		x = a[i] ^ b[i];

		differ += ((x & 0xF0) != 0) + ((x & 0x0F) != 0);
	}
	p = (double) (MINHASH_BINS - differ) / MINHASH_BINS;
	j = (p - 1.0 / 16) / (1.0 - 1.0 / 16);
	return j < 0.0 ? 0.0 : j > 1.0 ? 1.0 : j;
}

/* minhash_jaccard(minhash, minhash) -> double precision: the estimate */
PG_FUNCTION_INFO_V1(minhash_jaccard);
Datum
minhash_jaccard(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(simhash_minhash_similarity(PG_GETARG_MINHASH(0)->b,
												PG_GETARG_MINHASH(1)->b));
}

/* The distinct features of one text, for the exact similarity */
typedef struct FeatureSet
{
	StringInfoData bytes;		/* the features, one after another */
	Size	   *off;
	uint32	   *len;
	uint64	   *h;
	int			n,
				cap;
} FeatureSet;

static void
sink_set(void *arg, const char *utf8, Size len, uint32 tf)
{
	FeatureSet *s = (FeatureSet *) arg;

	if (s->n == s->cap)
	{
		s->cap = s->cap ? 2 * s->cap : 64;
		s->off = s->off ? repalloc(s->off, s->cap * sizeof(Size)) : palloc(s->cap * sizeof(Size));
		s->len = s->len ? repalloc(s->len, s->cap * sizeof(uint32)) : palloc(s->cap * sizeof(uint32));
		s->h = s->h ? repalloc(s->h, s->cap * sizeof(uint64)) : palloc(s->cap * sizeof(uint64));
	}
	s->off[s->n] = s->bytes.len;
	s->len[s->n] = (uint32) len;
	s->h[s->n] = simhash_feature_hash(utf8, len);
	appendBinaryStringInfo(&s->bytes, utf8, (int) len);
	s->n++;
}

static FeatureSet *sort_set;	/* the set qsort's comparator reads */

static int
cmp_feature(const void *pa, const void *pb)
{
	int			a = *(const int *) pa,
				b = *(const int *) pb;
	FeatureSet *s = sort_set;

	if (s->h[a] != s->h[b])
		return s->h[a] < s->h[b] ? -1 : 1;
	if (s->len[a] != s->len[b])
		return s->len[a] < s->len[b] ? -1 : 1;
	return memcmp(s->bytes.data + s->off[a], s->bytes.data + s->off[b], s->len[a]);
}

/* The set's features in (hash, length, bytes) order, as indexes */
static int *
sorted_order(FeatureSet *s)
{
	int		   *order = palloc(Max(s->n, 1) * sizeof(int));
	int			i;

	for (i = 0; i < s->n; i++)
		order[i] = i;
	sort_set = s;
	qsort(order, s->n, sizeof(int), cmp_feature);
	return order;
}

/*
 * simhash_jaccard(a text, b text) -> double precision: |A ∩ B| / |A ∪ B|
 * for the distinct features A and B of to_simhash(a) and to_simhash(b),
 * compared byte for byte; 1 when both have none.
 */
PG_FUNCTION_INFO_V1(simhash_jaccard);
Datum
simhash_jaccard(PG_FUNCTION_ARGS)
{
	FeatureSet	sa = {0},
				sb = {0};
	int		   *oa,
			   *ob;
	int			i = 0,
				k = 0,
				common = 0;

	initStringInfo(&sa.bytes);
	initStringInfo(&sb.bytes);
	simhash_set_feature_sink(sink_set, &sa, "simhash_jaccard");
	PG_TRY();
	{
		(void) DirectFunctionCall1(simhash_from_text, PG_GETARG_DATUM(0));
		simhash_set_feature_sink(sink_set, &sb, "simhash_jaccard");
		(void) DirectFunctionCall1(simhash_from_text, PG_GETARG_DATUM(1));
	}
	PG_FINALLY();
	{
		simhash_set_feature_sink(NULL, NULL, NULL);
	}
	PG_END_TRY();
	if (sa.n == 0 && sb.n == 0)
		PG_RETURN_FLOAT8(1.0);
	oa = sorted_order(&sa);
	ob = sorted_order(&sb);
	while (i < sa.n && k < sb.n)
	{
		int			c;
		uint64		ha = sa.h[oa[i]],
					hb = sb.h[ob[k]];

		if (ha != hb)
			c = ha < hb ? -1 : 1;
		else if (sa.len[oa[i]] != sb.len[ob[k]])
			c = sa.len[oa[i]] < sb.len[ob[k]] ? -1 : 1;
		else
			c = memcmp(sa.bytes.data + sa.off[oa[i]], sb.bytes.data + sb.off[ob[k]],
					   sa.len[oa[i]]);
		if (c == 0)
		{
			common++;
			i++;
			k++;
		}
		else if (c < 0)
			i++;
		else
			k++;
	}
	PG_RETURN_FLOAT8((double) common / (double) (sa.n + sb.n - common));
}
