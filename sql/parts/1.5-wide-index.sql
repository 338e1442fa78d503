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
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}_ball,
	FUNCTION = @extschema@.simhash_in_ball,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.{type}, @extschema@.{type}_ball) IS
	'fingerprint is within the Hamming ball (distance to its centre <= its radius, in bits)';
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.{type}_ball, RIGHTARG = @extschema@.{type},
	FUNCTION = @extschema@.simhash_ball_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.@> (@extschema@.{type}_ball, @extschema@.{type}) IS
	'Hamming ball contains';

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
CREATE OPERATOR CLASS @extschema@.{type}_gist_ops
	DEFAULT FOR TYPE @extschema@.{type} USING gist AS
	OPERATOR 1 @extschema@.<@ (@extschema@.{type}, @extschema@.{type}_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.{type}, @extschema@.{type}) FOR ORDER BY pg_catalog.integer_ops,
	FUNCTION 1 @extschema@.{type}_gist_consistent(internal, @extschema@.{type}_ball, smallint, oid, internal),
	FUNCTION 2 @extschema@.{type}_gist_union(internal, internal),
	FUNCTION 3 @extschema@.{type}_gist_compress(internal),
	FUNCTION 5 @extschema@.{type}_gist_penalty(internal, internal, internal),
	FUNCTION 6 @extschema@.{type}_gist_picksplit(internal, internal),
	FUNCTION 7 @extschema@.{type}_gist_same(@extschema@.{type}_gist_key, @extschema@.{type}_gist_key, internal),
	FUNCTION 8 @extschema@.{type}_gist_distance(internal, @extschema@.{type}, smallint, oid, internal),
	FUNCTION 9 @extschema@.{type}_gist_fetch(internal),
	FUNCTION 11 @extschema@.{type}_gist_sortsupport(internal),
	STORAGE @extschema@.{type}_gist_key;
COMMENT ON OPERATOR CLASS @extschema@.{type}_gist_ops USING gist IS
	'GiST: radius search fp <-> q <= k and nearest neighbours ORDER BY fp <-> q, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.{type}_gist_ops USING gist IS
	'GiST radius search and nearest neighbours on {type}';
--@end
