/*
 * gin_wide_word.c
 *		GIN operator classes simhash128_gin_word_ops and
 *		simhash256_gin_word_ops: exact radius search whose keys carry most
 *		of a 64-bit word, so that false candidates are dropped inside the
 *		index instead of on the heap.
 *
 * Two levels of pigeonhole (multi-index hashing, Norouzi et al. 2012):
 * give word w of the fingerprint a radius r_w with sum(r_w + 1) = k + 1,
 * and segment s of word w (four 16-bit segments) a radius r_ws with
 * sum over s of (r_ws + 1) = r_w + 1.  A fingerprint within k of the
 * query is then within r_w of it in some word w (or it would differ in at
 * least k + 1 bits), and within r_ws in some segment s of that word.  The
 * lookups are those of simhash128_gin_ops / simhash256_gin_ops (the same
 * count of segment values), but each found key is measured against the
 * query on 60 bits of its word, and must be within r_w there.
 *
 * Each fingerprint is indexed under one int8 key per (word, segment): two
 * bits of w, two bits of s, then word w rotated left by 16 s bits (segment
 * s first) less its last four bits.  A query looks up every key prefix
 * (w, s, v), v within r_ws bits of the query's segment, as a partial
 * match; comparePartial measures each key found against the query on the
 * 60 bits it holds.  Every key is distinct, so the index is several times
 * the size of the segment classes' (whose posting lists compress); in
 * exchange a random row almost never reaches the heap: at 256 bits and
 * k = 32 a word radius is at most 8, and a random 60-bit string is within
 * 8 bits of another with probability 3e-9.
 *
 * As for every simhash class, the index is PostgreSQL's own GIN, WAL-logged
 * and crash-safe, and candidates are rechecked on the whole fingerprint.
 */
#include "simhash.h"

#include "access/gin.h"
#include "access/stratnum.h"

#include "gin_common.h"
#include "type/words.h"

#define SEGMENT_BITS		SIMHASH_GIN_SEGMENT_BITS
#define WORD_SEGMENTS		4
#define REST_BITS			44	/* bits of the word after the segment */
#define REST_MASK			((UINT64CONST(1) << REST_BITS) - 1)
#define MAX_QUERY_KEYS		16384	/* beyond this, scan the whole index */

#define KEY_SEGMENT_VALUE(key)	((uint32) (((uint64) (key) >> REST_BITS) & 0xFFFF))

/* The key of segment s of word w */
static inline uint64
word_key(uint64 word, int w, int s)
{
	return ((uint64) w << 62) | ((uint64) s << 60) |
		(simhash_gin_rotl64(word, SEGMENT_BITS * s) >> 4);
}

/*
 * What comparePartial needs of the query, per (word, segment): the
 * query's segment s of word w, the 44 bits after it, and r_w, the word's
 * radius.
 */
typedef SimHashGinPartial WordQuery;

/*
 * extractValue(simhashW, internal nkeys, internal nullFlags): the keys of
 * a fingerprint, four per word
 */
