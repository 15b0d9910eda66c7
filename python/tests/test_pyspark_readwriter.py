"""spark.read and df.write of silt.sql, against PySpark's DataFrameReader/DataFrameWriter
docstrings and Delta Lake's documentation of its options (docs.delta.io: "Table batch reads
and writes", "Change data feed")."""

import datetime
import json
import time

import pytest

from silt.errors import AnalysisException, IllegalArgumentException
from silt.sql import Row
from silt.sql import functions as F


def test_save_and_load_by_path_with_modes(spark, tmp_path):
    path = str(tmp_path / "events")
    df = spark.createDataFrame([(1, "a"), (2, "b")], ["id", "v"])
    df.write.format("delta").save(path)
    assert spark.read.format("delta").load(path).orderBy("id").collect() == [Row(id=1, v="a"), Row(id=2, v="b")]
    # mode "error" (the default) refuses an existing table.
    with pytest.raises(AnalysisException) as raised:
        df.write.format("delta").save(path)
    assert raised.value.getErrorClass() == "DELTA_PATH_EXISTS"
    df.write.format("delta").mode("ignore").save(path)
    assert spark.read.format("delta").load(path).count() == 2
    df.write.format("delta").mode("append").save(path)
    assert spark.read.load(path).count() == 4
    spark.createDataFrame([(9, "z")], ["id", "v"]).write.format("delta").mode("overwrite").save(path)
    assert spark.read.format("delta").load(path).collect() == [Row(id=9, v="z")]


def test_append_writes_columns_by_name(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.createDataFrame([(1, "a")], ["id", "v"]).write.format("delta").save(path)
    spark.createDataFrame([("b", 2)], ["v", "id"]).write.format("delta").mode("append").save(path)
    assert spark.read.format("delta").load(path).orderBy("id").collect() == [Row(id=1, v="a"), Row(id=2, v="b")]


def test_merge_schema_and_overwrite_schema(spark, tmp_path):
    # Delta: a new column needs mergeSchema (else a schema mismatch); overwriteSchema replaces
    # the schema on overwrite.
    path = str(tmp_path / "t")
    spark.createDataFrame([(1, "a")], ["id", "v"]).write.format("delta").save(path)
    wider = spark.createDataFrame([(2, "b", 2.5)], ["id", "v", "extra"])
    with pytest.raises(AnalysisException) as raised:
        wider.write.format("delta").mode("append").save(path)
    assert raised.value.getErrorClass() == "DELTA_METADATA_MISMATCH"
    wider.write.format("delta").mode("append").option("mergeSchema", "true").save(path)
    rows = spark.read.format("delta").load(path).orderBy("id").collect()
    assert rows == [Row(id=1, v="a", extra=None), Row(id=2, v="b", extra=2.5)]
    other = spark.createDataFrame([("x",)], ["only"])
    other.write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(path)
    assert spark.read.format("delta").load(path).collect() == [Row(only="x")]


def test_replace_where_and_partition_by(spark, tmp_path):
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, "2024-01-01"), (2, "2024-01-02")], ["id", "day"])
    df.write.format("delta").partitionBy("day").save(path)
    assert spark.sql("DESCRIBE DETAIL delta.`%s`" % path).first().partitionColumns == ["day"]
    replacement = spark.createDataFrame([(3, "2024-01-02")], ["id", "day"])
    replacement.write.format("delta").mode("overwrite").option("replaceWhere", "day = '2024-01-02'").save(path)
    assert spark.read.format("delta").load(path).orderBy("id").collect() == [
        Row(id=1, day="2024-01-01"), Row(id=3, day="2024-01-02")]


def test_idempotent_writes_with_txn_options(spark, tmp_path):
    # docs.delta.io, "Idempotent table writes": a write with a txnAppId and a txnVersion the
    # table already recorded is skipped.
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1,)], ["id"])
    with pytest.raises(IllegalArgumentException) as raised:
        df.write.format("delta").option("txnAppId", "app").save(path)
    assert raised.value.getErrorClass() == "DELTA_INVALID_IDEMPOTENT_WRITES_OPTIONS"
    for version in (1, 1, 2):
        df.write.format("delta").mode("append").option("txnAppId", "app").option("txnVersion", version).save(path)
    assert spark.read.format("delta").load(path).count() == 2
    # The options apply to that write only.
    assert spark.conf.get("spark.databricks.delta.write.txnAppId", None) is None
    df.write.format("delta").mode("append").save(path)
    assert spark.read.format("delta").load(path).count() == 3


def test_max_records_per_file_option(spark, tmp_path):
    # Spark's DataFrameWriter option maxRecordsPerFile (and spark.sql.files.maxRecordsPerFile):
    # a written file holds at most that many rows; the option applies to that write only.
    path = str(tmp_path / "t")
    files = "SELECT count(DISTINCT _metadata.file_path) AS n FROM delta.`%s`" % path
    spark.range(10).write.format("delta").option("maxRecordsPerFile", 3).save(path)
    assert spark.sql(files).first().n == 4
    assert spark.conf.get("spark.sql.files.maxRecordsPerFile", None) is None
    spark.range(10, 20).write.format("delta").mode("append").save(path)
    assert spark.sql(files).first().n == 5
    assert spark.read.format("delta").load(path).count() == 20


