-- The simhash type: text and binary I/O, casts, B-tree and hash support.
-- Also: CREATE EXTENSION as a non-superuser (trusted) and DROP EXTENSION
-- leaving nothing behind.

-- trusted extension: a role with CREATE on the database can install it
CREATE ROLE simhash_regress_user;
DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO simhash_regress_user', current_database()); END $$;
SET ROLE simhash_regress_user;
CREATE EXTENSION simhash;
SELECT extname, extrelocatable, extversion FROM pg_extension WHERE extname = 'simhash';
SELECT 'f3a90c1e00b2d47f'::simhash <-> '0000000000000000'::simhash AS d;
DROP EXTENSION simhash;
RESET ROLE;
-- nothing left behind
SELECT count(*) AS leftover FROM pg_type WHERE typname IN ('simhash', 'simhash_distance', '_simhash');
SELECT count(*) AS leftover FROM pg_proc WHERE proname LIKE '%simhash%' OR proname = 'hamming_distance';
SELECT count(*) AS leftover FROM pg_operator WHERE oprname = '<->' AND oprleft::regtype::text LIKE '%simhash%';
SELECT count(*) AS leftover FROM pg_opclass WHERE opcname LIKE 'simhash%';
DO $$ BEGIN EXECUTE format('REVOKE CREATE ON DATABASE %I FROM simhash_regress_user', current_database()); END $$;
DROP ROLE simhash_regress_user;

CREATE EXTENSION simhash;

-- text form: 16 hex digits, upper case accepted, printed in lower case
SELECT 'f3a90c1e00b2d47f'::simhash;
SELECT 'F3A90C1E00B2D47F'::simhash;
SELECT '0000000000000000'::simhash, 'ffffffffffffffff'::simhash;
SELECT simhash_in('0123456789abcdef') = '0123456789ABCDEF'::simhash AS same;

-- malformed text: 22P02, naming the text
\set VERBOSITY default
SELECT ''::simhash;
SELECT 'f3a90c1e00b2d47'::simhash;
SELECT 'f3a90c1e00b2d47f0'::simhash;
SELECT 'g3a90c1e00b2d47f'::simhash;
SELECT ' f3a90c1e00b2d47f'::simhash;
SELECT 'f3a90c1e00b2d47f '::simhash;
SELECT '0xf3a90c1e00b2d4'::simhash;
SELECT '-f3a90c1e00b2d47'::simhash;
SELECT '+f3a90c1e00b2d47'::simhash;
SELECT 'f3a90c1e-00b2d47'::simhash;
\set VERBOSITY terse

-- binary send/recv: 8 bytes, network byte order
SELECT simhash_send('f3a90c1e00b2d47f');
SELECT simhash_send('0000000000000001');

-- bigint: same 64 bits, two's complement
SELECT 'ffffffffffffffff'::simhash::bigint AS minus_one,
       '8000000000000000'::simhash::bigint AS min_bigint,
       '7fffffffffffffff'::simhash::bigint AS max_bigint;
SELECT (-1)::bigint::simhash, 1::bigint::simhash, (-9223372036854775808)::bigint::simhash;
SELECT simhash(42::bigint), simhash_to_bigint('000000000000002a');
SELECT count(*) AS roundtrip_failures
FROM generate_series(-1000, 1000) g(i),
     LATERAL (SELECT (i::bigint * 9223372036854775::bigint) AS v) x
WHERE v::simhash::bigint <> v;

-- bit(64): most significant bit first; other lengths are 22023
SELECT 'f3a90c1e00b2d47f'::simhash::bit(64);
SELECT B'1111001110101001000011000001111000000000101100101101010001111111'::simhash;
SELECT ('8000000000000001'::simhash::bit(64))::simhash;
SELECT B'101'::simhash;
SELECT (B'1' || '0'::bit(63))::simhash AS from_varbit;
SELECT (B'1' || '0'::bit(64))::simhash;

