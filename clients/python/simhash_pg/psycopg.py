"""psycopg 3 adapters for the simhash type.

    import psycopg
    from simhash_pg import Simhash
    from simhash_pg.psycopg import register_simhash

    conn = psycopg.connect()
    register_simhash(conn)
    conn.execute("SELECT id FROM docs WHERE fp <-> %s <= 3",
                 [Simhash("f3a90c1e00b2d47f")])

After ``register_simhash``, ``simhash`` and ``simhash[]`` columns load as
``Simhash`` (text and binary results), and ``Simhash`` parameters are sent
with the ``simhash`` OID: in binary (8 bytes, network order) for ``%s`` and
``%b``, in text for ``%t``.  Extension types get their OID at
``CREATE EXTENSION`` time, so it is looked up by name in each database.
``register_simhash_async`` does the same for an ``AsyncConnection``.
"""

from psycopg import ProgrammingError
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from . import Simhash

__all__ = ["register_simhash", "register_simhash_async"]


class _SimhashTextDumper(Dumper):
    format = Format.TEXT

    def dump(self, obj):
        if not isinstance(obj, Simhash):    # COPY with set_types gives raw values
            obj = Simhash(obj)
        return obj.hex().encode("ascii")


class _SimhashBinaryDumper(Dumper):
    format = Format.BINARY

    def dump(self, obj):
        if not isinstance(obj, Simhash):
            obj = Simhash(obj)
        return obj.to_bytes()


class _SimhashTextLoader(Loader):
    format = Format.TEXT

    def load(self, data):
        # The server prints exactly 16 hex digits
        return Simhash._make(int(bytes(data), 16))


class _SimhashBinaryLoader(Loader):
    format = Format.BINARY

    def load(self, data):
        return Simhash.from_bytes(data)


def register_simhash(conn, context=None, name="simhash"):
    """Look up the simhash type on ``conn`` and register its adapters.

    ``context`` is where they go: the connection by default, or a cursor, or
    ``psycopg.adapters`` for connections opened later (only safe when every
    database has the same simhash OID, e.g. one database).  ``name`` may be
    schema-qualified (``"ext.simhash"``) when the extension's schema is not
    on the search_path.  Returns the ``TypeInfo`` (``.oid``,
    ``.array_oid``).  For an ``AsyncConnection`` use
    ``await register_simhash_async(aconn)``.
    """
    return _register(TypeInfo.fetch(conn, name), conn, context, name)


async def register_simhash_async(conn, context=None, name="simhash"):
    """``register_simhash`` for a ``psycopg.AsyncConnection``."""
    return _register(await TypeInfo.fetch(conn, name), conn, context, name)


def _register(info, conn, context, name):
    if info is None:
        raise ProgrammingError(
            "type %r not found: run CREATE EXTENSION simhash in this database, "
            "or give its schema-qualified name" % (name,))
    if context is None:
        context = conn
    # Lets simhash[] load and dump through the element adapters below
    info.register(context)
    adapters = context.adapters
    oid = info.oid
    text_dumper = type("SimhashTextDumper", (_SimhashTextDumper,), {"oid": oid})
    binary_dumper = type("SimhashBinaryDumper", (_SimhashBinaryDumper,),
                         {"oid": oid})
    adapters.register_dumper(Simhash, text_dumper)
    # Registered last, so %s placeholders send the 8-byte binary form
    adapters.register_dumper(Simhash, binary_dumper)
    adapters.register_loader(oid, _SimhashTextLoader)
    adapters.register_loader(oid, _SimhashBinaryLoader)
    return info