def test_save_as_table_and_insert_into(spark):
    df = spark.createDataFrame([(1, "a")], ["id", "v"])
    df.write.saveAsTable("t")
    assert spark.table("t").collect() == [Row(id=1, v="a")]
    with pytest.raises(AnalysisException) as raised:
        df.write.saveAsTable("t")
    assert raised.value.getErrorClass() == "TABLE_OR_VIEW_ALREADY_EXISTS"
    df.write.mode("append").saveAsTable("t")
    assert spark.table("t").count() == 2
    # insertInto writes by position.
    spark.createDataFrame([(7, "q")], ["x", "y"]).write.insertInto("t")
    assert spark.table("t").where("id = 7").collect() == [Row(id=7, v="q")]
    spark.createDataFrame([(8, "r")], ["x", "y"]).write.insertInto("t", overwrite=True)
    assert spark.table("t").collect() == [Row(id=8, v="r")]


def test_writer_v2(spark):
    df = spark.createDataFrame([(1, "a")], ["id", "v"])
    df.writeTo("w").using("delta").partitionedBy("v").create()
    df.writeTo("w").append()
    assert spark.table("w").count() == 2
    spark.createDataFrame([(5, "a")], ["id", "v"]).writeTo("w").overwritePartitions()
    assert spark.table("w").collect() == [Row(id=5, v="a")]
    # Only the partitions the rows fall in are replaced.
    spark.createDataFrame([(6, "b")], ["id", "v"]).writeTo("w").append()
    spark.createDataFrame([(7, "a"), (8, "c")], ["id", "v"]).writeTo("w").overwritePartitions()
    assert sorted(spark.table("w").collect()) == [Row(id=6, v="b"), Row(id=7, v="a"), Row(id=8, v="c")]
    # The session's own setting is left as it was.
    assert spark.conf.get("spark.sql.sources.partitionOverwriteMode", "static") == "static"


def test_dynamic_partition_overwrite_option(spark, tmp_path):
    path = str(tmp_path / "t")
    df = spark.createDataFrame([(1, "a"), (2, "b"), (3, None)], ["id", "p"])
    df.write.format("delta").partitionBy("p").save(path)
    new_rows = spark.createDataFrame([(10, "a"), (11, None)], ["id", "p"])
    new_rows.write.format("delta").mode("overwrite").option("partitionOverwriteMode", "dynamic").save(path)
    rows = spark.read.format("delta").load(path).collect()
    assert sorted(rows, key=lambda row: row.id) == [Row(id=2, p="b"), Row(id=10, p="a"), Row(id=11, p=None)]
    # Without the option, an overwrite replaces the whole table.
    new_rows.write.format("delta").mode("overwrite").save(path)
    assert spark.read.format("delta").load(path).count() == 2
    for options, error_class in [
            ({"replaceWhere": "p = 'a'"}, "DELTA_REPLACE_WHERE_WITH_DYNAMIC_PARTITION_OVERWRITE"),
            ({"overwriteSchema": "true"}, "DELTA_OVERWRITE_SCHEMA_WITH_DYNAMIC_PARTITION_OVERWRITE")]:
        with pytest.raises(IllegalArgumentException) as raised:
            new_rows.write.format("delta").mode("overwrite").option(
                "partitionOverwriteMode", "dynamic").options(**options).save(path)
        assert raised.value.getErrorClass() == error_class
    assert spark.read.format("delta").load(path).count() == 2


def test_time_travel_options(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.createDataFrame([(1,)], ["id"]).write.format("delta").save(path)
    time.sleep(0.2)
    spark.createDataFrame([(2,)], ["id"]).write.format("delta").mode("append").save(path)
    assert spark.read.format("delta").option("versionAsOf", 0).load(path).collect() == [Row(id=1)]
    assert spark.read.format("delta").load(path).count() == 2
    history = spark.sql("DESCRIBE HISTORY delta.`%s`" % path).orderBy("version").collect()
    # A moment before the second commit is version 0 (history shows naive local times).
    before_second = history[1].timestamp - datetime.timedelta(milliseconds=100)
    stamp = before_second.astimezone(datetime.timezone.utc).replace(tzinfo=None).isoformat(sep=" ")
    df = spark.read.format("delta").option("timestampAsOf", stamp).load(path)
    assert df.collect() == [Row(id=1)]
    spark.sql("CREATE TABLE named (id INT)")
    spark.sql("INSERT INTO named VALUES (1)")
    assert spark.read.option("versionAsOf", 0).table("named").count() == 0
    assert spark.read.table("named").count() == 1


def test_read_change_feed(spark, tmp_path):
    # docs.delta.io, "Change data feed": readChangeFeed with startingVersion/endingVersion.
    spark.sql("CREATE TABLE cdf (id INT, v STRING) TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    spark.sql("INSERT INTO cdf VALUES (1, 'a'), (2, 'b')")
    spark.sql("UPDATE cdf SET v = 'c' WHERE id = 2")
    changes = spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 1) \
        .option("endingVersion", 2).table("cdf")
    rows = changes.orderBy("_commit_version", "id", "_change_type").select("id", "v", "_change_type").collect()
    assert rows == [Row(id=1, v="a", _change_type="insert"), Row(id=2, v="b", _change_type="insert"),
                    Row(id=2, v="c", _change_type="update_postimage"),
                    Row(id=2, v="b", _change_type="update_preimage")]
    with pytest.raises(AnalysisException) as raised:
        spark.read.format("delta").option("readChangeFeed", "true").table("cdf")
    assert raised.value.getErrorClass() == "DELTA_NO_START_FOR_CDC_READ"
    with pytest.raises(AnalysisException) as raised:
        spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 0) \
            .option("startingTimestamp", "2024-01-01").table("cdf")
    assert raised.value.getErrorClass() == "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET"


