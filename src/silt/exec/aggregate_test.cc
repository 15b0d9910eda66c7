#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/exec/accumulator.h"
#include "silt/exec/aggregate_function.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/test_source_internal.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/vector/batch.h"

namespace silt::exec {
namespace {

using expr::Scalar;
using expr::testing::BoolColumn;
using expr::testing::DoubleColumn;
using expr::testing::IntColumn;
using expr::testing::StringColumn;
using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

using exec::testing::TestSource;

Batch MakeBatch(const std::vector<VectorPtr>& columns) { return expr::testing::MakeBatch(columns); }

VectorPtr DecimalColumn(int precision, int scale, const std::vector<std::optional<int64_t>>& unscaled) {
  VectorBuilder builder(DecimalType(precision, scale));
  for (const auto& value : unscaled) {
    if (value) {
      builder.AppendDecimal(*value);
    } else {
      builder.AppendNull();
    }
  }
  return builder.Finish();
}

expr::ExpressionPtr Col(const Batch& batch, int index) {
  return expr::Column(index, batch.column(static_cast<size_t>(index))->type());
}

AggregateCall Agg(std::string function, std::vector<expr::ExpressionPtr> arguments, bool distinct = false,
                  expr::ExpressionPtr filter = nullptr) {
  AggregateCall call;
  call.function = std::move(function);
  call.arguments = std::move(arguments);
  call.distinct = distinct;
  call.filter = std::move(filter);
  return call;
}

struct AggregateRun {
  std::vector<std::string> rows;  // values joined by ","
  SchemaPtr schema;
};

AggregateRun RunAggregate(const std::vector<Batch>& batches, std::vector<expr::ExpressionPtr> keys,
                 std::vector<AggregateCall> calls, size_t parallelism = 1, bool ansi = true,
                 bool parallel_source = false) {
  ThreadPool pool(2);
  ExecContext context;
  context.pool = &pool;
  context.parallelism = parallelism;
  context.eval.ansi = ansi;
  std::vector<std::string> key_names, names;
  for (size_t k = 0; k < keys.size(); ++k) key_names.push_back("k" + std::to_string(k));
  for (size_t a = 0; a < calls.size(); ++a) names.push_back("a" + std::to_string(a));
  OperatorPtr source = std::make_unique<TestSource>(batches.front().schema(), batches, parallel_source);
  OperatorPtr aggregate = MakeHashAggregate(std::move(source), std::move(keys), key_names, std::move(calls), names);
  AggregateRun run;
  run.schema = aggregate->schema();
  for (const Batch& batch : Collect(*aggregate, context)) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::string text;
      for (size_t c = 0; c < batch.num_columns(); ++c) text += (c ? "," : "") + batch.column(c)->ValueToString(row);
      run.rows.push_back(text);
    }
  }
  std::sort(run.rows.begin(), run.rows.end());
  return run;
}

TEST(AggregateFunctionTest, ResolvesSparkResultTypes) {
  EXPECT_TRUE(IsAggregateFunction("SUM"));
  EXPECT_TRUE(IsAggregateFunction("array_agg"));
  EXPECT_FALSE(IsAggregateFunction("upper"));
  EXPECT_EQ(ResolveAggregate("sum", {IntegerType()}, false).result_type->ToString(), "bigint");
  EXPECT_EQ(ResolveAggregate("sum", {DecimalType(10, 2)}, false).result_type->ToString(), "decimal(20,2)");
  EXPECT_EQ(ResolveAggregate("sum", {DecimalType(35, 2)}, false).result_type->ToString(), "decimal(38,2)");
  EXPECT_EQ(ResolveAggregate("sum", {FloatType()}, false).result_type->ToString(), "double");
  EXPECT_EQ(ResolveAggregate("avg", {DecimalType(10, 2)}, false).result_type->ToString(), "decimal(14,6)");
  EXPECT_EQ(ResolveAggregate("mean", {LongType()}, false).result_type->ToString(), "double");
  EXPECT_EQ(ResolveAggregate("count", {}, false).result_type->ToString(), "bigint");
  EXPECT_FALSE(ResolveAggregate("count", {StringType()}, true).nullable);
  EXPECT_EQ(ResolveAggregate("collect_list", {IntegerType()}, false).result_type->ToString(), "array<int>");
  EXPECT_EQ(ResolveAggregate("max", {DateType()}, false).result_type->ToString(), "date");
  EXPECT_EQ(ResolveAggregate("stddev", {IntegerType()}, false).argument_types[0]->ToString(), "double");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("sum", {StringType()}, false); }), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("bool_and", {IntegerType()}, false); }), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("min_by", {IntegerType()}, false); }), "WRONG_NUM_ARGS");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("median_of_nothing", {IntegerType()}, false); }),
            "UNRESOLVED_ROUTINE");
  EXPECT_EQ(ResolveAggregate("percentile", {IntegerType(), DecimalType(2, 1)}, false).result_type->ToString(), "double");
  EXPECT_EQ(ResolveAggregate("percentile", {LongType(), ListType(DoubleType())}, false).result_type->ToString(),
            "array<double>");
  EXPECT_EQ(ResolveAggregate("percentile_approx", {DateType(), DoubleType()}, false).result_type->ToString(), "date");
  EXPECT_EQ(ResolveAggregate("mode", {StringType()}, false).result_type->ToString(), "string");
  EXPECT_EQ(ResolveAggregate("regr_count", {IntegerType(), IntegerType()}, false).result_type->ToString(), "bigint");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("median", {StringType()}, false); }), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("percentile_cont", {IntegerType()}, false); }), "WRONG_NUM_ARGS");
  EXPECT_EQ(ErrorClassOf([] { ResolveAggregate("corr", {IntegerType(), StringType()}, false); }), "DATATYPE_MISMATCH");
}

