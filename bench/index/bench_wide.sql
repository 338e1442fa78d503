-- bench/index/bench_wide.sql: radius search and nearest neighbours on
-- simhash128 or simhash256 fingerprints (or simhash, with --wide) through
-- every GIN, GiST and mih class, against a sequential scan and a stock GIN
-- recipe.  Run by bench/index/run --width 128|256 in a throwaway cluster (its header
-- describes the data, the methods and the goals); psql variables :width
-- :rows :queries :seq_queries :check_queries :rounds :budget :knn_queries
-- :klist (radii, comma-separated) :methods.  The timing follows bench.sql:
-- one method's index at a time, a warm-up round choosing the queries
-- within the budget, then rounds in which each query runs in turn; here
-- every timed round is an EXPLAIN (ANALYZE, TIMING OFF), whose executor
-- time the tables and goals report.
\pset footer off
\set ON_ERROR_STOP 1

-- As in bench.sql: one backend, no parallel workers, no JIT, index builds
-- on one core, bitmaps kept exact; the extensions, the stage clock and the
-- shared functions
\ir common.sql

-- ------------------------------------------------------------------
-- Parameters derived from the width.  kmax: the largest radius asked for;
-- the planted variants spread over 1 .. kmax bits.
-- ------------------------------------------------------------------
SELECT :width / 64 AS words, :width / 16 AS segments,
       CASE :width WHEN 64 THEN 'simhash' ELSE 'simhash' || :width END AS fptype,
       (SELECT max(k::int) FROM unnest(string_to_array(:'klist', ',')) k) AS kmax,
       greatest(:rows / 500, (:queries + 1) / 2, 1) AS centres,
       :queries / 2 AS centre_queries,
       :queries - :queries / 2 AS random_queries \gset
CREATE TABLE klist AS SELECT DISTINCT k::int AS k FROM unnest(string_to_array(:'klist', ',')) k;

-- pg_temp.rbytes(i, s), :words random words as bytes, and pg_temp.flip(b,
-- seed, d), b with d bits flipped
\ir ../fingerprints.sql

-- ------------------------------------------------------------------
-- Data: :rows uniform random fingerprints, plus planted clusters: every
-- centre with 12 variants at 1, 2, 3 bits and at ceil(j * kmax / 9) bits,
-- j = 1 .. 9 (distinct random bit positions flipped).  fpb holds the same
-- bytes, for the stock recipe's segment expression.
-- ------------------------------------------------------------------
\echo == loading :rows random :width-bit fingerprints and :centres planted clusters (variants within 1 ..:kmax bits)
CREATE TABLE docs (id bigint NOT NULL, fp :fptype NOT NULL, fpb bytea NOT NULL);
INSERT INTO docs
SELECT i, CAST(b AS :fptype), b
  FROM generate_series(1, :rows) i, LATERAL (SELECT pg_temp.rbytes(i, 42) AS b) x;
CREATE TABLE variant AS
SELECT v, CASE WHEN v <= 3 THEN v ELSE ceil((v - 3) * :kmax / 9.0)::int END AS d
  FROM generate_series(0, 12) v;
INSERT INTO docs
SELECT :rows + c * 16 + s.v, CAST(x.b AS :fptype), x.b
  FROM generate_series(1, :centres) c
 CROSS JOIN variant s
 CROSS JOIN LATERAL (SELECT pg_temp.flip(pg_temp.rbytes(c, 1000), c * 16 + s.v, s.d) AS b OFFSET 0) x;
SELECT count(*) AS nrows FROM docs \gset
SELECT string_agg(d::text, ', ' ORDER BY v) AS planted FROM variant WHERE v > 0 \gset
\echo '   ' :nrows 'rows; variants of each centre at' :planted 'bits'
\ir ../took.sql

-- Queries: planted centres (spread over all centres), then random
-- fingerprints; pos numbers each kind, and the timing takes them in the
-- order of pos, the kinds alternating.  seq: the first :seq_queries (half
-- of each kind), also timed for the sequential scan; chk: the first
-- :check_queries, whose answers are computed by brute force.
CREATE TABLE queries (qid int PRIMARY KEY, kind text NOT NULL, q :fptype NOT NULL, qb bytea NOT NULL,
                      seq boolean NOT NULL, chk boolean NOT NULL, pos int NOT NULL);
INSERT INTO queries
SELECT i, 'centre', CAST(pg_temp.rbytes(c, 1000) AS :fptype), pg_temp.rbytes(c, 1000),
       i <= :seq_queries / 2, i <= :check_queries / 2, i
  FROM generate_series(1, :centre_queries) i,
       LATERAL (SELECT 1 + ((i - 1)::bigint * :centres) / :centre_queries AS c) x;
