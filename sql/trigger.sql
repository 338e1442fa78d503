-- simhash_reject_near_duplicates: the insert-time deduplication trigger.
-- Concurrency (READ COMMITTED, REPEATABLE READ, 8 clients) is tested by
-- test/t/003_reject_near_duplicates.pl; this file covers one session:
-- rejection, 'skip', UPDATE, multi-row inserts, each index kind, and every
-- error of bad use.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;
CREATE TABLE tdocs (id int PRIMARY KEY, tag text, fp simhash);
CREATE INDEX tdocs_fp_gin ON tdocs USING gin (fp simhash_gin_ops);
CREATE TRIGGER tdocs_reject BEFORE INSERT OR UPDATE OF fp ON tdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '3');

-- a row 3 bits away is rejected (23P01), one 4 bits away is not
INSERT INTO tdocs VALUES (1, 'a', 'f3a90c1e00b2d47f');
INSERT INTO tdocs VALUES (2, 'a3', 'f3a90c1e00b2d478');
INSERT INTO tdocs VALUES (3, 'a4', 'f3a90c1e00b2d470');
INSERT INTO tdocs VALUES (4, 'dup', 'f3a90c1e00b2d47f');
-- NULL fingerprints never conflict
INSERT INTO tdocs VALUES (5, 'null', NULL), (6, 'null', NULL);
-- the error carries the table, column and trigger names
DO $$
DECLARE s text; t text; c text; n text;
BEGIN
	INSERT INTO tdocs VALUES (7, 'x', 'f3a90c1e00b2d47e');
EXCEPTION WHEN exclusion_violation THEN
	GET STACKED DIAGNOSTICS s = SCHEMA_NAME, t = TABLE_NAME, c = COLUMN_NAME, n = CONSTRAINT_NAME;
	RAISE NOTICE 'schema %, table %, column %, constraint %', s, t, c, n;
END $$;

-- a multi-row INSERT holding two near-duplicates of each other: the second
-- is rejected, and with it the statement
INSERT INTO tdocs VALUES (10, 'm', '0123456789abcdef'), (11, 'm', '0123456789abcdee');
SELECT count(*) AS m_rows FROM tdocs WHERE tag = 'm';
-- within one transaction, a row conflicts with one inserted earlier
BEGIN;
INSERT INTO tdocs VALUES (12, 'tx', '1111111111111111');
INSERT INTO tdocs VALUES (13, 'tx', '1111111111111113');
ROLLBACK;
-- ... and a row inserted in a rolled-back savepoint is gone
BEGIN;
SAVEPOINT s;
INSERT INTO tdocs VALUES (12, 'tx', '1111111111111111');
ROLLBACK TO SAVEPOINT s;
INSERT INTO tdocs VALUES (13, 'tx', '1111111111111113');
COMMIT;

-- UPDATE: a row never conflicts with itself ...
UPDATE tdocs SET fp = 'f3a90c1e00b2d4ff' WHERE id = 1;
UPDATE tdocs SET fp = fp WHERE id = 1;
UPDATE tdocs SET tag = 'a-renamed' WHERE id = 1;
-- ... but does with another row
UPDATE tdocs SET fp = '1111111111111110' WHERE id = 3;
-- an UPDATE of several rows checks each new version against the others
UPDATE tdocs SET fp = 'aaaaaaaaaaaaaaaa' WHERE id IN (1, 3);
SELECT id, tag, fp FROM tdocs ORDER BY id;

-- a bulk load: 2,000 rows in one statement, far apart; the locks one
-- transaction holds stay within the trigger's budget of 512 keys
BEGIN;
INSERT INTO tdocs SELECT 1000 + g, 'bulk', hashint8extended(g, 99)::simhash
FROM generate_series(1, 2000) g;
SELECT count(*) BETWEEN 100 AND 512 AS bounded_locks FROM pg_locks
WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 21320;
COMMIT;
ANALYZE tdocs;

