--@ simhash_check_columns as 1.8 made it (version=1.8) and as 1.9 replaces it
--@ (version=1.9): one text, what differs under --@if, so that each script runs
--@ what it always ran.
--@if {version} = 1.8
CREATE FUNCTION @extschema@.simhash_check_columns(relation regclass,
--@else
CREATE OR REPLACE FUNCTION @extschema@.simhash_check_columns(relation regclass,
--@end
	id_column name, fp_column name)
RETURNS regtype
--@language plpgsql STABLE STRICT PARALLEL SAFE
DECLARE
--@if {version} = 1.9
	rel_name name;
	rel_kind "char";
--@end
	idtype regtype;
	fptype regtype;
BEGIN
--@if {version} = 1.9
	SELECT c.relname, c.relkind INTO rel_name, rel_kind
		FROM pg_catalog.pg_class c WHERE c.oid = relation;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'relation with OID % does not exist', relation::oid
			USING ERRCODE = 'undefined_table';
	END IF;
	-- what a SELECT reads rows from: tables (partitioned or not), views,
	-- materialized views, foreign tables
	IF rel_kind NOT IN ('r', 'p', 'v', 'm', 'f') THEN
		RAISE EXCEPTION '"%" is %, not a table', rel_name,
			CASE rel_kind WHEN 'c' THEN 'a composite type' WHEN 'i' THEN 'an index'
				WHEN 'I' THEN 'a partitioned index' WHEN 'S' THEN 'a sequence'
				WHEN 't' THEN 'a TOAST table' ELSE format('a relation of kind "%s"', rel_kind) END
			USING ERRCODE = 'wrong_object_type',
			DETAIL = 'The distributed functions read the rows of a table, a partitioned table, a view, a materialized view or a foreign table.';
	END IF;
--@end
	SELECT a.atttypid INTO idtype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = id_column AND a.attnum > 0 AND NOT a.attisdropped;
	SELECT a.atttypid INTO fptype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = fp_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF idtype IS NULL OR fptype IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist',
--@if {version} = 1.8
			CASE WHEN idtype IS NULL THEN id_column ELSE fp_column END,
			(SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = relation)
--@else
			CASE WHEN idtype IS NULL THEN id_column ELSE fp_column END, rel_name
--@end
			USING ERRCODE = 'undefined_column';
	END IF;
	IF idtype NOT IN ('bigint'::regtype, 'integer'::regtype, 'smallint'::regtype)
		OR fptype NOT IN ('@extschema@.simhash'::regtype, '@extschema@.simhash128'::regtype,
			'@extschema@.simhash256'::regtype) THEN
		RAISE EXCEPTION 'the columns must be (id bigint, fp simhash), not (% %, % %)',
			id_column, idtype, fp_column, fptype
			USING ERRCODE = 'datatype_mismatch',
			DETAIL = 'The fingerprint may also be a simhash128 or a simhash256; the id a bigint, an integer or a smallint.';
	END IF;
	RETURN fptype;
END
$$;
--@if {version} = 1.8
--@describe the checks of the id and fingerprint columns of the distributed functions; returns the fingerprint type
--@else
--@describe the checks of the relation (one that exists and has rows) and of the id and fingerprint columns of the distributed functions; returns the fingerprint type
--@end
