#include "silt/expr/evaluator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/testing_error_class.h"
#include "silt/expr/test_batch_internal.h"

namespace silt::expr {
namespace {

using ::silt::expr::testing::BoolColumn;
using ::silt::expr::testing::DoubleColumn;
using ::silt::expr::testing::EvaluateText;
using ::silt::expr::testing::IntColumn;
using ::silt::expr::testing::MakeBatch;
using ::silt::expr::testing::StringColumn;
using ::silt::expr::testing::Texts;
using ::testing::ElementsAre;

ExpressionPtr Int(int32_t value) { return Literal(Scalar::Integer(value)); }
ExpressionPtr NullBool() { return Literal(Scalar::Null(BooleanType())); }

TEST(EvaluatorTest, ThreeValuedAndOrNotTruthTables) {
  // Rows enumerate every pair of {true, false, NULL}.
  Batch batch = MakeBatch({BoolColumn({true, true, true, false, false, false, std::nullopt, std::nullopt, std::nullopt}),
                           BoolColumn({true, false, std::nullopt, true, false, std::nullopt, true, false, std::nullopt})});
  ExpressionPtr a = Column(0, BooleanType());
  ExpressionPtr b = Column(1, BooleanType());
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*And(a, b), batch, context)),
              ElementsAre("true", "false", "NULL", "false", "false", "false", "NULL", "false", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*Or(a, b), batch, context)),
              ElementsAre("true", "true", "true", "true", "false", "NULL", "true", "NULL", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*Not(a), batch, context)),
              ElementsAre("false", "false", "false", "true", "true", "true", "NULL", "NULL", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*IsNull(a), batch, context)),
              ElementsAre("false", "false", "false", "false", "false", "false", "true", "true", "true"));
}

TEST(EvaluatorTest, ComparisonsPropagateNullExceptNullSafeEqual) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 2, std::nullopt, std::nullopt}),
                           IntColumn(IntegerType(), {1, 3, 1, std::nullopt})});
  ExpressionPtr a = Column(0, IntegerType()), b = Column(1, IntegerType());
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*Compare(ComparisonOperator::kEqual, a, b), batch, context)),
              ElementsAre("true", "false", "NULL", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*Compare(ComparisonOperator::kLess, a, b), batch, context)),
              ElementsAre("false", "true", "NULL", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*Compare(ComparisonOperator::kNullSafeEqual, a, b), batch, context)),
              ElementsAre("true", "false", "false", "true"));
}

TEST(EvaluatorTest, ComparisonCoercesIntegerWithDoubleAndStringWithInteger) {
  EXPECT_EQ(EvaluateText(Compare(ComparisonOperator::kEqual, Int(1), Literal(Scalar::Double(1.0)))), "true");
  EXPECT_EQ(EvaluateText(Compare(ComparisonOperator::kGreater, Literal(Scalar::String("10")), Int(9))), "true");
  // NaN equals NaN and is larger than any number in Spark.
  double nan = std::nan("");
  EXPECT_EQ(EvaluateText(Compare(ComparisonOperator::kEqual, Literal(Scalar::Double(nan)), Literal(Scalar::Double(nan)))), "true");
  EXPECT_EQ(EvaluateText(Compare(ComparisonOperator::kGreater, Literal(Scalar::Double(nan)), Literal(Scalar::Double(1e308)))), "true");
}

TEST(EvaluatorTest, StringComparisonIsByteOrder) {
  Batch batch = MakeBatch({StringColumn({"a", "b", "é", std::nullopt}), StringColumn({"b", "b", "z", "x"})});
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*Compare(ComparisonOperator::kLess, Column(0, StringType()), Column(1, StringType())), batch,
                             context)),
              ElementsAre("true", "false", "false", "NULL"));
}

