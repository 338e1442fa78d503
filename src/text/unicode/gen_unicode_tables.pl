#!/usr/bin/perl
#
# gen_unicode_tables.pl
#		Generate src/text/unicode/unicode_tables.h, the Unicode data used by
#		src/text/unicode/unicode_norm.c (toNFKC_Casefold and character classes).
#
# Usage:
#		perl src/text/unicode/gen_unicode_tables.pl [UNICODE_DIR [OUTPUT]]
#		make unicode-tables    (regenerates, and fails if the file changed)
#
# UNICODE_DIR defaults to /usr/share/unicode (Debian package unicode-data)
# and must contain UnicodeData.txt, DerivedNormalizationProps.txt,
# CompositionExclusions.txt, Scripts.txt, ScriptExtensions.txt and
# PropList.txt, all of the same Unicode version.  OUTPUT defaults to
# unicode_tables.h in this script's directory.
#
# Only core Perl modules are used; the output depends only on the input
# files (no hash ordering leaks into it), so regenerating from the same
# data gives a byte-identical file.
#
# What is generated (the bit layouts are #defined in the output, so
# unicode_norm.c follows whatever this script emits):
#
#	* A two-stage table, indexed by cp >> 8 and cp & 0xFF, of one uint16
#	  per code point.  Either the code point is "simple" (its NFKC_CF
#	  mapping is itself and it has no canonical decomposition we need to
#	  apply), and the value holds its canonical combining class, its
#	  character class and two composition flags; or the value holds
#	  SH_UC_MAPPED plus an offset into the mapping pool.
#
#	* The mapping pool: for each mapped code point, a header word (length,
#	  character class) followed by the full canonical decomposition of its
#	  NFKC_CF mapping, as packed "elements" (code point, ccc and
#	  composition flags), so the normaliser needs no further lookups for
#	  them.  Precomposed Hangul syllables are never decomposed: keeping
#	  them composed gives the same NFC result (their jamo are all
#	  starters), and composition of jamo is algorithmic.
#
#	* The primary composites, as a sorted array of (first, second,
#	  composite element) triples, excluding Full_Composition_Exclusion.
#
#	* Two 128-entry tables for the ASCII fast path.

use strict;
use warnings;
use File::Basename qw(dirname);
use File::Spec;

my $dir = $ARGV[0] // '/usr/share/unicode';
my $output = $ARGV[1]
  // File::Spec->catfile(dirname($0), 'unicode_tables.h');

my $MAXCP = 0x10FFFF;

# Hangul constants (Unicode 15.0, section 3.12)
my ($SBase, $LBase, $VBase, $TBase) = (0xAC00, 0x1100, 0x1161, 0x11A7);
my ($LCount, $VCount, $TCount) = (19, 21, 28);
my $SCount = $LCount * $VCount * $TCount;

# ----------------------------------------------------------------------
# Input parsing
# ----------------------------------------------------------------------

my $version;

sub open_data
{
	my ($name) = @_;
	my $path = File::Spec->catfile($dir, $name);
	open(my $fh, '<', $path) or die "cannot open $path: $!\n";
	return $fh;
}

# Check the "# Name-X.Y.Z.txt" first line and that all files agree.
sub check_version
{
	my ($fh, $name) = @_;
	my $first = <$fh>;
	(my $base = $name) =~ s/\.txt$//;
	$first =~ /^#\s*\Q$base\E-(\d+\.\d+\.\d+)\.txt/
	  or die "$name: cannot find version in first line\n";
	$version //= $1;
	die "$name is version $1, expected $version\n" if $1 ne $version;
}

