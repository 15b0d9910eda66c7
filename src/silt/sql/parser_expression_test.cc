#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/error_class.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"

namespace silt::sql {
namespace {

std::string Expr(std::string_view sql) { return ToString(*ParseExpression(sql)); }

// Printing then re-parsing must give the same canonical text.
void ExpectRoundTrip(std::string_view sql) {
  std::string once = Expr(sql);
  EXPECT_EQ(Expr(once), once) << "from " << sql;
}

TEST(ParserExpressionTest, SqlStandardFunctionForms) {
  EXPECT_EQ(Expr("trim(BOTH 'x' FROM s)"), "trim(s, 'x')");
  EXPECT_EQ(Expr("trim(LEADING FROM s)"), "ltrim(s)");
  EXPECT_EQ(Expr("trim(TRAILING 'ab' FROM s)"), "rtrim(s, 'ab')");
  EXPECT_EQ(Expr("trim('x' FROM s)"), "trim(s, 'x')");
  EXPECT_EQ(Expr("trim(s)"), "trim(s)");
  EXPECT_EQ(Expr("substring(s FROM 7 FOR 5)"), "substring(s, 7, 5)");
  EXPECT_EQ(Expr("substr(s FROM 2)"), "substr(s, 2)");
  EXPECT_EQ(Expr("position('a' IN s)"), "position('a', s)");
  EXPECT_EQ(Expr("last_value(x) IGNORE NULLS OVER (ORDER BY t)"),
            "last_value(x, TRUE) OVER (ORDER BY t)");
  EXPECT_EQ(Expr("first(x) RESPECT NULLS"), "first(x)");
  EXPECT_EQ(Expr("lag(x) IGNORE NULLS OVER (ORDER BY t)"), "lag(x) IGNORE NULLS OVER (ORDER BY t)");
  EXPECT_EQ(Expr("nth_value(x, 2) RESPECT NULLS OVER (ORDER BY t)"), "nth_value(x, 2) OVER (ORDER BY t)");
  EXPECT_EQ(Expr("first(x IGNORE NULLS)"), "first(x, TRUE)");
  EXPECT_EQ(Expr("percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)"),
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC)");
  EXPECT_EQ(Expr("sum(x) RESPECT NULLS"), "sum(x)");
  try {
    Expr("sum(x) IGNORE NULLS OVER (ORDER BY t)");
    FAIL() << "IGNORE NULLS on sum should be refused";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "INVALID_SQL_SYNTAX");
  }
}

TEST(ParserExpressionTest, IntervalTypes) {
  EXPECT_TRUE(ParseDataType("INTERVAL DAY TO SECOND")->Equals(*DayTimeIntervalType()));
  EXPECT_TRUE(ParseDataType("interval hour")
                  ->Equals(*DayTimeIntervalType(DayTimeField::kHour, DayTimeField::kHour)));
  EXPECT_TRUE(ParseDataType("INTERVAL YEAR TO MONTH")->Equals(*YearMonthIntervalType()));
  EXPECT_TRUE(ParseDataType("INTERVAL MONTH")
                  ->Equals(*YearMonthIntervalType(YearMonthField::kMonth, YearMonthField::kMonth)));
  for (const char* bad : {"INTERVAL SECOND TO DAY", "INTERVAL YEAR TO DAY", "INTERVAL DAY TO"}) {
    try {
      ParseDataType(bad);
      ADD_FAILURE() << bad << " should not parse";
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), "PARSE_SYNTAX_ERROR") << bad;
    }
  }
  // The legacy calendar interval (no fields) is not a type silt or Delta can use.
  try {
    ParseDataType("INTERVAL");
    ADD_FAILURE() << "a bare INTERVAL type should be refused";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "UNSUPPORTED_DATATYPE");
  }
}

