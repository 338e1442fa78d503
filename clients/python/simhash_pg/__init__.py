"""Python side of the PostgreSQL ``simhash`` extension.

``Simhash`` is an immutable 64-bit fingerprint, the value of a ``simhash``
column; ``Simhash128`` and ``Simhash256`` are the wide fingerprints of
``simhash128`` and ``simhash256`` columns (extension 1.5).  A width-W
fingerprint is W/64 64-bit words, word 0 first; word 0 of a wide
fingerprint of a text is the 64-bit fingerprint of the same text.  Each
speaks the extension's wire forms:

* text: exactly W/4 hexadecimal digits, the words in order, each most
  significant digit first (``Simhash("f3a90c1e00b2d47f")``, ``str(fp)``);
* binary (send/recv, binary COPY, the ``bytea`` cast): W/8 bytes, the same
  order (``Simhash.from_bytes(b)``, ``bytes(fp)``);
* for ``Simhash`` only, the ``bigint`` cast: the same 64 bits read as a
  signed two's-complement integer (``Simhash.from_signed(i)``,
  ``fp.to_signed()``), because ``int8`` cannot hold values of 2**63 and
  above.

``.value`` is the unsigned integer of the text form, so its order is the
server's B-tree order.  ``similarity(a, b)`` and ``radius(s, bits)`` are
``simhash_similarity`` and ``simhash_radius``.

``MinHash`` is the value of a ``minhash`` column (extension 1.10): a
signature of a feature set, 256 bins of 4 bits.  Text form: exactly 256
hexadecimal digits, digit i the value of bin i (``str(m)``,
``MinHash.from_hex``); binary form: 128 bytes, bin 2i in the high nibble of
byte i (``bytes(m)``, ``MinHash.from_bytes``).  ``minhash_jaccard(a, b)``
and ``m.jaccard(other)`` are the server's ``minhash_jaccard``.

Driver glue lives in submodules, imported only when used:
``simhash_pg.psycopg`` (psycopg 3), ``simhash_pg.psycopg2``,
``simhash_pg.sqlalchemy``, ``simhash_pg.django`` (a model field and its
lookups) and ``simhash_pg.asyncpg`` (codecs).  This module needs nothing but the standard
library.

``__version__`` follows the extension: simhash_pg X.Y.0 is the client of
extension X.Y (``default_version`` in simhash.control; test/package checks
that they agree).  ``Simhash`` and the ``simhash`` adapters work with
extension 1.0 and later; the wide types and the SQL functions
``simhash_similarity`` and ``simhash_radius`` need 1.5 or later; ``MinHash``
and its adapters need 1.10 or later.
"""

import math
import re

__all__ = ["Simhash", "Simhash128", "Simhash256", "hamming", "similarity",
           "radius", "SEGMENTS", "MinHash", "minhash_jaccard"]
__version__ = "1.14.0"

SEGMENTS = 4            # 16-bit segments, as simhash_segment(fp, 0..3)
_WORD = (1 << 64) - 1

if hasattr(int, "bit_count"):
    def _popcount(x):
        return x.bit_count()
else:                   # Python < 3.10
    def _popcount(x):
        return bin(x).count("1")


