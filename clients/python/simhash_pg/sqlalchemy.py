"""SQLAlchemy support for the simhash type.

    from sqlalchemy import select
    from simhash_pg import Simhash
    from simhash_pg.sqlalchemy import SimhashType

    class Doc(Base):
        __tablename__ = "docs"
        id = Column(BigInteger, primary_key=True)
        fp = Column(SimhashType)

    q = Simhash("f3a90c1e00b2d47f")
    select(Doc).where(Doc.fp.hamming(q) <= 3)      # GIN index: radius
    select(Doc).order_by(Doc.fp.hamming(q)).limit(10)   # GiST index: nearest

``Doc.fp.hamming(q) <= 3`` renders ``docs.fp <-> CAST(:fp_1 AS simhash) <=
:param_1``, the form the extension's planner support turns into an index
scan.  Importing this module also gives ``func.simhash_within``,
``func.hamming_distance``, ``func.to_simhash`` and the other functions of
the extension their return types, and casts their fingerprint arguments
(``Simhash`` values or hex strings) to ``simhash``.  Values are bound as
hex text inside the CAST, so no driver adapter is needed (tested with
psycopg2; a registered simhash_pg.psycopg2 adapter does no harm).

``Simhash128Type`` and ``Simhash256Type`` are the ``simhash128`` and
``simhash256`` column types (values ``Simhash128``, ``Simhash256``), with
``hamming``, ``within`` and ``similarity`` in their comparators; the wide
functions (``func.to_simhash128``, ``func.simhash256_ngram``,
``func.simhash128_agg`` ...) return them, and a fingerprint argument is
cast to the type of its width.  The binary-weight functions of 1.10
(``func.to_simhash_binary``, ``func.simhash256_shingle_binary`` ...) are
typed the same way.

``MinhashType`` is the ``minhash`` column type (extension 1.10; values
``MinHash``), whose comparator has ``jaccard(other)``
(``minhash_jaccard``, a Float); ``func.to_minhash``, ``func.minhash_ngram``
and ``func.minhash_shingle`` return it, ``func.minhash_jaccard`` casts its
``MinHash`` arguments to ``minhash``, and ``func.simhash_jaccard`` is a
Float.
"""

from sqlalchemy import Boolean, Float, Integer, cast, literal
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.sql.functions import GenericFunction
from sqlalchemy.types import UserDefinedType

from . import MinHash, Simhash, Simhash128, Simhash256, _class_of

__all__ = ["SimhashType", "Simhash128Type", "Simhash256Type", "MinhashType",
           "simhash_literal", "minhash_literal"]


class _FingerprintType(UserDefinedType):
    """What the column types of every width share; a subclass sets
    ``_cls``, the fingerprint class."""

    cache_ok = True
    _cls = Simhash

    def get_col_spec(self, **kw):
        return self._cls._TYPE

    def bind_processor(self, dialect):
        cls = self._cls

        def process(value):
            if value is None:
                return None
            if not isinstance(value, cls):
                value = cls(value)
            return value.hex()
        return process

    def bind_expression(self, bindvalue):
        # Typed on the server whatever type the driver gives the text
        return cast(bindvalue, self)

    def literal_processor(self, dialect):
        cls = self._cls

        def process(value):
            if not isinstance(value, cls):
                value = cls(value)
            return "'%s'" % value.hex()
        return process

    def result_processor(self, dialect, coltype):
        cls = self._cls

        def process(value):
            if value is None or isinstance(value, cls):
                return value        # a registered driver adapter did it
            return cls.from_hex(value)
        return process

    @property
    def python_type(self):
        return self._cls

    class comparator_factory(UserDefinedType.Comparator):
        def hamming(self, other):
            """``fp <-> other``: the Hamming distance, an Integer.

            Compare it with a radius (``<= k``, ``< k``, ``== k``) for an
            index scan, or order by it for nearest neighbours.
            """
            # PostgreSQL binds user operators tighter than comparisons and
            # looser than + and -: precedence 6 sits between them here.
            return self.op("<->", precedence=6, return_type=Integer)(other)

        def within(self, other, k):
            """``simhash_within(fp, other, k)``, the function form."""
            return simhash_within(self.expr, other, k)

        def similarity(self, other):
            """``simhash_similarity(fp, other)``: cos(pi * d / W), a Float."""
            return simhash_similarity(self.expr, other)


class SimhashType(_FingerprintType):
    """The ``simhash`` column type; Python values are ``Simhash``."""

    cache_ok = True
    _cls = Simhash

    class comparator_factory(_FingerprintType.comparator_factory):
        def in_ball(self, center, k):
            """``fp <@ simhash_ball(center, k)``, the index operator itself."""
            return self.op("<@", precedence=5, is_comparison=True,
                           return_type=Boolean)(simhash_ball(center, k))


class Simhash128Type(_FingerprintType):
    """The ``simhash128`` column type; Python values are ``Simhash128``."""

    cache_ok = True
    _cls = Simhash128


class Simhash256Type(_FingerprintType):
    """The ``simhash256`` column type; Python values are ``Simhash256``."""

    cache_ok = True
    _cls = Simhash256


