-- bench/index/common.sql: what bench.sql and bench_wide.sql share, included
-- (\ir) at their start: the session (../session.sql), the extensions, the
-- stage clock (../clock.sql) and the functions below.  Each script defines
-- pg_temp.run(sql, x), which runs a statement of its table stmt with the
-- parameters of query x and returns the ids, before its phases.
\ir ../session.sql
SET bench.rounds = :rounds;
SET bench.budget = :budget;

CREATE EXTENSION simhash;
CREATE EXTENSION pg_prewarm;

\ir ../clock.sql

-- The nodes of a plan, outermost first, with their index names
CREATE FUNCTION pg_temp.shape(p jsonb) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg((n->>'Node Type') || coalesce(' ' || (n->>'Index Name'), ''), ' > ' ORDER BY o)
	  FROM jsonb_path_query(p, 'strict $.** ? (exists (@."Node Type"))') WITH ORDINALITY t(n, o)
$$;

-- The distances of the 10 rows of docs nearest to q, by a full sort: the
-- exact answer of a nearest-neighbour query
CREATE FUNCTION pg_temp.knn_dists(q anyelement) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	d int[];
BEGIN
	SELECT array_agg(x ORDER BY x) INTO d
	  FROM (SELECT (fp <-> q)::int AS x FROM docs ORDER BY fp <-> q LIMIT 10) s;
	RETURN d;
END
$$;

-- The load averages of the machine (1, 5, 15 minutes)
CREATE FUNCTION pg_temp.loadavg() RETURNS text LANGUAGE sql AS $$
	SELECT array_to_string((string_to_array(pg_read_file('/proc/loadavg'), ' '))[1:3], ' ')
$$;

-- Round 0 of statement sql: the queries taken in turn, centres and random
-- ones alternating, until share seconds are spent and at least 10 (or
-- all) have run; their answers go to the temporary table warm (qid, ids).
-- Radius search (k not null): the queries at radius k (the seq ones only
-- when seq_only), run by pg_temp.run.  Nearest neighbours (k null): the
-- knn queries, sql taking the query's fingerprint and returning the
-- distances.  Returns how many ran, of how many, and the seconds spent.
CREATE TEMP TABLE warm (qid int, ids bigint[]);
CREATE FUNCTION pg_temp.warm_up(sql text, k int, seq_only boolean, share float8,
                                OUT done int, OUT total int, OUT spent float8)
LANGUAGE plpgsql AS $$
DECLARE
	src text := CASE WHEN k IS NULL THEN 'knn_queries'
	            ELSE format('queries JOIN qk USING (qid) WHERE qk.k = %s AND (seq OR NOT %L)', k, seq_only) END;
	x record;
	t0 timestamptz;
	ids bigint[];
BEGIN
	DELETE FROM warm;
	done := 0;
	spent := 0;
	EXECUTE 'SELECT count(*) FROM ' || src INTO total;
	FOR x IN EXECUTE 'SELECT * FROM ' || src || ' ORDER BY pos, kind' LOOP
		EXIT WHEN spent > share AND done >= least(10, total);
		t0 := clock_timestamp();
		IF k IS NULL THEN
			EXECUTE sql INTO ids USING x.q;
		ELSE
			ids := pg_temp.run(sql, x);
		END IF;
		spent := spent + extract(epoch FROM clock_timestamp() - t0);
		INSERT INTO warm VALUES (x.qid, ids);
		done := done + 1;
	END LOOP;
END
$$;

-- The end of method mo's phase: its indexes idx dropped, and its line for
-- the log (label, build time, then what timed says)
CREATE FUNCTION pg_temp.phase_end(mo int, label text, idx regclass[], timed text)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	i regclass;
BEGIN
	FOREACH i IN ARRAY idx LOOP
		EXECUTE format('DROP INDEX %s', i);
	END LOOP;
	RETURN format('%s: built in %s s;%s', label,
	              coalesce(round((SELECT secs FROM build WHERE ord = mo)::numeric, 1), 0), timed);
END
$$;

-- The plans, per k and method: the timed one and, where it differs, the
-- planner's choice with default settings, with both estimated costs (the
-- timed one called timed_as)
CREATE FUNCTION pg_temp.plans_report(timed_as text)
RETURNS TABLE (method text, k int, "timed plan" text, "planner's choice by default" text)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY
	SELECT m.label, p.k, pg_temp.shape(p.timed),
	       CASE WHEN pg_temp.shape(p.chosen) IS DISTINCT FROM pg_temp.shape(p.timed)
	            THEN format('%s (cost %s; %s: %s)', pg_temp.shape(p.chosen),
	                        round((p.chosen->>'Total Cost')::numeric), timed_as,
	                        round((p.timed->>'Total Cost')::numeric))
	            ELSE 'same' END
	  FROM plans p JOIN method m USING (ord)
	 ORDER BY p.k, p.ord;
END
$$;
