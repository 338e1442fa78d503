-- The functions for distributed tables (1.8), on a single node: the block
-- keys pinned by test vectors, simhash_block_pairs over the block groups
-- equal to simhash_pairs (each pair once), simhash_pair_clusters equal to
-- simhash_clusters, simhash_distributed_pairs/_clusters on a local table,
-- and simhash_distributed_guard, which works on a local table too.  The
-- same on a Citus cluster: test/citus.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;

-- block keys: number in the high 32 bits, value in the low 32; the blocks
-- are read from the fingerprint's first (most significant) bit on
SELECT simhash_blocks('f3a90c1e00b2d47f'::simhash, 3) AS k3,
       simhash_blocks('f3a90c1e00b2d47f'::simhash, 0) AS k0;
SELECT b >> 32 AS block, to_hex(b & 4294967295) AS value
FROM unnest(simhash_blocks('f3a90c1e00b2d47f'::simhash, 4)) b;
SELECT cardinality(simhash_blocks(('0123456789abcdef' || 'fedcba9876543210')::simhash128, 6)) AS n128,
       simhash_blocks(('0123456789abcdef' || 'fedcba9876543210')::simhash128, 2) AS k2_128;
SELECT simhash_blocks(repeat('0123456789abcdef', 4)::simhash256, 7) AS k7_256,
       cardinality(simhash_blocks(repeat('0123456789abcdef', 4)::simhash256, 32)) AS n32_256;
-- the range of k: 0 .. width / 2
SELECT simhash_blocks('f3a90c1e00b2d47f'::simhash, 33);
SELECT simhash_blocks('f3a90c1e00b2d47f'::simhash, -1);
SELECT cardinality(simhash_blocks(repeat('ff', 32)::simhash256, 128)) AS n128_256;
SELECT simhash_blocks(NULL::simhash, 3) IS NULL AS strict;

-- the pigeonhole: 2,000 pairs at distance 1..3 share a key
SELECT w, k, count(*) AS pairs,
       count(*) FILTER (WHERE NOT (a && b)) AS sharing_none
FROM (SELECT 64 AS w, 3 AS k, simhash_blocks(x, 3) a,
             simhash_blocks(simhash(x::bigint # (1::bigint << (i % 64)) # (1::bigint << ((i * 7) % 64))
                                    # (1::bigint << ((i * 13) % 64))), 3) b
      FROM (SELECT i, simhash(hashint8(i)::bigint << 32 | hashint8(-i)::bigint & 4294967295) x
            FROM generate_series(1, 2000) i) s) t
GROUP BY w, k;

-- 4,000 random 64-bit fingerprints, 400 planted variants 1..8 bits away,
-- 40 exact copies, two NULLs
CREATE TABLE d64 (id bigint, fp simhash);
INSERT INTO d64 SELECT i, simhash(hashint8(i)::bigint << 32 | hashint8(-i)::bigint & 4294967295)
FROM generate_series(1, 4000) i;
INSERT INTO d64 SELECT 10000 + i,
  simhash((SELECT fp::bigint FROM d64 WHERE id = i)
          # (SELECT bit_or(1::bigint << ((i * 7 + j * 13) % 64)) FROM generate_series(1, 1 + i % 8) j))
FROM generate_series(1, 400) i;
INSERT INTO d64 SELECT 20000 + id, fp FROM d64 WHERE id % 100 = 1;
INSERT INTO d64 VALUES (40001, NULL), (40002, NULL);

-- the union over block groups is simhash_pairs, each pair once;
-- block_union(tbl, k): the pairs simhash_block_pairs finds in the block
-- groups of the rows (id, fp) of tbl
CREATE FUNCTION pg_temp.block_union(tbl text, k int) RETURNS TABLE (id1 bigint, id2 bigint, distance int)
LANGUAGE plpgsql AS $$
BEGIN
  RETURN QUERY EXECUTE format('SELECT p.* FROM (SELECT key, array_agg(id) ids, array_agg(fp) fps
                   FROM %I, unnest(simhash_blocks(fp, $1)) key GROUP BY key) g,
                  simhash_block_pairs(g.key, g.ids, g.fps, $1) p', tbl) USING k;
END $$;
SELECT k, (SELECT count(*) FROM pg_temp.block_union('d64', k)) AS block_pairs,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM d64', k)) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.block_union('d64', k)
                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, fp FROM d64', k)) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, fp FROM d64', k)
                              EXCEPT ALL SELECT * FROM pg_temp.block_union('d64', k)) x) AS missing
