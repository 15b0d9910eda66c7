"""pandas interop: toPandas() and createDataFrame(pandas.DataFrame).

toPandas() builds each column from the engine's columns directly (numpy arrays of the values
of fixed-width types, Python objects for the rest), never through text, with PySpark's dtypes
(pyspark.sql.pandas.conversion): integers as their numpy width (float64 when a value is NULL),
booleans as bool (object when a value is NULL), floats as float32/float64 with NaN for NULL,
TIMESTAMP as datetime64[ns] wall-clock time of the session time zone, TIMESTAMP_NTZ as
datetime64[ns], DECIMAL as decimal.Decimal, DATE as datetime.date, structs as Row, arrays as
lists and maps as dicts.
"""

import datetime

from silt.errors import _error
from silt.sql.types import (
    BooleanType,
    ByteType,
    DateType,
    DayTimeIntervalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    _infer_type,
    _merge_type,
    NullType,
)


def _pandas():
    try:
        import numpy
        import pandas
    except ImportError as missing:
        raise _error("PACKAGE_NOT_INSTALLED", "pandas and numpy are required for this method: %s." % missing,
                     family=_import_error())
    return numpy, pandas


def _import_error():
    from silt.errors import PySparkException

    class PySparkImportError(PySparkException, ImportError):
        pass

    return PySparkImportError


def _local_zone():
    return datetime.datetime.now().astimezone().tzinfo


# datetime64[ns] holds about +-292 years around 1970: microseconds within this bound fit.
_MAX_NS_MICROS = 9_223_372_036_854_775


def result_to_pandas(columns, schema, session):
    """The pandas DataFrame of `columns` (the extension's PandasColumns, converted while the
    engine produced the rows) with PySpark's dtypes."""
    numpy, pandas = _pandas()
    from silt.sql.dataframe import _converter

    zone = session._time_zone()
    names = schema.names
    series = []
    for index, field in enumerate(schema.fields):
        data_type = field.dataType
        taken = columns.take(index)
        if isinstance(taken, tuple):
            values, nulls = taken
            if isinstance(data_type, (TimestampType, TimestampNTZType)):
                wall_clock = isinstance(data_type, TimestampNTZType) or zone in ("UTC", "Etc/UTC")
                if nulls is not None:
                    values = numpy.where(nulls, 0, values)
                if wall_clock and (len(values) == 0 or (values.min() > -_MAX_NS_MICROS and
                                                        values.max() < _MAX_NS_MICROS)):
                    # Wall-clock time is the stored time: microseconds to nanoseconds in bulk.
                    values *= 1000
                    stamps = values.view("datetime64[ns]")
                elif wall_clock:
                    stamps = pandas.to_datetime(values, unit="us")  # raises out of its range
                else:
                    stamps = pandas.to_datetime(values, unit="us", utc=True)
                    stamps = stamps.tz_convert(zone or _local_zone()).tz_localize(None)
                column = pandas.Series(stamps, dtype="datetime64[ns]", copy=False)
                if nulls is not None:
                    column[nulls] = pandas.NaT
            elif isinstance(data_type, BooleanType):
                if nulls is not None:
                    objects = values.astype(object)
                    objects[nulls] = None
                    column = pandas.Series(objects, dtype="object")
                else:
                    column = pandas.Series(values, dtype="bool", copy=False)
            elif isinstance(data_type, (FloatType, DoubleType)):
                if nulls is not None:
                    values[nulls] = numpy.nan
                column = pandas.Series(values, copy=False)
            else:
                if nulls is not None:
                    values = values.astype("float64")
                    values[nulls] = numpy.nan
                column = pandas.Series(values, copy=False)
        else:
            # Strings, dates and the other types as Python objects.
            convert = _converter(data_type)
            if convert is not None:
                # numpy.fromiter stores the objects as they are; building the array from a
                # list (as pandas.Series(list) does) probes every value for a sequence, which
                # is many times slower.
                converted = [convert(v) for v in taken]
                taken = numpy.fromiter(converted, dtype=object, count=len(converted))
            column = pandas.Series(taken, dtype="object", copy=False)
        series.append(column)
    if not series:
        return pandas.DataFrame()
    # Keyed by position (names may repeat after a join), without copying the columns.
    frame = pandas.DataFrame(dict(enumerate(series)), copy=False)
    frame.columns = names
    return frame


_DTYPES = {
    "int8": ByteType, "int16": ShortType, "int32": IntegerType, "int64": LongType,
    "Int8": ByteType, "Int16": ShortType, "Int32": IntegerType, "Int64": LongType,
    "float32": FloatType, "float64": DoubleType, "Float32": FloatType, "Float64": DoubleType,
    "bool": BooleanType, "boolean": BooleanType, "string": StringType,
}


