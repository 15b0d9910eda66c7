// Spark's SQL text of expressions as users see it in column headers: the form of
// `toPrettySQL`, where columns print as their bare names, literals as their values (strings
// unquoted), user casts as CAST(..), and operators fully parenthesised.

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "silt/base/ascii.h"
#include "silt/expr/cast.h"
#include "silt/expr/interval_functions.h"
#include "silt/sql/expression_binder.h"
#include "silt/types/date_time.h"

namespace silt::sql {
namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

bool IsPlainIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// Spark's DataType.sql: INT, BIGINT, DECIMAL(10,2), ARRAY<INT>, MAP<STRING, INT>,
// STRUCT<a: INT, b: STRING>.
std::string TypeSql(const DataType& type) {
  switch (type.id()) {
    case TypeId::kList: return "ARRAY<" + TypeSql(*type.element_type()) + ">";
    case TypeId::kMap: return "MAP<" + TypeSql(*type.key_type()) + ", " + TypeSql(*type.value_type()) + ">";
    case TypeId::kStruct: {
      std::string text = "STRUCT<";
      for (size_t i = 0; i < type.fields().size(); ++i) {
        const Field& field = type.fields()[i];
        if (i > 0) text += ", ";
        text += (IsPlainIdentifier(field.name) ? field.name : "`" + field.name + "`") + ": " + TypeSql(*field.type);
        if (!field.nullable) text += " NOT NULL";
      }
      return text + ">";
    }
    default: return Upper(type.ToString());
  }
}

std::string Unquote(const std::string& value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

std::string LiteralSql(const Expression& node) {
  switch (node.literal_kind) {
    case LiteralKind::kNull: return "NULL";
    case LiteralKind::kBoolean: return Lower(node.text);
    case LiteralKind::kString: return node.text;
    case LiteralKind::kBinary: return "X'" + Upper(node.text) + "'";
    case LiteralKind::kDate: {
      auto days = expr::ParseSparkDate(node.text);
      return "DATE '" + (days ? FormatDate(*days) : node.text) + "'";
    }
    case LiteralKind::kTimestamp:
    case LiteralKind::kTimestampNtz: {
      bool ntz = node.literal_kind == LiteralKind::kTimestampNtz;
      auto micros = expr::ParseSparkTimestamp(node.text, !ntz, 0);
      return std::string(ntz ? "TIMESTAMP_NTZ '" : "TIMESTAMP '") + (micros ? FormatTimestamp(*micros) : node.text) +
             "'";
    }
    case LiteralKind::kInterval: {
      // Spark names an ANSI interval literal after its value: INTERVAL '02' HOUR.
      try {
        if (std::optional<expr::Scalar> value = expr::AnsiIntervalLiteral(node.interval_parts)) {
          return value->ToString();
        }
      } catch (const Error&) {
        // Malformed: named as written; binding reports the error.
      }
      std::string text = "INTERVAL";
      for (const auto& [value, unit] : node.interval_parts) {
        text += " '" + Unquote(value) + "'";
        if (!unit.empty()) text += " " + unit;
      }
      return text;
    }
    default: break;
  }
  // Numbers print as their values (Java's toString): digits without suffixes.
  std::string text = node.text;
  while (!text.empty() && std::isalpha(static_cast<unsigned char>(text.back())) &&
         std::tolower(static_cast<unsigned char>(text.back())) != 'e') {
    text.pop_back();
  }
  if (node.literal_kind == LiteralKind::kDouble || node.literal_kind == LiteralKind::kFloat) {
    // Java prints doubles with at least one fraction digit, and exponents as E.
    double value = std::strtod(text.c_str(), nullptr);
    char buffer[64];
    if (value != 0 && (std::abs(value) >= 1e7 || std::abs(value) < 1e-3)) {
      for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, value);
        if (std::strtod(buffer, nullptr) == value) break;
      }
      std::string formatted = buffer;  // d.ddde+XX
      size_t e = formatted.find('e');
      std::string mantissa = formatted.substr(0, e);
      if (mantissa.find('.') == std::string::npos) mantissa += ".0";
      int exponent = std::atoi(formatted.c_str() + e + 1);
      return mantissa + "E" + std::to_string(exponent);
    }
    for (int digits = 1; digits <= 17; ++digits) {
      std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
      if (std::strtod(buffer, nullptr) == value) break;
    }
    std::string formatted = buffer;
    if (formatted.find('.') == std::string::npos) formatted += ".0";
    return formatted;
  }
  return text;
}

