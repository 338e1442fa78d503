-- bench/index/bench.sql: radius search through the simhash indexes against
-- the stock PostgreSQL recipes.  Run by bench/index/run in a throwaway
-- cluster; psql variables :rows :queries :seq_queries :rounds :inserts
-- :budget :knn_queries :methods :nproc.
\pset footer off
\set ON_ERROR_STOP 1

-- The session (one backend, no parallel workers, no JIT), the extensions,
-- the stage clock and the functions shared with bench_wide.sql
\ir common.sql
SET bench.inserts = :inserts;

-- ------------------------------------------------------------------
-- Data: :rows random fingerprints, plus planted clusters: every centre
-- with 2 variants at distance 1, 2, 3 and one at 4, 5, 6, 7, 8 (distinct
-- random bit positions flipped).
-- ------------------------------------------------------------------
SELECT greatest(:rows / 500, (:queries + 1) / 2, 1) AS centres,
       :queries / 2 AS centre_queries,
       :queries - :queries / 2 AS random_queries \gset
\echo == loading :rows random fingerprints and :centres planted clusters
CREATE TABLE docs (id bigint NOT NULL, fp simhash NOT NULL, fp_bigint bigint NOT NULL);
INSERT INTO docs
SELECT i, hashint8extended(i, 42)::simhash, hashint8extended(i, 42)
  FROM generate_series(1, :rows) i;
INSERT INTO docs
SELECT :rows + c * 16 + s.v, x.f::simhash, x.f
  FROM generate_series(1, :centres) c
 CROSS JOIN (VALUES (0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3),
                    (7, 4), (8, 5), (9, 6), (10, 7), (11, 8)) s(v, d)
 CROSS JOIN LATERAL (
	SELECT hashint8extended(c, 43)
	       # coalesce((SELECT bit_or(1::bigint << p)
	                     FROM (SELECT p FROM generate_series(0, 63) p
	                            ORDER BY hashint8extended(p, c * 16 + s.v) LIMIT s.d) b), 0) AS f) x;
\ir ../took.sql

-- Queries: planted centres (spread over all centres), then random
-- fingerprints; pos numbers each kind, and the timing takes them in the
-- order of pos, the kinds alternating.  The first :seq_queries (half of
-- each kind) are also timed for the sequential scan.
CREATE TABLE queries (qid int PRIMARY KEY, kind text NOT NULL, q simhash NOT NULL,
                      qb bigint NOT NULL, seq boolean NOT NULL, pos int NOT NULL);
INSERT INTO queries
SELECT i, 'centre', hashint8extended(c, 43)::simhash, hashint8extended(c, 43),
       i <= :seq_queries / 2, i
  FROM generate_series(1, :centre_queries) i,
       LATERAL (SELECT 1 + ((i - 1)::bigint * :centres) / :centre_queries AS c) x;
INSERT INTO queries
SELECT :centre_queries + j, 'random', hashint8extended(j, 99)::simhash, hashint8extended(j, 99),
       j <= :seq_queries - :seq_queries / 2, j
  FROM generate_series(1, :random_queries) j;

-- Per query and k, what the stock recipes send: the four 16-bit segments
-- (segment 0 = the top 16 bits), the segment values within floor(k/4) bits
-- of each (multi-index hashing: a pair within k differs by at most
-- floor(k/4) bits in some segment), and the tagged keys (i << 16) | value.
CREATE TABLE masks AS
SELECT m::bigint AS m, bit_count(m::bit(16)) AS bits
  FROM generate_series(0, 65535) m WHERE bit_count(m::bit(16)) <= 2;
