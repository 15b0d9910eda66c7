#include <gmock/gmock.h>

#include <thread>

#include "silt/stream/checkpoint.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/offset.h"
#include "silt/stream/stream_testing.h"

namespace silt::stream {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

class StreamExecutionTest : public StreamTest {
 protected:
  void SetUp() override {
    Sql("CREATE TABLE src (id BIGINT, k STRING); CREATE TABLE dst (id BIGINT, k STRING)");
  }
  void TearDown() override { TestingSetFaultHook(nullptr); }

  std::vector<std::string> Ids(const std::string& table = "dst") {
    return Query("SELECT id FROM " + table + " ORDER BY id");
  }

  std::string CheckpointFile(const std::string& relative, const std::string& checkpoint = "checkpoint") {
    return fs_->ReadFile(io::JoinPath(CheckpointPath(checkpoint), relative));
  }

  const std::string kCopy = "SELECT id, k FROM STREAM(src)";
};

TEST_F(StreamExecutionTest, CheckpointIsLaidOutAsSparks) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  auto execution = Make(kCopy, SinkInto("dst"));
  execution->Run();
  EXPECT_EQ(CheckpointFile("metadata"), "{\"id\":\"" + execution->id() + "\"}\n");
  std::string offsets = CheckpointFile("offsets/0");
  std::string table_id = Latest("src")->metadata().id;
  EXPECT_THAT(offsets, StartsWith("v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":"));
  EXPECT_THAT(offsets, HasSubstr(",\"conf\":{}}\n"));
  EXPECT_THAT(offsets, HasSubstr("\n{\"sourceVersion\":1,\"reservoirId\":\"" + table_id +
                                 "\",\"reservoirVersion\":2,\"index\":-1,\"isStartingVersion\":false}"));
  EXPECT_EQ(CheckpointFile("commits/0"), "v1\n{\"nextBatchWatermarkMs\":0}");
  EXPECT_EQ(CheckpointFile("sources/0/0"),
            "v1\n{\"sourceVersion\":1,\"reservoirId\":\"" + table_id +
                "\",\"reservoirVersion\":1,\"index\":-1,\"isStartingVersion\":true}");
}

TEST_F(StreamExecutionTest, TheQueryIdSurvivesARestart) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  auto first = Make(kCopy, SinkInto("dst"));
  first->Run();
  Sql("INSERT INTO src VALUES (2, 'b')");
  auto second = Make(kCopy, SinkInto("dst"));
  second->Run();
  EXPECT_EQ(first->id(), second->id());
  EXPECT_NE(first->run_id(), second->run_id());
}

TEST_F(StreamExecutionTest, EachBatchCommitCarriesTheQuerysTxn) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  auto execution = Make(kCopy, SinkInto("dst"));
  execution->Run();
  std::vector<log::Action> commit = Commit("dst");
  std::vector<log::SetTransaction> txns = Of<log::SetTransaction>(commit);
  ASSERT_EQ(txns.size(), 1u);
  EXPECT_EQ(txns[0].app_id, execution->id());
  EXPECT_EQ(txns[0].version, 0);
  log::CommitInfo info = Of<log::CommitInfo>(commit).at(0);
  EXPECT_EQ(info.operation, "STREAMING UPDATE");
  EXPECT_EQ(Parameter(info, "outputMode"), "\"Append\"");
  EXPECT_EQ(Parameter(info, "queryId"), "\"" + execution->id() + "\"");
  EXPECT_EQ(Parameter(info, "epochId"), "\"0\"");
  EXPECT_EQ(Metric(info, "numOutputRows"), "1");
}

TEST_F(StreamExecutionTest, ABatchWithoutItsCommitMarkerRunsAgainWithTheSameOffsets) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  TestingSetFaultHook([](std::string_view step, int64_t) {
    if (step == kAfterOffsetsWritten) throw std::runtime_error("stopped");
  });
  auto crashed = Make(kCopy, SinkInto("dst"));
  EXPECT_THROW(crashed->Run(), std::runtime_error);
  TestingSetFaultHook(nullptr);
  std::string planned = CheckpointFile("offsets/0");
  // New data after the crash: the replayed batch still reads only what it planned.
  Sql("INSERT INTO src VALUES (2, 'b')");
  auto restarted = Make(kCopy, SinkInto("dst"));
  restarted->Run();
  EXPECT_EQ(CheckpointFile("offsets/0"), planned);
  std::vector<QueryProgress> progress = restarted->RecentProgress();
  ASSERT_EQ(progress.size(), 2u);
  EXPECT_EQ(progress[0].batch_id, 0);
  EXPECT_EQ(progress[0].num_input_rows, 1);
  EXPECT_EQ(progress[1].batch_id, 1);
  EXPECT_EQ(progress[1].num_input_rows, 1);
  EXPECT_THAT(Ids(), ElementsAre("1", "2"));
}

