"""Functions of columns, as pyspark.sql.functions names them.

Arguments named `col` (and the like) take a Column or a column name; the others (formats,
patterns, lengths, counts) take Python values, as in PySpark. Each function is the Spark SQL
function of the same name run by silt's engine; a function the engine lacks fails when the
DataFrame using it is analysed, with UNRESOLVED_ROUTINE.
"""

import builtins

from silt.errors import _error
from silt.sql.column import (
    Column,
    _call,
    _case,
    _lit,
    _reference,
    _string_sql,
    _to_column,
)
from silt.sql.types import DataType, StructType, _type_sql


def _c(col):
    return _to_column(col)


def _cols(cols):
    # builtins.len: this module defines PySpark's len().
    if builtins.len(cols) == 1 and isinstance(cols[0], (list, tuple, set)):
        cols = tuple(cols[0])
    return [_c(col) for col in cols]


def _col_or_lit(value):
    """A Column for a Column or column name, a literal for other values ("Column or str or
    int" arguments)."""
    return _to_column(value, literal=not isinstance(value, str))


def _fn(name, *cols, **kwargs):
    return _call(name, [_c(col) for col in cols], **kwargs)


def _agg(name, col, pretty=None, distinct=False, sql_name=None):
    return _call(name, [_c(col)], pretty=pretty, distinct=distinct, window_kind="aggregate",
                 aggregate=True, sql_name=sql_name)


# Columns and literals.


def col(col):
    """A reference to column `col` ("a", "t.a", "s.field", "`odd.name`", "*")."""
    if not isinstance(col, str):
        raise _error("NOT_STR", "Argument `col` should be a str, got %s." % type(col).__name__)
    return _reference(None, col)


column = col


def lit(col):
    """A literal: int, float, str, bool, None, Decimal, date, datetime, bytes, list, dict; a
    Column is returned unchanged."""
    return _lit(col)


def expr(str):
    """A Spark SQL expression, parsed by the engine (its name is the engine's too)."""
    text = str
    return Column(lambda scope: "(" + text + ")", text, raw=text)


def broadcast(df):
    """Marks a DataFrame for a broadcast join; silt's planner picks join strategies itself, so
    this returns `df`."""
    return df


def when(condition, value):
    return _case([(_c(condition), _to_column(value, literal=True))], None)


def coalesce(*cols):
    return _call("coalesce", _cols(cols))


def greatest(*cols):
    return _call("greatest", _cols(cols))


def least(*cols):
    return _call("least", _cols(cols))


def isnull(col):
    return _fn("isnull", col)


def isnotnull(col):
    return _fn("isnotnull", col)


def isnan(col):
    """True for NaN, false otherwise (also for NULL)."""
    return _c(col).isNaN()


def nanvl(col1, col2):
    return _fn("nanvl", col1, col2)


def ifnull(col1, col2):
    return _fn("ifnull", col1, col2)


def nvl(col1, col2):
    return _fn("nvl", col1, col2)


def nvl2(col1, col2, col3):
    return _fn("nvl2", col1, col2, col3)


def nullif(col1, col2):
    return _fn("nullif", col1, col2)


def struct(*cols):
    columns = _cols(cols)

    def render(scope):
        items = []
        for item in columns:
            items.extend([_string_sql(item._name()), item._sql(scope)])
        return "named_struct(%s)" % ", ".join(items)

    return Column(render, "struct(%s)" % ", ".join(c._pretty_in() for c in columns))


def named_struct(*cols):
    return _call("named_struct", [_to_column(c, literal=False) for c in cols])


def array(*cols):
    return _call("array", _cols(cols))


def create_map(*cols):
    return _call("map", _cols(cols))


def asc(col):
    return _c(col).asc()


def desc(col):
    return _c(col).desc()


def asc_nulls_first(col):
    return _c(col).asc_nulls_first()


def asc_nulls_last(col):
    return _c(col).asc_nulls_last()


def desc_nulls_first(col):
    return _c(col).desc_nulls_first()


def desc_nulls_last(col):
    return _c(col).desc_nulls_last()


# Aggregates.


def count(col):
    """count(col); count("*") counts rows, named count(1) as in Spark."""
    if isinstance(col, str) and col == "*":
        return Column(lambda scope: "count(*)", "count(1)", window_kind="aggregate", aggregate=True)
    return _agg("count", col)


def countDistinct(col, *cols):
    columns = [_c(col)] + [_c(c) for c in cols]
    return _call("count", columns, distinct=True, window_kind="aggregate", aggregate=True)


count_distinct = countDistinct


def sum(col):
    return _agg("sum", col)


def sumDistinct(col):
    return _agg("sum", col, distinct=True)


sum_distinct = sumDistinct


def avg(col):
    return _agg("avg", col)


def mean(col):
    column = _c(col)
    return _call("avg", [column], window_kind="aggregate", aggregate=True)


def max(col):
    return _agg("max", col)


def min(col):
    return _agg("min", col)


def max_by(col, ord):
    return _call("max_by", [_c(col), _c(ord)], window_kind="aggregate", aggregate=True)


def min_by(col, ord):
    return _call("min_by", [_c(col), _c(ord)], window_kind="aggregate", aggregate=True)


def _first_last(name, col, ignorenulls):
    column = _c(col)
    if ignorenulls:
        return Column(lambda scope: "%s(%s, true)" % (name, column._sql(scope)),
                      "%s(%s) ignore nulls" % (name, column._pretty_in()),
                      window_kind="aggregate", aggregate=True)
    return _call(name, [column], window_kind="aggregate", aggregate=True)


def first(col, ignorenulls=False):
    return _first_last("first", col, ignorenulls)


