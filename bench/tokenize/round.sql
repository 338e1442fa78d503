-- bench/tokenize/round.sql: one timed full pass of each tokenizer over
-- table :tab in this backend, appended to table times; run by
-- bench/tokenize/run with psql variables :pid :build :round :tab (the
-- search_path chooses the build's functions).  With :wide = true (the
-- installed build) also to_simhash, to_simhash128 and to_simhash256 once
-- more each, stored as to_simhash@64, @128 and @256, for the ratios of the
-- widths.
SELECT cpu_s(:pid) AS c0 \gset
SELECT count(to_simhash(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS c1 \gset
SELECT count(simhash_ngram(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS c2 \gset
SELECT count(simhash_shingle(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS c3 \gset
INSERT INTO times VALUES
	(:'build', :round, :'tab', 'to_simhash', :c1 - :c0),
	(:'build', :round, :'tab', 'simhash_ngram', :c2 - :c1),
	(:'build', :round, :'tab', 'simhash_shingle', :c3 - :c2);
\if :wide
-- the three widths in an order that turns with the round, so that no width
-- always runs first or last; its to_simhash is stored as 'to_simhash@64'
SELECT (ARRAY['to_simhash', 'to_simhash128', 'to_simhash256'])[1 + :round % 3] AS f1,
       (ARRAY['to_simhash', 'to_simhash128', 'to_simhash256'])[1 + (:round + 1) % 3] AS f2,
       (ARRAY['to_simhash', 'to_simhash128', 'to_simhash256'])[1 + (:round + 2) % 3] AS f3 \gset
SELECT cpu_s(:pid) AS w0 \gset
SELECT count(:f1(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w1 \gset
SELECT count(:f2(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w2 \gset
SELECT count(:f3(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w3 \gset
INSERT INTO times VALUES
	(:'build', :round, :'tab', replace(:'f1', 'to_simhash', 'to_simhash@') || CASE WHEN :'f1' = 'to_simhash' THEN '64' ELSE '' END, :w1 - :w0),
	(:'build', :round, :'tab', replace(:'f2', 'to_simhash', 'to_simhash@') || CASE WHEN :'f2' = 'to_simhash' THEN '64' ELSE '' END, :w2 - :w1),
	(:'build', :round, :'tab', replace(:'f3', 'to_simhash', 'to_simhash@') || CASE WHEN :'f3' = 'to_simhash' THEN '64' ELSE '' END, :w3 - :w2);
\endif
