#include "silt/log/zorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "silt/base/check.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;

VectorPtr Longs(const std::vector<std::optional<int64_t>>& values) {
  VectorBuilder builder(LongType());
  for (const auto& value : values) {
    if (value) {
      builder.AppendInt(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

VectorPtr Doubles(const std::vector<double>& values) {
  VectorBuilder builder(DoubleType());
  for (double value : values) builder.AppendDouble(value);
  return builder.Finish();
}

VectorPtr Strings(const std::vector<std::string>& values) {
  VectorBuilder builder(StringType());
  for (const auto& value : values) builder.AppendString(value);
  return builder.Finish();
}

TEST(ZOrderTest, InterleavesBitsMostSignificantFirst) {
  // x = 0b10, y = 0b01 -> x1 y1 x0 y0 = 1 0 0 1.
  EXPECT_EQ(InterleaveBits({0b10, 0b01}, 2), 0b1001u);
  EXPECT_EQ(InterleaveBits({0b11, 0b00}, 2), 0b1010u);
  EXPECT_EQ(InterleaveBits({0xFFFFFFFFu, 0}, 32), 0xAAAAAAAAAAAAAAAAull);
}

TEST(ZOrderTest, OneColumnOrdersByValue) {
  std::vector<int64_t> order = ZOrderPermutation({Longs({30, -5, 7, std::nullopt, 7})});
  // NULL first, ties keep their input order.
  EXPECT_THAT(order, ElementsAre(3, 1, 2, 4, 0));
}

TEST(ZOrderTest, TwoColumnsFollowTheZCurve) {
  // A 4x4 grid given row by row; the Z curve visits each 2x2 quadrant before the next one.
  std::vector<std::optional<int64_t>> xs;
  std::vector<std::optional<int64_t>> ys;
  for (int64_t y = 0; y < 4; ++y) {
    for (int64_t x = 0; x < 4; ++x) {
      xs.push_back(x);
      ys.push_back(y);
    }
  }
  std::vector<int64_t> order = ZOrderPermutation({Longs(xs), Longs(ys)});
  ASSERT_EQ(order.size(), 16u);
  // Each run of four rows stays inside one quadrant.
  for (size_t quadrant = 0; quadrant < 4; ++quadrant) {
    int64_t qx = *xs[static_cast<size_t>(order[quadrant * 4])] / 2;
    int64_t qy = *ys[static_cast<size_t>(order[quadrant * 4])] / 2;
    for (size_t k = 0; k < 4; ++k) {
      size_t row = static_cast<size_t>(order[quadrant * 4 + k]);
      EXPECT_EQ(*xs[row] / 2, qx) << "position " << quadrant * 4 + k;
      EXPECT_EQ(*ys[row] / 2, qy) << "position " << quadrant * 4 + k;
    }
  }
  // The first column leads: (0,0) (0,1) (1,0) (1,1) in (x, y) order of the first quadrant.
  std::vector<std::pair<int64_t, int64_t>> first;
  for (size_t k = 0; k < 4; ++k) {
    size_t row = static_cast<size_t>(order[k]);
    first.emplace_back(*xs[row], *ys[row]);
  }
  EXPECT_THAT(first,
              ElementsAre(std::pair<int64_t, int64_t>{0, 0}, std::pair<int64_t, int64_t>{0, 1},
                          std::pair<int64_t, int64_t>{1, 0}, std::pair<int64_t, int64_t>{1, 1}));
}

TEST(ZOrderTest, ColumnsWithFewDistinctValuesStillCount) {
  // A boolean-like column with two values must split the order in half, however wide the other
  // column's range is.
  std::vector<std::optional<int64_t>> wide;
  std::vector<std::optional<int64_t>> flag;
  for (int64_t i = 0; i < 8; ++i) {
    wide.push_back(i * 1'000'000'000'000);
    flag.push_back(i % 2);
  }
  std::vector<int64_t> order = ZOrderPermutation({Longs(flag), Longs(wide)});
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(*flag[static_cast<size_t>(order[k])], 0);
  for (size_t k = 4; k < 8; ++k) EXPECT_EQ(*flag[static_cast<size_t>(order[k])], 1);
}

TEST(ZOrderTest, OrdersDoublesAsSparkDoes) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<int64_t> order = ZOrderPermutation({Doubles({nan, 1.5, -0.0, -3.0, 0.0})});
  // -0.0 and 0.0 tie (input order kept); NaN is the largest value.
  EXPECT_THAT(order, ElementsAre(3, 2, 4, 1, 0));
}

TEST(ZOrderTest, OrdersStringsByBytes) {
  std::vector<int64_t> order = ZOrderPermutation({Strings({"b", "a", "ab", "B"})});
  EXPECT_THAT(order, ElementsAre(3, 1, 2, 0));
}

TEST(ZOrderTest, RejectsUnorderableTypes) {
  VectorBuilder builder(ListType(LongType()));
  builder.child(0).AppendInt(1);
  builder.FinishList();
  builder.child(0).AppendInt(2);
  builder.FinishList();
  try {
    ZOrderKeys({builder.Finish()});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "UNSUPPORTED_DATA_TYPE");
  }
}

}  // namespace
}  // namespace silt::log
