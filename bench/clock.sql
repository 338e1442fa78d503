-- bench/clock.sql: the stage clock of the benchmarks' SQL scripts, included
-- (\ir) once by bench/index/bench.sql and bench/batch/bench.sql; starts the
-- clock.  Each stage ends with
--     SELECT pg_temp.lap() AS secs \gset
--     \echo '   took' :secs 's'
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
