"""DataFrame transformations and actions of silt.sql, against the examples of PySpark's
pyspark.sql.DataFrame docstrings (cited per test)."""

import pytest

from silt.errors import (AnalysisException, ArithmeticException, IllegalArgumentException, PySparkAttributeError,
                         PySparkTypeError, PySparkValueError)
from silt.sql import Row, Window, functions as F


@pytest.fixture
def people(spark):
    # The frame of many DataFrame docstrings.
    return spark.createDataFrame([(14, "Tom"), (23, "Alice"), (16, "Bob")], ["age", "name"])


def test_show_prints_sparks_table(people, capsys):
    # DataFrame.show docstring.
    people.show()
    assert capsys.readouterr().out == (
        "+---+-----+\n"
        "|age| name|\n"
        "+---+-----+\n"
        "| 14|  Tom|\n"
        "| 23|Alice|\n"
        "| 16|  Bob|\n"
        "+---+-----+\n"
        "\n"
    )
    people.show(2)
    assert capsys.readouterr().out == (
        "+---+-----+\n"
        "|age| name|\n"
        "+---+-----+\n"
        "| 14|  Tom|\n"
        "| 23|Alice|\n"
        "+---+-----+\n"
        "only showing top 2 rows\n"
        "\n"
    )
    people.show(truncate=3)
    assert capsys.readouterr().out == (
        "+---+----+\n"
        "|age|name|\n"
        "+---+----+\n"
        "| 14| Tom|\n"
        "| 23| Ali|\n"
        "| 16| Bob|\n"
        "+---+----+\n"
        "\n"
    )


def test_show_vertical(people, capsys):
    # DataFrame.show docstring: show(vertical=True).
    people.show(vertical=True)
    assert capsys.readouterr().out == (
        "-RECORD 0-----\n"
        " age  | 14    \n"
        " name | Tom   \n"
        "-RECORD 1-----\n"
        " age  | 23    \n"
        " name | Alice \n"
        "-RECORD 2-----\n"
        " age  | 16    \n"
        " name | Bob   \n"
        "\n"
    )
    people.limit(0).show(vertical=True)
    assert capsys.readouterr().out == "(0 rows)\n\n"


def test_schema_columns_dtypes_and_print_schema(people, capsys):
    # DataFrame.printSchema / dtypes / columns docstrings.
    assert people.columns == ["age", "name"]
    assert people.dtypes == [("age", "bigint"), ("name", "string")]
    people.printSchema()
    assert capsys.readouterr().out == (
        "root\n |-- age: long (nullable = true)\n |-- name: string (nullable = true)\n\n")
    assert repr(people) == "DataFrame[age: bigint, name: string]"


def test_collect_take_first_head_count(people):
    # DataFrame.collect / take / first / head / count docstrings.
    assert people.collect() == [Row(age=14, name="Tom"), Row(age=23, name="Alice"), Row(age=16, name="Bob")]
    assert people.take(2) == [Row(age=14, name="Tom"), Row(age=23, name="Alice")]
    assert people.first() == Row(age=14, name="Tom")
    assert people.head() == Row(age=14, name="Tom")
    assert people.head(1) == [Row(age=14, name="Tom")]
    assert people.count() == 3
    assert not people.isEmpty()
    assert people.filter("age > 100").isEmpty()
    assert list(people.toLocalIterator()) == people.collect()
    assert people.tail(1) == [Row(age=16, name="Bob")]


def test_select_forms(people):
    # DataFrame.select docstring: select("*"), select("name", "age"), select(df.name,
    # (df.age + 10).alias("age")).
    assert people.select("*").collect() == people.collect()
    assert people.select("name", "age").columns == ["name", "age"]
    df = people.select(people.name, (people.age + 10).alias("age"))
    assert df.collect() == [Row(name="Tom", age=24), Row(name="Alice", age=33), Row(name="Bob", age=26)]
    # Unaliased expressions are named as Spark names them.
    assert people.select(people.age + 1, F.col("age") * 2).columns == ["(age + 1)", "(age * 2)"]
    assert people.select(people["name"], people[0]).columns == ["name", "age"]


