// `silt report` end to end: a table written by `silt sql`, reported as text and JSON, with the
// numbers checked against the table's log; and the errors for a missing table or bad options.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"
#include "silt_process.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

using test::RunResult;
using test::RunSilt;
using ::testing::HasSubstr;

// Runs `statements` with `silt sql` in `warehouse` (through a script file, so no shell quoting).
void RunSql(const test::TempDir& dir, const std::string& warehouse, const std::string& statements) {
  std::string script = dir.Child("script.sql");
  std::ofstream(script) << statements;
  RunResult result = RunSilt("sql --warehouse " + warehouse + " -f " + script);
  ASSERT_EQ(result.exit_code, 0) << result.err;
}

class ReportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string statements =
        "CREATE TABLE events (id INT, p STRING) USING delta PARTITIONED BY (p) "
        "TBLPROPERTIES (delta.enableDeletionVectors = true);\n";
    for (int i = 0; i < 5; ++i) {
      statements += "INSERT INTO events VALUES (" + std::to_string(i) + ", 'big');\n";
    }
    statements += "INSERT INTO events VALUES (10, 'small'), (11, 'small'), (12, 'small');\n";
    statements += "DELETE FROM events WHERE id = 10;\n";
    RunSql(dir_, warehouse_, statements);
    snapshot_ = log::Snapshot::Load(io::MakeLocalFileSystem(), warehouse_ + "/events");
  }

  test::TempDir dir_;
  std::string warehouse_ = dir_.Child("warehouse");
  std::shared_ptr<const log::Snapshot> snapshot_;
};

TEST_F(ReportCommandTest, TextShowsTheNumbersAndTheAdvice) {
  RunResult report = RunSilt("report events --warehouse " + warehouse_);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  int64_t files = static_cast<int64_t>(snapshot_->files().size());
  ASSERT_EQ(files, 6);
  EXPECT_THAT(report.out, HasSubstr("Table health: " + warehouse_ + "/events\n"));
  EXPECT_THAT(report.out, HasSubstr("Version 7 of "));
  EXPECT_THAT(report.out, HasSubstr(": 6 files, "));
  EXPECT_THAT(report.out, HasSubstr("7 rows\n"));
  EXPECT_THAT(report.out, HasSubstr("  - 100% of files (6 of 6) are under 8 MB: run OPTIMIZE\n"));
  EXPECT_THAT(report.out, HasSubstr("  - 1 of 1 files with deletion vectors have more than 30%"));
  EXPECT_THAT(report.out, HasSubstr("File sizes (6 of 6 files under 8 MB)"));
  EXPECT_THAT(report.out, HasSubstr("Partitions by p: 2, median "));
  EXPECT_THAT(report.out, HasSubstr("Deletion vectors: 1 files, 1 rows deleted, 1 files over 30%"));
  EXPECT_THAT(report.out, HasSubstr("1 of 3 rows (33%)"));
  EXPECT_THAT(report.out, HasSubstr("last OPTIMIZE:    never"));
  EXPECT_THAT(report.out, HasSubstr("DELETE"));

  // A path works as well as a name, and a smaller threshold changes the count.
  RunResult by_path =
      RunSilt("report " + warehouse_ + "/events --small-file-size 100 --warehouse " + warehouse_);
  ASSERT_EQ(by_path.exit_code, 0) << by_path.err;
  EXPECT_THAT(by_path.out, HasSubstr("File sizes (0 of 6 files under 100 B)"));
  EXPECT_THAT(by_path.out, ::testing::Not(HasSubstr("run OPTIMIZE\n")));
}

TEST_F(ReportCommandTest, JsonCarriesTheLogsNumbers) {
  RunResult report = RunSilt("report events --format json --warehouse " + warehouse_);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string& json = report.out;
  ASSERT_FALSE(json.empty());
  EXPECT_EQ(json.front(), '{');
  EXPECT_EQ(json.back(), '\n');

  int64_t bytes = 0;
  std::map<std::string, std::pair<int64_t, int64_t>> partitions;  // files, bytes
  for (const log::AddFile& file : snapshot_->files()) {
    bytes += file.size;
    auto& [count, size] = partitions["p=" + *file.partition_values.at(0).second];
    ++count;
    size += file.size;
  }
  EXPECT_THAT(json, HasSubstr("\"version\":7,"));
  EXPECT_THAT(json, HasSubstr("\"numFiles\":6,\"sizeInBytes\":" + std::to_string(bytes) +
                              ",\"numRows\":7,"));
  EXPECT_THAT(json,
              HasSubstr("{\"name\":\"p=big\",\"numFiles\":5,\"sizeInBytes\":" +
                        std::to_string(partitions["p=big"].second) + ",\"numSmallFiles\":5}"));
  EXPECT_THAT(json,
              HasSubstr("{\"name\":\"p=small\",\"numFiles\":1,\"sizeInBytes\":" +
                        std::to_string(partitions["p=small"].second) + ",\"numSmallFiles\":1}"));
  EXPECT_THAT(json, HasSubstr("\"numRecords\":3,\"numDeletedRows\":1,"));
  EXPECT_THAT(json, HasSubstr("{\"version\":7,"));
  EXPECT_THAT(json, HasSubstr("\"operation\":\"DELETE\",\"rowsAdded\":2,\"rowsRemoved\":3,"
                              "\"filesAdded\":1,\"filesRemoved\":1,"));
  EXPECT_THAT(json, HasSubstr("\"kind\":\"optimize\""));
  EXPECT_THAT(json, HasSubstr("\"kind\":\"purge_deletion_vectors\""));
}

TEST_F(ReportCommandTest, ErrorsHaveClassesAndExitCodes) {
  RunResult missing = RunSilt("report nowhere --warehouse " + warehouse_);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err.rfind("[TABLE_OR_VIEW_NOT_FOUND] ", 0), 0u) << missing.err;

  RunResult not_delta = RunSilt("report " + dir_.Child("empty") + "/ --warehouse " + warehouse_);
  EXPECT_NE(not_delta.exit_code, 0);
  EXPECT_EQ(not_delta.err.front(), '[') << not_delta.err;

  EXPECT_EQ(RunSilt("report").exit_code, 2);
  EXPECT_EQ(RunSilt("report events --format xml --warehouse " + warehouse_).exit_code, 2);
  EXPECT_EQ(RunSilt("report events --small-file-size lots --warehouse " + warehouse_).exit_code, 2);
  EXPECT_EQ(RunSilt("report events --deleted-rows-ratio 2 --warehouse " + warehouse_).exit_code, 2);
  RunResult unwritable = RunSilt("report events --html " + dir_.Child("no/such/folder.html") +
                                 " --warehouse " + warehouse_);
  EXPECT_EQ(unwritable.exit_code, 2) << unwritable.err;
}

}  // namespace
}  // namespace silt
