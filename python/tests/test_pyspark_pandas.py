"""toPandas() and createDataFrame(pandas.DataFrame), against PySpark's conversion rules
(pyspark.sql.pandas.conversion: PandasConversionMixin.toPandas, SparkConversionMixin
.createDataFrame) and the DataFrame.toPandas docstring."""

import datetime
import decimal

import pytest

pandas = pytest.importorskip("pandas", reason="pandas is not installed (Debian: python3-pandas)")
numpy = pytest.importorskip("numpy", reason="numpy is not installed (Debian: python3-numpy)")

from silt.sql import Row  # noqa: E402


def test_to_pandas_docstring_example(spark):
    # DataFrame.toPandas docstring.
    df = spark.createDataFrame([(2, "Alice"), (5, "Bob")], schema=["age", "name"])
    pdf = df.toPandas()
    assert list(pdf.columns) == ["age", "name"]
    assert pdf["age"].tolist() == [2, 5]
    assert pdf["name"].tolist() == ["Alice", "Bob"]
    assert str(pdf["age"].dtype) == "int64"


def test_to_pandas_dtypes_and_nulls(spark):
    df = spark.sql(
        "SELECT * FROM VALUES"
        " (CAST(1 AS TINYINT), CAST(1 AS SMALLINT), 1, 1L, 1.5F, 2.5D, true, 'a', 1.25BD, DATE'2024-02-29',"
        "  TIMESTAMP'2024-01-31 12:00:00.5', TIMESTAMP_NTZ'2024-01-31 12:00:00', array(1, 2), named_struct('x', 1),"
        "  map('k', 1)),"
        " (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
        " AS t(b, s, i, l, f, d, bool, str, dec, day, ts, ntz, arr, st, m)")
    pdf = df.toPandas()
    # Integers with a NULL become float64 with NaN, as in PySpark; booleans object.
    assert [str(t) for t in pdf.dtypes] == [
        "float64", "float64", "float64", "float64", "float32", "float64", "object", "object", "object",
        "object", "datetime64[ns]", "datetime64[ns]", "object", "object", "object"]
    first = pdf.iloc[0]
    assert first["i"] == 1.0 and numpy.isnan(pdf.iloc[1]["i"])
    assert first["bool"] is True
    assert first["dec"] == decimal.Decimal("1.25") and isinstance(first["dec"], decimal.Decimal)
    assert first["day"] == datetime.date(2024, 2, 29)
    assert first["ts"] == pandas.Timestamp("2024-01-31 12:00:00.5")
    assert first["ntz"] == pandas.Timestamp("2024-01-31 12:00:00")
    assert pandas.isna(pdf.iloc[1]["ts"])
    assert first["arr"] == [1, 2] and first["st"] == Row(x=1) and first["m"] == {"k": 1}
    assert pdf.iloc[1]["str"] is None


def test_to_pandas_strings_and_dates_as_python_objects(spark):
    # Text of any script, empty and NULL strings; dates of a few days (made once, shared) and
    # dates at datetime.date's ends, with NULLs among them.
    pdf = spark.sql(
        "SELECT * FROM VALUES ('plain', DATE'2024-01-01'), ('', DATE'2024-01-02'), (NULL, NULL),"
        " ('caf\u00e9 \u65e5\u672c \U0001F600', DATE'2024-01-01'), ('a longer ascii text than eight bytes', NULL)"
        " AS t(s, d)").toPandas()
    assert pdf["s"].tolist() == ["plain", "", None, "caf\u00e9 \u65e5\u672c \U0001F600",
                                 "a longer ascii text than eight bytes"]
    assert pdf["d"].tolist() == [datetime.date(2024, 1, 1), datetime.date(2024, 1, 2), None,
                                 datetime.date(2024, 1, 1), None]
    wide = spark.sql("SELECT * FROM VALUES (DATE'0001-01-01'), (NULL), (DATE'9999-12-31'), (DATE'1970-01-01')"
                     " AS t(d)").toPandas()
    assert wide["d"].tolist() == [datetime.date(1, 1, 1), None, datetime.date(9999, 12, 31),
                                  datetime.date(1970, 1, 1)]


