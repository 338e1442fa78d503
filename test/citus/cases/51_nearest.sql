-- simhash_nearest on the distributed table gives, for every query and
-- width, the distances of the ten rows it gives on the plain table, and
-- rows of the table (their distances recomputed from their fingerprints).
SET client_min_messages = warning;
-- the distances of the rows of simhash_nearest(NULL::tab, col, q, 10),
-- sorted, for query qid at width w
CREATE FUNCTION nearest(tab regclass, w int, query_id int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	r record;
	res int[];
BEGIN
	SELECT * INTO r FROM queries_local WHERE qid = query_id;
	EXECUTE format('SELECT array_agg(d ORDER BY d) FROM (SELECT (%1$I <-> %2$L::%3$s)::int AS d FROM simhash_nearest(NULL::%4$s, %1$L, %2$L::%3$s, 10)) s',
		CASE w WHEN 64 THEN 'fp' ELSE 'fp' || w END,
		CASE w WHEN 64 THEN r.q::text WHEN 128 THEN r.q128::text ELSE r.q256::text END,
		CASE w WHEN 64 THEN 'simhash' ELSE 'simhash' || w END, tab) INTO res;
	RETURN res;
END $$;
SELECT width, count(*) AS queries,
	count(*) FILTER (WHERE dist IS DISTINCT FROM loc) AS mismatched_queries,
	bool_and(cardinality(loc) = 10) AS ten_each,
	count(*) FILTER (WHERE loc[1] = 0) > 0 AND count(*) FILTER (WHERE loc[1] > 0) > 0 AS near_and_far
FROM (SELECT w.width, q.qid, nearest('docs', w.width, q.qid) AS dist, nearest('docs_local', w.width, q.qid) AS loc
	  FROM queries_local q, (VALUES (64), (128), (256)) w(width)) s
GROUP BY width ORDER BY width;
