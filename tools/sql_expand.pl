#!/usr/bin/perl
# sql_expand.pl: expand the templates of an SQL script.  Copies standard
# input to standard output, except these template lines:
#
#   --@comparisons TYPE
#       the six comparisons (< <= = <> >= >) of simhash_distance with TYPE:
#       their functions and operators, both ways round for an integer type.
#       The operator matrix is written once, here.
#   --@comparison_comments TYPE
#       the descriptions (COMMENT ON) of those functions and operators.
#   --@functions SECTION
#       CREATE FUNCTION (and COMMENT ON FUNCTION) for the C functions of
#       section [SECTION] of functions.tsv in the same directory: one row a
#       function, see that file's header.  Placeholders in the file are
#       replaced first, so that [{type}_io] is the section simhash128_io
#       inside "--@widths 128".
#   --@descriptions FILE
#       COMMENT ON statements from a table (relative to the same directory
#       as --@include): a line per object, what is described (as written
#       after COMMENT ON), a tab, the description; # starts a comment line.
#       Placeholders are replaced as in the script.
#   --@type NAME LENGTH ALIGNMENT
#       a base type: its shell, its I/O functions (section [NAME_io] of
#       functions.tsv: NAME_in, NAME_out and, where the section has them,
#       NAME_recv and NAME_send) and the type itself, fixed length, plain.
#   --@gin_support PREFIX TYPE KEY [partial]
#       the body of a GIN operator class on TYPE for fp <@ TYPE_ball up to
#       its own support functions: operator 1, the comparison of the key
#       type KEY (integer, bigint, or an own type with its NAME_cmp) and
#       support functions 2, 3, 4, 6 (and 5 with "partial") named
#       PREFIX_extract_value and so on, in the signatures GIN calls.
#   --@language LANGUAGE ATTRIBUTES
#       the lines after the signature of a function written in SQL or
#       PL/pgSQL: LANGUAGE with its attributes, the fixed search_path every
#       such function of the extension runs with (nothing a caller puts on
#       the path can stand in for what it names), and the start of the
#       body, "AS $$" or "BEGIN ATOMIC" (sql).
#   --@describe TEXT
#       COMMENT ON FUNCTION for the function the script last created, its
#       identity (argument types) taken from its CREATE FUNCTION: TEXT as
#       in a functions.tsv row, quotes doubled here.
#   --@include FILE [NAME=VALUE ...]
#       the contents of FILE (relative to the directory given as the first
#       argument, sql/ by default): the objects a version added, written
#       once and used by both the install script and the update script;
#       its own template lines are expanded too, with {NAME} as VALUE.
#
# and blocks, each closed by "--@end", whose lines are expanded with
# placeholders {NAME} replaced (a name not set is left as it is):
#
#   --@widths BITS ...
#       the block once per width (64, 128, 256), with {bits}, {type}
#       (simhash, simhash128, simhash256), {bytes}, {hex} (hex digits),
#       {segments} (16-bit segments), {ball_bytes} (a ball: the centre and
#       a 4-byte radius, padded to 8), {key_bytes} (a GiST key: two
#       fingerprints) and {narrower} (the narrower types).
#       One description for the objects every width has.
#   --@for NAME in WORD ...
#       the block once per word, with {NAME} as the word.
#   --@if WORD = WORD  (or !=)
#       the block (to "--@else", if any) when the two words, after
#       replacement, are equal (or not); else the lines after "--@else".
#       For what an old version made and a later one replaces: one text
#       with the version's differences.
#
# A line "--@ TEXT" is a comment of the template, left out of the script.
#
# Run by the Makefile: sql/simhash.sql and sql/simhash--A--B.sql.in are the
# sources of the scripts PostgreSQL reads.
use strict;
use warnings;

