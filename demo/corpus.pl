#!/usr/bin/perl
# corpus.pl: write a corpus of real documents to stdout as PostgreSQL COPY
# text format, columns (source, name, body), for demo/run and bench/run.
#
#   perl demo/corpus.pl [--dir PATH] [--lists DIR] [--limit N] [--max-bytes N]
#                       [--progress SECONDS]
#
# Default corpus, present on every Debian machine:
#   copyright  /usr/share/doc/*/copyright (shared licence boilerplate makes
#              many near-duplicates); a file reached twice through a
#              symlinked doc directory is loaded once.
#   package    one document per package: name, short and long description.
#              From `apt-cache dumpavail` when apt lists exist, else from
#              /var/lib/dpkg/status.  Packages files carry only the short
#              description; the long one comes from apt's Translation-en
#              lists when present, else from dpkg status for installed
#              packages.
#   package-ja, package-zh_CN, package-zh_TW
#              with --lists DIR: the Japanese and Chinese translations of
#              the descriptions in DIR's Translation files (an apt lists
#              directory of its own, filled by demo/run with
#              Acquire::Languages=en,zh_CN,zh_TW,ja), one document per
#              package and language; DIR's Translation-en also supplies
#              long English descriptions.
# --dir PATH replaces it: every regular file under PATH (symlinks are not
# followed; .git, .hg and .svn directories are left out).  Files with a NUL byte, mostly undecodable, empty, or larger
# than --max-bytes are skipped; invalid UTF-8 sequences in otherwise textual
# files are REPLACED by U+FFFD.  Counts go to stderr; with --progress S,
# also every S seconds while it runs (documents so far per source, and
# which input it is reading), so that a long load is not silent.
#
# Core Perl modules only: this must run on a bare Debian.
use strict;
use warnings;
use Encode ();
use File::Find ();
use Getopt::Long ();
use Time::HiRes ();

my ($dir, $lists, $limit, $max_bytes, $progress) = (undef, undef, 0, 16 * 1024 * 1024, 0);
Getopt::Long::GetOptions(
	'dir=s'       => \$dir,
	'lists=s'     => \$lists,
	'limit=i'     => \$limit,
	'max-bytes=i' => \$max_bytes,
	'progress=f'  => \$progress,
) or die "usage: $0 [--dir PATH] [--lists DIR] [--limit N] [--max-bytes N] [--progress SECONDS]\n";

binmode STDOUT;
my %count;			# per source: documents written
my %skip;			# reason => files skipped
my ($replaced, $nout) = (0, 0);
my $t_start = Time::HiRes::time();
my $t_said = $t_start;		# when progress was last printed
my $reading = '';		# what is being read, for the progress lines

sub counts
{
	return join(', ', map { "$count{$_} $_" } sort keys %count);
}

# With --progress: a line on stderr when S seconds have passed since the
# last one.  $what, when given, names the input read from now on.
sub progress
{
	my ($what) = @_;
	$reading = $what if defined $what;
	return unless $progress > 0;
	my $now = Time::HiRes::time();
	return if $now - $t_said < $progress;
	$t_said = $now;
	printf STDERR "corpus: %.0f s: %d documents so far%s; reading %s\n",
	  $now - $t_start, $nout, ($nout ? ' (' . counts() . ')' : ''), $reading;
}

# COPY text format: backslash, tab, newline and CR must be escaped.
sub copy_escape
{
	my $s = shift;
	$s =~ s/\\/\\\\/g;
	$s =~ s/\t/\\t/g;
	$s =~ s/\n/\\n/g;
	$s =~ s/\r/\\r/g;
	return $s;
}

# Returns the bytes as valid UTF-8, or undef with a reason if not text.
# Strict decoding: PostgreSQL rejects surrogates and code points beyond
# U+10FFFF, which Perl's lax utf8::decode would let through.
sub as_text
{
	my ($bytes) = @_;
	return (undef, 'binary (NUL byte)') if index($bytes, "\0") >= 0;
	return (undef, 'empty') if $bytes !~ /\S/;
	my $copy = $bytes;
	return ($bytes) if eval { Encode::decode('UTF-8', $copy, Encode::FB_CROAK); 1 };
	my $chars = Encode::decode('UTF-8', $bytes, Encode::FB_DEFAULT);
	my $bad = () = $chars =~ /\x{FFFD}/g;
	return (undef, 'binary (mostly invalid UTF-8)') if $bad > 0.05 * length($chars);
	$replaced++;
	return (Encode::encode('UTF-8', $chars));
}

