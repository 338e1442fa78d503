-- 1.6: GIN classes for simhash128 and simhash256 whose keys carry 60 bits
-- of a 64-bit word, so that a candidate is measured inside the index: a
-- larger index than the default segment classes' and far fewer heap
-- rechecks at the radii wide fingerprints need (src/index/gin_wide_word.c).
-- And simhash_nearest_radius for simhash128 and simhash256 columns.

--@functions simhash128_gin_word
CREATE OPERATOR CLASS @extschema@.simhash128_gin_word_ops
	FOR TYPE @extschema@.simhash128 USING gin AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash128, @extschema@.simhash128_ball),
	FUNCTION 1 pg_catalog.btint8cmp(bigint, bigint),
	FUNCTION 2 @extschema@.simhash128_gin_word_extract_value(@extschema@.simhash128, internal, internal),
	FUNCTION 3 @extschema@.simhash128_gin_word_extract_query(@extschema@.simhash128_ball, internal, smallint, internal, internal, internal, internal),
	FUNCTION 4 @extschema@.simhash128_gin_word_consistent(internal, smallint, @extschema@.simhash128_ball, integer, internal, internal, internal, internal),
	FUNCTION 5 @extschema@.simhash128_gin_word_compare_partial(bigint, bigint, smallint, internal),
	FUNCTION 6 @extschema@.simhash128_gin_word_triconsistent(internal, smallint, @extschema@.simhash128_ball, integer, internal, internal, internal),
	STORAGE bigint;
COMMENT ON OPERATOR CLASS @extschema@.simhash128_gin_word_ops USING gin IS
	'GIN: radius search fp <-> q <= k on 8 keys holding 60 bits of a word each, measured in the index, exact';
COMMENT ON OPERATOR FAMILY @extschema@.simhash128_gin_word_ops USING gin IS
	'GIN radius search on simhash128 by word keys';

--@functions simhash256_gin_word
CREATE OPERATOR CLASS @extschema@.simhash256_gin_word_ops
	FOR TYPE @extschema@.simhash256 USING gin AS
	OPERATOR 1 @extschema@.<@ (@extschema@.simhash256, @extschema@.simhash256_ball),
	FUNCTION 1 pg_catalog.btint8cmp(bigint, bigint),
	FUNCTION 2 @extschema@.simhash256_gin_word_extract_value(@extschema@.simhash256, internal, internal),
	FUNCTION 3 @extschema@.simhash256_gin_word_extract_query(@extschema@.simhash256_ball, internal, smallint, internal, internal, internal, internal),
	FUNCTION 4 @extschema@.simhash256_gin_word_consistent(internal, smallint, @extschema@.simhash256_ball, integer, internal, internal, internal, internal),
	FUNCTION 5 @extschema@.simhash256_gin_word_compare_partial(bigint, bigint, smallint, internal),
	FUNCTION 6 @extschema@.simhash256_gin_word_triconsistent(internal, smallint, @extschema@.simhash256_ball, integer, internal, internal, internal),
	STORAGE bigint;
COMMENT ON OPERATOR CLASS @extschema@.simhash256_gin_word_ops USING gin IS
	'GIN: radius search fp <-> q <= k on 16 keys holding 60 bits of a word each, measured in the index, exact';
COMMENT ON OPERATOR FAMILY @extschema@.simhash256_gin_word_ops USING gin IS
	'GIN radius search on simhash256 by word keys';

--@functions nearest_wide
