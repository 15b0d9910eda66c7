// UPDATE through the statement executor: rewritten files, the commit's operation, parameters
// and metrics, change data with pre- and post-images, and failed statements committing nothing.
// Also the shared DML machinery's row positions.

#include <algorithm>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/commands/dml_support.h"
#include "silt/commands/dml_testing.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/transaction.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

class UpdateTest : public DmlTest {};

TEST_F(UpdateTest, RewritesOnlyFilesWithMatchingRowsAndRecordsDeltaMetrics) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("INSERT INTO t VALUES (10, 'x')");
  EXPECT_THAT(Query("UPDATE t SET v = concat(v, '!') WHERE id < 3"), ElementsAre("2"));
  auto actions = Commit("t");
  auto removes = Of<log::RemoveFile>(actions);
  auto adds = Of<log::AddFile>(actions);
  ASSERT_THAT(removes, SizeIs(1));
  ASSERT_THAT(adds, SizeIs(1));
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "UPDATE");
  EXPECT_EQ(Parameter(info, "predicate"), R"("[\"(id < 3)\"]")");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "1");
  EXPECT_EQ(Metric(info, "numUpdatedRows"), "2");
  EXPECT_EQ(Metric(info, "numCopiedRows"), "1");
  EXPECT_EQ(Metric(info, "numAddedChangeFiles"), "0");
  EXPECT_EQ(Metric(info, "numRemovedBytes"), std::to_string(*removes[0].size));
  EXPECT_EQ(Metric(info, "numAddedBytes"), std::to_string(adds[0].size));
  for (const char* name : {"executionTimeMs", "scanTimeMs", "rewriteTimeMs",
                           "numDeletionVectorsAdded", "numDeletionVectorsRemoved",
                           "numDeletionVectorsUpdated"}) {
    EXPECT_NE(Metric(info, name), "<absent>") << name;
  }
  EXPECT_THAT(Query("SELECT id, v FROM t ORDER BY id"), ElementsAre("1,a!", "2,b!", "3,c", "10,x"));

  // Without WHERE every file is rewritten and no predicate is recorded.
  EXPECT_THAT(Query("UPDATE t SET id = -id"), ElementsAre("4"));
  info = Of<log::CommitInfo>(Commit("t")).at(0);
  EXPECT_EQ(Parameter(info, "predicate"), "<absent>");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "2");
  EXPECT_EQ(Metric(info, "numCopiedRows"), "0");
}

