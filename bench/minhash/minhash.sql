-- bench/minhash/minhash.sql: the error of minhash_jaccard against the exact
-- simhash_jaccard on the pairs of pairs.py, read from standard input as
-- CSV; run by bench/minhash/run.  Prints markdown tables.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;
CREATE TABLE raw (id int PRIMARY KEY, lang text, bucket text, kind text, target float8,
                  a_hex text, b_hex text);
\copy raw FROM pstdin WITH (FORMAT csv)
CREATE TABLE pairs AS
	SELECT id, lang, bucket, kind, target,
	       convert_from(decode(a_hex, 'hex'), 'UTF8') AS a,
	       convert_from(decode(b_hex, 'hex'), 'UTF8') AS b
	  FROM raw;
DROP TABLE raw;
-- exact: the extension's exact Jaccard similarity of the two feature sets;
-- est: the estimate from the two signatures; na, nb: the sets' sizes and nu
-- the union's, |A| + |B| = |A u B| (1 + J)
CREATE TABLE r AS
	SELECT id, lang, bucket, kind, target, exact, est, na, nb,
	       round((na + nb) / (1 + exact))::int AS nu
	  FROM (SELECT p.*, simhash_jaccard(a, b) AS exact,
	               minhash_jaccard(to_minhash(a), to_minhash(b)) AS est,
	               (SELECT count(*) FROM simhash_features(a)) AS na,
	               (SELECT count(*) FROM simhash_features(b)) AS nb
	          FROM pairs p) s;
-- the standard error of the estimate for independent bins, 256 bins of 4
-- bits: sqrt(P(1 - P) / 256) / (1 - C), P = C + (1 - C) J, C = 1/16
CREATE FUNCTION se(j float8) RETURNS float8 IMMUTABLE LANGUAGE sql AS $$
	SELECT sqrt((1.0 / 16 + 15.0 / 16 * j) * (1 - (1.0 / 16 + 15.0 / 16 * j)) / 256) / (15.0 / 16)
