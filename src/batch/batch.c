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
 * This file holds what SQL sees: the output of the pairs and the clusters
 * (union-find over the groups).  The rows are read by batch_input.c and
 * grouped by batch_sort.c; the pairs of groups within k come from the search
 * of batch_search.c (64 bits, with the loops of batch_kernels.c) or of
 * batch_wide.c (simhash128 and simhash256).  batch.h is their interface.
 */
#include "batch.h"

#include "funcapi.h"
#include "port/pg_bitutils.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#define EMIT_INTERRUPT_MASK 0x3FF	/* output rows between checks */
#define BLOCK_PAIRS_DIRECT	128		/* rows of a block group compared pair by
									 * pair, below the sorted passes' setup */

/* Every pair of groups within k, once, at the input's width */
static void
group_pairs(BatchInput *in, int k, const char *fname, PairCallback cb, void *arg)
{
	if (in->nwords == 1)
		simhash_batch_group_pairs(in, k, fname, cb, arg);
	else
		simhash_batch_wide_pairs(in, k, fname, cb, arg);
}

/* ---------- simhash_pairs, simhash_group_pairs: the output ---------- */

/*
 * The pairs found wait in a ring of EMIT_AHEAD before they are output: a
 * pair's group starts are fetched into the cache when it comes in, its
 * first ids half-way along the ring, so that the output does not wait for
 * memory (the pairs come in a random order of groups).
 */
#define EMIT_AHEAD			64

#if defined(__GNUC__) || defined(__clang__)
#define prefetch_mem(p)		__builtin_prefetch(p)
#else
#define prefetch_mem(p)		((void) 0)
#endif

typedef struct PendingPair
{
	uint32		ga,
				gb;
	int			d;
} PendingPair;

typedef struct PairsOut
{
	Tuplestorestate *ts;
	TupleDesc	td;
	const BatchInput *in;
	uint32		nput;			/* rows put, for interrupt checks */
	void		(*emit) (struct PairsOut *o, uint32 ga, uint32 gb, int d);
	uint64		nqueued;		/* pairs that entered the ring */
	int			bits;			/* simhash_block_pairs: the width, */
	int			nblocks;		/* the number of blocks for k, */
	int			block;			/* and the block number to report */
	PendingPair ring[EMIT_AHEAD];
} PairsOut;

/* Put one output row of natts values; check for interrupts now and then */
static void
put_row(PairsOut *o, Datum *values, int natts)
{
	bool		nulls[5] = {false, false, false, false, false};

	Assert(natts <= 5);
	tuplestore_putvalues(o->ts, o->td, values, nulls);
	if ((++o->nput & EMIT_INTERRUPT_MASK) == 0)
		CHECK_FOR_INTERRUPTS();
}

/* simhash_pairs: one output row (id1 < id2); none for two rows of one id */
static inline void
put_pair(PairsOut *o, int64 ia, int64 ib, int d)
{
	Datum		values[3];

	if (ia == ib)
		return;
	values[0] = Int64GetDatum(Min(ia, ib));
	values[1] = Int64GetDatum(Max(ia, ib));
	values[2] = Int32GetDatum(d);
	put_row(o, values, 3);
}

/*
 * A pair of groups (ga, gb, distance d) found: output the pair that entered
 * the ring EMIT_AHEAD pairs ago (o->emit), fetch the ids of the one that
 * entered half as long ago and the group starts of this one, and queue it.
 */
static void
queue_pair(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	PendingPair *slot = &o->ring[o->nqueued % EMIT_AHEAD];

	if (o->nqueued >= EMIT_AHEAD)
		o->emit(o, slot->ga, slot->gb, slot->d);
	if (o->nqueued >= EMIT_AHEAD / 2)
	{
		const PendingPair *half = &o->ring[(o->nqueued - EMIT_AHEAD / 2) % EMIT_AHEAD];

		prefetch_mem(&in->ids[in->gstart[half->ga]]);
		prefetch_mem(&in->ids[in->gstart[half->gb]]);
	}
	prefetch_mem(&in->gstart[ga]);
	prefetch_mem(&in->gstart[gb]);
	slot->ga = ga;
	slot->gb = gb;
	slot->d = d;
	o->nqueued++;
}

