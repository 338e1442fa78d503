/*
 * mih_kernels.c
 *		The loop of a pass over a code page: each code's Hamming distance to
 *		the query.  A copy built for the POPCNT instruction is chosen at run
 *		time where the CPU has it (PostgreSQL's pg_popcount64 is a call
 *		through a pointer on x86-64, several per code); kept apart, as
 *		batch_kernels.c is, because it is built for another CPU target.
 */
#include "mih.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define MIH_POPCNT_TARGET 1
#endif

/*
 * Distances of codes[0..n) (nwords words each) to q into out.  Inlined into
 * each copy below with a constant nwords, so that the word loop unrolls.
 */
static pg_attribute_always_inline void
distances_body(const uint64 *codes, int n, int nwords, const uint64 *q,
			   uint16 *out, bool builtin)
{
	int			i,
				w;

	for (i = 0; i < n; i++)
	{
		const uint64 *c = codes + (Size) i * nwords;
		int			d = 0;

		for (w = 0; w < nwords; w++)
		{
#ifdef MIH_POPCNT_TARGET
			if (builtin)
				d += __builtin_popcountll(c[w] ^ q[w]);
			else
#endif
				d += pg_popcount64(c[w] ^ q[w]);
		}
		out[i] = (uint16) d;
	}
}

static void
distances_portable_1(const uint64 *codes, int n, const uint64 *q, uint16 *out)
{
	distances_body(codes, n, 1, q, out, false);
}

static void
distances_portable_2(const uint64 *codes, int n, const uint64 *q, uint16 *out)
{
	distances_body(codes, n, 2, q, out, false);
}

static void
distances_portable_4(const uint64 *codes, int n, const uint64 *q, uint16 *out)
{
	distances_body(codes, n, 4, q, out, false);
}

#ifdef MIH_POPCNT_TARGET
__attribute__((target("popcnt")))
static void
distances_popcnt_1(const uint64 *codes, int n, const uint64 *q, uint16 *out)
{
	distances_body(codes, n, 1, q, out, true);
}

__attribute__((target("popcnt")))
static void
distances_popcnt_2(const uint64 *codes, int n, const uint64 *q, uint16 *out)
{
	distances_body(codes, n, 2, q, out, true);
}

__attribute__((target("popcnt")))
static void
distances_popcnt_4(const uint64 *codes, int n, const uint64 *q, uint16 *out)
{
	distances_body(codes, n, 4, q, out, true);
}
#endif

typedef void (*DistancesFn) (const uint64 *codes, int n, const uint64 *q, uint16 *out);

/*
 * The distances of n codes of nwords words (1, 2 or 4) to q; the loop for
 * this CPU is chosen on the first call and kept for the backend's life.
 */
void
mih_distances(const uint64 *codes, int n, int nwords, const uint64 *q, uint16 *out)
{
	static DistancesFn chosen[SIMHASH_MAX_WORDS + 1];

	if (chosen[1] == NULL)
	{
		DistancesFn fns[SIMHASH_MAX_WORDS + 1] = {NULL};

		fns[1] = distances_portable_1;
		fns[2] = distances_portable_2;
		fns[4] = distances_portable_4;
#ifdef MIH_POPCNT_TARGET
		if (__builtin_cpu_supports("popcnt"))
		{
			fns[1] = distances_popcnt_1;
			fns[2] = distances_popcnt_2;
			fns[4] = distances_popcnt_4;
		}
#endif
		memcpy(chosen, fns, sizeof(chosen));
	}
	Assert(nwords == 1 || nwords == 2 || nwords == 4);
	chosen[nwords] (codes, n, q, out);
}
