/*
 * gist_wide.c
 *		GiST operator classes simhash128_gist_ops and simhash256_gist_ops:
 *		radius search and exact nearest-neighbour ordering
 *		(ORDER BY fp <-> q LIMIT n) at 128 and 256 bits.
 *
 * The design of gist.c at every word: a key summarises a set of
 * fingerprints by the bits set in all of them (and_bits) and the bits set
 * in any (or_bits), nwords words each.  Where the two agree every
 * fingerprint below has the same bit, so the number of those fixed bits
 * that differ from the query bounds the distance to anything in the
 * subtree from below; on a leaf (and_bits = or_bits = the fingerprint) it
 * is the exact distance, so nothing is rechecked and index-only scans
 * return the fingerprint.  Splits gather fingerprints that agree on many
 * bits, and the sorted build orders leaves in the B-tree order.
 *
 * Key types simhash128_gist_key (32 bytes) and simhash256_gist_key (64
 * bytes): and_bits then or_bits.  Every function exists once per width, as
 * a thin entry point that passes the number of words.
 */
#include "simhash.h"

#include "access/gist.h"
#include "access/stratnum.h"
#include "lib/stringinfo.h"
#include "port/pg_bitutils.h"
#include "utils/sortsupport.h"

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

/* B-tree order of the and_bits: word 0 first, unsigned */
static inline int
key_cmp(const uint64 *a, const uint64 *b, int nwords)
{
	int			i;

	for (i = 0; i < nwords; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/*
 * simhashW_gist_key_in / _out: the storage type's text form, for debugging
 * (pageinspect); it is never written by users.
 */
static Datum
gist_key_in(int nwords)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("cannot accept a value of type %s",
					nwords == 2 ? "simhash128_gist_key" : "simhash256_gist_key")));
	return (Datum) 0;
}

