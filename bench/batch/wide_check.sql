-- bench/batch/wide_check.sql: exactness of one step of the wide run of
-- bench/batch/run, against brute force on the rows of w_sample (100 random,
-- 100 planted; see wide_load.sql).  psql variables :rows (random rows of
-- the step), :klist, :mwm.
--
-- Brute force: every row of w_data within the largest k of a sampled row,
-- by a full scan that measures fp <-> sample.fp for every (row, sample)
-- pair.  For each k, the pairs (id1 < id2, distance) with a sampled id
-- among them must be exactly the rows of simhash_pairs with a sampled id
-- (EXCEPT ALL both ways; their number is the "mismatches"), and
-- simhash_clusters must put both ends of each of these pairs, and each
-- planted variant within k of its centre, in one cluster labelled at most
-- its smallest id ("cluster violations").  Appends to w_exact and
-- w_checks.
\set ON_ERROR_STOP 1
SET maintenance_work_mem = :'mwm';
SELECT max(k) AS kmax FROM unnest(:'klist'::int[]) k \gset
SELECT count(*) AS nsample FROM w_sample \gset
CREATE TABLE w_brute AS
SELECT s.id AS sid, d.id AS oid, (s.fp <-> d.fp)::int AS dist
  FROM w_data d JOIN w_sample s ON d.fp <-> s.fp <= :kmax AND d.id <> s.id;
-- the pairs and clusters of the functions, kept for the sampled ids (and,
-- for the clusters, the planted rows and the brute-force neighbours)
CREATE TABLE w_pairs_s AS
SELECT k, p.id1, p.id2, p.distance
  FROM unnest(:'klist'::int[]) k CROSS JOIN LATERAL simhash_pairs('SELECT id, fp FROM w_data', k) p
 WHERE p.id1 IN (SELECT id FROM w_sample) OR p.id2 IN (SELECT id FROM w_sample);
CREATE TABLE w_clusters_s AS
SELECT k, c.id, c.cluster_id
  FROM unnest(:'klist'::int[]) k CROSS JOIN LATERAL simhash_clusters('SELECT id, fp FROM w_data', k) c
 WHERE c.id > :rows OR c.id IN (SELECT id FROM w_sample) OR c.id IN (SELECT oid FROM w_brute);
CREATE INDEX ON w_clusters_s (k, id);
ANALYZE w_clusters_s;

CREATE TEMP TABLE expect AS
SELECT DISTINCT k, least(sid, oid) AS id1, greatest(sid, oid) AS id2, dist AS distance
  FROM w_brute, unnest(:'klist'::int[]) k WHERE dist <= k;
INSERT INTO w_exact
SELECT (SELECT count(*) FROM w_data), k, :nsample,
       (SELECT count(*) FROM expect e WHERE e.k = kk.k),
       (SELECT count(*) FROM w_pairs_s p WHERE p.k = kk.k),
       (SELECT count(*) FROM ((SELECT id1, id2, distance FROM expect e WHERE e.k = kk.k
                               EXCEPT ALL
                               SELECT id1, id2, distance FROM w_pairs_s p WHERE p.k = kk.k)
                              UNION ALL
                              (SELECT id1, id2, distance FROM w_pairs_s p WHERE p.k = kk.k
                               EXCEPT ALL
                               SELECT id1, id2, distance FROM expect e WHERE e.k = kk.k)) x),
       (SELECT count(*) FROM expect e
          LEFT JOIN w_clusters_s a ON a.k = e.k AND a.id = e.id1
          LEFT JOIN w_clusters_s b ON b.k = e.k AND b.id = e.id2
         WHERE e.k = kk.k AND (a.cluster_id IS DISTINCT FROM b.cluster_id OR a.cluster_id > e.id1))
       + (SELECT count(*) FROM w_planted p
            LEFT JOIN w_clusters_s a ON a.k = kk.k AND a.id = p.id
            LEFT JOIN w_clusters_s b ON b.k = kk.k AND b.id = p.centre
           WHERE p.d <= kk.k AND (a.cluster_id IS DISTINCT FROM b.cluster_id OR b.cluster_id > least(p.id, p.centre)))
  FROM unnest(:'klist'::int[]) kk(k);
DROP TABLE w_brute, w_pairs_s, w_clusters_s;
