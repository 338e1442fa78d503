/*
 * batch_kernels.c
 *		The loops of the 64-bit search that measure every pair of a node
 *		and report those within k: portable, with the POPCNT instruction,
 *		with AVX2 (four distances at a time, counted by nibble lookup) and
 *		with AVX-512 VPOPCNTQ (eight at a time) where the CPU has them.
 *		Kept apart, like any code built for other CPU targets, so that the
 *		rest of the search is plain C; the CPU is asked once per backend,
 *		and the setting simhash.batch_kernel can name one loop (to compare
 *		them, in tests and bench/batch).
 */
#include "batch_kernels.h"

#include "port/pg_bitutils.h"
#include "utils/guc.h"

/*
 * Costs of measuring one candidate pair, in units of about 0.3 ns (one
 * pair measured by the AVX-512 loop taking eight pairs per load), for the
 * cost model of batch_search.c; measured with bench/batch.
 */
#define PAIR_COST_AVX512	0.4 /* one pair measured, 32 per load */
#define PAIR_COST_AVX2		1.1 /* the same, four per vector (1M rows) */
#define PAIR_COST_POPCNT	2.5 /* the same, one at a time with POPCNT */
#define PAIR_COST_PORTABLE	4.0 /* the same with pg_popcount64 */

/*
 * x86-64 with GCC or clang: a copy of the comparison loop built for POPCNT,
 * and ones for AVX2 and AVX-512 VPOPCNTQ (GCC 8 or later, or clang),
 * chosen at run time from what the CPU supports.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIMHASH_POPCNT_TARGET 1
#define simhash_attribute_target(t) __attribute__((target(t)))
#if defined(__clang__) || __GNUC__ >= 8
#define SIMHASH_AVX2_TARGET 1
#define SIMHASH_AVX512_TARGET 1
#include <immintrin.h>
#endif
#endif

/* The values of simhash.batch_kernel */
typedef enum BatchKernel
{
	BATCH_KERNEL_AUTO,
	BATCH_KERNEL_PORTABLE,
	BATCH_KERNEL_POPCNT,
	BATCH_KERNEL_AVX2,
	BATCH_KERNEL_AVX512
} BatchKernel;

static const struct config_enum_entry batch_kernel_options[] = {
	{"auto", BATCH_KERNEL_AUTO, false},
	{"portable", BATCH_KERNEL_PORTABLE, false},
	{"popcnt", BATCH_KERNEL_POPCNT, false},
	{"avx2", BATCH_KERNEL_AVX2, false},
	{"avx512", BATCH_KERNEL_AVX512, false},
	{NULL, 0, false}
};

static int	batch_kernel = BATCH_KERNEL_AUTO;

/*
 * The loops start on a cache line: their speed then does not depend on
 * where the linker happens to place this file (up to 5% on their inner
 * loops otherwise, measured with GCC 14 on x86-64).
 */
#if defined(__GNUC__) || defined(__clang__)
#define KERNEL_ALIGN __attribute__((aligned(64)))
#else
#define KERNEL_ALIGN
#endif

/*
 * Report the pair (i, j) of the node measured (its rows rows[i * rstride];
 * distance d, x the xor of their keys) when no segment outside the current
 * prefix and before its end agrees: a pair is reported under its first
 * agreeing segments only.
 */
static void
report_pair(PairScan *sc, const uint32 *rows, uint32 i, uint32 j, uint64 x, int d)
{
	int			bb;

	for (bb = 0; bb < sc->nbefore; bb++)
		if ((x & sc->before[bb]) == 0)
			return;
	sc->cb(sc->arg, rows[i * sc->rstride], rows[j * sc->rstride], d);
	sc->npairs++;
}

/*
 * Measure every pair of the node r[0..n), whose keys are keys[0], keys[stride],
 * ..., and report those within k (report_pair).  Four distances are taken
 * at a time and tested together: nearly all candidates are far.  With
 * builtin_popcount the distance is __builtin_popcountll, compiled to the
 * POPCNT instruction in scan_popcnt; otherwise PostgreSQL's pg_popcount64
 * (a call through a pointer on x86).
 */
#ifdef SIMHASH_POPCNT_TARGET
#define KEY_DISTANCE(x) (builtin_popcount ? __builtin_popcountll(x) : pg_popcount64(x))
#else
#define KEY_DISTANCE(x) pg_popcount64(x)
#endif

