"""spark.read and df.write, as pyspark.sql.DataFrameReader / DataFrameWriter name them.

Reading: format "delta" (with time travel: versionAsOf, timestampAsOf; the change data feed:
readChangeFeed with startingVersion/startingTimestamp and endingVersion/endingTimestamp),
"parquet", "json" (JSON Lines) and "csv" (header false, Spark's default: columns _c0, _c1, ...;
header true: named by the first line; inferSchema types columns as int, bigint, double or
boolean when every value fits, else every column is a string). Writing: Delta tables by path or
name with Spark's save modes and Delta's options mergeSchema, overwriteSchema, replaceWhere and
txnAppId/txnVersion (idempotent writes).
"""

from silt import _silt
from silt.errors import AnalysisException, IllegalArgumentException, PySparkTypeError, _error
from silt.sql.column import _cluster_by_sql, _parse_name, _quote, _string_sql
from silt.sql.types import StructType, _parse_datatype_string, _type_sql

__all__ = ["DataFrameReader", "DataFrameWriter", "DataFrameWriterV2"]


def _path_sql(format, path):
    return "%s.%s" % (format, _quote(path))


def _truthy(value):
    return str(value).lower() == "true"


def _option_string(value):
    """An option's value as Spark keeps it: text, booleans as true / false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def _struct_schema(schema):
    """A reader's schema: a StructType, or DDL text parsed into one (NOT_STR_OR_STRUCT otherwise)."""
    if isinstance(schema, str):
        schema = _parse_datatype_string(schema)
    if not isinstance(schema, StructType):
        raise _error("NOT_STR_OR_STRUCT", "Argument `schema` should be a str or StructType, got %s."
                     % type(schema).__name__, family=PySparkTypeError)
    return schema


