/*
 * fingerprint.c
 *		Charikar's simhash over weighted features, and the entry points that
 *		take features, weights, tsvectors and numeric vectors.
 *
 * Contract (doc/contract.md; M. Charikar, STOC 2002):
 * for each feature f with weight w, h = XXH3_64bits(UTF-8 bytes of f, seed
 * 0); for every bit b add +w to sum[b] if bit b of h is 1, else -w; bit b of
 * the fingerprint is 1 iff sum[b] > 0.  Sums run in input order in double
 * precision.  Each bit has its own sum, so vectorising across bits cannot
 * change a result.
 * These outputs are stored data: never change them.
 */
#include "simhash.h"

#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "tsearch/ts_type.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

/*
 * Sign masks: for each byte value, eight 64-bit masks that set the sign bit
 * of a double where the corresponding bit of the byte is 0.  XOR-ing w with
 * the mask gives exactly +w or -w, the contract's addend.
 */
static uint64 sign_mask[256][8];
static bool sign_mask_ready = false;

static void
init_sign_mask(void)
{
	int			byte,
				i;

	for (byte = 0; byte < 256; byte++)
		for (i = 0; i < 8; i++)
			sign_mask[byte][i] = ((byte >> i) & 1) ? 0 : UINT64CONST(0x8000000000000000);
	sign_mask_ready = true;
}

void
simhash_accum_init_words(SimHashAccum *acc, int nwords)
{
	Assert(nwords >= 1 && nwords <= SIMHASH_MAX_WORDS);
	acc->nwords = nwords;
	acc->binary = false;
	acc->nfeatures = 0;
	memset(acc->v, 0, sizeof(double) * SIMHASH_BITS * nwords);
	if (!sign_mask_ready)
		init_sign_mask();
}

void
simhash_accum_init(SimHashAccum *acc)
{
	simhash_accum_init_words(acc, 1);
}

/*
 * Add one feature to the 64 sums at v: v[b] += (bit b of h) ? w : -w.  Each
 * bit has its own IEEE addition, so the SSE2 and the portable loop give
 * identical sums.
 */
static inline void
add_word(double *v, uint64 h, double w)
{
	int			j;

#ifdef __SSE2__
	__m128d		wv = _mm_set1_pd(w);

	for (j = 0; j < 8; j++, v += 8)
	{
		const double *m = (const double *) sign_mask[(h >> (8 * j)) & 0xFF];
		int			k;

		for (k = 0; k < 8; k += 2)
			_mm_storeu_pd(v + k, _mm_add_pd(_mm_loadu_pd(v + k),
											_mm_xor_pd(wv, _mm_loadu_pd(m + k))));
	}
#else
	uint64		wbits;

	memcpy(&wbits, &w, sizeof(wbits));
	for (j = 0; j < 8; j++, v += 8)
	{
		const uint64 *m = sign_mask[(h >> (8 * j)) & 0xFF];
		int			k;

		for (k = 0; k < 8; k++)
		{
			uint64		a = wbits ^ m[k];
			double		d;

			memcpy(&d, &a, sizeof(d));
			v[k] += d;
		}
	}
#endif
}

/* Add one feature of hash h to word 0 (a 64-bit accumulator) */
void
simhash_accum_add(SimHashAccum *acc, uint64 h, double w)
{
	add_word(acc->v, h, w);
	acc->nfeatures++;
}

/*
 * Add one feature to every word: h0 is its hash of seed 0 (the caller has
 * it already), word i takes the hash of seed i of the same bytes.
 */
void
simhash_accum_add_bytes(SimHashAccum *acc, uint64 h0, const void *bytes,
						size_t len, double w)
{
	int			i;

	add_word(acc->v, h0, w);
	for (i = 1; i < acc->nwords; i++)
		add_word(acc->v + SIMHASH_BITS * i,
				 simhash_feature_hash_seed(bytes, len, i), w);
	acc->nfeatures++;
}

