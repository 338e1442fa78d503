--
-- The guard of simhash_distributed_guard on a local table (1.9): the view is
-- the application's only door, the lock rows are the owner's alone, the
-- caller learns nothing of a row it cannot see, writes that bypass the view
-- with what the guard checks fail, and simhash_guard_check tells whether
-- a guard is intact.  The same on a Citus cluster: test/citus/cases/71_guard.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE ROLE simhash_guard_app NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE ROLE simhash_guard_other NOSUPERUSER NOCREATEDB NOCREATEROLE;
RESET client_min_messages;

-- an RLS table: each role sees only its own rows
CREATE TABLE posts (id bigserial PRIMARY KEY, author text NOT NULL DEFAULT current_user,
                    body text NOT NULL,
                    fp simhash256 GENERATED ALWAYS AS (to_simhash256(body)) STORED);
INSERT INTO posts (id, author, body) VALUES (4242, 'someone else',
  'The city council approved the new budget on Tuesday after a long debate about road repairs and school funding');
SELECT setval('posts_id_seq', 5000);
ALTER TABLE posts ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON posts USING (author = current_user);
SELECT simhash_distributed_guard('posts', 'id', 'fp', 24);
-- the grants doc/citus.md gives the application role: the view, reading
-- its own rows of the table, the sequence; nothing on the lock rows
GRANT SELECT, INSERT, UPDATE, DELETE ON posts_guarded TO simhash_guard_app;
GRANT SELECT ON posts TO simhash_guard_app;
GRANT USAGE ON SEQUENCE posts_id_seq TO simhash_guard_app;
SELECT item, ok FROM simhash_guard_check('posts');

SET ROLE simhash_guard_app;
SELECT count(*) AS rows_seen FROM posts_guarded;
-- the lock rows can be neither read nor written, the table not written
SELECT key FROM posts_simhash_keys LIMIT 1;
DELETE FROM posts_simhash_keys;
INSERT INTO posts (body) VALUES ('a row that would bypass the guard');
-- a near-duplicate of the hidden row 4242: rejected, with a detail that
-- names no row
\set VERBOSITY default
INSERT INTO posts_guarded (body) VALUES
  ('The city council approved the new budget on Tuesday after a long debate about road repairs and school funding.');
\set VERBOSITY terse
-- a row of its own goes in, as this role
INSERT INTO posts_guarded (body)
  VALUES ('Heavy rain flooded several streets in the harbour district overnight and trains were stopped')
  RETURNING id, author;
SELECT id, author FROM posts_guarded;
-- update and delete through the view: its own rows only, checked
UPDATE posts_guarded SET body = body || ' for six hours' RETURNING id, left(body, 20);
UPDATE posts_guarded SET body =
  'The city council approved the new budget on Tuesday after a long debate about road repairs and school funding!';
UPDATE posts_guarded SET body = 'x' WHERE id = 4242 RETURNING id;
RESET ROLE;
SELECT item, ok, detail FROM simhash_guard_check('posts') WHERE item = 'lock rows';

-- a table without row security: a role that may read the id and the
-- fingerprint is told which row it met; one that may not is not
CREATE TABLE notes (id bigint PRIMARY KEY, fp simhash);
INSERT INTO notes VALUES (1, 'f3a90c1e00b2d47f');
SELECT simhash_distributed_guard('notes', 'id', 'fp', 3);
GRANT INSERT ON notes_guarded TO simhash_guard_app, simhash_guard_other;
GRANT SELECT (id, fp) ON notes TO simhash_guard_app;
\set VERBOSITY default
SET ROLE simhash_guard_app;
INSERT INTO notes_guarded VALUES (2, 'f3a90c1e00b2d47e');
SET ROLE simhash_guard_other;
INSERT INTO notes_guarded VALUES (2, 'f3a90c1e00b2d47e');
RESET ROLE;
\set VERBOSITY terse

-- the id must be unique and NOT NULL (1.8 kept two equal rows of one id)
CREATE TABLE nopk (id bigint, fp simhash256);
SELECT simhash_distributed_guard('nopk', 'id', 'fp', 24);
CREATE UNIQUE INDEX ON nopk (id);
SELECT simhash_distributed_guard('nopk', 'id', 'fp', 24);
ALTER TABLE nopk ALTER COLUMN id SET NOT NULL;
SELECT simhash_distributed_guard('nopk', 'id', 'fp', 24);
INSERT INTO nopk_guarded VALUES (1, repeat('0', 64)::simhash256);
INSERT INTO nopk_guarded VALUES (1, repeat('0', 64)::simhash256);
INSERT INTO nopk_guarded VALUES (2, repeat('0', 64)::simhash256);
SELECT count(*) AS kept FROM nopk;
-- only the owner sets a guard up, and only one
SET ROLE simhash_guard_app;
SELECT simhash_distributed_guard('notes', 'id', 'fp', 3);
RESET ROLE;
SELECT simhash_distributed_guard('notes', 'id', 'fp', 3);