# Parse "XXXX[..YYYY] ; fields # comment" lines; calls $cb->(lo, hi, @fields)
sub parse_ranges
{
	my ($name, $cb) = @_;
	my $fh = open_data($name);
	check_version($fh, $name);
	while (my $line = <$fh>)
	{
		$line =~ s/#.*//s;
		next unless $line =~ /\S/;
		my @f = map { s/^\s+|\s+$//gr } split /;/, $line, -1;
		my $r = shift @f;
		$r =~ /^([0-9A-F]{4,6})(?:\.\.([0-9A-F]{4,6}))?$/
		  or die "$name: bad code point range '$r'\n";
		$cb->(hex($1), hex($2 // $1), @f);
	}
	close $fh;
}

# UnicodeData.txt: general category, ccc, decompositions
my (@gc, @ccc, %canon, %decomp_any);
{
	my $fh = open_data('UnicodeData.txt');
	my $first;
	while (my $line = <$fh>)
	{
		chomp $line;
		my @f = split /;/, $line, -1;
		die "UnicodeData.txt: bad line '$line'\n" unless @f == 15;
		my $cp = hex($f[0]);
		if ($f[1] =~ /, First>$/)
		{
			$first = $cp;
			next;
		}
		my $lo = $cp;
		if ($f[1] =~ /, Last>$/)
		{
			die "UnicodeData.txt: Last without First\n" unless defined $first;
			$lo = $first;
			undef $first;
		}
		for my $c ($lo .. $cp)
		{
			$gc[$c] = $f[2];
			$ccc[$c] = $f[3] + 0;
		}
		if ($f[5] ne '')
		{
			$decomp_any{$cp} = 1;
			if ($f[5] !~ /^</)
			{
				$canon{$cp} = [ map { hex } split / /, $f[5] ];
			}
		}
	}
	close $fh;
}
$gc[$_] //= 'Cn' for 0 .. $MAXCP;
$ccc[$_] //= 0 for 0 .. $MAXCP;

# DerivedNormalizationProps.txt: NFKC_CF, Full_Composition_Exclusion, NFC_QC
my (%nfkc_cf, %fce_derived, %nfc_qc_m);
parse_ranges(
	'DerivedNormalizationProps.txt',
	sub {
		my ($lo, $hi, $prop, $val) = @_;
		if ($prop eq 'NFKC_CF')
		{
			my @m = map { hex } split ' ', $val // '';
			$nfkc_cf{$_} = \@m for $lo .. $hi;
		}
		elsif ($prop eq 'Full_Composition_Exclusion')
		{
			$fce_derived{$_} = 1 for $lo .. $hi;
		}
		elsif ($prop eq 'NFC_QC' && $val eq 'M')
		{
			$nfc_qc_m{$_} = 1 for $lo .. $hi;
		}
	});

# CompositionExclusions.txt
my %excluded;
parse_ranges('CompositionExclusions.txt',
	sub { my ($lo, $hi) = @_; $excluded{$_} = 1 for $lo .. $hi; });

# Scripts.txt and ScriptExtensions.txt
my %cjk_script = map { $_ => 1 } qw(Han Hiragana Katakana Hangul);
my %cjk_scx = map { $_ => 1 } qw(Hani Hira Kana Hang);
my %is_cjk_script;
parse_ranges(
	'Scripts.txt',
	sub {
		my ($lo, $hi, $sc) = @_;
		return unless $cjk_script{$sc};
		$is_cjk_script{$_} = 1 for $lo .. $hi;
	});
parse_ranges(
	'ScriptExtensions.txt',
	sub {
		my ($lo, $hi, $scx) = @_;
		return unless grep { $cjk_scx{$_} } split ' ', $scx;
		$is_cjk_script{$_} = 1 for $lo .. $hi;
	});

# PropList.txt: White_Space
my %white_space;
parse_ranges(
	'PropList.txt',
	sub {
		my ($lo, $hi, $prop) = @_;
		$white_space{$_} = 1 for grep { $prop eq 'White_Space' } $lo .. $hi;
	});

# ----------------------------------------------------------------------
# Derived data
# ----------------------------------------------------------------------

# Full_Composition_Exclusion = CompositionExclusions.txt + singletons +
# non-starter decompositions (UAX #15, section 5); cross-check it against
# the derived property.
my %fce = %excluded;
for my $cp (keys %canon)
{
	my $d = $canon{$cp};
	$fce{$cp} = 1
	  if @$d == 1 || $ccc[$cp] != 0 || $ccc[ $d->[0] ] != 0;
}
for my $cp (sort { $a <=> $b } keys %fce, keys %fce_derived)
{
	die sprintf("Full_Composition_Exclusion mismatch at U+%04X\n", $cp)
	  unless $fce{$cp} && $fce_derived{$cp};
}

# Primary composites: (first, second) => composite
my (%pair, %fwd, %bwd);
for my $cp (sort { $a <=> $b } keys %canon)
{
	my $d = $canon{$cp};
	next if @$d != 2 || $fce{$cp};
	$pair{"$d->[0],$d->[1]"} = $cp;
	$fwd{ $d->[0] } = 1;
	$bwd{ $d->[1] } = 1;
}
# Hangul: L + V -> LV, LV + T -> LVT (composition done algorithmically).
# All syllables get the "forward" flag so that their table blocks
# deduplicate; unicode_norm.c checks for LV itself.
$fwd{$_} = 1 for $LBase .. $LBase + $LCount - 1;
$fwd{$_} = 1 for $SBase .. $SBase + $SCount - 1;
$bwd{$_} = 1 for $VBase .. $VBase + $VCount - 1;
$bwd{$_} = 1 for $TBase + 1 .. $TBase + $TCount - 1;

# The "backward combining" flag must be exactly NFC_QC=Maybe.
for my $cp (sort { $a <=> $b } keys %bwd, keys %nfc_qc_m)
{
	die sprintf("NFC_QC=M does not match composition data at U+%04X\n", $cp)
	  unless $bwd{$cp} && $nfc_qc_m{$cp};
}

# Full canonical decomposition, leaving Hangul syllables composed.
sub canon_decompose
{
	my ($cp) = @_;
	return ($cp) unless $canon{$cp};
	return map { canon_decompose($_) } @{ $canon{$cp} };
}

# Character class (see unicode_norm.h)
my ($CC_OTHER, $CC_SPACE, $CC_WORD, $CC_CJK) = (0, 1, 2, 3);

sub char_class
{
	my ($cp) = @_;
	return $CC_SPACE if $white_space{$cp};
	return $CC_OTHER unless $gc[$cp] =~ /^[LMN]/;
	return $is_cjk_script{$cp} ? $CC_CJK : $CC_WORD;
}

# Packed elements (see SH_UC_ELEM_* below)
my $ELEM_CCC_SHIFT = 21;
my $ELEM_BWD = 1 << 29;
my $ELEM_FWD = 1 << 30;

sub elem
{
	my ($cp) = @_;
	return $cp | ($ccc[$cp] << $ELEM_CCC_SHIFT) | ($bwd{$cp} ? $ELEM_BWD : 0)
	  | ($fwd{$cp} ? $ELEM_FWD : 0);
}

# Simple table values
my $V_BWD = 1 << 8;
my $V_FWD = 1 << 9;
my $V_CLASS_SHIFT = 10;
my $V_MAPPED = 0x8000;

# Per code point: decomposed mapping (undef if simple)
my @value;
my @pool;
my %pool_index;
my ($n_mapped, $max_map_len) = (0, 0);
for my $cp (0 .. $MAXCP)
{
	my $cls = char_class($cp);
	my @src = $nfkc_cf{$cp} ? @{ $nfkc_cf{$cp} } : ($cp);
	my @dec = map { canon_decompose($_) } @src;
	if (@dec == 1 && $dec[0] == $cp)
	{
		$value[$cp] =
		  $ccc[$cp] | ($bwd{$cp} ? $V_BWD : 0) | ($fwd{$cp} ? $V_FWD : 0) |
		  ($cls << $V_CLASS_SHIFT);
		next;
	}

	# The elements must be simple characters themselves (their own NFKC_CF
	# mapping is the identity), already in canonical order.
	my $prev = 0;
	for my $d (@dec)
	{
		die sprintf("U+%04X maps to U+%04X which is not stable\n", $cp, $d)
		  if ($nfkc_cf{$d} || $canon{$d});
		die sprintf("U+%04X: decomposed mapping not canonically ordered\n",
			$cp)
		  if $ccc[$d] != 0 && $ccc[$d] < $prev;
		$prev = $ccc[$d];
	}
	$n_mapped++;
	$max_map_len = @dec if @dec > $max_map_len;
	die "mapping too long\n" if @dec > 255;
	my @entry = (scalar(@dec) | ($cls << 8), map { elem($_) } @dec);
	my $key = join(',', @entry);
	my $off = $pool_index{$key};
	if (!defined $off)
	{
		$off = @pool;
		$pool_index{$key} = $off;
		push @pool, @entry;
	}
	die "mapping pool too large\n" if $off > 0x7FFF;
	$value[$cp] = $V_MAPPED | $off;
}

# ASCII must be simple: NFKC_CF maps A-Z to a-z and leaves the rest alone.
for my $cp (0 .. 127)
{
	my $want = ($cp >= 0x41 && $cp <= 0x5A) ? $cp + 32 : $cp;
	my @m = $nfkc_cf{$cp} ? @{ $nfkc_cf{$cp} } : ($cp);
	die "unexpected NFKC_CF mapping for ASCII U+%04X\n"
	  unless @m == 1 && $m[0] == $want && $ccc[$want] == 0 && !$bwd{$want};
}

# Two-stage table with deduplicated 256-entry blocks
my (@stage1, @blocks, %block_index);
for my $hi (0 .. ($MAXCP >> 8))
{
	my @blk = @value[ ($hi << 8) .. ($hi << 8) + 255 ];
	my $key = join(',', @blk);
	my $idx = $block_index{$key};
	if (!defined $idx)
	{
		$idx = @blocks;
		$block_index{$key} = $idx;
		push @blocks, \@blk;
	}
	push @stage1, $idx;
}
my $stage1_type = @blocks <= 256 ? 'uint8_t' : 'uint16_t';
my $stage1_size = @blocks <= 256 ? 1 : 2;

# Composition pairs sorted by (first, second)
my @pairs = sort { $a->[0] <=> $b->[0] || $a->[1] <=> $b->[1] }
  map { [ (split /,/)[ 0, 1 ], $pair{$_} ] } keys %pair;
@pairs = map { [ $_->[0] + 0, $_->[1] + 0, $_->[2] ] } @pairs;

# ----------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------

my $bytes =
  @stage1 * $stage1_size + @blocks * 256 * 2 + @pool * 4 + @pairs * 12 +
  128 + 128 * 4;

open(my $out, '>', "$output.tmp") or die "cannot write $output.tmp: $!\n";

sub emit_array
{
	my ($type, $name, $fmt, $per_line, @vals) = @_;
	printf $out "static const %s %s[%d] = {\n", $type, $name, scalar @vals;
	for (my $i = 0; $i < @vals; $i += $per_line)
	{
		my $last = $i + $per_line - 1;
		$last = $#vals if $last > $#vals;
		print $out "\t", join(', ', map { sprintf $fmt, $_ } @vals[ $i .. $last ]),
		  ($last == $#vals ? "\n" : ",\n");
	}
	print $out "};\n\n";
}

print $out <<"EOT";
/* Generated file, do not edit: Unicode $version data, by "perl src/text/unicode/gen_unicode_tables.pl [UNICODE_DIR]" (Debian unicode-data, /usr/share/unicode). */
/*-------------------------------------------------------------------------
 *
 * unicode_tables.h
 *		Unicode $version tables for unicode_norm.c: toNFKC_Casefold mapping
 *		(canonically decomposed), canonical combining classes, primary
 *		composites and the simhash character classes.
 *
 * Inputs: UnicodeData.txt, DerivedNormalizationProps.txt,
 * CompositionExclusions.txt, Scripts.txt, ScriptExtensions.txt, PropList.txt.
 *
 * Size: $bytes bytes of tables ($n_mapped mapped code points, @{[scalar @blocks]}
 * distinct 256-entry blocks, @{[scalar @pool]} pool words, @{[scalar @pairs]} primary
 * composites).
 *
 *-------------------------------------------------------------------------
 */
#ifndef SH_UNICODE_TABLES_H
#define SH_UNICODE_TABLES_H

#define SH_UNICODE_VERSION "$version"

/*
 * Stage-2 values (uint16), per code point:
 *	 if (v & SH_UC_MAPPED): v & SH_UC_OFFSET_MASK is an offset into
 *		sh_uc_pool, whose word there is a header
 *		(length & SH_UC_HDR_LEN_MASK, class >> SH_UC_HDR_CLASS_SHIFT & 3)
 *		followed by "length" elements: the canonical decomposition of the
 *		code point's NFKC_CF mapping (length may be 0: mapped to nothing).
 *	 else the code point maps to itself:
 *		bits 0-7 ccc, bit 8 SH_UC_BWD, bit 9 SH_UC_FWD,
 *		class at bits SH_UC_CLASS_SHIFT (2 bits).
 *
 * Elements (uint32): bits 0-20 code point, bits 21-28 ccc,
 *	 SH_UC_ELEM_BWD: the code point can be the second of a primary
 *		composite pair (NFC_QC=Maybe),
 *	 SH_UC_ELEM_FWD: the code point can be the first of a pair.
 * A simple stage-2 value v turns into an element by
 *	 cp | ((v & 0x3FF) << SH_UC_ELEM_CCC_SHIFT).
 */
#define SH_UC_MAPPED			0x8000
#define SH_UC_OFFSET_MASK		0x7FFF
#define SH_UC_BWD				0x0100
#define SH_UC_FWD				0x0200
#define SH_UC_CLASS_SHIFT		$V_CLASS_SHIFT
#define SH_UC_HDR_LEN_MASK		0xFF
#define SH_UC_HDR_CLASS_SHIFT	8
#define SH_UC_ELEM_CP_MASK		0x1FFFFF
#define SH_UC_ELEM_CCC_SHIFT	$ELEM_CCC_SHIFT
#define SH_UC_ELEM_BWD			0x20000000
#define SH_UC_ELEM_FWD			0x40000000
#define SH_UC_MAX_MAPPING		$max_map_len

EOT

emit_array($stage1_type, 'sh_uc_stage1', '%d', 24, @stage1);
# Values per line: a stage-2 line is a quarter block (64 code points), a
# pool line 12 words.  With fewer, the runs that recur inside blocks
# (the mathematical alphabets, CJK compatibility ranges) and across the
# pool and the ASCII elements gave hundreds of repeated line runs; the
# data is the same whatever the layout.
emit_array('uint16_t', 'sh_uc_stage2', '0x%04X', 64, map { @$_ } @blocks);
emit_array('uint32_t', 'sh_uc_pool', '0x%08X', 12, @pool);

print $out "/* Primary composites: { first, second, composite element } */\n";
printf $out "static const uint32_t sh_uc_comp[%d][3] = {\n", scalar @pairs;
print $out join(",\n",
	map { sprintf("\t{0x%05X, 0x%05X, 0x%08X}", $_->[0], $_->[1], elem($_->[2]) & ~$ELEM_BWD) }
	  @pairs),
  "\n};\n\n";

print $out "/* ASCII fast path: NFKC_CF of each ASCII code point, and as element */\n";
emit_array('uint8_t', 'sh_uc_ascii_map', '0x%02X', 16,
	map { ($_ >= 0x41 && $_ <= 0x5A) ? $_ + 32 : $_ } 0 .. 127);
emit_array('uint32_t', 'sh_uc_ascii_elem', '0x%08X', 8,
	map { elem(($_ >= 0x41 && $_ <= 0x5A) ? $_ + 32 : $_) } 0 .. 127);

print $out "#endif\t\t\t\t\t\t\t/* SH_UNICODE_TABLES_H */\n";
close $out or die "cannot write $output.tmp: $!\n";
rename("$output.tmp", $output) or die "cannot rename to $output: $!\n";

printf STDERR
  "%s: Unicode %s, %d bytes of tables (%d blocks, %d pool words, %d pairs, %d mapped, max mapping %d)\n",
  $output, $version, $bytes, scalar @blocks, scalar @pool, scalar @pairs,
  $n_mapped, $max_map_len;