static pg_attribute_always_inline void
scan_body(PairScan *sc, const uint64 *keys, Size stride, const uint32 *rows,
		  uint32 n, bool builtin_popcount)
{
	int			k = sc->k;
	uint32		i;

	for (i = 0; i + 1 < n; i++)
	{
		uint64		a = keys[i * stride];
		uint32		j = i + 1;

		simhash_batch_work(&sc->work, n - i);
		for (; j + 4 <= n; j += 4)
		{
			uint64		x0 = a ^ keys[j * stride],
						x1 = a ^ keys[(j + 1) * stride],
						x2 = a ^ keys[(j + 2) * stride],
						x3 = a ^ keys[(j + 3) * stride];
			int			d0 = KEY_DISTANCE(x0),
						d1 = KEY_DISTANCE(x1),
						d2 = KEY_DISTANCE(x2),
						d3 = KEY_DISTANCE(x3);

			if (Min(Min(d0, d1), Min(d2, d3)) > k)
				continue;
			if (d0 <= k)
				report_pair(sc, rows, i, j, x0, d0);
			if (d1 <= k)
				report_pair(sc, rows, i, j + 1, x1, d1);
			if (d2 <= k)
				report_pair(sc, rows, i, j + 2, x2, d2);
			if (d3 <= k)
				report_pair(sc, rows, i, j + 3, x3, d3);
		}
		for (; j < n; j++)
		{
			uint64		x = a ^ keys[j * stride];
			int			d = KEY_DISTANCE(x);

			if (d <= k)
				report_pair(sc, rows, i, j, x, d);
		}
	}
}

KERNEL_ALIGN
static void
scan_portable(PairScan *sc, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	scan_body(sc, keys, stride, rows, n, false);
}

#ifdef SIMHASH_POPCNT_TARGET
simhash_attribute_target("popcnt") KERNEL_ALIGN
static void
scan_popcnt(PairScan *sc, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	scan_body(sc, keys, stride, rows, n, true);
}
#endif

#ifdef SIMHASH_AVX512_TARGET
/*
 * The hits of the eight keys i .. i + 7 against the keys j .. j + 7: bit
 * 8p + q of hits is the pair (i + p, j + q); report them.
 */
simhash_attribute_target("popcnt")
static pg_noinline void
report_block(PairScan *sc, const uint64 *keys, const uint32 *rows, uint32 i,
			 uint32 j, uint64 hits)
{
	while (hits != 0)
	{
		int			b = __builtin_ctzll(hits);
		uint32		p = i + (b >> 3),
					q = j + (b & 7);
		uint64		x = keys[p] ^ keys[q];

		report_pair(sc, rows, p, q, x, __builtin_popcountll(x));
		hits &= hits - 1;
	}
}

/*
 * scan_body for contiguous keys (stride 1) with AVX-512: eight distances at
 * a time (VPOPCNTQ), compared with k into a mask of the hits.  The keys
 * are taken in blocks of eight: the pairs inside a block from one load
 * (the lanes after each key), then the block's eight keys against each
 * load of eight later keys, so that a load serves 64 pairs.
 */
