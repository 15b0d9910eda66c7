"""DataFrames of local data: createDataFrame from rows, tuples, dicts, values or pandas, and the
rows of statements that are not queries. The rows become a VALUES list of exact literals
(decimals by their digits, timestamps by their microseconds), cast to the schema's types."""

import datetime
import decimal
import math
import sys

from silt.errors import PySparkTypeError, PySparkValueError, _error
from silt.sql.column import _quote, _string_sql
from silt.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    IntegralType,
    LongType,
    MapType,
    NullType,
    Row,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    _infer_type,
    _merge_type,
    _parse_datatype_string,
    _type_sql,
)

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)

_INTEGRAL_RANGES = {
    ByteType: (-(2 ** 7), 2 ** 7 - 1),
    ShortType: (-(2 ** 15), 2 ** 15 - 1),
    IntegerType: (-(2 ** 31), 2 ** 31 - 1),
    LongType: (-(2 ** 63), 2 ** 63 - 1),
}


def _unacceptable(name, data_type, value):
    return _error("FIELD_DATA_TYPE_UNACCEPTABLE",
                  "field %s: %s can not accept object %r in type %s." % (
                      name, data_type, value, type(value)), family=PySparkTypeError)


def _value_sql(value, data_type, name, verify, time_zone=None):
    """The SQL literal of `value` as a value of `data_type` (PySpark's verifySchema checks the
    Python type first)."""
    if value is None:
        return "NULL"
    try:
        import numpy

        if isinstance(value, numpy.generic):
            value = value.item()
    except ImportError:
        pass
    if isinstance(data_type, StructType):
        if isinstance(value, dict):
            values = [value.get(f.name) for f in data_type.fields]
        elif isinstance(value, Row) and hasattr(value, "__fields__"):
            values = [value[f.name] if f.name in value.__fields__ else None for f in data_type.fields]
        elif isinstance(value, (tuple, list)):
            if len(value) != len(data_type.fields):
                raise _error("LENGTH_SHOULD_BE_THE_SAME",
                             "field %s: Length of object (%d) does not match with length of fields (%d)."
                             % (name, len(value), len(data_type.fields)), family=PySparkValueError)
            values = list(value)
        elif verify:
            raise _unacceptable(name, data_type, value)
        else:
            values = [getattr(value, f.name, None) for f in data_type.fields]
        parts = []
        for field, item in zip(data_type.fields, values):
            if item is None and not field.nullable and verify:
                raise _error("FIELD_NOT_NULLABLE", "Field `%s` is not nullable, but got None." % field.name,
                             family=PySparkValueError)
            parts.append(_string_sql(field.name))
            parts.append(_value_sql(item, field.dataType, field.name, verify, time_zone))
        return "named_struct(%s)" % ", ".join(parts)
    if isinstance(data_type, ArrayType):
        if not isinstance(value, (list, tuple)):
            try:
                value = list(value)  # numpy arrays
            except TypeError:
                raise _unacceptable(name, data_type, value)
        items = [_value_sql(v, data_type.elementType, name, verify, time_zone) for v in value]
        return "CAST(array(%s) AS %s)" % (", ".join(items), _type_sql(data_type))
    if isinstance(data_type, MapType):
        if not isinstance(value, dict):
            raise _unacceptable(name, data_type, value)
        items = []
        for key, item in value.items():
            items.append(_value_sql(key, data_type.keyType, name, verify, time_zone))
            items.append(_value_sql(item, data_type.valueType, name, verify, time_zone))
        return "CAST(map(%s) AS %s)" % (", ".join(items), _type_sql(data_type))
    if isinstance(data_type, BooleanType):
        if not isinstance(value, bool):
            raise _unacceptable(name, data_type, value)
        return "true" if value else "false"
    if isinstance(data_type, IntegralType):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _unacceptable(name, data_type, value)
        low, high = _INTEGRAL_RANGES[type(data_type)]
        if verify and not low <= value <= high:
            raise _error("VALUE_OUT_OF_BOUNDS",
                         "field %s: object of %s out of range, got: %d" % (name, data_type, value),
                         family=PySparkValueError)
        return "%dL" % value if -(2 ** 63) <= value < 2 ** 63 else str(value)
    if isinstance(data_type, (FloatType, DoubleType)):
        if verify and not isinstance(value, float):
            raise _unacceptable(name, data_type, value)
        value = float(value)
        if math.isnan(value):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(value):
            return "CAST('%s' AS DOUBLE)" % ("Infinity" if value > 0 else "-Infinity")
        return repr(value) + "D"
    if isinstance(data_type, DecimalType):
        if not isinstance(value, decimal.Decimal):
            raise _unacceptable(name, data_type, value)
        return "CAST('%s' AS %s)" % (format(value, "f"), _type_sql(data_type))
    if isinstance(data_type, StringType):
        if not isinstance(value, str):
            raise _unacceptable(name, data_type, value)
        return _string_sql(value)
    if isinstance(data_type, BinaryType):
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise _unacceptable(name, data_type, value)
        return "X'%s'" % bytes(value).hex().upper()
    if isinstance(data_type, TimestampType):
        if not isinstance(value, datetime.datetime):
            if isinstance(value, datetime.date) or not verify:
                value = datetime.datetime(value.year, value.month, value.day)
            else:
                raise _unacceptable(name, data_type, value)
        return "timestamp_micros(%dL)" % _instant_micros(value, time_zone)
    if isinstance(data_type, TimestampNTZType):
        if not isinstance(value, datetime.datetime):
            raise _unacceptable(name, data_type, value)
        naive = value.replace(tzinfo=None)
        return "TIMESTAMP_NTZ'%s'" % naive.isoformat(sep=" ")
    if isinstance(data_type, DateType):
        if not isinstance(value, datetime.date):
            raise _unacceptable(name, data_type, value)
        if isinstance(value, datetime.datetime):
            value = value.date()
        return "DATE'%s'" % value.isoformat()
    if isinstance(data_type, DayTimeIntervalType):
        if not isinstance(value, datetime.timedelta):
            raise _unacceptable(name, data_type, value)
        micros = (value.days * 86400 + value.seconds) * 1000000 + value.microseconds
        return "INTERVAL '%s' SECOND" % (decimal.Decimal(micros) / 1000000)
    if isinstance(data_type, NullType):
        return "NULL"
    raise _error("UNSUPPORTED_DATATYPE", "Unsupported data type \"%s\"." % data_type.simpleString())


