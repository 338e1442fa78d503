-- 1.8: tables spread over machines (Citus).  simhash_blocks gives the
-- exact-match block keys of the pigeonhole (src/type/blocks.c); the functions
-- below spread a table's rows by those keys, so that every pair within k
-- meets on one shard, and find the pairs there.

--@functions blocks
-- Whether relation is a table distributed by Citus (hash or append), whose
-- rows are on other machines: the catalog is looked up by name, so that
-- the extension needs no Citus to install.
--@include parts/citus-catalog.sql name=simhash_is_distributed
--@describe whether the relation is a Citus table distributed over shards (true), or a local or reference table (false); false when Citus is not installed

-- The columns of the distributed functions: both exist, the id is an
-- integer and the fingerprint of one of the three types.  Returns the
-- fingerprint type.
--@include parts/check-columns.sql version=1.8

-- The checks of the distributed batch functions, the same whether the
-- table is distributed or not: the columns, and k in the range of
-- simhash_block_pairs (that of the batch functions, and at most half the
-- width).  Returns the fingerprint type.
CREATE FUNCTION @extschema@.simhash_check_spread(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS regtype
--@language plpgsql STABLE STRICT PARALLEL SAFE
DECLARE
	fptype regtype := @extschema@.simhash_check_columns(relation, id_column, fp_column);
BEGIN
	EXECUTE format('SELECT FROM @extschema@.simhash_block_pairs(0, ''{}'', ''{}''::%s[], %s)', fptype, k);
	RETURN fptype;
END
$$;
--@describe the checks of simhash_spread_blocks and the distributed batch functions: the id and fingerprint columns and the radius k; returns the fingerprint type

-- The rows of relation spread by block key for radius k: a new table
-- (key bigint, id bigint, fp) in the relation's schema (when relation is
-- distributed, distributed by key over as many shards as it has), holding each row with a
-- fingerprint once per key of simhash_blocks(fp, k).  Citus fills it by
-- repartitioning between the workers.  Returns its name; the caller drops it.
--@include parts/spread-start.sql name=blocks key=key keytype=bigint
	IF @extschema@.simhash_is_distributed(relation) THEN
		EXECUTE format('SELECT pg_catalog.count(*)::integer FROM pg_catalog.pg_dist_shard WHERE logicalrelid = %s',
			relation::oid) INTO shards;
		EXECUTE format('SELECT create_distributed_table(%L, ''key'', shard_count => %s, colocate_with => ''none'')',
			work, GREATEST(shards, 1));
	END IF;
	EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b.key, t.%I, t.%I FROM %s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
		' WHERE t.%I IS NOT NULL',
		work, id_column, fp_column, relation, fp_column, k, fp_column);
	RETURN work::regclass;
END
$$;
--@describe a new table (key, id, fp) distributed by key, holding each row of the relation once per block key of simhash_blocks(fp, k): every pair within k shares a key, so it meets in one group

-- The pairs of a distributed table, computed on its workers: each row is
-- copied once per block key into a table distributed by that key (Citus
-- moves the copies between workers, not through the coordinator), and each
-- group of a key is searched where it lies; simhash_block_pairs keeps a
-- pair only in the group of its first equal block, so the union needs no
-- de-duplication.  A table that is not distributed goes to simhash_pairs.
--@include parts/distributed-pairs.sql version=1.8

