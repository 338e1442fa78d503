/*
 * batch_kernels.c
 *		The loops of the 64-bit search that measure every pair of a node
 *		and report those within k: portable, with the POPCNT instruction, and
 *		with AVX-512 VPOPCNTQ (eight distances at a time) where the CPU has
 *		them.  Kept apart, like any code built for other CPU targets, so
 *		that the rest of the search is plain C; the CPU is asked once per
 *		backend, on first use (simhash_batch_kernels).
 */
#include "batch_kernels.h"

#include "port/pg_bitutils.h"

/*
 * Costs of measuring one candidate pair, in units of about 0.3 ns (one
 * pair measured by the AVX-512 loop taking eight pairs per load), for the
 * cost model of batch_search.c; measured with bench/batch.
 */
#define PAIR_COST_AVX512	0.4 /* one pair measured, 32 per load */
#define PAIR_COST_POPCNT	2.5 /* the same, one at a time with POPCNT */
#define PAIR_COST_PORTABLE	4.0 /* the same with pg_popcount64 */

/*
 * x86-64 with GCC or clang: a copy of the comparison loop built for POPCNT,
 * and one for AVX-512 VPOPCNTQ (GCC 8 or later, or clang), chosen at run
 * time from what the CPU supports.
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SIMHASH_POPCNT_TARGET 1
#define simhash_attribute_target(t) __attribute__((target(t)))
#if defined(__clang__) || __GNUC__ >= 8
#define SIMHASH_AVX512_TARGET 1
#include <immintrin.h>
#endif
#endif

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

/*
 * The loops for this CPU, chosen on first use and kept for the backend's
 * life: the popcnt loop where the CPU has POPCNT, and for dense keys the
 * AVX-512 loop where it has AVX512F and AVX512_VPOPCNTDQ.
 */
const PairScanKernels *
simhash_batch_kernels(void)
{
	static PairScanKernels chosen;
	static bool done = false;

	if (done)
		return &chosen;
	chosen.scan = scan_portable;
	chosen.pair_cost = PAIR_COST_PORTABLE;
#ifdef SIMHASH_POPCNT_TARGET
	if (__builtin_cpu_supports("popcnt"))
	{
		chosen.scan = scan_popcnt;
		chosen.pair_cost = PAIR_COST_POPCNT;
	}
#endif
	chosen.scan_dense = chosen.scan;
#ifdef SIMHASH_AVX512_TARGET
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
	{
		chosen.scan_dense = scan_avx512;
		chosen.pair_cost = PAIR_COST_AVX512;
	}
#endif
	done = true;
	return &chosen;
}
