#include "silt/sql/expression_binder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/expr/evaluator.h"
#include "silt/sql/parser.h"
#include "silt/types/date_time.h"
#include "silt/vector/batch.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A batch of four rows:
//   a INT          1, 2, NULL, 4
//   b STRING       "x", "y", NULL, "z"
//   flag BOOLEAN   true, false, NULL, true
//   amount DECIMAL(10,2)  1.50, 2.25, NULL, -3.00
//   s STRUCT<f: INT, g: STRING>  {10,"p"}, {20,"q"}, NULL, {40,NULL}
//   arr ARRAY<INT> [1,2,3], [], NULL, [7]
//   m MAP<STRING, INT> {k->1}, {}, NULL, {k->4, j->5}
//   dt DATE        2024-01-31, 2024-02-29, NULL, 2023-12-31
class ExpressionBinderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DataTypePtr struct_type = StructType({Field{"f", IntegerType(), true, {}}, Field{"g", StringType(), true, {}}});
    DataTypePtr array_type = ListType(IntegerType());
    DataTypePtr map_type = MapType(StringType(), IntegerType());
    schema_ = std::make_shared<Schema>(std::vector<Field>{
        Field{"a", IntegerType(), true, {}}, Field{"b", StringType(), true, {}}, Field{"flag", BooleanType(), true, {}},
        Field{"amount", DecimalType(10, 2), true, {}}, Field{"s", struct_type, true, {}},
        Field{"arr", array_type, true, {}}, Field{"m", map_type, true, {}}, Field{"dt", DateType(), true, {}}});

    VectorBuilder a(IntegerType()), b(StringType()), flag(BooleanType()), amount(DecimalType(10, 2));
    VectorBuilder s(struct_type), arr(array_type), m(map_type), dt(DateType());
    a.AppendInt(1), a.AppendInt(2), a.AppendNull(), a.AppendInt(4);
    b.AppendString("x"), b.AppendString("y"), b.AppendNull(), b.AppendString("z");
    flag.AppendBool(true), flag.AppendBool(false), flag.AppendNull(), flag.AppendBool(true);
    amount.AppendDecimal(150), amount.AppendDecimal(225), amount.AppendNull(), amount.AppendDecimal(-300);
    auto struct_row = [&](std::optional<int> f, std::optional<std::string> g) {
      if (f) s.child(0).AppendInt(*f); else s.child(0).AppendNull();
      if (g) s.child(1).AppendString(*g); else s.child(1).AppendNull();
      s.AppendStruct();
    };
    struct_row(10, "p");
    struct_row(20, "q");
    s.AppendNull();
    struct_row(40, std::nullopt);
    for (int value : {1, 2, 3}) arr.child(0).AppendInt(value);
    arr.FinishList();
    arr.FinishList();
    arr.AppendNull();
    arr.child(0).AppendInt(7);
    arr.FinishList();
    auto entry = [&](const std::string& key, int value) {
      m.child(0).child(0).AppendString(key);
      m.child(0).child(1).AppendInt(value);
      m.child(0).AppendStruct();
    };
    entry("k", 1);
    m.FinishList();
    m.FinishList();
    m.AppendNull();
    entry("k", 4);
    entry("j", 5);
    m.FinishList();
    for (const char* text : {"2024-01-31", "2024-02-29"}) dt.AppendInt(*ParseDate(text));
    dt.AppendNull();
    dt.AppendInt(*ParseDate("2023-12-31"));
    batch_ = Batch(schema_, {a.Finish(), b.Finish(), flag.Finish(), amount.Finish(), s.Finish(), arr.Finish(),
                             m.Finish(), dt.Finish()},
                   4);
  }

  expr::ExpressionPtr BindSql(const std::string& sql) {
    SchemaScope scope(schema_, {"t"});
    ExpressionBinder binder(scope);
    return binder.Bind(*ParseExpression(sql));
  }

  std::vector<std::string> Eval(const std::string& sql) {
    expr::ExpressionPtr bound = BindSql(sql);
    VectorPtr result = expr::Evaluate(*bound, batch_, context_);
    std::vector<std::string> texts;
    for (int64_t i = 0; i < result->length(); ++i) texts.push_back(result->ValueToString(i));
    return texts;
  }

  std::string First(const std::string& sql) { return Eval(sql)[0]; }

  std::string TypeOf(const std::string& sql) { return BindSql(sql)->type()->ToString(); }

  // The error binding (or evaluating) `sql` raises, as "CLASS|context"; "" when none.
  std::string ErrorOf(const std::string& sql, std::string* message = nullptr) {
    try {
      Eval(sql);
    } catch (const Error& error) {
      if (message) *message = error.message();
      return std::string(error.error_class()) + "|" + error.context();
    }
    return "";
  }

  SchemaPtr schema_;
  Batch batch_;
  expr::EvalContext context_;
};

