#!/bin/bash
# Run by test/package/run inside a fresh pg_virtualenv cluster, after the
# Debian package is installed: the packaged extension must create, upgrade,
# install as a non-superuser (trusted), reproduce the pinned fingerprint
# vectors of expected/fingerprint.out, and its indexes must answer as a
# sequential scan does.  Prints ok/FAIL lines only; the caller counts them.
#
#   bash incluster.sh SOURCE_DIR PG_MAJOR
set -uo pipefail
SRC=$1
PGV=$2
export PGCLIENTENCODING=UTF8
check() {	# name, expected, got
	if [ "$2" == "$3" ]; then echo "ok   $1"; else echo "FAIL $1: expected [$2] got [$3]"; fi
}
q() { psql -X -q -At -v ON_ERROR_STOP=1 "$@" 2>&1; }
DB=pkgtest
q -d postgres -c "DROP DATABASE IF EXISTS $DB" \
	-c "CREATE DATABASE $DB TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" >/dev/null

dv=$(sed -nE "s/^default_version *= *'([^']+)'.*/\1/p" "$SRC/simhash.control")
check "packaged simhash.control offers version $dv" "$dv" \
	"$(q -d $DB -c "SELECT default_version FROM pg_available_extensions WHERE name = 'simhash'")"
check "CREATE EXTENSION simhash" "$dv" \
	"$(q -d $DB -c "CREATE EXTENSION simhash" -c "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")"
# the backend maps the installed file (same inode), not some other simhash.so
lib=/usr/lib/postgresql/$PGV/lib/simhash.so
mapped=$(psql -X -q -At -d $DB <<'SQL' 2>&1
SELECT to_simhash('load the library') IS NOT NULL AS loaded, pg_backend_pid() AS pid \gset
\setenv BACKEND_PID :pid
\! awk '$6 ~ /simhash[.]so$/ { print $5, $6 }' /proc/$BACKEND_PID/maps | sort -u
SQL
)
check "the backend loaded the installed $lib" "$(stat -c %i "$lib") $lib" "$mapped"

# the packaged update scripts: every earlier version has an update path to
# default_version (only the current version ships a full install script;
# test/upgrade installs the released ones and updates them)
for v in $(cd "$SRC/sql" && ls simhash--*--*.sql* 2>/dev/null | sed 's/^simhash--//; s/--.*//' | sort -u); do
	check "the package updates $v to $dv" "t" \
		"$(q -d postgres -c "SELECT path IS NOT NULL FROM pg_extension_update_paths('simhash') WHERE source = '$v' AND target = '$dv'")"
done

# trusted: a role that may only CREATE in the database installs it
q -d postgres -c "DROP DATABASE IF EXISTS pkgtrust" -c "DROP ROLE IF EXISTS pkg_owner" \
	-c "CREATE ROLE pkg_owner LOGIN PASSWORD 'pkg'" -c "CREATE DATABASE pkgtrust OWNER pkg_owner" >/dev/null
check "non-superuser database owner can CREATE EXTENSION (trusted)" "f|$dv" \
	"$(PGUSER=pkg_owner PGPASSWORD=pkg q -d pkgtrust -c "CREATE EXTENSION simhash" \
		-c "SELECT rolsuper, extversion FROM pg_extension, pg_roles WHERE extname = 'simhash' AND rolname = current_user")"
q -d postgres -c "DROP DATABASE pkgtrust" -c "DROP ROLE pkg_owner" >/dev/null

# pinned test vectors: the sample table and query of expected/fingerprint.out,
# replayed against the packaged library, must print the same table
exp=$SRC/expected/fingerprint.out
sql=$(sed -n '/^CREATE TEMP TABLE samples/,/^FROM samples ORDER BY id;/p' "$exp")
want=$(sed -n '/^FROM samples ORDER BY id;/,/^([0-9]* rows)/p' "$exp" | sed 1d)
nvec=$(grep -cE '^ +[0-9]+ \| ' <<<"$want")
check "expected/fingerprint.out has its 12 sample rows" 12 "$nvec"
got=$(psql -X -q -d $DB -v ON_ERROR_STOP=1 <<<"$sql" 2>&1)
check "fingerprints of the packaged library equal expected/fingerprint.out ($((nvec * 7)) vectors)" "$want" "$got"

