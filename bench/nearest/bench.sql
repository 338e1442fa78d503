-- bench/nearest/bench.sql: the n nearest rows of a far query and of a
-- planted centre, three ways in the same run:
--   recipe  1.8's recipe, WHERE fp <-> q <= (SELECT simhash_nearest_radius(
--           'docs', 'fp', q, n)) ORDER BY fp <-> q LIMIT n: the outer
--           statement is planned before the radius is known
--   nearest simhash_nearest(NULL::docs, 'fp', q, n), what the README
--           recommends: radius searches up to the radius the index answers
--           quickly, then one sequential scan and a top-n sort
--   seqscan ORDER BY fp <-> q LIMIT n with no index usable: a sequential
--           scan and a top-n sort
--   seqscan_d  the same returning the distances only, not the rows: the
--           cheapest sequential scan (a top-n sort of narrower tuples)
-- Every form but seqscan_d returns the n nearest rows themselves (id, fp
-- and the distance), as simhash_nearest does.
-- psql variables :width (64, 128 or 256) :rows :queries (of each kind)
-- :rounds :n :opclass.  A database that has the tables already (run
-- --db) is used as it is.  One backend, no parallel workers, no JIT.  Each
-- round runs every query once, the three forms in turn (rotated), so that
-- the machine's load falls on all three alike; a form's time for a query
-- is its median over the rounds, and "paired" is the median over the
-- queries of the ratio of that form to the sequential scan of the same
-- query in the same rounds.
\pset footer off
\set ON_ERROR_STOP 1
\ir ../session.sql
CREATE EXTENSION IF NOT EXISTS simhash;

SELECT :width / 64 AS words, 'simhash' || CASE WHEN :width = 64 THEN '' ELSE :width::text END AS fptype,
       greatest(:rows / 1000, :queries) AS centres, :width / 8 AS kmax \gset
SET bench.fptype = :'fptype';

-- pg_temp.rbytes(i, s), :words random words as bytes, and pg_temp.flip(b,
-- seed, d), b with d bits flipped
\ir ../fingerprints.sql

SELECT to_regclass('docs') IS NULL AS load \gset
\if :load
\echo == :rows random :width-bit fingerprints and :centres centres with 12 variants each (1, 2, 3 bits, then up to :kmax)
CREATE TABLE docs (id bigint PRIMARY KEY, fp :fptype NOT NULL);
INSERT INTO docs SELECT i, CAST(pg_temp.rbytes(i, 42) AS :fptype) FROM generate_series(1, :rows) i;
INSERT INTO docs
SELECT :rows + c * 16 + v, CAST(pg_temp.flip(pg_temp.rbytes(c, 1000), c * 16 + v,
                                 CASE WHEN v <= 3 THEN v ELSE ceil((v - 3) * :kmax / 9.0)::int END) AS :fptype)
  FROM generate_series(1, :centres) c, generate_series(0, 12) v;
SELECT format('CREATE INDEX docs_fp ON docs USING gin (fp %s)', :'opclass') \gexec
VACUUM ANALYZE docs;
SELECT pg_size_pretty(pg_relation_size('docs')) AS heap, pg_size_pretty(pg_relation_size('docs_fp')) AS index,
       count(*) AS rows FROM docs;

CREATE TABLE queries (qid int PRIMARY KEY, kind text, q :fptype);
INSERT INTO queries SELECT i, 'centre', CAST(pg_temp.rbytes(1 + (i - 1) * (:centres / :queries), 1000) AS :fptype)
  FROM generate_series(1, :queries) i;
INSERT INTO queries SELECT 1000 + j, 'far', CAST(pg_temp.rbytes(j, 2000) AS :fptype)
  FROM generate_series(1, :queries) j;
\else
\echo == the tables of this database, as they are
\endif
DROP TABLE IF EXISTS forms, runs;

