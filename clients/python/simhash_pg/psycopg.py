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
``register_simhash128`` and ``register_simhash256`` (and their ``_async``
forms) do the same for ``simhash128``/``Simhash128`` and
``simhash256``/``Simhash256``.  ``register_minhash`` (and
``register_minhash_async``) does the same for ``minhash``/``MinHash``
(extension 1.10): 256 hex digits in text, 128 bytes in binary.
"""

from psycopg import ProgrammingError
from psycopg.adapt import Dumper, Loader
from psycopg.pq import Format
from psycopg.types import TypeInfo

from . import MinHash, Simhash, Simhash128, Simhash256

__all__ = ["register_simhash", "register_simhash_async",
           "register_simhash128", "register_simhash128_async",
           "register_simhash256", "register_simhash256_async",
           "register_minhash", "register_minhash_async"]


# Each adapter class below serves every width: a subclass made at
# registration sets "_fp_class", the fingerprint class (psycopg's
# Dumper already has a "cls").

class _SimhashTextDumper(Dumper):
    format = Format.TEXT
    _fp_class = Simhash

    def dump(self, obj):
        if not isinstance(obj, self._fp_class):  # COPY with set_types gives raw values
            obj = self._fp_class(obj)
        return obj.hex().encode("ascii")


class _SimhashBinaryDumper(Dumper):
    format = Format.BINARY
    _fp_class = Simhash

    def dump(self, obj):
        if not isinstance(obj, self._fp_class):
            obj = self._fp_class(obj)
        return obj.to_bytes()


class _SimhashTextLoader(Loader):
    format = Format.TEXT
    _fp_class = Simhash

    def load(self, data):
        # The server prints exactly W/4 hex digits
        return self._fp_class._make(int(bytes(data), 16))


class _SimhashBinaryLoader(Loader):
    format = Format.BINARY
    _fp_class = Simhash

    def load(self, data):
        return self._fp_class.from_bytes(data)


class _MinhashTextLoader(Loader):
    format = Format.TEXT
    _fp_class = MinHash

    def load(self, data):
        # The server prints exactly 256 hex digits
        return MinHash._make(bytes.fromhex(bytes(data).decode("ascii")))


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
    return _register(Simhash, TypeInfo.fetch(conn, name), conn, context, name)


async def register_simhash_async(conn, context=None, name="simhash"):
    """``register_simhash`` for a ``psycopg.AsyncConnection``."""
    return _register(Simhash, await TypeInfo.fetch(conn, name), conn, context, name)


def register_simhash128(conn, context=None, name="simhash128"):
    """``register_simhash`` for ``simhash128`` columns and ``Simhash128``
    parameters (16 bytes in binary)."""
    return _register(Simhash128, TypeInfo.fetch(conn, name), conn, context, name)


async def register_simhash128_async(conn, context=None, name="simhash128"):
    """``register_simhash128`` for a ``psycopg.AsyncConnection``."""
    return _register(Simhash128, await TypeInfo.fetch(conn, name), conn, context, name)


def register_simhash256(conn, context=None, name="simhash256"):
    """``register_simhash`` for ``simhash256`` columns and ``Simhash256``
    parameters (32 bytes in binary)."""
    return _register(Simhash256, TypeInfo.fetch(conn, name), conn, context, name)


async def register_simhash256_async(conn, context=None, name="simhash256"):
    """``register_simhash256`` for a ``psycopg.AsyncConnection``."""
    return _register(Simhash256, await TypeInfo.fetch(conn, name), conn, context, name)


def register_minhash(conn, context=None, name="minhash"):
    """``register_simhash`` for ``minhash`` columns and ``MinHash``
    parameters (128 bytes in binary; extension 1.10 or later)."""
    return _register(MinHash, TypeInfo.fetch(conn, name), conn, context, name)


async def register_minhash_async(conn, context=None, name="minhash"):
    """``register_minhash`` for a ``psycopg.AsyncConnection``."""
    return _register(MinHash, await TypeInfo.fetch(conn, name), conn, context, name)


# What a type needs beyond extension 1.0, for the "not found" message
_NEEDS = {Simhash128: "version 1.5 or later for the wide types",
          Simhash256: "version 1.5 or later for the wide types",
          MinHash: "version 1.10 or later for minhash"}


def _register(cls, info, conn, context, name):
    if info is None:
        raise ProgrammingError(
            "type %r not found: run CREATE EXTENSION simhash in this database "
            "(%s), or give its schema-qualified name"
            % (name, _NEEDS.get(cls, "version 1.5 or later for the wide types")))
    if context is None:
        context = conn
    # Lets the array type load and dump through the element adapters below
    info.register(context)
    adapters = context.adapters
    oid = info.oid
    prefix = cls.__name__
    text_dumper = type(prefix + "TextDumper", (_SimhashTextDumper,),
                       {"oid": oid, "_fp_class": cls})
    binary_dumper = type(prefix + "BinaryDumper", (_SimhashBinaryDumper,),
                         {"oid": oid, "_fp_class": cls})
    adapters.register_dumper(cls, text_dumper)
    # Registered last, so %s placeholders send the binary form
    adapters.register_dumper(cls, binary_dumper)
    text_loader = _MinhashTextLoader if cls is MinHash else _SimhashTextLoader
    adapters.register_loader(oid, type(prefix + "TextLoader", (text_loader,), {"_fp_class": cls}))
    adapters.register_loader(oid, type(prefix + "BinaryLoader", (_SimhashBinaryLoader,), {"_fp_class": cls}))
    return info
