-- 1.13: distributed pairs at 128 and 256 bits with one task per node
-- instead of one per word pass.  A node's task runs its share of the word
-- passes (simhash_word_pairs) over the rows of the shards that lie on its
-- node, read in place, and a copy of the codes (id and fingerprint) of the
-- rows on the other nodes: on n nodes each row is copied to the other task
-- nodes only, min(n, W / 64) - 1 times at most (once on two nodes, where
-- 1.12 copied it four times at 256 bits).

--@functions word_passes

-- The spread for node tasks at radius k: a new table (task integer, id
-- bigint, fp) in the relation's schema, distributed by task over one shard
-- per task node, each shard on its own node.  A task's rows are the codes
-- of the rows of the relation's shards that have no placement on its node
-- (found by the hash range of the distribution column, worker_hash), and
-- one row with NULL id and fingerprint, so that every task runs.  One row
-- per task: the table, the task, its words and the query its passes read:
-- its shard of the table, then each shard of the relation on its node.
-- Word 0 has a task of its own when there are two or more (its pass also
-- lists the rows of equal fingerprints, and most pairs are reported by the
-- first word within its radius); words 1 .. p - 1 go round the others.  On a table that is not
-- distributed, one task reads the table itself.
CREATE FUNCTION @extschema@.simhash_spread_nodes(relation regclass,
	id_column name, fp_column name, k integer)
RETURNS TABLE (work regclass, task integer, words integer[], query text)
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	fptype regtype;
	name text;
	npass integer;
	ntasks integer;
	distcol name;
	mins integer[];
	shardids bigint[];
	tasks integer[];
	workshards bigint[];
	nodes integer[];
	dest integer[];
	l integer;
	repl text;
	j integer;
	own text;
