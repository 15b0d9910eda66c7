"""Column: an expression of a DataFrame, as pyspark.sql.Column.

A Column is Spark SQL text built lazily: references to a DataFrame's columns (df.x, df["x"])
are qualified when the DataFrame's query is placed in a FROM clause, so that after a join
df1.id and df2.id name different columns. Each Column also knows the name Spark gives it when
selected without an alias ("(a + 1)", "sum(b)", "CASE WHEN (a > 1) THEN 1 ELSE 0 END").
"""

import datetime
import decimal
import math

from silt.errors import _error
from silt.sql.types import (
    DataType,
    _parse_datatype_string,
    _quote,
    _type_sql,
)

__all__ = ["Column"]


class _Scope:
    """How column references render: the SQL qualifier of each DataFrame in a FROM clause."""

    def __init__(self, qualifiers=None):
        self.qualifiers = qualifiers or {}

    def reference(self, frame_id, parts):
        if parts == ["*"]:
            qualifier = self.qualifiers.get(frame_id) if frame_id is not None else None
            return qualifier + ".*" if qualifier else "*"
        text = ".".join(_quote(part) for part in parts)
        if frame_id is not None:
            qualifier = self.qualifiers.get(frame_id)
            if qualifier:
                return qualifier + "." + text
        return text


_UNQUALIFIED = _Scope()


def _parse_name(name):
    """Splits a column name as Spark does: dots separate parts, back quotes quote them."""
    parts = []
    current = ""
    quoted = False
    index = 0
    had_quotes = False
    while index < len(name):
        char = name[index]
        if quoted:
            if char == "`":
                if index + 1 < len(name) and name[index + 1] == "`":
                    current += "`"
                    index += 1
                else:
                    quoted = False
            else:
                current += char
        elif char == "`":
            quoted = True
            had_quotes = True
        elif char == ".":
            parts.append(current)
            current = ""
        else:
            current += char
        index += 1
    if quoted:
        raise _error("INVALID_ATTRIBUTE_NAME_SYNTAX",
                     "Syntax error in the attribute name: %s. Check that backticks appear in pairs."
                     % name, family=None)
    parts.append(current)
    if not had_quotes and name == "*":
        return ["*"]
    return parts


def _cluster_by_sql(cols):
    """CLUSTER BY's column list: each name a path as Spark parses it (`a.b` is field b of a)."""
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        cols = cols[0]
    return "(%s)" % ", ".join(".".join(_quote(part) for part in _parse_name(str(c))) for c in cols)


