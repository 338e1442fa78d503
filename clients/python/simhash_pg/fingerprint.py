"""Fingerprints of text computed in Python, bit for bit those of the server.

``to_simhash(text)``, ``simhash_ngram(text, n=3)`` and
``simhash_shingle(text, n=3)`` give the ``Simhash`` the extension's SQL
functions of the same names give for the same text, so an application can
fingerprint before it inserts (or without a database at all);
``to_simhash128``, ``simhash128_ngram``, ``simhash128_shingle`` and their
``256`` forms give the wide ``Simhash128`` and ``Simhash256``.
``features(text)``, ``ngram_features`` and ``shingle_features`` give the
rows of ``simhash_features`` and its n-gram and shingle forms: (feature,
tf, weight) in order of first occurrence.

Extension 1.10 adds binary weights and MinHash.  ``to_simhash_binary``,
``simhash_ngram_binary``, ``simhash_shingle_binary`` and their ``128`` and
``256`` forms (``to_simhash128_binary``, ``simhash256_shingle_binary`` ...)
are the fingerprints of the same distinct features, each of weight 1
whatever its count.  ``to_minhash(text)``, ``minhash_ngram(text, n=3)`` and
``minhash_shingle(text, n=3)`` give the ``MinHash`` signature of those
distinct features, ``to_minhash(features)`` (a list of str, the SQL
``to_minhash(text[])``) that of the distinct elements, and
``jaccard(a, b)`` is ``simhash_jaccard``: the exact Jaccard similarity of
the distinct features of ``to_simhash`` of two texts.

They follow the extension's fingerprint contract (doc/contract.md):
toNFKC_Casefold with the server's own Unicode 15.0 tables
(``_unicode_tables``, generated from src/text/unicode/unicode_tables.h), the
same tokenizers, XXH3_64bits of each feature's UTF-8 bytes with seed i for
64-bit word i (seed 0 alone for a Simhash), weight 1 + ln(tf) computed with
the same arithmetic as the server, and Charikar's per-bit sums in double
precision in first-occurrence order.  A MinHash hashes each distinct
feature once, XXH3_64bits with seed 0x4D696E4861736831 ("MinHash1"):
its top 8 bits choose one of 256 bins, a bin keeps its smallest hash and
stores the top 4 bits of SplitMix64's output function of it, and an empty
bin takes the value of the first non-empty bin of its own sequence (optimal
densification, src/text/minhash.c).  Needs the
``xxhash`` module (Debian: python3-xxhash; PyPI: xxhash); the rest of
``simhash_pg`` does not.  ``test/crosscheck`` compares them with the server
on every text of its corpus.

A Python ``str`` can hold lone surrogates, which PostgreSQL text cannot:
they are read as U+FFFD, as the server reads ill-formed UTF-8.
"""

import math

from . import _BY_WIDTH, MinHash, minhash_jaccard
from . import _unicode_tables as _t

__all__ = ["to_simhash", "simhash_ngram", "simhash_shingle",
           "to_simhash128", "simhash128_ngram", "simhash128_shingle",
           "to_simhash256", "simhash256_ngram", "simhash256_shingle",
           "to_simhash_binary", "simhash_ngram_binary", "simhash_shingle_binary",
           "to_simhash128_binary", "simhash128_ngram_binary",
           "simhash128_shingle_binary", "to_simhash256_binary",
           "simhash256_ngram_binary", "simhash256_shingle_binary",
           "to_minhash", "minhash_ngram", "minhash_shingle", "minhash_jaccard",
           "jaccard", "features", "ngram_features", "shingle_features",
           "normalize"]

try:
    import xxhash as _xxhash

    def _hash(b, seed=0):
        return _xxhash.xxh3_64_intdigest(b, seed=seed)
except ImportError:             # pragma: no cover - reported on first use
    _xxhash = None

    def _hash(b, seed=0):
        raise ImportError("simhash_pg.fingerprint needs the xxhash module "
                          "(Debian: apt-get install python3-xxhash)")

