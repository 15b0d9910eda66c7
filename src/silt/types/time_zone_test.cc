#include "silt/types/time_zone.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/error_class.h"
#include "silt/base/testing_error_class.h"
#include "silt/types/date_time.h"

namespace silt {
namespace {

constexpr int64_t kHour = 3600 * kMicrosPerSecond;
constexpr int64_t kMinute = 60 * kMicrosPerSecond;

// µs since the epoch of a UTC instant or a local wall-clock time.
int64_t At(int64_t year, int month, int day, int hour = 0, int minute = 0, int second = 0) {
  return DaysFromCivil(year, month, day) * kMicrosPerDay + hour * kHour + minute * kMinute + second * kMicrosPerSecond;
}

std::shared_ptr<const TimeZone> Zone(std::string_view id) {
  std::shared_ptr<const TimeZone> zone = TimeZone::Find(id);
  if (!zone) ADD_FAILURE() << "no zone " << id;
  return zone;
}

TEST(TimeZoneTest, FixedOffsetsFollowJavaZoneIdOf) {
  EXPECT_EQ(Zone("UTC")->OffsetAt(0), 0);
  EXPECT_EQ(Zone("Z")->OffsetAt(0), 0);
  EXPECT_EQ(Zone("GMT")->OffsetAt(0), 0);
  EXPECT_EQ(Zone("+02:00")->OffsetAt(At(2024, 7, 1)), 2 * kHour);
  EXPECT_EQ(Zone("-05:30")->OffsetAt(0), -(5 * kHour + 30 * kMinute));
  EXPECT_EQ(Zone("+0530")->OffsetAt(0), 5 * kHour + 30 * kMinute);
  EXPECT_EQ(Zone("+2")->OffsetAt(0), 2 * kHour);
  EXPECT_EQ(Zone("+01:02:03")->OffsetAt(0), kHour + 2 * kMinute + 3 * kMicrosPerSecond);
  EXPECT_EQ(Zone("UTC+01:00")->OffsetAt(0), kHour);
  EXPECT_EQ(Zone("GMT-3")->OffsetAt(0), -3 * kHour);
  EXPECT_EQ(Zone("-18:00")->OffsetAt(0), -18 * kHour);
  // Spark rewrites the pre-3.0 spellings "+h:mm" and "+hh:m".
  EXPECT_EQ(Zone("+2:00")->OffsetAt(0), 2 * kHour);
  EXPECT_EQ(Zone("GMT+8:00")->OffsetAt(0), 8 * kHour);
  EXPECT_EQ(Zone("+08:3")->OffsetAt(0), 8 * kHour + 3 * kMinute);
  EXPECT_EQ(Zone("+02:00")->fixed_offset_seconds(), 7200);
  EXPECT_EQ(Zone("+02:00")->LocalToUtc(At(2024, 1, 1, 2)), At(2024, 1, 1));
}

TEST(TimeZoneTest, RejectsWhatJavaRejects) {
  for (std::string_view id : {"", "+18:01", "+19", "+99:99", "+2:0:0", "UTC+", "GMT+1:", "Foo/Bar", "europe/paris",
                              "America/New_york", "pst", "../etc/passwd", "Europe/../Europe/Paris", "/etc/localtime",
                              "zone.tab", "posix/Europe/Paris", "right/UTC", "localtime", "X", "Europe/Paris "}) {
    EXPECT_EQ(TimeZone::Find(id), nullptr) << id;
  }
}

TEST(TimeZoneTest, ShortIdsResolveAsJavaDoes) {
  EXPECT_EQ(Zone("PST")->id(), "America/Los_Angeles");
  EXPECT_EQ(Zone("PST")->OffsetAt(At(2024, 1, 1)), -8 * kHour);
  EXPECT_EQ(Zone("IST")->OffsetAt(At(2024, 1, 1)), 5 * kHour + 30 * kMinute);
  EXPECT_EQ(Zone("EST")->OffsetAt(At(2024, 7, 1)), -5 * kHour);  // a fixed offset, no DST
  EXPECT_EQ(Zone("ECT")->OffsetAt(At(2024, 7, 1)), 2 * kHour);
}

TEST(TimeZoneTest, NewYorkAroundTheShiftsOf2024) {
  auto zone = Zone("America/New_York");
  EXPECT_EQ(zone->OffsetAt(At(2024, 3, 10, 6, 59, 59)), -5 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 3, 10, 7)), -4 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 11, 3, 5, 59, 59)), -4 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 11, 3, 6)), -5 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(1970, 1, 1)), -5 * kHour);
  EXPECT_EQ(zone->UtcToLocal(At(2024, 7, 1, 16)), At(2024, 7, 1, 12));
  EXPECT_FALSE(zone->fixed_offset_seconds().has_value());
}

