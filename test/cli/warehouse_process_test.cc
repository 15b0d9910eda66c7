// Runs several `silt` processes against one warehouse at once, and checks what a user sees
// when a table's log holds values silt cannot use or a name is too long for any file system.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.h"

namespace silt {
namespace {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFileText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Runs `silt sql --warehouse <warehouse> --format csv` with the statements of `script`.
RunResult RunSql(const std::string& warehouse, const std::string& script) {
  const char* binary = std::getenv("SILT_BINARY");
  EXPECT_NE(binary, nullptr) << "SILT_BINARY is set by CTest";
  test::TempDir dir;
  WriteFileText(dir.Child("script.sql"), script);
  std::string command = std::string(binary) + " sql --warehouse " + warehouse +
                        " --format csv -f " + dir.Child("script.sql") + " > " + dir.Child("out") +
                        " 2> " + dir.Child("err") + " < /dev/null";
  int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFileText(dir.Child("out"));
  result.err = ReadFileText(dir.Child("err"));
  return result;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream stream(text);
  std::string line;
  while (std::getline(stream, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// Eight processes create tables in one warehouse at once, external (LOCATION, recorded in the
// warehouse's registry) and managed; afterwards every table is listed and reads its row.
TEST(WarehouseProcessTest, ConcurrentProcessesCreatingTablesKeepEveryTable) {
  test::TempDir dir;
  std::string warehouse = dir.Child("warehouse");
  constexpr int kProcesses = 8;
  constexpr int kExternal = 6;
  constexpr int kManaged = 2;
  std::vector<std::string> tables;
  std::vector<std::string> scripts(kProcesses);
  for (int p = 0; p < kProcesses; ++p) {
    for (int t = 0; t < kExternal + kManaged; ++t) {
      std::string name = "p" + std::to_string(p) + "_t" + std::to_string(t);
      tables.push_back(name);
      std::string location =
          t < kExternal ? " LOCATION '" + dir.Child("external/" + name) + "'" : "";
      scripts[p] += "CREATE TABLE " + name + " (id INT)" + location + ";\n";
      scripts[p] += "INSERT INTO " + name + " VALUES (" + std::to_string(p * 100 + t) + ");\n";
    }
  }
  std::vector<RunResult> results(kProcesses);
  std::vector<std::thread> threads;
  for (int p = 0; p < kProcesses; ++p) {
    threads.emplace_back([&, p] { results[p] = RunSql(warehouse, scripts[p]); });
  }
  for (auto& thread : threads) thread.join();
  for (int p = 0; p < kProcesses; ++p) {
    EXPECT_EQ(results[p].exit_code, 0) << "process " << p << ": " << results[p].err;
  }

  RunResult shown = RunSql(warehouse, "SHOW TABLES;\n");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  std::set<std::string> listed;
  for (const std::string& line : Lines(shown.out)) {
    for (const std::string& table : tables) {
      if (line.find("," + table + ",") != std::string::npos) listed.insert(table);
    }
  }
  EXPECT_EQ(listed, std::set<std::string>(tables.begin(), tables.end())) << shown.out;

  std::string query;
  for (size_t i = 0; i < tables.size(); ++i) {
    query += (i == 0 ? "" : " UNION ALL ") + std::string("SELECT id FROM ") + tables[i];
  }
  RunResult read = RunSql(warehouse, "SELECT count(*), sum(id) FROM (" + query + ");\n");
  ASSERT_EQ(read.exit_code, 0) << read.err;
  int64_t expected_sum = 0;
  for (int p = 0; p < kProcesses; ++p) {
    for (int t = 0; t < kExternal + kManaged; ++t) expected_sum += p * 100 + t;
  }
  EXPECT_NE(read.out.find(std::to_string(tables.size()) + "," + std::to_string(expected_sum)),
            std::string::npos)
      << read.out;
}

// Two processes creating the same external table: one wins, the other is told the table
// exists, and the winner's table is the one registered.
TEST(WarehouseProcessTest, RacingCreatesOfOneNameLeaveOneTable) {
  test::TempDir dir;
  std::string warehouse = dir.Child("warehouse");
  for (int round = 0; round < 5; ++round) {
    std::string name = "race" + std::to_string(round);
    std::vector<RunResult> results(2);
    std::vector<std::thread> threads;
    for (int p = 0; p < 2; ++p) {
      threads.emplace_back([&, p] {
        results[p] = RunSql(warehouse, "CREATE TABLE " + name + " (id INT) LOCATION '" +
                                           dir.Child(name + "_" + std::to_string(p)) + "';\n");
      });
    }
    for (auto& thread : threads) thread.join();
    int winners = 0;
    for (const RunResult& result : results) {
      if (result.exit_code == 0) {
        ++winners;
      } else {
        EXPECT_NE(result.err.find("TABLE_OR_VIEW_ALREADY_EXISTS"), std::string::npos)
            << result.err;
      }
    }
    EXPECT_EQ(winners, 1);
    RunResult insert = RunSql(warehouse, "INSERT INTO " + name + " VALUES (1);\n");
    EXPECT_EQ(insert.exit_code, 0) << insert.err;
  }
}

// A table whose log holds a checkpoint interval silt cannot parse (written by another tool)
// still accepts writes: the commit lands, the failed checkpoint is a warning, the exit code 0,
// so a user never retries a write that landed.
TEST(WarehouseProcessTest, BadPropertyInTheLogDoesNotFailLandedWrites) {
  test::TempDir dir;
  std::string warehouse = dir.Child("warehouse");
  ASSERT_EQ(RunSql(warehouse, "CREATE TABLE t (id INT) TBLPROPERTIES ('delta.checkpointInterval' = '7');\n")
                .exit_code,
            0);
  std::string first_commit = warehouse + "/t/_delta_log/00000000000000000000.json";
  std::string log = ReadFileText(first_commit);
  size_t at = log.find("\"delta.checkpointInterval\":\"7\"");
  ASSERT_NE(at, std::string::npos) << log;
  log.replace(at, std::string("\"delta.checkpointInterval\":\"7\"").size(),
              "\"delta.checkpointInterval\":\"0\"");
  WriteFileText(first_commit, log);

  for (int i = 1; i <= 3; ++i) {
    RunResult insert = RunSql(warehouse, "INSERT INTO t VALUES (" + std::to_string(i) + ");\n");
    EXPECT_EQ(insert.exit_code, 0) << insert.err;
    EXPECT_NE(insert.err.find("[WARN]"), std::string::npos) << insert.err;
    EXPECT_NE(insert.err.find("INVALID_CONFIGURATION"), std::string::npos) << insert.err;
  }
  RunResult read = RunSql(warehouse, "SELECT count(*) FROM t;\n");
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("3"), std::string::npos) << read.out;
}

// Log cleanup failing after a commit and its checkpoint landed is a warning too.
TEST(WarehouseProcessTest, FailedLogCleanupDoesNotFailTheWrite) {
  test::TempDir dir;
  std::string warehouse = dir.Child("warehouse");
  ASSERT_EQ(RunSql(warehouse, "CREATE TABLE t (id INT) TBLPROPERTIES ('delta.checkpointInterval' = '1');\n")
                .exit_code,
            0);
  std::string first_commit = warehouse + "/t/_delta_log/00000000000000000000.json";
  std::string log = ReadFileText(first_commit);
  const std::string property = "\"delta.checkpointInterval\":\"1\"";
  size_t at = log.find(property);
  ASSERT_NE(at, std::string::npos) << log;
  log.insert(at + property.size(), ",\"delta.logRetentionDuration\":\"forever\"");
  WriteFileText(first_commit, log);

  RunResult insert = RunSql(warehouse, "INSERT INTO t VALUES (1);\n");
  EXPECT_EQ(insert.exit_code, 0) << insert.err;
  EXPECT_NE(insert.err.find("[WARN]"), std::string::npos) << insert.err;
  EXPECT_NE(insert.err.find("delta.logRetentionDuration"), std::string::npos) << insert.err;
  EXPECT_TRUE(std::filesystem::exists(warehouse + "/t/_delta_log/00000000000000000001.checkpoint.parquet"));
  RunResult read = RunSql(warehouse, "SELECT count(*) FROM t;\n");
  EXPECT_EQ(read.exit_code, 0) << read.err;
  EXPECT_NE(read.out.find("1"), std::string::npos) << read.out;
}

// A name no file system can hold is a user error (exit 1) found before the disk is touched,
// and no message echoes a megabyte back.
TEST(WarehouseProcessTest, OverlongTableNameIsAUserErrorWithAShortMessage) {
  test::TempDir dir;
  std::string warehouse = dir.Child("warehouse");
  std::string name(1 << 20, 'a');
  RunResult create = RunSql(warehouse, "CREATE TABLE " + name + " (id INT);\n");
  EXPECT_EQ(create.exit_code, 1) << create.err.substr(0, 500);
  EXPECT_NE(create.err.find("TABLE_NAME_TOO_LONG"), std::string::npos) << create.err.substr(0, 500);
  EXPECT_NE(create.err.find("1048576"), std::string::npos) << create.err.substr(0, 500);
  EXPECT_LT(create.err.size(), 2000u);
  EXPECT_FALSE(std::filesystem::exists(warehouse + "/" + name.substr(0, 255)));

  RunResult select = RunSql(warehouse, "SELECT * FROM " + name + ";\n");
  EXPECT_EQ(select.exit_code, 1) << select.err.substr(0, 500);
  EXPECT_NE(select.err.find("TABLE_OR_VIEW_NOT_FOUND"), std::string::npos)
      << select.err.substr(0, 500);
  EXPECT_LT(select.err.size(), 2000u);

  RunResult insert = RunSql(warehouse, "INSERT INTO " + name + " VALUES (1);\n");
  EXPECT_EQ(insert.exit_code, 1) << insert.err.substr(0, 500);
  EXPECT_LT(insert.err.size(), 2000u);

  RunResult drop = RunSql(warehouse, "DROP TABLE " + name + ";\n");
  EXPECT_EQ(drop.exit_code, 1) << drop.err.substr(0, 500);
  EXPECT_LT(drop.err.size(), 2000u);
}

}  // namespace
}  // namespace silt
