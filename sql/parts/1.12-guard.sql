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

-- The shards of a distributed relation as its guard's shard map records
-- them: their ids, ascending, in one text
CREATE FUNCTION @extschema@.simhash_guard_shard_ids(relation regclass)
RETURNS text
--@language plpgsql STABLE STRICT PARALLEL SAFE
DECLARE
	ids text;
BEGIN
	-- by name: the extension installs without Citus
	EXECUTE 'SELECT pg_catalog.string_agg(s.shardid::text, '','' ORDER BY s.shardid)'
		' FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid = $1' USING relation INTO ids;
	RETURN 'simhash shard map of shards ' OPERATOR(pg_catalog.||) ids;
END
$$;
--@describe the shards of a Citus distributed relation, as the shard map of its guard (since 1.12) records them and each write through the guard compares them: their ids, ascending, in one text; NULL for a relation with no shards

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
--@include parts/guard-check.sql version=1.12

-- simhash_guard_drop: the shard map too, then the view, the table's
-- triggers and the lock rows (or registry) as before
ALTER FUNCTION @extschema@.simhash_guard_drop(regclass) RENAME TO simhash_guard_drop_registry;
COMMENT ON FUNCTION @extschema@.simhash_guard_drop_registry(regclass) IS
	'drops the view, the table''s triggers and the registry (the lock rows, for a guard made since 1.12) of the near-duplicate guard of the table; called by simhash_guard_drop';
CREATE FUNCTION @extschema@.simhash_guard_drop(relation regclass)
RETURNS void
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	shardmap text := ((@extschema@.simhash_guard_of(relation)).args)[10];
BEGIN
	PERFORM @extschema@.simhash_guard_drop_registry(relation);
	IF shardmap <> '' AND pg_catalog.to_regclass(shardmap) IS NOT NULL THEN
		EXECUTE format('DROP TABLE %s', shardmap::regclass);
	END IF;
END
$$;
--@describe drops the near-duplicate guard of the table made by simhash_distributed_guard: its view, its lock rows and shard map (or registry, for a guard made before 1.12) and the table's triggers; the table stays
