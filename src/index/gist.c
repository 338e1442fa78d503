/*
 * gist.c
 *		GiST operator class simhash_gist_ops: radius search and exact
 *		nearest-neighbour ordering (ORDER BY fp <-> q LIMIT n).
 *
 * A key summarises a set of fingerprints by two words: the bits set in all
 * of them (and_bits) and the bits set in any (or_bits).  Where the two
 * agree every fingerprint below has the same bit, so the number of those
 * fixed bits that differ from the query is a lower bound of the distance to
 * anything in the subtree; on a leaf (and_bits = or_bits = the fingerprint)
 * it is the exact distance.  Splits gather fingerprints that agree on many
 * bits, and the sorted build orders leaves by value (shared high bits).
 * The index is PostgreSQL's own GiST, WAL-logged and crash-safe.
 */
#include "simhash.h"

#include <float.h>

#include "access/gist.h"
#include "access/stratnum.h"
#include "port/pg_bitutils.h"
#include "utils/sortsupport.h"

typedef struct SimHashGistKey
{
	uint64		and_bits;		/* set in every fingerprint below */
	uint64		or_bits;		/* set in some fingerprint below */
} SimHashGistKey;

/* The key of an index entry */
static inline SimHashGistKey *
entry_key(const GISTENTRY *e)
{
	return (SimHashGistKey *) DatumGetPointer(e->key);
}

/* Bits on which all fingerprints below agree and differ from q */
static inline int
key_lower_bound(const SimHashGistKey *k, SimHash q)
{
	return pg_popcount64((k->and_bits & ~q) | (~k->or_bits & q));
}

/* Number of bits not fixed by the key */
static inline int
key_spread(uint64 and_bits, uint64 or_bits)
{
	return pg_popcount64(and_bits ^ or_bits);
}

/*
 * simhash_gist_key_in / _out: the storage type's text form, for debugging
 * (pageinspect); it is never written by users.
 */
PG_FUNCTION_INFO_V1(simhash_gist_key_in);
Datum
simhash_gist_key_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot accept a value of type %s", "simhash_gist_key")));
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(simhash_gist_key_out);
Datum
simhash_gist_key_out(PG_FUNCTION_ARGS)
{
	SimHashGistKey *k = (SimHashGistKey *) PG_GETARG_POINTER(0);

	PG_RETURN_CSTRING(psprintf("(%016llx,%016llx)",
							   (unsigned long long) k->and_bits,
							   (unsigned long long) k->or_bits));
}

/* compress: a fingerprint becomes a leaf key */
PG_FUNCTION_INFO_V1(simhash_gist_compress);
Datum
simhash_gist_compress(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);

	if (entry->leafkey)
	{
		GISTENTRY  *retval = palloc(sizeof(GISTENTRY));
		SimHashGistKey *k = palloc(sizeof(SimHashGistKey));
		SimHash		v = DatumGetSimHash(entry->key);

		k->and_bits = k->or_bits = v;
		gistentryinit(*retval, PointerGetDatum(k), entry->rel, entry->page,
					  entry->offset, false);
		PG_RETURN_POINTER(retval);
	}
	PG_RETURN_POINTER(entry);
}

/* fetch: the fingerprint of a leaf key, for index-only scans */
PG_FUNCTION_INFO_V1(simhash_gist_fetch);
Datum
simhash_gist_fetch(PG_FUNCTION_ARGS)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	SimHashGistKey *k = entry_key(entry);
	GISTENTRY  *retval = palloc(sizeof(GISTENTRY));

	gistentryinit(*retval, SimHashGetDatum(k->and_bits), entry->rel,
				  entry->page, entry->offset, false);
	PG_RETURN_POINTER(retval);
}

/*
 * The lower bound of the Hamming distance from q to the fingerprints below
 * the entry of a consistent or distance call (arguments entry, query,
 * strategy, subtype, recheck); exact on a leaf, so never rechecked.  The
 * strategy must be the one the caller answers.
 */