TEST(EvaluatorTest, IntegerArithmeticAndOverflowModes) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 2147483647, std::nullopt}), IntColumn(IntegerType(), {2, 1, 5})});
  ExpressionPtr sum = Arithmetic(ArithmeticOperator::kAdd, Column(0, IntegerType()), Column(1, IntegerType()));
  EXPECT_TRUE(sum->type()->Equals(*IntegerType()));
  EvalContext ansi;
  EXPECT_EQ(ErrorClassOf([&] { Evaluate(*sum, batch, ansi); }), "ARITHMETIC_OVERFLOW");
  EvalContext legacy;
  legacy.ansi = false;
  EXPECT_THAT(Texts(Evaluate(*sum, batch, legacy)), ElementsAre("3", "-2147483648", "NULL"));
  ExpressionPtr try_sum =
      Arithmetic(ArithmeticOperator::kAdd, Column(0, IntegerType()), Column(1, IntegerType()), ErrorMode::kTry);
  EXPECT_THAT(Texts(Evaluate(*try_sum, batch, ansi)), ElementsAre("3", "NULL", "NULL"));
}

TEST(EvaluatorTest, ArithmeticWidensMixedTypes) {
  ExpressionPtr mixed = Arithmetic(ArithmeticOperator::kMultiply, Literal(Scalar::Byte(3)), Literal(Scalar::Long(4)));
  EXPECT_TRUE(mixed->type()->Equals(*LongType()));
  EXPECT_EQ(EvaluateText(mixed), "12");
  ExpressionPtr divide = Arithmetic(ArithmeticOperator::kDivide, Int(7), Int(2));
  EXPECT_TRUE(divide->type()->Equals(*DoubleType()));
  EXPECT_EQ(EvaluateText(divide), "3.5");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kRemainder, Int(-7), Int(3))), "-1");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kRemainder, Literal(Scalar::Integer(INT32_MIN)), Int(-1))), "0");
}

TEST(EvaluatorTest, DivisionByZeroRaisesInAnsiAndIsNullOtherwise) {
  ExpressionPtr divide = Arithmetic(ArithmeticOperator::kDivide, Int(1), Int(0));
  EXPECT_EQ(ErrorClassOf([&] { EvaluateText(divide); }), "DIVIDE_BY_ZERO");
  EvalContext legacy;
  legacy.ansi = false;
  EXPECT_EQ(EvaluateText(divide, legacy), "NULL");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kDivide, Int(1), Int(0), ErrorMode::kTry)), "NULL");
  EXPECT_EQ(ErrorClassOf([&] { EvaluateText(Arithmetic(ArithmeticOperator::kRemainder, Int(1), Int(0))); }),
            "DIVIDE_BY_ZERO");
}

TEST(EvaluatorTest, DecimalArithmeticResultTypesAndValues) {
  ExpressionPtr a = Literal(Scalar::Decimal(12345, DecimalType(18, 2)));  // 123.45
  ExpressionPtr b = Literal(Scalar::Decimal(200, DecimalType(18, 2)));    // 2.00
  ExpressionPtr product = Arithmetic(ArithmeticOperator::kMultiply, a, b);
  EXPECT_EQ(product->type()->ToString(), "decimal(37,4)");
  EXPECT_EQ(EvaluateText(product), "246.9000");
  ExpressionPtr sum = Arithmetic(ArithmeticOperator::kAdd, a, b);
  EXPECT_EQ(sum->type()->ToString(), "decimal(19,2)");
  EXPECT_EQ(EvaluateText(sum), "125.45");
  ExpressionPtr quotient = Arithmetic(ArithmeticOperator::kDivide, Literal(Scalar::Decimal(100, DecimalType(10, 2))),
                                      Literal(Scalar::Decimal(300, DecimalType(10, 2))));
  EXPECT_EQ(quotient->type()->ToString(), "decimal(23,13)");
  EXPECT_EQ(EvaluateText(quotient), "0.3333333333333");
  // decimal(38,10) * decimal(38,10) loses precision down to scale 6.
  ExpressionPtr wide = Arithmetic(ArithmeticOperator::kMultiply, Literal(Scalar::Decimal(15, DecimalType(38, 10))),
                                  Literal(Scalar::Decimal(15, DecimalType(38, 10))));
  EXPECT_EQ(wide->type()->ToString(), "decimal(38,6)");
  // An integral literal counts as the narrowest decimal holding it: 1 is DECIMAL(1,0).
  ExpressionPtr with_int = Arithmetic(ArithmeticOperator::kAdd, Literal(Scalar::Decimal(5, DecimalType(2, 1))), Int(1));
  EXPECT_EQ(with_int->type()->ToString(), "decimal(3,1)");
  EXPECT_EQ(EvaluateText(with_int), "1.5");
}

