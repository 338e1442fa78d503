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