TEST(TimeZoneTest, NewYorkGapMovesForwardAndOverlapTakesTheEarlierOffset) {
  auto zone = Zone("America/New_York");
  // 02:30 on 2024-03-10 does not exist; Java reads it as 03:30 EDT.
  EXPECT_EQ(zone->LocalToUtc(At(2024, 3, 10, 2, 30)), At(2024, 3, 10, 7, 30));
  EXPECT_EQ(zone->UtcToLocal(zone->LocalToUtc(At(2024, 3, 10, 2, 30))), At(2024, 3, 10, 3, 30));
  EXPECT_EQ(zone->LocalToUtc(At(2024, 3, 10, 1, 59, 59)), At(2024, 3, 10, 6, 59, 59));
  EXPECT_EQ(zone->LocalToUtc(At(2024, 3, 10, 3)), At(2024, 3, 10, 7));
  // 01:30 on 2024-11-03 happens twice; the first (EDT) wins.
  EXPECT_EQ(zone->LocalToUtc(At(2024, 11, 3, 1, 30)), At(2024, 11, 3, 5, 30));
  EXPECT_EQ(zone->LocalToUtc(At(2024, 11, 3, 2)), At(2024, 11, 3, 7));
  EXPECT_EQ(zone->LocalToUtc(At(2024, 11, 3, 0, 59, 59)), At(2024, 11, 3, 4, 59, 59));
  // Fractions of a second survive.
  EXPECT_EQ(zone->LocalToUtc(At(2024, 7, 1, 12) + 123456), At(2024, 7, 1, 16) + 123456);
}

TEST(TimeZoneTest, Paris) {
  auto zone = Zone("Europe/Paris");
  EXPECT_EQ(zone->OffsetAt(At(2024, 3, 31, 0, 59, 59)), kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 3, 31, 1)), 2 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 10, 27, 0, 59, 59)), 2 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 10, 27, 1)), kHour);
  EXPECT_EQ(zone->LocalToUtc(At(2024, 3, 31, 2, 15)), At(2024, 3, 31, 1, 15));   // gap
  EXPECT_EQ(zone->LocalToUtc(At(2024, 10, 27, 2, 15)), At(2024, 10, 27, 0, 15));  // overlap
}

TEST(TimeZoneTest, LordHoweShiftsByHalfAnHour) {
  auto zone = Zone("Australia/Lord_Howe");
  constexpr int64_t kStandard = 10 * kHour + 30 * kMinute;
  EXPECT_EQ(zone->OffsetAt(At(2024, 10, 5, 15, 29, 59)), kStandard);
  EXPECT_EQ(zone->OffsetAt(At(2024, 10, 5, 15, 30)), 11 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 4, 6, 14, 59, 59)), 11 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 4, 6, 15)), kStandard);
  // 02:00-02:30 on 2024-10-06 is skipped; 01:30-02:00 on 2024-04-07 happens twice.
  EXPECT_EQ(zone->LocalToUtc(At(2024, 10, 6, 2, 15)), At(2024, 10, 5, 15, 45));
  EXPECT_EQ(zone->LocalToUtc(At(2024, 4, 7, 1, 45)), At(2024, 4, 6, 14, 45));
  EXPECT_EQ(zone->LocalToUtc(At(2024, 4, 7, 2)), At(2024, 4, 6, 15, 30));
}

TEST(TimeZoneTest, KolkataHasNoDaylightTimeButAHistory) {
  auto zone = Zone("Asia/Kolkata");
  EXPECT_EQ(zone->OffsetAt(At(2024, 6, 1)), 5 * kHour + 30 * kMinute);
  EXPECT_EQ(zone->OffsetAt(At(1943, 1, 1)), 6 * kHour + 30 * kMinute);  // war time
  EXPECT_EQ(zone->OffsetAt(At(2900, 1, 1)), 5 * kHour + 30 * kMinute);
  EXPECT_EQ(zone->LocalToUtc(At(2024, 6, 1, 5, 30)), At(2024, 6, 1));
}

