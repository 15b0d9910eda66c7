"""Structured Streaming: spark.readStream, df.writeStream, StreamingQuery and spark.streams, as
pyspark.sql.streaming names them, on silt's streaming engine (docs/streaming.md).

A streaming DataFrame is a DataFrame whose query reads a stream: readStream gives one, and
select, filter, withColumn, join with a static DataFrame, groupBy... derive others, as SQL over
the stream. writeStream starts it: the engine runs it in micro-batches on a thread of its own,
under its checkpoint. Formats and options go to the engine as they are: a source or sink the
engine does not know fails with the engine's error.
"""

import itertools
import json
import re
import threading
import time

from silt.errors import (
    PySparkTypeError,
    PySparkValueError,
    StreamingQueryException,
    _build,
    _error,
    _from_engine,
)
from silt.sql.readwriter import _option_string, _struct_schema
from silt.sql.types import StructType

__all__ = ["DataStreamReader", "DataStreamWriter", "StreamingQuery", "StreamingQueryManager"]

_stream_ids = itertools.count(1)


class _Stream:
    """A stream: the engine's handle (as read, or with a watermark or a deduplication) and its
    rows' columns. A streaming DataFrame's query names it `name`, a temporary view of nothing with
    its columns while the DataFrame is analysed, the stream itself when the query starts."""

    def __init__(self, name, frame, schema):
        self.name = name
        self.frame = frame
        self.schema = schema

    def placeholder_sql(self):
        from silt.sql.column import _quote
        from silt.sql.types import _type_sql

        items = ", ".join("CAST(NULL AS %s) AS %s" % (_type_sql(f.dataType), _quote(f.name))
                          for f in self.schema.fields)
        return "SELECT %s FROM range(0)" % items


def _only_stream(df):
    """The one stream that the streaming DataFrame `df` reads."""
    streams = df._session._streams_of(df._query)
    if len(streams) > 1:
        raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: a query over more than "
                     "one stream (stream-stream joins and unions).")
    return streams[0]


def _register(spark, frame, schema):
    """A new stream of `spark` over the engine's `frame`, whose rows have `schema`."""
    stream = _Stream("__silt_stream_%d" % next(_stream_ids), frame, schema)
    spark._streams[stream.name] = stream
    return stream


def _trivial(df, stream):
    """Whether `df` is `stream` itself, every column as it comes."""
    return df._query == "SELECT * FROM `%s`" % stream.name


def _with_watermark(df, column, delay):
    """The streaming DataFrame `df` with an event-time watermark on `column` (a column of `df`
    that is a TIMESTAMP column of its stream's rows), `delay` late: its stream becomes the
    engine's stream with the watermark, so that the query's stateful operator drops late rows and
    evicts the state the watermark passed."""
    from silt.sql.dataframe import DataFrame
    from silt.sql.types import TimestampType

    spark = df._session
    stream = _only_stream(df)
    field = next(f for f in df._schema.fields if f.name.lower() == column.lower())
    if not isinstance(field.dataType, TimestampType):
        raise _error("EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE", "The event time `%s` has the invalid "
                     "type \"%s\", but expected \"TIMESTAMP\"." % (field.name,
                                                                  field.dataType.simpleString().upper()))
    source = next((f for f in stream.schema.fields if f.name.lower() == column.lower()), None)
    if source is None:
        raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: a watermark on a column "
                     "computed after the stream (`%s`); watermark a column of the stream's rows." % field.name)
    watermarked = _register(spark, stream.frame.with_watermark(source.name, delay), stream.schema)
    query = df._query.replace("`%s`" % stream.name, "`%s`" % watermarked.name)
    return DataFrame(spark, query, df._schema)


