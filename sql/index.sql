-- Radius search through the GIN index simhash_gin_ops: every literal form
-- of "within k" is answered by the index, and the index answers equal a
-- sequential scan for k = 0..12.
CREATE EXTENSION IF NOT EXISTS simhash;
-- plan(q): EXPLAIN (COSTS OFF) q, without the "Disabled: true" lines that
-- PostgreSQL 18 adds to a scan that enable_seqscan = off could not avoid
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF line !~ '^\s*Disabled: true$' THEN RETURN NEXT line; END IF;
	END LOOP;
END $$;

-- 4,000 random fingerprints plus planted clusters: 40 centres, each with
-- two variants at every distance 1..8 (distinct bit positions flipped)
CREATE TABLE docs (id int PRIMARY KEY, fp simhash);
INSERT INTO docs SELECT i, hashint8extended(i, 42)::simhash FROM generate_series(1, 4000) i;
INSERT INTO docs
SELECT 100000 + c * 100 + v,
       (c_fp::bigint # coalesce(flips, 0))::simhash
FROM (SELECT c, hashint8extended(c, 43) AS c_fp FROM generate_series(1, 40) c) centres,
     LATERAL (SELECT v, (SELECT bit_or(1::bigint << ((c * 7 + v * 13 + j * 29) % 64))
                         FROM generate_series(1, v % 9) j) AS flips
              FROM generate_series(0, 17) v) variants
;
INSERT INTO docs VALUES (900001, NULL);
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops);
ANALYZE docs;
SELECT count(*) AS rows, count(DISTINCT fp) AS distinct_fps FROM docs;

-- queries: 20 planted centres, 20 random fingerprints, 20 fingerprints of the table
CREATE TABLE queries AS
SELECT 'centre' AS kind, hashint8extended(c, 43)::simhash AS q FROM generate_series(1, 20) c
UNION ALL SELECT 'random', hashint8extended(r, 99)::simhash FROM generate_series(1, 20) r
UNION ALL SELECT 'row', fp FROM docs WHERE id % 200 = 7;

