/*
 * batch_input.c
 *		The start of every batch function: run its query, read the (id,
 *		fingerprint) rows into memory, check the radius against the
 *		fingerprints' width and the memory against maintenance_work_mem, and
 *		group equal fingerprints.  Apart from the search, so that the rules on
 *		the input and their errors are in one place for all widths.
 */
#include "batch_input.h"
#include "batch_spill.h"
#include "batch_wide.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "tcop/pquery.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#define FETCH_ROWS			10000

/*
 * Memory the arrays need, in bytes, at their peak: id 8, fingerprint 8
 * (then the group's), a 16-byte sort record, the group's row list and its
 * start 8, and at most 2 for the sort buffer of a bucket; simhash_clusters
 * adds 4 for the union-find parent.  A wide fingerprint of nwords words
 * takes 8 * nwords, and its search what simhash_batch_wide_memory says.
 * The output (tuplestore) is not counted: it spills to disk beyond
 * work_mem.
 */
static Size
batch_memory(Size nrows, BatchKind kind, int nwords, bool verify)
{
	Size		per_row = sizeof(int64) + sizeof(SimHash) + sizeof(SortRec) +
		2 * sizeof(uint32) + sizeof(SortRec) / 8;

	/* verification: the signature, the id beside the row number, and the
	 * subgroups' starts and union-find parents (batch_verify.c) */
	if (verify)
		per_row += SIMHASH_MINHASH_BYTES + sizeof(int64) + 2 * sizeof(uint32);
	/* two queries: the id beside the row number, and the group's side */
	if (kind == BATCH_CROSS_PAIRS)
		per_row += sizeof(int64) + sizeof(uint8);
	if (nwords > 1)
		per_row += (nwords - 1) * sizeof(SimHash) + simhash_batch_wide_memory(nwords);
	if (kind == BATCH_CLUSTERS)
		per_row += sizeof(uint32);
	return nrows * per_row;
}

/* 54000 when nrows rows of this kind and width exceed maintenance_work_mem */
static void
check_memory(Size nrows, BatchKind kind, int nwords, bool verify,
			 bool more_to_come)
{
	simhash_batch_check_memory(kind, batch_memory(nrows, kind, nwords, verify),
							   nrows, batch_memory(1, kind, nwords, verify),
							   more_to_come);
}

/*
 * The receiver of the query's rows: each fetch of at most FETCH_ROWS rows
 * lands in fixed buffers (no tuple is copied; the memory is the same for
 * every fetch, so the fetches do not make the backend allocate, free and
 * fault in their tuples' memory again and again).
 */
typedef struct BatchReceiver
{
	DestReceiver pub;
	bool		columns_ok;		/* (id integer type, fp simhash_type[, sig]) */
	Oid			idtype;
	Oid			simhash_type;	/* simhash, simhash128 or simhash256 */
	Oid			sigtype;		/* minhash, when verifying; else invalid */
	int			nwords;			/* its words: 1, 2 or 4 */
	uint32		nrows;			/* rows of this fetch */
	int64		ids[FETCH_ROWS];
	SimHash		fps[FETCH_ROWS * SIMHASH_MAX_WORDS];	/* nwords per row */
	bool		idnull[FETCH_ROWS];
	bool		fpnull[FETCH_ROWS];
	uint8	   *sigs;			/* FETCH_ROWS signatures, when verifying */
} BatchReceiver;

/* Start of a fetch: whether the query's columns are (id, fp) */
static void
batch_recv_startup(DestReceiver *self, int operation, TupleDesc td)
{
	BatchReceiver *br = (BatchReceiver *) self;

	int			natts = OidIsValid(br->sigtype) ? 3 : 2;

	br->idtype = td->natts == natts ? TupleDescAttr(td, 0)->atttypid : InvalidOid;
	br->columns_ok = td->natts == natts &&
		(br->idtype == INT8OID || br->idtype == INT4OID || br->idtype == INT2OID) &&
		TupleDescAttr(td, 1)->atttypid == br->simhash_type &&
		(natts == 2 || TupleDescAttr(td, 2)->atttypid == br->sigtype);
}

/*
 * One row of a fetch: its id (as int64) and fingerprint, or their NULL
 * flags, into the buffers; nothing but the count when the columns are
 * wrong (the caller reports it once the fetch returned rows).  A row
 * without a signature, when verifying, counts as one without a fingerprint.
 */
