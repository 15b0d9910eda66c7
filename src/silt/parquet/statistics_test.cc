#include "silt/parquet/statistics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace silt::parquet {
namespace {

template <typename T>
T Decode(const std::string& bytes) {
  T value;
  EXPECT_EQ(bytes.size(), sizeof(T));
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

StatisticsBuilder Builder(StatisticsKind kind, size_t truncate = 64, bool utf8 = false) {
  return StatisticsBuilder(kind, 0, utf8, truncate);
}

TEST(StatisticsBuilderTest, SignedIntegers) {
  auto builder = Builder(StatisticsKind::kInt32);
  std::vector<int32_t> values = {5, -7, 3, std::numeric_limits<int32_t>::max()};
  builder.UpdateInt32(values.data(), 2);
  builder.UpdateInt32(values.data() + 2, 2);
  builder.AddNulls(3);
  Statistics statistics = builder.Finish();
  EXPECT_EQ(Decode<int32_t>(*statistics.min_value), -7);
  EXPECT_EQ(Decode<int32_t>(*statistics.max_value), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(statistics.null_count, 3);
  // The deprecated fields agree for signed types.
  EXPECT_EQ(statistics.min, statistics.min_value);
  EXPECT_EQ(statistics.max, statistics.max_value);
}

TEST(StatisticsBuilderTest, Int64) {
  auto builder = Builder(StatisticsKind::kInt64);
  std::vector<int64_t> values = {std::numeric_limits<int64_t>::min(), 0, 42};
  builder.UpdateInt64(values.data(), values.size());
  Statistics statistics = builder.Finish();
  EXPECT_EQ(Decode<int64_t>(*statistics.min_value), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Decode<int64_t>(*statistics.max_value), 42);
  EXPECT_EQ(statistics.null_count, 0);
}

TEST(StatisticsBuilderTest, AllNullHasNoBounds) {
  auto builder = Builder(StatisticsKind::kByteArray);
  builder.AddNulls(10);
  Statistics statistics = builder.Finish();
  EXPECT_EQ(statistics.null_count, 10);
  EXPECT_FALSE(statistics.min_value.has_value());
  EXPECT_FALSE(statistics.max_value.has_value());
}

TEST(StatisticsBuilderTest, NaNIgnored) {
  auto builder = Builder(StatisticsKind::kDouble);
  std::vector<double> values = {std::nan(""), 2.5, -1.0, std::nan("")};
  builder.UpdateDouble(values.data(), values.size());
  Statistics statistics = builder.Finish();
  EXPECT_EQ(Decode<double>(*statistics.min_value), -1.0);
  EXPECT_EQ(Decode<double>(*statistics.max_value), 2.5);

  auto only_nan = Builder(StatisticsKind::kFloat);
  std::vector<float> nans = {std::nanf("")};
  only_nan.UpdateFloat(nans.data(), nans.size());
  Statistics none = only_nan.Finish();
  EXPECT_FALSE(none.min_value.has_value());
  EXPECT_FALSE(none.max_value.has_value());
}

TEST(StatisticsBuilderTest, ZeroBoundsAreSigned) {
  auto builder = Builder(StatisticsKind::kFloat);
  std::vector<float> values = {0.0f, 0.0f};
  builder.UpdateFloat(values.data(), values.size());
  Statistics statistics = builder.Finish();
  float min = Decode<float>(*statistics.min_value);
  float max = Decode<float>(*statistics.max_value);
  EXPECT_EQ(min, 0.0f);
  EXPECT_TRUE(std::signbit(min));
  EXPECT_EQ(max, 0.0f);
  EXPECT_FALSE(std::signbit(max));

  auto negative = Builder(StatisticsKind::kDouble);
  std::vector<double> doubles = {-0.0, -3.0};
  negative.UpdateDouble(doubles.data(), doubles.size());
  Statistics with_negative = negative.Finish();
  EXPECT_EQ(Decode<double>(*with_negative.min_value), -3.0);
  EXPECT_FALSE(std::signbit(Decode<double>(*with_negative.max_value)));
}

TEST(StatisticsBuilderTest, Booleans) {
  auto builder = Builder(StatisticsKind::kBoolean);
  std::vector<uint8_t> values = {1, 1};
  builder.UpdateBoolean(values.data(), values.size());
  Statistics statistics = builder.Finish();
  EXPECT_EQ(*statistics.min_value, std::string(1, '\1'));
  EXPECT_EQ(*statistics.max_value, std::string(1, '\1'));
}

TEST(StatisticsBuilderTest, StringsCompareByteWise) {
  auto builder = Builder(StatisticsKind::kByteArray, 64, true);
  // "é" (0xC3 0xA9) sorts after "z" byte-wise; "" is the smallest.
  std::vector<std::string_view> values = {"z", "\xC3\xA9", "", "a"};
  builder.UpdateByteArray(values.data(), values.size());
  Statistics statistics = builder.Finish();
  EXPECT_EQ(*statistics.min_value, "");
  EXPECT_EQ(*statistics.max_value, "\xC3\xA9");
  EXPECT_FALSE(statistics.min.has_value());  // no deprecated fields for byte-wise order
  EXPECT_TRUE(*statistics.is_min_value_exact);
  EXPECT_TRUE(*statistics.is_max_value_exact);
}

TEST(StatisticsBuilderTest, TruncatedBoundsStayValid) {
  auto builder = Builder(StatisticsKind::kByteArray, 4);
  std::string low = "aaaaaaaa", high = "abcdefgh";
  std::vector<std::string_view> values = {low, high};
  builder.UpdateByteArray(values.data(), values.size());
  Statistics statistics = builder.Finish();
  EXPECT_EQ(*statistics.min_value, "aaaa");
  EXPECT_EQ(*statistics.max_value, "abce");
  EXPECT_LE(*statistics.min_value, low);
  EXPECT_GE(*statistics.max_value, high);
  EXPECT_FALSE(*statistics.is_min_value_exact);
  EXPECT_FALSE(*statistics.is_max_value_exact);
}

TEST(StatisticsBuilderTest, MaxOmittedWhenNoIncrementExists) {
  auto builder = Builder(StatisticsKind::kByteArray, 2);
  std::string high = "\xFF\xFF\xFF";
  std::vector<std::string_view> values = {high};
  builder.UpdateByteArray(values.data(), values.size());
  Statistics statistics = builder.Finish();
  EXPECT_EQ(*statistics.min_value, "\xFF\xFF");
  EXPECT_FALSE(statistics.max_value.has_value());
}

TEST(StatisticsBuilderTest, TruncateUpperBound) {
  EXPECT_EQ(*TruncateUpperBound("ab\xFF\xFFzz", 4, false), "ac");
  EXPECT_EQ(*TruncateUpperBound("short", 10, false), "short");
  EXPECT_FALSE(TruncateUpperBound("\xFF\xFF\xFF", 2, false).has_value());
  // UTF-8: the cut keeps whole characters and the increment yields the next code point.
  std::string euro_run = "a\xE2\x82\xAC\xE2\x82\xAC";  // "a€€", 7 bytes
  EXPECT_EQ(*TruncateUpperBound(euro_run, 5, true), "a\xE2\x82\xAD");
  EXPECT_EQ(TruncateLowerBound(euro_run, 5, true), "a\xE2\x82\xAC");
  EXPECT_EQ(TruncateLowerBound(euro_run, 3, true), "a");
  // U+10FFFF cannot be incremented; the character before it is.
  std::string top = "b\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBF";
  EXPECT_EQ(*TruncateUpperBound(top, 5, true), "c");
  // U+D7FF increments past the surrogates to U+E000.
  EXPECT_EQ(*TruncateUpperBound("\xED\x9F\xBFxx", 3, true), "\xEE\x80\x80");
}

TEST(StatisticsBuilderTest, DecimalsCompareAsSignedNumbers) {
  StatisticsBuilder builder(StatisticsKind::kDecimal, 13, false, 64);
  std::vector<Int128> values = {5, -(static_cast<Int128>(1) << 80), 300};
  builder.UpdateDecimal(values.data(), values.size());
  Statistics statistics = builder.Finish();
  ASSERT_EQ(statistics.min_value->size(), 13u);
  // -2^80 in 13 big-endian bytes: 0xFF.. then 0xFF 0x00 ... 0x00 (80 low zero bits).
  EXPECT_EQ(static_cast<uint8_t>((*statistics.min_value)[0]), 0xFF);
  EXPECT_EQ(static_cast<uint8_t>((*statistics.min_value)[2]), 0xFF);
  EXPECT_EQ(static_cast<uint8_t>((*statistics.min_value)[3]), 0x00);
  EXPECT_EQ(*statistics.max_value, std::string("\0\0\0\0\0\0\0\0\0\0\0\x01\x2C", 13));
}

}  // namespace
}  // namespace silt::parquet
