/*
 * batch_verify.c
 *		The verification stage of the batch functions (since 1.10):
 *		simhash_pairs (of one query or two), simhash_group_pairs and
 *		simhash_clusters with a threshold t keep a pair of rows within k
 *		bits only when the Jaccard estimate of their minhash signatures
 *		(minhash_jaccard) is at least t as well: the fingerprint finds the
 *		candidates, the signature decides (doc/minhash.md).
 *
 * The search of the batch functions runs unchanged on the groups of equal
 * fingerprints; each group is cut into subgroups of equal signatures, and a
 * pair of groups within k is a pair of subgroups to verify, one estimate
 * each.  Rows sharing a fingerprint and a signature are one subgroup: what
 * simhash_group_pairs reports as a group and simhash_clusters as a node.
 */
#include "batch_input.h"
#include "batch_output.h"
#include "batch_wide.h"

#include "funcapi.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

typedef struct Verify
{
	BatchInput *in;
	BatchKind	kind;
	double		threshold;
	uint32		nsub;			/* subgroups */
	uint32	   *sstart;			/* nsub + 1: first place of each subgroup */
	uint32	   *gsub;			/* ngroups + 1: first subgroup of each group */
	uint32	   *parent;			/* simhash_clusters: union-find of subgroups */
	Tuplestorestate *ts;
	TupleDesc	td;
	uint64		work;
} Verify;

/* The signature of the row at place p of the group order */
static inline const uint8 *
place_sig(const BatchInput *in, uint32 p)
{
	return in->sigs + (Size) in->ids[p] * SIMHASH_MINHASH_BYTES;
}

/* Order row numbers by signature, then id */
static int
cmp_sig_id(const void *x, const void *y, void *arg)
{
	const BatchInput *in = (const BatchInput *) arg;
	int64		ra = *(const int64 *) x,
				rb = *(const int64 *) y;
	int			c = memcmp(in->sigs + (Size) ra * SIMHASH_MINHASH_BYTES,
						   in->sigs + (Size) rb * SIMHASH_MINHASH_BYTES,
						   SIMHASH_MINHASH_BYTES);

	if (c != 0)
		return c;
	return (in->rowids[ra] > in->rowids[rb]) - (in->rowids[ra] < in->rowids[rb]);
}

/*
 * Cut each group into runs of equal signatures, each in ascending id order
 * (so that a subgroup's first row has its smallest id).
 */
static void
build_subgroups(Verify *v)
{
	BatchInput *in = v->in;
	uint32		g,
				p;

	v->sstart = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * (in->n + 1));
	v->gsub = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * (in->ngroups + 1));
	v->nsub = 0;
	for (g = 0; g < in->ngroups; g++)
	{
		uint32		lo = in->gstart[g],
					hi = in->gstart[g + 1];

		if (hi - lo > 1)
			qsort_arg(&in->ids[lo], hi - lo, sizeof(int64), cmp_sig_id, in);
		v->gsub[g] = v->nsub;
		for (p = lo; p < hi; p++)
			if (p == lo || memcmp(place_sig(in, p), place_sig(in, p - 1),
								  SIMHASH_MINHASH_BYTES) != 0)
				v->sstart[v->nsub++] = p;
		simhash_batch_work(&v->work, hi - lo);
	}
	v->gsub[in->ngroups] = v->nsub;
	v->sstart[v->nsub] = in->n;
}

/* The id of the row at place p */
static inline int64
place_id(const BatchInput *in, uint32 p)
{
	return in->rowids[in->ids[p]];
}

/* One output row of n values, none NULL */
static void
put_values(Verify *v, Datum *values, int n)
{
	bool		nulls[6] = {false, false, false, false, false, false};

	Assert(n <= 6);
	tuplestore_putvalues(v->ts, v->td, values, nulls);
	simhash_batch_work(&v->work, 16);
}

/*
 * Subgroups sa and sb (sa == sb: a subgroup of two or more rows alone),
 * distance d, estimate j >= threshold: the output of the function.
 */
