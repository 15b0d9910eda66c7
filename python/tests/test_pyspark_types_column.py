"""Row, types, Column and functions of silt.sql, against PySpark's docstrings
(pyspark.sql.types, pyspark.sql.Row, pyspark.sql.Column, pyspark.sql.functions)."""

import datetime
import decimal
import json

import pytest

from silt.errors import AnalysisException, PySparkTypeError, PySparkValueError
from silt.sql import Row, functions as F
from silt.sql.types import (
    ArrayType,
    BinaryType,
    BooleanType,
    ByteType,
    CharType,
    DataType,
    DateType,
    DayTimeIntervalType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructField,
    StructType,
    TimestampNTZType,
    TimestampType,
    VarcharType,
    YearMonthIntervalType,
)


def test_row_access_and_as_dict():
    # Row docstring.
    row = Row(name="Alice", age=11)
    assert row == Row(name="Alice", age=11)
    assert row["name"] == "Alice" and row.age == 11 and row[1] == 11
    assert "name" in row and "wrong_key" not in row
    assert repr(row) == "Row(name='Alice', age=11)"
    assert row.asDict() == {"name": "Alice", "age": 11}
    Person = Row("name", "age")
    assert Person("Alice", 11) == Row(name="Alice", age=11)
    nested = Row(key=1, value=Row(name="a", age=2))
    assert nested.asDict(True) == {"key": 1, "value": {"name": "a", "age": 2}}
    with pytest.raises(AttributeError):
        row.missing


def test_type_names_and_json():
    # DataType.simpleString / typeName / json of pyspark.sql.types.
    cases = [
        (LongType(), "bigint", "long"), (IntegerType(), "int", "integer"), (ShortType(), "smallint", "short"),
        (ByteType(), "tinyint", "byte"), (DoubleType(), "double", "double"), (FloatType(), "float", "float"),
        (StringType(), "string", "string"), (BinaryType(), "binary", "binary"),
        (BooleanType(), "boolean", "boolean"), (DateType(), "date", "date"),
        (TimestampType(), "timestamp", "timestamp"), (TimestampNTZType(), "timestamp_ntz", "timestamp_ntz"),
        (NullType(), "void", "void"),
    ]
    for data_type, simple, json_name in cases:
        assert data_type.simpleString() == simple
        assert data_type.json() == json.dumps(json_name)
    assert DecimalType(10, 2).simpleString() == "decimal(10,2)"
    assert DecimalType().jsonValue() == "decimal(10,0)"
    assert DayTimeIntervalType().simpleString() == "interval day to second"
    assert YearMonthIntervalType(0, 0).simpleString() == "interval year"
    assert CharType(3).simpleString() == "char(3)" and VarcharType(4).simpleString() == "varchar(4)"
    schema = StructType([StructField("a", ArrayType(IntegerType(), False)),
                         StructField("m", MapType(StringType(), LongType()), False)])
    assert schema.simpleString() == "struct<a:array<int>,m:map<string,bigint>>"
    assert json.loads(schema.json()) == {
        "type": "struct",
        "fields": [
            {"name": "a", "type": {"type": "array", "elementType": "integer", "containsNull": False},
             "nullable": True, "metadata": {}},
            {"name": "m", "type": {"type": "map", "keyType": "string", "valueType": "long",
                                   "valueContainsNull": True}, "nullable": False, "metadata": {}},
        ],
    }
    assert repr(StructField("id", LongType(), True)) == "StructField('id', LongType(), True)"
    assert LongType() is LongType()


def test_struct_type_access():
    # StructType docstring: add, fieldNames, indexing by name and position.
    schema = StructType().add("a", IntegerType()).add("b", "string", False)
    assert schema.fieldNames() == ["a", "b"]
    assert schema["b"] == StructField("b", StringType(), False)
    assert schema[0].name == "a"
    assert len(schema) == 2
    with pytest.raises(KeyError):
        schema["c"]


def test_from_ddl():
    # DataType.fromDDL docstring (PySpark 4).
    assert DataType.fromDDL("b string, a int") == StructType(
        [StructField("b", StringType()), StructField("a", IntegerType())])
    assert DataType.fromDDL("int") == IntegerType()
    assert DataType.fromDDL("a: array<int>, b: map<string, decimal(5, 2)>") == StructType([
        StructField("a", ArrayType(IntegerType())), StructField("b", MapType(StringType(), DecimalType(5, 2)))])
    assert DataType.fromDDL("s STRUCT<x: INT NOT NULL, `odd name`: STRING>")["s"].dataType == StructType([
        StructField("x", IntegerType(), False), StructField("odd name", StringType())])
    with pytest.raises(Exception) as raised:
        DataType.fromDDL("a nosuchtype")
    assert raised.value.getErrorClass() == "UNSUPPORTED_DATATYPE"


