-- bench/batch/wide_call.sql: one timed call of
-- :fn('SELECT id, fp FROM w_data', :k) in a fresh backend, as
-- scale_call.sql does at 64 bits: peak memory (VmHWM of /proc/<pid>/status
-- before and after; the table is read once first, so that its shared
-- buffers are in the baseline) and CPU time.  Run by bench/batch/run;
-- psql variables :fn :k :run :random (the step's --scale size) :mwm.
-- Appends one row to table w_timing.
\set ON_ERROR_STOP 1
SET maintenance_work_mem = :'mwm';
SELECT count(*) AS nrows FROM w_data \gset
SELECT pg_backend_pid() AS pid \gset
SELECT proc_status_kb(:pid, 'VmHWM') AS hwm0, proc_cpu_s(:pid) AS cpu0, clock_timestamp() AS t0 \gset
SELECT count(*) AS n FROM :fn('SELECT id, fp FROM w_data', :k) \gset
INSERT INTO w_timing VALUES (:'fn', :random, :nrows, :k, :run,
	extract(epoch FROM clock_timestamp() - :'t0'::timestamptz), :n,
	:hwm0, proc_status_kb(:pid, 'VmHWM'), proc_cpu_s(:pid) - :cpu0);
