-- The verification stage (1.10): the minhash type, to_minhash and its
-- families, minhash_jaccard, the exact simhash_jaccard, and the
-- binary-weight fingerprints.  Test vectors pin the stored data; every
-- function is compared with a brute-force computation from the feature
-- lists (simhash_features and its families).
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
RESET client_min_messages;
SET jit = off;
\getenv abs_srcdir PG_ABS_SRCDIR
\set greedy_sql :abs_srcdir '/sql/include/greedy.sql'
\i :greedy_sql

-- Test vectors: signatures are stored data, the same on every platform and
-- in every version (the Python client reproduces them: test/clients/python)
SELECT t, to_minhash(t) FROM (VALUES
	('The quick brown fox jumps over the lazy dog.'),
	('近似重复检测是网络爬虫的重要问题'),
	('日本語のテキストとカタカナ'),
	('')) v(t);
SELECT md5(minhash_ngram('The quick brown fox jumps over the lazy dog.', 3)::text) AS ngram3,
       md5(minhash_ngram('近似重复检测', 2)::text) AS ngram2_zh,
       md5(minhash_shingle('It was the best of times, it was the worst of times', 3)::text) AS shingle3,
       md5(to_minhash(ARRAY['simhash', 'fingerprint', 'hamming', 'simhash'])::text) AS features;
SELECT to_simhash_binary('The quick brown fox jumps over the lazy dog the the.'),
       to_simhash128_binary('The quick brown fox jumps over the lazy dog the the.'),
       to_simhash256_binary('The quick brown fox jumps over the lazy dog the the.');
SELECT simhash_ngram_binary('近似重复检测是网络爬虫的重要问题', 2),
       simhash128_shingle_binary('to be or not to be that is the question', 2),
       simhash256_ngram_binary('日本語のテキストとカタカナ', 3);

-- The type: text form round trip, case, errors
SELECT to_minhash('abc')::text::minhash = to_minhash('abc')::text::minhash AS same_text,
       upper(to_minhash('abc')::text)::minhash::text = to_minhash('abc')::text AS upper_ok;
SELECT 'xyz'::minhash;
SELECT repeat('0', 255)::minhash;
SELECT (repeat('0', 255) || 'g')::minhash;
SELECT pg_column_size(to_minhash('abc')) AS bytes;

-- Texts for the comparisons: mixes of English words, CJK runs, case and
-- width variants and repeated words, 0 to about 600 tokens (fixed choice)
CREATE TEMP TABLE mh_words AS
SELECT row_number() OVER () AS i, w FROM regexp_split_to_table(
  'council budget road repairs school funding parking fee bus lanes cycle paths '
  'mayor traffic harbour flooded cellars trains station weather river levels '
  'library reading room laptops satellite orbit campus football striker bakery '
  'Ｇｒａｉｎ ﬁeld Straße STRASSE café ① 2026-11-29 EUR 1,250.00 42 the a of '
  '近似 重复检测 网络爬虫 日本語 のテキスト カタカナ 한국어 ひらがな 漢字 。 、 ! ?', ' ') AS w;
CREATE TEMP TABLE mh_texts AS
SELECT d AS id,
       (SELECT coalesce(string_agg(w.w, CASE WHEN (d + g) % 7 = 0 THEN '' ELSE ' ' END ORDER BY g), '')
        FROM generate_series(1, (d * 53) % 500) g
        JOIN mh_words w ON w.i = 1 + (d * 97 + g * g * 13 + g * 5) % 58) AS t
FROM generate_series(1, 300) d;

-- to_minhash(t) is the signature of the distinct features simhash_features
-- lists; the same for the n-gram and shingle families
SELECT count(*) AS texts,
       count(*) FILTER (WHERE to_minhash(t) = to_minhash(coalesce(
           (SELECT array_agg(feature) FROM simhash_features(t)), '{}'))) AS text_ok,
       count(*) FILTER (WHERE minhash_ngram(t, 2) = to_minhash(coalesce(
           (SELECT array_agg(feature) FROM simhash_ngram_features(t, 2)), '{}'))) AS ngram_ok,
       count(*) FILTER (WHERE minhash_shingle(t, 3) = to_minhash(coalesce(
           (SELECT array_agg(feature) FROM simhash_shingle_features(t, 3)), '{}'))) AS shingle_ok
FROM mh_texts;

