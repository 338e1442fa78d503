--@ The loop of simhash_distributed_guard (1.8, 1.9, 1.10) that gives the
--@ guard's view the table's column defaults.
	FOR d IN SELECT a.attname, pg_catalog.pg_get_expr(ad.adbin, ad.adrelid) AS expr
		FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_attrdef ad
			ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
		WHERE a.attrelid = relation AND a.attgenerated = '' AND NOT a.attisdropped
	LOOP
		IF distributed THEN
			PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'off', true);
		END IF;
		EXECUTE format('ALTER VIEW %s ALTER COLUMN %I SET DEFAULT %s', view, d.attname, d.expr);
		IF distributed THEN
			PERFORM pg_catalog.set_config('citus.enable_ddl_propagation', 'on', true);
		END IF;
	END LOOP;
