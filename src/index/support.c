/*
 * support.c
 *		Planner support: turn the radius queries users write into a clause an
 *		index can answer, and estimate their selectivity.
 *
 * 1. fp <-> q <= k (also <, = and the commuted k >= fp <-> q): <-> returns
 *	  the domain simhash_distance, so the parser picks this extension's
 *	  comparison operators on (simhash_distance, integer).  Their support
 *	  function (SupportRequestSimplify) rewrites the comparison into
 *	  simhash_within(fp, q, k), an ordinary call of a public function: a
 *	  distributed planner can deparse it and plan it again.
 * 2. simhash_within(a, b, k) has a support function that, for an index on
 *	  either a or b (SupportRequestIndexCondition), offers the index clause
 *	  col <@ simhash_ball(other, k), and estimates selectivity.
 * 3. fp % q (simhash_similar) becomes simhash_within(fp, q,
 *	  simhash_similarity_radius(bits)): the radius of the setting
 *	  simhash.similarity_threshold, read when the plan runs (the call is
 *	  stable), so a kept plan follows SET; from there it is case 2.
 * The same for every width: simhash, simhash128 and simhash256 each have
 * their hamming_distance, simhash_within, ball type, simhash_ball and
 * operator classes, found in the catalog by type (SimHashWidth).
 * Compare PostGIS's gserialized_supportfn.c, which does the same for
 * ST_DWithin and friends.
 */
#include "simhash.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_am.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "parser/parse_func.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

#include "type/words.h"

/* ---------- selectivity ---------- */

/* The widths: simhash, simhash128, simhash256 */
#define NWIDTHS 3

/*
 * Radius assumed when it is not known at plan time (a generic plan): 3 at
 * 64 bits, in proportion at the wider widths.
 */
#define DEFAULT_RADIUS 3
#define default_radius(nwords) (DEFAULT_RADIUS * (nwords))

/*
 * Fraction of the rows of vardata's column within k of q.  The most common
 * values are tested exactly; the other non-null rows are taken as random
 * fingerprints, but no rarer than one distinct value's share (a query is
 * often a fingerprint already in the table).
 */
static Selectivity
within_selectivity(VariableStatData *vardata, const uint64 *q, int nwords,
				   int k)
{
	double		random_sel = simhash_binomial_within_bits(k, SIMHASH_BITS * nwords);
	double		nullfrac = 0.0;
	double		mcv_sel = 0.0,
				mcv_total = 0.0;
	double		nd;
	bool		isdefault;
	Selectivity sel;

	if (k < 0)
		return 0.0;
	nd = get_variable_numdistinct(vardata, &isdefault);

	if (HeapTupleIsValid(vardata->statsTuple))
	{
		Form_pg_statistic stats = (Form_pg_statistic) GETSTRUCT(vardata->statsTuple);
		AttStatsSlot sslot;

		nullfrac = stats->stanullfrac;
		if (q != NULL &&
			get_attstatsslot(&sslot, vardata->statsTuple, STATISTIC_KIND_MCV,
							 InvalidOid, ATTSTATSSLOT_VALUES | ATTSTATSSLOT_NUMBERS))
		{
			int			i;

			for (i = 0; i < sslot.nvalues; i++)
			{
				uint64		buf[1];

				mcv_total += sslot.numbers[i];
				if (simhash_words_distance(simhash_datum_words(sslot.values[i], nwords, buf),
								   q, nwords) <= k)
					mcv_sel += sslot.numbers[i];
			}
			nd -= sslot.nvalues;
			free_attstatsslot(&sslot);
		}
	}
	sel = 1.0 - nullfrac - mcv_total;
	if (nd >= 1.0)
		sel *= Max(random_sel, 1.0 / nd);
	else
		sel *= random_sel;
	sel += mcv_sel;
	CLAMP_PROBABILITY(sel);
	return sel;
}

/* ---------- the extension's catalog objects, resolved once ---------- */

typedef enum
{
	CMP_LT, CMP_LE, CMP_EQ, CMP_NE, CMP_GE, CMP_GT, CMP_UNKNOWN
} CmpKind;

