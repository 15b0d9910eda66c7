// MERGE INTO: binding, per-file matching and rewriting, inserts, change data and the commit.

#include "silt/commands/merge.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "silt/base/ascii.h"
#include "silt/base/cancellation.h"
#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/base/thread_pool.h"
#include "silt/commands/column_defaults.h"
#include "silt/commands/dml_support.h"
#include "silt/commands/dml_validation.h"
#include "silt/commands/dml_views.h"
#include "silt/commands/identity_columns.h"
#include "silt/commands/statement_internal.h"
#include "silt/exec/memory.h"
#include "silt/exec/operator.h"
#include "silt/exec/row_compare.h"
#include "silt/exec/row_hash.h"
#include "silt/exec/spill_file.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/expression_rewrite.h"
#include "silt/expr/function_registry.h"
#include "silt/expr/scalar.h"
#include "silt/io/background_sync.h"
#include "silt/io/path.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/deletion_vector_writer.h"
#include "silt/log/type_widening.h"
#include "silt/sql/binder_scope.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/planner.h"
#include "silt/types/schema_json.h"
#include "silt/vector/integer_values.h"
#include "silt/vector/take.h"

namespace silt::commands::internal {
namespace {

using sql::MergeAction;
using sql::MergeMatch;

// ---- binding ----

// The name a relation is qualified with in a MERGE: its alias, else its name as written.
std::vector<std::string> RelationQualifier(const sql::TableReference& reference) {
  if (!reference.alias.empty()) return {reference.alias};
  if (reference.kind == sql::TableReferenceKind::kTable) return reference.name;
  return {};
}

std::string ColumnListText(const std::vector<sql::LogicalColumn>& columns) {
  std::string text;
  for (const auto& column : columns) {
    if (!text.empty()) text += ", ";
    if (!column.qualifier.empty()) text += column.qualifier.back() + ".";
    text += column.name;
  }
  return text;
}

std::string NameText(const sql::QualifiedName& name) {
  std::string text;
  for (const auto& part : name) text += (text.empty() ? "" : ".") + part;
  return text;
}

[[noreturn]] void ThrowMergeUnresolved(const std::string& what, const std::string& clause,
                                       const std::vector<sql::LogicalColumn>& visible) {
  SILT_THROW(DELTA_MERGE_UNRESOLVED_EXPRESSION,
             {{"sqlExpr", what}, {"clause", clause}, {"cols", ColumnListText(visible)}});
}

// Names in one part of a MERGE: the target's columns, the source's, or both, bound to the
// combined row layout [target columns..., source columns...]. Delta reports a name that does not
// resolve, or resolves to both sides, as DELTA_MERGE_UNRESOLVED_EXPRESSION naming the clause.
class MergeScope : public sql::BindingScope {
 public:
  MergeScope(const std::vector<sql::LogicalColumn>& all, size_t num_target, bool target,
             bool source, std::string clause)
      : clause_(std::move(clause)) {
    size_t begin = target ? 0 : num_target;
    size_t end = source ? all.size() : num_target;
    visible_.assign(all.begin() + static_cast<std::ptrdiff_t>(begin),
                    all.begin() + static_cast<std::ptrdiff_t>(end));
    offset_ = static_cast<int>(begin);
  }

  expr::ExpressionPtr ResolveColumn(const sql::QualifiedName& name,
                                    const sql::SourcePosition& position) override {
    std::optional<sql::ResolvedName> resolved;
    try {
      resolved = sql::FindColumn(visible_, name, position);
    } catch (const Error& error) {
      // Delta reports an ambiguous name as Spark does (AMBIGUOUS_REFERENCE with both
      // qualified candidates); the error passes through.
      throw;
    }
    if (!resolved) ThrowMergeUnresolved(NameText(name), clause_, visible_);
    return sql::ColumnReference(visible_, *resolved, name, position, offset_);
  }

  // In a condition (`condition` set) Delta refuses aggregates and subqueries with its own
  // classes, naming the whole condition.
  void SetCondition(const sql::Expression* condition, std::string operation) {
    condition_ = condition;
    operation_ = std::move(operation);
  }

  expr::ExpressionPtr BindAggregate(const sql::Expression& call, sql::ExpressionBinder& binder) override {
    if (condition_ == nullptr) return BindingScope::BindAggregate(call, binder);
    SILT_THROW(DELTA_AGGREGATION_NOT_SUPPORTED,
               {{"operation", operation_}, {"predicate", dml::ConditionErrorText(*condition_)}});
  }

  expr::ExpressionPtr BindSubquery(const sql::Expression& node, sql::ExpressionBinder& binder) override {
    if (condition_ == nullptr) return BindingScope::BindSubquery(node, binder);
    SILT_THROW(DELTA_UNSUPPORTED_SUBQUERY,
               {{"operation", operation_}, {"cond", dml::ConditionSql(*condition_)}});
  }

 private:
  const sql::Expression* condition_ = nullptr;
  std::string operation_;
  std::string clause_;
  std::vector<sql::LogicalColumn> visible_;
  int offset_ = 0;
};

std::string_view ActionTypeName(MergeAction action) {
  switch (action) {
    case MergeAction::kUpdate:
    case MergeAction::kUpdateStar:
      return "update";
    case MergeAction::kDelete:
      return "delete";
    case MergeAction::kInsert:
    case MergeAction::kInsertStar:
      return "insert";
  }
  return "update";
}

std::string ClauseName(MergeAction action) {
  switch (action) {
    case MergeAction::kUpdate:
    case MergeAction::kUpdateStar:
      return "UPDATE";
    case MergeAction::kDelete:
      return "DELETE";
    case MergeAction::kInsert:
    case MergeAction::kInsertStar:
      return "INSERT";
  }
  return "UPDATE";
}

// One WHEN clause, bound over the combined layout.
struct BoundClause {
  MergeMatch match = MergeMatch::kMatched;
  MergeAction action = MergeAction::kDelete;
  expr::ExpressionPtr condition;  // nullptr: always
  std::optional<std::string> condition_sql;
  // Update and insert: the new value of each target column over the combined layout, or
  // nullptr (update: keep the value; insert: NULL or the generated value).
  std::vector<expr::ExpressionPtr> values;

