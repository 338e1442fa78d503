-- :n rows of r256_1m through simhash_pairs at the default
-- maintenance_work_mem; the peak (VmHWM) above that of the same query run
-- first, so that the shared buffers it reads are not counted
SET jit = off;
RESET maintenance_work_mem;
SHOW maintenance_work_mem;
SELECT count(*) AS prescan FROM (SELECT id, fp FROM r256_1m ORDER BY id LIMIT :n) s;
SELECT proc_kb('VmHWM') AS hwm0 \gset
SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM r256_1m ORDER BY id LIMIT ' || :n, 8);
SELECT :n AS n, proc_kb('VmHWM') - :hwm0 AS peak_kb, round((proc_kb('VmHWM') - :hwm0) * 1024.0 / :n, 1) AS bytes_per_row;
