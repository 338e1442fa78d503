-- ==================================================================
-- 1.5: wide fingerprints, simhash128 and simhash256
-- ==================================================================

-- Word i (of 2 or 4 64-bit words) is Charikar's sum over the same features
-- and weights as the 64-bit function, hashed with XXH3_64bits seed i: word
-- 0 is the simhash of the same input, and the text form (word 0 first)
-- starts with it (doc/simhash.md, "Wide fingerprints").


-- ------------------------------------------------------------------
-- simhash128: 128 bits, 16 bytes, passed by reference
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash128;
--@functions simhash128_io
CREATE TYPE @extschema@.simhash128 (
	INPUT = @extschema@.simhash128_in, OUTPUT = @extschema@.simhash128_out,
	RECEIVE = @extschema@.simhash128_recv, SEND = @extschema@.simhash128_send,
	INTERNALLENGTH = 16, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash128 IS
	'128-bit simhash fingerprint (32 hex digits, the first 16 being its 64-bit simhash)';

-- Casts: bytea (16 bytes) and bit(128) in the text form's order; the
-- prefixes to the narrower widths (explicit: they drop bits)
--@functions simhash128_casts
CREATE CAST (bytea AS @extschema@.simhash128) WITH FUNCTION @extschema@.simhash128(bytea);
CREATE CAST (bit AS @extschema@.simhash128) WITH FUNCTION @extschema@.simhash128(bit);
CREATE CAST (bit varying AS @extschema@.simhash128) WITH FUNCTION @extschema@.simhash128(bit);
CREATE CAST (@extschema@.simhash128 AS bytea) WITH FUNCTION @extschema@.simhash128_to_bytea(@extschema@.simhash128);
CREATE CAST (@extschema@.simhash128 AS bit) WITH FUNCTION @extschema@.simhash128_to_bit(@extschema@.simhash128);
CREATE CAST (@extschema@.simhash128 AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash(@extschema@.simhash128);

-- B-tree and hash: the order of the bytes (word 0 first, unsigned)
--@functions simhash128_btree_hash
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128, FUNCTION = @extschema@.simhash128_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128, FUNCTION = @extschema@.simhash128_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128, FUNCTION = @extschema@.simhash128_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128, FUNCTION = @extschema@.simhash128_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128, FUNCTION = @extschema@.simhash128_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128, FUNCTION = @extschema@.simhash128_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR CLASS @extschema@.simhash128_ops
	DEFAULT FOR TYPE @extschema@.simhash128 USING btree AS
	OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
	OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
	FUNCTION 1 @extschema@.simhash128_cmp(@extschema@.simhash128, @extschema@.simhash128),
	FUNCTION 2 @extschema@.simhash128_sortsupport(internal);
CREATE OPERATOR CLASS @extschema@.simhash128_ops
	DEFAULT FOR TYPE @extschema@.simhash128 USING hash AS
	OPERATOR 1 @extschema@.=,
	FUNCTION 1 @extschema@.simhash128_hash(@extschema@.simhash128),
	FUNCTION 2 @extschema@.simhash128_hash_extended(@extschema@.simhash128, bigint);

-- Hamming distance (a simhash_distance, as for simhash), the same as a
-- plain integer (the GiST ordering operator), radius and similarity
--@functions simhash128_distance
CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128,
	FUNCTION = @extschema@.hamming_distance, COMMUTATOR = OPERATOR(@extschema@.<->)
);
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.simhash128, @extschema@.simhash128) IS 'Hamming distance';
CREATE OPERATOR @extschema@.<#> (
	LEFTARG = @extschema@.simhash128, RIGHTARG = @extschema@.simhash128,
	FUNCTION = @extschema@.hamming_distance_int, COMMUTATOR = OPERATOR(@extschema@.<#>)
);
COMMENT ON OPERATOR @extschema@.<#> (@extschema@.simhash128, @extschema@.simhash128) IS
	'Hamming distance as integer (index ordering operator)';

-- Fingerprints (stored data: these outputs never change)
--@functions simhash128_fingerprints