def test_to_pandas_without_nulls_keeps_integer_widths(spark):
    pdf = spark.sql("SELECT CAST(id AS INT) AS i, id AS l, CAST(id AS SMALLINT) AS s, id > 0 AS b FROM range(3)").toPandas()
    assert [str(t) for t in pdf.dtypes] == ["int32", "int64", "int16", "bool"]


def test_to_pandas_timestamps_in_the_session_time_zone(spark):
    spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    pdf = spark.sql("SELECT TIMESTAMP'2024-01-01 09:00:00' AS ts").toPandas()
    assert pdf["ts"][0] == pandas.Timestamp("2024-01-01 09:00:00")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    pdf = spark.sql("SELECT TIMESTAMP'2024-01-01 09:00:00+09:00' AS ts").toPandas()
    assert pdf["ts"][0] == pandas.Timestamp("2024-01-01 00:00:00")


def test_create_data_frame_from_pandas(spark):
    # SparkSession.createDataFrame docstring: spark.createDataFrame(pandas.DataFrame(...)).
    pdf = pandas.DataFrame({
        "i": [1, 2, 3],
        "f": [1.5, numpy.nan, 3.0],
        "s": ["a", None, "c"],
        "b": [True, False, True],
        "ts": pandas.to_datetime(["2024-01-01 10:00:00", None, "2024-01-03 00:00:00.25"]),
        "d": [decimal.Decimal("1.10"), None, decimal.Decimal("-2.5")],
    })
    df = spark.createDataFrame(pdf)
    assert df.dtypes == [("i", "bigint"), ("f", "double"), ("s", "string"), ("b", "boolean"),
                         ("ts", "timestamp"), ("d", "decimal(38,18)")]
    rows = df.collect()
    assert rows[0].i == 1 and rows[1].f is None and rows[1].s is None and rows[2].b is True
    assert rows[1].ts is None and rows[1].d is None and rows[2].d == decimal.Decimal("-2.5")
    # Naive pandas timestamps are wall-clock time of the session time zone (UTC here).
    assert df.toPandas()["ts"][0] == pandas.Timestamp("2024-01-01 10:00:00")
    named = spark.createDataFrame(pdf[["i", "s"]], ["x", "y"])
    assert named.columns == ["x", "y"]
    typed = spark.createDataFrame(pdf[["i"]], "i INT")
    assert typed.dtypes == [("i", "int")]


def test_pandas_round_trip(spark):
    pdf = pandas.DataFrame({"id": numpy.arange(1000, dtype="int64"), "x": numpy.linspace(0, 1, 1000)})
    back = spark.createDataFrame(pdf).toPandas()
    assert back.equals(pdf)


def test_to_pandas_makes_one_str_per_distinct_value(spark, tmp_path):
    # Repeated values (and the entries of a Parquet dictionary) become one str each, shared by
    # their rows, as pyarrow's to_pandas(deduplicate_objects=True) gives them.
    path = str(tmp_path / "cities")
    spark.sql("CREATE TABLE delta.`%s` AS SELECT id, concat('city-', id %% 7) AS city,"
              " CASE WHEN id %% 5 = 0 THEN NULL ELSE concat('name-', id %% 3) END AS name"
              " FROM range(100000)" % path)
    pdf = spark.read.format("delta").load(path).orderBy("id").toPandas()
    assert pdf["city"].tolist() == ["city-%d" % (i % 7) for i in range(100000)]
    assert pdf["name"].tolist() == [None if i % 5 == 0 else "name-%d" % (i % 3) for i in range(100000)]
    assert len({id(value) for value in pdf["city"]}) < 100
    repeated = spark.sql("SELECT concat('v', id % 2) AS v FROM range(50000)").toPandas()
    assert len({id(value) for value in repeated["v"]}) < 100
    # Distinct values stay distinct.
    distinct = spark.sql("SELECT concat('v', id) AS v FROM range(1000)").toPandas()
    assert distinct["v"].tolist() == ["v%d" % i for i in range(1000)]


