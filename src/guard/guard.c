/*
 * guard.c
 *		simhash_guard_view_trigger(): the INSTEAD OF trigger of a view made
 *		by simhash_distributed_guard (sql/parts/1.9-guard.sql).
 *
 * The view is the application's only door to a guarded table: a role may
 * hold INSERT, UPDATE or DELETE on the view and nothing on the table or on
 * its registry.  So the writes behind the view run as the table's owner,
 * as PostgreSQL runs a foreign-key check as the owner of the table it
 * reads: the user id is switched for the duration of one SPI call, as a
 * security-restricted operation, and nothing the caller wrote runs there
 * (the worker, simhash_guard_write, is the extension's own PL/pgSQL with a
 * fixed search_path; the row arrives as data).  Reading through the view
 * stays the caller's: the view is security_invoker.
 *
 * What the caller learns of a near-duplicate is decided as the caller: the
 * other row's id and fingerprint only when row security does not apply to
 * it and it may SELECT those columns, as PostgreSQL does for the key of a
 * unique violation; otherwise a detail that names no row.
 *
 * With 'skip' the write runs in a subtransaction, rolled back when the row
 * is a near-duplicate; with 'reject' the error itself undoes it.  With
 * 'link' (since 1.14) the row stays: the write itself sets its link and
 * distance columns, and reports no conflict.
 */
#include "simhash.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_class.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#define FNAME		"simhash_guard_view_trigger"
#define GUARD_NARGS 7			/* see simhash_distributed_guard */
#define GUARD_NARGS_VERIFY 9	/* with a signature column and a threshold */
#define GUARD_NARGS_LOCKS 10	/* since 1.12: lock rows, no registry */
#define GUARD_NARGS_LINK 12		/* since 1.14: 'link', and its two columns */

/* What simhash_guard_write reported for one row */
typedef struct GuardResult
{
	bool		done;			/* a row was written (or deleted) */
	HeapTuple	row;			/* the view's row as stored, if done */
	bool		conflict;		/* a near-duplicate was found */
	char	   *other_id;		/* its id, fingerprint and distance */
	char	   *other_fp;
	char	   *new_fp;
	int			distance;
} GuardResult;

