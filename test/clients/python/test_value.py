"""The Simhash, Simhash128, Simhash256 and MinHash value types on their
own (no server): conversions, distance, segments, prefixes, value
semantics, similarity and radius, the minhash bin layout and Jaccard
estimate.  The driver tests and test/crosscheck check the same forms
against the server's casts."""

import copy
import math
import pickle
import random
import unittest

from simhash_pg import (MinHash, Simhash, Simhash128, Simhash256, hamming,
                        minhash_jaccard, radius, similarity)

RNG = random.Random(7)
RANDOM = [RNG.getrandbits(64) for _ in range(2000)]


class ValueTest(unittest.TestCase):
    def test_hex_round_trip(self):
        for v in RANDOM + [0, 1, (1 << 64) - 1, 1 << 63]:
            s = Simhash(v)
            self.assertEqual(s.hex(), format(v, "016x"))
            self.assertEqual(len(str(s)), 16)
            self.assertEqual(Simhash.from_hex(s.hex()), s)
            self.assertEqual(Simhash(s.hex().upper()), s)
            self.assertEqual(Simhash(str(s)).value, v)

    def test_hex_rejects_what_the_server_rejects(self):
        # 22P02 on the server: other lengths, signs, 0x, white space,
        # non-ASCII digits (int(x, 16) would take several of these)
        for bad in ["", "f3a90c1e00b2d47", "f3a90c1e00b2d47f0", "0xf3a90c1e00b2d4",
                    "+3a90c1e00b2d47f", " f3a90c1e00b2d47", "f3a90c1e00b2d47f\n",
                    "f3a9_0c1e00b2d47", "g3a90c1e00b2d47f",
                    "\uff10" * 16, "f3a90c1e00b2d4\u0664\u0665"]:
            with self.assertRaises(ValueError, msg=repr(bad)):
                Simhash(bad)

    def test_signed_matches_bigint_cast(self):
        # values printed by the server: 'f3a90c1e00b2d47f'::simhash::bigint
        # (doc/simhash.md) and (-1)::bigint::simhash
        self.assertEqual(Simhash("f3a90c1e00b2d47f").to_signed(), -889166128428690305)
        self.assertEqual(Simhash.from_signed(-1), Simhash("ffffffffffffffff"))
        self.assertEqual(Simhash.from_signed(-(1 << 63)), Simhash("8000000000000000"))
        self.assertEqual(Simhash((1 << 63) - 1).to_signed(), (1 << 63) - 1)
        for v in RANDOM:
            s = Simhash(v)
            i = s.to_signed()
            self.assertTrue(-(1 << 63) <= i < (1 << 63))
            self.assertEqual(i < 0, v >= 1 << 63)
            self.assertEqual(i % (1 << 64), v)
            self.assertEqual(Simhash.from_signed(i), s)
        for bad in [1 << 63, -(1 << 63) - 1]:
            with self.assertRaises(ValueError):
                Simhash.from_signed(bad)

    def test_unsigned_range_and_types(self):
        with self.assertRaises(ValueError):
            Simhash(-1)             # a bigint must go through from_signed
        with self.assertRaises(ValueError):
            Simhash(1 << 64)
        for bad in [True, 1.0, None, [1]]:
            with self.assertRaises(TypeError):
                Simhash(bad)

    def test_bytes_big_endian(self):
        s = Simhash("0102030405060708")
        self.assertEqual(bytes(s), b"\x01\x02\x03\x04\x05\x06\x07\x08")
        self.assertEqual(s.to_bytes(), bytes(s))
        for v in RANDOM[:200]:
            b = Simhash(v).to_bytes()
            self.assertEqual(b, v.to_bytes(8, "big"))
            self.assertEqual(Simhash.from_bytes(b).value, v)
            self.assertEqual(Simhash(memoryview(b)), Simhash(v))
            self.assertEqual(Simhash(bytearray(b)), Simhash(v))
        for bad in [b"", b"\x00" * 7, b"\x00" * 9]:
            with self.assertRaises(ValueError):
                Simhash.from_bytes(bad)

    def test_hamming(self):
        a = Simhash("f3a90c1e00b2d47f")
        self.assertEqual(a.hamming(Simhash("f3a90c1e00b2d47e")), 1)
        self.assertEqual(Simhash(0).hamming(Simhash((1 << 64) - 1)), 64)
        self.assertEqual(a.hamming(a), 0)
        for x, y in zip(RANDOM[::2], RANDOM[1::2]):
            d = bin(x ^ y).count("1")
            self.assertEqual(Simhash(x).hamming(Simhash(y)), d)
            self.assertEqual(Simhash(y).distance(Simhash(x)), d)
            self.assertEqual(hamming(x, format(y, "016x")), d)
            self.assertEqual(Simhash(x).within(Simhash(y), d), True)
            self.assertEqual(Simhash(x).within(Simhash(y), d - 1), False)

    def test_flip_and_bits(self):
        a = Simhash(0)
        self.assertEqual(a.flip(0), Simhash(1))
        self.assertEqual(a.flip(63), Simhash(1 << 63))
        self.assertEqual(a.flip(3, 3), a)
        b = Simhash(RANDOM[0])
        for bits in [(5,), (1, 2, 3), (60, 61, 62, 63)]:
            self.assertEqual(b.hamming(b.flip(*bits)), len(bits))
        self.assertEqual([Simhash(5).bit(i) for i in range(4)], [1, 0, 1, 0])
        with self.assertRaises(ValueError):
            a.flip(64)

    def test_segments(self):
        s = Simhash("f3a90c1e00b2d47f")
        self.assertEqual(s.segment(0), 62377)       # doc/simhash.md: x'f3a9'
        self.assertEqual(s.segments(), (0xF3A9, 0x0C1E, 0x00B2, 0xD47F))
        for v in RANDOM[:200]:
            segs = Simhash(v).segments()
            self.assertEqual(int("".join("%04x" % g for g in segs), 16), v)
        for bad in [-1, 4]:
            with self.assertRaises(ValueError):
                s.segment(bad)

    def test_value_semantics(self):
        a, b = Simhash(5), Simhash("0000000000000005")
        self.assertEqual(a, b)
        self.assertEqual(hash(a), hash(b))
        self.assertEqual(len({a, b, Simhash(6)}), 2)
        self.assertNotEqual(a, 5)               # never equal to a plain int
        self.assertNotEqual(a, "0000000000000005")
        with self.assertRaises(AttributeError):
            a._value = 6
        with self.assertRaises(AttributeError):
            a.anything = 1
        self.assertEqual(a.value, 5)
        self.assertEqual(int(a), 5)
        self.assertEqual(repr(Simhash(255)), "Simhash('00000000000000ff')")
        self.assertEqual(eval(repr(Simhash(RANDOM[3]))), Simhash(RANDOM[3]))
        self.assertEqual(format(Simhash(5), "08b"), "00000101")
        self.assertEqual("%s" % Simhash(5), "0000000000000005")
        self.assertEqual(pickle.loads(pickle.dumps(Simhash(RANDOM[4]))), Simhash(RANDOM[4]))
        self.assertIs(copy.deepcopy(a), a)

    def test_ordering_is_unsigned(self):
        # as the server's B-tree class: ffff... is the largest
        values = [Simhash(v) for v in RANDOM[:300]] + [Simhash((1 << 64) - 1), Simhash(0)]
        self.assertEqual([s.value for s in sorted(values)],
                         sorted(s.value for s in values))
        self.assertLess(Simhash((1 << 63) - 1), Simhash(1 << 63))
        self.assertGreater(Simhash((1 << 64) - 1), Simhash(0))
        with self.assertRaises(TypeError):
            Simhash(1) < 2


