/* simhash--1.1--1.2.sql: update from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION simhash UPDATE TO '1.2'" to load this file. \quit

-- 1.2 adds functions only; fingerprints, operators and index layouts of 1.1
-- are unchanged, so existing indexes stay valid.

-- ------------------------------------------------------------------
-- 1.2: simhash_group_pairs, near-duplicate pairs with each set of rows
-- sharing one fingerprint collapsed into one group
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_group_pairs(query text, k integer)
	RETURNS TABLE (id1 bigint, id2 bigint, distance integer, size1 bigint, size2 bigint)
	AS 'MODULE_PATHNAME', 'simhash_group_pairs'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.simhash_group_pairs(text, integer) IS
	'groups of equal fingerprints of the query (smallest id, rows) once each, and every pair of groups within Hamming distance k';
