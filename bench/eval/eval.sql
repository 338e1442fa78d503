-- bench/eval/eval.sql: precision, recall and the best-F1 radius k of each
-- fingerprint function on the labelled pairs of bench/eval/build.py.
-- psql variable: dir (where pairs.csv is).  Prints markdown tables.
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

CREATE TABLE ev_dist AS
SELECT p.pid, p.lang, p.bucket, p.kind, p.dup, v.fn, v.d
FROM ev_pairs p, LATERAL (VALUES
	('to_simhash', to_simhash(p.t1) <-> to_simhash(p.t2)),
	('simhash_ngram', simhash_ngram(p.t1) <-> simhash_ngram(p.t2)),
	('simhash_shingle', simhash_shingle(p.t1) <-> simhash_shingle(p.t2))) AS v(fn, d);

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
FROM ev_dist, generate_series(0, 32) k
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
\echo 'P, R, F1 at the best k (smallest k of the highest F1); F1 and recall at k = 3; FPR: share of unrelated pairs within the best k.'
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
\echo '### Recall by edit size at k = 3, 6 and 10 (all languages)'
\echo
\echo '| function | bucket | edit | pairs | R at k=3 | R at k=6 | R at k=10 | median distance |'
\echo '|---|---|---|---|---|---|---|---|'
SELECT format('| `%s` | %s | %s | %s | %s | %s | %s | %s |', fn, bucket, kind, count(*),
	round(avg((d <= 3)::int), 3), round(avg((d <= 6)::int), 3), round(avg((d <= 10)::int), 3),
	percentile_disc(0.5) WITHIN GROUP (ORDER BY d))
FROM ev_dist
GROUP BY fn, bucket, kind
ORDER BY fn, array_position(ARRAY['short', 'medium', 'long'], bucket),
	array_position(ARRAY['1 edit', '2%', '5%', '10%', '35%', 'unrelated'], kind);

-- At a real base rate: every pair within k among up to 20,000 documents of
-- a language (simhash_pairs), and for a sample of 500 of them the share
-- whose word sets (the features of to_simhash: words, CJK bigrams) overlap
-- by half or more (Jaccard >= 0.5), a proxy for "is a near-duplicate".
DROP TABLE IF EXISTS ev_docs, ev_base;
CREATE TABLE ev_docs (id bigint, lang text, bucket text, h text);
\set csv :dir '/corpus.csv'
COPY ev_docs FROM :'csv' WITH (FORMAT csv);
ALTER TABLE ev_docs ADD body text, ADD fp_t simhash, ADD fp_n simhash, ADD fp_s simhash, ADD words text[];
UPDATE ev_docs SET body = convert_from(decode(h, 'hex'), 'UTF8'), h = NULL;
UPDATE ev_docs SET fp_t = to_simhash(body), fp_n = simhash_ngram(body), fp_s = simhash_shingle(body),
	words = ARRAY(SELECT feature FROM simhash_features(body) ORDER BY 1);
CREATE TABLE ev_base (lang text, fn text, k int, docs bigint, pairs bigint, sampled int, nsimilar int);
DO $$
DECLARE
	l text; f text; col text; kk int; np bigint; nd bigint; ns int; nsim int;
BEGIN
	FOR l IN SELECT DISTINCT lang FROM ev_docs ORDER BY 1 LOOP
		SELECT count(*) INTO nd FROM ev_docs WHERE lang = l;
		FOREACH f IN ARRAY ARRAY['to_simhash', 'simhash_ngram', 'simhash_shingle'] LOOP
			col := CASE f WHEN 'to_simhash' THEN 'fp_t' WHEN 'simhash_ngram' THEN 'fp_n' ELSE 'fp_s' END;
			FOREACH kk IN ARRAY ARRAY[3, 6, 9, 12] LOOP
				CREATE TEMP TABLE ev_p AS
				SELECT * FROM simhash_pairs(format('SELECT id, %I FROM ev_docs WHERE lang = %L', col, l), kk);
				SELECT count(*) INTO np FROM ev_p;
				SELECT count(*), count(*) FILTER (WHERE j >= 0.5) INTO ns, nsim FROM (
					SELECT (SELECT count(*) FROM (SELECT unnest(a.words) INTERSECT SELECT unnest(b.words)) i)::float8
					       / greatest(1, (SELECT count(*) FROM (SELECT unnest(a.words) UNION SELECT unnest(b.words)) u)) AS j
					FROM (SELECT * FROM ev_p ORDER BY hashint8(id1 * 7919 + id2) LIMIT 500) p
					JOIN ev_docs a ON a.id = p.id1 JOIN ev_docs b ON b.id = p.id2) s;
				INSERT INTO ev_base VALUES (l, f, kk, nd, np, ns, nsim);
				DROP TABLE ev_p;
			END LOOP;
		END LOOP;
	END LOOP;
END $$;
\echo
\echo '### Pairs within k among real documents (base rate)'
\echo
\echo 'Up to 20,000 distinct documents per language, all buckets together; every pair within k (simhash_pairs); of a sample of up to 500 of those pairs, the share whose word sets overlap by half or more (Jaccard >= 0.5 over the features of to_simhash).'
\echo
\echo '| language | function | documents | k | pairs within k | pairs per 1,000 documents | sampled | share with Jaccard >= 0.5 |'
\echo '|---|---|---|---|---|---|---|---|'
SELECT format('| %s | `%s` | %s | %s | %s | %s | %s | %s |', lang, fn, docs, k, pairs,
	round(1000.0 * pairs / docs, 1), sampled, CASE WHEN sampled > 0 THEN round(nsimilar::numeric / sampled, 3)::text ELSE '–' END)
FROM ev_base ORDER BY lang, fn, k;
