#include "silt/stream/flow.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "silt/stream/fault_point.h"
#include "silt/stream/stream_testing.h"

namespace silt::stream {
namespace {

using ::testing::ElementsAre;

class FlowTest : public StreamTest {
 protected:
  void TearDown() override { TestingSetFaultHook(nullptr); }

  commands::StatementResult Stream(const std::string& text) {
    return ExecuteStreamingStatement(*state_, sql::ParseStatement(text));
  }

  // The query id of flow `flow` of `table`, from its checkpoint's metadata.
  std::string FlowQueryId(const std::string& table, const std::string& flow) {
    std::string metadata = fs_->ReadFile(
        io::JoinPath(Location(table), "_silt_streaming/flows/" + flow + "/checkpoint/metadata"));
    size_t start = metadata.find("\"id\":\"");
    EXPECT_NE(start, std::string::npos) << metadata;
    start += 6;
    return metadata.substr(start, metadata.find('"', start) - start);
  }

  // Stops the process's batch at `step` of batch `batch` (as a crash would), once.
  void StopOnceAt(std::string_view step, int64_t batch) {
    auto fired = std::make_shared<bool>(false);
    TestingSetFaultHook([step, batch, fired](std::string_view reached, int64_t reached_batch) {
      if (!*fired && reached == step && reached_batch == batch) {
        *fired = true;
        throw std::runtime_error("stopped");
      }
    });
  }
};

constexpr const char* kCdcFlow =
    "CREATE FLOW cdc AS AUTO CDC INTO customers FROM STREAM(changes) WITH "
    "(maxFilesPerTrigger = 1) KEYS (id) APPLY AS DELETE WHEN op = 'D' SEQUENCE BY seq "
    "COLUMNS * EXCEPT (op, seq)";

TEST_F(FlowTest, AutoCdcCommitsEachBatchOnceWithTheStreamsTxn) {
  Sql("CREATE TABLE changes (id BIGINT, v STRING, op STRING, seq BIGINT)");
  Stream("CREATE STREAMING TABLE customers");
  Stream(kCdcFlow);
  Sql("INSERT INTO changes VALUES (1, 'a', 'U', 1), (2, 'b', 'U', 1)");
  Sql("INSERT INTO changes VALUES (1, 'c', 'U', 2), (2, NULL, 'D', 2)");
  int64_t before = Latest("customers")->version();
  commands::StatementResult batches = Stream("REFRESH STREAMING TABLE customers");
  EXPECT_EQ(batches.num_rows(), 2);
  // One commit per batch, each recording the flow's query at its batch id.
  auto snapshot = Latest("customers");
  EXPECT_EQ(snapshot->version(), before + 2);
  EXPECT_EQ(snapshot->TransactionVersion(FlowQueryId("customers", "cdc")), 2);
  EXPECT_THAT(Query("SELECT id, v FROM customers"), ElementsAre("1,c"));
  // The flow's state: the keys' last sequences, the delete included.
  EXPECT_THAT(Query("SELECT id, __silt_sequence, __silt_deleted FROM delta.`" +
                    Location("customers") + "/_silt_streaming/flows/cdc/state` ORDER BY id"),
              ElementsAre("1,2,false", "2,2,true"));
}

TEST_F(FlowTest, AutoCdcReplaysABatchStoppedBetweenTheTargetAndTheState) {
  Sql("CREATE TABLE changes (id BIGINT, v STRING, op STRING, seq BIGINT)");
  Stream("CREATE STREAMING TABLE customers");
  Stream(kCdcFlow);
  Sql("INSERT INTO changes VALUES (1, 'a', 'U', 5), (2, 'b', 'U', 5)");
  // Batch 1 commits to the target, then stops before the state records it.
  StopOnceAt(kAfterDataFilesWritten, 1);
  EXPECT_THROW(Stream("REFRESH STREAMING TABLE customers"), std::runtime_error);
  int64_t version = Latest("customers")->version();
  // The replay skips the target's MERGE and records the state, which then guards key 1.
  Sql("INSERT INTO changes VALUES (1, 'late', 'U', 4), (3, 'c', 'U', 1)");
  Stream("REFRESH STREAMING TABLE customers");
  EXPECT_EQ(Latest("customers")->version(), version + 1);
  EXPECT_THAT(Query("SELECT id, v FROM customers ORDER BY id"), ElementsAre("1,a", "2,b", "3,c"));
}

TEST_F(FlowTest, MergeFlowReplayedAfterItsCommitAddsOnce) {
  Sql("CREATE TABLE sales (store STRING, amount BIGINT)");
  Sql("CREATE TABLE totals (store STRING, total BIGINT)");
  Stream(
      "CREATE FLOW totals_flow AS MERGE INTO totals t USING (SELECT store, sum(amount) AS amount "
      "FROM STREAM(sales) GROUP BY store) s ON t.store = s.store "
      "WHEN MATCHED THEN UPDATE SET total = t.total + s.amount "
      "WHEN NOT MATCHED THEN INSERT (store, total) VALUES (s.store, s.amount)");
  Sql("INSERT INTO sales VALUES ('a', 1), ('a', 2), ('b', 5)");
  StopOnceAt(kAfterSinkCommit, 1);
  EXPECT_THROW(Stream("REFRESH STREAMING TABLE totals"), std::runtime_error);
  EXPECT_THAT(Query("SELECT store, total FROM totals ORDER BY store"), ElementsAre("a,3", "b,5"));
  Stream("REFRESH STREAMING TABLE totals");
  EXPECT_THAT(Query("SELECT store, total FROM totals ORDER BY store"), ElementsAre("a,3", "b,5"));
  EXPECT_EQ(Latest("totals")->TransactionVersion(FlowQueryId("totals", "totals_flow")), 1);
  // The session's own txn options are left as they were.
  EXPECT_FALSE(state_->GetConf("spark.databricks.delta.write.txnAppId").has_value());
}

TEST_F(FlowTest, FlowsAreKeptWithTheirTarget) {
  Sql("CREATE TABLE src (id BIGINT)");
  Sql("CREATE TABLE dst (id BIGINT)");
  Stream("CREATE FLOW `Copy Flow` AS INSERT INTO dst BY NAME SELECT id FROM STREAM(src)");
  Stream("CREATE FLOW b AS INSERT INTO dst BY NAME SELECT id * 10 AS id FROM STREAM(src)");
  EXPECT_THAT(FlowNames(*fs_, Location("dst")), ElementsAre("Copy Flow", "b"));
  EXPECT_TRUE(
      fs_->Stat(io::JoinPath(Location("dst"), "_silt_streaming/flows/copy%20flow/flow.json")));
  Sql("INSERT INTO src VALUES (1)");
  Stream("REFRESH STREAMING TABLE dst");
  EXPECT_THAT(Query("SELECT id FROM dst ORDER BY id"), ElementsAre("1", "10"));
  // FULL forgets what the flows read and empties the table, then streams everything again.
  Stream("REFRESH STREAMING TABLE dst FULL");
  EXPECT_THAT(Query("SELECT id FROM dst ORDER BY id"), ElementsAre("1", "10"));
  EXPECT_EQ(ErrorOf([&] { Stream("REFRESH STREAMING TABLE dst EVERY '1 second'"); }),
            "UNSUPPORTED_FEATURE");
}

}  // namespace
}  // namespace silt::stream
