-- ==================================================================
-- 1.5: wide fingerprints, simhash128 and simhash256
-- ==================================================================

-- Word i (of 2 or 4 64-bit words) is Charikar's sum over the same features
-- and weights as the 64-bit function, hashed with XXH3_64bits seed i: word
-- 0 is the simhash of the same input, and the text form (word 0 first)
-- starts with it (doc/simhash.md, "Wide fingerprints").


--@widths 128 256
-- ------------------------------------------------------------------
-- {type}: {bits} bits, {bytes} bytes, passed by reference
-- ------------------------------------------------------------------

--@type {type} {bytes} double
COMMENT ON TYPE @extschema@.{type} IS
	'{bits}-bit simhash fingerprint ({hex} hex digits, the first 16 being its 64-bit simhash)';

-- Casts: bytea ({bytes} bytes) and bit({bits}) in the text form's order; the
-- prefixes to the narrower widths (explicit: they drop bits)
--@functions {type}_casts
--@for narrow in {narrower}
--@functions {type}_to_{narrow}
--@end
CREATE CAST (bytea AS @extschema@.{type}) WITH FUNCTION @extschema@.{type}(bytea);
CREATE CAST (bit AS @extschema@.{type}) WITH FUNCTION @extschema@.{type}(bit);
CREATE CAST (bit varying AS @extschema@.{type}) WITH FUNCTION @extschema@.{type}(bit);
CREATE CAST (@extschema@.{type} AS bytea) WITH FUNCTION @extschema@.{type}_to_bytea(@extschema@.{type});
CREATE CAST (@extschema@.{type} AS bit) WITH FUNCTION @extschema@.{type}_to_bit(@extschema@.{type});
--@for narrow in {narrower}
CREATE CAST (@extschema@.{type} AS @extschema@.{narrow}) WITH FUNCTION @extschema@.{narrow}(@extschema@.{type});
--@end

-- B-tree and hash: the order of the bytes (word 0 first, unsigned)
--@functions {type}_btree_hash
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}, FUNCTION = @extschema@.{type}_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}, FUNCTION = @extschema@.{type}_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}, FUNCTION = @extschema@.{type}_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}, FUNCTION = @extschema@.{type}_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}, FUNCTION = @extschema@.{type}_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}, FUNCTION = @extschema@.{type}_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR CLASS @extschema@.{type}_ops
	DEFAULT FOR TYPE @extschema@.{type} USING btree AS
	OPERATOR 1 @extschema@.<, OPERATOR 2 @extschema@.<=, OPERATOR 3 @extschema@.=,
	OPERATOR 4 @extschema@.>=, OPERATOR 5 @extschema@.>,
	FUNCTION 1 @extschema@.{type}_cmp(@extschema@.{type}, @extschema@.{type}),
	FUNCTION 2 @extschema@.{type}_sortsupport(internal);
CREATE OPERATOR CLASS @extschema@.{type}_ops
	DEFAULT FOR TYPE @extschema@.{type} USING hash AS
	OPERATOR 1 @extschema@.=,
	FUNCTION 1 @extschema@.{type}_hash(@extschema@.{type}),
	FUNCTION 2 @extschema@.{type}_hash_extended(@extschema@.{type}, bigint);

-- Hamming distance (a simhash_distance, as for simhash), the same as a
-- plain integer (the GiST ordering operator), radius and similarity
--@functions {type}_distance
CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type},
	FUNCTION = @extschema@.hamming_distance, COMMUTATOR = OPERATOR(@extschema@.<->)
);
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.{type}, @extschema@.{type}) IS 'Hamming distance';
CREATE OPERATOR @extschema@.<#> (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type},
	FUNCTION = @extschema@.hamming_distance_int, COMMUTATOR = OPERATOR(@extschema@.<#>)
);
COMMENT ON OPERATOR @extschema@.<#> (@extschema@.{type}, @extschema@.{type}) IS
	'Hamming distance as integer (index ordering operator)';

-- Fingerprints (stored data: these outputs never change)
--@functions {type}_fingerprints

-- Aggregates: {type}_agg over (feature, weight) rows, and min, max, bit_or,
-- bit_and as for simhash
--@functions {type}_agg
CREATE AGGREGATE @extschema@.{type}_agg(text, double precision) (
	SFUNC = @extschema@.{type}_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.{type}_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.{type}_agg(text, double precision) IS
	'{bits}-bit fingerprint of (feature, weight) rows';
CREATE AGGREGATE @extschema@.{type}_agg(text) (
	SFUNC = @extschema@.{type}_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.{type}_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.{type}_agg(text) IS
	'{bits}-bit fingerprint of feature rows, each of weight 1';

--@functions {type}_min_max
CREATE AGGREGATE @extschema@.min(@extschema@.{type}) (
	SFUNC = @extschema@.{type}_smaller, STYPE = @extschema@.{type},
	COMBINEFUNC = @extschema@.{type}_smaller, SORTOP = OPERATOR(@extschema@.<), PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.{type}) IS
	'smallest fingerprint in the B-tree order';
CREATE AGGREGATE @extschema@.max(@extschema@.{type}) (
	SFUNC = @extschema@.{type}_larger, STYPE = @extschema@.{type},
	COMBINEFUNC = @extschema@.{type}_larger, SORTOP = OPERATOR(@extschema@.>), PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.{type}) IS
	'largest fingerprint in the B-tree order';
CREATE AGGREGATE @extschema@.bit_or(@extschema@.{type}) (
	SFUNC = @extschema@.{type}_or, STYPE = @extschema@.{type},
	COMBINEFUNC = @extschema@.{type}_or, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_or(@extschema@.{type}) IS
	'bitwise OR of the fingerprints: bits set in any';
CREATE AGGREGATE @extschema@.bit_and(@extschema@.{type}) (
	SFUNC = @extschema@.{type}_and, STYPE = @extschema@.{type},
	COMBINEFUNC = @extschema@.{type}_and, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_and(@extschema@.{type}) IS
	'bitwise AND of the fingerprints: bits set in all';

--@end
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

--@widths 128 256
--@descriptions parts/1.5-descriptions.tsv
--@end
--@widths 128 256
--@descriptions parts/1.5-class-descriptions.tsv
--@end
