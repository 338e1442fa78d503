/*
 * batch_common.c
 *		What every layer of the batch functions may use: their names and
 *		the check of their memory against maintenance_work_mem.
 */
#include "batch_common.h"

const char *const simhash_batch_fname[] = {
	"simhash_pairs", "simhash_group_pairs", "simhash_clusters",
	"simhash_block_pairs", "simhash_pair_clusters", "simhash_word_pairs",
	"simhash_pairs"
};

/*
 * 54000 when `need` bytes for nrows rows (the distinct ids of
 * simhash_pair_clusters) exceed maintenance_work_mem; more_to_come when
 * the input is not all read yet.  per_row is the figure of the detail.
 */
void
simhash_batch_check_memory(BatchKind kind, Size need, Size nrows,
						   Size per_row, bool more_to_come)
{
	const char *more = more_to_come ? "more than " : "";

	if (need / 1024 <= (Size) maintenance_work_mem)
		return;
	if (kind == BATCH_PAIR_CLUSTERS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s needs %s%zu MB of memory for %s%zu ids",
						simhash_batch_fname[kind], more,
						need / (1024 * 1024) + 1, more, nrows),
				 errdetail("It keeps about %zu bytes per distinct id in memory.",
						   per_row),
				 errhint("Raise maintenance_work_mem (now %dkB) accordingly.",
						 maintenance_work_mem)));
	ereport(ERROR,
			(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
			 errmsg("%s needs %s%zu MB of memory for %s%zu rows",
					simhash_batch_fname[kind], more,
					need / (1024 * 1024) + 1, more, nrows),
			 errdetail("It keeps %zu bytes per row in memory.", per_row),
			 errhint("Raise maintenance_work_mem (now %dkB) accordingly.",
					 maintenance_work_mem)));
}
