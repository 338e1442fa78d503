-- demo/groups.sql: groups of near-duplicates, the connected components of
-- the graph of documents linked when within distance :k and at least :t
-- alike by minhash_jaccard (exact copies are at distance 0).  Near-duplicate is not transitive: a group is a chain of
-- pairs, so two members can be more than k apart.  The group id g is the
-- smallest document id in the group, as simhash_clusters() gives it at
-- every width.
CREATE TABLE doc_group AS
	SELECT id, cluster_id AS g
	  FROM simhash_clusters('SELECT id, fp, sig FROM docs', :k, :t);
ALTER TABLE doc_group ADD PRIMARY KEY (id);
CREATE INDEX ON doc_group (g);
ANALYZE doc_group;

-- The shape of each group of two or more documents: since a group is a
-- chain of pairs, its size says little; its diameter (the largest distance
-- between two members) says whether it is one cluster of near-duplicates
-- (diameter <= k: every two members are within k of each other) or a chain
-- whose ends may be unrelated.  Computed over the group's distinct
-- fingerprints (copies are at distance 0): exactly, every two of them, up
-- to :exact_max fingerprints (:exact_max^2/2 distances); beyond, from 300
-- sampled fingerprints to every other one, a lower bound, marked sampled.
\set exact_max 1500
CREATE TABLE group_shape AS
	SELECT m.g, count(*) AS size, count(DISTINCT d.fp) AS fps,
	       string_agg(DISTINCT d.source, ', ') AS sources
	  FROM doc_group m JOIN docs d USING (id)
	 GROUP BY m.g
	HAVING count(*) > 1;
ALTER TABLE group_shape ADD PRIMARY KEY (g);

CREATE TEMP TABLE gfp AS
	SELECT m.g, n.id, n.fp, s.fps > :exact_max AS big,
	       row_number() OVER (PARTITION BY m.g ORDER BY md5(n.id::text)) <= 300 AS sampled
	  FROM nodes n
	  JOIN doc_group m USING (id)
	  JOIN group_shape s USING (g)
	 WHERE s.fps > 1;
CREATE INDEX ON gfp (g);
ANALYZE gfp;

-- far = the farthest pair, as the array [d, a, b] (arrays compare element
-- by element, so max() picks the largest d); within = how many of the
-- distances are <= k, the share of member pairs that are near-duplicates
-- by themselves (1 for a clique, small for a long chain).
CREATE TEMP TABLE shape AS
	SELECT x.g, bool_or(x.big) AS sampled,
	       max(ARRAY[(x.fp <-> y.fp)::bigint, x.id, y.id]) AS far,
	       count(*) AS distances,
	       count(*) FILTER (WHERE (x.fp <-> y.fp) <= :k) AS within,
	       avg(x.fp <-> y.fp) AS mean
	  FROM gfp x
	  JOIN gfp y ON y.g = x.g
	 WHERE (NOT x.big AND y.id > x.id)
	    OR (x.big AND x.sampled AND y.id <> x.id AND NOT (y.sampled AND y.id < x.id))
	 GROUP BY x.g;

ALTER TABLE group_shape
	ADD diameter integer, ADD sampled boolean, ADD far_a bigint, ADD far_b bigint,
	ADD within_k numeric, ADD mean_d numeric;
-- groups of exact copies only (one fingerprint) have diameter 0
UPDATE group_shape s
   SET diameter = coalesce(x.far[1], 0), sampled = coalesce(x.sampled, false),
       far_a = coalesce(x.far[2], s.g),
       far_b = coalesce(x.far[3], (SELECT min(id) FROM doc_group m WHERE m.g = s.g AND m.id <> s.g)),
       within_k = coalesce(x.within::numeric / x.distances, 1),
       mean_d = coalesce(x.mean, 0)
  FROM group_shape s2 LEFT JOIN shape x USING (g)
 WHERE s2.g = s.g;
ANALYZE group_shape;