  bool modifies_target() const { return action != MergeAction::kInsert && action != MergeAction::kInsertStar; }
  bool is_update() const { return action == MergeAction::kUpdate || action == MergeAction::kUpdateStar; }
};

// Everything bound: the layout, the ON condition, its equi-join keys and the clauses by group.
struct BoundMerge {
  SchemaPtr target_schema;
  SchemaPtr source_schema;
  SchemaPtr combined_schema;
  size_t num_target = 0;
  expr::ExpressionPtr on;
  std::string on_sql;
  // Equi-join keys: target side over target columns, source side over source columns (shifted
  // to start at 0). `null_safe` keys (<=>) match NULL to NULL.
  std::vector<expr::ExpressionPtr> target_keys;
  std::vector<expr::ExpressionPtr> source_keys;
  std::vector<bool> null_safe;
  // ON conjuncts over target columns only, for pruning files.
  std::vector<expr::ExpressionPtr> target_only_conjuncts;
  std::vector<BoundClause> matched;
  std::vector<BoundClause> not_matched;
  std::vector<BoundClause> not_matched_by_source;
};

void CheckConditionOrder(const std::vector<sql::MergeClause>& clauses) {
  struct Group {
    MergeMatch match;
    ErrorClass error;
  };
  for (const Group& group : {Group{MergeMatch::kMatched,
                                   ErrorClass::DELTA_NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION},
                             Group{MergeMatch::kNotMatchedByTarget,
                                   ErrorClass::DELTA_NON_LAST_NOT_MATCHED_CLAUSE_OMIT_CONDITION},
                             Group{MergeMatch::kNotMatchedBySource,
                                   ErrorClass::DELTA_NON_LAST_NOT_MATCHED_BY_SOURCE_CLAUSE_OMIT_CONDITION}}) {
    std::vector<const sql::MergeClause*> members;
    for (const auto& clause : clauses) {
      if (clause.match == group.match) members.push_back(&clause);
    }
    for (size_t i = 0; i + 1 < members.size(); ++i) {
      if (members[i]->condition == nullptr) throw MakeError(group.error, {});
    }
  }
}

bool OnlyReads(const expr::Expression& expression, int begin, int end) {
  for (int column : expr::ReferencedColumns(expression)) {
    if (column < begin || column >= end) return false;
  }
  return true;
}

// The target column an UPDATE SET or INSERT (...) names (qualified by the target or not).
// A SET / INSERT target: the column, and the struct fields below it a nested path names.
struct TargetPath {
  size_t column = 0;
  std::vector<std::string> fields;
};

TargetPath ResolveTargetPath(const sql::QualifiedName& name, const std::vector<sql::LogicalColumn>& target,
                             const sql::SourcePosition& position, const std::string& clause) {
  std::optional<sql::ResolvedName> resolved;
  try {
    resolved = sql::FindColumn(target, name, position);
  } catch (const Error& error) {
    if (error.error_class() != "AMBIGUOUS_REFERENCE") throw;
  }
  if (!resolved) ThrowMergeUnresolved(NameText(name), clause, target);
  TargetPath path;
  path.column = static_cast<size_t>(resolved->column);
  path.fields.assign(name.begin() + static_cast<std::ptrdiff_t>(resolved->parts_used), name.end());
  return path;
}

size_t ResolveTargetColumn(const sql::QualifiedName& name, const std::vector<sql::LogicalColumn>& target,
                           const sql::SourcePosition& position, const std::string& clause) {
  TargetPath path = ResolveTargetPath(name, target, position, clause);
  if (!path.fields.empty()) {
    SILT_THROW(DELTA_UNSUPPORTED_NESTED_FIELD_IN_OPERATION,
               {{"operation", "INSERT clause of MERGE operation"}, {"fieldName", NameText(name)}});
  }
  return path.column;
}

// One `SET col.f.g = value` of an UPDATE clause, for the struct rebuild of its column.
struct NestedAssignment {
  std::vector<std::string> fields;  // below the column
  const sql::Expression* value = nullptr;
  std::string display;  // the path as written
};

// `base` (of struct type `type`) rebuilt with the assignments whose paths continue at `depth`:
// named_struct(f1, base.f1, ..., fk, <value>, ...), recursing into fields assigned deeper. As
// Delta rewrites nested SETs, a NULL struct becomes a struct of NULL fields with the assigned
// ones set; the assigned values keep their own types, and storing the rebuilt column casts
// them by the write's store-assignment rules.
expr::ExpressionPtr RebuildStruct(const expr::ExpressionPtr& base, const DataTypePtr& type,
                                  const std::vector<const NestedAssignment*>& assignments, size_t depth,
                                  sql::ExpressionBinder& binder) {
  if (type->id() != TypeId::kStruct) {
    SILT_THROW(DELTA_UNSUPPORTED_FIELD_UPDATE_NON_STRUCT,
               {{"columnName", "`" + assignments.front()->display + "`"}, {"dataType", SqlTypeName(*type)}});
  }
  std::vector<bool> used(assignments.size(), false);
  std::vector<expr::ExpressionPtr> arguments;
  for (const Field& field : type->fields()) {
    std::vector<const NestedAssignment*> here;
    for (size_t i = 0; i < assignments.size(); ++i) {
      if (EqualsIgnoreCase(assignments[i]->fields[depth], field.name)) {
        here.push_back(assignments[i]);
        used[i] = true;
      }
    }
    expr::ExpressionPtr member = sql::GetStructField(base, field.name, sql::SourcePosition{});
    if (here.size() == 1 && here[0]->fields.size() == depth + 1) {
      member = binder.Bind(*here[0]->value);
    } else if (!here.empty()) {
      member = RebuildStruct(member, field.type, here, depth + 1, binder);
    }
    arguments.push_back(expr::Literal(expr::Scalar::String(field.name)));
    arguments.push_back(std::move(member));
  }
  for (size_t i = 0; i < assignments.size(); ++i) {
    if (used[i]) continue;
    std::string names;
    for (const Field& f : type->fields()) names += (names.empty() ? "`" : ", `") + f.name + "`";
    SILT_THROW(FIELD_NOT_FOUND, {{"fieldName", "`" + assignments[i]->fields[depth] + "`"}, {"fields", names}});
  }
  return expr::FunctionRegistry::Default().Bind("named_struct", std::move(arguments));
}

BoundMerge BindMerge(const sql::Statement& statement, const SchemaPtr& target_schema,
                     const SchemaPtr& source_schema, bool evolve) {
  BoundMerge bound;
  bound.target_schema = target_schema;
  bound.source_schema = source_schema;
  bound.num_target = target_schema->num_fields();

  std::vector<sql::LogicalColumn> columns;
  std::vector<Field> combined_fields;
  std::vector<std::string> target_qualifier = RelationQualifier(*statement.target);
  std::vector<std::string> source_qualifier = RelationQualifier(*statement.source);
  int64_t id = 1;
  for (const Field& field : target_schema->fields()) {
    columns.push_back({field.name, field.type, field.nullable, target_qualifier, id++, false});
    combined_fields.push_back(Field{field.name, field.type, true, {}});
  }
  for (const Field& field : source_schema->fields()) {
    columns.push_back({field.name, field.type, field.nullable, source_qualifier, id++, false});
    combined_fields.push_back(Field{field.name, field.type, true, {}});
  }
  bound.combined_schema = std::make_shared<Schema>(std::move(combined_fields));
  const int num_target = static_cast<int>(bound.num_target);
  const int num_all = static_cast<int>(columns.size());
  std::vector<sql::LogicalColumn> target_columns(columns.begin(), columns.begin() + num_target);

  {
    MergeScope scope(columns, bound.num_target, true, true, "search condition");
    scope.SetCondition(statement.condition.get(), "search condition of MERGE operation");
    sql::ExpressionBinder binder(scope);
    bound.on = binder.BindPredicate(*statement.condition, "JOIN");
    dml::CheckDeterministicCondition(bound.on, *statement.condition, "search condition of MERGE operation");
    bound.on_sql = dml::ConditionSql(*statement.condition);
  }
  for (const expr::ExpressionPtr& conjunct : expr::SplitConjunction(bound.on)) {
    if (OnlyReads(*conjunct, 0, num_target) && conjunct->deterministic()) {
      bound.target_only_conjuncts.push_back(conjunct);
      continue;
    }
    if (conjunct->kind() != expr::ExpressionKind::kComparison) continue;
    auto op = conjunct->comparison();
    if (op != expr::ComparisonOperator::kEqual && op != expr::ComparisonOperator::kNullSafeEqual) {
      continue;
    }
    const auto& left = conjunct->children()[0];
    const auto& right = conjunct->children()[1];
    auto add_key = [&](const expr::ExpressionPtr& target_side, const expr::ExpressionPtr& source_side) {
      // Keys are hashed by their encoded bytes, which compare equal only within one type; the
      // binder casts both sides to a common type, so a mismatch leaves the key to the ON check.
      if (!target_side->type()->Equals(*source_side->type())) return;
      bound.target_keys.push_back(target_side);
      bound.source_keys.push_back(expr::ShiftColumns(source_side, -num_target));
      bound.null_safe.push_back(op == expr::ComparisonOperator::kNullSafeEqual);
    };
    auto is_side = [&](const expr::ExpressionPtr& e, int begin, int end) {
      return e->deterministic() && !expr::ReferencedColumns(*e).empty() && OnlyReads(*e, begin, end);
    };
    if (is_side(left, 0, num_target) && is_side(right, num_target, num_all)) {
      add_key(left, right);
    } else if (is_side(right, 0, num_target) && is_side(left, num_target, num_all)) {
      add_key(right, left);
    }
  }

  CheckConditionOrder(statement.merge_clauses);
  for (const sql::MergeClause& clause : statement.merge_clauses) {
    BoundClause out;
    out.match = clause.match;
    out.action = clause.action;
    bool sees_target = clause.match != MergeMatch::kNotMatchedByTarget;
    bool sees_source = clause.match != MergeMatch::kNotMatchedBySource;
    std::string name = ClauseName(clause.action);
    if (clause.condition) {
      MergeScope scope(columns, bound.num_target, sees_target, sees_source, name + " condition");
      const std::string operation = name + " condition of MERGE operation";
      scope.SetCondition(clause.condition.get(), operation);
      sql::ExpressionBinder binder(scope);
      out.condition = binder.BindPredicate(*clause.condition, "WHERE");
      dml::CheckDeterministicCondition(out.condition, *clause.condition, operation);
      out.condition_sql = dml::ConditionSql(*clause.condition);
    }
    MergeScope value_scope(columns, bound.num_target, sees_target, sees_source, name + " clause");
    sql::ExpressionBinder value_binder(value_scope);
    out.values.assign(bound.num_target, nullptr);
    switch (clause.action) {
      case MergeAction::kDelete:
        out.values.clear();
        break;
      case MergeAction::kUpdate: {
        // Nested paths (`SET t.value.b = s.x`) gather per column into one struct rebuild; two
        // targets where one is a prefix of the other (`value` and `value.b`) conflict.
        std::map<size_t, std::vector<NestedAssignment>> nested;
        std::vector<std::string> written(bound.num_target);  // display of the whole-column SET
        for (const sql::Assignment& assignment : clause.assignments) {
          TargetPath path = ResolveTargetPath(assignment.column, target_columns, assignment.value->position,
                                              name + " clause");
          const std::string display = NameText(assignment.column);
          auto conflict = [&](const std::string& other) {
            SILT_THROW(DELTA_CONFLICT_SET_COLUMN, {{"columnList", "[" + other + ", " + display + "]"}});
          };
          if (!written[path.column].empty()) conflict(written[path.column]);
          if (path.fields.empty()) {
            if (nested.count(path.column) > 0) conflict(nested[path.column].front().display);
            written[path.column] = display;
            CheckIdentityNotUpdated(target_schema->field(path.column));
            out.values[path.column] =
                value_binder.Bind(*ResolveDefaultKeyword(assignment.value, target_schema->field(path.column)));
            continue;
          }
          for (const NestedAssignment& other : nested[path.column]) {
            size_t common = std::min(other.fields.size(), path.fields.size());
            bool prefix = true;
            for (size_t i = 0; i < common; ++i) prefix = prefix && EqualsIgnoreCase(other.fields[i], path.fields[i]);
            if (prefix) conflict(other.display);
          }
          nested[path.column].push_back(NestedAssignment{path.fields, assignment.value.get(), display});
        }
        for (const auto& [column, assignments] : nested) {
          const Field& field = target_schema->field(column);
          std::vector<const NestedAssignment*> pointers;
          for (const NestedAssignment& a : assignments) pointers.push_back(&a);
          out.values[column] = RebuildStruct(expr::Column(static_cast<int>(column), field.type, field.nullable),
                                             field.type, pointers, 0, value_binder);
        }
        break;
      }
      case MergeAction::kInsert: {
        if (clause.insert_columns.size() != clause.insert_values.size()) {
          std::string columns_text;
          for (const auto& name_parts : clause.insert_columns) {
            columns_text += (columns_text.empty() ? "`" : ", `") + NameText(name_parts) + "`";
          }
          SILT_THROW(INSERT_COLUMN_ARITY_MISMATCH,
                     {{"tableName", NameText(statement.target->name)},
                      {"reason", clause.insert_values.size() > clause.insert_columns.size()
                                     ? "too many data columns"
                                     : "not enough data columns"},
                      {"tableColumns", columns_text},
                      {"dataColumns", std::to_string(clause.insert_values.size()) + " values"}});
        }
        for (size_t i = 0; i < clause.insert_columns.size(); ++i) {
          size_t column = ResolveTargetColumn(clause.insert_columns[i], target_columns,
                                              clause.position, name + " clause");
          if (out.values[column] != nullptr) {
            SILT_THROW(COLUMN_ALREADY_EXISTS,
                       {{"columnName", "`" + Lower(target_schema->field(column).name) + "`"}});
          }
          CheckExplicitIdentityInsert(target_schema->field(column));
          out.values[column] = value_binder.Bind(
              *ResolveDefaultKeyword(clause.insert_values[i], target_schema->field(column)));
        }
        break;
      }
      case MergeAction::kUpdateStar:
      case MergeAction::kInsertStar:
        // By name. Without schema evolution every target column must come from the source, as
        // Delta expands `*` to one assignment per target column (generated and identity columns
        // excepted, which the write computes); with evolution, target columns the source lacks
        // keep their value (update) or get NULL (insert). Source columns the target lacks are
        // ignored (or added by evolution).
        for (size_t column = 0; column < bound.num_target; ++column) {
          const Field& target_field = target_schema->field(column);
          int source_index = source_schema->FieldIndex(target_field.name, /*case_sensitive=*/false);
          if (source_index < 0) {
            const bool computed = target_field.FindMetadata("delta.generationExpression") != nullptr ||
                                  target_field.FindMetadata("delta.identity.start") != nullptr;
            if (!evolve && !computed) {
              std::vector<sql::LogicalColumn> source_columns(columns.begin() + num_target, columns.end());
              ThrowMergeUnresolved(target_field.name, name + " clause", source_columns);
            }
            continue;
          }
          if (clause.action == MergeAction::kUpdateStar) {
            CheckIdentityNotUpdated(target_schema->field(column));
          } else {
            CheckExplicitIdentityInsert(target_schema->field(column));
          }
          const Field& field = source_schema->field(static_cast<size_t>(source_index));
          out.values[column] =
              expr::Column(num_target + source_index, field.type, field.nullable);
        }
        break;
    }
    switch (clause.match) {
      case MergeMatch::kMatched:
        bound.matched.push_back(std::move(out));
        break;
      case MergeMatch::kNotMatchedByTarget:
        bound.not_matched.push_back(std::move(out));
        break;
      case MergeMatch::kNotMatchedBySource:
        bound.not_matched_by_source.push_back(std::move(out));
        break;
    }
  }
  return bound;
}

// ---- row helpers ----

// The combined rows (target row, source row) of `pairs`; a null side gives NULLs there. Only the
// columns `used` flags (over the combined layout) are gathered; the others are NULL, as the
// expressions evaluated on the rows never read them.
Batch CombinedRows(const BoundMerge& bound, const Batch* target, const std::vector<int64_t>& target_rows,
                   const Batch* source, const std::vector<int64_t>& source_rows,
                   const std::vector<bool>& used) {
  const int64_t n = static_cast<int64_t>(std::max(target_rows.size(), source_rows.size()));
  std::vector<VectorPtr> columns;
  columns.reserve(bound.combined_schema->num_fields());
  for (size_t i = 0; i < bound.num_target; ++i) {
    const DataTypePtr& type = bound.target_schema->field(i).type;
    columns.push_back(target && used[i] ? TakeRows(*target->column(i), target_rows.data(), n)
                                        : Vector::MakeAllNull(type, n));
  }
  for (size_t i = 0; i < bound.source_schema->num_fields(); ++i) {
    const DataTypePtr& type = bound.source_schema->field(i).type;
    columns.push_back(source && used[bound.num_target + i]
                          ? TakeRows(*source->column(i), source_rows.data(), n)
                          : Vector::MakeAllNull(type, n));
  }
  return Batch(bound.combined_schema, std::move(columns), n);
}

// Flags, over the combined layout, the columns `expressions` read.
void MarkUsed(const std::vector<expr::ExpressionPtr>& expressions, std::vector<bool>& used) {
  for (const expr::ExpressionPtr& expression : expressions) {
    if (expression == nullptr) continue;
    for (int column : expr::ReferencedColumns(*expression)) used[static_cast<size_t>(column)] = true;
  }
}

// Flags the columns the clauses of `clauses` read: conditions, new values, and for updates the
// target columns they keep (a generated column they do not assign is recomputed from the row).
void MarkClausesUsed(const std::vector<BoundClause>& clauses, const RowAssembler& assembler,
                     size_t num_target, std::vector<bool>& used) {
  for (const BoundClause& clause : clauses) {
    MarkUsed({clause.condition}, used);
    MarkUsed(clause.values, used);
    if (!clause.is_update()) continue;
    for (size_t i = 0; i < num_target && i < clause.values.size(); ++i) {
      if (clause.values[i] == nullptr && !assembler.IsGenerated(i)) used[i] = true;
    }
  }
}

// For each row of `rows`, the index of the first clause of `clauses` whose condition holds, or
// -1. Conditions are evaluated only on rows no earlier clause took, so a row's errors come only
// from the clauses it reaches.
std::vector<int> ChooseClauses(const std::vector<BoundClause>& clauses, const Batch& rows,
                               expr::EvalContext& context) {
  std::vector<int> chosen(static_cast<size_t>(rows.num_rows()), -1);
  std::vector<int64_t> open(static_cast<size_t>(rows.num_rows()));
  for (int64_t i = 0; i < rows.num_rows(); ++i) open[static_cast<size_t>(i)] = i;
  for (size_t c = 0; c < clauses.size() && !open.empty(); ++c) {
    if (clauses[c].condition == nullptr) {
      for (int64_t row : open) chosen[static_cast<size_t>(row)] = static_cast<int>(c);
      break;
    }
    Batch subset = open.size() == static_cast<size_t>(rows.num_rows()) ? rows : TakeBatchRows(rows, open);
    std::vector<uint8_t> holds = expr::EvaluateFilter(*clauses[c].condition, subset, context);
    context.ThrowIfError();
    std::vector<int64_t> still_open;
    for (size_t i = 0; i < open.size(); ++i) {
      if (holds[i]) {
        chosen[static_cast<size_t>(open[i])] = static_cast<int>(c);
      } else {
        still_open.push_back(open[i]);
      }
    }
    open = std::move(still_open);
  }
  return chosen;
}

// ---- the source's hash table ----

// Folds key `values` of rows [begin, end) into `hashes` (one per row, from `begin`). A NULL
// folds in a constant, so that NULL keys meet under `<=>`.
template <typename T>
void FoldFixedWidth(const Vector& values, int64_t begin, int64_t end, uint64_t* hashes) {
  constexpr uint64_t kNullValue = 0x5bd1e9955bd1e995ULL;
  const T* data = values.values<T>();
  const bool nulls = values.null_count() != 0;
  for (int64_t row = begin; row < end; ++row) {
    const uint64_t value = nulls && values.IsNull(row)
                               ? kNullValue
                               : static_cast<uint64_t>(static_cast<int64_t>(data[row]));
    uint64_t& hash = hashes[row - begin];
    hash = exec::MixHash((hash ^ value) * 0x9E3779B97F4A7C15ULL);
  }
}

// The hash of the keys of rows [begin, end) of `keys` (the source's or the target's key values,
// of the same types key by key) into `hashes`: equal keys hash alike on both sides, which is all
// the hash table and the passes of a partitioned MERGE need (the ON condition decides a match).
// Integer and string keys hash from their values; others through their encoded keys
// (`scratch`), as hashing operators do.
void HashKeys(const std::vector<VectorPtr>& keys, int64_t begin, int64_t end,
              std::vector<uint64_t>& hashes, exec::EncodedKeys& scratch) {
  const int64_t n = end - begin;
  hashes.assign(static_cast<size_t>(n), 0);
  uint64_t* out = hashes.data();
  std::vector<VectorPtr> encoded_columns;
  for (const VectorPtr& key : keys) {
    const Vector& values = *key;
    switch (values.type_id()) {
      case TypeId::kByte:
        FoldFixedWidth<int8_t>(values, begin, end, out);
        break;
      case TypeId::kShort:
        FoldFixedWidth<int16_t>(values, begin, end, out);
        break;
      case TypeId::kInteger:
      case TypeId::kDate:
      case TypeId::kYearMonthInterval:
        FoldFixedWidth<int32_t>(values, begin, end, out);
        break;
      case TypeId::kLong:
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz:
      case TypeId::kDayTimeInterval:
        FoldFixedWidth<int64_t>(values, begin, end, out);
        break;
      case TypeId::kString:
      case TypeId::kBinary: {
        constexpr uint64_t kNullValue = 0x2545F4914F6CDD1DULL;
        const bool nulls = values.null_count() != 0;
        for (int64_t row = begin; row < end; ++row) {
          const std::string_view bytes = values.GetString(row);
          const uint64_t value = nulls && values.IsNull(row)
                                     ? kNullValue
                                     : exec::HashBytes(bytes.data(), bytes.size());
          uint64_t& hash = out[row - begin];
          hash = exec::MixHash((hash ^ value) * 0x9E3779B97F4A7C15ULL);
        }
        break;
      }
      default:
        encoded_columns.push_back(begin == 0 && end == values.length() ? key
                                                                       : values.Slice(begin, n));
        break;
    }
  }
  if (encoded_columns.empty()) return;
  exec::EncodeKeys(encoded_columns, n, scratch);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = exec::MixHash((out[i] ^ scratch.hashes[static_cast<size_t>(i)]) *
                           0x9E3779B97F4A7C15ULL);
  }
}

// `bytes` of memory for a table read at random, freed with std::free: when at least a huge page,
// rounded up to whole huge pages, aligned to them and asking for them (transparent huge pages,
// where the kernel offers them on request) before it is first touched, so that reads spread over
// the whole table miss the TLB far less often. Not zeroed.
void* AllocateRandomAccessTable(size_t bytes) {
  constexpr size_t kHugePageBytes = size_t{2} << 20;
  const bool huge = bytes >= kHugePageBytes;
  if (huge) bytes = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  void* memory = huge ? std::aligned_alloc(kHugePageBytes, bytes) : std::malloc(bytes);
  if (memory == nullptr) throw std::bad_alloc();
  if (huge) ::madvise(memory, bytes, MADV_HUGEPAGE);
  return memory;
}

// The values a MERGE source holds of its one integer-like equi-join key, exactly, as a bitmap
// over [min, max]. Most target rows of an upsert match no source row (its source is a small
// share of its target); the bitmap finds them without probing the hash table, whose slots are a
// random read each, while the bitmap is far smaller and is read in key order where the target's
// files are ordered or clustered by the key, as they usually are.
class KeyBitmap {
 public:
  // Keys sparser than this many bits each are left to the hash table alone.
  static constexpr uint64_t kMaxBitsPerKey = 64;

