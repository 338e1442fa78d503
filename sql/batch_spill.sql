-- simhash_pairs and simhash_clusters beyond maintenance_work_mem: the rows
-- spill to temporary files (batch_spill.c) instead of failing with 54000.
-- The answers must be those of the search in memory, and of the brute-force
-- self-join on a sample of ids, at every width.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;

\getenv abs_srcdir PG_ABS_SRCDIR
\set flip_sql :abs_srcdir '/sql/include/flip.sql'
\i :flip_sql

-- 26,000 random 256-bit codes; 4,000 near copies at 0..44 bits; 300 exact
-- copies under other ids; 100 ids with a second fingerprint 3 bits away; two
-- NULLs.  The 128- and 64-bit tables take the first 16 and 8 bytes.
CREATE TABLE sp256 (id bigint, b bytea);
INSERT INTO sp256 SELECT i, decode(md5('sp:' || i) || md5('sq:' || i), 'hex') FROM generate_series(1, 26000) i;
INSERT INTO sp256 SELECT 100000 + id, pg_temp.flip(b, (id % 45)::int, id::int) FROM sp256 WHERE id <= 4000;
INSERT INTO sp256 SELECT 200000 + id, b FROM sp256 WHERE id BETWEEN 1 AND 300;
INSERT INTO sp256 SELECT id, pg_temp.flip(b, 3, id::int + 7) FROM sp256 WHERE id BETWEEN 301 AND 400;
CREATE TABLE s256 AS SELECT id, simhash256(b) AS fp FROM sp256;
CREATE TABLE s128 AS SELECT id, simhash128(substring(b FROM 1 FOR 16)) AS fp FROM sp256;
CREATE TABLE s64 AS SELECT id, simhash(substring(b FROM 1 FOR 8)) AS fp FROM sp256;
INSERT INTO s256 VALUES (7, NULL), (8, NULL);
INSERT INTO s64 VALUES (7, NULL);
SELECT (SELECT count(*) FROM s256) AS rows_256, (SELECT count(*) FROM s128) AS rows_128,
       (SELECT count(*) FROM s64) AS rows_64;

-- At 1 MB every table is past what the search in memory holds: the forms
-- that do not spill say so (54000)
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql
SET maintenance_work_mem = '1MB';
SELECT pg_temp.err($q$SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM s256', 40)$q$) AS group_pairs_256,
       pg_temp.err($q$SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM s128', 20)$q$) AS group_pairs_128,
       pg_temp.err($q$SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM s64', 3)$q$) AS group_pairs_64;
-- beyond the 64-bit search's radius in a word (k > 67 at 256 bits) every
-- pair is measured in memory: no spill
SELECT pg_temp.err($q$SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM s256', 68)$q$) AS pairs_256_k68;

-- spilled (1 MB) against in memory (1 GB): the same rows, none more, none
-- fewer, for simhash_pairs and simhash_clusters
CREATE FUNCTION pg_temp.same(tab text, k int) RETURNS TABLE (pairs bigint, pairs_differ bigint,
    clusters bigint, cluster_rows_differ bigint) LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL maintenance_work_mem = '1GB';
  CREATE TEMP TABLE pm AS SELECT * FROM simhash_pairs(format('SELECT id, fp FROM %I', tab), k);
  CREATE TEMP TABLE cm AS SELECT * FROM simhash_clusters(format('SELECT id, fp FROM %I', tab), k);
  SET LOCAL maintenance_work_mem = '1MB';
  CREATE TEMP TABLE ps AS SELECT * FROM simhash_pairs(format('SELECT id, fp FROM %I', tab), k);
  CREATE TEMP TABLE cs AS SELECT * FROM simhash_clusters(format('SELECT id, fp FROM %I', tab), k);
  RETURN QUERY SELECT (SELECT count(*) FROM ps),
    (SELECT count(*) FROM ((TABLE pm EXCEPT ALL TABLE ps) UNION ALL (TABLE ps EXCEPT ALL TABLE pm)) x),
    (SELECT count(DISTINCT cluster_id) FROM cs),
    (SELECT count(*) FROM ((TABLE cm EXCEPT ALL TABLE cs) UNION ALL (TABLE cs EXCEPT ALL TABLE cm)) x);
  DROP TABLE pm, cm, ps, cs;
END $$;
SELECT 256 AS bits, k, s.* FROM unnest(ARRAY[0, 1, 3, 40, 48, 67]) k, pg_temp.same('s256', k) s;
SELECT 128 AS bits, k, s.* FROM unnest(ARRAY[0, 2, 20, 33]) k, pg_temp.same('s128', k) s;
SELECT 64 AS bits, k, s.* FROM unnest(ARRAY[0, 3, 8, 16]) k, pg_temp.same('s64', k) s;

-- spilled against the brute-force self-join, for the pairs with a side
-- among 300 ids (the exact copies, the ids of two fingerprints, the centres
-- of near copies and random rows among them)
CREATE FUNCTION pg_temp.brute(tab text, k int) RETURNS TABLE (pairs bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
BEGIN
  SET LOCAL maintenance_work_mem = '1MB';
  CREATE TEMP TABLE sample AS SELECT id FROM generate_series(1, 600, 2) id;
  CREATE TEMP TABLE ps AS SELECT id1, id2, distance FROM simhash_pairs(format('SELECT id, fp FROM %I', tab), k)
    WHERE id1 IN (TABLE sample) OR id2 IN (TABLE sample);
  -- each pair once: from its side in the sample (the smaller id when both are)
  EXECUTE format('CREATE TEMP TABLE bf AS SELECT least(a.id, b.id) AS id1, greatest(a.id, b.id) AS id2,
      (a.fp <-> b.fp)::int AS distance
    FROM %1$I a JOIN %1$I b ON a.id <> b.id AND a.fp <-> b.fp <= %2$s
    WHERE a.id IN (TABLE sample) AND (b.id NOT IN (TABLE sample) OR a.id < b.id)', tab, k);
  RETURN QUERY SELECT (SELECT count(*) FROM bf),
    (SELECT count(*) FROM (TABLE bf EXCEPT ALL TABLE ps) x),
    (SELECT count(*) FROM (TABLE ps EXCEPT ALL TABLE bf) x);
  DROP TABLE sample, ps, bf;
END $$;
SELECT 256 AS bits, 40 AS k, b.* FROM pg_temp.brute('s256', 40) b;
SELECT 128 AS bits, 20 AS k, b.* FROM pg_temp.brute('s128', 20) b;
SELECT 64 AS bits, 3 AS k, b.* FROM pg_temp.brute('s64', 3) b;

-- simhash_clusters keeps a union-find parent (4 bytes) per distinct
-- fingerprint in memory, within three quarters of maintenance_work_mem:
-- 200,000 need 800 kB
SELECT pg_temp.err($q$SELECT count(*) FROM simhash_clusters('SELECT i, hashint8extended(i, 3)::simhash FROM generate_series(1, 200000) i', 3)$q$) AS clusters_200000_fingerprints;

-- verification (a threshold) does not spill: 54000 as before
SELECT pg_temp.err($q$SELECT count(*) FROM simhash_pairs('SELECT id, fp, to_minhash(id::text) FROM s256', 40, 0.5)$q$) AS pairs_verified_256;
RESET maintenance_work_mem;
DROP TABLE sp256, s256, s128, s64;
