"""SparkSession, RuntimeConfig and Catalog of silt.sql, against PySpark's documented behaviour
(pyspark.sql.SparkSession, pyspark.sql.conf.RuntimeConfig, pyspark.sql.Catalog docstrings)."""

import datetime
import decimal
import os

import pytest

from silt.errors import AnalysisException, ParseException, SparkNoSuchElementException
from silt.sql import DataFrame, Row, SparkSession
from silt.sql.types import (
    ArrayType,
    BinaryType,
    ByteType,
    DateType,
    DecimalType,
    DoubleType,
    IntegerType,
    LongType,
    MapType,
    StringType,
    StructField,
    StructType,
    TimestampType,
)


def test_builder_options_become_session_options(warehouse):
    # SparkSession.builder docstring: builder.appName(...).config(key, value).getOrCreate().
    spark = (
        SparkSession.builder.appName("app")
        .config("spark.sql.warehouse.dir", str(warehouse))
        .config("spark.sql.session.timeZone", "Asia/Tokyo")
        .config(map={"spark.some.option": True})
        .create()
    )
    try:
        assert spark.conf.get("spark.app.name") == "app"
        assert spark.conf.get("spark.sql.session.timeZone") == "Asia/Tokyo"
        assert spark.conf.get("spark.some.option") == "true"
        assert spark.conf.get("spark.sql.warehouse.dir") == str(warehouse)
    finally:
        spark.stop()


def test_get_or_create_returns_the_active_session(spark):
    # getOrCreate: "gets an existing SparkSession or, if there is no existing one, creates a
    # new one"; options of the builder are set on the existing session.
    again = SparkSession.builder.config("spark.extra", "1").getOrCreate()
    assert again is spark
    assert spark.conf.get("spark.extra") == "1"
    assert SparkSession.getActiveSession() is spark
    spark.stop()
    assert SparkSession.getActiveSession() is None


def test_warehouse_comes_from_silt_warehouse_when_not_configured(tmp_path, monkeypatch):
    monkeypatch.setenv("SILT_WAREHOUSE", str(tmp_path / "from-env"))
    spark = SparkSession.builder.create()
    try:
        spark.sql("CREATE TABLE t (id INT)")
        assert (tmp_path / "from-env" / "t" / "_delta_log").is_dir()
    finally:
        spark.stop()


def test_conf_set_get_and_defaults(spark):
    # RuntimeConfig docstring: set(key, value), get(key, default); a missing key without a
    # default raises SparkNoSuchElementException [SQL_CONF_NOT_FOUND].
    spark.conf.set("spark.my.key", "v")
    assert spark.conf.get("spark.my.key") == "v"
    assert spark.conf.get("spark.missing.key", "fallback") == "fallback"
    with pytest.raises(SparkNoSuchElementException) as raised:
        spark.conf.get("spark.missing.key")
    assert raised.value.getErrorClass() == "SQL_CONF_NOT_FOUND"
    spark.conf.set("spark.sql.ansi.enabled", False)
    assert spark.conf.get("spark.sql.ansi.enabled") == "false"
    assert spark.conf.getAll["spark.my.key"] == "v"


def test_sql_query_is_lazy_and_statements_run_at_once(spark):
    # SparkSession.sql docstring: returns a DataFrame; DDL runs when called.
    created = spark.sql("CREATE TABLE people (id BIGINT, name STRING)")
    assert isinstance(created, DataFrame)
    assert created.collect() == []
    spark.sql("INSERT INTO people VALUES (1, 'Ada'), (2, 'Linus')")
    df = spark.sql("SELECT * FROM people WHERE id > 1")
    spark.sql("INSERT INTO people VALUES (3, 'Grace')")
    # The query runs when collected, so it sees the later insert.
    assert df.orderBy("id").collect() == [Row(id=2, name="Linus"), Row(id=3, name="Grace")]
    commented = spark.sql("SELECT id FROM people -- the people\n WHERE id = 1 -- only Ada")
    assert commented.select("id").collect() == [Row(id=1)]
    shown = spark.sql("SHOW TABLES")
    assert "tableName" in shown.columns


def test_rows_of_statements_become_dataframes(spark):
    # Statements that are not queries give their rows as a DataFrame; many rows (DESCRIBE of a
    # table of 1,200 columns) reach the engine as columns.
    spark.sql("CREATE TABLE wide (%s)" % ", ".join("c%d INT" % i for i in range(1200)))
    described = spark.sql("DESCRIBE wide")
    assert "parquet." in described._query
    assert described.count() == 1200
    assert described.filter("col_name = 'c1199'").first().data_type == "int"
    spark.sql("CREATE TABLE few (id INT)")
    assert "VALUES" in spark.sql("DESCRIBE few")._query


