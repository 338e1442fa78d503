/*
 * batch.c
 *		All near-duplicate pairs of a set of fingerprints, and its clusters,
 *		in a few sorted passes (Manku, Jain, Das Sarma 2007, section 3).
 *
 * The 64 bits are cut into m blocks.  Two fingerprints within distance k
 * differ in at most k blocks, so they agree exactly on at least t = m - k
 * of them.  For every choice T of t blocks the fingerprints are sorted by
 * their bits in T; pairs agreeing on T are neighbours in a run of equal
 * keys, and each pair of a run is measured.  A pair agrees on several
 * choices; it is reported only in the first of them (its t lowest agreeing
 * blocks), so it comes out exactly once.  m is chosen per (N, k) to balance
 * the number of sorts, C(m, t), against the length of the runs.
 */
#include "simhash.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#define MAX_BATCH_RADIUS	16
#define MAX_BLOCKS			24
#define FETCH_ROWS			10000
#define PROGRESS_SECS		10

typedef struct BatchInput
{
	int64	   *ids;
	SimHash    *fps;
	uint32		n;
} BatchInput;

typedef void (*PairCallback) (void *arg, uint32 a, uint32 b, int d);

/*
 * Memory the arrays need, in bytes: fingerprints, ids and two index arrays
 * for the pairs (24 bytes a row); simhash_clusters adds the union-find
 * parents, the id order and the labels (16 more).
 */
static Size
batch_memory(Size nrows, const char *fname)
{
	Size		per_row = sizeof(SimHash) + sizeof(int64) + 2 * sizeof(uint32);

	if (strcmp(fname, "simhash_clusters") == 0)
		per_row += 2 * sizeof(uint32) + sizeof(int64);
	return nrows * per_row;
}

static void
check_memory(Size nrows, const char *fname, bool more_to_come)
{
	Size		need = batch_memory(nrows, fname);

	if (need / 1024 > (Size) maintenance_work_mem)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs %s%zu MB of memory for %s%zu rows", fname,
						more_to_come ? "more than " : "",
						need / (1024 * 1024) + 1,
						more_to_come ? "more than " : "", nrows),
				 errdetail("It keeps %zu bytes per row in memory.", batch_memory(1, fname)),
				 errhint("Raise maintenance_work_mem (now %dkB) accordingly.",
						 maintenance_work_mem)));
}

/*
 * Run the query (with the caller's privileges) and collect its (id, fp)
 * rows; rows with a NULL fingerprint are skipped.
 */
static void
read_input(const char *query, Oid simhash_type, const char *fname, BatchInput *in)
{
	Portal		portal;
	SPIPlanPtr	plan;
	Size		cap = 1024;

	in->n = 0;
	in->ids = MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(int64));
	in->fps = MemoryContextAllocHuge(CurrentMemoryContext, cap * sizeof(SimHash));

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "%s: could not prepare the query: %s", fname,
			 SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);

	for (;;)
	{
		TupleDesc	td;
		uint64		i;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		td = SPI_tuptable->tupdesc;
		if (td->natts != 2 ||
			(TupleDescAttr(td, 0)->atttypid != INT8OID &&
			 TupleDescAttr(td, 0)->atttypid != INT4OID &&
			 TupleDescAttr(td, 0)->atttypid != INT2OID) ||
			TupleDescAttr(td, 1)->atttypid != simhash_type)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: the query must return two columns, (id bigint, fp simhash)",
							fname)));
		for (i = 0; i < SPI_processed; i++)
		{
			HeapTuple	tup = SPI_tuptable->vals[i];
			bool		idnull,
						fpnull;
			Datum		id = SPI_getbinval(tup, td, 1, &idnull);
			Datum		fp = SPI_getbinval(tup, td, 2, &fpnull);

			if (fpnull)
				continue;
			if (idnull)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s: id must not be null", fname)));
			if (in->n == PG_UINT32_MAX - 1)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s: too many rows", fname)));
			if (in->n == cap)
			{
				check_memory(in->n, fname, true);
				cap *= 2;
				in->ids = repalloc_huge(in->ids, cap * sizeof(int64));
				in->fps = repalloc_huge(in->fps, cap * sizeof(SimHash));
			}
			switch (TupleDescAttr(td, 0)->atttypid)
			{
				case INT8OID:
					in->ids[in->n] = DatumGetInt64(id);
					break;
				case INT4OID:
					in->ids[in->n] = DatumGetInt32(id);
					break;
				default:
					in->ids[in->n] = DatumGetInt16(id);
					break;
			}
			in->fps[in->n] = DatumGetSimHash(fp);
			in->n++;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	check_memory(in->n, fname, false);
}

/* C(n, r) as a double (small arguments) */
static double
binom(int n, int r)
{
	double		c = 1.0;
	int			i;

	for (i = 0; i < r; i++)
		c = c * (n - i) / (i + 1);
	return c;
}

/*
 * Number of blocks for n fingerprints and radius k: the m > k whose
 * estimated work, C(m, t) sorts plus the expected pairs in runs of
 * 64 t / m equal bits, is least.
 */