sub emit
{
	my ($source, $name, $body) = @_;
	return 0 if $limit && $nout >= $limit;
	my ($text, $why) = as_text($body);
	if (!defined $text)
	{
		$skip{$why}++;
		return 1;
	}
	print copy_escape($source), "\t", copy_escape($name), "\t", copy_escape($text), "\n";
	$count{$source}++;
	$nout++;
	progress() unless $nout % 256;
	return 1;
}

sub slurp
{
	my ($path) = @_;
	open(my $fh, '<:raw', $path) or return undef;
	local $/;
	my $data = <$fh>;
	close $fh;
	return $data // '';
}

# Parse a Debian control-file stream (RFC 822 like stanzas); calls
# $cb->(\%fields) per stanza, continuation lines kept with their newlines,
# until it returns false.
sub each_stanza
{
	my ($fh, $cb) = @_;
	local $/ = '';		# paragraph mode
	while (my $para = <$fh>)
	{
		my (%f, $last);
		for my $line (split /\n/, $para)
		{
			if ($line =~ /^([^\s:]+):\s?(.*)$/)
			{
				$last = $1;
				$f{$last} = $2;
			}
			elsif (defined $last && $line =~ /^\s/)
			{
				$f{$last} .= "\n" . $line;
			}
		}
		last if %f && !$cb->(\%f);
	}
}

# Each stanza of the apt Translation lists @$files (read with apt-helper
# cat-file, compressed or not) to $cb, as each_stanza; false once $cb has
# returned false (the rest is not read).
sub each_translation_stanza
{
	my ($files, $cb) = @_;
	for my $t (@$files)
	{
		next if $t =~ /\.diff_Index$/ || -d $t;
		progress($t);
		open(my $fh, '-|', '/usr/lib/apt/apt-helper', 'cat-file', $t) or next;
		my $ok = 1;
		each_stanza($fh, sub { return $ok = $cb->(@_); });
		close $fh;
		return 0 unless $ok;
	}
	return 1;
}

# Debian description field -> plain text: " ." is an empty line.
sub description_text
{
	my ($d) = @_;
	my @lines = split /\n/, $d, -1;
	s/^ // for @lines[1 .. $#lines];
	s/^\.$// for @lines[1 .. $#lines];
	return join("\n", @lines);
}

