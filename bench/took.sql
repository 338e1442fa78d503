-- bench/took.sql: the end of a stage of a benchmark's SQL script (\ir):
-- prints the wall time since the previous one (pg_temp.lap() of
-- ../clock.sql), also left in :secs
SELECT pg_temp.lap() AS secs \gset
\echo '   took' :secs 's'
