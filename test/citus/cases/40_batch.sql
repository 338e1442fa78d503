-- simhash_pairs and simhash_clusters with a query over the distributed
-- table (run on the coordinator, the rows pulled from the shards) give
-- what they give over the plain table.
SET client_min_messages = warning;
CREATE TEMP TABLE batch (width int, fn text, dist boolean, a bigint, b bigint, c bigint);
INSERT INTO batch SELECT 64, 'pairs', true, * FROM simhash_pairs('SELECT id, fp FROM docs WHERE fp IS NOT NULL', 4);
INSERT INTO batch SELECT 64, 'pairs', false, * FROM simhash_pairs('SELECT id, fp FROM docs_local WHERE fp IS NOT NULL', 4);
INSERT INTO batch SELECT 128, 'pairs', true, * FROM simhash_pairs('SELECT id, fp128 FROM docs WHERE fp128 IS NOT NULL', 10);
INSERT INTO batch SELECT 128, 'pairs', false, * FROM simhash_pairs('SELECT id, fp128 FROM docs_local WHERE fp128 IS NOT NULL', 10);
INSERT INTO batch SELECT 256, 'pairs', true, * FROM simhash_pairs('SELECT id, fp256 FROM docs WHERE fp256 IS NOT NULL', 12);
INSERT INTO batch SELECT 256, 'pairs', false, * FROM simhash_pairs('SELECT id, fp256 FROM docs_local WHERE fp256 IS NOT NULL', 12);
INSERT INTO batch SELECT 64, 'clusters', true, *, NULL FROM simhash_clusters('SELECT id, fp FROM docs WHERE fp IS NOT NULL', 4);
INSERT INTO batch SELECT 64, 'clusters', false, *, NULL FROM simhash_clusters('SELECT id, fp FROM docs_local WHERE fp IS NOT NULL', 4);
INSERT INTO batch SELECT 256, 'clusters', true, *, NULL FROM simhash_clusters('SELECT id, fp256 FROM docs WHERE fp256 IS NOT NULL', 12);
INSERT INTO batch SELECT 256, 'clusters', false, *, NULL FROM simhash_clusters('SELECT id, fp256 FROM docs_local WHERE fp256 IS NOT NULL', 12);
-- rows only one side has; that there are rows at all; for clusters, that
-- some cluster joins several ids
SELECT width, fn,
	(SELECT count(*) FROM (SELECT a, b, c FROM batch WHERE width = g.width AND fn = g.fn AND dist
		EXCEPT ALL SELECT a, b, c FROM batch WHERE width = g.width AND fn = g.fn AND NOT dist) x) AS only_distributed,
	(SELECT count(*) FROM (SELECT a, b, c FROM batch WHERE width = g.width AND fn = g.fn AND NOT dist
		EXCEPT ALL SELECT a, b, c FROM batch WHERE width = g.width AND fn = g.fn AND dist) x) AS only_plain,
	count(*) FILTER (WHERE NOT dist) > 0 AS some_rows,
	count(*) FILTER (WHERE NOT dist AND (fn = 'pairs' OR a <> b)) > 0 AS some_pairs_or_joined
FROM batch g GROUP BY width, fn ORDER BY fn, width;
