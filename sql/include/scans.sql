-- Shared by the regression tests (\i :abs_srcdir/sql/include/scans.sql):
-- scans(rel, q) runs q and gives the sequential and index scans of rel it
-- made, counted in this transaction (pg_stat_xact_user_tables).
CREATE FUNCTION pg_temp.scans(rel regclass, q text, OUT seq bigint, OUT idx bigint) LANGUAGE plpgsql AS $$
DECLARE
	s0 bigint;
	i0 bigint;
BEGIN
	SELECT seq_scan, coalesce(idx_scan, 0) INTO s0, i0 FROM pg_stat_xact_user_tables WHERE relid = rel;
	EXECUTE q;
	SELECT seq_scan - s0, coalesce(idx_scan, 0) - i0 INTO seq, idx FROM pg_stat_xact_user_tables WHERE relid = rel;
END $$;