def last(col, ignorenulls=False):
    return _first_last("last", col, ignorenulls)


def first_value(col, ignoreNulls=None):
    return _first_last("first_value", col, bool(ignoreNulls))


def last_value(col, ignoreNulls=None):
    return _first_last("last_value", col, bool(ignoreNulls))


def any_value(col, ignoreNulls=None):
    return _first_last("any_value", col, bool(ignoreNulls))


def collect_list(col):
    return _agg("collect_list", col)


def collect_set(col):
    return _agg("collect_set", col)


def array_agg(col):
    return _agg("array_agg", col)


def approx_count_distinct(col, rsd=None):
    if rsd is None:
        return _agg("approx_count_distinct", col)
    return _call("approx_count_distinct", [_c(col), _lit(rsd)], window_kind="aggregate", aggregate=True)


approxCountDistinct = approx_count_distinct


def histogram_numeric(col, nBins):
    """A histogram of `col` in at most `nBins` bins: an array of (x, y) structs, the bins'
    centres (of `col`'s type) and heights."""
    return _call("histogram_numeric", [_c(col), _col_or_lit(nBins)], window_kind="aggregate",
                 aggregate=True)


def count_min_sketch(col, eps, confidence, seed=None):
    """The count-min sketch of `col` (BINARY, Spark's serialization) with relative error `eps`,
    `confidence` and `seed` (a random one when None, as PySpark picks it)."""
    if seed is None:
        import random
        import sys

        seed = random.randint(0, sys.maxsize)
    return _call("count_min_sketch", [_c(col), _col_or_lit(eps), _col_or_lit(confidence),
                                      _col_or_lit(seed)], window_kind="aggregate", aggregate=True)


def stddev(col):
    return _agg("stddev", col)


def std(col):
    return _agg("std", col)


def stddev_samp(col):
    return _agg("stddev_samp", col)


def stddev_pop(col):
    return _agg("stddev_pop", col)


def variance(col):
    return _agg("variance", col)


def var_samp(col):
    return _agg("var_samp", col)


def var_pop(col):
    return _agg("var_pop", col)


def bool_and(col):
    return _agg("bool_and", col)


def bool_or(col):
    return _agg("bool_or", col)


def every(col):
    return _agg("every", col)


def some(col):
    return _agg("some", col)


def count_if(col):
    return _agg("count_if", col)


def grouping(col):
    return _agg("grouping", col)


def grouping_id(*cols):
    return _call("grouping_id", _cols(cols), window_kind="aggregate", aggregate=True)


# Window functions.


def _ranking(name):
    return Column(lambda scope: "%s()" % name, "%s()" % name, window_kind="rank")


def row_number():
    return _ranking("row_number")


def rank():
    return _ranking("rank")


def dense_rank():
    return _ranking("dense_rank")


def percent_rank():
    return _ranking("percent_rank")


def cume_dist():
    return _ranking("cume_dist")


def ntile(n):
    return Column(lambda scope: "ntile(%d)" % n, "ntile(%d)" % n, window_kind="rank")


def _offset(name, col, offset, default):
    column = _c(col)
    default_column = _lit(default)
    return Column(
        lambda scope: "%s(%s, %d, %s)" % (name, column._sql(scope), offset, default_column._sql(scope)),
        "%s(%s, %d, %s)" % (name, column._pretty_in(), offset, default_column._pretty_in()),
        window_kind="offset",
    )


def lag(col, offset=1, default=None):
    return _offset("lag", col, offset, default)


def lead(col, offset=1, default=None):
    return _offset("lead", col, offset, default)


def nth_value(col, offset, ignoreNulls=False):
    column = _c(col)
    if ignoreNulls:
        return Column(lambda scope: "nth_value(%s, %d) IGNORE NULLS" % (column._sql(scope), offset),
                      "nth_value(%s, %d) ignore nulls" % (column._pretty_in(), offset),
                      window_kind="aggregate")
    return Column(lambda scope: "nth_value(%s, %d)" % (column._sql(scope), offset),
                  "nth_value(%s, %d)" % (column._pretty_in(), offset), window_kind="aggregate")


# Math.


def abs(col):
    return _fn("abs", col)


def sqrt(col):
    return _fn("SQRT", col, sql_name="sqrt")


def cbrt(col):
    return _fn("CBRT", col, sql_name="cbrt")


def exp(col):
    return _fn("EXP", col, sql_name="exp")


def ln(col):
    return _fn("ln", col)


def log10(col):
    return _fn("LOG10", col, sql_name="log10")


def log2(col):
    return _fn("LOG2", col, sql_name="log2")


def log(arg1, arg2=None):
    """log(col) is the natural logarithm; log(base, col) the logarithm to `base`."""
    if arg2 is None:
        return _fn("ln", arg1)
    return _call("LOG", [_lit(arg1), _c(arg2)], sql_name="log")


def pow(col1, col2):
    return _call("POWER", [_to_column(col1, literal=not isinstance(col1, str)),
                           _to_column(col2, literal=not isinstance(col2, str))], sql_name="power")


power = pow


def round(col, scale=None):
    return _call("round", [_c(col), _lit(0 if scale is None else scale)])


def bround(col, scale=None):
    return _call("bround", [_c(col), _lit(0 if scale is None else scale)])


def ceil(col, scale=None):
    if scale is None:
        return _fn("CEIL", col, sql_name="ceil")
    return _call("ceil", [_c(col), _lit(scale)])


ceiling = ceil


def floor(col, scale=None):
    if scale is None:
        return _fn("FLOOR", col, sql_name="floor")
    return _call("floor", [_c(col), _lit(scale)])


def signum(col):
    return _fn("SIGNUM", col, sql_name="signum")


