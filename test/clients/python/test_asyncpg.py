"""asyncpg: simhash_pg.asyncpg's codecs for simhash, simhash128 and
simhash256, in binary and in text format: parameters and results round
trip, arrays, binary COPY, a radius query and the % operator against the
Python distances, similarities equal to Python's, a pool's init."""

import asyncio
import random
import unittest

from simhash_pg import Simhash, Simhash128, Simhash256
from common import DBNAME, assert_same, missing_driver

SKIP_REASON = missing_driver("asyncpg", "python3-asyncpg", "asyncpg", "simhash_pg.asyncpg")

RNG = random.Random(4041)
CLASSES = (Simhash, Simhash128, Simhash256)


def values(cls, n=30):
    w = cls.WIDTH
    return [cls(0), cls((1 << w) - 1), cls(1 << (w - 1)), cls(1)] + \
        [cls(RNG.getrandbits(w)) for _ in range(n)]


def run(coro):
    return asyncio.run(coro)


async def connect(binary=True):
    import asyncpg
    from simhash_pg.asyncpg import register_simhash
    conn = await asyncpg.connect(database=DBNAME)
    await register_simhash(conn, binary=binary)
    return conn


class AsyncpgTest(unittest.TestCase):
    def test_round_trips(self):
        import asyncpg

        async def go(binary):
            conn = await connect(binary)
            try:
                for cls in CLASSES:
                    t = cls._TYPE
                    for v in values(cls):
                        for param in (v, v.hex(), v.hex().upper(), bytes(v)):
                            row = await conn.fetchrow(
                                "SELECT $1::%s AS v, $1::%s::text AS t, $1::%s::bytea AS b" % (t, t, t), param)
                            self.assertEqual((type(row["v"]), row["v"], row["t"], row["b"]),
                                             (cls, v, v.hex(), bytes(v)), (binary, t, param))
                    vals = values(cls, 50) + [None]
                    self.assertEqual(await conn.fetchval("SELECT $1::%s[]" % t, vals), vals)
                    self.assertIsNone(await conn.fetchval("SELECT NULL::%s" % t))
                    # a wrong width: refused in the client (asyncpg wraps the TypeError)
                    with self.assertRaises(asyncpg.exceptions.DataError):
                        await conn.fetchval("SELECT $1::%s" % t, Simhash128(5) if cls is not Simhash128 else Simhash(5))
            finally:
                await conn.close()
        for binary in (True, False):
            run(go(binary))

    def test_queries_match_python(self):
        async def go():
            conn = await connect()
            try:
                for cls in CLASSES:
                    w, t = cls.WIDTH, cls._TYPE
                    table = "apg_%d" % w
                    await conn.execute("DROP TABLE IF EXISTS %s" % table)
                    await conn.execute("CREATE TABLE %s (id int PRIMARY KEY, fp %s)" % (table, t))
                    center = cls(RNG.getrandbits(w))
                    rows = {}
                    for i in range(2000):
                        rows[i] = center.flip(*RNG.sample(range(w), i % (w // 4))) if i % 3 else \
                            cls(RNG.getrandbits(w))
                    # binary COPY: the codec's bytes
                    await conn.copy_records_to_table(table, records=list(rows.items()))
                    await conn.execute("CREATE INDEX ON %s USING gin (fp %s_gin_ops)" % (table, t))
                    back = dict(await conn.fetch("SELECT id, fp FROM %s" % table))
                    assert_same(self, back, rows, "%s read back" % t)
                    q = center.flip(0, 1)
                    for k in (2, w // 16, w // 8):
                        got = sorted(r["id"] for r in await conn.fetch(
                            "SELECT id FROM %s WHERE fp <-> $1 <= $2" % table, q, k))
                        want = sorted(i for i, fp in rows.items() if fp.hamming(q) <= k)
                        assert_same(self, got, want, "%s <-> q <= %d" % (t, k))
                        self.assertTrue(want)
                    for s in (0.99, 0.9, 0.8):
                        async with conn.transaction():
                            await conn.execute("SELECT set_config('simhash.similarity_threshold', $1, true)", str(s))
                            got = await conn.fetch(
                                "SELECT id, simhash_similarity(fp, $1) AS s FROM %s WHERE fp %% $1 "
                                "ORDER BY s DESC, id" % table, q)
                        want = sorted(((i, fp.similarity(q)) for i, fp in rows.items() if fp.similarity(q) >= s),
                                      key=lambda r: (-r[1], r[0]))
                        # the server's doubles equal Python's
                        assert_same(self, [tuple(r) for r in got], want, "%s %% q at %s" % (t, s))
                        self.assertTrue(want)
                    await conn.execute("DROP TABLE %s" % table)
            finally:
                await conn.close()
        run(go())

    def test_pool_init_and_errors(self):
        async def go():
            import asyncpg
            from simhash_pg.asyncpg import register_simhash
            async with asyncpg.create_pool(database=DBNAME, min_size=2, max_size=2,
                                           init=register_simhash) as pool:
                got = await asyncio.gather(*[pool.fetchval("SELECT to_simhash256($1)", "text %d" % i)
                                             for i in range(6)])
                self.assertTrue(all(type(v) is Simhash256 for v in got))
            conn = await asyncpg.connect(database=DBNAME)
            try:
                await conn.execute("CREATE SCHEMA IF NOT EXISTS apg_empty")
                with self.assertRaises(ValueError):
                    await register_simhash(conn, widths=(64, 96))
                # the types looked up in another schema: not there
                with self.assertRaises(ValueError):
                    await register_simhash(conn, schema="apg_empty")
                self.assertEqual(await register_simhash(conn, widths=(128,)), "public")
                v, plain = await conn.fetchrow("SELECT to_simhash128('x'), to_simhash('x')")
                self.assertEqual((type(v), type(plain)), (Simhash128, str))
                await conn.execute("DROP SCHEMA apg_empty")
            finally:
                await conn.close()
        run(go())
