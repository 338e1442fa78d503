# Crash recovery and streaming replication of the mih index access method,
# whose every page change is generic WAL.
#
# A table of 256-bit fingerprints near 200 random centres gets a mih index
# after a preload (the sorted part); then clients insert, update and delete
# rows (the pending pages), and one of them runs VACUUM in a loop (TIDs
# cleared on code and pending pages).  The primary is stopped in immediate
# mode in the middle of that load and restarted (WAL replay).  Afterwards
# the index must answer 300 radius queries at k = 0, 8, 24 and 48 (each
# about a preloaded row) and 300 nearest-neighbour queries exactly as a
# sequential scan does, and find every seventh row by its own fingerprint; so must a streaming standby built
# before the load, and the standby after its own crash.  simhash_mih_check
# (with heapallindexed) finds each of them sound; a byte of a code page
# flipped while the primary is stopped is reported, and REINDEX mends it.
#
# wal_consistency_checking = 'generic' makes every replay of a generic WAL
# record compare the replayed page with the primary's image of it.
#
# Environment: SIMHASH_TAP_SEED fixes the random data (printed otherwise).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use SimhashTAP;

random_seed();

my $NCLIENTS = 3;
my $PRELOAD = 6000;
my $TXNS = 3000;			# more than run before the crash
my $CRASH_AFTER = 300;		# crash once every client committed this many
my $NQUERIES = 300;

my @centres = map { rand256() } 1 .. 200;

sub rand256 { return join('', map { sprintf('%08x', int(rand(2**32))) } 1 .. 8); }

