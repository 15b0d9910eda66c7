"""Structured Streaming in silt.sql: spark.readStream, streaming DataFrames, df.writeStream,
StreamingQuery and spark.streams, against PySpark's pyspark.sql.streaming docstrings and the
Structured Streaming programming guide, and Delta Lake's "Table streaming reads and writes"
(idempotent writes in foreachBatch with txnAppId / txnVersion)."""

import os
import signal
import threading

import pytest

from silt.errors import (
    AnalysisException,
    IllegalArgumentException,
    PySparkTypeError,
    PySparkValueError,
    StreamingQueryException,
)
from silt.sql import Row, functions as F
from silt.delta.tables import DeltaTable

PROGRESS_KEYS = {"id", "runId", "name", "timestamp", "batchId", "numInputRows", "inputRowsPerSecond",
                 "processedRowsPerSecond", "durationMs", "stateOperators", "sources", "sink"}


@pytest.fixture
def source(spark, tmp_path):
    path = str(tmp_path / "events")
    spark.createDataFrame([(1, "a", 10), (2, "b", 20), (3, "c", 30)],
                          "id BIGINT, kind STRING, amount BIGINT").write.format("delta").save(path)
    return path


def append(spark, path, rows):
    spark.createDataFrame(rows, "id BIGINT, kind STRING, amount BIGINT") \
        .write.format("delta").mode("append").save(path)


def read(spark, path, order="id"):
    return spark.read.format("delta").load(path).orderBy(order).collect()


def test_read_stream_gives_a_streaming_data_frame(spark, source):
    stream = spark.readStream.format("delta").load(source)
    assert stream.isStreaming
    assert stream.columns == ["id", "kind", "amount"]
    assert [f.dataType.simpleString() for f in stream.schema.fields] == ["bigint", "string", "bigint"]
    derived = stream.select("id", (F.col("amount") * 2).alias("double")).where("id > 1")
    assert derived.isStreaming and derived.columns == ["id", "double"]
    assert not spark.read.format("delta").load(source).isStreaming
    spark.sql("CREATE TABLE named (x INT)")
    assert spark.readStream.table("named").columns == ["x"]
    # The change data feed as a stream carries Delta's change columns.
    spark.sql("ALTER TABLE delta.`%s` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)" % source)
    changes = spark.readStream.format("delta").option("readChangeFeed", "true").load(source)
    assert changes.columns[-3:] == ["_change_type", "_commit_version", "_commit_timestamp"]


def test_batch_actions_on_a_stream_are_refused_as_spark_refuses_them(spark, source):
    stream = spark.readStream.format("delta").load(source).filter("id > 1")
    for action in (stream.collect, stream.count, stream.show, stream.first, stream.toPandas,
                   lambda: stream.take(1), stream.isEmpty):
        with pytest.raises(AnalysisException) as raised:
            action()
        assert raised.value.getErrorClass() == "_LEGACY_ERROR_TEMP_3102"
        assert "Queries with streaming sources must be executed with writeStream.start()" in str(raised.value)
    with pytest.raises(AnalysisException) as raised:
        stream.write
    assert raised.value.getErrorClass() == "CALL_ON_STREAMING_DATASET_UNSUPPORTED"
    with pytest.raises(AnalysisException) as raised:
        spark.read.format("delta").load(source).writeStream
    assert raised.value.getErrorClass() == "WRITE_STREAM_NOT_ALLOWED"
    # A MERGE cannot read a stream either.
    with pytest.raises(AnalysisException) as raised:
        DeltaTable.forPath(spark, source).alias("t").merge(stream.alias("s"), "t.id = s.id") \
            .whenMatchedDelete().execute()
    assert raised.value.getErrorClass() == "_LEGACY_ERROR_TEMP_3102"


