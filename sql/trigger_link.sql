-- simhash_reject_near_duplicates with action 'link' (since 1.14): the row
-- is kept, with the id of its nearest near-duplicate already in the table
-- and the distance written into two columns (both NULL when there is none).
-- Concurrency is tested by test/t/003_reject_near_duplicates.pl; this file
-- covers one session: nearest and ties, NULLs, UPDATE, multi-row inserts,
-- generated and wide columns, verification; errors of bad use are in
-- trigger.sql.
CREATE EXTENSION IF NOT EXISTS simhash;
SET jit = off;
CREATE TABLE ldocs (id int PRIMARY KEY, tag text, fp simhash,
					dup_of int, dup_distance smallint);
CREATE INDEX ldocs_fp_gin ON ldocs USING gin (fp simhash_gin_ops);
CREATE TRIGGER ldocs_link BEFORE INSERT OR UPDATE OF fp ON ldocs
	FOR EACH ROW EXECUTE FUNCTION
	simhash_reject_near_duplicates('fp', '3', 'link', 'id', 'dup_of', 'dup_distance');

-- the first row links to nothing; a row 3 bits away links to it, one 4
-- bits away from it and 1 from the second links to the second (the
-- nearest); an exact copy links at distance 0; a value the application
-- gives for the two columns is replaced
INSERT INTO ldocs VALUES (1, 'a', 'f3a90c1e00b2d47f', 99, 9);
INSERT INTO ldocs VALUES (2, 'a3', 'f3a90c1e00b2d478');
INSERT INTO ldocs VALUES (3, 'a4', 'f3a90c1e00b2d470');
INSERT INTO ldocs VALUES (4, 'copy', 'f3a90c1e00b2d47f');
-- ties: 1 bit from rows 1 and 4 alike, and the link names the smaller id
INSERT INTO ldocs VALUES (5, 'tie', 'f3a90c1e00b2d47e');
-- a NULL fingerprint links to nothing, whatever was given
INSERT INTO ldocs VALUES (6, 'null', NULL, 1, 0);
-- far from everything
INSERT INTO ldocs VALUES (7, 'far', '0123456789abcdef');
SELECT id, tag, fp, dup_of, dup_distance FROM ldocs ORDER BY id;

-- ties go to the smallest id, not the row inserted first
INSERT INTO ldocs VALUES (30, 't', 'aaaaaaaaaaaaaaaa'), (20, 't', 'aaaaaaaaaaaaaaaa');
INSERT INTO ldocs VALUES (40, 't', 'aaaaaaaaaaaaaaab');
SELECT id, dup_of, dup_distance FROM ldocs WHERE tag = 't' ORDER BY id;

-- a multi-row INSERT: each row sees those the statement wrote before it
INSERT INTO ldocs VALUES (50, 'm', '1111111111111111'), (51, 'm', '1111111111111113'),
						 (52, 'm', '1111111111111117');
SELECT id, dup_of, dup_distance FROM ldocs WHERE tag = 'm' ORDER BY id;

-- UPDATE of fp links the new version again, never to itself; an UPDATE
-- that leaves fp as it was (or one of another column, which this trigger,
-- OF fp, does not see) leaves the link as it is, also a value the
-- application wrote
UPDATE ldocs SET fp = 'fedcba9876543210' WHERE id = 3;
UPDATE ldocs SET fp = '0123456789abcdee' WHERE id = 2;
UPDATE ldocs SET fp = fp, dup_of = 42 WHERE id = 4;
UPDATE ldocs SET tag = 'a-renamed' WHERE id = 1;
SELECT id, tag, fp, dup_of, dup_distance FROM ldocs WHERE id <= 7 ORDER BY id;
-- the link is what the row was nearest to when written: rows written later
-- do not change it (row 7 still links to nothing)
SELECT dup_of IS NULL AS still_unlinked FROM ldocs WHERE id = 7;

-- with 'link' a near-duplicate is never rejected: every row is kept
SELECT count(*) AS rows_kept FROM ldocs;

-- with a GiST index, and without one (the WARNING once), the same links
DROP INDEX ldocs_fp_gin;
CREATE INDEX ldocs_fp_gist ON ldocs USING gist (fp simhash_gist_ops);
INSERT INTO ldocs VALUES (60, 'gist', '1111111111111110');
DROP INDEX ldocs_fp_gist;
INSERT INTO ldocs VALUES (61, 'seq', 'aaaaaaaaaaaaaaa8');
SELECT id, dup_of, dup_distance FROM ldocs WHERE id IN (60, 61) ORDER BY id;

-- a text id, a bigint distance, a generated 128-bit fingerprint, and no
-- primary key: rows without an id are no candidates
CREATE TABLE wdocs (name text, body text,
					fp simhash128 GENERATED ALWAYS AS (to_simhash128(body)) STORED,
					near text, bits bigint);
CREATE TRIGGER wdocs_link BEFORE INSERT OR UPDATE ON wdocs
	FOR EACH ROW EXECUTE FUNCTION
	simhash_reject_near_duplicates('fp', '16', 'link', 'name', 'near', 'bits');
INSERT INTO wdocs (name, body) VALUES
	(NULL, 'the quick brown fox jumps over the lazy dog'),
	('first', 'the quick brown fox jumps over the lazy dog'),
	('second', 'the quick brown fox jumps over the lazy dog'),
	('other', 'a completely different sentence about something else entirely');
SELECT name, near, bits FROM wdocs ORDER BY name COLLATE "C" NULLS FIRST;

-- verification: the nearest candidate whose signature passes the
-- threshold.  Row 3 is 0 bits from row 2 and 1 bit from row 1, but only
-- row 1's text is its own
CREATE TABLE vdocs (id bigint PRIMARY KEY, body text, fp simhash,
					sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED,
					dup_of bigint, dup_distance int);
CREATE TRIGGER vdocs_link BEFORE INSERT OR UPDATE ON vdocs
	FOR EACH ROW EXECUTE FUNCTION
	simhash_reject_near_duplicates('fp', '3', 'link', 'id', 'dup_of', 'dup_distance', 'sig', '0.65');
INSERT INTO vdocs (id, body, fp) VALUES
	(1, 'the quick brown fox jumps over the lazy dog', '00000000000000f0');
INSERT INTO vdocs (id, body, fp) VALUES
	(2, 'a completely different sentence about something else entirely', '00000000000000f1');
INSERT INTO vdocs (id, body, fp) VALUES
	(3, 'the quick brown fox jumps over the lazy dog', '00000000000000f1');
-- a NULL signature links to nothing
INSERT INTO vdocs (id, body, fp) VALUES (4, NULL, '00000000000000f0');
SELECT id, dup_of, dup_distance FROM vdocs ORDER BY id;

-- bad use of the 'link' arguments: in trigger.sql, with the other errors
DROP TABLE ldocs, wdocs, vdocs;
