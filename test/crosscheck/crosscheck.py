"""
crosscheck.py -- compares the simhash extension with the Python reference
(simhash_ref.py) on random and edge-case inputs.  Started by
test/crosscheck/run, which creates the database (PGDATABASE) and drops it.

Every input travels to the server as hex-encoded UTF-8 in CSV files loaded
with psql's \\copy, and is decoded by SQL (convert_from(decode(x, 'hex'))),
so no quoting layer (SQL literals, array literals, psql variables, COPY
escapes) can alter it.  Each fingerprint is computed in SQL by a fixed query
per entry point, one case at a time inside an exception block, so a case
that raises an error yields "ERROR <sqlstate>" instead of stopping the run.

Every fingerprint entry point is checked at each width: the 64-bit group
(e.g. "ngram") and its wide forms ("ngram@128" for simhash128_ngram,
"ngram@256"), on the same inputs.  The wide types' own operations (casts,
order, distance, similarity, radius) have groups of their own, and
wide_vectors.json pins a few texts' fingerprints (also checked by the
Python client's tests).

Counting: every single comparison is one check -- one fingerprint of one
input by one entry point against the reference, or one consistency check
between two entry points (array form = aggregate, dense = sparse, word 0
of a wide fingerprint = the 64-bit one) -- and
the last line is "N passed, N failed", counting groups (an entry point or a
consistency property, each over every generated input); the line before it
counts the individual checks.

Environment: SIMHASH_CROSSCHECK_SEED (default 20240501) fixes the random
inputs; SIMHASH_CROSSCHECK_SCALE (default 1.0) multiplies the numbers of
random cases.
"""
import json
import math
import os
import random
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import simhash_ref as ref  # noqa: E402
# the pure-Python client (simhash_ref puts clients/python on the path), which
# must give the server's fingerprints bit for bit
from simhash_pg import fingerprint as client  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = int(os.environ.get("SIMHASH_CROSSCHECK_SEED", "20240501"))
WIDTHS = ref.WIDTHS
WIDE = (128, 256)
SCALE = float(os.environ.get("SIMHASH_CROSSCHECK_SCALE", "1.0"))
rng = random.Random(SEED)


def scaled(n):
    return max(1, int(n * SCALE))


# ================================================================ alphabet
#
# Only characters for which simhash_ref's approximation of toNFKC_Casefold
# and of the character classes is exact (assigned before Unicode 14, with
# stable normalisation and case folding).

def crange(lo, hi, skip=()):
    return [chr(c) for c in range(lo, hi + 1) if c not in skip]


ASCII_LETTERS = crange(0x41, 0x5A) + crange(0x61, 0x7A)
DIGITS = crange(0x30, 0x39)
LATIN1 = crange(0xC0, 0xFF, skip=(0xD7, 0xF7)) + ["\u00AA", "\u00BA", "\u00B5"]
LATIN_EXT = list("ĀāĂăĄąĆćČčĎďĒēĘěĞğĠġĦħĪīİıĶķĹĺŁłŃńŇňŉŊŋŌōŐőŒœŔřŚśŞşŠšŢţ"
                 "ŤťŦŧŨũŪūŮůŰűŲųŴŵŶŷŸŹźŻżŽžſǅǆǈǉǋǌǰǱǲǳȘșȚțẞ")
GREEK = list("ΑΒΓΔΕΘΛΠΣΩαβγδεθλπσςωάέήίόύώΐΰ")
CYRILLIC = list("АБВГДЕЖЗИЙКЛМНОПЯабвгдежзийклмнопяЁё")
OTHER_DIGITS = list("٠١٢٣٤٥۴۵०१२३")
FULLWIDTH_ALNUM = crange(0xFF10, 0xFF19) + crange(0xFF21, 0xFF3A) + crange(0xFF41, 0xFF5A)
FULLWIDTH_PUNCT = crange(0xFF01, 0xFF0F) + crange(0xFF1A, 0xFF20) + crange(0xFF3B, 0xFF40) \
    + crange(0xFF5B, 0xFF5E)
LIGATURES = ["\uFB00", "\uFB01", "\uFB02", "\uFB03", "\uFB04", "\uFB05", "\uFB06",
             "\u0132", "\u0133", "\u0153", "\u0152", "\u00E6", "\u00C6"]
COMBINING = ["\u0300", "\u0301", "\u0302", "\u0303", "\u0304", "\u0306", "\u0307",
             "\u0308", "\u030A", "\u030C", "\u0323", "\u0327", "\u0328", "\u031B",
             "\u0331"]
COMPAT = ["\u00A8", "\u00AF", "\u00B4", "\u00B8", "\u00B2", "\u00B3", "\u00B9",
          "\u00BC", "\u00BD", "\u00BE", "\u2026", "\u2025", "\u2116", "\u2122",
          "\u2103", "\u2109", "\u216B", "\u217B", "\u2460", "\u2473", "\u249C",
          "\u338F", "\u33C4", "\u337B", "\u3231", "\u3314", "\u309B", "\u309C",
          "\u210C", "\U0001D400", "\U0001D7D8", "\u2135", "\u2126", "\u212A",
          "\u212B", "\u2F00", "\u2F08", "\u2FD5", "\u3192", "\u32D0", "\u3280"]
HAN_COMMON = crange(0x4E00, 0x4EFF) + crange(0x5B57, 0x5B60) + crange(0x65E5, 0x65F0) \
    + crange(0x8A9E, 0x8AA9) + crange(0x4E2D, 0x4E2D)
HAN_RARE = crange(0x3400, 0x3420) + crange(0x9F90, 0x9FA5) + crange(0x20000, 0x20020) \
    + crange(0x2A6C0, 0x2A6D6) + crange(0xF900, 0xF920) + crange(0xFA0E, 0xFA2D) \
    + ["\u3005", "\u3006", "\u3007", "\u3021", "\u3029", "\u303B"]
HIRAGANA = crange(0x3041, 0x3096) + ["\u309D", "\u309E"]
KATAKANA = crange(0x30A1, 0x30FA) + ["\u30FC", "\u30FD", "\u30FE", "\u31F0", "\u31FF"]
HALFWIDTH_KANA = crange(0xFF66, 0xFF9D)
KANA_MARKS = ["\u3099", "\u309A", "\uFF9E", "\uFF9F"]
HANGUL_SYLLABLES = crange(0xAC00, 0xD7A3)
HANGUL_COMPAT_JAMO = crange(0x3131, 0x3163)
HANGUL_L = crange(0x1100, 0x1112)
HANGUL_V = crange(0x1161, 0x1175)
HANGUL_T = crange(0x11A8, 0x11C2)
HANGUL_HALFWIDTH = crange(0xFFA1, 0xFFBE) + crange(0xFFC2, 0xFFC7) + crange(0xFFCA, 0xFFCF) \
    + crange(0xFFD2, 0xFFD7) + crange(0xFFDA, 0xFFDC)
