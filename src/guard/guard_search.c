/*
 * guard_search.c
 *		simhash_guard_search(): the search of the guard of
 *		simhash_distributed_guard (1.12), run on the node that holds the
 *		relation (a table, or on Citus one shard of it).
 *
 * The guard serialises the writes that could conflict with lock rows (one
 * per hashed block key, so two rows within k always share one) and then
 * searches the table itself through its own index: no copy of the
 * fingerprints is kept.  A row the search must see is one a conflicting
 * writer committed before this one took the lock they share.  On one node
 * that writer has left the proc array before it released the lock, so a
 * snapshot taken after the lock sees it.  On Citus the lock row and the
 * row may lie on two nodes, committed by two-phase commit: the lock is
 * released when the lock's node commits, and the row's node may still hold
 * the transaction prepared.  So the search first waits for every
 * transaction prepared on its node (a prepared transaction waits for
 * nothing, and commits or aborts within its coordinator's commit), then
 * reads with a snapshot taken after those waits.
 *
 * Isolation: as the trigger of trigger.c, the search reads with the latest
 * snapshot, which sees rows committed after the transaction's snapshot was
 * taken; when only that one finds a conflict, the transaction fails with
 * 40001 (retrying it sees the row).  Unrelated rows that share a lock row
 * only wait for each other: the lock rows are locked, never updated, so a
 * REPEATABLE READ transaction does not fail on them.
 */
#include "simhash.h"

#include "access/xact.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "storage/lmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "utils/hsearch.h"
#include "utils/syscache.h"

#define FNAME "simhash_guard_search"

/*
 * The plans of the searches, kept for the backend by their text (a guard
 * calls the search once a shard, each write): planning one costs more
 * than running it through the index.  The text names the relation, k and
 * the verification, and the key adds the signature type; the plan cache
 * replans a kept plan when the relation or its indexes change.  Past
 * SEARCH_PLANS texts, or for a longer text, a search is planned each call.
 */
#define SEARCH_PLANS 64
#define SEARCH_KEY_MAX 1024

typedef struct SearchPlan
{
	char		key[SEARCH_KEY_MAX];
	SPIPlanPtr	plan;
} SearchPlan;

static HTAB *search_plans = NULL;
static SPIPlanPtr prepared_plan = NULL;

/* Waits until every transaction prepared on this node has ended */
static void
wait_for_prepared(void)
{
	uint64		n;
	TransactionId *xids;
	uint64		i;

	if (prepared_plan == NULL)
	{
		SPIPlanPtr	plan = SPI_prepare("SELECT transaction FROM pg_catalog.pg_prepared_xacts", 0, NULL);

		if (plan == NULL || SPI_keepplan(plan) != 0)
			elog(ERROR, "%s: could not prepare the read of pg_prepared_xacts", FNAME);
		prepared_plan = plan;
	}
	if (SPI_execute_plan(prepared_plan, NULL, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "%s: could not read pg_prepared_xacts", FNAME);
	n = SPI_processed;
	if (n == 0)
		return;
	xids = palloc(sizeof(TransactionId) * n);
	for (i = 0; i < n; i++)
	{
		bool		isnull;

		xids[i] = DatumGetTransactionId(SPI_getbinval(SPI_tuptable->vals[i],
													  SPI_tuptable->tupdesc, 1, &isnull));
	}
	for (i = 0; i < n; i++)
		XactLockTableWait(xids[i], NULL, NULL, XLTW_None);
	pfree(xids);
}

/* The attribute number of a column, which must exist */
static AttrNumber
column_of(Oid relid, const char *name)
{
	AttrNumber	att = get_attnum(relid, name);

	if (att == InvalidAttrNumber || att < 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, get_rel_name(relid))));
	return att;
}

/*
 * The plan of a search (inside SPI): the kept one for its text and the
 * signature type, else a new one, kept when there is room.
 */
static SPIPlanPtr
search_plan(const char *sql, int nargs, Oid *argtypes)
{
	char		key[SEARCH_KEY_MAX];
	bool		fits;
	SearchPlan *e;
	bool		found;
	SPIPlanPtr	plan;

	if (search_plans == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = SEARCH_KEY_MAX;
		ctl.entrysize = sizeof(SearchPlan);
		search_plans = hash_create("simhash guard searches", SEARCH_PLANS, &ctl,
								   HASH_ELEM | HASH_STRINGS);
	}
	fits = snprintf(key, sizeof(key), "%u %s", argtypes[2], sql) < (int) sizeof(key);
	if (fits)
	{
		e = (SearchPlan *) hash_search(search_plans, key, HASH_FIND, &found);
		if (found)
			return e->plan;
	}
	plan = SPI_prepare(sql, nargs, argtypes);
	if (plan == NULL)
		elog(ERROR, "%s: could not prepare the search: %s", FNAME,
			 SPI_result_code_string(SPI_result));
	if (fits && hash_get_num_entries(search_plans) < SEARCH_PLANS &&
		SPI_keepplan(plan) == 0)
	{
		e = (SearchPlan *) hash_search(search_plans, key, HASH_ENTER, &found);
		e->plan = plan;
	}
	return plan;
}

