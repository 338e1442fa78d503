-- Security and the truth of the labels.
--  * A role with no special rights can use every feature on its own data,
--    but cannot read others' tables through the batch functions, change
--    the extension, its functions or operator classes, or reach the
--    internal support functions.
--  * Objects a user puts first on search_path do not change what the
--    extension's planner rewrites call.
--  * PARALLEL SAFE functions give the same answers in parallel workers,
--    and IMMUTABLE ones the same answers under other session settings.
CREATE EXTENSION IF NOT EXISTS simhash;
\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql

CREATE ROLE simhash_plain NOSUPERUSER NOCREATEDB NOCREATEROLE;
CREATE SCHEMA plain_data AUTHORIZATION simhash_plain;
CREATE TABLE secret (id bigint, fp simhash);
INSERT INTO secret VALUES (1, 'ffffffffffffffff'), (2, 'fffffffffffffffe');

SET ROLE simhash_plain;
SET search_path = plain_data, public;
SET jit = off;
-- everything works on the role's own table
CREATE TABLE docs (id bigint PRIMARY KEY, body text, fp simhash);
INSERT INTO docs
SELECT i, b, to_simhash(b) FROM (
	SELECT i, array_to_string(ARRAY(SELECT md5(((i / 2) * 50 + j)::text) FROM generate_series(1, 25) j), ' ')
	          || CASE WHEN i % 2 = 1 THEN ' tail' ELSE '' END AS b
	FROM generate_series(1, 400) i) s;
CREATE INDEX docs_gin ON docs USING gin (fp);
CREATE INDEX docs_gist ON docs USING gist (fp);
SET enable_seqscan = off;
SELECT count(*) AS radius_hits FROM docs d, docs q WHERE q.id <= 40 AND d.fp <-> q.fp <= 3;
SELECT (SELECT count(*) FROM docs d, docs q WHERE q.id <= 40 AND d.fp <-> q.fp <= 3)
     = (SELECT count(*) FROM docs d, docs q WHERE q.id <= 40 AND hamming_distance_int(d.fp, q.fp) <= 3) AS same_as_seqscan;
SELECT fp <-> 'ffffffffffffffff' AS d FROM docs ORDER BY fp <-> 'ffffffffffffffff' LIMIT 3;
SELECT count(*) AS pairs FROM simhash_pairs('SELECT id, fp FROM plain_data.docs', 3);
SELECT count(DISTINCT cluster_id) AS clusters FROM simhash_clusters('SELECT id, fp FROM plain_data.docs', 3);
REINDEX INDEX docs_gin;
VACUUM docs;
RESET enable_seqscan;

-- but nothing beyond its rights
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM public.secret', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_clusters('SELECT id, fp FROM public.secret', 3)$q$);
SELECT pg_temp.err($q$ALTER EXTENSION simhash UPDATE$q$);
SELECT pg_temp.err($q$DROP EXTENSION simhash$q$);
SELECT pg_temp.err($q$CREATE OR REPLACE FUNCTION public.hamming_distance(simhash, simhash) RETURNS simhash_distance LANGUAGE sql AS 'SELECT 0'$q$);
SELECT pg_temp.err($q$ALTER FUNCTION public.to_simhash(text) VOLATILE$q$);
SELECT pg_temp.err($q$ALTER OPERATOR FAMILY public.simhash_gin_ops USING gin DROP FUNCTION 4 (simhash, simhash)$q$);
SELECT pg_temp.err($q$CREATE OPERATOR CLASS plain_data.my_ops FOR TYPE simhash USING gin AS OPERATOR 1 <@ (simhash, simhash_ball), FUNCTION 1 simhash_cmp(simhash, simhash)$q$);
SELECT pg_temp.err($q$UPDATE pg_opclass SET opcdefault = false WHERE opcname = 'simhash_gin_ops'$q$);
SELECT pg_temp.err($q$ALTER TYPE public.simhash SET (RECEIVE = NONE)$q$);
-- support functions take "internal", which SQL cannot produce
SELECT pg_temp.err($q$SELECT simhash_agg_finalfn(NULL::internal)$q$);
SELECT pg_temp.err($q$SELECT simhash_gin_extract_value('0000000000000000', NULL, NULL)$q$);

