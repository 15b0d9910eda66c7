#include "silt/vector/local_time.h"

#include <gtest/gtest.h>

#include "silt/vector/vector.h"

namespace silt {
namespace {

// 2024-07-01 12:00:00 UTC and 2024-01-15 12:00:00 UTC.
constexpr int64_t kSummerNoon = 1719835200LL * 1000000;
constexpr int64_t kWinterNoon = 1705320000LL * 1000000;

Batch TimestampBatch() {
  VectorBuilder times(TimestampType());
  times.AppendInt(kSummerNoon);
  times.AppendNull();
  times.AppendInt(kWinterNoon);
  DataTypePtr event = StructType({Field{"at", TimestampType(), true, {}}, Field{"n", LongType(), true, {}}});
  VectorBuilder events(event);
  for (int64_t row = 0; row < 3; ++row) {
    events.child(0).AppendInt(kWinterNoon);
    events.child(1).AppendInt(row);
    events.AppendStruct();
  }
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{Field{"t", TimestampType(), true, {}}, Field{"e", event, true, {}}});
  return Batch(schema, {times.Finish(), events.Finish()}, 3);
}

TEST(LocalTimeTest, ShowsTimestampsInTheZoneAtEachInstant) {
  std::shared_ptr<const TimeZone> new_york = TimeZone::Find("America/New_York");
  ASSERT_TRUE(new_york);
  Batch original = TimestampBatch();
  std::vector<Batch> local = TimestampsAsLocalTime({original}, *new_york);
  ASSERT_EQ(local.size(), 1u);
  // Daylight saving time in July (UTC-4), standard time in January (UTC-5).
  EXPECT_EQ(local[0].column(0)->ValueToString(0), "2024-07-01 08:00:00");
  EXPECT_TRUE(local[0].column(0)->IsNull(1));
  EXPECT_EQ(local[0].column(0)->ValueToString(2), "2024-01-15 07:00:00");
  EXPECT_EQ(local[0].column(1)->ValueToString(1), "{2024-01-15 07:00:00, 1}");
  // The input is untouched.
  EXPECT_EQ(original.column(0)->ValueToString(0), "2024-07-01 12:00:00");
}

TEST(LocalTimeTest, UtcAndTimestampFreeBatchesAreShared) {
  Batch original = TimestampBatch();
  std::vector<Batch> same = TimestampsAsLocalTime({original}, *TimeZone::Utc());
  EXPECT_EQ(same[0].column(0).get(), original.column(0).get());
  std::vector<Batch> shifted = TimestampsAsLocalTime({original}, *TimeZone::Fixed("+02:00", 7200));
  EXPECT_EQ(shifted[0].column(0)->ValueToString(0), "2024-07-01 14:00:00");
  // A slice keeps its offset: only its own rows are converted.
  std::vector<Batch> slice = TimestampsAsLocalTime({original.Slice(2, 1)}, *TimeZone::Fixed("+02:00", 7200));
  EXPECT_EQ(slice[0].column(0)->ValueToString(0), "2024-01-15 14:00:00");
}

}  // namespace
}  // namespace silt
