-- bench/batch/scale_init.sql: tables of the scaling benchmark (run by
-- bench/batch/run once, before the steps).
\set ON_ERROR_STOP 1
-- one row per timed call: peak memory in kB (VmHWM before and after)
-- and CPU seconds of the backend (utime + stime of /proc/<pid>/stat)
CREATE TABLE scale_timing (dist text, rows bigint, k int, run int, secs float8, pairs bigint,
                           hwm0_kb bigint, hwm1_kb bigint, cpu_s float8);
-- the full self-join: secs NULL when not run (estimate over the cap)
CREATE TABLE scale_join (dist text, rows bigint, k int, secs float8, pairs bigint, estimate_s float8);
CREATE TABLE scale_checks (name text, ok boolean, detail text);
-- CPU seconds used so far by backend pid (user + system, clock ticks of 1/100 s)
CREATE OR REPLACE FUNCTION proc_cpu_s(pid int) RETURNS float8 LANGUAGE sql AS $$
	-- after "pid (comm) ": fields 3.. of the line; utime and stime are 14 and 15
	SELECT (split_part(s, ' ', 12)::float8 + split_part(s, ' ', 13)::float8) / 100
	  FROM (SELECT split_part(pg_read_file('/proc/' || pid || '/stat'), ') ', 2) AS s) x
$$;
-- A field of /proc/<pid>/status in kB
CREATE OR REPLACE FUNCTION proc_status_kb(pid int, field text) RETURNS bigint LANGUAGE sql AS $$
	SELECT substring(pg_read_file('/proc/' || pid || '/status') FROM '(?n)^' || field || ':\s*(\d+) kB')::bigint
$$;
