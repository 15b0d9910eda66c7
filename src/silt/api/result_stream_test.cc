// ResultStream: a query's rows arrive as they are produced, the stream stops its query when
// closed or dropped early (no thread, memory or spill file left), errors raised mid-stream keep
// their class, and a cancel stops it.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "silt/api/session_internal.h"
#include "silt/base/testing_threads.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/session.h"

namespace silt {
namespace {

constexpr int64_t kBigRange = 1'000'000'000;

class ResultStreamTest : public ::testing::Test {
 protected:
  ResultStreamTest() {
    // The session's worker threads exist from the first query on; they are the session's.
    session_.Execute("SELECT count(*) FROM range(10)");
  }

  std::string ErrorClassOfNext(ResultStream& stream) {
    try {
      while (stream.Next()) {
      }
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  Session session_{SessionOptions{warehouse_, {}}};
};

TEST_F(ResultStreamTest, TheFirstRowsArriveBeforeTheLastAreProduced) {
  ResultStream stream = session_.ExecuteStream("SELECT id, id * 2 AS twice FROM range(" +
                                               std::to_string(kBigRange) + ")");
  ASSERT_TRUE(stream.has_columns());
  EXPECT_EQ(stream.columns().at(1).name, "twice");
  std::optional<Result> first = stream.Next();
  ASSERT_TRUE(first.has_value());
  ASSERT_GT(first->num_rows(), 0);
  EXPECT_EQ(first->row(0).GetInt64(0), 0);
  EXPECT_EQ(first->row(1).GetInt64(1), 2);
  // The producer runs only a few batches ahead of the reader.
  ProgressSnapshot progress = api::StatementProgress(session_);
  EXPECT_TRUE(progress.running);
  EXPECT_LE(progress.rows_read,
            static_cast<int64_t>(api::StatementStream::kPrefetchBatches + 3) * first->num_rows());
  // Later batches follow in order.
  int64_t expected = first->num_rows();
  for (int i = 0; i < 5; ++i) {
    std::optional<Result> next = stream.Next();
    ASSERT_TRUE(next.has_value());
    EXPECT_EQ(next->row(0).GetInt64(0), expected);
    expected += next->num_rows();
  }
}

TEST_F(ResultStreamTest, EveryRowArrivesOnceInOrder) {
  ResultStream stream = session_.Sql("SELECT id FROM range(0, 1000000, 3)").Stream();
  int64_t expected = 0;
  int batches = 0;
  while (std::optional<Result> rows = stream.Next()) {
    ++batches;
    for (const Row& row : *rows) {
      ASSERT_EQ(row.GetInt64(0), expected);
      expected += 3;
    }
  }
  EXPECT_EQ(expected, 1000002);
  EXPECT_GT(batches, 1);
  EXPECT_FALSE(stream.Next().has_value());  // and after the end
  EXPECT_FALSE(api::StatementProgress(session_).running);
}

TEST_F(ResultStreamTest, ClosingEarlyStopsTheQueryAndLeavesNoThread) {
  int threads_before = ThreadCount();
  {
    ResultStream stream =
        session_.ExecuteStream("SELECT id FROM range(" + std::to_string(kBigRange) + ")");
    ASSERT_TRUE(stream.Next().has_value());
    EXPECT_GT(ThreadCount(), threads_before);  // the producer
    stream.Close();
    EXPECT_EQ(WaitForThreadCount(threads_before), threads_before);
    EXPECT_FALSE(stream.Next().has_value());
    stream.Close();   // twice is fine
    stream.Cancel();  // after the end: nothing to stop, and the session's statements still run
    EXPECT_EQ(session_.Sql("SELECT count(*) FROM range(2)").Collect().row(0).GetInt64(0), 2);
  }
  EXPECT_FALSE(api::StatementProgress(session_).running);
  {
    // Dropped without Close.
    ResultStream stream =
        session_.ExecuteStream("SELECT id FROM range(" + std::to_string(kBigRange) + ")");
    ASSERT_TRUE(stream.Next().has_value());
  }
  EXPECT_EQ(WaitForThreadCount(threads_before), threads_before);
  // The session goes on, uncancelled.
  EXPECT_EQ(session_.Execute("SELECT count(*) FROM range(7)").row(0).GetInt64(0), 7);
  EXPECT_EQ(session_.Sql("SELECT count(*) FROM range(5)").Collect().row(0).GetInt64(0), 5);
}

TEST_F(ResultStreamTest, ClosingEarlyRemovesTheSpillFiles) {
  std::string spill_parent = io::JoinPath(folder_.path(), "spill");
  auto fs = io::MakeLocalFileSystem();
  session_.SetConf("silt.tmp.dir", spill_parent);
  session_.SetConf("silt.memory.limit", "8MB");
  ResultStream stream = session_.ExecuteStream(
      "SELECT id, concat('value-', id) AS label FROM range(3000000) ORDER BY id DESC");
  std::optional<Result> first = stream.Next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->row(0).GetInt64(0), 2999999);
  // The sort spilled to get there.
  EXPECT_FALSE(fs->List(spill_parent, "", /*recursive=*/true).empty());
  stream.Close();
  EXPECT_TRUE(fs->List(spill_parent, "", /*recursive=*/true).empty());
}

TEST_F(ResultStreamTest, AnErrorRaisedMidStreamKeepsItsClass) {
  // Rows before id 300000 divide fine; the batch holding it fails.
  ResultStream stream =
      session_.ExecuteStream("SELECT id, 10 DIV (id - 300000) AS q FROM range(1000000)");
  std::optional<Result> first = stream.Next();
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->row(0).GetInt64(1), 0);
  EXPECT_EQ(ErrorClassOfNext(stream), "DIVIDE_BY_ZERO");
  EXPECT_FALSE(api::StatementProgress(session_).running);
  // The session goes on.
  EXPECT_EQ(session_.Execute("SELECT count(*) FROM range(3)").row(0).GetInt64(0), 3);
}

TEST_F(ResultStreamTest, AnalysisErrorsThrowWhenTheStreamIsMade) {
  try {
    session_.ExecuteStream("SELECT missing FROM range(3)");
    FAIL() << "expected UNRESOLVED_COLUMN";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "UNRESOLVED_COLUMN");
  }
}

TEST_F(ResultStreamTest, CancelStopsTheStream) {
  int threads_before = ThreadCount();
  ResultStream stream =
      session_.ExecuteStream("SELECT id FROM range(" + std::to_string(kBigRange) + ")");
  ASSERT_TRUE(stream.Next().has_value());
  std::thread canceler([&] { stream.Cancel(); });
  canceler.join();
  EXPECT_EQ(ErrorClassOfNext(stream), "OPERATION_CANCELED");
  EXPECT_EQ(WaitForThreadCount(threads_before), threads_before);
  // The stream's cancel does not outlive it: the session's next statements run.
  EXPECT_EQ(session_.Sql("SELECT count(*) FROM range(4)").Collect().row(0).GetInt64(0), 4);
}

TEST_F(ResultStreamTest, TheSessionsCancelStopsItsStream) {
  ResultStream stream =
      session_.ExecuteStream("SELECT id FROM range(" + std::to_string(kBigRange) + ")");
  ASSERT_TRUE(stream.Next().has_value());
  session_.Cancel();
  EXPECT_EQ(ErrorClassOfNext(stream), "OPERATION_CANCELED");
}

TEST_F(ResultStreamTest, TheStreamOutlivesItsSession) {
  auto session = std::make_unique<Session>(SessionOptions{warehouse_, {}});
  session->Execute("CREATE TABLE t AS SELECT id FROM range(200000)");
  ResultStream stream = session->ExecuteStream("SELECT sum(id) AS total FROM t");
  session.reset();
  std::optional<Result> rows = stream.Next();
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->row(0).GetInt64(0), int64_t{200000} * 199999 / 2);
  EXPECT_FALSE(stream.Next().has_value());
}

TEST_F(ResultStreamTest, AStatementThatIsNotAQueryStreamsItsRows) {
  ResultStream stream = session_.ExecuteStream("CREATE TABLE s (id INT); SET a.b = c");
  EXPECT_EQ(stream.statement_text(), "SET a.b = c");
  std::optional<Result> rows = stream.Next();
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->row(0).GetString(1), "c");
  EXPECT_FALSE(stream.Next().has_value());

  ResultStream created = session_.ExecuteStream("CREATE TABLE u (id INT)");
  EXPECT_FALSE(created.has_columns());
  EXPECT_FALSE(created.Next().has_value());
}

}  // namespace
}  // namespace silt
