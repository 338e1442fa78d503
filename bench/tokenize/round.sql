-- bench/tokenize/round.sql: one timed full pass of each tokenizer over
-- table :tab in this backend, appended to table times; run by
-- bench/tokenize/run with psql variables :pid :build :round :tab (the
-- search_path chooses the build's functions).  With :wide = true (the
-- installed build) also to_simhash, to_simhash128, to_simhash256,
-- to_simhash256_binary and to_minhash once more each (psql variable :turns,
-- the five names as an array literal), stored as to_simhash@64, @128, @256,
-- to_simhash256_binary and to_minhash, for the ratios of the widths and of
-- the verification stage's functions to to_simhash256.
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
-- the three widths, the binary-weight 256-bit fingerprint and the minhash
-- signature in an order that turns with the round, so that none always runs
-- first or last; to_simhash is stored as 'to_simhash@64', to_simhash128 and
-- to_simhash256 as 'to_simhash@128' and 'to_simhash@256', the other two
-- under their own names
SELECT (:'turns'::text[])[1 + :round % 5] AS f1, (:'turns'::text[])[1 + (:round + 1) % 5] AS f2,
       (:'turns'::text[])[1 + (:round + 2) % 5] AS f3, (:'turns'::text[])[1 + (:round + 3) % 5] AS f4,
       (:'turns'::text[])[1 + (:round + 4) % 5] AS f5 \gset
SELECT cpu_s(:pid) AS w0 \gset
SELECT count(:f1(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w1 \gset
SELECT count(:f2(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w2 \gset
SELECT count(:f3(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w3 \gset
SELECT count(:f4(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w4 \gset
SELECT count(:f5(body)) FROM :tab \g /dev/null
SELECT cpu_s(:pid) AS w5 \gset
INSERT INTO times
	SELECT :'build', :round, :'tab',
	       CASE WHEN f ~ '^to_simhash(128|256)?$'
	            THEN 'to_simhash@' || coalesce(nullif(substr(f, 11), ''), '64') ELSE f END,
	       c
	  FROM (VALUES (:'f1', :w1 - :w0), (:'f2', :w2 - :w1), (:'f3', :w3 - :w2),
	               (:'f4', :w4 - :w3), (:'f5', :w5 - :w4)) AS v(f, c);
\endif
