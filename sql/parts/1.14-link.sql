-- 1.14: link (issue 40)

-- The 'link' action in the guard of simhash_distributed_guard: the row is
-- kept and its link and distance columns name its nearest near-duplicate
-- already in the table (the smallest id among the nearest), both NULL when
-- there is none.  The writes lock and search as 'reject' does; the view's
-- trigger takes twelve arguments, the ten of 1.12 and the two columns, and
-- calls the form of simhash_guard_lock_write that takes them.
--@include parts/guard-write.sql version=1.12 link=yes

-- No defaults: a form whose last arguments had defaults would make the
-- calls of the five- and seven-argument forms ambiguous.
CREATE FUNCTION @extschema@.simhash_distributed_guard(relation regclass,
	id_column name, fp_column name, k integer, action text, sig_column name, threshold double precision,
	link_column name, distance_column name)
RETURNS regclass
--@language plpgsql VOLATILE PARALLEL UNSAFE
DECLARE
	rel name;
	idtype regtype;
	linktype regtype;
	disttype regtype;
	gen "char";
	c name;
	view regclass;
	g record;
	args text[];
	note jsonb;
BEGIN
	IF relation IS NULL OR id_column IS NULL OR fp_column IS NULL OR k IS NULL OR action IS NULL THEN
		RETURN NULL;
	END IF;
	IF link_column IS NULL OR distance_column IS NULL THEN
		RAISE EXCEPTION 'simhash_distributed_guard: the link column and the distance column must not be NULL'
			USING ERRCODE = 'null_value_not_allowed',
			HINT = 'Without a link, call simhash_distributed_guard(relation, id_column, fp_column, k, action).';
	END IF;
	IF lower(action) <> 'link' THEN
		RAISE EXCEPTION 'simhash_distributed_guard: with a link column and a distance column the action must be "link", not "%"', action
			USING ERRCODE = 'invalid_parameter_value',
			HINT = 'For "reject" or "skip", call simhash_distributed_guard(relation, id_column, fp_column, k, action[, sig_column, threshold]).';
	END IF;
	SELECT c.relname INTO rel FROM pg_catalog.pg_class c WHERE c.oid = relation;
	IF rel IS NULL THEN
		RAISE EXCEPTION 'relation with OID % does not exist', relation::oid USING ERRCODE = 'undefined_table';
	END IF;
	PERFORM @extschema@.simhash_check_columns(relation, id_column, fp_column);
	SELECT a.atttypid::regtype INTO idtype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = id_column AND a.attnum > 0 AND NOT a.attisdropped;
	-- the two columns the write sets, checked before anything is created
	FOREACH c IN ARRAY ARRAY[link_column, distance_column] LOOP
		SELECT a.attgenerated INTO gen FROM pg_catalog.pg_attribute a
			WHERE a.attrelid = relation AND a.attname = c AND a.attnum > 0 AND NOT a.attisdropped;
		IF NOT FOUND THEN
			RAISE EXCEPTION 'column "%" of relation "%" does not exist', c, rel
				USING ERRCODE = 'undefined_column';
		END IF;
		IF gen <> '' OR c IN (id_column, fp_column) OR c IS NOT DISTINCT FROM sig_column
			OR link_column = distance_column THEN
			RAISE EXCEPTION 'simhash_distributed_guard: column "%" of relation "%" cannot take the link', c, rel
				USING ERRCODE = 'invalid_parameter_value',
				DETAIL = 'The link and distance columns must be two distinct ordinary columns, not generated, and not the id, fingerprint or signature column.';
		END IF;
	END LOOP;
	SELECT a.atttypid::regtype INTO linktype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = link_column;
	IF linktype <> idtype THEN
		RAISE EXCEPTION 'simhash_distributed_guard: link column "%" of relation "%" is of type %, not % as id column "%"',
			link_column, rel, linktype, idtype, id_column
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	SELECT a.atttypid::regtype INTO disttype FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = relation AND a.attname = distance_column;
	IF disttype NOT IN ('pg_catalog.int2'::regtype, 'pg_catalog.int4'::regtype, 'pg_catalog.int8'::regtype) THEN
		RAISE EXCEPTION 'simhash_distributed_guard: distance column "%" of relation "%" is of type %, not smallint, integer or bigint',
			distance_column, rel, disttype
			USING ERRCODE = 'datatype_mismatch';
	END IF;

	-- the guard of 'reject', then its trigger and its record made 'link's
	view := @extschema@.simhash_distributed_guard(relation, id_column, fp_column, k, 'reject', sig_column, threshold);
	g := @extschema@.simhash_guard_of(relation);
	args := g.args[1:6] OPERATOR(pg_catalog.||) ARRAY['link'] OPERATOR(pg_catalog.||) g.args[8:10]
		OPERATOR(pg_catalog.||) ARRAY[link_column::text, distance_column::text];
	EXECUTE format('DROP TRIGGER simhash_guard ON %s', view);
	EXECUTE format('CREATE TRIGGER simhash_guard INSTEAD OF INSERT OR UPDATE OR DELETE ON %s'
		' FOR EACH ROW EXECUTE FUNCTION @extschema@.simhash_guard_view_trigger(%s)', view,
		(SELECT pg_catalog.string_agg(pg_catalog.quote_literal(a), ', ' ORDER BY n)
			FROM pg_catalog.unnest(args) WITH ORDINALITY u(a, n)));
	note := pg_catalog.substr(pg_catalog.obj_description(g.registry, 'pg_class'), 27)::jsonb;
	EXECUTE format('COMMENT ON TABLE %s IS %L', g.registry, 'simhash_distributed_guard '
		OPERATOR(pg_catalog.||) pg_catalog.jsonb_set(note, '{args}', pg_catalog.to_jsonb(args))::text);
	RETURN view;
END
$$;
--@describe sets up the guard of simhash_distributed_guard with the 'link' action (action must be 'link'; sig_column and threshold NULL without verification): every row is kept, and the id of its nearest near-duplicate already in the table (the smallest id among the nearest) and their distance are written into link_column (of the id column's type) and distance_column (smallint, integer or bigint), both NULL when there is none

-- simhash_guard_check: guards with the 'link' action too
--@include parts/guard-check.sql version=1.12 link=yes