static int
choose_blocks(double n, int k)
{
	int			best = k + 1;
	double		best_cost = -1;
	int			m;

	for (m = k + 1; m <= Min(MAX_BLOCKS, k + 10); m++)
	{
		int			t = m - k;
		double		bits = 64.0 * t / m;
		double		cost = binom(m, t) * (n * 8.0 + n * n / 2.0 / pow(2.0, bits));

		if (best_cost < 0 || cost < best_cost)
		{
			best = m;
			best_cost = cost;
		}
	}
	return best;
}

/* LSD radix sort of row indices by fps[row] & mask, 8 bits at a time */
static void
sort_by_mask(const SimHash *fps, uint32 *idx, uint32 *tmp, uint32 n, uint64 mask)
{
	int			shift;

	for (shift = 0; shift < 64; shift += 8)
	{
		uint32		count[257];
		uint32		i;

		if (((mask >> shift) & 0xFF) == 0)
			continue;
		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[((fps[idx[i]] & mask) >> shift & 0xFF) + 1]++;
		for (i = 1; i <= 256; i++)
			count[i] += count[i - 1];
		for (i = 0; i < n; i++)
			tmp[count[(fps[idx[i]] & mask) >> shift & 0xFF]++] = idx[i];
		memcpy(idx, tmp, sizeof(uint32) * n);
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Every pair of rows within k, each exactly once, through cb.  Rows with
 * equal ids are not paired (pairs are id1 < id2).
 */
static void
for_each_pair(const BatchInput *in, int k, const char *fname,
			  PairCallback cb, void *arg)
{
	uint32		n = in->n;
	int			m = choose_blocks((double) n, k);
	int			t = m - k;
	uint64		blockmask[MAX_BLOCKS];
	int			combo[MAX_BLOCKS];
	uint32	   *idx,
			   *tmp;
	int			b,
				ntables,
				table = 0;
	uint64		npairs = 0;
	TimestampTz last = GetCurrentTimestamp();

	if (n < 2)
		return;
	/* blocks of 64 / m bits, the first 64 % m of them one bit longer */
	{
		int			off = 0;

		for (b = 0; b < m; b++)
		{
			int			len = 64 / m + (b < 64 % m ? 1 : 0);

			blockmask[b] = (len == 64) ? ~UINT64CONST(0) :
				(((UINT64CONST(1) << len) - 1) << off);
			off += len;
		}
	}
	ntables = (int) binom(m, t);
	idx = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * n);
	tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * n);
	for (b = 0; b < t; b++)
		combo[b] = b;

	elog(DEBUG1, "%s: %u rows, k = %d, %d blocks, %d sorted passes",
		 fname, n, k, m, ntables);

	for (;;)
	{
		uint64		mask = 0;
		uint32		start,
					end,
					i;

		for (b = 0; b < t; b++)
			mask |= blockmask[combo[b]];
		for (i = 0; i < n; i++)
			idx[i] = i;
		sort_by_mask(in->fps, idx, tmp, n, mask);

		for (start = 0; start < n; start = end)
		{
			uint64		key = in->fps[idx[start]] & mask;

			for (end = start + 1; end < n && (in->fps[idx[end]] & mask) == key; end++)
				;
			for (i = start; i + 1 < end; i++)
			{
				uint32		a = idx[i];
				uint32		j;

				if ((i & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
				for (j = i + 1; j < end; j++)
				{
					uint32		c = idx[j];
					uint64		x = in->fps[a] ^ in->fps[c];
					int			d = pg_popcount64(x);
					int			seen = 0,
								first_ok = 1,
								bb;

					if (d > k || in->ids[a] == in->ids[c])
						continue;
					/* report in the first choice of t agreeing blocks only */
					for (bb = 0; bb < m && seen < t; bb++)
					{
						if ((x & blockmask[bb]) == 0)
						{
							if (combo[seen] != bb)
							{
								first_ok = 0;
								break;
							}
							seen++;
						}
					}
					if (!first_ok)
						continue;
					cb(arg, a, c, d);
					npairs++;
				}
			}
		}
		table++;
		if (TimestampDifferenceExceeds(last, GetCurrentTimestamp(), PROGRESS_SECS * 1000))
		{
			ereport(NOTICE,
					(errmsg("%s: %d of %d sorted passes done, " UINT64_FORMAT " pairs so far",
							fname, table, ntables, npairs)));
			last = GetCurrentTimestamp();
		}

		/* next combination of t blocks out of m */
		for (b = t - 1; b >= 0 && combo[b] == m - t + b; b--)
			;
		if (b < 0)
			break;
		combo[b]++;
		for (b = b + 1; b < t; b++)
			combo[b] = combo[b - 1] + 1;
	}
	pfree(idx);
	pfree(tmp);
}

static int32
check_radius(int32 k, const char *fname)
{
	if (k < 0 || k > MAX_BATCH_RADIUS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: radius %d is out of range", fname, k),
				 errdetail("It must be between 0 and %d.", MAX_BATCH_RADIUS)));
	return k;
}

static Oid
simhash_type_of(FunctionCallInfo fcinfo)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);

	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum("simhash"), ObjectIdGetDatum(nsp));
}

