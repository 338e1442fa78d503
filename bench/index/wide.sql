-- bench/index/wide.sql: what radius and nearest-neighbour queries cost on a
-- simhash256 column with the default GIN and GiST classes (1.5), against a
-- sequential scan.  Random fingerprints (to_simhash256 of an md5 text, one
-- feature each), :rows rows; the queries are :queries fingerprints of rows
-- of the table.  Prints the index sizes and build times, then per method
-- the median executor time (EXPLAIN ANALYZE, TIMING OFF) over the queries
-- and the median number of rows the index passed to the heap recheck.
-- Run in a scratch database:
--   psql -X -f bench/index/wide.sql                 (1,000,000 rows)
--   psql -X -v rows=100000 -f bench/index/wide.sql
\if :{?rows}
\else
\set rows 1000000
\endif
\set queries 20
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;
SET max_parallel_workers_per_gather = 0;
DROP TABLE IF EXISTS wide_bench;
CREATE TABLE wide_bench (id int, fp simhash256);
INSERT INTO wide_bench SELECT g, to_simhash256(md5(g::text)) FROM generate_series(1, :rows) g;
SHOW maintenance_work_mem;
\timing on
CREATE INDEX wide_bench_gin ON wide_bench USING gin (fp);
CREATE INDEX wide_bench_gist ON wide_bench USING gist (fp);
\timing off
VACUUM ANALYZE wide_bench;
SELECT :rows AS rows, pg_size_pretty(pg_relation_size('wide_bench')) AS heap,
       pg_size_pretty(pg_relation_size('wide_bench_gin')) AS gin,
       pg_size_pretty(pg_relation_size('wide_bench_gist')) AS gist;

-- run(q, settings): executor ms and the rows of the plan's lowest node
-- (for a bitmap scan: the candidates GIN passes to the heap recheck)
CREATE FUNCTION pg_temp.run(q text, settings text, OUT ms float8, OUT candidates float8)
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
	node json;
BEGIN
	EXECUTE settings;
	EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || q INTO plan;
	RESET ALL;
	SET jit = off; SET max_parallel_workers_per_gather = 0;
	ms := (plan -> 0 ->> 'Execution Time')::float8;
	node := plan -> 0 -> 'Plan';
	WHILE node -> 'Plans' IS NOT NULL LOOP
		node := node -> 'Plans' -> 0;
	END LOOP;
	candidates := (node ->> 'Actual Rows')::float8;
END $$;

CREATE TEMP TABLE wide_q AS
SELECT fp AS q FROM wide_bench WHERE id % (:rows / :queries) = 7 LIMIT :queries;
CREATE TEMP TABLE wide_m AS
SELECT m.method, r.ms, r.candidates
FROM wide_q,
  LATERAL (VALUES
	('GIN k = 16', format('SELECT id FROM wide_bench WHERE fp <-> %L <= 16', q), 'SET enable_seqscan = off'),
	('GIN k = 24', format('SELECT id FROM wide_bench WHERE fp <-> %L <= 24', q), 'SET enable_seqscan = off'),
	('GIN k = 32', format('SELECT id FROM wide_bench WHERE fp <-> %L <= 32', q), 'SET enable_seqscan = off'),
	('sequential scan, k = 24', format('SELECT id FROM wide_bench WHERE fp <-> %L <= 24', q),
	 'SET enable_indexscan = off; SET enable_bitmapscan = off'),
	('GiST 10 nearest', format('SELECT id FROM wide_bench ORDER BY fp <-> %L LIMIT 10', q), 'SET enable_seqscan = off'),
	('sequential scan, 10 nearest', format('SELECT id FROM wide_bench ORDER BY fp <-> %L LIMIT 10', q),
	 'SET enable_indexscan = off; SET enable_bitmapscan = off')
  ) m (method, q, settings),
  LATERAL pg_temp.run(m.q, m.settings) r;
SELECT method, count(*) AS queries,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS median_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY candidates)::numeric) AS median_candidates
FROM wide_m GROUP BY method ORDER BY min(ctid);
DROP TABLE wide_bench;
