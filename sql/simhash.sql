/* simhash.sql: the install script of the current version (the Makefile
 * copies it to sql/simhash--$(EXTVERSION).sql); 64-bit Charikar fingerprints
 * and Hamming distance */

\echo Use "CREATE EXTENSION simhash" to load this file. \quit

-- ------------------------------------------------------------------
-- The type: an unsigned 64-bit fingerprint, 8 bytes, passed by value
-- ------------------------------------------------------------------

CREATE TYPE @extschema@.simhash;

--@functions type_io

CREATE TYPE @extschema@.simhash (
	INPUT = @extschema@.simhash_in, OUTPUT = @extschema@.simhash_out,
	RECEIVE = @extschema@.simhash_recv, SEND = @extschema@.simhash_send,
	INTERNALLENGTH = 8, PASSEDBYVALUE, ALIGNMENT = double, STORAGE = plain
);
COMMENT ON TYPE @extschema@.simhash IS
	'64-bit simhash fingerprint (16 hex digits)';

-- ------------------------------------------------------------------
-- Casts: bigint (same 64 bits), bit(64), bytea (8 bytes, big-endian)
-- ------------------------------------------------------------------

--@functions casts

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

--@functions btree_hash

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
--@functions hamming_distance

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.hamming_distance,
	COMMUTATOR = OPERATOR(@extschema@.<->)
);
COMMENT ON OPERATOR @extschema@.<-> (@extschema@.simhash, @extschema@.simhash) IS
	'Hamming distance';

-- The same distance as a plain integer: the GiST ordering operator.
--@functions hamming_distance_int
CREATE OPERATOR @extschema@.<#> (
	LEFTARG = @extschema@.simhash, RIGHTARG = @extschema@.simhash,
	FUNCTION = @extschema@.hamming_distance_int,
	COMMUTATOR = OPERATOR(@extschema@.<#>)
);
COMMENT ON OPERATOR @extschema@.<#> (@extschema@.simhash, @extschema@.simhash) IS
	'Hamming distance as integer (index ordering operator)';

--@functions segment

-- ------------------------------------------------------------------
-- Fingerprints (stored data: these outputs never change)
-- ------------------------------------------------------------------

--@functions fingerprints

-- Vectors.  real[] arguments are cast (exactly) to double precision[]; a
-- separate real[] signature would make to_simhash(ARRAY[0.1, 0.2]) ambiguous.
--@functions vectors

-- Aggregate over (feature, weight) rows; rows with a NULL are skipped.
-- Both arities share every support function.
--@functions agg

CREATE AGGREGATE @extschema@.simhash_agg(text, double precision) (
	SFUNC = @extschema@.simhash_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text, double precision) IS
	'fingerprint of (feature, weight) rows';

CREATE AGGREGATE @extschema@.simhash_agg(text) (
	SFUNC = @extschema@.simhash_agg_transfn, STYPE = internal, FINALFUNC = @extschema@.simhash_agg_finalfn,
	COMBINEFUNC = @extschema@.simhash_agg_combinefn, SERIALFUNC = @extschema@.simhash_agg_serialfn,
	DESERIALFUNC = @extschema@.simhash_agg_deserialfn, PARALLEL = SAFE
);
COMMENT ON AGGREGATE @extschema@.simhash_agg(text) IS
	'fingerprint of feature rows, each of weight 1';

-- ------------------------------------------------------------------
-- Radius search: simhash_ball, fp <@ ball, simhash_within(a, b, k)
-- ------------------------------------------------------------------

--@type simhash_ball 16 double
COMMENT ON TYPE @extschema@.simhash_ball IS
	'Hamming ball: a centre simhash and a radius';

--@functions ball

--@widths 64
--@include parts/ball-operators.sql
--@end

--@functions within

-- Comparisons of a distance with an integer, chosen by the parser for
-- fp <-> q <= k; their support function rewrites the indexable ones into
-- simhash_within(fp, q, k).
--@functions distance_support
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

--@functions gin

CREATE OPERATOR CLASS @extschema@.simhash_gin_ops
	DEFAULT FOR TYPE @extschema@.simhash USING gin AS
--@gin_support simhash_gin simhash simhash partial
	FUNCTION 7 @extschema@.simhash_gin_options(internal),
	STORAGE @extschema@.simhash;

-- ------------------------------------------------------------------
-- GiST: radius search and nearest neighbours (ORDER BY fp <-> q)
-- ------------------------------------------------------------------

--@type simhash_gist_key 16 double

--@functions gist

--@widths 64
--@include parts/gist-class.sql
--@end

-- ------------------------------------------------------------------
-- Batch: all pairs within k, and clusters (Manku et al. 2007, section 3)
-- ------------------------------------------------------------------

--@functions batch

--@include parts/1.2-batch.sql

--@include parts/1.2-trigger.sql

--@include parts/1.2-features.sql

--@include parts/1.3-index.sql

--@include parts/1.4-default.sql

--@include parts/1.5-wide.sql

--@include parts/1.5-wide-index.sql

--@include parts/1.6-wide-word.sql

--@include parts/1.7-nearest-rows.sql

--@include parts/1.8-distributed.sql

--@include parts/1.9-hardening.sql

--@include parts/1.10-messages.sql

--@include parts/1.10-minhash.sql

--@include parts/1.10-guard.sql

--@include parts/1.11-mih.sql

--@include parts/1.12-distributed.sql

--@include parts/1.12-guard.sql

--@include parts/1.13-distributed.sql

--@include parts/1.14-similar.sql

--@include parts/1.14-cross-pairs.sql

--@include parts/1.14-link.sql