class MinhashType(_FingerprintType):
    """The ``minhash`` column type; Python values are ``MinHash`` (256 hex
    digits bound inside a CAST, as the fingerprints)."""

    cache_ok = True
    _cls = MinHash

    class comparator_factory(UserDefinedType.Comparator):
        def jaccard(self, other):
            """``minhash_jaccard(m, other)``: the estimated Jaccard
            similarity, a Float."""
            return minhash_jaccard(self.expr, other)


_TYPES = {Simhash: SimhashType, Simhash128: Simhash128Type, Simhash256: Simhash256Type}


def simhash_literal(value):
    """A bound fingerprint, for hand-written expressions: typed by its
    class, or for text and bytes by their length (``simhash`` otherwise)."""
    return literal(value, _TYPES[_class_of(value)]())


def minhash_literal(value):
    """A bound ``MinHash`` (or its hex text or bytes), typed minhash."""
    return literal(value, MinhashType())


class _SimhashFunction(GenericFunction):
    """A function of the extension: the arguments at positions
    ``_simhash_args`` are fingerprints, typed simhash when given as values
    (minhash when ``_minhash`` is set)."""

    _register = False
    _simhash_args = ()
    _minhash = False
    inherit_cache = True

    def __init__(self, *args, **kwargs):
        typed = minhash_literal if self._minhash else simhash_literal
        args = [
            typed(a)
            if i in self._simhash_args and not isinstance(a, ClauseElement)
            and not hasattr(a, "__clause_element__")
            else a
            for i, a in enumerate(args)]
        super().__init__(*args, **kwargs)


def _function(name, type_=None, simhash_args=(), minhash=False):
    """The class of the extension's function ``name`` (``func.<name>``):
    its return type, and the positions of its fingerprint arguments
    (minhash signatures if ``minhash``).  GenericFunction registers it under
    its class name on creation."""
    attrs = {"_simhash_args": simhash_args, "_minhash": minhash, "inherit_cache": True,
             "__doc__": "``%s(...)``, a function of the extension." % name}
    if type_ is not None:
        attrs["type"] = type_
    return type(name, (_SimhashFunction,), attrs)


simhash_within = _function("simhash_within", Boolean(), (0, 1))
hamming_distance = _function("hamming_distance", Integer(), (0, 1))
hamming_distance_int = _function("hamming_distance_int", Integer(), (0, 1))
simhash_segment = _function("simhash_segment", Integer(), (0,))
simhash_ball = _function("simhash_ball", simhash_args=(0,))
to_simhash = _function("to_simhash", SimhashType())
simhash_ngram = _function("simhash_ngram", SimhashType())
simhash_shingle = _function("simhash_shingle", SimhashType())
simhash_agg = _function("simhash_agg", SimhashType())
simhash_similarity = _function("simhash_similarity", Float(), (0, 1))
simhash_radius = _function("simhash_radius", Integer())
to_simhash128 = _function("to_simhash128", Simhash128Type())
simhash128_ngram = _function("simhash128_ngram", Simhash128Type())
simhash128_shingle = _function("simhash128_shingle", Simhash128Type())
simhash128_agg = _function("simhash128_agg", Simhash128Type())
to_simhash256 = _function("to_simhash256", Simhash256Type())
simhash256_ngram = _function("simhash256_ngram", Simhash256Type())
simhash256_shingle = _function("simhash256_shingle", Simhash256Type())
simhash256_agg = _function("simhash256_agg", Simhash256Type())
to_simhash_binary = _function("to_simhash_binary", SimhashType())
simhash_ngram_binary = _function("simhash_ngram_binary", SimhashType())
simhash_shingle_binary = _function("simhash_shingle_binary", SimhashType())
to_simhash128_binary = _function("to_simhash128_binary", Simhash128Type())
simhash128_ngram_binary = _function("simhash128_ngram_binary", Simhash128Type())
simhash128_shingle_binary = _function("simhash128_shingle_binary", Simhash128Type())
to_simhash256_binary = _function("to_simhash256_binary", Simhash256Type())
simhash256_ngram_binary = _function("simhash256_ngram_binary", Simhash256Type())
simhash256_shingle_binary = _function("simhash256_shingle_binary", Simhash256Type())
to_minhash = _function("to_minhash", MinhashType())
minhash_ngram = _function("minhash_ngram", MinhashType())
minhash_shingle = _function("minhash_shingle", MinhashType())
minhash_jaccard = _function("minhash_jaccard", Float(), (0, 1), minhash=True)
simhash_jaccard = _function("simhash_jaccard", Float())


def _register_reflection():
    # Table(..., autoload_with=engine) then reflects simhash columns
    try:
        from sqlalchemy.dialects.postgresql.base import ischema_names
    except ImportError:     # pragma: no cover
        return
    ischema_names.setdefault("simhash", SimhashType)
    ischema_names.setdefault("simhash128", Simhash128Type)
    ischema_names.setdefault("simhash256", Simhash256Type)
    ischema_names.setdefault("minhash", MinhashType)


_register_reflection()
