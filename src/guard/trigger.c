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
 * its W bits (64, 128 or 256, in the order of the hex text) into
 * m = max(k + 1, W / 16) segments, two fingerprints within k bits agree
 * exactly on at least one segment, so two near-duplicates always ask for
 * one common key, and the second waits until the first transaction has
 * ended.  Its search then runs with a snapshot taken after the wait, so it
 * sees the first row if that committed.  Each key is (segment number, a
 * hash of the segment value modulo a bucket count), at most LOCK_BUDGET
 * keys per trigger, so a bulk load holds a bounded number of locks; two
 * unrelated rows that share a bucket only wait for each other.  For
 * k >= W / 4 the segments would be shorter than 4 bits, too short to
 * separate anything, and one key covers the column (k > 15 at 64 bits,
 * k > 31 at 128, k > 63 at 256).
 *
 * Action 'link' (since 1.14) keeps the row and writes the id of its
 * nearest near-duplicate and their distance into two columns.  It takes
 * the same keys and keeps them, as 'reject' does for a row it lets in, so
 * of two near-duplicates written at once the second sees the first.
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
#include "utils/typcache.h"

#define FNAME					"simhash_reject_near_duplicates"
#define LOCK_CLASS				0x5348	/* locktag field 4: "SH" */
#define LOCK_BUDGET				512 /* keys per trigger, all segments */
#define MIN_SEGMENT_BITS		4	/* shorter segments: one key */
#define MAX_SEGMENT_BITS		16	/* a segment's value is hashed as uint32 */
#define MAX_KEYS				(SIMHASH_MAX_BITS / MIN_SEGMENT_BITS)
#define WHOLE_COLUMN_SEGMENT	127 /* segment number of the single key */

/* One trigger's settings and search plan, cached by trigger OID */
typedef struct NearDupTrigger
{
	Oid			tgoid;			/* hash key */
	bool		valid;			/* false after a relcache invalidation */
	Oid			relid;
	AttrNumber	attnum;			/* the simhash, simhash128 or simhash256 column */
	Oid			fptype;			/* its type */
	int			nwords;			/* its width in 64-bit words: 1, 2 or 4 */
	int			k;				/* radius, 0..64 * nwords */
	bool		skip;			/* action 'skip' instead of 'reject' */
	bool		link;			/* action 'link' (since 1.14) */
	/* with 'link': the id column and the two columns the trigger sets */
	AttrNumber	idatt;
	AttrNumber	linkatt;
	AttrNumber	distatt;
	Oid			disttype;		/* int2, int4 or int8 */
	int16		idlen;			/* the id type's length and byval */
	bool		idbyval;
	bool		warned;			/* the missing index was reported */
	Node	   *genexpr;		/* generation expression of a generated column */
	/* verification (since 1.10): a minhash column and a threshold, or none */
	AttrNumber	sigatt;			/* 0: the radius alone decides */
	Oid			sigtype;
	double		threshold;		/* minhash_jaccard at least this */
	Node	   *siggenexpr;		/* generation expression of the signature */
	MemoryContext cxt;			/* holds genexpr and siggenexpr */
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
 * The radius argument: a decimal integer 0..bits (the column's width),
 * else 22023.
 */
static int
parse_radius(const char *trigname, const char *s, int bits)
{
	char	   *end;
	long		k;

	errno = 0;
	k = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || k < 0 || k > bits)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": radius must be an integer from 0 to %d, not \"%s\"",
						trigname, bits, s)));
	return (int) k;
}

/* The OID of the extension's type of that name, in namespace nsp */
static Oid
extension_type(Oid nsp, const char *name)
{
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum(name), ObjectIdGetDatum(nsp));
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
 * The generation expression of column attnum, copied into cxt, if the
 * column is generated; else NULL.
 */
