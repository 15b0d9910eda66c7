#include "silt/sql/expression_binder.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <optional>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/exec/aggregate_function.h"
#include "silt/exec/sort_window.h"
#include "silt/expr/cast.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/higher_order_functions.h"
#include "silt/expr/interval_functions.h"
#include "silt/expr/operator_functions.h"
#include "silt/expr/type_coercion.h"
#include "silt/types/date_time.h"
#include "silt/vector/batch.h"

namespace silt::sql {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string QuotedTypeName(const DataTypePtr& type) { return "\"" + DataTypeSql(*type) + "\""; }

// `a`.`b`: each part back-quoted (inner back-quotes doubled), as Spark's toSQLId.
std::string SqlId(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) {
    if (!text.empty()) text += ".";
    text += "`";
    for (char c : part) {
      text += c;
      if (c == '`') text += '`';
    }
    text += "`";
  }
  return text;
}

[[noreturn]] void ThrowMismatch(const Expression& node, const std::string& message) {
  SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + ExpressionSql(node) + "\""}, {"message", message}});
}

bool IsGeneratorName(const std::string& name) {
  return name == "explode" || name == "explode_outer" || name == "posexplode" || name == "posexplode_outer" ||
         name == "inline" || name == "inline_outer" || name == "stack" || name == "json_tuple";
}

// Maps are neither comparable nor orderable in Spark, also inside structs and arrays.
bool ContainsMap(const DataType& type) {
  if (type.id() == TypeId::kMap) return true;
  if (!type.is_nested()) return false;
  for (const Field& field : type.fields()) {
    if (ContainsMap(*field.type)) return true;
  }
  return false;
}

// ---- Literals ----

template <typename T>
T ParseInteger(const std::string& text) {
  T value{};
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  while (end > begin && std::isalpha(static_cast<unsigned char>(end[-1]))) --end;  // L, S, Y suffixes
  auto [pointer, error] = std::from_chars(begin, end, value);
  SILT_CHECK(error == std::errc() && pointer == end, "the parser passed a malformed integer literal: " + text);
  return value;
}

// A decimal literal (`1.5`, `-0.25BD`, `5.321E2BD`): the digits with the scale they are written
// with, moved by the exponent. As in Spark, a negative scale becomes 0 (5E3BD is 5000) and the
// precision is at least the scale (0.001 is DECIMAL(3,3)).
expr::Scalar DecimalLiteral(const std::string& written) {
  std::string text = written;
  if (text.size() >= 2 && std::toupper(static_cast<unsigned char>(text.back())) == 'D' &&
      std::toupper(static_cast<unsigned char>(text[text.size() - 2])) == 'B') {
    text.resize(text.size() - 2);
  }
  bool negative = !text.empty() && text[0] == '-';
  if (negative || (!text.empty() && text[0] == '+')) text.erase(0, 1);
  auto out_of_range = [&written]() {
    return MakeError(ErrorClass::INVALID_NUMERIC_LITERAL_RANGE, {{"rawStrippedQualifier", written},
                                                                  {"typeName", "decimal"},
                                                                  {"minValue", "-" + std::string(38, '9')},
                                                                  {"maxValue", std::string(38, '9')}});
  };
  int64_t exponent = 0;
  if (size_t e = text.find_first_of("eE"); e != std::string::npos) {
    std::string exponent_text = text.substr(e + 1);
    text.resize(e);
    bool exponent_negative = !exponent_text.empty() && exponent_text[0] == '-';
    if (!exponent_text.empty() && (exponent_text[0] == '-' || exponent_text[0] == '+')) exponent_text.erase(0, 1);
    for (char c : exponent_text) {
      exponent = exponent * 10 + (c - '0');
      if (exponent > 100000) throw out_of_range();
    }
    if (exponent_negative) exponent = -exponent;
  }
  std::string digits;
  int64_t scale = 0;
  bool fraction = false;
  for (char c : text) {
    if (c == '.') {
      fraction = true;
      continue;
    }
    digits += c;
    if (fraction) ++scale;
  }
  scale -= exponent;
  if (scale < 0) {
    if (-scale > expr::kMaxDecimalPrecision) throw out_of_range();
    digits.append(static_cast<size_t>(-scale), '0');
    scale = 0;
  }
  size_t first = digits.find_first_not_of('0');
  std::string significant = first == std::string::npos ? "0" : digits.substr(first);
  int64_t precision = std::max(static_cast<int64_t>(significant.size()), scale);
  if (precision > expr::kMaxDecimalPrecision) throw out_of_range();
  Decimal128 unscaled = 0;
  for (char c : significant) unscaled = unscaled * 10 + (c - '0');
  if (negative) unscaled = -unscaled;
  return expr::Scalar::Decimal(unscaled, DecimalType(std::max<int>(static_cast<int>(precision), 1), static_cast<int>(scale)));
}

std::string HexToBytes(const std::string& hex) {
  std::string padded = hex.size() % 2 == 1 ? "0" + hex : hex;
  std::string bytes;
  auto nibble = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    return std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
  };
  for (size_t i = 0; i + 1 < padded.size(); i += 2) {
    bytes += static_cast<char>(nibble(padded[i]) * 16 + nibble(padded[i + 1]));
  }
  return bytes;
}

// ---- Intervals ----

