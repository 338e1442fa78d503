/*
 * pair_clusters.c
 *		simhash_pair_clusters: connected components of a graph given by its
 *		edges, the (id1, id2) rows of a query, by union-find.  The clusters
 *		of a distributed table come from its pairs (simhash_distributed_pairs)
 *		this way, so that the coordinator keeps the ids that have a
 *		near-duplicate, never the whole table's fingerprints.  Its memory is
 *		bounded by maintenance_work_mem, as that of the other batch functions.
 */
#include "batch_common.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#define FETCH_ROWS	10000
#define ID_GROW_FILL	0.8		/* the hash table may double from this fill */

/* An id and its node: the key of the hash table from ids to nodes */
typedef struct IdNode
{
	int64		id;
	uint32		node;
	char		status;
} IdNode;

#define SH_PREFIX		idmap
#define SH_ELEMENT_TYPE IdNode
#define SH_KEY_TYPE		int64
#define SH_KEY			id
#define SH_HASH_KEY(tb, key) murmurhash32((uint32) (key) ^ (uint32) ((uint64) (key) >> 32))
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE		static inline
/* long probes make it grow only near full, when check_graph_memory counts it */
#define SH_GROW_MIN_FILLFACTOR	ID_GROW_FILL
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * The graph while it is read: the nodes are numbered in order of first
 * appearance; their ids are in the hash table only (listed by node once
 * the table is no longer needed).
 */
typedef struct Graph
{
	idmap_hash *map;
	uint32	   *parent;			/* per node: union-find */
	uint32		n;
	uint32		cap;
} Graph;

/* The node of an id, a new one (its own component) the first time */
static uint32
node_of(Graph *g, int64 id)
{
	bool		found;
	IdNode	   *e = idmap_insert(g->map, id, &found);

	if (!found)
	{
		if (g->n == g->cap)
		{
			if (g->cap >= PG_UINT32_MAX / 2)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("simhash_pair_clusters: too many ids")));
			g->cap *= 2;
			g->parent = repalloc_huge(g->parent, sizeof(uint32) * g->cap);
		}
		e->node = g->n;
		g->parent[g->n] = g->n;
		g->n++;
	}
	return e->node;
}

/*
 * 54000 unless the memory the graph may reach while the next `more` ids
 * come in (more_to_come), or at the end (the ids by node added, then the
 * output order and smallest ids once the hash table is freed), fits in
 * maintenance_work_mem.  A table or array that doubles holds its old and
 * new copies at once.  The output (tuplestore) spills to disk beyond
 * work_mem and is not counted, as for the other batch functions.
 */
static void
check_graph_memory(Graph *g, uint32 more, bool more_to_come)
{
	Size		size = g->map->size,
				cap = g->cap,
				hash,
				parent,
				need,
				nids;

	if (more_to_come)
	{
		while ((double) g->map->members + more >= size * ID_GROW_FILL)
			size *= 2;
		while ((Size) g->n + more > cap)
			cap *= 2;
		hash = sizeof(IdNode) * (size + (size > g->map->size ? size / 2 : 0));
		parent = sizeof(uint32) * (cap + (cap > g->cap ? cap / 2 : 0));
		need = hash + parent;
	}
	else
	{
		hash = sizeof(IdNode) * size;
		parent = sizeof(uint32) * cap;
		need = Max(hash + parent + sizeof(int64) * g->n,
				   parent + (2 * sizeof(int64) + sizeof(uint32)) * g->n);
	}
	/* per id: of those there may be once the rows in hand are in */
	nids = Max((Size) g->n + more, 1);
	simhash_batch_check_memory(BATCH_PAIR_CLUSTERS, need, g->n,
							   (need + nids - 1) / nids, more_to_come);
}

static int64
id_value(Datum d, Oid type)
{
	return type == INT8OID ? DatumGetInt64(d) :
		type == INT4OID ? DatumGetInt32(d) : DatumGetInt16(d);
}

static bool
is_id_type(Oid type)
{
	return type == INT8OID || type == INT4OID || type == INT2OID;
}