static Node *
generation_expr(Relation rel, AttrNumber attnum, const char *colname,
				MemoryContext cxt)
{
	Node	   *expr;
	MemoryContext old;

	if (!TupleDescAttr(RelationGetDescr(rel), attnum - 1)->attgenerated)
		return NULL;
	expr = build_column_default(rel, attnum);
	if (expr == NULL)
		elog(ERROR, "%s: no generation expression for column \"%s\"",
			 FNAME, colname);
	old = MemoryContextSwitchTo(cxt);
	expr = copyObject(expr);
	MemoryContextSwitchTo(old);
	return expr;
}

/*
 * The verification arguments (since 1.10), the last two: a minhash column
 * and the threshold t in [0, 1]; a row conflicts only when
 * minhash_jaccard of the two signatures is at least t as well.
 */
static void
build_verification(NearDupTrigger *e, Trigger *tg, Relation rel, Oid extnsp,
				   const char *sigcol, const char *threshold)
{
	TupleDesc	td = RelationGetDescr(rel);
	int			attnum = SPI_fnumber(td, sigcol);
	char	   *end;
	double		t;

	if (attnum == SPI_ERROR_NOATTRIBUTE)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" does not exist",
						tg->tgname, sigcol, RelationGetRelationName(rel))));
	e->sigtype = extension_type(extnsp, "minhash");
	if (attnum <= 0 || TupleDescAttr(td, attnum - 1)->atttypid != e->sigtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" is not of type minhash",
						tg->tgname, sigcol, RelationGetRelationName(rel)),
				 errdetail("The argument before the threshold names the signature column of the verification stage, for example sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED.")));
	errno = 0;
	t = strtod(threshold, &end);
	if (*threshold == '\0' || *end != '\0' || errno != 0 || !(t >= 0.0 && t <= 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": threshold must be a number from 0 to 1, not \"%s\"",
						tg->tgname, threshold)));
	e->sigatt = (AttrNumber) attnum;
	e->threshold = t;
}

/* The attribute number of the column argument argno names, else 42703 */
static AttrNumber
link_column(Trigger *tg, Relation rel, int argno)
{
	int			attnum = SPI_fnumber(RelationGetDescr(rel), tg->tgargs[argno]);

	if (attnum == SPI_ERROR_NOATTRIBUTE)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" does not exist",
						tg->tgname, tg->tgargs[argno], RelationGetRelationName(rel))));
	return (AttrNumber) attnum;
}

/*
 * The columns of action 'link' (since 1.14): arguments 4, 5 and 6 name the
 * id column, the link column (of the id's type) and the distance column (an
 * integer type).  The trigger writes the two last, so they must be ordinary
 * columns of their own, neither generated nor one of the columns it reads.
 */
static void
build_link(NearDupTrigger *e, Trigger *tg, Relation rel)
{
	TupleDesc	td = RelationGetDescr(rel);
	AttrNumber	idatt = link_column(tg, rel, 3);
	AttrNumber	linkatt = link_column(tg, rel, 4);
	AttrNumber	distatt = link_column(tg, rel, 5);
	Oid			idtype;
	Oid			linktype;
	int			i;

	for (i = 0; i < 2; i++)
	{
		AttrNumber	a = i == 0 ? linkatt : distatt;

		if (a <= 0 || TupleDescAttr(td, a - 1)->attgenerated ||
			a == idatt || a == e->attnum || a == e->sigatt ||
			linkatt == distatt)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" cannot take the link",
							tg->tgname, tg->tgargs[4 + i], RelationGetRelationName(rel)),
					 errdetail("The link and distance columns must be two distinct ordinary columns, not generated, and not the id, fingerprint or signature column.")));
	}
	if (idatt <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": id column \"%s\" of relation \"%s\" is a system column",
						tg->tgname, tg->tgargs[3], RelationGetRelationName(rel))));
	idtype = TupleDescAttr(td, idatt - 1)->atttypid;
	linktype = TupleDescAttr(td, linkatt - 1)->atttypid;
	if (!OidIsValid(lookup_type_cache(idtype, TYPECACHE_LT_OPR)->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("trigger \"%s\": id column \"%s\" of relation \"%s\" is of type %s, which has no ordering",
						tg->tgname, tg->tgargs[3], RelationGetRelationName(rel),
						format_type_be(idtype)),
				 errdetail("Of near-duplicates at the same distance, the link names the smallest id.")));
	if (linktype != idtype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("trigger \"%s\": link column \"%s\" of relation \"%s\" is of type %s, not %s as id column \"%s\"",
						tg->tgname, tg->tgargs[4], RelationGetRelationName(rel),
						format_type_be(linktype), format_type_be(idtype), tg->tgargs[3])));
	e->disttype = TupleDescAttr(td, distatt - 1)->atttypid;
	if (e->disttype != INT2OID && e->disttype != INT4OID && e->disttype != INT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("trigger \"%s\": distance column \"%s\" of relation \"%s\" is of type %s, not smallint, integer or bigint",
						tg->tgname, tg->tgargs[5], RelationGetRelationName(rel),
						format_type_be(e->disttype))));
	get_typlenbyval(idtype, &e->idlen, &e->idbyval);
	e->idatt = idatt;
	e->linkatt = linkatt;
	e->distatt = distatt;
}