PUNCT = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + [
    "\u3001", "\u3002", "\u300C", "\u300D", "\u300E", "\u300F", "\u30FB", "\u3003",
    "\u301C", "\u2014", "\u2013", "\u2018", "\u2019", "\u201C", "\u201D", "\u00AB",
    "\u00BB", "\u00BF", "\u00A1", "\u00A7", "\u00B6", "\u00B0", "\u00B1", "\u00A9",
    "\u00AE", "\u20AC", "\u00A3", "\u00A5", "\U0001F600", "\U0001F389", "\u2764\uFE0F",
    "\u2603", "\u2192", "\u2211", "\u221A", "\x01", "\x1C", "\x1D", "\x1E", "\x1F",
    "\x7F", "\u0080", "\u009F"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\r\n", "\u3000", "\u00A0", "\u2003",
          "\u0085", "\u2028", "\u2029", "\u1680", "\u202F", "\x0B", "\x0C", " \t ",
          "\u205F", "\u2000"]
IGNORABLES = ["\u00AD", "\u200B", "\u200C", "\u200D", "\uFEFF", "\uFE0F", "\u2060",
              "\u034F", "\u3164", "\uFE00", "\u180B"]


def pick(seq):
    return rng.choice(seq)


def pick_by_draw(choices):
    """One draw of rng against the cumulative bounds of choices, a list of
    (bound, make): make() of the first bound above the draw, else of the
    last."""
    r = rng.random()
    for bound, make in choices:
        if r < bound:
            return make()
    return choices[-1][1]()


def with_marks(c):
    """Sometimes follow a letter with one to three combining marks."""
    if rng.random() < 0.15:
        return c + "".join(pick(COMBINING) for _ in range(rng.randint(1, 3)))
    return c


def maybe_ignorable(s):
    if len(s) > 1 and rng.random() < 0.08:
        i = rng.randint(1, len(s) - 1)
        return s[:i] + pick(IGNORABLES) + s[i:]
    return s


def gen_word():
    kind = rng.choices(
        ["ascii", "latin", "greek", "cyr", "digits", "fullwidth", "lig", "han",
         "ja", "ko", "jamo", "mixed", "compat"],
        weights=[30, 14, 4, 4, 6, 5, 4, 12, 9, 7, 3, 6, 4])[0]
    n = rng.randint(1, 9)
    if kind == "ascii":
        s = "".join(pick(ASCII_LETTERS) for _ in range(n))
        if rng.random() < 0.3:
            s = s.upper() if rng.random() < 0.5 else s.capitalize()
    elif kind == "latin":
        s = "".join(with_marks(pick(ASCII_LETTERS + LATIN1 + LATIN_EXT)) for _ in range(n))
    elif kind == "greek":
        s = "".join(with_marks(pick(GREEK)) for _ in range(n))
    elif kind == "cyr":
        s = "".join(pick(CYRILLIC) for _ in range(n))
    elif kind == "digits":
        s = "".join(pick(DIGITS + OTHER_DIGITS[:3]) for _ in range(n))
    elif kind == "fullwidth":
        s = "".join(pick(FULLWIDTH_ALNUM) for _ in range(n))
    elif kind == "lig":
        s = "".join(pick(ASCII_LETTERS + LIGATURES) for _ in range(n))
    elif kind == "han":
        s = "".join(pick(HAN_COMMON if rng.random() < 0.85 else HAN_RARE)
                    for _ in range(rng.randint(1, 6)))
    elif kind == "ja":
        kana = [(0.35, lambda: pick(HIRAGANA)), (0.6, lambda: pick(KATAKANA)),
                (0.75, lambda: pick(HAN_COMMON)), (0.92, lambda: pick(HALFWIDTH_KANA)),
                (1.0, lambda: pick(KANA_MARKS))]
        s = "".join(pick_by_draw(kana) for _ in range(rng.randint(1, 7)))
    elif kind == "ko":
        s = "".join(pick(HANGUL_SYLLABLES) for _ in range(rng.randint(1, 5)))
    elif kind == "jamo":
        jamo = [(0.4, lambda: (pick(HANGUL_L) + pick(HANGUL_V)
                               + (pick(HANGUL_T) if rng.random() < 0.5 else ""))),
                (0.8, lambda: pick(HANGUL_COMPAT_JAMO)), (1.0, lambda: pick(HANGUL_HALFWIDTH))]
        s = "".join(pick_by_draw(jamo) for _ in range(rng.randint(1, 4)))
    elif kind == "mixed":
        s = gen_word() + gen_word()
    else:
        s = pick(COMPAT) + (pick(ASCII_LETTERS) if rng.random() < 0.5 else "")
    return maybe_ignorable(s)


def gen_sep():
    return pick_by_draw([(0.12, lambda: ""), (0.7, lambda: pick(SPACES)),
                         (0.95, lambda: pick(PUNCT) + (pick(SPACES) if rng.random() < 0.6 else "")),
                         (1.0, lambda: pick(IGNORABLES))])


def gen_text(nwords=None):
    """Words from a small vocabulary (so features repeat), random separators."""
    vocab = [gen_word() for _ in range(rng.randint(1, 25))]
    if nwords is None:
        nwords = rng.choice([0, 1, 2, 3, 5, 8, 12, 20, 40, 80])
    parts = [gen_sep()] if rng.random() < 0.3 else []
    for _ in range(nwords):
        # skewed choice: low indices are frequent
        parts.append(vocab[int(len(vocab) * rng.random() ** 2)])
        parts.append(gen_sep())
    return "".join(parts)


EDGE_TEXTS = [
    "", " ", "   ", "\u3000", "\t\n\r", "\u00AD", "\u200B\uFEFF", "...", "!?", "\U0001F600",
    "a", "A", "1", "\u00E9", "e\u0301", "E\u0301", "\u0301", " \u0301 ", "\u00A8",
    "\u4E2D", "\u4E2D\u6587", "\u4E2D\u6587\u5B57", "\u4E2D\u4E2D\u4E2D\u4E2D",
    "a a a a", "a b a b a b", "the the the cat", "Hello, World! hello world HELLO",
    "\uFF28\uFF45\uFF4C\uFF4C\uFF4F \uFF37\uFF4F\uFF52\uFF4C\uFF44 hello world",
    "\uFB01ne \uFB02ow o\uFB03ce fine flow office", "\u00C9COLE \u00E9cole e\u0301cole",
    "Stra\u00DFe STRASSE strasse \u1E9E", "\u0130stanbul istanbul", "\u03A3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C2 \u03C3\u03AF\u03C3\u03C5\u03C6\u03BF\u03C3",
    "\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8\u3067\u3059\u3002",
    "\u6211\u7231\u5317\u4EAC\u5929\u5B89\u95E8\uFF0C\u5929\u5B89\u95E8\u4E0A\u592A\u9633\u5347\u3002",
    "\uD55C\uAD6D\uC5B4 \uD14D\uC2A4\uD2B8 \uD55C\uAD6D\uC5B4",
    "Hello\u4E16\u754C", "abc\u4E2Ddef\u6587ghi", "\u4E2D1\u6587", "\uFF76\uFF9E\uFF77\uFF9E \u30AC\u30AE",
    "\u3131\u314F \u1100\u1161 \u3131\u314F\u3133", "\u309B\u309C", "\u304B\u3099",
    "\u3005\u3005 \u3007 \u3006", "\u337B\u3231\u3314", "\u2460\u2461 \u216B \u2122 \u2103",
    "\u00BD \u00BC 3\u20444", "a\u200Bb a\u00ADb ab", "x\u034F\u0301", "o\u0323\u031B o\u031B\u0323",
    "\u1100\u1161\u11A8", "\u3164a\u3164", "\U00020000\U00020001\U00020002",
    "\uF900\uFA0E", "\u2F00\u2F08", "\x1c\x1d abc \x1e\x1f", "abc\x85def\u2028ghi\u2029jkl",
    "\u4E2D\u0301\u6587 \u304B\u0301 \uAC00\u302E\uAC01", "\u3099\u4E2D",
    "a" + "\u0301\u0323\u031B\u0327\u0308\u0328" * 4 + "b",
    "\u1680a\u1680", "a\u00A0b\u202Fc\u205Fd", "\u0661\u0662\u0663 \u0967\u0968",
    "ŉ ǅ ǰ ſ", "µ μ Μ", "\u212B \u00C5 A\u030A", "\u2126 \u03A9 \u03C9",
]


