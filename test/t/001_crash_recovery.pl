# Crash recovery and streaming replication of a table with both a GIN
# (simhash_gin_ops) and a GiST (simhash_gist_ops) index on a simhash column.
#
# Several psql clients insert, update and delete their own rows, each
# transaction also recording its number in a progress table; after every
# COMMIT the client prints "ack N", so the ids the server acknowledged are
# known client-side.  The primary is stopped in immediate mode (no shutdown
# checkpoint: WAL replay on restart) in the middle of that load.  Afterwards
# the table must hold exactly the rows of the transactions the server
# committed (every acknowledged one, plus at most the one in flight), and the
# indexes must answer 1,000 radius queries and 1,000 nearest-neighbour
# queries exactly as a sequential scan does.  A streaming standby, built from
# a base backup before the load, must give the same index answers after the
# crash, after more load, after its own crash, and once promoted.
#
# wal_consistency_checking = 'gin,gist' makes every replay of GIN and GiST
# WAL records (crash recovery and the standby) compare the replayed page with
# the primary's image of it, and fail on any difference.  On PostgreSQL 18
# only GIN is checked: 18.6 once stopped the standby, restarted after its
# crash, with "inconsistent page found" on a Gist/DELETE record carrying a
# full-page image (GiST's own redo, which runs no operator class code; the
# rerun passed), and the standby then never came back.
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
use List::Util qw(sum);
use Time::HiRes qw(usleep time);

random_seed();

my $NCLIENTS = 4;
my $PRELOAD_PER_CLIENT = 2500;
my $SCRIPT_TXNS = 20000;	# far more than can run before the crash
my $CRASH_AFTER = 500;		# crash once every client committed this many
my $NQUERIES = 1000;

# ------------------------------------------------------------------
# Data: fingerprints near 300 random centres, so radius 0..8 queries find
# rows (random 64-bit values are ~32 bits apart and would find nothing).
# ------------------------------------------------------------------
my @centres = map { rand64() } 1 .. 300;

sub rand64
{
	return (int(rand(65536)) << 48) | (int(rand(65536)) << 32)
	  | (int(rand(65536)) << 16) | int(rand(65536));
}

sub near_fp
{
	my $x = $centres[ int(rand(@centres)) ];
	$x ^= (1 << int(rand(64))) for 1 .. int(rand(7));
	return sprintf('%016x', $x);
}

# Client c owns ids c*10^7 + ...; preloaded rows are c*10^7 + 9*10^6 + i.
# A client's state: live ids (array for random picks) and id => [fp, ver].
sub new_state { return { live => [], pos => {}, rows => {} }; }

sub st_add
{
	my ($st, $id, $fp) = @_;
	$st->{pos}{$id} = scalar @{ $st->{live} };
	push @{ $st->{live} }, $id;
	$st->{rows}{$id} = [ $fp, 0 ];
}

sub st_del
{
	my ($st, $id) = @_;
	my $p = delete $st->{pos}{$id};
	my $last = pop @{ $st->{live} };
	if ($last != $id)
	{
		$st->{live}[$p] = $last;
		$st->{pos}{$last} = $p;
	}
	delete $st->{rows}{$id};
}

sub st_apply
{
	my ($st, $txn) = @_;
	for my $op (@{ $txn->{ops} })
	{
		if    ($op->[0] eq 'I') { st_add($st, $op->[1], $op->[2]); }
		elsif ($op->[0] eq 'U')
		{
			$st->{rows}{ $op->[1] } = [ $op->[2], $st->{rows}{ $op->[1] }[1] + 1 ];
		}
		else { st_del($st, $op->[1]); }
	}
}

sub st_copy
{
	my ($st) = @_;
	my %rows = map { $_ => [ @{ $st->{rows}{$_} } ] } keys %{ $st->{rows} };
	return { live => [ @{ $st->{live} } ], pos => { %{ $st->{pos} } }, rows => \%rows };
}

