-- ==================================================================
-- 1.5: radius search and indexes at 128 and 256 bits
-- ==================================================================

-- As for simhash: a ball type per width, simhash_ball(fp, k), fp <@ ball
-- and ball @> fp; the planner support functions (support.c) turn
-- fp <-> q <= k, simhash_within(fp, q, k) and fp <@ simhash_ball(q, k) into
-- an index condition on either class, and ORDER BY fp <-> q into a GiST
-- ordering scan.  Both classes are exact: GIN rechecks every candidate on
-- the heap, GiST's leaf keys are the fingerprints.

-- ------------------------------------------------------------------
-- simhash128
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash128_ball;
--@functions simhash128_ball_io
CREATE TYPE @extschema@.simhash128_ball (
	INPUT = @extschema@.simhash128_ball_in, OUTPUT = @extschema@.simhash128_ball_out,
	RECEIVE = @extschema@.simhash128_ball_recv, SEND = @extschema@.simhash128_ball_send,
	INTERNALLENGTH = 24, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash128_ball IS
	'Hamming ball: a centre simhash128 and a radius';

--@functions simhash128_ball
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128_ball,
	FUNCTION = @extschema@.simhash_in_ball,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.simhash128, @extschema@.simhash128_ball) IS
	'fingerprint is within the Hamming ball (distance to its centre <= its radius, in bits)';
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.simhash128_ball, RIGHTARG = @extschema@.simhash128,
	FUNCTION = @extschema@.simhash_ball_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.@> (@extschema@.simhash128_ball, @extschema@.simhash128) IS
	'Hamming ball contains';

-- GIN: 8 integer keys per row, (segment number, 16-bit segment value);
-- candidates are rechecked against the whole fingerprint
--@functions simhash128_gin
CREATE OPERATOR CLASS @extschema@.simhash128_gin_ops
	DEFAULT FOR TYPE @extschema@.simhash128 USING gin AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash128, @extschema@.simhash128_ball),
	FUNCTION 1 pg_catalog.btint4cmp(integer, integer),
	FUNCTION 2 @extschema@.simhash128_gin_extract_value(@extschema@.simhash128, internal, internal),
	FUNCTION 3 @extschema@.simhash128_gin_extract_query(@extschema@.simhash128_ball, internal, smallint, internal, internal, internal, internal),
	FUNCTION 4 @extschema@.simhash128_gin_consistent(internal, smallint, @extschema@.simhash128_ball, integer, internal, internal, internal, internal),
	FUNCTION 6 @extschema@.simhash128_gin_triconsistent(internal, smallint, @extschema@.simhash128_ball, integer, internal, internal, internal),
	STORAGE integer;
COMMENT ON OPERATOR CLASS @extschema@.simhash128_gin_ops USING gin IS
	'GIN: radius search fp <-> q <= k on 8 16-bit segment keys, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash128_gin_ops USING gin IS
	'GIN radius search on simhash128 by segment keys';

-- GiST: radius search and nearest neighbours (ORDER BY fp <-> q)
CREATE TYPE @extschema@.simhash128_gist_key;
--@functions simhash128_gist_key_io
CREATE TYPE @extschema@.simhash128_gist_key (
	INPUT = @extschema@.simhash128_gist_key_in, OUTPUT = @extschema@.simhash128_gist_key_out,
	INTERNALLENGTH = 32, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash128_gist_key IS
	'GiST key of simhash128_gist_ops: bits set in all and in any fingerprint below a node (internal to the index)';

--@functions simhash128_gist
CREATE OPERATOR CLASS @extschema@.simhash128_gist_ops
	DEFAULT FOR TYPE @extschema@.simhash128 USING gist AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash128, @extschema@.simhash128_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.simhash128, @extschema@.simhash128) FOR ORDER BY pg_catalog.integer_ops,
	FUNCTION 1 @extschema@.simhash128_gist_consistent(internal, @extschema@.simhash128_ball, smallint, oid, internal),
	FUNCTION 2 @extschema@.simhash128_gist_union(internal, internal),
	FUNCTION 3 @extschema@.simhash128_gist_compress(internal),
	FUNCTION 5 @extschema@.simhash128_gist_penalty(internal, internal, internal),
	FUNCTION 6 @extschema@.simhash128_gist_picksplit(internal, internal),
	FUNCTION 7 @extschema@.simhash128_gist_same(@extschema@.simhash128_gist_key, @extschema@.simhash128_gist_key, internal),
	FUNCTION 8 @extschema@.simhash128_gist_distance(internal, @extschema@.simhash128, smallint, oid, internal),
	FUNCTION 9 @extschema@.simhash128_gist_fetch(internal),
	FUNCTION 11 @extschema@.simhash128_gist_sortsupport(internal),
	STORAGE @extschema@.simhash128_gist_key;
