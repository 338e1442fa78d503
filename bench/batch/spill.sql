-- simhash_pairs spilled to temporary files: :rows random 256-bit
-- fingerprints plus 2% near copies (0-32 bits away), every pair within :k
-- found at maintenance_work_mem = :mwm, then checked against a brute-force
-- sequential scan for 20 rows (10 random, 10 near copies).
--
--   psql -v rows=10000000 -v k=40 -v mwm=64MB -f bench/batch/spill.sql
--
-- Needs the extension; builds table spill_bench (about 70 bytes a row) and
-- keeps it with the pairs (spill_pairs) for a second look.  At 10M rows the
-- call writes about 1.6 GB of temporary files.
\set ON_ERROR_STOP 1
\timing on
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS spill_pairs;
\set tbl spill_bench
\ir near_copies.sql
SET maintenance_work_mem = :'mwm';
SELECT now() AS start;
CREATE TABLE spill_pairs AS SELECT * FROM simhash_pairs('SELECT id, fp FROM spill_bench', :k);
SELECT now() AS done;
RESET maintenance_work_mem;
CREATE TEMP TABLE sample AS
  SELECT id, fp FROM spill_bench
  WHERE id IN (SELECT (g * 7919 % :rows) + 1 FROM generate_series(1, 10) g)
     OR id IN (SELECT 20000000 + (g * 997 % (:rows / 50)) + 1 FROM generate_series(1, 10) g);
SET enable_indexscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE brute AS
  SELECT least(s.id, b.id) AS id1, greatest(s.id, b.id) AS id2, (s.fp <-> b.fp)::int AS distance
  FROM sample s, spill_bench b WHERE b.fp <-> s.fp <= :k AND b.id <> s.id;
SELECT (SELECT count(*) FROM sample) AS sample_rows, (SELECT count(*) FROM brute) AS brute_pairs,
  (SELECT count(*) FROM (TABLE brute EXCEPT ALL
     SELECT * FROM spill_pairs WHERE id1 IN (SELECT id FROM sample) OR id2 IN (SELECT id FROM sample)) x) AS missing,
  (SELECT count(*) FROM (SELECT * FROM spill_pairs WHERE id1 IN (SELECT id FROM sample) OR id2 IN (SELECT id FROM sample)
     EXCEPT ALL TABLE brute) x) AS extra,
  (SELECT count(*) FROM spill_pairs) AS all_pairs, (SELECT max(distance) FROM spill_pairs) AS max_distance;