# Transactions $from..$from+$count-1 of client $c, starting from state $st
# (a copy is consumed).  Each inserts 3 rows, every second one updates a
# live row, every third one deletes one.
sub gen_txns
{
	my ($c, $st, $from, $count) = @_;
	$st = st_copy($st);
	my @txns;
	for my $n ($from .. $from + $count - 1)
	{
		my @ops;
		for my $j (0 .. 2)
		{
			push @ops, [ 'I', $c * 10_000_000 + $n * 3 + $j, near_fp() ];
		}
		my %t = (n => $n, ops => \@ops);
		st_apply($st, { ops => [@ops] });
		if ($n % 2 == 0)
		{
			my $id = $st->{live}[ int(rand(@{ $st->{live} })) ];
			my $op = [ 'U', $id, near_fp() ];
			push @ops, $op;
			st_apply($st, { ops => [$op] });
		}
		if ($n % 3 == 0)
		{
			my $id = $st->{live}[ int(rand(@{ $st->{live} })) ];
			my $op = [ 'D', $id ];
			push @ops, $op;
			st_apply($st, { ops => [$op] });
		}
		push @txns, \%t;
	}
	return \@txns;
}

sub txn_sql
{
	my ($c, $t) = @_;
	my (@ins, @rest);
	for my $op (@{ $t->{ops} })
	{
		if ($op->[0] eq 'I') { push @ins, "($op->[1], $c, '$op->[2]')"; }
		elsif ($op->[0] eq 'U')
		{
			push @rest,
			  "UPDATE docs SET fp = '$op->[2]', ver = ver + 1 WHERE id = $op->[1];";
		}
		else { push @rest, "DELETE FROM docs WHERE id = $op->[1];"; }
	}
	return "BEGIN;\nINSERT INTO docs (id, client, fp) VALUES "
	  . join(', ', @ins) . ";\n"
	  . join("\n", @rest, "UPDATE progress SET txn = $t->{n} WHERE client = $c;")
	  . "\nCOMMIT;\n\\echo ack $t->{n}\n";
}

my $tmp = PostgreSQL::Test::Utils::tempdir;

# Start one psql per client on its script; returns the IPC::Run handles.
sub start_clients
{
	my ($node, $tag, $scripts) = @_;
	my @h;
	for my $c (1 .. $NCLIENTS)
	{
		my $f = "$tmp/$tag.$c";
		PostgreSQL::Test::Utils::append_to_file("$f.sql", $scripts->[$c]);
		push @h,
		  IPC::Run::start(
			[
				'psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1',
				'-d', $node->connstr('postgres'), '-f', "$f.sql"
			],
			'<', \undef, '>', "$f.out", '2>', "$f.err");
	}
	return \@h;
}

# The transaction numbers a client printed "ack" for, in order.
sub acks
{
	my ($tag, $c) = @_;
	my @a = slurp_file("$tmp/$tag.$c.out") =~ /^ack (\d+)$/mg;
	return \@a;
}

