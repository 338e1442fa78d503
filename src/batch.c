/*
 * batch.c
 *		All near-duplicate pairs of a set of fingerprints, and its clusters,
 *		in a few sorted passes (Manku, Jain, Das Sarma 2007, section 3).
 *
 * Rows sharing one fingerprint form a group: the fingerprints are sorted
 * once and each distinct fingerprint is kept with the list of its rows, so
 * that a run of equal fingerprints costs one entry in what follows, never a
 * pair per two rows (only simhash_pairs, whose output lists those pairs,
 * enumerates them).
 *
 * The 64 bits are cut into m segments.  Two fingerprints within distance k
 * differ in at most k segments, so they agree exactly on at least t = m - k
 * of them.  The distinct fingerprints are sorted on one segment c0, the runs
 * of equal c0 sorted again on a second segment c1 > c0, and so on (see
 * visit_node); pairs agreeing on a choice of t segments are neighbours in a
 * run, and each pair of a run is measured.  A pair agrees on several
 * choices; it is reported only under the first of them (its t lowest
 * agreeing segments), so it comes out exactly once.
 *
 * The segments are chosen from the data.  Two random fingerprints agree on
 * bit b with probability q_b = p_b^2 + (1 - p_b)^2, p_b the share of ones
 * in bit b; a bit is worth -log2(q_b) bits of separation (1 when balanced,
 * 0.68 when p_b = 1/4, 0 when constant).  The bits are dealt to the m
 * segments so that every segment is worth about the same, and m is chosen per
 * (number of fingerprints, k, total worth) to balance the sorts (m - t + 1
 * of all fingerprints, and of the runs below them) against the expected
 * length of the runs.
 *
 * Each top-level sort works on compact 16-byte records (the fingerprint
 * with its bits permuted so that each segment is contiguous and c0 comes
 * first, and the group number): one scatter pass on the leading bits into
 * buckets of a few thousand records, then each bucket is sorted on the rest
 * of c0 and its runs are handled while it is in the CPU cache, down the
 * tree.  A bit permutation keeps Hamming distances, so distances are taken
 * on the permuted fingerprints directly: the keys of a run are copied into
 * the idle sort buffer and compared eight at a time with AVX-512 where the
 * CPU has it (measure_node), and the cost model counts a comparison at what
 * the loop in use costs.
 *
 * simhash128 and simhash256 columns are read here and searched by
 * batch_wide.c, one 64-bit word at a time through this search (batch.h).
 */
#include "batch.h"

#include <math.h>

#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "tcop/pquery.h"
#include "port/pg_bitutils.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/tuplestore.h"

#define MAX_SEGMENTS			24
#define FETCH_ROWS			10000
#define PROGRESS_SECS		10
#define BUCKET_TARGET		4096	/* records per bucket of the first pass */
#define MAX_SCATTER_BITS	11	/* at most 2048 buckets */
/*
 * Costs of the work of the passes, in units of about 0.3 ns (one candidate
 * pair measured by an AVX-512 loop taking eight pairs per load); measured
 * with bench/batch.
 */
#define SORT_COST			60.0	/* one record through a top-level pass */
#define NODE_SORT_COST		16.0	/* one record sorted again in a node */
#define BIG_NODE_SORT_COST	32.0	/* the same in a node beyond the cache */
#define CACHE_RECORDS		16384	/* records of a node that fit in the cache */
#define PAIR_COST_AVX512	0.4 /* one pair measured, 32 per load */
#define PAIR_COST_POPCNT	2.5 /* the same, one at a time with POPCNT */
#define PAIR_COST_PORTABLE	4.0 /* the same with pg_popcount64 */
#define EMIT_INTERRUPT_MASK 0x3FF	/* output rows between checks */
#define SMALL_NODE			16	/* nodes up to this size are measured at once */

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

typedef enum BatchKind
{
	BATCH_PAIRS,
	BATCH_GROUP_PAIRS,
	BATCH_CLUSTERS
} BatchKind;

static const char *const batch_fname[] = {
	"simhash_pairs", "simhash_group_pairs", "simhash_clusters"
};

/*
 * Memory the arrays need, in bytes, at their peak: id 8, fingerprint 8
 * (then the group's), a 16-byte sort record, the group's row list and its
 * start 8, and at most 2 for the sort buffer of a bucket; simhash_clusters
 * adds 4 for the union-find parent.  A wide fingerprint of nwords words
 * takes 8 * nwords, and its search what simhash_batch_wide_memory says.
 * The output (tuplestore) is not counted: it spills to disk beyond
 * work_mem.
 */
static Size
batch_memory(Size nrows, BatchKind kind, int nwords)
{
	Size		per_row = sizeof(int64) + sizeof(SimHash) + sizeof(SortRec) +
		2 * sizeof(uint32) + sizeof(SortRec) / 8;

	if (nwords > 1)
		per_row += (nwords - 1) * sizeof(SimHash) + simhash_batch_wide_memory(nwords);
	if (kind == BATCH_CLUSTERS)
		per_row += sizeof(uint32);
	return nrows * per_row;
}

static void
check_memory(Size nrows, BatchKind kind, int nwords, bool more_to_come)
{
	Size		need = batch_memory(nrows, kind, nwords);

	if (need / 1024 > (Size) maintenance_work_mem)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs %s%zu MB of memory for %s%zu rows", batch_fname[kind],
						more_to_come ? "more than " : "",
						need / (1024 * 1024) + 1,
						more_to_come ? "more than " : "", nrows),
				 errdetail("It keeps %zu bytes per row in memory.", batch_memory(1, kind, nwords)),
				 errhint("Raise maintenance_work_mem (now %dkB) accordingly.",
						 maintenance_work_mem)));
}

/*
 * The receiver of the query's rows: each fetch of at most FETCH_ROWS rows
 * lands in fixed buffers (no tuple is copied; the memory is the same for
 * every fetch, so the fetches do not make the backend allocate, free and
 * fault in their tuples' memory again and again).
 */
typedef struct BatchReceiver
{
	DestReceiver pub;
	bool		columns_ok;		/* (id integer type, fp simhash_type) */
	Oid			idtype;
	Oid			simhash_type;	/* simhash, simhash128 or simhash256 */
	int			nwords;			/* its words: 1, 2 or 4 */
	uint32		nrows;			/* rows of this fetch */
	int64		ids[FETCH_ROWS];
	SimHash		fps[FETCH_ROWS * SIMHASH_MAX_WORDS];	/* nwords per row */
	bool		idnull[FETCH_ROWS];
	bool		fpnull[FETCH_ROWS];
} BatchReceiver;

