-- bench/clock.sql: the stage clock of the benchmarks' SQL scripts, included
-- (\ir) once by bench/index/common.sql, bench/batch/bench.sql and
-- bench/batch/wide_text.sql; starts the clock.  Each stage ends with
-- \ir ../took.sql, which prints the stage's wall time.
-- pg_temp.lap(): the wall-clock seconds (to 0.1 s) since the previous call
-- (or since this file was included), and restarts the clock.
CREATE FUNCTION pg_temp.lap() RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
	now float8 := extract(epoch FROM clock_timestamp());
	since float8 := coalesce(nullif(current_setting('bench.lap', true), '')::float8, now);
BEGIN
	PERFORM set_config('bench.lap', now::text, false);
	RETURN round((now - since)::numeric, 1);
END
$$;
SELECT pg_temp.lap() AS secs \gset

-- pg_temp.timed_count(q): the rows of query q, counted, and the wall-clock
-- seconds that took (the timed call of the batch benchmarks)
CREATE FUNCTION pg_temp.timed_count(q text, OUT n bigint, OUT secs float8)
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE 'SELECT count(*) FROM (' || q || ') q' INTO n;
	secs := extract(epoch FROM clock_timestamp() - t0);
END
$$;
