-- bench/batch/wide_init.sql: tables and helpers of the wide run of
-- bench/batch/run (--width 128 or 256), run once before its steps.
\set ON_ERROR_STOP 1
-- one row per timed call, each in a fresh backend: the function, the
-- random rows of the step (--scale) and all its rows, the result rows
-- (pairs, or ids for simhash_clusters), peak memory in kB (VmHWM before
-- and after) and CPU seconds of the backend
CREATE TABLE w_timing (fn text, random bigint, rows bigint, k int, run int, secs float8, n bigint,
                       hwm0_kb bigint, hwm1_kb bigint, cpu_s float8);
-- the exactness check of each step and k against brute force on a sample
CREATE TABLE w_exact (rows bigint, k int, sample int, brute bigint, found bigint, mismatches bigint,
                      cluster_violations bigint);
-- the text-derived set: one row per timed call
CREATE TABLE w_text_timing (fn text, width int, k int, run int, secs float8, n bigint);
CREATE TABLE w_text_info (what text PRIMARY KEY, value text NOT NULL);
CREATE TABLE w_checks (name text, ok boolean, detail text);
-- proc_cpu_s(pid) and proc_status_kb(pid, field)
\ir proc.sql
-- words 64-bit words of seeded hashes of i, word 0 first, each big-endian:
-- the bytes of a uniform random fingerprint (cast to simhash128 or
-- simhash256), reproducible from run to run.  An SQL function the planner
-- inlines, so it costs what the expression costs.
CREATE FUNCTION w_bytes(i bigint, seed bigint, words int) RETURNS bytea
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
	SELECT int8send(hashint8extended(i, seed)) || int8send(hashint8extended(i, seed + 1))
	       || CASE WHEN words = 4 THEN int8send(hashint8extended(i, seed + 2)) || int8send(hashint8extended(i, seed + 3))
	               ELSE '\x'::bytea END
$$;
