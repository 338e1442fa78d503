"""psycopg2 adapters for the simhash type.

    import psycopg2
    from simhash_pg import Simhash
    from simhash_pg.psycopg2 import register_simhash

    conn = psycopg2.connect("")
    register_simhash(conn)
    cur = conn.cursor()
    cur.execute("SELECT id FROM docs WHERE fp <-> %s <= 3",
                (Simhash("f3a90c1e00b2d47f"),))

psycopg2 merges parameters into the query text on the client, so a
``Simhash`` parameter becomes the typed literal ``'f3a90c1e00b2d47f'::simhash``
(a list of them, ``ARRAY[...]``, a ``simhash[]``).  ``simhash`` and
``simhash[]`` columns are cast to ``Simhash`` and lists of ``Simhash``.
psycopg2 has no binary result format.  ``register_simhash128`` and
``register_simhash256`` do the same for ``Simhash128`` (``simhash128``) and
``Simhash256`` (``simhash256``), and ``register_minhash`` for ``MinHash``
(``minhash``, extension 1.10: ``'…'::minhash`` literals of 256 hex digits).
"""

import psycopg2
from psycopg2 import extensions

from . import MinHash, Simhash, Simhash128, Simhash256

__all__ = ["register_simhash", "register_simhash128", "register_simhash256",
           "register_minhash", "SimhashLiteral"]

# The type name written after '::' in literals, per fingerprint class: what
# the last registration resolved (qualified when the schema is not on the path)
_type_names = {Simhash: "simhash", Simhash128: "simhash128", Simhash256: "simhash256",
               MinHash: "minhash"}


class SimhashLiteral:
    """psycopg2 adapter (ISQLQuote) of ``Simhash``, ``Simhash128``,
    ``Simhash256`` and ``MinHash``: a typed literal."""

    def __init__(self, obj):
        self._obj = obj

    def getquoted(self):
        return ("'%s'::%s" % (self._obj.hex(), _type_names[type(self._obj)])).encode("ascii")

    def __str__(self):
        return self.getquoted().decode("ascii")


def _caster(cls):
    if cls is MinHash:
        def cast(value, cur):
            if value is None:
                return None
            return MinHash._make(bytes.fromhex(value))  # the server prints 256 hex digits
        return cast

    def cast(value, cur):
        if value is None:
            return None
        return cls._make(int(value, 16))    # the server prints W/4 hex digits
    return cast


def register_simhash(conn_or_curs, name="simhash", globally=False):
    """Register the Simhash adapter and the simhash/simhash[] casters.

    The OIDs are looked up on ``conn_or_curs`` (a connection or a cursor) by
    type name; ``name`` may be schema-qualified.  The casters apply to that
    connection or cursor, or to every connection with ``globally=True``.
    The parameter adapter is always global (psycopg2 has no other kind).
    Returns ``(oid, array_oid)``.
    """
    return _register(Simhash, conn_or_curs, name, globally)


def register_simhash128(conn_or_curs, name="simhash128", globally=False):
    """``register_simhash`` for ``simhash128`` and ``Simhash128``."""
    return _register(Simhash128, conn_or_curs, name, globally)


def register_simhash256(conn_or_curs, name="simhash256", globally=False):
    """``register_simhash`` for ``simhash256`` and ``Simhash256``."""
    return _register(Simhash256, conn_or_curs, name, globally)


def register_minhash(conn_or_curs, name="minhash", globally=False):
    """``register_simhash`` for ``minhash`` and ``MinHash`` (extension 1.10
    or later)."""
    return _register(MinHash, conn_or_curs, name, globally)


# What a type needs beyond extension 1.0, for the "not found" message
_NEEDS = {MinHash: "version 1.10 or later for minhash"}


def _register(cls, conn_or_curs, name, globally):
    if hasattr(conn_or_curs, "cursor"):
        conn = conn_or_curs
    else:
        conn = conn_or_curs.connection
    # Leave an idle non-autocommit connection idle, as psycopg2.extras does
    was_idle = (not conn.autocommit
                and conn.status == extensions.STATUS_READY)
    cur = conn.cursor()
    try:
        cur.execute("SELECT t.oid, t.typarray, t.oid::regtype::text "
                    "FROM pg_catalog.pg_type t "
                    "WHERE t.oid = pg_catalog.to_regtype(%s)", (name,))
        row = cur.fetchone()
    finally:
        cur.close()
        if was_idle:
            conn.rollback()
    if row is None:
        raise psycopg2.ProgrammingError(
            "type %r not found: run CREATE EXTENSION simhash in this database "
            "(%s), or give its schema-qualified name"
            % (name, _NEEDS.get(cls, "version 1.5 or later for the wide types")))
    oid, array_oid, regtype = row
    scope = None if globally else conn_or_curs
    upper = cls._TYPE.upper()
    simhash_type = extensions.new_type((oid,), upper, _caster(cls))
    extensions.register_type(simhash_type, scope)
    if array_oid:
        array_type = extensions.new_array_type((array_oid,), upper + "[]",
                                               simhash_type)
        extensions.register_type(array_type, scope)
    _type_names[cls] = regtype
    extensions.register_adapter(cls, SimhashLiteral)
    return oid, array_oid