CREATE TABLE qk AS
SELECT q.qid, k.k,
       (q.qb >> 48) & 65535 AS s0, (q.qb >> 32) & 65535 AS s1,
       (q.qb >> 16) & 65535 AS s2, q.qb & 65535 AS s3,
       ARRAY(SELECT ((q.qb >> 48) & 65535) # m FROM masks WHERE bits <= k.k / 4 ORDER BY 1) AS a0,
       ARRAY(SELECT ((q.qb >> 32) & 65535) # m FROM masks WHERE bits <= k.k / 4 ORDER BY 1) AS a1,
       ARRAY(SELECT ((q.qb >> 16) & 65535) # m FROM masks WHERE bits <= k.k / 4 ORDER BY 1) AS a2,
       ARRAY(SELECT (q.qb & 65535) # m FROM masks WHERE bits <= k.k / 4 ORDER BY 1) AS a3,
       ARRAY(SELECT ((i << 16) | (((q.qb >> (48 - 16 * i)) & 65535) # m))::int4
               FROM generate_series(0, 3) i, masks WHERE bits <= k.k / 4 ORDER BY 1) AS keys
  FROM queries q, (VALUES (3), (8), (11)) k(k);

-- ------------------------------------------------------------------
-- Methods.  One row each; a new index variant is one more row.  All of
-- them work on the one table docs, one method at a time: its indexes are
-- built, timed and dropped before the next method's are built.
--   name:  the method's name for --methods
--   ddl:   index DDL on docs, %1$s = the index name prefix (docs_<name>)
--   cond:  WHERE clause, %1$s = k, parameters
--          $1 q simhash, $2 q bigint, $3..$6 segments 0..3 (bigint),
--          $7..$10 segment values within floor(k/4) bits (bigint[]),
--          $11 the stock GIN keys (int4[])
--   cond_r0: the WHERE clause to use instead when floor(k/4) = 0
--   kind:  seq (the baseline), stock (the best of these is the stock
--          reference), simhash, reference (an index built and sized only)
--   knn:   the nearest-neighbour statement timed with this index, if any
-- ------------------------------------------------------------------
\set recheck 'bit_count((fp_bigint # $2)::bit(64)) <= %1$s'
\set gexpr 'ARRAY[((fp_bigint >> 48) & 65535)::int4, (65536 | ((fp_bigint >> 32) & 65535))::int4, (131072 | ((fp_bigint >> 16) & 65535))::int4, (196608 | (fp_bigint & 65535))::int4]'
CREATE TABLE method (
	ord     int PRIMARY KEY,
	label   text NOT NULL,
	kind    text NOT NULL CHECK (kind IN ('seq', 'stock', 'simhash', 'reference')),
	name    text NOT NULL UNIQUE,
	opclass text,			-- skipped when this operator class does not exist
	ddl     text[] NOT NULL DEFAULT '{}',
	cond    text,
	cond_r0 text,
	knn     text,
	active  boolean NOT NULL DEFAULT true,
	why     text					-- why not active
);
INSERT INTO method (ord, label, kind, name, opclass, ddl, cond, cond_r0) VALUES
(1, 'seq scan (bit_count)', 'seq', 'seq', NULL, '{}', :'recheck', NULL),
(2, 'btree x4 (BitmapOr)', 'stock', 'btree', NULL,
 ARRAY['CREATE INDEX %1$s_s0 ON docs (((fp_bigint >> 48) & 65535))',
       'CREATE INDEX %1$s_s1 ON docs (((fp_bigint >> 32) & 65535))',
       'CREATE INDEX %1$s_s2 ON docs (((fp_bigint >> 16) & 65535))',
       'CREATE INDEX %1$s_s3 ON docs ((fp_bigint & 65535))'],
 '(((fp_bigint >> 48) & 65535) = ANY ($7) OR ((fp_bigint >> 32) & 65535) = ANY ($8)'
 ' OR ((fp_bigint >> 16) & 65535) = ANY ($9) OR (fp_bigint & 65535) = ANY ($10)) AND ' || :'recheck',
 '(((fp_bigint >> 48) & 65535) = $3 OR ((fp_bigint >> 32) & 65535) = $4'
 ' OR ((fp_bigint >> 16) & 65535) = $5 OR (fp_bigint & 65535) = $6) AND ' || :'recheck'),
(3, 'GIN int4[] (&&)', 'stock', 'gin_stock', NULL,
 ARRAY['CREATE INDEX %1$s_keys ON docs USING gin ((' || :'gexpr' || '))'],
 :'gexpr' || ' && $11 AND ' || :'recheck', NULL),
(9, 'plain btree (fp_bigint)', 'reference', 'plain', NULL,
 ARRAY['CREATE INDEX %1$s_fp ON docs (fp_bigint)'], NULL, NULL);
-- The simhash indexes: the access method and operator class (with its
-- parameters) make the DDL; every one answers the literal radius form.
-- Nearest neighbours (n = 10) are timed with GiST's ORDER BY fp <-> q
-- LIMIT n and with simhash_nearest (the rows from radius searches) through
-- simhash_gin_ops (the segment classes pay their cost at large radii on
-- every step).
INSERT INTO method (ord, label, kind, name, opclass, ddl, cond, knn)
SELECT ord, label, 'simhash', name, opclass,
       ARRAY['CREATE INDEX %1$s_fp ON docs USING ' || am || ' (fp ' || opclass || params || ')'],
       'fp <-> $1 <= %1$s', knn
  FROM (VALUES (4, 'simhash GIN', 'gin', 'gin', 'simhash_gin_ops', '',
                'SELECT array_agg(d ORDER BY d) FROM (SELECT (fp <-> $1)::int AS d'
                ' FROM simhash_nearest(NULL::docs, ''fp'', $1, 10)) s'),
               (6, 'simhash GIN compact', 'gin_compact', 'gin', 'simhash_gin_ops',
                '(compact = true)', NULL),
               (7, 'simhash GIN segments', 'gin_segment', 'gin', 'simhash_gin_segment_ops', '', NULL),
               (8, 'simhash GIN segments x1', 'gin_segment1', 'gin', 'simhash_gin_segment_ops',
                '(segment_sets = 1)', NULL),
               (5, 'simhash GiST', 'gist', 'gist', 'simhash_gist_ops', '',
                'SELECT array_agg(d ORDER BY d) FROM (SELECT (fp <-> $1)::int AS d FROM docs'
                ' ORDER BY fp <-> $1 LIMIT 10) s')
       ) v(ord, label, name, am, opclass, params, knn);

UPDATE method SET active = false, why = format('operator class %s does not exist', opclass)
 WHERE opclass IS NOT NULL AND NOT EXISTS (SELECT FROM pg_opclass WHERE opcname = opclass);
-- --methods: the seq scan, the plain btree and the methods named
UPDATE method SET active = false, why = 'not in --methods'
 WHERE active AND :'methods' <> 'all' AND kind NOT IN ('seq', 'reference')
   AND NOT name = ANY (string_to_array(:'methods', ','));
\ir skipped.sql

-- The statements: one per method and k, all returning the sorted ids
CREATE TABLE stmt AS
SELECT m.ord, k.k,
       'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM docs WHERE '
       || format(CASE WHEN k.k / 4 = 0 AND m.cond_r0 IS NOT NULL THEN m.cond_r0 ELSE m.cond END, k.k) AS sql
  FROM method m, (VALUES (3), (8), (11)) k(k)
 WHERE m.cond IS NOT NULL;

VACUUM (ANALYZE) docs;
ANALYZE queries, qk;
CHECKPOINT;
\ir ../took.sql

-- ------------------------------------------------------------------
-- The exact answers, before any index exists: a brute-force join, and
-- for nearest neighbours a full sort per query
-- ------------------------------------------------------------------
\echo == computing the exact answers by brute force (every query against every row)
CREATE TABLE pairs AS
SELECT q.qid, d.id, (d.fp <-> q.q)::integer AS dist
  FROM queries q JOIN docs d ON (d.fp <-> q.q)::integer <= 11;
CREATE TABLE truth AS
SELECT q.qid, k.k,
       coalesce((SELECT array_agg(p.id ORDER BY p.id) FROM pairs p
                  WHERE p.qid = q.qid AND p.dist <= k.k), '{}') AS ids
  FROM queries q, (VALUES (3), (8), (11)) k(k);
CREATE TABLE knn_queries AS
SELECT qid, kind, q, pos FROM queries
 WHERE pos <= CASE kind WHEN 'centre' THEN :knn_queries / 2 ELSE :knn_queries - :knn_queries / 2 END;
CREATE TABLE knn_truth AS
SELECT qid, pg_temp.knn_dists(q) AS dists
  FROM knn_queries;
\ir ../took.sql

-- ------------------------------------------------------------------
-- One phase per method, each in its own transaction (so that a dropped
-- index leaves shared_buffers): build the indexes, warm the caches, take
-- the plans, time the queries, take EXPLAIN ANALYZE of the seq-scan
-- subset, time nearest neighbours, measure inserts, drop the indexes.
-- ------------------------------------------------------------------
CREATE TABLE build (ord int PRIMARY KEY, secs float8);
CREATE TABLE index_size (ord int PRIMARY KEY, bytes bigint);
CREATE TABLE plans (ord int, k int, chosen jsonb, timed jsonb);
CREATE TABLE times (ord int, k int, qid int, round int, ms float8, ids bigint[]);
CREATE TABLE exec_times (ord int, k int, qid int, ms float8);
CREATE TABLE anatomy (ord int, k int, kind text, e jsonb);
CREATE TABLE explain_text (ord int, k int, n int, line text);
CREATE TABLE knn_times (ord int, qid int, round int, ms float8, dists int[]);
CREATE TABLE ins (ord int PRIMARY KEY, secs float8);
CREATE TABLE ins_gin (ord int PRIMARY KEY, insert_on float8, flush float8, insert_off float8,
                      k3_pending float8, k3_flushed float8);

-- EXPLAIN of a statement with a query's parameters
CREATE FUNCTION pg_temp.explain(opts text, sql text, x record) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE j jsonb;
BEGIN
	EXECUTE 'EXPLAIN (' || opts || 'FORMAT JSON) ' || sql INTO j
		USING x.q, x.qb, x.s0, x.s1, x.s2, x.s3, x.a0, x.a1, x.a2, x.a3, x.keys;
	RETURN j->0;
END
$$;
-- A statement of stmt with a query's parameters: its ids (common.sql)
CREATE FUNCTION pg_temp.run(sql text, x record, OUT ids bigint[]) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql INTO ids USING x.q, x.qb, x.s0, x.s1, x.s2, x.s3, x.a0, x.a1, x.a2, x.a3, x.keys;
END
$$;
-- Median ms of k = 3 over 20 centres, under method m
CREATE FUNCTION pg_temp.k3_median(m int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	x record;
	t0 timestamptz;
	ids bigint[];
	ms float8[] := '{}';
BEGIN
	FOR x IN SELECT * FROM queries JOIN qk USING (qid) WHERE k = 3 AND kind = 'centre' ORDER BY qid LIMIT 20 LOOP
		t0 := clock_timestamp();
		EXECUTE (SELECT sql FROM stmt WHERE ord = m AND k = 3) INTO ids
			USING x.q, x.qb, x.s0, x.s1, x.s2, x.s3, x.a0, x.a1, x.a2, x.a3, x.keys;
		ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) FROM unnest(ms) v);
END $$;
-- Seconds of one INSERT ... SELECT of rows lo..hi (ids negated, fingerprints
-- hashed with seed) into docs, after setting the storage parameters
-- settings on the GIN indexes gin and a CHECKPOINT
CREATE FUNCTION pg_temp.insert_secs(gin regclass[], settings text, seed int, lo int, hi int)
RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	i regclass;
	t0 timestamptz;
BEGIN
	FOREACH i IN ARRAY gin LOOP
		EXECUTE format('ALTER INDEX %s SET (%s)', i, settings);
	END LOOP;
	EXECUTE 'CHECKPOINT';
	t0 := clock_timestamp();
	EXECUTE format('INSERT INTO docs SELECT -i, hashint8extended(i, %s)::simhash, hashint8extended(i, %s)
	                  FROM generate_series(%s, %s) i', seed, seed, lo, hi);
	RETURN extract(epoch FROM clock_timestamp() - t0);
END $$;

-- The phase of method mo; returns a line for the log
CREATE FUNCTION pg_temp.phase(mo int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	m method;
	d text;
	t0 timestamptz;
	t1 timestamptz;
	x record;
	s record;
	ids bigint[];
	dists int[];
	idx regclass[];
	gin regclass[];
	i regclass;
	rounds integer := current_setting('bench.rounds')::integer;
	budget float8 := current_setting('bench.budget')::float8;
	n_ins integer := current_setting('bench.inserts')::integer;
	spent float8;
	done integer;
	chosen integer[];
	total integer;
	timed text := '';
	insert_on float8;
	pending float8;
	flush float8;
BEGIN
	SELECT * INTO m FROM method WHERE ord = mo;

	-- build and size
	t0 := clock_timestamp();
	FOREACH d IN ARRAY m.ddl LOOP
		EXECUTE format(d, 'docs_' || m.name);
	END LOOP;
	INSERT INTO build SELECT mo, extract(epoch FROM clock_timestamp() - t0) WHERE cardinality(m.ddl) > 0;
	idx := ARRAY(SELECT indexrelid FROM pg_index WHERE indrelid = 'docs'::regclass);
	gin := ARRAY(SELECT c.oid FROM pg_class c JOIN pg_am a ON a.oid = c.relam
	              WHERE c.oid = ANY (idx) AND a.amname = 'gin');
	INSERT INTO index_size SELECT mo, sum(pg_relation_size(u)) FROM unnest(idx) u WHERE cardinality(idx) > 0;
	IF m.cond IS NULL THEN			-- built and sized only
		FOREACH i IN ARRAY idx LOOP
			EXECUTE format('DROP INDEX %s', i);
		END LOOP;
		RETURN format('%s: built in %s s', m.label, round((SELECT secs FROM build WHERE ord = mo)::numeric, 1));
	END IF;
	ANALYZE docs;					-- statistics of index expressions

	-- warm the caches: the table and the indexes into shared_buffers
	PERFORM pg_prewarm('docs');
	PERFORM pg_prewarm(u) FROM unnest(idx) u;

	-- plans for one planted centre at each k: the planner's own choice, and
	-- the plan timed, with enable_seqscan = off so that an index method is
	-- measured through its index (the seq scan method has no index)
	FOR s IN SELECT * FROM stmt WHERE ord = mo ORDER BY k LOOP
		SELECT * INTO x FROM queries JOIN qk USING (qid)
		 WHERE kind = 'centre' AND qk.k = s.k ORDER BY qid LIMIT 1;
		INSERT INTO plans VALUES (mo, s.k, pg_temp.explain('', s.sql, x)->'Plan');
	END LOOP;
	PERFORM set_config('enable_seqscan', 'off', true);
	FOR s IN SELECT * FROM stmt WHERE ord = mo ORDER BY k LOOP
		SELECT * INTO x FROM queries JOIN qk USING (qid)
		 WHERE kind = 'centre' AND qk.k = s.k ORDER BY qid LIMIT 1;
		UPDATE plans SET timed = pg_temp.explain('', s.sql, x)->'Plan' WHERE ord = mo AND k = s.k;
	END LOOP;

	-- the timed runs, per k.  Round 0 warms up and chooses the queries:
	-- they are taken in turn (centres and random ones alternating) until
	-- the method has spent its share of the budget, budget / (rounds + 2),
	-- and run at least 10 (5 of each kind).  Rounds 1 .. rounds then run
	-- the chosen queries in turn, and a last round runs each once more
	-- under EXPLAIN (ANALYZE, TIMING OFF), for the executor time alone
	-- (without parse and plan, and without per-node timing).  Between two
	-- runs of a query the others run, so a query does not find its own
	-- pages in the CPU caches, as a lone probe at insert time would not.
	FOR s IN SELECT * FROM stmt WHERE ord = mo ORDER BY k LOOP
		SELECT * INTO done, total, spent
		  FROM pg_temp.warm_up(s.sql, s.k, m.kind = 'seq', budget / (rounds + 2));
		chosen := ARRAY(SELECT qid FROM warm);
		t0 := clock_timestamp();
		FOR r IN 1 .. rounds + 1 LOOP
			FOR x IN SELECT * FROM queries JOIN qk USING (qid)
			          WHERE qk.k = s.k AND qid = ANY (chosen)
			          ORDER BY pos, kind LOOP
				IF r > rounds THEN
					INSERT INTO exec_times
					VALUES (mo, s.k, x.qid,
					        (pg_temp.explain('ANALYZE, TIMING OFF, ', s.sql, x)->>'Execution Time')::float8);
					CONTINUE;
				END IF;
				t1 := clock_timestamp();
				EXECUTE s.sql INTO ids
					USING x.q, x.qb, x.s0, x.s1, x.s2, x.s3, x.a0, x.a1, x.a2, x.a3, x.keys;
				INSERT INTO times
				VALUES (mo, s.k, x.qid, r, extract(epoch FROM clock_timestamp() - t1) * 1000, ids);
			END LOOP;
		END LOOP;
		-- round 0 and the timed rounds
		timed := timed || format(' k=%s: %s of %s queries in %s s;', s.k, done, total,
		                         round((spent + extract(epoch FROM clock_timestamp() - t0))::numeric, 1));
	END LOOP;

	-- where the time goes: EXPLAIN (ANALYZE, BUFFERS) of the seq-scan subset
	INSERT INTO anatomy
	SELECT mo, st.k, y.kind, pg_temp.explain('ANALYZE, BUFFERS, ', st.sql, y)
	  FROM stmt st, LATERAL (SELECT * FROM queries JOIN qk USING (qid) WHERE seq AND qk.k = st.k) y
	 WHERE st.ord = mo;
	-- and the text plans of the simhash GIN and GiST indexes at k = 3 and 8
	IF m.name IN ('gin', 'gist') THEN
		FOR s IN SELECT k FROM (VALUES (3), (8)) v(k) LOOP
			INSERT INTO explain_text
			SELECT mo, s.k, e.n, e.line
			  FROM pg_temp.explain_lines(format('SELECT id FROM docs WHERE fp <-> %L <= %s',
			           (SELECT q FROM queries WHERE kind = 'centre' ORDER BY qid LIMIT 1), s.k))
			       WITH ORDINALITY e(line, n);
		END LOOP;
	END IF;

	-- nearest neighbours, n = 10, chosen and timed the same way;
	-- simhash_nearest plans each of its searches for its own radius, its
	-- last one (the whole width) as a sequential scan: with the planner's
	-- defaults, as a user would run it
	IF m.knn IS NOT NULL THEN
		IF m.name LIKE 'gin%' THEN
			PERFORM set_config('enable_seqscan', 'on', true);
		END IF;
		SELECT w.done, w.spent INTO done, spent FROM pg_temp.warm_up(m.knn, NULL, false, budget / (rounds + 1)) w;
		chosen := ARRAY(SELECT qid FROM warm);
		t0 := clock_timestamp();
		FOR r IN 1 .. rounds LOOP
			FOR x IN SELECT * FROM knn_queries WHERE qid = ANY (chosen) ORDER BY pos, kind LOOP
				t1 := clock_timestamp();
				EXECUTE m.knn INTO dists USING x.q;
				INSERT INTO knn_times
				VALUES (mo, x.qid, r, extract(epoch FROM clock_timestamp() - t1) * 1000, dists);
			END LOOP;
		END LOOP;
		timed := timed || format(' nearest: %s queries in %s s;', done,
		                         round((spent + extract(epoch FROM clock_timestamp() - t0))::numeric, 1));
	END IF;

	-- inserts: n_ins rows with fastupdate on and a pending list large
	-- enough to hold every new row, k = 3 timed on 20 centres while the
	-- rows are pending and again after the flush; then n_ins more rows
	-- with fastupdate off.  The new rows are deleted again (and the
	-- table vacuumed after this phase).
	IF n_ins > 0 THEN
		insert_on := pg_temp.insert_secs(gin, 'fastupdate = on, gin_pending_list_limit = 1048576', 7, 1, n_ins);
		IF cardinality(gin) > 0 THEN
			pending := pg_temp.k3_median(mo);
		END IF;
		t0 := clock_timestamp();
		FOREACH i IN ARRAY gin LOOP
			PERFORM gin_clean_pending_list(i);
		END LOOP;
		flush := extract(epoch FROM clock_timestamp() - t0);
		INSERT INTO ins VALUES (mo, insert_on + flush);
		IF cardinality(gin) > 0 THEN
			INSERT INTO ins_gin (ord, insert_on, flush, k3_pending, k3_flushed)
			VALUES (mo, insert_on, flush, pending, pg_temp.k3_median(mo));
			UPDATE ins_gin SET insert_off = pg_temp.insert_secs(gin, 'fastupdate = off', 11, n_ins + 1, 2 * n_ins)
			 WHERE ord = mo;
		END IF;
		DELETE FROM docs WHERE id < 0;
	END IF;

	RETURN pg_temp.phase_end(mo, m.label, idx, timed);
END
$$;
CREATE FUNCTION pg_temp.explain_lines(sql text) RETURNS SETOF text LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE 'EXPLAIN (ANALYZE, BUFFERS) ' || sql;
END
$$;

SELECT count(*) FILTER (WHERE seq) AS seq_timed FROM queries \gset
\echo == one method at a time: build, time (a warm-up round choosing the queries, :rounds rounds, one EXPLAIN ANALYZE round; about :budget s per method and k once 10 queries are chosen), drop
SELECT ' (1, 5, 15 min; this machine has ' || :'nproc' || ' cores)' AS load_note \gset
\ir phases.sql
\echo 'timed: with enable_seqscan = off, so each index method is measured through its index;'
\echo 'planner: the plan chosen with default settings, shown where it differs, with both estimated costs.'
SELECT * FROM pg_temp.plans_report('the index plan');
\pset format unaligned
\pset tuples_only on
SELECT format('WARNING: by default the planner does not use the index of %s at k = %s: it estimates %s at %s, the index plan at %s',
              m.label, p.k, pg_temp.shape(p.chosen), round((p.chosen->>'Total Cost')::numeric, 1),
              round((p.timed->>'Total Cost')::numeric, 1))
  FROM plans p JOIN method m USING (ord)
 WHERE m.kind <> 'seq' AND pg_temp.shape(p.chosen) IS DISTINCT FROM pg_temp.shape(p.timed)
 ORDER BY p.k, p.ord;
\pset format aligned
\pset tuples_only off

-- Per query: the median of its rounds, and whether every round's answer
-- equals the exact one
CREATE TABLE perq AS
SELECT t.ord, t.k, t.qid, q.kind,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY t.ms) AS ms,
       count(*) FILTER (WHERE t.ids IS DISTINCT FROM tr.ids) AS wrong,
       max(cardinality(tr.ids)) AS answers
  FROM times t JOIN truth tr USING (qid, k) JOIN queries q USING (qid)
 GROUP BY t.ord, t.k, t.qid, q.kind;
CREATE TABLE lat AS
SELECT ord, k, count(*) AS n,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS median,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) AS p95,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE kind = 'centre') AS median_centre,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE kind = 'random') AS median_random,
       avg(answers) AS answers,
       sum(wrong) AS wrong,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY e.ms) FROM exec_times e
         WHERE e.ord = perq.ord AND e.k = perq.k) AS exec_median,
       (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY e.ms) FROM exec_times e
         WHERE e.ord = perq.ord AND e.k = perq.k) AS exec_p95
  FROM perq GROUP BY ord, k;
