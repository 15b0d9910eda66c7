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


def test_delta_source_options_skip_changes_and_limit_batches(spark, tmp_path):
    # Delta's "Table streaming reads and writes" options, as PySpark passes them.
    source = str(tmp_path / "by_day")
    spark.createDataFrame([(1, "mon"), (2, "tue"), (3, "wed")], "id BIGINT, day STRING") \
        .repartition(1).write.format("delta").partitionBy("day").save(source)

    def run(name, **options):
        reader = spark.readStream.format("delta")
        for key, value in options.items():
            reader = reader.option(key, value)
        query = (reader.load(source).writeStream.option("checkpointLocation", str(tmp_path / name / "chk"))
                 .trigger(availableNow=True).start(str(tmp_path / name / "out")))
        query.awaitTermination()
        return query, sorted(r.id for r in spark.read.format("delta").load(str(tmp_path / name / "out")).collect())

    query, ids = run("bytes", maxBytesPerTrigger="1")  # at least one file per batch
    assert ids == [1, 2, 3] and [p["numInputRows"] for p in query.recentProgress] == [1, 1, 1]
    query, ids = run("excluded", excludeRegex="day=tue")
    assert ids == [1, 3]

    # A partition-level delete fails a stream unless ignoreDeletes; an UPDATE unless skipChangeCommits.
    spark.sql("DELETE FROM delta.`%s` WHERE day = 'mon'" % source)
    spark.createDataFrame([(4, "thu")], "id BIGINT, day STRING").write.format("delta").mode("append").save(source)
    with pytest.raises(StreamingQueryException) as raised:
        run("bytes", maxBytesPerTrigger="1")
    assert raised.value.__cause__.getErrorClass() == "DELTA_SOURCE_IGNORE_DELETE"
    query, ids = run("bytes", maxBytesPerTrigger="1", ignoreDeletes="true")
    assert ids == [1, 2, 3, 4]
    spark.sql("UPDATE delta.`%s` SET id = 20 WHERE id = 2" % source)
    with pytest.raises(StreamingQueryException) as raised:
        run("bytes", maxBytesPerTrigger="1", ignoreDeletes="true")
    assert raised.value.__cause__.getErrorClass() == "DELTA_SOURCE_TABLE_IGNORE_CHANGES"
    query, ids = run("bytes", skipChangeCommits="true")
    assert ids == [1, 2, 3, 4]


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


# Stateful streaming, after the Structured Streaming programming guide's examples: "Window
# Operations on Event Time", "Handling Late Data and Watermarking" and "Streaming Deduplication".


@pytest.fixture
def words(spark, tmp_path):
    path = str(tmp_path / "words")
    spark.createDataFrame([], "timestamp TIMESTAMP, word STRING").write.format("delta").save(path)
    return path


def add_words(spark, path, rows):
    spark.createDataFrame([(t, w) for t, w in rows], "t STRING, word STRING") \
        .selectExpr("CAST(t AS TIMESTAMP) AS timestamp", "word") \
        .write.format("delta").mode("append").save(path)


def windowed_counts(spark, path):
    words = spark.readStream.format("delta").load(path)
    return words.withWatermark("timestamp", "10 minutes") \
        .groupBy(F.window(words.timestamp, "10 minutes"), words.word).count()


def test_window_groups_batch_rows_by_tumbling_window(spark):
    df = spark.createDataFrame([("2024-01-01 12:07:00", "dog"), ("2024-01-01 12:14:00", "dog")],
                               "t STRING, word STRING").selectExpr("CAST(t AS TIMESTAMP) AS ts", "word")
    counts = df.groupBy(F.window("ts", "10 minutes")).count()
    assert counts.columns == ["window", "count"]
    rows = counts.orderBy("window.start").select("window.start", "window.end", "count").collect()
    assert [(r.start.minute, r.end.minute, r["count"]) for r in rows] == [(0, 10, 1), (10, 20, 1)]
    with pytest.raises(PySparkTypeError):
        F.window("ts", 10)


