-- Shared by guard_verify.sql, minhash.sql and test/citus/cases/72 (\i):
-- insert_each(seq, target) inserts the rows (n, body) of seq into target
-- (id, body) one statement at a time, in order of n, as the caller;
-- greedy(seq, kept, k, t) fills kept (n, fp, sig) with the rows of seq a
-- greedy pass keeps at 256 bits: a row unless a kept row is within k bits
-- AND minhash_jaccard of their signatures is at least t.
CREATE PROCEDURE pg_temp.insert_each(seq regclass, target regclass) LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
	FOR r IN EXECUTE format('SELECT n, body FROM %s ORDER BY n', seq) LOOP
		EXECUTE format('INSERT INTO %s (id, body) VALUES ($1, $2)', target) USING r.n, r.body;
	END LOOP;
END $$;
CREATE PROCEDURE pg_temp.greedy(seq regclass, kept regclass, k int, t float8) LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
	FOR r IN EXECUTE format('SELECT n, to_simhash256(body) AS fp, to_minhash(body) AS sig FROM %s ORDER BY n', seq) LOOP
		EXECUTE format('INSERT INTO %s SELECT $1, $2, $3 WHERE NOT EXISTS (SELECT FROM %1$s g
		                WHERE g.fp <-> $2 <= $4 AND minhash_jaccard(g.sig, $3) >= $5)', kept)
			USING r.n, r.fp, r.sig, k, t;
	END LOOP;
END $$;