std::string Name(const std::string& sql) { return AutoColumnName(*ParseExpression(sql)); }

TEST_F(ExpressionBinderTest, ArithmeticAndComparisonsOverColumns) {
  EXPECT_THAT(Eval("a + 1"), ElementsAre("2", "3", "NULL", "5"));
  EXPECT_THAT(Eval("t.a * 2 - 1"), ElementsAre("1", "3", "NULL", "7"));
  EXPECT_THAT(Eval("-a"), ElementsAre("-1", "-2", "NULL", "-4"));
  EXPECT_THAT(Eval("a / 2"), ElementsAre("0.5", "1.0", "NULL", "2.0"));
  EXPECT_THAT(Eval("a % 3"), ElementsAre("1", "2", "NULL", "1"));
  EXPECT_THAT(Eval("a DIV 3"), ElementsAre("0", "0", "NULL", "1"));
  EXPECT_THAT(Eval("a == 2"), ElementsAre("false", "true", "NULL", "false"));
  EXPECT_THAT(Eval("a <> 2"), ElementsAre("true", "false", "NULL", "true"));
  EXPECT_THAT(Eval("a != 2"), ElementsAre("true", "false", "NULL", "true"));
  EXPECT_THAT(Eval("a >= 2"), ElementsAre("false", "true", "NULL", "true"));
  EXPECT_THAT(Eval("b || '!'"), ElementsAre("x!", "y!", "NULL", "z!"));
  EXPECT_EQ(TypeOf("a DIV 3"), "bigint");
}

TEST_F(ExpressionBinderTest, BitwiseOperators) {
  EXPECT_EQ(First("12 & 10"), "8");
  EXPECT_EQ(First("12 | 3"), "15");
  EXPECT_EQ(First("12 ^ 10"), "6");
  EXPECT_EQ(First("~0"), "-1");
  EXPECT_EQ(First("1 << 4"), "16");
  EXPECT_EQ(First("-16 >> 2"), "-4");
  EXPECT_EQ(First("-1 >>> 28"), "15");
  EXPECT_EQ(First("CAST(1 AS BIGINT) << 40"), "1099511627776");
  EXPECT_EQ(TypeOf("CAST(1 AS TINYINT) & CAST(3 AS BIGINT)"), "bigint");
  EXPECT_EQ(ErrorOf("1.5 & 1"), "DATATYPE_MISMATCH|line 1, pos 4");
}

TEST_F(ExpressionBinderTest, ThreeValuedLogic) {
  EXPECT_THAT(Eval("flag AND NULL"), ElementsAre("NULL", "false", "NULL", "NULL"));
  EXPECT_THAT(Eval("flag OR NULL"), ElementsAre("true", "NULL", "NULL", "true"));
  EXPECT_THAT(Eval("NOT flag"), ElementsAre("false", "true", "NULL", "false"));
  EXPECT_THAT(Eval("flag IS NULL"), ElementsAre("false", "false", "true", "false"));
  EXPECT_THAT(Eval("flag IS NOT NULL"), ElementsAre("true", "true", "false", "true"));
  EXPECT_THAT(Eval("flag IS TRUE"), ElementsAre("true", "false", "false", "true"));
  EXPECT_THAT(Eval("flag IS NOT FALSE"), ElementsAre("true", "false", "true", "true"));
  EXPECT_THAT(Eval("flag IS UNKNOWN"), ElementsAre("false", "false", "true", "false"));
}