BEGIN
	fptype := @extschema@.simhash_check_spread(relation, id_column, fp_column, k);
	name := format('%I.%I', (SELECT n.nspname FROM pg_catalog.pg_class c
			JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = relation),
		'simhash_nodes_' || pg_catalog.pg_backend_pid() || '_' || relation::oid);
	npass := LEAST(k + 1, CASE fptype WHEN '@extschema@.simhash'::regtype THEN 1
		WHEN '@extschema@.simhash128'::regtype THEN 2 ELSE 4 END);
	-- a work table, dropped at the end: no WAL for its copies
	EXECUTE format('CREATE UNLOGGED TABLE %s (task integer NOT NULL, id bigint, fp %s)', name, fptype);
	own := format(' UNION ALL SELECT t.%I::pg_catalog.int8, t.%I FROM %%s t WHERE t.%I IS NOT NULL',
		id_column, fp_column, fp_column);

	IF NOT @extschema@.simhash_is_distributed(relation) THEN
		EXECUTE format('INSERT INTO %s (task) VALUES (0)', name);
		RETURN QUERY SELECT name::regclass, 0, ARRAY(SELECT pg_catalog.generate_series(0, npass - 1)),
			format('SELECT w.id, w.fp FROM %s w WHERE w.fp IS NOT NULL', name) || format(own, relation);
		RETURN;
	END IF;

	EXECUTE 'SELECT pg_catalog.column_to_column_name(p.logicalrelid, p.partkey) FROM pg_catalog.pg_dist_partition p'
		' WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1 AND p.partmethod OPERATOR(pg_catalog.=) ''h'''
		USING relation INTO distcol;
	IF distcol IS NULL THEN
		RAISE EXCEPTION 'simhash_spread_nodes: relation "%" is not distributed by hash', relation
			USING ERRCODE = 'feature_not_supported',
			HINT = 'simhash_spread_words spreads the rows of any distributed table.';
	END IF;
	-- the relation's shards in the order of their hash ranges, and the
	-- nodes that hold them, those with the most shards first
	EXECUTE 'SELECT pg_catalog.array_agg(s.shardminvalue::integer ORDER BY s.shardminvalue::integer),'
		' pg_catalog.array_agg(s.shardid ORDER BY s.shardminvalue::integer)'
		' FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid OPERATOR(pg_catalog.=) $1'
		USING relation INTO mins, shardids;
	EXECUTE 'SELECT pg_catalog.count(DISTINCT p.groupid)::integer FROM pg_catalog.pg_dist_placement p'
		' WHERE p.shardid OPERATOR(pg_catalog.=) ANY ($1) AND p.shardstate OPERATOR(pg_catalog.=) 1'
		USING shardids INTO ntasks;
	ntasks := LEAST(npass, GREATEST(ntasks, 1));

	-- one placement a work shard, so that a task runs where its copies lie
	repl := pg_catalog.current_setting('citus.shard_replication_factor');
	PERFORM pg_catalog.set_config('citus.shard_replication_factor', '1', true);
	EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, ''task'', shard_count => %s, colocate_with => ''none'')',
		name, ntasks);
	PERFORM pg_catalog.set_config('citus.shard_replication_factor', repl, true);
	-- for each work shard its least task number, and its node
	EXECUTE format('SELECT pg_catalog.array_agg(x.v ORDER BY x.s), pg_catalog.array_agg(x.s ORDER BY x.s),'
		' pg_catalog.array_agg(p.groupid ORDER BY x.s) FROM (SELECT DISTINCT ON (y.s) y.v, y.s FROM'
		' (SELECT v, pg_catalog.get_shard_id_for_distribution_column(%1$L, v) AS s FROM pg_catalog.generate_series(0, %2$s) v) y'
		' ORDER BY y.s, y.v) x JOIN pg_catalog.pg_dist_placement p ON p.shardid OPERATOR(pg_catalog.=) x.s',
		name, 1000 * ntasks) INTO tasks, workshards, nodes;
	IF pg_catalog.cardinality(tasks) IS DISTINCT FROM ntasks THEN
		RAISE EXCEPTION 'simhash_spread_nodes: found task numbers for % of the % shards of %',
			pg_catalog.cardinality(tasks), ntasks, name
			USING ERRCODE = 'internal_error';
	END IF;

	EXECUTE format('INSERT INTO %s (task) SELECT pg_catalog.unnest(%L::integer[])', name, tasks);
	-- in layers: dest[i] is the l-th task (in task order) whose node holds
	-- no placement of shard i, NULL past the last; each layer one pass over
	-- the relation that finds a row's shard once (on two nodes, one layer)
	FOR l IN 1 .. ntasks LOOP
		EXECUTE 'SELECT pg_catalog.array_agg((ARRAY(SELECT $3[j] FROM pg_catalog.generate_subscripts($2, 1) j'
			' WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_dist_placement p WHERE p.shardid OPERATOR(pg_catalog.=) $1[i]'
			' AND p.groupid OPERATOR(pg_catalog.=) $2[j] AND p.shardstate OPERATOR(pg_catalog.=) 1) ORDER BY j))[$4] ORDER BY i)'
			' FROM pg_catalog.generate_subscripts($1, 1) i'
			USING shardids, nodes, tasks, l INTO dest;
		EXIT WHEN pg_catalog.cardinality(pg_catalog.array_remove(dest, NULL)) OPERATOR(pg_catalog.=) 0;
		EXECUTE format('INSERT INTO %1$s (task, id, fp) SELECT x.task, x.id, x.fp FROM'
			' (SELECT (%2$L::integer[])[pg_catalog.width_bucket(pg_catalog.worker_hash(t.%3$I), %4$L::integer[])] AS task,'
			' t.%5$I AS id, t.%6$I AS fp FROM %7$s t WHERE t.%6$I IS NOT NULL) x WHERE x.task IS NOT NULL',
			name, dest, distcol, mins, id_column, fp_column, relation);
	END LOOP;

	FOR j IN 1 .. ntasks LOOP
		RETURN QUERY EXECUTE format('SELECT %1$L::pg_catalog.regclass, %2$s,'
			' ARRAY(SELECT w FROM pg_catalog.generate_series(0, %3$s) w WHERE CASE WHEN w OPERATOR(pg_catalog.=) 0'
			' OR %4$s OPERATOR(pg_catalog.=) 1 THEN 0 ELSE 1 OPERATOR(pg_catalog.+) (w OPERATOR(pg_catalog.-) 1)'
			' %% (%4$s OPERATOR(pg_catalog.-) 1) END OPERATOR(pg_catalog.=) %5$s),'
			' ''SELECT w.id, w.fp FROM '' OPERATOR(pg_catalog.||) pg_catalog.shard_name(%1$L, %6$s, false)'
			' OPERATOR(pg_catalog.||) '' w WHERE w.fp IS NOT NULL'' OPERATOR(pg_catalog.||) COALESCE(pg_catalog.string_agg('
			'pg_catalog.format(%7$L, pg_catalog.shard_name(%8$L, s.shardid, false)), '''' ORDER BY s.shardid), '''')'
			' FROM pg_catalog.pg_dist_shard s JOIN pg_catalog.pg_dist_placement p ON p.shardid OPERATOR(pg_catalog.=) s.shardid'
			' WHERE s.logicalrelid OPERATOR(pg_catalog.=) %9$s AND p.groupid OPERATOR(pg_catalog.=) %10$s'
			' AND p.shardstate OPERATOR(pg_catalog.=) 1',
			name, tasks[j], npass - 1, ntasks, j - 1, workshards[j], own, relation, relation::oid, nodes[j]);
	END LOOP;
END
$$;
--@describe a new table (task, id, fp) distributed by task over one shard per node that gets a task, holding the codes of the rows whose shards lie on the other nodes; one row per task: the table, the task, its word passes, and the query they read (its shard of the table, then the relation's shards on its node)

-- The pairs of a distributed table: at 128 and 256 bits, as the first
-- statement of its transaction, one task per node runs that node's word
-- passes (simhash_spread_nodes).  Each task reads the relation's shards on
-- its node directly, so it must not run after a write of the same
-- transaction, which another connection may hold: after other statements
-- the word tasks of 1.12 run instead.  Each pair comes out of the pass of
-- its first word within that word's radius, as in 1.12.
--@include parts/distributed-pairs.sql version=1.13
