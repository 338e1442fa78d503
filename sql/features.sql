-- simhash_features, simhash_ngram_features, simhash_shingle_features: the
-- features and weights each fingerprint is built from, and the aggregates
-- min, max, bit_or and bit_and.
CREATE EXTENSION IF NOT EXISTS simhash;

SELECT * FROM simhash_features('The cat saw the other cat; THE END.');
SELECT * FROM simhash_features('近似重复检测。日本語のテキスト、한국어');
SELECT * FROM simhash_ngram_features('abab  ab', 2);
SELECT * FROM simhash_shingle_features('to be or not to be', 2);
-- fewer characters or tokens than n: one feature
SELECT * FROM simhash_ngram_features('ab', 5);
SELECT * FROM simhash_shingle_features('one two', 3);
-- no features: no rows
SELECT count(*) FROM simhash_features('');
SELECT count(*) FROM simhash_features(' ,.;!? ');
SELECT count(*) FROM simhash_ngram_features('   ');
SELECT count(*) FROM simhash_features(NULL);
-- tf beyond the cached weights (256) and the weight 1 + ln(tf)
SELECT feature, tf, abs(weight - (1 + ln(tf))) < 1e-12 AS weight_ok
FROM simhash_features(repeat('word ', 300) || repeat('other ', 2) || 'last');

-- Texts for the equality: many random mixes of English words, CJK runs,
-- digits, case and width variants, punctuation and repeated words, of
-- lengths from 0 to about 3,000 characters (a fixed pseudo-random choice).
CREATE TEMP TABLE ft_words (i int, w text);
INSERT INTO ft_words
SELECT row_number() OVER (), w FROM unnest(ARRAY[
  'the', 'quick', 'brown', 'fox', 'Jumps', 'OVER', 'lazy', 'dog', 'invoice',
  'amount', 'EUR', '1,250.00', '2024-05-01', 'No.', '42', 'Ｆｕｌｌ', 'ｗｉｄｔｈ',
  'café', 'cafe' || chr(769), 'Straße', 'STRASSE', 'ﬁle', 'Ⅻ', '①',
  '近似', '重复检测', '是网络爬虫的重要问题', '日本語', 'のテキスト', 'カタカナ',
  '한국어', '텍스트', 'ひらがな', '漢字', '。', '、', '!', '?', '--', '(x)',
  'the', 'the', 'and', 'of', 'a', 'to', 'in', 'is', 'near-duplicate'
]) AS w;
CREATE TEMP TABLE ft_texts AS
SELECT d AS id,
       (SELECT coalesce(string_agg(w.w, CASE WHEN (d * 7 + g) % 5 = 0 THEN '' ELSE ' ' END ORDER BY g), '')
        FROM generate_series(1, (d * d * 37) % 600) g
        JOIN ft_words w ON w.i = 1 + (d * 131 + g * g * 17 + g * 7) % 49) AS t
FROM generate_series(1, 400) d;
INSERT INTO ft_texts VALUES (401, ''), (402, 'a'), (403, '近'), (404, 'a 近'),
  (405, repeat('abc ', 2000)), (406, 'Hello World'), (407, 'ＨＥＬＬＯ　ｗｏｒｌｄ');
SELECT count(*) AS texts, max(length(t)) AS longest, count(*) FILTER (WHERE t ~ '[一-龥]') AS with_han
FROM ft_texts;

-- The equality, for every text: the array form and the aggregate over the
-- rows, in row order, give the tokenizer's fingerprint.  Lists failures.
SELECT id, 'to_simhash' AS fn FROM ft_texts
WHERE to_simhash(t) IS DISTINCT FROM (
  SELECT to_simhash(coalesce(array_agg(feature ORDER BY n), '{}'), coalesce(array_agg(weight ORDER BY n), '{}'))
  FROM simhash_features(t) WITH ORDINALITY AS f(feature, tf, weight, n))
UNION ALL
SELECT id, 'simhash_ngram ' || n FROM ft_texts, generate_series(1, 5) n
WHERE simhash_ngram(t, n) IS DISTINCT FROM (
  SELECT to_simhash(coalesce(array_agg(feature ORDER BY o), '{}'), coalesce(array_agg(weight ORDER BY o), '{}'))
  FROM simhash_ngram_features(t, n) WITH ORDINALITY AS f(feature, tf, weight, o))
UNION ALL
SELECT id, 'simhash_shingle ' || n FROM ft_texts, generate_series(1, 4) n
WHERE simhash_shingle(t, n) IS DISTINCT FROM (
  SELECT to_simhash(coalesce(array_agg(feature ORDER BY o), '{}'), coalesce(array_agg(weight ORDER BY o), '{}'))
  FROM simhash_shingle_features(t, n) WITH ORDINALITY AS f(feature, tf, weight, o))