TEST_F(ExpressionBinderTest, NullSafeComparisonsAndDistinctFrom) {
  EXPECT_THAT(Eval("a <=> NULL"), ElementsAre("false", "false", "true", "false"));
  EXPECT_THAT(Eval("a <=> 2"), ElementsAre("false", "true", "false", "false"));
  EXPECT_THAT(Eval("a IS DISTINCT FROM 2"), ElementsAre("true", "false", "true", "true"));
  EXPECT_THAT(Eval("a IS NOT DISTINCT FROM NULL"), ElementsAre("false", "false", "true", "false"));
}

TEST_F(ExpressionBinderTest, InListsWithNulls) {
  EXPECT_THAT(Eval("a IN (1, 4)"), ElementsAre("true", "false", "NULL", "true"));
  // No match with a NULL item is NULL, a match is TRUE.
  EXPECT_THAT(Eval("a IN (1, NULL)"), ElementsAre("true", "NULL", "NULL", "NULL"));
  EXPECT_THAT(Eval("a NOT IN (1, NULL)"), ElementsAre("false", "NULL", "NULL", "NULL"));
  EXPECT_THAT(Eval("a NOT IN (1, 2)"), ElementsAre("false", "false", "NULL", "true"));
  // Items are coerced to a common type with the value.
  EXPECT_THAT(Eval("a IN (1.0, 4.5)"), ElementsAre("true", "false", "NULL", "false"));
  EXPECT_EQ(ErrorOf("a IN (1, DATE '2024-01-01')").substr(0, 17), "DATATYPE_MISMATCH");
}

TEST_F(ExpressionBinderTest, BetweenWithNulls) {
  EXPECT_THAT(Eval("a BETWEEN 2 AND 4"), ElementsAre("false", "true", "NULL", "true"));
  EXPECT_THAT(Eval("a NOT BETWEEN 2 AND 4"), ElementsAre("true", "false", "NULL", "false"));
  // a >= 2 is FALSE for a = 1, so the NULL bound does not matter there.
  EXPECT_THAT(Eval("a BETWEEN 2 AND NULL"), ElementsAre("false", "NULL", "NULL", "NULL"));
}

TEST_F(ExpressionBinderTest, LikeIlikeRlikeAndEscape) {
  EXPECT_THAT(Eval("b LIKE 'x%'"), ElementsAre("true", "false", "NULL", "false"));
  EXPECT_THAT(Eval("b NOT LIKE 'x%'"), ElementsAre("false", "true", "NULL", "true"));
  EXPECT_THAT(Eval("b ILIKE 'Y'"), ElementsAre("false", "true", "NULL", "false"));
  EXPECT_THAT(Eval("b RLIKE '^[xz]$'"), ElementsAre("true", "false", "NULL", "true"));
  EXPECT_EQ(First("'50%' LIKE '50!%' ESCAPE '!'"), "true");
  EXPECT_EQ(First("'50x' LIKE '50!%' ESCAPE '!'"), "false");
}

TEST_F(ExpressionBinderTest, CaseSimpleAndSearched) {
  EXPECT_THAT(Eval("CASE WHEN a > 1 THEN 'big' ELSE 'small' END"), ElementsAre("small", "big", "small", "big"));
  EXPECT_THAT(Eval("CASE a WHEN 1 THEN 'one' WHEN 4 THEN 'four' END"), ElementsAre("one", "NULL", "NULL", "four"));
  EXPECT_EQ(TypeOf("CASE WHEN flag THEN 1 ELSE 2.5 END"), "decimal(11,1)");
  EXPECT_EQ(ErrorOf("CASE WHEN a THEN 1 END").substr(0, 17), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorOf("CASE WHEN flag THEN 1 ELSE DATE '2024-01-01' END").substr(0, 17), "DATATYPE_MISMATCH");
}

TEST_F(ExpressionBinderTest, CastsTryCastsAndColonColon) {
  EXPECT_THAT(Eval("CAST(a AS STRING)"), ElementsAre("1", "2", "NULL", "4"));
  EXPECT_EQ(First("'12'::INT + 1"), "13");
  EXPECT_EQ(First("TRY_CAST('x' AS INT)"), "NULL");
  EXPECT_EQ(ErrorOf("CAST('x' AS INT)"), "CAST_INVALID_INPUT|");
  EXPECT_EQ(ErrorOf("CAST(dt AS BOOLEAN)"), "DATATYPE_MISMATCH|line 1, pos 0");
  EXPECT_EQ(TypeOf("CAST(amount AS DECIMAL(20, 4))"), "decimal(20,4)");
}

