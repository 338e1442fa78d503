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
 * the largest radius the column's index answers quickly (15 bits through
 * simhash_gin_ops, 24 through simhash256_gin_ops, none with no index: see
 * class_radius) the last search covers the whole width, which the planner
 * turns into one sequential scan and a top-n sort, so that a query far
 * from every row costs about a sequential scan rather than many large
 * radius searches.
 *
 * simhash_nearest_radius returns that distance; simhash_nearest returns the
 * rows themselves from the same searches, so that the caller does not run
 * a second radius query whose plan is made before the radius is known.  Its
 * whole width is two sequential scans, the distances alone and then the
 * rows within the n-th of them, which together cost less than one top-n
 * sort of every row's identity (nearest_search).
 */
#include "simhash.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/namespace.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type.h"
#include "commands/defrem.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"

/*
 * The largest radius worth searching through each index class, from the
 * measurements in doc/indexes.md (Nearest neighbours through GIN): past it
 * a radius search costs a sizeable part of the whole-table search.  A wide
 * GiST index reads most of itself at any radius, so it gets none.
 * simhash_gin_ops stops at 15 (1.9; 16 before): at 16 bits its query needs
 * more than MAX_QUERY_KEYS (src/index/gin.c) keys and reads the whole index,
 * which at 1M rows took three times a sequential scan.
 */
static const struct
{
	const char *opclass;
	int			radius;
}			class_radius[] =
{
	{"simhash_gin_ops", 15},
	{"simhash_gin_segment_ops", 8},
	{"simhash_gist_ops", 16},
	{"simhash128_gin_word_ops", 16},
	{"simhash128_gin_ops", 12},
	{"simhash256_gin_word_ops", 32},
	{"simhash256_gin_ops", 24},
};

/*
 * The largest radius to search before the whole width: that of the best
 * valid, non-partial index of the table with the column as a key column
 * and a class of the extension (in namespace extns), or -1 when there is
 * none (every radius search would read the whole table or most of an
 * index).  A view, or a partitioned table without such an index (its
 * partitions may have their own), gets the width's: 15 bits at 64 (that
 * of simhash_gin_ops), 16 at 128, 32 at 256.  *mih is set when such an
 * index is a mih index (1.11), whose ORDER BY does the radius searches
 * itself.
 */
static int
nearest_max_radius(Oid relid, AttrNumber attnum, Oid extns, int bits, bool *mih)
{
	char		relkind = get_rel_relkind(relid);
	Oid			mihoid = get_index_am_oid("mih", true);
	int			best = -1;
	Relation	rel;
	List	   *indexes;
	ListCell   *lc;

	*mih = false;
	if (relkind != RELKIND_RELATION && relkind != RELKIND_MATVIEW &&
		relkind != RELKIND_PARTITIONED_TABLE)
		return bits == SIMHASH_BITS ? 15 : bits / 8;
	rel = table_open(relid, AccessShareLock);
	indexes = RelationGetIndexList(rel);
	table_close(rel, AccessShareLock);
	foreach(lc, indexes)
	{
		HeapTuple	tup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index ix;
		oidvector  *classes;
		Datum		d;
		bool		isnull;
		int			i;

		if (!HeapTupleIsValid(tup))
			continue;
		ix = (Form_pg_index) GETSTRUCT(tup);
		if (!ix->indisvalid || !heap_attisnull(tup, Anum_pg_index_indpred, NULL))
		{
			ReleaseSysCache(tup);
			continue;
		}
		d = SysCacheGetAttr(INDEXRELID, tup, Anum_pg_index_indclass, &isnull);
		classes = (oidvector *) DatumGetPointer(d);
		for (i = 0; i < ix->indnkeyatts; i++)
		{
			HeapTuple	ctup;
			Form_pg_opclass opc;
			int			j;

			if (ix->indkey.values[i] != attnum)
				continue;
			ctup = SearchSysCache1(CLAOID, ObjectIdGetDatum(classes->values[i]));
			if (!HeapTupleIsValid(ctup))
				continue;
			opc = (Form_pg_opclass) GETSTRUCT(ctup);
			if (opc->opcnamespace == extns && OidIsValid(mihoid) && opc->opcmethod == mihoid &&
				relkind != RELKIND_PARTITIONED_TABLE)
				*mih = true;
			for (j = 0; j < lengthof(class_radius); j++)
				if (opc->opcnamespace == extns &&
					strcmp(NameStr(opc->opcname), class_radius[j].opclass) == 0)
					best = Max(best, class_radius[j].radius);
			ReleaseSysCache(ctup);
		}
		ReleaseSysCache(tup);
	}
	list_free(indexes);
	if (best < 0 && relkind == RELKIND_PARTITIONED_TABLE)
		return bits == SIMHASH_BITS ? 15 : bits / 8;
	return best;
}

