-- bench/batch/wide_report.sql: the summary of the wide run of
-- bench/batch/run (--width 128 or 256): times, growth and peak memory of
-- simhash_pairs and simhash_clusters at each size and k, the exactness
-- checks, the text-derived set, the goals.  psql variables :width :klist.
-- Reads w_timing, w_exact, w_checks, w_text_timing, w_text_info,
-- w_text_found (the last three only when they exist).
\set ON_ERROR_STOP 1
\pset footer off

CREATE TEMP TABLE wm AS
SELECT fn, random, rows, k, count(*) AS runs,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY secs) AS secs,
       min(secs) AS min_s, max(secs) AS max_s,
       max(n) AS n, min(n) = max(n) AS same_n,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY hwm1_kb - hwm0_kb) AS delta_kb,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu_s) AS cpu_s
  FROM w_timing GROUP BY fn, random, rows, k;
-- each size against the previous one of the same function and k: the
-- time ratio, the N log N ratio and the ratio of the output
CREATE TEMP VIEW wg AS
SELECT *, secs / prev_secs AS growth, cpu_s / nullif(prev_cpu, 0) AS cpu_growth,
       (rows * ln(rows)) / (prev_rows * ln(prev_rows)) AS nlogn,
       pairs::float8 / nullif(prev_pairs, 0) AS out_ratio
  FROM (SELECT m.*, lag(m.secs) OVER w AS prev_secs, lag(m.cpu_s) OVER w AS prev_cpu, lag(m.rows) OVER w AS prev_rows,
               p.n AS pairs, lag(p.n) OVER w AS prev_pairs
          FROM wm m JOIN wm p ON p.fn = 'simhash_pairs' AND p.rows = m.rows AND p.k = m.k
        WINDOW w AS (PARTITION BY m.fn, m.k ORDER BY m.rows)) x;

SELECT EXISTS (SELECT FROM w_timing) AS have_sizes \gset
\if :have_sizes
\echo
\echo ==================== Wide run: :width-bit fingerprints, uniform random plus planted clusters
\echo 'rows: the --scale size plus the planted rows; result: pairs (simhash_pairs) or ids'
\echo '(simhash_clusters); seconds: median of the runs [min..max], each in a fresh backend;'
\echo 'CPU s: median backend CPU time (seconds also count waits for a core on a shared machine);'
\echo 's/M rows: seconds per million rows; growth: time over the time at the previous size (and CPU'
\echo 'time over CPU time), with the N log N ratio of the rows and the ratio of the pairs; peak:'
\echo 'median VmHWM growth of the backend during the call (the table''s shared buffers are in the'
\echo 'baseline); B/row: peak over rows.'
SELECT fn AS "function", rows, k,
       n AS "result",
       round(secs::numeric, 3) || format(' [%s..%s]', round(min_s::numeric, 3), round(max_s::numeric, 3)) AS "seconds",
       round(cpu_s::numeric, 2) AS "CPU s",
       round((secs * 1e6 / rows)::numeric, 3) AS "s/M rows",
       CASE WHEN prev_secs IS NULL THEN ''
            ELSE format('%sx (CPU %sx; N log N %sx, pairs %sx)', round(growth::numeric, 2),
                        coalesce(round(cpu_growth::numeric, 2)::text, '-'), round(nlogn::numeric, 2),
                        coalesce(round(out_ratio::numeric, 2)::text, '-')) END AS "growth vs previous size",
       round((delta_kb / 1024)::numeric, 1) AS "peak MB",
       round((delta_kb * 1024 / rows)::numeric, 1) AS "B/row"
  FROM wg
 ORDER BY k DESC, fn DESC, rows;

\echo
\echo ==================== Exactness: brute force on a sample
\echo 'For 100 random and 100 planted rows: every row within k of them by a full scan of'
\echo 'fp <-> sample.fp (brute), against the rows of simhash_pairs with a sampled id (found);'
\echo 'mismatches: pairs in one set and not the other (EXCEPT ALL both ways, with the distance);'
\echo 'cluster violations: brute-force pairs, or planted variants within k of their centre, that'
\echo 'simhash_clusters splits, or labels above their smallest id.  Both must be 0.'
SELECT rows, k, sample AS "sampled rows", brute AS "brute-force pairs", found AS "simhash_pairs pairs",
       mismatches, cluster_violations AS "cluster violations"
  FROM w_exact ORDER BY k DESC, rows;
\endif
INSERT INTO w_checks
SELECT format('%s rows, k = %s: simhash_pairs equals brute force on %s sampled rows, simhash_clusters joins their pairs',
              rows, k, sample),
       mismatches = 0 AND cluster_violations = 0 AND brute > 0,
       format('%s pairs, %s mismatches, %s cluster violations', brute, mismatches, cluster_violations)
  FROM w_exact;
INSERT INTO w_checks
SELECT format('%s rows, k = %s: every %s run returned the same count', rows, k, fn), same_n, n::text
  FROM wm;
INSERT INTO w_checks
SELECT format('%s rows, k = %s: simhash_clusters returned one row per id', rows, k), n = rows,
       format('%s ids, %s rows', n, rows)
  FROM wm WHERE fn = 'simhash_clusters';

