/*
 * trigger.c
 *		simhash_reject_near_duplicates(): a BEFORE INSERT OR UPDATE row
 *		trigger that keeps a simhash column free of near-duplicates, the
 *		way an exclusion constraint would if one could say "within k bits".
 *
 *		CREATE TRIGGER docs_reject_near_duplicates
 *		  BEFORE INSERT OR UPDATE OF fp ON docs
 *		  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '3');
 *
 * Race freedom.  A trigger cannot see rows that concurrent transactions
 * have inserted but not committed, so the trigger serialises the inserts
 * that could conflict with transaction-scoped advisory locks before it
 * searches.  Keys come from the fingerprint's segments (pigeonhole): cut
 * into m = k + 1 segments (the four 16-bit segments for k <= 3), two
 * fingerprints within k bits agree exactly on at least one segment, so two
 * near-duplicates always ask for one common key, and the second waits until
 * the first transaction has ended.  Its search then runs with a snapshot
 * taken after the wait, so it sees the first row if that committed.  Each
 * key is (segment number, a hash of the segment value modulo a bucket
 * count), at most LOCK_BUDGET keys per trigger, so a bulk load holds a
 * bounded number of locks; two unrelated rows that share a bucket only
 * wait for each other.  For k > MAX_SEGMENTED_RADIUS the segments would be
 * too short to separate anything, and one key covers the column.
 *
 * The keys live in a lock class of their own (locktag field 4 =
 * LOCK_CLASS; pg_advisory_lock() and friends use 1 and 2), with the table
 * OID in field 2: no SQL-level advisory lock can take, wait for or be
 * blocked by them.
 *
 * Deadlocks.  A row's keys are taken without waiting, in ascending order;
 * when one is busy, the keys taken so far for this row are released and
 * the trigger waits for the busy key alone, then tries the rest again.  So
 * a transaction never waits while holding keys of the row being checked,
 * and one checking its first row holds none of these keys while it waits,
 * so it cannot be part of a deadlock on them.  Two transactions that have each
 * inserted rows already can deadlock, as with a unique index, when each
 * holds a key the other's next row needs; PostgreSQL detects it and aborts
 * one with 40P01.
 *
 * Isolation.  The search reads with a fresh snapshot (GetLatestSnapshot()),
 * which sees every row committed before the locks were granted, and the
 * rows the transaction itself inserted.  At READ COMMITTED that is the
 * whole answer (SPI's own choice in a volatile function, a new snapshot per
 * query, would do there too; the statement's snapshot, taken before the
 * wait, would not).  At REPEATABLE READ and SERIALIZABLE a conflicting row may
 * be one the transaction's snapshot cannot see: the search is repeated
 * with the transaction snapshot, and if that one finds nothing the insert
 * fails with 40001, as INSERT ... ON CONFLICT DO NOTHING does.
 */
#include "simhash.h"

#include "access/htup_details.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "rewrite/rewriteHandler.h"
#include "storage/itemptr.h"
#include "storage/lock.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"

#define FNAME					"simhash_reject_near_duplicates"
#define LOCK_CLASS				0x5348	/* locktag field 4: "SH" */
#define LOCK_BUDGET				512 /* keys per trigger, all segments */
#define MAX_SEGMENTED_RADIUS	15	/* segments of at least 4 bits */
#define MAX_KEYS				(MAX_SEGMENTED_RADIUS + 1)
#define WHOLE_COLUMN_SEGMENT	127 /* segment number of the single key */

/* One trigger's settings and search plan, cached by trigger OID */
typedef struct NearDupTrigger
{
	Oid			tgoid;			/* hash key */
	bool		valid;			/* false after a relcache invalidation */
	Oid			relid;
	AttrNumber	attnum;			/* the simhash column */
	int			k;				/* radius, 0..64 */
	bool		skip;			/* action 'skip' instead of 'reject' */
	bool		warned;			/* the missing index was reported */
	Node	   *genexpr;		/* generation expression of a generated column */
	MemoryContext cxt;			/* holds genexpr */
	int			npk;			/* primary key columns, 0 if none */
	AttrNumber	pkatts[INDEX_MAX_KEYS];
	SPIPlanPtr	plan;			/* the search, kept across transactions */
} NearDupTrigger;

static HTAB *trigger_cache = NULL;

