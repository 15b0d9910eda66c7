"""DeltaTable: delta-spark's programmatic API (delta.tables) on silt's engine.

Each operation is the Delta SQL statement of the same meaning (MERGE INTO, UPDATE, DELETE,
DESCRIBE HISTORY, VACUUM, OPTIMIZE, RESTORE, CONVERT TO DELTA, CREATE TABLE), so behaviour,
metrics and error classes are the engine's.
"""

import os
import urllib.parse

from silt import _silt
from silt.errors import (
    AnalysisException,
    IllegalArgumentException,
    PySparkTypeError,
    PySparkValueError,
    UnsupportedOperationException,
    _error,
)
from silt.sql.column import Column, _Scope, _cluster_by_sql, _quote, _string_sql
from silt.sql.dataframe import DataFrame
from silt.sql.session import SparkSession
from silt.sql.types import DataType, StructField, StructType, _parse_datatype_string, _type_sql

__all__ = [
    "DeltaMergeBuilder",
    "DeltaOptimizeBuilder",
    "DeltaTable",
    "DeltaTableBuilder",
    "IdentityGenerator",
]


def _session(sparkSession):
    session = sparkSession or SparkSession.getActiveSession()
    if session is None:
        raise _error("NO_ACTIVE_OR_DEFAULT_SESSION", "No active or default Spark session found.")
    return session


def _expression(value, scope, what):
    """SQL text of a condition or value given as a string (SQL) or a Column."""
    if isinstance(value, str):
        return value
    if isinstance(value, Column):
        return value._sql(scope)
    raise _error("NOT_COLUMN_OR_STR", "Argument `%s` should be a Column or str, got %s."
                 % (what, type(value).__name__), family=PySparkTypeError)


def _target_column(name):
    """A target column name of `set`/`values` for SQL: dotted parts back-quoted unless quoted."""
    if "`" in name:
        return name
    return ".".join(_quote(part) for part in name.split("."))


