"""SparkSession: the entry point, as pyspark.sql.SparkSession.

    from silt.sql import SparkSession
    spark = SparkSession.builder.appName("job").config("spark.sql.session.timeZone", "UTC").getOrCreate()

The warehouse folder of named tables is the config `spark.sql.warehouse.dir`, else
$SILT_WAREHOUSE, else ./silt-warehouse. There is no cluster: statements run in this process
on silt's native engine.
"""

import atexit
import itertools
import os
import re
import shutil
import tempfile
import threading
import weakref

from silt import _silt
from silt.errors import PySparkTypeError, _error
from silt.sql.column import _literal, _quote
from silt.sql.dataframe import DataFrame
from silt.sql.types import (
    StructType,
    _parse_datatype_json_value,
    StructField,
)

__all__ = ["SparkSession"]

_WAREHOUSE_KEY = "spark.sql.warehouse.dir"


class _Builder:
    """SparkSession.builder: collects options, then getOrCreate() or create()."""

    _lock = threading.RLock()

    def __init__(self):
        self._options = {}

    def config(self, key=None, value=None, conf=None, map=None):
        with self._lock:
            if conf is not None:
                for k, v in conf.getAll():  # a SparkConf: a list of (key, value) pairs
                    self._options[k] = str(v)
            if map is not None:
                for k, v in map.items():
                    self._options[k] = _conf_string(v)
            if key is not None:
                self._options[key] = _conf_string(value)
        return self

    def appName(self, name):
        return self.config("spark.app.name", name)

    def master(self, master):
        return self.config("spark.master", master)

    def remote(self, url):
        return self.config("spark.remote", url)

    def enableHiveSupport(self):
        return self

    def getOrCreate(self):
        with self._lock:
            session = SparkSession._active
            if session is None:
                session = SparkSession(options=dict(self._options))
            else:
                for key, value in self._options.items():
                    if key != _WAREHOUSE_KEY:
                        session.conf.set(key, value)
            return session

    def create(self):
        with self._lock:
            return SparkSession(options=dict(self._options))


