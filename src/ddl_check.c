/*
 * ddl_check.c
 *		An event trigger (ddl_command_start on CREATE INDEX and CREATE
 *		TRIGGER) that turns two easy mistakes into messages that say what
 *		to do.
 *
 * - An operator class of the extension on a column of another type: core
 *   says "operator class ... does not accept data type ..." and stops; the
 *   classes are per width, so the message names the classes for the
 *   column's type (42804, as core).
 * - simhash_reject_near_duplicates with a radius that unrelated rows fall
 *   within at the column's width (k = 26 is a 256-bit radius; at 64 bits
 *   8 % of random pairs are that close): a WARNING with the chance and the
 *   radius that means the same at that width.  The trigger itself accepts
 *   any radius up to the width, as in 1.8.
 *
 * Anything else passes untouched: the check never fails a command that
 * would have worked, and looks at catalogs only (no user code runs).
 */
#include "simhash.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_proc.h"
#include "commands/defrem.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "lib/stringinfo.h"
#include "nodes/parsenodes.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

/* Unrelated rows within k at this chance or more get the warning */
#define UNRELATED_WARN_CHANCE 1e-6

/* Width in bits of one of the extension's fingerprint types, else 0 */
static int
fingerprint_width(Oid extnsp, Oid typid)
{
	static const char *const names[] = {"simhash", "simhash128", "simhash256"};
	int			i;

	if (!OidIsValid(typid))
		return 0;
	typid = getBaseType(typid);
	for (i = 0; i < lengthof(names); i++)
		if (typid == GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									 CStringGetDatum(names[i]),
									 ObjectIdGetDatum(extnsp)))
			return SIMHASH_BITS << i;
	return 0;
}

/* The type of column colname of relid, or InvalidOid */
static Oid
column_type(Oid relid, const char *colname)
{
	AttrNumber	attnum = get_attnum(relid, colname);

	return attnum > 0 ? get_atttype(relid, attnum) : InvalidOid;
}

/*
 * "a_ops (the default) or b_ops": the extension's classes of access method
 * amoid for type typid, the default first; NULL if there is none.
 */
static char *
classes_for_type(Oid extoid, Oid amoid, Oid typid)
{
	Relation	rel = table_open(OperatorClassRelationId, AccessShareLock);
	SysScanDesc scan = systable_beginscan(rel, InvalidOid, false, NULL, 0, NULL);
	HeapTuple	tup;
	StringInfoData def,
				rest;
	int			n = 0;

	initStringInfo(&def);
	initStringInfo(&rest);
	while (HeapTupleIsValid(tup = systable_getnext(scan)))
	{
		Form_pg_opclass opc = (Form_pg_opclass) GETSTRUCT(tup);

		if (opc->opcmethod != amoid || opc->opcintype != typid ||
			getExtensionOfObject(OperatorClassRelationId, opc->oid) != extoid)
			continue;
		if (opc->opcdefault)
			appendStringInfo(&def, "%s (the default)", NameStr(opc->opcname));
		else
			appendStringInfo(&rest, "%s%s", rest.len > 0 ? ", " : "",
							 NameStr(opc->opcname));
		n++;
	}
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (n == 0)
		return NULL;
	if (def.len > 0 && rest.len > 0)
		appendStringInfoString(&def, n > 2 ? ", " : " or ");
	appendStringInfoString(&def, rest.data);
	return def.data;
}

/*
 * CREATE INDEX: each column given one of the extension's operator classes
 * must be of that class's type.
 */
