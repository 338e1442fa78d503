-- :tab, :k: the pairs of simhash_pairs over :tab at :k (count, an
-- order-free checksum) and the backend CPU seconds of the call (/proc, 100
-- ticks a second)
SET jit = off;
SET maintenance_work_mem = '1GB';
CREATE TEMP TABLE t0 AS SELECT split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 14)::bigint + split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 15)::bigint AS ticks;
SELECT count(*) AS pairs, sum(hashint8(id1 * 31 + id2 * 7 + distance)::bigint) AS checksum FROM simhash_pairs('SELECT id, fp FROM ' || :'tab', :k);
SELECT ((split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 14)::bigint + split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 15)::bigint) - ticks) / 100.0 AS cpu_s FROM t0;
