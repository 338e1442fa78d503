#!/bin/bash
# Sourced by demo/run, test/run and bench/run: makes sure the Debian packages
# this project needs are present, and builds and installs the extension.
#
# Run as root, missing packages are installed with apt-get (no network is
# needed beyond the Debian mirror).  Run as another user, it prints the
# apt-get command to run and stops.

SIMHASH_PG_VERSION=${SIMHASH_PG_VERSION:-15}
SIMHASH_DEBS="postgresql-$SIMHASH_PG_VERSION postgresql-server-dev-$SIMHASH_PG_VERSION libxxhash-dev make gcc libc6-dev ${SIMHASH_EXTRA_DEBS:-}"

simhash_missing_debs() {
	local p missing=""
	for p in $SIMHASH_DEBS; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed" \
			|| missing="$missing $p"
	done
	echo "$missing"
}

simhash_ensure_deps() {
	local missing
	if ! command -v dpkg-query >/dev/null 2>&1; then
		echo "simhash: this script needs a Debian or Ubuntu system (dpkg/apt); install PostgreSQL $SIMHASH_PG_VERSION with its server headers and libxxhash by hand, then run 'make install'." >&2
		return 1
	fi
	missing=$(simhash_missing_debs)
	if [ -n "$missing" ]; then
		if [ "$(id -u)" -ne 0 ]; then
			echo "simhash: missing Debian packages:$missing" >&2
			echo "simhash: install them with:  sudo apt-get install -y$missing" >&2
			return 1
		fi
		echo "simhash: installing missing Debian packages:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q --no-install-recommends $missing >/dev/null 2>&1 \
			|| { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends $missing >/dev/null; } \
			|| { echo "simhash: apt-get install$missing failed" >&2; return 1; }
	fi
	export PG_CONFIG=/usr/lib/postgresql/$SIMHASH_PG_VERSION/bin/pg_config
	return 0
}

# Build and install the extension into the server of $PG_CONFIG.
simhash_build_install() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	make -s -C "$root" PG_CONFIG="$PG_CONFIG" >/dev/null || return 1
	if [ "$(id -u)" -eq 0 ]; then
		make -s -C "$root" PG_CONFIG="$PG_CONFIG" install >/dev/null || return 1
	else
		sudo make -s -C "$root" PG_CONFIG="$PG_CONFIG" install >/dev/null || return 1
	fi
}
