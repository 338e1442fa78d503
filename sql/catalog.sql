-- Every function of the extension with its labels: volatility, strictness,
-- parallel safety, leakproofness, and no SECURITY DEFINER.  The labels are
-- promises the planner relies on; this file pins them.
CREATE EXTENSION IF NOT EXISTS simhash;
SELECT p.oid::regprocedure AS function,
       p.provolatile AS vol, p.proisstrict AS strict, p.proparallel AS par,
       p.proleakproof AS leakproof, p.prosecdef AS secdef,
       p.prosupport <> 0 AS has_support
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
ORDER BY p.proname, p.oid::regprocedure::text;
-- nothing runs with the definer's rights
SELECT count(*) AS security_definer FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
WHERE p.prosecdef;
-- operators and operator classes
SELECT o.oid::regoperator AS operator, o.oprcode AS function, o.oprcom::regoperator AS commutator,
       o.oprnegate::regoperator AS negator, o.oprrest AS restrict, o.oprjoin AS join
FROM pg_operator o
JOIN pg_depend d ON d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
ORDER BY o.oid::regoperator::text;
SELECT c.opcname, a.amname, c.opcdefault
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
JOIN pg_depend d ON d.classid = 'pg_opclass'::regclass AND d.objid = c.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
ORDER BY a.amname, c.opcname;