class DataFrameReader:
    def __init__(self, session):
        self._session = session
        self._format = None
        self._options = {}
        self._schema = None

    def format(self, source):
        self._format = source.lower()
        return self

    def option(self, key, value):
        self._options[key.lower()] = _option_string(value)
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
        if path is None:
            path = self._options.get("path")
        if path is None:
            raise _error("UNSUPPORTED_FEATURE",
                         "The feature is not supported: load() without a path.")
        if isinstance(path, (list, tuple)):
            if len(path) != 1:
                raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: reading several paths at once.")
            path = path[0]
        source = self._format or "delta"
        if source == "delta":
            return self._delta(path=path)
        if source not in ("parquet", "json", "csv"):
            raise _error("UNSUPPORTED_FEATURE",
                         "The feature is not supported: data source \"%s\"." % source)
        query = "SELECT * FROM %s" % _path_sql(source, path)
        if source == "csv":
            separator = self._options.get("sep", self._options.get("delimiter", ","))
            if separator != ",":
                raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: CSV separators other than ','.")
            if not _truthy(self._options.get("header", "false")):
                # Spark's default: every line is a row, the columns are _c0, _c1, ... (strings).
                # The csv.`path` relation reads a header line, so the rows are read here.
                local = self._session._local_data_path()
                _silt.csv_to_parquet(str(path), local, False)
                query = "SELECT * FROM %s" % _path_sql("parquet", local)
        if source == "csv" and self._schema is None and _truthy(self._options.get("inferschema", "false")):
            return self._inferred(query)
        return self._typed(query, by_position=source == "csv")

    # The types CSV's inferSchema tries, narrowest first (Spark's CSVInferSchema order for
    # numbers and booleans); a column none of them fits stays a string.
    _CSV_TYPES = ("INT", "BIGINT", "DOUBLE", "BOOLEAN")

    def _inferred(self, query):
        """CSV columns typed by their values: each column takes the first type of _CSV_TYPES
        that every non-empty value casts to."""
        from silt.sql.dataframe import DataFrame

        frame = DataFrame(self._session, query)
        names = frame.columns
        checks = []
        for name in names:
            for type_sql in self._CSV_TYPES:
                checks.append("bool_and(%s IS NULL OR TRY_CAST(%s AS %s) IS NOT NULL)" % (
                    _quote(name), _quote(name), type_sql))
        found = self._session._run("SELECT %s FROM (%s) AS `_probe`" % (", ".join(checks), query)).rows()[0]
        items = []
        for index, name in enumerate(names):
            fits = found[index * len(self._CSV_TYPES):(index + 1) * len(self._CSV_TYPES)]
            type_sql = next((t for t, ok in zip(self._CSV_TYPES, fits) if ok), "STRING")
            items.append("CAST(%s AS %s) AS %s" % (_quote(name), type_sql, _quote(name)))
        return DataFrame(self._session, "SELECT %s FROM (%s) AS `_read`" % (", ".join(items), query))

    def _typed(self, query, by_position):
        """The query with the user's schema applied: columns cast to its types, taken by
        position (CSV) or by name."""
        from silt.sql.dataframe import DataFrame

        frame = DataFrame(self._session, query)
        if self._schema is None:
            return frame
        names = frame.columns
        items = []
        for index, field in enumerate(self._schema.fields):
            if by_position:
                if index >= len(names):
                    items.append("CAST(NULL AS %s) AS %s" % (_type_sql(field.dataType), _quote(field.name)))
                    continue
                source = _quote(names[index])
            else:
                match = next((n for n in names if n.lower() == field.name.lower()), None)
                if match is None:
                    items.append("CAST(NULL AS %s) AS %s" % (_type_sql(field.dataType), _quote(field.name)))
                    continue
                source = _quote(match)
            items.append("CAST(%s AS %s) AS %s" % (source, _type_sql(field.dataType), _quote(field.name)))
        return DataFrame(self._session, "SELECT %s FROM (%s) AS `_read`" % (", ".join(items), query))

    def _delta(self, path=None, table=None):
        from silt.sql.dataframe import DataFrame

        options = self._options
        relation = _path_sql("delta", path) if path is not None else table
        if _truthy(options.get("readchangefeed", options.get("readchangedata", "false"))):
            start = options.get("startingversion")
            start_time = options.get("startingtimestamp")
            end = options.get("endingversion")
            end_time = options.get("endingtimestamp")
            if start is not None and start_time is not None:
                raise _error("DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET",
                             "Please either provide 'startingVersion' or 'startingTimestamp'.")
            if start is None and start_time is None:
                raise _error("DELTA_NO_START_FOR_CDC_READ",
                             "No startingVersion or startingTimestamp provided for CDC read.",
                             family=AnalysisException)
            arguments = [_string_sql(path if path is not None else table)]
            arguments.append("%dL" % int(start) if start is not None else _string_sql(start_time))
            if end is not None:
                arguments.append("%dL" % int(end))
            elif end_time is not None:
                arguments.append(_string_sql(end_time))
            function = "table_changes_by_path" if path is not None else "table_changes"
            return DataFrame(self._session, "SELECT * FROM %s(%s)" % (function, ", ".join(arguments)))
        version = options.get("versionasof")
        timestamp = options.get("timestampasof")
        if version is not None and timestamp is not None:
            raise _error("INVALID_PARAMETER_VALUE",
                         "The value of parameter(s) `versionAsOf, timestampAsOf` is invalid: "
                         "cannot specify both version and timestamp when time travelling.")
        if version is not None:
            relation += " VERSION AS OF %d" % int(version)
        elif timestamp is not None:
            relation += " TIMESTAMP AS OF %s" % _string_sql(timestamp)
        return DataFrame(self._session, "SELECT * FROM %s" % relation)

    def table(self, tableName):
        if self._format not in (None, "delta"):
            raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: reading a table as %s."
                         % self._format)
        return self._delta(table=tableName)

    def parquet(self, *paths, **options):
        self.options(**options)
        return self.format("parquet").load(list(paths) if len(paths) != 1 else paths[0])

    def json(self, path, schema=None, **options):
        if schema is not None:
            self.schema(schema)
        self.options(**{k: v for k, v in options.items() if v is not None})
        return self.format("json").load(path)

    def csv(self, path, schema=None, sep=None, header=None, inferSchema=None, **options):
        if schema is not None:
            self.schema(schema)
        if sep is not None:
            self.option("sep", sep)
        if header is not None:
            self.option("header", header)
        if inferSchema is not None:
            self.option("inferSchema", inferSchema)
        self.options(**{k: v for k, v in options.items() if v is not None})
        return self.format("csv").load(path)


_TXN_APP_ID = "spark.databricks.delta.write.txnAppId"
_TXN_VERSION = "spark.databricks.delta.write.txnVersion"
_MAX_RECORDS_PER_FILE = "spark.sql.files.maxRecordsPerFile"
_PARTITION_OVERWRITE_MODE = "spark.sql.sources.partitionOverwriteMode"