TEST(EvaluatorTest, DecimalArithmeticIsExactOnBothSidesOfTheNarrowOperandShortcut) {
  // Operands below 2^62 take a shortcut without overflow checks; the results must be those of
  // the general path for operands just below and just above that bound.
  const Decimal128 below = (Decimal128{1} << 62) - 1;  // 4611686018427387903
  const Decimal128 above = Decimal128{1} << 62;
  auto decimal = [](Decimal128 unscaled, int precision, int scale) {
    return Literal(Scalar::Decimal(unscaled, DecimalType(precision, scale)));
  };
  ExpressionPtr three = decimal(3, 1, 0);
  ExpressionPtr product = Arithmetic(ArithmeticOperator::kMultiply, decimal(below, 38, 0), three);
  EXPECT_EQ(product->type()->ToString(), "decimal(38,0)");
  EXPECT_EQ(EvaluateText(product), "13835058055282163709");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kMultiply, decimal(above, 38, 0), three)),
            "13835058055282163712");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kMultiply, decimal(-below, 38, 0), decimal(7, 1, 0))),
            "-32281802128991715321");
  // Scales 2 and 0: the right operand is scaled by 100 before adding.
  ExpressionPtr sum = Arithmetic(ArithmeticOperator::kAdd, decimal(below, 20, 2), decimal(below, 20, 0));
  EXPECT_EQ(sum->type()->ToString(), "decimal(23,2)");
  EXPECT_EQ(EvaluateText(sum), "4657802878611661782.03");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kAdd, decimal(5, 20, 2), decimal(above, 20, 0))),
            "4611686018427387904.05");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kSubtract, Int(1), decimal(6, 15, 2))), "0.94");
  EXPECT_EQ(EvaluateText(Arithmetic(ArithmeticOperator::kSubtract, decimal(-below, 20, 2), decimal(below, 20, 2))),
            "-92233720368547758.06");
}

TEST(EvaluatorTest, DecimalOverflowFollowsTheMode) {
  Decimal128 max = 1;
  for (int i = 0; i < 38; ++i) max *= 10;
  max -= 1;
  ExpressionPtr big = Literal(Scalar::Decimal(max, DecimalType(38, 0)));
  ExpressionPtr sum = Arithmetic(ArithmeticOperator::kAdd, big, big);
  EXPECT_EQ(ErrorClassOf([&] { EvaluateText(sum); }), "NUMERIC_VALUE_OUT_OF_RANGE");
  EvalContext legacy;
  legacy.ansi = false;
  EXPECT_EQ(EvaluateText(sum, legacy), "NULL");
}

TEST(EvaluatorTest, CaseOnlyRaisesErrorsOfSelectedRows) {
  // CASE WHEN x <> 0 THEN 10 / x ELSE -1 END over x = {2, 0}: no DIVIDE_BY_ZERO.
  Batch batch = MakeBatch({IntColumn(IntegerType(), {2, 0, std::nullopt})});
  ExpressionPtr x = Column(0, IntegerType());
  ExpressionPtr guarded = Case({{Compare(ComparisonOperator::kNotEqual, x, Int(0)),
                                 Arithmetic(ArithmeticOperator::kDivide, Int(10), x)}},
                               Literal(Scalar::Double(-1)));
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*guarded, batch, context)), ElementsAre("5.0", "-1.0", "-1.0"));
  ExpressionPtr unguarded = Arithmetic(ArithmeticOperator::kDivide, Int(10), x);
  EXPECT_EQ(ErrorClassOf([&] { Evaluate(*unguarded, batch, context); }), "DIVIDE_BY_ZERO");
  // Without ELSE, unmatched rows are NULL.
  ExpressionPtr no_else = Case({{Compare(ComparisonOperator::kGreater, x, Int(1)), Literal(Scalar::String("big"))}}, nullptr);
  EXPECT_THAT(Texts(Evaluate(*no_else, batch, context)), ElementsAre("big", "NULL", "NULL"));
}