class DeltaTable:
    """A Delta table, by path or by name."""

    def __init__(self, spark, table_sql, name=None, path=None, alias=None):
        self._spark = spark
        self._table = table_sql  # how statements name the table
        self._name = name
        self._path = path
        self._alias = alias

    def __repr__(self):
        return "DeltaTable(%s)" % self._table

    # Finding tables.

    @classmethod
    def forPath(cls, sparkSession, path, hadoopConf=None):
        spark = _session(sparkSession)
        table_sql = "delta.%s" % _quote(path)
        if not cls._is_delta(spark, table_sql):
            raise _error("DELTA_MISSING_DELTA_TABLE", "%s is not a Delta table." % _quote(path))
        return cls(spark, table_sql, path=path)

    @classmethod
    def forName(cls, sparkSession, tableOrViewName):
        spark = _session(sparkSession)
        spark._analyze("SELECT * FROM %s" % tableOrViewName)
        try:
            spark._execute("DESCRIBE DETAIL %s" % tableOrViewName)
        except AnalysisException as error:
            if error.getErrorClass() in ("EXPECT_TABLE_NOT_VIEW",):
                raise _error("DELTA_MISSING_DELTA_TABLE", "%s is not a Delta table." % tableOrViewName)
            raise
        return cls(spark, tableOrViewName, name=tableOrViewName)

    @classmethod
    def isDeltaTable(cls, sparkSession, identifier):
        spark = _session(sparkSession)
        if identifier.startswith("delta.`") or "/" not in identifier:
            table_sql = identifier if identifier.startswith("delta.`") else identifier
        else:
            table_sql = "delta.%s" % _quote(identifier)
        return cls._is_delta(spark, table_sql)

    @staticmethod
    def _is_delta(spark, table_sql):
        try:
            spark._execute("DESCRIBE DETAIL %s" % table_sql)
        except Exception as error:  # noqa: BLE001 - every failure means "not a Delta table here"
            if getattr(error, "category", None) in ("user", "io"):
                return False
            raise
        return True

    @classmethod
    def convertToDelta(cls, sparkSession, identifier, partitionSchema=None):
        spark = _session(sparkSession)
        statement = "CONVERT TO DELTA %s" % identifier
        if partitionSchema is not None:
            if isinstance(partitionSchema, str):
                partitionSchema = _parse_datatype_string(partitionSchema)
            if not isinstance(partitionSchema, StructType):
                raise _error("NOT_STR_OR_STRUCT", "Argument `partitionSchema` should be a str or StructType, "
                             "got %s." % type(partitionSchema).__name__, family=PySparkTypeError)
            statement += " PARTITIONED BY (%s)" % ", ".join(
                "%s %s" % (_quote(f.name), _type_sql(f.dataType)) for f in partitionSchema.fields)
        spark._execute(statement)
        if identifier.lower().startswith("parquet."):
            path = identifier[len("parquet."):].strip("`").replace("``", "`")
            return cls(spark, "delta.%s" % _quote(path), path=path)
        return cls(spark, identifier, name=identifier)

    # Builders of new tables.

    @classmethod
    def create(cls, sparkSession=None):
        return DeltaTableBuilder(_session(sparkSession), "CREATE TABLE")

    @classmethod
    def createIfNotExists(cls, sparkSession=None):
        return DeltaTableBuilder(_session(sparkSession), "CREATE TABLE IF NOT EXISTS")

    @classmethod
    def replace(cls, sparkSession=None):
        return DeltaTableBuilder(_session(sparkSession), "REPLACE TABLE")

    @classmethod
    def createOrReplace(cls, sparkSession=None):
        return DeltaTableBuilder(_session(sparkSession), "CREATE OR REPLACE TABLE")

    # Reading.

    def alias(self, aliasName):
        return DeltaTable(self._spark, self._table, self._name, self._path, aliasName)

    def toDF(self):
        frame = DataFrame(self._spark, "SELECT * FROM %s" % self._table)
        frame._table_name = self._table
        if self._alias:
            frame = frame.alias(self._alias)
        return frame

    def _target_sql(self):
        return self._table + (" AS %s" % _quote(self._alias) if self._alias else "")

    def _result_frame(self, statement):
        return self._spark._from_result(self._spark._execute(statement))

    def history(self, limit=None):
        statement = "DESCRIBE HISTORY %s" % self._table
        if limit is not None:
            statement += " LIMIT %d" % int(limit)
        return self._result_frame(statement)

    def detail(self):
        return self._result_frame("DESCRIBE DETAIL %s" % self._table)

    # Changing rows.

    def delete(self, condition=None):
        statement = "DELETE FROM %s" % self._target_sql()
        if condition is not None:
            statement += " WHERE %s" % _expression(condition, _Scope(), "condition")
        self._spark._execute(statement)

    def update(self, condition=None, set=None):
        if set is None:
            raise _error("CANNOT_BE_NONE", "Argument `set` cannot be None.", family=PySparkValueError)
        if not isinstance(set, dict) or not set:
            raise _error("NOT_DICT", "Argument `set` should be a non-empty dict, got %s."
                         % type(set).__name__, family=PySparkTypeError)
        assignments = ", ".join("%s = %s" % (_target_column(k), _expression(v, _Scope(), "set"))
                                for k, v in set.items())
        statement = "UPDATE %s SET %s" % (self._target_sql(), assignments)
        if condition is not None:
            statement += " WHERE %s" % _expression(condition, _Scope(), "condition")
        self._spark._execute(statement)

    def merge(self, source, condition):
        if not isinstance(source, DataFrame):
            raise _error("NOT_DATAFRAME", "Argument `source` should be a DataFrame, got %s."
                         % type(source).__name__, family=PySparkTypeError)
        return DeltaMergeBuilder(self, source, condition)

    # Maintenance.

    def vacuum(self, retentionHours=None):
        statement = "VACUUM %s" % self._table
        if retentionHours is not None:
            statement += " RETAIN %s HOURS" % float(retentionHours)
        return self._result_frame(statement)

    def optimize(self):
        return DeltaOptimizeBuilder(self)

    def restoreToVersion(self, version):
        return self._result_frame("RESTORE TABLE %s TO VERSION AS OF %d" % (self._table, int(version)))

    def restoreToTimestamp(self, timestamp):
        return self._result_frame("RESTORE TABLE %s TO TIMESTAMP AS OF %s" % (self._table, _string_sql(str(timestamp))))

    def clone(self, target, isShallow, replace=False, properties=None):
        """A clone of this table (shallow: the clone's log names this table's files) at `target`,
        a path or a table name; returns it."""
        return self._clone(target, isShallow, replace, properties, "")

    def cloneAtVersion(self, version, target, isShallow, replace=False, properties=None):
        return self._clone(target, isShallow, replace, properties, " VERSION AS OF %d" % int(version))

    def cloneAtTimestamp(self, timestamp, target, isShallow, replace=False, properties=None):
        return self._clone(target, isShallow, replace, properties,
                           " TIMESTAMP AS OF %s" % _string_sql(str(timestamp)))

    def _clone(self, target, isShallow, replace, properties, travel):
        is_path = "/" in target or "\\" in target
        target_sql = "delta.%s" % _quote(target) if is_path else target
        statement = "%s %s %s CLONE %s%s" % (
            "CREATE OR REPLACE TABLE" if replace else "CREATE TABLE", target_sql,
            "SHALLOW" if isShallow else "DEEP", self._table, travel)
        if properties:
            statement += " TBLPROPERTIES (%s)" % ", ".join(
                "%s = %s" % (_string_sql(str(k)), _string_sql(str(v))) for k, v in properties.items())
        self._spark._execute(statement)
        if is_path:
            return DeltaTable(self._spark, target_sql, path=target)
        return DeltaTable(self._spark, target, name=target)

    def upgradeTableProtocol(self, readerVersion, writerVersion):
        if not isinstance(readerVersion, int) or not isinstance(writerVersion, int):
            raise _error("NOT_INT", "Arguments `readerVersion` and `writerVersion` should be ints.",
                         family=PySparkTypeError)
        self._spark._execute(
            "ALTER TABLE %s SET TBLPROPERTIES ('delta.minReaderVersion' = '%d', 'delta.minWriterVersion' = '%d')"
            % (self._table, readerVersion, writerVersion))

    def addFeatureSupport(self, featureName):
        self._spark._execute("ALTER TABLE %s SET TBLPROPERTIES (%s = 'supported')"
                             % (self._table, _string_sql("delta.feature." + featureName)))

    def _root(self):
        """The table's folder."""
        if self._path is not None:
            return os.path.abspath(self._path)
        detail = self._spark._execute("DESCRIBE DETAIL %s" % self._table)
        location = detail.rows()[0][detail.columns.index("location")]
        return location[len("file:"):] if location.startswith("file:") else location

    def generate(self, mode):
        """generate("symlink_format_manifest"): writes the manifests external readers (Presto,
        Trino, Athena, Hive) take a Delta table's current files from: _symlink_format_manifest/
        [partition folder/]manifest, one absolute file URI per line; manifests of partitions
        that no longer have files are removed."""
        if mode != "symlink_format_manifest":
            raise _error("DELTA_MODE_NOT_SUPPORTED", "Specified mode '%s' is not supported. Supported modes "
                         "are: symlink_format_manifest." % mode, family=IllegalArgumentException)
        root = self._root()
        table = _silt.delta_files(root)
        if table["column_mapping"]:
            raise _error("DELTA_UNSUPPORTED_MANIFEST_GENERATION_WITH_COLUMN_MAPPING",
                         "Manifest generation is not supported for tables that leverage column mapping, as "
                         "external readers cannot read these Delta tables.", family=UnsupportedOperationException)
        if any(has_deletion_vector for _, _, has_deletion_vector in table["files"]):
            raise _error("DELTA_UNSUPPORTED_GENERATE_WITH_DELETION_VECTORS",
                         "The 'GENERATE symlink_format_manifest' command is not supported on table versions "
                         "with deletion vectors.", family=UnsupportedOperationException)
        partition_columns = table["partition_columns"]
        manifests = {}
        for path, partition, _ in table["files"]:
            values = dict(partition)
            folder = "/".join("%s=%s" % (_escape_path_name(column), _escape_path_name(values.get(column)))
                              for column in partition_columns)
            manifests.setdefault(folder, []).append("file:" + _absolute_path(root, path))
        manifest_root = os.path.join(root, "_symlink_format_manifest")
        for folder, paths in manifests.items():
            directory = os.path.join(manifest_root, folder) if folder else manifest_root
            os.makedirs(directory, exist_ok=True)
            with open(os.path.join(directory, "manifest"), "w", encoding="utf-8") as out:
                out.write("".join(line + "\n" for line in sorted(paths)))
        # Partitions without files keep no manifest.
        kept = {os.path.join(manifest_root, folder, "manifest") if folder else os.path.join(manifest_root, "manifest")
                for folder in manifests}
        for directory, folders, names in os.walk(manifest_root, topdown=False):
            for name in names:
                if os.path.join(directory, name) not in kept:
                    os.remove(os.path.join(directory, name))
            if directory != manifest_root and not os.listdir(directory):
                os.rmdir(directory)


