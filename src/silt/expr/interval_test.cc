// ANSI interval values: types, text, literals, arithmetic, comparison and casts.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/expr/cast.h"
#include "silt/expr/interval_functions.h"
#include "silt/expr/operator_functions.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/types/date_time.h"
#include "silt/types/schema_json.h"
#include "silt/vector/value_text.h"

namespace silt::expr {
namespace {

using ::silt::expr::testing::EvaluateText;
using ::silt::expr::testing::IntColumn;
using ::silt::expr::testing::MakeBatch;
using ::silt::expr::testing::Texts;
using ::testing::ElementsAre;

const DataTypePtr kDay = DayTimeIntervalType(DayTimeField::kDay, DayTimeField::kDay);
const DataTypePtr kHour = DayTimeIntervalType(DayTimeField::kHour, DayTimeField::kHour);
const DataTypePtr kMinute = DayTimeIntervalType(DayTimeField::kMinute, DayTimeField::kMinute);
const DataTypePtr kMonth = YearMonthIntervalType(YearMonthField::kMonth, YearMonthField::kMonth);
const DataTypePtr kYear = YearMonthIntervalType(YearMonthField::kYear, YearMonthField::kYear);

constexpr int64_t kHourMicros = 3600 * kMicrosPerSecond;

ExpressionPtr Interval(int64_t value, DataTypePtr type) { return Literal(Scalar::Interval(value, std::move(type))); }
ExpressionPtr Int(int32_t value) { return Literal(Scalar::Integer(value)); }
ExpressionPtr Dbl(double value) { return Literal(Scalar::Double(value)); }
ExpressionPtr Str(std::string_view value) { return Literal(Scalar::String(value)); }
ExpressionPtr Day(const char* text) { return Literal(Scalar::Date(static_cast<int32_t>(*ParseDate(text)))); }
ExpressionPtr Time(const char* text) { return Literal(Scalar::Timestamp(*ParseTimestamp(text))); }

// Evaluates a constant expression; "ERROR:<class>" when binding or evaluation raises.
std::string Text(const std::function<ExpressionPtr()>& make) {
  try {
    return EvaluateText(make());
  } catch (const Error& error) {
    return "ERROR:" + std::string(error.error_class());
  }
}

std::string Literal(std::vector<std::pair<std::string, std::string>> parts) {
  try {
    auto value = AnsiIntervalLiteral(parts);
    if (!value) return "calendar";
    return value->ToString() + " : " + value->type()->ToString();
  } catch (const Error& error) {
    return "ERROR:" + std::string(error.error_class());
  }
}

TEST(IntervalTypeTest, NamesAndEquality) {
  EXPECT_EQ(DayTimeIntervalType()->ToString(), "interval day to second");
  EXPECT_EQ(kHour->ToString(), "interval hour");
  EXPECT_EQ(YearMonthIntervalType()->ToString(), "interval year to month");
  EXPECT_EQ(kMonth->ToString(), "interval month");
  EXPECT_TRUE(kDay->Equals(*DayTimeIntervalType(DayTimeField::kDay, DayTimeField::kDay)));
  EXPECT_FALSE(kDay->Equals(*DayTimeIntervalType()));
  EXPECT_FALSE(kDay->Equals(*LongType()));
  EXPECT_EQ(kDay->FixedWidth(), 8);
  EXPECT_EQ(kMonth->FixedWidth(), 4);
}

TEST(IntervalTypeTest, DeltaSchemasRefuseIntervals) {
  Schema schema({Field{"id", LongType(), true, {}}, Field{"i", kDay, true, {}}});
  try {
    ToDeltaSchemaJson(schema);
    FAIL() << "an interval column was serialised";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DELTA_UNSUPPORTED_DATA_TYPES");
    EXPECT_THAT(std::string(error.what()), ::testing::HasSubstr("i: interval day"));
  }
  Schema nested({Field{"s", StructType({Field{"m", kMonth, true, {}}}), true, {}}});
  EXPECT_THROW(ToDeltaSchemaJson(nested), Error);
}

TEST(IntervalTextTest, YearMonth) {
  EXPECT_EQ(FormatYearMonthInterval(14, 0, 1), "INTERVAL '1-2' YEAR TO MONTH");
  EXPECT_EQ(FormatYearMonthInterval(-14, 0, 1), "INTERVAL '-1-2' YEAR TO MONTH");
  EXPECT_EQ(FormatYearMonthInterval(3, 1, 1), "INTERVAL '3' MONTH");
  EXPECT_EQ(FormatYearMonthInterval(-3, 1, 1), "INTERVAL '-3' MONTH");
  EXPECT_EQ(FormatYearMonthInterval(24, 0, 0), "INTERVAL '2' YEAR");
}

TEST(IntervalTextTest, DayTime) {
  int64_t value = kMicrosPerDay + 2 * kHourMicros + 3 * 60 * kMicrosPerSecond + 4 * kMicrosPerSecond;
  EXPECT_EQ(FormatDayTimeInterval(value, 0, 3), "INTERVAL '1 02:03:04' DAY TO SECOND");
  EXPECT_EQ(FormatDayTimeInterval(-value, 0, 3), "INTERVAL '-1 02:03:04' DAY TO SECOND");
  EXPECT_EQ(FormatDayTimeInterval(kMicrosPerDay, 0, 0), "INTERVAL '1' DAY");
  EXPECT_EQ(FormatDayTimeInterval(2 * kHourMicros, 1, 1), "INTERVAL '02' HOUR");
  EXPECT_EQ(FormatDayTimeInterval(1'500'000, 2, 3), "INTERVAL '00:01.5' MINUTE TO SECOND");
  EXPECT_EQ(FormatDayTimeInterval(12'000'001, 3, 3), "INTERVAL '12.000001' SECOND");
  EXPECT_EQ(FormatDayTimeInterval(std::numeric_limits<int64_t>::min(), 0, 3),
            "INTERVAL '-106751991 04:00:54.775808' DAY TO SECOND");
}

TEST(IntervalLiteralTest, Types) {
  EXPECT_EQ(Literal({{"1", "DAY"}}), "INTERVAL '1' DAY : interval day");
  EXPECT_EQ(Literal({{"'2'", "HOUR"}}), "INTERVAL '02' HOUR : interval hour");
  EXPECT_EQ(Literal({{"3", "MONTH"}}), "INTERVAL '3' MONTH : interval month");
  EXPECT_EQ(Literal({{"1", "DAY"}, {"2", "HOURS"}}), "INTERVAL '1 02' DAY TO HOUR : interval day to hour");
  EXPECT_EQ(Literal({{"1", "YEAR"}, {"2", "MONTHS"}}), "INTERVAL '1-2' YEAR TO MONTH : interval year to month");
  EXPECT_EQ(Literal({{"'1-2'", "YEAR TO MONTH"}}), "INTERVAL '1-2' YEAR TO MONTH : interval year to month");
  EXPECT_EQ(Literal({{"'-1 02:03:04.5'", "DAY TO SECOND"}}),
            "INTERVAL '-1 02:03:04.5' DAY TO SECOND : interval day to second");
  EXPECT_EQ(Literal({{"1.5", "HOUR"}}), "INTERVAL '01' HOUR : interval hour");  // 90 minutes, shown in hours
  EXPECT_EQ(Literal({{"2", "WEEK"}}), "INTERVAL '14' DAY : interval day");
  EXPECT_EQ(Literal({{"'1 day'", ""}}), "calendar");
  EXPECT_EQ(Literal({{"1", "MONTH"}, {"2", "DAYS"}}), "calendar");
  EXPECT_EQ(Literal({{"'10:60'", "HOUR TO MINUTE"}}), "ERROR:INVALID_TYPED_LITERAL");
  EXPECT_EQ(Literal({{"'25:00'", "HOUR TO MINUTE"}}), "INTERVAL '25:00' HOUR TO MINUTE : interval hour to minute");
  EXPECT_EQ(Literal({{"'1-12'", "YEAR TO MONTH"}}), "ERROR:INVALID_TYPED_LITERAL");
  EXPECT_EQ(Literal({{"'x'", "DAY"}}), "ERROR:INVALID_TYPED_LITERAL");
  EXPECT_EQ(Literal({{"99999999999", "YEAR"}}), "ERROR:INVALID_TYPED_LITERAL");
}

TEST(IntervalArithmeticTest, DatetimePlusInterval) {
  using Op = ArithmeticOperator;
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kAdd, Day("2024-01-31"), Interval(1, kMonth)); }), "2024-02-29");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kSubtract, Day("2024-03-31"), Interval(1, kMonth)); }),
            "2024-02-29");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kAdd, Interval(kMicrosPerDay, kDay), Day("2024-02-28")); }),
            "2024-02-29");
  // A DATE plus hours is a TIMESTAMP.
  auto date_plus_hours = IntervalArithmetic(Op::kAdd, Day("2024-01-31"), Interval(36 * kHourMicros, kHour));
  EXPECT_EQ(date_plus_hours->type()->id(), TypeId::kTimestamp);
  EXPECT_EQ(EvaluateText(date_plus_hours), "2024-02-01 12:00:00");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kAdd, Time("2024-01-31 10:00:00"), Interval(1, kMonth)); }),
            "2024-02-29 10:00:00");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kSubtract, Time("2024-01-31 00:00:00"), Interval(1, kMinute)); }),
            "2024-01-30 23:59:59.999999");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kSubtract, Interval(1, kMonth), Day("2024-01-31")); }),
            "ERROR:DATATYPE_MISMATCH");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kAdd, Int(1), Interval(1, kMonth)); }), "ERROR:DATATYPE_MISMATCH");
}