$$;
CREATE FUNCTION f(x float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE WHEN x IS NULL THEN '-' ELSE to_char(x, 'FM90.0000') END
$$;
CREATE FUNCTION pct(x float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
	SELECT CASE WHEN x IS NULL THEN '-' ELSE to_char(100 * x, 'FM990.00') || '%' END
$$;
-- the statistics of a set of pairs: bias and RMSE of est - exact overall,
-- and for exact J in [0.55, 0.75]; the share of pairs with |J - 0.65| >= 0.1
-- on the wrong side of t = 0.65
CREATE VIEW stats AS
	SELECT lang, bucket, count(*) AS n,
	       percentile_disc(0.5) WITHIN GROUP (ORDER BY nu) AS nu_median,
	       avg(est - exact) AS bias, sqrt(avg((est - exact) ^ 2)) AS rmse,
	       count(*) FILTER (WHERE exact BETWEEN 0.55 AND 0.75) AS n_w,
	       avg(est - exact) FILTER (WHERE exact BETWEEN 0.55 AND 0.75) AS bias_w,
	       sqrt(avg((est - exact) ^ 2) FILTER (WHERE exact BETWEEN 0.55 AND 0.75)) AS rmse_w,
	       sqrt(avg(se(exact) ^ 2) FILTER (WHERE exact BETWEEN 0.55 AND 0.75)) AS se_w,
	       count(*) FILTER (WHERE abs(exact - 0.65) >= 0.1) AS n_far,
	       count(*) FILTER (WHERE abs(exact - 0.65) >= 0.1 AND (est >= 0.65) <> (exact >= 0.65)) AS n_wrong
	  FROM r GROUP BY GROUPING SETS ((lang, bucket), ());

\pset format unaligned
\pset tuples_only on
\pset footer off
SELECT '## minhash_jaccard against simhash_jaccard, per language and bucket';
SELECT '';
SELECT 'Estimate minus exact. Window: the pairs with exact J in [0.55, 0.75]; SE: the standard error for independent bins at their J (RMS). Wrong side: among the pairs with |J - 0.65| >= 0.1, the share whose estimate is on the other side of t = 0.65. Features: the median size of the union of the two feature sets.';
SELECT '';
SELECT '| lang | bucket | pairs | features | bias | RMSE | window pairs | window bias | window RMSE | SE | wrong side |';
SELECT '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s (%s of %s) |',
	coalesce(lang, 'all'), coalesce(bucket, 'all'), n, nu_median, f(bias), f(rmse), n_w,
	f(bias_w), f(rmse_w), f(se_w), pct(n_wrong::float8 / nullif(n_far, 0)), n_wrong, n_far)
  FROM stats
 ORDER BY lang IS NULL, array_position(ARRAY['en', 'ja', 'zh'], lang),
          array_position(ARRAY['short', 'medium', 'long'], bucket);
SELECT '';
SELECT '## By the size of the union of the two feature sets (256 bins)';
SELECT '';
SELECT 'All languages and buckets. With fewer features than bins most bins are filled by densification.';
SELECT '';
SELECT '| features in A ∪ B | pairs | bias | RMSE | window pairs | window bias | window RMSE | SE | wrong side |';
SELECT '|---|---:|---:|---:|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s (%s of %s) |', c, count(*),
	f(avg(est - exact)), f(sqrt(avg((est - exact) ^ 2))),
	count(*) FILTER (WHERE exact BETWEEN 0.55 AND 0.75),
	f(avg(est - exact) FILTER (WHERE exact BETWEEN 0.55 AND 0.75)),
	f(sqrt(avg((est - exact) ^ 2) FILTER (WHERE exact BETWEEN 0.55 AND 0.75))),
	f(sqrt(avg(se(exact) ^ 2) FILTER (WHERE exact BETWEEN 0.55 AND 0.75))),
	pct(count(*) FILTER (WHERE abs(exact - 0.65) >= 0.1 AND (est >= 0.65) <> (exact >= 0.65))::float8
	    / nullif(count(*) FILTER (WHERE abs(exact - 0.65) >= 0.1), 0)),
	count(*) FILTER (WHERE abs(exact - 0.65) >= 0.1 AND (est >= 0.65) <> (exact >= 0.65)),
	count(*) FILTER (WHERE abs(exact - 0.65) >= 0.1))
  FROM (SELECT *, CASE WHEN nu < 16 THEN '1-15' WHEN nu < 32 THEN '16-31' WHEN nu < 64 THEN '32-63'
	                   WHEN nu < 128 THEN '64-127' WHEN nu < 256 THEN '128-255' WHEN nu < 1024 THEN '256-1023'
	                   ELSE '1024 or more' END AS c,
	           CASE WHEN nu < 16 THEN 0 WHEN nu < 32 THEN 1 WHEN nu < 64 THEN 2 WHEN nu < 128 THEN 3
	                WHEN nu < 256 THEN 4 WHEN nu < 1024 THEN 5 ELSE 6 END AS o
	      FROM r) s
 GROUP BY c, o ORDER BY o;
SELECT '';
SELECT '## By exact J';
SELECT '';
SELECT 'All languages and buckets; the estimate is clamped to [0, 1], which biases it upwards near 0 and downwards near 1.';
SELECT '';
SELECT '| exact J | pairs | bias | RMSE | SE |';
SELECT '|---|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s |', band, count(*), f(avg(est - exact)),
	f(sqrt(avg((est - exact) ^ 2))), f(sqrt(avg(se(exact) ^ 2))))
  FROM (SELECT *, CASE WHEN exact < 0.1 THEN '0-0.1' WHEN exact < 0.3 THEN '0.1-0.3'
	                   WHEN exact < 0.45 THEN '0.3-0.45' WHEN exact < 0.55 THEN '0.45-0.55'
	                   WHEN exact <= 0.75 THEN '0.55-0.75' WHEN exact < 0.85 THEN '0.75-0.85'
	                   WHEN exact < 0.95 THEN '0.85-0.95' ELSE '0.95-1' END AS band
	      FROM r) s
 GROUP BY band ORDER BY band;