def test_engine_types_round_trip(spark):
    df = spark.sql(
        "SELECT CAST(1 AS TINYINT) a, CAST(1 AS SMALLINT) b, 1 c, 1L d, 1.5F e, 1.5D f, 1.5BD g,"
        " true h, 'x' i, X'01' j, DATE'2024-01-01' k, TIMESTAMP'2024-01-01 00:00:00' l,"
        " TIMESTAMP_NTZ'2024-01-01 00:00:00' m, array(1) n, map('a', 1) o, named_struct('p', 1) q")
    assert [f.dataType.simpleString() for f in df.schema.fields] == [
        "tinyint", "smallint", "int", "bigint", "float", "double", "decimal(2,1)", "boolean", "string",
        "binary", "date", "timestamp", "timestamp_ntz", "array<int>", "map<string,int>", "struct<p:int>"]
    assert isinstance(df.schema["k"].dataType, DateType) and isinstance(df.schema["q"].dataType, StructType)
    row = df.first()
    assert row.j == bytearray(b"\x01")
    assert row.q == Row(p=1)


def test_column_operators_and_names(spark):
    df = spark.createDataFrame([(2, "Alice"), (5, "Bob")], ["age", "name"])
    # Column docstrings: arithmetic, comparison and boolean operators.
    selected = df.select(
        df.age + 1, df.age - 1, df.age * 2, df.age / 2, df.age % 2, -df.age,
        df.age == 2, df.age != 2, (df.age > 2) & (df.age < 10), (df.age < 3) | ~(df.age < 3),
        1 + df.age, 10 - df.age)
    assert selected.columns == [
        "(age + 1)", "(age - 1)", "(age * 2)", "(age / 2)", "(age % 2)", "(- age)", "(age = 2)",
        "(NOT (age = 2))", "((age > 2) AND (age < 10))", "((age < 3) OR (NOT (age < 3)))", "(1 + age)",
        "(10 - age)"]
    assert tuple(selected.first()) == (3, 1, 4, 1.0, 0, -2, True, False, False, True, 3, 8)
    with pytest.raises(ValueError):
        bool(df.age > 1)


def test_column_predicates(spark):
    df = spark.createDataFrame([(2, "Alice", None), (5, "Bob", 1.0)], ["age", "name", "x"])
    assert df.filter(df.name.isin("Bob", "Mike")).count() == 1
    assert df.filter(df.name.isin(["Alice"])).count() == 1
    assert df.filter(df.name.isin([])).count() == 0
    assert df.filter(df.x.isNull()).count() == 1 and df.filter(df.x.isNotNull()).count() == 1
    assert df.select(df.age.between(2, 4).alias("b")).collect() == [Row(b=True), Row(b=False)]
    assert df.filter(df.name.like("Al%")).count() == 1
    assert df.filter(df.name.rlike("ice$")).count() == 1
    assert df.filter(df.name.contains("o")).count() == 1
    assert df.filter(df.name.startswith("Al")).count() == 1
    assert df.filter(df.name.endswith("ob")).count() == 1
    assert df.select(df.x.eqNullSafe(None).alias("n")).collect() == [Row(n=True), Row(n=False)]
    assert df.select(df.name.substr(1, 3).alias("s")).first().s == "Ali"


def test_when_otherwise_cast_alias(spark):
    df = spark.createDataFrame([(2, "Alice"), (5, "Bob")], ["age", "name"])
    # functions.when / Column.otherwise docstrings.
    case = F.when(df.age > 4, 1).when(df.age < 3, -1).otherwise(0)
    assert df.select(df.name, case).columns[1] == "CASE WHEN (age > 4) THEN 1 WHEN (age < 3) THEN -1 ELSE 0 END"
    assert [r[1] for r in df.select(df.name, case).collect()] == [-1, 1]
    assert df.select(F.when(df.age == 2, "two").alias("w")).collect() == [Row(w="two"), Row(w=None)]
    with pytest.raises(TypeError):
        df.age.otherwise(1)
    # Column.cast docstring.
    assert df.select(df.age.cast("string").alias("ages")).collect() == [Row(ages="2"), Row(ages="5")]
    assert df.select(df.age.cast(StringType())).columns == ["CAST(age AS STRING)"]
    assert df.select(df.age.alias("a", )).columns == ["a"]


