-- demo/pairs.sql: every pair of nodes within distance :k whose signatures
-- are at least :t alike (minhash_jaccard): the two-stage decision.
--   input:  nodes(id bigint, fp, sig minhash), one row per DISTINCT
--           fingerprint and signature; at 64 bits with a simhash_gin_ops index
--   output: pairs(a bigint, b bigint, d integer, j double precision), a < b,
--           d = fp_a <-> fp_b, j = minhash_jaccard(sig_a, sig_b)
-- simhash_pairs() does it in a few sorted passes (Manku et al. 2007,
-- section 3), at every width: a wider fingerprint is searched word by word
-- (two fingerprints within k are within a word's share of k on some word),
-- each candidate verified on the whole fingerprint.  The check below finds
-- the pairs again: at 64 bits with the index self-join, wider by scanning
-- every fingerprint for a sample of 300.
\set p0 `date +%s%N`
CREATE TABLE pairs AS
	SELECT id1 AS a, id2 AS b, distance AS d, jaccard AS j
	  FROM simhash_pairs('SELECT id, fp, sig FROM nodes', :k, :t);
\set p1 `date +%s%N`
ANALYZE pairs;

\set t0 `date +%s%N`
SELECT :width = 64 AS narrow \gset
\if :narrow
-- the exactness check: the GIN-backed self-join finds the same pairs
CREATE TEMP TABLE join_pairs AS
	SELECT x.id AS a, y.id AS b, (x.fp <-> y.fp)::integer AS d, minhash_jaccard(x.sig, y.sig) AS j
	  FROM nodes x JOIN nodes y ON y.fp <-> x.fp <= :k
	 WHERE x.id < y.id AND minhash_jaccard(x.sig, y.sig) >= :t;
CREATE TEMP VIEW found_pairs AS TABLE pairs;
\set checked 'by the index self-join'
\else
-- the exactness check: every fingerprint scanned for 300 of them (at large
-- radii a wide index answers more slowly than this scan)
CREATE TEMP TABLE sample AS SELECT id FROM nodes ORDER BY md5(id::text) LIMIT 300;
CREATE TEMP TABLE join_pairs AS
	SELECT least(x.id, y.id) AS a, greatest(x.id, y.id) AS b, (x.fp <-> y.fp)::integer AS d,
	       minhash_jaccard(x.sig, y.sig) AS j
	  FROM nodes x JOIN nodes y ON y.id <> x.id AND y.fp <-> x.fp <= :k
	 WHERE x.id IN (TABLE sample) AND minhash_jaccard(x.sig, y.sig) >= :t
	   AND (y.id NOT IN (TABLE sample) OR x.id < y.id);
CREATE TEMP VIEW found_pairs AS
	SELECT * FROM pairs WHERE a IN (TABLE sample) OR b IN (TABLE sample);
\set checked 'by scanning every fingerprint for 300 sampled ones (their pairs only)'
\endif
\set t1 `date +%s%N`
INSERT INTO facts
SELECT 'self-join check', format('%s pairs by simhash_pairs (%s ms); %s of them found again %s (%s ms), %s differences',
	(SELECT count(*) FROM pairs), (:p1 - :p0) / 1000000, (SELECT count(*) FROM join_pairs), :'checked',
	(:t1 - :t0) / 1000000,
	(SELECT count(*) FROM ((TABLE found_pairs EXCEPT ALL TABLE join_pairs)
	                       UNION ALL (TABLE join_pairs EXCEPT ALL TABLE found_pairs)) x));
