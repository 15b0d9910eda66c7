#include "silt/base/string_bounds.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace silt {
namespace {

// The bounds of `values` as std::string's own byte-wise order finds them.
std::pair<std::string, std::string> Expected(const std::vector<std::string>& values) {
  auto unsigned_less = [](const std::string& a, const std::string& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
      return static_cast<unsigned char>(x) < static_cast<unsigned char>(y);
    });
  };
  return {*std::min_element(values.begin(), values.end(), unsigned_less),
          *std::max_element(values.begin(), values.end(), unsigned_less)};
}

std::pair<std::string, std::string> Tracked(const std::vector<std::string>& values) {
  StringBounds bounds;
  for (const std::string& value : values) bounds.Add(value);
  return {std::string(bounds.low()), std::string(bounds.high())};
}

TEST(StringBoundsTest, NothingAddedHasNoBounds) { EXPECT_FALSE(StringBounds().found()); }

TEST(StringBoundsTest, ShorterStringsAndZeroBytesOrderAsBytes) {
  // Strings that tie on their zero-padded first eight bytes are compared in full.
  const std::vector<std::string> values = {std::string("ab\0", 3), "ab", std::string("ab\0\0", 4),
                                           "abcdefgh", "abcdefgh\x01", "abcdefgh"};
  EXPECT_EQ(Tracked(values), Expected(values));
  EXPECT_EQ(Tracked(values).first, "ab");
  EXPECT_EQ(Tracked(values).second, "abcdefgh\x01");
}

TEST(StringBoundsTest, BytesAboveSevenBitsCompareUnsigned) {
  const std::vector<std::string> values = {"\xC3\xA9", "z", "", "\x7F", "\xFF\xFF"};
  EXPECT_EQ(Tracked(values), Expected(values));
  EXPECT_EQ(Tracked(values).first, "");
  EXPECT_EQ(Tracked(values).second, "\xFF\xFF");
}

TEST(StringBoundsTest, AgreesWithAFullComparisonOnRandomStrings) {
  std::mt19937 random(7);
  for (int round = 0; round < 200; ++round) {
    // Few distinct bytes and shared prefixes, so that prefixes often tie.
    const std::string prefix(static_cast<size_t>(random() % 12), 'p');
    std::vector<std::string> values;
    for (int i = 0; i < 50; ++i) {
      std::string value = prefix.substr(0, random() % (prefix.size() + 1));
      const size_t extra = random() % 12;
      for (size_t b = 0; b < extra; ++b) value.push_back(static_cast<char>("\x00\x01p\x80\xFF"[random() % 5]));
      values.push_back(value);
    }
    ASSERT_EQ(Tracked(values), Expected(values)) << round;
  }
}

}  // namespace
}  // namespace silt
