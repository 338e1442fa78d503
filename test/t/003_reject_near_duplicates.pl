# Insert-time deduplication under concurrency: simhash_reject_near_duplicates
# with 8 clients that insert near-duplicates of one shared centre at the same
# moment, plus unrelated rows, round after round.  For a GIN and a GiST
# index, at READ COMMITTED, REPEATABLE READ and SERIALIZABLE:
#   - afterwards no two rows are within k bits (simhash_pairs finds none);
#   - exactly one near-duplicate of each round survives;
#   - every unrelated row is there, and none of their inserts failed;
#   - every rejection is 23P01, or 40001 at REPEATABLE READ and SERIALIZABLE;
#     no deadlock (40P01) and no other error.
# At SERIALIZABLE the trigger's search is a read like any other, so SSI may
# also fail an unrelated insert with 40001 (GiST takes predicate locks on
# whole pages): those are retried, as an application would, and counted.
# The GIN index has fastupdate off at SERIALIZABLE (the default, on, at the
# other levels).
# The clients are psql sessions.  Each round they block on an advisory lock
# the controller holds; when all 8 wait, the controller releases it and
# they race.  In odd rounds each client's transaction (and at REPEATABLE
# READ its snapshot) begins before the barrier, in even rounds after it;
# the near-duplicate insert comes right after the barrier.
# SIMHASH_TAP_DEDUP_ROUNDS sets the rounds per combination (default 40).
# Then the same race on simhash128 and simhash256 columns, at READ
# COMMITTED, for k of segmented lock keys and of a single key.
# Then action 'link' (since 1.14): the same race, every row kept, exactly
# one near-duplicate of a round without a link, the others linked within it.
# Last, a bulk load (3,000 rows in one statement, 'skip') races 800
# single-row inserts: no session may get an error, in particular no 40P01.
# (With the keys taken in ascending order but waiting while holding them,
# that part deadlocks; with a search under the statement's snapshot, or the
# transaction's at REPEATABLE READ, the rounds above fail.)

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use FindBin;
use lib $FindBin::RealBin;
use SimhashTAP;

my $ROUNDS = $ENV{SIMHASH_TAP_DEDUP_ROUNDS} // 40;
my $CLIENTS = 8;
my $K = 3;
my $UNRELATED = 2;		# unrelated rows per client and round
my $BARRIER = 4242;		# the controller's advisory lock (bigint key)

my $node = start_load_node('main', qq{
deadlock_timeout = 100ms
});

# Fingerprints, computed by SQL: round r has the centre
# hashint8extended(r, 1); client 0 inserts the centre itself, client c > 0
# the centre with bit 7c flipped, so every two of them are within 2 <= k.
# Unrelated rows are hashint8extended(r * 1000 + c * 10 + j, 2).
my $near = 'hashint8extended(%d, 1) # (CASE WHEN %d = 0 THEN 0 ELSE 1::bigint << (7 * %d) END)';
my $unrel = 'hashint8extended(%d, 2)';

$node->safe_psql('postgres', 'CREATE EXTENSION simhash');

# The expectations hold only if centres and unrelated rows are far apart:
# more than k + 2 bits, as near-duplicates are 1 bit from their centre.
my $close = $node->safe_psql('postgres', qq{
SELECT count(*) FROM simhash_pairs(\$q\$
  SELECT r::bigint, hashint8extended(r, 1)::simhash FROM generate_series(1, $ROUNDS) r
  UNION ALL
  SELECT 1000000 + r * 1000 + c * 10 + j, hashint8extended(r * 1000 + c * 10 + j, 2)::simhash
  FROM generate_series(1, $ROUNDS) r, generate_series(0, $CLIENTS - 1) c,
       generate_series(0, $UNRELATED - 1) j \$q\$, ${\($K + 2)})});
is($close, 0, 'centres and unrelated rows are more than k + 2 bits apart');

# psql sessions driven through pipes (SimhashTAP: session, send_sql,
# wait_done, query)
my $timer = IPC::Run::timer($PostgreSQL::Test::Utils::timeout_default);

sub unrelated_insert
{
	my ($t, $r, $c) = @_;
	my @u = map { sprintf("($r, $c, 'unrelated', ($unrel)::simhash)", $r * 1000 + $c * 10 + $_) }
	  0 .. $UNRELATED - 1;
	return "INSERT INTO $t (round, client, kind, fp) VALUES " . join(', ', @u) . ';';
}

my $ctl = session($node, $timer);
my @clients = map { session($node, $timer) } 1 .. $CLIENTS;

