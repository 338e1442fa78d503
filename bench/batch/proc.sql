-- bench/batch/proc.sql: the backend's own figures from /proc, read with
-- pg_read_file (the benchmark runs as a superuser of its throwaway
-- cluster); included by scale_init.sql, memory.sql and wide_init.sql.
-- A field of /proc/<pid>/status in kB (VmHWM: the peak RSS of the process
-- since it started; RssShmem: the shared memory in it)
CREATE OR REPLACE FUNCTION proc_status_kb(pid int, field text) RETURNS bigint LANGUAGE sql AS $$
	SELECT substring(pg_read_file('/proc/' || pid || '/status') FROM '(?n)^' || field || ':\s*(\d+) kB')::bigint
$$;
-- CPU seconds used so far by backend pid (user + system, clock ticks of 1/100 s)
CREATE OR REPLACE FUNCTION proc_cpu_s(pid int) RETURNS float8 LANGUAGE sql AS $$
	-- after "pid (comm) ": fields 3.. of the line; utime and stime are 14 and 15
	SELECT (split_part(s, ' ', 12)::float8 + split_part(s, ' ', 13)::float8) / 100
	  FROM (SELECT split_part(pg_read_file('/proc/' || pid || '/stat'), ') ', 2) AS s) x
$$;
