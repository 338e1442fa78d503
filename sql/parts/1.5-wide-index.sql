-- ==================================================================
-- 1.5: radius search and indexes at 128 and 256 bits
-- ==================================================================

-- As for simhash: a ball type per width, simhash_ball(fp, k), fp <@ ball
-- and ball @> fp; the planner support functions (support.c) turn
-- fp <-> q <= k, simhash_within(fp, q, k) and fp <@ simhash_ball(q, k) into
-- an index condition on either class, and ORDER BY fp <-> q into a GiST
-- ordering scan.  Both classes are exact: GIN rechecks every candidate on
-- the heap, GiST's leaf keys are the fingerprints.
--@widths 128 256

-- ------------------------------------------------------------------
-- {type}
-- ------------------------------------------------------------------

--@type {type}_ball {ball_bytes} double
COMMENT ON TYPE @extschema@.{type}_ball IS
	'Hamming ball: a centre {type} and a radius';

--@functions {type}_ball
--@include parts/ball-operators.sql

-- GIN: {segments} integer keys per row, (segment number, 16-bit segment value);
-- candidates are rechecked against the whole fingerprint
--@functions {type}_gin
CREATE OPERATOR CLASS @extschema@.{type}_gin_ops
	DEFAULT FOR TYPE @extschema@.{type} USING gin AS
--@gin_support {type}_gin {type} integer
	STORAGE integer;
COMMENT ON OPERATOR CLASS @extschema@.{type}_gin_ops USING gin IS
	'GIN: radius search fp <-> q <= k on {segments} 16-bit segment keys, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.{type}_gin_ops USING gin IS
	'GIN radius search on {type} by segment keys';

-- GiST: radius search and nearest neighbours (ORDER BY fp <-> q)
--@type {type}_gist_key {key_bytes} double
COMMENT ON TYPE @extschema@.{type}_gist_key IS
	'GiST key of {type}_gist_ops: bits set in all and in any fingerprint below a node (internal to the index)';

--@functions {type}_gist
--@include parts/gist-class.sql
COMMENT ON OPERATOR CLASS @extschema@.{type}_gist_ops USING gist IS
	'GiST: radius search fp <-> q <= k and nearest neighbours ORDER BY fp <-> q, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.{type}_gist_ops USING gist IS
	'GiST radius search and nearest neighbours on {type}';
--@end