/* Start of a fetch: whether the query's columns are (id, fp) */
static void
batch_recv_startup(DestReceiver *self, int operation, TupleDesc td)
{
	BatchReceiver *br = (BatchReceiver *) self;

	br->idtype = td->natts == 2 ? TupleDescAttr(td, 0)->atttypid : InvalidOid;
	br->columns_ok = td->natts == 2 &&
		(br->idtype == INT8OID || br->idtype == INT4OID || br->idtype == INT2OID) &&
		TupleDescAttr(td, 1)->atttypid == br->simhash_type;
}

/*
 * One row of a fetch: its id (as int64) and fingerprint, or their NULL
 * flags, into the buffers; nothing but the count when the columns are
 * wrong (the caller reports it once the fetch returned rows).
 */
static bool
batch_recv_slot(TupleTableSlot *slot, DestReceiver *self)
{
	BatchReceiver *br = (BatchReceiver *) self;
	uint32		i = br->nrows++;
	Datum		id,
				fp;

	Assert(i < FETCH_ROWS);
	if (!br->columns_ok)
		return true;			/* reported after the fetch */
	id = slot_getattr(slot, 1, &br->idnull[i]);
	fp = slot_getattr(slot, 2, &br->fpnull[i]);
	if (!br->idnull[i])
		br->ids[i] = br->idtype == INT8OID ? DatumGetInt64(id) :
			br->idtype == INT4OID ? DatumGetInt32(id) : DatumGetInt16(id);
	if (br->fpnull[i])
		return true;
	if (br->nwords == 1)
		br->fps[i] = DatumGetSimHash(fp);
	else
		memcpy(&br->fps[(Size) i * br->nwords], DatumGetPointer(fp),
			   sizeof(SimHash) * br->nwords);
	return true;
}

/* End of a fetch, or the receiver destroyed: nothing to do */
static void
batch_recv_nothing(DestReceiver *self)
{
}

/* SPI_prepare(query), a syntax error with a hint of what is wanted */
static SPIPlanPtr
prepare_query(const char *query, const char *fname)
{
	MemoryContext cxt = CurrentMemoryContext;
	SPIPlanPtr volatile plan = NULL;

	/* a table name where the query belongs is a syntax error: say so */
	PG_TRY();
	{
		plan = SPI_prepare(query, 0, NULL);
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (edata->sqlerrcode != ERRCODE_SYNTAX_ERROR || edata->hint != NULL)
			PG_RE_THROW();
		FlushErrorState();
		edata->hint = psprintf("The first argument of %s is a query returning (id, fingerprint), such as 'SELECT id, fp FROM docs'.",
							   fname);
		ReThrowError(edata);
	}
	PG_END_TRY();
	return plan;
}

/* The OID of the extension's type of that name */
static Oid
extension_type(FunctionCallInfo fcinfo, const char *name)
{
	Oid			nsp = get_func_namespace(fcinfo->flinfo->fn_oid);

	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
						   CStringGetDatum(name), ObjectIdGetDatum(nsp));
}

/*
 * The radius k: 0..16 for simhash, 0..W for a W-bit fingerprint, else
 * 22023.
 */
static void
check_radius(int32 k, int nwords, const char *fname)
{
	int			max = nwords == 1 ? MAX_BATCH_RADIUS : SIMHASH_BITS * nwords;

	if (k < 0 || k > max)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: radius %d is out of range", fname, k),
				 nwords == 1 ?
				 errdetail("It must be between 0 and %d.", max) :
				 errdetail("It must be between 0 and %d for simhash%d.", max, max)));
}

/*
 * Run the query (with the caller's privileges, read-only, as one cursor)
 * and collect its (id, fp) rows, FETCH_ROWS at a time; rows with a NULL
 * fingerprint are skipped.  The fingerprint column's type (simhash,
 * simhash128 or simhash256) sets in->nwords and the range of k, checked
 * before the first row is read.
 */
static void
read_input(const char *query, FunctionCallInfo fcinfo, BatchKind kind,
		   int32 k, BatchInput *in)
{
	const char *fname = batch_fname[kind];
	MemoryContext cxt = CurrentMemoryContext;
	Portal		portal;
	SPIPlanPtr	plan;
	Size		cap = 1024;
	BatchReceiver *br = palloc0(sizeof(BatchReceiver));
	Oid			fptype = InvalidOid;

	memset(in, 0, sizeof(BatchInput));
	in->ids = MemoryContextAllocHuge(cxt, cap * sizeof(int64));
	br->pub.receiveSlot = batch_recv_slot;
	br->pub.rStartup = batch_recv_startup;
	br->pub.rShutdown = batch_recv_nothing;
	br->pub.rDestroy = batch_recv_nothing;
	br->pub.mydest = DestNone;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = prepare_query(query, fname);
	if (plan == NULL)
		elog(ERROR, "%s: could not prepare the query: %s", fname,
			 SPI_result_code_string(SPI_result));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);

	/* the width: that of the second column, if it is a wide fingerprint */
	if (portal->tupDesc != NULL && portal->tupDesc->natts == 2)
		fptype = TupleDescAttr(portal->tupDesc, 1)->atttypid;
	in->nwords = 1;
	br->simhash_type = extension_type(fcinfo, "simhash");
	if (OidIsValid(fptype) && fptype != br->simhash_type)
	{
		if (fptype == extension_type(fcinfo, "simhash128"))
			in->nwords = 2;
		else if (fptype == extension_type(fcinfo, "simhash256"))
			in->nwords = 4;
		if (in->nwords > 1)
			br->simhash_type = fptype;
	}
	br->nwords = in->nwords;
	check_radius(k, in->nwords, fname);
	in->fps = MemoryContextAllocHuge(cxt, cap * sizeof(SimHash) * in->nwords);

	for (;;)
	{
		uint32		i;

		br->nrows = 0;
		PortalRunFetch(portal, FETCH_FORWARD, FETCH_ROWS, &br->pub);
		if (br->nrows == 0)
			break;
		if (!br->columns_ok)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: the query must return two columns, (id bigint, fp simhash)",
							fname),
					 errdetail("The fingerprint may also be a simhash128 or a simhash256; the id a bigint, an integer or a smallint.")));
		if (in->n + br->nrows > cap)
		{
			if ((Size) in->n + br->nrows >= PG_UINT32_MAX - 1)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("%s: too many rows", fname)));
			check_memory(in->n, kind, in->nwords, true);
			while (in->n + br->nrows > cap)
				cap *= 2;
			in->ids = repalloc_huge(in->ids, cap * sizeof(int64));
			in->fps = repalloc_huge(in->fps, cap * sizeof(SimHash) * in->nwords);
		}
		for (i = 0; i < br->nrows; i++)
		{
			if (br->fpnull[i])
				continue;
			if (br->idnull[i])
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s: id must not be null", fname)));
			in->ids[in->n] = br->ids[i];
			if (in->nwords == 1)
				in->fps[in->n] = br->fps[i];
			else
				memcpy(&in->fps[(Size) in->n * in->nwords], &br->fps[(Size) i * in->nwords],
					   sizeof(SimHash) * in->nwords);
			in->n++;
		}
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	pfree(br);
	check_memory(in->n, kind, in->nwords, false);
	/* give back the unused part of the last doubling before the sort area */
	if (cap > Max(in->n, 1))
	{
		in->ids = repalloc_huge(in->ids, Max(in->n, 1) * sizeof(int64));
		in->fps = repalloc_huge(in->fps, Max(in->n, 1) * sizeof(SimHash) * in->nwords);
	}
}

