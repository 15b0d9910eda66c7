#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace silt::sql {

/// A place in the SQL text. `line` and `column` are 1-based (column counts bytes); `offset` is
/// the 0-based byte offset. Spark reports `pos` as the 0-based column: `column - 1`.
struct SourcePosition {
  int line = 1;
  int column = 1;
  size_t offset = 0;
};

/// The kinds of token the Spark SQL lexer produces.
enum class TokenKind {
  kIdentifier,        ///< Unquoted word (keywords included; the parser decides). text = as written.
  kQuotedIdentifier,  ///< `...` with `` unescaped to `. Never a keyword.
  kString,            ///< '...' or "..." (or r'...'), text = the unescaped value.
  kInteger,           ///< Digits without suffix.
  kBigintLiteral,     ///< Digits + L
  kSmallintLiteral,   ///< Digits + S
  kTinyintLiteral,    ///< Digits + Y
  kDecimal,           ///< Digits with a '.' (e.g. 1.5, .5, 1.)
  kExponent,          ///< A number with an exponent and no suffix (a double).
  kDoubleLiteral,     ///< A number + D
  kFloatLiteral,      ///< A number + F
  kBigDecimalLiteral,  ///< A number + BD
  kBinary,             ///< X'..'; text = the hex digits as written.
  kOperator,           ///< Punctuation and operators; text = the operator ("<=>", "(", ...).
  kEnd,                ///< End of input; always the last token.
};

/// One token. For numeric tokens `text` holds the digits without the suffix.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  SourcePosition position;
  /// Byte offset just past the token in the source text.
  size_t end_offset = 0;
};

/// Returns a short name of `kind` for messages and tests ("identifier", "string", ...).
std::string_view TokenKindName(TokenKind kind);

/// Splits Spark SQL text into tokens, skipping whitespace and comments (`-- ...`, and `/* */`,
/// which nest as in Spark). The last token is always kEnd.
///
/// String literals follow Spark: single or double quotes, backslash escapes (`\n`, `\t`, `\'`,
/// `\uXXXX`, octal `\101`, `\%` and `\_` kept with their backslash for LIKE, any other `\c` is
/// `c`); a raw string `r'...'` keeps backslashes. Two adjacent literals (`'a' 'b'`, and so
/// `'a''b'`) are separate tokens that the parser concatenates, as Spark does.
///
/// Throws silt::Error: PARSE_SYNTAX_ERROR for an unterminated string, quoted identifier or
/// binary literal, or a character that starts no token; UNCLOSED_BRACKETED_COMMENT for a `/*`
/// without its `*/`; INVALID_TYPED_LITERAL-style errors are left to the parser. Each error carries
/// the position as context `line <l>, pos <p>` (0-based pos, as Spark prints it).
std::vector<Token> Tokenize(std::string_view sql);

/// Returns `line <l>, pos <p>` for `position`, the form Spark prints after a parse error.
std::string FormatPosition(const SourcePosition& position);

}  // namespace silt::sql