static int
entry_lower_bound(FunctionCallInfo fcinfo, StrategyNumber answered, SimHash q)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);

	if (strategy != answered)
		elog(ERROR, "unrecognized strategy number: %d", strategy);
	*recheck = false;
	return key_lower_bound(entry_key(entry), q);
}

/*
 * consistent(entry, simhash_ball, strategy, subtype, recheck): may the
 * subtree hold a fingerprint within the ball?  Exact on leaves.
 */
PG_FUNCTION_INFO_V1(simhash_gist_consistent);
Datum
simhash_gist_consistent(PG_FUNCTION_ARGS)
{
	SimHashBall *ball = (SimHashBall *) PG_GETARG_POINTER(1);

	PG_RETURN_BOOL(entry_lower_bound(fcinfo, SIMHASH_WITHIN_STRATEGY,
									 ball->center) <= ball->radius);
}

/*
 * distance(entry, simhash, strategy, subtype, recheck): lower bound of the
 * Hamming distance below an inner key, the exact distance on a leaf.
 */
PG_FUNCTION_INFO_V1(simhash_gist_distance);
Datum
simhash_gist_distance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8((float8) entry_lower_bound(fcinfo, SIMHASH_DISTANCE_STRATEGY,
												PG_GETARG_SIMHASH(1)));
}

/* union: AND of the and_bits, OR of the or_bits */
PG_FUNCTION_INFO_V1(simhash_gist_union);
Datum
simhash_gist_union(PG_FUNCTION_ARGS)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	int		   *sizep = (int *) PG_GETARG_POINTER(1);
	SimHashGistKey *u = palloc(sizeof(SimHashGistKey));
	int			i;

	u->and_bits = ~UINT64CONST(0);
	u->or_bits = 0;
	for (i = 0; i < entryvec->n; i++)
	{
		SimHashGistKey *k = entry_key(&entryvec->vector[i]);

		u->and_bits &= k->and_bits;
		u->or_bits |= k->or_bits;
	}
	*sizep = sizeof(SimHashGistKey);
	PG_RETURN_POINTER(u);
}

/* penalty: how many more bits the subtree leaves unfixed */
PG_FUNCTION_INFO_V1(simhash_gist_penalty);
Datum
simhash_gist_penalty(PG_FUNCTION_ARGS)
{
	SimHashGistKey *o = entry_key((GISTENTRY *) PG_GETARG_POINTER(0));
	SimHashGistKey *n = entry_key((GISTENTRY *) PG_GETARG_POINTER(1));
	float	   *penalty = (float *) PG_GETARG_POINTER(2);

	*penalty = (float) (key_spread(o->and_bits & n->and_bits, o->or_bits | n->or_bits) -
						key_spread(o->and_bits, o->or_bits));
	PG_RETURN_POINTER(penalty);
}

/* same: identical keys */
PG_FUNCTION_INFO_V1(simhash_gist_same);
Datum
simhash_gist_same(PG_FUNCTION_ARGS)
{
	SimHashGistKey *a = (SimHashGistKey *) PG_GETARG_POINTER(0);
	SimHashGistKey *b = (SimHashGistKey *) PG_GETARG_POINTER(1);
	bool	   *result = (bool *) PG_GETARG_POINTER(2);

	*result = (a->and_bits == b->and_bits && a->or_bits == b->or_bits);
	PG_RETURN_POINTER(result);
}

/* how far apart two keys are: the bits on which they disagree */
static inline int
key_difference(const SimHashGistKey *a, const SimHashGistKey *b)
{
	return pg_popcount64(a->and_bits ^ b->and_bits) +
		pg_popcount64(a->or_bits ^ b->or_bits);
}

typedef struct SplitCost
{
	OffsetNumber off;
	int			bias;			/* growth of left union minus right */
} SplitCost;

static int
split_cost_cmp(const void *a, const void *b)
{
	int			x = ((const SplitCost *) a)->bias;
	int			y = ((const SplitCost *) b)->bias;

	if (x != y)
		return (x > y) - (x < y);
	return (int) ((const SplitCost *) a)->off - (int) ((const SplitCost *) b)->off;
}

