// VACUUM through the statement executor: which files of a real table go (old tombstones' data
// and deletion vectors, change data, orphans) and which stay (the current version, files newer
// than the retention), the result rows, and the retention check.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "silt/commands/dml_testing.h"
#include "silt/log/deletion_vector.h"

namespace silt::commands {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A CSV line of DESCRIBE HISTORY with the doubled quotes of its JSON-shown maps undone.
std::string HistoryLine(std::string line) {
  for (size_t at = line.find("\"\""); at != std::string::npos; at = line.find("\"\"", at + 1)) {
    line.erase(at, 1);
  }
  return line;
}

class VacuumStatementTest : public DmlTest {
 protected:
  // Every file under the table's folder except its log.
  std::set<std::string> DataFolderFiles(const std::string& table) const {
    std::set<std::string> files;
    std::filesystem::path root = Location(table);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      std::string relative = std::filesystem::relative(entry.path(), root).string();
      if (relative.starts_with("_delta_log")) continue;
      files.insert(relative);
    }
    return files;
  }

  // The files the latest version reads: data files and deletion-vector files.
  std::set<std::string> LiveFiles(const std::string& table) const {
    std::set<std::string> files;
    auto snapshot = Latest(table);
    std::string prefix = Location(table) + "/";
    for (const log::AddFile& file : snapshot->files()) {
      files.insert(snapshot->ResolvePath(file.path).substr(prefix.size()));
      if (file.deletion_vector && file.deletion_vector->storage_type == 'u') {
        files.insert(
            log::DeletionVectorPath(*file.deletion_vector, Location(table)).substr(prefix.size()));
      }
    }
    return files;
  }

  // Moves the modification time of every file under the table's folder back by `age`.
  void AgeFiles(const std::string& table, std::chrono::hours age) const {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(Location(table))) {
      if (!entry.is_regular_file()) continue;
      std::filesystem::last_write_time(entry.path(), entry.last_write_time() - age);
    }
  }
};

TEST_F(VacuumStatementTest, RemovesWhatNoVersionWithinTheRetentionNeeds) {
  Sql("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Sql("CREATE TABLE t (id INT, v STRING) USING delta TBLPROPERTIES "
      "(delta.enableChangeDataFeed = true, delta.enableDeletionVectors = true)");
  Sql("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  Sql("INSERT INTO t VALUES (10, 'x')");
  Sql("DELETE FROM t WHERE id = 1");
  Sql("DELETE FROM t WHERE id = 2");
  Sql("UPDATE t SET v = 'y' WHERE id = 10");
  Sql("INSERT OVERWRITE t SELECT id + 100, v FROM t");
  std::set<std::string> before = DataFolderFiles("t");
  std::set<std::string> live = LiveFiles("t");
  int changes = 0;
  int deletion_vectors = 0;
  for (const std::string& file : before) {
    changes += file.starts_with("_change_data/");
    deletion_vectors += file.starts_with("deletion_vector_");
  }
  ASSERT_GT(changes, 0);
  ASSERT_GT(deletion_vectors, 1);

  // Two hours old, except an orphan written just now (as by a writer still in flight).
  AgeFiles("t", std::chrono::hours(2));
  std::ofstream(Location("t") + "/orphan-new.parquet") << "new";
  std::ofstream(Location("t") + "/orphan-old.parquet") << "old";
  std::filesystem::last_write_time(
      Location("t") + "/orphan-old.parquet",
      std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));

  // Removed data are needed for an hour: only the change data and the old orphan go.
  Sql("VACUUM t RETAIN 1 HOURS");
  std::set<std::string> after_hour = DataFolderFiles("t");
  EXPECT_THAT(after_hour, Contains("orphan-new.parquet"));
  EXPECT_THAT(after_hour, Not(Contains("orphan-old.parquet")));
  for (const std::string& file : before) {
    EXPECT_EQ(after_hour.count(file), file.starts_with("_change_data/") ? 0u : 1u) << file;
  }
  EXPECT_THAT(Query("SELECT id FROM t VERSION AS OF 5 ORDER BY id"), ElementsAre("3", "10"));

  // With no retention, only the current version's files stay.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // past this millisecond's writes
  EXPECT_THAT(Query("VACUUM t RETAIN 0 HOURS"), ElementsAre(Location("t")));
  EXPECT_EQ(DataFolderFiles("t"), live);
  EXPECT_THAT(Query("SELECT id, v FROM t ORDER BY id"), ElementsAre("103,c", "110,y"));
  EXPECT_EQ(ErrorClassOf("SELECT * FROM t VERSION AS OF 2"), "PATH_NOT_FOUND");
}

