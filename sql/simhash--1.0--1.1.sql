/* simhash--1.0--1.1.sql: update from 1.0 to 1.1 */

\echo Use "ALTER EXTENSION simhash UPDATE TO '1.1'" to load this file. \quit

-- 1.1: simhash_gin_ops and simhash_gist_ops become the default operator
-- classes of their access methods, so "USING gin (fp)" and
-- "USING gist (fp)" need no opclass name.  Fingerprints and index
-- contents are unchanged; existing indexes stay valid.
--
-- ALTER OPERATOR CLASS cannot change the default flag and dropping the
-- classes would drop users' indexes, so the flag is set in the catalog
-- (the update runs as the bootstrap superuser even for a trusted
-- extension).  Another default class for simhash in these access methods,
-- created outside the extension, would make the choice ambiguous: refuse.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_catalog.pg_opclass c
			   JOIN pg_catalog.pg_am a ON a.oid = c.opcmethod
			   WHERE c.opcintype = '@extschema@.simhash'::pg_catalog.regtype
				 AND a.amname IN ('gin', 'gist') AND c.opcdefault) THEN
		RAISE EXCEPTION 'another default GIN or GiST operator class exists for type simhash'
			USING ERRCODE = 'duplicate_object',
				  HINT = 'Drop it or make it non-default, then update the extension.';
	END IF;
END
$$;

UPDATE pg_catalog.pg_opclass c SET opcdefault = true
FROM pg_catalog.pg_am a
WHERE a.oid = c.opcmethod
  AND c.opcnamespace = '@extschema@'::pg_catalog.regnamespace
  AND (c.opcname, a.amname) IN (('simhash_gin_ops', 'gin'), ('simhash_gist_ops', 'gist'));

-- 1.1: comparisons between two distances, so that an untyped radius
-- (fp <-> q <= $2 from node-postgres, or '3') still reaches an index.
CREATE FUNCTION @extschema@.simhash_distance_lt(@extschema@.simhash_distance, @extschema@.simhash_distance) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_distance_lt'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_distance_support;
CREATE FUNCTION @extschema@.simhash_distance_le(@extschema@.simhash_distance, @extschema@.simhash_distance) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_distance_le'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_distance_support;
CREATE FUNCTION @extschema@.simhash_distance_eq(@extschema@.simhash_distance, @extschema@.simhash_distance) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_distance_eq'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_distance_support;
CREATE FUNCTION @extschema@.simhash_distance_ne(@extschema@.simhash_distance, @extschema@.simhash_distance) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_distance_ne'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_distance_support;
CREATE FUNCTION @extschema@.simhash_distance_ge(@extschema@.simhash_distance, @extschema@.simhash_distance) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_distance_ge'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_distance_support;
CREATE FUNCTION @extschema@.simhash_distance_gt(@extschema@.simhash_distance, @extschema@.simhash_distance) RETURNS boolean
	AS 'MODULE_PATHNAME', 'simhash_distance_gt'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF
	SUPPORT @extschema@.simhash_distance_support;
CREATE OPERATOR @extschema@.< (
	LEFTARG = @extschema@.simhash_distance, RIGHTARG = @extschema@.simhash_distance,
	FUNCTION = @extschema@.simhash_distance_lt,
	COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
	RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
	LEFTARG = @extschema@.simhash_distance, RIGHTARG = @extschema@.simhash_distance,
	FUNCTION = @extschema@.simhash_distance_le,
	COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
	RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.simhash_distance, RIGHTARG = @extschema@.simhash_distance,
	FUNCTION = @extschema@.simhash_distance_eq,
	COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
	RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.simhash_distance, RIGHTARG = @extschema@.simhash_distance,
	FUNCTION = @extschema@.simhash_distance_ne,
	COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
	RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.>= (
	LEFTARG = @extschema@.simhash_distance, RIGHTARG = @extschema@.simhash_distance,
	FUNCTION = @extschema@.simhash_distance_ge,
	COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
	RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR @extschema@.> (
	LEFTARG = @extschema@.simhash_distance, RIGHTARG = @extschema@.simhash_distance,
	FUNCTION = @extschema@.simhash_distance_gt,
	COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
	RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
