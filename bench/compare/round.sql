-- One round of one build (bench/compare/run): every task once, timed on the
-- server's clock, with a checksum of what it returned so that the builds can
-- be seen to agree.  A fresh backend, so the library is the build's own.
-- A task's plan is forced by its settings: "index" keeps to the index of
-- the task's table (each table has one), "seq" scans.
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET maintenance_work_mem = '1GB';
-- load the library before timing
SELECT '0000000000000000'::simhash <-> '0000000000000001'::simhash \g /dev/null
CREATE TEMP TABLE tasks (n serial, task text, plan text, q text);
INSERT INTO tasks (task, plan, q) VALUES
 ('gin 64 k=3, queries', 'index',
  'SELECT sum(t.id) FROM q64 q CROSS JOIN LATERAL (SELECT id FROM t64 WHERE fp <-> q.fp <= 3) t'),
 ('gin word 256 k=24, queries', 'index',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_gin WHERE fp <-> q.fp <= 24) t'),
 ('gist 256 k=24, queries', 'index',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_gist WHERE fp <-> q.fp <= 24) t'),
 ('gist 256 10 nearest, queries', 'index',
  'SELECT sum(t.id) FROM (SELECT * FROM q256 WHERE n % 4 = 0) q CROSS JOIN LATERAL (SELECT id FROM t256_gist ORDER BY fp <-> q.fp LIMIT 10) t'),
 ('mih 256 k=40, queries', 'index',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_mih WHERE fp <-> q.fp <= 40) t'),
 ('mih 256 10 nearest, queries', 'index',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_mih ORDER BY fp <-> q.fp LIMIT 10) t'),
 ('seq scan 256 <-> k=40, 10 queries', 'seq',
  'SELECT count(*) FROM (SELECT * FROM q256 WHERE n % 20 = 0) q CROSS JOIN LATERAL (SELECT id FROM t256 WHERE fp <-> q.fp <= 40) t'),
 ('text out and in 256', 'seq', 'SELECT count(DISTINCT fp::text::simhash256) FROM t256'),
 ('text out and in 64', 'seq', 'SELECT count(DISTINCT fp::text::simhash) FROM t64'),
 ('bit_or, min 256', 'seq', 'SELECT length(bit_or(fp)::text) + length(min(fp)::text) FROM t256'),
 ('simhash_pairs 256 k=40', 'seq',
  'SELECT sum(id1 * 7 + id2 * 3 + distance) FROM simhash_pairs(''SELECT id, fp FROM t256'', 40)'),
 ('simhash_pairs 64 k=3', 'seq',
  'SELECT sum(id1 * 7 + id2 * 3 + distance) FROM simhash_pairs(''SELECT id, fp FROM t64'', 3)'),
 ('simhash_clusters 256 k=40', 'seq',
  'SELECT count(DISTINCT cluster_id) FROM simhash_clusters(''SELECT id, fp FROM t256'', 40)');
DO $$
DECLARE
	t record;
	t0 timestamptz;
	c numeric;
BEGIN
	FOR t IN SELECT * FROM tasks ORDER BY n LOOP
		PERFORM set_config('enable_seqscan', (t.plan = 'seq')::text, true),
				set_config('enable_indexscan', (t.plan = 'index')::text, true),
				set_config('enable_bitmapscan', (t.plan = 'index')::text, true);
		t0 := clock_timestamp();
		EXECUTE t.q INTO c;
		INSERT INTO times VALUES (current_setting('bench.build'), current_setting('bench.round')::int,
								  t.task, extract(epoch FROM clock_timestamp() - t0), c);
	END LOOP;
END $$;
