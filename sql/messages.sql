-- Messages of the distributed functions (1.9): a regclass that names no
-- relation is 42P01 "relation with OID N does not exist" (1.8: 42703
-- naming relation "<NULL>"), and a relation without rows (a composite
-- type, an index, a sequence) is 42809 naming what it is, from the column
-- checks before any work (1.8: the 42809 of the query it ran, or 42703
-- for a sequence), through every function that checks the columns.
-- alone or after the other tests
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
SET jit = off;

-- err(q): "ok" when q runs, else "SQLSTATE: message [detail]", with the
-- OID of the dropped table shown as N
CREATE FUNCTION pg_temp.err(q text, gone oid DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
	RETURN st || ': ' || CASE WHEN gone IS NULL THEN msg ELSE replace(msg, gone::text, 'N') END
		|| CASE WHEN det <> '' THEN ' [' || det || ']' ELSE '' END;
END $$;

CREATE TABLE mdocs (id bigint, fp simhash, body text);
INSERT INTO mdocs VALUES (1, '0000000000000000', 'a'), (2, '0000000000000003', 'b'),
	(3, 'ffffffffffffffff', 'c'), (4, NULL, 'd');
CREATE TYPE mrow AS (id bigint, fp simhash);
CREATE INDEX mdocs_id_fp ON mdocs (id, (fp::text));
CREATE SEQUENCE mseq;
CREATE VIEW mview AS SELECT id, fp FROM mdocs;
CREATE MATERIALIZED VIEW mmat AS SELECT id, fp FROM mdocs;
CREATE TABLE mpart (id bigint, fp simhash) PARTITION BY RANGE (id);
CREATE TABLE mpart_1 PARTITION OF mpart FOR VALUES FROM (0) TO (3);
CREATE TABLE mpart_2 PARTITION OF mpart FOR VALUES FROM (3) TO (10);
INSERT INTO mpart SELECT id, fp FROM mdocs;
-- an OID that named a table: the regclass of a relation dropped since
CREATE TABLE mgone (id bigint, fp simhash);
SELECT 'mgone'::regclass::oid AS gone \gset
DROP TABLE mgone;

-- every function that checks the columns, on each kind of relation
SELECT f AS function, what AS relation, pg_temp.err(format(q, r), :gone) AS result
FROM (VALUES
	(1, 'simhash_check_columns', 'SELECT simhash_check_columns(%s, ''id'', ''fp'')'),
	(2, 'simhash_check_spread', 'SELECT simhash_check_spread(%s, ''id'', ''fp'', 3)'),
	(3, 'simhash_spread_blocks', 'SELECT simhash_spread_blocks(%s, ''id'', ''fp'', 3)'),
	(4, 'simhash_distributed_pairs', 'SELECT * FROM simhash_distributed_pairs(%s, ''id'', ''fp'', 3)'),
	(5, 'simhash_distributed_clusters', 'SELECT * FROM simhash_distributed_clusters(%s, ''id'', ''fp'', 3)'),
	(6, 'simhash_distributed_guard', 'SELECT simhash_distributed_guard(%s, ''id'', ''fp'', 3)')) fn(i, f, q)
CROSS JOIN (VALUES
	(1, 'dropped', :gone || '::oid::regclass'),
	(2, 'type', '''mrow''::regclass'),
	(3, 'index', '''mdocs_id_fp''::regclass'),
	(4, 'sequence', '''mseq''::regclass')) rel(j, what, r)
ORDER BY i, j;

-- the relations with rows pass the checks and give their pairs
SELECT r AS relation, simhash_check_columns(r, 'id', 'fp') AS fptype,
       (SELECT string_agg(format('%s-%s:%s', id1, id2, distance), ' ' ORDER BY id1, id2)
        FROM simhash_distributed_pairs(r, 'id', 'fp', 3)) AS pairs,
       (SELECT string_agg(format('%s:%s', id, cluster_id), ' ' ORDER BY id)
        FROM simhash_distributed_clusters(r, 'id', 'fp', 3)) AS clusters
FROM unnest(ARRAY['mdocs', 'mview', 'mmat', 'mpart']::regclass[]) r;

-- the column messages name the relation
SELECT pg_temp.err('SELECT simhash_check_columns(''mdocs'', ''id'', ''nope'')');
SELECT pg_temp.err('SELECT simhash_check_columns(''mview'', ''nope'', ''fp'')');
ALTER TABLE mdocs DROP COLUMN body;
SELECT pg_temp.err('SELECT simhash_check_columns(''mdocs'', ''id'', ''body'')');
SELECT pg_temp.err('SELECT simhash_check_columns(''mdocs'', ''fp'', ''id'')');

DROP VIEW mview;
DROP MATERIALIZED VIEW mmat;
DROP TABLE mdocs, mpart;
DROP TYPE mrow;
DROP SEQUENCE mseq;

-- Messages that say what to do (1.10).  An operator class of the wrong
-- width names the classes for the column's type (PostgreSQL's own 42804
-- names neither); the right class, the default one, a domain over the
-- type, an expression and someone else's class pass as before.
\set VERBOSITY default
CREATE TABLE mw (id int PRIMARY KEY, f64 simhash, f128 simhash128, f256 simhash256, body text);
CREATE DOMAIN mw_fp AS simhash256;
ALTER TABLE mw ADD COLUMN fdom mw_fp;
CREATE INDEX ON mw USING gin (f256 simhash_gin_ops);
CREATE INDEX ON mw USING gist (f64 simhash256_gist_ops);
CREATE INDEX ON mw USING gin (f128 simhash256_gin_word_ops);
CREATE INDEX ON mw USING gin (body simhash256_gin_ops);
CREATE INDEX ON mw USING gin (f256 simhash256_gin_ops, f64 simhash128_gin_ops);
CREATE INDEX mw_ok1 ON mw USING gin (f256 simhash256_gin_word_ops);
CREATE INDEX mw_ok2 ON mw USING gist (f128);
CREATE INDEX mw_ok3 ON mw USING gist (fdom simhash256_gist_ops);
CREATE INDEX mw_ok4 ON mw USING gin ((to_simhash(body)) simhash_gin_ops);
CREATE INDEX mw_ok5 ON mw USING btree (body text_pattern_ops);
CREATE INDEX ON mw_missing USING gin (f256 simhash_gin_ops);
SELECT count(*) AS indexes FROM pg_index WHERE indrelid = 'mw'::regclass;

-- A near-duplicate trigger whose radius matches unrelated rows at its
-- column's width warns (k = 26 is a 256-bit radius: at 64 bits, 8 % of
-- random pairs are within it); radii of the width's own scale do not.
CREATE TRIGGER mw_64_26 BEFORE INSERT ON mw FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('f64', '26');
CREATE TRIGGER mw_128_40 BEFORE INSERT ON mw FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('f128', '40', 'skip');
CREATE TRIGGER mw_64_6 BEFORE INSERT ON mw FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('f64', '6');
CREATE TRIGGER mw_256_48 BEFORE INSERT ON mw FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('f256', '48');
-- arguments the trigger itself refuses are left to it (it names them
-- when it first fires)
CREATE TRIGGER mw_bad BEFORE INSERT ON mw FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('body', 'x');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'mw'::regclass ORDER BY tgname;

-- A batch radius beyond the 64-bit range says what it is at that width
SELECT pg_temp.err('SELECT count(*) FROM simhash_pairs(''SELECT id, f64 FROM mw'', 26)');
SELECT count(*) FROM simhash_pairs('SELECT id, f64 FROM mw', 26);
SELECT count(*) FROM simhash_distributed_pairs('mw', 'id', 'f64', 40);
DROP TABLE mw;
DROP DOMAIN mw_fp;
