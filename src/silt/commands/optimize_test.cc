// OPTIMIZE through the statement executor: file counts (DESCRIBE DETAIL), Spark's result row,
// the commit's actions, parameters and metrics, partition predicates, Z-order settings and the
// change data feed.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/commands/dml_testing.h"
#include "silt/log/file_rewrite.h"
#include "silt/log/file_stats.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class OptimizeTest : public DmlTest {
 protected:
  // numFiles of DESCRIBE DETAIL.
  int64_t NumFiles(const std::string& table) {
    StatementResult detail = Sql("DESCRIBE DETAIL " + table);
    int index = detail.schema->FieldIndex("numFiles");
    EXPECT_GE(index, 0);
    return detail.batches.at(0).column(static_cast<size_t>(index))->values<int64_t>()[0];
  }

  // A top-level field of the `metrics` struct of OPTIMIZE's result row.
  static VectorPtr MetricsField(const StatementResult& result, const std::string& name) {
    const Field& metrics = result.schema->field(1);
    for (size_t i = 0; i < metrics.type->fields().size(); ++i) {
      if (metrics.type->fields()[i].name == name)
        return result.batches.at(0).column(1)->StructField(i);
    }
    ADD_FAILURE() << "no metrics field " << name;
    return nullptr;
  }
};

TEST_F(OptimizeTest, CompactsAndReportsDeltaMetrics) {
  Sql("CREATE TABLE t (id INT, v STRING, p STRING) USING delta PARTITIONED BY (p)");
  Sql("INSERT INTO t VALUES (1, 'a', 'x'), (2, 'b', 'y')");
  Sql("INSERT INTO t VALUES (3, 'c', 'x'), (4, 'd', 'y')");
  Sql("INSERT INTO t VALUES (5, 'e', 'x')");
  EXPECT_EQ(NumFiles("t"), 5);

  StatementResult result = Sql("OPTIMIZE t");
  EXPECT_EQ(result.schema->field(0).name, "path");
  EXPECT_EQ(result.schema->field(1).name, "metrics");
  ASSERT_EQ(result.num_rows(), 1);
  EXPECT_EQ(result.batches[0].column(0)->GetString(0), Location("t"));
  EXPECT_EQ(MetricsField(result, "numFilesAdded")->values<int64_t>()[0], 2);
  EXPECT_EQ(MetricsField(result, "numFilesRemoved")->values<int64_t>()[0], 5);
  EXPECT_EQ(MetricsField(result, "partitionsOptimized")->values<int64_t>()[0], 2);
  EXPECT_EQ(MetricsField(result, "totalConsideredFiles")->values<int64_t>()[0], 5);
  EXPECT_TRUE(MetricsField(result, "zOrderStats")->IsNull(0));
  EXPECT_EQ(MetricsField(result, "numTableColumns")->values<int64_t>()[0], 3);
  EXPECT_EQ(MetricsField(result, "filesRemoved")->StructField(3)->values<int64_t>()[0], 5);
  EXPECT_EQ(NumFiles("t"), 2);

  auto actions = Commit("t");
  auto removes = Of<log::RemoveFile>(actions);
  auto adds = Of<log::AddFile>(actions);
  ASSERT_THAT(removes, SizeIs(5));
  ASSERT_THAT(adds, SizeIs(2));
  for (const auto& remove : removes) EXPECT_FALSE(remove.data_change);
  for (const auto& add : adds) EXPECT_FALSE(add.data_change);
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "OPTIMIZE");
  EXPECT_EQ(Parameter(info, "predicate"), R"("[]")");
  EXPECT_EQ(Parameter(info, "zOrderBy"), R"("[]")");
  EXPECT_EQ(Parameter(info, "auto"), "false");
  int64_t added_bytes = adds[0].size + adds[1].size;
  EXPECT_EQ(Metric(info, "numAddedFiles"), "2");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "5");
  EXPECT_EQ(Metric(info, "numAddedBytes"), std::to_string(added_bytes));
  EXPECT_EQ(Metric(info, "minFileSize"), std::to_string(std::min(adds[0].size, adds[1].size)));
  EXPECT_EQ(Metric(info, "maxFileSize"), std::to_string(std::max(adds[0].size, adds[1].size)));
  for (const char* name : {"numRemovedBytes", "p25FileSize", "p50FileSize", "p75FileSize",
                           "numDeletionVectorsRemoved"}) {
    EXPECT_NE(Metric(info, name), "<absent>") << name;
  }
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("1", "2", "3", "4", "5"));
}

TEST_F(OptimizeTest, NothingToDoCommitsNothing) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1), (2)");
  int64_t version = Latest("t")->version();
  StatementResult result = Sql("OPTIMIZE t");
  EXPECT_EQ(Latest("t")->version(), version);
  EXPECT_EQ(MetricsField(result, "numFilesAdded")->values<int64_t>()[0], 0);
  EXPECT_EQ(MetricsField(result, "totalFilesSkipped")->values<int64_t>()[0], 1);
}

