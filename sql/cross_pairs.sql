-- simhash_pairs(new_query, existing_query, k): the pairs of a row of one
-- query and a row of the other (since 1.14), against the brute-force cross
-- join n.fp <-> e.fp <= k AND n.id <> e.id at 64, 128 and 256 bits, in
-- memory and spilled; the verified form; the errors.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;

\getenv abs_srcdir PG_ABS_SRCDIR
\set flip_sql :abs_srcdir '/sql/include/flip.sql'
\i :flip_sql
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql

-- existing: 2,500 random 256-bit codes.  new: 1,500 near copies of them at
-- 0..79 bits, 500 random codes, 100 exact copies of new rows (pairs inside
-- new, never reported), id 5 near its namesake (same id: no pair), a NULL.
-- The 128- and 64-bit tables take the first 16 and 8 bytes.
CREATE TABLE xe (id bigint, b bytea);
INSERT INTO xe SELECT i, decode(md5('xe:' || i) || md5('xf:' || i), 'hex') FROM generate_series(1, 2500) i;
CREATE TABLE xn (id bigint, b bytea);
INSERT INTO xn SELECT 10000 + id, pg_temp.flip(b, (id % 80)::int, id::int) FROM xe WHERE id <= 1500;
INSERT INTO xn SELECT 20000 + i, decode(md5('xn:' || i) || md5('xo:' || i), 'hex') FROM generate_series(1, 500) i;
INSERT INTO xn SELECT 30000 + id, b FROM xn WHERE id BETWEEN 10001 AND 10100;
INSERT INTO xn SELECT 5, pg_temp.flip(b, 1, 5) FROM xe WHERE id = 5;
CREATE TABLE n256 AS SELECT id, simhash256(b) AS fp FROM xn;
CREATE TABLE e256 AS SELECT id, simhash256(b) AS fp FROM xe;
CREATE TABLE n128 AS SELECT id, simhash128(substring(b FROM 1 FOR 16)) AS fp FROM xn;
CREATE TABLE e128 AS SELECT id, simhash128(substring(b FROM 1 FOR 16)) AS fp FROM xe;
CREATE TABLE n64 AS SELECT id, simhash(substring(b FROM 1 FOR 8)) AS fp FROM xn;
CREATE TABLE e64 AS SELECT id, simhash(substring(b FROM 1 FOR 8)) AS fp FROM xe;
INSERT INTO n256 VALUES (7, NULL);
INSERT INTO e64 VALUES (8, NULL);

-- differences(w, k): pairs and rows in which the two-query form and the
-- brute-force cross join of n<w> and e<w> within k differ (EXCEPT ALL both
-- ways)
CREATE FUNCTION pg_temp.differences(w int, k int) RETURNS TABLE (pairs bigint, differ bigint)
LANGUAGE plpgsql AS $f$
BEGIN
	EXECUTE format($$CREATE TEMP TABLE got AS SELECT * FROM
	                 simhash_pairs('SELECT id, fp FROM n%1$s', 'SELECT id, fp FROM e%1$s', %2$s)$$, w, k);
	EXECUTE format($$CREATE TEMP TABLE want AS
	                 SELECT n.id AS id1, e.id AS id2, (n.fp <-> e.fp)::integer AS distance
	                 FROM n%1$s n JOIN e%1$s e ON n.fp <-> e.fp <= %2$s AND n.id <> e.id$$, w, k);
	RETURN QUERY SELECT (SELECT count(*) FROM got),
		(SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE want) a) +
		(SELECT count(*) FROM (TABLE want EXCEPT ALL TABLE got) b);
	DROP TABLE got, want;
END $f$;

-- every k: in memory, beyond the 64-bit search's radius in a word too
-- (128 bits k >= 35, 256 bits k >= 68: every pair of groups measured)
SELECT w, k, d.* FROM (VALUES (64, 0), (64, 3), (64, 10), (64, 16),
                              (128, 6), (128, 24), (128, 40),
                              (256, 12), (256, 40), (256, 70)) v(w, k),
     LATERAL pg_temp.differences(w, k) d ORDER BY w, k;

-- an id in both queries: never paired with itself (new row 5 is 1 bit from
-- existing row 5 and far from the others: no pair); existing row 5 pairs
-- with its near copies in new; the copies in new pair with existing rows,
-- not with their originals in new
SELECT count(*) FILTER (WHERE id1 = 5) AS new_5, count(*) FILTER (WHERE id2 = 5) AS existing_5,
       count(*) FILTER (WHERE id1 = id2) AS same_id,
       count(*) FILTER (WHERE id2 >= 10000) AS new_as_existing