TEST(IntervalArithmeticTest, DatetimeDifferences) {
  using Op = ArithmeticOperator;
  auto days = IntervalArithmetic(Op::kSubtract, Day("2024-03-01"), Day("2024-02-01"));
  EXPECT_TRUE(days->type()->Equals(*kDay));
  EXPECT_EQ(EvaluateText(days), "INTERVAL '29' DAY");
  auto time = IntervalArithmetic(Op::kSubtract, Time("2024-01-02 06:00:00"), Time("2024-01-01 00:00:00"));
  EXPECT_TRUE(time->type()->Equals(*DayTimeIntervalType()));
  EXPECT_EQ(EvaluateText(time), "INTERVAL '1 06:00:00' DAY TO SECOND");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kSubtract, Day("2024-01-01"), Time("2024-01-01 00:00:01")); }),
            "INTERVAL '-0 00:00:01' DAY TO SECOND");
  EXPECT_EQ(IntervalArithmetic(Op::kSubtract, Int(1), Int(2)), nullptr);  // ordinary arithmetic
}

TEST(IntervalArithmeticTest, IntervalsAndNumbers) {
  using Op = ArithmeticOperator;
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kAdd, Interval(3, kMonth), Interval(12, kYear)); }),
            "INTERVAL '1-3' YEAR TO MONTH");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kSubtract, Interval(kHourMicros, kHour), Interval(kMicrosPerDay, kDay)); }),
            "INTERVAL '-0 23' DAY TO HOUR");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kAdd, Interval(1, kMonth), Interval(1, kDay)); }),
            "ERROR:DATATYPE_MISMATCH");
  // Spark 3.5: multiplying or dividing gives INTERVAL DAY TO SECOND / YEAR TO MONTH.
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kMultiply, Interval(2 * kMicrosPerDay, kDay), Int(3)); }),
            "INTERVAL '6 00:00:00' DAY TO SECOND");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kMultiply, Int(3), Interval(5, kMonth)); }),
            "INTERVAL '1-3' YEAR TO MONTH");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kMultiply, Interval(1, kMonth), Dbl(1.5)); }),
            "INTERVAL '0-2' YEAR TO MONTH");  // 1.5 rounds half up
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kMultiply, Interval(-1, kMonth), Dbl(1.5)); }),
            "INTERVAL '-0-2' YEAR TO MONTH");
  EXPECT_EQ(Text([] {
              return IntervalArithmetic(Op::kMultiply, Interval(10, kMonth),
                                        Literal(Scalar::Decimal(25, DecimalType(3, 2))));
            }),
            "INTERVAL '0-3' YEAR TO MONTH");  // 2.5 months round half up
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kDivide, Interval(kMicrosPerDay, kDay), Int(4)); }),
            "INTERVAL '0 06:00:00' DAY TO SECOND");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kDivide, Interval(1, kMonth), Int(0)); }),
            "ERROR:INTERVAL_DIVIDED_BY_ZERO");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kDivide, Interval(1, kMonth), Dbl(0)); }),
            "ERROR:INTERVAL_DIVIDED_BY_ZERO");
  EXPECT_EQ(Text([] { return IntervalArithmetic(Op::kMultiply, Interval(1, kMonth), Interval(1, kMonth)); }),
            "ERROR:DATATYPE_MISMATCH");
  EXPECT_EQ(Text([] {
              return IntervalArithmetic(Op::kMultiply, Interval(std::numeric_limits<int32_t>::max(), kMonth), Int(2));
            }),
            "ERROR:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(Text([] {
              return IntervalArithmetic(Op::kAdd, Interval(std::numeric_limits<int64_t>::max(), kHour),
                                        Interval(1, kHour));
            }),
            "ERROR:ARITHMETIC_OVERFLOW");
}

