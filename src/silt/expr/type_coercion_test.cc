#include "silt/expr/type_coercion.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace silt::expr {
namespace {

std::string ResultOf(ArithmeticOperator op, const DataTypePtr& left, const DataTypePtr& right) {
  auto types = ResolveArithmetic(op, left, right);
  return types ? types->result->ToString() : "none";
}

TEST(TypeCoercionTest, DecimalPrecisionRules) {
  EXPECT_EQ(ResultOf(ArithmeticOperator::kMultiply, DecimalType(18, 2), DecimalType(18, 2)), "decimal(37,4)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, DecimalType(10, 2), DecimalType(5, 4)), "decimal(13,4)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kSubtract, DecimalType(38, 0), DecimalType(38, 0)), "decimal(38,0)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kDivide, DecimalType(10, 2), DecimalType(10, 2)), "decimal(23,13)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kDivide, DecimalType(38, 18), DecimalType(38, 18)), "decimal(38,6)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kRemainder, DecimalType(10, 2), DecimalType(5, 3)), "decimal(5,3)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kMultiply, DecimalType(38, 10), DecimalType(38, 10)), "decimal(38,6)");
  // An integral operand counts as its exact decimal: int is decimal(10,0).
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, IntegerType(), DecimalType(5, 2)), "decimal(13,2)");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, LongType(), DecimalType(5, 2)), "decimal(23,2)");
  // Floating operands win over decimals.
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, DoubleType(), DecimalType(5, 2)), "double");
}

TEST(TypeCoercionTest, NumericWideningAndDivision) {
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, ByteType(), ShortType()), "smallint");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, IntegerType(), LongType()), "bigint");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kMultiply, LongType(), FloatType()), "float");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kDivide, IntegerType(), IntegerType()), "double");
  // ANSI string promotion: BIGINT beside an integral, DOUBLE beside other numbers and strings.
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, StringType(), IntegerType()), "bigint");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, DoubleType(), StringType()), "double");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, StringType(), StringType()), "double");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, BooleanType(), IntegerType()), "none");
  EXPECT_EQ(ResultOf(ArithmeticOperator::kAdd, DateType(), IntegerType()), "none");
}

TEST(TypeCoercionTest, ComparisonTypes) {
  EXPECT_EQ((*ComparisonType(IntegerType(), DoubleType()))->ToString(), "double");
  EXPECT_EQ((*ComparisonType(StringType(), IntegerType()))->ToString(), "bigint");
  EXPECT_EQ((*ComparisonType(DoubleType(), StringType()))->ToString(), "double");
  EXPECT_EQ((*ComparisonType(StringType(), DateType()))->ToString(), "date");
  EXPECT_EQ((*ComparisonType(DateType(), TimestampType()))->ToString(), "timestamp");
  EXPECT_EQ((*ComparisonType(NullType(), StringType()))->ToString(), "string");
  EXPECT_EQ((*ComparisonType(DecimalType(5, 2), DecimalType(10, 0)))->ToString(), "decimal(12,2)");
  EXPECT_FALSE(ComparisonType(BooleanType(), DateType()).has_value());
  EXPECT_FALSE(ComparisonType(BinaryType(), IntegerType()).has_value());
}

TEST(TypeCoercionTest, CommonTypeOfBranches) {
  EXPECT_EQ((*CommonType({IntegerType(), LongType(), NullType()}))->ToString(), "bigint");
  EXPECT_EQ((*CommonType({IntegerType(), DecimalType(5, 2)}))->ToString(), "decimal(12,2)");
  EXPECT_EQ((*CommonType({DateType(), TimestampType()}))->ToString(), "timestamp");
  EXPECT_EQ((*CommonType({ListType(IntegerType()), ListType(LongType())}))->ToString(), "array<bigint>");
  EXPECT_EQ((*CommonType({NullType()}))->ToString(), "void");
  EXPECT_FALSE(CommonType({IntegerType(), BooleanType()}).has_value());
  EXPECT_FALSE(CommonType({}).has_value());
}

TEST(TypeCoercionTest, AnsiStoreAssignment) {
  EXPECT_TRUE(CanStoreAssign(LongType(), IntegerType()));
  EXPECT_TRUE(CanStoreAssign(DoubleType(), DecimalType(10, 2)));
  EXPECT_TRUE(CanStoreAssign(IntegerType(), StringType()));
  EXPECT_TRUE(CanStoreAssign(DateType(), TimestampType()));
  EXPECT_TRUE(CanStoreAssign(NullType(), ListType(IntegerType())));
  EXPECT_TRUE(CanStoreAssign(ListType(IntegerType()), ListType(LongType())));
  EXPECT_FALSE(CanStoreAssign(StringType(), IntegerType()));
  EXPECT_FALSE(CanStoreAssign(DoubleType(), BooleanType()));
  EXPECT_FALSE(CanStoreAssign(ListType(IntegerType()), ListType(IntegerType(), false)));
  EXPECT_FALSE(CanStoreAssign(StructType({Field{"a", IntegerType(), true, {}}}),
                              StructType({Field{"a", IntegerType(), true, {}}, Field{"b", IntegerType(), true, {}}})));
}

TEST(TypeCoercionTest, AdjustedDecimalKeepsIntegerDigits) {
  EXPECT_EQ(AdjustedDecimal(38, 10)->ToString(), "decimal(38,10)");
  EXPECT_EQ(AdjustedDecimal(40, 10)->ToString(), "decimal(38,8)");
  EXPECT_EQ(AdjustedDecimal(77, 20)->ToString(), "decimal(38,6)");
  EXPECT_EQ(AdjustedDecimal(50, 3)->ToString(), "decimal(38,3)");
}

}  // namespace
}  // namespace silt::expr
