-- simhash_pairs, simhash_group_pairs, simhash_clusters and
-- simhash_reject_near_duplicates on simhash128 and simhash256 columns: the
-- same pairs as the brute-force self-join, on 10,000 rows of each width.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;

-- mask(bits, c, d): d distinct bits of a bits-wide string set, at
-- (c * 7 + j * 13) % bits for j = 1..d (13 is prime to 128 and 256)
CREATE FUNCTION pg_temp.mask(bits int, c int, d int) RETURNS varbit LANGUAGE sql AS $$
  SELECT coalesce((SELECT bit_or(((B'1' || repeat('0', bits - 1))::varbit) >> ((c * 7 + j * 13) % bits))
                   FROM generate_series(1, d) j),
                  repeat('0', bits)::varbit)
$$;

-- 9,000 random fingerprints of each width; 50 planted clusters of 20
-- variants, each d bits from its centre, d spread over 0..40 (128 bits) and
-- 0..80 (256 bits); 168 exact copies under other ids; two NULLs
CREATE TABLE w128 (id bigint, fp simhash128);
INSERT INTO w128 SELECT i, decode(md5('w128:' || i), 'hex')::simhash128 FROM generate_series(1, 9000) i;
INSERT INTO w128
SELECT 100000 + c * 100 + v,
       (decode(md5('centre128:' || c), 'hex')::simhash128::bit(128)
        # pg_temp.mask(128, c, (v * 37 + c) % 41)::bit(128))::simhash128
FROM generate_series(1, 50) c, generate_series(0, 19) v;
INSERT INTO w128 SELECT 200000 + id, fp FROM w128 WHERE id % 500 = 0 OR id % 100 = 7;
INSERT INTO w128 VALUES (300001, NULL), (300002, NULL);

CREATE TABLE w256 (id bigint, fp simhash256);
INSERT INTO w256 SELECT i, sha256(convert_to('w256:' || i, 'UTF8'))::simhash256 FROM generate_series(1, 9000) i;
INSERT INTO w256
SELECT 100000 + c * 100 + v,
       (sha256(convert_to('centre256:' || c, 'UTF8'))::simhash256::bit(256)
        # pg_temp.mask(256, c, (v * 37 + c) % 81)::bit(256))::simhash256
FROM generate_series(1, 50) c, generate_series(0, 19) v;
INSERT INTO w256 SELECT 200000 + id, fp FROM w256 WHERE id % 500 = 0 OR id % 100 = 7;
INSERT INTO w256 VALUES (300001, NULL), (300002, NULL);
SELECT (SELECT count(*) FROM w128) AS rows128, (SELECT count(*) FROM w256) AS rows256;

-- the ground truth: the brute-force self-join at the largest k of each
-- width, with the distances; a smaller k is the pairs within it.
-- self_join(tbl, truth, k) creates the table truth (id1, id2, distance) of
-- the pairs of rows of tbl within k bits
CREATE PROCEDURE pg_temp.self_join(tbl text, truth text, k int) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TABLE %I AS
	                SELECT a.id AS id1, b.id AS id2, (a.fp <-> b.fp)::integer AS distance
	                FROM %I a JOIN %2$I b ON a.id < b.id AND a.fp <-> b.fp <= %s', truth, tbl, k);
END $$;
CALL pg_temp.self_join('w128', 'truth128', 32);
CALL pg_temp.self_join('w256', 'truth256', 64);
-- the planted distances are spread over the whole range
SELECT width, count(DISTINCT distance) AS distinct_distances, min(distance), max(distance)
FROM (SELECT 128 AS width, distance FROM truth128 UNION ALL SELECT 256, distance FROM truth256) x
GROUP BY width ORDER BY width;

-- differences(tbl, truth, k): rows in which simhash_pairs over tbl and the
-- brute-force pairs within k differ (EXCEPT ALL both ways)
CREATE FUNCTION pg_temp.differences(tbl text, truth text, k int) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$
	  SELECT count(*) FROM (
	    (SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp FROM %1$I', %3$s)
	     EXCEPT ALL
	     SELECT id1, id2, distance FROM %2$I WHERE distance <= %3$s)
	    UNION ALL
	    (SELECT id1, id2, distance FROM %2$I WHERE distance <= %3$s
	     EXCEPT ALL
	     SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp FROM %1$I', %3$s))) x$q$,
	  tbl, truth, k) INTO n;
	RETURN n;
END $f$;
SELECT 128 AS width, k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM w128', k)) AS pairs,
       (SELECT count(*) FROM truth128 WHERE distance <= k) AS self_join,
       pg_temp.differences('w128', 'truth128', k) AS differences
FROM unnest(ARRAY[0, 1, 4, 16, 31, 32]) k
UNION ALL
SELECT 256, k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM w256', k)),
       (SELECT count(*) FROM truth256 WHERE distance <= k),
       pg_temp.differences('w256', 'truth256', k)
FROM unnest(ARRAY[0, 1, 3, 8, 32, 63, 64]) k;
-- every pair once, id1 < id2
SELECT count(*) AS pairs, count(DISTINCT (id1, id2)) AS distinct_pairs, bool_and(id1 < id2) AS ordered
FROM simhash_pairs('SELECT id, fp FROM w256', 64);
-- int4 ids, and a query with its own filter
SELECT count(*) FROM simhash_pairs('SELECT id::int, fp FROM w128 WHERE id >= 100000', 16);

-- simhash_group_pairs: the groups are the rows sharing a whole fingerprint
CREATE FUNCTION pg_temp.group_differences(tbl text, k int) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$
	  CREATE TEMP TABLE g AS SELECT min(id) AS rep, count(*) AS size, fp FROM %1$I WHERE fp IS NOT NULL GROUP BY fp;
	  CREATE TEMP TABLE expected AS
	  SELECT a.rep AS id1, b.rep AS id2, (a.fp <-> b.fp)::integer AS distance, a.size AS size1, b.size AS size2
	    FROM g a JOIN g b ON a.rep < b.rep AND a.fp <-> b.fp <= %2$s
	  UNION ALL
	  SELECT rep, rep, 0, size, size FROM g WHERE size > 1;
	  CREATE TEMP TABLE got AS SELECT * FROM simhash_group_pairs('SELECT id, fp FROM %1$I', %2$s)$q$, tbl, k);
	SELECT count(*) INTO n FROM (
	  (SELECT * FROM got EXCEPT ALL SELECT * FROM expected)
	  UNION ALL
	  (SELECT * FROM expected EXCEPT ALL SELECT * FROM got)) x;
	DROP TABLE g, expected, got;
	RETURN n;
END $f$;
SELECT 128 AS width, 16 AS k, pg_temp.group_differences('w128', 16) AS differences
UNION ALL
SELECT 256, 40, pg_temp.group_differences('w256', 40);
-- with unique ids, the group rows count simhash_pairs' rows
SELECT sum(CASE WHEN id1 = id2 THEN size1 * (size1 - 1) / 2 ELSE size1 * size2 END) AS pairs_from_groups,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM w128', 32)) AS pairs
FROM simhash_group_pairs('SELECT id, fp FROM w128', 32);

-- simhash_clusters: the connected components of the brute-force pairs,
-- found by label propagation in SQL, each labelled by its smallest id
\getenv abs_srcdir PG_ABS_SRCDIR
\set labels_sql :abs_srcdir '/sql/include/labels.sql'
\i :labels_sql
CREATE FUNCTION pg_temp.cluster_differences(tbl text, truth text, k int) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
	nclusters bigint;
BEGIN
	EXECUTE format($q$
	  CREATE TEMP TABLE lab AS SELECT DISTINCT id, id AS label FROM %1$I WHERE fp IS NOT NULL;
	  CREATE TEMP TABLE edges AS
	  SELECT id1 AS a, id2 AS b FROM %2$I WHERE distance <= %3$s
	  UNION SELECT id2, id1 FROM %2$I WHERE distance <= %3$s;
	  CREATE TEMP TABLE got AS SELECT * FROM simhash_clusters('SELECT id, fp FROM %1$I', %3$s)$q$,
	  tbl, truth, k);
	CALL pg_temp.propagate_labels();
	SELECT count(*) INTO n FROM lab FULL JOIN got USING (id) WHERE lab.label IS DISTINCT FROM got.cluster_id;
	SELECT count(DISTINCT cluster_id) INTO nclusters FROM got;
	DROP TABLE lab, edges, got;
	RETURN format('%s clusters, %s differences', nclusters, n);
END $f$;
SELECT 128 AS width, k, pg_temp.cluster_differences('w128', 'truth128', k) AS result
FROM unnest(ARRAY[0, 4, 32]) k
UNION ALL
SELECT 256, k, pg_temp.cluster_differences('w256', 'truth256', k)
FROM unnest(ARRAY[0, 8, 64]) k;

-- k beyond the word-by-word search (radius 17 or more in a word: every
-- pair of fingerprints measured), on the planted clusters and 1,000 others
CREATE TABLE few128 AS SELECT * FROM w128 WHERE id <= 1000 OR id >= 100000;
CREATE TABLE few256 AS SELECT * FROM w256 WHERE id <= 1000 OR id >= 100000;
SELECT 128 AS width, k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM few128', k)) AS pairs,
       (SELECT count(*) FROM few128 a JOIN few128 b ON a.id < b.id AND a.fp <-> b.fp <= k) AS self_join
FROM unnest(ARRAY[33, 34, 40, 128]) k
UNION ALL
SELECT 256, k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM few256', k)),
       (SELECT count(*) FROM few256 a JOIN few256 b ON a.id < b.id AND a.fp <-> b.fp <= k)
FROM unnest(ARRAY[67, 68, 80, 256]) k;

-- ties in the grouping sort: word w of 3, 4, 5 and 7 values (w = 0..3), so
-- that many rows share word 0, words 0-1, 0-2 or the whole fingerprint;
-- negative ids.  At 128 bits, words 1 and 2 of the first 600 rows.
CREATE TABLE tie256 AS
SELECT g - 600 AS id,
       decode((SELECT string_agg((ARRAY['0000000000000000', '0000000000000001', '8000000000000000',
                                        'ffffffffffffffff', '00000000000000ff', 'f0f0f0f0f0f0f0f0',
                                        '0000000100000000'])[1 + abs(hashint4(g * 4 + w)) % (3 + w + w / 3)], '')
               FROM generate_series(0, 3) w), 'hex')::simhash256 AS fp
FROM generate_series(1, 1200) g;
CREATE TABLE tie128 AS
SELECT id, substring(fp::bit(256) FROM 65 FOR 128)::bit(128)::simhash128 AS fp FROM tie256 WHERE id <= 0;
CALL pg_temp.self_join('tie256', 'tie_truth256', 70);
CALL pg_temp.self_join('tie128', 'tie_truth128', 40);
SELECT (SELECT count(DISTINCT fp) FROM tie256) AS fps256,
       (SELECT count(DISTINCT fp::bit(256)::bit(64)) FROM tie256) AS words0,
       (SELECT count(DISTINCT fp) FROM tie128) AS fps128;
SELECT 128 AS width, k, (SELECT count(*) FROM tie_truth128 WHERE distance <= k) AS self_join,
       pg_temp.differences('tie128', 'tie_truth128', k) AS differences
FROM unnest(ARRAY[0, 1, 3, 16, 40]) k
UNION ALL
SELECT 256, k, (SELECT count(*) FROM tie_truth256 WHERE distance <= k),
       pg_temp.differences('tie256', 'tie_truth256', k)
FROM unnest(ARRAY[0, 1, 3, 32, 70]) k;
SELECT 128 AS width, 3 AS k, pg_temp.group_differences('tie128', 3) AS differences
UNION ALL
SELECT 256, 32, pg_temp.group_differences('tie256', 32);
SELECT 256 AS width, 3 AS k, pg_temp.cluster_differences('tie256', 'tie_truth256', 3) AS result;

-- errors: k outside 0..W, columns of another type
\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM w128', 129)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM w256', 257)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_clusters('SELECT id, fp FROM w256', -1)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_group_pairs('SELECT id::text, fp FROM w128', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp::bytea FROM w256', 3)$q$);
SET maintenance_work_mem = '1MB';
-- (simhash_pairs and simhash_clusters spill beyond it: sql/batch_spill.sql;
-- simhash_group_pairs does not)
SELECT pg_temp.err($q$SELECT * FROM simhash_group_pairs('SELECT id, fp FROM w256', 3)$q$);
-- the bytes a row of each width keeps (doc/batch.md): 1 MB holds 9,541
-- rows of simhash256 (110 bytes each, counted in whole kB), the default 64 MB
-- 610,089
SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM w128', 3);
SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM w256', 3);
SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM w256 ORDER BY id LIMIT 9541', 3);
SELECT pg_temp.err($q$SELECT * FROM simhash_group_pairs('SELECT id, fp FROM w256 ORDER BY id LIMIT 9542', 3)$q$);
SELECT (65536 + 1) * 1024 / 110 AS rows_in_64mb;
RESET maintenance_work_mem;

-- simhash_reject_near_duplicates on wide columns, with 'skip': the rows
-- inserted one at a time (INSERT ... SELECT in id order) keep exactly the
-- greedy choice of the brute force: no two kept rows within k, and every
-- skipped row within k of a kept row inserted before it.  No index on the
-- column: the trigger reads the whole table (and warns once).
SET client_min_messages = error;
CREATE FUNCTION pg_temp.trigger_check(src text, typ text, k int, method text DEFAULT NULL) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE
	kept bigint;
	close_kept bigint;
	unexplained bigint;
BEGIN
	EXECUTE format($q$
	  CREATE TEMP TABLE dedup (id bigint PRIMARY KEY, fp %2$s);
	  CREATE TRIGGER dedup_skip BEFORE INSERT OR UPDATE ON dedup
	    FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '%3$s', 'skip');
	  %4$s
	  INSERT INTO dedup SELECT id, fp FROM %1$I WHERE id <= 1000 OR id >= 100000 ORDER BY id$q$,
	  src, typ, k, CASE WHEN method IS NULL THEN ''
	                    ELSE format('CREATE INDEX ON dedup USING %s (fp %s) %s;', split_part(method, ' ', 1), split_part(method, ' ', 2),
	                                CASE WHEN method LIKE '%%word%%' THEN 'WITH (fastupdate = off)' ELSE '' END) END);
	SELECT count(*) INTO kept FROM dedup WHERE fp IS NOT NULL;
	SELECT count(*) INTO close_kept FROM dedup a JOIN dedup b ON a.id < b.id AND a.fp <-> b.fp <= k;
	EXECUTE format($q$
	  SELECT count(*) FROM %1$I s
	  WHERE (s.id <= 1000 OR s.id >= 100000) AND s.fp IS NOT NULL
	    AND NOT EXISTS (SELECT FROM dedup d WHERE d.id = s.id)
	    AND NOT EXISTS (SELECT FROM dedup d WHERE d.id < s.id AND d.fp <-> s.fp <= %2$s)$q$, src, k)
	  INTO unexplained;
	DROP TABLE dedup;
	RETURN format('%s kept, %s kept pairs within k, %s skipped rows without an earlier kept row within k',
	              kept, close_kept, unexplained);
END $f$;
SELECT 128 AS width, k, pg_temp.trigger_check('w128', 'simhash128', k) AS result
FROM unnest(ARRAY[0, 16, 128]) k
UNION ALL
SELECT 256, k, pg_temp.trigger_check('w256', 'simhash256', k)
FROM unnest(ARRAY[0, 32, 63, 64, 256]) k;
-- the same through the default GIN class at a small k, the word-key GIN
-- class at the radii it is for, and a GiST index at the largest (GIN's
-- probes grow fast with k)
SELECT 128 AS width, k, m AS method, pg_temp.trigger_check('w128', 'simhash128', k, m) AS result
FROM (VALUES (4, 'gin'), (16, 'gin simhash128_gin_word_ops'), (32, 'gist')) x(k, m)
UNION ALL
SELECT 256, k, m, pg_temp.trigger_check('w256', 'simhash256', k, m)
FROM (VALUES (8, 'gin'), (32, 'gin simhash256_gin_word_ops'), (64, 'gist')) x(k, m);
RESET client_min_messages;

-- 'reject': 23P01 naming the row and both fingerprints; an UPDATE that
-- keeps the fingerprint is not checked; a generated wide column
CREATE TABLE wdocs (id int PRIMARY KEY, fp simhash256);
CREATE TRIGGER wdocs_reject BEFORE INSERT OR UPDATE ON wdocs
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '40');
INSERT INTO wdocs SELECT id, fp FROM w256 WHERE id = 100100;
\set VERBOSITY default
INSERT INTO wdocs SELECT 2, fp FROM w256 WHERE id = 100101;
\set VERBOSITY terse
SELECT (a.fp <-> b.fp) AS distance FROM w256 a, w256 b WHERE a.id = 100100 AND b.id = 100101;
INSERT INTO wdocs SELECT 3, fp FROM w256 WHERE id = 1;
UPDATE wdocs SET id = 4 WHERE id = 3;
SELECT id FROM wdocs ORDER BY id;
CREATE TABLE gdocs (id int PRIMARY KEY, body text,
                    fp simhash128 GENERATED ALWAYS AS (to_simhash128(body)) STORED);
CREATE TRIGGER gdocs_reject BEFORE INSERT OR UPDATE ON gdocs
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '4');
INSERT INTO gdocs (id, body) VALUES (1, 'the quick brown fox jumps over the lazy dog');
INSERT INTO gdocs (id, body) VALUES (2, 'the quick brown fox jumps over the lazy dog');
INSERT INTO gdocs (id, body) VALUES (3, 'an entirely different sentence about databases');
SELECT id FROM gdocs ORDER BY id;
-- trigger arguments: k in 0..W
CREATE TABLE wbad (id int, fp simhash128);
CREATE TRIGGER wbad BEFORE INSERT ON wbad
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '129');
SELECT pg_temp.err($q$INSERT INTO wbad VALUES (1, NULL)$q$);
DROP TABLE w128, w256, truth128, truth256, few128, few256, wdocs, gdocs, wbad,
  tie128, tie256, tie_truth128, tie_truth256;
