/*
 * nearest.c
 *		Nearest neighbours through radius searches: the smallest radius
 *		that holds n rows.
 *
 * GIN answers radius searches but cannot order by distance, and GiST's
 * ORDER BY fp <-> q reads much of the index when most rows are far from
 * every query.  In near-duplicate work the nearest rows are a few bits
 * away, so searching radius 0, 1, 2, ... through whichever index the
 * planner picks finds them after a few cheap searches; the caller then
 * asks for the rows within that radius, ordered, which is exact: the n
 * nearest rows are all within the smallest radius that holds n rows.
 */
#include "simhash.h"

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/*
 * simhash_nearest_radius(relation regclass, fp_column name, query simhash,
 *		n integer) returns integer
 *		The smallest r in 0..64 such that at least n rows of the relation
 *		have fp_column within r bits of the query (64 when fewer than n
 *		rows have a non-NULL fingerprint).  n < 1 is 22023; a column that
 *		does not exist is 42703, one that is not a simhash 42804; the
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
	SimHash		query = PG_GETARG_SIMHASH(2);
	int32		n = PG_GETARG_INT32(3);
	Oid			fptype = get_fn_expr_argtype(fcinfo->flinfo, 2);
	char	   *relname;
	const char *schema;
	AttrNumber	attnum;
	StringInfoData sql;
	SPIPlanPtr	plan;
	Oid			argtypes[3] = {fptype, INT4OID, INT8OID};
	Datum		values[3];
	int32		r;

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
				 errmsg("column \"%s\" of relation \"%s\" is of type %s, not simhash",
						NameStr(*column), relname,
						format_type_be(get_atttype(relid, attnum)))));

	/*
	 * Every operator and function qualified: the caller's search_path must
	 * not choose them (a user's <= for simhash_distance would).
	 */
	schema = quote_identifier(get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid)));
	initStringInfo(&sql);
	appendStringInfo(&sql,
					 "SELECT pg_catalog.count(*) FROM (SELECT 1 FROM %s.%s"
					 " WHERE %s OPERATOR(%s.<->) $1 OPERATOR(%s.<=) $2 LIMIT $3) s",
					 quote_identifier(get_namespace_name(get_rel_namespace(relid))),
					 quote_identifier(relname), quote_identifier(NameStr(*column)),
					 schema, schema);

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(sql.data, 3, argtypes);
	if (plan == NULL)
		elog(ERROR, "simhash_nearest_radius: could not prepare the search: %s",
			 SPI_result_code_string(SPI_result));
	values[0] = SimHashGetDatum(query);
	values[2] = Int64GetDatum(n);
	for (r = 0; r < SIMHASH_BITS; r++)
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
			break;
	}
	SPI_finish();
	PG_RETURN_INT32(r);
}