CREATE TABLE ref AS
SELECT l.k,
       (SELECT median FROM lat s JOIN method m USING (ord) WHERE m.kind = 'seq' AND s.k = l.k) AS seq,
       (SELECT min(median) FROM lat s JOIN method m USING (ord) WHERE m.kind = 'stock' AND s.k = l.k) AS stock,
       (SELECT min(exec_median) FROM lat s JOIN method m USING (ord) WHERE m.kind = 'stock' AND s.k = l.k) AS stock_exec
  FROM (SELECT DISTINCT k FROM lat) l;

\echo
\echo ==================== Radius search latency (ms per query: parse + plan + execute, in the server)
\echo 'per query the median of' :rounds 'rounds; then median and p95 over the queries.'
\echo 'x seq / x stock: how many times faster than the sequential scan / the best stock recipe at that k.'
\echo 'queries: how many were timed (the seq scan on the' :seq_timed 'seq-scan queries; a method takes'
\echo 'queries until its warm-up round has spent its share of' :budget 's at one k and run at least 10).'
\echo 'exec: the executor time alone, EXPLAIN (ANALYZE, TIMING OFF) once per query, median and p95.'
SELECT m.label AS method, l.k, l.n AS queries,
       round(l.median::numeric, 3) AS "median ms",
       round(l.p95::numeric, 3) AS "p95 ms",
       round(l.exec_median::numeric, 3) AS "exec median ms",
       round(l.exec_p95::numeric, 3) AS "exec p95 ms",
       round(l.median_centre::numeric, 3) AS "centres ms",
       round(l.median_random::numeric, 3) AS "random ms",
       round(l.answers::numeric, 2) AS "avg rows",
       round((r.seq / l.median)::numeric, 1) AS "x seq",
       round((r.stock / l.median)::numeric, 2) AS "x stock",
       round((r.stock_exec / l.exec_median)::numeric, 2) AS "exec x stock",
       l.wrong AS mismatches
  FROM lat l JOIN method m USING (ord) JOIN ref r USING (k)
 ORDER BY l.k, m.ord;
