-- bench/eval/eval.sql: precision, recall and the best-F1 radius k of each
-- fingerprint function on the labelled pairs of bench/eval/build.py, and
-- the distances of all pairs of real documents for the at-scale tables.
-- psql variable: dir (where pairs.csv and corpus.csv are; the at-scale
-- inputs are written there too, for bench/eval/atscale.py).  Prints
-- markdown tables.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS ev_raw, ev_pairs, ev_dist, ev_curve;
CREATE TABLE ev_raw (pid int, lang text, bucket text, kind text, edits int, label int, h1 text, h2 text);
\set csv :dir '/pairs.csv'
COPY ev_raw FROM :'csv' WITH (FORMAT csv);
CREATE TABLE ev_pairs AS
SELECT pid, lang, bucket, kind, edits, label = 1 AS dup,
       convert_from(decode(h1, 'hex'), 'UTF8') AS t1, convert_from(decode(h2, 'hex'), 'UTF8') AS t2
FROM ev_raw;
DROP TABLE ev_raw;

-- w: the fingerprint's width in bits
CREATE TABLE ev_dist AS
SELECT p.pid, p.lang, p.bucket, p.kind, p.dup, v.fn, v.w, v.d::int AS d
FROM ev_pairs p, LATERAL (VALUES
	('to_simhash', 64, to_simhash(p.t1) <-> to_simhash(p.t2)),
	('simhash_ngram', 64, simhash_ngram(p.t1) <-> simhash_ngram(p.t2)),
	('simhash_shingle', 64, simhash_shingle(p.t1) <-> simhash_shingle(p.t2)),
	('to_simhash128', 128, to_simhash128(p.t1) <-> to_simhash128(p.t2)),
	('to_simhash256', 256, to_simhash256(p.t1) <-> to_simhash256(p.t2))) AS v(fn, w, d);

-- counts at every k: a pair is predicted a near-duplicate when d <= k
CREATE TABLE ev_curve AS
SELECT lang, bucket, fn, k,
       count(*) FILTER (WHERE dup AND d <= k) AS tp,
       count(*) FILTER (WHERE NOT dup AND d <= k) AS fp,
       count(*) FILTER (WHERE dup AND d > k) AS fn_,
       count(*) FILTER (WHERE dup) AS pos,
       count(*) FILTER (WHERE NOT dup) AS neg,
       count(*) FILTER (WHERE kind = 'unrelated' AND d <= k) AS unrel_hit,
       count(*) FILTER (WHERE kind = 'unrelated') AS unrel
FROM ev_dist, generate_series(0, 128) k
WHERE k <= w / 2
GROUP BY GROUPING SETS ((lang, bucket, fn, k), (lang, fn, k), (fn, k));
UPDATE ev_curve SET lang = coalesce(lang, 'all'), bucket = coalesce(bucket, 'all');

CREATE TEMP VIEW ev_f1 AS
SELECT *, CASE WHEN tp + fp = 0 THEN 1.0 ELSE tp::numeric / (tp + fp) END AS p,
       tp::numeric / nullif(pos, 0) AS r,
       CASE WHEN tp = 0 THEN 0 ELSE 2.0 * tp / (2 * tp + fp + fn_) END AS f1
FROM ev_curve;

\pset format unaligned
\pset tuples_only on
\pset footer off
\echo
\echo '### Best-F1 radius k per language, length bucket and function'
\echo
\echo 'P, R, F1 at the best k (smallest k of the highest F1; k swept over 0 .. width/2) on the balanced labelled set, where precision says nothing about a large table (see the at-scale tables below); F1 and recall at k = 3; FPR: share of unrelated pairs within the best k.'
\echo
\echo '| language | bucket | function | pairs (+/−) | best k | P | R | F1 | FPR | F1 at k=3 | R at k=3 |'
\echo '|---|---|---|---|---|---|---|---|---|---|---|'
SELECT format('| %s | %s | `%s` | %s/%s | %s | %s | %s | %s | %s | %s | %s |',
	b.lang, b.bucket, b.fn, b.pos, b.neg, b.k, round(b.p, 3), round(b.r, 3), round(b.f1, 3),
	round(b.unrel_hit::numeric / nullif(b.unrel, 0), 4), round(k3.f1, 3), round(k3.r, 3))