/* A table's definition changed: rebuild its triggers' entries on next use */
static void
invalidate_relation(Datum arg, Oid relid)
{
	HASH_SEQ_STATUS status;
	NearDupTrigger *e;

	hash_seq_init(&status, trigger_cache);
	while ((e = (NearDupTrigger *) hash_seq_search(&status)) != NULL)
		if (relid == InvalidOid || e->relid == relid)
			e->valid = false;
}

/*
 * The radius argument: a decimal integer 0..64, else 22023.
 */
static int
parse_radius(const char *trigname, const char *s)
{
	char	   *end;
	long		k;

	errno = 0;
	k = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || k < 0 || k > SIMHASH_BITS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": radius must be an integer from 0 to 64, not \"%s\"",
						trigname, s)));
	return (int) k;
}

/*
 * Has the table (its index list) a GIN or GiST index whose first key is
 * the column, with no predicate?  Only such an index can answer the search (the extension's
 * classes are the only ones of either method for simhash).
 */
static bool
has_search_index(List *indexes, AttrNumber attnum)
{
	ListCell   *lc;
	bool		found = false;

	foreach(lc, indexes)
	{
		Oid			indexoid = lfirst_oid(lc);
		HeapTuple	itup = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(indexoid));
		HeapTuple	ctup;
		Form_pg_index idx;

		if (!HeapTupleIsValid(itup))
			continue;
		idx = (Form_pg_index) GETSTRUCT(itup);
		if (idx->indnkeyatts >= 1 && idx->indkey.values[0] == attnum &&
			heap_attisnull(itup, Anum_pg_index_indpred, NULL))
		{
			ctup = SearchSysCache1(RELOID, ObjectIdGetDatum(indexoid));
			if (HeapTupleIsValid(ctup))
			{
				Oid			am = ((Form_pg_class) GETSTRUCT(ctup))->relam;

				found = (am == GIN_AM_OID || am == GIST_AM_OID);
				ReleaseSysCache(ctup);
			}
		}
		ReleaseSysCache(itup);
		if (found)
			break;
	}
	return found;
}

/*
 * Read the trigger's arguments (column, k [, action]) and check them
 * against the table; find its primary key; prepare the search.  Called
 * inside SPI, as the table owner.
 */