// A column inside an expression prints as its name without the table qualifier. The AST cannot
// tell `t.a` (qualified column) from `s.f` (struct field); qualified columns are the common
// case, so two-part names print their last part and longer ones their last two.
std::string ColumnSql(const QualifiedName& name) {
  if (name.size() <= 2) return name.back();
  return name[name.size() - 2] + "." + name.back();
}

std::string Join(const std::vector<ExpressionPtr>& items, size_t begin = 0) {
  std::string text;
  for (size_t i = begin; i < items.size(); ++i) {
    if (i > begin) text += ", ";
    text += ExpressionSql(*items[i]);
  }
  return text;
}

std::string OrderItemSql(const OrderItem& item) {
  bool descending = item.direction == SortDirection::kDescending;
  bool nulls_first = item.null_order == NullOrder::kDefault ? !descending : item.null_order == NullOrder::kNullsFirst;
  return ExpressionSql(*item.expression) + (descending ? " DESC" : " ASC") +
         (nulls_first ? " NULLS FIRST" : " NULLS LAST");
}

std::string BoundSql(const FrameBound& bound) {
  switch (bound.kind) {
    case FrameBoundKind::kUnboundedPreceding: return "UNBOUNDED PRECEDING";
    case FrameBoundKind::kUnboundedFollowing: return "UNBOUNDED FOLLOWING";
    case FrameBoundKind::kCurrentRow: return "CURRENT ROW";
    case FrameBoundKind::kPreceding: return ExpressionSql(*bound.offset) + " PRECEDING";
    case FrameBoundKind::kFollowing: return ExpressionSql(*bound.offset) + " FOLLOWING";
  }
  return "";
}

bool IsRankingFunction(const std::string& name) {
  return name == "row_number" || name == "rank" || name == "dense_rank" || name == "percent_rank" ||
         name == "cume_dist" || name == "ntile";
}

// The frame Spark prints when none is written: ranking functions run over
// ROWS UNBOUNDED PRECEDING..CURRENT ROW; lag/lead over the row at their offset; aggregates
// over RANGE UNBOUNDED PRECEDING..CURRENT ROW with ORDER BY and the whole partition without.
std::string DefaultFrameSql(const std::string& function, const Expression& call, bool ordered) {
  if (IsRankingFunction(function)) return "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW";
  if (function == "lag" || function == "lead") {
    std::string offset = call.children.size() >= 2 ? ExpressionSql(*call.children[1]) : "1";
    if (function == "lag") offset = offset.rfind('-', 0) == 0 ? offset.substr(1) : "-" + offset;
    return "ROWS BETWEEN " + offset + " FOLLOWING AND " + offset + " FOLLOWING";
  }
  return ordered ? "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
                 : "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING";
}

std::string WindowSql(const std::string& function, const Expression& call) {
  const WindowSpec& window = *call.window;
  if (window.partition_by.empty() && window.order_by.empty() && !window.frame && !window.reference_name.empty()) {
    return window.reference_name;
  }
  std::vector<std::string> parts;
  if (!window.partition_by.empty()) parts.push_back("PARTITION BY " + Join(window.partition_by));
  if (!window.order_by.empty()) {
    std::string order = "ORDER BY ";
    for (size_t i = 0; i < window.order_by.size(); ++i) {
      if (i > 0) order += ", ";
      order += OrderItemSql(window.order_by[i]);
    }
    parts.push_back(order);
  }
  if (window.frame) {
    parts.push_back(std::string(window.frame->unit == FrameUnit::kRows ? "ROWS" : "RANGE") + " BETWEEN " +
                    BoundSql(window.frame->start) + " AND " + BoundSql(window.frame->end));
  } else {
    parts.push_back(DefaultFrameSql(function, call, !window.order_by.empty()));
  }
  std::string text = "(";
  for (size_t i = 0; i < parts.size(); ++i) text += (i > 0 ? " " : "") + parts[i];
  return text + ")";
}

