-- 1.14: the similarity operator fp % q in pg_trgm's convention, true when
-- simhash_similarity(fp, q) is at least the setting
-- simhash.similarity_threshold (default 0.9).  Its support function makes
-- it simhash_within(fp, q, simhash_similarity_radius(bits)), so the radius
-- search's indexes answer it; the radius is read when the plan runs.
--@functions similar

--@widths 64 128 256
CREATE OPERATOR @extschema@.% (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type},
	FUNCTION = @extschema@.simhash_similar, COMMUTATOR = OPERATOR(@extschema@.%)
);
COMMENT ON OPERATOR @extschema@.% (@extschema@.{type}, @extschema@.{type}) IS
	'similar: simhash_similarity >= simhash.similarity_threshold';
--@end
