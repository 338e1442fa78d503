-- bench/bench.sql: fingerprint throughput, run by bench/run in a throwaway
-- cluster.  Reads table docs (body text, tsv tsvector); psql variable
-- :rounds.  Every function makes full passes over all rows, interleaved
-- round-robin so machine noise hits all of them alike.
\pset footer off

-- One backend per pass, no parallel workers and no JIT: per-core
-- throughput, comparable between runs and machines.
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET bench.rounds = :rounds;

-- The functions timed: the expression, labelled by itself and its note
CREATE TEMP TABLE fn (ord integer, expr text, note text,
                      label text GENERATED ALWAYS AS (expr || coalesce('  [' || note || ']', '')) STORED);
INSERT INTO fn (ord, expr, note) VALUES
	(1, 'md5(body)', 'baseline'),
	(2, 'to_simhash(body)', NULL),
	(3, 'simhash_ngram(body)', NULL),
	(4, 'simhash_shingle(body)', NULL),
	(5, 'to_simhash(to_tsvector(''english'', body))', NULL),
	(6, 'to_simhash(tsv)', 'tsvector precomputed');

CREATE TEMP TABLE times (ord integer, round integer, ms float8, n bigint);

-- count() of a STRICT function's result: the function must run on every
-- row, and a wrong count (a NULL result) shows up as an error below.
-- Round 0 warms caches and is not kept; the order rotates each round, so
-- no function always runs first.
DO $$
DECLARE
	f record;
	t0 timestamptz;
	n bigint;
BEGIN
	FOR f IN SELECT r, fn.* FROM generate_series(0, current_setting('bench.rounds')::integer) r, fn
	          ORDER BY r, (ord + r) % (SELECT count(*) FROM fn) LOOP
		t0 := clock_timestamp();
		EXECUTE format('SELECT count(%s) FROM docs', f.expr) INTO n;
		CONTINUE WHEN f.r = 0;
		INSERT INTO times VALUES (f.ord, f.r, extract(epoch FROM clock_timestamp() - t0) * 1000, n);
	END LOOP;
END
$$;

DO $$
BEGIN
	IF EXISTS (SELECT FROM times WHERE n <> (SELECT count(*) FROM docs)) THEN
		RAISE EXCEPTION 'a function returned NULL for some rows: %',
			(SELECT string_agg(DISTINCT label, ', ') FROM times JOIN fn USING (ord)
			  WHERE n <> (SELECT count(*) FROM docs));
	END IF;
END
$$;

CREATE TEMP TABLE result AS
SELECT fn.ord, fn.label,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY ms) AS p25,
       percentile_cont(0.75) WITHIN GROUP (ORDER BY ms) AS p75
  FROM times JOIN fn USING (ord)
 GROUP BY fn.ord, fn.label;

\echo
\echo 'Full passes over all rows,' :rounds 'timed rounds each (median and quartiles of the rounds);'
\echo 'MB/s counts body bytes, also for the precomputed tsvector.'
SELECT r.label AS "function",
       round(r.median::numeric, 1) AS "median ms",
       round(r.p25::numeric, 1) AS "p25 ms",
       round(r.p75::numeric, 1) AS "p75 ms",
       round(c.n * 1000 / r.median) AS "rows/s",
       round((c.bytes / 1048576.0 * 1000 / r.median)::numeric, 1) AS "MB/s",
       round((r.median / b.median)::numeric, 2) || 'x' AS "vs md5"
  FROM result r
 CROSS JOIN (SELECT median FROM result WHERE ord = 1) b
 CROSS JOIN (SELECT count(*) AS n, sum(octet_length(body)) AS bytes FROM docs) c
 ORDER BY r.ord;

\pset format unaligned
\pset tuples_only on
SELECT format('goal: to_simhash(text) <= 3.0x md5(text): %sx, %s',
              round((s.median / b.median)::numeric, 2),
              CASE WHEN s.median <= 3.0 * b.median THEN 'met' ELSE 'NOT met' END)
  FROM result s, result b
 WHERE s.ord = 2 AND b.ord = 1;
