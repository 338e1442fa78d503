--
-- The guard of simhash_distributed_guard with the 'link' action (1.14):
-- every row is kept, and its link and distance columns name its nearest
-- near-duplicate already in the table (the smallest id among the nearest),
-- both NULL when there is none.  The locks and the search are those of
-- 'reject' (sql/guard_locks.sql); races in test/citus/races.sh, a Citus
-- table in test/citus/cases/73_guard_link.sql.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

CREATE TABLE gl (id int PRIMARY KEY, tag text, fp simhash, dup_of int, dup_distance smallint);
CREATE INDEX ON gl USING gin (fp simhash_gin_ops) WITH (fastupdate = off);
INSERT INTO gl VALUES (1, 'before', 'f3a90c1e00b2d47f', NULL, NULL);
SELECT simhash_distributed_guard('gl', 'id', 'fp', 3, 'link', NULL, NULL, 'dup_of', 'dup_distance');
SELECT (simhash_guard_of('gl')).args;
SELECT tgargs IS NOT NULL AS has_trigger FROM pg_trigger WHERE tgrelid = 'gl_guarded'::regclass;

-- a row 3 bits from row 1 links to it; one 4 bits from row 1 and 1 from
-- row 2 links to row 2 (the nearest); an exact copy at distance 0; what
-- the statement gives for the two columns is replaced; RETURNING shows
-- the row as stored
INSERT INTO gl_guarded VALUES (2, 'a3', 'f3a90c1e00b2d478', 99, 9) RETURNING *;
INSERT INTO gl_guarded VALUES (3, 'a4', 'f3a90c1e00b2d470');
INSERT INTO gl_guarded VALUES (4, 'copy', 'f3a90c1e00b2d47f');
-- ties: 1 bit from rows 1 and 4 alike, and the link names the smaller id
INSERT INTO gl_guarded VALUES (5, 'tie', 'f3a90c1e00b2d47e');
-- a NULL fingerprint links to nothing, whatever was given
INSERT INTO gl_guarded VALUES (6, 'null', NULL, 1, 0) RETURNING dup_of, dup_distance;
-- far from everything
INSERT INTO gl_guarded VALUES (7, 'far', '0123456789abcdef', 1, 1);
SELECT id, tag, fp, dup_of, dup_distance FROM gl ORDER BY id;

-- ties go to the smallest id, not the row written first; a multi-row
-- INSERT: each row sees those the statement wrote before it
INSERT INTO gl_guarded VALUES (30, 't', 'aaaaaaaaaaaaaaaa'), (20, 't', 'aaaaaaaaaaaaaaaa'), (40, 't', 'aaaaaaaaaaaaaaab');
SELECT id, dup_of, dup_distance FROM gl WHERE tag = 't' ORDER BY id;

-- an UPDATE of the fingerprint links the new version again, never to
-- itself; one that keeps the fingerprint keeps both columns as the
-- statement left them
UPDATE gl_guarded SET fp = '0123456789abcdee' WHERE id = 3;
SELECT id, dup_of, dup_distance FROM gl WHERE id = 3;
-- row 1, written before the set-up, gets a link: 1 bit from row 4, 2
-- from row 5
UPDATE gl_guarded SET fp = 'f3a90c1e00b2d47d' WHERE id = 1;
SELECT id, dup_of, dup_distance FROM gl WHERE id = 1;
UPDATE gl_guarded SET tag = 'far, renamed', dup_of = 40, dup_distance = 5 WHERE id = 7;
SELECT id, tag, dup_of, dup_distance FROM gl WHERE id = 7;
UPDATE gl_guarded SET fp = NULL WHERE id = 7;
SELECT id, dup_of, dup_distance FROM gl WHERE id = 7;
-- a link is what was nearest when the row was written: deleting the row
-- it names leaves it
DELETE FROM gl_guarded WHERE id = 20;
SELECT id, dup_of, dup_distance FROM gl WHERE tag = 't' ORDER BY id;