TEST(IntervalArithmeticTest, NegationAndComparison) {
  EXPECT_EQ(Text([] { return Negate(Interval(kHourMicros, kHour)); }), "INTERVAL '-01' HOUR");
  EXPECT_EQ(Text([] { return Negate(Interval(std::numeric_limits<int32_t>::min(), kMonth)); }),
            "ERROR:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(Text([] {
              return Compare(ComparisonOperator::kGreater, Interval(kHourMicros, kHour),
                             Interval(59 * 60 * kMicrosPerSecond, kMinute));
            }),
            "true");
  EXPECT_EQ(Text([] { return Compare(ComparisonOperator::kEqual, Interval(12, kMonth), Interval(12, kYear)); }),
            "true");
  EXPECT_EQ(Text([] { return Compare(ComparisonOperator::kLess, Interval(1, kMonth), Interval(1, kDay)); }),
            "ERROR:DATATYPE_MISMATCH");
}

TEST(IntervalArithmeticTest, SessionZoneRegions) {
  // Months move the local date-time; differences of TIMESTAMPs are between local date-times.
  EvalContext context;
  context.time_zone = "America/New_York";
  auto plus_month = IntervalArithmetic(ArithmeticOperator::kAdd, Time("2024-02-10 17:00:00"), Interval(1, kMonth));
  EXPECT_EQ(EvaluateText(plus_month, context), "2024-03-10 16:00:00");  // 12:00 EST, then 12:00 EDT
  auto across_dst =
      IntervalArithmetic(ArithmeticOperator::kSubtract, Time("2024-03-10 16:00:00"), Time("2024-03-09 17:00:00"));
  EXPECT_EQ(EvaluateText(across_dst, context), "INTERVAL '1 00:00:00' DAY TO SECOND");
  EXPECT_EQ(EvaluateText(across_dst), "INTERVAL '0 23:00:00' DAY TO SECOND");  // in UTC
}