SELECT format('answer sets checked against the brute-force join: %s runs, %s mismatches',
              count(*), count(*) FILTER (WHERE t.ids IS DISTINCT FROM tr.ids)) AS verification
  FROM times t JOIN truth tr USING (qid, k);

\echo
\echo ==================== Where the time goes: EXPLAIN ANALYZE BUFFERS, average over the :seq_timed seq-scan queries
\echo 'buffers: shared blocks touched by the execution; heap rows rejected: candidates fetched from'
\echo 'the heap and thrown away by the recheck or filter.'
SELECT m.label AS method, a.k,
       round(avg((e->>'Planning Time')::numeric), 3) AS "plan ms",
       round(avg((e->>'Execution Time')::numeric), 3) AS "exec ms",
       round(avg((e->'Plan'->>'Shared Hit Blocks')::numeric + (e->'Plan'->>'Shared Read Blocks')::numeric), 1) AS buffers,
       round(avg((SELECT coalesce(sum(v::numeric), 0) FROM jsonb_path_query(e, 'strict $.**."Rows Removed by Index Recheck"') v)
               + (SELECT coalesce(sum(v::numeric), 0) FROM jsonb_path_query(e, 'strict $.**."Rows Removed by Filter"') v)), 1)
           AS "heap rows rejected",
       round(avg((SELECT coalesce(sum(v::numeric), 0) FROM jsonb_path_query(e, 'strict $.**."Exact Heap Blocks"') v)), 1)
           AS "heap blocks",
       round(avg((SELECT coalesce(sum(v::numeric), 0) FROM jsonb_path_query(e, 'strict $.**."Lossy Heap Blocks"') v)), 1)
           AS "lossy heap blocks"
  FROM anatomy a JOIN method m USING (ord)
 GROUP BY m.ord, m.label, a.k
 ORDER BY a.k, m.ord;

