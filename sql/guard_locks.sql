--
-- The guard of simhash_distributed_guard since 1.12: lock rows of hashed
-- block keys and a search of the table itself (simhash_guard_search).  The
-- guard's behaviour is in sql/guard.sql and sql/guard_verify.sql; races in
-- test/citus/races.sh.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;

-- the lock rows a fingerprint takes: its block keys hashed to 0..16383,
-- distinct and ascending; two fingerprints within k share one
SELECT simhash_guard_lock_keys('f3a90c1e00b2d47f', 'simhash', 3);
SELECT simhash_guard_lock_keys('f3a90c1e00b2d47e', 'simhash', 3)
       && simhash_guard_lock_keys('f3a90c1e00b2d47f', 'simhash', 3) AS near_share;
SELECT cardinality(simhash_guard_lock_keys(repeat('0123456789abcdef', 4), 'simhash256', 32)) AS keys_256_k32,
       (simhash_guard_lock_keys(repeat('0123456789abcdef', 4), 'simhash256', 32))[1:4] AS first_four;
-- every pair within k shares a lock row: 400 256-bit fingerprints, each
-- with a copy 1 to 44 bits away
\getenv abs_srcdir PG_ABS_SRCDIR
\set flip_sql :abs_srcdir '/sql/include/flip.sql'
\i :flip_sql
CREATE TABLE lk_b AS SELECT i, decode(md5('lk:' || i) || md5('lm:' || i), 'hex') AS b FROM generate_series(1, 400) i;
CREATE TABLE lk_near AS SELECT i, simhash256(b) AS fp, simhash256(pg_temp.flip(b, i % 44 + 1, i)) AS near FROM lk_b;
SELECT count(*) AS pairs, count(*) FILTER (WHERE simhash_guard_lock_keys(fp::text, 'simhash256', 40)
       && simhash_guard_lock_keys(near::text, 'simhash256', 40)) AS sharing
FROM lk_near WHERE fp <-> near <= 40;
-- unrelated fingerprints share one less often
SELECT count(*) AS unrelated_pairs, count(*) FILTER (WHERE simhash_guard_lock_keys(a.fp::text, 'simhash256', 32)
       && simhash_guard_lock_keys(b.fp::text, 'simhash256', 32)) AS sharing
FROM lk_near a JOIN lk_near b ON b.i = a.i + 1;
SELECT simhash_guard_lock_keys('f3a90c1e00b2d47f', 'simhash', 17);
SELECT simhash_guard_lock_keys(NULL, 'simhash', 3) IS NULL AS null_fp;

-- the search: one row within k other than own_id, the nearest, then the
-- smallest id; NULL when none
CREATE TABLE gs (id int PRIMARY KEY, fp simhash, sig minhash);
INSERT INTO gs VALUES (1, 'f3a90c1e00b2d47f', to_minhash('a b c d')), (2, 'f3a90c1e00b2d470', to_minhash('x y z w')),
	(3, 'f3a90c1e00b2d47e', to_minhash('a b c d')), (4, '0123456789abcdef', NULL), (5, NULL, NULL);
CREATE INDEX ON gs USING gin (fp);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 3, 0);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 3, 1);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 0, 1) IS NULL AS none_within_0;
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 4, 3);
-- with verification: within k and at least threshold alike
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d471', 3, 0, 'sig', to_minhash('x y z w'), 0.9);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d471', 3, 0, 'sig', to_minhash('q r s t'), 0.9) IS NULL AS unlike;
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d471', 3, 0, 'sig', NULL, 0.9) IS NULL AS null_sig;
SELECT simhash_guard_search('gs', 'id', 'fp', NULL, 3, 0) IS NULL AS null_fp;
-- the rows the transaction itself wrote are seen
BEGIN;
INSERT INTO gs VALUES (6, 'ffffffffffffffff', NULL);
SELECT simhash_guard_search('gs', 'id', 'fp', 'fffffffffffffff0', 4, 0);
ROLLBACK;
-- a 256-bit table through the word class
CREATE TABLE gs256 (id bigint PRIMARY KEY, fp simhash256);
INSERT INTO gs256 SELECT i, fp FROM lk_near;
INSERT INTO gs256 SELECT 1000 + i, near FROM lk_near WHERE i <= 5;
CREATE INDEX ON gs256 USING gin (fp simhash256_gin_word_ops);
SELECT (simhash_guard_search('gs256', 'id', 'fp', fp::text, 40, 1000 + i) ->> 'id')::int = i AS finds_its_original
FROM lk_near WHERE i <= 5 AND fp <-> near <= 40 ORDER BY i;
-- the search reads through the index: with sequential scans off, each call
-- scans it (the radius test must be the extension's comparison, which the
-- planner support turns into an index clause); past five calls the kept
-- plan is a generic one, which must give the same answers
SET enable_seqscan = off;
BEGIN;
SELECT count(*) AS searches, count(*) FILTER (WHERE (simhash_guard_search('gs256', 'id', 'fp', near::text, 40, -1) ->> 'distance')::int
       = (SELECT min(g.fp <-> n.near) FROM gs256 g)) AS nearest_found,
       count(*) FILTER (WHERE simhash_guard_search('gs256', 'id', 'fp', near::text, 0, -1) IS NULL) AS none_within_0
FROM lk_near n WHERE i <= 12 AND fp <-> near <= 40;
SELECT pg_stat_get_xact_numscans('gs256_fp_idx'::regclass) >= 12 AS index_scanned;
COMMIT;
RESET enable_seqscan;
-- a kept plan follows the table: dropped and made again under its name
DROP TABLE gs256;
CREATE TABLE gs256 (id bigint PRIMARY KEY, fp simhash256);
INSERT INTO gs256 VALUES (7, repeat('0', 64)::simhash256);
SELECT simhash_guard_search('gs256', 'id', 'fp', repeat('0', 63) || '1', 40, -1);

-- errors
SELECT simhash_guard_search('gs', 'id', 'nosuch', 'f3a90c1e00b2d47f', 3, 0);
SELECT simhash_guard_search('gs', 'nosuch', 'fp', 'f3a90c1e00b2d47f', 3, 0);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', -1, 0);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', NULL, 0);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 3, 0, 'sig', to_minhash('a'), 1.5);
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 3, 0, NULL, to_minhash('a'), 0.5);
SELECT simhash_guard_search('gs', 'id', 'fp', 'not hex', 3, 0);
SELECT simhash_guard_search(0, 'id', 'fp', 'f3a90c1e00b2d47f', 3, 0);
-- a guard at 64 bits past the batch search's range: its check says the
-- pairs were not checked
CREATE TABLE g20 (id int PRIMARY KEY, fp simhash);
SELECT simhash_distributed_guard('g20', 'id', 'fp', 20) IS NOT NULL AS made;
INSERT INTO g20_guarded VALUES (1, 'f3a90c1e00b2d47f'), (2, '0000000000000000');
SELECT item, ok, detail FROM simhash_guard_check('g20') WHERE item IN ('lock rows', 'no near-duplicates');
SELECT simhash_guard_drop('g20');
DROP TABLE g20;
-- it reads as the caller
CREATE ROLE simhash_gs_nobody;
SET ROLE simhash_gs_nobody;
SELECT simhash_guard_search('gs', 'id', 'fp', 'f3a90c1e00b2d47f', 3, 0);
RESET ROLE;
DROP ROLE simhash_gs_nobody;
DROP TABLE lk_b, lk_near, gs, gs256;