def test_reader_errors_come_from_the_engine(spark, source, tmp_path):
    with pytest.raises(AnalysisException) as raised:
        spark.readStream.format("delta").load(str(tmp_path / "missing"))
    assert raised.value.getErrorClass() == "DELTA_MISSING_DELTA_TABLE"
    # A format the streaming engine does not read fails with its error.
    with pytest.raises(Exception) as raised:
        spark.readStream.format("kafka").load(source)
    assert raised.value.getErrorClass() == "NOT_IMPLEMENTED"
    with pytest.raises(AnalysisException) as raised:
        spark.readStream.format("delta").schema("id BIGINT").load(source)
    assert raised.value.getErrorClass() == "DELTA_UNSUPPORTED_SCHEMA_DURING_READ"
    with pytest.raises(AnalysisException) as raised:
        spark.readStream.format("delta").option("startingVersion", "0") \
            .option("startingTimestamp", "2024-01-01").load(source)
    assert raised.value.getErrorClass() == "DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET"
    with pytest.raises(PySparkTypeError):
        spark.readStream.schema(5)


def test_available_now_to_a_delta_path_restarts_from_its_checkpoint(spark, source, tmp_path):
    static = spark.createDataFrame([("a", "alpha"), ("b", "beta"), ("c", "gamma"), ("d", "delta")],
                                   "kind STRING, label STRING")
    target = str(tmp_path / "silver")
    checkpoint = str(tmp_path / "chk")

    def run():
        stream = spark.readStream.format("delta").option("maxFilesPerTrigger", 1).load(source)
        silver = (stream.where(F.col("amount") > 10)
                  .withColumn("cents", F.col("amount") * 100)
                  .withColumns({"big": F.col("amount") > 25})
                  .join(static, "kind")
                  .selectExpr("id", "upper(label) AS label", "cents", "big")
                  .drop("big"))
        query = (silver.writeStream.format("delta").outputMode("append")
                 .option("checkpointLocation", checkpoint).queryName("silver")
                 .trigger(availableNow=True).start(target))
        assert query.awaitTermination() is None
        assert not query.isActive
        return query

    first = run()
    assert read(spark, target) == [Row(id=2, label="BETA", cents=2000), Row(id=3, label="GAMMA", cents=3000)]
    assert first.name == "silver"
    progress = first.lastProgress
    assert PROGRESS_KEYS <= set(progress)
    assert progress["name"] == "silver" and progress["id"] == first.id and progress["runId"] == first.runId
    assert isinstance(progress["sources"], list) and isinstance(progress["durationMs"], dict)
    assert [p["batchId"] for p in first.recentProgress] == list(range(len(first.recentProgress)))
    assert set(first.status) == {"message", "isDataAvailable", "isTriggerActive"}
    assert first.exception() is None

    append(spark, source, [(4, "d", 40), (5, "a", 5)])
    second = run()
    # Only the new commit is read; the query id stays, the run id is new.
    assert read(spark, target) == [Row(id=2, label="BETA", cents=2000), Row(id=3, label="GAMMA", cents=3000),
                                   Row(id=4, label="DELTA", cents=4000)]
    assert second.id == first.id and second.runId != first.runId
    assert sum(p["numInputRows"] for p in second.recentProgress) == 2


def test_to_table_with_partitions_and_once(spark, source, tmp_path):
    stream = spark.readStream.table("delta.`%s`" % source)
    query = stream.writeStream.partitionBy("kind").trigger(once=True) \
        .toTable("by_kind", checkpointLocation=str(tmp_path / "chk"))
    query.awaitTermination()
    assert spark.sql("DESCRIBE DETAIL by_kind").first().partitionColumns == ["kind"]
    assert spark.table("by_kind").count() == 3


