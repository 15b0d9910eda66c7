// Vectorised evaluation of the higher-order functions: a lambda body runs once over the
// elements of every row of a batch (not once per row or per element), captured outer values
// reach each element of their row, and rows outside the evaluation mask raise no errors.

#include "silt/expr/higher_order_functions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/test_batch_internal.h"

namespace silt::expr {
namespace {

using ::silt::expr::testing::IntColumn;
using ::silt::expr::testing::MakeBatch;
using ::silt::expr::testing::Texts;
using ::testing::ElementsAre;

// Counts the batches and rows a body sees: an identity function over INT.
struct Probe {
  int calls = 0;
  int64_t rows = 0;
};

ExpressionPtr Counted(ExpressionPtr argument, std::shared_ptr<Probe> probe) {
  return internal::MakeCall("probe", IntegerType(), {std::move(argument)},
                            [probe](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                              ++probe->calls;
                              probe->rows += num_rows;
                              return args[0];
                            });
}

// ARRAY<INT> rows: row r holds `lengths[r]` elements r*100, r*100 + 1, ... (length -1: NULL).
VectorPtr Arrays(const std::vector<int>& lengths) {
  VectorBuilder builder(ListType(IntegerType()));
  for (size_t row = 0; row < lengths.size(); ++row) {
    if (lengths[row] < 0) {
      builder.AppendNull();
      continue;
    }
    for (int k = 0; k < lengths[row]; ++k) builder.child(0).AppendInt(static_cast<int64_t>(row) * 100 + k);
    builder.FinishList();
  }
  return builder.Finish();
}

LambdaFunction Lambda(std::vector<LambdaParameter> parameters, ExpressionPtr body) {
  return LambdaFunction{std::move(parameters), std::move(body)};
}

LambdaParameter IntParameter(const char* name) { return LambdaParameter{name, IntegerType(), true}; }

TEST(HigherOrderFunctionsTest, TransformEvaluatesTheBodyOnceForTheWholeBatch) {
  // transform(c0, x -> probe(x) + c1): c1 is captured (column 1 of the body's input).
  auto probe = std::make_shared<Probe>();
  ExpressionPtr body = Arithmetic(ArithmeticOperator::kAdd, Counted(Column(0, IntegerType()), probe),
                                  Column(1, IntegerType()));
  ExpressionPtr call = HigherOrderCall("transform", {Column(0, ListType(IntegerType())), nullptr},
                                       {Lambda({IntParameter("x")}, body)}, {Column(1, IntegerType())});
  Batch batch = MakeBatch({Arrays({3, 0, -1, 2}), IntColumn(IntegerType(), {1, 2, 3, 4})});
  EvalContext context;
  VectorPtr result = Evaluate(*call, batch, context);
  EXPECT_THAT(Texts(result), ElementsAre("[1, 2, 3]", "[]", "NULL", "[304, 305]"));
  EXPECT_EQ(probe->calls, 1);
  EXPECT_EQ(probe->rows, 5);
}

TEST(HigherOrderFunctionsTest, NestedLambdasRunOnceForTheWholeBatch) {
  // transform(c0, x -> transform(c1, y -> probe(x + y))): the inner call runs in the outer
  // body's batch (an element per row of the outer arrays), capturing the outer row's c1 and x.
  auto probe = std::make_shared<Probe>();
  ExpressionPtr inner_body =
      Counted(Arithmetic(ArithmeticOperator::kAdd, Column(1, IntegerType()), Column(0, IntegerType())), probe);
  ExpressionPtr inner = HigherOrderCall("transform", {Column(1, ListType(IntegerType())), nullptr},
                                        {Lambda({IntParameter("y")}, inner_body)}, {Column(0, IntegerType())});
  ExpressionPtr outer = HigherOrderCall("transform", {Column(0, ListType(IntegerType())), nullptr},
                                        {Lambda({IntParameter("x")}, inner)}, {Column(1, ListType(IntegerType()))});
  Batch batch = MakeBatch({Arrays({2, 1, 0}), Arrays({1, 3, 2})});
  EvalContext context;
  VectorPtr result = Evaluate(*outer, batch, context);
  EXPECT_THAT(Texts(result), ElementsAre("[[0], [1]]", "[[200, 201, 202]]", "[]"));
  EXPECT_EQ(probe->calls, 1);
  EXPECT_EQ(probe->rows, 5);
}

TEST(HigherOrderFunctionsTest, AggregateFoldsAllRowsInLockStep) {
  // aggregate(c0, 0, (acc, x) -> acc + probe(x)): one evaluation per element position.
  auto probe = std::make_shared<Probe>();
  ExpressionPtr merge = Arithmetic(ArithmeticOperator::kAdd, Column(0, IntegerType()),
                                   Counted(Column(1, IntegerType()), probe));
  ExpressionPtr call = HigherOrderCall(
      "aggregate", {Column(0, ListType(IntegerType())), Literal(Scalar::Integer(0)), nullptr},
      {Lambda({IntParameter("acc"), IntParameter("x")}, merge)}, {});
  Batch batch = MakeBatch({Arrays({4, 1, -1, 0, 2})});
  EvalContext context;
  VectorPtr result = Evaluate(*call, batch, context);
  EXPECT_THAT(Texts(result), ElementsAre("6", "100", "NULL", "0", "801"));
  EXPECT_EQ(probe->calls, 4);
  EXPECT_EQ(probe->rows, 7);
}

TEST(HigherOrderFunctionsTest, ArraySortComparesEveryRowTogether) {
  // array_sort(c0, (l, r) -> probe(r) - l): descending; far fewer comparator batches than
  // comparisons.
  auto probe = std::make_shared<Probe>();
  ExpressionPtr comparator = Arithmetic(ArithmeticOperator::kSubtract, Counted(Column(1, IntegerType()), probe),
                                        Column(0, IntegerType()));
  ExpressionPtr call = HigherOrderCall("array_sort", {Column(0, ListType(IntegerType())), nullptr},
                                       {Lambda({IntParameter("l"), IntParameter("r")}, comparator)}, {});
  std::vector<int> lengths(200, 8);
  Batch batch = MakeBatch({Arrays(lengths)});
  EvalContext context;
  VectorPtr result = Evaluate(*call, batch, context);
  EXPECT_EQ(result->ValueToString(0), "[7, 6, 5, 4, 3, 2, 1, 0]");
  EXPECT_EQ(result->ValueToString(199), "[19907, 19906, 19905, 19904, 19903, 19902, 19901, 19900]");
  // Merging runs of 1, 2 and 4 takes at most 1, 3 and 7 rounds.
  EXPECT_LE(probe->calls, 11);
  EXPECT_GE(probe->rows, 200 * 12);
}

TEST(HigherOrderFunctionsTest, RowsOutsideTheMaskRaiseNoErrors) {
  // transform(c0, x -> 10 / (x - c1)): the division by zero of row 1 is masked out.
  ExpressionPtr body = Arithmetic(ArithmeticOperator::kDivide, Literal(Scalar::Integer(10)),
                                  Arithmetic(ArithmeticOperator::kSubtract, Column(0, IntegerType()),
                                             Column(1, IntegerType())));
  ExpressionPtr call = HigherOrderCall("transform", {Column(0, ListType(IntegerType())), nullptr},
                                       {Lambda({IntParameter("x")}, body)}, {Column(1, IntegerType())});
  Batch batch = MakeBatch({Arrays({1, 1}), IntColumn(IntegerType(), {-10, 100})});
  std::vector<uint8_t> mask = {1, 0};
  EvalContext context;
  VectorPtr result = EvaluateMasked(*call, batch, context, RowMask{mask.data()});
  EXPECT_FALSE(context.has_error());
  EXPECT_EQ(result->ValueToString(0), "[1.0]");
  EXPECT_THROW(Evaluate(*call, batch, context), Error);
}

TEST(HigherOrderFunctionsTest, CapturedValuesAreArgumentsThatRewritesSee) {
  ExpressionPtr body = Arithmetic(ArithmeticOperator::kAdd, Column(0, IntegerType()), Column(1, IntegerType()));
  ExpressionPtr call = HigherOrderCall("transform", {Column(3, ListType(IntegerType())), nullptr},
                                       {Lambda({IntParameter("x")}, body)}, {Column(5, IntegerType())});
  ASSERT_EQ(call->children().size(), 2u);
  EXPECT_EQ(call->child(0)->column_index(), 3);
  EXPECT_EQ(call->child(1)->column_index(), 5);
  EXPECT_EQ(call->ToString(), "transform[x -> (#L0 + #L1)](#3, #5)");
  // Moved to new input positions, the call computes the same.
  ExpressionPtr moved = call->WithChildren({Column(0, ListType(IntegerType())), Column(1, IntegerType())});
  EvalContext context;
  VectorPtr result = Evaluate(*moved, MakeBatch({Arrays({2}), IntColumn(IntegerType(), {7})}), context);
  EXPECT_EQ(result->ValueToString(0), "[7, 8]");
}

TEST(HigherOrderFunctionsTest, LambdaParametersFollowTheFunction) {
  std::vector<ExpressionPtr> arguments = {Column(0, MapType(StringType(), LongType())), nullptr};
  PrepareValueArguments("transform_values", arguments);
  std::vector<LambdaParameter> parameters = LambdaParameters("transform_values", 1, arguments, {"k", "v"}, false);
  ASSERT_EQ(parameters.size(), 2u);
  EXPECT_EQ(parameters[0].type->id(), TypeId::kString);
  EXPECT_FALSE(parameters[0].nullable);
  EXPECT_EQ(parameters[1].type->id(), TypeId::kLong);
  EXPECT_THROW(LambdaParameters("transform_values", 1, arguments, {"k"}, false), Error);
  EXPECT_EQ(LambdaParameters("transform_values", 1, arguments, {}, true).size(), 2u);
  EXPECT_THAT(LambdaArgumentPositions("aggregate", 4), ElementsAre(false, false, true, true));
  EXPECT_THROW(LambdaArgumentPositions("zip_with", 2), Error);
}

}  // namespace
}  // namespace silt::expr
