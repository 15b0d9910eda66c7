#include <gmock/gmock.h>

#include "silt/stream/checkpoint.h"
#include "silt/stream/fault_point.h"
#include "silt/stream/stream_testing.h"

namespace silt::stream {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// A foreachBatch sink that keeps each batch's rows as text.
class CollectingSink {
 public:
  std::unique_ptr<Sink> Make() {
    return MakeForEachBatchSink([this](const BatchContext& batch) {
      std::vector<std::string> rows;
      for (const Batch& part : batch.Run(nullptr)) {
        for (int64_t row = 0; row < part.num_rows(); ++row) {
          std::string text;
          for (size_t column = 0; column < part.num_columns(); ++column) {
            text += (column == 0 ? "" : ",") + part.column(column)->ValueToString(row);
          }
          rows.push_back(text);
        }
      }
      std::sort(rows.begin(), rows.end());
      batches.push_back(rows);
    });
  }
  std::vector<std::vector<std::string>> batches;
};

class StatefulStreamTest : public StreamTest {
 protected:
  void SetUp() override { Sql("CREATE TABLE events (ts TIMESTAMP, k STRING, v BIGINT)"); }
  void TearDown() override { TestingSetFaultHook(nullptr); }

  void Insert(const std::string& time, const std::string& key, int value = 1) {
    Sql("INSERT INTO events VALUES (TIMESTAMP '2024-01-01 " + time + "', '" + key + "', " +
        std::to_string(value) + ")");
  }

  std::string CheckpointFile(const std::string& relative) {
    return fs_->ReadFile(io::JoinPath(CheckpointPath("checkpoint"), relative));
  }
  bool CheckpointHas(const std::string& relative) {
    return fs_->Stat(io::JoinPath(CheckpointPath("checkpoint"), relative)).has_value();
  }

  const std::string kWindowCounts =
      "SELECT window(ts, '10 minutes').start AS start, count(*) AS n, sum(v) AS total "
      "FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 5 MINUTES "
      "GROUP BY window(ts, '10 minutes')";
};

TEST_F(StatefulStreamTest, AppendModeWritesAWindowOnceTheWatermarkPassesItsEnd) {
  Sql("CREATE TABLE counts (start TIMESTAMP, n BIGINT, total BIGINT)");
  Insert("10:01:00", "a", 1);
  Insert("10:03:00", "a", 2);
  RunInto("counts", kWindowCounts);
  // The watermark is 10:03 - 5 minutes: the window [10:00, 10:10) is still open.
  EXPECT_THAT(Query("SELECT * FROM counts"), IsEmpty());
  Insert("10:21:00", "b", 4);
  RunInto("counts", kWindowCounts);
  // 10:21 - 5 minutes passes 10:10: the first window is final and written once.
  EXPECT_THAT(Query("SELECT start, n, total FROM counts ORDER BY start"),
              ElementsAre("2024-01-01 10:00:00,2,3"));
  // A row at or before the watermark (10:16) is late and dropped.
  Insert("10:05:00", "c", 8);
  Insert("10:45:00", "d", 16);
  std::vector<QueryProgress> progress = RunInto("counts", kWindowCounts);
  EXPECT_THAT(Query("SELECT start, n, total FROM counts ORDER BY start"),
              ElementsAre("2024-01-01 10:00:00,2,3", "2024-01-01 10:20:00,1,4"));
  ASSERT_FALSE(progress.empty());
  ASSERT_EQ(progress.front().state_operators.size(), 1u);
  EXPECT_EQ(progress.front().state_operators[0].operator_name, "stateStoreSave");
  EXPECT_EQ(progress.front().state_operators[0].num_rows_dropped_by_watermark, 1);
}

TEST_F(StatefulStreamTest, TheWatermarkIsRecordedInOffsetsAndCommits) {
  Sql("CREATE TABLE counts (start TIMESTAMP, n BIGINT, total BIGINT)");
  Insert("10:20:00", "a");
  RunInto("counts", kWindowCounts);
  // 10:20 - 5 minutes, in ms since the epoch.
  const std::string watermark = "1704104100000";
  EXPECT_THAT(CheckpointFile("offsets/0"), HasSubstr("{\"batchWatermarkMs\":0,"));
  EXPECT_EQ(CheckpointFile("commits/0"), "v1\n{\"nextBatchWatermarkMs\":" + watermark + "}");
  // The watermark moved: a batch without data follows, run at the new watermark.
  EXPECT_THAT(CheckpointFile("offsets/1"), HasSubstr("{\"batchWatermarkMs\":" + watermark + ","));
  EXPECT_EQ(CheckpointFile("commits/1"), "v1\n{\"nextBatchWatermarkMs\":" + watermark + "}");
}

TEST_F(StatefulStreamTest, LatenessIsJudgedByThePreviousBatchsWatermark) {
  const std::string query =
      "SELECT k, count(*) AS n FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 5 MINUTES "
      "GROUP BY k";
  CollectingSink sink;
  std::vector<QueryProgress> progress;
  auto once = [&] {
    auto execution = Make(query, sink.Make(), {}, TriggerKind::kOnce, OutputMode::kUpdate);
    execution->Run();
    progress = execution->RecentProgress();
  };
  Insert("10:00:00", "a");
  once();  // batch 0 runs at watermark 0 and leaves 09:55
  Insert("09:50:00", "b");
  once();  // batch 1 runs at 09:55, but judges lateness by batch 0's watermark
  Insert("09:51:00", "c");
  once();  // batch 2 judges it by 09:55: late
  EXPECT_THAT(sink.batches, ElementsAre(ElementsAre("a,1"), ElementsAre("b,1"), IsEmpty()));
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_EQ(progress[0].state_operators.at(0).num_rows_dropped_by_watermark, 1);
}

TEST_F(StatefulStreamTest, AppendModeNeedsAWatermarkOnAGroupKey) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts",
                      "SELECT k, count(*) AS n FROM STREAM(events) WATERMARK ts DELAY OF "
                      "INTERVAL 1 MINUTE GROUP BY k");
            }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
}

