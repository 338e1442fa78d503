-- bench/batch/scale_report.sql: the summary of the scaling benchmark of
-- bench/batch/run: simhash_pairs at k = 3 and 6 on uniform and skewed
-- fingerprints of each size, its peak memory, the self-join where it ran,
-- growth and skew ratios, checks and goals.  Reads scale_timing,
-- scale_join, scale_checks.
\set ON_ERROR_STOP 1
\pset footer off

CREATE TEMP TABLE sm AS
SELECT dist, rows, k, count(*) AS runs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY secs) AS secs,
       min(secs) AS min_s, max(secs) AS max_s,
       max(pairs) AS pairs, min(pairs) = max(pairs) AS same_pairs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY hwm1_kb - hwm0_kb) AS delta_kb,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_s) AS cpu_s
  FROM scale_timing GROUP BY dist, rows, k;
CREATE TEMP VIEW base AS SELECT DISTINCT ON (dist, k) dist, k, rows, secs, cpu_s FROM sm ORDER BY dist, k, rows;

\echo
\echo ==================== Scaling: simhash_pairs on uniform and skewed (P(1) = 1/4) fingerprints
\echo 'seconds: median of the runs [min..max], each in a fresh backend; CPU s: median of the'
\echo 'backend CPU time (on a shared machine, seconds also count waits for a core); peak memory: median VmHWM'
\echo 'growth over the backend baseline during the call; self-join: through the GIN index, run when'
\echo 'its estimate from a 10,000-row sample was within --scale-join-cap, for sizes up to --scale-join-rows.'
SELECT s.dist, s.rows, s.k, s.pairs,
       round(s.secs::numeric, 3) || format(' [%s..%s]', round(s.min_s::numeric, 3), round(s.max_s::numeric, 3)) AS "seconds",
       round(s.cpu_s::numeric, 2) AS "CPU s",
       round((s.delta_kb / 1024)::numeric, 1) AS "peak MB",
       round((s.delta_kb * 1024 / s.rows)::numeric, 1) AS "B/row",
       CASE WHEN j.secs IS NOT NULL THEN round(j.secs::numeric, 2)::text
            WHEN j.estimate_s IS NOT NULL THEN format('not run (~%s estimated)', round(j.estimate_s::numeric))
            ELSE 'not run' END AS "self-join s",
       CASE WHEN j.secs IS NOT NULL THEN round((j.secs / s.secs)::numeric, 1) || 'x' ELSE '' END AS "self-join / this"
  FROM sm s LEFT JOIN scale_join j USING (dist, rows, k)
 ORDER BY s.k, s.dist DESC, s.rows;

\echo
\echo 'Growth: time at each size over the time at the smallest (rows ratio, CPU time ratio in brackets);'
\echo 'skew: skewed time over uniform time at the same size and k (CPU time ratio), and the ratio of'
\echo 'their pairs (skewed fingerprints have many more natural pairs within k: the output grows too).'
SELECT s.k, s.rows,
       (SELECT round((x.secs / b.secs)::numeric, 2) || format('x (%sx rows; CPU %sx)', round(x.rows::numeric / b.rows, 1),
                                                              round((x.cpu_s / nullif(b.cpu_s, 0))::numeric, 2))
          FROM sm x JOIN base b USING (dist, k) WHERE x.dist = 'uniform' AND x.k = s.k AND x.rows = s.rows) AS "uniform growth",
       (SELECT round((x.secs / b.secs)::numeric, 2) || format('x (%sx rows; CPU %sx)', round(x.rows::numeric / b.rows, 1),
                                                              round((x.cpu_s / nullif(b.cpu_s, 0))::numeric, 2))
          FROM sm x JOIN base b USING (dist, k) WHERE x.dist = 'skewed' AND x.k = s.k AND x.rows = s.rows) AS "skewed growth",
       (SELECT round((x.secs / s.secs)::numeric, 2) || format('x (CPU %sx)', round((x.cpu_s / nullif(s.cpu_s, 0))::numeric, 2))
          FROM sm x WHERE x.dist = 'skewed' AND x.k = s.k AND x.rows = s.rows) AS "skewed / uniform",
       (SELECT round((x.pairs::numeric / nullif(s.pairs, 0)), 2) || 'x'
          FROM sm x WHERE x.dist = 'skewed' AND x.k = s.k AND x.rows = s.rows) AS "pairs skewed / uniform"
  FROM sm s WHERE s.dist = 'uniform'
 ORDER BY s.k, s.rows;

INSERT INTO scale_checks
SELECT format('%s, %s rows, k = %s: every run returned the same pairs count', dist, rows, k), same_pairs, pairs::text
  FROM sm;
\set checks scale_checks
\set title Scaling
\ir checks.sql
SELECT format('goal: %s, k = %s: %s rows at most 5x the time of %s rows: %sx, %s (CPU time %sx)',
              x.dist, x.k, x.rows, b.rows, round((x.secs / b.secs)::numeric, 2),
              CASE WHEN x.secs <= 5 * b.secs THEN 'met' ELSE 'NOT met' END,
              round((x.cpu_s / nullif(b.cpu_s, 0))::numeric, 2))
  FROM sm x JOIN base b USING (dist, k)
 WHERE x.rows > b.rows AND x.rows <= 4.5 * b.rows
 ORDER BY x.k, x.dist DESC;
SELECT format('goal: %s, k = 3, %s rows under 4 s: %s s, %s (CPU time %s s)', dist, rows, round(secs::numeric, 2),
              CASE WHEN secs < 4 THEN 'met' ELSE 'NOT met' END, round(cpu_s::numeric, 2))
  FROM sm WHERE k = 3 AND rows >= 9000000 ORDER BY dist DESC;
SELECT format('goal: skewed at most 3x uniform, %s rows, k = %s: %sx, %s (CPU time %sx; %sx the pairs)', u.rows, u.k,
              round((s.secs / u.secs)::numeric, 2), CASE WHEN s.secs <= 3 * u.secs THEN 'met' ELSE 'NOT met' END,
              round((s.cpu_s / nullif(u.cpu_s, 0))::numeric, 2), round(s.pairs::numeric / nullif(u.pairs, 0), 2))
  FROM sm u JOIN sm s ON s.k = u.k AND s.rows = u.rows AND s.dist = 'skewed'
 WHERE u.dist = 'uniform' ORDER BY u.k, u.rows;
SELECT format('scaling checks: %s passed, %s failed', count(*) FILTER (WHERE ok), count(*) FILTER (WHERE ok IS NOT TRUE))
  FROM scale_checks;
