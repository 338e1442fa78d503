-- The cluster, and the tables of the cases after this one: docs, distributed
-- by id over 32 shards with a GIN index per width, the same rows in the
-- plain table docs_local (no index: the reference answers come from
-- sequential scans), the queries as a reference table and a plain copy.
SET client_min_messages = warning;
-- the ports as offsets from the coordinator's, so that a cluster on other
-- ports (SIMHASH_CITUS_PORTS) gives the same output
SELECT nodeport - (SELECT min(nodeport) FROM pg_dist_node) AS port_offset, noderole, isactive, shouldhaveshards
FROM pg_dist_node ORDER BY nodeport;
SELECT count(*) AS nodes_with_simhash
FROM run_command_on_all_nodes($$SELECT extversion FROM pg_extension WHERE extname = 'simhash'$$)
WHERE success AND result = (SELECT extversion FROM pg_extension WHERE extname = 'simhash');
-- 36000 fingerprints from the bits of md5, and 4000 near-duplicates of the
-- first 400: i % 7 bits flipped in word 0 (the 64-bit fingerprint), i % 5
-- more in words 1 to 3; the 64- and 128-bit columns are the first words of
-- the 256-bit one, as the types promise for one input
CREATE TABLE docs_local (id bigint PRIMARY KEY, fp simhash, fp128 simhash128, fp256 simhash256);
INSERT INTO docs_local
SELECT id, simhash(substring(b FROM 1 FOR 64)), simhash128(substring(b FROM 1 FOR 128)), simhash256(b)
FROM (
	SELECT i AS id, ('x' || md5(i::text) || md5((-i)::text))::bit(256) AS b
	FROM generate_series(1, 36000) i
	UNION ALL
	SELECT i, ('x' || md5((i % 400 + 1)::text) || md5((-(i % 400 + 1))::text))::bit(256) # m.mask
	FROM generate_series(36001, 40000) i, LATERAL (
		SELECT coalesce(bit_or(B'1'::bit(256) >> p), B'0'::bit(256)) AS mask
		FROM (SELECT (i * 13 + n * 29) % 64 FROM generate_series(1, i % 7) n
			  UNION ALL
			  SELECT 64 + (i * 7 + n * 53) % 192 FROM generate_series(1, i % 5) n) s(p)) m
) x;
-- rows without a fingerprint are never within any radius
INSERT INTO docs_local VALUES (40001, NULL, NULL, NULL), (40002, NULL, NULL, NULL);
-- 24 queries near a planted fingerprint (qid % 4 bits flipped in word 0,
-- as many in the others), 6 from unrelated bits; radius qid % 9 at 64 bits
CREATE TABLE queries_local (qid int PRIMARY KEY, q simhash, q128 simhash128, q256 simhash256,
	k64 int, k128 int, k256 int);
INSERT INTO queries_local
SELECT qid, simhash(substring(b FROM 1 FOR 64)), simhash128(substring(b FROM 1 FOR 128)), simhash256(b),
	qid % 9, qid % 9 + 4, qid % 9 + 8
FROM (
	SELECT qid, CASE WHEN qid <= 24
		THEN ('x' || md5((qid * 37 % 400 + 1)::text) || md5((-(qid * 37 % 400 + 1))::text))::bit(256) # m.mask
		ELSE ('x' || md5('q' || qid) || md5('r' || qid))::bit(256) END AS b
	FROM generate_series(1, 30) qid, LATERAL (
		SELECT coalesce(bit_or(B'1'::bit(256) >> p), B'0'::bit(256)) AS mask
		FROM (SELECT (qid * 11 + n * 17) % 64 FROM generate_series(1, qid % 4) n
			  UNION ALL
			  SELECT 64 + (qid * 5 + n * 41) % 192 FROM generate_series(1, qid % 4) n) s(p)) m
) x;
CREATE TABLE docs (LIKE docs_local INCLUDING ALL);
SELECT create_distributed_table('docs', 'id', shard_count => 32);
INSERT INTO docs SELECT * FROM docs_local;
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops);
CREATE INDEX docs_fp128_gin ON docs USING gin (fp128 simhash128_gin_ops);
CREATE INDEX docs_fp256_gin ON docs USING gin (fp256 simhash256_gin_ops);
CREATE TABLE queries (LIKE queries_local INCLUDING ALL);
SELECT create_reference_table('queries');
INSERT INTO queries SELECT * FROM queries_local;
ANALYZE docs, docs_local, queries, queries_local;
SELECT count(*) AS shards, count(DISTINCT nodeport) AS nodes
FROM citus_shards WHERE table_name = 'docs'::regclass;
SELECT (SELECT count(*) FROM docs) = (SELECT count(*) FROM docs_local) AS same_row_count,
	(SELECT count(*) FROM queries) = (SELECT count(*) FROM queries_local) AS same_query_count;