/* ---------- sorting compact records ---------- */

/* A permutation of the 64 bits, applied a byte at a time */
typedef struct BitMap
{
	uint64		tab[8][256];
} BitMap;

/* dest[b] is the new position of bit b */
static void
bitmap_init(BitMap *bm, const int *dest)
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

static inline uint64
bitmap_apply(const BitMap *bm, uint64 x)
{
	return bm->tab[0][x & 0xFF] | bm->tab[1][(x >> 8) & 0xFF] |
		bm->tab[2][(x >> 16) & 0xFF] | bm->tab[3][(x >> 24) & 0xFF] |
		bm->tab[4][(x >> 32) & 0xFF] | bm->tab[5][(x >> 40) & 0xFF] |
		bm->tab[6][(x >> 48) & 0xFF] | bm->tab[7][x >> 56];
}

/* Called on each bucket of sorted records; buckets come in key order */
typedef void (*BucketFn) (void *arg, SortRec *r, uint32 n);

/* The key of element i: src[i] through the bit map, or xor flip */
static inline uint64
sort_key(const uint64 *src, uint32 i, const BitMap *bm, uint64 flip)
{
	return bm ? bitmap_apply(bm, src[i]) : src[i] ^ flip;
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
static bool
digit_places(const SortRec *r, uint32 n, int shift, int width,
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

/* Place record x at place p: into recs, or as its key and row */
static pg_attribute_always_inline void
place_record(const SortRec *x, uint32 p, SortRec *recs, uint64 *keys, uint32 *rows)
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
 * Move the records r[0..n) to the places digit_places gave them (pos, on
 * the digit of dmask from bit shift), quarter by quarter as they were
 * counted: whole into recs, or (recs NULL) as keys and rows.  Inlined, so
 * that each caller gets the loop for its own output.
 */
static pg_attribute_always_inline void
scatter_digit(const SortRec *r, uint32 n, int shift, uint32 dmask,
			  uint32 pos[4][256], SortRec *recs, uint64 *keys, uint32 *rows)
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

		place_record(&r[i], p0, recs, keys, rows);
		place_record(&r1[i], p1, recs, keys, rows);
		place_record(&r2[i], p2, recs, keys, rows);
		place_record(&r3[i], p3, recs, keys, rows);
	}
	for (i = 4 * q; i < n; i++)
		place_record(&r[i], pos[3][(r[i].key >> shift) & dmask]++, recs, keys, rows);
}

/*
 * Sort r[0..n) (n > 16) on the digit of `width` (at most 8) key bits from
 * bit `shift`, through tmp (n records), keeping the order of equal digits;
 * ends[d] is the end of the run of digit d.
 */
static void
sort_digit(SortRec *r, SortRec *tmp, uint32 n, int shift, int width, uint32 *ends)
{
	uint32		pos[4][256];

	if (!digit_places(r, n, shift, width, pos, ends))
		return;
	scatter_digit(r, n, shift, (1U << width) - 1, pos, tmp, NULL, NULL);
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

		sort_digit(r, tmp, n, shift, Min(8, hi - shift), ends);
	}
}

/* The size of the sort buffer for n records: at most 2 bytes per record */
static uint32
tmp_records(uint32 n)
{
	return n / 8 + 16;
}

/*
 * Sort r[0..n) on key bits [lo, hi): through tmp (tmpcap records) when it
 * fits; otherwise (a large node of skewed keys, such as the fingerprints
 * whose segment is all zeros) in place on the top 8 bits of the range, by
 * following each misplaced record to its digit's next free place, and then
 * each part on the rest of the range.
 */
static void
sort_segment(SortRec *r, uint32 n, int lo, int hi, SortRec *tmp, uint32 tmpcap)
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
				sort_segment(r + start, end[d] - start, lo, shift, tmp, tmpcap);
			start = end[d];
		}
	}
}

/* The leading bits of the first pass of sort_records */
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
 * through tmp (tmp_records(n) records; fn may use it too).
 */
static void
sort_records(const uint64 *src, uint32 n, const BitMap *bm, uint64 flip,
			 int bits, SortRec *dst, SortRec *tmp, BucketFn fn, void *arg)
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
			sort_segment(r, len, 64 - bits, shift, tmp, tmp_records(n));
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
		sort_segment(r, n, 0, 64 - gs->rbits, gs->tmp, gs->tmpcap);
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
	gs.tmpcap = tmp_records(in->n);
	gs.tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * gs.tmpcap);
	/* sorted on the leading bits; collect_groups sorts a bucket further */
	gs.rbits = scatter_bits(in->n, 64);
	sort_records(in->fps, in->n, NULL, 0, gs.rbits, in->recs, gs.tmp, collect_groups, &gs);
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

/* ---------- segments and sorted passes ---------- */

/*
 * The separating worth of every bit, -log2(p^2 + (1 - p)^2) with p the
 * share of ones among (a sample of at most 65,536 of) the fingerprints.
 */
