/* simhash.sql: the install script of the current version (the Makefile
 * copies it to sql/simhash--$(EXTVERSION).sql); 64-bit Charikar fingerprints
 * and Hamming distance */

\echo Use "CREATE EXTENSION simhash" to load this file. \quit

-- ------------------------------------------------------------------
-- The type: an unsigned 64-bit fingerprint, 8 bytes, passed by value
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash;

CREATE FUNCTION @extschema@.simhash_in(cstring) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_in'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_out(@extschema@.simhash) RETURNS cstring
	AS 'MODULE_PATHNAME', 'simhash_out'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_recv(internal) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_recv'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_send(@extschema@.simhash) RETURNS bytea
	AS 'MODULE_PATHNAME', 'simhash_send'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE @extschema@.simhash (
	INPUT = @extschema@.simhash_in,
	OUTPUT = @extschema@.simhash_out,
	RECEIVE = @extschema@.simhash_recv,
	SEND = @extschema@.simhash_send,
	INTERNALLENGTH = 8,
	PASSEDBYVALUE,
	ALIGNMENT = double,
	STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash IS
	'64-bit simhash fingerprint (16 hex digits)';

-- ------------------------------------------------------------------
-- Casts: bigint (same 64 bits), bit(64), bytea (8 bytes, big-endian)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash(bigint) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_bigint'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash(bit) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_bit'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash(bytea) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_to_bigint(@extschema@.simhash) RETURNS bigint
	AS 'MODULE_PATHNAME', 'simhash_to_bigint'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_to_bit(@extschema@.simhash) RETURNS bit
	AS 'MODULE_PATHNAME', 'simhash_to_bit'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_to_bytea(@extschema@.simhash) RETURNS bytea
	AS 'MODULE_PATHNAME', 'simhash_to_bytea'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE CAST (bigint AS @extschema@.simhash)
	WITH FUNCTION @extschema@.simhash(bigint);
CREATE CAST (bit AS @extschema@.simhash)
	WITH FUNCTION @extschema@.simhash(bit);
CREATE CAST (bit varying AS @extschema@.simhash)
	WITH FUNCTION @extschema@.simhash(bit);
CREATE CAST (bytea AS @extschema@.simhash)
	WITH FUNCTION @extschema@.simhash(bytea);
CREATE CAST (@extschema@.simhash AS bigint)
	WITH FUNCTION @extschema@.simhash_to_bigint(@extschema@.simhash);
CREATE CAST (@extschema@.simhash AS bit)
	WITH FUNCTION @extschema@.simhash_to_bit(@extschema@.simhash);
CREATE CAST (@extschema@.simhash AS bytea)
	WITH FUNCTION @extschema@.simhash_to_bytea(@extschema@.simhash);

-- ------------------------------------------------------------------
-- B-tree and hash support: order of the unsigned value
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_eq(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_eq' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_ne(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_ne' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_lt(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_lt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_le(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_le' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_gt(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_gt' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_ge(@extschema@.simhash, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_ge' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash) RETURNS integer
	AS 'MODULE_PATHNAME', 'simhash_cmp' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME', 'simhash_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_hash(@extschema@.simhash) RETURNS integer
	AS 'MODULE_PATHNAME', 'simhash_hash' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION @extschema@.simhash_hash_extended(@extschema@.simhash, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME', 'simhash_hash_extended' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS @extschema@.simhash_ops
	DEFAULT FOR TYPE @extschema@.simhash USING btree AS
	OPERATOR 1 @extschema@.<,
	OPERATOR 2 @extschema@.<=,
	OPERATOR 3 @extschema@.=,
	OPERATOR 4 @extschema@.>=,
	OPERATOR 5 @extschema@.>,
	FUNCTION 1 @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash),
	FUNCTION 2 @extschema@.simhash_sortsupport(internal);

CREATE OPERATOR CLASS @extschema@.simhash_ops
	DEFAULT FOR TYPE @extschema@.simhash USING hash AS
	OPERATOR 1 @extschema@.=,
	FUNCTION 1 @extschema@.simhash_hash(@extschema@.simhash),
	FUNCTION 2 @extschema@.simhash_hash_extended(@extschema@.simhash, bigint);

-- ------------------------------------------------------------------
-- Hamming distance.  The result is a domain over integer, so clients see
-- int4 (OID 23) while the extension can attach its own comparison
-- operators to it.
-- ------------------------------------------------------------------

CREATE DOMAIN @extschema@.simhash_distance AS integer;
COMMENT ON DOMAIN @extschema@.simhash_distance IS
	'Hamming distance between two simhash values, 0..64';

-- Its support function lets ORDER BY fp <-> q use a GiST index (support.c).
CREATE FUNCTION @extschema@.simhash_hamming_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_hamming_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.hamming_distance(@extschema@.simhash, @extschema@.simhash)
	RETURNS @extschema@.simhash_distance
	AS 'MODULE_PATHNAME', 'simhash_hamming_distance'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_hamming_support;
COMMENT ON FUNCTION @extschema@.hamming_distance(@extschema@.simhash, @extschema@.simhash) IS
	'number of differing bits, 0..64';

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.hamming_distance,
	COMMUTATOR = OPERATOR(@extschema@.<->)
);
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.simhash, @extschema@.simhash) IS
	'Hamming distance';

-- The same distance as a plain integer: the GiST ordering operator.
CREATE FUNCTION @extschema@.hamming_distance_int(@extschema@.simhash, @extschema@.simhash) RETURNS integer
	AS 'MODULE_PATHNAME', 'simhash_hamming_distance_int'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE OPERATOR @extschema@.<#> (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.hamming_distance_int,
	COMMUTATOR = OPERATOR(@extschema@.<#>)
);
COMMENT ON OPERATOR @extschema@.<#> (@extschema@.simhash, @extschema@.simhash) IS
	'Hamming distance as integer (index ordering operator)';

CREATE FUNCTION @extschema@.simhash_segment(@extschema@.simhash, integer) RETURNS integer
	AS 'MODULE_PATHNAME', 'simhash_segment'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_segment(@extschema@.simhash, integer) IS
	'16-bit segment 0..3 (0 = most significant) as 0..65535';

-- ------------------------------------------------------------------
-- Fingerprints (stored data: these outputs never change)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.to_simhash(text) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_text'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.to_simhash(text) IS
	'fingerprint of text: words and CJK bigrams after NFKC_Casefold, weight 1 + ln(tf)';

CREATE FUNCTION @extschema@.simhash_ngram(text, integer DEFAULT 3) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_ngram'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_ngram(text, integer) IS
	'fingerprint of text from character n-grams, weight 1 + ln(tf)';

CREATE FUNCTION @extschema@.simhash_shingle(text, integer DEFAULT 3) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_shingle'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.simhash_shingle(text, integer) IS
	'fingerprint of text from word n-gram shingles, weight 1 + ln(tf)';

CREATE FUNCTION @extschema@.to_simhash(text[]) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_features'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.to_simhash(text[]) IS
	'fingerprint of features, each of weight 1';

CREATE FUNCTION @extschema@.to_simhash(text[], double precision[]) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_weighted_features'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.to_simhash(text[], double precision[]) IS
	'fingerprint of weighted features (e.g. TF-IDF)';

CREATE FUNCTION @extschema@.to_simhash(tsvector) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_tsvector'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.to_simhash(tsvector) IS
	'fingerprint of lexemes weighted by their number of positions';

-- Vectors.  real[] arguments are cast (exactly) to double precision[]; a
-- separate real[] signature would make to_simhash(ARRAY[0.1, 0.2]) ambiguous.
CREATE FUNCTION @extschema@.to_simhash(double precision[]) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_dense'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.to_simhash(double precision[]) IS
	'fingerprint of a dense vector (dimension i hashed, value as weight)';

CREATE FUNCTION @extschema@.to_simhash(integer[], double precision[]) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_from_sparse'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.to_simhash(integer[], double precision[]) IS
	'fingerprint of a sparse vector (dimensions, values)';

-- Aggregate over (feature, weight) rows; rows with a NULL are skipped.
CREATE FUNCTION @extschema@.simhash_agg_transfn(internal, text, double precision) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_agg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_transfn(internal, text) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_agg_transfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_combinefn(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_agg_combinefn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_serialfn(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'simhash_agg_serialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_deserialfn(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_agg_deserialfn'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_agg_finalfn(internal) RETURNS @extschema@.simhash
	AS 'MODULE_PATHNAME', 'simhash_agg_finalfn'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE @extschema@.simhash_agg(text, double precision) (
	SFUNC = @extschema@.simhash_agg_transfn,
	STYPE = internal,
	FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn,
	SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text, double precision) IS
	'fingerprint of (feature, weight) rows';

CREATE AGGREGATE @extschema@.simhash_agg(text) (
	SFUNC = @extschema@.simhash_agg_transfn,
	STYPE = internal,
	FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn,
	SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text) IS
	'fingerprint of feature rows, each of weight 1';

-- ------------------------------------------------------------------
-- Radius search: simhash_ball, fp <@ ball, simhash_within(a, b, k)
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash_ball;
CREATE FUNCTION @extschema@.simhash_ball_in(cstring) RETURNS @extschema@.simhash_ball
	AS 'MODULE_PATHNAME', 'simhash_ball_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_out(@extschema@.simhash_ball) RETURNS cstring
	AS 'MODULE_PATHNAME', 'simhash_ball_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_recv(internal) RETURNS @extschema@.simhash_ball
	AS 'MODULE_PATHNAME', 'simhash_ball_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_send(@extschema@.simhash_ball) RETURNS bytea
	AS 'MODULE_PATHNAME', 'simhash_ball_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.simhash_ball (
	INPUT = @extschema@.simhash_ball_in,
	OUTPUT = @extschema@.simhash_ball_out,
	RECEIVE = @extschema@.simhash_ball_recv,
	SEND = @extschema@.simhash_ball_send,
	INTERNALLENGTH = 16,
	ALIGNMENT = double,
	STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash_ball IS
	'Hamming ball: a centre simhash and a radius';

CREATE FUNCTION @extschema@.simhash_ball(@extschema@.simhash, integer) RETURNS @extschema@.simhash_ball
	AS 'MODULE_PATHNAME', 'simhash_ball' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
-- Their support function rewrites fp <@ simhash_ball(q, k) (or a constant
-- ball) into simhash_within(fp, q, k), the one path to an index (support.c).
CREATE FUNCTION @extschema@.simhash_in_ball_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_in_ball_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_in_ball(@extschema@.simhash, @extschema@.simhash_ball) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_in_ball' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_in_ball_support;
CREATE FUNCTION @extschema@.simhash_ball_contains(@extschema@.simhash_ball, @extschema@.simhash) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_ball_contains' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_in_ball_support;
CREATE FUNCTION @extschema@.simhash_ball_restrict(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'simhash_ball_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_ball_joinsel(internal, oid, internal, smallint, internal) RETURNS double precision
	AS 'MODULE_PATHNAME', 'simhash_ball_joinsel' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash_ball,
	FUNCTION = @extschema@.simhash_in_ball,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.simhash, @extschema@.simhash_ball) IS
	'is within the Hamming ball';
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.simhash_ball, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.simhash_ball_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.@> (@extschema@.simhash_ball, @extschema@.simhash) IS
	'Hamming ball contains';

CREATE FUNCTION @extschema@.simhash_within_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_within_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_within(@extschema@.simhash, @extschema@.simhash, integer) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_within'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_within_support;
COMMENT ON FUNCTION @extschema@.simhash_within(@extschema@.simhash, @extschema@.simhash, integer) IS
	'a <-> b <= k, answered by a simhash index on a or b';

-- Comparisons of a distance with an integer, chosen by the parser for
-- fp <-> q <= k; their support function rewrites the indexable ones into
-- simhash_within(fp, q, k).
CREATE FUNCTION @extschema@.simhash_distance_support(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_distance_support' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
--@comparisons integer

-- The same comparisons with smallint and bigint (drivers bind small integers
-- as int2 or int8).
--@comparisons smallint
--@comparisons bigint

-- The same comparisons between two distances.  A radius given as an
-- untyped literal or parameter (fp <-> q <= '3', or $2 from a driver that
-- sends parameters untyped, such as node-postgres) takes the type of the
-- other side; without these the parser would fall back to int4 <= int4
-- and the query could not use an index.
--@comparisons distance

-- ------------------------------------------------------------------
-- GIN: the four 16-bit segments (pigeonhole / multi-index hashing), each
-- key carrying the whole fingerprint so the index rejects non-answers
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_gin_extract_value(@extschema@.simhash, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gin_extract_value' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gin_extract_query(@extschema@.simhash_ball, internal, smallint, internal, internal, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gin_extract_query' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gin_compare_partial(@extschema@.simhash, @extschema@.simhash, smallint, internal) RETURNS integer
	AS 'MODULE_PATHNAME', 'simhash_gin_compare_partial' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gin_consistent(internal, smallint, @extschema@.simhash_ball, integer, internal, internal, internal, internal) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_gin_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gin_options(internal) RETURNS void
	AS 'MODULE_PATHNAME', 'simhash_gin_options' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gin_triconsistent(internal, smallint, @extschema@.simhash_ball, integer, internal, internal, internal) RETURNS "char"
	AS 'MODULE_PATHNAME', 'simhash_gin_triconsistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS @extschema@.simhash_gin_ops
	DEFAULT FOR TYPE @extschema@.simhash USING gin AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash, @extschema@.simhash_ball),
	FUNCTION 1 @extschema@.simhash_cmp(@extschema@.simhash, @extschema@.simhash),
	FUNCTION 2 @extschema@.simhash_gin_extract_value(@extschema@.simhash, internal, internal),
	FUNCTION 3 @extschema@.simhash_gin_extract_query(@extschema@.simhash_ball, internal, smallint, internal, internal, internal, internal),
	FUNCTION 4 @extschema@.simhash_gin_consistent(internal, smallint, @extschema@.simhash_ball, integer, internal, internal, internal, internal),
	FUNCTION 5 @extschema@.simhash_gin_compare_partial(@extschema@.simhash, @extschema@.simhash, smallint, internal),
	FUNCTION 6 @extschema@.simhash_gin_triconsistent(internal, smallint, @extschema@.simhash_ball, integer, internal, internal, internal),
	FUNCTION 7 @extschema@.simhash_gin_options(internal),
	STORAGE @extschema@.simhash;

-- ------------------------------------------------------------------
-- GiST: radius search and nearest neighbours (ORDER BY fp <-> q)
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash_gist_key;
CREATE FUNCTION @extschema@.simhash_gist_key_in(cstring) RETURNS @extschema@.simhash_gist_key
	AS 'MODULE_PATHNAME', 'simhash_gist_key_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_key_out(@extschema@.simhash_gist_key) RETURNS cstring
	AS 'MODULE_PATHNAME', 'simhash_gist_key_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE TYPE @extschema@.simhash_gist_key (
	INPUT = @extschema@.simhash_gist_key_in,
	OUTPUT = @extschema@.simhash_gist_key_out,
	INTERNALLENGTH = 16,
	ALIGNMENT = double,
	STORAGE = plain
);

CREATE FUNCTION @extschema@.simhash_gist_consistent(internal, @extschema@.simhash_ball, smallint, oid, internal) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_gist_consistent' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_distance(internal, @extschema@.simhash, smallint, oid, internal) RETURNS double precision
	AS 'MODULE_PATHNAME', 'simhash_gist_distance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_union(internal, internal) RETURNS @extschema@.simhash_gist_key
	AS 'MODULE_PATHNAME', 'simhash_gist_union' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_compress(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gist_compress' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_fetch(internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gist_fetch' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_penalty(internal, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gist_penalty' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_picksplit(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gist_picksplit' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_same(@extschema@.simhash_gist_key, @extschema@.simhash_gist_key, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'simhash_gist_same' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.simhash_gist_sortsupport(internal) RETURNS void
	AS 'MODULE_PATHNAME', 'simhash_gist_sortsupport' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR CLASS @extschema@.simhash_gist_ops
	DEFAULT FOR TYPE @extschema@.simhash USING gist AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash, @extschema@.simhash_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.simhash, @extschema@.simhash) FOR ORDER BY pg_catalog.integer_ops,
	FUNCTION 1 @extschema@.simhash_gist_consistent(internal, @extschema@.simhash_ball, smallint, oid, internal),
	FUNCTION 2 @extschema@.simhash_gist_union(internal, internal),
	FUNCTION 3 @extschema@.simhash_gist_compress(internal),
	FUNCTION 5 @extschema@.simhash_gist_penalty(internal, internal, internal),
	FUNCTION 6 @extschema@.simhash_gist_picksplit(internal, internal),
	FUNCTION 7 @extschema@.simhash_gist_same(@extschema@.simhash_gist_key, @extschema@.simhash_gist_key, internal),
	FUNCTION 8 @extschema@.simhash_gist_distance(internal, @extschema@.simhash, smallint, oid, internal),
	FUNCTION 9 @extschema@.simhash_gist_fetch(internal),
	FUNCTION 11 @extschema@.simhash_gist_sortsupport(internal),
	STORAGE @extschema@.simhash_gist_key;

-- ------------------------------------------------------------------
-- Batch: all pairs within k, and clusters (Manku et al. 2007, section 3)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_pairs(query text, k integer)
	RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
	AS 'MODULE_PATHNAME', 'simhash_pairs'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.simhash_pairs(text, integer) IS
	'every pair of (id, fp) rows of the query within Hamming distance k, id1 < id2';

CREATE FUNCTION @extschema@.simhash_clusters(query text, k integer)
	RETURNS TABLE (id bigint, cluster_id bigint)
	AS 'MODULE_PATHNAME', 'simhash_clusters'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED ROWS 1000;
COMMENT ON FUNCTION @extschema@.simhash_clusters(text, integer) IS
	'each id of the query with the smallest id of its near-duplicate component';

--@include parts/1.2-batch.sql

--@include parts/1.2-trigger.sql

--@include parts/1.2-features.sql

--@include parts/1.3-index.sql