UNION ALL
SELECT id, 'simhash_agg' FROM ft_texts
WHERE t <> '' AND to_simhash(t) IS DISTINCT FROM (
  SELECT simhash_agg(feature, weight ORDER BY n)
  FROM simhash_features(t) WITH ORDINALITY AS f(feature, tf, weight, n))
  AND EXISTS (SELECT FROM simhash_features(t))
ORDER BY 1, 2;

-- each feature once, tf the number of occurrences: the tf add up to the
-- number of tokens (bigrams of a CJK run of length L: L - 1)
SELECT count(*) AS repeated_features FROM ft_texts, LATERAL (
  SELECT feature FROM simhash_features(t) GROUP BY feature HAVING count(*) > 1) x;
SELECT sum(tf) AS ngrams FROM simhash_ngram_features('abcdef abc', 3);

-- default n is 3
SELECT count(*) AS differ FROM ft_texts
WHERE ARRAY(SELECT feature FROM simhash_ngram_features(t)) <> ARRAY(SELECT feature FROM simhash_ngram_features(t, 3))
   OR ARRAY(SELECT feature FROM simhash_shingle_features(t)) <> ARRAY(SELECT feature FROM simhash_shingle_features(t, 3));

-- errors: n outside 1..64
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN EXECUTE q; RETURN 'no error';
EXCEPTION WHEN others THEN RETURN SQLSTATE; END $$;
SELECT pg_temp.err('SELECT * FROM simhash_ngram_features(''abc'', 0)'),
       pg_temp.err('SELECT * FROM simhash_ngram_features(''abc'', 65)'),
       pg_temp.err('SELECT * FROM simhash_shingle_features(''abc'', -1)'),
       pg_temp.err('SELECT * FROM simhash_shingle_features(''abc'', 64)');
-- after an error the next call lists features normally (the sink is reset)
SELECT count(*) FROM simhash_features('one two three');
SELECT to_simhash('one two three') = to_simhash('one two three') AS unaffected;

-- TF-IDF over a small table: document frequencies, idf, weighted fingerprint
CREATE TEMP TABLE ft_docs (id int, body text);
INSERT INTO ft_docs VALUES (1, 'the invoice number 1001 amount 250 euro'),
  (2, 'the invoice number 1002 amount 975 euro'), (3, 'the weather is fine today');
CREATE TEMP TABLE ft_idf AS
SELECT f.feature, ln((SELECT count(*) FROM ft_docs)::float8 / count(*)) AS idf
FROM ft_docs d, simhash_features(d.body) f GROUP BY f.feature;
SELECT d.id, to_simhash(array_agg(f.feature ORDER BY f.n), array_agg(f.weight * i.idf ORDER BY f.n))
       = simhash_agg(f.feature, f.weight * i.idf ORDER BY f.n) AS array_equals_agg
FROM ft_docs d, simhash_features(d.body) WITH ORDINALITY AS f(feature, tf, weight, n)
JOIN ft_idf i USING (feature) GROUP BY d.id ORDER BY d.id;

-- min, max (unsigned order), bit_or, bit_and; NULLs skipped, NULL over no rows
CREATE TEMP TABLE ft_fp (fp simhash);
INSERT INTO ft_fp VALUES ('8000000000000000'), ('7fffffffffffffff'), ('00000000000000f0'),
  (NULL), ('ffffffffffff0000');
SELECT min(fp), max(fp), bit_or(fp), bit_and(fp) FROM ft_fp;
SELECT min(fp) = (SELECT fp FROM ft_fp WHERE fp IS NOT NULL ORDER BY fp LIMIT 1) AS min_is_first,
       max(fp) = (SELECT fp FROM ft_fp WHERE fp IS NOT NULL ORDER BY fp DESC LIMIT 1) AS max_is_last
FROM ft_fp;
SELECT bit_and(fp) FROM ft_fp WHERE fp IN ('ffffffffffff0000', '00000000000000f0', '7fffffffffffffff');
SELECT min(fp), max(fp), bit_or(fp), bit_and(fp) FROM ft_fp WHERE false;
SELECT min(fp) IS NULL AS all_null FROM ft_fp WHERE fp IS NULL;
-- the same over fingerprints of text, against bigint arithmetic on the bits
SELECT bit_or(to_simhash(t))::bigint = bit_or(to_simhash(t)::bigint) AS bit_or_ok,
       bit_and(to_simhash(t))::bigint = bit_and(to_simhash(t)::bigint) AS bit_and_ok
FROM ft_texts;