# character classes (unicode_norm.h)
CC_OTHER, CC_SPACE, CC_WORD, CC_CJK = 0, 1, 2, 3
MAX_GRAM = 64
_MAX_NONSTARTERS = 30

# Hangul (Unicode section 3.12)
_SBASE, _LBASE, _VBASE, _TBASE = 0xAC00, 0x1100, 0x1161, 0x11A7
_LCOUNT, _VCOUNT, _TCOUNT = 19, 21, 28
_SCOUNT = _LCOUNT * _VCOUNT * _TCOUNT

_CP_MASK = _t.UC_ELEM_CP_MASK
_CCC_SHIFT = _t.UC_ELEM_CCC_SHIFT
_BWD = _t.UC_ELEM_BWD
_FWD = _t.UC_ELEM_FWD
_COMP = {(_t.COMP[i], _t.COMP[i + 1]): _t.COMP[i + 2] for i in range(0, len(_t.COMP), 3)}


def _value(cp):
    return _t.STAGE2[(_t.STAGE1[cp >> 8] << 8) | (cp & 0xFF)]


def char_class(cp):
    """Class of a (normalised) code point: CC_OTHER, CC_SPACE, CC_WORD, CC_CJK."""
    if cp > 0x10FFFF:
        return CC_OTHER
    v = _value(cp)
    if v & _t.UC_MAPPED:
        return (_t.POOL[v & _t.UC_OFFSET_MASK] >> _t.UC_HDR_CLASS_SHIFT) & 3
    return (v >> _t.UC_CLASS_SHIFT) & 3


def _elements(cp):
    """The canonically decomposed NFKC_CF mapping of cp, as table elements."""
    v = _value(cp)
    if v & _t.UC_MAPPED:
        off = v & _t.UC_OFFSET_MASK
        n = _t.POOL[off] & _t.UC_HDR_LEN_MASK
        return _t.POOL[off + 1:off + 1 + n]
    return (cp | ((v & 0x3FF) << _CCC_SHIFT),)


def _ccc(e):
    return (e >> _CCC_SHIFT) & 0xFF


def _compose_pair(first, second):
    """Primary composite of two code points as an element, or 0."""
    if 0 <= first - _LBASE < _LCOUNT:
        if 0 <= second - _VBASE < _VCOUNT:
            return (_SBASE + ((first - _LBASE) * _VCOUNT + (second - _VBASE)) * _TCOUNT) | _FWD
        return 0
    if 0 <= first - _SBASE < _SCOUNT:
        if (first - _SBASE) % _TCOUNT == 0 and 0 <= second - (_TBASE + 1) < _TCOUNT - 1:
            return (first + (second - _TBASE)) | _FWD
        return 0
    return _COMP.get((first, second), 0)


def normalize(text):
    """toNFKC_Casefold(text) as the server computes it: a list of code points.

    NFC of the NFKC_CF mapping (decomposition from the tables, canonical
    ordering, canonical composition), with the Stream-Safe rule of
    unicode_norm.h: after 30 consecutive non-starters a boundary is assumed.
    """
    out = []
    starter = None              # element of the current segment's starter
    run = []                    # its non-starters

    def compose_run():
        nonlocal starter, run
        run.sort(key=_ccc)      # stable: canonical ordering
        if starter is None or not (starter & _FWD):
            return
        kept = []
        for e in run:
            if (e & _BWD) and (starter & _FWD) and (not kept or _ccc(kept[-1]) < _ccc(e)):
                c = _compose_pair(starter & _CP_MASK, e & _CP_MASK)
                if c:
                    starter = c
                    continue
            kept.append(e)
        run = kept

    def flush():
        nonlocal starter, run
        if starter is not None:
            out.append(starter & _CP_MASK)
        out.extend(e & _CP_MASK for e in run)
        starter = None
        run = []

    for ch in text:
        cp = ord(ch)
        if 0xD800 <= cp <= 0xDFFF:
            cp = 0xFFFD
        for e in _elements(cp):
            if _ccc(e):
                if len(run) == _MAX_NONSTARTERS:
                    compose_run()
                    flush()
                run.append(e)
                continue
            if run:
                compose_run()
            if starter is not None and not run:
                if (e & _BWD) and (starter & _FWD):
                    c = _compose_pair(starter & _CP_MASK, e & _CP_MASK)
                    if c:
                        starter = c
                        continue
                out.append(starter & _CP_MASK)
                starter = e
                continue
            if starter is not None or run:
                flush()
            starter = e
    if run:
        compose_run()
    if starter is not None or run:
        flush()
    return out


