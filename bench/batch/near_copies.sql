-- The rows of bench/batch/spill.sql and kernels.sql: table :tbl of :rows
-- random 256-bit fingerprints (md5 of the id) plus 2% near copies, each 0-32
-- random bits from its row (id 20000000 + the row's id).  Included with \ir.
CREATE OR REPLACE FUNCTION pg_temp.flip(b bytea, n int, seed int) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
  i int;
  p int;
BEGIN
  FOR i IN 1..n LOOP
    p := abs(hashint4(seed * 100 + i)) % 256;
    b := set_bit(b, p, 1 - get_bit(b, p));
  END LOOP;
  RETURN b;
END $$;
DROP TABLE IF EXISTS :"tbl";
CREATE TABLE :"tbl" AS
  SELECT i::bigint AS id, simhash256(decode(md5(i::text) || md5((i + 77777777)::text), 'hex')) AS fp
  FROM generate_series(1, :rows) i;
INSERT INTO :"tbl"
  SELECT 20000000 + id, simhash256(pg_temp.flip(simhash256_send(fp), (id % 33)::int, id::int))
  FROM :"tbl" WHERE id <= :rows / 50;
VACUUM ANALYZE :"tbl";
