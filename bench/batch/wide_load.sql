-- bench/batch/wide_load.sql: the table w_data (id bigint, fp :fptype) for
-- one step of the wide run of bench/batch/run; psql variables :width (128
-- or 256), :fptype (simhash128 or simhash256), :words (2 or 4), :rows and
-- :klist (the radii of the step, as an array literal such as {32,16}).
--
-- :rows uniform random fingerprints (ids 1..:rows), plus planted clusters:
-- max(:rows/500, 1) centres (ids :rows + 64c), each with one variant at
-- every distance of the list below (distinct random bit positions
-- flipped: the centre's bit string XOR a mask of d bits), and every 4th
-- centre with an exact duplicate.  The distances: the powers of two up to
-- the largest k, 3/4 of it, and each k and k + 1 (a variant just outside
-- the radius, which must not pair with its centre at that k); at 256 bits
-- and k = 32, 16: 1, 2, 4, 8, 16, 17, 24, 32, 33.  Random fingerprints are
-- never within these radii of each other (at 256 bits and k = 32 two of
-- them are within it with probability about 1e-29), so the pairs are the
-- planted ones.  Every variant's distance to its centre is checked with
-- <-> here (w_checks).  Also makes w_sample, the rows the exactness check
-- measures by brute force: 100 random rows and 100 planted rows, chosen by
-- a hash of the id.  Sets :centres and :dists.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS w_data, w_centres, w_planted, w_sample, w_brute, w_pairs_s, w_clusters_s;
SELECT greatest(:rows / 500, 1) AS centres,
       (SELECT array_agg(d ORDER BY d)
          FROM (SELECT DISTINCT d
                  FROM (SELECT 1 << i AS d FROM generate_series(0, 8) i
                         WHERE 1 << i <= (SELECT max(k) FROM unnest(:'klist'::int[]) k)
                        UNION ALL SELECT max(k) * 3 / 4 FROM unnest(:'klist'::int[]) k
                        UNION ALL SELECT k FROM unnest(:'klist'::int[]) k
                        UNION ALL SELECT k + 1 FROM unnest(:'klist'::int[]) k) x
                 WHERE d BETWEEN 1 AND :width) y) AS dists \gset

CREATE TABLE w_data (id bigint NOT NULL, fp :fptype NOT NULL);
INSERT INTO w_data
SELECT i, w_bytes(i, 1000, :words):: :fptype FROM generate_series(1, :rows) i;

CREATE TABLE w_centres AS
SELECT c, :rows::bigint + c * 64 AS id, w_bytes(c, 2000, :words):: :fptype AS fp
  FROM generate_series(1, :centres) c;
-- variant j of a centre: id centre + j, its bits XOR a mask of d distinct
-- positions (the first d of 0..W-1 in the order of a hash seeded by the
-- variant's id; position p is bit p of the text form's bit string)
CREATE TABLE w_planted AS
SELECT c.id + t.j AS id, c.id AS centre, t.d,
       (c.fp::bit(:width)
        # (SELECT bit_or(B'1'::bit(:width) >> b.p)
             FROM (SELECT p FROM generate_series(0, :width - 1) p
                    ORDER BY hashint8extended(p, c.id + t.j) LIMIT t.d) b)):: :fptype AS fp
  FROM w_centres c CROSS JOIN unnest(:'dists'::int[]) WITH ORDINALITY AS t(d, j)
UNION ALL
SELECT c.id + 63, c.id, 0, c.fp FROM w_centres c WHERE c.c % 4 = 0;
INSERT INTO w_data SELECT id, fp FROM w_centres UNION ALL SELECT id, fp FROM w_planted;

INSERT INTO w_checks
SELECT format('%s random rows: every planted variant is at its distance from its centre (<->)', :rows),
       count(*) FILTER (WHERE (p.fp <-> c.fp) <> p.d) = 0,
       format('%s variants, %s at another distance; distances %s', count(*),
              count(*) FILTER (WHERE (p.fp <-> c.fp) <> p.d), :'dists')
  FROM w_planted p JOIN w_centres c ON c.id = p.centre;

VACUUM ANALYZE w_data;
SELECT pg_prewarm('w_data') AS blocks \gset

CREATE TABLE w_sample AS
(SELECT id, fp FROM w_data WHERE id <= :rows ORDER BY hashint8extended(id, 7) LIMIT 100)
UNION ALL
(SELECT id, fp FROM w_data WHERE id > :rows ORDER BY hashint8extended(id, 7) LIMIT 100);
