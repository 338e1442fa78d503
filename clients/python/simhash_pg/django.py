"""Django model field, lookups and expressions for the simhash types.

    from django.db import models
    from django.contrib.postgres.indexes import GinIndex
    from simhash_pg import Simhash128
    from simhash_pg.django import SimhashField, HammingDistance, Similarity

    class Doc(models.Model):
        fp = SimhashField(bits=128, null=True)      # a simhash128 column
        class Meta:
            indexes = [GinIndex(fields=["fp"], name="doc_fp_gin",
                                opclasses=["simhash128_gin_ops"])]

    q = Simhash128("...")
    Doc.objects.filter(fp__within=(q, 8))   # fp <-> q <= 8: the radius form
    Doc.objects.filter(fp__similar=q)       # fp % q: similarity >= the threshold
    Doc.objects.annotate(d=HammingDistance("fp", q)).order_by("d")[:10]

``SimhashField(bits=64)`` is a ``simhash`` column, ``bits=128`` a
``simhash128`` and ``bits=256`` a ``simhash256`` (extension 1.5); its
values are ``Simhash``, ``Simhash128`` and ``Simhash256``, and it accepts
anything their constructors take (hex text, bytes, an int).  Values go to
the server as hex text, so no driver adapter is needed; columns come back
as the fingerprint class whether or not ``simhash_pg.psycopg2`` casters are
registered.  Migrations write ``SimhashField(bits=...)``; the extension
itself comes from ``django.contrib.postgres.operations.CreateExtension``.

Lookups (the fingerprint is cast to the column's type, so the indexes of
the radius form serve both):

* ``fp__within=(q, k)``: ``fp <-> q <= k``;
* ``fp__similar=q``: ``fp % q``, true when ``simhash_similarity(fp, q)`` is
  at least ``simhash.similarity_threshold`` (extension 1.14; set it with
  ``similarity_threshold(s)`` or ``set_similarity_threshold(s)``).

Expressions: ``HammingDistance(expr, q)`` (``fp <-> q``, an integer; in
``order_by`` with a slice, the GiST index's nearest neighbours) and
``Similarity(expr, q)`` (``simhash_similarity(fp, q)``, a float).
"""

from contextlib import contextmanager

from django.core import exceptions
from django.db import DEFAULT_DB_ALIAS, connections, models, transaction
from django.db.models import FloatField, Func, IntegerField, Lookup, Value
from django.db.models.functions import Cast

from . import _BY_WIDTH, _class_of, _Fingerprint

__all__ = ["SimhashField", "Within", "Similar", "HammingDistance", "Similarity",
           "similarity_threshold", "set_similarity_threshold"]


class SimhashField(models.Field):
    """A ``simhash`` (bits=64), ``simhash128`` or ``simhash256`` column."""

    description = "simhash fingerprint of %(bits)s bits"
    empty_strings_allowed = False

    def __init__(self, *args, bits=64, **kwargs):
        if bits not in _BY_WIDTH:
            raise ValueError("SimhashField(bits=%r): the widths are 64, 128 and 256" % (bits,))
        self.bits = bits
        self.value_class = _BY_WIDTH[bits]
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        if self.bits != 64:
            kwargs["bits"] = self.bits
        return name, path, args, kwargs

    def db_type(self, connection):
        return self.value_class._TYPE

    def from_db_value(self, value, expression, connection):
        if value is None or isinstance(value, self.value_class):
            return value                # None, or a registered psycopg2 caster's value
        return self.value_class.from_hex(value)

    def to_python(self, value):
        if value is None or isinstance(value, self.value_class):
            return value
        try:
            return self.value_class(value)
        except (TypeError, ValueError) as exc:
            raise exceptions.ValidationError(str(exc), code="invalid", params={"value": value})

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if value is None:
            return None
        return self.value_class(value)  # TypeError / ValueError: a wrong value, before the query

    def get_db_prep_value(self, value, connection, prepared=False):
        if not prepared:
            value = self.get_prep_value(value)
        return None if value is None else value.hex()

    def value_to_string(self, obj):
        value = self.value_from_object(obj)
        return None if value is None else value.hex()

    def formfield(self, **kwargs):
        from django import forms
        n = self.bits // 4
        defaults = {"form_class": forms.CharField, "max_length": n, "min_length": n}
        defaults.update(kwargs)
        return super().formfield(**defaults)


def _fingerprint_sql(compiler, connection, field, value):
    """SQL and parameters of a fingerprint operand: an expression as it
    compiles, a value as hex text cast to the field's type."""
    if hasattr(value, "as_sql"):
        return compiler.compile(value)
    return "CAST(%%s AS %s)" % field.db_type(connection), [value.hex()]