def test_sort_orders_with_nulls(spark):
    df = spark.createDataFrame([("Tom", 80), (None, 60), ("Alice", None)], ["name", "height"])
    # Column.asc_nulls_first / desc_nulls_last ... docstrings.
    assert [r.name for r in df.sort(df.name.asc()).collect()] == [None, "Alice", "Tom"]
    assert [r.name for r in df.sort(df.name.asc_nulls_last()).collect()] == ["Alice", "Tom", None]
    assert [r.name for r in df.sort(df.name.desc()).collect()] == ["Tom", "Alice", None]
    assert [r.name for r in df.sort(df.name.desc_nulls_first()).collect()] == [None, "Tom", "Alice"]


def test_nested_fields_and_items(spark):
    df = spark.createDataFrame([Row(r=Row(a=1, b="b"), l=[1, 2], d={"key": "value"})])
    # Column.getField / getItem docstrings.
    assert df.select(df.r.getField("b")).first()[0] == "b"
    assert df.select(df.r.getItem("b"), df["r"]["a"]).first() == ("b", 1)
    assert df.select(df.r.a).first()[0] == 1
    assert df.select(df.l.getItem(0), df.d.getItem("key")).first() == (1, "value")
    assert df.select(df.l[1], df.d["key"]).first() == (2, "value")
    assert df.select(F.col("r.b")).first()[0] == "b"


def test_functions(spark):
    df = spark.createDataFrame(
        [("a", 1, 2.5, "2024-01-15"), ("b", None, -1.0, "2024-02-29")], ["s", "n", "x", "d"])
    row = df.select(
        F.coalesce(df.n, F.lit(0)).alias("c"),
        F.concat_ws("-", df.s, df.s).alias("cw"),
        F.upper(df.s).alias("u"),
        F.length("s").alias("len"),
        F.sha2(df.s, 256).alias("h"),
        F.abs(df.x).alias("ab"),
        F.round(df.x, 0).alias("r"),
        F.to_date(df.d).alias("day"),
        F.year(F.to_date(df.d)).alias("y"),
        F.date_format(F.to_date(df.d), "yyyy/MM").alias("f"),
        F.lit(None).alias("nothing"),
        F.array(F.lit(1), F.lit(2)).alias("arr"),
        F.size(F.array(F.lit(1), F.lit(2))).alias("sz"),
        F.struct("s", "n").alias("st"),
        F.greatest(F.lit(1), F.lit(3)).alias("g"),
        F.split(F.lit("a,b"), ",").alias("parts"),
        F.regexp_replace(df.s, "a", "z").alias("re"),
    ).first()
    assert row.c == 1 and row.cw == "a-a" and row.u == "A" and row.len == 1
    assert row.h == "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
    assert row.ab == 2.5 and row.r == 3.0
    assert row.day == datetime.date(2024, 1, 15) and row.y == 2024 and row.f == "2024/01"
    assert row.nothing is None and row.arr == [1, 2] and row.sz == 2
    assert row.st == Row(s="a", n=1) and row.g == 3 and row.parts == ["a", "b"] and row.re == "z"
    assert df.select(F.col("n")).columns == ["n"]
    # "Column or str or int": a string names a column.
    shifted = df.select(F.date_add(F.to_date("d"), "n").alias("a"), F.date_add(F.to_date("d"), 2).alias("b"))
    assert shifted.first() == Row(a=datetime.date(2024, 1, 16), b=datetime.date(2024, 1, 17))
    assert df.select(F.sum("n"), F.count("*"), F.countDistinct("s"), F.avg("x"), F.max("x")).columns == [
        "sum(n)", "count(1)", "count(DISTINCT s)", "avg(x)", "max(x)"]
    assert tuple(df.select(F.sum("n"), F.count("*"), F.countDistinct("s"), F.avg("x"), F.max("x")).first()) == (
        1, 2, 2, 0.75, 2.5)
    assert df.agg(F.collect_list("s").alias("l")).first().l == ["a", "b"]
    with pytest.raises(AnalysisException) as raised:
        df.select(F.call_function("no_such_function", "s"))
    assert raised.value.getErrorClass() == "UNRESOLVED_ROUTINE"


def test_literals_keep_their_types(spark):
    df = spark.range(1).select(
        F.lit(1).alias("i"), F.lit(2 ** 40).alias("l"), F.lit(1.5).alias("d"), F.lit("s").alias("s"),
        F.lit(True).alias("b"), F.lit(decimal.Decimal("1.25")).alias("dec"),
        F.lit(datetime.date(2024, 1, 2)).alias("day"), F.lit(b"\x00\xff").alias("bin"))
    assert df.dtypes == [("i", "int"), ("l", "bigint"), ("d", "double"), ("s", "string"), ("b", "boolean"),
                         ("dec", "decimal(3,2)"), ("day", "date"), ("bin", "binary")]
    assert df.first() == Row(i=1, l=2 ** 40, d=1.5, s="s", b=True, dec=decimal.Decimal("1.25"),
                             day=datetime.date(2024, 1, 2), bin=bytearray(b"\x00\xff"))
    assert spark.range(1).select(F.lit("it's")).first()[0] == "it's"


