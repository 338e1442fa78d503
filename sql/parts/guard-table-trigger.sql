--@ simhash_guard_table_trigger as 1.9 made it (version=1.9) and as 1.10
--@ replaces it (version=1.10): one text, what differs under --@if, so that
--@ each script runs what it always ran.
--@if {version} = 1.9
CREATE FUNCTION @extschema@.simhash_guard_table_trigger()
--@else
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_table_trigger()
--@end
RETURNS trigger
--@language plpgsql VOLATILE PARALLEL UNSAFE
DECLARE
	oldrow jsonb;
	newrow jsonb;
BEGIN
	IF TG_OP = 'TRUNCATE' THEN
		EXECUTE format('TRUNCATE %s', TG_ARGV[0]::regclass);
		RETURN NULL;
	END IF;
	IF pg_catalog.pg_trigger_depth() > 1 THEN
		RETURN NULL;			-- the view's own write
	END IF;
	IF TG_OP <> 'INSERT' THEN
		oldrow := pg_catalog.to_jsonb(OLD);
	END IF;
	IF TG_OP <> 'DELETE' THEN
		newrow := pg_catalog.to_jsonb(NEW);
	END IF;
	IF TG_OP = 'DELETE' THEN
		IF oldrow OPERATOR(pg_catalog.->>) TG_ARGV[2] IS NOT NULL THEN
			EXECUTE format('DELETE FROM %s WHERE key OPERATOR(pg_catalog.=) ANY (@extschema@.simhash_blocks($1::%s, %s))'
				' AND id OPERATOR(pg_catalog.=) $2', TG_ARGV[0]::regclass, TG_ARGV[3], TG_ARGV[4])
				USING oldrow OPERATOR(pg_catalog.->>) TG_ARGV[2], (oldrow OPERATOR(pg_catalog.->>) TG_ARGV[1])::bigint;
		END IF;
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE'
		AND oldrow OPERATOR(pg_catalog.->) TG_ARGV[1] IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[1]
--@if {version} = 1.9
		AND oldrow OPERATOR(pg_catalog.->) TG_ARGV[2] IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[2] THEN
		RETURN NULL;			-- neither the id nor the fingerprint changed
--@else
		AND oldrow OPERATOR(pg_catalog.->) TG_ARGV[2] IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[2]
		AND (TG_NARGS < 7 OR oldrow OPERATOR(pg_catalog.->) TG_ARGV[6]
			IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[6]) THEN
		RETURN NULL;			-- neither the id, the fingerprint nor the signature changed
--@end
	END IF;
	RAISE EXCEPTION '% of relation "%" bypasses its near-duplicate guard', TG_OP, TG_TABLE_NAME
		USING ERRCODE = 'object_not_in_prerequisite_state',
--@if {version} = 1.9
		DETAIL = format('Rows whose %s or %s change are written through the view %s.',
			TG_ARGV[1], TG_ARGV[2], TG_ARGV[5]),
--@else
		DETAIL = CASE WHEN TG_NARGS < 7
			THEN format('Rows whose %s or %s change are written through the view %s.',
				TG_ARGV[1], TG_ARGV[2], TG_ARGV[5])
			ELSE format('Rows whose %s, %s or %s change are written through the view %s.',
				TG_ARGV[1], TG_ARGV[2], TG_ARGV[6], TG_ARGV[5]) END,
--@end
		HINT = 'Write through the view, or drop the guard first (doc/citus.md).';
END
$$;
--@if {version} = 1.9
--@describe the trigger a guard puts on a table that is not distributed: TRUNCATE and DELETE keep the registry in step; INSERT, and an UPDATE of the id or fingerprint, that bypass the view fail with 55000
--@else
--@describe the trigger a guard puts on a table that is not distributed: TRUNCATE and DELETE keep the registry in step; INSERT, and an UPDATE of the id, fingerprint or (under verification) signature, that bypass the view fail with 55000
--@end
