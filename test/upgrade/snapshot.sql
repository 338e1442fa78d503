-- Everything the simhash extension defines, printed without OIDs, so that
-- an updated installation can be compared line by line with a fresh one.
\pset format unaligned
\pset tuples_only on
WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'simhash'),
members AS (
	SELECT d.classid, d.objid FROM pg_depend d, ext
	WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e')
SELECT line FROM (
	SELECT 'member ' || pg_describe_object(classid, objid, 0) AS line FROM members
	UNION ALL
	SELECT format('function %s returns %s lang %s vol %s strict %s par %s leak %s secdef %s cost %s rows %s support %s src %s bin %s config %s comment %s',
		p.oid::regprocedure, pg_get_function_result(p.oid), l.lanname, p.provolatile, p.proisstrict,
		p.proparallel, p.proleakproof, p.prosecdef, p.procost, p.prorows, p.prosupport::regproc,
		p.prosrc, p.probin, p.proconfig, obj_description(p.oid, 'pg_proc'))
	FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
	WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
	UNION ALL
	SELECT format('aggregate %s trans %s final %s combine %s serial %s deserial %s stype %s init %s',
		a.aggfnoid::regprocedure, a.aggtransfn::regproc, a.aggfinalfn::regproc, a.aggcombinefn::regproc,
		a.aggserialfn::regproc, a.aggdeserialfn::regproc, a.aggtranstype::regtype, a.agginitval)
	FROM pg_aggregate a WHERE a.aggfnoid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
	UNION ALL
	SELECT format('operator %s code %s com %s neg %s rest %s join %s hash %s merge %s comment %s',
		o.oid::regoperator, o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator,
		o.oprrest, o.oprjoin, o.oprcanhash, o.oprcanmerge, obj_description(o.oid, 'pg_operator'))
	FROM pg_operator o WHERE o.oid IN (SELECT objid FROM members WHERE classid = 'pg_operator'::regclass)
	UNION ALL
	SELECT format('type %s len %s byval %s align %s storage %s in %s out %s recv %s send %s base %s notnull %s default %s comment %s',
		t.oid::regtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typinput, t.typoutput,
		t.typreceive, t.typsend, t.typbasetype::regtype, t.typnotnull, t.typdefault, obj_description(t.oid, 'pg_type'))
	FROM pg_type t WHERE t.oid IN (SELECT objid FROM members WHERE classid = 'pg_type'::regclass)
	UNION ALL
	SELECT format('cast %s -> %s func %s context %s method %s',
		c.castsource::regtype, c.casttarget::regtype, c.castfunc::regprocedure, c.castcontext, c.castmethod)
	FROM pg_cast c WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_cast'::regclass)
	UNION ALL
	SELECT format('opclass %s %s default %s type %s key %s',
		am.amname, c.opcname, c.opcdefault, c.opcintype::regtype, c.opckeytype::regtype)
	FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
	WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_opclass'::regclass)
	UNION ALL
	SELECT format('amop %s %s strategy %s %s purpose %s sortfamily %s',
		am.amname, f.opfname, o.amopstrategy, o.amopopr::regoperator, o.amoppurpose, o.amopsortfamily)
	FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily JOIN pg_am am ON am.oid = f.opfmethod
	WHERE f.oid IN (SELECT objid FROM members WHERE classid = 'pg_opfamily'::regclass)
	UNION ALL
	SELECT format('amproc %s %s %s %s proc %s number %s',
		am.amname, f.opfname, p.amproclefttype::regtype, p.amprocrighttype::regtype, p.amproc::regprocedure, p.amprocnum)
	FROM pg_amproc p JOIN pg_opfamily f ON f.oid = p.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
	WHERE f.oid IN (SELECT objid FROM members WHERE classid = 'pg_opfamily'::regclass)
) s ORDER BY line;
