-- Radius search and nearest neighbours on simhash128 and simhash256: the
-- default GIN and GiST classes answer every spelling of "within k" and
-- ORDER BY fp <-> q, exactly: the index answers equal a sequential scan's
-- at radii up to the whole width (GIN: the segment lookups up to 36 bits at
-- 128 and 65 at 256, the whole-index scan beyond), the ten nearest have the
-- distances of a sort.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;
\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql

\set index_used_sql :abs_srcdir '/sql/include/index_used.sql'
\i :index_used_sql

-- flips(w, c, v): the text of a w-bit string with v bits set, at the
-- distinct positions (7 c + 37 j) mod w, j = 1..v (37 is odd, so they differ)
CREATE FUNCTION pg_temp.flips(w int, c int, v int) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(CASE WHEN p IN (SELECT (c * 7 + j * 37) % w FROM generate_series(1, v) j)
	                       THEN '1' ELSE '0' END, '' ORDER BY p)
	FROM generate_series(0, w - 1) p $$;
SELECT w, v, length(pg_temp.flips(w, 3, v)) AS len, length(replace(pg_temp.flips(w, 3, v), '0', '')) AS ones
FROM (VALUES (128, 40), (256, 80)) x (w, v);

-- ------------------------------------------------------------------
-- simhash128
-- ------------------------------------------------------------------
\set W 128
\set radii '0, 3, 8, 16, 32, 36, 37, 64, 127, 128'
\set flips '0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 40'
\set pk 16
\set wide_sql :abs_srcdir '/sql/include/wide_index_width.sql'
\i :wide_sql

-- ------------------------------------------------------------------
-- simhash256
-- ------------------------------------------------------------------
\set W 256
\set radii '0, 8, 16, 31, 32, 64, 65, 66, 128, 256'
\set flips '0, 1, 4, 8, 16, 24, 31, 32, 40, 64, 80'
\set pk 31
\i :wide_sql

-- ------------------------------------------------------------------
-- the ball types
-- ------------------------------------------------------------------
SELECT simhash_ball(to_simhash128('a'), 3) AS b128, pg_typeof(simhash_ball(to_simhash128('a'), 3));
SELECT simhash_ball(to_simhash256('a'), 3) AS b256, pg_typeof(simhash_ball(to_simhash256('a'), 3));
-- an untyped centre is still a 64-bit one, as before the wide types
SELECT simhash_ball('f3a90c1e00b2d47f', 3), pg_typeof(simhash_ball('f3a90c1e00b2d47f', 3));
SELECT '(0123456789ABCDEF0123456789abcdef,-1)'::simhash128_ball,
       '(0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef,2147483647)'::simhash256_ball;
-- text and binary forms read back as the same ball
SELECT b::text::simhash128_ball::text = b::text AS text_round_trip,
       simhash128_ball_send(b) AS binary
FROM (SELECT simhash_ball('0123456789abcdef0123456789abcdef'::simhash128, 7) AS b) x;
-- in the ball: exactly within the radius, the commutator too
SELECT k, '00000000000000000000000000000000'::simhash128 <@ simhash_ball('0000000000000000000000000000ffff'::simhash128, k) AS inside,
       simhash_ball('0000000000000000000000000000ffff'::simhash128, k) @> '00000000000000000000000000000000'::simhash128 AS contains
FROM unnest(ARRAY[-1, 15, 16, 2147483647]) k;
SELECT '0000000000000000000000000000000000000000000000000000000000000000'::simhash256 <@ '(ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff,255)'::simhash256_ball AS r255,
       '0000000000000000000000000000000000000000000000000000000000000000'::simhash256 <@ '(ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff,256)'::simhash256_ball AS r256;
-- a literal ball of the other width, or a column of the other width, is
-- an error of the parser, not a wrong answer
SELECT pg_temp.err($$SELECT to_simhash128('a') <@ simhash_ball(to_simhash256('a'), 3)$$);

-- bad input: 22P02 naming the type and the expected form
SELECT '(0123456789abcdef,3)'::simhash128_ball;
-- (simhash128_ball: a short or long fingerprint, a bad digit, no
-- parentheses, no radius, a fractional radius, a trailing space, a radius
-- beyond int; then the other types)
SELECT q, pg_temp.err(q) FROM unnest(ARRAY(SELECT format('SELECT %L::simhash128_ball', b) FROM unnest(ARRAY[
	'(0123456789abcdef,3)', '(0123456789abcdef0123456789abcdef0,3)', '(0123456789abcdef0123456789abcdeg,3)',
	'0123456789abcdef0123456789abcdef,3', '(0123456789abcdef0123456789abcdef,)',
	'(0123456789abcdef0123456789abcdef,3.5)', '(0123456789abcdef0123456789abcdef,3) ',
	'(0123456789abcdef0123456789abcdef,2147483648)']) b) || ARRAY[
	$$SELECT '(0123456789abcdef0123456789abcdef,3)'::simhash256_ball$$,
	$$SELECT ''::simhash256_ball$$,
	$$SELECT '(00000000000000000000000000000000000000000000000000000000000000000,1)'::simhash256_ball$$,
	$$SELECT 'x'::simhash128_gist_key$$,
	$$SELECT simhash_ball(B'101'::simhash128, 3)$$,
	$$SELECT simhash_ball('\x0102'::bytea::simhash256, 3)$$]) q;