/* Output the pairs left in the ring, in the order they came */
static void
flush_pairs(PairsOut *o)
{
	uint64		i;

	for (i = o->nqueued > EMIT_AHEAD ? o->nqueued - EMIT_AHEAD : 0; i < o->nqueued; i++)
	{
		const PendingPair *p = &o->ring[i % EMIT_AHEAD];

		o->emit(o, p->ga, p->gb, p->d);
	}
	o->nqueued = 0;
}

/* simhash_pairs: the pairs of rows of a group, and of two groups */
static void
emit_row_pairs(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	uint32		i,
				j;

	/* all fingerprints distinct: group g is row g */
	if (in->ngroups == in->n && ga != gb)
	{
		put_pair(o, in->ids[ga], in->ids[gb], d);
		return;
	}
	for (i = in->gstart[ga]; i < in->gstart[ga + 1]; i++)
	{
		/* inside one group (ga == gb) every pair once: j after i */
		for (j = (ga == gb) ? i + 1 : in->gstart[gb]; j < in->gstart[gb + 1]; j++)
			put_pair(o, in->ids[i], in->ids[j], d);
		CHECK_FOR_INTERRUPTS();
	}
}

/* simhash_group_pairs: one row for two groups, or for a group alone */
static void
emit_group_pair(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	int64		ra = in->ids[in->gstart[ga]],
				rb = in->ids[in->gstart[gb]];
	int64		sa = in->gstart[ga + 1] - in->gstart[ga],
				sb = in->gstart[gb + 1] - in->gstart[gb];
	Datum		values[5];

	values[0] = Int64GetDatum(ra <= rb ? ra : rb);
	values[1] = Int64GetDatum(ra <= rb ? rb : ra);
	values[2] = Int32GetDatum(d);
	values[3] = Int64GetDatum(ra <= rb ? sa : sb);
	values[4] = Int64GetDatum(ra <= rb ? sb : sa);
	put_row(o, values, 5);
}

/*
 * simhash_block_pairs: the pairs of rows of two groups whose first equal
 * block is the one reported, so that each pair comes out in one group of
 * the block keys only, whichever shard holds the others.
 */
static void
emit_block_pairs(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	int			nw = in->nwords;

	if (simhash_first_equal_block(&in->gfp[(Size) ga * nw], &in->gfp[(Size) gb * nw],
								  o->bits, o->nblocks) == o->block)
		emit_row_pairs(o, ga, gb, d);
}

/* The PairCallback of both: every pair of groups goes through the ring */
static void
queue_pair_cb(void *arg, uint32 ga, uint32 gb, int d)
{
	queue_pair((PairsOut *) arg, ga, gb, d);
}

/* The output of a pairs function into its materialized result */
static void
pairs_out_init(PairsOut *o, FunctionCallInfo fcinfo, BatchInput *in,
			   void (*emit) (PairsOut *o, uint32 ga, uint32 gb, int d))
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	o->ts = rsinfo->setResult;
	o->td = rsinfo->setDesc;
	o->in = in;
	o->nput = 0;
	o->emit = emit;
	o->nqueued = 0;
}

/* Every group of two or more rows, then every pair of groups within k */
static void
output_pairs(PairsOut *o, BatchInput *in, int32 k, const char *fname)
{
	uint32		g;

	for (g = 0; g < in->ngroups; g++)
		if (in->gstart[g + 1] - in->gstart[g] > 1)
			o->emit(o, g, g, 0);
	group_pairs(in, k, fname, queue_pair_cb, o);
	flush_pairs(o);
}