def test_aggregations_run_in_complete_mode_and_are_refused_in_append(spark, source, tmp_path):
    totals = spark.readStream.format("delta").load(source).groupBy("kind").agg(F.sum("amount").alias("total"))
    with pytest.raises(AnalysisException) as raised:
        totals.writeStream.option("checkpointLocation", str(tmp_path / "a")).trigger(availableNow=True) \
            .start(str(tmp_path / "append"))
    assert raised.value.getErrorClass() == "STREAMING_OUTPUT_MODE_UNSUPPORTED"
    target = str(tmp_path / "totals")
    checkpoint = str(tmp_path / "c")
    totals.writeStream.outputMode("complete").option("checkpointLocation", checkpoint) \
        .trigger(availableNow=True).start(target).awaitTermination()
    append(spark, source, [(4, "a", 5)])
    spark.readStream.format("delta").load(source).groupBy("kind").agg(F.sum("amount").alias("total")) \
        .writeStream.outputMode("complete").option("checkpointLocation", checkpoint) \
        .trigger(availableNow=True).start(target).awaitTermination()
    assert read(spark, target, "kind") == [Row(kind="a", total=15), Row(kind="b", total=20), Row(kind="c", total=30)]


def test_writer_argument_errors(spark, source, tmp_path):
    writer = spark.readStream.format("delta").load(source).writeStream
    for arguments in ({}, {"once": True, "availableNow": True}):
        with pytest.raises(PySparkValueError) as raised:
            writer.trigger(**arguments)
        assert raised.value.getErrorClass() == "ONLY_ALLOW_SINGLE_TRIGGER"
    with pytest.raises(PySparkValueError) as raised:
        writer.trigger(once=False)
    assert raised.value.getErrorClass() == "VALUE_NOT_TRUE"
    with pytest.raises(PySparkValueError) as raised:
        writer.trigger(processingTime=" ")
    assert raised.value.getErrorClass() == "VALUE_NOT_NON_EMPTY_STR"
    with pytest.raises(TypeError):
        writer.trigger("10 seconds")  # keyword-only, as in PySpark
    with pytest.raises(IllegalArgumentException):
        writer.trigger(processingTime="ten seconds")
    with pytest.raises(AnalysisException) as raised:
        writer.trigger(continuous="1 second")
    assert raised.value.getErrorClass() == "UNSUPPORTED_FEATURE"
    with pytest.raises(PySparkValueError):
        writer.outputMode("")
    with pytest.raises(PySparkTypeError):
        writer.foreachBatch("not a function")
    # The engine checks the rest when the query starts.
    with pytest.raises(AnalysisException) as raised:
        writer.trigger(availableNow=True).start(str(tmp_path / "t"))
    assert raised.value.getErrorClass() == "INVALID_STREAMING_OPTION"  # no checkpointLocation
    with pytest.raises(AnalysisException) as raised:
        writer.outputMode("sideways").option("checkpointLocation", str(tmp_path / "c")).start(str(tmp_path / "t"))
    assert raised.value.getErrorClass() == "INVALID_STREAMING_OPTION"
    with pytest.raises(Exception) as raised:
        writer.outputMode("append").format("console").start(str(tmp_path / "t"))
    assert raised.value.getErrorClass() == "NOT_IMPLEMENTED"


def test_processing_time_query_with_the_query_manager(spark, source, tmp_path):
    target = str(tmp_path / "copy")
    query = (spark.readStream.format("delta").load(source).writeStream
             .option("checkpointLocation", str(tmp_path / "chk"))
             .trigger(processingTime="50 milliseconds").start(target))
    try:
        assert query.isActive
        assert spark.streams.active == [query]
        assert spark.streams.get(query.id) is query
        assert spark.streams.get("no such id") is None
        query.processAllAvailable()
        assert len(read(spark, target)) == 3
        append(spark, source, [(4, "d", 40)])
        query.processAllAvailable()
        assert len(read(spark, target)) == 4
        assert query.awaitTermination(0.1) is False
        assert spark.streams.awaitAnyTermination(0.1) is False
        with pytest.raises(PySparkValueError) as raised:
            query.awaitTermination(-1)
        assert raised.value.getErrorClass() == "VALUE_NOT_POSITIVE"
    finally:
        query.stop()
    assert not query.isActive
    assert query.awaitTermination(1) is True
    assert spark.streams.active == []
    assert spark.streams.awaitAnyTermination() is None
    spark.streams.resetTerminated()
    assert spark.streams.awaitAnyTermination(0.05) is False