static void
check_index(IndexStmt *stmt, Oid extoid, Oid extnsp)
{
	Oid			relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	Oid			amoid;
	ListCell   *lc;

	if (!OidIsValid(relid) || stmt->accessMethod == NULL)
		return;
	amoid = get_index_am_oid(stmt->accessMethod, true);
	if (!OidIsValid(amoid))
		return;
	foreach(lc, stmt->indexParams)
	{
		IndexElem  *elem = lfirst_node(IndexElem, lc);
		Oid			opcoid,
					opctype,
					coltype;
		int			opcwidth,
					colwidth;
		char	   *classes;

		if (elem->name == NULL || elem->opclass == NIL)
			continue;
		opcoid = get_opclass_oid(amoid, elem->opclass, true);
		if (!OidIsValid(opcoid) ||
			getExtensionOfObject(OperatorClassRelationId, opcoid) != extoid)
			continue;
		opctype = get_opclass_input_type(opcoid);
		coltype = column_type(relid, elem->name);
		if (!OidIsValid(coltype) || IsBinaryCoercible(coltype, opctype))
			continue;
		opcwidth = fingerprint_width(extnsp, opctype);
		colwidth = fingerprint_width(extnsp, coltype);
		classes = colwidth > 0 ?
			classes_for_type(extoid, amoid, getBaseType(coltype)) : NULL;
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("operator class \"%s\" does not accept data type %s",
						NameListToString(elem->opclass), format_type_be(coltype)),
				 errdetail("%s indexes %d-bit fingerprints (%s); column \"%s\" is %s.",
						   NameListToString(elem->opclass), opcwidth,
						   format_type_be(opctype), elem->name,
						   colwidth > 0 ?
						   psprintf("%d bits (%s)", colwidth, format_type_be(coltype)) :
						   format_type_be(coltype)),
				 classes != NULL ?
				 errhint("For a %s column use %s.", format_type_be(coltype), classes) :
				 colwidth > 0 ?
				 errhint("Leave out the operator class to get the default one of %s.",
						 format_type_be(coltype)) :
				 errhint("Index a fingerprint column (simhash, simhash128 or simhash256), for example one GENERATED ALWAYS AS (to_simhash256(body)) STORED.")));
	}
}

/*
 * CREATE TRIGGER ... simhash_reject_near_duplicates(column, k [, action]):
 * warn when unrelated rows fall within k at the column's width.  Arguments
 * that do not parse are left to the trigger, which names them when it
 * first fires.
 */
static void
check_trigger(CreateTrigStmt *stmt, Oid extoid, Oid extnsp)
{
	Oid			funcoid = LookupFuncName(stmt->funcname, 0, NULL, true);
	Oid			relid;
	const char *col;
	char	   *end;
	long		k;
	int			bits;
	double		chance;

	if (!OidIsValid(funcoid) ||
		getExtensionOfObject(ProcedureRelationId, funcoid) != extoid ||
		strcmp(get_func_name(funcoid), "simhash_reject_near_duplicates") != 0 ||
		list_length(stmt->args) < 2)
		return;
	relid = RangeVarGetRelid(stmt->relation, NoLock, true);
	if (!OidIsValid(relid))
		return;
	col = strVal(linitial(stmt->args));
	bits = fingerprint_width(extnsp, column_type(relid, col));
	errno = 0;
	k = strtol(strVal(lsecond(stmt->args)), &end, 10);
	if (bits == 0 || *end != '\0' || end == strVal(lsecond(stmt->args)) ||
		errno != 0 || k < 0 || k > bits)
		return;
	chance = simhash_binomial_within_bits((int) k, bits);
	if (chance < UNRELATED_WARN_CHANCE)
		return;
	ereport(WARNING,
			(errmsg("trigger \"%s\": radius %ld on the %d-bit column \"%s\" matches unrelated rows",
					stmt->trigname, k, bits, col),
			 errdetail("Two random %d-bit fingerprints are within %ld bits of each other with probability %.2g; in a table of a million rows, about %.0f unrelated rows would be near-duplicates of each new row.",
					   bits, k, chance, chance * 1e6),
			 simhash_errhint_radius_width((int) k, bits)));
}

/*
 * simhash_ddl_check() RETURNS event_trigger: the checks above, for the
 * commands they concern.
 */
PG_FUNCTION_INFO_V1(simhash_ddl_check);
Datum
simhash_ddl_check(PG_FUNCTION_ARGS)
{
	EventTriggerData *trigdata;
	Oid			extoid;
	Oid			extnsp;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("simhash_ddl_check: must be called as an event trigger")));
	trigdata = (EventTriggerData *) fcinfo->context;
	extoid = getExtensionOfObject(ProcedureRelationId, fcinfo->flinfo->fn_oid);
	if (!OidIsValid(extoid))
		PG_RETURN_VOID();
	extnsp = get_func_namespace(fcinfo->flinfo->fn_oid);
	if (IsA(trigdata->parsetree, IndexStmt))
		check_index((IndexStmt *) trigdata->parsetree, extoid, extnsp);
	else if (IsA(trigdata->parsetree, CreateTrigStmt))
		check_trigger((CreateTrigStmt *) trigdata->parsetree, extoid, extnsp);
	PG_RETURN_VOID();
}
