#include "silt/sql/parser.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/types/date_time.h"
#include "silt/types/type_nesting.h"

namespace silt::sql {
namespace {

std::string ToUpper(std::string_view text) {
  std::string result(text);
  for (char& c : result) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return result;
}

bool InList(std::string_view word, std::initializer_list<std::string_view> list) {
  for (std::string_view item : list) {
    if (EqualsIgnoreCase(word, item)) return true;
  }
  return false;
}

// Words that never name a column or act as an implicit alias: where they appear, they start or
// continue a clause. (Spark in its default, non-ANSI mode reserves a similar set for aliases.)
bool IsReservedWord(std::string_view word) {
  return InList(
      word,
      {"SELECT",  "FROM",      "WHERE",  "GROUP",   "HAVING",     "ORDER", "LIMIT",    "OFFSET",
       "UNION",   "INTERSECT", "EXCEPT", "MINUS",   "JOIN",       "INNER", "CROSS",    "NATURAL",
       "FULL",    "ON",        "USING",  "WHEN",    "THEN",       "ELSE",  "END",      "AND",
       "OR",      "NOT",       "IS",     "IN",      "LIKE",       "ILIKE", "RLIKE",    "REGEXP",
       "BETWEEN", "AS",        "WINDOW", "QUALIFY", "LATERAL",    "CASE",  "DISTINCT", "SET",
       "WITH",    "VALUES",    "ESCAPE", "CLUSTER", "DISTRIBUTE", "SORT",  "ALL",      "ANTI",
       "SEMI",    "LEFT",      "RIGHT",  "OUTER",   "FILTER",     "OVER",  "PARTITION"});
}

// Reserved words that may still name a function: `left(s, 2)`, `right(s, 1)`, `filter(arr, f)`,
// `window(ts, '10 minutes')`.
bool IsFunctionableReservedWord(std::string_view word) {
  return InList(word,
                {"LEFT", "RIGHT", "FILTER", "IN", "LIKE", "RLIKE", "ILIKE", "REGEXP", "WINDOW"});
}

// Reserved words that still name a column or lambda variable where an expression's operand
// is expected: JOIN keywords never start an operand.
bool IsExpressionWord(std::string_view word) { return InList(word, {"LEFT", "RIGHT"}); }

ExpressionPtr MakeExpression(ExpressionKind kind, const SourcePosition& position) {
  auto expression = std::make_shared<Expression>();
  expression->kind = kind;
  expression->position = position;
  return expression;
}

ExpressionPtr MakeBinary(std::string op, ExpressionPtr left, ExpressionPtr right,
                         const SourcePosition& position) {
  auto expression = MakeExpression(ExpressionKind::kBinary, position);
  expression->op = std::move(op);
  expression->children = {std::move(left), std::move(right)};
  return expression;
}

// Binding powers of the binary operators of Spark's valueExpression, weakest first.
int BinaryPrecedence(const Token& token) {
  if (token.kind == TokenKind::kOperator) {
    const std::string& op = token.text;
    if (op == "=" || op == "==" || op == "<>" || op == "!=" || op == "<" || op == "<=" ||
        op == ">" || op == ">=" || op == "<=>") {
      return 1;
    }
    if (op == "|") return 2;
    if (op == "^") return 3;
    if (op == "&") return 4;
    if (op == "<<" || op == ">>" || op == ">>>") return 5;
    if (op == "+" || op == "-" || op == "||") return 6;
    if (op == "*" || op == "/" || op == "%") return 7;
    return 0;
  }
  if (token.kind == TokenKind::kIdentifier && EqualsIgnoreCase(token.text, "DIV")) return 7;
  return 0;
}

bool IsNumberToken(TokenKind kind) {
  switch (kind) {
    case TokenKind::kInteger:
    case TokenKind::kBigintLiteral:
    case TokenKind::kSmallintLiteral:
    case TokenKind::kTinyintLiteral:
    case TokenKind::kDecimal:
    case TokenKind::kExponent:
    case TokenKind::kDoubleLiteral:
    case TokenKind::kFloatLiteral:
    case TokenKind::kBigDecimalLiteral:
      return true;
    default:
      return false;
  }
}

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Spark's DATE literal accepts `yyyy`, `yyyy-[m]m` and `yyyy-[m]m-[d]d` (plus a trailing time part
// it ignores); timestamps start with the same date forms.
bool IsValidDatePrefix(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  size_t first_dash = text.find('-', 1);
  if (first_dash == std::string_view::npos) return AllDigits(text) && text.size() >= 4;
  std::string_view year = text.substr(0, first_dash);
  if (!year.empty() && (year[0] == '+' || year[0] == '-')) year.remove_prefix(1);
  std::string_view rest = text.substr(first_dash + 1);
  size_t second_dash = rest.find('-');
  if (second_dash == std::string_view::npos) {
    if (!AllDigits(year) || !AllDigits(rest) || rest.size() > 2) return false;
    int month = std::stoi(std::string(rest));
    return month >= 1 && month <= 12;
  }
  return ParseDate(text).has_value();
}

bool IsValidTimestampText(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  size_t date_end = text.find_first_of(" T");
  return IsValidDatePrefix(text.substr(0, date_end));
}

const char* const kIntervalUnits[] = {"YEAR",   "MONTH",  "WEEK",        "DAY",        "HOUR",
                                      "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND"};

// Returns the singular upper-case unit for `word` ("days" -> "DAY"), or "" when not a unit.
std::string IntervalUnit(std::string_view word) {
  std::string upper = ToUpper(word);
  if (upper.size() > 1 && upper.back() == 'S') {
    std::string singular = upper.substr(0, upper.size() - 1);
    for (const char* unit : kIntervalUnits) {
      if (singular == unit) return singular;
    }
  }
  for (const char* unit : kIntervalUnits) {
    if (upper == unit) return upper;
  }
  return "";
}

class Parser {
 public:
  explicit Parser(std::string_view sql) : sql_(sql), tokens_(Tokenize(sql)) {}

  std::vector<Statement> ParseScript() {
    std::vector<Statement> statements;
    while (true) {
      while (MatchOperator(";")) {
      }
      if (Current().kind == TokenKind::kEnd) break;
      statements.push_back(ParseOneStatement());
      if (Current().kind != TokenKind::kEnd && !IsOperator(Current(), ";")) ExtraInput();
    }
    if (statements.empty()) {
      throw MakeError(ErrorClass::PARSE_EMPTY_STATEMENT, {})
          .WithContext(FormatPosition(Current().position));
    }
    return statements;
  }

  Statement ParseSingleStatement() {
    if (Current().kind == TokenKind::kEnd || IsOperator(Current(), ";")) {
      // Spark reports an empty statement for blank text and for a lone `;`.
      if (IsOperator(Current(), ";") && Peek(1).kind != TokenKind::kEnd) SyntaxError(Current());
      throw MakeError(ErrorClass::PARSE_EMPTY_STATEMENT, {})
          .WithContext(FormatPosition(Current().position));
    }
    Statement statement = ParseOneStatement();
    MatchOperator(";");
    if (Current().kind != TokenKind::kEnd) ExtraInput();
    return statement;
  }

  ExpressionPtr ParseStandaloneExpression() {
    if (Current().kind == TokenKind::kEnd) {
      throw MakeError(ErrorClass::PARSE_EMPTY_STATEMENT, {})
          .WithContext(FormatPosition(Current().position));
    }
    ExpressionPtr expression = ParseExpr();
    if (Current().kind != TokenKind::kEnd) ExtraInput();
    return expression;
  }

  DataTypePtr ParseStandaloneType() {
    if (Current().kind == TokenKind::kEnd) {
      throw MakeError(ErrorClass::PARSE_EMPTY_STATEMENT, {})
          .WithContext(FormatPosition(Current().position));
    }
    DataTypePtr type = ParseType();
    if (Current().kind != TokenKind::kEnd) ExtraInput();
    return type;
  }

 private:
  // Counts nesting (recursion) and operator-chain length, so that neither the parser's stack
  // nor the recursive walks over the finished tree can grow without bound.
  class DepthGuard {
   public:
    /// Counts one level of nesting now; chains start at zero and Add() per operator.
    explicit DepthGuard(Parser& parser, int initial = 1) : parser_(parser) {
      for (int i = 0; i < initial; ++i) Add();
    }
    ~DepthGuard() { parser_.depth_ -= added_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;
    void Add() {
      ++added_;
      if (++parser_.depth_ > kMaxParseDepth) {
        throw MakeError(ErrorClass::PARSE_NESTING_TOO_DEEP,
                        {{"limit", std::to_string(kMaxParseDepth)}})
            .WithContext(FormatPosition(parser_.Current().position));
      }
    }

   private:
    Parser& parser_;
    int added_ = 0;
  };

  // ---- token access ----

  const Token& Current() const { return tokens_[index_]; }
  const Token& Peek(size_t ahead) const {
    size_t at = index_ + ahead;
    return at < tokens_.size() ? tokens_[at] : tokens_.back();
  }
  const Token& Advance() {
    const Token& token = tokens_[index_];
    if (token.kind != TokenKind::kEnd) {
      last_end_offset_ = token.end_offset;
      ++index_;
    }
    return token;
  }
  static bool IsKeyword(const Token& token, std::string_view keyword) {
    return token.kind == TokenKind::kIdentifier && EqualsIgnoreCase(token.text, keyword);
  }
  static bool IsOperator(const Token& token, std::string_view op) {
    return token.kind == TokenKind::kOperator && token.text == op;
  }
  bool MatchKeyword(std::string_view keyword) {
    if (!IsKeyword(Current(), keyword)) return false;
    Advance();
    return true;
  }
  bool MatchKeywords(std::initializer_list<std::string_view> keywords) {
    size_t ahead = 0;
    for (std::string_view keyword : keywords) {
      if (!IsKeyword(Peek(ahead++), keyword)) return false;
    }
    for (size_t i = 0; i < keywords.size(); ++i) Advance();
    return true;
  }
  bool MatchOperator(std::string_view op) {
    if (!IsOperator(Current(), op)) return false;
    Advance();
    return true;
  }
  void ExpectKeyword(std::string_view keyword) {
    if (!MatchKeyword(keyword)) SyntaxError(Current());
  }
  void ExpectOperator(std::string_view op) {
    if (MatchOperator(op)) return;
    // Spark adds a "missing" hint when the input simply ends (or a statement ends) too early.
    if (Current().kind == TokenKind::kEnd || IsOperator(Current(), ";")) {
      SyntaxError(Current(), ": missing '" + std::string(op) + "'");
    }
    SyntaxError(Current());
  }

  std::string TokenDisplay(const Token& token) const {
    if (token.kind == TokenKind::kEnd) return "end of input";
    return "'" +
           std::string(
               sql_.substr(token.position.offset, token.end_offset - token.position.offset)) +
           "'";
  }
  [[noreturn]] void SyntaxError(const Token& token, std::string hint = "") const {
    throw MakeError(ErrorClass::PARSE_SYNTAX_ERROR,
                    {{"error", TokenDisplay(token)}, {"hint", std::move(hint)}})
        .WithContext(FormatPosition(token.position));
  }
  [[noreturn]] void ExtraInput() const {
    SyntaxError(Current(), ": extra input " + TokenDisplay(Current()));
  }

  // ---- names ----

  bool IsIdentifierToken(const Token& token) const {
    if (token.kind == TokenKind::kQuotedIdentifier) return true;
    return token.kind == TokenKind::kIdentifier && !IsReservedWord(token.text);
  }
  std::string ParseIdentifier() {
    if (!IsIdentifierToken(Current())) SyntaxError(Current());
    return Advance().text;
  }
  // Any word, reserved or not (after a `.`, Spark accepts keywords as field names).
  std::string ParseAnyIdentifier() {
    if (Current().kind != TokenKind::kIdentifier &&
        Current().kind != TokenKind::kQuotedIdentifier) {
      SyntaxError(Current());
    }
    return Advance().text;
  }
  QualifiedName ParseQualifiedName() {
    QualifiedName name{ParseIdentifier()};
    while (IsOperator(Current(), ".") && (Peek(1).kind == TokenKind::kIdentifier ||
                                          Peek(1).kind == TokenKind::kQuotedIdentifier)) {
      Advance();
      name.push_back(ParseAnyIdentifier());
    }
    return name;
  }
  std::vector<std::string> ParseIdentifierList() {
    ExpectOperator("(");
    std::vector<std::string> names{ParseIdentifier()};
    while (MatchOperator(",")) names.push_back(ParseIdentifier());
    ExpectOperator(")");
    return names;
  }
  std::string ParseStringLiteral() {
    if (Current().kind != TokenKind::kString) SyntaxError(Current());
    std::string value = Advance().text;
    while (Current().kind == TokenKind::kString) value += Advance().text;
    return value;
  }

  // ---- expressions ----

  ExpressionPtr ParseExpr() {
    DepthGuard guard(*this);
    return ParseOr();
  }

  ExpressionPtr ParseOr() {
    DepthGuard chain(*this, 0);
    ExpressionPtr left = ParseAnd();
    while (IsKeyword(Current(), "OR")) {
      SourcePosition position = Advance().position;
      chain.Add();
      left = MakeBinary("OR", left, ParseAnd(), position);
    }
    return left;
  }

  ExpressionPtr ParseAnd() {
    DepthGuard chain(*this, 0);
    ExpressionPtr left = ParseNot();
    while (IsKeyword(Current(), "AND")) {
      SourcePosition position = Advance().position;
      chain.Add();
      left = MakeBinary("AND", left, ParseNot(), position);
    }
    return left;
  }

  ExpressionPtr ParseNot() {
    if (IsKeyword(Current(), "NOT") || IsOperator(Current(), "!")) {
      DepthGuard guard(*this);
      SourcePosition position = Advance().position;
      auto expression = MakeExpression(ExpressionKind::kUnary, position);
      expression->op = "NOT";
      expression->children = {ParseNot()};
      return expression;
    }
    return ParsePredicate();
  }

  // valueExpression followed by at most one predicate, as in Spark's booleanExpression.
  ExpressionPtr ParsePredicate() {
    ExpressionPtr value = ParseBinary(1);
    const Token& token = Current();
    if (IsKeyword(token, "IS")) {
      SourcePosition position = Advance().position;
      bool negated = MatchKeyword("NOT");
      if (MatchKeywords({"DISTINCT", "FROM"})) {
        auto expression = MakeExpression(ExpressionKind::kIsDistinctFrom, position);
        expression->negated = negated;
        expression->children = {value, ParseBinary(1)};
        return expression;
      }
      for (std::string_view what : {"NULL", "TRUE", "FALSE", "UNKNOWN"}) {
        if (MatchKeyword(what)) {
          auto expression = MakeExpression(ExpressionKind::kIs, position);
          expression->negated = negated;
          expression->op = std::string(what);
          expression->children = {value};
          return expression;
        }
      }
      SyntaxError(Current());
    }
    bool negated = false;
    size_t ahead = 0;
    if (IsKeyword(token, "NOT")) {
      negated = true;
      ahead = 1;
    }
    const Token& predicate = Peek(ahead);
    if (IsKeyword(predicate, "BETWEEN")) {
      for (size_t i = 0; i <= ahead; ++i) Advance();
      auto expression = MakeExpression(ExpressionKind::kBetween, predicate.position);
      expression->negated = negated;
      ExpressionPtr low = ParseBinary(1);
      ExpectKeyword("AND");
      expression->children = {value, low, ParseBinary(1)};
      return expression;
    }
    if (IsKeyword(predicate, "IN")) {
      for (size_t i = 0; i <= ahead; ++i) Advance();
      auto expression = MakeExpression(ExpressionKind::kIn, predicate.position);
      expression->negated = negated;
      expression->children = {value};
      ExpectOperator("(");
      if (StartsQuery(0)) {
        expression->subquery = ParseQuery();
      } else {
        expression->children.push_back(ParseExpr());
        while (MatchOperator(",")) expression->children.push_back(ParseExpr());
      }
      ExpectOperator(")");
      return expression;
    }
    if (IsKeyword(predicate, "LIKE") || IsKeyword(predicate, "ILIKE") ||
        IsKeyword(predicate, "RLIKE") || IsKeyword(predicate, "REGEXP")) {
      for (size_t i = 0; i <= ahead; ++i) Advance();
      std::string op = ToUpper(predicate.text);
      const bool quantified = (op == "LIKE" || op == "ILIKE") &&
                              (IsKeyword(Current(), "ANY") || IsKeyword(Current(), "SOME") ||
                               IsKeyword(Current(), "ALL")) &&
                              IsOperator(Peek(1), "(");
      if (quantified) {
        // x [NOT] LIKE ANY|SOME|ALL (p1, p2, ...): each pattern's [NOT] LIKE, joined by OR for
        // ANY and SOME, by AND for ALL, which gives Spark's NULL rules too (NULL when no pattern
        // decides and one is NULL).
        const bool all = IsKeyword(Advance(), "ALL");
        ExpectOperator("(");
        ExpressionPtr joined;
        do {
          auto like = MakeExpression(ExpressionKind::kLike, predicate.position);
          like->negated = negated;
          like->op = op;
          like->children = {value, ParseExpr()};
          joined = joined ? MakeBinary(all ? "AND" : "OR", joined, like, predicate.position) : like;
        } while (MatchOperator(","));
        ExpectOperator(")");
        return joined;
      }
      auto expression = MakeExpression(ExpressionKind::kLike, predicate.position);
      expression->negated = negated;
      expression->op = op == "REGEXP" ? "RLIKE" : op;
      expression->children = {value, ParseBinary(1)};
      if (expression->op != "RLIKE" && MatchKeyword("ESCAPE")) {
        const Token& escape_token = Current();
        std::string escape = ParseStringLiteral();
        if (escape.size() != 1) {
          throw MakeError(ErrorClass::INVALID_TYPED_LITERAL,
                          {{"valueType", "\"ESCAPE\""}, {"value", "'" + escape + "'"}})
              .WithContext(FormatPosition(escape_token.position));
        }
        expression->escape = escape;
      }
      return expression;
    }
    return value;
  }

