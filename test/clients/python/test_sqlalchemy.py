"""SQLAlchemy (ORM, psycopg2 driver) against the simhash extension through
simhash_pg.sqlalchemy: DDL and reflection of SimhashType, session inserts
(Simhash, hex text, the bigint cast, to_simhash on the server) and
selects, `Doc.fp.hamming(q) <= k` compiled to the indexable form and run
with the GIN index (plans from auto_explain of the very statements the
session sent), answers equal to a sequential scan and to Python, nearest
neighbours through GiST, and func.* calls of the extension's functions."""

import logging
import random
import unittest

from simhash_pg import Simhash
from common import (DBNAME, ROWS, docs_fill_sql, expected, missing_driver,
                    planted, queries, uses_index, uses_knn)

# psycopg2: the driver SQLAlchemy uses here
SKIP_REASON = missing_driver("SQLAlchemy with psycopg2", "python3-sqlalchemy python3-psycopg2",
                             "sqlalchemy", "sqlalchemy.orm", "simhash_pg.sqlalchemy", "psycopg2")

T = "docs_sa"

if not SKIP_REASON:
    import sqlalchemy as sa
    from sqlalchemy import (BigInteger, Column, Index, Text, cast, func,
                            select, text)
    from sqlalchemy.orm import Session, declarative_base
    from simhash_pg.sqlalchemy import SimhashType

    Base = declarative_base()

    class Doc(Base):
        __tablename__ = T
        id = Column(BigInteger, primary_key=True)
        body = Column(Text)
        fp = Column(SimhashType)
        __table_args__ = (
            Index("docs_sa_fp_gin", "fp", postgresql_using="gin",
                  postgresql_ops={"fp": "simhash_gin_ops"}),
            Index("docs_sa_fp_gist", "fp", postgresql_using="gist",
                  postgresql_ops={"fp": "simhash_gist_ops"}),
        )


class PlanLog(logging.Handler):
    """The psycopg2 dialect passes the server's NOTICEs to the logger
    "sqlalchemy.dialects.postgresql" at INFO: auto_explain's plans of the
    statements the session sent arrive here."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.plans = []
        logger = logging.getLogger("sqlalchemy.dialects.postgresql")
        logger.setLevel(logging.INFO)
        logger.propagate = False
        logger.addHandler(self)

    def emit(self, record):
        msg = record.getMessage()
        if "plan:" in msg:
            self.plans.append(msg)


PLANS = PlanLog()


def explained(conn):
    """Enable auto_explain NOTICEs on this session's connection."""
    conn.execute(text("LOAD 'auto_explain'"))
    conn.execute(text("SET auto_explain.log_min_duration = 0"))
    conn.execute(text("SET auto_explain.log_level = notice"))
    del PLANS.plans[:]


class SQLAlchemyTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        url = sa.engine.URL.create("postgresql+psycopg2", database=DBNAME)
        cls.engine = sa.create_engine(url, future=True)
        Base.metadata.drop_all(cls.engine)
        Base.metadata.create_all(cls.engine)        # DDL from SimhashType, Index
        with cls.engine.begin() as conn:
            for stmt in docs_fill_sql(T):
                conn.execute(text(stmt))
        with Session(cls.engine) as session:
            center = cls.center = session.get(Doc, 1).fp
            cls.planted = planted(center)
            for i, (fp, how) in cls.planted.items():
                if how in ("hex", "HEX"):
                    value = fp.hex() if how == "hex" else fp.hex().upper()
                elif how == "bigint":
                    value = cast(cast(fp.to_signed(), BigInteger), SimhashType())
                else:
                    value = fp                          # a Simhash
                session.add(Doc(id=i, body=how, fp=value))
            # computed on the server at flush time
            session.add(Doc(id=400001, body="made by the server",
                            fp=func.to_simhash("made by the server")))
            session.commit()
        with cls.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE %s" % T))
        with Session(cls.engine) as session:
            cls.rows = {d.id: d.fp for d in session.scalars(select(Doc))}

    @classmethod
    def tearDownClass(cls):
        cls.engine.dispose()

    def ids_and_plan(self, stmt):
        """Run stmt in a session; its ids and the plan auto_explain logged."""
        with Session(self.engine) as session:
            explained(session.connection())
            ids = sorted(session.scalars(stmt))
            plans = list(PLANS.plans)
            session.rollback()
        self.assertEqual(len(plans), 1, plans)
        return ids, plans[0]

    def seqscan_ids(self, stmt):
        with Session(self.engine) as session:
            session.execute(text("SET LOCAL enable_bitmapscan = off"))
            session.execute(text("SET LOCAL enable_indexscan = off"))
            explained(session.connection())
            ids = sorted(session.scalars(stmt))
            self.assertTrue(any("Seq Scan" in n for n in PLANS.plans), PLANS.plans)
            session.rollback()
        return ids

    # --- the type -------------------------------------------------------------

    def test_01_ddl_and_reflection(self):
        with self.engine.connect() as conn:
            coltype = conn.execute(text(
                "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
                "WHERE attrelid = 'docs_sa'::regclass AND attname = 'fp'")).scalar()
            self.assertEqual(coltype, "simhash")
            opclasses = dict(conn.execute(text(
                "SELECT c.relname, a.amname || ' ' || o.opcname FROM pg_index i "
                "JOIN pg_class c ON c.oid = i.indexrelid "
                "JOIN pg_am a ON a.oid = c.relam "
                "JOIN pg_opclass o ON o.oid = i.indclass[0] "
                "WHERE i.indrelid = 'docs_sa'::regclass")).all())
            self.assertEqual(opclasses["docs_sa_fp_gin"], "gin simhash_gin_ops")
            self.assertEqual(opclasses["docs_sa_fp_gist"], "gist simhash_gist_ops")
        reflected = sa.Table(T, sa.MetaData(), autoload_with=self.engine)
        self.assertIsInstance(reflected.c.fp.type, SimhashType)

    def test_02_session_values_stored_exactly(self):
        self.assertEqual(len(self.rows), ROWS + 5 + len(self.planted) + 1)
        with self.engine.connect() as conn:
            stored = dict(conn.execute(text(
                "SELECT id, fp::text FROM docs_sa WHERE id >= 100000")).all())
            made = conn.execute(text(
                "SELECT fp = to_simhash('made by the server') FROM docs_sa "
                "WHERE id = 400001")).scalar()
        self.assertIs(made, True)
        for i, (fp, how) in self.planted.items():
            self.assertEqual(stored[i], fp.hex(), how)
            self.assertEqual(self.rows[i], fp, how)
        self.assertTrue(all(type(v) is Simhash for v in self.rows.values() if v is not None))

    def test_03_orm_update_and_get(self):
        new = Simhash((1 << 64) - 2)
        with Session(self.engine) as session:
            doc = session.get(Doc, 90001)
            self.assertIsNone(doc.fp)
            doc.fp = new
            session.flush()
            self.assertEqual(session.execute(
                text("SELECT fp::bigint FROM docs_sa WHERE id = 90001")).scalar(), -2)
            session.expire_all()
            self.assertEqual(session.get(Doc, 90001).fp, new)
            found = session.scalars(select(Doc.id).where(Doc.fp == new)).all()
            self.assertEqual(found, [90001])
            session.rollback()

    # --- radius queries -------------------------------------------------------

    def test_10_compiled_sql_is_the_indexable_form(self):
        q = self.center
        stmt = select(Doc).where(Doc.fp.hamming(q) <= 3)
        compiled = stmt.compile(dialect=self.engine.dialect)
        self.assertIn("WHERE docs_sa.fp <-> CAST(%(fp_1)s AS simhash) <= %(param_1)s",
                      str(compiled))
        self.assertEqual(compiled.params, {"fp_1": q, "param_1": 3})
        literal = str(stmt.compile(dialect=self.engine.dialect,
                                   compile_kwargs={"literal_binds": True}))
        self.assertIn("docs_sa.fp <-> CAST('%s' AS simhash) <= 3" % q.hex(), literal)
        within = str(select(Doc.id).where(func.simhash_within(Doc.fp, q, 3))
                     .compile(dialect=self.engine.dialect))
        self.assertIn("simhash_within(docs_sa.fp, CAST(%(param_1)s AS simhash), "
                      "%(simhash_within_1)s)", within)
        knn = str(select(Doc.id).order_by(Doc.fp.hamming(q)).limit(10)
                  .compile(dialect=self.engine.dialect))
        self.assertIn("ORDER BY docs_sa.fp <-> CAST(%(fp_1)s AS simhash)", knn)

    def test_11_radius_uses_gin_and_matches(self):
        q = self.center
        stmt = select(Doc.id).where(Doc.fp.hamming(q) <= 3)
        ids, plan = self.ids_and_plan(stmt)
        self.assertTrue(uses_index(plan, T), plan)
        self.assertIn("<-> CAST('%s' AS simhash) <= 3" % q.hex(), plan)   # as sent
        self.assertEqual(ids, [i for i, _ in expected(self.rows, q, 3)])
        self.assertEqual(ids, self.seqscan_ids(stmt))
        near = {i for i, (fp, _) in self.planted.items() if fp.hamming(q) <= 3}
        self.assertTrue(near | {1} <= set(ids))

    def test_12_orm_entities_by_radius(self):
        checked = nonempty = 0
        with Session(self.engine) as session:
            for q in queries(self.rows, 8) + [self.center]:
                for k in range(0, 5):
                    docs = session.scalars(
                        select(Doc).where(Doc.fp.hamming(q) <= k).order_by(Doc.id)).all()
                    got = [(d.id, d.fp.hamming(q)) for d in docs]
                    self.assertEqual(got, expected(self.rows, q, k), (q, k))
                    checked += 1
                    nonempty += bool(got)
        self.assertGreater(nonempty, checked // 2)

    def test_13_every_spelling_uses_gin(self):
        q = self.center.flip(40)
        forms = {
            "hamming <= k": Doc.fp.hamming(q) <= 3,
            "hamming < k": Doc.fp.hamming(q) < 4,
            "within()": Doc.fp.within(q, 3),
            "in_ball()": Doc.fp.in_ball(q, 3),
            "func.simhash_within": func.simhash_within(Doc.fp, q, 3),
            "func.simhash_within hex": func.simhash_within(Doc.fp, q.hex(), 3),
            "func.hamming_distance": func.hamming_distance(Doc.fp, q) <= 3,
        }
        want = [i for i, _ in expected(self.rows, q, 3)]
        self.assertTrue(want)
        exactly = [i for i, d in expected(self.rows, q, 3) if d == 3]
        self.assertTrue(exactly)
        forms["hamming == k"] = Doc.fp.hamming(q) == 3
        for name, cond in forms.items():
            if name == "hamming == k":
                want = exactly
            stmt = select(Doc.id).where(cond)
            ids, plan = self.ids_and_plan(stmt)
            if name == "in_ball()":
                # an explicit <@ is costed normally (doc/indexes.md): GIN or GiST
                self.assertIn("Index Cond: (fp <@ ", plan)
                self.assertNotIn("Seq Scan", plan)
            else:
                self.assertTrue(uses_index(plan, T), "%s\n%s" % (name, plan))
            self.assertEqual(ids, want, name)
            self.assertEqual(ids, self.seqscan_ids(stmt), name)

    def test_14_nearest_neighbours_gist(self):
        for q in queries(self.rows, 4):
            d = Doc.fp.hamming(q)
            stmt = select(Doc.id, d.label("d")).order_by(d).limit(10)
            with Session(self.engine) as session:
                explained(session.connection())
                got = session.execute(stmt).all()
                plan = "".join(PLANS.plans)
            self.assertTrue(uses_knn(plan, T), plan)
            dists = sorted(fp.hamming(q) for fp in self.rows.values() if fp is not None)
            self.assertEqual([r.d for r in got], dists[:10])
            self.assertTrue(all(self.rows[r.id].hamming(q) == r.d for r in got))
            self.assertTrue(all(type(r.d) is int for r in got))

    # --- func.* ---------------------------------------------------------------

    def test_20_functions(self):
        q = self.center
        other = Simhash(random.Random(5).getrandbits(64))
        with Session(self.engine) as session:
            fp = session.scalar(select(func.to_simhash("hello world")))
            self.assertEqual(fp, Simhash("94456805082048bc"))    # doc/contract.md vector
            self.assertIs(type(fp), Simhash)
            self.assertIs(type(session.scalar(select(func.simhash_ngram("hello", 2)))), Simhash)
            self.assertIs(type(session.scalar(select(func.simhash_shingle("a b c d", 2)))), Simhash)
            self.assertEqual(session.scalar(select(func.hamming_distance(q, other))),
                             q.hamming(other))
            self.assertEqual([session.scalar(select(func.simhash_segment(q, i)))
                              for i in range(4)], list(q.segments()))
            self.assertIs(session.scalar(select(func.simhash_within(q, q.flip(1, 2), 2))), True)
            self.assertIs(session.scalar(select(func.simhash_within(q, q.flip(1, 2), 1))), False)
            agg = session.scalar(select(func.simhash_agg(Doc.body)).where(Doc.id <= 3))
            self.assertIs(type(agg), Simhash)
            self.assertEqual(agg.hex(), session.scalar(text(
                "SELECT to_simhash(array_agg(body))::text FROM docs_sa WHERE id <= 3")))
            # a fingerprint computed in SQL used as the query of a radius search
            ids = session.scalars(select(Doc.id).where(
                Doc.fp.hamming(func.to_simhash(Doc.body)) == 0).where(Doc.id <= 50)).all()
            self.assertEqual(sorted(ids), list(range(1, 51)))

    def test_21_with_psycopg2_adapter_registered(self):
        # the driver's own casters make Simhash before SimhashType sees it
        from simhash_pg.psycopg2 import register_simhash
        engine = sa.create_engine(self.engine.url, future=True)
        sa.event.listen(engine, "connect", lambda dbapi_conn, rec: register_simhash(dbapi_conn))
        try:
            with Session(engine) as session:
                got = session.scalars(select(Doc).where(Doc.fp.hamming(self.center) <= 3)
                                      .order_by(Doc.id)).all()
                self.assertEqual([(d.id, d.fp) for d in got],
                                 [(i, self.rows[i]) for i, _ in expected(self.rows, self.center, 3)])
                raw = session.execute(text("SELECT fp FROM docs_sa WHERE id = 1")).scalar()
                self.assertIs(type(raw), Simhash)
        finally:
            engine.dispose()


if __name__ == "__main__":
    unittest.main()
