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
-- Why it is exact: nodes has a simhash_gin_ops index (built in the
-- "index" stage); the planner turns the join condition into an index
-- nested loop, one exact radius search per node (README, "Indexes").
-- ======================================================================
CREATE TABLE pairs AS
	SELECT x.id AS a, y.id AS b, (x.fp <-> y.fp)::integer AS d
	  FROM nodes x JOIN nodes y ON y.fp <-> x.fp <= :k
	 WHERE x.id < y.id;
-- ====================== end of the pair search ========================
ANALYZE pairs;
