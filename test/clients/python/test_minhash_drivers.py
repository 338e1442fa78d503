"""The minhash type (extension 1.10) through each driver's glue: psycopg 3
(text and binary results, %s/%b/%t parameters, arrays, binary and text
COPY, async), psycopg2 (literals and casters, arrays, binary COPY streams
built and parsed from MinHash.to_bytes/from_bytes, text COPY) and
SQLAlchemy (MinhashType columns, reflection, the jaccard comparator, typed
func.* of the 1.10 functions).  Every value is checked against the
server's own text (minhash_out) and binary (minhash_send) forms.  A driver
that is not importable skips its class."""

import io
import random
import struct
import unittest

from simhash_pg import MinHash, Simhash, Simhash128, Simhash256
from common import (DBNAME, SQLAlchemyTable, assert_same, missing_driver, pg3_copy_in,
                    pg3_copy_out)

NO_PSYCOPG = missing_driver("psycopg 3", "python3-psycopg", "psycopg", "simhash_pg.psycopg")
NO_PSYCOPG2 = missing_driver("psycopg2", "python3-psycopg2", "psycopg2", "simhash_pg.psycopg2")
NO_SQLALCHEMY = missing_driver("SQLAlchemy with psycopg2", "python3-sqlalchemy python3-psycopg2",
                               "sqlalchemy", "simhash_pg.sqlalchemy", "psycopg2")

RNG = random.Random(3636)

TEXTS = ["Near-duplicate detection with MinHash signatures",
         "near duplicate detection with minhash signature",
         "我们今天去公园散步", "", "   ", "a"]


def values(n=40):
    """Edge signatures (all bins 0, all 15, alternating), then random ones."""
    return [MinHash(bytes(128)), MinHash(b"\xff" * 128), MinHash("0f" * 128),
            MinHash("f0" * 128)] + [MinHash(bytes(RNG.getrandbits(8) for _ in range(128)))
                                    for _ in range(n)]