TEST_F(ExpressionBinderTest, LiteralsOfEveryKind) {
  EXPECT_EQ(TypeOf("1"), "int");
  EXPECT_EQ(TypeOf("10000000000"), "bigint");
  EXPECT_EQ(TypeOf("1L"), "bigint");
  EXPECT_EQ(TypeOf("1S"), "smallint");
  EXPECT_EQ(TypeOf("1Y"), "tinyint");
  EXPECT_EQ(TypeOf("1.50"), "decimal(3,2)");
  EXPECT_EQ(TypeOf("0.05"), "decimal(2,2)");
  EXPECT_EQ(TypeOf("12345678901234567890"), "decimal(20,0)");
  EXPECT_EQ(TypeOf("1.5BD"), "decimal(2,1)");
  EXPECT_EQ(TypeOf("1.5D"), "double");
  EXPECT_EQ(TypeOf("1e3"), "double");
  EXPECT_EQ(TypeOf("1.5F"), "float");
  EXPECT_EQ(TypeOf("NULL"), "void");
  EXPECT_EQ(First("1.50"), "1.50");
  EXPECT_EQ(First("-7"), "-7");
  EXPECT_EQ(First("1e3"), "1000.0");
  EXPECT_EQ(First("X'4142'"), "[41 42]");
  EXPECT_EQ(First("DATE '2024-01-05'"), "2024-01-05");
  EXPECT_EQ(First("TIMESTAMP '2024-01-05 10:30:00'"), "2024-01-05 10:30:00");
  EXPECT_EQ(TypeOf("TIMESTAMP_NTZ '2024-01-05 10:30:00'"), "timestamp_ntz");
  EXPECT_EQ(First("true AND false"), "false");
}

TEST_F(ExpressionBinderTest, TimestampLiteralsUseTheSessionZone) {
  context_.time_zone = "+02:00";
  expr::ExpressionPtr bound = BindSql("CAST(TIMESTAMP '2024-01-05 10:30:00' AS BIGINT)");
  VectorPtr result = expr::Evaluate(*bound, batch_, context_);
  // 08:30 UTC.
  EXPECT_EQ(result->ValueToString(0), std::to_string(1704443400));
}

TEST_F(ExpressionBinderTest, DecimalArithmeticResultTypes) {
  EXPECT_EQ(TypeOf("amount + amount"), "decimal(11,2)");
  // An integral literal beside a decimal is the narrowest decimal holding it (2 is DECIMAL(1,0)).
  EXPECT_EQ(TypeOf("amount * 2"), "decimal(12,2)");
  EXPECT_EQ(TypeOf("amount / 3"), "decimal(14,6)");
  EXPECT_EQ(TypeOf("1.5 + 1"), "decimal(3,1)");
  EXPECT_EQ(TypeOf("amount * 1.0D"), "double");
  EXPECT_THAT(Eval("amount * 2"), ElementsAre("3.00", "4.50", "NULL", "-6.00"));
  EXPECT_EQ(First("0.1 + 0.2"), "0.3");
}

TEST_F(ExpressionBinderTest, AnsiErrorsAtEvaluation) {
  EXPECT_EQ(ErrorOf("a / 0"), "DIVIDE_BY_ZERO|");
  EXPECT_EQ(ErrorOf("a DIV 0"), "DIVIDE_BY_ZERO|");
  EXPECT_EQ(ErrorOf("a + 2147483647"), "ARITHMETIC_OVERFLOW|");
  EXPECT_EQ(ErrorOf("-(a - 2147483647 - 2)"), "ARITHMETIC_OVERFLOW|");
  // A CASE branch that is not taken raises nothing.
  EXPECT_THAT(Eval("CASE WHEN a > 100 THEN a / 0 ELSE 0 END"), ElementsAre("0.0", "0.0", "0.0", "0.0"));
  context_.ansi = false;
  EXPECT_THAT(Eval("a / 0"), ElementsAre("NULL", "NULL", "NULL", "NULL"));
  EXPECT_EQ(First("CAST('x' AS INT)"), "NULL");
}

