#include "silt/log/zorder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>

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

TEST(HilbertTest, VisitsEveryCellOnceMovingToANeighbour) {
  // On a 2^bits grid in two and three dimensions the curve is a bijection onto 0..cells-1 and
  // consecutive positions are cells one step apart along one axis (Z-order jumps instead).
  for (size_t dimensions : {2u, 3u}) {
    const int bits = 3;
    const uint64_t side = uint64_t{1} << bits;
    uint64_t cells = 1;
    for (size_t d = 0; d < dimensions; ++d) cells *= side;
    std::vector<std::vector<uint64_t>> at(cells);
    for (uint64_t cell = 0; cell < cells; ++cell) {
      std::vector<uint64_t> point;
      for (uint64_t rest = cell, d = 0; d < dimensions; ++d, rest /= side) {
        point.push_back(rest % side);
      }
      uint64_t index = HilbertIndex(point, bits);
      ASSERT_LT(index, cells);
      ASSERT_TRUE(at[index].empty()) << "two cells share position " << index;
      at[index] = point;
    }
    for (uint64_t index = 1; index < cells; ++index) {
      uint64_t distance = 0;
      for (size_t d = 0; d < dimensions; ++d) {
        distance += at[index][d] > at[index - 1][d] ? at[index][d] - at[index - 1][d]
                                                    : at[index - 1][d] - at[index][d];
      }
      EXPECT_EQ(distance, 1u) << "positions " << index - 1 << " and " << index;
    }
  }
}

TEST(HilbertTest, ClusteringOrdersOneColumnByValueAndSeveralAlongTheCurve) {
  EXPECT_THAT(ClusteringPermutation({Longs({30, 10, std::nullopt, 20})}), ElementsAre(2, 1, 3, 0));
  // A 4x4 grid of (x, y) rows in row-major order: along the curve, every next row is a
  // neighbour of the one before, and each quarter of the rows is one 2x2 quadrant.
  std::vector<std::optional<int64_t>> x;
  std::vector<std::optional<int64_t>> y;
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      x.push_back(i);
      y.push_back(j);
    }
  }
  std::vector<int64_t> order = ClusteringPermutation({Longs(x), Longs(y)});
  ASSERT_EQ(order.size(), 16u);
  for (size_t k = 1; k < order.size(); ++k) {
    int64_t dx =
        std::llabs(*x[static_cast<size_t>(order[k])] - *x[static_cast<size_t>(order[k - 1])]);
    int64_t dy =
        std::llabs(*y[static_cast<size_t>(order[k])] - *y[static_cast<size_t>(order[k - 1])]);
    EXPECT_EQ(dx + dy, 1) << "rows " << order[k - 1] << " and " << order[k];
  }
  for (size_t quarter = 0; quarter < 4; ++quarter) {
    std::set<std::pair<int64_t, int64_t>> quadrants;
    for (size_t k = quarter * 4; k < quarter * 4 + 4; ++k) {
      quadrants.emplace(*x[static_cast<size_t>(order[k])] / 2,
                        *y[static_cast<size_t>(order[k])] / 2);
    }
    EXPECT_EQ(quadrants.size(), 1u) << "quarter " << quarter;
  }
}

}  // namespace
}  // namespace silt::log
