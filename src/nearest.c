/*
 * nearest.c
 *		Nearest neighbours through radius searches: the smallest radius
 *		that holds n rows.
 *
 * GIN answers radius searches but cannot order by distance, and GiST's
 * ORDER BY fp <-> q reads much of the index when most rows are far from
 * every query.  In near-duplicate work the nearest rows are a few bits
 * away, so a radius search at r = 0, 1, 2, 4, 8, ... through whichever
 * index the planner picks finds them after a few cheap searches.  Each
 * search returns the distances within r of up to n rows, nearest first, so
 * the first one that finds n rows gives the n-th distance itself, exactly:
 * the n nearest rows are all within any radius that holds n rows.  Past
 * the largest radius an index answers quickly (16 bits at 64 and 128 bits,
 * 32 at 256), or earlier when the planner expects the radius searches to
 * cost more than a tenth of the whole-width search (no index, or an index
 * slow at that radius), the last search covers the whole width, which the
 * planner turns into one sequential scan and a top-n sort, so that a query
 * far from every row costs about a sequential scan rather than many large
 * radius searches.
 *
 * simhash_nearest_radius returns that distance; simhash_nearest returns the
 * rows themselves from the same searches, so that the caller does not run
 * a second radius query whose plan is made before the radius is known.
 */
#include "simhash.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

/* The largest radius searched through an index, before the whole width */
static int
index_radius(int bits)
{
	return bits == SIMHASH_BITS ? 16 : bits / 8;
}

/*
 * simhash.nearest_search_budget: the radius searches together may cost at
 * most this fraction of the whole-width search, by the planner's estimates,
 * so that a query far from every row costs at most about 1.1 sequential
 * scans by default.
 */
static double nearest_search_budget = 0.1;