// `body` with its references to `parameters` replaced by `namedlambdavariable()` calls (their
// fields kept), as Spark names lambda variables in SQL text.
ExpressionPtr WithLambdaVariables(const ExpressionPtr& body, const std::vector<std::string>& parameters) {
  if (!body) return body;
  if (body->kind == ExpressionKind::kColumn && !body->name.empty()) {
    bool is_parameter = false;
    for (const std::string& parameter : parameters) is_parameter = is_parameter || EqualsIgnoreCase(parameter, body->name[0]);
    if (is_parameter) {
      auto variable = std::make_shared<Expression>(*body);
      variable->kind = ExpressionKind::kFunction;
      variable->name = {"namedlambdavariable"};
      ExpressionPtr value = variable;
      for (size_t part = 1; part < body->name.size(); ++part) {
        auto field = std::make_shared<Expression>();
        field->kind = ExpressionKind::kFieldAccess;
        field->position = body->position;
        field->name = {body->name[part]};
        field->children = {value};
        value = field;
      }
      return value;
    }
  }
  auto copy = std::make_shared<Expression>(*body);
  for (ExpressionPtr& child : copy->children) child = WithLambdaVariables(child, parameters);
  copy->case_operand = WithLambdaVariables(copy->case_operand, parameters);
  for (auto& [condition, value] : copy->when_clauses) {
    condition = WithLambdaVariables(condition, parameters);
    value = WithLambdaVariables(value, parameters);
  }
  copy->else_result = WithLambdaVariables(copy->else_result, parameters);
  copy->filter = WithLambdaVariables(copy->filter, parameters);
  return copy;
}

std::string FunctionSql(const Expression& node) {
  std::string name;
  for (const std::string& part : node.name) name += (name.empty() ? "" : ".") + Lower(part);
  std::string arguments;
  if (name == "count" && node.children.size() == 1 && node.children[0]->kind == ExpressionKind::kStar) {
    arguments = "1";
  } else if (!node.argument_names.empty()) {
    for (size_t i = 0; i < node.children.size(); ++i) {
      arguments += (i > 0 ? ", " : "") + ExpressionSql(*node.children[i]);
      if (i < node.argument_names.size() && !node.argument_names[i].empty()) arguments += " AS " + node.argument_names[i];
    }
  } else {
    arguments = Join(node.children);
    if ((name == "aggregate" || name == "reduce") && node.children.size() == 3) {
      // Spark fills in the identity finish lambda.
      arguments += ", lambdafunction(namedlambdavariable(), namedlambdavariable())";
    }
    if ((name == "lag" || name == "lead") && node.window) {
      // Spark prints the defaults of lag/lead: offset 1, default NULL.
      if (node.children.size() == 1) arguments += ", 1";
      if (node.children.size() <= 2) arguments += ", NULL";
    }
  }
  std::string text;
  if (name == "if" && node.children.size() == 3) {
    text = "(IF(" + arguments + "))";
  } else {
    text = name + "(" + (node.distinct ? "DISTINCT " : "") + arguments + ")";
  }
  if (!node.within_group.empty()) {
    text += " WITHIN GROUP (ORDER BY ";
    for (size_t i = 0; i < node.within_group.size(); ++i) {
      const OrderItem& item = node.within_group[i];
      text += (i > 0 ? ", " : "") + ExpressionSql(*item.expression) +
              (item.direction == SortDirection::kDescending ? " DESC" : "");
    }
    text += ")";
  }
  if (node.filter) text += " FILTER (WHERE " + ExpressionSql(*node.filter) + ")";
  if (node.window) text += " OVER " + WindowSql(name, node);
  return text;
}

std::string BinarySql(const Expression& node) {
  const std::string left = ExpressionSql(*node.children[0]);
  const std::string right = ExpressionSql(*node.children[1]);
  const std::string& op = node.op;
  if (op == "==") return "(" + left + " = " + right + ")";
  if (op == "<>" || op == "!=") return "(NOT (" + left + " = " + right + "))";
  if (op == "||") return "concat(" + left + ", " + right + ")";
  if (op == "DIV") return "(" + left + " div " + right + ")";
  if (op == "<<") return "shiftleft(" + left + ", " + right + ")";
  if (op == ">>") return "shiftright(" + left + ", " + right + ")";
  if (op == ">>>") return "shiftrightunsigned(" + left + ", " + right + ")";
  return "(" + left + " " + op + " " + right + ")";
}

std::string CaseSql(const Expression& node) {
  std::string text = "CASE";
  for (const auto& [condition, value] : node.when_clauses) {
    std::string when = node.case_operand
                           ? "(" + ExpressionSql(*node.case_operand) + " = " + ExpressionSql(*condition) + ")"
                           : ExpressionSql(*condition);
    text += " WHEN " + when + " THEN " + ExpressionSql(*value);
  }
  if (node.else_result) text += " ELSE " + ExpressionSql(*node.else_result);
  return text + " END";
}

}  // namespace