TEST(AggregateFunctionTest, PercentagesMustBeConstantsInRange) {
  auto prepare = [](expr::ExpressionPtr percentage) {
    AggregateCall call = Agg("percentile", {expr::Column(0, DoubleType()), std::move(percentage)});
    expr::EvalContext context;
    PrepareAggregateArguments(call, context);
    return call;
  };
  AggregateCall folded = prepare(expr::Cast(expr::Literal(Scalar::Integer(1)), DoubleType()));
  ASSERT_EQ(folded.arguments[1]->kind(), expr::ExpressionKind::kLiteral);
  EXPECT_EQ(folded.arguments[1]->literal().GetDouble(), 1.0);
  EXPECT_EQ(ErrorClassOf([&] { prepare(expr::Literal(Scalar::Double(1.5))); }), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([&] { prepare(expr::Literal(Scalar::Null(DoubleType()))); }), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([&] { prepare(expr::Column(1, DoubleType())); }), "DATATYPE_MISMATCH");
}

TEST(AggregateFunctionTest, ToStringAsSparkPlans) {
  AggregateCall call = Agg("sum", {expr::Column(3, LongType())});
  EXPECT_EQ(call.ToString(), "sum(" + call.arguments[0]->ToString() + ")");
  EXPECT_EQ(Agg("count", {}).ToString(), "count(1)");
  EXPECT_THAT(Agg("count", {expr::Column(0, LongType())}, true).ToString(), ::testing::StartsWith("count(distinct "));
  AggregateCall disc = Agg("percentile_disc", {expr::Column(0, DoubleType()), expr::Literal(Scalar::Double(0.25))});
  disc.descending = true;
  EXPECT_EQ(disc.ToString(), "percentile_disc(0.25) WITHIN GROUP (ORDER BY " + disc.arguments[0]->ToString() + " DESC)");
}

TEST(HashAggregateTest, GlobalAggregatesSkipNulls) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {3, std::nullopt, 1, 5, std::nullopt})});
  auto x = Col(batch, 0);
  AggregateRun run = RunAggregate({batch}, {},
                         {Agg("count", {}), Agg("count", {x}), Agg("sum", {x}), Agg("avg", {x}), Agg("min", {x}),
                          Agg("max", {x})});
  EXPECT_THAT(run.rows, ElementsAre("5,3,9,3.0,1,5"));
  EXPECT_EQ(run.schema->field(2).type->ToString(), "bigint");
  EXPECT_FALSE(run.schema->field(0).nullable);
  EXPECT_TRUE(run.schema->field(2).nullable);
}

TEST(HashAggregateTest, EmptyInputWithoutKeysGivesOneRow) {
  Batch empty = MakeBatch({IntColumn(IntegerType(), {})});
  auto x = Col(empty, 0);
  AggregateRun run = RunAggregate({empty}, {},
                         {Agg("count", {}), Agg("sum", {x}), Agg("avg", {x}), Agg("max", {x}),
                          Agg("collect_list", {x}), Agg("count_if", {expr::Compare(expr::ComparisonOperator::kGreater, x,
                                                                                   expr::Literal(Scalar::Integer(0)))})});
  EXPECT_THAT(run.rows, ElementsAre("0,NULL,NULL,NULL,[],0"));
  // With keys, empty input gives no groups.
  EXPECT_TRUE(RunAggregate({empty}, {x}, {Agg("count", {})}).rows.empty());
}

TEST(HashAggregateTest, NullKeysFormOneGroupAndStringKeysGroup) {
  Batch batch = MakeBatch({StringColumn({"b", std::nullopt, "a", "b", std::nullopt, "a", "a"}),
                           IntColumn(LongType(), {1, 2, 3, 4, 5, 6, std::nullopt})});
  AggregateRun run = RunAggregate({batch}, {Col(batch, 0)}, {Agg("sum", {Col(batch, 1)}), Agg("count", {Col(batch, 1)})});
  EXPECT_THAT(run.rows, ElementsAre("NULL,7,2", "a,9,2", "b,5,2"));
}

TEST(HashAggregateTest, NanEqualsNanAndNegativeZeroEqualsZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Batch batch = MakeBatch({DoubleColumn({nan, -0.0, 0.0, -nan, 1.5}), IntColumn(IntegerType(), {1, 1, 1, 1, 1})});
  AggregateRun run = RunAggregate({batch}, {Col(batch, 0)}, {Agg("count", {})});
  EXPECT_THAT(run.rows, UnorderedElementsAre("0.0,2", "NaN,2", "1.5,1"));
}

