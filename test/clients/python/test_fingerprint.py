"""simhash_pg.fingerprint against the server: the pure-Python to_simhash,
simhash_ngram, simhash_shingle and the *_features rows must equal the
server's, bit for bit, on texts far wider than the crosscheck alphabet
(every plane-0 code point class, long runs of combining marks, Hangul
jamo, CJK) and on real text from /usr/share/doc, at 64, 128 and 256 bits;
and the pinned values of test/crosscheck/wide_vectors.json.  Talks to the
server with psql (hex-encoded UTF-8 through COPY), so it needs no driver."""

import glob
import json
import os
import random
import subprocess
import tempfile
import unittest

from common import DBNAME

try:
    import xxhash  # noqa: F401
    from simhash_pg import fingerprint as F
    SKIP_REASON = None
except ImportError as e:            # pragma: no cover
    SKIP_REASON = "no xxhash module (Debian: apt-get install python3-xxhash): %s" % e

VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "..", "crosscheck", "wide_vectors.json")
WIDE = [c for c in range(0x20, 0x30000) if not 0xD800 <= c <= 0xDFFF]
MARKS = list(range(0x300, 0x370)) + list(range(0x1DC0, 0x1E00)) + [0x5B0, 0x5B9, 0x64B, 0x93C, 0x94D, 0x3099]
JAMO = list(range(0x1100, 0x1113)) + list(range(0x1161, 0x1176)) + list(range(0x11A8, 0x11C3))
CJK = list(range(0x4E00, 0x4F00)) + list(range(0x3041, 0x3097)) + list(range(0x30A1, 0x30FB)) + list(range(0xAC00, 0xAD00))
ASCII = list(range(0x20, 0x7F)) + [0x20] * 20


FIXED = ["", "a", "The quick brown fox jumps over the lazy dog.",
         "\uff28\uff25\uff2c\uff2c\uff2f\u3000\uff57\uff4f\uff52\uff4c\uff44",
         "e" + "\u0301" * 40 + "\u0323" * 3 + "x", "\u1100\u1161\u11a8 \uac01"]


def gen_text(rng):
    parts = []
    for _ in range(rng.randint(0, 12)):
        kind = rng.random()
        pool = ASCII if kind < 0.35 else WIDE if kind < 0.55 else CJK if kind < 0.75 \
            else JAMO if kind < 0.85 else MARKS
        n = rng.randint(1, 45 if pool is MARKS else 20)
        parts.append("".join(chr(rng.choice(pool)) for _ in range(n)))
    return "".join(parts)


def real_texts(limit=120):
    out = []
    for path in sorted(glob.glob("/usr/share/doc/*/copyright"))[:limit]:
        try:
            with open(path, encoding="utf-8") as fh:
                out.append(fh.read())
        except (OSError, UnicodeDecodeError):
            pass
    return out


def corpus(count=1500, real=True):
    """The texts of these tests: FIXED, count random texts (the same ones
    for every caller: a generator of its own, seed 20261124) and, if real,
    real_texts().  test_minhash uses them too."""
    rng = random.Random(20261124)
    return FIXED + [gen_text(rng) for _ in range(count)] + (real_texts() if real else [])


def server(texts, select, names=("t",)):
    """One row per text: select evaluated over t, as text (NULL as '').
    With more names, each item of texts is a tuple of texts of those
    names (test_minhash's pairs a, b)."""
    rows = [(t,) for t in texts] if len(names) == 1 else texts
    with tempfile.TemporaryDirectory(prefix="simhash-pyfp.") as d:
        os.chmod(d, 0o755)
        path = os.path.join(d, "t.csv")
        with open(path, "w", encoding="ascii") as fh:
            for i, row in enumerate(rows):
                fh.write(",".join([str(i)] + [t.encode("utf-8").hex() or '""' for t in row]) + "\n")
        os.chmod(path, 0o644)
        sql = ("CREATE TEMP TABLE t (i int, %s);\n"
               "\\copy t FROM '%s' WITH (FORMAT csv)\n"
               "\\copy (SELECT i, %s FROM (SELECT i, %s FROM t) s "
               "ORDER BY i) TO STDOUT WITH (FORMAT csv)\n"
               % (", ".join("h%d text" % k for k in range(len(names))), path, select,
                  ", ".join("convert_from(decode(h%d, 'hex'), 'UTF8') AS %s" % (k, n)
                            for k, n in enumerate(names))))
        p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", DBNAME],
                           input=sql, capture_output=True, text=True,
                           env=dict(os.environ, PGCLIENTENCODING="UTF8"))
        if p.returncode != 0:
            raise AssertionError("psql failed: " + p.stderr)
        # CSV: an empty string comes back quoted; nothing else here needs quotes
        return ["" if v == '""' else v for v in (line.split(",", 1)[1] for line in p.stdout.splitlines())]


class FingerprintTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.texts = corpus()

    def compare(self, name, client, select):
        got = server(self.texts, select)
        self.assertEqual(len(got), len(self.texts))
        bad = [(i, client(t), g) for i, (t, g) in enumerate(zip(self.texts, got)) if client(t) != g]
        self.assertEqual(bad[:3], [], "%s: %d of %d texts differ" % (name, len(bad), len(self.texts)))

    def test_pinned(self):
        self.assertEqual(F.to_simhash("The quick brown fox jumps over the lazy dog.").hex(), "8212868318d29267")
        self.assertEqual(F.to_simhash("Hello World"), F.to_simhash("\uff28\uff25\uff2c\uff2c\uff2f\u3000\uff57\uff4f\uff52\uff4c\uff44"))
        self.assertEqual(F.to_simhash("").hex(), "0000000000000000")

    def test_to_simhash(self):
        self.compare("to_simhash", lambda t: F.to_simhash(t).hex(), "to_simhash(t)")

    def test_simhash_ngram(self):
        self.compare("simhash_ngram(t, 3)", lambda t: F.simhash_ngram(t).hex(), "simhash_ngram(t)")
        self.compare("simhash_ngram(t, 1)", lambda t: F.simhash_ngram(t, 1).hex(), "simhash_ngram(t, 1)")
        self.compare("simhash_ngram(t, 5)", lambda t: F.simhash_ngram(t, 5).hex(), "simhash_ngram(t, 5)")

    def test_simhash_shingle(self):
        self.compare("simhash_shingle(t, 3)", lambda t: F.simhash_shingle(t).hex(), "simhash_shingle(t)")
        self.compare("simhash_shingle(t, 1)", lambda t: F.simhash_shingle(t, 1).hex(), "simhash_shingle(t, 1)")

    def test_features(self):
        # the rows, weights printed exactly: float8 output and Python's repr
        # are both the shortest text that reads back the same double
        # (PostgreSQL writes 1 where Python writes 1.0)
        def exact(w):
            r = repr(w)
            return r[:-2] if r.endswith(".0") else r

        def rows(fs):
            return " ".join("%s/%d/%s" % (f.encode("utf-8").hex(), tf, exact(w)) for f, tf, w in fs)
        self.compare("simhash_features", lambda t: rows(F.features(t)),
                     "(SELECT coalesce(string_agg(format('%s/%s/%s', encode(convert_to(feature, 'UTF8'), 'hex'), "
                     "tf, weight), ' ' ORDER BY n), '') FROM simhash_features(t) "
                     "WITH ORDINALITY AS f(feature, tf, weight, n))")

    def test_wide_vectors(self):
        # pinned by the crosscheck's reference; the server is checked there
        with open(VECTORS, encoding="ascii") as fh:
            vectors = json.load(fh)
        self.assertGreater(len(vectors), 50)
        for v in vectors:
            args = [v["text"]] + ([] if v["n"] is None else [v["n"]])
            self.assertEqual(getattr(F, v["fn"])(*args).hex(), v["hex"], v)

    def test_wide_prefixes(self):
        for t in self.texts[:300]:
            a, b, c = F.to_simhash(t), F.to_simhash128(t), F.to_simhash256(t)
            self.assertEqual(c.prefix(128), b)
            self.assertEqual(b.prefix(64), a)

    def test_wide(self):
        for w in (128, 256):
            to, ngram, shingle = (getattr(F, name % w) for name in
                                  ("to_simhash%d", "simhash%d_ngram", "simhash%d_shingle"))
            self.compare("to_simhash%d" % w, lambda t: to(t).hex(), "to_simhash%d(t)" % w)
            self.compare("simhash%d_ngram(t, 4)" % w, lambda t: ngram(t, 4).hex(),
                         "simhash%d_ngram(t, 4)" % w)
            self.compare("simhash%d_shingle(t)" % w, lambda t: shingle(t).hex(),
                         "simhash%d_shingle(t)" % w)

    def test_bad_n(self):
        for fn in (F.simhash_ngram, F.simhash_shingle, F.simhash256_ngram, F.simhash128_shingle):
            for n in (0, 65, -1):
                with self.assertRaises(ValueError):
                    fn("abc", n)