def test_select_expr_and_expr(people):
    # DataFrame.selectExpr docstring: selectExpr("age * 2", "abs(age)").
    assert people.selectExpr("age * 2", "abs(age)").collect()[0] == Row(**{"(age * 2)": 28, "abs(age)": 14})
    assert people.select(F.expr("length(name)").alias("n")).first().n == 3


def test_filter_and_where(people):
    # DataFrame.filter docstring.
    assert people.filter(people.age > 15).count() == 2
    assert people.where(people.age == 23).collect() == [Row(age=23, name="Alice")]
    assert people.filter("age > 15").count() == 2
    assert people[people.age < 15].collect() == [Row(age=14, name="Tom")]


def test_with_column_and_renames(people):
    # DataFrame.withColumn / withColumns / withColumnRenamed / drop docstrings.
    df = people.withColumn("age2", people.age + 2)
    assert df.columns == ["age", "name", "age2"]
    assert df.first() == Row(age=14, name="Tom", age2=16)
    # An existing name is replaced in place.
    assert people.withColumn("age", F.col("age") * 10).first() == Row(age=140, name="Tom")
    df = people.withColumns({"age2": people.age + 2, "age3": people.age + 3})
    assert df.columns == ["age", "name", "age2", "age3"]
    assert people.withColumnRenamed("age", "age2").columns == ["age2", "name"]
    assert people.withColumnRenamed("missing", "x").columns == ["age", "name"]
    assert people.withColumnsRenamed({"age": "a", "name": "n"}).columns == ["a", "n"]
    assert people.drop("age").columns == ["name"]
    assert people.drop(people.age).columns == ["name"]
    assert people.drop("missing").columns == ["age", "name"]
    assert people.toDF("f1", "f2").columns == ["f1", "f2"]


def test_attribute_and_item_access(people):
    assert people.select(people.name).columns == ["name"]
    with pytest.raises(AttributeError) as raised:
        people.nope
    assert isinstance(raised.value, PySparkAttributeError)
    with pytest.raises(AnalysisException) as raised:
        people["nope"]
    assert raised.value.getErrorClass() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_unknown_columns_fail_when_the_dataframe_is_made(people):
    # Spark analyses eagerly: select of a missing column raises at once.
    with pytest.raises(AnalysisException) as raised:
        people.select("nope")
    assert raised.value.getErrorClass() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"
    assert "nope" in raised.value.getMessageParameters()["objectName"]
    for transform in (lambda: people.filter("nope > 1"), lambda: people.orderBy("nope"),
                      lambda: people.dropDuplicates(["nope"]), lambda: people.groupBy("nope").count(),
                      lambda: people.withColumn("x", F.col("nope"))):
        with pytest.raises(AnalysisException):
            transform()


def test_join_on_every_form_and_type(spark):
    # DataFrame.join docstring.
    df = spark.createDataFrame([Row(name="Alice", age=2), Row(name="Bob", age=5)])
    df2 = spark.createDataFrame([Row(name="Tom", height=80), Row(name="Bob", height=85)])
    df3 = spark.createDataFrame([Row(name="Alice", age=10, height=80), Row(name="Bob", age=5, height=None),
                                 Row(name="Tom", age=None, height=80)])
    # on a string: one name column (USING).
    assert df.join(df2, "name").select(df.name, df2.height).collect() == [Row(name="Bob", height=85)]
    # outer join on a Column, with columns of both sides.
    rows = df.join(df2, df.name == df2.name, "outer").select(df.name, df2.height) \
        .sort(F.desc("name")).collect()
    assert rows == [Row(name="Bob", height=85), Row(name="Alice", height=None), Row(name=None, height=80)]
    # a list of names.
    rows = df.join(df3, ["name", "age"]).select(df.name, df.age).collect()
    assert rows == [Row(name="Bob", age=5)]
    # a list of Columns is their conjunction.
    rows = df.join(df3, [df.name == df3.name, df.age == df3.age], "left").select(df.name, df3.height) \
        .orderBy("name").collect()
    assert rows == [Row(name="Alice", height=None), Row(name="Bob", height=None)]
    assert df.join(df2, "name", "left_semi").collect() == [Row(name="Bob", age=5)]
    assert df.join(df2, "name", "anti").collect() == [Row(name="Alice", age=2)]
    assert df.join(df2, "name", "right").orderBy("name").select("name").collect() == [
        Row(name="Bob"), Row(name="Tom")]
    assert df.crossJoin(df2.select("height")).count() == 4
    with pytest.raises(Exception) as raised:
        df.join(df2, "name", "sideways")
    assert raised.value.getErrorClass() == "UNSUPPORTED_JOIN_TYPE"