  // The bitmap of the non-NULL values of `keys`, filled on the threads of `pool`; nullptr when
  // their type is not integer-like, they are too sparse, or `reserve` refuses its bytes.
  static std::unique_ptr<KeyBitmap> Make(const Vector& keys, ThreadPool& pool,
                                         const std::function<bool(int64_t)>& reserve) {
    std::unique_ptr<KeyBitmap> made;
    VisitIntegerValues(keys, [&](const auto* values) {
      const bool nulls = keys.null_count() > 0;
      int64_t low = std::numeric_limits<int64_t>::max();
      int64_t high = std::numeric_limits<int64_t>::min();
      uint64_t count = 0;
      for (int64_t row = 0; row < keys.length(); ++row) {
        if (nulls && keys.IsNull(row)) continue;
        const auto value = static_cast<int64_t>(values[row]);
        low = std::min(low, value);
        high = std::max(high, value);
        ++count;
      }
      if (count == 0) return;
      // In unsigned arithmetic, which does not overflow for the widest range.
      const uint64_t bits = static_cast<uint64_t>(high) - static_cast<uint64_t>(low) + 1;
      if (bits == 0 || bits / kMaxBitsPerKey > count) return;
      const auto bytes = static_cast<int64_t>((bits + 63) / 64 * 8);
      if (!reserve(bytes)) return;
      made.reset(new KeyBitmap(keys.type_id(), low, bits));
      made->words_ = AllocateWords(static_cast<size_t>(bytes));
      // Rows in chunks on every thread; a bit is set with an atomic OR, as two threads' keys
      // may share a word.
      constexpr int64_t kChunkRows = int64_t{1} << 16;
      const int64_t num_rows = keys.length();
      uint64_t* words = made->words_.get();
      pool.ParallelFor(static_cast<size_t>((num_rows + kChunkRows - 1) / kChunkRows), [&](size_t chunk) {
        const int64_t begin = static_cast<int64_t>(chunk) * kChunkRows;
        const int64_t end = std::min(num_rows, begin + kChunkRows);
        for (int64_t row = begin; row < end; ++row) {
          if (nulls && keys.IsNull(row)) continue;
          const uint64_t at = static_cast<uint64_t>(static_cast<int64_t>(values[row])) - static_cast<uint64_t>(low);
          __atomic_fetch_or(&words[at >> 6], uint64_t{1} << (at & 63), __ATOMIC_RELAXED);
        }
      });
    });
    return made;
  }

  // Whether `keys` (the target's key values) can be tested: of the source key's type.
  bool Accepts(const Vector& keys) const { return keys.type_id() == type_; }

  // Keeps in `rows` those rows of `keys` whose value the source holds: of the ascending rows
  // `rows` lists when `listed`, else of all rows [0, `num_rows`). NULL keys are dropped (the
  // bitmap is only made for keys compared with `=`, where NULL matches nothing).
  void Keep(const Vector& keys, int64_t num_rows, bool listed, std::vector<int64_t>& rows) const {
    VisitIntegerValues(keys, [&](const auto* values) {
      const bool nulls = keys.null_count() > 0;
      const uint64_t* words = words_.get();
      auto member = [&](int64_t row) {
        const uint64_t at = static_cast<uint64_t>(static_cast<int64_t>(values[row])) - static_cast<uint64_t>(low_);
        return at < bits_ && ((words[at >> 6] >> (at & 63)) & 1) != 0 && !(nulls && keys.IsNull(row));
      };
      size_t kept = 0;
      if (listed) {
        for (const int64_t row : rows) {
          rows[kept] = row;
          kept += member(row) ? 1 : 0;
        }
      } else {
        rows.resize(static_cast<size_t>(num_rows));
        for (int64_t row = 0; row < num_rows; ++row) {
          rows[kept] = row;
          kept += member(row) ? 1 : 0;
        }
      }
      rows.resize(kept);
    });
  }

 private:
  struct FreeWords {
    void operator()(uint64_t* words) const { std::free(words); }
  };

  KeyBitmap(TypeId type, int64_t low, uint64_t bits) : type_(type), low_(low), bits_(bits) {}

  // `bytes` of zeroed words: a target whose keys are not in order reads them at random.
  static std::unique_ptr<uint64_t[], FreeWords> AllocateWords(size_t bytes) {
    void* memory = AllocateRandomAccessTable(bytes);
    std::memset(memory, 0, bytes);
    return std::unique_ptr<uint64_t[], FreeWords>(static_cast<uint64_t*>(memory));
  }

  TypeId type_;
  int64_t low_;
  uint64_t bits_;
  std::unique_ptr<uint64_t[], FreeWords> words_;
};

// The materialised source keyed by the equi-join keys: an open-addressing table of (hash tag,
// source row) slots of 8 bytes. A probe compares tags (the hash's high half; the low bits place
// the slot) and leaves the keys to the ON condition, so a target row costs one cache line, and a
// batch of probes prefetches its slots ahead.
class SourceIndex {
 public:
  // Rows are hashed and placed this many at a time, so that building holds no array as long as
  // the source besides the slots.
  static constexpr int64_t kBuildRows = int64_t{1} << 14;

  // The slots for `num_rows` rows: a power of two at most three quarters full, so that a probe's
  // run mostly stays within the cache line it starts in.
  static size_t CapacityFor(int64_t num_rows) {
    size_t capacity = 16;
    while (capacity * 3 < static_cast<size_t>(num_rows) * 4) capacity <<= 1;
    return capacity;
  }

  // The regions of the slots that threads of a pool of `num_threads` fill at once when a table
  // of `num_rows` rows is built (see Build): one for a small source, where placing rows, a cache
  // miss each, does not outweigh hashing every row once per region.
  static size_t RegionsFor(int64_t num_rows, size_t num_threads) {
    constexpr size_t kMaxRegions = 16;
    if (num_rows < 4 * kBuildRows) return 1;
    return std::max<size_t>(1, std::min({num_threads, kMaxRegions, CapacityFor(num_rows) / 64}));
  }

  // What the table of `num_rows` rows holds besides the source's values: its slots, and while
  // they are filled each building thread's chunk of hashes (and encoded keys, for keys HashKeys
  // encodes). Tables are built on the session's pool, the default one.
  static int64_t MemoryBytesFor(int64_t num_rows) {
    const size_t regions = RegionsFor(num_rows, ThreadPool::Default().num_threads());
    return static_cast<int64_t>(CapacityFor(num_rows) * sizeof(Slot)) +
           std::min(num_rows, kBuildRows) * 64 * static_cast<int64_t>(regions);
  }

  // Built on the threads of `pool`, each filling one region of the slots (see Build). A single
  // integer-like key compared with `=` also gets a KeyBitmap when `reserve` grants its bytes.
  SourceIndex(const BoundMerge& bound, const Batch& source, expr::EvalContext& context,
              ThreadPool& pool, const std::function<bool(int64_t)>& reserve)
      : bound_(bound) {
    const int64_t n = source.num_rows();
    if (bound.target_keys.empty() || n == 0) return;
    std::vector<VectorPtr> keys;
    for (const auto& key : bound.source_keys) {
      keys.push_back(expr::Evaluate(*key, source, context));
      context.ThrowIfError();
    }
    key_vectors_ = keys;
    SILT_CHECK(n < static_cast<int64_t>(kEmpty),
               "a MERGE source partition of fewer than 2^32 rows");
    const size_t capacity = CapacityFor(n);
    mask_ = capacity - 1;
    const size_t num_regions = RegionsFor(n, pool.num_threads());
    AllocateSlots(capacity, pool, num_regions);
    Build(keys, n, pool, num_regions);
    if (keys.size() == 1 && !bound.null_safe[0]) key_bitmap_ = KeyBitmap::Make(*keys[0], pool, reserve);
  }

  bool keyed() const { return !bound_.target_keys.empty(); }
  // The source's values of its one integer-like key, or nullptr (see KeyBitmap).
  const KeyBitmap* key_bitmap() const { return key_bitmap_.get(); }
  const std::vector<VectorPtr>& key_vectors() const { return key_vectors_; }

  // Appends (target row, source row) for every target row in [0, num_rows) (only the ascending
  // rows `probed` lists, when given) and every source row whose keys equal it, target rows in
  // order.
  // `hashes`: HashKeys of the target's key values, one per row.
  void ProbeAll(const uint64_t* hashes, const std::vector<VectorPtr>& target_key_vectors,
                int64_t num_rows, const std::vector<int64_t>* probed,
                std::vector<int64_t>& target_rows, std::vector<int64_t>& source_rows) const {
    if (num_slots_ == 0) return;
    constexpr int64_t kPrefetchDistance = 32;
    const int64_t num_probes = probed != nullptr ? static_cast<int64_t>(probed->size()) : num_rows;
    const int64_t* probed_rows = probed != nullptr ? probed->data() : nullptr;
    auto row_of = [&](int64_t i) { return probed_rows != nullptr ? probed_rows[i] : i; };
    for (int64_t i = 0; i < num_probes; ++i) {
      if (i + kPrefetchDistance < num_probes) {
        const size_t ahead = hashes[row_of(i + kPrefetchDistance)] & mask_;
        __builtin_prefetch(&slots_[ahead]);
        // A run starting in the second half of its cache line mostly reads on into the next.
        if ((ahead & (kSlotsPerLine - 1)) >= kSlotsPerLine / 2) {
          __builtin_prefetch(&slots_[(ahead + kSlotsPerLine) & mask_]);
        }
      }
      const int64_t row = row_of(i);
      if (HasUnmatchableNull(target_key_vectors, row)) continue;
      const uint64_t hash = hashes[row];
      const uint32_t tag = TagOf(hash);
      for (size_t at = hash & mask_; slots_[at].row != kEmpty; at = (at + 1) & mask_) {
        const Slot& slot = slots_[at];
        // The ON condition, which holds the key equalities and is evaluated on every candidate,
        // decides: the probe compares tags only, and so reads no key bytes of the source.
        if (slot.tag == tag) {
          target_rows.push_back(row);
          source_rows.push_back(slot.row);
        }
      }
    }
  }

