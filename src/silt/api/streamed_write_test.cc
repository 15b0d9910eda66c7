// CREATE TABLE ... AS SELECT and INSERT ... SELECT write their files as the query produces its
// rows, so a source bigger than memory is written under a small memory limit; a write that fails
// on a later batch removes the files of the earlier ones.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "silt/api/session_internal.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/session.h"

namespace silt {
namespace {

constexpr int64_t kSourceRows = 2'000'000;

class StreamedWriteTest : public ::testing::Test {
 protected:
  // Runs `sql` while watching its progress; returns the rows the query had produced when the
  // first rows were written.
  int64_t RowsReadAtFirstWrite(const std::string& sql) {
    std::atomic<bool> finished{false};
    std::atomic<int64_t> read_at_first_write{-1};
    std::thread watcher([&] {
      while (!finished) {
        ProgressSnapshot progress = api::StatementProgress(session_);
        if (progress.running && progress.rows_written > 0) {
          read_at_first_write = progress.rows_read;
          return;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    });
    try {
      session_.Execute(sql);
    } catch (...) {
      finished = true;
      watcher.join();
      throw;
    }
    finished = true;
    watcher.join();
    return read_at_first_write;
  }

  int64_t Scalar(const std::string& sql) { return session_.Execute(sql).row(0).GetInt64(0); }

  // The data files of the table folder `table` (outside its log).
  std::set<std::string> DataFiles(const std::string& table) {
    std::set<std::string> files;
    for (const io::FileInfo& info :
         io::MakeLocalFileSystem()->List(io::JoinPath(warehouse_, table), "", /*recursive=*/true)) {
      if (info.path.find("/_delta_log/") == std::string::npos) files.insert(info.path);
    }
    return files;
  }

  std::string ErrorClassOf(const std::string& sql) {
    try {
      session_.Execute(sql);
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  Session session_{SessionOptions{warehouse_, {}}};
};

TEST_F(StreamedWriteTest, CreateTableAsSelectWritesAsTheQueryProducesRows) {
  int64_t read = RowsReadAtFirstWrite(
      "CREATE TABLE t AS SELECT id, concat('name-', id) AS name "
      "FROM range(" +
      std::to_string(kSourceRows) + ")");
  EXPECT_GE(read, 0) << "no write was seen";
  EXPECT_LT(read, kSourceRows / 2);
  EXPECT_EQ(Scalar("SELECT count(*) FROM t"), kSourceRows);
  EXPECT_EQ(Scalar("SELECT count(*) FROM t WHERE name = concat('name-', id)"), kSourceRows);
}

TEST_F(StreamedWriteTest, InsertSelectWritesAsTheQueryProducesRows) {
  session_.Execute("CREATE TABLE t (id BIGINT, name STRING)");
  int64_t read = RowsReadAtFirstWrite("INSERT INTO t SELECT id, concat('name-', id) FROM range(" +
                                      std::to_string(kSourceRows) + ")");
  EXPECT_GE(read, 0) << "no write was seen";
  EXPECT_LT(read, kSourceRows / 2);
  EXPECT_EQ(Scalar("SELECT count(*) FROM t"), kSourceRows);
  EXPECT_EQ(Scalar("SELECT max(id) FROM t"), kSourceRows - 1);
}

TEST_F(StreamedWriteTest, ASourceBiggerThanTheMemoryLimitIsWritten) {
  session_.SetConf("silt.tmp.dir", io::JoinPath(folder_.path(), "spill"));
  session_.Execute("SET silt.memory.limit = '16MB'");
  // About 50 MB of rows, sorted (the sort spills), then written as they leave the sort.
  session_.Execute(
      "CREATE TABLE sorted AS SELECT id, concat('a fairly long value ', id) AS label "
      "FROM range(1500000) ORDER BY id DESC");
  session_.Execute("INSERT INTO sorted SELECT id + 1500000, label FROM sorted");
  session_.Execute("RESET silt.memory.limit");
  EXPECT_EQ(Scalar("SELECT count(*) FROM sorted"), 3000000);
  EXPECT_EQ(Scalar("SELECT count(DISTINCT id) FROM sorted"), 3000000);
  EXPECT_EQ(Scalar("SELECT count(*) FROM sorted WHERE label = concat('a fairly long value ', "
                   "id % 1500000)"),
            3000000);
}

TEST_F(StreamedWriteTest, AWriteThatFailsOnALaterBatchLeavesNoFiles) {
  // The batches before id 1,500,000 are written before the one holding it fails.
  EXPECT_EQ(ErrorClassOf("CREATE TABLE t AS SELECT id, 10 DIV (id - 1500000) AS q "
                         "FROM range(2000000)"),
            "DIVIDE_BY_ZERO");
  EXPECT_THAT(DataFiles("t"), ::testing::IsEmpty());
  EXPECT_EQ(ErrorClassOf("SELECT * FROM t"), "TABLE_OR_VIEW_NOT_FOUND");

  session_.Execute("CREATE TABLE u (id BIGINT, q BIGINT) PARTITIONED BY (p INT)");
  session_.Execute("INSERT INTO u VALUES (1, 1, 0)");
  std::set<std::string> before = DataFiles("u");
  EXPECT_EQ(ErrorClassOf("INSERT INTO u SELECT id, 10 DIV (id - 1500000), CAST(id % 3 AS INT) "
                         "FROM range(2000000)"),
            "DIVIDE_BY_ZERO");
  EXPECT_EQ(DataFiles("u"), before);
  EXPECT_EQ(Scalar("SELECT count(*) FROM u"), 1);
}

}  // namespace
}  // namespace silt
