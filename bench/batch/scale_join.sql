-- bench/batch/scale_join.sql: the stock self-join through the simhash GIN
-- index on sc_data, for one step of the scaling benchmark; run by
-- bench/batch/run for the sizes up to --scale-join-rows.  psql variables
-- :dist :cap (seconds) :mwm.
--
-- For k = 3 and 6: the pairs of simhash_pairs are kept (untimed); the
-- self-join is run for a sample of about 10,000 outer rows (id % M = 0),
-- and its pair set (id1, id2, distance) must equal simhash_pairs' pairs
-- with id2 % M = 0, EXCEPT ALL both ways; the full self-join then runs when
-- the sample estimates it at most :cap seconds, and its count must equal
-- simhash_pairs' count.  Appends to scale_join and scale_checks.
\set ON_ERROR_STOP 1
SET maintenance_work_mem = :'mwm';
CREATE INDEX sc_fp_gin ON sc_data USING gin (fp simhash_gin_ops);
VACUUM ANALYZE sc_data;
SELECT pg_prewarm('sc_fp_gin') AS blocks \gset
SELECT count(*) AS nrows, greatest(count(*) / 10000, 1) AS modulus FROM sc_data \gset
CREATE TABLE sc_sample AS SELECT * FROM sc_data WHERE id % :modulus = 0;
ANALYZE sc_sample;
CREATE TABLE sc_pairs3 AS SELECT * FROM simhash_pairs('SELECT id, fp FROM sc_data', 3);
CREATE TABLE sc_pairs6 AS SELECT * FROM simhash_pairs('SELECT id, fp FROM sc_data', 6);
SET bench.dist = :'dist';
SET bench.cap = :cap;
SET bench.modulus = :modulus;
SET bench.nrows = :nrows;
DO $$
DECLARE
	dist text := current_setting('bench.dist');
	cap_ms float8 := current_setting('bench.cap')::float8 * 1000;
	modulus bigint := current_setting('bench.modulus')::bigint;
	nrows bigint := current_setting('bench.nrows')::bigint;
	nsample bigint := (SELECT count(*) FROM sc_sample);
	t0 timestamptz;
	ms float8;
	est float8;
	n bigint;
	expect bigint;
	diff bigint;
	k int;
BEGIN
	FOREACH k IN ARRAY ARRAY[3, 6] LOOP
		EXECUTE format('SELECT count(*) FROM (
			(SELECT id1, id2, distance FROM sc_pairs%1$s WHERE id2 %% %2$s = 0
			 EXCEPT ALL
			 SELECT a.id, b.id, (a.fp <-> b.fp)::int FROM sc_data a JOIN sc_sample b
			     ON a.fp <-> b.fp <= %1$s AND a.id < b.id)
			UNION ALL
			(SELECT a.id, b.id, (a.fp <-> b.fp)::int FROM sc_data a JOIN sc_sample b
			     ON a.fp <-> b.fp <= %1$s AND a.id < b.id
			 EXCEPT ALL
			 SELECT id1, id2, distance FROM sc_pairs%1$s WHERE id2 %% %2$s = 0)) x', k, modulus) INTO diff;
		INSERT INTO scale_checks VALUES
			(format('%s, %s rows, k = %s: pair set equals the self-join on the sample (id2 %% %s = 0), EXCEPT ALL both ways',
			        dist, nrows, k, modulus),
			 diff = 0, format('%s rows in one set and not the other', diff));

		t0 := clock_timestamp();
		EXECUTE format('SELECT count(*) FROM sc_data a JOIN sc_sample b ON a.fp <-> b.fp <= %s AND a.id < b.id', k) INTO n;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		est := ms * nrows / nsample;
		IF est <= cap_ms THEN
			t0 := clock_timestamp();
			EXECUTE format('SELECT count(*) FROM sc_data a JOIN sc_data b ON a.fp <-> b.fp <= %s AND a.id < b.id', k) INTO n;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			EXECUTE format('SELECT count(*) FROM sc_pairs%s', k) INTO expect;
			INSERT INTO scale_join VALUES (dist, nrows, k, ms / 1000, n, est / 1000);
			INSERT INTO scale_checks VALUES
				(format('%s, %s rows, k = %s: pair count equals the full self-join', dist, nrows, k),
				 n = expect, format('self-join %s, simhash_pairs %s', n, expect));
		ELSE
			INSERT INTO scale_join VALUES (dist, nrows, k, NULL, NULL, est / 1000);
		END IF;
	END LOOP;
END
$$;
DROP INDEX sc_fp_gin;
