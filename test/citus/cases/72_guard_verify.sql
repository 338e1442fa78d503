-- The guard with verification (1.10) on a distributed table at 256 bits,
-- k = 40, t = 0.65: a row is skipped only when a row within 40 bits, found
-- on its shard by the search of the guard, is also at least 0.65 alike by
-- minhash_jaccard.  Rows
-- go in one statement at a time through the view; the rows kept equal a
-- greedy pass over the same sequence (as sql/guard_verify.sql).
SET client_min_messages = warning;
SET jit = off;
-- the rows offered (verify_seq), and greedy(); local helpers, not
-- propagated to the workers
\i sql/include/verify_seq.sql
SET citus.enable_ddl_propagation = off;
\i sql/include/greedy.sql
RESET citus.enable_ddl_propagation;
CREATE TABLE vnews (id bigint PRIMARY KEY, body text NOT NULL,
	fp simhash256 GENERATED ALWAYS AS (to_simhash256(body)) STORED,
	sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED);
SELECT create_distributed_table('vnews', 'id', shard_count => 8);
SELECT simhash_distributed_guard('vnews', 'id', 'fp', 40, 'skip', 'sig', 0.65);
SELECT logicalrelid::regclass AS distributed_table, column_to_column_name(logicalrelid, partkey) AS key
FROM pg_dist_partition WHERE logicalrelid::text LIKE 'vnews%' ORDER BY 1;
-- one statement a row (not echoed)
\set ECHO none
SELECT format('INSERT INTO vnews_guarded (id, body) VALUES (%s, %L)', n, body) FROM verify_seq ORDER BY n \gexec
\set ECHO all
CREATE TEMP TABLE vgreedy (n bigint, fp simhash256, sig minhash);
CALL pg_temp.greedy('verify_seq', 'vgreedy', 40, 0.65);
SELECT (SELECT count(*) FROM verify_seq) AS offered, (SELECT count(*) FROM vnews) AS kept,
	(SELECT count(*) FROM vgreedy g WHERE EXISTS (SELECT FROM vgreedy h
		WHERE h.n < g.n AND h.fp <-> g.fp <= 40)) AS kept_within_k_of_a_kept_row,
	(SELECT array_agg(id ORDER BY id) FROM vnews) = (SELECT array_agg(n ORDER BY n) FROM vgreedy) AS equals_greedy;
SELECT item, ok, detail FROM simhash_guard_check('vnews') WHERE item IN ('signature column', 'lock rows', 'shard map', 'no near-duplicates');
-- 'reject' names both conditions; a row without a signature conflicts with none
CREATE TABLE vrej (id bigint PRIMARY KEY, fp simhash256, sig minhash);
SELECT create_distributed_table('vrej', 'id', shard_count => 8);
SELECT simhash_distributed_guard('vrej', 'id', 'fp', 40, 'reject', 'sig', 0.65);
INSERT INTO vrej_guarded SELECT 1, fp, sig FROM vnews WHERE id = 1;
INSERT INTO vrej_guarded SELECT 2, fp, to_minhash('entirely different words in this signature here') FROM vnews WHERE id = 1;
INSERT INTO vrej_guarded SELECT 3, fp, NULL FROM vnews WHERE id = 1;
INSERT INTO vrej_guarded SELECT 4, fp, sig FROM vnews WHERE id = 1;
SELECT id FROM vrej ORDER BY id;
SELECT item, ok FROM simhash_guard_check('vrej') WHERE NOT ok;
SELECT simhash_guard_drop('vnews'), simhash_guard_drop('vrej');
SELECT count(*) AS guard_relations_left FROM pg_class WHERE relname ~ '^v.*simhash_(keys|shards)$' OR relname LIKE 'v%\_guarded';
DROP TABLE vnews, vrej;