TEST_F(StatefulStreamTest, TheEventTimeMustBeATimestamp) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts",
                      "SELECT k, count(*) AS n FROM STREAM(events) WATERMARK k DELAY OF "
                      "INTERVAL 1 MINUTE GROUP BY k",
                      {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
            }),
            "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE");
}

TEST_F(StatefulStreamTest, CompleteModeKeepsTheAggregatesInVersionedState) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT, mean DOUBLE)");
  const std::string query =
      "SELECT k, count(*) AS n, avg(v) AS mean FROM STREAM(events) GROUP BY k";
  Insert("10:00:00", "a", 1);
  Insert("10:00:00", "b", 2);
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  // The rows already read live on in the state only: the next batch reads just its own files.
  auto read = Latest("events");
  for (const log::AddFile& file : read->files()) {
    fs_->Delete(io::JoinPath(Location("events"), file.path));
  }
  Insert("10:00:00", "a", 4);
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  EXPECT_THAT(Query("SELECT k, n, mean FROM counts ORDER BY k"), ElementsAre("a,2,2.5", "b,1,2.0"));
  // One state version per batch, after each batch's rows.
  EXPECT_TRUE(CheckpointHas("state/0/0/1.parquet"));
  EXPECT_TRUE(CheckpointHas("state/0/0/2.parquet"));
  EXPECT_THAT(CheckpointFile("state/0/_metadata/metadata"),
              HasSubstr("\"operatorName\":\"stateStoreSave\""));
}

TEST_F(StatefulStreamTest, CompleteModeTakesHavingOrderByAndLimitOverTheState) {
  const std::string query =
      "SELECT k, max(v) - min(v) AS spread, count_if(v > 1) AS big FROM STREAM(events) "
      "GROUP BY k HAVING sum(v) > 2 ORDER BY spread DESC, k LIMIT 2";
  CollectingSink sink;
  Insert("10:00:00", "a", 1);
  Insert("10:00:00", "b", 3);
  Insert("10:00:00", "c", 5);
  Make(query, sink.Make(), {}, TriggerKind::kAvailableNow, OutputMode::kComplete)->Run();
  Insert("10:00:00", "a", 9);
  Insert("10:00:00", "b", 4);
  Make(query, sink.Make(), {}, TriggerKind::kAvailableNow, OutputMode::kComplete)->Run();
  ASSERT_EQ(sink.batches.size(), 2u);
  EXPECT_THAT(sink.batches[0], ElementsAre("b,0,1", "c,0,1"));
  EXPECT_THAT(sink.batches[1], ElementsAre("a,8,1", "b,1,2"));
}

