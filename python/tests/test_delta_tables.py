"""silt.delta.tables.DeltaTable, against delta-spark's Python API documentation
(docs.delta.io/latest/api/python: delta.tables.DeltaTable, DeltaMergeBuilder,
DeltaTableBuilder, DeltaOptimizeBuilder)."""

import datetime
import json
import pathlib
import time

import pytest

from silt.delta import configure_spark_with_delta_pip
from silt.delta.tables import DeltaTable
from silt.errors import AnalysisException, IllegalArgumentException, UnsupportedOperationException
from silt.sql import Row, functions as F
from silt.sql.types import LongType, StringType, StructField, StructType


@pytest.fixture
def table(spark, tmp_path):
    path = str(tmp_path / "people")
    spark.createDataFrame([(1, "Ada", 10), (2, "Linus", 20), (3, "Grace", 30)], "id BIGINT, name STRING, n BIGINT") \
        .write.format("delta").save(path)
    return DeltaTable.forPath(spark, path), path


def rows(spark, path):
    return spark.read.format("delta").load(path).orderBy("id").collect()


def test_for_path_for_name_and_is_delta_table(spark, tmp_path, table):
    delta, path = table
    assert DeltaTable.isDeltaTable(spark, path)
    assert not DeltaTable.isDeltaTable(spark, str(tmp_path / "nothing"))
    with pytest.raises(AnalysisException) as raised:
        DeltaTable.forPath(spark, str(tmp_path / "nothing"))
    assert raised.value.getErrorClass() == "DELTA_MISSING_DELTA_TABLE"
    spark.sql("CREATE TABLE named (id INT)")
    assert DeltaTable.forName(spark, "named").toDF().columns == ["id"]
    with pytest.raises(AnalysisException) as raised:
        DeltaTable.forName(spark, "missing")
    assert raised.value.getErrorClass() == "TABLE_OR_VIEW_NOT_FOUND"
    assert delta.toDF().count() == 3
    assert configure_spark_with_delta_pip("builder") == "builder"


def test_update_and_delete(spark, table):
    # DeltaTable.update / delete docs: conditions and values as SQL strings or Columns.
    delta, path = table
    delta.update(condition="id = 1", set={"name": "'Ada L.'"})
    delta.update(condition=F.col("id") == 2, set={"n": F.col("n") + 1})
    delta.delete("id = 3")
    assert rows(spark, path) == [Row(id=1, name="Ada L.", n=10), Row(id=2, name="Linus", n=21)]
    delta.delete()
    assert rows(spark, path) == []
    with pytest.raises(ValueError):
        delta.update(condition="id = 1")


def test_merge_with_every_clause(spark, table):
    # DeltaTable.merge docs: whenMatchedUpdate / Delete, whenNotMatchedInsert(All),
    # whenNotMatchedBySource*, execute().
    delta, path = table
    source = spark.createDataFrame([(1, "Ada2", 11), (2, None, 0), (4, "Barbara", 40)],
                                   "id BIGINT, name STRING, n BIGINT")
    metrics = (
        delta.alias("t").merge(source.alias("s"), "t.id = s.id")
        .whenMatchedDelete(condition="s.name IS NULL")
        .whenMatchedUpdate(set={"name": "s.name", "n": F.col("s.n") * 10})
        .whenNotMatchedInsert(values={"id": "s.id", "name": "s.name", "n": "s.n"})
        .whenNotMatchedBySourceUpdate(condition="t.n > 20", set={"n": "0"})
        .execute()
    )
    assert metrics.collect() == [Row(num_affected_rows=4, num_updated_rows=2, num_deleted_rows=1,
                                     num_inserted_rows=1)]
    assert rows(spark, path) == [Row(id=1, name="Ada2", n=110), Row(id=3, name="Grace", n=0),
                                 Row(id=4, name="Barbara", n=40)]
    other = spark.createDataFrame([(4, "B", 1), (5, "E", 5)], "id BIGINT, name STRING, n BIGINT")
    delta.alias("t").merge(other.alias("s"), "t.id = s.id").whenMatchedUpdateAll() \
        .whenNotMatchedInsertAll().whenNotMatchedBySourceDelete(condition="t.id = 3").execute()
    assert rows(spark, path) == [Row(id=1, name="Ada2", n=110), Row(id=4, name="B", n=1), Row(id=5, name="E", n=5)]


