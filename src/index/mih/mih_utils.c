/*
 * mih_utils.c
 *		The handler of the mih access method, its page helpers and the
 *		choice of its layout (doc/indexes.md).
 */
#include "mih.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/index.h"
#include "commands/defrem.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "access/reloptions.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_opclass.h"
#include "commands/vacuum.h"
#include "storage/lmgr.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(simhash_mih_handler);

/*
 * simhash_mih_handler(internal) RETURNS index_am_handler
 *		The access method's routine table.
 */
Datum
simhash_mih_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 0;		/* within (1) and distance (15), as GiST's */
	am->amsupport = 0;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = true;
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	am->amoptionalkey = true;	/* an ORDER BY alone is a scan */
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = false;
	am->ampredlocks = false;
	am->amcanparallel = false;
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = true;
	am->amparallelvacuumoptions = VACUUM_OPTION_PARALLEL_BULKDEL;
	am->amkeytype = InvalidOid;

	am->ambuild = mih_build;
	am->ambuildempty = mih_buildempty;
	am->aminsert = mih_insert;
	am->ambulkdelete = mih_bulkdelete;
	am->amvacuumcleanup = mih_vacuumcleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = mih_costestimate;
	am->amoptions = mih_options;
	am->amproperty = NULL;
	am->ambuildphasename = NULL;
	am->amvalidate = mih_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = mih_beginscan;
	am->amrescan = mih_rescan;
	am->amgettuple = mih_gettuple;
	am->amgetbitmap = mih_getbitmap;
	am->amendscan = mih_endscan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;

	PG_RETURN_POINTER(am);
}

/* Initialize a page of the index with its flags */
void
mih_init_page(Page page, uint16 flags)
{
	MihPageOpaque opaque;

	PageInit(page, BLCKSZ, sizeof(MihPageOpaqueData));
	/* the whole body is data: no hole for generic WAL to leave out */
	((PageHeader) page)->pd_lower = ((PageHeader) page)->pd_upper;
	opaque = MihPageGetOpaque(page);
	opaque->next = InvalidBlockNumber;
	opaque->nitems = 0;
	opaque->flags = flags;
}

/* The 64-bit words of the indexed column's type: 1, 2 or 4 */
int
mih_index_nwords(Relation index)
{
	Form_pg_attribute att = TupleDescAttr(RelationGetDescr(index), 0);

	if (att->attlen != 8 && att->attlen != 16 && att->attlen != 32)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("index \"%s\" is not on a simhash, simhash128 or simhash256 column",
						RelationGetRelationName(index))));
	return att->attlen / 8;
}

/*
 * Choose the substrings and the directory for about nrows rows: substrings
 * of about log2(nrows) bits (Norouzi et al. 2014, section 4: then a table
 * lookup finds about one row), at least 16 and at most 32 bits each; a
 * directory of T bits with about 16 entries a value, so that the low bits of a
 * substring fit in the byte beside each entry.
 */
void
mih_layout(MihMetaPage meta, int nwords, double nrows)
{
	int			bits = SIMHASH_BITS * nwords;
	double		lg = log2(Max(nrows, 2.0));
	double		target = Min(Max(lg, 16.0), (double) MIH_MAX_SUBSTRING);
	int			m = (int) rint(bits / target);
	int			minlen,
				maxlen,
				t,
				j,
				offset = 0;

	m = Max(m, (bits + MIH_MAX_SUBSTRING - 1) / MIH_MAX_SUBSTRING);
	m = Min(m, MIH_MAX_TABLES);
	minlen = bits / m;
	maxlen = minlen + (bits % m != 0);
	t = (int) floor(lg) - 4;
	t = Max(t, maxlen - MIH_MAX_LOW_BITS);
	t = Min(t, minlen);
	t = Max(t, 1);

	memset(meta, 0, sizeof(MihMetaPageData));
	meta->magic = MIH_MAGIC;
	meta->version = MIH_VERSION;
	meta->nwords = nwords;
	meta->ntables = m;
	meta->dirbits = t;
	meta->codes = InvalidBlockNumber;
	meta->pendinghead = InvalidBlockNumber;
	meta->pendingtail = InvalidBlockNumber;
	for (j = 0; j < m; j++)
	{
		MihTable   *tab = &meta->tables[j];

		tab->offset = offset;
		tab->length = minlen + (j < bits % m);
		tab->lowbits = tab->length - t;
		tab->directory = InvalidBlockNumber;
		tab->entries = InvalidBlockNumber;
		offset += tab->length;
	}
}

/* A new page at the end of the index, locked exclusively */
Buffer
mih_new_buffer(Relation index)
{
	Buffer		buf;

	LockRelationForExtension(index, ExclusiveLock);
	buf = ReadBuffer(index, P_NEW);
	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	UnlockRelationForExtension(index, ExclusiveLock);
	return buf;
}

