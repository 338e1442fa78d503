--@ simhash_distributed_pairs as 1.8 made it (version=1.8: block keys at
--@ every width), as 1.12 replaces it (version=1.12: word tasks at 128 and
--@ 256 bits) and as 1.13 does (version=1.13: node tasks, falling back to
--@ 1.12's word tasks); one text, what differs under --@if.
--@if {version} = 1.8
CREATE FUNCTION @extschema@.simhash_distributed_pairs(relation regclass,
--@else
CREATE OR REPLACE FUNCTION @extschema@.simhash_distributed_pairs(relation regclass,
--@end
	id_column name, fp_column name, k integer)
RETURNS TABLE (id1 bigint, id2 bigint, distance integer)
--@language plpgsql VOLATILE STRICT PARALLEL UNSAFE
DECLARE
	work regclass;
--@if {version} != 1.8
	fptype regtype;
	shard_of text;
--@end
--@if {version} = 1.13
	t record;
	hashed boolean;
	words_of text := '';
	query_of text := '';
--@end
BEGIN
--@include parts/distributed-local.sql batch=simhash_pairs
--@if {version} != 1.8
	fptype := @extschema@.simhash_check_spread(relation, id_column, fp_column, k);
	IF fptype <> '@extschema@.simhash'::regtype THEN
--@if {version} = 1.13
		-- node tasks read the table's own shards where they lie, outside
		-- Citus's routing: only as the transaction's first statement, when
		-- no connection can hold a write of this transaction to the table
		EXECUTE 'SELECT p.partmethod OPERATOR(pg_catalog.=) ''h'' FROM pg_catalog.pg_dist_partition p'
			' WHERE p.logicalrelid OPERATOR(pg_catalog.=) $1' USING relation INTO hashed;
		IF hashed AND pg_catalog.statement_timestamp() OPERATOR(pg_catalog.=) pg_catalog.transaction_timestamp() THEN
			FOR t IN SELECT * FROM @extschema@.simhash_spread_nodes(relation, id_column, fp_column, k) LOOP
				work := t.work;
				words_of := words_of || format(' WHEN %s THEN %L::integer[]', t.task, t.words);
				query_of := query_of || format(' WHEN %s THEN %L', t.task, t.query);
			END LOOP;
			RETURN QUERY EXECUTE format(
				'SELECT p.id1, p.id2, p.distance FROM (SELECT task FROM %1$s GROUP BY task) t'
				' CROSS JOIN LATERAL @extschema@.simhash_word_passes(CASE t.task%3$s END, %4$s, CASE t.task%2$s END) p',
				work, words_of, query_of, k);
			EXECUTE format('DROP TABLE %s', work);
			RETURN;
		END IF;
--@end
		work := @extschema@.simhash_spread_words(relation, id_column, fp_column, k);
		-- the shard of a task, by its hash range: a CASE the workers evaluate
		EXECUTE format('SELECT ''CASE'' || pg_catalog.string_agg(pg_catalog.format('' WHEN worker_hash(t.task)'
			' BETWEEN %%s AND %%s THEN %%L'', s.shardminvalue, s.shardmaxvalue,'
			' shard_name(s.logicalrelid, s.shardid, false)), '''') || '' END'''
			' FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid OPERATOR(pg_catalog.=) %s',
			work::oid) INTO shard_of;
		RETURN QUERY EXECUTE format(
			'SELECT p.id1, p.id2, p.distance FROM (SELECT task FROM %1$s GROUP BY task) t'
			' CROSS JOIN LATERAL @extschema@.simhash_word_pairs(pg_catalog.format('
			'''SELECT id, fp FROM %%s WHERE task = %%s'', %2$s, t.task), %3$s, t.task %% %4$s) p',
			work, shard_of, k, CASE fptype WHEN '@extschema@.simhash128'::regtype THEN 2 ELSE 4 END);
		EXECUTE format('DROP TABLE %s', work);
		RETURN;
	END IF;
--@end
	work := @extschema@.simhash_spread_blocks(relation, id_column, fp_column, k);
	RETURN QUERY EXECUTE format(
		'SELECT p.id1, p.id2, p.distance FROM (SELECT key, pg_catalog.array_agg(id) AS ids,'
		' pg_catalog.array_agg(fp) AS fps FROM %s GROUP BY key) g'
		' CROSS JOIN LATERAL @extschema@.simhash_block_pairs(g.key, g.ids, g.fps, %s) p',
		work, k);
	EXECUTE format('DROP TABLE %s', work);
END
$$;
--@if {version} = 1.8
--@describe every pair of rows of the table within Hamming distance k, id1 < id2, as simhash_pairs; on a Citus distributed table computed on the workers, in groups of rows sharing a block key
--@else
--@if {version} = 1.13
--@describe every pair of rows of the table within Hamming distance k, id1 < id2, as simhash_pairs; on a Citus distributed table computed on the workers: at 128 and 256 bits one task per node for its share of the word passes, reading that node's shards and a copy of the other nodes' codes (word tasks, as 1.12, after other statements of the transaction), at 64 bits in groups of rows sharing a block key
--@else
--@describe every pair of rows of the table within Hamming distance k, id1 < id2, as simhash_pairs; on a Citus distributed table computed on the workers: at 128 and 256 bits one task per word pass of the search, each row's code copied once per task, at 64 bits in groups of rows sharing a block key
--@end
--@end