SELECT q AS centre FROM queries WHERE kind = 'centre' ORDER BY qid LIMIT 1 \gset
\echo
\echo ==================== EXPLAIN (ANALYZE, BUFFERS): planted centre :centre '(enable_seqscan = off)'
\pset format unaligned
\pset tuples_only on
SELECT CASE WHEN e.n = 1 THEN format(E'-- %s, k = %s\n', m.label, e.k) ELSE '' END || e.line
  FROM explain_text e JOIN method m USING (ord)
 ORDER BY e.ord, e.k, e.n;
\pset format aligned
\pset tuples_only off

\echo
\echo ==================== Nearest neighbours (n = 10; ms per query, median of the rounds, then median and p95 over the queries)
\echo 'GiST: ORDER BY fp <-> q LIMIT 10; GIN: simhash_nearest (radius searches 0, 1, 2, 4, ..., then a sequential scan).'
\echo 'Answers are checked as sorted distance lists against a full sort.'
SELECT m.label AS method, q.kind AS queries, count(*) AS n,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t.ms)::numeric, 3) AS "median ms",
       round(percentile_cont(0.95) WITHIN GROUP (ORDER BY t.ms)::numeric, 3) AS "p95 ms",
       round(avg(t.dists[10])::numeric, 1) AS "avg 10th distance",
       sum(t.wrong) AS mismatches
  FROM (SELECT kt.ord, kt.qid, percentile_cont(0.5) WITHIN GROUP (ORDER BY kt.ms) AS ms,
               max(kt.dists) AS dists, count(*) FILTER (WHERE kt.dists IS DISTINCT FROM tr.dists) AS wrong
          FROM knn_times kt JOIN knn_truth tr USING (qid) GROUP BY kt.ord, kt.qid) t
  JOIN method m USING (ord) JOIN knn_queries q USING (qid)
 GROUP BY m.ord, m.label, q.kind ORDER BY q.kind, m.ord;