/*
 * Read the trigger's arguments (column, k [, action [, id, link, distance]]
 * [, signature, threshold]) and check them
 * against the table; find its primary key; prepare the search.  Called
 * inside SPI, as the table owner.
 */
static void
build_entry(NearDupTrigger *e, Trigger *tg, Relation rel, Oid fn_oid)
{
	TupleDesc	td = RelationGetDescr(rel);
	Oid			extnsp = get_func_namespace(fn_oid);
	const char *ext = quote_identifier(get_namespace_name(extnsp));
	const char *col;
	StringInfoData sql;
	Oid			argtypes[3];
	Oid			coltype;
	List	   *indexes;
	int			attnum;
	int			i;
	SPIPlanPtr	plan;

	if (tg->tgnargs < 2 || tg->tgnargs > 8 || tg->tgnargs == 4 || tg->tgnargs == 7)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": %s takes 2, 3, 5, 6 or 8 arguments, not %d",
						tg->tgname, FNAME, tg->tgnargs),
				 errhint("Use %s('column', 'k'), %s('column', 'k', 'skip'), %s('column', 'k', 'reject', 'signature_column', 'threshold') or %s('column', 'k', 'link', 'id_column', 'link_column', 'distance_column' [, 'signature_column', 'threshold']).",
						 FNAME, FNAME, FNAME, FNAME)));

	attnum = SPI_fnumber(td, tg->tgargs[0]);
	if (attnum == SPI_ERROR_NOATTRIBUTE)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" does not exist",
						tg->tgname, tg->tgargs[0], RelationGetRelationName(rel))));
	/* a simhash, simhash128 or simhash256 column, not a system column */
	coltype = attnum > 0 ? TupleDescAttr(td, attnum - 1)->atttypid : InvalidOid;
	e->nwords = 0;
	if (OidIsValid(coltype))
	{
		if (coltype == extension_type(extnsp, "simhash"))
			e->nwords = 1;
		else if (coltype == extension_type(extnsp, "simhash128"))
			e->nwords = 2;
		else if (coltype == extension_type(extnsp, "simhash256"))
			e->nwords = 4;
	}
	if (e->nwords == 0)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("trigger \"%s\": column \"%s\" of relation \"%s\" is not of type simhash",
						tg->tgname, tg->tgargs[0], RelationGetRelationName(rel)),
				 errdetail("The column may be a simhash, a simhash128 or a simhash256.")));

	e->relid = RelationGetRelid(rel);
	e->attnum = (AttrNumber) attnum;
	e->fptype = coltype;
	e->k = parse_radius(tg->tgname, tg->tgargs[1], SIMHASH_BITS * e->nwords);
	e->skip = false;
	e->link = false;
	if (tg->tgnargs >= 3)
	{
		if (pg_strcasecmp(tg->tgargs[2], "skip") == 0)
			e->skip = true;
		else if (pg_strcasecmp(tg->tgargs[2], "link") == 0)
			e->link = true;
		else if (pg_strcasecmp(tg->tgargs[2], "reject") != 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("trigger \"%s\": action must be \"reject\", \"skip\" or \"link\", not \"%s\"",
							tg->tgname, tg->tgargs[2])));
	}
	/* 'link' takes three columns before the verification arguments */
	if (e->link != (tg->tgnargs >= 6))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\": action \"%s\" does not take %d arguments",
						tg->tgname, tg->tgargs[2], tg->tgnargs),
				 errhint("Use %s('column', 'k', 'link', 'id_column', 'link_column', 'distance_column' [, 'signature_column', 'threshold']) to link, %s('column', 'k', 'reject' or 'skip' [, 'signature_column', 'threshold']) otherwise.",
						 FNAME, FNAME)));
	e->sigatt = 0;
	if (tg->tgnargs == 5 || tg->tgnargs == 8)
		build_verification(e, tg, rel, extnsp,
						   tg->tgargs[tg->tgnargs - 2], tg->tgargs[tg->tgnargs - 1]);
	if (e->link)
		build_link(e, tg, rel);

	/*
	 * A generated column is computed after BEFORE triggers run: the trigger
	 * evaluates its expression itself.
	 */
	MemoryContextReset(e->cxt);
	e->genexpr = generation_expr(rel, attnum, tg->tgargs[0], e->cxt);
	e->siggenexpr = e->sigatt > 0 ?
		generation_expr(rel, e->sigatt, tg->tgargs[tg->tgnargs - 2], e->cxt) : NULL;

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
				 errhint("CREATE INDEX ON %s USING gin (%s%s);",
						 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
													RelationGetRelationName(rel)),
						 quote_identifier(tg->tgargs[0]),
						 e->nwords == 1 ? " simhash_gin_ops" :
						 e->nwords == 2 ? " simhash128_gin_word_ops" :
						 " simhash256_gin_word_ops")));
	}
	list_free(indexes);

	/*
	 * SELECT ctid, distance, fp, pk::text... [, id] of the rows within k.  Every
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
	/* with 'link', the id last (column 4 + npk) */
	if (e->link)
		appendStringInfo(&sql, ", t.%s",
						 quote_identifier(NameStr(TupleDescAttr(td, e->idatt - 1)->attname)));
	appendStringInfo(&sql,
					 " FROM ONLY %s t WHERE t.%s OPERATOR(%s.<->) $1 OPERATOR(%s.<=) %d"
					 " AND t.ctid OPERATOR(pg_catalog.<>) $2",
					 quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												RelationGetRelationName(rel)),
					 col, ext, ext, e->k);
	/* the verification stage filters the candidates the radius finds */
	if (e->sigatt > 0)
		appendStringInfo(&sql,
						 " AND %s.minhash_jaccard(t.%s, $3) OPERATOR(pg_catalog.>=) %.17g::pg_catalog.float8",
						 ext, quote_identifier(NameStr(TupleDescAttr(td, e->sigatt - 1)->attname)),
						 e->threshold);

	/*
	 * 'link' wants the nearest candidate, the smallest id among equals (a
	 * rule that does not depend on the plan); a row without an id cannot be
	 * named, so it is no candidate.
	 */
	if (e->link)
		appendStringInfo(&sql, " AND t.%s IS NOT NULL ORDER BY 2, %d LIMIT 1",
						 quote_identifier(NameStr(TupleDescAttr(td, e->idatt - 1)->attname)),
						 4 + e->npk);

	argtypes[0] = e->fptype;
	argtypes[1] = TIDOID;
	argtypes[2] = e->sigtype;
	plan = SPI_prepare(sql.data, e->sigatt > 0 ? 3 : 2, argtypes);
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
 * its expression evaluated on the row's other columns (a wide one copied
 * into the current memory context).  *isnull is set.
 */