static Datum
gist_key_out(const uint64 *k, int nwords)
{
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
static Datum
gist_compress(GISTENTRY *entry, int nwords)
{
	GISTENTRY  *retval;
	uint64	   *k;
	const uint64 *v;

	if (!entry->leafkey)
		return PointerGetDatum(entry);
	retval = palloc(sizeof(GISTENTRY));
	k = palloc(KEY_SIZE(nwords));
	v = (const uint64 *) DatumGetPointer(entry->key);
	memcpy(AND_BITS(k), v, sizeof(uint64) * nwords);
	memcpy(OR_BITS(k, nwords), v, sizeof(uint64) * nwords);
	gistentryinit(*retval, PointerGetDatum(k), entry->rel, entry->page,
				  entry->offset, false);
	return PointerGetDatum(retval);
}

/* fetch: the fingerprint of a leaf key, for index-only scans */
static Datum
gist_fetch(GISTENTRY *entry, int nwords)
{
	GISTENTRY  *retval = palloc(sizeof(GISTENTRY));
	uint64	   *v = palloc(sizeof(uint64) * nwords);

	memcpy(v, AND_BITS(entry_key(entry)), sizeof(uint64) * nwords);
	gistentryinit(*retval, PointerGetDatum(v), entry->rel, entry->page,
				  entry->offset, false);
	return PointerGetDatum(retval);
}

/*
 * The lower bound of the Hamming distance from q to the fingerprints below
 * the entry of a consistent or distance call (arguments entry, query,
 * strategy, subtype, recheck); exact on a leaf, so never rechecked.  The
 * strategy must be the one the caller answers.
 */
static int
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
static Datum
gist_consistent(FunctionCallInfo fcinfo, int nwords)
{
	SimHashWideBall *ball = (SimHashWideBall *) PG_GETARG_POINTER(1);

	PG_RETURN_BOOL(entry_lower_bound(fcinfo, SIMHASH_WITHIN_STRATEGY,
									 ball->center, nwords) <= ball->radius);
}

/* distance(entry, simhashW, ...): lower bound below, exact on a leaf */
static Datum
gist_distance(FunctionCallInfo fcinfo, int nwords)
{
	PG_RETURN_FLOAT8((float8) entry_lower_bound(fcinfo, SIMHASH_DISTANCE_STRATEGY,
												PG_GETARG_SIMHASH_WORDS(1), nwords));
}

/* union: AND of the and_bits, OR of the or_bits */
static Datum
gist_union(GistEntryVector *entryvec, int *sizep, int nwords)
{
	uint64	   *u = palloc(KEY_SIZE(nwords));
	int			i;

	key_init(u, nwords);
	for (i = 0; i < entryvec->n; i++)
		key_merge(u, entry_key(&entryvec->vector[i]), nwords);
	*sizep = KEY_SIZE(nwords);
	return PointerGetDatum(u);
}

/* penalty: how many more bits the subtree leaves unfixed */
static Datum
gist_penalty(GISTENTRY *orig, GISTENTRY *add, float *penalty, int nwords)
{
	const uint64 *o = entry_key(orig);

	*penalty = (float) (union_spread(o, entry_key(add), nwords) -
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
static Datum
gist_picksplit(GistEntryVector *entryvec, GIST_SPLITVEC *v, int nwords)
{
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

/* Sorted build (GiST support function 11): leaves in the B-tree order */
static int
key_cmp_128(Datum x, Datum y, SortSupport ssup)
{
	return key_cmp((const uint64 *) DatumGetPointer(x),
				   (const uint64 *) DatumGetPointer(y), 2);
}

static int
key_cmp_256(Datum x, Datum y, SortSupport ssup)
{
	return key_cmp((const uint64 *) DatumGetPointer(x),
				   (const uint64 *) DatumGetPointer(y), 4);
}

/*
 * The entry points of each width, with the arguments of the GiST support
 * functions (see gist.c); same: identical keys.
 */
#define WIDE_GIST(W, N) \
PG_FUNCTION_INFO_V1(simhash##W##_gist_key_in); \
Datum simhash##W##_gist_key_in(PG_FUNCTION_ARGS) \
{ return gist_key_in(N); } \
PG_FUNCTION_INFO_V1(simhash##W##_gist_key_out); \
Datum simhash##W##_gist_key_out(PG_FUNCTION_ARGS) \
{ return gist_key_out((const uint64 *) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_gist_compress); \
Datum simhash##W##_gist_compress(PG_FUNCTION_ARGS) \
{ return gist_compress((GISTENTRY *) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_gist_fetch); \
Datum simhash##W##_gist_fetch(PG_FUNCTION_ARGS) \
{ return gist_fetch((GISTENTRY *) PG_GETARG_POINTER(0), N); } \
PG_FUNCTION_INFO_V1(simhash##W##_gist_consistent); \
Datum simhash##W##_gist_consistent(PG_FUNCTION_ARGS) \
{ return gist_consistent(fcinfo, N); } \
PG_FUNCTION_INFO_V1(simhash##W##_gist_distance); \
Datum simhash##W##_gist_distance(PG_FUNCTION_ARGS) \
{ return gist_distance(fcinfo, N); } \
PG_FUNCTION_INFO_V1(simhash##W##_gist_union); \
Datum simhash##W##_gist_union(PG_FUNCTION_ARGS) \
{ \
	return gist_union((GistEntryVector *) PG_GETARG_POINTER(0), \
					  (int *) PG_GETARG_POINTER(1), N); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_gist_penalty); \
Datum simhash##W##_gist_penalty(PG_FUNCTION_ARGS) \
{ \
	return gist_penalty((GISTENTRY *) PG_GETARG_POINTER(0), \
						(GISTENTRY *) PG_GETARG_POINTER(1), \
						(float *) PG_GETARG_POINTER(2), N); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_gist_picksplit); \
Datum simhash##W##_gist_picksplit(PG_FUNCTION_ARGS) \
{ \
	return gist_picksplit((GistEntryVector *) PG_GETARG_POINTER(0), \
						  (GIST_SPLITVEC *) PG_GETARG_POINTER(1), N); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_gist_same); \
Datum simhash##W##_gist_same(PG_FUNCTION_ARGS) \
{ \
	bool	   *result = (bool *) PG_GETARG_POINTER(2); \
\
	*result = memcmp(PG_GETARG_POINTER(0), PG_GETARG_POINTER(1), KEY_SIZE(N)) == 0; \
	PG_RETURN_POINTER(result); \
} \
PG_FUNCTION_INFO_V1(simhash##W##_gist_sortsupport); \
Datum simhash##W##_gist_sortsupport(PG_FUNCTION_ARGS) \
{ \
	((SortSupport) PG_GETARG_POINTER(0))->comparator = key_cmp_##W; \
	PG_RETURN_VOID(); \
}

WIDE_GIST(128, 2)
WIDE_GIST(256, 4)
