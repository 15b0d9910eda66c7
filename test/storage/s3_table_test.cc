// Delta tables on S3 through a Session, as users reach them: LOCATION 's3://...', delta.`s3://`,
// the Spark-style settings that point at the store, and commits that stay exactly-once when the
// store or the network misbehaves, or when several processes commit at once.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "silt/error.h"
#include "silt/result.h"
#include "silt/session.h"
#include "support/s3_test_server.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

class S3TableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why_not;
    server_ = test::S3TestServer::Shared(&why_not);
    if (server_ == nullptr) GTEST_SKIP() << "no S3 test server: " << why_not;
    server_->ClearFaults();
    server_->ResetStats();
    table_ = server_->NewFolder("table");
  }

  std::unique_ptr<Session> NewSession(bool conditional_writes = true) {
    SessionOptions options;
    options.warehouse = warehouse_.path();
    for (const auto& [key, value] : server_->SessionSettings()) {
      if (key == "AWS_CONDITIONAL_PUT" && !conditional_writes) continue;
      options.conf[key] = value;
    }
    return std::make_unique<Session>(options);
  }

  // The rows of `sql` as "a,b" lines.
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

  // The versions DESCRIBE HISTORY lists, oldest first.
  static std::vector<int64_t> Versions(Session& session, const std::string& table) {
    Result result = session.Execute("DESCRIBE HISTORY " + table);
    size_t column = result.ColumnIndex("version");
    std::vector<int64_t> versions;
    for (int64_t r = 0; r < result.num_rows(); ++r)
      versions.push_back(result.row(r).GetInt64(column));
    std::sort(versions.begin(), versions.end());
    return versions;
  }

  static std::string ErrorClassOf(const std::function<void()>& action) {
    try {
      action();
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  test::S3TestServer* server_ = nullptr;
  test::TempDir warehouse_;
  std::string table_;
};

using ::testing::ElementsAre;

TEST_F(S3TableTest, TablesAtS3LocationsBehaveAsOnDisk) {
  auto session = NewSession();
  session->Execute("CREATE TABLE t (id INT, name STRING) USING delta LOCATION '" + table_ + "'");
  session->Execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  session->Execute("UPDATE t SET name = 'B' WHERE id = 2");
  session->Execute("DELETE FROM t WHERE id = 3");
  session->Execute(
      "MERGE INTO t USING (SELECT 1 AS id, 'A' AS name UNION ALL SELECT 4, 'd') s "
      "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *");
  EXPECT_THAT(Rows(*session, "SELECT * FROM t ORDER BY id"), ElementsAre("1,A", "2,B", "4,d"));
  EXPECT_THAT(Rows(*session, "SELECT count(*) FROM delta.`" + table_ + "`"), ElementsAre("3"));
  // The s3a:// spelling Spark users write names the same table.
  EXPECT_THAT(Rows(*session, "SELECT count(*) FROM delta.`s3a" + table_.substr(2) + "`"),
              ElementsAre("3"));
  EXPECT_THAT(Versions(*session, "t"), ElementsAre(0, 1, 2, 3, 4));
  // A fresh session (another process's view) reads the same table from the store.
  auto reader = NewSession();
  EXPECT_THAT(Rows(*reader, "SELECT * FROM delta.`" + table_ + "` VERSION AS OF 1 ORDER BY id"),
              ElementsAre("1,a", "2,b", "3,c"));
}

TEST_F(S3TableTest, AQueryAnalysedBeforeAnyStatementUsesTheSessionsSettings) {
  NewSession()->Execute("CREATE TABLE delta.`" + table_ + "` AS SELECT id FROM range(5)");
  // A DataFrame's query is analysed (its table read) when it is made, before any statement of
  // the session has run.
  auto reader = NewSession();
  EXPECT_EQ(reader->Sql("SELECT id FROM delta.`" + table_ + "`").Count(), 5);
  // Settings set afterwards, by SetConf or by SET, reach the next analysis too.
  SessionOptions bare;
  bare.warehouse = warehouse_.path();
  Session late(bare);
  for (const auto& [key, value] : server_->SessionSettings()) {
    if (key == "spark.hadoop.fs.s3a.secret.key") continue;
    late.SetConf(key, value);
  }
  late.Execute("SET spark.hadoop.fs.s3a.secret.key = S3RVER");
  EXPECT_EQ(late.Sql("SELECT id FROM delta.`" + table_ + "`").Count(), 5);
}

TEST_F(S3TableTest, CommitsAreRefusedWithoutConditionalWritesUnlessSingleWriterIsDeclared) {
  auto session = NewSession(/*conditional_writes=*/false);
  EXPECT_EQ(ErrorClassOf([&] {
              session->Execute("CREATE TABLE t (id INT) USING delta LOCATION '" + table_ + "'");
            }),
            "STORAGE_UNSAFE_COMMIT");
  session->SetConf("AWS_S3_ALLOW_UNSAFE_RENAME", "true");
  session->Execute("CREATE TABLE t (id INT) USING delta LOCATION '" + table_ + "'");
  session->Execute("INSERT INTO t VALUES (1)");
  EXPECT_THAT(Rows(*session, "SELECT id FROM t"), ElementsAre("1"));
}

TEST_F(S3TableTest, StatementsSurviveResetsOverloadAndSlowAnswers) {
  auto session = NewSession();
  session->Execute("CREATE TABLE t (id INT, v STRING) USING delta LOCATION '" + table_ + "'");
  server_->ArmFault("reset", 2, "PUT");
  server_->ArmFault("503", 3, "GET");
  server_->ArmFault("503", 1, "", "list-type=2");
  server_->ArmFault("slow", 1, "GET", "", 300);
  session->Execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')");
  session->Execute("UPDATE t SET v = 'z' WHERE id = 2");
  EXPECT_THAT(Rows(*session, "SELECT * FROM t ORDER BY id"), ElementsAre("1,x", "2,z"));
  EXPECT_GE(server_->GetStats().faults_fired, 5);
}

TEST_F(S3TableTest, ACommitWhoseReplyIsLostLandsOnce) {
  auto session = NewSession();
  session->Execute("CREATE TABLE t (id INT) USING delta LOCATION '" + table_ + "'");
  // The store writes version 1 and the connection drops before the answer: the retried
  // conditional PUT is refused (412), and the writer must find its own commit, not retry it as
  // version 2.
  server_->ArmFault("lost-reply", 1, "PUT", "_delta_log/00000000000000000001.json");
  session->Execute("INSERT INTO t VALUES (7)");
  EXPECT_EQ(server_->GetStats().faults_fired, 1);
  EXPECT_THAT(Rows(*session, "SELECT id FROM t"), ElementsAre("7"));
  EXPECT_THAT(Versions(*session, "t"), ElementsAre(0, 1));
}

TEST_F(S3TableTest, EightProcessesCommittingToOneTableLoseNothing) {
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
  std::vector<std::string> rows = Rows(*session, "SELECT writer, n FROM t ORDER BY writer, n");
  std::vector<std::string> expected;
  for (int writer = 0; writer < kProcesses; ++writer) {
    for (int n = 0; n < kCommitsEach; ++n) {
      expected.push_back(std::to_string(writer) + "," + std::to_string(n));
    }
  }
  EXPECT_EQ(rows, expected);
  std::vector<int64_t> versions = Versions(*session, "t");
  ASSERT_EQ(versions.size(), static_cast<size_t>(1 + kProcesses * kCommitsEach));
  for (size_t v = 0; v < versions.size(); ++v) EXPECT_EQ(versions[v], static_cast<int64_t>(v));
}

TEST_F(S3TableTest, OptimizeRewritesAndVacuumDeletesWhatItReplaced) {
  auto session = NewSession();
  session->Execute("CREATE TABLE t (id INT) USING delta LOCATION '" + table_ + "'");
  for (int i = 0; i < 4; ++i) session->Execute("INSERT INTO t VALUES (" + std::to_string(i) + ")");
  session->Execute("OPTIMIZE t");
  session->Execute("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  // The four small files OPTIMIZE replaced are what VACUUM lists, then deletes.
  std::vector<std::string> doomed = Rows(*session, "VACUUM t RETAIN 0 HOURS DRY RUN");
  EXPECT_EQ(doomed.size(), 4u);
  for (const std::string& path : doomed) EXPECT_EQ(path.rfind(table_ + "/", 0), 0u) << path;
  session->Execute("VACUUM t RETAIN 0 HOURS");
  EXPECT_THAT(Rows(*session, "VACUUM t RETAIN 0 HOURS DRY RUN"), ::testing::IsEmpty());
  EXPECT_THAT(Rows(*session, "SELECT id FROM t ORDER BY id"), ElementsAre("0", "1", "2", "3"));
}

}  // namespace
}  // namespace silt
