-- 1.10: the verification stage and binary weights (doc/minhash.md).
-- Binary-weight fingerprints are new functions: stored fingerprints of the
-- 1+ln(tf) functions keep their meaning.
--@functions binary_weights

-- minhash: 256 bins of 4 bits, 128 bytes, no header; the text form is 256
-- hexadecimal digits, digit i the value of bin i
--@type minhash 128 char
COMMENT ON TYPE @extschema@.minhash IS
	'MinHash signature of a feature set: 256 bins of 4 bits (one-permutation hashing, optimal densification), 256 hex digits';
CREATE OPERATOR @extschema@.= (
	LEFTARG = @extschema@.minhash, RIGHTARG = @extschema@.minhash,
	FUNCTION = @extschema@.minhash_eq, COMMUTATOR = =, NEGATOR = <>,
	RESTRICT = eqsel, JOIN = eqjoinsel
);
CREATE OPERATOR @extschema@.<> (
	LEFTARG = @extschema@.minhash, RIGHTARG = @extschema@.minhash,
	FUNCTION = @extschema@.minhash_ne, COMMUTATOR = <>, NEGATOR = =,
	RESTRICT = neqsel, JOIN = neqjoinsel
);
COMMENT ON OPERATOR @extschema@.=(@extschema@.minhash, @extschema@.minhash) IS 'equal signatures';
COMMENT ON OPERATOR @extschema@.<>(@extschema@.minhash, @extschema@.minhash) IS 'different signatures';

--@functions minhash

-- the verification stage in the batch functions: (id, fp, sig) rows and a
-- threshold of minhash_jaccard
--@functions verified_batch
