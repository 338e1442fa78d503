-- bench/batch/bench.sql: simhash_pairs and simhash_clusters against the
-- self-join through the simhash GIN index.  Run by bench/batch/run in a
-- throwaway cluster; psql variables :rows :rounds :join_limit.  Leaves its
-- results in tables timing, checks and data_info for report.sql.
\pset footer off
\set ON_ERROR_STOP 1
SET bench.rounds = :rounds;
SET bench.join_limit = :join_limit;

CREATE EXTENSION simhash;
CREATE EXTENSION pg_prewarm;

CREATE TABLE data_info (what text PRIMARY KEY, value text NOT NULL);
-- what: 'simhash_pairs', 'self-join', 'self-join sample', 'simhash_clusters'
-- estimated: the time was extrapolated from the sample, not measured
CREATE TABLE timing (what text, k int, run int, ms float8, n bigint,
                     estimated boolean NOT NULL DEFAULT false);
CREATE TABLE checks (name text, ok boolean, detail text);

-- Stage clock: each stage ends by printing its wall time
\ir ../clock.sql

-- ------------------------------------------------------------------
-- Data: :rows random fingerprints, plus planted clusters (load.sql, uniform)
-- ------------------------------------------------------------------
\echo
\echo == loading :rows random fingerprints and their planted clusters
\set tbl docs
\set dist uniform
\ir load.sql
SELECT pg_temp.lap() AS secs \gset
INSERT INTO data_info VALUES ('load_s', :'secs');
\echo '   took' :secs 's'
\echo == building the GIN index (simhash_gin_ops), VACUUM ANALYZE
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops);
SELECT pg_temp.lap() AS secs \gset
INSERT INTO data_info VALUES ('index_s', :'secs');
\echo '   index build took' :secs 's'
VACUUM ANALYZE docs;
SELECT pg_prewarm('docs') + pg_prewarm('docs_fp_gin') AS blocks \gset
SELECT pg_temp.lap() AS secs \gset
INSERT INTO data_info VALUES ('vacuum_s', :'secs');
\echo '   VACUUM ANALYZE and prewarm took' :secs 's'

-- The sample of outer rows for the self-join: the rows with id % :modulus = 0,
-- in a table of their own, so that the sampled join probes the index for
-- them alone rather than also filtering every row of docs (a fixed cost
-- that would inflate the estimate of the full join).
SELECT count(*) AS nrows, greatest(count(*) / 10000, 1) AS modulus FROM docs \gset
CREATE TABLE docs_sample AS SELECT * FROM docs WHERE id % :modulus = 0;
ANALYZE docs_sample;
INSERT INTO data_info VALUES
	('rows', :'nrows'), ('random', :'rows'), ('centres', :'centres'), ('modulus', :'modulus'),
	('planted', (:nrows - :rows)::text),
	('exact duplicates', (SELECT count(*) - count(DISTINCT fp) FROM docs)::text),
	('table', pg_size_pretty(pg_relation_size('docs'))),
	('index', pg_size_pretty(pg_relation_size('docs_fp_gin')));

-- ------------------------------------------------------------------
-- simhash_pairs (k = 3, 6) and simhash_clusters (k = 3): :rounds runs each,
-- interleaved, so machine noise hits them alike.
-- ------------------------------------------------------------------
\echo == timing simhash_pairs (k = 3, 6) and simhash_clusters (k = 3):  :rounds runs each
DO $$
DECLARE
	rounds int := current_setting('bench.rounds')::int;
	k int;
BEGIN
	FOR r IN 1 .. rounds LOOP
		FOREACH k IN ARRAY ARRAY[3, 6] LOOP
			INSERT INTO timing SELECT 'simhash_pairs', k, r, c.secs * 1000, c.n
			  FROM pg_temp.timed_count(format('SELECT * FROM simhash_pairs(''SELECT id, fp FROM docs'', %s)', k)) c;
		END LOOP;
		INSERT INTO timing SELECT 'simhash_clusters', 3, r, c.secs * 1000, c.n
		  FROM pg_temp.timed_count('SELECT * FROM simhash_clusters(''SELECT id, fp FROM docs'', 3)') c;
	END LOOP;