-- The clusters of a distributed table: union-find on the coordinator over
-- the pairs of simhash_distributed_pairs (memory for the ids that have a
-- near-duplicate), every row without one its own cluster.
CREATE FUNCTION @extschema@.simhash_distributed_clusters(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS TABLE (id bigint, cluster_id bigint)
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
BEGIN
--@include parts/distributed-local.sql batch=simhash_clusters
	RETURN QUERY EXECUTE format(
		'WITH c AS MATERIALIZED (SELECT * FROM @extschema@.simhash_pair_clusters(%1$L))'
		' SELECT r.id, COALESCE(c.cluster_id, r.id) FROM'
		' (SELECT DISTINCT %2$I::bigint AS id FROM %3$s WHERE %4$I IS NOT NULL) r'
		' LEFT JOIN c ON c.id OPERATOR(pg_catalog.=) r.id ORDER BY 1',
		format('SELECT id1, id2 FROM @extschema@.simhash_distributed_pairs(%L, %L, %L, %s)',
			relation, id_column, fp_column, k),
		id_column, relation, fp_column);
END
$$;
--@describe every row of the table with the smallest id of its connected component of pairs within k, as simhash_clusters; on a Citus distributed table from simhash_distributed_pairs and union-find over the pairs

-- ------------------------------------------------------------------
-- Insert-time rejection for a distributed table: a registry of the
-- fingerprints distributed by block key, with a lock row per key
-- ------------------------------------------------------------------

-- Adds one row through the guard: inserts it into the table (which computes
-- a generated fingerprint), locks its block keys in ascending order (one
-- statement a key, so that two single-row transactions never wait for each
-- other in a cycle), looks for a near-duplicate in the registry rows of
-- those keys, and registers the row.  Two rows within k share a key: the
-- later one waits on that key's lock row until the earlier commits, and
-- then sees its registry row, which lies on the same shard.  Raises 23P01
-- for a near-duplicate; returns the row as stored, as jsonb.
CREATE FUNCTION @extschema@.simhash_guard_add(newrow jsonb, relation regclass,
	registry regclass, locks regclass, id_column name, fp_column name,
	fptype regtype, k integer, columns text)
RETURNS jsonb
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	stored jsonb;
	rid bigint;
	fp text;
	keys bigint[];
	key bigint;
	dup record;
BEGIN
	EXECUTE format('INSERT INTO %1$s AS t (%2$s) SELECT %2$s FROM pg_catalog.jsonb_populate_record(NULL::%1$s, $1)'
		' RETURNING t.%3$I::bigint, t.%4$I::text, pg_catalog.to_jsonb(t.*)',
		relation, columns, id_column, fp_column) USING newrow INTO rid, fp, stored;
	IF fp IS NULL THEN
		RETURN stored;			-- a NULL fingerprint never conflicts
	END IF;
	EXECUTE format('SELECT pg_catalog.array_agg(b ORDER BY b) FROM pg_catalog.unnest(@extschema@.simhash_blocks($1::%s, %s)) b',
		fptype, k) USING fp INTO keys;
	FOREACH key IN ARRAY keys LOOP
		EXECUTE format('INSERT INTO %s AS l (key, n) VALUES ($1, 1)'
			' ON CONFLICT (key) DO UPDATE SET n = l.n OPERATOR(pg_catalog.+) 1', locks) USING key;
	END LOOP;
	EXECUTE format('SELECT id, fp::text AS fp, fp OPERATOR(@extschema@.<->) $2::%1$s AS d FROM %2$s'
		' WHERE key OPERATOR(pg_catalog.=) ANY ($1) AND fp OPERATOR(@extschema@.<->) $2::%1$s OPERATOR(@extschema@.<=) %3$s'
		' AND id OPERATOR(pg_catalog.<>) $3 LIMIT 1', fptype, registry, k)
		USING keys, fp, rid INTO dup;
	IF dup.id IS NOT NULL THEN
		RAISE EXCEPTION 'new row for relation "%" is within % bits of an existing row',
			(SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = relation), k
			USING ERRCODE = 'exclusion_violation',
			DETAIL = format('Key (%s)=(%s) has %s %s, at distance %s from the new row''s %s.',
				id_column, dup.id, fp_column, dup.fp, dup.d, fp),
			TABLE = (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = relation),
			SCHEMA = (SELECT n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n
				ON n.oid = c.relnamespace WHERE c.oid = relation),
			COLUMN = fp_column, CONSTRAINT = registry::text;
	END IF;
	EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b, $2, $3::%s FROM pg_catalog.unnest($1) b',
		registry, fptype) USING keys, rid, fp;
	RETURN stored;
END
$$;
--@describe the work of the guard's trigger for one row: insert it, lock its block keys in ascending order, reject it (23P01) if the registry holds a row within k under those keys, else register it; returns the row as stored

-- The trigger of the guarded view (INSTEAD OF INSERT, each row).
-- Arguments: the table, the registry, the lock table, the id and
-- fingerprint columns, the fingerprint type, k, the action (reject or
-- skip) and the columns an insert writes (all but generated ones).  With
-- skip, a near-duplicate's insert is undone by its subtransaction and the
-- trigger returns NULL: INSERT does not count the row (COPY counts every
-- row it reads, whatever an INSTEAD OF trigger returns).
CREATE FUNCTION @extschema@.simhash_guard_trigger()
RETURNS trigger
--@language plpgsql VOLATILE PARALLEL UNSAFE
DECLARE
	stored jsonb;
	cname text;