# ------------------------------------------------------------------
# Answers, one SQL query per side over the 1,000 query fingerprints
# ------------------------------------------------------------------
my %force = (
	seq  => 'SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off;',
	gin  => 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;',
	gist => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_bitmapscan = off;');

# Radius in the form users write (rewritten to the GIN index by the planner
# support function), and the explicit <@ simhash_ball form GiST answers
# (with a GIN index on the column the support function leaves radius search
# to GIN, by design).
my $radius_where = 'd.fp <-> q.qfp <= q.k';
my $ball_where = 'd.fp <@ simhash_ball(q.qfp, q.k)';
my $knn_sql = knn_sql();

sub answers
{
	my ($node, $side, $sql) = @_;
	my $out = $node->safe_psql('postgres', "SET jit = off; $force{$side} $sql");
	return [ split /\n/, $out ];
}

sub plan_of
{
	my ($node, $side, $sql) = @_;
	return $node->safe_psql('postgres', "SET jit = off; $force{$side} EXPLAIN (COSTS OFF) $sql");
}

# Number of queries whose answers differ, and a sample for the log.
sub differing
{
	my ($want, $got) = @_;
	my $bad = 0;
	my @sample;
	for my $i (0 .. $#$want)
	{
		my $g = $got->[$i] // '(missing)';
		next if $g eq $want->[$i];
		$bad++;
		push @sample, "want $want->[$i]\n got $g" if @sample < 3;
	}
	$bad += @$got - @$want if @$got > @$want;
	diag(join("\n", @sample)) if $bad;
	return $bad;
}

sub hits
{
	my ($lines) = @_;
	my ($rows, $nonempty) = (0, 0);
	for (@$lines)
	{
		my (undef, $n) = split /\|/;
		$rows += $n;
		$nonempty++ if $n > 0;
	}
	return ($rows, $nonempty);
}

# Seq-scan answers of $ref compared with forced-index answers of $node.
sub compare_indexes
{
	my ($ref, $node, $what) = @_;

	my $seq = answers($ref, 'seq', radius_sql($radius_where));
	my ($rows, $nonempty) = hits($seq);
	is(scalar @$seq, $NQUERIES, "$what: $NQUERIES radius queries answered by a sequential scan");
	note("$what: radius answers: $rows rows in all, $nonempty of $NQUERIES queries non-empty");
	cmp_ok($nonempty, '>', $NQUERIES / 2, "$what: most radius queries find rows");

	like(plan_of($ref, 'seq', radius_sql($radius_where)), qr/Seq Scan on docs/,
		"$what: the reference pass scans the table");
	like(plan_of($node, 'gin', radius_sql($radius_where)),
		qr/Bitmap Index Scan on docs_fp_gin/, "$what: radius pass uses the GIN index");
	is(differing($seq, answers($node, 'gin', radius_sql($radius_where))), 0,
		"$what: GIN radius answers equal the sequential scan for $NQUERIES queries");

	my $seq_ball = answers($ref, 'seq', radius_sql($ball_where));
	is(differing($seq, $seq_ball), 0, "$what: <@ simhash_ball is the same test as <-> <= k");
	like(plan_of($node, 'gist', radius_sql($ball_where)),
		qr/Index (Only )?Scan using docs_fp_gist on docs d\s+Index Cond/,
		"$what: ball pass uses the GiST index");
	is(differing($seq, answers($node, 'gist', radius_sql($ball_where))), 0,
		"$what: GiST radius answers equal the sequential scan for $NQUERIES queries");

	my $seq_knn = answers($ref, 'seq', $knn_sql);
	like(plan_of($node, 'gist', $knn_sql),
		qr/Index (Only )?Scan using docs_fp_gist on docs d\s+Order By/,
		"$what: KNN pass uses the GiST index");
	is(differing($seq_knn, answers($node, 'gist', $knn_sql)), 0,
		"$what: GiST ORDER BY <-> LIMIT 10 distances equal the sequential scan for $NQUERIES queries");

	# every heap row is reachable through each index by its own fingerprint
	# (the subquery has no id condition, so only the fp index can serve it)
	for my $side ('gin', 'gist')
	{
		my $w = $side eq 'gin' ? 'e.fp <-> d.fp <= 0' : 'e.fp <@ simhash_ball(d.fp, 0)';
		my $sql = "SELECT count(*) FROM docs d WHERE NOT (d.id = ANY (ARRAY(SELECT e.id FROM docs e WHERE $w)))";
		like(plan_of($node, $side, $sql), $side eq 'gin'
			? qr/Bitmap Index Scan on docs_fp_gin/ : qr/Index (Only )?Scan using docs_fp_gist on docs e/,
			"$what: the self-lookup uses the \U$side\E index");
		is($node->safe_psql('postgres', "SET jit = off; $force{$side} $sql"), 0,
			"$what: every row is found through the \U$side\E index by its own fingerprint");
	}
	return;
}

# ------------------------------------------------------------------
# Primary and standby
# ------------------------------------------------------------------
my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1);
my $checked = $primary->pg_version >= 18 ? 'gin' : 'gin,gist';
$primary->append_conf('postgresql.conf', qq{
max_connections = 20
log_statement = none
wal_consistency_checking = '$checked'
checkpoint_timeout = 1h
max_wal_size = 1GB
});
$primary->start;

my %state;
my @preload;
for my $c (1 .. $NCLIENTS)
{
	$state{$c} = new_state();
	for my $i (1 .. $PRELOAD_PER_CLIENT)
	{
		my ($id, $fp) = ($c * 10_000_000 + 9_000_000 + $i, near_fp());
		st_add($state{$c}, $id, $fp);
		push @preload, "($id, $c, '$fp')";
	}
}
my @queries;
for my $q (1 .. $NQUERIES)
{
	# mostly near a centre, some random; k = 0..8
	my $fp = $q % 10 == 0 ? sprintf('%016x', rand64()) : near_fp();
	push @queries, "($q, '$fp', " . ($q % 9) . ")";
}
$primary->safe_psql('postgres', qq{
CREATE EXTENSION simhash;
CREATE TABLE docs (id bigint PRIMARY KEY, client int NOT NULL, fp simhash NOT NULL,
                   ver int NOT NULL DEFAULT 0);
CREATE TABLE progress (client int PRIMARY KEY, txn int NOT NULL);
CREATE TABLE queries (qid int PRIMARY KEY, qfp simhash NOT NULL, k int NOT NULL);
INSERT INTO progress SELECT c, 0 FROM generate_series(1, $NCLIENTS) c;
INSERT INTO docs (id, client, fp) VALUES @{[ join(', ', @preload) ]};
INSERT INTO queries VALUES @{[ join(', ', @queries) ]};
-- a small pending list: GIN merges it into the tree during the load, too
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops) WITH (gin_pending_list_limit = 64);
CREATE INDEX docs_fp_gist ON docs USING gist (fp simhash_gist_ops);
ANALYZE;
});
# a slot keeps the WAL the standby still needs across the crash
$primary->safe_psql('postgres',
	"SELECT pg_create_physical_replication_slot('standby', true); CHECKPOINT");