std::string ExpressionSql(const Expression& node) {
  switch (node.kind) {
    case ExpressionKind::kLiteral: return LiteralSql(node);
    case ExpressionKind::kColumn: return ColumnSql(node.name);
    case ExpressionKind::kStar: {
      std::string text;
      for (const std::string& part : node.name) text += part + ".";
      return text + "*";
    }
    case ExpressionKind::kUnary: {
      const std::string operand = ExpressionSql(*node.children[0]);
      if (node.op == "NOT") return "(NOT " + operand + ")";
      if (node.op == "~") return "~" + operand;
      return "(" + node.op + " " + operand + ")";
    }
    case ExpressionKind::kBinary: return BinarySql(node);
    case ExpressionKind::kIs: {
      const std::string operand = ExpressionSql(*node.children[0]);
      std::string text;
      if (node.op == "NULL") return "(" + operand + (node.negated ? " IS NOT NULL)" : " IS NULL)");
      if (node.op == "UNKNOWN") return "(" + operand + (node.negated ? " IS NOT NULL)" : " IS NULL)");
      text = "(" + operand + " <=> " + Lower(node.op) + ")";
      return node.negated ? "(NOT " + text + ")" : text;
    }
    case ExpressionKind::kIsDistinctFrom: {
      std::string text = "(" + ExpressionSql(*node.children[0]) + " <=> " + ExpressionSql(*node.children[1]) + ")";
      return node.negated ? text : "(NOT " + text + ")";
    }
    case ExpressionKind::kIn: {
      std::string list = node.subquery ? "listquery()" : Join(node.children, 1);
      std::string text = "(" + ExpressionSql(*node.children[0]) + " IN (" + list + "))";
      return node.negated ? "(NOT " + text + ")" : text;
    }
    case ExpressionKind::kBetween: {
      const std::string value = ExpressionSql(*node.children[0]);
      std::string text = "((" + value + " >= " + ExpressionSql(*node.children[1]) + ") AND (" + value +
                         " <= " + ExpressionSql(*node.children[2]) + "))";
      return node.negated ? "(NOT " + text + ")" : text;
    }
    case ExpressionKind::kLike: {
      const std::string value = ExpressionSql(*node.children[0]);
      const std::string pattern = ExpressionSql(*node.children[1]);
      std::string text;
      if (node.op == "ILIKE") {
        text = "ilike(" + value + ", " + pattern + ")";
      } else {
        text = value + " " + node.op + " " + pattern;
        if (!node.escape.empty() && node.escape != "\\") text += " ESCAPE '" + node.escape + "'";
      }
      return node.negated ? "(NOT " + text + ")" : text;
    }
    case ExpressionKind::kCase: return CaseSql(node);
    case ExpressionKind::kCast:
      return std::string(node.try_cast ? "TRY_CAST(" : "CAST(") + ExpressionSql(*node.children[0]) + " AS " +
             TypeSql(*node.cast_type) + ")";
    case ExpressionKind::kFunction: return FunctionSql(node);
    case ExpressionKind::kLambda: {
      // Spark prints every lambda variable as `namedlambdavariable()`.
      std::string text = "lambdafunction(" + ExpressionSql(*WithLambdaVariables(node.children[0], node.lambda_parameters));
      for (size_t i = 0; i < node.lambda_parameters.size(); ++i) text += ", namedlambdavariable()";
      return text + ")";
    }
    case ExpressionKind::kFieldAccess: return ExpressionSql(*node.children[0]) + "." + node.name[0];
    case ExpressionKind::kSubscript:
      return ExpressionSql(*node.children[0]) + "[" + ExpressionSql(*node.children[1]) + "]";
    case ExpressionKind::kScalarSubquery: return "scalarsubquery()";
    case ExpressionKind::kExists: return "exists()";
  }
  return "?";
}

std::string AutoColumnName(const Expression& node) {
  if (node.kind == ExpressionKind::kColumn) return node.name.back();
  // Spark names a cast of a column after the column (its alias rule for Cast of a named
  // expression), and any other expression after its SQL text (`f(x).a`, `CAST(1 AS STRING)`).
  if (node.kind == ExpressionKind::kCast && node.children[0]->kind == ExpressionKind::kColumn) {
    return node.children[0]->name.back();
  }
  return ExpressionSql(node);
}

std::string DataTypeSql(const DataType& type) { return TypeSql(type); }

}  // namespace silt::sql
