"""spark.catalog: the databases and tables of the session's warehouse, as pyspark.sql.Catalog."""

from collections import namedtuple

from silt.errors import AnalysisException, _error
from silt.sql.column import _quote, _string_sql

__all__ = ["Catalog", "Database", "Table", "Column"]

Database = namedtuple("Database", "name catalog description locationUri")
Table = namedtuple("Table", "name catalog namespace description tableType isTemporary")
Column = namedtuple("Column", "name description dataType nullable isPartition isBucket isCluster")

_CATALOG = "spark_catalog"


def _name_sql(name):
    parts = name.split(".")
    if all(part.isidentifier() for part in parts):
        return ".".join(_quote(part) for part in parts)
    return name


class Catalog:
    def __init__(self, session):
        self._session = session

    def _rows(self, statement):
        result = self._session._execute(statement)
        return result.columns, result.rows()

    def currentCatalog(self):
        return _CATALOG

    def setCurrentCatalog(self, catalogName):
        if catalogName != _CATALOG:
            raise _error("UNSUPPORTED_FEATURE",
                         "The feature is not supported: catalogs other than spark_catalog.")

    def listCatalogs(self, pattern=None):
        return [namedtuple("CatalogMetadata", "name description")(_CATALOG, None)]

    def currentDatabase(self):
        return self._session._current_database

    def setCurrentDatabase(self, dbName):
        self._session._execute("USE %s" % _quote(dbName))
        self._session._current_database = dbName

    def listDatabases(self, pattern=None):
        statement = "SHOW DATABASES" + (" LIKE %s" % _string_sql(pattern) if pattern else "")
        _, rows = self._rows(statement)
        return [Database(name=row[0], catalog=_CATALOG, description=None, locationUri=None) for row in rows]

    def databaseExists(self, dbName):
        return any(d.name.lower() == dbName.lower() for d in self.listDatabases())

    def listTables(self, dbName=None, pattern=None):
        statement = "SHOW TABLES"
        if dbName:
            statement += " IN %s" % _quote(dbName)
        if pattern:
            statement += " LIKE %s" % _string_sql(pattern)
        columns, rows = self._rows(statement)
        index = {name: i for i, name in enumerate(columns)}
        tables = []
        for row in rows:
            namespace = row[index["namespace"]] if "namespace" in index else (dbName or self.currentDatabase())
            name = row[index["tableName"]] if "tableName" in index else row[0]
            temporary = bool(row[index["isTemporary"]]) if "isTemporary" in index else False
            tables.append(Table(
                name=name,
                catalog=None if temporary else _CATALOG,
                namespace=[] if temporary or not namespace else [namespace],
                description=None,
                tableType="TEMPORARY" if temporary else "MANAGED",
                isTemporary=temporary,
            ))
        return tables

    def tableExists(self, tableName, dbName=None):
        name = "%s.%s" % (_quote(dbName), _quote(tableName)) if dbName else _name_sql(tableName)
        try:
            self._session._analyze("SELECT * FROM %s" % name)
        except AnalysisException as error:
            if error.getErrorClass() in ("TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND"):
                return False
            raise
        return True

    def listColumns(self, tableName, dbName=None):
        name = "%s.%s" % (_quote(dbName), _quote(tableName)) if dbName else _name_sql(tableName)
        schema = self._session._analyze("SELECT * FROM %s" % name)
        partitions = set()
        clustering = set()
        try:
            detail = self._session._execute("DESCRIBE DETAIL %s" % name)
            names = detail.columns
            if "partitionColumns" in names:
                partitions = set(detail.rows()[0][names.index("partitionColumns")] or [])
            if "clusteringColumns" in names:
                clustering = set(detail.rows()[0][names.index("clusteringColumns")] or [])
        except AnalysisException:
            pass
        return [Column(name=f.name, description=None, dataType=f.dataType.simpleString(),
                       nullable=f.nullable, isPartition=f.name in partitions, isBucket=False,
                       isCluster=f.name in clustering) for f in schema.fields]

    def dropTempView(self, viewName):
        exists = self.tableExists(viewName)
        self._session._execute("DROP VIEW IF EXISTS %s" % _quote(viewName))
        return exists

    def dropGlobalTempView(self, viewName):
        return self.dropTempView(viewName)

    def createTable(self, tableName, path=None, source=None, schema=None, description=None, **options):
        from silt.sql.types import _type_sql

        if schema is None:
            raise _error("INVALID_PARAMETER_VALUE",
                         "The value of parameter(s) `schema` in `createTable` is invalid: silt needs the schema.")
        columns = ", ".join("%s %s%s" % (_quote(f.name), _type_sql(f.dataType), "" if f.nullable else " NOT NULL")
                            for f in schema.fields)
        statement = "CREATE TABLE %s (%s) USING %s" % (_name_sql(tableName), columns, source or "delta")
        if path:
            statement += " LOCATION %s" % _string_sql(path)
        if description:
            statement += " COMMENT %s" % _string_sql(description)
        self._session._execute(statement)
        return self._session.table(_name_sql(tableName))

    def isCached(self, tableName):
        return False

    def cacheTable(self, tableName, storageLevel=None):
        pass

    def uncacheTable(self, tableName):
        pass

    def clearCache(self):
        pass

    def refreshTable(self, tableName):
        pass

    def refreshByPath(self, path):
        pass