SELECT '';
SELECT '## The spread of exact J over the edited pairs';
SELECT '';
SELECT '| lang | bucket | edited pairs | < 0.3 | 0.3-0.55 | 0.55-0.75 | 0.75-0.95 | >= 0.95 | unrelated pairs: median J |';
SELECT '|---|---|---:|---:|---:|---:|---:|---:|---:|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s |', lang, bucket,
	count(*) FILTER (WHERE kind = 'edit'),
	count(*) FILTER (WHERE kind = 'edit' AND exact < 0.3),
	count(*) FILTER (WHERE kind = 'edit' AND exact >= 0.3 AND exact < 0.55),
	count(*) FILTER (WHERE kind = 'edit' AND exact BETWEEN 0.55 AND 0.75),
	count(*) FILTER (WHERE kind = 'edit' AND exact > 0.75 AND exact < 0.95),
	count(*) FILTER (WHERE kind = 'edit' AND exact >= 0.95),
	f(percentile_cont(0.5) WITHIN GROUP (ORDER BY exact) FILTER (WHERE kind = 'unrelated')))
  FROM r GROUP BY lang, bucket
 ORDER BY array_position(ARRAY['en', 'ja', 'zh'], lang), array_position(ARRAY['short', 'medium', 'long'], bucket);
SELECT '';
SELECT '## Sets of n features (synthetic)';
SELECT '';
SELECT 'Two texts of n distinct words each, c of them shared (J = c / (2n - c)), 400 pairs per row, each with words of its own: the case of few features with nothing else varying. Wrong side: the share of pairs whose estimate is on the other side of t = 0.65 from J (- where |J - 0.65| < 0.1). Estimate 1: the share of pairs estimated at 1. SE: the standard error for independent bins (the clamping at 0 makes the error at J = 0 smaller).';
SELECT '';
SELECT '| n | J | pairs | bias | RMSE | SE | wrong side | estimate 1 |';
SELECT '|---:|---:|---:|---:|---:|---:|---:|---:|';
CREATE TABLE syn AS
	SELECT n, c, p, c::float8 / (2 * n - c) AS exact,
	       minhash_jaccard(to_minhash(a), to_minhash(b)) AS est
	  FROM (SELECT n, c, p,
	               (SELECT string_agg(CASE WHEN i <= c THEN 's' ELSE 'a' END || n || 'x' || c || 'p' || p || 'i' || i, ' ')
	                  FROM generate_series(1, n) i) AS a,
	               (SELECT string_agg(CASE WHEN i <= c THEN 's' ELSE 'b' END || n || 'x' || c || 'p' || p || 'i' || i, ' ')
	                  FROM generate_series(1, n) i) AS b
	          FROM (SELECT DISTINCT n, c FROM unnest(ARRAY[1, 2, 4, 8, 16, 32, 64, 128, 256, 1024]) n,
	                       unnest(ARRAY[0.0, 0.5, 0.65, 0.8]) j,
	                       LATERAL (SELECT round(2 * n * j / (1 + j))::int AS c) cc) nc,
	               generate_series(1, 400) p) s;
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s |', n, f(exact), count(*), f(avg(est - exact)),
	f(sqrt(avg((est - exact) ^ 2))), f(se(exact)),
	CASE WHEN abs(exact - 0.65) < 0.1 THEN '-' ELSE pct(avg(((est >= 0.65) <> (exact >= 0.65))::int)) END,
	pct(avg((est = 1)::int)))
  FROM syn GROUP BY n, c, exact ORDER BY n, exact;
