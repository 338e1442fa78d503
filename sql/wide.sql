-- The wide fingerprints, simhash128 and simhash256: test vectors of every
-- fingerprint family at both widths, the prefix contract (word 0 is the
-- 64-bit fingerprint, words 0-1 of a simhash256 are the simhash128), text,
-- binary and cast forms, comparisons, distance, similarity, aggregates and
-- bad input.  The vectors are stored data in users' tables: a change here
-- is a breaking change (a new function name), never an update of this file.
-- The Python client reproduces them (test/crosscheck).
CREATE EXTENSION IF NOT EXISTS simhash;

\getenv abs_srcdir PG_ABS_SRCDIR
\set samples_sql :abs_srcdir '/sql/include/samples.sql'
\i :samples_sql
-- seven of the samples, numbered 1 to 7
CREATE TEMP TABLE wsamples AS
SELECT row_number() OVER (ORDER BY id)::int AS id, lang, body FROM samples WHERE id IN (1, 3, 5, 6, 9, 10, 11);

-- test vectors: text, n-grams and shingles at both widths
SELECT id, to_simhash128(body) AS words128, to_simhash256(body) AS words256
FROM wsamples ORDER BY id;
SELECT id, simhash128_ngram(body) AS ngram3, simhash256_ngram(body, 5) AS ngram5
FROM wsamples ORDER BY id;
SELECT id, simhash128_shingle(body, 2) AS shingle2, simhash256_shingle(body) AS shingle3
FROM wsamples ORDER BY id;

-- test vectors: features, weighted features, tsvector, dense and sparse
-- vectors (the features of one sample each)
SELECT to_simhash128(ARRAY['near', 'duplicate', 'detection']) AS f128,
       to_simhash256(ARRAY['near', 'duplicate', 'detection']) AS f256;
SELECT to_simhash128(ARRAY['near', 'duplicate', 'detection'], ARRAY[0.5, 2.0, -1.25]) AS w128,
       to_simhash256(ARRAY['near', 'duplicate', 'detection'], ARRAY[0.5, 2.0, -1.25]) AS w256;
SELECT to_simhash128('fat:2,4 cat:3 rat:5A'::tsvector) AS ts128,
       to_simhash256('fat:2,4 cat:3 rat:5A'::tsvector) AS ts256;
SELECT to_simhash128(ARRAY[0.25, -1.5, 3.0, 0.0, 2.5]::float8[]) AS dense128,
       to_simhash256(ARRAY[0.25, -1.5, 3.0, 0.0, 2.5]::float8[]) AS dense256;
SELECT to_simhash256(ARRAY[7, 2, 40], ARRAY[1.0, -0.5, 2.0]) AS sparse256;

-- the prefix contract, for every family and sample: word 0 is the 64-bit
-- fingerprint, the simhash256's first two words are the simhash128
SELECT count(*) AS samples,
       count(*) FILTER (WHERE to_simhash256(body)::simhash = to_simhash(body)
                          AND to_simhash128(body)::simhash = to_simhash(body)
                          AND to_simhash256(body)::simhash128 = to_simhash128(body)) AS text_prefix,
       count(*) FILTER (WHERE simhash256_ngram(body, 4)::simhash = simhash_ngram(body, 4)
                          AND simhash256_ngram(body, 4)::simhash128 = simhash128_ngram(body, 4)) AS ngram_prefix,
       count(*) FILTER (WHERE simhash256_shingle(body, 2)::simhash = simhash_shingle(body, 2)
                          AND simhash256_shingle(body, 2)::simhash128 = simhash128_shingle(body, 2)) AS shingle_prefix,
       count(*) FILTER (WHERE to_simhash256(to_tsvector('simple', body))::simhash = to_simhash(to_tsvector('simple', body))
                          AND to_simhash128(to_tsvector('simple', body))::simhash = to_simhash(to_tsvector('simple', body))) AS tsvector_prefix,
       count(*) FILTER (WHERE left(to_simhash256(body)::text, 32) = to_simhash128(body)::text
                          AND left(to_simhash256(body)::text, 16) = to_simhash(body)::text) AS text_form_prefix
FROM wsamples;
SELECT to_simhash256(ARRAY[1.0, 2.0, -3.0]::float8[])::simhash = to_simhash(ARRAY[1.0, 2.0, -3.0]::float8[]) AS dense_prefix,
       to_simhash256(ARRAY[3, 1], ARRAY[1.0, 2.0])::simhash = to_simhash(ARRAY[3, 1], ARRAY[1.0, 2.0]) AS sparse_prefix,
       to_simhash256(ARRAY[3, 1], ARRAY[1.0, 2.0]) = to_simhash256(ARRAY[2.0, 0, 1.0]::float8[]) AS sparse_is_dense,
       to_simhash256(ARRAY['a', 'b'], ARRAY[1.0, 2.0])::simhash = to_simhash(ARRAY['a', 'b'], ARRAY[1.0, 2.0]) AS weighted_prefix;

