/*
 * batch_sort.h
 *		The radix sort of compact records (SortRec), and the groups of equal
 *		64-bit fingerprints built with it (batch_sort.c).
 */
#ifndef SIMHASH_BATCH_SORT_H
#define SIMHASH_BATCH_SORT_H

#include "batch_common.h"

/* Called on each bucket of sorted records; buckets come in key order */
typedef void (*BucketFn) (void *arg, SortRec *r, uint32 n);

extern void simhash_batch_bitmap_init(BitMap *bm, const int *dest);
extern bool simhash_batch_digit_places(const SortRec *r, uint32 n, int shift,
									   int width, uint32 pos[4][256], uint32 *ends);
extern void simhash_batch_sort_digit(SortRec *r, SortRec *tmp, uint32 n,
									 int shift, int width, uint32 *ends);
extern void simhash_batch_sort_segment(SortRec *r, uint32 n, int lo, int hi,
									   SortRec *tmp, uint32 tmpcap);
extern void simhash_batch_sort_records(const uint64 *src, uint32 n,
									   const BitMap *bm, uint64 flip, int bits,
									   SortRec *dst, SortRec *tmp,
									   BucketFn fn, void *arg);
extern void simhash_batch_build_groups(BatchInput *in);

/* Place record x at place p: into recs, or as its key and row */
static pg_attribute_always_inline void
simhash_batch_place_record(const SortRec *x, uint32 p, SortRec *recs,
						   uint64 *keys, uint32 *rows)
{
	if (recs)
		recs[p] = *x;
	else
	{
		keys[p] = x->key;
		rows[p] = x->row;
	}
}

/*
 * Move the records r[0..n) to the places simhash_batch_digit_places gave
 * them (pos, on the digit of dmask from bit shift), quarter by quarter as
 * they were counted: whole into recs, or (recs NULL) as keys and rows.
 * Inlined, so that each caller gets the loop for its own output.
 */
static pg_attribute_always_inline void
simhash_batch_scatter_digit(const SortRec *r, uint32 n, int shift, uint32 dmask,
							uint32 pos[4][256], SortRec *recs, uint64 *keys,
							uint32 *rows)
{
	uint32		q = n / 4,
				i;
	const SortRec *r1 = r + q,
			   *r2 = r + 2 * q,
			   *r3 = r + 3 * q;

	for (i = 0; i < q; i++)
	{
		uint32		p0 = pos[0][(r[i].key >> shift) & dmask]++,
					p1 = pos[1][(r1[i].key >> shift) & dmask]++,
					p2 = pos[2][(r2[i].key >> shift) & dmask]++,
					p3 = pos[3][(r3[i].key >> shift) & dmask]++;

		simhash_batch_place_record(&r[i], p0, recs, keys, rows);
		simhash_batch_place_record(&r1[i], p1, recs, keys, rows);
		simhash_batch_place_record(&r2[i], p2, recs, keys, rows);
		simhash_batch_place_record(&r3[i], p3, recs, keys, rows);
	}
	for (i = 4 * q; i < n; i++)
		simhash_batch_place_record(&r[i], pos[3][(r[i].key >> shift) & dmask]++,
								   recs, keys, rows);
}

#endif							/* SIMHASH_BATCH_SORT_H */
