-- Bad input: every error path gives a clear ERROR with its SQLSTATE.
CREATE EXTENSION IF NOT EXISTS simhash;
\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql

-- text input (22P02)
SELECT pg_temp.err($q$SELECT 'xyz'::simhash$q$);
SELECT pg_temp.err($q$SELECT '123'::simhash$q$);
SELECT pg_temp.err($q$SELECT 'f3a90c1e00b2d47f00'::simhash$q$);
-- casts (22023)
SELECT pg_temp.err($q$SELECT B'1'::simhash$q$);
SELECT pg_temp.err($q$SELECT ''::bytea::simhash$q$);
SELECT pg_temp.err($q$SELECT '\x00000000000000000000'::bytea::simhash$q$);
-- segment number (22023)
SELECT pg_temp.err($q$SELECT simhash_segment('0000000000000000', 4)$q$);
-- feature arrays: multi-dimensional (2202E), nulls (22004)
SELECT pg_temp.err($q$SELECT to_simhash('{{a,b},{c,d}}'::text[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a', NULL])$q$);
-- weighted: length mismatch (2202E), nulls (22004), NaN and infinity (22023)
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a', 'b'], ARRAY[1.0])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a'], ARRAY[1.0, 2.0])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a', 'b'], ARRAY[1.0, NULL])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[NULL, 'b'], ARRAY[1.0, 2.0])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a'], ARRAY['NaN']::float8[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a'], ARRAY['Infinity']::float8[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a'], ARRAY['-Infinity']::float8[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a'], '{{1}}'::float8[])$q$);
-- weight sums beyond double precision (22003)
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['a', 'b'], ARRAY[1.7e308, 1.7e308])$q$);
-- aggregate: NaN weight (22023); NULL rows are skipped, not errors
SELECT pg_temp.err($q$SELECT simhash_agg(t, w) FROM (VALUES ('a', 'NaN'::float8)) v(t, w)$q$);
SELECT simhash_agg(t, w) FROM (VALUES ('a', 1.0::float8), (NULL, 2.0)) v(t, w);
SELECT simhash_agg(t, w) IS NULL AS all_null_rows FROM (VALUES (NULL::text, 1.0::float8), ('a', NULL)) v(t, w);
SELECT simhash_agg(t) IS NULL AS all_null_rows FROM (VALUES (NULL::text)) v(t);
-- dense vectors: NaN, infinity (22023), nulls (22004), 2-D (2202E)
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY['NaN']::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[1, 'Infinity']::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[1, NULL]::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash('{{1,2},{3,4}}'::real[])$q$);
-- sparse vectors: dimension < 1 or repeated (22023), mismatch (2202E), nulls (22004)
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[0], ARRAY[1.0]::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[-5], ARRAY[1.0]::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[2, 1, 2], ARRAY[1.0, 2.0, 3.0]::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[1, 2], ARRAY[1.0]::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[1, NULL], ARRAY[1.0, 2.0]::real[])$q$);
SELECT pg_temp.err($q$SELECT to_simhash(ARRAY[1], ARRAY['NaN']::real[])$q$);
-- n-gram and shingle sizes (22023)
SELECT pg_temp.err($q$SELECT simhash_ngram('abc', 0)$q$);
SELECT pg_temp.err($q$SELECT simhash_ngram('abc', -1)$q$);
SELECT pg_temp.err($q$SELECT simhash_ngram('abc', 65)$q$);
SELECT pg_temp.err($q$SELECT simhash_shingle('a b c', 0)$q$);
SELECT pg_temp.err($q$SELECT simhash_shingle('a b c', 1000)$q$);
-- NULL arguments give NULL, never errors
SELECT to_simhash(NULL::text) IS NULL, simhash_ngram(NULL, 3) IS NULL, simhash_ngram('abc', NULL) IS NULL,
       simhash_shingle(NULL) IS NULL, simhash_segment(NULL, 1) IS NULL, simhash_segment('0000000000000000', NULL) IS NULL;
-- binary input of the wrong length (08P01) cannot be reached from SQL, but
-- simhash_recv is exercised by COPY BINARY in test/run.

-- the usual mistakes get a hint: text where a fingerprint belongs, a
-- decimal integer (node-postgres sends a BigInt so), a table name where
-- the batch functions take a query; hex of the wrong length gets none
SELECT 'f3a90c1e00b2d47f'::simhash <-> 'The city council approved the new budget';
SELECT simhash('some text');
SELECT '17556814893049714815'::simhash;
SELECT '-1'::simhash;
SELECT 'f3a90c1e00b2d4'::simhash;
SELECT * FROM simhash_pairs('docs', 3);
SELECT * FROM simhash_clusters('tdocs WHERE', 3);
-- an error that is not a syntax error keeps its own message and no hint
SELECT * FROM simhash_pairs('SELECT id, fp FROM no_such_table', 3);
-- the limit of the feature lists: maintenance_work_mem (54000), named
-- after the function called
SET maintenance_work_mem = '1MB';
SELECT count(*) FROM simhash_ngram_features((SELECT string_agg(md5(g::text), ' ') FROM generate_series(1, 4000) g), 64);
SELECT count(*) FROM simhash_shingle_features((SELECT string_agg(md5(g::text), ' ') FROM generate_series(1, 40000) g), 64);
RESET maintenance_work_mem;