sub default_corpus
{
	# copyright files first, so that a small --limit still shows both kinds
	my %inode;
	progress('/usr/share/doc/*/copyright');
	for my $path (sort glob('/usr/share/doc/*/copyright'))
	{
		my @st = stat($path) or next;
		next unless -f _;
		if ($inode{"$st[0]:$st[1]"}++)
		{
			$skip{'copyright: same file as another (symlinked doc dir)'}++;
			next;
		}
		if ($st[7] > $max_bytes)
		{
			$skip{"larger than $max_bytes bytes"}++;
			next;
		}
		my ($pkg) = $path =~ m{^/usr/share/doc/([^/]+)/copyright$};
		emit('copyright', $pkg, slurp($path) // next) or return;
	}

	return if $limit && $nout >= $limit;

	# long descriptions: apt Translation-en lists (keyed by package and
	# Description-md5), then dpkg status (installed packages)
	my (%trans, %status, @status_order);
	my @tdirs = ('/var/lib/apt/lists', defined $lists ? ($lists) : ());
	my $seen = 0;
	each_translation_stanza([ map { sort glob("$_/*_i18n_Translation-en*") } @tdirs ], sub {
		my $f = shift;
		progress() unless ++$seen % 4096;
		$trans{"$f->{Package}\0$f->{'Description-md5'}"} = $f->{'Description-en'}
			if defined $f->{Package} && defined $f->{'Description-md5'} && defined $f->{'Description-en'};
		return 1;
	});
	progress('/var/lib/dpkg/status');
	if (open(my $fh, '<:raw', '/var/lib/dpkg/status'))
	{
		each_stanza($fh, sub {
			my $f = shift;
			return 1 unless defined $f->{Package} && defined $f->{Description};
			return 1 unless ($f->{Status} // '') =~ /\binstalled$/;
			push @status_order, $f->{Package} unless exists $status{$f->{Package}};
			$status{$f->{Package}} = $f->{Description};
			return 1;
		});
		close $fh;
	}

	my %seen;
	my ($with_long, $from) = (0, '/var/lib/dpkg/status');
	my $package_doc = sub {
		my ($pkg, $desc) = @_;
		return 1 if $seen{$pkg};
		my $before = $nout;
		emit('package', $pkg, $pkg . "\n" . description_text($desc)) or return 0;
		$seen{$pkg} = 1;
		$with_long++ if $nout > $before && $desc =~ /\n/;
		return 1;
	};
	my @lists = glob('/var/lib/apt/lists/*_Packages*');
	if (@lists && open(my $fh, '-|', 'apt-cache', 'dumpavail'))
	{
		$from = 'apt-cache dumpavail';
		progress($from);
		each_stanza($fh, sub {
			my $f = shift;
			return 1 unless defined $f->{Package} && defined $f->{Description};
			my ($pkg, $desc) = ($f->{Package}, $f->{Description});
			if ($desc !~ /\n/)
			{
				my $t = $trans{"$pkg\0" . ($f->{'Description-md5'} // '')};
				if (defined $t)
				{
					$desc = $t;
				}
				elsif (defined $status{$pkg} && (split /\n/, $status{$pkg})[0] eq $desc)
				{
					$desc = $status{$pkg};
				}
			}
			return $package_doc->($pkg, $desc);
		});
		close $fh;		# early at --limit: apt-cache's SIGPIPE is expected
	}
	# then installed packages that no apt list knows
	for my $pkg (@status_order)
	{
		$package_doc->($pkg, $status{$pkg}) or last;
	}
	print STDERR "corpus: package descriptions from $from ($with_long of "
	  . ($count{package} // 0) . " with a long description)\n";

	# translations: one document per package and language
	return unless defined $lists;
	for my $lang ('ja', 'zh_CN', 'zh_TW')
	{
		(my $file_lang = $lang) =~ s/_/%5f/;
		my %done;
		each_translation_stanza([ sort glob("$lists/*_i18n_Translation-$file_lang*") ], sub {
			my $f = shift;
			my ($pkg, $desc) = ($f->{Package}, $f->{"Description-$lang"});
			return 1 unless defined $pkg && defined $desc && !$done{$pkg}++;
			return emit("package-$lang", $pkg, $pkg . "\n" . description_text($desc));
		}) or return;
	}
}

sub dir_corpus
{
	die "corpus: --dir $dir: not a directory\n" unless -d $dir;
	(my $root = $dir) =~ s{/+$}{};
	$root = '/' if $root eq '';
	my $done = 0;
	progress($root);
	File::Find::find({
		no_chdir   => 1,
		# version-control metadata is not the user's documents
		preprocess => sub {
			return () if $done;
			return sort grep { !(/^\.(git|hg|svn)$/ && -d "$File::Find::dir/$_") } @_;
		},
		wanted     => sub {
			return if $done;
			my @st = lstat($_) or return;
			return unless -f _;		# regular files only, not symlinks
			if ($st[7] > $max_bytes)
			{
				$skip{"larger than $max_bytes bytes"}++;
				return;
			}
			my $data = slurp($_);
			if (!defined $data)
			{
				$skip{'unreadable'}++;
				return;
			}
			(my $rel = $_) =~ s{^\Q$root\E/?}{};
			$done = 1 unless emit('file', $rel eq '' ? $_ : $rel, $data);
		},
	}, $root);
}

if (defined $dir) { dir_corpus() } else { default_corpus() }

printf STDERR "corpus: wrote %d documents (%s)%s in %.1f s\n", $nout, counts(),
  ($limit && $nout >= $limit ? ", stopped at --limit $limit" : ''), Time::HiRes::time() - $t_start;
print STDERR "corpus: $replaced files had invalid UTF-8: bad bytes REPLACED by U+FFFD\n"
  if $replaced;
print STDERR "corpus: skipped $skip{$_} files: $_\n" for sort keys %skip;