FROM (VALUES (0), (3), (8), (12)) v(k);
-- a group bigger than the pair-by-pair limit goes through the sorted passes
SELECT count(*) AS pairs_one_group FROM simhash_block_pairs(0,
  (SELECT array_agg(id ORDER BY id) FROM d64 WHERE fp IS NOT NULL),
  (SELECT array_agg(fp ORDER BY id) FROM d64 WHERE fp IS NOT NULL), 5) p
WHERE (simhash_blocks((SELECT fp FROM d64 WHERE id = p.id1), 5))[1]
    = (simhash_blocks((SELECT fp FROM d64 WHERE id = p.id2), 5))[1];
SELECT count(*) AS brute_force_first_block FROM d64 a JOIN d64 b ON a.id < b.id
WHERE a.fp <-> b.fp <= 5
  AND (simhash_blocks(a.fp, 5))[1] = (simhash_blocks(b.fp, 5))[1];

-- 256 bits: 1,000 random fingerprints and 100 variants up to 40 bits away
CREATE TABLE d256 (id bigint, fp simhash256);
INSERT INTO d256 SELECT i, sha256(convert_to('d256:' || i, 'UTF8'))::simhash256 FROM generate_series(1, 1000) i;
INSERT INTO d256 SELECT 10000 + i,
  ((SELECT fp FROM d256 WHERE id = i)::bit(256)
   # (SELECT bit_or((B'1' || repeat('0', 255))::bit(256) >> ((i * 7 + j * 13) % 256))
      FROM generate_series(1, i % 41) j))::simhash256
FROM generate_series(1, 100) i;
SELECT k, (SELECT count(*) FROM pg_temp.block_union('d256', k)) AS block_pairs,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM d256', k)) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, fp FROM d256', k)
                              EXCEPT ALL SELECT * FROM pg_temp.block_union('d256', k)) x) AS missing
FROM (VALUES (24), (32)) v(k);

\getenv abs_srcdir PG_ABS_SRCDIR
\set err_sql :abs_srcdir '/sql/include/err.sql'
\i :err_sql

-- 1.12, simhash_word_pairs: the pass of one word of the wide search; over
-- the words with a pass (min(k + 1, W / 64)) the union is simhash_pairs,
-- each pair once.  d256 with 20 exact copies under negative ids, and NULLs;
-- its 128-bit prefixes.  k = 1 at 256 bits leaves words 2 and 3 without a
-- pass; k = 70 at 256 bits and 34 at 128 are beyond the 64-bit search's
-- radius (every pair measured, each in its first word's pass).
CREATE TABLE dw (id bigint, fp256 simhash256, fp128 simhash128);
INSERT INTO dw SELECT id, fp, simhash128(fp) FROM d256;
INSERT INTO dw SELECT -id, fp, simhash128(fp) FROM d256 WHERE id % 50 = 7;
INSERT INTO dw VALUES (-1, NULL, NULL), (0, NULL, NULL);
-- word_union(query, k, words): the pairs of the passes of words 0 .. words - 1
CREATE FUNCTION pg_temp.word_union(q text, k int, words int) RETURNS TABLE (id1 bigint, id2 bigint, distance int)
LANGUAGE sql AS $$
  SELECT p.* FROM generate_series(0, words - 1) w, simhash_word_pairs(q, k, w) p
$$;
SELECT bits, k, (SELECT count(*) FROM simhash_pairs(q, k)) AS pairs,
       (SELECT count(*) FROM pg_temp.word_union(q, k, bits / 64)) AS word_pairs,
       (SELECT count(*) FROM (SELECT * FROM pg_temp.word_union(q, k, bits / 64)
                              EXCEPT ALL SELECT * FROM simhash_pairs(q, k)) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs(q, k)
                              EXCEPT ALL SELECT * FROM pg_temp.word_union(q, k, bits / 64)) x) AS missing,
       (SELECT array_agg(w ORDER BY w) FROM generate_series(0, bits / 64 - 1) w
        WHERE EXISTS (SELECT FROM simhash_word_pairs(q, k, w))) AS words_with_pairs
FROM (VALUES (256, 0), (256, 1), (256, 2), (256, 3), (256, 7), (256, 24), (256, 32), (256, 40), (256, 70),
             (128, 0), (128, 1), (128, 5), (128, 20), (128, 34)) v(bits, k),
     LATERAL (SELECT format('SELECT id, fp%s FROM dw', bits) AS q) s;
