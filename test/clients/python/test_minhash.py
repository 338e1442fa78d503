"""simhash_pg.fingerprint's functions of extension 1.10 against the server:
the binary-weight fingerprints (to_simhash_binary, simhash_ngram_binary,
simhash_shingle_binary at 64, 128 and 256 bits), to_minhash,
minhash_ngram, minhash_shingle, to_minhash(text[]), minhash_jaccard and
simhash_jaccard must equal the server's, bit for bit, on the texts of
test_fingerprint (random text of every character class, real text from
/usr/share/doc) and on texts of every kind (English, Chinese, Japanese,
mixed, empty, white space only, very short, repeated words), at several
n, and on pairs of texts from identical to unrelated.  Then the server
against its own definitions, whatever the client computes: binary weights
are to_simhash of the distinct features, a signature is that of the
feature list, a one-feature signature is 256 times one digit, the exact
Jaccard is that of simhash_features, and minhash_jaccard estimates it.
Talks to the server with psql, as test_fingerprint does."""

import random
import unittest

from test_fingerprint import corpus, server

try:
    import xxhash
    from simhash_pg import MinHash
    from simhash_pg import fingerprint as F
    SKIP_REASON = None
except ImportError as e:            # pragma: no cover
    SKIP_REASON = "no xxhash module (Debian: apt-get install python3-xxhash): %s" % e

RNG = random.Random(3601)

# Texts of every kind the brief of issue 36 names; each is also paired with
# edited copies of itself below
KINDS = [
    # English
    "The quick brown fox jumps over the lazy dog.",
    "The quick brown fox jumped over the lazy dogs!",
    "Near-duplicate detection finds documents that are almost, but not quite, the same.",
    "It was the best of times, it was the worst of times, it was the age of wisdom, "
    "it was the age of foolishness, it was the epoch of belief.",
    "PostgreSQL 15.4 released; 3 bugs fixed (CVE-2023-39417), see https://www.postgresql.org/.",
    "O'Neill's co-operative re-entry: naïve café, résumé, Ångström, Straße, ﬁne ﬂow.",
    "MIXED Case, mixed case and MiXeD cAsE are one word after case folding.",
    # Chinese
    "我们今天去公园散步，天气非常好。",
    "我们明天去公园散步，天气非常好！",
    "近似重复检测用于发现几乎相同的文档。",
    "中华人民共和国成立于一九四九年。",
    # Japanese
    "今日はとても良い天気ですね。",
    "東京タワーは東京都港区芝公園にある電波塔です。",
    "カタカナとひらがなと漢字が混ざった日本語の文章。",
    "ｶﾀｶﾅの半角とカタカナの全角",
    # Korean
    "한국어 문장도 토큰으로 나뉩니다.",
    # mixed scripts
    "PostgreSQL 是一个强大的开源数据库 and it is fast; 日本語も OK です。",
    "Hello世界 hello 世界 HELLO せかい 123 ４５６",
    "Ελληνικά και русский текст, עברית, العربية, हिन्दी.",
    "emoji 😀 and symbols ★ → ∑ do not make words 🎉🎉",
    # empty, white space only, punctuation only
    "", " ", "   ", "\t\n", "\u3000", "\u00a0\u2003\n\r\t ", "!!!", "...,;:", "— – -",
    # very short
    "a", "I", "ab", "中", "あ", "中文", "x y", "1", "é", "e\u0301",
    # repeated words
    "the the the the the the the the",
    "buffalo " * 8,
    "to be or not to be to be or not to be",
    "ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha ha",
    "重复重复重复重复重复",
    "はははははは",
    "a a a a b b b c c d",
    ("spam " * 300).strip(),
]

VOCAB = ("data base index query fast slow text word near exact copy page "
         "server client table row column 数据 库 文本 日本 東京 データ").split()


def mutate(text, rate, rng):
    """text with about rate of its words (or, without spaces, characters)
    deleted, replaced, repeated or inserted."""
    words = text.split()
    join = " "
    if len(words) < 4:
        words, join = list(text), ""
    out = []
    for w in words:
        r = rng.random()
        if r < rate / 4:
            continue
        if r < rate / 2:
            out.append(rng.choice(VOCAB))
        elif r < 3 * rate / 4:
            out += [w, w]
        elif r < rate:
            out += [w, rng.choice(VOCAB)]
        else:
            out.append(w)
    return join.join(out)