class _FingerprintLookup(Lookup):
    prepare_rhs = False

    def _prep(self, value):
        if hasattr(value, "resolve_expression"):
            return value
        return self.lhs.output_field.get_prep_value(value)


@SimhashField.register_lookup
class Within(_FingerprintLookup):
    """``fp__within=(q, k)``: ``fp <-> q <= k``."""

    lookup_name = "within"

    def get_prep_lookup(self):
        rhs = self.rhs
        if not isinstance(rhs, (tuple, list)) or len(rhs) != 2:
            raise ValueError("%s__within takes (fingerprint, radius), not %r"
                             % (self.lhs.output_field.name, rhs))
        q, k = rhs
        if not hasattr(k, "resolve_expression"):
            if isinstance(k, bool) or not isinstance(k, int):
                raise TypeError("the radius of __within must be an int, not %s" % type(k).__name__)
        return (self._prep(q), k)

    def as_sql(self, compiler, connection):
        lhs_sql, params = self.process_lhs(compiler, connection)
        q, k = self.rhs
        q_sql, q_params = _fingerprint_sql(compiler, connection, self.lhs.output_field, q)
        if hasattr(k, "as_sql"):
            k_sql, k_params = compiler.compile(k)
        else:
            k_sql, k_params = "%s", [k]
        return "%s <-> %s <= %s" % (lhs_sql, q_sql, k_sql), list(params) + list(q_params) + list(k_params)


@SimhashField.register_lookup
class Similar(_FingerprintLookup):
    """``fp__similar=q``: ``fp % q`` (extension 1.14)."""

    lookup_name = "similar"

    def get_prep_lookup(self):
        return self._prep(self.rhs)

    def as_sql(self, compiler, connection):
        lhs_sql, params = self.process_lhs(compiler, connection)
        q_sql, q_params = _fingerprint_sql(compiler, connection, self.lhs.output_field, self.rhs)
        # %% is the operator: the driver's parameter style takes %
        return "%s %%%% %s" % (lhs_sql, q_sql), list(params) + list(q_params)


def _operand(value):
    """A fingerprint value as a typed SQL value; an expression or a field
    name is left to Django."""
    if isinstance(value, str) and not _is_hex(value):
        return value                    # a field name, as Django's functions take
    if hasattr(value, "resolve_expression"):
        return value
    cls = _class_of(value)
    fp = cls(value)
    return Cast(Value(fp.hex()), output_field=SimhashField(bits=fp.WIDTH))


def _is_hex(s):
    return len(s) in (16, 32, 64) and all(c in "0123456789abcdefABCDEF" for c in s)


class HammingDistance(Func):
    """``a <-> b``, the Hamming distance; a and b are field names,
    expressions or fingerprints (a ``Simhash``, ``Simhash128``,
    ``Simhash256``, or hex text of 16, 32 or 64 digits)."""

    arg_joiner = " <-> "
    template = "(%(expressions)s)"
    output_field = IntegerField()

    def __init__(self, a, b, **extra):
        super().__init__(_operand(a), _operand(b), **extra)


class Similarity(Func):
    """``simhash_similarity(a, b)``, cos(pi * d / W); operands as
    ``HammingDistance``."""

    function = "simhash_similarity"
    output_field = FloatField()

    def __init__(self, a, b, **extra):
        super().__init__(_operand(a), _operand(b), **extra)


def _check_threshold(s):
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 <= s <= 1:
        raise ValueError("similarity threshold %r is not between 0 and 1" % (s,))
    return repr(float(s))


@contextmanager
def similarity_threshold(s, using=DEFAULT_DB_ALIAS):
    """``with similarity_threshold(0.95): ...``: ``fp % q`` (``__similar``)
    uses s inside the block.  The block runs in ``transaction.atomic``
    (a savepoint inside a transaction); the setting is ``SET LOCAL`` and goes
    back to its former value when the block ends, or with the rollback if
    it raises."""
    value = _check_threshold(s)
    with transaction.atomic(using=using):
        with connections[using].cursor() as cur:
            cur.execute("SELECT current_setting('simhash.similarity_threshold')")
            old = cur.fetchone()[0]
            cur.execute("SELECT set_config('simhash.similarity_threshold', %s, true)", [value])
        yield
        with connections[using].cursor() as cur:
            cur.execute("SELECT set_config('simhash.similarity_threshold', %s, true)", [old])


def set_similarity_threshold(s, using=DEFAULT_DB_ALIAS):
    """Sets simhash.similarity_threshold for the rest of the database
    session (a transaction that rolls back undoes it).  With
    persistent connections (CONN_MAX_AGE) the setting outlives the
    request: prefer ``similarity_threshold``."""
    value = _check_threshold(s)
    with connections[using].cursor() as cur:
        cur.execute("SELECT set_config('simhash.similarity_threshold', %s, false)", [value])