/*
 * Word i of the fingerprint of the sums: bit b is 1 iff sum[b] > 0 (ties
 * give 0).  A sum that overflowed to infinity or NaN would give an
 * arbitrary bit, so it is an error (22003) instead.
 */
static uint64
accum_word(const SimHashAccum *acc, int i)
{
	const double *v = acc->v + SIMHASH_BITS * i;
	uint64		r = 0;
	int			b;

	for (b = 0; b < SIMHASH_BITS; b++)
	{
		if (!isfinite(v[b]))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("simhash weight sum out of range"),
					 errdetail("The weights add up to more than the range of double precision.")));
		if (v[b] > 0)
			r |= UINT64CONST(1) << b;
	}
	return r;
}

/* The 64-bit fingerprint (word 0) */
SimHash
simhash_accum_result(const SimHashAccum *acc)
{
	return accum_word(acc, 0);
}

/*
 * The fingerprint as the Datum of its type: a simhash by value, or the
 * words of a simhash128 or simhash256 in palloc'd memory.
 */
Datum
simhash_accum_datum(const SimHashAccum *acc)
{
	uint64	   *w;
	int			i;

	if (acc->nwords == 1)
		return SimHashGetDatum(accum_word(acc, 0));
	w = (uint64 *) palloc(sizeof(uint64) * acc->nwords);
	for (i = 0; i < acc->nwords; i++)
		w[i] = accum_word(acc, i);
	return PointerGetDatum(w);
}

/*
 * A fingerprint of each width from one function that fills the
 * accumulator: fill(fcinfo, acc) adds the features of the arguments.
 */
Datum
simhash_fingerprint_of(FunctionCallInfo fcinfo, int nwords,
					   SimHashFill fill)
{
	SimHashAccum acc;

	simhash_accum_init_words(&acc, nwords);
	fill(fcinfo, &acc);
	return simhash_accum_datum(&acc);
}

/* The same with binary weights: the tokenizer adds 1 for each feature */
Datum
simhash_fingerprint_binary_of(FunctionCallInfo fcinfo, int nwords,
							  SimHashFill fill)
{
	SimHashAccum acc;

	simhash_accum_init_words(&acc, nwords);
	acc.binary = true;
	fill(fcinfo, &acc);
	return simhash_accum_datum(&acc);
}

/* Weights must be finite numbers (22023); negative weights are allowed. */
void
simhash_check_weight(double w)
{
	if (!isfinite(w))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("simhash weight must be a finite number, not %g", w)));
}

/*
 * ln(x) for x >= 1 from +, -, *, / and frexp only: those are exact or
 * correctly rounded by IEEE 754 on every platform, whereas libm's log() may
 * differ in the last bit between C libraries, which would change stored
 * fingerprints.  x = m * 2^e with m in [sqrt(1/2), sqrt(2)), and
 * ln(m) = 2 atanh((m - 1) / (m + 1)) by its odd power series.
 */
static double
fixed_ln(double x)
{
	int			e;
	double		m = frexp(x, &e);
	double		z,
				z2,
				p;
	int			k;

	if (m < 0.70710678118654752440)
	{
		m *= 2.0;
		e--;
	}
	z = (m - 1.0) / (m + 1.0);
	z2 = z * z;
	/* |z| < 0.1716: 14 terms leave an error far below one ulp */
	p = 1.0 / 29.0;
	for (k = 13; k >= 0; k--)
		p = p * z2 + 1.0 / (double) (2 * k + 1);
	return (double) e * 0.69314718055994530942 + 2.0 * z * p;
}

/*
 * Weight of a feature seen tf times in one text: 1 + ln(tf), so that one
 * very frequent token cannot fix all 64 bits.
 */
#define TF_CACHE 256
static double tf_weight_cache[TF_CACHE];
static bool tf_weight_ready = false;

