#include "silt/sql/ast_printer.h"

#include <string_view>

namespace silt::sql {
namespace {

bool IsPlainIdentifier(const std::string& name) {
  if (name.empty()) return false;
  char first = name[0];
  if (!((first >= 'a' && first <= 'z') || (first >= 'A' && first <= 'Z') || first == '_')) {
    return false;
  }
  for (char c : name) {
    bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

// Words the parser treats as clause keywords; printing them back-quoted keeps the text parseable.
bool NeedsQuotingAsKeyword(const std::string& name) {
  static constexpr std::string_view kWords[] = {"SELECT",
                                                "FROM",
                                                "WHERE",
                                                "GROUP",
                                                "HAVING",
                                                "ORDER",
                                                "LIMIT",
                                                "OFFSET",
                                                "UNION",
                                                "INTERSECT",
                                                "EXCEPT",
                                                "MINUS",
                                                "JOIN",
                                                "INNER",
                                                "CROSS",
                                                "NATURAL",
                                                "FULL",
                                                "ON",
                                                "USING",
                                                "WHEN",
                                                "THEN",
                                                "ELSE",
                                                "END",
                                                "AND",
                                                "OR",
                                                "NOT",
                                                "IS",
                                                "IN",
                                                "LIKE",
                                                "ILIKE",
                                                "RLIKE",
                                                "REGEXP",
                                                "BETWEEN",
                                                "AS",
                                                "WINDOW",
                                                "QUALIFY",
                                                "LATERAL",
                                                "CASE",
                                                "DISTINCT",
                                                "SET",
                                                "WITH",
                                                "VALUES",
                                                "ESCAPE",
                                                "CLUSTER",
                                                "DISTRIBUTE",
                                                "SORT",
                                                "ALL",
                                                "ANTI",
                                                "SEMI",
                                                "LEFT",
                                                "RIGHT",
                                                "OUTER",
                                                "FILTER",
                                                "OVER",
                                                "PARTITION",
                                                "NULL",
                                                "TRUE",
                                                "FALSE",
                                                "DIV",
                                                "INTERVAL",
                                                "DATE",
                                                "TIMESTAMP",
                                                "TIMESTAMP_NTZ",
                                                "TIMESTAMP_LTZ",
                                                "CAST",
                                                "TRY_CAST",
                                                "EXISTS",
                                                "VERSION",
                                                "CURRENT_DATE",
                                                "CURRENT_TIMESTAMP",
                                                "CURRENT_USER",
                                                "TABLESAMPLE"};
  for (std::string_view word : kWords) {
    if (word.size() != name.size()) continue;
    bool equal = true;
    for (size_t i = 0; i < word.size() && equal; ++i) {
      char c = name[i];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      equal = c == word[i];
    }
    if (equal) return true;
  }
  return false;
}

std::string QuoteString(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    switch (c) {
      case '\'':
        out += "\\'";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      // Not `\0`: a digit after it would make an octal escape.
      case '\0':
        out += "\\u0000";
        break;
      default:
        out += c;
        break;
    }
  }
  // A kept `\%` / `\_` LIKE escape is stored with its backslash, which the loop above doubled;
  // `\\%` re-parses to the same two characters, so no special case is needed.
  out += "'";
  return out;
}

std::string Name(const QualifiedName& name) {
  std::string out;
  for (const std::string& part : name) {
    if (!out.empty()) out += '.';
    out += QuoteIdentifier(part);
  }
  return out;
}

std::string NameList(const std::vector<std::string>& names) {
  std::string out = "(";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += QuoteIdentifier(names[i]);
  }
  return out + ")";
}

// Spark's type names, with struct fields quoted and their NOT NULL / COMMENT kept, so the text
// parses back to the same type (DataType::ToString drops both).
std::string TypeText(const DataTypePtr& type) {
  if (!type) return "?";
  switch (type->id()) {
    case TypeId::kList:
      return "array<" + TypeText(type->element_type()) + ">";
    case TypeId::kMap:
      return "map<" + TypeText(type->key_type()) + ", " + TypeText(type->value_type()) + ">";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < type->fields().size(); ++i) {
        const Field& field = type->fields()[i];
        if (i > 0) out += ", ";
        out += QuoteIdentifier(field.name) + ": " + TypeText(field.type);
        if (!field.nullable) out += " NOT NULL";
        if (const std::string* comment = field.FindMetadata("comment")) {
          // The metadata holds a JSON string; the parser only ever stores simple escapes.
          std::string text;
          for (size_t j = 1; j + 1 < comment->size(); ++j) {
            char c = (*comment)[j];
            if (c == '\\' && j + 2 < comment->size()) {
              char next = (*comment)[++j];
              switch (next) {
                case 'n':
                  text += '\n';
                  break;
                case 't':
                  text += '\t';
                  break;
                case 'r':
                  text += '\r';
                  break;
                case 'b':
                  text += '\b';
                  break;
                case 'f':
                  text += '\f';
                  break;
                case 'u': {
                  unsigned value = 0;
                  for (int k = 0; k < 4 && j + 1 < comment->size(); ++k) {
                    char h = (*comment)[++j];
                    value = value * 16 +
                            static_cast<unsigned>(h >= 'a' ? h - 'a' + 10
                                                           : (h >= 'A' ? h - 'A' + 10 : h - '0'));
                  }
                  text += static_cast<char>(value);
                  break;
                }
                default:
                  text += next;
                  break;
              }
            } else {
              text += c;
            }
          }
          out += " COMMENT " + QuoteString(text);
        }
      }
      return out + ">";
    }
    default:
      return type->ToString();
  }
}