TEST_F(ExpressionBinderTest, IntervalArithmetic) {
  EXPECT_THAT(Eval("dt + INTERVAL 1 MONTH"), ElementsAre("2024-02-29", "2024-03-29", "NULL", "2024-01-31"));
  EXPECT_THAT(Eval("dt - INTERVAL '2' MONTH"), ElementsAre("2023-11-30", "2023-12-29", "NULL", "2023-10-31"));
  EXPECT_THAT(Eval("dt + INTERVAL 1 DAY"), ElementsAre("2024-02-01", "2024-03-01", "NULL", "2024-01-01"));
  EXPECT_EQ(TypeOf("dt + INTERVAL 1 DAY"), "date");
  EXPECT_EQ(TypeOf("dt + INTERVAL 3 HOURS"), "timestamp");
  EXPECT_EQ(First("dt + INTERVAL 3 HOURS"), "2024-01-31 03:00:00");
  EXPECT_EQ(First("TIMESTAMP '2024-01-01 10:00:00' + INTERVAL 1 DAY"), "2024-01-02 10:00:00");
  EXPECT_EQ(First("TIMESTAMP '2024-01-01 10:00:00' - INTERVAL '90' MINUTE"), "2024-01-01 08:30:00");
  EXPECT_EQ(First("INTERVAL 2 HOURS + TIMESTAMP '2024-01-01 10:00:00'"), "2024-01-01 12:00:00");
  EXPECT_EQ(First("TIMESTAMP '2024-01-31 10:00:00' + INTERVAL '1-1' YEAR TO MONTH"), "2025-02-28 10:00:00");
  EXPECT_EQ(First("TIMESTAMP '2024-01-01 00:00:00' + INTERVAL '1 02:03:04.5' DAY TO SECOND"),
            "2024-01-02 02:03:04.5");
  EXPECT_EQ(First("DATE '2024-01-31' + INTERVAL '1 month 2 days'"), "2024-03-02");
  EXPECT_EQ(First("DATE '2024-01-31' + -INTERVAL 1 WEEK"), "2024-01-24");
  EXPECT_EQ(First("INTERVAL 1 DAY"), "INTERVAL '1' DAY");
  EXPECT_EQ(TypeOf("dt - DATE '2024-01-01'"), "interval day");
  // Calendar intervals (no ANSI type) are values only inside datetime arithmetic.
  EXPECT_EQ(ErrorOf("INTERVAL '1 day'"), "UNSUPPORTED_FEATURE|line 1, pos 0");
  EXPECT_EQ(ErrorOf("b + INTERVAL 1 DAY").substr(0, 17), "CAST_INVALID_INPU");
}

TEST_F(ExpressionBinderTest, StructFieldsSubscriptsAndMaps) {
  EXPECT_THAT(Eval("s.f"), ElementsAre("10", "20", "NULL", "40"));
  EXPECT_THAT(Eval("t.s.G"), ElementsAre("p", "q", "NULL", "NULL"));
  EXPECT_THAT(Eval("named_struct('x', a, 'y', b).y"), ElementsAre("x", "y", "NULL", "z"));
  // `arr[i]` is 0-based; out of bounds raises in ANSI mode and gives NULL otherwise.
  EXPECT_EQ(ErrorOf("arr[0]"), "INVALID_ARRAY_INDEX|");
  EXPECT_THAT(Eval("CASE WHEN size(arr) > 0 THEN arr[0] END"), ElementsAre("1", "NULL", "NULL", "7"));
  EXPECT_THAT(Eval("m['k']"), ElementsAre("1", "NULL", "NULL", "4"));
  EXPECT_THAT(Eval("try_element_at(arr, -1)"), ElementsAre("3", "NULL", "NULL", "7"));
  std::string message;
  EXPECT_EQ(ErrorOf("named_struct('x', a).z", &message), "FIELD_NOT_FOUND|line 1, pos 20");
  EXPECT_EQ(message, "No such struct field `z` in `x`.");
  EXPECT_EQ(ErrorOf("a.f"), "UNRESOLVED_COLUMN|line 1, pos 0");
  EXPECT_EQ(ErrorOf("(a + 1).f").substr(0, 17), "DATATYPE_MISMATCH");
  EXPECT_EQ(ErrorOf("a[0]").substr(0, 17), "DATATYPE_MISMATCH");
}

