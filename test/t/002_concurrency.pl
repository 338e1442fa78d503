# Concurrency: 8 pgbench clients for SIMHASH_TAP_CONCURRENCY_SECONDS (60)
# seconds of mixed inserts, updates, radius queries (answered by the GIN
# index, as prepared statements) and nearest-neighbour queries (GiST) on a
# table with both indexes.  No transaction may fail, every committed insert
# must be in the table, and afterwards the indexes must answer 1,000 radius
# and 1,000 nearest-neighbour queries exactly as a sequential scan does.
# The throughput is printed for doc/testing.md.

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use SimhashTAP;

my $secs = $ENV{SIMHASH_TAP_CONCURRENCY_SECONDS} // 60;
my $NQUERIES = 1000;
my $PRELOAD = 20000;

my $node = start_load_node('main', qq{
autovacuum_naptime = 1s
});

# 300 centres, rows within a few bits of them (random 64-bit values are
# ~32 bits apart: radius 0..8 queries would find nothing).  Inserted rows
# have tag 1, preloaded ones tag 0.
$node->safe_psql('postgres', qq{
CREATE EXTENSION simhash;
CREATE TABLE centres (i int PRIMARY KEY, c bigint NOT NULL);
INSERT INTO centres SELECT i, hashint8extended(i, 42) FROM generate_series(1, 300) i;
CREATE TABLE docs (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                   fp simhash NOT NULL, tag int NOT NULL DEFAULT 0, ver int NOT NULL DEFAULT 0);
INSERT INTO docs (fp)
SELECT (c # (1::bigint << (hashint4(g) & 63)) # (1::bigint << (hashint4(g + 7) & 63)))::simhash
FROM generate_series(1, $PRELOAD) g JOIN centres ON i = g % 300 + 1;
CREATE INDEX docs_fp_gin ON docs USING gin (fp simhash_gin_ops);
CREATE INDEX docs_fp_gist ON docs USING gist (fp simhash_gist_ops);
CREATE TABLE queries AS
SELECT g AS qid, (c # (1::bigint << (hashint4(g + 99) & 63)))::simhash AS qfp, g % 9 AS k
FROM generate_series(1, $NQUERIES) g JOIN centres ON i = g % 300 + 1;
ALTER TABLE queries ADD PRIMARY KEY (qid);
ANALYZE;
});

# pgbench makes the fingerprints: a centre XOR a few single bits
# (pgbench integers are 64-bit, like simhash).
my $pick = q{
\set c random(1, 300)
SELECT c AS center FROM centres WHERE i = :c \gset
\set b1 random(0, 63)
\set b2 random(0, 63)
\set fp :center # (1 << :b1) # (1 << :b2)
};
my %scripts = (
	'insert@3' => $pick . q{
INSERT INTO docs (fp, tag) VALUES ((:fp)::bigint::simhash, 1);
},
	'update@1' => $pick . qq{
\\set id random(1, $PRELOAD)
UPDATE docs SET fp = (:fp)::bigint::simhash, ver = ver + 1 WHERE id = :id;
},
	'radius@4' => $pick . q{
\set k random(0, 8)
SELECT count(*) FROM docs WHERE fp <-> (:fp)::bigint::simhash <= :k;
},
	'knn@2' => $pick . q{
SELECT fp <-> (:fp)::bigint::simhash FROM docs ORDER BY fp <-> (:fp)::bigint::simhash LIMIT 10;
});

# The statements pgbench runs are planned as index scans, also as generic
# plans of prepared statements.
for my $mode ('force_custom_plan', 'force_generic_plan')
{
	my $plans = $node->safe_psql('postgres', qq{
SET plan_cache_mode = $mode;
PREPARE r(bigint, int) AS SELECT count(*) FROM docs WHERE fp <-> (\$1)::bigint::simhash <= \$2;
PREPARE n(bigint) AS SELECT fp <-> (\$1)::bigint::simhash FROM docs ORDER BY fp <-> (\$1)::bigint::simhash LIMIT 10;
EXPLAIN (COSTS OFF) EXECUTE r(81985529216486895, 3);
EXPLAIN (COSTS OFF) EXECUTE n(81985529216486895);
});
	like($plans, qr/Bitmap Index Scan on docs_fp_gin/, "radius statement uses the GIN index ($mode)");
	like($plans, qr/Index (Only )?Scan using docs_fp_gist/, "KNN statement uses the GiST index ($mode)");
}

my $tmp = PostgreSQL::Test::Utils::tempdir;
my @files;
for my $name (sort keys %scripts)
{
	my ($base, $weight) = split /@/, $name;
	PostgreSQL::Test::Utils::append_to_file("$tmp/$base.sql", $scripts{$name});
	push @files, '-f', "$tmp/$base.sql\@$weight";
}

my ($stdout, $stderr);
my $ok = IPC::Run::run(
	[
		'pgbench', '-n', '-c', '8', '-j', '2', '-T', $secs, '-M', 'prepared',
		'--failures-detailed', @files, $node->connstr('postgres')
	],
	'>', \$stdout, '2>', \$stderr);
my $status = $? >> 8;
# the full report goes to the test's log file (tmp_check/log/regress_log_*)
print "pgbench output:\n$stdout\npgbench stderr:\n$stderr\n";

is($status, 0, 'pgbench exit status is 0 (no client aborted)');
my ($processed) = $stdout =~ /number of transactions actually processed: (\d+)/;
my ($failed) = $stdout =~ /number of failed transactions: (\d+)/;
my ($tps) = $stdout =~ /tps = ([\d.]+) \(without initial connection time\)/;
ok(defined $processed && $processed > 0, 'pgbench processed transactions');
is($failed, 0, 'no transaction failed');
unlike($stderr, qr/error|abort/i, 'pgbench printed no error');
my %per;
# per-script lines: up to 17 the tps is on the transactions line, from 18
# on the line after it
while ($stdout =~ /SQL script \d+: \S*?(\w+)\.sql\n - weight: \d+ \(targets [\d.]+% of total\)\n - (\d+) transactions \([\d.]+% of total(?:, tps = ([\d.]+))?\)\n(?: - number of transactions actually processed: \d+ \(tps = ([\d.]+)\)\n)?/g)
{
	$per{$1} = [ $2, $3 // $4 ];
}
is(scalar keys %per, 4, 'pgbench reported each of the 4 scripts');
diag(sprintf('pgbench: 8 clients, %d s: %d transactions, %.0f tps, %d failed; %s',
	$secs, $processed // 0, $tps // 0, $failed // -1,
	join(", ", map { sprintf("%s %d (%.0f tps)", $_, @{ $per{$_} }) } sort keys %per)));

# every insert pgbench counted is there (each adds one row).  When -T runs
# out, a client may stop before reading the result of an insert the server
# has already committed: at most one such row per client.
my $inserted = $node->safe_psql('postgres', 'SELECT count(*) FROM docs WHERE tag = 1');
my $counted = $per{insert}[0] // -1;
ok($inserted >= $counted && $inserted <= $counted + 8,
	"the table holds the $counted inserts pgbench counted (found $inserted; at most 8 more, one in flight per client)");

# ------------------------------------------------------------------
# Index answers equal sequential-scan answers, one SQL query per side
# ------------------------------------------------------------------
my %force = (
	seq  => 'SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off;',
	gin  => 'SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;',
	gist => 'SET enable_seqscan = off; SET enable_indexscan = on; SET enable_bitmapscan = off;');
my $radius = radius_sql('d.fp <-> q.qfp <= q.k');
# with a GIN index on the column the planner support function leaves radius
# queries to GIN; with bitmap scans off (GIN's only scan) GiST answers them
my $ball = radius_sql('d.fp <@ simhash_ball(q.qfp, q.k)');
my $knn = knn_sql();

sub run_side
{
	my ($side, $sql, $explain) = @_;
	return $node->safe_psql('postgres',
		"SET jit = off; $force{$side} " . ($explain ? 'EXPLAIN (COSTS OFF) ' : '') . $sql);
}

my $seq = run_side('seq', $radius);
my @lines = split /\n/, $seq;
my $rows = 0;
$rows += (split /\|/)[1] for @lines;
is(scalar @lines, $NQUERIES, "$NQUERIES radius queries answered by a sequential scan");
cmp_ok($rows, '>', $NQUERIES, "the radius queries find rows ($rows in all)");
like(run_side('seq', $radius, 1), qr/Seq Scan on docs d/, 'the reference pass scans the table');
like(run_side('gin', $radius, 1), qr/Bitmap Index Scan on docs_fp_gin/, 'radius pass uses the GIN index');
is(differing($seq, run_side('gin', $radius)), 0,
	"GIN radius answers equal the sequential scan for $NQUERIES queries");
is(differing($seq, run_side('seq', $ball)), 0, '<@ simhash_ball is the same test as <-> <= k');
like(run_side('gist', $ball, 1), qr/Index (Only )?Scan using docs_fp_gist on docs d\s+Index Cond/,
	'ball pass uses the GiST index');
is(differing($seq, run_side('gist', $ball)), 0,
	"GiST radius answers equal the sequential scan for $NQUERIES queries");
like(run_side('gist', $knn, 1), qr/Index (Only )?Scan using docs_fp_gist on docs d\s+Order By/,
	'KNN pass uses the GiST index');
is(differing(run_side('seq', $knn), run_side('gist', $knn)), 0,
	"GiST ORDER BY <-> LIMIT 10 distances equal the sequential scan for $NQUERIES queries");

$node->stop;
done_testing();