$primary->backup('base');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'base', has_streaming => 1);
$standby->append_conf('postgresql.conf', "primary_slot_name = 'standby'");
$standby->start;

# ------------------------------------------------------------------
# Phase 1: load, and the primary crashes in the middle of it
# ------------------------------------------------------------------
my (%txns, @scripts);
for my $c (1 .. $NCLIENTS)
{
	$txns{$c} = gen_txns($c, $state{$c}, 1, $SCRIPT_TXNS);
	$scripts[$c] = join('', map { txn_sql($c, $_) } @{ $txns{$c} });
}
# VACUUM (GIN pending-list cleanup, GiST page deletion) and checkpoints
# running alongside the clients, so the crash can land in them too
PostgreSQL::Test::Utils::append_to_file("$tmp/vacuum.sql",
	join('', map { "VACUUM docs;\nSELECT pg_sleep(0.2);\n" . ($_ % 2 == 0 ? "CHECKPOINT;\n" : '') } 1 .. 2000));
my $vac = IPC::Run::start(
	[ 'psql', '-X', '-q', '-At', '-d', $primary->connstr('postgres'), '-f', "$tmp/vacuum.sql" ],
	'<', \undef, '>', "$tmp/vacuum.out", '2>', "$tmp/vacuum.err");
my $t0 = time;
my $loadpos = -s $primary->logfile;
my $clients = start_clients($primary, 'load1', \@scripts);

