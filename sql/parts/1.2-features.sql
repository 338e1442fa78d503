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
COMMENT ON TYPE @extschema@.simhash_gist_key IS
	'GiST key of simhash_gist_ops: bits set in all and in any fingerprint below a node (internal to the index)';
COMMENT ON FUNCTION @extschema@.simhash_in(cstring) IS
	'simhash from its text form, 16 hex digits';
COMMENT ON FUNCTION @extschema@.simhash_out(@extschema@.simhash) IS
	'text form of a simhash: 16 lower-case hex digits';
COMMENT ON FUNCTION @extschema@.simhash_send(@extschema@.simhash) IS
	'binary form of a simhash: 8 bytes, big-endian';
COMMENT ON FUNCTION @extschema@.simhash(bigint) IS
	'cast: the same 64 bits as a simhash';
COMMENT ON FUNCTION @extschema@.simhash(bit) IS
	'cast: a bit(64) as a simhash, first bit is bit 63';
COMMENT ON FUNCTION @extschema@.simhash(bytea) IS
	'cast: 8 bytes, big-endian, as a simhash';
COMMENT ON FUNCTION @extschema@.simhash_to_bigint(@extschema@.simhash) IS
	'cast: the same 64 bits as a bigint (twos complement)';
COMMENT ON FUNCTION @extschema@.simhash_to_bit(@extschema@.simhash) IS
	'cast: the 64 bits as bit(64), bit 63 first';
COMMENT ON FUNCTION @extschema@.simhash_to_bytea(@extschema@.simhash) IS
	'cast: 8 bytes, big-endian';
COMMENT ON FUNCTION @extschema@.simhash_eq(@extschema@.simhash, @extschema@.simhash) IS
	'a = b';
COMMENT ON FUNCTION @extschema@.simhash_ne(@extschema@.simhash, @extschema@.simhash) IS
	'a <> b';
COMMENT ON FUNCTION @extschema@.simhash_lt(@extschema@.simhash, @extschema@.simhash) IS
	'a < b as unsigned 64-bit values';
COMMENT ON FUNCTION @extschema@.simhash_le(@extschema@.simhash, @extschema@.simhash) IS
	'a <= b as unsigned 64-bit values';
COMMENT ON FUNCTION @extschema@.simhash_gt(@extschema@.simhash, @extschema@.simhash) IS
	'a > b as unsigned 64-bit values';
COMMENT ON FUNCTION @extschema@.simhash_ge(@extschema@.simhash, @extschema@.simhash) IS
	'a >= b as unsigned 64-bit values';
COMMENT ON FUNCTION @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash) IS
	'-1, 0 or 1: B-tree comparison of unsigned 64-bit values';
COMMENT ON FUNCTION @extschema@.simhash_hash(@extschema@.simhash) IS
	'32-bit hash of a simhash (hashint8 of the same bits)';
COMMENT ON FUNCTION @extschema@.simhash_hash_extended(@extschema@.simhash, bigint) IS
	'64-bit seeded hash of a simhash (hashint8extended of the same bits)';
COMMENT ON FUNCTION @extschema@.hamming_distance_int(@extschema@.simhash, @extschema@.simhash) IS
	'number of differing bits, 0..64, as integer (the GiST ordering operator <#>)';
COMMENT ON FUNCTION @extschema@.simhash_ball(@extschema@.simhash, integer) IS
	'Hamming ball of a centre and a radius in bits, for fp <@ simhash_ball(q, k)';
COMMENT ON FUNCTION @extschema@.simhash_ball_in(cstring) IS
	'simhash_ball from its text form (centre,radius)';
COMMENT ON FUNCTION @extschema@.simhash_ball_out(@extschema@.simhash_ball) IS
	'text form of a simhash_ball: (centre,radius)';
COMMENT ON FUNCTION @extschema@.simhash_ball_send(@extschema@.simhash_ball) IS
	'binary form of a simhash_ball: 8-byte centre, 4-byte radius';
COMMENT ON FUNCTION @extschema@.simhash_in_ball(@extschema@.simhash, @extschema@.simhash_ball) IS
	'fp <@ ball: true if fp is within the balls radius of its centre';