sign = signum


def negative(col):
    return _fn("negative", col)


def positive(col):
    return _fn("positive", col)


def pmod(dividend, divisor):
    return _call("pmod", [_to_column(dividend, literal=not isinstance(dividend, str)),
                          _to_column(divisor, literal=not isinstance(divisor, str))])


def sin(col):
    return _fn("SIN", col, sql_name="sin")


def cos(col):
    return _fn("COS", col, sql_name="cos")


def tan(col):
    return _fn("TAN", col, sql_name="tan")


def asin(col):
    return _fn("ASIN", col, sql_name="asin")


def acos(col):
    return _fn("ACOS", col, sql_name="acos")


def atan(col):
    return _fn("ATAN", col, sql_name="atan")


def atan2(col1, col2):
    return _call("ATAN2", [_to_column(col1, literal=not isinstance(col1, str)),
                           _to_column(col2, literal=not isinstance(col2, str))], sql_name="atan2")


def degrees(col):
    return _fn("DEGREES", col, sql_name="degrees")


def radians(col):
    return _fn("RADIANS", col, sql_name="radians")


def pi():
    return Column(lambda scope: "pi()", "PI()")


def e():
    return Column(lambda scope: "e()", "E()")


def rand(seed=None):
    if seed is None:
        return Column(lambda scope: "rand()", "rand()")
    return _call("rand", [_lit(seed)])


def randn(seed=None):
    if seed is None:
        return Column(lambda scope: "randn()", "randn()")
    return _call("randn", [_lit(seed)])


def shiftleft(col, numBits):
    return _call("shiftleft", [_c(col), _lit(numBits)])


def shiftright(col, numBits):
    return _call("shiftright", [_c(col), _lit(numBits)])


def shiftrightunsigned(col, numBits):
    return _call("shiftrightunsigned", [_c(col), _lit(numBits)])


# Strings.


def upper(col):
    return _fn("upper", col)


def lower(col):
    return _fn("lower", col)


def ucase(str):
    return _fn("ucase", str)


def lcase(str):
    return _fn("lcase", str)


def initcap(col):
    return _fn("initcap", col)


def length(col):
    return _fn("length", col)


def char_length(str):
    return _fn("char_length", str)


def octet_length(col):
    return _fn("octet_length", col)


def trim(col, trim=None):
    if trim is None:
        return _fn("trim", col)
    return _call("trim", [_c(col), _to_column(trim, literal=True)])


def ltrim(col, trim=None):
    if trim is None:
        return _fn("ltrim", col)
    return _call("ltrim", [_c(col), _to_column(trim, literal=True)])


def rtrim(col, trim=None):
    if trim is None:
        return _fn("rtrim", col)
    return _call("rtrim", [_c(col), _to_column(trim, literal=True)])


def btrim(str, trim=None):
    if trim is None:
        return _fn("btrim", str)
    return _call("btrim", [_c(str), _c(trim)])


def concat(*cols):
    return _call("concat", _cols(cols))


def concat_ws(sep, *cols):
    return _call("concat_ws", [_lit(sep)] + _cols(cols))


def substring(str, pos, len):
    return _call("substring", [_c(str), _to_column(pos, literal=True), _to_column(len, literal=True)])


def substr(str, pos, len=None):
    arguments = [_c(str), _c(pos)] + ([] if len is None else [_c(len)])
    return _call("substr", arguments)


def left(str, len):
    return _call("left", [_c(str), _c(len)])


def right(str, len):
    return _call("right", [_c(str), _c(len)])


def lpad(col, len, pad):
    return _call("lpad", [_c(col), _to_column(len, literal=True), _to_column(pad, literal=True)])


def rpad(col, len, pad):
    return _call("rpad", [_c(col), _to_column(len, literal=True), _to_column(pad, literal=True)])


def repeat(col, n):
    return _call("repeat", [_c(col), _to_column(n, literal=True)])


def reverse(col):
    return _fn("reverse", col)


def instr(str, substr):
    return _call("instr", [_c(str), _to_column(substr, literal=True)])


def locate(substr, str, pos=1):
    return _call("locate", [_lit(substr), _c(str), _lit(pos)])


def translate(srcCol, matching, replace):
    return _call("translate", [_c(srcCol), _lit(matching), _lit(replace)])


def replace(src, search, replace=None):
    arguments = [_c(src), _c(search)] + ([] if replace is None else [_c(replace)])
    return _call("replace", arguments)


def split(str, pattern, limit=-1):
    return _call("split", [_c(str), _to_column(pattern, literal=True), _to_column(limit, literal=True)])


def regexp_extract(str, pattern, idx):
    return _call("regexp_extract", [_c(str), _lit(pattern), _lit(idx)])


def regexp_replace(string, pattern, replacement):
    return _call("regexp_replace", [_c(string), _to_column(pattern, literal=True),
                                    _to_column(replacement, literal=True)])


def regexp_like(str, regexp):
    return _call("regexp_like", [_c(str), _c(regexp)])


def rlike(str, regexp):
    return _call("rlike", [_c(str), _c(regexp)])


def like(str, pattern, escapeChar=None):
    return _c(str).like(_c(pattern))


def ilike(str, pattern, escapeChar=None):
    return _c(str).ilike(_c(pattern))


def contains(left, right):
    return _call("contains", [_c(left), _c(right)])


def startswith(str, prefix):
    return _call("startswith", [_c(str), _c(prefix)])


def endswith(str, suffix):
    return _call("endswith", [_c(str), _c(suffix)])


def ascii(col):
    return _fn("ascii", col)


def chr(col):
    return _fn("chr", col)


def base64(col):
    return _fn("base64", col)