TEST(ParserExpressionTest, SparkPrecedenceTable) {
  EXPECT_EQ(Expr("a OR b AND NOT c = d + e * f"), "(a OR (b AND (NOT (c = (d + (e * f))))))");
  EXPECT_EQ(Expr("-a.b[1]"), "(- a.b[1])");
  EXPECT_EQ(Expr("x::int + 1"), "((x::int) + 1)");
  EXPECT_EQ(Expr("a BETWEEN 1 AND 2 AND c"), "((a BETWEEN 1 AND 2) AND c)");
  EXPECT_EQ(Expr("NOT a IN (1)"), "(NOT (a IN (1)))");
  EXPECT_EQ(Expr("a = b IS NULL"), "((a = b) IS NULL)");
  EXPECT_EQ(Expr("a | b ^ c & d << 1 + 2"), "(a | (b ^ (c & (d << (1 + 2)))))");
  EXPECT_EQ(Expr("a || b + c"), "((a || b) + c)");
  EXPECT_EQ(Expr("a * b DIV c % d"), "(((a * b) DIV c) % d)");
  EXPECT_EQ(Expr("a - b - c"), "((a - b) - c)");
  EXPECT_EQ(Expr("a = b = c"), "((a = b) = c)");
  EXPECT_EQ(Expr("a AND b OR c AND d"), "((a AND b) OR (c AND d))");
  EXPECT_EQ(Expr("NOT a AND b"), "((NOT a) AND b)");
  EXPECT_EQ(Expr("!a"), "(NOT a)");
  EXPECT_EQ(Expr("~a & - - b"), "((~ a) & (- (- b)))");
  EXPECT_EQ(Expr("(a + b) * c"), "((a + b) * c)");
  EXPECT_EQ(Expr("a <=> b AND c == d AND e != f AND g <> h"),
            "((((a <=> b) AND (c == d)) AND (e != f)) AND (g <> h))");
  EXPECT_EQ(Expr("a >> 1 >>> 2"), "((a >> 1) >>> 2)");
}

TEST(ParserExpressionTest, Literals) {
  EXPECT_EQ(Expr("1"), "1");
  EXPECT_EQ(Expr("-1"), "-1");
  EXPECT_EQ(Expr("2147483648"), "2147483648L");
  EXPECT_EQ(Expr("-2147483648"), "-2147483648");
  EXPECT_EQ(Expr("99999999999999999999"), "99999999999999999999BD");
  EXPECT_EQ(Expr("10L + 5S + 7Y"), "((10L + 5S) + 7Y)");
  EXPECT_EQ(Expr("1.50"), "1.50");
  EXPECT_EQ(Expr("1e3"), "1e3D");
  EXPECT_EQ(Expr("2.5F"), "2.5F");
  EXPECT_EQ(Expr("3BD"), "3BD");
  EXPECT_EQ(Expr("'a' 'b' \"c\""), "'abc'");
  EXPECT_EQ(Expr("'a''b'"), "'ab'");
  EXPECT_EQ(Expr(R"('it\'s')"), R"('it\'s')");
  EXPECT_EQ(Expr("X'0A'"), "X'0A'");
  EXPECT_EQ(Expr("NULL"), "NULL");
  EXPECT_EQ(Expr("true AND False"), "(TRUE AND FALSE)");
  EXPECT_EQ(Expr("DATE '2024-01-31'"), "DATE '2024-01-31'");
  EXPECT_EQ(Expr("date'2024'"), "DATE '2024'");
  EXPECT_EQ(Expr("TIMESTAMP '2024-01-01 10:00:00'"), "TIMESTAMP '2024-01-01 10:00:00'");
  EXPECT_EQ(Expr("TIMESTAMP_NTZ '2024-01-01T10:00:00'"), "TIMESTAMP_NTZ '2024-01-01T10:00:00'");
  EXPECT_EQ(Expr("TIMESTAMP_LTZ '2024-01-01'"), "TIMESTAMP '2024-01-01'");
  EXPECT_EQ(Expr("INTERVAL '1' DAY"), "INTERVAL '1' DAY");
  EXPECT_EQ(Expr("INTERVAL 1 DAYS 2 hours"), "INTERVAL 1 DAY 2 HOUR");
  EXPECT_EQ(Expr("INTERVAL '1-2' YEAR TO MONTH"), "INTERVAL '1-2' YEAR TO MONTH");
  EXPECT_EQ(Expr("INTERVAL '3 days'"), "INTERVAL '3 days'");
  EXPECT_EQ(Expr("ts - INTERVAL -1 DAY"), "(ts - INTERVAL -1 DAY)");
  auto literal = ParseExpression("7Y");
  EXPECT_EQ(literal->kind, ExpressionKind::kLiteral);
  EXPECT_EQ(literal->literal_kind, LiteralKind::kTinyint);
  EXPECT_EQ(literal->text, "7");
  EXPECT_EQ(ParseExpression("2147483647")->literal_kind, LiteralKind::kInteger);
  EXPECT_EQ(ParseExpression("1.5")->literal_kind, LiteralKind::kDecimal);
  EXPECT_EQ(ParseExpression("1.5D")->literal_kind, LiteralKind::kDouble);
}