def test_sql_named_and_positional_parameters(spark):
    # SparkSession.sql docstring: args as a dict binds :name markers, as a list binds ?.
    df = spark.sql("SELECT * FROM range(10) WHERE id > :low AND id < :high", args={"low": 3, "high": 6})
    assert [row.id for row in df.collect()] == [4, 5]
    df = spark.sql("SELECT ? AS a, ? AS b, ':not_a_marker' AS c", args=[1, "x'y"])
    assert df.collect() == [Row(a=1, b="x'y", c=":not_a_marker")]
    with pytest.raises(AnalysisException) as raised:
        spark.sql("SELECT :missing", args={"other": 1})
    assert raised.value.getErrorClass() == "UNBOUND_SQL_PARAMETER"


def test_sql_formats_dataframes_by_keyword(spark):
    # SparkSession.sql docstring: spark.sql("SELECT * FROM {df}", df=mydf).
    mydf = spark.range(3)
    assert spark.sql("SELECT sum(id) AS s FROM {df}", df=mydf).first().s == 3


def test_sql_errors_are_pyspark_classes(spark):
    with pytest.raises(ParseException) as raised:
        spark.sql("SELEC 1")
    assert raised.value.getErrorClass() == "PARSE_SYNTAX_ERROR"
    assert raised.value.getSqlState() == "42601"
    with pytest.raises(AnalysisException) as raised:
        spark.sql("SELECT * FROM missing_table")
    assert raised.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"


def test_range(spark):
    # SparkSession.range docstring: spark.range(1, 7, 2) has ids 1, 3, 5; spark.range(3)
    # ids 0..2; the column is id bigint.
    assert spark.range(1, 7, 2).collect() == [Row(id=1), Row(id=3), Row(id=5)]
    df = spark.range(3)
    assert df.dtypes == [("id", "bigint")]
    assert df.count() == 3


def test_table_reads_a_named_table(spark):
    spark.sql("CREATE TABLE t (id INT, s STRING)")
    spark.sql("INSERT INTO t VALUES (1, 'a')")
    assert spark.table("t").collect() == [Row(id=1, s="a")]
    with pytest.raises(AnalysisException):
        spark.table("nope")


def test_create_data_frame_from_tuples_with_column_names(spark):
    # createDataFrame docstring: a list of tuples with a list of column names; Python ints
    # infer as bigint, strings as string.
    df = spark.createDataFrame([("Alice", 1)], ["name", "age"])
    assert df.dtypes == [("name", "string"), ("age", "bigint")]
    assert df.collect() == [Row(name="Alice", age=1)]


def test_create_data_frame_infers_from_tuples_dicts_and_rows(spark):
    assert spark.createDataFrame([(1, 2.5)]).columns == ["_1", "_2"]
    # A nested tuple is a struct, a list an array (PySpark's _infer_type).
    nested = spark.createDataFrame([(1, (2, "x"), [3])])
    assert nested.schema.simpleString() == "struct<_1:bigint,_2:struct<_1:bigint,_2:string>,_3:array<bigint>>"
    assert nested.first()[1] == Row(_1=2, _2="x")
    # Dicts: PySpark orders the inferred fields by name.
    df = spark.createDataFrame([{"name": "Alice", "age": 1}])
    assert df.columns == ["age", "name"]
    df = spark.createDataFrame([Row(name="Alice", age=1), Row(name="Bob", age=None)])
    assert df.collect() == [Row(name="Alice", age=1), Row(name="Bob", age=None)]
    assert df.schema == StructType(
        [StructField("name", StringType(), True), StructField("age", LongType(), True)])


def test_create_data_frame_with_ddl_and_struct_type(spark):
    # createDataFrame docstring: schema as a DDL string ("a: string, b: int") or StructType.
    df = spark.createDataFrame([("Alice", 1)], "name: string, age: int")
    assert df.dtypes == [("name", "string"), ("age", "int")]
    schema = StructType([
        StructField("d", DecimalType(5, 2)),
        StructField("day", DateType()),
        StructField("tags", ArrayType(StringType())),
        StructField("m", MapType(StringType(), IntegerType())),
        StructField("s", StructType([StructField("x", DoubleType())])),
    ])
    rows = [(decimal.Decimal("1.50"), datetime.date(2024, 2, 29), ["a", None], {"k": 1}, Row(x=0.5))]
    df = spark.createDataFrame(rows, schema)
    assert df.schema.simpleString() == (
        "struct<d:decimal(5,2),day:date,tags:array<string>,m:map<string,int>,s:struct<x:double>>")
    (row,) = df.collect()
    assert row.d == decimal.Decimal("1.50") and str(row.d) == "1.50"
    assert row.day == datetime.date(2024, 2, 29)
    assert row.tags == ["a", None]
    assert row.m == {"k": 1}
    assert row.s == Row(x=0.5) and row.s.x == 0.5


def test_created_columns_stay_as_nullable_as_their_schema(spark):
    # PySpark's inferred schemas are nullable; the columns stay so through transformations.
    df = spark.createDataFrame([(1, "a")], ["id", "k"]).select("id", "k")
    assert [f.nullable for f in df.schema.fields] == [True, True]
    strict = spark.createDataFrame([(1, "a")], "id BIGINT NOT NULL, k STRING").select("*")
    assert [f.nullable for f in strict.schema.fields] == [False, True]


