/*
 * features.c
 *		The features and weights a text is fingerprinted from, as rows:
 *		simhash_features, simhash_ngram_features, simhash_shingle_features.
 *
 * Each function runs the tokenizer of its fingerprint function (tokenize.c)
 * with a feature sink attached, so the features are the tokenizer's own and
 * not a second implementation of it.  The rows are the distinct features in
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
#include "utils/hsearch.h"

/* the tokenizers' own entry points (tokenize.c) */
extern PGDLLEXPORT Datum simhash_from_text(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_ngram(PG_FUNCTION_ARGS);
extern PGDLLEXPORT Datum simhash_shingle(PG_FUNCTION_ARGS);

typedef struct ListedFeature
{
	char	   *bytes;			/* UTF-8, not terminated */
	Size		len;
	uint64		tf;
	int64		next;			/* next feature with the same hash, or -1 */
} ListedFeature;

typedef struct HashEntry
{
	uint64		h;				/* key */
	int64		first;			/* first feature with this hash */
} HashEntry;

typedef struct FeatureList
{
	ListedFeature *f;			/* in order of first occurrence */
	int64		n,
				max;
	HTAB	   *byhash;
} FeatureList;

/* The sink: count one occurrence of utf8[0..len) */
static void
list_feature(void *arg, const char *utf8, Size len)
{
	FeatureList *fl = (FeatureList *) arg;
	uint64		h = simhash_feature_hash(utf8, len);
	bool		found;
	HashEntry  *e = hash_search(fl->byhash, &h, HASH_ENTER, &found);
	int64		i;
	ListedFeature *f;

	if (found)
	{
		for (i = e->first; i >= 0; i = fl->f[i].next)
		{
			f = &fl->f[i];
			if (f->len == len && memcmp(f->bytes, utf8, len) == 0)
			{
				f->tf++;
				return;
			}
		}
	}
	if (fl->n == fl->max)
	{
		fl->max *= 2;
		fl->f = repalloc_huge(fl->f, sizeof(ListedFeature) * fl->max);
	}
	f = &fl->f[fl->n];
	f->bytes = palloc(Max(len, 1));
	memcpy(f->bytes, utf8, len);
	f->len = len;
	f->tf = 1;
	/* a second feature with the same hash goes at the head of its chain */
	f->next = found ? e->first : -1;
	e->h = h;
	e->first = fl->n;
	fl->n++;
}

/*
 * Run a tokenizer's fingerprint function on the caller's arguments with the
 * sink attached, and return the rows (feature text, tf integer, weight
 * double precision) in order of first occurrence.
 */
static Datum
list_features(FunctionCallInfo fcinfo, PGFunction tokenizer)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	FeatureList fl;
	HASHCTL		ctl;
	int64		i;

	InitMaterializedSRF(fcinfo, 0);

	fl.n = 0;
	fl.max = 64;
	fl.f = palloc(sizeof(ListedFeature) * fl.max);
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(HashEntry);
	ctl.hcxt = CurrentMemoryContext;
	fl.byhash = hash_create("simhash features", 256, &ctl,
							HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);

	simhash_set_feature_sink(list_feature, &fl);
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
		simhash_set_feature_sink(NULL, NULL);
	}
	PG_END_TRY();

	for (i = 0; i < fl.n; i++)
	{
		ListedFeature *f = &fl.f[i];
		Datum		values[3];
		bool		nulls[3] = {false, false, false};
		char	   *s = pg_any_to_server(f->bytes, (int) f->len, PG_UTF8);

		values[0] = PointerGetDatum(cstring_to_text_with_len(s, s == f->bytes ? (int) f->len : (int) strlen(s)));
		/* a text is under 1 GB, so tf fits an integer */
		values[1] = Int32GetDatum((int32) f->tf);
		values[2] = Float8GetDatum(simhash_tf_weight(f->tf));
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

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
PG_FUNCTION_INFO_V1(simhash_features);
Datum
simhash_features(PG_FUNCTION_ARGS)
{
	return list_features(fcinfo, simhash_from_text);
}

/*
 * simhash_ngram_features(text, n integer DEFAULT 3) -> TABLE (feature text,
 * tf integer, weight double precision)
 *		The character n-grams of simhash_ngram(text, n), as
 *		simhash_features.  Error: n outside 1..64 is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_ngram_features);
Datum
simhash_ngram_features(PG_FUNCTION_ARGS)
{
	return list_features(fcinfo, simhash_ngram);
}

/*
 * simhash_shingle_features(text, n integer DEFAULT 3) -> TABLE (feature
 * text, tf integer, weight double precision)
 *		The word shingles of simhash_shingle(text, n), as simhash_features.
 *		Error: n outside 1..64 is 22023.
 */
PG_FUNCTION_INFO_V1(simhash_shingle_features);
Datum
simhash_shingle_features(PG_FUNCTION_ARGS)
{
	return list_features(fcinfo, simhash_shingle);
}
