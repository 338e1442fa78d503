-- 1.9: the guard of simhash_distributed_guard, hardened.  The view is the
-- application's only door: its trigger (src/guard/guard.c) writes as the table's
-- owner, the registry is the owner's alone, the caller learns of another
-- row only what it may read, and reading through the view is the caller's
-- (security_invoker).  Registry and lock rows are one table, so no shard
-- move can separate a key's lock row from its registry rows.  Guards made
-- by 1.8 keep working as before; simhash_guard_check tells them apart.

--@functions guard

-- The columns of the table that a write through the view sets: every column
-- that is neither generated nor dropped and that the row has.
CREATE FUNCTION @extschema@.simhash_guard_columns(relation regclass, newrow jsonb)
RETURNS name[]
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT pg_catalog.array_agg(a.attname ORDER BY a.attnum)
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		AND a.attgenerated = '' AND newrow OPERATOR(pg_catalog.?) a.attname::text;
END;
COMMENT ON FUNCTION @extschema@.simhash_guard_columns(regclass, jsonb) IS
	'the columns a write through a guarded view sets: those of the row that are neither generated nor dropped';

-- One write through a guarded view, run by simhash_guard_view_trigger as
-- the table's owner.  op is INSERT, UPDATE or DELETE; newrow and oldrow
-- are the view's NEW and OLD rows.  An update or delete finds the row by
-- its id (unique and NOT NULL, checked at set-up) and drops its registry
-- rows; an insert or update then locks the new fingerprint's block keys in
-- ascending order (one statement a key, on the key's lock row), searches
-- the registry rows of those keys, and registers the row unless a row
-- within k is there.  Returns the row as stored, or the near-duplicate
-- found (conflict_id): the trigger then undoes the write.
CREATE FUNCTION @extschema@.simhash_guard_write(op text, newrow jsonb, oldrow jsonb,
	relation text, registry text, id_column name, fp_column name, fptype text,
	k text, action text,
	OUT stored jsonb, OUT conflict_id bigint, OUT conflict_fp text, OUT new_fp text,
	OUT distance integer)
RETURNS record
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	rel regclass;
	reg regclass;
	t regtype;
	radius integer;
	oldid bigint;
	oldfp text;
	rid bigint;
	keys bigint[];
	key bigint;
	cols text;
	dup record;
	found_rows bigint;
BEGIN
	IF op IS NULL OR relation IS NULL OR registry IS NULL OR id_column IS NULL OR fp_column IS NULL
		OR fptype IS NULL OR k IS NULL OR op NOT IN ('INSERT', 'UPDATE', 'DELETE')
		OR (op <> 'INSERT' AND oldrow IS NULL) OR (op <> 'DELETE' AND newrow IS NULL) THEN
		RAISE EXCEPTION 'simhash_guard_write: called with missing or wrong arguments'
			USING ERRCODE = 'invalid_parameter_value',
			HINT = 'It is called by the trigger of a view made by simhash_distributed_guard.';
	END IF;
	rel := relation::regclass;
	reg := registry::regclass;
	t := fptype::regtype;
	radius := k::integer;
	IF op IN ('UPDATE', 'DELETE') THEN
		oldid := (oldrow OPERATOR(pg_catalog.->>) id_column::text)::bigint;
		EXECUTE format('SELECT t.%I::text FROM %s t WHERE t.%I OPERATOR(pg_catalog.=) $1 FOR UPDATE',
			fp_column, rel, id_column) USING oldid INTO oldfp;
		GET DIAGNOSTICS found_rows = ROW_COUNT;
		IF found_rows = 0 THEN
			RETURN;				-- gone meanwhile: nothing written
		END IF;
		IF oldfp IS NOT NULL THEN
			EXECUTE format('DELETE FROM %s WHERE key OPERATOR(pg_catalog.=) ANY (@extschema@.simhash_blocks($1::%s, %s))'
				' AND id OPERATOR(pg_catalog.=) $2', reg, t, radius) USING oldfp, oldid;
		END IF;
	END IF;
	IF op = 'DELETE' THEN
		EXECUTE format('DELETE FROM %s AS t WHERE t.%I OPERATOR(pg_catalog.=) $1 RETURNING pg_catalog.to_jsonb(t.*)',
			rel, id_column) USING oldid INTO stored;
		RETURN;
	END IF;

	IF op = 'INSERT' THEN
		SELECT pg_catalog.string_agg(pg_catalog.quote_ident(c), ', ') INTO cols
			FROM pg_catalog.unnest(@extschema@.simhash_guard_columns(rel, newrow)) c;
		EXECUTE format('INSERT INTO %1$s AS t (%2$s) SELECT %2$s FROM pg_catalog.jsonb_populate_record(NULL::%1$s, $1)'
			' RETURNING t.%3$I::bigint, t.%4$I::text, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column) USING newrow INTO rid, new_fp, stored;
	ELSE
		SELECT pg_catalog.string_agg(format('%1$I = (pg_catalog.jsonb_populate_record(NULL::%2$s, $1)).%1$I', c, rel), ', ')
			INTO cols FROM pg_catalog.unnest(@extschema@.simhash_guard_columns(rel, newrow)) c;
		EXECUTE format('UPDATE %1$s AS t SET %2$s WHERE t.%3$I OPERATOR(pg_catalog.=) $2'
			' RETURNING t.%3$I::bigint, t.%4$I::text, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column) USING newrow, oldid INTO rid, new_fp, stored;
	END IF;
	IF new_fp IS NULL THEN
		RETURN;					-- a NULL fingerprint never conflicts
	END IF;

	EXECUTE format('SELECT pg_catalog.array_agg(b ORDER BY b) FROM pg_catalog.unnest(@extschema@.simhash_blocks($1::%s, %s)) b',
		t, radius) USING new_fp INTO keys;
	FOREACH key IN ARRAY keys LOOP
		EXECUTE format('INSERT INTO %s AS l (key, n) VALUES ($1, 1)'
			' ON CONFLICT (key) WHERE id IS NULL DO UPDATE SET n = l.n OPERATOR(pg_catalog.+) 1', reg) USING key;
	END LOOP;
	EXECUTE format('SELECT r.id, r.fp::text AS fp, r.fp OPERATOR(@extschema@.<->) $2::%1$s AS d FROM %2$s r'
		' WHERE r.key OPERATOR(pg_catalog.=) ANY ($1) AND r.id IS NOT NULL'
		' AND r.fp OPERATOR(@extschema@.<->) $2::%1$s OPERATOR(pg_catalog.<=) %3$s LIMIT 1', t, reg, radius)
		USING keys, new_fp INTO dup;
	IF dup.id IS NOT NULL THEN
		conflict_id := dup.id;
		conflict_fp := dup.fp;
		distance := dup.d;
		stored := NULL;
		RETURN;
	END IF;
	-- one multi-row VALUES: Citus routes it shard by shard (an INSERT ...
	-- SELECT would go through the coordinator and lose 40001 to XX000)
	EXECUTE format('INSERT INTO %s (key, id, fp) VALUES %s', reg,
		(SELECT pg_catalog.string_agg(format('(%s, $1, $2::%s)', b, t), ', ') FROM pg_catalog.unnest(keys) b))
		USING rid, new_fp;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_write(text, jsonb, jsonb, text, text, name, name, text, text, text) IS
	'one write through a guarded view, as the table owner: the row inserted, updated or deleted, its registry rows kept in step, and the near-duplicate found under its block keys (conflict_id), if any';

-- A free relation name in namespace nsp: base followed by suffix, base cut
-- (by whole characters) so that the name fits in room bytes, and a number
-- added before the suffix while the name is taken.  A distributed table's
-- name keeps 12 bytes free for Citus's shard suffix ("_102008"): with a
-- shortened shard name, Citus deadlocks on the table it just created.
CREATE FUNCTION @extschema@.simhash_guard_name(nsp name, base text, suffix text, room integer)
RETURNS name
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	n integer := 0;
	tail text;
	head text;
BEGIN
	LOOP
		tail := CASE WHEN n = 0 THEN suffix ELSE n::text || suffix END;
		head := base;
		WHILE octet_length(head || tail) > room LOOP
			head := left(head, -1);
		END LOOP;
		IF NOT EXISTS (SELECT FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace
				WHERE s.nspname = nsp AND c.relname = head || tail)
			AND NOT EXISTS (SELECT FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace s ON s.oid = y.typnamespace
				WHERE s.nspname = nsp AND y.typname = head || tail) THEN
			RETURN head || tail;
		END IF;
		n := n + 1;
	END LOOP;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_name(name, text, text, integer) IS
	'a relation name free in the schema: base and suffix, base cut to fit room bytes, a number before the suffix while the name is taken';

-- The guard of a table, if it has one made by 1.9: its view (NULL if
-- dropped), its registry and the arguments of the view's trigger.  Found
-- through the registry's comment, which set-up writes, so that a guard
-- whose view or trigger was lost is still found.
CREATE FUNCTION @extschema@.simhash_guard_of(relation regclass,
	OUT view regclass, OUT registry regclass, OUT args text[])
RETURNS record
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT pg_catalog.to_regclass(g.j OPERATOR(pg_catalog.->>) 'view'), g.objoid::regclass,
		ARRAY(SELECT pg_catalog.jsonb_array_elements_text(g.j OPERATOR(pg_catalog.->) 'args'))
	FROM (SELECT d.objoid, pg_catalog.substr(d.description, 27)::jsonb AS j
		FROM pg_catalog.pg_description d
		WHERE d.classoid = 'pg_catalog.pg_class'::pg_catalog.regclass AND d.objsubid = 0
			AND d.description LIKE 'simhash_distributed_guard {%') g
	WHERE g.j OPERATOR(pg_catalog.->>) 'table' = (SELECT format('%I.%I', s.nspname, c.relname)
		FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace s ON s.oid = c.relnamespace
		WHERE c.oid = relation)
	LIMIT 1;
END;
COMMENT ON FUNCTION @extschema@.simhash_guard_of(regclass) IS
	'the guard of a table made by simhash_distributed_guard since 1.9: its view (NULL if dropped), its registry and its trigger''s arguments; NULLs when it has none';

-- The trigger of a guarded table that is not distributed: the writes that
-- bypass the view.  TRUNCATE empties the registry too, and DELETE removes
-- the row's registry rows (both keep the guard exact); INSERT, and an
-- UPDATE that changes the id or the fingerprint, fail (55000): they would
-- add a fingerprint no one checked.  Writes made by the view's trigger
-- (a nested trigger level) pass.  Arguments: the registry, the id and
-- fingerprint columns, the fingerprint type, k, the view.
CREATE FUNCTION @extschema@.simhash_guard_table_trigger()
RETURNS trigger
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
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
		AND oldrow OPERATOR(pg_catalog.->) TG_ARGV[2] IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[2] THEN
		RETURN NULL;			-- neither the id nor the fingerprint changed
	END IF;
	RAISE EXCEPTION '% of relation "%" bypasses its near-duplicate guard', TG_OP, TG_TABLE_NAME
		USING ERRCODE = 'object_not_in_prerequisite_state',
		DETAIL = format('Rows whose %s or %s change are written through the view %s.',
			TG_ARGV[1], TG_ARGV[2], TG_ARGV[5]),
		HINT = 'Write through the view, or drop the guard first (doc/citus.md).';
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_table_trigger() IS
	'the trigger a guard puts on a table that is not distributed: TRUNCATE and DELETE keep the registry in step; INSERT, and an UPDATE of the id or fingerprint, that bypass the view fail with 55000';

-- Whether id_column of relation names one row: NOT NULL, with a unique
-- index of that column alone (no predicate, no expression).
CREATE FUNCTION @extschema@.simhash_guard_id_is_key(relation regclass, id_column name)
RETURNS boolean
LANGUAGE sql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = relation
			AND a.attname = id_column AND a.attnotnull)
		AND EXISTS (SELECT FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a
			ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
			WHERE i.indrelid = relation AND i.indisunique AND i.indnkeyatts = 1
				AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = id_column);
END;
COMMENT ON FUNCTION @extschema@.simhash_guard_id_is_key(regclass, name) IS
	'whether the column names one row of the relation: NOT NULL, with a one-column unique index without predicate or expression';

-- Whether Citus knows the relation (distributed, reference or Citus local
-- table): Citus takes no row triggers on those without
-- citus.enable_unsafe_triggers.
CREATE FUNCTION @extschema@.simhash_is_citus_table(relation regclass)
RETURNS boolean
LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	found boolean;
BEGIN
	IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
		RETURN false;
	END IF;
	EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
		INTO found USING relation;
	RETURN found;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_is_citus_table(regclass) IS
	'whether Citus knows the relation (a distributed, reference or Citus local table); false when Citus is not installed';

-- Sets up the guard of relation (replaces 1.8's): checks that the caller
-- owns the table and that the id is unique and NOT NULL, then makes the
-- registry (distributed by block key when relation is distributed), fills
-- it from the rows already there, and makes the view that takes the
-- writes, with the table's defaults.  The view joins an empty-column
-- subquery so that it is not automatically updatable: if its triggers are
-- ever lost (Citus's undistribute_table and alter_distributed_table
-- recreate views without them), a write through it fails instead of
-- reaching the table unchecked.
CREATE OR REPLACE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text DEFAULT 'reject')
RETURNS regclass
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	nsp name;
	rel name;
	owner regrole;
	fptype regtype;
	shards integer;
	distributed boolean;
	qualified text;
	registry text;
	view text;
	existing regclass;
	d record;
BEGIN
	SELECT n.nspname, c.relname, c.relowner::regrole INTO nsp, rel, owner FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = relation;
	IF rel IS NULL THEN
		RAISE EXCEPTION 'relation with OID % does not exist', relation::oid USING ERRCODE = 'undefined_table';
	END IF;
	fptype := @extschema@.simhash_check_columns(relation, id_column, fp_column);
	IF lower(action) NOT IN ('reject', 'skip') THEN
		RAISE EXCEPTION 'simhash_distributed_guard: action must be "reject" or "skip", not "%"', action
			USING ERRCODE = 'invalid_parameter_value';
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
	registry := format('%I.%I', nsp, @extschema@.simhash_guard_name(nsp, rel, '_simhash_registry', 51));
	view := format('%I.%I', nsp, @extschema@.simhash_guard_name(nsp, rel, '_guarded', 63));

	-- registry rows (id and fp set) and one lock row a key (id NULL)
	EXECUTE format('CREATE TABLE %s (key bigint NOT NULL, id bigint, fp %s, n bigint)', registry, fptype);
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
	EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b.key, t.%I, t.%I FROM %s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
		' WHERE t.%I IS NOT NULL', registry, id_column, fp_column, relation, fp_column, k, fp_column);

	EXECUTE format('CREATE VIEW %s WITH (security_invoker = true) AS SELECT t.* FROM %s t, (SELECT) AS simhash_guard',
		view, relation);
	-- the view's trigger writes as the table's owner only for a view of
	-- that owner (simhash_guard_view_trigger)
	IF owner::oid <> current_user::regrole::oid THEN
		EXECUTE format('ALTER VIEW %s OWNER TO %I', view, owner::text);
	END IF;
	-- the table's defaults (Citus does not propagate a view's defaults: they
	-- are set on this node only)
	FOR d IN SELECT a.attname, pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) AS expr
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_attrdef ad
			ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
		WHERE a.attrelid = relation AND a.attgenerated = '' AND NOT a.attisdropped
	LOOP
		IF distributed THEN
			PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
		END IF;
		EXECUTE format('ALTER VIEW %s ALTER COLUMN %I SET DEFAULT %s', view, d.attname, d.expr);
		IF distributed THEN
			PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'on', true);
		END IF;
	END LOOP;
	EXECUTE format('COMMENT ON TABLE %s IS %L', registry, 'simhash_distributed_guard ' || pg_catalog.jsonb_build_object(
		'table', qualified, 'view', view,
		'args', pg_catalog.jsonb_build_array(qualified, registry, id_column, fp_column, fptype, k, lower(action)))::text);
	EXECUTE format('CREATE TRIGGER simhash_guard INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
		' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_view_trigger(%L, %L, %L, %L, %L, %L, %L)',
		view, qualified, registry, id_column, fp_column, fptype, k, lower(action));
	IF NOT @extschema@.simhash_is_citus_table(relation) THEN
		EXECUTE format('CREATE TRIGGER simhash_guard AFTER INSERT OR UPDATE OR DELETE ON %s'
			' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%L, %L, %L, %L, %L, %L)',
			relation, registry, id_column, fp_column, fptype, k, view);
		EXECUTE format('CREATE TRIGGER simhash_guard_truncate AFTER TRUNCATE ON %s'
			' FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%L, %L, %L, %L, %L, %L)',
			relation, registry, id_column, fp_column, fptype, k, view);
	END IF;
	RETURN view::regclass;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_distributed_guard(regclass, name, name, integer, text) IS
	'sets up race-free insert-time rejection of rows within k bits for a (Citus distributed) table: a registry of its fingerprints and lock rows distributed by block key, filled from its rows, and the view <table>_guarded whose INSERT, UPDATE and DELETE go through them as the table owner';