 private:
  // Eight bytes, so that a cache line holds eight slots of a probe's run: the hash's high half
  // (its low bits place the slot) and the source row.
  struct Slot {
    uint32_t tag;
    uint32_t row;  // kEmpty: empty
  };
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  static constexpr size_t kSlotsPerLine = 64 / sizeof(Slot);
  static uint32_t TagOf(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

  struct FreeSlots {
    void operator()(Slot* slots) const { std::free(slots); }
  };

  // Places the source's `n` rows of key values `keys` in the slots. The slots are cut into
  // `num_regions` ranges, one per thread: each thread hashes every row and places those whose
  // first slot lies in its range, in ascending row order, probing no further than the range's
  // end. The few rows whose run reaches it are placed afterwards, in row order, probing on
  // (around the end of the table too). A slot, once taken, is never freed, so every row's run
  // from its first slot to its own is taken whatever the order rows went in, which is all a
  // probe needs. The rows of one key share a first slot, and once one of them reaches the
  // range's end all later ones do, so a probe still finds them in source order.
  void Build(const std::vector<VectorPtr>& keys, int64_t n, ThreadPool& pool, size_t num_regions) {
    struct Overflow {
      uint32_t row;
      uint64_t hash;
    };
    std::vector<std::vector<Overflow>> overflows(num_regions);
    pool.ParallelFor(num_regions, [&](size_t region) {
      const size_t first = num_slots_ * region / num_regions;
      const size_t end = num_slots_ * (region + 1) / num_regions;
      std::vector<uint64_t> hashes;
      exec::EncodedKeys scratch;
      // The chunk's rows whose first slot lies in the region, listed without a branch (which
      // rows do is as good as random), so that their slots can be prefetched ahead of placing.
      std::vector<uint32_t> here(static_cast<size_t>(std::min(n, kBuildRows)));
      constexpr size_t kPrefetchDistance = 16;
      for (int64_t begin = 0; begin < n; begin += kBuildRows) {
        const int64_t chunk_end = std::min(n, begin + kBuildRows);
        HashKeys(keys, begin, chunk_end, hashes, scratch);
        size_t num_here = 0;
        for (int64_t i = 0; i < chunk_end - begin; ++i) {
          const size_t at = hashes[static_cast<size_t>(i)] & mask_;
          here[num_here] = static_cast<uint32_t>(i);
          num_here += (at >= first && at < end) ? 1 : 0;
        }
        for (size_t h = 0; h < num_here; ++h) {
          if (h + kPrefetchDistance < num_here) {
            __builtin_prefetch(&slots_[hashes[here[h + kPrefetchDistance]] & mask_], 1);
          }
          const int64_t row = begin + here[h];
          const uint64_t hash = hashes[here[h]];
          size_t at = hash & mask_;
          if (HasUnmatchableNull(keys, row)) continue;
          while (at < end && slots_[at].row != kEmpty) ++at;
          if (at == end) {
            overflows[region].push_back(Overflow{static_cast<uint32_t>(row), hash});
            continue;
          }
          slots_[at] = Slot{TagOf(hash), static_cast<uint32_t>(row)};
        }
      }
    }, num_regions);
    std::vector<Overflow> late;
    for (const std::vector<Overflow>& overflow : overflows) {
      late.insert(late.end(), overflow.begin(), overflow.end());
    }
    std::sort(late.begin(), late.end(),
              [](const Overflow& a, const Overflow& b) { return a.row < b.row; });
    for (const Overflow& overflow : late) {
      size_t at = overflow.hash & mask_;
      while (slots_[at].row != kEmpty) at = (at + 1) & mask_;
      slots_[at] = Slot{TagOf(overflow.hash), overflow.row};
    }
  }

  // `capacity` empty slots, cleared by `num_parts` threads of `pool`; probes read them at random.
  void AllocateSlots(size_t capacity, ThreadPool& pool, size_t num_parts) {
    slots_.reset(static_cast<Slot*>(AllocateRandomAccessTable(capacity * sizeof(Slot))));
    num_slots_ = capacity;
    pool.ParallelFor(num_parts, [&](size_t part) {
      const size_t first = capacity * part / num_parts;
      std::fill_n(slots_.get() + first, capacity * (part + 1) / num_parts - first, Slot{0, kEmpty});
    }, num_parts);
  }

  // NULL never equals anything under `=`, so such rows can never match.
  bool HasUnmatchableNull(const std::vector<VectorPtr>& keys, int64_t row) const {
    for (size_t k = 0; k < keys.size(); ++k) {
      if (!bound_.null_safe[k] && keys[k]->IsNull(row)) return true;
    }
    return false;
  }

  const BoundMerge& bound_;
  std::vector<VectorPtr> key_vectors_;
  std::unique_ptr<KeyBitmap> key_bitmap_;
  std::unique_ptr<Slot[], FreeSlots> slots_;
  size_t num_slots_ = 0;
  size_t mask_ = 0;
};

// The smallest and largest non-NULL value of each equi-join key over the source's rows, gathered
// batch by batch, for pruning target files by their statistics.
class SourceKeyRanges {
 public:
  explicit SourceKeyRanges(size_t num_keys) : low_(num_keys), high_(num_keys) {}

  void Add(const std::vector<VectorPtr>& keys) {
    for (size_t k = 0; k < keys.size() && k < low_.size(); ++k) {
      const Vector& values = *keys[k];
      if (!exec::IsOrderable(*values.type())) continue;
      int64_t low = -1;
      int64_t high = -1;
      for (int64_t row = 0; row < values.length(); ++row) {
        if (values.IsNull(row)) continue;
        if (low < 0 || exec::CompareValues(values, row, values, low) < 0) low = row;
        if (high < 0 || exec::CompareValues(values, row, values, high) > 0) high = row;
      }
      if (low < 0) continue;
      if (low_[k] == nullptr || exec::CompareValues(values, low, *low_[k], 0) < 0)
        low_[k] = TakeRows(values, {low});
      if (high_[k] == nullptr || exec::CompareValues(values, high, *high_[k], 0) > 0) {
        high_[k] = TakeRows(values, {high});
      }
    }
  }

  // Add over `num_rows` rows of `keys`, a contiguous share of them on each thread of `pool`.
  void AddInParallel(const std::vector<VectorPtr>& keys, int64_t num_rows, ThreadPool& pool) {
    constexpr int64_t kMinRowsPerShare = int64_t{1} << 16;
    const size_t shares = static_cast<size_t>(std::clamp<int64_t>(
        num_rows / kMinRowsPerShare, 1, static_cast<int64_t>(pool.num_threads())));
    std::vector<SourceKeyRanges> ranges(shares, SourceKeyRanges(low_.size()));
    pool.ParallelFor(shares, [&](size_t share) {
      const int64_t begin = num_rows * static_cast<int64_t>(share) / static_cast<int64_t>(shares);
      const int64_t end =
          num_rows * static_cast<int64_t>(share + 1) / static_cast<int64_t>(shares);
      std::vector<VectorPtr> slices;
      for (const VectorPtr& key : keys) slices.push_back(key->Slice(begin, end - begin));
      ranges[share].Add(slices);
    }, shares);
    for (const SourceKeyRanges& share : ranges) Merge(share);
  }

  // Takes in the extremes `other` found.
  void Merge(const SourceKeyRanges& other) {
    for (size_t k = 0; k < low_.size(); ++k) {
      if (other.low_[k] == nullptr) continue;
      if (low_[k] == nullptr || exec::CompareValues(*other.low_[k], 0, *low_[k], 0) < 0) {
        low_[k] = other.low_[k];
      }
      if (high_[k] == nullptr || exec::CompareValues(*other.high_[k], 0, *high_[k], 0) > 0) {
        high_[k] = other.high_[k];
      }
    }
  }

  // One-row vectors of key `k`'s extremes, or nullptr when every value seen was NULL.
  const VectorPtr& low(size_t k) const { return low_[k]; }
  const VectorPtr& high(size_t k) const { return high_[k]; }

 private:
  std::vector<VectorPtr> low_;
  std::vector<VectorPtr> high_;
};

// ---- a source larger than memory ----

// A source held in memory may take this share of the memory limit; a larger one is merged in
// passes over hash partitions of its keys, each partition (and its hash table) about this size.
// Every pass reads the candidate target files again, so partitions are as large as leaves the
// target's rows in flight room (the last pass, which rewrites files, holds each file's rows
// until it is written).
int64_t SourceBudget(const exec::QueryMemory& memory) {
  return std::max<int64_t>(memory.limit() / 2, 1);
}

// What a source of `num_rows` rows and `value_bytes` bytes of values takes in memory with its
// hash table.
int64_t SourceMemoryBytes(int64_t value_bytes, int64_t num_rows) {
  return value_bytes + SourceIndex::MemoryBytesFor(num_rows);
}

// The number of passes a source of `value_bytes` bytes in `num_rows` rows that does not fit
// `budget` is merged in: the fewest whose partitions fit it with their hash tables, with an
// eighth to spare for the partitions' uneven sizes.
int PlanPasses(int64_t value_bytes, int64_t num_rows, int64_t budget) {
  constexpr int kMaxPasses = 4096;
  int passes = 2;
  while (passes < kMaxPasses) {
    const int64_t rows = num_rows / passes + num_rows / passes / 8 + 1;
    const int64_t bytes = value_bytes / passes + value_bytes / passes / 8;
    if (SourceMemoryBytes(bytes, rows) <= budget) break;
    ++passes;
  }
  return passes;
}

// The pass (of `num_passes`) in which the rows whose keys hash to `hash` are merged: the source
// rows and the target rows of equal keys meet in the same pass. High bits, as the hash table
// places rows by the low ones.
// A multiply and shift of the high half, not a division, as every target row of every pass asks.
int PassOf(uint64_t hash, int num_passes) {
  return static_cast<int>(((hash >> 32) * static_cast<uint64_t>(num_passes)) >> 32);
}

// The MERGE source, pulled to the end before any target file is read (a non-deterministic
// source is not read twice, and a source that reads the target sees it as of before this
// statement): in memory while it fits in SourceBudget, else in a spill file.
struct MaterializedSource {
  SchemaPtr schema;
  Batch batch;                               // the whole source, when in memory
  std::unique_ptr<exec::SpillFile> spilled;  // else: the whole source, on disk
  int64_t num_rows = 0;
};

// The bytes of `vector`'s buffers not yet in `counted`, which it then holds. A scan returns a
// row group's values as slices of one set of buffers, which the batches held share.
int64_t UncountedBytes(const Vector& vector, std::unordered_set<const Buffer*>& counted) {
  int64_t bytes = 0;
  for (const BufferPtr& buffer : vector.buffers()) {
    if (buffer != nullptr && counted.insert(buffer.get()).second) {
      bytes += static_cast<int64_t>(buffer->size());
    }
  }
  for (const VectorPtr& child : vector.children()) bytes += UncountedBytes(*child, counted);
  return bytes;
}

Batch ConcatenateReleasing(const SchemaPtr& schema, std::vector<Batch>&& batches, ThreadPool& pool);

MaterializedSource MaterializeSource(exec::Operator& root, exec::ExecContext& context,
                                     exec::MemoryReservation& reservation) {
  MaterializedSource source;
  source.schema = root.schema();
  const int64_t budget = SourceBudget(*context.memory);
  std::vector<Batch> held;
  int64_t held_bytes = 0;
  std::unordered_set<const Buffer*> counted;  // the buffers of the batches held
  while (std::optional<Batch> batch = root.Next(context)) {
    ThrowIfCanceled(context.cancellation);
    source.num_rows += batch->num_rows();
    if (source.spilled == nullptr) {
      // The rows and, later, the hash table of all rows held.
      int64_t value_bytes = 0;
      for (const VectorPtr& column : batch->columns()) value_bytes += UncountedBytes(*column, counted);
      const int64_t needed = SourceMemoryBytes(held_bytes + value_bytes, source.num_rows);
      if (needed <= budget && reservation.TryGrow(needed - reservation.used())) {
        held_bytes += value_bytes;
        held.push_back(std::move(*batch));
        continue;
      }
      source.spilled =
          std::make_unique<exec::SpillFile>(*context.memory, source.schema, context.counters.get());
      for (const Batch& earlier : held) source.spilled->Append(earlier);
      held.clear();
      counted.clear();
      reservation.Clear();
    }
    source.spilled->Append(*batch);
  }
  if (source.spilled != nullptr) {
    source.spilled->FinishWriting();
    return source;
  }
  if (held.empty()) {
    std::vector<VectorPtr> columns;
    for (const Field& field : source.schema->fields())
      columns.push_back(Vector::MakeAllNull(field.type, 0));
    source.batch = Batch(source.schema, std::move(columns), 0);
  } else {
    source.batch = ConcatenateReleasing(source.schema, std::move(held), context.Pool());
  }
  return source;
}

// `batches` (of `schema`) as one batch, its columns built on the threads of `pool`, each column's
// pieces released once it is built, so that the rows are held about once, not twice, while they
// are copied (plus one column per thread being built).
Batch ConcatenateReleasing(const SchemaPtr& schema, std::vector<Batch>&& batches, ThreadPool& pool) {
  const size_t width = schema->num_fields();
  std::vector<std::vector<VectorPtr>> pieces(width);
  std::vector<int64_t> piece_rows;
  int64_t num_rows = 0;
  for (const Batch& batch : batches) {
    num_rows += batch.num_rows();
    piece_rows.push_back(batch.num_rows());
    for (size_t c = 0; c < width; ++c) pieces[c].push_back(batch.column(c));
  }
  batches.clear();
  std::vector<VectorPtr> columns(width);
  pool.ParallelFor(width, [&](size_t c) {
    if (pieces[c].size() == 1) {
      columns[c] = std::move(pieces[c][0]);
      return;
    }
    VectorBuilder builder(schema->field(c).type, num_rows);
    for (size_t i = 0; i < pieces[c].size(); ++i)
      builder.AppendRange(*pieces[c][i], 0, piece_rows[i]);
    pieces[c].clear();
    pieces[c].shrink_to_fit();
    columns[c] = builder.Finish();
  });
  return Batch(schema, std::move(columns), num_rows);
}

// The source's rows split by PassOf their keys' hash into `num_passes` spill files; the keys'
// ranges gathered on the way.
std::vector<std::unique_ptr<exec::SpillFile>> PartitionSource(exec::SpillFile& source,
                                                              const BoundMerge& bound,
                                                              int num_passes,
                                                              exec::ExecContext& context,
                                                              SourceKeyRanges& ranges) {
  std::vector<std::unique_ptr<exec::SpillFile>> partitions;
  for (int p = 0; p < num_passes; ++p) {
    partitions.push_back(std::make_unique<exec::SpillFile>(*context.memory, source.schema(),
                                                           context.counters.get()));
  }
  expr::EvalContext eval = context.eval;
  std::vector<uint64_t> hashes;
  exec::EncodedKeys scratch;
  while (std::optional<Batch> batch = source.ReadNext()) {
    ThrowIfCanceled(context.cancellation);
    std::vector<VectorPtr> keys;
    for (const auto& key : bound.source_keys) {
      keys.push_back(expr::Evaluate(*key, *batch, eval));
      eval.ThrowIfError();
    }
    ranges.Add(keys);
    HashKeys(keys, 0, batch->num_rows(), hashes, scratch);
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(num_passes));
    for (int64_t row = 0; row < batch->num_rows(); ++row) {
      rows[static_cast<size_t>(PassOf(hashes[static_cast<size_t>(row)], num_passes))].push_back(row);
    }
    for (size_t p = 0; p < rows.size(); ++p) {
      if (!rows[p].empty()) partitions[p]->Append(TakeBatchRows(*batch, rows[p]));
    }
  }
  for (auto& partition : partitions) partition->FinishWriting();
  return partitions;
}

// ---- per-file work ----

struct MergeCounts {
  int64_t matched_updated = 0;
  int64_t matched_deleted = 0;
  int64_t not_matched_by_source_updated = 0;
  int64_t not_matched_by_source_deleted = 0;
  int64_t copied = 0;
  int64_t inserted = 0;

