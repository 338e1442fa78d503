-- bench/index/pagefill.sql: why a simhash_gin_ops index grows with
-- maintenance_work_mem.  Builds the same index with 2MB and with 1GB and
-- reports its size per row, the entries per row, the bytes per entry and how
-- full the entry-tree leaves are (pageinspect).  Run in a scratch database:
--   psql -X -f bench/index/pagefill.sql
\set rows 300000
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE EXTENSION IF NOT EXISTS pageinspect;
DROP TABLE IF EXISTS pagefill;
CREATE TABLE pagefill AS
SELECT g AS id, hashint8extended(g, 7)::simhash AS fp FROM generate_series(1, :rows) g;
SET maintenance_work_mem = '2MB';
CREATE INDEX pagefill_2mb ON pagefill USING gin (fp simhash_gin_ops);
SET maintenance_work_mem = '1GB';
CREATE INDEX pagefill_1gb ON pagefill USING gin (fp simhash_gin_ops);
RESET maintenance_work_mem;

SELECT i.idx, maintenance_work_mem,
       round(pg_relation_size(i.idx) / :rows::numeric, 1) AS bytes_per_row,
       count(*) AS leaf_pages,
       round(sum(p.nitems)::numeric / :rows, 2) AS entries_per_row,
       round(avg((p.special - p.upper)::numeric / p.nitems), 1) AS bytes_per_entry,
       round(avg(8192 - (p.upper - p.lower))) AS leaf_bytes_used,
       round(100 * avg(8192 - (p.upper - p.lower)) / 8192) AS leaf_fill_pct
FROM (VALUES ('pagefill_2mb'::regclass, '2MB'), ('pagefill_1gb'::regclass, '1GB')) i(idx, maintenance_work_mem),
     generate_series(1, pg_relation_size(i.idx) / 8192 - 1) b,
     LATERAL (SELECT ((h).lower - 24) / 4 AS nitems, (h).lower, (h).upper, (h).special
              FROM (SELECT page_header(get_raw_page(i.idx::text, b::int)) AS h) x) p
WHERE (gin_page_opaque_info(get_raw_page(i.idx::text, b::int))).flags = '{leaf}'
GROUP BY i.idx, i.maintenance_work_mem
ORDER BY i.maintenance_work_mem DESC;
DROP TABLE pagefill;
