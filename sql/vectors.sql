-- Fingerprints of features, weighted features, the aggregate, tsvector and
-- numeric vectors.  The hex values are test vectors: they pin the contract
-- (XXH3_64bits seed 0, per-bit signed sums in input order, sign > 0) and
-- were checked against the independent reference in test/crosscheck.
CREATE EXTENSION IF NOT EXISTS simhash;

-- no features at all: all-zero fingerprint
SELECT to_simhash('{}'::text[]) AS empty_features,
       to_simhash('{}'::text[], '{}'::float8[]) AS empty_weighted,
       to_simhash('{}'::real[]) AS empty_dense,
       to_simhash('{}'::int[], '{}'::real[]) AS empty_sparse,
       to_simhash(''::tsvector) AS empty_tsvector;

-- one feature of weight 1: its XXH3 hash, bit for bit
SELECT to_simhash(ARRAY['hello']) AS hello,
       to_simhash(ARRAY['']) AS empty_string,
       to_simhash(ARRAY['中文']) AS zhongwen;
-- a negative weight flips every bit of a single feature
SELECT to_simhash(ARRAY['hello'], ARRAY[-1.0]) AS hello_negated,
       to_simhash(ARRAY['hello'], ARRAY[-1.0]) = (~(to_simhash(ARRAY['hello'])::bigint))::simhash AS is_complement;
-- two equal and opposite weights tie everywhere: all bits 0
SELECT to_simhash(ARRAY['a', 'a'], ARRAY[2.5, -2.5]) AS tie;

