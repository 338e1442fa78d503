/*
 * batch_sort.c
 *		The radix sort of compact records, and the groups of equal 64-bit
 *		fingerprints built with it.
 *
 * The records are 16 bytes: a key (a fingerprint, its bits permuted by a
 * BitMap so that each segment of the search is contiguous, or an id) and a
 * row or group number.  A sort makes one scatter pass on the leading bits
 * into buckets of a few thousand records, then sorts each bucket on the rest
 * and hands it to a callback while it is in the CPU cache: the search
 * (batch_search.c) walks its nodes there, the grouping below collects runs
 * of equal fingerprints, simhash_clusters joins rows of equal ids.
 */
#include "batch_sort.h"

#include "utils/memutils.h"

#define BUCKET_TARGET		4096	/* records per bucket of the first pass */
#define MAX_SCATTER_BITS	11	/* at most 2048 buckets */

/* dest[b] is the new position of bit b */
void
simhash_batch_bitmap_init(BitMap *bm, const int *dest)
{
	int			byte,
				v,
				b;

	for (byte = 0; byte < 8; byte++)
		for (v = 0; v < 256; v++)
		{
			uint64		x = 0;

			for (b = 0; b < 8; b++)
				if (v & (1 << b))
					x |= UINT64CONST(1) << dest[byte * 8 + b];
			bm->tab[byte][v] = x;
		}
}


/* The key of element i: src[i] through the bit map, or xor flip */
static inline uint64
sort_key(const uint64 *src, uint32 i, const BitMap *bm, uint64 flip)
{
	return bm ? simhash_batch_bitmap_apply(bm, src[i]) : src[i] ^ flip;
}

/*
 * The places of the records r[0..n) (n > 16) sorted on the digit of
 * `width` (at most 8) key bits from bit `shift`, keeping the order of equal
 * digits: the records are taken as four quarters, each with its own counts
 * and places (pos[quarter][digit], the next place), so that the counts of a
 * frequent digit (skewed keys) are not one chain of dependent increments;
 * ends[d] is the end of the run of digit d.  Returns false, with ends set,
 * when all records have one digit (they are in order already).
 */
bool
simhash_batch_digit_places(const SortRec *r, uint32 n, int shift, int width,
						   uint32 pos[4][256], uint32 *ends)
{
	uint32		dmask = (1U << width) - 1;
	uint32		q = n / 4,
				i,
				d,
				sum = 0;
	const SortRec *r1 = r + q,
			   *r2 = r + 2 * q,
			   *r3 = r + 3 * q;

	for (i = 0; i < 4; i++)
		memset(pos[i], 0, sizeof(uint32) * (dmask + 1));
	for (i = 0; i < q; i++)
	{
		pos[0][(r[i].key >> shift) & dmask]++;
		pos[1][(r1[i].key >> shift) & dmask]++;
		pos[2][(r2[i].key >> shift) & dmask]++;
		pos[3][(r3[i].key >> shift) & dmask]++;
	}
	for (i = 4 * q; i < n; i++)
		pos[3][(r[i].key >> shift) & dmask]++;
	for (d = 0; d <= dmask; d++)
	{
		uint32		c0 = pos[0][d],
					c1 = pos[1][d],
					c2 = pos[2][d],
					c = c0 + c1 + c2 + pos[3][d];

		if (c == n)
		{
			/* one digit: already in order */
			for (i = 0; i <= dmask; i++)
				ends[i] = (i < d) ? 0 : n;
			return false;
		}
		pos[0][d] = sum;
		pos[1][d] = sum + c0;
		pos[2][d] = sum + c0 + c1;
		pos[3][d] = sum + c0 + c1 + c2;
		sum += c;
		ends[d] = sum;
	}
	return true;
}

/*
 * Sort r[0..n) (n > 16) on the digit of `width` (at most 8) key bits from
 * bit `shift`, through tmp (n records), keeping the order of equal digits;
 * ends[d] is the end of the run of digit d.
 */
void
simhash_batch_sort_digit(SortRec *r, SortRec *tmp, uint32 n, int shift,
						 int width, uint32 *ends)
{
	uint32		pos[4][256];

	if (!simhash_batch_digit_places(r, n, shift, width, pos, ends))
		return;
	simhash_batch_scatter_digit(r, n, shift, (1U << width) - 1, pos, tmp,
								NULL, NULL);
	memcpy(r, tmp, sizeof(SortRec) * n);
}

/*
 * Sort one bucket r[0..n) on key bits [lo, hi) (bit 0 least significant),
 * least significant digit first, 8 bits a pass, through tmp (n records).
 */