# ------------------------------------------------------------------ weights

def _fixed_ln(x):
    """ln(x), x >= 1, with the server's arithmetic (fingerprint.c)."""
    m, e = math.frexp(x)
    if m < 0.70710678118654752440:
        m *= 2.0
        e -= 1
    z = (m - 1.0) / (m + 1.0)
    z2 = z * z
    p = 1.0 / 29.0
    for k in range(13, -1, -1):
        p = p * z2 + 1.0 / float(2 * k + 1)
    return float(e) * 0.69314718055994530942 + 2.0 * z * p


def tf_weight(tf):
    """Weight of a feature seen tf times in one text: 1 + ln(tf)."""
    return 1.0 if tf <= 1 else 1.0 + _fixed_ln(float(tf))


# ----------------------------------------------------------------- features

def _utf8(cps):
    return "".join(map(chr, cps)).encode("utf-8")


def _counted(feats):
    """Distinct features in order of first occurrence with their counts."""
    tf = {}
    for f in feats:
        tf[f] = tf.get(f, 0) + 1
    return list(tf.items())


def _default_tokens(cps):
    """to_simhash's features: word runs, CJK bigrams (a lone CJK character alone)."""
    word, cjk = [], []
    for cp in cps + [None]:
        cls = CC_OTHER if cp is None else char_class(cp)
        if cls != CC_WORD and word:
            yield _utf8(word)
            word = []
        if cls != CC_CJK and cjk:
            if len(cjk) == 1:
                yield _utf8(cjk)
            cjk = []
        if cls == CC_WORD:
            word.append(cp)
        elif cls == CC_CJK:
            cjk.append(cp)
            if len(cjk) >= 2:
                yield _utf8(cjk[-2:])


def _check_n(n, what):
    if not isinstance(n, int) or n < 1 or n > MAX_GRAM:
        raise ValueError("%s size %r is out of range: it must be between 1 and %d" % (what, n, MAX_GRAM))
    return n


def _windows(items, n, join):
    """The n-gram and shingle rule: each run of n consecutive items (code
    points or tokens) joined into one feature; all of them as one feature
    when there are fewer than n; none when there are none."""
    if not items:
        return []
    if len(items) < n:
        return [join(items)]
    return [join(items[i:i + n]) for i in range(len(items) - n + 1)]


def _ngram_tokens(cps, n):
    chars = []
    pending_space = False
    for cp in cps:
        if char_class(cp) == CC_SPACE:
            pending_space = bool(chars)
            continue
        if pending_space:
            chars.append(0x20)
        chars.append(cp)
        pending_space = False
    return _windows(chars, n, _utf8)


def _shingle_tokens(cps, n):
    toks, cur = [], []
    for cp in cps + [None]:
        cls = CC_OTHER if cp is None else char_class(cp)
        if cls != CC_WORD and cur:
            toks.append(_utf8(cur))
            cur = []
        if cls == CC_CJK:
            toks.append(_utf8([cp]))
        elif cls == CC_WORD:
            cur.append(cp)
    return _windows(toks, n, b" ".join)


