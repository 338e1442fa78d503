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
psycopg2 has no binary result format.
"""

import psycopg2
from psycopg2 import extensions

from . import Simhash

__all__ = ["register_simhash", "SimhashLiteral"]

# The type name written after '::' in literals: what the last
# register_simhash() resolved (qualified when the schema is not on the path)
_type_name = "simhash"


class SimhashLiteral:
    """psycopg2 adapter (ISQLQuote) of ``Simhash``: a typed literal."""

    def __init__(self, obj):
        self._obj = obj

    def getquoted(self):
        return ("'%s'::%s" % (self._obj.hex(), _type_name)).encode("ascii")

    def __str__(self):
        return self.getquoted().decode("ascii")


def _cast_simhash(value, cur):
    if value is None:
        return None
    return Simhash._make(int(value, 16))    # the server prints 16 hex digits


def register_simhash(conn_or_curs, name="simhash", globally=False):
    """Register the Simhash adapter and the simhash/simhash[] casters.

    The OIDs are looked up on ``conn_or_curs`` (a connection or a cursor) by
    type name; ``name`` may be schema-qualified.  The casters apply to that
    connection or cursor, or to every connection with ``globally=True``.
    The parameter adapter is always global (psycopg2 has no other kind).
    Returns ``(oid, array_oid)``.
    """
    global _type_name
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
            "type %r not found: run CREATE EXTENSION simhash in this database, "
            "or give its schema-qualified name" % (name,))
    oid, array_oid, regtype = row
    scope = None if globally else conn_or_curs
    simhash_type = extensions.new_type((oid,), "SIMHASH", _cast_simhash)
    extensions.register_type(simhash_type, scope)
    if array_oid:
        array_type = extensions.new_array_type((array_oid,), "SIMHASH[]",
                                               simhash_type)
        extensions.register_type(array_type, scope)
    _type_name = regtype
    extensions.register_adapter(Simhash, SimhashLiteral)
    return oid, array_oid