/*
 * The statements of one nearest-neighbour search.  Every operator and
 * function is qualified: the caller's search_path must not choose them (a
 * user's <= for simhash_distance would).  The distances are sorted as
 * fp <-> q + 0, which no index's ordering operator matches (fp <-> q alone
 * would be GiST's, whose ORDER BY reads most of the index when every row is
 * far): the whole width is one sequential scan and a top-n sort.
 */
typedef struct NearestSql
{
	char	   *within;			/* the n nearest within radius $2 */
	char	   *whole;			/* the n nearest at any distance */
	char	   *fetch;			/* rows by (tableoid, ctid), or NULL */
	char	   *whole_count;	/* with fetch: the count and the largest
								 * distance of the n nearest at any distance */
	int			max_radius;		/* the last radius searched before the
								 * whole width, or -1 */
	bool		ordered;		/* whole is ORDER BY fp <-> q through a mih
								 * index, no radius searched before */
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
 * Whether relid is a table of Citus (its catalog pg_dist_partition names
 * it): its rows are on other nodes, whose (tableoid, ctid) pairs are those
 * of the shards there and may repeat across nodes, so they cannot be
 * fetched again by TID.  No Citus, no such table.
 */
static bool
is_citus_table(Oid relid)
{
	Oid			argtypes[1] = {OIDOID};
	Datum		values[1] = {ObjectIdGetDatum(relid)};
	bool		found;

	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return false;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args("SELECT FROM pg_catalog.pg_dist_partition"
							  " WHERE logicalrelid OPERATOR(pg_catalog.=) $1",
							  1, argtypes, values, NULL, true, 1) != SPI_OK_SELECT)
		elog(ERROR, "could not read pg_dist_partition");
	found = SPI_processed > 0;
	SPI_finish();
	return found;
}

/*
 * Builds the statements for the query type fptype (checking the column
 * against it) and sets *bits to the width.  Rows (simhash_nearest): the
 * searches return each row's tableoid, ctid and distance, and fetch reads
 * the n rows found by TID, so that no whole-row value is formed for every
 * row a sequential scan passes; a view has no ctid, and a Citus table's
 * are its shards' (is_citus_table): their searches return whole rows.  So
 * do those of a table whose row-level security applies to the caller, or
 * every search when whole is set: a policy is evaluated again when a row
 * is fetched by TID, and a volatile one (random(), a clock) may then hide
 * a row the search saw.  Otherwise (simhash_nearest_radius) the count and
 * the largest distance of the n nearest.
 */
static NearestSql
nearest_sql(const char *fname, Oid funcid, Oid relid, const char *column,
			Oid fptype, bool rows, bool whole, int *bits)
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
	NearestSql	q = {NULL, NULL, NULL, NULL, -1, false};
	bool		mih;

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
	q.max_radius = nearest_max_radius(relid, attnum, get_func_namespace(funcid), *bits, &mih);

	schema = quote_identifier(get_namespace_name(get_func_namespace(funcid)));
	from = quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  relname);
	dist = psprintf("(t.%s OPERATOR(%s.<->) $1) OPERATOR(pg_catalog.+) 0 AS d", col, schema);
	if (!rows)
	{
		cols = dist;
		dcol = 1;
	}
	else if (!whole &&
			 (relkind == RELKIND_RELATION || relkind == RELKIND_MATVIEW ||
			  relkind == RELKIND_PARTITIONED_TABLE) &&
			 check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED &&
			 !is_citus_table(relid))
	{
		cols = psprintf("t.tableoid, t.ctid, %s", dist);
		dcol = 3;
		q.whole_count = nearest_stmt(dist, 1, from,
									 psprintf("t.%s IS NOT NULL", col), true);
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
	if (mih)
	{
		/*
		 * A mih index returns the rows in distance order, nearest first,
		 * at about the cost of its radius searches when they are near and
		 * of a pass over its codes when they are far: the whole width in
		 * one ordered scan, each row read once.
		 */
		char	   *rows_stmt = psprintf("SELECT %s FROM %s t WHERE t.%s IS NOT NULL"
										 " ORDER BY t.%s OPERATOR(%s.<->) $1 LIMIT $3",
										 cols, from, col, col, schema);

		q.ordered = true;
		q.max_radius = -1;
		q.whole_count = NULL;
		q.whole = rows ? rows_stmt
			: psprintf("SELECT pg_catalog.count(*), pg_catalog.max(d) FROM (%s) s", rows_stmt);
	}
	return q;
}

/*
 * Turns a planner setting off for this query, saved at the current GUC nest
 * level (AtEOXact_GUC restores it)
 */
