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

-- ------------------------------------------------------------------
-- Insert-time deduplication: a trigger that rejects near-duplicates
-- (src/trigger.c)
-- ------------------------------------------------------------------

CREATE FUNCTION @extschema@.simhash_reject_near_duplicates() RETURNS trigger
	AS 'MODULE_PATHNAME', 'simhash_reject_near_duplicates'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION @extschema@.simhash_reject_near_duplicates() IS
	'BEFORE INSERT OR UPDATE row trigger, arguments (column, k [, ''skip'']): rejects (23P01) or skips a row within k bits of another row, race-free';

-- ==================================================================
-- 1.2, issue 15: features as rows, min/max/bit_or/bit_and, descriptions
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
