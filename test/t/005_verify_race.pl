# The insert-time trigger with a verification stage under concurrency:
# simhash_reject_near_duplicates('fp', '40', 'reject', 'sig', '0.65') on a
# simhash256 column with a GIN index, 8 clients per round that insert at
# the same moment
#   - a near-duplicate of the round's text (one of its 60 words replaced:
#     every two within 40 bits, minhash_jaccard >= 0.65), and
#   - a look-alike: the fingerprint of the round's text with the signature
#     of other words (within 40 bits of every near-duplicate, so it takes
#     the same lock keys, but not alike by minhash_jaccard).
# At READ COMMITTED and REPEATABLE READ, each round:
#   - exactly one near-duplicate survives, every other insert failing with
#     23P01 (or 40001 at REPEATABLE READ);
#   - every look-alike is kept, none of its inserts failing.
# SIMHASH_TAP_DEDUP_ROUNDS sets the rounds per level (default 40, here 15).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use SimhashTAP;

my $ROUNDS = int(($ENV{SIMHASH_TAP_DEDUP_ROUNDS} // 40) * 3 / 8) || 1;
my $CLIENTS = 8;
my $K = 40;
my $T = 0.65;
my $BARRIER = 4343;

my $node = start_load_node('verify', qq{
deadlock_timeout = 100ms
});
$node->safe_psql('postgres', 'CREATE EXTENSION simhash');

# round r's words; client c's near-duplicate replaces word c + 1
$node->safe_psql('postgres', qq{
CREATE TABLE words AS
SELECT r, (SELECT array_agg(md5((r * 1000 + j)::text) ORDER BY j) FROM generate_series(1, 60) j) AS w
FROM generate_series(1, $ROUNDS) r;
CREATE FUNCTION near_body(r int, c int) RETURNS text LANGUAGE sql STABLE
	RETURN (SELECT array_to_string(w[1:c] || ARRAY['client' || c] || w[c + 2:], ' ') FROM words WHERE words.r = near_body.r);
CREATE FUNCTION round_body(r int) RETURNS text LANGUAGE sql STABLE
	RETURN (SELECT array_to_string(w, ' ') FROM words WHERE words.r = round_body.r);
CREATE FUNCTION other_body(r int, c int) RETURNS text LANGUAGE sql IMMUTABLE
	RETURN 'look-alike ' || r || ' ' || c || ' ' || (SELECT string_agg(md5(r || '/' || c || '/' || j), ' ') FROM generate_series(1, 40) j);
});

# the premises: near-duplicates of a round conflict under both conditions,
# look-alikes only under the radius, rounds do not touch
my $premises = $node->safe_psql('postgres', qq{
WITH n AS (SELECT r, c, to_simhash256(near_body(r, c)) AS fp, to_minhash(near_body(r, c)) AS sig
           FROM generate_series(1, $ROUNDS) r, generate_series(0, $CLIENTS - 1) c),
     l AS (SELECT r, c, to_simhash256(round_body(r)) AS fp, to_minhash(other_body(r, c)) AS sig
           FROM generate_series(1, $ROUNDS) r, generate_series(0, $CLIENTS - 1) c)
SELECT (SELECT bool_and(a.fp <-> b.fp <= $K AND minhash_jaccard(a.sig, b.sig) >= $T)
        FROM n a JOIN n b ON a.r = b.r AND a.c < b.c)
    || ',' || (SELECT bool_and(l.fp <-> n.fp <= $K AND minhash_jaccard(l.sig, n.sig) < $T)
        FROM l JOIN n ON l.r = n.r)
    || ',' || (SELECT bool_and(minhash_jaccard(a.sig, b.sig) < $T)
        FROM l a JOIN l b ON a.r = b.r AND a.c < b.c)
    || ',' || (SELECT bool_and(a.fp <-> b.fp > $K)
        FROM n a JOIN n b ON a.r < b.r)});
is($premises, 'true,true,true,true',
	'near-duplicates conflict under both conditions, look-alikes only under the radius, rounds are apart');

my $timer = IPC::Run::timer($PostgreSQL::Test::Utils::timeout_default);
my $ctl = session($node, $timer);
my @clients = map { session($node, $timer) } 1 .. $CLIENTS;

for my $iso ('read committed', 'repeatable read')
{
	(my $t = "docs_$iso") =~ s/ /_/g;
	$node->safe_psql('postgres', qq{
CREATE TABLE $t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 round int NOT NULL, client int NOT NULL, kind text NOT NULL,
                 fp simhash256, sig minhash);
CREATE INDEX ON $t USING gin (fp simhash256_gin_word_ops) WITH (fastupdate = off);
CREATE TRIGGER ${t}_verify BEFORE INSERT OR UPDATE ON $t
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '$K', 'reject', 'sig', '$T');
});
	send_sql($_, "SET default_transaction_isolation = '$iso';") for @clients;
	wait_done($_) for @clients;

	my %codes;
	my @lookalike_errors;
	my $waited_all = 0;		# rounds in which all 8 met at the barrier
	for my $r (1 .. $ROUNDS)
	{
		query($ctl, "SELECT pg_advisory_lock($BARRIER);");
		for my $c (0 .. $CLIENTS - 1)
		{
			my $barrier = qq{SELECT pg_advisory_lock_shared($BARRIER);
SELECT pg_advisory_unlock_shared($BARRIER);};
			# odd rounds: the transaction begins before the barrier
			send_sql($clients[$c], ($r % 2 ? "BEGIN;\n$barrier" : "$barrier\nBEGIN;") . qq{
INSERT INTO $t (round, client, kind, fp, sig)
  VALUES ($r, $c, 'near', to_simhash256(near_body($r, $c)), to_minhash(near_body($r, $c)));
COMMIT;
\\warn MIDDLE
INSERT INTO $t (round, client, kind, fp, sig)
  VALUES ($r, $c, 'look-alike', to_simhash256(round_body($r)), to_minhash(other_body($r, $c)));});
		}
		$waited_all++ if release_barrier($ctl, $BARRIER, $CLIENTS);
		for my $c (0 .. $CLIENTS - 1)
		{
			my (undef, $err) = wait_done($clients[$c]);
			my ($before, $after) = split /^MIDDLE\n/m, $err, 2;
			$codes{$1}++ while $before =~ /ERROR:\s+([0-9A-Z]{5})/g;
			push @lookalike_errors, $after if defined $after && $after =~ /\S/;
		}
	}

	is($waited_all, $ROUNDS, "$iso: in each of $ROUNDS rounds all $CLIENTS clients met at the barrier");
	my $per_round = $node->safe_psql('postgres', qq{
SELECT count(*) FILTER (WHERE near = 1) || ',' || count(*) FILTER (WHERE look = $CLIENTS)
FROM (SELECT round, count(*) FILTER (WHERE kind = 'near') AS near,
             count(*) FILTER (WHERE kind = 'look-alike') AS look
      FROM $t GROUP BY round) s});
	is($per_round, "$ROUNDS,$ROUNDS",
		"$iso: each of $ROUNDS rounds keeps one near-duplicate and all $CLIENTS look-alikes");
	my $rejected = ($codes{'23P01'} // 0) + ($codes{'40001'} // 0);
	is($rejected, $ROUNDS * ($CLIENTS - 1),
		"$iso: every other near-duplicate insert failed with 23P01 or 40001");
	my @other = grep { $_ ne '23P01' && !($_ eq '40001' && $iso ne 'read committed') } keys %codes;
	is(join(',', sort @other), '', "$iso: no other error on a near-duplicate insert");
	is(scalar(@lookalike_errors), 0, "$iso: no look-alike insert failed")
	  or diag(join("\n", @lookalike_errors[0 .. ($#lookalike_errors < 4 ? $#lookalike_errors : 4)]));
}

$_->{h}->finish for ($ctl, @clients);
$node->stop;
done_testing();
