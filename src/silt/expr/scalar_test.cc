#include "silt/expr/scalar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/error.h"

namespace silt::expr {
namespace {

TEST(ScalarTest, PrimitivesPrintInSparkTextForm) {
  EXPECT_EQ(Scalar::Integer(42).ToString(), "42");
  EXPECT_EQ(Scalar::Long(-7).ToString(), "-7");
  EXPECT_EQ(Scalar::Double(1.0).ToString(), "1.0");
  EXPECT_EQ(Scalar::Boolean(true).ToString(), "true");
  EXPECT_EQ(Scalar::Decimal(150, DecimalType(5, 2)).ToString(), "1.50");
  EXPECT_EQ(Scalar::Date(19753).ToString(), "2024-01-31");
  EXPECT_EQ(Scalar::String("abc").ToString(), "abc");
  EXPECT_EQ(Scalar::Null(IntegerType()).ToString(), "NULL");
}

TEST(ScalarTest, AccessorsReturnTheValue) {
  EXPECT_EQ(Scalar::Short(-3).GetInt(), -3);
  EXPECT_EQ(Scalar::Timestamp(5).GetInt(), 5);
  EXPECT_DOUBLE_EQ(Scalar::Float(1.5f).GetDouble(), 1.5);
  EXPECT_EQ(Scalar::Decimal(-5, DecimalType(3, 2)).GetDecimal(), -5);
  EXPECT_EQ(Scalar::Binary("\x01\x02").GetString(), "\x01\x02");
  EXPECT_TRUE(Scalar::Null(StringType()).is_null());
  EXPECT_THROW(Scalar::Null(IntegerType()).GetInt(), Error);
  EXPECT_THROW(Scalar::String("x").GetInt(), Error);
}

TEST(ScalarTest, ToVectorRepeatsTheValue) {
  VectorPtr ints = Scalar::Integer(7).ToVector(3);
  ASSERT_EQ(ints->length(), 3);
  EXPECT_EQ(ints->values<int32_t>()[2], 7);
  EXPECT_EQ(ints->null_count(), 0);
  VectorPtr strings = Scalar::String("ab").ToVector(2);
  EXPECT_EQ(strings->GetString(1), "ab");
  VectorPtr bools = Scalar::Boolean(true).ToVector(9);
  EXPECT_TRUE(bools->GetBool(8));
  VectorPtr nulls = Scalar::Null(DoubleType()).ToVector(4);
  EXPECT_EQ(nulls->null_count(), 4);
  EXPECT_TRUE(nulls->type()->Equals(*DoubleType()));
}

TEST(ScalarTest, NestedValuesRoundTripThroughVectors) {
  VectorBuilder builder(ListType(IntegerType()));
  builder.child(0).AppendInt(1);
  builder.child(0).AppendNull();
  builder.FinishList();
  VectorPtr list = builder.Finish();
  Scalar scalar = Scalar::FromVector(*list, 0);
  EXPECT_EQ(scalar.ToString(), "[1, NULL]");
  EXPECT_EQ(scalar.ToVector(2)->ValueToString(1), "[1, NULL]");
  EXPECT_TRUE(scalar.Equals(Scalar::FromVector(*list, 0)));
  EXPECT_FALSE(scalar.Equals(Scalar::Integer(1)));
}

}  // namespace
}  // namespace silt::expr