  void Add(const MergeCounts& other) {
    matched_updated += other.matched_updated;
    matched_deleted += other.matched_deleted;
    not_matched_by_source_updated += other.not_matched_by_source_updated;
    not_matched_by_source_deleted += other.not_matched_by_source_deleted;
    copied += other.copied;
    inserted += other.inserted;
  }
};

// What processing one target file produced (its output stays in memory until the file is known
// to be touched; then it is written and released).
struct FileOutcome {
  bool touched = false;
  // The file's changed rows are marked in a deletion vector instead of rewriting the file.
  bool deletion_vector = false;
  // Physical positions of the rows an UPDATE or DELETE took (deletion-vector mode).
  std::vector<uint64_t> removed_positions;
  MergeCounts counts;
  dml::WrittenOutput written;
};

// `target` with the fields of `source` it lacks appended as nullable fields, matched by name
// case-insensitively, and structs present on both sides merged the same way (also as the
// elements of arrays and the values of maps), as Delta's schema evolution does. Types of
// fields present on both sides stay the target's (values are cast into them on write), unless
// `widen` (the table has type widening on) and the source's type is a widening schema
// evolution applies (log::IsTypeChangeSupportedForSchemaEvolution): then the column widens.
std::vector<Field> MergeFields(const std::vector<Field>& target, const std::vector<Field>& source,
                               bool widen, bool& changed);

DataTypePtr MergeType(const DataTypePtr& target, const DataTypePtr& source, bool widen,
                      bool& changed) {
  if (widen && !target->is_nested() && !source->is_nested() && !target->Equals(*source) &&
      log::IsTypeChangeSupportedForSchemaEvolution(*target, *source)) {
    changed = true;
    return source;
  }
  if (target->id() != source->id()) return target;
  switch (target->id()) {
    case TypeId::kStruct: {
      bool inner = false;
      std::vector<Field> fields = MergeFields(target->fields(), source->fields(), widen, inner);
      if (!inner) return target;
      changed = true;
      return StructType(std::move(fields));
    }
    case TypeId::kList: {
      bool inner = false;
      DataTypePtr element = MergeType(target->fields()[0].type, source->fields()[0].type, widen, inner);
      if (!inner) return target;
      changed = true;
      return ListType(element, target->fields()[0].nullable);
    }
    case TypeId::kMap: {
      bool inner = false;
      DataTypePtr value = MergeType(target->fields()[1].type, source->fields()[1].type, widen, inner);
      if (!inner) return target;
      changed = true;
      return MapType(target->fields()[0].type, value, target->fields()[1].nullable);
    }
    default:
      return target;
  }
}

std::vector<Field> MergeFields(const std::vector<Field>& target, const std::vector<Field>& source,
                               bool widen, bool& changed) {
  std::vector<Field> fields = target;
  for (const Field& field : source) {
    auto same = std::find_if(fields.begin(), fields.end(),
                             [&](const Field& existing) { return Lower(existing.name) == Lower(field.name); });
    if (same == fields.end()) {
      fields.push_back(Field{field.name, field.type, true, {}});
      changed = true;
    } else {
      same->type = MergeType(same->type, field.type, widen, changed);
    }
  }
  return fields;
}

// A top-level target column an UPDATE SET / INSERT (cols) names: the name unqualified, or
// qualified by the target's name or alias; nullopt for a nested or other-qualified path.
std::optional<std::string> AssignedTopLevelName(const sql::QualifiedName& name,
                                                const std::vector<std::string>& target_qualifier) {
  if (name.size() == 1) return name[0];
  if (name.size() == 2 && !target_qualifier.empty() && EqualsIgnoreCase(name[0], target_qualifier.back())) {
    return name[1];
  }
  return std::nullopt;
}

// The target schema a MERGE writes: the table's, plus (with schema evolution) the source's
// columns the table lacks when a `*` clause would carry them, appended as nullable columns in
// source order, and the source columns an explicit assignment names (`UPDATE SET newcol =
// s.newcol`, `INSERT (newcol) VALUES (...)`), as Delta evolves them. A change-feed table never
// gains the change feed's own columns.
SchemaPtr EvolvedSchema(const sql::Statement& statement, const SchemaPtr& target,
                        const SchemaPtr& source, bool evolve, bool change_data_feed, bool widen) {
  if (!evolve) return target;
  bool star = false;
  std::vector<Field> named;  // source columns explicit assignments name
  const std::vector<std::string> qualifier = RelationQualifier(*statement.target);
  auto name_source_column = [&](const sql::QualifiedName& name) {
    std::optional<std::string> column = AssignedTopLevelName(name, qualifier);
    if (!column || target->FieldIndex(*column, /*case_sensitive=*/false) >= 0) return;
    for (const Field& field : source->fields()) {
      if (EqualsIgnoreCase(field.name, *column)) named.push_back(field);
    }
  };
  for (const sql::MergeClause& clause : statement.merge_clauses) {
    star = star || clause.action == MergeAction::kUpdateStar || clause.action == MergeAction::kInsertStar;
    if (clause.action == MergeAction::kUpdate) {
      for (const sql::Assignment& assignment : clause.assignments) name_source_column(assignment.column);
    }
    if (clause.action == MergeAction::kInsert) {
      for (const sql::QualifiedName& column : clause.insert_columns) name_source_column(column);
    }
  }
  bool changed = false;
  std::vector<Field> fields = target->fields();
  if (star) fields = MergeFields(fields, source->fields(), widen, changed);
  if (!named.empty()) fields = MergeFields(fields, named, widen, changed);
  if (!changed) return target;
  // Widened columns record their type changes, as ALTER COLUMN ... TYPE does.
  if (widen) fields = log::WithTypeChangesRecorded(*target, Schema(fields)).fields();
  if (change_data_feed) {
    std::string reserved;
    for (const Field& field : fields) {
      if (target->FieldIndex(field.name, /*case_sensitive=*/false) >= 0) continue;
      for (const char* cdc : {"_change_type", "_commit_version", "_commit_timestamp"}) {
        if (EqualsIgnoreCase(field.name, cdc)) reserved += (reserved.empty() ? "" : ",") + field.name;
      }
    }
    if (!reserved.empty()) {
      SILT_THROW(RESERVED_CDC_COLUMNS_ON_WRITE,
                 {{"columnList", "[" + reserved + "]"}, {"config", "delta.enableChangeDataFeed"}});
    }
  }
  auto evolved = std::make_shared<Schema>(std::move(fields));
  evolved->CheckNoDuplicateNames();
  return evolved;
}

// The state every file's task reads (immutable while files are processed, apart from the
// matched-source flags, which are atomic).
struct MergeRun {
  sql::SessionState* session = nullptr;
  const dml::DmlTable* table = nullptr;
  // The metadata and schema the commit writes (the table's, or evolved).
  const log::Metadata* metadata = nullptr;
  SchemaPtr schema;
  const BoundMerge* bound = nullptr;
  const Batch* source = nullptr;
  const SourceIndex* index = nullptr;
  const dml::TargetFileReader* reader = nullptr;
  // Reads only the target columns the keys, the ON condition and the clauses read, for files
  // whose kept rows the pass does not copy (deletion vectors, a partitioned MERGE's passes but
  // the last, a file too large to hold), when no change data is written.
  const dml::TargetFileReader* narrow_reader = nullptr;
  // Over the combined layout: the columns the ON condition reads, and those the matched and
  // not-matched-by-source clauses read.
  std::vector<bool> on_columns;
  std::vector<bool> clause_columns;
  const RowAssembler* assembler = nullptr;
  // Values for identity columns an insert clause does not assign.
  IdentityValueGenerator* identity = nullptr;
  expr::EvalContext eval;
  // Source rows some target row matched (NOT MATCHED clauses take the others).
  std::unique_ptr<std::atomic<bool>[]> source_matched;
  // Changed rows go to deletion vectors (the table enables them and its protocol allows it).
  bool deletion_vectors = false;
  // Only an unconditional DELETE may take a target row several source rows match.
  bool duplicates_allowed = false;
  // A source larger than its memory budget is merged in `num_passes` passes, one hash partition
  // of its keys each (PartitionSource); `source`, `index` and `source_matched` are the current
  // pass's, and only the target rows whose keys hash to the pass take part in it.
  int num_passes = 1;
  int pass = 0;
  // Whether this pass is the one that copies the rows files keep: the only pass, or the last of
  // a partitioned MERGE, which copies the rows no pass removed as it matches its own.
  bool CopiesKeptRows() const { return pass + 1 == num_passes; }
  int64_t num_source_rows = 0;
  const SourceKeyRanges* key_ranges = nullptr;
  // Syncs the files the MERGE writes while its threads go on matching and encoding; waited for
  // before the commit.
  io::BackgroundSync* background_sync = nullptr;
  std::atomic<int64_t> write_time_ms{0};
};

// The new rows one UPDATE / INSERT clause makes of `combined` rows: its assignments evaluated,
// stored into the target's types; columns it does not assign keep the target's value (update) or
// are NULL (insert); generated columns it does not assign are computed; constraints checked.
Batch ApplyValues(const MergeRun& run, const BoundClause& clause, const Batch& combined,
                  expr::EvalContext& context) {
  const BoundMerge& bound = *run.bound;
  std::vector<VectorPtr> columns;
  std::vector<Field> fields;
  std::vector<int> mapping(bound.num_target, -1);
  for (size_t i = 0; i < bound.num_target; ++i) {
    VectorPtr value;
    if (clause.values[i] != nullptr) {
      value = expr::Evaluate(*clause.values[i], combined, context);
      context.ThrowIfError();
    } else if (clause.is_update() && !run.assembler->IsGenerated(i)) {
      value = combined.column(i);
    } else if (!clause.is_update() && run.identity->IsIdentity(i)) {
      value = run.identity->Generate(i, combined.num_rows());
    } else {
      continue;
    }
    mapping[i] = static_cast<int>(columns.size());
    fields.push_back(Field{bound.target_schema->field(i).name, value->type(), true, {}});
    columns.push_back(std::move(value));
  }
  Batch values(std::make_shared<Schema>(std::move(fields)), std::move(columns), combined.num_rows());
  // Columns an insert clause leaves out take their DEFAULT.
  if (!clause.is_update()) values = WithDefaultColumns(run.schema, values, mapping, context);
  return run.assembler->Assemble(values, mapping, context);
}

std::vector<int64_t> Pick(const std::vector<int64_t>& values, const std::vector<size_t>& at) {
  std::vector<int64_t> out;
  out.reserve(at.size());
  for (size_t i : at) out.push_back(values[i]);
  return out;
}

// What one piece (row group) of a target file produced: its rows to write stay in memory
// until the file is known to be touched.
struct PieceOutcome {
  bool touched = false;
  std::vector<uint64_t> removed_positions;
  MergeCounts counts;
  dml::PieceOutput output;
};

// Matches one piece of a target file against the source and applies the clauses: updated rows,
// the piece's unchanged rows (unless the file gets a deletion vector) and change rows go to the
// piece's output. Runs on several threads at once for the pieces of one file.
// With `copies`, the rows the piece keeps go to its output too, but for `earlier_removed`: the
// positions, sorted, of the piece's file that earlier passes of a partitioned MERGE removed
// (null in the only pass).
PieceOutcome ProcessPiece(const MergeRun& run, const dml::PositionedBatch& positioned, bool copies,
                          const std::vector<uint64_t>* earlier_removed) {
  const BoundMerge& bound = *run.bound;
  const Batch& source = *run.source;
  expr::EvalContext context = run.eval;
  PieceOutcome outcome;
  auto take = [](const VectorPtr& values, const std::vector<int64_t>& at) -> VectorPtr {
    return values == nullptr ? nullptr : TakeRows(*values, at);
  };
  auto& changes = outcome.output.changes;
  const bool change_data = run.table->change_data_feed;
  const Batch& rows = positioned.rows;  // in run.schema: the reader reads evolved columns as NULL
  const int64_t n = rows.num_rows();
  std::vector<int64_t> pair_target;
  std::vector<int64_t> pair_source;
  // In a pass over one partition of the source: the rows whose keys hash to it.
  std::vector<uint8_t> in_pass;
  const bool partitioned = run.num_passes > 1;
  if (source.num_rows() > 0 || partitioned) {
    if (run.index->keyed()) {
      std::vector<VectorPtr> keys;
      for (const auto& key : bound.target_keys) {
        keys.push_back(expr::Evaluate(*key, rows, context));
        context.ThrowIfError();
      }
      // Each thread keeps its keys' and probes' buffers from piece to piece instead of mapping
      // fresh pages for every piece of every pass.
      thread_local std::vector<uint64_t> hashes;
      thread_local exec::EncodedKeys scratch;
      HashKeys(keys, 0, n, hashes, scratch);
      // Only this pass's rows are probed, so prefetching goes to the slots they read.
      thread_local std::vector<int64_t> probed;
      probed.clear();
      bool listed = partitioned;
      if (partitioned) {
        in_pass.resize(static_cast<size_t>(n));
        for (int64_t row = 0; row < n; ++row) {
          const bool here =
              PassOf(hashes[static_cast<size_t>(row)], run.num_passes) == run.pass;
          in_pass[static_cast<size_t>(row)] = here ? 1 : 0;
          if (here) probed.push_back(row);
        }
      }
      // Rows whose key the source's bitmap lacks match no source row: only the others probe.
      if (const KeyBitmap* bitmap = run.index->key_bitmap();
          bitmap != nullptr && bitmap->Accepts(*keys[0])) {
        bitmap->Keep(*keys[0], n, listed, probed);
        listed = true;
      }
      run.index->ProbeAll(hashes.data(), keys, n, listed ? &probed : nullptr, pair_target,
                          pair_source);
    } else {
      for (int64_t row = 0; row < n; ++row) {
        for (int64_t s = 0; s < source.num_rows(); ++s) {
          pair_target.push_back(row);
          pair_source.push_back(s);
        }
      }
    }
  }
  // The whole ON condition decides (the keys only found candidates).
  std::vector<int64_t> matched_target;
  std::vector<int64_t> matched_source;
  Batch pairs;
  if (!pair_target.empty()) {
    Batch candidates =
        CombinedRows(bound, &rows, pair_target, &source, pair_source, run.on_columns);
    std::vector<uint8_t> holds = expr::EvaluateFilter(*bound.on, candidates, context);
    context.ThrowIfError();
    for (size_t i = 0; i < holds.size(); ++i) {
      if (!holds[i]) continue;
      matched_target.push_back(pair_target[i]);
      matched_source.push_back(pair_source[i]);
      run.source_matched[static_cast<size_t>(pair_source[i])].store(true,
                                                                    std::memory_order_relaxed);
    }
    if (!bound.matched.empty() && !matched_target.empty()) {
      pairs =
          CombinedRows(bound, &rows, matched_target, &source, matched_source, run.clause_columns);
    }
  }

  std::vector<uint8_t> keep(static_cast<size_t>(n), 1);
  std::vector<uint8_t> matched(static_cast<size_t>(n), 0);
  for (int64_t row : matched_target) matched[static_cast<size_t>(row)] = 1;

  // WHEN MATCHED. As in Delta, several source rows matching one target row is an error as soon
  // as the merge has a matched clause other than one unconditional DELETE, whether or not
  // those rows pass the clause conditions: which of them "wins" would be ambiguous.
  if (!bound.matched.empty() && !matched_target.empty() && !run.duplicates_allowed) {
    std::vector<uint8_t> seen(static_cast<size_t>(n), 0);
    for (int64_t row : matched_target) {
      if (seen[static_cast<size_t>(row)] != 0) {
        SILT_THROW(DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE, {});
      }
      seen[static_cast<size_t>(row)] = 1;
    }
  }
  if (!bound.matched.empty() && !matched_target.empty()) {
    std::vector<int> chosen = ChooseClauses(bound.matched, pairs, context);
    std::vector<std::vector<size_t>> by_clause(bound.matched.size());
    for (size_t i = 0; i < chosen.size(); ++i) {
      if (chosen[i] < 0) continue;
      auto row = static_cast<size_t>(matched_target[i]);
      if (keep[row] == 0) {
        // A second source row reached a clause for this target row.
        if (!run.duplicates_allowed) {
          SILT_THROW(DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE, {});
        }
        continue;
      }
      keep[row] = 0;
      by_clause[static_cast<size_t>(chosen[i])].push_back(i);
    }
    for (size_t c = 0; c < bound.matched.size(); ++c) {
      if (by_clause[c].empty()) continue;
      const BoundClause& clause = bound.matched[c];
      Batch before;
      if (change_data) before = TakeBatchRows(rows, Pick(matched_target, by_clause[c]));
      if (clause.is_update()) {
        std::vector<int64_t> at(by_clause[c].begin(), by_clause[c].end());
        Batch after = ApplyValues(run, clause, TakeBatchRows(pairs, at), context);
        outcome.counts.matched_updated += after.num_rows();
        if (change_data) {
          changes.emplace_back(before, dml::ChangeType::kUpdatePreimage);
          changes.emplace_back(after, dml::ChangeType::kUpdatePostimage);
        }
        VectorPtr row_ids = take(positioned.row_ids, Pick(matched_target, by_clause[c]));
        outcome.output.changed.push_back({std::move(after), std::move(row_ids), nullptr});
      } else {
        outcome.counts.matched_deleted += static_cast<int64_t>(by_clause[c].size());
        if (change_data) changes.emplace_back(std::move(before), dml::ChangeType::kDelete);
      }
    }
  }

  // WHEN NOT MATCHED BY SOURCE.
  if (!bound.not_matched_by_source.empty()) {
    std::vector<int64_t> unmatched;
    for (int64_t row = 0; row < n; ++row) {
      if (!matched[static_cast<size_t>(row)] &&
          (!partitioned || in_pass[static_cast<size_t>(row)] != 0)) {
        unmatched.push_back(row);
      }
    }
    if (!unmatched.empty()) {
      Batch combined =
          CombinedRows(bound, &rows, unmatched, nullptr, unmatched, run.clause_columns);
      std::vector<int> chosen = ChooseClauses(bound.not_matched_by_source, combined, context);
      std::vector<std::vector<int64_t>> by_clause(bound.not_matched_by_source.size());
      for (size_t i = 0; i < chosen.size(); ++i) {
        if (chosen[i] < 0) continue;
        keep[static_cast<size_t>(unmatched[i])] = 0;
        by_clause[static_cast<size_t>(chosen[i])].push_back(static_cast<int64_t>(i));
      }
      for (size_t c = 0; c < by_clause.size(); ++c) {
        if (by_clause[c].empty()) continue;
        const BoundClause& clause = bound.not_matched_by_source[c];
        Batch before;
        if (change_data) {
          before = TakeBatchRows(
              rows, Pick(unmatched, std::vector<size_t>(by_clause[c].begin(), by_clause[c].end())));
        }
        if (clause.is_update()) {
          Batch after = ApplyValues(run, clause, TakeBatchRows(combined, by_clause[c]), context);
          outcome.counts.not_matched_by_source_updated += after.num_rows();
          if (change_data) {
            changes.emplace_back(before, dml::ChangeType::kUpdatePreimage);
            changes.emplace_back(after, dml::ChangeType::kUpdatePostimage);
          }
          std::vector<int64_t> targets;
          for (int64_t i : by_clause[c]) targets.push_back(unmatched[static_cast<size_t>(i)]);
          outcome.output.changed.push_back(
              {std::move(after), take(positioned.row_ids, targets), nullptr});
        } else {
          outcome.counts.not_matched_by_source_deleted += static_cast<int64_t>(by_clause[c].size());
          if (change_data) changes.emplace_back(std::move(before), dml::ChangeType::kDelete);
        }
      }
    }
  }

  // A pass over one partition of the source but the last copies nothing (whether the file is
  // rewritten is known only after the last pass), a file with a deletion vector keeps its rows
  // where they are, and a file too large to hold is copied after the last pass, so only a
  // rewrite lists the rows kept: those of the piece no pass removed.
  std::vector<int64_t> kept_rows;
  int64_t num_kept = 0;
  int64_t num_removed_earlier = 0;
  if (copies) kept_rows.reserve(static_cast<size_t>(n));
  auto next_removed = earlier_removed != nullptr && n > 0
                          ? std::lower_bound(earlier_removed->begin(), earlier_removed->end(),
                                             positioned.positions.front())
                          : std::vector<uint64_t>::const_iterator();
  for (int64_t row = 0; row < n; ++row) {
    if (!keep[static_cast<size_t>(row)]) continue;
    if (earlier_removed != nullptr) {
      // Positions ascend within a piece, so one walk along the sorted positions finds them.
      const uint64_t position = positioned.positions[static_cast<size_t>(row)];
      while (next_removed != earlier_removed->end() && *next_removed < position) ++next_removed;
      if (next_removed != earlier_removed->end() && *next_removed == position) {
        ++num_removed_earlier;
        continue;
      }
    }
    ++num_kept;
    if (copies) kept_rows.push_back(row);
  }
  if (num_kept + num_removed_earlier == n) {
    if (copies) {
      if (num_removed_earlier == 0) {
        outcome.output.copied.push_back({rows, positioned.row_ids, positioned.row_commit_versions});
      } else if (!kept_rows.empty()) {
        outcome.output.copied.push_back({TakeBatchRows(rows, kept_rows),
                                         take(positioned.row_ids, kept_rows),
                                         take(positioned.row_commit_versions, kept_rows)});
      }
    }
    return outcome;
  }
  outcome.touched = true;
  for (int64_t row = 0; row < n; ++row) {
    if (!keep[static_cast<size_t>(row)]) {
      outcome.removed_positions.push_back(positioned.positions[static_cast<size_t>(row)]);
    }
  }
  if (!kept_rows.empty()) {
    outcome.output.copied.push_back({TakeBatchRows(rows, kept_rows),
                                     take(positioned.row_ids, kept_rows),
                                     take(positioned.row_commit_versions, kept_rows)});
  }
  return outcome;
}

// Matches one target file against the source, its pieces (row groups) in parallel, and when
// any row changed writes the file's surviving and new rows (and change rows) to new files, in
// parallel parts when the file is large (dml::WriteRewrite).
// With `copies` (the only or the last pass, and the file fits the memory left) its kept rows
// are copied as it is matched; otherwise only its changed rows are written (CopyKeptRows copies
// the others after the last pass). `earlier`: what the earlier passes of a partitioned MERGE did
// to the file (its removed positions sorted), for the last pass, which rewrites it when any pass
// changed it.
FileOutcome ProcessFile(MergeRun& run, const log::AddFile& file, bool copies,
                        const FileOutcome* earlier) {
  FileOutcome outcome;
  // With deletion vectors the changed rows are marked deleted in the old file and the rest stay
  // where they are; otherwise the file is rewritten with its unchanged rows copied.
  outcome.deletion_vector = run.deletion_vectors && log::CanHaveDeletionVector(file);
  copies = copies && !outcome.deletion_vector;
  const bool narrow = !copies;
  const std::vector<uint64_t>* earlier_removed =
      copies && earlier != nullptr && !earlier->removed_positions.empty()
          ? &earlier->removed_positions
          : nullptr;
  const dml::TargetFileReader& reader =
      narrow && run.narrow_reader != nullptr ? *run.narrow_reader : *run.reader;
  std::unique_ptr<dml::TargetFileReader::OpenedTarget> opened = reader.Open(file);
  std::vector<PieceOutcome> pieces(opened->num_pieces());
  ThreadPool& pool = run.session->pool();
  pool.ParallelFor(pieces.size(), [&](size_t piece) {
    run.session->cancellation().ThrowIfRequested();
    dml::PositionedBatch positioned = opened->ReadPiece(piece);
    if (positioned.rows.num_rows() == 0) return;
    pieces[piece] = ProcessPiece(run, positioned, copies, earlier_removed);
  });
  opened.reset();
  std::vector<dml::PieceOutput> outputs;
  outputs.reserve(pieces.size());
  for (PieceOutcome& piece : pieces) {
    outcome.counts.Add(piece.counts);
    outcome.touched = outcome.touched || piece.touched;
    outcome.removed_positions.insert(outcome.removed_positions.end(),
                                     piece.removed_positions.begin(),
                                     piece.removed_positions.end());
    for (const dml::RowsToWrite& copy : piece.output.copied) {
      outcome.counts.copied += copy.rows.num_rows();
    }
    outputs.push_back(std::move(piece.output));
  }
  pieces.clear();
  const bool rewritten = outcome.touched || (copies && earlier != nullptr && earlier->touched);
  if (!rewritten) {
    outcome.counts.copied = 0;
    return outcome;
  }
  dml::Stopwatch write_time;
  outcome.written = dml::WriteRewrite(*run.table, run.session->fs(), outputs, pool, run.metadata,
                                      run.schema, run.background_sync);
  run.write_time_ms += write_time.ElapsedMs();
  return outcome;
}

// What copying a target file's kept rows as it is matched holds in memory, for each byte the
// file stores: its rows decoded (Snappy and dictionary pages decode to about twice their size),
// kept until the file is known to be touched, and its writers' buffers.
constexpr int64_t kHeldBytesPerStoredByte = 3;

// What matching `file` holds in memory until it is written when the pass copies its kept rows
// (ProcessFile keeps every piece's output until the file is known to be touched): 0 when the
// pass does not copy them (a pass of a partitioned MERGE but the last) or the file gets a
// deletion vector, as then only the rows changed are held.
int64_t HeldBytesEstimate(const MergeRun& run, const log::AddFile& file) {
  const bool deletion_vector = run.deletion_vectors && log::CanHaveDeletionVector(file);
  if (!run.CopiesKeptRows() || deletion_vector) return 0;
  return file.size * kHeldBytesPerStoredByte;
}

// After the last pass of a partitioned MERGE, for a file some pass changed and that is rewritten
// (no deletion vector): writes its rows no pass removed (`removed`: their physical positions,
// sorted), with their row ids and commit versions under row tracking. With `split` (fewer files
// to copy than threads) a file of many pieces (row groups) is copied in parallel parts of
// contiguous pieces, each to files of its own, with one piece of each part in memory at a time;
// otherwise the files themselves keep the threads busy, and each writer's buffered row group
// is one more in memory.
FileOutcome CopyKeptRows(MergeRun& run, const log::AddFile& file,
                         const std::vector<uint64_t>& removed, bool split) {
  dml::Stopwatch write_time;
  std::unique_ptr<dml::TargetFileReader::OpenedTarget> opened = run.reader->Open(file);
  ThreadPool& pool = run.session->pool();
  const size_t num_pieces = opened->num_pieces();
  const size_t num_parts =
      split ? std::max<size_t>(
                  1, std::min(pool.num_threads(), num_pieces / dml::kMinPiecesPerRewritePart))
            : 1;
  std::vector<FileOutcome> parts(num_parts);
  pool.ParallelFor(num_parts, [&](size_t part) {
    dml::DmlWriter writer(*run.table, run.session->fs(), run.metadata, run.schema,
                          run.background_sync);
    for (size_t piece = num_pieces * part / num_parts; piece < num_pieces * (part + 1) / num_parts;
         ++piece) {
      run.session->cancellation().ThrowIfRequested();
      dml::PositionedBatch positioned = opened->ReadPiece(piece);
      if (positioned.rows.num_rows() == 0) continue;
      // Positions ascend within a piece, so one walk along `removed` finds the rows it names.
      std::vector<int64_t> kept;
      kept.reserve(positioned.positions.size());
      auto next_removed =
          std::lower_bound(removed.begin(), removed.end(), positioned.positions.front());
      for (size_t row = 0; row < positioned.positions.size(); ++row) {
        const uint64_t position = positioned.positions[row];
        while (next_removed != removed.end() && *next_removed < position) ++next_removed;
        if (next_removed != removed.end() && *next_removed == position) continue;
        kept.push_back(static_cast<int64_t>(row));
      }
      if (kept.empty()) continue;
      parts[part].counts.copied += static_cast<int64_t>(kept.size());
      if (static_cast<int64_t>(kept.size()) == positioned.rows.num_rows()) {
        writer.WriteData(positioned.rows, positioned.row_ids, positioned.row_commit_versions);
        continue;
      }
      auto take = [&](const VectorPtr& values) {
        return values == nullptr ? nullptr : TakeRows(*values, kept);
      };
      writer.WriteData(TakeBatchRows(positioned.rows, kept), take(positioned.row_ids),
                       take(positioned.row_commit_versions));
    }
    parts[part].written = writer.Finish();
  });
  opened.reset();
  FileOutcome outcome;
  for (FileOutcome& part : parts) {
    outcome.counts.Add(part.counts);
    dml::AppendWritten(outcome.written, std::move(part.written));
  }
  run.write_time_ms += write_time.ElapsedMs();
  return outcome;
}

// Runs `process(i, fits)` for files 0 to `num_files` - 1 on the threads of `pool`, each thread
// taking the next file as soon as it is done with one, so that no thread waits for the slowest
// file of a group before it starts another. A file whose rows held until it is written
// (`held_bytes(i)`) fit `available` bytes starts only once they also fit beside those of the
// files in progress, counted in `reservation` while it runs (`fits` true); a larger one holds
// only the rows it changes (`fits` false). A thread whose next file does not fit yet leaves it to
// a thread in progress, which takes it when done, instead of waiting: a pool thread asleep here
// could not help with the row groups and column chunks of the files in progress. Files are taken
// in order. The first exception thrown is rethrown once the files in progress are done; files
// not started by then are not.
void RunFilesWithinMemory(size_t num_files, const std::function<int64_t(size_t)>& held_bytes,
                          int64_t available, exec::MemoryReservation& reservation,
                          ThreadPool& pool, const std::function<void(size_t, bool)>& process) {
  std::mutex mutex;
  size_t next = 0;
  int64_t held = 0;
  bool failed = false;
  pool.ParallelFor(std::min(num_files, pool.num_threads()), [&](size_t) {
    while (true) {
      size_t file = 0;
      int64_t bytes = 0;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next == num_files || failed) return;
        bytes = held_bytes(next);
        if (bytes > available) bytes = -1;
        // Then `held` is a file's in progress, whose thread takes this one when done.
        if (bytes > 0 && held + bytes > available) return;
        file = next++;
        if (bytes > 0) {
          const bool reserved = reservation.TryGrow(bytes);
          SILT_CHECK(reserved, "the MERGE target files in progress fit the memory left");
          held += bytes;
        }
      }
      bool ok = false;
      auto done = [&] {
        std::lock_guard<std::mutex> lock(mutex);
        if (bytes > 0) {
          held -= bytes;
          reservation.Shrink(bytes);
        }
        failed = failed || !ok;
      };
      try {
        process(file, bytes >= 0);
        ok = true;
      } catch (...) {
        done();
        throw;
      }
      done();
    }
  });
}

