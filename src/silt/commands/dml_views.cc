#include "silt/commands/dml_views.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "silt/base/ascii.h"
#include "silt/base/check.h"

namespace silt::commands::dml {
namespace {

[[noreturn]] void ThrowUnsupportedView(const std::string& operation, const std::string& view,
                                       const std::string& why) {
  SILT_THROW(UNSUPPORTED_FEATURE, {{"message", operation + " through the view " + view + ", which " + why +
                                                   " (a view written to must select columns of one Delta "
                                                   "table, optionally filtered)"}});
}

// The view's query as Delta can write through it.
struct ViewShape {
  const sql::TableReference* table = nullptr;
  sql::ExpressionPtr filter;  // nullptr: none
  // The columns the view shows; empty when it shows all (`SELECT *`).
  std::vector<std::string> columns;
  // The names the view's query qualifies the table's columns with (its alias, or its name).
  std::vector<std::string> own_qualifiers;
};

ViewShape AnalyzeView(const sql::TempView& view, const std::string& operation) {
  const sql::Query& query = *view.query;
  const std::string name = "`" + view.name + "`";
  if (query.kind != sql::QueryKind::kSelect || !query.with.empty() || query.distinct || !query.group_by.empty() || !query.grouping_elements.empty() ||
      query.group_by_all || query.having || query.qualify || !query.windows.empty() || !query.order_by.empty() ||
      query.limit || query.offset) {
    ThrowUnsupportedView(operation, name, "is not a plain SELECT");
  }
  if (query.from.size() != 1 || query.from[0]->kind != sql::TableReferenceKind::kTable ||
      query.from[0]->time_travel || query.from[0]->stream) {
    ThrowUnsupportedView(operation, name, "does not read exactly one table");
  }
  // A permanent view always records its column names: it renames when they differ from the
  // names its query gives.
  if (!view.column_names.empty() && view.stored == nullptr) {
    ThrowUnsupportedView(operation, name, "renames its columns");
  }
  ViewShape shape;
  shape.table = query.from[0].get();
  shape.filter = query.where;
  if (!shape.table->alias.empty()) {
    shape.own_qualifiers = {shape.table->alias};
  } else {
    shape.own_qualifiers = {shape.table->name.back()};
  }
  bool star = false;
  for (const sql::SelectItem& item : query.select_list) {
    const sql::Expression& e = *item.expression;
    if (e.kind == sql::ExpressionKind::kStar && e.except_columns.empty()) {
      star = true;
      continue;
    }
    if (e.kind != sql::ExpressionKind::kColumn || e.name.size() > 2 ||
        (!item.alias.empty() && !EqualsIgnoreCase(item.alias, e.name.back()))) {
      ThrowUnsupportedView(operation, name, "computes or renames a column");
    }
    shape.columns.push_back(e.name.back());
  }
  if (star) shape.columns.clear();
  if (view.stored != nullptr && !star) {
    bool renamed = view.column_names.size() != shape.columns.size();
    for (size_t i = 0; !renamed && i < shape.columns.size(); ++i) {
      renamed = !EqualsIgnoreCase(view.column_names[i], shape.columns[i]);
    }
    if (renamed) ThrowUnsupportedView(operation, name, "renames its columns");
  }
  return shape;
}

// A deep copy of `e` whose column names are qualified by `alias`: names the view qualified by
// its own table name or alias get `alias` instead, unqualified ones get it prepended (so the
// filter stays unambiguous beside a MERGE source). Subqueries are refused.
sql::ExpressionPtr Requalify(const sql::ExpressionPtr& e, const ViewShape& shape, const std::string& alias,
                             const std::string& operation, const std::string& view) {
  if (e == nullptr) return nullptr;
  if (e->subquery != nullptr) ThrowUnsupportedView(operation, view, "filters with a subquery");
  auto copy = std::make_shared<sql::Expression>(*e);
  if (copy->kind == sql::ExpressionKind::kColumn) {
    if (copy->name.size() >= 2 && EqualsIgnoreCase(copy->name[0], shape.own_qualifiers.back())) {
      copy->name[0] = alias;
    } else {
      copy->name.insert(copy->name.begin(), alias);
    }
  }
  for (auto& child : copy->children) child = Requalify(child, shape, alias, operation, view);
  copy->case_operand = Requalify(copy->case_operand, shape, alias, operation, view);
  for (auto& [when, then] : copy->when_clauses) {
    when = Requalify(when, shape, alias, operation, view);
    then = Requalify(then, shape, alias, operation, view);
  }
  copy->else_result = Requalify(copy->else_result, shape, alias, operation, view);
  copy->filter = Requalify(copy->filter, shape, alias, operation, view);
  return copy;
}

sql::ExpressionPtr And(sql::ExpressionPtr left, sql::ExpressionPtr right) {
  if (left == nullptr) return right;
  if (right == nullptr) return left;
  auto node = std::make_shared<sql::Expression>();
  node->kind = sql::ExpressionKind::kBinary;
  node->op = "AND";
  node->position = left->position;
  node->children = {std::move(left), std::move(right)};
  return node;
}

bool Shows(const ViewShape& shape, const std::string& column) {
  if (shape.columns.empty()) return true;
  for (const std::string& shown : shape.columns) {
    if (EqualsIgnoreCase(shown, column)) return true;
  }
  return false;
}

// The target column a SET / INSERT name designates (its first part after the target's qualifier).
std::string AssignedColumn(const sql::QualifiedName& name, const std::string& alias) {
  if (name.size() >= 2 && EqualsIgnoreCase(name[0], alias)) return name[1];
  return name[0];
}

void CheckShown(const ViewShape& shape, const sql::QualifiedName& name, const std::string& alias,
                const std::string& view) {
  std::string column = AssignedColumn(name, alias);
  if (Shows(shape, column)) return;
  std::string proposal;
  for (const std::string& shown : shape.columns) proposal += (proposal.empty() ? "`" : ", `") + shown + "`";
  SILT_THROW(UNRESOLVED_COLUMN, {{"objectName", "`" + column + "`"}, {"proposal", proposal}});
}

}  // namespace

sql::Statement ResolveDmlThroughView(sql::SessionState& session, const sql::Statement& statement,
                                     const std::string& operation) {
  const sql::TableReference& target = *statement.target;
  if (target.kind != sql::TableReferenceKind::kTable) return statement;
  sql::TableSource source = session.ResolveTable(target.name, target.position);
  if (source.kind != sql::TableSource::Kind::kView) return statement;
  SILT_CHECK(source.view != nullptr, "view source without its view");
  const sql::TempView& view = *source.view;
  const std::string view_name = "`" + view.name + "`";
  if (target.time_travel) ThrowUnsupportedView(operation, view_name, "is time-travelled");
  ViewShape shape = AnalyzeView(view, operation);

  // The DML statement keeps qualifying the rows by its alias, or by the view's name.
  const std::string alias = target.alias.empty() ? view.name : target.alias;
  sql::Statement rewritten = statement;
  auto table = std::make_shared<sql::TableReference>(*shape.table);
  // A permanent view's names resolve in the database that was current when it was created.
  if (view.stored != nullptr && table->name.size() == 1) {
    table->name.insert(table->name.begin(), view.stored->resolution_database);
  }
  table->alias = alias;
  table->position = target.position;
  rewritten.target = table;
  sql::ExpressionPtr filter = Requalify(shape.filter, shape, alias, operation, view_name);

  switch (statement.kind) {
    case sql::StatementKind::kUpdate:
      for (const sql::Assignment& assignment : statement.assignments) {
        CheckShown(shape, assignment.column, alias, view_name);
      }
      rewritten.where = And(filter, statement.where);
      break;
    case sql::StatementKind::kDelete:
      rewritten.where = And(filter, statement.where);
      break;
    case sql::StatementKind::kMerge: {
      rewritten.condition = And(statement.condition, filter);
      std::string source_qualifier = statement.source->alias;
      if (source_qualifier.empty() && statement.source->kind == sql::TableReferenceKind::kTable) {
        source_qualifier = statement.source->name.back();
      }
      for (sql::MergeClause& clause : rewritten.merge_clauses) {
        if (clause.match == sql::MergeMatch::kNotMatchedBySource) clause.condition = And(clause.condition, filter);
        for (const sql::Assignment& assignment : clause.assignments) {
          CheckShown(shape, assignment.column, alias, view_name);
        }
        for (const sql::QualifiedName& column : clause.insert_columns) CheckShown(shape, column, alias, view_name);
        // A view of some columns: `*` means those columns, taken by name from the source.
        if (shape.columns.empty()) continue;
        if (clause.action != sql::MergeAction::kUpdateStar && clause.action != sql::MergeAction::kInsertStar) {
          continue;
        }
        const bool update = clause.action == sql::MergeAction::kUpdateStar;
        clause.action = update ? sql::MergeAction::kUpdate : sql::MergeAction::kInsert;
        for (const std::string& column : shape.columns) {
          auto value = std::make_shared<sql::Expression>();
          value->kind = sql::ExpressionKind::kColumn;
          value->position = clause.position;
          if (!source_qualifier.empty()) value->name.push_back(source_qualifier);
          value->name.push_back(column);
          if (update) {
            clause.assignments.push_back(sql::Assignment{{alias, column}, value});
          } else {
            clause.insert_columns.push_back({column});
            clause.insert_values.push_back(value);
          }
        }
      }
      break;
    }
    default:
      break;
  }
  return rewritten;
}

}  // namespace silt::commands::dml