simhash_attribute_target("popcnt,avx512f,avx512vpopcntdq") KERNEL_ALIGN
static void
scan_avx512(PairScan *sc, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	__m512i		kv = _mm512_set1_epi64(sc->k);
	uint32		i,
				p,
				j;

	Assert(stride == 1);
	for (i = 0; i + 1 < n; i += 8)
	{
		uint32		ilen = Min(8, n - i);
		__mmask8	ilive = (__mmask8) ((1U << ilen) - 1);
		__m512i		y = _mm512_maskz_loadu_epi64(ilive, keys + i);

		simhash_batch_work(&sc->work, (uint64) 8 * (n - i));
		/* the pairs inside the block: key p against the lanes after it */
		for (p = 0; p + 1 < ilen; p++)
		{
			__mmask8	after = (__mmask8) (ilive & (0xFF << (p + 1)));
			__mmask8	hit = _mm512_mask_cmple_epu64_mask(after,
														   _mm512_popcnt_epi64(_mm512_xor_si512(y, _mm512_set1_epi64((long long) keys[i + p]))), kv);

			if (hit != 0)
				report_block(sc, keys, rows, i, i, (uint64) hit << (8 * p));
		}
		if (ilen < 8)
			break;				/* no keys after the block */
		{
			__m512i		a0 = _mm512_set1_epi64((long long) keys[i]),
						a1 = _mm512_set1_epi64((long long) keys[i + 1]),
						a2 = _mm512_set1_epi64((long long) keys[i + 2]),
						a3 = _mm512_set1_epi64((long long) keys[i + 3]),
						a4 = _mm512_set1_epi64((long long) keys[i + 4]),
						a5 = _mm512_set1_epi64((long long) keys[i + 5]),
						a6 = _mm512_set1_epi64((long long) keys[i + 6]),
						a7 = _mm512_set1_epi64((long long) keys[i + 7]);

			for (j = i + 8; j < n; j += 8)
			{
				__mmask8	live = (n - j >= 8) ? 0xFF : (__mmask8) ((1U << (n - j)) - 1);
				__m512i		x = _mm512_maskz_loadu_epi64(live, keys + j);
				__m512i		d0 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a0)),
							d1 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a1)),
							d2 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a2)),
							d3 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a3)),
							d4 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a4)),
							d5 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a5)),
							d6 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a6)),
							d7 = _mm512_popcnt_epi64(_mm512_xor_si512(x, a7));
				__m512i		least = _mm512_min_epu64(_mm512_min_epu64(_mm512_min_epu64(d0, d1),
																	  _mm512_min_epu64(d2, d3)),
													 _mm512_min_epu64(_mm512_min_epu64(d4, d5),
																	  _mm512_min_epu64(d6, d7)));

				/* nearly always no hit: one test for the 64 pairs */
				if (likely(_mm512_mask_cmple_epu64_mask(live, least, kv) == 0))
					continue;
				report_block(sc, keys, rows, i, j,
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d0, kv) |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d1, kv) << 8 |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d2, kv) << 16 |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d3, kv) << 24 |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d4, kv) << 32 |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d5, kv) << 40 |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d6, kv) << 48 |
							 (uint64) _mm512_mask_cmple_epu64_mask(live, d7, kv) << 56);
			}
		}
	}
}
#endif

#ifdef SIMHASH_AVX2_TARGET
/*
 * The distances of the four pairs of x (the xors of their keys), one in the
 * low bits of each 64-bit lane: AVX2 has no popcount of its own, so each
 * byte's bits are counted by looking up its two nibbles (VPSHUFB), and the
 * eight byte counts of a lane summed (VPSADBW against zero).
 */
simhash_attribute_target("avx2")
static inline __m256i
distances_avx2(__m256i x)
{
	const __m256i nibble_bits = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
												 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
	const __m256i low = _mm256_set1_epi8(0x0F);
	__m256i		lo = _mm256_and_si256(x, low),
				hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
	__m256i		bytes = _mm256_add_epi8(_mm256_shuffle_epi8(nibble_bits, lo),
										_mm256_shuffle_epi8(nibble_bits, hi));

	return _mm256_sad_epu8(bytes, _mm256_setzero_si256());
}

/* The lanes of a vector of four keys turned by one, two and three places */
#define ROTATE1(v) _mm256_permute4x64_epi64((v), _MM_SHUFFLE(0, 3, 2, 1))
#define ROTATE2(v) _mm256_permute4x64_epi64((v), _MM_SHUFFLE(1, 0, 3, 2))
#define ROTATE3(v) _mm256_permute4x64_epi64((v), _MM_SHUFFLE(2, 1, 0, 3))

/*
 * Lane-wise least of two vectors of distances: a distance is at most 255,
 * so the high half of every lane is zero and the 32-bit minimum serves.
 */
#define LEAST(a, b) _mm256_min_epu32((a), (b))

/* Whether a lane of least is at most k (kv: k + 1 in every lane) */
#define ANY_WITHIN(least, kv) (_mm256_movemask_epi8(_mm256_cmpgt_epi64((kv), (least))) != 0)

/*
 * Report the pairs within k among the four keys i .. i + 3 (inside, when j
 * == i) or between them and the four keys j .. j + 3.
 */
simhash_attribute_target("popcnt")
static pg_noinline void
report_quad(PairScan *sc, const uint64 *keys, const uint32 *rows, uint32 i, uint32 j)
{
	uint32		p,
				q;

	for (p = i; p < i + 4; p++)
		for (q = (j == i ? p + 1 : j); q < j + 4; q++)
		{
			uint64		x = keys[p] ^ keys[q];
			int			d = __builtin_popcountll(x);

			if (d <= sc->k)
				report_pair(sc, rows, p, q, x, d);
		}
}

/*
 * A node of 4 to 32 keys at any stride (most nodes are small): the keys
 * are gathered into four-key vectors, the last padded, and the least
 * distance of all pairs is taken with one test at the end; a pad lane
 * counts 255 so that it is never near.  Nearly every node has no pair
 * within k; one that has is measured again by scan_popcnt, which reports.
 */