TEST_F(StatefulStreamTest, AggregatesWithoutKeptPartialsAreRecomputedInCompleteModeOnly) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  const std::string query = "SELECT k, count(DISTINCT v) AS n FROM STREAM(events) GROUP BY k";
  Insert("10:00:00", "a", 1);
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  Insert("10:00:00", "a", 1);
  Insert("10:00:00", "a", 2);
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  EXPECT_THAT(Query("SELECT k, n FROM counts"), ElementsAre("a,2"));
  EXPECT_FALSE(CheckpointHas("state"));
  EXPECT_EQ(ErrorOf([&] {
              Make(query, MakeForEachBatchSink([](const BatchContext&) {}), {},
                   TriggerKind::kAvailableNow, OutputMode::kUpdate, "update");
            }),
            "UNSUPPORTED_FEATURE");
}

TEST_F(StatefulStreamTest, UpdateModeHandsOnTheGroupsABatchChanged) {
  const std::string query = "SELECT k, sum(v) AS total FROM STREAM(events) GROUP BY k";
  CollectingSink sink;
  Insert("10:00:00", "a", 1);
  Insert("10:00:00", "b", 2);
  Make(query, sink.Make(), {}, TriggerKind::kAvailableNow, OutputMode::kUpdate)->Run();
  Insert("10:00:00", "a", 4);
  Make(query, sink.Make(), {}, TriggerKind::kAvailableNow, OutputMode::kUpdate)->Run();
  EXPECT_THAT(sink.batches, ElementsAre(ElementsAre("a,1", "b,2"), ElementsAre("a,5")));
}

TEST_F(StatefulStreamTest, AReplayedBatchStartsFromTheStateOfTheBatchBefore) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  const std::string query = "SELECT k, count(*) AS n FROM STREAM(events) GROUP BY k";
  Insert("10:00:00", "a");
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  Insert("10:00:00", "a");
  for (std::string_view step : {kDuringStateWrite, kAfterStateWritten, kAfterSinkCommit}) {
    SCOPED_TRACE(step);
    TestingSetFaultHook([step](std::string_view reached, int64_t batch) {
      if (reached == step && batch == 1) throw std::runtime_error("stopped");
    });
    EXPECT_THROW(RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete),
                 std::runtime_error);
  }
  TestingSetFaultHook(nullptr);
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  EXPECT_THAT(Query("SELECT k, n FROM counts"), ElementsAre("a,2"));
}

TEST_F(StatefulStreamTest, DamagedStateIsStateStoreCorrupt) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  const std::string query = "SELECT k, count(*) AS n FROM STREAM(events) GROUP BY k";
  Insert("10:00:00", "a");
  RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  fs_->WriteFile(io::JoinPath(CheckpointPath("checkpoint"), "state/0/0/1.parquet"), "not state");
  Insert("10:00:00", "a");
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
            }),
            "STATE_STORE_CORRUPT");
  fs_->Delete(io::JoinPath(CheckpointPath("checkpoint"), "state/0/0/1.parquet"));
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
            }),
            "STATE_STORE_CORRUPT");
}

TEST_F(StatefulStreamTest, AnotherStatefulOperatorOnTheCheckpointIsRefused) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT); CREATE TABLE keys (k STRING)");
  Insert("10:00:00", "a");
  RunInto("counts", "SELECT k, count(*) AS n FROM STREAM(events) GROUP BY k", {},
          TriggerKind::kAvailableNow, OutputMode::kComplete);
  EXPECT_EQ(ErrorOf([&] { RunInto("keys", "SELECT DISTINCT k FROM STREAM(events)"); }),
            "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA");
  EXPECT_EQ(ErrorOf([&] { RunInto("keys", "SELECT k FROM STREAM(events)"); }),
            "STREAMING_STATEFUL_OPERATOR_NOT_MATCH_IN_STATE_METADATA");
}

TEST_F(StatefulStreamTest, AnAggregationWhoseStateRowsDifferIsRefused) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  Insert("10:00:00", "a");
  RunInto("counts", "SELECT k, count(*) AS n FROM STREAM(events) GROUP BY k", {},
          TriggerKind::kAvailableNow, OutputMode::kComplete);
  Insert("10:00:01", "a");
  // The same operator, but its state now keeps a string maximum instead of a count.
  EXPECT_EQ(ErrorOf([&] {
              RunInto("counts", "SELECT k, max(k) AS n FROM STREAM(events) GROUP BY k", {},
                      TriggerKind::kAvailableNow, OutputMode::kComplete);
            }),
            "STREAMING_CHECKPOINT_MISMATCH");
}