  // Precedence climbing over the binary operators of valueExpression (all left-associative).
  ExpressionPtr ParseBinary(int min_precedence) {
    DepthGuard chain(*this, 0);
    ExpressionPtr left = ParseUnary();
    while (true) {
      int precedence = BinaryPrecedence(Current());
      if (precedence == 0 || precedence < min_precedence) return left;
      const Token& op_token = Advance();
      std::string op = op_token.kind == TokenKind::kOperator ? op_token.text : "DIV";
      chain.Add();
      left = MakeBinary(op, left, ParseBinary(precedence + 1), op_token.position);
    }
  }

  ExpressionPtr ParseUnary() {
    const Token& token = Current();
    if (IsOperator(token, "-") || IsOperator(token, "+") || IsOperator(token, "~")) {
      // Spark's `number` rule includes the sign, so `-1` is a literal, not negate(1).
      if (IsOperator(token, "-") && IsNumberToken(Peek(1).kind)) {
        return ParsePostfix();
      }
      DepthGuard guard(*this);
      Advance();
      auto expression = MakeExpression(ExpressionKind::kUnary, token.position);
      expression->op = token.text;
      expression->children = {ParseUnary()};
      return expression;
    }
    return ParsePostfix();
  }

  ExpressionPtr ParsePostfix() {
    DepthGuard chain(*this, 0);
    ExpressionPtr expression = ParsePrimary();
    while (true) {
      const Token& token = Current();
      if (IsOperator(token, ".")) {
        if (IsOperator(Peek(1), "*") && expression->kind == ExpressionKind::kColumn) {
          Advance();
          Advance();
          expression->kind = ExpressionKind::kStar;
          ParseStarExcept(*expression);
          return expression;
        }
        Advance();
        std::string field = ParseAnyIdentifier();
        if (expression->kind == ExpressionKind::kColumn) {
          expression->name.push_back(std::move(field));
        } else {
          chain.Add();
          auto access = MakeExpression(ExpressionKind::kFieldAccess, token.position);
          access->name = {std::move(field)};
          access->children = {expression};
          expression = access;
        }
      } else if (IsOperator(token, "[")) {
        Advance();
        chain.Add();
        auto subscript = MakeExpression(ExpressionKind::kSubscript, token.position);
        subscript->children = {expression, ParseExpr()};
        ExpectOperator("]");
        expression = subscript;
      } else if (IsOperator(token, "::")) {
        Advance();
        chain.Add();
        auto cast = MakeExpression(ExpressionKind::kCast, token.position);
        cast->op = "::";
        cast->children = {expression};
        cast->cast_type = ParseType();
        expression = cast;
      } else {
        return expression;
      }
    }
  }

  void ParseStarExcept(Expression& star) {
    if (IsKeyword(Current(), "EXCEPT") && IsOperator(Peek(1), "(") &&
        !IsKeyword(Peek(2), "SELECT") && !IsKeyword(Peek(2), "WITH")) {
      Advance();
      Advance();
      star.except_columns.push_back(ParseQualifiedName());
      while (MatchOperator(",")) star.except_columns.push_back(ParseQualifiedName());
      ExpectOperator(")");
    }
  }

  // True when the tokens from `ahead` start a query (possibly after opening parentheses).
  bool StartsQuery(size_t ahead) const {
    while (IsOperator(Peek(ahead), "(")) ++ahead;
    const Token& token = Peek(ahead);
    return IsKeyword(token, "SELECT") || IsKeyword(token, "WITH") ||
           (IsKeyword(token, "VALUES") && ahead > 0) || IsKeyword(token, "FROM") ||
           (IsKeyword(token, "TABLE") && IsIdentifierToken(Peek(ahead + 1)));
  }

  ExpressionPtr ParseLiteral() {
    const Token& token = Current();
    auto literal = MakeExpression(ExpressionKind::kLiteral, token.position);
    bool negative = false;
    if (IsOperator(token, "-")) {
      negative = true;
      Advance();
    }
    const Token& number = Advance();
    std::string text = (negative ? "-" : "") + number.text;
    literal->text = text;
    auto check_range = [&](const char* type_name, int64_t min, int64_t max) {
      int64_t value = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
        throw MakeError(ErrorClass::INVALID_NUMERIC_LITERAL_RANGE,
                        {{"rawStrippedQualifier", text},
                         {"typeName", type_name},
                         {"minValue", std::to_string(min)},
                         {"maxValue", std::to_string(max)}})
            .WithContext(FormatPosition(token.position));
      }
    };
    switch (number.kind) {
      case TokenKind::kInteger: {
        // Spark types an unsuffixed integer as int, else bigint, else decimal.
        int64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size()) {
          literal->literal_kind = LiteralKind::kDecimal;
        } else if (value >= INT32_MIN && value <= INT32_MAX) {
          literal->literal_kind = LiteralKind::kInteger;
        } else {
          literal->literal_kind = LiteralKind::kBigint;
        }
        break;
      }
      case TokenKind::kBigintLiteral:
        check_range("bigint", INT64_MIN, INT64_MAX);
        literal->literal_kind = LiteralKind::kBigint;
        break;
      case TokenKind::kSmallintLiteral:
        check_range("smallint", INT16_MIN, INT16_MAX);
        literal->literal_kind = LiteralKind::kSmallint;
        break;
      case TokenKind::kTinyintLiteral:
        check_range("tinyint", INT8_MIN, INT8_MAX);
        literal->literal_kind = LiteralKind::kTinyint;
        break;
      case TokenKind::kDecimal:
      case TokenKind::kBigDecimalLiteral:
        literal->literal_kind = LiteralKind::kDecimal;
        break;
      case TokenKind::kExponent:
      case TokenKind::kDoubleLiteral:
        literal->literal_kind = LiteralKind::kDouble;
        break;
      case TokenKind::kFloatLiteral:
        literal->literal_kind = LiteralKind::kFloat;
        break;
      default:
        SyntaxError(number);
    }
    return literal;
  }

  ExpressionPtr ParseTypedLiteral(LiteralKind kind, const char* type_name) {
    const Token& keyword = Advance();
    const Token& value_token = Current();
    auto literal = MakeExpression(ExpressionKind::kLiteral, keyword.position);
    literal->literal_kind = kind;
    literal->text = ParseStringLiteral();
    bool valid = kind == LiteralKind::kDate ? IsValidDatePrefix(literal->text)
                                            : IsValidTimestampText(literal->text);
    if (!valid) {
      throw MakeError(ErrorClass::INVALID_TYPED_LITERAL,
                      {{"valueType", std::string("\"") + type_name + "\""},
                       {"value", "'" + literal->text + "'"}})
          .WithContext(FormatPosition(value_token.position));
    }
    return literal;
  }

  ExpressionPtr ParseInterval() {
    const Token& keyword = Advance();
    auto literal = MakeExpression(ExpressionKind::kLiteral, keyword.position);
    literal->literal_kind = LiteralKind::kInterval;
    while (true) {
      const Token& token = Current();
      std::string value;
      // Values keep their source spelling (quotes, escapes, suffixes): the unit decides their
      // meaning later, and printing them back must give the same literal.
      if (token.kind == TokenKind::kString) {
        ParseStringLiteral();
        value = std::string(
            sql_.substr(token.position.offset, last_end_offset_ - token.position.offset));
      } else if ((IsOperator(token, "-") || IsOperator(token, "+")) &&
                 Peek(1).kind == TokenKind::kString) {
        // `INTERVAL -'1' DAY`: the sign is folded into the string (`'-1'`; `-'-1'` is `'1'`).
        bool negate = IsOperator(token, "-");
        Advance();
        const Token& string_token = Current();
        ParseStringLiteral();
        value = std::string(sql_.substr(string_token.position.offset,
                                        last_end_offset_ - string_token.position.offset));
        if (negate && value.size() >= 2) {
          std::string content = value.substr(1, value.size() - 2);
          if (!content.empty() && content[0] == '-') {
            content.erase(0, 1);
          } else {
            if (!content.empty() && content[0] == '+') content.erase(0, 1);
            content.insert(0, "-");
          }
          value = value.substr(0, 1) + content + value.substr(value.size() - 1);
        }
      } else if (IsNumberToken(token.kind) ||
                 (IsOperator(token, "-") && IsNumberToken(Peek(1).kind))) {
        if (IsOperator(token, "-")) {
          Advance();
          value = "-";
        }
        const Token& number = Advance();
        value += std::string(
            sql_.substr(number.position.offset, number.end_offset - number.position.offset));
      } else {
        break;
      }
      std::string unit =
          Current().kind == TokenKind::kIdentifier ? IntervalUnit(Current().text) : "";
      if (!unit.empty()) {
        Advance();
        if (IsKeyword(Current(), "TO") && Peek(1).kind == TokenKind::kIdentifier &&
            !IntervalUnit(Peek(1).text).empty()) {
          Advance();
          unit += " TO " + IntervalUnit(Advance().text);
        }
      } else if (token.kind != TokenKind::kString || !literal->interval_parts.empty()) {
        // Only a lone string (`INTERVAL '1 day 2 hours'`) may omit the unit.
        throw MakeError(ErrorClass::INVALID_TYPED_LITERAL,
                        {{"valueType", "\"INTERVAL\""}, {"value", value}})
            .WithContext(FormatPosition(token.position));
      }
      literal->interval_parts.emplace_back(std::move(value), std::move(unit));
      if (literal->interval_parts.back().second.empty()) break;
    }
    if (literal->interval_parts.empty()) SyntaxError(Current());
    return literal;
  }

  ExpressionPtr ParseCase() {
    const Token& keyword = Advance();
    auto expression = MakeExpression(ExpressionKind::kCase, keyword.position);
    if (!IsKeyword(Current(), "WHEN")) expression->case_operand = ParseExpr();
    while (MatchKeyword("WHEN")) {
      ExpressionPtr condition = ParseExpr();
      ExpectKeyword("THEN");
      expression->when_clauses.emplace_back(condition, ParseExpr());
    }
    if (expression->when_clauses.empty()) SyntaxError(Current());
    if (MatchKeyword("ELSE")) expression->else_result = ParseExpr();
    ExpectKeyword("END");
    return expression;
  }

  ExpressionPtr ParseCast() {
    const Token& keyword = Advance();
    auto expression = MakeExpression(ExpressionKind::kCast, keyword.position);
    expression->try_cast = EqualsIgnoreCase(keyword.text, "TRY_CAST");
    ExpectOperator("(");
    expression->children = {ParseExpr()};
    ExpectKeyword("AS");
    expression->cast_type = ParseType();
    ExpectOperator(")");
    return expression;
  }

  ExpressionPtr ParseFunctionCall(QualifiedName name, const SourcePosition& position) {
    auto function = MakeExpression(ExpressionKind::kFunction, position);
    function->name = std::move(name);
    ExpectOperator("(");
    // `extract(YEAR FROM d)` is Spark's syntax for `date_part('YEAR', d)`.
    if (function->name.size() == 1 && EqualsIgnoreCase(function->name[0], "EXTRACT") &&
        (Current().kind == TokenKind::kIdentifier ||
         Current().kind == TokenKind::kQuotedIdentifier) &&
        IsKeyword(Peek(1), "FROM")) {
      auto field = MakeExpression(ExpressionKind::kLiteral, Current().position);
      field->literal_kind = LiteralKind::kString;
      field->text = ToUpper(Advance().text);
      Advance();  // FROM
      function->name = {"date_part"};
      function->children = {field, ParseExpr()};
      ExpectOperator(")");
      return function;
    }
    // `timestampadd(HOUR, 2, ts)`, `timestampdiff(DAY, a, b)` and their synonyms name the unit
    // as a bare word, which the function receives as a string.
    if (function->name.size() == 1 && IsUnitFunction(function->name[0]) &&
        Current().kind == TokenKind::kIdentifier && IsOperator(Peek(1), ",") && IsDatetimeUnit(Current().text)) {
      size_t start = index_;
      auto unit = MakeExpression(ExpressionKind::kLiteral, Current().position);
      unit->literal_kind = LiteralKind::kString;
      unit->text = ToUpper(Advance().text);
      Advance();  // ,
      ExpressionPtr amount = ParseExpr();
      // Only the three-argument form has a unit: `date_add(day, 1)` adds to a column `day`.
      if (MatchOperator(",")) {
        function->children = {unit, amount, ParseExpr()};
        ExpectOperator(")");
        return function;
      }
      index_ = start;
    }
    if (function->name.size() == 1 && EqualsIgnoreCase(function->name[0], "TRIM") &&
        ParseTrimFromForm(*function)) {
      return function;
    }
    // `position(substr IN str)`: the first operand is a value expression, so that IN is not
    // read as the IN predicate.
    if (function->name.size() == 1 && EqualsIgnoreCase(function->name[0], "POSITION") &&
        !IsOperator(Current(), ")")) {
      size_t start = index_;
      ExpressionPtr substring = ParseBinary(1);
      if (MatchKeyword("IN")) {
        function->children = {substring, ParseExpr()};
        ExpectOperator(")");
        return function;
      }
      index_ = start;
    }
    if (!MatchOperator(")")) {
      if (MatchKeyword("DISTINCT")) {
        function->distinct = true;
      } else {
        MatchKeyword("ALL");
      }
      function->children.push_back(ParseExpr());
      if (function->name.size() == 1 && !function->distinct) ParseSqlStandardArguments(*function);
      // `struct(x AS name, y)`: Spark's struct takes named expressions.
      bool named_arguments =
          function->name.size() == 1 && EqualsIgnoreCase(function->name[0], "STRUCT");
      auto parse_argument_name = [&]() {
        if (!named_arguments) return;
        function->argument_names.resize(function->children.size());
        if (MatchKeyword("AS")) function->argument_names.back() = ParseAliasName();
      };
      parse_argument_name();
      // `first(x IGNORE NULLS)`, also last and any_value: Spark's form of their flag argument.
      if (function->name.size() == 1 && IsKeyword(Current(), "IGNORE") && IsKeyword(Peek(1), "NULLS") &&
          IsOperator(Peek(2), ")") &&
          (EqualsIgnoreCase(function->name[0], "FIRST") || EqualsIgnoreCase(function->name[0], "LAST") ||
           EqualsIgnoreCase(function->name[0], "ANY_VALUE"))) {
        auto flag = MakeExpression(ExpressionKind::kLiteral, Current().position);
        flag->literal_kind = LiteralKind::kBoolean;
        flag->text = "true";
        Advance();
        Advance();
        function->children.push_back(flag);
      }
      while (MatchOperator(",")) {
        function->children.push_back(ParseExpr());
        parse_argument_name();
      }
      if (std::all_of(function->argument_names.begin(), function->argument_names.end(),
                      [](const std::string& name) { return name.empty(); })) {
        function->argument_names.clear();
      }
      ExpectOperator(")");
    }
    if (IsKeyword(Current(), "WITHIN") && IsKeyword(Peek(1), "GROUP") && IsOperator(Peek(2), "(")) {
      Advance();
      Advance();
      Advance();
      if (!MatchKeywords({"ORDER", "BY"})) SyntaxError(Current());
      function->within_group = ParseOrderItems();
      ExpectOperator(")");
    }
    if (IsKeyword(Current(), "FILTER") && IsOperator(Peek(1), "(")) {
      Advance();
      Advance();
      ExpectKeyword("WHERE");
      function->filter = ParseExpr();
      ExpectOperator(")");
    }
    if ((IsKeyword(Current(), "IGNORE") || IsKeyword(Current(), "RESPECT")) &&
        IsKeyword(Peek(1), "NULLS")) {
      ParseNullsOption(*function);
    }
    if (MatchKeyword("OVER")) {
      if (IsIdentifierToken(Current())) {
        function->window = std::make_shared<WindowSpec>();
        function->window->reference_name = ParseIdentifier();
      } else {
        ExpectOperator("(");
        function->window = std::make_shared<WindowSpec>(ParseWindowSpecBody());
        ExpectOperator(")");
      }
    }
    return function;
  }

