#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/sort_permutation.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/test_source_internal.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/vector/batch.h"

namespace silt::exec {
namespace {

using expr::testing::BoolColumn;
using expr::testing::DoubleColumn;
using expr::testing::IntColumn;
using expr::testing::StringColumn;
using ::testing::ElementsAre;

// Hands out batches already in memory, as a scan would.
using exec::testing::TestSource;

Batch NamedBatch(const std::vector<VectorPtr>& columns, const std::vector<std::string>& names) {
  std::vector<Field> fields;
  for (size_t i = 0; i < columns.size(); ++i)
    fields.push_back(Field{names[i], columns[i]->type(), true, {}});
  return Batch(std::make_shared<Schema>(std::move(fields)), columns,
               columns.empty() ? 0 : columns[0]->length());
}

OperatorPtr Source(const std::vector<Batch>& batches) {
  return std::make_unique<TestSource>(batches.front().schema(), batches);
}

// Runs a sort and returns each output row's values of `columns` joined by ",".
std::vector<std::string> SortedRows(const std::vector<Batch>& input, std::vector<SortKey> keys,
                                    std::vector<int> columns,
                                    std::optional<int64_t> limit = std::nullopt,
                                    int64_t offset = 0) {
  ExecContext context;
  OperatorPtr sort = MakeSort(Source(input), std::move(keys), limit, offset);
  std::vector<std::string> rows;
  for (const Batch& batch : Collect(*sort, context)) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < columns.size(); ++c) {
        if (c > 0) row += ",";
        row += batch.column(static_cast<size_t>(columns[c]))->ValueToString(r);
      }
      rows.push_back(row);
    }
  }
  return rows;
}

TEST(SortTest, IntegersWithNullsBothDirections) {
  Batch batch =
      NamedBatch({IntColumn(IntegerType(), {3, std::nullopt, -1, 2, std::nullopt, 0})}, {"a"});
  EXPECT_THAT(SortedRows({batch}, {{0, true, true}}, {0}),
              ElementsAre("NULL", "NULL", "-1", "0", "2", "3"));
  EXPECT_THAT(SortedRows({batch}, {{0, true, false}}, {0}),
              ElementsAre("-1", "0", "2", "3", "NULL", "NULL"));
  EXPECT_THAT(SortedRows({batch}, {{0, false, false}}, {0}),
              ElementsAre("3", "2", "0", "-1", "NULL", "NULL"));
  EXPECT_THAT(SortedRows({batch}, {{0, false, true}}, {0}),
              ElementsAre("NULL", "NULL", "3", "2", "0", "-1"));
}

TEST(SortTest, DoublesPutNaNAboveInfinityAndNegativeZeroEqualToZero) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  Batch batch = NamedBatch({DoubleColumn({nan, 1.5, -inf, std::nullopt, 0.0, inf, -0.0, -2.0}),
                            IntColumn(IntegerType(), {0, 1, 2, 3, 4, 5, 6, 7})},
                           {"d", "pos"});
  EXPECT_THAT(SortedRows({batch}, {{0, true, true}}, {0, 1}),
              ElementsAre("NULL,3", "-Infinity,2", "-2.0,7", "0.0,4", "-0.0,6", "1.5,1",
                          "Infinity,5", "NaN,0"));
  EXPECT_THAT(SortedRows({batch}, {{0, false, false}}, {0, 1}),
              ElementsAre("NaN,0", "Infinity,5", "1.5,1", "0.0,4", "-0.0,6", "-2.0,7",
                          "-Infinity,2", "NULL,3"));
}

TEST(SortTest, FloatsAndNaNWithNulls) {
  VectorBuilder builder(FloatType());
  for (float v : {2.5f, std::numeric_limits<float>::quiet_NaN(), -1.0f}) builder.AppendFloat(v);
  builder.AppendNull();
  Batch batch = NamedBatch({builder.Finish()}, {"f"});
  EXPECT_THAT(SortedRows({batch}, {{0, true, false}}, {0}),
              ElementsAre("-1.0", "2.5", "NaN", "NULL"));
}

