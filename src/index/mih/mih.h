/*
 * mih.h
 *		The mih index access method: exact radius and nearest-neighbour
 *		search over simhash, simhash128 and simhash256 by multi-index
 *		hashing (Norouzi, Punjani and Fleet 2014), with the codes kept in
 *		the index so that no candidate is checked on the heap.
 *
 * The fingerprint's bits are cut into m substrings of about log2(N) bits.
 * Two codes within k bits are within r_i bits of each other in some
 * substring i, where the k + 1 units of sum(r_i + 1) are spread evenly
 * (simhash_segment_radii).  Each substring has a table: its rows sorted
 * by the substring's value, with a directory over the value's top T bits.
 * A query looks up, in each table, every value within r_i of its own
 * substring, and checks the rows found on their full codes.
 *
 * Pages (block 0 is the meta page):
 *	code pages		the rows' codes and heap TIDs in heap order: a row's
 *					ordinal gives its page and slot
 *	directory		per table: 2^T + 1 positions, the first entry whose
 *					substring has each top value
 *	entry pages		per table: the ordinal of each row and the low
 *					(substring length - T) bits of its substring, by value
 *	pending pages	rows inserted since the build, a list scanned in full
 *
 * The sorted part is written by the build and never changed in place
 * except for VACUUM clearing the TIDs of dead rows.  Every page change is
 * WAL-logged through generic WAL.
 */
#ifndef SIMHASH_MIH_H
#define SIMHASH_MIH_H

#include "simhash.h"

#include "access/amapi.h"
#include "access/generic_xlog.h"
#include "access/itup.h"
#include "nodes/tidbitmap.h"
#include "port/pg_bitutils.h"
#include "storage/bufmgr.h"
#include "utils/relcache.h"

#define MIH_MAGIC			0x4D494831	/* "MIH1" */
#define MIH_VERSION			1
#define MIH_METAPAGE_BLKNO	0
#define MIH_MAX_TABLES		16
#define MIH_MAX_SUBSTRING	32		/* bits of one substring */
#define MIH_MAX_LOW_BITS	8		/* bits beside each entry */

/* the usable bytes of a page */
#define MIH_PAGE_BYTES \
	(BLCKSZ - MAXALIGN(SizeOfPageHeaderData) - MAXALIGN(sizeof(MihPageOpaqueData)))

typedef struct MihPageOpaqueData
{
	BlockNumber next;			/* pending pages: the next one */
	uint16		nitems;			/* pending pages: rows on the page */
	uint16		flags;			/* MIH_META, MIH_CODES, ... */
} MihPageOpaqueData;

typedef MihPageOpaqueData *MihPageOpaque;

#define MIH_META		(1 << 0)
#define MIH_CODES		(1 << 1)	/* sorted part */
#define MIH_DIRECTORY	(1 << 2)
#define MIH_ENTRIES		(1 << 3)
#define MIH_PENDING		(1 << 4)

#define MihPageGetOpaque(page) ((MihPageOpaque) PageGetSpecialPointer(page))

/* one table: its substring and where its pages start */
typedef struct MihTable
{
	uint16		offset;			/* first bit of the substring */
	uint8		length;			/* bits of the substring */
	uint8		lowbits;		/* length - T: bits kept beside each entry */
	BlockNumber directory;		/* first directory page */
	BlockNumber entries;		/* first entry page */
} MihTable;

typedef struct MihMetaPageData
{
	uint32		magic;
	uint32		version;
	uint16		nwords;			/* 64-bit words of a code: 1, 2 or 4 */
	uint16		ntables;
	uint16		dirbits;		/* T: top bits of a substring in the directory */
	uint16		pad;
	uint32		nsorted;		/* rows in the sorted part */
	BlockNumber codes;			/* first code page */
	BlockNumber pendinghead;	/* InvalidBlockNumber when empty */
	BlockNumber pendingtail;
	uint32		npending;		/* rows on the pending pages */
	MihTable	tables[MIH_MAX_TABLES];
} MihMetaPageData;

typedef MihMetaPageData *MihMetaPage;

#define MihPageGetMeta(page) ((MihMetaPage) PageGetContents(page))

/*
 * A code page (sorted or pending) holds n codes, then their n TIDs: rows
 * of 8 * nwords + 6 bytes.  An invalid TID marks a row VACUUM removed.
 */
static inline int
mih_codes_per_page(int nwords)
{
	return MIH_PAGE_BYTES / (sizeof(uint64) * nwords + sizeof(ItemPointerData));
}