def test_windowed_counts_in_update_mode_count_late_rows_and_drop_too_late_ones(spark, words, tmp_path):
    batches = []

    def collect(batch_df, batch_id):
        batches.append(sorted((r.window.start.strftime("%H:%M"), r.word, r["count"])
                              for r in batch_df.collect()))

    def run():
        query = windowed_counts(spark, words).writeStream.outputMode("update").foreachBatch(collect) \
            .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True).start()
        query.awaitTermination()
        return query

    add_words(spark, words, [("2024-01-01 12:07:00", "dog"), ("2024-01-01 12:08:00", "owl"),
                             ("2024-01-01 12:14:00", "dog"), ("2024-01-01 12:09:00", "cat")])
    run()
    assert batches[0] == [("12:00", "cat", 1), ("12:00", "dog", 1), ("12:00", "owl", 1), ("12:10", "dog", 1)]
    # The watermark is now 12:14 - 10 minutes: a row of 12:08 still updates its window, one of
    # 12:03 is too late and dropped.
    del batches[:]
    add_words(spark, words, [("2024-01-01 12:15:00", "cat"), ("2024-01-01 12:08:00", "dog"),
                             ("2024-01-01 12:03:00", "donkey")])
    query = run()
    assert [b for b in batches if b] == [[("12:00", "dog", 2), ("12:10", "cat", 1)]]
    progress = next(p for p in query.recentProgress if p["numInputRows"] == 3)
    assert PROGRESS_KEYS | {"eventTime"} <= set(progress)  # eventTime: with a watermark only
    assert progress["eventTime"]["watermark"] == "2024-01-01T12:04:00.000Z"
    assert progress["eventTime"]["min"] == "2024-01-01T12:03:00.000Z"
    assert progress["eventTime"]["max"] == "2024-01-01T12:15:00.000Z"
    (state,) = progress["stateOperators"]
    assert state["operatorName"] == "stateStoreSave"
    assert state["numRowsDroppedByWatermark"] == 1
    assert state["numRowsUpdated"] == 2
    assert state["numRowsTotal"] == 5
    assert query.lastProgress["stateOperators"][0]["operatorName"] == "stateStoreSave"


def test_windowed_counts_in_append_mode_write_a_window_once_the_watermark_passes_it(spark, words, tmp_path):
    target = str(tmp_path / "counts")

    def run():
        windowed_counts(spark, words).writeStream.format("delta").outputMode("append") \
            .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True) \
            .start(target).awaitTermination()

    def written():
        return sorted((r.start.strftime("%H:%M"), r.word, r["count"]) for r in
                      spark.read.format("delta").load(target).select("window.start", "word", "count").collect())

    add_words(spark, words, [("2024-01-01 12:07:00", "dog"), ("2024-01-01 12:08:00", "owl"),
                             ("2024-01-01 12:14:00", "dog"), ("2024-01-01 12:09:00", "dog")])
    run()
    assert written() == []  # the watermark (12:04) passed no window's end yet
    add_words(spark, words, [("2024-01-01 12:25:00", "cat"), ("2024-01-01 12:05:00", "owl")])
    run()
    # The watermark is 12:15: the windows of 12:00 are final, each written once.
    assert written() == [("12:00", "dog", 2), ("12:00", "owl", 2)]
    assert spark.read.format("delta").load(target).columns == ["window", "word", "count"]
    add_words(spark, words, [("2024-01-01 12:40:00", "cat")])
    run()
    assert written() == [("12:00", "dog", 2), ("12:00", "owl", 2), ("12:10", "dog", 1), ("12:20", "cat", 1)]
    # Without a watermark append mode cannot know when a group is final, as Spark says.
    plain = spark.readStream.format("delta").load(words).groupBy(F.window("timestamp", "10 minutes")).count()
    with pytest.raises(AnalysisException) as raised:
        plain.writeStream.outputMode("append").option("checkpointLocation", str(tmp_path / "c2")) \
            .trigger(availableNow=True).start(str(tmp_path / "other")).awaitTermination()
    assert raised.value.getErrorClass() == "STREAMING_OUTPUT_MODE_UNSUPPORTED"


def test_windowed_counts_in_complete_mode_rewrite_every_window(spark, words, tmp_path):
    target = str(tmp_path / "counts")

    def run():
        spark.readStream.format("delta").load(words).groupBy(F.window("timestamp", "10 minutes")) \
            .agg(F.count("*").alias("n"), F.max("word").alias("last")).writeStream.outputMode("complete") \
            .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True) \
            .start(target).awaitTermination()

    add_words(spark, words, [("2024-01-01 12:07:00", "dog"), ("2024-01-01 12:14:00", "owl")])
    run()
    add_words(spark, words, [("2024-01-01 12:01:00", "ant")])
    run()
    rows = spark.read.format("delta").load(target).orderBy("window.start").collect()
    assert [(r.window.start.strftime("%H:%M"), r.n, r.last) for r in rows] == [("12:00", 2, "dog"), ("12:10", 1, "owl")]


def test_drop_duplicates_on_a_stream_writes_each_key_once_across_batches(spark, tmp_path):
    events = str(tmp_path / "events")
    spark.createDataFrame([("a", 1), ("b", 2), ("a", 3)], "guid STRING, n INT").write.format("delta").save(events)
    target = str(tmp_path / "unique")

    def run():
        query = spark.readStream.format("delta").load(events).dropDuplicates(["guid"]).writeStream \
            .option("checkpointLocation", str(tmp_path / "chk")).trigger(availableNow=True).start(target)
        query.awaitTermination()
        return query

    run()
    spark.createDataFrame([("a", 4), ("c", 5), ("c", 6)], "guid STRING, n INT").write.format("delta") \
        .mode("append").save(events)
    query = run()
    rows = spark.read.format("delta").load(target).collect()
    assert sorted(r.guid for r in rows) == ["a", "b", "c"]
    assert {r.guid: r.n for r in rows}["a"] == 1  # the first row of a key, from batch 0
    assert query.lastProgress["stateOperators"][0]["operatorName"] == "dedupe"
    assert query.lastProgress["stateOperators"][0]["numRowsTotal"] == 3