def pandas_rows(frame, schema):
    """(rows, inferred schema) of a pandas DataFrame: missing values (None, NaN, NaT, NA)
    become NULL, as PySpark's Arrow conversion reads them."""
    numpy, pandas = _pandas()
    names = [str(name) for name in frame.columns]
    if isinstance(schema, (list, tuple)):
        names = list(schema)
    columns = []
    fields = []
    for position, name in enumerate(names):
        series = frame.iloc[:, position]
        dtype = series.dtype
        dtype_name = str(dtype)
        missing = series.isna().to_numpy()
        if dtype_name.startswith("datetime64"):
            aware = getattr(dtype, "tz", None) is not None
            values = [None if m else (v.to_pydatetime() if aware else v.to_pydatetime())
                      for v, m in zip(series, missing)]
            data_type = TimestampType()
        elif dtype_name.startswith("timedelta64"):
            values = [None if m else v.to_pytimedelta() for v, m in zip(series, missing)]
            data_type = DayTimeIntervalType()
        elif dtype_name in _DTYPES:
            data_type = _DTYPES[dtype_name]()
            raw = series.to_numpy(dtype=object)
            values = [None if m else _plain(v) for v, m in zip(raw, missing)]
            if isinstance(data_type, (FloatType, DoubleType)):
                values = [None if v is None else float(v) for v in values]
        else:
            raw = series.to_numpy(dtype=object)
            values = [None if _is_missing(v, pandas) else _plain(v) for v in raw]
            data_type = NullType()
            for value in values:
                data_type = _merge_type(data_type, _infer_type(value))
            if isinstance(data_type, NullType):
                data_type = StringType()
        columns.append(values)
        fields.append(StructField(name, data_type, True))
    rows = [list(row) for row in zip(*columns)] if columns else [[] for _ in range(len(frame))]
    return rows, StructType(fields)


_NUMPY_TYPES = {
    "int8": ByteType, "int16": ShortType, "int32": IntegerType, "int64": LongType,
    "float32": FloatType, "float64": DoubleType, "bool": BooleanType,
}


def pandas_columns(frame, names, time_zone):
    """(columns in the form the extension writes, inferred schema) of a pandas DataFrame:
    NULL-free numeric and boolean columns as their numpy arrays, timestamps as microseconds
    (naive ones are wall-clock time of `time_zone`, else of the local zone), missing values
    (None, NaN, NaT, NA) as NULL."""
    numpy, pandas = _pandas()
    from silt.sql.local import _engine_value

    names = list(names) if names else [str(name) for name in frame.columns]
    columns = []
    fields = []
    for position, name in enumerate(names):
        series = frame.iloc[:, position]
        dtype_name = str(series.dtype)
        missing = series.isna().to_numpy()
        has_missing = bool(missing.any())
        if dtype_name in _NUMPY_TYPES:
            data_type = _NUMPY_TYPES[dtype_name]()
            if has_missing:
                raw = series.to_numpy(dtype=object)
                column = [None if m else _plain(v) for v, m in zip(raw, missing)]
            else:
                column = numpy.ascontiguousarray(series.to_numpy())
        elif dtype_name.startswith("datetime64"):
            data_type = TimestampType()
            stamps = series
            if getattr(series.dtype, "tz", None) is None:
                stamps = series.dt.tz_localize(time_zone or _local_zone(), ambiguous="NaT", nonexistent="NaT")
            micros = stamps.dt.tz_convert("UTC").dt.tz_localize(None).to_numpy(dtype="datetime64[us]").astype("int64")
            missing = stamps.isna().to_numpy()
            column = micros if not missing.any() else [None if m else int(v) for v, m in zip(micros, missing)]
        elif pandas.api.types.infer_dtype(series, skipna=True) == "string":
            # Strings (and missing values) only: the values as they are.
            data_type = StringType()
            column = [None if m else v for v, m in zip(series.to_numpy(dtype=object), missing)]
        else:
            rows, inferred = pandas_rows(frame.iloc[:, [position]], [name])
            data_type = inferred.fields[0].dataType
            column = [_engine_value(row[0], data_type, name, False, time_zone) for row in rows]
        columns.append(column)
        fields.append(StructField(name, data_type, True))
    return columns, StructType(fields)


def _plain(value):
    if hasattr(value, "item") and not isinstance(value, (list, dict, str, bytes)):
        try:
            return value.item()
        except (ValueError, AttributeError):
            return value
    return value


def _is_missing(value, pandas):
    if value is None:
        return True
    if isinstance(value, float) and value != value:
        return True
    try:
        return value is pandas.NaT or value is pandas.NA
    except AttributeError:
        return False