def _conf_string(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class _classproperty:
    def __init__(self, getter):
        self.getter = getter

    def __get__(self, instance, owner):
        return self.getter(owner)


class SparkSession:
    """A session of silt's engine with PySpark's API: sql, table, range, createDataFrame,
    read, conf, catalog."""

    _active = None
    _lock = threading.RLock()
    # True for the session of a foreachBatch call (SparkSession._for_batch).
    _batch_of_stream = False

    @_classproperty
    def builder(cls):
        return _Builder()

    def __init__(self, sparkContext=None, jsparkSession=None, options=None):
        options = dict(options or {})
        warehouse = options.pop(_WAREHOUSE_KEY, None)
        self._options = options
        self._engine = _silt.Session(warehouse=warehouse, conf=options)
        self._current_database = "default"
        self._local_data = None
        self._local_files = itertools.count()
        self._streams = {}
        self._stream_manager = None
        with SparkSession._lock:
            SparkSession._active = self

    def _for_batch(self, engine):
        """The session a foreachBatch function's batch belongs to: the streaming query's own
        session (`engine`), usable while the function runs, as PySpark's batch DataFrame's
        sparkSession is the query's."""
        session = SparkSession.__new__(SparkSession)
        session._options = dict(self._options)
        session._engine = engine
        session._current_database = self._current_database
        session._local_data = None
        session._local_files = itertools.count()
        session._streams = {}
        session._stream_manager = None
        session._batch_of_stream = True
        return session

    # Class-level access to sessions.

    @classmethod
    def getActiveSession(cls):
        return cls._active

    @classmethod
    def active(cls):
        if cls._active is None:
            raise _error("NO_ACTIVE_OR_DEFAULT_SESSION", "No active or default Spark session found. "
                         "Please create a new Spark session before running the code.")
        return cls._active

    def newSession(self):
        options = dict(self._options)
        options[_WAREHOUSE_KEY] = self._engine.warehouse
        session = SparkSession(options=options)
        with SparkSession._lock:
            SparkSession._active = self
        return session

    def stop(self):
        if self._stream_manager is not None:
            self._stream_manager._stop_all()
        with SparkSession._lock:
            if SparkSession._active is self:
                SparkSession._active = None
        if self._local_data is not None:
            self._local_data[1]()  # removes the local data files
            self._local_data = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    @property
    def version(self):
        return _silt.__version__

    @property
    def sparkContext(self):
        raise _error("NOT_IMPLEMENTED", "SparkSession.sparkContext: silt has no SparkContext.",
                     family=_not_implemented())

    @property
    def conf(self):
        return RuntimeConfig(self)

    @property
    def catalog(self):
        from silt.sql.catalog import Catalog

        return Catalog(self)

    @property
    def read(self):
        from silt.sql.readwriter import DataFrameReader

        return DataFrameReader(self)

    @property
    def readStream(self):
        from silt.sql.streaming import DataStreamReader

        return DataStreamReader(self)

    @property
    def streams(self):
        if self._stream_manager is None:
            from silt.sql.streaming import StreamingQueryManager

            self._stream_manager = StreamingQueryManager()
            _sessions_with_streams.add(self)
        return self._stream_manager

    @property
    def udf(self):
        raise _error("NOT_IMPLEMENTED", "SparkSession.udf: silt runs no Python functions inside queries.",
                     family=_not_implemented())

    def _local_data_path(self):
        """A new file in the session's folder of local data (createDataFrame's Parquet files),
        which is removed with the session."""
        if self._local_data is None:
            folder = tempfile.mkdtemp(prefix="silt-local-")
            self._local_data = (folder, weakref.finalize(self, shutil.rmtree, folder, True))
        return os.path.join(self._local_data[0], "part-%d.parquet" % next(self._local_files))

    # Engine access for the rest of the package.

    def _streams_of(self, text):
        """The streams (readStream's) that the SQL `text` reads, in order of first use."""
        found = []
        for name in _STREAM_NAME.findall(text):
            stream = self._streams.get(name)
            if stream is not None and stream not in found:
                found.append(stream)
        return found

    def _refuse_streams(self, text):
        """Spark's refusal of a batch action (collect, count, save...) over a stream."""
        if self._streams and self._streams_of(text):
            raise _error("_LEGACY_ERROR_TEMP_3102",
                         "Queries with streaming sources must be executed with writeStream.start();")

    def _analyze(self, query):
        text = query
        for stream in self._streams_of(query):
            # Analysed over a relation of the stream's columns and no rows.
            text = text.replace("FROM `%s`" % stream.name,
                                "FROM (%s) AS `%s`" % (stream.placeholder_sql(), stream.name))
        analysis = self._engine.analyze(text)
        if not analysis["is_query"]:
            raise _error("INTERNAL_ERROR", "a DataFrame was built from a statement that is not a query",
                         category="internal")
        return StructType([_field(f) for f in analysis["schema"]])

    def _run(self, query):
        self._refuse_streams(query)
        return self._engine.sql(query)

    def _stream(self, query):
        self._refuse_streams(query)
        return self._engine.stream(query)

    def _execute(self, statement):
        self._refuse_streams(statement)
        return self._engine.sql(statement)

    def _show(self, query, n, truncate):
        self._refuse_streams(query)
        return self._engine.show(query, n, truncate)

    # Making DataFrames.

    def sql(self, sqlQuery, args=None, **kwargs):
        """Runs one statement: a query becomes a DataFrame that runs when asked; any other
        statement runs now and its rows (if any) become the DataFrame. `args` binds named
        (:name, from a dict) or positional (?, from a list) parameter markers to literals;
        keyword arguments fill {name} placeholders (DataFrames become temporary views)."""
        if kwargs:
            sqlQuery = self._format(sqlQuery, kwargs)
        if args is not None:
            sqlQuery = _bind_parameters(sqlQuery, args)
        analysis = self._engine.analyze(sqlQuery)
        use = _USE.match(sqlQuery)
        if use:
            self._current_database = use.group(1).strip("`").replace("``", "`")
        if analysis["is_query"]:
            schema = StructType([_field(f) for f in analysis["schema"]])
            query = sqlQuery.strip().rstrip(";")
            if "--" in query:
                query += "\n"  # a trailing line comment must not swallow what wraps the query
            return DataFrame(self, query, schema)
        result = analysis["result"]
        return self._from_result(result)

    def _from_result(self, result):
        """The rows of a statement that ran (SHOW, DESCRIBE HISTORY, MERGE metrics) as a
        DataFrame."""
        from silt.sql.local import COLUMNAR_ROWS, columnar_query, rows_query

        fields = [_field(f) for f in result.schema()]
        schema = StructType(fields)
        rows = result.rows()
        if len(rows) >= COLUMNAR_ROWS and fields:
            return DataFrame(self, columnar_query(self, rows, schema, False), schema)
        return DataFrame(self, rows_query(rows, schema), schema)

    def _format(self, text, kwargs):
        values = {}
        for key, value in kwargs.items():
            if isinstance(value, DataFrame):
                name = "__silt_df_%d" % value._id
                value.createOrReplaceTempView(name)
                values[key] = _quote(name)
            elif hasattr(value, "_sql") and hasattr(value, "_pretty"):
                values[key] = value._sql()
            else:
                values[key] = value if isinstance(value, str) else _literal(value)[0]
        return text.format(**values)

    def table(self, tableName):
        frame = DataFrame(self, "SELECT * FROM %s" % _table_sql(tableName))
        # A MERGE source made by spark.table keeps the table's name for conditions (`t.id`).
        frame._table_name = tableName
        return frame

    def range(self, start, end=None, step=1, numPartitions=None):
        if end is None:
            start, end = 0, start
        return DataFrame(self, "SELECT id FROM range(%dL, %dL, %dL)" % (int(start), int(end), int(step)))

    def createDataFrame(self, data, schema=None, samplingRatio=None, verifySchema=True):
        from silt.sql.local import create_data_frame

        return create_data_frame(self, data, schema, verifySchema)

    def _time_zone(self):
        """The session time zone in effect (the engine's default when never set)."""
        rows = self._engine.sql("SET spark.sql.session.timeZone").rows()
        value = rows[0][1] if rows else None
        return None if value in (None, "<undefined>") else value


def _not_implemented():
    from silt.errors import PySparkNotImplementedError

    return PySparkNotImplementedError


def _field(json):
    return StructField(json["name"], _parse_datatype_json_value(json["type"]), json["nullable"])


def _table_sql(name):
    """A table name as PySpark takes it ("t", "db.t", "`odd name`", "delta.`/path`") for SQL."""
    if not isinstance(name, str) or not name.strip():
        raise _error("INVALID_PARAMETER_VALUE",
                     "The value of parameter(s) `tableName` is invalid: %r is not a table name." % (name,))
    return name


class RuntimeConfig:
    """spark.conf: the session's options."""

    def __init__(self, session):
        self._session = session

    def set(self, key, value):
        if key == _WAREHOUSE_KEY:
            raise _error("INVALID_CONF_VALUE",
                         "Cannot modify the value of the static Spark config: \"%s\"." % key)
        self._session._engine.set_conf(key, _conf_string(value))

    def get(self, key, default=...):
        if key == _WAREHOUSE_KEY:
            return self._session._engine.warehouse
        value = self._session._engine.get_conf(key)
        if value is not None:
            return value
        if default is not ...:
            return default
        rows = self._session._engine.sql("SET %s" % key).rows()
        if rows and rows[0][1] not in (None, "<undefined>"):
            return rows[0][1]
        raise _error("SQL_CONF_NOT_FOUND", "The SQL config \"%s\" cannot be found. Please verify that the "
                     "config exists." % key, family=_no_such_element())

    def unset(self, key):
        self._session._engine.sql("RESET %s" % key)

    def isModifiable(self, key):
        return key != _WAREHOUSE_KEY

    @property
    def getAll(self):
        """Every option set in the session, by key (a property, as in PySpark 4)."""
        return dict((row[0], row[1]) for row in self._session._engine.sql("SET").rows())


def _no_such_element():
    from silt.errors import SparkNoSuchElementException

    return SparkNoSuchElementException


# The names streaming DataFrames' queries give their streams (silt.sql.streaming).
_STREAM_NAME = re.compile(r"`(__silt_stream_\d+)`")

# Sessions whose streaming queries are stopped when the interpreter exits, before the threads
# that run them could call into a finalising interpreter.
_sessions_with_streams = weakref.WeakSet()


def _stop_streams_at_exit():
    for session in list(_sessions_with_streams):
        if session._stream_manager is not None:
            session._stream_manager._stop_all()


atexit.register(_stop_streams_at_exit)

_USE = re.compile(r"\s*USE\s+(?:(?:DATABASE|SCHEMA|NAMESPACE)\s+)?(`(?:[^`]|``)+`|[A-Za-z0-9_]+)\s*;?\s*$",
                  re.IGNORECASE)

# Parameter markers: named (:name) and positional (?), outside strings, quoted names and comments.
_TOKEN = re.compile(
    r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`]|``)*`|--[^\n]*|/\*.*?\*/|::|:[A-Za-z_][A-Za-z0-9_]*|\?)""",
    re.DOTALL)


def _bind_parameters(text, args):
    if isinstance(args, dict):
        positional = None
    elif isinstance(args, (list, tuple)):
        positional = list(args)
    else:
        raise _error("NOT_DICT",
                     "Argument `args` should be a dict or list, got %s." % type(args).__name__,
                     family=PySparkTypeError)
    out = []
    position = 0
    used = 0
    for match in _TOKEN.finditer(text):
        token = match.group(1)
        out.append(text[position:match.start()])
        position = match.end()
        if token.startswith(":") and token != "::" and positional is None:
            name = token[1:]
            if name not in args:
                raise _error("UNBOUND_SQL_PARAMETER", "Found the unbound parameter: %s. Please, fix `args` "
                             "and provide a mapping of the parameter to either a SQL literal or collection "
                             "constructor functions such as `map()`, `array()`, `struct()`." % name)
            out.append(_parameter_sql(args[name]))
        elif token == "?" and positional is not None:
            if used >= len(positional):
                raise _error("UNBOUND_SQL_PARAMETER", "Found the unbound parameter: _%d. Please, fix `args` "
                             "and provide a mapping of the parameter to either a SQL literal or collection "
                             "constructor functions such as `map()`, `array()`, `struct()`." % (used + 1))
            out.append(_parameter_sql(positional[used]))
            used += 1
        else:
            out.append(token)
    out.append(text[position:])
    return "".join(out)


def _parameter_sql(value):
    if hasattr(value, "_sql") and hasattr(value, "_pretty"):
        return "(" + value._sql() + ")"
    return _literal(value)[0]