TEST_F(ExpressionBinderTest, FunctionCallsThroughTheRegistry) {
  EXPECT_THAT(Eval("upper(b)"), ElementsAre("X", "Y", "NULL", "Z"));
  EXPECT_THAT(Eval("coalesce(a, 0)"), ElementsAre("1", "2", "0", "4"));
  EXPECT_THAT(Eval("IF(a > 1, 'y', 'n')"), ElementsAre("n", "y", "n", "y"));
  EXPECT_THAT(Eval("ABS(-a)"), ElementsAre("1", "2", "NULL", "4"));
  EXPECT_THAT(Eval("year(dt)"), ElementsAre("2024", "2024", "NULL", "2023"));
  EXPECT_EQ(TypeOf("struct(a, t.b, s.f, a + 1)"), "struct<a:int,b:string,f:int,col4:int>");
  EXPECT_EQ(TypeOf("(a, b)"), "struct<a:int,b:string>");
  EXPECT_THAT(Eval("extract(MONTH FROM dt)"), ElementsAre("1", "2", "NULL", "12"));
  EXPECT_THAT(Eval("instr(b, 'y')"), ElementsAre("0", "1", "NULL", "0"));
}

TEST_F(ExpressionBinderTest, ErrorsArePositionedWithSparkClasses) {
  std::string message;
  EXPECT_EQ(ErrorOf("a + nope", &message), "UNRESOLVED_COLUMN|line 1, pos 4");
  EXPECT_THAT(message, HasSubstr("name `nope` cannot be resolved"));
  EXPECT_EQ(ErrorOf("flgg", &message), "UNRESOLVED_COLUMN|line 1, pos 0");
  EXPECT_EQ(message,
            "A column, variable, or function parameter with name `flgg` cannot be resolved. Did you mean one of the "
            "following? [`t`.`flag`, `t`.`a`, `t`.`b`, `t`.`s`, `t`.`arr`].");
  EXPECT_EQ(ErrorOf("x.amonut", &message), "UNRESOLVED_COLUMN|line 1, pos 0");
  EXPECT_THAT(message, HasSubstr("`x`.`amonut`"));
  EXPECT_EQ(ErrorOf("a + flag", &message), "DATATYPE_MISMATCH|line 1, pos 2");
  EXPECT_EQ(message,
            "Cannot resolve \"(a + flag)\" due to data type mismatch: the left and right operands of the binary "
            "operator have incompatible types (\"INT\" and \"BOOLEAN\").");
  EXPECT_EQ(ErrorOf("\n  dt < flag"), "DATATYPE_MISMATCH|line 2, pos 5");
  EXPECT_EQ(ErrorOf("nosuchfn(a)", &message), "UNRESOLVED_ROUTINE|line 1, pos 0");
  EXPECT_EQ(message, "Cannot resolve routine `nosuchfn` on search path [`system`.`builtin`, `system`.`session`].");
  EXPECT_EQ(ErrorOf("db.fn(a)"), "UNRESOLVED_ROUTINE|line 1, pos 0");
  EXPECT_EQ(ErrorOf("upper(a, b)"), "WRONG_NUM_ARGS|line 1, pos 0");
  EXPECT_EQ(ErrorOf("date_add(flag, a + 1)", &message), "DATATYPE_MISMATCH|line 1, pos 0");
  EXPECT_EQ(message,
            "Cannot resolve \"date_add(flag, (a + 1))\" due to data type mismatch: The first parameter requires the "
            "\"DATE\" type, however \"flag\" has the type \"BOOLEAN\".");
  EXPECT_EQ(ErrorOf("abs(*)"), "INVALID_USAGE_OF_STAR_OR_REGEX|line 1, pos 0");
  EXPECT_EQ(ErrorOf("sum(a)"), "INVALID_WHERE_CONDITION|line 1, pos 0");
  EXPECT_EQ(ErrorOf("sum(a) OVER ()"), "INVALID_WHERE_CONDITION|line 1, pos 0");
  EXPECT_EQ(ErrorOf("row_number()"), "WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE|line 1, pos 0");
  EXPECT_EQ(ErrorOf("explode(arr)"), "UNSUPPORTED_GENERATOR|line 1, pos 0");
  EXPECT_EQ(ErrorOf("a IN (SELECT 1)"), "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY|line 1, pos 2");
  EXPECT_EQ(ErrorOf("NOT a"), "DATATYPE_MISMATCH|line 1, pos 0");
  EXPECT_EQ(ErrorOf("m = m", &message), "DATATYPE_MISMATCH|line 1, pos 2");
  EXPECT_THAT(message, HasSubstr("The `=` does not support ordering on type \"MAP<STRING, INT>\"."));
  EXPECT_EQ(ErrorOf("flag AND a"), "DATATYPE_MISMATCH|line 1, pos 5");
}