@unittest.skipIf(NO_PSYCOPG, NO_PSYCOPG)
class Psycopg3MinhashTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import psycopg
        from simhash_pg.psycopg import register_minhash
        cls.psycopg = psycopg
        cls.conn = psycopg.connect(dbname=DBNAME, autocommit=True)
        cls.info = register_minhash(cls.conn)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def test_results_load_as_minhash(self):
        for binary in (False, True):
            for t in TEXTS:
                cur = self.conn.execute(
                    "SELECT to_minhash(%s), to_minhash(%s)::text, minhash_send(to_minhash(%s)), "
                    "ARRAY[minhash_shingle(%s, 2), NULL], minhash_shingle(%s, 2)::text",
                    [t] * 5, binary=binary)
                self.assertEqual(cur.pgresult.fformat(0), 1 if binary else 0)
                m, text, raw, arr, shingle = cur.fetchone()
                self.assertIs(type(m), MinHash)
                self.assertEqual((m.hex(), m.to_bytes()), (text, bytes(raw)))
                self.assertEqual(arr, [MinHash(shingle), None])
        empty = self.conn.execute("SELECT to_minhash('')", binary=True).fetchone()[0]
        self.assertEqual(empty, MinHash(bytes(128)))

    def test_parameters_round_trip(self):
        for v in values():
            for ph in ("%s", "%b", "%t"):
                got = self.conn.execute(
                    "SELECT {0}, {0}::text, minhash_send({0}), pg_typeof({0})::text".format(ph),
                    [v] * 4).fetchone()
                self.assertEqual((got[0], got[1], bytes(got[2]), got[3]),
                                 (v, v.hex(), v.to_bytes(), "minhash"), ph)
        # the estimate computed by the server from parameters is the client's
        vals = values(30)
        for a, b in zip(vals, vals[1:]):
            for p in ("%s", "%t"):
                j = self.conn.execute("SELECT minhash_jaccard({0}, {0})".format(p), [a, b]).fetchone()[0]
                self.assertEqual(j, a.jaccard(b))
        # a str or bytes parameter is the server's to read
        self.assertEqual(self.conn.execute("SELECT %s::minhash", ["A" * 256]).fetchone()[0],
                         MinHash("a" * 256))

    def test_arrays_and_copy(self):
        vals = values(200) + [None]
        self.assertEqual(self.conn.execute("SELECT %s::minhash[]", [vals]).fetchone()[0], vals)
        self.assertEqual(self.conn.execute("SELECT %s::minhash[]", [vals], binary=True).fetchone()[0],
                         vals)
        self.conn.execute("DROP TABLE IF EXISTS pg3_minhash")
        self.conn.execute("CREATE TABLE pg3_minhash (id int, sig minhash, sigs minhash[])")
        pg3_copy_in(self.conn, "pg3_minhash", [(i, v, [v, v]) for i, v in enumerate(vals)],
                    ["int4", "minhash", "minhash[]"])
        # the server's reading of the bytes
        text = self.conn.execute("SELECT id, sig::text, minhash_send(sig) FROM pg3_minhash "
                                 "ORDER BY id").fetchall()
        assert_same(self, [(i, t, None if r is None else bytes(r)) for i, t, r in text],
                    [(i, None if v is None else v.hex(), None if v is None else bytes(v))
                     for i, v in enumerate(vals)])
        back = pg3_copy_out(self.conn, "SELECT id, sig, sigs FROM pg3_minhash ORDER BY id",
                            ["int4", "minhash", "minhash[]"])
        assert_same(self, back, [(i, v, [v, v]) for i, v in enumerate(vals)])
        # and as text
        self.conn.execute("TRUNCATE pg3_minhash")
        pg3_copy_in(self.conn, "pg3_minhash (id, sig)", enumerate(vals))
        back = pg3_copy_out(self.conn, "SELECT id, sig FROM pg3_minhash ORDER BY id",
                            ["int4", "minhash"], binary=False)
        assert_same(self, back, list(enumerate(vals)))

    def test_unregistered_connection_and_errors(self):
        psycopg = self.psycopg
        from simhash_pg.psycopg import register_minhash
        with psycopg.connect(dbname=DBNAME, autocommit=True) as plain:
            v = values(1)[-1]
            self.assertEqual(plain.execute("SELECT %s::minhash", [v.hex()]).fetchone()[0], v.hex())
            raw = plain.execute("SELECT %s::minhash", [v.hex()], binary=True).fetchone()[0]
            self.assertEqual(MinHash.from_bytes(raw), v)
            with self.assertRaises(psycopg.ProgrammingError):
                plain.execute("SELECT %s", [v])
            with self.assertRaisesRegex(psycopg.ProgrammingError, "1.10 or later for minhash"):
                register_minhash(plain, name="no_such_type")
        info = psycopg.types.TypeInfo.fetch(self.conn, "public.minhash")
        self.assertEqual((info.oid, info.array_oid), (self.info.oid, self.info.array_oid))

    def test_async_connection(self):
        import asyncio
        from simhash_pg.psycopg import register_minhash_async

        async def fetch():
            aconn = await self.psycopg.AsyncConnection.connect(dbname=DBNAME, autocommit=True)
            async with aconn:
                await register_minhash_async(aconn)
                cur = await aconn.execute("SELECT to_minhash(%s), to_minhash(%s)::text",
                                          [TEXTS[0]] * 2, binary=True)
                return await cur.fetchone()
        m, text = asyncio.run(fetch())
        self.assertEqual(m, MinHash(text))


