-- simhash_distributed_guard on a distributed table: its lock rows in a
-- table of one shard, its shard map colocated with the table (a row on
-- each shard naming it); a near-duplicate through the
-- view is 23P01 naming the user's table (not a shard); skip keeps the
-- first of each group and INSERT reports the rows kept; a generated
-- fingerprint and the table's defaults work through the view.
SET client_min_messages = warning;
CREATE TABLE gnews (id bigserial PRIMARY KEY, body text NOT NULL,
	fp simhash GENERATED ALWAYS AS (to_simhash(body)) STORED);
SELECT create_distributed_table('gnews', 'id', shard_count => 32);
INSERT INTO gnews (body) VALUES ('The city council approved the new budget on Monday after a long debate');
SELECT simhash_distributed_guard('gnews', 'id', 'fp', 3);
SELECT logicalrelid::regclass AS distributed_table, column_to_column_name(logicalrelid, partkey) AS key,
	(SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid) AS shards
FROM pg_dist_partition p WHERE logicalrelid::text LIKE 'gnews%' ORDER BY 1;
SELECT count(*) AS lock_rows FROM gnews_simhash_keys;
SELECT count(*) AS shards_named, count(DISTINCT shard) AS distinct_names,
	bool_and(shard = shard_name('gnews', get_shard_id_for_distribution_column('gnews', id))) AS each_on_its_shard
FROM gnews_simhash_shards;
INSERT INTO gnews_guarded (body) VALUES ('Heavy rain is expected across the north of the country tomorrow') RETURNING id, body;
\set VERBOSITY default
INSERT INTO gnews_guarded (body) VALUES ('The city council approved the new budget on Monday after a long debate.');
\set VERBOSITY terse
SELECT count(*) AS rows_kept, count(*) FILTER (WHERE id IS NOT NULL) AS with_id FROM gnews;
-- skip: the first of each group
CREATE TABLE gskip (id bigint PRIMARY KEY, fp simhash);
SELECT create_distributed_table('gskip', 'id', shard_count => 32);
SELECT simhash_distributed_guard('gskip', 'id', 'fp', 3, 'skip');
\set QUIET off
INSERT INTO gskip_guarded VALUES (1, 'f3a90c1e00b2d47f'), (2, 'f3a90c1e00b2d47e'), (3, '0123456789abcdef'),
	(4, 'f3a90c1e00b2d470'), (5, '0123456789abcdee'), (6, 'ffffffff00000000');
\set QUIET on
SELECT id, fp FROM gskip ORDER BY id;
SELECT count(*) AS pairs_within_3 FROM simhash_pairs('SELECT id, fp FROM gskip', 3);
-- a guard per table
SELECT simhash_distributed_guard('gskip', 'id', 'fp', 3);