TEST(IntervalArithmeticTest, Columns) {
  // Column operands with NULLs: each row on its own.
  Batch batch = MakeBatch({IntColumn(DateType(), {*ParseDate("2024-01-31"), std::nullopt, *ParseDate("2024-03-31")}),
                           IntColumn(kMonth, {1, 1, std::nullopt})});
  auto sum = IntervalArithmetic(ArithmeticOperator::kAdd, Column(0, DateType()), Column(1, kMonth));
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*sum, batch, context)), ElementsAre("2024-02-29", "NULL", "NULL"));
}

TEST(IntervalCastTest, FromStrings) {
  EXPECT_EQ(Text([] { return Cast(Str("1"), kDay); }), "INTERVAL '1' DAY");
  EXPECT_EQ(Text([] { return Cast(Str("INTERVAL '1' DAY"), kDay); }), "INTERVAL '1' DAY");
  EXPECT_EQ(Text([] { return Cast(Str(" interval -'1 02:03:04.25' day to second "), DayTimeIntervalType()); }),
            "INTERVAL '-1 02:03:04.25' DAY TO SECOND");
  EXPECT_EQ(Text([] { return Cast(Str("-1-2"), YearMonthIntervalType()); }), "INTERVAL '-1-2' YEAR TO MONTH");
  EXPECT_EQ(Text([] { return Cast(Str("1 day"), kDay); }), "ERROR:CAST_INVALID_INPUT");
  EXPECT_EQ(Text([] { return Cast(Str("INTERVAL '1' HOUR"), kDay); }), "ERROR:CAST_INVALID_INPUT");
  EXPECT_EQ(Text([] { return Cast(Str("1 24:00:00"), DayTimeIntervalType()); }), "ERROR:CAST_INVALID_INPUT");
  EXPECT_EQ(Text([] { return Cast(Str("x"), kDay, ErrorMode::kTry); }), "NULL");
  EXPECT_EQ(Text([] { return Cast(Interval(kMicrosPerDay, kDay), StringType()); }), "INTERVAL '1' DAY");
  EXPECT_FALSE(CanCast(kDay, kMonth));
  EXPECT_FALSE(CanCast(IntegerType(), kDay));
}

TEST(IntervalCastTest, BetweenIntervalTypes) {
  // Narrowing truncates to the target's last field; widening keeps the value.
  EXPECT_EQ(Text([] { return Cast(Interval(kMicrosPerDay + 5 * kHourMicros, DayTimeIntervalType()), kDay); }),
            "INTERVAL '1' DAY");
  EXPECT_EQ(Text([] { return Cast(Interval(kMicrosPerDay, kDay), DayTimeIntervalType()); }),
            "INTERVAL '1 00:00:00' DAY TO SECOND");
  EXPECT_EQ(Text([] { return Cast(Interval(14, YearMonthIntervalType()), kYear); }), "INTERVAL '1' YEAR");
}

}  // namespace
}  // namespace silt::expr