static bool
batch_recv_slot(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *br = (BatchReceiver *) self;
	uint32		i = br->nrows++;
	Datum		id,
				fp;

	Assert(i < FETCH_ROWS);
	if (!br->columns_ok)
		return true;			/* reported after the fetch */
	id = slot_getattr(slot, 1, &br->idnull[i]);
	fp = slot_getattr(slot, 2, &br->fpnull[i]);
	if (!br->idnull[i])
		br->ids[i] = br->idtype == INT8OID ? DatumGetInt64(id) :
			br->idtype == INT4OID ? DatumGetInt32(id) : DatumGetInt16(id);
	if (br->fpnull[i])
		return true;
	if (OidIsValid(br->sigtype))
	{
		bool		signull;
		Datum		sig = slot_getattr(slot, 3, &signull);

		if (signull)
		{
			br->fpnull[i] = true;
			return true;
		}
		memcpy(&br->sigs[(Size) i * SIMHASH_MINHASH_BYTES], DatumGetPointer(sig),
			   SIMHASH_MINHASH_BYTES);
	}
	if (br->nwords == 1)
		br->fps[i] = DatumGetSimHash(fp);
	else
		memcpy(&br->fps[(Size) i * br->nwords], DatumGetPointer(fp),
			   sizeof(SimHash) * br->nwords);
	return true;
}

/* End of a fetch, or the receiver destroyed: nothing to do */
static void
batch_recv_nothing(DestReceiver *self)
{
}

/* SPI_prepare(query), a syntax error with a hint of what is wanted */
static SPIPlanPtr
prepare_query(const char *query, const char *fname)
{
	MemoryContext cxt = CurrentMemoryContext;
	SPIPlanPtr volatile plan = NULL;

	/* a table name where the query belongs is a syntax error: say so */
	PG_TRY();
	{
		plan = SPI_prepare(query, 0, NULL);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_SYNTAX_ERROR || edata->hint != NULL)
			PG_RE_THROW();
		FlushErrorState();
		edata->hint = psprintf("The first argument of %s is a query returning (id, fingerprint), such as 'SELECT id, fp FROM docs'.",
							   fname);
		ReThrowError(edata);
	}
	PG_END_TRY();
	return plan;
}

/* The OID of the extension's type of that name */
static Oid
extension_type(FunctionCallInfo fcinfo, const char *name)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);

	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum(name), ObjectIdGetDatum(nsp));
}

/*
 * The radius k: 0..16 for simhash, 0..W for a W-bit fingerprint, else
 * 22023.
 */
static void
check_radius(int32 k, int nwords, const char *fname)
{
	int			max = nwords == 1 ? MAX_BATCH_RADIUS : SIMHASH_BITS * nwords;

	if (k < 0 || k > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: radius %d is out of range", fname, k),
				 nwords == 1 ?
				 errdetail("It must be between 0 and %d.", max) :
				 errdetail("It must be between 0 and %d for simhash%d.", max, max),
				 k > max && nwords < SIMHASH_MAX_WORDS ?
				 simhash_errhint_radius_width(k, SIMHASH_BITS * nwords) : 0));
}

/* 42804: the query of a verifying call does not return (id, fp, sig) */
static void
report_verify_columns(const char *fname)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s: the query must return three columns, (id bigint, fp simhash, sig minhash)",
					fname),
			 errdetail("The fingerprint may also be a simhash128 or a simhash256; the id a bigint, an integer or a smallint."),
			 errhint("Without a threshold of verification, %s takes (id, fp) rows.",
					 fname)));
}

/*
 * The rows read so far, and those to come, go to a sort (batch_spill.c),
 * made in cxt (the SPI context is gone once the query is read): their
 * arrays are freed.  side: the query being read (1: the existing query of
 * two, whose rows are those from nnew on).
 */
static void
start_spill(BatchInput *in, BatchKind kind, MemoryContext cxt, int side)
{
	uint32		i;
	MemoryContext old = MemoryContextSwitchTo(cxt);
	Size		arrays = GetMemoryChunkSpace(in->ids) + GetMemoryChunkSpace(in->fps);
	Size		mwm = (Size) maintenance_work_mem * 1024;

	/* the arrays and the sort side by side, until the arrays are moved */
	in->spill = simhash_batch_spill_begin(kind, in->nwords,
										  (int) (Max(mwm - Min(arrays, mwm), mwm / 4) / 1024));
	MemoryContextSwitchTo(old);
	for (i = 0; i < in->n; i++)
		simhash_batch_spill_put(in->spill, in->ids[i], &in->fps[(Size) i * in->nwords],
								side == 1 && i >= in->nnew);
	pfree(in->ids);
	pfree(in->fps);
	in->ids = NULL;
	in->fps = NULL;
	in->n = 0;
	elog(DEBUG1, "%s: beyond maintenance_work_mem (%dkB): spilling the rows to a sort",
		 simhash_batch_fname[kind], maintenance_work_mem);
}