static void
emit(Verify *v, uint32 sa, uint32 sb, int d, double j)
{
	const BatchInput *in = v->in;
	Datum		values[6];
	uint32		i,
				k;

	switch (v->kind)
	{
		case BATCH_PAIRS:
			for (i = v->sstart[sa]; i < v->sstart[sa + 1]; i++)
				for (k = (sa == sb) ? i + 1 : v->sstart[sb]; k < v->sstart[sb + 1]; k++)
				{
					int64		ia = place_id(in, i),
								ib = place_id(in, k);

					if (ia == ib)
						continue;
					values[0] = Int64GetDatum(Min(ia, ib));
					values[1] = Int64GetDatum(Max(ia, ib));
					values[2] = Int32GetDatum(d);
					values[3] = Float8GetDatum(j);
					put_values(v, values, 4);
				}
			break;
		case BATCH_CROSS_PAIRS:
			/* a row of the new query (row number below nnew) with one of
			 * the existing query, as (new id, existing id) */
			for (i = v->sstart[sa]; i < v->sstart[sa + 1]; i++)
				for (k = (sa == sb) ? i + 1 : v->sstart[sb]; k < v->sstart[sb + 1]; k++)
				{
					bool		inew = in->ids[i] < in->nnew;
					int64		ia = place_id(in, i),
								ib = place_id(in, k);

					if (inew == (in->ids[k] < in->nnew) || ia == ib)
						continue;
					values[0] = Int64GetDatum(inew ? ia : ib);
					values[1] = Int64GetDatum(inew ? ib : ia);
					values[2] = Int32GetDatum(d);
					values[3] = Float8GetDatum(j);
					put_values(v, values, 4);
				}
			break;
		case BATCH_GROUP_PAIRS:
			{
				int64		ra = place_id(in, v->sstart[sa]),
							rb = place_id(in, v->sstart[sb]);
				int64		na = v->sstart[sa + 1] - v->sstart[sa],
							nb = v->sstart[sb + 1] - v->sstart[sb];

				values[0] = Int64GetDatum(ra <= rb ? ra : rb);
				values[1] = Int64GetDatum(ra <= rb ? rb : ra);
				values[2] = Int32GetDatum(d);
				values[3] = Int64GetDatum(ra <= rb ? na : nb);
				values[4] = Int64GetDatum(ra <= rb ? nb : na);
				values[5] = Float8GetDatum(j);
				put_values(v, values, 6);
				break;
			}
		case BATCH_CLUSTERS:
			simhash_uf_union(v->parent, sa, sb);
			break;
		default:
			pg_unreachable();	/* the three functions below only */
	}
}

/* Every pair of subgroups of groups ga and gb (ga == gb: of one group) */
static void
verify_groups(Verify *v, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = v->in;
	uint32		sa,
				sb;

	/* two queries: groups of one side only never pair */
	if (in->gside != NULL && !GROUPS_CROSS(in->gside[ga], in->gside[gb]))
		return;
	for (sa = v->gsub[ga]; sa < v->gsub[ga + 1]; sa++)
	{
		const uint8 *siga = place_sig(in, v->sstart[sa]);

		for (sb = (ga == gb) ? sa + 1 : v->gsub[gb]; sb < v->gsub[gb + 1]; sb++)
		{
			double		j = simhash_minhash_similarity(siga,
													   place_sig(in, v->sstart[sb]));

			if (j >= v->threshold)
				emit(v, sa, sb, d, j);
		}
		simhash_batch_work(&v->work, v->gsub[gb + 1] - v->gsub[gb]);
	}
}

/* The PairCallback of the search: two groups within k */
static void
verify_pair_cb(void *arg, uint32 ga, uint32 gb, int d)
{
	verify_groups((Verify *) arg, ga, gb, d);
}

/*
 * Within each group (distance 0): every subgroup of two or more rows, then
 * its pairs of subgroups; then the pairs of groups within k.
 */
static void
verify_all(Verify *v, int32 k)
{
	BatchInput *in = v->in;
	const char *fname = simhash_batch_fname[v->kind];
	uint32		g,
				s;

	for (g = 0; g < in->ngroups; g++)
	{
		for (s = v->gsub[g]; s < v->gsub[g + 1]; s++)
			if (v->sstart[s + 1] - v->sstart[s] > 1)
				emit(v, s, s, 0, 1.0);
		if (v->gsub[g + 1] - v->gsub[g] > 1)
			verify_groups(v, g, g, 0);
	}
	simhash_batch_find_pairs(in, k, fname, verify_pair_cb, v);
}

/*
 * The threshold (argument 2; 3 of two queries): a number from 0 to 1, else 22023, before the
 * query runs.  Then the rows, their groups and subgroups.
 */