def test_drop_duplicates_with_a_watermark_and_within_a_watermark(spark, tmp_path):
    events = str(tmp_path / "events")

    def add(rows):
        spark.createDataFrame(rows, "guid STRING, t STRING").selectExpr("guid", "CAST(t AS TIMESTAMP) AS eventTime") \
            .write.format("delta").mode("append").save(events)

    add([("a", "2024-01-01 10:00:00"), ("a", "2024-01-01 10:00:00"), ("b", "2024-01-01 10:00:05")])

    def run(name, make):
        out = []
        stream = spark.readStream.format("delta").load(events).withWatermark("eventTime", "10 seconds")
        make(stream).writeStream.option("checkpointLocation", str(tmp_path / name)) \
            .foreachBatch(lambda df, _: out.extend((r.guid, r.eventTime.second) for r in df.collect())) \
            .trigger(availableNow=True).start().awaitTermination()
        return sorted(out)

    def keyed(stream):
        return stream.dropDuplicates(["guid", "eventTime"])

    def within(stream):
        return stream.dropDuplicatesWithinWatermark(["guid"])

    assert run("keyed", keyed) == [("a", 0), ("b", 5)]
    assert run("within", within) == [("a", 0), ("b", 5)]
    # The watermark is now 09:59:55: guid "a" at 10:00:02 is a new key for the first query and a
    # duplicate, still within the delay, for the second.
    add([("a", "2024-01-01 10:00:02"), ("a", "2024-01-01 10:00:00"), ("c", "2024-01-01 10:00:30")])
    assert run("keyed", keyed) == [("a", 2), ("c", 30)]
    assert run("within", within) == [("c", 30)]
    # Late now (watermark 10:00:20): dropped by both.
    add([("d", "2024-01-01 10:00:10")])
    assert run("keyed", keyed) == []
    assert run("within", within) == []


def test_stateful_streaming_errors(spark, words, tmp_path):
    stream = spark.readStream.format("delta").load(words)
    with pytest.raises(AnalysisException) as raised:
        stream.withWatermark("word", "10 minutes")
    assert raised.value.getErrorClass() == "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE"
    assert '"STRING"' in str(raised.value)
    with pytest.raises(AnalysisException) as raised:
        stream.withColumn("later", F.col("timestamp")).withWatermark("later", "1 minute")
    assert raised.value.getErrorClass() == "UNSUPPORTED_FEATURE"
    with pytest.raises(AnalysisException) as raised:
        stream.dropDuplicates(["nope"])
    assert raised.value.getErrorClass().startswith("UNRESOLVED_COLUMN")

    def start(df, mode="append", name="chk"):
        df.writeStream.outputMode(mode).option("checkpointLocation", str(tmp_path / name)) \
            .foreachBatch(lambda df, _: None).trigger(availableNow=True).start().awaitTermination()

    # Only the writer may follow a deduplication.
    with pytest.raises(AnalysisException) as raised:
        start(stream.dropDuplicates(["word"]).select("word"))
    assert raised.value.getErrorClass() == "UNSUPPORTED_FEATURE"
    # dropDuplicatesWithinWatermark needs a watermark.
    with pytest.raises(AnalysisException) as raised:
        start(stream.dropDuplicatesWithinWatermark(["word"]))
    assert raised.value.getErrorClass() == "UNSUPPORTED_FEATURE"
    with pytest.raises(AnalysisException) as raised:
        start(stream.dropDuplicates(), mode="complete")
    assert raised.value.getErrorClass() == "STREAMING_OUTPUT_MODE_UNSUPPORTED"
    # Delta's sink takes append and complete, as Delta's DeltaSink does.
    with pytest.raises(AnalysisException) as raised:
        stream.groupBy("word").count().writeStream.outputMode("update") \
            .option("checkpointLocation", str(tmp_path / "update")).start(str(tmp_path / "counts"))
    assert raised.value.getErrorClass() == "DELTA_UNSUPPORTED_OUTPUT_MODE"
    # Batch DataFrames: dropDuplicatesWithinWatermark is dropDuplicates.
    batch = spark.createDataFrame([(1, "a"), (1, "b")], "k INT, v STRING")
    assert batch.dropDuplicatesWithinWatermark(["k"]).count() == 1


def test_delta_sink_max_records_per_file(spark, tmp_path):
    # The file sink option maxRecordsPerFile: each batch's rows go to files of at most that many.
    source = str(tmp_path / "source")
    spark.range(7).write.format("delta").save(source)
    target = str(tmp_path / "target")
    query = (spark.readStream.format("delta").load(source).writeStream.format("delta")
             .option("checkpointLocation", str(tmp_path / "chk")).option("maxRecordsPerFile", 2)
             .trigger(availableNow=True).start(target))
    query.awaitTermination()
    assert spark.read.format("delta").load(target).count() == 7
    files = spark.sql("SELECT count(DISTINCT _metadata.file_path) AS n FROM delta.`%s`" % target).first().n
    assert files == 4