// Function names that the parser reads as syntax when followed by `(`, so they need quoting.
bool FunctionNameNeedsQuoting(const std::string& name) {
  static constexpr std::string_view kWords[] = {
      "SELECT",   "FROM",      "WHERE",  "GROUP",   "HAVING", "ORDER",  "LIMIT",     "OFFSET",
      "UNION",    "INTERSECT", "EXCEPT", "MINUS",   "JOIN",   "INNER",  "CROSS",     "NATURAL",
      "FULL",     "ON",        "USING",  "WHEN",    "THEN",   "ELSE",   "END",       "AND",
      "OR",       "NOT",       "IS",     "BETWEEN", "AS",     "QUALIFY", "LATERAL",
      "CASE",     "DISTINCT",  "SET",    "WITH",    "VALUES", "ESCAPE", "CLUSTER",   "DISTRIBUTE",
      "SORT",     "ALL",       "ANTI",   "SEMI",    "OUTER",  "OVER",   "PARTITION", "CAST",
      "TRY_CAST", "EXISTS"};
  for (std::string_view word : kWords) {
    if (word.size() != name.size()) continue;
    bool equal = true;
    for (size_t i = 0; i < word.size() && equal; ++i) {
      char c = name[i];
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
      equal = c == word[i];
    }
    if (equal) return true;
  }
  return false;
}

class Printer {
 public:
  std::string Expression(const struct Expression& e) {
    switch (e.kind) {
      case ExpressionKind::kLiteral:
        return Literal(e);
      case ExpressionKind::kColumn:
        return Name(e.name);
      case ExpressionKind::kStar: {
        std::string out = e.name.empty() ? "*" : Name(e.name) + ".*";
        if (!e.except_columns.empty()) {
          out += " EXCEPT (";
          for (size_t i = 0; i < e.except_columns.size(); ++i) {
            if (i > 0) out += ", ";
            out += Name(e.except_columns[i]);
          }
          out += ")";
        }
        return out;
      }
      case ExpressionKind::kUnary: {
        // `(- (1))`: a minus sign directly before a number would be read as part of the literal.
        const struct Expression& operand = *e.children[0];
        bool numeric = operand.kind == ExpressionKind::kLiteral &&
                       operand.literal_kind != LiteralKind::kNull &&
                       operand.literal_kind <= LiteralKind::kFloat &&
                       operand.literal_kind != LiteralKind::kBoolean;
        if (e.op == "-" && numeric) return "(- (" + Expression(operand) + "))";
        return "(" + e.op + " " + Expression(operand) + ")";
      }
      case ExpressionKind::kBinary:
        return "(" + Expression(*e.children[0]) + " " + e.op + " " + Expression(*e.children[1]) +
               ")";
      case ExpressionKind::kIs:
        return "(" + Expression(*e.children[0]) + (e.negated ? " IS NOT " : " IS ") + e.op + ")";
      case ExpressionKind::kIsDistinctFrom:
        return "(" + Expression(*e.children[0]) +
               (e.negated ? " IS NOT DISTINCT FROM " : " IS DISTINCT FROM ") +
               Expression(*e.children[1]) + ")";
      case ExpressionKind::kIn: {
        std::string out = "(" + Expression(*e.children[0]) + (e.negated ? " NOT IN (" : " IN (");
        if (e.subquery) {
          out += Query(*e.subquery);
        } else {
          out += List(e.children, 1);
        }
        return out + "))";
      }
      case ExpressionKind::kBetween:
        return "(" + Expression(*e.children[0]) + (e.negated ? " NOT BETWEEN " : " BETWEEN ") +
               Expression(*e.children[1]) + " AND " + Expression(*e.children[2]) + ")";
      case ExpressionKind::kLike: {
        std::string out = "(" + Expression(*e.children[0]) + (e.negated ? " NOT " : " ") + e.op +
                          " " + Expression(*e.children[1]);
        if (!e.escape.empty()) out += " ESCAPE " + QuoteString(e.escape);
        return out + ")";
      }
      case ExpressionKind::kCase: {
        std::string out = "CASE";
        if (e.case_operand) out += " " + Expression(*e.case_operand);
        for (const auto& [condition, result] : e.when_clauses) {
          out += " WHEN " + Expression(*condition) + " THEN " + Expression(*result);
        }
        if (e.else_result) out += " ELSE " + Expression(*e.else_result);
        return out + " END";
      }
      case ExpressionKind::kCast:
        if (e.op == "::")
          return "(" + Expression(*e.children[0]) + "::" + TypeText(e.cast_type) + ")";
        return std::string(e.try_cast ? "TRY_CAST(" : "CAST(") + Expression(*e.children[0]) +
               " AS " + TypeText(e.cast_type) + ")";
      case ExpressionKind::kFunction:
        return Function(e);
      case ExpressionKind::kLambda: {
        std::string parameters;
        if (e.lambda_parameters.size() == 1) {
          parameters = QuoteIdentifier(e.lambda_parameters[0]);
        } else {
          parameters = NameList(e.lambda_parameters);
        }
        return "(" + parameters + " -> " + Expression(*e.children[0]) + ")";
      }
      case ExpressionKind::kFieldAccess: {
        // `(1).a`: a number directly before `.` would swallow the dot (`1.` is a decimal).
        const struct Expression& base = *e.children[0];
        std::string base_text = Expression(base);
        if (base.kind == ExpressionKind::kLiteral) base_text = "(" + base_text + ")";
        return base_text + "." + QuoteIdentifier(e.name.empty() ? "" : e.name[0]);
      }
      case ExpressionKind::kSubscript:
        return Expression(*e.children[0]) + "[" + Expression(*e.children[1]) + "]";
      case ExpressionKind::kScalarSubquery:
        return "(" + Query(*e.subquery) + ")";
      case ExpressionKind::kExists:
        return "EXISTS (" + Query(*e.subquery) + ")";
    }
    return "?";
  }

