-- Radius search on one width's column of the distributed table, written
-- every way a user may write it: each gives, query by query, the ids of
-- the brute-force answer (expect).  Included by cases/1N_radius_W with
-- :w (the width), :type, :fp (the column of docs), :q and :k (the query's
-- fingerprint and radius in queries) set.
SET client_min_messages = warning;
-- a prepared statement with $1/$2, executed once per query (30 times) in
-- the default plan_cache_mode: with force_generic_plan Citus refuses any
-- multi-shard query with parameters, even id > $1 ("could not create
-- distributed plan")
PREPARE radius(:type, int) AS
	SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') AS ids FROM docs WHERE :fp <-> $1 <= $2;
CREATE TEMP TABLE prepared_got (qid int, ids text);
\set ECHO none
SELECT format('CREATE TEMP TABLE p AS EXECUTE radius(%L, %s)', :q, :k),
	format('INSERT INTO prepared_got SELECT %s, ids FROM p', qid), 'DROP TABLE p'
FROM queries_local ORDER BY qid \gexec
\set ECHO all
-- each query a format() string of the column (%1$s), the query's
-- fingerprint and radius (%2$s, %3$s) and the width (%4$s); %% stands for
-- the % of radius_per_query's own format() string
SELECT spelling, mismatches(:w, format(query, :'fp', :'q', :'k', :w)) AS mismatched_queries
FROM (VALUES
	(1, 'fp <-> q <= k', $$SELECT * FROM radius_per_query('docs', %4$s, '%%1$I <-> %%2$L <= %%3$s')$$),
	(2, 'k >= fp <-> q', $$SELECT * FROM radius_per_query('docs', %4$s, '%%3$s >= %%1$I <-> %%2$L')$$),
	(3, 'simhash_within(fp, q, k)', $$SELECT * FROM radius_per_query('docs', %4$s, 'simhash_within(%%1$I, %%2$L::%%4$s, %%3$s)')$$),
	(4, 'fp <@ simhash_ball(q, k)', $$SELECT * FROM radius_per_query('docs', %4$s, '%%1$I <@ simhash_ball(%%2$L::%%4$s, %%3$s)')$$),
	(5, 'lateral join from the reference table',
		$$SELECT q.qid, string_agg(d.id::text, ',' ORDER BY d.id) AS ids
		  FROM queries q CROSS JOIN LATERAL (SELECT id FROM docs WHERE docs.%1$s <-> q.%2$s <= q.%3$s) d
		  GROUP BY q.qid$$),
	(6, 'join in a materialized CTE of a local table',
		$$WITH qs AS MATERIALIZED (SELECT qid, %2$s, %3$s FROM queries_local)
		  SELECT qs.qid, string_agg(d.id::text, ',' ORDER BY d.id) AS ids
		  FROM qs JOIN docs d ON d.%1$s <-> qs.%2$s <= qs.%3$s GROUP BY qs.qid$$),
	(7, 'radius search in a CTE',
		$$WITH hits AS (SELECT q.qid, d.id FROM queries q JOIN docs d ON simhash_within(d.%1$s, q.%2$s, q.%3$s))
		  SELECT qid, string_agg(id::text, ',' ORDER BY id) AS ids FROM hits GROUP BY qid$$),
	(8, 'prepared statement', $$SELECT qid, ids FROM prepared_got$$),
	(9, 'the plain table, fp <-> q <= k', $$SELECT * FROM radius_per_query('docs_local', %4$s, '%%1$I <-> %%2$L <= %%3$s')$$)
) s(n, spelling, query) ORDER BY n;