END
$$;
\ir ../took.sql

-- The pairs, kept for the checks (untimed)
CREATE TABLE pairs3 AS SELECT * FROM simhash_pairs('SELECT id, fp FROM docs', 3);
CREATE TABLE pairs6 AS SELECT * FROM simhash_pairs('SELECT id, fp FROM docs', 6);
CREATE TABLE clusters3 AS SELECT * FROM simhash_clusters('SELECT id, fp FROM docs', 3);
ANALYZE pairs3, pairs6, clusters3;

-- ------------------------------------------------------------------
-- The self-join through the GIN index.  Its plan must be a nested loop
-- whose inner side scans docs_fp_gin.
-- ------------------------------------------------------------------
CREATE FUNCTION join_sql(k int, sample boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT format('SELECT count(*) FROM docs a JOIN %s b ON a.fp <-> b.fp <= %s AND a.id < b.id',
	              CASE WHEN sample THEN 'docs_sample' ELSE 'docs' END, k)
$$;
CREATE FUNCTION plan_of(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	l text;
	p text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (COSTS off) ' || q LOOP
		p := p || l || E'\n';
	END LOOP;
	RETURN p;
END
$$;
CREATE FUNCTION plan_ok(p text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
	SELECT p ~ 'Nested Loop' AND p ~ 'Index Scan on docs_fp_gin'
$$;

\echo
\echo Plan of the self-join at k = 3 (must be a nested loop over the GIN index):
\pset format unaligned
\pset tuples_only on
SELECT plan_of(join_sql(3, false));
\pset format aligned
\pset tuples_only off

\echo == timing the self-join: on a sample of outer rows (docs_sample b: id % :modulus = 0), then in full if estimated under :join_limit s
DO $$
DECLARE
	limit_ms float8 := current_setting('bench.join_limit')::float8 * 1000;
	modulus bigint := (SELECT value::bigint FROM data_info WHERE what = 'modulus');
	nrows bigint := (SELECT value::bigint FROM data_info WHERE what = 'rows');
	nsample bigint;
	t0 timestamptz;
	ms float8;
	est float8;
	n bigint;
	expect bigint;
	k int;
BEGIN
	SELECT count(*) INTO nsample FROM docs_sample;
	FOREACH k IN ARRAY ARRAY[3, 6] LOOP
		INSERT INTO checks VALUES
			(format('k = %s: self-join plan is an index nested loop (full)', k),
			 plan_ok(plan_of(join_sql(k, false))), NULL),
			(format('k = %s: self-join plan is an index nested loop (sample)', k),
			 plan_ok(plan_of(join_sql(k, true))), NULL);

		t0 := clock_timestamp();
		EXECUTE join_sql(k, true) INTO n;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		INSERT INTO timing VALUES ('self-join sample', k, 1, ms, n);
		EXECUTE format('SELECT count(*) FROM pairs%s WHERE id2 %% %s = 0', k, modulus) INTO expect;
		INSERT INTO checks VALUES
			(format('k = %s: pair counts equal on the sample (id2 %% %s = 0)', k, modulus),
			 n = expect, format('self-join %s, simhash_pairs %s', n, expect));

		est := ms * nrows / nsample;
		IF est <= limit_ms THEN
			t0 := clock_timestamp();
			EXECUTE join_sql(k, false) INTO n;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			INSERT INTO timing VALUES ('self-join', k, 1, ms, n);
			EXECUTE format('SELECT count(*) FROM pairs%s', k) INTO expect;
			INSERT INTO checks VALUES
				(format('k = %s: pair counts equal (full self-join)', k),
				 n = expect, format('self-join %s, simhash_pairs %s', n, expect));
			INSERT INTO data_info VALUES (format('estimate_k%s', k),
				format('%s s estimated from the sample, %s s measured',
				       round((est / 1000)::numeric, 1), round((ms / 1000)::numeric, 1)));
		ELSE
			INSERT INTO timing VALUES ('self-join', k, 1, est, NULL, true);
			INSERT INTO data_info VALUES (format('estimate_k%s', k),
				format('%s s estimated from %s sample rows in %s s: over --join-limit, not run in full',
				       round((est / 1000)::numeric, 1), nsample, round((ms / 1000)::numeric, 1)));
		END IF;
	END LOOP;
END
$$;
\ir ../took.sql

-- ------------------------------------------------------------------
-- The pair sets, once (k = 3): (id1, id2, distance) EXCEPT ALL both ways,
-- against the full self-join, or against the sample when the full join
-- was not run.
-- ------------------------------------------------------------------
SELECT CASE WHEN full_join THEN 'full self-join' ELSE format('sample, id2 %% %s = 0', :modulus) END AS set_label,
       CASE WHEN full_join THEN 'true' ELSE format('id2 %% %s = 0', :modulus) END AS set_pairs,
       CASE WHEN full_join THEN 'docs' ELSE 'docs_sample' END AS set_join
  FROM (SELECT EXISTS (SELECT FROM timing WHERE what = 'self-join' AND k = 3 AND NOT estimated) AS full_join) f \gset
\echo == comparing the pair sets at k = 3 with EXCEPT ALL (:set_label; the self-join runs again, untimed)
INSERT INTO checks
SELECT format('k = 3: pair sets equal, EXCEPT ALL both ways (%s)', :'set_label'),
       count(*) = 0,
       format('%s rows in one set and not the other', count(*))
  FROM ((SELECT id1, id2, distance FROM pairs3 WHERE :set_pairs
         EXCEPT ALL
         SELECT a.id, b.id, (a.fp <-> b.fp)::int FROM docs a JOIN :set_join b ON a.fp <-> b.fp <= 3 AND a.id < b.id)
        UNION ALL
        (SELECT a.id, b.id, (a.fp <-> b.fp)::int FROM docs a JOIN :set_join b ON a.fp <-> b.fp <= 3 AND a.id < b.id
         EXCEPT ALL
         SELECT id1, id2, distance FROM pairs3 WHERE :set_pairs)) x;
\ir ../took.sql

-- Every timed run returned the same count as the kept pairs
INSERT INTO checks
SELECT format('k = %s: every timed simhash_pairs run returned the same count', t.k),
       bool_and(t.n = (CASE t.k WHEN 3 THEN (SELECT count(*) FROM pairs3)
                                ELSE (SELECT count(*) FROM pairs6) END)),
       string_agg(DISTINCT t.n::text, ', ')
  FROM timing t WHERE t.what = 'simhash_pairs' GROUP BY t.k;
-- Clusters: one row per id, every k = 3 pair inside one cluster, labels
-- the smallest member
INSERT INTO checks
SELECT 'simhash_clusters k = 3: one row per id, pairs inside clusters, smallest-id labels',
       (SELECT count(*) FROM clusters3) = (SELECT count(DISTINCT id) FROM docs)
       -- count(*) = 0, not NOT EXISTS: the planner would pick a nested loop
       AND (SELECT count(*) FROM pairs3 p JOIN clusters3 a ON a.id = p.id1
              JOIN clusters3 b ON b.id = p.id2 WHERE a.cluster_id <> b.cluster_id) = 0
       AND (SELECT count(*) FROM (SELECT FROM clusters3 GROUP BY cluster_id
                                   HAVING min(id) <> cluster_id) x) = 0,
       (SELECT format('%s ids, %s clusters of 2 or more, largest %s',
                      sum(size), count(*) FILTER (WHERE size > 1), max(size))
          FROM (SELECT count(*) AS size FROM clusters3 GROUP BY cluster_id) s);
