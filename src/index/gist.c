/*
 * gist.c
 *		GiST operator classes simhash_gist_ops, simhash128_gist_ops and
 *		simhash256_gist_ops: radius search and exact nearest-neighbour
 *		ordering (ORDER BY fp <-> q LIMIT n).
 *
 * A key summarises a set of fingerprints by the bits set in all of them
 * (and_bits) and the bits set in any (or_bits), nwords words each.  Where
 * the two agree every fingerprint below has the same bit, so the number of
 * those fixed bits that differ from the query is a lower bound of the
 * distance to anything in the subtree; on a leaf (and_bits = or_bits = the
 * fingerprint) it is the exact distance, so nothing is rechecked and
 * index-only scans return the fingerprint.  Splits gather fingerprints that
 * agree on many bits, and the sorted build orders leaves in the B-tree
 * order (shared high bits).  The index is PostgreSQL's own GiST,
 * WAL-logged and crash-safe.
 *
 * Key types simhash_gist_key (16 bytes), simhash128_gist_key (32) and
 * simhash256_gist_key (64): and_bits then or_bits.  Every function has one
 * body for all widths, called by a thin entry point per width (words.h).
 */
#include "simhash.h"

#include "access/gist.h"
#include "access/stratnum.h"
#include "lib/stringinfo.h"
#include "utils/sortsupport.h"

#include "type/words.h"

/* A key: and_bits are words 0 .. nwords - 1, or_bits the next nwords */
#define AND_BITS(k)			(k)
#define OR_BITS(k, nwords)	((k) + (nwords))
#define KEY_SIZE(nwords)	(2 * sizeof(uint64) * (nwords))

static inline uint64 *
entry_key(const GISTENTRY *e)
{
	return (uint64 *) DatumGetPointer(e->key);
}

/* Bits on which all fingerprints below agree and differ from q */
static inline int
key_lower_bound(const uint64 *k, const uint64 *q, int nwords)
{
	int			d = 0;
	int			i;

	for (i = 0; i < nwords; i++)
		d += pg_popcount64((AND_BITS(k)[i] & ~q[i]) | (~OR_BITS(k, nwords)[i] & q[i]));
	return d;
}

/* Number of bits not fixed by the union of keys a and b (b may be NULL) */
static inline int
union_spread(const uint64 *a, const uint64 *b, int nwords)
{
	int			d = 0;
	int			i;

	for (i = 0; i < nwords; i++)
	{
		uint64		and_bits = AND_BITS(a)[i];
		uint64		or_bits = OR_BITS(a, nwords)[i];

		if (b != NULL)
		{
			and_bits &= AND_BITS(b)[i];
			or_bits |= OR_BITS(b, nwords)[i];
		}
		d += pg_popcount64(and_bits ^ or_bits);
	}
	return d;
}

/* A key that fixes every bit (the identity of key_merge) */
static inline void
key_init(uint64 *k, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
	{
		AND_BITS(k)[i] = ~UINT64CONST(0);
		OR_BITS(k, nwords)[i] = 0;
	}
}

/* k becomes the union of k and other */
static inline void
key_merge(uint64 *k, const uint64 *other, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
	{
		AND_BITS(k)[i] &= AND_BITS(other)[i];
		OR_BITS(k, nwords)[i] |= OR_BITS(other, nwords)[i];
	}
}

/* How far apart two keys are: the bits on which they disagree */
static inline int
key_difference(const uint64 *a, const uint64 *b, int nwords)
{
	int			d = 0;
	int			i;

	for (i = 0; i < 2 * nwords; i++)
		d += pg_popcount64(a[i] ^ b[i]);
	return d;
}

/*
 * gist_key_in / _out: the storage type's text form, for debugging
 * (pageinspect); it is never written by users.
 */
static inline Datum
gist_key_in(FunctionCallInfo fcinfo, int nwords)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot accept a value of type %s",
					psprintf("%s_gist_key", simhash_type_name(nwords)))));
	return (Datum) 0;
}

static inline Datum
gist_key_out(FunctionCallInfo fcinfo, int nwords)
{
	const uint64 *k = (const uint64 *) PG_GETARG_POINTER(0);
	StringInfoData buf;
	int			i;

	initStringInfo(&buf);
	for (i = 0; i < 2 * nwords; i++)
		appendStringInfo(&buf, "%s%016llx", i == 0 ? "(" : i == nwords ? "," : "",
						 (unsigned long long) k[i]);
	appendStringInfoChar(&buf, ')');
	return CStringGetDatum(buf.data);
}

