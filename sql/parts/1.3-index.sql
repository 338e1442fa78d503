-- 1.3: simhash_gin_segment_ops, GIN keys that hold only a 16-bit segment
-- value, shared by every row with that value (two sets of four segments by
-- default, the second of interleaved bits): a fraction of simhash_gin_ops's
-- size, as fast at radius 3, much slower at radius 8 and more.
-- (1.4 makes it the default GIN class: parts/1.4-default.sql.)
--@functions gin_segment

CREATE OPERATOR CLASS @extschema@.simhash_gin_segment_ops
	FOR TYPE @extschema@.simhash USING gin AS
--@gin_support simhash_gin simhash simhash
	FUNCTION 7 @extschema@.simhash_gin_segment_options(internal),
	STORAGE @extschema@.simhash;
COMMENT ON OPERATOR CLASS @extschema@.simhash_gin_segment_ops USING gin IS
	'GIN: radius search fp <-> q <= k on shared 16-bit segment keys, exact; small, for radii up to about 4 (segment_sets = 1: smaller still)';
COMMENT ON OPERATOR FAMILY @extschema@.simhash_gin_segment_ops USING gin IS
	'GIN radius search on simhash by segment keys';

-- 1.3: nearest neighbours through radius searches, for GIN indexes (and
-- GiST ones when most rows are far from the query)
--@functions nearest
