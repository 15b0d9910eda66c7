// Delta tables on Azure Blob Storage / ADLS Gen2 through a Session, against Azurite: abfss://
// locations with Azurite's connection string as users set it, and several processes committing
// to one table through the conditional create Azure honours.

#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "silt/error.h"
#include "silt/result.h"
#include "silt/session.h"
#include "support/azurite_test_server.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

using ::testing::ElementsAre;

class AzureTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    server_ = test::AzuriteTestServer::Shared(&why_not);
    if (server_ == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
    table_ = server_->NewFolder("table");
  }

  std::unique_ptr<Session> NewSession() {
    SessionOptions options;
    options.warehouse = warehouse_.path();
    for (const auto& [key, value] : server_->SessionSettings()) options.conf[key] = value;
    return std::make_unique<Session>(options);
  }

  static std::vector<std::string> Rows(Session& session, const std::string& sql) {
    Result result = session.Execute(sql);
    std::vector<std::string> rows;
    for (int64_t r = 0; r < result.num_rows(); ++r) {
      Row row = result.row(r);
      std::string line;
      for (size_t c = 0; c < row.size(); ++c) line += (c ? "," : "") + row.ToString(c);
      rows.push_back(line);
    }
    return rows;
  }

  static std::vector<int64_t> Versions(Session& session, const std::string& table) {
    Result result = session.Execute("DESCRIBE HISTORY " + table);
    size_t column = result.ColumnIndex("version");
    std::vector<int64_t> versions;
    for (int64_t r = 0; r < result.num_rows(); ++r) {
      versions.push_back(result.row(r).GetInt64(column));
    }
    std::sort(versions.begin(), versions.end());
    return versions;
  }

  test::AzuriteTestServer* server_ = nullptr;
  test::TempDir warehouse_;
  std::string table_;
};

TEST_F(AzureTableTest, TablesAtAbfssLocationsBehaveAsOnDisk) {
  auto session = NewSession();
  session->Execute("CREATE TABLE t (id INT, name STRING) USING delta LOCATION '" + table_ + "'");
  session->Execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  session->Execute("UPDATE t SET name = 'B' WHERE id = 2");
  session->Execute("DELETE FROM t WHERE id = 3");
  session->Execute("MERGE INTO t USING (SELECT 1 AS id, 'A' AS name UNION ALL SELECT 4, 'd') s "
                   "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
  EXPECT_THAT(Rows(*session, "SELECT * FROM t ORDER BY id"), ElementsAre("1,A", "2,B", "4,d"));
  EXPECT_THAT(Versions(*session, "t"), ElementsAre(0, 1, 2, 3, 4));
  auto reader = NewSession();
  EXPECT_THAT(Rows(*reader, "SELECT * FROM delta.`" + table_ + "` VERSION AS OF 1 ORDER BY id"),
              ElementsAre("1,a", "2,b", "3,c"));
}

TEST_F(AzureTableTest, EightProcessesCommittingToOneTableLoseNothing) {
  auto session = NewSession();
  session->Execute("CREATE TABLE t (writer INT, n INT) USING delta LOCATION '" + table_ + "'");
  const char* binary = std::getenv("SILT_BINARY");
  ASSERT_NE(binary, nullptr) << "SILT_BINARY names the silt binary";
  constexpr int kProcesses = 8;
  constexpr int kCommitsEach = 3;
  std::vector<pid_t> children;
  for (int writer = 0; writer < kProcesses; ++writer) {
    std::vector<std::string> arguments = {binary, "sql", "--warehouse", warehouse_.path(),
                                          "--no-progress"};
    for (const auto& [key, value] : server_->SessionSettings()) {
      arguments.push_back("--conf");
      arguments.push_back(key + "=" + value);
    }
    for (int n = 0; n < kCommitsEach; ++n) {
      arguments.push_back("-e");
      arguments.push_back("INSERT INTO delta.`" + table_ + "` VALUES (" + std::to_string(writer) +
                          ", " + std::to_string(n) + ")");
    }
    pid_t pid = fork();
    if (pid == 0) {
      std::vector<char*> argv;
      for (std::string& argument : arguments) argv.push_back(argument.data());
      argv.push_back(nullptr);
      execv(binary, argv.data());
      _exit(127);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed: " << status;
  }
  // Every acknowledged commit is there once, and the versions have no gap.
  std::vector<std::string> expected;
  for (int writer = 0; writer < kProcesses; ++writer) {
    for (int n = 0; n < kCommitsEach; ++n) {
      expected.push_back(std::to_string(writer) + "," + std::to_string(n));
    }
  }
  EXPECT_EQ(Rows(*session, "SELECT writer, n FROM t ORDER BY writer, n"), expected);
  std::vector<int64_t> versions = Versions(*session, "t");
  ASSERT_EQ(versions.size(), static_cast<size_t>(1 + kProcesses * kCommitsEach));
  for (size_t v = 0; v < versions.size(); ++v) EXPECT_EQ(versions[v], static_cast<int64_t>(v));
}

}  // namespace
}  // namespace silt
