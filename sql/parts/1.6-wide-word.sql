-- 1.6: GIN classes for simhash128 and simhash256 whose keys carry 60 bits
-- of a 64-bit word, so that a candidate is measured inside the index: a
-- larger index than the default segment classes' and far fewer heap
-- rechecks at the radii wide fingerprints need (src/index/gin_wide_word.c).
-- And simhash_nearest_radius for simhash128 and simhash256 columns.

--@widths 128 256
--@functions {type}_gin_word
CREATE OPERATOR CLASS @extschema@.{type}_gin_word_ops
	FOR TYPE @extschema@.{type} USING gin AS
--@gin_support {type}_gin_word {type} bigint partial
	STORAGE bigint;
COMMENT ON OPERATOR CLASS @extschema@.{type}_gin_word_ops USING gin IS
	'GIN: radius search fp <-> q <= k on {segments} keys holding 60 bits of a word each, measured in the index, exact';
COMMENT ON OPERATOR FAMILY @extschema@.{type}_gin_word_ops USING gin IS
	'GIN radius search on {type} by word keys';

--@end
--@widths 128 256
--@functions {type}_nearest_radius
--@end
