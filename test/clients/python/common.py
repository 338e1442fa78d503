"""Shared by the driver tests: the database, the table every driver test
builds for itself, the planted near-duplicates and plan checks."""

import importlib
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


def missing_driver(what, debs, *modules):
    """Why the tests of driver `what` are skipped: None when every module
    imports, else the ImportError and the Debian packages `debs` that give
    them."""
    try:
        for name in modules:
            importlib.import_module(name)
    except ImportError as exc:
        return "%s is not importable (%s); on Debian: apt-get install %s" % (what, exc, debs)
    return None


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


def insert_planted(execute, table, fps, forms):
    """Inserts the planted fingerprints fps (planted()) into table through
    execute(sql, params), each the way its driver passes it: forms maps a
    way ("bigint", "adapter-text", "adapter-binary") to the placeholder and
    the function giving the parameter from the Simhash.  "hex" and "HEX"
    send a str, the same for every driver."""
    forms = dict({"hex": ("%s", Simhash.hex),
                  "HEX": ("%s", lambda fp: fp.hex().upper())}, **forms)
    ins = "INSERT INTO %s (id, fp) VALUES (%%s, {})" % table
    for i, (fp, how) in fps.items():
        placeholder, param = forms[how]
        execute(ins.format(placeholder), (i, param(fp)))


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


class SharedDriverTests:
    """Test methods both psycopg test classes run alike.  The class gives
    table (the docs table), rows, center and planted (set up once),
    fetch(sql, params) -> list of rows, seqscan(sql, params) (the same
    with index scans off) and explain(sql, params) -> plan text."""

    def radius_sql(self):
        return ("SELECT id, fp <-> %%s AS d FROM %s WHERE fp <-> %%s <= %%s ORDER BY id"
                % self.table)

    def test_01_columns_load_as_simhash(self):
        self.assertEqual(len(self.rows), ROWS + 5 + len(self.planted) + 1)
        fps = [v for v in self.rows.values() if v is not None]
        self.assertTrue(all(type(v) is Simhash for v in fps))
        self.assertEqual(len(fps), ROWS + len(self.planted) + 1)

    def test_10_radius_matches_python_and_seqscan(self):
        sql = self.radius_sql()
        checked = nonempty = 0
        for q in queries(self.rows) + [self.center]:
            for k in range(0, 6):
                got = self.fetch(sql, (q, q, k))
                self.assertEqual(got, expected(self.rows, q, k), (q, k))
                self.assertEqual(got, self.seqscan(sql, (q, q, k)), (q, k))
                checked += 1
                nonempty += bool(got)
        self.assertGreater(nonempty, checked // 2)

    def test_11_planted_neighbours(self):
        got = {i for i, _ in self.fetch(self.radius_sql(), (self.center, self.center, 3))}
        near = {i for i, (fp, _) in self.planted.items() if fp.hamming(self.center) <= 3}
        self.assertEqual(near, {100001, 100002, 200001, 200002, 200003, 300001, 300002})
        self.assertTrue(near | {1} <= got)
        self.assertFalse({100003, 100004, 200004} & got)

    def check_radius_forms(self, forms):
        """The radius query around the centre in the forms every driver
        sends, and in the driver's own forms (a list of (WHERE clause,
        parameters)): each is answered by the GIN index and gives the ids
        of a sequential scan."""
        q = self.center
        forms = [
            ("fp <-> %s <= 3", (q,)),
            ("fp <-> %s <= %s", (q.hex(), 3)),     # a str
            ("%s <-> fp < %s", (q, 4)),
            ("hamming_distance(fp, %s) <= %s", (q, 3)),
            ("simhash_within(fp, %s, %s)", (q, 3)),
        ] + forms
        for where, params in forms:
            sql = "SELECT id FROM %s WHERE %s" % (self.table, where)
            plan = self.explain(sql, params)
            self.assertTrue(uses_index(plan, self.table), "%s\n%s" % (sql, plan))
            ids = sorted(r[0] for r in self.fetch(sql, params))
            self.assertEqual(ids, sorted(r[0] for r in self.seqscan(sql, params)), sql)

    def check_nearest_neighbours(self):
        """The 10 nearest rows by GiST, at the distances Python computes."""
        sql = ("SELECT id, fp <-> %%s AS d FROM %s ORDER BY fp <-> %%s LIMIT 10"
               % self.table)
        for q in queries(self.rows, 6):
            plan = self.explain(sql, (q, q))
            self.assertTrue(uses_knn(plan, self.table), plan)
            got = self.fetch(sql, (q, q))
            dists = sorted(fp.hamming(q) for fp in self.rows.values() if fp is not None)
            self.assertEqual([d for _, d in got], dists[:10])
            self.assertTrue(all(self.rows[i].hamming(q) == d for i, d in got))


class SQLAlchemyTable:
    """Mixin of a SQLAlchemy test class of one table: create_table() in its
    setUpClass, the table dropped and the engine disposed at the end."""

    @classmethod
    def create_table(cls, name, *columns):
        """cls.sa, cls.engine (psycopg2, DBNAME), cls.meta and cls.table, the
        table `name` of an integer primary key id and the (name, type)
        columns, dropped and created afresh."""
        import sqlalchemy as sa
        cls.sa = sa
        url = sa.engine.URL.create("postgresql+psycopg2", database=DBNAME)
        cls.engine = sa.create_engine(url, future=True)
        cls.meta = sa.MetaData()
        cls.table = sa.Table(name, cls.meta, sa.Column("id", sa.Integer, primary_key=True),
                             *[sa.Column(n, t) for n, t in columns])
        cls.meta.drop_all(cls.engine)
        cls.meta.create_all(cls.engine)

    @classmethod
    def tearDownClass(cls):
        cls.meta.drop_all(cls.engine)
        cls.engine.dispose()

def pg3_copy_in(conn, table, rows, types=None):
    """psycopg 3: `rows` written into `table` (a name, with or without a
    column list) by a COPY: binary with the type names `types` when given,
    else text."""
    with conn.cursor() as cur:
        with cur.copy("COPY %s FROM STDIN%s" % (table, " (FORMAT BINARY)" if types else "")) as copy:
            if types:
                copy.set_types(types)
            for row in rows:
                copy.write_row(row)


def pg3_copy_out(conn, query, types, binary=True):
    """psycopg 3: the rows of `query` read by a COPY of type names `types`,
    binary or text."""
    with conn.cursor() as cur:
        with cur.copy("COPY (%s) TO STDOUT%s" % (query, " (FORMAT BINARY)" if binary else "")) as copy:
            copy.set_types(types)
            return list(copy.rows())
