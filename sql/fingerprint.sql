-- Test vectors of the text fingerprints: to_simhash(text), simhash_ngram,
-- simhash_shingle on English, Chinese, Japanese and Korean samples.  These
-- values are stored data in users' tables: a change here is a breaking
-- change (a new function name), never an update of this file.
CREATE EXTENSION IF NOT EXISTS simhash;

CREATE TEMP TABLE samples (id int, lang text, body text);
INSERT INTO samples VALUES
 (1, 'en', 'The quick brown fox jumps over the lazy dog.'),
 (2, 'en', 'Detecting near-duplicates for web crawling: a 64-bit fingerprint per page, and Hamming distance at most 3.'),
 (3, 'en', 'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness.'),
 (4, 'zh', '近似重复检测是网络爬虫的重要问题。每个网页计算一个64位指纹，汉明距离不超过3即视为近似重复。'),
 (5, 'zh', '北京是中华人民共和国的首都，也是全国的政治、文化中心。'),
 (6, 'ja', '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。'),
 (7, 'ja', 'データベースの中で、ほぼ重複した文書を見つけます。ＳＩＭＨＡＳＨ　ｶﾀｶﾅ'),
 (8, 'ko', '한국어 문서의 중복을 찾습니다. 유사 중복 검출'),
 (9, 'mixed', 'PostgreSQL 15 の拡張機能 simhash は、中文と English を同時に扱えます。'),
 (10, 'en', 'Ünïcödé façade naïve café — résumé ﬁnance Straße'),
 (11, 'empty', ''),
 (12, 'punct', ' ... !!! ??? --- ');

SELECT id, lang, to_simhash(body) AS words, simhash_ngram(body) AS ngram3,
       simhash_ngram(body, 1) AS ngram1, simhash_ngram(body, 5) AS ngram5,
       simhash_shingle(body) AS shingle3, simhash_shingle(body, 1) AS shingle1,
       simhash_shingle(body, 2) AS shingle2
FROM samples ORDER BY id;

-- the default tokenizer's features, spelled out: words, and CJK runs as
-- overlapping bigrams (a one-character run is a unigram), weight 1 + ln(tf)
SELECT to_simhash('The cat; the CAT, the cat!') =
       to_simhash(ARRAY['the', 'cat'], ARRAY[1 + ln(3), 1 + ln(3)]) AS english_features;
SELECT to_simhash('中文字 x 好') =
       to_simhash(ARRAY['中文', '文字', 'x', '好']) AS cjk_bigrams;
SELECT to_simhash('abc中文def') =
       to_simhash(ARRAY['abc', '中文', 'def']) AS script_boundary;
SELECT to_simhash('ひらがなカタカナ') =
       to_simhash(ARRAY['ひら', 'らが', 'がな', 'なカ', 'カタ', 'タカ', 'カナ']) AS kana_bigrams;
-- simhash_ngram: character n-grams after folding, white space collapsed
SELECT simhash_ngram('  Ab   cd  ', 3) =
       to_simhash(ARRAY['ab ', 'b c', ' cd']) AS ngram_features;
SELECT simhash_ngram('ab', 3) = to_simhash(ARRAY['ab']) AS short_text;
-- simhash_shingle: word n-grams joined by one space; CJK characters are tokens
SELECT simhash_shingle('One two, THREE four', 2) =
       to_simhash(ARRAY['one two', 'two three', 'three four']) AS shingle_features;
SELECT simhash_shingle('abc 中文', 2) = to_simhash(ARRAY['abc 中', '中 文']) AS shingle_cjk;
SELECT simhash_shingle('solo', 3) = to_simhash(ARRAY['solo']) AS short_shingle;