-- ------------------------------------------------------------------
-- Index builds and sizes
-- ------------------------------------------------------------------
\echo
\echo ==================== Index build (one core, maintenance_work_mem = 256MB) and size
SELECT m.label AS index,
       round(b.secs::numeric, 2) AS "build s",
       round(s.bytes / 1048576.0, 1) AS "size MB",
       round((b.secs / pb.secs)::numeric, 1) AS "build vs plain btree",
       round(s.bytes::numeric / ps.bytes, 2) AS "size vs plain btree",
       round(s.bytes::numeric / (SELECT count(*) FROM docs), 1) AS "bytes/row"
  FROM method m JOIN build b USING (ord) JOIN index_size s USING (ord)
 CROSS JOIN (SELECT secs FROM build JOIN method USING (ord) WHERE kind = 'reference') pb
 CROSS JOIN (SELECT bytes FROM index_size JOIN method USING (ord) WHERE kind = 'reference') ps
 ORDER BY m.kind = 'reference', m.ord;
SELECT format('(table heap: %s MB)', round(pg_relation_size('docs') / 1048576.0, 1)) AS note;

\echo
\echo ==================== Insert throughput: :inserts rows, one INSERT ... SELECT with the indexes of each method
\echo '(the table holds the' :rows 'rows + planted clusters; a CHECKPOINT before each; GIN pending lists flushed and counted;'
\echo 'the new rows are deleted and the table vacuumed after each method)'
SELECT CASE WHEN m.kind = 'seq' THEN 'no index' ELSE m.label END AS "indexes",
       round(i.secs::numeric, 2) AS "s",
       round(current_setting('bench.inserts')::numeric / i.secs::numeric) AS "rows/s",
       round((n.secs / i.secs)::numeric, 2) AS "vs no index"
  FROM method m JOIN ins i USING (ord)
 CROSS JOIN (SELECT secs FROM ins JOIN method USING (ord) WHERE kind = 'seq') n
 ORDER BY m.kind = 'reference', m.ord;