static Datum
row_value(Relation rel, HeapTuple tuple, AttrNumber attnum, Node *genexpr,
		  Size byref_len, bool *isnull)
{
	EState	   *estate;
	ExprContext *econtext;
	TupleTableSlot *slot;
	ExprState  *state;
	Datum		d;

	if (genexpr == NULL)
		return heap_getattr(tuple, attnum, RelationGetDescr(rel), isnull);

	estate = CreateExecutorState();
	econtext = GetPerTupleExprContext(estate);
	slot = MakeSingleTupleTableSlot(RelationGetDescr(rel), &TTSOpsHeapTuple);
	state = ExecPrepareExpr((Expr *) genexpr, estate);
	ExecStoreHeapTuple(tuple, slot, false);
	econtext->ecxt_scantuple = slot;
	d = ExecEvalExprSwitchContext(state, econtext, isnull);
	if (!*isnull && byref_len > 0)
	{
		void	   *copy = palloc(byref_len);

		memcpy(copy, DatumGetPointer(d), byref_len);
		d = PointerGetDatum(copy);
	}
	ExecDropSingleTupleTableSlot(slot);
	FreeExecutorState(estate);
	return *isnull ? (Datum) 0 : d;
}

static Datum
row_fingerprint(NearDupTrigger *e, Relation rel, HeapTuple tuple, bool *isnull)
{
	return row_value(rel, tuple, e->attnum, e->genexpr,
					 e->nwords > 1 ? sizeof(uint64) * e->nwords : 0, isnull);
}