TEST(ParserExpressionTest, ColumnsStarsAndAccess) {
  EXPECT_EQ(Expr("db.t.col"), "db.t.col");
  EXPECT_EQ(Expr("`my col`.`x``y`"), "`my col`.`x``y`");
  EXPECT_EQ(Expr("`select`"), "`select`");
  EXPECT_EQ(Expr("a.b[0].c"), "a.b[0].c");
  EXPECT_EQ(Expr("m['k']"), "m['k']");
  EXPECT_EQ(Expr("f(x).field"), "f(x).field");
  EXPECT_EQ(Expr("arr[i + 1][0]"), "arr[(i + 1)][0]");
  auto column = ParseExpression("t.a");
  EXPECT_EQ(column->kind, ExpressionKind::kColumn);
  EXPECT_THAT(column->name, ::testing::ElementsAre("t", "a"));
  EXPECT_EQ(column->position.column, 1);
  auto access = ParseExpression("a[1].b");
  EXPECT_EQ(access->kind, ExpressionKind::kFieldAccess);
  EXPECT_EQ(access->position.column, 5);
}

TEST(ParserExpressionTest, Predicates) {
  EXPECT_EQ(Expr("a IS NULL"), "(a IS NULL)");
  EXPECT_EQ(Expr("a IS NOT NULL"), "(a IS NOT NULL)");
  EXPECT_EQ(Expr("a is not true"), "(a IS NOT TRUE)");
  EXPECT_EQ(Expr("a IS DISTINCT FROM b"), "(a IS DISTINCT FROM b)");
  EXPECT_EQ(Expr("a IS NOT DISTINCT FROM b + 1"), "(a IS NOT DISTINCT FROM (b + 1))");
  EXPECT_EQ(Expr("a IN (1, 2, 3)"), "(a IN (1, 2, 3))");
  EXPECT_EQ(Expr("a NOT IN ('x')"), "(a NOT IN ('x'))");
  EXPECT_EQ(Expr("a IN (SELECT id FROM t)"), "(a IN (SELECT id FROM t))");
  EXPECT_EQ(Expr("a NOT BETWEEN 1 AND 10"), "(a NOT BETWEEN 1 AND 10)");
  EXPECT_EQ(Expr("a LIKE 'x%'"), "(a LIKE 'x%')");
  EXPECT_EQ(Expr("a NOT ILIKE 'x%'"), "(a NOT ILIKE 'x%')");
  EXPECT_EQ(Expr("a RLIKE '^x'"), "(a RLIKE '^x')");
  EXPECT_EQ(Expr("a NOT REGEXP '^x'"), "(a NOT RLIKE '^x')");
  EXPECT_EQ(Expr("a LIKE 'x!%' ESCAPE '!'"), "(a LIKE 'x!%' ESCAPE '!')");
  EXPECT_EQ(Expr("EXISTS (SELECT 1)"), "EXISTS (SELECT 1)");
  EXPECT_EQ(Expr("NOT EXISTS (SELECT 1 FROM t WHERE t.a = b)"),
            "(NOT EXISTS (SELECT 1 FROM t WHERE (t.a = b)))");
  EXPECT_EQ(Expr("(SELECT max(x) FROM t) + 1"), "((SELECT max(x) FROM t) + 1)");
}

TEST(ParserExpressionTest, CaseAndCasts) {
  EXPECT_EQ(Expr("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END"),
            "CASE WHEN (a > 1) THEN 'x' WHEN (a > 0) THEN 'y' ELSE 'z' END");
  EXPECT_EQ(Expr("case a when 1 then 2 end"), "CASE a WHEN 1 THEN 2 END");
  EXPECT_EQ(Expr("CAST(a AS DECIMAL(10, 2))"), "CAST(a AS decimal(10,2))");
  EXPECT_EQ(Expr("TRY_CAST(a AS bigint)"), "TRY_CAST(a AS bigint)");
  EXPECT_EQ(Expr("a::array<struct<x: int, y: string>>"), "(a::array<struct<x: int, y: string>>)");
  auto cast = ParseExpression("CAST(a AS map<string, array<long>>)");
  ASSERT_EQ(cast->kind, ExpressionKind::kCast);
  EXPECT_EQ(cast->cast_type->ToString(), "map<string,array<bigint>>");
}

