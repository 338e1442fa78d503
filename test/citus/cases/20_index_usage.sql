-- The radius searches of the cases before went through every shard's own
-- GIN indexes: on the workers, each shard of docs has its three GIN
-- indexes with idx_scan > 0.  (Plans are not compared: they may change
-- with the statistics; that an index was scanned at all does not.)
SET client_min_messages = warning;
-- per shard: how many of its GIN indexes were scanned, of how many
CREATE FUNCTION shard_gin_scans() RETURNS TABLE (scanned text, shards bigint) LANGUAGE sql AS $$
	SELECT result, count(*) FROM run_command_on_shards('docs',
		$c$SELECT count(*) FILTER (WHERE s.idx_scan > 0) || ' of ' || count(*)
		   FROM pg_stat_user_indexes s JOIN pg_class c ON c.oid = s.indexrelid
		   JOIN pg_am a ON a.oid = c.relam
		   WHERE s.relid = '%s'::regclass AND a.amname = 'gin'$c$)
	GROUP BY result
$$;
-- a worker's backend reports its counts when it goes idle or exits (the
-- sessions of the cases before have ended): wait for them, 60 s at most
DO $$
BEGIN
	FOR i IN 1 .. 120 LOOP
		EXIT WHEN (SELECT count(*) = 1 AND min(scanned) = '3 of 3' FROM shard_gin_scans());
		PERFORM pg_sleep(0.5);
	END LOOP;
END $$;
SELECT scanned, shards = (SELECT count(*) FROM citus_shards WHERE table_name = 'docs'::regclass) AS every_shard
FROM shard_gin_scans();