static void
bit_worth(const SimHash *fps, uint32 n, double *worth)
{
	uint32		ones[64];
	uint32		step = Max(n / 65536, 1);
	uint32		taken = 0,
				i;
	int			b;

	memset(ones, 0, sizeof(ones));
	for (i = 0; i < n; i += step)
	{
		uint64		x = fps[i];

		for (b = 0; b < 64; b++)
			ones[b] += (x >> b) & 1;
		taken++;
	}
	for (b = 0; b < 64; b++)
	{
		double		p = (double) ones[b] / taken;
		double		q = p * p + (1 - p) * (1 - p);

		worth[b] = -log2(q);
	}
}

/*
 * The passes are a tree of prefixes of the choice T = (c0 < c1 < ... <
 * c(t-1)) of segments.  A top-level pass sorts all fingerprints on segment c0
 * (c0 = 0 .. m - t); each run of equal segment c0 (a node at depth 1) is
 * sorted in turn on every segment c1 > c0 that can follow, and each of its
 * runs (a node at depth 2) on every c2 > c1, and so on: the nodes at depth
 * j are the fingerprints agreeing on the segments of a prefix of length j,
 * and only the top level moves all fingerprints through memory; the nodes
 * below are small and sorted in the CPU cache.  A node at depth t, or one
 * so small that comparing all its pairs costs less than sorting it again,
 * has all its pairs measured.  A pair within k is measured in exactly one
 * node: the one of the longest prefix of its first t agreeing segments that
 * the tree visits, as it is reported only when no segment outside that
 * prefix and before its last segment agrees.
 */

/* Number of prefixes of length j of the choices of t segments out of m */
static double
prefixes(int m, int t, int j)
{
	return simhash_binomial(m - t + j, j);
}

/*
 * Number of segments for n fingerprints, radius k and total worth: the m > k
 * whose estimated work is least: m - t + 1 top-level sorts, the in-cache
 * sorts of the nodes down to some depth J, and the comparisons in the
 * nodes at depth J, whose segments are worth total * J / m bits, each
 * costing pair_cost.  More rows call for more segments: the comparisons
 * grow as n^2, the sorts as n.
 */
static int
choose_segments(double n, int k, double total, double pair_cost)
{
	int			best = k + 1;
	double		best_cost = -1;
	int			m;

	for (m = k + 1; m <= Min(MAX_SEGMENTS, k + 12); m++)
	{
		int			t = m - k;
		double		top = (m - t + 1) * n * SORT_COST;
		double		nodes = 0;
		int			j;

		for (j = 1; j <= t; j++)
		{
			double		cmp = prefixes(m, t, j) * n * n / 2.0 / pow(2.0, total * j / m) *
				pair_cost;
			double		cost;

			/* the nodes at depth j - 1 are sorted again, in the cache or not */
			if (j > 1)
				nodes += prefixes(m, t, j) * n *
					(n / pow(2.0, total * (j - 1) / m) > CACHE_RECORDS ?
					 BIG_NODE_SORT_COST : NODE_SORT_COST);
			cost = top + nodes + cmp;
			if (best_cost < 0 || cost < best_cost)
			{
				best = m;
				best_cost = cost;
			}
		}
	}
	return best;
}

/*
 * Deal the 64 bits to m segments of about equal worth (largest worth first,
 * each to the segment worth least so far).  Result: segment[b] per bit.
 */
