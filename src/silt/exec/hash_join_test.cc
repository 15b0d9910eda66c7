#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/test_source_internal.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/vector/batch.h"

namespace silt::exec {
namespace {

using expr::ComparisonOperator;
using expr::Scalar;
using expr::testing::IntColumn;
using expr::testing::StringColumn;
using ::testing::ElementsAre;

using exec::testing::TestSource;

OperatorPtr Source(const std::vector<Batch>& batches, bool parallel = false) {
  return std::make_unique<TestSource>(batches.front().schema(), batches, parallel);
}

// Every row of `root` (after EnableParallelNext) pulled by `threads` threads at once, sorted.
std::vector<std::string> RowsPulledInParallel(Operator& root, int threads) {
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  std::mutex mutex;
  std::vector<std::string> rows;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      ExecContext own = context;
      while (std::optional<Batch> batch = root.Next(own)) {
        std::lock_guard<std::mutex> lock(mutex);
        for (int64_t row = 0; row < batch->num_rows(); ++row) {
          std::string text;
          for (size_t c = 0; c < batch->num_columns(); ++c) text += (c ? "," : "") + batch->column(c)->ValueToString(row);
          rows.push_back(text);
        }
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  std::sort(rows.begin(), rows.end());
  return rows;
}

// An input with no batches at all (as a scan of an empty table).
OperatorPtr EmptySource(const Batch& shape) { return std::make_unique<TestSource>(shape.schema(), std::vector<Batch>{}); }

std::vector<std::string> Rows(Operator& root, size_t parallelism = 1) {
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  context.parallelism = parallelism;
  std::vector<std::string> rows;
  for (const Batch& batch : Collect(root, context)) {
    EXPECT_TRUE(batch.schema()->Equals(*root.schema()));
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::string text;
      for (size_t c = 0; c < batch.num_columns(); ++c) text += (c ? "," : "") + batch.column(c)->ValueToString(row);
      rows.push_back(text);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

Batch LeftBatch() {
  return expr::testing::MakeBatch(
      {IntColumn(IntegerType(), {1, 2, 2, std::nullopt, 4}), StringColumn({"a", "b", "c", "d", "e"})});
}
Batch RightBatch() {
  return expr::testing::MakeBatch(
      {IntColumn(IntegerType(), {2, 2, 3, std::nullopt, 1}), StringColumn({"x", "y", "z", "w", "v"})});
}

HashJoinSpec Spec(JoinType type) {
  HashJoinSpec spec;
  spec.type = type;
  spec.left_keys = {expr::Column(0, IntegerType())};
  spec.right_keys = {expr::Column(0, IntegerType())};
  return spec;
}

std::vector<std::string> Join(HashJoinSpec spec, const Batch& left = LeftBatch(), const Batch& right = RightBatch()) {
  OperatorPtr join = MakeHashJoin(Source({left}), Source({right}), std::move(spec));
  return Rows(*join);
}

const std::vector<std::string> kInner = {"1,a,1,v", "2,b,2,x", "2,b,2,y", "2,c,2,x", "2,c,2,y"};

std::vector<std::string> Plus(std::vector<std::string> rows, const std::vector<std::string>& more) {
  rows.insert(rows.end(), more.begin(), more.end());
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(HashJoinTest, InnerJoinWithDuplicatesAndNullKeys) { EXPECT_EQ(Join(Spec(JoinType::kInner)), kInner); }

TEST(HashJoinTest, OuterJoinsAddUnmatchedRows) {
  EXPECT_EQ(Join(Spec(JoinType::kLeftOuter)), Plus(kInner, {"4,e,NULL,NULL", "NULL,d,NULL,NULL"}));
  EXPECT_EQ(Join(Spec(JoinType::kRightOuter)), Plus(kInner, {"NULL,NULL,3,z", "NULL,NULL,NULL,w"}));
  EXPECT_EQ(Join(Spec(JoinType::kFullOuter)),
            Plus(kInner, {"4,e,NULL,NULL", "NULL,d,NULL,NULL", "NULL,NULL,3,z", "NULL,NULL,NULL,w"}));
  OperatorPtr join = MakeHashJoin(Source({LeftBatch()}), Source({RightBatch()}), Spec(JoinType::kFullOuter));
  EXPECT_TRUE(join->schema()->field(0).nullable);
  EXPECT_EQ(join->schema()->num_fields(), 4u);
}

TEST(HashJoinTest, SemiAndAntiJoinsKeepLeftColumns) {
  EXPECT_THAT(Join(Spec(JoinType::kLeftSemi)), ElementsAre("1,a", "2,b", "2,c"));
  EXPECT_THAT(Join(Spec(JoinType::kLeftAnti)), ElementsAre("4,e", "NULL,d"));
}

TEST(HashJoinTest, NullSafeKeysMatchNulls) {
  HashJoinSpec spec = Spec(JoinType::kInner);
  spec.null_safe = {true};
  EXPECT_EQ(Join(spec), Plus(kInner, {"NULL,d,NULL,w"}));
}

TEST(HashJoinTest, MultiColumnKeys) {
  Batch left = expr::testing::MakeBatch({IntColumn(IntegerType(), {1, 1, 2}), StringColumn({"p", "q", "p"})});
  Batch right = expr::testing::MakeBatch({StringColumn({"p", "q", "p"}), IntColumn(LongType(), {1, 2, 2})});
  HashJoinSpec spec;
  spec.type = JoinType::kInner;
  // INT = BIGINT keys are widened to one type.
  spec.left_keys = {expr::Column(0, IntegerType()), expr::Column(1, StringType())};
  spec.right_keys = {expr::Column(1, LongType()), expr::Column(0, StringType())};
  EXPECT_THAT(Join(spec, left, right), ElementsAre("1,p,p,1", "2,p,p,2"));
}

TEST(HashJoinTest, ResidualConditionFiltersPairs) {
  // Residual over left columns (0, 1) then right columns (2, 3).
  auto right_value = expr::Column(3, StringType());
  auto not_x = expr::Compare(ComparisonOperator::kNotEqual, right_value, expr::Literal(Scalar::String("x")));
  auto is_x = expr::Compare(ComparisonOperator::kEqual, right_value, expr::Literal(Scalar::String("x")));
  HashJoinSpec inner = Spec(JoinType::kInner);
  inner.residual = not_x;
  EXPECT_THAT(Join(inner), ElementsAre("1,a,1,v", "2,b,2,y", "2,c,2,y"));
  HashJoinSpec left_outer = Spec(JoinType::kLeftOuter);
  left_outer.residual = is_x;
  EXPECT_THAT(Join(left_outer), ElementsAre("1,a,NULL,NULL", "2,b,2,x", "2,c,2,x", "4,e,NULL,NULL", "NULL,d,NULL,NULL"));
  HashJoinSpec right_outer = Spec(JoinType::kRightOuter);
  right_outer.residual = is_x;
  EXPECT_THAT(Join(right_outer), ElementsAre("2,b,2,x", "2,c,2,x", "NULL,NULL,1,v", "NULL,NULL,2,y", "NULL,NULL,3,z",
                                             "NULL,NULL,NULL,w"));
  HashJoinSpec anti = Spec(JoinType::kLeftAnti);
  anti.residual = is_x;
  EXPECT_THAT(Join(anti), ElementsAre("1,a", "4,e", "NULL,d"));
  HashJoinSpec semi = Spec(JoinType::kLeftSemi);
  semi.residual = is_x;
  EXPECT_THAT(Join(semi), ElementsAre("2,b", "2,c"));
}

TEST(HashJoinTest, NullAwareAntiJoinHasNotInSemantics) {
  HashJoinSpec spec = Spec(JoinType::kLeftAnti);
  spec.null_aware_anti = true;
  // The right side holds a NULL: x NOT IN (..., NULL) is never TRUE.
  EXPECT_TRUE(Join(spec).empty());
  Batch no_nulls = expr::testing::MakeBatch({IntColumn(IntegerType(), {2, 3}), StringColumn({"x", "z"})});
  EXPECT_THAT(Join(spec, LeftBatch(), no_nulls), ElementsAre("1,a", "4,e"));
  // Against an empty subquery every row qualifies, a NULL key too.
  OperatorPtr join = MakeHashJoin(Source({LeftBatch()}), EmptySource(RightBatch()), spec);
  EXPECT_THAT(Rows(*join), ElementsAre("1,a", "2,b", "2,c", "4,e", "NULL,d"));
}

HashJoinSpec BuildLeft(JoinType type) {
  HashJoinSpec spec = Spec(type);
  spec.build_left = true;
  return spec;
}

TEST(HashJoinTest, SemiAndAntiJoinsThatBuildTheLeftSideKeepEachLeftRowOnce) {
  // Duplicate keys on both sides (2 twice on each) and NULL keys on both sides.
  EXPECT_THAT(Join(BuildLeft(JoinType::kLeftSemi)), ElementsAre("1,a", "2,b", "2,c"));
  // NOT EXISTS keeps the left row whose key is NULL.
  EXPECT_THAT(Join(BuildLeft(JoinType::kLeftAnti)), ElementsAre("4,e", "NULL,d"));
  HashJoinSpec null_safe = BuildLeft(JoinType::kLeftSemi);
  null_safe.null_safe = {true};
  EXPECT_THAT(Join(null_safe), ElementsAre("1,a", "2,b", "2,c", "NULL,d"));
  null_safe.type = JoinType::kLeftAnti;
  EXPECT_THAT(Join(null_safe), ElementsAre("4,e"));
  // One column wide keys of a general (not integer) type.
  HashJoinSpec strings = BuildLeft(JoinType::kLeftSemi);
  strings.left_keys = {expr::Column(1, StringType())};
  strings.right_keys = {expr::Column(1, StringType())};
  Batch right = expr::testing::MakeBatch(
      {IntColumn(IntegerType(), {0, 0, 0}), StringColumn({"c", "a", "c"})});
  EXPECT_THAT(Join(strings, LeftBatch(), right), ElementsAre("1,a", "2,c"));
  strings.type = JoinType::kLeftAnti;
  EXPECT_THAT(Join(strings, LeftBatch(), right), ElementsAre("2,b", "4,e", "NULL,d"));
}

TEST(HashJoinTest, ResidualConditionAppliesPerPairWhenTheLeftSideIsBuilt) {
  // Over left columns (0, 1) then right columns (2, 3), as for the other form.
  auto is_x = expr::Compare(ComparisonOperator::kEqual, expr::Column(3, StringType()),
                            expr::Literal(Scalar::String("x")));
  HashJoinSpec semi = BuildLeft(JoinType::kLeftSemi);
  semi.residual = is_x;
  EXPECT_THAT(Join(semi), ElementsAre("2,b", "2,c"));
  HashJoinSpec anti = BuildLeft(JoinType::kLeftAnti);
  anti.residual = is_x;
  EXPECT_THAT(Join(anti), ElementsAre("1,a", "4,e", "NULL,d"));
  // A condition on both sides, left value <> right value AND left value > 'b': only (2,c)'s
  // pairs with x and y hold it.
  auto left_not_b = expr::Compare(ComparisonOperator::kNotEqual, expr::Column(1, StringType()),
                                  expr::Column(3, StringType()));
  auto greater = expr::Compare(ComparisonOperator::kGreater, expr::Column(1, StringType()),
                               expr::Literal(Scalar::String("b")));
  semi.residual = expr::And(left_not_b, greater);
  EXPECT_THAT(Join(semi), ElementsAre("2,c"));
  anti.residual = semi.residual;
  EXPECT_THAT(Join(anti), ElementsAre("1,a", "2,b", "4,e", "NULL,d"));
}

TEST(HashJoinTest, EmptySidesWhenTheLeftSideIsBuilt) {
  OperatorPtr semi = MakeHashJoin(Source({LeftBatch()}), EmptySource(RightBatch()),
                                  BuildLeft(JoinType::kLeftSemi));
  EXPECT_TRUE(Rows(*semi).empty());
  OperatorPtr anti = MakeHashJoin(Source({LeftBatch()}), EmptySource(RightBatch()),
                                  BuildLeft(JoinType::kLeftAnti));
  EXPECT_THAT(Rows(*anti), ElementsAre("1,a", "2,b", "2,c", "4,e", "NULL,d"));
  OperatorPtr empty_left = MakeHashJoin(EmptySource(LeftBatch()), Source({RightBatch()}),
                                        BuildLeft(JoinType::kLeftAnti));
  EXPECT_TRUE(Rows(*empty_left).empty());
  // Only semi and anti joins, and not NOT IN, build their left side.
  EXPECT_THROW(
      MakeHashJoin(Source({LeftBatch()}), Source({RightBatch()}), BuildLeft(JoinType::kInner)),
      Error);
  HashJoinSpec not_in = BuildLeft(JoinType::kLeftAnti);
  not_in.null_aware_anti = true;
  EXPECT_THROW(MakeHashJoin(Source({LeftBatch()}), Source({RightBatch()}), not_in), Error);
}

TEST(HashJoinTest, EmptyBuildSide) {
  OperatorPtr left_outer = MakeHashJoin(Source({LeftBatch()}), EmptySource(RightBatch()), Spec(JoinType::kLeftOuter));
  EXPECT_EQ(Rows(*left_outer).size(), 5u);
  OperatorPtr inner = MakeHashJoin(Source({LeftBatch()}), EmptySource(RightBatch()), Spec(JoinType::kInner));
  EXPECT_TRUE(Rows(*inner).empty());
}

TEST(HashJoinTest, ParallelProbeAndBuildMatchSerial) {
  std::vector<Batch> left, right;
  for (int b = 0; b < 20; ++b) {
    std::vector<std::optional<int64_t>> keys, values;
    for (int i = 0; i < 1000; ++i) {
      keys.push_back(i == 7 ? std::nullopt : std::optional<int64_t>((b * 1000 + i) % 500));
      values.push_back(b * 1000 + i);
    }
    left.push_back(expr::testing::MakeBatch({IntColumn(LongType(), keys), IntColumn(LongType(), values)}));
  }
  for (int b = 0; b < 3; ++b) {
    std::vector<std::optional<int64_t>> keys;
    for (int i = 0; i < 400; ++i) keys.push_back(b * 400 + i);
    right.push_back(expr::testing::MakeBatch({IntColumn(LongType(), keys)}));
  }
  for (JoinType type : {JoinType::kInner, JoinType::kFullOuter, JoinType::kLeftAnti}) {
    HashJoinSpec spec;
    spec.type = type;
    spec.left_keys = {expr::Column(0, LongType())};
    spec.right_keys = {expr::Column(0, LongType())};
    OperatorPtr serial = MakeHashJoin(Source(left), Source(right), spec);
    OperatorPtr parallel = MakeHashJoin(Source(left), Source(right), spec);
    std::vector<std::string> serial_rows = Rows(*serial, 1);
    EXPECT_EQ(serial_rows, Rows(*parallel, 2));
    if (type == JoinType::kInner) {
      EXPECT_EQ(serial_rows.size(), 19980u);  // 20 NULL keys
    } else if (type == JoinType::kFullOuter) {
      EXPECT_EQ(serial_rows.size(), 19980u + 20u + 700u);
    } else if (type == JoinType::kLeftAnti) {
      EXPECT_EQ(serial_rows.size(), 20u);
    }
  }
}

TEST(HashJoinTest, ParallelPullsProbeOnTheCallingThreads) {
  std::vector<Batch> left, right;
  for (int b = 0; b < 30; ++b) {
    std::vector<std::optional<int64_t>> keys, values;
    for (int i = 0; i < 500; ++i) {
      keys.push_back(i == 3 ? std::nullopt : std::optional<int64_t>((b * 500 + i) % 900));
      values.push_back(b * 500 + i);
    }
    left.push_back(expr::testing::MakeBatch({IntColumn(LongType(), keys), IntColumn(LongType(), values)}));
  }
  for (int b = 0; b < 4; ++b) {
    std::vector<std::optional<int64_t>> build_keys;
    for (int i = 0; i < 150; ++i) build_keys.push_back((b * 150 + i) % 300 * 2);  // even keys, twice
    right.push_back(expr::testing::MakeBatch({IntColumn(LongType(), build_keys)}));
  }
  for (JoinType type : {JoinType::kInner, JoinType::kLeftOuter, JoinType::kRightOuter, JoinType::kFullOuter,
                        JoinType::kLeftSemi, JoinType::kLeftAnti}) {
    HashJoinSpec spec;
    spec.type = type;
    spec.left_keys = {expr::Column(0, LongType())};
    spec.right_keys = {expr::Column(0, LongType())};
    OperatorPtr serial = MakeHashJoin(Source(left), Source(right), spec);
    std::vector<std::string> expected = Rows(*serial, 1);
    EXPECT_FALSE(expected.empty());
    // The probe side pulled in parallel, with the build side pulled serially or in parallel.
    for (bool parallel_build : {false, true}) {
      OperatorPtr parallel = MakeHashJoin(Source(left, true), Source(right, parallel_build), spec);
      ASSERT_TRUE(parallel->EnableParallelNext());
      EXPECT_EQ(RowsPulledInParallel(*parallel, 3), expected) << JoinTypeName(type);
    }
    // A serial probe over a build side pulled in parallel.
    OperatorPtr parallel_build_only = MakeHashJoin(Source(left), Source(right, true), spec);
    EXPECT_EQ(Rows(*parallel_build_only, 2), expected) << JoinTypeName(type);
  }
  // A probe side that cannot be pulled in parallel stays serial.
  EXPECT_FALSE(MakeHashJoin(Source({LeftBatch()}), Source({RightBatch()}), Spec(JoinType::kInner))->EnableParallelNext());
}

TEST(HashJoinTest, ParallelProbesMarkTheLeftRowsTheyMatch) {
  // 1,000 left rows (keys 0..499 twice, every 97th NULL) built; 40 batches of right rows probing
  // them from three threads, many rows to one key.
  std::vector<std::optional<int64_t>> left_keys, left_values;
  for (int i = 0; i < 1000; ++i) {
    left_keys.push_back(i % 97 == 0 ? std::nullopt : std::optional<int64_t>(i % 500));
    left_values.push_back(i);
  }
  std::vector<Batch> left = {expr::testing::MakeBatch(
      {IntColumn(LongType(), left_keys), IntColumn(LongType(), left_values)})};
  std::vector<Batch> right;
  for (int b = 0; b < 40; ++b) {
    std::vector<std::optional<int64_t>> keys, values;
    for (int i = 0; i < 500; ++i) {
      keys.push_back(i == 5 ? std::nullopt : std::optional<int64_t>((b * 7 + i * 3) % 800));
      values.push_back((b * 500 + i) % 1100);
    }
    right.push_back(
        expr::testing::MakeBatch({IntColumn(LongType(), keys), IntColumn(LongType(), values)}));
  }
  for (JoinType type : {JoinType::kLeftSemi, JoinType::kLeftAnti}) {
    for (bool residual : {false, true}) {
      HashJoinSpec spec;
      spec.type = type;
      spec.left_keys = {expr::Column(0, LongType())};
      spec.right_keys = {expr::Column(0, LongType())};
      if (residual) {  // left value < right value
        spec.residual = expr::Compare(ComparisonOperator::kLess, expr::Column(1, LongType()),
                                      expr::Column(3, LongType()));
      }
      OperatorPtr serial = MakeHashJoin(Source(left), Source(right), spec);
      std::vector<std::string> expected = Rows(*serial, 1);
      EXPECT_FALSE(expected.empty());
      spec.build_left = true;
      SCOPED_TRACE(JoinTypeName(type) + (residual ? " with residual" : ""));
      // Only the right side allows parallel pulls: the join probes with it.
      OperatorPtr parallel = MakeHashJoin(Source(left), Source(right, true), spec);
      ASSERT_TRUE(parallel->EnableParallelNext());
      EXPECT_EQ(RowsPulledInParallel(*parallel, 3), expected);
      OperatorPtr probed_on_workers = MakeHashJoin(Source(left), Source(right), spec);
      EXPECT_EQ(Rows(*probed_on_workers, 2), expected);
    }
  }
}

TEST(HashJoinTest, AFailedBuildFailsEveryParallelCaller) {
  // The build key 1 / (k - 2) divides by zero under ANSI: each pulling thread gets the error,
  // none sees an empty build table.
  std::vector<Batch> left;
  for (int b = 0; b < 8; ++b) left.push_back(expr::testing::MakeBatch({IntColumn(LongType(), {1, 2, 3})}));
  Batch right = expr::testing::MakeBatch({IntColumn(LongType(), {1, 2, 3})});
  HashJoinSpec spec;
  spec.type = JoinType::kInner;
  spec.left_keys = {expr::Column(0, LongType())};
  spec.right_keys = {expr::Arithmetic(expr::ArithmeticOperator::kDivide, expr::Literal(Scalar::Long(1)),
                                      expr::Arithmetic(expr::ArithmeticOperator::kSubtract,
                                                       expr::Column(0, LongType()),
                                                       expr::Literal(Scalar::Long(2))))};
  spec.left_keys[0] = expr::Cast(spec.left_keys[0], spec.right_keys[0]->type());
  OperatorPtr join = MakeHashJoin(Source(left, true), Source({right}), spec);
  ASSERT_TRUE(join->EnableParallelNext());
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  std::atomic<int> failures{0};
  std::atomic<int> batches{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; ++t) {
    workers.emplace_back([&] {
      ExecContext own = context;
      try {
        while (join->Next(own)) ++batches;
      } catch (const Error& error) {
        if (std::string(error.error_class()) == "DIVIDE_BY_ZERO") ++failures;
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  EXPECT_EQ(failures.load(), 3);
  EXPECT_EQ(batches.load(), 0);
}

TEST(HashJoinTest, IntegerKeysInsideOutsideAndAcrossTheBuildRange) {
  // A narrow build range (with a bitmap), negative keys, and probes below, above, inside but
  // absent, and present.
  Batch build = expr::testing::MakeBatch({IntColumn(LongType(), {-5, -3, 0, 7, 7, std::nullopt, 12})});
  Batch probe = expr::testing::MakeBatch(
      {IntColumn(LongType(), {-6, -5, -4, -3, 0, 1, 7, 11, 12, 13, std::nullopt, INT64_MIN, INT64_MAX})});
  HashJoinSpec spec;
  spec.type = JoinType::kLeftSemi;
  spec.left_keys = {expr::Column(0, LongType())};
  spec.right_keys = {expr::Column(0, LongType())};
  EXPECT_THAT(Join(spec, probe, build), ElementsAre("-3", "-5", "0", "12", "7"));
  // A range too wide for a bitmap: the extremes themselves.
  Batch wide = expr::testing::MakeBatch({IntColumn(LongType(), {INT64_MIN, 0, INT64_MAX})});
  EXPECT_THAT(Join(spec, probe, wide), ElementsAre("-9223372036854775808", "0", "9223372036854775807"));
  spec.type = JoinType::kLeftAnti;
  EXPECT_THAT(Join(spec, probe, build), ElementsAre("-4", "-6", "-9223372036854775808", "1", "11", "13",
                                                   "9223372036854775807", "NULL"));
}

TEST(HashJoinTest, Describe) {
  OperatorPtr join = MakeHashJoin(Source({LeftBatch()}), Source({RightBatch()}), Spec(JoinType::kInner));
  std::string key = expr::Column(0, IntegerType())->ToString();
  EXPECT_EQ(join->Describe(), "HashJoin Inner [" + key + "] = [" + key + "]");
  EXPECT_EQ(join->children().size(), 2u);
  OperatorPtr semi =
      MakeHashJoin(Source({LeftBatch()}), Source({RightBatch()}), BuildLeft(JoinType::kLeftSemi));
  EXPECT_EQ(semi->Describe(), "HashJoin LeftSemi [" + key + "] = [" + key + "] (build left)");
}

Batch Bag(const std::vector<std::optional<int64_t>>& values) {
  return expr::testing::MakeBatch({IntColumn(LongType(), values)});
}

std::vector<std::string> SetOp(SetOperation operation, bool all, const std::vector<std::optional<int64_t>>& left,
                               const std::vector<std::optional<int64_t>>& right) {
  OperatorPtr op = MakeSetOperation(Source({Bag(left), Bag(left)}), Source({Bag(right)}), operation, all);
  return Rows(*op);
}

TEST(SetOperationTest, IntersectAndExceptWithAndWithoutAll) {
  // The left input is the list twice: {1 x4, 2 x2, NULL x2, 3 x2}.
  const std::vector<std::optional<int64_t>> left = {1, 1, 2, std::nullopt, 3};
  const std::vector<std::optional<int64_t>> right = {1, 1, 1, std::nullopt, 4, 3, 3, 3};
  EXPECT_THAT(SetOp(SetOperation::kIntersect, false, left, right), ElementsAre("1", "3", "NULL"));
  EXPECT_THAT(SetOp(SetOperation::kExcept, false, left, right), ElementsAre("2"));
  EXPECT_THAT(SetOp(SetOperation::kIntersect, true, left, right), ElementsAre("1", "1", "1", "3", "3", "NULL"));
  EXPECT_THAT(SetOp(SetOperation::kExcept, true, left, right), ElementsAre("1", "2", "2", "NULL"));
  OperatorPtr op = MakeSetOperation(Source({Bag(left)}), Source({Bag(right)}), SetOperation::kExcept, true);
  EXPECT_EQ(op->Describe(), "Except All");
}

TEST(DistinctTest, KeepsFirstOccurrenceOfEveryRow) {
  Batch first = expr::testing::MakeBatch(
      {IntColumn(IntegerType(), {1, 1, std::nullopt, std::nullopt}), StringColumn({"a", "a", std::nullopt, "b"})});
  Batch second = expr::testing::MakeBatch({IntColumn(IntegerType(), {1, 2}), StringColumn({"a", "a"})});
  OperatorPtr distinct = MakeDistinct(Source({first, second}));
  EXPECT_THAT(Rows(*distinct), ElementsAre("1,a", "2,a", "NULL,NULL", "NULL,b"));
  EXPECT_EQ(distinct->Describe(), "Distinct");
}

}  // namespace
}  // namespace silt::exec
