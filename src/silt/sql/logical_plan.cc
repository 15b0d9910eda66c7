#include "silt/sql/logical_plan.h"

#include <atomic>
#include <cctype>
#include <sstream>

#include "silt/base/check.h"

namespace silt::sql {

int64_t NextColumnId() {
  static std::atomic<int64_t> next_id{1};
  return next_id.fetch_add(1);
}

LogicalColumn MakeLogicalColumn(std::string name, DataTypePtr type, bool nullable,
                                std::vector<std::string> qualifier) {
  LogicalColumn column;
  column.name = std::move(name);
  column.type = std::move(type);
  column.nullable = nullable;
  column.qualifier = std::move(qualifier);
  column.id = NextColumnId();
  return column;
}

SchemaPtr OutputSchema(const LogicalNode& node) {
  std::vector<Field> fields;
  fields.reserve(node.columns.size());
  for (const LogicalColumn& column : node.columns) {
    fields.push_back(Field{column.name, column.type, column.nullable, {}});
  }
  return std::make_shared<Schema>(std::move(fields));
}

LogicalPtr MakeLogicalFilter(LogicalPtr child, expr::ExpressionPtr predicate) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kFilter;
  node->columns = child->columns;
  node->predicate = std::move(predicate);
  node->children.push_back(std::move(child));
  return node;
}

LogicalPtr MakeLogicalProject(LogicalPtr child, std::vector<expr::ExpressionPtr> expressions,
                              std::vector<LogicalColumn> columns) {
  SILT_CHECK(expressions.size() == columns.size(), "project names and expressions differ in number");
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kProject;
  for (size_t i = 0; i < expressions.size(); ++i) {
    columns[i].type = expressions[i]->type();
    columns[i].nullable = expressions[i]->nullable();
  }
  node->columns = std::move(columns);
  node->expressions = std::move(expressions);
  node->children.push_back(std::move(child));
  return node;
}

LogicalPtr MakeLogicalSelectColumns(LogicalPtr child, const std::vector<int>& indexes) {
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<LogicalColumn> columns;
  for (int index : indexes) {
    const LogicalColumn& column = child->columns[index];
    expressions.push_back(expr::Column(index, column.type, column.nullable));
    columns.push_back(column);
  }
  return MakeLogicalProject(std::move(child), std::move(expressions), std::move(columns));
}

LogicalPtr MakeLogicalJoin(LogicalPtr left, LogicalPtr right, exec::JoinType type,
                           expr::ExpressionPtr condition) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kJoin;
  node->join_type = type;
  node->predicate = std::move(condition);
  bool left_nullable = type == exec::JoinType::kRightOuter || type == exec::JoinType::kFullOuter;
  bool right_nullable = type == exec::JoinType::kLeftOuter || type == exec::JoinType::kFullOuter;
  for (LogicalColumn column : left->columns) {
    column.nullable = column.nullable || left_nullable;
    node->columns.push_back(std::move(column));
  }
  if (type != exec::JoinType::kLeftSemi && type != exec::JoinType::kLeftAnti) {
    for (LogicalColumn column : right->columns) {
      column.nullable = column.nullable || right_nullable;
      node->columns.push_back(std::move(column));
    }
  }
  node->children = {std::move(left), std::move(right)};
  return node;
}

LogicalPtr MakeLogicalSort(LogicalPtr child, std::vector<exec::SortKey> keys) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kSort;
  node->columns = child->columns;
  node->sort_keys = std::move(keys);
  node->children.push_back(std::move(child));
  return node;
}

LogicalPtr MakeLogicalLimit(LogicalPtr child, std::optional<int64_t> limit, int64_t offset) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kLimit;
  node->columns = child->columns;
  node->limit = limit;
  node->offset = offset;
  node->children.push_back(std::move(child));
  return node;
}

LogicalPtr MakeLogicalDistinct(LogicalPtr child) {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kDistinct;
  node->columns = child->columns;
  node->children.push_back(std::move(child));
  return node;
}

std::string ExpressionText(const expr::Expression& expression,
                           const std::vector<LogicalColumn>& input) {
  // Expression::ToString prints column references as `#index`; plan text names them.
  std::string raw = expression.ToString();
  std::string text;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '#' && i + 1 < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i + 1]))) {
      size_t end = i + 1;
      while (end < raw.size() && std::isdigit(static_cast<unsigned char>(raw[end]))) ++end;
      size_t index = std::stoul(raw.substr(i + 1, end - i - 1));
      if (index < input.size()) {
        text += input[index].name + "#" + std::to_string(input[index].id);
        i = end - 1;
        continue;
      }
    }
    text += raw[i];
  }
  return text;
}

namespace {

std::string ColumnList(const std::vector<LogicalColumn>& columns) {
  std::string text;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i > 0) text += ", ";
    text += columns[i].name + "#" + std::to_string(columns[i].id);
  }
  return text;
}