#define MAX_COMPARISONS 64		/* 6 comparisons x 7 signatures = 42 today */

/* The objects of one width (InvalidOid where the installed version lacks them) */
typedef struct SimHashWidth
{
	int			nwords;			/* 1, 2 or 4 */
	Oid			type;			/* simhash, simhash128, simhash256 */
	Oid			ball;			/* its ball type */
	Oid			ball_func;		/* simhash_ball(type, integer) */
	Oid			within;			/* simhash_within(type, type, integer) */
	Oid			distance_int;	/* <#>(type, type), GiST ordering */
	Oid			hamming;		/* hamming_distance(type, type) */
	Oid			hamming_int;	/* hamming_distance_int(type, type) */
	Oid			similar;		/* simhash_similar(type, type), the % operator */
} SimHashWidth;

/*
 * The OIDs the support functions build or recognise, for the schema the
 * extension is in.  Resolved on first use by schema-qualified names and
 * kept until pg_proc, pg_type or pg_operator changes (CREATE, ALTER or DROP
 * EXTENSION): planning never looks them up again, nor reads search_path.
 */
typedef struct SimHashCatalog
{
	Oid			nsp;			/* InvalidOid: not resolved */
	SimHashWidth width[NWIDTHS];
	Oid			similarity_radius;	/* simhash_similarity_radius(integer) */
	int			ncmp;
	Oid			cmp_func[MAX_COMPARISONS];	/* simhash_distance_lt(...) etc. */
	CmpKind		cmp_kind[MAX_COMPARISONS];
} SimHashCatalog;

static SimHashCatalog catalog;
static uint64 catalog_invalidations = 0;

static void
catalog_invalidate(Datum arg, int cacheid, uint32 hashvalue)
{
	catalog.nsp = InvalidOid;
	catalog_invalidations++;
}

static List *
qualified(Oid nsp, const char *name)
{
	return list_make2(makeString(get_namespace_name(nsp)), makeString(pstrdup(name)));
}

static Oid
type_oid(Oid nsp, const char *name)
{
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum(name), ObjectIdGetDatum(nsp));
}

/* The objects of the width whose types are named type_name and ball_name */
static void
resolve_width(SimHashWidth *w, Oid nsp, int nwords, const char *type_name,
			  const char *ball_name)
{
	Oid			args[3];

	w->nwords = nwords;
	w->type = type_oid(nsp, type_name);
	w->ball = type_oid(nsp, ball_name);
	if (!OidIsValid(w->type))
		return;
	args[0] = args[1] = w->type;
	args[2] = INT4OID;
	w->hamming = LookupFuncName(qualified(nsp, "hamming_distance"), 2, args, true);
	w->hamming_int = LookupFuncName(qualified(nsp, "hamming_distance_int"), 2, args, true);
	w->within = LookupFuncName(qualified(nsp, "simhash_within"), 3, args, true);
	w->similar = LookupFuncName(qualified(nsp, "simhash_similar"), 2, args, true);
	args[1] = INT4OID;
	w->ball_func = LookupFuncName(qualified(nsp, "simhash_ball"), 2, args, true);
	w->distance_int = OpernameGetOprid(qualified(nsp, "<#>"), w->type, w->type);
}

