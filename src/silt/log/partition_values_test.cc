#include "silt/log/partition_values.h"

#include <gtest/gtest.h>

#include <cmath>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"

namespace silt::log {
namespace {

std::optional<Scalar> Parse(const DataTypePtr& type, const char* text) {
  return ParsePartitionValue(*type, std::string(text), "c");
}

TEST(PartitionValuesTest, NullAndEmptyMeanNull) {
  EXPECT_FALSE(ParsePartitionValue(*IntegerType(), std::nullopt, "c").has_value());
  EXPECT_FALSE(Parse(StringType(), "").has_value());
  // The string "null" is a value, not NULL.
  EXPECT_EQ(std::get<std::string>(*Parse(StringType(), "null")), "null");
}

TEST(PartitionValuesTest, IntegersWithRangeChecks) {
  EXPECT_EQ(std::get<int64_t>(*Parse(ByteType(), "-128")), -128);
  EXPECT_EQ(std::get<int64_t>(*Parse(LongType(), "-9223372036854775808")), INT64_MIN);
  EXPECT_EQ(std::get<int64_t>(*Parse(ShortType(), "32767")), 32767);
  EXPECT_EQ(ErrorClassOf([] { Parse(ByteType(), "128"); }), "DELTA_PARTITION_COLUMN_CAST_FAILED");
  EXPECT_EQ(ErrorClassOf([] { Parse(IntegerType(), "1.5"); }), "DELTA_PARTITION_COLUMN_CAST_FAILED");
  EXPECT_EQ(ErrorClassOf([] { Parse(LongType(), "9223372036854775808"); }),
            "DELTA_PARTITION_COLUMN_CAST_FAILED");
}

TEST(PartitionValuesTest, FloatsDecimalsBooleans) {
  EXPECT_DOUBLE_EQ(std::get<double>(*Parse(DoubleType(), "1.0E10")), 1e10);
  EXPECT_TRUE(std::isnan(std::get<double>(*Parse(DoubleType(), "NaN"))));
  EXPECT_TRUE(std::isinf(std::get<double>(*Parse(FloatType(), "-Infinity"))));
  EXPECT_EQ(std::get<Decimal128>(*Parse(DecimalType(5, 2), "1.50")), 150);
  EXPECT_EQ(std::get<Decimal128>(*Parse(DecimalType(5, 2), "-0.5")), -50);
  EXPECT_EQ(std::get<Decimal128>(*Parse(DecimalType(12, 10), "1.0E-7")), 1000);
  EXPECT_EQ(std::get<Decimal128>(*Parse(DecimalType(38, 0), "1E37")),
            Decimal128(1000000000000000000LL) * Decimal128(1000000000000000000LL) * 10);
  EXPECT_EQ(ErrorClassOf([] { Parse(DecimalType(5, 2), "1.234"); }),
            "DELTA_PARTITION_COLUMN_CAST_FAILED");
  EXPECT_EQ(ErrorClassOf([] { Parse(DecimalType(3, 2), "10.00"); }),
            "DELTA_PARTITION_COLUMN_CAST_FAILED");
  EXPECT_EQ(std::get<bool>(*Parse(BooleanType(), "true")), true);
  EXPECT_EQ(ErrorClassOf([] { Parse(BooleanType(), "yes"); }), "DELTA_PARTITION_COLUMN_CAST_FAILED");
}

TEST(PartitionValuesTest, DatesAndTimestamps) {
  EXPECT_EQ(std::get<int64_t>(*Parse(DateType(), "2021-09-08")), 18878);
  int64_t utc = 1704103200LL * 1000000;  // 2024-01-01T10:00:00Z
  EXPECT_EQ(std::get<int64_t>(*Parse(TimestampType(), "2024-01-01T10:00:00.000000Z")), utc);
  EXPECT_EQ(std::get<int64_t>(*Parse(TimestampType(), "2024-01-01 10:00:00")), utc);
  EXPECT_EQ(std::get<int64_t>(*Parse(TimestampType(), "2024-01-01T02:00:00.000-08:00")), utc);
  EXPECT_EQ(std::get<int64_t>(*Parse(TimestampNtzType(), "2013-07-05 17:01:00.123456")),
            1373043660123456LL);
  EXPECT_EQ(ErrorClassOf([] { Parse(DateType(), "2021-02-30"); }),
            "DELTA_PARTITION_COLUMN_CAST_FAILED");
  EXPECT_EQ(ErrorClassOf([] { Parse(TimestampType(), "yesterday"); }),
            "DELTA_PARTITION_COLUMN_CAST_FAILED");
}

TEST(PartitionValuesTest, FormatRoundTrips) {
  struct Case {
    DataTypePtr type;
    const char* text;
  };
  for (const Case& c : {Case{IntegerType(), "-12"}, Case{DoubleType(), "0.1"},
                        Case{DecimalType(10, 2), "1.50"}, Case{DateType(), "2000-01-31"},
                        Case{TimestampType(), "2024-01-01T10:00:00.000001Z"},
                        Case{TimestampNtzType(), "2013-07-05 17:01:00.123456"},
                        Case{BooleanType(), "false"}, Case{StringType(), "a/b=c"}}) {
    auto value = Parse(c.type, c.text);
    ASSERT_TRUE(value.has_value()) << c.text;
    EXPECT_EQ(FormatPartitionValue(*c.type, *value), c.text);
  }
}

TEST(PartitionValuesTest, CompareAndConstantVectors) {
  EXPECT_LT(CompareScalars(Scalar(int64_t{1}), Scalar(int64_t{2})), 0);
  EXPECT_GT(CompareScalars(Scalar(std::string("b")), Scalar(std::string("a"))), 0);
  EXPECT_GT(CompareScalars(Scalar(std::nan("")), Scalar(1e300)), 0);
  auto vector = MakeConstantVector(IntegerType(), Scalar(int64_t{7}), 3);
  ASSERT_EQ(vector->length(), 3);
  EXPECT_EQ(vector->values<int32_t>()[2], 7);
  auto nulls = MakeConstantVector(StringType(), std::nullopt, 2);
  EXPECT_TRUE(nulls->IsNull(1));
}

}  // namespace
}  // namespace silt::log
