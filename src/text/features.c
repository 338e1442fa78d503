/*
 * features.c
 *		The features and weights a text is fingerprinted from, as rows:
 *		simhash_features, simhash_ngram_features, simhash_shingle_features.
 *
 * Each function runs the tokenizer of its fingerprint function (tokenize.c)
 * with a sink attached that receives the tokenizer's own table of distinct
 * features and counts: nothing is tokenized or counted a second time.  The rows are the distinct features in
 * order of first occurrence, each with its count tf and the weight the
 * fingerprint gives it, 1 + ln(tf) (simhash_tf_weight).  The fingerprint is
 * Charikar's sum over these rows in this order, so for every text t
 *
 *	to_simhash(t) = to_simhash(array_agg(feature ORDER BY n),
 *							   array_agg(weight ORDER BY n))
 *	  FROM simhash_features(t) WITH ORDINALITY AS f(feature, tf, weight, n)
 *
 * in a UTF8 database (test: sql/features.sql, test/crosscheck).  Replacing
 * the weights (TF-IDF) then gives a weighted fingerprint of the same
 * features.
 */
#include "simhash.h"

#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

/* the tokenizers' own entry points (tokenize.c) */
extern PGDLLEXPORT Datum simhash_from_text(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_ngram(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_shingle(PG_FUNCTION_ARGS);

/*
 * The rows being written, and one text value reused for every feature: the
 * tuplestore copies each row (to a file beyond work_mem), so the listing
 * keeps no feature of its own and stays within the tokenizer's memory.
 */
typedef struct FeatureRows
{
	ReturnSetInfo *rsinfo;
	text	   *value;			/* the current feature, as a text datum */
	Size		cap;			/* bytes allocated for value */
} FeatureRows;

/* The sink: one row per distinct feature, in the tokenizer's order */
static void
put_feature(void *arg, const char *utf8, Size len, uint32 tf)
{
	FeatureRows *rows = (FeatureRows *) arg;
	char	   *s = pg_any_to_server(utf8, (int) len, PG_UTF8);
	Size		n = (s == utf8) ? len : strlen(s);
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (VARHDRSZ + n > rows->cap)
	{
		rows->cap = Max(2 * rows->cap, VARHDRSZ + n);
		rows->value = rows->value ? repalloc(rows->value, rows->cap)
			: palloc(rows->cap);
	}
	SET_VARSIZE(rows->value, VARHDRSZ + n);
	memcpy(VARDATA(rows->value), s, n);
	if (s != utf8)
		pfree(s);

	values[0] = PointerGetDatum(rows->value);
	/* a text is under 1 GB, so tf fits an integer */
	values[1] = Int32GetDatum((int32) tf);
	values[2] = Float8GetDatum(simhash_tf_weight(tf));
	tuplestore_putvalues(rows->rsinfo->setResult, rows->rsinfo->setDesc,
						 values, nulls);
}

/*
 * Run a tokenizer's fingerprint function on the caller's arguments (one, or
 * text and n) with a sink attached that receives its table of distinct
 * features and counts; errors name fname.  Also for minhash.c.
 */
void
simhash_tokenizer_features(FunctionCallInfo fcinfo, PGFunction tokenizer,
						   const char *fname, SimHashFeatureSink sink, void *arg)
{
	simhash_set_feature_sink(sink, arg, fname);
	PG_TRY();
	{
		if (PG_NARGS() == 1)
			(void) DirectFunctionCall1(tokenizer, PG_GETARG_DATUM(0));
		else
			(void) DirectFunctionCall2(tokenizer, PG_GETARG_DATUM(0),
									   PG_GETARG_DATUM(1));
	}
	PG_FINALLY();
	{
		simhash_set_feature_sink(NULL, NULL, NULL);
	}
	PG_END_TRY();
}

/* The rows (feature text, tf integer, weight double precision) */
static Datum
list_features(FunctionCallInfo fcinfo, PGFunction tokenizer, const char *fname)
{
	FeatureRows rows = {(ReturnSetInfo *) fcinfo->resultinfo, NULL, 0};

	InitMaterializedSRF(fcinfo, 0);
	simhash_tokenizer_features(fcinfo, tokenizer, fname, put_feature, &rows);
	return (Datum) 0;
}

/* The SQL function sym: the features of tokenizer, its errors naming sym */
#define LIST_FEATURES_FUNC(sym, tokenizer) \
	SIMHASH_FUNC_RETURNING(sym, list_features(fcinfo, tokenizer, #sym))

/*
 * simhash_features(text) -> TABLE (feature text, tf integer, weight double
 * precision)
 *		The features of to_simhash(text) (words and CJK bigrams after
 *		toNFKC_Casefold), distinct, in order of first occurrence, with their
 *		count and weight 1 + ln(tf).  No rows for a text without features.
 *		Immutable, strict, parallel safe; never errors in a UTF8 database
 *		(elsewhere a feature with no equivalent in the database encoding is
 *		22P05, as any conversion).
 */
LIST_FEATURES_FUNC(simhash_features, simhash_from_text)

/*
 * simhash_ngram_features(text, n integer DEFAULT 3) -> TABLE (feature text,
 * tf integer, weight double precision)
 *		The character n-grams of simhash_ngram(text, n), as
 *		simhash_features, in the memory of simhash_ngram (the rows go to a
 *		tuplestore, a file beyond work_mem).  Errors: doc/simhash.md.
 */
LIST_FEATURES_FUNC(simhash_ngram_features, simhash_ngram)

/*
 * simhash_shingle_features(text, n integer DEFAULT 3) -> TABLE (feature
 * text, tf integer, weight double precision)
 *		The word shingles of simhash_shingle(text, n), as
 *		simhash_ngram_features.  Errors: doc/simhash.md.
 */
LIST_FEATURES_FUNC(simhash_shingle_features, simhash_shingle)
