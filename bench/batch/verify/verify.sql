-- bench/batch/verify/verify.sql: the table v_data (id, fp simhash256, sig
-- minhash) of :rows random rows plus planted clusters, for
-- bench/batch/verify/run; and bench_pairs, which times one call.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS v_data, v_centres;
-- n hexadecimal digits from a seed, md5 by md5
CREATE OR REPLACE FUNCTION v_hex(seed bigint, n integer) RETURNS text
LANGUAGE sql IMMUTABLE STRICT
RETURN (SELECT string_agg(md5(seed::text || '/' || i), '') FROM generate_series(1, (n + 31) / 32) i);
CREATE TABLE v_data (id bigint NOT NULL, fp simhash256 NOT NULL, sig minhash NOT NULL);
INSERT INTO v_data SELECT i, left(v_hex(i, 64), 64)::simhash256, left(v_hex(-i, 256), 256)::minhash
FROM generate_series(1, :rows) i;
-- centres, and variants at 8 .. 40 bits (the first d bits of a hash order
-- flipped); even variants keep the centre's signature but its first 16
-- digits (bins), odd ones get a random one
CREATE TABLE v_centres AS
SELECT :rows::bigint + c * 16 AS id, v_hex(c + 10000000000, 64)::simhash256 AS fp,
       v_hex(-c - 10000000000, 256) AS sig
FROM generate_series(1, greatest(:rows / 500, 1)) c;
INSERT INTO v_data SELECT id, fp, sig::minhash FROM v_centres;
INSERT INTO v_data
SELECT c.id + j,
       (c.fp::bit(256) # (SELECT bit_or(B'1'::bit(256) >> p.p)
          FROM (SELECT p FROM generate_series(0, 255) p ORDER BY hashint8extended(p, c.id + j) LIMIT 8 * j) p))::simhash256,
       CASE WHEN j % 2 = 0 THEN left(v_hex(c.id + j, 16), 16) || substr(c.sig, 17)
            ELSE left(v_hex(-(c.id + j), 256), 256) END::minhash
FROM v_centres c, generate_series(1, 5) j;
VACUUM ANALYZE v_data;

-- one call of simhash_pairs: "pairs seconds"; threshold NULL: without verification
CREATE OR REPLACE FUNCTION bench_pairs(q text, k integer, t double precision) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n bigint;
BEGIN
	IF t IS NULL THEN
		SELECT count(*) INTO n FROM simhash_pairs(q, k);
	ELSE
		SELECT count(*) INTO n FROM simhash_pairs(q, k, t);
	END IF;
	RETURN n || ' ' || extract(epoch FROM clock_timestamp() - t0);
END $$;