-- the other words are not copies of word 0: each hashes with its own seed
SELECT count(DISTINCT w) AS distinct_words
FROM (SELECT substr(to_simhash256(body)::text, 16 * i + 1, 16) AS w
      FROM wsamples, generate_series(0, 3) i WHERE id = 2) s;

-- the tokenizers' features at every width: the default tokenizer's
-- features, spelled out, give the same fingerprint
SELECT to_simhash256('The cat; the CAT, the cat!') =
       to_simhash256(ARRAY['the', 'cat'], ARRAY[1 + ln(3), 1 + ln(3)]) AS english_features,
       to_simhash128('中文字 x 好') = to_simhash128(ARRAY['中文', '文字', 'x', '好']) AS cjk_bigrams,
       simhash256_ngram('  Ab   cd  ', 3) = to_simhash256(ARRAY['ab ', 'b c', ' cd']) AS ngram_features,
       simhash128_shingle('One two, THREE four', 2) =
       to_simhash128(ARRAY['one two', 'two three', 'three four']) AS shingle_features;

-- the aggregate equals the array form, and skips NULL rows
SELECT simhash256_agg(f, w) = to_simhash256(ARRAY['a', 'b', 'c'], ARRAY[1.0, 2.5, -1.0]) AS agg_weighted,
       simhash128_agg(f) = to_simhash128(ARRAY['a', 'b', 'c']) AS agg_unweighted
FROM (VALUES ('a', 1.0::float8), ('b', 2.5), (NULL, 4.0), ('c', -1.0)) v(f, w);
SELECT simhash128_agg(f) IS NULL AS agg_of_nothing
FROM (VALUES (NULL::text)) v(f);

-- text, binary and cast forms
SELECT '0123456789ABCDEF0123456789abcdef'::simhash128 AS upper_case_in,
       '0123456789abcdef0123456789abcdef'::simhash128::bytea AS bytea_form,
       '0123456789abcdef0123456789abcdef'::simhash128::bit(128) AS bit_form;
SELECT count(*) FILTER (WHERE x::bytea::simhash256 = x AND x::bit(256)::simhash256 = x
                          AND simhash256_send(x) = x::bytea
                          AND y::bytea::simhash128 = y AND y::bit(128)::simhash128 = y
                          AND simhash128_send(y) = y::bytea) AS round_trips,
       count(*) AS of
FROM (SELECT to_simhash256(body) x, to_simhash128(body) y FROM wsamples) s;
-- a PDQ-style hash in its usual hex form reads as is
SELECT 'f8f8f0cee0f4a84f06370a22038f63f0b36e2ed596621e1d33e6b39c4e9c9b22'::simhash256 AS pdq;

-- order (of the bytes: word 0 first, unsigned), equality, hashing
SELECT 'ffffffffffffffff0000000000000000'::simhash128 > '00000000000000000000000000000001'::simhash128 AS word0_first,
       '8000000000000000000000000000000000000000000000000000000000000000'::simhash256 >
       '7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'::simhash256 AS unsigned,
       to_simhash256('x') = to_simhash256('x') AND to_simhash256('x') <> to_simhash256('y') AS equality;
CREATE TEMP TABLE wfp AS
SELECT g AS id, to_simhash256('document ' || (g % 500)) AS fp, to_simhash128('document ' || (g % 500)) AS fp128
FROM generate_series(1, 2000) g;
SELECT count(DISTINCT fp) AS distinct256, count(DISTINCT fp128) AS distinct128,
       (SELECT count(*) FROM (SELECT fp FROM wfp GROUP BY fp) s) AS grouped,
       (SELECT count(*) FROM wfp a JOIN wfp b USING (fp)) AS joined
FROM wfp;
SELECT array_agg(fp ORDER BY fp) = array_agg(fp ORDER BY fp::bytea) AS btree_is_byte_order,
       min(fp) = (SELECT fp FROM wfp ORDER BY fp::bytea LIMIT 1) AS min_ok,
       max(fp128) = (SELECT fp128 FROM wfp ORDER BY fp128::bytea DESC LIMIT 1) AS max_ok