def unbase64(col):
    return _fn("unbase64", col)


def hex(col):
    return _fn("hex", col)


def unhex(col):
    return _fn("unhex", col)


def format_string(format, *cols):
    return _call("format_string", [_lit(format)] + _cols(cols))


def md5(col):
    return _fn("md5", col)


def sha1(col):
    return _fn("sha1", col)


def sha2(col, numBits):
    """SHA-2 of `col` as hex; numBits 224, 256 (or 0), 384 or 512; other widths give NULL."""
    return _call("sha2", [_c(col), _lit(numBits)])


def crc32(col):
    return _fn("crc32", col)


def hash(*cols):
    return _call("hash", _cols(cols))


def xxhash64(*cols):
    return _call("xxhash64", _cols(cols))


def uuid():
    return Column(lambda scope: "uuid()", "uuid()")


# Dates and times.


def current_date():
    return Column(lambda scope: "current_date()", "current_date()")


def current_timestamp():
    return Column(lambda scope: "current_timestamp()", "current_timestamp()")


def now():
    return Column(lambda scope: "now()", "now()")


def _with_format(name, col, format):
    if format is None:
        return _fn(name, col)
    return _call(name, [_c(col), _lit(format)])


def to_date(col, format=None):
    return _with_format("to_date", col, format)


def to_timestamp(col, format=None):
    return _with_format("to_timestamp", col, format)


def date_format(date, format):
    return _call("date_format", [_c(date), _lit(format)])


def unix_timestamp(timestamp=None, format="yyyy-MM-dd HH:mm:ss"):
    if timestamp is None:
        return Column(lambda scope: "unix_timestamp()", "unix_timestamp(current_timestamp(), yyyy-MM-dd HH:mm:ss)")
    return _call("unix_timestamp", [_c(timestamp), _lit(format)])


def from_unixtime(timestamp, format="yyyy-MM-dd HH:mm:ss"):
    return _call("from_unixtime", [_c(timestamp), _lit(format)])


def timestamp_seconds(col):
    return _fn("timestamp_seconds", col)


def timestamp_millis(col):
    return _fn("timestamp_millis", col)


def timestamp_micros(col):
    return _fn("timestamp_micros", col)


def from_utc_timestamp(timestamp, tz):
    return _call("from_utc_timestamp", [_c(timestamp), _to_column(tz, literal=True)])


def to_utc_timestamp(timestamp, tz):
    return _call("to_utc_timestamp", [_c(timestamp), _to_column(tz, literal=True)])


def year(col):
    return _fn("year", col)


def quarter(col):
    return _fn("quarter", col)


def month(col):
    return _fn("month", col)


def dayofmonth(col):
    return _fn("dayofmonth", col)


def day(col):
    return _fn("day", col)


def dayofweek(col):
    return _fn("dayofweek", col)


def dayofyear(col):
    return _fn("dayofyear", col)


def hour(col):
    return _fn("hour", col)


def minute(col):
    return _fn("minute", col)


def second(col):
    return _fn("second", col)


def weekofyear(col):
    return _fn("weekofyear", col)


def date_add(start, days):
    return _call("date_add", [_c(start), _col_or_lit(days)])


def date_sub(start, days):
    return _call("date_sub", [_c(start), _col_or_lit(days)])


def add_months(start, months):
    return _call("add_months", [_c(start), _col_or_lit(months)])


def months_between(date1, date2, roundOff=True):
    return _call("months_between", [_c(date1), _c(date2), _lit(roundOff)])


def datediff(end, start):
    return _call("datediff", [_c(end), _c(start)])


def date_diff(end, start):
    return _call("date_diff", [_c(end), _c(start)])


def last_day(date):
    return _fn("last_day", date)


def next_day(date, dayOfWeek):
    return _call("next_day", [_c(date), _lit(dayOfWeek)])


def trunc(date, format):
    return _call("trunc", [_c(date), _lit(format)])


def date_trunc(format, timestamp):
    return _call("date_trunc", [_lit(format), _c(timestamp)])


def make_date(year, month, day):
    return _call("make_date", [_c(year), _c(month), _c(day)])


def window(timeColumn, windowDuration, slideDuration=None, startTime=None):
    """The tumbling time window of `timeColumn` that each row falls in: a struct of `start` and
    `end`, named `window`, for grouping by event time (streaming aggregations in particular).
    Durations are interval strings ("10 minutes"); a slide other than the duration (sliding
    windows) fails when the query runs."""
    from silt.errors import PySparkTypeError

    for name, value in (("windowDuration", windowDuration), ("slideDuration", slideDuration),
                        ("startTime", startTime)):
        if value is not None and not isinstance(value, str):
            raise _error("NOT_STR", "Argument `%s` should be a str, got %s." % (name, type(value).__name__),
                         family=PySparkTypeError)
    arguments = [_c(timeColumn), _lit(windowDuration)]
    if slideDuration is not None or startTime is not None:
        arguments.append(_lit(slideDuration if slideDuration is not None else windowDuration))
    if startTime is not None:
        arguments.append(_lit(startTime))
    return _call("window", arguments, pretty="window")


# Collections.


def size(col):
    return _fn("size", col)


def array_contains(col, value):
    return _call("array_contains", [_c(col), _to_column(value, literal=True)])


def array_distinct(col):
    return _fn("array_distinct", col)


def array_join(col, delimiter, null_replacement=None):
    arguments = [_c(col), _lit(delimiter)] + ([] if null_replacement is None else [_lit(null_replacement)])
    return _call("array_join", arguments)


def array_position(col, value):
    return _call("array_position", [_c(col), _to_column(value, literal=True)])


def array_remove(col, element):
    return _call("array_remove", [_c(col), _to_column(element, literal=True)])


