"""The wide types (simhash128, simhash256) through each driver's glue:
psycopg 3 (text and binary results, parameters, arrays, binary COPY),
psycopg2 (literals and casters) and SQLAlchemy (column types, reflection,
the hamming comparator, typed func.*).  A driver that is not importable
skips its class."""

import random
import unittest

from simhash_pg import Simhash, Simhash128, Simhash256
from common import DBNAME, SQLAlchemyTable, missing_driver

NO_PSYCOPG = missing_driver("psycopg 3", "python3-psycopg", "psycopg", "simhash_pg.psycopg")
NO_PSYCOPG2 = missing_driver("psycopg2", "python3-psycopg2", "psycopg2", "simhash_pg.psycopg2")
NO_SQLALCHEMY = missing_driver("SQLAlchemy with psycopg2", "python3-sqlalchemy python3-psycopg2",
                               "sqlalchemy", "simhash_pg.sqlalchemy", "psycopg2")

RNG = random.Random(1285)
CLASSES = (Simhash128, Simhash256)


def values(cls, n=40):
    """Edge values of the class's width, then random ones."""
    w = cls.WIDTH
    return [cls(0), cls((1 << w) - 1), cls(1 << (w - 1)), cls(1)] + \
        [cls(RNG.getrandbits(w)) for _ in range(n)]


TEXT = "Near-duplicate detection with wide fingerprints"


@unittest.skipIf(NO_PSYCOPG, NO_PSYCOPG)
class Psycopg3WideTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import psycopg
        from simhash_pg.psycopg import register_simhash, register_simhash128, register_simhash256
        cls.conn = psycopg.connect(dbname=DBNAME, autocommit=True)
        register_simhash(cls.conn)
        cls.infos = {Simhash128: register_simhash128(cls.conn),
                     Simhash256: register_simhash256(cls.conn)}

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def test_results_load_as_the_class(self):
        for binary in (False, True):
            row = self.conn.execute(
                "SELECT to_simhash(%s), to_simhash128(%s), to_simhash256(%s), "
                "to_simhash256(%s)::text", [TEXT] * 4, binary=binary).fetchone()
            self.assertEqual([type(v) for v in row[:3]], [Simhash, Simhash128, Simhash256])
            self.assertEqual(row[2].hex(), row[3])
            self.assertEqual(row[2].prefix(128), row[1])
            self.assertEqual(row[2].prefix(64), row[0])

    def test_parameters_round_trip(self):
        for cls in CLASSES:
            typ = cls._TYPE
            for v in values(cls):
                for ph in ("%s", "%b", "%t"):
                    got = self.conn.execute("SELECT {0}, {0}::text, {0}::bytea".format(ph),
                                            [v, v, v]).fetchone()
                    self.assertEqual(got, (v, v.hex(), bytes(v)), (typ, ph))
            q, near = values(cls, 1)[-1], None
            near = q.flip(3, 70 % cls.WIDTH, cls.WIDTH - 1)
            d = self.conn.execute("SELECT %s <-> %s, hamming_distance(%s, %s)",
                                  [q, near, q, near]).fetchone()
            self.assertEqual(d, (3, 3))

    def test_arrays_and_binary_copy(self):
        for cls in CLASSES:
            typ = cls._TYPE
            vals = values(cls, 200)
            self.assertEqual(self.conn.execute("SELECT %%s::%s[]" % typ, [vals]).fetchone()[0], vals)
            table = "pg3_wide_%d" % cls.WIDTH
            self.conn.execute("DROP TABLE IF EXISTS " + table)
            self.conn.execute("CREATE TABLE %s (id int, fp %s)" % (table, typ))
            with self.conn.cursor() as cur:
                with cur.copy("COPY %s FROM STDIN (FORMAT BINARY)" % table) as copy:
                    copy.set_types(["int4", typ])
                    for i, v in enumerate(vals):
                        copy.write_row((i, v))
                text = cur.execute("SELECT fp::text FROM %s ORDER BY id" % table).fetchall()
                self.assertEqual([r[0] for r in text], [v.hex() for v in vals])
                # B-tree order on the server is the classes' order
                ordered = cur.execute("SELECT fp FROM %s ORDER BY fp" % table).fetchall()
                self.assertEqual([r[0] for r in ordered], sorted(vals))
                with cur.copy("COPY %s TO STDOUT (FORMAT BINARY)" % table) as copy:
                    copy.set_types(["int4", typ])
                    back = dict(copy.rows())
            self.assertEqual(back, dict(enumerate(vals)))