simhash_attribute_target("popcnt,avx2") KERNEL_ALIGN
static void
scan_avx2_small(PairScan *sc, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	uint64		buf[32] pg_attribute_aligned(32);
	uint64		pad[32] pg_attribute_aligned(32);
	uint32		nv = (n + 3) / 4,
				i,
				a,
				b;
	__m256i		least = _mm256_set1_epi64x(255);

	Assert(n >= 4 && n <= 32);
	for (i = 0; i < n; i++)
	{
		buf[i] = keys[i * stride];
		pad[i] = 0;
	}
	for (; i < nv * 4; i++)
	{
		buf[i] = 0;
		pad[i] = 255;
	}
	simhash_batch_work(&sc->work, (uint64) n * (n - 1) / 2);
	for (a = 0; a < nv; a++)
	{
		__m256i		p = _mm256_load_si256((const __m256i *) (buf + 4 * a)),
					pp = _mm256_load_si256((const __m256i *) (pad + 4 * a));

		/* inside the vector: turning by one and by two meets every pair */
		least = LEAST(least, _mm256_or_si256(distances_avx2(_mm256_xor_si256(p, ROTATE1(p))),
											 _mm256_or_si256(pp, ROTATE1(pp))));
		least = LEAST(least, _mm256_or_si256(distances_avx2(_mm256_xor_si256(p, ROTATE2(p))),
											 _mm256_or_si256(pp, ROTATE2(pp))));
		for (b = a + 1; b < nv; b++)
		{
			__m256i		q = _mm256_load_si256((const __m256i *) (buf + 4 * b));
			__m256i		d0 = distances_avx2(_mm256_xor_si256(p, q)),
						d1 = distances_avx2(_mm256_xor_si256(p, ROTATE1(q))),
						d2 = distances_avx2(_mm256_xor_si256(p, ROTATE2(q))),
						d3 = distances_avx2(_mm256_xor_si256(p, ROTATE3(q)));

			/* only the last vector has pads; they turn with q */
			if (b == nv - 1 && n % 4 != 0)
			{
				__m256i		qp = _mm256_load_si256((const __m256i *) (pad + 4 * b));

				d0 = _mm256_or_si256(d0, qp);
				d1 = _mm256_or_si256(d1, ROTATE1(qp));
				d2 = _mm256_or_si256(d2, ROTATE2(qp));
				d3 = _mm256_or_si256(d3, ROTATE3(qp));
			}
			d0 = LEAST(LEAST(d0, d1), LEAST(d2, d3));
			least = LEAST(least, d0);
		}
	}
	if (ANY_WITHIN(least, _mm256_set1_epi64x(sc->k + 1)))
		scan_popcnt(sc, keys, stride, rows, n);
}

/*
 * Any node with AVX2.  Up to 32 keys: scan_avx2_small.  Larger nodes at
 * stride 1 in blocks of four keys: each block against itself (turned by
 * one and two) and against every later block (turned by none to three
 * places, 16 pairs a block), one test per block pair and report_quad on a
 * hit; the keys after the last full block against all before them one by
 * one.  Fewer than four keys, and large nodes at another stride (beyond
 * the sort buffer, rare), go to scan_popcnt.
 */
simhash_attribute_target("popcnt,avx2") KERNEL_ALIGN
static void
scan_avx2(PairScan *sc, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	__m256i		kv = _mm256_set1_epi64x(sc->k + 1);
	uint32		nfull = n & ~3U,
				i,
				j;

	if (n < 4 || (n > 32 && stride != 1))
	{
		scan_popcnt(sc, keys, stride, rows, n);
		return;
	}
	if (n <= 32)
	{
		scan_avx2_small(sc, keys, stride, rows, n);
		return;
	}
	for (i = 0; i < nfull; i += 4)
	{
		__m256i		p0 = _mm256_loadu_si256((const __m256i *) (keys + i));
		__m256i		p1 = ROTATE1(p0),
					p2 = ROTATE2(p0),
					p3 = ROTATE3(p0);

		simhash_batch_work(&sc->work, (uint64) 4 * (n - i));
		if (ANY_WITHIN(LEAST(distances_avx2(_mm256_xor_si256(p0, p1)),
							 distances_avx2(_mm256_xor_si256(p0, p2))), kv))
			report_quad(sc, keys, rows, i, i);
		for (j = i + 4; j < nfull; j += 4)
		{
			__m256i		q = _mm256_loadu_si256((const __m256i *) (keys + j));
			__m256i		least = LEAST(LEAST(distances_avx2(_mm256_xor_si256(p0, q)),
											distances_avx2(_mm256_xor_si256(p1, q))),
									  LEAST(distances_avx2(_mm256_xor_si256(p2, q)),
											distances_avx2(_mm256_xor_si256(p3, q))));

			/* nearly always no hit: one test for the 16 pairs */
			if (unlikely(ANY_WITHIN(least, kv)))
				report_quad(sc, keys, rows, i, j);
		}
	}
	for (j = nfull; j < n; j++)
		for (i = 0; i < j; i++)
		{
			uint64		x = keys[i] ^ keys[j];
			int			d = __builtin_popcountll(x);

			if (d <= sc->k)
				report_pair(sc, rows, i, j, x, d);
		}
}
#endif