def _drop_duplicates(df, subset, within_watermark):
    """The streaming DataFrame `df` with only the first row of each value of the columns `subset`
    (all when None) across batches, as the engine's stateful deduplication; nothing may be derived
    from it but its writeStream (UNSUPPORTED_FEATURE when the query starts)."""
    from silt.sql.dataframe import DataFrame

    spark = df._session
    stream = _only_stream(df)
    columns = []
    for name in subset or []:
        df._column(name)
        columns.append(next(f.name for f in df._schema.fields if f.name.lower() == name.lower()))
    frame = stream.frame if _trivial(df, stream) else stream.frame.over(df._query, stream.name)
    if within_watermark:
        frame = frame.drop_duplicates_within_watermark(columns)
    else:
        frame = frame.drop_duplicates(columns)
    deduplicated = _register(spark, frame, df._schema)
    return DataFrame(spark, "SELECT * FROM `%s`" % deduplicated.name, df._schema)


class DataStreamReader:
    """spark.readStream: format, option(s), schema, then load(path) or table(name)."""

    def __init__(self, spark):
        self._spark = spark
        self._format = "delta"
        self._options = {}
        self._schema = None

    def format(self, source):
        self._format = source
        return self

    def option(self, key, value):
        self._options[key] = _option_string(value)
        return self

    def options(self, **options):
        for key, value in options.items():
            self.option(key, value)
        return self

    def schema(self, schema):
        self._schema = _struct_schema(schema)
        return self

    def load(self, path=None, format=None, schema=None, **options):
        if format is not None:
            self.format(format)
        if schema is not None:
            self.schema(schema)
        self.options(**options)
        if path is not None and (not isinstance(path, str) or not path.strip()):
            raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `path` must be a non-empty string, got '%s'."
                         % (path,), family=PySparkValueError)
        if path is None:
            path = next((v for k, v in self._options.items() if k.lower() == "path"), None)
        if path is None and self._format.lower() in _FORMATS_WITHOUT_PATH:
            path = ""  # the rate sources, and the PostgreSQL change stream (its connection option)
        if path is None:
            raise _error("INVALID_ARGUMENT", "'path' is not specified")
        return self._open(path=path)

    def table(self, tableName):
        if not isinstance(tableName, str) or not tableName.strip():
            raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `tableName` must be a non-empty string, "
                         "got '%s'." % (tableName,), family=PySparkValueError)
        return self._open(table=tableName)

    def json(self, path, schema=None, **options):
        return self.load(path, format="json", schema=schema, **options)

    def csv(self, path, schema=None, **options):
        return self.load(path, format="csv", schema=schema, **options)

    def parquet(self, path, **options):
        return self.load(path, format="parquet", **options)

    def _open(self, path=None, table=None):
        from silt.sql.dataframe import DataFrame
        from silt.sql.session import _field

        if self._schema is not None and self._format.lower() == "delta":
            # Delta's DeltaErrors.specifySchemaAtReadTimeException.
            raise _error("DELTA_UNSUPPORTED_SCHEMA_DURING_READ",
                         "Delta does not support specifying the schema at read time.")
        spark = self._spark
        engine = spark._engine
        schema_ddl = None
        if self._schema is not None:
            from silt.sql.column import _quote
            from silt.sql.types import _type_sql

            schema_ddl = ", ".join("%s %s" % (_quote(f.name), _type_sql(f.dataType))
                                   for f in self._schema.fields)
        frame = engine.read_stream(self._format, dict(self._options), path=path, table=table,
                                   schema=schema_ddl)
        schema = StructType([_field(f) for f in engine.stream_schema(frame, dict(self._options))])
        stream = _register(spark, frame, schema)
        return DataFrame(spark, "SELECT * FROM `%s`" % stream.name, schema)


# Source formats read without a path.
_FORMATS_WITHOUT_PATH = {"rate", "rate-micro-batch", "postgres_cdc", "postgres-cdc"}


# Trigger intervals: Spark's interval strings ("10 seconds", "interval 1 minute 30 seconds").
_INTERVAL_UNITS = {
    "microsecond": 0.001, "millisecond": 1, "second": 1000, "minute": 60000, "hour": 3600000,
    "day": 86400000, "week": 604800000,
}
_INTERVAL_PART = re.compile(r"\s*(-?\d+(?:\.\d+)?)\s*([a-z]+)\s*")


