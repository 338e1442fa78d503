--@ simhash_distributed_guard as 1.9 replaced it (version=1.9), its
--@ seven-argument form of 1.10 (version=1.10) and that form as 1.12 replaces
--@ it, with lock rows and the table's own index instead of a registry
--@ (version=1.12): one text, what differs under --@if, so that each script
--@ runs what it always ran.
--@if {version} = 1.9
CREATE OR REPLACE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text DEFAULT 'reject')
--@else
--@if {version} = 1.10
CREATE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
--@else
CREATE OR REPLACE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
--@end
	id_column name, fp_column name, k integer, action text, sig_column name, threshold double precision)
--@end
RETURNS regclass
--@if {version} = 1.9
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
--@else
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
--@end
SET search_path = pg_catalog, pg_temp
--@if {version} != 1.9
SET extra_float_digits = 1		-- the threshold's text, for the trigger, is exact
--@end
AS $$
DECLARE
	nsp name;
	rel name;
	owner regrole;
	fptype regtype;
--@if {version} != 1.9
	sigtype regtype;
	verify boolean := sig_column IS NOT NULL;
--@end
	shards integer;
	distributed boolean;
--@if {version} = 1.12
	distcol name;
	disttype regtype;
	method text;
	shardmap text;
	named integer;
--@end
	qualified text;
	registry text;
	view text;
	existing regclass;
	d record;
--@if {version} != 1.9
	viewargs text;
	tableargs text;
--@if {version} = 1.12
	args jsonb;
--@end
--@end
BEGIN
--@if {version} != 1.9
	IF relation IS NULL OR id_column IS NULL OR fp_column IS NULL OR k IS NULL OR action IS NULL THEN
		RETURN NULL;
	END IF;
	IF (sig_column IS NULL) <> (threshold IS NULL) THEN
		RAISE EXCEPTION 'simhash_distributed_guard: the signature column and the threshold must both be given or both be NULL'
			USING ERRCODE = 'null_value_not_allowed',
			HINT = 'Without verification, call simhash_distributed_guard(relation, id_column, fp_column, k, action).';
	END IF;
--@end
	SELECT n.nspname, c.relname, c.relowner::regrole INTO nsp, rel, owner FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = relation;
	IF rel IS NULL THEN
		RAISE EXCEPTION 'relation with OID % does not exist', relation::oid USING ERRCODE = 'undefined_table';
	END IF;
	fptype := @extschema@.simhash_check_columns(relation, id_column, fp_column);
	IF lower(action) NOT IN ('reject', 'skip') THEN
		RAISE EXCEPTION 'simhash_distributed_guard: action must be "reject" or "skip", not "%"', action
			USING ERRCODE = 'invalid_parameter_value';
--@if {version} != 1.9
	END IF;
	IF verify THEN
		SELECT a.atttypid::regtype INTO sigtype FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relation AND a.attname = sig_column AND a.attnum > 0 AND NOT a.attisdropped;
		IF sigtype IS NULL THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist', sig_column, rel
				USING ERRCODE = 'undefined_column';
		END IF;
		IF sigtype <> '@extschema@.minhash'::regtype THEN
			RAISE EXCEPTION 'simhash_distributed_guard: column "%" of relation "%" is %, not minhash', sig_column, rel, sigtype
				USING ERRCODE = 'datatype_mismatch',
				DETAIL = 'The signature column of the verification stage holds to_minhash of the row''s text, for example sig minhash GENERATED ALWAYS AS (to_minhash(body)) STORED.';
		END IF;
		IF NOT (threshold >= 0 AND threshold <= 1) THEN
			RAISE EXCEPTION 'simhash_distributed_guard: threshold must be a number from 0 to 1, not %', threshold
				USING ERRCODE = 'invalid_parameter_value';
		END IF;
