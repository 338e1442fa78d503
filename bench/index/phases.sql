-- bench/index/phases.sql: every method's phase (pg_temp.phase), each in
-- its own transaction and followed by a VACUUM of docs, between the load
-- averages of the machine (:load_note after them); then the stage's time
-- and the heading of the plans they took, which the script prints next
SELECT 'load average before: ' || pg_temp.loadavg() || :'load_note' AS load \gset
\echo '  ' :load
\pset format unaligned
\pset tuples_only on
SELECT format('SELECT ''   '' || pg_temp.phase(%s)', ord), 'VACUUM docs' FROM method ORDER BY ord \gexec
\pset format aligned
\pset tuples_only off
SELECT 'load average after:  ' || pg_temp.loadavg() || :'load_note' AS load \gset
\echo '  ' :load
\ir ../took.sql

\echo
\echo ==================== Plans (one planted centre)