SELECT to_regclass('w_text_found') IS NOT NULL AS have_text \gset
\if :have_text
\echo
\echo ==================== Text-derived set: simhash_pairs on fingerprints of real text
\pset format unaligned
\pset tuples_only on
SELECT format('  %s documents of the corpus (demo/corpus.pl), %s of at least 10 words (%s words on average);',
              (SELECT value FROM w_text_info WHERE what = 'documents'), (SELECT value FROM w_text_info WHERE what = 'kept'),
              (SELECT value FROM w_text_info WHERE what = 'words'))
UNION ALL
SELECT format('  each with a copy of 1 word edit and one of max(2, 5 %%) word edits: %s rows (edits %s s, fingerprints %s s)',
              (SELECT value FROM w_text_info WHERE what = 'rows'), (SELECT value FROM w_text_info WHERE what = 'edit_s'),
              (SELECT value FROM w_text_info WHERE what = 'fp_s'));
\pset format aligned
\pset tuples_only off
\echo 'seconds: median of the runs [min..max]; us/pair: the median time per returned pair;'
\echo 'copies found: (document, edited copy) pairs among the result, of all such pairs.'
SELECT t.width AS "bits", t.k, max(t.n) AS pairs,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY t.secs)::numeric, 4)
       || format(' [%s..%s]', round(min(t.secs)::numeric, 4), round(max(t.secs)::numeric, 4)) AS "seconds",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY t.secs) * 1e6 / nullif(max(t.n), 0))::numeric, 2) AS "us/pair",
       format('%s of %s', f.found, f.copies) AS "copies found"
  FROM w_text_timing t JOIN w_text_found f USING (width, k)
 GROUP BY t.width, t.k, f.found, f.copies
 ORDER BY t.width, t.k;
INSERT INTO w_checks
SELECT format('text set, %s bits, k = %s: every run returned the same count', width, k), min(n) = max(n), max(n)::text
  FROM w_text_timing GROUP BY width, k;
\endif

\set checks w_checks
\set title Wide
\ir checks.sql
SELECT (:width = 256 AND 32 = ANY (:'klist'::int[])) AS goals \gset
\if :goals
-- at 256 bits and k = 32, for each function: 1M rows in 30 s, 10M in 600 s
(SELECT format('goal: %s, 256 bits, k = 32: %s rows in at most %s s: %s', f.fn, g.label, g.max_s,
               coalesce((SELECT format('%s s, %s', round(secs::numeric, 2), CASE WHEN secs <= g.max_s THEN 'met' ELSE 'not met' END)
                           FROM wm WHERE fn = f.fn AND k = 32 AND random = g.random),
                        format('not measured (no size %s in --scale)', g.random)))
   FROM (VALUES (1000000, '1M', 30), (10000000, '10M', 600)) g(random, label, max_s),
        (VALUES (1, 'simhash_pairs'), (2, 'simhash_clusters')) f(o, fn)
  ORDER BY g.random, f.o)
UNION ALL
-- memory at the largest size, where the backend's fixed overhead (a few
-- MB) weighs least
SELECT format('goal: %s, 256 bits, k = 32: peak memory at most 100 bytes per row: %s', f.fn,
              coalesce((SELECT format('%s B/row at %s rows (the largest size), %s', round((delta_kb * 1024 / rows)::numeric, 1),
                                      rows, CASE WHEN delta_kb * 1024 / rows <= 100 THEN 'met' ELSE 'not met' END)
                          FROM wm WHERE fn = f.fn AND k = 32 ORDER BY rows DESC LIMIT 1), 'not measured'))
  FROM (VALUES ('simhash_pairs'), ('simhash_clusters')) f(fn);
-- N log N plus the output: each step's time ratio at most 1.25 times the
-- larger of the N log N ratio and the ratio of the pairs
SELECT format('goal: %s, 256 bits, k = 32: time growing like N log N plus the output, %s -> %s rows: %sx, bound %sx (1.25 x max(N log N %sx, pairs %sx)), %s (CPU time %sx)',
              fn, prev_rows, rows, round(growth::numeric, 2),
              round((1.25 * greatest(nlogn, coalesce(out_ratio, 0)))::numeric, 2),
              round(nlogn::numeric, 2), coalesce(round(out_ratio::numeric, 2)::text, '-'),
              CASE WHEN growth <= 1.25 * greatest(nlogn, coalesce(out_ratio, 0)) THEN 'met' ELSE 'not met' END,
              coalesce(round(cpu_growth::numeric, 2)::text, '-'))
  FROM wg WHERE k = 32 AND prev_secs IS NOT NULL
 ORDER BY fn DESC, rows;
SELECT 'goal: time growing like N log N plus the output: needs two sizes or more in --scale'
 WHERE NOT EXISTS (SELECT FROM wg WHERE k = 32 AND prev_secs IS NOT NULL);
\else
SELECT format('(the goals are stated for 256 bits and k = 32; this run: %s bits, k = %s)', :width,
              array_to_string(:'klist'::int[], ', '));
\endif
SELECT format('wide checks: %s passed, %s failed', count(*) FILTER (WHERE ok), count(*) FILTER (WHERE ok IS NOT TRUE))
  FROM w_checks;
