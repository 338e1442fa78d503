#!/bin/bash
# The measurements of bench/citus/run, against the cluster in PG*; the
# nodes' data directories in SIMHASH_CITUS_DATADIRS (coordinator first).
set -uo pipefail
N=${SIMHASH_BENCH_ROWS:-1000000}
ROUNDS=${SIMHASH_BENCH_ROUNDS:-3}
# width:column:k of the pairs measured
SPECS=${SIMHASH_BENCH_SPECS:-64:fp:3 64:fp:8 128:fp128:16 256:fp256:32}
GUARD=${SIMHASH_BENCH_GUARD:-1}
# the distributed paths at 128 and 256 bits (64 bits: blocks only)
PATHS=${SIMHASH_BENCH_PATHS:-nodes words blocks}
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
CREATE TABLE bdocs_local (id bigint PRIMARY KEY, fp simhash, fp128 simhash128, fp256 simhash256);
-- the 256 bits of seed s (two md5s) with the bits at positions flip set
-- to their opposite
CREATE FUNCTION pg_temp.bits(s bigint, flip int[]) RETURNS bit(256) LANGUAGE sql AS \$\$
	SELECT ('x' || md5(s::text) || md5((-s)::text))::bit(256)
	       # coalesce((SELECT bit_or(B'1'::bit(256) >> p) FROM unnest(flip) p), B'0'::bit(256))
\$\$;
-- 90% seeded by their id; the rest near one of 5000 of those: i % 7 bits
-- flipped in word 0 and i % 31 in the others
INSERT INTO bdocs_local
SELECT id, simhash(substring(b FROM 1 FOR 64)), simhash128(substring(b FROM 1 FOR 128)), simhash256(b)
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

# the same maintenance_work_mem on every node (the tasks run in the
# workers' own sessions), enough that no 1M-row search spills
for n in $("${PSQL[@]}" -At -c "SELECT nodeport FROM pg_dist_node ORDER BY nodeport"); do
	"${PSQL[@]}" -p "$n" -c "ALTER SYSTEM SET maintenance_work_mem = '1GB'" -c "SELECT pg_reload_conf()" >/dev/null
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
sec() { echo "scale=2; $1 / 1000" | bc -l; }

# the old path at every width: rows spread by block key, simhash_block_pairs
# on each key's group (what simhash_distributed_pairs did before 1.12)
blocks_sql() {	# col k
	cat <<SQL
SET client_min_messages = warning;
SELECT simhash_spread_blocks('bdocs', 'id', '$1', $2) AS t \gset
CREATE TABLE bpairs_d AS SELECT p.* FROM (SELECT key, array_agg(id) AS ids, array_agg(fp) AS fps FROM :t GROUP BY key) g
	CROSS JOIN LATERAL simhash_block_pairs(g.key, g.ids, g.fps, $2) p;
DROP TABLE :t;
SQL
}
# since 1.13 the call as its transaction's first statement runs the node
# tasks, after another statement 1.12's word tasks
nodes_sql() {	# col k
	echo "SET client_min_messages = warning;"
	echo "CREATE TABLE bpairs_d AS SELECT * FROM simhash_distributed_pairs('bdocs', 'id', '$1', $2);"
}
words_sql() {	# col k
	echo "SET client_min_messages = warning;"
	echo "BEGIN; SELECT 1 AS first_statement \\g /dev/null"
	echo "CREATE TABLE bpairs_d AS SELECT * FROM simhash_distributed_pairs('bdocs', 'id', '$1', $2);"
	echo "COMMIT;"
}
local_sql() {	# col k
	echo "CREATE TABLE bpairs_l AS SELECT * FROM simhash_pairs('SELECT id, $1 FROM bdocs_local', $2);"
}

