-- 1.10: the verification stage in the guard of simhash_distributed_guard.
-- A guard made with a signature column and a threshold registers each
-- row's signature beside its fingerprint, and a new row conflicts only
-- with a registry row within k bits whose signature is at least threshold
-- alike by minhash_jaccard: the check reads the registry rows of the block
-- keys under their lock rows, as before, so the race-freedom argument is
-- unchanged.  Its view trigger has nine arguments (the signature column
-- and the threshold last), its table trigger seven (the signature column
-- last); guards made without verification, and by 1.8 and 1.9, keep their
-- seven and six and work as before.

-- One write through a guarded view (see the ten-argument form, now a call
-- of this one): sig_column and threshold (text, as the trigger holds it)
-- both NULL for a guard without verification.  A row whose fingerprint or
-- signature is NULL is written and not registered: it conflicts with none.
CREATE FUNCTION @extschema@.simhash_guard_write(op text, newrow jsonb, oldrow jsonb,
	relation text, registry text, id_column name, fp_column name, fptype text,
	k text, action text, sig_column name, threshold text,
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
	verify boolean := sig_column IS NOT NULL;
	alike double precision;
	oldid bigint;
	oldfp text;
	rid bigint;
	new_sig text;
	sigcol text := 'NULL::text';
	keys bigint[];
	key bigint;
	cols text;
	dup record;
	found_rows bigint;
BEGIN
	IF op IS NULL OR relation IS NULL OR registry IS NULL OR id_column IS NULL OR fp_column IS NULL
		OR fptype IS NULL OR k IS NULL OR op NOT IN ('INSERT', 'UPDATE', 'DELETE')
		OR (op <> 'INSERT' AND oldrow IS NULL) OR (op <> 'DELETE' AND newrow IS NULL)
		OR (sig_column IS NULL) <> (threshold IS NULL) THEN
		RAISE EXCEPTION 'simhash_guard_write: called with missing or wrong arguments'
			USING ERRCODE = 'invalid_parameter_value',
			HINT = 'It is called by the trigger of a view made by simhash_distributed_guard.';
	END IF;
	rel := relation::regclass;
	reg := registry::regclass;
	t := fptype::regtype;
	radius := k::integer;
	IF verify THEN
		alike := threshold::double precision;
		sigcol := format('t.%I::text', sig_column);
	END IF;
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
			' RETURNING t.%3$I::bigint, t.%4$I::text, %5$s, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column, sigcol) USING newrow INTO rid, new_fp, new_sig, stored;
	ELSE
		SELECT pg_catalog.string_agg(format('%1$I = (pg_catalog.jsonb_populate_record(NULL::%2$s, $1)).%1$I', c, rel), ', ')
			INTO cols FROM pg_catalog.unnest(@extschema@.simhash_guard_columns(rel, newrow)) c;
		EXECUTE format('UPDATE %1$s AS t SET %2$s WHERE t.%3$I OPERATOR(pg_catalog.=) $2'
			' RETURNING t.%3$I::bigint, t.%4$I::text, %5$s, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column, sigcol) USING newrow, oldid INTO rid, new_fp, new_sig, stored;
	END IF;
	IF new_fp IS NULL OR (verify AND new_sig IS NULL) THEN
		RETURN;					-- a NULL fingerprint or signature never conflicts
	END IF;

	EXECUTE format('SELECT pg_catalog.array_agg(b ORDER BY b) FROM pg_catalog.unnest(@extschema@.simhash_blocks($1::%s, %s)) b',
		t, radius) USING new_fp INTO keys;
	FOREACH key IN ARRAY keys LOOP
		EXECUTE format('INSERT INTO %s AS l (key, n) VALUES ($1, 1)'
			' ON CONFLICT (key) WHERE id IS NULL DO UPDATE SET n = l.n OPERATOR(pg_catalog.+) 1', reg) USING key;
	END LOOP;
	-- the signatures are the registry's: the same rows, under the same locks
	EXECUTE format('SELECT r.id, r.fp::text AS fp, r.fp OPERATOR(@extschema@.<->) $2::%1$s AS d FROM %2$s r'
		' WHERE r.key OPERATOR(pg_catalog.=) ANY ($1) AND r.id IS NOT NULL'
		' AND r.fp OPERATOR(@extschema@.<->) $2::%1$s OPERATOR(pg_catalog.<=) %3$s%4$s LIMIT 1', t, reg, radius,
		CASE WHEN verify THEN ' AND @extschema@.minhash_jaccard(r.sig, $3::@extschema@.minhash)'
			' OPERATOR(pg_catalog.>=) $4' ELSE '' END)
		USING keys, new_fp, new_sig, alike INTO dup;
	IF dup.id IS NOT NULL THEN
		conflict_id := dup.id;
		conflict_fp := dup.fp;
		distance := dup.d;
		stored := NULL;
		RETURN;
	END IF;
	-- one multi-row VALUES: Citus routes it shard by shard (an INSERT ...
	-- SELECT would go through the coordinator and lose 40001 to XX000)
	EXECUTE format('INSERT INTO %s (key, id, fp%s) VALUES %s', reg,
		CASE WHEN verify THEN ', sig' ELSE '' END,
		(SELECT pg_catalog.string_agg(format('(%s, $1, $2::%s%s)', b, t,
			CASE WHEN verify THEN ', $3::@extschema@.minhash' ELSE '' END), ', ')
			FROM pg_catalog.unnest(keys) b))
		USING rid, new_fp, new_sig;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_write(text, jsonb, jsonb, text, text, name, name, text, text, text, name, text) IS
	'one write through a guarded view, as the table owner: the row written, its registry rows (with signatures, under verification) kept in step, and the near-duplicate found under its block keys (within k, and at least threshold alike by minhash_jaccard under verification), if any';

-- The form the view triggers of guards without verification call (one
-- body for both)
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_write(op text, newrow jsonb, oldrow jsonb,
	relation text, registry text, id_column name, fp_column name, fptype text,
	k text, action text,
	OUT stored jsonb, OUT conflict_id bigint, OUT conflict_fp text, OUT new_fp text,
	OUT distance integer)
RETURNS record
LANGUAGE sql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT w.stored, w.conflict_id, w.conflict_fp, w.new_fp, w.distance
	FROM @extschema@.simhash_guard_write(op, newrow, oldrow, relation, registry, id_column, fp_column,
		fptype, k, action, NULL::name, NULL::text) w;
END;

-- The table trigger (see 1.9): with a seventh argument, the signature
-- column, an UPDATE that changes the signature without the view fails as
-- one of the fingerprint does.  Updating the registry instead would let in
-- a signature no one checked: a new one can make the row a near-duplicate.
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_table_trigger()
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
		AND oldrow OPERATOR(pg_catalog.->) TG_ARGV[2] IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[2]
		AND (TG_NARGS < 7 OR oldrow OPERATOR(pg_catalog.->) TG_ARGV[6]
			IS NOT DISTINCT FROM newrow OPERATOR(pg_catalog.->) TG_ARGV[6]) THEN
		RETURN NULL;			-- neither the id, the fingerprint nor the signature changed
	END IF;
	RAISE EXCEPTION '% of relation "%" bypasses its near-duplicate guard', TG_OP, TG_TABLE_NAME
		USING ERRCODE = 'object_not_in_prerequisite_state',
		DETAIL = CASE WHEN TG_NARGS < 7
			THEN format('Rows whose %s or %s change are written through the view %s.',
				TG_ARGV[1], TG_ARGV[2], TG_ARGV[5])
			ELSE format('Rows whose %s, %s or %s change are written through the view %s.',
				TG_ARGV[1], TG_ARGV[2], TG_ARGV[6], TG_ARGV[5]) END,
		HINT = 'Write through the view, or drop the guard first (doc/citus.md).';
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_table_trigger() IS
	'the trigger a guard puts on a table that is not distributed: TRUNCATE and DELETE keep the registry in step; INSERT, and an UPDATE of the id, fingerprint or (under verification) signature, that bypass the view fail with 55000';

-- Sets up a guard (see 1.9's five-argument form, now a call of this one),
-- with verification when sig_column and threshold are given: a minhash
-- column of the table, registered beside the fingerprint, and the least
-- minhash_jaccard of two rows that conflict.  Both NULL: no verification;
-- another argument NULL: NULL, as a strict function.
CREATE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text, sig_column name, threshold double precision)
RETURNS regclass
LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
SET extra_float_digits = 1		-- the threshold's text, for the trigger, is exact
AS $$
DECLARE
	nsp name;
	rel name;
	owner regrole;
	fptype regtype;
	sigtype regtype;
	verify boolean := sig_column IS NOT NULL;
	shards integer;
	distributed boolean;
	qualified text;
	registry text;
	view text;
	existing regclass;
	d record;
	viewargs text;
	tableargs text;
BEGIN
	IF relation IS NULL OR id_column IS NULL OR fp_column IS NULL OR k IS NULL OR action IS NULL THEN
		RETURN NULL;
	END IF;
	IF (sig_column IS NULL) <> (threshold IS NULL) THEN
		RAISE EXCEPTION 'simhash_distributed_guard: the signature column and the threshold must both be given or both be NULL'
			USING ERRCODE = 'null_value_not_allowed',
			HINT = 'Without verification, call simhash_distributed_guard(relation, id_column, fp_column, k, action).';
	END IF;
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

	-- registry rows (id and fp set, and sig under verification) and one
	-- lock row a key (id NULL)
	EXECUTE format('CREATE TABLE %s (key bigint NOT NULL, id bigint, fp %s, n bigint%s)', registry, fptype,
		CASE WHEN verify THEN ', sig @extschema@.minhash' ELSE '' END);
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
	-- the trigger arguments: seven without verification (as 1.9's), nine with
	viewargs := format('%L, %L, %L, %L, %L, %L, %L', qualified, registry, id_column, fp_column, fptype, k, lower(action));
	tableargs := format('%L, %L, %L, %L, %L, %L', registry, id_column, fp_column, fptype, k, view);
	IF verify THEN
		viewargs := viewargs || format(', %L, %L', sig_column, threshold::text);
		tableargs := tableargs || format(', %L', sig_column);
	END IF;
	EXECUTE format('COMMENT ON TABLE %s IS %L', registry, 'simhash_distributed_guard ' || pg_catalog.jsonb_build_object(
		'table', qualified, 'view', view,
		'args', pg_catalog.jsonb_build_array(qualified, registry, id_column, fp_column, fptype, k, lower(action))
			OPERATOR(pg_catalog.||) CASE WHEN verify
				THEN pg_catalog.jsonb_build_array(sig_column, threshold::text) ELSE '[]'::jsonb END)::text);
	EXECUTE format('CREATE TRIGGER simhash_guard INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
		' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_view_trigger(%s)', view, viewargs);
	IF NOT @extschema@.simhash_is_citus_table(relation) THEN
		EXECUTE format('CREATE TRIGGER simhash_guard AFTER INSERT OR UPDATE OR DELETE ON %s'
			' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%s)', relation, tableargs);
		EXECUTE format('CREATE TRIGGER simhash_guard_truncate AFTER TRUNCATE ON %s'
			' FOR EACH STATEMENT EXECUTE FUNCTION @extschema@.simhash_guard_table_trigger(%s)', relation, tableargs);
	END IF;
	RETURN view::regclass;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_distributed_guard(regclass, name, name, integer, text, name, double precision) IS
	'sets up the guard of simhash_distributed_guard with verification: a row is a near-duplicate when an existing row is within k bits and minhash_jaccard of their signatures (the minhash column sig_column) is at least threshold';

-- The five-argument form: a guard without verification, as 1.9 made it
CREATE OR REPLACE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text DEFAULT 'reject')
RETURNS regclass
LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
	SELECT @extschema@.simhash_distributed_guard(relation, id_column, fp_column, k, action,
		NULL::name, NULL::double precision);
END;

-- simhash_guard_check (see 1.9), which also checks the signature column of
-- a guard with verification and compares the registry's signatures with
-- the table's.
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_check(relation regclass)
RETURNS TABLE (item text, ok boolean, detail text)
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	g record;
	verify boolean;
	sigtype regtype;
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
	verify := pg_catalog.cardinality(g.args) >= 9;
	item := 'guard'; ok := true;
	detail := format('view %s, registry %s', g.view, g.registry);
	RETURN NEXT;
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
	IF verify THEN
		SELECT a.atttypid::regtype INTO sigtype FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relation AND a.attname = g.args[8] AND a.attnum > 0 AND NOT a.attisdropped;
		item := 'signature column'; ok := sigtype = '@extschema@.minhash'::regtype;
		detail := CASE WHEN ok THEN format('column %s, threshold %s', g.args[8], g.args[9])
			ELSE format('column %s is %s, not minhash', g.args[8], COALESCE(sigtype::text, 'gone')) END;
		RETURN NEXT;
		IF NOT ok THEN
			verify := false;	-- the registry cannot be compared with it
		END IF;
	END IF;
	item := 'registry replica identity';
	ok := (SELECT c.relreplident FROM pg_catalog.pg_class c WHERE c.oid = g.registry) = 'f';
	detail := CASE WHEN ok THEN 'FULL (shard moves keep it)' ELSE 'not FULL: Citus cannot move its shards' END;
	RETURN NEXT;
	IF pg_catalog.cardinality(g.args) >= 9 AND NOT verify THEN
		item := 'registry equals table'; ok := false;
		detail := 'not compared: the signature column is not a minhash column';
		RETURN NEXT;
		RETURN;
	END IF;
	-- signatures compared by their text: minhash has no ordering
	EXECUTE format('WITH want AS (SELECT b.key, t.%1$I::bigint AS id, t.%2$I AS fp, %6$s AS sig FROM %3$s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%2$I, %4$s)) b(key) WHERE t.%2$I IS NOT NULL%7$s),'
		' have AS (SELECT key, id, fp, %8$s AS sig FROM %5$s WHERE id IS NOT NULL)'
		' SELECT (SELECT pg_catalog.count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM have) m),'
		' (SELECT pg_catalog.count(*) FROM (SELECT * FROM have EXCEPT ALL SELECT * FROM want) x)',
		g.args[3], g.args[4], relation, g.args[6], g.registry,
		CASE WHEN verify THEN format('t.%I::text', g.args[8]) ELSE 'NULL::text' END,
		CASE WHEN verify THEN format(' AND t.%I IS NOT NULL', g.args[8]) ELSE '' END,
		CASE WHEN verify THEN 'sig::text' ELSE 'NULL::text' END) INTO missing, extra;
	item := 'registry equals table'; ok := missing = 0 AND extra = 0;
	detail := format('%s registry rows missing, %s stale', missing, extra);
	RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_guard_check(regclass) IS
	'whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, signature column under verification, registry replica identity, registry equal to the table, signatures included)';
