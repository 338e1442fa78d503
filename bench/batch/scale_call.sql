-- bench/batch/scale_call.sql: one timed call of
-- simhash_pairs('SELECT id, fp FROM sc_data', :k) in a fresh backend, with
-- its peak memory (VmHWM of /proc/<pid>/status, before and after; the
-- table is read once first so that its shared buffers are in the
-- baseline) and its CPU time (/proc/<pid>/stat; on a shared machine the
-- wall time also counts waits for a core).  Run by bench/batch/run; psql
-- variables :dist :k :run :mwm.
-- Appends one row to table scale_timing.
\set ON_ERROR_STOP 1
SET maintenance_work_mem = :'mwm';
SELECT count(*) AS nrows FROM sc_data \gset
SELECT pg_backend_pid() AS pid \gset
SELECT proc_status_kb(:pid, 'VmHWM') AS hwm0, proc_cpu_s(:pid) AS cpu0, clock_timestamp() AS t0 \gset
SELECT count(*) AS n FROM simhash_pairs('SELECT id, fp FROM sc_data', :k) \gset
INSERT INTO scale_timing VALUES (:'dist', :nrows, :k, :run,
	extract(epoch FROM clock_timestamp() - :'t0'::timestamptz), :n,
	:hwm0, proc_status_kb(:pid, 'VmHWM'), proc_cpu_s(:pid) - :cpu0);