/* The row's signature for the verification stage (128 bytes, by reference) */
#define MINHASH_SIZE 128
static Datum
row_signature(NearDupTrigger *e, Relation rel, HeapTuple tuple, bool *isnull)
{
	return row_value(rel, tuple, e->sigatt, e->siggenexpr, MINHASH_SIZE, isnull);
}

/* Whether two non-null fingerprints of the column are equal */
static bool
same_fingerprint(NearDupTrigger *e, Datum a, Datum b)
{
	if (e->nwords == 1)
		return DatumGetSimHash(a) == DatumGetSimHash(b);
	return memcmp(DatumGetPointer(a), DatumGetPointer(b),
				  sizeof(uint64) * e->nwords) == 0;
}

/* A fingerprint of the column as text */
static char *
fingerprint_text(NearDupTrigger *e, Datum fp)
{
	Oid			output;
	bool		isvarlena;

	if (e->nwords == 1)
		return DatumGetCString(DirectFunctionCall1(simhash_out, fp));
	getTypeOutputInfo(e->fptype, &output, &isvarlena);
	return OidOutputFunctionCall(output, fp);
}

/*
 * Bits start .. start + len - 1 (len <= 32) of the fingerprint's words w,
 * numbered in the order of the hex text (bit 0 the most significant of
 * word 0), as an unsigned value, the first bit most significant.
 */
static uint32
segment_bits(const uint64 *w, int start, int len)
{
	int			word = start / SIMHASH_BITS,
				off = start % SIMHASH_BITS,
				first = Min(len, SIMHASH_BITS - off);
	uint64		v;

	v = (w[word] >> (SIMHASH_BITS - off - first)) & ((UINT64CONST(1) << first) - 1);
	if (first < len)
		v = (v << (len - first)) |
			(w[word + 1] >> (SIMHASH_BITS - (len - first)));
	return (uint32) v;
}

/*
 * Lock keys of fingerprint fp (nwords words) for radius k: locktag field 3
 * values, one per segment, ascending.  Returns their number (at most
 * MAX_KEYS).  For a simhash the keys are those of earlier versions (m =
 * max(k + 1, 4) segments, k <= 15).
 */
