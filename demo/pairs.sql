-- demo/pairs.sql: every pair of distinct fingerprints within distance :k.
--   input:  nodes(id bigint, fp simhash), one row per DISTINCT fingerprint,
--           with a simhash_gin_ops index
--   output: pairs(a bigint, b bigint, d integer), a < b, d = fp_a <-> fp_b
-- simhash_pairs() does it in a few sorted passes (Manku et al. 2007,
-- section 3); the same pairs come from the index self-join, which the
-- check below runs too and compares.
\set p0 `date +%s%N`
CREATE TABLE pairs AS
	SELECT id1 AS a, id2 AS b, distance AS d
	  FROM simhash_pairs('SELECT id, fp FROM nodes', :k);
\set p1 `date +%s%N`
ANALYZE pairs;

-- the exactness check: the GIN-backed self-join finds the same pairs
\set t0 `date +%s%N`
CREATE TEMP TABLE join_pairs AS
	SELECT x.id AS a, y.id AS b, (x.fp <-> y.fp)::integer AS d
	  FROM nodes x JOIN nodes y ON y.fp <-> x.fp <= :k
	 WHERE x.id < y.id;
\set t1 `date +%s%N`
INSERT INTO facts
SELECT 'self-join check', format('%s pairs by simhash_pairs (%s ms), %s by the index self-join (%s ms), %s differences',
	(SELECT count(*) FROM pairs), (:p1 - :p0) / 1000000, (SELECT count(*) FROM join_pairs),
	(:t1 - :t0) / 1000000,
	(SELECT count(*) FROM ((TABLE pairs EXCEPT ALL TABLE join_pairs)
	                       UNION ALL (TABLE join_pairs EXCEPT ALL TABLE pairs)) x));
