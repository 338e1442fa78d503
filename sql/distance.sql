-- Hamming distance: a <-> b and hamming_distance(a, b)
CREATE EXTENSION IF NOT EXISTS simhash;

SELECT '0000000000000000'::simhash <-> '0000000000000000'::simhash AS zero,
       '0000000000000000'::simhash <-> 'ffffffffffffffff'::simhash AS all64,
       '0000000000000000'::simhash <-> '0000000000000001'::simhash AS low_bit,
       '0000000000000000'::simhash <-> '8000000000000000'::simhash AS high_bit,
       'f3a90c1e00b2d47f'::simhash <-> 'f3a90c1e00b2d47e'::simhash AS one,
       'f0f0f0f0f0f0f0f0'::simhash <-> '0f0f0f0f0f0f0f0f'::simhash AS all_differ;
SELECT hamming_distance('f3a90c1e00b2d47f', '03a90c1e00b2d470') AS eight;

-- symmetric, and equal to the popcount of the XOR of the bigint casts
SELECT count(*) AS mismatches
FROM (SELECT hashint8extended(i, 1) AS a, hashint8extended(i, 2) AS b
      FROM generate_series(1, 5000) i) x
WHERE a::simhash <-> b::simhash <> length(replace((a # b)::bit(64)::text, '0', ''))
   OR a::simhash <-> b::simhash <> b::simhash <-> a::simhash
   OR hamming_distance(a::simhash, b::simhash) <> a::simhash <-> b::simhash;

-- clients see an integer (int4): the result is a domain over integer
SELECT pg_typeof('0000000000000000'::simhash <-> '0000000000000003'::simhash);
-- \gdesc shows the type the server sends to clients in RowDescription
SELECT '0000000000000000'::simhash <-> '0000000000000003'::simhash AS d,
       hamming_distance('0000000000000000', '0000000000000003') AS h \gdesc
SELECT format_type(t.typbasetype, NULL) AS base_type
FROM pg_type t WHERE t.oid = 'simhash_distance'::regtype;
SELECT ('0000000000000000'::simhash <-> '0000000000000003'::simhash) + 1 AS plus_one;
SELECT ('0000000000000000'::simhash <-> '0000000000000003'::simhash) <= 3 AS within;
CREATE TEMP TABLE dist AS
  SELECT '0000000000000000'::simhash <-> '00000000000000ff'::simhash AS d;
SELECT d, pg_typeof(d) FROM dist;

-- NULL in, NULL out
SELECT NULL::simhash <-> '0000000000000000'::simhash IS NULL AS is_null,
       hamming_distance(NULL, '0000000000000000') IS NULL AS is_null2;

-- the operator is its own commutator, and plain WHERE/ORDER BY forms work
CREATE TEMP TABLE fps AS
  SELECT i, ((1::bigint << (i % 64)) | (1::bigint << (i * 7 % 64)) | (CASE WHEN i % 3 = 0 THEN 7::bigint << (i % 50) ELSE 0 END))::simhash AS fp
  FROM generate_series(0, 99) i;
SELECT i, fp, fp <-> '0000000000000000' AS d
FROM fps WHERE fp <-> '0000000000000000' <= 3 ORDER BY d, i LIMIT 10;
SELECT i, fp <-> '000000000000ffff' AS d FROM fps ORDER BY fp <-> '000000000000ffff', i LIMIT 5;
SELECT count(*) FROM fps WHERE 3 >= fp <-> '0000000000000000';