/* The first entry with the most key_difference from the key "from" */
static OffsetNumber
farthest_entry(GistEntryVector *entryvec, const SimHashGistKey *from)
{
	OffsetNumber i,
				far = FirstOffsetNumber;
	int			best = -1;

	for (i = FirstOffsetNumber; i < entryvec->n; i = OffsetNumberNext(i))
	{
		int			d = key_difference(from, entry_key(&entryvec->vector[i]));

		if (d > best)
		{
			best = d;
			far = i;
		}
	}
	return far;
}

/*
 * picksplit: two far-apart seeds (the entry farthest from the first, then
 * the one farthest from it); every entry is ranked by how much it would
 * widen the left seed rather than the right, and the ranking is cut in
 * half, so the pages stay balanced and similar fingerprints stay together.
 */
PG_FUNCTION_INFO_V1(simhash_gist_picksplit);
Datum
simhash_gist_picksplit(PG_FUNCTION_ARGS)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *v = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	OffsetNumber maxoff = entryvec->n - 1;
	int			n = maxoff - FirstOffsetNumber + 1;
	OffsetNumber i,
				seed_l,
				seed_r;
	SimHashGistKey *sl,
			   *sr,
			   *ul,
			   *ur;
	SplitCost  *costs = palloc(sizeof(SplitCost) * n);
	int			j;

#define KEY(off) entry_key(&entryvec->vector[off])

	seed_l = farthest_entry(entryvec, KEY(FirstOffsetNumber));
	seed_r = farthest_entry(entryvec, KEY(seed_l));
	sl = KEY(seed_l);
	sr = KEY(seed_r);

	for (i = FirstOffsetNumber, j = 0; i <= maxoff; i = OffsetNumberNext(i), j++)
	{
		SimHashGistKey *k = KEY(i);
		int			gl = key_spread(sl->and_bits & k->and_bits, sl->or_bits | k->or_bits);
		int			gr = key_spread(sr->and_bits & k->and_bits, sr->or_bits | k->or_bits);

		costs[j].off = i;
		costs[j].bias = gl - gr;
	}
	qsort(costs, n, sizeof(SplitCost), split_cost_cmp);

	v->spl_left = palloc(sizeof(OffsetNumber) * n);
	v->spl_right = palloc(sizeof(OffsetNumber) * n);
	v->spl_nleft = v->spl_nright = 0;
	ul = palloc(sizeof(SimHashGistKey));
	ur = palloc(sizeof(SimHashGistKey));
	ul->and_bits = ur->and_bits = ~UINT64CONST(0);
	ul->or_bits = ur->or_bits = 0;
	for (j = 0; j < n; j++)
	{
		SimHashGistKey *k = KEY(costs[j].off);

		if (j < n / 2)
		{
			v->spl_left[v->spl_nleft++] = costs[j].off;
			ul->and_bits &= k->and_bits;
			ul->or_bits |= k->or_bits;
		}
		else
		{
			v->spl_right[v->spl_nright++] = costs[j].off;
			ur->and_bits &= k->and_bits;
			ur->or_bits |= k->or_bits;
		}
	}
	v->spl_ldatum = PointerGetDatum(ul);
	v->spl_rdatum = PointerGetDatum(ur);
#undef KEY
	PG_RETURN_POINTER(v);
}

/*
 * Sorted build (GiST support function 11): leaves in order of the unsigned
 * value, so pages hold fingerprints sharing their high bits.
 */
static int
simhash_gist_key_cmp(Datum x, Datum y, SortSupport ssup)
{
	uint64		a = ((SimHashGistKey *) DatumGetPointer(x))->and_bits;
	uint64		b = ((SimHashGistKey *) DatumGetPointer(y))->and_bits;

	return (a > b) - (a < b);
}

PG_FUNCTION_INFO_V1(simhash_gist_sortsupport);
Datum
simhash_gist_sortsupport(PG_FUNCTION_ARGS)
{
	((SortSupport) PG_GETARG_POINTER(0))->comparator = simhash_gist_key_cmp;
	PG_RETURN_VOID();
}