static int
lock_keys(const uint64 *fp, int nwords, int k, AttrNumber attnum, uint32 *keys)
{
	int			bits = SIMHASH_BITS * nwords;
	int			m,
				base,
				extra,
				start = 0,
				per_segment,
				i;

	if (k + 1 > bits / MIN_SEGMENT_BITS)
	{
		keys[0] = ((uint32) attnum << 16) | (WHOLE_COLUMN_SEGMENT << 9);
		return 1;
	}
	m = Max(k + 1, bits / MAX_SEGMENT_BITS);
	Assert(m <= MAX_KEYS && m < WHOLE_COLUMN_SEGMENT);
	base = bits / m;
	extra = bits % m;
	per_segment = LOCK_BUDGET / m;
	for (i = 0; i < m; i++)
	{
		int			len = base + (i < extra ? 1 : 0);
		uint32		value;
		uint32		buckets;

		value = segment_bits(fp, start, len);
		start += len;
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
 * Whether user, the current user, may see the values of columns atts of
 * another row of relid in an error detail: not subject to row security
 * there, and allowed to SELECT the table or those columns.  PostgreSQL
 * applies the same rule to the key of a unique violation.
 */
bool
simhash_caller_may_read(Oid relid, Oid user, const AttrNumber *atts, int natts)
{
	int			i;

	if (check_enable_rls(relid, InvalidOid, true) == RLS_ENABLED)
		return false;
	if (pg_class_aclcheck(relid, user, ACL_SELECT) == ACLCHECK_OK)
		return true;
	for (i = 0; i < natts; i++)
		if (pg_attribute_aclcheck(relid, atts[i], user, ACL_SELECT) != ACLCHECK_OK)
			return false;
	return true;
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
				Datum fp)
{
	TupleDesc	td = RelationGetDescr(rel);
	HeapTuple	row = SPI_tuptable->vals[0];
	TupleDesc	rtd = SPI_tuptable->tupdesc;
	const char *colname = NameStr(TupleDescAttr(td, e->attnum - 1)->attname);
	bool		allowed;
	bool		isnull;
	int			distance;
	Datum		other;
	StringInfoData who;
	Oid			search_user;
	int			search_context;
	AttrNumber	atts[INDEX_MAX_KEYS + 1];
	int			i;

	GetUserIdAndSecContext(&search_user, &search_context);
	SetUserIdAndSecContext(user, sec_context);
	atts[0] = e->attnum;
	for (i = 0; i < e->npk; i++)
		atts[i + 1] = e->pkatts[i];
	allowed = simhash_caller_may_read(e->relid, user, atts, e->npk + 1);
	SetUserIdAndSecContext(search_user, search_context);
	if (!allowed)
		return psprintf("The new row's %s is within %d bits of an existing row's.",
						colname, e->k);

	distance = DatumGetInt32(SPI_getbinval(row, rtd, 2, &isnull));
	other = SPI_getbinval(row, rtd, 3, &isnull);
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
					who.data, colname, fingerprint_text(e, other), distance,
					fingerprint_text(e, fp));
}

/* The ctid of the first row of a search's result */
static ItemPointer
first_ctid(SPITupleTable *result)
{
	bool		isnull;

	return (ItemPointer) DatumGetPointer(SPI_getbinval(result->vals[0],
													   result->tupdesc, 1, &isnull));
}

/*
 * The row with the link and distance columns of action 'link' set: to id
 * and distance when linked, else both NULL.
 */
static HeapTuple
set_link(NearDupTrigger *e, Relation rel, HeapTuple tuple, bool linked,
		 Datum id, int distance)
{
	int			cols[2] = {e->linkatt, e->distatt};
	Datum		values[2] = {id, (Datum) 0};
	bool		nulls[2] = {!linked, !linked};

	if (linked)
		values[1] = e->disttype == INT2OID ? Int16GetDatum((int16) distance) :
			e->disttype == INT4OID ? Int32GetDatum(distance) :
			Int64GetDatum((int64) distance);
	return heap_modify_tuple_by_cols(tuple, RelationGetDescr(rel), 2, cols,
									 values, nulls);
}

/*
 * simhash_reject_near_duplicates() RETURNS trigger
 *		Trigger arguments: column name (of type simhash, simhash128 or
 *		simhash256), radius k (0..64, 0..128, 0..256 bits by type) and
 *		optionally the action, 'reject' (the default), 'skip' or, since
 *		1.14, 'link' with the id, link and distance columns (the row is
 *		kept, with the id of its nearest near-duplicate and the distance,
 *		or NULL and NULL); the last two may be a verification stage.  Fired
 *		BEFORE INSERT OR UPDATE FOR EACH ROW: a new row whose fingerprint is
 *		within k bits of another row's (committed, or written earlier by
 *		this transaction) is rejected with an error, or dropped silently
 *		with 'skip' (the trigger returns NULL).  The column may be a generated
 *		column: its expression is evaluated on the new row as the calling
 *		user, as PostgreSQL computes it only after BEFORE triggers.  The
 *		first fire in a session on a column without a GIN or GiST index
 *		warns once.  A NULL fingerprint never conflicts; an UPDATE that
 *		leaves the fingerprint unchanged is not checked, and a row never
 *		conflicts with its own old version.  At REPEATABLE READ and
 *		SERIALIZABLE a conflicting row the transaction's snapshot cannot
 *		see is a serialization failure.  Errors (and wrong use, raised when
 *		the trigger first fires): doc/simhash.md.
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
	Datum		fp;
	Datum		sig = (Datum) 0;
	SimHash		fp64;
	uint32		keys[MAX_KEYS];
	int			nkeys;
	ItemPointerData self;
	Datum		values[3];
	Oid			save_userid;
	int			save_sec_context;
	int			search_context;
	int			ret;
	bool		visible = true;
	char	   *detail;
	bool		set_columns = false;	/* 'link': write the two columns */
	bool		linked = false;
	Datum		link_id = (Datum) 0;
	int			link_distance = 0;

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
		e->siggenexpr = NULL;
		e->sigatt = 0;
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

	/* 'link' writes its columns on every row it checks, NULL if no link */
	set_columns = e->link;
	fp = row_fingerprint(e, rel, newtuple, &isnull);
	if (isnull)
		goto accept;
	/* with verification, a row without a signature conflicts with none */
	if (e->sigatt > 0)
	{
		sig = row_signature(e, rel, newtuple, &isnull);
		if (isnull)
			goto accept;
	}
	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		bool		oldnull;
		Datum		oldfp = row_fingerprint(e, rel, trigdata->tg_trigtuple, &oldnull);
		bool		same = !oldnull && same_fingerprint(e, oldfp, fp);

		if (same && e->sigatt > 0)
		{
			Datum		oldsig = row_signature(e, rel, trigdata->tg_trigtuple, &oldnull);

			same = !oldnull && memcmp(DatumGetPointer(oldsig), DatumGetPointer(sig),
									  MINHASH_SIZE) == 0;
		}
		if (same)
		{
			/* not checked: a link stays as it is */
			set_columns = false;
			goto accept;
		}
	}

	SetUserIdAndSecContext(rel->rd_rel->relowner, search_context);
	fp64 = DatumGetSimHash(fp);
	nkeys = lock_keys(e->nwords == 1 ? &fp64 : (const uint64 *) DatumGetPointer(fp),
					  e->nwords, e->k, e->attnum, keys);
	lock_all(e->relid, keys, nkeys);

	/* every row committed before the keys were granted, and our own */
	values[0] = fp;
	values[1] = PointerGetDatum(&self);
	values[2] = sig;
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
		/* 'link' must see the same nearest row, else its link depends on it */
		if (SPI_processed == 0 ||
			(e->link && !ItemPointerEquals(first_ctid(SPI_tuptable),
										   first_ctid(latest))))
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
	if (e->link)
	{
		/* the row is written, so it keeps its keys, as with 'reject' */
		link_id = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc,
								4 + e->npk, &isnull);
		link_id = SPI_datumTransfer(link_id, e->idbyval, e->idlen);
		link_distance = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
													SPI_tuptable->tupdesc, 2, &isnull));
		linked = true;
		goto accept;
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
			 e->sigatt > 0 ?
			 errmsg("new row for relation \"%s\" is within %d bits of an existing row and at least %g alike by minhash_jaccard",
					RelationGetRelationName(rel), e->k, e->threshold) :
			 errmsg("new row for relation \"%s\" is within %d bits of an existing row",
					RelationGetRelationName(rel), e->k),
			 errdetail_internal("%s", detail),
			 errtablecol(rel, e->attnum),
			 errtableconstraint(rel, tg->tgname)));

accept:
	SetUserIdAndSecContext(save_userid, save_sec_context);
	SPI_finish();
	if (set_columns)
		newtuple = set_link(e, rel, newtuple, linked, link_id, link_distance);
	return PointerGetDatum(newtuple);
}
