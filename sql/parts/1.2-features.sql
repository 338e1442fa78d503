-- ==================================================================
-- 1.2: features as rows, min/max/bit_or/bit_and, descriptions
-- ==================================================================

-- The features and weights a text is fingerprinted from (features.c): the
-- fingerprint function over them (array form or simhash_agg, in row order)
-- gives the same fingerprint, and other weights (TF-IDF) a weighted one.
--@functions features

-- min and max in the B-tree order (unsigned value), bit_or and bit_and
--@functions min_max

CREATE AGGREGATE @extschema@.min(@extschema@.simhash) (
	SFUNC = @extschema@.simhash_smaller, STYPE = @extschema@.simhash,
	COMBINEFUNC = @extschema@.simhash_smaller, SORTOP = OPERATOR(@extschema@.<),
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.min(@extschema@.simhash) IS
	'smallest fingerprint as an unsigned 64-bit value';
CREATE AGGREGATE @extschema@.max(@extschema@.simhash) (
	SFUNC = @extschema@.simhash_larger, STYPE = @extschema@.simhash,
	COMBINEFUNC = @extschema@.simhash_larger, SORTOP = OPERATOR(@extschema@.>),
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.max(@extschema@.simhash) IS
	'largest fingerprint as an unsigned 64-bit value';
CREATE AGGREGATE @extschema@.bit_or(@extschema@.simhash) (
	SFUNC = @extschema@.simhash_or, STYPE = @extschema@.simhash,
	COMBINEFUNC = @extschema@.simhash_or, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_or(@extschema@.simhash) IS
	'bitwise OR of the fingerprints: bits set in any';
CREATE AGGREGATE @extschema@.bit_and(@extschema@.simhash) (
	SFUNC = @extschema@.simhash_and, STYPE = @extschema@.simhash,
	COMBINEFUNC = @extschema@.simhash_and, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.bit_and(@extschema@.simhash) IS
	'bitwise AND of the fingerprints: bits set in all';

-- A description for every object a user can name, so that \df+, \do+,
-- \dT+ and GUI tools explain it (sql/comments.sql checks that none lacks
-- one).  Functions taking or returning internal are support functions that
-- SQL cannot call; they keep none.
--@descriptions parts/1.2-descriptions.tsv
--@comparison_comments integer
--@comparison_comments smallint
--@comparison_comments bigint
--@comparison_comments distance

-- ==================================================================
-- end of the issue 15 block
-- ==================================================================