-- Binary weights: weight 1 for each distinct feature, in the features'
-- order, at every width and for every family.  unit_weights(q): the
-- features of the query q (a simhash_*features call) in order, f, and a
-- weight of 1 for each, w
CREATE FUNCTION pg_temp.unit_weights(q text, OUT f text[], OUT w float8[]) LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('SELECT coalesce(array_agg(feature ORDER BY n), ''{}''), coalesce(array_agg(1.0::float8), ''{}'')
	                FROM %s WITH ORDINALITY AS x(feature, tf, weight, n)', q) INTO f, w;
END $$;
SELECT count(*) FILTER (WHERE to_simhash_binary(t) = to_simhash(f, w)) AS w64,
       count(*) FILTER (WHERE to_simhash128_binary(t) = to_simhash128(f, w)) AS w128,
       count(*) FILTER (WHERE to_simhash256_binary(t) = to_simhash256(f, w)) AS w256
FROM mh_texts, pg_temp.unit_weights(format('simhash_features(%L)', t)) fw;
SELECT count(*) FILTER (WHERE simhash256_ngram_binary(t, 3) = to_simhash256(f, w)) AS ngram256,
       count(*) FILTER (WHERE simhash_ngram_binary(t, 3) = to_simhash(f, w)) AS ngram64
FROM mh_texts, pg_temp.unit_weights(format('simhash_ngram_features(%L, 3)', t)) fw;
SELECT count(*) FILTER (WHERE simhash128_shingle_binary(t, 2) = to_simhash128(f, w)) AS shingle128,
       count(*) FILTER (WHERE simhash_shingle_binary(t, 2) = to_simhash(f, w)) AS shingle64
FROM mh_texts, pg_temp.unit_weights(format('simhash_shingle_features(%L, 2)', t)) fw;
-- a text whose words repeat: binary weights differ from 1 + ln(tf)
SELECT to_simhash256_binary(repeat('spam ', 50) || 'eggs ham toast beans') <>
       to_simhash256(repeat('spam ', 50) || 'eggs ham toast beans') AS differs;

-- Pairs: each text against a neighbour and an edited copy of itself
CREATE TEMP TABLE mh_pairs AS
SELECT a.id, a.t AS ta, b.t AS tb FROM mh_texts a JOIN mh_texts b ON b.id = a.id % 300 + 1
UNION ALL
SELECT id, t, regexp_replace(t, '(the|fox|近似|日本語)', 'X', 'g') FROM mh_texts
UNION ALL
SELECT id, t, left(t, length(t) * 3 / 4) FROM mh_texts;

-- simhash_jaccard is |A ∩ B| / |A ∪ B| of the distinct features
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE simhash_jaccard(ta, tb) =
           CASE WHEN u = 0 THEN 1.0 ELSE i::float8 / u END) AS exact_ok
FROM mh_pairs,
     LATERAL (SELECT count(*) FILTER (WHERE fa IS NOT NULL AND fb IS NOT NULL) AS i, count(*) AS u
              FROM (SELECT feature FROM simhash_features(ta)) a(fa)
              FULL JOIN (SELECT feature FROM simhash_features(tb)) b(fb) ON fa = fb) c;
SELECT simhash_jaccard('a b c d', 'c d e f') AS third, simhash_jaccard('', 'x') AS none,
       simhash_jaccard('', '') AS both_empty, simhash_jaccard('The Cat', 'the cat') AS casefold;

-- minhash_jaccard: 1 for equal signatures, symmetric, in [0, 1], and
-- within its error of the exact similarity (standard error 0.031 at 0.65:
-- doc/minhash.md); pairs with at least 30 features on both sides
SELECT count(*) FILTER (WHERE minhash_jaccard(to_minhash(ta), to_minhash(ta)) = 1) AS self_one,
       count(*) FILTER (WHERE minhash_jaccard(to_minhash(ta), to_minhash(tb)) =
                              minhash_jaccard(to_minhash(tb), to_minhash(ta))) AS symmetric,
       count(*) FILTER (WHERE minhash_jaccard(to_minhash(ta), to_minhash(tb)) BETWEEN 0 AND 1) AS in_range
FROM mh_pairs;
SELECT count(*) AS pairs,
       round(avg(e)::numeric, 3) AS bias_small,
       sqrt(avg(e * e)) < 0.05 AS rmse_below_005,
       max(abs(e)) < 0.25 AS max_below_025
FROM (SELECT minhash_jaccard(to_minhash(ta), to_minhash(tb)) - simhash_jaccard(ta, tb) AS e
      FROM mh_pairs
      WHERE (SELECT count(*) FROM simhash_features(ta)) >= 30
        AND (SELECT count(*) FROM simhash_features(tb)) >= 30) s;