-- 1.13, simhash_word_passes(query, k, words[]): the passes of a set of
-- words in one call are the union of their single passes, every subset
-- of the words, at k within the 64-bit search's radius and beyond it
SELECT bits, k, count(*) AS subsets,
       count(*) FILTER (WHERE (SELECT count(*) FROM (SELECT * FROM simhash_word_passes(q, k, ws)
                                 EXCEPT ALL SELECT p.* FROM unnest(ws) w, simhash_word_pairs(q, k, w) p) x) = 0
                          AND (SELECT count(*) FROM (SELECT p.* FROM unnest(ws) w, simhash_word_pairs(q, k, w) p
                                 EXCEPT ALL SELECT * FROM simhash_word_passes(q, k, ws)) x) = 0) AS equal,
       count(*) FILTER (WHERE EXISTS (SELECT FROM simhash_word_passes(q, k, ws))) AS with_pairs
FROM (VALUES (256, 1), (256, 32), (256, 70), (128, 5), (128, 34)) v(bits, k),
     LATERAL (SELECT format('SELECT id, fp%s FROM dw', bits) AS q) s,
     LATERAL (SELECT ARRAY(SELECT w FROM generate_series(0, bits / 64 - 1) w WHERE m & (1 << w) <> 0) AS ws
              FROM generate_series(1, (1 << (bits / 64)) - 1) m) sub
GROUP BY bits, k ORDER BY bits DESC, k;
-- repeated words count once; no word, no pairs; errors
SELECT (SELECT count(*) FROM simhash_word_passes('SELECT id, fp256 FROM dw', 32, '{2,0,2,0}'))
     = (SELECT count(*) FROM simhash_word_passes('SELECT id, fp256 FROM dw', 32, '{0,2}')) AS repeated_once,
       (SELECT count(*) FROM simhash_word_passes('SELECT id, fp256 FROM dw', 32, '{}')) AS no_words;
SELECT * FROM simhash_word_passes('SELECT id, fp256 FROM dw', 3, '{0,4}');
SELECT * FROM simhash_word_passes('SELECT id, fp128 FROM dw', 3, '{1,2}');
SELECT * FROM simhash_word_passes('SELECT id, fp256 FROM dw', 3, '{0,NULL}');
SELECT * FROM simhash_word_passes('SELECT id, fp128 FROM dw', 129, '{0}');
SELECT count(*) FROM simhash_word_passes('SELECT id, fp256 FROM dw', 3, NULL::int[]);
-- 64 bits: word 0 is simhash_pairs
SELECT (SELECT count(*) FROM simhash_word_pairs('SELECT id, fp FROM d64', 8, 0)) AS word0,
       (SELECT count(*) FROM (SELECT * FROM simhash_word_pairs('SELECT id, fp FROM d64', 8, 0)
                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, fp FROM d64', 8)) x) AS extra;
-- beyond maintenance_work_mem a pass spills as simhash_pairs does: 12,000
-- rows (the 1,122 of dw and 11,000 random ones) in 1 MB
CREATE TABLE dwspill AS SELECT id, fp256 FROM dw
  UNION ALL SELECT 100000 + i, sha256(convert_to('dwspill:' || i, 'UTF8'))::simhash256 FROM generate_series(1, 11000) i;
CREATE TEMP TABLE dwref AS SELECT * FROM simhash_pairs('SELECT id, fp256 FROM dwspill', 32);
SET maintenance_work_mem = '1MB';
-- (in memory it would need 1.3 MB: simhash_group_pairs, which does not
-- spill, says so)
SELECT pg_temp.err($q$SELECT count(*) FROM simhash_group_pairs('SELECT id, fp256 FROM dwspill', 32)$q$) AS group_pairs;
CREATE TEMP TABLE dwspilled AS SELECT * FROM pg_temp.word_union('SELECT id, fp256 FROM dwspill', 32, 4);
-- the set form spilled: words 1 and 3 together are the union of their passes
CREATE TEMP TABLE dwspilled13 AS SELECT * FROM simhash_word_passes('SELECT id, fp256 FROM dwspill', 32, '{1,3}');
CREATE TEMP TABLE dwspilled0 AS SELECT * FROM simhash_word_passes('SELECT id, fp256 FROM dwspill', 32, '{0}');
RESET maintenance_work_mem;
SELECT (SELECT count(*) FROM (SELECT * FROM dwspilled13 EXCEPT ALL SELECT p.* FROM unnest('{1,3}'::int[]) w,
        simhash_word_pairs('SELECT id, fp256 FROM dwspill', 32, w) p) x) AS extra_13,
       (SELECT count(*) FROM (SELECT p.* FROM unnest('{1,3}'::int[]) w, simhash_word_pairs('SELECT id, fp256 FROM dwspill', 32, w) p
        EXCEPT ALL SELECT * FROM dwspilled13) x) AS missing_13,
       (SELECT count(*) FROM (SELECT * FROM dwspilled0 EXCEPT ALL SELECT * FROM simhash_word_pairs('SELECT id, fp256 FROM dwspill', 32, 0)) x)
     + (SELECT count(*) FROM (SELECT * FROM simhash_word_pairs('SELECT id, fp256 FROM dwspill', 32, 0) EXCEPT ALL SELECT * FROM dwspilled0) x) AS differ_0,
       (SELECT count(*) FROM dwspilled13) > 0 AS some_13;
SELECT (SELECT count(*) FROM dwref) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM dwspilled EXCEPT ALL SELECT * FROM dwref) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM dwref EXCEPT ALL SELECT * FROM dwspilled) x) AS missing;
-- simhash_spread_words on a local table: one copy per word with a pass
SELECT simhash_spread_words('dw', 'id', 'fp256', 32) AS t \gset
SELECT count(*) AS copies, count(DISTINCT id) AS ids, array_agg(DISTINCT task) AS tasks FROM :t;
DROP TABLE :t;
SELECT simhash_spread_words('dw', 'id', 'fp256', 1) AS t \gset
SELECT count(*) AS copies, array_agg(DISTINCT task) AS tasks FROM :t;
DROP TABLE :t;
SELECT simhash_spread_words('dw', 'id', 'fp128', 5) AS t \gset
SELECT count(*) AS copies, array_agg(DISTINCT task) AS tasks FROM :t;
DROP TABLE :t;
-- 1.13, simhash_spread_nodes on a local table: one task, no copies (its
-- one row makes the task run), every word with a pass, a query that reads
-- the table itself; its passes give simhash_pairs
SELECT work AS t, task, words, query FROM simhash_spread_nodes('dw', 'id', 'fp256', 32) \gset
SELECT count(*) AS rows, count(fp) AS copies, :task AS task, :'words' AS words FROM :t;
SELECT (SELECT count(*) FROM (SELECT p.* FROM unnest(:'words'::int[]) w, simhash_word_pairs(:'query', 32, w) p
        EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, fp256 FROM dw', 32)) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, fp256 FROM dw', 32)
        EXCEPT ALL SELECT p.* FROM unnest(:'words'::int[]) w, simhash_word_pairs(:'query', 32, w) p) x) AS missing,
       (SELECT count(*) FROM simhash_pairs('SELECT id, fp256 FROM dw', 32)) > 10 AS many;
