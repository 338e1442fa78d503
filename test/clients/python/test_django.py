"""Django (psycopg2): simhash_pg.django's SimhashField at 64, 128 and 256
bits in a model migrated by `migrate` (the migration of
simhash_django_app, which makemigrations must find up to date), values
saved and loaded as the fingerprint classes, the __within and __similar
lookups and the HammingDistance and Similarity expressions against plain
SQL and the Python distances, and the threshold helpers."""

import os
import random
import unittest

from simhash_pg import Simhash, Simhash128, Simhash256
from common import assert_same, missing_driver

SKIP_REASON = missing_driver("Django with psycopg2", "python3-django python3-psycopg2",
                             "django", "psycopg2", "simhash_pg.django")

RNG = random.Random(4040)
CLASSES = {"fp": Simhash, "fp128": Simhash128, "fp256": Simhash256}
N = 3000


def setUpModule():
    os.environ["DJANGO_SETTINGS_MODULE"] = "django_settings"
    import django
    from django.core.management import call_command
    django.setup()
    call_command("migrate", "simhash_django_app", verbosity=0)


def sql(query, params=()):
    from django.db import connection
    with connection.cursor() as cur:
        cur.execute(query, params)
        return cur.fetchall() if cur.description else None


class DjangoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from simhash_django_app.models import Doc
        cls.Doc = Doc
        Doc.objects.all().delete()
        cls.centers = {f: c(RNG.getrandbits(c.WIDTH)) for f, c in CLASSES.items()}
        docs = []
        for i in range(N):
            kw = {f: c(RNG.getrandbits(c.WIDTH)) for f, c in CLASSES.items()}
            if i % 10 < 4:          # near the centre: 0..i%10*W/64+1 bits flipped
                for f, c in CLASSES.items():
                    w = c.WIDTH
                    kw[f] = cls.centers[f].flip(*RNG.sample(range(w), (i % 7) * w // 64 + i % 3))
            if i % 50 == 0:
                kw["fp128"] = None
            if i % 3 == 0:          # some given as hex text, as a form would
                kw["fp256"] = kw["fp256"].hex()
            docs.append(Doc(body="doc %d" % i, **kw))
        Doc.objects.bulk_create(docs, batch_size=500)
        cls.rows = {d.id: d for d in Doc.objects.all()}

    def test_migration_made_the_columns_and_indexes(self):
        from django.core.management import call_command
        types = dict(sql("SELECT column_name, udt_name FROM information_schema.columns "
                         "WHERE table_name = 'simhash_django_app_doc'"))
        self.assertEqual((types["fp"], types["fp128"], types["fp256"]),
                         ("simhash", "simhash128", "simhash256"))
        idx = dict(sql("SELECT i.relname::text, a.amname || ' ' || o.opcname::text "
                       "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
                       "JOIN pg_opclass o ON o.oid = x.indclass[0] JOIN pg_am a ON a.oid = o.opcmethod "
                       "WHERE x.indrelid = 'simhash_django_app_doc'::regclass AND NOT x.indisprimary"))
        self.assertEqual(idx, {"doc_fp_gin": "gin simhash_gin_ops", "doc_fp128_gin": "gin simhash128_gin_ops",
                               "doc_fp256_gin": "gin simhash256_gin_ops",
                               "doc_fp256_gist": "gist simhash256_gist_ops"})
        # the models and the migration agree: bits survives deconstruct()
        call_command("makemigrations", "simhash_django_app", check=True, dry_run=True, verbosity=0)

    def test_field_deconstruct_and_checks(self):
        from simhash_pg.django import SimhashField
        self.assertEqual(SimhashField(bits=256).deconstruct()[3], {"bits": 256})
        self.assertEqual(SimhashField().deconstruct()[3], {})
        with self.assertRaises(ValueError):
            SimhashField(bits=96)

    def test_values_load_as_the_classes(self):
        self.assertEqual(len(self.rows), N)
        for d in self.rows.values():
            for f, c in CLASSES.items():
                v = getattr(d, f)
                self.assertTrue(v is None and f == "fp128" or type(v) is c, (f, v))
        # the server holds the same bits: its text form
        text = dict(sql("SELECT id, fp256::text FROM simhash_django_app_doc"))
        self.assertEqual(text, {i: d.fp256.hex() for i, d in self.rows.items()})
        # with the psycopg2 casters on Django's connection the values are
        # the same (the tests after this one run with them too)
        from django.db import connection
        from simhash_pg.psycopg2 import register_simhash, register_simhash128, register_simhash256
        connection.ensure_connection()
        for register in (register_simhash, register_simhash128, register_simhash256):
            register(connection.connection)
        self.assertEqual(type(sql("SELECT fp128 FROM simhash_django_app_doc WHERE fp128 IS NOT NULL LIMIT 1")[0][0]), Simhash128)
        again = {d.id: d for d in self.Doc.objects.all()}
        for f in CLASSES:
            self.assertEqual({i: getattr(d, f) for i, d in again.items()},
                             {i: getattr(d, f) for i, d in self.rows.items()}, f)

    def test_save_exact_and_validation(self):
        from django.core.exceptions import ValidationError
        Doc = self.Doc
        v = Simhash128(RNG.getrandbits(128))
        d = Doc.objects.create(body="one", fp="F3A90C1E00B2D47F", fp128=v, fp256=bytes(32))
        d.refresh_from_db()
        self.assertEqual((d.fp, d.fp128, d.fp256), (Simhash("f3a90c1e00b2d47f"), v, Simhash256(0)))
        self.assertEqual(list(Doc.objects.filter(fp128=v).values_list("id", flat=True)), [d.id])
        self.assertEqual(list(Doc.objects.filter(fp128__in=[v.hex(), v.flip(1)]).values_list("id", flat=True)),
                         [d.id])
        field = Doc._meta.get_field("fp128")
        with self.assertRaises(ValidationError):
            field.clean("not hex", d)
        with self.assertRaises(TypeError):      # a width mismatch, before any query
            Doc.objects.filter(fp128=Simhash(1))
        d.delete()

    def check_within(self, f, q, k):
        Doc = self.Doc
        t = CLASSES[f]._TYPE
        got = sorted(Doc.objects.filter(**{f + "__within": (q, k)}).values_list("id", flat=True))
        plain = sorted(r[0] for r in sql(
            "SELECT id FROM simhash_django_app_doc WHERE %s <-> %%s::%s <= %%s" % (f, t), (q.hex(), k)))
        want = sorted(i for i, d in self.rows.items()
                      if getattr(d, f) is not None and getattr(d, f).hamming(q) <= k)
        assert_same(self, got, want, "%s__within=(q, %d)" % (f, k))
        assert_same(self, plain, want, "plain SQL %s <-> q <= %d" % (f, k))
        return got

    def test_within_lookup(self):
        for f, c in CLASSES.items():
            w = c.WIDTH
            q = self.centers[f].flip(0)
            sizes = [len(self.check_within(f, q, k)) for k in (0, 1, w // 16, w // 8, w // 4)]
            self.assertTrue(sizes[-1] > sizes[0] and sizes[-1] < N, (f, sizes))
            # hex text as the query, and an expression radius
            from django.db.models import Value
            n = self.Doc.objects.filter(**{f + "__within": (q.hex(), Value(w // 8))}).count()
            self.assertEqual(n, sizes[3])

    def test_lookups_use_the_index(self):
        """Both lookups are index conditions (sequential scans off, so the
        plan does not depend on the statistics)."""
        from django.db import transaction
        for f, c in CLASSES.items():
            for lookup, rhs in (("__within", (self.centers[f], 3)), ("__similar", self.centers[f])):
                with transaction.atomic():
                    sql("SET LOCAL enable_seqscan = off")
                    plan = self.Doc.objects.filter(**{f + lookup: rhs}).explain()
                self.assertIn("doc_%s_gin" % f, plan, lookup)

    def test_similar_lookup(self):
        from simhash_pg.django import similarity_threshold
        from django.db import connection
        for f, c in CLASSES.items():
            q = self.centers[f].flip(1, 2)
            for s in (0.99, 0.95, 0.9, 0.8):
                with similarity_threshold(s):
                    got = sorted(self.Doc.objects.filter(**{f + "__similar": q}).values_list("id", flat=True))
                    plain = sorted(r[0] for r in sql(
                        "SELECT id FROM simhash_django_app_doc WHERE %s %%%% %%s::%s" % (f, c._TYPE), (q.hex(),)))
                    shown = sql("SHOW simhash.similarity_threshold")[0][0]
                want = sorted(i for i, d in self.rows.items()
                              if getattr(d, f) is not None and getattr(d, f).similarity(q) >= s)
                self.assertEqual(float(shown), s)
                assert_same(self, got, want, "%s__similar at %s" % (f, s))
                assert_same(self, plain, want, "plain SQL %s %% q at %s" % (f, s))
                self.assertTrue(0 < len(want) < N, (f, s, len(want)))
        self.assertFalse(connection.in_atomic_block)
        self.assertEqual(sql("SHOW simhash.similarity_threshold")[0][0], "0.9")

    def test_threshold_helpers(self):
        from django.db import transaction
        from simhash_pg.django import set_similarity_threshold, similarity_threshold
        show = lambda: sql("SHOW simhash.similarity_threshold")[0][0]
        # nested in a transaction: the former value comes back at the end of the block
        with transaction.atomic():
            with similarity_threshold(0.5):
                self.assertEqual(show(), "0.5")
            self.assertEqual(show(), "0.9")
        # an exception in the block rolls the setting back with it
        with self.assertRaises(ZeroDivisionError):
            with similarity_threshold(0.6):
                1 / 0
        self.assertEqual(show(), "0.9")
        with self.assertRaises(ValueError):
            with similarity_threshold(1.5):
                pass
        set_similarity_threshold(0.7)
        try:
            self.assertEqual(show(), "0.7")
            q = self.centers["fp"]
            n = self.Doc.objects.filter(fp__similar=q).count()
            self.assertEqual(n, sum(1 for d in self.rows.values() if d.fp.similarity(q) >= 0.7))
        finally:
            sql("RESET simhash.similarity_threshold")

    def test_similar_ordered_by_similarity(self):
        """pg_trgm's idiom: WHERE fp % q ORDER BY similarity DESC."""
        from django.db.models import F
        from simhash_pg.django import Similarity
        for f, c in CLASSES.items():
            q = self.centers[f].flip(3)
            rows = list(self.Doc.objects.filter(**{f + "__similar": q})
                        .annotate(s=Similarity(f, q)).order_by(F("s").desc(), "id")
                        .values_list("id", "s"))
            want = sorted(((i, getattr(d, f).similarity(q)) for i, d in self.rows.items()
                           if getattr(d, f) is not None and getattr(d, f).similarity(q) >= 0.9),
                          key=lambda r: (-r[1], r[0]))
            self.assertEqual(rows, want)      # the server's doubles equal Python's
            self.assertTrue(rows)

    def test_nearest_neighbours(self):
        from simhash_pg.django import HammingDistance
        for f, c in CLASSES.items():
            q = c(RNG.getrandbits(c.WIDTH))
            got = list(self.Doc.objects.exclude(**{f: None}).annotate(d=HammingDistance(f, q))
                       .order_by("d", "id").values_list("id", "d")[:10])
            plain = sql("SELECT id, {0} <-> %s::{1} FROM simhash_django_app_doc WHERE {0} IS NOT NULL "
                        "ORDER BY {0} <-> %s::{1}, id LIMIT 10".format(f, c._TYPE), (q.hex(), q.hex()))
            want = sorted(((i, getattr(d, f).hamming(q)) for i, d in self.rows.items()
                           if getattr(d, f) is not None), key=lambda r: (r[1], r[0]))[:10]
            self.assertEqual(got, want)
            self.assertEqual([tuple(r) for r in plain], want)
            # both operands as expressions: a column against itself
            self.assertEqual(set(self.Doc.objects.annotate(d=HammingDistance(f, f))
                                 .exclude(**{f: None}).values_list("d", flat=True)), {0})