TEST(HashAggregateTest, StructDateBooleanAndDecimalKeys) {
  VectorBuilder structs(StructType({{"a", IntegerType(), true, {}}, {"b", StringType(), true, {}}}));
  for (int i = 0; i < 4; ++i) {
    structs.child(0).AppendInt(i % 2);
    structs.child(1).AppendString("x");
    structs.AppendStruct();
  }
  Batch batch = MakeBatch({structs.Finish(), IntColumn(DateType(), {0, 0, 1, 1}), BoolColumn({true, true, false, false}),
                           DecimalColumn(5, 2, {150, 150, 150, 151})});
  EXPECT_THAT(RunAggregate({batch}, {Col(batch, 0)}, {Agg("count", {})}).rows, ElementsAre("{0, x},2", "{1, x},2"));
  EXPECT_THAT(RunAggregate({batch}, {Col(batch, 1), Col(batch, 2)}, {Agg("count", {})}).rows,
              ElementsAre("1970-01-01,true,2", "1970-01-02,false,2"));
  EXPECT_THAT(RunAggregate({batch}, {Col(batch, 3)}, {Agg("count", {})}).rows, ElementsAre("1.50,3", "1.51,1"));
}

TEST(HashAggregateTest, DecimalSumAndAverageTypesAndRounding) {
  Batch batch = MakeBatch({DecimalColumn(5, 2, {1, 2, 2, std::nullopt})});
  auto x = Col(batch, 0);
  AggregateRun run = RunAggregate({batch}, {}, {Agg("sum", {x}), Agg("avg", {x}), Agg("min", {x}), Agg("max", {x})});
  // 0.05 / 3 = 0.0166666... rounds HALF_UP at scale 6.
  EXPECT_THAT(run.rows, ElementsAre("0.05,0.016667,0.01,0.02"));
  EXPECT_EQ(run.schema->field(0).type->ToString(), "decimal(15,2)");
  EXPECT_EQ(run.schema->field(1).type->ToString(), "decimal(9,6)");
  Batch negative = MakeBatch({DecimalColumn(5, 2, {-1, -2, -2})});
  EXPECT_THAT(RunAggregate({negative}, {}, {Agg("avg", {Col(negative, 0)})}).rows, ElementsAre("-0.016667"));
}

TEST(HashAggregateTest, SumOverflowIsAnsiError) {
  Batch batch = MakeBatch({IntColumn(LongType(), {std::numeric_limits<int64_t>::max(), 1})});
  EXPECT_EQ(ErrorClassOf([&] { RunAggregate({batch}, {}, {Agg("sum", {Col(batch, 0)})}); }), "ARITHMETIC_OVERFLOW");
  // Legacy (non-ANSI) mode wraps as Java's long addition does.
  EXPECT_THAT(RunAggregate({batch}, {}, {Agg("sum", {Col(batch, 0)})}, 1, false).rows,
              ElementsAre(std::to_string(std::numeric_limits<int64_t>::min())));
  // 20 * 10^37 does not fit decimal(38,0).
  VectorBuilder big(DecimalType(38, 0));
  for (int i = 0; i < 20; ++i) big.AppendDecimal(static_cast<Decimal128>(1000000000000000000LL) * 10000000000000000000ULL);
  Batch decimals = MakeBatch({big.Finish()});
  EXPECT_EQ(ErrorClassOf([&] { RunAggregate({decimals}, {}, {Agg("sum", {Col(decimals, 0)})}); }), "ARITHMETIC_OVERFLOW");
  EXPECT_THAT(RunAggregate({decimals}, {}, {Agg("sum", {Col(decimals, 0)})}, 1, false).rows, ElementsAre("NULL"));
}

TEST(HashAggregateTest, EighteenDigitDecimalSumsAreExactWithAndWithoutNulls) {
  // Inputs of at most 18 digits are summed without per-row overflow checks: the largest values,
  // many times, stay exact; NULLs and FILTER take the checked loop and agree.
  const int64_t largest = 999999999999999999LL;  // 10^18 - 1
  std::vector<std::optional<int64_t>> dense(2000, largest), sparse(2000, largest);
  for (size_t i = 0; i < sparse.size(); i += 3) sparse[i] = std::nullopt;
  Batch batch = MakeBatch({DecimalColumn(18, 0, dense), DecimalColumn(18, 0, sparse), IntColumn(LongType(), std::vector<std::optional<int64_t>>(2000, 1))});
  auto filter = expr::Compare(expr::ComparisonOperator::kGreater, Col(batch, 2), expr::Literal(Scalar::Long(0)));
  AggregateRun run = RunAggregate({batch, batch}, {},
                                  {Agg("sum", {Col(batch, 0)}), Agg("sum", {Col(batch, 1)}),
                                   Agg("sum", {Col(batch, 0)}, false, filter), Agg("avg", {Col(batch, 0)})});
  // 4000 and 2666 times 10^18 - 1; the average is the value itself.
  EXPECT_THAT(run.rows, ElementsAre("3999999999999999996000,2665999999999999997334,"
                                    "3999999999999999996000,999999999999999999.0000"));
  EXPECT_EQ(run.schema->field(0).type->ToString(), "decimal(28,0)");
}