INSERT INTO queries
SELECT :centre_queries + j, 'random', CAST(pg_temp.rbytes(j, 2000) AS :fptype), pg_temp.rbytes(j, 2000),
       j <= :seq_queries - :seq_queries / 2, j <= :check_queries - :check_queries / 2, j
  FROM generate_series(1, :random_queries) j;

-- What the stock recipe sends per query and k: the pigeonhole radii of
-- the :segments segments, as the wide GIN class chooses them
-- (simhash_segment_radii in src/simhash.h: the k + 1 units of
-- sum(r_i + 1) spread evenly, the larger shares first; a pair within k
-- differs by at most r_i bits in some segment i), and every tagged key
-- (i << 16) | (segment i of q, r_i or fewer bits flipped).  Segment i is
-- bytes 2i and 2i + 1 of the bytea form, as in the GIN class.
CREATE TABLE masks AS
SELECT m, bit_count(m::bit(16)) AS bits FROM generate_series(0, 65535) m;
CREATE TABLE seg_radius AS
SELECT k, i, least(16, (k + 1) / :segments + CASE WHEN i < (k + 1) % :segments THEN 1 ELSE 0 END - 1) AS r
  FROM klist, generate_series(0, :segments - 1) i;
CREATE TABLE qk AS
SELECT q.qid, r.k,
       array_agg(((r.i << 16) | (((get_byte(q.qb, 2 * r.i) << 8) | get_byte(q.qb, 2 * r.i + 1)) # m.m))::int4) AS keys
  FROM queries q CROSS JOIN seg_radius r JOIN masks m ON m.bits <= r.r
 GROUP BY q.qid, r.k;
SELECT string_agg(format('k=%s: %s keys (radii %s)', k, n, radii), '; ' ORDER BY k) AS keyinfo
  FROM (SELECT k, sum(CASE WHEN r >= 0 THEN (SELECT count(*) FROM masks WHERE bits <= r) ELSE 0 END) AS n,
               string_agg(r::text, ',' ORDER BY i) AS radii
          FROM seg_radius GROUP BY k) s \gset
\echo '    stock GIN query keys per query:' :keyinfo

-- ------------------------------------------------------------------
-- Methods, one row each; another GIN class is one more row (--methods
-- gin:<opclass>).  One method at a time: its index is built, timed and
-- dropped before the next one's is built.
--   ddl:   the index, %1$s = its name
--   cond:  WHERE clause, %1$s = k; $1 the query fingerprint, $2 the
--          stock recipe's key array for this k (int4[])
--   knn:   the nearest-neighbour statement timed with this method, if any
-- The seq scan runs with index and bitmap scans off, every index method
-- with enable_seqscan = off, so that each is measured through its index.
-- ------------------------------------------------------------------
SELECT 'ARRAY[' || string_agg(format('(%s | (get_byte(fpb, %s) << 8) | get_byte(fpb, %s))',
                                     i << 16, 2 * i, 2 * i + 1), ', ' ORDER BY i) || ']' AS gexpr
  FROM generate_series(0, :segments - 1) i \gset
SELECT coalesce((SELECT c.opcname FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
                  WHERE a.amname = am AND c.opcdefault AND c.opcintype = :'fptype'::regtype), '') AS default_gin
  FROM (VALUES ('gin')) v(am) \gset
SELECT coalesce((SELECT c.opcname FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
                  WHERE a.amname = am AND c.opcdefault AND c.opcintype = :'fptype'::regtype), '') AS default_gist
  FROM (VALUES ('gist')) v(am) \gset
\set knn_sql 'SELECT array_agg(d ORDER BY d) FROM (SELECT (fp <-> $1)::int AS d FROM docs ORDER BY fp <-> $1 LIMIT 10) s'
CREATE TABLE method (
	ord     int PRIMARY KEY,
	label   text NOT NULL,
	kind    text NOT NULL CHECK (kind IN ('seq', 'stock', 'simhash')),
	name    text NOT NULL UNIQUE,
	am      text,
	opclass text,			-- inactive when no such class of this type exists
	ddl     text,
	cond    text NOT NULL,
	knn     text,
	active  boolean NOT NULL DEFAULT true,
	why     text
);
INSERT INTO method (ord, label, kind, name, am, opclass, ddl, cond, knn) VALUES
(1, 'seq scan', 'seq', 'seq', NULL, NULL, NULL, 'fp <-> $1 <= %1$s', :'knn_sql'),
(2, 'GIN int4[] (&&)', 'stock', 'gin_stock', 'gin', NULL,
 'CREATE INDEX %1$s ON docs USING gin ((' || :'gexpr' || '))',
 :'gexpr' || ' && $2 AND fp <-> $1 <= %1$s', NULL),
(3, 'GIN default (' || coalesce(nullif(:'default_gin', ''), 'none') || ')', 'simhash', 'gin', 'gin',
 nullif(:'default_gin', ''), 'CREATE INDEX %1$s ON docs USING gin (fp)', 'fp <-> $1 <= %1$s', NULL),
(4, 'GiST default (' || coalesce(nullif(:'default_gist', ''), 'none') || ')', 'simhash', 'gist', 'gist',
 nullif(:'default_gist', ''), 'CREATE INDEX %1$s ON docs USING gist (fp)', 'fp <-> $1 <= %1$s', :'knn_sql'),
(5, 'GIN word keys (simhash' || :width || '_gin_word_ops)', 'simhash', 'gin_word', 'gin',
 'simhash' || :width || '_gin_word_ops',
 'CREATE INDEX %1$s ON docs USING gin (fp simhash' || :width || '_gin_word_ops)', 'fp <-> $1 <= %1$s', NULL),
(6, 'mih (' || :'fptype' || '_mih_ops)', 'simhash', 'mih', 'mih', :'fptype' || '_mih_ops',
 'CREATE INDEX %1$s ON docs USING mih (fp)', 'fp <-> $1 <= %1$s', :'knn_sql'),
-- the same index again, its nearest neighbours timed through simhash_nearest
(7, 'mih, simhash_nearest', 'simhash', 'mih_nearest', 'mih', :'fptype' || '_mih_ops',
 'CREATE INDEX %1$s ON docs USING mih (fp)', 'fp <-> $1 <= %1$s', NULL);
UPDATE method SET active = false, why = format('no default %s class for %s', am, :'fptype')
 WHERE kind = 'simhash' AND opclass IS NULL;
-- --methods gin:<opclass>: a GIN index with that class
INSERT INTO method (ord, label, kind, name, am, opclass, ddl, cond)
SELECT 10 + n, 'GIN ' || c || ' (' || e || ')', 'simhash', e, 'gin', c,
       format('CREATE INDEX %%1$s ON docs USING gin (fp %s)', quote_ident(c)), 'fp <-> $1 <= %1$s'
  FROM unnest(string_to_array(:'methods', ',')) WITH ORDINALITY u(e, n),
       LATERAL (SELECT substr(e, 5) AS c) x
 WHERE e LIKE 'gin:%';
UPDATE method m SET active = false, why = format('no %s operator class %s for %s', am, opclass, :'fptype')
 WHERE m.opclass IS NOT NULL AND NOT EXISTS (
	SELECT FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
	 WHERE c.opcname = m.opclass AND a.amname = m.am AND c.opcintype = :'fptype'::regtype);
UPDATE method SET active = false, why = 'not in --methods'
 WHERE active AND :'methods' <> 'all' AND kind <> 'seq'
   AND NOT name = ANY (string_to_array(:'methods', ','));
-- Nearest neighbours through GIN: simhash_nearest (1.7), the rows of radius
-- searches 0, 1, 2, 4, ... and then of a sequential scan
SELECT to_regprocedure(format('simhash_nearest(anyelement, name, %s, integer)', :'fptype')) IS NOT NULL
       AS nearest_rows \gset
\if :nearest_rows
UPDATE method SET knn =
	'SELECT array_agg(d ORDER BY d) FROM (SELECT (fp <-> $1)::int AS d'
	' FROM simhash_nearest(NULL::docs, ''fp'', $1, 10)) s'
 WHERE name IN ('gin', 'gin_word', 'mih_nearest');
\else
\echo note: simhash_nearest skipped: this version has no simhash_nearest for :fptype
\endif
\ir skipped.sql

-- The statements: one per method and k, all returning the sorted ids
CREATE TABLE stmt AS
SELECT m.ord, k.k, 'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM docs WHERE '
                   || format(m.cond, k.k) AS sql
  FROM method m, klist k;

VACUUM (ANALYZE) docs;
ANALYZE queries, qk;
CHECKPOINT;
\ir ../took.sql

-- ------------------------------------------------------------------
-- The exact answers of the chk queries, before any index exists: a
-- brute-force join, and for nearest neighbours a full sort per query
-- ------------------------------------------------------------------
SELECT count(*) AS nchk FROM queries WHERE chk \gset
\echo == computing the exact answers of :nchk queries by brute force (each against every row)
CREATE TABLE pairs AS
SELECT q.qid, d.id, (d.fp <-> q.q)::integer AS dist
  FROM queries q JOIN docs d ON (d.fp <-> q.q)::integer <= :kmax
 WHERE q.chk;
CREATE TABLE truth AS
SELECT q.qid, k.k,
       coalesce((SELECT array_agg(p.id ORDER BY p.id) FROM pairs p
                  WHERE p.qid = q.qid AND p.dist <= k.k), '{}') AS ids
  FROM queries q, klist k WHERE q.chk;
CREATE TABLE knn_queries AS
SELECT qid, kind, q, pos FROM queries
 WHERE pos <= CASE kind WHEN 'centre' THEN :knn_queries / 2 ELSE :knn_queries - :knn_queries / 2 END;
CREATE TABLE knn_truth AS
SELECT qid, pg_temp.knn_dists(q) AS dists
  FROM knn_queries WHERE qid IN (SELECT qid FROM queries WHERE chk);
\ir ../took.sql

-- ------------------------------------------------------------------
-- One phase per method, each in its own transaction
-- ------------------------------------------------------------------
CREATE TABLE build (ord int PRIMARY KEY, secs float8);
CREATE TABLE index_size (ord int PRIMARY KEY, bytes bigint);
CREATE TABLE plans (ord int, k int, chosen jsonb, timed jsonb);
CREATE TABLE answers (ord int, k int, qid int, ids bigint[]);
CREATE TABLE times (ord int, k int, qid int, round int, ms float8, cand float8);
CREATE TABLE knn_answers (ord int, qid int, dists int[]);
CREATE TABLE knn_times (ord int, qid int, round int, ms float8);
-- the seq scan's time of the same query, run right after it in the same
-- round: the "worst" ratio compares times taken under the same load
CREATE TABLE knn_paired (ord int, qid int, round int, ms float8);

-- EXPLAIN of a statement with a query's parameters
CREATE FUNCTION pg_temp.explain(opts text, sql text, q anyelement, keys int4[]) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE j jsonb;
BEGIN
	EXECUTE 'EXPLAIN (' || opts || 'FORMAT JSON) ' || sql INTO j USING q, keys;
	RETURN j->0;
END
$$;
-- A statement of stmt with a query's parameters: its ids (common.sql)
CREATE FUNCTION pg_temp.run(sql text, x record, OUT ids bigint[]) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE sql INTO ids USING x.q, x.keys;
END
$$;
-- Candidates: the heap rows whose fingerprint the execution compared with
-- the query (the rows a heap scan returned, plus those its recheck or
-- filter threw away)
CREATE FUNCTION pg_temp.candidates(p jsonb) RETURNS float8 LANGUAGE sql AS $$
	SELECT coalesce(sum(coalesce((n->>'Actual Rows')::float8, 0)
	                    + coalesce((n->>'Rows Removed by Index Recheck')::float8, 0)
	                    + coalesce((n->>'Rows Removed by Filter')::float8, 0)), 0)
	  FROM jsonb_path_query(p, 'strict $.** ? (exists (@."Node Type"))') n
	 WHERE n->>'Node Type' IN ('Seq Scan', 'Bitmap Heap Scan', 'Index Scan', 'Index Only Scan')
$$;

-- The phase of method mo: build and size its index, warm the caches, take
-- the plans, time the radius queries and nearest neighbours, drop the
-- index.  Returns a line for the log.
CREATE FUNCTION pg_temp.phase(mo int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	m method;
	s record;
	x record;
	e jsonb;
	t0 timestamptz;
	dists int[];
	idx regclass[];
	rounds integer := current_setting('bench.rounds')::integer;
	budget float8 := current_setting('bench.budget')::float8;
	spent float8;
	done integer;
	total integer;
	chosen integer[];
	timed text := '';
	saved text[];
	seq_knn text := (SELECT knn FROM method WHERE kind = 'seq');
BEGIN
	SELECT * INTO m FROM method WHERE ord = mo;

	IF m.ddl IS NOT NULL THEN
		t0 := clock_timestamp();
		EXECUTE format(m.ddl, 'docs_' || regexp_replace(m.name, '[^a-z0-9_]', '_', 'g'));
		INSERT INTO build VALUES (mo, extract(epoch FROM clock_timestamp() - t0));
	END IF;
	idx := ARRAY(SELECT indexrelid FROM pg_index WHERE indrelid = 'docs'::regclass);
	INSERT INTO index_size SELECT mo, sum(pg_relation_size(u)) FROM unnest(idx) u WHERE cardinality(idx) > 0;
	ANALYZE docs;					-- statistics of the stock index expression
	PERFORM pg_prewarm('docs');
	PERFORM pg_prewarm(u) FROM unnest(idx) u;

	-- plans for one planted centre at each k: the planner's own choice,
	-- then the one timed
	FOR s IN SELECT * FROM stmt WHERE ord = mo ORDER BY k LOOP
		SELECT * INTO x FROM queries JOIN qk USING (qid)
		 WHERE kind = 'centre' AND qk.k = s.k ORDER BY qid LIMIT 1;
		INSERT INTO plans VALUES (mo, s.k, pg_temp.explain('', s.sql, x.q, x.keys)->'Plan');
	END LOOP;
	IF m.kind = 'seq' THEN
		PERFORM set_config('enable_indexscan', 'off', true);
		PERFORM set_config('enable_bitmapscan', 'off', true);
	ELSE
		PERFORM set_config('enable_seqscan', 'off', true);
	END IF;
	FOR s IN SELECT * FROM stmt WHERE ord = mo ORDER BY k LOOP
		SELECT * INTO x FROM queries JOIN qk USING (qid)
		 WHERE kind = 'centre' AND qk.k = s.k ORDER BY qid LIMIT 1;
		UPDATE plans SET timed = pg_temp.explain('', s.sql, x.q, x.keys)->'Plan' WHERE ord = mo AND k = s.k;
	END LOOP;

	-- radius search, per k.  Round 0 warms up, keeps the answers (checked
	-- later against the brute-force ones) and chooses the queries: taken
	-- in turn, centres and random ones alternating, until the method has
	-- spent budget / (rounds + 2) and run at least 10 (the seq scan: the
	-- seq queries only).  Rounds 1 .. rounds run the chosen queries in
	-- turn under EXPLAIN (ANALYZE, TIMING OFF): the executor time, without
	-- parse and plan, and the candidates.  Between two runs of a query
	-- the others run, so it does not find its pages in the CPU caches.
	FOR s IN SELECT * FROM stmt WHERE ord = mo ORDER BY k LOOP
		SELECT * INTO done, total, spent
		  FROM pg_temp.warm_up(s.sql, s.k, m.kind = 'seq', budget / (rounds + 2));
		INSERT INTO answers SELECT mo, s.k, w.qid, w.ids FROM warm w;
		chosen := ARRAY(SELECT qid FROM warm);
		t0 := clock_timestamp();
		FOR r IN 1 .. rounds LOOP
			FOR x IN SELECT * FROM queries JOIN qk USING (qid)
			          WHERE qk.k = s.k AND qid = ANY (chosen)
			          ORDER BY pos, kind LOOP
				e := pg_temp.explain('ANALYZE, TIMING OFF, ', s.sql, x.q, x.keys);
				INSERT INTO times
				VALUES (mo, s.k, x.qid, r, (e->>'Execution Time')::float8, pg_temp.candidates(e->'Plan'));
			END LOOP;
		END LOOP;
		-- round 0 and the timed rounds
		timed := timed || format(' k=%s: %s of %s queries in %s s;', s.k, done, total,
		                         round((spent + extract(epoch FROM clock_timestamp() - t0))::numeric, 1));
	END LOOP;

	-- nearest neighbours (n = 10).  The seq scan chooses the queries as
	-- above (budget / (rounds + 1), at least 10); every index method then
	-- runs those same queries, so that each query has its seq-scan time.
	IF m.knn IS NOT NULL THEN
		-- simhash_nearest plans each of its searches for its own
		-- radius, its last one (the whole width) as a sequential scan:
		-- with the planner's defaults, as a user would run it
		IF m.knn LIKE '%simhash_nearest%' THEN
			PERFORM set_config('enable_seqscan', 'on', true);
		END IF;
		spent := 0;
		done := 0;
		IF m.kind = 'seq' THEN
			SELECT w.done, w.spent INTO done, spent FROM pg_temp.warm_up(m.knn, NULL, false, budget / (rounds + 1)) w;
			INSERT INTO knn_answers SELECT mo, w.qid, w.ids FROM warm w;
			chosen := ARRAY(SELECT qid FROM warm);
		ELSE
			chosen := ARRAY(SELECT a.qid FROM knn_answers a JOIN method b USING (ord) WHERE b.kind = 'seq');
			IF cardinality(chosen) = 0 THEN
				chosen := ARRAY(SELECT qid FROM knn_queries);
			END IF;
			t0 := clock_timestamp();
			FOR x IN SELECT * FROM knn_queries WHERE qid = ANY (chosen) ORDER BY pos, kind LOOP
				EXECUTE m.knn INTO dists USING x.q;
				INSERT INTO knn_answers VALUES (mo, x.qid, dists);
				done := done + 1;
			END LOOP;
			spent := extract(epoch FROM clock_timestamp() - t0);
		END IF;
		t0 := clock_timestamp();
		FOR r IN 1 .. rounds LOOP
			FOR x IN SELECT * FROM knn_queries WHERE qid = ANY (chosen) ORDER BY pos, kind LOOP
				e := pg_temp.explain('ANALYZE, TIMING OFF, ', m.knn, x.q, NULL::int4[]);
				INSERT INTO knn_times VALUES (mo, x.qid, r, (e->>'Execution Time')::float8);
				-- the seq scan's statement, with the index scans off (GiST
				-- would answer its ORDER BY), settings restored; for the
				-- seq scan itself, its second run: the noise of the machine
				BEGIN
					saved := ARRAY[current_setting('enable_seqscan'), current_setting('enable_indexscan'),
					               current_setting('enable_bitmapscan')];
					PERFORM set_config('enable_seqscan', 'on', true);
					PERFORM set_config('enable_indexscan', 'off', true);
					PERFORM set_config('enable_bitmapscan', 'off', true);
					e := pg_temp.explain('ANALYZE, TIMING OFF, ', seq_knn, x.q, NULL::int4[]);
					INSERT INTO knn_paired VALUES (mo, x.qid, r, (e->>'Execution Time')::float8);
					PERFORM set_config('enable_seqscan', saved[1], true);
					PERFORM set_config('enable_indexscan', saved[2], true);
					PERFORM set_config('enable_bitmapscan', saved[3], true);
				END;
			END LOOP;
		END LOOP;
		timed := timed || format(' nearest: %s queries in %s s;', done,
		                         round((spent + extract(epoch FROM clock_timestamp() - t0))::numeric, 1));
	END IF;

	RETURN pg_temp.phase_end(mo, m.label, idx, timed);
END
$$;

\echo == one method at a time: build, warm up (a round choosing the queries), :rounds timed rounds, drop
\set load_note ''
\ir phases.sql
\echo 'timed: the seq scan with index scans off, every index method with enable_seqscan = off;'
\echo 'planner: the plan chosen with default settings, where it differs.'
SELECT * FROM pg_temp.plans_report('the timed plan');

-- Per query: the median of its rounds
CREATE TABLE perq AS
SELECT t.ord, t.k, t.qid, q.kind,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY t.ms) AS ms,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY t.cand) AS cand
  FROM times t JOIN queries q USING (qid)
 GROUP BY t.ord, t.k, t.qid, q.kind;
CREATE TABLE lat AS
SELECT p.ord, p.k, count(*) AS n,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY p.ms) AS p95,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms) FILTER (WHERE p.kind = 'centre') AS p50_centre,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms) FILTER (WHERE p.kind = 'random') AS p50_random,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY p.cand) AS cand,
       (SELECT avg(cardinality(a.ids)) FROM answers a WHERE a.ord = p.ord AND a.k = p.k) AS answers,
       (SELECT count(*) FROM answers a JOIN truth t USING (qid, k) WHERE a.ord = p.ord AND a.k = p.k) AS checked,
       (SELECT count(*) FILTER (WHERE a.ids IS DISTINCT FROM t.ids) FROM answers a JOIN truth t USING (qid, k)
         WHERE a.ord = p.ord AND a.k = p.k) AS wrong
  FROM perq p GROUP BY p.ord, p.k;
