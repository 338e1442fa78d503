-- Test vectors of the text fingerprints: to_simhash(text), simhash_ngram,
-- simhash_shingle on English, Chinese, Japanese and Korean samples.  These
-- values are stored data in users' tables: a change here is a breaking
-- change (a new function name), never an update of this file.
CREATE EXTENSION IF NOT EXISTS simhash;

\getenv abs_srcdir PG_ABS_SRCDIR
\set samples_sql :abs_srcdir '/sql/include/samples.sql'
\i :samples_sql

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