def _execute_with_settings(session, settings, statement):
    """Runs `statement` with `settings` (session settings) in force for it only."""
    if not settings:
        session._execute(statement)
        return
    engine = session._engine
    previous = {key: engine.get_conf(key) for key in settings}
    for key, value in settings.items():
        engine.set_conf(key, value)
    try:
        session._execute(statement)
    finally:
        for key, value in previous.items():
            if value is None:
                engine.sql("RESET %s" % key)
            else:
                engine.set_conf(key, value)

_SAVE_MODES = {
    "append": "append",
    "overwrite": "overwrite",
    "error": "error",
    "errorifexists": "error",
    "default": "error",
    "ignore": "ignore",
}


class DataFrameWriter:
    def __init__(self, df):
        self._df = df
        self._session = df._session
        self._format = "delta"
        self._mode = "error"
        self._options = {}
        self._partition_by = []
        self._cluster_by = []

    def mode(self, saveMode):
        if saveMode is None:
            return self
        mode = _SAVE_MODES.get(saveMode.lower())
        if mode is None:
            raise _error("INVALID_PARAMETER_VALUE",
                         "The value of parameter(s) `saveMode` is invalid: unknown save mode: %s. Accepted "
                         "save modes are 'overwrite', 'append', 'ignore', 'error', 'errorifexists', 'default'."
                         % saveMode)
        self._mode = mode
        return self

    def format(self, source):
        self._format = source.lower()
        return self

    def option(self, key, value):
        self._options[key.lower()] = value if isinstance(value, str) else (
            ("true" if value else "false") if isinstance(value, bool) else str(value))
        return self

    def options(self, **options):
        for key, value in options.items():
            self.option(key, value)
        return self

    def partitionBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        self._partition_by = list(cols)
        return self

    def clusterBy(self, *cols):
        """Clusters a table this writer creates by `cols` (liquid clustering); an append to an
        existing table must name its clustering columns, as Delta checks."""
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        self._cluster_by = [str(c) for c in cols]
        return self

    def bucketBy(self, numBuckets, col, *cols):
        raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: bucketBy for Delta tables.")

    def sortBy(self, col, *cols):
        raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: sortBy for Delta tables.")

    def _check(self):
        if self._format != "delta":
            raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: writing format \"%s\" "
                         "(silt writes Delta tables)." % self._format)
        app_id = self._options.get("txnappid")
        version = self._options.get("txnversion")
        if (app_id is None) != (version is None):
            raise _error("DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS",
                         "Invalid options for idempotent Dataframe writes: Both txnAppId and txnVersion "
                         "must be specified for idempotent Delta writes.", family=IllegalArgumentException)

    def _execute(self, statement):
        """Runs a write statement with the options that are session settings for this statement
        only: txnAppId and txnVersion (Delta's spark.databricks.delta.write.txnAppId/txnVersion:
        an idempotent write, skipped when the table already recorded that application's version),
        maxRecordsPerFile (spark.sql.files.maxRecordsPerFile: the most rows a file holds) and
        partitionOverwriteMode (spark.sql.sources.partitionOverwriteMode: with "dynamic", an
        overwrite replaces only the partitions it writes rows to)."""
        settings = {}
        if self._options.get("txnappid") is not None:
            settings[_TXN_APP_ID] = self._options["txnappid"]
            settings[_TXN_VERSION] = self._options.get("txnversion")
        if self._options.get("maxrecordsperfile") is not None:
            settings[_MAX_RECORDS_PER_FILE] = self._options["maxrecordsperfile"]
        if self._options.get("partitionoverwritemode") is not None:
            settings[_PARTITION_OVERWRITE_MODE] = self._options["partitionoverwritemode"]
        _execute_with_settings(self._session, settings, statement)

    def save(self, path=None, format=None, mode=None, partitionBy=None, **options):
        if format is not None:
            self.format(format)
        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        if path is None:
            path = self._options.get("path")
        if path is None:
            raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: save() without a path.")
        self._check()
        target = _path_sql("delta", path)
        exists = _table_exists(self._session, target)
        if exists and self._mode == "error":
            raise _error("DELTA_PATH_EXISTS", "Cannot write to already existent path %s without setting "
                         "OVERWRITE = 'true'." % path, family=AnalysisException)
        self._write(target, exists, location=None)

    def saveAsTable(self, name, format=None, mode=None, partitionBy=None, **options):
        if format is not None:
            self.format(format)
        self.mode(mode)
        if partitionBy is not None:
            self.partitionBy(partitionBy)
        self.options(**options)
        self._check()
        exists = _table_exists(self._session, name)
        if exists and self._mode == "error":
            raise _error("TABLE_OR_VIEW_ALREADY_EXISTS",
                         "Cannot create table or view %s because it already exists." % _display_name(name))
        self._write(name, exists, location=self._options.get("path"))

    def insertInto(self, tableName, overwrite=None):
        """Writes the rows into an existing table by column position, as Spark's insertInto."""
        overwrite = self._mode == "overwrite" if overwrite is None else overwrite
        self._check()
        keyword = "OVERWRITE" if overwrite else "INTO"
        self._execute("INSERT %s %s %s" % (keyword, tableName, self._df._query))

    def _write(self, target, exists, location):
        df = self._df
        options = self._options
        if exists and self._mode == "ignore":
            return
        if not exists:
            self._create(target, location, replace=False)
            return
        dynamic = (options.get("partitionoverwritemode") or "").lower() == "dynamic"
        if self._mode == "overwrite" and dynamic:
            if options.get("replacewhere"):
                raise _error("DELTA_REPLACE_WHERE_WITH_DYNAMIC_PARTITION_OVERWRITE",
                             "A 'replaceWhere' expression and 'partitionOverwriteMode'='dynamic' cannot "
                             "both be set in the DataFrameWriter options.", family=IllegalArgumentException)
            if _truthy(options.get("overwriteschema", "false")):
                raise _error("DELTA_OVERWRITE_SCHEMA_WITH_DYNAMIC_PARTITION_OVERWRITE",
                             "'overwriteSchema' cannot be used in dynamic partition overwrite mode.",
                             family=IllegalArgumentException)
        if self._mode == "overwrite" and _truthy(options.get("overwriteschema", "false")):
            self._create(target, location, replace=True)
            return
        if self._cluster_by:
            self._check_clustering(target)
        table_columns = _columns_of(self._session, target)
        lowered = {name.lower() for name in table_columns}
        extra = [name for name in df.columns if name.lower() not in lowered]
        merge_schema = _truthy(options.get("mergeschema", "false")) or _truthy(
            self._session.conf.get("spark.databricks.delta.schema.autoMerge.enabled", "false"))
        if extra and not merge_schema:
            raise _error("DELTA_METADATA_MISMATCH",
                         "A schema mismatch detected when writing to the Delta table. To enable schema "
                         "migration using DataFrameWriter or DataStreamWriter, please set: "
                         "'.option(\"mergeSchema\", \"true\")'. Data columns not in the table: %s."
                         % ", ".join(extra))
        if extra:
            if self._mode == "overwrite":
                raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: overwrite with mergeSchema "
                             "adding columns; use overwriteSchema.")
            # One commit that appends the rows and adds the new columns: an insert-only MERGE
            # with schema evolution.
            self._execute(
                "MERGE WITH SCHEMA EVOLUTION INTO %s USING (%s) AS `_source` ON false "
                "WHEN NOT MATCHED THEN INSERT *" % (target, df._query))
            return
        columns = ", ".join(_quote(name) for name in df.columns)
        if self._mode == "overwrite":
            replace_where = options.get("replacewhere")
            if replace_where:
                statement = "INSERT INTO %s (%s) REPLACE WHERE %s %s" % (target, columns, replace_where, df._query)
            else:
                statement = "INSERT OVERWRITE %s (%s) %s" % (target, columns, df._query)
        else:
            statement = "INSERT INTO %s (%s) %s" % (target, columns, df._query)
        self._execute(statement)

    def _check_clustering(self, target):
        # Delta's check for a write with clusterBy into an existing table: the columns must be the
        # table's clustering columns (compared by name and order).
        row = self._session._engine.sql("DESCRIBE DETAIL %s" % target).rows()[0]
        existing = list(row[8] or [])

        def normalized(names):
            return [[part.lower() for part in _parse_name(name)] for name in names]

        if normalized(self._cluster_by) != normalized(existing):
            raise _error("DELTA_CLUSTERING_COLUMNS_MISMATCH",
                         "The provided clustering columns do not match the existing table's. - provided: "
                         "%s - existing: %s" % (",".join(self._cluster_by), ",".join(existing)))

    def _create(self, target, location, replace):
        verb = "CREATE OR REPLACE TABLE" if replace else "CREATE TABLE"
        statement = "%s %s USING delta" % (verb, target)
        if self._partition_by:
            statement += " PARTITIONED BY (%s)" % ", ".join(_quote(c) for c in self._partition_by)
        if self._cluster_by:
            statement += " CLUSTER BY " + _cluster_by_sql(self._cluster_by)
        if location:
            statement += " LOCATION %s" % _string_sql(location)
        properties = {k: v for k, v in self._options.items() if k.startswith("delta.")}
        if properties:
            statement += " TBLPROPERTIES (%s)" % ", ".join(
                "%s = %s" % (_string_sql(k), _string_sql(v)) for k, v in properties.items())
        statement += " AS " + self._df._query
        self._execute(statement)

    def parquet(self, path, mode=None, partitionBy=None, compression=None):
        self.format("parquet")
        self.save(path, mode=mode, partitionBy=partitionBy)

    def json(self, path, mode=None, **options):
        self.format("json")
        self.save(path, mode=mode)

    def csv(self, path, mode=None, **options):
        self.format("csv")
        self.save(path, mode=mode)


