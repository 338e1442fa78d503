--@ simhash_guard_write as 1.9 made it (version=1.9), its twelve-argument
--@ form of 1.10 (version=1.10), and simhash_guard_lock_write of 1.12, the
--@ write of a guard with lock rows for a registry (version=1.12): one text,
--@ what differs under --@if, so that each script runs what it always ran.
--@ With link=yes (1.14, version=1.12 too): the form of the 'link' action,
--@ which keeps the row and writes its nearest near-duplicate's id and
--@ distance into the link and distance columns.
--@if {version} = 1.12
CREATE FUNCTION @extschema@.simhash_guard_lock_write(op text, newrow jsonb, oldrow jsonb,
	relation text, registry text, id_column name, fp_column name, fptype text,
	k text, action text, sig_column text, threshold text, shardmap text,
--@if {link} = yes
	link_column text, distance_column text,
--@end
--@else
CREATE FUNCTION @extschema@.simhash_guard_write(op text, newrow jsonb, oldrow jsonb,
	relation text, registry text, id_column name, fp_column name, fptype text,
--@if {version} = 1.9
	k text, action text,
--@else
	k text, action text, sig_column name, threshold text,
--@end
--@end
	OUT stored jsonb, OUT conflict_id bigint, OUT conflict_fp text, OUT new_fp text,
	OUT distance integer)
RETURNS record
--@language plpgsql VOLATILE PARALLEL UNSAFE
DECLARE
	rel regclass;
	reg regclass;
	t regtype;
	radius integer;
--@if {version} = 1.10
	verify boolean := sig_column IS NOT NULL;
	alike double precision;
--@end
--@if {version} = 1.12
	verify boolean := sig_column <> '';
	alike double precision;
	hit jsonb;
	h jsonb;
	pool text;
--@end
	oldid bigint;
	oldfp text;
	rid bigint;
--@if {version} != 1.9
	new_sig text;
	sigcol text := 'NULL::text';
--@end
--@if {version} = 1.12
	keys integer[];
--@else
	keys bigint[];
	key bigint;
--@end
	cols text;
	dup record;
	found_rows bigint;
BEGIN
	IF op IS NULL OR relation IS NULL OR registry IS NULL OR id_column IS NULL OR fp_column IS NULL
		OR fptype IS NULL OR k IS NULL OR op NOT IN ('INSERT', 'UPDATE', 'DELETE')
--@if {version} = 1.9
		OR (op <> 'INSERT' AND oldrow IS NULL) OR (op <> 'DELETE' AND newrow IS NULL) THEN
--@else
--@if {version} = 1.10
		OR (op <> 'INSERT' AND oldrow IS NULL) OR (op <> 'DELETE' AND newrow IS NULL)
		OR (sig_column IS NULL) <> (threshold IS NULL) THEN
--@else
		OR sig_column IS NULL OR threshold IS NULL OR shardmap IS NULL
--@if {link} = yes
		OR link_column IS NULL OR distance_column IS NULL
--@end
		OR (op <> 'INSERT' AND oldrow IS NULL) OR (op <> 'DELETE' AND newrow IS NULL)
		OR (sig_column = '') <> (threshold = '') THEN
--@end
--@end
--@if {version} = 1.12
		RAISE EXCEPTION 'simhash_guard_lock_write: called with missing or wrong arguments'
--@else
		RAISE EXCEPTION 'simhash_guard_write: called with missing or wrong arguments'
--@end
			USING ERRCODE = 'invalid_parameter_value',
			HINT = 'It is called by the trigger of a view made by simhash_distributed_guard.';
	END IF;
	rel := relation::regclass;
	reg := registry::regclass;
	t := fptype::regtype;
	radius := k::integer;
--@if {version} != 1.9
	IF verify THEN
		alike := threshold::double precision;
		sigcol := format('t.%I::text', sig_column);
	END IF;
--@end
	IF op IN ('UPDATE', 'DELETE') THEN
		oldid := (oldrow OPERATOR(pg_catalog.->>) id_column::text)::bigint;
		EXECUTE format('SELECT t.%I::text FROM %s t WHERE t.%I OPERATOR(pg_catalog.=) $1 FOR UPDATE',
			fp_column, rel, id_column) USING oldid INTO oldfp;
		GET DIAGNOSTICS found_rows = ROW_COUNT;
		IF found_rows = 0 THEN
			RETURN;				-- gone meanwhile: nothing written
		END IF;
--@if {version} != 1.12
		IF oldfp IS NOT NULL THEN
			EXECUTE format('DELETE FROM %s WHERE key OPERATOR(pg_catalog.=) ANY (@extschema@.simhash_blocks($1::%s, %s))'
				' AND id OPERATOR(pg_catalog.=) $2', reg, t, radius) USING oldfp, oldid;
		END IF;
--@end
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
--@if {version} = 1.9
			' RETURNING t.%3$I::bigint, t.%4$I::text, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column) USING newrow INTO rid, new_fp, stored;
--@else
			' RETURNING t.%3$I::bigint, t.%4$I::text, %5$s, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column, sigcol) USING newrow INTO rid, new_fp, new_sig, stored;
--@end
	ELSE
		SELECT pg_catalog.string_agg(format('%1$I = (pg_catalog.jsonb_populate_record(NULL::%2$s, $1)).%1$I', c, rel), ', ')
			INTO cols FROM pg_catalog.unnest(@extschema@.simhash_guard_columns(rel, newrow)) c;
		EXECUTE format('UPDATE %1$s AS t SET %2$s WHERE t.%3$I OPERATOR(pg_catalog.=) $2'
--@if {version} = 1.9
			' RETURNING t.%3$I::bigint, t.%4$I::text, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column) USING newrow, oldid INTO rid, new_fp, stored;
--@else
			' RETURNING t.%3$I::bigint, t.%4$I::text, %5$s, pg_catalog.to_jsonb(t.*)',
			rel, cols, id_column, fp_column, sigcol) USING newrow, oldid INTO rid, new_fp, new_sig, stored;
--@end
	END IF;
--@if {version} = 1.9
	IF new_fp IS NULL THEN
		RETURN;					-- a NULL fingerprint never conflicts
--@else
--@if {link} = yes
	-- as the trigger's link: an UPDATE that keeps the fingerprint keeps
	-- both columns as the statement left them
	IF op = 'UPDATE' AND new_fp IS NOT DISTINCT FROM oldfp THEN
		RETURN;
	END IF;
	IF new_fp IS NULL OR (verify AND new_sig IS NULL) THEN
		-- no link for a NULL fingerprint or signature (no RETURNING: Citus
		-- takes none but immutable functions in an UPDATE's)
		EXECUTE format('UPDATE %s AS t SET %I = NULL, %I = NULL WHERE t.%I OPERATOR(pg_catalog.=) $1',
			rel, link_column, distance_column, id_column) USING rid;
		stored := stored OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(link_column, NULL, distance_column, NULL);
		RETURN;
--@else
	IF new_fp IS NULL OR (verify AND new_sig IS NULL) THEN
		RETURN;					-- a NULL fingerprint or signature never conflicts
--@end
--@end
	END IF;

--@if {version} = 1.12
	-- one statement: the lock rows are taken in the order of their keys
	keys := @extschema@.simhash_guard_lock_keys(new_fp, t, radius);
	EXECUTE format('SELECT l.key FROM %s l WHERE l.key OPERATOR(pg_catalog.=) ANY ($1) ORDER BY l.key FOR UPDATE',
		reg) USING keys;
	GET DIAGNOSTICS found_rows = ROW_COUNT;
	IF found_rows <> pg_catalog.cardinality(keys) THEN
		RAISE EXCEPTION 'the near-duplicate guard of relation "%" lacks % of its lock rows', rel,
			pg_catalog.cardinality(keys) - found_rows
			USING ERRCODE = 'object_not_in_prerequisite_state',
			HINT = 'simhash_guard_check tells what is missing; drop the guard and set it up again.';
	END IF;
	IF shardmap = '' THEN
		hit := @extschema@.simhash_guard_search(rel, id_column, fp_column, new_fp, radius, rid,
			NULLIF(sig_column, '')::name, new_sig::@extschema@.minhash, alike);
	ELSE
		-- a shard split or a new shard count makes other shards: the map
		-- would miss them
		IF pg_catalog.obj_description(shardmap::regclass, 'pg_class')
			IS DISTINCT FROM @extschema@.simhash_guard_shard_ids(rel) THEN
			RAISE EXCEPTION 'the shards of relation "%" changed since its near-duplicate guard was set up', rel
				USING ERRCODE = 'object_not_in_prerequisite_state',
				HINT = 'Drop the guard and set it up again (doc/citus.md).';
		END IF;
		-- the nearest of the shards' answers, then the smallest id; over
		-- one connection a worker, as a shard's search takes less time
		-- than opening another
		pool := pg_catalog.current_setting('citus.max_adaptive_executor_pool_size');
		PERFORM pg_catalog.set_config('citus.max_adaptive_executor_pool_size', '1', true);
		FOR h IN EXECUTE format('SELECT @extschema@.simhash_guard_search(s.shard::pg_catalog.regclass, %L, %L, $1, %s, $2,'
			' $3, $4::@extschema@.minhash, $5) FROM %s s', id_column, fp_column, radius, shardmap::regclass)
			USING new_fp, rid, NULLIF(sig_column, '')::name, new_sig, alike
		LOOP
			IF h IS NOT NULL AND (hit IS NULL
				OR ((h OPERATOR(pg_catalog.->>) 'distance')::integer, (h OPERATOR(pg_catalog.->>) 'id')::bigint)
					OPERATOR(pg_catalog.<) ((hit OPERATOR(pg_catalog.->>) 'distance')::integer,
						(hit OPERATOR(pg_catalog.->>) 'id')::bigint)) THEN
				hit := h;
			END IF;
		END LOOP;
		PERFORM pg_catalog.set_config('citus.max_adaptive_executor_pool_size', pool, true);
	END IF;
--@if {link} = yes
	-- the row stays, with its link (NULL when there is none) under the
	-- locks its transaction keeps: a later near-duplicate sees it
	EXECUTE format('UPDATE %s AS t SET %I = $2, %I = $3 WHERE t.%I OPERATOR(pg_catalog.=) $1',
		rel, link_column, distance_column, id_column)
		USING rid, (hit OPERATOR(pg_catalog.->>) 'id')::bigint, (hit OPERATOR(pg_catalog.->>) 'distance')::integer;
	stored := stored OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object(link_column, hit OPERATOR(pg_catalog.->) 'id',
		distance_column, hit OPERATOR(pg_catalog.->) 'distance');
--@else
	IF hit IS NOT NULL THEN
		conflict_id := (hit OPERATOR(pg_catalog.->>) 'id')::bigint;
		conflict_fp := hit OPERATOR(pg_catalog.->>) 'fp';
		distance := (hit OPERATOR(pg_catalog.->>) 'distance')::integer;
		stored := NULL;
	END IF;
--@end
--@else
	EXECUTE format('SELECT pg_catalog.array_agg(b ORDER BY b) FROM pg_catalog.unnest(@extschema@.simhash_blocks($1::%s, %s)) b',
		t, radius) USING new_fp INTO keys;
	FOREACH key IN ARRAY keys LOOP
		EXECUTE format('INSERT INTO %s AS l (key, n) VALUES ($1, 1)'
			' ON CONFLICT (key) WHERE id IS NULL DO UPDATE SET n = l.n OPERATOR(pg_catalog.+) 1', reg) USING key;
	END LOOP;
--@if {version} != 1.9
	-- the signatures are the registry's: the same rows, under the same locks
--@end
	EXECUTE format('SELECT r.id, r.fp::text AS fp, r.fp OPERATOR(@extschema@.<->) $2::%1$s AS d FROM %2$s r'
		' WHERE r.key OPERATOR(pg_catalog.=) ANY ($1) AND r.id IS NOT NULL'
--@if {version} = 1.9
		' AND r.fp OPERATOR(@extschema@.<->) $2::%1$s OPERATOR(pg_catalog.<=) %3$s LIMIT 1', t, reg, radius)
		USING keys, new_fp INTO dup;
--@else
		' AND r.fp OPERATOR(@extschema@.<->) $2::%1$s OPERATOR(pg_catalog.<=) %3$s%4$s LIMIT 1', t, reg, radius,
		CASE WHEN verify THEN ' AND @extschema@.minhash_jaccard(r.sig, $3::@extschema@.minhash)'
			' OPERATOR(pg_catalog.>=) $4' ELSE '' END)
		USING keys, new_fp, new_sig, alike INTO dup;
--@end
	IF dup.id IS NOT NULL THEN
		conflict_id := dup.id;
		conflict_fp := dup.fp;
		distance := dup.d;
		stored := NULL;
		RETURN;
	END IF;
	-- one multi-row VALUES: Citus routes it shard by shard (an INSERT ...
	-- SELECT would go through the coordinator and lose 40001 to XX000)
--@if {version} = 1.9
	EXECUTE format('INSERT INTO %s (key, id, fp) VALUES %s', reg,
		(SELECT pg_catalog.string_agg(format('(%s, $1, $2::%s)', b, t), ', ') FROM pg_catalog.unnest(keys) b))
		USING rid, new_fp;
--@else
	EXECUTE format('INSERT INTO %s (key, id, fp%s) VALUES %s', reg,
		CASE WHEN verify THEN ', sig' ELSE '' END,
		(SELECT pg_catalog.string_agg(format('(%s, $1, $2::%s%s)', b, t,
			CASE WHEN verify THEN ', $3::@extschema@.minhash' ELSE '' END), ', ')
			FROM pg_catalog.unnest(keys) b))
		USING rid, new_fp, new_sig;
--@end
--@end
END
$$;
--@if {version} = 1.9
--@describe one write through a guarded view, as the table owner: the row inserted, updated or deleted, its registry rows kept in step, and the near-duplicate found under its block keys (conflict_id), if any
--@else
--@if {version} = 1.12
--@if {link} = yes
--@describe one write through the view of a guard with the 'link' action (since 1.14), as the table owner: the row written, its lock rows locked, and the id and distance of the nearest near-duplicate simhash_guard_search finds in the table (or in each shard of the shard map), the smallest id among the nearest, written into its link and distance columns (NULL when there is none); never a conflict
--@else
--@describe one write through the view of a guard made since 1.12, as the table owner: the row written, its lock rows locked, and the near-duplicate simhash_guard_search finds in the table (or in each shard of the shard map), if any
--@end
--@else
--@describe one write through a guarded view, as the table owner: the row written, its registry rows (with signatures, under verification) kept in step, and the near-duplicate found under its block keys (within k, and at least threshold alike by minhash_jaccard under verification), if any
--@end
--@end