/*
 * simhash_pairs and simhash_group_pairs: a row (or the rows) for every
 * group of two or more rows, then for every pair of groups within k.
 */
static Datum
pairs_srf(FunctionCallInfo fcinfo, BatchKind kind,
		  void (*emit) (PairsOut *o, uint32 ga, uint32 gb, int d))
{
	BatchInput	in;
	int32		k = simhash_batch_start(fcinfo, kind, &in);
	PairsOut	out;

	if (in.spill)
	{
		simhash_batch_spill_run(fcinfo, in.spill, k);
		return (Datum) 0;
	}
	pairs_out_init(&out, fcinfo, &in, emit);
	output_pairs(&out, &in, k, simhash_batch_fname[kind]);
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
	return pairs_srf(fcinfo, BATCH_PAIRS, emit_row_pairs);
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
	return pairs_srf(fcinfo, BATCH_GROUP_PAIRS, emit_group_pair);
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

	pairs_out_init(&out, fcinfo, &in, emit_block_pairs);
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
					put_pair(&out, in.ids[i], in.ids[j], d);
			}
		return (Datum) 0;
	}
	if (in.nwords == 1)
		simhash_batch_build_groups(&in);
	else
		simhash_batch_wide_groups(&in);
	output_pairs(&out, &in, k, "simhash_block_pairs");
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

/* Bucket callback of the id sort: rows sharing an id join their nodes */
typedef struct IdJoin
{
	uint32	   *parent;
	const uint32 *rownode;
} IdJoin;

static void
join_equal_ids(void *arg, SortRec *r, uint32 n)
{
	IdJoin	   *st = (IdJoin *) arg;
	uint32		i;

	for (i = 1; i < n; i++)
		if (r[i].key == r[i - 1].key)
			simhash_uf_union(st->parent, st->rownode[r[i].row],
							 st->rownode[r[i - 1].row]);
}

/*
 * The output of both forms of simhash_clusters.  Row r (ids[r]) is node
 * rownode[r] of the union-find parent[] over nnodes nodes, and minid[] holds
 * each node's smallest id (overwritten).  Rows sharing an id are one
 * document, so their nodes join first; then one output row per id, in id
 * order.  recs has room for n records.
 */
void
simhash_batch_emit_clusters(FunctionCallInfo fcinfo, const int64 *ids,
							uint32 n, const uint32 *rownode, uint32 *parent,
							int64 *minid, uint32 nnodes, SortRec *recs)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	IdJoin		st;
	SortRec    *tmp;
	uint32		g,
				i;

	st.parent = parent;
	st.rownode = rownode;
	tmp = MemoryContextAllocHuge(CurrentMemoryContext,
								 sizeof(SortRec) * simhash_batch_tmp_records(n));
	simhash_batch_sort_records((const uint64 *) ids, n, NULL,
							   UINT64CONST(1) << 63, 64, recs, tmp,
							   join_equal_ids, &st);
	pfree(tmp);

	/* the smallest id of each component, at its root */
	for (g = 0; g < nnodes; g++)
	{
		uint32		r = simhash_uf_find(parent, g);

		if (minid[g] < minid[r])
			minid[r] = minid[g];
	}
	for (i = 0; i < n; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		uint32		row = recs[i].row;

		if (i > 0 && recs[i].key == recs[i - 1].key)
			continue;
		values[0] = Int64GetDatum(ids[row]);
		values[1] = Int64GetDatum(minid[simhash_uf_find(parent, rownode[row])]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if ((i & INTERRUPT_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
	}
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
		simhash_batch_spill_run(fcinfo, in.spill, k);
		return (Datum) 0;
	}
	uf.parent = MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(uint32) * Max(in.ngroups, 1));
	for (g = 0; g < in.ngroups; g++)
		uf.parent[g] = g;
	group_pairs(&in, k, "simhash_clusters", uf_union, &uf);

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