TEST(TimeZoneTest, FarFutureFollowsThePosixFooter) {
  auto new_york = Zone("America/New_York");
  EXPECT_EQ(new_york->OffsetAt(At(2500, 1, 1)), -5 * kHour);
  EXPECT_EQ(new_york->OffsetAt(At(2500, 7, 1)), -4 * kHour);
  // 2500-03-14 is the second Sunday of March: 02:00 EST is 07:00 UTC.
  EXPECT_EQ(new_york->OffsetAt(At(2500, 3, 14, 6, 59, 59)), -5 * kHour);
  EXPECT_EQ(new_york->OffsetAt(At(2500, 3, 14, 7)), -4 * kHour);
  EXPECT_EQ(new_york->LocalToUtc(At(2500, 3, 14, 2, 30)), At(2500, 3, 14, 7, 30));
  // Beyond the tabulated years the rule is evaluated directly.
  EXPECT_EQ(new_york->OffsetAt(At(9000, 7, 1)), -4 * kHour);
  EXPECT_EQ(new_york->OffsetAt(At(9000, 12, 1)), -5 * kHour);
  EXPECT_EQ(new_york->LocalToUtc(At(9000, 7, 1, 12)), At(9000, 7, 1, 16));
  auto lord_howe = Zone("Australia/Lord_Howe");
  EXPECT_EQ(lord_howe->OffsetAt(At(2500, 1, 1)), 11 * kHour);
  EXPECT_EQ(lord_howe->OffsetAt(At(2500, 7, 1)), 10 * kHour + 30 * kMinute);
}

TEST(TimeZoneTest, ExtremeInstantsClampInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  auto new_york = Zone("America/New_York");
  auto tokyo = Zone("Asia/Tokyo");
  EXPECT_EQ(tokyo->UtcToLocal(kMax), kMax);
  EXPECT_EQ(new_york->UtcToLocal(kMin), kMin);
  EXPECT_EQ(new_york->LocalToUtc(kMax), kMax);
  EXPECT_EQ(tokyo->LocalToUtc(kMin), kMin);
  EXPECT_EQ(Zone("+01:00")->UtcToLocal(kMax), kMax);
  EXPECT_EQ(new_york->OffsetAt(kMin), new_york->OffsetAt(At(1800, 1, 1)));  // local mean time
}

// A version 2 file without transitions: everything comes from the footer.
std::string RuleOnlyTzif(std::string_view footer) {
  auto u32 = [](uint32_t value) {
    std::string bytes;
    for (int shift = 24; shift >= 0; shift -= 8) bytes += static_cast<char>((value >> shift) & 0xff);
    return bytes;
  };
  std::string header = std::string("TZif2") + std::string(15, '\0') + u32(0) + u32(0) + u32(0) + u32(0) + u32(1) + u32(4);
  std::string data = u32(static_cast<uint32_t>(-5 * 3600)) + std::string("\0\0", 2) + std::string("EST\0", 4);
  return header + data + header + data + "\n" + std::string(footer) + "\n";
}

TEST(TimeZoneTest, ReadsARuleOnlyFile) {
  auto zone = TimeZone::FromTzif("Test/Eastern", RuleOnlyTzif("EST5EDT,M3.2.0,M11.1.0"));
  EXPECT_EQ(zone->id(), "Test/Eastern");
  EXPECT_EQ(zone->OffsetAt(At(2024, 3, 10, 6, 59, 59)), -5 * kHour);
  EXPECT_EQ(zone->OffsetAt(At(2024, 3, 10, 7)), -4 * kHour);
  EXPECT_EQ(zone->LocalToUtc(At(2024, 11, 3, 1, 30)), At(2024, 11, 3, 5, 30));
  auto fixed = TimeZone::FromTzif("Test/India", RuleOnlyTzif("IST-5:30"));
  EXPECT_EQ(fixed->OffsetAt(At(2024, 1, 1)), 5 * kHour + 30 * kMinute);
}

