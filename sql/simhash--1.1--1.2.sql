/* simhash--1.1--1.2.sql: update from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- Fingerprints, operators and index layouts of 1.1 are unchanged, so
-- existing indexes stay valid.

-- fp <@ simhash_ball(q, k) takes the same path to an index as fp <-> q <= k
-- (a planner support function; ALTER FUNCTION keeps the function's OID).
CREATE FUNCTION @extschema@.simhash_in_ball_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_in_ball_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER FUNCTION @extschema@.simhash_in_ball(@extschema@.simhash, @extschema@.simhash_ball)
	SUPPORT @extschema@.simhash_in_ball_support;
ALTER FUNCTION @extschema@.simhash_ball_contains(@extschema@.simhash_ball, @extschema@.simhash)
	SUPPORT @extschema@.simhash_in_ball_support;

-- ------------------------------------------------------------------
-- Insert-time deduplication: a trigger that rejects near-duplicates
-- (src/trigger.c)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_reject_near_duplicates() RETURNS trigger
	AS 'MODULE_PATHNAME', 'simhash_reject_near_duplicates'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_reject_near_duplicates() IS
	'BEFORE INSERT OR UPDATE row trigger, arguments (column, k [, ''skip'']): rejects (23P01) or skips a row within k bits of another row, race-free';
