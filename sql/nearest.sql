-- simhash_nearest_radius: k nearest neighbours through radius searches
-- 3,000 random fingerprints, 30 centres each with 3 variants at distances
-- 1..6, and rows without a fingerprint
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
DROP ROLE simhash_nearest_user;
-- a search_path that hides the extension does not change the operator used
SET search_path = pg_catalog;
SELECT public.simhash_nearest_radius('public.near_docs', 'fp', '0123456789abcdef'::public.simhash, 1) >= 0 AS qualified;
RESET search_path;

DROP TABLE near_docs, near_queries;
