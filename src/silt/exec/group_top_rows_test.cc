#include "silt/exec/group_top_rows.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>


#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/test_source_internal.h"
#include "silt/vector/batch.h"

namespace silt::exec {
namespace {

using ::testing::ElementsAre;

using exec::testing::TestSource;

SchemaPtr InputSchema() {
  return std::make_shared<Schema>(std::vector<Field>{{"city", StringType(), true, {}},
                                                     {"bucket", IntegerType(), true, {}},
                                                     {"version", LongType(), true, {}},
                                                     {"score", DoubleType(), true, {}},
                                                     {"id", LongType(), false, {}}});
}

// Random rows: two partition keys with NULLs, a long order key with NULLs and many ties, a
// double with NULLs, NaN and -0.0, and a unique id, cut into batches of `batch_rows`.
std::vector<Batch> RandomBatches(int64_t num_rows, int64_t batch_rows, int num_cities,
                                 uint32_t seed) {
  std::mt19937 random(seed);
  SchemaPtr schema = InputSchema();
  std::vector<Batch> batches;
  for (int64_t start = 0; start < num_rows; start += batch_rows) {
    VectorBuilder city(StringType()), bucket(IntegerType()), version(LongType()),
        score(DoubleType()), id(LongType());
    const int64_t end = std::min(num_rows, start + batch_rows);
    for (int64_t r = start; r < end; ++r) {
      if (random() % 20 == 0) {
        city.AppendNull();
      } else {
        city.AppendString("city" + std::to_string(random() % num_cities));
      }
      if (random() % 10 == 0) {
        bucket.AppendNull();
      } else {
        bucket.AppendInt(static_cast<int64_t>(random() % 3));
      }
      if (random() % 8 == 0) {
        version.AppendNull();
      } else {
        version.AppendInt(static_cast<int64_t>(random() % 5));
      }
      const uint32_t kind = random() % 16;
      if (kind == 0) {
        score.AppendNull();
      } else if (kind == 1) {
        score.AppendDouble(std::nan(""));
      } else if (kind == 2) {
        score.AppendDouble(-0.0);
      } else {
        score.AppendDouble(static_cast<double>(random() % 7) - 3.0);
      }
      id.AppendInt(r);
    }
    batches.emplace_back(schema,
                         std::vector<VectorPtr>{city.Finish(), bucket.Finish(), version.Finish(),
                                                score.Finish(), id.Finish()},
                         end - start);
  }
  return batches;
}

// Every output row as text (all columns, row number last), sorted.
std::vector<std::string> RowTexts(Operator& root, ExecContext& context) {
  std::vector<std::string> rows;
  for (const Batch& batch : Collect(root, context)) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        row += (c > 0 ? "," : "") + batch.column(c)->ValueToString(r);
      }
      rows.push_back(row);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Shape {
  std::vector<int> partition_by;
  std::vector<SortKey> order_by;
  int64_t limit = 1;
};

// The rows the window operator's row_number keeps under `shape`.
std::vector<std::string> WindowTopRows(const std::vector<Batch>& batches, const Shape& shape) {
  WindowCall call;
  call.function = "row_number";
  call.result_type = IntegerType();
  OperatorPtr window =
      MakeWindow(std::make_unique<TestSource>(InputSchema(), batches),
                 WindowOrdering{shape.partition_by, shape.order_by}, {call}, {"rn"});
  ExecContext context;
  context.parallelism = 1;
  std::vector<std::string> rows = RowTexts(*window, context);
  std::vector<std::string> kept;
  for (const std::string& row : rows) {
    const int64_t rn = std::stoll(row.substr(row.rfind(',') + 1));
    if (rn <= shape.limit) kept.push_back(row);
  }
  return kept;
}

std::vector<std::string> GroupTopRows(const std::vector<Batch>& batches, const Shape& shape,
                                      size_t threads) {
  OperatorPtr top = MakeGroupTopRows(std::make_unique<TestSource>(InputSchema(), batches),
                                     shape.partition_by, shape.order_by, shape.limit, "rn");
  ThreadPool pool(threads);
  ExecContext context;
  context.pool = &pool;
  context.parallelism = threads;
  return RowTexts(*top, context);
}

void ExpectSameAsWindow(const std::vector<Batch>& batches, const Shape& shape) {
  std::vector<std::string> expected = WindowTopRows(batches, shape);
  ASSERT_FALSE(expected.empty());
  for (size_t threads : {1, 4}) {
    std::vector<std::string> actual = GroupTopRows(batches, shape, threads);
    ASSERT_EQ(actual.size(), expected.size()) << threads << " threads";
    EXPECT_TRUE(actual == expected) << threads << " threads";
  }
}

// Columns: 0 city, 1 bucket, 2 version, 3 score, 4 id.
TEST(GroupTopRowsTest, FirstRowMatchesRowNumberDescendingNullsLast) {
  std::vector<Batch> batches = RandomBatches(6000, 250, 40, 1);
  ExpectSameAsWindow(batches, {{0}, {{2, false, false}}, 1});
}

TEST(GroupTopRowsTest, FirstThreeRowsMatchRowNumberAscendingNullsFirst) {
  std::vector<Batch> batches = RandomBatches(6000, 250, 40, 2);
  ExpectSameAsWindow(batches, {{0}, {{2, true, true}}, 3});
}

TEST(GroupTopRowsTest, SeveralKeysAndNullPlacements) {
  std::vector<Batch> batches = RandomBatches(8000, 333, 25, 3);
  ExpectSameAsWindow(batches, {{0, 1}, {{3, false, true}, {2, true, false}}, 1});
  ExpectSameAsWindow(batches, {{1, 0}, {{3, true, false}, {2, false, true}}, 3});
  ExpectSameAsWindow(batches, {{1}, {{3, true, true}}, 3});
  ExpectSameAsWindow(batches, {{1}, {{0, false, true}}, 3});
  ExpectSameAsWindow(batches, {{1}, {{1, true, false}}, 2});
}

TEST(GroupTopRowsTest, ManyGroupsAndDisplacedRows) {
  // Many partitions whose kept rows keep being displaced: exercises chunk reclaiming.
  std::vector<Batch> batches = RandomBatches(300000, 4096, 20000, 4);
  ExpectSameAsWindow(batches, {{0}, {{4, false, false}}, 1});
  ExpectSameAsWindow(batches, {{0}, {{3, true, true}, {4, false, true}}, 3});
}

TEST(GroupTopRowsTest, ParallelPullsFromAScanLikeChildKeepTheSameRows) {
  // Unique order keys (column 4), so the order in which racing pulls are numbered is moot.
  std::vector<Batch> batches = RandomBatches(200000, 4096, 20000, 7);
  for (const Shape& shape : {Shape{{0}, {{4, false, false}}, 1}, Shape{{1}, {{4, true, true}}, 3}}) {
    std::vector<std::string> expected = WindowTopRows(batches, shape);
    auto source = std::make_unique<TestSource>(InputSchema(), batches, /*parallel=*/true);
    TestSource* pulled = source.get();
    OperatorPtr top = MakeGroupTopRows(std::move(source), shape.partition_by, shape.order_by,
                                       shape.limit, "rn");
    ThreadPool pool(2);
    ExecContext context;
    context.pool = &pool;
    context.parallelism = 2;
    std::vector<std::string> actual = RowTexts(*top, context);
    EXPECT_TRUE(pulled->parallel_pulls());
    ASSERT_EQ(actual.size(), expected.size());
    EXPECT_TRUE(actual == expected);
  }
}

TEST(GroupTopRowsTest, LimitsAboveThePartitionSizes) {
  // Partitions of 1 to ~20 rows under limits that are not powers of two and above most sizes.
  std::vector<Batch> batches = RandomBatches(5000, 300, 400, 6);
  ExpectSameAsWindow(batches, {{0}, {{2, true, true}}, 5});
  ExpectSameAsWindow(batches, {{0, 1}, {{3, false, false}}, 100});
  ExpectSameAsWindow(batches, {{1}, {{4, false, false}}, 100});
}

TEST(GroupTopRowsTest, NoPartitionKeysIsOnePartition) {
  std::vector<Batch> batches = RandomBatches(3000, 100, 10, 5);
  ExpectSameAsWindow(batches, {{}, {{3, false, false}, {2, true, true}}, 3});
}

TEST(GroupTopRowsTest, TiesKeepTheEarliestArrivals) {
  // Every row ties: the first two arrivals of each partition are kept, numbered in arrival
  // order, whichever thread reads their batch.
  SchemaPtr schema = std::make_shared<Schema>(
      std::vector<Field>{{"key", LongType(), true, {}}, {"order", LongType(), true, {}}});
  std::vector<Batch> batches;
  for (int64_t b = 0; b < 40; ++b) {
    VectorBuilder key(LongType()), order(LongType());
    for (int64_t r = 0; r < 50; ++r) {
      key.AppendInt(r % 2);
      order.AppendInt(b * 1000 + r);
    }
    // The order column is not an ORDER BY key here: it records the arrival.
    batches.emplace_back(schema, std::vector<VectorPtr>{key.Finish(), order.Finish()}, 50);
  }
  for (size_t threads : {1, 4}) {
    OperatorPtr top = MakeGroupTopRows(std::make_unique<TestSource>(schema, batches), {0},
                                       {{0, true, true}}, 2, "rn");
    ThreadPool pool(threads);
    ExecContext context;
    context.pool = &pool;
    context.parallelism = threads;
    EXPECT_THAT(RowTexts(*top, context), ElementsAre("0,0,1", "0,2,2", "1,1,1", "1,3,2"))
        << threads;
  }
}

TEST(GroupTopRowsTest, SchemaAppendsANonNullIntRowNumber) {
  OperatorPtr top =
      MakeGroupTopRows(std::make_unique<TestSource>(InputSchema(), std::vector<Batch>{}), {4},
                       {{2, false, false}}, 1, "rn");
  const Schema& schema = *top->schema();
  ASSERT_EQ(schema.num_fields(), 6u);
  EXPECT_EQ(schema.field(5).name, "rn");
  EXPECT_TRUE(schema.field(5).type->Equals(*IntegerType()));
  EXPECT_FALSE(schema.field(5).nullable);
  ExecContext context;
  EXPECT_FALSE(top->Next(context).has_value());
  EXPECT_EQ(
      top->Describe(),
      "GroupTopRows [row_number() AS rn], [partition: id#4], [order: version#2 DESC NULLS LAST], "
      "[limit: 1]");
}

TEST(GroupTopRowsTest, UnorderableKeyIsRejected) {
  SchemaPtr schema = std::make_shared<Schema>(std::vector<Field>{
      {"m", MapType(StringType(), LongType()), true, {}}, {"v", LongType(), true, {}}});
  try {
    MakeGroupTopRows(std::make_unique<TestSource>(schema, std::vector<Batch>{}), {1},
                     {{0, true, true}}, 1, "rn");
    FAIL() << "expected DATATYPE_MISMATCH";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DATATYPE_MISMATCH");
  }
}

}  // namespace
}  // namespace silt::exec