-- Whether the guard of relation is intact, one row a check: the view and
-- its trigger, that the view cannot be written without it, the table's own
-- trigger (a table that is not distributed), the registry's replica
-- identity, the id still unique and NOT NULL, and the registry equal to the
-- table (each row with a fingerprint registered under exactly its keys,
-- nothing else).  The last check reads the whole table and registry.
CREATE FUNCTION @extschema@.simhash_guard_check(relation regclass)
RETURNS TABLE (item text, ok boolean, detail text)
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	missing bigint;
	extra bigint;
	updatable integer;
BEGIN
	SELECT * INTO g FROM @extschema@.simhash_guard_of(relation);
	IF g.view IS NULL THEN
		item := 'guard'; ok := false;
		detail := CASE WHEN pg_catalog.to_regclass(format('%s_simhash_locks', relation::text)) IS NOT NULL
			THEN 'a guard made by 1.8: drop it and set it up again for the checks and protections of 1.9'
			ELSE 'no view made by simhash_distributed_guard writes to this table' END;
		RETURN NEXT;
		RETURN;
	END IF;
	item := 'guard'; ok := g.view IS NOT NULL;
	detail := format('view %s, registry %s', COALESCE(g.view::text, 'dropped'), g.registry);
	RETURN NEXT;
	IF g.view IS NULL THEN
		RETURN;
	END IF;
	item := 'view trigger';
	ok := EXISTS (SELECT FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = g.view AND tg.tgenabled <> 'D'
		AND tg.tgfoid = '@extschema@.simhash_guard_view_trigger()'::pg_catalog.regprocedure
		AND tg.tgtype & (4 | 8 | 16) = (4 | 8 | 16));
	detail := CASE WHEN ok THEN 'INSTEAD OF INSERT OR UPDATE OR DELETE, enabled' ELSE 'missing or disabled' END;
	RETURN NEXT;
	updatable := pg_catalog.pg_relation_is_updatable(g.view, false);
	item := 'view not writable without its trigger'; ok := updatable = 0;
	detail := CASE WHEN ok THEN 'yes' ELSE 'the view is automatically updatable: a write could bypass the guard' END;
	RETURN NEXT;
	IF NOT @extschema@.simhash_is_citus_table(relation) THEN
		item := 'table trigger';
		ok := (SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = relation
			AND tg.tgenabled <> 'D'
			AND tg.tgfoid = '@extschema@.simhash_guard_table_trigger()'::pg_catalog.regprocedure) = 2;
		detail := CASE WHEN ok THEN 'row and TRUNCATE triggers enabled' ELSE 'missing or disabled: writes to the table bypass the guard' END;
		RETURN NEXT;
	END IF;
	item := 'id unique and NOT NULL';
	ok := @extschema@.simhash_guard_id_is_key(relation, g.args[3]);
	detail := format('column %s', g.args[3]);
	RETURN NEXT;
	item := 'registry replica identity';
	ok := (SELECT c.relreplident FROM pg_catalog.pg_class c WHERE c.oid = g.registry) = 'f';
	detail := CASE WHEN ok THEN 'FULL (shard moves keep it)' ELSE 'not FULL: Citus cannot move its shards' END;
	RETURN NEXT;
	EXECUTE format('WITH want AS (SELECT b.key, t.%1$I::bigint AS id, t.%2$I AS fp FROM %3$s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%2$I, %4$s)) b(key) WHERE t.%2$I IS NOT NULL),'
		' have AS (SELECT key, id, fp FROM %5$s WHERE id IS NOT NULL)'
		' SELECT (SELECT pg_catalog.count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM have) m),'
		' (SELECT pg_catalog.count(*) FROM (SELECT * FROM have EXCEPT ALL SELECT * FROM want) x)',
		g.args[3], g.args[4], relation, g.args[6], g.registry) INTO missing, extra;
	item := 'registry equals table'; ok := missing = 0 AND extra = 0;
	detail := format('%s registry rows missing, %s stale', missing, extra);
	RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_check(regclass) IS
	'whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, registry replica identity, registry equal to the table)';