TEST(TimeZoneTest, ParsesPosixRules) {
  auto rule = TimeZone::ParsePosixRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0");
  ASSERT_TRUE(rule.has_value());
  EXPECT_EQ(rule->standard_offset, 10 * 3600 + 1800);
  EXPECT_EQ(rule->daylight_offset, 11 * 3600);
  EXPECT_EQ(rule->start.month, 10);
  EXPECT_EQ(rule->end.month, 4);
  auto paris = TimeZone::ParsePosixRule("CET-1CEST,M3.5.0,M10.5.0/3");
  ASSERT_TRUE(paris.has_value());
  EXPECT_EQ(paris->end.time_seconds, 3 * 3600);
  auto julian = TimeZone::ParsePosixRule("XXX3YYY,J60/-1,300/167");
  ASSERT_TRUE(julian.has_value());
  EXPECT_EQ(julian->start.time_seconds, -3600);
  EXPECT_EQ(julian->end.time_seconds, 167 * 3600);
  for (std::string_view bad : {"", "E5", "EST", "EST5EDT,M13.1.0,M11.1.0", "EST5EDT,M3.2.0", "EST5EDT,M3.2.7,M11.1.0",
                               "<+1030-10:30", "EST5EDT,J0,J365", "EST5EDT,M3.2.0,M11.1.0x"}) {
    EXPECT_FALSE(TimeZone::ParsePosixRule(bad).has_value()) << bad;
  }
  auto standard_only = TimeZone::ParsePosixRule("EST5");
  ASSERT_TRUE(standard_only.has_value());
  EXPECT_FALSE(standard_only->has_daylight);
  EXPECT_EQ(standard_only->standard_offset, -5 * 3600);
}

TEST(TimeZoneTest, MalformedFilesRaiseInvalidArgument) {
  std::string good = RuleOnlyTzif("EST5EDT,M3.2.0,M11.1.0");
  EXPECT_EQ(ErrorClassOf([&] { TimeZone::FromTzif("Bad", "TZjf"); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { TimeZone::FromTzif("Bad", good.substr(0, 60)); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { TimeZone::FromTzif("Bad", good.substr(0, good.size() - 1)); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { TimeZone::FromTzif("Bad", RuleOnlyTzif("EST5EDT,M3")); }), "INVALID_ARGUMENT");
  // Every truncation of a real file fails cleanly.
  std::string bytes = RuleOnlyTzif("CET-1CEST,M3.5.0,M10.5.0/3");
  for (size_t length = 0; length < bytes.size(); ++length) {
    EXPECT_EQ(ErrorClassOf([&] { TimeZone::FromTzif("Bad", bytes.substr(0, length)); }), "INVALID_ARGUMENT") << length;
  }
}

TEST(TimeZoneTest, ReadsRegionsFromTheTzdirFolder) {
  std::filesystem::path folder = std::filesystem::temp_directory_path() / ("silt_tzdir_" + std::to_string(getpid()));
  std::filesystem::create_directories(folder / "Test");
  {
    std::ofstream file(folder / "Test" / "Eastern", std::ios::binary);
    file << RuleOnlyTzif("EST5EDT,M3.2.0,M11.1.0");
    std::ofstream broken(folder / "Test" / "Broken", std::ios::binary);
    broken << RuleOnlyTzif("EST5EDT,M3.2.0,M11.1.0").substr(0, 70);
  }
  const char* saved = std::getenv("TZDIR");
  std::string previous = saved != nullptr ? saved : "";
  setenv("TZDIR", folder.c_str(), 1);
  auto zone = TimeZone::Find("Test/Eastern");
  EXPECT_EQ(ErrorClassOf([] { TimeZone::Find("Test/Broken"); }), "INVALID_ARGUMENT");
  EXPECT_EQ(TimeZone::Find("Test/Missing"), nullptr);
  EXPECT_EQ(TimeZone::Find("Test"), nullptr);  // a folder
  if (saved != nullptr) setenv("TZDIR", previous.c_str(), 1); else unsetenv("TZDIR");
  std::filesystem::remove_all(folder);
  ASSERT_NE(zone, nullptr);
  EXPECT_EQ(zone->OffsetAt(At(2024, 7, 1)), -4 * kHour);
}

TEST(TimeZoneTest, SystemDefaultComesFromTheTzVariable) {
  const char* saved = std::getenv("TZ");
  std::string previous = saved != nullptr ? saved : "";
  setenv("TZ", ":Asia/Tokyo", 1);
  EXPECT_EQ(TimeZone::SystemDefaultId(), "Asia/Tokyo");
  setenv("TZ", "Not/AZone", 1);
  EXPECT_NE(TimeZone::SystemDefaultId(), "Not/AZone");
  if (saved != nullptr) setenv("TZ", previous.c_str(), 1); else unsetenv("TZ");
}

TEST(TimeZoneTest, CachesRegionsAcrossThreads) {
  std::vector<std::shared_ptr<const TimeZone>> found(4);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < found.size(); ++i) {
    threads.emplace_back([&found, i] { found[i] = TimeZone::Find("Europe/Berlin"); });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_NE(found[0], nullptr);
  for (const auto& zone : found) EXPECT_EQ(zone.get(), found[0].get());
}

}  // namespace
}  // namespace silt