-- test vectors: features of weight 1, and weighted
SELECT to_simhash(ARRAY['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'the', 'lazy', 'dog']) AS fox;
SELECT to_simhash(ARRAY['near', 'duplicate', 'detection', 'for', 'web', 'crawling']) AS manku;
SELECT to_simhash(ARRAY['近似', '重复', '检测'], ARRAY[0.5, 1.25, 3.0]) AS chinese_weighted;
SELECT to_simhash(ARRAY['simhash', 'fingerprint', 'hamming', 'distance'],
                  ARRAY[0.301, 1.5, 2.0e-3, 7.0]) AS tfidf;
-- weight 1 everywhere is the unweighted form; a repeated feature counts again
SELECT to_simhash(ARRAY['a', 'b', 'c'], ARRAY[1, 1, 1]::float8[]) = to_simhash(ARRAY['a', 'b', 'c']) AS same,
       to_simhash(ARRAY['a', 'b', 'b']) = to_simhash(ARRAY['a', 'b'], ARRAY[1, 2]::float8[]) AS repeat_counts;
-- the array lower bound does not matter
SELECT to_simhash('[0:1]={x,y}'::text[]) = to_simhash(ARRAY['x', 'y']) AS lower_bound;

-- the aggregate: same as the array form over the rows in input order
CREATE TEMP TABLE terms (doc int, pos int, term text, weight float8);
INSERT INTO terms VALUES
  (1, 1, 'simhash', 0.301), (1, 2, 'fingerprint', 1.5), (1, 3, 'hamming', 2.0e-3), (1, 4, 'distance', 7.0),
  (2, 1, 'the', 1), (2, 2, 'quick', 1), (2, 3, 'brown', 1), (2, 4, 'fox', 1), (2, 5, 'jumps', 1),
  (2, 6, 'over', 1), (2, 7, 'the', 1), (2, 8, 'lazy', 1), (2, 9, 'dog', 1),
  (3, 1, 'only', NULL), (3, 2, NULL, 1.0);
SELECT doc, simhash_agg(term, weight ORDER BY pos) AS fp FROM terms GROUP BY doc ORDER BY doc;
SELECT doc, simhash_agg(term ORDER BY pos) AS fp FROM terms WHERE doc = 2 GROUP BY doc;
SELECT simhash_agg(term, weight ORDER BY pos) =
       to_simhash(array_agg(term ORDER BY pos), array_agg(weight ORDER BY pos)) AS agg_equals_array
FROM terms WHERE doc = 1;
SELECT simhash_agg(term, weight) IS NULL AS no_rows_is_null FROM terms WHERE doc = 99;
-- in a parallel plan, with integral weights, the result is the serial one
CREATE TEMP TABLE many AS
  SELECT i % 50 AS doc, 'w' || (i % 997) AS term, (i % 7 - 3)::float8 AS weight
  FROM generate_series(1, 100000) i;
CREATE TABLE many_p AS SELECT * FROM many;
ANALYZE many_p;
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT simhash_agg(term, weight) FROM many_p;
SELECT simhash_agg(term, weight) AS parallel_fp FROM many_p;
RESET max_parallel_workers_per_gather;
SET max_parallel_workers_per_gather = 0;
SELECT simhash_agg(term, weight) AS serial_fp FROM many_p;
RESET max_parallel_workers_per_gather; RESET parallel_setup_cost; RESET parallel_tuple_cost; RESET min_parallel_table_scan_size;
DROP TABLE many_p;

-- tsvector: lexemes weighted by their number of positions (1 if stripped)
SELECT to_simhash('a:1 fat:2,4 cat:3 sat:5'::tsvector) AS tsv,
       to_simhash(strip('a:1 fat:2,4 cat:3 sat:5'::tsvector)) AS stripped;
SELECT to_simhash('fat:2,4 cat:3'::tsvector) =
       to_simhash(ARRAY['cat', 'fat'], ARRAY[1, 2]::float8[]) AS tsv_is_weighted_lexemes;
SELECT to_simhash(to_tsvector('english', 'The quick brown foxes jumped over the lazy dogs')) AS english_tsv;
SELECT to_simhash(to_tsvector('simple', '近似 重复 检测 近似')) AS simple_cjk_tsv;

-- dense vectors: dimension i (1-based) hashed as 4-byte little-endian, value as weight
SELECT to_simhash(ARRAY[1.0]::real[]) AS dim1,
       to_simhash(ARRAY[0.25, -1.5, 3.0, 0.0]::real[]) AS dense4,
       to_simhash(ARRAY[0.1, 0.2, 0.3, 0.4, 0.5, -0.6, -0.7, 0.8]::real[]) AS dense8;
-- sparse vectors: the same vector gives the same fingerprint, in any order
SELECT to_simhash(ARRAY[1, 2, 3], ARRAY[0.25, -1.5, 3.0]::real[]) AS sparse3,
       to_simhash(ARRAY[3, 1, 2], ARRAY[3.0, 0.25, -1.5]::real[]) AS shuffled,
       to_simhash(ARRAY[0.25, -1.5, 3.0, 0.0]::real[]) = to_simhash(ARRAY[2, 3, 1], ARRAY[-1.5, 3.0, 0.25]::real[]) AS dense_equals_sparse;
SELECT to_simhash(ARRAY[1000000, 7], ARRAY[1.0, -2.0]::real[]) AS sparse_far;
-- a bigger random vector, dense against sparse
SELECT to_simhash(array_agg(v ORDER BY i)) AS dense1000,
       to_simhash(array_agg(v ORDER BY i)) = to_simhash(array_agg(i ORDER BY r), array_agg(v ORDER BY r)) AS dense_vs_sparse_1000
FROM (SELECT i, ((i * 37 % 101) - 50)::real / 7 AS v, (i * 7919) % 1009 AS r
      FROM generate_series(1, 1000) i) x;

-- real[] is cast exactly to double precision[], so both give the same
-- fingerprint; a numeric literal array resolves to double precision[]
SELECT to_simhash(ARRAY[0.25, -1.5, 3.0, 0.0]::float8[]) = to_simhash(ARRAY[0.25, -1.5, 3.0, 0.0]::real[]) AS float8_same,
       to_simhash(ARRAY[2, 1], ARRAY[-1.5, 0.25]::float8[]) = to_simhash(ARRAY[0.25, -1.5]::float8[]) AS float8_sparse,
       to_simhash(ARRAY[0.1, 0.2, 0.3]) AS numeric_literal_is_float8;

-- NULL arguments: NULL result (STRICT)
SELECT to_simhash(NULL::text[]) IS NULL AS a, to_simhash(NULL::text[], ARRAY[1.0]) IS NULL AS b,
       to_simhash(NULL::tsvector) IS NULL AS c, to_simhash(NULL::real[]) IS NULL AS d,
       to_simhash(ARRAY[1], NULL::real[]) IS NULL AS e;