  static bool IsUnitFunction(const std::string& name) {
    for (const char* function : {"TIMESTAMPADD", "TIMESTAMPDIFF", "DATEADD", "DATE_ADD", "DATEDIFF", "DATE_DIFF",
                                 "TIMEDIFF"}) {
      if (EqualsIgnoreCase(name, function)) return true;
    }
    return false;
  }

  static bool IsDatetimeUnit(const std::string& word) {
    for (const char* unit : {"YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "DAYOFYEAR", "HOUR", "MINUTE", "SECOND",
                             "MILLISECOND", "MICROSECOND"}) {
      if (EqualsIgnoreCase(word, unit)) return true;
    }
    return false;
  }

  // `trim([BOTH | LEADING | TRAILING] [characters] FROM source)`: Spark's SQL-standard form,
  // rewritten to trim / ltrim / rtrim(source[, characters]). Returns false (consuming nothing)
  // when the call is an ordinary `trim(...)`.
  bool ParseTrimFromForm(Expression& function) {
    size_t start = index_;
    std::string name = "trim";
    if (MatchKeyword("BOTH")) {
    } else if (MatchKeyword("LEADING")) {
      name = "ltrim";
    } else if (MatchKeyword("TRAILING")) {
      name = "rtrim";
    }
    ExpressionPtr characters;
    if (!MatchKeyword("FROM")) {
      if (IsOperator(Current(), ")")) {
        index_ = start;
        return false;
      }
      characters = ParseExpr();
      if (!MatchKeyword("FROM")) {
        index_ = start;
        return false;
      }
    }
    function.name = {name};
    function.children = {ParseExpr()};
    if (characters) function.children.push_back(characters);
    ExpectOperator(")");
    return true;
  }

  // After a function's first argument: `substring(s FROM p [FOR n])`, the SQL-standard form
  // Spark accepts.
  void ParseSqlStandardArguments(Expression& function) {
    const std::string& name = function.name[0];
    if ((EqualsIgnoreCase(name, "SUBSTRING") || EqualsIgnoreCase(name, "SUBSTR")) &&
        MatchKeyword("FROM")) {
      function.children.push_back(ParseExpr());
      if (MatchKeyword("FOR")) function.children.push_back(ParseExpr());
    }
  }

  // `IGNORE NULLS` / `RESPECT NULLS` after a call. For the functions that take Spark's
  // ignoreNulls flag as an argument (first, last, first_value, last_value, any_value) IGNORE
  // NULLS becomes that argument; lag, lead and nth_value keep it as a flag; RESPECT NULLS is
  // everyone's default. Other functions have no null-skipping form, and Spark refuses the option
  // for them.
  void ParseNullsOption(Expression& function) {
    const Token& option = Current();
    bool ignore = IsKeyword(Advance(), "IGNORE");
    Advance();  // NULLS
    static const std::set<std::string> kFlagFunctions = {"first", "last", "first_value",
                                                         "last_value", "any_value"};
    static const std::set<std::string> kOffsetFunctions = {"lag", "lead", "nth_value"};
    std::string name = function.name.size() == 1 ? ToUpper(function.name[0]) : "";
    for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    if (kOffsetFunctions.count(name)) {
      function.ignore_nulls = ignore;
      return;
    }
    if (!kFlagFunctions.count(name)) {
      if (!ignore) return;
      throw MakeError(ErrorClass::INVALID_SQL_SYNTAX,
                      {{"message", "FUNCTION_WITH_UNSUPPORTED_SYNTAX: The function `" + name +
                                       "` does not support IGNORE NULLS."}})
          .WithContext(FormatPosition(option.position));
    }
    if (!ignore) return;
    if (function.children.size() != 1) SyntaxError(option);
    auto flag = MakeExpression(ExpressionKind::kLiteral, option.position);
    flag->literal_kind = LiteralKind::kBoolean;
    flag->text = "true";
    function.children.push_back(flag);
  }

  // The inside of `OVER ( ... )` and of a WINDOW clause definition.
  WindowSpec ParseWindowSpecBody() {
    WindowSpec spec;
    if (IsIdentifierToken(Current()) && !IsKeyword(Current(), "ROWS") &&
        !IsKeyword(Current(), "RANGE")) {
      spec.reference_name = ParseIdentifier();
    }
    if (MatchKeywords({"PARTITION", "BY"}) || MatchKeywords({"DISTRIBUTE", "BY"})) {
      spec.partition_by.push_back(ParseExpr());
      while (MatchOperator(",")) spec.partition_by.push_back(ParseExpr());
    }
    if (MatchKeywords({"ORDER", "BY"}) || MatchKeywords({"SORT", "BY"})) {
      spec.order_by = ParseOrderItems();
    }
    if (IsKeyword(Current(), "ROWS") || IsKeyword(Current(), "RANGE")) {
      WindowFrame frame;
      frame.unit = IsKeyword(Advance(), "ROWS") ? FrameUnit::kRows : FrameUnit::kRange;
      if (MatchKeyword("BETWEEN")) {
        frame.start = ParseFrameBound();
        ExpectKeyword("AND");
        frame.end = ParseFrameBound();
      } else {
        frame.start = ParseFrameBound();
        frame.end.kind = FrameBoundKind::kCurrentRow;
      }
      spec.frame = frame;
    }
    return spec;
  }

  FrameBound ParseFrameBound() {
    FrameBound bound;
    if (MatchKeyword("UNBOUNDED")) {
      if (MatchKeyword("PRECEDING")) {
        bound.kind = FrameBoundKind::kUnboundedPreceding;
      } else {
        ExpectKeyword("FOLLOWING");
        bound.kind = FrameBoundKind::kUnboundedFollowing;
      }
    } else if (MatchKeywords({"CURRENT", "ROW"})) {
      bound.kind = FrameBoundKind::kCurrentRow;
    } else {
      bound.offset = ParseBinary(1);
      if (MatchKeyword("PRECEDING")) {
        bound.kind = FrameBoundKind::kPreceding;
      } else {
        ExpectKeyword("FOLLOWING");
        bound.kind = FrameBoundKind::kFollowing;
      }
    }
    return bound;
  }

  // `(a, b) -> body` when the parenthesised identifiers are followed by `->`. Any word may name
  // a parameter there (Spark's own examples use `(left, right) -> ...`).
  bool StartsParenthesisedLambda() const {
    size_t ahead = 1;
    while (true) {
      const Token& word = Peek(ahead);
      if (word.kind != TokenKind::kIdentifier && word.kind != TokenKind::kQuotedIdentifier) return false;
      ++ahead;
      if (IsOperator(Peek(ahead), ",")) {
        ++ahead;
        continue;
      }
      return IsOperator(Peek(ahead), ")") && IsOperator(Peek(ahead + 1), "->");
    }
  }

  ExpressionPtr ParseLambdaBody(std::vector<std::string> parameters, const SourcePosition& at) {
    ExpectOperator("->");
    auto lambda = MakeExpression(ExpressionKind::kLambda, at);
    lambda->lambda_parameters = std::move(parameters);
    lambda->children = {ParseExpr()};
    return lambda;
  }

  ExpressionPtr ParsePrimary() {
    DepthGuard guard(*this);
    const Token& token = Current();
    if (IsNumberToken(token.kind) || (IsOperator(token, "-") && IsNumberToken(Peek(1).kind))) {
      return ParseLiteral();
    }
    if (token.kind == TokenKind::kString) {
      auto literal = MakeExpression(ExpressionKind::kLiteral, token.position);
      literal->literal_kind = LiteralKind::kString;
      literal->text = ParseStringLiteral();
      return literal;
    }
    if (token.kind == TokenKind::kBinary) {
      for (char c : token.text) {
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
        if (!hex) {
          throw MakeError(ErrorClass::INVALID_TYPED_LITERAL,
                          {{"valueType", "\"X\""}, {"value", "'" + token.text + "'"}})
              .WithContext(FormatPosition(token.position));
        }
      }
      auto literal = MakeExpression(ExpressionKind::kLiteral, token.position);
      literal->literal_kind = LiteralKind::kBinary;
      literal->text = Advance().text;
      return literal;
    }
    if (IsOperator(token, "*")) {
      Advance();
      auto star = MakeExpression(ExpressionKind::kStar, token.position);
      ParseStarExcept(*star);
      return star;
    }
    if (IsOperator(token, "(")) {
      if (StartsQuery(1)) {
        Advance();
        auto subquery = MakeExpression(ExpressionKind::kScalarSubquery, token.position);
        subquery->subquery = ParseQuery();
        ExpectOperator(")");
        return subquery;
      }
      if (StartsParenthesisedLambda()) {
        Advance();
        std::vector<std::string> parameters{ParseAnyIdentifier()};
        while (MatchOperator(",")) parameters.push_back(ParseAnyIdentifier());
        ExpectOperator(")");
        return ParseLambdaBody(std::move(parameters), token.position);
      }
      Advance();
      ExpressionPtr inner = ParseExpr();
      if (IsOperator(Current(), ",")) {
        // `(a, b)` builds a struct, as in Spark.
        auto row = MakeExpression(ExpressionKind::kFunction, token.position);
        row->name = {"struct"};
        row->children.push_back(inner);
        while (MatchOperator(",")) row->children.push_back(ParseExpr());
        ExpectOperator(")");
        return row;
      }
      ExpectOperator(")");
      return inner;
    }
    if (token.kind == TokenKind::kQuotedIdentifier) return ParseNameExpression();
    if (token.kind != TokenKind::kIdentifier) SyntaxError(token);

    const Token& next = Peek(1);
    if (next.kind == TokenKind::kString) {
      if (IsKeyword(token, "DATE")) return ParseTypedLiteral(LiteralKind::kDate, "DATE");
      if (IsKeyword(token, "TIMESTAMP") || IsKeyword(token, "TIMESTAMP_LTZ")) {
        return ParseTypedLiteral(LiteralKind::kTimestamp, "TIMESTAMP");
      }
      if (IsKeyword(token, "TIMESTAMP_NTZ")) {
        return ParseTypedLiteral(LiteralKind::kTimestampNtz, "TIMESTAMP_NTZ");
      }
    }
    if (IsKeyword(token, "INTERVAL") && !IsOperator(next, "(") && !IsOperator(next, ".")) {
      return ParseInterval();
    }
    if (IsKeyword(token, "NULL") || IsKeyword(token, "TRUE") || IsKeyword(token, "FALSE")) {
      if (!IsOperator(next, "(") && !IsOperator(next, ".")) {
        auto literal = MakeExpression(ExpressionKind::kLiteral, token.position);
        literal->literal_kind =
            IsKeyword(token, "NULL") ? LiteralKind::kNull : LiteralKind::kBoolean;
        literal->text =
            IsKeyword(token, "NULL") ? "" : (IsKeyword(token, "TRUE") ? "true" : "false");
        Advance();
        return literal;
      }
    }
    if (IsKeyword(token, "CASE")) return ParseCase();
    if ((IsKeyword(token, "CAST") || IsKeyword(token, "TRY_CAST")) && IsOperator(next, "(")) {
      return ParseCast();
    }
    if (IsKeyword(token, "EXISTS") && IsOperator(next, "(") && StartsQuery(2)) {
      Advance();
      Advance();
      auto exists = MakeExpression(ExpressionKind::kExists, token.position);
      exists->subquery = ParseQuery();
      ExpectOperator(")");
      return exists;
    }
    if ((IsKeyword(token, "CURRENT_DATE") || IsKeyword(token, "CURRENT_TIMESTAMP") ||
         IsKeyword(token, "CURRENT_USER")) &&
        !IsOperator(next, "(")) {
      Advance();
      auto function = MakeExpression(ExpressionKind::kFunction, token.position);
      function->name = {ToUpper(token.text)};
      function->niladic_keyword = true;
      return function;
    }
    // A reserved word may still be a lambda parameter (`left -> ...`), and LEFT and RIGHT name
    // columns and lambda variables in expressions, as in Spark.
    if (IsReservedWord(token.text) && !(IsFunctionableReservedWord(token.text) && IsOperator(next, "(")) &&
        !IsOperator(next, "->") && !IsExpressionWord(token.text)) {
      SyntaxError(token);
    }
    return ParseNameExpression();
  }

  // A column reference, a (qualified) function call, or a one-parameter lambda.
  ExpressionPtr ParseNameExpression() {
    const Token& first = Current();
    if (IsOperator(Peek(1), "->")) {
      std::vector<std::string> parameters{Advance().text};
      return ParseLambdaBody(std::move(parameters), first.position);
    }
    QualifiedName name{Advance().text};
    while (
        IsOperator(Current(), ".") &&
        (Peek(1).kind == TokenKind::kIdentifier || Peek(1).kind == TokenKind::kQuotedIdentifier) &&
        IsOperator(Peek(2), "(")) {
      Advance();
      name.push_back(Advance().text);
    }
    if (IsOperator(Current(), "(")) return ParseFunctionCall(std::move(name), first.position);
    auto column = MakeExpression(ExpressionKind::kColumn, first.position);
    column->name = std::move(name);
    return column;
  }

  // `e, ...` as ascending sort keys.
  std::vector<OrderItem> ParseExpressionsAsOrderItems() {
    std::vector<OrderItem> items;
    do {
      OrderItem item;
      item.expression = ParseExpr();
      items.push_back(std::move(item));
    } while (MatchOperator(","));
    return items;
  }

  std::vector<OrderItem> ParseOrderItems() {
    std::vector<OrderItem> items;
    do {
      OrderItem item;
      item.expression = ParseExpr();
      if (MatchKeyword("ASC")) {
        item.direction = SortDirection::kAscending;
      } else if (MatchKeyword("DESC")) {
        item.direction = SortDirection::kDescending;
      }
      if (MatchKeyword("NULLS")) {
        if (MatchKeyword("FIRST")) {
          item.null_order = NullOrder::kNullsFirst;
        } else {
          ExpectKeyword("LAST");
          item.null_order = NullOrder::kNullsLast;
        }
      }
      items.push_back(std::move(item));
    } while (MatchOperator(","));
    return items;
  }

  // ---- data types ----

  // Consumes one `>`, splitting a `>>` or `>>>` token that closes nested types.
  void ExpectCloseAngle() {
    Token& token = tokens_[index_];
    if (token.kind == TokenKind::kOperator && token.text.size() > 1 && token.text[0] == '>' &&
        (token.text == ">>" || token.text == ">>>")) {
      token.text.erase(0, 1);
      token.position.offset += 1;
      token.position.column += 1;
      return;
    }
    ExpectOperator(">");
  }

  int ParseTypeInteger() {
    const Token& token = Current();
    if (token.kind != TokenKind::kInteger) SyntaxError(token);
    int value = 0;
    auto [end, error] =
        std::from_chars(token.text.data(), token.text.data() + token.text.size(), value);
    if (error != std::errc() || end != token.text.data() + token.text.size()) SyntaxError(token);
    Advance();
    return value;
  }