-- Drops the guard of relation: its view, its registry and the table's
-- triggers.  The table and its rows stay.
CREATE FUNCTION @extschema@.simhash_guard_drop(relation regclass)
RETURNS void
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
BEGIN
	SELECT * INTO g FROM @extschema@.simhash_guard_of(relation);
	IF g.registry IS NULL THEN
		RAISE EXCEPTION 'relation "%" has no near-duplicate guard made by simhash_distributed_guard', relation
			USING ERRCODE = 'undefined_object';
	END IF;
	IF NOT pg_catalog.pg_has_role(current_user, (SELECT c.relowner FROM pg_catalog.pg_class c WHERE c.oid = relation), 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of table %', relation USING ERRCODE = 'insufficient_privilege';
	END IF;
	IF g.view IS NOT NULL THEN
		EXECUTE format('DROP VIEW %s', g.view);
	END IF;
	IF EXISTS (SELECT FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = relation AND tg.tgname = 'simhash_guard'
			AND tg.tgfoid = '@extschema@.simhash_guard_table_trigger()'::pg_catalog.regprocedure) THEN
		EXECUTE format('DROP TRIGGER simhash_guard ON %s', relation);
	END IF;
	IF EXISTS (SELECT FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = relation AND tg.tgname = 'simhash_guard_truncate'
			AND tg.tgfoid = '@extschema@.simhash_guard_table_trigger()'::pg_catalog.regprocedure) THEN
		EXECUTE format('DROP TRIGGER simhash_guard_truncate ON %s', relation);
	END IF;
	EXECUTE format('DROP TABLE %s', g.registry);
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_drop(regclass) IS
	'drops the near-duplicate guard of the table made by simhash_distributed_guard: its view, its registry and the table''s triggers; the table stays';