-- a user's own look-alikes first on search_path: the planner's rewrite of
-- fp <-> q <= k still calls the extension's own simhash_within and <@
CREATE FUNCTION plain_data.simhash_within(simhash, simhash, integer) RETURNS boolean
	LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE FUNCTION plain_data.fake_in_ball(simhash, simhash_ball) RETURNS boolean
	LANGUAGE sql IMMUTABLE AS 'SELECT true';
CREATE OPERATOR plain_data.<@ (LEFTARG = simhash, RIGHTARG = simhash_ball, FUNCTION = plain_data.fake_in_ball);
CREATE FUNCTION plain_data.hamming_distance_int(simhash, simhash) RETURNS integer
	LANGUAGE sql IMMUTABLE AS 'SELECT 0';
CREATE OPERATOR plain_data.<#> (LEFTARG = simhash, RIGHTARG = simhash, FUNCTION = plain_data.hamming_distance_int);
SET enable_seqscan = off;
SELECT count(*) AS radius_hits_with_lookalikes FROM docs d, docs q WHERE q.id <= 40 AND d.fp <-> q.fp <= 3;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'ffffffffffffffff' <= 3;
SELECT fp <-> 'ffffffffffffffff' AS d FROM docs ORDER BY fp <-> 'ffffffffffffffff' LIMIT 3;
RESET enable_seqscan;
DROP FUNCTION plain_data.simhash_within(simhash, simhash, integer);
DROP OPERATOR plain_data.<@ (simhash, simhash_ball);
DROP OPERATOR plain_data.<#> (simhash, simhash);
DROP FUNCTION plain_data.fake_in_ball(simhash, simhash_ball);
DROP FUNCTION plain_data.hamming_distance_int(simhash, simhash);

-- simhash_nearest_radius qualifies the SQL it runs: a user's <= for a
-- distance and integer, and a count(*) of their own, first on search_path,
-- change neither what the user's own query means nor its answer
SELECT simhash_nearest_radius('docs', 'fp', 'ffffffffffffffff', 18) AS radius_before;
CREATE FUNCTION plain_data.never(simhash_distance, integer) RETURNS boolean
	LANGUAGE sql IMMUTABLE AS 'SELECT false';
CREATE OPERATOR plain_data.<= (LEFTARG = simhash_distance, RIGHTARG = integer, FUNCTION = plain_data.never);
CREATE AGGREGATE plain_data.count(*) (SFUNC = int8inc, STYPE = int8, INITCOND = '1000000');
SELECT count(*) AS lookalikes_in_effect FROM docs WHERE fp <-> 'ffffffffffffffff' <= 64;
SELECT simhash_nearest_radius('docs', 'fp', 'ffffffffffffffff', 18) AS radius_with_lookalikes;
DROP OPERATOR plain_data.<= (simhash_distance, integer);
DROP FUNCTION plain_data.never(simhash_distance, integer);
DROP AGGREGATE plain_data.count(*);
RESET ROLE;
RESET search_path;

-- PARALLEL SAFE: the same answers from parallel workers as from the leader
CREATE TABLE par AS
SELECT i, 'doc ' || i || ' ' || md5(i::text) || ' 近似重复 ' || (i % 7) AS body,
       ARRAY[md5(i::text), (i % 13)::text] AS feats, ARRAY[1.5, i % 5]::float8[] AS weights,
       ARRAY[i % 17 + 1, i % 5 + 20] AS idx, ARRAY[(i % 9)::float8, -1.25, i::float8 / 7] AS vec