def test_python_udfs_are_refused(spark):
    with pytest.raises(NotImplementedError) as raised:
        F.udf(lambda x: x)
    assert "UDF" in str(raised.value)


def test_column_argument_errors(spark):
    # DataFrame.withColumn: "col: Column" - anything else is a PySparkTypeError [NOT_COLUMN].
    with pytest.raises(PySparkTypeError) as raised:
        spark.range(1).withColumn("x", 1)
    assert raised.value.getErrorClass() == "NOT_COLUMN"
    with pytest.raises(PySparkValueError):
        spark.range(1).dropna(how="some")


# Engine functions without a PySpark function of the same name.
# The type-named casts (`int(x)`, `date(x)`, ...), the unit-keyword forms (`timestampadd(HOUR,
# ...)`) and `space` are Spark SQL names with no pyspark.sql.functions counterpart.
_NOT_PYSPARK_NAMES = {"if", "map", "mod", "div", "subscript", "bigint", "binary", "boolean", "date",
                      "decimal", "double", "float", "int", "smallint", "string", "timestamp",
                      "tinyint", "timestampadd", "timestampdiff", "timediff", "space"}


def test_every_engine_function_has_its_pyspark_name():
    from silt import _silt

    missing = [name for name in _silt.function_names()
               if name not in _NOT_PYSPARK_NAMES and not hasattr(F, name)]
    assert missing == []


def test_more_functions(spark):
    row = spark.range(1).select(
        F.try_divide(F.lit(1), F.lit(0)).alias("td"),
        F.try_add(F.lit(1), F.lit(2)).alias("ta"),
        F.bit_length(F.lit("ab")).alias("bl"),
        F.position(F.lit("b"), F.lit("abc")).alias("pos"),
        F.extract(F.lit("YEAR"), F.lit(datetime.date(2024, 3, 1))).alias("y"),
    ).first()
    assert row == Row(td=None, ta=3, bl=16, pos=2, y=2024)


def test_sketch_aggregates(spark):
    # The examples of pyspark.sql.functions.count_min_sketch and histogram_numeric.
    row = spark.range(100).select(
        F.hex(F.count_min_sketch(F.col("id"), F.lit(3.0), F.lit(0.1), F.lit(1))).alias("cms"),
        F.hex(F.count_min_sketch("id", 3.0, 0.1, 1)).alias("cms_values"),
    ).first()
    expected = "0000000100000000000000640000000100000001000000005D8D6AB90000000000000064"
    assert row == Row(cms=expected, cms_values=expected)
    df = spark.createDataFrame([(0,), (1,), (2,), (10,)], "col int")
    histogram = df.select(F.histogram_numeric("col", F.lit(5)).alias("h")).first().h
    assert [(bin.x, bin.y) for bin in histogram] == [(0, 1.0), (1, 1.0), (2, 1.0), (10, 1.0)]


def test_functions_of_spark_3_4_to_4_0(spark):
    # Examples from the pyspark.sql.functions docstrings of each function.
    row = spark.range(1).select(
        F.array_append(F.array(F.lit(1), F.lit(2)), 3).alias("aa"),
        F.array_insert(F.array(F.lit("a"), F.lit("b")), 2, "x").alias("ai"),
        F.split_part(F.lit("11.12.13"), F.lit("."), F.lit(3)).alias("sp"),
        F.format_number(F.lit(5.0), 4).alias("fn"),
        F.levenshtein(F.lit("kitten"), F.lit("sitting")).alias("lv"),
        F.mask(F.lit("AbCD123-@$#")).alias("mk"),
        F.make_ym_interval(F.lit(2)).alias("ym"),
        F.width_bucket(F.lit(5.3), F.lit(0.2), F.lit(10.6), 5).alias("wb"),
        F.str_to_map(F.lit("a:1,b:2")).alias("sm"),
        F.from_csv(F.lit("1,abc"), "a INT, b STRING").alias("fc"),
        F.schema_of_csv(F.lit("1,abc")).alias("sc"),
    ).first()
    assert row.aa == [1, 2, 3]
    assert row.ai == ["a", "x", "b"]
    assert row.sp == "13"
    assert row.fn == "5.0000"
    assert row.lv == 3
    assert row.mk == "XxXXnnn-@$#"
    assert row.wb == 3
    assert row.sm == {"a": "1", "b": "2"}
    assert row.fc.a == 1 and row.fc.b == "abc"
    assert row.sc == "STRUCT<_c0: INT, _c1: STRING>"