my $done = 0;
my $deadline = time + 120;
while (time < $deadline)
{
	$done = $primary->safe_psql('postgres', 'SELECT min(txn) FROM progress');
	last if $done >= $CRASH_AFTER;
	usleep(100_000);
}
cmp_ok($done, '>=', $CRASH_AFTER, "every client committed $CRASH_AFTER transactions before the crash");
my $logpos = -s $primary->logfile;
$primary->stop('immediate');
my $checkpoints = () = slurp_file($primary->logfile, $loadpos) =~ /checkpoint complete/g;
my $load_secs = time - $t0;
$_->finish for @$clients;
$vac->finish;

my %acked;
my $mid_load = 1;
for my $c (1 .. $NCLIENTS)
{
	my $a = acks('load1', $c);
	my $ok = 1;
	$ok &&= $a->[ $_ - 1 ] == $_ for 1 .. @$a;
	ok($ok, "client $c: acknowledgements are 1..N in order");
	# the crash is the only way a client may stop: no SQL error before it
	unlike(slurp_file("$tmp/load1.$c.err"), qr/ERROR:/, "client $c: no SQL error before the crash");
	$acked{$c} = scalar @$a;
	$mid_load &&= $acked{$c} < $SCRIPT_TXNS;
}
ok($mid_load, 'the clients were still running when the server died');
unlike(slurp_file("$tmp/vacuum.err"), qr/ERROR:/, 'VACUUM and CHECKPOINT ran without error alongside');
note(sprintf('phase 1: %d transactions acknowledged in %.1f s before the crash, %d checkpoints during the load',
	sum(values %acked), $load_secs, $checkpoints));

$primary->start;
my $recovery_log = slurp_file($primary->logfile, $logpos);
like($recovery_log, qr/database system was interrupted|was not properly shut down/,
	'the primary restarted from a crash');
like($recovery_log, qr/redo starts at/, 'the restart replayed WAL');

# Expected table: preload plus the transactions the server says committed,
# which must be every acknowledged one and at most one more (in flight when
# the server died: committed, but the acknowledgement was lost).
my %expect;
my ($committed_rows, $acked_rows) = (0, 0);
for my $c (1 .. $NCLIENTS)
{
	my $s = $primary->safe_psql('postgres', "SELECT txn FROM progress WHERE client = $c");
	ok($s >= $acked{$c} && $s <= $acked{$c} + 1,
		"client $c: server committed $s transactions, client saw $acked{$c} acknowledged");
	st_apply($state{$c}, $txns{$c}[ $_ - 1 ]) for 1 .. $s;
	for my $n (1 .. $s)
	{
		my $ins = grep { $_->[0] eq 'I' } @{ $txns{$c}[ $n - 1 ]{ops} };
		$committed_rows += $ins;
		$acked_rows += $ins if $n <= $acked{$c};
	}
	$expect{$_} = $state{$c}{rows}{$_} for keys %{ $state{$c}{rows} };
	# phase 2 continues after what committed
	$state{$c}{next} = $s + 1;
}

my %found = map { my ($id, $fp, $ver) = split /\|/; ($id => [ $fp, $ver ]) }
  split /\n/, $primary->safe_psql('postgres',
	"SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT id, fp, ver FROM docs");
my ($missing, $extra, $wrong) = (0, 0, 0);
for my $id (keys %expect)
{
	if (!$found{$id}) { $missing++; next; }
	$wrong++ if "@{$found{$id}}" ne "@{$expect{$id}}";
}
$extra = grep { !$expect{$_} } keys %found;
my ($updates, $deletes) = (0, 0);
for my $c (1 .. $NCLIENTS)
{
	for my $t (@{ $txns{$c} }[ 0 .. $state{$c}{next} - 2 ])
	{
		$updates += grep { $_->[0] eq 'U' } @{ $t->{ops} };
		$deletes += grep { $_->[0] eq 'D' } @{ $t->{ops} };
	}
}
diag(sprintf('after the crash: %d rows inserted by acknowledged transactions (%d by committed ones), '
	  . '%d updates, %d deletes; %d live rows expected, %d found, %d missing, %d unexpected, '
	  . '%d with wrong contents',
	$acked_rows, $committed_rows, $updates, $deletes, scalar keys %expect, scalar keys %found,
	$missing, $extra, $wrong));
