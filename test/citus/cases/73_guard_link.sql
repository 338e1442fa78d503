-- simhash_distributed_guard with the 'link' action (1.14) on a table
-- distributed over 8 shards: every row is kept, and its link and distance
-- columns name its nearest near-duplicate already in the table (the
-- smallest id among the nearest, whichever shards they lie on), both NULL
-- when there is none; the rows of one multi-row INSERT see those before
-- them; the check counts the pairs kept.  (An UPDATE through the view of
-- a distributed table is refused by Citus, for every action: doc/citus.md,
-- Writes that bypass the view; sql/guard_link.sql tests it on a table
-- Citus does not know.)  Races in
-- test/citus/races.sh.
SET client_min_messages = warning;
CREATE TABLE lnews (id bigint PRIMARY KEY, tag text, fp simhash, dup_of bigint, dup_distance integer);
SELECT create_distributed_table('lnews', 'id', shard_count => 8);
INSERT INTO lnews VALUES (1, 'before', 'f3a90c1e00b2d47f', NULL, NULL);
SELECT simhash_distributed_guard('lnews', 'id', 'fp', 3, 'link', NULL, NULL, 'dup_of', 'dup_distance');
SELECT (simhash_guard_of('lnews')).args[7:12] AS link_args;
-- the ids fall on several shards
SELECT count(DISTINCT get_shard_id_for_distribution_column('lnews', i)) AS shards_used FROM generate_series(1, 7) i;
INSERT INTO lnews_guarded VALUES (2, 'a3', 'f3a90c1e00b2d478', 99, 9) RETURNING id, dup_of, dup_distance;
INSERT INTO lnews_guarded VALUES (3, 'a4', 'f3a90c1e00b2d470');
INSERT INTO lnews_guarded VALUES (4, 'copy', 'f3a90c1e00b2d47f');
INSERT INTO lnews_guarded VALUES (5, 'tie', 'f3a90c1e00b2d47e');
INSERT INTO lnews_guarded VALUES (6, 'null', NULL, 1, 0);
INSERT INTO lnews_guarded VALUES (7, 'far', '0123456789abcdef');
INSERT INTO lnews_guarded VALUES (30, 't', 'aaaaaaaaaaaaaaaa'), (20, 't', 'aaaaaaaaaaaaaaaa'), (40, 't', 'aaaaaaaaaaaaaaab');
SELECT id, tag, dup_of, dup_distance FROM lnews ORDER BY id;
-- every link names a row at the distance recorded
SELECT count(*) AS links, count(*) FILTER (WHERE b.fp <-> a.fp = a.dup_distance) AS at_their_distance
FROM (SELECT * FROM lnews WHERE dup_of IS NOT NULL) a JOIN (SELECT id, fp FROM lnews) b ON b.id = a.dup_of;
SELECT item, ok, detail FROM simhash_guard_check('lnews') WHERE item IN ('lock rows', 'shard map', 'near-duplicates linked');
SELECT simhash_guard_drop('lnews');
SELECT count(*) AS guard_relations_left FROM pg_class WHERE relname ~ '^lnews_simhash_(keys|shards)' OR relname LIKE 'lnews\_guarded';
DROP TABLE lnews;
