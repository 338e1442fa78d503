#!/usr/bin/perl
# Checks META.json against the PGXN meta spec 1.0.0 (required keys and the
# form of every value: the rules PGXN's validator applies) and against the
# tree it describes (simhash.control, the files it names), and checks that
# the clients' versions (clients/node, clients/python), the first entry of
# debian/changelog and the version strings of the documents (README.md,
# doc/*.md, the clients' READMEs: a .deb, a PGXN zip, a client version)
# follow simhash.control's default_version as META.json's does.  To show the
# validator can fail, a few broken copies of the file must each be rejected.
#
#   perl meta_check.pl META.json SOURCE_DIR PG_MAJOR
#
# Prints "ok   <name>" / "FAIL <name>: <why>" lines (counted by test/package/run).
use strict;
use warnings;
use JSON::PP;

my ($meta_path, $srcdir, $pg_major) = @ARGV;
die "usage: $0 META.json SOURCE_DIR PG_MAJOR\n" unless defined $pg_major;

sub check {
	my ($name, $errors) = @_;
	if (@$errors) { print "FAIL $name: ", join('; ', @$errors), "\n" }
	else          { print "ok   $name\n" }
}

# SemVer 2.0.0; PGXN requires it for every version (so "1.1" is not one)
my $semver = qr/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)
	(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?
	(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/x;
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1
	artistic_2 bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1
	lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0
	ssleay sun zlib open_source restricted unrestricted unknown);
my %phases = map { $_ => 1 } qw(configure build test runtime develop);
my %relations = map { $_ => 1 } qw(requires recommends suggests conflicts);

sub is_string { my $v = shift; defined $v && !ref $v && length $v }
sub is_term   { my $v = shift; is_string($v) && length $v >= 2 && $v !~ m{[[:space:][:cntrl:]/\\]} }
sub is_tag    { my $v = shift; is_string($v) && length $v <= 256 && $v !~ m{[[:cntrl:]/\\]} }
sub is_url    { my $v = shift; is_string($v) && $v =~ m{^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+} }
sub as_list   { my $v = shift; ref $v eq 'ARRAY' ? @$v : ($v) }

# The spec's rules; returns the list of violations
sub validate {
	my $m = shift;
	my @e;
	return ('top level is not an object') unless ref $m eq 'HASH';
	for my $k (qw(name version abstract maintainer license provides meta-spec)) {
		push @e, "missing required key $k" unless defined $m->{$k};
	}
	my %known = map { $_ => 1 } qw(name version abstract maintainer license
		provides meta-spec description generated_by release_status tags
		no_index prereqs resources);
	for my $k (keys %$m) {
		push @e, "unknown key $k (custom keys start with x_)"
			unless $known{$k} || $k =~ /^x_/i;
	}
	push @e, "name is not a term" if defined $m->{name} && !is_term($m->{name});
	push @e, "version is not SemVer" if defined $m->{version} && !(is_string($m->{version}) && $m->{version} =~ $semver);
	push @e, "abstract is empty" if defined $m->{abstract} && !is_string($m->{abstract});
	if (defined $m->{maintainer}) {
		my @l = as_list($m->{maintainer});
		push @e, "maintainer has an empty entry" if !@l || grep { !is_string($_) } @l;
	}
	if (defined(my $l = $m->{license})) {
		if (ref $l eq 'HASH') {
			push @e, "license map values must be URLs" if !%$l || grep { !is_url($_) } values %$l;
		} else {
			for (as_list($l)) { push @e, "unknown license " . ($_ // 'null') unless is_string($_) && $licenses{$_} }
		}
	}
	if (defined(my $ms = $m->{'meta-spec'})) {
		if (ref $ms ne 'HASH') { push @e, "meta-spec is not an object" }
		else {
			push @e, "meta-spec version is not 1.0.0" unless ($ms->{version} // '') eq '1.0.0';
			push @e, "meta-spec url is not a URL" if defined $ms->{url} && !is_url($ms->{url});
		}
	}
	if (defined(my $p = $m->{provides})) {
		if (ref $p ne 'HASH' || !%$p) { push @e, "provides is not a non-empty object" }
		else {
			for my $ext (sort keys %$p) {
				my $x = $p->{$ext};
				push @e, "provides key $ext is not a term" unless is_term($ext);
				if (ref $x ne 'HASH') { push @e, "provides/$ext is not an object"; next }
				push @e, "provides/$ext has no file" unless is_string($x->{file});
				push @e, "provides/$ext version is not SemVer"
					unless is_string($x->{version}) && $x->{version} =~ $semver;
				for my $k (keys %$x) {
					push @e, "provides/$ext: unknown key $k"
						unless $k =~ /^(file|version|abstract|docfile)$/ || $k =~ /^x_/i;
				}
				push @e, "provides/$ext docfile is empty" if exists $x->{docfile} && !is_string($x->{docfile});
			}
		}
	}
	push @e, "release_status must be stable, testing or unstable"
		if defined $m->{release_status} && $m->{release_status} !~ /^(stable|testing|unstable)$/;
	if (defined(my $t = $m->{tags})) {
		for (as_list($t)) { push @e, "bad tag " . ($_ // 'null') unless is_tag($_) }
	}
	if (defined(my $pr = $m->{prereqs})) {
		if (ref $pr ne 'HASH') { push @e, "prereqs is not an object" }
		else {
			for my $ph (keys %$pr) {
				push @e, "unknown prereq phase $ph" unless $phases{$ph} || $ph =~ /^x_/i;
				next unless ref $pr->{$ph} eq 'HASH' or (push(@e, "prereqs/$ph is not an object"), 0);
				for my $rel (keys %{ $pr->{$ph} }) {
					push @e, "unknown prereq relation $rel" unless $relations{$rel} || $rel =~ /^x_/i;
					my $reqs = $pr->{$ph}{$rel};
					next unless ref $reqs eq 'HASH' or (push(@e, "prereqs/$ph/$rel is not an object"), 0);
					for my $dep (keys %$reqs) {
						push @e, "prereq name $dep is not a term" unless is_term($dep);
						my $range = $reqs->{$dep};
						for my $part (split /,\s*/, $range // '') {
							next if $part eq '0';
							my $v = $part =~ s/^(<=|>=|==|!=|<|>)\s*//r;
							push @e, "prereq $dep: \"$part\" is not a version range"
								unless $v =~ $semver;
						}
						push @e, "prereq $dep has an empty range" unless is_string($range);
					}
				}
			}
		}
	}
	if (defined(my $r = $m->{resources})) {
		if (ref $r ne 'HASH') { push @e, "resources is not an object" }
		else {
			push @e, "resources/homepage is not a URL" if defined $r->{homepage} && !is_url($r->{homepage});
			for my $k (qw(bugtracker repository)) {
				next unless defined $r->{$k};
				if (ref $r->{$k} ne 'HASH') { push @e, "resources/$k is not an object"; next }
				for my $u (qw(web url)) {
					push @e, "resources/$k/$u is not a URL" if defined $r->{$k}{$u} && !is_url($r->{$k}{$u});
				}
			}
		}
	}
	if (defined(my $ni = $m->{no_index})) {
		if (ref $ni ne 'HASH') { push @e, "no_index is not an object" }
		else {
			for my $k (keys %$ni) {
				push @e, "no_index: unknown key $k" unless $k =~ /^(file|directory)$/ || $k =~ /^x_/i;
			}
		}
	}
	return @e;
}

my $raw = do { local $/; open my $fh, '<:raw', $meta_path or die "$meta_path: $!\n"; <$fh> };
my $meta = eval { JSON::PP->new->utf8->decode($raw) };
check('META.json parses as JSON', $meta ? [] : ["$@"]);
exit 0 unless $meta;
check('META.json follows the PGXN meta spec 1.0.0', [validate($meta)]);

# broken copies must each be rejected, or the validator proves nothing
my %broken = (
	'version 1.1 (not SemVer)'   => sub { $_[0]{version} = '1.1' },
	'license missing'            => sub { delete $_[0]{license} },
	'unknown license'            => sub { $_[0]{license} = 'postgres' },
	'provides without a file'    => sub { delete $_[0]{provides}{simhash}{file} },
	'unknown top-level key'      => sub { $_[0]{homepage} = 'https://example.org/' },
	'tag with a slash'           => sub { push @{ $_[0]{tags} }, 'a/b' },
	'prereq phase misspelt'      => sub { $_[0]{prereqs}{runtimes} = { requires => { PostgreSQL => '15.0.0' } } },
	'bad version range'          => sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '>= 15' },
	'meta-spec 2.0.0'            => sub { $_[0]{'meta-spec'}{version} = '2.0.0' },
);
for my $what (sort keys %broken) {
	my $copy = JSON::PP->new->decode($raw);
	$broken{$what}->($copy);
	check("validator rejects a META.json with $what", validate($copy) ? [] : ['accepted']);
}

# agreement with the tree
open my $cf, '<', "$srcdir/simhash.control" or die "simhash.control: $!\n";
my ($dv) = map { /^\s*default_version\s*=\s*'([^']+)'/ ? $1 : () } <$cf>;
close $cf;
my @e;
push @e, "control default_version not found" unless defined $dv;
$dv //= '';
my $want = $dv =~ /^\d+\.\d+$/ ? "$dv.0" : $dv;	# 1.1 is SemVer 1.1.0
push @e, "META version $meta->{version} is not $want" unless ($meta->{version} // '') eq $want;
check("META version matches default_version '$dv' of simhash.control", \@e);

my $x = $meta->{provides}{simhash} // {};
@e = ();
push @e, "provides has no simhash extension" unless %$x;
push @e, "provides/simhash version " . ($x->{version} // 'none') . " is not $want"
	unless ($x->{version} // '') eq $want;
check('provides/simhash version equals the distribution version', \@e);
# the install script's one source, which the build copies to simhash--$dv.sql
check('provides/simhash file is the source of the install script (sql/simhash.sql)',
	($x->{file} // '') eq "sql/simhash.sql" ? [] : ["file is " . ($x->{file} // 'none')]);
for my $k (qw(file docfile)) {
	my $f = $x->{$k};
	check("provides/simhash $k exists in the tree",
		defined $f && -f "$srcdir/$f" ? [] : [($f // 'none') . " not found"]);
}
# the clients are versioned with the extension: X.Y.0 for extension X.Y
# (clients/python/README.md, clients/node/README.md)
sub file_text {
	my $f = shift;
	open my $fh, '<:raw', $f or return undef;
	local $/;
	return <$fh>;
}
my %client_version = (
	'clients/node/package.json version' => sub {
		my $j = eval { JSON::PP->new->utf8->decode($_[0]) };
		ref $j eq 'HASH' ? $j->{version} : undef;
	},
	# the version line of the [project] table, or (one place for it) a
	# dynamic version taken from simhash_pg.__version__
	'clients/python/pyproject.toml [project] version' => sub {
		my $t = shift;
		return $1 if $t =~ /^\[project\]\s*\n(?:(?!\[).*\n)*?version\s*=\s*"([^"]*)"/m;
		if ($t =~ /^\[project\]\s*\n(?:(?!\[).*\n)*?dynamic\s*=\s*\[[^\]]*"version"/m
			&& $t =~ /^\[tool\.setuptools\.dynamic\]\s*\n(?:(?!\[).*\n)*?version\s*=\s*\{\s*attr\s*=\s*"simhash_pg\.__version__"\s*\}/m) {
			my $init = file_text("$srcdir/clients/python/simhash_pg/__init__.py") // '';
			return $init =~ /^__version__\s*=\s*["']([^"']*)["']/m ? $1 : undef;
		}
		return undef;
	},
	'clients/python/simhash_pg/__init__.py __version__' => sub {
		$_[0] =~ /^__version__\s*=\s*["']([^"']*)["']/m ? $1 : undef;
	},
);
for my $what (sort keys %client_version) {
	my ($f) = $what =~ /^(\S+)/;
	my $text = file_text("$srcdir/$f");
	my $v = defined $text ? $client_version{$what}->($text) : undef;
	check("$what equals default_version '$dv' ($want)",
		!defined $text ? ["$f not found"]
		: !defined $v ? ["no version found in $f"]
		: $v ne $want ? ["$v is not $want"] : []);
}

# debian/changelog: its first entry is the package's version, which must be
# the extension's (test/package checks the .deb's Version again once built)
{
	my $text = file_text("$srcdir/debian/changelog");
	my ($v, $body) = defined $text ? $text =~ /\A\s*simhash \(([^)]+)\)[^\n]*\n(.*?)^ -- /ms : ();
	check("debian/changelog: the first entry is version '$dv'",
		!defined $text ? ['debian/changelog not found']
		: !defined $v ? ['no entry "simhash (VERSION) ..." at the top']
		: $v ne $dv ? ["the first entry is $v"]
		: $body !~ /Extension version \Q$dv\E\b/ ? ["its text does not say \"Extension version $dv\""] : []);
}

# Version strings in the documents that go with a release: each must be the
# current one, so that no document tells of a package or client of another
# version.  A client's README names no version but its own (X.Y.0); the
# .deb, the PGXN zip and "X.Y.0 goes with extension X.Y" anywhere.
{
	my @files = grep { -f "$srcdir/$_" } ('README.md',
		(map { s{^\Q$srcdir\E/}{}r } glob("$srcdir/doc/*.md")),
		(map { s{^\Q$srcdir\E/}{}r } glob("$srcdir/clients/*/README.md")),
		'clients/node/simhash.js', 'clients/python/simhash_pg/__init__.py');
	my @e;
	my $seen = 0;
	for my $f (@files) {
		my $text = file_text("$srcdir/$f");
		my $at = sub { my $pos = shift; "$f:" . (1 + (() = substr($text, 0, $pos) =~ /\n/g)) };
		while ($text =~ /\bpostgresql-\d+-simhash_([0-9][^_\s`]*)_/g) {
			$seen++;
			push @e, $at->($-[0]) . ": package version $1, not $dv" if $1 ne $dv;
		}
		while ($text =~ /\bsimhash-(\d+\.\d+\.\d+)(?=\.zip|\/)/g) {
			$seen++;
			push @e, $at->($-[0]) . ": PGXN distribution $1, not $want" if $1 ne $want;
		}
		while ($text =~ /\b(\d+\.\d+)\.0\s+goes\s+with\s+(?:the\s+)?extension\s+(\d+\.\d+)\b/g) {
			$seen++;
			push @e, $at->($-[0]) . ": \"$1.0 goes with extension $2\", not $want with $dv"
				if $1 ne $dv || $2 ne $dv;
		}
		if ($f =~ m{^clients/[^/]+/README\.md$}) {
			while ($text =~ /(?<![\w.])(\d+\.\d+\.\d+)(?![\w.])/g) {
				$seen++;
				push @e, $at->($-[0]) . ": version $1, not $want" if $1 ne $want;
			}
		}
	}
	check("the version strings of the documents and the clients' READMEs are default_version '$dv' ($want; "
		. scalar(@files) . " files, $seen strings)", \@e);
}

check('META name is the extension name', ($meta->{name} // '') eq 'simhash' ? [] : ["name is $meta->{name}"]);

# the PostgreSQL we build and test on must satisfy the stated requirement
my $pgreq = $meta->{prereqs}{runtime}{requires}{PostgreSQL};
@e = ();
if (!defined $pgreq) { push @e, 'no runtime requirement on PostgreSQL' }
else {
	for my $part (split /,\s*/, $pgreq) {
		my ($op, $v) = $part =~ /^(<=|>=|==|!=|<|>)?\s*(\S+)$/;
		$op //= '>=';	# a bare version is a minimum
		my ($maj) = $v =~ /^(\d+)\./;
		my $have = $pg_major * 1000;	# compare majors only
		my $need = $maj * 1000;
		my $okay = { '>=' => $have >= $need, '>' => $have > $need, '<=' => $have <= $need,
			'<' => $have < $need, '==' => $have == $need, '!=' => $have != $need }->{$op};
		push @e, "PostgreSQL $pg_major does not satisfy $part" unless $okay;
	}
}
check("PostgreSQL $pg_major satisfies the runtime requirement (" . ($pgreq // 'none') . ")", \@e);
