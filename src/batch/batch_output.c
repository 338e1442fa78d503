/*
 * batch_output.c
 *		The output of the batch functions into their materialized result:
 *		the rows of simhash_pairs (of one query or two), simhash_group_pairs
 *		and simhash_block_pairs for the pairs of groups the search finds,
 *		and the (id, cluster_id) rows of both forms of simhash_clusters.
 */
#include "batch_output.h"
#include "batch_sort.h"
#include "batch_wide.h"

#include "funcapi.h"
#include "utils/memutils.h"

#define EMIT_INTERRUPT_MASK 0x3FF	/* output rows between checks */

/* ---------- simhash_pairs, simhash_group_pairs: the pairs ---------- */

/*
 * The pairs found wait in a ring of EMIT_AHEAD (batch_output.h) before they
 * are output: a pair's group starts are fetched into the cache when it
 * comes in, its first ids half-way along the ring, so that the output does
 * not wait for memory (the pairs come in a random order of groups).
 */
#if defined(__GNUC__) || defined(__clang__)
#define prefetch_mem(p)		__builtin_prefetch(p)
#else
#define prefetch_mem(p)		((void) 0)
#endif

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

/* put_pair for the SQL functions (simhash_block_pairs' small groups) */
void
simhash_batch_put_pair(PairsOut *o, int64 ia, int64 ib, int d)
{
	put_pair(o, ia, ib, d);
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

/*
 * simhash_pairs of two queries: the pairs of a row of the new query (row
 * number below nnew) and a row of the existing one, of one group or two,
 * as (new id, existing id); none for two rows of one id.
 */
static void
emit_cross_pairs(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	uint32		i,
				j;

	if (!GROUPS_CROSS(in->gside[ga], in->gside[gb]))
		return;
	for (i = in->gstart[ga]; i < in->gstart[ga + 1]; i++)
	{
		int64		ri = in->ids[i];

		for (j = (ga == gb) ? i + 1 : in->gstart[gb]; j < in->gstart[gb + 1]; j++)
		{
			int64		rj = in->ids[j];
			int64		inew,
						iold;
			Datum		values[3];

			if ((ri < in->nnew) == (rj < in->nnew))
				continue;
			inew = in->rowids[ri < in->nnew ? ri : rj];
			iold = in->rowids[ri < in->nnew ? rj : ri];
			if (inew == iold)
				continue;
			values[0] = Int64GetDatum(inew);
			values[1] = Int64GetDatum(iold);
			values[2] = Int32GetDatum(d);
			put_row(o, values, 3);
		}
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
	PairsOut   *o = (PairsOut *) arg;

	/* two queries: a pair of groups of one side only is no output */
	if (o->in->gside != NULL && !GROUPS_CROSS(o->in->gside[ga], o->in->gside[gb]))
		return;
	queue_pair(o, ga, gb, d);
}

/*
 * The output of a pairs function of this kind into its materialized
 * result: simhash_block_pairs sets bits, nblocks and block besides.
 */
void
simhash_batch_pairs_out_init(PairsOut *o, FunctionCallInfo fcinfo,
							 BatchInput *in, BatchKind kind)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	o->ts = rsinfo->setResult;
	o->td = rsinfo->setDesc;
	o->in = in;
	o->nput = 0;
	o->emit = kind == BATCH_GROUP_PAIRS ? emit_group_pair :
		kind == BATCH_BLOCK_PAIRS ? emit_block_pairs :
		kind == BATCH_CROSS_PAIRS ? emit_cross_pairs : emit_row_pairs;
	o->nqueued = 0;
}

/*
 * Every group of two or more rows, then every pair of groups within k (of
 * some words' passes, when in->one_word)
 */
void
simhash_batch_output_pairs(PairsOut *o, BatchInput *in, int32 k,
						   const char *fname)
{
	uint32		g;

	/* some words' passes (simhash_word_pairs): the groups are word 0's */
	if (!in->one_word || (in->words & 1))
		for (g = 0; g < in->ngroups; g++)
			if (in->gstart[g + 1] - in->gstart[g] > 1)
				o->emit(o, g, g, 0);
	if (in->one_word)
		simhash_batch_find_word_pairs(in, k, in->words, fname, queue_pair_cb, o);
	else
		simhash_batch_find_pairs(in, k, fname, queue_pair_cb, o);
	flush_pairs(o);
}

/* ---------- simhash_clusters: (id, cluster_id) ---------- */

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