--@end
	END IF;
	IF NOT pg_catalog.pg_has_role(current_user, owner, 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of table %', rel USING ERRCODE = 'insufficient_privilege',
			DETAIL = 'The guard writes as the table''s owner.';
	END IF;
	-- an update or delete through the view finds its row by id
	IF NOT @extschema@.simhash_guard_id_is_key(relation, id_column) THEN
		RAISE EXCEPTION 'simhash_distributed_guard: column "%" of relation "%" must be NOT NULL and unique', id_column, rel
			USING ERRCODE = 'invalid_column_reference',
			DETAIL = 'The guard names a row by its id; two rows with one id, or none, would escape it.',
			HINT = format('ALTER TABLE %I.%I ADD PRIMARY KEY (%I), or a UNIQUE constraint and NOT NULL.', nsp, rel, id_column);
	END IF;
	-- k in range for the width, before anything is created
	EXECUTE format('SELECT @extschema@.simhash_blocks($1::%s, %s)', fptype, k)
		USING CASE fptype WHEN '@extschema@.simhash'::regtype THEN repeat('0', 16)
			WHEN '@extschema@.simhash128'::regtype THEN repeat('0', 32) ELSE repeat('0', 64) END;
	qualified := format('%I.%I', nsp, rel);
	existing := (@extschema@.simhash_guard_of(relation)).view;
	IF existing IS NOT NULL THEN
		RAISE EXCEPTION 'relation "%" already has a near-duplicate guard: the view %', rel, existing
			USING ERRCODE = 'duplicate_object',
			HINT = 'Drop the guard first (doc/citus.md) to set it up again.';
	END IF;
	distributed := @extschema@.simhash_is_distributed(relation);
--@if {version} = 1.12
	registry := format('%I.%I', nsp, @extschema@.simhash_guard_name(nsp, rel, '_simhash_keys', 51));
--@else
	registry := format('%I.%I', nsp, @extschema@.simhash_guard_name(nsp, rel, '_simhash_registry', 51));
--@end
	view := format('%I.%I', nsp, @extschema@.simhash_guard_name(nsp, rel, '_guarded', 63));

--@if {version} = 1.12
	-- a reference table's rows are on every node, committed by two-phase
	-- commit: the search on one node cannot wait for the others
	IF distributed THEN
		-- by name: the extension installs without Citus
		EXECUTE 'SELECT p.partmethod::text FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = $1'
			USING relation INTO method;
	END IF;
	IF @extschema@.simhash_is_citus_table(relation) AND NOT distributed OR method <> 'h' THEN
		RAISE EXCEPTION 'simhash_distributed_guard: relation "%" is a Citus table not distributed by hash', rel
			USING ERRCODE = 'feature_not_supported',
			HINT = 'The guard serves tables distributed by hash (create_distributed_table) and tables Citus does not know.';
	END IF;
	-- the lock rows: one a hashed block key, locked and never updated
	EXECUTE format('CREATE TABLE %s (key integer PRIMARY KEY)', registry);
	IF owner::oid <> current_user::regrole::oid THEN
		EXECUTE format('ALTER TABLE %s OWNER TO %I', registry, owner::text);
	END IF;
	IF distributed THEN
		EXECUTE format('SELECT create_distributed_table(%L, ''key'', shard_count => 1, colocate_with => ''none'')',
			registry);
		-- the shard map: on each shard of the table, a row naming that
		-- shard, so that one query runs the search on every shard
		EXECUTE 'SELECT pg_catalog.column_to_column_name(p.logicalrelid, p.partkey)'
			' FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = $1' USING relation INTO distcol;
		SELECT a.atttypid::regtype INTO disttype FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relation AND a.attname = distcol;
		shardmap := format('%I.%I', nsp, @extschema@.simhash_guard_name(nsp, rel, '_simhash_shards', 51));
		-- a primary key: Citus moves a shard by logical replication, which
		-- needs a replica identity on every table of its colocation group
		EXECUTE format('CREATE TABLE %s (%I %s PRIMARY KEY, shard text NOT NULL)', shardmap, distcol, disttype);
		IF owner::oid <> current_user::regrole::oid THEN
			EXECUTE format('ALTER TABLE %s OWNER TO %I', shardmap, owner::text);
		END IF;
		EXECUTE format('SELECT create_distributed_table(%L, %L, colocate_with => %L)', shardmap, distcol, qualified);
		SELECT pg_catalog.count(*)::integer INTO shards FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid = relation;
		EXECUTE format('INSERT INTO %1$s SELECT DISTINCT ON (x.s) x.v::%2$s, shard_name(%3$L, x.s) FROM'
			' (SELECT v, get_shard_id_for_distribution_column(%3$L, v::%2$s) AS s'
			' FROM pg_catalog.generate_series(1, %4$s) v) x ORDER BY x.s, x.v', shardmap, disttype, qualified, 1000 * shards);
		EXECUTE format('SELECT pg_catalog.count(*)::integer FROM %s', shardmap) INTO named;
		IF named <> shards THEN
			RAISE EXCEPTION 'simhash_distributed_guard: found values for % of the % shards of relation "%"', named, shards, rel
				USING ERRCODE = 'internal_error';
		END IF;
		-- the shards it names, which each write compares with the table's
		EXECUTE format('COMMENT ON TABLE %s IS %L', shardmap, @extschema@.simhash_guard_shard_ids(relation));
	END IF;
	EXECUTE format('INSERT INTO %s SELECT pg_catalog.generate_series(0, 16383)', registry);
--@else
--@if {version} = 1.9
	-- registry rows (id and fp set) and one lock row a key (id NULL)
	EXECUTE format('CREATE TABLE %s (key bigint NOT NULL, id bigint, fp %s, n bigint)', registry, fptype);
--@else
	-- registry rows (id and fp set, and sig under verification) and one
	-- lock row a key (id NULL)
	EXECUTE format('CREATE TABLE %s (key bigint NOT NULL, id bigint, fp %s, n bigint%s)', registry, fptype,
		CASE WHEN verify THEN ', sig @extschema@.minhash' ELSE '' END);
--@end
	EXECUTE format('CREATE UNIQUE INDEX ON %s (key) WHERE id IS NULL', registry);
	EXECUTE format('CREATE UNIQUE INDEX ON %s (key, id) WHERE id IS NOT NULL', registry);
	EXECUTE format('CREATE INDEX ON %s USING gin (fp) WHERE id IS NOT NULL', registry);
	-- Citus moves shards by logical replication: it needs a replica identity
	EXECUTE format('ALTER TABLE %s REPLICA IDENTITY FULL', registry);
	IF owner::oid <> current_user::regrole::oid THEN
		EXECUTE format('ALTER TABLE %s OWNER TO %I', registry, owner::text);
	END IF;
	IF distributed THEN
		EXECUTE format('SELECT pg_catalog.count(*)::integer FROM pg_catalog.pg_dist_shard WHERE logicalrelid = %s',
			relation::oid) INTO shards;
		EXECUTE format('SELECT create_distributed_table(%L, ''key'', shard_count => %s, colocate_with => ''none'')',
			registry, shards);
	END IF;
--@if {version} = 1.9
	EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b.key, t.%I, t.%I FROM %s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
		' WHERE t.%I IS NOT NULL', registry, id_column, fp_column, relation, fp_column, k, fp_column);