# indexes: radius queries through GIN and GiST, and GiST KNN order,
# against the same queries on a sequential scan
q -d $DB >/dev/null <<'SQL'
SET jit = off;
CREATE TABLE docs (id int PRIMARY KEY, body text, fp simhash);
INSERT INTO docs
SELECT i, b, to_simhash(b) FROM (
	-- every third body is an edited copy of the one before
	-- (32 three-letter words from md5s, so one edit moves few bits)
	SELECT i, 'note ' || j || ' '
		|| regexp_replace(md5(j::text) || md5((j * 7)::text) || md5((j * 13)::text), '(...)', '\1 ', 'g')
		|| CASE WHEN i % 3 = 2 THEN 'with a few more words' ELSE 'with a few words' END
	FROM generate_series(1, 6000) i, LATERAL (SELECT CASE WHEN i % 3 = 2 THEN i - 1 ELSE i END) l(j)) s(i, b);
CREATE INDEX docs_gin ON docs USING gin (fp);
CREATE INDEX docs_gist ON docs USING gist (fp);
ANALYZE docs;
SQL
probe="SELECT string_agg(d.id::text, ',' ORDER BY d.id) FROM docs d, (SELECT fp AS q FROM docs WHERE id IN (1, 2, 3, 299, 3001, 5998)) p WHERE d.fp <-> p.q <= 4"
seq=$(q -d $DB -c "SET enable_indexscan = off; SET enable_bitmapscan = off; $probe")
check "radius answer is not trivial (rows beyond the 6 probes: $(awk -F, '{ print NF }' <<<"$seq"))" t \
	"$(awk -F, '{ print (NF > 6) ? "t" : "f" }' <<<"$seq")"
for am in gin gist; do
	other=$([ $am = gin ] && echo gist || echo gin)
	got=$(q -d $DB -c "BEGIN" -c "DROP INDEX docs_$other" -c "SET LOCAL enable_seqscan = off" -c "$probe" -c "ROLLBACK")
	check "$am index radius answer equals the sequential scan" "$seq" "$got"
	plan=$(q -d $DB -c "BEGIN" -c "DROP INDEX docs_$other" -c "SET LOCAL enable_seqscan = off" -c "EXPLAIN (COSTS OFF) $probe" -c "ROLLBACK")
	check "$am index used for the radius query" 1 "$(grep -c "docs_$am" <<<"$plan")"
done
knn="SELECT string_agg(dist::text, ',') FROM (SELECT fp <-> '0123456789abcdef' AS dist FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 25) s"
check "GiST nearest-neighbour distances equal the sorted sequential scan" \
	"$(q -d $DB -c "SET enable_indexscan = off; SET enable_bitmapscan = off; $knn")" \
	"$(q -d $DB -c "SET enable_seqscan = off; $knn")"
check "GiST index used for ORDER BY <-> LIMIT" 1 \
	"$(q -d $DB -c "SET enable_seqscan = off; EXPLAIN (COSTS OFF) $knn" | grep -cE 'Index (Only )?Scan using docs_gist')"
npairs=$(q -d $DB -c "SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM docs', 3)")
check "simhash_pairs finds the same pairs as the self-join ($npairs pairs)" \
	"$(q -d $DB -c "SET enable_indexscan = off; SET enable_bitmapscan = off; SELECT count(*) FROM docs a JOIN docs b ON a.fp <-> b.fp <= 3 AND a.id < b.id")" \
	"$(q -d $DB -c "SELECT count(*) FROM simhash_pairs('SELECT id, fp FROM docs', 3)")"
q -d postgres -c "DROP DATABASE $DB" >/dev/null
