/*
 * mih_insert.c
 *		aminsert for mih: a new row goes to the pending pages, a list the
 *		scans read in full, until REINDEX (or a later merge) sorts it into
 *		the tables.  The meta page's lock orders the writers.
 */
#include "mih.h"

#include "miscadmin.h"

bool
mih_insert(Relation index, Datum *values, bool *isnull, ItemPointer ht_ctid,
		   Relation heapRel, IndexUniqueCheck checkUnique, bool indexUnchanged,
		   struct IndexInfo *indexInfo)
{
	int			nwords = mih_index_nwords(index),
				perpage = mih_codes_per_page(nwords);
	uint64		word;
	const uint64 *code;
	Buffer		metabuf,
				tailbuf = InvalidBuffer,
				newbuf = InvalidBuffer;
	GenericXLogState *state;
	Page		metapage,
				page;
	MihMetaPage meta;
	MihPageOpaque opaque;

	if (isnull[0])
		return false;			/* NULL is within no radius of anything */
	if (nwords == 1)
	{
		word = DatumGetSimHash(values[0]);
		code = &word;
	}
	else
		code = (const uint64 *) DatumGetPointer(values[0]);

	metabuf = ReadBuffer(index, MIH_METAPAGE_BLKNO);
	LockBuffer(metabuf, BUFFER_LOCK_EXCLUSIVE);
	meta = MihPageGetMeta(BufferGetPage(metabuf));
	if (meta->pendingtail != InvalidBlockNumber)
	{
		tailbuf = ReadBuffer(index, meta->pendingtail);
		LockBuffer(tailbuf, BUFFER_LOCK_EXCLUSIVE);
		if (MihPageGetOpaque(BufferGetPage(tailbuf))->nitems >= perpage)
			newbuf = mih_new_buffer(index);
	}
	else
		newbuf = mih_new_buffer(index);

	state = GenericXLogStart(index);
	metapage = GenericXLogRegisterBuffer(state, metabuf, 0);
	meta = MihPageGetMeta(metapage);
	if (newbuf != InvalidBuffer)
	{
		page = GenericXLogRegisterBuffer(state, newbuf, GENERIC_XLOG_FULL_IMAGE);
		mih_init_page(page, MIH_PENDING);
		if (tailbuf != InvalidBuffer)
		{
			Page		tail = GenericXLogRegisterBuffer(state, tailbuf, 0);

			MihPageGetOpaque(tail)->next = BufferGetBlockNumber(newbuf);
		}
		else
			meta->pendinghead = BufferGetBlockNumber(newbuf);
		meta->pendingtail = BufferGetBlockNumber(newbuf);
	}
	else
		page = GenericXLogRegisterBuffer(state, tailbuf, 0);
	opaque = MihPageGetOpaque(page);
	memcpy(mih_page_codes(page) + (Size) opaque->nitems * nwords, code,
		   sizeof(uint64) * nwords);
	mih_page_tids(page, nwords)[opaque->nitems] = *ht_ctid;
	opaque->nitems++;
	meta->npending++;
	GenericXLogFinish(state);

	if (newbuf != InvalidBuffer)
		UnlockReleaseBuffer(newbuf);
	if (tailbuf != InvalidBuffer)
		UnlockReleaseBuffer(tailbuf);
	UnlockReleaseBuffer(metabuf);
	return false;
}