double
simhash_tf_weight(uint64 tf)
{
	if (tf <= 1)
		return 1.0;
	if (tf < TF_CACHE)
	{
		if (!tf_weight_ready)
		{
			int			i;

			tf_weight_cache[0] = tf_weight_cache[1] = 1.0;
			for (i = 2; i < TF_CACHE; i++)
				tf_weight_cache[i] = 1.0 + fixed_ln((double) i);
			tf_weight_ready = true;
		}
		return tf_weight_cache[tf];
	}
	return 1.0 + fixed_ln((double) tf);
}

/*
 * Server-encoded bytes as UTF-8, converting if the database is not UTF8.
 * Returns the input pointer itself when no conversion is needed.
 */
const char *
simhash_to_utf8(const char *s, int len, int *outlen)
{
	char	   *u;

	if (GetDatabaseEncoding() == PG_UTF8)
	{
		*outlen = len;
		return s;
	}
	u = pg_server_to_any(s, len, PG_UTF8);
	*outlen = (u == s) ? len : (int) strlen(u);
	return u;
}

static void
add_text_feature(SimHashAccum *acc, text *t, double w)
{
	int			len;
	const char *u = simhash_to_utf8(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t), &len);

	simhash_accum_add_bytes(acc, simhash_feature_hash(u, len), u, len, w);
}

/* Arrays must be one-dimensional (or empty); otherwise 2202E. */
static void
check_array(ArrayType *a, const char *what)
{
	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s array must be one-dimensional", what)));
}

/*
 * The elements of a one-dimensional array of text, float8 or int4 (what
 * names it in the 2202E error), and in *nulls which of them are null.
 */
static Datum *
array_elements(ArrayType *a, Oid elemtype, const char *what, bool **nulls,
			   int *n)
{
	Datum	   *d;

	check_array(a, what);
	if (elemtype == TEXTOID)
		deconstruct_array(a, TEXTOID, -1, false, TYPALIGN_INT, &d, nulls, n);
	else if (elemtype == FLOAT8OID)
		deconstruct_array(a, FLOAT8OID, sizeof(float8), FLOAT8PASSBYVAL,
						  TYPALIGN_DOUBLE, &d, nulls, n);
	else
	{
		Assert(elemtype == INT4OID);
		deconstruct_array(a, INT4OID, sizeof(int32), true, TYPALIGN_INT,
						  &d, nulls, n);
	}
	return d;
}

static void
no_nulls(bool *nulls, int n, const char *what)
{
	int			i;

	for (i = 0; i < n; i++)
		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s array must not contain nulls", what),
					 errdetail("Element %d is null.", i + 1)));
}

static void
same_length(int n1, int n2, const char *what1, const char *what2)
{
	if (n1 != n2)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s and %s arrays must have the same length", what1, what2),
				 errdetail("They have %d and %d elements.", n1, n2)));
}

/*
 * to_simhash(features text[]) -> simhash (and to_simhash128, to_simhash256)
 *		Each element is a feature of weight 1, in array order; a repeated
 *		feature counts again.  Empty array: all bits 0.  Errors:
 *		multi-dimensional array 2202E, null element 22004.
 */
static void
fill_features(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	bool	   *fn;
	int			n,
				i;
	Datum	   *fd = array_elements(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, "feature",
									&fn, &n);

	no_nulls(fn, n, "feature");
	for (i = 0; i < n; i++)
		add_text_feature(acc, DatumGetTextPP(fd[i]), 1.0);
}

SIMHASH_WIDTHS(simhash_from_features, simhash128_from_features,
			   simhash256_from_features, fill_features)

/*
 * to_simhash(features text[], weights double precision[]) -> simhash
 *		Feature i with weight i, in array order (e.g. TF-IDF weights).
 *		Errors: doc/simhash.md.
 */
