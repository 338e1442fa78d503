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

They follow the extension's fingerprint contract (doc/contract.md):
toNFKC_Casefold with the server's own Unicode 15.0 tables
(``_unicode_tables``, generated from src/unicode/unicode_tables.h), the
same tokenizers, XXH3_64bits of each feature's UTF-8 bytes with seed i for
64-bit word i (seed 0 alone for a Simhash), weight 1 + ln(tf) computed with
the same arithmetic as the server, and Charikar's per-bit sums in double
precision in first-occurrence order.  Needs the
``xxhash`` module (Debian: python3-xxhash; PyPI: xxhash); the rest of
``simhash_pg`` does not.  ``test/crosscheck`` compares them with the server
on every text of its corpus.

A Python ``str`` can hold lone surrogates, which PostgreSQL text cannot:
they are read as U+FFFD, as the server reads ill-formed UTF-8.
"""

import math

from . import _BY_WIDTH
from . import _unicode_tables as _t

__all__ = ["to_simhash", "simhash_ngram", "simhash_shingle",
           "to_simhash128", "simhash128_ngram", "simhash128_shingle",
           "to_simhash256", "simhash256_ngram", "simhash256_shingle",
           "features", "ngram_features", "shingle_features", "normalize"]

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


def _fingerprint(rows, width=64):
    """Charikar's width-bit fingerprint of (feature, tf, weight) rows.  Word
    i, for each of its bits b: the sum of +weight where bit b of the
    feature's hash with seed i is 1, -weight where it is 0, in row order;
    bit b is set when its sum is positive."""
    nwords = width // 64
    sums = [[0.0] * 64 for _ in range(nwords)]
    for f, _tf, w in rows:
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


# A fingerprint is Charikar's over the rows of the same text's features.

def to_simhash(text):
    """The server's to_simhash(text), as a Simhash."""
    return _fingerprint(features(text))


def simhash_ngram(text, n=3):
    """The server's simhash_ngram(text, n), as a Simhash."""
    return _fingerprint(ngram_features(text, n))


def simhash_shingle(text, n=3):
    """The server's simhash_shingle(text, n), as a Simhash."""
    return _fingerprint(shingle_features(text, n))


def to_simhash128(text):
    """The server's to_simhash128(text), as a Simhash128."""
    return _fingerprint(features(text), 128)


def simhash128_ngram(text, n=3):
    """The server's simhash128_ngram(text, n), as a Simhash128."""
    return _fingerprint(ngram_features(text, n), 128)


def simhash128_shingle(text, n=3):
    """The server's simhash128_shingle(text, n), as a Simhash128."""
    return _fingerprint(shingle_features(text, n), 128)


def to_simhash256(text):
    """The server's to_simhash256(text), as a Simhash256."""
    return _fingerprint(features(text), 256)


def simhash256_ngram(text, n=3):
    """The server's simhash256_ngram(text, n), as a Simhash256."""
    return _fingerprint(ngram_features(text, n), 256)


def simhash256_shingle(text, n=3):
    """The server's simhash256_shingle(text, n), as a Simhash256."""
    return _fingerprint(shingle_features(text, n), 256)
