-- bench/fingerprints.sql: random fingerprints of :words 64-bit words as
-- bytea (their binary form, doc/simhash.md, Casts), for bench/index/bench_wide.sql
-- and bench/nearest/bench.sql (\ir).
--
-- pg_temp.rbytes(i, s): :words random 64-bit words as bytes (word j hashed
-- with seed s + j), big-endian, word 0 first.  A one-expression SQL
-- function, so the planner inlines it.
SELECT format('CREATE FUNCTION pg_temp.rbytes(i bigint, s bigint) RETURNS bytea LANGUAGE sql IMMUTABLE AS %L',
              'SELECT ' || string_agg(format('int8send(hashint8extended(i, s + %s))', w), ' || ' ORDER BY w))
  FROM generate_series(0, :words - 1) w \gexec

-- pg_temp.flip(b, seed, d): b with d distinct bits flipped, the positions
-- chosen by hashing with seed
CREATE FUNCTION pg_temp.flip(b bytea, seed bigint, d int) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE p int;
BEGIN
	FOR p IN SELECT x FROM generate_series(0, length(b) * 8 - 1) x
	          ORDER BY hashint8extended(x, seed) LIMIT d LOOP
		b := set_bit(b, p, 1 - get_bit(b, p));
	END LOOP;
	RETURN b;
END $$;