COMMENT ON FUNCTION @extschema@.simhash_ball_contains(@extschema@.simhash_ball, @extschema@.simhash) IS
	'ball @> fp: true if fp is within the balls radius of its centre';
COMMENT ON FUNCTION @extschema@.simhash_gist_key_in(cstring) IS
	'GiST key from its text form (for the index only)';
COMMENT ON FUNCTION @extschema@.simhash_gist_key_out(@extschema@.simhash_gist_key) IS
	'text form of a GiST key (for the index only)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.simhash, @extschema@.simhash) IS
	'equal';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.simhash, @extschema@.simhash) IS
	'not equal';
COMMENT ON OPERATOR @extschema@.< (@extschema@.simhash, @extschema@.simhash) IS
	'less than, as unsigned 64-bit values';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.simhash, @extschema@.simhash) IS
	'less than or equal, as unsigned 64-bit values';
COMMENT ON OPERATOR @extschema@.> (@extschema@.simhash, @extschema@.simhash) IS
	'greater than, as unsigned 64-bit values';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.simhash, @extschema@.simhash) IS
	'greater than or equal, as unsigned 64-bit values';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(@extschema@.simhash_distance, integer) IS
	'distance < integer, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(integer, @extschema@.simhash_distance) IS
	'integer < distance, compared as integers';
COMMENT ON OPERATOR @extschema@.< (@extschema@.simhash_distance, integer) IS
	'Hamming distance less than integer (fp <-> q < k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.< (integer, @extschema@.simhash_distance) IS
	'integer less than Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(@extschema@.simhash_distance, integer) IS
	'distance <= integer, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(integer, @extschema@.simhash_distance) IS
	'integer <= distance, compared as integers';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.simhash_distance, integer) IS
	'Hamming distance less than or equal integer (fp <-> q <= k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.<= (integer, @extschema@.simhash_distance) IS
	'integer less than or equal Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(@extschema@.simhash_distance, integer) IS
	'distance = integer, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(integer, @extschema@.simhash_distance) IS
	'integer = distance, compared as integers';
COMMENT ON OPERATOR @extschema@.= (@extschema@.simhash_distance, integer) IS
	'Hamming distance equal integer (fp <-> q = k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.= (integer, @extschema@.simhash_distance) IS
	'integer equal Hamming distance (k = fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(@extschema@.simhash_distance, integer) IS
	'distance <> integer, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(integer, @extschema@.simhash_distance) IS
	'integer <> distance, compared as integers';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.simhash_distance, integer) IS
	'Hamming distance not equal integer';
COMMENT ON OPERATOR @extschema@.<> (integer, @extschema@.simhash_distance) IS
	'integer not equal Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(@extschema@.simhash_distance, integer) IS
	'distance >= integer, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(integer, @extschema@.simhash_distance) IS
	'integer >= distance, compared as integers';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.simhash_distance, integer) IS
	'Hamming distance greater than or equal integer';
COMMENT ON OPERATOR @extschema@.>= (integer, @extschema@.simhash_distance) IS
	'integer greater than or equal Hamming distance (k >= fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(@extschema@.simhash_distance, integer) IS
	'distance > integer, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(integer, @extschema@.simhash_distance) IS
	'integer > distance, compared as integers';
COMMENT ON OPERATOR @extschema@.> (@extschema@.simhash_distance, integer) IS
	'Hamming distance greater than integer';
COMMENT ON OPERATOR @extschema@.> (integer, @extschema@.simhash_distance) IS
	'integer greater than Hamming distance (k > fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(@extschema@.simhash_distance, smallint) IS
	'distance < smallint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(smallint, @extschema@.simhash_distance) IS
	'smallint < distance, compared as integers';
