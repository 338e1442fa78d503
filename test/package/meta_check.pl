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
my $semver_re = qr/(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)\.(?:0|[1-9]\d*)
	(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?
	(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?/x;
my $semver = qr/^$semver_re$/;
# a version range: "0", or comparisons AND-ed with commas (">= 1.2.0, < 2.0.0")
my $cmp = qr/(?:(?:[=!]=|[<>]=?)\s*)?$semver_re/;
my $range_re = qr/^(?:0|$cmp)(?:,\s*$cmp)*$/;
my %licenses = map { $_ => 1 } qw(agpl_3 apache_1_1 apache_2_0 artistic_1
	artistic_2 bsd freebsd gfdl_1_2 gfdl_1_3 gpl_1 gpl_2 gpl_3 lgpl_2_1
	lgpl_3_0 mit mozilla_1_0 mozilla_1_1 openssl perl_5 postgresql qpl_1_0
	ssleay sun zlib open_source restricted unrestricted unknown);
my %phases = map { $_ => 1 } qw(configure build test runtime develop);
my %relations = map { $_ => 1 } qw(requires recommends suggests conflicts);

sub is_string { my $v = shift; defined $v && !ref $v && length $v }
sub is_term   { my $v = shift; is_string($v) && length $v >= 2 && $v !~ m{[[:space:][:cntrl:]/\\]} }
sub is_tag    { my $v = shift; is_string($v) && length $v >= 2 && length $v <= 255 && $v !~ m{[[:cntrl:]/\\]} }
sub is_url    { my $v = shift; is_string($v) && $v =~ m{^[A-Za-z][A-Za-z0-9+.-]*://[^/?#\s]+\S*$} }
sub is_email  { my $v = shift; is_string($v) && $v =~ m{^[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+$} }
sub is_custom { $_[0] =~ /^x_./i }
# a non-empty array of non-empty strings
sub is_strings { my $v = shift; ref $v eq 'ARRAY' && @$v && !grep { !is_string($_) } @$v }
# keys of an object outside the allowed ones and x_ keys
sub unknown_keys {
	my ($obj, @allowed) = @_;
	my %ok = map { $_ => 1 } @allowed;
	return sort grep { !$ok{$_} && !is_custom($_) } keys %$obj;
}

# The spec's rules (PGXN Meta Spec 1.0.0, as the JSON schemas of
# pgxn/meta's schema/v1 state them); returns the list of violations
sub validate {
	my $m = shift;
	my @e;
	return ('top level is not an object') unless ref $m eq 'HASH';
	for my $k (qw(name version abstract maintainer license provides meta-spec)) {
		push @e, "missing required key $k" unless defined $m->{$k};
	}
	push @e, "unknown key $_ (custom keys start with x_)" for unknown_keys($m, qw(name version
		abstract maintainer license provides meta-spec description generated_by release_status
		tags no_index prereqs resources));
	push @e, "name is not a term" if defined $m->{name} && !is_term($m->{name});
	push @e, "version is not SemVer" if defined $m->{version} && !(is_string($m->{version}) && $m->{version} =~ $semver);
	for my $k (qw(abstract description generated_by)) {
		push @e, "$k is not a non-empty string" if exists $m->{$k} && !is_string($m->{$k});
	}
	if (defined(my $mt = $m->{maintainer})) {
		push @e, "maintainer is neither a non-empty string nor a non-empty list of them"
			unless is_string($mt) || is_strings($mt);
	}
	if (defined(my $l = $m->{license})) {
		if (ref $l eq 'HASH') {
			push @e, "license map values must be URLs" if !%$l || grep { !is_url($_) } values %$l;
		} elsif (ref $l eq 'ARRAY' && !@$l) {
			push @e, "license list is empty";
		} elsif (ref $l eq 'ARRAY' || !ref $l) {
			for (ref $l ? @$l : ($l)) { push @e, "unknown license " . ($_ // 'null') unless is_string($_) && $licenses{$_} }
		} else {
			push @e, "license is not a string, list or object";
		}
	}
	if (defined(my $ms = $m->{'meta-spec'})) {
		if (ref $ms ne 'HASH') { push @e, "meta-spec is not an object" }
		else {
			push @e, "meta-spec version is not 1.0.x" unless ($ms->{version} // '') =~ /^1\.0\.\d+$/;
			push @e, "meta-spec url is not https://pgxn.org/meta/spec.txt"
				if exists $ms->{url} && ($ms->{url} // '') ne 'https://pgxn.org/meta/spec.txt';
			push @e, "meta-spec: unknown key $_" for unknown_keys($ms, qw(version url));
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
				push @e, "provides/$ext: unknown key $_" for unknown_keys($x, qw(file version abstract docfile));
				for my $k (qw(abstract docfile)) {
					push @e, "provides/$ext $k is empty" if exists $x->{$k} && !is_string($x->{$k});
				}
			}
		}
	}
	push @e, "release_status must be stable, testing or unstable"
		if exists $m->{release_status} && ($m->{release_status} // '') !~ /^(stable|testing|unstable)$/;
	if (exists $m->{tags}) {
		my $t = $m->{tags};
		if (ref $t ne 'ARRAY' || !@$t) { push @e, "tags is not a non-empty list" }
		else { for (@$t) { push @e, "bad tag " . ($_ // 'null') unless is_tag($_) } }
	}
	if (exists $m->{prereqs}) {
		my $pr = $m->{prereqs};
		if (ref $pr ne 'HASH' || !%$pr) { push @e, "prereqs is not a non-empty object" }
		else {
			for my $ph (sort keys %$pr) {
				push @e, "unknown prereq phase $ph" unless $phases{$ph} || is_custom($ph);
				next if is_custom($ph);
				if (ref $pr->{$ph} ne 'HASH' || !%{ $pr->{$ph} }) { push @e, "prereqs/$ph is not a non-empty object"; next }
				for my $rel (sort keys %{ $pr->{$ph} }) {
					push @e, "unknown prereq relation $rel" unless $relations{$rel} || is_custom($rel);
					next if is_custom($rel);
					my $reqs = $pr->{$ph}{$rel};
					if (ref $reqs ne 'HASH' || !%$reqs) { push @e, "prereqs/$ph/$rel is not a non-empty object"; next }
					for my $dep (sort keys %$reqs) {
						push @e, "prereq name $dep is not a term" unless is_term($dep);
						my $range = $reqs->{$dep};
						push @e, "prereq $dep: " . ($range // 'null') . " is not a version range"
							unless defined $range && !ref $range && "$range" =~ $range_re;
					}
				}
			}
		}
	}
	if (exists $m->{resources}) {
		my $r = $m->{resources};
		if (ref $r ne 'HASH' || !%$r) { push @e, "resources is not a non-empty object" }
		else {
			push @e, "resources: unknown key $_" for unknown_keys($r, qw(homepage bugtracker repository));
			push @e, "resources/homepage is not a URL" if exists $r->{homepage} && !is_url($r->{homepage});
			if (exists $r->{bugtracker}) {
				my $b = $r->{bugtracker};
				if (ref $b ne 'HASH') { push @e, "resources/bugtracker is not an object" }
				else {
					push @e, "resources/bugtracker has neither web nor mailto" unless exists $b->{web} || exists $b->{mailto};
					push @e, "resources/bugtracker/web is not a URL" if exists $b->{web} && !is_url($b->{web});
					push @e, "resources/bugtracker/mailto is not an email address" if exists $b->{mailto} && !is_email($b->{mailto});
					push @e, "resources/bugtracker: unknown key $_" for unknown_keys($b, qw(web mailto));
				}
			}
			if (exists $r->{repository}) {
				my $g = $r->{repository};
				if (ref $g ne 'HASH') { push @e, "resources/repository is not an object" }
				else {
					push @e, "resources/repository needs web, or url and type"
						unless exists $g->{web} || (exists $g->{url} && exists $g->{type});
					for my $u (qw(web url)) {
						push @e, "resources/repository/$u is not a URL" if exists $g->{$u} && !is_url($g->{$u});
					}
					push @e, "resources/repository/type is not a lowercase name (git, hg, ...)"
						if exists $g->{type} && !(is_string($g->{type}) && $g->{type} =~ /^[a-z]+$/);
					push @e, "resources/repository: unknown key $_" for unknown_keys($g, qw(web url type));
				}
			}
		}
	}
	if (exists $m->{no_index}) {
		my $ni = $m->{no_index};
		if (ref $ni ne 'HASH' || !(exists $ni->{file} || exists $ni->{directory})) {
			push @e, "no_index is not an object with file or directory";
		} else {
			push @e, "no_index: unknown key $_" for unknown_keys($ni, qw(file directory));
			for my $k (qw(file directory)) {
				push @e, "no_index/$k is not a non-empty list of paths" if exists $ni->{$k} && !is_strings($ni->{$k});
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

# Broken copies must each be rejected, or the validator proves nothing.
# The optional fields META.json does not use are tried too: a copy that
# has them in a valid form must pass first.
my %sample = (
	resources => {
		homepage   => 'https://pgxn.example.org/simhash/',
		bugtracker => { web => 'https://git.example.org/simhash/issues', mailto => 'bugs@example.org' },
		repository => { url => 'https://git.example.org/simhash.git', web => 'https://git.example.org/simhash', type => 'git' },
	},
	license => ['postgresql', 'mit'],
	maintainer => ['A <a@example.org>', 'B'],
	prereqs_test => { recommends => { pgTAP => '0.99.0' } },
);
sub full_copy {
	my $c = JSON::PP->new->decode($raw);
	$c->{resources} = JSON::PP->new->decode(JSON::PP->new->encode($sample{resources}));
	$c->{license} = [@{ $sample{license} }];
	$c->{maintainer} = [@{ $sample{maintainer} }];
	$c->{prereqs}{test} = { recommends => { %{ $sample{prereqs_test}{recommends} } } };
	return $c;
}
{
	my @e = validate(full_copy());
	check('validator accepts a copy with every optional field in a valid form', \@e);
}
my %broken = (
	'version 1.1 (not SemVer)'   => sub { $_[0]{version} = '1.1' },
	'license missing'            => sub { delete $_[0]{license} },
	'unknown license'            => sub { $_[0]{license} = 'postgres' },
	'empty license list'         => sub { $_[0]{license} = [] },
	'license map to a non-URL'   => sub { $_[0]{license} = { PostgreSQL => 'LICENSE' } },
	'empty maintainer list'      => sub { $_[0]{maintainer} = [] },
	'empty abstract'             => sub { $_[0]{abstract} = '' },
	'empty description'          => sub { $_[0]{description} = '' },
	'generated_by not a string'  => sub { $_[0]{generated_by} = ['x'] },
	'provides without a file'    => sub { delete $_[0]{provides}{simhash}{file} },
	'provides without a version' => sub { delete $_[0]{provides}{simhash}{version} },
	'provides version 1.14'      => sub { $_[0]{provides}{simhash}{version} = '1.14' },
	'provides with an empty docfile' => sub { $_[0]{provides}{simhash}{docfile} = '' },
	'provides with an unknown key' => sub { $_[0]{provides}{simhash}{files} = 'x' },
	'unknown top-level key'      => sub { $_[0]{homepage} = 'https://example.org/' },
	'tags as a string'           => sub { $_[0]{tags} = 'simhash' },
	'tag with a slash'           => sub { push @{ $_[0]{tags} }, 'a/b' },
	'one-letter tag'             => sub { push @{ $_[0]{tags} }, 'a' },
	'release_status final'       => sub { $_[0]{release_status} = 'final' },
	'prereq phase misspelt'      => sub { $_[0]{prereqs}{runtimes} = { requires => { PostgreSQL => '15.0.0' } } },
	'prereq relation misspelt'   => sub { $_[0]{prereqs}{runtime}{require} = { PostgreSQL => '15.0.0' } },
	'bad version range'          => sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '>= 15' },
	'version range with a trailing comma' => sub { $_[0]{prereqs}{runtime}{requires}{PostgreSQL} = '>= 15.0.0,' },
	'prereq name with a space'   => sub { $_[0]{prereqs}{runtime}{requires}{'pl pgsql'} = 0 },
	'empty prereq relation'      => sub { $_[0]{prereqs}{test} = { requires => {} } },
	'meta-spec 2.0.0'            => sub { $_[0]{'meta-spec'}{version} = '2.0.0' },
	'meta-spec url elsewhere'    => sub { $_[0]{'meta-spec'}{url} = 'https://pgxn.org/spec/' },
	'no_index directory as a string' => sub { $_[0]{no_index}{directory} = 'test' },
	'no_index with an unknown key' => sub { $_[0]{no_index}{dirs} = ['test'] },
	'empty resources'            => sub { $_[0]{resources} = {} },
	'resources with an unknown key' => sub { $_[0]{resources}{issues} = 'https://git.example.org/simhash/issues' },
	'resources/homepage not a URL' => sub { $_[0]{resources}{homepage} = 'pgxn.org/dist/simhash' },
	'bugtracker with neither web nor mailto' => sub { $_[0]{resources}{bugtracker} = {} },
	'bugtracker/mailto not an address' => sub { $_[0]{resources}{bugtracker}{mailto} = 'bugs' },
	'bugtracker as a URL string' => sub { $_[0]{resources}{bugtracker} = 'https://git.example.org/simhash/issues' },
	'repository url without type' => sub { delete $_[0]{resources}{repository}{web}; delete $_[0]{resources}{repository}{type} },
	'repository type Git'        => sub { $_[0]{resources}{repository}{type} = 'Git' },
	'repository with an unknown key' => sub { $_[0]{resources}{repository}{branch} = 'main' },
);
for my $what (sort keys %broken) {
	my $copy = full_copy();
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
# .deb, the PGXN zip, the npm package's .tgz and "X.Y.0 goes with extension
# X.Y" anywhere.
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
		while ($text =~ /\bsimhash-pg-(\d+\.\d+\.\d+)\.tgz\b/g) {
			$seen++;
			push @e, $at->($-[0]) . ": npm package $1, not $want" if $1 ne $want;
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

# the build needs the server's PGXS of the same majors it runs on
check('prereqs: build requires the PostgreSQL that runtime requires',
	defined $pgreq && ($meta->{prereqs}{build}{requires}{PostgreSQL} // '') eq $pgreq ? []
	: ['build requires ' . ($meta->{prereqs}{build}{requires}{PostgreSQL} // 'none')]);

# the range is the majors supported: from debian/pgversions' lowest (15+)
# to the highest test/majors/run builds by default, as doc/install.md says
{
	my @e;
	my $pgv = file_text("$srcdir/debian/pgversions") // '';
	my ($low) = $pgv =~ /^(\d+)\+/m;
	my ($list) = (file_text("$srcdir/test/majors/run") // '') =~ /\|\|\s*majors=\(([\d ]+)\)/m;
	my ($high) = sort { $b <=> $a } split ' ', ($list // '');
	push @e, 'no "NN+" in debian/pgversions' unless defined $low;
	push @e, 'no default majors in test/majors/run' unless defined $high;
	if (defined $low && defined $high) {
		my $want_range = ">= $low.0.0, < " . ($high + 1) . ".0.0";
		push @e, "runtime requires PostgreSQL " . ($pgreq // 'none') . ", not $want_range"
			unless ($pgreq // '') eq $want_range;
	}
	check('prereqs: the PostgreSQL range is from debian/pgversions ('
		. ($low // '?') . '+) to the last major of test/majors/run (' . ($high // '?') . ')', \@e);
}

# plpgsql (core, but a separate extension that can be dropped) is a runtime
# prerequisite exactly when the install script has plpgsql functions
{
	my $script = `cd '$srcdir' && perl tools/sql_expand.pl sql < sql/simhash.sql 2>&1`;
	my $uses = $script =~ /\bLANGUAGE\s+plpgsql\b/i ? 1 : 0;
	my $lists = exists $meta->{prereqs}{runtime}{requires}{plpgsql} ? 1 : 0;
	check('prereqs: runtime requires plpgsql as the install script uses it ('
		. ($uses ? 'it does' : 'it does not') . ')',
		$? != 0 ? ['tools/sql_expand.pl failed'] : $uses == $lists ? []
		: [$lists ? 'listed, but the script has no plpgsql' : 'not listed']);
}

# no_index names paths of the tree
{
	my @e;
	for my $d (@{ $meta->{no_index}{directory} // [] }) { push @e, "$d is not a directory" unless -d "$srcdir/$d" }
	for my $f (@{ $meta->{no_index}{file} // [] }) { push @e, "$f is not a file" unless -f "$srcdir/$f" }
	check('no_index names directories and files of the tree', \@e);
}

# Addresses: none may be made up.  The project has published no homepage,
# bug tracker or repository (its maintainer address, in debian/control, is
# under .invalid), so META.json has no resources; once it has, each must be
# a real address, not one of the reserved names (RFC 2606, RFC 6761).
sub made_up {
	my $m = shift;
	my @found;
	my $walk;
	$walk = sub {
		my ($v, $at) = @_;
		if (ref $v eq 'HASH') { $walk->($v->{$_}, "$at/$_") for sort keys %$v }
		elsif (ref $v eq 'ARRAY') { $walk->($v->[$_], "$at/$_") for 0 .. $#$v }
		elsif (defined $v && $v =~ m{(?:://|@)(?:[^/\s>]*\.)?([^./\s>]+\.(?:invalid|test|example|localhost)|example\.(?:com|net|org)|localhost)\b}i) {
			push @found, "$at: $1";
		}
	};
	$walk->($m->{$_}, $_) for qw(maintainer resources license);
	return @found;
}
check('META.json names no made-up address (maintainer, resources, license)', [made_up($meta)]);
{
	my $copy = JSON::PP->new->decode($raw);
	$copy->{resources} = { bugtracker => { mailto => 'maintainers@simhash.invalid' } };
	check('the made-up address check finds maintainers@simhash.invalid in a copy', made_up($copy) ? [] : ['not found']);
}