def test_join_keeps_both_sides_columns_apart(spark):
    left = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "v"])
    right = spark.createDataFrame([(1, "x"), (3, "y")], ["id", "v"])
    joined = left.join(right, left.id == right.id, "full_outer")
    assert joined.columns == ["id", "v", "id", "v"]
    rows = joined.select(left.id.alias("l"), right.v.alias("rv")).orderBy(F.col("l").asc_nulls_last()).collect()
    assert rows == [Row(l=1, rv="x"), Row(l=2, rv=None), Row(l=None, rv="y")]
    # drop(right.id) removes only the right side's id.
    assert left.join(right, left.id == right.id).drop(right.id).columns == ["id", "v", "v"]
    # aliases qualify columns in strings.
    rows = left.alias("l").join(right.alias("r"), F.col("l.id") == F.col("r.id")) \
        .select("l.v", F.col("r.v").alias("rv")).collect()
    assert rows == [Row(v="a", rv="x")]
    filtered = left.join(right, "id").filter(right.v == "x").select(left.v)
    assert filtered.collect() == [Row(v="a")]


def test_group_by_and_agg(spark):
    # GroupedData.agg docstring.
    df = spark.createDataFrame([(2, "Alice"), (3, "Alice"), (5, "Bob"), (10, "Bob")], ["age", "name"])
    rows = df.groupBy(df.name).agg({"*": "count"}).sort("name").collect()
    assert rows == [Row(name="Alice", **{"count(1)": 2}), Row(name="Bob", **{"count(1)": 2})]
    rows = df.groupBy(df.name).agg(F.min(df.age)).sort("name").collect()
    assert rows == [Row(name="Alice", **{"min(age)": 2}), Row(name="Bob", **{"min(age)": 5})]
    assert df.groupBy("name").agg({"age": "max"}).orderBy("name").columns == ["name", "max(age)"]
    assert df.groupBy("name").count().orderBy("name").collect() == [
        Row(name="Alice", count=2), Row(name="Bob", count=2)]
    assert df.groupBy().avg("age").collect() == [Row(**{"avg(age)": 5.0})]
    assert df.groupBy("name").sum().orderBy("name").collect() == [
        Row(name="Alice", **{"sum(age)": 5}), Row(name="Bob", **{"sum(age)": 15})]
    assert df.agg(F.max("age").alias("oldest")).collect() == [Row(oldest=10)]
    assert df.groupBy("name").mean("age").orderBy("name").first()[1] == 2.5


def test_pivot(spark):
    # GroupedData.pivot docstring: the earnings per year and course.
    df = spark.createDataFrame(
        [("dotNET", 2012, 10000), ("Java", 2012, 20000), ("dotNET", 2012, 5000),
         ("dotNET", 2013, 48000), ("Java", 2013, 30000)],
        ["course", "year", "earnings"])
    rows = df.groupBy("year").pivot("course", ["dotNET", "Java"]).sum("earnings").orderBy("year").collect()
    assert rows == [Row(year=2012, dotNET=15000, Java=20000), Row(year=2013, dotNET=48000, Java=30000)]
    # Without values, the distinct values in order.
    assert df.groupBy("year").pivot("course").sum("earnings").columns == ["year", "Java", "dotNET"]


def test_rollup_and_cube(spark):
    df = spark.createDataFrame([(2, "Alice"), (5, "Bob")], ["age", "name"])
    try:
        rows = df.rollup("name").agg(F.count("*").alias("n")).orderBy(F.col("name").asc_nulls_first()).collect()
    except AnalysisException as refused:
        pytest.skip("the SQL engine does not run ROLLUP yet: %s" % refused)
    assert rows == [Row(name=None, n=2), Row(name="Alice", n=1), Row(name="Bob", n=1)]
    # Sets (name, age), (name), (age) and (): 2 + 2 + 2 + 1 rows.
    assert df.cube("name", "age").count().count() == 7