static void
build_entry(NearDupTrigger *e, Trigger *tg, Relation rel, Oid fn_oid)
{
	TupleDesc	td = RelationGetDescr(rel);
	Oid			extnsp = get_func_namespace(fn_oid);
	Oid			simhash_type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
											   CStringGetDatum("simhash"),
											   ObjectIdGetDatum(extnsp));
	const char *ext = quote_identifier(get_namespace_name(extnsp));
	const char *col;
	StringInfoData sql;
	Oid			argtypes[2] = {simhash_type, TIDOID};
	List	   *indexes;
	int			attnum;
	int			i;
	SPIPlanPtr	plan;

	if (tg->tgnargs < 2 || tg->tgnargs > 3)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": %s takes 2 or 3 arguments, not %d",
						tg->tgname, FNAME, tg->tgnargs),
				 errhint("Use %s('column', 'k') or %s('column', 'k', 'skip').",
						 FNAME, FNAME)));

	attnum = SPI_fnumber(td, tg->tgargs[0]);
	if (attnum == SPI_ERROR_NOATTRIBUTE)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" does not exist",
						tg->tgname, tg->tgargs[0], RelationGetRelationName(rel))));
	if (attnum <= 0 || TupleDescAttr(td, attnum - 1)->atttypid != simhash_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" is not of type simhash",
						tg->tgname, tg->tgargs[0], RelationGetRelationName(rel))));

	e->relid = RelationGetRelid(rel);
	e->attnum = (AttrNumber) attnum;
	e->k = parse_radius(tg->tgname, tg->tgargs[1]);
	e->skip = false;
	if (tg->tgnargs == 3)
	{
		if (pg_strcasecmp(tg->tgargs[2], "skip") == 0)
			e->skip = true;
		else if (pg_strcasecmp(tg->tgargs[2], "reject") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("trigger \"%s\": action must be \"reject\" or \"skip\", not \"%s\"",
							tg->tgname, tg->tgargs[2])));
	}

	/*
	 * A generated column is computed after BEFORE triggers run: the trigger
	 * evaluates its expression itself.
	 */
	MemoryContextReset(e->cxt);
	e->genexpr = NULL;
	if (TupleDescAttr(td, attnum - 1)->attgenerated)
	{
		Node	   *expr = build_column_default(rel, attnum);
		MemoryContext old;

		if (expr == NULL)
			elog(ERROR, "%s: no generation expression for column \"%s\"",
				 FNAME, tg->tgargs[0]);
		old = MemoryContextSwitchTo(e->cxt);
		e->genexpr = copyObject(expr);
		MemoryContextSwitchTo(old);
	}

	/* the primary key, which names the existing row in the error detail */
	indexes = RelationGetIndexList(rel);	/* also makes rd_pkindex valid */
	e->npk = 0;
	if (OidIsValid(rel->rd_pkindex))
	{
		HeapTuple	itup = SearchSysCache1(INDEXRELID,
										   ObjectIdGetDatum(rel->rd_pkindex));

		if (HeapTupleIsValid(itup))
		{
			Form_pg_index idx = (Form_pg_index) GETSTRUCT(itup);

			for (i = 0; i < idx->indnkeyatts; i++)
				if (idx->indkey.values[i] > 0)
					e->pkatts[e->npk++] = idx->indkey.values[i];
			ReleaseSysCache(itup);
		}
	}

	if (!e->warned && !has_search_index(indexes, e->attnum))
	{
		e->warned = true;
		ereport(WARNING,
				(errcode(ERRCODE_WARNING),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" has no GIN or GiST index",
						tg->tgname, tg->tgargs[0], RelationGetRelationName(rel)),
				 errdetail("Each inserted or updated row is checked by reading the whole table."),
				 errhint("CREATE INDEX ON %s USING gin (%s simhash_gin_ops);",
						 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													RelationGetRelationName(rel)),
						 quote_identifier(tg->tgargs[0]))));
	}
	list_free(indexes);

	/*
	 * SELECT ctid, distance, fp, pk::text... of the rows within k.  Every
	 * name is qualified: the search runs as the table owner.  The radius
	 * test is the natural form, which the extension's planner support
	 * turns into an index clause for a GIN or GiST index on the column.
	 */
	col = quote_identifier(NameStr(TupleDescAttr(td, attnum - 1)->attname));
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT t.ctid, (t.%s OPERATOR(%s.<->) $1)::pg_catalog.int4, t.%s",
					 col, ext, col);
	for (i = 0; i < e->npk; i++)
		appendStringInfo(&sql, ", t.%s::pg_catalog.text",
						 quote_identifier(NameStr(TupleDescAttr(td, e->pkatts[i] - 1)->attname)));
	appendStringInfo(&sql,
					 " FROM ONLY %s t WHERE t.%s OPERATOR(%s.<->) $1 OPERATOR(%s.<=) %d"
					 " AND t.ctid OPERATOR(pg_catalog.<>) $2",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												RelationGetRelationName(rel)),
					 col, ext, ext, e->k);

	plan = SPI_prepare(sql.data, 2, argtypes);
	if (plan == NULL)
		elog(ERROR, "%s: could not prepare the search: %s", FNAME,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "%s: could not keep the search plan", FNAME);
	if (e->plan != NULL)
		SPI_freeplan(e->plan);
	e->plan = plan;
	e->valid = true;
	pfree(sql.data);
}

/*
 * The fingerprint of a row: the column's value, or for a generated column
 * its expression evaluated on the row's other columns.  *isnull is set.
 */
static SimHash
row_fingerprint(NearDupTrigger *e, Relation rel, HeapTuple tuple, bool *isnull)
{
	EState	   *estate;
	ExprContext *econtext;
	TupleTableSlot *slot;
	ExprState  *state;
	Datum		d;

	if (e->genexpr == NULL)
		return DatumGetSimHash(heap_getattr(tuple, e->attnum, RelationGetDescr(rel), isnull));

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
	state = ExecPrepareExpr((Expr *) e->genexpr, estate);
	ExecStoreHeapTuple(tuple, slot, false);
	econtext->ecxt_scantuple = slot;
	d = ExecEvalExprSwitchContext(state, econtext, isnull);
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	return *isnull ? 0 : DatumGetSimHash(d);
}

/*
 * Lock keys of fingerprint fp for radius k: locktag field 3 values, one per
 * segment, ascending.  Returns their number (at most MAX_KEYS).
 */
