-- Included by wide_index.sql once per width, with :W (128 or 256), :radii
-- (the radii to compare) and :flips (the planted distances) set.  Tables
-- docs:W (the fingerprints) and q:W (the queries).

-- 3,000 fingerprints of short texts, then 40 planted centres, each with a
-- variant at every distance of :flips (distinct bit positions flipped
-- through the bit(W) cast, so the distance to the centre is exactly v)
CREATE TABLE docs:W (id int PRIMARY KEY, fp simhash:W);
INSERT INTO docs:W SELECT g, to_simhash:W(g::text) FROM generate_series(1, 3000) g;
CREATE TABLE centres:W AS
SELECT c, to_simhash:W('centre ' || c) AS fp FROM generate_series(1, 40) c;
-- the GIN index comes first, so that the planted rows below arrive through
-- its pending list as well as through its entry tree
CREATE INDEX gin:W ON docs:W USING gin (fp);
INSERT INTO docs:W
SELECT 100000 + c * 100 + v, (fp::bit(:W) # pg_temp.flips(:W, c, v)::bit(:W))::simhash:W
FROM centres:W, unnest(ARRAY[:flips]) v;
INSERT INTO docs:W VALUES (900001, NULL);
ANALYZE docs:W;
-- every planted variant is at its distance from its centre
SELECT count(*) AS planted,
       count(*) FILTER (WHERE d.fp <-> c.fp = (d.id % 100)) AS at_their_distance
FROM docs:W d JOIN centres:W c ON d.id / 100 = 1000 + c.c;

-- queries: 6 planted centres, 6 fingerprints of other texts, 6 rows
CREATE TABLE q:W AS
SELECT row_number() OVER () AS qid, kind, q FROM (
	SELECT 'centre' AS kind, fp AS q FROM centres:W WHERE c <= 6
	UNION ALL SELECT 'other', to_simhash:W('other ' || g) FROM generate_series(1, 6) g
	UNION ALL SELECT 'row', fp FROM docs:W WHERE id % 500 = 7) x;
SELECT kind, count(*) FROM q:W GROUP BY kind ORDER BY kind;
CREATE TABLE radii:W AS SELECT unnest(ARRAY[:radii]) AS k;

-- the answers of a sequential scan: the distance as a plain integer, so
-- that no index can answer it
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TABLE seq:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, docs:W d
WHERE (d.fp <-> q.q)::integer <= r.k;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT k, count(s.id) AS seq_answers FROM radii:W r LEFT JOIN seq:W s USING (k) GROUP BY k ORDER BY k;

SET enable_seqscan = off;
-- every spelling of the radius query is answered by the GIN index
SELECT spelling, pg_temp.index_used(format(spelling, 'docs' || :'W', 'q' || :'W')) AS index_used
FROM unnest(ARRAY[
	'SELECT id FROM %s WHERE fp <-> (SELECT q FROM %s WHERE qid = 1) <= 3',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q <= 3',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q < 4',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q = 0',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q = 2',
	'SELECT id FROM %s, %s WHERE qid = 1 AND 3 >= fp <-> q',
	'SELECT id FROM %s, %s WHERE qid = 1 AND q <-> fp <= 3',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q <= 3::smallint',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q <= 3::bigint',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <-> q <= ''3''',
	'SELECT id FROM %s, %s WHERE qid = 1 AND hamming_distance(fp, q) <= 3',
	'SELECT id FROM %s, %s WHERE qid = 1 AND simhash_within(fp, q, 3)',
	'SELECT id FROM %s, %s WHERE qid = 1 AND simhash_within(q, fp, 3)',
	'SELECT id FROM %s, %s WHERE qid = 1 AND fp <@ simhash_ball(q, 3)',
	'SELECT id FROM %s, %s WHERE qid = 1 AND simhash_ball(q, 3) @> fp']) spelling;
-- a literal ball and a literal fingerprint, as the planner sees them
SELECT format('SELECT id FROM docs%s WHERE fp <-> %L <= 3', :'W', q) AS lit,
       format('SELECT id FROM docs%s WHERE fp <@ %L', :'W', simhash_ball(q, 3)) AS ball
FROM q:W WHERE qid = 1 \gset
SELECT pg_temp.index_used(:'lit') AS literal_fp, pg_temp.index_used(:'ball') AS literal_ball;
SELECT pg_temp.index_used(format('SELECT r.k, q.qid, d.id FROM radii%1$s r, q%1$s q, docs%1$s d WHERE d.fp <-> q.q <= r.k', :'W')) AS join_uses;

-- GIN answers equal the sequential scan's at every radius, and at -1 there
-- are none
CREATE TABLE gin_answers:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, docs:W d WHERE d.fp <-> q.q <= r.k;
SELECT k, coalesce(s.n, 0) AS seq_answers, coalesce(g.n, 0) AS gin_answers
FROM radii:W r LEFT JOIN (SELECT k, count(*) AS n FROM seq:W GROUP BY k) s USING (k)
LEFT JOIN (SELECT k, count(*) AS n FROM gin_answers:W GROUP BY k) g USING (k)
ORDER BY k;
SELECT (SELECT count(*) FROM (SELECT * FROM seq:W EXCEPT ALL SELECT * FROM gin_answers:W) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM gin_answers:W EXCEPT ALL SELECT * FROM seq:W) x) AS extra;
SELECT count(*) AS none_within_minus_one FROM q:W q, docs:W d WHERE d.fp <-> q.q <= -1;

-- prepared statements: a generic plan still uses the index, with a typed,
-- a bigint and an untyped radius, and through simhash_within
SET plan_cache_mode = force_generic_plan;
PREPARE r:W(simhash:W, int) AS SELECT id FROM docs:W WHERE fp <-> $1 <= $2;
PREPARE ri:W(simhash:W, bigint) AS SELECT id FROM docs:W WHERE fp <-> $1 <= $2;
PREPARE ru:W AS SELECT id FROM docs:W WHERE fp <-> $1 <= $2;
PREPARE w:W(simhash:W, int) AS SELECT id FROM docs:W WHERE simhash_within(fp, $1, $2);
SELECT q AS q1 FROM q:W WHERE qid = 1 \gset
SELECT s AS statement, pg_temp.index_used(format('EXECUTE %s%s(%L, %s)', s, :'W', :'q1', :pk)) AS index_used
FROM unnest(ARRAY['r', 'ri', 'ru', 'w']) s;
CREATE TABLE p_r:W AS EXECUTE r:W(:'q1', :pk);
CREATE TABLE p_ri:W AS EXECUTE ri:W(:'q1', :pk);
CREATE TABLE p_ru:W AS EXECUTE ru:W(:'q1', :pk);
CREATE TABLE p_w:W AS EXECUTE w:W(:'q1', :pk);
SELECT t AS statement, count(*) AS answers,
       count(*) FILTER (WHERE NOT EXISTS (SELECT FROM seq:W s WHERE s.k = :pk AND s.qid = 1 AND s.id = a.id)) AS extra,
       (SELECT count(*) FROM seq:W s WHERE s.k = :pk AND s.qid = 1) - count(*) AS missing
FROM (SELECT 'r' AS t, id FROM p_r:W UNION ALL SELECT 'ri', id FROM p_ri:W
      UNION ALL SELECT 'ru', id FROM p_ru:W UNION ALL SELECT 'w', id FROM p_w:W) a
GROUP BY t ORDER BY t;
RESET plan_cache_mode;
DEALLOCATE ALL;
DROP TABLE p_r:W, p_ri:W, p_ru:W, p_w:W;

-- GiST: with both indexes, radius queries stay with GIN; without bitmap
-- scans (GIN's only kind), GiST answers them
CREATE INDEX gist:W ON docs:W USING gist (fp);
ANALYZE docs:W;
SELECT pg_temp.index_used(:'lit') AS with_both;
SET enable_bitmapscan = off;
SELECT pg_temp.index_used(:'lit') AS without_bitmap_scans,
       pg_temp.index_used(:'ball') AS literal_ball;
SELECT pg_temp.index_used(format('SELECT r.k, q.qid, d.id FROM radii%1$s r, q%1$s q, docs%1$s d WHERE d.fp <-> q.q <= r.k', :'W')) AS join_uses;
CREATE TABLE gist_answers:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, docs:W d WHERE d.fp <-> q.q <= r.k;
SELECT (SELECT count(*) FROM gist_answers:W) AS gist_answers, (SELECT count(*) FROM seq:W) AS seq_answers,
       (SELECT count(*) FROM (SELECT * FROM seq:W EXCEPT ALL SELECT * FROM gist_answers:W) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM gist_answers:W EXCEPT ALL SELECT * FROM seq:W) x) AS extra;
RESET enable_bitmapscan;

-- nearest neighbours: ORDER BY fp <-> q LIMIT 10 through GiST has the
-- distances of the brute-force ten nearest (ties may come in another order)
SELECT format('SELECT id FROM docs%s ORDER BY fp <-> %L LIMIT 10', :'W', :'q1') AS knn \gset
SELECT :'knn' AS knn, pg_temp.index_used(:'knn') AS index_used;
SELECT pg_temp.index_used(format('SELECT id FROM docs%1$s ORDER BY fp <-> (SELECT q FROM q%1$s WHERE qid = 1) LIMIT 10', :'W')) AS subquery;
SELECT pg_temp.index_used(format('SELECT id FROM docs%s ORDER BY hamming_distance(fp, %L) LIMIT 10', :'W', :'q1')) AS hamming_distance,
       pg_temp.index_used(format('SELECT id FROM docs%s ORDER BY %L <-> fp LIMIT 10', :'W', :'q1')) AS commuted;
CREATE TABLE knn:W AS
SELECT q.qid, n.rank, n.d FROM q:W q,
  LATERAL (SELECT row_number() OVER () AS rank, d
           FROM (SELECT (fp <-> q.q)::integer AS d FROM docs:W ORDER BY fp <-> q.q LIMIT 10) x) n;
RESET enable_seqscan;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TABLE brute:W AS
SELECT q.qid, n.rank, n.d FROM q:W q,
  LATERAL (SELECT row_number() OVER () AS rank, d
           FROM (SELECT (fp <-> q.q)::integer AS d FROM docs:W WHERE fp IS NOT NULL
                 ORDER BY 1 LIMIT 10) x) n;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT count(*) AS rows, count(*) FILTER (WHERE k.d IS DISTINCT FROM b.d) AS differences
FROM knn:W k FULL JOIN brute:W b USING (qid, rank);
SELECT q.kind, min(b.d) AS nearest, max(b.d) AS tenth
FROM brute:W b JOIN q:W q USING (qid) GROUP BY q.kind ORDER BY q.kind;

-- index-only scans return the fingerprints themselves
VACUUM docs:W;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT pg_temp.index_used(format('SELECT fp FROM docs%s ORDER BY fp <-> %L LIMIT 10', :'W', :'q1')) AS index_only;
SELECT count(*) AS fetched, count(*) FILTER (WHERE NOT EXISTS (SELECT FROM docs:W d WHERE d.fp = i.fp)) AS not_in_table
FROM (SELECT fp FROM docs:W ORDER BY fp <-> :'q1'::simhash:W LIMIT 50) i;
RESET enable_seqscan; RESET enable_bitmapscan;

-- a GiST index built by inserts (page splits, penalty and picksplit), not
-- by the sorted build, gives the same answers
CREATE TABLE ins:W (id int, fp simhash:W);
CREATE INDEX gist_ins:W ON ins:W USING gist (fp);
INSERT INTO ins:W SELECT id, fp FROM docs:W ORDER BY id;
SET enable_seqscan = off; SET enable_bitmapscan = off;
SELECT count(*) AS knn_differences FROM q:W q,
  LATERAL (SELECT array_agg(d ORDER BY d) AS a
           FROM (SELECT (fp <-> q.q)::integer AS d FROM ins:W ORDER BY fp <-> q.q LIMIT 10) x) i,
  LATERAL (SELECT array_agg(d ORDER BY d) AS a FROM brute:W b WHERE b.qid = q.qid) b
WHERE i.a IS DISTINCT FROM b.a;
CREATE TABLE ins_answers:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, ins:W d WHERE d.fp <-> q.q <= r.k;
SELECT (SELECT count(*) FROM (SELECT * FROM seq:W EXCEPT ALL SELECT * FROM ins_answers:W) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM ins_answers:W EXCEPT ALL SELECT * FROM seq:W) x) AS extra;
RESET enable_seqscan; RESET enable_bitmapscan;

-- the word-key GIN class (1.6) alone: the answers of the sequential scan at
-- every radius, both from its build and from rows inserted after it (the
-- pending list, then the entry tree after VACUUM, at every radius)
\set wordops simhash :W _gin_word_ops
DROP INDEX gin:W, gist:W;
CREATE INDEX word:W ON docs:W USING gin (fp :wordops);
CREATE TABLE wins:W (id int, fp simhash:W);
CREATE INDEX wins_word:W ON wins:W USING gin (fp :wordops);
INSERT INTO wins:W SELECT id, fp FROM docs:W ORDER BY id;
ANALYZE docs:W; ANALYZE wins:W;
SET enable_seqscan = off;
SELECT pg_temp.index_used(:'lit') AS word_index_used,
       pg_temp.index_used(format('SELECT r.k, q.qid, d.id FROM radii%1$s r, q%1$s q, docs%1$s d WHERE d.fp <-> q.q <= r.k', :'W')) AS join_uses;
CREATE TABLE word_answers:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, docs:W d WHERE d.fp <-> q.q <= r.k;
-- (the pending list is searched row by row for every lookup: radii up to
-- :pk only, or this alone would take minutes)
CREATE TABLE wins_answers:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, wins:W d WHERE r.k <= :pk AND d.fp <-> q.q <= r.k;
VACUUM wins:W;
CREATE TABLE wvac_answers:W AS
SELECT r.k, q.qid, d.id FROM radii:W r, q:W q, wins:W d WHERE d.fp <-> q.q <= r.k;
RESET enable_seqscan;
CREATE TABLE word_all:W AS
SELECT 'built' AS t, * FROM word_answers:W UNION ALL SELECT 'inserted', * FROM wins_answers:W
UNION ALL SELECT 'vacuumed', * FROM wvac_answers:W;
SELECT t AS word_index, count(a.id) AS answers,
       (SELECT count(*) FROM (SELECT * FROM seq:W WHERE a.t <> 'inserted' OR k <= :pk EXCEPT ALL
                              SELECT k, qid, id FROM word_all:W w WHERE w.t = a.t) x) AS missing,
       (SELECT count(*) FROM (SELECT k, qid, id FROM word_all:W w WHERE w.t = a.t
                              EXCEPT ALL SELECT * FROM seq:W) x) AS extra
FROM word_all:W a GROUP BY t ORDER BY t;
DROP TABLE wins:W, word_answers:W, wins_answers:W, wvac_answers:W, word_all:W;

DROP TABLE docs:W, centres:W, q:W, radii:W, seq:W, gin_answers:W, gist_answers:W, knn:W, brute:W, ins:W, ins_answers:W;