SELECT minhash_jaccard(to_minhash(''), to_minhash('')) AS empty_empty,
       minhash_jaccard(to_minhash(''), to_minhash('some words here')) AS empty_other;

-- The two-stage decision through the fingerprint index: candidates within
-- K bits, kept when the estimated Jaccard similarity is at least t, equals
-- the same predicate on every row
CREATE TABLE mh_docs (id int PRIMARY KEY, body text,
	fp simhash256 GENERATED ALWAYS AS (to_simhash256(body)) STORED,
	sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED);
INSERT INTO mh_docs SELECT id, t FROM mh_texts;
INSERT INTO mh_docs SELECT 1000 + id, tb FROM mh_pairs WHERE ta <> tb AND id % 3 = 0 AND id <= 300
	ON CONFLICT DO NOTHING;
INSERT INTO mh_docs SELECT 2000 + id, regexp_replace(t, '(quick|重复检测)', 'Z') FROM mh_texts;
CREATE INDEX mh_docs_fp ON mh_docs USING gin (fp);
ANALYZE mh_docs;
SELECT k, t, count(*) AS queries, sum(n_index) AS rows_found,
       count(*) FILTER (WHERE ids_index IS NOT DISTINCT FROM ids_scan) AS equal
FROM (VALUES (24, 0.5), (40, 0.65), (48, 0.8)) p(k, t),
     LATERAL (SELECT q.id,
        (SELECT count(*) FROM mh_docs d WHERE d.fp <-> q.fp <= p.k AND minhash_jaccard(d.sig, q.sig) >= p.t) AS n_index,
        (SELECT array_agg(d.id ORDER BY d.id) FROM mh_docs d WHERE d.fp <-> q.fp <= p.k AND minhash_jaccard(d.sig, q.sig) >= p.t) AS ids_index,
        (SELECT array_agg(d.id ORDER BY d.id) FROM mh_docs d
          WHERE (d.fp::text)::simhash256 <-> q.fp <= p.k + 0 AND minhash_jaccard(d.sig, q.sig) >= p.t) AS ids_scan
        FROM mh_docs q WHERE q.id % 7 = 0) r
GROUP BY k, t ORDER BY k;

