// Functions of text_functions.cc, array_functions.cc, calendar_functions.cc,
// operator_functions.cc and random_functions.cc, and the math additions.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "silt/expr/function_registry.h"
#include "silt/expr/operator_functions.h"
#include "silt/expr/test_batch_internal.h"
#include "silt/types/date_time.h"

namespace silt::expr {
namespace {

using ::silt::expr::testing::EvaluateText;
using ::silt::expr::testing::IntColumn;
using ::silt::expr::testing::MakeBatch;
using ::silt::expr::testing::Texts;
using ::testing::ElementsAre;

ExpressionPtr Int(int32_t value) { return Literal(Scalar::Integer(value)); }
ExpressionPtr Long(int64_t value) { return Literal(Scalar::Long(value)); }
ExpressionPtr Str(std::string_view value) { return Literal(Scalar::String(value)); }
ExpressionPtr Dbl(double value) { return Literal(Scalar::Double(value)); }
ExpressionPtr Bool(bool value) { return Literal(Scalar::Boolean(value)); }
ExpressionPtr NullOf(DataTypePtr type) { return Literal(Scalar::Null(std::move(type))); }
ExpressionPtr Day(const char* text) { return Literal(Scalar::Date(static_cast<int32_t>(*ParseDate(text)))); }
ExpressionPtr Time(const char* text) { return Literal(Scalar::Timestamp(*ParseTimestamp(text))); }

ExpressionPtr Call(std::string_view name, std::vector<ExpressionPtr> arguments) {
  return FunctionRegistry::Default().Bind(name, std::move(arguments));
}

ExpressionPtr Array(std::vector<ExpressionPtr> items) { return Call("array", std::move(items)); }

// Binds and evaluates a constant call; "ERROR:<class>" when binding or evaluation raises.
std::string CallText(std::string_view name, std::vector<ExpressionPtr> arguments, bool ansi = true) {
  EvalContext context;
  context.ansi = ansi;
  try {
    return EvaluateText(Call(name, std::move(arguments)), context);
  } catch (const Error& error) {
    return "ERROR:" + std::string(error.error_class());
  }
}

TEST(TextFunctionsTest, Searching) {
  EXPECT_EQ(CallText("instr", {Str("hello"), Str("l")}), "3");
  EXPECT_EQ(CallText("instr", {Str("hello"), Str("z")}), "0");
  EXPECT_EQ(CallText("instr", {Str("héllo"), Str("l")}), "3");  // code points, not bytes
  EXPECT_EQ(CallText("instr", {NullOf(StringType()), Str("l")}), "NULL");
  EXPECT_EQ(CallText("locate", {Str("l"), Str("hello")}), "3");
  EXPECT_EQ(CallText("locate", {Str("l"), Str("hello"), Int(4)}), "4");
  EXPECT_EQ(CallText("locate", {Str("l"), Str("hello"), Int(0)}), "0");
  EXPECT_EQ(CallText("locate", {Str("l"), Str("hello"), NullOf(IntegerType())}), "0");
  EXPECT_EQ(CallText("position", {Str("lo"), Str("hello")}), "4");
  EXPECT_EQ(CallText("startswith", {Str("spark"), Str("sp")}), "true");
  EXPECT_EQ(CallText("startswith", {Str("spark"), Str("ar")}), "false");
  EXPECT_EQ(CallText("endswith", {Str("spark"), Str("rk")}), "true");
  EXPECT_EQ(CallText("endswith", {Str("k"), Str("rk")}), "false");
  EXPECT_EQ(CallText("contains", {Str("spark"), Str("par")}), "true");
  EXPECT_EQ(CallText("contains", {Str("spark"), NullOf(StringType())}), "NULL");
}

TEST(TextFunctionsTest, SlicingAndRewriting) {
  EXPECT_EQ(CallText("left", {Str("hello"), Int(2)}), "he");
  EXPECT_EQ(CallText("left", {Str("hello"), Int(-1)}), "");
  EXPECT_EQ(CallText("right", {Str("héllo"), Int(4)}), "éllo");
  EXPECT_EQ(CallText("right", {Str("hi"), Int(10)}), "hi");
  EXPECT_EQ(CallText("repeat", {Str("ab"), Int(3)}), "ababab");
  EXPECT_EQ(CallText("repeat", {Str("ab"), Int(0)}), "");
  EXPECT_EQ(CallText("initcap", {Str("hELLO wORLD-x yz")}), "Hello World-x Yz");
  EXPECT_EQ(CallText("translate", {Str("AaBbCc"), Str("abc"), Str("12")}), "A1B2C");
  EXPECT_EQ(CallText("translate", {Str("aaa"), Str("aa"), Str("xy")}), "xxx");
  EXPECT_EQ(CallText("ascii", {Str("A")}), "65");
  EXPECT_EQ(CallText("ascii", {Str("é")}), "233");
  EXPECT_EQ(CallText("ascii", {Str("")}), "0");
  EXPECT_EQ(CallText("chr", {Int(65)}), "A");
  EXPECT_EQ(CallText("char", {Int(321)}), "A");  // the low byte
  EXPECT_EQ(CallText("chr", {Int(-1)}), "");
}

TEST(TextFunctionsTest, UnicodeCaseLengthsAndConcatWsOfArrays) {
  EXPECT_EQ(CallText("upper", {Str("héllo")}), "HÉLLO");
  EXPECT_EQ(CallText("upper", {Str("straße")}), "STRASSE");
  EXPECT_EQ(CallText("lower", {Str("ÀÉÎ Ω")}), "àéî ω");
  EXPECT_EQ(CallText("ucase", {Str("ж")}), "Ж");
  EXPECT_EQ(CallText("octet_length", {Str("é")}), "2");
  EXPECT_EQ(CallText("bit_length", {Str("ab")}), "16");
  EXPECT_EQ(CallText("concat_ws", {Str(","), Array({Str("x"), Str("y")}), Str("z")}), "x,y,z");
  EXPECT_EQ(CallText("concat_ws", {Str("/"), Str("a"), Array({Str("b"), NullOf(StringType()), Str("c")})}), "a/b/c");
  EXPECT_EQ(CallText("concat_ws", {Str("-"), Array({Int(1), Int(2)})}), "1-2");
}

TEST(ArrayFunctionsTest, ArrayContainsFollowsNullRules) {
  EXPECT_EQ(CallText("array_contains", {Array({Int(1), Int(2)}), Int(2)}), "true");
  EXPECT_EQ(CallText("array_contains", {Array({Int(1), Int(2)}), Int(3)}), "false");
  EXPECT_EQ(CallText("array_contains", {Array({Int(1), NullOf(IntegerType())}), Int(3)}), "NULL");
  EXPECT_EQ(CallText("array_contains", {Array({Int(1), NullOf(IntegerType())}), Int(1)}), "true");
  EXPECT_EQ(CallText("array_contains", {Array({Int(1)}), NullOf(IntegerType())}), "NULL");
  EXPECT_EQ(CallText("array_contains", {Array({Int(1)}), Dbl(1.0)}), "true");
  EXPECT_EQ(CallText("array_contains", {Int(1), Int(1)}), "ERROR:DATATYPE_MISMATCH");
}

TEST(ArrayFunctionsTest, SortDistinctConcat) {
  ExpressionPtr values = Array({Int(3), NullOf(IntegerType()), Int(1), Int(3)});
  EXPECT_EQ(CallText("sort_array", {values}), "[NULL, 1, 3, 3]");
  EXPECT_EQ(CallText("sort_array", {values, Bool(false)}), "[3, 3, 1, NULL]");
  EXPECT_EQ(CallText("sort_array", {Array({Str("b"), Str("a")})}), "[a, b]");
  EXPECT_EQ(CallText("sort_array", {Array({Dbl(NAN), Dbl(1.0), Dbl(-2.0)})}), "[-2.0, 1.0, NaN]");
  EXPECT_EQ(CallText("sort_array", {values, Call("rand", {})}), "ERROR:DATATYPE_MISMATCH");
  EXPECT_EQ(CallText("array_distinct", {values}), "[3, NULL, 1]");
  EXPECT_EQ(CallText("concat", {Array({Int(1)}), Array({Int(2), Int(3)})}), "[1, 2, 3]");
  EXPECT_EQ(CallText("concat", {Array({Int(1)}), NullOf(ListType(IntegerType()))}), "NULL");
  EXPECT_EQ(CallText("concat", {Str("a"), Str("b")}), "ab");
}

TEST(ArrayFunctionsTest, MapKeysAndValues) {
  ExpressionPtr map = Call("map", {Str("a"), Int(1), Str("b"), NullOf(IntegerType())});
  EXPECT_EQ(CallText("map_keys", {map}), "[a, b]");
  EXPECT_EQ(CallText("map_values", {map}), "[1, NULL]");
  EXPECT_EQ(CallText("map_keys", {NullOf(MapType(StringType(), IntegerType()))}), "NULL");
  EXPECT_EQ(CallText("map_keys", {Int(1)}), "ERROR:DATATYPE_MISMATCH");
}

TEST(CalendarFunctionsTest, DatePartAndExtractFields) {
  EXPECT_EQ(CallText("date_part", {Str("YEAR"), Day("2024-03-15")}), "2024");
  EXPECT_EQ(CallText("date_part", {Str("mon"), Day("2024-03-15")}), "3");
  EXPECT_EQ(CallText("date_part", {Str("QUARTER"), Day("2024-03-15")}), "1");
  EXPECT_EQ(CallText("date_part", {Str("week"), Day("2024-03-15")}), "11");
  EXPECT_EQ(CallText("date_part", {Str("DOW"), Day("2024-03-15")}), "6");  // Friday; Sunday = 1
  EXPECT_EQ(CallText("date_part", {Str("hour"), Time("2024-03-15 10:20:30.25")}), "10");
  EXPECT_EQ(CallText("date_part", {Str("SECOND"), Time("2024-03-15 10:20:30.25")}), "30.250000");
  EXPECT_EQ(CallText("date_part", {Str("fortnight"), Day("2024-03-15")}), "ERROR:INVALID_PARAMETER_VALUE");
  EXPECT_EQ(CallText("extract", {Str("DAY"), Day("2024-03-15")}), "15");
}

TEST(CalendarFunctionsTest, WeeksMonthEndsAndWeekdays) {
  EXPECT_EQ(CallText("weekofyear", {Day("2024-01-01")}), "1");
  EXPECT_EQ(CallText("weekofyear", {Day("2023-01-01")}), "52");  // a Sunday: ISO week 52 of 2022
  EXPECT_EQ(CallText("weekofyear", {Day("2020-12-31")}), "53");
  EXPECT_EQ(CallText("last_day", {Day("2024-02-10")}), "2024-02-29");
  EXPECT_EQ(CallText("last_day", {Str("2023-12-05")}), "2023-12-31");
  EXPECT_EQ(CallText("next_day", {Day("2024-03-15"), Str("Mon")}), "2024-03-18");
  EXPECT_EQ(CallText("next_day", {Day("2024-03-15"), Str("FRIDAY")}), "2024-03-22");
  EXPECT_EQ(CallText("next_day", {Day("2024-03-15"), Str("xx")}), "ERROR:INVALID_PARAMETER_VALUE");
  EXPECT_EQ(CallText("next_day", {Day("2024-03-15"), Str("xx")}, /*ansi=*/false), "NULL");
  EXPECT_EQ(CallText("to_unix_timestamp", {Time("2024-01-01 00:00:01")}), "1704067201");
  EXPECT_EQ(CallText("unix_timestamp", {Str("02/01/2024 00:00"), Str("dd/MM/yyyy HH:mm")}), "1704153600");
  EXPECT_EQ(CallText("timestamp_seconds", {Literal(Scalar::Decimal(15, DecimalType(2, 1)))}), "1970-01-01 00:00:01.5");
  EXPECT_EQ(CallText("timestamp_seconds", {Dbl(0.001)}), "1970-01-01 00:00:00.001");
  EXPECT_EQ(CallText("timestamp_seconds", {Dbl(NAN)}), "NULL");
  EXPECT_EQ(CallText("timestamp_seconds", {Dbl(1e300)}), "ERROR:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(CallText("to_unix_timestamp", {Str("2024-01-01"), Str("yyyy-MM-dd")}), "1704067200");
}

TEST(OperatorFunctionsTest, DivisionShiftsNegationAndTypeof) {
  EXPECT_EQ(CallText("div", {Int(7), Int(2)}), "3");
  EXPECT_EQ(CallText("div", {Int(-7), Int(2)}), "-3");
  EXPECT_EQ(CallText("div", {Int(7), Int(0)}), "ERROR:DIVIDE_BY_ZERO");
  EXPECT_EQ(CallText("div", {Int(7), Int(0)}, /*ansi=*/false), "NULL");
  EXPECT_EQ(CallText("div", {Long(INT64_MIN), Int(-1)}), "ERROR:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(CallText("div", {Dbl(1.5), Int(1)}), "ERROR:DATATYPE_MISMATCH");
  EXPECT_EQ(CallText("shiftleft", {Int(1), Int(33)}), "2");  // the count wraps at the width
  EXPECT_EQ(CallText("shiftright", {Int(-8), Int(1)}), "-4");
  EXPECT_EQ(CallText("shiftrightunsigned", {Long(-1), Int(60)}), "15");
  EXPECT_EQ(CallText("negative", {Int(5)}), "-5");
  EXPECT_EQ(CallText("negative", {Int(INT32_MIN)}), "ERROR:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(CallText("negative", {Int(INT32_MIN)}, /*ansi=*/false), "-2147483648");
  EXPECT_EQ(CallText("positive", {Dbl(1.5)}), "1.5");
  EXPECT_EQ(CallText("typeof", {Literal(Scalar::Decimal(15, DecimalType(10, 2)))}), "decimal(10,2)");
  EXPECT_EQ(CallText("typeof", {Array({Int(1)})}), "array<int>");
}

TEST(OperatorFunctionsTest, StructFieldAndBitwiseNodes) {
  Batch batch = MakeBatch({IntColumn(IntegerType(), {12, std::nullopt, -1})});
  EvalContext context;
  ExpressionPtr column = Column(0, IntegerType());
  EXPECT_THAT(Texts(Evaluate(*Bitwise(BitwiseOperator::kAnd, column, Int(10)), batch, context)),
              ElementsAre("8", "NULL", "10"));
  EXPECT_THAT(Texts(Evaluate(*BitwiseNot(column), batch, context)), ElementsAre("-13", "NULL", "0"));
  ExpressionPtr record = Call("named_struct", {Str("x"), column, Str("y"), Str("k")});
  EXPECT_THAT(Texts(Evaluate(*StructField(record, 0), batch, context)), ElementsAre("12", "NULL", "-1"));
  EXPECT_THAT(Texts(Evaluate(*StructField(record, 1), batch, context)), ElementsAre("k", "k", "k"));
}

TEST(OperatorFunctionsTest, IntervalsAddMonthsAndMicros) {
  IntervalValue month{1, 0, true, false};
  IntervalValue day{0, kMicrosPerDay, false, true};
  IntervalValue hours{0, 36 * 3600 * kMicrosPerSecond, false, false};
  EXPECT_EQ(EvaluateText(AddInterval(Day("2024-01-31"), month)), "2024-02-29");
  EXPECT_EQ(EvaluateText(AddInterval(Day("2024-01-31"), day)), "2024-02-01");
  EXPECT_EQ(EvaluateText(AddInterval(Day("2024-01-31"), hours)), "2024-02-01 12:00:00");
  EXPECT_EQ(EvaluateText(AddInterval(Time("2024-03-31 23:00:00"), month)), "2024-04-30 23:00:00");
  // Months are added to the local date of the session zone.
  EvalContext zoned;
  zoned.time_zone = "+02:00";
  EXPECT_EQ(EvaluateText(AddInterval(Time("2024-01-31 23:00:00"), month), zoned), "2024-02-29 23:00:00");
  EXPECT_THROW(AddInterval(Int(1), month), Error);
}

TEST(MathFunctionsTest, LogarithmsTrigonometryAndConstants) {
  EXPECT_EQ(CallText("ln", {Dbl(1.0)}), "0.0");
  EXPECT_EQ(CallText("ln", {Dbl(0.0)}), "NULL");
  EXPECT_EQ(CallText("log10", {Int(1000)}), "3.0");
  EXPECT_EQ(CallText("log2", {Int(8)}), "3.0");
  EXPECT_EQ(CallText("log", {Int(2), Int(1024)}), "10.0");
  EXPECT_EQ(CallText("log", {Int(-2), Int(1024)}), "NULL");
  EXPECT_EQ(CallText("log", {Dbl(1.0)}), "0.0");
  EXPECT_EQ(CallText("cbrt", {Int(27)}), "3.0");
  EXPECT_EQ(CallText("degrees", {Call("pi", {})}), "180.0");
  EXPECT_EQ(CallText("cos", {Int(0)}), "1.0");
  EXPECT_EQ(CallText("atan2", {Int(0), Int(1)}), "0.0");
  EXPECT_EQ(CallText("signum", {Int(-4)}), "-1.0");
  // bround rounds HALF_EVEN; round HALF_UP.
  ExpressionPtr two_and_half = Literal(Scalar::Decimal(25, DecimalType(2, 1)));
  EXPECT_EQ(CallText("bround", {two_and_half}), "2");
  EXPECT_EQ(CallText("round", {two_and_half}), "3");
  EXPECT_EQ(CallText("bround", {Literal(Scalar::Decimal(-25, DecimalType(2, 1)))}), "-2");
  EXPECT_EQ(CallText("bround", {Literal(Scalar::Decimal(35, DecimalType(2, 1)))}), "4");
  EXPECT_EQ(CallText("bround", {Dbl(2.5)}), "2.0");
  EXPECT_EQ(CallText("bround", {Dbl(0.125), Int(2)}), "0.12");
  EXPECT_EQ(CallText("round", {Dbl(0.125), Int(2)}), "0.13");
  EXPECT_EQ(CallText("bround", {Int(25), Int(-1)}), "20");
  EXPECT_EQ(CallText("bround", {Int(35), Int(-1)}), "40");
}

TEST(DigestFunctionsTest, Sha2With384And512Bits) {
  EXPECT_EQ(CallText("sha2", {Str("abc"), Int(512)}),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd"
            "454d4423643ce80e2a9ac94fa54ca49f");
  EXPECT_EQ(CallText("sha2", {Str("abc"), Int(384)}),
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7");
  EXPECT_EQ(CallText("sha2", {Str(""), Int(512)}),
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f"
            "63b931bd47417a81a538327af927da3e");
  // Two blocks: 112 bytes of input leave no room for the length in the first block.
  EXPECT_EQ(CallText("sha2", {Str(std::string(112, 'a')), Int(512)}),
            "c01d080efd492776a1c43bd23dd99d0a2e626d481e16782e75d54c2503b5dc32bd05f0f1ba33e568b88fd2d970929b71"
            "9ecbb152f58f130a407c8830604b70ca");
}

TEST(RandomFunctionsTest, NonDeterministicValuesInRange) {
  ExpressionPtr rand = Call("rand", {});
  EXPECT_FALSE(rand->deterministic());
  EXPECT_FALSE(Call("uuid", {})->deterministic());
  Batch batch = MakeBatch({IntColumn(IntegerType(), std::vector<std::optional<int64_t>>(100, 1))});
  EvalContext context;
  VectorPtr values = Evaluate(*rand, batch, context);
  std::set<double> distinct;
  for (int64_t i = 0; i < values->length(); ++i) {
    double value = values->values<double>()[i];
    EXPECT_GE(value, 0.0);
    EXPECT_LT(value, 1.0);
    distinct.insert(value);
  }
  EXPECT_GT(distinct.size(), 90u);
  // A seed repeats the sequence.
  VectorPtr first = Evaluate(*Call("rand", {Int(42)}), batch, context);
  VectorPtr second = Evaluate(*Call("rand", {Int(42)}), batch, context);
  EXPECT_TRUE(first->Equals(*second));
  VectorPtr uuids = Evaluate(*Call("uuid", {}), batch, context);
  std::string text(uuids->GetString(0));
  ASSERT_EQ(text.size(), 36u);
  EXPECT_EQ(text[14], '4');
  EXPECT_NE(uuids->GetString(0), uuids->GetString(1));
  EXPECT_EQ(CallText("rand", {Str("x")}), "ERROR:DATATYPE_MISMATCH");
}

}  // namespace
}  // namespace silt::expr
