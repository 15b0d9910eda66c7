#include "silt/streaming.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/session.h"

namespace silt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Rows(const Result& result) {
  std::vector<std::string> lines;
  for (const Row& row : result) {
    std::string line;
    for (size_t column = 0; column < row.size(); ++column) {
      if (column > 0) line += ',';
      line += row.IsNull(column) ? "" : row.ToString(column);
    }
    lines.push_back(line);
  }
  return lines;
}

class StreamingApiTest : public ::testing::Test {
 protected:
  StreamingApiTest() : session_(SessionOptions{io::JoinPath(folder_.path(), "warehouse"), {}}) {
    session_.Execute("CREATE TABLE events (id BIGINT, kind STRING)");
    session_.Execute("INSERT INTO events VALUES (1, 'click'), (2, 'view')");
  }

  std::string Checkpoint(const std::string& name) const { return io::JoinPath(folder_.path(), name); }

  std::string ErrorOf(const std::function<void()>& body) {
    try {
      body();
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  io::TestingTemporaryFolder folder_;
  Session session_;
};

TEST_F(StreamingApiTest, AvailableNowCopiesATableAndASecondRunOnlyNewRows) {
  auto run = [&] {
    StreamingQuery query = session_.ReadStream()
                               .Format("delta")
                               .Table("events")
                               .Where("kind = 'click'")
                               .SelectExpr({"id", "upper(kind) AS kind"})
                               .WriteStream()
                               .Option("checkpointLocation", Checkpoint("silver"))
                               .Trigger(Trigger::AvailableNow())
                               .ToTable("silver");
    query.AwaitTermination();
    return query;
  };
  StreamingQuery first = run();
  EXPECT_THAT(Rows(session_.Execute("SELECT id, kind FROM silver ORDER BY id")),
              ElementsAre("1,CLICK"));
  session_.Execute("INSERT INTO events VALUES (3, 'click')");
  StreamingQuery second = run();
  EXPECT_THAT(Rows(session_.Execute("SELECT id, kind FROM silver ORDER BY id")),
              ElementsAre("1,CLICK", "3,CLICK"));
  EXPECT_EQ(first.id(), second.id());
  EXPECT_FALSE(second.IsActive());
  std::optional<StreamingQueryProgress> last = second.LastProgress();
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->batch_id, 1);
  EXPECT_EQ(last->num_input_rows, 1);
  EXPECT_EQ(last->sink_num_output_rows, 1);
  EXPECT_THAT(last->json, HasSubstr("\"batchId\":1"));
  EXPECT_EQ(second.Status().message, "Stopped");
}

TEST_F(StreamingApiTest, StartWritesAPathTableItCreatesWithPartitions) {
  std::string path = io::JoinPath(folder_.path(), "copy");
  StreamingQuery query = session_.ReadStream()
                             .Option("maxFilesPerTrigger", "1")
                             .Load(io::JoinPath(session_.warehouse(), "events"))
                             .WriteStream()
                             .PartitionBy({"kind"})
                             .Option("checkpointLocation", Checkpoint("copy"))
                             .Trigger(Trigger::AvailableNow())
                             .Start(path);
  query.AwaitTermination();
  EXPECT_THAT(Rows(session_.Execute("SELECT id, kind FROM delta.`" + path + "` ORDER BY id")),
              ElementsAre("1,click", "2,view"));
  EXPECT_THAT(Rows(session_.Execute("DESCRIBE DETAIL delta.`" + path + "`")).at(0),
              HasSubstr("[kind]"));
}

TEST_F(StreamingApiTest, ForEachBatchGetsADataFrameOfEachBatch) {
  session_.Execute("CREATE TABLE counts (kind STRING, n BIGINT)");
  std::vector<int64_t> ids;
  StreamingQuery query =
      session_.ReadStream()
          .Table("events")
          .WriteStream()
          .Option("checkpointLocation", Checkpoint("counts"))
          .Trigger(Trigger::AvailableNow())
          .ForEachBatch([&](const DataFrame& batch, int64_t batch_id) {
            ids.push_back(batch_id);
            EXPECT_EQ(batch.Count(), 2);
            batch.CreateOrReplaceTempView("updates");
            Session& session = batch.session();
            session.SetConf("spark.databricks.delta.write.txnAppId", "counts");
            session.SetConf("spark.databricks.delta.write.txnVersion", std::to_string(batch_id));
            session.Execute(
                "MERGE INTO counts c USING (SELECT kind, count(*) AS n FROM updates GROUP BY kind) u "
                "ON c.kind = u.kind WHEN MATCHED THEN UPDATE SET n = c.n + u.n "
                "WHEN NOT MATCHED THEN INSERT *");
          })
          .Start();
  query.AwaitTermination();
  EXPECT_THAT(ids, ElementsAre(0));
  EXPECT_THAT(Rows(session_.Execute("SELECT kind, n FROM counts ORDER BY kind")),
              ElementsAre("click,1", "view,1"));
}

TEST_F(StreamingApiTest, AFailureEndsTheQueryWithItsErrorClass) {
  StreamingQuery query = session_.ReadStream()
                             .Table("events")
                             .WriteStream()
                             .Option("checkpointLocation", Checkpoint("fails"))
                             .Trigger(Trigger::ProcessingTime(10))
                             .ToTable("copy");
  for (int i = 0; i < 500 && !query.LastProgress(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  Session other(SessionOptions{session_.warehouse(), {}});
  other.Execute("DELETE FROM events");  // removes the whole file
  EXPECT_EQ(ErrorOf([&] { query.AwaitTermination(); }), "DELTA_SOURCE_IGNORE_DELETE");
  EXPECT_FALSE(query.IsActive());
  // Restarted with skipChangeCommits it goes on.
  other.Execute("INSERT INTO events VALUES (4, 'view')");
  StreamingQuery again = session_.ReadStream()
                             .Option("skipChangeCommits", "true")
                             .Table("events")
                             .WriteStream()
                             .Option("checkpointLocation", Checkpoint("fails"))
                             .Trigger(Trigger::AvailableNow())
                             .ToTable("copy");
  again.AwaitTermination();
  EXPECT_THAT(Rows(session_.Execute("SELECT id FROM copy ORDER BY id")), ElementsAre("1", "2", "4"));
}

TEST_F(StreamingApiTest, StopEndsAProcessingTimeQuery) {
  StreamingQuery query = session_.ReadStream()
                             .Table("events")
                             .WriteStream()
                             .Option("checkpointLocation", Checkpoint("stop"))
                             .Trigger(Trigger::ProcessingTime(0))
                             .QueryName("copier")
                             .ToTable("copy");
  EXPECT_EQ(query.name(), "copier");
  EXPECT_FALSE(query.AwaitTermination(50));
  EXPECT_TRUE(query.IsActive());
  query.Stop();
  EXPECT_FALSE(query.IsActive());
  EXPECT_THAT(Rows(session_.Execute("SELECT count(*) FROM copy")), ElementsAre("2"));
}

TEST_F(StreamingApiTest, MisuseIsReported) {
  EXPECT_EQ(ErrorOf([&] {
              session_.ReadStream().Table("events").WriteStream().ToTable("copy");
            }),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(ErrorOf([&] { session_.ReadStream().Format("kafka").Table("events"); }),
            "NOT_IMPLEMENTED");
  EXPECT_EQ(ErrorOf([&] { session_.ReadStream().Table("events").WriteStream().OutputMode("all"); }),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(ErrorOf([&] { session_.ReadStream().Table("missing").WriteStream()
                              .Option("checkpointLocation", Checkpoint("x")).ToTable("copy"); }),
            "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorOf([&] {
              session_.ReadStream()
                  .Table("events")
                  .Sql("SELECT kind, count(*) FROM events GROUP BY kind", "events")
                  .WriteStream()
                  .Option("checkpointLocation", Checkpoint("agg"))
                  .ToTable("agg");
            }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
}

TEST_F(StreamingApiTest, SqlOverTheStreamCanJoinAStaticTable) {
  session_.Execute("CREATE TABLE kinds (kind STRING, label STRING)");
  session_.Execute("INSERT INTO kinds VALUES ('click', 'Click'), ('view', 'View')");
  StreamingQuery query =
      session_.ReadStream()
          .Table("events")
          .Sql("WITH k AS (SELECT * FROM kinds) SELECT e.id, k.label FROM e JOIN k USING (kind)", "e")
          .WriteStream()
          .Option("checkpointLocation", Checkpoint("labels"))
          .Trigger(Trigger::Once())
          .ToTable("labelled");
  query.AwaitTermination();
  EXPECT_THAT(Rows(session_.Execute("SELECT id, label FROM labelled ORDER BY id")),
              ElementsAre("1,Click", "2,View"));
}

}  // namespace
}  // namespace silt

namespace silt {
namespace {

TEST_F(StreamingApiTest, CompleteModeKeepsAnAggregateOfEverythingStreamed) {
  auto run = [&] {
    session_.ReadStream()
        .Table("events")
        .Sql("SELECT kind, count(*) AS n FROM e GROUP BY kind", "e")
        .WriteStream()
        .OutputMode("complete")
        .Option("checkpointLocation", Checkpoint("totals"))
        .Trigger(Trigger::AvailableNow())
        .ToTable("totals")
        .AwaitTermination();
  };
  run();
  session_.Execute("INSERT INTO events VALUES (3, 'click')");
  run();
  EXPECT_THAT(Rows(session_.Execute("SELECT kind, n FROM totals ORDER BY kind")),
              ElementsAre("click,2", "view,1"));
}

TEST_F(StreamingApiTest, FoldersOfFilesAndRateSourcesAreReadAsStreams) {
  std::string inbox = io::JoinPath(folder_.path(), "inbox");
  std::shared_ptr<io::FileSystem> fs = io::MakeLocalFileSystem();
  fs->WriteFile(io::JoinPath(inbox, "a.json"), "{\"id\":5,\"kind\":\"drop\"}\n");
  auto land = [&] {
    StreamingQuery query = session_.ReadStream()
                               .Format("json")
                               .Schema("id BIGINT, kind STRING")
                               .Load(inbox)
                               .WriteStream()
                               .Option("checkpointLocation", Checkpoint("landed"))
                               .Trigger(Trigger::AvailableNow())
                               .ToTable("landed");
    query.AwaitTermination();
  };
  land();
  fs->WriteFile(io::JoinPath(inbox, "b.json"), "{\"id\":6,\"kind\":\"pick\"}\n");
  land();
  EXPECT_THAT(Rows(session_.Execute("SELECT id, kind FROM landed ORDER BY id")),
              ElementsAre("5,drop", "6,pick"));

  StreamingQuery ticks = session_.ReadStream()
                             .Format("rate-micro-batch")
                             .Option("rowsPerBatch", "3")
                             .Load()
                             .SelectExpr({"value"})
                             .WriteStream()
                             .Option("checkpointLocation", Checkpoint("ticks"))
                             .Trigger(Trigger::AvailableNow())
                             .ToTable("ticks");
  ticks.AwaitTermination();
  EXPECT_THAT(Rows(session_.Execute("SELECT value FROM ticks ORDER BY value")),
              ElementsAre("0", "1", "2"));
  EXPECT_EQ(ErrorOf([&] { session_.ReadStream().Format("json").Table("events"); }),
            "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorOf([&] { session_.ReadStream().Format("rate").Load("/somewhere"); }),
            "INVALID_ARGUMENT");
}

}  // namespace
}  // namespace silt

namespace silt {
namespace {

TEST_F(StreamingApiTest, DropDuplicatesWithinWatermarkWritesEachKeyOnceWhileItIsKept) {
  session_.Execute("CREATE TABLE visits (ts TIMESTAMP, visitor STRING)");
  session_.Execute(
      "INSERT INTO visits VALUES (TIMESTAMP '2024-01-01 10:00:00', 'ann'), "
      "(TIMESTAMP '2024-01-01 10:01:00', 'ann'), (TIMESTAMP '2024-01-01 10:02:00', 'bob')");
  auto run = [&] {
    session_.ReadStream()
        .Table("visits")
        .WithWatermark("ts", "1 hour")
        .DropDuplicatesWithinWatermark({"visitor"})
        .WriteStream()
        .Option("checkpointLocation", Checkpoint("visitors"))
        .Trigger(Trigger::AvailableNow())
        .ToTable("visitors")
        .AwaitTermination();
  };
  run();
  session_.Execute(
      "INSERT INTO visits VALUES (TIMESTAMP '2024-01-01 10:30:00', 'ann'), "
      "(TIMESTAMP '2024-01-01 10:31:00', 'cy')");
  run();
  EXPECT_THAT(Rows(session_.Execute("SELECT visitor, ts FROM visitors ORDER BY visitor")),
              ElementsAre("ann,2024-01-01 10:00:00", "bob,2024-01-01 10:02:00",
                          "cy,2024-01-01 10:31:00"));
}

TEST_F(StreamingApiTest, StatefulOperatorsAreCheckedWhenTheQueryStarts) {
  auto start = [&](const StreamingDataFrame& frame, const std::string& mode = "append") {
    frame.WriteStream()
        .OutputMode(mode)
        .Option("checkpointLocation", Checkpoint("checked"))
        .Trigger(Trigger::AvailableNow())
        .ForEachBatch([](const DataFrame&, int64_t) {})
        .Start()
        .AwaitTermination();
  };
  DataStreamReader reader = session_.ReadStream();
  EXPECT_EQ(ErrorOf([&] { start(reader.Table("events").WithWatermark("kind", "1 minute")); }),
            "EVENT_TIME_IS_NOT_ON_TIMESTAMP_TYPE");
  EXPECT_EQ(ErrorOf([&] { reader.Table("events").WithWatermark("kind", "1 month"); }),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(ErrorOf([&] { start(reader.Table("events").DropDuplicatesWithinWatermark({"kind"})); }),
            "UNSUPPORTED_FEATURE");
  EXPECT_EQ(ErrorOf([&] { start(reader.Table("events").DropDuplicates({"nope"})); }),
            "UNRESOLVED_COLUMN");
  EXPECT_EQ(ErrorOf([&] { reader.Table("events").DropDuplicates().Where("id > 1"); }),
            "UNSUPPORTED_FEATURE");
  EXPECT_EQ(ErrorOf([&] { start(reader.Table("events").DropDuplicates(), "complete"); }),
            "STREAMING_OUTPUT_MODE_UNSUPPORTED");
}

TEST_F(StreamingApiTest, UpdateModeProgressReportsTheStateOperator) {
  std::vector<int64_t> sizes;
  StreamingQuery query =
      session_.ReadStream()
          .Table("events")
          .Sql("SELECT kind, count(*) AS n FROM e GROUP BY kind", "e")
          .WriteStream()
          .OutputMode("update")
          .Option("checkpointLocation", Checkpoint("kinds"))
          .Trigger(Trigger::AvailableNow())
          .ForEachBatch([&](const DataFrame& batch, int64_t) { sizes.push_back(batch.Count()); })
          .Start();
  query.AwaitTermination();
  EXPECT_THAT(sizes, ElementsAre(2));
  std::optional<StreamingQueryProgress> progress = query.LastProgress();
  ASSERT_TRUE(progress.has_value());
  ASSERT_EQ(progress->state_operators.size(), 1u);
  EXPECT_EQ(progress->state_operators[0].operator_name, "stateStoreSave");
  EXPECT_EQ(progress->state_operators[0].num_rows_total, 2);
  EXPECT_THAT(progress->json, HasSubstr("\"stateOperators\":[{\"operatorName\":\"stateStoreSave\""));
}

}  // namespace
}  // namespace silt
