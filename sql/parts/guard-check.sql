--@ simhash_guard_check as 1.9 made it (version=1.9), as 1.10 replaces it
--@ (version=1.10), and as 1.12 makes it again for guards with lock rows,
--@ once 1.10's is renamed simhash_guard_check_registry (version=1.12): one
--@ text, what differs under --@if, so that each script runs what it
--@ always ran.  With link=yes (1.14, version=1.12 too): as 1.14 replaces
--@ it, for guards with the 'link' action too.
--@if {version} = 1.10
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_check(relation regclass)
--@else
--@if {link} = yes
CREATE OR REPLACE FUNCTION @extschema@.simhash_guard_check(relation regclass)
--@else
CREATE FUNCTION @extschema@.simhash_guard_check(relation regclass)
--@end
--@end
RETURNS TABLE (item text, ok boolean, detail text)
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	g record;
--@if {version} != 1.9
	verify boolean;
	sigtype regtype;
--@end
--@if {version} = 1.12
	n bigint;
	named bigint;
	shards bigint;
--@else
	missing bigint;
	extra bigint;
--@end
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
--@if {version} = 1.9
	item := 'guard'; ok := g.view IS NOT NULL;
	detail := format('view %s, registry %s', COALESCE(g.view::text, 'dropped'), g.registry);
--@else
--@if {version} = 1.12
--@if {link} = yes
	-- twelve with the 'link' action: its link and distance columns
	IF pg_catalog.cardinality(g.args) NOT IN (10, 12) THEN
--@else
	IF pg_catalog.cardinality(g.args) <> 10 THEN
--@end
		RETURN QUERY SELECT * FROM @extschema@.simhash_guard_check_registry(relation);
		RETURN;
	END IF;
	verify := g.args[8] <> '';
	item := 'guard'; ok := true;
	detail := format('view %s, lock rows %s%s', g.view, g.registry,
		CASE WHEN g.args[10] <> '' THEN ', shard map ' || g.args[10] ELSE '' END);
--@else
	verify := pg_catalog.cardinality(g.args) >= 9;
	item := 'guard'; ok := true;
	detail := format('view %s, registry %s', g.view, g.registry);
--@end
--@end
	RETURN NEXT;
--@if {version} = 1.9
	IF g.view IS NULL THEN
		RETURN;
	END IF;
--@end
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
--@if {version} = 1.12
		ok := EXISTS (SELECT FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = relation
			AND tg.tgenabled <> 'D' AND tg.tgtype & (4 | 16) = (4 | 16)
			AND tg.tgfoid = '@extschema@.simhash_guard_table_trigger()'::pg_catalog.regprocedure);
		detail := CASE WHEN ok THEN 'INSERT and UPDATE trigger enabled' ELSE 'missing or disabled: writes to the table bypass the guard' END;
--@else
		ok := (SELECT pg_catalog.count(*) FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = relation
			AND tg.tgenabled <> 'D'
			AND tg.tgfoid = '@extschema@.simhash_guard_table_trigger()'::pg_catalog.regprocedure) = 2;
		detail := CASE WHEN ok THEN 'row and TRUNCATE triggers enabled' ELSE 'missing or disabled: writes to the table bypass the guard' END;
--@end
		RETURN NEXT;
	END IF;
	item := 'id unique and NOT NULL';
	ok := @extschema@.simhash_guard_id_is_key(relation, g.args[3]);
	detail := format('column %s', g.args[3]);
	RETURN NEXT;
--@if {version} != 1.9
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
--@end
--@if {version} = 1.12
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
	BEGIN
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
	EXCEPTION WHEN invalid_parameter_value THEN
		-- k past the batch search's range (17 to 32 at 64 bits)
		item := 'no near-duplicates'; ok := NULL;
		detail := format('not checked: simhash_distributed_pairs takes no k of %s at this width', g.args[6]);
		RETURN NEXT;
		RETURN;
	END;
--@if {link} = yes
	-- the 'link' action keeps near-duplicates: they are counted, not faults
	IF pg_catalog.cardinality(g.args) = 12 THEN
		item := 'near-duplicates linked'; ok := true;
		detail := format('%s pairs within %s bits%s, kept with their links in %s and %s', n, g.args[6],
			CASE WHEN g.args[8] = '' THEN '' ELSE ' and at least ' || g.args[9] || ' alike' END,
			g.args[11], g.args[12]);
		RETURN NEXT;
		RETURN;
	END IF;
--@end
	item := 'no near-duplicates'; ok := n = 0;
	detail := format('%s pairs within %s bits%s', n, g.args[6],
		CASE WHEN g.args[8] = '' THEN '' ELSE ' and at least ' || g.args[9] || ' alike' END);
	RETURN NEXT;
--@else
	item := 'registry replica identity';
	ok := (SELECT c.relreplident FROM pg_catalog.pg_class c WHERE c.oid = g.registry) = 'f';
	detail := CASE WHEN ok THEN 'FULL (shard moves keep it)' ELSE 'not FULL: Citus cannot move its shards' END;
	RETURN NEXT;
--@if {version} = 1.9
	EXECUTE format('WITH want AS (SELECT b.key, t.%1$I::bigint AS id, t.%2$I AS fp FROM %3$s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%2$I, %4$s)) b(key) WHERE t.%2$I IS NOT NULL),'
		' have AS (SELECT key, id, fp FROM %5$s WHERE id IS NOT NULL)'
--@else
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
--@end
		' SELECT (SELECT pg_catalog.count(*) FROM (SELECT * FROM want EXCEPT ALL SELECT * FROM have) m),'
		' (SELECT pg_catalog.count(*) FROM (SELECT * FROM have EXCEPT ALL SELECT * FROM want) x)',
--@if {version} = 1.9
		g.args[3], g.args[4], relation, g.args[6], g.registry) INTO missing, extra;
--@else
		g.args[3], g.args[4], relation, g.args[6], g.registry,
		CASE WHEN verify THEN format('t.%I::text', g.args[8]) ELSE 'NULL::text' END,
		CASE WHEN verify THEN format(' AND t.%I IS NOT NULL', g.args[8]) ELSE '' END,
		CASE WHEN verify THEN 'sig::text' ELSE 'NULL::text' END) INTO missing, extra;
--@end
	item := 'registry equals table'; ok := missing = 0 AND extra = 0;
	detail := format('%s registry rows missing, %s stale', missing, extra);
	RETURN NEXT;
--@end
END
$$;
--@if {version} = 1.9
--@describe whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, registry replica identity, registry equal to the table)
--@else
--@if {version} = 1.12
--@if {link} = yes
--@describe whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, signature column under verification; for a guard made since 1.12 its lock rows, its shard map and that no pair of rows is a near-duplicate (simhash_distributed_pairs), or with the 'link' action how many pairs it kept; for an older one its registry, equal to the table)
--@else
--@describe whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, signature column under verification; for a guard made since 1.12 its lock rows, its shard map and that no pair of rows is a near-duplicate (simhash_distributed_pairs), for an older one its registry, equal to the table)
--@end
--@else
--@describe whether the near-duplicate guard of the table is intact: one row a check (view and trigger, view not writable without it, table trigger, id unique and NOT NULL, signature column under verification, registry replica identity, registry equal to the table, signatures included)
--@end
--@end