static void
set_off(const char *name)
{
	(void) set_config_option(name, "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

/*
 * Runs the search at r = 0, 1, 2, 4, ... up to q->max_radius, then over the
 * whole width, until one holds n rows, and leaves that search's result in
 * SPI_tuptable; returns the number of its rows (SPI_processed).  The caller
 * has connected SPI.
 *
 * With q->whole_count (rows read again by TID), the whole width takes two
 * sequential scans instead of one: the first sorts the distances alone and
 * gives the n-th, R; the second returns the rows within R, the only ones it
 * sorts.  A top-n sort of every row's (tableoid, ctid, distance) cost more
 * than both (doc/performance.md, Nearest neighbours: the recommended form).
 */
static uint64
nearest_search(const char *fname, const NearestSql *q, Oid fptype, Datum query,
			   int32 n, int bits, bool rows)
{
	SPIPlanPtr	within;
	SPIPlanPtr	whole;
	Oid			argtypes[3] = {fptype, INT4OID, INT8OID};
	Datum		values[3];
	int32		r;
	int			save_nestlevel;

	/*
	 * A custom plan for every radius.  The whole width may use parallel
	 * workers, as the caller's own sequential scan would (it runs to
	 * completion); the radius searches may not, so that the planner does
	 * not trade their index scan for a parallel scan of the whole table.
	 */
	within = SPI_prepare_cursor(q->within, 3, argtypes, CURSOR_OPT_CUSTOM_PLAN);
	whole = SPI_prepare_cursor(q->whole_count ? q->whole_count : q->whole, 3, argtypes,
							   CURSOR_OPT_CUSTOM_PLAN | CURSOR_OPT_PARALLEL_OK);
	if (within == NULL || whole == NULL)
		elog(ERROR, "%s: could not prepare the search: %s",
			 fname, SPI_result_code_string(SPI_result));
	values[0] = query;
	values[2] = Int64GetDatum(n);

	/*
	 * The radius searches go through the index: the planner's estimate for
	 * the word-key classes is many times their cost, and on a table of a
	 * few hundred thousand rows it would read the whole table for each of
	 * the larger radii.  Restored before the whole-width search (and by the
	 * transaction's abort on an error).
	 */
	save_nestlevel = NewGUCNestLevel();
	set_off("enable_seqscan");
	for (r = 0; r <= q->max_radius;
		 r = (r == q->max_radius) ? r + 1 : Min(r == 0 ? 1 : 2 * r, q->max_radius))
	{
		bool		isnull;
		int64		found;

		CHECK_FOR_INTERRUPTS();
		values[1] = Int32GetDatum(r);
		if (SPI_execute_plan(within, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "%s: the search failed", fname);
		if (rows)
			found = SPI_processed;
		else
			found = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
												SPI_tuptable->tupdesc, 1, &isnull));
		if (found >= n)
			break;
	}
	AtEOXact_GUC(true, save_nestlevel);
	if (r <= q->max_radius)
		return SPI_processed;
	values[1] = Int32GetDatum(bits);
	if (q->ordered)
	{
		/* the mih index's ordered scan, not a sort of every row */
		save_nestlevel = NewGUCNestLevel();
		set_off("enable_seqscan");
		set_off("enable_sort");
	}
	if (SPI_execute_plan(whole, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "%s: the search failed", fname);
	if (q->ordered)
		AtEOXact_GUC(true, save_nestlevel);
	if (q->whole_count)
	{
		SPIPlanPtr	at;
		bool		isnull;

		if (DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
										SPI_tuptable->tupdesc, 1, &isnull)) == 0)
			return 0;			/* no row has a fingerprint */
		/* the rows within R: a sequential scan, not the index (R is large) */
		values[1] = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
		at = SPI_prepare_cursor(q->within, 3, argtypes,
								CURSOR_OPT_CUSTOM_PLAN | CURSOR_OPT_PARALLEL_OK);
		if (at == NULL)
			elog(ERROR, "%s: could not prepare the search: %s",
				 fname, SPI_result_code_string(SPI_result));
		save_nestlevel = NewGUCNestLevel();
		set_off("enable_bitmapscan");
		set_off("enable_indexscan");
		set_off("enable_indexonlyscan");
		if (SPI_execute_plan(at, values, NULL, true, 0) != SPI_OK_SELECT)
			elog(ERROR, "%s: the search failed", fname);
		AtEOXact_GUC(true, save_nestlevel);
	}
	return SPI_processed;
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
					NameStr(*PG_GETARG_NAME(1)), fptype, false, false, &bits);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	(void) nearest_search(fname, &q, fptype, PG_GETARG_DATUM(2), n, bits, false);
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
	uint64		found;
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
					NameStr(*PG_GETARG_NAME(1)), fptype, true, false, &bits);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	found = nearest_search(fname, &q, fptype, PG_GETARG_DATUM(2), n, bits, true);
	if (q.fetch && found > 0)
	{
		/* read the rows found by (tableoid, ctid), nearest first */
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
		{
			/*
			 * A row the search saw is hidden now (a volatile expression of
			 * a policy nearest_sql did not see, as a policy is evaluated
			 * again by TID): search again for whole rows, each row passing
			 * the policy once, as in the caller's own query.
			 */
			q = nearest_sql(fname, fcinfo->flinfo->fn_oid, relid,
							NameStr(*PG_GETARG_NAME(1)), fptype, true, true, &bits);
			found = nearest_search(fname, &q, fptype, PG_GETARG_DATUM(2), n, bits, true);
		}
	}
	for (i = 0; i < found; i++)
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
