-- The mih index access method: at 64, 128 and 256 bits its answers equal a
-- sequential scan's for radii from 0 to beyond half the width (the tables
-- at small radii, a pass over the codes at large ones), for ORDER BY
-- fp <-> q LIMIT n (the rings, then the bands of a pass), after inserts
-- (the pending pages), deletes with VACUUM, REINDEX, CREATE INDEX
-- CONCURRENTLY, on an unlogged table and on an empty one.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;
\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql

-- code(w, i): a pseudo-random w-bit fingerprint's text (md5 digits)
CREATE FUNCTION pg_temp.code(w int, i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT left(md5(i::text) || md5((i + 1000000000)::text), w / 4) $$;

\set index_used_sql :abs_srcdir '/sql/include/index_used.sql'
\i :index_used_sql

-- mih_used(q): whether EXPLAIN (COSTS OFF) q scans an index named *_mih
-- (bitmap or plain: the choice between them is the planner's)
CREATE FUNCTION pg_temp.mih_used(q text) RETURNS boolean LANGUAGE sql AS $$
	SELECT pg_temp.index_used(q) ~ '(Bitmap Index Scan on|Index Scan using) \S+_mih\M' $$;

-- near(t, i, n): t with n hex digits replaced (at most 4 bits each)
CREATE FUNCTION pg_temp.near(t text, i int, n int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN p IN (SELECT 1 + (i * 7 + j * 13) % length(t) FROM generate_series(1, n) j)
	                       THEN to_hex((('x' || substr(t, p, 1))::bit(4)::int # 9) % 16)
	                       ELSE substr(t, p, 1) END, '' ORDER BY p)
	FROM generate_series(1, length(t)) p $$;

-- mismatches(tab, ks, every): the (query, k) of the radius search whose
-- index answers (bitmap scan, then index scan) differ from the sequential
-- scan's, for the rows whose id is 1 modulo every (and 1 modulo 97 among
-- the near copies, ids above 100,000)
CREATE FUNCTION pg_temp.mismatches(tab text, ks int[], every int DEFAULT 997) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r record;
	k int;
	a bigint[];
	b bigint[];
	c bigint[];
	bad text[] := '{}';
	n int := 0;
	q text := format('SELECT array_agg(id ORDER BY id) FROM %I WHERE fp <-> (SELECT fp FROM %I WHERE id = $1) <= $2', tab, tab);
BEGIN
	FOR r IN EXECUTE format('SELECT id FROM %I WHERE id %% %s = 1 OR id > 100000 AND id %% 97 = 1 ORDER BY id', tab, every) LOOP
		FOREACH k IN ARRAY ks LOOP
			SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off;
			EXECUTE q INTO a USING r.id, k;
			SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = on;
			EXECUTE q INTO b USING r.id, k;
			SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = on;
			EXECUTE q INTO c USING r.id, k;
			IF a IS DISTINCT FROM b OR a IS DISTINCT FROM c THEN
				bad := bad || format('%s@%s', r.id, k);
			END IF;
			n := n + 1;
		END LOOP;
	END LOOP;
	RESET enable_seqscan; RESET enable_indexscan; RESET enable_bitmapscan;
	RETURN CASE WHEN n < 20 THEN 'too few queries: ' || n
		WHEN cardinality(bad) = 0 THEN 'none' ELSE array_to_string(bad, ' ') END;
END $$;

-- knn_mismatches(tab, ns): the (query, n) whose distances of ORDER BY
-- fp <-> q LIMIT n through the index differ from a sort's
CREATE FUNCTION pg_temp.knn_mismatches(tab text, ns int[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r record;
	n int;
	a int[];
	b int[];
	bad text[] := '{}';
	q text := format('SELECT array_agg(d) FROM (SELECT fp <-> (SELECT fp FROM %1$I WHERE id = $1) AS d FROM %1$I'
		' WHERE fp IS NOT NULL ORDER BY fp <-> (SELECT fp FROM %1$I WHERE id = $1) LIMIT $2) s', tab);
BEGIN
	FOR r IN EXECUTE format('SELECT id FROM %I WHERE id %% 1999 = 1 OR id > 100000 AND id %% 199 = 1 ORDER BY id', tab) LOOP
		FOREACH n IN ARRAY ns LOOP
			SET LOCAL enable_seqscan = on; SET LOCAL enable_indexscan = off;
			EXECUTE q INTO a USING r.id, n;
			SET LOCAL enable_seqscan = off; SET LOCAL enable_indexscan = on;
			EXECUTE q INTO b USING r.id, n;
			IF a IS DISTINCT FROM b THEN
				bad := bad || format('%s@%s', r.id, n);
			END IF;
		END LOOP;
	END LOOP;
	RESET enable_seqscan; RESET enable_indexscan;
	RETURN CASE WHEN cardinality(bad) = 0 THEN 'none' ELSE array_to_string(bad, ' ') END;
END $$;

-- ------------------------------------------------------------------
-- 256 bits: 20,000 random rows, 2,000 near copies at 1-12 digits, NULLs
-- ------------------------------------------------------------------
CREATE TABLE m256 (id bigint PRIMARY KEY, fp simhash256);
INSERT INTO m256 SELECT i, pg_temp.code(256, i)::simhash256 FROM generate_series(1, 20000) i;
INSERT INTO m256 SELECT 100000 + i, pg_temp.near(pg_temp.code(256, i), i, 1 + i % 12)::simhash256
FROM generate_series(1, 2000) i;
INSERT INTO m256 VALUES (200001, NULL), (200002, NULL);
CREATE INDEX m256_mih ON m256 USING mih (fp);
ANALYZE m256;
SELECT c.opcname FROM pg_index i JOIN pg_opclass c ON c.oid = i.indclass[0]
WHERE i.indexrelid = 'm256_mih'::regclass;
-- the spellings of "within k" the planner support rewrites reach the index
SET enable_seqscan = off;
SELECT pg_temp.mih_used($$SELECT id FROM m256 WHERE fp <-> (SELECT fp FROM m256 WHERE id = 1) <= 10$$),
       pg_temp.mih_used($$SELECT id FROM m256 WHERE 10 >= fp <-> (SELECT fp FROM m256 WHERE id = 1)$$),
       pg_temp.mih_used($$SELECT id FROM m256 WHERE fp <@ simhash_ball((SELECT fp FROM m256 WHERE id = 1), 10)$$);
SELECT pg_temp.mih_used($$SELECT id FROM m256 ORDER BY fp <-> (SELECT fp FROM m256 WHERE id = 1) LIMIT 5$$);
RESET enable_seqscan;
SELECT pg_temp.mismatches('m256', '{0,4,12,24,40,56,80,110,140,256}');
SELECT pg_temp.knn_mismatches('m256', '{1,10,100,1500}');
-- simhash_nearest and simhash_nearest_radius through the mih index: one
-- ordered scan of it (no radius searches, no sequential scan), the rows
-- of a sort
\set scans_sql :abs_srcdir '/sql/include/scans.sql'
\i :scans_sql
SELECT count(*) AS queries,
       count(*) FILTER (WHERE (SELECT array_agg(n.fp <-> q.fp ORDER BY n.fp <-> q.fp) FROM simhash_nearest(NULL::m256, 'fp', q.fp, 7) n)
                              IS DISTINCT FROM (SELECT array_agg(d) FROM (SELECT fp <-> q.fp AS d FROM m256 WHERE fp IS NOT NULL ORDER BY 1 LIMIT 7) s)) AS nearest_differ,
       count(*) FILTER (WHERE simhash_nearest_radius('m256', 'fp', q.fp, 7)
                              IS DISTINCT FROM (SELECT max(d) FROM (SELECT fp <-> q.fp AS d FROM m256 WHERE fp IS NOT NULL ORDER BY 1 LIMIT 7) s)) AS radius_differ
FROM (SELECT fp FROM m256 WHERE id IN (1, 77, 4000, 100005, 101999)
      UNION ALL SELECT pg_temp.code(256, -i)::simhash256 FROM generate_series(1, 3) i) q;
SELECT seq AS sequential_scans, idx > 0 AS index_scanned
  FROM pg_temp.scans('m256', $$SELECT count(*) FROM simhash_nearest(NULL::m256, 'fp', pg_temp.code(256, -9)::simhash256, 10)$$);
SELECT seq AS sequential_scans, idx > 0 AS index_scanned
  FROM pg_temp.scans('m256', $$SELECT simhash_nearest_radius('m256', 'fp', pg_temp.code(256, -9)::simhash256, 10)$$);
-- the near copies are found: each within 48 bits of its original
SELECT count(*) AS near_copies_found FROM m256 c
WHERE c.id > 100000 AND c.id <= 102000 AND EXISTS (
	SELECT FROM m256 o WHERE o.fp <-> c.fp <= 48 AND o.id = c.id - 100000);
-- two balls: the nearer about another centre checked on every row
SET enable_seqscan = off;
SELECT count(*) FROM m256 WHERE fp <@ simhash_ball((SELECT fp FROM m256 WHERE id = 1), 40)
	AND fp <@ simhash_ball((SELECT fp FROM m256 WHERE id = 100001), 100);
RESET enable_seqscan;
SELECT count(*) FROM m256 WHERE fp <-> (SELECT fp FROM m256 WHERE id = 1) <= 40
	AND fp <-> (SELECT fp FROM m256 WHERE id = 100001) <= 100;
-- a NULL ball: nothing
SET enable_seqscan = off;
SELECT count(*) FROM m256 WHERE fp <@ NULL::simhash256_ball;
RESET enable_seqscan;

-- inserts after the build go to the pending pages; deletes are cleared
-- by VACUUM; updates are both
INSERT INTO m256 SELECT 300000 + i, pg_temp.near(pg_temp.code(256, i), i + 5, 1 + i % 9)::simhash256
FROM generate_series(1, 3000) i;
DELETE FROM m256 WHERE id % 5 = 0;
UPDATE m256 SET fp = pg_temp.near(fp::text, id::int, 2)::simhash256 WHERE id % 11 = 0;
SELECT pg_temp.mismatches('m256', '{0,8,24,48,96}');
VACUUM m256;
SELECT pg_temp.mismatches('m256', '{0,8,24,48,96}');
SELECT pg_temp.knn_mismatches('m256', '{1,10,1500}');
-- simhash_mih_info: rows sorted by the build, rows pending since; REINDEX
-- sorts them all
-- (the layout follows the planner's estimate of the rows at the build)
SELECT rows_sorted, rows_pending, tables * substring_bits <= 256 AND tables * (substring_bits + 1) > 256
	AND directory_bits BETWEEN substring_bits - 8 AND substring_bits AS layout_ok
FROM simhash_mih_info('m256_mih');
REINDEX INDEX m256_mih;
SELECT rows_sorted, rows_pending FROM simhash_mih_info('m256_mih');
SELECT pg_temp.mismatches('m256', '{0,8,24,48,96}');

-- ------------------------------------------------------------------
-- 64 and 128 bits
-- ------------------------------------------------------------------
CREATE TABLE m64 (id bigint PRIMARY KEY, fp simhash);
INSERT INTO m64 SELECT i, pg_temp.code(64, i)::simhash FROM generate_series(1, 20000) i;
INSERT INTO m64 SELECT 100000 + i, pg_temp.near(pg_temp.code(64, i), i, 1 + i % 4)::simhash
FROM generate_series(1, 2000) i;
INSERT INTO m64 VALUES (200001, NULL);
CREATE INDEX m64_mih ON m64 USING mih (fp);
ANALYZE m64;
SELECT pg_temp.mismatches('m64', '{0,2,5,8,12,16,24,40}');
SELECT pg_temp.knn_mismatches('m64', '{1,10,1500}');
INSERT INTO m64 SELECT 300000 + i, pg_temp.near(pg_temp.code(64, i), i, 2)::simhash FROM generate_series(1, 500) i;
SELECT pg_temp.mismatches('m64', '{0,3,8,16}');

CREATE TABLE m128 (id bigint PRIMARY KEY, fp simhash128);
INSERT INTO m128 SELECT i, pg_temp.code(128, i)::simhash128 FROM generate_series(1, 20000) i;
INSERT INTO m128 SELECT 100000 + i, pg_temp.near(pg_temp.code(128, i), i, 1 + i % 6)::simhash128
FROM generate_series(1, 2000) i;
CREATE INDEX CONCURRENTLY m128_mih ON m128 USING mih (fp);
ANALYZE m128;
SELECT pg_temp.mismatches('m128', '{0,4,8,16,24,40,64}');
SELECT pg_temp.knn_mismatches('m128', '{1,10,1500}');

-- ------------------------------------------------------------------
-- an index made empty, filled by inserts; an unlogged table
-- ------------------------------------------------------------------
CREATE TABLE e256 (id bigint PRIMARY KEY, fp simhash256);
CREATE INDEX e256_mih ON e256 USING mih (fp);
SET enable_seqscan = off;
SELECT count(*) FROM e256 WHERE fp <-> repeat('0', 64)::simhash256 <= 100;
RESET enable_seqscan;
INSERT INTO e256 SELECT id, fp FROM m256 WHERE id < 3000;
ANALYZE e256;
SELECT pg_temp.mismatches('e256', '{0,8,40,96}', 97);
CREATE UNLOGGED TABLE u64 (id bigint PRIMARY KEY, fp simhash);
CREATE INDEX u64_mih ON u64 USING mih (fp);
INSERT INTO u64 SELECT id, fp FROM m64 WHERE id < 5000;
ANALYZE u64;
SELECT pg_temp.mismatches('u64', '{0,4,12}', 97);

-- ------------------------------------------------------------------
-- simhash_mih_check: every index above is sound, pending rows, VACUUM,
-- REINDEX and CONCURRENTLY included; heapallindexed finds a row the index
-- lacks (inserted while the catalog said the index was not ready)
-- ------------------------------------------------------------------
SELECT count(*) AS checked FROM unnest('{m256_mih,m64_mih,m128_mih,e256_mih,u64_mih}'::regclass[]) i,
	unnest('{f,t}'::boolean[]) h, LATERAL simhash_mih_check(i, h) c;
CREATE TABLE c64 (id bigint, fp simhash);
INSERT INTO c64 SELECT id, fp FROM m64 WHERE id <= 3000;
CREATE INDEX c64_mih ON c64 USING mih (fp);
UPDATE pg_index SET indisready = false WHERE indexrelid = 'c64_mih'::regclass;
INSERT INTO c64 VALUES (5000001, 123456789::bigint::simhash);
UPDATE pg_index SET indisready = true WHERE indexrelid = 'c64_mih'::regclass;
SELECT simhash_mih_check('c64_mih');
SELECT pg_temp.err($$SELECT simhash_mih_check('c64_mih', true)$$);
DELETE FROM c64 WHERE id = 5000001;
SELECT simhash_mih_check('c64_mih', true);
DROP TABLE c64;

-- ------------------------------------------------------------------
-- what mih does not do
-- ------------------------------------------------------------------
SELECT pg_temp.err($$CREATE INDEX ON m256 USING mih (fp, id)$$);
SELECT pg_temp.err($$CREATE UNIQUE INDEX ON m256 USING mih (fp)$$);
SELECT pg_temp.err($$CREATE INDEX ON m256 USING mih ((fp::text))$$);
SELECT pg_temp.err($$CREATE INDEX ON m256 USING mih (fp) WITH (tables = 4)$$);
SELECT pg_temp.err($$SELECT simhash_mih_info('m256_pkey')$$);
SELECT pg_temp.err($$SELECT simhash_mih_info('m256')$$);
SELECT pg_temp.err($$SELECT simhash_mih_check('m256_pkey')$$);
SELECT pg_temp.err($$SELECT simhash_mih_check('m256')$$);
CREATE ROLE regress_mih_reader;
SET ROLE regress_mih_reader;
SELECT pg_temp.err($$SELECT simhash_mih_info('m256_mih')$$);
SELECT pg_temp.err($$SELECT simhash_mih_check('m256_mih')$$);
RESET ROLE;
DROP ROLE regress_mih_reader;

DROP TABLE m256, m64, m128, e256, u64;