std::string StripQuotes(const std::string& value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

int64_t UnitMicros(const std::string& unit) {
  if (unit == "WEEK") return 7 * kMicrosPerDay;
  if (unit == "DAY") return kMicrosPerDay;
  if (unit == "HOUR") return 3600 * kMicrosPerSecond;
  if (unit == "MINUTE") return 60 * kMicrosPerSecond;
  if (unit == "SECOND") return kMicrosPerSecond;
  if (unit == "MILLISECOND") return 1000;
  if (unit == "MICROSECOND") return 1;
  return 0;
}

[[noreturn]] void ThrowBadInterval(const std::string& value) {
  SILT_THROW(INVALID_TYPED_LITERAL, {{"valueType", "\"INTERVAL\""}, {"value", value}});
}

// Adds `value` (a number, seconds may have a fraction) of `unit` to `interval`.
void AddIntervalUnit(expr::IntervalValue& interval, const std::string& value, const std::string& unit) {
  char* end = nullptr;
  if (unit == "YEAR" || unit == "MONTH") {
    long long amount = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') ThrowBadInterval(value);
    interval.months += unit == "YEAR" ? amount * 12 : amount;
    interval.year_month = true;
    return;
  }
  int64_t micros_per_unit = UnitMicros(unit);
  if (micros_per_unit == 0) ThrowBadInterval(value + " " + unit);
  if (value.find('.') != std::string::npos) {
    double amount = std::strtod(value.c_str(), &end);
    if (*end != '\0') ThrowBadInterval(value);
    interval.micros += static_cast<int64_t>(std::llround(amount * static_cast<double>(micros_per_unit)));
  } else {
    long long amount = std::strtoll(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0') ThrowBadInterval(value);
    interval.micros += amount * micros_per_unit;
  }
  if (unit != "DAY" && unit != "WEEK") interval.days_only = false;
}

// `'d h:m:s.f'`-style values of `FROM TO` qualifiers (DAY TO SECOND, HOUR TO MINUTE, ...).
void AddIntervalRange(expr::IntervalValue& interval, const std::string& text, const std::string& from,
                      const std::string& to) {
  std::string value = text;
  bool negative = !value.empty() && value[0] == '-';
  if (negative || (!value.empty() && value[0] == '+')) value.erase(0, 1);
  if (from == "YEAR" && to == "MONTH") {
    size_t dash = value.find('-');
    if (dash == std::string::npos) ThrowBadInterval(text);
    expr::IntervalValue part;
    AddIntervalUnit(part, value.substr(0, dash), "YEAR");
    AddIntervalUnit(part, value.substr(dash + 1), "MONTH");
    interval.months += negative ? -part.months : part.months;
    interval.year_month = true;
    return;
  }
  static const char* const kOrder[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
  int first = -1;
  int last = -1;
  for (int i = 0; i < 4; ++i) {
    if (from == kOrder[i]) first = i;
    if (to == kOrder[i]) last = i;
  }
  if (first < 0 || last <= first) ThrowBadInterval(text);
  std::vector<std::string> fields;
  std::string current;
  for (char c : value) {
    if ((c == ' ' && first == 0 && fields.empty()) || c == ':') {
      fields.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  fields.push_back(current);
  if (static_cast<int>(fields.size()) != last - first + 1) ThrowBadInterval(text);
  expr::IntervalValue part;
  part.days_only = true;
  for (int i = first; i <= last; ++i) AddIntervalUnit(part, fields[i - first], kOrder[i]);
  interval.micros += negative ? -part.micros : part.micros;
  interval.days_only = false;
}

expr::IntervalValue ParseIntervalLiteral(const Expression& node) {
  expr::IntervalValue interval;
  interval.days_only = true;
  bool has_day_time = false;
  for (const auto& [written, unit] : node.interval_parts) {
    std::string value = StripQuotes(written);
    size_t to = unit.find(" TO ");
    if (unit.empty()) {
      // `INTERVAL '1 day 2 hours'`: value/unit pairs inside the string.
      std::vector<std::string> words;
      std::string word;
      for (char c : value + " ") {
        if (std::isspace(static_cast<unsigned char>(c))) {
          if (!word.empty()) words.push_back(word);
          word.clear();
        } else {
          word += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
      }
      if (words.empty() || words.size() % 2 != 0) ThrowBadInterval(written);
      for (size_t i = 0; i < words.size(); i += 2) {
        std::string part_unit = words[i + 1];
        if (part_unit.size() > 1 && part_unit.back() == 'S' && part_unit != "S") part_unit.pop_back();
        AddIntervalUnit(interval, words[i], part_unit);
        if (part_unit != "YEAR" && part_unit != "MONTH") has_day_time = true;
      }
    } else if (to != std::string::npos) {
      AddIntervalRange(interval, value, unit.substr(0, to), unit.substr(to + 4));
      if (unit.substr(0, to) != "YEAR") has_day_time = true;
    } else {
      AddIntervalUnit(interval, value, unit);
      if (unit != "YEAR" && unit != "MONTH") has_day_time = true;
    }
  }
  if (!has_day_time) interval.days_only = false;
  return interval;
}

// The interval literal `node` denotes, looking through unary signs; nullopt for other nodes.
std::optional<expr::IntervalValue> AsIntervalLiteral(const Expression& node) {
  if (node.kind == ExpressionKind::kLiteral && node.literal_kind == LiteralKind::kInterval) {
    return ParseIntervalLiteral(node);
  }
  if (node.kind == ExpressionKind::kUnary && (node.op == "-" || node.op == "+")) {
    auto inner = AsIntervalLiteral(*node.children[0]);
    if (inner && node.op == "-") {
      inner->months = -inner->months;
      inner->micros = -inner->micros;
    }
    return inner;
  }
  return std::nullopt;
}

// ---- Column resolution ----

size_t LevenshteinDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> previous(b.size() + 1);
  std::vector<size_t> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// Replaces the bound argument text in a function's "The <n> parameter requires ..., however
// \"<argument>\" has the type ..." message with the argument's SQL, as Spark names it.
std::string WithArgumentSql(const std::string& message, const Expression& call) {
  static const char* const kOrdinals[] = {"first", "second", "third"};
  size_t index = SIZE_MAX;
  for (size_t i = 0; i < 3; ++i) {
    if (message.rfind(std::string("The ") + kOrdinals[i] + " parameter", 0) == 0) index = i;
  }
  if (index == SIZE_MAX && message.rfind("The ", 0) == 0) {
    size_t number = std::strtoul(message.c_str() + 4, nullptr, 10);
    if (number > 3) index = number - 1;
  }
  const std::string open = ", however \"";
  const std::string close = "\" has the type ";
  size_t begin = message.find(open);
  size_t end = message.rfind(close);
  if (index >= call.children.size() || begin == std::string::npos || end == std::string::npos || end < begin) {
    return message;
  }
  begin += open.size();
  return message.substr(0, begin) + ExpressionSql(*call.children[index]) + message.substr(end);
}

// Wraps errors raised while binding `node` that carry no position yet: they get the node's
// position, and DATATYPE_MISMATCH is re-worded to name the node's SQL (the expression
// factories only know bound forms such as `#0`).
Error Positioned(const Error& error, const Expression& node) {
  if (!error.context().empty()) return error;
  if (error.error_class() == "DATATYPE_MISMATCH") {
    const std::string marker = " due to data type mismatch: ";
    size_t at = error.message().find(marker);
    if (at != std::string::npos) {
      std::string message = error.message().substr(at + marker.size());
      if (node.kind == ExpressionKind::kFunction) message = WithArgumentSql(message, node);
      Error reworded = MakeError(ErrorClass::DATATYPE_MISMATCH,
                                 {{"sqlExpr", "\"" + ExpressionSql(node) + "\""}, {"message", message}});
      return reworded.WithContext(FormatPosition(node.position));
    }
  }
  return error.WithContext(FormatPosition(node.position));
}

// ---- Lambda scopes ----

// Spark's INVALID_LAMBDA_FUNCTION_CALL.NON_HIGHER_ORDER_FUNCTION.
[[noreturn]] void ThrowLambdaOutsideHigherOrderFunction(const std::string& function) {
  std::string message = "A lambda function should only be used in a higher order function.";
  if (!function.empty()) {
    message = "A lambda function should only be used in a higher order function. However, its class is " +
              SqlId({function}) + ", which is not a higher order function.";
  }
  SILT_THROW(INVALID_LAMBDA_FUNCTION_CALL, {{"message", message}});
}

// The body of one lambda of a higher-order call: its parameters shadow columns of the same
// name; every other name, and aggregates and windows over outer values, resolve in the
// enclosing scope and become values the call captures (see higher_order_functions.h).
class LambdaScope : public BindingScope {
 public:
  LambdaScope(BindingScope& outer, ExpressionBinder& outer_binder, const std::vector<expr::LambdaParameter>& parameters,
              bool hidden, std::vector<expr::ExpressionPtr>& captures)
      : outer_(outer), outer_binder_(outer_binder), parameters_(parameters), hidden_(hidden), captures_(captures) {}

  expr::ExpressionPtr ResolveColumn(const QualifiedName& name, const SourcePosition& position) override {
    if (std::optional<size_t> index = Parameter(name[0])) {
      const expr::LambdaParameter& parameter = parameters_[*index];
      expr::ExpressionPtr value = expr::Column(static_cast<int>(*index), parameter.type, parameter.nullable);
      for (size_t part = 1; part < name.size(); ++part) value = GetStructField(std::move(value), name[part], position);
      return value;
    }
    return Capture(outer_.ResolveColumn(name, position));
  }

  expr::ExpressionPtr ResolveSpecialName(const QualifiedName& name) override {
    if (Parameter(name[0])) return nullptr;  // ResolveColumn gives the parameter
    expr::ExpressionPtr special = outer_.ResolveSpecialName(name);
    return special ? Capture(std::move(special)) : nullptr;
  }

  expr::ExpressionPtr BindAggregate(const Expression& call, ExpressionBinder&) override {
    RefuseLambdaVariables(call);
    return Capture(outer_.BindAggregate(call, outer_binder_));
  }

  expr::ExpressionPtr BindWindow(const Expression& call, ExpressionBinder&) override {
    RefuseLambdaVariables(call);
    return Capture(outer_.BindWindow(call, outer_binder_));
  }

  expr::ExpressionPtr BindSubquery(const Expression& node, ExpressionBinder&) override {
    throw MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                    {{"message", "Subquery expressions are not supported within higher-order functions. Please "
                                 "remove all subquery expressions from higher-order functions and then try the "
                                 "query again."}})
        .WithContext(FormatPosition(node.position));
  }

  // True when `name` is a parameter of this lambda or of a lambda around it.
  bool IsLambdaVariable(const std::string& name) const {
    if (Parameter(name)) return true;
    const auto* enclosing = dynamic_cast<const LambdaScope*>(&outer_);
    return enclosing != nullptr && enclosing->IsLambdaVariable(name);
  }

 private:
  std::optional<size_t> Parameter(const std::string& name) const {
    if (hidden_) return std::nullopt;
    for (size_t i = 0; i < parameters_.size(); ++i) {
      if (EqualsIgnoreCase(parameters_[i].name, name)) return i;
    }
    return std::nullopt;
  }

  // The body's column for a value of the enclosing scope: each distinct value is captured once.
  expr::ExpressionPtr Capture(expr::ExpressionPtr value) {
    size_t index = 0;
    while (index < captures_.size() &&
           !(captures_[index] == value || (captures_[index]->type()->Equals(*value->type()) &&
                                           captures_[index]->ToString() == value->ToString()))) {
      ++index;
    }
    if (index == captures_.size()) captures_.push_back(value);
    return expr::Column(static_cast<int>(parameters_.size() + index), value->type(), value->nullable());
  }

  // An aggregate or window function is computed outside the lambda, where its variables do not
  // exist.
  void RefuseLambdaVariables(const Expression& call) const {
    std::function<bool(const Expression&)> uses = [&](const Expression& node) {
      if (node.kind == ExpressionKind::kColumn && !node.name.empty() && IsLambdaVariable(node.name[0])) return true;
      for (const ExpressionPtr& child : node.children) {
        if (child && uses(*child)) return true;
      }
      return node.filter != nullptr && uses(*node.filter);
    };
    if (uses(call)) {
      throw MakeError(ErrorClass::UNSUPPORTED_FEATURE,
                      {{"message", "an aggregate or window function over lambda variables: " + ExpressionSql(call)}})
          .WithContext(FormatPosition(call.position));
    }
  }

  BindingScope& outer_;
  ExpressionBinder& outer_binder_;
  const std::vector<expr::LambdaParameter>& parameters_;
  bool hidden_;
  std::vector<expr::ExpressionPtr>& captures_;
};

}  // namespace

// ---- BindingScope defaults ----

expr::ExpressionPtr BindingScope::BindAggregate(const Expression& call, ExpressionBinder&) {
  const std::string sql = ExpressionSql(call);
  throw MakeError(ErrorClass::INVALID_WHERE_CONDITION, {{"condition", "\"" + sql + "\""}, {"expressionList", sql}})
      .WithContext(FormatPosition(call.position));
}

expr::ExpressionPtr BindingScope::BindWindow(const Expression& call, ExpressionBinder&) {
  const std::string sql = ExpressionSql(call);
  throw MakeError(ErrorClass::INVALID_WHERE_CONDITION, {{"condition", "\"" + sql + "\""}, {"expressionList", sql}})
      .WithContext(FormatPosition(call.position));
}

expr::ExpressionPtr BindingScope::BindSubquery(const Expression& node, ExpressionBinder&) {
  throw MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                  {{"message", "subquery expressions are not allowed here: " + ExpressionSql(node) + "."}})
      .WithContext(FormatPosition(node.position));
}

expr::ExpressionPtr BindingScope::BindGenerator(const Expression& call, ExpressionBinder&) {
  throw MakeError(ErrorClass::UNSUPPORTED_GENERATOR,
                  {{"message", "generators are not supported outside the SELECT clause, but got: " +
                                   ExpressionSql(call)}})
      .WithContext(FormatPosition(call.position));
}

expr::ExpressionPtr BindingScope::BindGrouping(const Expression& call, ExpressionBinder&) {
  throw MakeError(ErrorClass::UNSUPPORTED_GROUPING_EXPRESSION, {}).WithContext(FormatPosition(call.position));
}

// ---- ExpressionBinder ----

ExpressionBinder::ExpressionBinder(BindingScope& scope, const expr::FunctionRegistry& functions)
    : scope_(scope), functions_(functions) {}

expr::ExpressionPtr ExpressionBinder::Bind(const Expression& node) {
  try {
    return BindNode(node);
  } catch (const Error& error) {
    throw Positioned(error, node);
  }
}

expr::ExpressionPtr ExpressionBinder::BindPredicate(const Expression& node, const std::string& clause) {
  expr::ExpressionPtr bound = Bind(node);
  if (bound->type()->id() == TypeId::kBoolean) return bound;
  if (bound->type()->id() == TypeId::kNull) return expr::Cast(std::move(bound), BooleanType());
  const std::string sql = ExpressionSql(node);
  throw MakeError(ErrorClass::DATATYPE_MISMATCH,
                  {{"sqlExpr", "\"" + sql + "\""},
                   {"message", (EqualsIgnoreCase(clause, "JOIN") ? "Join condition \"" : "Filter expression \"") +
                                   sql + "\" of type " + QuotedTypeName(bound->type()) + " is not a boolean."}})
      .WithContext(FormatPosition(node.position));
}

expr::ExpressionPtr ExpressionBinder::BindNode(const Expression& node) {
  switch (node.kind) {
    case ExpressionKind::kLiteral: return BindLiteral(node);
    case ExpressionKind::kColumn: {
      if (expr::ExpressionPtr special = scope_.ResolveSpecialName(node.name)) return special;
      return scope_.ResolveColumn(node.name, node.position);
    }
    case ExpressionKind::kStar:
      SILT_THROW(INVALID_USAGE_OF_STAR_OR_REGEX, {{"elem", "'*'"}, {"prettyName", "expression"}});
    case ExpressionKind::kUnary: return BindUnary(node);
    case ExpressionKind::kBinary: return BindBinary(node);
    case ExpressionKind::kIs: {
      expr::ExpressionPtr operand = Bind(*node.children[0]);
      if (node.op == "NULL") return node.negated ? expr::IsNotNull(operand) : expr::IsNull(operand);
      if (operand->type()->id() != TypeId::kBoolean && operand->type()->id() != TypeId::kNull) {
        ThrowMismatch(node, "the operand " + QuotedTypeName(operand->type()) + " of IS " + node.op +
                                " is not \"BOOLEAN\".");
      }
      if (node.op == "UNKNOWN") return node.negated ? expr::IsNotNull(operand) : expr::IsNull(operand);
      expr::ExpressionPtr test = expr::Compare(expr::ComparisonOperator::kNullSafeEqual, operand,
                                               expr::Literal(expr::Scalar::Boolean(node.op == "TRUE")));
      return node.negated ? expr::Not(test) : test;
    }
    case ExpressionKind::kIsDistinctFrom: {
      expr::ExpressionPtr same = expr::Compare(expr::ComparisonOperator::kNullSafeEqual, Bind(*node.children[0]),
                                               Bind(*node.children[1]));
      return node.negated ? same : expr::Not(same);
    }
    case ExpressionKind::kIn: {
      if (node.subquery) return scope_.BindSubquery(node, *this);
      expr::ExpressionPtr value = Bind(*node.children[0]);
      std::vector<expr::ExpressionPtr> list;
      for (size_t i = 1; i < node.children.size(); ++i) list.push_back(Bind(*node.children[i]));
      std::vector<DataTypePtr> types = {value->type()};
      for (const auto& item : list) types.push_back(item->type());
      if (!expr::CommonType(types)) {
        std::string listed;
        for (const auto& type : types) listed += (listed.empty() ? "" : ", ") + QuotedTypeName(type);
        ThrowMismatch(node, "the input types of the IN list items and the value must be the same or coercible to a "
                            "common type, got [" + listed + "].");
      }
      expr::ExpressionPtr in = expr::In(std::move(value), std::move(list));
      return node.negated ? expr::Not(in) : in;
    }
    case ExpressionKind::kBetween: {
      expr::ExpressionPtr value = Bind(*node.children[0]);
      expr::ExpressionPtr low = Bind(*node.children[1]);
      expr::ExpressionPtr high = Bind(*node.children[2]);
      expr::ExpressionPtr between =
          expr::And(expr::Compare(expr::ComparisonOperator::kGreaterOrEqual, value, std::move(low)),
                    expr::Compare(expr::ComparisonOperator::kLessOrEqual, value, std::move(high)));
      return node.negated ? expr::Not(between) : between;
    }
    case ExpressionKind::kLike: {
      std::vector<expr::ExpressionPtr> arguments = {Bind(*node.children[0]), Bind(*node.children[1])};
      std::string function = node.op == "LIKE" ? "like" : node.op == "ILIKE" ? "ilike" : "rlike";
      if (!node.escape.empty()) {
        if (node.op == "RLIKE") ThrowMismatch(node, "RLIKE does not take an ESCAPE character.");
        arguments.push_back(expr::Literal(expr::Scalar::String(node.escape)));
      }
      expr::ExpressionPtr like = functions_.Bind(function, std::move(arguments));
      return node.negated ? expr::Not(like) : like;
    }
    case ExpressionKind::kCase: {
      std::vector<std::pair<expr::ExpressionPtr, expr::ExpressionPtr>> branches;
      expr::ExpressionPtr operand = node.case_operand ? Bind(*node.case_operand) : nullptr;
      for (const auto& [when, then] : node.when_clauses) {
        expr::ExpressionPtr condition = operand ? expr::Compare(expr::ComparisonOperator::kEqual, operand, Bind(*when))
                                                : Bind(*when);
        if (condition->type()->id() != TypeId::kBoolean && condition->type()->id() != TypeId::kNull) {
          ThrowMismatch(node, "the WHEN expressions in CaseWhen should all be boolean type, but the " +
                                  std::to_string(branches.size() + 1) + "th when expression's type is " +
                                  QuotedTypeName(condition->type()) + ".");
        }
        branches.emplace_back(std::move(condition), Bind(*then));
      }
      expr::ExpressionPtr otherwise = node.else_result ? Bind(*node.else_result) : nullptr;
      std::vector<DataTypePtr> types;
      for (const auto& branch : branches) types.push_back(branch.second->type());
      if (otherwise) types.push_back(otherwise->type());
      if (!expr::CommonType(types)) {
        std::string listed;
        for (const auto& type : types) listed += (listed.empty() ? "" : ", ") + QuotedTypeName(type);
        ThrowMismatch(node, "Input to `casewhen` should all be the same type, but it's [" + listed + "].");
      }
      return expr::Case(std::move(branches), std::move(otherwise));
    }
    case ExpressionKind::kCast: {
      expr::ExpressionPtr child = Bind(*node.children[0]);
      if (!expr::CanCast(child->type(), node.cast_type)) {
        ThrowMismatch(node, "cannot cast " + QuotedTypeName(child->type()) + " to " +
                                QuotedTypeName(node.cast_type) + ".");
      }
      if (child->type()->Equals(*node.cast_type)) return child;
      return expr::Cast(std::move(child), node.cast_type, node.try_cast ? expr::ErrorMode::kTry : expr::ErrorMode::kSession);
    }
    case ExpressionKind::kFunction: return BindFunction(node);
    case ExpressionKind::kLambda: ThrowLambdaOutsideHigherOrderFunction("");
    case ExpressionKind::kFieldAccess:
      return GetStructField(Bind(*node.children[0]), node.name[0], node.position);
    case ExpressionKind::kSubscript: {
      expr::ExpressionPtr container = Bind(*node.children[0]);
      TypeId id = container->type()->id();
      if (id != TypeId::kList && id != TypeId::kMap) {
        ThrowMismatch(node, "the operand " + QuotedTypeName(container->type()) +
                                " cannot be subscripted; it must be \"ARRAY\" or \"MAP\".");
      }
      return functions_.Bind("subscript", {std::move(container), Bind(*node.children[1])});
    }
    case ExpressionKind::kScalarSubquery:
    case ExpressionKind::kExists: return scope_.BindSubquery(node, *this);
  }
  SILT_CHECK(false, "unknown expression kind");
  return nullptr;
}

expr::ExpressionPtr ExpressionBinder::BindLiteral(const Expression& node) {
  using expr::Scalar;
  switch (node.literal_kind) {
    case LiteralKind::kNull: return expr::Literal(Scalar::Null(NullType()));
    case LiteralKind::kBoolean: return expr::Literal(Scalar::Boolean(EqualsIgnoreCase(node.text, "true")));
    case LiteralKind::kInteger: return expr::Literal(Scalar::Integer(ParseInteger<int32_t>(node.text)));
    case LiteralKind::kBigint: return expr::Literal(Scalar::Long(ParseInteger<int64_t>(node.text)));
    case LiteralKind::kSmallint: return expr::Literal(Scalar::Short(ParseInteger<int16_t>(node.text)));
    case LiteralKind::kTinyint: return expr::Literal(Scalar::Byte(ParseInteger<int8_t>(node.text)));
    case LiteralKind::kDecimal: return expr::Literal(DecimalLiteral(node.text));
    case LiteralKind::kDouble:
    case LiteralKind::kFloat: {
      std::string text = node.text;
      while (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back())) &&
             std::tolower(static_cast<unsigned char>(text.back())) != 'e') {
        text.pop_back();
      }
      double value = std::strtod(text.c_str(), nullptr);
      // Spark refuses a literal beyond the type's finite range instead of making it infinite.
      bool is_float = node.literal_kind == LiteralKind::kFloat;
      if (std::isinf(value) || (is_float && std::isinf(static_cast<float>(value)))) {
        std::string limit = is_float ? "3.4028235E38" : "1.7976931348623157E308";
        throw MakeError(ErrorClass::INVALID_NUMERIC_LITERAL_RANGE,
                        {{"rawStrippedQualifier", text},
                         {"typeName", is_float ? "float" : "double"},
                         {"minValue", "-" + limit},
                         {"maxValue", limit}})
            .WithContext(FormatPosition(node.position));
      }
      if (is_float) return expr::Literal(Scalar::Float(static_cast<float>(value)));
      return expr::Literal(Scalar::Double(value));
    }
    case LiteralKind::kString: return expr::Literal(Scalar::String(node.text));
    case LiteralKind::kBinary: return expr::Literal(Scalar::Binary(HexToBytes(node.text)));
    case LiteralKind::kDate: {
      auto days = expr::ParseSparkDate(node.text);
      if (!days) SILT_THROW(INVALID_TYPED_LITERAL, {{"valueType", "\"DATE\""}, {"value", "'" + node.text + "'"}});
      return expr::Literal(Scalar::Date(*days));
    }
    case LiteralKind::kTimestamp: {
      // Zone-less text is local time of the session zone, which is known at evaluation only.
      if (!expr::ParseSparkTimestamp(node.text, true, 0)) {
        SILT_THROW(INVALID_TYPED_LITERAL, {{"valueType", "\"TIMESTAMP\""}, {"value", "'" + node.text + "'"}});
      }
      return expr::Cast(expr::Literal(Scalar::String(node.text)), TimestampType());
    }
    case LiteralKind::kTimestampNtz: {
      auto micros = expr::ParseSparkTimestamp(node.text, false, 0);
      if (!micros) SILT_THROW(INVALID_TYPED_LITERAL, {{"valueType", "\"TIMESTAMP_NTZ\""}, {"value", "'" + node.text + "'"}});
      return expr::Literal(Scalar::TimestampNtz(*micros));
    }
    case LiteralKind::kInterval: {
      ParseIntervalLiteral(node);  // reports malformed intervals first
      if (std::optional<Scalar> value = expr::AnsiIntervalLiteral(node.interval_parts)) return expr::Literal(*value);
      // Spark types these as its legacy CalendarIntervalType, which silt has as a value only
      // inside datetime arithmetic.
      SILT_THROW(UNSUPPORTED_FEATURE,
                 {{"message", "INTERVAL values of a unit-less string or of year-month fields mixed with day-time "
                              "fields are supported only added to or subtracted from a DATE or TIMESTAMP, got " +
                                  ExpressionSql(node)}});
    }
  }
  SILT_CHECK(false, "unknown literal kind");
  return nullptr;
}

expr::ExpressionPtr ExpressionBinder::BindUnary(const Expression& node) {
  const Expression& operand_node = *node.children[0];
  if (node.op == "NOT") {
    expr::ExpressionPtr operand = Bind(operand_node);
    if (operand->type()->id() != TypeId::kBoolean && operand->type()->id() != TypeId::kNull) {
      ThrowMismatch(node, "the operand " + QuotedTypeName(operand->type()) + " of NOT is not \"BOOLEAN\".");
    }
    return expr::Not(std::move(operand));
  }
  expr::ExpressionPtr operand = Bind(operand_node);
  if (node.op == "~") return expr::BitwiseNot(std::move(operand));
  if (node.op == "-") return expr::Negate(std::move(operand));
  // Unary plus keeps numeric and interval operands as they are.
  if (!expr::IsNumeric(*operand->type()) && operand->type()->id() != TypeId::kNull &&
      !operand->type()->is_interval()) {
    ThrowMismatch(node, "the operand " + QuotedTypeName(operand->type()) + " of unary + is not numeric.");
  }
  return operand;
}

expr::ExpressionPtr ExpressionBinder::BindBinary(const Expression& node) {
  const std::string& op = node.op;
  if (op == "+" || op == "-") {
    auto right_interval = AsIntervalLiteral(*node.children[1]);
    auto left_interval = op == "+" ? AsIntervalLiteral(*node.children[0]) : std::nullopt;
    // A datetime plus or minus an interval literal. The literal may be a calendar interval
    // (`INTERVAL '1 day 2 hours'`, `INTERVAL 1 MONTH 2 DAYS`), which has no value of its own;
    // intervals on both sides go the general way below.
    if (right_interval.has_value() != left_interval.has_value()) {
      expr::IntervalValue interval = right_interval ? *right_interval : *left_interval;
      expr::ExpressionPtr datetime = Bind(right_interval ? *node.children[0] : *node.children[1]);
      if (!datetime->type()->is_interval()) {
        if (op == "-") {
          interval.months = -interval.months;
          interval.micros = -interval.micros;
        }
        // A mixed literal (`INTERVAL 1 MONTH 2 DAYS`) adds its months, then its time.
        expr::IntervalValue months{interval.months, 0, true, false};
        expr::IntervalValue time{0, interval.micros, false, interval.days_only};
        if (interval.year_month) datetime = expr::AddInterval(std::move(datetime), months);
        if (interval.micros != 0 || !interval.year_month) datetime = expr::AddInterval(std::move(datetime), time);
        return datetime;
      }
    }
  }
  expr::ExpressionPtr left = Bind(*node.children[0]);
  expr::ExpressionPtr right = Bind(*node.children[1]);
  auto incompatible = [&]() {
    ThrowMismatch(node, "the left and right operands of the binary operator have incompatible types (" +
                            QuotedTypeName(left->type()) + " and " + QuotedTypeName(right->type()) + ").");
  };
  if (op == "AND" || op == "OR") {
    for (const auto& operand : {left, right}) {
      if (operand->type()->id() != TypeId::kBoolean && operand->type()->id() != TypeId::kNull) {
        ThrowMismatch(node, "the binary operator requires the input type \"BOOLEAN\", not " +
                                QuotedTypeName(operand->type()) + ".");
      }
    }
    return op == "AND" ? expr::And(std::move(left), std::move(right)) : expr::Or(std::move(left), std::move(right));
  }
  using expr::ComparisonOperator;
  std::optional<ComparisonOperator> comparison;
  if (op == "=" || op == "==") comparison = ComparisonOperator::kEqual;
  if (op == "<>" || op == "!=") comparison = ComparisonOperator::kNotEqual;
  if (op == "<") comparison = ComparisonOperator::kLess;
  if (op == "<=") comparison = ComparisonOperator::kLessOrEqual;
  if (op == ">") comparison = ComparisonOperator::kGreater;
  if (op == ">=") comparison = ComparisonOperator::kGreaterOrEqual;
  if (op == "<=>") comparison = ComparisonOperator::kNullSafeEqual;
  if (comparison) {
    for (const auto& operand : {left, right}) {
      if (ContainsMap(*operand->type())) {
        ThrowMismatch(node, "The `" + std::string(op == "==" ? "=" : op) + "` does not support ordering on type " +
                                QuotedTypeName(operand->type()) + ".");
      }
    }
    if (!expr::ComparisonType(left->type(), right->type())) incompatible();
    if (*comparison == ComparisonOperator::kNotEqual) {
      // Spark reads `a <> b` as NOT (a = b).
      return expr::Not(expr::Compare(ComparisonOperator::kEqual, std::move(left), std::move(right)));
    }
    return expr::Compare(*comparison, std::move(left), std::move(right));
  }
  using expr::ArithmeticOperator;
  std::optional<ArithmeticOperator> arithmetic;
  if (op == "+") arithmetic = ArithmeticOperator::kAdd;
  if (op == "-") arithmetic = ArithmeticOperator::kSubtract;
  if (op == "*") arithmetic = ArithmeticOperator::kMultiply;
  if (op == "/") arithmetic = ArithmeticOperator::kDivide;
  if (op == "%") arithmetic = ArithmeticOperator::kRemainder;
  if (arithmetic) {
    // Interval operands, and datetime differences, which are intervals.
    if (expr::ExpressionPtr interval = expr::IntervalArithmetic(*arithmetic, left, right)) return interval;
    if (!expr::ResolveArithmetic(*arithmetic, left->type(), right->type())) incompatible();
    return expr::Arithmetic(*arithmetic, std::move(left), std::move(right));
  }
  if (op == "DIV") return expr::IntegralDivide(std::move(left), std::move(right));
  if (op == "||") return functions_.Bind("concat", {std::move(left), std::move(right)});
  if (op == "&" || op == "|" || op == "^") {
    expr::BitwiseOperator bitwise = op == "&"   ? expr::BitwiseOperator::kAnd
                                    : op == "|" ? expr::BitwiseOperator::kOr
                                                : expr::BitwiseOperator::kXor;
    return expr::Bitwise(bitwise, std::move(left), std::move(right));
  }
  if (op == "<<") return expr::Shift(expr::ShiftOperator::kLeft, std::move(left), std::move(right));
  if (op == ">>") return expr::Shift(expr::ShiftOperator::kRight, std::move(left), std::move(right));
  if (op == ">>>") return expr::Shift(expr::ShiftOperator::kRightUnsigned, std::move(left), std::move(right));
  SILT_CHECK(false, "unknown binary operator " + op);
  return nullptr;
}

expr::ExpressionPtr ExpressionBinder::BindFunction(const Expression& node) {
  if (node.niladic_keyword) {
    // `current_date` without parentheses names a column when one is in scope (Spark resolves
    // attributes before these functions).
    try {
      return scope_.ResolveColumn(node.name, node.position);
    } catch (const Error& error) {
      if (error.id() != static_cast<ErrorClassId>(ErrorClass::UNRESOLVED_COLUMN)) throw;
    }
  }
  std::string name = Lower(node.name.back());
  if (node.name.size() > 1) {
    // Only built-in functions exist: `system.builtin.f` and `builtin.f` name them too.
    bool builtin = node.name.size() <= 3 && EqualsIgnoreCase(node.name[node.name.size() - 2], "builtin") &&
                   (node.name.size() == 2 || EqualsIgnoreCase(node.name[0], "system"));
    if (!builtin) {
      SILT_THROW(UNRESOLVED_ROUTINE, {{"routineName", SqlId(node.name)},
                                      {"searchPath", "[`system`.`builtin`, `system`.`session`]"}});
    }
  }
  if (node.window) return scope_.BindWindow(node, *this);
  if (exec::IsAggregateFunction(name)) return scope_.BindAggregate(node, *this);
  if (name == "grouping" || name == "grouping_id") return scope_.BindGrouping(node, *this);
  if (exec::IsWindowFunction(name)) {
    SILT_THROW(WINDOW_FUNCTION_WITHOUT_OVER_CLAUSE, {{"funcName", "\"" + name + "\""}});
  }
  if (IsGeneratorName(name)) return scope_.BindGenerator(node, *this);
  if (!node.within_group.empty()) {
    SILT_THROW(INVALID_SQL_SYNTAX, {{"message", "FUNCTION_WITH_UNSUPPORTED_SYNTAX: The function `" + name +
                                                    "` does not support WITHIN GROUP."}});
  }
  if (node.distinct || node.filter) {
    SILT_THROW(UNSUPPORTED_FEATURE, {{"message", std::string(node.distinct ? "DISTINCT" : "FILTER") +
                                                     " in the non-aggregate function " + SqlId({name})}});
  }
  if (expr::IsHigherOrderFunction(name)) return BindHigherOrderFunction(node, name);
  if (!functions_.Contains(name)) {
    SILT_THROW(UNRESOLVED_ROUTINE, {{"routineName", SqlId({name})},
                                    {"searchPath", "[`system`.`builtin`, `system`.`session`]"}});
  }
  for (const ExpressionPtr& child : node.children) {
    if (child->kind == ExpressionKind::kLambda) ThrowLambdaOutsideHigherOrderFunction(name);
  }
  std::vector<expr::ExpressionPtr> arguments;
  for (const ExpressionPtr& child : node.children) {
    if (child->kind == ExpressionKind::kStar) {
      SILT_THROW(INVALID_USAGE_OF_STAR_OR_REGEX, {{"elem", "'*'"}, {"prettyName", "`" + name + "`"}});
    }
    arguments.push_back(Bind(*child));
  }
  if (name == "struct") {
    // Spark names the fields of struct(...) after column references and fields (`struct(a, s.f)`
    // has fields a and f), and the others col1, col2, ... by position.
    std::vector<expr::ExpressionPtr> named;
    for (size_t i = 0; i < arguments.size(); ++i) {
      const Expression& child = *node.children[i];
      std::string field = i < node.argument_names.size() && !node.argument_names[i].empty()
                              ? node.argument_names[i]
                          : child.kind == ExpressionKind::kColumn      ? child.name.back()
                          : child.kind == ExpressionKind::kFieldAccess ? child.name[0]
                                                                        : "col" + std::to_string(i + 1);
      named.push_back(expr::Literal(expr::Scalar::String(field)));
      named.push_back(std::move(arguments[i]));
    }
    if (!named.empty()) return functions_.Bind("named_struct", std::move(named));
  }
  if (name == "arrays_zip") {
    // Spark names the struct fields of arrays_zip after column arguments, the others by their
    // position ("0", "1", ...).
    std::vector<std::string> fields;
    for (size_t i = 0; i < node.children.size(); ++i) {
      const Expression& child = *node.children[i];
      fields.push_back(child.kind == ExpressionKind::kColumn ? child.name.back() : std::to_string(i));
    }
    expr::ExpressionPtr zipped = functions_.Bind(name, std::move(arguments));
    const DataTypePtr& type = zipped->type();
    if (type->id() != TypeId::kList || type->element_type()->id() != TypeId::kStruct) return zipped;
    std::vector<Field> renamed = type->element_type()->fields();
    bool changed = false;
    for (size_t i = 0; i < renamed.size() && i < fields.size(); ++i) {
      changed = changed || renamed[i].name != fields[i];
      renamed[i].name = fields[i];
    }
    if (!changed) return zipped;
    return expr::Cast(std::move(zipped), ListType(StructType(std::move(renamed)), type->contains_null()));
  }
  return functions_.Bind(name, std::move(arguments));
}

expr::ExpressionPtr ExpressionBinder::BindHigherOrderFunction(const Expression& node, const std::string& name) {
  std::vector<bool> takes_lambda = expr::LambdaArgumentPositions(name, node.children.size());
  std::vector<expr::ExpressionPtr> arguments(node.children.size());
  std::vector<expr::ExpressionPtr> captures;
  const std::vector<expr::LambdaParameter> no_parameters;
  for (size_t i = 0; i < node.children.size(); ++i) {
    const Expression& child = *node.children[i];
    if (takes_lambda[i]) continue;
    if (child.kind == ExpressionKind::kLambda) {
      SILT_THROW(INVALID_LAMBDA_FUNCTION_CALL,
                 {{"message", "You passed a lambda function to a parameter that does not accept it. Please check if "
                              "lambda function argument is in the correct position."}});
    }
    if (child.kind == ExpressionKind::kStar) {
      SILT_THROW(INVALID_USAGE_OF_STAR_OR_REGEX, {{"elem", "'*'"}, {"prettyName", "`" + name + "`"}});
    }
    if (expr::IsLazyArgument(name, i)) {
      LambdaScope lazy_scope(scope_, *this, no_parameters, true, captures);
      arguments[i] = ExpressionBinder(lazy_scope, functions_).Bind(child);
    } else {
      arguments[i] = Bind(child);
    }
  }
  expr::PrepareValueArguments(name, arguments);
  std::vector<expr::LambdaFunction> lambdas;
  for (size_t i = 0; i < node.children.size(); ++i) {
    if (!takes_lambda[i]) continue;
    const Expression& child = *node.children[i];
    // An ordinary expression in a lambda's place is a lambda that ignores its parameters.
    bool hidden = child.kind != ExpressionKind::kLambda;
    std::vector<std::string> names = hidden ? std::vector<std::string>{} : child.lambda_parameters;
    std::vector<expr::LambdaParameter> parameters;
    try {
      parameters = expr::LambdaParameters(name, i, arguments, names, hidden);
      for (size_t a = 0; a < names.size(); ++a) {
        for (size_t b = 0; b < a; ++b) {
          if (!EqualsIgnoreCase(names[a], names[b])) continue;
          std::string listed;
          for (const std::string& parameter : names) listed += (listed.empty() ? "" : ", ") + SqlId({parameter});
          SILT_THROW(INVALID_LAMBDA_FUNCTION_CALL,
                     {{"message", "The lambda function has duplicate arguments " + listed +
                                      ". Please, consider to rename the argument names or set "
                                      "\"spark.sql.caseSensitive\" to \"true\"."}});
        }
      }
    } catch (const Error& error) {
      throw Positioned(error, child);
    }
    LambdaScope lambda_scope(scope_, *this, parameters, hidden, captures);
    ExpressionBinder body_binder(lambda_scope, functions_);
    expr::ExpressionPtr body = body_binder.Bind(hidden ? child : *child.children[0]);
    lambdas.push_back(expr::LambdaFunction{std::move(parameters), std::move(body)});
  }
  return expr::HigherOrderCall(name, std::move(arguments), std::move(lambdas), std::move(captures));
}

// ---- Free functions ----

expr::ExpressionPtr GetStructField(expr::ExpressionPtr struct_value, const std::string& field,
                                   const SourcePosition& position) {
  const DataTypePtr& type = struct_value->type();
  if (type->id() != TypeId::kStruct) {
    throw MakeError(ErrorClass::DATATYPE_MISMATCH,
                    {{"sqlExpr", "\"" + field + "\""},
                     {"message", "Can't extract a value from " + QuotedTypeName(type) +
                                     ". Need a complex type [STRUCT, ARRAY, MAP] but got " + QuotedTypeName(type) + "."}})
        .WithContext(FormatPosition(position));
  }
  int found = -1;
  for (size_t i = 0; i < type->fields().size(); ++i) {
    if (EqualsIgnoreCase(type->fields()[i].name, field)) {
      if (found >= 0) {
        throw MakeError(ErrorClass::AMBIGUOUS_REFERENCE,
                        {{"name", SqlId({field})},
                         {"referenceNames", SqlId({type->fields()[found].name}) + ", " + SqlId({type->fields()[i].name})}})
            .WithContext(FormatPosition(position));
      }
      found = static_cast<int>(i);
    }
  }
  if (found < 0) {
    std::string fields;
    for (const Field& candidate : type->fields()) fields += (fields.empty() ? "" : ", ") + SqlId({candidate.name});
    throw MakeError(ErrorClass::FIELD_NOT_FOUND, {{"fieldName", SqlId({field})}, {"fields", fields}})
        .WithContext(FormatPosition(position));
  }
  return expr::StructField(std::move(struct_value), found);
}

namespace {

// A scope with no columns, for constant expressions.
class ConstantScope : public BindingScope {
 public:
  expr::ExpressionPtr ResolveColumn(const QualifiedName& name, const SourcePosition& position) override {
    throw MakeError(ErrorClass::UNRESOLVED_COLUMN, {{"objectName", SqlId(name)}, {"proposal", ""}})
        .WithContext(FormatPosition(position));
  }
};

}  // namespace

int64_t TimeTravelVersion(const expr::Scalar& value) {
  if (!value.is_null() && value.type()->id() == TypeId::kString) {
    std::string_view text = value.GetString();
    int64_t version = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return version;
  }
  if (value.is_null() || !expr::IsIntegral(*value.type())) {
    SILT_THROW(INVALID_PARAMETER_VALUE,
               {{"parameter", "`version`"},
                {"functionName", "VERSION AS OF"},
                {"message", "expects an integer version, got " + value.ToString()}});
  }
  return value.GetInt();
}

expr::Scalar EvaluateConstant(const Expression& expression, const std::string& /*what*/,
                              const expr::EvalContext& context) {
  // Binding with no columns is what makes the expression constant; callers that need more (a
  // deterministic LIMIT, a positive count) check the value or the expression themselves.
  ConstantScope scope;
  ExpressionBinder binder(scope);
  expr::ExpressionPtr bound = binder.Bind(expression);
  expr::EvalContext evaluation = context;
  Batch one_row(std::make_shared<Schema>(), {}, 1);
  VectorPtr result = expr::Evaluate(*bound, one_row, evaluation);
  return expr::Scalar::FromVector(*result, 0);
}

// ---- SchemaScope ----

SchemaScope::SchemaScope(SchemaPtr schema, std::vector<std::string> qualifier)
    : schema_(std::move(schema)), qualifier_(std::move(qualifier)) {}

expr::ExpressionPtr SchemaScope::ResolveColumn(const QualifiedName& name, const SourcePosition& position) {
  SILT_CHECK(!name.empty(), "a column reference needs a name");
  // Finds the column `name[start]` and extracts the fields `name[start + 1..]`; nullptr when the
  // column or a field is missing.
  auto resolve_from = [&](size_t start) -> expr::ExpressionPtr {
    int index = -1;
    for (size_t i = 0; i < schema_->num_fields(); ++i) {
      if (!EqualsIgnoreCase(schema_->field(i).name, name[start])) continue;
      if (index >= 0) {
        throw MakeError(ErrorClass::AMBIGUOUS_REFERENCE,
                        {{"name", SqlId(name)},
                         {"referenceNames", SqlId({schema_->field(index).name}) + ", " + SqlId({schema_->field(i).name})}})
            .WithContext(FormatPosition(position));
      }
      index = static_cast<int>(i);
    }
    if (index < 0) return nullptr;
    const Field& field = schema_->field(index);
    expr::ExpressionPtr value = expr::Column(index, field.type, field.nullable);
    for (size_t part = start + 1; part < name.size(); ++part) {
      const DataTypePtr& type = value->type();
      if (type->id() != TypeId::kStruct) return nullptr;
      bool found = false;
      for (const Field& member : type->fields()) found = found || EqualsIgnoreCase(member.name, name[part]);
      if (!found) return nullptr;
      value = GetStructField(std::move(value), name[part], position);
    }
    return value;
  };
  // A qualified reference (`t.a`, `db.t.a`) first, as Spark prefers the qualifier reading.
  for (size_t length = std::min(qualifier_.size(), name.size() - 1); length >= 1; --length) {
    bool matches = true;
    for (size_t i = 0; i < length; ++i) {
      matches = matches && EqualsIgnoreCase(name[i], qualifier_[qualifier_.size() - length + i]);
    }
    if (matches) {
      if (expr::ExpressionPtr resolved = resolve_from(length)) return resolved;
    }
  }
  if (expr::ExpressionPtr resolved = resolve_from(0)) return resolved;

  // Spark's suggestions: the candidates closest (Levenshtein) to the name as written, compared
  // whole for a multi-part name and by column name otherwise.
  std::string written;
  for (const std::string& part : name) written += (written.empty() ? "" : ".") + part;
  std::vector<std::pair<size_t, std::string>> ranked;
  for (const Field& field : schema_->fields()) {
    std::vector<std::string> parts = qualifier_;
    parts.push_back(field.name);
    std::string dotted;
    for (const std::string& part : parts) dotted += (dotted.empty() ? "" : ".") + part;
    size_t distance = LevenshteinDistance(name.size() > 1 ? dotted : field.name, written);
    ranked.emplace_back(distance, SqlId(parts));
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string proposal;
  for (size_t i = 0; i < ranked.size() && i < 5; ++i) proposal += (i > 0 ? ", " : "") + ranked[i].second;
  throw MakeError(ErrorClass::UNRESOLVED_COLUMN, {{"objectName", SqlId(name)}, {"proposal", proposal}})
      .WithContext(FormatPosition(position));
}

}  // namespace silt::sql