class _Fingerprint:
    """What every width shares; a subclass sets WIDTH and _TYPE (the SQL
    type name, for messages).

    The value is the unsigned integer of the text form: word 0 in its most
    significant 64 bits.  Bit b (``bit``, ``flip``) is bit b % 64 of word
    b // 64, so bits 0..63 are those of the 64-bit prefix.
    """

    __slots__ = ("_value",)
    WIDTH = 0
    _TYPE = ""

    def __init__(self, value):
        cls = type(self)
        if isinstance(value, _Fingerprint):
            if value.WIDTH != cls.WIDTH:
                raise TypeError(
                    "a %d-bit fingerprint is not a %s: use .prefix(%d) to "
                    "shorten a wider one" % (value.WIDTH, cls._TYPE, cls.WIDTH))
            v = value._value
        elif isinstance(value, bool):
            raise TypeError("a bool is not a %s" % cls._TYPE)
        elif isinstance(value, int):
            if value < 0:
                raise ValueError(cls._negative_message(value))
            if value >> cls.WIDTH:
                raise ValueError("value %d does not fit in %d bits"
                                 % (value, cls.WIDTH))
            v = value
        elif isinstance(value, str):
            v = cls._parse_hex(value)
        elif isinstance(value, (bytes, bytearray, memoryview)):
            v = cls._parse_bytes(value)
        else:
            raise TypeError("cannot make a %s from %s"
                            % (cls._TYPE, type(value).__name__))
        object.__setattr__(self, "_value", v)

    @classmethod
    def _negative_message(cls, value):
        return "negative value %d: a %s is unsigned" % (value, cls._TYPE)

    @classmethod
    def _make(cls, v):
        # Trusted 0 .. 2**WIDTH-1 (server output): no checks.
        return _trusted(cls, "_value", v)

    @classmethod
    def _parse_hex(cls, text):
        _check_hex(text, cls.WIDTH // 4, cls._TYPE)
        return int(text, 16)

    @classmethod
    def _parse_bytes(cls, data):
        data = bytes(data)
        _check_count(cls._TYPE, cls.WIDTH // 8, len(data), "bytes")
        return int.from_bytes(data, "big")

    # --- conversions ------------------------------------------------------

    @classmethod
    def from_hex(cls, text):
        """W/4 hex digits, the server's text form."""
        if not isinstance(text, str):
            raise TypeError("%s text must be str, not %s"
                            % (cls._TYPE, type(text).__name__))
        return cls._make(cls._parse_hex(text))

    @classmethod
    def from_bytes(cls, data):
        """W/8 bytes, word 0 first, each big-endian (the binary wire form)."""
        return cls._make(cls._parse_bytes(data))

    @classmethod
    def from_words(cls, words):
        """The fingerprint of W/64 unsigned 64-bit words, word 0 first."""
        words = list(words)
        _check_count(cls._TYPE, cls.WIDTH // 64, len(words), "words")
        v = 0
        for w in words:
            if isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= _WORD:
                raise ValueError("word %r is not an unsigned 64-bit int" % (w,))
            v = (v << 64) | w
        return cls._make(v)

    @property
    def value(self):
        """The fingerprint as an unsigned int: the text form read in base 16."""
        return self._value

    @property
    def bits(self):
        """The width W: 64, 128 or 256."""
        return self.WIDTH

    def hex(self):
        """W/4 lower-case hex digits, as the server prints the value."""
        return format(self._value, "0%dx" % (self.WIDTH // 4))

    def to_bytes(self):
        """W/8 bytes: send/recv, ``fp::bytea``."""
        return self._value.to_bytes(self.WIDTH // 8, "big")

    __bytes__ = to_bytes

    def words(self):
        """The W/64 unsigned 64-bit words, word 0 first."""
        n = self.WIDTH // 64
        return tuple((self._value >> (64 * (n - 1 - i))) & _WORD for i in range(n))

    def word(self, i):
        """64-bit word i (0 = first in the text form)."""
        n = self.WIDTH // 64
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError("word number must be an int")
        if not 0 <= i < n:
            raise ValueError("word number %d is out of range (0..%d)" % (i, n - 1))
        return (self._value >> (64 * (n - 1 - i))) & _WORD

    def prefix(self, bits):
        """The first ``bits`` bits (64 or 128, at most the width): what the
        server's cast to the narrower type gives."""
        cls = _BY_WIDTH.get(bits)
        if cls is None or bits > self.WIDTH:
            raise ValueError("cannot take a %d-bit prefix of a %s"
                             % (bits, self._TYPE))
        return cls._make(self._value >> (self.WIDTH - bits))

    def __int__(self):
        return self._value

    def __str__(self):
        return self.hex()

    def __repr__(self):
        return "%s('%s')" % (type(self).__name__, self.hex())

    def __format__(self, spec):
        # format(fp, "0128b") and friends format the unsigned value
        return format(self._value, spec) if spec else self.hex()

    # --- distance and structure ------------------------------------------

    def _other(self, other):
        if isinstance(other, _Fingerprint):
            if other.WIDTH != self.WIDTH:
                raise TypeError("distance between a %s and a %s: the widths "
                                "differ" % (self._TYPE, other._TYPE))
            return other._value
        return type(self)(other)._value

    def hamming(self, other):
        """Number of differing bits, 0..W: the server's ``a <-> b``."""
        return _popcount(self._value ^ self._other(other))

    distance = hamming

    def within(self, other, k):
        """``simhash_within(self, other, k)``: distance at most k."""
        return self.hamming(other) <= k

    def similarity(self, other):
        """``simhash_similarity(self, other)``: cos(pi * d / W)."""
        return _similarity(self.hamming(other), self.WIDTH)

    def _shift(self, b):
        if isinstance(b, bool) or not isinstance(b, int):
            raise TypeError("bit number must be an int")
        if not 0 <= b < self.WIDTH:
            raise ValueError("bit number %d is out of range (0..%d)"
                             % (b, self.WIDTH - 1))
        return self.WIDTH - 64 * (b // 64 + 1) + b % 64

    def bit(self, b):
        """Bit b: bit b % 64 of word b // 64 (``(word >> b) & 1``)."""
        return (self._value >> self._shift(b)) & 1

    def flip(self, *bits):
        """A new fingerprint with the given bits inverted (numbered as bit())."""
        v = self._value
        for b in bits:
            v ^= 1 << self._shift(b)
        return type(self)._make(v)

    # --- value semantics ----------------------------------------------------
    # Only fingerprints of one width compare, as on the server.

    def _same(self, other):
        return isinstance(other, _Fingerprint) and other.WIDTH == self.WIDTH

    def __eq__(self, other):
        if self._same(other):
            return self._value == other._value
        return NotImplemented

    def __ne__(self, other):
        if self._same(other):
            return self._value != other._value
        return NotImplemented

    def __lt__(self, other):
        if self._same(other):
            return self._value < other._value
        return NotImplemented

    def __le__(self, other):
        if self._same(other):
            return self._value <= other._value
        return NotImplemented

    def __gt__(self, other):
        if self._same(other):
            return self._value > other._value
        return NotImplemented

    def __ge__(self, other):
        if self._same(other):
            return self._value >= other._value
        return NotImplemented

    def __hash__(self):
        return hash((_BY_WIDTH[self.WIDTH], self._value))

    def __setattr__(self, name, value):
        raise AttributeError("%s is immutable" % type(self).__name__)

    def __delattr__(self, name):
        raise AttributeError("%s is immutable" % type(self).__name__)

    def __reduce__(self):
        return (type(self), (self._value,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


class Simhash(_Fingerprint):
    """An unsigned 64-bit simhash fingerprint.

    ``Simhash(x)`` accepts another ``Simhash``, an ``int`` in 0 .. 2**64-1,
    16 hex digits (either case, as the server accepts), or 8 big-endian
    bytes.  A negative ``int`` is refused rather than guessed: a value read
    from a ``bigint`` (``fp::bigint``) goes through ``Simhash.from_signed``.

    Equality, hashing and ordering follow the unsigned value, like the
    server's B-tree operator class; a ``Simhash`` never equals a plain int
    or string, nor a wider fingerprint.
    """

    __slots__ = ()
    WIDTH = 64
    _TYPE = "simhash"

    @classmethod
    def _negative_message(cls, value):
        return ("negative value %d: use Simhash.from_signed() for the "
                "bigint form of a simhash" % value)

    @classmethod
    def from_signed(cls, value):
        """The signed 64-bit integer of ``fp::bigint`` (two's complement)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("expected an int, not %s" % type(value).__name__)
        if not -(1 << 63) <= value < (1 << 63):
            raise ValueError("%d is out of range for bigint" % value)
        return cls._make(value & _WORD)

    def to_signed(self):
        """The same 64 bits as a signed int, for ``%s::bigint::simhash``."""
        v = self._value
        return v - (1 << 64) if v >> 63 else v

    def segment(self, i):
        """16-bit segment i (0 = most significant), as ``simhash_segment``."""
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError("segment number must be an int")
        if not 0 <= i < SEGMENTS:
            raise ValueError("segment number %d is out of range (0..3)" % i)
        return (self._value >> (48 - 16 * i)) & 0xFFFF

    def segments(self):
        """The four 16-bit segments, most significant first."""
        return tuple(self.segment(i) for i in range(SEGMENTS))


class Simhash128(_Fingerprint):
    """An unsigned 128-bit fingerprint (``simhash128``): 32 hex digits or
    16 bytes, words 0 and 1."""

    __slots__ = ()
    WIDTH = 128
    _TYPE = "simhash128"


class Simhash256(_Fingerprint):
    """An unsigned 256-bit fingerprint (``simhash256``): 64 hex digits or
    32 bytes, words 0 to 3."""

    __slots__ = ()
    WIDTH = 256
    _TYPE = "simhash256"


_BY_WIDTH = {64: Simhash, 128: Simhash128, 256: Simhash256}
_HEXDIGITS = frozenset("0123456789abcdefABCDEF")


def _check_hex(text, n, what):
    """The server's rule for a value's text: exactly n ASCII hexadecimal
    digits (int(s, 16) and bytes.fromhex are laxer); else ValueError."""
    if len(text) != n or not all(c in _HEXDIGITS for c in text):
        raise ValueError("invalid %s text %r: want exactly %d hexadecimal "
                         "digits" % (what, text, n))


def _check_count(what, want, got, unit):
    """A what is want bytes or words (unit); else ValueError."""
    if got != want:
        raise ValueError("a %s is %d %s, not %d" % (what, want, unit, got))


def _trusted(cls, attr, v):
    """A cls of slot attr v, unchecked (server output)."""
    self = object.__new__(cls)
    object.__setattr__(self, attr, v)
    return self


def _class_of(x):
    """The fingerprint class of a value given in any form: its own class,
    else by the length of its text or bytes; an int is a Simhash."""
    if isinstance(x, _Fingerprint):
        return type(x)
    if isinstance(x, str):
        return {32: Simhash128, 64: Simhash256}.get(len(x), Simhash)
    if isinstance(x, (bytes, bytearray, memoryview)):
        return {16: Simhash128, 32: Simhash256}.get(len(bytes(x)), Simhash)
    return Simhash


def _pair(a, b):
    cls = _class_of(a) if isinstance(a, _Fingerprint) or not isinstance(b, _Fingerprint) \
        else _class_of(b)
    return cls(a), cls(b)


def hamming(a, b):
    """Hamming distance of two fingerprints of one width, given in any form
    their class takes (a Simhash, Simhash128 or Simhash256 decides; else
    the length of the text or bytes)."""
    a, b = _pair(a, b)
    return a.hamming(b)


def _similarity(d, width):
    return math.cos(math.pi * d / width)


def similarity(a, b):
    """``simhash_similarity(a, b)``: cos(pi * d / W), d the Hamming
    distance, W the width; Charikar's estimate of the cosine similarity of
    the two texts' weighted feature vectors, the same meaning at every
    width."""
    a, b = _pair(a, b)
    return a.similarity(b)


def radius(similarity, bits):
    """``simhash_radius(similarity, bits)``: the largest k in 0..bits with
    cos(pi * k / bits) >= similarity, so ``hamming(a, b) <= radius(s, W)``
    states the threshold ``similarity(a, b) >= s``."""
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise TypeError("bits must be an int")
    if bits not in _BY_WIDTH:       # the server's 22023
        raise ValueError("fingerprint width %d is not supported: the widths "
                         "are 64, 128 and 256 bits" % bits)
    s = float(similarity)
    if not -1.0 <= s <= 1.0:
        raise ValueError("similarity %r is not between -1 and 1" % (similarity,))
    # cos falls on 0..pi: the first k below s ends the run
    k = 0
    while k < bits and _similarity(k + 1, bits) >= s:
        k += 1
    return k


# ------------------------------------------------------------------ MinHash

MINHASH_BINS = 256      # bins of a minhash signature, 4 bits each


class MinHash:
    """A MinHash signature (``minhash``, extension 1.10): 256 bins of 4 bits.

    One-permutation hashing with optimal densification (doc/minhash.md):
    two feature sets agree in a bin with probability their Jaccard
    similarity J, and 4-bit values of different features agree with
    probability 1/16, so ``jaccard`` corrects for that.  The signature of no
    feature at all is 128 zero bytes.

    ``MinHash(x)`` accepts another ``MinHash``, 256 hex digits (either case,
    as the server accepts; digit i is bin i) or 128 bytes (bin 2i in the
    high nibble of byte i).  Equality and hashing follow the 128 bytes; a
    ``MinHash`` never equals a string or bytes.  There is no order: the
    server has none either.
    """

    __slots__ = ("_bytes",)
    BINS = MINHASH_BINS
    _TYPE = "minhash"

    def __init__(self, value):
        if isinstance(value, MinHash):
            b = value._bytes
        elif isinstance(value, str):
            b = self._parse_hex(value)
        elif isinstance(value, (bytes, bytearray, memoryview)):
            b = self._parse_bytes(value)
        else:
            raise TypeError("cannot make a minhash from %s" % type(value).__name__)
        object.__setattr__(self, "_bytes", b)

    @classmethod
    def _make(cls, b):
        # Trusted 128 bytes (server output, the signature functions): no checks.
        return _trusted(cls, "_bytes", b)

    @classmethod
    def _parse_hex(cls, text):
        _check_hex(text, cls.BINS, "minhash")
        return bytes.fromhex(text)

    @classmethod
    def _parse_bytes(cls, data):
        data = bytes(data)
        _check_count("minhash", cls.BINS // 2, len(data), "bytes")
        return data

    # --- conversions ------------------------------------------------------

    @classmethod
    def from_hex(cls, text):
        """256 hex digits, the server's text form: digit i is bin i."""
        if not isinstance(text, str):
            raise TypeError("minhash text must be str, not %s" % type(text).__name__)
        return cls._make(cls._parse_hex(text))

    @classmethod
    def from_bytes(cls, data):
        """128 bytes, the binary wire form: bin 2i in the high nibble of
        byte i."""
        return cls._make(cls._parse_bytes(data))

    @classmethod
    def from_bins(cls, values):
        """The signature of 256 bin values, each an int in 0..15, bin 0 first."""
        values = list(values)
        if len(values) != cls.BINS:
            raise ValueError("a minhash is %d bins, not %d" % (cls.BINS, len(values)))
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 15:
                raise ValueError("bin value %r is not an int in 0..15" % (v,))
        return cls._make(bytes((values[i] << 4) | values[i + 1]
                               for i in range(0, cls.BINS, 2)))

    def hex(self):
        """256 lower-case hex digits, as the server prints the value."""
        return self._bytes.hex()

    def to_bytes(self):
        """128 bytes: send/recv, binary COPY."""
        return self._bytes

    __bytes__ = to_bytes

    def bins(self):
        """The 256 bin values (0..15), bin 0 first."""
        return tuple(v for b in self._bytes for v in (b >> 4, b & 0x0F))

    def bin(self, i):
        """The value of bin i (0..255)."""
        if isinstance(i, bool) or not isinstance(i, int):
            raise TypeError("bin number must be an int")
        if not 0 <= i < self.BINS:
            raise ValueError("bin number %d is out of range (0..%d)" % (i, self.BINS - 1))
        b = self._bytes[i // 2]
        return b & 0x0F if i % 2 else b >> 4

    def __str__(self):
        return self.hex()

    def __repr__(self):
        return "MinHash('%s')" % self.hex()

    # --- similarity -------------------------------------------------------

    def _other(self, other):
        if isinstance(other, MinHash):
            return other._bytes
        return MinHash(other)._bytes

    def equal_bins(self, other):
        """The number of bins (0..256) in which the two signatures agree."""
        differ = 0
        for x, y in zip(self._bytes, self._other(other)):
            d = x ^ y
            differ += ((d & 0xF0) != 0) + ((d & 0x0F) != 0)
        return self.BINS - differ

    def jaccard(self, other):
        """``minhash_jaccard(self, other)``: the estimated Jaccard similarity
        of the two feature sets.  With m of 256 bins equal, (m/256 - 1/16) /
        (1 - 1/16) clamped to [0, 1], in the server's arithmetic."""
        p = float(self.equal_bins(other)) / self.BINS
        j = (p - 1.0 / 16) / (1.0 - 1.0 / 16)
        return 0.0 if j < 0.0 else 1.0 if j > 1.0 else j

    # --- value semantics ----------------------------------------------------

    def __eq__(self, other):
        if isinstance(other, MinHash):
            return self._bytes == other._bytes
        return NotImplemented

    def __ne__(self, other):
        if isinstance(other, MinHash):
            return self._bytes != other._bytes
        return NotImplemented

    def __hash__(self):
        return hash((MinHash, self._bytes))

    def __setattr__(self, name, value):
        raise AttributeError("MinHash is immutable")

    def __delattr__(self, name):
        raise AttributeError("MinHash is immutable")

    def __reduce__(self):
        return (MinHash, (self._bytes,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def minhash_jaccard(a, b):
    """``minhash_jaccard(a, b)``: the estimated Jaccard similarity of the
    feature sets of two signatures, each a ``MinHash`` or its hex text or
    bytes."""
    return MinHash(a).jaccard(b)
