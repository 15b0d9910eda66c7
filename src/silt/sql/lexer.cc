#include "silt/sql/lexer.h"

#include <cstdint>

#include "silt/base/check.h"

namespace silt::sql {
namespace {

bool IsIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;  // Spark accepts any Unicode letter.
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}
char Upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

void AppendUtf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out += static_cast<char>(code_point);
  } else if (code_point < 0x800) {
    out += static_cast<char>(0xC0 | (code_point >> 6));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else if (code_point < 0x10000) {
    out += static_cast<char>(0xE0 | (code_point >> 12));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code_point >> 18));
    out += static_cast<char>(0x80 | ((code_point >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code_point >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code_point & 0x3F));
  }
}

// Operators, longest first so that the first prefix match is the longest token.
constexpr std::string_view kOperators[] = {
    ">>>", "<=>", "<<", ">>", "<=", ">=", "<>", "!=", "==", "||", "::", "->", "=>",
    "(",   ")",   "[",  "]",  ",",  ";",  ".",  "=",  "<",  ">",  "+",  "-",  "*",
    "/",   "%",   "&",  "|",  "^",  "~",  "!",  ":",  "@",  "?",  "{",  "}",
};

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) {
    // A UTF-8 byte-order mark (editors on Windows start files with one) is invisible: skipped,
    // and columns count from after it.
    if (sql_.starts_with(kByteOrderMark)) {
      offset_ = kByteOrderMark.size();
      line_start_ = offset_;
    }
  }

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    while (true) {
      SkipWhitespaceAndComments();
      Token token;
      token.position = Position();
      if (offset_ >= sql_.size()) {
        token.kind = TokenKind::kEnd;
        token.end_offset = offset_;
        tokens.push_back(std::move(token));
        return tokens;
      }
      LexOne(token);
      token.end_offset = offset_;
      tokens.push_back(std::move(token));
    }
  }

 private:
  SourcePosition Position() const {
    return SourcePosition{line_, static_cast<int>(offset_ - line_start_) + 1, offset_};
  }
  char Peek(size_t ahead = 0) const {
    return offset_ + ahead < sql_.size() ? sql_[offset_ + ahead] : '\0';
  }
  bool AtEnd(size_t ahead = 0) const { return offset_ + ahead >= sql_.size(); }
  void Advance() {
    if (sql_[offset_] == '\n') {
      ++line_;
      line_start_ = offset_ + 1;
    }
    ++offset_;
  }

  [[noreturn]] void SyntaxError(const SourcePosition& position, std::string near) {
    throw MakeError(ErrorClass::PARSE_SYNTAX_ERROR, {{"error", std::move(near)}, {"hint", ""}})
        .WithContext(FormatPosition(position));
  }

  void SkipWhitespaceAndComments() {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        Advance();
      } else if (c == '-' && Peek(1) == '-') {
        while (!AtEnd() && Peek() != '\n') Advance();
      } else if (c == '/' && Peek(1) == '*') {
        SkipBracketedComment();
      } else {
        return;
      }
    }
  }

  // Spark's bracketed comments nest: `/* a /* b */ c */` is one comment.
  void SkipBracketedComment() {
    SourcePosition start = Position();
    int depth = 0;
    while (!AtEnd()) {
      if (Peek() == '/' && Peek(1) == '*') {
        ++depth;
        Advance();
        Advance();
      } else if (Peek() == '*' && Peek(1) == '/') {
        --depth;
        Advance();
        Advance();
        if (depth == 0) return;
      } else {
        Advance();
      }
    }
    throw MakeError(ErrorClass::UNCLOSED_BRACKETED_COMMENT, {}).WithContext(FormatPosition(start));
  }

  void LexOne(Token& token) {
    char c = Peek();
    if ((c == 'x' || c == 'X') && Peek(1) == '\'') {
      LexBinary(token);
    } else if ((c == 'r' || c == 'R') && (Peek(1) == '\'' || Peek(1) == '"')) {
      Advance();
      LexString(token, /*raw=*/true);
    } else if (c == '\'' || c == '"') {
      LexString(token, /*raw=*/false);
    } else if (c == '`') {
      LexQuotedIdentifier(token);
    } else if (IsDigit(c) || (c == '.' && IsDigit(Peek(1)))) {
      LexNumberOrIdentifier(token);
    } else if (IsIdentifierChar(c)) {
      size_t start = offset_;
      while (!AtEnd() && IsIdentifierChar(Peek())) Advance();
      token.kind = TokenKind::kIdentifier;
      token.text = std::string(sql_.substr(start, offset_ - start));
    } else {
      for (std::string_view op : kOperators) {
        if (sql_.substr(offset_, op.size()) == op) {
          token.kind = TokenKind::kOperator;
          token.text = std::string(op);
          for (size_t i = 0; i < op.size(); ++i) Advance();
          return;
        }
      }
      SyntaxError(token.position, "'" + std::string(1, c) + "'");
    }
  }

  void LexBinary(Token& token) {
    Advance();  // X
    Advance();  // '
    size_t start = offset_;
    while (!AtEnd() && Peek() != '\'') Advance();
    if (AtEnd())
      SyntaxError(token.position, "'" + std::string(sql_.substr(token.position.offset, 2)) + "'");
    token.kind = TokenKind::kBinary;
    token.text = std::string(sql_.substr(start, offset_ - start));
    Advance();
  }

  void LexString(Token& token, bool raw) {
    char quote = Peek();
    Advance();
    token.kind = TokenKind::kString;
    while (true) {
      if (AtEnd()) {
        // Spark's lexer cannot match the literal, so it reports the lone quote character.
        SyntaxError(token.position, std::string("'") + quote + "'");
      }
      char c = Peek();
      if (c == quote) {
        Advance();
        return;
      }
      if (c == '\\' && !AtEnd(1)) {
        if (raw) {
          // A raw string keeps the backslash, but it still escapes the quote character.
          token.text += c;
          Advance();
          token.text += Peek();
          Advance();
        } else {
          Advance();
          Unescape(token);
        }
        continue;
      }
      token.text += c;
      Advance();
    }
  }

  // Follows Spark's unescapeSQLString: \uXXXX, \UXXXXXXXX, three-digit octal, the usual
  // single-character escapes, and `\%` / `\_` kept escaped for LIKE patterns.
  void Unescape(Token& token) {
    char c = Peek();
    if (c == 'u' || c == 'U') {
      size_t digits = c == 'u' ? 4 : 8;
      bool all_hex = true;
      for (size_t i = 1; i <= digits; ++i) all_hex = all_hex && IsHexDigit(Peek(i));
      if (all_hex) {
        uint32_t code_point = 0;
        Advance();
        for (size_t i = 0; i < digits; ++i) {
          code_point = code_point * 16 + static_cast<uint32_t>(HexValue(Peek()));
          Advance();
        }
        if (code_point > 0x10FFFF) code_point = 0xFFFD;
        AppendUtf8(code_point, token.text);
        return;
      }
    }
    if (c >= '0' && c <= '3' && Peek(1) >= '0' && Peek(1) <= '7' && Peek(2) >= '0' &&
        Peek(2) <= '7') {
      int value = (c - '0') * 64 + (Peek(1) - '0') * 8 + (Peek(2) - '0');
      token.text += static_cast<char>(value);
      Advance();
      Advance();
      Advance();
      return;
    }
    switch (c) {
      case '0':
        token.text += '\0';
        break;
      case 'b':
        token.text += '\b';
        break;
      case 'n':
        token.text += '\n';
        break;
      case 'r':
        token.text += '\r';
        break;
      case 't':
        token.text += '\t';
        break;
      case 'Z':
        token.text += '\x1A';
        break;
      case '%':
        token.text += "\\%";
        break;
      case '_':
        token.text += "\\_";
        break;
      default:
        token.text += c;
        break;
    }
    Advance();
  }

  void LexQuotedIdentifier(Token& token) {
    Advance();
    token.kind = TokenKind::kQuotedIdentifier;
    while (true) {
      if (AtEnd()) SyntaxError(token.position, "'`'");
      if (Peek() == '`') {
        if (Peek(1) == '`') {
          token.text += '`';
          Advance();
          Advance();
          continue;
        }
        Advance();
        return;
      }
      token.text += Peek();
      Advance();
    }
  }

  // Spark's IDENTIFIER rule also matches words starting with digits (`1a`), and ANTLR takes the
  // longest match, so a number immediately followed by identifier characters is an identifier
  // unless the extra characters are exactly a type suffix.
  void LexNumberOrIdentifier(Token& token) {
    size_t start = offset_;
    size_t cursor = offset_;
    auto at = [&](size_t i) { return i < sql_.size() ? sql_[i] : '\0'; };
    while (IsDigit(at(cursor))) ++cursor;
    bool has_dot = false;
    if (at(cursor) == '.') {
      has_dot = true;
      ++cursor;
      while (IsDigit(at(cursor))) ++cursor;
    }
    bool has_exponent = false;
    if (Upper(at(cursor)) == 'E') {
      size_t probe = cursor + 1;
      if (at(probe) == '+' || at(probe) == '-') ++probe;
      if (IsDigit(at(probe))) {
        has_exponent = true;
        cursor = probe;
        while (IsDigit(at(cursor))) ++cursor;
      }
    }
    size_t number_end = cursor;
    size_t word_end = cursor;
    while (IsIdentifierChar(at(word_end))) ++word_end;
    std::string suffix;
    for (size_t i = number_end; i < word_end; ++i) suffix += Upper(sql_[i]);

    TokenKind kind;
    bool is_integer = !has_dot && !has_exponent;
    if (suffix.empty()) {
      kind = has_exponent ? TokenKind::kExponent
                          : (has_dot ? TokenKind::kDecimal : TokenKind::kInteger);
    } else if (suffix == "L" && is_integer) {
      kind = TokenKind::kBigintLiteral;
    } else if (suffix == "S" && is_integer) {
      kind = TokenKind::kSmallintLiteral;
    } else if (suffix == "Y" && is_integer) {
      kind = TokenKind::kTinyintLiteral;
    } else if (suffix == "D") {
      kind = TokenKind::kDoubleLiteral;
    } else if (suffix == "F") {
      kind = TokenKind::kFloatLiteral;
    } else if (suffix == "BD") {
      kind = TokenKind::kBigDecimalLiteral;
    } else if (!has_dot) {
      // `1a`, `2e3x`: a word.
      kind = TokenKind::kIdentifier;
      number_end = word_end;
    } else {
      // `1.5x`: the number ends at the dot-part; the letters start the next token.
      kind = has_exponent ? TokenKind::kExponent : TokenKind::kDecimal;
      word_end = number_end;
    }
    token.kind = kind;
    token.text = std::string(sql_.substr(start, number_end - start));
    while (offset_ < word_end) Advance();
  }

  std::string_view sql_;
  size_t offset_ = 0;
  int line_ = 1;
  size_t line_start_ = 0;
};

}  // namespace

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kIdentifier:
      return "identifier";
    case TokenKind::kQuotedIdentifier:
      return "quoted identifier";
    case TokenKind::kString:
      return "string";
    case TokenKind::kInteger:
      return "integer";
    case TokenKind::kBigintLiteral:
      return "bigint";
    case TokenKind::kSmallintLiteral:
      return "smallint";
    case TokenKind::kTinyintLiteral:
      return "tinyint";
    case TokenKind::kDecimal:
      return "decimal";
    case TokenKind::kExponent:
      return "exponent";
    case TokenKind::kDoubleLiteral:
      return "double";
    case TokenKind::kFloatLiteral:
      return "float";
    case TokenKind::kBigDecimalLiteral:
      return "bigdecimal";
    case TokenKind::kBinary:
      return "binary";
    case TokenKind::kOperator:
      return "operator";
    case TokenKind::kEnd:
      return "end of input";
  }
  return "unknown";
}

std::string FormatPosition(const SourcePosition& position) {
  return "line " + std::to_string(position.line) + ", pos " + std::to_string(position.column - 1);
}

std::vector<Token> Tokenize(std::string_view sql) { return Lexer(sql).Run(); }

}  // namespace silt::sql