static int
lock_keys(SimHash fp, int k, AttrNumber attnum, uint32 *keys)
{
	int			m,
				base,
				extra,
				shift = SIMHASH_BITS,
				per_segment,
				i;

	if (k > MAX_SEGMENTED_RADIUS)
	{
		keys[0] = ((uint32) attnum << 16) | (WHOLE_COLUMN_SEGMENT << 9);
		return 1;
	}
	m = k <= 3 ? 4 : k + 1;
	base = SIMHASH_BITS / m;
	extra = SIMHASH_BITS % m;
	per_segment = LOCK_BUDGET / m;
	for (i = 0; i < m; i++)
	{
		int			len = base + (i < extra ? 1 : 0);
		uint32		value;
		uint32		buckets;

		shift -= len;
		value = (uint32) ((fp >> shift) & ((UINT64CONST(1) << len) - 1));
		buckets = Min((uint32) per_segment, (uint32) 1 << len);
		keys[i] = ((uint32) attnum << 16) | ((uint32) i << 9) |
			(hash_bytes_uint32(value) % buckets);
	}
	return m;
}

static inline void
key_tag(LOCKTAG *tag, Oid relid, uint32 key)
{
	SET_LOCKTAG_ADVISORY(*tag, MyDatabaseId, relid, key, LOCK_CLASS);
}

/*
 * Take every key in exclusive mode, never waiting while holding one of them
 * (see the file header).  On return all are held once more by the current
 * resource owner.
 */
static void
lock_all(Oid relid, const uint32 *keys, int n)
{
	bool		held[MAX_KEYS] = {false};
	int			busy = -1;
	int			i,
				j;
	LOCKTAG		tag;

	for (;;)
	{
		if (busy >= 0)
		{
			key_tag(&tag, relid, keys[busy]);
			(void) LockAcquire(&tag, ExclusiveLock, false, false);
			held[busy] = true;
		}
		for (i = 0; i < n; i++)
		{
			if (held[i])
				continue;
			key_tag(&tag, relid, keys[i]);
			if (LockAcquire(&tag, ExclusiveLock, false, true) == LOCKACQUIRE_NOT_AVAIL)
				break;
			held[i] = true;
		}
		if (i == n)
			return;
		for (j = 0; j < n; j++)
			if (held[j])
			{
				key_tag(&tag, relid, keys[j]);
				LockRelease(&tag, ExclusiveLock, false);
				held[j] = false;
			}
		busy = i;
		CHECK_FOR_INTERRUPTS();
	}
}

/* Give back one hold of each key (taken by lock_all for this row) */
static void
unlock_all(Oid relid, const uint32 *keys, int n)
{
	LOCKTAG		tag;
	int			i;

	for (i = 0; i < n; i++)
	{
		key_tag(&tag, relid, keys[i]);
		LockRelease(&tag, ExclusiveLock, false);
	}
}

/*
 * The error detail naming the conflicting row (first row of SPI_tuptable): its
 * primary key, else its ctid, its fingerprint and the distance.  Shown only
 * to a user who may read those columns and is not subject to row security,
 * as PostgreSQL does for the key of a unique violation; decided as the
 * caller (user, sec_context), not in the owner's context the search ran in,
 * where SECURITY_NOFORCE_RLS would hide FORCE ROW LEVEL SECURITY.
 */