FROM (SELECT DISTINCT ON (lang, bucket, fn) * FROM ev_f1 ORDER BY lang, bucket, fn, f1 DESC, k) b
JOIN ev_f1 k3 ON k3.lang = b.lang AND k3.bucket = b.bucket AND k3.fn = b.fn AND k3.k = 3
ORDER BY b.lang = 'all', b.lang, array_position(ARRAY['short', 'medium', 'long', 'all'], b.bucket), b.fn;

\echo
\echo '### Recall by edit size at k = 3, 6 and 10 (all languages, 64-bit functions)'
\echo
\echo '| function | bucket | edit | pairs | R at k=3 | R at k=6 | R at k=10 | median distance |'
\echo '|---|---|---|---|---|---|---|---|'
SELECT format('| `%s` | %s | %s | %s | %s | %s | %s | %s |', fn, bucket, kind, count(*),
	round(avg((d <= 3)::int), 3), round(avg((d <= 6)::int), 3), round(avg((d <= 10)::int), 3),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY d))
FROM ev_dist
WHERE w = 64
GROUP BY fn, bucket, kind
ORDER BY fn, array_position(ARRAY['short', 'medium', 'long'], bucket),
	array_position(ARRAY['1 edit', '2%', '5%', '10%', '35%', 'unrelated'], kind);

-- The distances of all pairs of real documents, for the at-scale tables:
-- up to 2,500 documents of each language and length bucket (corpus.csv),
-- every pair within the same language and bucket, at 64, 128 and 256 bits.
-- A pair is "related" when its word sets (the features of to_simhash:
-- words, CJK bigrams) overlap by half or more (Jaccard >= 0.5, as the
-- negatives of build.py are defined); related pairs are near-duplicates
-- the corpus has of itself and are left out of the unrelated distances.
-- Jaccard is computed only for pairs within 35 % of the bits at 256
-- (an estimated cosine of 0.45 or more): the farther pairs count as unrelated.
DROP TABLE IF EXISTS ev_docs, ev_hist;
CREATE TABLE ev_docs (id bigint, lang text, bucket text, h text);
\set csv :dir '/corpus.csv'
COPY ev_docs FROM :'csv' WITH (FORMAT csv);
ALTER TABLE ev_docs ADD body text, ADD f64 simhash, ADD f128 simhash128, ADD f256 simhash256, ADD words text[];
UPDATE ev_docs SET body = convert_from(decode(h, 'hex'), 'UTF8'), h = NULL;
UPDATE ev_docs SET f64 = to_simhash(body), f128 = to_simhash128(body), f256 = to_simhash256(body),
	words = ARRAY(SELECT DISTINCT feature FROM simhash_features(body));
VACUUM ANALYZE ev_docs;
CREATE FUNCTION pg_temp.jaccard(a text[], b text[]) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
	SELECT i::float8 / greatest(1, cardinality(a) + cardinality(b) - i)
	  FROM (SELECT count(*) AS i FROM (SELECT unnest(a) INTERSECT ALL SELECT unnest(b)) x) s
$$;
CREATE TABLE ev_hist AS
SELECT lang, bucket, d64, d128, d256,
       CASE WHEN d256 <= 0.35 * 256 THEN pg_temp.jaccard(aw, bw) >= 0.5 ELSE false END AS related,
       count(*) AS n
FROM (SELECT a.lang, a.bucket, a.words AS aw, b.words AS bw,
             (a.f64 <-> b.f64)::int AS d64, (a.f128 <-> b.f128)::int AS d128, (a.f256 <-> b.f256)::int AS d256
        FROM ev_docs a JOIN ev_docs b ON b.lang = a.lang AND b.bucket = a.bucket AND b.id > a.id) p
GROUP BY 1, 2, 3, 4, 5, 6;

-- for atscale.py (client side: the server may not write into dir)
\set csv :dir '/unrelated.csv'
COPY (SELECT lang, bucket, d64, d128, d256, related, n FROM ev_hist) TO STDOUT WITH (FORMAT csv, HEADER) \g :csv
\set csv :dir '/labelled.csv'
COPY (SELECT lang, bucket, kind, dup, fn, w, d FROM ev_dist) TO STDOUT WITH (FORMAT csv, HEADER) \g :csv
\set csv :dir '/docs.csv'
COPY (SELECT lang, bucket, count(*) AS docs FROM ev_docs GROUP BY 1, 2) TO STDOUT WITH (FORMAT csv, HEADER) \g :csv