@unittest.skipIf(NO_PSYCOPG2, NO_PSYCOPG2)
class Psycopg2MinhashTest(unittest.TestCase):
    SIGNATURE = b"PGCOPY\n\xff\r\n\x00"

    @classmethod
    def setUpClass(cls):
        import psycopg2
        from simhash_pg.psycopg2 import register_minhash
        cls.psycopg2 = psycopg2
        cls.conn = psycopg2.connect(dbname=DBNAME)
        cls.conn.autocommit = True
        cls.oids = register_minhash(cls.conn)

    @classmethod
    def tearDownClass(cls):
        cls.conn.close()

    def test_literals_and_casters(self):
        cur = self.conn.cursor()
        v = MinHash("0123456789abcdef" * 16)
        self.assertEqual(cur.mogrify("%s", (v,)), ("'%s'::minhash" % v.hex()).encode("ascii"))
        self.assertEqual(cur.mogrify("%s", ([v, None],)),
                         ("ARRAY['%s'::minhash,NULL]" % v.hex()).encode("ascii"))
        for v in values():
            cur.execute("SELECT %s, %s::text, minhash_send(%s), pg_typeof(%s)::text", (v,) * 4)
            got = cur.fetchone()
            self.assertEqual((got[0], got[1], bytes(got[2]), got[3]),
                             (v, v.hex(), v.to_bytes(), "minhash"))
        vals = values(5) + [None]
        cur.execute("SELECT %s", (vals,))
        self.assertEqual(cur.fetchone()[0], vals)
        for t in TEXTS:
            cur.execute("SELECT to_minhash(%s), to_minhash(%s)::text, minhash_ngram(%s, 2), "
                        "minhash_jaccard(to_minhash(%s), minhash_ngram(%s, 2))", (t,) * 5)
            m, text, ngram, j = cur.fetchone()
            self.assertIs(type(m), MinHash)
            self.assertEqual(m.hex(), text)
            self.assertEqual(j, m.jaccard(ngram))
        a, b = values(2)[-2:]
        cur.execute("SELECT minhash_jaccard(%s, %s)", (a, b))
        self.assertEqual(cur.fetchone()[0], a.jaccard(b))

    def test_binary_and_text_copy(self):
        vals = values(300) + [None]
        cur = self.conn.cursor()
        cur.execute("DROP TABLE IF EXISTS pg2_minhash")
        cur.execute("CREATE TABLE pg2_minhash (id bigint, sig minhash)")
        out = [self.SIGNATURE, struct.pack("!ii", 0, 0)]
        for i, v in enumerate(vals):
            out.append(struct.pack("!hiq", 2, 8, i))
            out.append(struct.pack("!i", -1) if v is None else struct.pack("!i", 128) + v.to_bytes())
        out.append(struct.pack("!h", -1))
        cur.copy_expert("COPY pg2_minhash FROM STDIN (FORMAT BINARY)", io.BytesIO(b"".join(out)))
        cur.execute("SELECT id, sig::text FROM pg2_minhash ORDER BY id")
        assert_same(self, cur.fetchall(),
                    [(i, None if v is None else v.hex()) for i, v in enumerate(vals)])
        buf = io.BytesIO()
        cur.copy_expert("COPY (SELECT id, sig FROM pg2_minhash ORDER BY id) TO STDOUT (FORMAT BINARY)",
                        buf)
        data = buf.getvalue()
        self.assertEqual(data[:11], self.SIGNATURE)
        pos, rows = 19 + struct.unpack_from("!i", data, 15)[0], []
        while struct.unpack_from("!h", data, pos)[0] != -1:
            i = struct.unpack_from("!q", data, pos + 6)[0]
            (n,) = struct.unpack_from("!i", data, pos + 14)
            pos += 18
            if n == -1:
                rows.append((i, None))
            else:
                self.assertEqual(n, 128)        # minhash_send: exactly 128 bytes
                rows.append((i, MinHash.from_bytes(data[pos:pos + n])))
                pos += n
        self.assertEqual(pos + 2, len(data))
        assert_same(self, rows, list(enumerate(vals)))
        text = "".join("%d\t%s\n" % (i, "\\N" if v is None else v) for i, v in enumerate(vals))
        cur.execute("TRUNCATE pg2_minhash")
        cur.copy_expert("COPY pg2_minhash FROM STDIN", io.StringIO(text))
        buf = io.StringIO()
        cur.copy_expert("COPY pg2_minhash TO STDOUT", buf)
        self.assertEqual(buf.getvalue(), text)
        cur.execute("SELECT id, sig FROM pg2_minhash ORDER BY id")
        assert_same(self, cur.fetchall(), list(enumerate(vals)))

    def test_unknown_type_name(self):
        from simhash_pg.psycopg2 import register_minhash
        with self.assertRaisesRegex(self.psycopg2.ProgrammingError, "1.10 or later for minhash"):
            register_minhash(self.conn, name="no_such_type")
        self.assertEqual(register_minhash(self.conn.cursor(), name="public.minhash"), self.oids)


