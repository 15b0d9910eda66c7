#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/error_class.h"
#include "silt/sql/ast_printer.h"
#include "silt/sql/parser.h"

namespace silt::sql {
namespace {

// Returns what() of the error ParseStatements throws for `sql`.
std::string ErrorOf(std::string_view sql) {
  try {
    ParseStatements(sql);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

std::string ClassOf(std::string_view sql) {
  try {
    ParseStatements(sql);
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "no error";
}

std::string Repeat(std::string_view text, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) out += text;
  return out;
}

TEST(ParserErrorTest, SyntaxErrorsNameTheTokenAndSparkPosition) {
  EXPECT_EQ(ErrorOf("SELECT FROM t"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near 'FROM'. (line 1, pos 7)");
  EXPECT_EQ(ErrorOf("SELECT * FROM t WHERE"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. (line 1, pos 21)");
  EXPECT_EQ(ErrorOf("SELECT a\nFROM t\nWHERE a = = 1"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '='. (line 3, pos 10)");
  EXPECT_EQ(ErrorOf("SELECT (1"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input: missing ')'. (line 1, "
            "pos 9)");
  EXPECT_EQ(ErrorOf("SELECT 1 2"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '2': extra input '2'. (line 1, pos 9)");
  EXPECT_EQ(ErrorOf("SELEC 1"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. (line 1, pos 0)");
  EXPECT_EQ(ErrorOf("SELECT 1; SELECT"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. (line 1, pos 16)");
  EXPECT_EQ(ErrorOf("UPDATE t SET a = 1 WHERE"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. (line 1, pos 24)");
  EXPECT_EQ(ClassOf("SELECT a IS NULL IS NULL"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("SELECT CASE END"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("SELECT * FROM a NATURAL b"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("SELECT * FROM t@x5"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("SELECT * FROM t VERSION AS OF x"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("CREATE TEMP TABLE t (a INT)"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("INSERT t VALUES (1)"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("SET = 1"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("ALTER TABLE t FROB"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("VACUUM t RETAIN x HOURS"), "PARSE_SYNTAX_ERROR");
  try {
    ParseStatement("SELECT 1 +");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PARSE_SYNTAX_ERROR");
    EXPECT_EQ(error.sqlstate(), "42601");
    EXPECT_EQ(error.category(), ErrorCategory::kUser);
    EXPECT_EQ(error.message(), "Syntax error at or near end of input.");
    EXPECT_EQ(error.context(), "line 1, pos 10");
  }
}

TEST(ParserErrorTest, LexicalErrors) {
  EXPECT_EQ(ErrorOf("SELECT 'abc"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '''. (line 1, pos 7)");
  EXPECT_EQ(ErrorOf("SELECT 1 /* never closed"),
            "[UNCLOSED_BRACKETED_COMMENT] Found an unclosed bracketed comment. Please, append */ "
            "at the end of the comment. (line 1, pos 9)");
  EXPECT_EQ(ClassOf("SELECT `a"), "PARSE_SYNTAX_ERROR");
}

TEST(ParserErrorTest, EmptyStatements) {
  for (std::string_view sql : {"", "   ", "-- only a comment", ";", " ; ; ", "/* c */"}) {
    try {
      ParseStatements(sql);
      ADD_FAILURE() << "no error for '" << sql << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), "PARSE_EMPTY_STATEMENT") << sql;
      EXPECT_EQ(error.sqlstate(), "42617");
      EXPECT_EQ(error.message(), "Syntax error, unexpected empty statement.");
    }
  }
  EXPECT_THROW(ParseStatement(""), Error);
  EXPECT_THROW(ParseExpression("  "), Error);
  EXPECT_THROW(ParseDataType(""), Error);
}

TEST(ParserErrorTest, BadLiteralsAndTypes) {
  EXPECT_EQ(ErrorOf("SELECT CAST(a AS foo)"),
            "[UNSUPPORTED_DATATYPE] Unsupported data type \"FOO\". (line 1, pos 17)");
  EXPECT_EQ(ErrorOf("CREATE TABLE t (a INTERVAL)"),
            "[UNSUPPORTED_DATATYPE] Unsupported data type \"INTERVAL\". (line 1, pos 18)");
  EXPECT_EQ(ClassOf("SELECT CAST(a AS DECIMAL(40, 2))"), "INVALID_DECIMAL_TYPE");
  EXPECT_EQ(ClassOf("SELECT CAST(a AS DECIMAL(5, 6))"), "INVALID_DECIMAL_TYPE");
  EXPECT_EQ(ClassOf("SELECT CAST(a AS array<int)"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("SELECT CAST(a AS varchar)"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ErrorOf("SELECT DATE '2024-13-01'"),
            "[INVALID_TYPED_LITERAL] The value of the typed literal \"DATE\" is invalid: "
            "'2024-13-01'. (line 1, pos 12)");
  EXPECT_EQ(ClassOf("SELECT TIMESTAMP 'yesterday'"), "INVALID_TYPED_LITERAL");
  EXPECT_EQ(ClassOf("SELECT X'zz'"), "INVALID_TYPED_LITERAL");
  EXPECT_EQ(ClassOf("SELECT INTERVAL 1"), "INVALID_TYPED_LITERAL");
  EXPECT_EQ(ClassOf("SELECT a LIKE 'x' ESCAPE 'ab'"), "INVALID_TYPED_LITERAL");
  EXPECT_EQ(ErrorOf("SELECT 128Y"),
            "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 128 is outside the valid range for "
            "tinyint with minimum value of -128 and maximum value of 127. Please adjust the value "
            "accordingly. (line 1, pos 7)");
  EXPECT_EQ(ClassOf("SELECT -32769S"), "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_EQ(ClassOf("SELECT 9223372036854775808L"), "INVALID_NUMERIC_LITERAL_RANGE");
  EXPECT_NO_THROW(ParseStatement("SELECT -128Y, -9223372036854775808L, 32767S"));
  EXPECT_THROW(ParseDataType("map<int>"), Error);
  EXPECT_THROW(ParseDataType("int int"), Error);
}

TEST(ParserErrorTest, MergeWithoutWhenClause) {
  EXPECT_EQ(ErrorOf("MERGE INTO t USING s ON t.id = s.id"),
            "[DELTA_MERGE_MISSING_WHEN] There must be at least one WHEN clause in a MERGE "
            "statement. (line 1, pos 0)");
  EXPECT_EQ(ClassOf("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED THEN DELETE"),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("MERGE INTO t USING s ON t.id = s.id WHEN NOT MATCHED BY SOURCE THEN "
                    "INSERT *"),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN INSERT *"),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ClassOf("MERGE INTO t USING s ON t.id = s.id garbage"), "PARSE_SYNTAX_ERROR");
}

TEST(ParserErrorTest, DeepNestingFailsCleanly) {
  EXPECT_EQ(ClassOf("SELECT " + Repeat("(", 5000) + "1" + Repeat(")", 5000)),
            "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf("SELECT " + Repeat("NOT ", 5000) + "a"), "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf("SELECT " + Repeat("- ", 5000) + "a"), "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf("SELECT a" + Repeat(" + a", 100000)), "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf("SELECT a" + Repeat("[0]", 5000)), "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf("SELECT CAST(a AS " + Repeat("array<", 5000) + "int" + Repeat(">", 5000) + ")"),
            "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf(Repeat("SELECT * FROM (", 3000) + "SELECT 1" + Repeat(")", 3000)),
            "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf(Repeat("SELECT 1 UNION ", 5000) + "SELECT 1"), "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf("SELECT * FROM a" + Repeat(" JOIN a", 5000)), "PARSE_NESTING_TOO_DEEP");
  EXPECT_EQ(ClassOf(Repeat("EXPLAIN ", 5000) + "SELECT 1"), "PARSE_NESTING_TOO_DEEP");
  try {
    ParseExpression(Repeat("(", 2000) + "1" + Repeat(")", 2000));
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.message(),
              "The statement is nested too deeply: more than 1000 levels of expressions, "
              "queries or types.");
  }
  // Realistic depths still parse: long OR chains and a hundred nested parentheses.
  EXPECT_NO_THROW(ParseExpression("a = 0" + Repeat(" OR a = 1", 500)));
  EXPECT_EQ(ToString(*ParseExpression(Repeat("(", 100) + "x" + Repeat(")", 100))), "x");
  // Types nest as deep as a table's schema can store (kMaxTypeNestingDepth), and no deeper.
  EXPECT_NO_THROW(ParseDataType(Repeat("array<", 64) + "int" + Repeat(">", 64)));
  EXPECT_THROW(
      {
        try {
          ParseDataType(Repeat("array<", 65) + "int" + Repeat(">", 65));
        } catch (const Error& error) {
          EXPECT_EQ(error.error_class(), "DATATYPE_NESTING_TOO_DEEP");
          throw;
        }
      },
      Error);
}

}  // namespace
}  // namespace silt::sql