BEGIN
	IF TG_ARGV[7] = 'skip' THEN
		BEGIN
			stored := @extschema@.simhash_guard_add(pg_catalog.to_jsonb(NEW), TG_ARGV[0]::regclass,
				TG_ARGV[1]::regclass, TG_ARGV[2]::regclass, TG_ARGV[3], TG_ARGV[4],
				TG_ARGV[5]::regtype, TG_ARGV[6]::integer, TG_ARGV[8]);
		EXCEPTION WHEN exclusion_violation THEN
			GET STACKED DIAGNOSTICS cname = CONSTRAINT_NAME;
			IF cname IS DISTINCT FROM TG_ARGV[1]::regclass::text THEN
				RAISE;			-- an exclusion constraint of the table itself
			END IF;
			RETURN NULL;
		END;
	ELSE
		stored := @extschema@.simhash_guard_add(pg_catalog.to_jsonb(NEW), TG_ARGV[0]::regclass,
			TG_ARGV[1]::regclass, TG_ARGV[2]::regclass, TG_ARGV[3], TG_ARGV[4],
			TG_ARGV[5]::regtype, TG_ARGV[6]::integer, TG_ARGV[8]);
	END IF;
	RETURN pg_catalog.jsonb_populate_record(NEW, stored);
END
$$;
--@describe the INSTEAD OF INSERT trigger of a view made by simhash_distributed_guard: each row through simhash_guard_add; with skip, a near-duplicate is dropped

-- Sets up the guard of relation: the registry and lock tables (distributed
-- by block key when relation is distributed), the registry filled from the
-- rows already there, and the view that takes the writes.
CREATE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text DEFAULT 'reject')
RETURNS regclass
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	nsp name;
	rel name;
	fptype regtype;
	shards integer;
	distributed boolean := @extschema@.simhash_is_distributed(relation);
	registry text;
	locks text;
	view text;
	columns text;
	d record;
BEGIN
	SELECT n.nspname, c.relname INTO nsp, rel FROM pg_catalog.pg_class c
		JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = relation;
	fptype := @extschema@.simhash_check_columns(relation, id_column, fp_column);
	IF lower(action) NOT IN ('reject', 'skip') THEN
		RAISE EXCEPTION 'simhash_distributed_guard: action must be "reject" or "skip", not "%"', action
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	-- k in range for the width, before anything is created
	EXECUTE format('SELECT @extschema@.simhash_blocks($1::%s, %s)', fptype, k)
		USING CASE fptype WHEN '@extschema@.simhash'::regtype THEN repeat('0', 16)
			WHEN '@extschema@.simhash128'::regtype THEN repeat('0', 32) ELSE repeat('0', 64) END;
	registry := format('%I.%I', nsp, rel || '_simhash_registry');
	locks := format('%I.%I', nsp, rel || '_simhash_locks');
	view := format('%I.%I', nsp, rel || '_guarded');

	EXECUTE format('CREATE TABLE %s (key bigint NOT NULL, id bigint NOT NULL, fp %s NOT NULL)', registry, fptype);
	EXECUTE format('CREATE TABLE %s (key bigint PRIMARY KEY, n bigint NOT NULL)', locks);
	IF distributed THEN
		EXECUTE format('SELECT pg_catalog.count(*)::integer FROM pg_catalog.pg_dist_shard WHERE logicalrelid = %s',
			relation::oid) INTO shards;
		EXECUTE format('SELECT create_distributed_table(%L, ''key'', shard_count => %s, colocate_with => ''none'')',
			registry, shards);
		EXECUTE format('SELECT create_distributed_table(%L, ''key'', colocate_with => %L)', locks, registry);
	END IF;
	EXECUTE format('CREATE INDEX ON %s (key)', registry);
	EXECUTE format('CREATE INDEX ON %s USING gin (fp)', registry);
	EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b.key, t.%I, t.%I FROM %s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
		' WHERE t.%I IS NOT NULL', registry, id_column, fp_column, relation, fp_column, k, fp_column);

	-- the view, with the table's defaults (an insert through it gets them
	-- as an insert into the table would); Citus does not propagate column
	-- defaults of a view, so they are set on this node only
	EXECUTE format('CREATE VIEW %s AS SELECT * FROM %s', view, relation);
--@include parts/guard-view-defaults.sql
	SELECT pg_catalog.string_agg(pg_catalog.quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO columns
		FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = '';
	EXECUTE format('CREATE TRIGGER simhash_guard INSTEAD OF INSERT ON %s'
		' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_trigger(%L, %L, %L, %L, %L, %L, %L, %L, %L)',
		view, relation, registry, locks, id_column, fp_column, fptype, k, lower(action), columns);
	RETURN view::regclass;
END
$$;
--@describe sets up race-free insert-time rejection of rows within k bits for a (Citus distributed) table: a registry of its fingerprints and a lock table distributed by block key, filled from its rows, and the view <table>_guarded whose INSERT goes through them