FROM generate_series(1, 5000) i;
ANALYZE par;
CREATE TEMP TABLE par_results (mode text, answer text);
-- the battery: every function on every row, computed in the subquery (OFFSET 0
-- keeps it from being flattened into the aggregate, so under a parallel plan
-- the workers compute it), then hashed in row order
CREATE TEMP VIEW battery AS
SELECT md5(string_agg(line, '|' ORDER BY i)) AS answer
FROM (SELECT i, concat_ws(' ',
		to_simhash(body), simhash_ngram(body), simhash_ngram(body, 2), simhash_shingle(body),
		simhash_shingle(body, 1), to_simhash(feats), to_simhash(feats, weights),
		to_simhash(to_tsvector('simple', body)), to_simhash(vec), to_simhash(idx, vec[1:2]),
		to_simhash(body) <-> simhash_ngram(body), hamming_distance(to_simhash(body), 'ffffffffffffffff'),
		simhash_segment(to_simhash(body), i % 4), simhash_within(to_simhash(body), simhash_ngram(body), 30),
		to_simhash(body) <@ simhash_ball(simhash_ngram(body), 32),
		to_simhash(body)::bigint, encode(to_simhash(body)::bytea, 'hex'), to_simhash(body)::bit(64)::simhash,
		to_simhash(body) < simhash_ngram(body)) AS line
	  FROM par OFFSET 0) per_row;
-- workers_launched(q): how many parallel workers running q started
CREATE FUNCTION pg_temp.workers_launched(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON) ' || q INTO plan;
	RETURN (SELECT coalesce(sum((m[1])::bigint), 0)
			FROM regexp_matches(plan::text, '"Workers Launched": (\d+)', 'g') m);
END $$;
-- debug_parallel_query (16 on) was force_parallel_mode (15): set whichever
-- this server has, so every major runs the battery in workers
CREATE FUNCTION pg_temp.force_parallel(onoff text) RETURNS text LANGUAGE sql AS $$
	SELECT set_config(name, onoff, false) FROM pg_settings
	WHERE name IN ('debug_parallel_query', 'force_parallel_mode')
$$;
INSERT INTO par_results SELECT 'serial', answer FROM battery;
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT pg_temp.force_parallel('on') AS forced;
SET parallel_leader_participation = off;
-- the answer is read into a psql variable: INSERT ... SELECT never runs in
-- parallel, a plain SELECT does
SELECT answer AS parallel_answer FROM battery \gset
INSERT INTO par_results VALUES ('parallel', :'parallel_answer');
-- the functions are evaluated in the workers, and workers did run them
EXPLAIN (VERBOSE, COSTS OFF) SELECT to_simhash(body), simhash_ngram(body), to_simhash(feats, weights) FROM par;
SELECT pg_temp.workers_launched('SELECT answer FROM battery') > 0 AS battery_ran_in_workers;
-- simhash_agg with partial aggregation: combine, serialize, deserialize
RESET parallel_tuple_cost;
EXPLAIN (COSTS OFF) SELECT simhash_agg(body), simhash_agg(body, i::float8) FROM par;
SELECT simhash_agg(body)::text || simhash_agg(body, i::float8)::text AS agg_answer FROM par \gset
INSERT INTO par_results VALUES ('agg parallel', :'agg_answer');
SELECT pg_temp.workers_launched('SELECT simhash_agg(body), simhash_agg(body, i::float8) FROM par') > 0 AS agg_ran_in_workers;
-- a parallel-restricted function still runs (in the leader)
SELECT count(*) AS pairs_under_parallel FROM simhash_pairs('SELECT i, to_simhash(body) FROM par', 3);
SELECT pg_temp.force_parallel('off') AS forced;
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
INSERT INTO par_results SELECT 'agg serial', simhash_agg(body)::text || simhash_agg(body, i::float8)::text FROM par;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;

-- IMMUTABLE: the same answers under other session settings
SET default_text_search_config = 'pg_catalog.english';
SET extra_float_digits = -15;
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'Asia/Shanghai';
SET lc_monetary = 'C';
SET bytea_output = 'escape';
SET standard_conforming_strings = off;
SET enable_hashagg = off;
INSERT INTO par_results SELECT 'other settings', answer FROM battery;
RESET ALL;
SELECT count(DISTINCT answer) FILTER (WHERE mode IN ('serial', 'parallel', 'other settings')) AS battery_answers,
       count(DISTINCT answer) FILTER (WHERE mode LIKE 'agg%') AS agg_answers,
       count(*) AS runs
FROM par_results;

DROP VIEW battery;
DROP TABLE par, secret;
DROP SCHEMA plain_data CASCADE;
DROP ROLE simhash_plain;