/* Whether this CPU and build have the loop */
static bool
batch_kernel_available(int kernel)
{
	switch (kernel)
	{
		case BATCH_KERNEL_AUTO:
		case BATCH_KERNEL_PORTABLE:
			return true;
		case BATCH_KERNEL_POPCNT:
#ifdef SIMHASH_POPCNT_TARGET
			return __builtin_cpu_supports("popcnt");
#else
			return false;
#endif
		case BATCH_KERNEL_AVX2:
#ifdef SIMHASH_AVX2_TARGET
			return __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx2");
#else
			return false;
#endif
		case BATCH_KERNEL_AVX512:
#ifdef SIMHASH_AVX512_TARGET
			return __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("avx512f") &&
				__builtin_cpu_supports("avx512vpopcntdq");
#else
			return false;
#endif
	}
	return false;
}

/* simhash.batch_kernel names only a loop that this server can run */
static bool
check_batch_kernel(int *newval, void **extra, GucSource source)
{
	if (batch_kernel_available(*newval))
		return true;
	GUC_check_errcode(ERRCODE_INVALID_PARAMETER_VALUE);
	GUC_check_errdetail("This server's CPU or build lacks the instructions of that loop.");
	return false;
}

/* Define simhash.batch_kernel (from _PG_init) */
void
simhash_batch_kernels_define_guc(void)
{
	DefineCustomEnumVariable("simhash.batch_kernel",
							 "The loop that measures candidate pairs in simhash_pairs and simhash_clusters.",
							 "auto takes the fastest this CPU runs; the others name one, for comparing them.",
							 &batch_kernel,
							 BATCH_KERNEL_AUTO,
							 batch_kernel_options,
							 PGC_USERSET,
							 GUC_NOT_IN_SAMPLE,
							 check_batch_kernel, NULL, NULL);
}

/*
 * The loops for a search: those simhash.batch_kernel names, or with auto
 * the fastest the CPU runs (AVX-512 with VPOPCNTQ, AVX2, POPCNT, portable);
 * the loop for dense keys is the same but for AVX-512, whose loop takes
 * stride 1 only.
 */
const PairScanKernels *
simhash_batch_kernels(void)
{
	static PairScanKernels chosen;
	int			kernel = batch_kernel;

	if (kernel == BATCH_KERNEL_AUTO)
	{
		if (batch_kernel_available(BATCH_KERNEL_AVX512))
			kernel = BATCH_KERNEL_AVX512;
		else if (batch_kernel_available(BATCH_KERNEL_AVX2))
			kernel = BATCH_KERNEL_AVX2;
		else if (batch_kernel_available(BATCH_KERNEL_POPCNT))
			kernel = BATCH_KERNEL_POPCNT;
		else
			kernel = BATCH_KERNEL_PORTABLE;
	}
	chosen.scan = scan_portable;
	chosen.pair_cost = PAIR_COST_PORTABLE;
	switch (kernel)
	{
#ifdef SIMHASH_POPCNT_TARGET
		case BATCH_KERNEL_POPCNT:
			chosen.scan = scan_popcnt;
			chosen.pair_cost = PAIR_COST_POPCNT;
			break;
#endif
#ifdef SIMHASH_AVX2_TARGET
		case BATCH_KERNEL_AVX2:
			chosen.scan = scan_avx2;
			chosen.pair_cost = PAIR_COST_AVX2;
			break;
#endif
#ifdef SIMHASH_AVX512_TARGET
		case BATCH_KERNEL_AVX512:
			chosen.scan = scan_popcnt;
			chosen.pair_cost = PAIR_COST_AVX512;
			break;
#endif
		default:
			break;
	}
	chosen.scan_dense = chosen.scan;
#ifdef SIMHASH_AVX512_TARGET
	if (kernel == BATCH_KERNEL_AVX512)
		chosen.scan_dense = scan_avx512;
#endif
	return &chosen;
}
