"""psycopg2 against the simhash extension through simhash_pg.psycopg2:
fingerprints from SQL and from Python (hex text, int through the bigint
cast, the adapter's typed literal, 8 bytes through the bytea cast), radius
queries with parameters answered by the GIN index (EXPLAIN of the
statement as sent, generic and custom plans of a PREPAREd statement),
equal to a sequential scan and to Python's distances, nearest neighbours,
arrays, binary COPY (the PGCOPY stream built and parsed here from
Simhash.to_bytes/from_bytes) and text COPY.  psycopg2 merges parameters
into the query on the client and has no binary result format."""

import io
import random
import struct
import unittest

from simhash_pg import Simhash
from common import (DBNAME, EDGE_VALUES, ROWS, SharedDriverTests, assert_same,
                    docs_setup_sql, expected, insert_planted, missing_driver,
                    planted, queries, uses_index, uses_knn)

SKIP_REASON = missing_driver("psycopg2", "python3-psycopg2", "psycopg2", "simhash_pg.psycopg2")
if not SKIP_REASON:
    import psycopg2
    from psycopg2 import extensions
    from simhash_pg.psycopg2 import register_simhash

T = "docs_pg2"
COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"


def copy_binary_stream(rows):
    """COPY BINARY data of (bigint, simhash) rows."""
    out = [COPY_SIGNATURE, struct.pack("!ii", 0, 0)]
    for i, v in rows:
        out.append(struct.pack("!hiq", 2, 8, i))
        out.append(struct.pack("!i", -1) if v is None
                   else struct.pack("!i", 8) + v.to_bytes())
    out.append(struct.pack("!h", -1))
    return b"".join(out)


def parse_copy_binary(data):
    """(bigint, simhash) rows of COPY BINARY output."""
    assert data[:11] == COPY_SIGNATURE, data[:11]
    flags, ext = struct.unpack_from("!ii", data, 11)
    pos = 19 + ext
    rows = []
    while True:
        (n,) = struct.unpack_from("!h", data, pos)
        pos += 2
        if n == -1:
            break
        assert n == 2, n
        (ilen,) = struct.unpack_from("!i", data, pos)
        assert ilen == 8
        (i,) = struct.unpack_from("!q", data, pos + 4)
        pos += 12
        (flen,) = struct.unpack_from("!i", data, pos)
        pos += 4
        if flen == -1:
            rows.append((i, None))
        else:
            assert flen == 8, flen      # simhash_send: exactly 8 bytes
            rows.append((i, Simhash.from_bytes(data[pos:pos + 8])))
            pos += 8
    assert pos == len(data)
    return rows