my $d = '@extschema@.simhash_distance';
# op => [name, commutator, negator, restrict, join, words]
my @ops = (
	[ '<',  'lt', '>',  '>=', 'scalarltsel', 'scalarltjoinsel', 'less than' ],
	[ '<=', 'le', '>=', '>',  'scalarlesel', 'scalarlejoinsel', 'less than or equal' ],
	[ '=',  'eq', '=',  '<>', 'eqsel',       'eqjoinsel',       'equal' ],
	[ '<>', 'ne', '<>', '=',  'neqsel',      'neqjoinsel',      'not equal' ],
	[ '>=', 'ge', '<=', '<',  'scalargesel', 'scalargejoinsel', 'greater than or equal' ],
	[ '>',  'gt', '<',  '<=', 'scalargtsel', 'scalargtjoinsel', 'greater than' ],
);
# SQL type => [C symbol suffix for (distance, TYPE), C symbol for (TYPE, distance)]
# (integer and distance share one C function per comparison: same int4 Datums)
my %types = (
	'integer'  => [ '',      '' ],
	'smallint' => [ '_int2', 'int2' ],
	'bigint'   => [ '_int8', 'int8' ],
	'distance' => [ '',      undef ],
);

sub func
{
	my ($name, $left, $right, $csym) = @_;
	return "CREATE FUNCTION \@extschema\@.simhash_distance_$name($left, $right) RETURNS boolean\n"
	  . "\tAS 'MODULE_PATHNAME', '$csym'\n"
	  . "\tLANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF\n"
	  . "\tSUPPORT \@extschema\@.simhash_distance_support;\n";
}

sub oper
{
	my ($op, $name, $com, $neg, $rest, $join, $left, $right) = @_;
	return "CREATE OPERATOR \@extschema\@.$op (\n"
	  . "\tLEFTARG = $left, RIGHTARG = $right,\n"
	  . "\tFUNCTION = \@extschema\@.simhash_distance_$name,\n"
	  . "\tCOMMUTATOR = OPERATOR(\@extschema\@.$com), NEGATOR = OPERATOR(\@extschema\@.$neg),\n"
	  . "\tRESTRICT = $rest, JOIN = $join\n);\n";
}

sub comparisons
{
	my ($type) = @_;
	my $t = $types{$type} or die "sql_expand.pl: unknown type \"$type\"\n";
	my ($suffix, $rev) = @$t;
	my $sqltype = $type eq 'distance' ? $d : $type;
	my @pairs = ([ $d, $sqltype, 0 ]);
	push @pairs, [ $sqltype, $d, 1 ] if defined $rev;
	my ($funcs, $opers) = ('', '');
	for my $o (@ops)
	{
		my ($op, $name, @rest) = @$o;
		pop @rest;				# the words are for the comments
		for my $p (@pairs)
		{
			my ($l, $r, $reversed) = @$p;
			my $csym = "simhash_distance_$name$suffix";
			$csym = "simhash_${rev}_${name}_distance" if $reversed && $rev ne '';
			$funcs .= func($name, $l, $r, $csym);
			$opers .= oper($op, $name, @rest, $l, $r);
		}
	}
	return $funcs . $opers;
}

# The descriptions of comparisons($type), in the same order of objects:
# for each operator the function and the operator, both ways round.  An
# indexable direction says which spelling the index answers.
sub comparison_comments
{
	my ($type) = @_;
	$types{$type} or die "sql_expand.pl: unknown type \"$type\"\n";
	my $out = '';
	my $comment = sub {
		my ($kind, $obj, $l, $r, $text) = @_;
		$out .= "COMMENT ON $kind \@extschema\@.$obj($l, $r) IS\n\t'$text';\n";
	};
	for my $o (@ops)
	{
		my ($op, $name, $words) = @$o[ 0, 1, 6 ];
		my $f = "simhash_distance_$name";
		if ($type eq 'distance')
		{
			$comment->('FUNCTION', $f, $d, $d,
				"distance $op distance, compared as integers (an untyped radius resolves to this)");
			$comment->('OPERATOR', "$op ", $d, $d,
				"Hamming distance $words Hamming distance (for an untyped radius)");
			next;
		}
		my $left = ($op eq '<' || $op eq '<=' || $op eq '=')
		  ? " (fp <-> q $op k is indexable for <, <=, =)" : '';
		my $right = ($op eq '=' || $op eq '>=' || $op eq '>')
		  ? " (k $op fp <-> q is indexable for >, >=, =)" : '';
		$comment->('FUNCTION', $f, $d, $type, "distance $op $type, compared as integers");
		$comment->('FUNCTION', $f, $type, $d, "$type $op distance, compared as integers");
		$comment->('OPERATOR', "$op ", $d, $type, "Hamming distance $words $type$left");
		$comment->('OPERATOR', "$op ", $type, $d, "$type $words Hamming distance$right");
	}
	return $out;
}