def server_pairs(pairs, select):
    """One row per pair: select evaluated over a and b, as text."""
    return server(pairs, select, ("a", "b"))


def array_hex(features):
    """A feature list as text the server turns back into text[] with
    ARRAY_SQL: each element's UTF-8 bytes in hex after an 'x', joined by
    commas (so that [] and [""] differ)."""
    return ",".join("x" + f.encode("utf-8").hex() for f in features)


# t holds array_hex() of the list
ARRAY_SQL = ("ARRAY(SELECT convert_from(decode(substr(e, 2), 'hex'), 'UTF8') "
             "FROM unnest(string_to_array(t, ',')) WITH ORDINALITY u(e, n) ORDER BY n)::text[]")

# the contract, written out here for the independent checks
SEED = 0x4D696E4861736831     # "MinHash1"
M64 = (1 << 64) - 1


def splitmix_out(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class MinHashTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # test_fingerprint's texts: its fixed ones, its first 400 random
        # ones and its real text; and those of every kind
        base = corpus(400)
        cls.texts = KINDS + base
        # the variants (other n, wide) skip the longest real texts
        cls.short = KINDS + [t for t in base if len(t) < 20000]
        # pairs: a text with edited copies of itself at several rates,
        # unrelated texts, the empty and white-space edge cases
        rng = random.Random(36)
        pairs = [(a, b) for a in KINDS[:20] for b in KINDS[:20]]
        for t in KINDS + base[:200] + [t for t in base[406:] if len(t) < 8000]:
            for rate in (0.02, 0.1, 0.3, 0.6):
                pairs.append((t, mutate(t, rate, rng)))
        pairs += [(rng.choice(base), rng.choice(base)) for _ in range(100)]
        pairs += [("", ""), ("", "a"), (" ", "\t"), ("!!!", "..."), ("a", "A"),
                  ("Hello World", "\uff28\uff25\uff2c\uff2c\uff2f\u3000\uff57\uff4f\uff52\uff4c\uff44"),
                  ("a b c", "c b a a"), ("x", "")]
        cls.pairs = pairs
        cls.memo = {}

    def once(self, fn, *args):
        """fn(*args) of the client, computed once for all the tests: the
        pairs repeat their texts."""
        key = (fn.__name__,) + args
        if key not in self.memo:
            self.memo[key] = fn(*args)
        return self.memo[key]

    def compare(self, name, client, select, texts=None):
        texts = self.texts if texts is None else texts
        got = server(texts, select)
        self.assertEqual(len(got), len(texts))
        bad = [(i, client(t), g) for i, (t, g) in enumerate(zip(texts, got)) if client(t) != g]
        self.assertEqual(bad[:3], [], "%s: %d of %d texts differ" % (name, len(bad), len(texts)))

    def compare_pairs(self, name, client, select):
        got = server_pairs(self.pairs, select)
        self.assertEqual(len(got), len(self.pairs))
        # float8 output is the shortest text that reads back the same
        # double: equal floats are equal bits
        bad = [(i, client(a, b), g) for i, ((a, b), g) in enumerate(zip(self.pairs, got))
               if client(a, b) != float(g)]
        self.assertEqual(bad[:3], [], "%s: %d of %d pairs differ" % (name, len(bad), len(self.pairs)))

    # --- the client equals the server ----------------------------------------

    def test_01_binary_weights_64(self):
        self.compare("to_simhash_binary", lambda t: F.to_simhash_binary(t).hex(),
                     "to_simhash_binary(t)")
        self.compare("simhash_ngram_binary(t)", lambda t: F.simhash_ngram_binary(t).hex(),
                     "simhash_ngram_binary(t)")
        self.compare("simhash_shingle_binary(t)", lambda t: F.simhash_shingle_binary(t).hex(),
                     "simhash_shingle_binary(t)")
        for n in (1, 2, 5):
            self.compare("simhash_ngram_binary(t, %d)" % n,
                         lambda t: F.simhash_ngram_binary(t, n).hex(),
                         "simhash_ngram_binary(t, %d)" % n, self.short)
        for n in (1, 2, 4):
            self.compare("simhash_shingle_binary(t, %d)" % n,
                         lambda t: F.simhash_shingle_binary(t, n).hex(),
                         "simhash_shingle_binary(t, %d)" % n, self.short)

    def test_02_binary_weights_wide(self):
        for w in (128, 256):
            to, ngram, shingle = (getattr(F, name % w) for name in
                                  ("to_simhash%d_binary", "simhash%d_ngram_binary",
                                   "simhash%d_shingle_binary"))
            self.compare("to_simhash%d_binary" % w, lambda t: to(t).hex(),
                         "to_simhash%d_binary(t)" % w, self.short)
            self.compare("simhash%d_ngram_binary(t)" % w, lambda t: ngram(t).hex(),
                         "simhash%d_ngram_binary(t)" % w, self.short)
            self.compare("simhash%d_ngram_binary(t, 2)" % w, lambda t: ngram(t, 2).hex(),
                         "simhash%d_ngram_binary(t, 2)" % w, self.short)
            self.compare("simhash%d_shingle_binary(t, 2)" % w, lambda t: shingle(t, 2).hex(),
                         "simhash%d_shingle_binary(t, 2)" % w, self.short)

    def test_03_binary_weights_differ_from_tf_weights(self):
        # the tests above would pass for a client that ignored "binary" on
        # texts without repeated features: these texts have them
        repeated = [t for t in self.short if any(tf > 1 for _, tf, _ in self.once(F.features, t))]
        self.assertGreater(len(repeated), 100)
        differ = [t for t in repeated if F.to_simhash_binary(t) != F.to_simhash(t)]
        self.assertGreater(len(differ), 50)
        differ256 = [t for t in repeated[:200] if F.to_simhash256_binary(t) != F.to_simhash256(t)]
        self.assertGreater(len(differ256), 20)
        # and they are never different where every feature occurs once
        once = [t for t in self.short if all(tf == 1 for _, tf, _ in self.once(F.features, t))]
        self.assertGreater(len(once), 100)
        self.assertEqual([t for t in once if F.to_simhash_binary(t) != F.to_simhash(t)], [])

    def test_04_to_minhash(self):
        self.compare("to_minhash", lambda t: F.to_minhash(t).hex(), "to_minhash(t)")

    def test_05_minhash_ngram(self):
        self.compare("minhash_ngram(t)", lambda t: F.minhash_ngram(t).hex(), "minhash_ngram(t)")
        for n in (1, 2, 5, 64):
            self.compare("minhash_ngram(t, %d)" % n, lambda t: F.minhash_ngram(t, n).hex(),
                         "minhash_ngram(t, %d)" % n, self.short)

    def test_06_minhash_shingle(self):
        self.compare("minhash_shingle(t)", lambda t: F.minhash_shingle(t).hex(),
                     "minhash_shingle(t)")
        for n in (1, 2, 4):
            self.compare("minhash_shingle(t, %d)" % n, lambda t: F.minhash_shingle(t, n).hex(),
                         "minhash_shingle(t, %d)" % n, self.short)

    def test_07_to_minhash_of_arrays(self):
        rng = random.Random(7)
        lists = [[], [""], ["", ""], ["a"], ["a", "a"], ["a", "b"], ["b", "a", "b"],
                 ["Hello", "hello"], ["中文", "日本語", "é", "e\u0301"], [" ", "\t"]]
        # each text's features in order, reversed, repeated; random words
        for t in self.short[:300]:
            fs = [f for f, _, _ in self.once(F.features, t)]
            lists += [fs, fs[::-1] + fs]
        for _ in range(200):
            lists.append([rng.choice(VOCAB + ["x%d" % i for i in range(500)])
                          for _ in range(rng.randint(0, 400))])
        self.compare("to_minhash(text[])",
                     lambda h: F.to_minhash([bytes.fromhex(e[1:]).decode("utf-8")
                                             for e in h.split(",") if h]).hex(),
                     "to_minhash(%s)" % ARRAY_SQL, [array_hex(fs) for fs in lists])

    def test_08_minhash_jaccard(self):
        self.compare_pairs("minhash_jaccard(to_minhash)",
                           lambda a, b: self.once(F.to_minhash, a).jaccard(self.once(F.to_minhash, b)),
                           "minhash_jaccard(to_minhash(a), to_minhash(b))")
        self.compare_pairs("minhash_jaccard(minhash_shingle(_, 2))",
                           lambda a, b: F.minhash_jaccard(self.once(F.minhash_shingle, a, 2),
                                                          self.once(F.minhash_shingle, b, 2)),
                           "minhash_jaccard(minhash_shingle(a, 2), minhash_shingle(b, 2))")

    def test_09_minhash_jaccard_every_count_of_equal_bins(self):
        # signatures that agree in exactly m bins, m = 0..256, through the
        # server's text input: the estimate over its whole range, clamping
        rng = random.Random(9)
        pairs = []
        for m in list(range(257)) * 3:
            a = [rng.randrange(16) for _ in range(256)]
            same = set(rng.sample(range(256), m))
            b = [v if i in same else (v + rng.randrange(1, 16)) % 16 for i, v in enumerate(a)]
            pairs.append((MinHash.from_bins(a).hex(), MinHash.from_bins(b).hex()))
        got = server_pairs(pairs, "minhash_jaccard(a::minhash, b::minhash)")
        bad = [(a, b, g) for (a, b), g in zip(pairs, got) if F.minhash_jaccard(a, b) != float(g)]
        self.assertEqual(bad[:3], [], "%d of %d differ" % (len(bad), len(pairs)))
        # the documented estimate, computed here
        for (a, b), g in zip(pairs, got):
            m = sum(x == y for x, y in zip(a, b))
            want = min(1.0, max(0.0, (m / 256 - 1 / 16) / (1 - 1 / 16)))
            self.assertAlmostEqual(float(g), want, places=12)

    def test_10_simhash_jaccard(self):
        self.compare_pairs("simhash_jaccard", lambda a, b: self.once(F.jaccard, a, b),
                           "simhash_jaccard(a, b)")
        # and symmetric
        self.compare_pairs("simhash_jaccard (b, a)", lambda a, b: F.jaccard(b, a),
                           "simhash_jaccard(b, a)")

    def test_11_pairs_cover_the_range(self):
        js = [self.once(F.jaccard, a, b) for a, b in self.pairs]
        self.assertGreater(sum(j == 1.0 for j in js), 20)
        self.assertGreater(sum(j == 0.0 for j in js), 20)
        self.assertGreater(sum(0.2 < j < 0.5 for j in js), 50)
        self.assertGreater(sum(0.5 <= j < 0.95 for j in js), 50)

    # --- the server against its definitions -----------------------------------

    def test_20_server_binary_is_distinct_features_of_weight_1(self):
        # to_simhash(text[]) gives each element weight 1: on the distinct
        # features in order of first occurrence it is the binary fingerprint
        for w, fn in ((64, ""), (128, "128"), (256, "256")):
            for binary, features in (("to_simhash%s_binary(t)", "simhash_features(t)"),
                                     ("simhash%s_ngram_binary(t, 2)", "simhash_ngram_features(t, 2)"),
                                     ("simhash%s_shingle_binary(t, 2)", "simhash_shingle_features(t, 2)")):
                got = server(self.short[:300], "%s = to_simhash%s(ARRAY(SELECT feature FROM %s "
                             "WITH ORDINALITY f(feature, tf, weight, n) ORDER BY n))"
                             % (binary % fn, fn, features))
                self.assertEqual(set(got), {"t"}, (w, binary))

    def test_21_server_minhash_is_that_of_the_feature_list(self):
        for sig, features in (("to_minhash(t)", "simhash_features(t)"),
                              ("minhash_ngram(t, 3)", "simhash_ngram_features(t, 3)"),
                              ("minhash_shingle(t, 1)", "simhash_shingle_features(t, 1)")):
            got = server(self.short, "%s::text = to_minhash(ARRAY(SELECT feature FROM %s))::text"
                         % (sig, features))
            self.assertEqual(set(got), {"t"}, sig)

    def test_22_server_signature_of_one_and_two_features(self):
        # one feature: every bin borrows its bin's value, the top 4 bits of
        # the SplitMix64 output of its XXH3 hash of seed "MinHash1"; none:
        # 128 zero bytes.  Two: each feature's bin holds its own value and
        # every other bin one of the two.
        rng = random.Random(22)
        words = ["", "a", "hello", "中文", "é"] + ["w%d" % rng.getrandbits(32) for _ in range(200)]
        got = server([array_hex([w]) for w in words] + [""], "to_minhash(%s)" % ARRAY_SQL)
        for w, g in zip(words, got):
            d = "%x" % (splitmix_out(xxhash.xxh3_64_intdigest(w.encode("utf-8"), seed=SEED)) >> 60)
            self.assertEqual(g, d * 256, w)
        self.assertEqual(got[-1], "0" * 256)
        two = [(words[i], words[i + 1]) for i in range(0, len(words) - 1, 2)]
        got = server([array_hex(p) for p in two], "to_minhash(%s)" % ARRAY_SQL)
        checked = 0
        for p, g in zip(two, got):
            hs = [xxhash.xxh3_64_intdigest(w.encode("utf-8"), seed=SEED) for w in p]
            if hs[0] >> 56 == hs[1] >> 56:
                continue
            vals = ["%x" % (splitmix_out(h) >> 60) for h in hs]
            for h, v in zip(hs, vals):
                self.assertEqual(g[h >> 56], v, p)
            self.assertTrue(set(g) <= set(vals), p)
            checked += 1
        self.assertGreater(checked, 90)

    def test_23_server_simhash_jaccard_is_that_of_the_feature_sets(self):
        got = server_pairs(self.pairs[:1500],
                           "simhash_jaccard(a, b) = coalesce((SELECT count(*) FILTER (WHERE x.feature IS NOT NULL "
                           "AND y.feature IS NOT NULL)::float8 / count(*) FROM "
                           "(SELECT feature FROM simhash_features(a)) x FULL JOIN "
                           "(SELECT feature FROM simhash_features(b)) y "
                           "ON convert_to(x.feature, 'UTF8') = convert_to(y.feature, 'UTF8') "
                           "HAVING count(*) > 0), 1)")
        self.assertEqual(set(got), {"t"})

    def test_24_minhash_jaccard_estimates_jaccard(self):
        # the documented standard error is 0.031 at J = 0.65: on sets of
        # at least 50 features the mean error stays far below 0.05 and no
        # pair is off by 0.2 (six standard errors)
        errs = []
        for a, b in self.pairs:
            if min(len(self.once(F.features, a)), len(self.once(F.features, b))) < 50:
                continue
            errs.append(self.once(F.to_minhash, a).jaccard(self.once(F.to_minhash, b))
                        - self.once(F.jaccard, a, b))
        self.assertGreater(len(errs), 300)
        self.assertLess(sum(abs(e) for e in errs) / len(errs), 0.05)
        self.assertLess(abs(sum(errs) / len(errs)), 0.02)     # no bias
        self.assertLess(max(abs(e) for e in errs), 0.2)

    # --- the client's own rules ------------------------------------------------

    def test_30_client_errors(self):
        for fn in (F.minhash_ngram, F.minhash_shingle, F.simhash_ngram_binary,
                   F.simhash256_shingle_binary):
            for n in (0, 65, -1):
                with self.assertRaises(ValueError):
                    fn("abc", n)
        with self.assertRaises(ValueError):
            F.to_minhash(["a", None])           # the server's 22004
        with self.assertRaises(TypeError):
            F.to_minhash(["a", 1])
        with self.assertRaises(TypeError):
            F.to_minhash(b"bytes")
        self.assertEqual(F.to_minhash([]).to_bytes(), bytes(128))
        self.assertEqual(F.to_minhash(""), F.to_minhash([]))
        self.assertEqual(F.to_minhash(("a", "b")), F.to_minhash(iter(["b", "a", "a"])))
        # a lone surrogate is read as U+FFFD, in text and in feature lists
        self.assertEqual(F.to_minhash(["x\ud800"]), F.to_minhash(["x\ufffd"]))
        self.assertEqual(F.to_minhash("x\ud800y"), F.to_minhash("x\ufffdy"))
        self.assertEqual(F.jaccard("", " "), 1.0)
        self.assertEqual(F.jaccard("a", ""), 0.0)


if __name__ == "__main__":
    unittest.main()