static void
fill_weighted_features(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	bool	   *fn,
			   *wn;
	int			n,
				nw,
				i;
	Datum	   *fd = array_elements(PG_GETARG_ARRAYTYPE_P(0), TEXTOID, "feature",
									&fn, &n);
	Datum	   *wd = array_elements(PG_GETARG_ARRAYTYPE_P(1), FLOAT8OID, "weight",
									&wn, &nw);

	same_length(n, nw, "feature", "weight");
	no_nulls(fn, n, "feature");
	no_nulls(wn, nw, "weight");
	for (i = 0; i < n; i++)
	{
		double		w = DatumGetFloat8(wd[i]);

		simhash_check_weight(w);
		add_text_feature(acc, DatumGetTextPP(fd[i]), w);
	}
}

SIMHASH_WIDTHS(simhash_from_weighted_features, simhash128_from_weighted_features,
			   simhash256_from_weighted_features, fill_weighted_features)

/*
 * simhash_agg(feature text [, weight double precision]): aggregate state,
 * and simhash128_agg, simhash256_agg.  The state is a SimHashAccum of
 * nwords words in the aggregate memory context.  Rows with a NULL feature
 * or weight are skipped, as strict aggregates do.
 */
static Datum
agg_transfn(FunctionCallInfo fcinfo, int nwords)
{
	MemoryContext aggcxt;
	SimHashAccum *acc;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "simhash_agg_transfn called in non-aggregate context");

	if (PG_ARGISNULL(0))
	{
		acc = (SimHashAccum *) MemoryContextAlloc(aggcxt, sizeof(SimHashAccum));
		simhash_accum_init_words(acc, nwords);
	}
	else
		acc = (SimHashAccum *) PG_GETARG_POINTER(0);

	/* simhash_agg(feature) has weight 1; simhash_agg(feature, weight) */
	if (!PG_ARGISNULL(1) && (PG_NARGS() < 3 || !PG_ARGISNULL(2)))
	{
		double		w = PG_NARGS() < 3 ? 1.0 : PG_GETARG_FLOAT8(2);

		simhash_check_weight(w);
		add_text_feature(acc, PG_GETARG_TEXT_PP(1), w);
	}
	PG_RETURN_POINTER(acc);
}

PG_FUNCTION_INFO_V1(simhash_agg_transfn);
Datum
simhash_agg_transfn(PG_FUNCTION_ARGS)
{
	return agg_transfn(fcinfo, 1);
}

PG_FUNCTION_INFO_V1(simhash128_agg_transfn);
Datum
simhash128_agg_transfn(PG_FUNCTION_ARGS)
{
	return agg_transfn(fcinfo, 2);
}

PG_FUNCTION_INFO_V1(simhash256_agg_transfn);
Datum
simhash256_agg_transfn(PG_FUNCTION_ARGS)
{
	return agg_transfn(fcinfo, 4);
}

/*
 * Combine two partial states by adding their sums.  With integral weights
 * (and sums below 2^53) this is exact, so parallel and serial plans agree
 * to the bit; with fractional weights the sums may round differently, as
 * any change of row order would.
 */
PG_FUNCTION_INFO_V1(simhash_agg_combinefn);
Datum
simhash_agg_combinefn(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	SimHashAccum *a,
			   *b;
	int			i;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		elog(ERROR, "simhash_agg_combinefn called in non-aggregate context");
	if (PG_ARGISNULL(1))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	b = (SimHashAccum *) PG_GETARG_POINTER(1);
	if (PG_ARGISNULL(0))
	{
		a = (SimHashAccum *) MemoryContextAlloc(aggcxt, sizeof(SimHashAccum));
		memcpy(a, b, sizeof(SimHashAccum));
		PG_RETURN_POINTER(a);
	}
	a = (SimHashAccum *) PG_GETARG_POINTER(0);
	Assert(a->nwords == b->nwords);
	for (i = 0; i < SIMHASH_BITS * a->nwords; i++)
		a->v[i] += b->v[i];
	a->nfeatures += b->nfeatures;
	PG_RETURN_POINTER(a);
}