\echo
\echo ==================== GIN: fastupdate on (rows pending, then flushed) and off; k = 3 median over 20 centres
SELECT m.label AS index,
       round(current_setting('bench.inserts')::numeric / g.insert_on::numeric) AS "on: rows/s into the pending list",
       round(g.flush::numeric, 2) AS "flush s",
       round(current_setting('bench.inserts')::numeric / (g.insert_on + g.flush)::numeric) AS "on: rows/s with the flush",
       round(current_setting('bench.inserts')::numeric / g.insert_off::numeric) AS "off: rows/s",
       round(g.k3_pending::numeric, 3) AS "k=3 ms, rows pending",
       round(g.k3_flushed::numeric, 3) AS "k=3 ms, flushed"
  FROM method m JOIN ins_gin g USING (ord) ORDER BY m.ord;

-- ------------------------------------------------------------------
-- Summary and goals
-- ------------------------------------------------------------------
\echo
\echo ==================== Summary (:rows random rows + planted clusters, :queries queries, :rounds rounds)
SELECT m.label AS method,
       round(l3.median::numeric, 3) AS "k=3 median ms",
       round(l3.p95::numeric, 3) AS "k=3 p95 ms",
       round((r3.seq / l3.median)::numeric, 1) AS "k=3 x seq",
       round((r3.stock / l3.median)::numeric, 2) AS "k=3 x stock",
       round(l3.exec_median::numeric, 3) AS "k=3 exec ms",
       round(l8.median::numeric, 3) AS "k=8 median ms",
       round(l8.p95::numeric, 3) AS "k=8 p95 ms",
       round((r8.seq / l8.median)::numeric, 1) AS "k=8 x seq",
       round((r8.stock / l8.median)::numeric, 2) AS "k=8 x stock",
       round(l8.exec_median::numeric, 3) AS "k=8 exec ms",
       round(l11.median::numeric, 3) AS "k=11 median ms",
       round(l11.p95::numeric, 3) AS "k=11 p95 ms",
       round((r11.stock / l11.median)::numeric, 2) AS "k=11 x stock",
       round(s.bytes / 1048576.0, 1) AS "index MB",
       round(b.secs::numeric, 1) AS "build s",
       round(current_setting('bench.inserts')::numeric / i.secs::numeric) AS "insert rows/s",
       coalesce(l3.wrong, 0) + coalesce(l8.wrong, 0) + coalesce(l11.wrong, 0) AS mismatches
  FROM method m
  LEFT JOIN lat l3 ON l3.ord = m.ord AND l3.k = 3
  LEFT JOIN lat l8 ON l8.ord = m.ord AND l8.k = 8
  LEFT JOIN lat l11 ON l11.ord = m.ord AND l11.k = 11
  LEFT JOIN ref r3 ON r3.k = 3
  LEFT JOIN ref r8 ON r8.k = 8
  LEFT JOIN ref r11 ON r11.k = 11
  LEFT JOIN index_size s ON s.ord = m.ord
  LEFT JOIN build b ON b.ord = m.ord
  LEFT JOIN ins i ON i.ord = m.ord
 ORDER BY m.kind = 'reference', m.ord;

