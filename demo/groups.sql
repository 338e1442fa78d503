-- demo/groups.sql: groups of near-duplicates, the connected components of
-- the graph of documents linked when within distance :k (exact copies are
-- at distance 0).  Near-duplicate is not transitive: a group is a chain of
-- pairs, so two members can be more than k apart.  The group id g is the
-- smallest document id in the group.  At 64 bits simhash_clusters() does
-- it; wider, the components of the pairs of demo/pairs.sql are found here
-- by propagating the smallest id until nothing changes.
SELECT :width = 64 AS narrow \gset
\if :narrow
CREATE TABLE doc_group AS
	SELECT id, cluster_id AS g
	  FROM simhash_clusters('SELECT id, fp FROM docs', :k);
\else
CREATE TEMP TABLE node_group AS SELECT id, id AS g FROM nodes;
ALTER TABLE node_group ADD PRIMARY KEY (id);
CREATE TEMP TABLE edge AS SELECT a, b FROM pairs UNION ALL SELECT b, a FROM pairs;
CREATE INDEX ON edge (a);
ANALYZE node_group, edge;
DO $$
DECLARE
	changed bigint;
BEGIN
	LOOP
		UPDATE node_group n SET g = m.g
		  FROM (SELECT e.a AS id, min(o.g) AS g
		          FROM edge e JOIN node_group o ON o.id = e.b
		         GROUP BY e.a) m
		 WHERE m.id = n.id AND m.g < n.g;
		GET DIAGNOSTICS changed = ROW_COUNT;
		EXIT WHEN changed = 0;
	END LOOP;
END
$$;
-- every document joins its fingerprint's node; g becomes the smallest
-- document id of the component
CREATE TABLE doc_group AS
	SELECT d.id, min(d.id) OVER (PARTITION BY ng.g) AS g
	  FROM docs d JOIN nodes n ON n.fp = d.fp JOIN node_group ng ON ng.id = n.id;
\endif
ALTER TABLE doc_group ADD PRIMARY KEY (id);
CREATE INDEX ON doc_group (g);
ANALYZE doc_group;