# Characters Hive escapes in partition folder names (as %XX).
_PATH_ESCAPES = set('"#%\'*/:=?\\\x7f{[]^') | {chr(c) for c in range(1, 32)}


def _escape_path_name(value):
    if value is None:
        return "__HIVE_DEFAULT_PARTITION__"
    return "".join("%%%02X" % ord(c) if c in _PATH_ESCAPES else c for c in value)


def _absolute_path(root, path):
    """A data file's path in the log (a URI, relative to the table or absolute) as a local path."""
    parsed = urllib.parse.urlparse(path)
    if parsed.scheme in ("file", ""):
        local = urllib.parse.unquote(parsed.path)
        return local if local.startswith("/") else os.path.join(root, local)
    return path


class DeltaMergeBuilder:
    """Builds MERGE INTO clause by clause; execute() runs it in one commit and returns the
    metrics (num_affected_rows, num_updated_rows, num_deleted_rows, num_inserted_rows)."""

    def __init__(self, table, source, condition):
        self._table = table
        self._source = source
        self._condition = condition
        self._clauses = []
        self._evolution = False

    def _source_sql(self):
        source = self._source
        table_name = getattr(source, "_table_name", None)
        if source._alias:
            qualifier = _quote(source._alias)
        elif table_name is not None:
            return table_name, _Scope({i: None for i in source._lineage})
        else:
            qualifier = "`_source`"
        return "(%s) AS %s" % (source._query, qualifier), _Scope({i: qualifier for i in source._lineage})

    def _add(self, group, condition, action):
        self._clauses.append((group, condition, action))
        return self

    def _assignments(self, mapping, what):
        if not isinstance(mapping, dict) or not mapping:
            raise _error("NOT_DICT", "Argument `%s` should be a non-empty dict." % what, family=PySparkTypeError)
        return mapping

    def whenMatchedUpdate(self, condition=None, set=None):
        return self._add("MATCHED", condition, ("UPDATE", self._assignments(set, "set")))

    def whenMatchedUpdateAll(self, condition=None):
        return self._add("MATCHED", condition, ("UPDATE SET *", None))

    def whenMatchedDelete(self, condition=None):
        return self._add("MATCHED", condition, ("DELETE", None))

    def whenNotMatchedInsert(self, condition=None, values=None):
        return self._add("NOT MATCHED", condition, ("INSERT", self._assignments(values, "values")))

    def whenNotMatchedInsertAll(self, condition=None):
        return self._add("NOT MATCHED", condition, ("INSERT *", None))

    def whenNotMatchedBySourceUpdate(self, condition=None, set=None):
        return self._add("NOT MATCHED BY SOURCE", condition, ("UPDATE", self._assignments(set, "set")))

    def whenNotMatchedBySourceDelete(self, condition=None):
        return self._add("NOT MATCHED BY SOURCE", condition, ("DELETE", None))

    def withSchemaEvolution(self):
        self._evolution = True
        return self

    def _statement(self):
        source_sql, scope = self._source_sql()
        table = self._table
        target_scope = scope
        text = "MERGE %sINTO %s USING %s ON %s" % (
            "WITH SCHEMA EVOLUTION " if self._evolution else "", table._target_sql(), source_sql,
            _expression(self._condition, target_scope, "condition"))
        for group, condition, (kind, mapping) in self._clauses:
            text += " WHEN %s" % group
            if condition is not None:
                text += " AND %s" % _expression(condition, scope, "condition")
            text += " THEN "
            if kind == "UPDATE":
                text += "UPDATE SET " + ", ".join(
                    "%s = %s" % (_target_column(k), _expression(v, scope, "set")) for k, v in mapping.items())
            elif kind == "INSERT":
                text += "INSERT (%s) VALUES (%s)" % (
                    ", ".join(_target_column(k) for k in mapping),
                    ", ".join(_expression(v, scope, "values") for v in mapping.values()))
            else:
                text += kind
        return text

    def execute(self):
        spark = self._table._spark
        batch = self._source._session
        if batch._batch_of_stream and batch is not spark:
            # A foreachBatch batch can only be read by its query's session: the MERGE runs there,
            # with the idempotent-write options of the table's session, which Delta reads.
            return batch._from_result(_execute_with_txn_options(spark, batch, self._statement()))
        return spark._from_result(spark._execute(self._statement()))


