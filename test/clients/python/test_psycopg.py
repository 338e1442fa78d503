"""psycopg 3 against the simhash extension through simhash_pg.psycopg:
fingerprints from SQL and from Python (hex text, int through the bigint
cast, the adapter in text and binary), radius queries with bound
parameters answered by the GIN index (EXPLAIN with parameters, prepared
statements in custom and generic plans) and equal to a sequential scan and
to Python's own distances, nearest neighbours by GiST, binary results,
binary and text COPY, arrays, and the round trip of every wire form."""

import asyncio
import random
import re
import unittest

from simhash_pg import Simhash
from common import (DBNAME, EDGE_VALUES, ROWS, SharedDriverTests, assert_same,
                    docs_setup_sql, expected, insert_planted, missing_driver,
                    pg3_copy_in, pg3_copy_out, planted, queries, uses_index, uses_knn)

SKIP_REASON = missing_driver("psycopg 3", "python3-psycopg", "psycopg", "simhash_pg.psycopg")
if not SKIP_REASON:
    import psycopg
    from psycopg import sql
    from psycopg.types import TypeInfo
    from simhash_pg.psycopg import register_simhash, register_simhash_async

T = "docs_pg3"
RADIUS_SQL = "SELECT id, fp <-> %%s AS d FROM %s WHERE fp <-> %%s <= %%s ORDER BY id" % T


class Plans:
    """Plans of the statements this connection runs, from auto_explain's
    NOTICEs: the plan a statement really used, prepared ones included."""

    def __init__(self, conn):
        self.plans = []
        conn.add_notice_handler(self._notice)
        conn.execute("LOAD 'auto_explain'")
        conn.execute("SET auto_explain.log_min_duration = 0")
        conn.execute("SET auto_explain.log_level = notice")

    def _notice(self, diag):
        msg = diag.message_primary or ""
        if "plan:" in msg:
            self.plans.append(msg)

    def last(self, needle):
        for plan in reversed(self.plans):
            if needle in plan:
                return plan
        return ""


