-- The backend CPU seconds of simhash_pair_clusters over a chain of 3M
-- scattered ids (hashint8 of g and g + 1, 40 bits), maintenance_work_mem 1GB
SET jit = off; SET maintenance_work_mem = '1GB';
CREATE TEMP TABLE t0 AS SELECT split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 14)::bigint + split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 15)::bigint AS ticks;
SELECT count(*), count(DISTINCT cluster_id) FROM simhash_pair_clusters('SELECT (hashint8(g) & 1099511627775), (hashint8(g + 1) & 1099511627775) FROM generate_series(1, 2999999) g');
SELECT ((split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 14)::bigint + split_part(pg_read_file('/proc/' || pg_backend_pid() || '/stat'), ' ', 15)::bigint) - ticks) / 100.0 AS cpu_s FROM t0;