typedef struct PairsOut
{
	Tuplestorestate *ts;
	TupleDesc	td;
	const BatchInput *in;
} PairsOut;

static void
emit_pair(void *arg, uint32 a, uint32 b, int d)
{
	PairsOut   *o = (PairsOut *) arg;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};
	int64		ia = o->in->ids[a],
				ib = o->in->ids[b];

	values[0] = Int64GetDatum(Min(ia, ib));
	values[1] = Int64GetDatum(Max(ia, ib));
	values[2] = Int32GetDatum(d);
	tuplestore_putvalues(o->ts, o->td, values, nulls);
}

/*
 * simhash_pairs(query text, k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
 *		Runs query, which returns (id, fp simhash) rows, and returns every
 *		pair of its rows within Hamming distance k with id1 < id2, once:
 *		the same rows as the self-join a.fp <-> b.fp <= k AND a.id < b.id.
 *		Rows with a NULL fingerprint are skipped.  Errors: k outside 0..16
 *		22023; wrong columns 42804; NULL id 22004; more memory than
 *		maintenance_work_mem 54000.  Volatile (it runs a query), strict,
 *		parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_pairs);
Datum
simhash_pairs(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		k = check_radius(PG_GETARG_INT32(1), "simhash_pairs");
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchInput	in;
	PairsOut	out;

	InitMaterializedSRF(fcinfo, 0);
	read_input(query, simhash_type_of(fcinfo), "simhash_pairs", &in);
	out.ts = rsinfo->setResult;
	out.td = rsinfo->setDesc;
	out.in = &in;
	for_each_pair(&in, k, "simhash_pairs", emit_pair, &out);
	return (Datum) 0;
}

/* ---------- clusters: union-find over the pairs ---------- */

/* order row numbers by their ids */
static int
cmp_ids(const void *x, const void *y, void *arg)
{
	const int64 *ids = (const int64 *) arg;
	int64		a = ids[*(const uint32 *) x];
	int64		b = ids[*(const uint32 *) y];

	return (a > b) - (a < b);
}


typedef struct UnionFind
{
	uint32	   *parent;
} UnionFind;

static uint32
uf_find(UnionFind *uf, uint32 x)
{
	while (uf->parent[x] != x)
	{
		uf->parent[x] = uf->parent[uf->parent[x]];	/* path halving */
		x = uf->parent[x];
	}
	return x;
}

static void
uf_union(void *arg, uint32 a, uint32 b, int d)
{
	UnionFind  *uf = (UnionFind *) arg;
	uint32		ra = uf_find(uf, a),
				rb = uf_find(uf, b);

	if (ra != rb)
		uf->parent[Max(ra, rb)] = Min(ra, rb);
}

/*
 * simhash_clusters(query text, k integer)
 *		RETURNS TABLE (id bigint, cluster_id bigint)
 *		Every row of query (with a fingerprint) and the smallest id of its
 *		connected component in the graph of pairs within k.  Near-duplicate
 *		is not transitive: a component can hold members more than k apart,
 *		linked through others.  Rows sharing an id are one document (one
 *		output row).  Errors as simhash_pairs.  Volatile, strict, parallel
 *		restricted.
 */
PG_FUNCTION_INFO_V1(simhash_clusters);
Datum
simhash_clusters(PG_FUNCTION_ARGS)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		k = check_radius(PG_GETARG_INT32(1), "simhash_clusters");
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchInput	in;
	UnionFind	uf;
	int64	   *minid;
	uint32	   *byid;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	read_input(query, simhash_type_of(fcinfo), "simhash_clusters", &in);
	uf.parent = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(in.n, 1));
	for (i = 0; i < in.n; i++)
		uf.parent[i] = i;

	/* rows with the same id are one document: link them */
	byid = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(in.n, 1));
	for (i = 0; i < in.n; i++)
		byid[i] = i;
	qsort_arg(byid, in.n, sizeof(uint32), cmp_ids, in.ids);
	for (i = 1; i < in.n; i++)
		if (in.ids[byid[i]] == in.ids[byid[i - 1]])
			uf_union(&uf, byid[i], byid[i - 1], 0);

	for_each_pair(&in, k, "simhash_clusters", uf_union, &uf);

	/* the smallest id of each component */
	minid = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * Max(in.n, 1));
	for (i = 0; i < in.n; i++)
		minid[i] = PG_INT64_MAX;
	for (i = 0; i < in.n; i++)
	{
		uint32		r = uf_find(&uf, i);

		if (in.ids[i] < minid[r])
			minid[r] = in.ids[i];
	}
	/* one row per id, in id order */
	for (i = 0; i < in.n; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		uint32		row = byid[i];

		if (i > 0 && in.ids[row] == in.ids[byid[i - 1]])
			continue;
		values[0] = Int64GetDatum(in.ids[row]);
		values[1] = Int64GetDatum(minid[uf_find(&uf, row)]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
