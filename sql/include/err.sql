-- Shared by the regression tests (\i :abs_srcdir/sql/include/err.sql):
-- err(q) runs q and shows the SQLSTATE and message of its error, or
-- 'no error'.
CREATE FUNCTION pg_temp.err(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;