def _rows(feats):
    """(feature, tf, weight) of each distinct feature, in order of first
    occurrence."""
    return [(f.decode("utf-8"), tf, tf_weight(tf)) for f, tf in _counted(feats)]


def _fingerprint(rows, width=64, binary=False):
    """Charikar's width-bit fingerprint of (feature, tf, weight) rows.  Word
    i, for each of its bits b: the sum of +weight where bit b of the
    feature's hash with seed i is 1, -weight where it is 0, in row order;
    bit b is set when its sum is positive.  binary: weight 1 for every row
    (the *_binary functions)."""
    nwords = width // 64
    sums = [[0.0] * 64 for _ in range(nwords)]
    for f, _tf, w in rows:
        if binary:
            w = 1.0
        data = f.encode("utf-8")
        for i in range(nwords):
            h = _hash(data, i)
            s = sums[i]
            for b in range(64):
                if (h >> b) & 1:
                    s[b] += w
                else:
                    s[b] -= w
    words = []
    for s in sums:
        v = 0
        for b in range(64):
            if s[b] > 0:
                v |= 1 << b
        words.append(v)
    return _BY_WIDTH[width].from_words(words)


def features(text):
    """The rows of simhash_features(text): (feature, tf, weight)."""
    return _rows(_default_tokens(normalize(text)))


def ngram_features(text, n=3):
    """The rows of simhash_ngram_features(text, n)."""
    return _rows(_ngram_tokens(normalize(text), _check_n(n, "n-gram")))


def shingle_features(text, n=3):
    """The rows of simhash_shingle_features(text, n)."""
    return _rows(_shingle_tokens(normalize(text), _check_n(n, "shingle")))


# A fingerprint is Charikar's over the rows of the same text's features:
# the server's three tokenizers at 64, 128 and 256 bits, weighted (weight
# 1 + ln(tf)) and binary (the same distinct features, each of weight 1),
# from to_simhash(text) to simhash256_shingle_binary(text, n).

def _fingerprint_function(name, rows_of, takes_n, width, binary):
    """The Python twin of the server's fingerprint function name."""
    if takes_n:
        def fn(text, n=3):
            return _fingerprint(rows_of(text, n), width, binary)
    else:
        def fn(text):
            return _fingerprint(rows_of(text), width, binary)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "The server's %s(text%s), as a %s." % (
        name, ", n" if takes_n else "", _BY_WIDTH[width].__name__)
    return fn


for _width in (64, 128, 256):
    for _binary in (False, True):
        _w = "" if _width == 64 else str(_width)
        _b = "_binary" if _binary else ""
        for _name, _rows_of, _takes_n in (
                ("to_simhash%s%s" % (_w, _b), features, False),
                ("simhash%s_ngram%s" % (_w, _b), ngram_features, True),
                ("simhash%s_shingle%s" % (_w, _b), shingle_features, True)):
            globals()[_name] = _fingerprint_function(_name, _rows_of, _takes_n,
                                                     _width, _binary)
del _width, _binary, _w, _b, _name, _rows_of, _takes_n


# ------------------------------------------------------------------ MinHash

_MINHASH_SEED = 0x4D696E4861736831     # "MinHash1" in ASCII
_MINHASH_MAX_TRIES = 1 << 16            # densification tries before the fallback
_WORD = (1 << 64) - 1


