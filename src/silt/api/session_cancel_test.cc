// Session::Cancel and Session::StatementProgress: a statement cancelled from another thread
// commits nothing and leaves no data files; the progress counters follow what a statement reads
// and writes.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/log/snapshot.h"
#include "silt/api/session_internal.h"
#include "silt/session.h"

namespace silt {
namespace {

using ::testing::ElementsAre;

class SessionCancelTest : public ::testing::Test {
 protected:
  std::string TablePath(const std::string& table) { return io::JoinPath(warehouse_, table); }

  int64_t LatestVersion(const std::string& table) {
    return log::Snapshot::Load(io::MakeLocalFileSystem(), TablePath(table))->version();
  }

  // Every file of the table outside its log.
  std::set<std::string> DataFiles(const std::string& table) {
    std::set<std::string> files;
    for (const io::FileInfo& info :
         io::MakeLocalFileSystem()->List(TablePath(table), "", /*recursive=*/true)) {
      if (info.path.find("/_delta_log/") == std::string::npos) files.insert(info.path);
    }
    return files;
  }

  std::string ErrorClassOf(std::string_view sql) {
    try {
      api::RunStatements(session_, sql);
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  int64_t ScalarLong(std::string_view sql) {
    StatementOutput output = api::RunStatements(session_, sql);
    return output.batches().at(0).column(0)->values<int64_t>()[0];
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  Session session_{SessionOptions{warehouse_, {}}};
};

TEST_F(SessionCancelTest, ACanceledInsertCommitsNothingAndRemovesTheFilesItWrote) {
  api::RunStatements(session_, "CREATE TABLE t (id BIGINT, p INT) PARTITIONED BY (p)");
  api::RunStatements(session_, "INSERT INTO t VALUES (-1, 0)");
  ASSERT_EQ(LatestVersion("t"), 1);
  std::set<std::string> before = DataFiles("t");
  ASSERT_EQ(before.size(), 1u);

  // Cancel once the statement is writing its data files.
  std::atomic<bool> canceled{false};
  std::thread canceler([&] {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      ProgressSnapshot progress = api::StatementProgress(session_);
      if (progress.running && progress.rows_written > 0) {
        session_.Cancel();
        canceled = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::string error =
      ErrorClassOf("INSERT INTO t SELECT id, CAST(id % 4 AS INT) FROM range(4000000)");
  canceler.join();
  ASSERT_TRUE(canceled);
  EXPECT_EQ(error, "OPERATION_CANCELED");
  EXPECT_EQ(LatestVersion("t"), 1);
  EXPECT_EQ(DataFiles("t"), before);
  EXPECT_FALSE(api::StatementProgress(session_).running);

  // The cancel ended with its statement: the next ones run.
  EXPECT_EQ(ScalarLong("SELECT count(*) FROM t"), 1);
  api::RunStatements(session_, "INSERT INTO t VALUES (1, 1)");
  EXPECT_EQ(LatestVersion("t"), 2);
}

TEST_F(SessionCancelTest, ACancelWithoutARunningStatementDoesNothing) {
  session_.Cancel();
  EXPECT_EQ(ScalarLong("SELECT 7L"), 7);
}

TEST_F(SessionCancelTest, ACanceledScriptStopsBeforeItsNextStatement) {
  api::RunStatements(session_, "CREATE TABLE t (id BIGINT)");
  std::string error;
  try {
    api::RunStatementsEach(session_, "INSERT INTO t VALUES (1); INSERT INTO t VALUES (2)",
                     [&](const StatementOutput&) { session_.Cancel(); });
  } catch (const Error& e) {
    error = std::string(e.error_class());
  }
  EXPECT_EQ(error, "OPERATION_CANCELED");
  EXPECT_EQ(ScalarLong("SELECT count(*) FROM t"), 1);
}

TEST_F(SessionCancelTest, ProgressCountsWhatAStatementReadAndWrote) {
  api::RunStatements(session_, "CREATE TABLE t (id BIGINT, p INT) PARTITIONED BY (p)");
  api::RunStatements(session_, "INSERT INTO t SELECT id, CAST(id % 8 AS INT) FROM range(100000)");
  ProgressSnapshot insert = api::StatementProgress(session_);
  EXPECT_FALSE(insert.running);
  EXPECT_EQ(insert.rows_to_read, 100000);
  EXPECT_EQ(insert.rows_read, 100000);
  EXPECT_EQ(insert.rows_written, 100000);
  EXPECT_EQ(insert.files_written, 8);
  EXPECT_GT(insert.bytes_written, 0);

  EXPECT_EQ(ScalarLong("SELECT sum(id) FROM t"), 100000LL * 99999 / 2);
  int64_t table_bytes = 0;
  for (const std::string& file : DataFiles("t")) {
    table_bytes += static_cast<int64_t>(io::MakeLocalFileSystem()->Stat(file)->size);
  }
  ProgressSnapshot scan = api::StatementProgress(session_);
  EXPECT_EQ(scan.files_to_read, 8);
  EXPECT_EQ(scan.files_read, 8);
  EXPECT_EQ(scan.rows_read, 100000);
  EXPECT_EQ(scan.bytes_to_read, table_bytes);
  EXPECT_EQ(scan.bytes_read, table_bytes);
  EXPECT_EQ(scan.files_written, 0);
}

TEST_F(SessionCancelTest, ProgressOfOptimizeCountsTheFilesItCompacts) {
  api::RunStatements(session_, "CREATE TABLE t (id BIGINT)");
  for (int i = 0; i < 3; ++i) {
    api::RunStatements(session_, "INSERT INTO t SELECT id FROM range(" + std::to_string(i * 1000) + ", " +
                 std::to_string((i + 1) * 1000) + ")");
  }
  int64_t table_bytes = 0;
  for (const std::string& file : DataFiles("t")) {
    table_bytes += static_cast<int64_t>(io::MakeLocalFileSystem()->Stat(file)->size);
  }
  api::RunStatements(session_, "OPTIMIZE t");
  ProgressSnapshot optimize = api::StatementProgress(session_);
  EXPECT_EQ(optimize.files_to_read, 3);
  EXPECT_EQ(optimize.files_read, 3);
  EXPECT_EQ(optimize.bytes_to_read, table_bytes);
  EXPECT_EQ(optimize.bytes_read, table_bytes);
  EXPECT_EQ(optimize.rows_read, 3000);
  EXPECT_EQ(optimize.rows_written, 3000);
  EXPECT_EQ(optimize.files_written, 1);
}

}  // namespace
}  // namespace silt