CREATE TABLE ref AS
SELECT l.k, l.p50 AS seq FROM lat l JOIN method m USING (ord) WHERE m.kind = 'seq';

\echo
\echo ==================== Radius search fp <-> q <= k, :width bits (executor ms per query: EXPLAIN (ANALYZE, TIMING OFF))
\echo 'per query the median of' :rounds 'rounds; then p50 and p95 over the queries (the seq scan: the seq-scan queries).'
\echo 'candidates: heap rows compared with the query (median over the queries); x seq: seq-scan p50 / this p50.'
\echo 'checked: answers (from the warm-up round) compared with the brute-force ones; mismatches must be 0.'
SELECT m.label AS method, l.k, l.n AS queries,
       round(l.p50::numeric, 3) AS "p50 ms",
       round(l.p95::numeric, 3) AS "p95 ms",
       round(l.p50_centre::numeric, 3) AS "centres p50",
       round(l.p50_random::numeric, 3) AS "random p50",
       round(l.cand::numeric) AS "candidates",
       round(l.answers::numeric, 2) AS "avg rows",
       round((r.seq / l.p50)::numeric, 1) AS "x seq",
       l.checked, l.wrong AS mismatches
  FROM lat l JOIN method m USING (ord) LEFT JOIN ref r USING (k)
 ORDER BY l.k, m.ord;

