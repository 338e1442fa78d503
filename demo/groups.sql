-- demo/groups.sql: groups of near-duplicates, the connected components of
-- the graph of documents linked when within distance :k (exact copies are
-- at distance 0).  Near-duplicate is not transitive: a group is a chain of
-- pairs, so two members can be more than k apart.  The group id g is the
-- smallest document id in the group, as simhash_clusters() gives it at
-- every width.
CREATE TABLE doc_group AS
	SELECT id, cluster_id AS g
	  FROM simhash_clusters('SELECT id, fp FROM docs', :k);
ALTER TABLE doc_group ADD PRIMARY KEY (id);
CREATE INDEX ON doc_group (g);
ANALYZE doc_group;
