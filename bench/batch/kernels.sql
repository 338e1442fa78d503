-- The pair loops of the batch search (simhash.batch_kernel) against each
-- other: simhash_pairs on the same rows with each loop the CPU runs, in
-- :rounds rounds (each round every loop once, in turn, so that a change in
-- the machine's load falls on all of them); the median time of each, its
-- ratio to popcnt's in the same run, and whether all found the same pairs.
-- The rows as bench/batch/spill.sql makes them (:rows random 256-bit
-- fingerprints plus 2% near copies), in table kernels_bench; with -v
-- table=NAME an existing table of (id, fp) instead (spill.sql's, say).
-- -v kernels='{avx2,avx512}' times only those loops.
--
--   psql -v rows=1000000 -v k=40 -v rounds=3 -f bench/batch/kernels.sql
--
-- Leave maintenance_work_mem as the session has it: set it high enough to
-- time the search in memory, or low to time it spilled.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS simhash;
\if :{?kernels}
\else
\set kernels '{portable,popcnt,avx2,avx512}'
\endif
\if :{?table}
\set tbl :table
\else
\set tbl kernels_bench
\ir near_copies.sql
\endif
SELECT version(), current_setting('maintenance_work_mem') AS maintenance_work_mem,
       (SELECT count(*) FROM :"tbl") AS rows, :k AS k;
CREATE TEMP TABLE kernel_times (round int, kernel text, seconds float8, pairs bigint, checksum numeric);
CREATE FUNCTION pg_temp.time_loops(tbl text, k int, rounds int, kernels text[]) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
	r int;
	kern text;
	t0 timestamptz;
	n bigint;
	sum numeric;
BEGIN
	FOR r IN 1..rounds LOOP
		FOREACH kern IN ARRAY kernels LOOP
			BEGIN
				PERFORM set_config('simhash.batch_kernel', kern, true);
			EXCEPTION WHEN invalid_parameter_value THEN
				CONTINUE;		-- this CPU lacks it
			END;
			t0 := clock_timestamp();
			SELECT count(*), sum(id1 * 7 + id2 * 3 + distance) INTO n, sum
			FROM simhash_pairs(format('SELECT id, fp FROM %I', tbl), k);
			INSERT INTO kernel_times VALUES (r, kern, extract(epoch FROM clock_timestamp() - t0), n, sum);
		END LOOP;
	END LOOP;
	PERFORM set_config('simhash.batch_kernel', 'auto', true);
END $f$;
SELECT pg_temp.time_loops(:'tbl', :k, :rounds, :'kernels');
SELECT kernel, count(*) AS rounds,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds)::numeric, 2) AS median_s,
       round(min(seconds)::numeric, 2) AS min_s, round(max(seconds)::numeric, 2) AS max_s,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) /
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM kernel_times WHERE kernel = 'popcnt'))::numeric, 2) AS ratio_to_popcnt,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) /
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) FROM kernel_times WHERE kernel = 'avx2'))::numeric, 2) AS ratio_to_avx2,
       min(pairs) AS pairs
FROM kernel_times GROUP BY kernel ORDER BY median_s;
SELECT count(DISTINCT (pairs, checksum)) = 1 AS all_loops_same_pairs FROM kernel_times;
SELECT CASE current_setting('simhash.batch_kernel') WHEN 'auto' THEN 'auto' END AS setting_after;
