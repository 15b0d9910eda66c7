#include "silt/cdc/postgres_types.h"

#include <gtest/gtest.h>

#include "silt/error.h"

namespace silt::cdc {
namespace {

PostgresType Type(uint32_t oid, int32_t modifier = -1) {
  PostgresType type;
  type.oid = oid;
  type.type_modifier = modifier;
  return type;
}

PostgresType ArrayOf(uint32_t element, int32_t modifier = -1) {
  PostgresType type;
  type.oid = 1;  // the array type's own oid does not matter
  type.element_oid = element;
  type.type_modifier = modifier;
  return type;
}

// Parses each text into one vector and returns the values as Spark shows them.
std::vector<std::string> Parse(const PostgresType& type, const std::vector<std::optional<std::string>>& texts) {
  PostgresValueParser parser(type, "c");
  VectorBuilder builder(parser.spark_type());
  for (const auto& text : texts) {
    if (text) parser.Append(builder, *text);
    else builder.AppendNull();
  }
  VectorPtr vector = builder.Finish();
  std::vector<std::string> values;
  for (int64_t i = 0; i < vector->length(); ++i) values.push_back(vector->ValueToString(i));
  return values;
}

std::string ErrorOf(const PostgresType& type, const std::string& text) {
  try {
    Parse(type, {text});
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "no error";
}

TEST(PostgresTypesTest, MapsTypesAsSparksJdbcSourceDoes) {
  EXPECT_EQ(SparkTypeOf(Type(16))->ToString(), "boolean");
  EXPECT_EQ(SparkTypeOf(Type(21))->ToString(), "smallint");
  EXPECT_EQ(SparkTypeOf(Type(23))->ToString(), "int");
  EXPECT_EQ(SparkTypeOf(Type(20))->ToString(), "bigint");
  EXPECT_EQ(SparkTypeOf(Type(700))->ToString(), "float");
  EXPECT_EQ(SparkTypeOf(Type(701))->ToString(), "double");
  // numeric(12, 2): typmod = (12 << 16 | 2) + 4.
  EXPECT_EQ(SparkTypeOf(Type(1700, (12 << 16 | 2) + 4))->ToString(), "decimal(12,2)");
  EXPECT_EQ(SparkTypeOf(Type(1700))->ToString(), "decimal(38,18)");
  EXPECT_EQ(SparkTypeOf(Type(1700, (50 << 16 | 2) + 4))->ToString(), "decimal(38,18)");
  EXPECT_EQ(SparkTypeOf(Type(1082))->ToString(), "date");
  EXPECT_EQ(SparkTypeOf(Type(1114))->ToString(), "timestamp");
  EXPECT_EQ(SparkTypeOf(Type(1184))->ToString(), "timestamp");
  EXPECT_EQ(SparkTypeOf(Type(17))->ToString(), "binary");
  EXPECT_EQ(SparkTypeOf(Type(25))->ToString(), "string");
  EXPECT_EQ(SparkTypeOf(Type(2950))->ToString(), "string");   // uuid
  EXPECT_EQ(SparkTypeOf(Type(3802))->ToString(), "string");   // jsonb
  EXPECT_EQ(SparkTypeOf(Type(1083))->ToString(), "string");   // time
  PostgresType mood = Type(99999);
  mood.type_type = 'e';
  EXPECT_EQ(SparkTypeOf(mood)->ToString(), "string");
  EXPECT_EQ(SparkTypeOf(ArrayOf(23))->ToString(), "array<int>");
  EXPECT_EQ(SparkTypeOf(ArrayOf(25))->ToString(), "array<string>");
}

TEST(PostgresTypesTest, ParsesTextOutputForms) {
  EXPECT_EQ(Parse(Type(16), {"t", "f", std::nullopt}), (std::vector<std::string>{"true", "false", "NULL"}));
  EXPECT_EQ(Parse(Type(20), {"-9223372036854775808", "42"}),
            (std::vector<std::string>{"-9223372036854775808", "42"}));
  EXPECT_EQ(Parse(Type(701), {"1.5", "NaN", "Infinity", "-Infinity"}),
            (std::vector<std::string>{"1.5", "NaN", "Infinity", "-Infinity"}));
  EXPECT_EQ(Parse(Type(1700, (12 << 16 | 2) + 4), {"1234.50", "-0.01", "NaN"}),
            (std::vector<std::string>{"1234.50", "-0.01", "NULL"}));
  EXPECT_EQ(Parse(Type(1082), {"2024-02-29", "infinity"}), (std::vector<std::string>{"2024-02-29", "NULL"}));
  EXPECT_EQ(Parse(Type(1184), {"2024-01-01 10:00:00+00", "2024-01-01 10:00:00.25+05:30", "2024-01-01 10:00:00-08"}),
            (std::vector<std::string>{"2024-01-01 10:00:00", "2024-01-01 04:30:00.25", "2024-01-01 18:00:00"}));
  EXPECT_EQ(Parse(Type(1114), {"2024-01-01 10:00:00.123456"}), (std::vector<std::string>{"2024-01-01 10:00:00.123456"}));
  EXPECT_EQ(Parse(Type(17), {"\\x00ff41"}), (std::vector<std::string>{"[00 FF 41]"}));
  EXPECT_EQ(Parse(Type(3802), {"{\"a\": 1}"}), (std::vector<std::string>{"{\"a\": 1}"}));
  EXPECT_EQ(Parse(ArrayOf(23), {"{1,2,NULL}", "{}"}), (std::vector<std::string>{"[1, 2, NULL]", "[]"}));
  EXPECT_EQ(Parse(ArrayOf(25), {"{\"a b\",\"c\\\"d\",NULL,\"NULL\",plain}"}),
            (std::vector<std::string>{"[a b, c\"d, NULL, NULL, plain]"}));
  EXPECT_EQ(Parse(ArrayOf(23), {"[0:1]={5,6}"}), (std::vector<std::string>{"[5, 6]"}));
}

TEST(PostgresTypesTest, RefusesTextThatIsNotTheTypesForm) {
  EXPECT_EQ(ErrorOf(Type(16), "yes"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorOf(Type(23), "12x"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorOf(Type(1700, (4 << 16 | 2) + 4), "123456.00"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorOf(Type(1082), "2024-13-01"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorOf(Type(17), "00ff"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorOf(ArrayOf(23), "{{1,2},{3,4}}"), "CDC_SOURCE_FAILED");
  EXPECT_EQ(ErrorOf(ArrayOf(23), "1,2"), "CDC_SOURCE_FAILED");
}

}  // namespace
}  // namespace silt::cdc