class WideValueTest(unittest.TestCase):
    CLASSES = (Simhash128, Simhash256)

    def test_forms_round_trip(self):
        for cls in self.CLASSES:
            w = cls.WIDTH
            for v in [RNG.getrandbits(w) for _ in range(300)] + [0, (1 << w) - 1, 1 << (w - 1)]:
                s = cls(v)
                self.assertEqual(s.hex(), format(v, "0%dx" % (w // 4)))
                self.assertEqual(cls(s.hex().upper()), s)
                self.assertEqual(bytes(s), v.to_bytes(w // 8, "big"))
                self.assertEqual(cls.from_bytes(bytes(s)), s)
                self.assertEqual(cls.from_words(s.words()), s)
                self.assertEqual(len(s.words()), w // 64)
                self.assertEqual(s.words()[0], s.word(0))
                self.assertEqual(eval(repr(s)), s)
                self.assertEqual(pickle.loads(pickle.dumps(s)), s)

    def test_rejects(self):
        for cls in self.CLASSES:
            n = cls.WIDTH // 4
            for bad in ["", "0" * (n - 1), "0" * (n + 1), "g" + "0" * (n - 1),
                        " " + "0" * (n - 1), "\uff10" * n]:
                with self.assertRaises(ValueError, msg=repr(bad)):
                    cls(bad)
            for bad in [b"", b"\0" * (n // 2 - 1), b"\0" * (n // 2 + 1)]:
                with self.assertRaises(ValueError):
                    cls(bad)
            for bad in [-1, 1 << cls.WIDTH]:
                with self.assertRaises(ValueError):
                    cls(bad)
            with self.assertRaises(TypeError):
                cls(Simhash(1))         # a narrower width is never widened
            with self.assertRaises(ValueError):
                cls.from_words([0])

    def test_word_zero_first(self):
        s = Simhash256("0123456789abcdef" "fedcba9876543210" "0000000000000001" "8000000000000000")
        self.assertEqual(s.words(), (0x0123456789abcdef, 0xfedcba9876543210, 1, 1 << 63))
        self.assertEqual(s.prefix(64), Simhash("0123456789abcdef"))
        self.assertEqual(s.prefix(128), Simhash128("0123456789abcdeffedcba9876543210"))
        self.assertEqual(s.prefix(128).prefix(64), s.prefix(64))
        self.assertEqual(s.prefix(256), s)
        self.assertEqual(bytes(s)[:8], bytes(s.prefix(64)))
        with self.assertRaises(ValueError):
            s.prefix(128).prefix(256)
        with self.assertRaises(ValueError):
            s.prefix(32)
        # bit b is bit b % 64 of word b // 64, as the contract numbers them
        self.assertEqual([s.bit(b) for b in (128, 129, 255, 254)], [1, 0, 1, 0])
        for b in range(64):
            self.assertEqual(s.bit(b), s.prefix(64).bit(b))
        self.assertEqual(Simhash128(0).flip(64).words(), (0, 1))
        self.assertEqual(Simhash128(0).flip(63).prefix(64), Simhash(0).flip(63))
        with self.assertRaises(ValueError):
            s.flip(256)

    def test_hamming_same_width_only(self):
        for cls in self.CLASSES:
            w = cls.WIDTH
            for _ in range(200):
                x, y = RNG.getrandbits(w), RNG.getrandbits(w)
                d = bin(x ^ y).count("1")
                self.assertEqual(cls(x).hamming(cls(y)), d)
                self.assertEqual(hamming(cls(x), format(y, "0%dx" % (w // 4))), d)
                self.assertEqual(cls(x).within(cls(y), d), True)
                self.assertEqual(cls(x).within(cls(y), d - 1), False)
            self.assertEqual(cls(0).hamming(cls((1 << w) - 1)), w)
            with self.assertRaises(TypeError):
                cls(0).hamming(Simhash(0))
        self.assertEqual(hamming("f" * 32, "0" * 32), 128)
        self.assertEqual(hamming(b"\xff" * 32, b"\0" * 32), 256)
        with self.assertRaises(TypeError):
            hamming(Simhash128(0), Simhash256(0))

    def test_value_semantics(self):
        a = Simhash128(5)
        self.assertEqual(a, Simhash128("0" * 31 + "5"))
        self.assertEqual(hash(a), hash(Simhash128(5)))
        self.assertNotEqual(a, Simhash(5))      # widths never compare equal
        self.assertNotEqual(a, Simhash256(5))
        self.assertNotEqual(a, 5)
        with self.assertRaises(TypeError):
            a < Simhash(6)
        with self.assertRaises(AttributeError):
            a._value = 6
        self.assertIs(copy.deepcopy(a), a)
        # B-tree order: word 0 first, each unsigned, i.e. the hex string's
        for cls in self.CLASSES:
            values = [cls(RNG.getrandbits(cls.WIDTH)) for _ in range(300)]
            self.assertEqual([v.hex() for v in sorted(values)], sorted(v.hex() for v in values))

    def test_similarity_and_radius(self):
        for w, cls in ((64, Simhash), (128, Simhash128), (256, Simhash256)):
            self.assertEqual(similarity(cls(0), cls(0)), 1.0)
            self.assertEqual(similarity(cls(0), cls((1 << w) - 1)), -1.0)
            for d in range(w + 1):
                b = cls((1 << d) - 1)
                self.assertEqual(similarity(cls(0), b), math.cos(math.pi * d / w))
                self.assertEqual(cls(0).similarity(b), similarity(cls(0), b))
            # hamming <= radius(s) exactly when similarity >= s
            for s in [-1.0, -0.3, 0.0, 0.5, 0.9, 0.99, 1.0] + [RNG.uniform(-1, 1) for _ in range(50)]:
                k = radius(s, w)
                self.assertTrue(0 <= k <= w)
                for d in range(w + 1):
                    self.assertEqual(d <= k, math.cos(math.pi * d / w) >= s, (s, w, d))
        self.assertEqual(radius(1.0, 256), 0)
        self.assertEqual(radius(-1.0, 128), 128)
        for bad in [1.5, -1.01, float("nan")]:
            with self.assertRaises(ValueError):
                radius(bad, 64)
        for bad in [0, 100, 512]:
            with self.assertRaises(ValueError):
                radius(0.5, bad)


class MinHashValueTest(unittest.TestCase):
    def random_bins(self):
        return [RNG.randrange(16) for _ in range(256)]

    def test_forms_round_trip(self):
        for bins in [[0] * 256, [15] * 256, list(range(16)) * 16] + \
                [self.random_bins() for _ in range(300)]:
            m = MinHash.from_bins(bins)
            text = "".join("%x" % v for v in bins)     # digit i is bin i
            raw = bytes(16 * bins[2 * i] + bins[2 * i + 1] for i in range(128))
            self.assertEqual(m.hex(), text)
            self.assertEqual(str(m), text)
            self.assertEqual(bytes(m), raw)             # bin 2i in the high nibble
            self.assertEqual(m.to_bytes(), raw)
            self.assertEqual(m.bins(), tuple(bins))
            self.assertEqual([m.bin(i) for i in range(256)], bins)
            self.assertEqual(MinHash.from_hex(text), m)
            self.assertEqual(MinHash(text.upper()), m)
            self.assertEqual(MinHash.from_bytes(raw), m)
            self.assertEqual(MinHash(bytearray(raw)), m)
            self.assertEqual(MinHash(memoryview(raw)), m)
            self.assertEqual(MinHash(m), m)
            self.assertEqual(eval(repr(m)), m)
            self.assertEqual(pickle.loads(pickle.dumps(m)), m)
        self.assertEqual(MinHash.from_bins([1, 2] + [0] * 254).to_bytes()[:2], b"\x12\x00")
        self.assertEqual(MinHash("0" * 255 + "f").bin(255), 15)

    def test_rejects(self):
        # 22P02 on the server: 256 ASCII hex digits, nothing else
        for bad in ["", "0" * 255, "0" * 257, "g" + "0" * 255, " " + "0" * 255,
                    "0" * 255 + "\n", "\uff10" * 256, "0x" + "0" * 254, "00 " * 85 + "0"]:
            with self.assertRaises(ValueError, msg=repr(bad)):
                MinHash(bad)
            with self.assertRaises(ValueError, msg=repr(bad)):
                MinHash.from_hex(bad)
        for bad in [b"", b"\0" * 127, b"\0" * 129]:
            with self.assertRaises(ValueError):
                MinHash(bad)
        for bad in [0, None, 1.5, [0] * 256, Simhash(0)]:
            with self.assertRaises(TypeError):
                MinHash(bad)
        with self.assertRaises(TypeError):
            MinHash.from_hex(b"0" * 256)
        for bad in [[0] * 255, [0] * 257, [16] + [0] * 255, [-1] + [0] * 255, [True] * 256]:
            with self.assertRaises(ValueError):
                MinHash.from_bins(bad)
        for bad in [-1, 256]:
            with self.assertRaises(ValueError):
                MinHash(bytes(128)).bin(bad)

    def test_value_semantics(self):
        a = MinHash("0" * 255 + "5")
        b = MinHash(bytes(127) + b"\x05")
        self.assertEqual(a, b)
        self.assertEqual(hash(a), hash(b))
        self.assertEqual(len({a, b, MinHash(bytes(128))}), 2)
        self.assertNotEqual(a, a.hex())         # never equal to its text or bytes
        self.assertNotEqual(a, bytes(a))
        with self.assertRaises(TypeError):
            a < b                               # no order, as on the server
        with self.assertRaises(AttributeError):
            a._bytes = bytes(128)
        with self.assertRaises(AttributeError):
            a.anything = 1
        self.assertIs(copy.deepcopy(a), a)
        self.assertIs(copy.copy(a), a)

    def test_jaccard_estimate(self):
        # (m/256 - 1/16) / (1 - 1/16) for m equal bins, clamped to [0, 1]
        for m in range(257):
            a = self.random_bins()
            same = set(RNG.sample(range(256), m))
            b = [v if i in same else (v + RNG.randrange(1, 16)) % 16 for i, v in enumerate(a)]
            ma, mb = MinHash.from_bins(a), MinHash.from_bins(b)
            want = max(0.0, (m / 256 - 1 / 16) / (15 / 16))
            self.assertEqual(ma.equal_bins(mb), m)
            self.assertAlmostEqual(ma.jaccard(mb), want, places=12)
            self.assertEqual(ma.jaccard(mb), mb.jaccard(ma))
            self.assertEqual(minhash_jaccard(ma, mb.hex()), ma.jaccard(mb))
            self.assertEqual(minhash_jaccard(bytes(ma), mb), ma.jaccard(mb))
        self.assertEqual(MinHash(bytes(128)).jaccard(MinHash(bytes(128))), 1.0)
        self.assertEqual(minhash_jaccard("0" * 256, "f" * 256), 0.0)
        self.assertEqual(minhash_jaccard("0" * 16 + "f" * 240, "0" * 256), 0.0)   # m = 16
        self.assertEqual(minhash_jaccard("0" * 17 + "f" * 239, "0" * 256), 1 / 240)
        with self.assertRaises(ValueError):
            minhash_jaccard("0" * 256, "0" * 255)


if __name__ == "__main__":
    unittest.main()
