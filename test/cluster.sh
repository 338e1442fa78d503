#!/bin/bash
# Runs inside pg_virtualenv (PGHOST, PGPORT, PGUSER, PGDATABASE are set):
# the suites that need a server.  Each writes $SIMHASH_TEST_LOGDIR/NAME.suite
# ending with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
LOGDIR=$SIMHASH_TEST_LOGDIR

echo "== pg_regress"
# each test's line as it finishes, numbered: the suite takes minutes on a
# busy machine
t=$SECONDS
ntotal=$(sed -n 's/^REGRESS *= *//p' Makefile | wc -w)
# (a shell loop, not awk: mawk reads its input in blocks)
make -s installcheck PG_CONFIG="$PG_CONFIG" 2>&1 | tee "$LOGDIR/regress.log" |
	while IFS= read -r line; do
		if [[ $line =~ ^(test|\ {5})\ *[a-z_]+\ +\.\.\.\ |^(not\ )?ok\  ]]; then
			i=$((${i:-0} + 1)); line="[$i/$ntotal] $line"
		fi
		printf '%s\n' "$line"
	done
echo $((SECONDS - t)) > "$LOGDIR/regress.secs"
ntests=$(grep -cE '^(test|     ) *[a-z_]+ +\.\.\. ' "$LOGDIR/regress.log" || true)
[ "$ntests" -gt 0 ] || ntests=$(grep -cE '^ok |^not ok ' "$LOGDIR/regress.log" || true)
nfail=$(grep -cE '\.\.\. FAILED|^not ok ' "$LOGDIR/regress.log" || true)
if [ "$ntests" -eq 0 ]; then nfail=1; fi
echo "$((ntests - nfail)) passed, $nfail failed" > "$LOGDIR/regress.suite"

# SIMHASH_CLUSTER_SUITES: which suites after pg_regress (default: all)
suites=${SIMHASH_CLUSTER_SUITES:-test/crosscheck/run test/encoding/run test/protocol/run test/bigindex/run
	test/verify/run test/dump/run test/upgrade/run test/docs/run test/demo/run
	test/clients/python/run test/clients/node/run test/clients/java/run}
for suite in $suites; do
	name=$(basename "$(dirname "$suite")")
	case $suite in test/clients/*) name=client-$name ;; esac
	echo "== $suite"
	if [ -x "$suite" ] || [ -f "$suite" ]; then
		t=$SECONDS
		bash "$suite" 2>&1 | tee "$LOGDIR/$name.suite"
		echo $((SECONDS - t)) > "$LOGDIR/$name.secs"
	fi
done
exit 0