\echo
\echo ==================== Index build (one core, maintenance_work_mem = 256MB) and size
SELECT m.label AS index,
       round(b.secs::numeric, 2) AS "build s",
       round((b.secs / (SELECT secs FROM build JOIN method USING (ord) WHERE name = 'gin_stock'))::numeric, 2)
           AS "build vs gin_stock",
       round(s.bytes / 1048576.0, 1) AS "size MB",
       round(s.bytes::numeric / :nrows, 1) AS "bytes/row"
  FROM method m JOIN build b USING (ord) JOIN index_size s USING (ord)
 ORDER BY m.ord;
SELECT format('(table heap: %s MB, %s rows)', round(pg_relation_size('docs') / 1048576.0, 1), :nrows) AS note;

-- Nearest neighbours per query: the median of its rounds, its seq-scan
-- time, and whether its answer (sorted distances) is the exact one
CREATE TABLE knnq AS
SELECT t.ord, t.qid, q.kind, percentile_cont(0.5) WITHIN GROUP (ORDER BY t.ms) AS ms
  FROM knn_times t JOIN knn_queries q USING (qid)
 GROUP BY t.ord, t.qid, q.kind;
CREATE TABLE knn_lat AS
SELECT k.ord, k.kind, count(*) AS n,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY k.ms) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY k.ms) AS p95,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) AS seq_p50,
       (SELECT max(a.ms / b.ms)
          FROM knnq a
          JOIN (SELECT qid, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
                  FROM knn_paired WHERE ord = k.ord GROUP BY qid) b USING (qid)
         WHERE a.ord = k.ord AND a.kind = k.kind) AS worst,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY a.ms / b.ms)
          FROM knnq a
          JOIN (SELECT qid, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
                  FROM knn_paired WHERE ord = k.ord GROUP BY qid) b USING (qid)
         WHERE a.ord = k.ord AND a.kind = k.kind) AS paired_p50,
       (SELECT count(*) FROM knn_answers a JOIN knn_truth t USING (qid) JOIN knn_queries x USING (qid)
         WHERE a.ord = k.ord AND x.kind = k.kind) AS checked,
       (SELECT count(*) FILTER (WHERE a.dists IS DISTINCT FROM t.dists)
          FROM knn_answers a JOIN knn_truth t USING (qid) JOIN knn_queries x USING (qid)
         WHERE a.ord = k.ord AND x.kind = k.kind) AS wrong,
       (SELECT avg(a.dists[10]) FROM knn_answers a JOIN knn_queries x USING (qid)
         WHERE a.ord = k.ord AND x.kind = k.kind) AS tenth
  FROM knnq k
  JOIN knnq s ON s.qid = k.qid AND s.ord = (SELECT ord FROM method WHERE kind = 'seq')
 GROUP BY k.ord, k.kind;