COMMENT ON OPERATOR CLASS @extschema@.simhash128_gist_ops USING gist IS
	'GiST: radius search fp <-> q <= k and nearest neighbours ORDER BY fp <-> q, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash128_gist_ops USING gist IS
	'GiST radius search and nearest neighbours on simhash128';

-- ------------------------------------------------------------------
-- simhash256
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash256_ball;
--@functions simhash256_ball_io
CREATE TYPE @extschema@.simhash256_ball (
	INPUT = @extschema@.simhash256_ball_in, OUTPUT = @extschema@.simhash256_ball_out,
	RECEIVE = @extschema@.simhash256_ball_recv, SEND = @extschema@.simhash256_ball_send,
	INTERNALLENGTH = 40, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash256_ball IS
	'Hamming ball: a centre simhash256 and a radius';

--@functions simhash256_ball
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256_ball,
	FUNCTION = @extschema@.simhash_in_ball,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.simhash256, @extschema@.simhash256_ball) IS
	'fingerprint is within the Hamming ball (distance to its centre <= its radius, in bits)';
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.simhash256_ball, RIGHTARG = @extschema@.simhash256,
	FUNCTION = @extschema@.simhash_ball_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.@> (@extschema@.simhash256_ball, @extschema@.simhash256) IS
	'Hamming ball contains';

-- GIN: 16 integer keys per row, (segment number, 16-bit segment value);
-- candidates are rechecked against the whole fingerprint
--@functions simhash256_gin
CREATE OPERATOR CLASS @extschema@.simhash256_gin_ops
	DEFAULT FOR TYPE @extschema@.simhash256 USING gin AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash256, @extschema@.simhash256_ball),
	FUNCTION 1 pg_catalog.btint4cmp(integer, integer),
	FUNCTION 2 @extschema@.simhash256_gin_extract_value(@extschema@.simhash256, internal, internal),
	FUNCTION 3 @extschema@.simhash256_gin_extract_query(@extschema@.simhash256_ball, internal, smallint, internal, internal, internal, internal),
	FUNCTION 4 @extschema@.simhash256_gin_consistent(internal, smallint, @extschema@.simhash256_ball, integer, internal, internal, internal, internal),
	FUNCTION 6 @extschema@.simhash256_gin_triconsistent(internal, smallint, @extschema@.simhash256_ball, integer, internal, internal, internal),
	STORAGE integer;
COMMENT ON OPERATOR CLASS @extschema@.simhash256_gin_ops USING gin IS
	'GIN: radius search fp <-> q <= k on 16 16-bit segment keys, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash256_gin_ops USING gin IS
	'GIN radius search on simhash256 by segment keys';

-- GiST: radius search and nearest neighbours (ORDER BY fp <-> q)
CREATE TYPE @extschema@.simhash256_gist_key;
--@functions simhash256_gist_key_io
CREATE TYPE @extschema@.simhash256_gist_key (
	INPUT = @extschema@.simhash256_gist_key_in, OUTPUT = @extschema@.simhash256_gist_key_out,
	INTERNALLENGTH = 64, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash256_gist_key IS
	'GiST key of simhash256_gist_ops: bits set in all and in any fingerprint below a node (internal to the index)';

--@functions simhash256_gist
CREATE OPERATOR CLASS @extschema@.simhash256_gist_ops
	DEFAULT FOR TYPE @extschema@.simhash256 USING gist AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash256, @extschema@.simhash256_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.simhash256, @extschema@.simhash256) FOR ORDER BY pg_catalog.integer_ops,
	FUNCTION 1 @extschema@.simhash256_gist_consistent(internal, @extschema@.simhash256_ball, smallint, oid, internal),
	FUNCTION 2 @extschema@.simhash256_gist_union(internal, internal),
	FUNCTION 3 @extschema@.simhash256_gist_compress(internal),
	FUNCTION 5 @extschema@.simhash256_gist_penalty(internal, internal, internal),
	FUNCTION 6 @extschema@.simhash256_gist_picksplit(internal, internal),
	FUNCTION 7 @extschema@.simhash256_gist_same(@extschema@.simhash256_gist_key, @extschema@.simhash256_gist_key, internal),
	FUNCTION 8 @extschema@.simhash256_gist_distance(internal, @extschema@.simhash256, smallint, oid, internal),
	FUNCTION 9 @extschema@.simhash256_gist_fetch(internal),
	FUNCTION 11 @extschema@.simhash256_gist_sortsupport(internal),
	STORAGE @extschema@.simhash256_gist_key;
COMMENT ON OPERATOR CLASS @extschema@.simhash256_gist_ops USING gist IS
	'GiST: radius search fp <-> q <= k and nearest neighbours ORDER BY fp <-> q, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash256_gist_ops USING gist IS
	'GiST radius search and nearest neighbours on simhash256';