-- the search goes through the GIN index.  The plan is fixed with
-- enable_seqscan = off: on 13 heap pages against 76 index pages the
-- planner's choice depends on statistics, which this test must not
-- (the trigger plans its search again after ANALYZE and CREATE INDEX).
SET enable_seqscan = off;
BEGIN;
INSERT INTO tdocs VALUES (20, 'gin', '2222222222222222');
SELECT pg_stat_get_xact_numscans('tdocs_fp_gin'::regclass) > 0 AS gin_used;
COMMIT;
-- ... through a GiST index
DROP INDEX tdocs_fp_gin;
CREATE INDEX tdocs_fp_gist ON tdocs USING gist (fp simhash_gist_ops);
BEGIN;
INSERT INTO tdocs VALUES (22, 'gist', '3333333333333333');
SELECT pg_stat_get_xact_numscans('tdocs_fp_gist'::regclass) > 0 AS gist_used;
COMMIT;
INSERT INTO tdocs VALUES (21, 'gist', '2222222222222223');
-- ... and without an index, by a sequential scan (the first fire in this
-- session without an index warns once; tdocs was indexed until now)
RESET enable_seqscan;
DROP INDEX tdocs_fp_gist;
BEGIN;
INSERT INTO tdocs VALUES (24, 'seq', '4444444444444444');
SELECT pg_stat_get_xact_numscans('tdocs'::regclass) > 0 AS seq_scanned;
COMMIT;
INSERT INTO tdocs VALUES (23, 'seq', '3333333333333332');
DELETE FROM tdocs WHERE tag = 'bulk';

-- 'skip' drops near-duplicates silently: bulk INSERT ... SELECT keeps the
-- first of each group (rows are checked in the order they arrive)
CREATE TABLE sdocs (id int, fp simhash);
CREATE INDEX ON sdocs USING gin (fp);
CREATE TRIGGER sdocs_skip BEFORE INSERT OR UPDATE ON sdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '2', 'skip');
INSERT INTO sdocs
SELECT g, (c # (CASE WHEN g % 10 = 0 THEN 0 ELSE 1::bigint << (g % 10 + 20) END)
           # (CASE WHEN g % 10 >= 8 THEN 1::bigint << 5 ELSE 0 END))::simhash
FROM generate_series(0, 49) g,
     LATERAL (SELECT hashint8extended(g / 10, 7) AS c) x
ORDER BY g;
-- per group of 10: the centre (distance 0), rows 1..7 at distance 1 from
-- it (skipped), rows 8 and 9 at distance 2 (skipped)
SELECT id, fp FROM sdocs ORDER BY id;
-- UPDATE with 'skip' leaves the row as it was
UPDATE sdocs SET fp = ((SELECT fp::bigint FROM sdocs WHERE id = 0) # 2)::simhash WHERE id = 10;
SELECT id, fp FROM sdocs WHERE id = 10;
-- no primary key: the detail names the row by its ctid
CREATE TRIGGER sdocs_reject BEFORE INSERT ON sdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '5', 'reject');
INSERT INTO sdocs SELECT 99, (fp::bigint # 7)::simhash FROM sdocs WHERE id = 20;

-- k = 0 rejects exact duplicates only; k = 64 every second row; a radius
-- above 15 takes one lock for the whole column
CREATE TABLE kdocs (fp simhash, fp2 simhash);
CREATE TRIGGER k0 BEFORE INSERT ON kdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '0');
CREATE TRIGGER k64 BEFORE INSERT ON kdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp2', '64', 'SKIP');
INSERT INTO kdocs VALUES ('0000000000000000', '0000000000000000');
INSERT INTO kdocs VALUES ('0000000000000001', NULL);
INSERT INTO kdocs VALUES ('0000000000000001', NULL);
INSERT INTO kdocs VALUES ('0000000000000002', 'ffffffffffffffff');
SELECT * FROM kdocs ORDER BY fp;
-- k = 10: eleven segments of 5 and 6 bits
CREATE TABLE k10 (fp simhash);
CREATE TRIGGER k10 BEFORE INSERT ON k10
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '10');
INSERT INTO k10 VALUES ('0000000000000000'), ('ffffffffffffffff');
INSERT INTO k10 VALUES ('00000000000007ff');	-- 11 bits from the first row
INSERT INTO k10 VALUES ('ffc0000000000000');	-- 10 bits from it
SELECT * FROM k10 ORDER BY fp;

