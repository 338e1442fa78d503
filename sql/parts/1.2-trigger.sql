-- ------------------------------------------------------------------
-- Insert-time deduplication: a trigger that rejects near-duplicates
-- (src/trigger.c)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_reject_near_duplicates() RETURNS trigger
	AS 'MODULE_PATHNAME', 'simhash_reject_near_duplicates'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_reject_near_duplicates() IS
	'BEFORE INSERT OR UPDATE row trigger, arguments (column, k [, ''skip'']): rejects (23P01) or skips a row within k bits of another row, race-free';