/* The bytes of a state in use: its header and 64 sums per word */
static inline Size
accum_size(int nwords)
{
	return offsetof(SimHashAccum, v) + sizeof(double) * SIMHASH_BITS * nwords;
}

/*
 * The state as bytea (a word count, a feature count and 64 float8 per
 * word), for parallel aggregation
 */
PG_FUNCTION_INFO_V1(simhash_agg_serialfn);
Datum
simhash_agg_serialfn(PG_FUNCTION_ARGS)
{
	SimHashAccum *acc = (SimHashAccum *) PG_GETARG_POINTER(0);
	Size		size = accum_size(acc->nwords);
	bytea	   *b = (bytea *) palloc(VARHDRSZ + size);

	SET_VARSIZE(b, VARHDRSZ + size);
	memcpy(VARDATA(b), acc, size);
	PG_RETURN_BYTEA_P(b);
}

PG_FUNCTION_INFO_V1(simhash_agg_deserialfn);
Datum
simhash_agg_deserialfn(PG_FUNCTION_ARGS)
{
	bytea	   *b = PG_GETARG_BYTEA_PP(0);
	Size		len = VARSIZE_ANY_EXHDR(b);
	int32		nwords = 0;
	SimHashAccum *acc;

	if (len >= sizeof(int32))
		memcpy(&nwords, VARDATA_ANY(b), sizeof(int32));
	if ((nwords != 1 && nwords != 2 && nwords != 4) || len != accum_size(nwords))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid simhash_agg state")));
	acc = (SimHashAccum *) palloc(sizeof(SimHashAccum));
	memcpy(acc, VARDATA_ANY(b), len);
	PG_RETURN_POINTER(acc);
}

/*
 * Final function: the fingerprint, or NULL when no row had a feature.  One
 * for each width's aggregate, as the result types differ.
 */
static Datum
agg_finalfn(FunctionCallInfo fcinfo)
{
	SimHashAccum *acc;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	acc = (SimHashAccum *) PG_GETARG_POINTER(0);
	if (acc->nfeatures == 0)
		PG_RETURN_NULL();		/* every row had a NULL */
	return simhash_accum_datum(acc);
}

PG_FUNCTION_INFO_V1(simhash_agg_finalfn);
Datum
simhash_agg_finalfn(PG_FUNCTION_ARGS)
{
	return agg_finalfn(fcinfo);
}

PG_FUNCTION_INFO_V1(simhash128_agg_finalfn);
Datum
simhash128_agg_finalfn(PG_FUNCTION_ARGS)
{
	return agg_finalfn(fcinfo);
}

PG_FUNCTION_INFO_V1(simhash256_agg_finalfn);
Datum
simhash256_agg_finalfn(PG_FUNCTION_ARGS)
{
	return agg_finalfn(fcinfo);
}

/*
 * to_simhash(tsvector) -> simhash
 *		Each lexeme (UTF-8 bytes) weighted by its number of positions, or 1
 *		if the tsvector is stripped; lexemes in tsvector order.  PostgreSQL
 *		keeps at most 256 positions per lexeme.  Never errors.
 */
static void
fill_tsvector(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	TSVector	tsv = PG_GETARG_TSVECTOR(0);
	WordEntry  *we = ARRPTR(tsv);
	char	   *lexemes = STRPTR(tsv);
	int			i;

	for (i = 0; i < tsv->size; i++)
	{
		int			len;
		const char *u = simhash_to_utf8(lexemes + we[i].pos, we[i].len, &len);
		double		w = we[i].haspos ? (double) POSDATALEN(tsv, &we[i]) : 1.0;

		simhash_accum_add_bytes(acc, simhash_feature_hash(u, len), u, len, w);
	}
}

SIMHASH_WIDTHS(simhash_from_tsvector, simhash128_from_tsvector,
			   simhash256_from_tsvector, fill_tsvector)