DROP TABLE :t;
SELECT work AS t, words FROM simhash_spread_nodes('dw', 'id', 'fp128', 0) \gset
SELECT :'words' AS words_128_k0;
DROP TABLE :t;
SELECT count(*) AS work_tables_left FROM pg_class WHERE relname LIKE 'simhash_nodes_%';
SELECT * FROM simhash_spread_nodes('dw', 'id', 'nope', 3);
SELECT * FROM simhash_spread_nodes('dw', 'id', 'fp256', 129);
-- errors of simhash_word_pairs: a word outside the fingerprint, those of
-- simhash_pairs
SELECT * FROM simhash_word_pairs('SELECT id, fp256 FROM dw', 3, 4);
SELECT * FROM simhash_word_pairs('SELECT id, fp256 FROM dw', 3, -1);
SELECT * FROM simhash_word_pairs('SELECT id, fp128 FROM dw', 3, 2);
SELECT * FROM simhash_word_pairs('SELECT id, fp FROM d64', 3, 1);
SELECT * FROM simhash_word_pairs('SELECT id, fp128 FROM dw', 129, 0);
SELECT * FROM simhash_word_pairs('SELECT id FROM dw', 3, 0);
SELECT * FROM simhash_word_pairs('SELECT id, fp256 FROM dw', 3, NULL);

-- errors of simhash_block_pairs
SELECT * FROM simhash_block_pairs(0, '{1,2}', '{0000000000000001}'::simhash[], 3);
SELECT * FROM simhash_block_pairs(0, '{1,NULL}', '{0000000000000001,0000000000000003}'::simhash[], 3);
SELECT * FROM simhash_block_pairs(4::bigint << 32, '{1,2}', '{0000000000000001,0000000000000003}'::simhash[], 3);
SELECT * FROM simhash_block_pairs(0, '{1,2}', '{0000000000000001,0000000000000003}'::simhash[], 17);
SELECT * FROM simhash_block_pairs(0, '{1,2,3}', '{0000000000000001,0000000000000003,NULL}'::simhash[], 3);

