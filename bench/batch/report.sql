-- bench/batch/report.sql: the summary of bench/batch/run: data, times and
-- ratios, peak memory, checks, goals.  Reads tables data_info, timing,
-- checks, memory.
\set ON_ERROR_STOP 1
\pset footer off

CREATE TEMP VIEW di AS SELECT what, value FROM data_info;
CREATE TEMP TABLE med AS
SELECT what, k, count(*) AS runs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) / 1000 AS secs,
       min(ms) / 1000 AS min_s, max(ms) / 1000 AS max_s,
       max(n) AS n, bool_or(estimated) AS estimated
  FROM timing GROUP BY what, k;

\echo
\echo ==================== Data
\pset format unaligned
\pset tuples_only on
SELECT format('  %s rows: %s random + %s planted (%s centres; variants at distance 1..6; %s exact duplicates)',
              (SELECT value FROM di WHERE what = 'rows'), (SELECT value FROM di WHERE what = 'random'),
              (SELECT value FROM di WHERE what = 'planted'), (SELECT value FROM di WHERE what = 'centres'),
              (SELECT value FROM di WHERE what = 'exact duplicates'));
SELECT format('  table %s, GIN index (simhash_gin_ops) %s', (SELECT value FROM di WHERE what = 'table'),
              (SELECT value FROM di WHERE what = 'index'));
SELECT format('  generation: INSERT %s s, CREATE INDEX %s s, VACUUM ANALYZE + prewarm %s s',
              (SELECT value FROM di WHERE what = 'load_s'), (SELECT value FROM di WHERE what = 'index_s'),
              (SELECT value FROM di WHERE what = 'vacuum_s'));
\pset format aligned
\pset tuples_only off

\echo
\echo ==================== Times
\echo 'simhash_pairs and simhash_clusters: median of the runs (min..max in brackets);'
\echo 'the self-join: one run, or its estimate (marked ~) from the sample when over --join-limit.'
\echo '"self-join / this": how many times faster than the self-join at the same k.'
SELECT CASE m.what WHEN 'self-join' THEN 'self-join through GIN'
                   WHEN 'self-join sample' THEN format('self-join, outer rows id %% %s = 0',
                                                      (SELECT value FROM di WHERE what = 'modulus'))
                   ELSE m.what END AS "query",
       m.k,
       CASE WHEN m.estimated THEN 'estimate' ELSE m.runs::text END AS runs,
       CASE WHEN m.estimated THEN '~' ELSE '' END || round(m.secs::numeric, 3)
         || CASE WHEN m.runs > 1 THEN format(' [%s..%s]', round(m.min_s::numeric, 3), round(m.max_s::numeric, 3))
                 ELSE '' END AS "seconds",
       CASE WHEN m.what = 'simhash_clusters' THEN m.n || ' ids'
            WHEN m.estimated THEN '' ELSE m.n || ' pairs' END AS "result rows",
       CASE WHEN m.what = 'simhash_pairs' AND j.secs IS NOT NULL
            THEN CASE WHEN j.estimated THEN '~' ELSE '' END || round((j.secs / m.secs)::numeric, 1) || 'x'
            ELSE '' END AS "self-join / this"
  FROM med m
  LEFT JOIN med j ON j.what = 'self-join' AND j.k = m.k
 ORDER BY m.k, CASE m.what WHEN 'simhash_pairs' THEN 1 WHEN 'simhash_clusters' THEN 2
                           WHEN 'self-join' THEN 3 ELSE 4 END;
\pset format unaligned
\pset tuples_only on
SELECT '  self-join at k = ' || substr(what, 11) || ': ' || value FROM di WHERE what LIKE 'estimate_k%' ORDER BY what;
\pset format aligned
\pset tuples_only off

\echo
\echo ==================== Peak memory of the backend (VmHWM from /proc/<pid>/status)
\echo 'baseline: VmHWM of the same backend just before the call, after reading docs once'
\echo '(so the shared buffers of docs are in it); "stated MB": the memory doc/batch.md states'
\echo 'and maintenance_work_mem is checked against, for comparison with the delta.'
SELECT m.fn || '(k = ' || m.k || ')' AS "function",
       round(m.hwm0_kb / 1024.0, 1) AS "baseline MB",
       round(m.hwm1_kb / 1024.0, 1) AS "peak MB",
       round((m.hwm1_kb - m.hwm0_kb) / 1024.0, 1) AS "delta MB",
       round((m.hwm1_kb - m.hwm0_kb) * 1024.0 / m.rows, 1) AS "bytes/row",
       round(CASE m.fn WHEN 'simhash_clusters' THEN 46 ELSE 42 END * m.rows / 1048576.0, 1) AS "stated MB",
       round((m.shmem1_kb - m.shmem0_kb) / 1024.0, 1) AS "shmem delta MB",
       round(m.secs::numeric, 2) AS "call s"
  FROM memory m
 ORDER BY m.fn DESC, m.k;

\echo
\echo ==================== Checks
SELECT CASE WHEN ok THEN 'ok' ELSE 'FAILED' END AS result, name AS "check", coalesce(detail, '') AS detail
  FROM checks ORDER BY name;

\echo
\echo ==================== Goals (simhash_pairs at k = 3)
\pset format unaligned
\pset tuples_only on
SELECT format('goal: >= 20x faster than the GIN self-join: %s%sx%s, %s',
              CASE WHEN j.estimated THEN '~' ELSE '' END, round((j.secs / p.secs)::numeric, 1),
              CASE WHEN j.estimated THEN ' (against the estimate)' ELSE '' END,
              CASE WHEN j.secs >= 20 * p.secs THEN 'met' ELSE 'NOT met' END)
  FROM med p, med j
 WHERE p.what = 'simhash_pairs' AND p.k = 3 AND j.what = 'self-join' AND j.k = 3;
SELECT format('goal: under 10 s: %s s, %s%s', round(p.secs::numeric, 2),
              CASE WHEN p.secs < 10 THEN 'met' ELSE 'NOT met' END,
              CASE WHEN (SELECT value FROM di WHERE what = 'random') <> '1000000'
                   THEN format(' (on %s rows; the goal is for --rows 1000000)',
                               (SELECT value FROM di WHERE what = 'rows'))
                   ELSE '' END)
  FROM med p WHERE p.what = 'simhash_pairs' AND p.k = 3;
SELECT format('checks: %s passed, %s failed', count(*) FILTER (WHERE ok), count(*) FILTER (WHERE ok IS NOT TRUE))
  FROM checks;
