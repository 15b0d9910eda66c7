#include "silt/expr/cast.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/expr/test_batch_internal.h"
#include "silt/types/date_time.h"

namespace silt::expr {
namespace {

using ::silt::expr::testing::EvaluateText;

// CAST(literal AS type) under ANSI (default) or legacy mode; "ERROR:<class>" when it raises.
std::string CastText(const Scalar& value, const DataTypePtr& type, bool ansi = true, ErrorMode mode = ErrorMode::kSession) {
  EvalContext context;
  context.ansi = ansi;
  try {
    return EvaluateText(Cast(Literal(value), type, mode), context);
  } catch (const Error& error) {
    return "ERROR:" + std::string(error.error_class());
  }
}

struct CastCase {
  Scalar input;
  DataTypePtr type;
  std::string ansi;
  std::string legacy;
};

TEST(CastTest, TableOfSparkResults) {
  Decimal128 big = 1;
  for (int i = 0; i < 20; ++i) big *= 10;
  std::vector<CastCase> cases = {
      {Scalar::String(" 42 "), IntegerType(), "42", "42"},
      {Scalar::String("-2147483648"), IntegerType(), "-2147483648", "-2147483648"},
      {Scalar::String("2147483648"), IntegerType(), "ERROR:CAST_INVALID_INPUT", "NULL"},
      {Scalar::String("1.9"), IntegerType(), "ERROR:CAST_INVALID_INPUT", "1"},
      {Scalar::String("abc"), IntegerType(), "ERROR:CAST_INVALID_INPUT", "NULL"},
      {Scalar::String(""), LongType(), "ERROR:CAST_INVALID_INPUT", "NULL"},
      {Scalar::String("1e3"), DoubleType(), "1000.0", "1000.0"},
      {Scalar::String("NaN"), DoubleType(), "NaN", "NaN"},
      {Scalar::String("-Infinity"), DoubleType(), "-Infinity", "-Infinity"},
      {Scalar::String("1.235"), DecimalType(5, 2), "1.24", "1.24"},
      {Scalar::String("-1.235"), DecimalType(5, 2), "-1.24", "-1.24"},
      {Scalar::String("12345.6"), DecimalType(5, 2), "ERROR:NUMERIC_VALUE_OUT_OF_RANGE", "NULL"},
      {Scalar::String("yes"), BooleanType(), "true", "true"},
      {Scalar::String(" F "), BooleanType(), "false", "false"},
      {Scalar::String("maybe"), BooleanType(), "ERROR:CAST_INVALID_INPUT", "NULL"},
      {Scalar::String("2024"), DateType(), "2024-01-01", "2024-01-01"},
      {Scalar::String("2024-3"), DateType(), "2024-03-01", "2024-03-01"},
      {Scalar::String("2024-02-29 10:00"), DateType(), "2024-02-29", "2024-02-29"},
      {Scalar::String("2023-02-29"), DateType(), "ERROR:CAST_INVALID_INPUT", "NULL"},
      {Scalar::String("2024-01-31T12:30:05.25"), TimestampType(), "2024-01-31 12:30:05.25", "2024-01-31 12:30:05.25"},
      {Scalar::String("2024-01-31 12:30:00+02:00"), TimestampType(), "2024-01-31 10:30:00", "2024-01-31 10:30:00"},
      {Scalar::String("2024-01-31 12:30:00Z"), TimestampNtzType(), "ERROR:CAST_INVALID_INPUT", "NULL"},
      {Scalar::Long(300), ByteType(), "ERROR:CAST_OVERFLOW", "44"},
      {Scalar::Integer(-129), ByteType(), "ERROR:CAST_OVERFLOW", "127"},
      {Scalar::Double(-1.9), IntegerType(), "-1", "-1"},
      {Scalar::Double(1e10), IntegerType(), "ERROR:CAST_OVERFLOW", "2147483647"},
      {Scalar::Double(std::nan("")), LongType(), "ERROR:CAST_OVERFLOW", "0"},
      {Scalar::Double(2.5), DecimalType(3, 0), "3", "3"},
      {Scalar::Double(-2.5), DecimalType(3, 0), "-3", "-3"},
      {Scalar::Decimal(-12999, DecimalType(10, 3)), IntegerType(), "-12", "-12"},
      {Scalar::Decimal(12345, DecimalType(10, 3)), DecimalType(4, 1), "12.3", "12.3"},
      {Scalar::Decimal(12355, DecimalType(10, 3)), DecimalType(4, 2), "12.36", "12.36"},
      {Scalar::Decimal(big, DecimalType(38, 0)), LongType(), "ERROR:CAST_OVERFLOW", "7766279631452241920"},
      {Scalar::Integer(123), DecimalType(3, 1), "ERROR:NUMERIC_VALUE_OUT_OF_RANGE", "NULL"},
      {Scalar::Integer(2), BooleanType(), "true", "true"},
      {Scalar::Boolean(true), IntegerType(), "1", "1"},
      {Scalar::Date(19753), TimestampType(), "2024-01-31 00:00:00", "2024-01-31 00:00:00"},
      {Scalar::Timestamp(-1), DateType(), "1969-12-31", "1969-12-31"},
      {Scalar::Timestamp(1'500'000), LongType(), "1", "1"},
      {Scalar::Long(2), TimestampType(), "1970-01-01 00:00:02", "1970-01-01 00:00:02"},
      {Scalar::Double(1.0), StringType(), "1.0", "1.0"},
      {Scalar::Decimal(150, DecimalType(5, 2)), StringType(), "1.50", "1.50"},
      {Scalar::Boolean(false), StringType(), "false", "false"},
      {Scalar::Binary("hi"), StringType(), "hi", "hi"},
      {Scalar::String("hi"), BinaryType(), "[68 69]", "[68 69]"},
      {Scalar::Null(IntegerType()), StringType(), "NULL", "NULL"},
  };
  for (const CastCase& test_case : cases) {
    SCOPED_TRACE(test_case.input.ToString() + " AS " + test_case.type->ToString());
    EXPECT_EQ(CastText(test_case.input, test_case.type, true), test_case.ansi);
    EXPECT_EQ(CastText(test_case.input, test_case.type, false), test_case.legacy);
  }
}

TEST(CastTest, TryCastGivesNullInsteadOfErrors) {
  EXPECT_EQ(CastText(Scalar::String("abc"), IntegerType(), true, ErrorMode::kTry), "NULL");
  EXPECT_EQ(CastText(Scalar::Long(300), ByteType(), true, ErrorMode::kTry), "NULL");
  EXPECT_EQ(CastText(Scalar::String("7"), IntegerType(), true, ErrorMode::kTry), "7");
}

TEST(CastTest, ErrorMessageNamesValueAndTypes) {
  try {
    EvaluateText(Cast(Literal(Scalar::String("abc")), IntegerType()));
    FAIL() << "expected CAST_INVALID_INPUT";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "CAST_INVALID_INPUT");
    EXPECT_THAT(error.message(), ::testing::HasSubstr("The value 'abc' of the type \"STRING\" cannot be cast to \"INT\""));
    EXPECT_EQ(error.sqlstate(), "22018");
  }
}

TEST(CastTest, NestedValuesToString) {
  VectorBuilder list(ListType(IntegerType()));
  list.child(0).AppendInt(1);
  list.child(0).AppendNull();
  list.FinishList();
  EXPECT_EQ(CastValueToString(*list.Finish(), 0), "[1, null]");
  VectorBuilder map(MapType(StringType(), IntegerType()));
  map.child(0).child(0).AppendString("a");
  map.child(0).child(1).AppendInt(1);
  map.child(0).AppendStruct();
  map.FinishList();
  EXPECT_EQ(CastValueToString(*map.Finish(), 0), "{a -> 1}");
  VectorBuilder row(StructType({Field{"x", IntegerType(), true, {}}, Field{"y", StringType(), true, {}}}));
  row.child(0).AppendInt(1);
  row.child(1).AppendString("a");
  row.AppendStruct();
  EXPECT_EQ(CastValueToString(*row.Finish(), 0), "{1, a}");
}

TEST(CastTest, NestedCastConvertsChildren) {
  VectorBuilder list(ListType(IntegerType()));
  list.child(0).AppendInt(1);
  list.child(0).AppendInt(2);
  list.FinishList();
  list.AppendNull();
  EvalContext context;
  VectorPtr result = CastVector(list.Finish(), ListType(StringType()), ErrorMode::kSession, context);
  EXPECT_EQ(result->ValueToString(0), "[1, 2]");
  EXPECT_TRUE(result->IsNull(1));
  EXPECT_TRUE(result->child(0)->type()->Equals(*StringType()));
}

TEST(CastTest, UnsupportedCastsAreRejectedAtBinding) {
  EXPECT_FALSE(CanCast(DateType(), BooleanType()));
  EXPECT_FALSE(CanCast(BinaryType(), IntegerType()));
  EXPECT_FALSE(CanCast(StringType(), ListType(IntegerType())));
  EXPECT_TRUE(CanCast(IntegerType(), StringType()));
  try {
    Cast(Literal(Scalar::Date(0)), BooleanType());
    FAIL() << "expected DATATYPE_MISMATCH";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DATATYPE_MISMATCH");
  }
}

TEST(CastTest, ParsesSparkDateAndTimestampForms) {
  EXPECT_EQ(ParseSparkDate("1970-01-02"), 1);
  EXPECT_EQ(ParseSparkDate(" 2024-1-5 "), 19727);
  EXPECT_FALSE(ParseSparkDate("2024-13-01").has_value());
  EXPECT_FALSE(ParseSparkDate("24-01-01").has_value());
  EXPECT_FALSE(ParseSparkDate("2024/01/01").has_value());
  EXPECT_EQ(ParseSparkTimestamp("1970-01-01 00:00:01.5"), 1'500'000);
  EXPECT_EQ(ParseSparkTimestamp("1970-01-01T01:00:00-01:00"), 2 * 3600 * kMicrosPerSecond);
  EXPECT_EQ(ParseSparkTimestamp("1970-01-01 00:00:00.1234567"), 123456);
  EXPECT_FALSE(ParseSparkTimestamp("1970-01-01 25:00:00").has_value());
  EXPECT_FALSE(ParseSparkTimestamp("1970-01-01 10:00:00 Mars").has_value());
}

}  // namespace
}  // namespace silt::expr