TEST_F(StatefulStreamTest, TheOperatorsOfAQueryThatRanNoBatchAreForgotten) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT); CREATE TABLE keys (k STRING)");
  Insert("10:00:00", "a");
  DeltaSinkOptions complete;
  complete.output_mode = OutputMode::kComplete;
  // Opened on the checkpoint, never run.
  Make("SELECT k, count(*) AS n FROM STREAM(events) GROUP BY k", SinkInto("counts", complete), {},
       TriggerKind::kAvailableNow, OutputMode::kComplete);
  RunInto("keys", "SELECT k FROM STREAM(events)");
  Insert("10:00:00", "b");
  RunInto("keys", "SELECT k FROM STREAM(events)");
  EXPECT_THAT(Query("SELECT k FROM keys ORDER BY k"), ElementsAre("a", "b"));
}

TEST_F(StatefulStreamTest, OldStateVersionsAreCleanedUp) {
  Sql("CREATE TABLE counts (k STRING, n BIGINT)");
  state_->SetConf("spark.sql.streaming.minBatchesToRetain", "2");
  const std::string query = "SELECT k, count(*) AS n FROM STREAM(events) GROUP BY k";
  for (int i = 0; i < 4; ++i) {
    Insert("10:00:00", "a");
    RunInto("counts", query, {}, TriggerKind::kAvailableNow, OutputMode::kComplete);
  }
  EXPECT_FALSE(CheckpointHas("state/0/0/1.parquet"));
  EXPECT_FALSE(CheckpointHas("state/0/0/2.parquet"));
  EXPECT_TRUE(CheckpointHas("state/0/0/3.parquet"));
  EXPECT_TRUE(CheckpointHas("state/0/0/4.parquet"));
  EXPECT_THAT(Query("SELECT k, n FROM counts"), ElementsAre("a,4"));
}

TEST_F(StatefulStreamTest, DistinctDropsRowsSeenInEarlierBatches) {
  Sql("CREATE TABLE keys (k STRING)");
  const std::string query = "SELECT DISTINCT k FROM STREAM(events)";
  Insert("10:00:00", "a");
  Insert("10:00:00", "a");
  Insert("10:00:00", "b");
  RunInto("keys", query);
  Insert("10:00:00", "a");
  Insert("10:00:00", "c");
  std::vector<QueryProgress> progress = RunInto("keys", query);
  EXPECT_THAT(Query("SELECT k FROM keys ORDER BY k"), ElementsAre("a", "b", "c"));
  ASSERT_EQ(progress.size(), 1u);
  ASSERT_EQ(progress[0].state_operators.size(), 1u);
  EXPECT_EQ(progress[0].state_operators[0].operator_name, "dedupe");
  EXPECT_EQ(progress[0].state_operators[0].num_rows_total, 3);
  EXPECT_EQ(progress[0].state_operators[0].num_rows_updated, 1);
}

TEST_F(StatefulStreamTest, DeduplicationWithAWatermarkForgetsOldKeys) {
  CollectingSink sink;
  auto run = [&](std::optional<Deduplication> deduplication) {
    StreamSpec spec;
    spec.query = sql::ParseStatement(
                     "SELECT ts, k FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES")
                     .query;
    spec.source = OpenStreamSource(*state_, *spec.query, StreamOptions());
    spec.sink = sink.Make();
    spec.checkpoint_location = CheckpointPath("checkpoint");
    spec.trigger.kind = TriggerKind::kAvailableNow;
    spec.deduplication = std::move(deduplication);
    auto execution = std::make_unique<StreamExecution>(*state_, std::move(spec));
    execution->Run();
    return execution->RecentProgress();
  };
  Deduplication by_key_and_time{{"k", "ts"}, false};
  Insert("10:00:00", "a");
  Insert("10:00:00", "a");
  run(by_key_and_time);
  Insert("10:00:00", "a");  // a duplicate, not late yet (watermark 09:50)
  Insert("10:30:00", "b");
  run(by_key_and_time);
  run(by_key_and_time);
  std::vector<std::vector<std::string>> written;
  for (const auto& batch : sink.batches) {
    if (!batch.empty()) written.push_back(batch);
  }
  EXPECT_THAT(written, ElementsAre(ElementsAre("2024-01-01 10:00:00,a"),
                                   ElementsAre("2024-01-01 10:30:00,b")));
  // The watermark (10:20) evicted the key at 10:00: the state holds only b.
  const std::string version = std::to_string(
      *Checkpoint::Open(fs_, CheckpointPath("checkpoint"))->LatestCommittedBatch() + 1);
  EXPECT_THAT(Query("SELECT k FROM parquet.`" + CheckpointPath("checkpoint") + "/state/0/0/" +
                    version + ".parquet` WHERE NOT __expired"),
              ElementsAre("b"));
}

