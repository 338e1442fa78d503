-- Tables of bench/batch/limits/run: 3M random simhash256 rows plus 2 %
-- one-bit variants and 1 % exact copies (r256_3m, 3,090,927 rows) and its
-- first 1M with theirs (r256_1m, 1,030,309 rows); proc_kb(field) reads the
-- backend's /proc status (VmHWM).
SET jit = off;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS r256_3m, r256_1m;
CREATE TABLE r256_3m AS SELECT g::bigint AS id, sha256(int8send(g))::simhash256 AS fp FROM generate_series(1, 3000000) g;
INSERT INTO r256_3m SELECT id + 10000000, (fp::bit(256) # ((B'1' || repeat('0', 255))::bit(256) >> (id % 256)::int))::simhash256 FROM r256_3m WHERE id % 50 = 0;
INSERT INTO r256_3m SELECT id + 20000000, fp FROM r256_3m WHERE id % 97 = 0 AND id < 10000000;
CREATE TABLE r256_1m AS SELECT * FROM r256_3m WHERE id % 10000000 <= 1000000;
VACUUM ANALYZE r256_3m, r256_1m;
CREATE OR REPLACE FUNCTION proc_kb(field text) RETURNS bigint LANGUAGE sql AS $$
	SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status')
	                 FROM '(?n)^' || field || ':\s*(\d+) kB')::bigint
$$;
SELECT (SELECT count(*) FROM r256_1m) AS rows_1m, (SELECT count(*) FROM r256_3m) AS rows_3m;