static inline Datum
gin_word_extract_value(FunctionCallInfo fcinfo, int nwords)
{
	const uint64 *words = PG_GETARG_SIMHASH_WORDS(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	Datum	   *keys = palloc(sizeof(Datum) * nwords * WORD_SEGMENTS);
	int			n = 0,
				w,
				s;

	for (w = 0; w < nwords; w++)
		for (s = 0; s < WORD_SEGMENTS; s++)
			keys[n++] = Int64GetDatum((int64) word_key(words[w], w, s));
	*nkeys = n;
	return PointerGetDatum(keys);
}

/*
 * extractQuery (its arguments: gin_common.h): the partial-match prefixes
 * (w, s, v).  A negative radius matches nothing; one needing more than
 * MAX_QUERY_KEYS prefixes scans the whole index instead (every row is
 * rechecked).
 */
static inline Datum
gin_word_extract_query(FunctionCallInfo fcinfo, int nwords)
{
	const SimHashWideBall *ball = (const SimHashWideBall *) PG_GETARG_POINTER(0);
	int32	   *nkeys = (int32 *) PG_GETARG_POINTER(1);
	bool	  **pmatch = (bool **) PG_GETARG_POINTER(3);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int			wradius[SIMHASH_MAX_WORDS];
	int			sradius[SIMHASH_MAX_WORDS][WORD_SEGMENTS];
	double		cap = 0;
	WordQuery  *wq;
	Datum	   *keys;
	int			n = 0,
				w,
				s,
				d;

	simhash_segment_radii(ball->radius, nwords, SIMHASH_BITS, wradius);
	for (w = 0; w < nwords; w++)
	{
		if (wradius[w] < 0)
		{
			for (s = 0; s < WORD_SEGMENTS; s++)
				sradius[w][s] = -1;
			continue;
		}
		cap += simhash_segment_radii(wradius[w], WORD_SEGMENTS, SEGMENT_BITS,
									 sradius[w]);
	}
	if (!simhash_gin_query_looks_up(fcinfo, ball->radius, cap, MAX_QUERY_KEYS))
		return PointerGetDatum(NULL);

	keys = palloc(sizeof(Datum) * (int) cap);
	*pmatch = palloc(sizeof(bool) * (int) cap);
	*extra_data = palloc(sizeof(Pointer) * (int) cap);
	wq = palloc(sizeof(WordQuery) * nwords * WORD_SEGMENTS);
	for (w = 0; w < nwords; w++)
	{
		for (s = 0; s < WORD_SEGMENTS; s++)
		{
			uint64		qkey = word_key(ball->center[w], w, s);
			WordQuery  *q = &wq[w * WORD_SEGMENTS + s];

			q->value = KEY_SEGMENT_VALUE(qkey);
			q->rest = qkey & REST_MASK;
			q->radius = wradius[w];
			for (d = 0; d <= sradius[w][s]; d++)
			{
				uint32		m;

				for (m = simhash_gin_first_mask(d); m < SIMHASH_GIN_MASK_END;
					 m = simhash_gin_next_mask(m, d))
				{
					keys[n] = Int64GetDatum((int64) (((uint64) w << 62) |
													 ((uint64) s << 60) |
													 ((uint64) (q->value ^ m) << REST_BITS)));
					(*pmatch)[n] = true;
					(*extra_data)[n] = (Pointer) q;
					n++;
				}
			}
		}
	}
	Assert(n == (int) cap);
	*nkeys = n;
	return PointerGetDatum(keys);
}

/*
 * simhash_wide_gin_word_compare_partial(int8 prefix, int8 key, int2
 *		strategy, internal extra_data)
 *		0 if the key's 60 bits of its word are within the word's radius of
 *		the query's, -1 if not, 1 once past the keys of the prefix.
 */
PG_FUNCTION_INFO_V1(simhash_wide_gin_word_compare_partial);
Datum
simhash_wide_gin_word_compare_partial(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(simhash_gin_partial_cmp((uint64) PG_GETARG_INT64(0),
											(uint64) PG_GETARG_INT64(1),
											REST_BITS,
											(const WordQuery *) PG_GETARG_POINTER(3)));
}

/*
 * May an item match?  Any key found (found[i] nonzero) passed
 * comparePartial; no keys at all is the whole-index scan.  The arguments
 * are those of the consistent functions.
 */
static bool
item_may_match(FunctionCallInfo fcinfo)
{
	return simhash_gin_any_found(PG_GETARG_INT32(3),
								 (const char *) PG_GETARG_POINTER(0));
}

/*
 * simhash_wide_gin_word_consistent, _triconsistent: both widths; always
 * rechecked on the heap (the keys lack four bits of each word)
 */
SIMHASH_GIN_CONSISTENT(simhash_wide_gin_word, item_may_match)

/*
 * The entry points of each width: simhashW_gin_word_extract_value,
 * _extract_query
 */
#define GIN_WORD_FUNCS(P, N) \
	SIMHASH_ENTRY(P##_gin_word, N, gin_word, extract_value) \
	SIMHASH_ENTRY(P##_gin_word, N, gin_word, extract_query)

SIMHASH_EACH_WIDE_WIDTH(GIN_WORD_FUNCS)
