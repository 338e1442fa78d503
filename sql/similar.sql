--
-- The similarity operator fp % q (since 1.14): simhash_similarity(fp, q) >=
-- simhash.similarity_threshold, in pg_trgm's convention, at every width;
-- the same rows as the radius form fp <-> q <= simhash_radius(t, W), from
-- the same indexes (GIN, GiST, mih), and a kept plan follows SET.
--
-- A SET before the library loads is kept, and checked when it loads
SET simhash.similarity_threshold = 0.95;
SELECT simhash_similarity_radius(64) AS r64, simhash_similarity_radius(128) AS r128,
       simhash_similarity_radius(256) AS r256;
RESET simhash.similarity_threshold;
SHOW simhash.similarity_threshold;
SELECT simhash_similarity_radius(64) AS r64, simhash_similarity_radius(128) AS r128,
       simhash_similarity_radius(256) AS r256;

-- Rows over a sliding window of a shared vocabulary: row i has features
-- i .. i + 39, so rows i and j share 40 - |i - j| of them and their
-- distances spread from 0 to unrelated.
CREATE TABLE sim (id int PRIMARY KEY, feats text[]);
INSERT INTO sim
SELECT i, ARRAY(SELECT 'w' || j FROM generate_series(i, i + 39) j)
FROM generate_series(1, 1500) i;
CREATE TABLE sim64 AS SELECT id, to_simhash(feats) AS fp FROM sim;
CREATE TABLE sim128 AS SELECT id, to_simhash128(feats) AS fp FROM sim;
CREATE TABLE sim256 AS SELECT id, to_simhash256(feats) AS fp FROM sim;

-- For each threshold: the ids of fp % q against those of the radius form
-- and of simhash_similarity(fp, q) >= t (computed row by row), through
-- whatever plan the session's settings give.
CREATE FUNCTION pg_temp.compare(tab regclass, q_id int, thresholds float8[])
RETURNS TABLE (threshold float8, n int, same_as_radius boolean, same_as_similarity boolean)
LANGUAGE plpgsql AS $$
DECLARE
	t float8;
	bits int := CASE tab WHEN 'sim64'::regclass THEN 64 WHEN 'sim128'::regclass THEN 128 ELSE 256 END;
	a int[];
	b int[];
	c int[];
BEGIN
	FOREACH t IN ARRAY thresholds LOOP
		PERFORM set_config('simhash.similarity_threshold', t::text, true);
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s WHERE fp %% (SELECT fp FROM %s WHERE id = $1)', tab, tab)
			INTO a USING q_id;
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s WHERE fp <-> (SELECT fp FROM %s WHERE id = $1) <= simhash_radius($2, $3)', tab, tab)
			INTO b USING q_id, t, bits;
		EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s x WHERE simhash_similarity(x.fp, (SELECT fp FROM %s WHERE id = $1)) >= $2', tab, tab)
			INTO c USING q_id, t;
		threshold := t;
		n := cardinality(a);
		same_as_radius := a IS NOT DISTINCT FROM b;
		same_as_similarity := a IS NOT DISTINCT FROM c;
		RETURN NEXT;
	END LOOP;
END $$;

-- Without an index
SELECT * FROM pg_temp.compare('sim64', 700, '{1, 0.99, 0.95, 0.9, 0.8, 0.5, 0}');
SELECT * FROM pg_temp.compare('sim128', 700, '{1, 0.99, 0.95, 0.9, 0.8, 0.5, 0}');
SELECT * FROM pg_temp.compare('sim256', 700, '{1, 0.99, 0.95, 0.9, 0.8, 0.5, 0}');

-- Through each index: sequential scans off, and the index's scans counted
-- in the transaction (the operator reaches the index through the planner
-- support, not through an operator class entry of its own)
SET enable_seqscan = off;
CREATE INDEX sim64_gin ON sim64 USING gin (fp);
CREATE INDEX sim128_gin ON sim128 USING gin (fp);
CREATE INDEX sim256_gin ON sim256 USING gin (fp);
BEGIN;
SELECT * FROM pg_temp.compare('sim64', 700, '{0.99, 0.95, 0.9}');
SELECT * FROM pg_temp.compare('sim128', 700, '{0.99, 0.95, 0.9}');
SELECT * FROM pg_temp.compare('sim256', 700, '{0.99, 0.95, 0.9, 0.85}');
SELECT pg_stat_get_xact_numscans('sim64_gin'::regclass) >= 3 AS gin64_scanned,
       pg_stat_get_xact_numscans('sim128_gin'::regclass) >= 3 AS gin128_scanned,
       pg_stat_get_xact_numscans('sim256_gin'::regclass) >= 4 AS gin256_scanned;