def test_merge_errors(spark, table):
    delta, path = table
    duplicates = spark.createDataFrame([(1, "x", 1), (1, "y", 2)], "id BIGINT, name STRING, n BIGINT")
    with pytest.raises(Exception) as raised:
        delta.alias("t").merge(duplicates.alias("s"), "t.id = s.id").whenMatchedUpdateAll().execute()
    assert raised.value.getErrorClass() == "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE"
    with pytest.raises(AnalysisException) as raised:
        delta.alias("t").merge(duplicates.alias("s"), "t.id = s.id").execute()
    assert raised.value.getErrorClass() == "DELTA_MERGE_MISSING_WHEN"


def test_merge_with_schema_evolution_and_a_named_source(spark, table):
    delta, path = table
    wider = spark.createDataFrame([(5, "Eve", 50, "x")], "id BIGINT, name STRING, n BIGINT, extra STRING")
    wider.createOrReplaceTempView("updates")
    delta.alias("t").merge(spark.table("updates"), "t.id = updates.id") \
        .whenNotMatchedInsertAll().withSchemaEvolution().execute()
    assert spark.read.format("delta").load(path).columns == ["id", "name", "n", "extra"]
    assert rows(spark, path)[-1] == Row(id=5, name="Eve", n=50, extra="x")


def test_history_detail_vacuum_optimize_restore(spark, table):
    delta, path = table
    delta.delete("id = 1")
    history = delta.history()
    assert [r.version for r in history.collect()] == [1, 0]
    assert [r.operation for r in delta.history(1).collect()] == ["DELETE"]
    detail = delta.detail().first()
    assert detail.format == "delta" and detail.numFiles >= 1
    assert "path" in delta.optimize().executeCompaction().columns
    delta.optimize().executeZOrderBy("n")
    delta.restoreToVersion(0)
    assert len(rows(spark, path)) == 3
    vacuumed = delta.vacuum()
    assert vacuumed.columns == ["path"]
    time.sleep(0.01)
    stamp = delta.history().orderBy("version").first().timestamp
    assert stamp < datetime.datetime.now() + datetime.timedelta(seconds=5)


def test_restore_to_timestamp(spark, table):
    delta, path = table
    time.sleep(0.2)
    delta.delete("id = 1")
    second = delta.history().orderBy("version").collect()[1].timestamp
    before = (second - datetime.timedelta(milliseconds=100)).astimezone(datetime.timezone.utc)
    metrics = delta.restoreToTimestamp(before.replace(tzinfo=None).isoformat(sep=" "))
    assert "num_restored_files" in metrics.columns
    assert len(rows(spark, path)) == 3


def test_shallow_clones(spark, tmp_path, table):
    delta, path = table
    delta.delete("id = 1")
    clone_path = str(tmp_path / "clone")
    clone = delta.clone(clone_path, isShallow=True)
    assert [r.id for r in clone.toDF().orderBy("id").collect()] == [2, 3]
    assert clone.history().first().operation == "CLONE"
    at_zero = delta.cloneAtVersion(0, "people_v0", isShallow=True, properties={"delta.appendOnly": "true"})
    assert at_zero.toDF().count() == 3
    assert spark.sql("SHOW TBLPROPERTIES people_v0").where("key = 'delta.appendOnly'").first().value == "true"
    # A clone is a table of its own.
    clone.delete("id = 2")
    assert len(rows(spark, path)) == 2
    clone = delta.clone(clone_path, isShallow=True, replace=True)
    assert clone.toDF().count() == 2
    with pytest.raises(Exception) as raised:
        delta.clone(str(tmp_path / "deep"), isShallow=False)
    assert raised.value.getErrorClass() == "NOT_IMPLEMENTED"


