-- demo/report.sql: prints what the pair search and grouping found.
-- Reads docs, nodes, pairs, doc_group, facts; psql variables :k and :t.
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
-- there were in all when some are left out.
CREATE FUNCTION pg_temp.some_words(w text[], n integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg(CASE WHEN length(x) > 24 THEN left(x, 23) || '…' ELSE x END, ' ' ORDER BY i)
	       || CASE WHEN cardinality(w) > n THEN format(' … (%s in all)', cardinality(w)) ELSE '' END
	  FROM unnest(w[1:n]) WITH ORDINALITY u(x, i)
$$;

-- The words of a document: whitespace-separated, as they are (case and
-- punctuation kept), all of them: the text that was fingerprinted (a
-- package document's first line, its name, included).  Chinese, Japanese
-- and Korean text has no spaces between words: there each character
-- (kana, ideographs, hangul, CJK and fullwidth punctuation) is a word, so
-- that one changed character is one changed word, not a changed sentence.
CREATE FUNCTION pg_temp.words(body text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT regexp_split_to_array(btrim(
		regexp_replace(body, '([\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef])',
		               ' \1 ', 'g'),
		E' \t\n\r'), '\s+')
$$;

-- The number of words two documents share in order: the length of the
-- longest common subsequence of their word arrays (what difflib's ratio
-- counts too, there found greedily).  The common prefix and suffix are
-- counted first (near-duplicates are mostly that); the rest by dynamic
-- programming, row by row, NULL when that would take more than budget
-- cells (two long unrelated documents: the caller then says so).
CREATE FUNCTION pg_temp.lcs(a text[], b text[], budget bigint) RETURNS integer
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	x integer[];	-- the words as integers: cheaper to compare than text
	y integer[];
	na integer;
	nb integer;
	p integer := 0;		-- common prefix, in words
	s integer := 0;		-- common suffix
	prev integer[];
	cur integer[];
	xi integer;
BEGIN
	SELECT coalesce(array_agg(r ORDER BY i) FILTER (WHERE side = 1), '{}'),
	       coalesce(array_agg(r ORDER BY i) FILTER (WHERE side = 2), '{}')
	  INTO x, y
	  FROM (SELECT side, i, dense_rank() OVER (ORDER BY w)::integer AS r
	          FROM (SELECT 1 AS side, i, w FROM unnest(a) WITH ORDINALITY u(w, i)
	                UNION ALL
	                SELECT 2, i, w FROM unnest(b) WITH ORDINALITY u(w, i)) t) t;
	na := cardinality(x);
	nb := cardinality(y);
	WHILE p < na AND p < nb AND x[p + 1] = y[p + 1] LOOP
		p := p + 1;
	END LOOP;
	WHILE s < na - p AND s < nb - p AND x[na - s] = y[nb - s] LOOP
		s := s + 1;
	END LOOP;
	IF p + s = na OR p + s = nb THEN
		RETURN p + s;
	END IF;
	IF (na - p - s)::bigint * (nb - p - s) > budget THEN
		RETURN NULL;
	END IF;
	-- prev[j + 1] = LCS of x[p+1 .. i-1] and y[p+1 .. p+j]
	prev := array_fill(0, ARRAY[nb - p - s + 1]);
	cur := prev;
	FOR i IN p + 1 .. na - s LOOP
		xi := x[i];
		FOR j IN 1 .. nb - p - s LOOP
			IF xi = y[p + j] THEN
				cur[j + 1] := prev[j] + 1;
			ELSIF prev[j + 1] >= cur[j] THEN
				cur[j + 1] := prev[j + 1];
			ELSE
				cur[j + 1] := cur[j];
			END IF;
		END LOOP;
		prev := cur;
	END LOOP;
	RETURN p + s + prev[nb - p - s + 1];
END
$$;

-- How many words two documents share as multisets (order ignored): an
-- upper bound of lcs(), used when that is over its budget.
CREATE FUNCTION pg_temp.common_words(a text[], b text[]) RETURNS integer
LANGUAGE sql IMMUTABLE AS $$
	SELECT count(*)::integer FROM (SELECT unnest(a) INTERSECT ALL SELECT unnest(b)) c
$$;

-- The words only a has (as a multiset: a word a has 3 times and b once
-- counts twice), in a's order, up to n of them, then how many in all.
CREATE FUNCTION pg_temp.only_in(a text[], b text[], n integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	WITH bc AS (SELECT w, count(*) AS c FROM unnest(b) w GROUP BY w),
	     ao AS (SELECT w, i, row_number() OVER (PARTITION BY w ORDER BY i) AS c
	              FROM unnest(a) WITH ORDINALITY u(w, i)),
	     rest AS (SELECT ao.w, ao.i FROM ao LEFT JOIN bc USING (w) WHERE ao.c > coalesce(bc.c, 0))
	SELECT coalesce(pg_temp.some_words(ARRAY(SELECT w FROM rest ORDER BY i), n), '(nothing)')
$$;

-- Word similarity of two documents, one line, and what differs, two more:
-- similarity = 2 × (words shared in order) / (words of both), 1 for the
-- same words in the same order; if the documents are too long to align
-- within the budget (10^6 cells, about half a second), the multiset share
-- instead, an upper bound, said so.
CREATE FUNCTION pg_temp.similarity(a_body text, b_body text, a_name text, b_name text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	a text[] := pg_temp.words(a_body);
	b text[] := pg_temp.words(b_body);
	l integer := pg_temp.lcs(a, b, 1000000);
	shared text;
BEGIN
	IF l IS NOT NULL THEN
		shared := format('word similarity %s (%s words shared in order, of %s and %s)',
		                 round(2.0 * l / greatest(cardinality(a) + cardinality(b), 1), 3),
		                 l, cardinality(a), cardinality(b));
	ELSE
		l := pg_temp.common_words(a, b);
		shared := format('word similarity <= %s (%s words shared, order ignored, of %s and %s: too long to align in order)',
		                 round(2.0 * l / greatest(cardinality(a) + cardinality(b), 1), 3),
		                 l, cardinality(a), cardinality(b));
	END IF;
	RETURN shared || E'\n' ||
	       format(E'only in %s: %s\nonly in %s: %s',
	              pg_temp.cut(a_name, 28), pg_temp.only_in(a, b, 6),
	              pg_temp.cut(b_name, 28), pg_temp.only_in(b, a, 6));
END
$$;

-- The words of a name or a text, for template_variants: lower case, split
-- at anything that is not a letter or a digit, each once.
CREATE FUNCTION pg_temp.tokens(t text) RETURNS text[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT coalesce(array_agg(DISTINCT w), '{}')
	  FROM regexp_split_to_table(lower(t), '[^[:alnum:]]+') w WHERE w <> ''
$$;

-- Whether two documents look generated from one template rather than one
-- edited from the other: each has a word in its name that the other's
-- name lacks, and its text holds that word while the other's text does
-- not, so each text names its own subject where the other names its own
-- (the manual pages of two subcommands of one tool, the descriptions of
-- two language packs).  Such siblings are as close as edited copies, and
-- a near-duplicate search cannot tell them apart by distance.
CREATE FUNCTION pg_temp.template_variants(a_body text, b_body text, a_name text, b_name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	WITH t AS (SELECT pg_temp.tokens(a_name) AS an, pg_temp.tokens(b_name) AS bn,
	                  pg_temp.tokens(a_body) AS ab, pg_temp.tokens(b_body) AS bb)
	SELECT EXISTS (SELECT FROM unnest(an) w WHERE w <> ALL (bn) AND w = ANY (ab) AND w <> ALL (bb))
	   AND EXISTS (SELECT FROM unnest(bn) w WHERE w <> ALL (an) AND w = ANY (bb) AND w <> ALL (ab))
	  FROM t
$$;

CREATE FUNCTION pg_temp.cut(t text, n integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN length(t) > n THEN left(t, n - 1) || '…' ELSE t END
$$;

-- every document's group size, singletons included (group_shape has
-- the groups of two or more)
CREATE TEMP TABLE gsize AS
	SELECT g, count(*) AS size FROM doc_group GROUP BY g;

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
\echo 'bar: document pairs, # = the longest bar''s 1/50, a lone + = fewer than that but not none'
-- every distance 0 .. k gets a row, found or not: a gap is information
-- (distance 0 between nodes: one fingerprint, two signatures alike enough)
WITH h0 AS (
	SELECT 0 AS distance, NULL::bigint AS fpairs, coalesce(sum(n * (n - 1) / 2), 0) AS dpairs
	  FROM nodes
	UNION ALL
	SELECT p.d, count(*), sum(x.n * y.n)
	  FROM pairs p JOIN nodes x ON x.id = p.a JOIN nodes y ON y.id = p.b
	 GROUP BY p.d
), h AS (
	SELECT distance, sum(fpairs)::bigint AS fpairs, sum(dpairs) AS dpairs FROM h0 GROUP BY distance
), all_d AS (
	SELECT d.distance, h.fpairs, coalesce(h.dpairs, 0) AS dpairs
	  FROM generate_series(0, :k) d(distance) LEFT JOIN h USING (distance)
)
SELECT distance,
       -- at 0 there are none: the search runs over distinct fingerprints
       CASE WHEN distance > 0 THEN coalesce(fpairs, 0) END AS "fingerprint pairs", dpairs AS "document pairs",
       CASE WHEN dpairs = 0 THEN ''
            WHEN dpairs * 50 < max(dpairs) OVER () THEN '+'
            ELSE repeat('#', (dpairs * 50 / max(dpairs) OVER ())::integer) END AS bar
  FROM all_d
 ORDER BY distance;

\echo
\echo '==================== Groups (connected components of the pairs)'
\echo 'A group links documents through pairs within k, so it can be a chain whose'
\echo 'ends are far apart.  Its diameter is the largest distance between two of its'
\echo 'members: tight = diameter <= k (every two members are a pair by themselves),'
\echo 'chain = diameter > k.  Diameters are exact up to 1500 distinct fingerprints'
\echo 'in a group (every two compared), else from 300 sampled ones (a lower bound).'
SELECT count(*) FILTER (WHERE size > 1) AS groups,
       coalesce(sum(size) FILTER (WHERE size > 1), 0) AS "documents in a group",
       coalesce(sum(size) FILTER (WHERE size = 1), 0) AS "documents with no near-duplicate"
  FROM gsize;
SELECT count(*) FILTER (WHERE diameter <= :k) AS "tight groups",
       coalesce(sum(size) FILTER (WHERE diameter <= :k), 0) AS "their documents",
       count(*) FILTER (WHERE diameter > :k) AS chains,
       coalesce(sum(size) FILTER (WHERE diameter > :k), 0) AS "their documents",
       count(*) FILTER (WHERE sampled) AS "diameters sampled"
  FROM group_shape;
SELECT value AS "exactness check" FROM facts WHERE key = 'self-join check';
\echo
\echo 'Group sizes'
SELECT b.label AS "size", count(s.g) AS groups, coalesce(sum(s.size), 0) AS documents,
       count(s.g) FILTER (WHERE s.diameter > :k) AS chains,
       max(s.diameter) AS "largest diameter"
  FROM (VALUES (1, '2', 2, 2), (2, '3-4', 3, 4), (3, '5-9', 5, 9), (4, '10-99', 10, 99),
               (5, '100-999', 100, 999), (6, '1000+', 1000, NULL)) b(ord, label, lo, hi)
  LEFT JOIN group_shape s ON s.size >= b.lo AND (b.hi IS NULL OR s.size <= b.hi)
 GROUP BY b.ord, b.label
 ORDER BY b.ord;

-- The groups shown: the :ngroups largest tight ones of two or more
-- fingerprints (groups of exact copies are summed up apart: they need no
-- similarity search), plus the 2 largest tight ones of each translation
-- when there are translations, then
-- the :ngroups/2 largest chains, ranked apart so that chains, which are
-- the largest groups, do not hide the convincing ones.  Each with the
-- two members farthest apart and their word similarity: how different
-- the group's most different members really are.
SELECT (:ngroups + 1) / 2 AS nchains \gset
CREATE TEMP TABLE shown AS
WITH ranked AS (
	SELECT s.*, f.source AS first_source, diameter > :k AS chain,
	       row_number() OVER (PARTITION BY diameter > :k ORDER BY size DESC, g) AS overall,
	       row_number() OVER (PARTITION BY diameter > :k, f.source ORDER BY size DESC, g) AS in_source
	  FROM group_shape s JOIN docs f ON f.id = s.g
	 WHERE s.fps > 1
)
SELECT row_number() OVER (PARTITION BY chain ORDER BY size DESC, g) AS rank, *
  FROM ranked
 WHERE (NOT chain AND (overall <= :ngroups OR (in_source <= 2 AND first_source LIKE 'package-%')))
    OR (chain AND overall <= :nchains);

-- similarity of the farthest members, computed once per group shown
CREATE TEMP TABLE shown_far AS
SELECT t.g, a.name AS a_name, b.name AS b_name,
       pg_temp.snippet(a.body, a.source, 70) AS a_snip, pg_temp.snippet(b.body, b.source, 70) AS b_snip,
       pg_temp.similarity(a.body, b.body, a.name, b.name) AS sim,
       pg_temp.template_variants(a.body, b.body, a.name, b.name) AS tmpl,
       (SELECT string_agg(pg_temp.cut(o.name, 32), ', ' ORDER BY o.r)
          FROM (SELECT d.name, row_number() OVER (ORDER BY md5(d.name)) AS r
                  FROM doc_group m JOIN docs d USING (id)
                 WHERE m.g = t.g AND d.id NOT IN (t.far_a, t.far_b)) o
         WHERE o.r <= 4) AS others
  FROM shown t
  JOIN docs a ON a.id = t.far_a
  JOIN docs b ON b.id = t.far_b;

-- the lines under a group's heading: its two farthest members (a chain's
-- ends), their similarity and snippets, and a few other members
CREATE TEMP TABLE shown_body AS
SELECT t.g,
       format(E'%s (d=%s): %s  vs  %s%s\n'
              '      %s\n      %s\n      %s\n'
              '      %s: %s\n      %s: %s%s',
              CASE WHEN t.chain THEN 'ends' ELSE 'farthest apart' END,
              t.diameter, f.a_name, f.b_name,
              CASE WHEN f.tmpl THEN E'\n      TEMPLATE VARIANTS, not edited copies: each text names its own subject where the other names its own' ELSE '' END,
              split_part(f.sim, E'\n', 1), split_part(f.sim, E'\n', 2), split_part(f.sim, E'\n', 3),
              pg_temp.cut(f.a_name, 28), f.a_snip, pg_temp.cut(f.b_name, 28), f.b_snip,
              CASE WHEN t.size > 2 THEN format(E'\n    others: %s%s', f.others,
                   CASE WHEN t.size > 6 THEN format(' … (%s more)', t.size - 6) ELSE '' END) ELSE '' END) AS body
  FROM shown t JOIN shown_far f USING (g);

\echo
\echo 'word similarity = 2 × (words shared in order: longest common subsequence of the'
\echo 'two word arrays) / (words of both); 1 = same words in the same order.  Words are'
\echo 'whitespace-separated, case kept, all of the fingerprinted text (a package''s name too);'
\echo 'in Chinese, Japanese and Korean text each character is a word.'
\echo 'only in X: the words X has and the other has not (as multisets), in X''s order.'
\echo 'TEMPLATE VARIANTS: each of the two has a word of its own name in its text that the'
\echo 'other lacks (two subcommands'' manual pages, two language packs): documents generated'
\echo 'from one template are as close as edited copies, and are not copies of each other.'
\pset format unaligned
\pset tuples_only on
\echo
SELECT format('Groups of exact copies only (one fingerprint, diameter 0): %s groups, %s documents%s',
              count(*), coalesce(sum(size), 0),
              coalesce('; the largest: ' || string_agg(x.line, '; ' ORDER BY x.size DESC, x.g)
                         FILTER (WHERE x.r <= 3), ''))
  FROM (SELECT s.g, s.size, row_number() OVER (ORDER BY s.size DESC, s.g) AS r,
               format('%s copies (%s, %s%s)', s.size, pg_temp.cut(a.name, 24), pg_temp.cut(b.name, 24),
                      CASE WHEN s.size > 2 THEN ', …' ELSE '' END) AS line
          FROM group_shape s JOIN docs a ON a.id = s.far_a JOIN docs b ON b.id = s.far_b
         WHERE s.fps = 1) x;
SELECT format(E'\n==================== Tight groups: the %s largest of two or more fingerprints, diameter <= k = %s%s',
              :ngroups, :k,
              CASE WHEN EXISTS (SELECT FROM docs WHERE source LIKE 'package-%')
                   THEN ', and the 2 largest of each translation' ELSE '' END);
SELECT format(E'\n%s', line) FROM (
	SELECT 'No tight group.' AS line WHERE NOT EXISTS (SELECT FROM shown WHERE NOT chain)
) x;
SELECT format(E'\n#%s  %s documents (%s), %s distinct fingerprints: %s%s <= k = %s (diameter/k %s), mean distance %s\n    %s',
              t.rank, t.size, t.sources, t.fps,
              CASE WHEN t.sampled THEN 'TIGHT as far as sampled, diameter >= ' ELSE 'TIGHT, diameter ' END, t.diameter,
              :k, round(t.diameter::numeric / nullif(:k, 0), 2), round(t.mean_d, 1), b.body)
  FROM shown t JOIN shown_body b USING (g)
 WHERE NOT t.chain
 ORDER BY t.rank;

SELECT format(E'\n==================== Chains: the %s largest groups with diameter > k = %s', :nchains, :k);
\echo 'Single-link chains: each member is within k of another one, but the ends are'
\echo 'not near-duplicates of each other.  pairs within k = the share of the group''s'
\echo 'fingerprint pairs that are within k by themselves (1 for a tight group).'
SELECT format(E'\n%s', line) FROM (
	SELECT 'No chain.' AS line WHERE NOT EXISTS (SELECT FROM shown WHERE chain)
) x;
SELECT format(E'\n#C%s  %s documents (%s), %s distinct fingerprints: CHAIN, diameter %s%s > k = %s (%s k), pairs within k %s %%, mean distance %s\n    %s',
              t.rank, t.size, t.sources, t.fps, CASE WHEN t.sampled THEN '>= ' ELSE '' END, t.diameter,
              :k, round(t.diameter::numeric / nullif(:k, 0), 1), round(100 * t.within_k, 1), round(t.mean_d, 1), b.body)
  FROM shown t JOIN shown_body b USING (g)
 WHERE t.chain
 ORDER BY t.rank;

SELECT :k > 0 AS near_pairs \gset
\if :near_pairs
\echo
\echo '==================== Near but not exact: a sample pair at each distance 1 ..' :k
\echo 'd = Hamming distance, J = minhash_jaccard of the two signatures (at least' :t 'to be a pair).'
\echo 'word similarity, only in X and TEMPLATE VARIANTS: as above.'
WITH cand AS (
	SELECT p.d, p.j, x.name AS a_name, y.name AS b_name, x.source AS a_src, y.source AS b_src,
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
SELECT format(E'\nd=%s J=%s  %s (%s)  vs  %s%s%s\n      %s', d, round(j::numeric, 2), a_name, a_src, b_name,
              CASE WHEN b_src <> a_src THEN format(' (%s)', b_src) ELSE '' END,
              CASE WHEN pg_temp.template_variants(a_body, b_body, a_name, b_name)
                   THEN E'\n      TEMPLATE VARIANTS, not edited copies: each text names its own subject where the other names its own' ELSE '' END,
              replace(pg_temp.similarity(a_body, b_body, a_name, b_name), E'\n', E'\n      '))
  FROM cand
 WHERE r <= 1
 ORDER BY d, a_src, a_name;
\endif