/*
 * Add vector dimension d (1-based) with weight w: its feature is d as a
 * 4-byte little-endian integer, hashed with XXH3_64bits (seed i for word i)
 * (Manku et al. 2007, section 2: a hash per dimension instead of a random
 * projection matrix).
 */
static inline void
add_dimension(SimHashAccum *acc, uint32 d, double w)
{
	unsigned char le[4];

	le[0] = (unsigned char) d;
	le[1] = (unsigned char) (d >> 8);
	le[2] = (unsigned char) (d >> 16);
	le[3] = (unsigned char) (d >> 24);
	simhash_accum_add_bytes(acc, (uint64) XXH3_64bits(le, 4), le, 4, w);
}

/*
 * The values of a double precision[] vector (real[] arrives cast exactly to
 * double precision[]).  Errors: multi-dimensional 2202E, null element
 * 22004, NaN or infinite value 22023.
 */
static double *
vector_values(ArrayType *va, int *n)
{
	bool	   *vn;
	Datum	   *vd = array_elements(va, FLOAT8OID, "vector", &vn, n);
	double	   *v;
	int			i;

	no_nulls(vn, *n, "vector");
	v = (double *) palloc(sizeof(double) * Max(*n, 1));
	for (i = 0; i < *n; i++)
	{
		v[i] = DatumGetFloat8(vd[i]);
		simhash_check_weight(v[i]);
	}
	return v;
}

/*
 * to_simhash(vector double precision[]) -> simhash
 *		Dense vector: dimension i = 1..n has weight vector[i] (whatever the
 *		array's lower bound).  Errors as vector_values().
 */
static void
fill_dense(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	int			n,
				i;
	double	   *v = vector_values(PG_GETARG_ARRAYTYPE_P(0), &n);

	for (i = 0; i < n; i++)
		add_dimension(acc, (uint32) (i + 1), v[i]);
}

SIMHASH_WIDTHS(simhash_from_dense, simhash128_from_dense,
			   simhash256_from_dense, fill_dense)

typedef struct SparseEntry
{
	int32		dim;
	double		value;
} SparseEntry;

static int
sparse_cmp(const void *a, const void *b)
{
	int32		da = ((const SparseEntry *) a)->dim;
	int32		db = ((const SparseEntry *) b)->dim;

	return (da > db) - (da < db);
}

/*
 * to_simhash(dimensions integer[], vector double precision[]) -> simhash
 *		Sparse vector: dimension dimensions[i] (>= 1) has weight vector[i].
 *		Summed in ascending dimension order, so it equals the dense form of
 *		the same vector whatever the order given.  Errors: doc/simhash.md.
 */
static void
fill_sparse(FunctionCallInfo fcinfo, SimHashAccum *acc)
{
	bool	   *dn;
	int			n,
				nv,
				i;
	Datum	   *dd = array_elements(PG_GETARG_ARRAYTYPE_P(0), INT4OID, "dimension",
									&dn, &n);
	double	   *v;
	SparseEntry *e;

	no_nulls(dn, n, "dimension");
	v = vector_values(PG_GETARG_ARRAYTYPE_P(1), &nv);
	same_length(n, nv, "dimension", "vector");

	e = (SparseEntry *) palloc(sizeof(SparseEntry) * Max(n, 1));
	for (i = 0; i < n; i++)
	{
		e[i].dim = DatumGetInt32(dd[i]);
		e[i].value = v[i];
		if (e[i].dim < 1)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("vector dimension %d is out of range", e[i].dim),
					 errdetail("Dimensions are numbered from 1.")));
	}
	qsort(e, n, sizeof(SparseEntry), sparse_cmp);

	for (i = 0; i < n; i++)
	{
		if (i > 0 && e[i].dim == e[i - 1].dim)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("vector dimension %d appears more than once",
							e[i].dim)));
		add_dimension(acc, (uint32) e[i].dim, e[i].value);
	}
}

SIMHASH_WIDTHS(simhash_from_sparse, simhash128_from_sparse,
			   simhash256_from_sparse, fill_sparse)