def test_table_builders(spark, tmp_path):
    # DeltaTableBuilder docs: tableName / location, addColumn(s), partitionedBy, property,
    # comment, execute.
    created = (
        DeltaTable.create(spark).tableName("events")
        .addColumn("id", "BIGINT", nullable=False)
        .addColumn("day", "DATE")
        .addColumn("year", "INT", generatedAlwaysAs="year(day)")
        .addColumns(StructType([StructField("note", StringType())]))
        .partitionedBy("year")
        .property("delta.appendOnly", "true")
        .comment("events table")
        .execute()
    )
    spark.sql("INSERT INTO events (id, day, note) VALUES (1, DATE'2024-05-01', 'x')")
    assert created.toDF().collect() == [Row(id=1, day=datetime.date(2024, 5, 1), year=2024, note="x")]
    detail = created.detail().first()
    assert detail.partitionColumns == ["year"] and detail.properties["delta.appendOnly"] == "true"
    with pytest.raises(AnalysisException):
        DeltaTable.create(spark).tableName("events").addColumn("id", LongType()).execute()
    same = DeltaTable.createIfNotExists(spark).tableName("events").addColumn("id", LongType()).execute()
    assert same.toDF().count() == 1
    by_path = DeltaTable.createOrReplace(spark).location(str(tmp_path / "p")).addColumn("id", "INT").execute()
    assert by_path.toDF().columns == ["id"]
    replaced = DeltaTable.replace(spark).location(str(tmp_path / "p")).addColumn("other", "STRING").execute()
    assert replaced.toDF().columns == ["other"]


def test_clustered_tables(spark, tmp_path):
    # DeltaTableBuilder.clusterBy and DataFrameWriter(V2).clusterBy create clustered tables;
    # optimize() clusters them (liquid clustering).
    built = (
        DeltaTable.create(spark).tableName("clustered")
        .addColumn("id", "BIGINT")
        .addColumn("s", "STRUCT<a: INT, b: STRING>")
        .clusterBy("id", "s.a")
        .execute()
    )
    assert built.detail().first().clusteringColumns == ["id", "s.a"]
    assert [(c.name, c.isCluster) for c in spark.catalog.listColumns("clustered")] == [("id", True), ("s", False)]
    path = str(tmp_path / "written")
    spark.range(100).selectExpr("id", "id % 7 AS k").write.format("delta").clusterBy("k").save(path)
    written = DeltaTable.forPath(spark, path)
    assert written.detail().first().clusteringColumns == ["k"]
    assert "clustering" in written.detail().first().tableFeatures
    spark.range(100, 150).selectExpr("id", "id % 7 AS k").write.format("delta").mode("append") \
        .clusterBy("k").save(path)
    with pytest.raises(AnalysisException) as raised:
        spark.range(3).selectExpr("id", "id AS k").write.format("delta").mode("append") \
            .clusterBy("id").save(path)
    assert raised.value.getErrorClass() == "DELTA_CLUSTERING_COLUMNS_MISMATCH"
    written.optimize().executeCompaction()
    assert written.history(1).first().operationParameters["clusterBy"] == '["k"]'
    assert written.toDF().count() == 150
    spark.range(5).writeTo("v2_clustered").clusterBy("id").create()
    assert DeltaTable.forName(spark, "v2_clustered").detail().first().clusteringColumns == ["id"]


def test_convert_to_delta_and_protocol(spark, tmp_path):
    spark.range(3).write.format("delta").save(str(tmp_path / "d"))
    parquet_dir = tmp_path / "raw"
    parquet_dir.mkdir()
    for file in (tmp_path / "d").glob("*.parquet"):
        (parquet_dir / file.name).write_bytes(file.read_bytes())
    converted = DeltaTable.convertToDelta(spark, "parquet.`%s`" % parquet_dir)
    assert converted.toDF().count() == 3
    # upgradeTableProtocol sets Delta's protocol properties in one commit.
    converted.upgradeTableProtocol(1, 4)
    last = converted.history(1).first()
    assert last.operation == "SET TBLPROPERTIES"
    assert "delta.minWriterVersion" in last.operationParameters["properties"]


