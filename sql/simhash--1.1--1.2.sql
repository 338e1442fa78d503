/* simhash--1.1--1.2.sql: update from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- 1.2 adds functions only; fingerprints, operators and index layouts of 1.1
-- are unchanged, so existing indexes stay valid.

-- ------------------------------------------------------------------
-- Insert-time deduplication: a trigger that rejects near-duplicates
-- (src/trigger.c)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_reject_near_duplicates() RETURNS trigger
	AS 'MODULE_PATHNAME', 'simhash_reject_near_duplicates'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_reject_near_duplicates() IS
	'BEFORE INSERT OR UPDATE row trigger, arguments (column, k [, ''skip'']): rejects (23P01) or skips a row within k bits of another row, race-free';
