--@ simhash_distributed_pairs and simhash_distributed_clusters on a table
--@ that is not distributed: the checks of the distributed forms, then the
--@ batch function {batch} over the table's rows.
	IF NOT @extschema@.simhash_is_distributed(relation) THEN
		PERFORM @extschema@.simhash_check_spread(relation, id_column, fp_column, k);
		RETURN QUERY SELECT * FROM @extschema@.{batch}(
			format('SELECT %I, %I FROM %s', id_column, fp_column, relation), k);
		RETURN;
	END IF;
