-- 1.11: the mih index access method (src/index/mih/, doc/indexes.md): exact
-- radius search fp <-> q <= k and ORDER BY fp <-> q by multi-index hashing
-- (Norouzi, Punjani and Fleet 2014), with each row's code kept in the index
-- so that a candidate is checked without reading the heap.  One operator
-- class for each width, the default for its type; every page change is
-- WAL-logged through generic WAL.  An access method belongs to the
-- database, not to a schema; creating one needs a superuser, which CREATE
-- EXTENSION of a trusted extension is while it runs the script.

--@functions mih

CREATE ACCESS METHOD mih TYPE INDEX HANDLER @extschema@.simhash_mih_handler;
COMMENT ON ACCESS METHOD mih IS
	'simhash: exact Hamming radius and nearest-neighbour search by multi-index hashing, codes kept in the index';
--@widths 64 128 256

CREATE OPERATOR CLASS @extschema@.{type}_mih_ops
	DEFAULT FOR TYPE @extschema@.{type} USING mih AS
	OPERATOR 1 @extschema@.<@ (@extschema@.{type}, @extschema@.{type}_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.{type}, @extschema@.{type}) FOR ORDER BY pg_catalog.integer_ops;
COMMENT ON OPERATOR CLASS @extschema@.{type}_mih_ops USING mih IS
	'mih: radius search fp <-> q <= k and ORDER BY fp <-> q on {type}, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.{type}_mih_ops USING mih IS
	'mih radius and nearest-neighbour search on {type}';
--@end