std::string SortKeyText(const std::vector<exec::SortKey>& keys,
                        const std::vector<LogicalColumn>& input) {
  std::string text;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) text += ", ";
    const LogicalColumn& column = input[keys[i].column];
    text += column.name + "#" + std::to_string(column.id) + (keys[i].ascending ? " ASC" : " DESC") +
            (keys[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  return text;
}

std::string ScanPredicateText(const log::ScanPredicate& predicate) {
  using Op = log::ScanPredicate::Op;
  switch (predicate.op) {
    case Op::kEqual: return predicate.column + " = " + predicate.value;
    case Op::kLess: return predicate.column + " < " + predicate.value;
    case Op::kLessOrEqual: return predicate.column + " <= " + predicate.value;
    case Op::kGreater: return predicate.column + " > " + predicate.value;
    case Op::kGreaterOrEqual: return predicate.column + " >= " + predicate.value;
    case Op::kIsNull: return "isnull(" + predicate.column + ")";
    case Op::kIsNotNull: return "isnotnull(" + predicate.column + ")";
  }
  return "";
}

std::string NodeLine(const LogicalNode& node) {
  const std::vector<LogicalColumn>* input = node.children.empty() ? &node.columns : &node.children[0]->columns;
  std::string text;
  switch (node.kind) {
    case LogicalKind::kDeltaScan: {
      text = "Relation " + node.table_name + "[" + ColumnList(node.columns) + "] delta";
      if (node.snapshot) text += " version " + std::to_string(node.snapshot->version());
      if (node.predicate) text += ", filter: " + ExpressionText(*node.predicate, node.columns);
      if (!node.scan_predicates.empty()) {
        text += ", pruning: [";
        for (size_t i = 0; i < node.scan_predicates.size(); ++i) {
          if (i > 0) text += ", ";
          text += ScanPredicateText(node.scan_predicates[i]);
        }
        text += "]";
      }
      return text;
    }
    case LogicalKind::kChangeFeedScan:
      text = "Relation " + node.table_name + "[" + ColumnList(node.columns) + "] table_changes versions " +
             std::to_string(node.change_feed->start_version()) + " to " +
             std::to_string(node.change_feed->end_version());
      if (node.predicate) text += ", filter: " + ExpressionText(*node.predicate, node.columns);
      if (!node.scan_predicates.empty()) {
        text += ", pruning: [";
        for (size_t i = 0; i < node.scan_predicates.size(); ++i) {
          if (i > 0) text += ", ";
          text += ScanPredicateText(node.scan_predicates[i]);
        }
        text += "]";
      }
      return text;
    case LogicalKind::kParquetScan:
      text = "Relation " + node.table_name + "[" + ColumnList(node.columns) + "] parquet";
      if (node.predicate) text += ", filter: " + ExpressionText(*node.predicate, node.columns);
      return text;
    case LogicalKind::kValues: {
      int64_t rows = 0;
      for (const Batch& batch : node.batches) rows += batch.num_rows();
      return "LocalRelation [" + ColumnList(node.columns) + "], " + std::to_string(rows) + " rows";
    }
    case LogicalKind::kRange:
      return "Range (" + std::to_string(node.range_start) + ", " + std::to_string(node.range_end) +
             ", step=" + std::to_string(node.range_step) + ") [" + ColumnList(node.columns) + "]";
    case LogicalKind::kFilter:
      return "Filter " + ExpressionText(*node.predicate, *input);
    case LogicalKind::kProject: {
      text = "Project [";
      for (size_t i = 0; i < node.expressions.size(); ++i) {
        if (i > 0) text += ", ";
        const LogicalColumn& column = node.columns[i];
        const expr::Expression& expression = *node.expressions[i];
        if (expression.kind() == expr::ExpressionKind::kColumn &&
            (*input)[expression.column_index()].id == column.id) {
          text += column.name + "#" + std::to_string(column.id);
        } else {
          text += ExpressionText(expression, *input) + " AS " + column.name + "#" +
                  std::to_string(column.id);
        }
      }
      return text + "]";
    }
    case LogicalKind::kAggregate: {
      text = "Aggregate [";
      for (size_t i = 0; i < node.expressions.size(); ++i) {
        if (i > 0) text += ", ";
        text += ExpressionText(*node.expressions[i], *input);
      }
      text += "], [";
      for (size_t i = 0; i < node.columns.size(); ++i) {
        if (i > 0) text += ", ";
        const LogicalColumn& column = node.columns[i];
        if (i >= node.expressions.size()) {
          const exec::AggregateCall& call = node.aggregates[i - node.expressions.size()];
          text += call.function + "(";
          if (call.distinct) text += "DISTINCT ";
          for (size_t a = 0; a < call.arguments.size(); ++a) {
            if (a > 0) text += ", ";
            text += ExpressionText(*call.arguments[a], *input);
          }
          text += ") AS ";
        }
        text += column.name + "#" + std::to_string(column.id);
      }
      return text + "]";
    }
    case LogicalKind::kWindow: {
      text = "Window [";
      size_t base = node.children[0]->columns.size();
      for (size_t i = 0; i < node.window_calls.size(); ++i) {
        if (i > 0) text += ", ";
        const exec::WindowCall& call = node.window_calls[i];
        text += call.function + "(" + (call.distinct ? "distinct " : "");
        for (size_t a = 0; a < call.arguments.size(); ++a) {
          if (a > 0) text += ", ";
          text += ExpressionText(*call.arguments[a], *input);
        }
        text += ")";
        if (call.ignore_nulls) text += " IGNORE NULLS";
        if (call.filter) text += " FILTER (WHERE " + ExpressionText(*call.filter, *input) + ")";
        const LogicalColumn& column = node.columns[base + i];
        text += " AS " + column.name + "#" + std::to_string(column.id);
      }
      text += "], [";
      for (size_t i = 0; i < node.window_partition.size(); ++i) {
        if (i > 0) text += ", ";
        text += ExpressionText(*node.window_partition[i], *input);
      }
      return text + "], [" + SortKeyText(node.sort_keys, *input) + "]";
    }
    case LogicalKind::kJoin:
      text = "Join " + exec::JoinTypeName(node.join_type);
      if (node.predicate) {
        std::vector<LogicalColumn> both = node.children[0]->columns;
        both.insert(both.end(), node.children[1]->columns.begin(), node.children[1]->columns.end());
        text += ", " + ExpressionText(*node.predicate, both);
      }
      if (node.null_aware_anti) text += " (null aware)";
      return text;
    case LogicalKind::kSort:
      text = "Sort [" + SortKeyText(node.sort_keys, *input) + "]";
      if (node.limit) text += ", limit " + std::to_string(*node.limit);
      if (node.offset > 0) text += ", offset " + std::to_string(node.offset);
      return text;
    case LogicalKind::kLimit:
      text = "Limit " + (node.limit ? std::to_string(*node.limit) : std::string("ALL"));
      if (node.offset > 0) text += ", offset " + std::to_string(node.offset);
      return text;
    case LogicalKind::kUnion: return "Union";
    case LogicalKind::kSetOperation:
      return std::string(node.set_operation == exec::SetOperation::kIntersect ? "Intersect" : "Except") +
             (node.set_all ? " All" : "");
    case LogicalKind::kDistinct: return "Distinct";
    case LogicalKind::kGenerate: {
      static const char* kNames[] = {"explode", "posexplode", "inline"};
      text = std::string("Generate ") + kNames[static_cast<int>(node.generate.kind)] + "(" +
             ExpressionText(*node.generate.input, *input) + ")";
      if (node.generate.outer) text += ", outer";
      size_t base = node.children[0]->columns.size();
      std::vector<LogicalColumn> generated(node.columns.begin() + base, node.columns.end());
      return text + ", [" + ColumnList(generated) + "]";
    }
    case LogicalKind::kExpand: {
      text = "Expand [";
      for (size_t p = 0; p < node.projections.size(); ++p) {
        text += p > 0 ? ", [" : "[";
        for (size_t i = 0; i < node.projections[p].size(); ++i) {
          if (i > 0) text += ", ";
          text += ExpressionText(*node.projections[p][i], *input);
        }
        text += "]";
      }
      return text + "], [" + ColumnList(node.columns) + "]";
    }
  }
  return text;
}

void Print(const LogicalNode& node, const std::string& prefix, bool is_child, std::ostringstream& out) {
  out << prefix << (is_child ? "+- " : "") << NodeLine(node) << "\n";
  std::string child_prefix = prefix + (is_child ? "   " : "");
  for (size_t i = 0; i < node.children.size(); ++i) {
    bool last = i + 1 == node.children.size();
    if (last) {
      Print(*node.children[i], child_prefix, true, out);
    } else {
      // Earlier children hang from a ":" line so the last child's "+-" stays aligned.
      std::ostringstream sub;
      Print(*node.children[i], "", false, sub);
      std::string lines = sub.str();
      size_t start = 0;
      bool first = true;
      while (start < lines.size()) {
        size_t end = lines.find('\n', start);
        out << child_prefix << (first ? ":- " : ":  ") << lines.substr(start, end - start) << "\n";
        first = false;
        start = end + 1;
      }
    }
  }
}

}  // namespace

std::string LogicalPlanToString(const LogicalNode& root) {
  std::ostringstream out;
  Print(root, "", false, out);
  return out.str();
}

}  // namespace silt::sql