\echo
\echo ==================== Nearest neighbours, n = 10: ORDER BY fp <-> q LIMIT 10 (executor ms per query)
\echo 'centre: a planted centre (it has near-duplicates); random: a random fingerprint (none).'
\echo 'x seq: seq-scan p50 / this p50 over the same queries.  Paired: each query is followed in its round by the'
\echo 'seq scan of the same query; "paired p50" and "worst" are the median and the largest (this time / that seq time)'
\echo 'over the queries (medians of the rounds); for the seq scan itself, its own second run: the noise of the machine.'
\echo 'Answers are checked as sorted distance lists against a full sort.'
SELECT m.label AS method, l.kind AS queries, l.n,
       round(l.p50::numeric, 3) AS "p50 ms",
       round(l.p95::numeric, 3) AS "p95 ms",
       round((l.seq_p50 / l.p50)::numeric, 1) AS "x seq",
       round(l.paired_p50::numeric, 3) AS "paired p50",
       round(l.worst::numeric, 3) AS "worst index/seq",
       round(l.tenth::numeric, 1) AS "avg 10th distance",
       l.checked, l.wrong AS mismatches
  FROM knn_lat l JOIN method m USING (ord)
 ORDER BY l.kind, m.ord;
\if :nearest_rows
\else
\echo 'simhash_nearest (GIN): skipped: this version has no simhash_nearest for' :fptype
\endif