TEST(HashAggregateTest, SumAndAverageOfOneColumnShareTheirState) {
  // sum(x) and avg(x) keep one running state; the results are those of separate states, in
  // either order, merged across threads, beside a filtered sum that cannot share.
  std::vector<Batch> batches;
  for (int b = 0; b < 6; ++b) {
    std::vector<std::optional<int64_t>> keys, cents;
    for (int i = 0; i < 500; ++i) {
      keys.push_back(i % 7);
      cents.push_back(i % 11 == 0 ? std::nullopt : std::optional<int64_t>(b * 1000 + i * 37 - 4000));
    }
    batches.push_back(MakeBatch({IntColumn(LongType(), keys), DecimalColumn(18, 2, cents)}));
  }
  const Batch& shape = batches[0];
  auto positive = expr::Compare(expr::ComparisonOperator::kGreater, Col(shape, 1),
                                expr::Literal(Scalar::Decimal(0, DecimalType(18, 2))));
  std::vector<AggregateCall> shared = {Agg("avg", {Col(shape, 1)}), Agg("sum", {Col(shape, 1)}),
                                       Agg("sum", {Col(shape, 1)}, false, positive)};
  AggregateRun together = RunAggregate(batches, {Col(shape, 0)}, shared, 2);
  AggregateRun avg_alone = RunAggregate(batches, {Col(shape, 0)}, {Agg("avg", {Col(shape, 1)})}, 2);
  AggregateRun sum_alone = RunAggregate(batches, {Col(shape, 0)}, {Agg("sum", {Col(shape, 1)})}, 2);
  AggregateRun filtered_alone =
      RunAggregate(batches, {Col(shape, 0)}, {Agg("sum", {Col(shape, 1)}, false, positive)}, 2);
  ASSERT_EQ(together.rows.size(), 7u);
  for (size_t g = 0; g < 7; ++g) {
    auto value = [](const std::string& row) { return row.substr(row.find(',') + 1); };
    EXPECT_EQ(together.rows[g], avg_alone.rows[g] + "," + value(sum_alone.rows[g]) + "," +
                                    value(filtered_alone.rows[g]));
  }
  // The accumulators themselves: avg reads the sum's state once it shares it; a count cannot
  // be shared, nor can a state be shared with itself.
  std::vector<DataTypePtr> types = {DecimalType(18, 2)};
  AggregateCall sum_call = Agg("sum", {Col(shape, 1)});
  sum_call.result_type = DecimalType(28, 2);
  AggregateCall avg_call = Agg("avg", {Col(shape, 1)});
  avg_call.result_type = DecimalType(22, 6);
  std::unique_ptr<Accumulator> sum = MakeAccumulator(sum_call, types);
  std::unique_ptr<Accumulator> avg = MakeAccumulator(avg_call, types);
  std::unique_ptr<Accumulator> count = MakeAccumulator(Agg("count", {Col(shape, 1)}), types);
  EXPECT_FALSE(avg->ShareStateOf(*count));
  EXPECT_FALSE(avg->ShareStateOf(*avg));
  ASSERT_TRUE(avg->ShareStateOf(*sum));
  std::vector<uint32_t> one_group(3, 0);
  expr::EvalContext eval;
  sum->Resize(1);
  sum->Update({DecimalColumn(18, 2, {100, 200, 400})}, one_group.data(), nullptr, 3, eval);
  EXPECT_EQ(avg->Finalize(1, eval)->ValueToString(0), "2.333333");
  EXPECT_EQ(sum->Finalize(1, eval)->ValueToString(0), "7.00");

  // Overflow reaches both: decimal(38,0) sums past 10^38 fail under ANSI, and are NULL without.
  VectorBuilder big(DecimalType(38, 0));
  for (int i = 0; i < 20; ++i) big.AppendDecimal(static_cast<Decimal128>(1000000000000000000LL) * 10000000000000000000ULL);
  Batch decimals = MakeBatch({big.Finish()});
  EXPECT_EQ(ErrorClassOf([&] {
              RunAggregate({decimals}, {}, {Agg("sum", {Col(decimals, 0)}), Agg("avg", {Col(decimals, 0)})});
            }),
            "ARITHMETIC_OVERFLOW");
  EXPECT_THAT(RunAggregate({decimals}, {}, {Agg("sum", {Col(decimals, 0)}), Agg("avg", {Col(decimals, 0)})}, 1, false).rows,
              ElementsAre("NULL,NULL"));
}

// MergeGroups merges the listed groups of one accumulator into the listed groups of another
// and leaves the others alone, so that each partition of a thread's table merges on its own.
TEST(AccumulatorTest, MergeGroupsMergesOnlyTheListedGroups) {
  Batch batch = MakeBatch({IntColumn(LongType(), {5, 7, std::nullopt, 11}), StringColumn({"b", "d", "a", "c"})});
  const std::vector<uint32_t> groups = {0, 1, 2, 3};
  expr::EvalContext eval;
  struct Case {
    std::string function;
    int column;
    std::string expected;  // the three target groups after the merge
  };
  const std::vector<Case> cases = {{"count", 0, "1,0,1"},   {"sum", 0, "11,NULL,7"},    {"min", 1, "c,NULL,d"},
                                   {"max", 0, "11,NULL,7"}, {"bit_or", 0, "11,NULL,7"}, {"first", 1, "c,NULL,d"},
                                   {"var_pop", 0, "0.0,NULL,0.0"}};
  for (const Case& test : cases) {
    SCOPED_TRACE(test.function);
    const std::vector<DataTypePtr> types = {batch.column(test.column)->type()};
    AggregateCall call = Agg(test.function, {Col(batch, test.column)});
    call.result_type = ResolveAggregate(test.function, types, false).result_type;
    std::unique_ptr<Accumulator> source = MakeAccumulator(call, types);
    std::unique_ptr<Accumulator> target = MakeAccumulator(call, types);
    ASSERT_TRUE(source->MergesGroups());
    source->Resize(4);
    source->Update({batch.column(test.column)}, groups.data(), nullptr, 4, eval);
    target->Resize(3);
    // Groups 3 and 1 of the source into target groups 0 and 2; source groups 0 and 2 stay out.
    const uint32_t sources[] = {3, 1};
    const uint32_t targets[] = {0, 2};
    target->MergeGroups(*source, sources, targets, 2, eval);
    VectorPtr result = target->Finalize(3, eval);
    EXPECT_EQ(result->ValueToString(0) + "," + result->ValueToString(1) + "," + result->ValueToString(2),
              test.expected);
  }
  // States kept as lists of values merge whole only.
  EXPECT_FALSE(MakeAccumulator(Agg("collect_list", {Col(batch, 0)}), {LongType()})->MergesGroups());
  EXPECT_FALSE(MakeAccumulator(Agg("count", {Col(batch, 0)}, true), {LongType()})->MergesGroups());
}

