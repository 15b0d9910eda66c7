// DELETE through the statement executor: which files are rewritten or dropped, the commit's
// operation, parameters and metrics, change data, and failed statements committing nothing.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/commands/dml_testing.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

class DeleteTest : public DmlTest {};

TEST_F(DeleteTest, RewritesOnlyFilesWithMatchingRowsAndRecordsDeltaMetrics) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("INSERT INTO t VALUES (10, 'x'), (11, 'y')");
  Sql("INSERT INTO t VALUES (20, 'z')");
  int64_t before = Latest("t")->version();

  EXPECT_THAT(Query("DELETE FROM t WHERE id = 2"), ElementsAre("1"));

  auto actions = Commit("t");
  EXPECT_EQ(Latest("t")->version(), before + 1);
  auto removes = Of<log::RemoveFile>(actions);
  auto adds = Of<log::AddFile>(actions);
  ASSERT_THAT(removes, SizeIs(1));
  ASSERT_THAT(adds, SizeIs(1));
  EXPECT_TRUE(removes[0].data_change);
  EXPECT_THAT(Of<log::AddCdcFile>(actions), IsEmpty());
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "DELETE");
  EXPECT_EQ(Parameter(info, "predicate"), R"("[\"(id = 2)\"]")");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "1");
  EXPECT_EQ(Metric(info, "numDeletedRows"), "1");
  EXPECT_EQ(Metric(info, "numCopiedRows"), "2");
  EXPECT_EQ(Metric(info, "numAddedChangeFiles"), "0");
  EXPECT_EQ(Metric(info, "numRemovedBytes"), std::to_string(*removes[0].size));
  EXPECT_EQ(Metric(info, "numAddedBytes"), std::to_string(adds[0].size));
  EXPECT_EQ(Metric(info, "numDeletionVectorsAdded"), "0");
  EXPECT_EQ(Metric(info, "numDeletionVectorsRemoved"), "0");
  EXPECT_EQ(Metric(info, "numDeletionVectorsUpdated"), "0");
  for (const char* name : {"executionTimeMs", "scanTimeMs", "rewriteTimeMs"}) {
    EXPECT_NE(Metric(info, name), "<absent>") << name;
  }
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("1", "3", "10", "11", "20"));
  EXPECT_THAT(Latest("t")->files(), SizeIs(3));
}

TEST_F(DeleteTest, FilesWhoseStatisticsProveAMatchAreRemovedWithoutRewriting) {
  Sql("CREATE TABLE t (id BIGINT, v STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  Sql("INSERT INTO t VALUES (100, 'x'), (101, 'y')");
  EXPECT_THAT(Query("DELETE FROM t WHERE id >= 50"), ElementsAre("2"));
  auto actions = Commit("t");
  EXPECT_THAT(Of<log::RemoveFile>(actions), SizeIs(1));
  EXPECT_THAT(Of<log::AddFile>(actions), IsEmpty());
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numDeletedRows"), "2");
  EXPECT_EQ(Metric(info, "numCopiedRows"), "0");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "0");
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("1", "2"));
}

TEST_F(DeleteTest, PartitionAndUnconditionalDeletesNeverReadTheFilesTheyDrop) {
  Sql("CREATE TABLE p (id INT, part STRING) USING delta PARTITIONED BY (part)");
  Sql("INSERT INTO p VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'c')");
  // Losing the data files of partition 'a' does not matter to a metadata-only delete.
  auto snapshot = Latest("p");
  for (const auto& file : snapshot->files()) {
    if (file.partition_values.at(0).second == "a") fs_->Delete(snapshot->ResolvePath(file.path));
  }
  EXPECT_THAT(Query("DELETE FROM p WHERE part = 'a'"), ElementsAre("2"));
  auto info = Of<log::CommitInfo>(Commit("p")).at(0);
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "0");
  EXPECT_EQ(Metric(info, "numDeletedRows"), "2");
  EXPECT_EQ(Parameter(info, "predicate"), R"("[\"(part = 'a')\"]")");

  EXPECT_THAT(Query("DELETE FROM p"), ElementsAre("2"));
  info = Of<log::CommitInfo>(Commit("p")).at(0);
  EXPECT_EQ(Parameter(info, "predicate"), R"("[]")");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "2");
  EXPECT_THAT(Latest("p")->files(), IsEmpty());
}

TEST_F(DeleteTest, NothingMatchingOrAFailingPredicateCommitsNothing) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1), (2)");
  int64_t version = Latest("t")->version();
  EXPECT_THAT(Query("DELETE FROM t WHERE id > 5"), ElementsAre("0"));
  EXPECT_EQ(ErrorClassOf("DELETE FROM t WHERE id / 0 > 1"), "DIVIDE_BY_ZERO");
  EXPECT_EQ(ErrorClassOf("DELETE FROM t WHERE nope = 1"), "UNRESOLVED_COLUMN");
  EXPECT_EQ(Latest("t")->version(), version);
}

TEST_F(DeleteTest, ChangeDataFeedWritesDeleteRowsForRewrittenFiles) {
  Sql("CREATE TABLE c (id INT, part STRING, v STRING) USING delta PARTITIONED BY (part) "
      "TBLPROPERTIES (delta.enableChangeDataFeed = true)");
  Sql("INSERT INTO c VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z'), (4, 'b', 'w')");
  EXPECT_THAT(Query("DELETE FROM c WHERE v IN ('y', 'z', 'w')"), ElementsAre("3"));
  auto actions = Commit("c");
  auto cdc = Of<log::AddCdcFile>(actions);
  ASSERT_THAT(cdc, SizeIs(2));
  for (const auto& file : cdc) {
    EXPECT_THAT(file.path, StartsWith("_change_data/part="));
    EXPECT_FALSE(file.data_change);
    EXPECT_GT(file.size, 0);
  }
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numAddedChangeFiles"), "2");
  EXPECT_EQ(Metric(info, "numDeletedRows"), "3");
  // Partition 'b' lost all its rows: removed with no new data file, its deletes in change data.
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "2");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "1");
  std::vector<std::string> change_rows;
  for (const auto& file : cdc) {
    for (const auto& row : Query("SELECT id, v, _change_type FROM parquet.`" +
                                 io::JoinPath(Location("c"), log::DecodeLogPath(file.path)) + "`")) {
      change_rows.push_back(row + "," + file.partition_values.at(0).second.value_or("NULL"));
    }
  }
  EXPECT_THAT(change_rows,
              UnorderedElementsAre("2,y,delete,a", "3,z,delete,b", "4,w,delete,b"));
  EXPECT_THAT(Query("SELECT id, part, v FROM c"), ElementsAre("1,a,x"));

  // A partition-only delete drops files whole: readers derive its deletes from the removes.
  Sql("INSERT INTO c VALUES (5, 'b', 'v')");
  EXPECT_THAT(Query("DELETE FROM c WHERE part = 'b'"), ElementsAre("1"));
  EXPECT_THAT(Of<log::AddCdcFile>(Commit("c")), IsEmpty());
}

}  // namespace
}  // namespace silt::commands
