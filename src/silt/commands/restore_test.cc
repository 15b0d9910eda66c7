// RESTORE through the statement executor: the result row, the rows and schema the table has
// afterwards, restoring by timestamp in the session's time zone, deletion vectors, and the
// files-missing check.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "silt/commands/dml_testing.h"
#include "silt/types/date_time.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A CSV line of DESCRIBE HISTORY with the doubled quotes of its JSON-shown maps undone.
std::string HistoryLine(std::string line) {
  for (size_t at = line.find("\"\""); at != std::string::npos; at = line.find("\"\"", at + 1)) {
    line.erase(at, 1);
  }
  return line;
}

class RestoreStatementTest : public DmlTest {};

TEST_F(RestoreStatementTest, ReturnsDeltaMetricsAndBringsBackTheRows) {
  Sql("CREATE TABLE t (id INT, v STRING) USING delta");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  Sql("INSERT INTO t VALUES (3, 'c')");
  Sql("DELETE FROM t WHERE id = 1");
  auto at_two = log::Snapshot::Load(fs_, Location("t"), {.version = 2});
  int64_t size_at_two = 0;
  for (const log::AddFile& file : at_two->files()) size_at_two += file.size;
  int64_t removed_size = 0;
  auto latest = Latest("t");
  for (const log::AddFile& file : latest->files()) {
    if (file.path != at_two->files()[0].path && file.path != at_two->files()[1].path) {
      removed_size += file.size;
    }
  }
  int64_t restored_size = *Latest("t")->tombstones().at(0).size;

  StatementResult result = Sql("RESTORE TABLE t TO VERSION AS OF 2");
  ASSERT_EQ(result.batches.size(), 1u);
  std::vector<std::string> names;
  for (const Field& field : result.batches[0].schema()->fields()) names.push_back(field.name);
  EXPECT_THAT(names, ElementsAre("table_size_after_restore", "num_of_files_after_restore",
                                 "num_removed_files", "num_restored_files", "removed_files_size",
                                 "restored_files_size"));
  EXPECT_EQ(FormatCsv(result.batches, false), std::to_string(size_at_two) + ",2,1,1," +
                                                  std::to_string(removed_size) + "," +
                                                  std::to_string(restored_size) + "\n");
  EXPECT_THAT(Query("SELECT id, v FROM t ORDER BY id"), ElementsAre("1,a", "2,b", "3,c"));
  auto info = Of<log::CommitInfo>(Commit("t")).at(0);
  EXPECT_EQ(info.operation, "RESTORE");
  EXPECT_EQ(Parameter(info, "version"), "2");
  EXPECT_EQ(Parameter(info, "timestamp"), "null");
  EXPECT_THAT(Of<log::AddCdcFile>(Commit("t")), IsEmpty());
  std::vector<std::string> history = Query("DESCRIBE HISTORY t LIMIT 1");
  ASSERT_EQ(history.size(), 1u);
  std::string line = HistoryLine(history[0]);
  EXPECT_THAT(line, HasSubstr(R"(,RESTORE,"{"version":"2","timestamp":"null"}",)"));
  EXPECT_THAT(line, HasSubstr(R"("{"numRestoredFiles":"1","restoredFilesSize":")" +
                              std::to_string(restored_size) + R"(","numRemovedFiles":"1",)"));
  EXPECT_THAT(line, HasSubstr(R"("numOfFilesAfterRestore":"2","tableSizeAfterRestore":")" +
                              std::to_string(size_at_two) + R"("}")"));
}

TEST_F(RestoreStatementTest, RestoresTheSchemaAndTableProperties) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1)");
  Sql("ALTER TABLE t ADD COLUMNS (extra STRING)");
  Sql("ALTER TABLE t SET TBLPROPERTIES ('owner.team' = 'x')");
  Sql("INSERT INTO t VALUES (2, 'e')");
  Sql("RESTORE t TO VERSION AS OF 1");
  EXPECT_THAT(Query("SELECT * FROM t"), ElementsAre("1"));
  EXPECT_THAT(Latest("t")->properties(), IsEmpty());
  EXPECT_EQ(ErrorClassOf("RESTORE t TO VERSION AS OF 9"), "DELTA_CANNOT_RESTORE_TABLE_VERSION");
  EXPECT_EQ(ErrorClassOf("RESTORE t TO VERSION AS OF 5"), "DELTA_CANNOT_RESTORE_TO_LATEST_VERSION");
  EXPECT_EQ(ErrorClassOf("RESTORE t TO VERSION AS OF 'one'"), "INVALID_PARAMETER_VALUE");
  Sql("RESTORE t TO VERSION AS OF '4'");
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ElementsAre("1,", "2,e"));
}

