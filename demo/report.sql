-- demo/report.sql: prints what the pair search and grouping found.
-- Reads docs, nodes, pairs, doc_group, facts; psql variable :k.
\pset footer off
\pset null ''

-- A short readable snippet.  Package documents start with the package name
-- (skipped: it is shown anyway); machine-readable copyright files start
-- with the same DEP-5 "Format:" URL (skipped: it says nothing).
CREATE FUNCTION pg_temp.snippet(body text, source text, len integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT left(btrim(regexp_replace(
		CASE WHEN source LIKE 'package%' THEN substr(b, strpos(b, E'\n') + 1)
		     ELSE regexp_replace(b, '^Format:[^\n]*\n', '') END,
		'\s+', ' ', 'g')), len)
	  FROM (SELECT left(body, 4 * len + 200) AS b) s
$$;

-- Up to n words of an array, each cut to 24 characters, and how many
-- there were when some are left out.
CREATE FUNCTION pg_temp.some_words(w text[], n integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN length(x) > 24 THEN left(x, 23) || '…' ELSE x END, ' ' ORDER BY i)
	       || CASE WHEN cardinality(w) > n THEN format(' …(%s words)', cardinality(w)) ELSE '' END
	  FROM unnest(w[1:n]) WITH ORDINALITY u(x, i)
$$;

-- A one-line diff hint between two texts, word by word: after removing the
-- common prefix and suffix, the two words before the first difference,
-- then what only a has [-...-] and what only b has {+...+}.
CREATE FUNCTION pg_temp.word_diff(a text, b text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	wa text[] := regexp_split_to_array(btrim(a, E' \t\n\r'), '\s+');
	wb text[] := regexp_split_to_array(btrim(b, E' \t\n\r'), '\s+');
	na integer := cardinality(wa);
	nb integer := cardinality(wb);
	p integer;		-- length of the common prefix, in words
	s integer;		-- length of the common suffix
BEGIN
	-- unnest of two arrays pads the shorter with NULLs
	SELECT coalesce(min(i), least(na, nb) + 1) - 1 INTO p
	  FROM unnest(wa, wb) WITH ORDINALITY u(x, y, i)
	 WHERE x IS DISTINCT FROM y;
	SELECT coalesce(min(i), least(na, nb) + 1) - 1 INTO s
	  FROM unnest(ARRAY(SELECT w FROM unnest(wa) WITH ORDINALITY t(w, j) ORDER BY j DESC),
	              ARRAY(SELECT w FROM unnest(wb) WITH ORDINALITY t(w, j) ORDER BY j DESC))
	       WITH ORDINALITY u(x, y, i)
	 WHERE x IS DISTINCT FROM y;
	s := least(s, na - p, nb - p);
	IF p = na AND p = nb THEN
		RETURN '(same words, spacing differs)';
	END IF;
	RETURN concat_ws(' ',
		CASE WHEN p > 0 THEN '…' || pg_temp.some_words(wa[greatest(1, p - 1) : p], 2) END,
		CASE WHEN na - s > p THEN '[-' || pg_temp.some_words(wa[p + 1 : na - s], 3) || '-]' END,
		CASE WHEN nb - s > p THEN '{+' || pg_temp.some_words(wb[p + 1 : nb - s], 3) || '+}' END);
END
$$;

CREATE TEMP TABLE gsize AS
	SELECT g, count(*) AS size, count(DISTINCT d.fp) AS fps
	  FROM doc_group JOIN docs d USING (id)
	 GROUP BY g;

\echo
\echo '==================== Corpus'
SELECT source, count(*) AS documents,
       round(sum(octet_length(body)) / 1048576.0, 1) AS "MB",
       round(avg(octet_length(body))) AS "avg bytes"
  FROM docs GROUP BY source ORDER BY source;

\echo
\echo '==================== Pairs within Hamming distance' :k
\echo 'distance 0 = same fingerprint (exact or near-exact copies: same words, same counts);'
\echo 'the search runs over distinct fingerprints, the document pairs follow from their copies.'
SELECT 0 AS distance, NULL::bigint AS "fingerprint pairs",
       sum(n * (n - 1) / 2) AS "document pairs"
  FROM nodes
UNION ALL
SELECT p.d, count(*), sum(x.n * y.n)
  FROM pairs p JOIN nodes x ON x.id = p.a JOIN nodes y ON y.id = p.b
 GROUP BY p.d
 ORDER BY 1;

\echo
\echo '==================== Groups (connected components of the pairs)'
SELECT count(*) FILTER (WHERE size > 1) AS groups,
       coalesce(sum(size) FILTER (WHERE size > 1), 0) AS "documents in a group",
       coalesce(sum(size) FILTER (WHERE size = 1), 0) AS "documents with no near-duplicate"
  FROM gsize;
SELECT value AS "exactness check" FROM facts WHERE key = 'self-join check';
\echo
\echo 'Group sizes'
SELECT b.label AS "size", count(s.g) AS groups, coalesce(sum(s.size), 0) AS documents
  FROM (VALUES (1, '2', 2, 2), (2, '3-4', 3, 4), (3, '5-9', 5, 9), (4, '10-99', 10, 99),
               (5, '100-999', 100, 999), (6, '1000+', 1000, NULL)) b(ord, label, lo, hi)
  LEFT JOIN gsize s ON s.size >= b.lo AND (b.hi IS NULL OR s.size <= b.hi)
 GROUP BY b.ord, b.label
 ORDER BY b.ord;

\echo
\echo '==================== The largest groups: the 10 largest, and the 3 largest of each translation'
\echo 'd = Hamming distance to the group''s first member.  Up to 5 members: one per'
\echo 'fingerprint first (the most distant ones), then exact copies.  A group is a'
\echo 'chain of pairs, so its members can be more than k apart.'
\pset format unaligned
\pset tuples_only on
WITH ranked AS (
	SELECT s.g, s.size, s.fps, f.source,
	       row_number() OVER (ORDER BY s.size DESC, s.g) AS overall,
	       row_number() OVER (PARTITION BY f.source ORDER BY s.size DESC, s.g) AS in_source
	  FROM gsize s JOIN docs f ON f.id = s.g
	 WHERE s.size > 1
), top AS (
	SELECT g, size, fps, row_number() OVER (ORDER BY size DESC, g) AS rank
	  FROM ranked
	 WHERE overall <= 10 OR (in_source <= 3 AND source LIKE 'package-%')
), members AS (
	SELECT t.rank, t.size, t.fps, d.id = t.g AS is_first, d.source, d.name, d.body,
	       (d.fp <-> f.fp)::integer AS dist,
	       row_number() OVER (PARTITION BY t.g, d.fp ORDER BY d.id) AS copy
	  FROM top t
	  JOIN doc_group m ON m.g = t.g
	  JOIN docs d ON d.id = m.id
	  JOIN docs f ON f.id = t.g
), pick AS (
	SELECT *, row_number() OVER (PARTITION BY rank
	              ORDER BY is_first DESC, copy, dist DESC, md5(name)) AS k
	  FROM members
), heading AS (
	SELECT rank, format(E'\n#%s  %s documents (%s), distinct fingerprints: %s, max d %s',
	                    rank, min(size), string_agg(DISTINCT source, ', '), min(fps), max(dist)) AS line
	  FROM members GROUP BY rank
)
SELECT line FROM (
	SELECT rank, 0 AS k, line FROM heading
	UNION ALL
	SELECT rank, k, format('  %2s  %-32s %s', dist,
	                       CASE WHEN length(name) > 32 THEN left(name, 31) || '…' ELSE name END,
	                       pg_temp.snippet(body, source, 60))
	  FROM pick WHERE k <= 5
) l
ORDER BY rank, k;

SELECT :k > 0 AS near_pairs \gset
\if :near_pairs
\echo
\echo '==================== Near but not exact: sample pairs at distance 1 ..' :k
\echo 'hint: the words both share at the start and at the end are cut away; what is left:'
\echo '[-the first one''s stretch-] {+the second one''s+}, (N words) = its length'
WITH cand AS (
	SELECT p.d, x.name AS a_name, y.name AS b_name, x.source AS a_src,
	       x.source LIKE 'package%' AND y.source LIKE 'package%' AS both_pkg,
	       x.body AS a_body, y.body AS b_body,
	       row_number() OVER (PARTITION BY p.d, x.source
	                          ORDER BY md5(x.name || y.name)) AS r
	  FROM pairs p
	  JOIN docs x ON x.id = p.a
	  JOIN docs y ON y.id = p.b
	 WHERE p.d > 0
	   -- package documents that differ only in their first line, the
	   -- package name, are many and dull
	   AND (x.source NOT LIKE 'package%' OR y.source NOT LIKE 'package%'
	        OR substr(x.body, strpos(x.body, E'\n')) <> substr(y.body, strpos(y.body, E'\n')))
)
SELECT format(E'\nd=%s  %s (%s)  vs  %s\n      %s', d, a_name, a_src, b_name,
              -- the first line of a package document is its name: shown already
              CASE WHEN both_pkg
                   THEN pg_temp.word_diff(substr(a_body, strpos(a_body, E'\n')),
                                          substr(b_body, strpos(b_body, E'\n')))
                   ELSE pg_temp.word_diff(a_body, b_body) END)
  FROM cand
 WHERE r <= 2
 ORDER BY d, a_src, a_name;
\endif
