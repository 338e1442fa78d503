-- bench/session.sql: the session of the benchmarks' SQL scripts, included
-- (\ir) by bench/index/common.sql and bench/nearest/bench.sql.  One
-- backend, no parallel workers, no JIT: per-core numbers, comparable
-- between runs and machines.  Index builds on one core as well.  work_mem
-- 64MB keeps the bitmaps of large candidate sets exact: at the default 4MB
-- a bitmap of more than about 65,000 heap pages turns lossy, and every row
-- of those pages is rechecked (at 20M rows the table has 127,000 pages).
SET max_parallel_workers_per_gather = 0;
SET max_parallel_maintenance_workers = 0;
SET jit = off;
SET maintenance_work_mem = '256MB';
SET work_mem = '64MB';
