-- simhash_nearest_radius: k nearest neighbours through radius searches
-- 3,000 random fingerprints, 30 centres each with 3 variants at distances
-- 1..6, and rows without a fingerprint
SET jit = off;
CREATE TABLE near_docs (id int PRIMARY KEY, fp simhash);
INSERT INTO near_docs SELECT i, hashint8extended(i, 7)::simhash FROM generate_series(1, 3000) i;
INSERT INTO near_docs
SELECT 100000 + c * 100 + d * 10 + j,
       simhash(simhash_to_bigint(hashint8extended(c, 8)::simhash) #
               (SELECT coalesce(bit_or(1::bigint << ((c * 7 + j * 13 + b * 5) % 64)), 0)
                  FROM generate_series(1, d) b))
  FROM generate_series(1, 30) c, generate_series(1, 6) d, generate_series(1, 3) j;
INSERT INTO near_docs SELECT 900000 + i, NULL FROM generate_series(1, 5) i;
INSERT INTO near_docs SELECT 200000 + c, hashint8extended(c, 8)::simhash FROM generate_series(1, 30) c;
CREATE INDEX near_docs_fp ON near_docs USING gin (fp);
ANALYZE near_docs;

-- The radius is the distance of the n-th nearest row: compare with a sort
-- of the whole table, for n = 1, 4, 10 and 25, on every centre and on 20
-- random fingerprints
CREATE TABLE near_queries AS
SELECT hashint8extended(c, 8)::simhash AS q FROM generate_series(1, 30) c
UNION ALL SELECT hashint8extended(i, 99)::simhash FROM generate_series(1, 20) i;
SELECT count(*) AS wrong_radius
  FROM near_queries, (VALUES (1), (4), (10), (25)) n(n)
 WHERE simhash_nearest_radius('near_docs', 'fp', q, n) IS DISTINCT FROM
       (SELECT (fp <-> q)::int FROM near_docs WHERE fp IS NOT NULL
         ORDER BY fp <-> q OFFSET n - 1 LIMIT 1);

-- Exact k nearest neighbours: the radius query ordered by distance gives the
-- same rows as the full sort (ties broken by id)
SELECT count(*) AS wrong_rows FROM near_queries, (VALUES (1), (4), (10), (25)) n(n)
 WHERE ARRAY(SELECT id FROM near_docs
              WHERE fp <-> q <= (SELECT simhash_nearest_radius('near_docs', 'fp', q, n))
              ORDER BY fp <-> q, id LIMIT n) IS DISTINCT FROM
       ARRAY(SELECT id FROM near_docs WHERE fp IS NOT NULL ORDER BY fp <-> q, id LIMIT n);

-- The scans made, counted in this transaction (pg_stat_xact_user_tables):
-- a planted centre's 4 nearest are within 1 bit, found by the searches at
-- 0 and 1 through GIN, with no sequential scan
\getenv abs_srcdir PG_ABS_SRCDIR
\set scans_sql :abs_srcdir '/sql/include/scans.sql'
\i :scans_sql
SET enable_seqscan = off;
SELECT seq AS sequential_scans, idx AS index_scans
  FROM pg_temp.scans('near_docs', $$SELECT simhash_nearest_radius('near_docs', 'fp', hashint8extended(5, 8)::simhash, 4)$$);
SELECT seq AS sequential_scans, idx AS index_scans
  FROM pg_temp.scans('near_docs', $$SELECT count(*) FROM simhash_nearest(NULL::near_docs, 'fp', hashint8extended(5, 8)::simhash, 4)$$);
