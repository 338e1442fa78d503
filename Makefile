# simhash: PostgreSQL extension, built with PGXS.
#
#   make                 build
#   make install         install into the server found by pg_config (root)
#   make installcheck    pg_regress suite against a running server
#   make prove_installcheck   TAP tests (test/t) with PostgreSQL::Test::Cluster;
#                        not as root (test/tap/run handles root)
#   make test            every suite; installs the build into the system
#                        PostgreSQL (bash test/run --changes says what it changes)
#   make demo            the main job: near-duplicates in a real corpus
#   make bench           fingerprint throughput benchmark
#   make dist            the PGXN distribution simhash-X.Y.0.zip of HEAD

EXTENSION = simhash
MODULE_big = simhash
# src/ by layer, lowest first (doc/architecture.md): a file includes and
# calls only its own layer and those below it (test/layers/run checks).
LAYERS = type text text/unicode index index/mih batch guard
OBJS = $(patsubst $(srcdir)/%.c,%.o,$(foreach d,$(LAYERS),$(sort $(wildcard $(srcdir)/src/$(d)/*.c))) \
	$(wildcard $(srcdir)/src/*.c))

# One source for each install script.  sql/simhash.sql is the current
# version, built into sql/simhash--$(EXTVERSION).sql; earlier versions ship
# only as update scripts, sql/simhash--A--B.sql, or sql/simhash--A--B.sql.in
# where they use a template.  tools/sql_expand.pl expands "--@functions
# SECTION" (the C functions, one row each in sql/functions.tsv),
# "--@comparisons TYPE" (the comparison operators) and their
# "--@comparison_comments", "--@descriptions FILE" (COMMENT ON from a table)
# and "--@include FILE" (sql/parts/: the objects a version added, shared by
# the install and the update script); "--@widths 128 256" ... "--@end"
# writes its block once per width ({type}, {bits}, ...), "--@if {version}
# = 1.9" keeps what an old version made beside what replaced it (the
# header of tools/sql_expand.pl lists them all).  The scripts it writes do
# not change when a template does: compare them before and after.
EXTVERSION = $(shell sed -n "s/^default_version = '\\(.*\\)'/\\1/p" $(srcdir)/simhash.control)
TEMPLATED = $(wildcard sql/simhash--*--*.sql.in)
DATA_built = sql/simhash--$(EXTVERSION).sql $(TEMPLATED:.sql.in=.sql)
DATA = $(filter-out $(DATA_built),$(wildcard sql/simhash--*--*.sql))
REGRESS = type distance fingerprint wide vectors tokenize errors badinput index gist wide_index nearest batch wide_batch cross_pairs batch_spill security guard trigger trigger_link features comments distributed messages minhash guard_verify guard_link guard_locks mih similar catalog
# the tests hold UTF-8 text (CJK, combining marks): never an SQL_ASCII database
REGRESS_OPTS = --encoding=UTF8

# Fingerprints are stored data: floating point must not be contracted
# (fused multiply-add) differently on different CPUs.
PG_CFLAGS = -ffp-contract=off
PG_CPPFLAGS = -I$(srcdir)/src

# TAP tests: PostgreSQL's own framework (PostgreSQL::Test::Cluster), run by
# "make prove_installcheck" as in pgvector.  Not part of "make installcheck",
# which runs inside an existing cluster.
PROVE_TESTS = test/t/*.pl

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

.PHONY: test demo bench prove_installcheck unicode-tables dist
# The PGXN distribution: the committed tree at HEAD, under one top directory
# simhash-X.Y.0/ (META.json's version), as git archive makes it.  Left out:
# test/citus/vendor, Citus's own source tarballs (AGPL, 10 MB) that only
# test/citus reads.  The install scripts are not in it: the build expands
# them from sql/ with perl, as from a clone (doc/install.md).
DISTVERSION = $(EXTVERSION).0
dist:
	@if [ -n "$$(git -C $(srcdir) status --porcelain --untracked-files=no)" ]; then \
		echo "make dist: uncommitted changes are not in the zip (it is made from HEAD)" >&2; fi
	git -C $(srcdir) archive --format zip --prefix=$(EXTENSION)-$(DISTVERSION)/ \
		-o $(CURDIR)/$(EXTENSION)-$(DISTVERSION).zip HEAD -- . ':(exclude)test/citus/vendor'
# Regenerate the Unicode tables from Debian's unicode-data (the UCD files of
# /usr/share/unicode, or UNICODE_DIR=...) and fail if they differ from the
# committed ones: the tables are part of the fingerprint contract.  The
# Python client's copy (clients/python/simhash_pg/_unicode_tables.py, by
# tools/gen_python_unicode.py) must match them too.
UNICODE_DIR ?= /usr/share/unicode
unicode-tables:
	perl $(srcdir)/src/text/unicode/gen_unicode_tables.pl $(UNICODE_DIR) src/text/unicode/unicode_tables.h.new
	@if cmp -s src/text/unicode/unicode_tables.h src/text/unicode/unicode_tables.h.new; then \
		rm -f src/text/unicode/unicode_tables.h.new; echo "src/text/unicode/unicode_tables.h is up to date"; \
	else \
		diff src/text/unicode/unicode_tables.h src/text/unicode/unicode_tables.h.new | head -20; \
		echo "src/text/unicode/unicode_tables.h differs from what $(UNICODE_DIR) gives (new file: src/text/unicode/unicode_tables.h.new)"; \
		exit 1; \
	fi
	python3 $(srcdir)/tools/gen_python_unicode.py --check
SQL_PARTS = $(srcdir)/sql/functions.tsv $(wildcard $(srcdir)/sql/parts/*.sql $(srcdir)/sql/parts/*.tsv)
sql/simhash--$(EXTVERSION).sql: sql/simhash.sql tools/sql_expand.pl $(SQL_PARTS) simhash.control
	perl $(srcdir)/tools/sql_expand.pl $(srcdir)/sql < $< > $@
sql/%.sql: sql/%.sql.in tools/sql_expand.pl $(SQL_PARTS)
	perl $(srcdir)/tools/sql_expand.pl $(srcdir)/sql < $< > $@
prove_installcheck:
	$(prove_installcheck)
test:
	bash test/run
demo:
	bash demo/run
bench:
	bash bench/run