@unittest.skipIf(NO_PSYCOPG2, NO_PSYCOPG2)
class Psycopg2WideTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import psycopg2
        from simhash_pg.psycopg2 import register_simhash, register_simhash128, register_simhash256
        cls.conn = psycopg2.connect(dbname=DBNAME)
        cls.conn.autocommit = True
        register_simhash(cls.conn)
        register_simhash128(cls.conn)
        register_simhash256(cls.conn)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def test_literals_and_casters(self):
        cur = self.conn.cursor()
        for cls in CLASSES:
            for v in values(cls):
                cur.execute("SELECT %s, %s::text, pg_typeof(%s)::text", (v, v, v))
                self.assertEqual(cur.fetchone(), (v, v.hex(), cls._TYPE))
            vals = values(cls, 5) + [None]
            cur.execute("SELECT %s", (vals,))
            self.assertEqual(cur.fetchone()[0], vals)
        cur.execute("SELECT to_simhash(%s), to_simhash128(%s), to_simhash256(%s)", [TEXT] * 3)
        a, b, c = cur.fetchone()
        self.assertEqual((type(a), type(b), type(c)), (Simhash, Simhash128, Simhash256))
        self.assertEqual((c.prefix(64), c.prefix(128)), (a, b))

    def test_unknown_type_name(self):
        import psycopg2
        from simhash_pg.psycopg2 import register_simhash128
        with self.assertRaises(psycopg2.ProgrammingError):
            register_simhash128(self.conn, name="no_such_type")


@unittest.skipIf(NO_SQLALCHEMY, NO_SQLALCHEMY)
class SQLAlchemyWideTest(SQLAlchemyTable, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from simhash_pg.sqlalchemy import Simhash128Type, Simhash256Type
        cls.create_table("sa_wide", ("fp128", Simhash128Type), ("fp256", Simhash256Type))
        cls.rows = {i: (Simhash128(RNG.getrandbits(128)), Simhash256(RNG.getrandbits(256)))
                    for i in range(1, 101)}
        with cls.engine.begin() as conn:
            conn.execute(cls.table.insert(), [
                # a value, or its hex text: the type converts both
                {"id": i, "fp128": a if i % 2 else a.hex(), "fp256": b}
                for i, (a, b) in cls.rows.items()])

    def test_select_and_hamming(self):
        sa, t = self.sa, self.table
        with self.engine.connect() as conn:
            got = {r.id: (r.fp128, r.fp256) for r in conn.execute(sa.select(t))}
            self.assertEqual(got, self.rows)
            q = self.rows[7][1].flip(1, 200)
            near = conn.execute(sa.select(t.c.id, t.c.fp256.hamming(q))
                                .where(t.c.fp256.hamming(q) <= 2)).all()
            self.assertEqual(near, [(7, 2)])
            ids = conn.execute(sa.select(t.c.id).where(t.c.fp128.within(self.rows[9][0], 0))).all()
            self.assertEqual(ids, [(9,)])
            sim = conn.execute(sa.select(t.c.fp256.similarity(q)).where(t.c.id == 7)).scalar()
            self.assertAlmostEqual(sim, self.rows[7][1].similarity(q), places=12)

    def test_functions_are_typed(self):
        sa = self.sa
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(sa.func.to_simhash128(TEXT), sa.func.to_simhash256(TEXT),
                                         sa.func.simhash256_ngram(TEXT, 4),
                                         sa.func.simhash_radius(0.9, 256))).one()
        self.assertEqual((type(row[0]), type(row[1]), type(row[2])), (Simhash128, Simhash256, Simhash256))
        self.assertEqual(row[1].prefix(128), row[0])
        self.assertIsInstance(row[3], int)

    def test_reflection(self):
        from simhash_pg.sqlalchemy import Simhash128Type, Simhash256Type
        t = self.sa.Table("sa_wide", self.sa.MetaData(), autoload_with=self.engine)
        self.assertIsInstance(t.c.fp128.type, Simhash128Type)
        self.assertIsInstance(t.c.fp256.type, Simhash256Type)