/* The owner of a table, looked up by its (qualified) name */
static Oid
table_owner(const char *name, Oid *relid)
{
	HeapTuple	tup;
	Oid			owner;

	*relid = DatumGetObjectId(DirectFunctionCall1(regclassin, CStringGetDatum(name)));
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(*relid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for relation %u", *relid);
	owner = ((Form_pg_class) GETSTRUCT(tup))->relowner;
	ReleaseSysCache(tup);
	return owner;
}

/*
 * One call of simhash_guard_write through SPI, as the current user (the
 * owner by then).  The view's NEW and OLD rows go in as composite values;
 * the stored row comes back as a row of the view, copied into cxt.  A guard
 * with verification calls the form that takes the signature column and the
 * threshold; one without, the ten-argument form, which a 1.9 installation
 * has too.  A guard with lock rows calls simhash_guard_lock_write, with
 * the link and distance columns for 'link'.
 */
static void
guard_write(TriggerData *td, const char *op, char **args, MemoryContext cxt,
			GuardResult *res)
{
	Relation	view = td->tg_relation;
	Oid			viewtype = view->rd_rel->reltype;
	TupleDesc	vdesc = RelationGetDescr(view);
	HeapTuple	newt = NULL;
	HeapTuple	oldt = NULL;
	Oid			argtypes[2] = {viewtype, viewtype};
	Datum		values[2];
	char		nulls[2] = {'n', 'n'};
	char	   *extschema;
	char	   *sql;
	bool		locks = td->tg_trigger->tgnargs >= GUARD_NARGS_LOCKS;
	HeapTuple	r;
	TupleDesc	rdesc;
	bool		isnull;
	Datum		d;

	if (TRIGGER_FIRED_BY_INSERT(td->tg_event))
		newt = td->tg_trigtuple;
	else if (TRIGGER_FIRED_BY_UPDATE(td->tg_event))
	{
		oldt = td->tg_trigtuple;
		newt = td->tg_newtuple;
	}
	else
		oldt = td->tg_trigtuple;
	if (newt)
	{
		values[0] = heap_copy_tuple_as_datum(newt, vdesc);
		nulls[0] = ' ';
	}
	if (oldt)
	{
		values[1] = heap_copy_tuple_as_datum(oldt, vdesc);
		nulls[1] = ' ';
	}

	extschema = get_namespace_name(get_func_namespace(td->tg_trigger->tgfoid));
	sql = psprintf("SELECT CASE WHEN w.stored IS NOT NULL THEN pg_catalog.jsonb_populate_record($1, w.stored) END,"
				   " w.conflict_id,"
				   " w.conflict_fp, w.new_fp, w.distance, w.stored IS NOT NULL"
				   " FROM %s.%s(%s, pg_catalog.to_jsonb($1), pg_catalog.to_jsonb($2),"
				   " %s, %s, %s, %s, %s, %s, %s%s) w",
				   quote_identifier(extschema),
				   locks ? "simhash_guard_lock_write" : "simhash_guard_write",
				   quote_literal_cstr(op),
				   quote_literal_cstr(args[0]), quote_literal_cstr(args[1]),
				   quote_literal_cstr(args[2]), quote_literal_cstr(args[3]),
				   quote_literal_cstr(args[4]), quote_literal_cstr(args[5]),
				   quote_literal_cstr(args[6]),
				   td->tg_trigger->tgnargs == GUARD_NARGS_VERIFY ?
				   psprintf(", %s::pg_catalog.name, %s::pg_catalog.text",
							quote_literal_cstr(args[7]), quote_literal_cstr(args[8])) :
				   td->tg_trigger->tgnargs == GUARD_NARGS_LOCKS ?
				   psprintf(", %s, %s, %s", quote_literal_cstr(args[7]),
							quote_literal_cstr(args[8]), quote_literal_cstr(args[9])) :
				   td->tg_trigger->tgnargs == GUARD_NARGS_LINK ?
				   psprintf(", %s, %s, %s, %s, %s", quote_literal_cstr(args[7]),
							quote_literal_cstr(args[8]), quote_literal_cstr(args[9]),
							quote_literal_cstr(args[10]), quote_literal_cstr(args[11])) : "");

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(sql, 2, argtypes, values, nulls, false, 1) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "%s: simhash_guard_write returned no row", FNAME);
	r = SPI_tuptable->vals[0];
	rdesc = SPI_tuptable->tupdesc;

	memset(res, 0, sizeof(*res));
	d = SPI_getbinval(r, rdesc, 2, &isnull);
	if (!isnull)
	{
		MemoryContext old = MemoryContextSwitchTo(cxt);

		res->conflict = true;
		res->other_id = SPI_getvalue(r, rdesc, 2);
		res->other_fp = SPI_getvalue(r, rdesc, 3);
		res->new_fp = SPI_getvalue(r, rdesc, 4);
		res->distance = DatumGetInt32(SPI_getbinval(r, rdesc, 5, &isnull));
		MemoryContextSwitchTo(old);
	}
	else
	{
		res->done = DatumGetBool(SPI_getbinval(r, rdesc, 6, &isnull));
		d = SPI_getbinval(r, rdesc, 1, &isnull);
		if (!isnull)
		{
			HeapTupleHeader h = DatumGetHeapTupleHeader(d);
			HeapTupleData tmp;
			MemoryContext old;

			tmp.t_len = HeapTupleHeaderGetDatumLength(h);
			ItemPointerSetInvalid(&tmp.t_self);
			tmp.t_tableOid = InvalidOid;
			tmp.t_data = h;
			old = MemoryContextSwitchTo(cxt);
			res->row = heap_copytuple(&tmp);
			MemoryContextSwitchTo(old);
		}
	}
	SPI_finish();
}

/*
 * simhash_guard_view_trigger() RETURNS trigger
 *		INSTEAD OF INSERT OR UPDATE OR DELETE, FOR EACH ROW, on the view of
 *		simhash_distributed_guard.  Arguments: the table, the registry, the
 *		id and fingerprint columns, the fingerprint type, k, the action
 *		('reject' or 'skip'), and with verification (since 1.10) the
 *		signature column and the threshold.  A guard made since 1.12 has ten:
 *		its lock rows in place of the registry, and the signature column, the
 *		threshold and the shard map, each empty when it has none; its writes
 *		go to simhash_guard_lock_write.  Rejects a near-duplicate with 23P01,
 *		or drops it with 'skip'.  A guard with the 'link' action (since 1.14)
 *		has twelve: those ten and the link and distance columns, which the
 *		write sets; it keeps every row.
 */
