/*
 * blocks.c
 *		Exact-match blocks of a fingerprint: the pigeonhole keys that place
 *		near-duplicates together when the rows are spread over machines.
 *
 * A W-bit fingerprint is cut into m = max(k + 1, W / 32) blocks of nearly
 * equal width.  Two fingerprints within k bits differ in at most k blocks,
 * so at least one of the m blocks is equal in both (Manku, Jain and Das
 * Sarma 2007, section 3): a table distributed by (block number, block
 * value) holds every pair within k together on the shard of some key.
 * Keys are stored (the distributed registry of the trigger keeps them), so
 * their layout is part of the fingerprint contract (doc/contract.md) and is
 * pinned by test vectors in sql/distributed.sql.
 */
#include "simhash.h"

#include "catalog/pg_type.h"
#include "utils/array.h"

/*
 * The number of blocks for radius k at width bits; k out of 0..bits/2 is
 * 22023 (beyond half the width every block would be a bit or two, and the
 * keys would no longer spread anything).
 */
int
simhash_block_count(int bits, int32 k, const char *fname)
{
	if (k < 0 || k > bits / 2)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: radius %d is out of range", fname, k),
				 errdetail("It must be between 0 and %d for a %d-bit fingerprint.",
						   bits / 2, bits),
				 k > bits / 2 && bits < SIMHASH_MAX_BITS ?
				 simhash_errhint_radius_width(k, bits) : 0));
	return Max(k + 1, bits / 32);
}

/*
 * Bits [start, start + len) of a fingerprint of nwords words, counted from
 * the most significant bit of word 0 (the order of its hex text), as an
 * unsigned number whose first bit is the most significant; len <= 32.
 */
static inline uint64
block_bits(const uint64 *words, int start, int len)
{
	uint64		v = 0;
	int			b;

	for (b = start; b < start + len; b++)
		v = (v << 1) | ((words[b / 64] >> (63 - b % 64)) & 1);
	return v;
}

/*
 * The key of block i of m at width bits: the block number in the high 32
 * bits, its value in the low 32 (a block is at most 32 bits wide).
 */
int64
simhash_block_key(const uint64 *words, int bits, int m, int i)
{
	int			start = (int) ((int64) i * bits / m);
	int			end = (int) ((int64) (i + 1) * bits / m);

	return ((int64) i << 32) | (int64) block_bits(words, start, end - start);
}

/*
 * The number of the first block (of m at width bits) in which a and b are
 * equal, or m when none is (they are more than m - 1 bits apart).
 */
int
simhash_first_equal_block(const uint64 *a, const uint64 *b, int bits, int m)
{
	uint64		x[SIMHASH_MAX_WORDS];
	int			w,
				i;

	for (w = 0; w < bits / SIMHASH_BITS; w++)
		x[w] = a[w] ^ b[w];
	for (i = 0; i < m; i++)
	{
		int			start = (int) ((int64) i * bits / m);
		int			end = (int) ((int64) (i + 1) * bits / m);

		if (block_bits(x, start, end - start) == 0)
			return i;
	}
	return m;
}

/* simhash_blocks for one width: the m keys, block 0 first */
static Datum
blocks_array(const uint64 *words, int nwords, int32 k)
{
	int			bits = nwords * SIMHASH_BITS;
	int			m = simhash_block_count(bits, k, "simhash_blocks");
	Datum	   *keys = palloc(sizeof(Datum) * m);
	int			i;

	for (i = 0; i < m; i++)
		keys[i] = Int64GetDatum(simhash_block_key(words, bits, m, i));
	return PointerGetDatum(construct_array(keys, m, INT8OID, sizeof(int64),
										   true, TYPALIGN_DOUBLE));
}

/*
 * simhash_blocks(fp simhash|simhash128|simhash256, k integer) returns bigint[]
 *		The m = max(k + 1, W / 32) block keys of fp for radius k: two
 *		fingerprints within k bits share at least one.  Errors:
 *		doc/simhash.md, "Distributed tables (Citus)".  Immutable, strict, parallel
 *		safe.
 */
PG_FUNCTION_INFO_V1(simhash_blocks);
Datum
simhash_blocks(PG_FUNCTION_ARGS)
{
	uint64		w = PG_GETARG_SIMHASH(0);

	PG_RETURN_DATUM(blocks_array(&w, 1, PG_GETARG_INT32(1)));
}

PG_FUNCTION_INFO_V1(simhash128_blocks);
Datum
simhash128_blocks(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(blocks_array(PG_GETARG_SIMHASH_WORDS(0), 2, PG_GETARG_INT32(1)));
}

PG_FUNCTION_INFO_V1(simhash256_blocks);
Datum
simhash256_blocks(PG_FUNCTION_ARGS)
{
	PG_RETURN_DATUM(blocks_array(PG_GETARG_SIMHASH_WORDS(0), 4, PG_GETARG_INT32(1)));
}