TEST_F(StreamExecutionTest, ABatchTheSinkCommittedIsNotWrittenTwice) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  TestingSetFaultHook([](std::string_view step, int64_t) {
    if (step == kAfterSinkCommit) throw std::runtime_error("stopped");
  });
  auto crashed = Make(kCopy, SinkInto("dst"));
  EXPECT_THROW(crashed->Run(), std::runtime_error);
  TestingSetFaultHook(nullptr);
  int64_t version = Latest("dst")->version();
  auto restarted = Make(kCopy, SinkInto("dst"));
  restarted->Run();
  EXPECT_EQ(Latest("dst")->version(), version);  // nothing committed again
  EXPECT_THAT(Ids(), ElementsAre("1"));
  EXPECT_EQ(CheckpointFile("commits/0"), "v1\n{\"nextBatchWatermarkMs\":0}");
}

TEST_F(StreamExecutionTest, TwoRunsOfOneCheckpointCannotBothPlanABatch) {
  for (int i = 1; i <= 2; ++i) Sql("INSERT INTO src VALUES (" + std::to_string(i) + ", 'a')");
  // While the first run is between batches 0 and 1, a second run of the same checkpoint plans
  // and commits batch 1: the first run must then refuse to plan batch 1 again.
  bool second_ran = false;
  TestingSetFaultHook([&](std::string_view step, int64_t batch) {
    if (step != kAfterBatchCommitted || batch != 0 || second_ran) return;
    second_ran = true;
    Make(kCopy, SinkInto("dst"), {{"maxFilesPerTrigger", "1"}})->Run();
  });
  auto first = Make(kCopy, SinkInto("dst"), {{"maxFilesPerTrigger", "1"}});
  EXPECT_EQ(ErrorOf([&] { first->Run(); }), "STREAMING_CHECKPOINT_MISMATCH");
  TestingSetFaultHook(nullptr);
  EXPECT_TRUE(second_ran);
  EXPECT_THAT(Ids(), ElementsAre("1", "2"));  // each row once
}

TEST_F(StreamExecutionTest, ACheckpointOfAQueryWithAnotherNumberOfSourcesIsRefused) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  Make(kCopy, SinkInto("dst"))->Run();
  // offsets/<n> of a query that read two sources.
  fs_->WriteFile(io::JoinPath(CheckpointPath("checkpoint"), "offsets/1"),
                 "v1\n{\"batchWatermarkMs\":0,\"batchTimestampMs\":0,\"conf\":{}}\n-\n-");
  EXPECT_EQ(ErrorOf([&] { Make(kCopy, SinkInto("dst"))->Run(); }), "STREAMING_CHECKPOINT_MISMATCH");
}

TEST_F(StreamExecutionTest, TriggerOnceRunsOneBatch) {
  for (int i = 1; i <= 3; ++i) Sql("INSERT INTO src VALUES (" + std::to_string(i) + ", 'a')");
  EXPECT_EQ(RunInto("dst", kCopy, {{"maxFilesPerTrigger", "1"}}, TriggerKind::kOnce).size(), 1u);
  EXPECT_EQ(Ids().size(), 1u);
}

TEST_F(StreamExecutionTest, AvailableNowStopsAtWhatWasThereAtStart) {
  for (int i = 1; i <= 3; ++i) Sql("INSERT INTO src VALUES (" + std::to_string(i) + ", 'a')");
  int batches = 0;
  auto execution = Make(kCopy, MakeForEachBatchSink([&](const BatchContext& batch) {
                          batch.Run(nullptr);
                          // Data that arrives while the query runs waits for the next run.
                          if (batches++ == 0) Sql("INSERT INTO src VALUES (9, 'late')");
                        }),
                        {{"maxFilesPerTrigger", "1"}});
  execution->Run();
  EXPECT_EQ(batches, 3);
}