for my $index ('gin', 'gist')
{
	for my $iso ('read committed', 'repeatable read', 'serializable')
	{
		(my $tag = "$index $iso") =~ s/ /_/g;
		my $t = "docs_$tag";
		# GIN's pending list is searched as a whole, so with fastupdate on
		# every search conflicts with every insert under SSI: at
		# SERIALIZABLE the index is built as the README advises
		my $storage = $index eq 'gin' && $iso eq 'serializable' ? ' WITH (fastupdate = off)' : '';
		$node->safe_psql('postgres', qq{
CREATE TABLE $t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 round int NOT NULL, client int NOT NULL, kind text NOT NULL, fp simhash);
CREATE INDEX ON $t USING $index (fp)$storage;
CREATE TRIGGER ${t}_reject BEFORE INSERT OR UPDATE OF fp ON $t
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '$K');
});
		send_sql($_, "SET default_transaction_isolation = '$iso';") for @clients;
		wait_done($_) for @clients;

		my %codes;				# SQLSTATE => count, near-duplicate inserts
		my @unrelated_errors;
		my $retries = 0;
		my $waited_all = 0;		# rounds in which all 8 met at the barrier
		for my $r (1 .. $ROUNDS)
		{
			query($ctl, "SELECT pg_advisory_lock($BARRIER);");
			for my $c (0 .. $CLIENTS - 1)
			{
				my $fp = sprintf($near, $r, $c, $c);
				my $barrier = qq{SELECT pg_advisory_lock_shared($BARRIER);
SELECT pg_advisory_unlock_shared($BARRIER);};
				# odd rounds: the transaction begins before the barrier;
				# even rounds: after it (its snapshot may see the winner)
				send_sql($clients[$c], ($r % 2 ? "BEGIN;\n$barrier" : "$barrier\nBEGIN;") . qq{
INSERT INTO $t (round, client, kind, fp) VALUES ($r, $c, 'near', ($fp)::simhash);
COMMIT;
\\warn MIDDLE
} . unrelated_insert($t, $r, $c));
			}
			# release the barrier when every client waits on it
			$waited_all++ if release_barrier($ctl, $BARRIER, $CLIENTS);
			for my $c (0 .. $CLIENTS - 1)
			{
				my (undef, $err) = wait_done($clients[$c]);
				my ($before, $after) = split /^MIDDLE\n/m, $err, 2;
				$codes{$1}++ while $before =~ /ERROR:\s+([0-9A-Z]{5})/g;
				for my $try (1 .. 20)
				{
					last unless $after =~ /\S/;
					last unless $iso eq 'serializable' && $after =~ /^\S*\s*ERROR:\s+40001\n\z/;
					$retries++;
					send_sql($clients[$c], unrelated_insert($t, $r, $c));
					(undef, $after) = wait_done($clients[$c]);
				}
				push @unrelated_errors, $after if $after =~ /\S/;
			}
		}

		is($waited_all, $ROUNDS, "$tag: in each of $ROUNDS rounds all $CLIENTS clients met at the barrier");
		is($node->safe_psql('postgres', "SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM $t', $K)"),
			0, "$tag: no two rows within $K bits");
		my $one = $node->safe_psql('postgres', qq{
SELECT count(*) FROM (SELECT round FROM $t WHERE kind = 'near' GROUP BY round HAVING count(*) = 1) s});
		my $nnear = $node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE kind = 'near'");
		my $rejected = 0;
		$rejected += $_ for values %codes;
		if ($iso ne 'serializable')
		{
			is($one, $ROUNDS, "$tag: exactly one near-duplicate survives in each of $ROUNDS rounds");
			is($nnear, $ROUNDS, "$tag: $ROUNDS near-duplicates in all");
			is($rejected, $ROUNDS * ($CLIENTS - 1), "$tag: the other near-duplicates were rejected");
		}
		else
		{
			# SSI may also abort the first inserter of a round
			is($one, $nnear, "$tag: at most one near-duplicate survives in each round ($one of $ROUNDS have one)");
			is($rejected + $nnear, $ROUNDS * $CLIENTS, "$tag: every other near-duplicate was rejected");
		}
		is($node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE kind = 'unrelated'"),
			$ROUNDS * $CLIENTS * $UNRELATED, "$tag: every unrelated row is present");
		is(scalar @unrelated_errors, 0, "$tag: no insert of an unrelated row failed")
		  or diag(join('', @unrelated_errors));
		my @allowed = $iso eq 'read committed' ? ('23P01') : ('23P01', '40001');
		my @other = grep { my $c = $_; !grep { $_ eq $c } @allowed } sort keys %codes;
		is("@other", '', "$tag: rejections are @allowed only")
		  or diag(join(', ', map { "$_: $codes{$_}" } sort keys %codes));
		ok(!$codes{'40P01'}, "$tag: no deadlock");
		diag(sprintf('%s: %d rounds, rejections %s; unrelated inserts retried after 40001: %d', $tag, $ROUNDS,
			join(', ', map { "$_ x $codes{$_}" } sort keys %codes), $retries));
	}
}

