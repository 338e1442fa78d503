-- bench/index/mih.sql: the mih index against a sequential scan and the
-- default GIN class (simhash256_gin_ops), in one run on the same rows.
--
--   psql -X -v rows=1000000 -f bench/index/mih.sql
--
-- Rows: `rows` random 256-bit fingerprints (md5 digits) and 2 % of them
-- again with three hex digits changed (at most 12 bits).  Queries: 10 near
-- (a changed copy) and 10 far (fresh random values).  Each query runs once
-- per method and radius after one warm-up query; the table prints the
-- median milliseconds and the ratio of the sequential scan's median to the
-- method's (the seq scan runs at k = 8 and 48 only: its cost does not
-- depend on k).  simhash_nearest(NULL::mih_bench, 'fp', q, 10) is timed
-- with each method's index (none for "seq"), planned freely.  Every answer is compared with the seq scan's count.
\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 1000000
\endif
SET jit = off;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS mih_bench;
CREATE TABLE mih_bench (id int, fp simhash256);
INSERT INTO mih_bench SELECT i, (md5(i::text) || md5((i + 1000000000)::text))::simhash256
FROM generate_series(1, :rows) i;
INSERT INTO mih_bench SELECT 2000000000 + id, (overlay(overlay(overlay(fp::text placing '0' from 3 + (id % 50))
	placing 'a' from 20 + (id % 40)) placing '7' from 40 + (id % 20)))::simhash256
FROM mih_bench WHERE id <= :rows / 50;
VACUUM ANALYZE mih_bench;

CREATE TEMP TABLE build (method text, ms double precision, bytes bigint);
CREATE FUNCTION pg_temp.build(method text, ddl text, idx text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE ddl;
	INSERT INTO build VALUES (method, extract(epoch FROM clock_timestamp() - t0) * 1000, pg_relation_size(idx));
END $$;
CREATE FUNCTION pg_temp.tq(sql text, q simhash256, k int, OUT ms double precision, OUT n bigint) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE sql INTO n USING q, k;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;

CREATE TEMP TABLE qs AS SELECT row_number() OVER () AS qid, * FROM (
	SELECT 'near' AS kind, fp FROM mih_bench WHERE id BETWEEN 2000000001 AND 2000000010
	UNION ALL SELECT 'far', (md5((i * 7)::text) || md5((i + 5)::text))::simhash256 FROM generate_series(1, 10) i) q;
CREATE TEMP TABLE tm (method text, k int, kind text, qid bigint, ms double precision, n bigint);

-- one method's timings: radius k (count within k), 10-NN by ORDER BY
-- (k = -1) and by simhash_nearest (k = -2: the method's index serves it
-- as simhash_nearest chooses, the seq scan method has no index)
CREATE FUNCTION pg_temp.run(method text, knn boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record; k int; x record;
	radius text := 'SELECT count(*) FROM mih_bench WHERE fp <-> $1 <= $2';
	nn text := 'SELECT sum(d) FROM (SELECT fp <-> $1 AS d FROM mih_bench WHERE $2 = -1 ORDER BY fp <-> $1 LIMIT 10) s';
	nearest text := 'SELECT sum(fp <-> $1) FROM simhash_nearest(NULL::mih_bench, ''fp'', $1, 10) WHERE $2 = -2';
BEGIN
	IF method = 'seq' THEN
		SET LOCAL enable_seqscan = on; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = off;
	ELSE
		SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = on;
	END IF;
	PERFORM pg_temp.tq(radius, (SELECT fp FROM qs LIMIT 1), 8);
	FOREACH k IN ARRAY CASE WHEN method = 'seq' THEN ARRAY[8, 48] ELSE ARRAY[8, 16, 24, 32, 40, 48] END LOOP
		FOR r IN SELECT * FROM qs LOOP
			x := pg_temp.tq(radius, r.fp, k);
			INSERT INTO tm VALUES (method, k, r.kind, r.qid, x.ms, x.n);
		END LOOP;
	END LOOP;
	IF knn THEN
		FOR r IN SELECT * FROM qs LOOP
			x := pg_temp.tq(nn, r.fp, -1);
			INSERT INTO tm VALUES (method, -1, r.kind, r.qid, x.ms, x.n);
		END LOOP;
	END IF;
	RESET enable_seqscan; RESET enable_bitmapscan; RESET enable_indexscan;
	FOR r IN SELECT * FROM qs LOOP
		x := pg_temp.tq(nearest, r.fp, -2);
		INSERT INTO tm VALUES (method, -2, r.kind, r.qid, x.ms, x.n);
	END LOOP;
END $$;

SELECT FROM pg_temp.run('seq', true);
SELECT FROM pg_temp.build('mih', 'CREATE INDEX mih_bench_mih ON mih_bench USING mih (fp)', 'mih_bench_mih');
ANALYZE mih_bench;
SELECT FROM pg_temp.run('mih', true);
DROP INDEX mih_bench_mih;
SELECT FROM pg_temp.build('gin (simhash256_gin_ops)', 'CREATE INDEX mih_bench_gin ON mih_bench USING gin (fp)', 'mih_bench_gin');
ANALYZE mih_bench;
SELECT FROM pg_temp.run('gin (simhash256_gin_ops)', false);
DROP INDEX mih_bench_gin;

\echo Build: time and size
SELECT method, round((ms / 1000)::numeric, 1) AS seconds, round(bytes::numeric / (SELECT count(*) FROM mih_bench), 1) AS bytes_per_row
FROM build ORDER BY method;

\echo Answers that differ from the sequential scan (radius: the count; 10-NN: the sum of the distances)
SELECT t.method, count(*) AS compared, count(*) FILTER (WHERE t.n IS DISTINCT FROM s.n) AS differing
FROM tm t JOIN tm s ON s.method = 'seq' AND s.k = t.k AND s.qid = t.qid
WHERE t.method <> 'seq' GROUP BY 1 ORDER BY 1;

\echo Median milliseconds and the ratio to the sequential scan (k = -1: ORDER BY fp <-> q LIMIT 10; k = -2: simhash_nearest(..., 10), against the ORDER BY of the seq scan)
WITH med AS (
	SELECT method, k, kind, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms FROM tm GROUP BY 1, 2, 3),
seq AS (SELECT kind, max(ms) FILTER (WHERE k = -1) AS knn, avg(ms) FILTER (WHERE k >= 0) AS radius
	FROM med WHERE method = 'seq' GROUP BY kind)
SELECT m.kind, m.k, m.method, round(m.ms::numeric, 2) AS p50_ms,
	round((CASE WHEN m.k < 0 THEN s.knn ELSE s.radius END / m.ms)::numeric, 1) AS ratio
FROM med m JOIN seq s USING (kind)
WHERE m.method <> 'seq' OR m.k = -2
ORDER BY m.kind DESC, m.k, m.method;
DROP TABLE mih_bench;