/* Defines simhash.nearest_search_budget; called by _PG_init */
void
simhash_nearest_define_settings(void)
{
	DefineCustomRealVariable("simhash.nearest_search_budget",
							 "Fraction of the estimated cost of a search of the whole table that simhash_nearest spends on radius searches before it.",
							 "0 searches the whole table at once; a large value searches every radius up to the largest an index answers quickly.",
							 &nearest_search_budget,
							 0.1, 0.0, 1e10,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

/*
 * The statements of one nearest-neighbour search.  Every operator and
 * function is qualified: the caller's search_path must not choose them (a
 * user's <= for simhash_distance would).  The distances come out as a plain
 * integer, sorted by its default order, which no index matches: the whole
 * width is one sequential scan and a top-n sort.
 */
typedef struct NearestSql
{
	char	   *within;			/* the n nearest within radius $2 */
	char	   *whole;			/* the n nearest at any distance */
	char	   *fetch;			/* rows by (tableoid, ctid), or NULL */
} NearestSql;

/*
 * One search: the columns cols (ending in the distance d, column dcol) of
 * the n ($3) rows of from that pass cond, nearest first; with count, the
 * count and the largest distance of those rows instead.
 */
static char *
nearest_stmt(const char *cols, int dcol, const char *from, const char *cond,
			 bool count)
{
	char	   *rows = psprintf("SELECT %s FROM %s t WHERE %s ORDER BY %d LIMIT $3",
								cols, from, cond, dcol);

	return count ? psprintf("SELECT pg_catalog.count(*), pg_catalog.max(d) FROM (%s) s", rows)
		: rows;
}

/*
 * Builds the statements for the query type fptype (checking the column
 * against it) and sets *bits to the width.  Rows (simhash_nearest): the
 * searches return each row's tableoid, ctid and distance, and fetch reads
 * the n rows found by TID, so that no whole-row value is formed for every
 * row a sequential scan passes; a view has no ctid, and its searches return
 * whole rows.  Otherwise (simhash_nearest_radius) the count and the largest
 * distance of the n nearest.
 */
static NearestSql
nearest_sql(const char *fname, Oid funcid, Oid relid, const char *column,
			Oid fptype, bool rows, int *bits)
{
	char	   *relname = get_rel_name(relid);
	char		relkind;
	const char *schema;
	const char *from;
	const char *col = quote_identifier(column);
	char	   *dist;
	char	   *cols;
	int			dcol;
	AttrNumber	attnum;
	NearestSql	q = {NULL, NULL, NULL};

	if (relname == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("%s: relation with OID %u does not exist", fname, relid)));
	attnum = get_attnum(relid, column);
	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						column, relname)));
	if (!OidIsValid(fptype) || get_atttype(relid, attnum) != fptype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is of type %s, not %s",
						column, relname,
						format_type_be(get_atttype(relid, attnum)),
						OidIsValid(fptype) ? format_type_be(fptype) : "simhash")));
	*bits = get_typlen(fptype) * BITS_PER_BYTE; /* 64, 128 or 256 */
	relkind = get_rel_relkind(relid);

	schema = quote_identifier(get_namespace_name(get_func_namespace(funcid)));
	from = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  relname);
	dist = psprintf("(t.%s OPERATOR(%s.<->) $1)::pg_catalog.int4 AS d", col, schema);
	if (!rows)
	{
		cols = dist;
		dcol = 1;
	}
	else if (relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW ||
			 relkind == RELKIND_PARTITIONED_TABLE)
	{
		cols = psprintf("t.tableoid, t.ctid, %s", dist);
		dcol = 3;
		q.fetch = psprintf("SELECT t FROM ROWS FROM (pg_catalog.unnest($1::pg_catalog.oid[]),"
						   " pg_catalog.unnest($2::pg_catalog.tid[])) WITH ORDINALITY s(o, c, i)"
						   " JOIN %s t ON t.tableoid OPERATOR(pg_catalog.=) s.o"
						   " AND t.ctid OPERATOR(pg_catalog.=) s.c ORDER BY s.i", from);
	}
	else
	{
		cols = psprintf("t, %s", dist);
		dcol = 2;
	}
	q.within = nearest_stmt(cols, dcol, from,
							psprintf("t.%s OPERATOR(%s.<->) $1 OPERATOR(%s.<=) $2",
									 col, schema, schema),
							!rows);
	/* the whole width: the same rows without a radius ($2 is not used) */
	q.whole = nearest_stmt(cols, dcol, from, psprintf("t.%s IS NOT NULL", col), !rows);
	return q;
}

/*
 * The planner's estimate of the search plan with these arguments, from a
 * cursor opened (and so planned for its own arguments) but not yet run.
 */
static Cost
search_cost(Portal portal)
{
	return linitial_node(PlannedStmt, portal->stmts)->planTree->total_cost;
}

/*
 * Runs the search at r = 0, 1, 2, 4, ..., the index radius, then over the
 * whole width, until one holds n rows, and leaves that search's result in
 * SPI_tuptable; the caller has connected SPI.  A radius search is skipped,
 * with all larger ones, when it would take the estimated cost of the radius
 * searches past simhash.nearest_search_budget times the whole-width
 * search's: with no
 * index (or an index slow at that radius) the whole width is searched at
 * once.
 */