dml::CandidateFiles ChooseMatchingFiles(const MergeRun& run);

// The files NOT MATCHED BY SOURCE clauses may act on besides those the source may match: with
// conditions on the target's own columns only the files some condition may hold in (by
// partition values and statistics), else every file. The union of candidate sets records the
// whole table as read (a read predicate is a conjunction).
dml::CandidateFiles ChooseMergeFiles(const MergeRun& run) {
  const BoundMerge& bound = *run.bound;
  if (bound.not_matched_by_source.empty()) return ChooseMatchingFiles(run);
  const size_t table_width = run.table->schema->num_fields();
  std::vector<expr::ExpressionPtr> conditions;
  for (const BoundClause& clause : bound.not_matched_by_source) {
    bool prunable = clause.condition != nullptr && clause.condition->deterministic();
    if (prunable) {
      for (int column : expr::ReferencedColumns(*clause.condition)) {
        // A column this MERGE widens cannot prune: the statistics have the old type.
        prunable = prunable && static_cast<size_t>(column) < table_width &&
                   run.table->schema->field(static_cast<size_t>(column))
                       .type->Equals(*run.schema->field(static_cast<size_t>(column)).type);
      }
    }
    if (!prunable) return dml::ChooseCandidateFiles(*run.table, nullptr, &run.session->pool());
    conditions.push_back(clause.condition);
  }
  dml::CandidateFiles matching = ChooseMatchingFiles(run);
  std::set<const log::AddFile*> chosen(matching.files.begin(), matching.files.end());
  for (const expr::ExpressionPtr& condition : conditions) {
    for (const log::AddFile* file : dml::ChooseCandidateFiles(*run.table, condition, &run.session->pool()).files) chosen.insert(file);
  }
  dml::CandidateFiles candidates;
  candidates.num_files_before_skipping = matching.num_files_before_skipping;
  for (const log::AddFile& file : run.table->snapshot->files()) {
    if (chosen.count(&file)) candidates.files.push_back(&file);
  }
  return candidates;
}

