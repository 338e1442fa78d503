#!/bin/bash
# The measurements of bench/citus/guard, against the cluster in PG*.
set -uo pipefail
N=${SIMHASH_BENCH_ROWS:-1000000}
SMALL=${SIMHASH_BENCH_SMALL:-10000}
T=${SIMHASH_BENCH_INSERTS:-300}		# inserts per latency measurement
# the index on fp: "gin (fp simhash256_gin_word_ops)" or "mih (fp)"
INDEX=${SIMHASH_BENCH_INDEX:-gin (fp simhash256_gin_word_ops)}
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
W=$(mktemp -d /tmp/simhash-guard-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"

# rows lo..hi of random 256-bit fingerprints (two md5s of the id)
fill() {
	"${PSQL[@]}" -c "INSERT INTO $1 SELECT i, simhash256(decode(md5(i::text) || md5((-i)::text), 'hex'))
		FROM generate_series($2, $3) i"
}
# median ms of the pgbench log of a run (one line per transaction: the
# latency in microseconds is field 3)
median() { cat pgbench_log.* | awk '{ print $3 / 1000 }' | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", a[int((NR + 1) / 2)] }'; rm -f pgbench_log.*; }

cat > guard.sql <<'SQL'
\set id random(1000000000, 9000000000)
INSERT INTO gdocs_guarded (id, fp) VALUES (:id, simhash256(decode(md5(:id::text) || md5((-:id)::text), 'hex')));
SQL
cat > plain.sql <<'SQL'
\set id random(1000000000, 9000000000)
INSERT INTO gplain (id, fp) VALUES (:id, simhash256(decode(md5(:id::text) || md5((-:id)::text), 'hex')));
SELECT count(*) FROM gplain WHERE fp <-> simhash256(decode(md5(:id::text) || md5((-:id)::text), 'hex')) <= 32;
SQL

echo "== gdocs (guarded) and gplain: (id bigint, fp simhash256), 32 shards each, USING $INDEX"
"${PSQL[@]}" <<SQL
SET client_min_messages = warning;
CREATE TABLE gdocs (id bigint PRIMARY KEY, fp simhash256);
CREATE TABLE gplain (id bigint PRIMARY KEY, fp simhash256);
SELECT create_distributed_table('gdocs', 'id', shard_count => 32);
SELECT create_distributed_table('gplain', 'id', shard_count => 32);
CREATE INDEX ON gdocs USING $INDEX;
CREATE INDEX ON gplain USING $INDEX;
SQL
# a mih index checks the rows inserted since its build one by one: sort
# them in, as doc/indexes.md says to
reindex() { case $INDEX in mih*) "${PSQL[@]}" -c "REINDEX TABLE gdocs" -c "REINDEX TABLE gplain" ;; esac; }
fill gdocs 1 "$SMALL"; fill gplain 1 "$SMALL"
reindex
"${PSQL[@]}" -c "SELECT simhash_distributed_guard('gdocs', 'id', 'fp', 32)" > /dev/null

measure() {	# label: three rounds each, alternating; prints the medians
	local r g p gs=() ps=()
	for r in 1 2 3; do
		pgbench -n -c 1 -t "$T" -f guard.sql -l > /dev/null 2>&1; g=$(median); gs+=("$g")
		pgbench -n -c 1 -t "$T" -f plain.sql -l > /dev/null 2>&1; p=$(median); ps+=("$p")
	done
	g=$(printf '%s\n' "${gs[@]}" | sort -n | sed -n 2p)
	p=$(printf '%s\n' "${ps[@]}" | sort -n | sed -n 2p)
	echo "$1: insert through the guard median ${g} ms (rounds ${gs[*]}); plain insert + radius query median ${p} ms (rounds ${ps[*]}); ratio $(awk -v a="$g" -v b="$p" 'BEGIN { printf "%.2f", a / b }')"
	echo "$g" > "guard_$1"
}
measure "$SMALL rows"
echo "== growing both tables to $N rows"
fill gdocs $((SMALL + 1)) "$N"; fill gplain $((SMALL + 1)) "$N"
reindex
"${PSQL[@]}" -c "VACUUM ANALYZE gdocs" -c "VACUUM ANALYZE gplain"
measure "$N rows"
echo "insert latency at $N rows / at $SMALL rows: $(awk -v a="$(cat "guard_$N rows")" -v b="$(cat "guard_$SMALL rows")" 'BEGIN { printf "%.2f", a / b }')"

"${PSQL[@]}" -tA <<'SQL'
SELECT format('sizes: table heap %s; lock rows %s (with index), shard map %s (with index): guard / heap = %s',
	pg_size_pretty(h), pg_size_pretty(k), pg_size_pretty(s), round((k + s)::numeric / h, 4))
FROM (SELECT citus_relation_size('gdocs') AS h, citus_total_relation_size('gdocs_simhash_keys') AS k,
	citus_total_relation_size('gdocs_simhash_shards') AS s) x;
SQL

echo "== 8 clients, unrelated rows, no retries (pgbench -c 8, 50 transactions each)"
for level in "READ COMMITTED" "REPEATABLE READ"; do
	cat > conc.sql <<SQL
\set id random(10000000000, 90000000000)
BEGIN ISOLATION LEVEL $level;
INSERT INTO gdocs_guarded (id, fp) VALUES (:id, simhash256(decode(md5(:id::text) || md5((-:id)::text), 'hex')));
COMMIT;
SQL
	out=$(pgbench -n -c 8 -j 2 -t 50 -f conc.sql 2>&1)
	done_tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<< "$out")
	failed=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<< "$out")
	aborted=$(grep -c 'aborted' <<< "$out" || true)
	echo "$level: 400 transactions, ${done_tx:-?} committed, ${failed:-0} failed (serialization or deadlock), $aborted clients aborted by another error"
done
"${PSQL[@]}" -tA -c "SELECT 'pairs within 32 among the rows inserted through the guard: ' || count(*) FROM simhash_pairs('SELECT id, fp FROM gdocs WHERE id >= 1000000000', 32)"