TEST_F(StreamExecutionTest, UntilIdleAlsoReadsWhatArrivesMeanwhile) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  int batches = 0;
  auto execution = Make(kCopy, MakeForEachBatchSink([&](const BatchContext& batch) {
                          batch.Run(nullptr);
                          if (batches++ == 0) Sql("INSERT INTO src VALUES (9, 'late')");
                        }),
                        {}, TriggerKind::kUntilIdle);
  execution->Run();
  EXPECT_EQ(batches, 2);
}

TEST_F(StreamExecutionTest, ProcessingTimeRunsUntilStopped) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  auto execution = Make(kCopy, SinkInto("dst"), {}, TriggerKind::kProcessingTime);
  std::thread runner([&] { execution->Run(); });
  // Wait for the first batch, then add data and wait for it too.
  for (int i = 0; i < 500 && execution->RecentProgress().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Another session writes meanwhile (a session runs one statement at a time).
  sql::SessionState writer(fs_, warehouse_);
  commands::ExecuteStatement(writer, sql::ParseStatement("INSERT INTO src VALUES (2, 'b')"));
  for (int i = 0; i < 500 && execution->RecentProgress().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  execution->Stop();
  runner.join();
  EXPECT_EQ(execution->RecentProgress().size(), 2u);
  EXPECT_EQ(execution->Status().message, "Stopped");
  EXPECT_THAT(Ids(), ElementsAre("1", "2"));
}

TEST_F(StreamExecutionTest, ProgressUsesSparksFieldNames) {
  Sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')");
  std::vector<QueryProgress> progress = RunInto("dst", kCopy);
  ASSERT_EQ(progress.size(), 1u);
  std::string json = progress[0].ToJson();
  for (const char* field :
       {"\"id\":", "\"runId\":", "\"batchId\":0", "\"numInputRows\":2", "\"inputRowsPerSecond\":",
        "\"processedRowsPerSecond\":", "\"durationMs\":{", "\"addBatch\":", "\"triggerExecution\":",
        "\"sources\":[{\"description\":\"DeltaSource[", "\"startOffset\":null", "\"endOffset\":{",
        "\"sink\":{\"description\":\"DeltaSink[", "\"numOutputRows\":2"}) {
    EXPECT_THAT(json, HasSubstr(field));
  }
}

TEST_F(StreamExecutionTest, CompleteModeAggregatesEverythingTheStreamRead) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  const std::string query = "SELECT k, count(*) AS n FROM STREAM(src) GROUP BY k";
  Sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')");
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  Sql("INSERT INTO src VALUES (3, 'a')");
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  EXPECT_THAT(Query("SELECT k, n FROM counts ORDER BY k"), ElementsAre("a,2", "b,1"));
}