PG_FUNCTION_INFO_V1(simhash_guard_view_trigger);
Datum
simhash_guard_view_trigger(PG_FUNCTION_ARGS)
{
	TriggerData *td = (TriggerData *) fcinfo->context;
	char	  **args;
	const char *op;
	bool		skip;
	bool		verify;
	Oid			relid;
	Oid			owner;
	Oid			caller;
	int			caller_context;
	MemoryContext cxt = CurrentMemoryContext;
	ResourceOwner resowner = CurrentResourceOwner;
	GuardResult res;
	AttrNumber	atts[2];

	if (!CALLED_AS_TRIGGER(fcinfo) || !TRIGGER_FIRED_INSTEAD(td->tg_event) ||
		!TRIGGER_FIRED_FOR_ROW(td->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s: must be fired INSTEAD OF, FOR EACH ROW", FNAME)));
	if (td->tg_trigger->tgnargs != GUARD_NARGS &&
		td->tg_trigger->tgnargs != GUARD_NARGS_VERIFY &&
		td->tg_trigger->tgnargs != GUARD_NARGS_LOCKS &&
		td->tg_trigger->tgnargs != GUARD_NARGS_LINK)
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s: trigger \"%s\" has %d arguments, not %d, %d, %d or %d",
						FNAME, td->tg_trigger->tgname, td->tg_trigger->tgnargs,
						GUARD_NARGS, GUARD_NARGS_VERIFY, GUARD_NARGS_LOCKS,
						GUARD_NARGS_LINK),
				 errhint("Create the view with simhash_distributed_guard().")));
	args = td->tg_trigger->tgargs;
	skip = strcmp(args[6], "skip") == 0;
	verify = td->tg_trigger->tgnargs == GUARD_NARGS_VERIFY ||
		(td->tg_trigger->tgnargs >= GUARD_NARGS_LOCKS && args[7][0] != '\0');
	op = TRIGGER_FIRED_BY_INSERT(td->tg_event) ? "INSERT" :
		TRIGGER_FIRED_BY_UPDATE(td->tg_event) ? "UPDATE" : "DELETE";
	owner = table_owner(args[0], &relid);

	/*
	 * Only the table's owner may point a view's trigger at it: else anyone
	 * could make a view of their own whose trigger writes to another's
	 * table with its owner's rights.  set-up gives the view to that owner.
	 */
	if (td->tg_relation->rd_rel->relowner != owner)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("%s: view \"%s\" is not owned by the owner of table \"%s\"",
						FNAME, RelationGetRelationName(td->tg_relation),
						get_rel_name(relid)),
				 errhint("Create the view with simhash_distributed_guard().")));

	GetUserIdAndSecContext(&caller, &caller_context);
	if (skip)
	{
		BeginInternalSubTransaction(NULL);
		MemoryContextSwitchTo(cxt);
	}
	SetUserIdAndSecContext(owner, caller_context | SECURITY_LOCAL_USERID_CHANGE |
						   SECURITY_RESTRICTED_OPERATION | SECURITY_NOFORCE_RLS);
	guard_write(td, op, args, cxt, &res);
	SetUserIdAndSecContext(caller, caller_context);
	if (skip)
	{
		if (res.conflict)
			RollbackAndReleaseCurrentSubTransaction();
		else
			ReleaseCurrentSubTransaction();
		MemoryContextSwitchTo(cxt);
		CurrentResourceOwner = resowner;
	}

	if (res.conflict)
	{
		char	   *detail;

		if (skip)
			return PointerGetDatum(NULL);
		atts[0] = get_attnum(relid, args[2]);
		atts[1] = get_attnum(relid, args[3]);
		if (simhash_caller_may_read(relid, caller, atts, 2))
			detail = psprintf("Key (%s)=(%s) has %s %s, at distance %d from the new row's %s.",
							  quote_identifier(args[2]), res.other_id,
							  quote_identifier(args[3]), res.other_fp,
							  res.distance, res.new_fp);
		else
			detail = psprintf("The new row's %s is within %s bits of an existing row's.",
							  quote_identifier(args[3]), args[5]);
		ereport(ERROR,
				(errcode(ERRCODE_EXCLUSION_VIOLATION),
				 verify ?
				 errmsg("new row for relation \"%s\" is within %s bits of an existing row and at least %s alike by minhash_jaccard",
						get_rel_name(relid), args[5], args[8]) :
				 errmsg("new row for relation \"%s\" is within %s bits of an existing row",
						get_rel_name(relid), args[5]),
				 errdetail_internal("%s", detail),
				 err_generic_string(PG_DIAG_SCHEMA_NAME,
									get_namespace_name(get_rel_namespace(relid))),
				 err_generic_string(PG_DIAG_TABLE_NAME, get_rel_name(relid)),
				 err_generic_string(PG_DIAG_COLUMN_NAME, args[3]),
				 err_generic_string(PG_DIAG_CONSTRAINT_NAME, args[1])));
	}
	if (!res.done)
		return PointerGetDatum(NULL);
	if (TRIGGER_FIRED_BY_DELETE(td->tg_event))
		return PointerGetDatum(td->tg_trigtuple);
	return PointerGetDatum(res.row);
}
