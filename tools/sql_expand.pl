#!/usr/bin/perl
# sql_expand.pl: expand the templates of an SQL script.  Copies standard
# input to standard output, except two kinds of line:
#
#   --@comparisons TYPE
#       the six comparisons (< <= = <> >= >) of simhash_distance with TYPE:
#       their functions and operators, both ways round for an integer type.
#       The operator matrix is written once, here.
#   --@include FILE
#       the contents of FILE (relative to the directory given as the first
#       argument, sql/ by default): the objects a version added, written
#       once and used by both the install script and the update script.
#
# Run by the Makefile: sql/simhash.sql and sql/simhash--A--B.sql.in are the
# sources of the scripts PostgreSQL reads.
use strict;
use warnings;

my $d = '@extschema@.simhash_distance';
# op => [name, commutator, negator, restrict, join]
my @ops = (
	[ '<',  'lt', '>',  '>=', 'scalarltsel', 'scalarltjoinsel' ],
	[ '<=', 'le', '>=', '>',  'scalarlesel', 'scalarlejoinsel' ],
	[ '=',  'eq', '=',  '<>', 'eqsel',       'eqjoinsel' ],
	[ '<>', 'ne', '<>', '=',  'neqsel',      'neqjoinsel' ],
	[ '>=', 'ge', '<=', '<',  'scalargesel', 'scalargejoinsel' ],
	[ '>',  'gt', '<',  '<=', 'scalargtsel', 'scalargtjoinsel' ],
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

my $dir = $ARGV[0] // 'sql';

sub include
{
	my ($name) = @_;
	open(my $fh, '<', "$dir/$name") or die "sql_expand.pl: cannot read $dir/$name: $!\n";
	local $/;
	my $text = <$fh>;
	close $fh;
	return $text;
}

while (my $line = <STDIN>)
{
	if ($line =~ /^--\@comparisons\s+(\S+)\s*$/)
	{
		print comparisons($1);
	}
	elsif ($line =~ /^--\@include\s+(\S+)\s*$/)
	{
		print include($1);
	}
	else
	{
		print $line;
	}
}