TEST_F(ExpressionBinderTest, AmbiguousColumns) {
  schema_ = std::make_shared<Schema>(
      std::vector<Field>{Field{"Id", IntegerType(), true, {}}, Field{"id", IntegerType(), true, {}}});
  SchemaScope scope(schema_);
  ExpressionBinder binder(scope);
  try {
    binder.Bind(*ParseExpression("ID + 1"));
    FAIL() << "expected AMBIGUOUS_REFERENCE";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "AMBIGUOUS_REFERENCE");
    EXPECT_EQ(error.context(), "line 1, pos 0");
  }
}

TEST_F(ExpressionBinderTest, PredicatesMustBeBoolean) {
  SchemaScope scope(schema_);
  ExpressionBinder binder(scope);
  EXPECT_EQ(binder.BindPredicate(*ParseExpression("a > 1"), "Filter")->type()->id(), TypeId::kBoolean);
  EXPECT_EQ(binder.BindPredicate(*ParseExpression("NULL"), "Filter")->type()->id(), TypeId::kBoolean);
  try {
    binder.BindPredicate(*ParseExpression("a + 1"), "Filter");
    FAIL() << "expected DATATYPE_MISMATCH";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DATATYPE_MISMATCH");
    EXPECT_EQ(error.message(),
              "Cannot resolve \"(a + 1)\" due to data type mismatch: Filter expression \"(a + 1)\" of type \"INT\" "
              "is not a boolean.");
  }
}

TEST(ExpressionSqlTest, SparkColumnNames) {
  EXPECT_EQ(Name("a"), "a");
  EXPECT_EQ(Name("t.a"), "a");
  EXPECT_EQ(Name("s.f"), "f");
  EXPECT_EQ(Name("a + 1"), "(a + 1)");
  EXPECT_EQ(Name("t.a + 1"), "(a + 1)");
  EXPECT_EQ(Name("count(*)"), "count(1)");
  EXPECT_EQ(Name("COUNT(DISTINCT x)"), "count(DISTINCT x)");
  EXPECT_EQ(Name("sum(x)"), "sum(x)");
  EXPECT_EQ(Name("avg(amount)"), "avg(amount)");
  EXPECT_EQ(Name("max(DISTINCT x)"), "max(DISTINCT x)");
  EXPECT_EQ(Name("count(x) FILTER (WHERE x > 1)"), "count(x) FILTER (WHERE (x > 1))");
  EXPECT_EQ(Name("CAST(x + 1 AS INT)"), "CAST((x + 1) AS INT)");
  EXPECT_EQ(Name("CAST(x AS INT)"), "x");
  EXPECT_EQ(Name("CAST(1 AS DECIMAL(10,2))"), "CAST(1 AS DECIMAL(10,2))");
  EXPECT_EQ(Name("TRY_CAST('1' AS BIGINT)"), "TRY_CAST(1 AS BIGINT)");
  EXPECT_EQ(Name("UPPER(name)"), "upper(name)");
  EXPECT_EQ(Name("x = 1"), "(x = 1)");
  EXPECT_EQ(Name("x == 1"), "(x = 1)");
  EXPECT_EQ(Name("x <> 1"), "(NOT (x = 1))");
  EXPECT_EQ(Name("x <=> 1"), "(x <=> 1)");
  EXPECT_EQ(Name("NOT a"), "(NOT a)");
  EXPECT_EQ(Name("-a"), "(- a)");
  EXPECT_EQ(Name("a IS NULL"), "(a IS NULL)");
  EXPECT_EQ(Name("a IS NOT NULL"), "(a IS NOT NULL)");
  EXPECT_EQ(Name("a AND b OR c"), "((a AND b) OR c)");
  EXPECT_EQ(Name("a IN (1, 2)"), "(a IN (1, 2))");
  EXPECT_EQ(Name("a NOT IN (1, 2)"), "(NOT (a IN (1, 2)))");
  EXPECT_EQ(Name("a BETWEEN 1 AND 3"), "((a >= 1) AND (a <= 3))");
  EXPECT_EQ(Name("b LIKE 'x%'"), "b LIKE x%");
  EXPECT_EQ(Name("CASE WHEN a > 1 THEN x ELSE y END"), "CASE WHEN (a > 1) THEN x ELSE y END");
  EXPECT_EQ(Name("CASE a WHEN 1 THEN 'one' END"), "CASE WHEN (a = 1) THEN one END");
  EXPECT_EQ(Name("'abc'"), "abc");
  EXPECT_EQ(Name("1"), "1");
  EXPECT_EQ(Name("10L"), "10");
  EXPECT_EQ(Name("NULL"), "NULL");
  EXPECT_EQ(Name("1.5"), "1.5");
  EXPECT_EQ(Name("1.5D"), "1.5");
  EXPECT_EQ(Name("1e10"), "1.0E10");
  EXPECT_EQ(Name("true"), "true");
  EXPECT_EQ(Name("DATE '2024-01-01'"), "DATE '2024-01-01'");
  EXPECT_EQ(Name("TIMESTAMP '2024-01-01 10:00:00'"), "TIMESTAMP '2024-01-01 10:00:00'");
  EXPECT_EQ(Name("arr[0]"), "arr[0]");
  EXPECT_EQ(Name("m[k]"), "m[k]");
  EXPECT_EQ(Name("m['k']"), "m[k]");
  EXPECT_EQ(Name("named_struct('a', 1).a"), "named_struct(a, 1).a");
  EXPECT_EQ(Name("a || b"), "concat(a, b)");
  EXPECT_EQ(Name("a DIV 2"), "(a div 2)");
  EXPECT_EQ(Name("current_date"), "current_date()");
  EXPECT_EQ(Name("if(a, 1, 2)"), "(IF(a, 1, 2))");
}