/* compress: a fingerprint becomes a leaf key */
static inline Datum
gist_compress(FunctionCallInfo fcinfo, int nwords)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *retval;
	uint64	   *k;
	uint64		one;
	const uint64 *v;

	if (!entry->leafkey)
		return PointerGetDatum(entry);
	retval = palloc(sizeof(GISTENTRY));
	k = palloc(KEY_SIZE(nwords));
	v = simhash_datum_words(entry->key, nwords, &one);
	memcpy(AND_BITS(k), v, sizeof(uint64) * nwords);
	memcpy(OR_BITS(k, nwords), v, sizeof(uint64) * nwords);
	gistentryinit(*retval, PointerGetDatum(k), entry->rel, entry->page,
				  entry->offset, false);
	return PointerGetDatum(retval);
}

/* fetch: the fingerprint of a leaf key, for index-only scans */
static inline Datum
gist_fetch(FunctionCallInfo fcinfo, int nwords)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	GISTENTRY  *retval = palloc(sizeof(GISTENTRY));
	uint64		one;
	uint64	   *v = simhash_new_words(nwords, &one);

	memcpy(v, AND_BITS(entry_key(entry)), sizeof(uint64) * nwords);
	gistentryinit(*retval, simhash_words_datum(v, nwords), entry->rel,
				  entry->page, entry->offset, false);
	return PointerGetDatum(retval);
}

/*
 * The lower bound of the Hamming distance from q to the fingerprints below
 * the entry of a consistent or distance call (arguments entry, query,
 * strategy, subtype, recheck); exact on a leaf, so never rechecked.  The
 * strategy must be the one the caller answers.
 */
static inline int
entry_lower_bound(FunctionCallInfo fcinfo, StrategyNumber answered,
				  const uint64 *q, int nwords)
{
	GISTENTRY  *entry = (GISTENTRY *) PG_GETARG_POINTER(0);
	StrategyNumber strategy = (StrategyNumber) PG_GETARG_UINT16(2);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(4);

	if (strategy != answered)
		elog(ERROR, "unrecognized strategy number: %d", strategy);
	*recheck = false;
	return key_lower_bound(entry_key(entry), q, nwords);
}

/* consistent(entry, ball, ...): may the subtree hold a fingerprint in the ball? */
static inline Datum
gist_consistent(FunctionCallInfo fcinfo, int nwords)
{
	void	   *ball = PG_GETARG_POINTER(1);

	PG_RETURN_BOOL(entry_lower_bound(fcinfo, SIMHASH_WITHIN_STRATEGY,
									 simhash_ball_center(ball, nwords), nwords) <=
				   *simhash_ball_radius(ball, nwords));
}

/* distance(entry, fingerprint, ...): lower bound below, exact on a leaf */
static inline Datum
gist_distance(FunctionCallInfo fcinfo, int nwords)
{
	uint64		one;

	PG_RETURN_FLOAT8((float8) entry_lower_bound(fcinfo, SIMHASH_DISTANCE_STRATEGY,
												simhash_arg_words(fcinfo, 1, nwords, &one),
												nwords));
}

/* union: AND of the and_bits, OR of the or_bits */
static inline Datum
gist_union(FunctionCallInfo fcinfo, int nwords)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	int		   *sizep = (int *) PG_GETARG_POINTER(1);
	uint64	   *u = palloc(KEY_SIZE(nwords));
	int			i;

	key_init(u, nwords);
	for (i = 0; i < entryvec->n; i++)
		key_merge(u, entry_key(&entryvec->vector[i]), nwords);
	*sizep = KEY_SIZE(nwords);
	return PointerGetDatum(u);
}

