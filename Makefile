# simhash: PostgreSQL extension, built with PGXS.
#
#   make                 build
#   make install         install into the server found by pg_config (root)
#   make installcheck    pg_regress suite against a running server
#   make prove_installcheck   TAP tests (test/t) with PostgreSQL::Test::Cluster;
#                        not as root (test/tap/run handles root)
#   make test            everything, in a throwaway cluster (see test/run)
#   make demo            the main job: near-duplicates in a real corpus
#   make bench           fingerprint throughput benchmark

EXTENSION = simhash
MODULE_big = simhash
OBJS = \
	src/simhash_type.o \
	src/distance.o \
	src/fingerprint.o \
	src/tokenize.o \
	src/unicode_norm.o \
	src/radius.o \
	src/support.o \
	src/gin.o \
	src/gist.o \
	src/batch.o \
	src/trigger.o

# One source for the install script: sql/simhash.sql holds the current
# version and is copied to its versioned name at build time; earlier versions
# ship only as update scripts (sql/simhash--A--B.sql) and as the 1.0 base.
EXTVERSION = $(shell sed -n "s/^default_version = '\\(.*\\)'/\\1/p" $(srcdir)/simhash.control)
DATA_built = sql/simhash--$(EXTVERSION).sql
DATA = $(filter-out sql/simhash--$(EXTVERSION).sql,$(wildcard sql/simhash--*.sql))
REGRESS = type distance fingerprint vectors tokenize errors badinput index gist batch security trigger catalog
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

.PHONY: test demo bench prove_installcheck
sql/simhash--$(EXTVERSION).sql: sql/simhash.sql simhash.control
	cp $< $@
prove_installcheck:
	$(prove_installcheck)
test:
	bash test/run
demo:
	bash demo/run
bench:
	bash bench/run