def long_texts():
    out = []
    for n in (600, 2500, 8000):
        out.append(gen_text(n))
    out.append(("lorem ipsum dolor sit amet " * 4000).strip())
    out.append("\u4E2D\u6587" * 5000)
    out.append("".join(pick(HAN_COMMON) for _ in range(20000)))
    out.append(("\u65E5\u672C\u8A9E\u306E\u6587\u7AE0 and English words, "
                "\uD55C\uAD6D\uC5B4 \uBB38\uC7A5. ") * 500)
    out.append("a" * 100000)
    out.append(" ".join(gen_word() for _ in range(5000)))
    return out


# ============================================================ case builder

class Cases:
    def __init__(self):
        self.next_cid = 1
        self.feat_rows = []       # (cid, ord, feature or None, weight or None)
        self.text_rows = []       # (cid, text, n or None)
        self.vec_rows = []        # (cid, ord, dim, value)
        self.ham_rows = []        # (cid, a, b)
        self.pair_rows = []       # (cid, width, a hex, b hex)
        self.radius_rows = []     # (cid, similarity, bits)
        self.vector_fns = []      # (cid, SQL function name) of wide_vectors.json
        self.offline = []         # (grp, cid, expected, got): checked in Python
        self.todo = []            # (cid, group)
        self.expected = {}        # (cid, group) -> "hex" | "NULL" | "ERROR x" | "ERROR *"
        self.describe = {}        # cid -> description of the input
        self.consistency = []     # (name, (cid, grp), (cid, grp), digits or None)

    def cid(self):
        c = self.next_cid
        self.next_cid += 1
        return c

    def expect(self, cid, grp, fn, width=64):
        """Case cid of group grp: fn() gives the width-bit fingerprint."""
        try:
            v = fn()
            exp = "NULL" if v is None else ref.hexfp(v, width)
        except ref.BadWeight:
            exp = "ERROR 22023"
        except (ref.SumOverflow, ref.BadInput):
            exp = "ERROR *"
        self.expect_text(cid, grp, exp)

    def expect_text(self, cid, grp, exp):
        """Case cid of group grp: the query's exact text result."""
        self.todo.append((cid, grp))
        self.expected[(cid, grp)] = exp

    def consistent(self, name, k1, k2, digits=None):
        """Results k1 and k2 agree; with digits, k1's first digits are k2."""
        self.consistency.append((name, k1, k2, digits))


def at(grp, width):
    """The group of an entry point at a width: "ngram", "ngram@128"."""
    return grp if width == 64 else "%s@%d" % (grp, width)


def fn_at(name, width):
    """The SQL name of a fingerprint function at a width: to_simhash128,
    simhash256_agg, ..."""
    if width == 64:
        return name
    return name.replace("simhash", "simhash%d" % width, 1)


# ------------------------------------------------------- features / weights

def gen_feature():
    r = rng.random()
    if r < 0.45:
        return "".join(pick(ASCII_LETTERS) for _ in range(rng.randint(1, 8)))
    if r < 0.75:
        return gen_word()
    if r < 0.9:
        return gen_text(rng.randint(1, 4))
    if r < 0.97:
        return pick(["", " ", "{", "}", "{}", "\"", "\\", "'", ",", "NULL", "null", "a,b",
                     "{a,b}", "\"quoted\"", "back\\slash", "it's", ":1", "\\.", "\n",
                     "\r\n", "\t", "e\u0301", "\u00E9", "x"])
    return gen_text(rng.randint(100, 400))


def gen_weights(k):
    kind = rng.choice(["one", "int", "frac", "gauss", "huge", "tiny", "cancel",
                       "zerosum", "mixed", "signed_zero", "dyadic"])
    if kind == "one":
        return kind, [1.0] * k
    if kind == "int":
        return kind, [float(rng.randint(-5, 5)) for _ in range(k)]
    if kind == "frac":
        return kind, [rng.uniform(-3, 3) for _ in range(k)]
    if kind == "gauss":
        return kind, [rng.gauss(0, 1) for _ in range(k)]
    if kind == "huge":
        return kind, [rng.choice([1e300, -1e300, 2.5e305, -7.1e306, 1e200, 3.0])
                      for _ in range(k)]
    if kind == "tiny":
        return kind, [rng.choice([5e-324, -5e-324, 1e-310, 2.2250738585072014e-308,
                                  1e-300, 1.0, -1.0]) for _ in range(k)]
    if kind == "cancel":
        return kind, [rng.choice([1e16, -1e16, 1.0, -1.0, 0.5, 9007199254740993.0,
                                  1e-8]) for _ in range(k)]
    if kind == "dyadic":
        return kind, [rng.randint(-64, 64) / 16.0 for _ in range(k)]
    if kind == "signed_zero":
        return kind, [rng.choice([0.0, -0.0]) for _ in range(k)]
    if kind == "zerosum":
        return kind, None         # handled by the caller
    return kind, [rng.choice([1.0, -2.5, 1e10, 3.14159, -1e-5, 0.0])
                  for _ in range(k)]


def add_feature_case(cs, feats, weights, desc, nulls=False):
    """One (feature, weight) list: arrays, aggregates, their consistency."""
    cid = cs.cid()
    for i, (f, w) in enumerate(zip(feats, weights)):
        cs.feat_rows.append((cid, i + 1, f, w))
    cs.describe[cid] = "%s features=%s weights=%s" % (desc, ascii(feats), weights)
    rows = list(zip(feats, weights))
    for w in WIDTHS:
        cs.expect(cid, at("agg_fw", w), lambda: ref.fp_agg(rows, True, w), w)
        cs.expect(cid, at("agg_f", w), lambda: ref.fp_agg(rows, False, w), w)
        if not nulls:
            cs.expect(cid, at("arr_fw", w), lambda: ref.fp_features(feats, weights, w), w)
            cs.expect(cid, at("arr_f", w), lambda: ref.fp_features(feats, None, w), w)
            if feats:
                cs.consistent("%s(f, w ORDER BY) = %s(f[], w[])" % (fn_at("simhash_agg", w), fn_at("to_simhash", w)),
                              (cid, at("agg_fw", w)), (cid, at("arr_fw", w)))
                cs.consistent("%s(f ORDER BY) = %s(f[])" % (fn_at("simhash_agg", w), fn_at("to_simhash", w)),
                              (cid, at("agg_f", w)), (cid, at("arr_f", w)))