# ------------------------------------------------------------------
# The same race on simhash128 and simhash256 columns, at READ COMMITTED,
# at a k whose lock keys are segments and at one where a single key covers
# the column; the search through the default GIN class at 128 bits and
# k = 16, the word-key class at 256 bits and k = 16 and 32 (the radii it is
# for), a GiST index otherwise.  Round r's centre is a random
# fingerprint; client c > 0 flips h bits of it, spread over the whole
# width, so two near-duplicates are up to 2h <= k bits apart.  Each
# unrelated row is inserted in a transaction of its own: at these k the
# lock keys are coarse (128 bits, k = 16: 17 segments of 30 buckets, so two
# unrelated rows share a key with probability 0.44), and a transaction
# that inserts two rows can deadlock with another that does (40P01, as
# documented), which a transaction holding no keys while it waits cannot.
# SIMHASH_TAP_WIDE_ROUNDS sets the rounds per case (default 10).
# ------------------------------------------------------------------
my $WIDE_ROUNDS = $ENV{SIMHASH_TAP_WIDE_ROUNDS} // 10;

# Rounds of the race at READ COMMITTED or REPEATABLE READ: the clients run
# $settings, then in round r each client c meets the others at the barrier
# (its transaction begun before it in odd rounds, after it in even ones),
# runs $near->($r, $c), the INSERT of its near-duplicate, commits, then
# runs $rest->($r, $c).  Returns the rounds in which all clients met at the
# barrier, the SQLSTATEs of the first parts (a hash of counts) and the
# errors of the rest (a list).
sub race
{
	my ($settings, $rounds, $near, $rest) = @_;
	my (%codes, @errors);
	my $waited_all = 0;
	send_sql($_, $settings) for @clients;
	wait_done($_) for @clients;
	for my $r (1 .. $rounds)
	{
		query($ctl, "SELECT pg_advisory_lock($BARRIER);");
		for my $c (0 .. $CLIENTS - 1)
		{
			my $barrier = qq{SELECT pg_advisory_lock_shared($BARRIER);
SELECT pg_advisory_unlock_shared($BARRIER);};
			send_sql($clients[$c], ($r % 2 ? "BEGIN;\n$barrier" : "$barrier\nBEGIN;")
				  . "\n" . $near->($r, $c) . "\nCOMMIT;\n\\warn MIDDLE\n" . $rest->($r, $c));
		}
		$waited_all++ if release_barrier($ctl, $BARRIER, $CLIENTS);
		for my $c (0 .. $CLIENTS - 1)
		{
			my (undef, $err) = wait_done($clients[$c]);
			my ($before, $after) = split /^MIDDLE\n/m, $err, 2;
			$codes{$1}++ while $before =~ /ERROR:\s+([0-9A-Z]{5})/g;
			push @errors, $after if $after =~ /\S/;
		}
	}
	return ($waited_all, \%codes, \@errors);
}

# SQL of a fingerprint of the type: random from a seed string
sub wide_random
{
	my ($type, $seed) = @_;
	return $type eq 'simhash128'
	  ? "decode(md5('$seed'), 'hex')::simhash128"
	  : "sha256(convert_to('$seed', 'UTF8'))::simhash256";
}

# client c's near-duplicate of round r: the centre with h bits flipped
sub wide_near
{
	my ($type, $bits, $h, $r, $c) = @_;
	my $flips = $c == 0 ? 0 : $h;
	return "(" . wide_random($type, "centre $r") . "::bit($bits) # coalesce((SELECT bit_or("
	  . "(B'1' || repeat('0', $bits - 1))::varbit >> (($c * 5 + j * 13) % $bits)) "
	  . "FROM generate_series(1, $flips) j), repeat('0', $bits)::varbit)::bit($bits))::$type";
}