TEST(SortTest, StringsByUtf8Bytes) {
  Batch batch = NamedBatch({StringColumn({"b", "a", "é", "Z", "", std::nullopt, "ab"})}, {"s"});
  EXPECT_THAT(SortedRows({batch}, {{0, true, true}}, {0}),
              ElementsAre("NULL", "", "Z", "a", "ab", "b", "é"));
  EXPECT_THAT(SortedRows({batch}, {{0, false, false}}, {0}),
              ElementsAre("é", "b", "ab", "a", "Z", "", "NULL"));
  // Strings that share their first 8 bytes, or differ only by trailing zero bytes.
  using namespace std::string_literals;
  Batch long_strings = NamedBatch({StringColumn({"abcdefgh1"s, "abcdefgh0"s, "abcdefgh"s,
                                                 "abcdefg\0"s, "abcdefg"s, "abcdefgh\0"s}),
                                   IntColumn(IntegerType(), {0, 1, 2, 3, 4, 5})},
                                  {"s", "pos"});
  EXPECT_THAT(SortedRows({long_strings}, {{0, true, true}}, {1}),
              ElementsAre("4", "3", "2", "5", "1", "0"));
  EXPECT_THAT(SortedRows({long_strings}, {{0, false, true}}, {1}),
              ElementsAre("0", "1", "5", "2", "3", "4"));
}

TEST(SortTest, BooleansDatesTimestampsAndDecimals) {
  VectorBuilder decimals(DecimalType(10, 2));
  for (int64_t v : {150, -200, 5}) decimals.AppendDecimal(v);
  decimals.AppendNull();
  Batch batch =
      NamedBatch({BoolColumn({true, false, std::nullopt, true}),
                  IntColumn(DateType(), {19000, -5, 0, std::nullopt}),
                  IntColumn(TimestampType(), {std::nullopt, 1000000, -1, 0}), decimals.Finish()},
                 {"b", "d", "t", "m"});
  EXPECT_THAT(SortedRows({batch}, {{0, true, true}}, {0}),
              ElementsAre("NULL", "false", "true", "true"));
  EXPECT_THAT(SortedRows({batch}, {{1, true, true}}, {1}),
              ElementsAre("NULL", "1969-12-27", "1970-01-01", "2022-01-08"));
  EXPECT_THAT(SortedRows({batch}, {{2, false, false}}, {2}),
              ElementsAre("1970-01-01 00:00:01", "1970-01-01 00:00:00",
                          "1969-12-31 23:59:59.999999", "NULL"));
  EXPECT_THAT(SortedRows({batch}, {{3, true, false}}, {3}),
              ElementsAre("-2.00", "0.05", "1.50", "NULL"));
}

TEST(SortTest, StructsFieldByFieldAndArraysElementWise) {
  DataTypePtr struct_type =
      StructType({Field{"x", IntegerType(), true, {}}, Field{"y", StringType(), true, {}}});
  VectorBuilder structs(struct_type);
  auto add_struct = [&](std::optional<int64_t> x, std::string y) {
    if (x)
      structs.child(0).AppendInt(*x);
    else
      structs.child(0).AppendNull();
    structs.child(1).AppendString(y);
    structs.AppendStruct();
  };
  add_struct(2, "a");
  add_struct(1, "b");
  add_struct(std::nullopt, "z");
  add_struct(1, "a");
  VectorBuilder arrays(ListType(IntegerType()));
  auto add_array = [&](std::vector<std::optional<int64_t>> values) {
    for (auto v : values) {
      if (v)
        arrays.child(0).AppendInt(*v);
      else
        arrays.child(0).AppendNull();
    }
    arrays.FinishList();
  };
  add_array({1, 2});
  add_array({1});
  add_array({0, 5, 5});
  add_array({1, std::nullopt});
  Batch batch = NamedBatch({structs.Finish(), arrays.Finish()}, {"s", "a"});
  EXPECT_THAT(SortedRows({batch}, {{0, true, true}}, {0}),
              ElementsAre("{NULL, z}", "{1, a}", "{1, b}", "{2, a}"));
  EXPECT_THAT(SortedRows({batch}, {{1, true, true}}, {1}),
              ElementsAre("[0, 5, 5]", "[1]", "[1, NULL]", "[1, 2]"));
}

TEST(SortTest, MapKeysAreRejected) {
  VectorBuilder maps(MapType(StringType(), IntegerType()));
  maps.AppendNull();
  Batch batch = NamedBatch({maps.Finish()}, {"m"});
  try {
    MakeSort(Source({batch}), {{0, true, true}});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DATATYPE_MISMATCH");
  }
}