  std::string Literal(const struct Expression& e) {
    switch (e.literal_kind) {
      case LiteralKind::kNull:
        return "NULL";
      case LiteralKind::kBoolean:
        return e.text == "true" ? "TRUE" : "FALSE";
      case LiteralKind::kInteger:
        return e.text;
      case LiteralKind::kBigint:
        return e.text + "L";
      case LiteralKind::kSmallint:
        return e.text + "S";
      case LiteralKind::kTinyint:
        return e.text + "Y";
      case LiteralKind::kDecimal:
        // Plain `1.5` reads back as a decimal; anything else (`1BD`, `1E5BD`) needs the suffix.
        return e.text.find('.') != std::string::npos &&
                       e.text.find_first_of("eE") == std::string::npos
                   ? e.text
                   : e.text + "BD";
      case LiteralKind::kDouble:
        return e.text + "D";
      case LiteralKind::kFloat:
        return e.text + "F";
      case LiteralKind::kString:
        return QuoteString(e.text);
      case LiteralKind::kBinary:
        return "X'" + e.text + "'";
      case LiteralKind::kDate:
        return "DATE " + QuoteString(e.text);
      case LiteralKind::kTimestamp:
        return "TIMESTAMP " + QuoteString(e.text);
      case LiteralKind::kTimestampNtz:
        return "TIMESTAMP_NTZ " + QuoteString(e.text);
      case LiteralKind::kInterval: {
        std::string out = "INTERVAL";
        for (const auto& [value, unit] : e.interval_parts) {
          out += " " + value;
          if (!unit.empty()) out += " " + unit;
        }
        return out;
      }
    }
    return "?";
  }

  std::string List(const std::vector<ExpressionPtr>& items, size_t from = 0) {
    std::string out;
    for (size_t i = from; i < items.size(); ++i) {
      if (i > from) out += ", ";
      out += Expression(*items[i]);
    }
    return out;
  }

  std::string Function(const struct Expression& e) {
    if (e.children.empty() && e.name.size() == 1 && !e.distinct && !e.filter && !e.window &&
        (e.name[0] == "CURRENT_DATE" || e.name[0] == "CURRENT_TIMESTAMP" ||
         e.name[0] == "CURRENT_USER")) {
      return e.name[0];
    }
    std::string out;
    for (size_t i = 0; i < e.name.size(); ++i) {
      if (i > 0) out += '.';
      // Function names are printed as written; only odd characters need quoting.
      bool plain = IsPlainIdentifier(e.name[i]) && (i > 0 || !FunctionNameNeedsQuoting(e.name[i]));
      out += plain ? e.name[i] : QuoteIdentifier(e.name[i]);
    }
    out += "(";
    if (e.distinct) out += "DISTINCT ";
    for (size_t i = 0; i < e.children.size(); ++i) {
      if (i > 0) out += ", ";
      out += Expression(*e.children[i]);
      if (i < e.argument_names.size() && !e.argument_names[i].empty()) {
        out += " AS " + QuoteIdentifier(e.argument_names[i]);
      }
    }
    out += ")";
    if (!e.within_group.empty()) out += " WITHIN GROUP (ORDER BY " + Order(e.within_group) + ")";
    if (e.filter) out += " FILTER (WHERE " + Expression(*e.filter) + ")";
    if (e.ignore_nulls) out += " IGNORE NULLS";
    if (e.window) {
      if (!e.window->reference_name.empty() && e.window->partition_by.empty() &&
          e.window->order_by.empty() && !e.window->frame) {
        out += " OVER " + QuoteIdentifier(e.window->reference_name);
      } else {
        out += " OVER (" + Window(*e.window) + ")";
      }
    }
    return out;
  }

  std::string Window(const WindowSpec& spec) {
    std::string out;
    auto add = [&](const std::string& text) {
      if (!out.empty()) out += ' ';
      out += text;
    };
    if (!spec.reference_name.empty()) add(QuoteIdentifier(spec.reference_name));
    if (!spec.partition_by.empty()) add("PARTITION BY " + List(spec.partition_by));
    if (!spec.order_by.empty()) add("ORDER BY " + Order(spec.order_by));
    if (spec.frame) {
      add(std::string(spec.frame->unit == FrameUnit::kRows ? "ROWS" : "RANGE") + " BETWEEN " +
          Bound(spec.frame->start) + " AND " + Bound(spec.frame->end));
    }
    return out;
  }

  std::string Bound(const FrameBound& bound) {
    switch (bound.kind) {
      case FrameBoundKind::kUnboundedPreceding:
        return "UNBOUNDED PRECEDING";
      case FrameBoundKind::kPreceding:
        return Expression(*bound.offset) + " PRECEDING";
      case FrameBoundKind::kCurrentRow:
        return "CURRENT ROW";
      case FrameBoundKind::kFollowing:
        return Expression(*bound.offset) + " FOLLOWING";
      case FrameBoundKind::kUnboundedFollowing:
        return "UNBOUNDED FOLLOWING";
    }
    return "?";
  }

