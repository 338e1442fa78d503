# Hostile input for the batch functions and the n-gram and shingle
# tokenizers: they must stay stoppable, fast on runs of equal fingerprints,
# and bounded in memory.
#
# - statement_timeout, query cancel and pg_terminate_backend stop
#   simhash_pairs and simhash_clusters while they work inside a run of
#   300,000 equal fingerprints (simhash_pairs lists its 45 billion pairs) or
#   inside runs of 300,000 distinct fingerprints that differ only in their
#   low 19 bits (k = 16: every sorted pass compares long runs), and as soon
#   as PostgreSQL's own loops stop: the delay between the stop request and
#   the stop is measured against that of a count(*) over generate_series
#   stopped the same way just before (at most 0.5 s plus 4 times it; a
#   delay beyond is measured again, up to 3 times, so that one stall of a
#   busy machine does not fail the test, while a loop that never checks for
#   interrupts fails every time);
# - simhash_clusters over 300,000 equal plus 100,000 random fingerprints
#   finishes within 100 times a sort of the same rows (a pair per two equal
#   rows would be 45 billion) with one cluster of 300,000, and
#   simhash_group_pairs reports that group once;
# - simhash_ngram(t, 64) and simhash_shingle(t, 64) on an 8 MB text keep
#   the backend's peak memory (VmHWM of /proc/<pid>/status) within 32 bytes
#   per input byte plus 16 MB, and fail with 54000 when maintenance_work_mem
#   is too small for the text;
# - so do the feature lists simhash_features(t), simhash_ngram_features(t,
#   64) and simhash_shingle_features(t, 64) on a 1 MB text, with
#   maintenance_work_mem at 1 GB;
# - simhash_pair_clusters over 3,000,000 ids fails with 54000 at a
#   maintenance_work_mem of 64 MB, its peak memory within it, and fits in
#   256 MB.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use SimhashTAP;
use Time::HiRes qw(usleep time);

my $GRACE = 0.5;	# seconds allowed between the stop request and the stop,
					# beyond 4 times the delay of a builtin loop
# (generate_series in the select list runs value by value: in FROM it
# would be materialised first)
my $REFERENCE = q{SELECT count(x) FROM (SELECT generate_series(1, 100000000000) AS x) s};

my $node = start_node('batch_limits', qq{
maintenance_work_mem = '256MB'
jit = off
max_parallel_workers_per_gather = 0
});

$node->safe_psql('postgres', q{
CREATE EXTENSION simhash;
-- 300,000 empty documents (one fingerprint) and 100,000 random ones
CREATE TABLE same AS
	SELECT g::bigint AS id, '0000000000000000'::simhash AS fp FROM generate_series(1, 300000) g;
INSERT INTO same SELECT 1000000 + g, hashint8extended(g, 1)::simhash FROM generate_series(1, 100000) g;
-- 300,000 distinct fingerprints on the low 19 bits
CREATE TABLE narrow AS SELECT g::bigint AS id, g::bigint::simhash AS fp FROM generate_series(1, 300000) g;
-- text of 240,000 distinct 32-character words: about 8 MB
CREATE TABLE big AS SELECT string_agg(md5(g::text), ' ') AS t FROM generate_series(1, 240000) g;
CREATE FUNCTION proc_kb(field text) RETURNS bigint LANGUAGE sql AS $$
	SELECT substring(pg_read_file('/proc/' || pg_backend_pid() || '/status')
	                 FROM '(?n)^' || field || ':\s*(\d+) kB')::bigint
$$;
VACUUM ANALYZE same, narrow, big;
});