static int32
verify_start(FunctionCallInfo fcinfo, BatchKind kind, BatchInput *in, Verify *v)
{
	double		t = PG_GETARG_FLOAT8(kind == BATCH_CROSS_PAIRS ? 3 : 2);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int32		k;

	if (isnan(t) || t < 0.0 || t > 1.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: threshold %g is out of range", simhash_batch_fname[kind], t),
				 errdetail("The threshold of verification is a Jaccard similarity, from 0 to 1.")));
	k = simhash_batch_start(fcinfo, kind, in);
	memset(v, 0, sizeof(Verify));
	v->in = in;
	v->kind = kind;
	v->threshold = t;
	v->ts = rsinfo->setResult;
	v->td = rsinfo->setDesc;
	build_subgroups(v);
	return k;
}

/* simhash_pairs and simhash_group_pairs with a threshold: their rows */
static void
verified_pairs(FunctionCallInfo fcinfo, BatchKind kind)
{
	BatchInput	in;
	Verify		v;
	int32		k = verify_start(fcinfo, kind, &in, &v);

	verify_all(&v, k);
}

/*
 * simhash_pairs(query text, k integer, threshold double precision)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer,
 *					   jaccard double precision)
 *		Runs query, which returns (id, fp, sig) rows, sig a minhash, and
 *		returns every pair of rows within Hamming distance k whose
 *		minhash_jaccard is at least threshold, id1 < id2, once, with the
 *		estimate: the self-join a.fp <-> b.fp <= k AND minhash_jaccard(a.sig,
 *		b.sig) >= threshold AND a.id < b.id.  Rows with a NULL fingerprint
 *		or signature are skipped.  Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_pairs_verified);
Datum
simhash_pairs_verified(PG_FUNCTION_ARGS)
{
	verified_pairs(fcinfo, BATCH_PAIRS);
	return (Datum) 0;
}

/*
 * simhash_pairs(new_query text, existing_query text, k integer,
 *				 threshold double precision)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer,
 *					   jaccard double precision)
 *		The two-query form (since 1.14) with verification: the rows of
 *		simhash_pairs(new_query, existing_query, k) whose minhash_jaccard is
 *		at least threshold, with the estimate; both queries return (id, fp,
 *		sig).  Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_cross_pairs_verified);
Datum
simhash_cross_pairs_verified(PG_FUNCTION_ARGS)
{
	verified_pairs(fcinfo, BATCH_CROSS_PAIRS);
	return (Datum) 0;
}

/*
 * simhash_group_pairs(query text, k integer, threshold double precision)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer,
 *					   size1 bigint, size2 bigint, jaccard double precision)
 *		Like simhash_group_pairs(query, k), with groups of rows sharing both
 *		fingerprint and signature, and pairs of groups kept when their
 *		minhash_jaccard is at least threshold; a group alone has jaccard 1.
 *		Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_group_pairs_verified);
Datum
simhash_group_pairs_verified(PG_FUNCTION_ARGS)
{
	verified_pairs(fcinfo, BATCH_GROUP_PAIRS);
	return (Datum) 0;
}

/*
 * simhash_clusters(query text, k integer, threshold double precision)
 *		RETURNS TABLE (id bigint, cluster_id bigint)
 *		Every row of query (with a fingerprint and a signature) and the
 *		smallest id of its connected component in the graph of verified
 *		pairs (within k, minhash_jaccard at least threshold); rows sharing an
 *		id are one document.  Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_clusters_verified);
Datum
simhash_clusters_verified(PG_FUNCTION_ARGS)
{
	BatchInput	in;
	Verify		v;
	int32		k = verify_start(fcinfo, BATCH_CLUSTERS, &in, &v);
	uint32	   *rowsub;
	int64	   *minid;
	SortRec    *recs;
	uint32		s,
				i;

	v.parent = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(v.nsub, 1));
	for (s = 0; s < v.nsub; s++)
		v.parent[s] = s;
	verify_all(&v, k);
	if (in.recs != NULL)
		pfree(in.recs);			/* the search's sort area */
	in.recs = NULL;

	/* each row's subgroup, and each subgroup's smallest id */
	rowsub = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(in.n, 1));
	minid = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * Max(v.nsub, 1));
	for (s = 0; s < v.nsub; s++)
	{
		for (i = v.sstart[s]; i < v.sstart[s + 1]; i++)
			rowsub[in.ids[i]] = s;
		minid[s] = place_id(&in, v.sstart[s]);
	}

	recs = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * Max(in.n, 1));
	simhash_batch_emit_clusters(fcinfo, in.rowids, in.n, rowsub, v.parent,
								minid, v.nsub, recs);
	return (Datum) 0;
}