static const SimHashCatalog *
simhash_catalog(Oid nsp)
{
	static bool callbacks = false;
	static const char *const cmp_names[] = {
		"simhash_distance_lt", "simhash_distance_le", "simhash_distance_eq",
		"simhash_distance_ne", "simhash_distance_ge", "simhash_distance_gt"
	};
	int			i;
	uint64		invalidations_before;

	if (catalog.nsp == nsp)
		return &catalog;
	if (!callbacks)
	{
		CacheRegisterSyscacheCallback(PROCOID, catalog_invalidate, (Datum) 0);
		CacheRegisterSyscacheCallback(TYPEOID, catalog_invalidate, (Datum) 0);
		CacheRegisterSyscacheCallback(OPEROID, catalog_invalidate, (Datum) 0);
		callbacks = true;
	}
	invalidations_before = catalog_invalidations;
	memset(&catalog, 0, sizeof(catalog));
	resolve_width(&catalog.width[0], nsp, 1, "simhash", "simhash_ball");
	resolve_width(&catalog.width[1], nsp, 2, "simhash128", "simhash128_ball");
	resolve_width(&catalog.width[2], nsp, 4, "simhash256", "simhash256_ball");
	{
		Oid			int4arg = INT4OID;

		catalog.similarity_radius = LookupFuncName(qualified(nsp, "simhash_similarity_radius"),
												   1, &int4arg, true);
	}

	/* every overload of the comparisons, in the extension's schema */
	for (i = 0; i < lengthof(cmp_names); i++)
	{
		CatCList   *list = SearchSysCacheList1(PROCNAMEARGSNSP, CStringGetDatum(cmp_names[i]));
		int			j;

		for (j = 0; j < list->n_members; j++)
		{
			Form_pg_proc proc = (Form_pg_proc) GETSTRUCT(&list->members[j]->tuple);

			if (proc->pronamespace != nsp || catalog.ncmp >= MAX_COMPARISONS)
				continue;
			catalog.cmp_func[catalog.ncmp] = proc->oid;
			catalog.cmp_kind[catalog.ncmp] = (CmpKind) i;
			catalog.ncmp++;
		}
		ReleaseSysCacheList(list);
	}
	/* valid for the next call unless the catalog changed while it was read */
	catalog.nsp = catalog_invalidations == invalidations_before ? nsp : InvalidOid;
	return &catalog;
}

/* What width_of looks for: a width's type or one of its functions */
typedef enum WidthKey
{
	WIDTH_TYPE,					/* the fingerprint type */
	WIDTH_WITHIN,				/* simhash_within */
	WIDTH_SIMILAR,				/* simhash_similar */
	WIDTH_HAMMING				/* hamming_distance or hamming_distance_int */
} WidthKey;

/* The width of which oid is the type or function key, or NULL */
static const SimHashWidth *
width_of(const SimHashCatalog *cat, WidthKey key, Oid oid)
{
	int			i;

	if (!OidIsValid(oid))
		return NULL;
	for (i = 0; i < NWIDTHS; i++)
	{
		const SimHashWidth *w = &cat->width[i];

		if ((key == WIDTH_TYPE && w->type == oid) ||
			(key == WIDTH_WITHIN && w->within == oid) ||
			(key == WIDTH_SIMILAR && w->similar == oid) ||
			(key == WIDTH_HAMMING && (w->hamming == oid || w->hamming_int == oid)))
			return w;
	}
	return NULL;
}

/* The catalog of the schema of an operator's function */
static const SimHashCatalog *
operator_catalog(Oid opno)
{
	return simhash_catalog(get_func_namespace(get_opcode(opno)));
}

/* ---------- selectivity of the ball operators ---------- */

/*
 * The centre and radius of a ball expression of width w, when known at
 * plan time: the centre's words go to q (nwords of them).
 */
static bool
ball_constant(Node *ball, const SimHashWidth *w, uint64 *q, int *k)
{
	Datum		d;

	if (!IsA(ball, Const) || ((Const *) ball)->constisnull ||
		((Const *) ball)->consttype != w->ball)
		return false;
	d = ((Const *) ball)->constvalue;
	if (w->nwords == 1)
	{
		SimHashBall *b = (SimHashBall *) DatumGetPointer(d);

		q[0] = b->center;
		*k = b->radius;
	}
	else
	{
		SimHashWideBall *b = (SimHashWideBall *) DatumGetPointer(d);

		memcpy(q, b->center, sizeof(uint64) * w->nwords);
		*k = b->radius;
	}
	return true;
}

/*
 * The width of the fingerprint side of a ball operator (opno): the type of
 * either argument, fingerprint or ball.  The 64-bit width when unknown.
 */
static const SimHashWidth *
operator_width(Oid opno)
{
	const SimHashCatalog *cat = operator_catalog(opno);
	const SimHashWidth *w;
	Oid			left,
				right;

	op_input_types(opno, &left, &right);
	w = width_of(cat, WIDTH_TYPE, left);
	if (w == NULL)
		w = width_of(cat, WIDTH_TYPE, right);
	return w != NULL ? w : &cat->width[0];
}