TEST(HashAggregateTest, DistinctAggregates) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 1, 2, std::nullopt, 2, 3}),
                           StringColumn({"a", "a", "a", "b", std::nullopt, "a"})});
  auto x = Col(batch, 0);
  auto y = Col(batch, 1);
  AggregateRun run = RunAggregate({batch}, {},
                         {Agg("count", {x}, true), Agg("sum", {x}, true), Agg("avg", {x}, true),
                          Agg("count", {x, y}, true), Agg("collect_list", {x}, true)});
  // count(DISTINCT x, y) counts distinct pairs with no NULL: (1,a) (2,a) (3,a).
  EXPECT_THAT(run.rows, ElementsAre("3,6,2.0,3,[1, 2, 3]"));
}

TEST(HashAggregateTest, FilterClause) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 2, 3, 4}), StringColumn({"a", "a", "b", "b"})});
  auto x = Col(batch, 0);
  auto over_one = expr::Compare(expr::ComparisonOperator::kGreater, x, expr::Literal(Scalar::Integer(1)));
  AggregateRun run = RunAggregate({batch}, {Col(batch, 1)},
                         {Agg("sum", {x}, false, over_one), Agg("count", {}, false, over_one),
                          Agg("count", {x}, true, over_one)});
  EXPECT_THAT(run.rows, ElementsAre("a,2,1,1", "b,7,2,2"));
}

TEST(HashAggregateTest, VarianceAndStandardDeviation) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 2, 3, 4, 7}), IntColumn(IntegerType(), {0, 0, 0, 0, 1})});
  auto x = Col(batch, 0);
  AggregateRun run = RunAggregate({batch}, {Col(batch, 1)},
                         {Agg("var_samp", {x}), Agg("var_pop", {x}), Agg("stddev", {x}), Agg("stddev_pop", {x}),
                          Agg("variance", {x}), Agg("std", {x})});
  EXPECT_THAT(run.rows, ElementsAre("0,1.6666666666666667,1.25,1.2909944487358056,1.118033988749895,"
                                    "1.6666666666666667,1.2909944487358056",
                                    "1,NULL,0.0,NULL,0.0,NULL,NULL"));
}

TEST(HashAggregateTest, BooleanAggregatesAndCountIf) {
  Batch batch = MakeBatch({BoolColumn({true, false, std::nullopt, true}), IntColumn(IntegerType(), {0, 0, 1, 1})});
  auto b = Col(batch, 0);
  AggregateRun run = RunAggregate({batch}, {Col(batch, 1)},
                         {Agg("bool_and", {b}), Agg("bool_or", {b}), Agg("every", {b}), Agg("some", {b}),
                          Agg("count_if", {b})});
  EXPECT_THAT(run.rows, ElementsAre("0,false,true,false,true,1", "1,true,true,true,true,1"));
  Batch nulls = MakeBatch({BoolColumn({std::nullopt})});
  EXPECT_THAT(RunAggregate({nulls}, {}, {Agg("bool_or", {Col(nulls, 0)})}).rows, ElementsAre("NULL"));
}

TEST(HashAggregateTest, MinByMaxByFirstLastAnyValue) {
  Batch batch = MakeBatch({StringColumn({std::nullopt, "b", "c", std::nullopt}), IntColumn(IntegerType(), {5, 1, 9, 3})});
  auto s = Col(batch, 0);
  auto n = Col(batch, 1);
  AggregateCall first_ignoring = Agg("first", {s});
  first_ignoring.ignore_nulls = true;
  AggregateCall last_ignoring = Agg("last", {s, expr::Literal(Scalar::Boolean(true))});
  AggregateRun run = RunAggregate({batch}, {},
                         {Agg("min_by", {s, n}), Agg("max_by", {s, n}), Agg("first", {s}), Agg("last", {s}),
                          first_ignoring, last_ignoring, Agg("any_value", {n}), Agg("max_by", {n, s})});
  EXPECT_THAT(run.rows, ElementsAre("b,c,NULL,NULL,b,c,5,9"));
}

