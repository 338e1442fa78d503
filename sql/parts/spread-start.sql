--@ The start of simhash_spread_blocks (1.8, name=blocks key=key
--@ keytype=bigint) and simhash_spread_words (1.12, name=words key=task
--@ keytype=integer): the checks, and the new table ({key}, id, fp) in the
--@ relation's schema, named simhash_{name}_<pid>_<relation's oid>.
CREATE FUNCTION @extschema@.simhash_spread_{name}(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS regclass
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	fptype regtype;
--@if {name} = blocks
	shards integer;
--@else
	nw integer;
	ntasks integer;
	tasks integer[] := '{}';
	shards bigint[] := '{}';
	nodes integer[] := '{}';
	task integer;
	shard bigint;
	node integer;
	w integer;
--@end
	work text;
BEGIN
	fptype := @extschema@.simhash_check_spread(relation, id_column, fp_column, k);
	work := format('%I.%I', (SELECT n.nspname FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = relation),
		'simhash_{name}_' || pg_catalog.pg_backend_pid() || '_' || relation::oid);
--@if {name} = words
	-- a work table, dropped at the end: no WAL for its copies
	EXECUTE format('CREATE UNLOGGED TABLE %s ({key} {keytype} NOT NULL, id bigint, fp %s NOT NULL)', work, fptype);
--@else
	EXECUTE format('CREATE TABLE %s ({key} {keytype} NOT NULL, id bigint, fp %s NOT NULL)', work, fptype);
--@end
