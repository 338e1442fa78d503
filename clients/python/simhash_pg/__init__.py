"""Python side of the PostgreSQL ``simhash`` extension.

``Simhash`` is an immutable 64-bit fingerprint, the value of a ``simhash``
column.  It speaks the extension's three wire forms:

* text: exactly 16 hexadecimal digits, most significant first
  (``Simhash("f3a90c1e00b2d47f")``, ``str(fp)``);
* binary (``simhash_send``/``simhash_recv``, binary COPY): 8 bytes, network
  byte order (``Simhash.from_bytes(b)``, ``bytes(fp)``);
* the ``bigint`` cast: the same 64 bits read as a signed two's-complement
  integer (``Simhash.from_signed(i)``, ``fp.to_signed()``), because ``int8``
  cannot hold values of 2**63 and above.

Driver glue lives in submodules, imported only when used:
``simhash_pg.psycopg`` (psycopg 3), ``simhash_pg.psycopg2`` and
``simhash_pg.sqlalchemy``.  This module needs nothing but the standard
library.
"""

import re

__all__ = ["Simhash", "hamming", "SEGMENTS"]
__version__ = "1.2.0"

SEGMENTS = 4            # 16-bit segments, as simhash_segment(fp, 0..3)
_MASK = (1 << 64) - 1
_HEX16 = re.compile("[0-9a-fA-F]{16}")      # ASCII only: int(s, 16) is laxer

if hasattr(int, "bit_count"):
    def _popcount(x):
        return x.bit_count()
else:                   # Python < 3.10
    def _popcount(x):
        return bin(x).count("1")


class Simhash:
    """An unsigned 64-bit simhash fingerprint.

    ``Simhash(x)`` accepts another ``Simhash``, an ``int`` in 0 .. 2**64-1,
    16 hex digits (either case, as the server accepts), or 8 big-endian
    bytes.  A negative ``int`` is refused rather than guessed: a value read
    from a ``bigint`` (``fp::bigint``) goes through ``Simhash.from_signed``.

    Equality, hashing and ordering follow the unsigned value, like the
    server's B-tree operator class; a ``Simhash`` never equals a plain int
    or string.
    """

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Simhash):
            v = value._value
        elif isinstance(value, bool):
            raise TypeError("a bool is not a simhash")
        elif isinstance(value, int):
            if value < 0:
                raise ValueError(
                    "negative value %d: use Simhash.from_signed() for the "
                    "bigint form of a simhash" % value)
            if value > _MASK:
                raise ValueError("value %d does not fit in 64 bits" % value)
            v = value
        elif isinstance(value, str):
            v = _parse_hex(value)
        elif isinstance(value, (bytes, bytearray, memoryview)):
            v = _parse_bytes(value)
        else:
            raise TypeError("cannot make a simhash from %s"
                            % type(value).__name__)
        object.__setattr__(self, "_value", v)

    @classmethod
    def _make(cls, v):
        # Trusted 0 .. 2**64-1 (server output): no checks.
        self = object.__new__(cls)
        object.__setattr__(self, "_value", v)
        return self

    # --- conversions ------------------------------------------------------

    @classmethod
    def from_hex(cls, text):
        """16 hex digits, as the server's text form (``'f3a90c1e00b2d47f'``)."""
        if not isinstance(text, str):
            raise TypeError("simhash text must be str, not %s"
                            % type(text).__name__)
        return cls._make(_parse_hex(text))

    @classmethod
    def from_signed(cls, value):
        """The signed 64-bit integer of ``fp::bigint`` (two's complement)."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError("expected an int, not %s" % type(value).__name__)
        if not -(1 << 63) <= value < (1 << 63):
            raise ValueError("%d is out of range for bigint" % value)
        return cls._make(value & _MASK)

    @classmethod
    def from_bytes(cls, data):
        """8 bytes, most significant first (the binary wire form)."""
        return cls._make(_parse_bytes(data))

    @property
    def value(self):
        """The fingerprint as an unsigned int, 0 .. 2**64-1."""
        return self._value

    def hex(self):
        """16 lower-case hex digits, as the server prints a simhash."""
        return "%016x" % self._value

    def to_signed(self):
        """The same 64 bits as a signed int, for ``%s::bigint::simhash``."""
        v = self._value
        return v - (1 << 64) if v >> 63 else v

    def to_bytes(self):
        """8 bytes, network byte order: ``simhash_send``, ``fp::bytea``."""
        return self._value.to_bytes(8, "big")

    __bytes__ = to_bytes

    def __int__(self):
        return self._value

    def __str__(self):
        return self.hex()

    def __repr__(self):
        return "Simhash('%016x')" % self._value

    def __format__(self, spec):
        # format(fp, "064b") and friends format the unsigned value
        return format(self._value, spec) if spec else self.hex()

    # --- distance and structure ------------------------------------------

    def hamming(self, other):
        """Number of differing bits, 0..64: the server's ``a <-> b``."""
        return _popcount(self._value ^ _as_value(other))

    distance = hamming

    def within(self, other, k):
        """``simhash_within(self, other, k)``: distance at most k."""
        return self.hamming(other) <= k

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

    def bit(self, b):
        """Bit b, 0 = least significant: ``(value >> b) & 1``."""
        if not 0 <= b < 64:
            raise ValueError("bit number %d is out of range (0..63)" % b)
        return (self._value >> b) & 1

    def flip(self, *bits):
        """A new fingerprint with the given bits (0..63) inverted."""
        v = self._value
        for b in bits:
            if not 0 <= b < 64:
                raise ValueError("bit number %d is out of range (0..63)" % b)
            v ^= 1 << b
        return Simhash._make(v)

    # --- value semantics ----------------------------------------------------

    def __eq__(self, other):
        if isinstance(other, Simhash):
            return self._value == other._value
        return NotImplemented

    def __ne__(self, other):
        if isinstance(other, Simhash):
            return self._value != other._value
        return NotImplemented

    def __lt__(self, other):
        if isinstance(other, Simhash):
            return self._value < other._value
        return NotImplemented

    def __le__(self, other):
        if isinstance(other, Simhash):
            return self._value <= other._value
        return NotImplemented

    def __gt__(self, other):
        if isinstance(other, Simhash):
            return self._value > other._value
        return NotImplemented

    def __ge__(self, other):
        if isinstance(other, Simhash):
            return self._value >= other._value
        return NotImplemented

    def __hash__(self):
        return hash((Simhash, self._value))

    def __setattr__(self, name, value):
        raise AttributeError("Simhash is immutable")

    def __delattr__(self, name):
        raise AttributeError("Simhash is immutable")

    def __reduce__(self):
        return (Simhash, (self._value,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def hamming(a, b):
    """Hamming distance of two fingerprints given in any form Simhash() takes."""
    return _popcount(_as_value(a) ^ _as_value(b))


def _as_value(x):
    if isinstance(x, Simhash):
        return x._value
    return Simhash(x)._value


def _parse_hex(text):
    if not _HEX16.fullmatch(text):
        raise ValueError("invalid simhash text %r: want exactly 16 hexadecimal "
                         "digits" % (text,))
    return int(text, 16)


def _parse_bytes(data):
    data = bytes(data)
    if len(data) != 8:
        raise ValueError("a simhash is 8 bytes, not %d" % len(data))
    return int.from_bytes(data, "big")