is($missing, 0, 'no committed row is missing after crash recovery');
is($extra, 0, 'no row of an uncommitted transaction (and no deleted row) is back');
is($wrong, 0, 'every committed update is there (fingerprint and version)');

compare_indexes($primary, $primary, 'primary after crash recovery');

# ------------------------------------------------------------------
# Phase 2: the standby reconnected; more load runs to completion, then the
# standby's index answers must equal the primary's
# ------------------------------------------------------------------
sub run_load
{
	my ($tag, $count) = @_;
	my @s;
	my %t;
	for my $c (1 .. $NCLIENTS)
	{
		$t{$c} = gen_txns($c, $state{$c}, $state{$c}{next}, $count);
		$s[$c] = join('', map { txn_sql($c, $_) } @{ $t{$c} });
	}
	my $h = start_clients($primary, $tag, \@s);
	return sub {
		my $ok = 1;
		for my $c (1 .. $NCLIENTS)
		{
			$ok &&= $h->[ $c - 1 ]->finish;
			st_apply($state{$c}, $_) for @{ $t{$c} };
			$state{$c}{next} += $count;
		}
		ok($ok, "$tag: $NCLIENTS clients ran $count transactions each without error");
		return;
	};
}

run_load('load2', 150)->();
$primary->wait_for_catchup($standby);
my $table_md5 = 'SELECT md5(string_agg(id || fp::text || ver, \',\' ORDER BY id)) FROM docs';
is($standby->safe_psql('postgres', $table_md5), $primary->safe_psql('postgres', $table_md5),
	'standby: the table equals the primary\'s');
compare_indexes($primary, $standby, 'standby');

# ------------------------------------------------------------------
# Phase 3: the standby crashes while the primary is under load
# ------------------------------------------------------------------
my $before = $primary->safe_psql('postgres', 'SELECT sum(txn) FROM progress');
my $finish = run_load('load3', 600);
my $now = $before;
$deadline = time + 120;
while (time < $deadline && $now < $before + $NCLIENTS * 200)
{
	usleep(50_000);
	$now = $primary->safe_psql('postgres', 'SELECT sum(txn) FROM progress');
}
ok($now >= $before + $NCLIENTS * 200 && $now < $before + $NCLIENTS * 600,
	'the standby crashes while the primary is in the middle of the load');
$logpos = -s $standby->logfile;
$standby->stop('immediate');
$finish->();
$standby->start;
like(slurp_file($standby->logfile, $logpos), qr/redo starts at/, 'standby: replayed WAL after its crash');
$primary->wait_for_catchup($standby);
is($standby->safe_psql('postgres', $table_md5), $primary->safe_psql('postgres', $table_md5),
	'standby after its crash: the table equals the primary\'s');
compare_indexes($primary, $standby, 'standby after its crash');

# ------------------------------------------------------------------
# Promotion: the former standby takes writes into both indexes
# ------------------------------------------------------------------
$primary->stop;
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'standby did not leave recovery';
my @more = map { "(" . (90_000_000 + $_) . ", 0, '" . near_fp() . "')" } 1 .. 2000;
$standby->safe_psql('postgres', "INSERT INTO docs (id, client, fp) VALUES " . join(', ', @more)
	  . "; DELETE FROM docs WHERE id % 7 = 0; UPDATE docs SET fp = (fp::bigint # 1)::simhash, ver = ver + 1 WHERE id % 5 = 0");
compare_indexes($standby, $standby, 'promoted standby after writes');

done_testing();
