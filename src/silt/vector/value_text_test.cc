#include "silt/vector/value_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace silt {
namespace {

TEST(ValueTextTest, JavaDoubleToString) {
  EXPECT_EQ(FormatJavaDouble(1.0), "1.0");
  EXPECT_EQ(FormatJavaDouble(0.001), "0.001");
  EXPECT_EQ(FormatJavaDouble(0.00099), "9.9E-4");
  EXPECT_EQ(FormatJavaDouble(1.0E-4), "1.0E-4");
  EXPECT_EQ(FormatJavaDouble(1.2345678E7), "1.2345678E7");
  EXPECT_EQ(FormatJavaDouble(1.0E7), "1.0E7");
  EXPECT_EQ(FormatJavaDouble(9999999.5), "9999999.5");
  EXPECT_EQ(FormatJavaDouble(100.0), "100.0");
  EXPECT_EQ(FormatJavaDouble(-12.5), "-12.5");
  EXPECT_EQ(FormatJavaDouble(0.0), "0.0");
  EXPECT_EQ(FormatJavaDouble(-0.0), "-0.0");
  EXPECT_EQ(FormatJavaDouble(-1.5E-10), "-1.5E-10");
  EXPECT_EQ(FormatJavaDouble(std::numeric_limits<double>::max()), "1.7976931348623157E308");
  EXPECT_EQ(FormatJavaDouble(std::numeric_limits<double>::denorm_min()), "4.9E-324");
  EXPECT_EQ(FormatJavaDouble(1e23), "1.0E23");
  EXPECT_EQ(FormatJavaDouble(2e-5), "2.0E-5");
  EXPECT_EQ(FormatJavaDouble(3.0), "3.0");
  EXPECT_EQ(FormatJavaDouble(300.0), "300.0");
  EXPECT_EQ(FormatJavaDouble(std::nan("")), "NaN");
  EXPECT_EQ(FormatJavaDouble(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(FormatJavaDouble(-std::numeric_limits<double>::infinity()), "-Infinity");
}

TEST(ValueTextTest, JavaFloatToString) {
  EXPECT_EQ(FormatJavaFloat(1.0f), "1.0");
  EXPECT_EQ(FormatJavaFloat(0.1f), "0.1");
  EXPECT_EQ(FormatJavaFloat(1.0e7f), "1.0E7");
  EXPECT_EQ(FormatJavaFloat(123456.7f), "123456.7");
  EXPECT_EQ(FormatJavaFloat(-0.0f), "-0.0");
  EXPECT_EQ(FormatJavaFloat(std::numeric_limits<float>::denorm_min()), "1.4E-45");
  EXPECT_EQ(FormatJavaFloat(std::numeric_limits<float>::max()), "3.4028235E38");
  EXPECT_EQ(FormatJavaFloat(std::numeric_limits<float>::infinity()), "Infinity");
}

TEST(ValueTextTest, Decimal) {
  EXPECT_EQ(FormatDecimal(150, 2), "1.50");
  EXPECT_EQ(FormatDecimal(-5, 2), "-0.05");
  EXPECT_EQ(FormatDecimal(0, 3), "0.000");
  EXPECT_EQ(FormatDecimal(7, 0), "7");
  EXPECT_EQ(FormatDecimal(-7, 0), "-7");
  EXPECT_EQ(FormatDecimal(123456789, 9), "0.123456789");
  Decimal128 max = 1;
  for (int i = 0; i < 38; ++i) max *= 10;
  max -= 1;
  EXPECT_EQ(FormatDecimal(max, 38), "0.99999999999999999999999999999999999999");
  EXPECT_EQ(FormatDecimal(-max, 0), "-99999999999999999999999999999999999999");
  Decimal128 minimum = static_cast<Decimal128>(static_cast<unsigned __int128>(1) << 127);
  EXPECT_EQ(FormatDecimal(minimum, 0), "-170141183460469231731687303715884105728");
}

TEST(ValueTextTest, ParseDecimal) {
  auto parse = [](std::string_view text, int precision, int scale) -> std::string {
    std::optional<Decimal128> value = ParseDecimal(text, precision, scale);
    return value ? FormatDecimal(*value, scale) : "none";
  };
  EXPECT_EQ(parse("1.5", 5, 2), "1.50");
  EXPECT_EQ(parse("-0.05", 5, 2), "-0.05");
  EXPECT_EQ(parse("+12", 5, 0), "12");
  EXPECT_EQ(parse(".5", 3, 1), "0.5");
  EXPECT_EQ(parse("7.", 3, 1), "7.0");
  EXPECT_EQ(parse("1.005", 5, 2), "1.01");    // half up
  EXPECT_EQ(parse("-1.005", 5, 2), "-1.01");  // away from zero
  EXPECT_EQ(parse("1.004", 5, 2), "1.00");
  EXPECT_EQ(parse("0.4", 1, 0), "0");
  EXPECT_EQ(parse("1.5E+3", 6, 1), "1500.0");
  EXPECT_EQ(parse("15e-3", 4, 3), "0.015");
  EXPECT_EQ(parse("999.99", 5, 2), "999.99");
  EXPECT_EQ(parse("999.995", 5, 2), "none");  // rounds past the precision
  EXPECT_EQ(parse("1000", 5, 2), "none");
  EXPECT_EQ(parse("99999999999999999999999999999999999999", 38, 0),
            "99999999999999999999999999999999999999");
  EXPECT_EQ(parse("100000000000000000000000000000000000000", 38, 0), "none");
  EXPECT_EQ(parse("", 5, 2), "none");
  EXPECT_EQ(parse("-", 5, 2), "none");
  EXPECT_EQ(parse("1.2.3", 5, 2), "none");
  EXPECT_EQ(parse("1e", 5, 2), "none");
  EXPECT_EQ(parse("abc", 5, 2), "none");
  EXPECT_EQ(parse("1e99999", 5, 2), "none");
}

TEST(ValueTextTest, BinaryHexAndBase64) {
  EXPECT_EQ(FormatBinaryHex(""), "[]");
  EXPECT_EQ(FormatBinaryHex(std::string("\x00\x0a\xff", 3)), "[00 0A FF]");
  EXPECT_EQ(EncodeBase64(""), "");
  EXPECT_EQ(EncodeBase64("f"), "Zg==");
  EXPECT_EQ(EncodeBase64("fo"), "Zm8=");
  EXPECT_EQ(EncodeBase64("foo"), "Zm9v");
  EXPECT_EQ(EncodeBase64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(EncodeBase64(std::string("\xff\xfe\xfd", 3)), "//79");
}

}  // namespace
}  // namespace silt
