-- :n distinct ids (a chain), :mwm maintenance_work_mem: the peak memory of
-- simhash_pair_clusters (VmHWM of this fresh backend above its start)
SET jit = off;
SET maintenance_work_mem = :'mwm';
SELECT proc_kb('VmHWM') AS hwm0 \gset
SELECT count(*) AS ids, count(DISTINCT cluster_id) AS clusters FROM simhash_pair_clusters('SELECT g, g + 1 FROM generate_series(1, ' || :n - 1 || ') g');
SELECT :n AS n, :'mwm' AS mwm, proc_kb('VmHWM') - :hwm0 AS peak_kb, round((proc_kb('VmHWM') - :hwm0) * 1024.0 / :n, 1) AS bytes_per_id;
