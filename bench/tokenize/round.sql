-- bench/tokenize/round.sql: one timed full pass of each tokenizer over
-- table :tab in this backend, appended to table times; run by
-- bench/tokenize/run with psql variables :pid :build :round :tab (the
-- search_path chooses the build's functions).  With :wide = true (the
-- installed build) also to_simhash128 and to_simhash256, for the ratios of
-- the widths.
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
SELECT cpu_s(:pid) AS w0 \gset
SELECT count(to_simhash128(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w1 \gset
SELECT count(to_simhash256(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w2 \gset
INSERT INTO times VALUES
	(:'build', :round, :'tab', 'to_simhash128', :w1 - :w0),
	(:'build', :round, :'tab', 'to_simhash256', :w2 - :w1);
\endif
