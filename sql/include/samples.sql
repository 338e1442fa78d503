-- Shared by fingerprint.sql and wide.sql (\i): the temporary table samples
-- (id, lang, body) of the test vectors, English, Chinese, Japanese, Korean,
-- mixed, accented, empty and punctuation-only texts.  Their fingerprints
-- are stored data in users' tables: a change here is a breaking change.
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
