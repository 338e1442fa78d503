-- bench/batch/checks.sql: the checks of a report (the table :checks, with
-- name, ok and detail), then the heading of its goals, which print
-- unaligned; :title names both ("Scaling", "Wide").  Included with \ir by
-- scale_report.sql and wide_report.sql.
\echo
\echo ==================== :title checks
SELECT CASE WHEN ok THEN 'ok' ELSE 'FAILED' END AS result, name AS "check", coalesce(detail, '') AS detail
  FROM :checks ORDER BY name;

\echo
\echo ==================== :title goals
\pset format unaligned
\pset tuples_only on