static char *
conflict_detail(NearDupTrigger *e, Relation rel, Oid user, int sec_context,
				SimHash fp)
{
	TupleDesc	td = RelationGetDescr(rel);
	HeapTuple	row = SPI_tuptable->vals[0];
	TupleDesc	rtd = SPI_tuptable->tupdesc;
	const char *colname = NameStr(TupleDescAttr(td, e->attnum - 1)->attname);
	bool		allowed;
	bool		isnull;
	int			distance;
	SimHash		other;
	StringInfoData who;
	Oid			search_user;
	int			search_context;
	int			i;

	GetUserIdAndSecContext(&search_user, &search_context);
	SetUserIdAndSecContext(user, sec_context);
	allowed = check_enable_rls(e->relid, InvalidOid, true) != RLS_ENABLED;
	if (allowed && pg_class_aclcheck(e->relid, user, ACL_SELECT) != ACLCHECK_OK)
	{
		allowed = pg_attribute_aclcheck(e->relid, e->attnum, user, ACL_SELECT) == ACLCHECK_OK;
		for (i = 0; allowed && i < e->npk; i++)
			allowed = pg_attribute_aclcheck(e->relid, e->pkatts[i], user,
											ACL_SELECT) == ACLCHECK_OK;
	}
	SetUserIdAndSecContext(search_user, search_context);
	if (!allowed)
		return psprintf("The new row's %s is within %d bits of an existing row's.",
						colname, e->k);

	distance = DatumGetInt32(SPI_getbinval(row, rtd, 2, &isnull));
	other = DatumGetSimHash(SPI_getbinval(row, rtd, 3, &isnull));
	initStringInfo(&who);
	if (e->npk > 0)
	{
		appendStringInfoString(&who, "Key (");
		for (i = 0; i < e->npk; i++)
			appendStringInfo(&who, "%s%s", i ? ", " : "",
							 quote_identifier(NameStr(TupleDescAttr(td, e->pkatts[i] - 1)->attname)));
		appendStringInfoString(&who, ")=(");
		for (i = 0; i < e->npk; i++)
		{
			char	   *v = SPI_getvalue(row, rtd, 4 + i);

			appendStringInfo(&who, "%s%s", i ? ", " : "", v ? v : "null");
		}
		appendStringInfoChar(&who, ')');
	}
	else
	{
		ItemPointer tid = (ItemPointer) DatumGetPointer(SPI_getbinval(row, rtd, 1, &isnull));

		appendStringInfo(&who, "The row at ctid (%u,%u)",
						 ItemPointerGetBlockNumber(tid),
						 ItemPointerGetOffsetNumber(tid));
	}
	return psprintf("%s has %s %s, at distance %d from the new row's %s.",
					who.data, colname,
					DatumGetCString(DirectFunctionCall1(simhash_out, SimHashGetDatum(other))),
					distance,
					DatumGetCString(DirectFunctionCall1(simhash_out, SimHashGetDatum(fp))));
}

/*
 * simhash_reject_near_duplicates() RETURNS trigger
 *		Trigger arguments: column name, radius k (0..64, in bits) and
 *		optionally the action, 'reject' (the default) or 'skip'.  Fired
 *		BEFORE INSERT OR UPDATE FOR EACH ROW: a new row whose fingerprint is
 *		within k bits of another row's (committed, or written earlier by
 *		this transaction) is rejected with 23P01, or dropped silently with
 *		'skip' (the trigger returns NULL).  The column may be a generated
 *		column: its expression is evaluated on the new row as the calling
 *		user, as PostgreSQL computes it only after BEFORE triggers.  The
 *		first fire in a session on a column without a GIN or GiST index
 *		warns once.  A NULL fingerprint never conflicts; an UPDATE that
 *		leaves the fingerprint unchanged is not checked, and a row never
 *		conflicts with its own old version.  At
 *		REPEATABLE READ and SERIALIZABLE a conflicting row the transaction's
 *		snapshot cannot see is 40001.  Wrong use (not a BEFORE row trigger
 *		on INSERT or UPDATE) is 39P01; bad arguments 22023, 42703, 42804,
 *		raised when the trigger first fires.
 */
