-- demo/groups.sql: groups of near-duplicates = connected components of the
-- graph whose nodes are distinct fingerprints and whose edges are pairs.
-- (A later simhash_clusters(query, k) would replace this file and
-- pairs.sql together.)
--
-- Min-label propagation with pointer jumping: every node starts with its
-- own id as label; each round a node takes the smallest label among its
-- neighbours ("hook"), then the label of its label ("shortcut", which
-- halves long chains, so rounds grow with log(diameter), not diameter).
-- Labels only decrease and always name a node of the same component; when
-- a hook round changes nothing, both ends of every edge carry the same
-- label, so each component is labelled by its smallest id.
CREATE TEMP TABLE edge AS
	SELECT a AS x, b AS y FROM pairs
	UNION ALL
	SELECT b, a FROM pairs;
CREATE INDEX ON edge (x);
ANALYZE edge;

CREATE TEMP TABLE label AS SELECT DISTINCT x AS id, x AS g FROM edge;
ALTER TABLE label ADD PRIMARY KEY (id);
ANALYZE label;

DO $$
DECLARE
	changed bigint;
	rounds integer := 0;
BEGIN
	LOOP
		rounds := rounds + 1;
		UPDATE label l SET g = m.g
		  FROM (SELECT e.x, min(n.g) AS g
		          FROM edge e JOIN label n ON n.id = e.y
		         GROUP BY e.x) m
		 WHERE l.id = m.x AND m.g < l.g;
		GET DIAGNOSTICS changed = ROW_COUNT;
		EXIT WHEN changed = 0;
		UPDATE label l SET g = p.g
		  FROM label p
		 WHERE p.id = l.g AND p.g < l.g;
	END LOOP;
	INSERT INTO facts VALUES ('label propagation rounds', rounds::text);
END
$$;

-- Every document joins its fingerprint's component; a fingerprint with no
-- near neighbour is a group of its exact copies (often of one).  The group
-- id g is the smallest document id in the group: its "first member".
CREATE TABLE doc_group AS
	SELECT d.id, coalesce(l.g, n.id) AS g
	  FROM docs d
	  JOIN nodes n ON n.fp = d.fp
	  LEFT JOIN label l ON l.id = n.id;
ALTER TABLE doc_group ADD PRIMARY KEY (id);
CREATE INDEX ON doc_group (g);
ANALYZE doc_group;
