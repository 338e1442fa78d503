/*
 * batch.c
 *		The batch functions: simhash_pairs, simhash_group_pairs and
 *		simhash_clusters, all near-duplicate pairs of a set of fingerprints
 *		and its clusters, in a few sorted passes (Manku, Jain, Das Sarma
 *		2007, section 3).
 *
 * Rows sharing one fingerprint form a group: the fingerprints are sorted
 * once and each distinct fingerprint is kept with the list of its rows, so
 * that a run of equal fingerprints costs one entry in what follows, never a
 * pair per two rows (only simhash_pairs, whose output lists those pairs,
 * enumerates them).
 *
 * This file holds what SQL calls, the top layer of the batch module
 * (batch_common.h lists the layers): the rows are read and grouped by
 * batch_input.c, the pairs of groups within k come from the search of
 * batch_wide.c (any width; 64 bits through batch_search.c), the rows of
 * the result are written by batch_output.c, or by batch_spill.c beyond
 * maintenance_work_mem.  The clusters are a union-find over the groups.
 */
#include "batch_input.h"
#include "batch_output.h"
#include "batch_spill.h"
#include "batch_wide.h"

#include "catalog/pg_type.h"
#include "port/pg_bitutils.h"
#include "utils/array.h"
#include "utils/memutils.h"

#define BLOCK_PAIRS_DIRECT	128		/* rows of a block group compared pair by
									 * pair, below the sorted passes' setup */

/*
 * simhash_pairs (of one query or two) and simhash_group_pairs: a row (or
 * the rows) for every group of two or more rows, then for every pair of
 * groups within k.
 */
static Datum
pairs_srf(FunctionCallInfo fcinfo, BatchKind kind)
{
	BatchInput	in;
	int32		k = simhash_batch_start(fcinfo, kind, &in);
	PairsOut	out;

	if (in.spill)
	{
		simhash_batch_spill_run(fcinfo, in.spill, k, ALL_WORDS(in.nwords));
		return (Datum) 0;
	}
	simhash_batch_pairs_out_init(&out, fcinfo, &in, kind);
	simhash_batch_output_pairs(&out, &in, k, simhash_batch_fname[kind]);
	return (Datum) 0;
}

/*
 * simhash_pairs(query text, k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
 *		Runs query, which returns (id, fp) rows, fp a simhash, simhash128
 *		or simhash256, and returns every pair of its rows within Hamming
 *		distance k with id1 < id2, once: the same rows as the self-join
 *		a.fp <-> b.fp <= k AND a.id < b.id.  Rows with a NULL fingerprint
 *		are skipped.  Errors: doc/simhash.md, "Batch functions".  Volatile
 *		(it runs a query), strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_pairs);
Datum
simhash_pairs(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, BATCH_PAIRS);
}

/*
 * simhash_pairs(new_query text, existing_query text, k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
 *		The two-query form (since 1.14): runs both queries, which return
 *		(id, fp) rows of one width, and returns every pair of a row of
 *		new_query (id1) and a row of existing_query (id2) within Hamming
 *		distance k with id1 <> id2: the same rows as the join n.fp <-> e.fp
 *		<= k AND n.id <> e.id.  One search over the rows of both, marked
 *		with their side; pairs of groups of one side only are not measured
 *		(128 and 256 bits) or not output.  Errors: those of the one-query
 *		form, and 42804 for two widths.  Volatile, strict, parallel
 *		restricted.
 */
PG_FUNCTION_INFO_V1(simhash_cross_pairs);
Datum
simhash_cross_pairs(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, BATCH_CROSS_PAIRS);
}

/*
 * simhash_group_pairs(query text, k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer,
 *					   size1 bigint, size2 bigint)
 *		Like simhash_pairs, with the rows of each fingerprint collapsed into
 *		one group, represented by its smallest id; size is its number of
 *		rows.  A group of two or more rows comes out once by itself (id1 =
 *		id2, distance 0, size1 = size2); two groups within k come out once
 *		(id1 < id2).  Rows with a NULL fingerprint are skipped.  Errors as
 *		simhash_pairs.  Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_group_pairs);
Datum
simhash_group_pairs(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, BATCH_GROUP_PAIRS);
}

/*
 * The passes of the words set in `words` over the rows of `in`, into the
 * result of simhash_word_pairs
 */
