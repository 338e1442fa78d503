-- Properties of the text tokenizers: Unicode folding, locale independence,
-- similar texts give close fingerprints, very large input.
CREATE EXTENSION IF NOT EXISTS simhash;

-- toNFKC_Casefold: case, full-width forms, ligatures, composed and
-- decomposed accents, soft hyphens and zero-width joiners do not matter
SELECT to_simhash('Hello World') = to_simhash('hello world') AS case_folded,
       to_simhash('ＨＥＬＬＯ　ｗｏｒｌｄ') = to_simhash('hello world') AS full_width,
       to_simhash('ﬁnance ﬂow') = to_simhash('finance flow') AS ligatures,
       to_simhash('caf' || U&'\00E9') = to_simhash('cafe' || U&'\0301') AS nfc_nfd,
       to_simhash('dedupli' || U&'\00AD' || 'cation') = to_simhash('deduplication') AS soft_hyphen,
       to_simhash('Straße') = to_simhash('STRASSE') AS sharp_s,
       to_simhash('ﾃﾞｰﾀﾍﾞｰｽ') = to_simhash('データベース') AS half_width_kana,
       to_simhash('ΣΊΣΥΦΟΣ') = to_simhash('σίσυφοσ') AS greek_sigma;
-- but different words stay different
SELECT to_simhash('resume') <> to_simhash('résumé') AS accents_kept,
       to_simhash('cat') <> to_simhash('cats') AS words_distinct;

-- punctuation and white space separate words, and nothing else
SELECT to_simhash('one,two;three') = to_simhash('one two three') AS punctuation,
       to_simhash(E'one\ttwo\nthree') = to_simhash('one two three') AS whitespace,
       to_simhash('') = '0000000000000000' AS empty, to_simhash('!?.,') = '0000000000000000' AS no_words;

-- the database collation plays no part (to_simhash does not use it)
SELECT to_simhash('İstanbul IŞIK' COLLATE "C") = to_simhash('İstanbul IŞIK' COLLATE "POSIX") AS collation_free;
SELECT to_simhash(lower('ABC')) = to_simhash(upper('abc')) AS folded;

-- near-duplicates are close, unrelated texts are not
CREATE TEMP TABLE pair (a text, b text);
INSERT INTO pair VALUES
 ('The Debian project is an association of individuals who have made common cause to create a free operating system. This operating system is called Debian GNU/Linux, or simply Debian for short.',
  'The Debian project is an association of individuals who have made common cause to create a free operating system. This operating system is called Debian GNU Linux or just Debian for short.'),
 ('近似重复检测是网络爬虫的重要问题。每个网页计算一个指纹，汉明距离不超过三即视为近似重复，这样可以节省大量的存储空间和计算时间。',
  '近似重复检测是网络爬虫的重要问题。每个网页计算一个指纹，汉明距离不超过三就视为近似重复，这样可以节省大量的存储空间和计算时间。');
SELECT to_simhash(a) <-> to_simhash(b) <= 10 AS words_close,
       simhash_ngram(a) <-> simhash_ngram(b) <= 10 AS ngrams_close,
       simhash_shingle(a, 2) <-> simhash_shingle(b, 2) <= 16 AS shingles_close
FROM pair;
SELECT to_simhash(a) <-> to_simhash('Completely unrelated words about cooking pasta with tomatoes and basil in summer.') >= 16 AS far
FROM pair LIMIT 1;

-- large input: 10 MB of text in one call, words and CJK
SELECT to_simhash(repeat('lorem ipsum dolor sit amet ', 400000)) AS big_words,
       length(repeat('lorem ipsum dolor sit amet ', 400000)) AS chars;
SELECT to_simhash(repeat('近似重复检测', 600000)) AS big_cjk;
SELECT simhash_ngram(repeat('abcdefghij ', 1000000), 4) AS big_ngram;
SELECT simhash_shingle(repeat('alpha beta gamma delta ', 500000), 3) AS big_shingle;
-- one word of 10 MB
SELECT to_simhash(repeat('x', 10000000)) = to_simhash(ARRAY[repeat('x', 10000000)]) AS one_huge_word;
-- many distinct words (feature table growth)
SELECT to_simhash(string_agg('w' || i, ' ')) = to_simhash(array_agg('w' || i ORDER BY i)) AS distinct_words
FROM generate_series(1, 200000) i;

-- untyped literals and parameters fingerprint the text (not a hex cast)
PREPARE q(unknown) AS SELECT to_simhash($1) AS fp;
EXECUTE q('hello world');
SELECT to_simhash('hello world') AS fp;
SELECT to_simhash('hello world'::varchar) = to_simhash('hello world') AS varchar_ok;
DEALLOCATE q;