def last_commit(path):
    log = sorted((path / "_delta_log").glob("*.json"))[-1]
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def test_upgrade_table_protocol_writes_a_protocol_action(spark, tmp_path):
    # delta-spark's upgradeTableProtocol: the protocol action of the commit carries the new
    # versions, which never go down; the versions are not kept as table properties.
    path = tmp_path / "t"
    spark.range(3).write.format("delta").save(str(path))
    table = DeltaTable.forPath(spark, str(path))
    table.upgradeTableProtocol(1, 4)
    actions = last_commit(path)
    protocol = [a["protocol"] for a in actions if "protocol" in a]
    assert protocol == [{"minReaderVersion": 1, "minWriterVersion": 4}]
    configuration = [a["metaData"]["configuration"] for a in actions if "metaData" in a]
    assert all("delta.minWriterVersion" not in c and "delta.minReaderVersion" not in c for c in configuration)
    detail = table.detail().first()
    assert (detail.minReaderVersion, detail.minWriterVersion) == (1, 4)
    # Asking for less changes nothing.
    table.upgradeTableProtocol(1, 2)
    assert not any("protocol" in a for a in last_commit(path))
    assert table.detail().first().minWriterVersion == 4
    # Table features: (3, 7) lists the features (1, 4) implied.
    table.upgradeTableProtocol(3, 7)
    protocol = [a["protocol"] for a in last_commit(path) if "protocol" in a][0]
    assert (protocol["minReaderVersion"], protocol["minWriterVersion"]) == (3, 7)
    assert protocol["readerFeatures"] == []
    assert {"appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns"} <= \
        set(protocol["writerFeatures"])
    assert table.toDF().count() == 3
    with pytest.raises(Exception) as raised:
        table.upgradeTableProtocol(4, 7)  # Delta's reader versions are 1 to 3
    assert raised.value.getErrorClass() == "INVALID_CONFIGURATION"


def test_merge_conditions_may_use_columns_of_the_source_dataframe(spark, table):
    # A source DataFrame's own Columns resolve to its alias in the merge.
    delta, path = table
    source = spark.createDataFrame([(2, "L", 99)], "id BIGINT, name STRING, n BIGINT")
    delta.alias("t").merge(source.alias("s"), F.col("t.id") == source.id) \
        .whenMatchedUpdate(set={"n": source.n}).execute()
    assert rows(spark, path)[1] == Row(id=2, name="Linus", n=99)


def test_generate_symlink_format_manifest(spark, tmp_path):
    # DeltaTable.generate docs: "symlink_format_manifest" writes manifests of the current files.
    path = tmp_path / "events"
    spark.createDataFrame([(1, "a b"), (2, "x/y"), (3, None)], "id BIGINT, part STRING") \
        .write.format("delta").partitionBy("part").save(str(path))
    delta = DeltaTable.forPath(spark, str(path))
    delta.generate("symlink_format_manifest")
    root = path / "_symlink_format_manifest"
    manifests = sorted(str(p.relative_to(root)) for p in root.rglob("manifest"))
    assert manifests == ["part=__HIVE_DEFAULT_PARTITION__/manifest", "part=a b/manifest", "part=x%2Fy/manifest"]
    lines = (root / "part=a b" / "manifest").read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("file:" + str(path) + "/") and lines[0].endswith(".parquet")
    assert pathlib.Path(lines[0][len("file:"):]).is_file()
    delta.delete("part = 'a b'")
    delta.generate("symlink_format_manifest")
    assert not (root / "part=a b").exists()
    assert (root / "part=x%2Fy" / "manifest").is_file()
    with pytest.raises(IllegalArgumentException) as raised:
        delta.generate("other")
    assert raised.value.getErrorClass() == "DELTA_MODE_NOT_SUPPORTED"


def test_generate_refuses_deletion_vectors(spark):
    spark.sql("CREATE TABLE dv (id INT) TBLPROPERTIES (delta.enableDeletionVectors = true)")
    spark.sql("INSERT INTO dv VALUES (1), (2), (3)")
    spark.sql("DELETE FROM dv WHERE id = 2")
    with pytest.raises(UnsupportedOperationException) as raised:
        DeltaTable.forName(spark, "dv").generate("symlink_format_manifest")
    assert raised.value.getErrorClass() == "DELTA_UNSUPPORTED_GENERATE_WITH_DELETION_VECTORS"