def test_order_by(people):
    # DataFrame.sort / orderBy docstrings.
    assert [r.age for r in people.sort(people.age.desc()).collect()] == [23, 16, 14]
    assert [r.age for r in people.orderBy("age", ascending=False).collect()] == [23, 16, 14]
    assert [r.age for r in people.sort(F.asc("age")).collect()] == [14, 16, 23]
    assert [r.name for r in people.orderBy(["age", "name"], ascending=[0, 1]).collect()] == ["Alice", "Bob", "Tom"]
    # The order survives later projections.
    assert [r.name for r in people.orderBy("age").select("name").collect()] == ["Tom", "Bob", "Alice"]


def test_limit_distinct_drop_duplicates(spark):
    # DataFrame.dropDuplicates docstring.
    df = spark.createDataFrame([Row(name="Alice", age=5, height=80), Row(name="Alice", age=5, height=80),
                                Row(name="Alice", age=10, height=80)])
    assert df.dropDuplicates().count() == 2
    assert df.distinct().count() == 2
    rows = df.dropDuplicates(["name", "height"]).collect()
    assert len(rows) == 1 and rows[0].name == "Alice"
    assert df.limit(1).count() == 1
    assert df.drop_duplicates(["age"]).count() == 2


def test_set_operations(spark):
    # union / unionByName / intersect / exceptAll / subtract docstrings.
    df1 = spark.createDataFrame([("a", 1), ("a", 1), ("b", 3), ("c", 4)], ["C1", "C2"])
    df2 = spark.createDataFrame([("a", 1), ("a", 1), ("b", 3)], ["C1", "C2"])
    assert df1.union(df2).count() == 7
    assert df1.exceptAll(df2).collect() == [Row(C1="c", C2=4)]
    assert df1.subtract(df2).collect() == [Row(C1="c", C2=4)]
    assert sorted(df1.intersect(df2).collect()) == [Row(C1="a", C2=1), Row(C1="b", C2=3)]
    assert df1.intersectAll(df2).count() == 3
    a = spark.createDataFrame([[1, 2, 3]], ["col0", "col1", "col2"])
    b = spark.createDataFrame([[4, 5, 6]], ["col1", "col2", "col0"])
    assert a.unionByName(b).collect() == [Row(col0=1, col1=2, col2=3), Row(col0=6, col1=4, col2=5)]
    c = spark.createDataFrame([[4, 5, 6]], ["col1", "col2", "col3"])
    rows = a.unionByName(c, allowMissingColumns=True).collect()
    assert rows == [Row(col0=1, col1=2, col2=3, col3=None), Row(col0=None, col1=4, col2=5, col3=6)]
    with pytest.raises(AnalysisException):
        a.unionByName(c)


def test_na_functions(spark):
    # DataFrame.fillna / dropna / replace docstrings.
    df = spark.createDataFrame([(10, 80.5, "Alice", None), (5, None, "Bob", None),
                                (None, None, "Tom", None), (None, None, None, True)],
                               schema=["age", "height", "name", "bool"])
    assert df.na.fill(50).collect()[2] == Row(age=50, height=50.0, name="Tom", bool=None)
    assert df.fillna(False).collect()[0] == Row(age=10, height=80.5, name="Alice", bool=False)
    assert df.fillna({"age": 50, "name": "unknown"}).collect()[3] == Row(age=50, height=None, name="unknown", bool=True)
    assert df.na.fill("x", subset=["name"]).collect()[3].name == "x"
    assert df.na.drop().count() == 0
    assert df.dropna(how="all", subset=["age", "height"]).count() == 2
    assert df.dropna(thresh=2).count() == 2
    rows = df.na.replace(10, 20).collect()
    assert rows[0].age == 20
    assert df.replace(["Alice", "Bob"], ["A", "B"], "name").select("name").collect()[:2] == [Row(name="A"), Row(name="B")]
    assert df.replace({"Alice": None}).first().name is None