static void
sort_bucket(SortRec *r, SortRec *tmp, uint32 n, int lo, int hi)
{
	int			shift;

	if (n < 2 || hi <= lo)
		return;
	if (n <= 16)
	{
		uint64		mask = (hi - lo == 64) ? ~UINT64CONST(0) :
			(((UINT64CONST(1) << (hi - lo)) - 1) << lo);
		uint32		i,
					j;

		for (i = 1; i < n; i++)
		{
			SortRec		x = r[i];

			for (j = i; j > 0 && (r[j - 1].key & mask) > (x.key & mask); j--)
				r[j] = r[j - 1];
			r[j] = x;
		}
		return;
	}
	for (shift = lo; shift < hi; shift += 8)
	{
		uint32		ends[256];

		simhash_batch_sort_digit(r, tmp, n, shift, Min(8, hi - shift), ends);
	}
}

/*
 * Sort r[0..n) on key bits [lo, hi): through tmp (tmpcap records) when it
 * fits; otherwise (a large node of skewed keys, such as the fingerprints
 * whose segment is all zeros) in place on the top 8 bits of the range, by
 * following each misplaced record to its digit's next free place, and then
 * each part on the rest of the range.
 */
void
simhash_batch_sort_segment(SortRec *r, uint32 n, int lo, int hi,
						   SortRec *tmp, uint32 tmpcap)
{
	uint32		next[256],
				end[256];
	int			shift,
				width;
	uint32		dmask,
				d,
				i,
				sum = 0;

	if (n <= tmpcap || n <= 16)
	{
		sort_bucket(r, tmp, n, lo, hi);
		return;
	}
	width = Min(8, hi - lo);
	shift = hi - width;
	dmask = (1U << width) - 1;
	memset(end, 0, sizeof(uint32) * (dmask + 1));
	for (i = 0; i < n; i++)
		end[(r[i].key >> shift) & dmask]++;
	for (d = 0; d <= dmask; d++)
	{
		next[d] = sum;
		sum += end[d];
		end[d] = sum;
	}
	for (d = 0; d <= dmask; d++)
	{
		while (next[d] < end[d])
		{
			SortRec		x = r[next[d]];
			uint32		xd = (x.key >> shift) & dmask;

			/* carry x to its place, taking the record there along */
			while (xd != d)
			{
				SortRec		y = r[next[xd]];

				r[next[xd]++] = x;
				x = y;
				xd = (x.key >> shift) & dmask;
			}
			r[next[d]++] = x;
		}
		CHECK_FOR_INTERRUPTS();
	}
	if (shift > lo)
	{
		uint32		start = 0;

		for (d = 0; d <= dmask; d++)
		{
			if (end[d] - start > 1)
				simhash_batch_sort_segment(r + start, end[d] - start, lo, shift,
										   tmp, tmpcap);
			start = end[d];
			/* the parts may be sorted through tmp, which does not check */
			CHECK_FOR_INTERRUPTS();
		}
	}
}

/* The leading bits of the first pass of simhash_batch_sort_records */
static int
scatter_bits(uint32 n, int bits)
{
	int			rbits = 0;

	while (rbits < Min(bits, MAX_SCATTER_BITS) && ((Size) BUCKET_TARGET << rbits) < n)
		rbits++;
	return Max(rbits, 1);
}

/*
 * Sort the elements 0..n-1 of src by the top `bits` bits of their keys
 * (sort_key) into dst (n records of key and element number), and call fn
 * on every bucket of the first pass once it is sorted.  The first pass
 * scatters on the leading bits into buckets of about BUCKET_TARGET records;
 * each bucket is then sorted on its own, while it is in the CPU cache,
 * through tmp (simhash_batch_tmp_records(n) records; fn may use it too).
 */
