-- One round of one build (bench/compare/run): every task once, timed on the
-- server's clock, with a checksum of what it returned so that the builds can
-- be seen to agree.  A fresh backend, so the library is the build's own.
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SET maintenance_work_mem = '1GB';
-- load the library before timing
SELECT '0000000000000000'::simhash <-> '0000000000000001'::simhash \g /dev/null
CREATE FUNCTION pg_temp.timed(build text, round int, task text, q text) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE
	t0 timestamptz := clock_timestamp();
	c numeric;
BEGIN
	EXECUTE q INTO c;
	INSERT INTO times VALUES (build, round, task, extract(epoch FROM clock_timestamp() - t0), c);
END $f$;
SET enable_seqscan = off;
SET enable_bitmapscan = on;
SELECT pg_temp.timed(:'build', :round, 'gin 64 k=3, queries',
  'SELECT sum(t.id) FROM q64 q CROSS JOIN LATERAL (SELECT id FROM t64 WHERE fp <-> q.fp <= 3) t');
SELECT pg_temp.timed(:'build', :round, 'gin word 256 k=24, queries',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_gin WHERE fp <-> q.fp <= 24) t');
SELECT pg_temp.timed(:'build', :round, 'gist 256 k=24, queries',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_gist WHERE fp <-> q.fp <= 24) t');
SELECT pg_temp.timed(:'build', :round, 'gist 256 10 nearest, queries',
  'SELECT sum(t.id) FROM (SELECT * FROM q256 WHERE n % 4 = 0) q CROSS JOIN LATERAL (SELECT id FROM t256_gist ORDER BY fp <-> q.fp LIMIT 10) t');
SELECT pg_temp.timed(:'build', :round, 'mih 256 k=40, queries',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_mih WHERE fp <-> q.fp <= 40) t');
SELECT pg_temp.timed(:'build', :round, 'mih 256 10 nearest, queries',
  'SELECT sum(t.id) FROM q256 q CROSS JOIN LATERAL (SELECT id FROM t256_mih ORDER BY fp <-> q.fp LIMIT 10) t');
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT pg_temp.timed(:'build', :round, 'seq scan 256 <-> k=40, 10 queries',
  'SELECT count(*) FROM (SELECT * FROM q256 WHERE n % 20 = 0) q CROSS JOIN LATERAL (SELECT id FROM t256 WHERE fp <-> q.fp <= 40) t');
SELECT pg_temp.timed(:'build', :round, 'text out and in 256',
  'SELECT count(DISTINCT fp::text::simhash256) FROM t256');
SELECT pg_temp.timed(:'build', :round, 'text out and in 64',
  'SELECT count(DISTINCT fp::text::simhash) FROM t64');
SELECT pg_temp.timed(:'build', :round, 'bit_or, min 256',
  'SELECT length(bit_or(fp)::text) + length(min(fp)::text) FROM t256');
SELECT pg_temp.timed(:'build', :round, 'simhash_pairs 256 k=40',
  'SELECT sum(id1 * 7 + id2 * 3 + distance) FROM simhash_pairs(''SELECT id, fp FROM t256'', 40)');
SELECT pg_temp.timed(:'build', :round, 'simhash_pairs 64 k=3',
  'SELECT sum(id1 * 7 + id2 * 3 + distance) FROM simhash_pairs(''SELECT id, fp FROM t64'', 3)');
SELECT pg_temp.timed(:'build', :round, 'simhash_clusters 256 k=40',
  'SELECT count(DISTINCT cluster_id) FROM simhash_clusters(''SELECT id, fp FROM t256'', 40)');