static inline uint64 *
mih_page_codes(Page page)
{
	return (uint64 *) PageGetContents(page);
}

static inline ItemPointerData *
mih_page_tids(Page page, int nwords)
{
	return (ItemPointerData *) (PageGetContents(page) +
								sizeof(uint64) * nwords * mih_codes_per_page(nwords));
}

/* the most codes a page holds: 64-bit codes */
#define MIH_MAX_PAGE_CODES	(MIH_PAGE_BYTES / (sizeof(uint64) + sizeof(ItemPointerData)))

/* An entry page: n ordinals (uint32), then their n low bytes */
#define MIH_ENTRIES_PER_PAGE	(MIH_PAGE_BYTES / (sizeof(uint32) + 1))
#define MIH_DIR_PER_PAGE		(MIH_PAGE_BYTES / sizeof(uint32))

static inline uint32 *
mih_page_ordinals(Page page)
{
	return (uint32 *) PageGetContents(page);
}

static inline uint8 *
mih_page_lows(Page page)
{
	return (uint8 *) (PageGetContents(page) + sizeof(uint32) * MIH_ENTRIES_PER_PAGE);
}

/* The value of a code's substring (bits offset .. offset + length - 1) */
static inline uint32
mih_substring(const uint64 *code, int offset, int length)
{
	int			w = offset >> 6,
				b = offset & 63;
	uint64		v = code[w] >> b;

	if (b + length > 64)
		v |= code[w + 1] << (64 - b);
	return (uint32) (v & ((UINT64CONST(1) << length) - 1));
}

static inline int
mih_distance(const uint64 *a, const uint64 *b, int nwords)
{
	int			d = 0,
				w;

	for (w = 0; w < nwords; w++)
		d += pg_popcount64(a[w] ^ b[w]);
	return d;
}

/* mih_kernels.c */
extern void mih_distances(const uint64 *codes, int n, int nwords, const uint64 *q, uint16 *out);

/* mih_utils.c */
extern void mih_init_page(Page page, uint16 flags);
extern int	mih_index_nwords(Relation index);
extern void mih_layout(MihMetaPage meta, int nwords, double nrows);
extern Buffer mih_new_buffer(Relation index);
extern void mih_read_meta(Relation index, MihMetaPageData *meta);
extern bytea *mih_options(Datum reloptions, bool validate);
extern bool mih_validate(Oid opclassoid);
extern Oid	mih_sql_table(Oid indexoid, const char *fname);
extern void mih_sql_check_am(Relation index, const char *fname);

/* mih_build.c */
extern IndexBuildResult *mih_build(Relation heap, Relation index,
								   struct IndexInfo *indexInfo);
extern void mih_buildempty(Relation index);

/* mih_insert.c */
extern bool mih_insert(Relation index, Datum *values, bool *isnull,
					   ItemPointer ht_ctid, Relation heapRel,
					   IndexUniqueCheck checkUnique, bool indexUnchanged,
					   struct IndexInfo *indexInfo);

/* mih_scan.c */
extern IndexScanDesc mih_beginscan(Relation index, int nkeys, int norderbys);
extern void mih_rescan(IndexScanDesc scan, ScanKey keys, int nkeys,
					   ScanKey orderbys, int norderbys);
extern bool mih_gettuple(IndexScanDesc scan, ScanDirection dir);
extern int64 mih_getbitmap(IndexScanDesc scan, TIDBitmap *tbm);
extern void mih_endscan(IndexScanDesc scan);

/* mih_vacuum.c */
extern IndexBulkDeleteResult *mih_bulkdelete(IndexVacuumInfo *info,
											 IndexBulkDeleteResult *stats,
											 IndexBulkDeleteCallback callback,
											 void *callback_state);
extern IndexBulkDeleteResult *mih_vacuumcleanup(IndexVacuumInfo *info,
												IndexBulkDeleteResult *stats);

/* mih_cost.c: the cost model of a search, in units of one code of a pass */
extern double mih_ball_share(int len, int r);
extern void mih_table_radii(const MihMetaPageData *meta, int k, int *r);
extern double mih_tables_cost(const MihMetaPageData *meta, int k);
extern double mih_candidates(const MihMetaPageData *meta, int k);
extern double mih_pass_cost(const MihMetaPageData *meta);
extern void mih_costestimate(struct PlannerInfo *root, struct IndexPath *path,
							 double loop_count, Cost *indexStartupCost,
							 Cost *indexTotalCost, Selectivity *indexSelectivity,
							 double *indexCorrelation, double *indexPages);

#endif							/* SIMHASH_MIH_H */
