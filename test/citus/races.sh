#!/bin/bash
# The insert-time races of test/t/003 against a Citus cluster: 8 clients at
# once insert near-duplicates of one fingerprint through the guarded view
# of a table distributed over 32 shards, round after round, at each
# isolation level and at 64, 128 and 256 bits (k = 32 and 48 at 256).
# Exactly one row of each round
# must be kept, and the table must hold no pair within k.  A client may
# fail only with SQLSTATE 23P01 (the near-duplicate, rejected) or 40001 (a
# serialization failure, to retry).
#
#   bash test/citus/races.sh PSQL_ARGS...   (psql options of the coordinator)
#
# Then the same with the verification stage (1.10), where rows within k
# whose signatures are not alike must all be kept, and with the 'link'
# action (1.14), where every row is kept and exactly one of a round has no
# link.  Prints one ok/FAIL line per (width, isolation level) and the
# counts.
# --short: the short set (test/majors/run, on the majors after the host's):
# 256 bits at k = 32 only, the width of issue 39, and fewer rounds of each
# race (8, 4 unrelated, 4 verified, 4 linked at READ COMMITTED only), about
# a sixth of the full set's time.
# SIMHASH_CITUS_RACE_ROUNDS: rounds per combination (20; short 8);
# SIMHASH_CITUS_UNRELATED_ROUNDS: rounds of unrelated rows (15; short 4);
# SIMHASH_CITUS_VERIFY_ROUNDS: rounds with verification (15; short 4);
# SIMHASH_CITUS_LINK_ROUNDS: rounds of the 'link' action at each level (8;
# short 4);
# SIMHASH_PSQL: the psql to run (psql).
set -uo pipefail
short=0
if [ "${1:-}" = --short ]; then short=1; shift; fi
PSQL=("${SIMHASH_PSQL:-psql}" -X -q -v ON_ERROR_STOP=1 -v VERBOSITY=verbose "$@")
if [ "$short" -eq 1 ]; then
	specs=("256 simhash256 32 64")
	ROUNDS=${SIMHASH_CITUS_RACE_ROUNDS:-8}
	ROWS=${SIMHASH_CITUS_UNRELATED_ROUNDS:-4}
	VROUNDS=${SIMHASH_CITUS_VERIFY_ROUNDS:-4}
	LROUNDS=${SIMHASH_CITUS_LINK_ROUNDS:-4}
else
	specs=("64 simhash 3 16" "128 simhash128 12 32" "256 simhash256 32 64" "256 simhash256 48 64")
	ROUNDS=${SIMHASH_CITUS_RACE_ROUNDS:-20}
	ROWS=${SIMHASH_CITUS_UNRELATED_ROUNDS:-15}
	VROUNDS=${SIMHASH_CITUS_VERIFY_ROUNDS:-15}
	LROUNDS=${SIMHASH_CITUS_LINK_ROUNDS:-8}