def build_feature_cases(cs):
    MAX = 1.7976931348623157e308
    edge = [
        ([], [], "empty"),
        (["a"], [1.0], "single"),
        (["a"], [-1.0], "single negative"),
        (["a"], [0.0], "single zero weight"),
        (["a"], [-0.0], "single negative zero"),
        (["a"], [MAX], "single max double"),
        (["a"], [5e-324], "single denormal"),
        ([""], [1.0], "empty feature"),
        (["a", "a"], [1.0, 1.0], "repeated"),
        (["a", "a"], [1.0, -1.0], "exact cancel"),
        (["a", "b"], [2.0, 2.0], "ties where hashes differ"),
        (["a", "b", "a", "b"], [1.0, 1.0, -1.0, -1.0], "all sums zero"),
        (["a", "b", "c"], [1e16, 1.0, -1e16], "order-dependent rounding"),
        (["b", "a", "c"], [1.0, 1e16, -1e16], "order-dependent rounding, other order"),
        (["a", "b"], [MAX, MAX], "overflow"),
        (["a", "b"], [MAX, -MAX], "overflow or cancel"),
        (["a", "b"], [1.0, float("nan")], "NaN weight"),
        (["a", "b"], [float("inf"), 1.0], "infinite weight"),
        (["a"], [float("-inf")], "minus infinite weight"),
        (["e\u0301", "\u00E9"], [1.0, 1.0], "raw bytes, not normalised"),
        (["x" * 5000], [1.0], "long feature"),
        (["{a,b}", "\"", "\\", "NULL", "it's"], [1.0, 2.0, 3.0, 4.0, 5.0], "array-literal hazards"),
    ]
    for feats, weights, desc in edge:
        add_feature_case(cs, feats, weights, desc)
    for _ in range(scaled(380)):
        k = rng.choice([1, 1, 2, 3, 4, 5, 8, 13, 20, 40, 100, 250])
        vocab = [gen_feature() for _ in range(rng.randint(1, k))]
        feats = [vocab[int(len(vocab) * rng.random() ** 1.5)] for _ in range(k)]
        kind, weights = gen_weights(k)
        if weights is None:     # pairs (f, w), (f, -w), shuffled: every sum 0
            half = [(f, float(rng.randint(1, 9)) / 4.0) for f in feats[:max(1, k // 2)]]
            pairs = half + [(f, -w) for f, w in half]
            rng.shuffle(pairs)
            feats = [f for f, _ in pairs]
            weights = [w for _, w in pairs]
        add_feature_case(cs, feats, weights, "random(%s)" % kind)
    # aggregate-only cases with NULL features or weights (rows skipped)
    edge_null = [
        ([None], [1.0], "only a NULL feature"),
        (["a"], [None], "only a NULL weight"),
        ([None, "a", "b", None], [1.0, None, 2.0, 3.0], "NULLs mixed"),
    ]
    for feats, weights, desc in edge_null:
        add_feature_case(cs, feats, weights, desc, nulls=True)
    for _ in range(scaled(40)):
        k = rng.randint(1, 30)
        feats = [None if rng.random() < 0.2 else gen_feature() for _ in range(k)]
        weights = [None if rng.random() < 0.2 else rng.uniform(-2, 2) for _ in range(k)]
        add_feature_case(cs, feats, weights, "random with NULLs", nulls=True)


# ------------------------------------------------------------------- texts

NGRAM_SIZES = [1, 2, 3, 4, 5, 7, 16, 64]
SHINGLE_SIZES = [1, 2, 3, 4, 6, 64]


# the Python client's fingerprint of each kind of text entry point and width
CLIENT_FP = {
    ("text", 64): lambda text, n: client.to_simhash(text),
    ("ngram", 64): client.simhash_ngram, ("shingle", 64): client.simhash_shingle,
    ("text", 128): lambda text, n: client.to_simhash128(text),
    ("ngram", 128): client.simhash128_ngram, ("shingle", 128): client.simhash128_shingle,
    ("text", 256): lambda text, n: client.to_simhash256(text),
    ("ngram", 256): client.simhash256_ngram, ("shingle", 256): client.simhash256_shingle,
}


def expect_text(cs, cid, kind, text, n=3):
    """Case cid of text entry point kind ("text", "ngram", "shingle") at
    every width: the server's fingerprint, the same from the rows of its
    *_features function (both against the reference), and the Python
    client's own computation against the server; then the prefixes: word 0
    of each wide one is the 64-bit one, the first 128 bits of the 256-bit
    one the 128-bit one.  expect() calls each function at once."""
    feats = ref.text_features(kind, text, n)
    for w in WIDTHS:
        exp = ref.tf_fingerprint(feats, w)
        cs.expect(cid, at(kind, w), lambda: exp, w)
        cs.expect(cid, at(kind + "_feat", w), lambda: exp, w)
        cs.expect(cid, at("py_" + kind, w), lambda: CLIENT_FP[kind, w](text, n).value, w)
    for w, narrow in ((128, 64), (256, 64), (256, 128)):
        cs.consistent("%s is a prefix of %s" % (at(kind, narrow), at(kind, w)),
                      (cid, at(kind, w)), (cid, at(kind, narrow)), narrow // 4)


def add_text_case(cs, text, desc):
    cid = cs.cid()
    cs.text_rows.append((cid, text, None))
    cs.describe[cid] = "%s text=%s" % (desc, ascii(text))
    for kind in ("text", "ngram", "shingle"):
        expect_text(cs, cid, kind, text)
    # n-grams, then shingles, at a size picked from the list
    for kind, sizes in (("ngram", NGRAM_SIZES), ("shingle", SHINGLE_SIZES)):
        n = pick(sizes)
        cid_n = cs.cid()
        cs.text_rows.append((cid_n, text, n))
        cs.describe[cid_n] = "%s n=%d text=%s" % (desc, n, ascii(text))
        expect_text(cs, cid_n, kind, text, n)


def build_text_cases(cs):
    for t in EDGE_TEXTS:
        add_text_case(cs, t, "edge")
    for t in long_texts():
        add_text_case(cs, t, "long(%d chars)" % len(t))
    for _ in range(scaled(450)):
        add_text_case(cs, gen_text(), "random")


# ---------------------------------------------------------------- tsvector

def ts_quote(lex):
    return "'" + lex.replace("\\", "\\\\").replace("'", "''") + "'"


def tsvector_literal(entries):
    parts = []
    for lex, pos in entries:
        s = ts_quote(lex)
        if pos is not None:
            s += ":" + ",".join(str(p) + rng.choice(["", "", "A", "B", "C", "D"]) for p in pos)
        parts.append(s)
    return " ".join(parts)


def gen_lexeme():
    r = rng.random()
    if r < 0.5:
        return "".join(pick(ASCII_LETTERS).lower() for _ in range(rng.randint(1, 10)))
    if r < 0.85:
        return gen_word()
    return pick(["it's", "a\\b", "x y", "c:d", "'", "\\", "a'b'c", "\u00E9", "e\u0301",
                 "\u4E2D\u6587", "ﬁ"])


def add_tsvector_case(cs, entries, desc):
    cid = cs.cid()
    lit = tsvector_literal(entries)
    cs.text_rows.append((cid, lit, None))
    cs.describe[cid] = "%s tsvector=%s" % (desc, ascii(lit))
    for w in WIDTHS:
        cs.expect(cid, at("tsv", w), lambda: ref.fp_tsvector(entries, False, w), w)
        cs.expect(cid, at("tsv_strip", w), lambda: ref.fp_tsvector(entries, True, w), w)


def build_tsvector_cases(cs):
    edge = [
        ([], "empty"),
        ([("a", None)], "one stripped lexeme"),
        ([("a", [1])], "one lexeme one position"),
        ([("a", [1, 2, 3])], "three positions"),
        ([("a", [1, 2]), ("a", [2, 3])], "duplicate lexeme, shared position"),
        ([("b", None), ("b", [5])], "stripped and positioned duplicates"),
        ([("zeta", [1]), ("alpha", [2, 3]), ("beta", None)], "unsorted input"),
        ([("a", list(range(1, 257)))], "256 positions"),
        ([("a", list(range(1, 301)))], "300 positions (kept 256)"),
        ([("ab", [1]), ("a", [2]), ("abc", [3]), ("b", [4])], "prefix order"),
        ([("\u00E9", [1]), ("z", [2]), ("e\u0301", [3])], "byte order of UTF-8"),
    ]
    for entries, desc in edge:
        add_tsvector_case(cs, entries, desc)
    for _ in range(scaled(300)):
        entries = []
        vocab = [gen_lexeme() for _ in range(rng.randint(1, 20))]
        for _ in range(rng.randint(1, 30)):
            lex = pick(vocab)
            if rng.random() < 0.2:
                pos = None
            else:
                pos = rng.sample(range(1, 16384), rng.choice([1, 1, 2, 3, 5, 10, 40]))
            entries.append((lex, pos))
        add_tsvector_case(cs, entries, "random")


# ----------------------------------------------------------------- vectors

F4MAX = 3.4028234663852886e38


def gen_float4(kind):
    if kind == "normal":
        return ref.float4(rng.gauss(0, 1))
    if kind == "uniform":
        return ref.float4(rng.uniform(-1, 1))
    if kind == "int":
        return float(rng.randint(-3, 3))
    if kind == "huge":
        return ref.float4(rng.choice([F4MAX, -F4MAX, 1e38, -3e37, 1.0]))
    if kind == "tiny":
        return ref.float4(rng.choice([1e-45, -1e-45, 1.1754943508222875e-38, 1e-40,
                                      3e38, -3e38, 0.0]))
    if kind == "zero":
        return rng.choice([0.0, -0.0])
    return ref.float4(rng.uniform(-1000, 1000) * 10 ** rng.randint(-10, 10))


def add_vector_cases(cs, values, desc):
    """Dense vector case, and the same vector as a shuffled sparse one."""
    cid = cs.cid()
    for i, v in enumerate(values):
        cs.vec_rows.append((cid, i + 1, i + 1, v))
    cs.describe[cid] = "%s dense=%s" % (desc, values)
    for w in WIDTHS:
        cs.expect(cid, at("dense", w), lambda: ref.fp_dense(values, w), w)
    # the nonzero entries (and some zeros) as a sparse vector in random order
    entries = [(i + 1, v) for i, v in enumerate(values) if v != 0.0 or rng.random() < 0.3]
    rng.shuffle(entries)
    add_sparse_case(cs, [d for d, _ in entries], [v for _, v in entries],
                    desc + " as sparse", dense_cid=cid)


def add_sparse_case(cs, dims, values, desc, dense_cid=None):
    cid = cs.cid()
    for i, (d, v) in enumerate(zip(dims, values)):
        cs.vec_rows.append((cid, i + 1, d, v))
    cs.describe[cid] = "%s dims=%s values=%s" % (desc, dims, values)
    for w in WIDTHS:
        f = fn_at("to_simhash", w)
        cs.expect(cid, at("sparse", w), lambda: ref.fp_sparse(dims, values, w), w)
        if not dims or (max(dims) <= 5000 and min(dims) >= 1 and len(set(dims)) == len(dims)):
            dense = [0.0] * (max(dims) if dims else 0)
            for d, v in zip(dims, values):
                dense[d - 1] = v
            cs.expect(cid, at("dense_of_sparse", w), lambda: ref.fp_dense(dense, w), w)
            cs.consistent("%s(dense) = %s(sparse)" % (f, f),
                          (cid, at("sparse", w)), (cid, at("dense_of_sparse", w)))
        if dense_cid is not None:
            cs.consistent("%s(dense) = %s(sparse, shuffled)" % (f, f),
                          (cid, at("sparse", w)), (dense_cid, at("dense", w)))


def build_vector_cases(cs):
    edge = [
        ([], "empty"),
        ([1.0], "single"),
        ([-1.0], "single negative"),
        ([0.0], "single zero"),
        ([1.0, -1.0], "ties"),
        ([F4MAX] * 64, "max float4 x64"),
        ([3e38, 1e-45, -3e38], "order-dependent (dense order)"),
        ([1e-45, 3e38, -3e38], "order-dependent, other order"),
        ([ref.float4(0.1)] * 10, "0.1 as float4"),
    ]
    for values, desc in edge:
        add_vector_cases(cs, [ref.float4(v) for v in values], desc)
    for _ in range(scaled(350)):
        n = rng.choice([1, 2, 3, 5, 8, 16, 64, 100, 128, 300, 768, 1536])
        kind = rng.choice(["normal", "uniform", "int", "huge", "tiny", "zero", "wide"])
        if rng.random() < 0.3:
            values = [gen_float4(kind) if rng.random() < 0.2 else 0.0 for _ in range(n)]
        else:
            values = [gen_float4(kind) for _ in range(n)]
        add_vector_cases(cs, values, "random(%s, n=%d)" % (kind, n))
    # sparse with large or far apart dimensions (no dense twin)
    add_sparse_case(cs, [2147483647], [1.0], "largest dimension")
    add_sparse_case(cs, [2147483647, 1, 65536, 256], [1.0, -2.0, 0.5, 3.0], "far dimensions")
    add_sparse_case(cs, [3, 1, 2], [3e38, 1e-45, -3e38], "ascending order decides rounding")
    # errors: NaN or infinite values (22023 by contract), bad dimensions
    nan, inf = float("nan"), float("inf")
    for values, desc in [([1.0, nan], "NaN"), ([inf], "Infinity"), ([2.0, -inf, 1.0], "-Infinity")]:
        add_vector_cases(cs, values, desc)
    add_sparse_case(cs, [1, 2], [1.0, nan], "NaN value")
    add_sparse_case(cs, [0], [1.0], "dimension 0")
    add_sparse_case(cs, [3, -1], [1.0, 1.0], "negative dimension")
    add_sparse_case(cs, [2, 5, 2], [1.0, 1.0, 1.0], "repeated dimension")
    for _ in range(scaled(100)):
        k = rng.randint(1, 60)
        dims = rng.sample(range(1, 2147483648), k) if rng.random() < 0.5 else \
            rng.sample(range(1, 200), min(k, 199))
        values = [gen_float4(rng.choice(["normal", "wide", "huge", "tiny"])) for _ in dims]
        add_sparse_case(cs, dims, values, "random sparse")


# ----------------------------------------------------------------- hamming

def build_hamming_cases(cs):
    pairs = [(0, 0), (0, -1), (-1, -1), (-(1 << 63), (1 << 63) - 1), (1, 0),
             (-(1 << 63), 0), (0x5555555555555555, -0x5555555555555556)]
    for _ in range(scaled(500)):
        a = rng.getrandbits(64)
        r = rng.random()
        if r < 0.3:             # near pairs
            b = a
            for _ in range(rng.randint(0, 6)):
                b ^= 1 << rng.randrange(64)
        else:
            b = rng.getrandbits(64)
        pairs.append((ref.to_signed64(a), ref.to_signed64(b)))
    for a, b in pairs:
        cid = cs.cid()
        cs.ham_rows.append((cid, a, b))
        cs.describe[cid] = "hamming a=%d b=%d" % (a, b)
        d = ref.hamming(a, b)
        cs.todo.append((cid, "hamming"))
        cs.expected[(cid, "hamming")] = "%d %d %s %s" % (d, d, ref.hexfp(a), ref.hexfp(b))


# ------------------------------------------- pairs of fingerprints, radius

def f8hex(x):
    """A double as float8send gives it, hex: exact, whatever the text form."""
    return struct.pack(">d", x).hex()


def bits_text(v, width):
    """The bit(W) cast: hex order, first bit the top bit of word 0."""
    return format(v, "0%db" % width)


def add_pair_case(cs, width, a, b, upper_b):
    cid = cs.cid()
    ha, hb = ref.hexfp(a, width), ref.hexfp(b, width)
    cs.pair_rows.append((cid, width, ha, hb.upper() if upper_b else hb))
    cs.describe[cid] = "simhash%s a=%s b=%s" % ("" if width == 64 else width, ha, hb)
    d = ref.hamming(a, b, width)
    tf = lambda c: "t" if c else "f"    # noqa: E731 (boolean output)
    exp = "%d %d %s %s %s %s %s t" % (d, d, ha, hb, tf(a < b), tf(a == b), tf(a > b))
    cs.expect_text(cid, at("pair", width), exp + (" f" if d > 0 else ""))
    cs.expect_text(cid, at("aggs", width), " ".join(
        ref.hexfp(v, width) for v in (min(a, b), max(a, b), a | b, a & b)))
    cs.expect_text(cid, at("similarity", width), f8hex(ref.similarity(d, width)))
    fa, fb = client_class(width)(ha), client_class(width)(hb.upper())
    cs.expect_text(cid, at("py_pair", width), "%d %s %s" % (
        fa.hamming(fb), f8hex(fa.similarity(fb)), tf(fa < fb)))
    if width in WIDE:
        prefixes = [ref.hexfp(a >> (width - w), w) for w in WIDTHS if w < width]
        cs.expect_text(cid, at("casts", width), " ".join(
            [ha, ha, bits_text(a, width), "t", "t", "t", "t"] + prefixes))


def client_class(width):
    import simhash_pg
    return {64: simhash_pg.Simhash, 128: simhash_pg.Simhash128, 256: simhash_pg.Simhash256}[width]


def build_pair_cases(cs):
    for width in WIDTHS:
        ones = (1 << width) - 1
        top = 1 << (width - 1)
        alt = int("5" * (width // 4), 16)
        word1 = 1 << (width - 128) if width > 64 else 2
        edge = [(0, 0), (0, ones), (ones, ones), (top, top - 1), (1, 0), (top, 0),
                (alt, ones ^ alt), (word1, 0), (ones, ones ^ word1)]
        for a, b in edge:
            add_pair_case(cs, width, a, b, False)
        for i in range(scaled(300)):
            a = rng.getrandbits(width)
            if rng.random() < 0.3:      # near pairs
                b = a
                for _ in range(rng.randint(0, 8)):
                    b ^= 1 << rng.randrange(width)
            else:
                b = rng.getrandbits(width)
            add_pair_case(cs, width, a, b, i % 2 == 1)
        # text the type input refuses: wrong length, not hex digits
        n = width // 4
        for bad in ["", "0" * (n - 1), "0" * (n + 1), "g" + "0" * (n - 1), " " + "0" * (n - 1),
                    "0x" + "0" * (n - 2), "\\x" + "0" * (n - 3)]:
            if width in WIDE:
                cid = cs.cid()
                cs.pair_rows.append((cid, width, bad, "0" * n))
                cs.describe[cid] = "simhash%d input %r" % (width, bad)
                cs.expect_text(cid, at("badtext", width), "ERROR 22P02")


def add_radius_case(cs, sim, bits):
    cid = cs.cid()
    cs.radius_rows.append((cid, sim, bits))
    cs.describe[cid] = "simhash_radius(%r, %d)" % (sim, bits)
    k = ref.radius(sim, bits)
    cs.expect_text(cid, "radius", "ERROR *" if k is None else str(k))
    try:
        got = str(client_radius(sim, bits))
    except ValueError:
        got = "ERROR *"
    cs.expect_text(cid, "py_radius", got)


def client_radius(sim, bits):
    import simhash_pg
    return simhash_pg.radius(sim, bits)


def build_radius_cases(cs):
    for bits in WIDTHS:
        for sim in (-1.0, -0.5, 0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 0.999, 1.0):
            add_radius_case(cs, sim, bits)
        # the boundaries: exactly cos(pi k / bits), and the doubles beside it
        for _ in range(scaled(60)):
            k = rng.randint(0, bits)
            c = math.cos(math.pi * k / bits)
            for sim in (c, math.nextafter(c, 2.0), math.nextafter(c, -2.0)):
                if -1.0 <= sim <= 1.0:
                    add_radius_case(cs, sim, bits)
        for _ in range(scaled(40)):
            add_radius_case(cs, rng.uniform(-1.0, 1.0), bits)
        # no k at all: above 1 (or NaN)
        for sim in (math.nextafter(1.0, 2.0), 1.5, float("inf"), float("nan")):
            add_radius_case(cs, sim, bits)


# ------------------------------------------------------ pinned test vectors

VECTORS = os.path.join(HERE, "wide_vectors.json")


def build_vector_file_cases(cs):
    """wide_vectors.json: the server and (offline) the reference must give
    each pinned fingerprint."""
    with open(VECTORS, encoding="ascii") as fh:
        vectors = json.load(fh)
    for v in vectors:
        cid = cs.cid()
        cs.text_rows.append((cid, v["text"], v["n"]))
        cs.vector_fns.append((cid, v["fn"]))
        cs.describe[cid] = "%s(%s%s)" % (v["fn"], ascii(v["text"]),
                                         "" if v["n"] is None else ", %d" % v["n"])
        cs.expect_text(cid, "vectors", v["hex"])
        cs.offline.append(("vectors_ref", cid, v["hex"], vector_by_ref(v)))
    return vectors


def vector_by_ref(v):
    """The reference's value of one entry of wide_vectors.json."""
    fn = v["fn"]
    width = next((w for w in WIDE if "simhash%d" % w in fn), 64)
    kind = "ngram" if fn.endswith("_ngram") else "shingle" if fn.endswith("_shingle") else "text"
    n = 3 if v["n"] is None else v["n"]
    return ref.hexfp(ref.fp_of_text(kind, v["text"], n, width), width)


# ===================================================================== SQL

def fingerprint_queries(width):
    """The query of each fingerprint group at a width: the 64-bit ones, or
    the same with to_simhashW, simhashW_ngram, simhashW_agg ... ($1 = cid)."""
    to, agg = fn_at("to_simhash", width), fn_at("simhash_agg", width)
    ngram, shingle = fn_at("simhash_ngram", width), fn_at("simhash_shingle", width)
    feature_query = ("SELECT " + to + "(coalesce(array_agg(f.feature ORDER BY f.n), '{}'::text[]), "
                     "coalesce(array_agg(f.weight ORDER BY f.n), '{}'::float8[]))::text "
                     "FROM cc_text, %s WITH ORDINALITY AS f(feature, tf, weight, n) WHERE cid = $1")
    text_queries = {
        "text": "SELECT %s(t)::text FROM cc_text WHERE cid = $1" % to,
        "ngram": "SELECT (CASE WHEN n IS NULL THEN %s(t) ELSE %s(t, n) END)::text "
                 "FROM cc_text WHERE cid = $1" % (ngram, ngram),
        "shingle": "SELECT (CASE WHEN n IS NULL THEN %s(t) ELSE %s(t, n) END)::text "
                   "FROM cc_text WHERE cid = $1" % (shingle, shingle),
    }
    q = {
        "arr_f": "SELECT %s(coalesce(array_agg(f ORDER BY ord), '{}'::text[]))::text "
                 "FROM cc_feat WHERE cid = $1" % to,
        "arr_fw": "SELECT %s(coalesce(array_agg(f ORDER BY ord), '{}'::text[]), "
                  "coalesce(array_agg(w ORDER BY ord), '{}'::float8[]))::text "
                  "FROM cc_feat WHERE cid = $1" % to,
        "agg_f": "SELECT %s(f ORDER BY ord)::text FROM cc_feat WHERE cid = $1" % agg,
        "agg_fw": "SELECT %s(f, w ORDER BY ord)::text FROM cc_feat WHERE cid = $1" % agg,
        # to_simhash(features, weights) over the rows of simhash_features and
        # its n-gram and shingle forms, in row order
        "text_feat": feature_query % "simhash_features(t)",
        "ngram_feat": feature_query % "simhash_ngram_features(t, coalesce(n, 3))",
        "shingle_feat": feature_query % "simhash_shingle_features(t, coalesce(n, 3))",
        "tsv": "SELECT %s(t::tsvector)::text FROM cc_text WHERE cid = $1" % to,
        "tsv_strip": "SELECT %s(strip(t::tsvector))::text FROM cc_text WHERE cid = $1" % to,
        "dense": "SELECT %s(coalesce(array_agg(val ORDER BY dim), '{}'::real[]))::text "
                 "FROM cc_vec WHERE cid = $1" % to,
        "sparse": "SELECT %s(coalesce(array_agg(dim ORDER BY ord), '{}'::integer[]), "
                  "coalesce(array_agg(val ORDER BY ord), '{}'::real[]))::text FROM cc_vec WHERE cid = $1" % to,
        "dense_of_sparse": "SELECT %s(coalesce(array_agg(coalesce(v.val, 0) ORDER BY g), "
                           "'{}'::real[]))::text FROM generate_series(1, (SELECT coalesce(max(dim), 0) "
                           "FROM cc_vec WHERE cid = $1)) g LEFT JOIN cc_vec v ON v.cid = $1 AND v.dim = g" % to,
    }
    q.update(text_queries)
    # clients/python's fingerprints are compared with the server's
    q.update(("py_" + k, v) for k, v in text_queries.items())
    return {at(k, width): v for k, v in q.items()}


def pair_queries(width):
    """The groups of two fingerprints a, b of cc_pair (hex text) at a width."""
    typ = fn_at("simhash", width)
    pair = "FROM (SELECT a::%s AS x, b::%s AS y FROM cc_pair WHERE cid = $1) p" % (typ, typ)
    q = {
        "pair": "SELECT concat_ws(' ', hamming_distance(x, y), x <-> y, x, y, x < y, x = y, x > y, "
                "simhash_within(x, y, (x <-> y)::int), CASE WHEN (x <-> y)::int > 0 THEN "
                "simhash_within(x, y, (x <-> y)::int - 1) END) " + pair,
        "aggs": "SELECT concat_ws(' ', min(x), max(x), bit_or(x), bit_and(x)) FROM "
                "(SELECT a::%s AS x FROM cc_pair WHERE cid = $1 UNION ALL "
                "SELECT b::%s FROM cc_pair WHERE cid = $1) p" % (typ, typ),
        "similarity": "SELECT encode(float8send(simhash_similarity(x, y)), 'hex') " + pair,
        # clients/python's Simhash classes against the server
        "py_pair": "SELECT concat_ws(' ', x <-> y, encode(float8send(simhash_similarity(x, y)), 'hex'), "
                   "x < y) " + pair,
    }
    if width in WIDE:
        narrower = " ".join(", x::%s" % fn_at("simhash", w) for w in WIDTHS if w < width)
        q["casts"] = ("SELECT concat_ws(' ', x, encode(x::bytea, 'hex'), x::bit(%d), "
                      "x::bytea::%s = x, x::bit(%d)::%s = x, upper(x::text)::%s = x, "
                      "decode(a, 'hex')::%s = x%s) "
                      "FROM (SELECT a, a::%s AS x FROM cc_pair WHERE cid = $1) p"
                      % (width, typ, width, typ, typ, typ, narrower, typ))
        q["badtext"] = "SELECT a::%s::text FROM cc_pair WHERE cid = $1" % typ
    return {at(k, width): v for k, v in q.items()}


def vector_query(fns):
    """The "vectors" group: the function of wide_vectors.json named for the case."""
    arms = []
    for fn in sorted(set(fns)):
        call = "%s(t)::text" % fn if fn.startswith("to_") else \
            "(CASE WHEN n IS NULL THEN %s(t) ELSE %s(t, n) END)::text" % (fn, fn)
        arms.append("WHEN '%s' THEN %s" % (fn, call))
    return ("SELECT CASE v.fn %s END FROM cc_text JOIN cc_vecfn v USING (cid) WHERE cid = $1"
            % " ".join(arms))


QUERIES = {
    "hamming": "SELECT hamming_distance(a::simhash, b::simhash)::text || ' ' || "
               "(a::simhash <-> b::simhash)::text || ' ' || a::simhash::text || ' ' || "
               "b::simhash::text FROM cc_ham WHERE cid = $1",
    "radius": "SELECT simhash_radius(s, bits)::text FROM cc_radius WHERE cid = $1",
    "py_radius": "SELECT simhash_radius(s, bits)::text FROM cc_radius WHERE cid = $1",
}
for _w in WIDTHS:
    QUERIES.update(fingerprint_queries(_w))
    QUERIES.update(pair_queries(_w))


SQL_SCRIPT = r"""
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS cc_feat_raw, cc_feat, cc_text_raw, cc_text, cc_vec, cc_ham, cc_todo,
  cc_query_raw, cc_query, cc_pair, cc_radius, cc_vecfn;
CREATE TABLE cc_feat_raw (cid int, ord int, fhex text, w float8);
CREATE TABLE cc_text_raw (cid int, thex text, n int);
CREATE TABLE cc_vec (cid int, ord int, dim int, val real);
CREATE TABLE cc_ham (cid int, a bigint, b bigint);
CREATE TABLE cc_pair (cid int, width int, a text, b text);
CREATE TABLE cc_radius (cid int, s float8, bits int);
CREATE TABLE cc_vecfn (cid int, fn text);
CREATE TABLE cc_todo (cid int, grp text);
CREATE TABLE cc_query_raw (grp text, qhex text);
\copy cc_feat_raw FROM '@DIR@/feat.csv' WITH (FORMAT csv)
\copy cc_text_raw FROM '@DIR@/text.csv' WITH (FORMAT csv)
\copy cc_vec FROM '@DIR@/vec.csv' WITH (FORMAT csv)
\copy cc_ham FROM '@DIR@/ham.csv' WITH (FORMAT csv)
\copy cc_pair FROM '@DIR@/pair.csv' WITH (FORMAT csv)
\copy cc_radius FROM '@DIR@/radius.csv' WITH (FORMAT csv)
\copy cc_vecfn FROM '@DIR@/vecfn.csv' WITH (FORMAT csv)
\copy cc_todo FROM '@DIR@/todo.csv' WITH (FORMAT csv)
\copy cc_query_raw FROM '@DIR@/query.csv' WITH (FORMAT csv)
CREATE TABLE cc_feat AS
  SELECT cid, ord, convert_from(decode(fhex, 'hex'), 'UTF8') AS f, w FROM cc_feat_raw;
CREATE TABLE cc_text AS
  SELECT cid, convert_from(decode(thex, 'hex'), 'UTF8') AS t, n FROM cc_text_raw;
CREATE TABLE cc_query AS
  SELECT grp, convert_from(decode(qhex, 'hex'), 'UTF8') AS q FROM cc_query_raw;
CREATE INDEX ON cc_feat (cid);
CREATE INDEX ON cc_text (cid);
CREATE INDEX ON cc_vec (cid);
CREATE INDEX ON cc_ham (cid);
CREATE INDEX ON cc_pair (cid);
CREATE INDEX ON cc_radius (cid);
ANALYZE;
CREATE OR REPLACE FUNCTION cc_try(q text, id int) RETURNS text LANGUAGE plpgsql AS $f$
DECLARE r text;
BEGIN
  EXECUTE q INTO r USING id;
  RETURN coalesce(r, 'NULL');
EXCEPTION WHEN others THEN
  RETURN 'ERROR ' || SQLSTATE;
END $f$;
\copy (SELECT t.cid, t.grp, cc_try(q.q, t.cid) FROM cc_todo t JOIN cc_query q USING (grp) ORDER BY t.cid, t.grp) TO '@DIR@/results.csv' WITH (FORMAT csv)
"""


def csv_field(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        raise TypeError(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return repr(v)
    if isinstance(v, str):          # only ASCII (hex digits, group names) gets here
        return '"' + v.replace('"', '""') + '"'
    raise TypeError(v)


def hexu(s):
    return None if s is None else s.encode("utf-8").hex()


def write_csv(path, rows):
    with open(path, "w", encoding="ascii", newline="") as fh:
        for row in rows:
            fh.write(",".join(csv_field(v) for v in row) + "\n")


def short(s, limit=600):
    r = repr(s) if not isinstance(s, str) else s
    return r if len(r) <= limit else r[:limit] + "... (%d chars)" % len(r)


def main():
    t0 = time.time()
    cs = Cases()
    # the reference takes a minute or more: a line as each part is done
    builders = [build_feature_cases, build_text_cases, build_tsvector_cases,
                build_vector_cases, build_hamming_cases, build_pair_cases,
                build_radius_cases, build_vector_file_cases]
    for i, build in enumerate(builders, 1):
        build(cs)
        print("reference %d/%d (%s): %d comparisons so far, %.0f s"
              % (i, len(builders), build.__name__[len("build_"):-len("_cases")],
                 len(cs.todo), time.time() - t0), flush=True)
    queries = dict(QUERIES, vectors=vector_query(fn for _, fn in cs.vector_fns))
    t_ref = time.time() - t0

    with tempfile.TemporaryDirectory(prefix="simhash-crosscheck.") as d:
        write_csv(os.path.join(d, "feat.csv"),
                  [(c, o, hexu(f), w) for c, o, f, w in cs.feat_rows])
        write_csv(os.path.join(d, "text.csv"), [(c, hexu(t), n) for c, t, n in cs.text_rows])
        write_csv(os.path.join(d, "vec.csv"), cs.vec_rows)
        write_csv(os.path.join(d, "ham.csv"), cs.ham_rows)
        write_csv(os.path.join(d, "pair.csv"), cs.pair_rows)
        write_csv(os.path.join(d, "radius.csv"), cs.radius_rows)
        write_csv(os.path.join(d, "vecfn.csv"), cs.vector_fns)
        write_csv(os.path.join(d, "todo.csv"), cs.todo)
        write_csv(os.path.join(d, "query.csv"), [(g, hexu(q)) for g, q in queries.items()])
        script = os.path.join(d, "crosscheck.sql")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(SQL_SCRIPT.replace("@DIR@", d))
        env = dict(os.environ, PGCLIENTENCODING="UTF8")
        print("SQL: %d comparisons in one psql run" % len(cs.todo), flush=True)
        p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", script],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.stdout.write(p.stdout)
            sys.stdout.write(p.stderr)
            print("crosscheck: psql failed (exit %d)" % p.returncode)
            print("0 passed, 1 failed")
            return 1
        got = {}
        with open(os.path.join(d, "results.csv"), encoding="utf-8") as fh:
            for line in fh:
                cid, grp, res = line.rstrip("\n").split(",", 2)
                got[(int(cid), grp)] = res.strip('"')
    t_sql = time.time() - t0 - t_ref

    passed = failed = 0
    per_group = {}

    def tally(grp, ok):
        """Counts one check of group grp, in all and in its group; returns ok."""
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
        per_group.setdefault(grp, [0, 0])[0 if ok else 1] += 1
        return ok

    def mismatch(grp, cid, exp, res):
        print("MISMATCH %s case %d: %s" % (grp, cid, short(cs.describe[cid])))
        print("    expected %s, got %s" % (exp, res))

    for key in cs.todo:
        cid, grp = key
        exp = cs.expected[key]
        res = got.get(key, "(missing)")
        if not tally(grp, (res == exp) or (exp == "ERROR *" and res.startswith("ERROR "))):
            mismatch(grp, cid, exp, res)
            text = next((t for c, t, n in cs.text_rows if c == cid), None)
            kind = grp.split("@")[0].replace("_feat", "").replace("py_", "")
            if kind in ("text", "ngram", "shingle") and text is not None:
                n = next(n for c, t, n in cs.text_rows if c == cid) or 3
                feats = ref.text_features(kind, text, n)
                print("    reference normalised: %s" % short(ascii(ref.nfkc_casefold(text))))
                print("    reference features:   %s" % short(ascii(feats)))
    for grp, cid, exp, res in cs.offline:
        if not tally(grp, res == exp):
            mismatch(grp, cid, exp, res)
    for name, k1, k2, digits in cs.consistency:
        a, b = got.get(k1, "(missing)"), got.get(k2, "(missing)")
        if digits is not None and not a.startswith("ERROR") and a != "(missing)":
            a = a[:digits]
        # equal errors agree too: both refuse the same input (e.g. NaN)
        if not tally("consistency" if digits is None else "prefixes", a == b and a != "(missing)"):
            print("INCONSISTENT %s: case %d %s -> %s, case %d %s -> %s; input %s" % (
                name, k1[0], k1[1], a, k2[0], k2[1], b, short(cs.describe[k1[0]])))
    for grp in sorted(per_group):
        print("  %-22s %5d passed, %d failed" % (grp, per_group[grp][0], per_group[grp][1]))
    print("seed %d; reference %.1fs, SQL %.1fs" % (SEED, t_ref, t_sql))
    # a case is one group (entry point or property); its checks are the texts
    print("checks inside the cases: %d passed, %d failed" % (passed, failed))
    bad = sum(1 for g in per_group.values() if g[1] > 0)
    print("%d passed, %d failed" % (len(per_group) - bad, bad))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