class PsycopgTest(SharedDriverTests, unittest.TestCase):
    table = T

    @classmethod
    def setUpClass(cls):
        conn = cls.conn = psycopg.connect(dbname=DBNAME, autocommit=True)
        for stmt in docs_setup_sql(T):
            conn.execute(stmt)
        cls.info = register_simhash(conn)
        center = conn.execute("SELECT fp FROM %s WHERE id = 1" % T).fetchone()[0]
        cls.center = center
        cls.planted = planted(center)
        insert_planted(conn.execute, T, cls.planted, {
            "bigint": ("%s::bigint::simhash", Simhash.to_signed),
            "adapter-text": ("%t", lambda fp: fp),
            "adapter-binary": ("%b", lambda fp: fp)})
        # computed in SQL, read into Python, sent back through the adapter
        from_sql = conn.execute("SELECT to_simhash('a fingerprint made by the server')"
                                ).fetchone()[0]
        conn.execute("INSERT INTO %s (id, fp) VALUES (%%s, %%s)" % T, (400001, from_sql))
        cls.from_sql = from_sql
        conn.execute("ANALYZE %s" % T)
        cls.rows = dict(conn.execute("SELECT id, fp FROM %s" % T).fetchall())

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def fetch(self, query, params):
        return self.conn.execute(query, params).fetchall()

    def seqscan(self, query, params):
        """The same query with index scans disabled: the reference answer."""
        with self.conn.transaction():
            self.conn.execute("SET LOCAL enable_bitmapscan = off")
            self.conn.execute("SET LOCAL enable_indexscan = off")
            plan = "\n".join(r[0] for r in self.conn.execute("EXPLAIN " + query, params))
            self.assertIn("Seq Scan", plan)
            return self.conn.execute(query, params).fetchall()

    def explain(self, query, params, conn=None):
        cur = (conn or self.conn).execute("EXPLAIN " + query, params)
        return "\n".join(r[0] for r in cur)

    # --- values in and out ---------------------------------------------------

    def test_02_python_values_stored_exactly(self):
        got = self.conn.execute(
            "SELECT id, fp::text, fp::bigint, fp::bytea FROM %s WHERE id >= 100000 "
            "ORDER BY id" % T).fetchall()
        want = sorted(list(self.planted.items()) + [(400001, (self.from_sql, ""))])
        self.assertEqual(len(got), len(want))
        for (i, text, signed, raw), (j, (fp, how)) in zip(got, want):
            self.assertEqual((i, text, signed, bytes(raw)),
                             (j, fp.hex(), fp.to_signed(), fp.to_bytes()), how)
        same = self.conn.execute(
            "SELECT fp = to_simhash('a fingerprint made by the server') FROM %s "
            "WHERE id = 400001" % T).fetchone()[0]
        self.assertIs(same, True)
        # bit 63 set in some and clear in others: negative and positive bigints
        signs = {self.planted[i][0].to_signed() < 0 for i in (200001, 200004)}
        self.assertEqual(signs, {True, False})

    def test_03_round_trip_every_form(self):
        rng = random.Random(3)
        values = EDGE_VALUES + [Simhash(rng.getrandbits(64)) for _ in range(50)]
        for v in values:
            row = self.conn.execute(
                "SELECT %s, %t, %b, %s::text, %s::bigint, %s::bytea, "
                "%s::simhash, %s::bigint::simhash, %s::bytea::simhash",
                (v, v, v, v, v, v, v.hex(), v.to_signed(), v.to_bytes())).fetchone()
            self.assertEqual(row[:3], (v, v, v))
            self.assertEqual(row[3:6], (v.hex(), v.to_signed(), v.to_bytes()))
            self.assertEqual(row[6:], (v, v, v))

    def test_04_distance_is_python_int(self):
        q = self.center.flip(1, 2)
        for binary in (False, True):
            d = self.conn.cursor(binary=binary).execute(
                "SELECT fp <-> %s, hamming_distance(fp, %s), %s <-> %s FROM " + T +
                " WHERE id = 1", (q, q, q, self.center)).fetchone()
            self.assertEqual(d, (2, 2, 2))
            self.assertTrue(all(type(x) is int for x in d))

    def test_05_binary_results(self):
        ids = [1, 2, 3, 200001, 90001]
        cur = self.conn.cursor(binary=True)
        cur.execute("SELECT id, fp, ARRAY[fp, NULL], fp <-> %s FROM " + T +
                    " WHERE id = ANY(%s) ORDER BY id", (self.center, ids))
        self.assertEqual([cur.pgresult.fformat(c) for c in range(4)], [1, 1, 1, 1])
        got = cur.fetchall()
        want = [(i, self.rows[i], [self.rows[i], None],
                 None if self.rows[i] is None else self.rows[i].hamming(self.center))
                for i in sorted(ids)]
        self.assertEqual(got, want)
        # execute(binary=True) on a text cursor, and a text result for comparison
        text = self.conn.execute("SELECT fp FROM %s WHERE id = 2" % T)
        self.assertEqual(text.pgresult.fformat(0), 0)
        binres = self.conn.execute("SELECT fp FROM %s WHERE id = 2" % T, binary=True)
        self.assertEqual(binres.pgresult.fformat(0), 1)
        self.assertEqual(text.fetchone(), binres.fetchone())

    def test_06_arrays(self):
        vals = [self.rows[1], self.rows[2], self.rows[200001], None]
        self.assertEqual(self.conn.execute("SELECT %s::simhash[]", (vals,)).fetchone()[0], vals)
        got = self.conn.execute("SELECT id FROM " + T + " WHERE fp = ANY(%s) ORDER BY id",
                                (vals,)).fetchall()
        self.assertEqual([r[0] for r in got], [1, 2, 200001])
        agg = self.conn.execute("SELECT array_agg(fp ORDER BY id) FROM %s WHERE id <= 3"
                                % T, binary=True).fetchone()[0]
        self.assertEqual(agg, [self.rows[1], self.rows[2], self.rows[3]])

    def test_07_unregistered_connection_gets_server_text(self):
        with psycopg.connect(dbname=DBNAME, autocommit=True) as plain:
            fp = plain.execute("SELECT fp FROM %s WHERE id = 1" % T).fetchone()[0]
            self.assertEqual(fp, self.center.hex())
            raw = plain.execute("SELECT fp FROM %s WHERE id = 1" % T, binary=True).fetchone()[0]
            self.assertEqual(raw, self.center.to_bytes())
            with self.assertRaises(psycopg.ProgrammingError):
                plain.execute("SELECT %s", (self.center,))
            # the signed int of to_signed() works without the adapter
            got = plain.execute("SELECT id FROM " + T + " WHERE fp = %s::bigint::simhash",
                                (self.center.to_signed(),)).fetchone()[0]
            self.assertEqual(got, 1)

    def test_08_register_errors_and_qualified_name(self):
        with self.assertRaises(psycopg.ProgrammingError):
            register_simhash(self.conn, context=self.conn.cursor(), name="no_such_type")
        info = TypeInfo.fetch(self.conn, "public.simhash")
        self.assertEqual((info.oid, info.array_oid), (self.info.oid, self.info.array_oid))
        oids = self.conn.execute(
            "SELECT 'simhash'::regtype::oid::int, 'simhash[]'::regtype::oid::int").fetchone()
        self.assertEqual(oids, (self.info.oid, self.info.array_oid))

    def test_09_executemany_and_pipeline(self):
        rng = random.Random(9)
        values = [Simhash(rng.getrandbits(64)) for _ in range(200)]
        self.conn.execute("DROP TABLE IF EXISTS pg3_many")
        self.conn.execute("CREATE TABLE pg3_many (id int, fp simhash)")
        with self.conn.cursor() as cur:
            cur.executemany("INSERT INTO pg3_many VALUES (%s, %s)", list(enumerate(values)))
        with self.conn.pipeline():
            cur = self.conn.execute("INSERT INTO pg3_many VALUES (%s, %b) RETURNING fp",
                                    (-1, values[0]))
            back = self.conn.execute("SELECT %s::text", (values[1],))
        self.assertEqual(cur.fetchone()[0], values[0])
        self.assertEqual(back.fetchone()[0], values[1].hex())
        got = self.conn.execute("SELECT id, fp::text FROM pg3_many WHERE id >= 0 ORDER BY id")
        assert_same(self, got.fetchall(), [(i, v.hex()) for i, v in enumerate(values)])

    def test_17_async_connection(self):
        async def radius():
            aconn = await psycopg.AsyncConnection.connect(dbname=DBNAME, autocommit=True)
            async with aconn:
                await register_simhash_async(aconn)
                cur = await aconn.execute(RADIUS_SQL, (self.center, self.center, 3))
                rows = await cur.fetchall()
                cur = await aconn.execute("SELECT fp FROM %s WHERE id = 1" % T, binary=True)
                return rows, (await cur.fetchone())[0]
        rows, fp = asyncio.run(radius())
        self.assertEqual(rows, expected(self.rows, self.center, 3))
        self.assertEqual(fp, self.center)

    # --- radius queries -------------------------------------------------------

    def test_12_explain_bound_parameters_uses_gin(self):
        # %s: the adapter's binary format, %t: its text format
        self.check_radius_forms([
            ("fp <-> %t <= 3", (self.center,)),
            ("fp <-> %s::bigint::simhash <= 3", (self.center.to_signed(),)),
        ])

    def test_13_prepared_generic_and_custom_plans(self):
        with psycopg.connect(dbname=DBNAME, autocommit=True) as conn:
            register_simhash(conn)
            plans = Plans(conn)
            query = RADIUS_SQL + " -- prepared"
            for mode in ("force_generic_plan", "force_custom_plan"):
                conn.execute("SET plan_cache_mode = %s" % mode)
                for q in queries(self.rows, 4):
                    for k in (2, 3):
                        got = conn.execute(query, (q, q, k), prepare=True).fetchall()
                        self.assertEqual(got, expected(self.rows, q, k))
                plan = plans.last("-- prepared")
                self.assertTrue(uses_index(plan, T), plan)
                # a generic plan keeps the parameters, a custom one has values
                self.assertEqual(bool(re.search(r"simhash_ball\(\$2, \(?\$3", plan)),
                                 mode == "force_generic_plan", plan)
            stats = conn.execute(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                "WHERE statement LIKE '%-- prepared'").fetchall()
            self.assertEqual(len(stats), 1, stats)      # one statement, reused
            self.assertGreaterEqual(stats[0][0], 7)
            self.assertGreaterEqual(stats[0][1], 7)

    def test_14_sql_prepare_explain_execute_generic(self):
        with psycopg.connect(dbname=DBNAME, autocommit=True) as conn:
            register_simhash(conn)
            conn.execute("SET plan_cache_mode = force_generic_plan")
            conn.execute("PREPARE near(simhash, integer) AS "
                         "SELECT id, fp <-> $1 FROM %s WHERE fp <-> $1 <= $2 ORDER BY id" % T)
            # EXECUTE's arguments cannot be bound parameters: psycopg's
            # client-side literal of a Simhash ('...'::simhash) goes there
            literal = sql.Literal(self.center).as_string(conn)
            self.assertEqual(literal, "'%s'::simhash" % self.center.hex())
            query = sql.SQL("EXECUTE near({}, {})").format(sql.Literal(self.center), 3)
            plan = self.explain(query.as_string(conn), None, conn)
            self.assertTrue(uses_index(plan, T), plan)
            self.assertIn("simhash_ball($1, $2)", plan)
            got = conn.execute(query).fetchall()
            self.assertEqual(got, expected(self.rows, self.center, 3))

    def test_15_text_cast_parameter_generic(self):
        # how SQLAlchemy's SimhashType binds: CAST(<text parameter> AS simhash)
        with psycopg.connect(dbname=DBNAME, autocommit=True) as conn:
            plans = Plans(conn)
            conn.execute("SET plan_cache_mode = force_generic_plan")
            query = ("SELECT id FROM %s WHERE fp <-> CAST(%%s::text AS simhash) <= %%s "
                   "ORDER BY id -- cast" % T)
            for _ in range(2):
                got = conn.execute(query, (self.center.hex(), 3), prepare=True).fetchall()
            self.assertEqual([r[0] for r in got],
                             [i for i, _ in expected(self.rows, self.center, 3)])
            plan = plans.last("-- cast")
            self.assertTrue(uses_index(plan, T), plan)
            self.assertIn("$1", plan)

    def test_16_nearest_neighbours_gist(self):
        self.check_nearest_neighbours()

    # --- COPY -----------------------------------------------------------------

    def test_20_binary_copy_in_and_out(self):
        rng = random.Random(11)
        values = EDGE_VALUES + [None] + [Simhash(rng.getrandbits(64)) for _ in range(500)]
        self.conn.execute("DROP TABLE IF EXISTS pg3_copy")
        self.conn.execute("CREATE TABLE pg3_copy (id bigint, fp simhash, fps simhash[])")
        pg3_copy_in(self.conn, "pg3_copy (id, fp, fps)", [(i, v, [v, v]) for i, v in enumerate(values)],
                    ["int8", "simhash", "simhash[]"])
        # the server's reading of the bytes
        text = self.conn.execute("SELECT id, fp::text, fp::bigint FROM pg3_copy ORDER BY id").fetchall()
        assert_same(self, text, [(i, None if v is None else v.hex(),
                                 None if v is None else v.to_signed())
                                for i, v in enumerate(values)])
        back = pg3_copy_out(self.conn, "SELECT id, fp, fps FROM pg3_copy ORDER BY id",
                            ["int8", "simhash", "simhash[]"])
        assert_same(self, back, [(i, v, [v, v]) for i, v in enumerate(values)])

    def test_21_binary_copy_out_of_the_docs_table(self):
        with self.conn.cursor() as cur:
            with cur.copy("COPY %s (id, fp) TO STDOUT (FORMAT BINARY)" % T) as copy:
                copy.set_types(["int8", "simhash"])
                got = dict(copy.rows())
        assert_same(self, got, self.rows)

    def test_22_text_copy(self):
        values = EDGE_VALUES + [None]
        self.conn.execute("DROP TABLE IF EXISTS pg3_copy_text")
        self.conn.execute("CREATE TABLE pg3_copy_text (id int, fp simhash)")
        pg3_copy_in(self.conn, "pg3_copy_text", enumerate(values))
        back = pg3_copy_out(self.conn, "SELECT id, fp FROM pg3_copy_text ORDER BY id",
                            ["int4", "simhash"], binary=False)
        self.assertEqual(back, list(enumerate(values)))


if __name__ == "__main__":
    unittest.main()