TEST(EvaluatorTest, AndOrShortCircuitSkipsErrorsOfDecidedRows) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {0, 5})});
  ExpressionPtr x = Column(0, IntegerType());
  ExpressionPtr nonzero = Compare(ComparisonOperator::kNotEqual, x, Int(0));
  ExpressionPtr ratio = Compare(ComparisonOperator::kGreater, Arithmetic(ArithmeticOperator::kDivide, Int(10), x), Int(1));
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*And(nonzero, ratio), batch, context)), ElementsAre("false", "true"));
  ExpressionPtr zero = Compare(ComparisonOperator::kEqual, x, Int(0));
  EXPECT_THAT(Texts(Evaluate(*Or(zero, ratio), batch, context)), ElementsAre("true", "true"));
}

TEST(EvaluatorTest, CoalesceAndIfShortCircuit) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, std::nullopt, 0})});
  ExpressionPtr x = Column(0, IntegerType());
  EvalContext context;
  // coalesce(x, 1 / 0): the division is only needed for the NULL row, and raises there.
  ExpressionPtr failing = Coalesce({x, Arithmetic(ArithmeticOperator::kDivide, Int(1), Int(0))});
  EXPECT_EQ(ErrorClassOf([&] { Evaluate(*failing, batch, context); }), "DIVIDE_BY_ZERO");
  Batch no_nulls = MakeBatch({IntColumn(IntegerType(), {1, 2})});
  ExpressionPtr coalesce = Coalesce({x, Arithmetic(ArithmeticOperator::kDivide, Int(1), Int(0))});
  EXPECT_THAT(Texts(Evaluate(*coalesce, no_nulls, context)), ElementsAre("1.0", "2.0"));
  ExpressionPtr if_expression = If(Compare(ComparisonOperator::kEqual, x, Int(0)), Int(0),
                                   Arithmetic(ArithmeticOperator::kDivide, Int(1), x));
  EXPECT_THAT(Texts(Evaluate(*if_expression, batch, context)), ElementsAre("1.0", "NULL", "0.0"));
  EXPECT_THAT(Texts(Evaluate(*Coalesce({Literal(Scalar::Null(IntegerType())), x, Int(9)}), batch, context)),
              ElementsAre("1", "9", "0"));
}

TEST(EvaluatorTest, InListUsesThreeValuedLogic) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 4, std::nullopt})});
  ExpressionPtr x = Column(0, IntegerType());
  EvalContext context;
  EXPECT_THAT(Texts(Evaluate(*In(x, {Int(1), Int(2)}), batch, context)), ElementsAre("true", "false", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*In(x, {Int(1), Literal(Scalar::Null(IntegerType()))}), batch, context)),
              ElementsAre("true", "NULL", "NULL"));
  EXPECT_THAT(Texts(Evaluate(*In(x, {Literal(Scalar::Long(4))}), batch, context)), ElementsAre("false", "true", "NULL"));
}

TEST(EvaluatorTest, FactoriesRejectMismatchedTypes) {
  EXPECT_EQ(ErrorClassOf([] { And(Int(1), Literal(Scalar::Boolean(true))); }), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([] { Compare(ComparisonOperator::kEqual, Int(1), Literal(Scalar::Date(0))); }),
            "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([] { Arithmetic(ArithmeticOperator::kAdd, Int(1), Literal(Scalar::Boolean(true))); }),
            "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorClassOf([] { Case({{Literal(Scalar::Boolean(true)), Int(1)}}, Literal(Scalar::Date(0))); }),
            "DATATYPE_MISMATCH");
}