static Datum
word_pairs(FunctionCallInfo fcinfo, BatchInput *in, int32 k, uint32 words)
{
	PairsOut	out;

	if (in->spill)
	{
		simhash_batch_spill_run(fcinfo, in->spill, k, words);
		return (Datum) 0;
	}
	in->one_word = true;
	in->words = words;
	simhash_batch_pairs_out_init(&out, fcinfo, in, BATCH_WORD_PAIRS);
	simhash_batch_output_pairs(&out, in, k, "simhash_word_pairs");
	return (Datum) 0;
}

/*
 * simhash_word_pairs(query text, k integer, word integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
 *		The pairs of simhash_pairs(query, k) that the pass of word `word`
 *		reports (batch_wide.c): within k, within that word's radius in it
 *		and in no earlier word within its radius; the pairs of equal
 *		fingerprints in word 0's.  Over the words 0 .. min(k + 1, W / 64) - 1
 *		the union is simhash_pairs, each pair once, so the passes can run
 *		apart (simhash_distributed_pairs).  Errors: those of simhash_pairs;
 *		a word outside the fingerprint, 22023.  Volatile, strict, parallel
 *		restricted.
 */
PG_FUNCTION_INFO_V1(simhash_word_pairs);
Datum
simhash_word_pairs(PG_FUNCTION_ARGS)
{
	int32		word = PG_GETARG_INT32(2);
	BatchInput	in;
	int32		k;

	if (word < 0 || word >= SIMHASH_MAX_WORDS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("simhash_word_pairs: word %d is out of range", word),
				 errdetail("A fingerprint has the words 0 to %d (simhash256), 0 and 1 (simhash128) or 0 (simhash).",
						   SIMHASH_MAX_WORDS - 1)));
	k = simhash_batch_start(fcinfo, BATCH_WORD_PAIRS, &in);
	if (word >= in.nwords)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("simhash_word_pairs: word %d is out of range", word),
				 errdetail("A %d-bit fingerprint has the words 0 to %d.",
						   in.nwords * SIMHASH_BITS, in.nwords - 1)));
	return word_pairs(fcinfo, &in, k, 1U << word);
}

/*
 * simhash_word_passes(query text, k integer, words integer[])
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
 *		The pairs the passes of the given words report, as the union of
 *		simhash_word_pairs(query, k, w) over them (each word once), the
 *		rows read and grouped once (since 1.13).  Errors: those of
 *		simhash_pairs; a word outside the fingerprint, 22023; a NULL word,
 *		22004.  Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_word_passes);
Datum
simhash_word_passes(PG_FUNCTION_ARGS)
{
	ArrayType  *arr = PG_GETARG_ARRAYTYPE_P(2);
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				i;
	uint32		words = 0;
	BatchInput	in;
	int32		k;

	deconstruct_array(arr, INT4OID, sizeof(int32), true, TYPALIGN_INT,
					  &elems, &nulls, &n);
	for (i = 0; i < n; i++)
	{
		int32		w;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("simhash_word_passes: words must not contain NULL")));
		w = DatumGetInt32(elems[i]);
		if (w < 0 || w >= SIMHASH_MAX_WORDS)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("simhash_word_passes: word %d is out of range", w),
					 errdetail("A fingerprint has the words 0 to %d (simhash256), 0 and 1 (simhash128) or 0 (simhash).",
							   SIMHASH_MAX_WORDS - 1)));
		words |= 1U << w;
	}
	k = simhash_batch_start(fcinfo, BATCH_WORD_PAIRS, &in);
	for (i = 0; i < SIMHASH_MAX_WORDS; i++)
		if ((words & (1U << i)) && i >= in.nwords)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("simhash_word_passes: word %d is out of range", i),
					 errdetail("A %d-bit fingerprint has the words 0 to %d.",
							   in.nwords * SIMHASH_BITS, in.nwords - 1)));
	if (words == 0)
		return (Datum) 0;		/* no pass: no pairs, the query and k checked */
	return word_pairs(fcinfo, &in, k, words);
}

/*
 * simhash_block_pairs(block bigint, ids bigint[], fps simhash[], k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer), and the
 *		same for simhash128[] and simhash256[]
 *		The pairs of rows (ids[i], fps[i]) within k whose first equal block
 *		(simhash_blocks(fp, k)) is the block of the key block: run on each
 *		group of a table spread by block key, the union of the groups'
 *		output is simhash_pairs of the table, each pair once.  Errors:
 *		doc/simhash.md, "Distributed tables (Citus)".  Immutable, strict, parallel
 *		safe.
 */