-- The batch functions with verification: (id, fp, sig) rows and a
-- threshold.  simhash_pairs equals the brute-force self-join; group_pairs
-- equals the groups of rows of equal (fp, sig) and their verified pairs;
-- clusters equal the components of the brute-force pairs
-- (simhash_pair_clusters).  Extra rows: exact copies under other ids, one
-- copy with another signature (same fingerprint, not verified), one id
-- twice, and rows without a signature (skipped).
INSERT INTO mh_docs (id, body) SELECT 3000 + id, body FROM mh_docs WHERE id % 11 = 0 AND id < 1000;
CREATE TABLE mh_batch (id bigint, fp simhash256, sig minhash);
INSERT INTO mh_batch SELECT id, fp, sig FROM mh_docs;
INSERT INTO mh_batch SELECT 5000 + id, fp, to_minhash('other words entirely, ' || id) FROM mh_docs WHERE id % 13 = 0;
INSERT INTO mh_batch SELECT id, fp, sig FROM mh_docs WHERE id = 22;
INSERT INTO mh_batch SELECT 6000 + id, fp, NULL FROM mh_docs WHERE id % 17 = 0;
CREATE TEMP TABLE mh_bf AS
SELECT a.id AS id1, b.id AS id2, a.fp <-> b.fp AS distance, minhash_jaccard(a.sig, b.sig) AS jaccard
FROM mh_batch a JOIN mh_batch b ON a.id < b.id
WHERE a.fp <-> b.fp <= 64 AND a.sig IS NOT NULL AND b.sig IS NOT NULL;
SELECT k, t,
       (SELECT count(*) FROM mh_bf WHERE distance <= k AND jaccard >= t) AS brute_force,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', k, t)) AS pairs,
       (SELECT count(*) FROM (
          (SELECT id1, id2, distance, jaccard FROM mh_bf WHERE distance <= k AND jaccard >= t
           EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', k, t))
          UNION ALL
          (SELECT * FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', k, t)
           EXCEPT ALL SELECT id1, id2, distance, jaccard FROM mh_bf WHERE distance <= k AND jaccard >= t)) x) AS differ,
       (SELECT count(*) FROM mh_bf WHERE distance <= k AND jaccard < t) AS rejected
FROM (VALUES (0, 0.0), (24, 0.5), (40, 0.65), (48, 0.8), (64, 0.65)) p(k, t) ORDER BY k;
-- the same rows at 64 and 128 bits: the narrower prefix of each fingerprint
SELECT w, count(*) AS pairs,
       count(*) = (SELECT count(*) FROM mh_batch a JOIN mh_batch b ON a.id < b.id
                   WHERE a.sig IS NOT NULL AND b.sig IS NOT NULL AND minhash_jaccard(a.sig, b.sig) >= 0.6
                     AND CASE w WHEN 64 THEN substr(a.fp::text, 1, 16)::simhash <-> substr(b.fp::text, 1, 16)::simhash <= 10
                                ELSE substr(a.fp::text, 1, 32)::simhash128 <-> substr(b.fp::text, 1, 32)::simhash128 <= 20 END) AS equal
FROM (SELECT 64 AS w, p.* FROM simhash_pairs('SELECT id, substr(fp::text, 1, 16)::simhash, sig FROM mh_batch', 10, 0.6) p
      UNION ALL
      SELECT 128, p.* FROM simhash_pairs('SELECT id, substr(fp::text, 1, 32)::simhash128, sig FROM mh_batch', 20, 0.6) p) s
GROUP BY w ORDER BY w;
-- groups of equal (fp, sig): each once with its size, verified pairs of groups
CREATE TEMP TABLE mh_groups AS
SELECT min(id) AS id, count(*) AS size, fp, min(sig::text)::minhash AS sig
FROM mh_batch WHERE sig IS NOT NULL GROUP BY fp, sig::text;
CREATE TEMP VIEW mh_group_bf AS
SELECT id AS id1, id AS id2, 0 AS distance, size AS size1, size AS size2, 1.0::float8 AS jaccard
FROM mh_groups WHERE size > 1
UNION ALL
SELECT a.id, b.id, a.fp <-> b.fp, a.size, b.size, minhash_jaccard(a.sig, b.sig)
FROM mh_groups a JOIN mh_groups b ON a.id < b.id
WHERE a.fp <-> b.fp <= 40 AND minhash_jaccard(a.sig, b.sig) >= 0.65;
CREATE TEMP TABLE mh_group_out AS
SELECT * FROM simhash_group_pairs('SELECT id, fp, sig FROM mh_batch', 40, 0.65);
SELECT (SELECT count(*) FROM mh_group_bf) AS brute_force, (SELECT count(*) FROM mh_group_out) AS group_rows,
       (SELECT count(*) FROM (SELECT * FROM mh_group_bf EXCEPT ALL SELECT * FROM mh_group_out) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM mh_group_out EXCEPT ALL SELECT * FROM mh_group_bf) x) AS extra,
       (SELECT count(*) FROM mh_group_out WHERE id1 = id2) AS groups_alone;
-- clusters: the components of the verified pairs, every row once per id
SELECT count(*) AS ids, count(DISTINCT c.cluster_id) AS clusters,
       count(*) FILTER (WHERE c.cluster_id IS DISTINCT FROM coalesce(b.cluster_id, c.id)) AS differ
