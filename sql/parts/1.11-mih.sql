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

CREATE OPERATOR CLASS @extschema@.simhash_mih_ops
	DEFAULT FOR TYPE @extschema@.simhash USING mih AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash, @extschema@.simhash_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.simhash, @extschema@.simhash) FOR ORDER BY pg_catalog.integer_ops;
COMMENT ON OPERATOR CLASS @extschema@.simhash_mih_ops USING mih IS
	'mih: radius search fp <-> q <= k and ORDER BY fp <-> q on simhash, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_mih_ops USING mih IS
	'mih radius and nearest-neighbour search on simhash';

CREATE OPERATOR CLASS @extschema@.simhash128_mih_ops
	DEFAULT FOR TYPE @extschema@.simhash128 USING mih AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash128, @extschema@.simhash128_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.simhash128, @extschema@.simhash128) FOR ORDER BY pg_catalog.integer_ops;
COMMENT ON OPERATOR CLASS @extschema@.simhash128_mih_ops USING mih IS
	'mih: radius search fp <-> q <= k and ORDER BY fp <-> q on simhash128, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash128_mih_ops USING mih IS
	'mih radius and nearest-neighbour search on simhash128';

CREATE OPERATOR CLASS @extschema@.simhash256_mih_ops
	DEFAULT FOR TYPE @extschema@.simhash256 USING mih AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash256, @extschema@.simhash256_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.simhash256, @extschema@.simhash256) FOR ORDER BY pg_catalog.integer_ops;
COMMENT ON OPERATOR CLASS @extschema@.simhash256_mih_ops USING mih IS
	'mih: radius search fp <-> q <= k and ORDER BY fp <-> q on simhash256, exact (default)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash256_mih_ops USING mih IS
	'mih radius and nearest-neighbour search on simhash256';
