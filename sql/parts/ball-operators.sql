--@ fp <@ ball and ball @> fp of a width (inside --@widths): at 64 (1.0),
--@ and at 128 and 256 (1.5) with a longer description.
CREATE OPERATOR @extschema@.<@ (
	LEFTARG = @extschema@.{type}, RIGHTARG = @extschema@.{type}_ball,
	FUNCTION = @extschema@.simhash_in_ball,
	COMMUTATOR = OPERATOR(@extschema@.@>),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.<@ (@extschema@.{type}, @extschema@.{type}_ball) IS
--@if {bits} = 64
	'is within the Hamming ball';
--@else
	'fingerprint is within the Hamming ball (distance to its centre <= its radius, in bits)';
--@end
CREATE OPERATOR @extschema@.@> (
	LEFTARG = @extschema@.{type}_ball, RIGHTARG = @extschema@.{type},
	FUNCTION = @extschema@.simhash_ball_contains,
	COMMUTATOR = OPERATOR(@extschema@.<@),
	RESTRICT = @extschema@.simhash_ball_restrict, JOIN = @extschema@.simhash_ball_joinsel
);
COMMENT ON OPERATOR @extschema@.@> (@extschema@.{type}_ball, @extschema@.{type}) IS
	'Hamming ball contains';