TEST_F(StatefulStreamTest, DeduplicationWithinTheWatermarkKeepsAKeyForTheDelay) {
  CollectingSink sink;
  auto run = [&] {
    StreamSpec spec;
    spec.query = sql::ParseStatement(
                     "SELECT ts, k FROM STREAM(events) WATERMARK ts DELAY OF INTERVAL 10 MINUTES")
                     .query;
    spec.source = OpenStreamSource(*state_, *spec.query, StreamOptions());
    spec.sink = sink.Make();
    spec.checkpoint_location = CheckpointPath("checkpoint");
    spec.trigger.kind = TriggerKind::kAvailableNow;
    spec.deduplication = Deduplication{{"k"}, true};
    StreamExecution(*state_, std::move(spec)).Run();
  };
  Insert("10:00:00", "a");
  run();
  Insert("10:05:00", "a");  // within 10 minutes of the first a: a duplicate
  run();
  Insert("10:30:00", "b");  // the watermark passes 10:00 + 10 minutes: a is forgotten
  run();
  Insert("10:31:00", "a");
  run();
  std::vector<std::string> all;
  for (const auto& batch : sink.batches) all.insert(all.end(), batch.begin(), batch.end());
  EXPECT_THAT(
      all, ElementsAre("2024-01-01 10:00:00,a", "2024-01-01 10:30:00,b", "2024-01-01 10:31:00,a"));
}

TEST_F(StatefulStreamTest, ProgressReportsStateOperatorsAndEventTime) {
  Sql("CREATE TABLE counts (start TIMESTAMP, n BIGINT, total BIGINT)");
  Insert("10:01:00", "a");
  Insert("10:03:00", "a");
  std::vector<QueryProgress> progress = RunInto("counts", kWindowCounts);
  ASSERT_FALSE(progress.empty());
  std::string json = progress[0].ToJson();
  for (std::string field :
       {"\"stateOperators\":[{\"operatorName\":\"stateStoreSave\",\"numRowsTotal\":1,"
        "\"numRowsUpdated\":1,",
        "\"numRowsDroppedByWatermark\":0",
        "\"eventTime\":{\"avg\":\"2024-01-01T10:02:00.000Z\","
        "\"max\":\"2024-01-01T10:03:00.000Z\",\"min\":\"2024-01-01T10:01:00.000Z\","
        "\"watermark\":\"1970-01-01T00:00:00.000Z\"}"}) {
    EXPECT_THAT(json, HasSubstr(field));
  }
}

TEST_F(StatefulStreamTest, WindowGroupsRowsIntoTumblingWindows) {
  Insert("10:01:00", "a");
  Insert("10:09:59", "a");
  Insert("10:10:00", "a");
  EXPECT_THAT(Query("SELECT window(ts, '10 minutes').start, window(ts, '10 minutes').end, "
                    "count(*) FROM events GROUP BY window(ts, '10 minutes') ORDER BY 1"),
              ElementsAre("2024-01-01 10:00:00,2024-01-01 10:10:00,2",
                          "2024-01-01 10:10:00,2024-01-01 10:20:00,1"));
  EXPECT_THAT(Query("SELECT window(ts, '1 hour', '1 hour', '15 minutes').start FROM events "
                    "WHERE k = 'a' ORDER BY 1 LIMIT 1"),
              ElementsAre("2024-01-01 09:15:00"));
  EXPECT_EQ(ErrorClassOf("SELECT window(ts, '10 minutes', '5 minutes') FROM events"),
            "UNSUPPORTED_FEATURE");
  EXPECT_EQ(ErrorClassOf("SELECT window(ts, '1 month') FROM events"), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf("SELECT window(k, '1 minute') FROM events"), "DATATYPE_MISMATCH");
}

}  // namespace
}  // namespace silt::stream
