"""
simhash_ref.py -- a reference implementation of the simhash extension's
fingerprints (doc/contract.md), written from the
contract and not from the C code, to cross-check the extension through SQL.
Every fingerprint function takes a width (64, 128 or 256): word i of a
wide fingerprint is the 64-bit sum with the feature hash seeded i, and the
result is the integer of the text form (word 0 most significant).

Its Unicode layer (toNFKC_Casefold, character classes) is independent of the
server's tables: Python's unicodedata.  The plain arithmetic and counting
rules of the contract -- the weight 1 + ln(tf) with the server's series,
and the n-window rule of n-grams and shingles -- come from the Python
client (clients/python, simhash_pg.fingerprint): one Python implementation
of them is enough, since test/crosscheck checks the server against this
reference and the client against the server.

Needs only Debian's python3 and python3-xxhash.

Approximations (the cross-check restricts its random text to characters
where they are exact):
  * toNFKC_Casefold (Unicode 15) is approximated with Python's unicodedata
    (Unicode 14), which has no NFKC_Casefold, as
        remove Default_Ignorable_Code_Point characters, then
        NFKC(casefold(NFKC(s))), then remove them again.
  * Character classes use unicodedata.category and a fixed list of
    Han / Hiragana / Katakana / Hangul ranges (Script or Script_Extensions)
    covering the alphabet the generator uses.
"""
import math
import os
import struct
import sys
import unicodedata
from itertools import groupby

import xxhash

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
from simhash_pg.fingerprint import _windows, tf_weight  # noqa: E402

MASK64 = (1 << 64) - 1


class SumOverflow(Exception):
    """A bit's sum is not finite: the extension reports an error."""


class BadWeight(Exception):
    """NaN or infinite weight: SQLSTATE 22023 by contract."""


class BadInput(Exception):
    """Input outside the contract (e.g. a sparse dimension < 1 or repeated):
    the extension must raise an error, its SQLSTATE is not fixed here."""


# ---------------------------------------------------------------- hashing

WIDTHS = (64, 128, 256)


def feature_hash(b, seed=0):
    """XXH3_64bits of the bytes with the seed of the word (0 for word 0)."""
    if isinstance(b, str):
        b = b.encode("utf-8")
    return xxhash.xxh3_64_intdigest(b, seed=seed)


def dimension_hash(i, seed=0):
    """Dimension i (1-based): XXH3_64bits of i as 4-byte little-endian uint."""
    return xxhash.xxh3_64_intdigest(struct.pack("<I", i), seed=seed)


def charikar(pairs):
    """
    Fingerprint of (hash, weight) pairs, in order: per bit b, sum += w if bit
    b of h is 1 else -w (IEEE double, input order); bit b set iff sum > 0.
    No pairs: 0.
    """
    sums = [0.0] * 64
    for h, w in pairs:
        w = float(w)
        if math.isnan(w) or math.isinf(w):
            raise BadWeight(w)
        bits = format(h & MASK64, "064b")[::-1]     # bits[b] = bit b
        sums = [s + w if c == "1" else s - w for s, c in zip(sums, bits)]
    fp = 0
    for b, s in enumerate(sums):
        if not math.isfinite(s):
            raise SumOverflow(b)
        if s > 0.0:
            fp |= 1 << b
    return fp


