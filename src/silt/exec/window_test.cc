#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/test_source_internal.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/vector/batch.h"

namespace silt::exec {
namespace {

using expr::Scalar;
using expr::testing::DoubleColumn;
using expr::testing::IntColumn;
using expr::testing::StringColumn;
using ::testing::ElementsAre;
using Bound = WindowFrame::Bound;
using BoundKind = WindowFrame::BoundKind;

using exec::testing::TestSource;

Batch NamedBatch(const std::vector<VectorPtr>& columns, const std::vector<std::string>& names) {
  std::vector<Field> fields;
  for (size_t i = 0; i < columns.size(); ++i)
    fields.push_back(Field{names[i], columns[i]->type(), true, {}});
  return Batch(std::make_shared<Schema>(std::move(fields)), columns,
               columns.empty() ? 0 : columns[0]->length());
}

expr::ExpressionPtr Col(const Batch& batch, int index) {
  return expr::Column(index, batch.column(static_cast<size_t>(index))->type());
}

WindowCall Call(std::string function, std::vector<expr::ExpressionPtr> arguments,
                DataTypePtr result_type, std::optional<WindowFrame> frame = std::nullopt,
                bool ignore_nulls = false) {
  WindowCall call;
  call.function = std::move(function);
  call.arguments = std::move(arguments);
  call.result_type = std::move(result_type);
  call.frame = std::move(frame);
  call.ignore_nulls = ignore_nulls;
  return call;
}

Bound Preceding(int64_t n) { return Bound{BoundKind::kPreceding, Scalar::Long(n)}; }
Bound Following(int64_t n) { return Bound{BoundKind::kFollowing, Scalar::Long(n)}; }
Bound Current() { return Bound{BoundKind::kCurrentRow, std::nullopt}; }
Bound UnboundedPreceding() { return Bound{BoundKind::kUnboundedPreceding, std::nullopt}; }
Bound UnboundedFollowing() { return Bound{BoundKind::kUnboundedFollowing, std::nullopt}; }
WindowFrame Rows(Bound start, Bound end) {
  return WindowFrame{WindowFrame::Unit::kRows, start, end};
}
WindowFrame Range(Bound start, Bound end) {
  return WindowFrame{WindowFrame::Unit::kRange, start, end};
}

// Runs a window and returns each output row's values of `columns` joined by ",".
// With `split`, the input arrives as two batches (slices of `input`) instead of one.
std::vector<std::string> WindowRows(const Batch& input, WindowOrdering ordering,
                                    std::vector<WindowCall> calls, std::vector<int> columns,
                                    expr::EvalContext eval = {},
                                    std::optional<int64_t> split = std::nullopt) {
  std::vector<std::string> names;
  for (size_t c = 0; c < calls.size(); ++c) names.push_back("w" + std::to_string(c));
  std::vector<Batch> pieces = {input};
  if (split) pieces = {input.Slice(0, *split), input.Slice(*split, input.num_rows() - *split)};
  OperatorPtr window = MakeWindow(std::make_unique<TestSource>(input.schema(), pieces),
                                  std::move(ordering), std::move(calls), names);
  ExecContext context;
  context.eval = eval;
  std::vector<std::string> rows;
  for (const Batch& batch : Collect(*window, context)) {
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

// k: partition key (with a NULL), v: order key with ties, x: a value with NULLs.
Batch SampleBatch() {
  return NamedBatch({StringColumn({"a", "b", "a", std::nullopt, "a", "b", "a", std::nullopt}),
                     IntColumn(IntegerType(), {3, 1, 1, 5, 3, 2, 2, 4}),
                     IntColumn(LongType(), {30, 10, std::nullopt, 50, 31, 20, 20, std::nullopt})},
                    {"k", "v", "x"});
}

TEST(WindowTest, RankingFunctionsWithPeersAndNullPartition) {
  Batch batch = SampleBatch();
  WindowOrdering ordering{{0}, {{1, true, true}}};
  std::vector<WindowCall> calls = {
      Call("row_number", {}, IntegerType()), Call("rank", {}, IntegerType()),
      Call("dense_rank", {}, IntegerType()), Call("percent_rank", {}, DoubleType()),
      Call("cume_dist", {}, DoubleType())};
  std::vector<std::string> in_two_batches =
      WindowRows(batch, ordering, calls, {0, 1, 3, 4, 5, 6, 7}, {}, 3);
  EXPECT_EQ(WindowRows(batch, ordering, calls, {0, 1, 3, 4, 5, 6, 7}), in_two_batches);
  EXPECT_THAT(
      in_two_batches,
      ElementsAre("NULL,4,1,1,1,0.0,0.5", "NULL,5,2,2,2,1.0,1.0", "a,1,1,1,1,0.0,0.25",
                  "a,2,2,2,2,0.3333333333333333,0.5", "a,3,3,3,3,0.6666666666666666,1.0",
                  "a,3,4,3,3,0.6666666666666666,1.0", "b,1,1,1,1,0.0,0.5", "b,2,2,2,2,1.0,1.0"));
}

TEST(WindowTest, NtileSplitsLikeSpark) {
  Batch batch = NamedBatch({IntColumn(IntegerType(), {1, 2, 3, 4, 5, 6, 7})}, {"v"});
  WindowOrdering ordering{{}, {{0, true, true}}};
  EXPECT_THAT(WindowRows(batch, ordering,
                         {Call("ntile", {expr::Literal(Scalar::Integer(3))}, IntegerType())}, {1}),
              ElementsAre("1", "1", "1", "2", "2", "3", "3"));
  EXPECT_THAT(WindowRows(batch, ordering,
                         {Call("ntile", {expr::Literal(Scalar::Integer(10))}, IntegerType())}, {1}),
              ElementsAre("1", "2", "3", "4", "5", "6", "7"));
  try {
    WindowRows(batch, ordering, {Call("ntile", {expr::Literal(Scalar::Integer(0))}, IntegerType())},
               {1});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DATATYPE_MISMATCH");
  }
}

TEST(WindowTest, LagAndLeadWithOffsetAndDefault) {
  Batch batch = SampleBatch();
  WindowOrdering ordering{{0}, {{1, true, true}, {2, true, true}}};
  std::vector<WindowCall> calls = {
      Call("lag", {Col(batch, 2)}, LongType()),
      Call("lead",
           {Col(batch, 2), expr::Literal(Scalar::Integer(2)), expr::Literal(Scalar::Long(-1))},
           LongType()),
      Call("lag", {Col(batch, 2), expr::Literal(Scalar::Integer(-1)), Col(batch, 2)}, LongType())};
  EXPECT_THAT(WindowRows(batch, ordering, calls, {0, 2, 3, 4, 5}, {}, 5),
              ElementsAre("NULL,NULL,NULL,-1,50", "NULL,50,NULL,-1,50", "a,NULL,NULL,30,20",
                          "a,20,NULL,31,30", "a,30,20,-1,31", "a,31,30,-1,31", "b,10,NULL,-1,20",
                          "b,20,10,-1,20"));
}

TEST(WindowTest, FirstLastAndNthValueWithAndWithoutIgnoreNulls) {
  Batch batch =
      NamedBatch({IntColumn(IntegerType(), {1, 2, 3, 4, 5}),
                  IntColumn(LongType(), {std::nullopt, 20, std::nullopt, 40, std::nullopt})},
                 {"v", "x"});
  WindowOrdering ordering{{}, {{0, true, true}}};
  std::vector<WindowCall> calls = {
      Call("first_value", {Col(batch, 1)}, LongType()),
      Call("first_value", {Col(batch, 1)}, LongType(), std::nullopt, true),
      Call("last_value", {Col(batch, 1)}, LongType()),
      Call("last", {Col(batch, 1)}, LongType(), Rows(UnboundedPreceding(), UnboundedFollowing()),
           true),
      Call("nth_value", {Col(batch, 1), expr::Literal(Scalar::Integer(2))}, LongType()),
      Call("nth_value", {Col(batch, 1), expr::Literal(Scalar::Integer(2))}, LongType(),
           std::nullopt, true)};
  EXPECT_THAT(
      WindowRows(batch, ordering, calls, {2, 3, 4, 5, 6, 7}),
      ElementsAre("NULL,NULL,NULL,40,NULL,NULL", "NULL,20,20,40,20,NULL", "NULL,20,NULL,40,20,NULL",
                  "NULL,20,40,40,20,40", "NULL,20,NULL,40,20,40"));
}

TEST(WindowTest, DefaultFramesIncludePeersOrTheWholePartition) {
  Batch batch = SampleBatch();
  std::vector<WindowCall> calls = {Call("sum", {Col(batch, 2)}, LongType()),
                                   Call("count", {Col(batch, 2)}, LongType()),
                                   Call("count", {}, LongType())};
  EXPECT_THAT(WindowRows(batch, WindowOrdering{{0}, {{1, true, true}}}, calls, {0, 1, 3, 4, 5}),
              ElementsAre("NULL,4,NULL,0,1", "NULL,5,50,1,2", "a,1,NULL,0,1", "a,2,20,1,2",
                          "a,3,81,3,4", "a,3,81,3,4", "b,1,10,1,1", "b,2,30,2,2"));
  std::vector<std::string> unordered =
      WindowRows(batch, WindowOrdering{{0}, {}}, calls, {0, 3, 4, 5});
  EXPECT_THAT(unordered, ElementsAre("NULL,50,1,2", "NULL,50,1,2", "a,81,3,4", "a,81,3,4",
                                     "a,81,3,4", "a,81,3,4", "b,30,2,2", "b,30,2,2"));
}

TEST(WindowTest, RowsFramesSlide) {
  Batch batch = NamedBatch({IntColumn(IntegerType(), {1, 2, 3, 4, 5, 6}),
                            IntColumn(LongType(), {5, std::nullopt, 1, 9, 2, 7})},
                           {"v", "x"});
  WindowOrdering ordering{{}, {{0, true, true}}};
  std::vector<WindowCall> calls = {
      Call("sum", {Col(batch, 1)}, LongType(), Rows(Preceding(1), Following(1))),
      Call("min", {Col(batch, 1)}, LongType(), Rows(Preceding(2), Current())),
      Call("max", {Col(batch, 1)}, LongType(), Rows(Current(), Following(2))),
      Call("count", {Col(batch, 1)}, LongType(), Rows(Following(2), Following(3))),
      Call("sum", {Col(batch, 1)}, LongType(), Rows(Current(), UnboundedFollowing())),
      Call("max", {Col(batch, 1)}, LongType(), Rows(UnboundedPreceding(), Preceding(1)))};
  EXPECT_THAT(WindowRows(batch, ordering, calls, {1, 2, 3, 4, 5, 6, 7}),
              ElementsAre("5,5,5,5,2,24,NULL", "NULL,6,5,9,2,19,5", "1,10,1,9,2,19,5",
                          "9,12,1,9,1,18,5", "2,18,1,7,0,9,9", "7,9,2,7,0,7,9"));
}

TEST(WindowTest, RangeFramesWithValueOffsetsAndNullKeys) {
  Batch batch = NamedBatch({IntColumn(IntegerType(), {1, 2, 2, 4, 7, std::nullopt, std::nullopt}),
                            IntColumn(LongType(), {1, 10, 100, 1000, 10000, 100000, 1000000})},
                           {"v", "x"});
  std::vector<WindowCall> calls = {
      Call("sum", {Col(batch, 1)}, LongType(), Range(Preceding(1), Following(2))),
      Call("sum", {Col(batch, 1)}, LongType(), Range(Current(), Current())),
      Call("sum", {Col(batch, 1)}, LongType(), Range(UnboundedPreceding(), Preceding(2)))};
  EXPECT_THAT(WindowRows(batch, WindowOrdering{{}, {{0, true, false}}}, calls, {0, 2, 3, 4}),
              ElementsAre("1,111,1,NULL", "2,1111,110,NULL", "2,1111,110,NULL", "4,1000,1000,111",
                          "7,10000,10000,1111", "NULL,1100000,1100000,1111111",
                          "NULL,1100000,1100000,1111111"));
  // Descending: PRECEDING means larger keys.
  EXPECT_THAT(WindowRows(batch, WindowOrdering{{}, {{0, false, true}}}, calls, {0, 2, 3}),
              ElementsAre("NULL,1100000,1100000", "NULL,1100000,1100000", "7,10000,10000",
                          "4,1110,1000", "2,111,110", "2,111,110", "1,111,1"));
}

TEST(WindowTest, RangeFrameOverDatesAndDoubles) {
  Batch batch = NamedBatch(
      {IntColumn(DateType(), {0, 1, 3, 10}), DoubleColumn({0.5, 1.0, 1.5, 2.0})}, {"d", "x"});
  WindowFrame last_two_days = Range(Preceding(2), Current());
  EXPECT_THAT(WindowRows(batch, WindowOrdering{{}, {{0, true, true}}},
                         {Call("sum", {Col(batch, 1)}, DoubleType(), last_two_days)}, {2}),
              ElementsAre("0.5", "1.5", "2.5", "2.0"));
  WindowFrame within_half{WindowFrame::Unit::kRange,
                          {BoundKind::kPreceding, Scalar::Double(0.5)},
                          {BoundKind::kFollowing, Scalar::Double(0.5)}};
  EXPECT_THAT(WindowRows(batch, WindowOrdering{{}, {{1, true, true}}},
                         {Call("count", {}, LongType(), within_half)}, {2}),
              ElementsAre("2", "3", "3", "2"));
}

TEST(WindowTest, AverageStatisticsAndDecimals) {
  VectorBuilder decimals(DecimalType(5, 2));
  for (int64_t v : {100, 200, 250}) decimals.AppendDecimal(v);
  Batch batch = NamedBatch(
      {IntColumn(IntegerType(), {1, 2, 3}), DoubleColumn({1.0, 2.0, 4.0}), decimals.Finish()},
      {"v", "x", "m"});
  WindowOrdering ordering{{}, {{0, true, true}}};
  std::vector<WindowCall> calls = {Call("avg", {Col(batch, 1)}, DoubleType()),
                                   Call("stddev_samp", {Col(batch, 1)}, DoubleType()),
                                   Call("var_pop", {Col(batch, 1)}, DoubleType()),
                                   Call("avg", {Col(batch, 2)}, DecimalType(9, 6)),
                                   Call("sum", {Col(batch, 2)}, DecimalType(15, 2))};
  EXPECT_THAT(
      WindowRows(batch, ordering, calls, {3, 4, 5, 6, 7}),
      ElementsAre("1.0,NULL,0.0,1.000000,1.00", "1.5,0.7071067811865476,0.25,1.500000,3.00",
                  "2.3333333333333335,1.5275252316519465,1.5555555555555554,1.833333,5.50"));
  // A sliding frame removes rows from the statistics.
  EXPECT_THAT(
      WindowRows(batch, ordering,
                 {Call("var_samp", {Col(batch, 1)}, DoubleType(), Rows(Current(), Following(1)))},
                 {3}),
      ElementsAre("0.5", "2.0", "NULL"));
}

TEST(WindowTest, SumOverflowFollowsAnsiMode) {
  Batch batch =
      NamedBatch({IntColumn(LongType(), {std::numeric_limits<int64_t>::max(), 1})}, {"x"});
  std::vector<WindowCall> calls = {Call("sum", {Col(batch, 0)}, LongType())};
  try {
    WindowRows(batch, WindowOrdering{}, calls, {1});
    FAIL() << "expected an overflow";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "ARITHMETIC_OVERFLOW");
  }
  expr::EvalContext legacy;
  legacy.ansi = false;
  EXPECT_THAT(WindowRows(batch, WindowOrdering{}, calls, {1}, legacy),
              ElementsAre("-9223372036854775808", "-9223372036854775808"));
}

TEST(WindowTest, InvalidFramesAndFunctionsAreRejected) {
  Batch batch = SampleBatch();
  auto error_of = [&](WindowOrdering ordering, WindowCall call) -> std::string {
    try {
      MakeWindow(std::make_unique<TestSource>(batch.schema(), std::vector<Batch>{}),
                 std::move(ordering), {call}, {"w"});
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  };
  EXPECT_EQ(error_of(WindowOrdering{{}, {{1, true, true}, {2, true, true}}},
                     Call("sum", {Col(batch, 2)}, LongType(), Range(Preceding(1), Current()))),
            "DATATYPE_MISMATCH");
  EXPECT_EQ(error_of(WindowOrdering{{}, {{0, true, true}}},
                     Call("sum", {Col(batch, 2)}, LongType(), Range(Preceding(1), Current()))),
            "DATATYPE_MISMATCH");
  EXPECT_EQ(error_of(WindowOrdering{{}, {{1, true, true}}},
                     Call("sum", {Col(batch, 2)}, LongType(), Rows(Preceding(-1), Current()))),
            "DATATYPE_MISMATCH");
  EXPECT_EQ(error_of(WindowOrdering{{}, {}}, Call("median_of_medians", {}, LongType())),
            "UNRESOLVED_ROUTINE");
  EXPECT_EQ(error_of(WindowOrdering{{}, {}}, Call("lag", {}, LongType())), "WRONG_NUM_ARGS");
}

// collect_list over frames that grow (one accumulator for the partition) and that slide
// (each frame afresh), against the frame's rows picked by hand.
TEST(WindowTest, AggregatesWithoutSlidingStateRunOverEveryFrame) {
  Batch batch = SampleBatch();
  WindowOrdering ordering{{0}, {{1, true, true}, {2, true, true}}};
  DataTypePtr list = ListType(LongType(), false);
  std::vector<WindowCall> calls = {
      Call("collect_list", {Col(batch, 2)}, list, Rows(UnboundedPreceding(), Current())),
      Call("collect_list", {Col(batch, 2)}, list, Rows(Preceding(1), Following(1))),
      Call("max_by", {Col(batch, 1), Col(batch, 2)}, IntegerType(), Rows(UnboundedPreceding(), Current())),
      Call("regr_count", {expr::Cast(Col(batch, 1), DoubleType()), expr::Cast(Col(batch, 2), DoubleType())},
           LongType(), Rows(Current(), UnboundedFollowing()))};
  EXPECT_THAT(WindowRows(batch, ordering, calls, {0, 1, 2, 3, 4, 5, 6}),
              ElementsAre("NULL,4,NULL,[],[50],NULL,1", "NULL,5,50,[50],[50],5,1", "a,1,NULL,[],[20],NULL,3",
                          "a,2,20,[20],[20, 30],2,3", "a,3,30,[20, 30],[20, 30, 31],3,2",
                          "a,3,31,[20, 30, 31],[30, 31],3,1", "b,1,10,[10],[10, 20],1,2",
                          "b,2,20,[10, 20],[10, 20],2,1"));
}

TEST(WindowTest, DistinctAndFilterAggregatesOverFrames) {
  Batch batch = NamedBatch({IntColumn(IntegerType(), {1, 2, 3, 4, 5}), IntColumn(LongType(), {7, 7, 8, 7, 9})},
                           {"o", "x"});
  WindowOrdering ordering{{}, {{0, true, true}}};
  WindowCall distinct = Call("count", {Col(batch, 1)}, LongType(), Rows(UnboundedPreceding(), Current()));
  distinct.distinct = true;
  WindowCall filtered = Call("sum", {Col(batch, 1)}, LongType(), Rows(Preceding(1), Current()));
  filtered.filter = expr::Compare(expr::ComparisonOperator::kGreater, Col(batch, 0), expr::Literal(Scalar::Integer(2)));
  EXPECT_THAT(WindowRows(batch, ordering, {distinct, filtered}, {0, 2, 3}),
              ElementsAre("1,1,NULL", "2,1,NULL", "3,2,8", "4,2,15", "5,3,16"));
}

TEST(WindowTest, LagAndLeadIgnoreNulls) {
  Batch batch = NamedBatch({IntColumn(IntegerType(), {1, 2, 3, 4, 5, 6}),
                            IntColumn(LongType(), {std::nullopt, 10, std::nullopt, std::nullopt, 40, 50})},
                           {"o", "x"});
  WindowOrdering ordering{{}, {{0, true, true}}};
  auto offset_call = [&](const char* name, int offset) {
    return Call(name, {Col(batch, 1), expr::Literal(Scalar::Integer(offset)), expr::Literal(Scalar::Null(LongType()))},
                LongType(), std::nullopt, true);
  };
  EXPECT_THAT(WindowRows(batch, ordering,
                         {offset_call("lag", 1), offset_call("lead", 1), offset_call("lag", 2), offset_call("lead", 2),
                          offset_call("lag", 0)},
                         {0, 2, 3, 4, 5, 6}),
              ElementsAre("1,NULL,10,NULL,40,NULL", "2,NULL,40,NULL,50,10", "3,10,40,NULL,50,NULL",
                          "4,10,40,NULL,50,NULL", "5,10,50,NULL,NULL,40", "6,40,NULL,10,NULL,50"));
}

TEST(WindowTest, ResolvesSparkResultTypes) {
  EXPECT_EQ(ResolveWindowFunction("ROW_NUMBER", {})->ToString(), "int");
  EXPECT_EQ(ResolveWindowFunction("cume_dist", {})->ToString(), "double");
  EXPECT_EQ(ResolveWindowFunction("lag", {StringType(), IntegerType(), StringType()})->ToString(),
            "string");
  EXPECT_EQ(ResolveWindowFunction("sum", {IntegerType()})->ToString(), "bigint");
  EXPECT_TRUE(IsWindowFunction("Dense_Rank"));
  EXPECT_TRUE(IsWindowFunction("first_value"));
  EXPECT_FALSE(IsWindowFunction("sum"));
  try {
    ResolveWindowFunction("rank", {IntegerType()});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "WRONG_NUM_ARGS");
  }
}

TEST(WindowTest, EmptyInputAndDescribe) {
  Batch batch = SampleBatch();
  OperatorPtr window =
      MakeWindow(std::make_unique<TestSource>(batch.schema(), std::vector<Batch>{}),
                 WindowOrdering{{0}, {{1, false, false}}},
                 {Call("row_number", {}, IntegerType()), Call("sum", {Col(batch, 2)}, LongType())},
                 {"rn", "s"});
  ExecContext context;
  EXPECT_FALSE(window->Next(context).has_value());
  EXPECT_EQ(
      window->Describe(),
      "Window [row_number() AS rn, sum(x#2) AS s], [partition: k#0], [order: v#1 DESC NULLS LAST]");
  EXPECT_EQ(window->schema()->num_fields(), 5u);
  EXPECT_FALSE(window->schema()->field(3).nullable);
  EXPECT_TRUE(window->schema()->field(4).nullable);

  WindowCall distinct = Call("count", {Col(batch, 2)}, LongType());
  distinct.distinct = true;
  distinct.filter = expr::Compare(expr::ComparisonOperator::kGreater, Col(batch, 1), expr::Literal(Scalar::Integer(2)));
  OperatorPtr filtered = MakeWindow(std::make_unique<TestSource>(batch.schema(), std::vector<Batch>{}),
                                    WindowOrdering{{0}, {}},
                                    {distinct, Call("lag", {Col(batch, 2), expr::Literal(Scalar::Integer(1)),
                                                            expr::Literal(Scalar::Null(LongType()))},
                                                    LongType(), std::nullopt, true)},
                                    {"c", "l"});
  EXPECT_THAT(filtered->Describe(),
              ::testing::AllOf(::testing::HasSubstr("count(distinct x#2) FILTER (WHERE "),
                               ::testing::HasSubstr("lag(x#2, 1, NULL) IGNORE NULLS AS l")));
}

// The deduplication the benchmark runs: the newest row per id, over 1M rows in several batches.
TEST(WindowTest, DedupeOfOneMillionRows) {
  constexpr int64_t kRows = 1000000;
  constexpr int64_t kIds = kRows / 2;
  std::mt19937_64 random(11);
  std::vector<Batch> batches;
  Batch first;
  for (int64_t start = 0; start < kRows; start += 100000) {
    VectorBuilder ids(LongType()), times(TimestampType()), amounts(DoubleType()),
        names(StringType());
    for (int64_t r = start; r < start + 100000; ++r) {
      ids.AppendInt(static_cast<int64_t>(random() % kIds));
      times.AppendInt(1700000000000000 + static_cast<int64_t>(random() % 1000000000));
      amounts.AppendDouble(static_cast<double>(r));
      names.AppendString("name" + std::to_string(r % 1000));
    }
    batches.push_back(NamedBatch({ids.Finish(), times.Finish(), amounts.Finish(), names.Finish()},
                                 {"id", "updated_at", "amount", "name"}));
  }
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  SchemaPtr schema = batches[0].schema();
  auto started = std::chrono::steady_clock::now();
  OperatorPtr window = MakeWindow(std::make_unique<TestSource>(schema, batches),
                                  WindowOrdering{{0}, {{1, false, false}}},
                                  {Call("row_number", {}, IntegerType())}, {"rn"});
  int64_t rows = 0, firsts = 0, previous_id = -1;
  bool ordered = true;
  while (std::optional<Batch> batch = window->Next(context)) {
    const int64_t* ids = batch->column(0)->values<int64_t>();
    const int32_t* rn = batch->column(4)->values<int32_t>();
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      ordered = ordered && ids[r] >= previous_id;
      previous_id = ids[r];
      firsts += rn[r] == 1;
    }
    rows += batch->num_rows();
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("window row_number over %lld rows: %.3f s\n", static_cast<long long>(kRows), seconds);
  EXPECT_EQ(rows, kRows);
  EXPECT_TRUE(ordered);
  EXPECT_GT(firsts, kIds * 8 / 10);
  EXPECT_LE(firsts, kIds);
}

}  // namespace
}  // namespace silt::exec
