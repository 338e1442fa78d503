-- demo/pairs.sql: every pair of fingerprints within Hamming distance :k.
--
-- ======================================================================
-- THE PAIR SEARCH (the one place to change when the extension gains
-- simhash_pairs(query, k)).
--   input:  nodes(id bigint, fp simhash), one row per DISTINCT fingerprint
--   output: pairs(a bigint, b bigint, d integer), a < b, d = fp_a <-> fp_b,
--           every pair with d <= :k and no other
-- With simhash_pairs() this whole statement becomes
--   CREATE TABLE pairs AS
--     SELECT a, b, d FROM simhash_pairs('SELECT id, fp FROM nodes', :k);
--
-- Why it is exact (pigeonhole): the 64 bits are four 16-bit segments, so
-- two fingerprints differing in at most 3 bits have at least one segment
-- with no differing bit.  Every pair within k <= 3 therefore shares one of
-- its segments exactly: four hash equi-joins (one per segment) give a
-- superset of the answer, the distance filter removes the rest, UNION
-- removes pairs found through more than one segment.  No true pair can be
-- missed.  (k >= 4 would need segments compared within floor(k/4) bits.)
-- ======================================================================
CREATE TEMP TABLE seg AS
	SELECT id, fp,
	       simhash_segment(fp, 0) AS s0, simhash_segment(fp, 1) AS s1,
	       simhash_segment(fp, 2) AS s2, simhash_segment(fp, 3) AS s3
	FROM nodes;
ANALYZE seg;

CREATE TABLE pairs AS
	SELECT x.id AS a, y.id AS b, (x.fp <-> y.fp)::integer AS d
	  FROM seg x JOIN seg y ON y.s0 = x.s0
	 WHERE x.id < y.id AND x.fp <-> y.fp <= :k
	UNION
	SELECT x.id, y.id, (x.fp <-> y.fp)::integer
	  FROM seg x JOIN seg y ON y.s1 = x.s1
	 WHERE x.id < y.id AND x.fp <-> y.fp <= :k
	UNION
	SELECT x.id, y.id, (x.fp <-> y.fp)::integer
	  FROM seg x JOIN seg y ON y.s2 = x.s2
	 WHERE x.id < y.id AND x.fp <-> y.fp <= :k
	UNION
	SELECT x.id, y.id, (x.fp <-> y.fp)::integer
	  FROM seg x JOIN seg y ON y.s3 = x.s3
	 WHERE x.id < y.id AND x.fp <-> y.fp <= :k;
-- ====================== end of the pair search ========================
ANALYZE pairs;