-- a generated column: PostgreSQL computes it after BEFORE triggers, so the
-- trigger evaluates its expression on the new row itself
CREATE TABLE gdocs (id int PRIMARY KEY, body text NOT NULL,
                    fp simhash GENERATED ALWAYS AS (to_simhash(body)) STORED);
CREATE INDEX gdocs_fp_gin ON gdocs USING gin (fp simhash_gin_ops);
CREATE TRIGGER gdocs_reject BEFORE INSERT OR UPDATE OF fp ON gdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '3');
INSERT INTO gdocs (id, body) VALUES
	(1, 'Detecting near-duplicates for web crawling is a hard problem at scale'),
	(2, 'A completely different text, about databases and their indexes');
-- the same words in another case and with other punctuation: distance 0
INSERT INTO gdocs (id, body) VALUES (3, 'DETECTING near duplicates for web crawling IS a hard problem at scale!');
-- an UPDATE of the base column fires UPDATE OF fp, and is checked
UPDATE gdocs SET body = 'detecting near-duplicates for web crawling is a hard problem at scale' WHERE id = 2;
-- a change to the row's own text is checked against the others only
UPDATE gdocs SET body = body || ' today' WHERE id = 1;
SELECT id, body, fp, fp = to_simhash(body) AS fp_is_generated FROM gdocs ORDER BY id;

-- the expression-index recipe: no column, an index on to_simhash(body),
-- and a query written with the same expression uses it
CREATE INDEX gdocs_body_gin ON gdocs USING gin (to_simhash(body) simhash_gin_ops);
CREATE FUNCTION pg_temp.plan_uses(q text, idx text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%Index Scan on ' || idx || '%' THEN RETURN true; END IF;
	END LOOP;
	RETURN false;
END $$;
SET enable_seqscan = off;
SELECT pg_temp.plan_uses($q$SELECT id FROM gdocs
	WHERE to_simhash(body) <-> to_simhash('Detecting near duplicates for web crawling is a hard problem at scale today') <= 3$q$,
	'gdocs_body_gin') AS expression_index_used;
SELECT id FROM gdocs
WHERE to_simhash(body) <-> to_simhash('Detecting near duplicates for web crawling is a hard problem at scale today') <= 3;
RESET enable_seqscan;
DROP TABLE gdocs;

-- A generated column's expression runs as the inserting user, with that
-- user's search_path, as PostgreSQL runs it: never as the table owner.
-- simhash_inserter shadows lower(), which the owner's expression calls,
-- with a function that reports who runs it.  Each INSERT evaluates it
-- twice (the trigger, then PostgreSQL), each UPDATE three times (the old
-- and the new row, then PostgreSQL).
CREATE ROLE simhash_table_owner;
CREATE ROLE simhash_inserter;
CREATE SCHEMA simhash_app AUTHORIZATION simhash_table_owner;
CREATE SCHEMA simhash_own AUTHORIZATION simhash_inserter;
GRANT USAGE ON SCHEMA simhash_app TO simhash_inserter;
SET ROLE simhash_table_owner;
CREATE FUNCTION simhash_app.norm(t text) RETURNS simhash LANGUAGE sql IMMUTABLE
	AS 'SELECT to_simhash(lower(t))';
CREATE TABLE simhash_app.gen (id bigserial PRIMARY KEY, body text,
	fp simhash GENERATED ALWAYS AS (simhash_app.norm(body)) STORED);
CREATE TABLE simhash_app.owner_only (secret text);
INSERT INTO simhash_app.owner_only VALUES ('only the owner reads this');
CREATE INDEX ON simhash_app.gen USING gin (fp simhash_gin_ops);
CREATE TRIGGER rej BEFORE INSERT OR UPDATE ON simhash_app.gen
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '3');
GRANT INSERT, UPDATE (body), SELECT (id) ON simhash_app.gen TO simhash_inserter;
GRANT USAGE ON SEQUENCE simhash_app.gen_id_seq TO simhash_inserter;
RESET ROLE;
SET ROLE simhash_inserter;
CREATE FUNCTION simhash_own.lower(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE n bigint;
BEGIN
	BEGIN
		SELECT count(*) INTO n FROM simhash_app.owner_only;
		RAISE NOTICE 'lower() ran as %, and read the owner''s table', current_user;
	EXCEPTION WHEN insufficient_privilege THEN
		RAISE NOTICE 'lower() ran as %, and could not read the owner''s table', current_user;
	END;
	RETURN pg_catalog.lower(t);
END $$;
SET search_path = simhash_own, public, pg_catalog;
INSERT INTO simhash_app.gen (body) VALUES ('Hello');
UPDATE simhash_app.gen SET body = 'Hello world, and more words here' WHERE id = 1;
-- a near-duplicate is still rejected, its expression evaluated the same way
INSERT INTO simhash_app.gen (body) VALUES ('HELLO WORLD, and more words here');
RESET search_path;
RESET ROLE;
SELECT id, body, fp = to_simhash(lower(body)) AS fp_is_owners_expression FROM simhash_app.gen;

-- Row security decides the detail as for a unique violation: the owner
-- under FORCE ROW LEVEL SECURITY does not learn the key or fingerprint
-- of a row its policies hide, though the search (as the owner, row
-- security off) still finds it
SET ROLE simhash_table_owner;
CREATE TABLE simhash_app.rls (id int PRIMARY KEY, tag text, fp simhash);
CREATE INDEX ON simhash_app.rls USING gin (fp simhash_gin_ops);
CREATE TRIGGER rej BEFORE INSERT ON simhash_app.rls
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '3');
INSERT INTO simhash_app.rls VALUES (1, 'hidden', 'f3a90c1e00b2d47f');
ALTER TABLE simhash_app.rls ENABLE ROW LEVEL SECURITY;
ALTER TABLE simhash_app.rls FORCE ROW LEVEL SECURITY;
CREATE POLICY visible ON simhash_app.rls USING (tag = 'visible') WITH CHECK (true);
SELECT count(*) AS rows_the_owner_sees FROM simhash_app.rls;
INSERT INTO simhash_app.rls VALUES (2, 'visible', 'f3a90c1e00b2d47e');
-- without FORCE the owner is not subject to its policies: the detail names the row
ALTER TABLE simhash_app.rls NO FORCE ROW LEVEL SECURITY;
INSERT INTO simhash_app.rls VALUES (2, 'visible', 'f3a90c1e00b2d47e');
RESET ROLE;
SET client_min_messages = warning;
DROP SCHEMA simhash_app, simhash_own CASCADE;
RESET client_min_messages;
DROP ROLE simhash_table_owner, simhash_inserter;

