-- The similarity operator fp % q (1.14) on the distributed table: the
-- workers evaluate it, each with its own simhash.similarity_threshold.
-- With the default on every node, and with a SET LOCAL that Citus passes
-- to the workers (citus.propagate_set_commands = local), each query's ids
-- are those of the radius the threshold means, on the plain table.
SET client_min_messages = warning;
-- queries whose ids through fp % q on docs differ from those of
-- fp <-> q <= simhash_radius(s, w) on docs_local
CREATE FUNCTION similar_mismatches(col text, qcol text, typ text, w int, s float8)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	r record;
	got bigint[];
	want bigint[];
	n bigint := 0;
BEGIN
	FOR r IN EXECUTE format('SELECT qid, %I::text AS q FROM queries_local ORDER BY qid', qcol) LOOP
		EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM docs WHERE %I %% %L::%s',
		               col, r.q, typ) INTO got;
		EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM docs_local WHERE %I <-> %L::%s <= simhash_radius(%s, %s)',
		               col, r.q, typ, s, w) INTO want;
		IF got IS DISTINCT FROM want THEN
			n := n + 1;
		END IF;
	END LOOP;
	RETURN n;
END $$;
-- the default threshold, 0.9, on every node
SELECT result AS worker_radius_256, count(*) AS nodes
FROM run_command_on_workers($$SELECT simhash_similarity_radius(256)$$) GROUP BY result;
SELECT similar_mismatches('fp', 'q', 'simhash', 64, 0.9) AS mismatched_64,
       similar_mismatches('fp128', 'q128', 'simhash128', 128, 0.9) AS mismatched_128,
       similar_mismatches('fp256', 'q256', 'simhash256', 256, 0.9) AS mismatched_256;
-- the answers are not empty, and the radii of 0.9 and 0.97 (below) find
-- different rows, so a worker that kept its own threshold would show
SELECT sum((SELECT count(*) FROM docs_local WHERE fp <-> q.q <= 9)) AS rows_64_within_9,
       sum((SELECT count(*) FROM docs_local WHERE fp <-> q.q <= 5)) AS rows_64_within_5,
       sum((SELECT count(*) FROM docs_local WHERE fp256 <-> q.q256 <= 36)) AS rows_256_within_36,
       sum((SELECT count(*) FROM docs_local WHERE fp256 <-> q.q256 <= 20)) AS rows_256_within_20
FROM queries_local q;
-- another threshold, set in a transaction and passed to the workers
SET citus.propagate_set_commands = local;
BEGIN;
SET LOCAL simhash.similarity_threshold = 0.97;
SELECT simhash_similarity_radius(64) AS r64, simhash_similarity_radius(256) AS r256;
SELECT similar_mismatches('fp', 'q', 'simhash', 64, 0.97) AS mismatched_64,
       similar_mismatches('fp256', 'q256', 'simhash256', 256, 0.97) AS mismatched_256;
COMMIT;
RESET citus.propagate_set_commands;
DROP FUNCTION similar_mismatches;