--@else
	IF verify THEN
		EXECUTE format('INSERT INTO %s (key, id, fp, sig) SELECT b.key, t.%I, t.%I, t.%I FROM %s t'
			' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
			' WHERE t.%I IS NOT NULL AND t.%I IS NOT NULL', registry, id_column, fp_column, sig_column, relation,
			fp_column, k, fp_column, sig_column);
	ELSE
		EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b.key, t.%I, t.%I FROM %s t'
			' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
			' WHERE t.%I IS NOT NULL', registry, id_column, fp_column, relation, fp_column, k, fp_column);
	END IF;
--@end

--@end
	EXECUTE format('CREATE VIEW %s WITH (security_invoker = true) AS SELECT t.* FROM %s t, (SELECT) AS simhash_guard',
		view, relation);
	-- the view's trigger writes as the table's owner only for a view of
	-- that owner (simhash_guard_view_trigger)
	IF owner::oid <> current_user::regrole::oid THEN
		EXECUTE format('ALTER VIEW %s OWNER TO %I', view, owner::text);
	END IF;
	-- the table's defaults (Citus does not propagate a view's defaults: they
	-- are set on this node only)
--@include parts/guard-view-defaults.sql
--@if {version} != 1.9
--@if {version} = 1.12
	-- the trigger arguments: ten, the signature column, the threshold and
	-- the shard map empty when there is none
	args := pg_catalog.jsonb_build_array(qualified, registry, id_column, fp_column, fptype, k, lower(action),
		COALESCE(sig_column, ''), COALESCE(threshold::text, ''), COALESCE(shardmap, ''));
	SELECT pg_catalog.string_agg(pg_catalog.quote_literal(a), ', ') INTO viewargs
		FROM pg_catalog.jsonb_array_elements_text(args) a;
