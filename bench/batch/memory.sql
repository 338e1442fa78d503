-- bench/batch/memory.sql: peak memory of the backend running one call of
-- :fn('SELECT id, fp FROM docs', :k), run by bench/batch/run in a fresh
-- backend each time (VmHWM is the peak RSS of the process since it
-- started).  Appends one row to table memory.
\set ON_ERROR_STOP 1
CREATE TABLE IF NOT EXISTS memory (fn text, k int, rows bigint, hwm0_kb bigint, hwm1_kb bigint,
                                   shmem0_kb bigint, shmem1_kb bigint, secs float8);
-- proc_status_kb(pid, field)
\ir proc.sql
-- Read the table once first, so that its shared buffers, which the
-- function's own scan touches again, are in this backend's baseline RSS.
SELECT count(*) AS nrows FROM docs \gset
SELECT pg_backend_pid() AS pid \gset
SELECT proc_status_kb(:pid, 'VmHWM') AS hwm0, proc_status_kb(:pid, 'RssShmem') AS shmem0,
       extract(epoch FROM clock_timestamp()) AS t0 \gset
SELECT count(*) AS n FROM :fn('SELECT id, fp FROM docs', :k) \gset
INSERT INTO memory VALUES (:'fn', :k, :nrows, :hwm0, proc_status_kb(:pid, 'VmHWM'),
                           :shmem0, proc_status_kb(:pid, 'RssShmem'),
                           extract(epoch FROM clock_timestamp()) - :t0);