TEST_F(StreamExecutionTest, OutputModesAreCheckedAgainstTheQuery) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts", "SELECT k, count(*) AS n FROM STREAM(src) GROUP BY k");
            }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", kCopy + " ORDER BY id"); }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
  EXPECT_EQ(ErrorOf([&] {
              RunInto("dst", kCopy, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
            }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
  EXPECT_EQ(ErrorOf([&] {
              DeltaSinkOptions options;
              options.output_mode = OutputMode::kUpdate;
              SinkInto("dst", options);
            }),
            "DELTA_UNSUPPORTED_OUTPUT_MODE");
  EXPECT_EQ(ErrorOf([] { ParseOutputMode("sometimes"); }), "INVALID_STREAMING_OPTION");
  // A join with a static table is per-row work and fine in append mode.
  Sql("CREATE TABLE names (k STRING, label STRING); INSERT INTO names VALUES ('a', 'A')");
  Sql("INSERT INTO src VALUES (1, 'a')");
  Sql("CREATE TABLE labelled (id BIGINT, label STRING)");
  RunInto("labelled", "SELECT s.id, n.label FROM STREAM(src) s JOIN names n ON s.k = n.k");
  EXPECT_THAT(Query("SELECT id, label FROM labelled"), ElementsAre("1,A"));
}

TEST_F(StreamExecutionTest, NewColumnsNeedMergeSchema) {
  Sql("CREATE TABLE narrow (id BIGINT)");
  Sql("INSERT INTO src VALUES (1, 'a')");
  EXPECT_EQ(ErrorOf([&] { RunInto("narrow", kCopy); }), "DELTA_METADATA_MISMATCH");
  DeltaSinkOptions options;
  options.merge_schema = true;
  auto execution = Make(kCopy, SinkInto("narrow", options), {}, TriggerKind::kAvailableNow,
                        OutputMode::kAppend, "merged");
  execution->Run();
  EXPECT_THAT(Query("SELECT id, k FROM narrow"), ElementsAre("1,a"));
  // A table column the batch lacks is written as NULL.
  Sql("CREATE TABLE wide (id BIGINT, k STRING, note STRING)");
  RunInto("wide", kCopy, {}, TriggerKind::kAvailableNow, OutputMode::kAppend, "wide");
  EXPECT_THAT(Query("SELECT id, k, note IS NULL FROM wide"), ElementsAre("1,a,true"));
}

TEST_F(StreamExecutionTest, PartitioningMustMatchTheTables) {
  Sql("CREATE TABLE parted (id BIGINT, k STRING) PARTITIONED BY (k)");
  Sql("INSERT INTO src VALUES (1, 'a'), (2, 'b')");
  DeltaSinkOptions options;
  options.partition_by = {"k"};
  auto execution = Make(kCopy, SinkInto("parted", options));
  execution->Run();
  EXPECT_EQ(Latest("parted")->files().size(), 2u);
  options.partition_by = {"id"};
  auto wrong = Make(kCopy, SinkInto("parted", options), {}, TriggerKind::kAvailableNow,
                    OutputMode::kAppend, "wrong");
  EXPECT_EQ(ErrorOf([&] { wrong->Run(); }), "DELTA_METADATA_MISMATCH");
}

TEST_F(StreamExecutionTest, ForEachBatchSeesEachBatchAndItsId) {
  for (int i = 1; i <= 3; ++i) Sql("INSERT INTO src VALUES (" + std::to_string(i) + ", 'a')");
  std::vector<std::pair<int64_t, int64_t>> seen;
  auto execution = Make(kCopy, MakeForEachBatchSink([&](const BatchContext& batch) {
                          int64_t rows = 0;
                          for (const Batch& part : batch.Run(nullptr)) rows += part.num_rows();
                          seen.emplace_back(batch.batch_id, rows);
                        }),
                        {{"maxFilesPerTrigger", "2"}});
  execution->Run();
  EXPECT_THAT(seen, ElementsAre(std::pair<int64_t, int64_t>{0, 2}, std::pair<int64_t, int64_t>{1, 1}));
}

TEST_F(StreamExecutionTest, IdempotentWritesSkipAVersionAlreadyApplied) {
  Sql("SET spark.databricks.delta.write.txnAppId = app");
  Sql("SET spark.databricks.delta.write.txnVersion = 5");
  Sql("INSERT INTO dst VALUES (1, 'a')");
  Sql("INSERT INTO dst VALUES (1, 'a')");  // skipped: version 5 of app is applied
  EXPECT_THAT(Ids(), ElementsAre("1"));
  EXPECT_EQ(Latest("dst")->TransactionVersion("app"), 5);
  Sql("UPDATE dst SET k = 'z'");   // skipped too
  Sql("DELETE FROM dst");          // and this
  Sql("MERGE INTO dst t USING (SELECT 2 AS id, 'b' AS k) s ON t.id = s.id "
      "WHEN NOT MATCHED THEN INSERT *");
  EXPECT_THAT(Query("SELECT id, k FROM dst"), ElementsAre("1,a"));
  Sql("SET spark.databricks.delta.write.txnVersion = 6");
  Sql("MERGE INTO dst t USING (SELECT 2 AS id, 'b' AS k) s ON t.id = s.id "
      "WHEN NOT MATCHED THEN INSERT *");
  Sql("MERGE INTO dst t USING (SELECT 2 AS id, 'b' AS k) s ON t.id = s.id "
      "WHEN MATCHED THEN DELETE");
  EXPECT_THAT(Ids(), ElementsAre("1", "2"));
  EXPECT_EQ(Latest("dst")->TransactionVersion("app"), 6);
  // CTAS of a new table records it as well.
  Sql("SET spark.databricks.delta.write.txnVersion = 7");
  Sql("CREATE TABLE copy AS SELECT * FROM dst");
  EXPECT_EQ(Latest("copy")->TransactionVersion("app"), 7);
}

TEST_F(StreamExecutionTest, IdempotentWriteVersionResetsWhenAsked) {
  Sql("SET spark.databricks.delta.write.txnVersion.autoReset.enabled = true");
  Sql("SET spark.databricks.delta.write.txnAppId = app");
  Sql("SET spark.databricks.delta.write.txnVersion = 1");
  Sql("INSERT INTO dst VALUES (1, 'a')");
  EXPECT_EQ(state_->GetConf("spark.databricks.delta.write.txnVersion"), std::nullopt);
  // With only the app id left, a write is refused rather than silently not idempotent.
  EXPECT_EQ(ErrorClassOf("INSERT INTO dst VALUES (2, 'b')"), "INVALID_CONFIGURATION");
  Sql("SET spark.databricks.delta.write.txnVersion = x");
  EXPECT_EQ(ErrorClassOf("INSERT INTO dst VALUES (2, 'b')"), "INVALID_CONFIGURATION");
}

TEST_F(StreamExecutionTest, ForEachBatchWithTxnMergeIsExactlyOnce) {
  Sql("CREATE TABLE totals (k STRING, n BIGINT)");
  Sql("INSERT INTO src VALUES (1, 'a'), (2, 'a'), (3, 'b')");
  auto merge = [&](const BatchContext& batch) {
    state_->SetConf("spark.databricks.delta.write.txnAppId", batch.query_id);
    state_->SetConf("spark.databricks.delta.write.txnVersion", std::to_string(batch.batch_id));
    Sql("MERGE INTO totals t USING (SELECT k, count(*) AS n FROM (" + batch.query_sql +
        ") GROUP BY k) s ON t.k = s.k WHEN MATCHED THEN UPDATE SET n = t.n + s.n "
        "WHEN NOT MATCHED THEN INSERT *");
  };
  TestingSetFaultHook([](std::string_view step, int64_t) {
    if (step == kAfterSinkCommit) throw std::runtime_error("stopped");
  });
  auto crashed = Make(kCopy, MakeForEachBatchSink(merge));
  EXPECT_THROW(crashed->Run(), std::runtime_error);
  TestingSetFaultHook(nullptr);
  // The replayed batch's MERGE is skipped: the additive update is applied once.
  Make(kCopy, MakeForEachBatchSink(merge))->Run();
  EXPECT_THAT(Query("SELECT k, n FROM totals ORDER BY k"), ElementsAre("a,2", "b,1"));
}

TEST_F(StreamExecutionTest, RefreshEveryRunsBatchesUntilTheStatementIsCancelled) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  ExecuteStreamingStatement(
      *state_, sql::ParseStatement("CREATE STREAMING TABLE flow AS SELECT id, k FROM STREAM(src)"));
  EXPECT_EQ(ErrorOf([&] {
              ExecuteStreamingStatement(
                  *state_, sql::ParseStatement("REFRESH STREAMING TABLE flow EVERY 'often'"));
            }),
            "INVALID_STREAMING_OPTION");
  commands::StatementResult result;
  std::thread runner([&] {
    result = ExecuteStreamingStatement(
        *state_, sql::ParseStatement("REFRESH STREAMING TABLE flow EVERY '200 milliseconds'"));
  });
  // Another session writes and reads meanwhile (a session runs one statement at a time).
  sql::SessionState other(fs_, warehouse_);
  commands::ExecuteStatement(other, sql::ParseStatement("INSERT INTO src VALUES (2, 'b')"));
  int64_t rows = 0;
  for (int i = 0; i < 100 && rows < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    rows = commands::ExecuteStatement(other, sql::ParseStatement("SELECT * FROM flow")).num_rows();
  }
  state_->cancellation().Cancel();
  runner.join();
  state_->cancellation().Reset();
  EXPECT_EQ(rows, 2);
  EXPECT_EQ(result.num_rows(), 1);  // the one batch that ran before the cancel request
  EXPECT_THAT(Ids("flow"), ElementsAre("1", "2"));
}

TEST_F(StreamExecutionTest, ACorruptCheckpointIsReported) {
  Sql("INSERT INTO src VALUES (1, 'a')");
  RunInto("dst", kCopy);
  fs_->WriteFile(io::JoinPath(CheckpointPath("checkpoint"), "offsets/0"), "garbage");
  fs_->Delete(io::JoinPath(CheckpointPath("checkpoint"), "commits/0"));
  EXPECT_EQ(ErrorOf([&] { RunInto("dst", kCopy); }), "STREAMING_CHECKPOINT_CORRUPT");
  fs_->WriteFile(io::JoinPath(CheckpointPath("broken"), "metadata"), "{}");
  EXPECT_EQ(ErrorOf([&] { Checkpoint::Open(fs_, CheckpointPath("broken")); }),
            "STREAMING_CHECKPOINT_CORRUPT");
}

}  // namespace
}  // namespace silt::stream