def test_to_pandas_of_many_batches(spark):
    pdf = spark.sql("SELECT id, CAST(id AS DOUBLE) AS x, id % 3 = 0 AS b,"
                    " CASE WHEN id % 4 = 0 THEN NULL ELSE id END AS n,"
                    " date_add(DATE'2020-01-01', CAST(id % 1000 AS INT)) AS d"
                    " FROM range(300000)").toPandas()
    assert len(pdf) == 300000
    assert pdf["id"].tolist() == list(range(300000))
    assert pdf["x"].sum() == sum(range(300000))
    assert str(pdf["n"].dtype) == "float64" and int(pdf["n"].isna().sum()) == 75000
    assert pdf["b"].tolist()[:4] == [True, False, False, True]
    assert pdf["d"][299999] == datetime.date(2020, 1, 1) + datetime.timedelta(days=299999 % 1000)


def test_to_pandas_nulls_first_seen_in_a_later_batch(spark):
    # The NULL mask starts at the first NULL, many batches in; the rows before it are not NULL.
    pdf = spark.sql("SELECT id, CASE WHEN id >= 250000 AND id % 2 = 0 THEN NULL ELSE id END AS n,"
                    " CASE WHEN id = 299999 THEN NULL ELSE id % 2 = 0 END AS b,"
                    " CASE WHEN id >= 250000 THEN NULL ELSE CAST(id AS DOUBLE) END AS x"
                    " FROM range(300000)").toPandas()
    nulls = pdf["n"].isna()
    assert int(nulls.sum()) == 25000 and not nulls[:250000].any()
    assert pdf["n"][249999] == 249999.0 and pdf["n"][250001] == 250001.0
    assert pdf["b"].dtype == object and pdf["b"][299999] is None and pdf["b"][299998] is True
    assert int(pdf["x"].isna().sum()) == 50000 and pdf["x"][249999] == 249999.0


def test_to_pandas_frame_owns_its_objects(spark):
    # The object columns hold one reference per row, dropped with the frame; the columns can be
    # changed in place like any pandas column.
    import sys

    pdf = spark.sql("SELECT concat('value-', id) AS s, CAST(id AS DOUBLE) AS x FROM range(70000)").toPandas()
    value = pdf["s"][69999]
    assert value == "value-69999"
    held = sys.getrefcount(value)
    pdf.loc[69999, "s"] = "changed"
    pdf.loc[0, "x"] = -1.0
    assert sys.getrefcount(value) == held - 1
    assert pdf["s"][69999] == "changed" and pdf["x"][0] == -1.0 and pdf["x"][1] == 1.0
    other = pdf["s"][5]
    held = sys.getrefcount(other)
    del pdf
    assert sys.getrefcount(other) == held - 1 and other == "value-5"


def _resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def test_to_pandas_strings_give_their_memory_back(spark):
    # A frame holds the only references to its str objects: dropping the frames gives their
    # memory back to the system, and frames made one after another, dropped in any order, keep
    # their values.
    import gc

    query = "SELECT concat('distinct-value-', id) AS s FROM range(1000000)"
    before = _resident_bytes()
    first = spark.sql(query).toPandas()
    second = spark.sql(query).toPandas()
    grown = _resident_bytes() - before
    assert grown > 100 * 1024 * 1024  # two million str objects of about 80 bytes each
    del first
    churn = [str(i) * 3 for i in range(300000)]  # arenas made and freed outside toPandas
    del churn
    assert second["s"][0] == "distinct-value-0" and second["s"][999999] == "distinct-value-999999"
    del second
    gc.collect()
    assert _resident_bytes() - before < grown / 4
