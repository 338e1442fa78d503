-- Shared by batch_spill.sql and guard_locks.sql (\i):
-- flip(b, n, seed): b with n bits flipped (positions from hashint4, so the
-- same on every platform; a position drawn twice flips back)
CREATE FUNCTION pg_temp.flip(b bytea, n int, seed int) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
  i int;
  p int;
BEGIN
  FOR i IN 1..n LOOP
    p := abs(hashint4(seed * 100 + i)) % (8 * length(b));
    b := set_bit(b, p, 1 - get_bit(b, p));
  END LOOP;
  RETURN b;
END $$;
