-- simhash_nearest_radius on the distributed table (its radius searches
-- are ordinary SELECTs, run on the shards) gives, for every query and
-- width, the radius it gives on the plain table.
SET client_min_messages = warning;
-- simhash_nearest_radius(tab, col, q, 10) for query qid at width w
CREATE FUNCTION nearest_radius(tab regclass, w int, query_id int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	r record;
	radius int;
BEGIN
	SELECT * INTO r FROM queries_local WHERE qid = query_id;
	EXECUTE format('SELECT simhash_nearest_radius(%1$L, %2$L, %3$L::%4$s, 10)', tab,
		CASE w WHEN 64 THEN 'fp' ELSE 'fp' || w END,
		CASE w WHEN 64 THEN r.q::text WHEN 128 THEN r.q128::text ELSE r.q256::text END,
		CASE w WHEN 64 THEN 'simhash' ELSE 'simhash' || w END) INTO radius;
	RETURN radius;
END $$;
SELECT width, count(*) AS queries,
	count(*) FILTER (WHERE dist IS DISTINCT FROM loc) AS mismatched_queries,
	count(DISTINCT loc) > 1 AS several_radii
FROM (SELECT w.width, q.qid, nearest_radius('docs', w.width, q.qid) AS dist,
		nearest_radius('docs_local', w.width, q.qid) AS loc
	  FROM queries_local q, (VALUES (64), (128), (256)) w(width)) s
GROUP BY width ORDER BY width;