def test_create_data_frame_of_one_atomic_type(spark):
    # createDataFrame docstring: spark.createDataFrame([1, 2], "int") has one column "value".
    df = spark.createDataFrame([1, 2], "int")
    assert df.collect() == [Row(value=1), Row(value=2)]


def test_create_data_frame_verifies_python_types(spark):
    # verifySchema=True (the default): a value of the wrong Python type is a TypeError.
    with pytest.raises(TypeError) as raised:
        spark.createDataFrame([("a",)], "x INT")
    assert raised.value.getErrorClass() == "FIELD_DATA_TYPE_UNACCEPTABLE"
    with pytest.raises(ValueError):
        spark.createDataFrame([], None)


def test_create_data_frame_with_empty_data_and_a_schema(spark):
    df = spark.createDataFrame([], "a INT, b STRING")
    assert df.collect() == []
    assert df.columns == ["a", "b"]


def test_timestamps_are_local_time_as_in_pyspark(spark, monkeypatch):
    # PySpark's TimestampType converts naive datetimes as local time both ways.
    value = datetime.datetime(2024, 3, 1, 12, 30, 15, 250000)
    df = spark.createDataFrame([(value,)], StructType([StructField("ts", TimestampType())]))
    assert df.first().ts == value


def test_catalog(spark):
    # Catalog docstrings: listDatabases, setCurrentDatabase, listTables, tableExists.
    spark.sql("CREATE DATABASE sales")
    assert {d.name for d in spark.catalog.listDatabases()} >= {"default", "sales"}
    spark.catalog.setCurrentDatabase("sales")
    assert spark.catalog.currentDatabase() == "sales"
    spark.sql("CREATE TABLE orders (id INT)")
    spark.range(1).createOrReplaceTempView("tmp_view")
    tables = {t.name: t for t in spark.catalog.listTables()}
    assert tables["orders"].tableType == "MANAGED" and not tables["orders"].isTemporary
    assert tables["tmp_view"].isTemporary
    assert spark.catalog.tableExists("orders")
    assert spark.catalog.tableExists("orders", "sales")
    assert not spark.catalog.tableExists("nothing")
    spark.catalog.setCurrentDatabase("default")
    assert not spark.catalog.tableExists("orders")
    assert spark.catalog.tableExists("sales.orders")
    columns = spark.catalog.listColumns("sales.orders")
    assert [(c.name, c.dataType) for c in columns] == [("id", "int")]


def test_large_local_data_reaches_the_engine_as_columns(spark):
    # From 1,000 rows on, createDataFrame writes the values with silt's Parquet writer instead
    # of a VALUES list; every type keeps its exact value.
    schema = StructType([
        StructField("b", ByteType()), StructField("d", DecimalType(20, 4)), StructField("day", DateType()),
        StructField("ts", TimestampType()), StructField("tags", ArrayType(StringType())),
        StructField("m", MapType(StringType(), LongType())), StructField("s", StructType([StructField("x", DoubleType())])),
        StructField("bin", BinaryType()),
    ])
    rows = [(i % 100, decimal.Decimal("%d.0125" % i), datetime.date(2024, 1, 1) + datetime.timedelta(i),
             datetime.datetime(2024, 1, 1, 12, 0, 0, i), ["a", None] if i % 2 else None, {"k": i}, Row(x=i / 4),
             bytes([i % 256])) for i in range(1500)]
    df = spark.createDataFrame(rows, schema)
    assert "parquet." in df._query
    assert df.schema.simpleString() == (
        "struct<b:tinyint,d:decimal(20,4),day:date,ts:timestamp,tags:array<string>,m:map<string,bigint>,"
        "s:struct<x:double>,bin:binary>")
    assert df.select("*").schema.simpleString() == df.schema.simpleString()
    back = df.orderBy("day").collect()
    assert back[1499] == Row(b=99, d=decimal.Decimal("1499.0125"), day=datetime.date(2028, 2, 8),
                             ts=datetime.datetime(2024, 1, 1, 12, 0, 0, 1499), tags=["a", None], m={"k": 1499},
                             s=Row(x=374.75), bin=bytearray(b"\xdb"))
    assert back[0].tags is None
    with pytest.raises(TypeError):
        spark.createDataFrame([("x",)] * 1500, "a INT")
    with pytest.raises(ValueError):
        spark.createDataFrame([(1000,)] * 1500, "a TINYINT")
    for bad in (decimal.Decimal("NaN"), decimal.Decimal("1E+10")):
        with pytest.raises(Exception) as raised:
            spark.createDataFrame([(bad,)] * 1500, "d DECIMAL(5, 2)")
        assert raised.value.getErrorClass() == "NUMERIC_VALUE_OUT_OF_RANGE"
    # The files go with the session.
    folder = spark._local_data[0]
    assert os.listdir(folder)
    spark.stop()
    assert not os.path.exists(folder)