_TXN_APP_ID = "spark.databricks.delta.write.txnAppId"
_TXN_VERSION = "spark.databricks.delta.write.txnVersion"
_TXN_AUTO_RESET = "spark.databricks.delta.write.txnVersion.autoReset.enabled"


def _execute_with_txn_options(owner, runner, statement):
    """Runs `statement` on the session `runner` with the txnAppId / txnVersion options of the
    session `owner` when it has them (else `runner`'s own), resetting `owner`'s version after the
    write when its autoReset option asks for that."""
    options = {key: owner._engine.get_conf(key) for key in (_TXN_APP_ID, _TXN_VERSION, _TXN_AUTO_RESET)}
    if options[_TXN_APP_ID] is None and options[_TXN_VERSION] is None:
        return runner._execute(statement)
    for key, value in options.items():
        if value is None:
            runner._engine.sql("RESET %s" % key)
        else:
            runner._engine.set_conf(key, value)
    result = runner._execute(statement)
    if runner._engine.get_conf(_TXN_VERSION) is None:
        owner._engine.sql("RESET %s" % _TXN_VERSION)
    return result


class DeltaOptimizeBuilder:
    """table.optimize().where(...).executeCompaction() / executeZOrderBy(cols)."""

    def __init__(self, table):
        self._table = table
        self._where = None

    def where(self, partitionFilter):
        self._where = partitionFilter
        return self

    def _statement(self):
        statement = "OPTIMIZE %s" % self._table._table
        if self._where:
            statement += " WHERE %s" % self._where
        return statement

    def executeCompaction(self):
        return self._table._result_frame(self._statement())

    def executeZOrderBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        if not cols:
            raise _error("INVALID_PARAMETER_VALUE", "The value of parameter(s) `cols` in `executeZOrderBy` is "
                         "invalid: at least one column is needed.")
        return self._table._result_frame(
            self._statement() + " ZORDER BY (%s)" % ", ".join(_target_column(c) for c in cols))


