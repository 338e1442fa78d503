-- simhash_distributed_pairs and simhash_distributed_clusters on the
-- distributed table (at 64 bits spread by block key, at 128 and 256 bits
-- by word pass, and searched on the workers) give what simhash_pairs and
-- simhash_clusters give over the plain table, at 64 bits (k = 3 and 8),
-- 128 bits (k = 0, 1, 8, 20) and 256 bits (k = 1, 3, 32, 40); the spread
-- tables are gone afterwards.
SET client_min_messages = warning;
SELECT simhash_is_distributed('docs') AS docs_distributed, simhash_is_distributed('docs_local') AS local_distributed,
	simhash_is_distributed('queries') AS reference_distributed;
CREATE TEMP TABLE dpairs (width int, k int, dist boolean, a bigint, b bigint, c int);
INSERT INTO dpairs SELECT 64, 3, true, * FROM simhash_distributed_pairs('docs', 'id', 'fp', 3);
INSERT INTO dpairs SELECT 64, 3, false, * FROM simhash_pairs('SELECT id, fp FROM docs_local', 3);
INSERT INTO dpairs SELECT 64, 8, true, * FROM simhash_distributed_pairs('docs', 'id', 'fp', 8);
INSERT INTO dpairs SELECT 64, 8, false, * FROM simhash_pairs('SELECT id, fp FROM docs_local', 8);
INSERT INTO dpairs SELECT 128, k, true, p.* FROM (VALUES (0), (1), (8), (20)) v(k),
	LATERAL simhash_distributed_pairs('docs', 'id', 'fp128', k) p;
INSERT INTO dpairs SELECT 128, k, false, p.* FROM (VALUES (0), (1), (8), (20)) v(k),
	LATERAL simhash_pairs('SELECT id, fp128 FROM docs_local', k) p;
INSERT INTO dpairs SELECT 256, k, true, p.* FROM (VALUES (1), (3), (32), (40)) v(k),
	LATERAL simhash_distributed_pairs('docs', 'id', 'fp256', k) p;
INSERT INTO dpairs SELECT 256, k, false, p.* FROM (VALUES (1), (3), (32), (40)) v(k),
	LATERAL simhash_pairs('SELECT id, fp256 FROM docs_local', k) p;
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
-- the word spread: each row with a fingerprint once per word with a pass
-- (4 at 256 bits and k = 32, 2 at k = 1, 2 at 128 bits), one task a shard,
-- the shards on both workers
SELECT simhash_spread_words('docs', 'id', 'fp256', 32) AS t \gset
SELECT count(*) AS copies, count(DISTINCT id) AS ids, count(DISTINCT task) AS tasks,
	array_agg(DISTINCT task % 4 ORDER BY task % 4) AS words
FROM :t;
SELECT count(*) AS shards, count(DISTINCT nodeport) AS nodes FROM citus_shards WHERE table_name = :'t'::regclass;
SELECT count(*) AS tasks_sharing_a_shard FROM (SELECT get_shard_id_for_distribution_column(:'t', task) s
	FROM (SELECT DISTINCT task FROM :t) x GROUP BY 1 HAVING count(*) > 1) y;
DROP TABLE :t;
SELECT simhash_spread_words('docs', 'id', 'fp256', 1) AS t \gset
SELECT count(*) AS copies, array_agg(DISTINCT task % 4) AS words FROM :t;
DROP TABLE :t;
SELECT simhash_spread_words('docs', 'id', 'fp128', 8) AS t \gset
SELECT count(*) AS copies, array_agg(DISTINCT task % 2) AS words FROM :t;
SELECT count(*) AS shards, count(DISTINCT nodeport) AS nodes FROM citus_shards WHERE table_name = :'t'::regclass;
DROP TABLE :t;
-- nothing left behind
SELECT count(*) AS spread_tables_left FROM pg_class WHERE relname LIKE 'simhash_blocks_%' OR relname LIKE 'simhash_words_%';
-- errors name the user's columns
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'nope', 3);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'fp', 'id', 3);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'fp', 17);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'fp256', 129);