  // Parses a Spark type name (see ParseDataType for the accepted forms).
  // `INTERVAL start [TO end]` after the INTERVAL keyword: Spark's ANSI interval types, YEAR/MONTH
  // fields for a year-month interval, DAY/HOUR/MINUTE/SECOND for a day-time one; `end` must not
  // come before `start` and both must be of one kind.
  static bool IsIntervalField(const Token& token) {
    for (const char* field : {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"}) {
      if (IsKeyword(token, field)) return true;
    }
    return false;
  }

  DataTypePtr ParseIntervalType() {
    static const std::vector<std::string> kYearMonth = {"YEAR", "MONTH"};
    static const std::vector<std::string> kDayTime = {"DAY", "HOUR", "MINUTE", "SECOND"};
    auto field_index = [](const std::vector<std::string>& fields, const std::string& word) {
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i] == word) return static_cast<int>(i);
      }
      return -1;
    };
    const Token& start_token = Current();
    if (start_token.kind != TokenKind::kIdentifier) SyntaxError(start_token);
    std::string start = ToUpper(start_token.text);
    bool year_month = field_index(kYearMonth, start) >= 0;
    const std::vector<std::string>& fields = year_month ? kYearMonth : kDayTime;
    int start_index = field_index(fields, start);
    if (start_index < 0) SyntaxError(start_token);
    Advance();
    int end_index = start_index;
    if (MatchKeyword("TO")) {
      const Token& end_token = Current();
      end_index = field_index(fields, ToUpper(end_token.text));
      if (end_token.kind != TokenKind::kIdentifier || end_index <= start_index) SyntaxError(end_token);
      Advance();
    }
    if (year_month) {
      return YearMonthIntervalType(static_cast<YearMonthField>(start_index),
                                   static_cast<YearMonthField>(end_index));
    }
    return DayTimeIntervalType(static_cast<DayTimeField>(start_index),
                               static_cast<DayTimeField>(end_index));
  }

  // `type`, unless it nests deeper than a table can store (DATATYPE_NESTING_TOO_DEEP, refused
  // here so that no DDL gets as far as writing it).
  static DataTypePtr CheckedNesting(DataTypePtr type, const SourcePosition& position) {
    try {
      CheckTypeNesting(*type);
    } catch (const Error& error) {
      throw error.WithContext(FormatPosition(position));
    }
    return type;
  }

  DataTypePtr ParseType() {
    DepthGuard guard(*this);
    const Token& token = Current();
    if (token.kind != TokenKind::kIdentifier) SyntaxError(token);
    std::string name = ToUpper(token.text);
    Advance();
    if (name == "BOOLEAN") return BooleanType();
    if (name == "TINYINT" || name == "BYTE") return ByteType();
    if (name == "SMALLINT" || name == "SHORT") return ShortType();
    if (name == "INT" || name == "INTEGER") return IntegerType();
    if (name == "BIGINT" || name == "LONG") return LongType();
    if (name == "FLOAT" || name == "REAL") return FloatType();
    if (name == "DOUBLE") return DoubleType();
    if (name == "DATE") return DateType();
    if (name == "TIMESTAMP" || name == "TIMESTAMP_LTZ") return TimestampType();
    if (name == "TIMESTAMP_NTZ") return TimestampNtzType();
    if (name == "STRING") return StringType();
    if (name == "BINARY") return BinaryType();
    if (name == "VOID") return NullType();
    if (name == "INTERVAL" && IsIntervalField(Current())) return ParseIntervalType();
    if (name == "VARCHAR" || name == "CHAR" || name == "CHARACTER") {
      // Delta stores char/varchar columns as string (the length lives in field metadata, which
      // the binder adds); the parser checks the length is present and positive.
      ExpectOperator("(");
      const Token& length_token = Current();
      int length = ParseTypeInteger();
      if (length <= 0) SyntaxError(length_token);
      ExpectOperator(")");
      return StringType();
    }
    if (name == "DECIMAL" || name == "DEC" || name == "NUMERIC") {
      int precision = 10;
      int scale = 0;
      if (MatchOperator("(")) {
        precision = ParseTypeInteger();
        if (MatchOperator(",")) scale = ParseTypeInteger();
        ExpectOperator(")");
      }
      try {
        return DecimalType(precision, scale);
      } catch (const Error& error) {
        throw error.WithContext(FormatPosition(token.position));
      }
    }
    if (name == "ARRAY") {
      ExpectOperator("<");
      DataTypePtr element = ParseType();
      ExpectCloseAngle();
      return CheckedNesting(ListType(element), token.position);
    }
    if (name == "MAP") {
      ExpectOperator("<");
      DataTypePtr key = ParseType();
      ExpectOperator(",");
      DataTypePtr value = ParseType();
      ExpectCloseAngle();
      return CheckedNesting(MapType(key, value), token.position);
    }
    if (name == "STRUCT") {
      std::vector<Field> fields;
      if (MatchOperator("<>")) return StructType(fields);
      ExpectOperator("<");
      if (!IsOperator(Current(), ">")) {
        do {
          Field field;
          field.name = ParseAnyIdentifier();
          MatchOperator(":");
          field.type = ParseType();
          if (MatchKeywords({"NOT", "NULL"})) field.nullable = false;
          if (MatchKeyword("COMMENT")) {
            std::string text;
            AppendJsonString(text, ParseStringLiteral());
            field.metadata.emplace_back("comment", std::move(text));
          }
          fields.push_back(std::move(field));
        } while (MatchOperator(","));
      }
      ExpectCloseAngle();
      return CheckedNesting(StructType(std::move(fields)), token.position);
    }
    throw MakeError(ErrorClass::UNSUPPORTED_DATATYPE, {{"typeName", "\"" + name + "\""}})
        .WithContext(FormatPosition(token.position));
  }

  // ---- queries ----

  QueryPtr ParseQuery() {
    DepthGuard guard(*this);
    SourcePosition position = Current().position;
    std::vector<CommonTableExpression> with;
    if (MatchKeyword("WITH")) with = ParseCommonTableExpressions(position);
    QueryPtr query = ParseSetOperations();
    bool has_modifiers = IsKeyword(Current(), "ORDER") || IsKeyword(Current(), "SORT") ||
                         IsKeyword(Current(), "LIMIT") || IsKeyword(Current(), "OFFSET");
    if ((has_modifiers &&
         (!query->order_by.empty() || query->limit || query->limit_all || query->offset)) ||
        (!with.empty() && !query->with.empty())) {
      // `(SELECT .. LIMIT 1) LIMIT 2`: the outer modifiers apply to the inner query's result.
      auto wrapper = std::make_shared<Query>();
      wrapper->position = query->position;
      SelectItem star;
      star.expression = MakeExpression(ExpressionKind::kStar, query->position);
      wrapper->select_list.push_back(std::move(star));
      auto from = std::make_shared<TableReference>();
      from->kind = TableReferenceKind::kSubquery;
      from->position = query->position;
      from->subquery = query;
      wrapper->from.push_back(from);
      query = wrapper;
    }
    if (!with.empty()) {
      query->with = std::move(with);
      query->position = position;
    }
    if (MatchKeywords({"ORDER", "BY"})) {
      query->order_by = ParseOrderItems();
    } else {
      // Hive's CLUSTER BY e | [DISTRIBUTE BY e] [SORT BY items]: in Spark they shuffle rows into
      // partitions by e and sort within each, leaving the order of the result open. One ordered
      // partition is one of the orders Spark may give, so they read as ORDER BY (e, items).
      if (MatchKeywords({"CLUSTER", "BY"})) {
        query->order_by = ParseExpressionsAsOrderItems();
      } else {
        if (MatchKeywords({"DISTRIBUTE", "BY"})) query->order_by = ParseExpressionsAsOrderItems();
        if (MatchKeywords({"SORT", "BY"})) {
          for (OrderItem& item : ParseOrderItems()) query->order_by.push_back(std::move(item));
        }
      }
    }
    if (MatchKeyword("LIMIT")) {
      if (MatchKeyword("ALL")) {
        query->limit_all = true;
      } else {
        query->limit = ParseExpr();
      }
    }
    if (MatchKeyword("OFFSET")) query->offset = ParseExpr();
    return query;
  }

  static QueryPtr MakeSetOperation(SetOperator set_operator, bool all, QueryPtr left,
                                   QueryPtr right, const SourcePosition& position) {
    auto query = std::make_shared<Query>();
    query->kind = QueryKind::kSetOperation;
    query->position = position;
    query->set_operator = set_operator;
    query->set_all = all;
    query->left = std::move(left);
    query->right = std::move(right);
    return query;
  }

  bool ParseSetQuantifier() {
    if (MatchKeyword("ALL")) return true;
    MatchKeyword("DISTINCT");
    return false;
  }

  // UNION and EXCEPT/MINUS share the lowest level; INTERSECT binds tighter (Spark).
  QueryPtr ParseSetOperations() {
    DepthGuard chain(*this, 0);
    QueryPtr left = ParseIntersections();
    while (IsKeyword(Current(), "UNION") || IsKeyword(Current(), "EXCEPT") ||
           IsKeyword(Current(), "MINUS")) {
      const Token& op = Advance();
      SetOperator set_operator =
          IsKeyword(op, "UNION") ? SetOperator::kUnion : SetOperator::kExcept;
      bool all = ParseSetQuantifier();
      chain.Add();
      left = MakeSetOperation(set_operator, all, left, ParseIntersections(), op.position);
    }
    return left;
  }

  QueryPtr ParseIntersections() {
    DepthGuard chain(*this, 0);
    QueryPtr left = ParseQueryTerm();
    while (IsKeyword(Current(), "INTERSECT")) {
      const Token& op = Advance();
      bool all = ParseSetQuantifier();
      chain.Add();
      left = MakeSetOperation(SetOperator::kIntersect, all, left, ParseQueryTerm(), op.position);
    }
    return left;
  }

  QueryPtr ParseQueryTerm() {
    const Token& token = Current();
    if (IsOperator(token, "(")) {
      Advance();
      QueryPtr query = ParseQuery();
      ExpectOperator(")");
      return query;
    }
    if (IsKeyword(token, "SELECT")) return ParseSelect();
    if (IsKeyword(token, "VALUES")) {
      Advance();
      auto query = std::make_shared<Query>();
      query->kind = QueryKind::kValues;
      query->position = token.position;
      query->values = ParseValuesRows();
      if (IsKeyword(Current(), "AS") || IsIdentifierToken(Current())) {
        // `VALUES ... [AS] t(a, b)` as a query: the aliased inline table, selected whole.
        auto table = std::make_shared<TableReference>();
        table->kind = TableReferenceKind::kValues;
        table->position = token.position;
        table->values = std::move(query->values);
        ParseTableAlias(*table, true);
        auto select = std::make_shared<Query>();
        select->position = token.position;
        SelectItem star;
        star.expression = MakeExpression(ExpressionKind::kStar, token.position);
        select->select_list.push_back(std::move(star));
        select->from.push_back(std::move(table));
        return select;
      }
      return query;
    }
    if (IsKeyword(token, "TABLE")) {
      Advance();
      auto query = std::make_shared<Query>();
      query->kind = QueryKind::kTable;
      query->position = token.position;
      query->table_name = ParseQualifiedName();
      return query;
    }
    if (IsKeyword(token, "FROM")) {
      // Spark's FROM-first form: `FROM t SELECT a`.
      Advance();
      std::vector<TableReferencePtr> from = ParseFromList();
      if (!IsKeyword(Current(), "SELECT")) SyntaxError(Current());
      QueryPtr query = ParseSelect();
      if (!query->from.empty()) SyntaxError(Current());
      query->from = std::move(from);
      return query;
    }
    SyntaxError(token);
  }

  // Rows of VALUES: `(1, 'a'), (2, 'b')`, or bare expressions `1, 2` (one column each). A long
  // list is not nesting: the rows are a flat list, bound and walked in a loop.
  std::vector<std::vector<ExpressionPtr>> ParseValuesRows() {
    std::vector<std::vector<ExpressionPtr>> rows;
    do {
      std::vector<ExpressionPtr> row;
      if (IsOperator(Current(), "(") && !StartsQuery(1) && !StartsParenthesisedLambda()) {
        Advance();
        row.push_back(ParseExpr());
        while (MatchOperator(",")) row.push_back(ParseExpr());
        ExpectOperator(")");
      } else {
        row.push_back(ParseExpr());
      }
      rows.push_back(std::move(row));
    } while (MatchOperator(","));
    return rows;
  }

  QueryPtr ParseSelect() {
    auto query = std::make_shared<Query>();
    query->kind = QueryKind::kSelect;
    query->position = Advance().position;  // SELECT
    if (MatchKeyword("DISTINCT")) {
      query->distinct = true;
    } else {
      MatchKeyword("ALL");
    }
    do {
      SelectItem item;
      item.expression = ParseExpr();
      if (MatchKeyword("AS")) {
        if (IsOperator(Current(), "(")) {
          item.column_aliases = ParseIdentifierList();
        } else {
          item.alias = ParseAliasName();
        }
      } else if (IsIdentifierToken(Current())) {
        item.alias = ParseIdentifier();
      }
      query->select_list.push_back(std::move(item));
    } while (MatchOperator(","));
    if (MatchKeyword("FROM")) query->from = ParseFromList();
    ParseLateralViews(query->from);
    // PIVOT / UNPIVOT after the lateral views apply to the whole FROM clause.
    while (!query->from.empty() && StartsPivotOrUnpivot()) {
      TableReferencePtr all = query->from[0];
      for (size_t i = 1; i < query->from.size(); ++i) {
        auto join = std::make_shared<TableReference>();
        join->kind = TableReferenceKind::kJoin;
        join->position = query->from[i]->position;
        join->join_type = JoinType::kCross;
        join->left = all;
        join->right = query->from[i];
        all = join;
      }
      query->from = {ParsePivotOrUnpivot(all)};
    }
    if (MatchKeyword("WHERE")) query->where = ParseExpr();
    if (MatchKeywords({"GROUP", "BY"})) {
      if (IsKeyword(Current(), "ALL") && !IsOperator(Peek(1), "(") && !IsOperator(Peek(1), ".")) {
        Advance();
        query->group_by_all = true;
      } else {
        ParseGroupBy(*query);
      }
    }
    if (MatchKeyword("HAVING")) query->having = ParseExpr();
    for (int clause = 0; clause < 2; ++clause) {
      if (!query->qualify && MatchKeyword("QUALIFY")) query->qualify = ParseExpr();
      if (query->windows.empty() && MatchKeyword("WINDOW")) {
        do {
          std::string name = ParseIdentifier();
          ExpectKeyword("AS");
          ExpectOperator("(");
          query->windows.emplace_back(std::move(name), ParseWindowSpecBody());
          ExpectOperator(")");
        } while (MatchOperator(","));
      }
    }
    return query;
  }

  // GROUP BY items: expressions, ROLLUP/CUBE/GROUPING SETS elements, `... WITH ROLLUP|CUBE` and
  // Hive's `GROUP BY a, b GROUPING SETS (...)`.
  void ParseGroupBy(Query& query) {
    std::vector<GroupingElement> elements;
    bool analytics = false;
    do {
      GroupingElement element;
      if (StartsGroupingAnalytics()) {
        element.analytics = ParseGroupingAnalytics();
        analytics = true;
      } else {
        element.expression = ParseExpr();
      }
      elements.push_back(std::move(element));
    } while (MatchOperator(","));
    if (!analytics && IsKeyword(Current(), "WITH") &&
        (IsKeyword(Peek(1), "ROLLUP") || IsKeyword(Peek(1), "CUBE"))) {
      Advance();
      GroupingAnalytics rollup;
      rollup.position = Current().position;
      rollup.kind = IsKeyword(Advance(), "ROLLUP") ? GroupingAnalytics::Kind::kRollup
                                                   : GroupingAnalytics::Kind::kCube;
      for (GroupingElement& element : elements) rollup.groups.push_back({element.expression});
      query.grouping_elements.push_back(GroupingElement{nullptr, std::move(rollup)});
      return;
    }
    if (!analytics && IsKeyword(Current(), "GROUPING") && StartsGroupingAnalytics()) {
      GroupingElement sets;
      sets.analytics = ParseGroupingAnalytics();
      elements.push_back(std::move(sets));
      query.grouping_sets_legacy = true;
      analytics = true;
    }
    if (!analytics) {
      for (GroupingElement& element : elements) {
        query.group_by.push_back(std::move(element.expression));
      }
      return;
    }
    query.grouping_elements = std::move(elements);
  }

  bool StartsGroupingAnalytics() const {
    if ((IsKeyword(Current(), "ROLLUP") || IsKeyword(Current(), "CUBE")) &&
        IsOperator(Peek(1), "(")) {
      return true;
    }
    return IsKeyword(Current(), "GROUPING") && IsKeyword(Peek(1), "SETS") &&
           IsOperator(Peek(2), "(");
  }

  GroupingAnalytics ParseGroupingAnalytics() {
    DepthGuard guard(*this);
    GroupingAnalytics analytics;
    analytics.position = Current().position;
    if (MatchKeyword("ROLLUP")) {
      analytics.kind = GroupingAnalytics::Kind::kRollup;
    } else if (MatchKeyword("CUBE")) {
      analytics.kind = GroupingAnalytics::Kind::kCube;
    } else {
      Advance();  // GROUPING
      Advance();  // SETS
      analytics.kind = GroupingAnalytics::Kind::kGroupingSets;
    }
    ExpectOperator("(");
    // `ROLLUP ()` and `CUBE ()` have the empty grouping set only.
    if (analytics.kind != GroupingAnalytics::Kind::kGroupingSets && MatchOperator(")")) {
      return analytics;
    }
    do {
      if (analytics.kind == GroupingAnalytics::Kind::kGroupingSets && StartsGroupingAnalytics()) {
        // A ROLLUP, CUBE or GROUPING SETS nested in GROUPING SETS contributes its sets.
        GroupingAnalytics nested = ParseGroupingAnalytics();
        for (std::vector<ExpressionPtr>& set : ExpandGroupingAnalytics(nested)) {
          analytics.groups.push_back(std::move(set));
          if (analytics.groups.size() > kMaxGroupingSets) {
            throw MakeError(ErrorClass::GROUPING_SIZE_LIMIT_EXCEEDED,
                            {{"maxSize", std::to_string(kMaxGroupingSets)}})
                .WithContext(FormatPosition(analytics.position));
          }
        }
      } else {
        analytics.groups.push_back(ParseGroupingSet());
      }
    } while (MatchOperator(","));
    ExpectOperator(")");
    return analytics;
  }

  // One element of ROLLUP/CUBE or one set of GROUPING SETS: `(a, b)`, `()` or an expression
  // (`(a + b) * 2` starts with a parenthesis but is one expression).
  std::vector<ExpressionPtr> ParseGroupingSet() {
    if (IsOperator(Current(), "(") && !StartsQuery(1)) {
      size_t start = index_;
      Advance();
      std::vector<ExpressionPtr> set;
      if (!MatchOperator(")")) {
        set.push_back(ParseExpr());
        while (MatchOperator(",")) set.push_back(ParseExpr());
        ExpectOperator(")");
      }
      if (IsOperator(Current(), ",") || IsOperator(Current(), ")")) return set;
      index_ = start;
    }
    return {ParseExpr()};
  }

  // Aliases after AS may be any word, even a reserved one, as in Spark.
  std::string ParseAliasName() { return ParseAnyIdentifier(); }

  std::vector<TableReferencePtr> ParseFromList() {
    std::vector<TableReferencePtr> from{ParseJoinedTable()};
    while (MatchOperator(",")) from.push_back(ParseJoinedTable());
    return from;
  }

  // LATERAL VIEW [OUTER] generator(args) table_alias [AS] column, ...; applies to the FROM items
  // before it, so it wraps the last one (the binder joins earlier items first).
  void ParseLateralViews(std::vector<TableReferencePtr>& from) {
    while (IsKeyword(Current(), "LATERAL") && IsKeyword(Peek(1), "VIEW")) {
      const Token& keyword = Advance();
      Advance();
      if (from.empty()) SyntaxError(keyword);
      auto view = std::make_shared<TableReference>();
      view->kind = TableReferenceKind::kLateralView;
      view->position = keyword.position;
      view->outer = MatchKeyword("OUTER");
      SourcePosition function_position = Current().position;
      QualifiedName name = ParseQualifiedName();
      view->function = ParseFunctionCall(std::move(name), function_position);
      view->alias = ParseIdentifier();
      bool has_as = MatchKeyword("AS");
      if (has_as || IsIdentifierToken(Current())) {
        view->column_aliases.push_back(ParseIdentifier());
        while (MatchOperator(",")) view->column_aliases.push_back(ParseIdentifier());
      }
      view->left = from.back();
      from.back() = view;
    }
  }

  TableReferencePtr ParseJoinedTable() {
    DepthGuard chain(*this, 0);
    TableReferencePtr left = ParseTablePrimary();
    while (true) {
      if (StartsPivotOrUnpivot()) {
        chain.Add();
        left = ParsePivotOrUnpivot(left);
        continue;
      }
      const Token& start = Current();
      bool natural = MatchKeyword("NATURAL");
      JoinType type = JoinType::kInner;
      if (MatchKeyword("INNER")) {
        type = JoinType::kInner;
      } else if (MatchKeyword("CROSS")) {
        type = JoinType::kCross;
      } else if (MatchKeyword("LEFT")) {
        if (MatchKeyword("SEMI")) {
          type = JoinType::kLeftSemi;
        } else if (MatchKeyword("ANTI")) {
          type = JoinType::kLeftAnti;
        } else {
          MatchKeyword("OUTER");
          type = JoinType::kLeftOuter;
        }
      } else if (MatchKeyword("RIGHT")) {
        MatchKeyword("OUTER");
        type = JoinType::kRightOuter;
      } else if (MatchKeyword("FULL")) {
        MatchKeyword("OUTER");
        type = JoinType::kFullOuter;
      } else if (MatchKeyword("SEMI")) {
        type = JoinType::kLeftSemi;
      } else if (MatchKeyword("ANTI")) {
        type = JoinType::kLeftAnti;
      } else if (!IsKeyword(Current(), "JOIN")) {
        if (natural) SyntaxError(Current());
        return left;
      }
      ExpectKeyword("JOIN");
      chain.Add();
      auto join = std::make_shared<TableReference>();
      join->kind = TableReferenceKind::kJoin;
      join->position = start.position;
      join->join_type = type;
      join->natural = natural;
      join->left = left;
      join->right = ParseTablePrimary();
      if (!natural && type != JoinType::kCross) {
        if (MatchKeyword("ON")) {
          join->condition = ParseExpr();
        } else if (MatchKeyword("USING")) {
          join->using_columns = ParseIdentifierList();
        }
      }
      left = join;
    }
  }

  // The list after WITH: `name [(cols)] [AS] (query), ...`.
  // `position` is the WITH keyword's (DUPLICATED_CTE_NAMES points there).
  std::vector<CommonTableExpression> ParseCommonTableExpressions(const SourcePosition& position) {
    std::vector<CommonTableExpression> with;
    MatchKeyword("RECURSIVE");
    do {
      CommonTableExpression cte;
      cte.name = ParseIdentifier();
      if (IsOperator(Current(), "(")) cte.columns = ParseIdentifierList();
      MatchKeyword("AS");
      ExpectOperator("(");
      cte.query = ParseQuery();
      ExpectOperator(")");
      with.push_back(std::move(cte));
    } while (MatchOperator(","));
    // Names compare case-insensitively, as they resolve; an inner WITH may reuse an outer name.
    std::vector<std::string> duplicates;
    for (size_t i = 0; i < with.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (EqualsIgnoreCase(with[j].name, with[i].name) &&
            std::find(duplicates.begin(), duplicates.end(), with[i].name) == duplicates.end()) {
          duplicates.push_back(with[i].name);
        }
      }
    }
    if (!duplicates.empty()) {
      std::string names;
      for (const std::string& name : duplicates) names += (names.empty() ? "`" : ", `") + name + "`";
      throw MakeError(ErrorClass::DUPLICATED_CTE_NAMES, {{"duplicateNames", names}})
          .WithContext(FormatPosition(position));
    }
    return with;
  }

  // `WITH ... MERGE | INSERT | UPDATE | DELETE ...` (Spark's `ctes? dmlStatementNoWith`): the
  // statement with the CTEs attached, or nullopt (and nothing consumed) when the WITH starts a
  // query.
  std::optional<Statement> ParseWithDml() {
    const size_t start = index_;
    const SourcePosition position = Advance().position;  // WITH
    std::vector<CommonTableExpression> with = ParseCommonTableExpressions(position);
    const Token& token = Current();
    if (!IsKeyword(token, "MERGE") && !IsKeyword(token, "INSERT") && !IsKeyword(token, "UPDATE") &&
        !IsKeyword(token, "DELETE")) {
      index_ = start;
      return std::nullopt;
    }
    Statement statement = ParseStatementBody();
    if (statement.kind == StatementKind::kInsert && statement.query != nullptr) {
      // The CTEs are visible to the inserted query; a WITH of its own nests inside them.
      auto outer = std::make_shared<Query>();
      outer->position = statement.query->position;
      SelectItem star;
      star.expression = MakeExpression(ExpressionKind::kStar, statement.query->position);
      outer->select_list.push_back(std::move(star));
      auto from = std::make_shared<TableReference>();
      from->kind = TableReferenceKind::kSubquery;
      from->position = statement.query->position;
      from->subquery = statement.query;
      outer->from.push_back(from);
      outer->with = std::move(with);
      statement.query = outer;
    } else {
      statement.with = std::move(with);
    }
    return statement;
  }

  bool StartsPivotOrUnpivot() const {
    if (IsKeyword(Current(), "PIVOT")) return IsOperator(Peek(1), "(");
    if (!IsKeyword(Current(), "UNPIVOT")) return false;
    return IsOperator(Peek(1), "(") ||
           ((IsKeyword(Peek(1), "INCLUDE") || IsKeyword(Peek(1), "EXCLUDE")) &&
            IsKeyword(Peek(2), "NULLS"));
  }

  // `[AS] alias` after a PIVOT aggregate or value, or an UNPIVOT item.
  std::string ParseOptionalItemAlias() {
    if (MatchKeyword("AS")) return ParseAliasName();
    if (IsIdentifierToken(Current()) && !IsKeyword(Current(), "FOR")) return ParseIdentifier();
    return "";
  }

  std::vector<QualifiedName> ParseColumnNameTuple() {
    std::vector<QualifiedName> names;
    if (MatchOperator("(")) {
      do {
        names.push_back(ParseQualifiedName());
      } while (MatchOperator(","));
      ExpectOperator(")");
    } else {
      names.push_back(ParseQualifiedName());
    }
    return names;
  }

  // `source PIVOT (agg [AS a], ... FOR col | (c1, c2) IN (value [AS v], ...))` and
  // `source UNPIVOT [INCLUDE | EXCLUDE NULLS] (value FOR name IN (c [AS a], ...)) [[AS] alias]`.
  TableReferencePtr ParsePivotOrUnpivot(TableReferencePtr source) {
    auto node = std::make_shared<TableReference>();
    node->position = Current().position;
    node->left = std::move(source);
    if (MatchKeyword("PIVOT")) {
      node->kind = TableReferenceKind::kPivot;
      auto spec = std::make_shared<PivotSpec>();
      ExpectOperator("(");
      do {
        spec->aggregates.push_back(ParseExpr());
        spec->aggregate_aliases.push_back(ParseOptionalItemAlias());
      } while (MatchOperator(","));
      ExpectKeyword("FOR");
      spec->columns = ParseColumnNameTuple();
      ExpectKeyword("IN");
      ExpectOperator("(");
      do {
        spec->value_positions.push_back(Current().position);
        spec->values.push_back(ParsePivotValue());
        spec->value_aliases.push_back(ParseOptionalItemAlias());
      } while (MatchOperator(","));
      ExpectOperator(")");
      ExpectOperator(")");
      node->pivot = std::move(spec);
    } else {
      Advance();  // UNPIVOT
      node->kind = TableReferenceKind::kUnpivot;
      auto spec = std::make_shared<UnpivotSpec>();
      if (MatchKeyword("INCLUDE")) {
        ExpectKeyword("NULLS");
        spec->include_nulls = true;
      } else if (MatchKeyword("EXCLUDE")) {
        ExpectKeyword("NULLS");
      }
      ExpectOperator("(");
      if (IsOperator(Current(), "(")) {
        spec->value_columns = ParseIdentifierList();
      } else {
        spec->value_columns.push_back(ParseIdentifier());
      }
      ExpectKeyword("FOR");
      spec->name_column = ParseIdentifier();
      ExpectKeyword("IN");
      ExpectOperator("(");
      do {
        spec->positions.push_back(Current().position);
        spec->columns.push_back(ParseColumnNameTuple());
        spec->aliases.push_back(ParseOptionalItemAlias());
      } while (MatchOperator(","));
      ExpectOperator(")");
      ExpectOperator(")");
      node->unpivot = std::move(spec);
    }
    ParseTableAlias(*node, false);
    return node;
  }

  // A PIVOT value: an expression, or a parenthesised tuple for several pivot columns
  // (`('John', 30)`); `(1 + 2) * 3` starts with a parenthesis but is one expression.
  std::vector<ExpressionPtr> ParsePivotValue() {
    if (IsOperator(Current(), "(") && !StartsQuery(1)) {
      size_t start = index_;
      Advance();
      std::vector<ExpressionPtr> tuple{ParseExpr()};
      while (MatchOperator(",")) tuple.push_back(ParseExpr());
      ExpectOperator(")");
      const Token& next = Current();
      if (IsOperator(next, ",") || IsOperator(next, ")") || IsKeyword(next, "AS") ||
          IsIdentifierToken(next)) {
        return tuple;
      }
      index_ = start;
    }
    return {ParseExpr()};
  }

  // `[FOR] VERSION | SYSTEM_VERSION | TIMESTAMP | SYSTEM_TIME AS OF ...`.
  bool StartsTimeTravel() const {
    size_t at = IsKeyword(Current(), "FOR") ? 1 : 0;
    const Token& kind = Peek(at);
    return (IsKeyword(kind, "VERSION") || IsKeyword(kind, "TIMESTAMP") ||
            IsKeyword(kind, "SYSTEM_VERSION") || IsKeyword(kind, "SYSTEM_TIME")) &&
           IsKeyword(Peek(at + 1), "AS") && IsKeyword(Peek(at + 2), "OF");
  }

  TimeTravel ParseTimeTravelSpec() {
    TimeTravel travel;
    MatchKeyword("FOR");
    const Token& kind = Advance();
    bool is_version = IsKeyword(kind, "VERSION") || IsKeyword(kind, "SYSTEM_VERSION");
    Advance();  // AS
    Advance();  // OF
    if (is_version) {
      travel.kind = TimeTravel::Kind::kVersion;
      const Token& token = Current();
      if (IsNumberToken(token.kind)) {
        travel.value = ParseLiteral();
      } else if (token.kind == TokenKind::kString) {
        travel.value = ParsePrimary();
      } else {
        SyntaxError(token);
      }
    } else {
      travel.kind = TimeTravel::Kind::kTimestamp;
      travel.value = ParseBinary(1);
    }
    return travel;
  }

  // `@v5` or `@20240101000000000` after a table name (Delta's short time-travel syntax).
  static std::optional<TimeTravel> TimeTravelFromSuffix(const std::string& suffix,
                                                        const SourcePosition& position) {
    TimeTravel travel;
    auto literal = MakeExpression(ExpressionKind::kLiteral, position);
    if (suffix.size() > 1 && (suffix[0] == 'v' || suffix[0] == 'V') &&
        AllDigits(std::string_view(suffix).substr(1))) {
      travel.kind = TimeTravel::Kind::kVersion;
      literal->text = suffix.substr(1);
      int64_t version = 0;
      const char* end = literal->text.data() + literal->text.size();
      auto [parsed_end, error] = std::from_chars(literal->text.data(), end, version);
      if (error != std::errc() || parsed_end != end) {
        literal->literal_kind = LiteralKind::kDecimal;
      } else {
        literal->literal_kind = version <= INT32_MAX ? LiteralKind::kInteger : LiteralKind::kBigint;
      }
    } else if (suffix.size() == 17 && AllDigits(suffix)) {
      travel.kind = TimeTravel::Kind::kTimestamp;
      literal->literal_kind = LiteralKind::kString;
      literal->text = suffix;
    } else {
      return std::nullopt;
    }
    travel.value = literal;
    return travel;
  }

  void ParseTableAlias(TableReference& table, bool allow_column_list) {
    bool has_as = MatchKeyword("AS");
    if (has_as || (IsIdentifierToken(Current()) && !StartsTimeTravel() &&
                   !IsKeyword(Current(), "TABLESAMPLE") && !StartsPivotOrUnpivot() &&
                   !(in_auto_cdc_source_ && IsKeyword(Current(), "KEYS")))) {
      table.alias = has_as ? ParseAnyIdentifier() : ParseIdentifier();
      if (allow_column_list && IsOperator(Current(), "(")) {
        table.column_aliases = ParseIdentifierList();
      }
    }
  }

  TableReferencePtr ParseTablePrimary() {
    DepthGuard guard(*this);
    const Token& token = Current();
    auto table = std::make_shared<TableReference>();
    table->position = token.position;
    if (IsOperator(token, "(")) {
      if (StartsQuery(1) || IsKeyword(Peek(1), "VALUES")) {
        Advance();
        table->kind = TableReferenceKind::kSubquery;
        table->subquery = ParseQuery();
        ExpectOperator(")");
        ParseTableAlias(*table, true);
        return table;
      }
      Advance();
      TableReferencePtr inner = ParseJoinedTable();
      ExpectOperator(")");
      return inner;
    }
    if (IsKeyword(token, "VALUES")) {
      Advance();
      table->kind = TableReferenceKind::kValues;
      table->values = ParseValuesRows();
      ParseTableAlias(*table, true);
      return table;
    }
    if (IsKeyword(token, "LATERAL") && IsOperator(Peek(1), "(")) {
      Advance();
      return ParseTablePrimary();
    }
    QualifiedName name = ParseQualifiedName();
    if (name.size() == 1 && ToUpper(name[0]) == "STREAM" && IsIdentifierToken(Current()) &&
        IsOperator(Peek(1), "(")) {
      // STREAM read_files('/in', format => 'json'): a source function read as a stream.
      table->kind = TableReferenceKind::kTable;
      table->stream = true;
      table->stream_call = true;
      table->name = {Advance().text};
      ExpectOperator("(");
      if (!IsOperator(Current(), ")")) {
        do {
          if (IsIdentifierToken(Current()) && IsOperator(Peek(1), "=>")) {
            std::string key = Advance().text;
            Advance();
            table->stream_options.emplace_back(std::move(key), ParseOptionValue());
          } else {
            if (!table->stream_options.empty()) SyntaxError(Current());
            table->stream_arguments.push_back(ParseOptionValue());
          }
        } while (MatchOperator(","));
      }
      ExpectOperator(")");
      ParseTableAlias(*table, true);
      return table;
    }
    if (name.size() == 1 && ToUpper(name[0]) == "STREAM" && IsOperator(Current(), "(") &&
        IsIdentifierToken(Peek(1))) {
      // STREAM(t): the table read as a stream.
      Advance();
      table->kind = TableReferenceKind::kTable;
      table->stream = true;
      table->name = ParseQualifiedName();
      ExpectOperator(")");
      if (IsKeyword(Current(), "WITH") && IsOperator(Peek(1), "(")) {
        Advance();
        table->stream_options = ParseProperties();
      }
      if (IsKeyword(Current(), "WATERMARK") && IsIdentifierToken(Peek(1)) &&
          IsKeyword(Peek(2), "DELAY")) {
        // Databricks' `WATERMARK column DELAY OF INTERVAL ...`: kept with the stream's options
        // as `__watermark_column` / `__watermark_delay` (the interval's parts as written), which
        // the stream layer takes out again (stream/stateful_query.h).
        Advance();
        std::string column = ParseIdentifier();
        ExpectKeyword("DELAY");
        ExpectKeyword("OF");
        if (!IsKeyword(Current(), "INTERVAL")) SyntaxError(Current(), ": expected an INTERVAL");
        ExpressionPtr delay = ParseInterval();
        std::string text;
        for (const auto& [value, unit] : delay->interval_parts) {
          text += (text.empty() ? "" : " ") + value + (unit.empty() ? "" : " " + unit);
        }
        table->stream_options.emplace_back("__watermark_column", column);
        table->stream_options.emplace_back("__watermark_delay", text);
      }
      ParseTableAlias(*table, true);
      return table;
    }
    if (IsOperator(Current(), "(")) {
      table->kind = TableReferenceKind::kFunction;
      table->function = ParseFunctionCall(std::move(name), token.position);
      ParseTableAlias(*table, true);
      return table;
    }
    table->kind = TableReferenceKind::kTable;
    // Delta reads `delta.`/path@v5`` as version 5 of the path table.
    if (name.size() >= 2 && tokens_[index_ - 1].kind == TokenKind::kQuotedIdentifier) {
      std::string& last = name.back();
      size_t at = last.rfind('@');
      if (at != std::string::npos) {
        if (auto travel = TimeTravelFromSuffix(last.substr(at + 1), tokens_[index_ - 1].position)) {
          table->time_travel = travel;
          last.resize(at);
        }
      }
    }
    table->name = std::move(name);
    if (IsOperator(Current(), "@")) {
      const Token& at = Advance();
      const Token& suffix = Current();
      std::optional<TimeTravel> travel;
      if (suffix.kind == TokenKind::kIdentifier || suffix.kind == TokenKind::kInteger) {
        travel = TimeTravelFromSuffix(suffix.text, at.position);
      }
      if (!travel || suffix.position.offset != at.end_offset) SyntaxError(suffix);
      Advance();
      table->time_travel = travel;
    }
    if (StartsTimeTravel()) {
      if (table->time_travel) SyntaxError(Current());
      table->time_travel = ParseTimeTravelSpec();
    }
    if (IsKeyword(Current(), "TABLESAMPLE") && IsOperator(Peek(1), "(")) {
      table->sample = ParseTableSample();
    }
    ParseTableAlias(*table, true);
    return table;
  }

  // TABLESAMPLE (x PERCENT | n ROWS | BUCKET x OUT OF y) [REPEATABLE (seed)], at TABLESAMPLE.
  TableSample ParseTableSample() {
    Advance();
    ExpectOperator("(");
    TableSample sample;
    auto integer = [&] {
      const Token& token = Current();
      if (token.kind != TokenKind::kInteger) SyntaxError(token);
      Advance();
      return std::stoll(token.text);
    };
    if (MatchKeyword("BUCKET")) {
      sample.kind = TableSample::Kind::kBucket;
      sample.numerator = integer();
      ExpectKeyword("OUT");
      ExpectKeyword("OF");
      sample.denominator = integer();
      if (IsKeyword(Current(), "ON")) {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "TABLESAMPLE (BUCKET x OUT OF y ON ...)"}});
      }
    } else {
      sample.amount = ParseExpr();
      if (MatchKeyword("PERCENT")) {
        sample.kind = TableSample::Kind::kPercent;
      } else if (MatchKeyword("ROWS")) {
        sample.kind = TableSample::Kind::kRows;
      } else {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "TABLESAMPLE by byte length"}});
      }
    }
    ExpectOperator(")");
    if (MatchKeyword("REPEATABLE")) {
      ExpectOperator("(");
      sample.seed = integer();
      ExpectOperator(")");
    }
    return sample;
  }

  // A table for a DML/utility statement: a name (`db.t`, ``delta.`/p` ``) or a path string,
  // which Delta reads as ``delta.`path` ``.
  QualifiedName ParseTableNameOrPath() {
    if (Current().kind == TokenKind::kString) return {"delta", ParseStringLiteral()};
    return ParseQualifiedName();
  }

  TableReferencePtr ParseDmlTarget() {
    const Token& token = Current();
    auto table = std::make_shared<TableReference>();
    table->kind = TableReferenceKind::kTable;
    table->position = token.position;
    table->name = ParseTableNameOrPath();
    ParseTableAlias(*table, false);
    return table;
  }

  // ---- statements ----

  Statement ParseOneStatement() {
    const Token& first = Current();
    Statement statement = ParseStatementBody();
    statement.position = first.position;
    statement.source_text =
        std::string(sql_.substr(first.position.offset, last_end_offset_ - first.position.offset));
    return statement;
  }

  Statement ParseStatementBody() {
    const Token& token = Current();
    Statement statement;
    if (IsKeyword(token, "WITH")) {
      if (std::optional<Statement> dml = ParseWithDml()) return std::move(*dml);
    }
    if (IsOperator(token, "(") || IsKeyword(token, "SELECT") || IsKeyword(token, "WITH") ||
        IsKeyword(token, "VALUES") || IsKeyword(token, "TABLE") || IsKeyword(token, "FROM")) {
      statement.kind = StatementKind::kQuery;
      statement.query = ParseQuery();
      return statement;
    }
    if (token.kind != TokenKind::kIdentifier) SyntaxError(token);
    std::string keyword = ToUpper(token.text);
    if (keyword == "CREATE") return ParseCreate();
    if (keyword == "REPLACE") {
      Advance();
      ExpectKeyword("TABLE");
      statement.replace = true;
      ParseCreateTableRest(statement);
      return statement;
    }
    if (keyword == "DROP") return ParseDrop();
    if (keyword == "REFRESH" && IsKeyword(Peek(1), "STREAMING")) {
      Advance();
      Advance();
      ExpectKeyword("TABLE");
      statement.kind = StatementKind::kRefreshStreamingTable;
      statement.name = ParseQualifiedName();
      if (MatchKeyword("FULL")) statement.extended = true;
      // EVERY '30 seconds': keep refreshing at that interval until cancelled.
      if (MatchKeyword("EVERY")) statement.value = ParseStringLiteral();
      return statement;
    }
    if (keyword == "USE") {
      Advance();
      // `USE DATABASE d`; a database literally named `database` is `USE database`.
      if ((IsKeyword(Current(), "DATABASE") || IsKeyword(Current(), "SCHEMA") ||
           IsKeyword(Current(), "NAMESPACE")) &&
          IsIdentifierToken(Peek(1))) {
        Advance();
      }
      statement.kind = StatementKind::kUse;
      statement.name = ParseQualifiedName();
      return statement;
    }
    if (keyword == "INSERT") return ParseInsert();
    if (keyword == "MERGE") return ParseMerge();
    if (keyword == "UPDATE") {
      Advance();
      statement.kind = StatementKind::kUpdate;
      statement.target = ParseDmlTarget();
      ExpectKeyword("SET");
      statement.assignments = ParseAssignments();
      if (MatchKeyword("WHERE")) statement.where = ParseExpr();
      return statement;
    }
    if (keyword == "DELETE") {
      Advance();
      ExpectKeyword("FROM");
      statement.kind = StatementKind::kDelete;
      statement.target = ParseDmlTarget();
      if (MatchKeyword("WHERE")) statement.where = ParseExpr();
      return statement;
    }
    if (keyword == "ALTER") return ParseAlter();
    if (keyword == "DESCRIBE" || keyword == "DESC") return ParseDescribe();
    if (keyword == "SHOW") return ParseShow();
    if (keyword == "EXPLAIN") {
      Advance();
      statement.kind = StatementKind::kExplain;
      for (std::string_view mode : {"EXTENDED", "FORMATTED", "CODEGEN", "COST", "LOGICAL"}) {
        if (MatchKeyword(mode)) {
          statement.explain_mode = std::string(mode);
          break;
        }
      }
      DepthGuard guard(*this);
      statement.explained = std::make_shared<Statement>(ParseOneStatement());
      return statement;
    }
    if (keyword == "SET" || keyword == "RESET") return ParseSetOrReset(keyword == "SET");
    if (keyword == "RESTORE") {
      Advance();
      MatchKeyword("TABLE");
      statement.kind = StatementKind::kRestore;
      statement.name = ParseTableNameOrPath();
      MatchKeyword("TO");
      if (!StartsTimeTravel()) SyntaxError(Current());
      statement.time_travel = ParseTimeTravelSpec();
      return statement;
    }
    if (keyword == "VACUUM") {
      Advance();
      statement.kind = StatementKind::kVacuum;
      statement.name = ParseTableNameOrPath();
      if (MatchKeyword("RETAIN")) {
        const Token& number = Current();
        if (!IsNumberToken(number.kind)) SyntaxError(number);
        statement.retain_hours = ParseLiteral();
        ExpectKeyword("HOURS");
      }
      if (MatchKeyword("DRY")) {
        ExpectKeyword("RUN");
        statement.dry_run = true;
      }
      return statement;
    }
    if (keyword == "OPTIMIZE") {
      Advance();
      statement.kind = StatementKind::kOptimize;
      statement.name = ParseTableNameOrPath();
      if (MatchKeyword("FULL")) statement.extended = true;
      if (MatchKeyword("WHERE")) statement.where = ParseExpr();
      if (MatchKeyword("ZORDER")) {
        ExpectKeyword("BY");
        if (IsOperator(Current(), "(")) {
          statement.column_names = ParseIdentifierList();
        } else {
          statement.column_names.push_back(ParseIdentifier());
          while (MatchOperator(",")) statement.column_names.push_back(ParseIdentifier());
        }
      }
      return statement;
    }
    if (keyword == "REORG") {
      // Delta's REORG TABLE t [WHERE partition_predicate] APPLY (PURGE): an OPTIMIZE that
      // rewrites the files holding soft-deleted data.
      Advance();
      ExpectKeyword("TABLE");
      statement.kind = StatementKind::kOptimize;
      statement.apply_purge = true;
      statement.name = ParseTableNameOrPath();
      if (MatchKeyword("WHERE")) statement.where = ParseExpr();
      ExpectKeyword("APPLY");
      ExpectOperator("(");
      if (IsKeyword(Current(), "UPGRADE")) {
        SILT_THROW(NOT_IMPLEMENTED, {{"feature", "REORG TABLE ... APPLY (UPGRADE UNIFORM ...)"}});
      }
      ExpectKeyword("PURGE");
      ExpectOperator(")");
      return statement;
    }
    if (keyword == "CONVERT") {
      Advance();
      ExpectKeyword("TO");
      ExpectKeyword("DELTA");
      statement.kind = StatementKind::kConvertToDelta;
      statement.name = ParseQualifiedName();
      if (MatchKeywords({"NO", "STATISTICS"}))
        statement.properties.emplace_back("statistics", "false");
      if (MatchKeywords({"PARTITIONED", "BY"})) {
        ExpectOperator("(");
        do {
          ColumnDefinition column;
          column.name = ParseIdentifier();
          column.type = ParseType();
          statement.columns.push_back(std::move(column));
        } while (MatchOperator(","));
        ExpectOperator(")");
      }
      return statement;
    }
    SyntaxError(token);
  }

  std::vector<Assignment> ParseAssignments() {
    std::vector<Assignment> assignments;
    do {
      Assignment assignment;
      assignment.column = ParseQualifiedName();
      ExpectOperator("=");
      assignment.value = ParseExpr();
      assignments.push_back(std::move(assignment));
    } while (MatchOperator(","));
    return assignments;
  }

  Statement ParseCreate() {
    Advance();  // CREATE
    Statement statement;
    if (IsKeyword(Current(), "STREAMING") ||
        (IsKeyword(Current(), "OR") && IsKeyword(Peek(1), "REFRESH"))) {
      if (MatchKeywords({"OR", "REFRESH"})) statement.or_replace = true;
      ExpectKeyword("STREAMING");
      ExpectKeyword("TABLE");
      ParseCreateTableRest(statement);
      statement.kind = StatementKind::kCreateStreamingTable;
      // FLOW AUTO CDC FROM ...: the table fed by an AUTO CDC flow of its own name.
      if (!statement.query && IsKeyword(Current(), "FLOW") &&
          (IsKeyword(Peek(1), "AUTO") || IsKeyword(Peek(1), "APPLY"))) {
        const Token& flow = Advance();
        Statement body = ParseAutoCdc(&statement.name);
        body.position = flow.position;
        statement.flow_body = std::make_shared<Statement>(std::move(body));
      }
      // Without AS the table is fed by flows (CREATE FLOW ... AS AUTO CDC INTO t ...).
      return statement;
    }
    if (MatchKeyword("FLOW")) return ParseCreateFlow();
    if (MatchKeywords({"OR", "REPLACE"})) statement.or_replace = true;
    MatchKeyword("GLOBAL");
    if (MatchKeyword("TEMP") || MatchKeyword("TEMPORARY")) statement.temporary = true;
    if (MatchKeyword("VIEW")) {
      statement.kind = StatementKind::kCreateView;
      if (MatchKeywords({"IF", "NOT", "EXISTS"})) statement.if_not_exists = true;
      statement.name = ParseQualifiedName();
      if (MatchOperator("(")) {
        do {
          ColumnDefinition column;
          column.name = ParseIdentifier();
          if (MatchKeyword("COMMENT")) column.comment = ParseStringLiteral();
          statement.column_names.push_back(column.name);
          statement.columns.push_back(std::move(column));
        } while (MatchOperator(","));
        ExpectOperator(")");
      }
      while (true) {
        if (!statement.comment && MatchKeyword("COMMENT")) {
          statement.comment = ParseStringLiteral();
        } else if (statement.properties.empty() && MatchKeyword("TBLPROPERTIES")) {
          statement.properties = ParseProperties();
        } else {
          break;
        }
      }
      ExpectKeyword("AS");
      ParseViewQuery(statement);
      return statement;
    }
    if (statement.temporary) SyntaxError(Current());
    if (MatchKeyword("DATABASE") || MatchKeyword("SCHEMA")) {
      if (statement.or_replace) SyntaxError(tokens_[index_ - 1]);
      statement.kind = StatementKind::kCreateDatabase;
      if (MatchKeywords({"IF", "NOT", "EXISTS"})) statement.if_not_exists = true;
      statement.name = ParseQualifiedName();
      while (true) {
        if (MatchKeyword("COMMENT")) {
          statement.comment = ParseStringLiteral();
        } else if (MatchKeyword("LOCATION")) {
          statement.location = ParseStringLiteral();
        } else if (MatchKeywords({"WITH", "DBPROPERTIES"})) {
          statement.properties = ParseProperties();
        } else {
          break;
        }
      }
      return statement;
    }
    MatchKeyword("EXTERNAL");
    ExpectKeyword("TABLE");
    ParseCreateTableRest(statement);
    return statement;
  }

  void ParseViewQuery(Statement& statement) {
    size_t start = Current().position.offset;
    statement.query = ParseQuery();
    statement.query_text = std::string(sql_.substr(start, last_end_offset_ - start));
  }

  void ParseCreateTableRest(Statement& statement) {
    statement.kind = StatementKind::kCreateTable;
    if (MatchKeywords({"IF", "NOT", "EXISTS"})) statement.if_not_exists = true;
    statement.name = ParseQualifiedName();
    if (IsKeyword(Current(), "SHALLOW") || IsKeyword(Current(), "DEEP") ||
        IsKeyword(Current(), "CLONE")) {
      ParseCloneRest(statement);
      return;
    }
    if (IsOperator(Current(), "(") && !StartsQuery(1)) {
      Advance();
      do {
        if (IsKeyword(Current(), "CONSTRAINT")) {
          Advance();
          CheckConstraint constraint;
          constraint.name = ParseIdentifier();
          ExpectKeyword("CHECK");
          ExpectOperator("(");
          constraint.check = ParseExpr();
          ExpectOperator(")");
          statement.constraints.push_back(std::move(constraint));
        } else {
          statement.columns.push_back(ParseColumnDefinition());
        }
      } while (MatchOperator(","));
      ExpectOperator(")");
    }
    SourcePosition cluster_position;
    while (true) {
      if (MatchKeyword("USING")) {
        statement.provider = ParseIdentifier();
      } else if (MatchKeywords({"PARTITIONED", "BY"})) {
        ExpectOperator("(");
        do {
          std::string column = ParseIdentifier();
          if (Current().kind == TokenKind::kIdentifier && !IsOperator(Current(), ",")) {
            // Hive-style `PARTITIONED BY (p INT)` also declares the column.
            ColumnDefinition definition;
            definition.name = column;
            definition.type = ParseType();
            statement.columns.push_back(std::move(definition));
          }
          statement.partition_columns.push_back(std::move(column));
        } while (MatchOperator(","));
        ExpectOperator(")");
      } else if (IsKeyword(Current(), "CLUSTER") && IsKeyword(Peek(1), "BY")) {
        const Token& cluster = Current();
        cluster_position = cluster.position;
        Advance();
        Advance();
        statement.cluster_columns = ParseClusterColumns();
        if (statement.cluster_columns->empty()) SyntaxError(cluster);
      } else if (MatchKeyword("LOCATION")) {
        statement.location = ParseStringLiteral();
      } else if (MatchKeyword("COMMENT")) {
        statement.comment = ParseStringLiteral();
      } else if (MatchKeyword("TBLPROPERTIES")) {
        statement.properties = ParseProperties();
      } else {
        break;
      }
    }
    if (statement.cluster_columns && !statement.partition_columns.empty()) {
      throw MakeError(ErrorClass::DELTA_CLUSTER_BY_WITH_PARTITIONED_BY, {})
          .WithContext(FormatPosition(cluster_position));
    }
    if (MatchKeyword("AS")) {
      statement.query = ParseQuery();
    } else if (StartsQuery(0)) {
      statement.query = ParseQuery();
    }
  }

  // Delta's `SHALLOW CLONE source [VERSION|TIMESTAMP AS OF ...] [TBLPROPERTIES (...)]
  // [LOCATION '...']` after CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name.
  void ParseCloneRest(Statement& statement) {
    if (IsKeyword(Current(), "DEEP") || IsKeyword(Current(), "CLONE")) {
      SILT_THROW(NOT_IMPLEMENTED, {{"feature", "DEEP CLONE (SHALLOW CLONE is)"}});
    }
    ExpectKeyword("SHALLOW");
    ExpectKeyword("CLONE");
    auto source = std::make_shared<TableReference>();
    source->kind = TableReferenceKind::kTable;
    source->position = Current().position;
    source->name = ParseTableNameOrPath();
    if (StartsTimeTravel()) source->time_travel = ParseTimeTravelSpec();
    statement.source = std::move(source);
    while (true) {
      if (statement.properties.empty() && MatchKeyword("TBLPROPERTIES")) {
        statement.properties = ParseProperties();
      } else if (!statement.location && MatchKeyword("LOCATION")) {
        statement.location = ParseStringLiteral();
      } else {
        break;
      }
    }
  }

  // CLUSTER BY's `(c, s.f, ...)` after the keywords, or NONE (no columns).
  std::vector<QualifiedName> ParseClusterColumns() {
    std::vector<QualifiedName> columns;
    if (MatchKeyword("NONE")) return columns;
    ExpectOperator("(");
    do {
      columns.push_back(ParseQualifiedName());
    } while (MatchOperator(","));
    ExpectOperator(")");
    return columns;
  }

  int64_t ParseIdentityNumber() {
    const Token& token = Current();
    // A negative START or INCREMENT (a descending identity column) is a minus sign and a literal.
    bool negative = MatchOperator("-");
    ExpressionPtr literal = ParseLiteral();
    int64_t value = 0;
    const std::string text = (negative ? "-" : "") + literal->text;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    bool integral = literal->literal_kind == LiteralKind::kInteger ||
                    literal->literal_kind == LiteralKind::kBigint;
    if (!integral || error != std::errc() || end != text.data() + text.size()) SyntaxError(token);
    return value;
  }

  // `nested`: the name may be a path to a nested field (ALTER TABLE ADD COLUMNS).
  ColumnDefinition ParseColumnDefinition(bool nested = false) {
    ColumnDefinition column;
    column.name = ParseIdentifier();
    while (nested && MatchOperator(".")) {
      column.parent_path.push_back(std::move(column.name));
      column.name = ParseIdentifier();
    }
    column.type = ParseType();
    while (true) {
      if (MatchKeywords({"NOT", "NULL"})) {
        column.nullable = false;
      } else if (MatchKeyword("GENERATED")) {
        bool always = MatchKeyword("ALWAYS");
        if (!always) {
          ExpectKeyword("BY");
          ExpectKeyword("DEFAULT");
        }
        ExpectKeyword("AS");
        if (MatchKeyword("IDENTITY")) {
          // Delta identity columns: GENERATED ALWAYS|BY DEFAULT AS IDENTITY
          // [(START WITH n INCREMENT BY m)], either part optional.
          IdentitySpec identity;
          identity.always = always;
          if (MatchOperator("(")) {
            while (!IsOperator(Current(), ")")) {
              if (MatchKeywords({"START", "WITH"})) {
                identity.start = ParseIdentityNumber();
              } else if (MatchKeywords({"INCREMENT", "BY"})) {
                identity.step = ParseIdentityNumber();
              } else {
                SyntaxError(Current());
              }
            }
            ExpectOperator(")");
          }
          column.identity = identity;
        } else {
          if (!always) SyntaxError(Current());
          ExpectOperator("(");
          column.generated_as = ParseExpr();
          ExpectOperator(")");
        }
      } else if (MatchKeyword("DEFAULT")) {
        column.default_value = ParseExpr();
      } else if (MatchKeyword("COMMENT")) {
        column.comment = ParseStringLiteral();
      } else {
        return column;
      }
    }
  }

  // A property key or value string is one literal (Spark's propertyKey uses a single stringLit,
  // so `'k' 'v'` is a key and a value, not one concatenated key).
  std::string ParsePropertyKey() {
    if (Current().kind == TokenKind::kString) return Advance().text;
    std::string key = ParseAnyIdentifier();
    while (MatchOperator(".")) key += "." + ParseAnyIdentifier();
    return key;
  }

  // A property or option value: a string, a number or a boolean literal, as text.
  std::string ParseOptionValue() {
    const Token& value = Current();
    if (value.kind == TokenKind::kString) return Advance().text;
    if (IsNumberToken(value.kind) || (IsOperator(value, "-") && IsNumberToken(Peek(1).kind))) {
      return ParseLiteral()->text;
    }
    if (IsKeyword(value, "TRUE") || IsKeyword(value, "FALSE")) {
      return IsKeyword(Advance(), "TRUE") ? "true" : "false";
    }
    SyntaxError(value);
  }

  std::vector<std::pair<std::string, std::string>> ParseProperties() {
    std::vector<std::pair<std::string, std::string>> properties;
    ExpectOperator("(");
    do {
      std::string key = ParsePropertyKey();
      MatchOperator("=");
      properties.emplace_back(std::move(key), ParseOptionValue());
    } while (MatchOperator(","));
    ExpectOperator(")");
    return properties;
  }

  Statement ParseDrop() {
    Advance();
    Statement statement;
    if (MatchKeyword("TABLE")) {
      statement.kind = StatementKind::kDropTable;
    } else if (MatchKeyword("VIEW")) {
      statement.kind = StatementKind::kDropView;
    } else if (MatchKeyword("DATABASE") || MatchKeyword("SCHEMA")) {
      statement.kind = StatementKind::kDropDatabase;
    } else {
      SyntaxError(Current());
    }
    if (MatchKeywords({"IF", "EXISTS"})) statement.if_exists = true;
    statement.name = ParseQualifiedName();
    if (statement.kind == StatementKind::kDropDatabase) {
      if (!MatchKeyword("RESTRICT") && MatchKeyword("CASCADE")) statement.extended = true;
    } else {
      MatchKeyword("PURGE");
    }
    return statement;
  }

  Statement ParseInsert() {
    Advance();
    Statement statement;
    statement.kind = StatementKind::kInsert;
    // Spark 4.2's INSERT WITH SCHEMA EVOLUTION INTO | OVERWRITE.
    if (MatchKeywords({"WITH", "SCHEMA", "EVOLUTION"})) statement.schema_evolution = true;
    if (MatchKeyword("OVERWRITE")) {
      statement.overwrite = true;
    } else {
      ExpectKeyword("INTO");
    }
    MatchKeyword("TABLE");
    statement.name = ParseTableNameOrPath();
    if (MatchKeyword("PARTITION")) {
      ExpectOperator("(");
      do {
        std::string column = ParseIdentifier();
        ExpressionPtr value;
        if (MatchOperator("=")) value = ParseExpr();
        statement.insert_partitions.emplace_back(std::move(column), std::move(value));
      } while (MatchOperator(","));
      ExpectOperator(")");
      if (MatchKeyword("IF")) {
        ExpectKeyword("NOT");
        ExpectKeyword("EXISTS");
        statement.if_not_exists = true;
      }
    }
    if (MatchKeywords({"BY", "NAME"})) {
      statement.by_name = true;
    } else if (IsOperator(Current(), "(") && !StartsQuery(1)) {
      statement.column_names = ParseIdentifierList();
    }
    if (statement.insert_partitions.empty() && !statement.by_name &&
        MatchKeywords({"REPLACE", "WHERE"})) {
      statement.replace_where = ParseExpr();
    }
    statement.query = ParseQuery();
    return statement;
  }

  // CREATE FLOW name [COMMENT '...'] AS { AUTO CDC INTO | APPLY CHANGES INTO | MERGE INTO |
  // INSERT INTO t BY NAME query }; CREATE FLOW is consumed.
  Statement ParseCreateFlow() {
    Statement statement;
    statement.kind = StatementKind::kCreateFlow;
    statement.name = ParseQualifiedName();
    if (MatchKeyword("COMMENT")) statement.comment = ParseStringLiteral();
    ExpectKeyword("AS");
    const Token& first = Current();
    Statement body;
    if (IsKeyword(first, "AUTO") || IsKeyword(first, "APPLY")) {
      body = ParseAutoCdc();
    } else if (IsKeyword(first, "MERGE")) {
      body = ParseMerge();
    } else if (IsKeyword(first, "INSERT")) {
      Advance();
      ExpectKeyword("INTO");
      MatchKeyword("TABLE");
      body.kind = StatementKind::kInsert;
      body.name = ParseTableNameOrPath();
      // A flow appends by name, as Databricks' append flows do.
      ExpectKeyword("BY");
      ExpectKeyword("NAME");
      body.query = ParseQuery();
    } else {
      SyntaxError(first);
    }
    body.position = first.position;
    body.source_text =
        std::string(sql_.substr(first.position.offset, last_end_offset_ - first.position.offset));
    statement.flow_body = std::make_shared<Statement>(std::move(body));
    return statement;
  }

  // AUTO CDC INTO t / APPLY CHANGES INTO t, up to its end; with `target` (a streaming table's
  // FLOW AUTO CDC) there is no INTO and the target is `*target`.
  Statement ParseAutoCdc(const QualifiedName* target = nullptr) {
    Statement statement;
    statement.kind = StatementKind::kAutoCdc;
    auto cdc = std::make_shared<AutoCdc>();
    if (MatchKeyword("APPLY")) {
      ExpectKeyword("CHANGES");
      cdc->apply_changes_spelling = true;
    } else {
      ExpectKeyword("AUTO");
      ExpectKeyword("CDC");
    }
    if (target != nullptr) {
      statement.name = *target;
    } else {
      ExpectKeyword("INTO");
      statement.name = ParseTableNameOrPath();
    }
    ExpectKeyword("FROM");
    in_auto_cdc_source_ = true;
    try {
      cdc->source = ParseTablePrimary();
    } catch (...) {
      in_auto_cdc_source_ = false;
      throw;
    }
    in_auto_cdc_source_ = false;
    ExpectKeyword("KEYS");
    cdc->keys = ParseIdentifierList();
    if (MatchKeywords({"IGNORE", "NULL", "UPDATES"})) cdc->ignore_null_updates = true;
    while (IsKeyword(Current(), "APPLY") && IsKeyword(Peek(1), "AS")) {
      Advance();
      Advance();
      bool truncate = MatchKeyword("TRUNCATE");
      if (!truncate) ExpectKeyword("DELETE");
      ExpectKeyword("WHEN");
      ExpressionPtr& slot = truncate ? cdc->apply_as_truncate : cdc->apply_as_delete;
      if (slot) SyntaxError(tokens_[index_ - 1]);
      slot = ParseExpr();
    }
    ExpectKeyword("SEQUENCE");
    ExpectKeyword("BY");
    cdc->sequence_by = ParseExpr();
    if (MatchKeyword("COLUMNS")) cdc->columns = ParseColumnSelection();
    if (MatchKeyword("STORED")) {
      ExpectKeyword("AS");
      ExpectKeyword("SCD");
      ExpectKeyword("TYPE");
      const Token& number = Current();
      if (number.kind != TokenKind::kInteger || (number.text != "1" && number.text != "2")) {
        SyntaxError(number);
      }
      cdc->scd_type = number.text == "1" ? 1 : 2;
      Advance();
    }
    if (MatchKeywords({"TRACK", "HISTORY", "ON"})) cdc->track_history = ParseColumnSelection();
    statement.auto_cdc = std::move(cdc);
    return statement;
  }

  // `*`, `* EXCEPT (a, b)`, `(a, b)` or `a, b`.
  ColumnSelection ParseColumnSelection() {
    ColumnSelection selection;
    if (MatchOperator("*")) {
      if (MatchKeyword("EXCEPT")) selection.columns = ParseIdentifierList();
      return selection;
    }
    selection.all = false;
    if (IsOperator(Current(), "(")) {
      selection.columns = ParseIdentifierList();
      return selection;
    }
    selection.columns.push_back(ParseIdentifier());
    while (MatchOperator(",")) selection.columns.push_back(ParseIdentifier());
    return selection;
  }

  Statement ParseMerge() {
    const Token& merge = Advance();
    Statement statement;
    statement.kind = StatementKind::kMerge;
    if (MatchKeyword("WITH")) {
      ExpectKeyword("SCHEMA");
      ExpectKeyword("EVOLUTION");
      statement.schema_evolution = true;
    }
    ExpectKeyword("INTO");
    statement.target = ParseDmlTarget();
    ExpectKeyword("USING");
    statement.source = ParseTablePrimary();
    ExpectKeyword("ON");
    statement.condition = ParseExpr();
    while (IsKeyword(Current(), "WHEN")) statement.merge_clauses.push_back(ParseMergeClause());
    if (statement.merge_clauses.empty()) {
      if (Current().kind != TokenKind::kEnd && !IsOperator(Current(), ";")) SyntaxError(Current());
      throw MakeError(ErrorClass::DELTA_MERGE_MISSING_WHEN, {})
          .WithContext(FormatPosition(merge.position));
    }
    return statement;
  }

  MergeClause ParseMergeClause() {
    MergeClause clause;
    clause.position = Advance().position;  // WHEN
    if (MatchKeyword("MATCHED")) {
      clause.match = MergeMatch::kMatched;
    } else {
      ExpectKeyword("NOT");
      ExpectKeyword("MATCHED");
      clause.match = MergeMatch::kNotMatchedByTarget;
      if (MatchKeyword("BY")) {
        if (MatchKeyword("SOURCE")) {
          clause.match = MergeMatch::kNotMatchedBySource;
        } else {
          ExpectKeyword("TARGET");
        }
      }
    }
    if (MatchKeyword("AND")) clause.condition = ParseExpr();
    ExpectKeyword("THEN");
    const Token& action = Current();
    if (clause.match != MergeMatch::kNotMatchedByTarget) {
      if (MatchKeyword("DELETE")) {
        clause.action = MergeAction::kDelete;
      } else if (MatchKeyword("UPDATE")) {
        ExpectKeyword("SET");
        if (clause.match == MergeMatch::kMatched && MatchOperator("*")) {
          clause.action = MergeAction::kUpdateStar;
        } else {
          clause.action = MergeAction::kUpdate;
          clause.assignments = ParseAssignments();
        }
      } else {
        SyntaxError(action);
      }
      return clause;
    }
    ExpectKeyword("INSERT");
    if (MatchOperator("*")) {
      clause.action = MergeAction::kInsertStar;
      return clause;
    }
    clause.action = MergeAction::kInsert;
    if (MatchOperator("(")) {
      do {
        clause.insert_columns.push_back(ParseQualifiedName());
      } while (MatchOperator(","));
      ExpectOperator(")");
    }
    ExpectKeyword("VALUES");
    ExpectOperator("(");
    clause.insert_values.push_back(ParseExpr());
    while (MatchOperator(",")) clause.insert_values.push_back(ParseExpr());
    ExpectOperator(")");
    return clause;
  }

  Statement ParseAlter() {
    Advance();
    if (MatchKeyword("VIEW")) {
      // ALTER VIEW v AS query: the view's new query, keeping its comment and properties.
      Statement statement;
      statement.kind = StatementKind::kCreateView;
      statement.replace = true;
      statement.name = ParseQualifiedName();
      ExpectKeyword("AS");
      ParseViewQuery(statement);
      return statement;
    }
    ExpectKeyword("TABLE");
    Statement statement;
    statement.kind = StatementKind::kAlterTable;
    statement.name = ParseTableNameOrPath();
    const Token& action = Current();
    if (MatchKeywords({"SET", "TBLPROPERTIES"})) {
      statement.alter_action = AlterTableAction::kSetProperties;
      statement.properties = ParseProperties();
    } else if (MatchKeywords({"UNSET", "TBLPROPERTIES"})) {
      statement.alter_action = AlterTableAction::kUnsetProperties;
      if (MatchKeywords({"IF", "EXISTS"})) statement.if_exists = true;
      ExpectOperator("(");
      do {
        statement.property_keys.push_back(ParsePropertyKey());
      } while (MatchOperator(","));
      ExpectOperator(")");
    } else if (MatchKeyword("ADD")) {
      if (MatchKeyword("CONSTRAINT")) {
        statement.alter_action = AlterTableAction::kAddConstraint;
        CheckConstraint constraint;
        constraint.name = ParseIdentifier();
        ExpectKeyword("CHECK");
        ExpectOperator("(");
        constraint.check = ParseExpr();
        ExpectOperator(")");
        statement.constraints.push_back(std::move(constraint));
      } else if (MatchKeyword("COLUMNS") || MatchKeyword("COLUMN")) {
        statement.alter_action = AlterTableAction::kAddColumns;
        bool parenthesised = MatchOperator("(");
        do {
          statement.columns.push_back(ParseColumnDefinition(/*nested=*/true));
          if (MatchKeyword("FIRST")) {
            statement.columns.back().position = "";
          } else if (MatchKeyword("AFTER")) {
            statement.columns.back().position = ParseIdentifier();
          }
        } while (MatchOperator(","));
        if (parenthesised) ExpectOperator(")");
      } else {
        SyntaxError(Current());
      }
    } else if (MatchKeyword("DROP")) {
      if (MatchKeyword("CONSTRAINT")) {
        statement.alter_action = AlterTableAction::kDropConstraint;
        if (MatchKeywords({"IF", "EXISTS"})) statement.if_exists = true;
        statement.constraint_name = ParseIdentifier();
      } else if (MatchKeyword("FEATURE")) {
        statement.alter_action = AlterTableAction::kDropFeature;
        statement.feature_name =
            Current().kind == TokenKind::kString ? ParseStringLiteral() : ParseIdentifier();
        if (MatchKeywords({"TRUNCATE", "HISTORY"})) statement.truncate_history = true;
      } else if (MatchKeyword("COLUMNS") || MatchKeyword("COLUMN")) {
        statement.alter_action = AlterTableAction::kDropColumns;
        if (MatchKeywords({"IF", "EXISTS"})) statement.if_exists = true;
        bool parenthesised = MatchOperator("(");
        do {
          statement.column_paths.push_back(ParseQualifiedName());
        } while (MatchOperator(","));
        if (parenthesised) ExpectOperator(")");
      } else {
        SyntaxError(Current());
      }
    } else if (MatchKeywords({"CLUSTER", "BY"})) {
      statement.alter_action = AlterTableAction::kClusterBy;
      statement.cluster_columns = ParseClusterColumns();
    } else if (MatchKeywords({"RENAME", "COLUMN"})) {
      statement.alter_action = AlterTableAction::kRenameColumn;
      statement.column_path = ParseQualifiedName();
      ExpectKeyword("TO");
      statement.new_name = ParseIdentifier();
    } else if (MatchKeyword("ALTER") || MatchKeyword("CHANGE")) {
      MatchKeyword("COLUMN");
      statement.alter_action = AlterTableAction::kAlterColumn;
      statement.column_path = ParseQualifiedName();
      if (MatchKeyword("TYPE")) {
        statement.alter_column_change = "TYPE";
        ColumnDefinition column;
        column.name = statement.column_path.back();
        column.type = ParseType();
        statement.columns.push_back(std::move(column));
      } else if (MatchKeywords({"SET", "NOT", "NULL"})) {
        statement.alter_column_change = "SET NOT NULL";
      } else if (MatchKeywords({"DROP", "NOT", "NULL"})) {
        statement.alter_column_change = "DROP NOT NULL";
      } else if (MatchKeywords({"SET", "DEFAULT"})) {
        statement.alter_column_change = "SET DEFAULT";
        ColumnDefinition column;
        column.name = statement.column_path.back();
        column.default_value = ParseExpr();
        statement.columns.push_back(std::move(column));
      } else if (MatchKeywords({"DROP", "DEFAULT"})) {
        statement.alter_column_change = "DROP DEFAULT";
      } else if (MatchKeyword("COMMENT")) {
        statement.alter_column_change = "COMMENT";
        statement.comment = ParseStringLiteral();
      } else if (MatchKeyword("FIRST")) {
        statement.alter_column_change = "FIRST";
      } else if (MatchKeyword("AFTER")) {
        statement.alter_column_change = "AFTER";
        statement.new_name = ParseIdentifier();
      } else {
        SyntaxError(Current());
      }
    } else {
      SyntaxError(action);
    }
    return statement;
  }

  // True when the token after DETAIL/HEALTH/HISTORY/EXTENDED continues with a table, so that a table
  // literally named `detail` still works (`DESCRIBE detail`).
  bool FollowedByTableName(size_t ahead) const {
    const Token& token = Peek(ahead);
    return IsIdentifierToken(token) || token.kind == TokenKind::kString;
  }

  Statement ParseDescribe() {
    Advance();
    Statement statement;
    if (IsKeyword(Current(), "DETAIL") && FollowedByTableName(1)) {
      Advance();
      statement.kind = StatementKind::kDescribeDetail;
      statement.name = ParseTableNameOrPath();
      return statement;
    }
    if (IsKeyword(Current(), "HEALTH") && FollowedByTableName(1)) {
      Advance();
      statement.kind = StatementKind::kDescribeHealth;
      statement.name = ParseTableNameOrPath();
      return statement;
    }
    if (IsKeyword(Current(), "HISTORY") && FollowedByTableName(1)) {
      Advance();
      statement.kind = StatementKind::kDescribeHistory;
      statement.name = ParseTableNameOrPath();
      if (MatchKeyword("LIMIT")) {
        const Token& number = Current();
        if (!IsNumberToken(number.kind)) SyntaxError(number);
        statement.limit = ParseLiteral();
      }
      return statement;
    }
    statement.kind = StatementKind::kDescribeTable;
    if (IsKeyword(Current(), "TABLE") && FollowedByTableName(1)) Advance();
    if ((IsKeyword(Current(), "EXTENDED") || IsKeyword(Current(), "FORMATTED")) &&
        FollowedByTableName(1)) {
      Advance();
      statement.extended = true;
    }
    statement.name = ParseTableNameOrPath();
    return statement;
  }

  Statement ParseShow() {
    Advance();
    Statement statement;
    if (MatchKeyword("TABLES") || MatchKeyword("VIEWS")) {
      statement.kind = IsKeyword(tokens_[index_ - 1], "VIEWS") ? StatementKind::kShowViews
                                                               : StatementKind::kShowTables;
      if (MatchKeyword("IN") || MatchKeyword("FROM")) statement.name = ParseQualifiedName();
      if (MatchKeyword("LIKE") || Current().kind == TokenKind::kString) {
        statement.pattern = ParseStringLiteral();
      }
    } else if (MatchKeyword("DATABASES") || MatchKeyword("SCHEMAS")) {
      statement.kind = StatementKind::kShowDatabases;
      if (MatchKeyword("LIKE") || Current().kind == TokenKind::kString) {
        statement.pattern = ParseStringLiteral();
      }
    } else if (MatchKeyword("TBLPROPERTIES")) {
      statement.kind = StatementKind::kShowTableProperties;
      statement.name = ParseTableNameOrPath();
      if (MatchOperator("(")) {
        statement.property_keys.push_back(ParsePropertyKey());
        ExpectOperator(")");
      }
    } else if (MatchKeywords({"CREATE", "TABLE"})) {
      statement.kind = StatementKind::kShowCreateTable;
      statement.name = ParseTableNameOrPath();
    } else if (MatchKeyword("COLUMNS")) {
      statement.kind = StatementKind::kShowColumns;
      if (!MatchKeyword("IN")) ExpectKeyword("FROM");
      statement.name = ParseTableNameOrPath();
      if (MatchKeyword("IN") || MatchKeyword("FROM")) {
        // `SHOW COLUMNS IN t IN db` is `db.t`.
        QualifiedName database = ParseQualifiedName();
        database.insert(database.end(), statement.name.begin(), statement.name.end());
        statement.name = std::move(database);
      }
    } else {
      SyntaxError(Current());
    }
    return statement;
  }

  // Spark reads SET/RESET operands as raw text: `SET spark.sql.shuffle.partitions = 4`.
  Statement ParseSetOrReset(bool is_set) {
    Advance();
    Statement statement;
    statement.kind = is_set ? StatementKind::kSet : StatementKind::kReset;
    size_t start = index_;
    std::optional<size_t> equals_index;
    while (Current().kind != TokenKind::kEnd && !IsOperator(Current(), ";")) {
      if (is_set && !equals_index && IsOperator(Current(), "=")) equals_index = index_;
      Advance();
    }
    if (equals_index) {
      if (*equals_index == start) SyntaxError(tokens_[start]);  // `SET = x` has no key.
      statement.key = RawText(start, *equals_index);
      statement.value = RawText(*equals_index + 1, index_);
    } else {
      statement.key = RawText(start, index_);
    }
    return statement;
  }

  // The source text of tokens [first, last), with each gap that holds a comment reduced to one
  // space, so that the text means the same when printed into a statement again.
  std::string RawText(size_t first, size_t last) const {
    std::string text;
    for (size_t i = first; i < last; ++i) {
      const Token& token = tokens_[i];
      if (i > first) {
        size_t gap_start = tokens_[i - 1].end_offset;
        std::string_view gap = sql_.substr(gap_start, token.position.offset - gap_start);
        bool has_comment =
            gap.find("--") != std::string_view::npos || gap.find("/*") != std::string_view::npos;
        text += has_comment ? std::string(" ") : std::string(gap);
      }
      text += sql_.substr(token.position.offset, token.end_offset - token.position.offset);
    }
    return text;
  }

  std::string_view sql_;
  std::vector<Token> tokens_;
  size_t index_ = 0;
  size_t last_end_offset_ = 0;
  // While parsing the source of AUTO CDC: KEYS ends it rather than naming an alias.
  bool in_auto_cdc_source_ = false;
  int depth_ = 0;
};

}  // namespace