-- ------------------------------------------------------------------
-- Goals
-- ------------------------------------------------------------------
-- The goals of the recommended index (mih): radius k = w/8,
-- 5w/32 and 3w/16 of width w (32, 40, 48 at 256 bits; 16, 20, 24 at 128;
-- 8, 10, 12 at 64) at least 30, 20 and 10 times the seq scan; at most 100
-- bytes a row; a build at most twice the stock GIN's; nearest neighbours
-- at least 10 times the seq scan for random queries (no near-duplicate:
-- the far case) and never slower than it for any query.  The other
-- methods' numbers are in the tables above.
CREATE TABLE goal (k int, factor int);
INSERT INTO goal VALUES (:width / 8, 30), (:width * 5 / 32, 20), (:width * 3 / 16, 10);
\echo
\echo ==================== Goals of the recommended index (:width bits, :nrows rows; executor p50 against the seq scan in this run)
\pset format unaligned
\pset tuples_only on
SELECT format('goals for %s:', m.label) || E'\n' ||
       coalesce((SELECT string_agg(format('  %-40s %sx  %s', format('k=%s: >= %sx seq', g.k, g.factor),
                                          round((r.seq / l.p50)::numeric, 1),
                                          CASE WHEN r.seq >= g.factor * l.p50 THEN 'met' ELSE 'NOT met' END), E'\n' ORDER BY g.k)
                   FROM goal g JOIN lat l ON l.k = g.k AND l.ord = m.ord JOIN ref r ON r.k = g.k),
                '  (no radius of the goals was run: --k ' || (SELECT string_agg(k::text, ',' ORDER BY k) FROM goal) || ')') || E'\n' ||
       format('  %-40s %s  %s', '<= 100 bytes per row', round(s.bytes::numeric / :nrows, 1),
              CASE WHEN s.bytes <= 100 * :nrows THEN 'met' ELSE 'NOT met' END) || E'\n' ||
       CASE WHEN gb.secs IS NULL THEN format('  %-40s (gin_stock not run)', 'build <= 2x stock GIN')
            ELSE format('  %-40s %sx  %s', 'build <= 2x stock GIN', round((b.secs / gb.secs)::numeric, 2),
                        CASE WHEN b.secs <= 2 * gb.secs THEN 'met' ELSE 'NOT met' END) END || E'\n' ||
       format('  %-40s %s of %s  %s', 'answers equal the brute-force ones', sum(l.wrong), sum(l.checked),
              CASE WHEN sum(l.wrong) = 0 THEN 'met' ELSE 'NOT met' END)
  FROM method m
  JOIN lat l ON l.ord = m.ord
  JOIN index_size s ON s.ord = m.ord
  JOIN build b ON b.ord = m.ord
  LEFT JOIN (SELECT secs FROM build JOIN method USING (ord) WHERE name = 'gin_stock') gb ON true
 WHERE m.name = 'mih'
 GROUP BY m.ord, m.label, s.bytes, b.secs, gb.secs;
