-- Nearest neighbours by ORDER BY fp <-> q LIMIT 10 on the distributed
-- table (each shard's ten, merged on the coordinator) against the plain
-- table: the same ten distances for every query and width.
SET client_min_messages = warning;
-- the distances of the 10 rows of tab nearest query qid, at width w
CREATE FUNCTION knn(tab regclass, w int, query_id int) RETURNS int[] LANGUAGE plpgsql AS $$
DECLARE
	r record;
	col text := CASE w WHEN 64 THEN 'fp' ELSE 'fp' || w END;
	res int[];
BEGIN
	SELECT * INTO r FROM queries_local WHERE qid = query_id;
	EXECUTE format('SELECT array_agg(d ORDER BY d) FROM (SELECT (%1$I <-> %2$L::%3$s)::int AS d FROM %4$s ORDER BY %1$I <-> %2$L::%3$s LIMIT 10) s',
		col, CASE w WHEN 64 THEN r.q::text WHEN 128 THEN r.q128::text ELSE r.q256::text END,
		CASE w WHEN 64 THEN 'simhash' ELSE 'simhash' || w END, tab)
		INTO res;
	RETURN res;
END $$;
SELECT width, count(*) AS queries,
	count(*) FILTER (WHERE dist IS DISTINCT FROM loc) AS mismatched_queries,
	bool_and(cardinality(loc) = 10) AS ten_each,
	count(*) FILTER (WHERE loc[1] = 0) > 0 AS some_exact,
	count(*) FILTER (WHERE loc[1] > 0) > 0 AS some_not_exact
FROM (SELECT w.width, q.qid, knn('docs', w.width, q.qid) AS dist, knn('docs_local', w.width, q.qid) AS loc
	  FROM queries_local q, (VALUES (64), (128), (256)) w(width)) s
GROUP BY width ORDER BY width;