def array_union(col1, col2):
    return _fn("array_union", col1, col2)


def array_intersect(col1, col2):
    return _fn("array_intersect", col1, col2)


def array_except(col1, col2):
    return _fn("array_except", col1, col2)


def array_max(col):
    return _fn("array_max", col)


def array_min(col):
    return _fn("array_min", col)


def arrays_zip(*cols):
    return _call("arrays_zip", _cols(cols))


def flatten(col):
    return _fn("flatten", col)


def slice(x, start, length):
    return _call("slice", [_c(x), _to_column(start, literal=True), _to_column(length, literal=True)])


def sort_array(col, asc=True):
    return _call("sort_array", [_c(col), _lit(asc)])


def array_sort(col):
    return _fn("array_sort", col)


def element_at(col, extraction):
    return _call("element_at", [_c(col), _to_column(extraction, literal=True)])


def get(col, index):
    return _call("get", [_c(col), _to_column(index, literal=True)])


def map_keys(col):
    return _fn("map_keys", col)


def map_values(col):
    return _fn("map_values", col)


def map_entries(col):
    return _fn("map_entries", col)


def map_from_arrays(col1, col2):
    return _fn("map_from_arrays", col1, col2)


def map_concat(*cols):
    return _call("map_concat", _cols(cols))


def explode(col):
    column = _c(col)
    return Column(lambda scope: "explode(%s)" % column._sql(scope), "col")


def explode_outer(col):
    column = _c(col)
    return Column(lambda scope: "explode_outer(%s)" % column._sql(scope), "col")


def posexplode(col):
    column = _c(col)
    return Column(lambda scope: "posexplode(%s)" % column._sql(scope), "pos").alias("pos", "col")


def sequence(start, stop, step=None):
    arguments = [_c(start), _c(stop)] + ([] if step is None else [_c(step)])
    return _call("sequence", arguments)


def _schema_text(schema):
    if isinstance(schema, Column):
        return schema
    if isinstance(schema, DataType):
        if isinstance(schema, StructType):
            text = ", ".join("%s %s" % (_quote_name(f.name), _type_sql(f.dataType)) for f in schema.fields)
        else:
            text = _type_sql(schema)
        return _lit(text)
    return _lit(schema)


def _quote_name(name):
    return "`" + name.replace("`", "``") + "`"


def from_json(col, schema, options=None):
    arguments = [_c(col), _schema_text(schema)]
    if options:
        arguments.append(create_map(*[_lit(v) for item in options.items() for v in item]))
    return _call("from_json", arguments)


def to_json(col, options=None):
    arguments = [_c(col)]
    if options:
        arguments.append(create_map(*[_lit(v) for item in options.items() for v in item]))
    return _call("to_json", arguments)


def schema_of_json(json, options=None):
    return _call("schema_of_json", [_to_column(json, literal=True)])


def get_json_object(col, path):
    return _call("get_json_object", [_c(col), _lit(path)])


def json_tuple(col, *fields):
    return _call("json_tuple", [_c(col)] + [_lit(f) for f in fields])


def typeof(col):
    return _fn("typeof", col)


def input_file_name():
    raise _error("NOT_IMPLEMENTED", "input_file_name is not implemented by silt.")


def monotonically_increasing_id():
    raise _error("NOT_IMPLEMENTED", "monotonically_increasing_id is not implemented by silt.")


def udf(f=None, returnType=None, useArrow=None):
    """Python UDFs cannot run inside silt's native engine."""
    from silt.errors import PySparkNotImplementedError

    raise _error("NOT_IMPLEMENTED", "Python UDFs (udf) are not supported by silt: queries run in native "
                 "code; express the logic with built-in functions.", family=PySparkNotImplementedError)


def pandas_udf(f=None, returnType=None, functionType=None):
    from silt.errors import PySparkNotImplementedError

    raise _error("NOT_IMPLEMENTED", "Python UDFs (pandas_udf) are not supported by silt: queries run in "
                 "native code; express the logic with built-in functions.", family=PySparkNotImplementedError)


def call_function(funcName, *cols):
    """A call of the SQL function `funcName` on columns."""
    return _call(funcName, _cols(cols))



# PySpark 3.5's names of further engine functions.


def bit_length(col):
    return _fn("bit_length", col)


def cardinality(col):
    return _fn("cardinality", col)


def char(col):
    return _fn("char", col)


def character_length(str):
    return _fn("character_length", str)


def date_part(field, source):
    return _fn("date_part", field, source)


def datepart(field, source):
    return _fn("datepart", field, source)


def extract(field, source):
    return _fn("extract", field, source)


def position(substr, str, start=None):
    arguments = [_c(substr), _c(str)] + ([] if start is None else [_c(start)])
    return _call("position", arguments)


def random(seed=None):
    if seed is None:
        return Column(lambda scope: "random()", "random()")
    return _call("random", [_lit(seed)])


def regexp(str, regexp):
    return _fn("regexp", str, regexp)


def sha(col):
    return _fn("sha", col)


def to_unix_timestamp(timestamp, format=None):
    arguments = [_c(timestamp)] + ([] if format is None else [_c(format)])
    return _call("to_unix_timestamp", arguments)


def try_add(left, right):
    return _fn("try_add", left, right)


def try_subtract(left, right):
    return _fn("try_subtract", left, right)


def try_multiply(left, right):
    return _fn("try_multiply", left, right)


def try_divide(left, right):
    return _fn("try_divide", left, right)


def try_mod(left, right):
    return _fn("try_mod", left, right)


def try_element_at(col, extraction):
    return _fn("try_element_at", col, extraction)