def test_sample_and_random_split(spark):
    df = spark.range(1000)
    sampled = df.sample(fraction=0.5, seed=3)
    n = sampled.count()
    assert 350 < n < 650
    assert sampled.count() == n  # the same seed gives the same sample
    with pytest.raises(IllegalArgumentException):
        df.sample(fraction=1.5)
    parts = df.randomSplit([1.0, 3.0], seed=7)
    assert parts[0].count() + parts[1].count() == 1000


def test_windows(spark):
    # Window docstrings: row_number over partitionBy/orderBy, rowsBetween.
    df = spark.createDataFrame([(1, "a"), (1, "a"), (2, "a"), (1, "b"), (2, "b"), (3, "b")], ["id", "category"])
    window = Window.partitionBy("category").orderBy("id")
    rows = df.withColumn("row_number", F.row_number().over(window)).orderBy("category", "id", "row_number").collect()
    assert [r.row_number for r in rows] == [1, 2, 3, 1, 2, 3]
    running = Window.partitionBy("category").orderBy("id").rowsBetween(Window.unboundedPreceding, Window.currentRow)
    rows = df.withColumn("s", F.sum("id").over(running)).orderBy("category", "id", "s").collect()
    assert [r.s for r in rows] == [1, 2, 4, 1, 3, 6]
    rows = df.withColumn("prev", F.lag("id").over(window)).where("category = 'b'").orderBy("id").collect()
    assert [r.prev for r in rows] == [None, 1, 2]
    ranged = Window.partitionBy("category").orderBy("id").rangeBetween(0, 1)
    rows = df.withColumn("s", F.sum("id").over(ranged)).where("category = 'a'").orderBy("id").collect()
    assert [r.s for r in rows] == [4, 4, 2]


def test_temp_views_transform_and_no_ops(spark, people):
    people.createOrReplaceTempView("people")
    assert spark.sql("SELECT count(*) AS n FROM people").first().n == 3
    with pytest.raises(AnalysisException) as raised:
        people.createTempView("people")
    assert raised.value.getErrorClass() == "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"
    # DataFrame.transform docstring.
    def add_one(frame):
        return frame.select(frame.age + 1)
    assert people.transform(add_one).count() == 3
    assert people.cache() is people and people.persist() is people
    assert people.repartition(4).coalesce(1) is people


def test_explain_prints_the_plan(people, capsys):
    people.filter("age > 1").explain()
    assert "== Physical Plan ==" in capsys.readouterr().out


def test_describe(people):
    rows = people.describe("age").collect()
    assert [r.summary for r in rows] == ["count", "mean", "stddev", "min", "max"]
    assert rows[0].age == "3" and rows[3].age == "14" and rows[4].age == "23"


def test_unpivot(spark):
    # DataFrame.unpivot docstring.
    df = spark.createDataFrame([(1, 11, 1.1), (2, 12, 1.2)], ["id", "int", "double"])
    rows = df.unpivot("id", ["int", "double"], "var", "val").collect()
    assert rows == [Row(id=1, var="int", val=11.0), Row(id=1, var="double", val=1.1),
                    Row(id=2, var="int", val=12.0), Row(id=2, var="double", val=1.2)]
    assert df.melt(ids=["id"], values=None, variableColumnName="var", valueColumnName="val").count() == 4


def test_full_outer_using_join_and_columns_of_joins(spark):
    left = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "v"])
    right = spark.createDataFrame([(1, "x"), (3, "y")], ["id", "w"])
    joined = left.join(right, "id", "full")
    assert joined.columns == ["id", "v", "w"]
    assert joined.orderBy("id").collect() == [Row(id=1, v="a", w="x"), Row(id=2, v="b", w=None),
                                              Row(id=3, v=None, w="y")]
    on_columns = left.join(right, left.id == right.id)
    with_z = on_columns.withColumn("z", F.concat(left.v, right.w))
    assert with_z.columns == ["id", "v", "id", "w", "z"]
    assert with_z.select("z").collect() == [Row(z="ax")]
    assert left.select(left["*"], F.lit(1).alias("one")).columns == ["id", "v", "one"]


def test_generators_are_named_as_in_spark(spark):
    df = spark.createDataFrame([Row(a=[1, 2])])
    assert df.select(F.explode("a")).collect() == [Row(col=1), Row(col=2)]
    assert df.select(F.posexplode("a")).collect() == [Row(pos=0, col=1), Row(pos=1, col=2)]