TEST(HashAggregateTest, MinMaxOfStringsDatesAndNested) {
  VectorBuilder lists(ListType(IntegerType()));
  for (auto& values : std::vector<std::vector<int>>{{1, 2}, {1}, {0, 9}}) {
    for (int v : values) lists.child(0).AppendInt(v);
    lists.FinishList();
  }
  Batch batch = MakeBatch({StringColumn({"pear", "apple", std::nullopt}), IntColumn(DateType(), {10, 3, 7}), lists.Finish(),
                           DoubleColumn({1.0, std::numeric_limits<double>::quiet_NaN(), -2.0})});
  AggregateRun run = RunAggregate({batch}, {},
                         {Agg("min", {Col(batch, 0)}), Agg("max", {Col(batch, 0)}), Agg("min", {Col(batch, 1)}),
                          Agg("max", {Col(batch, 1)}), Agg("min", {Col(batch, 2)}), Agg("max", {Col(batch, 2)}),
                          Agg("max", {Col(batch, 3)}), Agg("min", {Col(batch, 3)})});
  EXPECT_THAT(run.rows, ElementsAre("apple,pear,1970-01-04,1970-01-11,[0, 9],[1, 2],NaN,-2.0"));
}

TEST(HashAggregateTest, CollectListAndSet) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 1, 2, 1, std::nullopt}), IntColumn(IntegerType(), {3, 3, 4, 5, 6})});
  AggregateRun run = RunAggregate({batch}, {Col(batch, 0)},
                         {Agg("collect_list", {Col(batch, 1)}), Agg("collect_set", {Col(batch, 1)}),
                          Agg("array_agg", {Col(batch, 1)})});
  EXPECT_THAT(run.rows, ElementsAre("1,[3, 3, 5],[3, 5],[3, 3, 5]", "2,[4],[4],[4]", "NULL,[6],[6],[6]"));
  EXPECT_EQ(run.schema->field(1).type->ToString(), "array<int>");
}

TEST(HashAggregateTest, ApproxCountDistinctWithinErrorBound) {
  std::vector<std::optional<int64_t>> values;
  for (int64_t i = 0; i < 20000; ++i) values.push_back(i % 10000);
  values.push_back(std::nullopt);
  Batch batch = MakeBatch({IntColumn(LongType(), values)});
  AggregateRun run = RunAggregate({batch}, {}, {Agg("approx_count_distinct", {Col(batch, 0)})});
  ASSERT_EQ(run.rows.size(), 1u);
  double estimate = std::stod(run.rows[0]);
  EXPECT_NEAR(estimate, 10000, 10000 * 0.05 * 3);  // three standard deviations
  Batch small = MakeBatch({StringColumn({"a", "b", "a", "c", std::nullopt})});
  EXPECT_THAT(RunAggregate({small}, {}, {Agg("approx_count_distinct", {Col(small, 0)})}).rows, ElementsAre("3"));
}

// `values` annotated as decoded from `dictionary` with `codes` (one per row).
VectorPtr WithCodes(const VectorPtr& values, const std::vector<std::optional<std::string>>& dictionary,
                    const std::vector<int32_t>& codes) {
  auto annotation = std::make_shared<DictionaryCodes>();
  annotation->dictionary = StringColumn(dictionary);
  annotation->codes = Buffer::Allocate(codes.size() * sizeof(int32_t));
  std::memcpy(annotation->codes->data(), codes.data(), codes.size() * sizeof(int32_t));
  return Vector::WithDictionaryCodes(values, std::move(annotation));
}

TEST(HashAggregateTest, DictionaryCodedKeysGroupAsTheirValues) {
  // Two "row groups" with different dictionaries (one listing a value no row uses), sliced as
  // the scan slices them, plus a batch without codes: the groups are those of the values.
  VectorPtr first = WithCodes(StringColumn({"b", std::nullopt, "a", "b", "a"}), {"a", "b", "unused"},
                              {1, 2, 0, 1, 0});
  VectorPtr second = WithCodes(StringColumn({"c", "a", std::nullopt}), {"c", "a"}, {0, 1, 0});
  VectorPtr plain = StringColumn({"a", "d"});
  std::vector<Batch> batches = {
      MakeBatch({first->Slice(0, 2), IntColumn(LongType(), {1, 2})}),
      MakeBatch({first->Slice(2, 3), IntColumn(LongType(), {3, 4, 5})}),
      MakeBatch({second, IntColumn(LongType(), {6, 7, 8})}),
      MakeBatch({plain, IntColumn(LongType(), {9, 10})}),
  };
  ASSERT_NE(batches[1].column(0)->dictionary_codes(), nullptr);
  const Batch& shape = batches[0];
  for (size_t parallelism : {1, 2}) {
    AggregateRun run = RunAggregate(batches, {Col(shape, 0)},
                                    {Agg("sum", {Col(shape, 1)}), Agg("count", {})}, parallelism);
    EXPECT_THAT(run.rows, ElementsAre("NULL,10,2", "a,24,4", "b,5,2", "c,6,1", "d,10,1"))
        << "parallelism " << parallelism;
  }
}