def try_to_timestamp(col, format=None):
    arguments = [_c(col)] + ([] if format is None else [_c(format)])
    return _call("try_to_timestamp", arguments)


# Functions of Spark 3.4-4.0 that silt's engine runs, under PySpark's names and argument
# names. As in PySpark, a str names a column where the argument is "ColumnOrName"; formats,
# counts and messages documented as Python values are literals; "Column or str or int"
# arguments read a str as a column and other values as literals; an optional argument left
# at its default takes PySpark's default value.


def acosh(col):
    arguments = []
    arguments.append(_c(col))
    return _call("acosh", arguments)


def asinh(col):
    arguments = []
    arguments.append(_c(col))
    return _call("asinh", arguments)


def atanh(col):
    arguments = []
    arguments.append(_c(col))
    return _call("atanh", arguments)


def cosh(col):
    arguments = []
    arguments.append(_c(col))
    return _call("cosh", arguments)


def sinh(col):
    arguments = []
    arguments.append(_c(col))
    return _call("sinh", arguments)


def tanh(col):
    arguments = []
    arguments.append(_c(col))
    return _call("tanh", arguments)


def cot(col):
    arguments = []
    arguments.append(_c(col))
    return _call("cot", arguments)


def csc(col):
    arguments = []
    arguments.append(_c(col))
    return _call("csc", arguments)


def sec(col):
    arguments = []
    arguments.append(_c(col))
    return _call("sec", arguments)


def expm1(col):
    arguments = []
    arguments.append(_c(col))
    return _call("expm1", arguments)


def log1p(col):
    arguments = []
    arguments.append(_c(col))
    return _call("log1p", arguments)


def rint(col):
    arguments = []
    arguments.append(_c(col))
    return _call("rint", arguments)


def factorial(col):
    arguments = []
    arguments.append(_c(col))
    return _call("factorial", arguments)


def hypot(col1, col2):
    arguments = []
    arguments.append(_c(col1))
    arguments.append(_c(col2))
    return _call("hypot", arguments)


def bin(col):
    arguments = []
    arguments.append(_c(col))
    return _call("bin", arguments)


def conv(col, fromBase, toBase):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(fromBase, literal=True))
    arguments.append(_to_column(toBase, literal=True))
    return _call("conv", arguments)


def width_bucket(v, min, max, numBucket):
    arguments = []
    arguments.append(_c(v))
    arguments.append(_c(min))
    arguments.append(_c(max))
    arguments.append(_col_or_lit(numBucket))
    return _call("width_bucket", arguments)


def bit_count(col):
    arguments = []
    arguments.append(_c(col))
    return _call("bit_count", arguments)


def bit_get(col, pos):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_c(pos))
    return _call("bit_get", arguments)


def getbit(col, pos):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_c(pos))
    return _call("getbit", arguments)


def bitmap_bit_position(col):
    arguments = []
    arguments.append(_c(col))
    return _call("bitmap_bit_position", arguments)


def bitmap_bucket_number(col):
    arguments = []
    arguments.append(_c(col))
    return _call("bitmap_bucket_number", arguments)


def bitmap_count(col):
    arguments = []
    arguments.append(_c(col))
    return _call("bitmap_count", arguments)


def equal_null(col1, col2):
    arguments = []
    arguments.append(_c(col1))
    arguments.append(_c(col2))
    return _call("equal_null", arguments)


def nullifzero(col):
    arguments = []
    arguments.append(_c(col))
    return _call("nullifzero", arguments)


def zeroifnull(col):
    arguments = []
    arguments.append(_c(col))
    return _call("zeroifnull", arguments)


def array_append(col, value):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(value, literal=True))
    return _call("array_append", arguments)


def array_prepend(col, value):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(value, literal=True))
    return _call("array_prepend", arguments)


def array_compact(col):
    arguments = []
    arguments.append(_c(col))
    return _call("array_compact", arguments)


def array_insert(arr, pos, value):
    arguments = []
    arguments.append(_c(arr))
    arguments.append(_col_or_lit(pos))
    arguments.append(_to_column(value, literal=True))
    return _call("array_insert", arguments)


def array_repeat(col, count):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_col_or_lit(count))
    return _call("array_repeat", arguments)


def array_size(col):
    arguments = []
    arguments.append(_c(col))
    return _call("array_size", arguments)


def arrays_overlap(a1, a2):
    arguments = []
    arguments.append(_c(a1))
    arguments.append(_c(a2))
    return _call("arrays_overlap", arguments)


def shuffle(col, seed=None):
    arguments = []
    arguments.append(_c(col))
    if seed is not None:
        arguments.append(_to_column(seed, literal=True))
    return _call("shuffle", arguments)


def map_contains_key(col, value):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(value, literal=True))
    return _call("map_contains_key", arguments)


def map_from_entries(col):
    arguments = []
    arguments.append(_c(col))
    return _call("map_from_entries", arguments)


def str_to_map(text, pairDelim=None, keyValueDelim=None):
    arguments = []
    arguments.append(_c(text))
    arguments.append(_lit(',') if pairDelim is None else _c(pairDelim))
    arguments.append(_lit(':') if keyValueDelim is None else _c(keyValueDelim))
    return _call("str_to_map", arguments)


def elt(*inputs):
    arguments = []
    arguments.extend(_cols(inputs))
    return _call("elt", arguments)


def encode(col, charset):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(charset, literal=True))
    return _call("encode", arguments)


def decode(col, charset):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(charset, literal=True))
    return _call("decode", arguments)


def find_in_set(str, str_array):
    arguments = []
    arguments.append(_c(str))
    arguments.append(_c(str_array))
    return _call("find_in_set", arguments)


def format_number(col, d):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_to_column(d, literal=True))
    return _call("format_number", arguments)


