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
--@language sql STABLE STRICT PARALLEL SAFE
	SELECT pg_catalog.array_agg(a.attname ORDER BY a.attnum)
	FROM pg_catalog.pg_attribute a
	WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
		AND a.attgenerated = '' AND newrow OPERATOR(pg_catalog.?) a.attname::text;
END;
--@describe the columns a write through a guarded view sets: those of the row that are neither generated nor dropped

-- One write through a guarded view, run by simhash_guard_view_trigger as
-- the table's owner.  op is INSERT, UPDATE or DELETE; newrow and oldrow
-- are the view's NEW and OLD rows.  An update or delete finds the row by
-- its id (unique and NOT NULL, checked at set-up) and drops its registry
-- rows; an insert or update then locks the new fingerprint's block keys in
-- ascending order (one statement a key, on the key's lock row), searches
-- the registry rows of those keys, and registers the row unless a row
-- within k is there.  Returns the row as stored, or the near-duplicate
-- found (conflict_id): the trigger then undoes the write.
--@include parts/guard-write.sql version=1.9

-- A free relation name in namespace nsp: base followed by suffix, base cut
-- (by whole characters) so that the name fits in room bytes, and a number
-- added before the suffix while the name is taken.  A distributed table's
-- name keeps 12 bytes free for Citus's shard suffix ("_102008"): with a
-- shortened shard name, Citus deadlocks on the table it just created.
CREATE FUNCTION @extschema@.simhash_guard_name(nsp name, base text, suffix text, room integer)
RETURNS name
--@language plpgsql STABLE STRICT PARALLEL SAFE
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
--@describe a relation name free in the schema: base and suffix, base cut to fit room bytes, a number before the suffix while the name is taken

-- The guard of a table, if it has one made by 1.9: its view (NULL if
-- dropped), its registry and the arguments of the view's trigger.  Found
-- through the registry's comment, which set-up writes, so that a guard
-- whose view or trigger was lost is still found.
CREATE FUNCTION @extschema@.simhash_guard_of(relation regclass,
	OUT view regclass, OUT registry regclass, OUT args text[])
RETURNS record
--@language sql STABLE STRICT PARALLEL SAFE
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
--@describe the guard of a table made by simhash_distributed_guard since 1.9: its view (NULL if dropped), its registry and its trigger's arguments; NULLs when it has none

-- The trigger of a guarded table that is not distributed: the writes that
-- bypass the view.  TRUNCATE empties the registry too, and DELETE removes
-- the row's registry rows (both keep the guard exact); INSERT, and an
-- UPDATE that changes the id or the fingerprint, fail (55000): they would
-- add a fingerprint no one checked.  Writes made by the view's trigger
-- (a nested trigger level) pass.  Arguments: the registry, the id and
-- fingerprint columns, the fingerprint type, k, the view.
--@include parts/guard-table-trigger.sql version=1.9

-- Whether id_column of relation names one row: NOT NULL, with a unique
-- index of that column alone (no predicate, no expression).
CREATE FUNCTION @extschema@.simhash_guard_id_is_key(relation regclass, id_column name)
RETURNS boolean
--@language sql STABLE STRICT PARALLEL SAFE
	SELECT EXISTS (SELECT FROM pg_catalog.pg_attribute a WHERE a.attrelid = relation
			AND a.attname = id_column AND a.attnotnull)
		AND EXISTS (SELECT FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a
			ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
			WHERE i.indrelid = relation AND i.indisunique AND i.indnkeyatts = 1
				AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = id_column);
END;
--@describe whether the column names one row of the relation: NOT NULL, with a one-column unique index without predicate or expression

-- Whether Citus knows the relation (distributed, reference or Citus local
-- table): Citus takes no row triggers on those without
-- citus.enable_unsafe_triggers.
--@include parts/citus-catalog.sql name=simhash_is_citus_table
--@describe whether Citus knows the relation (a distributed, reference or Citus local table); false when Citus is not installed

-- Sets up the guard of relation (replaces 1.8's): checks that the caller
-- owns the table and that the id is unique and NOT NULL, then makes the
-- registry (distributed by block key when relation is distributed), fills
-- it from the rows already there, and makes the view that takes the
-- writes, with the table's defaults.  The view joins an empty-column
-- subquery so that it is not automatically updatable: if its triggers are
-- ever lost (Citus's undistribute_table and alter_distributed_table
-- recreate views without them), a write through it fails instead of
-- reaching the table unchecked.
--@include parts/guard-setup.sql version=1.9

-- Whether the guard of relation is intact, one row a check: the view and
-- its trigger, that the view cannot be written without it, the table's own
-- trigger (a table that is not distributed), the registry's replica
-- identity, the id still unique and NOT NULL, and the registry equal to the
-- table (each row with a fingerprint registered under exactly its keys,
-- nothing else).  The last check reads the whole table and registry.
--@include parts/guard-check.sql version=1.9

-- Drops the guard of relation: its view, its registry and the table's
-- triggers.  The table and its rows stay.
CREATE FUNCTION @extschema@.simhash_guard_drop(relation regclass)
RETURNS void
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
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
--@describe drops the near-duplicate guard of the table made by simhash_distributed_guard: its view, its registry and the table's triggers; the table stays
