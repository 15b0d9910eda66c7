#include "silt/types/date_time.h"

#include <gtest/gtest.h>

namespace silt {
namespace {

TEST(DateTimeTest, CivilFromDays) {
  EXPECT_EQ(CivilFromDays(0), (CivilDate{1970, 1, 1}));
  EXPECT_EQ(CivilFromDays(-1), (CivilDate{1969, 12, 31}));
  EXPECT_EQ(CivilFromDays(59), (CivilDate{1970, 3, 1}));
  EXPECT_EQ(CivilFromDays(11016), (CivilDate{2000, 2, 29}));
  EXPECT_EQ(CivilFromDays(19753), (CivilDate{2024, 1, 31}));
  EXPECT_EQ(CivilFromDays(-719162), (CivilDate{1, 1, 1}));
  EXPECT_EQ(CivilFromDays(-719163), (CivilDate{0, 12, 31}));
  EXPECT_EQ(CivilFromDays(-25508), (CivilDate{1900, 3, 1}));  // 1900 is not a leap year
  EXPECT_EQ(CivilFromDays(-25509), (CivilDate{1900, 2, 28}));
}

TEST(DateTimeTest, RoundTripsEveryDayOverCenturies) {
  for (int64_t days = -800000; days <= 800000; days += 7) {
    CivilDate date = CivilFromDays(days);
    ASSERT_TRUE(IsValidCivilDate(date.year, date.month, date.day)) << days;
    ASSERT_EQ(DaysFromCivil(date.year, date.month, date.day), days);
  }
}

TEST(DateTimeTest, Validation) {
  EXPECT_TRUE(IsValidCivilDate(2024, 2, 29));
  EXPECT_FALSE(IsValidCivilDate(2023, 2, 29));
  EXPECT_TRUE(IsValidCivilDate(2000, 2, 29));
  EXPECT_FALSE(IsValidCivilDate(1900, 2, 29));
  EXPECT_FALSE(IsValidCivilDate(2024, 4, 31));
  EXPECT_FALSE(IsValidCivilDate(2024, 13, 1));
  EXPECT_FALSE(IsValidCivilDate(2024, 1, 0));
}

TEST(DateTimeTest, FormatDate) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(11016), "2000-02-29");
  EXPECT_EQ(FormatDate(-719162), "0001-01-01");
  EXPECT_EQ(FormatDate(DaysFromCivil(-44, 3, 15)), "-0044-03-15");
  EXPECT_EQ(FormatDate(DaysFromCivil(12345, 6, 7)), "+12345-06-07");
  EXPECT_EQ(FormatDate(DaysFromCivil(9999, 12, 31)), "9999-12-31");
}

TEST(DateTimeTest, FormatTimestamp) {
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01 00:00:00");
  EXPECT_EQ(FormatTimestamp(1), "1970-01-01 00:00:00.000001");
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31 23:59:59.999999");
  EXPECT_EQ(FormatTimestamp(-kMicrosPerDay), "1969-12-31 00:00:00");
  EXPECT_EQ(FormatTimestamp(1706702400123000), "2024-01-31 12:00:00.123");
  EXPECT_EQ(FormatTimestamp(951825599100000), "2000-02-29 11:59:59.1");
  EXPECT_EQ(FormatTimestamp(-2208988800000000), "1900-01-01 00:00:00");
}

TEST(DateTimeTest, ParseDate) {
  EXPECT_EQ(ParseDate("1970-01-01"), 0);
  EXPECT_EQ(ParseDate("2024-01-31"), 19753);
  EXPECT_EQ(ParseDate("1969-12-31"), -1);
  EXPECT_EQ(ParseDate(" 2024-1-5 "), DaysFromCivil(2024, 1, 5));
  EXPECT_EQ(ParseDate("2024-02-30"), std::nullopt);
  EXPECT_EQ(ParseDate("2024-02"), std::nullopt);
  EXPECT_EQ(ParseDate("24-02-01"), std::nullopt);
  EXPECT_EQ(ParseDate("2024-02-01x"), std::nullopt);
  EXPECT_EQ(ParseDate(""), std::nullopt);
}

TEST(DateTimeTest, ParseTimestamp) {
  EXPECT_EQ(ParseTimestamp("1970-01-01"), 0);
  EXPECT_EQ(ParseTimestamp("1970-01-01 00:00:01"), kMicrosPerSecond);
  EXPECT_EQ(ParseTimestamp("2024-01-31 12:00:00"), 1706702400000000);
  EXPECT_EQ(ParseTimestamp("2024-01-31T12:00:00.5"), 1706702400500000);
  EXPECT_EQ(ParseTimestamp("2024-01-31 12:00:00.123456789"), 1706702400123456);
  EXPECT_EQ(ParseTimestamp("2024-01-31 12:00"), 1706702400000000);
  EXPECT_EQ(ParseTimestamp("1969-12-31 23:59:59.999999"), -1);
  EXPECT_EQ(ParseTimestamp("2024-01-31 24:00:00"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("2024-01-31 12:60:00"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("2024-01-31 12:00:00."), std::nullopt);
  EXPECT_EQ(ParseTimestamp("2024-01-31 12"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("2024-01-01T10:00:00.000000Z"), ParseTimestamp("2024-01-01 10:00:00"));
  EXPECT_EQ(ParseTimestamp(" 2024-01-01 "), ParseTimestamp("2024-01-01"));
  EXPECT_EQ(ParseTimestamp("2024-01-01Z"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("999999-01-01"), std::nullopt);
  EXPECT_EQ(ParseTimestamp("-999999-01-01 00:00:00"), std::nullopt);
  EXPECT_EQ(ParseDate("+12345-06-07"), DaysFromCivil(12345, 6, 7));
  EXPECT_EQ(ParseTimestamp("2024-01-01 10:00:00+02:00"), std::nullopt);
  for (int64_t micros :
       {int64_t{0}, int64_t{-1}, int64_t{1706702400123456}, int64_t{-62135596800000000}}) {
    EXPECT_EQ(ParseTimestamp(FormatTimestamp(micros)), micros) << micros;
  }
}

}  // namespace
}  // namespace silt