/*
 * simhash_ball_restrict: restriction selectivity of fp <@ ball (and of
 * ball @> fp), at every width.
 */
PG_FUNCTION_INFO_V1(simhash_ball_restrict);
Datum
simhash_ball_restrict(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	const SimHashWidth *w = operator_width(PG_GETARG_OID(1));
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	uint64		q[SIMHASH_MAX_WORDS];
	int			k = default_radius(w->nwords);
	bool		have_q;
	Selectivity sel;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		PG_RETURN_FLOAT8(simhash_binomial_within_bits(k, SIMHASH_BITS * w->nwords));
	/* a ball of a stable radius (that of fp % q) has a value to estimate with */
	other = estimate_expression_value(root, other);
	have_q = vardata.vartype == w->type && ball_constant(other, w, q, &k);
	sel = within_selectivity(&vardata, have_q ? q : NULL, w->nwords, k);
	ReleaseVariableStats(vardata);
	PG_RETURN_FLOAT8(sel);
}

/*
 * simhash_ball_joinsel: join selectivity of a.fp <@ simhash_ball(b.fp, k).
 * One row of the other side finds about max(P(within k), 1/ndistinct) of
 * this side.
 */
PG_FUNCTION_INFO_V1(simhash_ball_joinsel);
Datum
simhash_ball_joinsel(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	const SimHashWidth *w = operator_width(PG_GETARG_OID(1));
	List	   *args = (List *) PG_GETARG_POINTER(2);
	Node	   *left = linitial(args);
	Node	   *right = lsecond(args);
	Node	   *fp = exprType(left) == w->type ? left : right;
	VariableStatData vardata;
	double		nd;
	bool		isdefault;
	Selectivity sel = simhash_binomial_within_bits(default_radius(w->nwords),
												   SIMHASH_BITS * w->nwords);

	examine_variable(root, fp, 0, &vardata);
	nd = get_variable_numdistinct(&vardata, &isdefault);
	ReleaseVariableStats(vardata);
	if (nd >= 1.0)
		sel = Max(sel, 1.0 / nd);
	CLAMP_PROBABILITY(sel);
	PG_RETURN_FLOAT8(sel);
}

/* ---------- rewriting fp <-> q <= k ---------- */

static CmpKind
cmp_kind(const SimHashCatalog *cat, Oid funcid)
{
	int			i;

	for (i = 0; i < cat->ncmp; i++)
		if (cat->cmp_func[i] == funcid)
			return cat->cmp_kind[i];
	return CMP_UNKNOWN;
}

/*
 * k - 1, for "d < k" as simhash_within(a, b, k - 1).  A parameter is first
 * raised to 0 (every k <= 0 matches nothing, as -1 does), so int4mi cannot
 * overflow at INT_MIN; both functions are strict, so NULL stays NULL.
 */