my $word256 = 'gin (fp simhash256_gin_word_ops) WITH (fastupdate = off)';
for my $case (['simhash128', 128, 16, 8, 'gin (fp)'], ['simhash128', 128, 32, 4, 'gist (fp)'],
	['simhash256', 256, 16, 8, $word256], ['simhash256', 256, 32, 16, $word256],
	['simhash256', 256, 48, 12, 'gist (fp)'], ['simhash256', 256, 64, 16, 'gist (fp)'])
{
	my ($type, $bits, $k, $h, $index) = @$case;
	my $tag = "${type}_k$k";
	my $t = "docs_$tag";
	my $unrelated_fp = sub { wide_random($type, "unrelated $_[0]") };

	# every two rows of the run are more than k apart, but the
	# near-duplicates of one round
	my @rows;
	for my $r (1 .. $WIDE_ROUNDS)
	{
		for my $c (0 .. $CLIENTS - 1)
		{
			push @rows, "SELECT ${\($r * 100 + $c)}::bigint, " . wide_near($type, $bits, $h, $r, $c);
			push @rows, "SELECT ${\(1000000 + $r * 1000 + $c * 10 + $_)}, "
			  . $unrelated_fp->($r * 1000 + $c * 10 + $_)
			  for 0 .. $UNRELATED - 1;
		}
	}
	my $all = join("\nUNION ALL\n", @rows);
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM simhash_pairs(\$q\$$all\$q\$, $k)
WHERE NOT (id1 < 1000000 AND id2 < 1000000 AND id1 / 100 = id2 / 100)}),
		0, "$tag: rows of different rounds and unrelated rows are more than k apart");
	is($node->safe_psql('postgres', qq{
SELECT count(*) || ' ' || max(distance) FROM simhash_pairs(\$q\$$all\$q\$, $k)
WHERE id1 < 1000000 AND id2 < 1000000 AND id1 / 100 = id2 / 100}),
		"${\($WIDE_ROUNDS * $CLIENTS * ($CLIENTS - 1) / 2)} ${\(2 * $h)}",
		"$tag: the near-duplicates of a round are within k of each other, up to 2h apart");

	$node->safe_psql('postgres', qq{
SET client_min_messages = error;
CREATE TABLE $t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 round int NOT NULL, client int NOT NULL, kind text NOT NULL, fp $type);
CREATE INDEX ON $t USING $index;
CREATE TRIGGER ${t}_reject BEFORE INSERT OR UPDATE OF fp ON $t
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '$k');
});
	my ($waited_all, $codes, $unrelated_errors) = race(
		"SET default_transaction_isolation = 'read committed'; SET client_min_messages = error;",
		$WIDE_ROUNDS,
		sub {
			my ($r, $c) = @_;
			"INSERT INTO $t (round, client, kind, fp) VALUES ($r, $c, 'near', "
			  . wide_near($type, $bits, $h, $r, $c) . ");";
		},
		sub {
			my ($r, $c) = @_;
			join("\n", map {
				"INSERT INTO $t (round, client, kind, fp) VALUES ($r, $c, 'unrelated', "
				  . $unrelated_fp->($r * 1000 + $c * 10 + $_) . ");"
			} 0 .. $UNRELATED - 1);
		});
	my %codes = %$codes;
	my @unrelated_errors = @$unrelated_errors;

	is($waited_all, $WIDE_ROUNDS, "$tag: in each of $WIDE_ROUNDS rounds all $CLIENTS clients met at the barrier");
	is($node->safe_psql('postgres', "SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM $t', $k)"),
		0, "$tag: no two rows within $k bits");
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM (SELECT round FROM $t WHERE kind = 'near' GROUP BY round HAVING count(*) = 1) s}),
		$WIDE_ROUNDS, "$tag: exactly one near-duplicate survives in each of $WIDE_ROUNDS rounds");
	my $rejected = 0;
	$rejected += $_ for values %codes;
	is($rejected, $WIDE_ROUNDS * ($CLIENTS - 1), "$tag: the other near-duplicates were rejected");
	is($node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE kind = 'unrelated'"),
		$WIDE_ROUNDS * $CLIENTS * $UNRELATED, "$tag: every unrelated row is present");
	is(scalar @unrelated_errors, 0, "$tag: no insert of an unrelated row failed")
	  or diag(join('', @unrelated_errors));
	is(join(' ', grep { $_ ne '23P01' } sort keys %codes), '', "$tag: rejections are 23P01 only")
	  or diag(join(', ', map { "$_: $codes{$_}" } sort keys %codes));
	diag(sprintf('%s: %d rounds, rejections %s', $tag, $WIDE_ROUNDS,
		join(', ', map { "$_ x $codes{$_}" } sort keys %codes)));
}

