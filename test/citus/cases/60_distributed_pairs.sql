-- simhash_distributed_pairs and simhash_distributed_clusters on the
-- distributed table (spread by block key, searched on the workers) give
-- what simhash_pairs and simhash_clusters give over the plain table, at
-- 64 bits (k = 3 and 8) and 256 bits (k = 32); the spread table is gone
-- afterwards.
SET client_min_messages = warning;
SELECT simhash_is_distributed('docs') AS docs_distributed, simhash_is_distributed('docs_local') AS local_distributed,
	simhash_is_distributed('queries') AS reference_distributed;
CREATE TEMP TABLE dpairs (width int, k int, dist boolean, a bigint, b bigint, c int);
INSERT INTO dpairs SELECT 64, 3, true, * FROM simhash_distributed_pairs('docs', 'id', 'fp', 3);
INSERT INTO dpairs SELECT 64, 3, false, * FROM simhash_pairs('SELECT id, fp FROM docs_local', 3);
INSERT INTO dpairs SELECT 64, 8, true, * FROM simhash_distributed_pairs('docs', 'id', 'fp', 8);
INSERT INTO dpairs SELECT 64, 8, false, * FROM simhash_pairs('SELECT id, fp FROM docs_local', 8);
INSERT INTO dpairs SELECT 256, 32, true, * FROM simhash_distributed_pairs('docs', 'id', 'fp256', 32);
INSERT INTO dpairs SELECT 256, 32, false, * FROM simhash_pairs('SELECT id, fp256 FROM docs_local', 32);
SELECT width, k,
	(SELECT count(*) FROM (SELECT a, b, c FROM dpairs WHERE width = g.width AND k = g.k AND dist
		EXCEPT ALL SELECT a, b, c FROM dpairs WHERE width = g.width AND k = g.k AND NOT dist) x) AS only_distributed,
	(SELECT count(*) FROM (SELECT a, b, c FROM dpairs WHERE width = g.width AND k = g.k AND NOT dist
		EXCEPT ALL SELECT a, b, c FROM dpairs WHERE width = g.width AND k = g.k AND dist) x) AS only_plain,
	count(*) FILTER (WHERE NOT dist) > 100 AS many_pairs
FROM dpairs g GROUP BY width, k ORDER BY width, k;
CREATE TEMP TABLE dclusters AS
SELECT 64 AS width, true AS dist, * FROM simhash_distributed_clusters('docs', 'id', 'fp', 8)
UNION ALL SELECT 64, false, * FROM simhash_clusters('SELECT id, fp FROM docs_local', 8)
UNION ALL SELECT 256, true, * FROM simhash_distributed_clusters('docs', 'id', 'fp256', 32)
UNION ALL SELECT 256, false, * FROM simhash_clusters('SELECT id, fp256 FROM docs_local', 32);
SELECT width,
	(SELECT count(*) FROM (SELECT id, cluster_id FROM dclusters WHERE width = g.width AND dist
		EXCEPT ALL SELECT id, cluster_id FROM dclusters WHERE width = g.width AND NOT dist) x) AS only_distributed,
	(SELECT count(*) FROM (SELECT id, cluster_id FROM dclusters WHERE width = g.width AND NOT dist
		EXCEPT ALL SELECT id, cluster_id FROM dclusters WHERE width = g.width AND dist) x) AS only_plain,
	count(*) FILTER (WHERE NOT dist AND id <> cluster_id) > 100 AS many_joined
FROM dclusters g GROUP BY width ORDER BY width;
-- nothing left behind
SELECT count(*) AS spread_tables_left FROM pg_class WHERE relname LIKE 'simhash_blocks_%';
-- errors name the user's columns
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'nope', 3);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'fp', 'id', 3);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'fp', 17);