def test_to_local_iterator_reads_rows_as_they_are_produced(spark):
    # The rows before id 300000 come out before the batch holding it fails: nothing waits for
    # the whole result.
    rows = spark.sql("SELECT id, 10 DIV (id - 300000) AS q FROM range(1000000)").toLocalIterator()
    first = next(rows)
    assert (first.id, first.q) == (0, 0)
    with pytest.raises(ArithmeticException) as raised:
        for _ in rows:
            pass
    assert raised.value.getErrorClass() == "DIVIDE_BY_ZERO"


def test_to_local_iterator_stopped_early_leaves_the_session_usable(spark):
    rows = spark.range(10 ** 12).toLocalIterator()
    assert [next(rows).id for _ in range(3)] == [0, 1, 2]
    rows.close()
    assert spark.range(5).count() == 5


def test_statistics_corr_cov_and_approx_quantile(spark):
    # DataFrame.corr / cov / approxQuantile and DataFrame.stat (pyspark.sql.DataFrameStatFunctions):
    # rows with a NULL in either column are left out; approxQuantile with relativeError 0 gives
    # exact quantiles, values of the column, and an empty list for no rows.
    df = spark.createDataFrame([(1, 2.0), (2, None), (3, 5.0), (4, 8.0)], ["id", "v"])
    assert abs(df.corr("id", "v") - 0.9819805060619657) < 1e-12
    assert df.stat.corr("id", "v") == df.corr("id", "v", "pearson")
    assert df.cov("id", "v") == 4.5 and df.stat.cov("id", "v") == 4.5
    assert df.approxQuantile("v", [0.0, 0.5, 1.0], 0.0) == [2.0, 5.0, 8.0]
    assert df.stat.approxQuantile(["id", "v"], [0.5], 0.01) == [[2.0], [5.0]]
    assert spark.range(0).approxQuantile("id", [0.5], 0.1) == []
    assert spark.range(1000).approxQuantile("id", [0.25, 0.75], 0.0) == [249.0, 749.0]
    with pytest.raises(PySparkValueError) as raised:
        df.corr("id", "v", "spearman")
    assert raised.value.getErrorClass() == "VALUE_NOT_PEARSON"
    with pytest.raises(PySparkValueError):
        df.approxQuantile("v", [0.5], -0.1)
    with pytest.raises(PySparkTypeError):
        df.approxQuantile("v", [1.5], 0.1)
    with pytest.raises(PySparkAttributeError):
        df.stat.crosstab("id", "v")


def test_summary_docstring_example(spark):
    # DataFrame.summary docstring: count, mean, stddev, min, approximate quartiles and max as
    # strings; chosen statistics in the order given.
    df = spark.createDataFrame([("Bob", 13, 40.3, 150.5), ("Alice", 12, 37.8, 142.3), ("Tom", 11, 44.1, 142.2)],
                               ["name", "age", "weight", "height"])
    rows = [tuple(row) for row in df.select("age", "weight", "height").summary().collect()]
    # The standard deviations agree with the docstring's to the last digit or two (the order
    # of floating-point operations differs).
    stddev = rows.pop(2)
    assert stddev[:2] == ("stddev", "1.0")
    assert abs(float(stddev[2]) - 3.1722757341273704) < 1e-12 and abs(float(stddev[3]) - 4.763402145525822) < 1e-12
    assert rows == [
        ("count", "3", "3", "3"), ("mean", "12.0", "40.73333333333333", "145.0"), ("min", "11", "37.8", "142.2"),
        ("25%", "11", "37.8", "142.2"), ("50%", "12", "40.3", "142.3"), ("75%", "13", "44.1", "150.5"),
        ("max", "13", "44.1", "150.5")]
    rows = df.select("age", "name").summary("count", "33%", "50%", "66%").collect()
    assert [tuple(row) for row in rows] == [
        ("count", "3", "3"), ("33%", "11", None), ("50%", "12", None), ("66%", "12", None)]
    with pytest.raises(IllegalArgumentException):
        df.summary("median")
    assert df.isLocal() is True
