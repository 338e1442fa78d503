-- Shared by the regression tests (\i :abs_srcdir/sql/include/index_used.sql):
-- index_used(q): the index scans of EXPLAIN (COSTS OFF) q, 'none' if none
CREATE FUNCTION pg_temp.index_used(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	m text[];
	found text[] := '{}';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		m := regexp_match(line, '(Bitmap Index Scan on|Index Only Scan using|Index Scan using) (\S+)');
		IF m IS NOT NULL THEN
			found := found || (m[1] || ' ' || m[2]);
		END IF;
	END LOOP;
	RETURN coalesce(nullif(array_to_string(found, ', '), ''), 'none');
END $$;
