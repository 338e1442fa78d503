-- bench/batch/load.sql: the table :tbl (id bigint, fp simhash) of a batch
-- benchmark, included by bench.sql and scale_load.sql; psql variables
-- :tbl, :dist (uniform or skewed) and :rows.  :rows random fingerprints
-- (uniform: one 64-bit hash; skewed: the AND of two, so each bit is 1 with
-- probability 1/4, as for the fingerprint of a text of two features of
-- equal weight), plus planted clusters: max(:rows/500, 1) centres of the
-- same distribution, each with 2 variants at distance 1, 2 and 3 and one at
-- 4, 5 and 6 (distinct random bit positions flipped); every 4th centre also
-- has an exact duplicate (distance 0).  Sets :centres.
CREATE TABLE :tbl (id bigint NOT NULL, fp simhash NOT NULL);
SELECT (:'dist' = 'skewed')::text AS skewed, greatest(:rows / 500, 1) AS centres \gset
INSERT INTO :tbl
SELECT i, (CASE WHEN :skewed::boolean THEN hashint8extended(i, 42) & hashint8extended(i, 44)
                ELSE hashint8extended(i, 42) END)::simhash
  FROM generate_series(1, :rows) i;
INSERT INTO :tbl
SELECT :rows::bigint + c * 16 + s.v,
       ((CASE WHEN :skewed::boolean THEN hashint8extended(c, 43) & hashint8extended(c, 45)
              ELSE hashint8extended(c, 43) END)
        # coalesce((SELECT bit_or(1::bigint << p)
                      FROM (SELECT p FROM generate_series(0, 63) p
                             ORDER BY hashint8extended(p, c * 16 + s.v) LIMIT s.d) b), 0))::simhash
  FROM generate_series(1, :centres) c
 CROSS JOIN (VALUES (0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3),
                    (7, 4), (8, 5), (9, 6), (10, 0)) s(v, d)
 WHERE s.v < 10 OR c % 4 = 0;
