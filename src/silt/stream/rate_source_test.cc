#include "silt/stream/rate_source.h"

#include <gmock/gmock.h>

#include "silt/base/clock.h"
#include "silt/stream/stream_testing.h"

namespace silt::stream {
namespace {

using ::testing::ElementsAre;

class RateSourceTest : public StreamTest {
 protected:
  // The rows of each batch as "value@timestamp_ms", in the order the source made them.
  std::vector<std::vector<std::string>> Batches(const std::string& query,
                                                const std::map<std::string, std::string>& options,
                                                TriggerKind trigger, int runs = 1) {
    std::vector<std::vector<std::string>> batches;
    for (int run = 0; run < runs; ++run) {
      auto execution =
          Make(query, MakeForEachBatchSink([&](const BatchContext& batch) {
                 SchemaPtr schema;
                 std::vector<std::string> rows;
                 for (const Batch& part : batch.Run(&schema)) {
                   for (int64_t r = 0; r < part.num_rows(); ++r) {
                     rows.push_back(std::to_string(part.column(1)->values<int64_t>()[r]) + "@" +
                                    std::to_string(part.column(0)->values<int64_t>()[r] / 1000));
                   }
                 }
                 batches.push_back(rows);
               }),
               options, trigger);
      execution->Run();
      last_progress_ = execution->RecentProgress();
    }
    return batches;
  }

  std::vector<QueryProgress> last_progress_;
};

TEST_F(RateSourceTest, MicroBatchRowsAreTheSameEveryRun) {
  const std::string query =
      "SELECT timestamp, value FROM STREAM rate_micro_batch(rowsPerBatch => 3, numPartitions => 2, "
      "startTimestamp => 1000, advanceMillisPerBatch => 500)";
  // Each batch holds rowsPerBatch values, partition by partition, stamped with its timestamp.
  EXPECT_THAT(Batches(query, {}, TriggerKind::kOnce, 2),
              ElementsAre(ElementsAre("0@1000", "2@1000", "1@1000"),
                          ElementsAre("3@1500", "5@1500", "4@1500")));
  EXPECT_EQ(last_progress_.at(0).sources[0].end_offset, "{\"offset\":6,\"timestamp\":2000}");
  // Available-now: one more batch, then the query ends.
  EXPECT_THAT(Batches(query, {}, TriggerKind::kAvailableNow),
              ElementsAre(ElementsAre("6@2000", "8@2000", "7@2000")));
}

TEST_F(RateSourceTest, RateCountsRowsPerSecondSinceTheFirstStart) {
  // A query that first started three seconds ago (its start time is kept in sources/0/0).
  int64_t start = SystemNowMs() - 3000;
  fs_->WriteFile(io::JoinPath(CheckpointPath("checkpoint"), "sources/0/0"),
                 "v1\n" + std::to_string(start));
  auto batches = Batches("SELECT timestamp, value FROM STREAM rate(rowsPerSecond => 4)", {},
                         TriggerKind::kAvailableNow);
  ASSERT_EQ(batches.size(), 1u);
  const std::vector<std::string>& rows = batches[0];
  ASSERT_GE(rows.size(), 12u);
  EXPECT_EQ(rows.size() % 4, 0u);
  // Value v is stamped start + v / rowsPerSecond seconds.
  EXPECT_EQ(rows[0], "0@" + std::to_string(start));
  EXPECT_EQ(rows[5], "5@" + std::to_string(start + 1250));
  EXPECT_EQ(last_progress_.at(0).sources[0].end_offset, std::to_string(rows.size() / 4));
}

TEST_F(RateSourceTest, RampUpGrowsTheSpeedAsSparksDoes) {
  std::vector<int64_t> values;
  for (int64_t second = 0; second <= 6; ++second) {
    values.push_back(RateSource::ValueAtSecond(second, 10, 4));
  }
  EXPECT_THAT(values, ElementsAre(0, 2, 6, 12, 20, 30, 40));
  EXPECT_EQ(RateSource::ValueAtSecond(7, 10, 0), 70);
}

TEST_F(RateSourceTest, BadOptionsAreRefused) {
  auto error = [&](const std::string& query) {
    return ErrorOf([&] { Batches(query, {}, TriggerKind::kOnce); });
  };
  EXPECT_EQ(error("SELECT * FROM STREAM rate(rowsPerSecond => 0)"), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(error("SELECT * FROM STREAM rate(rampUpTime => 'soon')"), "INVALID_STREAMING_OPTION");
  EXPECT_EQ(error("SELECT * FROM STREAM rate_micro_batch(numPartitions => 2)"),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(error("SELECT * FROM STREAM rate_micro_batch(rowsPerBatch => 1, startTimestamp => -5)"),
            "INVALID_STREAMING_OPTION");
  EXPECT_EQ(error("SELECT * FROM STREAM rate('x')"), "WRONG_NUM_ARGS");
  EXPECT_EQ(error("SELECT * FROM STREAM kafka(topic => 't')"), "UNSUPPORTED_FEATURE");
}

}  // namespace
}  // namespace silt::stream