# ------------------------------------------------------------------
# Action 'link' (since 1.14): the same race of 8 near-duplicates of one
# centre per round, plus unrelated rows, but every row is kept and linked
# to its nearest near-duplicate already in the table.  Of the
# near-duplicates of a round that were written, exactly one has no link
# and every other links to a near-duplicate of its own round at the
# distance it gives, following the links from any of them ends at the
# one without (no cycle: each linked to a row written before it), and no
# unrelated row has a link.  At READ COMMITTED no insert fails; at
# REPEATABLE READ an insert whose nearest row was committed after its
# snapshot fails with 40001, and nothing else does.
# SIMHASH_TAP_LINK_ROUNDS sets the rounds per case (default 20, at most
# SIMHASH_TAP_DEDUP_ROUNDS, whose rows the check of distances covers).
# ------------------------------------------------------------------
my $LINK_ROUNDS = $ENV{SIMHASH_TAP_LINK_ROUNDS} // ($ROUNDS < 20 ? $ROUNDS : 20);
for my $case (['gin', 'read committed'], ['gin', 'repeatable read'], ['gist', 'read committed'])
{
	my ($index, $iso) = @$case;
	(my $tag = "link $index $iso") =~ s/ /_/g;
	my $t = "docs_$tag";
	$node->safe_psql('postgres', qq{
CREATE TABLE $t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 round int NOT NULL, client int NOT NULL, kind text NOT NULL, fp simhash,
                 dup_of bigint, dup_distance int);
CREATE INDEX ON $t USING $index (fp);
CREATE TRIGGER ${t}_link BEFORE INSERT OR UPDATE OF fp ON $t
  FOR EACH ROW EXECUTE FUNCTION
  simhash_reject_near_duplicates('fp', '$K', 'link', 'id', 'dup_of', 'dup_distance');
});
	my ($waited_all, $codes, $unrelated_errors) = race(
		"SET default_transaction_isolation = '$iso';", $LINK_ROUNDS,
		sub {
			my ($r, $c) = @_;
			"INSERT INTO $t (round, client, kind, fp) VALUES ($r, $c, 'near', ("
			  . sprintf($near, $r, $c, $c) . ")::simhash);";
		},
		sub { unrelated_insert($t, $_[0], $_[1]) });
	my %codes = %$codes;
	my @unrelated_errors = @$unrelated_errors;

	is($waited_all, $LINK_ROUNDS, "$tag: in each of $LINK_ROUNDS rounds all $CLIENTS clients met at the barrier");
	my $written = $node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE kind = 'near'");
	my $failed = 0;
	$failed += $_ for values %codes;
	is($written + $failed, $LINK_ROUNDS * $CLIENTS, "$tag: every near-duplicate was written or failed");
	is(join(' ', grep { $_ ne '40001' || $iso eq 'read committed' } sort keys %codes), '',
		$iso eq 'read committed' ? "$tag: no insert failed" : "$tag: failures are 40001 only")
	  or diag(join(', ', map { "$_: $codes{$_}" } sort keys %codes));
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM (SELECT round FROM $t WHERE kind = 'near'
                      GROUP BY round HAVING count(*) FILTER (WHERE dup_of IS NULL) = 1) s}),
		$LINK_ROUNDS, "$tag: exactly one near-duplicate of each round has no link");
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM $t a LEFT JOIN $t b ON b.id = a.dup_of
WHERE a.kind = 'near' AND a.dup_of IS NOT NULL
  AND NOT (b.kind = 'near' AND b.round = a.round AND b.id <> a.id
           AND a.dup_distance = (a.fp <-> b.fp) AND a.dup_distance <= $K)}),
		0, "$tag: every other links to a near-duplicate of its round, at their distance");
	is($node->safe_psql('postgres', qq{
WITH RECURSIVE chain(start, id, dup_of, steps) AS (
  SELECT id, id, dup_of, 0 FROM $t WHERE kind = 'near'
  UNION ALL
  SELECT c.start, n.id, n.dup_of, c.steps + 1 FROM chain c JOIN $t n ON n.id = c.dup_of
  WHERE c.steps < $CLIENTS)
SELECT count(*) FROM $t a WHERE kind = 'near'
  AND NOT EXISTS (SELECT 1 FROM chain c WHERE c.start = a.id AND c.dup_of IS NULL)}),
		0, "$tag: the links of each round lead to the one without a link");
	is($node->safe_psql('postgres', qq{
SELECT count(*) || ' ' || count(dup_of) FROM $t WHERE kind = 'unrelated'}),
		($LINK_ROUNDS * $CLIENTS * $UNRELATED) . ' 0', "$tag: every unrelated row is present, with no link");
	is(scalar @unrelated_errors, 0, "$tag: no insert of an unrelated row failed")
	  or diag(join('', @unrelated_errors));
	diag(sprintf('%s: %d rounds, %d near-duplicates written, failures %s', $tag, $LINK_ROUNDS, $written,
		join(', ', map { "$_ x $codes{$_}" } sort keys %codes) || 'none'));
}