/* penalty: how many more bits the subtree leaves unfixed */
static inline Datum
gist_penalty(FunctionCallInfo fcinfo, int nwords)
{
	const uint64 *o = entry_key((GISTENTRY *) PG_GETARG_POINTER(0));
	float	   *penalty = (float *) PG_GETARG_POINTER(2);

	*penalty = (float) (union_spread(o, entry_key((GISTENTRY *) PG_GETARG_POINTER(1)), nwords) -
						union_spread(o, NULL, nwords));
	return PointerGetDatum(penalty);
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
farthest_entry(GistEntryVector *entryvec, const uint64 *from, int nwords)
{
	OffsetNumber i,
				far = FirstOffsetNumber;
	int			best = -1;

	for (i = FirstOffsetNumber; i < entryvec->n; i = OffsetNumberNext(i))
	{
		int			d = key_difference(from, entry_key(&entryvec->vector[i]), nwords);

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
static inline Datum
gist_picksplit(FunctionCallInfo fcinfo, int nwords)
{
	GistEntryVector *entryvec = (GistEntryVector *) PG_GETARG_POINTER(0);
	GIST_SPLITVEC *v = (GIST_SPLITVEC *) PG_GETARG_POINTER(1);
	OffsetNumber maxoff = entryvec->n - 1;
	int			n = maxoff - FirstOffsetNumber + 1;
	OffsetNumber i,
				seed_l,
				seed_r;
	const uint64 *sl,
			   *sr;
	uint64	   *ul,
			   *ur;
	SplitCost  *costs = palloc(sizeof(SplitCost) * n);
	int			j;

#define KEY(off) entry_key(&entryvec->vector[off])

	seed_l = farthest_entry(entryvec, KEY(FirstOffsetNumber), nwords);
	seed_r = farthest_entry(entryvec, KEY(seed_l), nwords);
	sl = KEY(seed_l);
	sr = KEY(seed_r);

	for (i = FirstOffsetNumber, j = 0; i <= maxoff; i = OffsetNumberNext(i), j++)
	{
		costs[j].off = i;
		costs[j].bias = union_spread(sl, KEY(i), nwords) -
			union_spread(sr, KEY(i), nwords);
	}
	qsort(costs, n, sizeof(SplitCost), split_cost_cmp);

	v->spl_left = palloc(sizeof(OffsetNumber) * n);
	v->spl_right = palloc(sizeof(OffsetNumber) * n);
	v->spl_nleft = v->spl_nright = 0;
	ul = palloc(KEY_SIZE(nwords));
	ur = palloc(KEY_SIZE(nwords));
	key_init(ul, nwords);
	key_init(ur, nwords);
	for (j = 0; j < n; j++)
	{
		if (j < n / 2)
		{
			v->spl_left[v->spl_nleft++] = costs[j].off;
			key_merge(ul, KEY(costs[j].off), nwords);
		}
		else
		{
			v->spl_right[v->spl_nright++] = costs[j].off;
			key_merge(ur, KEY(costs[j].off), nwords);
		}
	}
	v->spl_ldatum = PointerGetDatum(ul);
	v->spl_rdatum = PointerGetDatum(ur);
#undef KEY
	return PointerGetDatum(v);
}

/* same: identical keys */
static inline Datum
gist_same(FunctionCallInfo fcinfo, int nwords)
{
	bool	   *result = (bool *) PG_GETARG_POINTER(2);

	*result = memcmp(PG_GETARG_POINTER(0), PG_GETARG_POINTER(1), KEY_SIZE(nwords)) == 0;
	PG_RETURN_POINTER(result);
}

/*
 * Sorted build (GiST support function 11): leaves in the B-tree order of
 * their and_bits, the key's first words
 */
static inline Datum
gist_sortsupport(FunctionCallInfo fcinfo, int nwords)
{
	((SortSupport) PG_GETARG_POINTER(0))->comparator = simhash_words_comparator(nwords);
	PG_RETURN_VOID();
}

/* The entry points of each width, with the arguments of GiST's support functions */
#define GIST_FUNCS(P, N) \
	SIMHASH_ENTRY(P##_gist, N, gist, key_in) SIMHASH_ENTRY(P##_gist, N, gist, key_out) \
	SIMHASH_ENTRY(P##_gist, N, gist, compress) SIMHASH_ENTRY(P##_gist, N, gist, fetch) \
	SIMHASH_ENTRY(P##_gist, N, gist, consistent) SIMHASH_ENTRY(P##_gist, N, gist, distance) \
	SIMHASH_ENTRY(P##_gist, N, gist, union) SIMHASH_ENTRY(P##_gist, N, gist, penalty) \
	SIMHASH_ENTRY(P##_gist, N, gist, picksplit) SIMHASH_ENTRY(P##_gist, N, gist, same) \
	SIMHASH_ENTRY(P##_gist, N, gist, sortsupport)

SIMHASH_EACH_WIDTH(GIST_FUNCS)