--@else
	-- the trigger arguments: seven without verification (as 1.9's), nine with
	viewargs := format('%L, %L, %L, %L, %L, %L, %L', qualified, registry, id_column, fp_column, fptype, k, lower(action));
--@end
	tableargs := format('%L, %L, %L, %L, %L, %L', registry, id_column, fp_column, fptype, k, view);
	IF verify THEN
--@if {version} != 1.12
		viewargs := viewargs || format(', %L, %L', sig_column, threshold::text);
--@end
		tableargs := tableargs || format(', %L', sig_column);
	END IF;
--@end
	EXECUTE format('COMMENT ON TABLE %s IS %L', registry, 'simhash_distributed_guard ' || pg_catalog.jsonb_build_object(
		'table', qualified, 'view', view,
--@if {version} = 1.9
		'args', pg_catalog.jsonb_build_array(qualified, registry, id_column, fp_column, fptype, k, lower(action)))::text);
--@else
--@if {version} = 1.12
		'args', args)::text);
--@else
		'args', pg_catalog.jsonb_build_array(qualified, registry, id_column, fp_column, fptype, k, lower(action))
			OPERATOR(pg_catalog.||) CASE WHEN verify
				THEN pg_catalog.jsonb_build_array(sig_column, threshold::text) ELSE '[]'::jsonb END)::text);
--@end
--@end
	EXECUTE format('CREATE TRIGGER simhash_guard INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
--@if {version} = 1.9
		' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_view_trigger(%L, %L, %L, %L, %L, %L, %L)',
		view, qualified, registry, id_column, fp_column, fptype, k, lower(action));
--@else
		' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_view_trigger(%s)', view, viewargs);
--@end
	IF NOT @extschema@.simhash_is_citus_table(relation) THEN
--@if {version} = 1.12
		-- writes that bypass the view: an INSERT, or an UPDATE of what the
		-- guard checks, fails; DELETE and TRUNCATE leave nothing to keep
		EXECUTE format('CREATE TRIGGER simhash_guard AFTER INSERT OR UPDATE ON %s'
			' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%s)', relation, tableargs);
	END IF;
--@else
		EXECUTE format('CREATE TRIGGER simhash_guard AFTER INSERT OR UPDATE OR DELETE ON %s'
--@if {version} = 1.9
			' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%L, %L, %L, %L, %L, %L)',
			relation, registry, id_column, fp_column, fptype, k, view);
--@else
			' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%s)', relation, tableargs);
--@end
		EXECUTE format('CREATE TRIGGER simhash_guard_truncate AFTER TRUNCATE ON %s'
--@if {version} = 1.9
			' FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%L, %L, %L, %L, %L, %L)',
			relation, registry, id_column, fp_column, fptype, k, view);
--@else
			' FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%s)', relation, tableargs);
--@end
	END IF;
--@end
	RETURN view::regclass;
END
$$;
--@if {version} = 1.9
--@describe sets up race-free insert-time rejection of rows within k bits for a (Citus distributed) table: a registry of its fingerprints and lock rows distributed by block key, filled from its rows, and the view <table>_guarded whose INSERT, UPDATE and DELETE go through them as the table owner
--@else
--@if {version} = 1.12
--@describe sets up race-free insert-time rejection of rows within k bits (and, with sig_column and threshold, at least threshold alike by minhash_jaccard) for a table, Citus distributed or not: lock rows of hashed block keys, a shard map on a distributed table, and the view <table>_guarded whose INSERT, UPDATE and DELETE lock the new row's keys and search the table through its own index, as the table owner
--@else
--@describe sets up the guard of simhash_distributed_guard with verification: a row is a near-duplicate when an existing row is within k bits and minhash_jaccard of their signatures (the minhash column sig_column) is at least threshold
--@end
--@end
