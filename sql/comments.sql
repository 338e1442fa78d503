-- Every object of the extension a user can name has a description, so that
-- \df+, \do+, \dT+ and GUI tools explain it.  Functions that take or return
-- internal are support functions SQL cannot call, and are exempt.  Lists
-- the objects without one (none expected).
CREATE EXTENSION IF NOT EXISTS simhash;
WITH members AS (
	SELECT d.classid, d.objid
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE e.extname = 'simhash' AND d.deptype = 'e')
SELECT pg_describe_object(m.classid, m.objid, 0) AS undescribed
FROM members m
JOIN pg_class c ON c.oid = m.classid
WHERE c.relname IN ('pg_proc', 'pg_operator', 'pg_type', 'pg_opclass', 'pg_opfamily')
  AND obj_description(m.objid, c.relname) IS NULL
  -- array types are made by CREATE TYPE and carry no description of their own
  AND NOT EXISTS (SELECT FROM pg_type t WHERE c.relname = 'pg_type' AND t.oid = m.objid AND t.typelem <> 0 AND t.typlen = -1)
  AND NOT EXISTS (SELECT FROM pg_proc p WHERE c.relname = 'pg_proc' AND p.oid = m.objid
                  AND ('internal'::regtype = ANY (p.proargtypes) OR p.prorettype = 'internal'::regtype))
ORDER BY 1;
-- how many there are of each kind, so that the check above cannot pass by
-- finding no objects
WITH members AS (
	SELECT d.classid, d.objid
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE e.extname = 'simhash' AND d.deptype = 'e')
SELECT c.relname, count(*) > 0 AS some, count(*) FILTER (WHERE obj_description(m.objid, c.relname) IS NOT NULL) > 0 AS described
FROM members m JOIN pg_class c ON c.oid = m.classid
WHERE c.relname IN ('pg_proc', 'pg_operator', 'pg_type', 'pg_opclass', 'pg_opfamily')
GROUP BY c.relname ORDER BY 1;
-- descriptions are one line
WITH members AS (
	SELECT d.classid, d.objid
	FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
	WHERE e.extname = 'simhash' AND d.deptype = 'e')
SELECT pg_describe_object(m.classid, m.objid, 0) AS multiline
FROM members m JOIN pg_class c ON c.oid = m.classid
WHERE obj_description(m.objid, c.relname) LIKE E'%\n%';