@unittest.skipIf(NO_SQLALCHEMY, NO_SQLALCHEMY)
class SQLAlchemyMinhashTest(SQLAlchemyTable, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from simhash_pg.sqlalchemy import MinhashType
        import sqlalchemy as sa
        cls.create_table("sa_minhash", ("body", sa.Text), ("sig", MinhashType))
        cls.rows = dict(enumerate(values(60), 1))
        with cls.engine.begin() as conn:
            conn.execute(cls.table.insert(), [
                # a value, its hex text or its bytes: the type converts them
                {"id": i, "sig": (v, v.hex(), v.to_bytes())[i % 3]}
                for i, v in cls.rows.items()])
            # computed on the server at insert time
            conn.execute(cls.table.insert().values([
                {"id": 1000 + k, "body": t, "sig": sa.func.to_minhash(t)}
                for k, t in enumerate(TEXTS)]))

    def test_select_and_jaccard(self):
        sa, t = self.sa, self.table
        with self.engine.connect() as conn:
            got = {r.id: r.sig for r in conn.execute(sa.select(t).where(t.c.id < 1000))}
            self.assertEqual(got, self.rows)
            stored = dict(conn.execute(sa.text("SELECT id, sig::text FROM sa_minhash WHERE id < 1000")).all())
            self.assertEqual(stored, {i: v.hex() for i, v in self.rows.items()})
            q = self.rows[7]
            est = dict(conn.execute(sa.select(t.c.id, t.c.sig.jaccard(q))).all())
            self.assertEqual({i: est[i] for i in self.rows}, {i: v.jaccard(q) for i, v in self.rows.items()})
            self.assertEqual(est[7], 1.0)
            made = dict(conn.execute(sa.select(t.c.body, t.c.sig).where(t.c.id >= 1000)).all())
            self.assertEqual(sorted(made), sorted(TEXTS))
            for body, sig in made.items():
                text = conn.execute(sa.text("SELECT to_minhash(:t)::text"), {"t": body}).scalar()
                self.assertEqual(sig, MinHash(text))

    def test_compiled_sql(self):
        sa, t = self.sa, self.table
        q = self.rows[3]
        stmt = sa.select(t.c.id).where(t.c.sig.jaccard(q) >= 0.8)
        self.assertIn("minhash_jaccard(sa_minhash.sig, CAST(%(param_1)s AS minhash)) >= %(minhash_jaccard_1)s",
                      str(stmt.compile(dialect=self.engine.dialect)))
        literal = str(stmt.compile(dialect=self.engine.dialect, compile_kwargs={"literal_binds": True}))
        self.assertIn("CAST('%s' AS minhash)" % q.hex(), literal)

    def test_functions_are_typed(self):
        sa = self.sa
        f = sa.func
        a, b = self.rows[1], self.rows[2]
        with self.engine.connect() as conn:
            row = conn.execute(sa.select(
                f.to_minhash(TEXTS[0]), f.minhash_ngram(TEXTS[0], 4), f.minhash_shingle(TEXTS[0]),
                f.to_minhash(["x", "y", "x"]), f.minhash_jaccard(a, b.hex()),
                f.simhash_jaccard(TEXTS[0], TEXTS[1]),
                f.to_simhash_binary(TEXTS[0]), f.simhash128_ngram_binary(TEXTS[0], 2),
                f.simhash256_shingle_binary(TEXTS[0]))).one()
            texts = conn.execute(sa.text(
                "SELECT to_minhash(:t)::text, minhash_ngram(:t, 4)::text, minhash_shingle(:t)::text, "
                "to_minhash(ARRAY['x', 'y', 'x'])::text, simhash_jaccard(:t, :u), "
                "to_simhash_binary(:t)::text, simhash128_ngram_binary(:t, 2)::text, "
                "simhash256_shingle_binary(:t)::text"), {"t": TEXTS[0], "u": TEXTS[1]}).one()
        self.assertEqual([type(v) for v in row],
                         [MinHash] * 4 + [float, float, Simhash, Simhash128, Simhash256])
        self.assertEqual([str(v) for v in row[:4]], list(texts[:4]))
        self.assertEqual(row[4], a.jaccard(b))
        self.assertEqual(row[5], texts[4])
        self.assertEqual([v.hex() for v in row[6:]], list(texts[5:]))

    def test_reflection(self):
        from simhash_pg.sqlalchemy import MinhashType
        t = self.sa.Table("sa_minhash", self.sa.MetaData(), autoload_with=self.engine)
        self.assertIsInstance(t.c.sig.type, MinhashType)

    def test_with_psycopg2_adapter_registered(self):
        # the driver's caster makes MinHash before MinhashType sees it
        from simhash_pg.psycopg2 import register_minhash
        sa, t = self.sa, self.table
        engine = sa.create_engine(self.engine.url, future=True)
        sa.event.listen(engine, "connect", lambda dbapi_conn, rec: register_minhash(dbapi_conn))
        try:
            with engine.connect() as conn:
                got = {r.id: r.sig for r in conn.execute(sa.select(t).where(t.c.id < 1000))}
                self.assertEqual(got, self.rows)
                raw = conn.execute(sa.text("SELECT sig FROM sa_minhash WHERE id = 1")).scalar()
                self.assertIs(type(raw), MinHash)
        finally:
            engine.dispose()


if __name__ == "__main__":
    unittest.main()
