-- bench/batch/scale_load.sql: the table sc_data for one step of the scaling
-- benchmark, run by bench/batch/run; psql variables :dist (uniform or
-- skewed) and :rows: the random fingerprints and planted clusters of
-- load.sql.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS sc_data, sc_sample, sc_pairs3, sc_pairs6;
\set tbl sc_data
\ir load.sql
VACUUM ANALYZE sc_data;
SELECT pg_prewarm('sc_data') AS blocks \gset