std::vector<std::vector<ExpressionPtr>> ExpandGroupingAnalytics(
    const GroupingAnalytics& analytics) {
  using Kind = GroupingAnalytics::Kind;
  auto too_many = [&]() {
    throw MakeError(ErrorClass::GROUPING_SIZE_LIMIT_EXCEEDED,
                    {{"maxSize", std::to_string(kMaxGroupingSets)}})
        .WithContext(FormatPosition(analytics.position));
  };
  std::vector<std::vector<ExpressionPtr>> sets;
  const std::vector<std::vector<ExpressionPtr>>& groups = analytics.groups;
  switch (analytics.kind) {
    case Kind::kGroupingSets:
      sets = groups;
      break;
    case Kind::kRollup:
      // (g1, ..., gn), (g1, ..., gn-1), ..., ().
      if (groups.size() + 1 > kMaxGroupingSets) too_many();
      for (size_t n = groups.size() + 1; n-- > 0;) {
        std::vector<ExpressionPtr> set;
        for (size_t g = 0; g < n; ++g) set.insert(set.end(), groups[g].begin(), groups[g].end());
        sets.push_back(std::move(set));
      }
      break;
    case Kind::kCube: {
      // Every subset, in Spark's order: those with the first group, then those without it.
      if (groups.size() >= 63 || (size_t{1} << groups.size()) > kMaxGroupingSets) too_many();
      size_t count = size_t{1} << groups.size();
      for (size_t mask = 0; mask < count; ++mask) {
        std::vector<ExpressionPtr> set;
        for (size_t g = 0; g < groups.size(); ++g) {
          // Bit (n-1-g) of the complement: the first group is kept in the first half.
          if (((count - 1 - mask) >> (groups.size() - 1 - g)) & 1) {
            set.insert(set.end(), groups[g].begin(), groups[g].end());
          }
        }
        sets.push_back(std::move(set));
      }
      break;
    }
  }
  if (sets.size() > kMaxGroupingSets) too_many();
  return sets;
}

std::vector<Statement> ParseStatements(std::string_view sql) { return Parser(sql).ParseScript(); }

Statement ParseStatement(std::string_view sql) { return Parser(sql).ParseSingleStatement(); }

ExpressionPtr ParseExpression(std::string_view sql) {
  return Parser(sql).ParseStandaloneExpression();
}

DataTypePtr ParseDataType(std::string_view sql) { return Parser(sql).ParseStandaloneType(); }

}  // namespace silt::sql