def _interval_ms(text, what):
    """The milliseconds of an interval string; IllegalArgumentException when it does not parse or
    is negative."""
    body = text.strip().lower()
    if body.startswith("interval"):
        body = body[len("interval"):]
    total = 0.0
    position = 0
    parts = 0
    while position < len(body):
        match = _INTERVAL_PART.match(body, position)
        if not match:
            parts = 0
            break
        unit = match.group(2)
        unit = {"ms": "millisecond", "msec": "millisecond", "msecs": "millisecond", "s": "second",
                "sec": "second", "secs": "second", "min": "minute", "mins": "minute",
                "h": "hour"}.get(unit, unit)
        unit = unit[:-1] if unit.endswith("s") and unit[:-1] in _INTERVAL_UNITS else unit
        if unit not in _INTERVAL_UNITS:
            parts = 0
            break
        total += float(match.group(1)) * _INTERVAL_UNITS[unit]
        parts += 1
        position = match.end()
    if parts == 0:
        raise _error("INVALID_ARGUMENT", "Invalid interval for %s: '%s'." % (what, text))
    if total < 0:
        raise _error("INVALID_ARGUMENT", "%s must not be negative: '%s'." % (what, text))
    return int(total)


class DataStreamWriter:
    """df.writeStream: format, outputMode, option(s) (checkpointLocation), partitionBy,
    queryName, trigger, foreachBatch, then start(path) or toTable(name)."""

    def __init__(self, df):
        self._df = df
        self._format = "delta"
        self._output_mode = "append"
        self._options = {}
        self._partition_by = []
        self._query_name = None
        self._trigger = ("processingTime", 0)
        self._function = None

    def format(self, source):
        self._format = source
        return self

    def outputMode(self, outputMode):
        if not isinstance(outputMode, str) or not outputMode.strip():
            raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `outputMode` must be a non-empty string, "
                         "got '%s'." % (outputMode,), family=PySparkValueError)
        self._output_mode = outputMode
        return self

    def option(self, key, value):
        self._options[key] = _option_string(value)
        return self

    def options(self, **options):
        for key, value in options.items():
            self.option(key, value)
        return self

    def partitionBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        self._partition_by = [str(c) for c in cols]
        return self

    def queryName(self, queryName):
        if not isinstance(queryName, str) or not queryName.strip():
            raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `queryName` must be a non-empty string, "
                         "got '%s'." % (queryName,), family=PySparkValueError)
        self._query_name = queryName
        return self

    def trigger(self, *, processingTime=None, once=None, continuous=None, availableNow=None):
        given = [v for v in (processingTime, once, continuous, availableNow) if v is not None]
        if len(given) != 1:
            raise _error("ONLY_ALLOW_SINGLE_TRIGGER", "Only a single trigger is allowed.",
                         family=PySparkValueError)
        if processingTime is not None:
            if not isinstance(processingTime, str) or not processingTime.strip():
                raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `processingTime` must be a non-empty "
                             "string, got '%s'." % (processingTime,), family=PySparkValueError)
            self._trigger = ("processingTime", _interval_ms(processingTime, "processingTime"))
        elif once is not None:
            if once is not True:
                raise _error("VALUE_NOT_TRUE", "Value for `once` must be True, got '%s'." % (once,),
                             family=PySparkValueError)
            self._trigger = ("once", 0)
        elif continuous is not None:
            if not isinstance(continuous, str) or not continuous.strip():
                raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `continuous` must be a non-empty "
                             "string, got '%s'." % (continuous,), family=PySparkValueError)
            raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: continuous processing "
                         "(trigger(continuous=...)); silt runs streams in micro-batches.")
        else:
            if availableNow is not True:
                raise _error("VALUE_NOT_TRUE", "Value for `availableNow` must be True, got '%s'."
                             % (availableNow,), family=PySparkValueError)
            self._trigger = ("availableNow", 0)
        return self

    def foreachBatch(self, func):
        if not callable(func):
            raise _error("NOT_CALLABLE", "Argument `func` should be a callable, got %s."
                         % type(func).__name__, family=PySparkTypeError)
        self._function = func
        return self

    def foreach(self, f):
        raise _error("NOT_IMPLEMENTED", "DataStreamWriter.foreach: use foreachBatch, which silt runs "
                     "with each batch as a DataFrame.", family=_not_implemented())

    def _apply(self, format, outputMode, partitionBy, queryName, options):
        if format is not None:
            self.format(format)
        if outputMode is not None:
            self.outputMode(outputMode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        if queryName is not None:
            self.queryName(queryName)
        self.options(**options)

    def start(self, path=None, format=None, outputMode=None, partitionBy=None, queryName=None,
              **options):
        self._apply(format, outputMode, partitionBy, queryName, options)
        if path is None and self._function is None:
            path = next((v for k, v in self._options.items() if k.lower() == "path"), None)
        return self._start(path=path)

    def toTable(self, tableName, format=None, outputMode=None, partitionBy=None, queryName=None,
                **options):
        self._apply(format, outputMode, partitionBy, queryName, options)
        if not isinstance(tableName, str) or not tableName.strip():
            raise _error("VALUE_NOT_NON_EMPTY_STR", "Value for `tableName` must be a non-empty string, "
                         "got '%s'." % (tableName,), family=PySparkValueError)
        return self._start(table=tableName)

    def _start(self, path=None, table=None):
        from silt.sql.dataframe import DataFrame

        df = self._df
        spark = df._session
        stream = _only_stream(df)
        writer = {
            "format": self._format,
            "outputMode": self._output_mode,
            "options": dict(self._options),
            "partitionBy": list(self._partition_by),
            "queryName": self._query_name or "",
            "trigger": self._trigger[0],
            "intervalMs": self._trigger[1],
        }
        function = None
        if self._function is not None:
            user_function = self._function

            def function(engine, sql, batch_id):
                batch_session = spark._for_batch(engine)
                user_function(DataFrame(batch_session, sql), batch_id)

        query = None if _trivial(df, stream) else df._query
        handle = spark._engine.start_stream(stream.frame, query, stream.name, writer,
                                            function=function, path=path, table=table)
        query = StreamingQuery(handle, spark.streams, self._trigger[1])
        spark.streams._started(query)
        return query


def _not_implemented():
    from silt.errors import PySparkNotImplementedError

    return PySparkNotImplementedError


class StreamingQuery:
    """A query running in the background (pyspark.sql.streaming.StreamingQuery)."""

    def __init__(self, handle, manager, interval_ms=0):
        self._handle = handle
        self._manager = manager
        self._interval_ms = interval_ms

    @property
    def id(self):
        """The query's id: the same across restarts from one checkpoint."""
        return self._handle.id

    @property
    def runId(self):
        return self._handle.run_id

    @property
    def name(self):
        return self._handle.name or None

    @property
    def isActive(self):
        return self._handle.is_active

    def awaitTermination(self, timeout=None):
        """Waits until the query ends: by stop(), its trigger's end, or a failure, which is raised
        as a StreamingQueryException. With `timeout` (seconds), returns whether it ended."""
        if timeout is not None:
            if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                raise _error("VALUE_NOT_POSITIVE", "Value for `timeout` must be positive, got '%s'."
                             % (timeout,), family=PySparkValueError)
            ended = self._handle.await_termination(int(timeout * 1000))
        else:
            ended = self._handle.await_termination()
        if ended:
            self._manager._ended(self)
            failure = self.exception()
            if failure is not None:
                raise failure
        return ended if timeout is not None else None

    def processAllAvailable(self):
        """Blocks until the data available in the source when called has been processed (for a
        trigger that ends by itself: until the query ends). Meant for tests."""
        # The engine looks for new data every trigger interval (at least every 100 ms when idle).
        interval_ms = max(self._interval_ms, 100)
        quiet_since = None
        last_batch = None
        while True:
            if self._handle.await_termination(20):
                failure = self.exception()
                if failure is not None:
                    raise failure
                return
            status = self._handle.status()
            progress = self._handle.last_progress()
            batch = json.loads(progress)["batchId"] if progress else None
            idle = not status["isDataAvailable"] and not status["isTriggerActive"] and \
                status["message"] == "Waiting for data to arrive"
            now = time.monotonic()
            if not idle or batch != last_batch:
                quiet_since = None
                last_batch = batch
            elif quiet_since is None:
                quiet_since = now
            # Idle over two of the engine's looks: one that began after the call found nothing.
            elif now - quiet_since > (2 * interval_ms + 100) / 1000.0:
                return

    def stop(self):
        """Stops the query after the batch in flight commits, and waits for it."""
        self._handle.stop()
        self._manager._ended(self)

    @property
    def status(self):
        """What the query is doing now: message, isDataAvailable, isTriggerActive."""
        return self._handle.status()

    @property
    def lastProgress(self):
        """The last batch's progress as a dict with Spark's keys (id, runId, name, timestamp,
        batchId, numInputRows, inputRowsPerSecond, processedRowsPerSecond, durationMs,
        stateOperators, sources, sink), or None before the first batch."""
        progress = self._handle.last_progress()
        return json.loads(progress) if progress is not None else None

    @property
    def recentProgress(self):
        return [json.loads(p) for p in self._handle.recent_progress()]

    def exception(self):
        """The StreamingQueryException that ended the query, or None."""
        failure = self._handle.failure()
        if failure is None:
            return None
        text, error_class, sqlstate, category, message = failure
        cause = self._handle.function_exception()
        if cause is None:
            cause = _from_engine(text, error_class, sqlstate, category, message)
        if error_class != "STREAM_FAILED":
            message = "Query [id = %s, runId = %s] terminated with exception: %s" % (
                self.id, self.runId, text)
            text = "[STREAM_FAILED] " + message
            error_class, sqlstate = "STREAM_FAILED", "XXKST"
        error = _build(text, error_class, sqlstate, category, family=StreamingQueryException,
                       message=message)
        error.__cause__ = cause
        return error

    def __repr__(self):
        return "<StreamingQuery id=%s runId=%s name=%s>" % (self.id, self.runId, self.name)


class StreamingQueryManager:
    """spark.streams: the queries started from a session."""

    def __init__(self):
        self._lock = threading.Condition()
        self._queries = []
        self._terminated = []

    def _started(self, query):
        with self._lock:
            self._queries.append(query)

    def _ended(self, query):
        with self._lock:
            if query in self._queries and not query._handle.is_active:
                self._queries.remove(query)
                self._terminated.append(query)
            self._lock.notify_all()

    def _sweep(self):
        with self._lock:
            for query in list(self._queries):
                if not query._handle.is_active:
                    self._queries.remove(query)
                    self._terminated.append(query)

    @property
    def active(self):
        """The queries of this session that are running."""
        self._sweep()
        with self._lock:
            return list(self._queries)

    def get(self, id):
        """The active query with this id (a str), or None."""
        for query in self.active:
            if query.id == id:
                return query
        return None

    def awaitAnyTermination(self, timeout=None):
        """Waits until a query of this session has ended since the last resetTerminated() (at once
        if one has); raises its exception if it failed. With `timeout` (seconds), returns whether
        one ended."""
        if timeout is not None:
            if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
                raise _error("VALUE_NOT_POSITIVE", "Value for `timeout` must be positive, got '%s'."
                             % (timeout,), family=PySparkValueError)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            self._sweep()
            with self._lock:
                ended = list(self._terminated)
                running = list(self._queries)
            if ended:
                failed = next((q for q in ended if q.exception() is not None), None)
                if failed is not None:
                    raise failed.exception()
                return True if timeout is not None else None
            if deadline is not None and time.monotonic() >= deadline:
                return False
            step = 50
            if deadline is not None:
                step = max(1, min(step, int((deadline - time.monotonic()) * 1000)))
            if running:
                running[0]._handle.await_termination(step)
            else:
                time.sleep(step / 1000.0)

    def resetTerminated(self):
        """Forgets the queries that ended, so awaitAnyTermination() waits for a new one."""
        self._sweep()
        with self._lock:
            self._terminated = []

    def _stop_all(self):
        for query in self.active:
            query.stop()