// The files the source's rows may match: those the ON condition's target-only conjuncts and the
// range of the source's keys leave possible; none for an empty source.
dml::CandidateFiles ChooseMatchingFiles(const MergeRun& run) {
  const BoundMerge& bound = *run.bound;
  if (run.num_source_rows == 0) {
    dml::CandidateFiles none;
    none.num_files_before_skipping = run.table->snapshot->files().size();
    return none;
  }
  // Pruning reads the files' statistics as the table's current types: conditions on a column
  // this MERGE widens cannot prune.
  const Schema& table_schema = *run.table->schema;
  auto same_type = [&](int column) {
    return static_cast<size_t>(column) < table_schema.num_fields() &&
           table_schema.field(static_cast<size_t>(column)).type->Equals(
               *run.schema->field(static_cast<size_t>(column)).type);
  };
  std::vector<expr::ExpressionPtr> conjuncts;
  for (const expr::ExpressionPtr& conjunct : bound.target_only_conjuncts) {
    std::vector<int> columns = expr::ReferencedColumns(*conjunct);
    if (std::all_of(columns.begin(), columns.end(), same_type)) conjuncts.push_back(conjunct);
  }
  for (size_t k = 0; k < bound.target_keys.size(); ++k) {
    const expr::ExpressionPtr& target_key = bound.target_keys[k];
    const DataTypePtr& type = bound.source_keys[k]->type();
    // A key range helps only on a plain column of the same type (stats are per column).
    if (target_key->kind() != expr::ExpressionKind::kColumn || bound.null_safe[k] ||
        !type->Equals(*target_key->type()) || !exec::IsOrderable(*type)) {
      continue;
    }
    if (!same_type(target_key->column_index())) continue;
    const VectorPtr& low = run.key_ranges->low(k);
    const VectorPtr& high = run.key_ranges->high(k);
    if (low == nullptr) {
      // Every source key is NULL: nothing can match.
      dml::CandidateFiles none;
      none.num_files_before_skipping = run.table->snapshot->files().size();
      return none;
    }
    conjuncts.push_back(expr::Compare(expr::ComparisonOperator::kGreaterOrEqual, target_key,
                                      expr::Literal(expr::Scalar::FromVector(*low, 0))));
    conjuncts.push_back(expr::Compare(expr::ComparisonOperator::kLessOrEqual, target_key,
                                      expr::Literal(expr::Scalar::FromVector(*high, 0))));
  }
  expr::ExpressionPtr predicate = conjuncts.empty() ? nullptr : expr::JoinConjunction(conjuncts);
  return dml::ChooseCandidateFiles(*run.table, predicate, &run.session->pool());
}

std::string ClausesParameter(const std::vector<BoundClause>& clauses) {
  JsonWriter json;
  json.BeginArray();
  for (const BoundClause& clause : clauses) {
    json.BeginObject();
    if (clause.condition_sql) {
      json.Key("predicate");
      json.String(*clause.condition_sql);
    }
    json.Key("actionType");
    json.String(ActionTypeName(clause.action));
    json.EndObject();
  }
  json.EndArray();
  return QuotedJson(json.Release());
}

}  // namespace