RESET enable_seqscan;
-- through simhash_gin_ops the radius searches stop at 15 bits (1.9): at 16
-- its query needs more keys than it looks up and reads the whole index,
-- slower than a sequential scan (1.8 searched up to 16).  Row 1 with its 16
-- low bits flipped: row 1 is its nearest, 16 bits away, found by the
-- sequential scans after the searches at 0, 1, 2, 4, 8 and 15
CREATE INDEX near_docs_fp_ops ON near_docs USING gin (fp simhash_gin_ops);
SELECT simhash(simhash_to_bigint(fp) # 65535) AS q16 FROM near_docs WHERE id = 1 \gset
SELECT seq AS sequential_scans, idx AS index_scans
  FROM pg_temp.scans('near_docs', format($$SELECT count(*) FROM simhash_nearest(NULL::near_docs, 'fp', %L, 1)$$, :'q16'));
SELECT id, fp <-> :'q16' AS distance FROM simhash_nearest(NULL::near_docs, 'fp', :'q16', 1);
DROP INDEX near_docs_fp_ops;

-- A planted centre: itself, then its variants at distance 1
SELECT id, fp <-> hashint8extended(5, 8)::simhash AS distance FROM near_docs
 WHERE fp <-> hashint8extended(5, 8)::simhash <=
       (SELECT simhash_nearest_radius('near_docs', 'fp', hashint8extended(5, 8)::simhash, 4))
 ORDER BY 2, 1 LIMIT 4;

-- The radius query runs through the GIN index, the radius computed once
CREATE FUNCTION pg_temp.uses(q text, node text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE plan text;
BEGIN
	EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || q INTO plan;
	RETURN plan LIKE '%"' || node || '"%';
END $$;
SET enable_seqscan = off;
SELECT pg_temp.uses($$SELECT id FROM near_docs
  WHERE fp <-> '0123456789abcdef' <= (SELECT simhash_nearest_radius('near_docs', 'fp', '0123456789abcdef', 3))
  ORDER BY fp <-> '0123456789abcdef' LIMIT 3$$, 'Bitmap Index Scan') AS through_gin;
RESET enable_seqscan;

-- More rows asked for than have a fingerprint: 64, every row
SELECT simhash_nearest_radius('near_docs', 'fp', '0123456789abcdef', 1000000) AS all_rows;
-- NULL in, NULL out (STRICT)
SELECT simhash_nearest_radius('near_docs', 'fp', NULL, 3) IS NULL AS null_query,
       simhash_nearest_radius('near_docs', 'fp', '0123456789abcdef', NULL) IS NULL AS null_n;

-- Errors
SELECT simhash_nearest_radius('near_docs', 'fp', '0123456789abcdef', 0);
SELECT simhash_nearest_radius('near_docs', 'body', '0123456789abcdef', 1);
SELECT simhash_nearest_radius('near_docs', 'id', '0123456789abcdef', 1);
SELECT simhash_nearest_radius(0, 'fp', '0123456789abcdef', 1);
SELECT simhash_nearest_radius('no_such_table', 'fp', '0123456789abcdef', 1);
-- the searches run as the caller
CREATE ROLE simhash_nearest_user;
SET ROLE simhash_nearest_user;
SELECT simhash_nearest_radius('near_docs', 'fp', '0123456789abcdef', 1);
RESET ROLE;
-- a volatile row-level security policy (1.9): each row the search sees
-- passes the policy once, as in the caller's own query; 1.8 fetched the
-- rows found again by TID, evaluating the policy a second time, and failed
-- with XX000 "N of the M rows found could not be read again"
GRANT SELECT ON near_docs TO simhash_nearest_user;
ALTER TABLE near_docs ENABLE ROW LEVEL SECURITY;
CREATE POLICY near_docs_half ON near_docs FOR SELECT USING (random() < 0.5);
SET ROLE simhash_nearest_user;
SELECT setseed(0.25);
SELECT count(*) AS rows_returned, count(DISTINCT id) AS distinct_rows,
       bool_and(fp <-> '0123456789abcdef' <= 64) AS all_with_fp
  FROM simhash_nearest(NULL::near_docs, 'fp', '0123456789abcdef', 50);
CREATE TEMP TABLE near_rls AS
SELECT * FROM simhash_nearest(NULL::near_docs, 'fp', hashint8extended(5, 8)::simhash, 25) WITH ORDINALITY n(id, fp, i);
RESET ROLE;
-- nearest first, each a row of the table with its own fingerprint
SELECT count(*) AS rows_returned, bool_and(r.fp = d.fp) AS rows_of_the_table,
       bool_and(r.fp <-> hashint8extended(5, 8)::simhash >=
                coalesce(p.fp <-> hashint8extended(5, 8)::simhash, 0)) AS nearest_first
  FROM near_rls r JOIN near_docs d USING (id) LEFT JOIN near_rls p ON p.i = r.i - 1;
DROP TABLE near_rls;
DROP POLICY near_docs_half ON near_docs;
ALTER TABLE near_docs DISABLE ROW LEVEL SECURITY;
REVOKE SELECT ON near_docs FROM simhash_nearest_user;
DROP ROLE simhash_nearest_user;
-- a search_path that hides the extension does not change the operator used
SET search_path = pg_catalog;
SELECT public.simhash_nearest_radius('public.near_docs', 'fp', '0123456789abcdef'::public.simhash, 1) >= 0 AS qualified;
RESET search_path;

-- simhash_nearest (1.7): the n nearest rows themselves, nearest first.
-- Their distances are those of a sort of the whole table, and each is a
-- row of the table with its own fingerprint
SELECT count(*) AS wrong_distances
  FROM near_queries, (VALUES (1), (4), (10), (25)) n(n)
 WHERE ARRAY(SELECT (fp <-> q)::int FROM simhash_nearest(NULL::near_docs, 'fp', q, n))
       IS DISTINCT FROM
       ARRAY(SELECT (fp <-> q)::int FROM near_docs WHERE fp IS NOT NULL ORDER BY fp <-> q LIMIT n);
SELECT count(*) AS rows_returned, count(DISTINCT (q::text, n.id)) AS distinct_rows,
       count(*) FILTER (WHERE d.fp = n.fp) AS rows_of_the_table
  FROM near_queries, simhash_nearest(NULL::near_docs, 'fp', q, 10) n
  JOIN near_docs d USING (id);
-- a planted centre: itself, then its variants at distance 1
SELECT id, fp <-> hashint8extended(5, 8)::simhash AS distance
  FROM simhash_nearest(NULL::near_docs, 'fp', hashint8extended(5, 8)::simhash, 4) ORDER BY 2, 1;
-- the planner expects n rows (its support function), not the default
CREATE FUNCTION pg_temp.plan_rows(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO plan;
	RETURN plan -> 0 -> 'Plan' ->> 'Plan Rows';
END $$;
SELECT pg_temp.plan_rows($$SELECT * FROM simhash_nearest(NULL::near_docs, 'fp', '0123456789abcdef', 7)$$) AS rows_for_7;
-- more rows asked for than have a fingerprint: every row with one
SELECT count(*) AS all_rows FROM simhash_nearest(NULL::near_docs, 'fp', '0123456789abcdef', 1000000);
-- a partitioned table and a dropped column: whole rows of the named type
CREATE TABLE near_parts (id int, gone text, fp simhash, note text) PARTITION BY RANGE (id);
CREATE TABLE near_parts_a PARTITION OF near_parts FOR VALUES FROM (0) TO (100000);
CREATE TABLE near_parts_b PARTITION OF near_parts FOR VALUES FROM (100000) TO (1000000);
ALTER TABLE near_parts DROP COLUMN gone;
INSERT INTO near_parts SELECT id, fp, 'row ' || id FROM near_docs;
SELECT id, note, fp <-> hashint8extended(7, 8)::simhash AS distance
  FROM simhash_nearest(NULL::near_parts, 'fp', hashint8extended(7, 8)::simhash, 3) ORDER BY 3, 1;
DROP TABLE near_parts;
-- a view has no ctid: its searches return whole rows
CREATE VIEW near_view AS SELECT id, fp FROM near_docs WHERE id >= 100000;
SELECT id, fp <-> hashint8extended(7, 8)::simhash AS distance
  FROM simhash_nearest(NULL::near_view, 'fp', hashint8extended(7, 8)::simhash, 3) ORDER BY 2, 1;
SELECT count(*) AS wrong_view_distances FROM near_queries
 WHERE ARRAY(SELECT (fp <-> q)::int FROM simhash_nearest(NULL::near_view, 'fp', q, 5))
       IS DISTINCT FROM
       ARRAY(SELECT (fp <-> q)::int FROM near_view WHERE fp IS NOT NULL ORDER BY fp <-> q LIMIT 5);
DROP VIEW near_view;
-- NULL column name, query or n: no rows (not STRICT: the row is NULL)
SELECT (SELECT count(*) FROM simhash_nearest(NULL::near_docs, 'fp', NULL::simhash, 3)) AS null_query,
       (SELECT count(*) FROM simhash_nearest(NULL::near_docs, 'fp', '0123456789abcdef', NULL)) AS null_n,
       (SELECT count(*) FROM simhash_nearest(NULL::near_docs, NULL, '0123456789abcdef', 3)) AS null_column;
-- errors
SELECT * FROM simhash_nearest(NULL::near_docs, 'fp', '0123456789abcdef', 0);
SELECT * FROM simhash_nearest(NULL::int, 'fp', '0123456789abcdef', 1);
CREATE TYPE pg_temp.near_pair AS (id int, fp simhash);
SELECT * FROM simhash_nearest(NULL::pg_temp.near_pair, 'fp', '0123456789abcdef', 1);
SELECT * FROM simhash_nearest(NULL::near_docs, 'body', '0123456789abcdef', 1);
SELECT * FROM simhash_nearest(NULL::near_docs, 'id', '0123456789abcdef', 1);
CREATE ROLE simhash_nearest_user;
SET ROLE simhash_nearest_user;
SELECT * FROM simhash_nearest(NULL::near_docs, 'fp', '0123456789abcdef', 1);
RESET ROLE;
DROP ROLE simhash_nearest_user;

-- simhash128 and simhash256 (1.6): the same radius as a sort of the whole
-- table, through the word-key GIN class, the default GIN class and no
-- index; 2,000 fingerprints of short texts, 20 centres each with variants
-- at 1, 2, 3, 5, 8, 13 and 21 bits, and rows without a fingerprint
CREATE FUNCTION pg_temp.flips(w int, c int, d int) RETURNS bit varying LANGUAGE sql AS $$
	SELECT string_agg(CASE WHEN b = ANY (ARRAY(SELECT (c * 37 + j * 101) % w
	                                            FROM generate_series(1, d) j)) THEN '1' ELSE '0' END, '' ORDER BY b)::bit varying
	FROM generate_series(0, w - 1) b $$;
CREATE TABLE near128 (id int PRIMARY KEY, fp simhash128);
CREATE TABLE near256 (id int PRIMARY KEY, fp simhash256);
INSERT INTO near128 SELECT g, to_simhash128('doc ' || g) FROM generate_series(1, 2000) g;
INSERT INTO near256 SELECT g, to_simhash256('doc ' || g) FROM generate_series(1, 2000) g;
INSERT INTO near128 SELECT 100000 + c * 100 + d, (to_simhash128('centre ' || c)::bit(128) # pg_temp.flips(128, c, d)::bit(128))::simhash128
  FROM generate_series(1, 20) c, unnest(ARRAY[0, 1, 2, 3, 5, 8, 13, 21]) d;
INSERT INTO near256 SELECT 100000 + c * 100 + d, (to_simhash256('centre ' || c)::bit(256) # pg_temp.flips(256, c, d)::bit(256))::simhash256
  FROM generate_series(1, 20) c, unnest(ARRAY[0, 1, 2, 3, 5, 8, 13, 21]) d;
INSERT INTO near128 SELECT 900000 + i, NULL FROM generate_series(1, 3) i;
INSERT INTO near256 SELECT 900000 + i, NULL FROM generate_series(1, 3) i;
-- every variant is at its distance from its centre
SELECT (SELECT count(*) FILTER (WHERE fp <-> to_simhash128('centre ' || (id - 100000) / 100) = id % 100) FROM near128 WHERE id BETWEEN 100000 AND 899999) AS planted128,
       (SELECT count(*) FILTER (WHERE fp <-> to_simhash256('centre ' || (id - 100000) / 100) = id % 100) FROM near256 WHERE id BETWEEN 100000 AND 899999) AS planted256;
CREATE TABLE near_wide_queries AS
SELECT c AS qid, to_simhash128('centre ' || c) AS q128, to_simhash256('centre ' || c) AS q256 FROM generate_series(1, 20) c
UNION ALL SELECT 100 + g, to_simhash128('far ' || g), to_simhash256('far ' || g) FROM generate_series(1, 10) g;
-- width: simhash_nearest_radius's radius; -width: simhash_nearest's rows
CREATE FUNCTION pg_temp.wrong_wide() RETURNS TABLE (width int, wrong bigint) LANGUAGE sql AS $$
	SELECT 128, count(*) FROM near_wide_queries, (VALUES (1), (4), (8), (10), (2003)) n(n)
	 WHERE simhash_nearest_radius('near128', 'fp', q128, n) IS DISTINCT FROM
	       coalesce((SELECT (fp <-> q128)::int FROM near128 WHERE fp IS NOT NULL
	                  ORDER BY fp <-> q128 OFFSET n - 1 LIMIT 1), 128)
	UNION ALL
	SELECT 256, count(*) FROM near_wide_queries, (VALUES (1), (4), (8), (10), (2003)) n(n)
	 WHERE simhash_nearest_radius('near256', 'fp', q256, n) IS DISTINCT FROM
	       coalesce((SELECT (fp <-> q256)::int FROM near256 WHERE fp IS NOT NULL
	                  ORDER BY fp <-> q256 OFFSET n - 1 LIMIT 1), 256)
	-- simhash_nearest (1.7): the distances of the rows it returns
	UNION ALL
	SELECT -128, count(*) FROM near_wide_queries, (VALUES (1), (4), (8), (10), (2003)) n(n)
	 WHERE ARRAY(SELECT (fp <-> q128)::int FROM simhash_nearest(NULL::near128, 'fp', q128, n))
	       IS DISTINCT FROM
	       ARRAY(SELECT (fp <-> q128)::int FROM near128 WHERE fp IS NOT NULL ORDER BY fp <-> q128 LIMIT n)
	UNION ALL
	SELECT -256, count(*) FROM near_wide_queries, (VALUES (1), (4), (8), (10), (2003)) n(n)
	 WHERE ARRAY(SELECT (fp <-> q256)::int FROM simhash_nearest(NULL::near256, 'fp', q256, n))
	       IS DISTINCT FROM
	       ARRAY(SELECT (fp <-> q256)::int FROM near256 WHERE fp IS NOT NULL ORDER BY fp <-> q256 LIMIT n) $$;
SELECT 'no index' AS index, * FROM pg_temp.wrong_wide();
-- with no index every radius search would be a sequential scan: the whole
-- table is searched at once, in two sequential scans (1.9: the distances,
-- then the rows within the 4th of them)
SELECT seq AS sequential_scans, idx AS index_scans
  FROM pg_temp.scans('near256', $$SELECT count(*) FROM simhash_nearest(NULL::near256, 'fp', to_simhash256('centre 3'), 4)$$);
CREATE INDEX near128_word ON near128 USING gin (fp simhash128_gin_word_ops);
CREATE INDEX near256_word ON near256 USING gin (fp simhash256_gin_word_ops);
ANALYZE near128; ANALYZE near256;
SET enable_seqscan = off;
SELECT 'word' AS index, * FROM pg_temp.wrong_wide();
SELECT pg_temp.uses($$SELECT id FROM near256
  WHERE fp <-> to_simhash256('centre 3') <= (SELECT simhash_nearest_radius('near256', 'fp', to_simhash256('centre 3'), 4))
  ORDER BY fp <-> to_simhash256('centre 3') LIMIT 4$$, 'Bitmap Index Scan') AS through_gin;
-- a planted centre: itself, then its variants at 1, 2 and 3 bits
SELECT id, fp <-> to_simhash256('centre 3') AS distance FROM near256
 WHERE fp <-> to_simhash256('centre 3') <= (SELECT simhash_nearest_radius('near256', 'fp', to_simhash256('centre 3'), 4))
 ORDER BY 2, 1 LIMIT 4;
DROP INDEX near128_word, near256_word;
CREATE INDEX near128_gin ON near128 USING gin (fp);
CREATE INDEX near256_gin ON near256 USING gin (fp);
SELECT 'default gin' AS index, * FROM pg_temp.wrong_wide();
-- the searches up to 24 bits through simhash256_gin_ops; a planted centre's
-- 8th nearest is 21 bits away: 0, 1, 2, 4, 8, 16 and 24
SELECT seq AS sequential_scans, idx AS index_scans
  FROM pg_temp.scans('near256', $$SELECT count(*) FROM simhash_nearest(NULL::near256, 'fp', to_simhash256('centre 3'), 8)$$);
RESET enable_seqscan;
-- a wide GiST index reads most of itself at any radius, and a partial index
-- answers only some queries: the whole table is searched at once (two scans)
DROP INDEX near256_gin;
CREATE INDEX near256_gist ON near256 USING gist (fp);
CREATE INDEX near256_part ON near256 USING gin (fp simhash256_gin_word_ops) WHERE id < 100;
SELECT seq AS sequential_scans, idx AS index_scans
  FROM pg_temp.scans('near256', $$SELECT count(*) FROM simhash_nearest(NULL::near256, 'fp', to_simhash256('centre 3'), 4)$$);
SELECT 'gist' AS index, * FROM pg_temp.wrong_wide() WHERE width = 256;
-- more rows than have a fingerprint: the width
SELECT simhash_nearest_radius('near128', 'fp', to_simhash128('x'), 5000) AS all128,
       simhash_nearest_radius('near256', 'fp', to_simhash256('x'), 5000) AS all256;
-- a query of another width than the column: 42804
SELECT simhash_nearest_radius('near256', 'fp', to_simhash128('x'), 1);
SELECT simhash_nearest_radius('near128', 'fp', '0123456789abcdef', 1);
SELECT * FROM simhash_nearest(NULL::near256, 'fp', to_simhash128('x'), 1);
DROP TABLE near128, near256, near_wide_queries;

DROP TABLE near_docs, near_queries;