FROM simhash_pairs('SELECT id, fp FROM n256', 'SELECT id, fp FROM e256', 40);
-- the same query on both sides: every pair of simhash_pairs, both ways
SELECT (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM e128', 'SELECT id, fp FROM e128', 30))
     = 2 * (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM e128', 30)) AS both_ways;
-- an empty side: no pairs
SELECT count(*) AS no_new FROM simhash_pairs('SELECT id, fp FROM n64 WHERE false', 'SELECT id, fp FROM e64', 10);
SELECT count(*) AS no_existing FROM simhash_pairs('SELECT id, fp FROM n64', 'SELECT id, fp FROM e64 LIMIT 0', 10);

-- spilled beyond maintenance_work_mem (1 MB): 12,000 x 17,500 rows, the same
-- rows as in memory (1 GB)
CREATE TABLE xbn AS SELECT 100000 + id AS id, b FROM xn
  UNION ALL SELECT 200000 + i, sha256(convert_to('bn:' || i, 'UTF8')) FROM generate_series(1, 10000) i;
CREATE TABLE xbe AS SELECT id, b FROM xe
  UNION ALL SELECT 300000 + i, sha256(convert_to('be:' || i, 'UTF8')) FROM generate_series(1, 15000) i;
CREATE TABLE bn AS SELECT id, simhash256(b) AS fp FROM xbn;
CREATE TABLE be AS SELECT id, simhash256(b) AS fp FROM xbe;
CREATE TABLE bn64 AS SELECT id, simhash(substring(b FROM 1 FOR 8)) AS fp FROM xbn;
CREATE TABLE be64 AS SELECT id, simhash(substring(b FROM 1 FOR 8)) AS fp FROM xbe;
CREATE FUNCTION pg_temp.spilled(n text, e text, k int) RETURNS TABLE (pairs bigint, differ bigint)
LANGUAGE plpgsql AS $f$
BEGIN
	SET LOCAL maintenance_work_mem = '1GB';
	CREATE TEMP TABLE pm AS SELECT * FROM simhash_pairs(format('SELECT id, fp FROM %I', n), format('SELECT id, fp FROM %I', e), k);
	SET LOCAL maintenance_work_mem = '1MB';
	CREATE TEMP TABLE ps AS SELECT * FROM simhash_pairs(format('SELECT id, fp FROM %I', n), format('SELECT id, fp FROM %I', e), k);
	RETURN QUERY SELECT (SELECT count(*) FROM ps),
		(SELECT count(*) FROM (TABLE pm EXCEPT ALL TABLE ps) a) +
		(SELECT count(*) FROM (TABLE ps EXCEPT ALL TABLE pm) b);
	DROP TABLE pm, ps;
END $f$;
-- at 256 bits the spill starts while the new query is read, at 64 bits
-- while the existing one is
SELECT * FROM pg_temp.spilled('bn', 'be', 44);
SELECT * FROM pg_temp.spilled('be', 'bn', 20);
SELECT * FROM pg_temp.spilled('bn64', 'be64', 6);

-- verified: fingerprints and minhash signatures of short texts that share
-- some of their words; 100 texts in both queries, under other ids; id 177 in
-- both, with two texts
CREATE TABLE vt (id bigint, t text);
INSERT INTO vt SELECT i, 'doc ' || (i % 97) || ' about ' || (i % 13) || ' and ' || (i % 7) || ' with words ' || repeat('w' || (i % 5) || ' ', 3)
FROM generate_series(1, 400) i;
CREATE TABLE vn AS SELECT id + 1000 AS id, to_simhash256(t) AS fp, to_minhash(t) AS sig FROM vt WHERE id <= 250
  UNION ALL SELECT 177, to_simhash256('doc 80 about 8 and 2'), to_minhash('doc 80 about 8 and 2');
CREATE TABLE ve AS SELECT id, to_simhash256(t) AS fp, to_minhash(t) AS sig FROM vt WHERE id > 150;
SELECT t, count(*) AS pairs,
       (SELECT count(*) FROM (
          (SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp, sig FROM vn', 'SELECT id, fp, sig FROM ve', 60, t)
           EXCEPT ALL
           SELECT n.id, e.id, (n.fp <-> e.fp)::integer FROM vn n JOIN ve e
           ON n.fp <-> e.fp <= 60 AND n.id <> e.id AND minhash_jaccard(n.sig, e.sig) >= t)
          UNION ALL
          (SELECT n.id, e.id, (n.fp <-> e.fp)::integer FROM vn n JOIN ve e
           ON n.fp <-> e.fp <= 60 AND n.id <> e.id AND minhash_jaccard(n.sig, e.sig) >= t
           EXCEPT ALL
           SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp, sig FROM vn', 'SELECT id, fp, sig FROM ve', 60, t))) x) AS differ
FROM (VALUES (0.0::float8), (0.5), (0.9)) v(t),
     LATERAL simhash_pairs('SELECT id, fp, sig FROM vn', 'SELECT id, fp, sig FROM ve', 60, t)
GROUP BY t ORDER BY t;

-- errors
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM n128', 'SELECT id, fp FROM e256', 3)$q$) AS widths;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM n64', 'SELECT id, fp FROM e128', 3)$q$) AS widths_64;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM n64', 'SELECT id, fp FROM e64', 17)$q$) AS radius_64;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM n128', 'SELECT id, fp FROM e128', -1)$q$) AS radius_negative;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM n64', 'SELECT NULL::bigint, fp FROM e64', 3)$q$) AS null_id;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM n64', 'SELECT id, id FROM e64', 3)$q$) AS columns;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM vn', 'SELECT id, fp FROM ve', 3, 0.5)$q$) AS verify_columns;
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp, sig FROM vn', 'SELECT id, fp, sig FROM ve', 3, 1.5)$q$) AS threshold;
SET maintenance_work_mem = '1MB';
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM bn', 'SELECT id, fp FROM be', 70)$q$) AS memory;
RESET maintenance_work_mem;
-- a NULL argument: no rows (strict)
SELECT count(*) AS null_query FROM simhash_pairs(NULL, 'SELECT id, fp FROM e64', 3);
-- leave nothing behind for the tests after this one
DROP TABLE xe, xn, n256, e256, n128, e128, n64, e64, xbn, xbe, bn, be, bn64, be64, vt, vn, ve;
