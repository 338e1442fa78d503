-- simhash_pairs and simhash_clusters: the same pairs as the self-join, for
-- k = 0..8, with duplicates, repeated ids, NULL fingerprints, empty input.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;

CREATE TABLE docs (id bigint, fp simhash);
INSERT INTO docs SELECT i, hashint8extended(i, 5)::simhash FROM generate_series(1, 3000) i;
-- planted clusters: 60 centres, variants at distance 1..8 (distinct bits)
INSERT INTO docs
SELECT 10000 + c * 20 + v,
       (hashint8extended(c, 6) # coalesce((SELECT bit_or(1::bigint << ((c * 3 + j * 19) % 64))
                                           FROM generate_series(1, v % 9) j), 0))::simhash
FROM generate_series(1, 60) c, generate_series(0, 12) v;
-- exact duplicates (distance 0), a repeated id, NULL fingerprints
INSERT INTO docs SELECT 20000 + i, fp FROM docs WHERE id BETWEEN 1 AND 40 AND id % 4 = 0;
INSERT INTO docs VALUES (7, hashint8extended(1007, 5)::simhash), (30001, NULL), (30002, NULL);
CREATE INDEX ON docs USING gin (fp simhash_gin_ops);
ANALYZE docs;

-- pair_differences(tbl, k): rows in which simhash_pairs over tbl and the
-- self-join a.fp <-> b.fp <= k differ (0 when they are the same multiset)
CREATE FUNCTION pg_temp.pair_differences(tbl text, k int) RETURNS bigint LANGUAGE plpgsql AS $f$
DECLARE
	n bigint;