echo "== pairs: median of $ROUNDS rounds each; moved = rows of the spread table (codes: id, fp and the key or task), MB = its size on disk (citus_total_relation_size); peak = largest private memory (RssAnon) of a backend on each node, in one more round, untimed"
printf '%-5s %3s %-7s %10s %8s %8s %9s %8s %9s  %s\n' width k path "rows moved" copies "MB moved" "median s" "x local" pairs "equal; peak"
for spec in $SPECS; do
	IFS=: read -r width col k <<< "$spec"
	nrows=$("${PSQL[@]}" -At -c "SELECT count($col) FROM bdocs_local")
	tl=()
	for r in $(seq "$ROUNDS"); do
		t0=$(ms); "${PSQL[@]}" <<< "$(local_sql "$col" "$k")"; t1=$(ms)
		tl+=($((t1 - t0)))
		[ "$r" -lt "$ROUNDS" ] && "${PSQL[@]}" -c "DROP TABLE bpairs_l"
	done
	lmed=$(echo "${tl[*]}" | median)
	npairs=$("${PSQL[@]}" -At -c "SELECT count(*) FROM bpairs_l")
	printf '%-5s %3s %-7s %10s %8s %8s %9s %8s %9s  %s\n' "$width" "$k" local - - - "$(sec "$lmed")" 1.00 "$npairs" "rounds ms: ${tl[*]}"
	paths="blocks"; [ "$width" -gt 64 ] && paths=$PATHS
	for path in $paths; do
		# the spread alone: its rows and size
		spread="SELECT simhash_spread_$path('bdocs', 'id', '$col', $k) AS t"
		[ "$path" = nodes ] && spread="SELECT min(work::text) AS t FROM simhash_spread_nodes('bdocs', 'id', '$col', $k)"
		moved=$("${PSQL[@]}" -At <<SQL
SET client_min_messages = warning;
$spread \gset
SELECT (SELECT count(fp) FROM :t) || ' ' || round(citus_total_relation_size(:'t') / 1048576.0);
DROP TABLE :t;
SQL
)
		read -r mrows mmb <<< "$moved"
		td=()
		for r in $(seq "$ROUNDS"); do
			t0=$(ms); "${PSQL[@]}" <<< "$(${path}_sql "$col" "$k")" 2>&1 | grep -v '^$'; t1=$(ms)
			td+=($((t1 - t0)))
			"${PSQL[@]}" -c "DROP TABLE bpairs_d"
		done
		# the memory in one more round, untimed: the sampler forks a
		# process per backend five times a second, which on two cores
		# would slow the timed rounds and not the local ones
		sample_memory /tmp/bench_citus_mem.$$ & sampler=$!
		"${PSQL[@]}" <<< "$(${path}_sql "$col" "$k")" 2>&1 | grep -v '^$'
		kill "$sampler"; wait "$sampler" 2>/dev/null
		mem=$(peaks /tmp/bench_citus_mem.$$)
		dmed=$(echo "${td[*]}" | median)
		equal=$("${PSQL[@]}" -At -c "SELECT (SELECT count(*) FROM (SELECT * FROM bpairs_d EXCEPT ALL SELECT * FROM bpairs_l) x) = 0
			AND (SELECT count(*) FROM (SELECT * FROM bpairs_l EXCEPT ALL SELECT * FROM bpairs_d) x) = 0")
		"${PSQL[@]}" -c "DROP TABLE bpairs_d"
		printf '%-5s %3s %-7s %10s %8.2f %8s %9s %8.2f %9s  %s\n' "$width" "$k" "$path" "$mrows" \
			"$(echo "$mrows / $nrows" | bc -l)" "$mmb" "$(sec "$dmed")" "$(echo "$dmed / $lmed" | bc -l)" "$npairs" \
			"$equal; $mem; rounds ms: ${td[*]}"
	done
	"${PSQL[@]}" -c "DROP TABLE bpairs_l"

	[ "$width" -gt 64 ] || continue
	# the word tasks one by one: where each lies, its rows, and its pass
	# alone (all tasks at once, as the distributed call runs them), so that
	# the time on more workers can be modelled: ship + ceil(tasks / workers)
	# x pass
	echo "-- word tasks at $width bits, k = $k: node, rows, pass time of each (run together, as in the call)"
	"${PSQL[@]}" -At -F ' ' <<SQL | tee /tmp/bench_citus_tasks.$$
SET client_min_messages = warning;
\timing on
SELECT simhash_spread_words('bdocs', 'id', '$col', $k) AS t \gset
\timing off
SELECT 'task', s.nodeport, r.result FROM citus_shards s
JOIN run_command_on_shards(:'t', \$cmd\$SELECT format('%%s rows, word %%s, %%s pairs in %%s ms', (SELECT count(*) FROM %1\$s),
	w, n, round(extract(epoch FROM clock_timestamp() - s0) * 1000))
	FROM (SELECT clock_timestamp() AS s0, (SELECT task %% ($width / 64) FROM %1\$s LIMIT 1) AS w OFFSET 0) a,
	LATERAL (SELECT count(*) AS n FROM simhash_word_pairs('SELECT id, fp FROM %1\$s', $k, a.w) WHERE a.s0 IS NOT NULL) b\$cmd\$) r
	ON r.shardid = s.shardid ORDER BY s.nodeport, s.shardid;
DROP TABLE :t;
SQL
	# the node tasks: the spread alone, then each task's passes on its node,
	# all at once as the call runs them
	echo "-- node tasks at $width bits, k = $k: the spread, then node, rows read, words, pairs and time of each task"
	"${PSQL[@]}" -At -F '|' > /tmp/bench_citus_nodes.$$ <<SQL
SET client_min_messages = warning;
\\timing on
CREATE TEMP TABLE sn AS SELECT * FROM simhash_spread_nodes('bdocs', 'id', '$col', $k);
\\timing off
SELECT s.nodeport, n.words, n.query FROM sn n JOIN citus_shards s ON s.table_name = n.work
	AND s.shardid = get_shard_id_for_distribution_column(n.work, n.task) ORDER BY s.nodeport;
SQL
	grep '^Time' /tmp/bench_citus_nodes.$$ | sed 's/^/spread: /'
	work=$("${PSQL[@]}" -At -c "SELECT relname FROM pg_class WHERE relname LIKE 'simhash_nodes_%' LIMIT 1")
	grep -v '^Time' /tmp/bench_citus_nodes.$$ | while IFS='|' read -r port words query; do
		"${PSQL[@]}" -At -p "$port" <<SQL &
SELECT format('task on %s: %s rows, words %s, %s pairs in %s ms', $port, (SELECT count(*) FROM ($query) x),
	'$words', n, round(extract(epoch FROM clock_timestamp() - s0) * 1000))
FROM (SELECT clock_timestamp() AS s0 OFFSET 0) a,
	LATERAL (SELECT count(*) AS n FROM simhash_word_passes(\$q\$$query\$q\$, $k, '$words') WHERE a.s0 IS NOT NULL) b;
SQL
	done
	wait
	"${PSQL[@]}" -c "DROP TABLE $work"
done
rm -f /tmp/bench_citus_mem.$$ /tmp/bench_citus_tasks.$$ /tmp/bench_citus_nodes.$$

[ "$GUARD" = 1 ] || exit 0
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
