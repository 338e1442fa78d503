-- The 1.9 guard on distributed tables: an application role with only the
-- documented grants, on a table with row-level security, cannot read the
-- lock rows or learn of a row it cannot see; the id must be unique and NOT
-- NULL; writes that would bypass the guard fail loudly (UPDATE and DELETE
-- through the view, a view whose trigger Citus dropped); a direct write by
-- the owner shows in simhash_guard_check; long names do not collide.
SET client_min_messages = warning;
CREATE ROLE simhash_app LOGIN;
CREATE TABLE posts (id bigserial PRIMARY KEY, author text NOT NULL DEFAULT current_user,
	body text NOT NULL, fp simhash256 GENERATED ALWAYS AS (to_simhash256(body)) STORED);
SELECT create_distributed_table('posts', 'id', shard_count => 8);
INSERT INTO posts (id, author, body) VALUES (4242, 'someone else',
	'The city council approved the new budget on Tuesday after a long debate about road repairs and school funding');
ALTER TABLE posts ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON posts USING (author = current_user);
SELECT simhash_distributed_guard('posts', 'id', 'fp', 32);
GRANT SELECT, INSERT ON posts_guarded TO simhash_app;
GRANT SELECT ON posts TO simhash_app;
GRANT USAGE ON SEQUENCE posts_id_seq TO simhash_app;
SELECT item, ok FROM simhash_guard_check('posts');
SET ROLE simhash_app;
SELECT count(*) AS rows_seen FROM posts_guarded;
SELECT key FROM posts_simhash_keys LIMIT 1;
DELETE FROM posts_simhash_keys;
INSERT INTO posts (body) VALUES ('a row that would bypass the guard');
\set VERBOSITY default
INSERT INTO posts_guarded (body) VALUES
	('The city council approved the new budget on Tuesday after a long debate about road repairs and school funding.');
\set VERBOSITY terse
INSERT INTO posts_guarded (body)
	VALUES ('Heavy rain flooded several streets in the harbour district overnight and trains were stopped')
	RETURNING id, author;
SELECT id, author FROM posts_guarded;
RESET ROLE;
SELECT item, ok, detail FROM simhash_guard_check('posts') WHERE item IN ('lock rows', 'shard map', 'no near-duplicates');

-- the id must be unique and NOT NULL: on Citus that is the distribution
-- column (1.8 kept two rows of one id, and gave XX000 for a NULL id)
CREATE TABLE nopk (id bigint, fp simhash256);
SELECT create_distributed_table('nopk', 'id', shard_count => 4);
SELECT simhash_distributed_guard('nopk', 'id', 'fp', 24);