PG_FUNCTION_INFO_V1(simhash_block_pairs);
Datum
simhash_block_pairs(PG_FUNCTION_ARGS)
{
	int64		key = PG_GETARG_INT64(0);
	BatchInput	in;
	int32		k = simhash_batch_start_arrays(fcinfo, BATCH_BLOCK_PAIRS, &in);
	PairsOut	out;

	simhash_batch_pairs_out_init(&out, fcinfo, &in, BATCH_BLOCK_PAIRS);
	out.bits = in.nwords * SIMHASH_BITS;
	out.nblocks = simhash_block_count(out.bits, k, "simhash_block_pairs");
	out.block = (int) (key >> 32);
	if (key < 0 || out.block >= out.nblocks)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("simhash_block_pairs: %lld is not a block key for radius %d",
						(long long) key, k),
				 errdetail("A key of simhash_blocks(fp, %d) has a block number from 0 to %d in its high 32 bits.",
						   k, out.nblocks - 1)));
	if (in.n <= BLOCK_PAIRS_DIRECT)
	{
		/* a small group (the usual one): every pair, without the passes */
		uint32		i,
					j;
		int			nw = in.nwords;

		for (i = 0; i < in.n; i++)
			for (j = i + 1; j < in.n; j++)
			{
				const uint64 *a = &in.fps[(Size) i * nw],
						   *b = &in.fps[(Size) j * nw];
				int			d = 0,
							w;

				for (w = 0; w < nw; w++)
					d += pg_popcount64(a[w] ^ b[w]);
				if (d <= k &&
					simhash_first_equal_block(a, b, out.bits, out.nblocks) == out.block)
					simhash_batch_put_pair(&out, in.ids[i], in.ids[j], d);
			}
		return (Datum) 0;
	}
	simhash_batch_group_rows(&in);
	simhash_batch_output_pairs(&out, &in, k, "simhash_block_pairs");
	return (Datum) 0;
}

/* ---------- clusters: union-find over the groups ---------- */

typedef struct UnionFind
{
	uint32	   *parent;
} UnionFind;

/* PairCallback of simhash_clusters: two groups within k join */
static void
uf_union(void *arg, uint32 a, uint32 b, int d)
{
	simhash_uf_union(((UnionFind *) arg)->parent, a, b);
}

/*
 * simhash_clusters(query text, k integer)
 *		RETURNS TABLE (id bigint, cluster_id bigint)
 *		Every row of query (with a fingerprint) and the smallest id of its
 *		connected component in the graph of pairs within k.  Near-duplicate
 *		is not transitive: a component can hold members more than k apart,
 *		linked through others.  Rows sharing an id are one document (one
 *		output row); rows sharing a fingerprint are one node (never a pair
 *		each).  Errors as simhash_pairs.  Volatile, strict, parallel
 *		restricted.
 */
PG_FUNCTION_INFO_V1(simhash_clusters);
Datum
simhash_clusters(PG_FUNCTION_ARGS)
{
	BatchInput	in;
	int32		k = simhash_batch_start(fcinfo, BATCH_CLUSTERS, &in);
	UnionFind	uf;
	uint32	   *rowgroup;
	int64	   *minid;
	uint32		g,
				i;

	if (in.spill)
	{
		simhash_batch_spill_run(fcinfo, in.spill, k, ALL_WORDS(in.nwords));
		return (Datum) 0;
	}
	uf.parent = MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(uint32) * Max(in.ngroups, 1));
	for (g = 0; g < in.ngroups; g++)
		uf.parent[g] = g;
	simhash_batch_find_pairs(&in, k, "simhash_clusters", uf_union, &uf);

	/*
	 * Each row's group, and each group's smallest id (its first row) in the
	 * memory of the group fingerprints; then the group starts can go.
	 */
	if (in.recs != NULL)
		pfree(in.recs);			/* wide groups have none left */
	rowgroup = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(in.n, 1));
	minid = (int64 *) in.gfp;
	for (g = 0; g < in.ngroups; g++)
	{
		for (i = in.gstart[g]; i < in.gstart[g + 1]; i++)
			rowgroup[i] = g;
		minid[g] = in.ids[in.gstart[g]];
	}
	pfree(in.gstart);

	in.recs = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * Max(in.n, 1));
	simhash_batch_emit_clusters(fcinfo, in.ids, in.n, rowgroup, uf.parent,
								minid, in.ngroups, in.recs);
	return (Datum) 0;
}