class Psycopg2Test(SharedDriverTests, unittest.TestCase):
    table = T

    @classmethod
    def setUpClass(cls):
        conn = cls.conn = psycopg2.connect(dbname=DBNAME)
        conn.autocommit = True
        cur = cls.cur = conn.cursor()
        for stmt in docs_setup_sql(T):
            cur.execute(stmt)
        cls.oids = register_simhash(conn)
        cur.execute("SELECT fp FROM %s WHERE id = 1" % T)
        center = cls.center = cur.fetchone()[0]
        cls.planted = planted(center)
        insert_planted(cur.execute, T, cls.planted, {
            "bigint": ("(%s)::bigint::simhash", Simhash.to_signed),
            "adapter-text": ("%s", lambda fp: fp),                  # '...'::simhash
            "adapter-binary": ("%s::bytea::simhash",                # 8 bytes as bytea
                               lambda fp: psycopg2.Binary(fp.to_bytes()))})
        cur.execute("SELECT to_simhash('a fingerprint made by the server')")
        cls.from_sql = cur.fetchone()[0]
        cur.execute("INSERT INTO %s (id, fp) VALUES (%%s, %%s)" % T, (400001, cls.from_sql))
        cur.execute("ANALYZE %s" % T)
        cur.execute("SELECT id, fp FROM %s" % T)
        cls.rows = dict(cur.fetchall())

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def fetch(self, sql, params=None, cur=None):
        cur = cur or self.cur
        cur.execute(sql, params)
        return cur.fetchall()

    def explain(self, sql, params=None, cur=None):
        return "\n".join(r[0] for r in self.fetch("EXPLAIN " + sql, params, cur))

    def seqscan(self, sql, params):
        self.cur.execute("BEGIN")
        try:
            self.cur.execute("SET LOCAL enable_bitmapscan = off")
            self.cur.execute("SET LOCAL enable_indexscan = off")
            self.assertIn("Seq Scan", self.explain(sql, params))
            return self.fetch(sql, params)
        finally:
            self.cur.execute("ROLLBACK")

    # --- values in and out ---------------------------------------------------

    def test_02_python_values_stored_exactly(self):
        got = self.fetch("SELECT id, fp::text, fp::bigint, fp::bytea FROM %s "
                         "WHERE id >= 100000 ORDER BY id" % T)
        want = sorted(list(self.planted.items()) + [(400001, (self.from_sql, ""))])
        self.assertEqual(len(got), len(want))
        for (i, text, signed, raw), (j, (fp, how)) in zip(got, want):
            self.assertEqual((i, text, signed, bytes(raw)),
                             (j, fp.hex(), fp.to_signed(), fp.to_bytes()), how)
        signs = {self.planted[i][0].to_signed() < 0 for i in (200001, 200004)}
        self.assertEqual(signs, {True, False})

    def test_03_adapter_literal(self):
        v = Simhash("f3a90c1e00b2d47f")
        self.assertEqual(self.cur.mogrify("%s", (v,)), b"'f3a90c1e00b2d47f'::simhash")
        self.assertEqual(self.cur.mogrify("%s", ([v, None],)),
                         b"ARRAY['f3a90c1e00b2d47f'::simhash,NULL]")

    def test_04_round_trip_every_form(self):
        rng = random.Random(3)
        for v in EDGE_VALUES + [Simhash(rng.getrandbits(64)) for _ in range(50)]:
            row = self.fetch(
                "SELECT %s, %s::text, %s::bigint, %s::bytea, %s::simhash, "
                "(%s)::bigint::simhash, %s::bytea::simhash, pg_typeof(%s)::text",
                (v, v, v, v, v.hex(), v.to_signed(), psycopg2.Binary(v.to_bytes()), v))[0]
            self.assertEqual(row[0], v)
            self.assertEqual((row[1], row[2], bytes(row[3])),
                             (v.hex(), v.to_signed(), v.to_bytes()))
            self.assertEqual(row[4:], (v, v, v, "simhash"))

    def test_09_negative_bigint_needs_parentheses(self):
        # psycopg2 writes a negative int as " -123" into the query, and '::'
        # binds tighter than unary minus: -123::bigint::simhash negates a
        # simhash.  (%s)::bigint::simhash is the form that works.
        v = Simhash(1 << 63)
        with self.assertRaises(psycopg2.errors.UndefinedFunction):
            self.cur.execute("SELECT %s::bigint::simhash", (v.to_signed(),))
        self.assertEqual(self.fetch("SELECT (%s)::bigint::simhash", (v.to_signed(),)),
                         [(v,)])

    def test_05_distance_is_python_int(self):
        q = self.center.flip(1, 2)
        d = self.fetch("SELECT fp <-> %s, hamming_distance(fp, %s), %s <-> %s FROM " + T +
                       " WHERE id = 1", (q, q, q, self.center))[0]
        self.assertEqual(d, (2, 2, 2))
        self.assertTrue(all(type(x) is int for x in d))

    def test_06_arrays(self):
        vals = [self.rows[1], self.rows[2], self.rows[200001], None]
        self.assertEqual(self.fetch("SELECT %s", (vals,))[0][0], vals)
        got = self.fetch("SELECT id FROM " + T + " WHERE fp = ANY(%s) ORDER BY id", (vals,))
        self.assertEqual([r[0] for r in got], [1, 2, 200001])
        agg = self.fetch("SELECT array_agg(fp ORDER BY id) FROM %s WHERE id <= 3" % T)[0][0]
        self.assertEqual(agg, [self.rows[1], self.rows[2], self.rows[3]])

    def test_07_casters_are_per_connection(self):
        plain = psycopg2.connect(dbname=DBNAME)
        try:
            cur = plain.cursor()
            cur.execute("SELECT fp, ARRAY[fp] FROM %s WHERE id = 1" % T)
            self.assertEqual(cur.fetchone(), (self.center.hex(), "{%s}" % self.center.hex()))
        finally:
            plain.close()

    def test_08_register_leaves_connection_idle_and_errors(self):
        conn = psycopg2.connect(dbname=DBNAME)     # not autocommit
        try:
            self.assertEqual(register_simhash(conn.cursor(), name="public.simhash"), self.oids)
            self.assertEqual(conn.info.transaction_status, extensions.TRANSACTION_STATUS_IDLE)
            with self.assertRaises(psycopg2.ProgrammingError):
                register_simhash(conn, name="no_such_type")
            self.assertEqual(conn.info.transaction_status, extensions.TRANSACTION_STATUS_IDLE)
            cur = conn.cursor()     # the cursor-scoped casters: this cursor only
            cur.execute("SELECT fp FROM %s WHERE id = 1" % T)
            self.assertEqual(cur.fetchone()[0], self.center.hex())
        finally:
            conn.close()

    # --- radius queries -------------------------------------------------------

    def test_12_explain_parameters_uses_gin(self):
        self.check_radius_forms([
            ("fp <-> (%s)::bigint::simhash <= 3", (self.center.to_signed(),)),
        ])

    def test_13_prepare_generic_and_custom_plans(self):
        conn = psycopg2.connect(dbname=DBNAME)
        conn.autocommit = True
        try:
            register_simhash(conn)
            cur = conn.cursor()
            cur.execute("PREPARE near(simhash, integer) AS SELECT id, fp <-> $1 FROM " + T +
                        " WHERE fp <-> $1 <= $2 ORDER BY id")
            for mode in ("force_generic_plan", "force_custom_plan"):
                cur.execute("SET plan_cache_mode = %s" % mode)
                plan = self.explain("EXECUTE near(%s, %s)", (self.center, 3), cur)
                self.assertTrue(uses_index(plan, T), plan)
                self.assertEqual("simhash_ball($1, $2)" in plan,
                                 mode == "force_generic_plan", plan)
                for q in queries(self.rows, 4):
                    for k in (2, 3):
                        self.assertEqual(self.fetch("EXECUTE near(%s, %s)", (q, k), cur),
                                         expected(self.rows, q, k))
            cur.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                        "WHERE name = 'near'")
            generic, custom = cur.fetchone()
            self.assertGreaterEqual(generic, 8)
            self.assertGreaterEqual(custom, 8)
        finally:
            conn.close()

    def test_14_nearest_neighbours_gist(self):
        self.check_nearest_neighbours()

    # --- COPY -----------------------------------------------------------------

    def test_20_binary_copy_in_and_out(self):
        rng = random.Random(11)
        values = EDGE_VALUES + [None] + [Simhash(rng.getrandbits(64)) for _ in range(500)]
        rows = list(enumerate(values))
        self.cur.execute("DROP TABLE IF EXISTS pg2_copy")
        self.cur.execute("CREATE TABLE pg2_copy (id bigint, fp simhash)")
        self.cur.copy_expert("COPY pg2_copy FROM STDIN (FORMAT BINARY)",
                             io.BytesIO(copy_binary_stream(rows)))
        got = self.fetch("SELECT id, fp::text FROM pg2_copy ORDER BY id")
        assert_same(self, got, [(i, None if v is None else v.hex()) for i, v in rows])
        out = io.BytesIO()
        self.cur.copy_expert("COPY (SELECT id, fp FROM pg2_copy ORDER BY id) "
                             "TO STDOUT (FORMAT BINARY)", out)
        assert_same(self, parse_copy_binary(out.getvalue()), rows)

    def test_21_binary_copy_out_of_the_docs_table(self):
        out = io.BytesIO()
        self.cur.copy_expert("COPY %s (id, fp) TO STDOUT (FORMAT BINARY)" % T, out)
        assert_same(self, dict(parse_copy_binary(out.getvalue())), self.rows)

    def test_22_text_copy(self):
        values = EDGE_VALUES + [None]
        self.cur.execute("DROP TABLE IF EXISTS pg2_copy_text")
        self.cur.execute("CREATE TABLE pg2_copy_text (id int, fp simhash)")
        data = "".join("%d\t%s\n" % (i, "\\N" if v is None else v) for i, v in enumerate(values))
        self.cur.copy_expert("COPY pg2_copy_text FROM STDIN", io.StringIO(data))
        out = io.StringIO()
        self.cur.copy_expert("COPY pg2_copy_text TO STDOUT", out)
        self.assertEqual(out.getvalue(), data)
        self.assertEqual(self.fetch("SELECT id, fp FROM pg2_copy_text ORDER BY id"),
                         list(enumerate(values)))


if __name__ == "__main__":
    unittest.main()