FROM simhash_clusters('SELECT id, fp, sig FROM mh_batch', 40, 0.65) c
LEFT JOIN simhash_pair_clusters('SELECT id1, id2 FROM mh_bf WHERE distance <= 40 AND jaccard >= 0.65') b ON b.id = c.id;
SELECT count(*) = (SELECT count(DISTINCT id) FROM mh_batch WHERE sig IS NOT NULL) AS every_id_once
FROM simhash_clusters('SELECT id, fp, sig FROM mh_batch', 40, 0.65);
-- a threshold of 0 keeps every candidate: the same pairs as without one
SELECT (SELECT count(*) FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', 40, 0))
     = (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM mh_batch WHERE sig IS NOT NULL', 40)) AS same;
-- errors: a threshold outside [0, 1], a query of two columns, a signature of another type
SELECT * FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', 40, 1.5);
SELECT * FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', 40, 'NaN');
SELECT * FROM simhash_clusters('SELECT id, fp FROM mh_batch', 40, 0.65);
SELECT * FROM simhash_group_pairs('SELECT id, fp, fp FROM mh_batch', 40, 0.65);
SELECT * FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', 300, 0.65);
-- NULL threshold: strict, no rows
SELECT count(*) FROM simhash_pairs('SELECT id, fp, sig FROM mh_batch', 40, NULL);
DROP TABLE mh_batch;
DROP TABLE mh_docs;

-- The insert-time trigger with verification: (column, k, action,
-- signature column, threshold) rejects or skips a row only when an
-- existing row is within k bits AND minhash_jaccard of their signatures is
-- at least the threshold.  Rows go in one at a time with 'skip'; the rows
-- kept equal a greedy pass over the same sequence with the same predicate.
CREATE TABLE mh_seq AS
SELECT row_number() OVER (ORDER BY src, id) AS n, body FROM (
	SELECT 1 AS src, id, t AS body FROM mh_texts
	UNION ALL SELECT 2, id, tb FROM mh_pairs WHERE id % 2 = 0
	UNION ALL SELECT 3, id, regexp_replace(t, '(quick|重复检测|the)', 'Z', 'g') FROM mh_texts) s;
CREATE TABLE mh_guarded (id bigint PRIMARY KEY, body text,
	fp simhash256 GENERATED ALWAYS AS (to_simhash256(body)) STORED,
	sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED);
CREATE INDEX ON mh_guarded USING gin (fp simhash256_gin_word_ops);
CREATE TRIGGER mh_verify BEFORE INSERT OR UPDATE ON mh_guarded FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '40', 'skip', 'sig', '0.65');
CALL pg_temp.insert_each('mh_seq', 'mh_guarded');
CREATE TEMP TABLE mh_greedy (n bigint, fp simhash256, sig minhash);
CALL pg_temp.greedy('mh_seq', 'mh_greedy', 40, 0.65);
SELECT (SELECT count(*) FROM mh_seq) AS offered, (SELECT count(*) FROM mh_guarded) AS kept,
       (SELECT count(*) FROM mh_seq s WHERE EXISTS (SELECT FROM mh_seq o
          WHERE o.n < s.n AND to_simhash256(o.body) <-> to_simhash256(s.body) <= 40)) AS within_k_of_earlier,
       (SELECT array_agg(id ORDER BY id) FROM mh_guarded) = (SELECT array_agg(n ORDER BY n) FROM mh_greedy) AS equals_greedy;

-- 'reject' names the threshold; a row without a signature conflicts with none
CREATE TABLE mh_rej (id int PRIMARY KEY, body text, fp simhash256, sig minhash);
CREATE INDEX ON mh_rej USING gin (fp simhash256_gin_word_ops);
CREATE TRIGGER mh_rej_verify BEFORE INSERT OR UPDATE ON mh_rej FOR EACH ROW
	EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '48', 'reject', 'sig', '0.65');
INSERT INTO mh_rej VALUES (1, 'a', to_simhash256(repeat('alpha beta gamma delta ', 3) || 'one two three four five six seven eight nine ten'),
	to_minhash(repeat('alpha beta gamma delta ', 3) || 'one two three four five six seven eight nine ten'));
-- the same fingerprint, a signature of other features: kept
INSERT INTO mh_rej VALUES (2, 'b', (SELECT fp FROM mh_rej WHERE id = 1), to_minhash('entirely different words in this signature here'));
-- the same fingerprint and a signature at least 0.65 alike: rejected
INSERT INTO mh_rej VALUES (3, 'c', (SELECT fp FROM mh_rej WHERE id = 1), (SELECT sig FROM mh_rej WHERE id = 1));
-- no signature: kept
INSERT INTO mh_rej VALUES (4, 'd', (SELECT fp FROM mh_rej WHERE id = 1), NULL);
-- an update that makes a row a verified near-duplicate: rejected
UPDATE mh_rej SET sig = (SELECT sig FROM mh_rej WHERE id = 1) WHERE id = 2;
SELECT id FROM mh_rej ORDER BY id;

-- bad verification arguments
CREATE FUNCTION pg_temp.bad_verify(args text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TRIGGER bad BEFORE INSERT ON mh_rej FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates(%s)', args);
	INSERT INTO mh_rej VALUES (100, 'x', to_simhash256('x y z'), to_minhash('x y z'));
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
BEGIN;
DROP TRIGGER mh_rej_verify ON mh_rej;
SELECT args, pg_temp.bad_verify(args) AS error FROM (VALUES
	($$'fp', '48', 'reject', 'nosig', '0.65'$$),
	($$'fp', '48', 'reject', 'body', '0.65'$$),
	($$'fp', '48', 'reject', 'sig', 'x'$$),
	($$'fp', '48', 'reject', 'sig', '1.5'$$),
	($$'fp', '48', 'reject', 'sig', '-0.1'$$),
	($$'fp', '48', 'reject', 'sig'$$)) v(args);
ROLLBACK;
DROP TABLE mh_guarded, mh_rej, mh_seq;