TEST_F(OptimizeTest, PartitionPredicateLimitsTheWork) {
  Sql("CREATE TABLE t (id INT, p STRING) USING delta PARTITIONED BY (p)");
  Sql("INSERT INTO t VALUES (1, 'x'), (2, 'y')");
  Sql("INSERT INTO t VALUES (3, 'x'), (4, 'y')");
  Sql("OPTIMIZE t WHERE p = 'x'");
  EXPECT_EQ(NumFiles("t"), 3);
  auto info = Of<log::CommitInfo>(Commit("t")).at(0);
  EXPECT_EQ(Parameter(info, "predicate"), R"("[\"(p = 'x')\"]")");
  EXPECT_THAT(Of<log::RemoveFile>(Commit("t")), SizeIs(2));
  EXPECT_EQ(ErrorClassOf("OPTIMIZE t WHERE id > 1"), "DELTA_NON_PARTITION_COLUMN_REFERENCE");
}

TEST_F(OptimizeTest, TargetFileSizeSplitsBins) {
  Sql("CREATE TABLE t (id INT) USING delta");
  for (int i = 0; i < 4; ++i) Sql("INSERT INTO t VALUES (" + std::to_string(i) + ")");
  int64_t size = Latest("t")->files()[0].size;
  // Two files fit under the target, three do not.
  Sql("ALTER TABLE t SET TBLPROPERTIES (delta.targetFileSize = '" +
      std::to_string(size * 2 + size / 2) + "')");
  Sql("OPTIMIZE t");
  EXPECT_EQ(NumFiles("t"), 2);
}

TEST_F(OptimizeTest, ZOrderWritesFilesOfTheConfiguredSize) {
  Sql("CREATE TABLE t (x INT, y INT) USING delta");
  for (int i = 0; i < 4; ++i) {
    Sql("INSERT INTO t SELECT CAST((id * 37 + " + std::to_string(i) +
        " * 11) % 64 AS INT), CAST((id * 23 + 7) % 64 AS INT) FROM range(64)");
  }
  int64_t bytes = 0;
  auto snapshot = Latest("t");  // held: a range-for over a temporary's member would dangle
  for (const auto& add : snapshot->files()) bytes += add.size;
  Sql("SET spark.databricks.delta.optimize.maxFileSize = " + std::to_string(bytes / 4));
  StatementResult result = Sql("OPTIMIZE t ZORDER BY (x, y)");
  EXPECT_EQ(NumFiles("t"), 4);
  EXPECT_FALSE(MetricsField(result, "zOrderStats")->IsNull(0));
  auto info = Of<log::CommitInfo>(Commit("t")).at(0);
  EXPECT_EQ(Parameter(info, "zOrderBy"), R"("[\"x\",\"y\"]")");
  EXPECT_THAT(Query("SELECT count(*), sum(x), sum(y) FROM t"),
              ElementsAre(Query("SELECT count(*), sum(x), sum(y) FROM t VERSION AS OF 4").at(0)));
}

TEST_F(OptimizeTest, WritesNoChangeDataWithTheFeedOn) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES (delta.enableChangeDataFeed = true)");
  Sql("INSERT INTO t VALUES (1)");
  Sql("INSERT INTO t VALUES (2)");
  Sql("OPTIMIZE t");
  auto actions = Commit("t");
  EXPECT_THAT(Of<log::AddCdcFile>(actions), IsEmpty());
  EXPECT_THAT(Of<log::AddFile>(actions), SizeIs(1));
  EXPECT_EQ(Of<log::CommitInfo>(actions).at(0).operation, "OPTIMIZE");
}

TEST_F(OptimizeTest, PurgesDeletionVectors) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO t VALUES (1), (2), (3), (4)");
  Sql("DELETE FROM t WHERE id = 2");
  ASSERT_TRUE(Latest("t")->files().at(0).deletion_vector.has_value());
  StatementResult result = Sql("OPTIMIZE t");
  auto files = Latest("t")->files();
  ASSERT_THAT(files, SizeIs(1));
  EXPECT_FALSE(files[0].deletion_vector.has_value());
  EXPECT_EQ(log::FileStats::Parse(*files[0].stats, files[0].path).num_records(), 3);
  EXPECT_FALSE(MetricsField(result, "deletionVectorStats")->IsNull(0));
  EXPECT_EQ(Metric(Of<log::CommitInfo>(Commit("t")).at(0), "numDeletionVectorsRemoved"), "1");
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("1", "3", "4"));
}