TEST(ParserExpressionTest, FunctionsWindowsAndLambdas) {
  EXPECT_EQ(Expr("count(*)"), "count(*)");
  EXPECT_EQ(Expr("count(DISTINCT a, b)"), "count(DISTINCT a, b)");
  EXPECT_EQ(Expr("sum(x) FILTER (WHERE x > 0)"), "sum(x) FILTER (WHERE (x > 0))");
  EXPECT_EQ(Expr("now()"), "now()");
  EXPECT_EQ(Expr("extract(year FROM ts) + 1"), "(date_part('YEAR', ts) + 1)");
  EXPECT_EQ(Expr("extract(a)"), "extract(a)");
  EXPECT_EQ(Expr("current_date"), "CURRENT_DATE");
  EXPECT_EQ(Expr("db.my_udf(1)"), "db.my_udf(1)");
  EXPECT_EQ(Expr("left(s, 2)"), "left(s, 2)");
  EXPECT_EQ(Expr("row_number() OVER (PARTITION BY a, b ORDER BY c DESC NULLS LAST)"),
            "row_number() OVER (PARTITION BY a, b ORDER BY c DESC NULLS LAST)");
  EXPECT_EQ(Expr("sum(x) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"),
            "sum(x) OVER (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)");
  EXPECT_EQ(Expr("sum(x) OVER (RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING)"),
            "sum(x) OVER (RANGE BETWEEN 1 PRECEDING AND 2 FOLLOWING)");
  EXPECT_EQ(Expr("avg(x) OVER (ROWS 3 PRECEDING)"),
            "avg(x) OVER (ROWS BETWEEN 3 PRECEDING AND CURRENT ROW)");
  EXPECT_EQ(Expr("rank() OVER w"), "rank() OVER w");
  EXPECT_EQ(Expr("rank() OVER (w ORDER BY a)"), "rank() OVER (w ORDER BY a)");
  EXPECT_EQ(Expr("transform(arr, x -> x + 1)"), "transform(arr, (x -> (x + 1)))");
  // Spark's own examples name parameters `left` and `right`, which are join keywords.
  EXPECT_EQ(Expr("array_sort(a, (left, right) -> left - right)"), "array_sort(a, ((`left`, `right`) -> (`left` - `right`)))");
  EXPECT_EQ(Expr("transform(a, left -> right)"), "transform(a, (`left` -> `right`))");
  EXPECT_EQ(Expr("aggregate(arr, 0, (acc, x) -> acc + x)"),
            "aggregate(arr, 0, ((acc, x) -> (acc + x)))");
  EXPECT_EQ(Expr("(a, b)"), "struct(a, b)");
  auto function = ParseExpression("count(DISTINCT a)");
  EXPECT_EQ(function->kind, ExpressionKind::kFunction);
  EXPECT_TRUE(function->distinct);
}

TEST(ParserExpressionTest, DeltaSparkConditionStrings) {
  EXPECT_EQ(Expr("t.id = s.id"), "(t.id = s.id)");
  EXPECT_EQ(Expr("target.key = source.key AND source.deleted = true"),
            "((target.key = source.key) AND (source.deleted = TRUE))");
  EXPECT_EQ(Expr("s.ts > t.ts OR t.ts IS NULL"), "((s.ts > t.ts) OR (t.ts IS NULL))");
  EXPECT_EQ(Expr("date >= '2017-01-01' AND eventType = 'click'"),
            "((`date` >= '2017-01-01') AND (eventType = 'click'))");
  EXPECT_EQ(Expr("id % 2 == 0"), "((id % 2) == 0)");
  EXPECT_EQ(Expr("  t.`weird col` <=> s.`weird col`  "), "(t.`weird col` <=> s.`weird col`)");
}

TEST(ParserExpressionTest, PrinterKeepsMeaningInEdgeCases) {
  // A negated number literal must not print as a negative literal.
  EXPECT_EQ(Expr("-(1)"), "(- (1))");
  EXPECT_EQ(ParseExpression("(- (1))")->kind, ExpressionKind::kUnary);
  EXPECT_EQ(Expr("- -1"), "(- (-1))");
  // Struct field names, NOT NULL and comments survive printing.
  EXPECT_EQ(Expr("CAST(a AS struct<`x y`: int NOT NULL COMMENT 'it''s\\n'>)"),
            "CAST(a AS struct<`x y`: int NOT NULL COMMENT 'its\\n'>)");
  // Names the parser reads as syntax are quoted when they name functions or columns.
  EXPECT_EQ(Expr("`exists`(arr, x -> x)"), "`exists`(arr, (x -> x))");
  EXPECT_EQ(Expr("`CURRENT_DATE`() OVER w"), "CURRENT_DATE() OVER w");
  EXPECT_EQ(Expr("`null` + `from`"), "(`null` + `from`)");
  EXPECT_EQ(Expr("'\\0' || '\\012'"), "('\\u0000' || '\\n')");
  EXPECT_EQ(Expr("1.5E3BD"), "1.5E3BD");
  // Fuzzer finding: `1 .id` printed as `1.id` re-read as the decimal `1.` aliased `id`.
  EXPECT_EQ(Expr("1 .id"), "(1).id");
  EXPECT_EQ(Expr("INTERVAL 'it\\'s' DAY"), "INTERVAL 'it\\'s' DAY");
}

