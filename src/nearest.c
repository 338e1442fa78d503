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
 * 32 at 256) the last search covers the whole width, which the planner
 * turns into one sequential scan and a top-n sort, so that a query far
 * from every row costs about a sequential scan rather than many large
 * radius searches.
 */
#include "simhash.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* The largest radius searched through an index, before the whole width */
static int
index_radius(int bits)
{
	return bits == SIMHASH_BITS ? 16 : bits / 8;
}

/*
 * simhash_nearest_radius(relation regclass, fp_column name, query simhash,
 *		n integer) returns integer, and the same for simhash128 and
 *		simhash256 queries (one C function: the width is the query type's
 *		length)
 *		The smallest r in 0..W such that at least n rows of the relation
 *		have fp_column within r bits of the query (W, the width, when fewer
 *		than n rows have a non-NULL fingerprint).  n < 1 is 22023; a column
 *		that does not exist is 42703, one not of the query's type 42804; the
 *		searches run as the caller, so a missing SELECT privilege is 42501.
 *		STRICT, STABLE (it reads the table with the query's snapshot),
 *		PARALLEL RESTRICTED (it runs SPI queries).
 */
PG_FUNCTION_INFO_V1(simhash_nearest_radius);
Datum
simhash_nearest_radius(PG_FUNCTION_ARGS)
{
	Oid			relid = PG_GETARG_OID(0);
	Name		column = PG_GETARG_NAME(1);
	Datum		query = PG_GETARG_DATUM(2);
	int32		n = PG_GETARG_INT32(3);
	Oid			fptype = get_fn_expr_argtype(fcinfo->flinfo, 2);
	char	   *relname;
	const char *schema;
	AttrNumber	attnum;
	StringInfoData sql;
	SPIPlanPtr	plan;
	Oid			argtypes[3] = {fptype, INT4OID, INT8OID};
	Datum		values[3];
	int			bits;
	int32		r,
				result;

	if (n < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("simhash_nearest_radius: n must be at least 1, not %d", n)));
	relname = get_rel_name(relid);
	if (relname == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_TABLE),
				 errmsg("simhash_nearest_radius: relation with OID %u does not exist", relid)));
	attnum = get_attnum(relid, NameStr(*column));
	if (attnum == InvalidAttrNumber)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						NameStr(*column), relname)));
	if (!OidIsValid(fptype) || get_atttype(relid, attnum) != fptype)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"%s\" of relation \"%s\" is of type %s, not %s",
						NameStr(*column), relname,
						format_type_be(get_atttype(relid, attnum)),
						OidIsValid(fptype) ? format_type_be(fptype) : "simhash")));
	bits = get_typlen(fptype) * BITS_PER_BYTE;	/* 64, 128 or 256 */

	/*
	 * Every operator and function qualified: the caller's search_path must
	 * not choose them (a user's <= for simhash_distance would).  The
	 * distances come out as a plain integer, sorted by its default order.
	 */
	schema = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT pg_catalog.count(*), pg_catalog.max(d) FROM"
					 " (SELECT (%s OPERATOR(%s.<->) $1)::pg_catalog.int4 AS d FROM %s.%s"
					 " WHERE %s OPERATOR(%s.<->) $1 OPERATOR(%s.<=) $2 ORDER BY 1 LIMIT $3) s",
					 quote_identifier(NameStr(*column)), schema,
					 quote_identifier(get_namespace_name(get_rel_namespace(relid))),
					 quote_identifier(relname), quote_identifier(NameStr(*column)),
					 schema, schema);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* a custom plan for every radius: a sequential scan for the whole width */
	plan = SPI_prepare_cursor(sql.data, 3, argtypes, CURSOR_OPT_CUSTOM_PLAN);
	if (plan == NULL)
		elog(ERROR, "simhash_nearest_radius: could not prepare the search: %s",
			 SPI_result_code_string(SPI_result));
	values[0] = query;
	values[2] = Int64GetDatum(n);
	result = bits;
	for (r = 0;; r = (r == 0) ? 1 : (2 * r > index_radius(bits) ? bits : 2 * r))
	{
		bool		isnull;
		int64		found;

		CHECK_FOR_INTERRUPTS();
		values[1] = Int32GetDatum(r);
		if (SPI_execute_plan(plan, values, NULL, true, 1) != SPI_OK_SELECT)
			elog(ERROR, "simhash_nearest_radius: the search failed");
		found = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0],
											SPI_tuptable->tupdesc, 1, &isnull));
		if (found >= n)
		{
			/* the n-th distance: the largest of the n nearest */
			result = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
												 SPI_tuptable->tupdesc, 2, &isnull));
			break;
		}
		if (r >= bits)
			break;				/* fewer than n rows have a fingerprint */
	}
	SPI_finish();
	PG_RETURN_INT32(result);
}
