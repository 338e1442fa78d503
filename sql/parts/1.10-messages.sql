-- 1.10: messages that say what to do.  simhash_ddl_check (src/ddl_check.c)
-- looks at CREATE INDEX and CREATE TRIGGER before they run: a simhash
-- operator class on a column of another width is 42804 naming the classes
-- for the column's type, where PostgreSQL names neither; a near-duplicate
-- trigger whose radius matches unrelated rows at the column's width gets a
-- WARNING.  An event trigger belongs to the database, not to a schema;
-- creating one needs a superuser, which CREATE EXTENSION of a trusted
-- extension is while it runs the script.

--@functions ddl_check

CREATE EVENT TRIGGER simhash_ddl_check ON ddl_command_start
	WHEN TAG IN ('CREATE INDEX', 'CREATE TRIGGER')
	EXECUTE FUNCTION @extschema@.simhash_ddl_check();
COMMENT ON EVENT TRIGGER simhash_ddl_check IS
	'simhash: names the operator classes of a column''s width on CREATE INDEX, warns of a near-duplicate trigger radius that matches unrelated rows';
