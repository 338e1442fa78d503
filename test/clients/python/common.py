"""Shared by the driver tests: the database, the table every driver test
builds for itself, the planted near-duplicates and plan checks."""

import os
import random

from simhash_pg import Simhash

# Created (with the extension) by ./run; each driver uses its own tables
DBNAME = os.environ.get("SIMHASH_PY_DB", "simhash_python_test")

ROWS = 6000


def docs_setup_sql(table):
    """The table: ROWS fingerprints computed on the server from texts of
    eight random words, GIN (radius) and GiST (nearest) indexes."""
    return [
        "DROP TABLE IF EXISTS %s" % table,
        "CREATE TABLE %s (id bigint PRIMARY KEY, body text, fp simhash)" % table,
    ] + docs_fill_sql(table) + [
        "CREATE INDEX %s_fp_gin ON %s USING gin (fp simhash_gin_ops)"
        % (table, table),
        "CREATE INDEX %s_fp_gist ON %s USING gist (fp simhash_gist_ops)"
        % (table, table),
    ]


def docs_fill_sql(table):
    return [
        """INSERT INTO %s (id, body, fp)
           SELECT i, b, to_simhash(b)
           FROM (SELECT i, (SELECT string_agg(md5((i * 16 + j)::text), ' ')
                            FROM generate_series(0, 7) j) AS b
                 FROM generate_series(1, %d) i) s""" % (table, ROWS),
        # a few rows without a fingerprint: never in any answer
        "INSERT INTO %s (id, body) SELECT 90000 + i, 'no fp' "
        "FROM generate_series(1, 5) i" % table,
    ]


def planted(center):
    """Fingerprints near `center`, each with the way the test passes it
    from Python.  Returns {id: (Simhash, how)}.  Bit 63 is flipped in some,
    so both signs of the bigint form occur whatever the centre is."""
    return {
        100001: (center.flip(10, 20), "hex"),
        100002: (center.flip(30, 40, 50), "HEX"),        # upper case
        100003: (center.flip(1, 2, 3, 4), "hex"),        # distance 4
        100004: (Simhash(center.value ^ 0xFFFF), "hex"),  # distance 16
        200001: (center.flip(63), "bigint"),
        200002: (center.flip(63, 62), "bigint"),
        200003: (center.flip(63, 0, 33), "bigint"),
        200004: (center.flip(5, 6, 7, 8, 9), "bigint"),   # distance 5
        300001: (center.flip(11), "adapter-text"),
        300002: (center.flip(12, 13, 14), "adapter-binary"),
    }


EDGE_VALUES = [
    Simhash(0), Simhash(1), Simhash(1 << 63), Simhash((1 << 63) - 1),
    Simhash((1 << 64) - 1), Simhash("f3a90c1e00b2d47f"),
]


def queries(rows, count=12, seed=20240601):
    """Query fingerprints: stored ones with 0..2 bits flipped (so answers
    are not empty) and a few random ones."""
    rng = random.Random(seed)
    fps = sorted(fp for fp in rows.values() if fp is not None)
    out = []
    for i in range(count):
        if i % 4 == 3:
            out.append(Simhash(rng.getrandbits(64)))
        else:
            fp = rng.choice(fps)
            out.append(fp.flip(*rng.sample(range(64), i % 3)))
    return out


def expected(rows, q, k):
    """[(id, distance)] within k of q, by id: computed in Python."""
    return sorted((i, fp.hamming(q)) for i, fp in rows.items()
                  if fp is not None and fp.hamming(q) <= k)


def uses_index(plan, table):
    """A radius plan answered by the GIN index through the ball operator."""
    return ("Index Scan on %s_fp_gin" % table in plan
            and "Index Cond: (fp <@ " in plan and "Seq Scan" not in plan)


def uses_knn(plan, table):
    return ("Index Scan using %s_fp_gist" % table in plan
            and "Order By" in plan and "Sort" not in plan)


def assert_same(test, got, want, what="rows"):
    """assertEqual for long lists and dicts: unittest's diff of thousands of
    differing lines takes minutes, so report the count and the first few."""
    if got == want:
        return
    if isinstance(want, dict):
        got = dict(got)
        keys = sorted(set(got) | set(want), key=repr)
        bad = [(k, got.get(k), want.get(k)) for k in keys if got.get(k) != want.get(k)]
    else:
        got, want = list(got), list(want)
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
        if len(got) != len(want):
            bad.append(("length", len(got), len(want)))
    test.fail("%s: %d differ (key, got, want), first: %r" % (what, len(bad), bad[:3]))