TEST(ExpressionSqlTest, WindowColumnNames) {
  EXPECT_EQ(Name("row_number() OVER (PARTITION BY k ORDER BY t DESC)"),
            "row_number() OVER (PARTITION BY k ORDER BY t DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND "
            "CURRENT ROW)");
  EXPECT_EQ(Name("sum(x) OVER (PARTITION BY k)"),
            "sum(x) OVER (PARTITION BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)");
  EXPECT_EQ(Name("sum(x) OVER (ORDER BY t)"),
            "sum(x) OVER (ORDER BY t ASC NULLS FIRST RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)");
  EXPECT_EQ(Name("sum(x) OVER (ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)"),
            "sum(x) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)");
  EXPECT_EQ(Name("lag(x) OVER (ORDER BY t)"),
            "lag(x, 1, NULL) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING AND -1 FOLLOWING)");
  EXPECT_EQ(Name("lead(x, 2) OVER (ORDER BY t)"),
            "lead(x, 2, NULL) OVER (ORDER BY t ASC NULLS FIRST ROWS BETWEEN 2 FOLLOWING AND 2 FOLLOWING)");
}

TEST(EvaluateConstantTest, FoldsConstantsAndRejectsColumns) {
  expr::EvalContext context;
  EXPECT_EQ(EvaluateConstant(*ParseExpression("1 + 2"), "LIMIT", context).GetInt(), 3);
  EXPECT_EQ(EvaluateConstant(*ParseExpression("'2024-01-01'"), "TIMESTAMP AS OF", context).GetString(), "2024-01-01");
  try {
    EvaluateConstant(*ParseExpression("x + 1"), "LIMIT", context);
    FAIL() << "expected UNRESOLVED_COLUMN";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "UNRESOLVED_COLUMN");
    EXPECT_EQ(error.context(), "line 1, pos 0");
  }
  try {
    EvaluateConstant(*ParseExpression("1 / 0"), "LIMIT", context);
    FAIL() << "expected DIVIDE_BY_ZERO";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "DIVIDE_BY_ZERO");
  }
}

}  // namespace
}  // namespace silt::sql