TEST_F(UpdateTest, FailedOrEmptyUpdatesCommitNothing) {
  Sql("CREATE TABLE t (id INT NOT NULL, small SMALLINT) USING delta");
  Sql("ALTER TABLE t ADD CONSTRAINT small_positive CHECK (small > 0)");
  Sql("INSERT INTO t VALUES (1, 1), (2, 2)");
  int64_t version = Latest("t")->version();
  EXPECT_THAT(Query("UPDATE t SET small = 5 WHERE id = 99"), ElementsAre("0"));
  EXPECT_EQ(ErrorClassOf("UPDATE t SET small = 0"), "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES");
  EXPECT_EQ(ErrorClassOf("UPDATE t SET id = NULL WHERE id = 2"),
            "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
  EXPECT_EQ(ErrorClassOf("UPDATE t SET small = 40000"), "DELTA_CAST_OVERFLOW_IN_TABLE_WRITE");
  EXPECT_EQ(ErrorClassOf("UPDATE t SET small = 1, small = 2"), "DELTA_CONFLICT_SET_COLUMN");
  EXPECT_EQ(Latest("t")->version(), version);
  EXPECT_THAT(Query("SELECT id, small FROM t ORDER BY id"), ElementsAre("1,1", "2,2"));
}

TEST_F(UpdateTest, ChangeDataFeedHoldsPreAndPostImagesOfUpdatedRowsOnly) {
  Sql("CREATE TABLE c (id INT, part STRING, v STRING) USING delta PARTITIONED BY (part) "
      "TBLPROPERTIES (delta.enableChangeDataFeed = true)");
  Sql("INSERT INTO c VALUES (1, 'a', 'x'), (2, 'a', 'y'), (3, 'b', 'z')");
  // Row 1 moves from partition a to b; row 2 is copied unchanged.
  EXPECT_THAT(Query("UPDATE c SET part = 'b', v = 'moved' WHERE id = 1"), ElementsAre("1"));
  auto actions = Commit("c");
  auto cdc = Of<log::AddCdcFile>(actions);
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numAddedChangeFiles"), std::to_string(cdc.size()));
  EXPECT_EQ(Metric(info, "numCopiedRows"), "1");
  std::vector<std::string> change_rows;
  for (const auto& file : cdc) {
    EXPECT_FALSE(file.data_change);
    for (const auto& row : Query("SELECT id, v, _change_type FROM parquet.`" +
                                 io::JoinPath(Location("c"), log::DecodeLogPath(file.path)) + "`")) {
      change_rows.push_back(row + "," + file.partition_values.at(0).second.value_or("NULL"));
    }
  }
  EXPECT_THAT(change_rows, UnorderedElementsAre("1,x,update_preimage,a",
                                                "1,moved,update_postimage,b"));
  EXPECT_THAT(Query("SELECT id, part, v FROM c ORDER BY id"),
              ElementsAre("1,b,moved", "2,a,y", "3,b,z"));
}

TEST_F(UpdateTest, TargetFileReaderReportsPhysicalPositionsOfLiveRows) {
  Sql("CREATE TABLE d (id INT) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true)");
  Sql("INSERT INTO d SELECT CAST(id AS INT) FROM range(10)");
  // Mark rows 2 and 7 deleted with an inline deletion vector.
  auto snapshot = Latest("d");
  ASSERT_THAT(snapshot->files(), SizeIs(1));
  log::AddFile file = snapshot->files()[0];
  std::string bitmap = log::DeletedRows::FromIndexes({2, 7}).Serialize();
  log::DeletionVectorDescriptor dv;
  dv.storage_type = 'i';
  dv.path_or_inline_dv = log::Z85Encode(bitmap);
  dv.size_in_bytes = static_cast<int32_t>(bitmap.size());
  dv.cardinality = 2;
  auto txn = log::Transaction::Start(snapshot);
  txn->RemoveLiveFile(file);
  file.deletion_vector = dv;
  txn->Add(file);
  txn->Commit();

  sql::TableReference reference;
  reference.name = {"d"};
  dml::DmlTable table = dml::LoadDmlTable(*state_, reference, "DELETE");
  dml::TargetFileReader reader(table, fs_);
  std::vector<uint64_t> positions;
  std::vector<std::string> ids;
  for (const auto& batch : reader.ReadAll(table.snapshot->files().at(0))) {
    positions.insert(positions.end(), batch.positions.begin(), batch.positions.end());
    for (int64_t row = 0; row < batch.rows.num_rows(); ++row) {
      ids.push_back(batch.rows.column(0)->ValueToString(row));
    }
  }
  EXPECT_THAT(positions, ElementsAre(0, 1, 3, 4, 5, 6, 8, 9));
  EXPECT_THAT(ids, ElementsAre("0", "1", "3", "4", "5", "6", "8", "9"));
  EXPECT_EQ(dml::LiveRowCount(table, *fs_, table.snapshot->files().at(0)), 8);

  // UPDATE replaces the file's DV by a larger one and writes only the updated rows.
  EXPECT_THAT(Query("UPDATE d SET id = id * 10 WHERE id > 5"), ElementsAre("3"));
  auto actions = Commit("d");
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numUpdatedRows"), "3");
  EXPECT_EQ(Metric(info, "numCopiedRows"), "0");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "1");
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "0");
  EXPECT_EQ(Metric(info, "numDeletionVectorsUpdated"), "1");
  EXPECT_EQ(Metric(info, "numDeletionVectorsAdded"), "1");
  EXPECT_EQ(Metric(info, "numDeletionVectorsRemoved"), "1");
  auto adds = Of<log::AddFile>(actions);
  EXPECT_EQ(std::count_if(adds.begin(), adds.end(),
                          [](const log::AddFile& add) { return add.deletion_vector.has_value(); }),
            1);
  EXPECT_THAT(Query("DELETE FROM d WHERE id = 0"), ElementsAre("1"));
  EXPECT_THAT(Query("SELECT id FROM d ORDER BY id"),
              ElementsAre("1", "3", "4", "5", "60", "80", "90"));
}

TEST_F(UpdateTest, DeleteOnADeletionVectorTableMarksRowsInsteadOfRewriting) {
  Sql("CREATE TABLE d (id INT, v STRING) USING delta "
      "TBLPROPERTIES (delta.enableDeletionVectors = true, delta.enableChangeDataFeed = true)");
  Sql("INSERT INTO d VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("INSERT INTO d VALUES (4, 'd')");
  EXPECT_THAT(Query("DELETE FROM d WHERE v IN ('b', 'd')"), ElementsAre("2"));
  auto actions = Commit("d");
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(Metric(info, "numDeletedRows"), "2");
  EXPECT_EQ(Metric(info, "numAddedFiles"), "0");
  EXPECT_EQ(Metric(info, "numCopiedRows"), "0");
  // The one-row file lost its only row: removed outright, without a DV.
  EXPECT_EQ(Metric(info, "numRemovedFiles"), "1");
  EXPECT_EQ(Metric(info, "numDeletionVectorsAdded"), "1");
  EXPECT_EQ(Metric(info, "numDeletionVectorsUpdated"), "0");
  EXPECT_THAT(Of<log::AddCdcFile>(actions), SizeIs(1));
  EXPECT_THAT(Query("SELECT id, v FROM d ORDER BY id"), ElementsAre("1,a", "3,c"));
  EXPECT_THAT(Latest("d")->files(), SizeIs(1));
}

}  // namespace
}  // namespace silt::commands