def test_ctrl_c_ends_await_termination_and_the_query_goes_on(spark, source, tmp_path):
    query = (spark.readStream.format("delta").load(source).writeStream
             .option("checkpointLocation", str(tmp_path / "chk"))
             .trigger(processingTime="1 second").start(str(tmp_path / "copy")))
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            query.awaitTermination()
        assert query.isActive
    finally:
        timer.cancel()
        query.stop()


def test_foreach_batch_calls_the_function_with_each_batch(spark, source, tmp_path):
    seen = []

    kinds = spark.createDataFrame([("a", "alpha"), ("e", "epsilon")], "kind STRING, label STRING")

    def collect(batch_df, batch_id):
        assert not batch_df.isStreaming
        seen.append((batch_id, sorted(r.id for r in batch_df.collect()), batch_df.columns))
        # A static DataFrame of the outer session joins the batch, on either side.
        labels = sorted(r.label for r in kinds.join(batch_df, "kind").collect())
        assert labels == sorted(r.label for r in batch_df.join(kinds, "kind").collect())
        seen.append(labels)

    def run():
        (spark.readStream.format("delta").option("maxFilesPerTrigger", 1).load(source)
         .select("id", "kind").writeStream.foreachBatch(collect)
         .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True)
         .start().awaitTermination())

    run()
    assert seen == [(0, [1, 2, 3], ["id", "kind"]), ["alpha"]]
    append(spark, source, [(4, "d", 40)])
    append(spark, source, [(5, "e", 50)])
    run()
    assert seen[2:] == [(1, [4], ["id", "kind"]), [], (2, [5], ["id", "kind"]), ["epsilon"]]


def test_a_python_exception_in_foreach_batch_fails_the_query_and_the_batch_reruns(spark, source, tmp_path):
    calls = []

    def failing(batch_df, batch_id):
        calls.append((batch_id, batch_df.count()))
        raise ValueError("bad batch %d" % batch_id)

    def start(function):
        return (spark.readStream.format("delta").load(source).writeStream.foreachBatch(function)
                .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True).start())

    query = start(failing)
    with pytest.raises(StreamingQueryException) as raised:
        query.awaitTermination()
    error = raised.value
    assert error.getErrorClass() == "STREAM_FAILED"
    assert isinstance(error.__cause__, ValueError) and str(error.__cause__) == "bad batch 0"
    assert "bad batch 0" in str(error) and query.id in str(error)
    assert isinstance(query.exception(), StreamingQueryException)
    assert not query.isActive
    with pytest.raises(StreamingQueryException):
        spark.streams.awaitAnyTermination()
    # On restart the failed batch runs again, with the same id and rows.
    query = start(lambda df, batch_id: calls.append((batch_id, df.count())))
    query.awaitTermination()
    assert calls == [(0, 3), (0, 3)]