TEST(ParserExpressionTest, PrintedFormReparsesToItself) {
  for (std::string_view sql :
       {"a OR b AND NOT c = d + e * f", "-a.b[1]", "x::int + 1", "'it\\'s\\n' || \"x\"",
        "CASE WHEN a THEN 1 END", "sum(x) OVER (PARTITION BY p ORDER BY o ASC NULLS FIRST)",
        "a NOT IN (1, 2)", "transform(a, x -> x * 2)", "`a b`.c", "INTERVAL 1 DAY",
        "CAST(a AS struct<a: int, b: array<string>>)", "10L + 1S + 1Y + 1.5 + 1e2 + 1F",
        "a LIKE '\\%x'", "t.* ", "count(*) FILTER (WHERE x)", "-(1)", "'\\0' || '1'",
        "CAST(a AS struct<`x y`: int NOT NULL COMMENT 'c'>)", "`exists`((SELECT 1))"}) {
    ExpectRoundTrip(sql);
  }
}

TEST(ParserExpressionTest, DataTypes) {
  EXPECT_EQ(ParseDataType("INT")->ToString(), "int");
  EXPECT_EQ(ParseDataType("integer")->id(), TypeId::kInteger);
  EXPECT_EQ(ParseDataType("BYTE")->id(), TypeId::kByte);
  EXPECT_EQ(ParseDataType("tinyint")->id(), TypeId::kByte);
  EXPECT_EQ(ParseDataType("short")->id(), TypeId::kShort);
  EXPECT_EQ(ParseDataType("SMALLINT")->id(), TypeId::kShort);
  EXPECT_EQ(ParseDataType("long")->id(), TypeId::kLong);
  EXPECT_EQ(ParseDataType("real")->id(), TypeId::kFloat);
  EXPECT_EQ(ParseDataType("double")->id(), TypeId::kDouble);
  EXPECT_EQ(ParseDataType("boolean")->id(), TypeId::kBoolean);
  EXPECT_EQ(ParseDataType("decimal")->ToString(), "decimal(10,0)");
  EXPECT_EQ(ParseDataType("DEC(5)")->ToString(), "decimal(5,0)");
  EXPECT_EQ(ParseDataType("numeric(38, 18)")->ToString(), "decimal(38,18)");
  EXPECT_EQ(ParseDataType("date")->id(), TypeId::kDate);
  EXPECT_EQ(ParseDataType("timestamp")->id(), TypeId::kTimestamp);
  EXPECT_EQ(ParseDataType("timestamp_ltz")->id(), TypeId::kTimestamp);
  EXPECT_EQ(ParseDataType("timestamp_ntz")->id(), TypeId::kTimestampNtz);
  EXPECT_EQ(ParseDataType("string")->id(), TypeId::kString);
  EXPECT_EQ(ParseDataType("varchar(10)")->id(), TypeId::kString);
  EXPECT_EQ(ParseDataType("char(3)")->id(), TypeId::kString);
  EXPECT_EQ(ParseDataType("binary")->id(), TypeId::kBinary);
  EXPECT_EQ(ParseDataType("void")->id(), TypeId::kNull);
  EXPECT_EQ(ParseDataType("array<array<int>>")->ToString(), "array<array<int>>");
  EXPECT_EQ(ParseDataType("map<string,map<int,array<long>>>")->ToString(),
            "map<string,map<int,array<bigint>>>");
  EXPECT_EQ(ParseDataType("struct<>")->ToString(), "struct<>");
  DataTypePtr type = ParseDataType("STRUCT<a: INT NOT NULL COMMENT 'the \"a\"', b string>");
  ASSERT_EQ(type->fields().size(), 2u);
  EXPECT_EQ(type->fields()[0].name, "a");
  EXPECT_FALSE(type->fields()[0].nullable);
  ASSERT_NE(type->fields()[0].FindMetadata("comment"), nullptr);
  EXPECT_EQ(*type->fields()[0].FindMetadata("comment"), "\"the \\\"a\\\"\"");
  EXPECT_TRUE(type->fields()[1].nullable);
  EXPECT_EQ(type->fields()[1].type->id(), TypeId::kString);
}

}  // namespace
}  // namespace silt::sql
