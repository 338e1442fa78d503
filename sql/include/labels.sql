-- Shared by batch.sql and wide_batch.sql (\i): propagate_labels() gives
-- each row of lab (id, label) the smallest label over the edges (a, b) of
-- its connected component, by iterating the self-join until nothing
-- changes (label propagation: the components simhash_clusters must find)
CREATE PROCEDURE pg_temp.propagate_labels() LANGUAGE plpgsql AS $$
DECLARE changed bigint;
BEGIN
	LOOP
		UPDATE lab SET label = m.label FROM (
			SELECT e.a AS id, min(l.label) AS label FROM edges e JOIN lab l ON l.id = e.b GROUP BY e.a) m
		WHERE lab.id = m.id AND m.label < lab.label;
		GET DIAGNOSTICS changed = ROW_COUNT;
		EXIT WHEN changed = 0;
	END LOOP;
END $$;