SELECT format('nearest neighbours through %s:', m.label) || E'\n' ||
       coalesce(format('  %-52s %sx  %s', '>= 10x seq for random queries (p50)',
                       round((c.seq_p50 / c.p50)::numeric, 1),
                       CASE WHEN c.seq_p50 >= 10 * c.p50 THEN 'met' ELSE 'NOT met' END),
                '  (no random queries timed)') || E'\n' ||
       format('  %-52s %s  %s (paired p50 %s; the seq scan against its own second run: worst %s)',
              'never slower than seq for any query (worst index/seq)',
              round(max(l.worst)::numeric, 3), CASE WHEN max(l.worst) <= 1 THEN 'met' ELSE 'NOT met' END,
              round(max(l.paired_p50)::numeric, 3),
              round((SELECT max(n.worst) FROM knn_lat n JOIN method USING (ord) WHERE method.kind = 'seq')::numeric, 3)) || E'\n' ||
       format('  %-52s %s of %s  %s', 'answers equal the exact ones', sum(l.wrong), sum(l.checked),
              CASE WHEN sum(l.wrong) = 0 THEN 'met' ELSE 'NOT met' END)
  FROM method m
  JOIN knn_lat l ON l.ord = m.ord
  LEFT JOIN knn_lat c ON c.ord = m.ord AND c.kind = 'random'
 WHERE m.name IN ('mih', 'mih_nearest')
 GROUP BY m.ord, m.label, c.seq_p50, c.p50
 ORDER BY m.ord;
SELECT format('all methods: %s answers checked against brute force, %s mismatches',
              (SELECT count(*) FROM answers a JOIN truth t USING (qid, k))
              + (SELECT count(*) FROM knn_answers a JOIN knn_truth t USING (qid)),
              (SELECT count(*) FILTER (WHERE a.ids IS DISTINCT FROM t.ids) FROM answers a JOIN truth t USING (qid, k))
              + (SELECT count(*) FILTER (WHERE a.dists IS DISTINCT FROM t.dists)
                   FROM knn_answers a JOIN knn_truth t USING (qid)));

-- --similar LIST: the % operator against the radius form (bench/index/similar.sql)
\if :{?similar}
\ir similar.sql
\endif