-- a write that bypasses the view still fails; the check counts the pairs
-- the guard kept
INSERT INTO gl VALUES (100, 'direct', 'f3a90c1e00b2d47f');
SELECT item, ok, detail FROM simhash_guard_check('gl');

-- with verification, by named arguments: the nearest row within k that is
-- at least threshold alike; a bigint id, an integer distance, 128 bits
CREATE TABLE glv (id bigint PRIMARY KEY, body text, fp simhash128, sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED,
	near bigint, d integer);
CREATE INDEX ON glv USING gin (fp);
SELECT simhash_distributed_guard(relation => 'glv', id_column => 'id', fp_column => 'fp', k => 4,
	action => 'link', sig_column => 'sig', threshold => 0.5, link_column => 'near', distance_column => 'd');
INSERT INTO glv_guarded (id, body, fp) VALUES
	(10, 'the quick brown fox jumps over the lazy dog', 'f3a90c1e00b2d47f0123456789abcdef'),
	(11, 'an entirely different text about something else', 'f3a90c1e00b2d47f0123456789abcdee'),
	(12, 'the quick brown fox jumps over the lazy dog again', 'f3a90c1e00b2d47f0123456789abcdec'),
	(13, 'the quick brown fox jumps over the lazy dog', NULL);
SELECT id, near, d FROM glv ORDER BY id;
SELECT item, ok, detail FROM simhash_guard_check('glv') WHERE item IN ('signature column', 'near-duplicates linked');

-- errors of set-up, each before anything is created
CREATE TABLE glbad (id int PRIMARY KEY, fp simhash, sig minhash, lk int, lk8 bigint, d smallint, dt text,
	g int GENERATED ALWAYS AS (id + 1) STORED);
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, NULL, 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'lk', NULL);
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'reject', NULL, NULL, 'lk', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'nosuch', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'lk', 'nosuch');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'lk8', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'lk', 'dt');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'id', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'lk', 'fp');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', 'sig', 0.5, 'sig', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'lk', 'lk');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', NULL, NULL, 'g', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'nosuch', 3, 'link', NULL, NULL, 'lk', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link', 'sig', NULL, 'lk', 'd');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 99, 'link', NULL, NULL, 'lk', 'd');
SELECT simhash_distributed_guard(NULL, 'id', 'fp', 3, 'link', NULL, NULL, 'lk', 'd') IS NULL AS null_relation;
-- 'link' needs the link columns
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'link');
SELECT simhash_guard_of('glbad') IS NULL AS no_guard, to_regclass('glbad_guarded') IS NULL AS no_view;
-- the five- and seven-argument forms are called as before
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3, 'reject', 'sig', '0.5');
SELECT cardinality((simhash_guard_of('glbad')).args) AS trigger_args;
SELECT simhash_guard_drop('glbad');
SELECT simhash_distributed_guard('glbad', 'id', 'fp', 3);
SELECT cardinality((simhash_guard_of('glbad')).args) AS trigger_args;

-- a view trigger with eleven arguments is refused
CREATE VIEW gl_hand AS SELECT * FROM gl, (SELECT) AS x;
CREATE TRIGGER hand INSTEAD OF INSERT ON gl_hand FOR EACH ROW EXECUTE FUNCTION
	simhash_guard_view_trigger('public.gl', 'public.gl_simhash_keys', 'id', 'fp', 'public.simhash', '3', 'link', '', '', '', 'dup_of');
INSERT INTO gl_hand VALUES (1, 'x', NULL, NULL, NULL);
DROP VIEW gl_hand;
-- the write refuses a missing column argument
SELECT * FROM simhash_guard_lock_write('INSERT', '{"id": 1}', NULL, 'public.gl', 'public.gl_simhash_keys', 'id', 'fp',
	'public.simhash', '3', 'link', '', '', '', 'dup_of', NULL);

-- dropping: view, lock rows and table triggers go; the rows stay
SELECT simhash_guard_drop('gl'), simhash_guard_drop('glv'), simhash_guard_drop('glbad');
SELECT count(*) AS rows_kept FROM gl;
DROP TABLE gl, glv, glbad;