TEST(SortTest, StableAndMultiKeyAcrossBatches) {
  Batch first = NamedBatch({IntColumn(IntegerType(), {2, 1, 2}), StringColumn({"x", "y", "x"}),
                            IntColumn(IntegerType(), {0, 1, 2})},
                           {"k", "s", "pos"});
  Batch second = NamedBatch({IntColumn(IntegerType(), {1, 2, std::nullopt}),
                             StringColumn({"y", "a", "q"}), IntColumn(IntegerType(), {3, 4, 5})},
                            {"k", "s", "pos"});
  EXPECT_THAT(SortedRows({first, second}, {{0, false, false}, {1, true, true}}, {2}),
              ElementsAre("4", "0", "2", "1", "3", "5"));
  // Only the string key: its ties keep input order.
  EXPECT_THAT(SortedRows({first, second}, {{1, true, true}}, {2}),
              ElementsAre("4", "5", "0", "2", "1", "3"));
}

TEST(SortTest, LargeInputSortsInParallelAndStaysStable) {
  constexpr int64_t kRows = 300000;
  std::mt19937_64 random(7);
  VectorBuilder keys(LongType());
  VectorBuilder positions(LongType());
  VectorBuilder doubles(DoubleType());
  const double kSpecial[] = {std::numeric_limits<double>::quiet_NaN(), -0.0, 0.0, -1e300, 1e-300};
  for (int64_t r = 0; r < kRows; ++r) {
    if (r % 97 == 0)
      keys.AppendNull();
    else
      keys.AppendInt(static_cast<int64_t>(random() % 1000) - 500);
    positions.AppendInt(r);
    if (r % 89 == 0) {
      doubles.AppendNull();
    } else {
      doubles.AppendDouble(r % 7 == 0 ? kSpecial[r % 5]
                                      : static_cast<double>(random() % 100) / 4 - 10);
    }
  }
  Batch batch =
      NamedBatch({keys.Finish(), positions.Finish(), doubles.Finish()}, {"k", "pos", "d"});
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  std::vector<SortKey> keys_order = {{0, false, true}, {2, true, false}};
  OperatorPtr sort = MakeSort(Source({batch}), keys_order);
  std::vector<Batch> out = Collect(*sort, context);
  Batch all = ConcatenateBatches(out);
  ASSERT_EQ(all.num_rows(), kRows);
  for (const Batch& b : out) EXPECT_LE(b.num_rows(), kTargetBatchRows);
  const Vector& k = *all.column(0);
  const Vector& pos = *all.column(1);
  for (int64_t r = 1; r < kRows; ++r) {
    int c = CompareRows(all.columns(), r - 1, all.columns(), r, keys_order);
    ASSERT_LE(c, 0) << r;
    if (c == 0) {
      ASSERT_LT(pos.values<int64_t>()[r - 1], pos.values<int64_t>()[r]) << r;
    }
  }
  EXPECT_TRUE(k.IsNull(0));
}

TEST(SortTest, TopNWithOffsetKeepsOnlyTheBestRows) {
  std::vector<Batch> batches;
  for (int b = 0; b < 5; ++b) {
    VectorBuilder keys(IntegerType());
    VectorBuilder positions(IntegerType());
    for (int r = 0; r < 40000; ++r) {
      keys.AppendInt((r * 7919 + b) % 1000);
      positions.AppendInt(b * 40000 + r);
    }
    batches.push_back(NamedBatch({keys.Finish(), positions.Finish()}, {"k", "pos"}));
  }
  std::vector<std::string> top = SortedRows(batches, {{0, true, true}}, {0, 1}, 4, 2);
  // Key 0 occurs for r multiple of 1000 in batch 0 only; ties keep input order.
  std::vector<std::string> expected;
  {
    std::vector<std::pair<int, int>> all;
    for (int b = 0; b < 5; ++b) {
      for (int r = 0; r < 40000; ++r) all.emplace_back((r * 7919 + b) % 1000, b * 40000 + r);
    }
    std::stable_sort(all.begin(), all.end(), [](auto& x, auto& y) { return x.first < y.first; });
    for (size_t i = 2; i < 6; ++i)
      expected.push_back(std::to_string(all[i].first) + "," + std::to_string(all[i].second));
  }
  EXPECT_EQ(top, expected);
  EXPECT_THAT(SortedRows(batches, {{0, true, true}}, {0}, 0), ElementsAre());
  EXPECT_EQ(SortedRows(batches, {{0, true, true}}, {0}, 10, 199995).size(), 5u);
  EXPECT_THAT(SortedRows({batches[0]}, {{0, false, true}}, {0}, 3),
              ElementsAre("999", "999", "999"));
}

