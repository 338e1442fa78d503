--
-- The guard of simhash_distributed_guard with verification (1.10): a
-- signature column and a threshold, and a row is a near-duplicate only when
-- an existing row is within k bits AND minhash_jaccard of their signatures
-- is at least the threshold.  Rows go in one at a time through the view
-- with 'skip'; the rows kept equal a greedy pass over the same sequence
-- with the same predicate (as the trigger's test in sql/minhash.sql).  The
-- same on a Citus cluster: test/citus/cases/72_guard_verify.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE ROLE simhash_gv_app NOSUPERUSER NOCREATEDB NOCREATEROLE;
RESET client_min_messages;
SET jit = off;
\getenv abs_srcdir PG_ABS_SRCDIR
\set greedy_sql :abs_srcdir '/sql/include/greedy.sql'
\i :greedy_sql

-- the rows offered: verify_seq (n, body)
\set verify_seq_sql :abs_srcdir '/sql/include/verify_seq.sql'
\i :verify_seq_sql

-- 'skip' at 256 bits, k = 40, t = 0.65, the fingerprint and the signature
-- generated; the application role writes through the view only
CREATE TABLE gv (id bigint PRIMARY KEY, body text NOT NULL,
	fp simhash256 GENERATED ALWAYS AS (to_simhash256(body)) STORED,
	sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED);
SELECT simhash_distributed_guard('gv', 'id', 'fp', 40, 'skip', 'sig', 0.65);
GRANT INSERT ON gv_guarded TO simhash_gv_app;
GRANT SELECT ON verify_seq TO simhash_gv_app;
SET ROLE simhash_gv_app;
CALL pg_temp.insert_each('verify_seq', 'gv_guarded');
RESET ROLE;
CREATE TEMP TABLE gv_greedy (n bigint, fp simhash256, sig minhash);
CALL pg_temp.greedy('verify_seq', 'gv_greedy', 40, 0.65);
SELECT (SELECT count(*) FROM verify_seq) AS offered, (SELECT count(*) FROM gv) AS kept,
       (SELECT count(*) FROM gv a WHERE EXISTS (SELECT FROM gv b
          WHERE b.id < a.id AND b.fp <-> a.fp <= 40)) AS kept_within_k_of_a_kept_row,
       (SELECT array_agg(id ORDER BY id) FROM gv) = (SELECT array_agg(n ORDER BY n) FROM gv_greedy) AS equals_greedy;
SELECT item, ok, detail FROM simhash_guard_check('gv') WHERE item IN ('signature column', 'lock rows');
-- no copy of the rows: the guard's table holds its 16384 lock rows, and
-- every row kept is checked against the table itself
SELECT count(*) AS lock_rows, min(key), max(key) FROM gv_simhash_keys;

-- 'reject': the message names both conditions.  A signature column whose
-- name needs quoting, written as data; the threshold kept exactly whatever
-- the session's extra_float_digits.
CREATE TABLE gr (id int PRIMARY KEY, label text, fp simhash256, "the ""sig""" minhash);
SET extra_float_digits = -15;
SELECT simhash_distributed_guard('gr', 'id', 'fp', 48, 'REJECT', 'the "sig"', 0.65);
RESET extra_float_digits;
SELECT (simhash_guard_of('gr')).args;
INSERT INTO gr_guarded VALUES (1, 'a',
	to_simhash256(repeat('alpha beta gamma delta ', 3) || 'one two three four five six seven eight nine ten'),
	to_minhash(repeat('alpha beta gamma delta ', 3) || 'one two three four five six seven eight nine ten'));
-- the same fingerprint, a signature of other features: kept
INSERT INTO gr_guarded VALUES (2, 'b', (SELECT fp FROM gr WHERE id = 1),
	to_minhash('entirely different words in this signature here'));
-- the same fingerprint and the same signature: rejected
\set VERBOSITY default
INSERT INTO gr_guarded VALUES (3, 'c', (SELECT fp FROM gr WHERE id = 1), (SELECT "the ""sig""" FROM gr WHERE id = 1));
\set VERBOSITY terse
-- no signature: kept, and never a conflict for later rows
INSERT INTO gr_guarded VALUES (4, 'd', (SELECT fp FROM gr WHERE id = 1), NULL);
-- an update through the view that makes a row a verified near-duplicate:
-- rejected; one that changes only the label: done
UPDATE gr_guarded SET "the ""sig""" = (SELECT "the ""sig""" FROM gr WHERE id = 1) WHERE id = 2;
UPDATE gr_guarded SET label = 'B' WHERE id = 2 RETURNING id, label;
-- through the table: a change of the signature fails like one of the
-- fingerprint (a new signature could make the row a near-duplicate no one
-- checked); a change of another column passes; a delete keeps the registry
\set VERBOSITY default
UPDATE gr SET "the ""sig""" = NULL WHERE id = 2;
\set VERBOSITY terse
UPDATE gr SET label = 'BB' WHERE id = 2;
DELETE FROM gr WHERE id = 1;
INSERT INTO gr_guarded VALUES (5, 'e', (SELECT fp FROM gr WHERE id = 2), (SELECT "the ""sig""" FROM gr WHERE id = 2));
-- the signature of row 1 is free again
INSERT INTO gr_guarded VALUES (6, 'f',
	to_simhash256(repeat('alpha beta gamma delta ', 3) || 'one two three four five six seven eight nine ten'),
	to_minhash(repeat('alpha beta gamma delta ', 3) || 'one two three four five six seven eight nine ten'));
SELECT id, label, "the ""sig""" IS NULL AS no_sig FROM gr ORDER BY id;
SELECT item, ok, detail FROM simhash_guard_check('gr');
-- the check counts the lock rows; a write that needs a missing one fails
-- rather than go unlocked
DELETE FROM gr_simhash_keys WHERE key = ANY (simhash_guard_lock_keys(repeat('0', 64), 'simhash256', 48));
SELECT item, ok, detail FROM simhash_guard_check('gr') WHERE item = 'lock rows';
INSERT INTO gr_guarded VALUES (100, 'x', repeat('0', 64)::simhash256, to_minhash('lone'));
INSERT INTO gr_simhash_keys SELECT unnest(simhash_guard_lock_keys(repeat('0', 64), 'simhash256', 48));
-- a threshold of 0: the fingerprint alone decides (NULL signatures aside)
CREATE TABLE g0 (id int PRIMARY KEY, fp simhash, sig minhash);
SELECT simhash_distributed_guard('g0', 'id', 'fp', 3, 'skip', 'sig', 0);
INSERT INTO g0_guarded VALUES (1, 'f3a90c1e00b2d47f', to_minhash('a b c')), (2, 'f3a90c1e00b2d47e', to_minhash('x y z')),
	(3, 'f3a90c1e00b2d470', NULL), (4, '0123456789abcdef', to_minhash('x y z'));
SELECT id FROM g0 ORDER BY id;

-- the view trigger has ten arguments with or without verification (the
-- signature column and the threshold empty without), the table trigger six
-- without and seven with; the lock rows are keys only
CREATE TABLE gplain (id int PRIMARY KEY, fp simhash, sig minhash);
SELECT simhash_distributed_guard('gplain', 'id', 'fp', 3);
SELECT c.relname, t.tgname, t.tgnargs FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE c.relname IN ('gplain', 'gplain_guarded', 'gr', 'gr_guarded') ORDER BY 1, 2;
SELECT (simhash_guard_of('gplain')).args[8:10] AS plain_sig_threshold_shards,
       (simhash_guard_of('gr')).args[8:10] AS verified_sig_threshold_shards;
SELECT attrelid::regclass, attname FROM pg_attribute
WHERE attrelid IN ('gplain_simhash_keys'::regclass, 'gr_simhash_keys'::regclass) AND attnum > 0 ORDER BY 1, attnum;
INSERT INTO gplain_guarded VALUES (1, 'f3a90c1e00b2d47f', to_minhash('a b c'));
INSERT INTO gplain_guarded VALUES (2, 'f3a90c1e00b2d47e', to_minhash('x y z'));
UPDATE gplain SET sig = NULL WHERE id = 1;
SELECT item FROM simhash_guard_check('gplain') WHERE NOT ok;

-- errors, all before anything is created
CREATE TABLE gbad (id int PRIMARY KEY, fp simhash256, sig minhash, body text);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'nosuch', 0.65);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'body', 0.65);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'fp', 0.65);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'sig', 1.5);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'sig', -0.1);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'sig', 'NaN');
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', 'sig', NULL);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', NULL, 0.65);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'maybe', 'sig', 0.65);
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 200, 'reject', 'sig', 0.65);
SELECT simhash_distributed_guard(NULL, 'id', 'fp', 40, 'reject', 'sig', 0.65) IS NULL AS null_relation;
SELECT count(*) AS gbad_guard_objects FROM pg_class WHERE relname LIKE 'gbad\_%' AND relkind IN ('r', 'v');
-- both NULL: a guard without verification
SELECT simhash_distributed_guard('gbad', 'id', 'fp', 40, 'reject', NULL, NULL);
SELECT cardinality((simhash_guard_of('gbad')).args) AS trigger_args;
-- a view trigger with eight arguments is refused
CREATE VIEW gbad_hand AS SELECT * FROM gbad, (SELECT) AS x;
CREATE TRIGGER hand INSTEAD OF INSERT ON gbad_hand FOR EACH ROW EXECUTE FUNCTION
	simhash_guard_view_trigger('public.gbad', 'public.gbad_simhash_registry', 'id', 'fp', 'public.simhash256', '40', 'reject', 'sig');
INSERT INTO gbad_hand VALUES (1, repeat('0', 64)::simhash256, NULL, NULL);
DROP VIEW gbad_hand;

-- dropping: view, lock rows and table triggers go
SELECT simhash_guard_drop('gv'), simhash_guard_drop('gr'), simhash_guard_drop('g0'),
       simhash_guard_drop('gplain'), simhash_guard_drop('gbad');
SELECT count(*) AS guard_relations_left FROM pg_class
WHERE relname ~ '^(gv|gr|g0|gplain|gbad)_(guarded|simhash_keys)$';
SELECT count(*) AS guard_triggers_left FROM pg_trigger WHERE tgrelid IN ('gv'::regclass, 'gr'::regclass, 'g0'::regclass, 'gplain'::regclass, 'gbad'::regclass);
DROP TABLE gv, gr, g0, gplain, gbad, verify_seq;
DROP ROLE simhash_gv_app;