-- bytea: 8 bytes, big-endian; other lengths are 22023
SELECT 'f3a90c1e00b2d47f'::simhash::bytea;
SELECT '\xf3a90c1e00b2d47f'::bytea::simhash;
SELECT '\x0102'::bytea::simhash;
SELECT '\x'::bytea::simhash;
SELECT '\x010203040506070809'::bytea::simhash;

-- segments: segment 0 is the first four hex digits
SELECT simhash_segment('f3a90c1e00b2d47f', 0) = x'f3a9'::int AS s0,
       simhash_segment('f3a90c1e00b2d47f', 1) = x'0c1e'::int AS s1,
       simhash_segment('f3a90c1e00b2d47f', 2) = x'00b2'::int AS s2,
       simhash_segment('f3a90c1e00b2d47f', 3) = x'd47f'::int AS s3;
SELECT simhash_segment('f3a90c1e00b2d47f', 4);
SELECT simhash_segment('f3a90c1e00b2d47f', -1);

-- ordering is that of the unsigned value (ffff... is the largest)
CREATE TABLE t (fp simhash);
INSERT INTO t VALUES ('ffffffffffffffff'), ('0000000000000000'), ('8000000000000000'),
  ('7fffffffffffffff'), ('0000000000000001'), (NULL), ('8000000000000000');
SELECT fp FROM t ORDER BY fp;
SELECT fp FROM t ORDER BY fp DESC NULLS LAST;
SELECT '8000000000000000'::simhash > '7fffffffffffffff'::simhash AS gt,
       '8000000000000000'::simhash >= '8000000000000000'::simhash AS ge,
       '0000000000000001'::simhash < 'ffffffffffffffff'::simhash AS lt,
       '0000000000000001'::simhash <= '0000000000000001'::simhash AS le,
       '0000000000000001'::simhash = '0000000000000001'::simhash AS eq,
       '0000000000000001'::simhash <> '0000000000000002'::simhash AS ne;
SELECT fp, count(*) FROM t GROUP BY fp ORDER BY fp;
SELECT DISTINCT fp FROM t ORDER BY fp;

-- B-tree index, UNIQUE, hash index, merge and hash joins
CREATE TABLE u (fp simhash UNIQUE);
INSERT INTO u SELECT DISTINCT fp FROM t WHERE fp IS NOT NULL;
INSERT INTO u VALUES ('8000000000000000');
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM u WHERE fp = '7fffffffffffffff';
SELECT * FROM u WHERE fp = '7fffffffffffffff';
SELECT * FROM u WHERE fp > '7fffffffffffffff' ORDER BY fp;
ALTER TABLE u DROP CONSTRAINT u_fp_key;
CREATE INDEX u_hash ON u USING hash (fp);
EXPLAIN (COSTS OFF) SELECT * FROM u WHERE fp = '7fffffffffffffff';
SELECT * FROM u WHERE fp = '7fffffffffffffff';
RESET enable_seqscan;
RESET enable_bitmapscan;
SET enable_hashjoin = off; SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t JOIN u USING (fp);
SELECT count(*) FROM t JOIN u USING (fp);
RESET enable_hashjoin; SET enable_mergejoin = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM t JOIN u USING (fp);
SELECT count(*) FROM t JOIN u USING (fp);
RESET enable_mergejoin; RESET enable_nestloop;
-- hash of a simhash equals the hash of the same 64 bits as bigint
SELECT simhash_hash(fp) = hashint8(fp::bigint) AS h32,
       simhash_hash_extended(fp, 7) = hashint8extended(fp::bigint, 7) AS h64
FROM u ORDER BY fp;
-- hash partitioning works on the type
CREATE TABLE p (fp simhash) PARTITION BY HASH (fp);
CREATE TABLE p0 PARTITION OF p FOR VALUES WITH (MODULUS 2, REMAINDER 0);
CREATE TABLE p1 PARTITION OF p FOR VALUES WITH (MODULUS 2, REMAINDER 1);
INSERT INTO p SELECT fp FROM u;
SELECT count(*) FROM p;
DROP TABLE t, u, p;

-- arrays of simhash
SELECT ARRAY['0000000000000001', 'ffffffffffffffff']::simhash[];