static Node *
minus_one(Node *k)
{
	Const	   *zero;

	if (IsA(k, Const))
	{
		Const	   *c = (Const *) k;
		int32		v;

		if (c->constisnull)
			return k;
		v = DatumGetInt32(c->constvalue);
		return (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
								  Int32GetDatum(v == PG_INT32_MIN ? v : v - 1),
								  false, true);
	}
	zero = makeConst(INT4OID, -1, InvalidOid, sizeof(int32), Int32GetDatum(0),
					 false, true);
	k = (Node *) makeFuncExpr(F_INT4LARGER, INT4OID, list_make2(k, zero),
							  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return (Node *) makeFuncExpr(F_INT4MI, INT4OID,
								 list_make2(k, makeConst(INT4OID, -1, InvalidOid,
														 sizeof(int32), Int32GetDatum(1),
														 false, true)),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * k as an integer expression.  A bigint radius is clamped to -1 .. bits + 1
 * first (every radius below 0 matches nothing, every one above bits
 * everything), so the conversion cannot overflow.
 */
static Node *
radius_as_int4(Node *k, int bits)
{
	Oid			t = exprType(k);

	/* the distance domain, from an untyped radius: the same int4 value */
	if (t != INT4OID && getBaseType(t) == INT4OID)
	{
		if (IsA(k, Const))
		{
			Const	   *c = (Const *) copyObject(k);

			c->consttype = INT4OID;
			return (Node *) c;
		}
		return (Node *) makeRelabelType((Expr *) k, INT4OID, -1, InvalidOid,
										COERCE_IMPLICIT_CAST);
	}
	if (t == INT2OID)
		return (Node *) makeFuncExpr(F_INT4_INT2, INT4OID, list_make1(k),
									 InvalidOid, InvalidOid, COERCE_IMPLICIT_CAST);
	if (t == INT8OID)
	{
		Node	   *clamped;

		if (IsA(k, Const) && !((Const *) k)->constisnull)
		{
			int64		v = DatumGetInt64(((Const *) k)->constvalue);

			return (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
									  Int32GetDatum((int32) Max(Min(v, bits + 1), -1)),
									  false, true);
		}
		/* int8larger(int8smaller(k, bits + 1), -1): strict, unlike LEAST/GREATEST */
		clamped = (Node *) makeFuncExpr(F_INT8SMALLER, INT8OID,
										list_make2(k, makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
																Int64GetDatum(bits + 1), false, FLOAT8PASSBYVAL)),
										InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
		clamped = (Node *) makeFuncExpr(F_INT8LARGER, INT8OID,
										list_make2(clamped, makeConst(INT8OID, -1, InvalidOid, sizeof(int64),
																	  Int64GetDatum(-1), false, FLOAT8PASSBYVAL)),
										InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
		return (Node *) makeFuncExpr(F_INT4_INT8, INT4OID, list_make1(clamped),
									 InvalidOid, InvalidOid, COERCE_IMPLICIT_CAST);
	}
	return k;
}

/*
 * If *dist is hamming_distance(a, b) (as function or <->), or its integer
 * integer form <#> under a relabelling to the domain (see simplify_hamming_distance),
 * of any width, return its two arguments, set *width to its width, and
 * strip the relabelling from *dist.
 */
static List *
hamming_args(Node **dist, const SimHashCatalog *cat, const SimHashWidth **width)
{
	Node	   *node = *dist;
	Oid			funcid;
	List	   *args;

	if (IsA(node, RelabelType))
		node = (Node *) ((RelabelType *) node)->arg;
	if (IsA(node, FuncExpr))
	{
		funcid = ((FuncExpr *) node)->funcid;
		args = ((FuncExpr *) node)->args;
	}
	else if (IsA(node, OpExpr))
	{
		set_opfuncid((OpExpr *) node);
		funcid = ((OpExpr *) node)->opfuncid;
		args = ((OpExpr *) node)->args;
	}
	else
		return NIL;
	if (list_length(args) != 2)
		return NIL;
	*width = width_of(cat, WIDTH_HAMMING, funcid);
	if (*width == NULL)
		return NIL;
	*dist = node;
	return args;
}

static Node *
simplify_distance_comparison(FuncExpr *f, const SimHashCatalog *cat)
{
	static const CmpKind flip[] = {CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_LE, CMP_LT};
	CmpKind		kind = cmp_kind(cat, f->funcid);
	const SimHashWidth *w = NULL;
	Node	   *dist,
			   *k;
	List	   *dargs;
	Node	   *call;

	if (kind == CMP_UNKNOWN || list_length(f->args) != 2)
		return NULL;

	/*
	 * Normalise to "distance op k".  The distance is the side that is a
	 * Hamming distance call: both sides have the distance type when the
	 * radius was an untyped literal or parameter.
	 */
	dist = linitial(f->args);
	k = lsecond(f->args);
	dargs = hamming_args(&dist, cat, &w);
	if (dargs == NIL)
	{
		dist = lsecond(f->args);
		k = linitial(f->args);
		kind = flip[kind];
		dargs = hamming_args(&dist, cat, &w);
		if (dargs == NIL)
			return NULL;
	}
	if (kind != CMP_LT && kind != CMP_LE && kind != CMP_EQ)
		return NULL;
	if (!OidIsValid(w->within))
		return NULL;
	k = radius_as_int4(k, SIMHASH_BITS * w->nwords);

	call = (Node *) makeFuncExpr(w->within, BOOLOID,
								 list_make3(linitial(dargs), lsecond(dargs),
											kind == CMP_LT ? minus_one(k) : k),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	if (kind == CMP_EQ &&
		!(IsA(k, Const) && !((Const *) k)->constisnull &&
		  DatumGetInt32(((Const *) k)->constvalue) == 0))
	{
		/* distance = k: within k, and exactly k as plain integers */
		Expr	   *d = (Expr *) dist;
		OpExpr	   *eq;

		if (exprType(dist) != INT4OID)
			d = (Expr *) makeRelabelType(d, INT4OID, -1, InvalidOid,
										 COERCE_IMPLICIT_CAST);
		eq = (OpExpr *) make_opclause(Int4EqualOperator, BOOLOID, false, d,
									  (Expr *) k, InvalidOid, InvalidOid);

		eq->opfuncid = F_INT4EQ;
		call = (Node *) make_andclause(list_make2(call, eq));
	}
	return call;
}

/*
 * The body of a support function that answers only SupportRequestSimplify:
 * the simplified expression from simplify(call, the catalog of the call's
 * schema), or NULL (no change) for that request or any other.
 */
static Datum
simplify_only(FunctionCallInfo fcinfo,
			  Node *(*simplify) (FuncExpr *f, const SimHashCatalog *cat))
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	FuncExpr   *f;

	if (!IsA(rawreq, SupportRequestSimplify))
		PG_RETURN_POINTER(NULL);
	f = ((SupportRequestSimplify *) rawreq)->fcall;
	PG_RETURN_POINTER(simplify(f, simhash_catalog(get_func_namespace(f->funcid))));
}

/* ---------- hamming_distance(a, b) ---------- */

/*
 * a <-> b becomes (a <#> b) relabelled to simhash_distance: same value and
 * type, but a sort on it (ORDER BY fp <-> q) is matched to the GiST
 * ordering operator <#>, since the planner strips the relabelling when it
 * compares the sort expression with the index's ordering operators.
 */
static Node *
simplify_hamming_distance(FuncExpr *f, const SimHashCatalog *cat)
{
	const SimHashWidth *w = width_of(cat, WIDTH_HAMMING, f->funcid);
	OpExpr	   *op;

	if (list_length(f->args) != 2 || w == NULL || !OidIsValid(w->distance_int))
		return NULL;
	op = (OpExpr *) make_opclause(w->distance_int, INT4OID, false,
								  (Expr *) linitial(f->args),
								  (Expr *) lsecond(f->args),
								  InvalidOid, InvalidOid);
	op->opfuncid = get_opcode(w->distance_int);
	return (Node *) makeRelabelType((Expr *) op, f->funcresulttype, -1,
									InvalidOid, COERCE_IMPLICIT_CAST);
}

/* ---------- fp <@ ball ---------- */

/*
 * fp <@ ball and ball @> fp become simhash_within(fp, centre, radius) when
 * the ball is simhash_ball(q, k) or a constant: the same test, so every
 * literal spelling of a radius query reaches the index through one path,
 * simhash_within's support function, and one rule chooses the index.  A
 * ball from a column is left alone.
 */
static Node *
simplify_in_ball(FuncExpr *f, const SimHashCatalog *cat)
{
	const SimHashWidth *w;
	Node	   *fp,
			   *ball,
			   *q,
			   *k;
	uint64		center[SIMHASH_MAX_WORDS];
	int			radius;

	if (list_length(f->args) != 2)
		return NULL;
	fp = linitial(f->args);
	ball = lsecond(f->args);
	w = width_of(cat, WIDTH_TYPE, exprType(fp));
	if (w == NULL)
	{
		fp = lsecond(f->args);	/* ball @> fp */
		ball = linitial(f->args);
		w = width_of(cat, WIDTH_TYPE, exprType(fp));
	}
	if (w == NULL || !OidIsValid(w->within))
		return NULL;
	if (ball_constant(ball, w, center, &radius))
	{
		if (w->nwords == 1)
			q = (Node *) makeConst(w->type, -1, InvalidOid, sizeof(SimHash),
								   SimHashGetDatum(center[0]), false, true);
		else
		{
			uint64	   *words = palloc(sizeof(uint64) * w->nwords);

			memcpy(words, center, sizeof(uint64) * w->nwords);
			q = (Node *) makeConst(w->type, -1, InvalidOid,
								   sizeof(uint64) * w->nwords,
								   PointerGetDatum(words), false, false);
		}
		k = (Node *) makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
							   Int32GetDatum(radius), false, true);
	}
	else if (IsA(ball, FuncExpr) && ((FuncExpr *) ball)->funcid == w->ball_func)
	{
		q = linitial(((FuncExpr *) ball)->args);
		k = lsecond(((FuncExpr *) ball)->args);
	}
	else
		return NULL;
	return (Node *) makeFuncExpr(w->within, BOOLOID, list_make3(fp, q, k),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/* ---------- fp % q ---------- */

/*
 * fp % q becomes simhash_within(fp, q, simhash_similarity_radius(bits)).
 * The radius stays a call, not a constant: a plan may be kept and run
 * after SET simhash.similarity_threshold, and the index clause it makes
 * (col <@ simhash_ball(q, radius)) is evaluated when the scan starts.
 */
static Node *
simplify_similar(FuncExpr *f, const SimHashCatalog *cat)
{
	const SimHashWidth *w = width_of(cat, WIDTH_SIMILAR, f->funcid);
	Node	   *k;

	if (w == NULL || list_length(f->args) != 2 || !OidIsValid(w->within) ||
		!OidIsValid(cat->similarity_radius))
		return NULL;
	k = (Node *) makeFuncExpr(cat->similarity_radius, INT4OID,
							  list_make1(makeConst(INT4OID, -1, InvalidOid, sizeof(int32),
												   Int32GetDatum(SIMHASH_BITS * w->nwords),
												   false, true)),
							  InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	return (Node *) makeFuncExpr(w->within, BOOLOID,
								 list_make3(linitial(f->args), lsecond(f->args), k),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
}

/*
 * The support functions that only simplify (STRICT, IMMUTABLE, PARALLEL
 * SAFE; internal -> internal):
 *	simhash_distance_support: of the comparisons between simhash_distance
 *		and an integer (fp <-> q <= k becomes simhash_within(fp, q, k));
 *	simhash_hamming_support: of hamming_distance (a <-> b becomes a <#> b);
 *	simhash_in_ball_support: of <@ and @> between simhash and simhash_ball;
 *	simhash_similar_support: of the similarity operator % (since 1.14).
 */
#define SIMPLIFY_SUPPORT(name, simplify) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	return simplify_only(fcinfo, simplify); \
}

SIMPLIFY_SUPPORT(simhash_distance_support, simplify_distance_comparison)
SIMPLIFY_SUPPORT(simhash_hamming_support, simplify_hamming_distance)
SIMPLIFY_SUPPORT(simhash_in_ball_support, simplify_in_ball)
SIMPLIFY_SUPPORT(simhash_similar_support, simplify_similar)

/* ---------- simhash_within(a, b, k) ---------- */

/*
 * Is there a GIN index answering <@ on the same column as this GiST one?
 * Radius queries are then left to it: GIN looks up the few segment values
 * of the query, while GiST's bounds prune little at small radii (see
 * bench/index), and GiST's generic cost estimate cannot tell the two apart.
 * This is the one rule, for every spelling: each reaches the index through
 * simhash_within (simplify_distance_comparison, simplify_in_ball).
 */
static bool
gin_index_on_same_column(IndexOptInfo *gist, int col, Oid in_ball)
{
	ListCell   *lc;

	if (gist->indexkeys[col] == 0)
		return false;			/* an expression index: leave it alone */
	foreach(lc, gist->rel->indexlist)
	{
		IndexOptInfo *other = (IndexOptInfo *) lfirst(lc);
		int			i;

		if (other->relam != GIN_AM_OID)
			continue;
		for (i = 0; i < other->nkeycolumns; i++)
			if (other->indexkeys[i] == gist->indexkeys[col] &&
				op_in_opfamily(in_ball, other->opfamily[i]))
				return true;
	}
	return false;
}

static List *
within_index_condition(SupportRequestIndexCondition *req)
{
	FuncExpr   *f = (FuncExpr *) req->node;
	const SimHashCatalog *cat = simhash_catalog(get_func_namespace(req->funcid));
	const SimHashWidth *w = width_of(cat, WIDTH_WITHIN, req->funcid);
	Node	   *col,
			   *other,
			   *k;
	Oid			in_ball;
	Expr	   *ball;
	OpExpr	   *clause;

	if (w == NULL || !IsA(f, FuncExpr) || list_length(f->args) != 3 ||
		req->indexarg > 1)
		return NIL;
	col = list_nth(f->args, req->indexarg);
	other = list_nth(f->args, 1 - req->indexarg);
	k = lthird(f->args);
	if (!is_pseudo_constant_for_index(req->root, other, req->index) ||
		!is_pseudo_constant_for_index(req->root, k, req->index))
		return NIL;

	/* the index's own operator for "in the ball", by strategy number */
	in_ball = get_opfamily_member(req->opfamily, w->type, w->ball,
								  SIMHASH_WITHIN_STRATEGY);
	if (!OidIsValid(in_ball) || !OidIsValid(w->ball_func))
		return NIL;
	/* GIN answers only through bitmap scans: with those off, GiST may */
	if (req->index->relam == GIST_AM_OID && enable_bitmapscan &&
		gin_index_on_same_column(req->index, req->indexcol, in_ball))
		return NIL;

	ball = (Expr *) makeFuncExpr(w->ball_func, w->ball, list_make2(other, k),
								 InvalidOid, InvalidOid, COERCE_EXPLICIT_CALL);
	ball = (Expr *) eval_const_expressions(req->root, (Node *) ball);
	clause = (OpExpr *) make_opclause(in_ball, BOOLOID, false, (Expr *) col, ball,
									  InvalidOid, InvalidOid);
	clause->opfuncid = get_opcode(in_ball);
	req->lossy = false;			/* col <@ ball(other, k) is the same test */
	return list_make1(clause);
}

static Selectivity
within_function_selectivity(SupportRequestSelectivity *req)
{
	const SimHashCatalog *cat = simhash_catalog(get_func_namespace(req->funcid));
	const SimHashWidth *w = width_of(cat, WIDTH_WITHIN, req->funcid);
	Node	   *a = linitial(req->args);
	Node	   *b = lsecond(req->args);
	Node	   *kn = lthird(req->args);
	int			nwords = w != NULL ? w->nwords : 1;
	int			k = default_radius(nwords);
	VariableStatData vardata;
	Node	   *var = a,
			   *other = b;
	uint64		buf[1];
	const uint64 *q = NULL;
	Selectivity sel;

	/* a stable radius (that of fp % q) has a value to estimate with */
	kn = estimate_expression_value(req->root, kn);
	if (IsA(kn, Const) && !((Const *) kn)->constisnull)
		k = DatumGetInt32(((Const *) kn)->constvalue);
	if (IsA(a, Const))
	{
		var = b;
		other = a;
	}
	examine_variable(req->root, var, req->is_join ? 0 : req->varRelid, &vardata);
	if (w != NULL && vardata.vartype == w->type &&
		IsA(other, Const) && !((Const *) other)->constisnull)
		q = simhash_datum_words(((Const *) other)->constvalue, nwords, buf);
	sel = within_selectivity(&vardata, q, nwords, k);
	ReleaseVariableStats(vardata);
	return sel;
}

/*
 * simhash_within_support(internal): support function of simhash_within.
 */
PG_FUNCTION_INFO_V1(simhash_within_support);
Datum
simhash_within_support(PG_FUNCTION_ARGS)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);

	if (IsA(rawreq, SupportRequestIndexCondition))
		PG_RETURN_POINTER(within_index_condition((SupportRequestIndexCondition *) rawreq));
	if (IsA(rawreq, SupportRequestSelectivity))
	{
		SupportRequestSelectivity *req = (SupportRequestSelectivity *) rawreq;

		req->selectivity = within_function_selectivity(req);
		PG_RETURN_POINTER(req);
	}
	PG_RETURN_POINTER(NULL);
}
