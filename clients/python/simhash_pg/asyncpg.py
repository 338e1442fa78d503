"""asyncpg codecs for the simhash types.

    import asyncpg
    from simhash_pg import Simhash128
    from simhash_pg.asyncpg import register_simhash

    conn = await asyncpg.connect()
    await register_simhash(conn)
    rows = await conn.fetch("SELECT id FROM docs WHERE fp <-> $1 <= $2",
                            Simhash128("..."), 8)
    pool = await asyncpg.create_pool(init=register_simhash)   # every connection

``register_simhash`` sets a codec on the connection for ``simhash``,
``simhash128`` and ``simhash256`` (the wide types need extension 1.5):
their columns and arrays load as ``Simhash``, ``Simhash128`` and
``Simhash256``, and parameters of those types take a fingerprint object or
anything its constructor takes (hex text, bytes, an int).  In binary format
(the default) values travel as their 8, 16 or 32 bytes (send/recv), which
``copy_records_to_table`` needs; ``binary=False`` uses the hex text.
asyncpg prepares every statement, so an untyped ``$1`` next to a fingerprint
column gets its type from the server and goes through the codec.
"""

from . import Simhash, Simhash128, Simhash256

__all__ = ["register_simhash"]

_CLASSES = (Simhash, Simhash128, Simhash256)


def _codec(cls, binary):
    """(encoder, decoder) of cls in binary or text format."""
    if binary:
        def encode(value):
            return (value if isinstance(value, cls) else cls(value)).to_bytes()
        return encode, cls.from_bytes

    def encode_text(value):
        return (value if isinstance(value, cls) else cls(value)).hex()
    return encode_text, cls.from_hex


async def register_simhash(conn, *, binary=True, schema=None, widths=(64, 128, 256)):
    """Sets the codecs of the fingerprint types of ``widths`` on ``conn``
    (an asyncpg Connection).  ``schema`` is the extension's schema, looked
    up in pg_extension when not given.  Returns the schema."""
    unknown = set(widths) - {cls.WIDTH for cls in _CLASSES}
    if unknown:
        raise ValueError("widths %s: the widths are 64, 128 and 256" % sorted(unknown))
    if schema is None:
        schema = await conn.fetchval(
            "SELECT n.nspname FROM pg_catalog.pg_extension e "
            "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = 'simhash'")
        if schema is None:
            raise ValueError("extension simhash is not installed in this database")
    for cls in _CLASSES:
        if cls.WIDTH not in widths:
            continue
        encoder, decoder = _codec(cls, binary)
        await conn.set_type_codec(cls._TYPE, schema=schema, encoder=encoder, decoder=decoder,
                                  format="binary" if binary else "text")
    return schema