def len(col):
    arguments = []
    arguments.append(_c(col))
    return _call("len", arguments)


def levenshtein(left, right, threshold=None):
    arguments = []
    arguments.append(_c(left))
    arguments.append(_c(right))
    if threshold is not None:
        arguments.append(_to_column(threshold, literal=True))
    return _call("levenshtein", arguments)


def luhn_check(str):
    arguments = []
    arguments.append(_c(str))
    return _call("luhn_check", arguments)


def mask(col, upperChar=None, lowerChar=None, digitChar=None, otherChar=None):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_lit('X') if upperChar is None else _c(upperChar))
    arguments.append(_lit('x') if lowerChar is None else _c(lowerChar))
    arguments.append(_lit('n') if digitChar is None else _c(digitChar))
    arguments.append(_lit(None) if otherChar is None else _c(otherChar))
    return _call("mask", arguments)


def overlay(src, replace, pos, len=-1):
    arguments = []
    arguments.append(_c(src))
    arguments.append(_c(replace))
    arguments.append(_col_or_lit(pos))
    arguments.append(_col_or_lit(len))
    return _call("overlay", arguments)


def printf(format, *cols):
    arguments = []
    arguments.append(_c(format))
    arguments.extend(_cols(cols))
    return _call("printf", arguments)


def soundex(col):
    arguments = []
    arguments.append(_c(col))
    return _call("soundex", arguments)


def split_part(src, delimiter, partNum):
    arguments = []
    arguments.append(_c(src))
    arguments.append(_c(delimiter))
    arguments.append(_c(partNum))
    return _call("split_part", arguments)


def substring_index(str, delim, count):
    arguments = []
    arguments.append(_c(str))
    arguments.append(_to_column(delim, literal=True))
    arguments.append(_to_column(count, literal=True))
    return _call("substring_index", arguments)


def regexp_count(str, regexp):
    arguments = []
    arguments.append(_c(str))
    arguments.append(_c(regexp))
    return _call("regexp_count", arguments)


def regexp_extract_all(str, regexp, idx=None):
    arguments = []
    arguments.append(_c(str))
    arguments.append(_c(regexp))
    if idx is not None:
        arguments.append(_c(idx))
    return _call("regexp_extract_all", arguments)


def regexp_instr(str, regexp, idx=None):
    arguments = []
    arguments.append(_c(str))
    arguments.append(_c(regexp))
    if idx is not None:
        arguments.append(_c(idx))
    return _call("regexp_instr", arguments)


def regexp_substr(str, regexp):
    arguments = []
    arguments.append(_c(str))
    arguments.append(_c(regexp))
    return _call("regexp_substr", arguments)


def is_valid_utf8(str):
    arguments = []
    arguments.append(_c(str))
    return _call("is_valid_utf8", arguments)


def make_valid_utf8(str):
    arguments = []
    arguments.append(_c(str))
    return _call("make_valid_utf8", arguments)


def validate_utf8(str):
    arguments = []
    arguments.append(_c(str))
    return _call("validate_utf8", arguments)


def try_validate_utf8(str):
    arguments = []
    arguments.append(_c(str))
    return _call("try_validate_utf8", arguments)


def to_binary(col, format=None):
    arguments = []
    arguments.append(_c(col))
    if format is not None:
        arguments.append(_c(format))
    return _call("to_binary", arguments)


def try_to_binary(col, format=None):
    arguments = []
    arguments.append(_c(col))
    if format is not None:
        arguments.append(_c(format))
    return _call("try_to_binary", arguments)


def to_number(col, format):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_c(format))
    return _call("to_number", arguments)


def try_to_number(col, format):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_c(format))
    return _call("try_to_number", arguments)


def to_char(col, format):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_c(format))
    return _call("to_char", arguments)


def to_varchar(col, format):
    arguments = []
    arguments.append(_c(col))
    arguments.append(_c(format))
    return _call("to_varchar", arguments)


def url_encode(str):
    arguments = []
    arguments.append(_c(str))
    return _call("url_encode", arguments)


def url_decode(str):
    arguments = []
    arguments.append(_c(str))
    return _call("url_decode", arguments)


def try_url_decode(str):
    arguments = []
    arguments.append(_c(str))
    return _call("try_url_decode", arguments)


def parse_url(url, partToExtract, key=None):
    arguments = []
    arguments.append(_c(url))
    arguments.append(_c(partToExtract))
    if key is not None:
        arguments.append(_c(key))
    return _call("parse_url", arguments)


def try_parse_url(url, partToExtract, key=None):
    arguments = []
    arguments.append(_c(url))
    arguments.append(_c(partToExtract))
    if key is not None:
        arguments.append(_c(key))
    return _call("try_parse_url", arguments)


def assert_true(col, errMsg=None):
    arguments = []
    arguments.append(_c(col))
    if errMsg is not None:
        arguments.append(_to_column(errMsg, literal=True))
    return _call("assert_true", arguments)


def raise_error(errMsg):
    arguments = []
    arguments.append(_to_column(errMsg, literal=True))
    return _call("raise_error", arguments)


def current_catalog():
    arguments = []
    return _call("current_catalog", arguments)


def current_user():
    arguments = []
    return _call("current_user", arguments)


def current_database():
    return _call("current_database", [])


def current_schema():
    return _call("current_schema", [])


def version():
    return _call("version", [])


def session_user():
    arguments = []
    return _call("session_user", arguments)


def user():
    arguments = []
    return _call("user", arguments)


def current_timezone():
    arguments = []
    return _call("current_timezone", arguments)


def json_array_length(col):
    arguments = []
    arguments.append(_c(col))
    return _call("json_array_length", arguments)