my %calls = (
	'simhash_pairs, 300,000 equal' => q{SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM same', 0)},
	'simhash_pairs, long runs' => q{SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM narrow', 16)},
	'simhash_clusters, long runs' => q{SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM narrow', 16)},
	'simhash_group_pairs, long runs' => q{SELECT count(*) FROM simhash_group_pairs('SELECT id, fp FROM narrow', 16)},
);

# ------------------------------------------------------------------
# Stop delays: each against the builtin reference stopped the same way
# ------------------------------------------------------------------

# Seconds from a 1 s statement_timeout's start to the error, and the error
sub timeout_run
{
	my ($sql) = @_;
	my $t0 = time;
	my ($ret, $out, $err) = $node->psql('postgres', "SET statement_timeout = '1s'; $sql",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	return (time - $t0 - 1, $err);
}

# Start the call in a psql of its own; return the harness, its output
# buffers and the backend's pid once it has run for a second.
sub start_call
{
	my ($sql) = @_;
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-q', '-At', '-v', 'VERBOSITY=verbose', '-d', $node->connstr('postgres'), '-c', $sql ],
		'>', \$out, '2>', \$err);
	my $pid = '';
	for (1 .. 500)
	{
		$pid = $node->safe_psql('postgres', qq{
			SELECT pid FROM pg_stat_activity
			 WHERE state = 'active' AND pid <> pg_backend_pid()
			   AND (query LIKE '%FROM simhash_%' OR query LIKE '%generate_series(1, 100000000000)%')});
		last if $pid ne '';
		usleep(10_000);
	}
	sleep(1);
	return ($h, \$out, \$err, $pid);
}

# Seconds from pg_cancel_backend to the end of the call, and its error
sub cancel_run
{
	my ($sql) = @_;
	my ($h, $out, $err, $pid) = start_call($sql);
	return (99, "no backend found") if $pid eq '';
	my $t0 = time;
	$node->safe_psql('postgres', "SELECT pg_cancel_backend($pid)");
	$h->finish;
	return (time - $t0, $$err);
}

# Seconds pg_terminate_backend (with a timeout, it waits) took, and whether
# the backend went
sub terminate_run
{
	my ($sql) = @_;
	my ($h, $out, $err, $pid) = start_call($sql);
	return (99, 0) if $pid eq '';
	my $t0 = time;
	my $gone = $node->safe_psql('postgres', "SELECT pg_terminate_backend($pid, 10000)") eq 't';
	my $secs = time - $t0;
	$h->finish;
	return ($secs, $gone);
}

# The delay of $sql stopped by $run against the reference's, measured
# again (up to 3 times) while beyond the limit; the last pair and result
sub stop_delay
{
	my ($run, $sql) = @_;
	my ($secs, $res, $ref, $ok);
	for my $try (1 .. 3)
	{
		($ref) = $run->($REFERENCE);
		($secs, $res) = $run->($sql);
		$ok = $secs < $GRACE + 4 * $ref;
		last if $ok;
		diag(sprintf('try %d: %.2f s against a reference of %.2f s', $try, $secs, $ref));
	}
	return ($ok, $secs, $ref, $res);
}

foreach my $what (sort keys %calls)
{
	my ($ok, $secs, $ref, $err) = stop_delay(\&timeout_run, $calls{$what});
	like($err, qr/57014/, "$what: statement_timeout raises 57014");
	ok($ok, sprintf('%s: stopped %.2f s after a 1 s statement_timeout (reference %.2f s)', $what, $secs, $ref));
}

foreach my $what (sort keys %calls)
{
	my ($ok, $secs, $ref, $err) = stop_delay(\&cancel_run, $calls{$what});
	like($err, qr/57014/, "$what: cancel raises 57014");
	ok($ok, sprintf('%s: cancelled after %.2f s (reference %.2f s)', $what, $secs, $ref));
}

foreach my $what ('simhash_pairs, 300,000 equal', 'simhash_clusters, long runs')
{
	my ($ok, $secs, $ref, $gone) = stop_delay(\&terminate_run, $calls{$what});
	ok($gone, "$what: pg_terminate_backend ends the backend");
	ok($ok, sprintf('%s: backend gone %.2f s after pg_terminate_backend (reference %.2f s)', $what, $secs, $ref));
}

# ------------------------------------------------------------------
# One union per run of equal fingerprints
# ------------------------------------------------------------------
{
	my $t0 = time;
	$node->safe_psql('postgres', q{SELECT count(*) FROM (SELECT fp FROM same ORDER BY fp, id) s});
	my $sort_secs = time - $t0;
	$t0 = time;
	my $res = $node->safe_psql('postgres', q{
		SELECT count(*), count(DISTINCT cluster_id),
		       (SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM same', 3) c
		         WHERE c.cluster_id = 1)
		  FROM simhash_clusters('SELECT id, fp FROM same', 3)});
	my $secs = time - $t0;
	my ($ids, $clusters, $biggest) = split /\|/, $res;
	is($ids, 400000, 'simhash_clusters: every id once');
	is($biggest, 300000, 'simhash_clusters: the 300,000 equal fingerprints are one cluster, labelled 1');
	cmp_ok($clusters, '<=', 100001, "simhash_clusters: $clusters clusters");
	cmp_ok($secs, '<', 100 * $sort_secs, sprintf('simhash_clusters twice over 400,000 rows: %.2f s, a sort of them %.2f s',
		$secs, $sort_secs));

	is($node->safe_psql('postgres', q{
		SELECT id1, id2, distance, size1, size2 FROM simhash_group_pairs('SELECT id, fp FROM same', 0)}),
		'1|1|0|300000|300000', 'simhash_group_pairs: the group of 300,000 once');
}

# ------------------------------------------------------------------
# simhash_pair_clusters within maintenance_work_mem: 3,000,000 ids do
# not fit in 64 MB (54000, naming the setting) and the backend's peak
# stays within it, plus 8 MB for the query's own memory (a fetch of
# 10,000 rows, the function scan's tuplestore); raised, they fit
# ------------------------------------------------------------------
{
	my $chain = q{simhash_pair_clusters('SELECT g, g + 1 FROM generate_series(1, 2999999) g')};
	my ($ret, $out, $err) = $node->psql('postgres',
		"SET maintenance_work_mem = '64MB'; SELECT count(*) FROM $chain",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	like($err, qr/54000: simhash_pair_clusters needs more than \d+ MB of memory for more than \d+ ids/,
		'simhash_pair_clusters: 54000 beyond maintenance_work_mem');
	like($err, qr/Raise maintenance_work_mem \(now 65536kB\)/,
		'simhash_pair_clusters: the hint names the setting');

	my $res = $node->safe_psql('postgres', qq{
		SET maintenance_work_mem = '64MB';
		SELECT proc_kb('VmHWM');
		DO \$\$ BEGIN PERFORM count(*) FROM $chain;
		EXCEPTION WHEN program_limit_exceeded THEN NULL; END \$\$;
		SELECT proc_kb('VmHWM');});
	my ($hwm0, $hwm1) = split /\n/, $res;
	diag("simhash_pair_clusters, 3M ids at 64 MB: VmHWM $hwm0 kB -> $hwm1 kB");
	cmp_ok(($hwm1 - $hwm0) * 1024, '<=', (64 + 8) * 1024 * 1024,
		'simhash_pair_clusters: peak memory within maintenance_work_mem + 8 MB');

	is($node->safe_psql('postgres', qq{
		SET maintenance_work_mem = '256MB';
		SELECT count(*), count(DISTINCT cluster_id), min(cluster_id) FROM $chain}),
		'3000000|1|1', 'simhash_pair_clusters: 3M ids fit in 256 MB, one cluster');
}

# ------------------------------------------------------------------
# Memory of simhash_ngram(t, 64) and simhash_shingle(t, 64)
# ------------------------------------------------------------------

# Peak memory of "SELECT $select FROM $from" over the text t of table
# $table, in a fresh backend (its VmHWM is its own peak), with
# maintenance_work_mem raised to 1 GB: within 32 bytes per input byte plus
# 16 MB.  The text is read once before the call, so the baseline holds a
# detoasted copy of it.
sub check_peak_memory
{
	my ($table, $select, $from, $name) = @_;
	my $res = $node->safe_psql('postgres', qq{
		SET maintenance_work_mem = '1GB';
		SELECT octet_length(t), length(t) > 0, proc_kb('VmHWM') FROM $table;
		SELECT $select, proc_kb('VmHWM') FROM $from;});
	my ($bytes, undef, $hwm0, undef, $hwm1) = split /[|\n]/, $res;
	my $delta = ($hwm1 - $hwm0) * 1024;
	diag(sprintf('%s on %d bytes: VmHWM %d kB -> %d kB, %.1f bytes per input byte',
		$name, $bytes, $hwm0, $hwm1, $delta / $bytes));
	cmp_ok($delta, '<=', 32 * $bytes + 16 * 1024 * 1024,
		"$name: peak memory within 32 bytes per input byte + 16 MB");
}

foreach my $fn ('simhash_ngram', 'simhash_shingle')
{
	check_peak_memory('big', "$fn(t, 64) IS NOT NULL", 'big', "$fn(t, 64)");

	my ($ret, $out, $err) = $node->psql('postgres',
		"SET maintenance_work_mem = '64MB'; SELECT $fn(t, 64) FROM big",
		extra_params => [ '-v', 'VERBOSITY=verbose' ]);
	$fn eq 'simhash_ngram'
	  ? like($err, qr/54000/, "$fn(t, 64): 54000 when maintenance_work_mem is too small")
	  : is($ret, 0, "$fn(t, 64): fits in 64 MB (one feature per word)");
}

# ------------------------------------------------------------------
# Memory of the feature lists: the tokenizer's bound, as above, even with
# maintenance_work_mem raised (any role may raise it); their rows go to a
# tuplestore that spills to a file beyond work_mem.  A 1 MB text: the rows
# of simhash_ngram_features(t, 64) alone take about 100 MB.
# ------------------------------------------------------------------
$node->safe_psql('postgres',
	q{CREATE TABLE big1m AS SELECT left(t, 1000000) AS t FROM big; VACUUM ANALYZE big1m;});
foreach my $call ('simhash_features(t)', 'simhash_ngram_features(t, 64)',
	'simhash_shingle_features(t, 64)')
{
	check_peak_memory('big1m', 'count(*) > 0', "big1m, $call", $call);
}

$node->stop;
done_testing();