PG_FUNCTION_INFO_V1(simhash_reject_near_duplicates);
Datum
simhash_reject_near_duplicates(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = (TriggerData *) fcinfo->context;
	Trigger    *tg;
	Relation	rel;
	HeapTuple	newtuple;
	NearDupTrigger *e;
	bool		found;
	bool		isnull;
	SimHash		fp;
	uint32		keys[MAX_KEYS];
	int			nkeys;
	ItemPointerData self;
	Datum		values[2];
	Oid			save_userid;
	int			save_sec_context;
	int			search_context;
	int			ret;
	bool		visible = true;
	char	   *detail;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("%s: must be called as a trigger", FNAME)));
	tg = trigdata->tg_trigger;
	rel = trigdata->tg_relation;
	if (!TRIGGER_FIRED_BEFORE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\": %s must be fired BEFORE", tg->tgname, FNAME)));
	if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\": %s must be fired FOR EACH ROW", tg->tgname, FNAME)));
	if (!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) &&
		!TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("trigger \"%s\": %s must be fired for INSERT or UPDATE",
						tg->tgname, FNAME)));
	if (rel->rd_rel->relkind != RELKIND_RELATION)
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("trigger \"%s\": relation \"%s\" is not a table",
						tg->tgname, RelationGetRelationName(rel))));

	if (trigger_cache == NULL)
	{
		HASHCTL		ctl;

		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(NearDupTrigger);
		trigger_cache = hash_create("simhash near-duplicate triggers", 16, &ctl,
									HASH_ELEM | HASH_BLOBS);
		CacheRegisterRelcacheCallback(invalidate_relation, (Datum) 0);
	}
	e = (NearDupTrigger *) hash_search(trigger_cache, &tg->tgoid, HASH_ENTER, &found);
	if (!found)
	{
		e->valid = false;
		e->warned = false;
		e->plan = NULL;
		e->genexpr = NULL;
		e->cxt = AllocSetContextCreate(TopMemoryContext, "simhash trigger",
									   ALLOCSET_SMALL_SIZES);
	}

	if (TRIGGER_FIRED_BY_INSERT(trigdata->tg_event))
	{
		newtuple = trigdata->tg_trigtuple;
		ItemPointerSetInvalid(&self);
	}
	else
	{
		newtuple = trigdata->tg_newtuple;
		self = trigdata->tg_trigtuple->t_self;
	}

	/*
	 * The search runs as the table owner with row security off, as
	 * foreign-key checks do, so every row is seen, and as a
	 * security-restricted operation.  Nothing of the caller's runs there: a
	 * generation expression is evaluated as the caller, with the caller's
	 * search_path, as PostgreSQL evaluates it when it stores the row.
	 */
	GetUserIdAndSecContext(&save_userid, &save_sec_context);
	search_context = save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
		SECURITY_RESTRICTED_OPERATION | SECURITY_NOFORCE_RLS;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (!e->valid)
	{
		SetUserIdAndSecContext(rel->rd_rel->relowner, search_context);
		build_entry(e, tg, rel, fcinfo->flinfo->fn_oid);
		SetUserIdAndSecContext(save_userid, save_sec_context);
	}

	fp = row_fingerprint(e, rel, newtuple, &isnull);
	if (isnull)
		goto accept;
	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		bool		oldnull;
		SimHash		oldfp = row_fingerprint(e, rel, trigdata->tg_trigtuple, &oldnull);

		if (!oldnull && oldfp == fp)
			goto accept;
	}

	SetUserIdAndSecContext(rel->rd_rel->relowner, search_context);
	nkeys = lock_keys(fp, e->k, e->attnum, keys);
	lock_all(e->relid, keys, nkeys);

	/* every row committed before the keys were granted, and our own */
	values[0] = SimHashGetDatum(fp);
	values[1] = PointerGetDatum(&self);
	ret = SPI_execute_snapshot(e->plan, values, NULL, GetLatestSnapshot(),
							   InvalidSnapshot, false, false, 1);
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "%s: the search failed: %s", FNAME, SPI_result_code_string(ret));
	if (SPI_processed == 0)
		goto accept;

	/* a conflict: does the transaction's own snapshot see one? */
	if (IsolationUsesXactSnapshot())
	{
		SPITupleTable *latest = SPI_tuptable;

		ret = SPI_execute_plan(e->plan, values, NULL, false, 1);
		if (ret != SPI_OK_SELECT)
			elog(ERROR, "%s: the search failed: %s", FNAME, SPI_result_code_string(ret));
		if (SPI_processed == 0)
		{
			visible = false;
			SPI_tuptable = latest;
		}
	}

	if (!visible)
	{
		detail = conflict_detail(e, rel, save_userid, save_sec_context, fp);
		ereport(ERROR,
				(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
				 errmsg("could not serialize access due to a concurrent near-duplicate in relation \"%s\"",
						RelationGetRelationName(rel)),
				 errdetail_internal("%s", detail),
				 errhint("The row was committed after this transaction's snapshot was taken. The transaction might succeed if retried."),
				 errtablecol(rel, e->attnum)));
	}
	if (e->skip)
	{
		/* nothing is written: the keys protect nothing */
		unlock_all(e->relid, keys, nkeys);
		SetUserIdAndSecContext(save_userid, save_sec_context);
		SPI_finish();
		return PointerGetDatum(NULL);
	}
	detail = conflict_detail(e, rel, save_userid, save_sec_context, fp);
	ereport(ERROR,
			(errcode(ERRCODE_EXCLUSION_VIOLATION),
			 errmsg("new row for relation \"%s\" is within %d bits of an existing row",
					RelationGetRelationName(rel), e->k),
			 errdetail_internal("%s", detail),
			 errtablecol(rel, e->attnum),
			 errtableconstraint(rel, tg->tgname)));

accept:
	SetUserIdAndSecContext(save_userid, save_sec_context);
	SPI_finish();
	return PointerGetDatum(newtuple);
}