static void
nearest_search(const char *fname, const NearestSql *q, Oid fptype, Datum query,
			   int32 n, int bits, bool rows)
{
	SPIPlanPtr	within;
	SPIPlanPtr	whole;
	Oid			argtypes[3] = {fptype, INT4OID, INT8OID};
	Datum		values[3];
	Portal		portal;
	Cost		budget;
	Cost		spent = 0;
	int32		r;

	/*
	 * A custom plan for every radius.  The whole width may use parallel
	 * workers, as the caller's own sequential scan would (it runs to
	 * completion, so it runs as a plain statement, not through a cursor);
	 * the radius searches may not, so that the planner does not trade their
	 * index scan for a parallel scan of the whole table.
	 */
	within = SPI_prepare_cursor(q->within, 3, argtypes,
								CURSOR_OPT_CUSTOM_PLAN | CURSOR_OPT_NO_SCROLL);
	whole = SPI_prepare_cursor(q->whole, 3, argtypes,
							   CURSOR_OPT_CUSTOM_PLAN | CURSOR_OPT_NO_SCROLL |
							   CURSOR_OPT_PARALLEL_OK);
	if (within == NULL || whole == NULL)
		elog(ERROR, "%s: could not prepare the search: %s",
			 fname, SPI_result_code_string(SPI_result));
	values[0] = query;
	values[1] = Int32GetDatum(bits);
	values[2] = Int64GetDatum(n);
	portal = SPI_cursor_open(NULL, whole, values, NULL, true);
	budget = nearest_search_budget * search_cost(portal);
	SPI_cursor_close(portal);

	for (r = 0; r <= index_radius(bits); r = (r == 0) ? 1 : 2 * r)
	{
		bool		isnull;
		int64		found;

		CHECK_FOR_INTERRUPTS();
		values[1] = Int32GetDatum(r);
		portal = SPI_cursor_open(NULL, within, values, NULL, true);
		spent += search_cost(portal);
		if (spent > budget)
		{
			SPI_cursor_close(portal);
			break;
		}
		SPI_cursor_fetch(portal, true, FETCH_ALL);
		SPI_cursor_close(portal);
		if (rows)
			found = SPI_processed;
		else
			found = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
		if (found >= n)
			return;
	}
	values[1] = Int32GetDatum(bits);
	if (SPI_execute_plan(whole, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "%s: the search failed", fname);
}

static void
check_n(const char *fname, int32 n)
{
	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: n must be at least 1, not %d", fname, n)));
}

/*
 * simhash_nearest_radius(relation regclass, fp_column name, query simhash,
 *		n integer) returns integer, and the same for simhash128 and
 *		simhash256 queries (one C function: the width is the query type's
 *		length)
 *		The smallest r in 0..W such that at least n rows of the relation
 *		have fp_column within r bits of the query (W, the width, when fewer
 *		than n rows have a non-NULL fingerprint).  Errors: doc/simhash.md.
 *		STRICT, STABLE (it reads the table with the query's snapshot),
 *		PARALLEL RESTRICTED (it runs SPI queries).
 */
PG_FUNCTION_INFO_V1(simhash_nearest_radius);
Datum
simhash_nearest_radius(PG_FUNCTION_ARGS)
{
	const char *fname = "simhash_nearest_radius";
	Oid			fptype = get_fn_expr_argtype(fcinfo->flinfo, 2);
	int32		n = PG_GETARG_INT32(3);
	int			bits;
	NearestSql	q;
	int32		result;
	bool		isnull;

	check_n(fname, n);
	q = nearest_sql(fname, fcinfo->flinfo->fn_oid, PG_GETARG_OID(0),
					NameStr(*PG_GETARG_NAME(1)), fptype, false, &bits);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	nearest_search(fname, &q, fptype, PG_GETARG_DATUM(2), n, bits, false);
	if (DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
									SPI_tuptable->tupdesc, 1, &isnull)) >= n)
		/* the n-th distance: the largest of the n nearest */
		result = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
											 SPI_tuptable->tupdesc, 2, &isnull));
	else
		result = bits;			/* fewer than n rows have a fingerprint */
	SPI_finish();
	PG_RETURN_INT32(result);
}

/*
 * simhash_nearest(rowtype anyelement, fp_column name, query simhash,
 *		n integer) returns setof anyelement, and the same for simhash128 and
 *		simhash256 queries
 *		The n rows of the table whose row type rowtype is (NULL::table) with
 *		fp_column nearest the query, nearest first (ties in any order);
 *		fewer when fewer rows have a non-NULL fingerprint.  Not STRICT, as
 *		rowtype is normally NULL: a NULL column name, query or n gives no
 *		rows.  Errors: doc/simhash.md.  STABLE (the caller's snapshot, so
 *		that the rows are those of the calling statement), PARALLEL
 *		RESTRICTED (it runs SPI queries).
 */
