-- bench/eval/eval.sql: the database side of bench/eval/run.  On the
-- labelled pairs of bench/eval/build.py: the achieved feature Jaccard of
-- each edit level, and precision, recall and the best-F1 radius k of each
-- fingerprint function; the distances, minhash estimate and exact Jaccard
-- of every pair go to labelled.csv.  For the documents of corpus.csv: the
-- 256-bit fingerprints, the minhash signature and the features with their
-- counts go to docs.csv and features.csv, from which bench/eval/atscale.py
-- computes the cosine, Jaccard and distances of all their pairs.
-- psql variable: dir (where the CSV files are read and written).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS ev_raw, ev_pairs, ev_lab, ev_curve, ev_docs;
CREATE TABLE ev_raw (pid int, lang text, bucket text, kind text, target float8, label int, h1 text, h2 text);
\set csv :dir '/pairs.csv'
COPY ev_raw FROM :'csv' WITH (FORMAT csv);
CREATE TABLE ev_pairs AS
SELECT pid, lang, bucket, kind, target, label = 1 AS dup,
       convert_from(decode(h1, 'hex'), 'UTF8') AS t1, convert_from(decode(h2, 'hex'), 'UTF8') AS t2
FROM ev_raw;
DROP TABLE ev_raw;

-- every measure of a pair: distances at 64, 128 and 256 bits (weighted),
-- at 256 bits with binary weights, the minhash estimate and the exact Jaccard
CREATE TABLE ev_lab AS
SELECT pid, lang, bucket, kind, target, dup,
       (to_simhash(t1) <-> to_simhash(t2))::int AS d64,
       (to_simhash128(t1) <-> to_simhash128(t2))::int AS d128,
       (to_simhash256(t1) <-> to_simhash256(t2))::int AS d256,
       (to_simhash256_binary(t1) <-> to_simhash256_binary(t2))::int AS d256b,
       minhash_jaccard(to_minhash(t1), to_minhash(t2)) AS mh,
       simhash_jaccard(t1, t2) AS jx
FROM ev_pairs;

\pset format unaligned
\pset tuples_only on
\pset footer off
\echo
\echo '### The labelled pairs: achieved feature Jaccard'
\echo
\echo 'Edits are made until 1 − J of the features of `to_simhash` reaches the target (build.py, on an approximation of the tokenizer); J here is the exact `simhash_jaccard` of each pair: median (10th–90th percentile). d256, d256b: median Hamming distance of `to_simhash256` and `to_simhash256_binary`.'
\echo
\echo '| language | bucket | edit | pairs | J median (p10–p90) | d256 | d256b | minhash estimate median |'
\echo '|---|---|---|---|---|---|---|---|'
SELECT format('| %s | %s | %s | %s | %s (%s–%s) | %s | %s | %s |', lang, bucket, kind, count(*),
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY jx)::numeric, 3),
	round(percentile_cont(0.1) WITHIN GROUP (ORDER BY jx)::numeric, 3),
	round(percentile_cont(0.9) WITHIN GROUP (ORDER BY jx)::numeric, 3),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY d256),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY d256b),
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY mh)::numeric, 3))
FROM ev_lab
GROUP BY lang, bucket, kind
ORDER BY array_position(ARRAY['en', 'zh', 'ja', 'tpl'], lang),
	array_position(ARRAY['short', 'medium', 'long'], bucket),
	array_position(ARRAY['1 edit', '5%', '10%', '20%', '50%', 'unrelated'], kind);

-- counts at every k of each single-stage function: near-duplicate when d <= k
CREATE TABLE ev_curve AS
SELECT lang, bucket, fn, k,
       count(*) FILTER (WHERE dup AND d <= k) AS tp,
       count(*) FILTER (WHERE NOT dup AND d <= k) AS fp,
       count(*) FILTER (WHERE dup) AS pos,
       count(*) FILTER (WHERE NOT dup) AS neg
FROM (SELECT l.lang, l.bucket, l.dup, v.fn, v.w, v.d
        FROM ev_lab l, LATERAL (VALUES ('to_simhash', 64, d64), ('to_simhash128', 128, d128),
                                       ('to_simhash256', 256, d256),
                                       ('to_simhash256_binary', 256, d256b)) AS v(fn, w, d)) x,
     generate_series(0, 128) k
WHERE k <= w / 2
GROUP BY GROUPING SETS ((lang, bucket, fn, k), (lang, fn, k));
UPDATE ev_curve SET bucket = coalesce(bucket, 'all');

\echo
\echo '### Best-F1 radius k per language, length bucket and function (balanced labelled set)'
\echo
\echo 'Positives: the 1-token, 5 %, 10 % and 20 % copies; negatives: the 50 % copies and two unrelated documents. P, R, F1 at the best k (smallest k of the highest F1, k over 0 .. width/2). Precision on a balanced set says nothing about a large table: see the at-scale tables.'
\echo
\echo '| language | bucket | function | pairs (+/−) | best k | P | R | F1 |'
\echo '|---|---|---|---|---|---|---|---|'
SELECT format('| %s | %s | `%s` | %s/%s | %s | %s | %s | %s |', lang, bucket, fn, pos, neg, k,
	round(CASE WHEN tp + fp = 0 THEN 1.0 ELSE tp::numeric / (tp + fp) END, 3),
	round(tp::numeric / pos, 3), round(2.0 * tp / (tp + fp + pos), 3))
FROM (SELECT DISTINCT ON (lang, bucket, fn) *
        FROM ev_curve ORDER BY lang, bucket, fn, 2.0 * tp / (tp + fp + pos) DESC, k) b
ORDER BY array_position(ARRAY['en', 'zh', 'ja', 'tpl'], lang),
	array_position(ARRAY['short', 'medium', 'long', 'all'], bucket), fn;

-- for atscale.py (client side: the server may not write into dir)
\set csv :dir '/labelled.csv'
COPY (SELECT lang, bucket, kind, target, dup, d64, d128, d256, d256b, mh, jx FROM ev_lab)
	TO STDOUT WITH (FORMAT csv, HEADER) \g :csv

-- the documents of corpus.csv: fingerprints, signature, features
CREATE TABLE ev_docs (id int, lang text, bucket text, h text);
\set csv :dir '/corpus.csv'
COPY ev_docs FROM :'csv' WITH (FORMAT csv);
ALTER TABLE ev_docs ADD body text;
UPDATE ev_docs SET body = convert_from(decode(h, 'hex'), 'UTF8'), h = NULL;
\set csv :dir '/docs.csv'
COPY (SELECT id, lang, bucket, to_simhash256(body), to_simhash256_binary(body), to_minhash(body)
        FROM ev_docs ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER) \g :csv
\set csv :dir '/features.csv'
COPY (SELECT d.id, f.feature, f.tf FROM ev_docs d, simhash_features(d.body) f ORDER BY d.id)
	TO STDOUT WITH (FORMAT csv) \g :csv
