--@ The GiST operator class of a width (inside --@widths): the same
--@ operators and support functions at 64 (1.0) and at 128 and 256 (1.5).
CREATE OPERATOR CLASS @extschema@.{type}_gist_ops
	DEFAULT FOR TYPE @extschema@.{type} USING gist AS
	OPERATOR 1 @extschema@.<@ (@extschema@.{type}, @extschema@.{type}_ball),
	OPERATOR 15 @extschema@.<#> (@extschema@.{type}, @extschema@.{type}) FOR ORDER BY pg_catalog.integer_ops,
	FUNCTION 1 @extschema@.{type}_gist_consistent(internal, @extschema@.{type}_ball, smallint, oid, internal),
	FUNCTION 2 @extschema@.{type}_gist_union(internal, internal),
	FUNCTION 3 @extschema@.{type}_gist_compress(internal),
	FUNCTION 5 @extschema@.{type}_gist_penalty(internal, internal, internal),
	FUNCTION 6 @extschema@.{type}_gist_picksplit(internal, internal),
	FUNCTION 7 @extschema@.{type}_gist_same(@extschema@.{type}_gist_key, @extschema@.{type}_gist_key, internal),
	FUNCTION 8 @extschema@.{type}_gist_distance(internal, @extschema@.{type}, smallint, oid, internal),
	FUNCTION 9 @extschema@.{type}_gist_fetch(internal),
	FUNCTION 11 @extschema@.{type}_gist_sortsupport(internal),
	STORAGE @extschema@.{type}_gist_key;