-- the view trigger writes as the table's owner only for a view of that
-- owner: a role cannot aim a view of its own at another's table
GRANT CREATE ON SCHEMA public TO simhash_guard_app;
SET ROLE simhash_guard_app;
CREATE VIEW my_notes AS SELECT * FROM (VALUES (1::bigint, 'f3a90c1e00b2d47f'::simhash)) v(id, fp);
CREATE TRIGGER steal INSTEAD OF INSERT ON my_notes FOR EACH ROW
  EXECUTE FUNCTION simhash_guard_view_trigger('public.notes', 'public.notes_simhash_registry', 'id', 'fp', 'simhash', '3', 'reject');
INSERT INTO my_notes VALUES (77, '0000000000000000');
DROP VIEW my_notes;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM simhash_guard_app;
SELECT count(*) AS rows_77 FROM notes WHERE id = 77;

-- writes that bypass the view: TRUNCATE and DELETE need nothing kept in
-- step, INSERT and an UPDATE of the fingerprint fail, other updates pass
CREATE TABLE items (id bigint PRIMARY KEY, label text, fp simhash);
SELECT simhash_distributed_guard('items', 'id', 'fp', 3, 'skip');
INSERT INTO items_guarded VALUES (1, 'a', 'f3a90c1e00b2d47f'), (2, 'b', '0123456789abcdef'),
  (3, 'c', 'f3a90c1e00b2d470'), (4, 'd', 'ffffffff00000000');
SELECT id FROM items ORDER BY id;
INSERT INTO items VALUES (5, 'e', 'f3a90c1e00b2d47e');
UPDATE items SET fp = 'f3a90c1e00b2d47e' WHERE id = 2;
UPDATE items SET label = 'B' WHERE id = 2;
DELETE FROM items WHERE id = 1;
SELECT item, ok, detail FROM simhash_guard_check('items') WHERE item = 'lock rows';
-- the deleted row's fingerprint is free again; skip drops an update too
INSERT INTO items_guarded VALUES (6, 'f', 'f3a90c1e00b2d47f');
UPDATE items_guarded SET fp = '0123456789abcdee' WHERE id = 4;
SELECT id, fp FROM items ORDER BY id;
TRUNCATE items;
SELECT count(*) AS lock_rows FROM items_simhash_keys;
INSERT INTO items_guarded VALUES (7, 'g', 'f3a90c1e00b2d47f');
SELECT item, ok FROM simhash_guard_check('items');

-- a guard that lost its trigger fails loudly: the view is not writable
-- without it, and the check says so
DROP TRIGGER simhash_guard ON items_guarded;
INSERT INTO items_guarded VALUES (8, 'h', 'f3a90c1e00b2d47e');
SELECT item, ok FROM simhash_guard_check('items') WHERE NOT ok;
ALTER TABLE items DISABLE TRIGGER simhash_guard;
-- a write the disabled trigger let through: the check finds the pair
INSERT INTO items VALUES (8, 'h', 'f3a90c1e00b2d47e');
SELECT item, ok, detail FROM simhash_guard_check('items') WHERE NOT ok;
CREATE TABLE unguarded (id int PRIMARY KEY, fp simhash);
SELECT item, ok, detail FROM simhash_guard_check('unguarded');

-- long names: the view, the lock rows and the table never share a name
-- (1.8: 42P07 from 54 bytes on)
CREATE TABLE a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1 (id int PRIMARY KEY, fp simhash128);
CREATE TABLE a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx2 (id int PRIMARY KEY, fp simhash128);
SELECT simhash_distributed_guard('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1', 'id', 'fp', 12) AS view1 \gset
SELECT simhash_distributed_guard('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx2', 'id', 'fp', 12) AS view2 \gset
SELECT c.relname, v.view, v.registry
FROM pg_class c, simhash_guard_of(c.oid) v
WHERE c.relname LIKE 'a\_table\_name\_of\_sixty%' AND v.view IS NOT NULL ORDER BY 1;
INSERT INTO :"view1" VALUES (1, repeat('0', 32)::simhash128);
INSERT INTO :"view1" VALUES (2, (repeat('0', 31) || '1')::simhash128);
INSERT INTO :"view2" VALUES (2, (repeat('0', 31) || '1')::simhash128);
SELECT item FROM simhash_guard_check('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx2') WHERE NOT ok;

-- dropping a guard: view, lock rows and table triggers go, the table stays
SELECT simhash_guard_drop('items');
SELECT count(*) AS items_guard_objects FROM pg_class WHERE relname LIKE 'items\_%' AND relkind IN ('r', 'v');
SELECT count(*) AS items_triggers FROM pg_trigger WHERE tgrelid = 'items'::regclass;
INSERT INTO items VALUES (9, 'i', 'f3a90c1e00b2d47e');
SELECT simhash_guard_drop('items');
SELECT simhash_guard_drop('posts');
SELECT simhash_guard_drop('notes');
SELECT simhash_guard_drop('nopk');
SELECT simhash_guard_drop('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1');
SELECT simhash_guard_drop('a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx2');
SELECT count(*) AS guard_relations_left FROM pg_class WHERE relname LIKE '%simhash\_keys' OR relname LIKE '%\_guarded';
DROP TABLE posts, notes, nopk, items, unguarded,
  a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx1,
  a_table_name_of_sixty_bytes_for_the_guard_names_xxxxxxxxxxx2;
DROP ROLE simhash_guard_app, simhash_guard_other;
