#include "silt/sql/lexer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/error_class.h"

namespace silt::sql {
namespace {

using ::testing::ElementsAre;

std::vector<TokenKind> Kinds(std::string_view sql) {
  std::vector<TokenKind> kinds;
  for (const Token& token : Tokenize(sql)) kinds.push_back(token.kind);
  return kinds;
}

std::vector<std::string> Texts(std::string_view sql) {
  std::vector<std::string> texts;
  for (const Token& token : Tokenize(sql)) {
    if (token.kind != TokenKind::kEnd) texts.push_back(token.text);
  }
  return texts;
}

std::string ErrorOf(std::string_view sql) {
  try {
    Tokenize(sql);
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

TEST(LexerTest, IdentifiersAndQuotedIdentifiers) {
  EXPECT_THAT(Kinds("select a_1 `b c`"),
              ElementsAre(TokenKind::kIdentifier, TokenKind::kIdentifier,
                          TokenKind::kQuotedIdentifier, TokenKind::kEnd));
  EXPECT_THAT(Texts("`a``b` `/tmp/x`"), ElementsAre("a`b", "/tmp/x"));
  // Spark's identifiers may start with digits when they are not numbers.
  EXPECT_THAT(Kinds("1a 2e3x"),
              ElementsAre(TokenKind::kIdentifier, TokenKind::kIdentifier, TokenKind::kEnd));
  EXPECT_THAT(Texts("1a 2e3x"), ElementsAre("1a", "2e3x"));
}

TEST(LexerTest, StringEscapesFollowSpark) {
  EXPECT_THAT(Texts(R"('it\'s' "say \"hi\"" 'a\nb\tc')"),
              ElementsAre("it's", "say \"hi\"", "a\nb\tc"));
  EXPECT_THAT(Texts(R"('\u0041\101\z' '\%\_' '\\')"), ElementsAre("AAz", "\\%\\_", "\\"));
  EXPECT_EQ(Texts(R"('\0')")[0], std::string(1, '\0'));
  EXPECT_THAT(Texts(R"('\U0001F600')"), ElementsAre("\xF0\x9F\x98\x80"));
  // `'a''b'` is two adjacent literals; the parser concatenates them.
  EXPECT_THAT(Texts("'a''b'"), ElementsAre("a", "b"));
  EXPECT_THAT(Texts(R"('d' "q'")"), ElementsAre("d", "q'"));
  // Raw strings keep backslashes.
  EXPECT_THAT(Texts(R"(r'a\nb' R"\d+")"), ElementsAre("a\\nb", "\\d+"));
}

TEST(LexerTest, NumericLiteralsAndSuffixes) {
  EXPECT_THAT(
      Kinds("1 10L 5S 7Y 1.5 .5 1. 1e10 1.5E-3 2D 2.5F 3BD 1.5bd 4l"),
      ElementsAre(TokenKind::kInteger, TokenKind::kBigintLiteral, TokenKind::kSmallintLiteral,
                  TokenKind::kTinyintLiteral, TokenKind::kDecimal, TokenKind::kDecimal,
                  TokenKind::kDecimal, TokenKind::kExponent, TokenKind::kExponent,
                  TokenKind::kDoubleLiteral, TokenKind::kFloatLiteral,
                  TokenKind::kBigDecimalLiteral, TokenKind::kBigDecimalLiteral,
                  TokenKind::kBigintLiteral, TokenKind::kEnd));
  EXPECT_THAT(Texts("10L 1.5E-3 3BD"), ElementsAre("10", "1.5E-3", "3"));
  EXPECT_THAT(Texts("a.b"), ElementsAre("a", ".", "b"));
}

TEST(LexerTest, BinaryLiteral) {
  auto tokens = Tokenize("X'0aFF' x''");
  EXPECT_EQ(tokens[0].kind, TokenKind::kBinary);
  EXPECT_EQ(tokens[0].text, "0aFF");
  EXPECT_EQ(tokens[1].kind, TokenKind::kBinary);
  EXPECT_EQ(tokens[1].text, "");
}

TEST(LexerTest, OperatorsTakeTheLongestMatch) {
  EXPECT_THAT(
      Texts("<=> == != <> || :: -> <= >= << >> >>> ( ) [ ] , ; . = < > + - * / % & | ^ ~ ! : @"),
      ElementsAre("<=>", "==", "!=", "<>", "||", "::", "->", "<=", ">=", "<<", ">>", ">>>", "(",
                  ")", "[", "]", ",", ";", ".", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|",
                  "^", "~", "!", ":", "@"));
  EXPECT_THAT(Texts("a<=>b"), ElementsAre("a", "<=>", "b"));
}

TEST(LexerTest, CommentsAreSkippedAndNest) {
  EXPECT_THAT(Texts("a -- line comment\n b /* block /* nested */ still */ c"),
              ElementsAre("a", "b", "c"));
  EXPECT_THAT(Texts("a/**/b--"), ElementsAre("a", "b"));
}

TEST(LexerTest, PositionsAreOneBasedLineAndColumn) {
  auto tokens = Tokenize("SELECT a,\n  `b`\r\n\t'c'");
  ASSERT_EQ(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].position.line, 1);
  EXPECT_EQ(tokens[0].position.column, 1);
  EXPECT_EQ(tokens[1].position.column, 8);
  EXPECT_EQ(tokens[2].position.column, 9);
  EXPECT_EQ(tokens[3].position.line, 2);
  EXPECT_EQ(tokens[3].position.column, 3);
  EXPECT_EQ(tokens[3].position.offset, 12u);
  EXPECT_EQ(tokens[3].end_offset, 15u);
  EXPECT_EQ(tokens[4].position.line, 3);
  EXPECT_EQ(tokens[4].position.column, 2);
  EXPECT_EQ(tokens[4].kind, TokenKind::kString);
  EXPECT_EQ(tokens[5].kind, TokenKind::kEnd);
  EXPECT_EQ(tokens[5].position.offset, 21u);
  EXPECT_EQ(FormatPosition(tokens[3].position), "line 2, pos 2");
}

TEST(LexerTest, ErrorsCarryClassAndPosition) {
  EXPECT_EQ(ErrorOf("SELECT 'abc"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '''. (line 1, pos 7)");
  EXPECT_EQ(ErrorOf("a\n \"x"),
            "[PARSE_SYNTAX_ERROR] Syntax error at or near '\"'. (line 2, pos 1)");
  EXPECT_EQ(ErrorOf("`abc"), "[PARSE_SYNTAX_ERROR] Syntax error at or near '`'. (line 1, pos 0)");
  EXPECT_EQ(ErrorOf("X'ab"), "[PARSE_SYNTAX_ERROR] Syntax error at or near 'X''. (line 1, pos 0)");
  EXPECT_EQ(ErrorOf("a # b"), "[PARSE_SYNTAX_ERROR] Syntax error at or near '#'. (line 1, pos 2)");
  EXPECT_EQ(ErrorOf("a /* b /* c */"),
            "[UNCLOSED_BRACKETED_COMMENT] Found an unclosed bracketed comment. Please, append */ "
            "at the end of the comment. (line 1, pos 2)");
  try {
    Tokenize("'x");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PARSE_SYNTAX_ERROR");
    EXPECT_EQ(error.sqlstate(), "42601");
    EXPECT_EQ(error.category(), ErrorCategory::kUser);
  }
}

TEST(LexerTest, EmptyInputIsJustEnd) {
  EXPECT_THAT(Kinds(""), ElementsAre(TokenKind::kEnd));
  EXPECT_THAT(Kinds("  -- only a comment"), ElementsAre(TokenKind::kEnd));
  EXPECT_EQ(TokenKindName(TokenKind::kString), "string");
}

}  // namespace
}  // namespace silt::sql