-- The reference answers: per width and query, the ids within the radius,
-- by counting the differing bits of the bit strings (not through <->)
CREATE TABLE expect AS
SELECT 64 AS width, q.qid, coalesce(string_agg(d.id::text, ',' ORDER BY d.id), '') AS ids
FROM queries_local q LEFT JOIN docs_local d
	ON bit_count(simhash_to_bit(d.fp) # simhash_to_bit(q.q)) <= q.k64
GROUP BY q.qid
UNION ALL
SELECT 128, q.qid, coalesce(string_agg(d.id::text, ',' ORDER BY d.id), '')
FROM queries_local q LEFT JOIN docs_local d
	ON bit_count(simhash128_to_bit(d.fp128) # simhash128_to_bit(q.q128)) <= q.k128
GROUP BY q.qid
UNION ALL
SELECT 256, q.qid, coalesce(string_agg(d.id::text, ',' ORDER BY d.id), '')
FROM queries_local q LEFT JOIN docs_local d
	ON bit_count(simhash256_to_bit(d.fp256) # simhash256_to_bit(q.q256)) <= q.k256
GROUP BY q.qid;
-- the comparisons below mean something: per width some queries find
-- rows, some several, some none
SELECT width, count(*) AS queries, count(*) FILTER (WHERE ids = '') > 0 AS some_empty,
	count(*) FILTER (WHERE ids LIKE '%,%') > 0 AS some_several
FROM expect GROUP BY width ORDER BY width;

-- How many queries of queries_local get other ids from a query than in
-- expect: query returns (qid, ids), ids a sorted comma-separated list; a
-- query it leaves out counts as an empty list.
CREATE FUNCTION mismatches(w int, query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	DROP TABLE IF EXISTS got;
	-- the result first, on the coordinator: a join of the distributed
	-- query with expect would be another query
	EXECUTE 'CREATE TEMP TABLE got AS ' || query;
	SELECT count(*) INTO n
	FROM (SELECT qid, ids FROM expect WHERE width = w) e FULL JOIN got g ON g.qid = e.qid
	WHERE coalesce(e.ids, '<none>') <> coalesce(g.ids, '');
	RETURN n;
END $$;

-- One statement per query of queries_local against tab, the query's
-- fingerprint a literal: cond is a format() string with %1$I the column,
-- %2$L the query, %3$s the radius, %4$s the type.
CREATE FUNCTION radius_per_query(tab regclass, w int, cond text)
RETURNS TABLE (qid int, ids text) LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM queries_local ORDER BY 1 LOOP
		qid := r.qid;
		EXECUTE format('SELECT coalesce(string_agg(id::text, '','' ORDER BY id), '''') FROM %s WHERE ', tab) ||
			CASE w WHEN 64 THEN format(cond, 'fp', r.q, r.k64, 'simhash')
				WHEN 128 THEN format(cond, 'fp128', r.q128, r.k128, 'simhash128')
				ELSE format(cond, 'fp256', r.q256, r.k256, 'simhash256') END
			INTO ids;
		RETURN NEXT;
	END LOOP;
END $$;