void
simhash_batch_sort_records(const uint64 *src, uint32 n, const BitMap *bm,
						   uint64 flip, int bits, SortRec *dst, SortRec *tmp,
						   BucketFn fn, void *arg)
{
	int			rbits = scatter_bits(n, bits);
	uint32		nb,
				b,
				i;
	uint32	   *start;
	int			shift;

	if (n == 0)
		return;
	shift = 64 - rbits;
	nb = 1U << rbits;
	start = palloc0(sizeof(uint32) * (nb + 1));

	for (i = 0; i < n; i++)
	{
		start[(sort_key(src, i, bm, flip) >> shift) + 1]++;
		if ((i & INTERRUPT_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	for (b = 0; b < nb; b++)
		start[b + 1] += start[b];
	{
		uint32	   *pos = palloc(sizeof(uint32) * nb);

		memcpy(pos, start, sizeof(uint32) * nb);
		for (i = 0; i < n; i++)
		{
			uint64		key = sort_key(src, i, bm, flip);
			SortRec    *r = &dst[pos[key >> shift]++];

			r->key = key;
			r->row = i;
			r->pad = 0;
			if ((i & INTERRUPT_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		pfree(pos);
	}

	for (b = 0; b < nb; b++)
	{
		uint32		len = start[b + 1] - start[b];
		SortRec    *r = dst + start[b];

		if (len == 0)
			continue;
		if (bits > rbits)
			simhash_batch_sort_segment(r, len, 64 - bits, shift, tmp,
									   simhash_batch_tmp_records(n));
		fn(arg, r, len);
		CHECK_FOR_INTERRUPTS();
	}
	pfree(start);
}

/* ---------- groups of equal fingerprints ---------- */

typedef struct GroupBuild
{
	BatchInput *in;
	uint32		pos;			/* rows listed so far */
	int			rbits;			/* leading bits the bucket shares */
	SortRec    *tmp;			/* sort buffer, tmpcap records */
	uint32		tmpcap;
} GroupBuild;

/*
 * Whether r[0..n) holds a fingerprint twice, by a hash set of record
 * numbers in the sort buffer; true too when the set does not fit there.
 */
static bool
has_equal_keys(GroupBuild *gs, SortRec *r, uint32 n)
{
	uint32	   *slot = (uint32 *) gs->tmp;
	Size		nslots = 64,
				mask,
				i;
	int			logn = 6;

	while (nslots < 2 * (Size) n)
	{
		nslots *= 2;
		logn++;
	}
	if (nslots * sizeof(uint32) > gs->tmpcap * sizeof(SortRec))
		return true;
	mask = nslots - 1;
	memset(slot, 0, nslots * sizeof(uint32));
	for (i = 0; i < n; i++)
	{
		uint64		key = r[i].key;

		/* Fibonacci hashing: the top bits of the product mix all the bits */
		Size		s = (key * UINT64CONST(0x9E3779B97F4A7C15)) >> (64 - logn);

		while (slot[s] != 0)
		{
			if (r[slot[s] - 1].key == key)
				return true;
			s = (s + 1) & mask;
		}
		slot[s] = (uint32) (i + 1);
	}
	return false;
}

/*
 * Bucket callback: every run of equal fingerprints becomes a group.  The
 * bucket comes sorted on its leading bits only; it is sorted on the rest
 * when it holds a fingerprint twice (otherwise the order does not matter).
 */
static void
collect_groups(void *arg, SortRec *r, uint32 n)
{
	GroupBuild *gs = (GroupBuild *) arg;
	BatchInput *in = gs->in;
	uint32		i;

	if (n > 1 && has_equal_keys(gs, r, n))
		simhash_batch_sort_segment(r, n, 0, 64 - gs->rbits, gs->tmp, gs->tmpcap);
	for (i = 0; i < n; i++)
	{
		if (i == 0 || r[i].key != r[i - 1].key)
		{
			/* in->gfp is in->fps, which no longer serves: ngroups <= pos */
			in->gfp[in->ngroups] = r[i].key;
			in->gstart[in->ngroups] = gs->pos;
			in->ngroups++;
		}
		in->grow[gs->pos++] = r[i].row;
	}
}

/* order row numbers by their ids */
static int
cmp_ids(const void *x, const void *y, void *arg)
{
	const int64 *ids = (const int64 *) arg;
	int64		a = ids[*(const uint32 *) x];
	int64		b = ids[*(const uint32 *) y];

	return (a > b) - (a < b);
}

/*
 * Sort the rows by (64-bit) fingerprint and build the groups (gfp,
 * gstart); the rows of a group are put in id order, and the ids in group
 * order.  in->recs is left allocated as the sort area of the passes.
 */
void
simhash_batch_build_groups(BatchInput *in)
{
	GroupBuild	gs;
	uint32		g;

	in->recs = MemoryContextAllocHuge(CurrentMemoryContext,
									  sizeof(SortRec) * Max(in->n, 1));
	in->grow = MemoryContextAllocHuge(CurrentMemoryContext,
									  sizeof(uint32) * Max(in->n, 1));
	in->gstart = MemoryContextAllocHuge(CurrentMemoryContext,
										sizeof(uint32) * (in->n + 1));
	in->gfp = in->fps;
	in->ngroups = 0;
	gs.in = in;
	gs.pos = 0;
	gs.tmpcap = simhash_batch_tmp_records(in->n);
	gs.tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * gs.tmpcap);
	/* sorted on the leading bits; collect_groups sorts a bucket further */
	gs.rbits = scatter_bits(in->n, 64);
	simhash_batch_sort_records(in->fps, in->n, NULL, 0, gs.rbits, in->recs,
							   gs.tmp, collect_groups, &gs);
	pfree(gs.tmp);
	in->gstart[in->ngroups] = in->n;
	in->fps = NULL;

	for (g = 0; g < in->ngroups; g++)
	{
		uint32		len = in->gstart[g + 1] - in->gstart[g];

		if (len > 1)
			qsort_arg(in->grow + in->gstart[g], len, sizeof(uint32), cmp_ids, in->ids);
		if ((g & INTERRUPT_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
	}

	/* the ids in group order, through the sort area (n * 16 bytes) */
	{
		int64	   *ordered = (int64 *) in->recs;
		uint32		i;

		for (i = 0; i < in->n; i++)
		{
			ordered[i] = in->ids[in->grow[i]];
			if ((i & INTERRUPT_MASK) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		memcpy(in->ids, ordered, sizeof(int64) * in->n);
	}
	pfree(in->grow);
	in->grow = NULL;
}