TEST_F(OptimizeTest, ReorgPurgesEveryDeletionVectorWhateverItsShare) {
  Sql("CREATE TABLE t (id INT, p INT) USING delta PARTITIONED BY (p) "
      "TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO t SELECT id, CAST(id % 2 AS INT) FROM range(1000)");
  Sql("INSERT INTO t SELECT id, CAST(id % 2 AS INT) FROM range(1000, 1200)");
  // One row in 500 of partition 1: below OPTIMIZE's 5% ratio, so OPTIMIZE (with no file small
  // enough to compact) keeps the vector; REORG ignores both settings.
  Sql("DELETE FROM t WHERE id = 501");
  Sql("SET spark.databricks.delta.optimize.minFileSize = 1");
  Sql("OPTIMIZE t");
  auto with_vector = [&] {
    int files = 0;
    auto snapshot = Latest("t");
    for (const auto& file : snapshot->files()) files += file.deletion_vector.has_value();
    return files;
  };
  ASSERT_EQ(with_vector(), 1);
  int64_t version = Latest("t")->version();

  // A predicate that selects no file with a vector commits nothing.
  StatementResult nothing = Sql("REORG TABLE t WHERE p = 0 APPLY (PURGE)");
  EXPECT_EQ(MetricsField(nothing, "numFilesRemoved")->values<int64_t>()[0], 0);
  EXPECT_EQ(Latest("t")->version(), version);

  StatementResult result = Sql("REORG TABLE t APPLY (PURGE)");
  EXPECT_EQ(result.schema->field(0).name, "path");
  EXPECT_EQ(with_vector(), 0);
  // Only partition 1's file with the vector was rewritten, alone.
  EXPECT_EQ(MetricsField(result, "numFilesRemoved")->values<int64_t>()[0], 1);
  EXPECT_EQ(MetricsField(result, "numFilesAdded")->values<int64_t>()[0], 1);
  auto actions = Commit("t");
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "REORG");
  EXPECT_EQ(Parameter(info, "predicate"), R"("[]")");
  EXPECT_EQ(Parameter(info, "applyPurge"), "true");
  EXPECT_EQ(Metric(info, "numDeletionVectorsRemoved"), "1");
  for (const auto& add : Of<log::AddFile>(actions)) EXPECT_FALSE(add.data_change);
  EXPECT_THAT(Query("SELECT count(*), sum(id) FROM t"), ElementsAre("1199,718899"));

  // Nothing left to purge: no commit.
  version = Latest("t")->version();
  Sql("REORG TABLE t APPLY (PURGE)");
  EXPECT_EQ(Latest("t")->version(), version);
  EXPECT_EQ(ErrorClassOf("REORG TABLE t WHERE id = 1 APPLY (PURGE)"),
            "DELTA_NON_PARTITION_COLUMN_REFERENCE");
  EXPECT_EQ(ErrorClassOf("REORG TABLE t APPLY (UPGRADE UNIFORM (ICEBERG_COMPAT_VERSION = 2))"),
            "NOT_IMPLEMENTED");
}

TEST_F(OptimizeTest, ReorgRewritesFilesHoldingDroppedColumns) {
  Sql("CREATE TABLE t (id INT, gone STRING, kept STRUCT<a: INT, b: INT>) USING delta "
      "TBLPROPERTIES (delta.columnMapping.mode = 'name')");
  Sql("INSERT INTO t VALUES (1, 'x', named_struct('a', 1, 'b', 2))");
  Sql("INSERT INTO t VALUES (2, 'y', named_struct('a', 3, 'b', 4))");
  Sql("ALTER TABLE t DROP COLUMN gone");
  Sql("INSERT INTO t VALUES (3, named_struct('a', 5, 'b', 6))");
  // The two files written before the drop still hold `gone`; the third does not.
  StatementResult result = Sql("REORG TABLE t APPLY (PURGE)");
  EXPECT_EQ(MetricsField(result, "numFilesRemoved")->values<int64_t>()[0], 2);
  auto snapshot = Latest("t");
  EXPECT_THAT(log::FilesWithDroppedColumns(snapshot), IsEmpty());
  EXPECT_THAT(Query("SELECT id, kept.a, kept.b FROM t ORDER BY id"),
              ElementsAre("1,1,2", "2,3,4", "3,5,6"));
  // A dropped struct field counts too.
  Sql("ALTER TABLE t DROP COLUMN kept.b");
  EXPECT_THAT(log::FilesWithDroppedColumns(Latest("t")), SizeIs(2));
  Sql("REORG TABLE t APPLY (PURGE)");
  EXPECT_THAT(log::FilesWithDroppedColumns(Latest("t")), IsEmpty());
  EXPECT_THAT(Query("SELECT id, kept.a FROM t ORDER BY id"), ElementsAre("1,1", "2,3", "3,5"));
}

TEST_F(OptimizeTest, InvalidSettingsAreRejected) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("SET spark.databricks.delta.optimize.minFileSize = tiny");
  EXPECT_EQ(ErrorClassOf("OPTIMIZE t"), "INVALID_CONF_VALUE");
  Sql("RESET spark.databricks.delta.optimize.minFileSize");
  Sql("SET spark.databricks.delta.optimize.maxDeletedRowsRatio = 2");
  EXPECT_EQ(ErrorClassOf("OPTIMIZE t"), "INVALID_CONF_VALUE");
}

}  // namespace
}  // namespace silt::commands