TEST(EvaluatorTest, NodesReportTypeNullabilityAndText) {
  ExpressionPtr column = Column(0, IntegerType(), false);
  EXPECT_FALSE(column->nullable());
  EXPECT_FALSE(IsNull(column)->nullable());
  EXPECT_TRUE(Arithmetic(ArithmeticOperator::kDivide, column, column)->nullable());
  EXPECT_TRUE(column->deterministic());
  EXPECT_EQ(Compare(ComparisonOperator::kLess, column, Literal(Scalar::Long(2)))->ToString(),
            "(CAST(#0 AS BIGINT) < 2)");
  EXPECT_TRUE(NullBool()->nullable());
}

TEST(EvaluatorTest, FilterKeepsOnlyTrueRows) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {1, 5, std::nullopt})});
  EvalContext context;
  EXPECT_THAT(EvaluateFilter(*Compare(ComparisonOperator::kGreater, Column(0, IntegerType()), Int(2)), batch, context),
              ElementsAre(0, 1, 0));
}

TEST(EvaluatorTest, EvaluatesAMillionRowsWithColumnarLoops) {
  // a + b * 2 > c on 1M rows: whole-vector kernels, no per-row allocation (checked by running
  // in reasonable time under the test timeout, not by asserting a duration).
  const int64_t rows = 1'000'000;
  BufferPtr a = Buffer::Allocate(rows * 8), b = Buffer::Allocate(rows * 8), c = Buffer::Allocate(rows * 8);
  for (int64_t i = 0; i < rows; ++i) {
    a->as<int64_t>()[i] = i;
    b->as<int64_t>()[i] = i % 7;
    c->as<int64_t>()[i] = 2 * i;
  }
  Batch batch = MakeBatch({Vector::Make(LongType(), rows, {nullptr, a}), Vector::Make(LongType(), rows, {nullptr, b}),
                           Vector::Make(LongType(), rows, {nullptr, c})});
  ExpressionPtr expression = Compare(
      ComparisonOperator::kGreater,
      Arithmetic(ArithmeticOperator::kAdd, Column(0, LongType()),
                 Arithmetic(ArithmeticOperator::kMultiply, Column(1, LongType()), Literal(Scalar::Long(2)))),
      Column(2, LongType()));
  EvalContext context;
  VectorPtr result = Evaluate(*expression, batch, context);
  int64_t true_count = 0;
  for (int64_t i = 0; i < rows; ++i) true_count += result->GetBool(i);
  int64_t expected = 0;
  for (int64_t i = 0; i < rows; ++i) expected += (i + (i % 7) * 2 > 2 * i);
  EXPECT_EQ(true_count, expected);
}

}  // namespace
}  // namespace silt::expr

namespace silt::expr {
namespace {

TEST(EvaluatorTest, EmptyBatchesGiveEmptyResults) {
  Batch batch = testing::MakeBatch({testing::IntColumn(IntegerType(), {})});
  ExpressionPtr x = Column(0, IntegerType());
  EvalContext context;
  ExpressionPtr expression =
      Case({{Compare(ComparisonOperator::kGreater, x, Literal(Scalar::Integer(0))),
             Arithmetic(ArithmeticOperator::kDivide, Literal(Scalar::Integer(1)), x)}},
           Coalesce({Cast(x, DoubleType()), Literal(Scalar::Double(0))}));
  EXPECT_EQ(Evaluate(*expression, batch, context)->length(), 0);
  EXPECT_TRUE(EvaluateFilter(*Compare(ComparisonOperator::kEqual, x, x), batch, context).empty());
}

TEST(EvaluatorTest, ErrorsAreRaisedOncePerBatchAndThenCleared) {
  Batch batch = testing::MakeBatch({testing::IntColumn(IntegerType(), {0, 0, 1})});
  ExpressionPtr divide = Arithmetic(ArithmeticOperator::kDivide, Literal(Scalar::Integer(1)), Column(0, IntegerType()));
  EvalContext context;
  EXPECT_THROW(Evaluate(*divide, batch, context), Error);
  EXPECT_FALSE(context.has_error());
  Batch fine = testing::MakeBatch({testing::IntColumn(IntegerType(), {2})});
  EXPECT_EQ(Evaluate(*divide, fine, context)->ValueToString(0), "0.5");
}

}  // namespace
}  // namespace silt::expr