  std::string Order(const std::vector<OrderItem>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += ", ";
      out += Expression(*items[i].expression);
      if (items[i].direction == SortDirection::kAscending) out += " ASC";
      if (items[i].direction == SortDirection::kDescending) out += " DESC";
      if (items[i].null_order == NullOrder::kNullsFirst) out += " NULLS FIRST";
      if (items[i].null_order == NullOrder::kNullsLast) out += " NULLS LAST";
    }
    return out;
  }

  std::string Rows(const std::vector<std::vector<ExpressionPtr>>& rows) {
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i > 0) out += ", ";
      out += "(" + List(rows[i]) + ")";
    }
    return out;
  }

  std::string Query(const struct Query& q) {
    std::string out;
    if (!q.with.empty()) {
      out += "WITH ";
      for (size_t i = 0; i < q.with.size(); ++i) {
        if (i > 0) out += ", ";
        out += QuoteIdentifier(q.with[i].name);
        if (!q.with[i].columns.empty()) out += " " + NameList(q.with[i].columns);
        out += " AS (" + Query(*q.with[i].query) + ")";
      }
      out += " ";
    }
    switch (q.kind) {
      case QueryKind::kSelect:
        out += Select(q);
        break;
      case QueryKind::kValues:
        out += "VALUES " + Rows(q.values);
        break;
      case QueryKind::kTable:
        out += "TABLE " + Name(q.table_name);
        break;
      case QueryKind::kSetOperation: {
        const char* op = q.set_operator == SetOperator::kUnion
                             ? "UNION"
                             : (q.set_operator == SetOperator::kIntersect ? "INTERSECT" : "EXCEPT");
        out += "(" + Query(*q.left) + ") " + op + (q.set_all ? " ALL" : "") + " (" +
               Query(*q.right) + ")";
        break;
      }
    }
    if (!q.order_by.empty()) out += " ORDER BY " + Order(q.order_by);
    if (q.limit_all) out += " LIMIT ALL";
    if (q.limit) out += " LIMIT " + Expression(*q.limit);
    if (q.offset) out += " OFFSET " + Expression(*q.offset);
    return out;
  }

  std::string GroupingElements(const struct Query& q) {
    std::string out;
    for (size_t i = 0; i < q.grouping_elements.size(); ++i) {
      const GroupingElement& element = q.grouping_elements[i];
      if (i > 0) out += q.grouping_sets_legacy && element.analytics ? " " : ", ";
      if (!element.analytics) {
        out += Expression(*element.expression);
        continue;
      }
      const GroupingAnalytics& analytics = *element.analytics;
      bool sets = analytics.kind == GroupingAnalytics::Kind::kGroupingSets;
      out += sets                                                 ? "GROUPING SETS ("
             : analytics.kind == GroupingAnalytics::Kind::kRollup ? "ROLLUP ("
                                                                  : "CUBE (";
      for (size_t g = 0; g < analytics.groups.size(); ++g) {
        if (g > 0) out += ", ";
        const std::vector<ExpressionPtr>& group = analytics.groups[g];
        out += group.size() == 1 && !sets ? Expression(*group[0]) : "(" + List(group) + ")";
      }
      out += ")";
    }
    return out;
  }

  std::string Select(const struct Query& q) {
    std::string out = q.distinct ? "SELECT DISTINCT " : "SELECT ";
    for (size_t i = 0; i < q.select_list.size(); ++i) {
      const SelectItem& item = q.select_list[i];
      if (i > 0) out += ", ";
      out += Expression(*item.expression);
      if (!item.alias.empty()) out += " AS " + QuoteIdentifier(item.alias);
      if (!item.column_aliases.empty()) out += " AS " + NameList(item.column_aliases);
    }
    if (!q.from.empty()) {
      out += " FROM ";
      for (size_t i = 0; i < q.from.size(); ++i) {
        if (i > 0) out += ", ";
        out += Table(*q.from[i]);
      }
    }
    if (q.where) out += " WHERE " + Expression(*q.where);
    if (q.group_by_all) out += " GROUP BY ALL";
    if (!q.group_by.empty()) out += " GROUP BY " + List(q.group_by);
    if (!q.grouping_elements.empty()) out += " GROUP BY " + GroupingElements(q);
    if (q.having) out += " HAVING " + Expression(*q.having);
    if (q.qualify) out += " QUALIFY " + Expression(*q.qualify);
    if (!q.windows.empty()) {
      out += " WINDOW ";
      for (size_t i = 0; i < q.windows.size(); ++i) {
        if (i > 0) out += ", ";
        out += QuoteIdentifier(q.windows[i].first) + " AS (" + Window(q.windows[i].second) + ")";
      }
    }
    return out;
  }

  std::string Alias(const TableReference& t) {
    std::string out;
    if (!t.alias.empty()) out += " AS " + QuoteIdentifier(t.alias);
    if (!t.column_aliases.empty()) out += NameList(t.column_aliases);
    return out;
  }

  std::string TimeTravelText(const TimeTravel& travel) {
    return std::string(travel.kind == TimeTravel::Kind::kVersion ? " VERSION AS OF "
                                                                 : " TIMESTAMP AS OF ") +
           Expression(*travel.value);
  }

  std::string Table(const TableReference& t) {
    switch (t.kind) {
      case TableReferenceKind::kTable: {
        if (t.stream && t.stream_call) {
          std::string out = "STREAM " + Name(t.name) + "(";
          std::string separator;
          for (const std::string& argument : t.stream_arguments) {
            out += separator + QuoteString(argument);
            separator = ", ";
          }
          for (const auto& [key, value] : t.stream_options) {
            out += separator + QuoteIdentifier(key) + " => " + QuoteString(value);
            separator = ", ";
          }
          return out + ")" + Alias(t);
        }
        if (t.stream) {
          std::string out = "STREAM(" + Name(t.name) + ")";
          if (!t.stream_options.empty()) out += " WITH " + Properties(t.stream_options);
          return out + Alias(t);
        }
        std::string out = Name(t.name);
        if (t.time_travel) out += TimeTravelText(*t.time_travel);
        if (t.sample) {
          const TableSample& sample = *t.sample;
          switch (sample.kind) {
            case TableSample::Kind::kPercent:
              out += " TABLESAMPLE (" + Expression(*sample.amount) + " PERCENT)";
              break;
            case TableSample::Kind::kRows:
              out += " TABLESAMPLE (" + Expression(*sample.amount) + " ROWS)";
              break;
            case TableSample::Kind::kBucket:
              out += " TABLESAMPLE (BUCKET " + std::to_string(sample.numerator) + " OUT OF " +
                     std::to_string(sample.denominator) + ")";
              break;
          }
          if (sample.seed) out += " REPEATABLE (" + std::to_string(*sample.seed) + ")";
        }
        return out + Alias(t);
      }
      case TableReferenceKind::kSubquery:
        return "(" + Query(*t.subquery) + ")" + Alias(t);
      case TableReferenceKind::kValues:
        return "(VALUES " + Rows(t.values) + ")" + Alias(t);
      case TableReferenceKind::kFunction:
        return Expression(*t.function) + Alias(t);
      case TableReferenceKind::kJoin: {
        static constexpr const char* kJoinNames[] = {
            "JOIN",       "LEFT OUTER JOIN", "RIGHT OUTER JOIN", "FULL OUTER JOIN",
            "CROSS JOIN", "LEFT SEMI JOIN",  "LEFT ANTI JOIN"};
        std::string out = "(" + Table(*t.left) + (t.natural ? " NATURAL " : " ") +
                          kJoinNames[static_cast<int>(t.join_type)] + " " + Table(*t.right);
        if (t.condition) out += " ON " + Expression(*t.condition);
        if (!t.using_columns.empty()) out += " USING " + NameList(t.using_columns);
        return out + ")";
      }
      case TableReferenceKind::kLateralView: {
        std::string out = Table(*t.left) + " LATERAL VIEW " + (t.outer ? "OUTER " : "") +
                          Expression(*t.function) + " " + QuoteIdentifier(t.alias);
        if (!t.column_aliases.empty()) {
          out += " AS ";
          for (size_t i = 0; i < t.column_aliases.size(); ++i) {
            if (i > 0) out += ", ";
            out += QuoteIdentifier(t.column_aliases[i]);
          }
        }
        return out;
      }
      case TableReferenceKind::kPivot: {
        const PivotSpec& pivot = *t.pivot;
        std::string out = Table(*t.left) + " PIVOT (";
        for (size_t i = 0; i < pivot.aggregates.size(); ++i) {
          if (i > 0) out += ", ";
          out += Expression(*pivot.aggregates[i]);
          if (!pivot.aggregate_aliases[i].empty()) {
            out += " AS " + QuoteIdentifier(pivot.aggregate_aliases[i]);
          }
        }
        out += " FOR " + NameTuple(pivot.columns) + " IN (";
        for (size_t i = 0; i < pivot.values.size(); ++i) {
          if (i > 0) out += ", ";
          out += pivot.values[i].size() == 1 ? Expression(*pivot.values[i][0])
                                             : "(" + List(pivot.values[i]) + ")";
          if (!pivot.value_aliases[i].empty()) {
            out += " AS " + QuoteIdentifier(pivot.value_aliases[i]);
          }
        }
        return out + "))" + Alias(t);
      }
      case TableReferenceKind::kUnpivot: {
        const UnpivotSpec& unpivot = *t.unpivot;
        std::string out = Table(*t.left) + " UNPIVOT " +
                          (unpivot.include_nulls ? "INCLUDE" : "EXCLUDE") + " NULLS (";
        out += unpivot.value_columns.size() == 1 ? QuoteIdentifier(unpivot.value_columns[0])
                                                 : NameList(unpivot.value_columns);
        out += " FOR " + QuoteIdentifier(unpivot.name_column) + " IN (";
        for (size_t i = 0; i < unpivot.columns.size(); ++i) {
          if (i > 0) out += ", ";
          out += NameTuple(unpivot.columns[i]);
          if (!unpivot.aliases[i].empty()) out += " AS " + QuoteIdentifier(unpivot.aliases[i]);
        }
        return out + "))" + Alias(t);
      }
    }
    return "?";
  }

  std::string NameTuple(const std::vector<QualifiedName>& names) {
    if (names.size() == 1) return Name(names[0]);
    std::string out = "(";
    for (size_t i = 0; i < names.size(); ++i) out += (i > 0 ? ", " : "") + Name(names[i]);
    return out + ")";
  }

  std::string Properties(const std::vector<std::pair<std::string, std::string>>& properties) {
    std::string out = "(";
    for (size_t i = 0; i < properties.size(); ++i) {
      if (i > 0) out += ", ";
      out += QuoteString(properties[i].first) + " = " + QuoteString(properties[i].second);
    }
    return out + ")";
  }

  std::string Column(const ColumnDefinition& column) {
    std::string out;
    for (const std::string& part : column.parent_path) out += QuoteIdentifier(part) + ".";
    out += QuoteIdentifier(column.name) + " " + TypeText(column.type);
    if (!column.nullable) out += " NOT NULL";
    if (column.generated_as) {
      out += " GENERATED ALWAYS AS (" + Expression(*column.generated_as) + ")";
    }
    if (column.identity) {
      out += column.identity->always ? " GENERATED ALWAYS AS IDENTITY"
                                     : " GENERATED BY DEFAULT AS IDENTITY";
      out += " (START WITH " + std::to_string(column.identity->start) + " INCREMENT BY " +
             std::to_string(column.identity->step) + ")";
    }
    if (column.default_value) out += " DEFAULT " + Expression(*column.default_value);
    if (column.comment) out += " COMMENT " + QuoteString(*column.comment);
    return out;
  }

  std::string Assignments(const std::vector<Assignment>& assignments) {
    std::string out;
    for (size_t i = 0; i < assignments.size(); ++i) {
      if (i > 0) out += ", ";
      out += Name(assignments[i].column) + " = " + Expression(*assignments[i].value);
    }
    return out;
  }

  std::string MergeClauseText(const MergeClause& clause) {
    std::string out = " WHEN ";
    switch (clause.match) {
      case MergeMatch::kMatched:
        out += "MATCHED";
        break;
      case MergeMatch::kNotMatchedByTarget:
        out += "NOT MATCHED";
        break;
      case MergeMatch::kNotMatchedBySource:
        out += "NOT MATCHED BY SOURCE";
        break;
    }
    if (clause.condition) out += " AND " + Expression(*clause.condition);
    out += " THEN ";
    switch (clause.action) {
      case MergeAction::kUpdate:
        return out + "UPDATE SET " + Assignments(clause.assignments);
      case MergeAction::kUpdateStar:
        return out + "UPDATE SET *";
      case MergeAction::kDelete:
        return out + "DELETE";
      case MergeAction::kInsertStar:
        return out + "INSERT *";
      case MergeAction::kInsert: {
        out += "INSERT ";
        if (!clause.insert_columns.empty()) {
          out += "(";
          for (size_t i = 0; i < clause.insert_columns.size(); ++i) {
            if (i > 0) out += ", ";
            out += Name(clause.insert_columns[i]);
          }
          out += ") ";
        }
        return out + "VALUES (" + List(clause.insert_values) + ")";
      }
    }
    return out;
  }

  std::string Statement(const struct Statement& s) {
    switch (s.kind) {
      case StatementKind::kQuery:
        return Query(*s.query);
      case StatementKind::kCreateTable:
        return CreateTable(s);
      case StatementKind::kCreateView: {
        if (s.replace) return "ALTER VIEW " + Name(s.name) + " AS " + Query(*s.query);
        std::string out = "CREATE ";
        if (s.or_replace) out += "OR REPLACE ";
        if (s.temporary) out += "TEMPORARY ";
        out += "VIEW ";
        if (s.if_not_exists) out += "IF NOT EXISTS ";
        out += Name(s.name);
        if (!s.column_names.empty()) out += " " + NameList(s.column_names);
        if (s.comment) out += " COMMENT " + QuoteString(*s.comment);
        if (!s.properties.empty()) out += " TBLPROPERTIES " + Properties(s.properties);
        return out + " AS " + Query(*s.query);
      }
      case StatementKind::kCreateDatabase: {
        std::string out = "CREATE DATABASE ";
        if (s.if_not_exists) out += "IF NOT EXISTS ";
        out += Name(s.name);
        if (s.comment) out += " COMMENT " + QuoteString(*s.comment);
        if (s.location) out += " LOCATION " + QuoteString(*s.location);
        if (!s.properties.empty()) out += " WITH DBPROPERTIES " + Properties(s.properties);
        return out;
      }
      case StatementKind::kDropTable:
      case StatementKind::kDropView:
      case StatementKind::kDropDatabase: {
        const char* what = s.kind == StatementKind::kDropTable
                               ? "TABLE"
                               : (s.kind == StatementKind::kDropView ? "VIEW" : "DATABASE");
        std::string out =
            std::string("DROP ") + what + (s.if_exists ? " IF EXISTS " : " ") + Name(s.name);
        if (s.extended) out += " CASCADE";
        return out;
      }
      case StatementKind::kUse:
        return "USE " + Name(s.name);
      case StatementKind::kInsert: {
        std::string out = std::string(s.schema_evolution ? "INSERT WITH SCHEMA EVOLUTION " : "INSERT ") +
                          (s.overwrite ? "OVERWRITE " : "INTO ") + Name(s.name);
        if (!s.insert_partitions.empty()) {
          out += " PARTITION (";
          for (size_t i = 0; i < s.insert_partitions.size(); ++i) {
            const auto& [column, value] = s.insert_partitions[i];
            out += (i > 0 ? ", " : "") + QuoteIdentifier(column);
            if (value) out += " = " + Expression(*value);
          }
          out += ")";
          if (s.if_not_exists) out += " IF NOT EXISTS";
        }
        if (s.by_name) out += " BY NAME";
        if (!s.column_names.empty()) out += " " + NameList(s.column_names);
        if (s.replace_where) out += " REPLACE WHERE " + Expression(*s.replace_where);
        return out + " " + Query(*s.query);
      }
      case StatementKind::kMerge: {
        std::string out = "MERGE ";
        if (s.schema_evolution) out += "WITH SCHEMA EVOLUTION ";
        out += "INTO " + Table(*s.target) + " USING " + Table(*s.source) + " ON " +
               Expression(*s.condition);
        for (const MergeClause& clause : s.merge_clauses) out += MergeClauseText(clause);
        return out;
      }
      case StatementKind::kUpdate: {
        std::string out = "UPDATE " + Table(*s.target) + " SET " + Assignments(s.assignments);
        if (s.where) out += " WHERE " + Expression(*s.where);
        return out;
      }
      case StatementKind::kDelete: {
        std::string out = "DELETE FROM " + Table(*s.target);
        if (s.where) out += " WHERE " + Expression(*s.where);
        return out;
      }
      case StatementKind::kAlterTable:
        return AlterTable(s);
      case StatementKind::kDescribeTable:
        return std::string(s.extended ? "DESCRIBE TABLE EXTENDED " : "DESCRIBE TABLE ") +
               Name(s.name);
      case StatementKind::kDescribeDetail:
        return "DESCRIBE DETAIL " + Name(s.name);
      case StatementKind::kDescribeHealth:
        return "DESCRIBE HEALTH " + Name(s.name);
      case StatementKind::kDescribeHistory: {
        std::string out = "DESCRIBE HISTORY " + Name(s.name);
        if (s.limit) out += " LIMIT " + Expression(*s.limit);
        return out;
      }
      case StatementKind::kShowTables:
      case StatementKind::kShowViews: {
        std::string out = s.kind == StatementKind::kShowTables ? "SHOW TABLES" : "SHOW VIEWS";
        if (!s.name.empty()) out += " IN " + Name(s.name);
        if (!s.pattern.empty()) out += " LIKE " + QuoteString(s.pattern);
        return out;
      }
      case StatementKind::kShowDatabases: {
        std::string out = "SHOW DATABASES";
        if (!s.pattern.empty()) out += " LIKE " + QuoteString(s.pattern);
        return out;
      }
      case StatementKind::kShowTableProperties: {
        std::string out = "SHOW TBLPROPERTIES " + Name(s.name);
        if (!s.property_keys.empty()) out += " (" + QuoteString(s.property_keys[0]) + ")";
        return out;
      }
      case StatementKind::kShowCreateTable:
        return "SHOW CREATE TABLE " + Name(s.name);
      case StatementKind::kShowColumns:
        return "SHOW COLUMNS IN " + Name(s.name);
      case StatementKind::kExplain:
        return "EXPLAIN " + (s.explain_mode.empty() ? "" : s.explain_mode + " ") +
               Statement(*s.explained);
      case StatementKind::kSet:
        if (s.key.empty()) return "SET";
        return "SET " + s.key + (s.value ? " = " + *s.value : "");
      case StatementKind::kReset:
        return s.key.empty() ? "RESET" : "RESET " + s.key;
      case StatementKind::kRestore:
        return "RESTORE TABLE " + Name(s.name) + " TO" + TimeTravelText(*s.time_travel);
      case StatementKind::kVacuum: {
        std::string out = "VACUUM " + Name(s.name);
        if (s.retain_hours) out += " RETAIN " + Expression(*s.retain_hours) + " HOURS";
        if (s.dry_run) out += " DRY RUN";
        return out;
      }
      case StatementKind::kOptimize: {
        if (s.apply_purge) {
          return "REORG TABLE " + Name(s.name) +
                 (s.where ? " WHERE " + Expression(*s.where) : std::string()) + " APPLY (PURGE)";
        }
        std::string out = "OPTIMIZE " + Name(s.name);
        if (s.extended) out += " FULL";
        if (s.where) out += " WHERE " + Expression(*s.where);
        if (!s.column_names.empty()) out += " ZORDER BY " + NameList(s.column_names);
        return out;
      }
      case StatementKind::kCreateStreamingTable: {
        // The CREATE TABLE text with STREAMING spliced in.
        std::string out = CreateTable(s);
        std::string_view head = s.or_replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ";
        out = std::string(s.or_replace ? "CREATE OR REFRESH STREAMING TABLE "
                                       : "CREATE STREAMING TABLE ") +
              out.substr(head.size());
        if (s.flow_body) out += " FLOW " + AutoCdcText(*s.flow_body, /*into=*/false);
        return out;
      }
      case StatementKind::kRefreshStreamingTable:
        return "REFRESH STREAMING TABLE " + Name(s.name) + (s.extended ? " FULL" : "") +
               (s.value ? " EVERY " + QuoteString(*s.value) : "");
      case StatementKind::kCreateFlow: {
        std::string out = "CREATE FLOW " + Name(s.name);
        if (s.comment) out += " COMMENT " + QuoteString(*s.comment);
        const struct Statement& body = *s.flow_body;
        if (body.kind == StatementKind::kInsert) {
          return out + " AS INSERT INTO " + Name(body.name) + " BY NAME " + Query(*body.query);
        }
        return out + " AS " + Statement(body);
      }
      case StatementKind::kAutoCdc:
        return AutoCdcText(s);
      case StatementKind::kConvertToDelta: {
        std::string out = "CONVERT TO DELTA " + Name(s.name);
        if (!s.properties.empty()) out += " NO STATISTICS";
        if (!s.columns.empty()) {
          out += " PARTITIONED BY (";
          for (size_t i = 0; i < s.columns.size(); ++i) {
            if (i > 0) out += ", ";
            out += Column(s.columns[i]);
          }
          out += ")";
        }
        return out;
      }
    }
    return "?";
  }

  std::string Selection(const ColumnSelection& selection) {
    if (!selection.all) return NameList(selection.columns);
    return selection.columns.empty() ? "*" : "* EXCEPT " + NameList(selection.columns);
  }

  // With `into` false, a streaming table's FLOW AUTO CDC: no INTO target.
  std::string AutoCdcText(const struct Statement& s, bool into = true) {
    const AutoCdc& cdc = *s.auto_cdc;
    std::string out = cdc.apply_changes_spelling ? "APPLY CHANGES " : "AUTO CDC ";
    if (into) out += "INTO " + Name(s.name) + " ";
    out += "FROM " + Table(*cdc.source) + " KEYS " + NameList(cdc.keys);
    if (cdc.ignore_null_updates) out += " IGNORE NULL UPDATES";
    if (cdc.apply_as_delete) out += " APPLY AS DELETE WHEN " + Expression(*cdc.apply_as_delete);
    if (cdc.apply_as_truncate) {
      out += " APPLY AS TRUNCATE WHEN " + Expression(*cdc.apply_as_truncate);
    }
    out += " SEQUENCE BY " + Expression(*cdc.sequence_by);
    if (cdc.columns) out += " COLUMNS " + Selection(*cdc.columns);
    out += " STORED AS SCD TYPE " + std::to_string(cdc.scd_type);
    if (cdc.track_history) out += " TRACK HISTORY ON " + Selection(*cdc.track_history);
    return out;
  }

  std::string CreateTable(const struct Statement& s) {
    std::string out = s.replace ? "REPLACE TABLE "
                                : (s.or_replace ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ");
    if (s.if_not_exists) out += "IF NOT EXISTS ";
    out += Name(s.name);
    if (s.source) {
      out += " SHALLOW CLONE " + Table(*s.source);
      if (!s.properties.empty()) out += " TBLPROPERTIES " + Properties(s.properties);
      if (s.location) out += " LOCATION " + QuoteString(*s.location);
      return out;
    }
    if (!s.columns.empty() || !s.constraints.empty()) {
      out += " (";
      bool first = true;
      for (const ColumnDefinition& column : s.columns) {
        if (!first) out += ", ";
        first = false;
        out += Column(column);
      }
      for (const CheckConstraint& constraint : s.constraints) {
        if (!first) out += ", ";
        first = false;
        out += "CONSTRAINT " + QuoteIdentifier(constraint.name) + " CHECK (" +
               Expression(*constraint.check) + ")";
      }
      out += ")";
    }
    if (!s.provider.empty()) out += " USING " + QuoteIdentifier(s.provider);
    if (!s.partition_columns.empty()) out += " PARTITIONED BY " + NameList(s.partition_columns);
    if (s.cluster_columns) out += " CLUSTER BY " + ClusterColumns(*s.cluster_columns);
    if (s.location) out += " LOCATION " + QuoteString(*s.location);
    if (s.comment) out += " COMMENT " + QuoteString(*s.comment);
    if (!s.properties.empty()) out += " TBLPROPERTIES " + Properties(s.properties);
    if (s.query) out += " AS " + Query(*s.query);
    return out;
  }

  std::string ClusterColumns(const std::vector<QualifiedName>& columns) {
    if (columns.empty()) return "NONE";
    std::string out = "(";
    for (size_t i = 0; i < columns.size(); ++i) {
      if (i > 0) out += ", ";
      out += Name(columns[i]);
    }
    return out + ")";
  }

  std::string AlterTable(const struct Statement& s) {
    std::string out = "ALTER TABLE " + Name(s.name) + " ";
    switch (s.alter_action) {
      case AlterTableAction::kSetProperties:
        return out + "SET TBLPROPERTIES " + Properties(s.properties);
      case AlterTableAction::kUnsetProperties: {
        out += "UNSET TBLPROPERTIES ";
        if (s.if_exists) out += "IF EXISTS ";
        out += "(";
        for (size_t i = 0; i < s.property_keys.size(); ++i) {
          if (i > 0) out += ", ";
          out += QuoteString(s.property_keys[i]);
        }
        return out + ")";
      }
      case AlterTableAction::kAddColumns: {
        out += "ADD COLUMNS (";
        for (size_t i = 0; i < s.columns.size(); ++i) {
          if (i > 0) out += ", ";
          out += Column(s.columns[i]);
          if (s.columns[i].position) {
            out += s.columns[i].position->empty() ? " FIRST"
                                                  : " AFTER " + QuoteIdentifier(*s.columns[i].position);
          }
        }
        return out + ")";
      }
      case AlterTableAction::kAddConstraint:
        return out + "ADD CONSTRAINT " + QuoteIdentifier(s.constraints[0].name) + " CHECK (" +
               Expression(*s.constraints[0].check) + ")";
      case AlterTableAction::kDropConstraint:
        return out + "DROP CONSTRAINT " + (s.if_exists ? "IF EXISTS " : "") +
               QuoteIdentifier(s.constraint_name);
      case AlterTableAction::kRenameColumn:
        return out + "RENAME COLUMN " + Name(s.column_path) + " TO " + QuoteIdentifier(s.new_name);
      case AlterTableAction::kAlterColumn: {
        out += "ALTER COLUMN " + Name(s.column_path) + " ";
        if (s.alter_column_change == "TYPE") return out + "TYPE " + TypeText(s.columns[0].type);
        if (s.alter_column_change == "COMMENT") return out + "COMMENT " + QuoteString(*s.comment);
        if (s.alter_column_change == "AFTER") return out + "AFTER " + QuoteIdentifier(s.new_name);
        if (s.alter_column_change == "SET DEFAULT") {
          return out + "SET DEFAULT " + Expression(*s.columns[0].default_value);
        }
        return out + s.alter_column_change;
      }
      case AlterTableAction::kClusterBy:
        return out + "CLUSTER BY " + ClusterColumns(*s.cluster_columns);
      case AlterTableAction::kDropFeature:
        return out + "DROP FEATURE " + QuoteIdentifier(s.feature_name) +
               (s.truncate_history ? " TRUNCATE HISTORY" : "");
      case AlterTableAction::kDropColumns: {
        out += "DROP COLUMNS ";
        if (s.if_exists) out += "IF EXISTS ";
        out += "(";
        for (size_t i = 0; i < s.column_paths.size(); ++i) {
          if (i > 0) out += ", ";
          out += Name(s.column_paths[i]);
        }
        return out + ")";
      }
    }
    return out;
  }
};

}  // namespace

std::string QuoteIdentifier(const std::string& name) {
  if (IsPlainIdentifier(name) && !NeedsQuotingAsKeyword(name)) return name;
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

std::string ToString(const Expression& expression) { return Printer().Expression(expression); }
std::string ToString(const Query& query) { return Printer().Query(query); }
std::string ToString(const TableReference& table) { return Printer().Table(table); }
std::string ToString(const Statement& statement) { return Printer().Statement(statement); }

}  // namespace silt::sql