-- Aggregates: simhash128_agg over (feature, weight) rows, and min, max, bit_or,
-- bit_and as for simhash
--@functions simhash128_agg
CREATE AGGREGATE @extschema@.simhash128_agg(text, double precision) (
	SFUNC = @extschema@.simhash128_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.simhash128_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash128_agg(text, double precision) IS
	'128-bit fingerprint of (feature, weight) rows';
CREATE AGGREGATE @extschema@.simhash128_agg(text) (
	SFUNC = @extschema@.simhash128_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.simhash128_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash128_agg(text) IS
	'128-bit fingerprint of feature rows, each of weight 1';

--@functions simhash128_min_max
CREATE AGGREGATE @extschema@.min(@extschema@.simhash128) (
	SFUNC = @extschema@.simhash128_smaller, STYPE = @extschema@.simhash128,
	COMBINEFUNC = @extschema@.simhash128_smaller, SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.simhash128) IS
	'smallest fingerprint in the B-tree order';
CREATE AGGREGATE @extschema@.max(@extschema@.simhash128) (
	SFUNC = @extschema@.simhash128_larger, STYPE = @extschema@.simhash128,
	COMBINEFUNC = @extschema@.simhash128_larger, SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.simhash128) IS
	'largest fingerprint in the B-tree order';
CREATE AGGREGATE @extschema@.bit_or(@extschema@.simhash128) (
	SFUNC = @extschema@.simhash128_or, STYPE = @extschema@.simhash128,
	COMBINEFUNC = @extschema@.simhash128_or, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_or(@extschema@.simhash128) IS
	'bitwise OR of the fingerprints: bits set in any';
CREATE AGGREGATE @extschema@.bit_and(@extschema@.simhash128) (
	SFUNC = @extschema@.simhash128_and, STYPE = @extschema@.simhash128,
	COMBINEFUNC = @extschema@.simhash128_and, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_and(@extschema@.simhash128) IS
	'bitwise AND of the fingerprints: bits set in all';

-- ------------------------------------------------------------------
-- simhash256: 256 bits, 32 bytes, passed by reference
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash256;
--@functions simhash256_io
CREATE TYPE @extschema@.simhash256 (
	INPUT = @extschema@.simhash256_in, OUTPUT = @extschema@.simhash256_out,
	RECEIVE = @extschema@.simhash256_recv, SEND = @extschema@.simhash256_send,
	INTERNALLENGTH = 32, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash256 IS
	'256-bit simhash fingerprint (64 hex digits, the first 16 being its 64-bit simhash)';

-- Casts: bytea (32 bytes) and bit(256) in the text form's order; the
-- prefixes to the narrower widths (explicit: they drop bits)
--@functions simhash256_casts
CREATE CAST (bytea AS @extschema@.simhash256) WITH FUNCTION @extschema@.simhash256(bytea);
CREATE CAST (bit AS @extschema@.simhash256) WITH FUNCTION @extschema@.simhash256(bit);
CREATE CAST (bit varying AS @extschema@.simhash256) WITH FUNCTION @extschema@.simhash256(bit);
CREATE CAST (@extschema@.simhash256 AS bytea) WITH FUNCTION @extschema@.simhash256_to_bytea(@extschema@.simhash256);
CREATE CAST (@extschema@.simhash256 AS bit) WITH FUNCTION @extschema@.simhash256_to_bit(@extschema@.simhash256);
CREATE CAST (@extschema@.simhash256 AS @extschema@.simhash) WITH FUNCTION @extschema@.simhash(@extschema@.simhash256);
CREATE CAST (@extschema@.simhash256 AS @extschema@.simhash128) WITH FUNCTION @extschema@.simhash128(@extschema@.simhash256);

-- B-tree and hash: the order of the bytes (word 0 first, unsigned)
--@functions simhash256_btree_hash
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256, FUNCTION = @extschema@.simhash256_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256, FUNCTION = @extschema@.simhash256_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256, FUNCTION = @extschema@.simhash256_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256, FUNCTION = @extschema@.simhash256_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256, FUNCTION = @extschema@.simhash256_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256, FUNCTION = @extschema@.simhash256_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR CLASS @extschema@.simhash256_ops
	DEFAULT FOR TYPE @extschema@.simhash256 USING btree AS
	OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
	OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
	FUNCTION 1 @extschema@.simhash256_cmp(@extschema@.simhash256, @extschema@.simhash256),
	FUNCTION 2 @extschema@.simhash256_sortsupport(internal);
CREATE OPERATOR CLASS @extschema@.simhash256_ops
	DEFAULT FOR TYPE @extschema@.simhash256 USING hash AS
	OPERATOR 1 @extschema@.=,
	FUNCTION 1 @extschema@.simhash256_hash(@extschema@.simhash256),
	FUNCTION 2 @extschema@.simhash256_hash_extended(@extschema@.simhash256, bigint);

-- Hamming distance (a simhash_distance, as for simhash), the same as a
-- plain integer (the GiST ordering operator), radius and similarity
--@functions simhash256_distance
CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256,
	FUNCTION = @extschema@.hamming_distance, COMMUTATOR = OPERATOR(@extschema@.<->)
);
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.simhash256, @extschema@.simhash256) IS 'Hamming distance';
CREATE OPERATOR @extschema@.<#> (
	LEFTARG = @extschema@.simhash256, RIGHTARG = @extschema@.simhash256,
	FUNCTION = @extschema@.hamming_distance_int, COMMUTATOR = OPERATOR(@extschema@.<#>)
);
COMMENT ON OPERATOR @extschema@.<#> (@extschema@.simhash256, @extschema@.simhash256) IS
	'Hamming distance as integer (index ordering operator)';

-- Fingerprints (stored data: these outputs never change)
--@functions simhash256_fingerprints

-- Aggregates: simhash256_agg over (feature, weight) rows, and min, max, bit_or,
-- bit_and as for simhash
--@functions simhash256_agg
CREATE AGGREGATE @extschema@.simhash256_agg(text, double precision) (
	SFUNC = @extschema@.simhash256_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.simhash256_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash256_agg(text, double precision) IS
	'256-bit fingerprint of (feature, weight) rows';
CREATE AGGREGATE @extschema@.simhash256_agg(text) (
	SFUNC = @extschema@.simhash256_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.simhash256_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash256_agg(text) IS
	'256-bit fingerprint of feature rows, each of weight 1';

--@functions simhash256_min_max
CREATE AGGREGATE @extschema@.min(@extschema@.simhash256) (
	SFUNC = @extschema@.simhash256_smaller, STYPE = @extschema@.simhash256,
	COMBINEFUNC = @extschema@.simhash256_smaller, SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.simhash256) IS
	'smallest fingerprint in the B-tree order';
CREATE AGGREGATE @extschema@.max(@extschema@.simhash256) (
	SFUNC = @extschema@.simhash256_larger, STYPE = @extschema@.simhash256,
	COMBINEFUNC = @extschema@.simhash256_larger, SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.simhash256) IS
	'largest fingerprint in the B-tree order';
CREATE AGGREGATE @extschema@.bit_or(@extschema@.simhash256) (
	SFUNC = @extschema@.simhash256_or, STYPE = @extschema@.simhash256,
	COMBINEFUNC = @extschema@.simhash256_or, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_or(@extschema@.simhash256) IS
	'bitwise OR of the fingerprints: bits set in any';
CREATE AGGREGATE @extschema@.bit_and(@extschema@.simhash256) (
	SFUNC = @extschema@.simhash256_and, STYPE = @extschema@.simhash256,
	COMBINEFUNC = @extschema@.simhash256_and, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_and(@extschema@.simhash256) IS
	'bitwise AND of the fingerprints: bits set in all';

-- The three fingerprint types share a type category, with simhash its
-- preferred type: an untyped literal where any width would do, as in
-- simhash_ball('f3a90c1e00b2d47f', 3) or hamming_distance('...', '...'),
-- resolves to simhash, as it did before the wide types existed, instead of
-- failing as ambiguous (42725).  CREATE TYPE cannot change an existing
-- type's category, so it is set in the catalog, as parts/1.4-default.sql
-- sets the default GIN class.
UPDATE pg_catalog.pg_type t
SET typcategory = 'h', typispreferred = (t.typname = 'simhash')
WHERE t.oid IN ('@extschema@.simhash'::pg_catalog.regtype,
                '@extschema@.simhash128'::pg_catalog.regtype,
                '@extschema@.simhash256'::pg_catalog.regtype);

-- ------------------------------------------------------------------
-- Similarity at every width, and the radius of a similarity
-- ------------------------------------------------------------------
--@functions similarity

--@descriptions parts/1.5-descriptions.tsv