-- a user who may insert but not read gets the error without the row's
-- identity; the search itself runs as the table owner
CREATE ROLE simhash_trigger_writer;
GRANT INSERT ON tdocs TO simhash_trigger_writer;
SET ROLE simhash_trigger_writer;
INSERT INTO tdocs VALUES (30, 'w', '2222222222222220');
INSERT INTO tdocs VALUES (31, 'w', '5555555555555555');
RESET ROLE;
REVOKE ALL ON tdocs FROM simhash_trigger_writer;
DROP ROLE simhash_trigger_writer;

-- definition changes reach the trigger: a renamed column, a new radius
ALTER TABLE tdocs RENAME COLUMN fp TO fingerprint;
INSERT INTO tdocs VALUES (40, 'r', '6666666666666666');
ALTER TABLE tdocs RENAME COLUMN fingerprint TO fp;
INSERT INTO tdocs VALUES (40, 'r', '6666666666666666');
CREATE OR REPLACE TRIGGER tdocs_reject BEFORE INSERT OR UPDATE OF fp ON tdocs
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '8');
INSERT INTO tdocs VALUES (41, 'r', '66666666666666ff');

-- Bad use: each fails when the trigger first fires.  bad_trigger(event,
-- level, args) (re)creates trigger bad on table bad, FOR EACH level, with
-- the trigger arguments args, and shows the SQLSTATE, message and hint of
-- the error of an INSERT.
CREATE TABLE bad (id int, fp simhash, body text);
CREATE FUNCTION pg_temp.bad_trigger(event text, level text, args text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	hint text;
BEGIN
	EXECUTE format('CREATE OR REPLACE TRIGGER bad %s ON bad FOR EACH %s '
				   'EXECUTE FUNCTION simhash_reject_near_duplicates(%s)', event, level, args);
	BEGIN
		INSERT INTO bad VALUES (1, '0000000000000000');
		RETURN 'no error';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS hint = PG_EXCEPTION_HINT;
		RETURN SQLSTATE || ': ' || SQLERRM ||
			CASE WHEN hint <> '' THEN ' (hint: ' || hint || ')' ELSE '' END;
	END;
END $$;
SELECT event, level, args, pg_temp.bad_trigger(event, level, args) AS error
FROM (VALUES
	('BEFORE INSERT', 'ROW', $$'nofp', '3'$$),
	('BEFORE INSERT', 'ROW', $$'body', '3'$$),
	('BEFORE INSERT', 'ROW', $$'ctid', '3'$$),
	('BEFORE INSERT', 'ROW', $$'fp', '65'$$),
	('BEFORE INSERT', 'ROW', $$'fp', '-1'$$),
	('BEFORE INSERT', 'ROW', $$'fp', 'three'$$),
	('BEFORE INSERT', 'ROW', $$'fp', ''$$),
	('BEFORE INSERT', 'ROW', $$'fp', '3', 'ignore'$$),
	('BEFORE INSERT', 'ROW', $$'fp'$$),
	('BEFORE INSERT', 'ROW', $$'fp', '3', 'skip', 'x'$$),
	('BEFORE INSERT', 'ROW', $$$$),
	('AFTER INSERT', 'ROW', $$'fp', '3'$$),
	('BEFORE INSERT', 'STATEMENT', $$'fp', '3'$$)) AS t(event, level, args);
-- the arguments of action 'link' (since 1.14; what it does: trigger_link.sql)
ALTER TABLE bad ADD COLUMN link int, ADD COLUMN d int, ADD COLUMN big bigint,
	ADD COLUMN g int GENERATED ALWAYS AS (id + 1) STORED, ADD COLUMN j json, ADD COLUMN jl json;
SELECT args, pg_temp.bad_trigger('BEFORE INSERT', 'ROW', args) AS error
FROM (VALUES	-- argument counts and actions
	($$'fp', '3', 'link'$$), ($$'fp', '3', 'link', 'id', 'link'$$),
	($$'fp', '3', 'link', 'id', 'link', 'd', 'x'$$), ($$'fp', '3', 'skip', 'id', 'link', 'd'$$),
	-- missing columns
	($$'fp', '3', 'link', 'noid', 'link', 'd'$$), ($$'fp', '3', 'link', 'id', 'nolink', 'd'$$),
	($$'fp', '3', 'link', 'id', 'link', 'nod'$$),
	-- types: link of another type than the id, a text distance, an id without ordering
	($$'fp', '3', 'link', 'id', 'big', 'd'$$), ($$'fp', '3', 'link', 'id', 'link', 'body'$$),
	($$'fp', '3', 'link', 'j', 'jl', 'd'$$),
	-- columns that cannot take the link, a system column as the id
	($$'fp', '3', 'link', 'id', 'link', 'link'$$), ($$'fp', '3', 'link', 'id', 'id', 'd'$$),
	($$'fp', '3', 'link', 'id', 'g', 'd'$$), ($$'fp', '3', 'link', 'id', 'link', 'ctid'$$),
	($$'fp', '3', 'link', 'ctid', 'link', 'd'$$),
	-- a bad signature column after the link columns
	($$'fp', '3', 'link', 'id', 'link', 'd', 'body', '0.5'$$)) AS t(args);
DROP TRIGGER bad ON bad;
INSERT INTO bad VALUES (1, '0000000000000000');
CREATE TRIGGER bad BEFORE DELETE ON bad
	FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '3');
DELETE FROM bad;
-- a direct call
SELECT simhash_reject_near_duplicates();

DROP TABLE tdocs, sdocs, kdocs, k10, bad;