TEST(HashAggregateTest, SeveralDictionaryCodedKeysGroupAsTheirValues) {
  // Two keys with codes (TPC-H Q1's flag and status) whose dictionaries change between "row
  // groups", NULLs in both, sliced batches and a batch without codes: the groups are those of
  // the value pairs, whichever path a batch takes.
  VectorPtr flag1 = WithCodes(StringColumn({"A", "N", std::nullopt, "A", "N", "R"}),
                              {"N", "A", "R"}, {1, 0, 0, 1, 0, 2});
  VectorPtr status1 = WithCodes(StringColumn({"F", "O", "F", std::nullopt, "O", "F"}), {"O", "F"},
                                {1, 0, 1, 0, 0, 1});
  VectorPtr flag2 = WithCodes(StringColumn({"R", "A", std::nullopt}), {"R", "A"}, {0, 1, 0});
  VectorPtr status2 = WithCodes(StringColumn({"F", "F", "F"}), {"F"}, {0, 0, 0});
  std::vector<Batch> batches = {
      MakeBatch({flag1->Slice(0, 3), status1->Slice(0, 3), IntColumn(LongType(), {1, 2, 3})}),
      MakeBatch({flag1->Slice(3, 3), status1->Slice(3, 3), IntColumn(LongType(), {4, 5, 6})}),
      MakeBatch({flag2, status2, IntColumn(LongType(), {7, 8, 9})}),
      MakeBatch({StringColumn({"A", std::nullopt}), StringColumn({"F", std::nullopt}),
                 IntColumn(LongType(), {10, 11})}),
  };
  ASSERT_NE(batches[1].column(1)->dictionary_codes(), nullptr);
  const Batch& shape = batches[0];
  for (size_t parallelism : {1, 2}) {
    AggregateRun run = RunAggregate(batches, {Col(shape, 0), Col(shape, 1)},
                                    {Agg("sum", {Col(shape, 2)}), Agg("count", {})}, parallelism);
    EXPECT_THAT(run.rows, ElementsAre("A,F,19,3", "A,NULL,4,1", "N,O,7,2", "NULL,F,12,2",
                                      "NULL,NULL,11,1", "R,F,13,2"))
        << "parallelism " << parallelism;
  }
}

TEST(HashAggregateTest, ParallelMatchesSerial) {
  std::vector<Batch> batches;
  for (int b = 0; b < 24; ++b) {
    std::vector<std::optional<int64_t>> keys, values;
    std::vector<std::optional<std::string>> names;
    for (int i = 0; i < 1000; ++i) {
      int64_t v = b * 1000 + i;
      keys.push_back(v % 37 == 0 ? std::nullopt : std::optional<int64_t>(v % 101));
      values.push_back(v % 11 == 0 ? std::nullopt : std::optional<int64_t>(v));
      names.push_back("n" + std::to_string(v % 53));
    }
    batches.push_back(MakeBatch({IntColumn(LongType(), keys), IntColumn(LongType(), values), StringColumn(names)}));
  }
  const Batch& shape = batches[0];
  auto calls = [&] {
    return std::vector<AggregateCall>{Agg("count", {}),
                                      Agg("sum", {Col(shape, 1)}),
                                      Agg("avg", {Col(shape, 1)}),
                                      Agg("min", {Col(shape, 2)}),
                                      Agg("max", {Col(shape, 1)}),
                                      Agg("count", {Col(shape, 2)}, true),
                                      Agg("var_pop", {Col(shape, 1)}),
                                      Agg("approx_count_distinct", {Col(shape, 2)})};
  };
  AggregateRun serial = RunAggregate(batches, {Col(shape, 0)}, calls(), 1);
  for (bool parallel_source : {false, true}) {
    SCOPED_TRACE(parallel_source ? "parallel pulls" : "serialised pulls");
    AggregateRun parallel =
        RunAggregate(batches, {Col(shape, 0)}, calls(), 2, true, parallel_source);
    EXPECT_EQ(serial.rows.size(), 102u);
    ASSERT_EQ(serial.rows.size(), parallel.rows.size());
    // Floating sums may differ in the last digits with another addition order; compare the rest.
    for (size_t r = 0; r < serial.rows.size(); ++r) {
      auto strip = [](const std::string& row) {
        std::vector<std::string> parts;
        size_t start = 0;
        for (size_t p = 0; p <= row.size(); ++p) {
          if (p == row.size() || row[p] == ',') {
            parts.push_back(row.substr(start, p - start));
            start = p + 1;
          }
        }
        parts[3] = parts[3].substr(0, 8);  // avg
        parts[7] = parts[7].substr(0, 8);  // var_pop
        return parts;
      };
      EXPECT_EQ(strip(serial.rows[r]), strip(parallel.rows[r]));
    }
  }
  AggregateRun global = RunAggregate(batches, {}, {Agg("count", {}), Agg("sum", {Col(shape, 1)}, true)}, 2);
  EXPECT_THAT(global.rows, ElementsAre("24000,261813819"));
}

