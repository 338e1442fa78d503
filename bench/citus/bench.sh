#!/bin/bash
# The measurements of bench/citus/run, against the cluster in PG*; the
# nodes' data directories in SIMHASH_CITUS_DATADIRS (coordinator first).
set -uo pipefail
N=${SIMHASH_BENCH_ROWS:-1000000}
PSQL=(psql -X -q -v ON_ERROR_STOP=1)
read -r -a DIRS <<< "$SIMHASH_CITUS_DATADIRS"
names=(coordinator worker1 worker2)

# the largest RssAnon (kB) of any backend of each node, sampled every 0.2 s
# into $1 while the sampler runs
sample_memory() {
	local out=$1
	: > "$out"
	while :; do
		for i in 0 1 2; do
			pm=$(head -1 "${DIRS[$i]}/postmaster.pid")
			for c in $(cat /proc/"$pm"/task/*/children 2>/dev/null); do
				awk -v n="$i" '/^RssAnon/ { print n, $2 }' /proc/"$c"/status 2>/dev/null
			done
		done >> "$out"
		sleep 0.2
	done
}
peaks() {	# file -> "coordinator A MB, worker1 B MB, worker2 C MB"
	awk '{ if ($2 > m[$1]) m[$1] = $2 } END { printf "coordinator %.0f MB, worker1 %.0f MB, worker2 %.0f MB", m[0]/1024, m[1]/1024, m[2]/1024 }' "$1"
}
ms() { date +%s%3N; }

echo "== $N rows: uniform random fingerprints, 10% planted near-duplicates"
"${PSQL[@]}" <<SQL
SET client_min_messages = warning;
DROP TABLE IF EXISTS bdocs, bdocs_local;
CREATE TABLE bdocs_local (id bigint PRIMARY KEY, fp simhash, fp256 simhash256);
-- the 256 bits of seed s (two md5s) with the bits at positions flip set
-- to their opposite
CREATE FUNCTION pg_temp.bits(s bigint, flip int[]) RETURNS bit(256) LANGUAGE sql AS \$\$
	SELECT ('x' || md5(s::text) || md5((-s)::text))::bit(256)
	       # coalesce((SELECT bit_or(B'1'::bit(256) >> p) FROM unnest(flip) p), B'0'::bit(256))
\$\$;
-- 90% seeded by their id; the rest near one of 5000 of those: i % 7 bits
-- flipped in word 0 and i % 31 in the others
INSERT INTO bdocs_local
SELECT id, simhash(substring(b FROM 1 FOR 64)), simhash256(b)
FROM (
	SELECT i AS id, pg_temp.bits(i, '{}') AS b FROM generate_series(1, $N * 9 / 10) i
	UNION ALL
	SELECT i, pg_temp.bits(i % 5000 + 1,
	                       ARRAY(SELECT (i * 13 + n * 29) % 64 FROM generate_series(1, i % 7) n) ||
	                       ARRAY(SELECT 64 + (i * 7 + n * 53) % 192 FROM generate_series(1, i % 31) n))
	FROM generate_series($N * 9 / 10 + 1, $N) i
) x;
CREATE TABLE bdocs (LIKE bdocs_local INCLUDING ALL);
SELECT create_distributed_table('bdocs', 'id', shard_count => 32);
INSERT INTO bdocs SELECT * FROM bdocs_local;
ANALYZE bdocs, bdocs_local;
SQL

printf '%-8s %4s %12s %10s %10s %10s %8s %10s  %s\n' width k "rows moved" "MB moved" "dist s" "local s" ratio pairs "equal; peak private memory"
for spec in "64 fp 3" "64 fp 8" "256 fp256 32"; do
	read -r width col k <<< "$spec"
	# the spread alone: its rows and size
	moved=$("${PSQL[@]}" -At <<SQL
SET client_min_messages = warning;
SELECT simhash_spread_blocks('bdocs', 'id', '$col', $k) AS t \gset
SELECT (SELECT count(*) FROM :t) || ' ' || round(citus_total_relation_size(:'t') / 1048576.0);
DROP TABLE :t;
SQL
)
	sample_memory /tmp/bench_citus_mem.$$ & sampler=$!
	t0=$(ms)
	"${PSQL[@]}" -c "CREATE TABLE bpairs_d AS SELECT * FROM simhash_distributed_pairs('bdocs', 'id', '$col', $k)" 2>&1 | grep -v '^$' || true
	t1=$(ms)
	kill "$sampler"; wait "$sampler" 2>/dev/null
	mem=$(peaks /tmp/bench_citus_mem.$$)
	t2=$(ms)
	"${PSQL[@]}" -c "SET maintenance_work_mem = '2GB'" -c "CREATE TABLE bpairs_l AS SELECT * FROM simhash_pairs('SELECT id, $col FROM bdocs_local', $k)"
	t3=$(ms)
	res=$("${PSQL[@]}" -At -c "SELECT (SELECT count(*) FROM bpairs_l) || ' ' ||
		((SELECT count(*) FROM (SELECT * FROM bpairs_d EXCEPT ALL SELECT * FROM bpairs_l) x) = 0
		 AND (SELECT count(*) FROM (SELECT * FROM bpairs_l EXCEPT ALL SELECT * FROM bpairs_d) x) = 0)")
	"${PSQL[@]}" -c "DROP TABLE bpairs_d, bpairs_l"
	read -r mrows mmb <<< "$moved"; read -r npairs equal <<< "$res"
	printf '%-8s %4s %12s %10s %10.1f %10.1f %8.1f %10s  %s; %s\n' "$width" "$k" "$mrows" "$mmb" \
		"$(echo "($t1 - $t0) / 1000" | bc -l)" "$(echo "($t3 - $t2) / 1000" | bc -l)" \
		"$(echo "($t1 - $t0) / ($t3 - $t2)" | bc -l)" "$npairs" "$equal" "$mem"
done
rm -f /tmp/bench_citus_mem.$$

echo "== the guard: single-row inserts through bdocs_guarded against plain inserts into a copy of bdocs (pgbench, 1 client, 2000 each, alternating)"
"${PSQL[@]}" <<SQL
SET client_min_messages = warning;
CREATE TABLE bplain (LIKE bdocs_local INCLUDING ALL);
SELECT create_distributed_table('bplain', 'id', shard_count => 32);
INSERT INTO bplain SELECT * FROM bdocs_local;
SELECT simhash_distributed_guard('bdocs', 'id', 'fp', 3);
SQL
cat > /tmp/bench_guard.$$.sql <<'SQL'
\set id random(100000000, 900000000)
INSERT INTO bdocs_guarded (id, fp) VALUES (:id, simhash(('x' || md5(:id::text))::bit(64)));
SQL
cat > /tmp/bench_plain.$$.sql <<'SQL'
\set id random(100000000, 900000000)
INSERT INTO bplain (id, fp) VALUES (:id, simhash(('x' || md5(:id::text))::bit(64)));
SQL
for round in 1 2 3; do
	for kind in plain guard; do
		lat=$(pgbench -n -c 1 -t 2000 -f /tmp/bench_$kind.$$.sql 2>&1 | awk '/latency average/ { print $4 }')
		echo "$round $kind $lat"
	done
done | tee /tmp/bench_guard_lat.$$
awk '{ l[$2] = l[$2] " " $3 } END { print "latency ms per insert, 3 rounds: plain" l["plain"] "; guard" l["guard"] }' /tmp/bench_guard_lat.$$
rm -f /tmp/bench_guard.$$.sql /tmp/bench_plain.$$.sql /tmp/bench_guard_lat.$$