def test_foreach_batch_merge_with_txn_options_is_exactly_once(spark, source, tmp_path):
    # Delta's idempotent writes: a MERGE that carries txnAppId/txnVersion is skipped when the
    # target already has that version, so a batch re-run after a failure adds nothing twice.
    gold = str(tmp_path / "gold")
    spark.createDataFrame([("a", 0)], "kind STRING, total BIGINT").write.format("delta").save(gold)
    fail_after_merge = [True]

    def upsert(batch_df, batch_id):
        # Delta reads the options of the session of the table the MERGE writes.
        spark.conf.set("spark.databricks.delta.write.txnAppId", "gold-totals")
        spark.conf.set("spark.databricks.delta.write.txnVersion", batch_id)
        totals = batch_df.groupBy("kind").agg(F.sum("amount").alias("total"))
        (DeltaTable.forPath(spark, gold).alias("g").merge(totals.alias("u"), "g.kind = u.kind")
         .whenMatchedUpdate(set={"total": "g.total + u.total"})
         .whenNotMatchedInsertAll().execute())
        if fail_after_merge[0]:
            fail_after_merge[0] = False
            raise RuntimeError("crash after the MERGE committed")

    def run():
        return (spark.readStream.format("delta").load(source).writeStream.foreachBatch(upsert)
                .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True).start())

    with pytest.raises(StreamingQueryException):
        run().awaitTermination()
    assert read(spark, gold, "kind") == [Row(kind="a", total=10), Row(kind="b", total=20), Row(kind="c", total=30)]
    run().awaitTermination()  # batch 0 again: its MERGE is skipped
    assert read(spark, gold, "kind") == [Row(kind="a", total=10), Row(kind="b", total=20), Row(kind="c", total=30)]
    append(spark, source, [(4, "a", 1)])
    run().awaitTermination()
    assert read(spark, gold, "kind") == [Row(kind="a", total=11), Row(kind="b", total=20), Row(kind="c", total=30)]
    txn = [t for t in DeltaTable.forPath(spark, gold).history().collect() if t.operation == "MERGE"]
    assert len(txn) == 2


def test_foreach_batch_sql_merge_on_the_batch_session(spark, source, tmp_path):
    # The pattern of Delta's docs: the batch as a temporary view of its session, MERGE in SQL.
    spark.sql("CREATE TABLE gold (id BIGINT, kind STRING, amount BIGINT)")

    def upsert(batch_df, batch_id):
        batch_df.createOrReplaceTempView("updates")
        session = batch_df.sparkSession
        session.conf.set("spark.databricks.delta.write.txnAppId", "gold-sql")
        session.conf.set("spark.databricks.delta.write.txnVersion", str(batch_id))
        session.sql("MERGE INTO gold g USING updates u ON g.id = u.id "
                    "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")

    def run():
        (spark.readStream.table("delta.`%s`" % source).writeStream.foreachBatch(upsert)
         .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True)
         .start().awaitTermination())

    run()
    spark.sql("UPDATE delta.`%s` SET amount = 0 WHERE id = 1" % source)  # not streamed: a rewrite
    append(spark, source, [(1, "a", 11)])
    with pytest.raises(StreamingQueryException):
        run()  # the UPDATE fails the stream, as Delta's source does
    assert spark.table("gold").orderBy("id").collect()[0] == Row(id=1, kind="a", amount=10)


def test_a_failing_source_fails_the_query_with_streaming_query_exception(spark, source, tmp_path):
    spark.sql("DELETE FROM delta.`%s` WHERE id = 1" % source)
    query = (spark.readStream.format("delta").option("startingVersion", "1").load(source).writeStream
             .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True)
             .start(str(tmp_path / "copy")))
    with pytest.raises(StreamingQueryException) as raised:
        query.awaitTermination()
    assert raised.value.getErrorClass() == "STREAM_FAILED"
    cause = raised.value.__cause__
    assert isinstance(cause, AnalysisException)
    assert cause.getErrorClass() in ("DELTA_SOURCE_IGNORE_DELETE", "DELTA_SOURCE_TABLE_IGNORE_CHANGES")


def test_with_watermark_checks_its_arguments(spark, source):
    spark.createDataFrame([(1, "2024-01-01 00:00:00")], "id INT, ts STRING") \
        .selectExpr("id", "CAST(ts AS TIMESTAMP) AS ts").write.format("delta").save(source + "_ts")
    stream = spark.readStream.format("delta").load(source + "_ts")
    watermarked = stream.withWatermark("ts", "10 minutes")
    assert watermarked.isStreaming and watermarked.columns == ["id", "ts"]
    with pytest.raises(AnalysisException):
        stream.withWatermark("missing", "10 minutes")
    with pytest.raises(IllegalArgumentException):
        stream.withWatermark("ts", "soon")
    batch = spark.read.format("delta").load(source + "_ts")
    assert batch.withWatermark("ts", "1 hour").collect() == batch.collect()