fi
CLIENTS=8
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
T=$(mktemp -d /tmp/simhash-races.XXXXXX)
trap 'rm -rf "$T"' EXIT
# flip BASE J: the hex fingerprint BASE with bit J of its last digit pair
# flipped
flip() { printf '%s%02x' "${1:0:${#1}-2}" $((16#${1: -2} ^ (1 << $2))); }
# client LEVEL SQL [HOLD]: in the background, one transaction at isolation
# level LEVEL that runs SQL and holds for HOLD seconds (0.02) before
# COMMIT; errors go to $T/errors
client() {
	"${PSQL[@]}" -c "BEGIN ISOLATION LEVEL $1" -c "$2" \
		-c "SELECT pg_sleep(${3:-0.02})" -c "COMMIT" > /dev/null 2>> "$T/errors" &
}

# width, type, k, hex digits; a round's fingerprints differ from its base
# in one bit each (client j flips bit j), so any two are within 2 <= k
for spec in "${specs[@]}"; do
	read -r width type k digits <<< "$spec"
	tab=race${width}_$k
	"${PSQL[@]}" -c "DROP VIEW IF EXISTS ${tab}_guarded; DROP TABLE IF EXISTS $tab, ${tab}_simhash_keys, ${tab}_simhash_shards;" \
		-c "CREATE TABLE $tab (id bigint PRIMARY KEY, fp $type)" \
		-c "SELECT create_distributed_table('$tab', 'id', shard_count => 32)" \
		-c "SELECT simhash_distributed_guard('$tab', 'id', 'fp', $k)" > "$T/setup.log" 2>&1 \
		|| { cat "$T/setup.log"; bad "races $width: setup"; continue; }
	for level in "READ COMMITTED" "REPEATABLE READ" "SERIALIZABLE"; do
		lv=${level// /_}
		start=$(date +%s)
		: > "$T/errors"
		for ((r = 1; r <= ROUNDS; r++)); do
			# the round's base: a fingerprint from md5 of (width, level, round)
			base=$(printf '%s' "$width $lv $r" | md5sum | cut -c1-32)
			base=$(printf '%s%s' "$base" "$base" | cut -c1-"$digits")
			for ((j = 0; j < CLIENTS; j++)); do
				fp=$(flip "$base" "$j")
				id=$((r * 100 + j + ${#lv} * 100000 + (width + k) * 10000000))
				client "$level" "INSERT INTO ${tab}_guarded (id, fp) VALUES ($id, '$fp')"
			done
			wait
		done
		kept=$("${PSQL[@]}" -tA -c "SELECT count(*) FROM $tab WHERE id / 100000 % 100 = ${#lv}")
		pairs=$("${PSQL[@]}" -tA -c "SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM $tab', $k)")
		# by SQLSTATE (psql's verbose errors: "ERROR:  23P01: ..."): a
		# serialization failure must reach the client as 40001 (1.8 gave
		# XX000 at SERIALIZABLE), which retry code looks for
		rejected=$(grep -c '^ERROR:  23P01: ' "$T/errors")
		serial=$(grep -c '^ERROR:  40001: ' "$T/errors")
		other=$(grep '^ERROR' "$T/errors" | grep -v -e '^ERROR:  23P01: ' -e '^ERROR:  40001: ' | sort | uniq -c | head -5)
		msg="races $width bits, k=$k, $level: $ROUNDS rounds of $CLIENTS clients, $kept rows kept, $pairs pairs within k, $rejected rejected (23P01), $serial serialization failures, $(( $(date +%s) - start )) s"
		if [ "$kept" = "$ROUNDS" ] && [ "$pairs" = 0 ] && [ -z "$other" ]; then
			ok "$msg"
		else
			bad "$msg"; [ -n "$other" ] && echo "$other"
		fi
	done
done

# Unrelated rows (256 bits, k=32): 8 clients insert fingerprints far
# apart, which share a lock row about one time in four; such rows only
# wait for each other.  At READ COMMITTED and REPEATABLE READ no client
# retries: every row must be kept there (the issue allows 5 % of failures
# at REPEATABLE READ; 1.8 to 1.11 lost about half to 40001).
tab=race256_32
for level in "READ COMMITTED" "REPEATABLE READ"; do
	lv=${level// /_}
	: > "$T/errors"
	start=$(date +%s)
	for ((r = 1; r <= ROWS; r++)); do
		for ((j = 0; j < CLIENTS; j++)); do
			id=$((2000000000000000 + ${#lv} * 10000 + r * 100 + j))
			fp=$(printf 'unrelated %s' "$id" | sha256sum | cut -c1-64)
			client "$level" "INSERT INTO ${tab}_guarded (id, fp) VALUES ($id, '$fp')"
		done
		wait
	done
	kept=$("${PSQL[@]}" -tA -c "SELECT count(*) FROM $tab WHERE id >= 2000000000000000 AND id / 10000 % 100 = ${#lv}")
	failed=$(grep -c '^ERROR' "$T/errors")
	msg="races 256 bits, k=32, unrelated rows, $level without retries: $((ROWS * CLIENTS)) rows, $kept kept, $failed failed, $(( $(date +%s) - start )) s"
	if [ "$kept" = "$((ROWS * CLIENTS))" ] && [ "$failed" = 0 ]; then
		ok "$msg"
	else
		bad "$msg"; grep '^ERROR' "$T/errors" | sort | uniq -c | head -5
	fi
done

# Unrelated rows at SERIALIZABLE (256 bits, k=32), each client retrying its
# transaction on 40001, as an application does.  Every row must be kept,
# and no error other than 40001 may reach a client (1.8 let some through
# as XX000, and such retry code lost 69 of 160 rows).
: > "$T/errors"
start=$(date +%s)
for ((r = 1; r <= ROWS; r++)); do
	for ((j = 0; j < CLIENTS; j++)); do
		id=$((1000000000000000 + r * 100 + j))
		fp=$(printf 'unrelated %s' "$id" | sha256sum | cut -c1-64)
		(
			for ((try = 1; try <= 50; try++)); do
				if "${PSQL[@]}" -c "BEGIN ISOLATION LEVEL SERIALIZABLE" \
					-c "INSERT INTO ${tab}_guarded (id, fp) VALUES ($id, '$fp')" \
					-c "SELECT pg_sleep(0.02)" -c "COMMIT" > /dev/null 2> "$T/err.$id"; then
					break
				fi
				cat "$T/err.$id" >> "$T/errors"
				grep -q '^ERROR:  40001: ' "$T/err.$id" || break
			done
			rm -f "$T/err.$id"
		) &
	done
	wait
done
kept=$("${PSQL[@]}" -tA -c "SELECT count(*) FROM $tab WHERE id BETWEEN 1000000000000000 AND 1999999999999999")
serial=$(grep -c '^ERROR:  40001: ' "$T/errors")
other=$(grep '^ERROR' "$T/errors" | grep -v -e '^ERROR:  40001: ' | sort | uniq -c | head -5)
msg="races 256 bits, k=32, unrelated rows, SERIALIZABLE with retries: $((ROWS * CLIENTS)) rows, $kept kept, $serial serialization failures retried, $(( $(date +%s) - start )) s"
if [ "$kept" = "$((ROWS * CLIENTS))" ] && [ -z "$other" ]; then
	ok "$msg"
else
	bad "$msg"; [ -n "$other" ] && echo "$other"
fi

# The guard with verification (1.10; 256 bits, k = 40, t = 0.65) at READ
# COMMITTED: a round's 8 fingerprints are within 2 bits of one another; the
# even clients' signatures are of one text (alike), the odd clients' of
# words of their own (unrelated to any other).  Each round must keep
# exactly one even row and every odd row, and no pair within k and at
# least t alike may remain: the check of the signatures, under the lock
# rows, races as the check of the fingerprints does.
tab=racev
if "${PSQL[@]}" -c "DROP VIEW IF EXISTS ${tab}_guarded; DROP TABLE IF EXISTS $tab, ${tab}_simhash_keys, ${tab}_simhash_shards;" \
	-c "CREATE TABLE $tab (id bigint PRIMARY KEY, fp simhash256, sig minhash)" \
	-c "SELECT create_distributed_table('$tab', 'id', shard_count => 32)" \
	-c "SELECT simhash_distributed_guard('$tab', 'id', 'fp', 40, 'reject', 'sig', 0.65)" > "$T/setup.log" 2>&1; then
	: > "$T/errors"
	start=$(date +%s)
	for ((r = 1; r <= VROUNDS; r++)); do
		base=$(printf 'verify %s' "$r" | sha256sum | cut -c1-64)
		for ((j = 0; j < CLIENTS; j++)); do
			fp=$(flip "$base" "$j")
			id=$((r * 100 + j))
			if [ $((j % 2)) -eq 0 ]; then
				text="round $r of the verified race: one text for the even clients"
			else
				text=$(printf 'own %s' "$id" | sha256sum | cut -c1-48 | sed 's/.\{8\}/& /g')
			fi
			client "READ COMMITTED" "INSERT INTO ${tab}_guarded (id, fp, sig) VALUES ($id, '$fp', to_minhash('$text'))"
		done
		wait
	done
	# the rows kept: of the even clients (alike), of the odd (unrelated)
	IFS='|' read -r even odd < <("${PSQL[@]}" -tA -c "SELECT count(*) FILTER (WHERE id % 2 = 0), count(*) FILTER (WHERE id % 2 = 1) FROM $tab")
	pairs=$("${PSQL[@]}" -tA -c "SELECT count(*) FROM simhash_pairs('SELECT id, fp, sig FROM $tab', 40, 0.65)")
	rejected=$(grep -c '^ERROR:  23P01: ' "$T/errors")
	other=$(grep '^ERROR' "$T/errors" | grep -v -e '^ERROR:  23P01: ' | sort | uniq -c | head -5)
	msg="races 256 bits, k=40, verified at t=0.65, READ COMMITTED: $VROUNDS rounds of $CLIENTS clients, $even alike rows kept, $odd unrelated rows kept, $pairs verified pairs within k, $rejected rejected (23P01), $(( $(date +%s) - start )) s"
	if [ "$even" = "$VROUNDS" ] && [ "$odd" = "$((VROUNDS * CLIENTS / 2))" ] && [ "$pairs" = 0 ] && [ -z "$other" ]; then
		ok "$msg"
	else
		bad "$msg"; [ -n "$other" ] && echo "$other"
	fi
else
	cat "$T/setup.log"; bad "races verified: setup"
fi
# The guard with the 'link' action (1.14; 256 bits, k = 32): the rounds of
# the first race, every row kept at READ COMMITTED (and, in the full set,
# at REPEATABLE READ, where a client may fail with 40001 only).  Of each
# round's rows exactly one has no link, and every other links to a row of
# its round at the distance between them: two near-duplicates written at
# once never both miss each other.  Each client holds its transaction
# 100 ms, so that a round's writes overlap (built without the lock rows'
# FOR UPDATE, 2 of the 4 short rounds had several rows without a link;
# with the 20 ms of the other races, none).
tab=racel
levels=("READ COMMITTED")
[ "$short" -eq 0 ] && levels+=("REPEATABLE READ")
if "${PSQL[@]}" -c "DROP VIEW IF EXISTS ${tab}_guarded; DROP TABLE IF EXISTS $tab, ${tab}_simhash_keys, ${tab}_simhash_shards;" \
	-c "CREATE TABLE $tab (id bigint PRIMARY KEY, fp simhash256, dup_of bigint, dup_distance smallint)" \
	-c "SELECT create_distributed_table('$tab', 'id', shard_count => 32)" \
	-c "SELECT simhash_distributed_guard('$tab', 'id', 'fp', 32, 'link', NULL, NULL, 'dup_of', 'dup_distance')" > "$T/setup.log" 2>&1; then
	for level in "${levels[@]}"; do
		lv=${level// /_}
		: > "$T/errors"
		start=$(date +%s)
		for ((r = 1; r <= LROUNDS; r++)); do
			base=$(printf 'link %s %s' "$lv" "$r" | sha256sum | cut -c1-64)
			for ((j = 0; j < CLIENTS; j++)); do
				client "$level" "INSERT INTO ${tab}_guarded (id, fp) VALUES ($((${#lv} * 100000 + r * 100 + j)), '$(flip "$base" "$j")')" 0.1
			done
			wait
		done
		# the round of a row: its id / 100; gathered on the coordinator
		IFS='|' read -r rows rounds unlinked badlinks < <("${PSQL[@]}" -tA -c "WITH r AS MATERIALIZED
			(SELECT id / 100 AS round, id, fp, dup_of, dup_distance FROM $tab WHERE id / 100000 = ${#lv})
			SELECT (SELECT count(*) FROM r), (SELECT count(DISTINCT round) FROM r),
				(SELECT count(*) FROM (SELECT round FROM r GROUP BY round
					HAVING count(*) FILTER (WHERE dup_of IS NULL) <> 1) x),
				(SELECT count(*) FROM r a LEFT JOIN r b ON b.id = a.dup_of AND b.round = a.round
					AND b.fp <-> a.fp = a.dup_distance WHERE a.dup_of IS NOT NULL AND b.id IS NULL)")
		serial=$(grep -c '^ERROR:  40001: ' "$T/errors")
		other=$(grep '^ERROR' "$T/errors" | grep -v -e '^ERROR:  40001: ' | sort | uniq -c | head -5)
		msg="races 256 bits, k=32, link, $level: $LROUNDS rounds of $CLIENTS clients, $rows rows kept, $unlinked rounds without exactly one unlinked row, $badlinks links outside their round or at another distance, $serial serialization failures, $(( $(date +%s) - start )) s"
		if [ "$rounds" = "$LROUNDS" ] && [ "$unlinked" = 0 ] && [ "$badlinks" = 0 ] && [ -z "$other" ] \
			&& { [ "$level" != "READ COMMITTED" ] || [ "$rows" = "$((LROUNDS * CLIENTS))" ]; }; then
			ok "$msg"
		else
			bad "$msg"; [ -n "$other" ] && echo "$other"
		fi
	done
else
	cat "$T/setup.log"; bad "races link: setup"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
