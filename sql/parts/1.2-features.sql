-- ==================================================================
-- 1.2: features as rows, min/max/bit_or/bit_and, descriptions
-- ==================================================================

-- The features and weights a text is fingerprinted from (features.c): the
-- fingerprint function over them (array form or simhash_agg, in row order)
-- gives the same fingerprint, and other weights (TF-IDF) a weighted one.
CREATE FUNCTION @extschema@.simhash_features(text)
	RETURNS TABLE (feature text, tf integer, weight double precision)
	AS 'MODULE_PATHNAME', 'simhash_features'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION @extschema@.simhash_features(text) IS
	'features of to_simhash(text) in order of first occurrence: feature, count tf, weight 1 + ln(tf)';

CREATE FUNCTION @extschema@.simhash_ngram_features(text, n integer DEFAULT 3)
	RETURNS TABLE (feature text, tf integer, weight double precision)
	AS 'MODULE_PATHNAME', 'simhash_ngram_features'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION @extschema@.simhash_ngram_features(text, integer) IS
	'character n-grams of simhash_ngram(text, n) in order of first occurrence: feature, count tf, weight 1 + ln(tf)';

CREATE FUNCTION @extschema@.simhash_shingle_features(text, n integer DEFAULT 3)
	RETURNS TABLE (feature text, tf integer, weight double precision)
	AS 'MODULE_PATHNAME', 'simhash_shingle_features'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 100;
COMMENT ON FUNCTION @extschema@.simhash_shingle_features(text, integer) IS
	'word shingles of simhash_shingle(text, n) in order of first occurrence: feature, count tf, weight 1 + ln(tf)';

-- min and max in the B-tree order (unsigned value), bit_or and bit_and
CREATE FUNCTION @extschema@.simhash_smaller(@extschema@.simhash, @extschema@.simhash) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_smaller' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_smaller(@extschema@.simhash, @extschema@.simhash) IS
	'the smaller of two fingerprints as unsigned 64-bit values (min''s transition)';
CREATE FUNCTION @extschema@.simhash_larger(@extschema@.simhash, @extschema@.simhash) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_larger' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_larger(@extschema@.simhash, @extschema@.simhash) IS
	'the larger of two fingerprints as unsigned 64-bit values (max''s transition)';
CREATE FUNCTION @extschema@.simhash_or(@extschema@.simhash, @extschema@.simhash) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_or' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_or(@extschema@.simhash, @extschema@.simhash) IS
	'bitwise OR of two fingerprints (bit_or''s transition)';
CREATE FUNCTION @extschema@.simhash_and(@extschema@.simhash, @extschema@.simhash) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_and' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
COMMENT ON FUNCTION @extschema@.simhash_and(@extschema@.simhash, @extschema@.simhash) IS
	'bitwise AND of two fingerprints (bit_and''s transition)';

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