-- simhash_pair_clusters: union-find over (id1, id2) rows
SELECT * FROM simhash_pair_clusters('VALUES (5, 3), (3, 9), (20::smallint, 21::smallint), (9, 3)');
SELECT count(*) AS rows, count(*) FILTER (WHERE c.cluster_id IS DISTINCT FROM s.cluster_id) AS differ
FROM simhash_clusters('SELECT id, fp FROM d64', 8) s
LEFT JOIN simhash_pair_clusters('SELECT id1, id2 FROM simhash_pairs(''SELECT id, fp FROM d64'', 8)') c USING (id)
WHERE c.id IS NOT NULL OR s.cluster_id <> s.id;
SELECT * FROM simhash_pair_clusters('SELECT 1, NULL::bigint');
SELECT * FROM simhash_pair_clusters('SELECT 1, 2.5');
-- its memory is bounded by maintenance_work_mem (54000), as that of the
-- other batch functions: 10,001 ids fit in 1 MB, 100,001 do not
SET maintenance_work_mem = '1MB';
SELECT count(*) AS ids, count(DISTINCT cluster_id) AS clusters
FROM simhash_pair_clusters('SELECT g, g + 1 FROM generate_series(1, 10000) g');
SELECT pg_temp.err($q$SELECT count(*) FROM simhash_pair_clusters('SELECT g, g + 1 FROM generate_series(1, 100000) g')$q$);
SELECT count(*) FROM simhash_pair_clusters('SELECT g, g + 1 FROM generate_series(1, 100000) g');
RESET maintenance_work_mem;

-- on a local table the distributed functions are the batch functions
SELECT simhash_is_distributed('d64') AS distributed;
SELECT (SELECT count(*) FROM simhash_distributed_pairs('d64', 'id', 'fp', 8)) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM simhash_distributed_clusters('d64', 'id', 'fp', 8)
                              EXCEPT SELECT * FROM simhash_clusters('SELECT id, fp FROM d64', 8)) x) AS clusters_differ;
SELECT (SELECT count(*) FROM (SELECT * FROM simhash_distributed_pairs('dw', 'id', 'fp256', 32)
                              EXCEPT ALL SELECT * FROM simhash_pairs('SELECT id, fp256 FROM dw', 32)) x) AS extra_256,
       (SELECT count(*) FROM (SELECT * FROM simhash_pairs('SELECT id, fp256 FROM dw', 32)
                              EXCEPT ALL SELECT * FROM simhash_distributed_pairs('dw', 'id', 'fp256', 32)) x) AS missing_256;

-- the guard on a local table: the view takes the writes, 23P01 names the
-- table, skip drops the row (and COPY counts only the rows kept)
CREATE TABLE gdocs (id bigserial PRIMARY KEY, body text NOT NULL,
                    fp simhash GENERATED ALWAYS AS (to_simhash(body)) STORED);
INSERT INTO gdocs (body) VALUES ('The city council approved the new budget on Monday');
SELECT simhash_distributed_guard('gdocs', 'id', 'fp', 3);
SELECT count(*) AS lock_rows FROM gdocs_simhash_keys;
INSERT INTO gdocs_guarded (body) VALUES ('Heavy rain is expected across the north of the country tomorrow') RETURNING id, body;
INSERT INTO gdocs_guarded (body) VALUES ('The city council approved the new budget on Monday.');
SELECT simhash_distributed_guard('gdocs', 'id', 'fp', 3, 'skip');
CREATE TABLE sdocs (LIKE gdocs INCLUDING ALL);
ALTER TABLE sdocs ALTER COLUMN id SET DEFAULT nextval('gdocs_id_seq');
SELECT simhash_distributed_guard('sdocs', 'id', 'fp', 3, 'skip');
COPY sdocs_guarded (body) FROM stdin;
The city council approved the new budget on Monday
Heavy rain is expected across the north of the country tomorrow
The city council approved the new budget on Monday.
Heavy rain is expected across the north of the country tomorrow!
\.
SELECT body FROM sdocs_guarded ORDER BY id;
-- INSERT counts the rows kept (COPY counts every row it read: PostgreSQL
-- does not count what an INSTEAD OF trigger drops there)
\set QUIET off
INSERT INTO sdocs_guarded (body)
VALUES ('Heavy rain is expected across the north of the country tomorrow.'), ('A new bridge opens to traffic');
\set QUIET on
SELECT simhash_distributed_guard('sdocs', 'body', 'fp', 3);
SELECT simhash_distributed_guard('sdocs', 'id', 'nope', 3);
SELECT simhash_distributed_guard('gdocs', 'id', 'fp', 33);
SELECT simhash_distributed_guard('gdocs', 'id', 'fp', 3, 'ignore');