# fp (a centre by default) with up to n of its bits flipped
sub near_fp
{
	my ($fp, $n) = @_;
	my @bits = split //, unpack('B256', pack('H64', $fp // $centres[ int(rand(@centres)) ]));
	$bits[ int(rand(256)) ] ^= 1 for 1 .. int(rand(($n // 40) + 1));
	return unpack('H64', pack('B256', join('', @bits)));
}

my $tmp = PostgreSQL::Test::Utils::tempdir;

# client c's script in round r (ids of its own): transactions of 3 inserts, an update every second,
# a delete every third (of its own earlier rows), "ack N" after each COMMIT
sub client_script
{
	my ($c, $round) = @_;
	my $sql = '';
	for my $n (1 .. $TXNS)
	{
		my $base = ($round * 10 + $c) * 10_000_000 + $n * 3;
		$sql .= "BEGIN;\nINSERT INTO docs VALUES "
		  . join(', ', map { '(' . ($base + $_) . ", '" . near_fp() . "')" } 0 .. 2) . ";\n";
		$sql .= "UPDATE docs SET fp = '" . near_fp() . "' WHERE id = " . ($base - 3) . ";\n"
		  if $n % 2 == 0;
		$sql .= "DELETE FROM docs WHERE id = " . ($base - 5) . ";\n" if $n % 3 == 0;
		$sql .= "COMMIT;\n\\echo ack $n\n";
	}
	return $sql;
}

sub start_clients
{
	my ($node, $tag, $round) = @_;
	my @h;
	for my $c (1 .. $NCLIENTS)
	{
		my $f = "$tmp/$tag.$c";
		PostgreSQL::Test::Utils::append_to_file("$f.sql", client_script($c, $round));
		push @h, IPC::Run::start(
			[ 'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'), '-f', "$f.sql" ],
			'<', \undef, '>', "$f.out", '2>', "$f.err");
	}
	my $v = "$tmp/$tag.vacuum";
	PostgreSQL::Test::Utils::append_to_file("$v.sql", "VACUUM docs;\nSELECT pg_sleep(0.2);\n" x 2000);
	push @h, IPC::Run::start(
		[ 'psql', '-X', '-q', '-At', '-d', $node->connstr('postgres'), '-f', "$v.sql" ],
		'<', \undef, '>', "$v.out", '2>', "$v.err");
	return \@h;
}

sub acked
{
	my ($tag, $c) = @_;
	my @a = slurp_file("$tmp/$tag.$c.out") =~ /^ack (\d+)$/mg;
	return scalar @a;
}

my %force = (
	seq => 'SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off;',
	bitmap => 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;',
	index => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_bitmapscan = off;');

sub answers
{
	my ($node, $side, $sql) = @_;
	return [ split /\n/, $node->safe_psql('postgres', "SET jit = off; $force{$side} $sql") ];
}

sub check_index
{
	my ($ref, $node, $what) = @_;
	my $radius = radius_sql('d.fp <-> q.qfp <= q.k');
	my $seq = answers($ref, 'seq', $radius);
	is(scalar @$seq, $NQUERIES, "$what: $NQUERIES radius queries answered by a sequential scan");
	cmp_ok(scalar(grep { !/\|0\|/ } @$seq), '>', $NQUERIES / 2, "$what: most radius queries find rows");
	for my $side ('bitmap', 'index')
	{
		like($node->safe_psql('postgres', "$force{$side} EXPLAIN (COSTS OFF) $radius"), qr/docs_fp_mih/,
			"$what: the $side pass uses the mih index");
		is(differing($seq, answers($node, $side, $radius)), 0,
			"$what: mih $side radius answers equal the sequential scan");
	}
	my $knn = knn_sql();
	is(differing(answers($ref, 'seq', $knn), answers($node, 'index', $knn)), 0,
		"$what: mih ORDER BY <-> LIMIT 10 distances equal the sequential scan");
	is($node->safe_psql('postgres', "$force{bitmap} SELECT count(*) FROM docs d WHERE d.id % 7 = 0 "
		  . "AND NOT (d.id = ANY (ARRAY(SELECT e.id FROM docs e WHERE e.fp <-> d.fp <= 0)))"), 0,
		"$what: every seventh row is found through the mih index by its own fingerprint");
	is($node->safe_psql('postgres', "SELECT simhash_mih_check('docs_fp_mih', true)"), '',
		"$what: simhash_mih_check (heapallindexed) finds the index sound");
	return;
}

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
$primary->append_conf('postgresql.conf', qq{
max_connections = 20
wal_consistency_checking = 'generic'
checkpoint_timeout = 1h
max_wal_size = 1GB
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION simhash');
$primary->safe_psql('postgres', 'CREATE TABLE docs (id bigint PRIMARY KEY, fp simhash256 NOT NULL)');
my @preload = map { near_fp() } 1 .. $PRELOAD;
$primary->safe_psql('postgres', 'INSERT INTO docs VALUES '
	  . join(', ', map { "($_, '$preload[$_ - 1]')" } 1 .. $PRELOAD));
$primary->safe_psql('postgres', 'CREATE INDEX docs_fp_mih ON docs USING mih (fp)');
$primary->safe_psql('postgres', 'CREATE TABLE queries (qid int PRIMARY KEY, qfp simhash256, k int)');
my @k = (0, 8, 24, 48);
$primary->safe_psql('postgres', 'INSERT INTO queries VALUES '
	  . join(', ', map { "($_, '" . near_fp($preload[ int(rand($PRELOAD)) ], 6) . "', $k[$_ % 4])" } 1 .. $NQUERIES));
$primary->safe_psql('postgres', "SELECT pg_create_physical_replication_slot('standby', true); CHECKPOINT");
$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'");
$standby->start;

# Phase 1: the primary crashes in the middle of the load
my $h = start_clients($primary, 'load1', 1);
my $waited = 0;
while (grep({ acked('load1', $_) < $CRASH_AFTER } 1 .. $NCLIENTS) && $waited < 1800)
{
	sleep 1;
	$waited++;
}
ok(!grep({ acked('load1', $_) < $CRASH_AFTER } 1 .. $NCLIENTS),
	"every client committed $CRASH_AFTER transactions before the crash");
my $logpos = -s $primary->logfile;
$primary->stop('immediate');
$_->finish for @$h;
$primary->start;
like(slurp_file($primary->logfile, $logpos), qr/redo starts at/, 'the primary replayed WAL after its crash');
check_index($primary, $primary, 'after the crash');

# Phase 2: the standby catches up
$primary->wait_for_catchup($standby);
check_index($primary, $standby, 'standby');

# Phase 3: the standby crashes while the primary is under load
$h = start_clients($primary, 'load2', 2);
$waited = 0;
while (grep({ acked('load2', $_) < 100 } 1 .. $NCLIENTS) && $waited < 1800)
{
	sleep 1;
	$waited++;
}
$standby->stop('immediate');
$standby->start;
$_->kill_kill for @$h;
ok(!grep({ acked('load2', $_) < 100 } 1 .. $NCLIENTS), 'the standby crashed while the primary was under load');
$primary->wait_for_catchup($standby);
check_index($primary, $standby, 'standby after its crash');
check_index($primary, $primary, 'primary after the second load');

# Phase 4: a damaged page is found by simhash_mih_check, and REINDEX mends
# it: one byte of the first code (block 1, after the page header) flipped
# while the primary is stopped
my $file = $primary->data_dir . '/'
  . $primary->safe_psql('postgres', "SELECT pg_relation_filepath('docs_fp_mih')");
$primary->stop('fast');
open(my $fh, '+<', $file) or die "$file: $!";
binmode $fh;
my $at = 8192 + 24;
seek($fh, $at, 0) or die "seek: $!";
read($fh, my $byte, 1) == 1 or die "read: $!";
seek($fh, $at, 0) or die "seek: $!";
print $fh chr(ord($byte) ^ 0xFF);
close($fh) or die "close: $!";
$primary->start;
# PostgreSQL 18 initializes with data checksums, which would reject the page
# before the check reads it; let the check see the damaged bytes
my ($rc, $out, $err) = $primary->psql('postgres',
	"SET ignore_checksum_failure = on; SELECT simhash_mih_check('docs_fp_mih')");
like($err, qr/mih index "docs_fp_mih" is corrupt/, 'simhash_mih_check reports the damaged code page');
$primary->safe_psql('postgres', 'REINDEX INDEX docs_fp_mih');
is($primary->safe_psql('postgres', "SELECT simhash_mih_check('docs_fp_mih', true)"), '',
	'after REINDEX simhash_mih_check finds the index sound');

done_testing();
