/*
 * mih_cost.c
 *		The cost model of a mih search, used by the scan to choose between
 *		the tables and a pass over the codes, and by the planner.
 *
 * Units: reading one code in a pass costs 1.  A directory lookup and a
 * candidate (its code page found, its code compared) cost about 30, and an
 * entry's low bits 0.3 (measured in doc/indexes.md).
 */
#include "mih.h"

#include <math.h>

#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "access/genam.h"
#include "utils/selfuncs.h"
#include "utils/rel.h"

#define COST_CODE		1.0
#define COST_BUCKET		30.0
#define COST_ENTRY		0.3
#define COST_CANDIDATE	30.0

/* The share of uniform len-bit values within r of a given one */
double
mih_ball_share(int len, int r)
{
	double		n = 0;
	int			i;

	for (i = 0; i <= Min(r, len); i++)
		n += simhash_binomial(len, i);
	return n / ldexp(1.0, len);
}

/*
 * Each table's radius for a search within k: the k + 1 units of
 * sum(r_i + 1) spread evenly, so that a row within k is within r_i in
 * some table i; -1 for a table not searched.
 */
void
mih_table_radii(const MihMetaPageData *meta, int k, int *r)
{
	int			m = meta->ntables,
				units = k + 1,
				j;

	for (j = 0; j < m; j++)
		r[j] = units / m + (j < units % m) - 1;
}

/*
 * What the tables do at radius k, for uniform codes: the cost of their
 * directory lookups and entries, and the candidates they find
 */
static double
table_work(const MihMetaPageData *meta, int k, double *candidates)
{
	int			r[MIH_MAX_TABLES];
	double		cost = 0;
	int			j;

	*candidates = 0;
	mih_table_radii(meta, k, r);
	for (j = 0; j < meta->ntables; j++)
	{
		double		share;

		if (r[j] < 0)
			continue;
		share = mih_ball_share(meta->dirbits, r[j]);
		cost += COST_BUCKET * share * ldexp(1.0, meta->dirbits) +
			COST_ENTRY * share * meta->nsorted;
		*candidates += meta->nsorted * mih_ball_share(meta->tables[j].length, r[j]);
	}
	return cost;
}

/* The expected candidates at radius k */
double
mih_candidates(const MihMetaPageData *meta, int k)
{
	double		n;

	(void) table_work(meta, k, &n);
	return n;
}

/* The cost of the tables at radius k */
double
mih_tables_cost(const MihMetaPageData *meta, int k)
{
	double		n;
	double		cost = table_work(meta, k, &n);

	return cost + COST_CANDIDATE * n;
}

/* The cost of a pass over the sorted codes */
double
mih_pass_cost(const MihMetaPageData *meta)
{
	return COST_CODE * meta->nsorted;
}

/* The radius of an index clause fp <@ ball when the ball is a constant */
static int
clause_radius(IndexPath *path, int nwords, bool *known)
{
	ListCell   *lc;
	int			k = SIMHASH_BITS * nwords;

	*known = false;
	foreach(lc, path->indexclauses)
	{
		IndexClause *ic = lfirst_node(IndexClause, lc);
		ListCell   *lc2;

		foreach(lc2, ic->indexquals)
		{
			RestrictInfo *ri = lfirst_node(RestrictInfo, lc2);
			OpExpr	   *op = (OpExpr *) ri->clause;
			Node	   *arg;

			if (!IsA(op, OpExpr) || list_length(op->args) != 2)
				continue;
			arg = (Node *) lsecond(op->args);
			if (IsA(arg, Const) && !((Const *) arg)->constisnull)
			{
				Datum		d = ((Const *) arg)->constvalue;
				int			r = nwords == 1 ? ((SimHashBall *) DatumGetPointer(d))->radius
					: ((SimHashWideBall *) DatumGetPointer(d))->radius;

				k = Min(k, r);
				*known = true;
			}
		}
	}
	return k;
}

/*
 * amcostestimate: genericcostestimate's selectivity and heap side, with
 * the index's own work from the model above at the clause's radius (when
 * it is a constant; else a pass), its code pages fetched as an index scan
 * of that many rows would fetch them.
 */
void
mih_costestimate(PlannerInfo *root, IndexPath *path, double loop_count,
				 Cost *indexStartupCost, Cost *indexTotalCost,
				 Selectivity *indexSelectivity, double *indexCorrelation,
				 double *indexPages)
{
	GenericCosts costs;
	Relation	index;
	MihMetaPageData meta;
	int			k,
				perpage;
	bool		known;
	double		work,
				pages,
				ncodepages;

	MemSet(&costs, 0, sizeof(costs));
	genericcostestimate(root, path, loop_count, &costs);

	index = index_open(path->indexinfo->indexoid, NoLock);
	mih_read_meta(index, &meta);
	index_close(index, NoLock);
	perpage = mih_codes_per_page(meta.nwords);
	ncodepages = ceil((double) meta.nsorted / perpage) + ceil((double) meta.npending / perpage);

	k = clause_radius(path, meta.nwords, &known);
	if (path->indexorderbys != NIL && !known)
	{
		/* an ORDER BY alone: the first ring to start, a pass at the most */
		double		first = mih_tables_cost(&meta, meta.ntables - 1);

		*indexStartupCost = Min(first, mih_pass_cost(&meta)) * cpu_operator_cost;
		work = mih_pass_cost(&meta) + meta.npending;
		pages = ncodepages;
	}
	else
	{
		double		tables = mih_tables_cost(&meta, k);

		if (tables < mih_pass_cost(&meta))
		{
			work = tables + meta.npending;
			pages = index_pages_fetched(mih_candidates(&meta, k), (BlockNumber) ncodepages,
										path->indexinfo->pages, root) +
				ceil((double) meta.npending / perpage);
		}
		else
		{
			work = mih_pass_cost(&meta) + meta.npending;
			pages = ncodepages;
		}
		*indexStartupCost = work * cpu_operator_cost;
	}
	*indexTotalCost = work * cpu_operator_cost + pages * random_page_cost +
		costs.numIndexTuples * cpu_index_tuple_cost;
	if (pages >= ncodepages)	/* a pass reads in order */
		*indexTotalCost = work * cpu_operator_cost + pages * seq_page_cost +
			costs.numIndexTuples * cpu_index_tuple_cost;
	*indexSelectivity = costs.indexSelectivity;
	*indexCorrelation = 0;
	*indexPages = pages;
}