def _engine_value(value, data_type, name, verify, time_zone=None):
    """`value` as a value of `data_type` in the form the extension's Parquet writer takes
    (the checks of _value_sql, without SQL text)."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, (list, dict, str, bytes)) and \
            type(value).__module__ == "numpy":
        value = value.item()
    if isinstance(data_type, StructType):
        if isinstance(value, dict):
            values = [value.get(f.name) for f in data_type.fields]
        elif isinstance(value, Row) and hasattr(value, "__fields__"):
            values = [value[f.name] if f.name in value.__fields__ else None for f in data_type.fields]
        elif isinstance(value, (tuple, list)) and len(value) == len(data_type.fields):
            values = list(value)
        else:
            raise _unacceptable(name, data_type, value)
        return [_engine_value(v, f.dataType, f.name, verify, time_zone) for v, f in zip(values, data_type.fields)]
    if isinstance(data_type, ArrayType):
        if isinstance(value, (str, bytes, dict)):
            raise _unacceptable(name, data_type, value)
        return [_engine_value(v, data_type.elementType, name, verify, time_zone) for v in value]
    if isinstance(data_type, MapType):
        if not isinstance(value, dict):
            raise _unacceptable(name, data_type, value)
        return [(_engine_value(k, data_type.keyType, name, verify, time_zone),
                 _engine_value(v, data_type.valueType, name, verify, time_zone)) for k, v in value.items()]
    if isinstance(data_type, BooleanType):
        if not isinstance(value, bool):
            raise _unacceptable(name, data_type, value)
        return value
    if isinstance(data_type, IntegralType):
        if isinstance(value, bool) or not isinstance(value, int):
            raise _unacceptable(name, data_type, value)
        low, high = _INTEGRAL_RANGES[type(data_type)]
        if not low <= value <= high:
            raise _error("VALUE_OUT_OF_BOUNDS", "field %s: object of %s out of range, got: %d"
                         % (name, data_type, value), family=PySparkValueError)
        return value
    if isinstance(data_type, (FloatType, DoubleType)):
        if verify and not isinstance(value, float):
            raise _unacceptable(name, data_type, value)
        return float(value)
    if isinstance(data_type, DecimalType):
        if not isinstance(value, decimal.Decimal):
            raise _unacceptable(name, data_type, value)
        scaled = value.scaleb(data_type.scale).to_integral_value(rounding=decimal.ROUND_HALF_UP) \
            if value.is_finite() else None
        if scaled is None or abs(scaled) >= 10 ** data_type.precision:
            raise _error("NUMERIC_VALUE_OUT_OF_RANGE", "%s cannot be represented as Decimal(%d, %d)."
                         % (value, data_type.precision, data_type.scale))
        return int(scaled).to_bytes(16, "little", signed=True)
    if isinstance(data_type, StringType):
        if not isinstance(value, str):
            raise _unacceptable(name, data_type, value)
        return value
    if isinstance(data_type, BinaryType):
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise _unacceptable(name, data_type, value)
        return bytes(value)
    if isinstance(data_type, TimestampType):
        if not isinstance(value, datetime.datetime):
            if isinstance(value, datetime.date) or not verify:
                value = datetime.datetime(value.year, value.month, value.day)
            else:
                raise _unacceptable(name, data_type, value)
        return _instant_micros(value, time_zone)
    if isinstance(data_type, TimestampNTZType):
        if not isinstance(value, datetime.datetime):
            raise _unacceptable(name, data_type, value)
        delta = value.replace(tzinfo=None) - datetime.datetime(1970, 1, 1)
        return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
    if isinstance(data_type, DateType):
        if not isinstance(value, datetime.date):
            raise _unacceptable(name, data_type, value)
        if isinstance(value, datetime.datetime):
            value = value.date()
        return value.toordinal() - 719163
    if isinstance(data_type, DayTimeIntervalType):
        if not isinstance(value, datetime.timedelta):
            raise _unacceptable(name, data_type, value)
        return (value.days * 86400 + value.seconds) * 1000000 + value.microseconds
    if isinstance(data_type, NullType):
        return None
    raise _error("UNSUPPORTED_DATATYPE", "Unsupported data type \"%s\"." % data_type.simpleString())


# From this many rows on, local data reaches the engine as a Parquet file rather than as a
# VALUES list (pandas frames always do).
COLUMNAR_ROWS = 1000


def columnar_query(session, rows, schema, verify, time_zone=None):
    """A query reading `rows` from a Parquet file written by the extension into the session's
    folder of local data (removed when the session stops or the process exits)."""
    fields = schema.fields
    columns = [[] for _ in fields]
    for row in rows:
        for column, value, field in zip(columns, row, fields):
            if value is None and not field.nullable and verify:
                raise _error("FIELD_NOT_NULLABLE", "Field `%s` is not nullable, but got None." % field.name,
                             family=PySparkValueError)
            column.append(_engine_value(value, field.dataType, field.name, verify, time_zone))
    return _parquet_query(session, columns, schema)


def _parquet_query(session, columns, schema):
    from silt import _silt

    fields = schema.fields
    path = session._local_data_path()
    _silt.write_parquet(path, [(f.name, _type_sql(f.dataType), f.nullable) for f in fields], columns)
    items = ", ".join("CAST(%s AS %s) AS %s" % (_quote(f.name), _type_sql(f.dataType), _quote(f.name))
                      for f in fields)
    return "SELECT %s FROM parquet.%s" % (items, _quote(path))


def _instant_micros(value, time_zone):
    """Microseconds since the epoch of a datetime: naive ones are wall-clock time of
    `time_zone` (a zoneinfo name) when given, else of the local time zone, as PySpark reads
    them."""
    if value.tzinfo is None:
        if time_zone is not None:
            from zoneinfo import ZoneInfo

            value = value.replace(tzinfo=ZoneInfo(time_zone))
        else:
            value = value.astimezone()
    delta = value - _EPOCH
    return (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds


def rows_query(rows, schema, verify=False, time_zone=None):
    """A query returning `rows` (sequences of values in schema order) with `schema`."""
    fields = schema.fields
    names = [_quote(f.name) for f in fields]
    casts = ", ".join("CAST(`col%d` AS %s) AS %s" % (i + 1, _type_sql(f.dataType), name)
                      for i, (f, name) in enumerate(zip(fields, names)))
    if not fields:
        return "SELECT 1 AS `__empty` WHERE false"
    if not rows:
        items = ", ".join("CAST(NULL AS %s) AS %s" % (_type_sql(f.dataType), name) for f, name in zip(fields, names))
        return "SELECT %s FROM range(0, 0)" % items
    values = []
    first = None
    for row in rows:
        literals = [_value_sql(v, f.dataType, f.name, verify, time_zone) for v, f in zip(row, fields)]
        first = first or literals
        values.append("(" + ", ".join(literals) + ")")
    columns = ", ".join("`col%d`" % (i + 1) for i in range(len(fields)))
    query = "SELECT %s FROM VALUES %s AS `_local`(%s)" % (casts, ", ".join(values), columns)
    # The columns are as nullable as the schema says (PySpark's schemas are nullable unless
    # declared otherwise), whatever the values: a union with no rows of NULLs makes them so.
    nullable = [f.nullable for f in fields]
    if any(nullable):
        items = ", ".join("CAST(%s AS %s)" % ("NULL" if f.nullable else literal, _type_sql(f.dataType))
                          for f, literal in zip(fields, first))
        query += " UNION ALL SELECT %s FROM range(0, 0)" % items
    return query


def _row_values(row, schema_names):
    """The values of one input row, in schema order."""
    if isinstance(row, dict):
        return [row.get(name) for name in schema_names]
    if isinstance(row, Row) and hasattr(row, "__fields__"):
        if schema_names is not None and set(row.__fields__) == set(schema_names):
            return [row[name] for name in schema_names]
        return list(row)
    if isinstance(row, (tuple, list)):
        return list(row)
    return [row]


def create_data_frame(session, data, schema, verify):
    from silt.sql.dataframe import DataFrame

    # A pandas DataFrame can only exist when pandas was imported (importing it here is slow).
    pandas = sys.modules.get("pandas")
    time_zone = None
    from_pandas = pandas is not None and isinstance(data, pandas.DataFrame)
    if from_pandas:
        from silt.sql.pandas import pandas_columns, pandas_rows

        time_zone = session._time_zone()
        if (schema is None or isinstance(schema, (list, tuple))) and len(data.columns):
            # Types from the dtypes: the columns go to the engine as they are.
            columns, inferred = pandas_columns(data, schema, time_zone)
            return DataFrame(session, _parquet_query(session, columns, inferred), inferred)
        data, inferred = pandas_rows(data, schema)
    if isinstance(data, DataFrame):
        raise _error("INVALID_TYPE", "data is already a DataFrame.", family=PySparkTypeError)
    data = list(data)
    if isinstance(schema, str):
        schema = _parse_datatype_string(schema)
    if isinstance(schema, DataType) and not isinstance(schema, StructType):
        # One column named "value" of an atomic type.
        schema = StructType([StructField("value", schema, True)])
        data = [row if isinstance(row, (tuple, list, Row)) else (row,) for row in data]
    if isinstance(schema, StructType):
        names = schema.names
        rows = [_row_values(row, names) for row in data]
        for row in rows:
            if len(row) != len(names):
                raise _error("LENGTH_SHOULD_BE_THE_SAME",
                             "Length of object (%d) does not match with length of fields (%d)."
                             % (len(row), len(names)), family=PySparkValueError)
            if verify:
                for value, field in zip(row, schema.fields):
                    if value is None and not field.nullable:
                        raise _error("FIELD_NOT_NULLABLE",
                                     "Field `%s` is not nullable, but got None." % field.name,
                                     family=PySparkValueError)
        if (from_pandas or len(rows) >= COLUMNAR_ROWS) and schema.fields:
            return DataFrame(session, columnar_query(session, rows, schema, verify, time_zone), schema)
        return DataFrame(session, rows_query(rows, schema, verify, time_zone), schema)
    if schema is not None and not isinstance(schema, (list, tuple)):
        raise _error("NOT_LIST_OR_NONE_OR_STRUCT",
                     "Argument `schema` should be a list, None or StructType, got %s." % type(schema).__name__,
                     family=PySparkTypeError)
    if not data:
        raise _error("CANNOT_INFER_EMPTY_SCHEMA", "Can not infer schema from an empty dataset.",
                     family=PySparkValueError)
    schema = _infer_schema(data, schema)
    names = schema.names
    rows = [_row_values(row, names) for row in data]
    if (from_pandas or len(rows) >= COLUMNAR_ROWS) and schema.fields:
        return DataFrame(session, columnar_query(session, rows, schema, False, time_zone), schema)
    return DataFrame(session, rows_query(rows, schema, False, time_zone), schema)


def _infer_schema(data, names):
    first = data[0]
    if isinstance(first, dict):
        # PySpark's _infer_schema orders the fields of dicts by name.
        keys = sorted(first.keys())
        fields = {key: NullType() for key in keys}
        for row in data:
            for key in keys:
                fields[key] = _merge_type(fields[key], _infer_type(row.get(key)))
        inferred = [StructField(key, fields[key], True) for key in keys]
    elif isinstance(first, Row) and hasattr(first, "__fields__"):
        keys = list(first.__fields__)
        types = [NullType()] * len(keys)
        for row in data:
            types = [_merge_type(t, _infer_type(v)) for t, v in zip(types, row)]
        inferred = [StructField(k, t, True) for k, t in zip(keys, types)]
    elif isinstance(first, (tuple, list)):
        types = [NullType()] * len(first)
        for row in data:
            if len(row) != len(types):
                raise _error("LENGTH_SHOULD_BE_THE_SAME",
                             "Length of object (%d) does not match with length of fields (%d)."
                             % (len(row), len(types)), family=PySparkValueError)
            types = [_merge_type(t, _infer_type(v)) for t, v in zip(types, row)]
        inferred = [StructField("_%d" % (i + 1), t, True) for i, t in enumerate(types)]
    else:
        raise _error("CANNOT_INFER_SCHEMA_FOR_TYPE", "Can not infer schema for type: `%s`."
                     % type(first).__name__, family=PySparkTypeError)
    for field in inferred:
        if isinstance(field.dataType, NullType):
            raise _error("CANNOT_DETERMINE_TYPE", "Some of types cannot be determined after inferring.",
                         family=PySparkValueError)
    if names:
        if len(names) > len(inferred):
            raise _error("LENGTH_SHOULD_BE_THE_SAME", "Length of schema names (%d) exceeds the number of "
                         "fields (%d)." % (len(names), len(inferred)), family=PySparkValueError)
        for field, name in zip(inferred, names):
            field.name = name
    return StructType(inferred)