/*
 * Run the query (with the caller's privileges, read-only, as one cursor)
 * and collect its (id, fp) rows, FETCH_ROWS at a time; rows with a NULL
 * fingerprint are skipped.  The fingerprint column's type (simhash,
 * simhash128 or simhash256) sets in->nwords and the range of k, checked
 * before the first row is read.  side 1: the second (existing) query of
 * simhash_pairs of two, its rows added to those of the first (side 0) in
 * arrays of *cap rows; its width must be the first's.
 */
static void
read_input(const char *query, FunctionCallInfo fcinfo, BatchKind kind,
		   int32 k, bool verify, BatchInput *in, int side, Size *cap)
{
	const char *fname = simhash_batch_fname[kind];
	MemoryContext cxt = CurrentMemoryContext;
	Portal		portal;
	SPIPlanPtr	plan;
	BatchReceiver *br = palloc0(sizeof(BatchReceiver));
	Oid			fptype = InvalidOid;
	bool		can_spill;
	int			nwords = 1;

	if (side == 0)
	{
		memset(in, 0, sizeof(BatchInput));
		*cap = 1024;
		in->ids = MemoryContextAllocHuge(cxt, *cap * sizeof(int64));
	}
	br->pub.receiveSlot = batch_recv_slot;
	br->pub.rStartup = batch_recv_startup;
	br->pub.rShutdown = batch_recv_nothing;
	br->pub.rDestroy = batch_recv_nothing;
	br->pub.mydest = DestNone;
	if (verify)
	{
		br->sigtype = extension_type(fcinfo, "minhash");
		br->sigs = palloc(FETCH_ROWS * SIMHASH_MINHASH_BYTES);
		if (side == 0)
			in->sigs = MemoryContextAllocHuge(cxt, *cap * SIMHASH_MINHASH_BYTES);
	}

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = prepare_query(query, fname);
	if (plan == NULL)
		elog(ERROR, "%s: could not prepare the query: %s", fname,
			 SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);

	/* the width: that of the second column, if it is a wide fingerprint */
	if (portal->tupDesc != NULL && portal->tupDesc->natts == (verify ? 3 : 2))
		fptype = TupleDescAttr(portal->tupDesc, 1)->atttypid;
	/* a verifying call's query of two columns is a mistake, whatever k */
	if (verify && (portal->tupDesc == NULL || portal->tupDesc->natts != 3))
		report_verify_columns(fname);
	br->simhash_type = extension_type(fcinfo, "simhash");
	if (OidIsValid(fptype) && fptype != br->simhash_type)
	{
		if (fptype == extension_type(fcinfo, "simhash128"))
			nwords = 2;
		else if (fptype == extension_type(fcinfo, "simhash256"))
			nwords = 4;
		if (nwords > 1)
			br->simhash_type = fptype;
	}
	if (side == 0)
		in->nwords = nwords;
	else if (nwords != in->nwords &&
			 (nwords > 1 || fptype == br->simhash_type))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the two queries return fingerprints of different widths",
						fname),
				 errdetail("The new query returns %d-bit fingerprints, the existing query %d-bit ones.",
						   in->nwords * SIMHASH_BITS, nwords * SIMHASH_BITS)));
	else if (nwords != in->nwords)
		br->simhash_type = InvalidOid;	/* not a fingerprint: the rows say so */
	br->nwords = in->nwords;
	check_radius(k, in->nwords, fname);
	can_spill = !verify && simhash_batch_can_spill(kind, in->nwords, k);
	if (side == 0)
		in->fps = MemoryContextAllocHuge(cxt, *cap * sizeof(SimHash) * in->nwords);

	for (;;)
	{
		uint32		i;

		br->nrows = 0;
		PortalRunFetch(portal, FETCH_FORWARD, FETCH_ROWS, &br->pub);
		if (br->nrows == 0)
			break;
		if (!br->columns_ok && verify)
			report_verify_columns(fname);
		if (!br->columns_ok)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: the query must return two columns, (id bigint, fp simhash)",
							fname),
					 errdetail("The fingerprint may also be a simhash128 or a simhash256; the id a bigint, an integer or a smallint.")));
		/* beyond memory: simhash_pairs and simhash_clusters spill */
		if (in->spill == NULL && can_spill &&
			batch_memory(in->n + br->nrows, kind, in->nwords, verify) / 1024 >
			(Size) maintenance_work_mem)
			start_spill(in, kind, cxt, side);
		if (in->spill == NULL && in->n + br->nrows > *cap)
		{
			if ((Size) in->n + br->nrows >= PG_UINT32_MAX - 1)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s: too many rows", fname)));
			check_memory(in->n, kind, in->nwords, verify, true);
			while (in->n + br->nrows > *cap)
				*cap *= 2;
			in->ids = repalloc_huge(in->ids, *cap * sizeof(int64));
			in->fps = repalloc_huge(in->fps, *cap * sizeof(SimHash) * in->nwords);
			if (verify)
				in->sigs = repalloc_huge(in->sigs, *cap * SIMHASH_MINHASH_BYTES);
		}
		for (i = 0; i < br->nrows; i++)
		{
			if (br->fpnull[i])
				continue;
			if (br->idnull[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s: id must not be null", fname)));
			if (in->spill)
			{
				simhash_batch_spill_put(in->spill, br->ids[i],
										&br->fps[(Size) i * in->nwords], side == 1);
				continue;
			}
			in->ids[in->n] = br->ids[i];
			if (in->nwords == 1)
				in->fps[in->n] = br->fps[i];
			else
				memcpy(&in->fps[(Size) in->n * in->nwords], &br->fps[(Size) i * in->nwords],
					   sizeof(SimHash) * in->nwords);
			if (verify)
				memcpy(&in->sigs[(Size) in->n * SIMHASH_MINHASH_BYTES],
					   &br->sigs[(Size) i * SIMHASH_MINHASH_BYTES],
					   SIMHASH_MINHASH_BYTES);
			in->n++;
		}
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	if (br->sigs)
		pfree(br->sigs);
	pfree(br);
	if (in->spill)
		return;
	/* the first of two queries: the second's rows come next */
	if (kind == BATCH_CROSS_PAIRS && side == 0)
	{
		check_memory(in->n, kind, in->nwords, verify, true);
		return;
	}
	check_memory(in->n, kind, in->nwords, verify, false);
	/* give back the unused part of the last doubling before the sort area */
	if (*cap > Max(in->n, 1))
	{
		in->ids = repalloc_huge(in->ids, Max(in->n, 1) * sizeof(int64));
		in->fps = repalloc_huge(in->fps, Max(in->n, 1) * sizeof(SimHash) * in->nwords);
		if (verify)
			in->sigs = repalloc_huge(in->sigs, Max(in->n, 1) * SIMHASH_MINHASH_BYTES);
	}
}

/* The ids into rowids, and row numbers (input order) in their place */
static void
number_rows(BatchInput *in)
{
	uint32		i;

	in->rowids = in->ids;
	in->ids = MemoryContextAllocHuge(CurrentMemoryContext,
									 sizeof(int64) * Max(in->n, 1));
	for (i = 0; i < in->n; i++)
		in->ids[i] = i;
}

/*
 * The start of simhash_pairs of two queries (new_query text, existing_query
 * text, k integer[, threshold]): the rows of both read, the new query's
 * first, as row numbers (ids in rowids); grouped, and each group's sides.
 */
static int32
start_cross(FunctionCallInfo fcinfo, BatchInput *in)
{
	char	   *qnew = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *qold = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int32		k = PG_GETARG_INT32(2);
	bool		verify = PG_NARGS() > 3;
	Size		cap;
	uint32		g;

	InitMaterializedSRF(fcinfo, 0);
	read_input(qnew, fcinfo, BATCH_CROSS_PAIRS, k, verify, in, 0, &cap);
	in->cross = true;
	in->nnew = in->n;
	read_input(qold, fcinfo, BATCH_CROSS_PAIRS, k, verify, in, 1, &cap);
	if (in->spill)
		return k;				/* grouped by batch_spill.c */
	number_rows(in);
	simhash_batch_group_rows(in);

	/* a group's rows are in row order: the new query's first */
	in->gside = MemoryContextAllocHuge(CurrentMemoryContext, Max(in->ngroups, 1));
	for (g = 0; g < in->ngroups; g++)
		in->gside[g] =
			(in->ids[in->gstart[g]] < in->nnew ? GROUP_NEW : 0) |
			(in->ids[in->gstart[g + 1] - 1] >= in->nnew ? GROUP_EXISTING : 0);
	return k;
}

/*
 * The common start of the batch functions: set up the materialized result,
 * read the query's rows (checking k against their width) and group equal
 * fingerprints.
 */
int32
simhash_batch_start(FunctionCallInfo fcinfo, BatchKind kind, BatchInput *in)
{
	char	   *query;
	int32		k;
	bool		verify;
	Size		cap;

	if (kind == BATCH_CROSS_PAIRS)
		return start_cross(fcinfo, in);
	query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	k = PG_GETARG_INT32(1);
	/* a third argument: the threshold of verification, or a word's pass */
	verify = PG_NARGS() > 2 && kind != BATCH_WORD_PAIRS;
	InitMaterializedSRF(fcinfo, 0);
	read_input(query, fcinfo, kind, k, verify, in, 0, &cap);
	if (in->spill)
		return k;				/* grouped by batch_spill.c */

	/*
	 * Verifying: the groups list row numbers, so that each row's signature
	 * can be found; the ids stay in rowids.  Row numbers follow the input
	 * order, as the ids of one group need not.
	 */
	if (verify)
		number_rows(in);
	simhash_batch_group_rows(in);
	return k;
}

/*
 * The start of simhash_block_pairs: its rows come as two arrays, ids
 * (argument 1) and fingerprints (argument 2, of one of the three types),
 * one group of a table spread by block key, already in memory; the same
 * rules on NULLs, radius and memory as a query's rows.  Not grouped: a
 * small group is cheaper to compare pair by pair.
 */
int32
simhash_batch_start_arrays(FunctionCallInfo fcinfo, BatchKind kind, BatchInput *in)
{
	const char *fname = simhash_batch_fname[kind];
	ArrayType  *ida = PG_GETARG_ARRAYTYPE_P(1);
	ArrayType  *fpa = PG_GETARG_ARRAYTYPE_P(2);
	int32		k = PG_GETARG_INT32(3);
	Oid			fptype = ARR_ELEMTYPE(fpa);
	Datum	   *idv,
			   *fpv;
	bool	   *idnull,
			   *fpnull;
	int			nid,
				nfp,
				i;
	int16		typlen;
	bool		typbyval;
	char		typalign;

	Oid		   *types = (Oid *) fcinfo->flinfo->fn_extra;

	/* the three types, looked up once per call site, not once per group */
	if (types == NULL)
	{
		types = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, 3 * sizeof(Oid));
		types[0] = extension_type(fcinfo, "simhash");
		types[1] = extension_type(fcinfo, "simhash128");
		types[2] = extension_type(fcinfo, "simhash256");
		fcinfo->flinfo->fn_extra = types;
	}
	InitMaterializedSRF(fcinfo, 0);
	memset(in, 0, sizeof(BatchInput));
	in->nwords = fptype == types[0] ? 1 : fptype == types[1] ? 2 : fptype == types[2] ? 4 : 0;
	if (in->nwords == 0)		/* only by a call through an other signature */
		elog(ERROR, "%s: the fingerprints are not of a simhash type", fname);
	check_radius(k, in->nwords, fname);
	get_typlenbyvalalign(fptype, &typlen, &typbyval, &typalign);
	deconstruct_array(ida, INT8OID, sizeof(int64), true, TYPALIGN_DOUBLE,
					  &idv, &idnull, &nid);
	deconstruct_array(fpa, fptype, typlen, typbyval, typalign, &fpv, &fpnull, &nfp);
	if (nid != nfp)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: %d ids for %d fingerprints", fname, nid, nfp),
				 errdetail("The two arrays must have the same number of elements.")));
	check_memory(nid, kind, in->nwords, false, false);
	in->ids = MemoryContextAllocHuge(CurrentMemoryContext, Max(nid, 1) * sizeof(int64));
	in->fps = MemoryContextAllocHuge(CurrentMemoryContext,
									 Max(nid, 1) * sizeof(SimHash) * in->nwords);
	for (i = 0; i < nid; i++)
	{
		if (fpnull[i])
			continue;
		if (idnull[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: id must not be null", fname)));
		in->ids[in->n] = DatumGetInt64(idv[i]);
		if (in->nwords == 1)
			in->fps[in->n] = DatumGetSimHash(fpv[i]);
		else
			memcpy(&in->fps[(Size) in->n * in->nwords], DatumGetPointer(fpv[i]),
				   sizeof(SimHash) * in->nwords);
		in->n++;
	}
	return k;
}