// Thread tables merged at the end give the single-threaded answer: exactly for the order
// statistics, to the last digits' rounding for the moments.
TEST(HashAggregateTest, OrderStatisticsAndMomentsMergeAcrossThreads) {
  std::vector<Batch> batches;
  for (int b = 0; b < 16; ++b) {
    std::vector<std::optional<int64_t>> keys, values;
    for (int i = 0; i < 500; ++i) {
      int64_t v = b * 500 + i;
      keys.push_back(v % 7);
      values.push_back(v % 13 == 0 ? std::nullopt : std::optional<int64_t>((v * 7919) % 1009));
    }
    batches.push_back(MakeBatch({IntColumn(LongType(), keys), IntColumn(LongType(), values)}));
  }
  const Batch& shape = batches[0];
  auto calls = [&] {
    expr::ExpressionPtr value = expr::Cast(Col(shape, 1), DoubleType());
    expr::ExpressionPtr key = expr::Cast(Col(shape, 0), DoubleType());
    AggregateCall percentile = Agg("percentile", {value, expr::Literal(Scalar::Double(0.3))});
    AggregateCall approx = Agg("percentile_approx", {Col(shape, 1), expr::Literal(Scalar::Double(0.9))});
    AggregateCall disc = Agg("percentile_disc", {value, expr::Literal(Scalar::Double(0.5))});
    disc.descending = true;
    return std::vector<AggregateCall>{percentile,          Agg("median", {value}),          approx, disc,
                                      Agg("mode", {Col(shape, 1)}), Agg("skewness", {value}), Agg("kurtosis", {value}),
                                      Agg("corr", {key, value}),    Agg("regr_slope", {value, key})};
  };
  AggregateRun serial = RunAggregate(batches, {Col(shape, 0)}, calls(), 1);
  AggregateRun parallel = RunAggregate(batches, {Col(shape, 0)}, calls(), 2, true, true);
  ASSERT_EQ(serial.rows.size(), 7u);
  ASSERT_EQ(parallel.rows.size(), 7u);
  for (size_t r = 0; r < serial.rows.size(); ++r) {
    auto parts = [](const std::string& row) {
      std::vector<std::string> out;
      size_t start = 0;
      for (size_t p = 0; p <= row.size(); ++p) {
        if (p == row.size() || row[p] == ',') {
          out.push_back(row.substr(start, p - start));
          start = p + 1;
        }
      }
      for (size_t m = 6; m < out.size(); ++m) out[m] = out[m].substr(0, 10);  // the moments
      return out;
    };
    EXPECT_EQ(parts(serial.rows[r]), parts(parallel.rows[r]));
  }
}

TEST(HashAggregateTest, PercentilesOfAGroupAsSparkComputesThem) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {0, 1, 2, 3, 4, std::nullopt})});
  expr::ExpressionPtr value = expr::Cast(Col(batch, 0), DoubleType());
  auto with = [](AggregateCall call, double p) {
    call.arguments.push_back(expr::Literal(Scalar::Double(p)));
    return call;
  };
  AggregateRun run = RunAggregate({batch}, {},
                                  {with(Agg("percentile", {value}), 0.3), with(Agg("percentile_disc", {value}), 0.7),
                                   with(Agg("percentile_disc", {value}), 0.6), with(Agg("percentile_approx", {Col(batch, 0)}), 0.5),
                                   Agg("median", {value}), Agg("mode", {Col(batch, 0)})});
  EXPECT_THAT(run.rows, ElementsAre("1.2,3.0,2.0,2,2.0,0"));
}

TEST(HashAggregateTest, EveryAggregateOverEmptyAndAllNullInput) {
  Batch all_null = MakeBatch({IntColumn(IntegerType(), {std::nullopt, std::nullopt}), BoolColumn({std::nullopt, std::nullopt})});
  Batch empty = MakeBatch({IntColumn(IntegerType(), {}), BoolColumn({})});
  auto x = Col(all_null, 0);
  auto b = Col(all_null, 1);
  auto calls = [&] {
    std::vector<AggregateCall> calls;
    for (const char* name : {"count", "sum", "avg", "min", "max", "first", "last", "any_value", "collect_list",
                             "collect_set", "approx_count_distinct", "stddev", "stddev_pop", "var_samp", "var_pop"}) {
      calls.push_back(Agg(name, {x}));
    }
    calls.push_back(Agg("min_by", {x, x}));
    calls.push_back(Agg("max_by", {x, x}));
    calls.push_back(Agg("bool_and", {b}));
    calls.push_back(Agg("bool_or", {b}));
    calls.push_back(Agg("count_if", {b}));
    calls.push_back(Agg("sum", {x}, true));
    calls.push_back(Agg("count", {x}, true));
    return calls;
  };
  const std::string expected = "0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,[],[],0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,0,NULL,0";
  EXPECT_THAT(RunAggregate({all_null}, {}, calls()).rows, ElementsAre(expected));
  EXPECT_THAT(RunAggregate({empty}, {}, calls()).rows, ElementsAre(expected));
  EXPECT_THAT(RunAggregate({empty, empty, empty}, {}, calls(), 2).rows, ElementsAre(expected));
}

TEST(HashAggregateTest, OverflowFoundWhileMergingThreadTablesIsAnsiError) {
  // Each batch alone fits a long; only their sum overflows, possibly while merging.
  std::vector<Batch> batches;
  for (int i = 0; i < 4; ++i) batches.push_back(MakeBatch({IntColumn(LongType(), {std::numeric_limits<int64_t>::max()})}));
  EXPECT_EQ(ErrorClassOf([&] { RunAggregate(batches, {}, {Agg("sum", {Col(batches[0], 0)})}, 2); }),
            "ARITHMETIC_OVERFLOW");
}

TEST(HashAggregateTest, DescribeListsKeysAndFunctions) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1})});
  auto key = Col(batch, 0);
  OperatorPtr aggregate = MakeHashAggregate(std::make_unique<TestSource>(batch.schema(), std::vector<Batch>{batch}),
                                            {key}, {"k"}, {Agg("sum", {key})}, {"s"});
  EXPECT_EQ(aggregate->Describe(), "HashAggregate(keys=[" + key->ToString() + "], functions=[sum(" +
                                       expr::Cast(key, LongType())->ToString() + ")])");
}

}  // namespace
}  // namespace silt::exec
