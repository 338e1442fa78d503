/*
 * simhash.c
 *		The module: its magic block and what happens when the library loads.
 *
 * The top of the source tree, above every layer (doc/architecture.md):
 * settings are defined here so that no lower file has to know the module.
 */
#include "simhash.h"
#include "batch/batch_kernels.h"
#include "type/similar.h"

#include "utils/guc.h"

PG_MODULE_MAGIC;

void		_PG_init(void);

/*
 * Library load: define the settings, and reserve the "simhash." prefix, as
 * pg_trgm does for its own: once the library is loaded, a misspelt SET
 * simhash.x is an error (42602), never accepted as a custom variable that
 * nothing reads.
 */
void
_PG_init(void)
{
	simhash_batch_kernels_define_guc();
	simhash_similarity_define_guc();
	MarkGUCPrefixReserved("simhash");
}
