-- ==================================================================
-- 1.4: simhash_gin_segment_ops becomes the default GIN class
-- ==================================================================

-- No GIN layout is at once as small and quick to build as the stock GIN
-- recipe and the fastest at every radius (doc/simhash.md, "Choosing a GIN
-- operator class").  The default is the one that does best on size and
-- build time while staying several times faster than the stock recipes at
-- radius 3: the segment keys, at a sixth of simhash_gin_ops's size.  Radius
-- searches beyond about 4 bits want simhash_gin_ops, named in CREATE INDEX.
--
-- Only the default flag changes: existing indexes keep the class they were
-- built with (simhash_gin_ops indexes stay valid and keep their layout);
-- CREATE INDEX ... USING gin (fp) without a class name now gets the segment
-- keys.  ALTER OPERATOR CLASS cannot set the flag, so it is set in the
-- catalog (extension scripts run as the bootstrap superuser, also for a
-- trusted extension).
UPDATE pg_catalog.pg_opclass c SET opcdefault = (c.opcname = 'simhash_gin_segment_ops')
FROM pg_catalog.pg_am a
WHERE a.oid = c.opcmethod AND a.amname = 'gin'
  AND c.opcnamespace = '@extschema@'::pg_catalog.regnamespace
  AND c.opcname IN ('simhash_gin_ops', 'simhash_gin_segment_ops');

COMMENT ON OPERATOR CLASS @extschema@.simhash_gin_ops USING gin IS
	'GIN: radius search fp <-> q <= k with whole-fingerprint keys, exact; fastest at every radius, for radii above about 4 (compact = true: small)';
COMMENT ON OPERATOR CLASS @extschema@.simhash_gin_segment_ops USING gin IS
	'GIN: radius search fp <-> q <= k on shared 16-bit segment keys, exact; small, for radii up to about 4 (default; segment_sets = 1: smaller still)';