class IdentityGenerator:
    """An identity column's start and step, for DeltaTableBuilder.addColumn(generatedAlwaysAs=...)."""

    def __init__(self, start=1, step=1):
        if step == 0:
            raise _error("INVALID_PARAMETER_VALUE", "The value of parameter(s) `step` is invalid: "
                         "IDENTITY column step cannot be 0.")
        self.start = start
        self.step = step


class DeltaTableBuilder:
    """Builds CREATE / REPLACE TABLE for a Delta table: tableName or location, columns,
    partitioning, properties, comment; execute() runs it and returns the DeltaTable."""

    def __init__(self, spark, verb):
        self._spark = spark
        self._verb = verb
        self._name = None
        self._location = None
        self._columns = []
        self._partitions = []
        self._cluster_by = []
        self._properties = {}
        self._comment = None

    def tableName(self, identifier):
        if not isinstance(identifier, str):
            raise _error("NOT_STR", "Argument `identifier` should be a str.", family=PySparkTypeError)
        self._name = identifier
        return self

    def location(self, location):
        self._location = location
        return self

    def comment(self, comment):
        self._comment = comment
        return self

    def addColumn(self, colName, dataType, nullable=True, generatedAlwaysAs=None, generatedByDefaultAs=None,
                  comment=None):
        if isinstance(dataType, str):
            dataType = _parse_datatype_string(dataType)
        if not isinstance(dataType, DataType):
            raise _error("NOT_DATATYPE_OR_STR", "Argument `dataType` should be a DataType or str.",
                         family=PySparkTypeError)
        text = "%s %s" % (_quote(colName), _type_sql(dataType))
        if not nullable:
            text += " NOT NULL"
        if isinstance(generatedAlwaysAs, IdentityGenerator):
            text += " GENERATED ALWAYS AS IDENTITY (START WITH %d INCREMENT BY %d)" % (
                generatedAlwaysAs.start, generatedAlwaysAs.step)
        elif generatedAlwaysAs is not None:
            text += " GENERATED ALWAYS AS (%s)" % generatedAlwaysAs
        if isinstance(generatedByDefaultAs, IdentityGenerator):
            text += " GENERATED BY DEFAULT AS IDENTITY (START WITH %d INCREMENT BY %d)" % (
                generatedByDefaultAs.start, generatedByDefaultAs.step)
        if comment is not None:
            text += " COMMENT %s" % _string_sql(comment)
        self._columns.append(text)
        return self

    def addColumns(self, cols):
        if isinstance(cols, StructType):
            cols = cols.fields
        for field in cols:
            if not isinstance(field, StructField):
                raise _error("NOT_STRUCT",
                             "Argument `cols` should be a StructType or a list of StructFields.",
                             family=PySparkTypeError)
            self.addColumn(field.name, field.dataType, field.nullable,
                           comment=(field.metadata or {}).get("comment"))
        return self

    def partitionedBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        self._partitions = list(cols)
        return self

    def clusterBy(self, *cols):
        if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
            cols = cols[0]
        self._cluster_by = list(cols)
        return self

    def property(self, key, value):
        self._properties[key] = value
        return self

    def execute(self):
        if self._name is None and self._location is None:
            raise _error("INVALID_PARAMETER_VALUE",
                         "The value of parameter(s) `tableName, location` is invalid: a table name or a "
                         "location must be given.")
        target = self._name if self._name is not None else "delta.%s" % _quote(self._location)
        statement = "%s %s" % (self._verb, target)
        if self._columns:
            statement += " (%s)" % ", ".join(self._columns)
        statement += " USING delta"
        if self._partitions:
            statement += " PARTITIONED BY (%s)" % ", ".join(_quote(c) for c in self._partitions)
        if self._cluster_by:
            statement += " CLUSTER BY " + _cluster_by_sql(self._cluster_by)
        if self._name is not None and self._location is not None:
            statement += " LOCATION %s" % _string_sql(self._location)
        if self._comment is not None:
            statement += " COMMENT %s" % _string_sql(self._comment)
        if self._properties:
            statement += " TBLPROPERTIES (%s)" % ", ".join(
                "%s = %s" % (_string_sql(k), _string_sql(str(v))) for k, v in self._properties.items())
        self._spark._execute(statement)
        if self._name is not None:
            return DeltaTable(self._spark, self._name, name=self._name)
        return DeltaTable(self._spark, target, path=self._location)