TEST_F(RestoreStatementTest, UndoesADeleteWithDeletionVectors) {
  Sql("CREATE TABLE t (id INT) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true, "
      "delta.enableChangeDataFeed = true)");
  Sql("INSERT INTO t VALUES (1), (2), (3)");
  Sql("DELETE FROM t WHERE id = 2");
  ASSERT_TRUE(Latest("t")->files().at(0).deletion_vector.has_value());
  std::string size = std::to_string(Latest("t")->files().at(0).size);
  // The same data file comes back without its deletion vector: one file removed, one restored.
  EXPECT_THAT(Query("RESTORE t TO VERSION AS OF 1"),
              ElementsAre(size + ",1,1,1," + size + "," + size));
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("1", "2", "3"));
  EXPECT_FALSE(Latest("t")->files().at(0).deletion_vector.has_value());
  EXPECT_THAT(Of<log::AddCdcFile>(Commit("t")), IsEmpty());
  // And forward again: the deletion vector comes back.
  Sql("RESTORE t TO VERSION AS OF 2");
  EXPECT_THAT(Query("SELECT id FROM t ORDER BY id"), ElementsAre("1", "3"));
}

TEST_F(RestoreStatementTest, RestoresByTimestampInTheSessionTimeZone) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1)");
  Sql("INSERT INTO t VALUES (2)");
  std::vector<log::CommitTimestamp> times = log::ListCommitTimestamps(*fs_, Location("t"));
  ASSERT_EQ(times.size(), 3u);
  // Version 1's commit time, written as a wall-clock time in UTC+02:00.
  std::string text = FormatTimestamp((times[1].timestamp_ms + 2 * 3'600'000) * 1000);
  Sql("SET spark.sql.session.timeZone = +02:00");
  Sql("RESTORE TABLE t TO TIMESTAMP AS OF '" + text + "'");
  EXPECT_THAT(Query("SELECT id FROM t"), ElementsAre("1"));
  auto info = Of<log::CommitInfo>(Commit("t")).at(0);
  EXPECT_EQ(Parameter(info, "version"), "null");
  EXPECT_EQ(Parameter(info, "timestamp"), "\"" + text + "\"");
  EXPECT_EQ(ErrorClassOf("RESTORE t TO TIMESTAMP AS OF '2999-01-01'"),
            "DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER");
  EXPECT_EQ(ErrorClassOf("RESTORE t TO TIMESTAMP AS OF '2000-01-01'"),
            "DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER");
  EXPECT_EQ(ErrorClassOf("RESTORE t TO TIMESTAMP AS OF 'yesterday'"), "INVALID_PARAMETER_VALUE");
}

TEST_F(RestoreStatementTest, RefusesToRestoreFilesThatAreGone) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1)");
  Sql("INSERT OVERWRITE t VALUES (2)");
  std::string gone = Latest("t")->ResolvePath(Latest("t")->tombstones().at(0).path);
  std::filesystem::remove(gone);
  EXPECT_EQ(ErrorClassOf("RESTORE t TO VERSION AS OF 1"), "DELTA_RESTORE_MISSING_DATA_FILES");
  EXPECT_EQ(Latest("t")->version(), 2);
  // Spark's switch to ignore missing files lets the restore through.
  Sql("SET spark.sql.files.ignoreMissingFiles = true");
  Sql("RESTORE t TO VERSION AS OF 1");
  EXPECT_EQ(Latest("t")->version(), 3);
}

TEST_F(RestoreStatementTest, ViewsAreRefused) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("CREATE TEMP VIEW v AS SELECT * FROM t");
  EXPECT_EQ(ErrorClassOf("RESTORE v TO VERSION AS OF 0"), "EXPECT_TABLE_NOT_VIEW");
}

}  // namespace
}  // namespace silt::commands
