--@ simhash_is_distributed (1.8, name=simhash_is_distributed) and
--@ simhash_is_citus_table (1.9, name=simhash_is_citus_table): what Citus's
--@ catalog says of the relation, false without Citus.
CREATE FUNCTION @extschema@.{name}(relation regclass)
RETURNS boolean
--@language plpgsql STABLE STRICT PARALLEL SAFE
DECLARE
	found boolean;
BEGIN
	IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
		RETURN false;
	END IF;
--@if {name} = simhash_is_distributed
	EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition'
		' WHERE logicalrelid = $1 AND partmethod <> ''n'')'
--@else
	EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
--@end
		INTO found USING relation;
	RETURN found;
END
$$;
