-- 1.12: distributed pairs at 128 and 256 bits that move each row's code
-- (id and fingerprint, never the row) once per word pass of the search of
-- simhash_pairs, min(k + 1, W / 64) copies (at most 4 at 256 bits, 2 at
-- 128), instead of once per block key, max(k + 1, W / 32) copies (33 at
-- 256 bits and k = 32).  The passes are independent (src/batch/batch_wide.c):
-- simhash_word_pairs runs one, and over the words each pair of
-- simhash_pairs comes out once.  64 bits keeps the block keys: one word is
-- one task, which would put every row on one worker.

--@functions word_pairs

-- The rows of relation spread by word pass for radius k: a new table
-- (task integer, id bigint, fp) in the relation's schema holding each row
-- with a fingerprint once per word with a pass, the word being task % w
-- for the w words of the width.  When relation is distributed the table is
-- distributed by task over one shard per task, and the task numbers are
-- chosen so that each lies on its own shard, and the shards on as many
-- nodes as there are (Citus places a new table's shards round robin);
-- Citus fills it by repartitioning between the workers.  Returns its name;
-- the caller drops it.
--@include parts/spread-start.sql name=words key=task keytype=integer
	nw := CASE fptype WHEN '@extschema@.simhash'::regtype THEN 1
		WHEN '@extschema@.simhash128'::regtype THEN 2 ELSE 4 END;
	ntasks := LEAST(k + 1, nw);
	IF @extschema@.simhash_is_distributed(relation) THEN
		EXECUTE format('SELECT create_distributed_table(%L, ''task'', shard_count => %s, colocate_with => ''none'')',
			work, ntasks);
		-- for word w, the least task w + i * nw on a shard not yet taken,
		-- on the node with the fewest tasks so far
		FOR w IN 0 .. ntasks - 1 LOOP
			task := NULL;
			EXECUTE format('SELECT v, s.shard, p.groupid FROM pg_catalog.generate_series(%s, %s, %s) v'
				' CROSS JOIN LATERAL (SELECT get_shard_id_for_distribution_column(%L, v) AS shard) s'
				' JOIN pg_catalog.pg_dist_placement p ON p.shardid OPERATOR(pg_catalog.=) s.shard'
				' WHERE s.shard OPERATOR(pg_catalog.<>) ALL ($1)'
				' ORDER BY (SELECT pg_catalog.count(*) FROM pg_catalog.unnest($2) g'
				' WHERE g OPERATOR(pg_catalog.=) p.groupid), v LIMIT 1',
				w, w + nw * 1023, nw, work) USING shards, nodes INTO task, shard, node;
			IF task IS NULL THEN
				RAISE EXCEPTION 'simhash_spread_words: no shard of % left for word %', work, w;
			END IF;
			tasks := tasks || task;
			shards := shards || shard;
			nodes := nodes || node;
		END LOOP;
	ELSE
		tasks := ARRAY(SELECT pg_catalog.generate_series(0, ntasks - 1));
	END IF;
	EXECUTE format('INSERT INTO %s (task, id, fp) SELECT w.task, t.%I, t.%I FROM %s t'
		' CROSS JOIN pg_catalog.unnest(%L::integer[]) w(task) WHERE t.%I IS NOT NULL',
		work, id_column, fp_column, relation, tasks, fp_column);
	RETURN work::regclass;
END
$$;
--@describe a new table (task, id, fp) distributed by task, holding each row of the relation once per word of the fingerprint with a pass of the search for radius k (task % words is the word), one task a shard, spread over the nodes

-- The pairs of a distributed table, computed on its workers (see 1.8).  At
-- 128 and 256 bits each row's code goes to the task of each word with a
-- pass (simhash_spread_words), and each task runs simhash_word_pairs on
-- its own shard where it lies: the query it reads is that shard, named by
-- Citus's shard_name and found from the task by its hash range
-- (worker_hash), so no row goes through an array or the coordinator.  Each
-- pair comes out of the pass of its first word within that word's radius,
-- so the union needs no de-duplication.  At 64 bits (one word, one task)
-- the rows are spread by block key, as 1.8 does.  A table that is not
-- distributed goes to simhash_pairs.
--@include parts/distributed-pairs.sql version=1.12