def test_read_json_csv_parquet(spark, tmp_path):
    json_path = tmp_path / "data.json"
    json_path.write_text("\n".join(json.dumps(r) for r in [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}]) + "\n")
    df = spark.read.format("json").load(str(json_path))
    assert df.orderBy("a").collect() == [Row(a=1, b="x"), Row(a=2, b="y")]
    typed = spark.read.schema("b STRING, a INT").json(str(json_path))
    assert typed.dtypes == [("b", "string"), ("a", "int")]
    csv_path = tmp_path / "data.csv"
    csv_path.write_text("id,name\n1,Ada\n2,Linus\n")
    df = spark.read.option("header", True).csv(str(csv_path))
    assert df.collect() == [Row(id="1", name="Ada"), Row(id="2", name="Linus")]
    df = spark.read.csv(str(csv_path), header=True, schema="id INT, name STRING")
    assert df.collect() == [Row(id=1, name="Ada"), Row(id=2, name="Linus")]
    # Spark's default header=false: the first line is a row too, columns _c0, _c1, ... strings.
    assert spark.read.csv(str(csv_path)).collect() == [
        Row(_c0="id", _c1="name"), Row(_c0="1", _c1="Ada"), Row(_c0="2", _c1="Linus")]
    headless = tmp_path / "headless"
    headless.mkdir()
    (headless / "part-0.csv").write_text("1,Ada,\n2,Linus,Helsinki,extra\n")
    (headless / "part-1.csv").write_text("3\n")
    df = spark.read.format("csv").load(str(headless))
    assert df.columns == ["_c0", "_c1", "_c2"]
    assert df.orderBy("_c0").collect() == [Row(_c0="1", _c1="Ada", _c2=None), Row(_c0="2", _c1="Linus", _c2="Helsinki"),
                                           Row(_c0="3", _c1=None, _c2=None)]
    inferred = spark.read.csv(str(headless), inferSchema=True)
    assert inferred.dtypes == [("_c0", "int"), ("_c1", "string"), ("_c2", "string")]
    named = spark.read.csv(str(headless), schema="id BIGINT, name STRING, city STRING")
    assert named.orderBy("id").first() == Row(id=1, name="Ada", city=None)
    with pytest.raises(Exception) as raised:
        spark.read.csv(str(tmp_path / "nowhere.csv"))
    assert raised.value.getErrorClass() == "PATH_NOT_FOUND"
    # inferSchema: the narrowest of int, bigint, double, boolean that fits every value.
    typed_path = tmp_path / "typed.csv"
    typed_path.write_text("i,l,d,b,s\n1,5000000000,1.5,true,x\n2,,2,false,3\n")
    df = spark.read.csv(str(typed_path), header=True, inferSchema=True)
    assert df.dtypes == [("i", "int"), ("l", "bigint"), ("d", "double"), ("b", "boolean"), ("s", "string")]
    assert df.collect() == [Row(i=1, l=5000000000, d=1.5, b=True, s="x"), Row(i=2, l=None, d=2.0, b=False, s="3")]
    spark.range(3).write.format("delta").save(str(tmp_path / "d"))
    parquet_files = list((tmp_path / "d").glob("*.parquet"))
    assert spark.read.parquet(str(parquet_files[0])).count() >= 0
    assert spark.read.format("parquet").load(str(tmp_path / "d")).count() == 3


def test_file_metadata_column_of_a_loaded_table(spark, tmp_path):
    # Spark's hidden file metadata column: spark.read...load(path).select("_metadata.file_path")
    # (docs: "File metadata column"); it is not part of the DataFrame's columns.
    path = str(tmp_path / "t")
    spark.range(4).write.format("delta").option("maxRecordsPerFile", 2).save(path)
    df = spark.read.format("delta").load(path)
    assert df.columns == ["id"]
    assert df.select("_metadata.file_path").distinct().count() == 2
    names = {row.file_name for row in df.select(F.col("_metadata.file_name").alias("file_name")).collect()}
    assert len(names) == 2 and all(name.endswith(".parquet") for name in names)
    rows = df.select("id", "_metadata.file_size").where("id < 2").collect()
    assert len(rows) == 2 and all(row.file_size > 0 for row in rows)