-- every form uses the index, with a literal and with parameters
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' < 4;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' = 0;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' = 2;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE 3 >= fp <-> 'a0d1c2b3e4f50617';
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE 4 > fp <-> 'a0d1c2b3e4f50617';
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE 'a0d1c2b3e4f50617' <-> fp <= 3;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE hamming_distance(fp, 'a0d1c2b3e4f50617') <= 3;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, 'a0d1c2b3e4f50617', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within('a0d1c2b3e4f50617', fp, 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <@ simhash_ball('a0d1c2b3e4f50617', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_ball('a0d1c2b3e4f50617', 3) @> fp;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 8;
PREPARE radius(simhash, int) AS SELECT id FROM docs WHERE fp <-> $1 <= $2 ORDER BY id;
PREPARE radius_lt(simhash, int) AS SELECT id FROM docs WHERE fp <-> $1 < $2 ORDER BY id;
PREPARE radius_fn(simhash, int) AS SELECT id FROM docs WHERE simhash_within(fp, $1, $2) ORDER BY id;
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE radius('a0d1c2b3e4f50617', 3);
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE radius('a0d1c2b3e4f50617', 3);
EXPLAIN (COSTS OFF) EXECUTE radius_lt('a0d1c2b3e4f50617', 4);
EXPLAIN (COSTS OFF) EXECUTE radius_fn('a0d1c2b3e4f50617', 3);
-- a smallint or bigint radius, as drivers bind small integers
PREPARE radius_i2(simhash, smallint) AS SELECT id FROM docs WHERE fp <-> $1 <= $2 ORDER BY id;
PREPARE radius_i8(simhash, bigint) AS SELECT id FROM docs WHERE $2 > fp <-> $1 ORDER BY id;
EXPLAIN (COSTS OFF) EXECUTE radius_i2('a0d1c2b3e4f50617', 3);
EXPLAIN (COSTS OFF) EXECUTE radius_i8('a0d1c2b3e4f50617', 4);
-- an untyped parameter, as drivers send it
PREPARE radius_unknown(unknown, int) AS SELECT id FROM docs WHERE fp <-> $1 <= $2 ORDER BY id;
EXPLAIN (COSTS OFF) EXECUTE radius_unknown('a0d1c2b3e4f50617', 3);
-- an untyped radius (node-postgres sends every parameter untyped), also on
-- the left, and as a quoted literal
PREPARE radius_untyped(simhash, unknown) AS SELECT id FROM docs WHERE fp <-> $1 <= $2 ORDER BY id;
PREPARE radius_untyped_left(simhash, unknown) AS SELECT id FROM docs WHERE $2 > fp <-> $1 ORDER BY id;
EXPLAIN (COSTS OFF) EXECUTE radius_untyped('a0d1c2b3e4f50617', '3');
EXPLAIN (COSTS OFF) EXECUTE radius_untyped_left('a0d1c2b3e4f50617', '4');
SET plan_cache_mode = force_custom_plan;
EXPLAIN (COSTS OFF) EXECUTE radius_untyped('a0d1c2b3e4f50617', '3');
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= '3';
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE '2' = fp <-> 'a0d1c2b3e4f50617';
RESET plan_cache_mode;
-- a join: index nested loop, whichever side the index is on
SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT pg_temp.plan($$SELECT q.kind, d.id FROM queries q JOIN docs d ON d.fp <-> q.q <= 3$$) AS "QUERY PLAN";
SELECT pg_temp.plan($$SELECT q.kind, d.id FROM queries q JOIN docs d ON q.q <-> d.fp <= 3$$) AS "QUERY PLAN";
SELECT pg_temp.plan($$SELECT q.kind, d.id FROM queries q JOIN docs d ON simhash_within(q.q, d.fp, 3)$$) AS "QUERY PLAN";
RESET enable_hashjoin; RESET enable_mergejoin;
-- the planner expects few rows (binomial estimate, at least one row's share)
CREATE FUNCTION pg_temp.estimated_rows(q text) RETURNS int LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->>'Plan Rows')::int;
END $$;
SELECT pg_temp.estimated_rows($$SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3$$) AS k3_random,
       pg_temp.estimated_rows($$SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 20$$) AS k20_random,
       pg_temp.estimated_rows($$SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 40$$) > 3000 AS k40_most;
RESET enable_seqscan;

-- index answers equal sequential-scan answers, k = 0..12, all query kinds
CREATE TABLE index_answers AS
SELECT k, q.kind, q.q, d.id, d.fp <-> q.q AS dist
FROM generate_series(0, 12) k, queries q, docs d
WHERE d.fp <-> q.q <= k;
SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT pg_temp.plan($$SELECT k, q.kind, q.q, d.id FROM generate_series(0, 12) k, queries q, docs d WHERE d.fp <-> q.q <= k$$) AS "QUERY PLAN";
CREATE TABLE index_answers2 AS
SELECT k, q.kind, q.q, d.id, d.fp <-> q.q AS dist
FROM generate_series(0, 12) k, queries q, docs d
WHERE d.fp <-> q.q <= k;
RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin;
SET enable_indexscan = off; SET enable_bitmapscan = off;
CREATE TABLE seq_answers AS
SELECT k, q.kind, q.q, d.id, d.fp <-> q.q AS dist
FROM generate_series(0, 12) k, queries q, docs d
WHERE (d.fp <-> q.q)::integer <= k;
RESET enable_indexscan; RESET enable_bitmapscan;
SELECT k, count(*) AS answers,
       count(*) FILTER (WHERE kind = 'centre') AS near_centres,
       count(*) FILTER (WHERE kind = 'random') AS near_random
FROM seq_answers GROUP BY k ORDER BY k;
SELECT count(*) AS differences FROM (
  (SELECT k, q, id FROM seq_answers EXCEPT ALL SELECT k, q, id FROM index_answers2)
  UNION ALL
  (SELECT k, q, id FROM index_answers2 EXCEPT ALL SELECT k, q, id FROM seq_answers)) x;

-- each form's answers equal the sequential scan's (k = 3)
CREATE FUNCTION pg_temp.differences_k3(cond text) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE n bigint;
BEGIN
	EXECUTE format($$SELECT count(*) FROM (
		(SELECT q.q, d.id FROM queries q JOIN docs d ON %1$s
		 EXCEPT ALL SELECT q, id FROM seq_answers WHERE k = 3)
		UNION ALL
		(SELECT q, id FROM seq_answers WHERE k = 3
		 EXCEPT ALL SELECT q.q, d.id FROM queries q JOIN docs d ON %1$s)) x$$, cond) INTO n;
	RETURN n;
END $f$;
SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
SELECT cond, pg_temp.differences_k3(cond) AS differences
FROM (VALUES ('d.fp <-> q.q <= 3'), ('d.fp <-> q.q < 4'), ('3 >= q.q <-> d.fp'),
             ('4 > d.fp <-> q.q'), ('hamming_distance(q.q, d.fp) <= 3'),
             ('simhash_within(d.fp, q.q, 3)'), ('simhash_within(q.q, d.fp, 3)'),
             ('d.fp <@ simhash_ball(q.q, 3)'), ('simhash_ball(q.q, 3) @> d.fp'),
             ('d.fp <-> q.q <= 3::smallint'), ('4::smallint > d.fp <-> q.q'),
             ('d.fp <-> q.q <= 3::bigint'), ('d.fp <-> q.q < 4::bigint'),
             ($$d.fp <-> q.q <= '3'$$), ($$'4' > d.fp <-> q.q$$),
             ($$d.fp <-> q.q <= 3::simhash_distance$$)) v(cond);
SELECT count(*) AS differences_eq2 FROM (
  (SELECT q.q, d.id FROM queries q JOIN docs d ON d.fp <-> q.q = 2
   EXCEPT SELECT q, id FROM seq_answers WHERE k = 2 AND dist = 2)
  UNION ALL
  (SELECT q, id FROM seq_answers WHERE k = 2 AND dist = 2
   EXCEPT SELECT q.q, d.id FROM queries q JOIN docs d ON d.fp <-> q.q = 2)) x;
RESET enable_seqscan;

-- forms that cannot use the index stay correct
SELECT count(*) AS far FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' > 40;
SELECT count(*) AS far FROM docs, (SELECT 'a0d1c2b3e4f50617'::simhash AS q) x WHERE (fp <-> q)::integer > 40;
-- radius edge cases
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' < 0;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= -5;
SET enable_seqscan = off;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 64;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' < 2147483647;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' < -2147483648;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 9223372036854775807;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' < -9223372036854775808;
SELECT count(*) FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 64::smallint;
SELECT count(*) FROM docs WHERE fp <@ simhash_ball('a0d1c2b3e4f50617', 20);
SELECT count(*) FROM docs d JOIN queries q ON d.fp <-> q.q <= 19;
SELECT count(*) FROM docs d JOIN queries q ON d.fp <-> q.q <= 21;
RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin;
SET enable_indexscan = off; SET enable_bitmapscan = off;
SELECT count(*) FROM docs WHERE fp <@ simhash_ball('a0d1c2b3e4f50617', 20);
SELECT count(*) FROM docs d JOIN queries q ON d.fp <-> q.q <= 19;
SELECT count(*) FROM docs d JOIN queries q ON d.fp <-> q.q <= 21;
RESET enable_indexscan; RESET enable_bitmapscan;

-- the ball type
SELECT simhash_ball('a0d1c2b3e4f50617', 3), '(A0D1C2B3E4F50617,-1)'::simhash_ball;
SELECT '(a0d1c2b3e4f50617,3'::simhash_ball;
SELECT '(a0d1c2b3e4f5061,3)'::simhash_ball;
SELECT '(a0d1c2b3e4f50617,x)'::simhash_ball;
SELECT 'a0d1c2b3e4f50617'::simhash <@ simhash_ball('a0d1c2b3e4f50616', 1) AS inside,
       'a0d1c2b3e4f50617'::simhash <@ simhash_ball('a0d1c2b3e4f50616', 0) AS outside;

-- The other GIN layouts give the same answers as the sequential scan for
-- every k from 0 to 12, and through the index
CREATE FUNCTION pg_temp.differences() RETURNS bigint LANGUAGE sql AS $$
SELECT count(*) FROM (
  (SELECT k, q.q, d.id FROM generate_series(0, 12) k, queries q, docs d WHERE d.fp <-> q.q <= k
   EXCEPT ALL SELECT k, q, id FROM seq_answers)
  UNION ALL
  (SELECT k, q, id FROM seq_answers
   EXCEPT ALL SELECT k, q.q, d.id FROM generate_series(0, 12) k, queries q, docs d WHERE d.fp <-> q.q <= k)) x
$$;

-- simhash_gin_ops(compact = true): smaller keys, the same answers
DROP INDEX docs_fp_gin;
CREATE INDEX docs_fp_gin_compact ON docs USING gin (fp simhash_gin_ops(compact = true));
SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3;
SELECT pg_temp.plan($$SELECT k, q.q, d.id FROM generate_series(0, 12) k, queries q, docs d WHERE d.fp <-> q.q <= k$$) AS "QUERY PLAN";
SELECT pg_temp.differences() AS differences_compact;
SELECT count(*) AS k20_compact FROM docs d JOIN queries q ON d.fp <-> q.q <= 21;
RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin;
SELECT pg_relation_size('docs_fp_gin_compact') > 0 AS built;
CREATE INDEX docs_bad ON docs USING gin (fp simhash_gin_ops(compact = maybe));
CREATE INDEX docs_bad ON docs USING gin (fp simhash_gin_ops(segments = 3));
DROP INDEX docs_fp_gin_compact;

-- simhash_gin_segment_ops: two sets of segment keys (default), then one
CREATE INDEX docs_fp_gin_segment ON docs USING gin (fp simhash_gin_segment_ops);
SET enable_seqscan = off; SET enable_hashjoin = off; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3;
SELECT pg_temp.plan($$SELECT k, q.q, d.id FROM generate_series(0, 12) k, queries q, docs d WHERE d.fp <-> q.q <= k$$) AS "QUERY PLAN";
SELECT pg_temp.differences() AS differences_segment;
SELECT count(*) AS k20_segment FROM docs d JOIN queries q ON d.fp <-> q.q <= 21;
-- after inserts (in the pending list), updates and deletes
INSERT INTO docs VALUES (900004, 'a0d1c2b3e4f50616'), (900005, '5f2e3d4c1b0af9e8');
UPDATE docs SET fp = 'a0d1c2b3e4f5061e' WHERE id = 900005;
SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3 AND id >= 900004 ORDER BY id;
DELETE FROM docs WHERE id IN (900004, 900005);
SELECT count(*) AS gone FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3 AND id >= 900004;
DROP INDEX docs_fp_gin_segment;
CREATE INDEX docs_fp_gin_segment1 ON docs USING gin (fp simhash_gin_segment_ops(segment_sets = 1));
SELECT pg_temp.differences() AS differences_segment1;
RESET enable_seqscan; RESET enable_hashjoin; RESET enable_mergejoin;
SELECT pg_relation_size('docs_fp_gin_segment1') > 0 AS built;
CREATE INDEX docs_bad ON docs USING gin (fp simhash_gin_segment_ops(segment_sets = 3));
CREATE INDEX docs_bad ON docs USING gin (fp simhash_gin_segment_ops(segment_sets = 0));
CREATE INDEX docs_bad ON docs USING gin (fp simhash_gin_segment_ops(compact = true));
DROP INDEX docs_fp_gin_segment1;
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops);

-- the index follows inserts, updates and deletes
INSERT INTO docs VALUES (900002, 'a0d1c2b3e4f50616'), (900003, 'a0d1c2b3e4f5061f');
SET enable_seqscan = off;
SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3 ORDER BY id;
UPDATE docs SET fp = 'ffffffffffffffff' WHERE id = 900002;
DELETE FROM docs WHERE id = 900003;
SELECT id FROM docs WHERE fp <-> 'a0d1c2b3e4f50617' <= 3 ORDER BY id;
RESET enable_seqscan;
DROP TABLE docs, queries, index_answers, index_answers2, seq_answers;