-- UPDATE and DELETE through the view are refused (Citus plans them on the
-- shards); the owner's direct INSERT is found by the check
CREATE TABLE items (id bigint PRIMARY KEY, fp simhash);
SELECT create_distributed_table('items', 'id', shard_count => 4);
SELECT simhash_distributed_guard('items', 'id', 'fp', 3);
INSERT INTO items_guarded VALUES (1, 'f3a90c1e00b2d47f'), (2, '0123456789abcdef');
-- (Citus 13 says "cannot update view", Citus 14 "invalid reference to
-- FROM-clause entry": either way the write is refused)
DO $$ BEGIN
	UPDATE items_guarded SET fp = 'f3a90c1e00b2d47e' WHERE id = 2;
	RAISE WARNING 'UPDATE through the view went through';
EXCEPTION WHEN OTHERS THEN RAISE WARNING 'UPDATE through the view refused';
END $$;
DO $$ BEGIN
	DELETE FROM items_guarded WHERE id = 2;
	RAISE WARNING 'DELETE through the view went through';
EXCEPTION WHEN OTHERS THEN RAISE WARNING 'DELETE through the view refused';
END $$;
SELECT id, fp FROM items ORDER BY id;
INSERT INTO items VALUES (3, 'f3a90c1e00b2d47e');
SELECT item, ok, detail FROM simhash_guard_check('items') WHERE NOT ok;
-- undistribute_table and alter_distributed_table recreate the view
-- without its trigger: a write through it then fails, and the check says so
SELECT undistribute_table('items');
INSERT INTO items_guarded VALUES (4, 'f3a90c1e00b2d47e');
SELECT item, ok FROM simhash_guard_check('items') WHERE NOT ok AND item <> 'no near-duplicates';
CREATE TABLE moved (id bigint PRIMARY KEY, fp simhash);
SELECT create_distributed_table('moved', 'id', shard_count => 4);
SELECT simhash_distributed_guard('moved', 'id', 'fp', 3);
SELECT alter_distributed_table('moved', shard_count => 6, cascade_to_colocated := false);
INSERT INTO moved_guarded VALUES (1, 'f3a90c1e00b2d47e');
SELECT item, ok FROM simhash_guard_check('moved') WHERE NOT ok;

-- shard moves keep the guard: the lock rows have a primary key (the
-- replica identity logical replication needs; 1.8's had none, and
-- citus_rebalance_start failed), and the shard map moves with the table's
-- shards (colocated): move every shard of posts and of its lock rows to
-- the other worker by logical replication, rebalance, and the
-- near-duplicate of row 4242 is still rejected
CREATE TEMP TABLE placed AS
	SELECT s.shardid, n.nodeport FROM pg_dist_shard s JOIN pg_dist_placement p USING (shardid)
	JOIN pg_dist_node n USING (groupid) WHERE s.logicalrelid IN ('posts'::regclass, 'posts_simhash_keys'::regclass);
\o /dev/null
\set ECHO none
SELECT format('SELECT citus_move_shard_placement(%s, %L, %s, %L, %s, shard_transfer_mode => %L)',
	shardid, '127.0.0.1', nodeport, '127.0.0.1',
	(SELECT min(w.nodeport) FROM pg_dist_node w WHERE w.shouldhaveshards AND w.nodeport <> placed.nodeport),
	'force_logical') FROM placed ORDER BY shardid \gexec
\set ECHO all
\o
SELECT count(*) AS shards, count(*) FILTER (WHERE n.nodeport <> placed.nodeport) AS moved
FROM placed JOIN pg_dist_placement p USING (shardid) JOIN pg_dist_node n USING (groupid);
-- whether there is anything to rebalance depends on the other cases' shards:
-- only its errors are shown
SET client_min_messages = error;
\o /dev/null
SELECT citus_rebalance_start(shard_transfer_mode => 'force_logical');
SELECT citus_rebalance_wait();
\o
SET client_min_messages = warning;
SELECT item, ok FROM simhash_guard_check('posts') WHERE NOT ok;
SET ROLE simhash_app;
INSERT INTO posts_guarded (body) VALUES
	('The city council approved the new budget on Tuesday after a long debate about road repairs and school funding!');
RESET ROLE;

-- long names (1.8: 42P07 from 54 bytes, a distributed deadlock from 40)
CREATE TABLE a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1 (id int PRIMARY KEY, fp simhash128);
SELECT create_distributed_table('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1', 'id', shard_count => 4);
SELECT simhash_distributed_guard('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1', 'id', 'fp', 12) AS view1 \gset
INSERT INTO :"view1" VALUES (1, repeat('0', 32)::simhash128);
INSERT INTO :"view1" VALUES (2, (repeat('0', 31) || '1')::simhash128);
SELECT item FROM simhash_guard_check('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1') WHERE NOT ok;
SELECT count(*) AS kept FROM a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1;

SELECT simhash_guard_drop(t) FROM unnest(ARRAY['posts', 'items', 'moved',
	'a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1']::regclass[]) t;
SELECT count(*) AS guard_relations_left FROM pg_class
WHERE (relname ~ 'simhash_(keys|shards)$' OR relname LIKE '%\_guarded') AND relname NOT LIKE 'g%';
DROP TABLE posts, nopk, items, moved, a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1;
DROP ROLE simhash_app;