def _mix64(z):
    """SplitMix64's output function (Steele, Lea and Flood 2014)."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _WORD
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _WORD
    return z ^ (z >> 31)


# The bins empty bin j tries in turn, mix64((j << 32) | attempt) >> 56 for
# attempt = 1, 2, ...: the same for every signature, so each bin's list is
# kept as far as it has been needed (up to _PROBES_KEPT entries).
_PROBES = [[] for _ in range(MinHash.BINS)]
_PROBES_KEPT = 4096


def _probe(j, attempt):
    probes = _PROBES[j]
    if attempt <= len(probes):
        return probes[attempt - 1]
    t = _mix64((j << 32) | attempt) >> 56
    if attempt == len(probes) + 1 and attempt <= _PROBES_KEPT:
        probes.append(t)
    return t


def _bin_values(hashes, bins=MinHash.BINS, bits=4, probe=_probe):
    """Densified one-permutation MinHash of a set of 64-bit hashes (a
    repeated one changes no minimum): the top log2(bins) bits of a hash its
    bin, the top `bits` bits of mix64 of a bin's smallest hash its value,
    and an empty bin the value of the first non-empty bin of its sequence
    probe(j, attempt) (cyclically the next one after 65536 tries).  No hash
    at all: None.  bench/minhash/designs.py uses it at other bins and bits,
    with a probe of its own."""
    shift = 64 - (bins.bit_length() - 1)
    minh = [None] * bins
    for h in hashes:
        b = h >> shift
        m = minh[b]
        if m is None or h < m:
            minh[b] = h
    if all(m is None for m in minh):
        return None
    v = [None if m is None else _mix64(m) >> (64 - bits) for m in minh]
    for j in range(bins):
        if minh[j] is not None:
            continue
        c = -1
        for attempt in range(1, _MINHASH_MAX_TRIES + 1):
            t = probe(j, attempt)
            if minh[t] is not None:
                c = t
                break
        attempt = 1
        while c < 0:            # never taken in practice
            if minh[(j + attempt) % bins] is not None:
                c = (j + attempt) % bins
            attempt += 1
        v[j] = v[c]
    return v


def _minhash(feats):
    """The signature of an iterable of features (UTF-8 bytes): each
    feature's XXH3 hash of seed "MinHash1", its top 8 bits the bin, 4 bits
    of a mix of each bin's smallest hash as the bin's value (_bin_values).
    No feature at all: 128 zero bytes."""
    v = _bin_values(_hash(f, _MINHASH_SEED) for f in feats)
    if v is None:
        return MinHash._make(bytes(MinHash.BINS // 2))
    return MinHash.from_bins(v)


def _utf8_feature(f, i):
    """The UTF-8 bytes of element i of a feature list; lone surrogates are
    read as U+FFFD, as for text."""
    if f is None:
        raise ValueError("feature array must not contain nulls: element %d is null" % (i + 1))
    if not isinstance(f, str):
        raise TypeError("features must be str, not %s" % type(f).__name__)
    try:
        return f.encode("utf-8")
    except UnicodeEncodeError:
        return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c
                       for c in f).encode("utf-8")


def to_minhash(text):
    """The server's to_minhash: of a str, to_minhash(text), the signature of
    the distinct features of to_simhash(text); of a list (or other iterable)
    of str, to_minhash(text[]), the signature of its distinct elements."""
    if isinstance(text, str):
        return _minhash(_default_tokens(normalize(text)))
    if isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError("to_minhash takes a str or a list of str, not %s"
                        % type(text).__name__)
    return _minhash([_utf8_feature(f, i) for i, f in enumerate(text)])


def minhash_ngram(text, n=3):
    """The server's minhash_ngram(text, n), as a MinHash."""
    return _minhash(_ngram_tokens(normalize(text), _check_n(n, "n-gram")))


def minhash_shingle(text, n=3):
    """The server's minhash_shingle(text, n), as a MinHash."""
    return _minhash(_shingle_tokens(normalize(text), _check_n(n, "shingle")))


def jaccard(a, b):
    """The server's simhash_jaccard(a, b): |A & B| / |A | B| for the
    distinct features A and B of to_simhash(a) and to_simhash(b), compared
    byte for byte; 1.0 when neither has a feature."""
    fa = set(_default_tokens(normalize(a)))
    fb = set(_default_tokens(normalize(b)))
    if not fa and not fb:
        return 1.0
    common = len(fa & fb)
    return float(common) / float(len(fa) + len(fb) - common)