def _display_name(name):
    return name if "`" in name else ".".join("`%s`" % part for part in name.split("."))


def _table_exists(session, target):
    try:
        session._analyze("SELECT * FROM %s" % target)
    except AnalysisException as error:
        if error.getErrorClass() in ("TABLE_OR_VIEW_NOT_FOUND", "DELTA_MISSING_DELTA_TABLE",
                                     "PATH_NOT_FOUND", "DELTA_PATH_DOES_NOT_EXIST", "DELTA_EMPTY_DIRECTORY"):
            return False
        raise
    except Exception as error:  # noqa: BLE001 - storage errors of a missing path
        if getattr(error, "error_class", None) in ("PATH_NOT_FOUND",):
            return False
        raise
    return True


def _columns_of(session, target):
    return session._analyze("SELECT * FROM %s" % target).names


class DataFrameWriterV2:
    """df.writeTo(table): create, replace, append and overwritePartitions of a Delta table."""

    def __init__(self, df, table):
        self._df = df
        self._table = table
        self._partitions = []
        self._cluster_by = []
        self._properties = {}
        self._provider = "delta"

    def using(self, provider):
        self._provider = provider.lower()
        return self

    def option(self, key, value):
        return self

    def options(self, **options):
        return self

    def tableProperty(self, property, value):
        self._properties[property] = value
        return self

    def partitionedBy(self, col, *cols):
        names = [col] + list(cols)
        self._partitions = [c if isinstance(c, str) else c._name() for c in names]
        return self

    def clusterBy(self, col, *cols):
        names = [col] + list(cols)
        self._cluster_by = [c if isinstance(c, str) else c._name() for c in names]
        return self

    def _create_statement(self, verb):
        if self._provider != "delta":
            raise _error("UNSUPPORTED_FEATURE", "The feature is not supported: tables of provider %s."
                         % self._provider)
        statement = "%s %s USING delta" % (verb, self._table)
        if self._partitions:
            statement += " PARTITIONED BY (%s)" % ", ".join(_quote(c) for c in self._partitions)
        if self._cluster_by:
            statement += " CLUSTER BY " + _cluster_by_sql(self._cluster_by)
        if self._properties:
            statement += " TBLPROPERTIES (%s)" % ", ".join(
                "%s = %s" % (_string_sql(k), _string_sql(str(v))) for k, v in self._properties.items())
        return statement + " AS " + self._df._query

    def create(self):
        self._df._session._execute(self._create_statement("CREATE TABLE"))

    def replace(self):
        self._df._session._execute(self._create_statement("REPLACE TABLE"))

    def createOrReplace(self):
        self._df._session._execute(self._create_statement("CREATE OR REPLACE TABLE"))

    def append(self):
        columns = ", ".join(_quote(name) for name in self._df.columns)
        self._df._session._execute("INSERT INTO %s (%s) %s" % (self._table, columns, self._df._query))

    def overwrite(self, condition):
        columns = ", ".join(_quote(name) for name in self._df.columns)
        condition_sql = condition if isinstance(condition, str) else condition._sql()
        self._df._session._execute("INSERT INTO %s (%s) REPLACE WHERE %s %s" % (
            self._table, columns, condition_sql, self._df._query))

    def overwritePartitions(self):
        """Replaces the partitions the DataFrame has rows for (dynamic partition overwrite)."""
        columns = ", ".join(_quote(name) for name in self._df.columns)
        _execute_with_settings(self._df._session, {_PARTITION_OVERWRITE_MODE: "dynamic"},
                               "INSERT OVERWRITE %s (%s) %s" % (self._table, columns, self._df._query))