/*
 * simhash_guard_search(relation regclass, id_column name, fp_column name,
 *		fp text, k integer, own_id bigint, sig_column name, sig minhash,
 *		threshold double precision) RETURNS jsonb
 *
 * One row of relation within k bits of fp (and, when sig_column is given,
 * at least threshold alike by minhash_jaccard of sig_column and sig) other
 * than the row own_id, as {"id", "fp", "distance"}: the nearest, then the
 * smallest id; NULL when there is none.  Reads as the current user.
 */
PG_FUNCTION_INFO_V1(simhash_guard_search);
Datum
simhash_guard_search(PG_FUNCTION_ARGS)
{
	Oid			relid;
	const char *idcol;
	const char *fpcol;
	Oid			fptype;
	int			k;
	bool		verify;
	const char *ext;
	StringInfoData sql;
	Oid			argtypes[4] = {TEXTOID, INT8OID, InvalidOid, FLOAT8OID};
	Datum		values[4];
	char		nulls[4] = {' ', ' ', ' ', ' '};
	SPIPlanPtr	plan;
	Datum		result;
	bool		isnull;
	int			ret;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) ||
		PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: relation, id_column, fp_column, k and own_id must not be NULL", FNAME)));
	if (PG_ARGISNULL(3))
		PG_RETURN_NULL();		/* a NULL fingerprint conflicts with none */
	verify = !PG_ARGISNULL(6);
	if (verify && (PG_ARGISNULL(7) || PG_ARGISNULL(8)))
		PG_RETURN_NULL();		/* nor does a NULL signature */
	if (!verify && !(PG_ARGISNULL(7) && PG_ARGISNULL(8)))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: sig and threshold need sig_column", FNAME)));

	relid = PG_GETARG_OID(0);
	idcol = NameStr(*PG_GETARG_NAME(1));
	fpcol = NameStr(*PG_GETARG_NAME(2));
	k = PG_GETARG_INT32(4);
	if (!get_rel_name(relid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("relation with OID %u does not exist", relid)));
	fptype = get_atttype(relid, column_of(relid, fpcol));
	(void) column_of(relid, idcol);
	if (k < 0 || k > SIMHASH_MAX_BITS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: k must be from 0 to %d, not %d", FNAME, SIMHASH_MAX_BITS, k)));
	if (verify)
	{
		double		t = PG_GETARG_FLOAT8(8);

		if (!(t >= 0 && t <= 1))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: threshold must be a number from 0 to 1, not %g", FNAME, t)));
		argtypes[2] = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("minhash"),
									  ObjectIdGetDatum(get_func_namespace(fcinfo->flinfo->fn_oid)));
		(void) column_of(relid, NameStr(*PG_GETARG_NAME(6)));
	}

	/*
	 * Every name is qualified: the guard runs this as the table owner.  The
	 * radius test is the form the planner support turns into an index
	 * clause on the relation's GIN, GiST or mih index.  The rows within k
	 * are found first (OFFSET 0 keeps the subquery), then sorted: with the
	 * ORDER BY ... LIMIT 1 in the same query the planner may choose a
	 * nearest-neighbour scan (GiST, mih), which, when no row is within k,
	 * reads the whole relation in distance order.
	 */
	ext = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT pg_catalog.jsonb_build_object('id', s.id, 'fp', s.fp, 'distance', s.d) FROM"
					 " (SELECT t.%1$s AS id, t.%2$s::pg_catalog.text AS fp, t.%2$s OPERATOR(%3$s.<->) $1::%4$s AS d"
					 " FROM %5$s t WHERE t.%2$s OPERATOR(%3$s.<->) $1::%4$s OPERATOR(%3$s.<=) %6$d"
					 " AND t.%1$s OPERATOR(pg_catalog.<>) $2",
					 quote_identifier(idcol), quote_identifier(fpcol), ext,
					 format_type_be_qualified(fptype),
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
												get_rel_name(relid)),
					 k);
	if (verify)
		appendStringInfo(&sql,
						 " AND %s.minhash_jaccard(t.%s, $3) OPERATOR(pg_catalog.>=) $4",
						 ext, quote_identifier(NameStr(*PG_GETARG_NAME(6))));
	appendStringInfoString(&sql, " OFFSET 0) s ORDER BY s.d, s.id LIMIT 1");

	values[0] = PG_GETARG_DATUM(3);
	values[1] = PG_GETARG_DATUM(5);
	if (verify)
	{
		values[2] = PG_GETARG_DATUM(7);
		values[3] = PG_GETARG_DATUM(8);
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	wait_for_prepared();
	plan = search_plan(sql.data, verify ? 4 : 2, argtypes);

	/* every row committed before the waits, and the transaction's own */
	ret = SPI_execute_snapshot(plan, values, nulls, GetLatestSnapshot(),
							   InvalidSnapshot, false, false, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "%s: the search failed: %s", FNAME, SPI_result_code_string(ret));
	if (SPI_processed == 0)
	{
		SPI_finish();
		PG_RETURN_NULL();
	}
	result = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	result = SPI_datumTransfer(result, false, -1);

	/* a conflict: does the transaction's own snapshot see one? */
	if (IsolationUsesXactSnapshot())
	{
		ret = SPI_execute_plan(plan, values, nulls, false, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "%s: the search failed: %s", FNAME, SPI_result_code_string(ret));
		if (SPI_processed == 0)
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to a concurrent near-duplicate in relation \"%s\"",
							get_rel_name(relid)),
					 errhint("The row was committed after this transaction's snapshot was taken. The transaction might succeed if retried.")));
	}
	SPI_finish();
	PG_RETURN_DATUM(result);
}
