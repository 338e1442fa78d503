-- GiST: exact nearest neighbours (ORDER BY fp <-> q LIMIT n) and radius
-- search; with both a GIN and a GiST index, radius queries go to GIN.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;

CREATE TABLE docs (id int PRIMARY KEY, fp simhash);
INSERT INTO docs SELECT i, hashint8extended(i, 42)::simhash FROM generate_series(1, 5000) i;
-- planted: 30 centres with variants at distance 1..10
INSERT INTO docs
SELECT 100000 + c * 100 + v,
       (hashint8extended(c, 43) # coalesce((SELECT bit_or(1::bigint << ((c * 5 + j * 23) % 64))
                                            FROM generate_series(1, v) j), 0))::simhash
FROM generate_series(1, 30) c, generate_series(0, 10) v;
INSERT INTO docs VALUES (900001, NULL);
CREATE INDEX docs_fp_gist ON docs USING gist (fp simhash_gist_ops);
ANALYZE docs;

CREATE TABLE queries AS
SELECT 'centre' AS kind, hashint8extended(c, 43)::simhash AS q FROM generate_series(1, 15) c
UNION ALL SELECT 'random', hashint8extended(r, 99)::simhash FROM generate_series(1, 15) r;

-- nearest neighbours come from the index, literal and parameter
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617' LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id, fp <-> 'a0d1c2b3e4f50617' AS d FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617' LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY hamming_distance(fp, 'a0d1c2b3e4f50617') LIMIT 5;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY 'a0d1c2b3e4f50617' <-> fp LIMIT 5;
PREPARE knn(simhash, int) AS SELECT id, fp <-> $1 AS d FROM docs ORDER BY fp <-> $1 LIMIT $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE knn('a0d1c2b3e4f50617', 5);
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE knn('a0d1c2b3e4f50617', 5);
RESET plan_cache_mode;
-- the distance column keeps its type
SELECT id, d, pg_typeof(d) FROM (SELECT id, fp <-> hashint8extended(1, 43)::simhash AS d
                                 FROM docs ORDER BY fp <-> hashint8extended(1, 43)::simhash, id LIMIT 3) x;

-- the n nearest by index have the distances of the n nearest by a sort
CREATE TABLE knn_index AS
SELECT q.kind, q.q, n.rank, n.d
FROM queries q, LATERAL (SELECT row_number() OVER () AS rank, d
                         FROM (SELECT fp <-> q.q AS d FROM docs ORDER BY fp <-> q.q LIMIT 12) x) n;
RESET enable_seqscan;
-- the planner's own choice: a scan of the queries, the index for each
EXPLAIN (COSTS OFF) SELECT q.q, n.d FROM queries q, LATERAL (SELECT fp <-> q.q AS d FROM docs ORDER BY fp <-> q.q LIMIT 12) n;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TABLE knn_sort AS
SELECT q.kind, q.q, n.rank, n.d
FROM queries q, LATERAL (SELECT row_number() OVER () AS rank, d
                         FROM (SELECT (fp <-> q.q)::integer AS d FROM docs WHERE fp IS NOT NULL
                               ORDER BY 1 LIMIT 12) x) n;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT count(*) AS rows, count(*) FILTER (WHERE i.d IS DISTINCT FROM s.d) AS differences
FROM knn_index i FULL JOIN knn_sort s USING (q, rank);
SELECT kind, min(d) AS nearest, max(d) AS twelfth FROM knn_sort GROUP BY kind ORDER BY kind;

-- radius search through GiST when it is the only index
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3;
SELECT k, count(*) AS index_answers FROM generate_series(0, 10, 2) k, queries q, docs d
WHERE d.fp <-> q.q <= k GROUP BY k ORDER BY k;
RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT k, count(*) AS seq_answers FROM generate_series(0, 10, 2) k, queries q, docs d
WHERE (d.fp <-> q.q)::integer <= k GROUP BY k ORDER BY k;
RESET enable_indexscan; RESET enable_bitmapscan;
-- and both: radius within k and nearest first
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 8 ORDER BY fp <-> 'a0d1c2b3e4f50617';
-- index-only scan
EXPLAIN (COSTS OFF) SELECT fp FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617' LIMIT 3;
VACUUM docs;
SELECT fp, fp <-> 'a0d1c2b3e4f50617' AS d FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617', fp LIMIT 3;
RESET enable_seqscan;

-- with a GIN index as well, radius queries use GIN and ordering uses GiST
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops);
ANALYZE docs;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, 'a0d1c2b3e4f50617', 6);
-- the same rule for every spelling, the ball operators too
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <@ simhash_ball('a0d1c2b3e4f50617', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_ball('a0d1c2b3e4f50617', 3) @> fp;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617' LIMIT 5;

-- the index follows changes; NULL fingerprints come last, as in a sort
INSERT INTO docs VALUES (900002, 'a0d1c2b3e4f50617'), (900003, NULL);
SELECT id, fp <-> 'a0d1c2b3e4f50617' AS d FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617' LIMIT 1;
DELETE FROM docs WHERE id = 900002;
SET enable_seqscan = off;
SELECT n, fp IS NULL AS null_fp FROM (SELECT row_number() OVER () AS n, fp FROM (SELECT fp FROM docs ORDER BY fp <-> 'a0d1c2b3e4f50617' LIMIT 10000) x) y
WHERE n > (SELECT count(fp) FROM docs) - 2 ORDER BY n;
RESET enable_seqscan;
-- a GiST index built by inserts (page splits), not by the sorted build
CREATE TABLE docs2 (id int, fp simhash);
CREATE INDEX ON docs2 USING gist (fp simhash_gist_ops);
INSERT INTO docs2 SELECT id, fp FROM docs;
SET enable_seqscan = off;
SELECT count(*) AS differences FROM queries q,
  LATERAL (SELECT array_agg(d ORDER BY d) AS a FROM (SELECT (fp <-> q.q)::integer AS d FROM docs2 ORDER BY fp <-> q.q LIMIT 12) x) i,
  LATERAL (SELECT array_agg(d ORDER BY d) AS a FROM (SELECT d FROM knn_sort s WHERE s.q = q.q) y) s
WHERE i.a IS DISTINCT FROM s.a;
RESET enable_seqscan;
DROP TABLE docs, docs2, queries, knn_index, knn_sort;
