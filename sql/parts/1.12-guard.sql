-- 1.12: the guard of simhash_distributed_guard without a registry.  A new
-- guard keeps one lock row per hashed block key (16384 rows, whatever the
-- table's size) and searches the table itself, through its own index,
-- after it has locked the new row's keys: simhash_guard_search runs on the
-- node of each shard (a shard map names them), waits for the transactions
-- prepared there and reads with a snapshot taken after the waits.  The
-- lock rows are locked, never updated, so unrelated rows that share a key
-- only wait for each other, at every isolation level.  Guards made by 1.9
-- to 1.11 keep their registry and work as before.

--@functions guard_search

-- The block keys of fp for radius k hashed to the 16384 lock rows of a
-- guard, distinct and ascending: two fingerprints within k share a block
-- key (simhash_blocks), so they share a lock row.  The block number seeds
-- the hash: hashint8 folds the key's high half (the number) into its low
-- half (the block's bits), so with one seed the 33 blocks of 8 bits at 256
-- bits and k = 32 would all fall on the same 256 rows.
CREATE FUNCTION @extschema@.simhash_guard_lock_keys(fp text, fptype regtype, k integer)
RETURNS integer[]
--@language plpgsql STABLE STRICT PARALLEL SAFE
DECLARE
	keys integer[];
BEGIN
	EXECUTE format('SELECT pg_catalog.array_agg(DISTINCT h ORDER BY h) FROM (SELECT'
		' (pg_catalog.hashint8extended(b, b OPERATOR(pg_catalog.>>) 32) OPERATOR(pg_catalog.&) 16383)::integer AS h'
		' FROM pg_catalog.unnest(@extschema@.simhash_blocks($1::%s, %s)) b) x', fptype, k)
		USING fp INTO keys;
	RETURN keys;
END
$$;
--@describe the lock rows of a guard made since 1.12 that a row with fingerprint fp (text of type fptype) takes for radius k: its block keys of simhash_blocks, hashed to 0..16383, distinct and ascending

-- One write through the view of a guard made since 1.12, as the table
-- owner: the row written; for a fingerprint (and, under verification, a
-- signature) its lock rows locked in ascending order in one statement,
-- then simhash_guard_search on the table, or on each shard of a
-- distributed table through the shard map.  The arguments after oldrow are
-- the view trigger's, as text; sig_column, threshold and shardmap empty
-- when the guard has none.
--@include parts/guard-write.sql version=1.12

-- simhash_distributed_guard makes guards of this kind from now on (its
-- five-argument form calls this one)
--@include parts/guard-setup.sql version=1.12

-- simhash_guard_check: the checks of a guard made since 1.12 here, those of
-- an older one's registry in the function of 1.10, renamed
ALTER FUNCTION @extschema@.simhash_guard_check(regclass) RENAME TO simhash_guard_check_registry;
COMMENT ON FUNCTION @extschema@.simhash_guard_check_registry(regclass) IS
	'the checks of simhash_guard_check for a guard made by 1.9 to 1.11, with a registry: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, signature column under verification, registry replica identity, registry equal to the table, signatures included)';
CREATE FUNCTION @extschema@.simhash_guard_check(relation regclass)
RETURNS TABLE (item text, ok boolean, detail text)
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	g record;
	sigtype regtype;
	n bigint;
	named bigint;
	shards bigint;
	updatable integer;
BEGIN
	SELECT * INTO g FROM @extschema@.simhash_guard_of(relation);
	IF g.view IS NULL OR pg_catalog.cardinality(g.args) <> 10 THEN
		RETURN QUERY SELECT * FROM @extschema@.simhash_guard_check_registry(relation);
		RETURN;
	END IF;
	item := 'guard'; ok := true;
	detail := format('view %s, lock rows %s%s', g.view, g.registry,
		CASE WHEN g.args[10] <> '' THEN ', shard map ' || g.args[10] ELSE '' END);
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
		ok := EXISTS (SELECT FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = relation
			AND tg.tgenabled <> 'D' AND tg.tgtype & (4 | 16) = (4 | 16)
			AND tg.tgfoid = '@extschema@.simhash_guard_table_trigger()'::pg_catalog.regprocedure);
		detail := CASE WHEN ok THEN 'INSERT and UPDATE trigger enabled' ELSE 'missing or disabled: writes to the table bypass the guard' END;
		RETURN NEXT;
	END IF;
	item := 'id unique and NOT NULL';
	ok := @extschema@.simhash_guard_id_is_key(relation, g.args[3]);
	detail := format('column %s', g.args[3]);
	RETURN NEXT;
	IF g.args[8] <> '' THEN
		SELECT a.atttypid::regtype INTO sigtype FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relation AND a.attname = g.args[8] AND a.attnum > 0 AND NOT a.attisdropped;
		item := 'signature column'; ok := sigtype = '@extschema@.minhash'::regtype;
		detail := CASE WHEN ok THEN format('column %s, threshold %s', g.args[8], g.args[9])
			ELSE format('column %s is %s, not minhash', g.args[8], COALESCE(sigtype::text, 'gone')) END;
		RETURN NEXT;
	END IF;
	EXECUTE format('SELECT pg_catalog.count(*) FROM %s l WHERE l.key OPERATOR(pg_catalog.>=) 0'
		' AND l.key OPERATOR(pg_catalog.<=) 16383', g.registry) INTO n;
	item := 'lock rows'; ok := n = 16384;
	detail := format('%s of 16384', n);
	RETURN NEXT;
	IF g.args[10] <> '' AND NOT @extschema@.simhash_is_distributed(relation) THEN
		item := 'shard map'; ok := false;
		detail := 'the table is no longer distributed: set the guard up again';
		RETURN NEXT;
	ELSIF g.args[10] <> '' THEN
		-- each shard of the table named once, by a row that lies on it
		EXECUTE format('SELECT pg_catalog.count(DISTINCT s.shard), pg_catalog.count(*) FILTER (WHERE s.shard'
			' OPERATOR(pg_catalog.=) shard_name(%1$L, get_shard_id_for_distribution_column(%1$L, s.%2$I))) FROM %3$s s',
			relation, (SELECT a.attname FROM pg_catalog.pg_attribute a WHERE a.attrelid = g.args[10]::regclass AND a.attnum = 1),
			g.args[10]::regclass) INTO named, n;
		SELECT pg_catalog.count(*) INTO shards FROM pg_catalog.pg_dist_shard d WHERE d.logicalrelid = relation;
		item := 'shard map'; ok := named = shards AND n = shards;
		detail := format('%s of %s shards named', n, shards);
		RETURN NEXT;
	END IF;
	-- rows the guard did not check (written to the table by its owner, or
	-- before the set-up) may be near-duplicates: the distributed pairs,
	-- and under verification the signatures of their rows, fetched by id
	-- (Citus joins a distributed table to a function's rows only so)
	IF g.args[8] = '' THEN
		EXECUTE format('SELECT pg_catalog.count(*) FROM @extschema@.simhash_distributed_pairs(%L, %L, %L, %s)',
			relation, g.args[3], g.args[4], g.args[6]) INTO n;
	ELSE
		EXECUTE format('WITH p AS MATERIALIZED (SELECT id1, id2 FROM @extschema@.simhash_distributed_pairs(%1$L, %2$L, %3$L, %4$s)),'
			' s AS MATERIALIZED (SELECT t.%2$I::bigint AS id, t.%5$I AS sig FROM %1$s t WHERE t.%2$I OPERATOR(pg_catalog.=)'
			' ANY (ARRAY(SELECT id1 FROM p UNION SELECT id2 FROM p)))'
			' SELECT pg_catalog.count(*) FROM p JOIN s a ON a.id OPERATOR(pg_catalog.=) p.id1'
			' JOIN s b ON b.id OPERATOR(pg_catalog.=) p.id2'
			' WHERE @extschema@.minhash_jaccard(a.sig, b.sig) OPERATOR(pg_catalog.>=) %6$s',
			relation, g.args[3], g.args[4], g.args[6], g.args[8], g.args[9]::double precision) INTO n;
	END IF;
	item := 'no near-duplicates'; ok := n = 0;
	detail := format('%s pairs within %s bits%s', n, g.args[6],
		CASE WHEN g.args[8] = '' THEN '' ELSE ' and at least ' || g.args[9] || ' alike' END);
	RETURN NEXT;
END
$$;
--@describe whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, signature column under verification; for a guard made since 1.12 its lock rows, its shard map and that no pair of rows is a near-duplicate (simhash_distributed_pairs), for an older one its registry, equal to the table)

-- simhash_guard_drop: the shard map too, then the view, the table's
-- triggers and the lock rows (or registry) as before
ALTER FUNCTION @extschema@.simhash_guard_drop(regclass) RENAME TO simhash_guard_drop_registry;
COMMENT ON FUNCTION @extschema@.simhash_guard_drop_registry(regclass) IS
	'drops the view, the table''s triggers and the registry (the lock rows, for a guard made since 1.12) of the near-duplicate guard of the table; called by simhash_guard_drop';
CREATE FUNCTION @extschema@.simhash_guard_drop(relation regclass)
RETURNS void
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	g record;
BEGIN
	SELECT * INTO g FROM @extschema@.simhash_guard_of(relation);
	PERFORM @extschema@.simhash_guard_drop_registry(relation);
	IF pg_catalog.cardinality(g.args) = 10 AND g.args[10] <> '' AND pg_catalog.to_regclass(g.args[10]) IS NOT NULL THEN
		EXECUTE format('DROP TABLE %s', g.args[10]::regclass);
	END IF;
END
$$;
--@describe drops the near-duplicate guard of the table made by simhash_distributed_guard: its view, its lock rows and shard map (or registry, for a guard made before 1.12) and the table's triggers; the table stays