def _literal(value):
    """(SQL text, Spark's name) of a Python value as a literal."""
    if value is None:
        return "NULL", "NULL"
    if isinstance(value, bool):
        return ("true", "true") if value else ("false", "false")
    if isinstance(value, int):
        if -(2 ** 31) <= value < 2 ** 31:
            return str(value), str(value)
        if -(2 ** 63) <= value < 2 ** 63:
            return "%dL" % value, str(value)
        return "%sBD" % value, str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "CAST('NaN' AS DOUBLE)", "NaN"
        if math.isinf(value):
            text = "Infinity" if value > 0 else "-Infinity"
            return "CAST('%s' AS DOUBLE)" % text, text
        return repr(value) + "D", _java_double(value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: literal %s." % value)
        text = format(value, "f")
        return "%sBD" % text, text
    if isinstance(value, str):
        return _string_sql(value), value
    if isinstance(value, (bytes, bytearray)):
        return "X'%s'" % bytes(value).hex().upper(), "X'%s'" % bytes(value).hex().upper()
    if isinstance(value, datetime.datetime):
        return _timestamp_sql(value)
    if isinstance(value, datetime.date):
        text = value.isoformat()
        return "DATE'%s'" % text, "DATE '%s'" % text
    if isinstance(value, datetime.timedelta):
        micros = (value.days * 86400 + value.seconds) * 1000000 + value.microseconds
        return ("INTERVAL '%s' SECOND" % (decimal.Decimal(micros) / 1000000),
                "INTERVAL '%s' SECOND" % (decimal.Decimal(micros) / 1000000))
    if isinstance(value, (list, tuple)) and not hasattr(value, "__fields__"):
        items = [_literal(item) for item in value]
        return ("array(%s)" % ", ".join(sql for sql, _ in items),
                "array(%s)" % ", ".join(name for _, name in items))
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            items.extend([_literal(key), _literal(item)])
        return ("map(%s)" % ", ".join(sql for sql, _ in items),
                "map(%s)" % ", ".join(name for _, name in items))
    if hasattr(value, "__fields__"):
        items = []
        for key, item in zip(value.__fields__, value):
            items.extend([_literal(key), _literal(item)])
        return ("named_struct(%s)" % ", ".join(sql for sql, _ in items),
                "named_struct(%s)" % ", ".join(name for _, name in items))
    try:
        import numpy

        if isinstance(value, numpy.generic):
            return _literal(value.item())
    except ImportError:
        pass
    raise _error("UNSUPPORTED_FEATURE",
                 "The feature is not supported: a literal of Python type %s." % type(value).__name__)


def _string_sql(text):
    """A Spark SQL string literal of `text` (backslash escapes, as Spark reads them)."""
    escaped = text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
    escaped = escaped.replace("\t", "\\t").replace("\0", "\\0")
    return "'" + escaped + "'"


def _timestamp_sql(value):
    """A TIMESTAMP (instant) literal: a naive datetime is local time, as PySpark reads it."""
    if value.tzinfo is None:
        aware = value.astimezone()
    else:
        aware = value
    utc = aware.astimezone(datetime.timezone.utc)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    delta = utc - epoch
    micros = (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
    name = "TIMESTAMP '%s'" % value.replace(tzinfo=None).isoformat(sep=" ")
    return "timestamp_micros(%dL)" % micros, name


def _java_double(value):
    """A double as Java's Double.toString prints it (Spark's names of double literals)."""
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if 1e-3 <= abs(value) < 1e7:
        return repr(value)
    sign, digits, exponent = decimal.Decimal(repr(value)).as_tuple()
    text = "".join(str(d) for d in digits)
    scientific = len(text) + exponent - 1
    text = text.rstrip("0") or "0"
    mantissa = text[0] + "." + (text[1:] or "0")
    return ("-" if sign else "") + mantissa + "E" + str(scientific)


class Column:
    """An expression over the rows of a DataFrame (pyspark.sql.Column)."""

    def __init__(self, render, name, *, ref=None, alias=None, sort=None, when=None, window_kind=None,
                 aggregate=False, raw=None):
        # render(scope) -> SQL text; name: Spark's name of the expression.
        self._render = render
        self._pretty = name
        self._ref = ref  # (frame id or None, [parts]) for a column reference
        self._alias = alias  # the names given by alias()
        self._sort = sort  # "ASC NULLS FIRST", ... for sort orders
        self._when = when  # (branches, otherwise) of a CASE WHEN being built
        self._window_kind = window_kind  # "rank", "offset" or "aggregate" for window functions
        self._aggregate = aggregate
        self._raw = raw  # the text of expr("..."), which the engine names
        self._data_type = None  # the type, for references to a DataFrame's columns

    # Rendering.

    def _sql(self, scope=_UNQUALIFIED):
        return self._render(scope)

    def _name(self):
        """The column name Spark gives this expression in a projection."""
        if self._alias:
            return self._alias[0]
        if self._ref is not None:
            return self._ref[1][-1]
        return self._pretty

    def _select_sql(self, scope):
        """The select item: the expression with an alias when its name must be set."""
        if self._raw is not None and not self._alias:
            return self._raw
        text = self._sql(scope)
        if self._alias and len(self._alias) > 1:
            return text + " AS (" + ", ".join(_quote(name) for name in self._alias) + ")"
        if self._ref is not None and not self._alias:
            return text
        return text + " AS " + _quote(self._name())

    def _sort_sql(self, scope):
        return self._sql(scope) + " " + (self._sort or "ASC NULLS FIRST")

    def _copy(self, **changes):
        fields = dict(ref=self._ref, alias=self._alias, sort=self._sort, when=self._when,
                      window_kind=self._window_kind, aggregate=self._aggregate, raw=self._raw)
        fields.update(changes)
        return Column(self._render, self._pretty, **fields)

    def __repr__(self):
        return "Column<'%s'>" % (self._alias[0] if self._alias else self._pretty)

    # Operators.

    def _binary(self, other, operator, name_operator=None, reverse=False):
        other = _to_column(other, literal=True)
        left, right = (other, self) if reverse else (self, other)
        shown = name_operator or operator
        return Column(
            lambda scope: "(%s %s %s)" % (left._sql(scope), operator, right._sql(scope)),
            "(%s %s %s)" % (left._pretty_in(), shown, right._pretty_in()),
        )

    def _pretty_in(self):
        """The name of this expression inside a larger one (aliases are dropped)."""
        if self._ref is not None:
            return ".".join(self._ref[1])
        return self._pretty

    def __add__(self, other):
        return self._binary(other, "+")

    def __radd__(self, other):
        return self._binary(other, "+", reverse=True)

    def __sub__(self, other):
        return self._binary(other, "-")

    def __rsub__(self, other):
        return self._binary(other, "-", reverse=True)

    def __mul__(self, other):
        return self._binary(other, "*")

    def __rmul__(self, other):
        return self._binary(other, "*", reverse=True)

    def __truediv__(self, other):
        return self._binary(other, "/")

    def __rtruediv__(self, other):
        return self._binary(other, "/", reverse=True)

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return self._binary(other, "%")

    def __rmod__(self, other):
        return self._binary(other, "%", reverse=True)

    def __pow__(self, other):
        other = _to_column(other, literal=True)
        return _call("POWER", [self, other], sql_name="power")

    def __rpow__(self, other):
        other = _to_column(other, literal=True)
        return _call("POWER", [other, self], sql_name="power")

    def __eq__(self, other):
        return self._binary(other, "=")

    def __ne__(self, other):
        equal = self._binary(other, "=")
        return Column(lambda scope: "(NOT %s)" % equal._sql(scope), "(NOT %s)" % equal._pretty)

    def __lt__(self, other):
        return self._binary(other, "<")

    def __le__(self, other):
        return self._binary(other, "<=")

    def __gt__(self, other):
        return self._binary(other, ">")

    def __ge__(self, other):
        return self._binary(other, ">=")

    def __and__(self, other):
        return self._binary(other, "AND")

    def __rand__(self, other):
        return self._binary(other, "AND", reverse=True)

    def __or__(self, other):
        return self._binary(other, "OR")

    def __ror__(self, other):
        return self._binary(other, "OR", reverse=True)

    def __invert__(self):
        return Column(lambda scope: "(NOT %s)" % self._sql(scope), "(NOT %s)" % self._pretty_in())

    def __neg__(self):
        return Column(lambda scope: "(- %s)" % self._sql(scope), "(- %s)" % self._pretty_in())

    def __bool__(self):
        raise _error("CANNOT_CONVERT_COLUMN_INTO_BOOL",
                     "Cannot convert column into bool: please use '&' for 'and', '|' for 'or', "
                     "'~' for 'not' when building DataFrame boolean expressions.",
                     family=_value_error())

    __nonzero__ = __bool__

    def __contains__(self, item):
        raise _error("CANNOT_APPLY_IN_FOR_COLUMN",
                     "Cannot apply 'in' operator against a column: please use 'contains' in a "
                     "string column or 'array_contains' function for an array column.",
                     family=_value_error())

    def __iter__(self):
        raise _error("NOT_ITERABLE", "Column is not iterable.", family=_type_error())

    def __hash__(self):
        return id(self)

    def eqNullSafe(self, other):
        return self._binary(other, "<=>")

    def bitwiseAND(self, other):
        return self._binary(other, "&")

    def bitwiseOR(self, other):
        return self._binary(other, "|")

    def bitwiseXOR(self, other):
        return self._binary(other, "^")

    # Predicates.

    def isNull(self):
        return Column(lambda scope: "(%s IS NULL)" % self._sql(scope), "(%s IS NULL)" % self._pretty_in())

    def isNotNull(self):
        return Column(lambda scope: "(%s IS NOT NULL)" % self._sql(scope),
                      "(%s IS NOT NULL)" % self._pretty_in())

    def isNaN(self):
        # Spark SQL compares NaN equal to NaN; NULL is not NaN.
        return Column(lambda scope: "coalesce(%s = CAST('NaN' AS DOUBLE), false)" % self._sql(scope),
                      "isnan(%s)" % self._pretty_in())

    def isin(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, set, tuple)):
            cols = tuple(cols[0])
        values = [_to_column(value, literal=True) for value in cols]
        if not values:
            # Spark: IN of an empty list is false.
            return Column(lambda scope: "false", "false")
        return Column(
            lambda scope: "(%s IN (%s))" % (self._sql(scope), ", ".join(v._sql(scope) for v in values)),
            "(%s IN (%s))" % (self._pretty_in(), ", ".join(v._pretty_in() for v in values)),
        )

    def between(self, lowerBound, upperBound):
        return (self >= lowerBound) & (self <= upperBound)

    def like(self, other):
        pattern = _to_column(other, literal=True)
        return Column(lambda scope: "(%s LIKE %s)" % (self._sql(scope), pattern._sql(scope)),
                      "%s LIKE %s" % (self._pretty_in(), pattern._pretty_in()))

    def ilike(self, other):
        pattern = _to_column(other, literal=True)
        return Column(lambda scope: "(%s ILIKE %s)" % (self._sql(scope), pattern._sql(scope)),
                      "ilike(%s, %s)" % (self._pretty_in(), pattern._pretty_in()))

    def rlike(self, other):
        pattern = _to_column(other, literal=True)
        return Column(lambda scope: "(%s RLIKE %s)" % (self._sql(scope), pattern._sql(scope)),
                      "RLIKE(%s, %s)" % (self._pretty_in(), pattern._pretty_in()))

    def contains(self, other):
        return _call("contains", [self, _to_column(other, literal=True)])

    def startswith(self, other):
        return _call("startswith", [self, _to_column(other, literal=True)])

    def endswith(self, other):
        return _call("endswith", [self, _to_column(other, literal=True)])

    def substr(self, startPos, length):
        return _call("substring", [self, _to_column(startPos, literal=True), _to_column(length, literal=True)])

    # Structure.

    def getField(self, name):
        return Column(lambda scope: "%s.%s" % (self._sql(scope), _quote(name)),
                      "%s.%s" % (self._pretty_in(), name))

    def getItem(self, key):
        # A struct's field by name (the column's type is known when it came from a DataFrame).
        from silt.sql.types import StructType

        if isinstance(key, str) and isinstance(getattr(self, "_data_type", None), StructType):
            return self.getField(key)
        item = _to_column(key, literal=True)
        return Column(lambda scope: "%s[%s]" % (self._sql(scope), item._sql(scope)),
                      "%s[%s]" % (self._pretty_in(), item._pretty_in()))

    def __getitem__(self, key):
        if isinstance(key, slice):
            if key.step is not None:
                raise _error("SLICE_WITH_STEP", "Slice with step is not supported.", family=_value_error())
            return self.substr(key.start, key.stop)
        return self.getItem(key)

    def __getattr__(self, item):
        if item.startswith("__"):
            raise AttributeError(item)
        return self.getField(item)

    def withField(self, fieldName, col):
        raise _error("NOT_IMPLEMENTED", "Column.withField is not implemented by silt yet.")

    def dropFields(self, *fieldNames):
        raise _error("NOT_IMPLEMENTED", "Column.dropFields is not implemented by silt yet.")

    # Naming, types, ordering.

    def alias(self, *alias, **kwargs):
        if not alias:
            raise _error("CANNOT_BE_EMPTY", "At least one alias must be given.", family=_value_error())
        return self._copy(alias=list(alias), sort=None)

    name = alias

    def cast(self, dataType):
        if isinstance(dataType, str):
            data_type = _parse_datatype_string(dataType)
        elif isinstance(dataType, DataType):
            data_type = dataType
        else:
            raise _error("NOT_DATATYPE_OR_STR", "Argument `dataType` should be a DataType or str, got %s."
                         % type(dataType).__name__, family=_type_error())
        type_sql = _type_sql(data_type)
        return Column(lambda scope: "CAST(%s AS %s)" % (self._sql(scope), type_sql),
                      "CAST(%s AS %s)" % (self._pretty_in(), type_sql))

    astype = cast

    def try_cast(self, dataType):
        data_type = _parse_datatype_string(dataType) if isinstance(dataType, str) else dataType
        type_sql = _type_sql(data_type)
        return Column(lambda scope: "TRY_CAST(%s AS %s)" % (self._sql(scope), type_sql),
                      "TRY_CAST(%s AS %s)" % (self._pretty_in(), type_sql))

    def asc(self):
        return self._copy(sort="ASC NULLS FIRST")

    def asc_nulls_first(self):
        return self._copy(sort="ASC NULLS FIRST")

    def asc_nulls_last(self):
        return self._copy(sort="ASC NULLS LAST")

    def desc(self):
        return self._copy(sort="DESC NULLS LAST")

    def desc_nulls_first(self):
        return self._copy(sort="DESC NULLS FIRST")

    def desc_nulls_last(self):
        return self._copy(sort="DESC NULLS LAST")

    # CASE WHEN.

    def when(self, condition, value):
        if self._when is None or self._when[1] is not None:
            raise _error("INVALID_WHEN_USAGE",
                         "when() can only be applied on a Column previously generated by when() "
                         "function, and cannot be applied once otherwise() is applied.",
                         family=_type_error())
        return _case(self._when[0] + [(_to_column(condition), _to_column(value, literal=True))], None)

    def otherwise(self, value):
        if self._when is None or self._when[1] is not None:
            raise _error("INVALID_WHEN_USAGE",
                         "otherwise() can only be applied on a Column previously generated by when(), "
                         "and cannot be applied twice.",
                         family=_type_error())
        return _case(self._when[0], _to_column(value, literal=True))

    # Windows.

    def over(self, window):
        from silt.sql.window import WindowSpec

        if not isinstance(window, WindowSpec):
            raise _error("NOT_WINDOWSPEC", "Argument `window` should be a WindowSpec, got %s."
                         % type(window).__name__, family=_type_error())
        return Column(
            lambda scope: "%s OVER (%s)" % (self._sql(scope), window._sql(scope)),
            "%s OVER (%s)" % (self._pretty_in(), window._pretty(self._window_kind or "aggregate")),
        )


def _case(branches, otherwise):
    def render(scope):
        text = "CASE"
        for condition, value in branches:
            text += " WHEN %s THEN %s" % (condition._sql(scope), value._sql(scope))
        if otherwise is not None:
            text += " ELSE %s" % otherwise._sql(scope)
        return text + " END"

    name = "CASE"
    for condition, value in branches:
        name += " WHEN %s THEN %s" % (condition._pretty_in(), value._pretty_in())
    if otherwise is not None:
        name += " ELSE %s" % otherwise._pretty_in()
    return Column(render, name + " END", when=(branches, otherwise))


def _value_error():
    from silt.errors import PySparkValueError

    return PySparkValueError


def _type_error():
    from silt.errors import PySparkTypeError

    return PySparkTypeError


def _reference(frame_id, name):
    """A reference to column `name` (Spark's dotted, back-quoted syntax) of a DataFrame, or of
    whatever relation is in scope when frame_id is None."""
    parts = _parse_name(name)
    return Column(lambda scope: scope.reference(frame_id, parts),
                  ".".join(parts), ref=(frame_id, parts))


def _lit(value):
    if isinstance(value, Column):
        return value
    sql, name = _literal(value)
    return Column(lambda scope: sql, name)


def _to_column(value, literal=False):
    """A Column for a Column, a column name (or, with literal=True, a literal value)."""
    if isinstance(value, Column):
        return value
    if literal:
        return _lit(value)
    if isinstance(value, str):
        return _reference(None, value)
    raise _error("NOT_COLUMN_OR_STR", "Argument `col` should be a Column or str, got %s."
                 % type(value).__name__)


def _call(function, arguments, sql_name=None, pretty=None, distinct=False, window_kind=None,
          aggregate=False):
    """A call of SQL function `function` on Columns."""
    keyword = "DISTINCT " if distinct else ""

    def render(scope):
        return "%s(%s%s)" % (sql_name or function, keyword, ", ".join(a._sql(scope) for a in arguments))

    name = pretty if pretty is not None else "%s(%s%s)" % (
        function, keyword, ", ".join(a._pretty_in() for a in arguments))
    return Column(render, name, window_kind=window_kind, aggregate=aggregate)
