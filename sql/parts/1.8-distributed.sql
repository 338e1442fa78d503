-- 1.8: tables spread over machines (Citus).  simhash_blocks gives the
-- exact-match block keys of the pigeonhole (src/blocks.c); the functions
-- below spread a table's rows by those keys, so that every pair within k
-- meets on one shard, and find the pairs there.

--@functions blocks
-- Whether relation is a table distributed by Citus (hash or append), whose
-- rows are on other machines: the catalog is looked up by name, so that
-- the extension needs no Citus to install.
CREATE FUNCTION @extschema@.simhash_is_distributed(relation regclass)
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
	EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition'
		' WHERE logicalrelid = $1 AND partmethod <> ''n'')'
		INTO found USING relation;
	RETURN found;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_is_distributed(regclass) IS
	'whether the relation is a Citus table distributed over shards (true), or a local or reference table (false); false when Citus is not installed';

-- The rows of relation spread by block key for radius k: a new table
-- (key bigint, id bigint, fp) in the relation's schema, distributed by key
-- over as many shards as the relation has, holding each row with a
-- fingerprint once per key of simhash_blocks(fp, k).  Citus fills it by
-- repartitioning between the workers.  Returns its name; the caller drops it.
CREATE FUNCTION @extschema@.simhash_spread_blocks(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS regclass
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	idtype regtype;
	fptype regtype;
	shards integer;
	work text;
BEGIN
	SELECT a.atttypid INTO idtype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = id_column AND a.attnum > 0 AND NOT a.attisdropped;
	SELECT a.atttypid INTO fptype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = fp_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF idtype IS NULL OR fptype IS NULL THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist',
			CASE WHEN idtype IS NULL THEN id_column ELSE fp_column END, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	IF idtype NOT IN ('bigint'::regtype, 'integer'::regtype, 'smallint'::regtype)
		OR fptype NOT IN ('@extschema@.simhash'::regtype, '@extschema@.simhash128'::regtype,
			'@extschema@.simhash256'::regtype) THEN
		RAISE EXCEPTION 'simhash_spread_blocks: the columns must be (id bigint, fp simhash), not (% %, % %)',
			id_column, idtype, fp_column, fptype
			USING ERRCODE = 'datatype_mismatch',
			DETAIL = 'The fingerprint may also be a simhash128 or a simhash256; the id a bigint, an integer or a smallint.';
	END IF;
	-- k in the range of the batch functions and of the blocks, before any work
	EXECUTE format('SELECT FROM @extschema@.simhash_block_pairs(0, ''{}'', ''{}''::%s[], %s)', fptype, k);
	EXECUTE format('SELECT pg_catalog.count(*)::integer FROM pg_catalog.pg_dist_shard WHERE logicalrelid = %s',
		relation::oid) INTO shards;
	work := format('%I.%I', (SELECT n.nspname FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = relation),
		'simhash_blocks_' || pg_catalog.pg_backend_pid() || '_' || relation::oid);
	EXECUTE format('CREATE TABLE %s (key bigint NOT NULL, id bigint, fp %s NOT NULL)', work, fptype);
	EXECUTE format('SELECT create_distributed_table(%L, ''key'', shard_count => %s, colocate_with => ''none'')',
		work, GREATEST(shards, 1));
	EXECUTE format('INSERT INTO %s (key, id, fp) SELECT b.key, t.%I, t.%I FROM %s t'
		' CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.simhash_blocks(t.%I, %s)) b(key)'
		' WHERE t.%I IS NOT NULL',
		work, id_column, fp_column, relation, fp_column, k, fp_column);
	RETURN work::regclass;
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_spread_blocks(regclass, name, name, integer) IS
	'a new table (key, id, fp) distributed by key, holding each row of the relation once per block key of simhash_blocks(fp, k): every pair within k shares a key, so it meets in one group';

-- The pairs of a distributed table, computed on its workers: each row is
-- copied once per block key into a table distributed by that key (Citus
-- moves the copies between workers, not through the coordinator), and each
-- group of a key is searched where it lies; simhash_block_pairs keeps a
-- pair only in the group of its first equal block, so the union needs no
-- de-duplication.  A table that is not distributed goes to simhash_pairs.
CREATE FUNCTION @extschema@.simhash_distributed_pairs(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	work regclass;
BEGIN
	IF NOT @extschema@.simhash_is_distributed(relation) THEN
		RETURN QUERY SELECT * FROM @extschema@.simhash_pairs(
			format('SELECT %I, %I FROM %s', id_column, fp_column, relation), k);
		RETURN;
	END IF;
	work := @extschema@.simhash_spread_blocks(relation, id_column, fp_column, k);
	RETURN QUERY EXECUTE format(
		'SELECT p.id1, p.id2, p.distance FROM (SELECT key, pg_catalog.array_agg(id) AS ids,'
		' pg_catalog.array_agg(fp) AS fps FROM %s GROUP BY key) g'
		' CROSS JOIN LATERAL @extschema@.simhash_block_pairs(g.key, g.ids, g.fps, %s) p',
		work, k);
	EXECUTE format('DROP TABLE %s', work);
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_distributed_pairs(regclass, name, name, integer) IS
	'every pair of rows of the table within Hamming distance k, id1 < id2, as simhash_pairs; on a Citus distributed table computed on the workers, in groups of rows sharing a block key';

-- The clusters of a distributed table: union-find over its pairs on the
-- coordinator (memory for the ids that have a near-duplicate), every row
-- without one its own cluster.
CREATE FUNCTION @extschema@.simhash_distributed_clusters(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS TABLE (id bigint, cluster_id bigint)
LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
	work regclass;
BEGIN
	IF NOT @extschema@.simhash_is_distributed(relation) THEN
		RETURN QUERY SELECT * FROM @extschema@.simhash_clusters(
			format('SELECT %I, %I FROM %s', id_column, fp_column, relation), k);
		RETURN;
	END IF;
	work := @extschema@.simhash_spread_blocks(relation, id_column, fp_column, k);
	RETURN QUERY EXECUTE format(
		'WITH c AS MATERIALIZED (SELECT * FROM @extschema@.simhash_pair_clusters(%1$L))'
		' SELECT r.id, COALESCE(c.cluster_id, r.id) FROM'
		' (SELECT DISTINCT %2$I::bigint AS id FROM %3$s WHERE %4$I IS NOT NULL) r'
		' LEFT JOIN c ON c.id OPERATOR(pg_catalog.=) r.id ORDER BY 1',
		format('SELECT p.id1, p.id2 FROM (SELECT key, pg_catalog.array_agg(id) AS ids,'
			' pg_catalog.array_agg(fp) AS fps FROM %s GROUP BY key) g'
			' CROSS JOIN LATERAL @extschema@.simhash_block_pairs(g.key, g.ids, g.fps, %s) p',
			work, k),
		id_column, relation, fp_column);
	EXECUTE format('DROP TABLE %s', work);
END
$$;
COMMENT ON FUNCTION @extschema@.simhash_distributed_clusters(regclass, name, name, integer) IS
	'every row of the table with the smallest id of its connected component of pairs within k, as simhash_clusters; on a Citus distributed table from simhash_distributed_pairs and union-find over the pairs';
