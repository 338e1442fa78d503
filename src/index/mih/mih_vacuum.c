/*
 * mih_vacuum.c
 *		VACUUM for mih: the TIDs of dead rows are cleared on the code and
 *		pending pages (each changed page through generic WAL); scans skip
 *		a cleared row.  The tables keep its entries until REINDEX.
 */
#include "mih.h"

#include "commands/vacuum.h"
#include "miscadmin.h"

/* Clear the dead rows of one code page; count the live ones */
static BlockNumber
vacuum_page(Relation index, BlockNumber blkno, int nwords,
			IndexBulkDeleteCallback callback, void *callback_state,
			IndexBulkDeleteResult *stats)
{
	Buffer		buf = ReadBufferExtended(index, MAIN_FORKNUM, blkno, RBM_NORMAL,
										 GetAccessStrategy(BAS_VACUUM));
	GenericXLogState *state = NULL;
	Page		page;
	ItemPointerData *tids;
	BlockNumber next;
	int			i,
				n;

	LockBuffer(buf, BUFFER_LOCK_EXCLUSIVE);
	page = BufferGetPage(buf);
	n = MihPageGetOpaque(page)->nitems;
	next = MihPageGetOpaque(page)->next;
	tids = mih_page_tids(page, nwords);
	for (i = 0; i < n; i++)
	{
		if (!ItemPointerIsValid(&tids[i]))
			continue;
		if (callback(&tids[i], callback_state))
		{
			if (state == NULL)
			{
				state = GenericXLogStart(index);
				page = GenericXLogRegisterBuffer(state, buf, 0);
				tids = mih_page_tids(page, nwords);
			}
			ItemPointerSetInvalid(&tids[i]);
			stats->tuples_removed += 1;
		}
		else
			stats->num_index_tuples += 1;
	}
	if (state)
		GenericXLogFinish(state);
	UnlockReleaseBuffer(buf);
	return next;
}

IndexBulkDeleteResult *
mih_bulkdelete(IndexVacuumInfo *info, IndexBulkDeleteResult *stats,
			   IndexBulkDeleteCallback callback, void *callback_state)
{
	Relation	index = info->index;
	MihMetaPageData meta;
	int			perpage;
	BlockNumber b,
				ncodepages;

	if (stats == NULL)
		stats = palloc0(sizeof(IndexBulkDeleteResult));
	mih_read_meta(index, &meta);
	perpage = mih_codes_per_page(meta.nwords);
	ncodepages = (meta.nsorted + perpage - 1) / perpage;
	stats->num_index_tuples = 0;
	for (b = 0; b < ncodepages; b++)
	{
		vacuum_page(index, meta.codes + b, meta.nwords, callback, callback_state, stats);
		simhash_vacuum_delay_point();
	}
	/* the pending list from its head: rows added meanwhile are alive */
	b = meta.pendinghead;
	while (b != InvalidBlockNumber)
	{
		b = vacuum_page(index, b, meta.nwords, callback, callback_state, stats);
		simhash_vacuum_delay_point();
	}
	stats->num_pages = RelationGetNumberOfBlocks(index);
	return stats;
}

static bool
count_all(ItemPointer tid, void *state)
{
	return false;
}

IndexBulkDeleteResult *
mih_vacuumcleanup(IndexVacuumInfo *info, IndexBulkDeleteResult *stats)
{
	if (info->analyze_only)
		return stats;
	/* no bulkdelete this time: count the rows (nothing is cleared) */
	if (stats == NULL)
		stats = mih_bulkdelete(info, NULL, count_all, NULL);
	stats->num_pages = RelationGetNumberOfBlocks(info->index);
	return stats;
}
