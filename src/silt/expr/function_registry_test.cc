#include "silt/expr/function_registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/expr/test_batch_internal.h"

namespace silt::expr {
namespace {

using ::silt::expr::testing::EvaluateText;
using ::silt::expr::testing::IntColumn;
using ::silt::expr::testing::MakeBatch;
using ::silt::expr::testing::StringColumn;
using ::silt::expr::testing::Texts;
using ::testing::ElementsAre;

ExpressionPtr Int(int32_t value) { return Literal(Scalar::Integer(value)); }
ExpressionPtr Str(std::string_view value) { return Literal(Scalar::String(value)); }
ExpressionPtr Dbl(double value) { return Literal(Scalar::Double(value)); }
ExpressionPtr NullOf(DataTypePtr type) { return Literal(Scalar::Null(std::move(type))); }

// Binds and evaluates a constant call; "ERROR:<class>" when binding or evaluation raises.
std::string CallText(std::string_view name, std::vector<ExpressionPtr> arguments, bool ansi = true) {
  EvalContext context;
  context.ansi = ansi;
  context.statement_timestamp_micros = 1'706'704'200'000'000;  // 2024-01-31 12:30:00 UTC
  try {
    return EvaluateText(FunctionRegistry::Default().Bind(name, std::move(arguments)), context);
  } catch (const Error& error) {
    return "ERROR:" + std::string(error.error_class());
  }
}

TEST(FunctionRegistryTest, LookupIsCaseInsensitiveAndUnknownNamesFail) {
  EXPECT_EQ(CallText("UPPER", {Str("abc")}), "ABC");
  EXPECT_EQ(CallText("no_such_function", {}), "ERROR:UNRESOLVED_ROUTINE");
  EXPECT_EQ(CallText("upper", {}), "ERROR:WRONG_NUM_ARGS");
  EXPECT_EQ(CallText("upper", {Str("a"), Str("b")}), "ERROR:WRONG_NUM_ARGS");
  EXPECT_EQ(CallText("date_add", {Literal(Scalar::Boolean(true)), Int(1)}), "ERROR:DATATYPE_MISMATCH");
  EXPECT_TRUE(FunctionRegistry::Default().Contains("Coalesce"));
  EXPECT_GT(FunctionRegistry::Default().Names().size(), 60u);
}

TEST(FunctionRegistryTest, ConditionalFunctions) {
  EXPECT_EQ(CallText("coalesce", {NullOf(IntegerType()), Int(2), Int(3)}), "2");
  EXPECT_EQ(CallText("nvl", {NullOf(StringType()), Str("x")}), "x");
  EXPECT_EQ(CallText("ifnull", {Int(1), Int(2)}), "1");
  EXPECT_EQ(CallText("nvl2", {NullOf(IntegerType()), Int(1), Int(2)}), "2");
  EXPECT_EQ(CallText("nullif", {Int(1), Int(1)}), "NULL");
  EXPECT_EQ(CallText("nullif", {Int(1), Int(2)}), "1");
  EXPECT_EQ(CallText("if", {Literal(Scalar::Boolean(false)), Int(1), Int(2)}), "2");
  EXPECT_EQ(CallText("if", {NullOf(BooleanType()), Int(1), Int(2)}), "2");
  EXPECT_EQ(CallText("if", {Literal(Scalar::Boolean(true)), Int(1), Arithmetic(ArithmeticOperator::kDivide, Int(1), Int(0))}),
            "1.0");
  EXPECT_EQ(CallText("greatest", {Int(1), NullOf(IntegerType()), Literal(Scalar::Long(3))}), "3");
  EXPECT_EQ(CallText("least", {Dbl(1.5), Int(1)}), "1.0");
  EXPECT_EQ(CallText("greatest", {NullOf(IntegerType()), NullOf(IntegerType())}), "NULL");
  EXPECT_EQ(CallText("isnull", {NullOf(IntegerType())}), "true");
}

TEST(FunctionRegistryTest, StringFunctions) {
  EXPECT_EQ(CallText("concat", {Str("a"), Int(1), Str("b")}), "a1b");
  EXPECT_EQ(CallText("concat", {Str("a"), NullOf(StringType())}), "NULL");
  EXPECT_EQ(CallText("concat_ws", {Str("-"), Str("a"), NullOf(StringType()), Str("b")}), "a-b");
  EXPECT_EQ(CallText("concat_ws", {NullOf(StringType()), Str("a")}), "NULL");
  EXPECT_EQ(CallText("lower", {Str("AbC")}), "abc");
  EXPECT_EQ(CallText("trim", {Str("  a b  ")}), "a b");
  EXPECT_EQ(CallText("ltrim", {Str("  a ")}), "a ");
  EXPECT_EQ(CallText("rtrim", {Str(" a  ")}), " a");
  EXPECT_EQ(CallText("trim", {Str("xxaxx"), Str("x")}), "a");
  EXPECT_EQ(CallText("lpad", {Str("hi"), Int(5), Str("ab")}), "abahi");
  EXPECT_EQ(CallText("rpad", {Str("hi"), Int(5)}), "hi   ");
  EXPECT_EQ(CallText("lpad", {Str("hello"), Int(2)}), "he");
  EXPECT_EQ(CallText("substring", {Str("Spark SQL"), Int(5)}), "k SQL");
  EXPECT_EQ(CallText("substr", {Str("Spark SQL"), Int(-3)}), "SQL");
  EXPECT_EQ(CallText("substring", {Str("Spark SQL"), Int(5), Int(1)}), "k");
  EXPECT_EQ(CallText("substring", {Str("Spark"), Int(0), Int(2)}), "Sp");
  EXPECT_EQ(CallText("substring", {Str("héllo"), Int(2), Int(2)}), "él");
  EXPECT_EQ(CallText("length", {Str("héllo")}), "5");
  EXPECT_EQ(CallText("length", {NullOf(StringType())}), "NULL");
  EXPECT_EQ(CallText("replace", {Str("ABCabc"), Str("abc"), Str("DEF")}), "ABCDEF");
  EXPECT_EQ(CallText("replace", {Str("aXbX"), Str("X")}), "ab");
  EXPECT_EQ(CallText("reverse", {Str("abé")}), "éba");
}

TEST(FunctionRegistryTest, LikeAndRegularExpressions) {
  EXPECT_EQ(CallText("like", {Str("Spark"), Str("_park")}), "true");
  EXPECT_EQ(CallText("like", {Str("Spark"), Str("S%k")}), "true");
  EXPECT_EQ(CallText("like", {Str("Spark"), Str("s%")}), "false");
  EXPECT_EQ(CallText("ilike", {Str("Spark"), Str("s%")}), "true");
  EXPECT_EQ(CallText("like", {Str("50%"), Str("50\\%")}), "true");
  EXPECT_EQ(CallText("like", {Str("50x"), Str("50\\%")}), "false");
  EXPECT_EQ(CallText("like", {Str("a_b"), Str("a/_b"), Str("/")}), "true");
  EXPECT_EQ(CallText("like", {Str("%"), Str("%%")}), "true");
  // Constant patterns of text and '%' only are matched piece by piece.
  EXPECT_EQ(CallText("like", {Str("a special case of requests"), Str("%special%requests%")}), "true");
  EXPECT_EQ(CallText("like", {Str("requests, special"), Str("%special%requests%")}), "false");
  EXPECT_EQ(CallText("like", {Str("specialrequests"), Str("%special%requests%")}), "true");
  EXPECT_EQ(CallText("like", {Str("aba"), Str("ab%ba")}), "false");
  EXPECT_EQ(CallText("like", {Str("abba"), Str("ab%ba")}), "true");
  EXPECT_EQ(CallText("like", {Str("PROMO BRUSHED"), Str("PROMO%")}), "true");
  EXPECT_EQ(CallText("like", {Str("LARGE BRASS"), Str("%BRASS")}), "true");
  EXPECT_EQ(CallText("like", {Str("LARGE BRASSY"), Str("%BRASS")}), "false");
  EXPECT_EQ(CallText("like", {Str("exact"), Str("exact")}), "true");
  EXPECT_EQ(CallText("like", {Str("exactly"), Str("exact")}), "false");
  EXPECT_EQ(CallText("like", {Str(""), Str("%")}), "true");
  EXPECT_EQ(CallText("like", {Str("xax"), Str("%a%a%")}), "false");
  EXPECT_EQ(CallText("like", {Str("a%b"), Str("a!%b"), Str("!")}), "true");
  EXPECT_EQ(CallText("like", {Str("axb"), Str("a!%b"), Str("!")}), "false");
  EXPECT_EQ(CallText("rlike", {Str("abc123"), Str("[0-9]+")}), "true");
  EXPECT_EQ(CallText("regexp_replace", {Str("100-200"), Str("(\\d+)"), Str("num")}), "num-num");
  EXPECT_EQ(CallText("regexp_extract", {Str("100-200"), Str("(\\d+)-(\\d+)"), Int(2)}), "200");
  EXPECT_EQ(CallText("regexp_extract", {Str("abc"), Str("(\\d+)"), Int(1)}), "");
  EXPECT_EQ(CallText("regexp_extract", {Str("abc"), Str("(a)"), Int(3)}), "ERROR:INVALID_PARAMETER_VALUE");
  EXPECT_EQ(CallText("split", {Str("oneAtwoBthreeC"), Str("[ABC]")}), "[one, two, three, ]");
  EXPECT_EQ(CallText("split", {Str("a,b,c"), Str(","), Int(2)}), "[a, b,c]");
}

TEST(FunctionRegistryTest, MathFunctions) {
  EXPECT_EQ(CallText("abs", {Int(-3)}), "3");
  EXPECT_EQ(CallText("abs", {Literal(Scalar::Integer(INT32_MIN))}), "ERROR:ARITHMETIC_OVERFLOW");
  EXPECT_EQ(CallText("abs", {Literal(Scalar::Integer(INT32_MIN))}, false), "-2147483648");
  EXPECT_EQ(CallText("abs", {Literal(Scalar::Decimal(-150, DecimalType(5, 2)))}), "1.50");
  EXPECT_EQ(CallText("round", {Dbl(2.5)}), "3.0");
  EXPECT_EQ(CallText("round", {Dbl(-2.5)}), "-3.0");
  EXPECT_EQ(CallText("round", {Dbl(0.125), Int(2)}), "0.13");
  EXPECT_EQ(CallText("round", {Int(125), Int(-1)}), "130");
  EXPECT_EQ(CallText("round", {Literal(Scalar::Decimal(12345, DecimalType(10, 3))), Int(2)}), "12.35");
  EXPECT_EQ(CallText("round", {Literal(Scalar::Decimal(12345, DecimalType(10, 3))), Int(-1)}), "10");
  EXPECT_EQ(CallText("floor", {Dbl(-1.5)}), "-2");
  EXPECT_EQ(CallText("ceil", {Dbl(1.2)}), "2");
  EXPECT_EQ(CallText("ceil", {Literal(Scalar::Decimal(-150, DecimalType(5, 2)))}), "-1");
  EXPECT_EQ(CallText("floor", {Literal(Scalar::Decimal(-150, DecimalType(5, 2)))}), "-2");
  EXPECT_EQ(CallText("mod", {Int(-7), Int(3)}), "-1");
  EXPECT_EQ(CallText("pmod", {Int(-7), Int(3)}), "2");
  EXPECT_EQ(CallText("pmod", {Int(7), Int(3)}), "1");
  EXPECT_EQ(CallText("mod", {Int(1), Int(0)}), "ERROR:DIVIDE_BY_ZERO");
  EXPECT_EQ(CallText("try_divide", {Int(1), Int(0)}), "NULL");
  EXPECT_EQ(CallText("try_add", {Literal(Scalar::Long(INT64_MAX)), Literal(Scalar::Long(1))}), "NULL");
  EXPECT_EQ(CallText("try_multiply", {Int(6), Int(7)}), "42");
  EXPECT_EQ(CallText("sqrt", {Int(16)}), "4.0");
  EXPECT_EQ(CallText("pow", {Int(2), Int(10)}), "1024.0");
  EXPECT_EQ(CallText("round", {NullOf(DoubleType())}), "NULL");
}

TEST(FunctionRegistryTest, DatetimeFunctions) {
  ExpressionPtr date = Literal(Scalar::Date(19753));  // 2024-01-31
  ExpressionPtr timestamp = Literal(Scalar::Timestamp(1'706'704'205'250'000));  // 2024-01-31 12:30:05.25
  EXPECT_EQ(CallText("current_date", {}), "2024-01-31");
  EXPECT_EQ(CallText("current_timestamp", {}), "2024-01-31 12:30:00");
  EXPECT_EQ(CallText("now", {}), "2024-01-31 12:30:00");
  EXPECT_EQ(CallText("date_add", {date, Int(1)}), "2024-02-01");
  EXPECT_EQ(CallText("date_sub", {Str("2024-03-01"), Int(1)}), "2024-02-29");
  EXPECT_EQ(CallText("datediff", {Str("2024-03-01"), date}), "30");
  EXPECT_EQ(CallText("add_months", {date, Int(1)}), "2024-02-29");
  EXPECT_EQ(CallText("add_months", {date, Int(-13)}), "2022-12-31");
  EXPECT_EQ(CallText("to_date", {Str("2024-05-06")}), "2024-05-06");
  EXPECT_EQ(CallText("to_date", {Str("bad")}), "ERROR:CAST_INVALID_INPUT");
  EXPECT_EQ(CallText("to_timestamp", {Str("2024-05-06 07:08:09")}), "2024-05-06 07:08:09");
  EXPECT_EQ(CallText("year", {date}), "2024");
  EXPECT_EQ(CallText("month", {timestamp}), "1");
  EXPECT_EQ(CallText("day", {date}), "31");
  EXPECT_EQ(CallText("dayofmonth", {date}), "31");
  EXPECT_EQ(CallText("dayofweek", {date}), "4");  // Wednesday
  EXPECT_EQ(CallText("hour", {timestamp}), "12");
  EXPECT_EQ(CallText("minute", {timestamp}), "30");
  EXPECT_EQ(CallText("second", {timestamp}), "5");
  EXPECT_EQ(CallText("date_format", {timestamp, Str("yyyy-MM-dd'T'HH:mm:ss.SSS")}), "2024-01-31T12:30:05.250");
  EXPECT_EQ(CallText("date_format", {date, Str("EEE, d MMM yy")}), "Wed, 31 Jan 24");
  EXPECT_EQ(CallText("date_trunc", {Str("month"), timestamp}), "2024-01-01 00:00:00");
  EXPECT_EQ(CallText("date_trunc", {Str("HOUR"), timestamp}), "2024-01-31 12:00:00");
  EXPECT_EQ(CallText("date_trunc", {Str("week"), timestamp}), "2024-01-29 00:00:00");
  EXPECT_EQ(CallText("date_trunc", {Str("fortnight"), timestamp}), "NULL");
  EXPECT_EQ(CallText("unix_timestamp", {timestamp}), "1706704205");
  EXPECT_EQ(CallText("from_unixtime", {Literal(Scalar::Long(0))}), "1970-01-01 00:00:00");
  EXPECT_EQ(CallText("timestamp_seconds", {Int(1)}), "1970-01-01 00:00:01");
  EXPECT_EQ(CallText("timestamp_millis", {Int(1500)}), "1970-01-01 00:00:01.5");
  EXPECT_EQ(CallText("make_date", {Int(2024), Int(2), Int(29)}), "2024-02-29");
  EXPECT_EQ(CallText("make_date", {Int(2023), Int(2), Int(29)}), "ERROR:DATETIME_FIELD_OUT_OF_BOUNDS");
  EXPECT_EQ(CallText("make_date", {Int(2023), Int(2), Int(29)}, false), "NULL");
  EXPECT_EQ(CallText("year", {NullOf(DateType())}), "NULL");
}

TEST(FunctionRegistryTest, HashesMatchSparkKnownValues) {
  // Values from Spark's documentation: hash('Spark', array(123), 2), xxhash64 of the same, and
  // the PySpark examples over 'ABC' and ('ABC', 'DEF').
  auto array123 = FunctionRegistry::Default().Bind("array", {Int(123)});
  EXPECT_EQ(CallText("hash", {Str("Spark"), array123, Int(2)}), "-1321691492");
  EXPECT_EQ(CallText("xxhash64", {Str("Spark"), array123, Int(2)}), "5602566077635097486");
  EXPECT_EQ(CallText("xxhash64", {Str("ABC")}), "4105715581806190027");
  EXPECT_EQ(CallText("xxhash64", {Str("ABC"), Str("DEF")}), "3233247871021311208");
  EXPECT_EQ(CallText("hash", {Str("ABC")}), "-757602832");
  EXPECT_EQ(CallText("hash", {Str("ABC"), Str("DEF")}), "599895104");
  // NULL leaves the seed unchanged: hash(NULL) is the seed 42.
  EXPECT_EQ(CallText("hash", {NullOf(IntegerType())}), "42");
  EXPECT_EQ(CallText("xxhash64", {NullOf(IntegerType())}), "42");
}

TEST(FunctionRegistryTest, CollectionFunctions) {
  ExpressionPtr array = FunctionRegistry::Default().Bind("array", {Int(1), Int(2), Int(3)});
  EXPECT_EQ(CallText("size", {array}), "3");
  EXPECT_EQ(CallText("element_at", {array, Int(1)}), "1");
  EXPECT_EQ(CallText("element_at", {array, Int(-1)}), "3");
  EXPECT_EQ(CallText("element_at", {array, Int(4)}), "ERROR:INVALID_ARRAY_INDEX_IN_ELEMENT_AT");
  EXPECT_EQ(CallText("element_at", {array, Int(4)}, false), "NULL");
  EXPECT_EQ(CallText("element_at", {array, Int(0)}), "ERROR:INVALID_INDEX_OF_ZERO");
  EXPECT_EQ(CallText("try_element_at", {array, Int(4)}), "NULL");
  EXPECT_EQ(CallText("subscript", {array, Int(0)}), "1");
  EXPECT_EQ(CallText("subscript", {array, Int(3)}), "ERROR:INVALID_ARRAY_INDEX");
  EXPECT_EQ(CallText("get", {array, Int(3)}), "NULL");
  ExpressionPtr map = FunctionRegistry::Default().Bind("map", {Str("a"), Int(1), Str("b"), Int(2)});
  EXPECT_EQ(CallText("element_at", {map, Str("b")}), "2");
  EXPECT_EQ(CallText("element_at", {map, Str("z")}), "NULL");
  EXPECT_EQ(CallText("size", {map}), "2");
  EXPECT_EQ(CallText("map", {Str("a"), Int(1), Str("a"), Int(2)}), "ERROR:DUPLICATED_MAP_KEY");
  EXPECT_EQ(CallText("map", {NullOf(StringType()), Int(1)}), "ERROR:NULL_MAP_KEY");
  EXPECT_EQ(CallText("named_struct", {Str("x"), Int(1), Str("y"), Str("a")}), "{1, a}");
  EXPECT_EQ(FunctionRegistry::Default().Bind("struct", {Int(1)})->type()->ToString(), "struct<col1:int>");
  EXPECT_EQ(CallText("array", {Int(1), NullOf(IntegerType()), Literal(Scalar::Long(2))}), "[1, NULL, 2]");
  EXPECT_EQ(CallText("size", {NullOf(ListType(IntegerType()))}), "NULL");
  EXPECT_EQ(CallText("size", {NullOf(ListType(IntegerType()))}, false), "-1");
}

TEST(FunctionRegistryTest, KernelsWorkOnColumnsWithNulls) {
  Batch batch = MakeBatch({StringColumn({"a", std::nullopt, "ccc"}), IntColumn(IntegerType(), {1, 2, std::nullopt})});
  EvalContext context;
  ExpressionPtr call = FunctionRegistry::Default().Bind("lpad", {Column(0, StringType()), Column(1, IntegerType()), Str("*")});
  EXPECT_THAT(Texts(Evaluate(*call, batch, context)), ElementsAre("a", "NULL", "NULL"));
  ExpressionPtr length = FunctionRegistry::Default().Bind("length", {Column(0, StringType())});
  EXPECT_THAT(Texts(Evaluate(*length, batch, context)), ElementsAre("1", "NULL", "3"));
}

}  // namespace
}  // namespace silt::expr

namespace silt::expr {
namespace {

TEST(FunctionRegistryTest, DigestsMatchStandardVectors) {
  EXPECT_EQ(CallText("md5", {Str("abc")}), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(CallText("md5", {Str("")}), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(CallText("sha1", {Str("abc")}), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(CallText("sha2", {Str("abc"), Int(256)}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(CallText("sha2", {Str("abc"), Int(0)}),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(CallText("sha2", {Str("abc"), Int(224)}), "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7");
  // A two-block message (56 bytes) exercises the padding boundary.
  EXPECT_EQ(CallText("sha2", {Str("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), Int(256)}),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  // Spark's documented example.
  EXPECT_EQ(CallText("md5", {Str("Spark")}), "8cde774d6f7333752ed72cacddb05126");
  EXPECT_EQ(CallText("sha2", {Str("abc"), Int(7)}), "NULL");
  EXPECT_EQ(CallText("md5", {NullOf(StringType())}), "NULL");
}

}  // namespace
}  // namespace silt::expr

namespace silt::expr {
namespace {

TEST(FunctionRegistryTest, ParsesDatesAndTimestampsWithPatterns) {
  EXPECT_EQ(CallText("to_date", {Str("31/01/2024"), Str("dd/MM/yyyy")}), "2024-01-31");
  EXPECT_EQ(CallText("to_date", {Str("2024-1-5"), Str("yyyy-M-d")}), "2024-01-05");
  EXPECT_EQ(CallText("to_timestamp", {Str("2024-01-31 01:02:03.5"), Str("yyyy-MM-dd HH:mm:ss.S")}),
            "2024-01-31 01:02:03.5");
  EXPECT_EQ(CallText("to_timestamp", {Str("01/31/2024 03:04 PM"), Str("MM/dd/yyyy hh:mm a")}), "2024-01-31 15:04:00");
  EXPECT_EQ(CallText("to_timestamp", {Str("2024-01-31T10:00"), Str("yyyy-MM-dd'T'HH:mm")}), "2024-01-31 10:00:00");
  EXPECT_EQ(CallText("to_date", {Str("2023-02-29"), Str("yyyy-MM-dd")}), "ERROR:CANNOT_PARSE_TIMESTAMP");
  EXPECT_EQ(CallText("to_date", {Str("nope"), Str("yyyy-MM-dd")}, false), "NULL");
  EXPECT_EQ(CallText("try_to_timestamp", {Str("nope"), Str("yyyy")}), "NULL");
  EXPECT_EQ(CallText("try_to_timestamp", {Str("nope")}), "NULL");
  EXPECT_EQ(CallText("to_date", {NullOf(StringType()), Str("yyyy")}), "NULL");
}

}  // namespace
}  // namespace silt::expr

namespace silt::expr {
namespace {

std::string InZone(const std::string& zone, const ExpressionPtr& expression) {
  EvalContext context;
  context.time_zone = zone;
  try {
    return EvaluateText(expression, context);
  } catch (const Error& error) {
    return "ERROR:" + std::string(error.error_class());
  }
}

TEST(FunctionRegistryTest, SessionTimeZoneOffsetsApplyToLocalTimes) {
  const FunctionRegistry& registry = FunctionRegistry::Default();
  ExpressionPtr noon_utc = Literal(Scalar::Timestamp(1'706'702'400'000'000));  // 2024-01-31 12:00:00 UTC
  EXPECT_EQ(InZone("+02:00", Cast(noon_utc, StringType())), "2024-01-31 14:00:00");
  EXPECT_EQ(InZone("UTC-13:00", Cast(noon_utc, DateType())), "2024-01-30");
  EXPECT_EQ(InZone("+02:00", registry.Bind("hour", {noon_utc})), "14");
  EXPECT_EQ(InZone("GMT+2", registry.Bind("date_format", {noon_utc, Str("HH:mm")})), "14:00");
  // Local text without a zone is read in the session zone; the instant prints back in UTC.
  ExpressionPtr parsed = Cast(Str("2024-01-31 14:00:00"), TimestampType());
  EXPECT_EQ(InZone("+02:00", Cast(Cast(parsed, LongType()), StringType())), "1706702400");
  EXPECT_EQ(InZone("+02:00", Cast(Cast(Str("2024-01-31 14:00:00Z"), TimestampType()), LongType())), "1706709600");
  EXPECT_EQ(InZone("+02:00", Cast(Cast(noon_utc, TimestampNtzType()), StringType())), "2024-01-31 14:00:00");
  EXPECT_EQ(InZone("Europe/Paris", Cast(noon_utc, StringType())), "2024-01-31 13:00:00");
  EXPECT_EQ(InZone("nowhere", Cast(noon_utc, StringType())), "ERROR:INVALID_CONF_VALUE");
  // Casts that do not involve timestamps ignore the zone.
  EXPECT_EQ(InZone("Europe/Paris", Cast(Int(1), StringType())), "1");
}

}  // namespace
}  // namespace silt::expr