TEST_F(VacuumStatementTest, PartitionFoldersItEmptiesAreRemoved) {
  Sql("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  Sql("CREATE TABLE t (id INT, p STRING) USING delta PARTITIONED BY (p)");
  Sql("INSERT INTO t VALUES (1, 'gone'), (2, 'kept')");
  Sql("DELETE FROM t WHERE p = 'gone'");
  std::filesystem::path root = Location("t");
  ASSERT_TRUE(std::filesystem::exists(root / "p=gone"));
  // A zero retention keeps what was removed or written in this very millisecond.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Sql("VACUUM t RETAIN 0 HOURS");
  EXPECT_FALSE(std::filesystem::exists(root / "p=gone"));
  EXPECT_TRUE(std::filesystem::exists(root / "p=kept"));
  EXPECT_TRUE(std::filesystem::exists(root / "_delta_log"));
  EXPECT_THAT(Query("SELECT * FROM t"), ElementsAre("2,kept"));
}

TEST_F(VacuumStatementTest, DryRunListsTheFilesAndChangesNothing) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("INSERT INTO t VALUES (1)");
  Sql("INSERT OVERWRITE t VALUES (2)");
  int64_t version = Latest("t")->version();
  // Nothing is old enough under the default week.
  EXPECT_THAT(Query("VACUUM t DRY RUN"), IsEmpty());
  EXPECT_EQ(ErrorClassOf("VACUUM t RETAIN 0 HOURS DRY RUN"),
            "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  Sql("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  auto removed = Latest("t")->tombstones();
  ASSERT_EQ(removed.size(), 1u);
  // A zero retention keeps what was written in this very millisecond.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  StatementResult result = Sql("VACUUM t RETAIN 0 HOURS DRY RUN");
  ASSERT_EQ(result.batches.size(), 1u);
  EXPECT_EQ(result.batches[0].schema()->field(0).name, "path");
  EXPECT_THAT(Query("VACUUM t RETAIN 0 HOURS DRY RUN"),
              ElementsAre(Latest("t")->ResolvePath(removed[0].path)));
  EXPECT_EQ(Latest("t")->version(), version);
  EXPECT_THAT(Query("SELECT id FROM t VERSION AS OF 1"), ElementsAre("1"));
}

TEST_F(VacuumStatementTest, RecordsItselfInTheHistoryUnlessLoggingIsOff) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("VACUUM t RETAIN 200 HOURS");
  EXPECT_EQ(Latest("t")->version(), 2);
  std::vector<std::string> history = Query("DESCRIBE HISTORY t LIMIT 2");
  ASSERT_EQ(history.size(), 2u);
  for (std::string& line : history) line = HistoryLine(line);
  EXPECT_THAT(history[0], HasSubstr(R"(,VACUUM END,"{"status":"COMPLETED"}",)"));
  EXPECT_THAT(history[0], HasSubstr(R"("{"numDeletedFiles":"0","numVacuumedDirectories":"1"}")"));
  EXPECT_THAT(history[1], HasSubstr(R"(,VACUUM START,"{"retentionCheckEnabled":"true",)"
                                    R"("specifiedRetentionMillis":"720000000",)"
                                    R"("defaultRetentionMillis":"604800000"}",)"));
  EXPECT_THAT(history[1], HasSubstr(R"("{"numFilesToDelete":"0","sizeOfDataToDelete":"0"}")"));
  EXPECT_THAT(history[1], HasSubstr(",SnapshotIsolation,"));
  Sql("SET spark.databricks.delta.vacuum.logging.enabled = false");
  Sql("VACUUM t");
  EXPECT_EQ(Latest("t")->version(), 2);
}

TEST_F(VacuumStatementTest, RetentionIsRoundedToWholeHoursAndBounded) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("VACUUM t RETAIN 200.4 HOURS");
  auto info = Of<log::CommitInfo>(Commit("t", 1)).at(0);
  EXPECT_EQ(Parameter(info, "specifiedRetentionMillis"), "720000000");
  EXPECT_EQ(ErrorClassOf("VACUUM t RETAIN 167.6 HOURS"), "no error");
  EXPECT_EQ(ErrorClassOf("VACUUM t RETAIN 167.4 HOURS"), "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  EXPECT_EQ(ErrorClassOf("VACUUM t RETAIN 99999999999999999 HOURS"), "INVALID_ARGUMENT");
}

TEST_F(VacuumStatementTest, ViewsAndMissingTablesAreRefused) {
  Sql("CREATE TABLE t (id INT) USING delta");
  Sql("CREATE TEMP VIEW v AS SELECT * FROM t");
  EXPECT_EQ(ErrorClassOf("VACUUM v"), "EXPECT_TABLE_NOT_VIEW");
  EXPECT_EQ(ErrorClassOf("VACUUM missing"), "TABLE_OR_VIEW_NOT_FOUND");
}

}  // namespace
}  // namespace silt::commands