CREATE TABLE forms (form text PRIMARY KEY, sql text);
INSERT INTO forms VALUES
 ('recipe', 'SELECT array_agg(d ORDER BY d) FILTER (WHERE id IS NOT NULL AND fp IS NOT NULL) FROM (SELECT id, fp, fp <-> %1$s AS d FROM docs WHERE fp <-> %1$s <= (SELECT simhash_nearest_radius(''docs'', ''fp'', %1$s, %2$s)) ORDER BY fp <-> %1$s LIMIT %2$s) s'),
 ('nearest', 'SELECT array_agg(fp <-> %1$s ORDER BY fp <-> %1$s) FILTER (WHERE id IS NOT NULL) FROM simhash_nearest(NULL::docs, ''fp'', %1$s, %2$s) s'),
 ('seqscan', 'SELECT array_agg(d ORDER BY d) FILTER (WHERE id IS NOT NULL AND fp IS NOT NULL) FROM (SELECT id, fp, fp <-> %1$s AS d FROM docs ORDER BY fp <-> %1$s LIMIT %2$s) s'),
 ('seqscan_d', 'SELECT array_agg(d ORDER BY d) FROM (SELECT fp <-> %1$s AS d FROM docs ORDER BY fp <-> %1$s LIMIT %2$s) s');

-- one timed run: the form's statement with the query as a literal, as a
-- user would send it; the sequential scan with the index scans turned off
CREATE FUNCTION pg_temp.timed(f text, q text, n int, OUT ms float8, OUT answer int[]) LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz;
BEGIN
	IF f LIKE 'seqscan%' THEN
		SET LOCAL enable_bitmapscan = off;
		SET LOCAL enable_indexscan = off;
	END IF;
	t0 := clock_timestamp();
	EXECUTE format((SELECT sql FROM forms WHERE form = f), quote_literal(q) || '::' || current_setting('bench.fptype'), n) INTO answer;
	ms := 1000 * extract(epoch FROM clock_timestamp() - t0);
	IF f LIKE 'seqscan%' THEN
		SET LOCAL enable_bitmapscan = on;
		SET LOCAL enable_indexscan = on;
	END IF;
END $$;

CREATE TABLE runs (round int, qid int, form text, ms float8, answer int[]);
\echo == :rounds rounds of 2 x :queries queries, n = :n
DO $$
DECLARE
	r int; qq record; f text; t record; i int := 0;
	forms text[] := ARRAY['recipe', 'nearest', 'seqscan', 'seqscan_d'];
BEGIN
	FOR r IN 0 .. current_setting('bench.rounds')::int LOOP		-- round 0: warm-up
		FOR qq IN SELECT * FROM queries ORDER BY (qid % 1000), kind LOOP
			i := i + 1;
			FOR j IN 0 .. 3 LOOP
				f := forms[1 + (i + j) % 4];
				SELECT * INTO t FROM pg_temp.timed(f, qq.q::text, current_setting('bench.n')::int);
				INSERT INTO runs VALUES (r, qq.qid, f, t.ms, t.answer);
			END LOOP;
		END LOOP;
		RAISE NOTICE 'round % done', r;
	END LOOP;
END $$;

\echo == answers equal to those of the sequential scan (distances of the n nearest)
SELECT r.form, count(*) FILTER (WHERE r.answer IS DISTINCT FROM s.answer) AS mismatches, count(*) AS runs
  FROM runs r JOIN runs s ON s.round = r.round AND s.qid = r.qid AND s.form = 'seqscan'
 WHERE r.form <> 'seqscan' GROUP BY r.form ORDER BY r.form;
\echo == distance of the n-th nearest row, by kind
SELECT q.kind, min(s.answer[cardinality(s.answer)]) AS min, percentile_disc(0.5) WITHIN GROUP (ORDER BY s.answer[cardinality(s.answer)]) AS median,
       max(s.answer[cardinality(s.answer)]) AS max
  FROM runs s JOIN queries q USING (qid) WHERE s.form = 'seqscan' AND s.round = 1 GROUP BY q.kind ORDER BY q.kind;
\echo == median ms over the timed rounds per query; then the median over the queries, and the paired ratio to the sequential scan
WITH per AS (
	SELECT qid, form, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
	  FROM runs WHERE round > 0 GROUP BY qid, form
), paired AS (
	SELECT p.qid, p.form, p.ms, p.ms / s.ms AS ratio
	  FROM per p JOIN per s ON s.qid = p.qid AND s.form = 'seqscan'
)
SELECT q.kind, p.form, count(*) AS queries,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ms)::numeric, 2) AS "median ms",
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY p.ratio)::numeric, 3) AS "paired ratio to seqscan",
       round(max(p.ratio)::numeric, 3) AS "worst ratio"
  FROM paired p JOIN queries q USING (qid)
 GROUP BY q.kind, p.form ORDER BY q.kind, p.form;