\echo
\pset format unaligned
\pset tuples_only on
-- The goals of the index work, against the stock GIN recipe (size, build,
-- k = 3) and the best stock recipe (k = 8); the speed goals are judged on
-- the executor time, the ratio of parse + plan + execute beside it.
SELECT format('goals for %s (against %s):', m.label, g.label) || E'\n' ||
       format('  index size <= 2.5x the stock GIN:                %sx  %s', round(s.bytes::numeric / gs.bytes, 2),
              CASE WHEN s.bytes <= 2.5 * gs.bytes THEN 'met' ELSE 'NOT met' END) || E'\n' ||
       format('  build time <= 2x the stock GIN:                  %sx  %s', round((b.secs / gb.secs)::numeric, 2),
              CASE WHEN b.secs <= 2 * gb.secs THEN 'met' ELSE 'NOT met' END) || E'\n' ||
       format('  k=3 executor >= 5x faster than the stock GIN:    %sx  %s  (parse + plan + execute: %sx)',
              round((g3.exec_median / l3.exec_median)::numeric, 2),
              CASE WHEN g3.exec_median >= 5 * l3.exec_median THEN 'met'
                   WHEN g3.exec_median >= 3 * l3.exec_median THEN 'NOT met (>= 3x)' ELSE 'NOT met' END,
              round((g3.median / l3.median)::numeric, 2)) || E'\n' ||
       format('  k=8 executor >= 10x faster than the best stock:  %sx  %s  (parse + plan + execute: %sx)',
              round((r8.stock_exec / l8.exec_median)::numeric, 2),
              CASE WHEN r8.stock_exec >= 10 * l8.exec_median THEN 'met' ELSE 'NOT met' END,
              round((r8.stock / l8.median)::numeric, 2)) || E'\n' ||
       format('  answers equal the exact ones:                    %s mismatches  %s',
              l3.wrong + l8.wrong + l11.wrong,
              CASE WHEN l3.wrong + l8.wrong + l11.wrong = 0 THEN 'met' ELSE 'NOT met' END)
  FROM method m
  JOIN method g ON g.name = 'gin_stock'
  JOIN lat l3 ON l3.ord = m.ord AND l3.k = 3
  JOIN lat l8 ON l8.ord = m.ord AND l8.k = 8
  JOIN lat l11 ON l11.ord = m.ord AND l11.k = 11
  JOIN lat g3 ON g3.ord = g.ord AND g3.k = 3
  JOIN ref r8 ON r8.k = 8
  JOIN index_size s ON s.ord = m.ord
  JOIN index_size gs ON gs.ord = g.ord
  JOIN build b ON b.ord = m.ord
  JOIN build gb ON gb.ord = g.ord
 WHERE m.kind = 'simhash'
 ORDER BY m.ord;
SELECT format('all methods: %s mismatches against the brute-force answers', sum(wrong)) FROM lat;