COMMENT ON OPERATOR @extschema@.< (@extschema@.simhash_distance, smallint) IS
	'Hamming distance less than smallint (fp <-> q < k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.< (smallint, @extschema@.simhash_distance) IS
	'smallint less than Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(@extschema@.simhash_distance, smallint) IS
	'distance <= smallint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(smallint, @extschema@.simhash_distance) IS
	'smallint <= distance, compared as integers';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.simhash_distance, smallint) IS
	'Hamming distance less than or equal smallint (fp <-> q <= k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.<= (smallint, @extschema@.simhash_distance) IS
	'smallint less than or equal Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(@extschema@.simhash_distance, smallint) IS
	'distance = smallint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(smallint, @extschema@.simhash_distance) IS
	'smallint = distance, compared as integers';
COMMENT ON OPERATOR @extschema@.= (@extschema@.simhash_distance, smallint) IS
	'Hamming distance equal smallint (fp <-> q = k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.= (smallint, @extschema@.simhash_distance) IS
	'smallint equal Hamming distance (k = fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(@extschema@.simhash_distance, smallint) IS
	'distance <> smallint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(smallint, @extschema@.simhash_distance) IS
	'smallint <> distance, compared as integers';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.simhash_distance, smallint) IS
	'Hamming distance not equal smallint';
COMMENT ON OPERATOR @extschema@.<> (smallint, @extschema@.simhash_distance) IS
	'smallint not equal Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(@extschema@.simhash_distance, smallint) IS
	'distance >= smallint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(smallint, @extschema@.simhash_distance) IS
	'smallint >= distance, compared as integers';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.simhash_distance, smallint) IS
	'Hamming distance greater than or equal smallint';
COMMENT ON OPERATOR @extschema@.>= (smallint, @extschema@.simhash_distance) IS
	'smallint greater than or equal Hamming distance (k >= fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(@extschema@.simhash_distance, smallint) IS
	'distance > smallint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(smallint, @extschema@.simhash_distance) IS
	'smallint > distance, compared as integers';
COMMENT ON OPERATOR @extschema@.> (@extschema@.simhash_distance, smallint) IS
	'Hamming distance greater than smallint';
COMMENT ON OPERATOR @extschema@.> (smallint, @extschema@.simhash_distance) IS
	'smallint greater than Hamming distance (k > fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(@extschema@.simhash_distance, bigint) IS
	'distance < bigint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(bigint, @extschema@.simhash_distance) IS
	'bigint < distance, compared as integers';
COMMENT ON OPERATOR @extschema@.< (@extschema@.simhash_distance, bigint) IS
	'Hamming distance less than bigint (fp <-> q < k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.< (bigint, @extschema@.simhash_distance) IS
	'bigint less than Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(@extschema@.simhash_distance, bigint) IS
	'distance <= bigint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(bigint, @extschema@.simhash_distance) IS
	'bigint <= distance, compared as integers';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.simhash_distance, bigint) IS
	'Hamming distance less than or equal bigint (fp <-> q <= k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.<= (bigint, @extschema@.simhash_distance) IS
	'bigint less than or equal Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(@extschema@.simhash_distance, bigint) IS
	'distance = bigint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(bigint, @extschema@.simhash_distance) IS
	'bigint = distance, compared as integers';
COMMENT ON OPERATOR @extschema@.= (@extschema@.simhash_distance, bigint) IS
	'Hamming distance equal bigint (fp <-> q = k is indexable for <, <=, =)';
COMMENT ON OPERATOR @extschema@.= (bigint, @extschema@.simhash_distance) IS
	'bigint equal Hamming distance (k = fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(@extschema@.simhash_distance, bigint) IS
	'distance <> bigint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(bigint, @extschema@.simhash_distance) IS
	'bigint <> distance, compared as integers';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.simhash_distance, bigint) IS
	'Hamming distance not equal bigint';
COMMENT ON OPERATOR @extschema@.<> (bigint, @extschema@.simhash_distance) IS
	'bigint not equal Hamming distance';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(@extschema@.simhash_distance, bigint) IS
	'distance >= bigint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(bigint, @extschema@.simhash_distance) IS
	'bigint >= distance, compared as integers';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.simhash_distance, bigint) IS
	'Hamming distance greater than or equal bigint';
