-- The tables of bench/compare/run: :rows random fingerprints at 256 and 64
-- bits (md5 of the id) plus 2% near copies (0-32 bits flipped at 256, 0-3 at
-- 64), one copy of the 256-bit rows per index kind so that each query has
-- one index to use, and the queries: half planted rows, half random.
\set ON_ERROR_STOP 1
CREATE EXTENSION IF NOT EXISTS simhash;
\set tbl t256
\ir ../batch/near_copies.sql
CREATE TABLE t64 AS
  SELECT i::bigint AS id, simhash(('x' || substr(md5(i::text), 1, 16))::bit(64)) AS fp
  FROM generate_series(1, :rows) i;
-- 0-3 bits of the 64 (flip's positions modulo 64)
CREATE FUNCTION pg_temp.flip64(b bytea, n int, seed int) RETURNS bytea LANGUAGE sql AS $$
  SELECT set_bit(set_bit(set_bit(b, p1, CASE WHEN n >= 1 THEN 1 - get_bit(b, p1) ELSE get_bit(b, p1) END),
                 p2, CASE WHEN n >= 2 THEN 1 - get_bit(b, p2) ELSE get_bit(b, p2) END),
                 p3, CASE WHEN n >= 3 THEN 1 - get_bit(b, p3) ELSE get_bit(b, p3) END)
  FROM (SELECT abs(hashint4(seed * 100 + 1)) % 64 AS p1, 8 + abs(hashint4(seed * 100 + 2)) % 8 AS p2,
               16 + abs(hashint4(seed * 100 + 3)) % 48 AS p3) p
$$;
INSERT INTO t64
  SELECT 20000000 + id, simhash(pg_temp.flip64(simhash_to_bytea(fp), (id % 4)::int, id::int))
  FROM t64 WHERE id <= :rows / 50;
CREATE TABLE t256_gin AS SELECT * FROM t256;
CREATE TABLE t256_gist AS SELECT * FROM t256;
CREATE TABLE t256_mih AS SELECT * FROM t256;
CREATE INDEX ON t64 USING gin (fp);
CREATE INDEX ON t256_gin USING gin (fp simhash256_gin_word_ops);
CREATE INDEX ON t256_gist USING gist (fp);
CREATE INDEX ON t256_mih USING mih (fp);
VACUUM ANALYZE t64, t256, t256_gin, t256_gist, t256_mih;
CREATE TABLE q256 AS
  (SELECT row_number() OVER () AS n, fp FROM t256 WHERE id > 20000000 ORDER BY id LIMIT :queries / 2)
  UNION ALL
  (SELECT :queries / 2 + i, simhash256(decode(md5((-i)::text) || md5((-i - 1)::text), 'hex'))
     FROM generate_series(1, :queries / 2) i);
CREATE TABLE q64 AS
  (SELECT row_number() OVER () AS n, fp FROM t64 WHERE id > 20000000 ORDER BY id LIMIT :queries / 2)
  UNION ALL
  (SELECT :queries / 2 + i, simhash(('x' || substr(md5((-i)::text), 1, 16))::bit(64))
     FROM generate_series(1, :queries / 2) i);
CREATE TABLE times (build text, round int, task text, seconds float8, checksum numeric);
