# SimhashTAP: what the TAP tests of test/t/ share.
#
#   start_node(NAME, CONF)  a new cluster NAME with CONF appended to its
#                           postgresql.conf, started
#   start_load_node(NAME, CONF)  the same for many clients at once:
#                           statements not logged, 32MB of shared buffers
#   random_seed()           seeds rand from SIMHASH_TAP_SEED (random when
#                           unset), prints it and returns it
#   differing(WANT, GOT)    how many lines of GOT differ from WANT (array
#                           refs or text of lines), the first few printed
#   radius_sql(WHERE)       per query of table queries (qid, qfp, k): its
#                           id, how many rows of docs (id, fp) satisfy
#                           WHERE and their ids, one line per query
#   knn_sql()               per query: the distances of the 10 nearest
#                           rows of docs, one line per query
#   session(NODE, TIMER)    a psql session on NODE driven through pipes;
#   send_sql(S, SQL)        queue SQL on it (a marker on stdout and stderr
#                           ends each batch);
#   wait_done(S)            wait for the last batch: its (stdout, stderr);
#   query(S, SQL)           send_sql and wait_done, dies on any stderr,
#                           returns stdout
#   release_barrier(S, KEY, N)  wait (up to 30 s) until N sessions wait for
#                           the advisory lock KEY that session S holds,
#                           then release it; true if all N met there
package SimhashTAP;

use strict;
use warnings;

use Exporter 'import';
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use IPC::Run;
use Test::More ();

our @EXPORT = qw(start_node start_load_node random_seed differing radius_sql knn_sql session send_sql wait_done query release_barrier);

sub start_node
{
	my ($name, $conf) = @_;
	my $node = PostgreSQL::Test::Cluster->new($name);
	$node->init;
	$node->append_conf('postgresql.conf', $conf);
	$node->start;
	return $node;
}

sub start_load_node
{
	my ($name, $conf) = @_;
	return start_node($name, "log_statement = none\nshared_buffers = 32MB\n$conf");
}

sub random_seed
{
	my $seed = $ENV{SIMHASH_TAP_SEED} // int(rand(1_000_000_000));
	srand($seed);
	Test::More::diag("seed $seed (set SIMHASH_TAP_SEED=$seed to repeat this data)");
	return $seed;
}

sub differing
{
	my ($want, $got) = map { ref $_ ? $_ : [ split /\n/ ] } @_;
	my $bad = abs(@$want - @$got);
	for my $i (0 .. $#$want)
	{
		next if defined $got->[$i] && $got->[$i] eq $want->[$i];
		Test::More::diag("want $want->[$i]\n got " . ($got->[$i] // '(missing)')) if $bad < 3;
		$bad++;
	}
	return $bad;
}

sub radius_sql
{
	my ($where) = @_;
	return "SELECT q.qid || '|' || s.n || '|' || coalesce(s.ids, '') FROM queries q "
	  . "CROSS JOIN LATERAL (SELECT count(*) AS n, string_agg(d.id::text, ',' ORDER BY d.id) AS ids "
	  . "FROM docs d WHERE $where) s ORDER BY q.qid";
}

sub knn_sql
{
	return "SELECT q.qid || '|' || s.dists FROM queries q CROSS JOIN LATERAL "
	  . "(SELECT string_agg(t.dist::text, ',') AS dists FROM (SELECT d.fp <-> q.qfp AS dist "
	  . "FROM docs d ORDER BY d.fp <-> q.qfp LIMIT 10) t) s ORDER BY q.qid";
}

sub session
{
	my ($node, $timer) = @_;
	my %s = (in => '', out => '', err => '', n => 0, timer => $timer);
	$s{h} = IPC::Run::start(
		[
			'psql', '-X', '-q', '-A', '-t', '-v', 'VERBOSITY=sqlstate',
			'-d', $node->connstr('postgres')
		],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err}, $timer);
	return \%s;
}

sub send_sql
{
	my ($s, $sql) = @_;
	$s->{n}++;
	$s->{in} .= "$sql\n\\echo DONE $s->{n}\n\\warn DONE $s->{n}\n";
	$s->{h}->pump_nb while length $s->{in};
	return;
}

sub wait_done
{
	my ($s) = @_;
	my $n = $s->{n};
	$s->{timer}->start($PostgreSQL::Test::Utils::timeout_default);
	$s->{h}->pump until $s->{out} =~ /^DONE $n\n/m && $s->{err} =~ /^DONE $n\n/m;
	my ($out, $err) = ($s->{out}, $s->{err});
	$s->{out} = $s->{err} = '';
	s/^DONE \d+\n//mg for ($out, $err);
	return ($out, $err);
}

sub query
{
	my ($s, $sql) = @_;
	send_sql($s, $sql);
	my ($out, $err) = wait_done($s);
	die "session: $err" if $err ne '';
	chomp $out;
	return $out;
}

sub release_barrier
{
	my ($s, $key, $n) = @_;
	my $waiting = 0;
	for (1 .. 3000)
	{
		$waiting = query($s, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
			  . " AND objid = $key AND objsubid = 1 AND NOT granted;");
		last if $waiting == $n;
		select(undef, undef, undef, 0.01);
	}
	query($s, "SELECT pg_advisory_unlock($key);");
	return $waiting == $n;
}

1;
