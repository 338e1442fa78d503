-- bench/batch/cross_dup.sql: two-query simhash_pairs against the union when the existing
-- rows hold many pairs among themselves: 100,000 random rows and 9 near copies of each (1 to
-- 20 bits), 100,000 new rows (10 % exact copies of existing ones); k = 32, two calls each.
--   psql -f bench/batch/cross_dup.sql   (in a database with the extension)
DROP TABLE IF EXISTS d_old, d_new;
CREATE TABLE d_old AS SELECT i AS id, (int8send(hashint8extended(i, 1000)) || int8send(hashint8extended(i, 1001))
	|| int8send(hashint8extended(i, 1002)) || int8send(hashint8extended(i, 1003)))::simhash256 AS fp
FROM generate_series(1, 100000) i;
-- 9 near copies of each existing row, 1..20 bits: many pairs inside existing
INSERT INTO d_old SELECT 1000000 * c + o.id, (o.fp::bit(256) # (SELECT bit_or(B'1'::bit(256) >> p)
		FROM (SELECT DISTINCT (abs(hashint8extended(o.id * 10 + c, s)) % 256)::int AS p
		      FROM generate_series(1, 1 + (o.id + c) % 20) s) b))::simhash256
FROM d_old o, generate_series(1, 9) c;
CREATE TABLE d_new AS SELECT 100000000 + i AS id, (int8send(hashint8extended(i, 2000)) || int8send(hashint8extended(i, 2001))
	|| int8send(hashint8extended(i, 2002)) || int8send(hashint8extended(i, 2003)))::simhash256 AS fp
FROM generate_series(1, 90000) i
UNION ALL SELECT 200000000 + id, fp FROM d_old WHERE id % 10 = 0 AND id < 100000;
ANALYZE d_old; ANALYZE d_new;
SET maintenance_work_mem = '2GB';
\timing on
SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM d_new', 'SELECT id, fp FROM d_old', 32);
SELECT count(*), count(*) FILTER (WHERE id2 >= 100000000 AND id1 < 100000000) FROM simhash_pairs('SELECT id, fp FROM d_new UNION ALL SELECT id, fp FROM d_old', 32);
SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM d_new', 'SELECT id, fp FROM d_old', 32);
SELECT count(*), count(*) FILTER (WHERE id2 >= 100000000 AND id1 < 100000000) FROM simhash_pairs('SELECT id, fp FROM d_new UNION ALL SELECT id, fp FROM d_old', 32);