StatementResult ExecuteMerge(sql::SessionState& session, const sql::Statement& written) {
  // A view target writes to its table (dml_views.h).
  const sql::Statement statement = dml::ResolveDmlThroughView(session, written, "MERGE");
  dml::Stopwatch total_time;
  dml::DmlTable table = dml::LoadDmlTable(session, *statement.target, "MERGE");

  // The source is materialised once (MaterializeSource): in memory, or on disk when it is larger
  // than its share of the memory limit.
  dml::Stopwatch source_time;
  sql::Query source_query;
  source_query.kind = sql::QueryKind::kSelect;
  source_query.position = statement.source->position;
  auto star = std::make_shared<sql::Expression>();
  star->kind = sql::ExpressionKind::kStar;
  star->position = statement.source->position;
  source_query.select_list.push_back(sql::SelectItem{star, "", {}});
  source_query.from.push_back(statement.source);
  source_query.with = statement.with;
  exec::ExecContext exec_context = MakeExecContext(session);
  exec::MemoryReservation source_memory(exec_context.memory, "MergeSource");
  MaterializedSource materialized;
  {
    sql::PlannedQuery planned = sql::PlanQuery(session, source_query, exec_context);
    materialized = MaterializeSource(*planned.root, exec_context, source_memory);
  }
  int64_t materialize_ms = source_time.ElapsedMs();

  const bool evolve = statement.schema_evolution ||
                      session.GetBoolConf("spark.databricks.delta.schema.autoMerge.enabled", false);
  SchemaPtr written_schema =
      EvolvedSchema(statement, table.schema, materialized.schema, evolve, table.change_data_feed,
                    log::IsTypeWideningEnabled(table.snapshot->protocol(), table.metadata()));
  const bool schema_changed = written_schema != table.schema;
  log::Metadata metadata = table.metadata();
  if (schema_changed) metadata.schema_string = ToDeltaSchemaJson(*written_schema);
  BoundMerge bound = BindMerge(statement, written_schema, materialized.schema, evolve);
  RowAssembler assembler(written_schema, metadata, table.target.display_name, WriteKind::kModify);
  IdentityValueGenerator identity(*written_schema);

  // As many sync threads as writers, a file or two waiting each: an object store's upload of a
  // file's last part, done on closing it, goes on as many at once as before.
  io::BackgroundSync background_sync(session.pool().num_threads(),
                                     2 * session.pool().num_threads());
  MergeRun run;
  run.background_sync = &background_sync;
  run.session = &session;
  run.table = &table;
  run.metadata = &metadata;
  run.schema = written_schema;
  run.deletion_vectors = table.deletion_vectors &&
                         log::DeletionVectorsWritable(table.snapshot->protocol(), table.metadata());
  run.bound = &bound;
  run.eval = session.MakeEvalContext();
  run.assembler = &assembler;
  run.identity = &identity;
  run.duplicates_allowed = bound.matched.size() == 1 && bound.matched[0].condition == nullptr &&
                           bound.matched[0].action == MergeAction::kDelete;
  run.num_source_rows = materialized.num_rows;
  SourceKeyRanges key_ranges(bound.source_keys.size());
  run.key_ranges = &key_ranges;

  // A source on disk is split by its keys' hash into partitions that each fit the budget with
  // their hash table; each pass of the file loop below merges one of them. Without equi-join
  // keys every target row may match any source row, so there is nothing to split by.
  std::vector<std::unique_ptr<exec::SpillFile>> partitions;
  if (materialized.spilled != nullptr) {
    if (bound.target_keys.empty())
      exec::ThrowMemoryLimitExceeded(*exec_context.memory, "MergeSource");
    run.num_passes = PlanPasses(materialized.spilled->num_bytes(), materialized.num_rows,
                                SourceBudget(*exec_context.memory));
    partitions =
        PartitionSource(*materialized.spilled, bound, run.num_passes, exec_context, key_ranges);
    materialized.spilled.reset();
  }

  // With schema evolution the target's rows are read as the evolved schema: columns and nested
  // fields the MERGE adds read as NULL in the rows it keeps.
  dml::TargetFileReader reader(table, session.fs(), &session.pool(), {},
                               schema_changed ? &metadata : nullptr);
  run.reader = &reader;
  const size_t combined_width = bound.combined_schema->num_fields();
  run.on_columns.assign(combined_width, false);
  MarkUsed({bound.on}, run.on_columns);
  run.clause_columns.assign(combined_width, false);
  MarkClausesUsed(bound.matched, assembler, bound.num_target, run.clause_columns);
  MarkClausesUsed(bound.not_matched_by_source, assembler, bound.num_target, run.clause_columns);
  // Without change data, a file given a deletion vector never has a row it keeps copied or
  // re-emitted, and the passes of a partitioned MERGE but the last (and the last, for a file too
  // large to hold, whose kept rows are copied after it) only find the rows each changes, so they
  // decode only the target columns the keys, the ON condition and the clauses read.
  std::optional<dml::TargetFileReader> narrow_reader;
  if (!table.change_data_feed && !schema_changed) {
    std::vector<bool> read(bound.num_target, false);
    for (size_t i = 0; i < bound.num_target; ++i) read[i] = run.on_columns[i] || run.clause_columns[i];
    std::vector<bool> key_columns(combined_width, false);
    MarkUsed(bound.target_keys, key_columns);
    for (size_t i = 0; i < bound.num_target; ++i) read[i] = read[i] || key_columns[i];
    narrow_reader.emplace(table, session.fs(), &session.pool(), std::move(read));
    run.narrow_reader = &*narrow_reader;
  }

  // The source rows no target row matched, for the WHEN NOT MATCHED clauses: row numbers of the
  // in-memory source, or (partitioned) the rows themselves, gathered pass by pass on disk.
  std::vector<int64_t> unmatched;
  std::unique_ptr<exec::SpillFile> unmatched_spill;
  auto collect_unmatched = [&](const Batch& source) {
    if (bound.not_matched.empty()) return;
    std::vector<int64_t> rows;
    for (int64_t row = 0; row < source.num_rows(); ++row) {
      if (!run.source_matched[static_cast<size_t>(row)].load()) rows.push_back(row);
    }
    if (run.num_passes == 1) {
      unmatched = std::move(rows);
      return;
    }
    if (unmatched_spill == nullptr) {
      unmatched_spill = std::make_unique<exec::SpillFile>(*exec_context.memory, materialized.schema,
                                                          exec_context.counters.get());
    }
    for (size_t begin = 0; begin < rows.size(); begin += exec::kTargetBatchRows) {
      size_t end = std::min(rows.size(), begin + static_cast<size_t>(exec::kTargetBatchRows));
      unmatched_spill->Append(TakeBatchRows(
          source, std::vector<int64_t>(rows.begin() + static_cast<std::ptrdiff_t>(begin),
                                       rows.begin() + static_cast<std::ptrdiff_t>(end))));
    }
  };

  dml::Stopwatch scan_time;
  Batch source;
  std::optional<SourceIndex> index;
  exec::MemoryReservation pass_memory(exec_context.memory, "MergeSourcePartition");
  auto start_pass = [&](Batch pass_source) {
    index.reset();
    source = std::move(pass_source);
    run.source = &source;
    run.source_matched =
        std::make_unique<std::atomic<bool>[]>(static_cast<size_t>(source.num_rows()));
    for (int64_t i = 0; i < source.num_rows(); ++i)
      run.source_matched[static_cast<size_t>(i)] = false;
    expr::EvalContext index_context = run.eval;
    // The key bitmap's bytes count with the source's (or this pass's partition's).
    index.emplace(bound, source, index_context, session.pool(), [&](int64_t bytes) {
      return (run.num_passes == 1 ? source_memory : pass_memory).TryGrow(bytes);
    });
    run.index = &*index;
  };
  if (run.num_passes == 1) {
    start_pass(std::move(materialized.batch));
    key_ranges.AddInParallel(index->key_vectors(), source.num_rows(), session.pool());
  }
  dml::CandidateFiles candidates = ChooseMergeFiles(run);
  std::vector<FileOutcome> outcomes(candidates.files.size());
  // Files whose kept rows the last (or only) pass copies as it matches them.
  std::vector<uint8_t> copied_as_matched(candidates.files.size(), 0);
  AnnounceTargetFiles(session, candidates.files);
  for (int pass = 0; pass < run.num_passes; ++pass) {
    if (run.num_passes > 1) {
      // One partition's rows and hash table in memory at a time.
      std::vector<Batch> batches;
      while (std::optional<Batch> batch = partitions[static_cast<size_t>(pass)]->ReadNext()) {
        batches.push_back(std::move(*batch));
      }
      partitions[static_cast<size_t>(pass)].reset();
      Batch pass_source =
          ConcatenateReleasing(materialized.schema, std::move(batches), session.pool());
      pass_memory.Clear();
      pass_memory.Grow(SourceMemoryBytes(exec::MemoryBytes(pass_source), pass_source.num_rows()));
      run.pass = pass;
      start_pass(std::move(pass_source));
    }
    if (run.num_passes > 1 && run.CopiesKeptRows()) {
      for (FileOutcome& outcome : outcomes) {
        std::sort(outcome.removed_positions.begin(), outcome.removed_positions.end());
      }
    }
    auto process = [&](size_t i) {
      session.cancellation().ThrowIfRequested();
      FileOutcome outcome = ProcessFile(run, *candidates.files[i], copied_as_matched[i] != 0,
                                        run.num_passes > 1 ? &outcomes[i] : nullptr);
      if (pass == 0) session.progress().AddRead(1, 0, candidates.files[i]->size);
      if (run.num_passes == 1) {
        outcomes[i] = std::move(outcome);
        return;
      }
      // Partitioned: what each pass did to the file adds up; its updated rows and change rows
      // are already written.
      FileOutcome& total = outcomes[i];
      total.touched = total.touched || outcome.touched;
      total.deletion_vector = outcome.deletion_vector;
      total.counts.Add(outcome.counts);
      total.removed_positions.insert(total.removed_positions.end(),
                                     outcome.removed_positions.begin(),
                                     outcome.removed_positions.end());
      dml::AppendWritten(total.written, std::move(outcome.written));
    };
    // The pass that copies kept rows holds each file's rows until it is written: a file starts
    // once its rows fit beside those of the files in progress in the memory the source leaves,
    // and a file larger than all of it is only matched, its kept rows copied after the last pass.
    {
      exec::MemoryReservation files_memory(exec_context.memory, "MergeTargetFiles");
      RunFilesWithinMemory(
          candidates.files.size(),
          [&](size_t i) { return HeldBytesEstimate(run, *candidates.files[i]); },
          exec_context.memory->limit() - exec_context.memory->reserved(), files_memory,
          session.pool(), [&](size_t i, bool fits) {
            copied_as_matched[i] = run.CopiesKeptRows() && fits ? 1 : 0;
            process(i);
          });
    }
    collect_unmatched(source);
  }
  index.reset();
  pass_memory.Clear();
  // A partitioned MERGE's unmatched source rows are in a spill file by now.
  if (run.num_passes > 1) source = Batch();
  // The last pass rewrote the files some pass changed that it could hold; the others are copied
  // now, with the rows no pass removed, and those that get deletion vectors take the positions
  // every pass removed.
  size_t num_copied = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    if (outcomes[i].touched && !outcomes[i].deletion_vector && !copied_as_matched[i]) ++num_copied;
  }
  const bool split = num_copied < session.pool().num_threads();
  session.pool().ParallelFor(candidates.files.size(), [&](size_t i) {
    FileOutcome& outcome = outcomes[i];
    if (!outcome.touched || (copied_as_matched[i] && !outcome.deletion_vector)) return;
    std::sort(outcome.removed_positions.begin(), outcome.removed_positions.end());
    if (outcome.deletion_vector) return;
    session.cancellation().ThrowIfRequested();
    FileOutcome copies = CopyKeptRows(run, *candidates.files[i], outcome.removed_positions, split);
    outcome.counts.Add(copies.counts);
    dml::AppendWritten(outcome.written, std::move(copies.written));
  });
  int64_t file_phase_ms = scan_time.ElapsedMs();

  dml::DmlCommit commit;
  commit.operation = "MERGE";
  MergeCounts counts;
  std::unique_ptr<log::DeletionVectorWriter> dv_writer;
  std::vector<log::AddFile> dv_adds;
  std::vector<log::RemoveFile> dv_removes;
  int64_t dv_added = 0;
  int64_t dv_removed = 0;
  int64_t dv_updated = 0;
  int64_t files_removed = 0;
  int64_t removed_bytes = 0;
  for (size_t i = 0; i < outcomes.size(); ++i) {
    FileOutcome& outcome = outcomes[i];
    counts.Add(outcome.counts);
    if (!outcome.touched) continue;
    const log::AddFile& file = *candidates.files[i];
    dml::AppendWritten(commit.written, std::move(outcome.written));
    if (!outcome.deletion_vector) {
      commit.removed.push_back(&file);
      ++files_removed;
      removed_bytes += file.size;
      continue;
    }
    if (!dv_writer) {
      dv_writer = log::DeletionVectorWriter::Open(session.fs(), table.snapshot->table_root(),
                                                  table.snapshot->protocol(), table.metadata());
    }
    std::optional<log::DeletionVectorUpdate> update =
        dv_writer->DeleteRows(file, outcome.removed_positions);
    if (!update) continue;
    dv_removes.push_back(std::move(update->remove));
    if (update->add) {
      dv_adds.push_back(std::move(*update->add));
      ++(update->had_deletion_vector ? dv_updated : dv_added);
    } else {
      // Every row of the file is gone: it is removed, with no new deletion vector.
      dv_removed += update->had_deletion_vector ? 1 : 0;
      ++files_removed;
      removed_bytes += file.size;
    }
  }
  if (dv_writer) dv_writer->Finish();
  const bool rows_changed = files_removed > 0 || !dv_removes.empty();

  // WHEN NOT MATCHED: the source rows no target row matched.
  dml::Stopwatch insert_time;
  if (!bound.not_matched.empty()) {
    std::vector<bool> used(bound.combined_schema->num_fields(), false);
    MarkClausesUsed(bound.not_matched, assembler, bound.num_target, used);
    // The inserted rows are written by several workers, a writer each, taking batches of the
    // unmatched rows in turn; identity values are generated in order by one.
    bool generates_identity = false;
    for (size_t i = 0; i < bound.num_target; ++i)
      generates_identity = generates_identity || identity.IsIdentity(i);
    const size_t num_workers = generates_identity ? 1 : session.pool().num_threads();
    std::vector<std::optional<dml::DmlWriter>> writers(num_workers);
    std::vector<int64_t> inserted(num_workers, 0);
    auto insert = [&](size_t worker, const Batch& rows_of, const std::vector<int64_t>& rows) {
      if (rows.empty()) return;
      expr::EvalContext context = run.eval;
      Batch combined = CombinedRows(bound, nullptr, rows, &rows_of, rows, used);
      std::vector<int> chosen = ChooseClauses(bound.not_matched, combined, context);
      std::vector<std::vector<int64_t>> by_clause(bound.not_matched.size());
      for (size_t i = 0; i < chosen.size(); ++i) {
        if (chosen[i] >= 0)
          by_clause[static_cast<size_t>(chosen[i])].push_back(static_cast<int64_t>(i));
      }
      std::optional<dml::DmlWriter>& writer = writers[worker];
      if (!writer) writer.emplace(table, session.fs(), &metadata, written_schema, run.background_sync);
      for (size_t c = 0; c < by_clause.size(); ++c) {
        if (by_clause[c].empty()) continue;
        Batch values =
            ApplyValues(run, bound.not_matched[c], TakeBatchRows(combined, by_clause[c]), context);
        inserted[worker] += values.num_rows();
        writer->WriteData(values);
        // An insert-only commit needs no change files: readers derive its inserts from the
        // adds. Once the commit has change files, they must hold the inserts too.
        if (rows_changed) writer->WriteChanges(values, dml::ChangeType::kInsert);
      }
    };
    std::mutex next_mutex;
    size_t next_unmatched = 0;  // in-memory source: the first row of `unmatched` not taken yet
    session.pool().ParallelFor(num_workers, [&](size_t worker) {
      while (true) {
        session.cancellation().ThrowIfRequested();
        std::optional<Batch> batch;
        std::vector<int64_t> rows;
        {
          std::lock_guard<std::mutex> lock(next_mutex);
          if (unmatched_spill != nullptr) {
            batch = unmatched_spill->ReadNext();
            if (!batch) return;
          } else {
            if (next_unmatched >= unmatched.size()) return;
            const size_t end = std::min(
                unmatched.size(), next_unmatched + static_cast<size_t>(exec::kTargetBatchRows));
            rows.assign(unmatched.begin() + static_cast<std::ptrdiff_t>(next_unmatched),
                        unmatched.begin() + static_cast<std::ptrdiff_t>(end));
            next_unmatched = end;
          }
        }
        if (batch) {
          rows.resize(static_cast<size_t>(batch->num_rows()));
          for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<int64_t>(i);
          insert(worker, *batch, rows);
        } else {
          insert(worker, source, rows);
        }
      }
    });
    for (size_t worker = 0; worker < num_workers; ++worker) {
      counts.inserted += inserted[worker];
      if (writers[worker]) dml::AppendWritten(commit.written, writers[worker]->Finish());
    }
  }
  // Every file written is durable before the commit names it.
  background_sync.Wait();
  int64_t rewrite_ms = run.write_time_ms.load() + insert_time.ElapsedMs();

  const int64_t updated = counts.matched_updated + counts.not_matched_by_source_updated;
  const int64_t deleted = counts.matched_deleted + counts.not_matched_by_source_deleted;

  commit.parameters = {{"predicate", dml::PredicateParameter({bound.on_sql})},
                       {"matchedPredicates", ClausesParameter(bound.matched)},
                       {"notMatchedPredicates", ClausesParameter(bound.not_matched)},
                       {"notMatchedBySourcePredicates", ClausesParameter(bound.not_matched_by_source)}};
  auto text = [](int64_t value) { return std::to_string(value); };
  commit.metrics = {
      {"numSourceRows", text(run.num_source_rows)},
      {"numTargetRowsInserted", text(counts.inserted)},
      {"numTargetRowsUpdated", text(updated)},
      {"numTargetRowsMatchedUpdated", text(counts.matched_updated)},
      {"numTargetRowsNotMatchedBySourceUpdated", text(counts.not_matched_by_source_updated)},
      {"numTargetRowsDeleted", text(deleted)},
      {"numTargetRowsMatchedDeleted", text(counts.matched_deleted)},
      {"numTargetRowsNotMatchedBySourceDeleted", text(counts.not_matched_by_source_deleted)},
      {"numTargetRowsCopied", text(counts.copied)},
      {"numOutputRows", text(counts.inserted + updated + counts.copied)},
      {"numTargetFilesAdded", text(static_cast<int64_t>(commit.written.adds.size()))},
      {"numTargetFilesRemoved", text(files_removed)},
      {"numTargetBytesAdded", text(commit.written.data_bytes)},
      {"numTargetBytesRemoved", text(removed_bytes)},
      {"numTargetChangeFilesAdded", text(static_cast<int64_t>(commit.written.change_files.size()))},
      {"numTargetDeletionVectorsAdded", text(dv_added + dv_updated)},
      {"numTargetDeletionVectorsRemoved", text(dv_removed + dv_updated)},
      {"numTargetDeletionVectorsUpdated", text(dv_updated)},
      {"executionTimeMs", text(total_time.ElapsedMs())},
      {"materializeSourceTimeMs", text(materialize_ms)},
      {"scanTimeMs", text(std::max<int64_t>(0, file_phase_ms - run.write_time_ms.load()))},
      {"rewriteTimeMs", text(rewrite_ms)}};

  auto txn = dml::StartDmlTransaction(table);
  // Generated identity values move their high water marks in this commit's metadata.
  bool marks_moved = identity.UpdateHighWaterMarks(metadata);
  if (schema_changed || marks_moved) txn->UpdateMetadata(metadata);
  for (log::RemoveFile& remove : dv_removes) txn->Remove(std::move(remove));
  for (log::AddFile& add : dv_adds) txn->Add(std::move(add));
  // The files read and the predicate that chose them: inserts depend on the absence of matches
  // wherever the keys could be, so a concurrent add there conflicts.
  dml::RecordReads(*txn, candidates);
  dml::CommitDml(*txn, std::move(commit), internal::CommitOptionsFor(session));

  ResultBuilder result({Field{"num_affected_rows", LongType(), true, {}},
                        Field{"num_updated_rows", LongType(), true, {}},
                        Field{"num_deleted_rows", LongType(), true, {}},
                        Field{"num_inserted_rows", LongType(), true, {}}});
  result.column(0).AppendInt(updated + deleted + counts.inserted);
  result.column(1).AppendInt(updated);
  result.column(2).AppendInt(deleted);
  result.column(3).AppendInt(counts.inserted);
  return result.Finish();
}

}  // namespace silt::commands::internal