TEST(SortTest, EmptyInputAndDescribe) {
  Batch batch = NamedBatch({IntColumn(IntegerType(), {}), IntColumn(LongType(), {})}, {"a", "b"});
  ExecContext context;
  OperatorPtr sort = MakeSort(std::make_unique<TestSource>(batch.schema(), std::vector<Batch>{}),
                              {{0, true, true}, {1, false, false}});
  EXPECT_FALSE(sort->Next(context).has_value());
  EXPECT_EQ(sort->Describe(), "Sort [a#0 ASC NULLS FIRST, b#1 DESC NULLS LAST]");
  OperatorPtr top = MakeSort(Source({batch}), {{1, false, false}}, 10);
  EXPECT_EQ(top->Describe(), "TakeOrderedAndProject(limit=10, orderBy=[b#1 DESC NULLS LAST])");
  EXPECT_EQ(ExplainTree(*top),
            "TakeOrderedAndProject(limit=10, orderBy=[b#1 DESC NULLS LAST])\n+- TestSource\n");
}

TEST(SortPermutationTest, EveryStrategyMatchesAStableReferenceSort) {
  constexpr int64_t kRows = 70000;
  std::mt19937_64 random(3);
  VectorBuilder wide(LongType()), narrow(IntegerType()), text(StringType()), spaced(LongType());
  for (int64_t r = 0; r < kRows; ++r) {
    spaced.AppendInt(static_cast<int64_t>(random() % 1000) << 30);
    wide.AppendInt(static_cast<int64_t>(random() % (int64_t{1} << 40)) - (int64_t{1} << 39));
    if (r % 13 == 0)
      narrow.AppendNull();
    else
      narrow.AppendInt(static_cast<int64_t>(random() % 50) - 25);
    text.AppendString(std::string(1, static_cast<char>('a' + random() % 5)));
  }
  std::vector<VectorPtr> columns = {wide.Finish(), narrow.Finish(), text.Finish(), spaced.Finish()};
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  // Packed into one word and radix sorted; two words radix sorted; too many digits for a radix
  // sort; a string key compared.
  std::vector<std::vector<SortKey>> orders = {{{1, false, false}, {0, true, true}},
                                              {{3, true, true}, {0, false, true}},
                                              {{0, true, true}, {0, false, true}, {1, true, false}},
                                              {{2, true, true}, {1, true, true}},
                                              {{1, true, false}}};
  for (const std::vector<SortKey>& keys : orders) {
    std::vector<int64_t> expected(kRows);
    for (int64_t r = 0; r < kRows; ++r) expected[static_cast<size_t>(r)] = r;
    std::stable_sort(expected.begin(), expected.end(), [&](int64_t a, int64_t b) {
      return CompareRows(columns, a, columns, b, keys) < 0;
    });
    EXPECT_EQ(SortPermutation(columns, kRows, keys, &context), expected);
    EXPECT_EQ(SortPermutation(columns, kRows, keys, nullptr), expected);
    std::vector<int64_t> top = SortPermutation(columns, kRows, keys, &context, 100);
    EXPECT_TRUE(std::equal(top.begin(), top.end(), expected.begin()));
    EXPECT_EQ(top.size(), 100u);
  }
}

TEST(RowCompareTest, CompareRowsHonoursDirectionAndNulls) {
  std::vector<VectorPtr> columns = {IntColumn(IntegerType(), {1, std::nullopt, 1}),
                                    StringColumn({"a", "b", "b"})};
  EXPECT_LT(CompareRows(columns, 0, columns, 2, {{0, true, true}, {1, true, true}}), 0);
  EXPECT_GT(CompareRows(columns, 0, columns, 2, {{0, true, true}, {1, false, true}}), 0);
  EXPECT_LT(CompareRows(columns, 1, columns, 0, {{0, true, true}}), 0);
  EXPECT_GT(CompareRows(columns, 1, columns, 0, {{0, true, false}}), 0);
  EXPECT_EQ(CompareRows(columns, 0, columns, 2, {{0, false, false}}), 0);
}

}  // namespace
}  // namespace silt::exec