my $dir = $ARGV[0] // 'sql';

sub expand;

# The extension's own names get @extschema@. in a functions.tsv row.
my $own_type = qr/\b(simhash(?:128|256)?(?:_ball|_distance|_gist_key)?|minhash)\b(?!\()/;

sub qualify_types
{
	my ($s) = @_;
	$s =~ s/(?<![.\w])$own_type/\@extschema\@.$1/g;
	return $s;
}

# The identity of a signature, as COMMENT ON FUNCTION wants it: the types
# only, without argument names and defaults.
sub identity
{
	my ($args) = @_;
	my @types;
	for my $a (split /,\s*/, $args)
	{
		next if $a =~ /^OUT\s/;
		$a =~ s/\s+DEFAULT\s+.*$//;
		$a =~ s/^\w+\s+(?=\S)// unless $a =~ /^(double|bit|character)\b/ || $a !~ /\s/;
		push @types, $a;
	}
	return join(', ', @types);
}

sub functions
{
	my ($section, $vars) = @_;
	open(my $fh, '<', "$dir/functions.tsv") or die "sql_expand.pl: cannot read $dir/functions.tsv: $!\n";
	my ($in, $found, $out) = (0, 0, '');
	while (my $line = <$fh>)
	{
		chomp $line;
		$line = substitute($line, $vars // {});
		if ($line =~ /^\[(\S+)\]$/)
		{
			$in = $1 eq $section;
			$found ||= $in;
			next;
		}
		next if !$in || $line =~ /^(#|\s*$)/;
		my ($sig, $result, $symbol, $attrs, $descr, @extra) = split /\t/, $line;
		die "sql_expand.pl: functions.tsv line $.: want 4 or 5 columns\n"
		  if !defined $attrs || @extra;
		my ($name, $args) = $sig =~ /^(\w+)\((.*)\)$/
		  or die "sql_expand.pl: functions.tsv line $.: bad signature \"$sig\"\n";
		$args = qualify_types($args);
		$attrs =~ s/\bSUPPORT (\w+)/SUPPORT \@extschema\@.$1/;
		$out .= "CREATE FUNCTION \@extschema\@.$name($args) RETURNS " . qualify_types($result) . "\n"
		  . "\tAS 'MODULE_PATHNAME', '$symbol'\n"
		  . "\tLANGUAGE C $attrs;\n";
		next unless defined $descr;
		$descr =~ s/'/''/g;
		$out .= "COMMENT ON FUNCTION \@extschema\@.$name(" . identity($args) . ") IS\n\t'$descr';\n";
	}
	close $fh;
	die "sql_expand.pl: no section [$section] in functions.tsv\n" unless $found;
	return $out;
}

sub descriptions
{
	my ($name, $vars) = @_;
	open(my $fh, '<', "$dir/$name") or die "sql_expand.pl: cannot read $dir/$name: $!\n";
	my $out = '';
	while (my $line = <$fh>)
	{
		chomp $line;
		next if $line =~ /^(#|\s*$)/;
		$line = substitute($line, $vars);
		my ($what, $text) = $line =~ /^([^\t]+)\t([^\t]+)$/
		  or die "sql_expand.pl: $name line $.: want \"what<TAB>description\"\n";
		$text =~ s/'/''/g;
		$out .= "COMMENT ON $what IS\n\t'$text';\n";
	}
	close $fh;
	return $out;
}

# The name and arguments of the function the script last created (the
# plain lines of CREATE FUNCTION, to the parenthesis that closes its
# arguments), for --@describe.
my ($created, $signature) = ('', undef);

sub watch_create
{
	my ($line) = @_;
	if (!defined $signature && $line =~ /^CREATE (?:OR REPLACE )?FUNCTION (\S+\(.*)$/)
	{
		$signature = $1;
	}
	elsif (defined $signature)
	{
		$signature .= ' ' . $line;
	}
	else
	{
		return;
	}
	my $depth = 0;
	for my $c (split //, $signature)
	{
		$depth += $c eq '(' ? 1 : $c eq ')' ? -1 : 0;
		if ($depth == 0 && $c eq ')')
		{
			$created = $signature;
			$created =~ s/\s+/ /g;
			$signature = undef;
			return;
		}
	}
}

sub describe
{
	my ($text) = @_;
	my ($name, $args) = $created =~ /^(\S+?)\((.*?)\)\s*(?:RETURNS\b.*)?$/
	  or die "sql_expand.pl: --\@describe without a CREATE FUNCTION before it\n";
	$text =~ s/'/''/g;
	return "COMMENT ON FUNCTION $name(" . identity($args) . ") IS\n\t'$text';\n";
}

my %btree_cmp = (integer => 'pg_catalog.btint4cmp', bigint => 'pg_catalog.btint8cmp');

sub gin_support
{
	my ($prefix, $type, $key, $partial) = @_;
	my ($f, $t, $b) = ("\tFUNCTION", "\@extschema\@.$type", "\@extschema\@.${type}_ball");
	my $p = "\@extschema\@.$prefix";
	my $cmp = $btree_cmp{$key} // "\@extschema\@.${key}_cmp";
	$key = "\@extschema\@.$key" unless $btree_cmp{$key};
	return "\tOPERATOR 1 \@extschema\@.<\@ ($t, $b),\n"
	  . "$f 1 $cmp($key, $key),\n"
	  . "$f 2 ${p}_extract_value($t, internal, internal),\n"
	  . "$f 3 ${p}_extract_query($b, internal, smallint, internal, internal, internal, internal),\n"
	  . "$f 4 ${p}_consistent(internal, smallint, $b, integer, internal, internal, internal, internal),\n"
	  . ($partial ? "$f 5 ${p}_compare_partial($key, $key, smallint, internal),\n" : '')
	  . "$f 6 ${p}_triconsistent(internal, smallint, $b, integer, internal, internal, internal),\n";
}

sub base_type
{
	my ($name, $length, $align, $vars) = @_;
	my $io = functions("${name}_io", $vars);
	my $t = "\@extschema\@.$name";
	return "CREATE TYPE $t;\n$io" . "CREATE TYPE $t (\n"
	  . "\tINPUT = ${t}_in, OUTPUT = ${t}_out,\n"
	  . ($io =~ /\Q${t}_recv(\E/ ? "\tRECEIVE = ${t}_recv, SEND = ${t}_send,\n" : '')
	  . "\tINTERNALLENGTH = $length, ALIGNMENT = $align, STORAGE = plain\n);\n";
}

# The placeholders of a width: what differs between the fingerprint types.
sub width_vars
{
	my ($bits) = @_;
	die "sql_expand.pl: unknown width \"$bits\"\n" unless $bits =~ /^(64|128|256)$/;
	my @narrower = grep { $_ < $bits } (64, 128);
	my $type = sub { $_[0] == 64 ? 'simhash' : "simhash$_[0]" };
	return {
		bits => $bits,
		type => $type->($bits),
		bytes => $bits / 8,
		hex => $bits / 4,
		segments => $bits / 16,
		ball_bytes => $bits / 8 + 8,
		key_bytes => $bits / 4,
		narrower => join(' ', map { $type->($_) } @narrower),
	};
}

sub substitute
{
	my ($line, $vars) = @_;
	$line =~ s/\{(\w+)\}/exists $vars->{$1} ? $vars->{$1} : "{$1}"/ge;
	return $line;
}

sub include
{
	my ($name, $vars) = @_;
	open(my $fh, '<', "$dir/$name") or die "sql_expand.pl: cannot read $dir/$name: $!\n";
	my @lines = <$fh>;
	close $fh;
	return expand(\@lines, $vars);
}

# The lines of a block, from after its opening line to its "--@end" (and
# the lines after its "--@else", for --@if); $$i is left after the end.
sub block
{
	my ($lines, $i) = @_;
	my (@body, @else);
	my $into = \@body;
	my $depth = 0;
	while ($$i < @$lines)
	{
		my $line = $lines->[$$i++];
		if ($line =~ /^--\@(widths|for|if)\b/)
		{
			$depth++;
		}
		elsif ($line =~ /^--\@end\s*$/)
		{
			return (\@body, \@else) if $depth-- == 0;
		}
		elsif ($line =~ /^--\@else\s*$/ && $depth == 0)
		{
			$into = \@else;
			next;
		}
		push @$into, $line;
	}
	die "sql_expand.pl: a block without --\@end\n";
}

# The text of some lines with their template lines expanded, {NAME} being
# $vars->{NAME}.
sub expand
{
	my ($lines, $vars) = @_;
	my $out = '';
	my $i = 0;
	while ($i < @$lines)
	{
		my $line = substitute($lines->[$i++], $vars);
		if ($line =~ /^--\@(\s|$)/)
		{
			next;				# the template's own comment
		}
		elsif ($line =~ /^--\@comparisons\s+(\S+)\s*$/)
		{
			$out .= comparisons($1);
		}
		elsif ($line =~ /^--\@comparison_comments\s+(\S+)\s*$/)
		{
			$out .= comparison_comments($1);
		}
		elsif ($line =~ /^--\@functions\s+(\S+)\s*$/)
		{
			$out .= functions($1, $vars);
		}
		elsif ($line =~ /^--\@descriptions\s+(\S+)\s*$/)
		{
			$out .= descriptions($1, $vars);
		}
		elsif ($line =~ /^--\@type\s+(\w+)\s+(\d+)\s+(\w+)\s*$/)
		{
			$out .= base_type($1, $2, $3, $vars);
		}
		elsif ($line =~ /^--\@gin_support\s+(\S+)\s+(\S+)\s+(\S+)(\s+partial)?\s*$/)
		{
			$out .= gin_support($1, $2, $3, $4);
		}
		elsif ($line =~ /^--\@language\s+(plpgsql|sql)\s+(.*\S)\s*$/)
		{
			$out .= "LANGUAGE $1 $2\nSET search_path = pg_catalog, pg_temp\n"
			  . ($1 eq 'sql' ? "BEGIN ATOMIC\n" : "AS \$\$\n");
		}
		elsif ($line =~ /^--\@describe\s+(.*\S)\s*$/)
		{
			$out .= describe($1);
		}
		elsif ($line =~ /^--\@include\s+(\S+)((?:\s+\w+=\S*)*)\s*$/)
		{
			my ($name, %more) = ($1, map { split /=/, $_, 2 } split ' ', $2);
			$out .= include($name, { %$vars, %more });
		}
		elsif ($line =~ /^--\@widths((?:\s+\d+)+)\s*$/)
		{
			my ($body) = block($lines, \$i);
			$out .= expand($body, { %$vars, %{ width_vars($_) } }) for split ' ', $1;
		}
		elsif ($line =~ /^--\@for\s+(\w+)\s+in((?:\s+\S+)*)\s*$/)
		{
			my $name = $1;
			my ($body) = block($lines, \$i);
			$out .= expand($body, { %$vars, $name => $_ }) for split ' ', $2;
		}
		elsif ($line =~ /^--\@if\s+(\S+)\s+(=|!=)\s+(\S+)\s*$/)
		{
			my ($body, $else) = block($lines, \$i);
			my $true = ($1 eq $3) == ($2 eq '=');
			$out .= expand($true ? $body : $else, $vars);
		}
		elsif ($line =~ /^--\@/)
		{
			die "sql_expand.pl: unknown or misplaced template line: $line";
		}
		else
		{
			watch_create($line);
			$out .= $line;
		}
	}
	return $out;
}

print expand([<STDIN>], {});