def json_object_keys(col):
    arguments = []
    arguments.append(_c(col))
    return _call("json_object_keys", arguments)


def curdate():
    arguments = []
    return _call("curdate", arguments)


def localtimestamp():
    arguments = []
    return _call("localtimestamp", arguments)


def dateadd(start, days):
    arguments = []
    arguments.append(_c(start))
    arguments.append(_col_or_lit(days))
    return _call("dateadd", arguments)


def dayname(col):
    arguments = []
    arguments.append(_c(col))
    return _call("dayname", arguments)


def monthname(col):
    arguments = []
    arguments.append(_c(col))
    return _call("monthname", arguments)


def weekday(col):
    arguments = []
    arguments.append(_c(col))
    return _call("weekday", arguments)


def date_from_unix_date(days):
    arguments = []
    arguments.append(_c(days))
    return _call("date_from_unix_date", arguments)


def unix_date(col):
    arguments = []
    arguments.append(_c(col))
    return _call("unix_date", arguments)


def unix_micros(col):
    arguments = []
    arguments.append(_c(col))
    return _call("unix_micros", arguments)


def unix_millis(col):
    arguments = []
    arguments.append(_c(col))
    return _call("unix_millis", arguments)


def unix_seconds(col):
    arguments = []
    arguments.append(_c(col))
    return _call("unix_seconds", arguments)


def to_timestamp_ltz(timestamp, format=None):
    arguments = []
    arguments.append(_c(timestamp))
    if format is not None:
        arguments.append(_c(format))
    return _call("to_timestamp_ltz", arguments)


def to_timestamp_ntz(timestamp, format=None):
    arguments = []
    arguments.append(_c(timestamp))
    if format is not None:
        arguments.append(_c(format))
    return _call("to_timestamp_ntz", arguments)


def convert_timezone(sourceTz, targetTz, sourceTs):
    arguments = []
    if sourceTz is not None:
        arguments.append(_c(sourceTz))
    arguments.append(_c(targetTz))
    arguments.append(_c(sourceTs))
    return _call("convert_timezone", arguments)


def make_timestamp(years, months, days, hours, mins, secs, timezone=None):
    arguments = []
    arguments.append(_c(years))
    arguments.append(_c(months))
    arguments.append(_c(days))
    arguments.append(_c(hours))
    arguments.append(_c(mins))
    arguments.append(_c(secs))
    if timezone is not None:
        arguments.append(_c(timezone))
    return _call("make_timestamp", arguments)


def try_make_timestamp(years, months, days, hours, mins, secs, timezone=None):
    arguments = []
    arguments.append(_c(years))
    arguments.append(_c(months))
    arguments.append(_c(days))
    arguments.append(_c(hours))
    arguments.append(_c(mins))
    arguments.append(_c(secs))
    if timezone is not None:
        arguments.append(_c(timezone))
    return _call("try_make_timestamp", arguments)


def make_timestamp_ltz(years, months, days, hours, mins, secs, timezone=None):
    arguments = []
    arguments.append(_c(years))
    arguments.append(_c(months))
    arguments.append(_c(days))
    arguments.append(_c(hours))
    arguments.append(_c(mins))
    arguments.append(_c(secs))
    if timezone is not None:
        arguments.append(_c(timezone))
    return _call("make_timestamp_ltz", arguments)


def try_make_timestamp_ltz(years, months, days, hours, mins, secs, timezone=None):
    arguments = []
    arguments.append(_c(years))
    arguments.append(_c(months))
    arguments.append(_c(days))
    arguments.append(_c(hours))
    arguments.append(_c(mins))
    arguments.append(_c(secs))
    if timezone is not None:
        arguments.append(_c(timezone))
    return _call("try_make_timestamp_ltz", arguments)


def make_timestamp_ntz(years, months, days, hours, mins, secs):
    arguments = []
    arguments.append(_c(years))
    arguments.append(_c(months))
    arguments.append(_c(days))
    arguments.append(_c(hours))
    arguments.append(_c(mins))
    arguments.append(_c(secs))
    return _call("make_timestamp_ntz", arguments)


def try_make_timestamp_ntz(years, months, days, hours, mins, secs):
    arguments = []
    arguments.append(_c(years))
    arguments.append(_c(months))
    arguments.append(_c(days))
    arguments.append(_c(hours))
    arguments.append(_c(mins))
    arguments.append(_c(secs))
    return _call("try_make_timestamp_ntz", arguments)


def make_dt_interval(days=None, hours=None, mins=None, secs=None):
    arguments = []
    arguments.append(_lit(0) if days is None else _c(days))
    arguments.append(_lit(0) if hours is None else _c(hours))
    arguments.append(_lit(0) if mins is None else _c(mins))
    arguments.append(_lit(0) if secs is None else _c(secs))
    return _call("make_dt_interval", arguments)


def make_ym_interval(years=None, months=None):
    arguments = []
    arguments.append(_lit(0) if years is None else _c(years))
    arguments.append(_lit(0) if months is None else _c(months))
    return _call("make_ym_interval", arguments)


def _options_map(options):
    return create_map(*[_lit(v) for item in options.items() for v in item])


def from_csv(col, schema, options=None):
    arguments = [_c(col), _schema_text(schema)]
    if options:
        arguments.append(_options_map(options))
    return _call("from_csv", arguments)


def to_csv(col, options=None):
    arguments = [_c(col)]
    if options:
        arguments.append(_options_map(options))
    return _call("to_csv", arguments)


def schema_of_csv(csv, options=None):
    arguments = [_to_column(csv, literal=True)]
    if options:
        arguments.append(_options_map(options))
    return _call("schema_of_csv", arguments)
