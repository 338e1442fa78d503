-- bench/batch/wide_text.sql: the text-derived set of the wide run of
-- bench/batch/run.  w_texts (source, name, body) holds the corpus of
-- demo/corpus.pl (this machine's package descriptions and
-- /usr/share/doc/*/copyright files, or --text-dir); psql variables :width,
-- :tofn (to_simhash128 or to_simhash256), :klist (radii at the width),
-- :k64 (the radius at 64 bits), :rounds.
--
-- Each document of at least 10 words (ids 1..n) gets two edited copies:
-- id n + i with one word edit, id 2n + i with max(2, 5 %) of its words
-- edited; an edit replaces the word at a position chosen by a hash with
-- the word at another position of the same document (with an "s"
-- appended when that word is the same).  Every row is fingerprinted with
-- to_simhash and with :tofn, and simhash_pairs runs :rounds times over
-- each (interleaved): time, pairs, time per returned pair, and how many of
-- the 2n (document, copy) pairs each call found.  Leaves w_text_timing,
-- w_text_info and w_text_found for wide_report.sql.
\set ON_ERROR_STOP 1
\pset footer off
\ir ../clock.sql
-- body with nedits word edits, at positions chosen by a hash seeded by seed
CREATE FUNCTION w_edit(body text, nedits int, seed bigint) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
	ws text[] := regexp_split_to_array(btrim(body), '\s+');
	n int := cardinality(ws);
	p int;
	o int;
BEGIN
	FOR p IN SELECT g FROM generate_series(1, n) g ORDER BY hashint8extended(g, seed) LIMIT nedits LOOP
		o := 1 + ((hashint8extended(p, seed + 1) & 2147483647) % n)::int;
		ws[p] := CASE WHEN ws[o] = ws[p] THEN ws[p] || 's' ELSE ws[o] END;
	END LOOP;
	RETURN array_to_string(ws, ' ');
END
$$;

SELECT clock_timestamp() AS t0 \gset
CREATE TABLE w_tdocs AS
SELECT row_number() OVER (ORDER BY source, name) AS id, body
  FROM w_texts WHERE cardinality(regexp_split_to_array(btrim(body), '\s+')) >= 10;
SELECT count(*) AS ndocs FROM w_tdocs \gset
CREATE TABLE w_trows AS
SELECT id, body FROM w_tdocs
UNION ALL
SELECT :ndocs + id, w_edit(body, 1, id) FROM w_tdocs
UNION ALL
SELECT 2 * :ndocs + id,
       w_edit(body, greatest(2, cardinality(regexp_split_to_array(btrim(body), '\s+')) / 20), id + 7919)
  FROM w_tdocs;
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS edit_s, clock_timestamp() AS t0 \gset
CREATE TABLE w_tfp AS SELECT id, to_simhash(body) AS fp64, :tofn(body) AS fpw FROM w_trows;
SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS fp_s \gset
VACUUM ANALYZE w_tfp;
INSERT INTO w_text_info VALUES
	('documents', (SELECT count(*) FROM w_texts)::text),
	('kept', :'ndocs'),
	('rows', (SELECT count(*) FROM w_tfp)::text),
	('words', (SELECT round(avg(cardinality(regexp_split_to_array(btrim(body), '\s+'))))::text FROM w_tdocs)),
	('edit_s', round(:edit_s, 1)::text),
	('fp_s', round(:fp_s, 1)::text);

SET bench.rounds = :rounds;
SET bench.klist = :'klist';
SET bench.k64 = :k64;
SET bench.width = :width;
DO $$
DECLARE
	rounds int := current_setting('bench.rounds')::int;
	width int := current_setting('bench.width')::int;
BEGIN
	-- 64 bits at k64, then the width at each radius of klist
	FOR r IN 1 .. rounds LOOP
		INSERT INTO w_text_timing
		SELECT 'simhash_pairs', w.width, w.k, r, c.secs, c.n
		  FROM (SELECT 64 AS width, current_setting('bench.k64')::int AS k, 'fp64' AS col
		        UNION ALL
		        SELECT width, k, 'fpw' FROM unnest(current_setting('bench.klist')::int[]) k) w,
		       pg_temp.timed_count(format('SELECT * FROM simhash_pairs(''SELECT id, %s FROM w_tfp'', %s)',
		                                  w.col, w.k)) c;
	END LOOP;
END
$$;

-- How many of the 2n (document, edited copy) pairs each width and k found
-- (untimed calls)
CREATE TABLE w_text_found (width int, k int, found bigint, copies bigint);
INSERT INTO w_text_found
SELECT 64, :k64, count(*) FILTER (WHERE p.id1 <= :ndocs AND p.id2 > :ndocs AND p.id2 % :ndocs = p.id1 % :ndocs), 2 * :ndocs
  FROM simhash_pairs('SELECT id, fp64 FROM w_tfp', :k64) p;
INSERT INTO w_text_found
SELECT :width, k, (SELECT count(*) FROM simhash_pairs('SELECT id, fpw FROM w_tfp', k) p
                    WHERE p.id1 <= :ndocs AND p.id2 > :ndocs AND p.id2 % :ndocs = p.id1 % :ndocs), 2 * :ndocs
  FROM unnest(:'klist'::int[]) k;