/* ids in ascending order, for the output */
static int
cmp_node_id(const void *a, const void *b, void *arg)
{
	const int64 *ids = (const int64 *) arg;
	int64		x = ids[*(const uint32 *) a],
				y = ids[*(const uint32 *) b];

	return (x > y) - (x < y);
}

/*
 * simhash_pair_clusters(pairs_query text)
 *		RETURNS TABLE (id bigint, cluster_id bigint)
 *		Runs pairs_query, which returns (id1, id2) rows of integer ids (the
 *		edges; each id is a document), and returns every id that occurs in
 *		it with the smallest id of its connected component, in ascending id
 *		order.  Rows with a NULL id are 22004.  Errors: doc/simhash.md,
 *		"Distributed tables (Citus)".  Volatile (it runs a query), strict,
 *		parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_pair_clusters);
Datum
simhash_pair_clusters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo;
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	MemoryContext cxt = CurrentMemoryContext;
	Graph		g;
	SPIPlanPtr	plan;
	Portal		portal;
	idmap_iterator it;
	IdNode	   *e;
	int64	   *ids;
	uint32	   *order;
	int64	   *minid;
	uint32		i;

	InitMaterializedSRF(fcinfo, 0);
	rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	g.map = idmap_create(cxt, 1024, NULL);
	g.cap = 1024;
	g.n = 0;
	g.parent = MemoryContextAllocHuge(cxt, sizeof(uint32) * g.cap);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, 0, NULL);
	if (plan == NULL)
		elog(ERROR, "simhash_pair_clusters: could not prepare the query: %s",
			 SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		TupleDesc	td;
		uint64		r;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		/* the rows fetched may add two new ids each */
		check_graph_memory(&g, 2 * (uint32) SPI_processed, true);
		td = SPI_tuptable->tupdesc;
		if (td->natts != 2 || !is_id_type(TupleDescAttr(td, 0)->atttypid) ||
			!is_id_type(TupleDescAttr(td, 1)->atttypid))
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("simhash_pair_clusters: the query must return two columns, (id1 bigint, id2 bigint)"),
					 errdetail("An id may also be an integer or a smallint.")));
		for (r = 0; r < SPI_processed; r++)
		{
			bool		n1,
						n2;
			Datum		a = SPI_getbinval(SPI_tuptable->vals[r], td, 1, &n1);
			Datum		b = SPI_getbinval(SPI_tuptable->vals[r], td, 2, &n2);
			MemoryContext old;
			uint32		na,
						nb;

			if (n1 || n2)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("simhash_pair_clusters: id must not be null")));
			old = MemoryContextSwitchTo(cxt);
			na = node_of(&g, id_value(a, TupleDescAttr(td, 0)->atttypid));
			nb = node_of(&g, id_value(b, TupleDescAttr(td, 1)->atttypid));
			MemoryContextSwitchTo(old);
			simhash_uf_union(g.parent, na, nb);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();

	/* the ids by node, then the hash table freed */
	check_graph_memory(&g, 0, false);
	ids = MemoryContextAllocHuge(cxt, sizeof(int64) * Max(g.n, 1));
	idmap_start_iterate(g.map, &it);
	while ((e = idmap_iterate(g.map, &it)) != NULL)
		ids[e->node] = e->id;
	idmap_destroy(g.map);

	/* the smallest id of each component, at its root; then ids in order */
	minid = MemoryContextAllocHuge(cxt, sizeof(int64) * Max(g.n, 1));
	order = MemoryContextAllocHuge(cxt, sizeof(uint32) * Max(g.n, 1));
	for (i = 0; i < g.n; i++)
	{
		minid[i] = ids[i];
		order[i] = i;
	}
	for (i = 0; i < g.n; i++)
	{
		uint32		r = simhash_uf_find(g.parent, i);

		if (ids[i] < minid[r])
			minid[r] = ids[i];
	}
	qsort_arg(order, g.n, sizeof(uint32), cmp_node_id, ids);
	for (i = 0; i < g.n; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		values[0] = Int64GetDatum(ids[order[i]]);
		values[1] = Int64GetDatum(minid[simhash_uf_find(g.parent, order[i])]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if ((i & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}
