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
-- proc_cpu_s(pid) and proc_status_kb(pid, field)
\ir proc.sql
