-- bench/index/similar.sql: the similarity operator fp % q against the
-- radius form it stands for, fp <-> q <= k, in the same run, on the tables
-- of bench_wide.sql (\ir at its end when bench/index/run --similar LIST).
-- For each index method of LIST (names of the method table) and each k,
-- simhash.similarity_threshold is set to a value whose radius at this
-- width is exactly k (half-way between the similarities of k and k + 1
-- bits); every query then runs both forms, in alternating order, for
-- :rounds rounds under EXPLAIN (ANALYZE, TIMING OFF).  Reported: both
-- forms' plans (the planner's own and the timed one, which must name the
-- same index), whether their answers are equal (and equal the brute-force
-- ones where known), and the p50 of each with their ratio.
\echo
\pset format aligned
\pset tuples_only off
\echo ==================== The similarity operator fp % q against fp <-> q <= k (same index, same run)
CREATE TABLE sim_times (ord int, k int, qid int, round int, form text, ms float8);
CREATE TABLE sim_answers (ord int, k int, qid int, form text, ids bigint[]);
CREATE TABLE sim_plans (ord int, k int, form text, planner text, timed text);

-- The threshold whose radius at :width bits is k
CREATE FUNCTION pg_temp.threshold_of(k int, w int) RETURNS float8 LANGUAGE sql AS $$
	SELECT (cos(pi() * k / w) + cos(pi() * (k + 1) / w)) / 2
$$;

CREATE FUNCTION pg_temp.sim_phase(mo int, nq int, w int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	m method;
	kk int;
	x record;
	c record;
	e jsonb;
	forms text[];
	f text;
	sql text;
	ids bigint[];
	idx regclass[];
	t0 timestamptz := clock_timestamp();
	rounds integer := current_setting('bench.rounds')::integer;
BEGIN
	SELECT * INTO m FROM method WHERE ord = mo;
	EXECUTE format(m.ddl, 'docs_sim_' || m.name);
	idx := ARRAY(SELECT indexrelid FROM pg_index WHERE indrelid = 'docs'::regclass);
	ANALYZE docs;
	PERFORM pg_prewarm('docs');
	PERFORM pg_prewarm(u) FROM unnest(idx) u;
	FOR kk IN SELECT k FROM klist ORDER BY k LOOP
		PERFORM set_config('simhash.similarity_threshold', pg_temp.threshold_of(kk, w)::text, true);
		IF simhash_similarity_radius(w) <> kk THEN
			RAISE EXCEPTION 'threshold % gives radius %, not %', pg_temp.threshold_of(kk, w),
				simhash_similarity_radius(w), kk;
		END IF;
		-- the planner's plan of each form with default settings, then the
		-- timed one (sequential scans off, as for every index method)
		SELECT * INTO c FROM queries WHERE kind = 'centre' ORDER BY qid LIMIT 1;
		FOREACH f IN ARRAY ARRAY['%', '<->'] LOOP
			sql := 'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM docs WHERE '
				|| CASE f WHEN '%' THEN 'fp % $1' ELSE format('fp <-> $1 <= %s', kk) END;
			PERFORM set_config('enable_seqscan', 'on', true);
			EXECUTE 'EXPLAIN (FORMAT JSON) ' || sql INTO e USING c.q;
			INSERT INTO sim_plans VALUES (mo, kk, f, pg_temp.shape(e->0->'Plan'), NULL);
			PERFORM set_config('enable_seqscan', 'off', true);
			EXECUTE 'EXPLAIN (FORMAT JSON) ' || sql INTO e USING c.q;
			UPDATE sim_plans SET timed = pg_temp.shape(e->0->'Plan') WHERE ord = mo AND k = kk AND form = f;
			-- round 0: the answers of the queries timed
			FOR x IN SELECT * FROM queries WHERE pos <= nq / 2 ORDER BY pos, kind LOOP
				EXECUTE sql INTO ids USING x.q;
				INSERT INTO sim_answers VALUES (mo, kk, x.qid, f, ids);
			END LOOP;
		END LOOP;
		FOR r IN 1 .. rounds LOOP
			-- the form run first alternates with the round
			forms := CASE WHEN r % 2 = 1 THEN ARRAY['%', '<->'] ELSE ARRAY['<->', '%'] END;
			FOR x IN SELECT * FROM queries WHERE pos <= nq / 2 ORDER BY pos, kind LOOP
				FOREACH f IN ARRAY forms LOOP
					sql := 'SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM docs WHERE '
						|| CASE f WHEN '%' THEN 'fp % $1' ELSE format('fp <-> $1 <= %s', kk) END;
					EXECUTE 'EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) ' || sql INTO e USING x.q;
					INSERT INTO sim_times VALUES (mo, kk, x.qid, r, f, (e->0->>'Execution Time')::float8);
				END LOOP;
			END LOOP;
		END LOOP;
	END LOOP;
	PERFORM set_config('enable_seqscan', 'on', true);
	EXECUTE 'DROP INDEX ' || array_to_string(idx::text[], ', ');
	RETURN format('%s: %s s', m.label, round(extract(epoch FROM clock_timestamp() - t0)::numeric, 1));
END
$$;

SELECT pg_temp.sim_phase(m.ord, :sim_queries, :width) AS phase
  FROM method m
 WHERE m.name = ANY (string_to_array(:'similar', ','))
 ORDER BY m.ord;
\ir ../took.sql

\echo 'plans: the planner''s (default settings) and the timed one (enable_seqscan = off), % form | radius form'
SELECT m.label AS method, a.k,
       CASE WHEN a.planner = b.planner THEN 'same: ' || a.planner ELSE a.planner || ' | ' || b.planner END AS planner,
       CASE WHEN a.timed = b.timed THEN 'same: ' || a.timed ELSE a.timed || ' | ' || b.timed END AS timed
  FROM sim_plans a JOIN sim_plans b USING (ord, k) JOIN method m USING (ord)
 WHERE a.form = '%' AND b.form = '<->'
 ORDER BY m.ord, a.k;

\echo 'executor ms per query (median of its rounds), p50 over the queries; ratio: % p50 / radius p50'
CREATE TABLE sim_perq AS
SELECT ord, k, qid, form, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS ms
  FROM sim_times GROUP BY ord, k, qid, form;
SELECT m.label AS method, s.k, count(*) / 2 AS queries,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) FILTER (WHERE form = '%'))::numeric, 3) AS "% p50 ms",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) FILTER (WHERE form = '<->'))::numeric, 3) AS "radius p50 ms",
       round(((percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) FILTER (WHERE form = '%'))
              / (percentile_cont(0.5) WITHIN GROUP (ORDER BY s.ms) FILTER (WHERE form = '<->')))::numeric, 3) AS ratio,
       (SELECT count(*) FROM sim_answers a JOIN sim_answers b USING (ord, k, qid)
         WHERE a.ord = s.ord AND a.k = s.k AND a.form = '%' AND b.form = '<->') AS compared,
       (SELECT count(*) FROM sim_answers a JOIN sim_answers b USING (ord, k, qid)
         WHERE a.ord = s.ord AND a.k = s.k AND a.form = '%' AND b.form = '<->'
           AND a.ids IS DISTINCT FROM b.ids) AS different,
       (SELECT count(*) FROM sim_answers a JOIN truth t USING (qid, k)
         WHERE a.ord = s.ord AND a.k = s.k AND a.ids IS DISTINCT FROM t.ids) AS wrong
  FROM sim_perq s JOIN method m USING (ord)
 GROUP BY m.ord, m.label, s.ord, s.k
 ORDER BY m.ord, s.k;