static void
deal_bits(const double *worth, int m, int *order, int *segment)
{
	double		sum[MAX_SEGMENTS];
	int			size[MAX_SEGMENTS];
	int			i,
				j;

	/* bits by decreasing worth (insertion sort; ties by bit number) */
	for (i = 0; i < 64; i++)
	{
		for (j = i; j > 0 && worth[order[j - 1]] < worth[i]; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (j = 0; j < m; j++)
	{
		sum[j] = 0;
		size[j] = 0;
	}
	for (i = 0; i < 64; i++)
	{
		int			bit = order[i];
		int			best = 0;

		for (j = 1; j < m; j++)
			if (sum[j] < sum[best] - 1e-9 ||
				(fabs(sum[j] - sum[best]) <= 1e-9 && size[j] < size[best]))
				best = j;
		segment[bit] = best;
		sum[best] += worth[bit];
		size[best]++;
	}
}

/* The state of the passes */
typedef struct PassState
{
	int			k,
				t,
				m;
	int			pos[MAX_SEGMENTS];	/* segment b is key bits [pos, pos + len) */
	int			len[MAX_SEGMENTS];
	uint64		pmask[MAX_SEGMENTS];	/* the same as masks */
	int			prefix[MAX_SEGMENTS]; /* the segments of the current node */
	int			nbefore;		/* segments outside the prefix before its end */
	uint64		before[MAX_SEGMENTS]; /* their masks */
	SortRec    *tmp;			/* sort buffer */
	uint32		tmpcap;
	uint64		work;			/* comparisons and moves since the last check */
	uint64		npairs;
	uint64		ncand;			/* pairs measured (candidates verified) */
	double		pair_cost;		/* of measuring one, in the units above */
	uint64		nresorted;		/* records sorted again in nodes */
	/* measure the pairs of keys[0], keys[stride], ...: any stride, stride 1 */
	void		(*scan) (struct PassState *ps, const uint64 *keys, Size stride,
						 const uint32 *rows, uint32 n);
	void		(*scan_dense) (struct PassState *ps, const uint64 *keys, Size stride,
							   const uint32 *rows, uint32 n);
	Size		rstride;		/* rows of the node measured: rows[i * rstride] */
	PairCallback cb;
	void	   *arg;
} PassState;

/* Count work; check for interrupts every INTERRUPT_MASK units */
static inline void
pass_work(PassState *ps, uint64 units)
{
	ps->work += units;
	if (ps->work > INTERRUPT_MASK)
	{
		ps->work = 0;
		CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Report the pair (i, j) of the node measured (its rows rows[i * rstride];
 * distance d, x the xor of their keys) when no segment outside the current
 * prefix and before its end agrees: a pair is reported under its first
 * agreeing segments only.
 */
static void
report_pair(PassState *ps, const uint32 *rows, uint32 i, uint32 j, uint64 x, int d)
{
	int			bb;

	for (bb = 0; bb < ps->nbefore; bb++)
		if ((x & ps->before[bb]) == 0)
			return;
	ps->cb(ps->arg, rows[i * ps->rstride], rows[j * ps->rstride], d);
	ps->npairs++;
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
scan_body(PassState *ps, const uint64 *keys, Size stride, const uint32 *rows,
		  uint32 n, bool builtin_popcount)
{
	int			k = ps->k;
	uint32		i;

	for (i = 0; i + 1 < n; i++)
	{
		uint64		a = keys[i * stride];
		uint32		j = i + 1;

		pass_work(ps, n - i);
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
				report_pair(ps, rows, i, j, x0, d0);
			if (d1 <= k)
				report_pair(ps, rows, i, j + 1, x1, d1);
			if (d2 <= k)
				report_pair(ps, rows, i, j + 2, x2, d2);
			if (d3 <= k)
				report_pair(ps, rows, i, j + 3, x3, d3);
		}
		for (; j < n; j++)
		{
			uint64		x = a ^ keys[j * stride];
			int			d = KEY_DISTANCE(x);

			if (d <= k)
				report_pair(ps, rows, i, j, x, d);
		}
	}
}

static void
scan_portable(PassState *ps, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	scan_body(ps, keys, stride, rows, n, false);
}

#ifdef SIMHASH_POPCNT_TARGET
simhash_attribute_target("popcnt")
static void
scan_popcnt(PassState *ps, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	scan_body(ps, keys, stride, rows, n, true);
}
#endif

#ifdef SIMHASH_AVX512_TARGET
/*
 * The hits of the eight keys i .. i + 7 against the keys j .. j + 7: bit
 * 8p + q of hits is the pair (i + p, j + q); report them.
 */
simhash_attribute_target("popcnt")
static pg_noinline void
report_block(PassState *ps, const uint64 *keys, const uint32 *rows, uint32 i,
			 uint32 j, uint64 hits)
{
	while (hits != 0)
	{
		int			b = __builtin_ctzll(hits);
		uint32		p = i + (b >> 3),
					q = j + (b & 7);
		uint64		x = keys[p] ^ keys[q];

		report_pair(ps, rows, p, q, x, __builtin_popcountll(x));
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
simhash_attribute_target("popcnt,avx512f,avx512vpopcntdq")
static void
scan_avx512(PassState *ps, const uint64 *keys, Size stride, const uint32 *rows, uint32 n)
{
	__m512i		kv = _mm512_set1_epi64(ps->k);
	uint32		i,
				p,
				j;

	Assert(stride == 1);
	for (i = 0; i + 1 < n; i += 8)
	{
		uint32		ilen = Min(8, n - i);
		__mmask8	ilive = (__mmask8) ((1U << ilen) - 1);
		__m512i		y = _mm512_maskz_loadu_epi64(ilive, keys + i);

		pass_work(ps, (uint64) 8 * (n - i));
		/* the pairs inside the block: key p against the lanes after it */
		for (p = 0; p + 1 < ilen; p++)
		{
			__mmask8	after = (__mmask8) (ilive & (0xFF << (p + 1)));
			__mmask8	hit = _mm512_mask_cmple_epu64_mask(after,
														   _mm512_popcnt_epi64(_mm512_xor_si512(y, _mm512_set1_epi64((long long) keys[i + p]))), kv);

			if (hit != 0)
				report_block(ps, keys, rows, i, i, (uint64) hit << (8 * p));
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
				report_block(ps, keys, rows, i, j,
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
 * Measure every pair of the node r[0..n): its keys are copied to the sort
 * buffer (free while a node is measured) for a dense scan, or scanned in
 * place when the node is small (most nodes hold two or three records) or
 * larger than the buffer.
 */
static void
measure_node(PassState *ps, const SortRec *r, uint32 n)
{
	ps->ncand += (uint64) n * (n - 1) / 2;
	ps->rstride = sizeof(SortRec) / sizeof(uint32);
	if (n > SMALL_NODE && n <= ps->tmpcap * (sizeof(SortRec) / sizeof(uint64)))
	{
		uint64	   *keys = (uint64 *) ps->tmp;
		uint32		i;

		for (i = 0; i < n; i++)
			keys[i] = r[i].key;
		ps->scan_dense(ps, keys, 1, &r[0].row, n);
	}
	else
		ps->scan(ps, &r[0].key, sizeof(SortRec) / sizeof(uint64), &r[0].row, n);
}

/* Measure every pair of a node given as its keys and its rows (n of each) */
static void
measure_keys(PassState *ps, const uint64 *keys, const uint32 *rows, uint32 n)
{
	ps->ncand += (uint64) n * (n - 1) / 2;
	ps->rstride = 1;
	if (n > SMALL_NODE)
		ps->scan_dense(ps, keys, 1, rows, n);
	else
		ps->scan(ps, keys, 1, rows, n);
}

/*
 * The last sort of a node r[0..n) (16 < n <= tmpcap), on segment c of at
 * most 8 bits, whose runs are leaves: the keys and rows of the records are
 * placed in the order of that segment into the sort buffer (n keys, then n
 * rows), and the pairs of each run measured there; r is left as it was.
 */
static void
measure_leaves(PassState *ps, const SortRec *r, uint32 n, int c)
{
	uint32		pos[4][256],
				ends[256];
	uint64	   *keys = (uint64 *) ps->tmp;
	uint32	   *rows = (uint32 *) (keys + n);
	uint32		start,
				d;

	if (!digit_places(r, n, ps->pos[c], ps->len[c], pos, ends))
	{
		measure_node(ps, r, n);
		return;
	}
	scatter_digit(r, n, ps->pos[c], (1U << ps->len[c]) - 1, pos, NULL, keys, rows);
	for (start = 0, d = 0; start < n; start = ends[d++])
		if (ends[d] - start > 1)
			measure_keys(ps, keys + start, rows + start, ends[d] - start);
}

/* The value of segment b in a key */
static inline uint64
segment_value(const PassState *ps, uint64 key, int b)
{
	return (key & ps->pmask[b]) >> ps->pos[b];
}

static void visit_node(PassState *ps, SortRec *r, uint32 n, int j);

/*
 * A run r[0..n) of a node sorted again, a node at depth j: a small one is
 * measured at once (as visit_node would), a larger one visited; nbefore is
 * the number of segments outside its prefix before the prefix's end.
 */
static inline void
visit_child(PassState *ps, SortRec *r, uint32 n, int j, int nbefore)
{
	if (n > SMALL_NODE)
	{
		visit_node(ps, r, n, j);
		ps->nbefore = nbefore;
	}
	else if (n > 1)
		measure_node(ps, r, n);
}

/*
 * A node at depth j: r[0..n) agree on the segments prefix[0..j).  Measure it,
 * or sort it on each segment that can come next and visit the runs.
 */
static void
visit_node(PassState *ps, SortRec *r, uint32 n, int j)
{
	int			last = ps->prefix[j - 1];
	int			nchoices = ps->m - ps->t + j - last;
	int			saved = ps->nbefore;
	int			c;

	if (n < 2)
		return;
	/* all pairs cost n^2 / 2 pairs; sorting again nchoices * n records */
	if (j == ps->t || (double) n * ps->pair_cost <=
		2.0 * (n > CACHE_RECORDS ? BIG_NODE_SORT_COST : NODE_SORT_COST) * nchoices)
	{
		measure_node(ps, r, n);
		return;
	}
	for (c = last + 1; c <= ps->m - ps->t + j; c++)
	{
		uint32		start,
					end;

		/* segments skipped between the prefix's end and c come before it */
		if (c > last + 1)
			ps->before[saved + c - last - 2] = ps->pmask[c - 1];
		ps->nbefore = saved + c - last - 1;
		ps->prefix[j] = c;
		pass_work(ps, n);
		ps->nresorted += n;
		if (j + 1 == ps->t && ps->len[c] <= 8 && n <= ps->tmpcap)
		{
			/* the runs are leaves: measured where they are placed */
			measure_leaves(ps, r, n, c);
			continue;
		}
		if (ps->len[c] <= 8 && n <= ps->tmpcap)
		{
			/* one counting pass; its counts give the runs */
			uint32		ends[256];
			uint32		d;

			sort_digit(r, ps->tmp, n, ps->pos[c], ps->len[c], ends);
			for (start = 0, d = 0; start < n; start = ends[d++])
				visit_child(ps, r + start, ends[d] - start, j + 1, saved + c - last - 1);
			continue;
		}
		sort_segment(r, n, ps->pos[c], ps->pos[c] + ps->len[c], ps->tmp, ps->tmpcap);
		for (start = 0; start < n; start = end)
		{
			uint64		v = segment_value(ps, r[start].key, c);

			for (end = start + 1; end < n && segment_value(ps, r[end].key, c) == v; end++)
				;
			visit_child(ps, r + start, end - start, j + 1, saved + c - last - 1);
		}
	}
	ps->nbefore = saved;
}

/* Bucket callback of a top-level pass: visit every run of equal segment c0 */
static void
visit_bucket(void *arg, SortRec *r, uint32 n)
{
	PassState  *ps = (PassState *) arg;
	int			c0 = ps->prefix[0];
	uint32		start,
				end;

	for (start = 0; start < n; start = end)
	{
		uint64		v = segment_value(ps, r[start].key, c0);

		for (end = start + 1; end < n && segment_value(ps, r[end].key, c0) == v; end++)
			;
		if (end - start > 1)
		{
			ps->nbefore = c0;
			visit_node(ps, r + start, end - start, 1);
		}
	}
}

/*
 * Every pair of groups (distinct 64-bit fingerprints) within k (at most
 * MAX_BATCH_RADIUS), each exactly once, through cb.  Pairs inside a group
 * (distance 0) are the caller's.  in->n is only reported (DEBUG1).
 */
void
simhash_batch_group_pairs(BatchInput *in, int k, const char *fname,
						  PairCallback cb, void *arg)
{
	uint32		n = in->ngroups;
	double		worth[64];
	double		total = 0;
	int			order[64],
				segment[64];
	int			b,
				c0,
				ntop;
	BitMap	   *bm;
	PassState	ps;
	TimestampTz last = GetCurrentTimestamp();

	if (n < 2 || k == 0)
		return;
	memset(&ps, 0, sizeof(ps));
	bit_worth(in->gfp, n, worth);
	for (b = 0; b < 64; b++)
		total += worth[b];
	ps.scan = scan_portable;
	ps.pair_cost = PAIR_COST_PORTABLE;
#ifdef SIMHASH_POPCNT_TARGET
	if (__builtin_cpu_supports("popcnt"))
	{
		ps.scan = scan_popcnt;
		ps.pair_cost = PAIR_COST_POPCNT;
	}
#endif
	ps.scan_dense = ps.scan;
#ifdef SIMHASH_AVX512_TARGET
	if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq"))
	{
		ps.scan_dense = scan_avx512;
		ps.pair_cost = PAIR_COST_AVX512;
	}
#endif
	ps.k = k;
	ps.m = choose_segments((double) n, k, total, ps.pair_cost);
	ps.t = ps.m - k;
	ps.cb = cb;
	ps.arg = arg;
	deal_bits(worth, ps.m, order, segment);
	ntop = ps.m - ps.t + 1;
	bm = palloc(sizeof(BitMap));
	ps.tmpcap = tmp_records(n);
	ps.tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * ps.tmpcap);

	elog(DEBUG1, "%s: %u rows, %u distinct fingerprints, k = %d, %d segments, %d top-level passes, %.1f bits of separation",
		 fname, in->n, n, k, ps.m, ntop, total);

	for (c0 = 0; c0 < ntop; c0++)
	{
		int			dest[64];
		int			next = 64,
					i;

		/* segment c0 on top, then the other segments in order, each contiguous */
		for (i = -1; i < ps.m; i++)
		{
			int			bb = (i < 0) ? c0 : i;

			if (i == c0)
				continue;
			ps.len[bb] = 0;
			for (b = 0; b < 64; b++)
			{
				if (segment[b] != bb)
					continue;
				dest[b] = --next;
				ps.len[bb]++;
			}
			ps.pos[bb] = next;
			ps.pmask[bb] = ((UINT64CONST(1) << ps.len[bb]) - 1) << next;
		}
		bitmap_init(bm, dest);
		/* segments before c0 are outside every prefix that starts with it */
		for (b = 0; b < c0; b++)
			ps.before[b] = ps.pmask[b];
		ps.prefix[0] = c0;
		sort_records(in->gfp, n, bm, 0, ps.len[c0], in->recs, ps.tmp, visit_bucket, &ps);

		if (TimestampDifferenceExceeds(last, GetCurrentTimestamp(), PROGRESS_SECS * 1000))
		{
			ereport(NOTICE,
					(errmsg("%s: %d of %d sorted passes done, " UINT64_FORMAT " pairs so far",
							fname, c0 + 1, ntop, ps.npairs)));
			last = GetCurrentTimestamp();
		}
	}
	elog(DEBUG1, "%s: " UINT64_FORMAT " candidate pairs measured, " UINT64_FORMAT " within k, " UINT64_FORMAT " records sorted again in nodes",
		 fname, ps.ncand, ps.npairs, ps.nresorted);
	pfree(ps.tmp);
	pfree(bm);
}

/*
 * The common start of the batch functions: set up the materialized result,
 * read the query's rows (checking k against their width) and group equal
 * fingerprints.
 */
static int32
batch_start(FunctionCallInfo fcinfo, BatchKind kind, BatchInput *in)
{
	char	   *query = text_to_cstring(PG_GETARG_TEXT_PP(0));
	int32		k = PG_GETARG_INT32(1);

	InitMaterializedSRF(fcinfo, 0);
	read_input(query, fcinfo, kind, k, in);
	if (in->nwords == 1)
		simhash_batch_build_groups(in);
	else
		simhash_batch_wide_groups(in);
	return k;
}

/* Every pair of groups within k, once, at the input's width */
static void
group_pairs(BatchInput *in, int k, const char *fname, PairCallback cb, void *arg)
{
	if (in->nwords == 1)
		simhash_batch_group_pairs(in, k, fname, cb, arg);
	else
		simhash_batch_wide_pairs(in, k, fname, cb, arg);
}

/* ---------- simhash_pairs, simhash_group_pairs: the output ---------- */

/*
 * The pairs found wait in a ring of EMIT_AHEAD before they are output: a
 * pair's group starts are fetched into the cache when it comes in, its
 * first ids half-way along the ring, so that the output does not wait for
 * memory (the pairs come in a random order of groups).
 */
#define EMIT_AHEAD			64

#if defined(__GNUC__) || defined(__clang__)
#define prefetch_mem(p)		__builtin_prefetch(p)
#else
#define prefetch_mem(p)		((void) 0)
#endif

typedef struct PendingPair
{
	uint32		ga,
				gb;
	int			d;
} PendingPair;

typedef struct PairsOut
{
	Tuplestorestate *ts;
	TupleDesc	td;
	const BatchInput *in;
	uint32		nput;			/* rows put, for interrupt checks */
	void		(*emit) (struct PairsOut *o, uint32 ga, uint32 gb, int d);
	uint64		nqueued;		/* pairs that entered the ring */
	PendingPair ring[EMIT_AHEAD];
} PairsOut;

/* Put one output row of natts values; check for interrupts now and then */
static void
put_row(PairsOut *o, Datum *values, int natts)
{
	bool		nulls[5] = {false, false, false, false, false};

	Assert(natts <= 5);
	tuplestore_putvalues(o->ts, o->td, values, nulls);
	if ((++o->nput & EMIT_INTERRUPT_MASK) == 0)
		CHECK_FOR_INTERRUPTS();
}

/* simhash_pairs: one output row (id1 < id2); none for two rows of one id */
static inline void
put_pair(PairsOut *o, int64 ia, int64 ib, int d)
{
	Datum		values[3];

	if (ia == ib)
		return;
	values[0] = Int64GetDatum(Min(ia, ib));
	values[1] = Int64GetDatum(Max(ia, ib));
	values[2] = Int32GetDatum(d);
	put_row(o, values, 3);
}

/*
 * A pair of groups (ga, gb, distance d) found: output the pair that entered
 * the ring EMIT_AHEAD pairs ago (o->emit), fetch the ids of the one that
 * entered half as long ago and the group starts of this one, and queue it.
 */
static void
queue_pair(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	PendingPair *slot = &o->ring[o->nqueued % EMIT_AHEAD];

	if (o->nqueued >= EMIT_AHEAD)
		o->emit(o, slot->ga, slot->gb, slot->d);
	if (o->nqueued >= EMIT_AHEAD / 2)
	{
		const PendingPair *half = &o->ring[(o->nqueued - EMIT_AHEAD / 2) % EMIT_AHEAD];

		prefetch_mem(&in->ids[in->gstart[half->ga]]);
		prefetch_mem(&in->ids[in->gstart[half->gb]]);
	}
	prefetch_mem(&in->gstart[ga]);
	prefetch_mem(&in->gstart[gb]);
	slot->ga = ga;
	slot->gb = gb;
	slot->d = d;
	o->nqueued++;
}

/* Output the pairs left in the ring, in the order they came */
static void
flush_pairs(PairsOut *o)
{
	uint64		i;

	for (i = o->nqueued > EMIT_AHEAD ? o->nqueued - EMIT_AHEAD : 0; i < o->nqueued; i++)
	{
		const PendingPair *p = &o->ring[i % EMIT_AHEAD];

		o->emit(o, p->ga, p->gb, p->d);
	}
	o->nqueued = 0;
}

/* simhash_pairs: the pairs of rows of a group, and of two groups */
static void
emit_row_pairs(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	uint32		i,
				j;

	/* all fingerprints distinct: group g is row g */
	if (in->ngroups == in->n && ga != gb)
	{
		put_pair(o, in->ids[ga], in->ids[gb], d);
		return;
	}
	for (i = in->gstart[ga]; i < in->gstart[ga + 1]; i++)
	{
		/* inside one group (ga == gb) every pair once: j after i */
		for (j = (ga == gb) ? i + 1 : in->gstart[gb]; j < in->gstart[gb + 1]; j++)
			put_pair(o, in->ids[i], in->ids[j], d);
		CHECK_FOR_INTERRUPTS();
	}
}

/* simhash_group_pairs: one row for two groups, or for a group alone */
static void
emit_group_pair(PairsOut *o, uint32 ga, uint32 gb, int d)
{
	const BatchInput *in = o->in;
	int64		ra = in->ids[in->gstart[ga]],
				rb = in->ids[in->gstart[gb]];
	int64		sa = in->gstart[ga + 1] - in->gstart[ga],
				sb = in->gstart[gb + 1] - in->gstart[gb];
	Datum		values[5];

	values[0] = Int64GetDatum(ra <= rb ? ra : rb);
	values[1] = Int64GetDatum(ra <= rb ? rb : ra);
	values[2] = Int32GetDatum(d);
	values[3] = Int64GetDatum(ra <= rb ? sa : sb);
	values[4] = Int64GetDatum(ra <= rb ? sb : sa);
	put_row(o, values, 5);
}

/* The PairCallback of both: every pair of groups goes through the ring */
static void
queue_pair_cb(void *arg, uint32 ga, uint32 gb, int d)
{
	queue_pair((PairsOut *) arg, ga, gb, d);
}

/*
 * simhash_pairs and simhash_group_pairs: a row (or the rows) for every
 * group of two or more rows, then for every pair of groups within k.
 */
static Datum
pairs_srf(FunctionCallInfo fcinfo, BatchKind kind,
		  void (*emit) (PairsOut *o, uint32 ga, uint32 gb, int d))
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchInput	in;
	int32		k = batch_start(fcinfo, kind, &in);
	PairsOut	out;
	uint32		g;

	out.ts = rsinfo->setResult;
	out.td = rsinfo->setDesc;
	out.in = &in;
	out.nput = 0;
	out.emit = emit;
	out.nqueued = 0;
	for (g = 0; g < in.ngroups; g++)
		if (in.gstart[g + 1] - in.gstart[g] > 1)
			emit(&out, g, g, 0);
	group_pairs(&in, k, batch_fname[kind], queue_pair_cb, &out);
	flush_pairs(&out);
	return (Datum) 0;
}

/*
 * simhash_pairs(query text, k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
 *		Runs query, which returns (id, fp) rows, fp a simhash, simhash128
 *		or simhash256, and returns every pair of its rows within Hamming
 *		distance k with id1 < id2, once: the same rows as the self-join
 *		a.fp <-> b.fp <= k AND a.id < b.id.  Rows with a NULL fingerprint
 *		are skipped.  Errors: k outside 0..16 (simhash) or 0..W (a W-bit
 *		fingerprint) 22023; wrong columns 42804; NULL id 22004; more memory than
 *		maintenance_work_mem 54000.  Volatile (it runs a query), strict,
 *		parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_pairs);
Datum
simhash_pairs(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, BATCH_PAIRS, emit_row_pairs);
}

/*
 * simhash_group_pairs(query text, k integer)
 *		RETURNS TABLE (id1 bigint, id2 bigint, distance integer,
 *					   size1 bigint, size2 bigint)
 *		Like simhash_pairs, with the rows of each fingerprint collapsed into
 *		one group, represented by its smallest id; size is its number of
 *		rows.  A group of two or more rows comes out once by itself (id1 =
 *		id2, distance 0, size1 = size2); two groups within k come out once
 *		(id1 < id2).  Rows with a NULL fingerprint are skipped.  Errors as
 *		simhash_pairs.  Volatile, strict, parallel restricted.
 */
PG_FUNCTION_INFO_V1(simhash_group_pairs);
Datum
simhash_group_pairs(PG_FUNCTION_ARGS)
{
	return pairs_srf(fcinfo, BATCH_GROUP_PAIRS, emit_group_pair);
}

/* ---------- clusters: union-find over the groups ---------- */

typedef struct UnionFind
{
	uint32	   *parent;
} UnionFind;

static uint32
uf_find(UnionFind *uf, uint32 x)
{
	while (uf->parent[x] != x)
	{
		uf->parent[x] = uf->parent[uf->parent[x]];	/* path halving */
		x = uf->parent[x];
	}
	return x;
}

static void
uf_union(void *arg, uint32 a, uint32 b, int d)
{
	UnionFind  *uf = (UnionFind *) arg;
	uint32		ra = uf_find(uf, a),
				rb = uf_find(uf, b);

	if (ra != rb)
		uf->parent[Max(ra, rb)] = Min(ra, rb);
}

typedef struct IdState
{
	UnionFind  *uf;
	const uint32 *rowgroup;
} IdState;

/* Bucket callback of the id sort: rows sharing an id join their groups */
static void
join_equal_ids(void *arg, SortRec *r, uint32 n)
{
	IdState    *st = (IdState *) arg;
	uint32		i;

	for (i = 1; i < n; i++)
		if (r[i].key == r[i - 1].key)
			uf_union(st->uf, st->rowgroup[r[i].row], st->rowgroup[r[i - 1].row], 0);
}

/*
 * simhash_clusters(query text, k integer)
 *		RETURNS TABLE (id bigint, cluster_id bigint)
 *		Every row of query (with a fingerprint) and the smallest id of its
 *		connected component in the graph of pairs within k.  Near-duplicate
 *		is not transitive: a component can hold members more than k apart,
 *		linked through others.  Rows sharing an id are one document (one
 *		output row); rows sharing a fingerprint are one node (never a pair
 *		each).  Errors as simhash_pairs.  Volatile, strict, parallel
 *		restricted.
 */
PG_FUNCTION_INFO_V1(simhash_clusters);
Datum
simhash_clusters(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	BatchInput	in;
	int32		k = batch_start(fcinfo, BATCH_CLUSTERS, &in);
	UnionFind	uf;
	IdState		st;
	SortRec    *tmp;
	uint32	   *rowgroup;
	int64	   *minid;
	uint32		g,
				i;

	uf.parent = MemoryContextAllocHuge(CurrentMemoryContext,
									   sizeof(uint32) * Max(in.ngroups, 1));
	for (g = 0; g < in.ngroups; g++)
		uf.parent[g] = g;
	group_pairs(&in, k, "simhash_clusters", uf_union, &uf);

	/*
	 * Each row's group, and each group's smallest id (its first row) in the
	 * memory of the group fingerprints; then the group starts can go.
	 */
	if (in.recs != NULL)
		pfree(in.recs);			/* wide groups have none left */
	rowgroup = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(uint32) * Max(in.n, 1));
	minid = (int64 *) in.gfp;
	for (g = 0; g < in.ngroups; g++)
	{
		for (i = in.gstart[g]; i < in.gstart[g + 1]; i++)
			rowgroup[i] = g;
		minid[g] = in.ids[in.gstart[g]];
	}
	pfree(in.gstart);

	/* rows with the same id are one document: join their groups */
	in.recs = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * Max(in.n, 1));
	st.uf = &uf;
	st.rowgroup = rowgroup;
	tmp = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(SortRec) * tmp_records(in.n));
	sort_records((const uint64 *) in.ids, in.n, NULL, UINT64CONST(1) << 63, 64,
				 in.recs, tmp, join_equal_ids, &st);
	pfree(tmp);

	/* the smallest id of each component, at its root */
	for (g = 0; g < in.ngroups; g++)
	{
		uint32		r = uf_find(&uf, g);

		if (minid[g] < minid[r])
			minid[r] = minid[g];
	}
	/* one row per id, in id order */
	for (i = 0; i < in.n; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		uint32		row = in.recs[i].row;

		if (i > 0 && in.recs[i].key == in.recs[i - 1].key)
			continue;
		values[0] = Int64GetDatum(in.ids[row]);
		values[1] = Int64GetDatum(minid[uf_find(&uf, rowgroup[row])]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		if ((i & INTERRUPT_MASK) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	return (Datum) 0;
}