/* A copy of the meta page; an index of another kind or version fails */
void
mih_read_meta(Relation index, MihMetaPageData *meta)
{
	Buffer		buf = ReadBuffer(index, MIH_METAPAGE_BLKNO);
	Page		page;

	LockBuffer(buf, BUFFER_LOCK_SHARE);
	page = BufferGetPage(buf);
	memcpy(meta, MihPageGetMeta(page), sizeof(MihMetaPageData));
	UnlockReleaseBuffer(buf);
	if (meta->magic != MIH_MAGIC || meta->version != MIH_VERSION)
		ereport(ERROR,
				(errcode(ERRCODE_INDEX_CORRUPTED),
				 errmsg("index \"%s\" is not a mih index of version %d",
						RelationGetRelationName(index), MIH_VERSION),
				 errhint("REINDEX it.")));
}

/* The index has no storage parameters */
bytea *
mih_options(Datum reloptions, bool validate)
{
	static const relopt_parse_elt tab[1];

	return (bytea *) build_reloptions(reloptions, validate, RELOPT_KIND_LOCAL,
									  0, tab, 0);
}

/*
 * An operator class of mih holds the within operator (strategy 1, fp <@
 * ball) and the distance operator (15, for ORDER BY), and no support
 * functions: the access method reads the codes by their width.
 */
bool
mih_validate(Oid opclassoid)
{
	HeapTuple	tup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	Form_pg_opclass form;
	CatCList   *ops;
	bool		ok = true;
	int			i;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	form = (Form_pg_opclass) GETSTRUCT(tup);
	ops = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(form->opcfamily));
	for (i = 0; i < ops->n_members; i++)
	{
		Form_pg_amop op = (Form_pg_amop) GETSTRUCT(&ops->members[i]->tuple);

		if (op->amopstrategy != SIMHASH_WITHIN_STRATEGY &&
			op->amopstrategy != SIMHASH_DISTANCE_STRATEGY)
		{
			ereport(INFO,
					(errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
					 errmsg("mih operator family contains operator %u with invalid strategy number %d",
							op->amopopr, op->amopstrategy)));
			ok = false;
		}
	}
	ReleaseCatCacheList(ops);
	ReleaseSysCache(tup);
	return ok;
}

/*
 * For the SQL function fname on a mih index: the index's table, after
 * checking that indexoid is an index and that the caller may read the
 * table (the index holds its fingerprints).
 */
Oid
mih_sql_table(Oid indexoid, const char *fname)
{
	Oid			heapoid = IndexGetRelation(indexoid, true);

	if (!OidIsValid(heapoid))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: relation \"%s\" is not an index", fname,
						get_rel_name(indexoid) ? get_rel_name(indexoid) : "?")));
	if (pg_class_aclcheck(heapoid, GetUserId(), ACL_SELECT) != ACLCHECK_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("permission denied for table %s", get_rel_name(heapoid))));
	return heapoid;
}

/* For the SQL function fname: the open index must be a mih index */
void
mih_sql_check_am(Relation index, const char *fname)
{
	if (index->rd_rel->relam != get_index_am_oid("mih", false))
		ereport(ERROR,
				(errcode(ERRCODE_WRONG_OBJECT_TYPE),
				 errmsg("%s: index \"%s\" is not a mih index", fname,
						RelationGetRelationName(index))));
}

PG_FUNCTION_INFO_V1(simhash_mih_info);

/*
 * simhash_mih_info(index regclass)
 *		RETURNS TABLE (rows_sorted bigint, rows_pending bigint, tables
 *		integer, substring_bits integer, directory_bits integer)
 *		What the meta page of a mih index says: the rows of the build
 *		(sorted into the tables), the rows inserted since (pending, each
 *		checked one by one until REINDEX), and the layout.  Needs SELECT on
 *		the index's table.
 */
Datum
simhash_mih_info(PG_FUNCTION_ARGS)
{
	Oid			indexoid = PG_GETARG_OID(0);
	Relation	index;
	MihMetaPageData meta;
	TupleDesc	tupdesc;
	Datum		values[5];
	bool		nulls[5] = {false, false, false, false, false};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	(void) mih_sql_table(indexoid, "simhash_mih_info");
	index = index_open(indexoid, AccessShareLock);
	mih_sql_check_am(index, "simhash_mih_info");
	mih_read_meta(index, &meta);
	index_close(index, AccessShareLock);

	values[0] = Int64GetDatum(meta.nsorted);
	values[1] = Int64GetDatum(meta.npending);
	values[2] = Int32GetDatum(meta.ntables);
	values[3] = Int32GetDatum(meta.tables[meta.ntables - 1].length);
	values[4] = Int32GetDatum(meta.dirbits);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