def wide(items, width=64, hashfn=feature_hash):
    """The width-bit fingerprint of (key, weight) items: word i is charikar()
    of the items with hashfn(key, seed=i); word 0 in the top 64 bits."""
    items = list(items)
    v = 0
    for i in range(width // 64):
        v = (v << 64) | charikar((hashfn(k, i), w) for k, w in items)
    return v


def hexfp(v, width=64):
    return "%0*x" % (width // 4, v & ((1 << width) - 1))


def to_signed64(v):
    v &= MASK64
    return v - (1 << 64) if v >= (1 << 63) else v


def hamming(a, b, width=64):
    return bin((a ^ b) & ((1 << width) - 1)).count("1")


def similarity(d, width):
    """simhash_similarity: cos(pi * d / W)."""
    return math.cos(math.pi * d / width)


def radius(s, bits):
    """simhash_radius: the largest k in 0..bits with cos(pi * k / bits) >= s;
    None when there is none (s above 1, or NaN)."""
    ks = [k for k in range(bits + 1) if math.cos(math.pi * k / bits) >= s]
    return max(ks) if ks else None


# ----------------------------------------------------- term-frequency weights

def tf_fingerprint(features, width=64):
    """Each distinct feature once, in order of first occurrence, 1 + ln(tf)."""
    counts = {}
    for f in features:
        counts[f] = counts.get(f, 0) + 1
    return wide(((f, tf_weight(c)) for f, c in counts.items()), width)


# ------------------------------------------------------------ entry points

def fp_features(features, weights=None, width=64):
    """to_simhash(text[]) / to_simhash(text[], float8[]) / simhash_agg."""
    if weights is None:
        weights = [1.0] * len(features)
    assert len(weights) == len(features)
    return wide(zip(features, weights), width)


def fp_agg(rows, weighted, width=64):
    """simhash_agg over (feature, weight) rows: NULL rows skipped, none -> None."""
    kept = [(f, 1.0 if not weighted else w) for f, w in rows
            if f is not None and (not weighted or w is not None)]
    if not kept:
        return None
    return wide(kept, width)


MAXNUMPOS = 256     # PostgreSQL keeps at most 256 positions per lexeme


def tsvector_lexemes(entries):
    """
    What PostgreSQL's tsvector input makes of (lexeme, positions or None)
    entries: equal lexemes merged (positions united, duplicates removed, at
    most 256 kept), sorted by their bytes.  Returns [(lexeme, weight)] where
    weight = number of positions, or 1 without positions.
    """
    merged = {}
    for lex, pos in entries:
        key = lex.encode("utf-8")
        if key not in merged:
            merged[key] = None
        if pos is not None:
            merged[key] = (merged[key] or set()) | set(pos)
    out = []
    for key in sorted(merged):
        pos = merged[key]
        out.append((key, 1.0 if not pos else float(min(len(pos), MAXNUMPOS))))
    return out


def fp_tsvector(entries, stripped=False, width=64):
    lex = tsvector_lexemes(entries)
    return wide(((k, 1.0 if stripped else w) for k, w in lex), width)


def float4(x):
    """Round a Python float to IEEE single precision (and back to double)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def fp_dense(values, width=64):
    """to_simhash(real[]): dimension i = 1..n, weight = float4 value as double."""
    return wide(((i + 1, float4(v)) for i, v in enumerate(values)), width, dimension_hash)


def fp_sparse(dims, values, width=64):
    """to_simhash(integer[], real[]): summed in ascending dimension order."""
    assert len(dims) == len(values)
    if len(set(dims)) != len(dims) or any(d < 1 for d in dims):
        raise BadInput(dims)
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    return wide(((dims[i], float4(values[i])) for i in order), width, dimension_hash)


# --------------------------------------------------------------- tokenizers

# Default_Ignorable_Code_Point (DerivedCoreProperties, Unicode 15): NFKC_CF
# maps all of these to nothing.
DEFAULT_IGNORABLE = [
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
]


def _in_ranges(cp, ranges):
    for lo, hi in ranges:
        if lo <= cp <= hi:
            return True
    return False


def _drop_ignorables(s):
    return "".join(c for c in s if not _in_ranges(ord(c), DEFAULT_IGNORABLE))


def nfkc_casefold(s):
    """Approximation of toNFKC_Casefold, exact on the generator's alphabet."""
    s = _drop_ignorables(s)
    s = unicodedata.normalize("NFKC", s)
    s = unicodedata.normalize("NFKC", s.casefold())
    return _drop_ignorables(s)


# White_Space=yes (PropList.txt)
WHITE_SPACE = frozenset(
    [chr(c) for c in range(0x09, 0x0E)] +
    ["\u0020", "\u0085", "\u00A0", "\u1680"] +
    [chr(c) for c in range(0x2000, 0x200B)] +
    ["\u2028", "\u2029", "\u202F", "\u205F", "\u3000"])

# Code points whose Script or Script_Extensions includes Han, Hiragana,
# Katakana or Hangul, for the letters, marks and numbers the generator's
# alphabet can produce after normalisation (the class also needs
# General_Category L*, M* or N*).
CJK_RANGES = [
    # Han
    (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x302D), (0x3038, 0x303C),
    (0x3190, 0x319F), (0x3220, 0x3247), (0x3280, 0x32B0), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
    (0x20000, 0x3134F),
    # Hiragana, Katakana
    (0x3031, 0x3035), (0x3041, 0x309F), (0x30A0, 0x30FF), (0x31F0, 0x31FF),
    (0x32D0, 0x32FE), (0x3300, 0x3357), (0xFF66, 0xFF9F),
    # Hangul
    (0x1100, 0x11FF), (0x302E, 0x302F), (0x3131, 0x318E), (0xA960, 0xA97F),
    (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF), (0xFFA0, 0xFFDC),
]

OTHER, SPACE, WORD, CJK = 0, 1, 2, 3


def char_class(c):
    if c in WHITE_SPACE:
        return SPACE
    if unicodedata.category(c)[0] in "LMN":
        return CJK if _in_ranges(ord(c), CJK_RANGES) else WORD
    return OTHER


def _runs(s):
    """[(class, run string)] of maximal runs of one class."""
    return [(k, "".join(g)) for k, g in groupby(s, key=char_class)]


def _words_and_cjk(text, cjk):
    """Each word run of the normalised text as it is, each CJK run as the
    list cjk(run), in text order."""
    out = []
    for cls, run in _runs(nfkc_casefold(text)):
        if cls == WORD:
            out.append(run)
        elif cls == CJK:
            out.extend(cjk(run))
    return out


def default_features(text):
    """to_simhash(text): word runs, and bigrams of CJK runs (1 char: itself)."""
    return _words_and_cjk(text, lambda run: _windows(run, 2, "".join))


def ngram_text(text):
    """Normalised text with White_Space runs as one U+0020, ends trimmed."""
    out = []
    for cls, run in _runs(nfkc_casefold(text)):
        out.append(" " if cls == SPACE else run)
    if out and out[0] == " ":
        out.pop(0)
    if out and out[-1] == " ":
        out.pop()
    return "".join(out)


def ngram_features(text, n=3):
    return _windows(ngram_text(text), n, "".join)


def shingle_tokens(text):
    """Word runs, and each character of CJK runs, as tokens."""
    return _words_and_cjk(text, list)


def shingle_features(text, n=3):
    return _windows(shingle_tokens(text), n, " ".join)


def text_features(kind, text, n=3):
    """The features of to_simhash(text) (kind "text"), simhash_ngram(text, n)
    ("ngram") or simhash_shingle(text, n) ("shingle")."""
    if kind == "text":
        return default_features(text)
    return (ngram_features if kind == "ngram" else shingle_features)(text, n)


def fp_of_text(kind, text, n=3, width=64):
    """The fingerprint of to_simhash, simhash_ngram or simhash_shingle, or
    of their width-bit forms (to_simhash128, simhash256_ngram ...)."""
    return tf_fingerprint(text_features(kind, text, n), width)


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(" ".join(hexfp(fp_of_text("text", arg, width=w), w) for w in WIDTHS),
              default_features(arg))