BEGIN
	EXECUTE format($q$
	  SELECT count(*) FROM (
	    (SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp FROM %1$I', %2$s)
	     EXCEPT ALL
	     SELECT a.id, b.id, (a.fp <-> b.fp)::integer FROM %1$I a JOIN %1$I b ON a.fp <-> b.fp <= %2$s AND a.id < b.id)
	    UNION ALL
	    (SELECT a.id, b.id, (a.fp <-> b.fp)::integer FROM %1$I a JOIN %1$I b ON a.fp <-> b.fp <= %2$s AND a.id < b.id
	     EXCEPT ALL
	     SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp FROM %1$I', %2$s))) x$q$, tbl, k) INTO n;
	RETURN n;
END $f$;
SELECT k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM docs', k)) AS pairs,
       pg_temp.pair_differences('docs', k) AS differences
FROM generate_series(0, 8) k;
-- every pair once, id1 < id2, distances within k
SELECT count(*) AS pairs, count(DISTINCT (id1, id2, distance)) AS distinct_rows,
       bool_and(id1 < id2) AS ordered, max(distance) AS max_distance
FROM simhash_pairs('SELECT id, fp FROM docs', 5);
SELECT * FROM simhash_pairs('SELECT id, fp FROM docs', 0) ORDER BY id1, id2 LIMIT 5;
-- int4 ids, and a query with its own filter
SELECT count(*) FROM simhash_pairs('SELECT id::int, fp FROM docs WHERE id >= 10000', 3);
-- empty input, only NULLs, one row
SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM docs WHERE false', 3);
SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM docs WHERE fp IS NULL', 3);
SELECT count(*) FROM simhash_pairs('SELECT 1::bigint, ''0000000000000000''::simhash', 3);
-- larger radii are exact too (k up to 16)
SELECT count(*) AS pairs_k12, pg_temp.pair_differences('docs', 12) AS differences FROM simhash_pairs('SELECT id, fp FROM docs', 12);

-- Every loop this CPU runs (simhash.batch_kernel) gives the self-join's
-- pairs.  dense: 40 clusters of 60 near copies (0..13 random bits each) in
-- 1,000 random fingerprints, so that nodes of every size are measured:
-- fewer than 4 keys, 4 to 32 (AVX2's small-node loop), larger ones (the
-- block loops), with and without a pair within k.
CREATE TABLE dense (id bigint, fp simhash);
INSERT INTO dense SELECT i, hashint8extended(i, 11)::simhash FROM generate_series(1, 1000) i;
INSERT INTO dense
SELECT 1000 + c * 100 + v,
       (hashint8extended(c, 12) # coalesce((SELECT bit_or(1::bigint << (hashint8extended(c * 1000 + v * 20 + j, 13) & 63)::int)
                                           FROM generate_series(1, v % 14) j), 0))::simhash
FROM generate_series(1, 40) c, generate_series(0, 59) v;
-- the self-join's pairs once, up to k = 16
CREATE TABLE dense_join AS
SELECT a.id AS id1, b.id AS id2, (a.fp <-> b.fp)::integer AS distance
FROM dense a JOIN dense b ON a.fp <-> b.fp <= 16 AND a.id < b.id;
-- the loops tried (portable always; the others where the CPU has them)
-- and the radii at which one differed from the self-join
CREATE FUNCTION pg_temp.loops_against_self_join(ks int[]) RETURNS TABLE (portable_tried boolean, differing text) LANGUAGE plpgsql AS $f$
DECLARE
	kern text;
	k int;
	n bigint;
BEGIN
	portable_tried := false;
	differing := '';
	FOREACH kern IN ARRAY ARRAY['portable', 'popcnt', 'avx2', 'avx512'] LOOP
		BEGIN
			PERFORM set_config('simhash.batch_kernel', kern, true);
		EXCEPTION WHEN invalid_parameter_value THEN
			CONTINUE;			-- this CPU lacks it
		END;
		portable_tried := portable_tried OR kern = 'portable';
		FOREACH k IN ARRAY ks LOOP
			SELECT count(*) INTO n FROM (
				(SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp FROM dense', k)
				 EXCEPT ALL SELECT * FROM dense_join WHERE distance <= k)
				UNION ALL
				(SELECT * FROM dense_join WHERE distance <= k
				 EXCEPT ALL SELECT id1, id2, distance FROM simhash_pairs('SELECT id, fp FROM dense', k))) x;
			IF n <> 0 THEN
				differing := differing || format('%s at k = %s: %s rows; ', kern, k, n);
			END IF;
		END LOOP;
	END LOOP;
	PERFORM set_config('simhash.batch_kernel', 'auto', true);
	RETURN NEXT;
END $f$;
SELECT k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM dense', k)) AS pairs,
       (SELECT count(*) FROM dense_join WHERE distance <= k) AS self_join_pairs
FROM unnest('{0,4,9,13,16}'::int[]) k;
SELECT * FROM pg_temp.loops_against_self_join('{0,4,9,13,16}');
SHOW simhash.batch_kernel;

-- clusters: connected components of the pair graph, labelled by smallest id
CREATE TABLE clusters AS SELECT * FROM simhash_clusters('SELECT id, fp FROM docs', 3);
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, count(DISTINCT cluster_id) AS clusters FROM clusters;
-- every pair lies inside one cluster, the label is the smallest member id
SELECT count(*) AS split_pairs FROM simhash_pairs('SELECT id, fp FROM docs', 3) p
  JOIN clusters a ON a.id = p.id1 JOIN clusters b ON b.id = p.id2 WHERE a.cluster_id <> b.cluster_id;
SELECT count(*) AS bad_labels FROM (SELECT cluster_id, min(id) AS m FROM clusters GROUP BY cluster_id) x WHERE m <> cluster_id;
-- components equal those found by iterating the self-join (label propagation)
CREATE TABLE lab AS SELECT DISTINCT id, id AS label FROM docs WHERE fp IS NOT NULL;
CREATE TABLE edges AS SELECT DISTINCT a.id AS a, b.id AS b FROM docs a JOIN docs b ON a.fp <-> b.fp <= 3 AND a.id <> b.id;
\getenv abs_srcdir PG_ABS_SRCDIR
\set labels_sql :abs_srcdir '/sql/include/labels.sql'
\i :labels_sql
CALL pg_temp.propagate_labels();
SELECT count(*) AS label_differences FROM lab FULL JOIN clusters c USING (id)
WHERE lab.label IS DISTINCT FROM c.cluster_id;
SELECT size, count(*) AS clusters FROM (SELECT count(*) AS size FROM clusters GROUP BY cluster_id) x
GROUP BY size ORDER BY size;
-- the repeated id 7 is one document; NULL fingerprints are not in the output
SELECT count(*) FROM clusters WHERE id = 7;
SELECT count(*) FROM clusters WHERE id IN (30001, 30002);
-- keeping one representative per group
SELECT count(*) AS representatives FROM clusters WHERE id = cluster_id;

-- skewed fingerprints (each bit 1 with probability 1/4, as for texts of
-- two features), planted near-duplicates and a run of 300 equal ones: the
-- segments are dealt from the bit balance, the result is still the self-join
CREATE TABLE skew (id bigint, fp simhash);
INSERT INTO skew SELECT i, (hashint8extended(i, 7) & hashint8extended(i, 8))::simhash FROM generate_series(1, 3000) i;
INSERT INTO skew
SELECT 10000 + c * 20 + v,
       ((hashint8extended(c, 9) & hashint8extended(c, 10))
        # coalesce((SELECT bit_or(1::bigint << ((c * 5 + j * 23) % 64)) FROM generate_series(1, v % 9) j), 0))::simhash
FROM generate_series(1, 60) c, generate_series(0, 12) v;
INSERT INTO skew SELECT 20000 + i, '0000000000000000' FROM generate_series(1, 300) i;
INSERT INTO skew SELECT 30000 + id, fp FROM skew WHERE id BETWEEN 1 AND 90 AND id % 3 = 0;
CREATE INDEX ON skew USING gin (fp simhash_gin_ops);
ANALYZE skew;
SELECT k, (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM skew', k)) AS pairs,
       pg_temp.pair_differences('skew', k) AS differences
FROM unnest(ARRAY[0, 3, 6]) k;

-- simhash_group_pairs: each set of rows sharing a fingerprint is one group
-- (smallest id, number of rows), reported once alone when it has two rows
-- or more; pairs of groups are the self-join of the distinct fingerprints
CREATE TABLE groups AS SELECT min(id) AS rep, count(*) AS size, fp FROM skew GROUP BY fp;
CREATE TABLE gp AS SELECT * FROM simhash_group_pairs('SELECT id, fp FROM skew', 4);
CREATE TABLE gp_expected AS
SELECT a.rep AS id1, b.rep AS id2, (a.fp <-> b.fp)::integer AS distance, a.size AS size1, b.size AS size2
  FROM groups a JOIN groups b ON a.fp <-> b.fp <= 4 AND a.rep < b.rep
UNION ALL
SELECT rep, rep, 0, size, size FROM groups WHERE size > 1;
SELECT count(*) FILTER (WHERE id1 = id2) AS groups_alone,
       (SELECT count(*) FROM groups WHERE size > 1) AS expected,
       bool_and(id1 < id2 OR (distance = 0 AND size1 = size2 AND size1 > 1)) AS well_formed
FROM gp;
SELECT count(*) AS differences FROM (
  (SELECT * FROM gp EXCEPT ALL SELECT * FROM gp_expected)
  UNION ALL
  (SELECT * FROM gp_expected EXCEPT ALL SELECT * FROM gp)) x;
-- with unique ids, the group rows count simhash_pairs' rows
SELECT sum(CASE WHEN id1 = id2 THEN size1 * (size1 - 1) / 2 ELSE size1 * size2 END) AS pairs_from_groups,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM skew', 4)) AS pairs
FROM gp;
SELECT * FROM simhash_group_pairs('SELECT id, fp FROM skew WHERE fp = ''0000000000000000''', 3);
-- clusters: the run of 300 equal fingerprints is one cluster
SELECT count(*) AS ids, count(DISTINCT cluster_id) FILTER (WHERE id BETWEEN 20001 AND 20300) AS clusters_of_run,
       min(cluster_id) FILTER (WHERE id BETWEEN 20001 AND 20300) AS label
FROM simhash_clusters('SELECT id, fp FROM skew', 3);
DROP TABLE skew, groups, gp, gp_expected;

-- 50,000 skewed fingerprints at k = 6: enough rows for the passes to sort
-- runs of equal segments again (t = m - k >= 2, each run of a segment of at
-- most 8 bits in one counting pass) and to sort buckets larger than the
-- sort buffer in place (those whose leading bits are zeros); the pairs
-- equal the self-join (EXCEPT ALL both ways)
CREATE TABLE skew50k AS
SELECT i::bigint AS id, (hashint8extended(i, 21) & hashint8extended(i, 22))::simhash AS fp
FROM generate_series(1, 50000) i;
CREATE INDEX ON skew50k USING gin (fp simhash_gin_ops);
ANALYZE skew50k;
SELECT pg_temp.pair_differences('skew50k', 6) AS differences,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM skew50k', 6)) AS pairs;
DROP TABLE skew50k;

-- errors
\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM docs', -1)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id, fp FROM docs', 17)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT fp, id FROM docs', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT id FROM docs', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELECT NULL::bigint, fp FROM docs', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_pairs('SELEC nonsense', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_clusters('SELECT id, fp FROM no_such_table', 3)$q$);
SELECT pg_temp.err($q$SELECT * FROM simhash_group_pairs('SELECT id, fp FROM docs', 17)$q$);
SET maintenance_work_mem = '1MB';
-- (simhash_pairs spills beyond it: sql/batch_spill.sql)
SELECT pg_temp.err($q$SELECT * FROM simhash_group_pairs('SELECT i::bigint, hashint8extended(i, 1)::simhash FROM generate_series(1, 100000) i', 3)$q$);
RESET maintenance_work_mem;
SELECT count(*) AS strict_null_gives_no_rows FROM simhash_pairs(NULL, 3);
DROP TABLE docs, dense, dense_join, clusters, lab, edges;