FROM wfp;
-- bit_or and bit_and, word by word against the bit string forms
SELECT bit_or(fp)::bit(256) = (SELECT bit_or(fp::bit(256)) FROM wfp) AS bit_or_ok,
       bit_and(fp128)::bit(128) = (SELECT bit_and(fp128::bit(128)) FROM wfp) AS bit_and_ok
FROM wfp;
CREATE INDEX ON wfp (fp);
CREATE INDEX ON wfp USING hash (fp128);
SET enable_seqscan = off;
SELECT count(*) AS btree_lookup FROM wfp WHERE fp = to_simhash256('document 7');
SELECT count(*) AS hash_lookup FROM wfp WHERE fp128 = to_simhash128('document 7');
RESET enable_seqscan;

-- Hamming distance over every word, <-> and hamming_distance agree,
-- against the bit string forms
SELECT count(*) FILTER (WHERE a.fp <-> b.fp = length(replace((a.fp::bit(256) # b.fp::bit(256))::text, '0', ''))
                          AND hamming_distance(a.fp128, b.fp128) = length(replace((a.fp128::bit(128) # b.fp128::bit(128))::text, '0', ''))
                          AND simhash_within(a.fp, b.fp, a.fp <-> b.fp)
                          AND NOT simhash_within(a.fp, b.fp, (a.fp <-> b.fp) - 1)) AS agree,
       count(*) AS of
FROM wfp a, wfp b WHERE a.id <= 40 AND b.id <= 40;
SELECT '0000000000000000000000000000000000000000000000000000000000000000'::simhash256 <->
       'ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'::simhash256 AS d256,
       '00000000000000000000000000000000'::simhash128 <-> 'ffffffffffffffff0000000000000001'::simhash128 AS d65;
-- an integer to clients, as for simhash
SELECT pg_typeof(to_simhash128('a') <-> to_simhash128('b')) AS distance_type;

-- similarity: cos(pi * d / W), the same meaning at every width
SELECT simhash_similarity(x, x) AS same,
       abs(simhash_similarity(x, (x::bit(256) # repeat('1', 128)::bit(128)::bit(256))::simhash256)) < 1e-15 AS half,
       simhash_similarity(x, (x::bit(256) # repeat('1', 256)::bit(256))::simhash256) AS opposite
FROM (SELECT to_simhash256('a') x) s;
SELECT round(simhash_similarity('0000000000000000'::simhash, '000000000000000f'::simhash)::numeric, 12) AS d4_of_64,
       round(simhash_similarity('00000000000000000000000000000000'::simhash128, '000000000000000000000000000000ff'::simhash128)::numeric, 12) AS d8_of_128,
       round(cos(pi() / 16)::numeric, 12) AS cos_pi_16;
-- simhash_radius is the largest k whose similarity keeps the threshold
SELECT w, s, simhash_radius(s, w) AS k
FROM (VALUES (64), (128), (256)) a(w), (VALUES (1.0), (0.95), (0.9), (0.8), (0.0), (-1.0)) b(s)
ORDER BY w, s DESC;
-- and the similarity of a pair at distance d gives back the radius d
SELECT count(*) FILTER (WHERE simhash_radius(simhash_similarity(z, x), 256) = d
                          AND x <-> z = d) AS consistent,
       count(*) AS of
FROM (SELECT d, repeat('0', 256)::bit(256)::simhash256 AS z,
             (repeat('1', d) || repeat('0', 256 - d))::bit(256)::simhash256 AS x
      FROM generate_series(0, 256) d) s;

-- bad input: 22P02 for text forms, 22023 for lengths and arguments
\set VERBOSITY default
SELECT '0123456789abcdef'::simhash128;
SELECT 'quick brown fox'::simhash256;
SELECT '0123456789abcdef0123456789abcdef0'::simhash128;
SELECT ' 0123456789abcdef0123456789abcdef'::simhash128;
SELECT '0123456789abcdef0123456789abcdeg'::simhash128;
SELECT '\x0102'::bytea::simhash128;
SELECT repeat('1', 64)::bit(64)::simhash256;
SELECT simhash_radius(0.9, 100);
SELECT simhash_radius(1.5, 64);
SELECT simhash_radius('NaN', 256);
SELECT simhash128_ngram('abc', 0);
SELECT simhash256_shingle('abc', 65);
SELECT to_simhash256(ARRAY['a', NULL]);
SELECT to_simhash128(ARRAY['a'], ARRAY['Infinity']::float8[]);
SELECT to_simhash256(ARRAY[1, 1], ARRAY[1.0, 2.0]);
SELECT to_simhash128(ARRAY['a', 'b'], ARRAY[1e308, 1e308]);
\set VERBOSITY terse
