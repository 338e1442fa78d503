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
-- 1.13, the node spread: one task a worker, each on its own node, each
-- word with a pass in one task; the copies are the codes of the rows whose
-- shards lie on the other worker, so each row once, and a task's query
-- reads its own work shard and the shards of docs on its node
CREATE TEMP TABLE sn AS SELECT * FROM simhash_spread_nodes('docs', 'id', 'fp256', 32);
SELECT work AS t FROM sn LIMIT 1 \gset
SELECT count(*) AS tasks, (SELECT array_agg(w ORDER BY w) FROM sn, unnest(sn.words) w) AS words,
	(SELECT count(DISTINCT nodeport) FROM citus_shards WHERE table_name = :'t'::regclass) AS nodes,
	count(*) FILTER (WHERE query LIKE 'SELECT w.id, w.fp FROM public.simhash_nodes_%') AS reading_their_shard,
	(SELECT count(*) FROM citus_shards c WHERE c.table_name = 'docs'::regclass) AS docs_shards,
	sum((SELECT count(*) FROM regexp_matches(query, 'FROM public\.docs_[0-9]+ t', 'g'))) AS docs_shards_read
FROM sn;
SELECT count(fp256) AS rows_with_fp FROM docs \gset
SELECT count(fp) AS copies, count(DISTINCT id) FILTER (WHERE fp IS NOT NULL) AS ids,
	count(fp) = :rows_with_fp AS each_row_once, count(*) FILTER (WHERE fp IS NULL) AS task_rows
FROM :t;
DROP TABLE :t;
-- at 128 bits and k = 0 one word, one task
SELECT count(*) AS tasks, min(words::text) AS words, min(work::text) AS t FROM simhash_spread_nodes('docs', 'id', 'fp128', 0) \gset
DROP TABLE :t;
SELECT :tasks AS tasks_128_k0, :'words' AS words_128_k0;
DROP TABLE sn;
-- after another statement of the transaction (here a write to docs, which
-- a node task might not see), the word tasks of 1.12 run: the pairs are
-- those of the rows as the transaction sees them
BEGIN;
INSERT INTO docs (id, fp, fp128, fp256) SELECT 900000 + id, fp, fp128, fp256 FROM docs_local WHERE id <= 3;
INSERT INTO docs_local (id, fp, fp128, fp256) SELECT 900000 + id, fp, fp128, fp256 FROM docs_local WHERE id <= 3;
SELECT (SELECT count(*) FROM (SELECT * FROM simhash_distributed_pairs('docs', 'id', 'fp256', 32)
		EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, fp256 FROM docs_local', 32)) x) AS only_distributed,
	(SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, fp256 FROM docs_local', 32)
		EXCEPT ALL SELECT * FROM simhash_distributed_pairs('docs', 'id', 'fp256', 32)) x) AS only_plain,
	(SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'fp256', 32) WHERE id2 > 900000 AND distance = 0) AS new_copies_found;
ROLLBACK;
-- nothing left behind
SELECT count(*) AS spread_tables_left FROM pg_class WHERE relname LIKE 'simhash_blocks_%' OR relname LIKE 'simhash_words_%'
	OR relname LIKE 'simhash_nodes_%';
-- errors name the user's columns
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'nope', 3);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'fp', 'id', 3);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'fp', 17);
SELECT count(*) FROM simhash_distributed_pairs('docs', 'id', 'fp256', 129);