COMMENT ON OPERATOR @extschema@.>= (bigint, @extschema@.simhash_distance) IS
	'bigint greater than or equal Hamming distance (k >= fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(@extschema@.simhash_distance, bigint) IS
	'distance > bigint, compared as integers';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(bigint, @extschema@.simhash_distance) IS
	'bigint > distance, compared as integers';
COMMENT ON OPERATOR @extschema@.> (@extschema@.simhash_distance, bigint) IS
	'Hamming distance greater than bigint';
COMMENT ON OPERATOR @extschema@.> (bigint, @extschema@.simhash_distance) IS
	'bigint greater than Hamming distance (k > fp <-> q is indexable for >, >=, =)';
COMMENT ON FUNCTION @extschema@.simhash_distance_lt(@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'distance < distance, compared as integers (an untyped radius resolves to this)';
COMMENT ON OPERATOR @extschema@.< (@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'Hamming distance less than Hamming distance (for an untyped radius)';
COMMENT ON FUNCTION @extschema@.simhash_distance_le(@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'distance <= distance, compared as integers (an untyped radius resolves to this)';
COMMENT ON OPERATOR @extschema@.<= (@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'Hamming distance less than or equal Hamming distance (for an untyped radius)';
COMMENT ON FUNCTION @extschema@.simhash_distance_eq(@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'distance = distance, compared as integers (an untyped radius resolves to this)';
COMMENT ON OPERATOR @extschema@.= (@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'Hamming distance equal Hamming distance (for an untyped radius)';
COMMENT ON FUNCTION @extschema@.simhash_distance_ne(@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'distance <> distance, compared as integers (an untyped radius resolves to this)';
COMMENT ON OPERATOR @extschema@.<> (@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'Hamming distance not equal Hamming distance (for an untyped radius)';
COMMENT ON FUNCTION @extschema@.simhash_distance_ge(@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'distance >= distance, compared as integers (an untyped radius resolves to this)';
COMMENT ON OPERATOR @extschema@.>= (@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'Hamming distance greater than or equal Hamming distance (for an untyped radius)';
COMMENT ON FUNCTION @extschema@.simhash_distance_gt(@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'distance > distance, compared as integers (an untyped radius resolves to this)';
COMMENT ON OPERATOR @extschema@.> (@extschema@.simhash_distance, @extschema@.simhash_distance) IS
	'Hamming distance greater than Hamming distance (for an untyped radius)';
COMMENT ON OPERATOR CLASS @extschema@.simhash_ops USING btree IS
	'B-tree order of simhash: unsigned 64-bit values (default)';
COMMENT ON OPERATOR CLASS @extschema@.simhash_ops USING hash IS
	'hash of simhash for hash joins, indexes and partitioning (default)';
COMMENT ON OPERATOR CLASS @extschema@.simhash_gin_ops USING gin IS
	'GIN: radius search fp <-> q <= k on 16-bit segments, exact (default; compact = true: smaller)';
COMMENT ON OPERATOR CLASS @extschema@.simhash_gist_ops USING gist IS
	'GiST: nearest neighbours ORDER BY fp <-> q and radius search (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_ops USING btree IS
	'B-tree order of simhash: unsigned 64-bit values';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_ops USING hash IS
	'hash of simhash';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_gin_ops USING gin IS
	'GIN radius search on simhash';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_gist_ops USING gist IS
	'GiST nearest neighbours and radius search on simhash';
-- units in the descriptions of 1.1's operators
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.simhash, @extschema@.simhash) IS
	'Hamming distance: number of differing bits, 0..64';
COMMENT ON OPERATOR @extschema@.<#> (@extschema@.simhash, @extschema@.simhash) IS
	'Hamming distance as integer, 0..64 (the GiST ordering operator)';
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.simhash, @extschema@.simhash_ball) IS
	'fingerprint is within the Hamming ball (distance to its centre <= its radius, in bits)';
COMMENT ON OPERATOR @extschema@.@> (@extschema@.simhash_ball, @extschema@.simhash) IS
	'Hamming ball contains the fingerprint (distance to its centre <= its radius, in bits)';

-- ==================================================================
-- end of the issue 15 block
-- ==================================================================