PG_FUNCTION_INFO_V1(simhash_nearest);
Datum
simhash_nearest(PG_FUNCTION_ARGS)
{
	const char *fname = "simhash_nearest";
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	Oid			rowtype = get_fn_expr_argtype(fcinfo->flinfo, 0);
	Oid			fptype = get_fn_expr_argtype(fcinfo->flinfo, 2);
	Oid			relid = OidIsValid(rowtype) ? get_typ_typrelid(rowtype) : InvalidOid;
	int32		n;
	int			bits;
	NearestSql	q;
	uint64		i;

	/* a composite type of CREATE TYPE has a relation too, but no rows */
	if (!OidIsValid(relid) || get_rel_relkind(relid) == RELKIND_COMPOSITE_TYPE)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the first argument must be a row of a table, such as NULL::docs, not %s",
						fname, OidIsValid(rowtype) ? format_type_be(rowtype) : "unknown")));
	InitMaterializedSRF(fcinfo, 0);
	if (PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		return (Datum) 0;
	n = PG_GETARG_INT32(3);
	check_n(fname, n);
	q = nearest_sql(fname, fcinfo->flinfo->fn_oid, relid,
					NameStr(*PG_GETARG_NAME(1)), fptype, true, &bits);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	nearest_search(fname, &q, fptype, PG_GETARG_DATUM(2), n, bits, true);
	if (q.fetch && SPI_processed > 0)
	{
		/* read the rows found by (tableoid, ctid), nearest first */
		uint64		found = SPI_processed;
		Datum	   *oids = palloc(found * sizeof(Datum));
		Datum	   *tids = palloc(found * sizeof(Datum));
		Oid			argtypes[2] = {OIDARRAYOID, TIDARRAYOID};
		Datum		values[2];
		bool		isnull;

		for (i = 0; i < found; i++)
		{
			oids[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			tids[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull);
		}
		values[0] = PointerGetDatum(construct_array(oids, found, OIDOID,
													sizeof(Oid), true, TYPALIGN_INT));
		values[1] = PointerGetDatum(construct_array(tids, found, TIDOID,
													sizeof(ItemPointerData), false, TYPALIGN_SHORT));
		if (SPI_execute_with_args(q.fetch, 2, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "%s: reading the rows found failed", fname);
		if (SPI_processed != found)
			elog(ERROR, "%s: %llu of the %llu rows found could not be read again",
				 fname, (unsigned long long) (found - SPI_processed),
				 (unsigned long long) found);
	}
	for (i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Datum		row = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
		HeapTupleHeader td = DatumGetHeapTupleHeader(row);
		HeapTupleData tuple;

		/* the whole-row value is a tuple of the row type: store it as one */
		tuple.t_len = HeapTupleHeaderGetDatumLength(td);
		ItemPointerSetInvalid(&tuple.t_self);
		tuple.t_tableOid = InvalidOid;
		tuple.t_data = td;
		tuplestore_puttuple(rsinfo->setResult, &tuple);
	}
	SPI_finish();
	return (Datum) 0;
}

/*
 * simhash_nearest_support(internal) returns internal
 *		Planner support of simhash_nearest: with a constant n, the call
 *		returns at most n rows (SupportRequestRows), so that a join with it
 *		is planned for n rows rather than the default 1,000.
 */
PG_FUNCTION_INFO_V1(simhash_nearest_support);
Datum
simhash_nearest_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestRows))
	{
		SupportRequestRows *req = (SupportRequestRows *) rawreq;

		if (is_funcclause(req->node))
		{
			List	   *args = ((FuncExpr *) req->node)->args;
			Node	   *arg = list_length(args) == 4 ? (Node *) lfourth(args) : NULL;

			if (arg && IsA(arg, Const) && !((Const *) arg)->constisnull)
			{
				req->rows = Max(DatumGetInt32(((Const *) arg)->constvalue), 1);
				PG_RETURN_POINTER(req);
			}
		}
	}
	PG_RETURN_POINTER(NULL);
}