# ------------------------------------------------------------------
# A bulk load against single-row inserts, with 'skip': one transaction
# inserts 3,000 rows in one statement (holding up to 512 keys) while the 8
# clients insert 100 rows each, one per transaction, half of them
# near-duplicates of rows of the bulk load, half unrelated.  A single-row
# insert never waits while holding keys, so there is no deadlock; of each
# bulk row and its near-duplicate exactly one is kept.
# ------------------------------------------------------------------
{
	my $t = 'docs_bulk';
	my $NBULK = 3000;
	my $PER = 100;
	$node->safe_psql('postgres', qq{
CREATE TABLE $t (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 g int, kind text NOT NULL, fp simhash);
CREATE INDEX ON $t USING gin (fp) WITH (fastupdate = off);
CREATE TRIGGER ${t}_skip BEFORE INSERT ON $t
  FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '$K', 'skip');
});
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM simhash_pairs(\$q\$
  SELECT g::bigint, hashint8extended(100000 + g, 3)::simhash FROM generate_series(1, $NBULK) g
  UNION ALL
  SELECT 1000000 + c * 1000 + i, hashint8extended(200000 + c * 1000 + i, 3)::simhash
  FROM generate_series(0, $CLIENTS - 1) c, generate_series(0, $PER - 1) i \$q\$, ${\($K + 2)})}),
		0, 'bulk: bulk rows and unrelated rows are more than k + 2 bits apart');
	send_sql($_, "SET default_transaction_isolation = 'read committed';") for @clients;
	wait_done($_) for @clients;

	send_sql($ctl, qq{BEGIN;
INSERT INTO $t (g, kind, fp)
SELECT g, 'bulk', hashint8extended(100000 + g, 3)::simhash FROM generate_series(1, $NBULK) g;
SELECT pg_sleep(0.2);
COMMIT;});
	for my $c (0 .. $CLIENTS - 1)
	{
		my @sql;
		for my $i (0 .. $PER - 1)
		{
			my $g = ($c * $PER + $i) * 3 % $NBULK + 1;
			push @sql, $i % 2
			  ? "INSERT INTO $t (g, kind, fp) VALUES ($g, 'unrelated', hashint8extended(200000 + $c * 1000 + $i, 3)::simhash);"
			  : "INSERT INTO $t (g, kind, fp) VALUES ($g, 'near', (hashint8extended(100000 + $g, 3) # (1::bigint << ($c + 1)))::simhash);";
		}
		send_sql($clients[$c], join("\n", @sql));
	}
	my @errors;
	for my $s ($ctl, @clients)
	{
		my (undef, $err) = wait_done($s);
		push @errors, $err if $err =~ /\S/;
	}
	is(join('', @errors), '', 'bulk: no session got an error (no deadlock)');
	is($node->safe_psql('postgres', "SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM $t', $K)"),
		0, "bulk: no two rows within $K bits");
	is($node->safe_psql('postgres', "SELECT count(*) FROM $t WHERE kind = 'unrelated'"),
		$CLIENTS * $PER / 2, 'bulk: every unrelated row is present');
	is($node->safe_psql('postgres', qq{
SELECT count(*) FROM generate_series(1, $NBULK) g
WHERE (SELECT count(*) FROM $t WHERE $t.g = g.g AND kind IN ('bulk', 'near')) <> 1}),
		0, 'bulk: of each bulk row and its near-duplicate exactly one is kept');
	diag('bulk: ' . $node->safe_psql('postgres',
		"SELECT string_agg(kind || ' ' || n, ', ' ORDER BY kind) FROM (SELECT kind, count(*) n FROM $t GROUP BY kind) s"));
}

for my $s ($ctl, @clients)
{
	$s->{in} .= "\\q\n";
	$s->{h}->finish;
}
$node->stop;
done_testing();