COMMIT;
DROP INDEX sim64_gin, sim128_gin, sim256_gin;

CREATE INDEX sim64_gist ON sim64 USING gist (fp);
CREATE INDEX sim256_gist ON sim256 USING gist (fp);
BEGIN;
SELECT * FROM pg_temp.compare('sim64', 700, '{0.99, 0.9}');
SELECT * FROM pg_temp.compare('sim256', 700, '{0.95, 0.85}');
SELECT pg_stat_get_xact_numscans('sim64_gist'::regclass) >= 2 AS gist64_scanned,
       pg_stat_get_xact_numscans('sim256_gist'::regclass) >= 2 AS gist256_scanned;
COMMIT;
DROP INDEX sim64_gist, sim256_gist;

CREATE INDEX sim128_mih ON sim128 USING mih (fp);
CREATE INDEX sim256_mih ON sim256 USING mih (fp);
BEGIN;
SELECT * FROM pg_temp.compare('sim128', 700, '{0.99, 0.9}');
SELECT * FROM pg_temp.compare('sim256', 700, '{0.95, 0.85, 0.8}');
SELECT pg_stat_get_xact_numscans('sim128_mih'::regclass) >= 2 AS mih128_scanned,
       pg_stat_get_xact_numscans('sim256_mih'::regclass) >= 3 AS mih256_scanned;
COMMIT;

-- q % fp (the commutator) and the function form answer through the index too
BEGIN;
SELECT count(*) FROM sim256 WHERE (SELECT fp FROM sim256 WHERE id = 700) % fp;
SELECT count(*) FROM sim256 WHERE simhash_similar(fp, (SELECT fp FROM sim256 WHERE id = 700));
SELECT pg_stat_get_xact_numscans('sim256_mih'::regclass) >= 2 AS mih256_scanned;
COMMIT;

-- A kept (generic) plan reads the threshold when it runs, not when it was
-- planned
SET plan_cache_mode = force_generic_plan;
PREPARE near256(simhash256) AS SELECT count(*) FROM sim256 WHERE fp % $1;
SELECT fp AS q700 FROM sim256 WHERE id = 700 \gset
SET simhash.similarity_threshold = 0.95;
EXECUTE near256(:'q700');
SET simhash.similarity_threshold = 0.8;
EXECUTE near256(:'q700');
SELECT count(*) FROM sim256 WHERE fp <-> (SELECT fp FROM sim256 WHERE id = 700) <= simhash_radius(0.8, 256);
DEALLOCATE near256;
RESET plan_cache_mode;

-- pg_trgm's idiom: filter with %, order by the similarity
SET simhash.similarity_threshold = 0.9;
SELECT id, s.fp <-> q.fp AS distance, round(simhash_similarity(s.fp, q.fp)::numeric, 4) AS similarity
FROM sim256 s, (SELECT fp FROM sim256 WHERE id = 700) q
WHERE s.fp % q.fp
ORDER BY simhash_similarity(s.fp, q.fp) DESC, id
LIMIT 6;
RESET enable_seqscan;

-- NULL on either side is NULL (strict); the setting's range; widths must match
SELECT NULL::simhash % 'ffffffffffffffff', 'ffffffffffffffff'::simhash % NULL;
SELECT '0123456789abcdef'::simhash % '0123456789abcdee' AS one_bit_apart;
SET simhash.similarity_threshold = 1;
SELECT '0123456789abcdef'::simhash % '0123456789abcdee' AS one_bit_apart_at_1,
       '0123456789abcdef'::simhash % '0123456789abcdef' AS equal_at_1;
SET simhash.similarity_threshold = 1.5;
SET simhash.similarity_threshold = -0.1;
SELECT '0123456789abcdef'::simhash % '0123456789abcdef0123456789abcdef'::simhash128;
SELECT simhash_similarity_radius(32);
RESET simhash.similarity_threshold;
SHOW simhash.similarity_threshold;
DROP TABLE sim, sim64, sim128, sim256;
