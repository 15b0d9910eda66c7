#include "silt/sql/query_binder.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/exec/accumulator.h"
#include "silt/exec/aggregate_function.h"
#include "silt/exec/sort_window.h"
#include "silt/exec/text_format.h"
#include "silt/expr/cast.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/expression_rewrite.h"
#include "silt/expr/function_registry.h"
#include "silt/expr/operator_functions.h"
#include "silt/expr/type_coercion.h"
#include "silt/log/row_tracking.h"
#include "silt/io/file_system.h"
#include "silt/parquet/reader.h"
#include "silt/sql/binder_scope.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/parser.h"
#include "silt/sql/physical_planner.h"
#include "silt/sql/subplan_results.h"

namespace silt::sql {
namespace {

// Aggregate, window and generator calls bind to placeholder columns far above any real column
// index; the select binder later maps them to the columns of the operators that compute them.
constexpr int kAggregateBase = 1 << 24;
constexpr int kWindowBase = 2 << 24;
constexpr int kGeneratorBase = 3 << 24;
constexpr int kGeneratorStride = 64;
// grouping() and grouping_id() calls, replaced by bits of the grouping id once GROUP BY is bound.
constexpr int kGroupingBase = 4 << 24;
// The most expressions GROUP BY may group by with grouping sets: Spark's grouping id is a BIGINT,
// one bit per expression.
constexpr size_t kMaxGroupingColumns = 64;

[[noreturn]] void ThrowAt(const Error& error, const SourcePosition& position) {
  throw error.WithContext(FormatPosition(position));
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool SameExpression(const expr::ExpressionPtr& a, const expr::ExpressionPtr& b) {
  if (a == b) return true;
  return a->type()->Equals(*b->type()) && a->ToString() == b->ToString();
}

bool ContainsPlaceholder(const expr::Expression& expression, int low, int high) {
  bool found = false;
  expr::VisitExpression(expression, [&](const expr::Expression& node) {
    if (node.kind() == expr::ExpressionKind::kColumn && node.column_index() >= low &&
        node.column_index() < high) {
      found = true;
    }
  });
  return found;
}

// Rewrites top-down: `replace` returns a replacement for a node (its subtree is not visited),
// or nullptr to rewrite the node's children.
expr::ExpressionPtr RewriteTopDown(const expr::ExpressionPtr& expression,
                                   const std::function<expr::ExpressionPtr(const expr::ExpressionPtr&)>& replace) {
  if (expr::ExpressionPtr replacement = replace(expression)) return replacement;
  if (expression->children().empty()) return expression;
  std::vector<expr::ExpressionPtr> children;
  bool changed = false;
  for (const expr::ExpressionPtr& child : expression->children()) {
    children.push_back(RewriteTopDown(child, replace));
    changed = changed || children.back() != child;
  }
  return changed ? expression->WithChildren(std::move(children)) : expression;
}

std::string OrdinalWord(size_t n) {
  static const char* kWords[] = {"zeroth", "first", "second", "third", "fourth", "fifth",
                                 "sixth", "seventh", "eighth", "ninth", "tenth"};
  if (n < 11) return kWords[n];
  return std::to_string(n) + "th";
}

exec::JoinType ToExecJoinType(JoinType type) {
  switch (type) {
    case JoinType::kInner: return exec::JoinType::kInner;
    case JoinType::kLeftOuter: return exec::JoinType::kLeftOuter;
    case JoinType::kRightOuter: return exec::JoinType::kRightOuter;
    case JoinType::kFullOuter: return exec::JoinType::kFullOuter;
    case JoinType::kCross: return exec::JoinType::kInner;
    case JoinType::kLeftSemi: return exec::JoinType::kLeftSemi;
    case JoinType::kLeftAnti: return exec::JoinType::kLeftAnti;
  }
  return exec::JoinType::kInner;
}

std::string CanonicalAggregateName(const std::string& name) {
  static const std::map<std::string, std::string> kAliases = {
      {"mean", "avg"},          {"array_agg", "collect_list"}, {"first_value", "first"},
      {"last_value", "last"},   {"std", "stddev"},             {"stddev_samp", "stddev"},
      {"var_samp", "variance"}, {"any", "bool_or"},            {"some", "bool_or"},
      {"every", "bool_and"},    {"string_agg", "listagg"}};
  auto it = kAliases.find(name);
  return it == kAliases.end() ? name : it->second;
}

bool IsIntegerLiteral(const Expression& expression) {
  return expression.kind == ExpressionKind::kLiteral &&
         (expression.literal_kind == LiteralKind::kInteger || expression.literal_kind == LiteralKind::kBigint);
}

// A one-row relation with no visible columns, for SELECT without FROM.
LogicalPtr OneRow() {
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kRange;
  node->range_start = 0;
  node->range_end = 1;
  node->range_step = 1;
  LogicalColumn column = MakeLogicalColumn("id", LongType(), false);
  column.hidden = true;
  node->columns.push_back(column);
  return node;
}

// The same node with other column names and qualifiers (an alias of a relation).
LogicalPtr Requalify(const LogicalPtr& plan, const std::string& alias,
                     const std::vector<std::string>& column_aliases, const SourcePosition& position) {
  if (alias.empty() && column_aliases.empty()) return plan;
  auto copy = std::make_shared<LogicalNode>(*plan);
  std::vector<size_t> visible;
  for (size_t i = 0; i < copy->columns.size(); ++i) {
    if (!copy->columns[i].hidden) visible.push_back(i);
  }
  if (!column_aliases.empty() && column_aliases.size() != visible.size()) {
    ThrowAt(MakeError(ErrorClass::NUM_COLUMNS_MISMATCH,
                      {{"operator", "Column aliases of " + (alias.empty() ? std::string("the relation") : alias)},
                       {"firstNumColumns", std::to_string(visible.size())},
                       {"invalidOrdinalNum", "second"},
                       {"invalidNumColumns", std::to_string(column_aliases.size())}}),
            position);
  }
  for (size_t i = 0; i < visible.size(); ++i) {
    LogicalColumn& column = copy->columns[visible[i]];
    if (!column_aliases.empty()) column.name = column_aliases[i];
    if (!alias.empty()) column.qualifier = {alias};
  }
  if (!alias.empty()) {
    for (LogicalColumn& column : copy->columns) {
      if (column.hidden) column.qualifier = {alias};
    }
  }
  return copy;
}

// A permanent view reads the columns its query had at creation, by name, from what the query
// gives now (a `SELECT *` view keeps its columns when its table gains some, as Spark's views
// do). A plan without one of them is left as it is, for the column count check after.
LogicalPtr SelectViewColumns(const LogicalPtr& plan, const StoredView& view) {
  std::set<std::string> distinct;
  for (const std::string& name : view.query_columns) distinct.insert(AsciiLower(name));
  // Names that repeat (a column list renaming them apart) can only be taken by position.
  if (distinct.size() != view.query_columns.size()) return plan;
  std::vector<int> indexes;
  for (const std::string& name : view.query_columns) {
    int found = -1;
    for (size_t i = 0; i < plan->columns.size() && found < 0; ++i) {
      if (!plan->columns[i].hidden && EqualsIgnoreCase(plan->columns[i].name, name)) {
        found = static_cast<int>(i);
      }
    }
    if (found < 0) return plan;
    indexes.push_back(found);
  }
  bool unchanged = indexes.size() == plan->columns.size();
  for (size_t i = 0; unchanged && i < indexes.size(); ++i) {
    unchanged = indexes[i] == static_cast<int>(i);
  }
  return unchanged || indexes.empty() ? plan : MakeLogicalSelectColumns(plan, indexes);
}

// A correlated subquery's link to the query around it.
struct Correlation {
  std::vector<LogicalColumn> outer;
  /// Conjuncts over outer columns followed by the subquery's output columns.
  std::vector<expr::ExpressionPtr> conjuncts;
  /// The select items the subquery outputs before the columns added for correlation.
  size_t num_outputs = 0;
  bool aggregated = false;
  // Internal to the select binder: WHERE conjuncts over outer ++ FROM columns.
  std::vector<expr::ExpressionPtr> pending;
  /// The enclosing query's plan (its columns are `outer`): a correlation that is not an
  /// equality is evaluated over the distinct values of the outer columns it reads.
  LogicalPtr outer_plan;
};

// The distinct values of the outer columns (below `outer_width`) that `conjuncts` read: the
// domain over which a subquery correlated by more than equalities is evaluated, once per
// distinct outer value instead of once per outer row. `columns` receives those outer column
// indexes in ascending order; the domain's columns are in that order.
LogicalPtr CorrelationDomain(const LogicalPtr& outer_plan, const std::vector<expr::ExpressionPtr>& conjuncts,
                             int outer_width, std::vector<int>& columns) {
  columns.clear();
  for (const expr::ExpressionPtr& conjunct : conjuncts) {
    for (int column : expr::ReferencedColumns(*conjunct)) {
      if (column < outer_width) columns.push_back(column);
    }
  }
  std::sort(columns.begin(), columns.end());
  columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<LogicalColumn> domain_columns;
  for (int column : columns) {
    const LogicalColumn& outer = outer_plan->columns[column];
    expressions.push_back(expr::Column(column, outer.type, outer.nullable));
    LogicalColumn copy = MakeLogicalColumn(outer.name, outer.type, outer.nullable);
    copy.hidden = true;
    domain_columns.push_back(copy);
  }
  return MakeLogicalDistinct(MakeLogicalProject(outer_plan, std::move(expressions), std::move(domain_columns)));
}

// `conjunct`, over outer columns followed by `inner_width` inner columns, rewritten over the
// inner columns followed by the domain's (CorrelationDomain's `columns`).
expr::ExpressionPtr OntoDomain(const expr::ExpressionPtr& conjunct, int outer_width, int inner_width,
                               const std::vector<int>& domain_columns) {
  std::vector<int> mapping(static_cast<size_t>(outer_width + inner_width), -1);
  for (size_t k = 0; k < domain_columns.size(); ++k) mapping[domain_columns[k]] = inner_width + static_cast<int>(k);
  for (int f = 0; f < inner_width; ++f) mapping[outer_width + f] = f;
  return expr::RemapColumns(conjunct, mapping);
}

struct WindowEntry {
  exec::WindowCall call;
  std::vector<expr::ExpressionPtr> partition;
  std::vector<expr::ExpressionPtr> order;
  std::vector<std::pair<bool, bool>> order_directions;  // ascending, nulls_first
};

struct GeneratorEntry {
  exec::GenerateSpec spec;
  std::vector<LogicalColumn> columns;
};

// grouping(col) or grouping_id(cols...): its arguments bound over the input columns.
struct GroupingCall {
  const Expression* call = nullptr;
  bool is_id = false;
  std::vector<expr::ExpressionPtr> arguments;
};

// What the expressions of one SELECT registered while binding.
struct SelectState {
  const Query* query = nullptr;
  std::vector<exec::AggregateCall> aggregates;
  std::vector<std::string> aggregate_keys;
  std::vector<std::string> aggregate_names;
  std::vector<WindowEntry> windows;
  std::vector<GeneratorEntry> generators;
  std::vector<GroupingCall> groupings;
  std::vector<std::pair<std::string, expr::ExpressionPtr>> aliases;
  std::map<int, std::pair<std::string, SourcePosition>> column_uses;
  // Correlated subqueries in the SELECT list, HAVING or ORDER BY of a grouped query. Each is joined to the
  // input rows and taken per group as any_value, which is exact when every outer column its
  // correlation reads is a grouping column; that is checked once the grouping keys are bound.
  struct GroupedSubquery {
    std::set<int> outer_columns;
    const Expression* node = nullptr;
  };
  std::vector<GroupedSubquery> grouped_subqueries;
};

enum class Clause { kWhere, kSelect, kGroupBy, kHaving, kOrderBy, kQualify, kAggregateArgument };

}  // namespace

struct QueryBinder::Impl {
  SessionState& session;
  exec::ExecContext& context;

  struct CteEntry {
    const CommonTableExpression* cte;
  };
  std::vector<CteEntry> ctes;
  // What subqueries run while binding computed, for the rest of the statement.
  SubplanResults subplan_results;
  // The snapshots loaded for this statement, by location and time travel: a table read twice
  // reads one snapshot, so both reads see the same version and can share computed results.
  std::map<std::string, std::shared_ptr<const log::Snapshot>> snapshots;
  // Levels of query and join nesting being bound (see kMaxBindDepth).
  int depth = 0;

  // Counts `levels` levels of nesting for as long as it lives.
  class DepthGuard {
   public:
    DepthGuard(Impl& impl, const SourcePosition& position, int levels = 1) : impl_(impl), levels_(levels) {
      impl_.depth += levels_;
      if (impl_.depth > kMaxBindDepth) {
        impl_.depth -= levels_;
        ThrowAt(MakeError(ErrorClass::STATEMENT_TOO_COMPLEX,
                          {{"what", "the nesting of subqueries, views, CTE references and joins"},
                           {"limit", std::to_string(kMaxBindDepth)}}),
                position);
      }
    }
    ~DepthGuard() { impl_.depth -= levels_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Impl& impl_;
    int levels_;
  };

  Impl(SessionState& session_state, exec::ExecContext& exec_context)
      : session(session_state), context(exec_context) {}

  LogicalPtr BindQuery(const Query& query, Correlation* correlation);
  LogicalPtr BindSelect(const Query& query, Correlation* correlation);
  LogicalPtr BindSetOperation(const Query& query);
  LogicalPtr BindValuesRows(const std::vector<std::vector<ExpressionPtr>>& rows,
                            const SourcePosition& position);
  LogicalPtr BindFrom(const std::vector<TableReferencePtr>& from);
  LogicalPtr BindFromItem(const TableReference& reference);
  LogicalPtr BindTable(const TableReference& reference);
  LogicalPtr ApplyTableSample(LogicalPtr plan, const TableSample& sample);
  LogicalPtr BindNamedTable(const QualifiedName& name, const std::optional<TimeTravel>& time_travel,
                            const SourcePosition& position, const std::string& alias);
  LogicalPtr BindJoin(const TableReference& reference);
  LogicalPtr BindUsingJoin(LogicalPtr left, LogicalPtr right, exec::JoinType type,
                           const std::vector<std::string>& names, const SourcePosition& position);
  LogicalPtr BindTableFunction(const TableReference& reference);
  LogicalPtr BindPivot(const TableReference& reference);
  LogicalPtr BindUnpivot(const TableReference& reference);
  LogicalPtr BindTableChanges(const TableReference& reference, const std::string& name);
  LogicalPtr BindGenerate(LogicalPtr child, const Expression& call, bool outer, const std::string& alias,
                          const std::vector<std::string>& column_aliases);
  LogicalPtr BindWhere(LogicalPtr plan, const Expression& where, Correlation* correlation, SelectState& state);
  LogicalPtr ApplySubqueryPredicate(LogicalPtr plan, const Expression& conjunct, bool negated,
                                    SelectState& state);
  expr::ExpressionPtr BindSubqueryExpression(const Expression& node, LogicalPtr& plan, BindingScope& scope);
  std::optional<expr::Scalar> EmptyGroupValue(const LogicalNode& subquery);
  LogicalPtr BindGroupingSets(const LogicalPtr& input, const std::vector<expr::ExpressionPtr>& keys,
                              size_t num_user_keys, const std::vector<std::vector<size_t>>& sets,
                              std::vector<LogicalColumn>& key_columns);
  LogicalPtr ApplyOrderAndLimit(LogicalPtr plan, const Query& query, bool order_done);
  std::optional<int64_t> EvaluateLimit(const Expression& expression, const std::string& clause);
  std::vector<Batch> Run(const LogicalPtr& plan) { return ExecuteLogicalPlan(plan, context, &subplan_results); }
  expr::EvalContext Eval() const { return context.eval; }
};

namespace {

// `f(*)` and `f(t.*)` in a select item: a copy of `e` whose star arguments are the columns they
// stand for (qualified, so the same name in two relations stays apart), as Spark expands a star
// among a function's arguments (`struct(*)`, `to_json(struct(*))`, `concat(t.*)`); count(*) keeps
// its own meaning. Returns nullptr when `e` has no star argument.
ExpressionPtr ExpandStarArguments(const Expression& e, const std::vector<LogicalColumn>& columns, size_t width) {
  bool changed = false;
  std::vector<ExpressionPtr> children;
  for (const ExpressionPtr& child : e.children) {
    const bool star_argument = e.kind == ExpressionKind::kFunction && child->kind == ExpressionKind::kStar &&
                               child->except_columns.empty() &&
                               !(e.name.size() == 1 && NamesEqual(e.name[0], "count"));
    if (!star_argument) {
      ExpressionPtr expanded = ExpandStarArguments(*child, columns, width);
      changed = changed || expanded != nullptr;
      children.push_back(expanded != nullptr ? expanded : child);
      continue;
    }
    changed = true;
    const QualifiedName& qualifier = child->name;
    const size_t before = children.size();
    for (size_t i = 0; i < columns.size() && i < width; ++i) {
      const LogicalColumn& column = columns[i];
      if ((column.hidden && qualifier.empty()) || column.file_metadata) continue;
      if (!qualifier.empty()) {
        if (qualifier.size() > column.qualifier.size()) continue;
        bool same = true;
        for (size_t p = 0; p < qualifier.size(); ++p) {
          same = same && NamesEqual(column.qualifier[column.qualifier.size() - qualifier.size() + p], qualifier[p]);
        }
        if (!same) continue;
      }
      auto reference = std::make_shared<Expression>();
      reference->kind = ExpressionKind::kColumn;
      reference->position = child->position;
      // The relation's own name and the column: unambiguous, and named `k` as Spark names it.
      if (!column.qualifier.empty()) reference->name.push_back(column.qualifier.back());
      reference->name.push_back(column.name);
      children.push_back(std::move(reference));
    }
    if (children.size() == before && !qualifier.empty()) {
      std::string input;
      for (size_t i = 0; i < columns.size() && i < width; ++i) {
        if (columns[i].hidden) continue;
        input += (input.empty() ? "" : ", ") + std::string("`") + columns[i].name + "`";
      }
      ThrowAt(MakeError(ErrorClass::CANNOT_RESOLVE_STAR_EXPAND,
                        {{"targetString", QuoteName(qualifier)}, {"columns", input}}),
              child->position);
    }
  }
  if (!changed) return nullptr;
  auto copy = std::make_shared<Expression>(e);
  copy->children = std::move(children);
  return copy;
}

// The scope of one SELECT's expressions: columns of the FROM relation (optionally after the
// columns of an enclosing query, for correlated conjuncts), aggregates, windows and generators
// as placeholders, select aliases in HAVING / ORDER BY / QUALIFY, and subqueries.
class SelectScope : public BindingScope {
 public:
  SelectScope(QueryBinder::Impl& binder, SelectState& state, LogicalPtr& plan, Clause clause,
              const Expression* clause_expression = nullptr, Correlation* correlation = nullptr)
      : binder_(binder),
        state_(state),
        plan_(plan),
        clause_(clause),
        clause_expression_(clause_expression),
        correlation_(correlation) {}

  expr::ExpressionPtr ResolveColumn(const QualifiedName& name, const SourcePosition& position) override {
    const std::vector<LogicalColumn>& columns = plan_->columns;
    if (correlation_ != nullptr) {
      int offset = static_cast<int>(correlation_->outer.size());
      if (auto found = FindColumn(columns, name, position)) {
        return ColumnReference(columns, *found, name, position, offset);
      }
      if (auto found = FindColumn(correlation_->outer, name, position)) {
        return ColumnReference(correlation_->outer, *found, name, position);
      }
      ThrowUnresolvedColumn(name, columns, position);
    }
    if (auto found = FindColumn(columns, name, position)) {
      state_.column_uses.emplace(found->column, std::make_pair(columns[found->column].name, position));
      return ColumnReference(columns, *found, name, position);
    }
    if (name.size() == 1 && (clause_ == Clause::kHaving || clause_ == Clause::kOrderBy || clause_ == Clause::kQualify)) {
      for (const auto& [alias, bound] : state_.aliases) {
        if (NamesEqual(alias, name[0])) return bound;
      }
    }
    ThrowUnresolvedColumn(name, columns, position);
  }

  // `f(p) WITHIN GROUP (ORDER BY x [DESC])`: x becomes the first argument of percentile_cont,
  // percentile_disc or mode, and the result is AggregateCall::descending. These functions need
  // it (mode may do without); the others refuse it.
  static bool BindWithinGroup(const Expression& call, const std::string& name, ExpressionBinder& binder,
                              std::vector<expr::ExpressionPtr>& arguments,
                              std::vector<std::pair<bool, bool>>& listagg_order) {
    auto fail = [&](const std::string& message) {
      ThrowAt(MakeError(ErrorClass::INVALID_SQL_SYNTAX, {{"message", message}}), call.position);
    };
    if (name == "listagg" || name == "string_agg") {
      // listagg(value [, delimiter]) [WITHIN GROUP (ORDER BY k1 [DESC], ...)]: the sort keys
      // follow an explicit delimiter as further arguments.
      if (arguments.size() > 2) {
        ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS, {{"functionName", "`" + name + "`"},
                                                       {"expectedNum", "[1, 2]"},
                                                       {"actualNum", std::to_string(arguments.size())}}),
                call.position);
      }
      if (call.within_group.empty() || arguments.empty()) return false;
      if (arguments.size() == 1) arguments.push_back(expr::Literal(expr::Scalar::String("")));
      for (const OrderItem& item : call.within_group) {
        expr::ExpressionPtr key = binder.Bind(*item.expression);
        if (call.distinct && !SameExpression(key, arguments[0])) {
          fail("INVALID_WITHIN_GROUP_EXPRESSION.MISMATCH_WITH_DISTINCT_INPUT: the function `" + name +
               "` with DISTINCT can only be ordered by its value.");
        }
        bool ascending = item.direction != SortDirection::kDescending;
        bool nulls_first =
            item.null_order == NullOrder::kDefault ? ascending : item.null_order == NullOrder::kNullsFirst;
        arguments.push_back(std::move(key));
        listagg_order.emplace_back(ascending, nulls_first);
      }
      return false;
    }
    bool inverse = exec::IsInverseDistributionFunction(name);
    if (call.within_group.empty()) {
      if (inverse && name != "mode") {
        fail("INVALID_INVERSE_DISTRIBUTION_FUNCTION.WITHIN_GROUP_MISSING: WITHIN GROUP is required for inverse "
             "distribution function `" + name + "`.");
      }
      return false;
    }
    if (!inverse) {
      fail("FUNCTION_WITH_UNSUPPORTED_SYNTAX: The function `" + name + "` does not support WITHIN GROUP.");
    }
    if (call.distinct) {
      fail("INVALID_INVERSE_DISTRIBUTION_FUNCTION.DISTINCT_UNSUPPORTED: Cannot use DISTINCT with inverse "
           "distribution function `" + name + "`.");
    }
    if (call.within_group.size() != 1) {
      fail("INVALID_INVERSE_DISTRIBUTION_FUNCTION.WRONG_NUM_ORDERINGS: Requires 1 orderings in WITHIN GROUP but got " +
           std::to_string(call.within_group.size()) + ".");
    }
    if (name == "mode" && !arguments.empty()) {
      ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS, {{"functionName", "`mode`"},
                                                     {"expectedNum", "0"},
                                                     {"actualNum", std::to_string(arguments.size())}}),
              call.position);
    }
    const OrderItem& item = call.within_group[0];
    arguments.insert(arguments.begin(), binder.Bind(*item.expression));
    bool descending = item.direction == SortDirection::kDescending;
    // Spark's mode() WITHIN GROUP breaks ties toward the last value in that order: the largest
    // for ORDER BY x, the smallest for ORDER BY x DESC (what mode(x, true) means).
    return name == "mode" ? !descending : descending;
  }

  expr::ExpressionPtr BindAggregate(const Expression& call, ExpressionBinder& binder) override {
    switch (clause_) {
      case Clause::kWhere:
        ThrowAt(MakeError(ErrorClass::INVALID_WHERE_CONDITION,
                          {{"condition", "\"" + (clause_expression_ ? ExpressionSql(*clause_expression_) : ExpressionSql(call)) + "\""},
                           {"expressionList", ExpressionSql(call)}}),
                call.position);
      case Clause::kGroupBy:
        ThrowAt(MakeError(ErrorClass::GROUP_BY_AGGREGATE, {{"sqlExpr", ExpressionSql(call)}}), call.position);
      case Clause::kAggregateArgument:
        ThrowAt(MakeError(ErrorClass::NESTED_AGGREGATE_FUNCTION, {}), call.position);
      default: break;
    }
    SelectScope argument_scope(binder_, state_, plan_, Clause::kAggregateArgument);
    ExpressionBinder argument_binder(argument_scope);
    std::string name = Lower(call.name.back());
    std::vector<expr::ExpressionPtr> arguments;
    for (const ExpressionPtr& child : call.children) {
      if (child->kind == ExpressionKind::kStar) continue;  // count(*)
      arguments.push_back(argument_binder.Bind(*child));
    }
    exec::AggregateCall aggregate;
    aggregate.function = CanonicalAggregateName(name);
    aggregate.distinct = call.distinct;
    aggregate.descending = BindWithinGroup(call, name, argument_binder, arguments, aggregate.within_group_order);
    if ((aggregate.function == "first" || aggregate.function == "last" || aggregate.function == "any_value") &&
        arguments.size() == 2) {
      const expr::ExpressionPtr& flag = arguments[1];
      if (flag->kind() != expr::ExpressionKind::kLiteral || flag->type()->id() != TypeId::kBoolean) {
        ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                          {{"sqlExpr", "\"" + ExpressionSql(call) + "\""},
                           {"message", "The second argument of " + name + " must be a boolean literal."}}),
                call.position);
      }
      aggregate.ignore_nulls = !flag->literal().is_null() && flag->literal().GetBool();
      arguments.pop_back();
    }
    std::vector<DataTypePtr> types;
    for (const expr::ExpressionPtr& argument : arguments) types.push_back(argument->type());
    exec::AggregateSignature signature;
    try {
      signature = exec::ResolveAggregate(aggregate.function, types, call.distinct);
    } catch (const Error& error) {
      ThrowAt(error, call.position);
    }
    for (size_t i = 0; i < arguments.size() && i < signature.argument_types.size(); ++i) {
      arguments[i] = expr::CastIfNeeded(arguments[i], signature.argument_types[i]);
    }
    aggregate.arguments = std::move(arguments);
    try {
      expr::EvalContext eval = binder_.Eval();
      exec::PrepareAggregateArguments(aggregate, eval, ExpressionSql(call));
    } catch (const Error& error) {
      ThrowAt(error, call.position);
    }
    if (call.filter) aggregate.filter = argument_binder.BindPredicate(*call.filter, "FILTER");
    aggregate.result_type = signature.result_type;
    aggregate.nullable = signature.nullable;
    std::string key = aggregate.function + (aggregate.distinct ? " distinct" : "") +
                      (aggregate.ignore_nulls ? " ignore" : "") + (aggregate.descending ? " desc" : "") + "(";
    for (const auto& [ascending, nulls_first] : aggregate.within_group_order) {
      key += std::string(ascending ? "a" : "d") + (nulls_first ? "f" : "l");
    }
    for (const expr::ExpressionPtr& argument : aggregate.arguments) key += argument->ToString() + ",";
    key += ")";
    if (aggregate.filter) key += " filter " + aggregate.filter->ToString();
    size_t index = 0;
    while (index < state_.aggregate_keys.size() && state_.aggregate_keys[index] != key) ++index;
    if (index == state_.aggregate_keys.size()) {
      state_.aggregate_keys.push_back(key);
      state_.aggregate_names.push_back(AutoColumnName(call));
      state_.aggregates.push_back(aggregate);
    }
    return expr::Column(kAggregateBase + static_cast<int>(index), signature.result_type, signature.nullable);
  }

  expr::ExpressionPtr BindWindow(const Expression& call, ExpressionBinder& binder) override {
    if (clause_ != Clause::kSelect && clause_ != Clause::kOrderBy && clause_ != Clause::kQualify) {
      return BindingScope::BindWindow(call, binder);
    }
    WindowSpec spec = *call.window;
    if (!spec.reference_name.empty()) {
      const WindowSpec* named = nullptr;
      if (state_.query != nullptr) {
        for (const auto& [window_name, definition] : state_.query->windows) {
          if (NamesEqual(window_name, spec.reference_name)) named = &definition;
        }
      }
      if (named == nullptr) {
        ThrowAt(MakeError(ErrorClass::UNRESOLVED_COLUMN,
                          {{"objectName", "`" + spec.reference_name + "`"}, {"proposal", ""}}),
                call.position);
      }
      if (spec.partition_by.empty()) spec.partition_by = named->partition_by;
      if (spec.order_by.empty()) spec.order_by = named->order_by;
      if (!spec.frame) spec.frame = named->frame;
    }
    WindowEntry entry;
    std::string name = Lower(call.name.back());
    std::vector<expr::ExpressionPtr> arguments;
    for (const ExpressionPtr& child : call.children) {
      if (child->kind == ExpressionKind::kStar) continue;
      arguments.push_back(binder.Bind(*child));
    }
    entry.call.descending = BindWithinGroup(call, name, binder, arguments, entry.call.within_group_order);
    entry.call.ignore_nulls = call.ignore_nulls;
    if ((((name == "first_value" || name == "last_value" || name == "first" || name == "last" ||
           name == "any_value") &&
          arguments.size() == 2) ||
         (name == "nth_value" && arguments.size() == 3)) &&
        arguments.back()->kind() == expr::ExpressionKind::kLiteral &&
        arguments.back()->type()->id() == TypeId::kBoolean) {
      // first_value(x, true), nth_value(x, n, true): the last argument is IGNORE NULLS.
      entry.call.ignore_nulls =
          entry.call.ignore_nulls || (!arguments.back()->literal().is_null() && arguments.back()->literal().GetBool());
      arguments.pop_back();
    }
    entry.call.distinct = call.distinct;
    if (call.filter) entry.call.filter = binder.BindPredicate(*call.filter, "FILTER");
    std::vector<DataTypePtr> types;
    for (const expr::ExpressionPtr& argument : arguments) types.push_back(argument->type());
    DataTypePtr result_type;
    try {
      if (exec::IsWindowFunction(name)) {
        result_type = exec::ResolveWindowFunction(name, types);
        entry.call.function = name;
        if (name == "lag" || name == "lead") {
          if (arguments.size() < 2) arguments.push_back(expr::Literal(expr::Scalar::Integer(1)));
          if (arguments.size() < 3) {
            arguments.push_back(expr::Literal(expr::Scalar::Null(arguments[0]->type())));
          } else {
            arguments[2] = expr::CastIfNeeded(arguments[2], arguments[0]->type());
          }
        }
      } else {
        std::string canonical = CanonicalAggregateName(name);
        exec::AggregateSignature signature = exec::ResolveAggregate(canonical, types, call.distinct);
        for (size_t i = 0; i < arguments.size() && i < signature.argument_types.size(); ++i) {
          arguments[i] = expr::CastIfNeeded(arguments[i], signature.argument_types[i]);
        }
        result_type = signature.result_type;
        entry.call.function = canonical;
        exec::AggregateCall aggregate;
        aggregate.function = canonical;
        aggregate.arguments = std::move(arguments);
        expr::EvalContext eval = binder_.Eval();
        Expression function = call;  // errors name the function without its OVER clause
        function.window = nullptr;
        exec::PrepareAggregateArguments(aggregate, eval, ExpressionSql(function));
        arguments = std::move(aggregate.arguments);
      }
    } catch (const Error& error) {
      if (error.context().empty()) ThrowAt(error, call.position);
      throw;
    }
    entry.call.arguments = std::move(arguments);
    entry.call.result_type = result_type;
    for (const ExpressionPtr& partition : spec.partition_by) entry.partition.push_back(binder.Bind(*partition));
    for (const OrderItem& item : spec.order_by) {
      entry.order.push_back(binder.Bind(*item.expression));
      bool ascending = item.direction != SortDirection::kDescending;
      bool nulls_first = item.null_order == NullOrder::kDefault ? ascending : item.null_order == NullOrder::kNullsFirst;
      entry.order_directions.emplace_back(ascending, nulls_first);
    }
    if (spec.frame) {
      exec::WindowFrame frame;
      frame.unit = spec.frame->unit == FrameUnit::kRows ? exec::WindowFrame::Unit::kRows : exec::WindowFrame::Unit::kRange;
      auto convert = [&](const FrameBound& bound) {
        exec::WindowFrame::Bound result;
        result.kind = static_cast<exec::WindowFrame::BoundKind>(static_cast<int>(bound.kind));
        if (bound.offset) result.offset = EvaluateConstant(*bound.offset, "window frame", binder_.Eval());
        return result;
      };
      frame.start = convert(spec.frame->start);
      frame.end = convert(spec.frame->end);
      entry.call.frame = frame;
    }
    state_.windows.push_back(std::move(entry));
    return expr::Column(kWindowBase + static_cast<int>(state_.windows.size() - 1), result_type, true);
  }

  expr::ExpressionPtr BindGrouping(const Expression& call, ExpressionBinder& binder) override {
    if (clause_ != Clause::kSelect && clause_ != Clause::kHaving && clause_ != Clause::kOrderBy &&
        clause_ != Clause::kQualify) {
      return BindingScope::BindGrouping(call, binder);
    }
    GroupingCall grouping;
    grouping.call = &call;
    grouping.is_id = Lower(call.name.back()) == "grouping_id";
    if (!grouping.is_id && call.children.size() != 1) {
      ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS,
                        {{"functionName", "`grouping`"}, {"expectedNum", "1"},
                         {"actualNum", std::to_string(call.children.size())}}),
              call.position);
    }
    for (const ExpressionPtr& child : call.children) grouping.arguments.push_back(binder.Bind(*child));
    state_.groupings.push_back(std::move(grouping));
    int index = kGroupingBase + static_cast<int>(state_.groupings.size() - 1);
    return expr::Column(index, state_.groupings.back().is_id ? LongType() : ByteType(), false);
  }

  expr::ExpressionPtr BindGenerator(const Expression& call, ExpressionBinder& binder) override {
    if (clause_ != Clause::kSelect) return BindingScope::BindGenerator(call, binder);
    if (!state_.generators.empty()) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_GENERATOR,
                        {{"message", "only one generator allowed per SELECT clause but found 2: " + ExpressionSql(call)}}),
              call.position);
    }
    GeneratorEntry entry = MakeGenerator(call, binder, {});
    state_.generators.push_back(std::move(entry));
    size_t index = state_.generators.size() - 1;
    const LogicalColumn& first = state_.generators.back().columns[0];
    return expr::Column(kGeneratorBase + static_cast<int>(index) * kGeneratorStride, first.type, first.nullable);
  }

  expr::ExpressionPtr BindSubquery(const Expression& node, ExpressionBinder& binder) override {
    if (correlation_ == nullptr) {
      const Query* query = state_.query;
      const bool grouped = (clause_ == Clause::kSelect || clause_ == Clause::kHaving || clause_ == Clause::kOrderBy) &&
                           query != nullptr &&
                           (!query->group_by.empty() || !query->grouping_elements.empty());
      if (!grouped) return binder_.BindSubqueryExpression(node, plan_, *this);
      const LogicalPtr before = plan_;
      expr::ExpressionPtr value = binder_.BindSubqueryExpression(node, plan_, *this);
      if (plan_ == before || plan_->kind != LogicalKind::kJoin || plan_->predicate == nullptr) return value;
      // Decorrelated by a join onto the input rows: the outer columns are the join condition's
      // references to the input side.
      SelectState::GroupedSubquery grouped_subquery;
      grouped_subquery.node = &node;
      for (int column : expr::ReferencedColumns(*plan_->predicate)) {
        if (column < static_cast<int>(before->columns.size())) grouped_subquery.outer_columns.insert(column);
      }
      state_.grouped_subqueries.push_back(std::move(grouped_subquery));
      exec::AggregateCall aggregate;
      aggregate.function = "any_value";
      exec::AggregateSignature signature = exec::ResolveAggregate("any_value", {value->type()}, false);
      aggregate.arguments = {value};
      aggregate.result_type = signature.result_type;
      aggregate.nullable = true;
      state_.aggregate_keys.push_back("subquery " + std::to_string(state_.grouped_subqueries.size()) + " " +
                                      value->ToString());
      state_.aggregate_names.push_back(AutoColumnName(node));
      state_.aggregates.push_back(aggregate);
      return expr::Column(kAggregateBase + static_cast<int>(state_.aggregates.size() - 1), signature.result_type,
                          true);
    }
    // Inside a correlated subquery this scope numbers the enclosing query's columns first and
    // this query's FROM columns after them, but a nested subquery is joined to the FROM relation
    // alone: bind it in the FROM's own numbering, then move its result past the outer columns.
    SelectScope from_only(binder_, state_, plan_, clause_, clause_expression_);
    expr::ExpressionPtr bound = binder_.BindSubqueryExpression(node, plan_, from_only);
    return expr::ShiftColumns(bound, static_cast<int>(correlation_->outer.size()));
  }

  // Builds the generate spec of explode/posexplode/inline[_outer](input).
  static GeneratorEntry MakeGenerator(const Expression& call, ExpressionBinder& binder,
                                      const std::vector<std::string>& column_aliases) {
    std::string name = Lower(call.name.back());
    GeneratorEntry entry;
    entry.spec.outer = name.size() > 6 && name.substr(name.size() - 6) == "_outer";
    std::string base = entry.spec.outer ? name.substr(0, name.size() - 6) : name;
    if (base == "json_tuple") {
      // One row of the named keys' values: inline(array(json_tuple(...))), columns c0, c1, ...
      std::vector<expr::ExpressionPtr> arguments;
      for (const ExpressionPtr& child : call.children) arguments.push_back(binder.Bind(*child));
      const expr::FunctionRegistry& functions = expr::FunctionRegistry::Default();
      entry.spec.input = functions.Bind("array", {functions.Bind("json_tuple", std::move(arguments))});
      entry.spec.kind = exec::GenerateSpec::Kind::kInline;
      std::vector<Field> fields = entry.spec.input->type()->element_type()->fields();
      return NameGeneratorColumns(call, std::move(entry), fields, column_aliases);
    }
    if (base == "stack" && !entry.spec.outer) return MakeStack(call, binder, std::move(entry), column_aliases);
    if (call.children.size() != 1) {
      ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS,
                        {{"functionName", "`" + name + "`"}, {"expectedNum", "1"},
                         {"actualNum", std::to_string(call.children.size())}}),
              call.position);
    }
    entry.spec.input = binder.Bind(*call.children[0]);
    const DataTypePtr& type = entry.spec.input->type();
    std::vector<std::pair<std::string, DataTypePtr>> outputs;
    std::vector<bool> nullable;
    auto mismatch = [&](const std::string& expected) {
      ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                        {{"sqlExpr", "\"" + ExpressionSql(call) + "\""},
                         {"message", "Parameter 1 requires the " + expected + " type, however \"" +
                                         ExpressionSql(*call.children[0]) + "\" has the type \"" +
                                         type->ToString() + "\"."}}),
              call.position);
    };
    if (base == "explode" || base == "posexplode") {
      entry.spec.kind = base == "explode" ? exec::GenerateSpec::Kind::kExplode : exec::GenerateSpec::Kind::kPosExplode;
      if (base == "posexplode") {
        outputs.emplace_back("pos", IntegerType());
        nullable.push_back(entry.spec.outer);
      }
      if (type->id() == TypeId::kList) {
        outputs.emplace_back("col", type->element_type());
        nullable.push_back(type->contains_null() || entry.spec.outer);
      } else if (type->id() == TypeId::kMap) {
        outputs.emplace_back("key", type->key_type());
        nullable.push_back(entry.spec.outer);
        outputs.emplace_back("value", type->value_type());
        nullable.push_back(type->value_contains_null() || entry.spec.outer);
      } else {
        mismatch("(\"ARRAY\" or \"MAP\")");
      }
    } else if (base == "inline") {
      entry.spec.kind = exec::GenerateSpec::Kind::kInline;
      if (type->id() != TypeId::kList || type->element_type()->id() != TypeId::kStruct) {
        mismatch("\"ARRAY<STRUCT>\"");
      }
      for (const Field& field : type->element_type()->fields()) {
        outputs.emplace_back(field.name, field.type);
        nullable.push_back(true);
      }
    } else {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_GENERATOR, {{"message", "unknown generator " + name}}), call.position);
    }
    return NameGeneratorColumns(call, std::move(entry), outputs, nullable, column_aliases);
  }

  // stack(n, e1, ..., ek): n rows of ceil(k / n) columns col0, col1, ..., filled row by row with
  // the values in order and NULL past the last, as inline(array(named_struct(...), ...)).
  static GeneratorEntry MakeStack(const Expression& call, ExpressionBinder& binder, GeneratorEntry entry,
                                  const std::vector<std::string>& column_aliases) {
    if (call.children.size() < 2) {
      ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS,
                        {{"functionName", "`stack`"}, {"expectedNum", "> 1"},
                         {"actualNum", std::to_string(call.children.size())}}),
              call.position);
    }
    expr::ExpressionPtr count = binder.Bind(*call.children[0]);
    bool constant = count->kind() == expr::ExpressionKind::kLiteral && expr::IsIntegral(*count->type()) &&
                    !count->literal().is_null() && count->literal().GetInt() > 0;
    if (!constant) {
      ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                        {{"sqlExpr", "\"" + ExpressionSql(call) + "\""},
                         {"message", "The number of rows, the first argument, must be a positive constant integer"}}),
              call.position);
    }
    const size_t values = call.children.size() - 1;
    const size_t rows = static_cast<size_t>(count->literal().GetInt());
    const size_t columns = (values + rows - 1) / rows;
    const expr::FunctionRegistry& functions = expr::FunctionRegistry::Default();
    std::vector<expr::ExpressionPtr> structs;
    for (size_t r = 0; r < rows; ++r) {
      std::vector<expr::ExpressionPtr> fields;
      for (size_t c = 0; c < columns; ++c) {
        size_t index = r * columns + c;
        fields.push_back(expr::Literal(expr::Scalar::String("col" + std::to_string(c))));
        fields.push_back(index < values ? binder.Bind(*call.children[1 + index])
                                        : expr::Literal(expr::Scalar::Null(NullType())));
      }
      structs.push_back(functions.Bind("named_struct", std::move(fields)));
    }
    entry.spec.input = functions.Bind("array", std::move(structs));
    entry.spec.kind = exec::GenerateSpec::Kind::kInline;
    std::vector<Field> fields = entry.spec.input->type()->element_type()->fields();
    return NameGeneratorColumns(call, std::move(entry), fields, column_aliases);
  }

  static GeneratorEntry NameGeneratorColumns(const Expression& call, GeneratorEntry entry,
                                             const std::vector<Field>& fields,
                                             const std::vector<std::string>& column_aliases) {
    std::vector<std::pair<std::string, DataTypePtr>> outputs;
    for (const Field& field : fields) outputs.emplace_back(field.name, field.type);
    return NameGeneratorColumns(call, std::move(entry), outputs, std::vector<bool>(outputs.size(), true),
                                column_aliases);
  }

  // Names the generator's output columns: `outputs` as generated, or the AS aliases.
  static GeneratorEntry NameGeneratorColumns(const Expression& call, GeneratorEntry entry,
                                             const std::vector<std::pair<std::string, DataTypePtr>>& outputs,
                                             const std::vector<bool>& nullable,
                                             const std::vector<std::string>& column_aliases) {
    if (!column_aliases.empty() && column_aliases.size() != outputs.size()) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_GENERATOR,
                        {{"message", "The number of aliases supplied in the AS clause does not match the number of "
                                     "columns output by the UDTF: expected " +
                                         std::to_string(outputs.size()) + " aliases but got " +
                                         std::to_string(column_aliases.size())}}),
              call.position);
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string column_name = column_aliases.empty() ? outputs[i].first : column_aliases[i];
      entry.spec.names.push_back(column_name);
      entry.columns.push_back(MakeLogicalColumn(column_name, outputs[i].second, nullable[i]));
    }
    return entry;
  }

 private:
  QueryBinder::Impl& binder_;
  SelectState& state_;
  LogicalPtr& plan_;
  Clause clause_;
  const Expression* clause_expression_;
  Correlation* correlation_;
};

// The ON condition of an outer, semi or anti join, whose subqueries cannot move above the join:
// as Spark's RewritePredicateSubquery does, each subquery correlated to one side is evaluated on
// that side (its value or [NOT] EXISTS / IN marker joined onto the side's rows), so the
// condition reads it as a column of that side and decides the matching alone; unmatched rows of
// a preserved side keep appearing, null-extended. An uncorrelated subquery is a constant.
// Columns bind over left ++ right as the join's own condition does; the sides' added columns are
// placeholders (kLeftMarkBase, kRightMarkBase) until the sides are final (see Finish).
class JoinConditionScope : public BindingScope {
 public:
  static constexpr int kLeftMarkBase = 5 << 24;
  static constexpr int kRightMarkBase = 6 << 24;

  JoinConditionScope(QueryBinder::Impl& binder, LogicalPtr& left, LogicalPtr& right)
      : binder_(binder),
        left_(left),
        right_(right),
        left_width_(static_cast<int>(left->columns.size())),
        right_width_(static_cast<int>(right->columns.size())),
        both_(left->columns) {
    both_.insert(both_.end(), right->columns.begin(), right->columns.end());
  }

  expr::ExpressionPtr ResolveColumn(const QualifiedName& name, const SourcePosition& position) override {
    if (auto found = FindColumn(both_, name, position)) return ColumnReference(both_, *found, name, position);
    ThrowUnresolvedColumn(name, both_, position);
  }

  expr::ExpressionPtr BindSubquery(const Expression& node, ExpressionBinder& binder) override {
    // Which side the subquery reads: its correlation (bound against both sides, so names resolve
    // and fail as in the condition) and, for IN, the value it tests.
    const int width = left_width_ + right_width_;
    LogicalPtr product = MakeLogicalJoin(left_, right_, exec::JoinType::kInner, nullptr);
    Correlation correlation;
    correlation.outer = both_;
    correlation.outer_plan = product;
    binder_.BindQuery(*node.subquery, &correlation);
    if (correlation.conjuncts.empty()) {
      // Uncorrelated: a constant, or IN over a literal list, whatever its value reads.
      return binder_.BindSubqueryExpression(node, product, *this);
    }
    bool reads_left = false, reads_right = false;
    auto note = [&](const expr::Expression& e) {
      for (int column : expr::ReferencedColumns(e)) {
        if (column < left_width_) {
          reads_left = true;
        } else if (column < width) {
          reads_right = true;
        }
      }
    };
    for (const expr::ExpressionPtr& conjunct : correlation.conjuncts) note(*conjunct);
    if (node.kind == ExpressionKind::kIn) note(*binder.Bind(*node.children[0]));
    if (reads_left && reads_right) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                        {{"message", "Correlated subqueries in the join predicate cannot reference both join "
                                     "inputs: " + ExpressionSql(node)}}),
              node.position);
    }
    LogicalPtr& side = reads_left ? left_ : right_;
    const int side_width = reads_left ? left_width_ : right_width_;
    const int offset = reads_left ? 0 : left_width_;
    const int mark_base = reads_left ? kLeftMarkBase : kRightMarkBase;
    SelectState state;
    SelectScope side_scope(binder_, state, side, Clause::kWhere, &node);
    expr::ExpressionPtr bound = binder_.BindSubqueryExpression(node, side, side_scope);
    return RewriteTopDown(bound, [&](const expr::ExpressionPtr& e) -> expr::ExpressionPtr {
      if (e->kind() != expr::ExpressionKind::kColumn) return nullptr;
      int index = e->column_index();
      int moved = index < side_width ? offset + index : mark_base + (index - side_width);
      return expr::Column(moved, e->type(), e->nullable());
    });
  }

  // `condition`, bound in this scope, over the columns of the final sides: left ++ right.
  expr::ExpressionPtr Finish(const expr::ExpressionPtr& condition) const {
    const int left_final = static_cast<int>(left_->columns.size());
    return RewriteTopDown(condition, [&](const expr::ExpressionPtr& e) -> expr::ExpressionPtr {
      if (e->kind() != expr::ExpressionKind::kColumn) return nullptr;
      int index = e->column_index();
      int moved = index;
      if (index >= kRightMarkBase) {
        moved = left_final + right_width_ + (index - kRightMarkBase);
      } else if (index >= kLeftMarkBase) {
        moved = left_width_ + (index - kLeftMarkBase);
      } else if (index >= left_width_) {
        moved = left_final + (index - left_width_);
      }
      return expr::Column(moved, e->type(), e->nullable());
    });
  }

 private:
  QueryBinder::Impl& binder_;
  LogicalPtr& left_;
  LogicalPtr& right_;
  int left_width_;
  int right_width_;
  std::vector<LogicalColumn> both_;
};

void SplitAstConjunction(const ExpressionPtr& expression, std::vector<ExpressionPtr>& out) {
  if (expression->kind == ExpressionKind::kBinary && Lower(expression->op) == "and") {
    SplitAstConjunction(expression->children[0], out);
    SplitAstConjunction(expression->children[1], out);
  } else {
    out.push_back(expression);
  }
}

// Whether `e` holds a subquery anywhere (scalar, EXISTS or IN).
bool ContainsSubquery(const Expression& e) {
  if (e.subquery != nullptr) return true;
  for (const ExpressionPtr& child : e.children) {
    if (child != nullptr && ContainsSubquery(*child)) return true;
  }
  for (const auto& [when, then] : e.when_clauses) {
    if ((when != nullptr && ContainsSubquery(*when)) || (then != nullptr && ContainsSubquery(*then))) return true;
  }
  return (e.case_operand != nullptr && ContainsSubquery(*e.case_operand)) ||
         (e.else_result != nullptr && ContainsSubquery(*e.else_result)) ||
         (e.filter != nullptr && ContainsSubquery(*e.filter));
}

// Whether a WHERE conjunct is [NOT] EXISTS / [NOT] IN (subquery), which become joins.
const Expression* SubqueryPredicate(const Expression& conjunct, bool& negated) {
  negated = false;
  const Expression* node = &conjunct;
  if (node->kind == ExpressionKind::kUnary && Lower(node->op) == "not") {
    negated = true;
    node = node->children[0].get();
  }
  if (node->kind == ExpressionKind::kExists) return node;
  if (node->kind == ExpressionKind::kIn && node->subquery) {
    if (node->negated) negated = !negated;
    return node;
  }
  return nullptr;
}

}  // namespace

// ---- Queries ----

LogicalPtr QueryBinder::Impl::BindQuery(const Query& query, Correlation* correlation) {
  DepthGuard guard(*this, query.position);
  size_t ctes_before = ctes.size();
  for (const CommonTableExpression& cte : query.with) ctes.push_back(CteEntry{&cte});
  struct Restore {
    Impl& impl;
    size_t size;
    ~Restore() { impl.ctes.resize(size); }
  } restore{*this, ctes_before};

  LogicalPtr plan;
  bool order_done = false;
  switch (query.kind) {
    case QueryKind::kSelect:
      plan = BindSelect(query, correlation);
      order_done = true;
      break;
    case QueryKind::kValues:
      plan = BindValuesRows(query.values, query.position);
      break;
    case QueryKind::kSetOperation:
      plan = BindSetOperation(query);
      break;
    case QueryKind::kTable:
      plan = BindNamedTable(query.table_name, std::nullopt, query.position, "");
      break;
  }
  if (correlation != nullptr && query.kind != QueryKind::kSelect) correlation->num_outputs = plan->columns.size();
  if (correlation != nullptr && !correlation->conjuncts.empty() && (query.limit || query.offset)) {
    ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                      {{"message", "LIMIT and OFFSET are not supported in correlated subqueries"}}),
            query.position);
  }
  return ApplyOrderAndLimit(plan, query, order_done);
}

std::optional<int64_t> QueryBinder::Impl::EvaluateLimit(const Expression& expression, const std::string& clause) {
  auto invalid = [&](const std::string& message) {
    ThrowAt(MakeError(ErrorClass::INVALID_LIMIT_LIKE_EXPRESSION,
                      {{"expr", "\"" + ExpressionSql(expression) + "\""}, {"message", message}}),
            expression.position);
  };
  std::optional<expr::Scalar> evaluated;
  try {
    evaluated = EvaluateConstant(expression, clause, Eval());
  } catch (const Error& error) {
    if (error.error_class() != "UNRESOLVED_COLUMN") throw;
    invalid("The " + clause + " expression must evaluate to a constant value");
  }
  const expr::Scalar& value = *evaluated;
  if (!expr::IsIntegral(*value.type())) invalid("The " + clause + " expression must be integer type");
  if (value.is_null()) invalid("The evaluated " + clause + " expression must not be null");
  int64_t number = value.GetInt();
  if (number < 0) {
    invalid("The " + clause + " expression must be equal to or greater than 0, but got " + std::to_string(number));
  }
  return number;
}

LogicalPtr QueryBinder::Impl::ApplyOrderAndLimit(LogicalPtr plan, const Query& query, bool order_done) {
  if (!order_done && !query.order_by.empty()) {
    std::vector<exec::SortKey> keys;
    for (const OrderItem& item : query.order_by) {
      exec::SortKey key;
      key.ascending = item.direction != SortDirection::kDescending;
      key.nulls_first = item.null_order == NullOrder::kDefault ? key.ascending : item.null_order == NullOrder::kNullsFirst;
      const Expression& expression = *item.expression;
      if (IsIntegerLiteral(expression)) {
        int64_t position = std::stoll(expression.text);
        if (position < 1 || position > static_cast<int64_t>(plan->columns.size())) {
          ThrowAt(MakeError(ErrorClass::ORDER_BY_POS_OUT_OF_RANGE,
                            {{"index", expression.text}, {"size", std::to_string(plan->columns.size())}}),
                  expression.position);
        }
        key.column = static_cast<int>(position - 1);
      } else {
        RelationScope scope(plan->columns);
        ExpressionBinder binder(scope);
        expr::ExpressionPtr bound = binder.Bind(expression);
        if (bound->kind() == expr::ExpressionKind::kColumn) {
          key.column = bound->column_index();
        } else {
          // Sort by a computed key: add it, sort, and drop it again.
          std::vector<int> all;
          for (size_t i = 0; i < plan->columns.size(); ++i) all.push_back(static_cast<int>(i));
          LogicalPtr widened = MakeLogicalSelectColumns(plan, all);
          widened->expressions.push_back(bound);
          widened->columns.push_back(MakeLogicalColumn("sort_key", bound->type(), bound->nullable()));
          widened->columns.back().hidden = true;
          plan = widened;
          key.column = static_cast<int>(plan->columns.size() - 1);
        }
      }
      keys.push_back(key);
    }
    size_t visible = 0;
    for (const LogicalColumn& column : plan->columns) visible += column.hidden ? 0 : 1;
    plan = MakeLogicalSort(plan, std::move(keys));
    if (visible < plan->columns.size()) {
      std::vector<int> kept;
      for (size_t i = 0; i < plan->columns.size(); ++i) {
        if (!plan->columns[i].hidden) kept.push_back(static_cast<int>(i));
      }
      plan = MakeLogicalSelectColumns(plan, kept);
    }
  }
  std::optional<int64_t> limit;
  int64_t offset = 0;
  if (query.limit) limit = EvaluateLimit(*query.limit, "limit");
  if (query.offset) offset = *EvaluateLimit(*query.offset, "offset");
  if (limit || offset > 0) plan = MakeLogicalLimit(plan, limit, offset);
  return plan;
}

LogicalPtr QueryBinder::Impl::BindValuesRows(const std::vector<std::vector<ExpressionPtr>>& rows,
                                             const SourcePosition& position) {
  SILT_CHECK(!rows.empty(), "VALUES without rows");
  size_t width = rows[0].size();
  expr::EvalContext eval = Eval();
  std::vector<std::vector<expr::Scalar>> values;
  for (size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != width) {
      ThrowAt(MakeError(ErrorClass::INVALID_INLINE_TABLE,
                        {{"message", "Inline table expected " + std::to_string(width) + " columns but found " +
                                         std::to_string(rows[r].size()) + " columns in row " + std::to_string(r) +
                                         "."}}),
              rows[r].empty() ? position : rows[r][0]->position);
    }
    std::vector<expr::Scalar> row;
    for (const ExpressionPtr& cell : rows[r]) row.push_back(EvaluateConstant(*cell, "VALUES", eval));
    values.push_back(std::move(row));
  }
  std::vector<Field> fields;
  for (size_t c = 0; c < width; ++c) {
    std::vector<DataTypePtr> types;
    bool nullable = false;
    for (const auto& row : values) {
      types.push_back(row[c].type());
      nullable = nullable || row[c].is_null();
    }
    std::optional<DataTypePtr> common = expr::CommonType(types);
    if (!common) {
      for (size_t r = 1; r < values.size(); ++r) {
        if (!expr::WiderType(types[0], types[r])) {
          ThrowAt(MakeError(ErrorClass::INCOMPATIBLE_COLUMN_TYPE,
                            {{"operator", "VALUES"}, {"columnOrdinalNumber", OrdinalWord(c + 1)},
                             {"tableOrdinalNumber", OrdinalWord(r + 1)},
                             {"dataType1", "\"" + Lower(types[r]->ToString()) + "\""},
                             {"dataType2", "\"" + Lower(types[0]->ToString()) + "\""}}),
                  rows[r][c]->position);
        }
      }
      common = types[0];
    }
    fields.push_back(Field{"col" + std::to_string(c + 1), *common, nullable, {}});
  }
  auto schema = std::make_shared<Schema>(fields);
  std::vector<Batch> batches;
  for (const auto& row : values) {
    std::vector<VectorPtr> columns;
    for (size_t c = 0; c < width; ++c) {
      columns.push_back(expr::CastVector(row[c].ToVector(1), fields[c].type, expr::ErrorMode::kSession, eval));
      eval.ThrowIfError();
    }
    batches.emplace_back(schema, std::move(columns), 1);
  }
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kValues;
  node->batches.push_back(ConcatenateBatches(batches));
  for (const Field& field : fields) node->columns.push_back(MakeLogicalColumn(field.name, field.type, field.nullable));
  return node;
}

LogicalPtr QueryBinder::Impl::BindSetOperation(const Query& query) {
  LogicalPtr left = BindQuery(*query.left, nullptr);
  LogicalPtr right = BindQuery(*query.right, nullptr);
  std::string operator_name = query.set_operator == SetOperator::kUnion       ? "UNION"
                              : query.set_operator == SetOperator::kIntersect ? "INTERSECT"
                                                                              : "EXCEPT";
  if (query.set_all) operator_name += " ALL";
  auto visible = [](const LogicalPtr& plan) {
    std::vector<int> indexes;
    for (size_t i = 0; i < plan->columns.size(); ++i) {
      if (!plan->columns[i].hidden) indexes.push_back(static_cast<int>(i));
    }
    return indexes;
  };
  std::vector<int> left_columns = visible(left), right_columns = visible(right);
  if (left_columns.size() != right_columns.size()) {
    ThrowAt(MakeError(ErrorClass::NUM_COLUMNS_MISMATCH,
                      {{"operator", operator_name}, {"firstNumColumns", std::to_string(left_columns.size())},
                       {"invalidOrdinalNum", "second"},
                       {"invalidNumColumns", std::to_string(right_columns.size())}}),
            query.right->position);
  }
  std::vector<expr::ExpressionPtr> left_expressions, right_expressions;
  std::vector<LogicalColumn> output;
  for (size_t i = 0; i < left_columns.size(); ++i) {
    const LogicalColumn& l = left->columns[left_columns[i]];
    const LogicalColumn& r = right->columns[right_columns[i]];
    std::optional<DataTypePtr> type = expr::WiderType(l.type, r.type);
    if (!type) {
      ThrowAt(MakeError(ErrorClass::INCOMPATIBLE_COLUMN_TYPE,
                        {{"operator", operator_name}, {"columnOrdinalNumber", OrdinalWord(i + 1)},
                         {"tableOrdinalNumber", "second"},
                         {"dataType1", "\"" + Lower(r.type->ToString()) + "\""},
                         {"dataType2", "\"" + Lower(l.type->ToString()) + "\""}}),
              query.right->position);
    }
    left_expressions.push_back(expr::CastIfNeeded(expr::Column(left_columns[i], l.type, l.nullable), *type));
    right_expressions.push_back(expr::CastIfNeeded(expr::Column(right_columns[i], r.type, r.nullable), *type));
    output.push_back(MakeLogicalColumn(l.name, *type, l.nullable || r.nullable));
  }
  auto cast_side = [&](LogicalPtr plan, std::vector<expr::ExpressionPtr> expressions) {
    bool identity = expressions.size() == plan->columns.size();
    for (size_t i = 0; identity && i < expressions.size(); ++i) {
      identity = expressions[i]->kind() == expr::ExpressionKind::kColumn &&
                 expressions[i]->column_index() == static_cast<int>(i);
    }
    if (identity) return plan;
    std::vector<LogicalColumn> columns;
    for (size_t i = 0; i < expressions.size(); ++i) {
      columns.push_back(MakeLogicalColumn(output[i].name, expressions[i]->type(), expressions[i]->nullable()));
    }
    return MakeLogicalProject(plan, std::move(expressions), std::move(columns));
  };
  left = cast_side(left, left_expressions);
  right = cast_side(right, right_expressions);
  auto node = std::make_shared<LogicalNode>();
  node->columns = output;
  node->children = {left, right};
  if (query.set_operator == SetOperator::kUnion) {
    node->kind = LogicalKind::kUnion;
    if (!query.set_all) return MakeLogicalDistinct(node);
    return node;
  }
  node->kind = LogicalKind::kSetOperation;
  node->set_operation = query.set_operator == SetOperator::kIntersect ? exec::SetOperation::kIntersect
                                                                       : exec::SetOperation::kExcept;
  node->set_all = query.set_all;
  // INTERSECT / EXCEPT keep the left side's nullability.
  for (size_t i = 0; i < node->columns.size(); ++i) node->columns[i].nullable = left->columns[i].nullable;
  return node;
}

// ---- FROM ----

LogicalPtr QueryBinder::Impl::BindFrom(const std::vector<TableReferencePtr>& from) {
  if (from.empty()) return OneRow();
  // `FROM a, b, c` joins left-deep: one level per comma.
  DepthGuard guard(*this, from.back()->position, static_cast<int>(std::min<size_t>(from.size() - 1, INT32_MAX / 2)));
  LogicalPtr plan = BindFromItem(*from[0]);
  for (size_t i = 1; i < from.size(); ++i) {
    plan = MakeLogicalJoin(plan, BindFromItem(*from[i]), exec::JoinType::kInner, nullptr);
  }
  return plan;
}

LogicalPtr QueryBinder::Impl::BindFromItem(const TableReference& reference) {
  switch (reference.kind) {
    case TableReferenceKind::kTable: return BindTable(reference);
    case TableReferenceKind::kSubquery: {
      // A derived table cannot see the enclosing query's CTEs defined after it, but it can see
      // all of the ones in scope: keep the stack.
      LogicalPtr plan = BindQuery(*reference.subquery, nullptr);
      return Requalify(plan, reference.alias, reference.column_aliases, reference.position);
    }
    case TableReferenceKind::kValues: {
      LogicalPtr plan = BindValuesRows(reference.values, reference.position);
      return Requalify(plan, reference.alias, reference.column_aliases, reference.position);
    }
    case TableReferenceKind::kFunction: return BindTableFunction(reference);
    case TableReferenceKind::kJoin: {
      DepthGuard guard(*this, reference.position);
      return BindJoin(reference);
    }
    case TableReferenceKind::kLateralView: {
      DepthGuard guard(*this, reference.position);
      LogicalPtr left = BindFromItem(*reference.left);
      return BindGenerate(left, *reference.function, reference.outer, reference.alias, reference.column_aliases);
    }
    case TableReferenceKind::kPivot: {
      DepthGuard guard(*this, reference.position);
      return BindPivot(reference);
    }
    case TableReferenceKind::kUnpivot: {
      DepthGuard guard(*this, reference.position);
      return BindUnpivot(reference);
    }
  }
  SILT_CHECK(false, "unknown table reference kind");
  return nullptr;
}

namespace {

// The index of the visible or qualified column `name` of `plan`; UNRESOLVED_COLUMN otherwise.
int ResolveColumnIndex(const LogicalNode& plan, const QualifiedName& name, const SourcePosition& position) {
  std::optional<ResolvedName> found = FindColumn(plan.columns, name, position);
  if (!found || found->parts_used != name.size()) ThrowUnresolvedColumn(name, plan.columns, position);
  return found->column;
}

// A constant expression's value on one row.
expr::Scalar EvaluateOnce(const expr::ExpressionPtr& expression, const expr::EvalContext& context) {
  expr::EvalContext local = context;
  Batch one_row(std::make_shared<Schema>(), {}, 1);
  return expr::Scalar::FromVector(*expr::Evaluate(*expression, one_row, local), 0);
}

}  // namespace

// Spark's PIVOT: groups by every column of the source that neither the aggregates nor the pivot
// columns read, and computes each aggregate once per pivot value over the rows whose pivot
// columns equal the value (<=>, so a NULL value matches NULLs). Output: the grouping columns,
// then per value one column per aggregate, named after the value (and `_` and the aggregate's
// alias or text when there are several aggregates).
LogicalPtr QueryBinder::Impl::BindPivot(const TableReference& reference) {
  const PivotSpec& pivot = *reference.pivot;
  LogicalPtr source = BindFromItem(*reference.left);
  std::vector<int> pivot_columns;
  for (const QualifiedName& name : pivot.columns) {
    pivot_columns.push_back(ResolveColumnIndex(*source, name, reference.position));
  }

  SelectState state;
  LogicalPtr plan = source;
  std::vector<expr::ExpressionPtr> expressions;
  for (const ExpressionPtr& aggregate : pivot.aggregates) {
    SelectScope scope(*this, state, plan, Clause::kSelect);
    ExpressionBinder binder(scope);
    expr::ExpressionPtr bound = binder.Bind(*aggregate);
    if (plan != source) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                        {{"message", "subquery expressions are not allowed in PIVOT: " + ExpressionSql(*aggregate) + "."}}),
              aggregate->position);
    }
    bool is_aggregate = ContainsPlaceholder(*bound, kAggregateBase, kWindowBase);
    for (int column : expr::ReferencedColumns(*bound)) is_aggregate = is_aggregate && column >= kAggregateBase;
    if (!is_aggregate || !state.windows.empty() || !state.generators.empty()) {
      std::string sql = ExpressionSql(*aggregate);
      ThrowAt(MakeError(ErrorClass::MISSING_AGGREGATION,
                        {{"expression", "\"" + sql + "\""}, {"expressionAnyValue", "\"any_value(" + sql + ")\""}}),
              aggregate->position);
    }
    expressions.push_back(bound);
  }

  std::vector<bool> used(source->columns.size(), false);
  for (int column : pivot_columns) used[column] = true;
  for (const exec::AggregateCall& call : state.aggregates) {
    for (const expr::ExpressionPtr& argument : call.arguments) {
      for (int column : expr::ReferencedColumns(*argument)) used[column] = true;
    }
    if (call.filter) {
      for (int column : expr::ReferencedColumns(*call.filter)) used[column] = true;
    }
  }

  // Each value: one literal per pivot column, cast to the column's type.
  std::vector<std::vector<expr::ExpressionPtr>> values;
  std::vector<std::string> value_names;
  RelationScope value_scope(source->columns);
  for (size_t v = 0; v < pivot.values.size(); ++v) {
    const std::vector<ExpressionPtr>& tuple = pivot.values[v];
    std::vector<expr::ExpressionPtr> literals;
    std::vector<std::string> texts;
    ExpressionBinder binder(value_scope);
    std::vector<expr::ExpressionPtr> bound;
    for (const ExpressionPtr& element : tuple) {
      bound.push_back(binder.Bind(*element));
      if (!expr::ReferencedColumns(*bound.back()).empty() || !bound.back()->deterministic()) {
        ThrowAt(MakeError(ErrorClass::NON_LITERAL_PIVOT_VALUES, {{"expression", "\"" + ExpressionSql(*element) + "\""}}),
                element->position);
      }
    }
    auto type_text = [&](const std::vector<DataTypePtr>& types) {
      if (types.size() == 1) return DataTypeSql(*types[0]);
      std::string text = "STRUCT<";
      for (size_t i = 0; i < types.size(); ++i) {
        text += (i > 0 ? ", " : "") + std::string("col") + std::to_string(i + 1) + ": " + DataTypeSql(*types[i]);
      }
      return text + ">";
    };
    std::vector<DataTypePtr> value_types, pivot_types;
    for (const expr::ExpressionPtr& element : bound) value_types.push_back(element->type());
    for (int column : pivot_columns) pivot_types.push_back(source->columns[column].type);
    bool castable = bound.size() == pivot_columns.size();
    for (size_t i = 0; castable && i < bound.size(); ++i) castable = expr::CanCast(value_types[i], pivot_types[i]);
    if (!castable) {
      std::string value_text;
      for (size_t i = 0; i < tuple.size(); ++i) value_text += (i > 0 ? ", " : "") + ExpressionSql(*tuple[i]);
      if (tuple.size() > 1) value_text = "(" + value_text + ")";
      ThrowAt(MakeError(ErrorClass::PIVOT_VALUE_DATA_TYPE_MISMATCH,
                        {{"value", value_text}, {"valueType", type_text(value_types)}, {"pivotType", type_text(pivot_types)}}),
              pivot.value_positions[v]);
    }
    for (size_t i = 0; i < bound.size(); ++i) {
      expr::Scalar value = EvaluateOnce(expr::Cast(bound[i], pivot_types[i]), Eval());
      literals.push_back(expr::Literal(value));
      expr::Scalar text = EvaluateOnce(expr::Cast(expr::Literal(value), StringType()), Eval());
      texts.push_back(text.is_null() ? "null" : std::string(text.GetString()));
    }
    std::string name = pivot.value_aliases[v];
    if (name.empty()) {
      for (size_t i = 0; i < texts.size(); ++i) name += (i > 0 ? ", " : "") + texts[i];
      if (texts.size() > 1) name = "{" + name + "}";
    }
    values.push_back(std::move(literals));
    value_names.push_back(std::move(name));
  }

  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kAggregate;
  for (size_t i = 0; i < source->columns.size(); ++i) {
    const LogicalColumn& column = source->columns[i];
    if (used[i] || column.hidden) continue;
    node->expressions.push_back(expr::Column(static_cast<int>(i), column.type, column.nullable));
    node->columns.push_back(column);
  }
  size_t num_groups = node->expressions.size();
  size_t num_calls = state.aggregates.size();
  for (size_t v = 0; v < values.size(); ++v) {
    expr::ExpressionPtr matches;
    for (size_t i = 0; i < pivot_columns.size(); ++i) {
      const LogicalColumn& column = source->columns[pivot_columns[i]];
      expr::ExpressionPtr equal =
          expr::Compare(expr::ComparisonOperator::kNullSafeEqual,
                        expr::Column(pivot_columns[i], column.type, column.nullable), values[v][i]);
      matches = matches ? expr::And(matches, equal) : equal;
    }
    for (size_t c = 0; c < num_calls; ++c) {
      exec::AggregateCall call = state.aggregates[c];
      call.filter = call.filter ? expr::And(call.filter, matches) : matches;
      node->aggregates.push_back(call);
      node->columns.push_back(MakeLogicalColumn(state.aggregate_names[c], call.result_type, call.nullable));
    }
  }
  node->children.push_back(source);

  std::vector<expr::ExpressionPtr> outputs;
  std::vector<LogicalColumn> columns;
  for (size_t g = 0; g < num_groups; ++g) {
    outputs.push_back(expr::Column(static_cast<int>(g), node->columns[g].type, node->columns[g].nullable));
    columns.push_back(node->columns[g]);
  }
  for (size_t v = 0; v < values.size(); ++v) {
    for (size_t e = 0; e < expressions.size(); ++e) {
      expr::ExpressionPtr output = RewriteTopDown(expressions[e], [&](const expr::ExpressionPtr& x) -> expr::ExpressionPtr {
        if (x->kind() != expr::ExpressionKind::kColumn) return nullptr;
        int index = static_cast<int>(num_groups + v * num_calls) + x->column_index() - kAggregateBase;
        return expr::Column(index, x->type(), node->columns[index].nullable);
      });
      std::string name = value_names[v];
      if (expressions.size() > 1) {
        const std::string& alias = pivot.aggregate_aliases[e];
        name += "_" + (alias.empty() ? AutoColumnName(*pivot.aggregates[e]) : alias);
      }
      columns.push_back(MakeLogicalColumn(name, output->type(), output->nullable()));
      outputs.push_back(output);
    }
  }
  LogicalPtr result = MakeLogicalProject(node, std::move(outputs), std::move(columns));
  return Requalify(result, reference.alias, {}, reference.position);
}

// Spark's UNPIVOT: every source row once per IN item, as the columns not unpivoted (the ids),
// the item's name, and its columns cast to the value columns' common types; EXCLUDE NULLS (the
// default) drops the rows whose values are all NULL.
LogicalPtr QueryBinder::Impl::BindUnpivot(const TableReference& reference) {
  const UnpivotSpec& unpivot = *reference.unpivot;
  LogicalPtr source = BindFromItem(*reference.left);
  size_t width = unpivot.value_columns.size();
  std::vector<std::vector<int>> sets;
  std::vector<bool> unpivoted(source->columns.size(), false);
  for (size_t s = 0; s < unpivot.columns.size(); ++s) {
    if (unpivot.columns[s].size() != width) {
      std::string names;
      for (size_t i = 0; i < width; ++i) names += (i > 0 ? ", " : "") + QuoteName({unpivot.value_columns[i]});
      ThrowAt(MakeError(ErrorClass::UNPIVOT_VALUE_SIZE_MISMATCH, {{"names", names}}), unpivot.positions[s]);
    }
    std::vector<int> set;
    for (const QualifiedName& name : unpivot.columns[s]) {
      set.push_back(ResolveColumnIndex(*source, name, unpivot.positions[s]));
      unpivoted[set.back()] = true;
    }
    sets.push_back(std::move(set));
  }
  std::vector<DataTypePtr> value_types;
  std::vector<bool> value_nullable(width, false);
  for (size_t i = 0; i < width; ++i) {
    std::vector<DataTypePtr> types;
    for (const std::vector<int>& set : sets) {
      types.push_back(source->columns[set[i]].type);
      value_nullable[i] = value_nullable[i] || source->columns[set[i]].nullable;
    }
    std::optional<DataTypePtr> common = expr::CommonType(types);
    if (!common) {
      std::string listed;
      for (const std::vector<int>& set : sets) {
        const LogicalColumn& column = source->columns[set[i]];
        listed += (listed.empty() ? "" : ", ") + ("\"" + DataTypeSql(*column.type) + "\" (" + QuoteName({column.name}) + ")");
      }
      ThrowAt(MakeError(ErrorClass::UNPIVOT_VALUE_DATA_TYPE_MISMATCH, {{"types", listed}}), reference.position);
    }
    value_types.push_back(*common);
  }

  auto expand = std::make_shared<LogicalNode>();
  expand->kind = LogicalKind::kExpand;
  std::vector<int> ids;
  for (size_t i = 0; i < source->columns.size(); ++i) {
    if (unpivoted[i] || source->columns[i].hidden) continue;
    ids.push_back(static_cast<int>(i));
    expand->columns.push_back(source->columns[i]);
  }
  expand->columns.push_back(MakeLogicalColumn(unpivot.name_column, StringType(), false));
  for (size_t i = 0; i < width; ++i) {
    expand->columns.push_back(MakeLogicalColumn(unpivot.value_columns[i], value_types[i], value_nullable[i]));
  }
  for (size_t s = 0; s < sets.size(); ++s) {
    std::vector<expr::ExpressionPtr> projection;
    for (int id : ids) projection.push_back(expr::Column(id, source->columns[id].type, source->columns[id].nullable));
    std::string name = unpivot.aliases[s];
    if (name.empty()) {
      for (size_t i = 0; i < width; ++i) name += (i > 0 ? "_" : "") + source->columns[sets[s][i]].name;
    }
    projection.push_back(expr::Literal(expr::Scalar::String(name)));
    for (size_t i = 0; i < width; ++i) {
      const LogicalColumn& column = source->columns[sets[s][i]];
      projection.push_back(expr::CastIfNeeded(expr::Column(sets[s][i], column.type, column.nullable), value_types[i]));
    }
    expand->projections.push_back(std::move(projection));
  }
  expand->children.push_back(source);
  LogicalPtr plan = expand;
  if (!unpivot.include_nulls) {
    expr::ExpressionPtr any_value;
    for (size_t i = 0; i < width; ++i) {
      size_t index = ids.size() + 1 + i;
      expr::ExpressionPtr present = expr::IsNotNull(expr::Column(static_cast<int>(index), value_types[i], true));
      any_value = any_value ? expr::Or(any_value, present) : present;
    }
    plan = MakeLogicalFilter(plan, any_value);
  }
  return Requalify(plan, reference.alias, {}, reference.position);
}

LogicalPtr QueryBinder::Impl::BindTable(const TableReference& reference) {
  if (reference.stream) {
    // A streaming read runs batch by batch under a checkpoint; a batch query cannot hold one.
    ThrowAt(MakeError(ErrorClass::UNSUPPORTED_FEATURE,
                      {{"message", "STREAM(" + QuoteName(reference.name) +
                                       ") reads a table as a stream, which only the query of a "
                                       "CREATE STREAMING TABLE can do"}}),
            reference.position);
  }
  if (reference.name.size() == 1 && !reference.time_travel) {
    for (size_t i = ctes.size(); i-- > 0;) {
      const CommonTableExpression& cte = *ctes[i].cte;
      if (!NamesEqual(cte.name, reference.name[0])) continue;
      // A CTE sees only the ones defined before it.
      std::vector<CteEntry> later(ctes.begin() + static_cast<std::ptrdiff_t>(i), ctes.end());
      ctes.resize(i);
      LogicalPtr plan;
      try {
        plan = BindQuery(*cte.query, nullptr);
      } catch (...) {
        ctes.resize(i);
        ctes.insert(ctes.end(), later.begin(), later.end());
        throw;
      }
      ctes.resize(i);
      ctes.insert(ctes.end(), later.begin(), later.end());
      plan = Requalify(plan, "", cte.columns, reference.position);
      return Requalify(plan, reference.alias.empty() ? cte.name : reference.alias, {}, reference.position);
    }
  }
  LogicalPtr plan = BindNamedTable(reference.name, reference.time_travel, reference.position, reference.alias);
  if (reference.sample) plan = ApplyTableSample(plan, *reference.sample);
  return Requalify(plan, "", reference.column_aliases, reference.position);
}

LogicalPtr QueryBinder::Impl::ApplyTableSample(LogicalPtr plan, const TableSample& sample) {
  // n ROWS is a LIMIT, as Spark plans it.
  if (sample.kind == TableSample::Kind::kRows) {
    return MakeLogicalLimit(plan, EvaluateLimit(*sample.amount, "TABLESAMPLE"), 0);
  }
  double fraction = 0;
  if (sample.kind == TableSample::Kind::kBucket) {
    if (sample.denominator == 0) {
      ThrowAt(MakeError(ErrorClass::INVALID_SQL_SYNTAX,
                        {{"message", "TABLESAMPLE (BUCKET x OUT OF 0)"}}),
              sample.amount ? sample.amount->position : SourcePosition{});
    }
    fraction = static_cast<double>(sample.numerator) / static_cast<double>(sample.denominator);
  } else {
    Expression as_double;
    as_double.kind = ExpressionKind::kCast;
    as_double.position = sample.amount->position;
    as_double.cast_type = DoubleType();
    as_double.children = {sample.amount};
    expr::Scalar percent = EvaluateConstant(as_double, "TABLESAMPLE", Eval());
    if (percent.is_null()) {
      ThrowAt(MakeError(ErrorClass::INVALID_SQL_SYNTAX,
                        {{"message", "TABLESAMPLE (x PERCENT) needs a number"}}),
              sample.amount->position);
    }
    fraction = percent.GetDouble() / 100.0;
  }
  // Spark's check, with its slack for rounding.
  constexpr double kEpsilon = 1e-5;
  if (!(fraction >= -kEpsilon && fraction <= 1.0 + kEpsilon)) {
    ThrowAt(MakeError(ErrorClass::INVALID_SQL_SYNTAX,
                      {{"message", "Sampling fraction (" + std::to_string(fraction) +
                                       ") must be on interval [0, 1]"}}),
            sample.amount ? sample.amount->position : SourcePosition{});
  }
  // Each row is kept with probability `fraction`, drawn independently (Spark's Bernoulli
  // sampling; the rows chosen differ from Spark's).
  std::vector<expr::ExpressionPtr> seed;
  if (sample.seed) seed.push_back(expr::Literal(expr::Scalar::Long(*sample.seed)));
  expr::ExpressionPtr draw = expr::FunctionRegistry::Default().Bind("rand", std::move(seed));
  return MakeLogicalFilter(plan, expr::Compare(expr::ComparisonOperator::kLess, draw,
                                               expr::Literal(expr::Scalar::Double(fraction))));
}

LogicalPtr QueryBinder::Impl::BindNamedTable(const QualifiedName& name, const std::optional<TimeTravel>& time_travel,
                                             const SourcePosition& position, const std::string& alias) {
  TableSource source = session.ResolveTable(name, position);
  std::vector<std::string> qualifier;
  if (!alias.empty()) {
    qualifier = {alias};
  } else if (!source.identifier.empty()) {
    qualifier = {"spark_catalog"};
    qualifier.insert(qualifier.end(), source.identifier.begin(), source.identifier.end());
  } else {
    qualifier = name;
  }
  auto node = std::make_shared<LogicalNode>();
  node->table_name = source.display_name;
  switch (source.kind) {
    case TableSource::Kind::kView: {
      if (time_travel) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_FEATURE, {{"message", "Time travel on the view " + source.display_name}}),
                position);
      }
      // A view is bound as it was defined: the query's CTEs are not visible in it, and a
      // permanent view's names resolve where it was created.
      std::vector<CteEntry> saved_ctes;
      saved_ctes.swap(ctes);
      bool pushed = false;
      LogicalPtr plan;
      try {
        if (source.view->stored != nullptr) {
          session.PushViewBinding(*source.view);
          pushed = true;
        }
        plan = BindQuery(*source.view->query, nullptr);
      } catch (...) {
        if (pushed) session.PopViewBinding();
        ctes.swap(saved_ctes);
        throw;
      }
      if (pushed) session.PopViewBinding();
      ctes.swap(saved_ctes);
      if (pushed) plan = SelectViewColumns(plan, *source.view->stored);
      plan = Requalify(plan, "", source.view->column_names, position);
      return Requalify(plan, alias.empty() ? source.view->name : alias, {}, position);
    }
    case TableSource::Kind::kDelta: {
      log::SnapshotOptions options;
      options.pool = &context.Pool();
      if (time_travel) {
        const Expression& value = *time_travel->value;
        expr::Scalar scalar = EvaluateConstant(value, "time travel", Eval());
        if (time_travel->kind == TimeTravel::Kind::kVersion) {
          try {
            options.version = TimeTravelVersion(scalar);
          } catch (const Error& error) {
            ThrowAt(error, value.position);
          }
        } else {
          int64_t micros = 0;
          if (scalar.type()->id() == TypeId::kString) {
            std::string text(scalar.GetString());
            bool digits = text.size() == 17 && std::all_of(text.begin(), text.end(), ::isdigit);
            if (digits) {
              // t@yyyyMMddHHmmssSSS
              text = text.substr(0, 4) + "-" + text.substr(4, 2) + "-" + text.substr(6, 2) + " " + text.substr(8, 2) +
                     ":" + text.substr(10, 2) + ":" + text.substr(12, 2) + "." + text.substr(14, 3);
            }
            std::optional<int64_t> parsed = expr::ParseSparkTimestamp(text, true, Eval().Zone());
            if (!parsed) {
              ThrowAt(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                {{"parameter", "`timestamp`"}, {"functionName", "TIMESTAMP AS OF"},
                                 {"message", "'" + std::string(scalar.GetString()) + "' is not a valid timestamp"}}),
                      value.position);
            }
            micros = *parsed;
          } else if (scalar.type()->id() == TypeId::kTimestamp || scalar.type()->id() == TypeId::kTimestampNtz ||
                     scalar.type()->id() == TypeId::kDate) {
            if (scalar.is_null()) {
              ThrowAt(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                {{"parameter", "`timestamp`"}, {"functionName", "TIMESTAMP AS OF"},
                                 {"message", "the timestamp must not be NULL"}}),
                      value.position);
            }
            micros = scalar.type()->id() == TypeId::kDate ? scalar.GetInt() * 86400LL * 1000000LL : scalar.GetInt();
          } else {
            ThrowAt(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                              {{"parameter", "`timestamp`"}, {"functionName", "TIMESTAMP AS OF"},
                               {"message", "expects a timestamp, got " + scalar.type()->ToString()}}),
                    value.position);
          }
          // Round up to the millisecond so that a commit at that exact instant is included.
          options.timestamp_ms = micros >= 0 ? micros / 1000 : -((-micros) / 1000);
        }
      }
      std::shared_ptr<const log::Snapshot> snapshot = source.pinned_snapshot;
      if (snapshot && time_travel) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_FEATURE,
                          {{"message", "Time travel on the streaming input " + source.display_name}}),
                position);
      }
      try {
        if (!snapshot) {
          std::string key = source.location + '\n' + (options.version ? std::to_string(*options.version) : "") +
                            '\n' + (options.timestamp_ms ? std::to_string(*options.timestamp_ms) : "");
          std::shared_ptr<const log::Snapshot>& loaded = snapshots[key];
          if (!loaded) loaded = log::Snapshot::Load(session.fs(), source.location, options);
          snapshot = loaded;
        }
      } catch (const Error& error) {
        if (error.context().empty()) ThrowAt(error, position);
        throw;
      }
      node->kind = LogicalKind::kDeltaScan;
      node->snapshot = snapshot;
      const Schema& schema = snapshot->schema();
      for (size_t i = 0; i < schema.num_fields(); ++i) {
        const Field& field = schema.field(i);
        node->scan_columns.push_back(static_cast<int>(i));
        node->columns.push_back(MakeLogicalColumn(field.name, field.type, field.nullable, qualifier));
      }
      // Spark's hidden `_metadata` (file facts, row ids and commit versions under row tracking).
      LogicalColumn metadata = MakeLogicalColumn(
          std::string(log::kFileMetadataColumn),
          log::FileMetadataType(log::IsRowTrackingEnabled(snapshot->protocol(), snapshot->metadata())),
          false, qualifier);
      metadata.hidden = true;
      metadata.file_metadata = true;
      node->scan_columns.push_back(kFileMetadataScanColumn);
      node->columns.push_back(std::move(metadata));
      return node;
    }
    case TableSource::Kind::kParquet: {
      if (time_travel) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_FEATURE, {{"message", "Time travel on a Parquet path"}}), position);
      }
      io::FileSystem& fs = *session.fs();
      std::vector<std::string> files;
      std::optional<io::FileInfo> info = fs.Stat(source.location);
      if (info && !info->is_directory) {
        files.push_back(source.location);
      } else {
        for (const io::FileInfo& entry : fs.List(source.location, "", true)) {
          const std::string& path = entry.path;
          std::string base = path.substr(path.find_last_of('/') + 1);
          if (base.empty() || base[0] == '_' || base[0] == '.') continue;
          if (path.size() >= 8 && path.substr(path.size() - 8) == ".parquet") files.push_back(path);
        }
      }
      if (files.empty()) {
        ThrowAt(MakeError(ErrorClass::TABLE_OR_VIEW_NOT_FOUND, {{"relationName", source.display_name}}), position);
      }
      std::sort(files.begin(), files.end());
      auto reader = parquet::FileReader::Open(fs, files[0]);
      auto schema = std::make_shared<Schema>(reader->schema());
      node->kind = LogicalKind::kParquetScan;
      node->file_system = session.fs();
      node->parquet_files = files;
      node->file_schema = schema;
      for (const Field& field : schema->fields()) {
        node->columns.push_back(MakeLogicalColumn(field.name, field.type, true, qualifier));
      }
      return node;
    }
    case TableSource::Kind::kJson:
    case TableSource::Kind::kCsv:
    case TableSource::Kind::kStreamRows: {
      if (time_travel) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_FEATURE, {{"message", "Time travel on a file path"}}), position);
      }
      exec::TextTable table;
      try {
        if (source.pinned_rows) {
          table = *source.pinned_rows;
        } else {
          table = source.kind == TableSource::Kind::kJson ? exec::ReadJsonFiles(*session.fs(), source.location)
                                                          : exec::ReadCsvFiles(*session.fs(), source.location);
        }
      } catch (const Error& error) {
        if (error.context().empty()) ThrowAt(error, position);
        throw;
      }
      node->kind = LogicalKind::kValues;
      for (const Batch& batch : table.batches) {
        if (batch.num_rows() > 0) node->batches.push_back(batch);
      }
      for (const Field& field : table.schema->fields()) {
        node->columns.push_back(MakeLogicalColumn(field.name, field.type, field.nullable, qualifier));
      }
      return node;
    }
    default:
      ThrowAt(MakeError(ErrorClass::NOT_IMPLEMENTED, {{"feature", "Reading " + source.display_name}}), position);
  }
}

LogicalPtr QueryBinder::Impl::BindJoin(const TableReference& reference) {
  LogicalPtr left = BindFromItem(*reference.left);
  LogicalPtr right = BindFromItem(*reference.right);
  exec::JoinType type = ToExecJoinType(reference.join_type);
  std::vector<std::string> using_columns = reference.using_columns;
  if (reference.natural) {
    for (const LogicalColumn& l : left->columns) {
      if (l.hidden) continue;
      for (const LogicalColumn& r : right->columns) {
        if (!r.hidden && NamesEqual(l.name, r.name)) {
          using_columns.push_back(l.name);
          break;
        }
      }
    }
  }
  if (!using_columns.empty()) return BindUsingJoin(left, right, type, using_columns, reference.position);
  if (reference.natural) return MakeLogicalJoin(left, right, type, nullptr);
  expr::ExpressionPtr condition;
  // An inner join's ON conjuncts with subqueries filter the joined rows, as WHERE does, so they
  // are decorrelated the same way; an outer, semi or anti join's ON cannot move, and its
  // subqueries are evaluated on the side they read (JoinConditionScope).
  ExpressionPtr join_ast = reference.condition;
  std::vector<ExpressionPtr> subquery_conjuncts;
  if (join_ast != nullptr && (type == exec::JoinType::kInner || type == exec::JoinType::kCross) &&
      ContainsSubquery(*join_ast)) {
    std::vector<ExpressionPtr> conjuncts;
    SplitAstConjunction(join_ast, conjuncts);
    join_ast = nullptr;
    for (const ExpressionPtr& conjunct : conjuncts) {
      if (ContainsSubquery(*conjunct)) {
        subquery_conjuncts.push_back(conjunct);
      } else if (join_ast == nullptr) {
        join_ast = conjunct;
      } else {
        auto both = std::make_shared<Expression>();
        both->kind = ExpressionKind::kBinary;
        both->op = "AND";
        both->position = conjunct->position;
        both->children = {join_ast, conjunct};
        join_ast = both;
      }
    }
  }
  const size_t left_width = left->columns.size(), right_width = right->columns.size();
  const bool moves_to_filter = type == exec::JoinType::kInner || type == exec::JoinType::kCross;
  if (join_ast && !moves_to_filter && ContainsSubquery(*join_ast)) {
    JoinConditionScope scope(*this, left, right);
    ExpressionBinder binder(scope);
    condition = scope.Finish(binder.BindPredicate(*join_ast, "JOIN"));
  } else if (join_ast) {
    std::vector<LogicalColumn> both = left->columns;
    both.insert(both.end(), right->columns.begin(), right->columns.end());
    RelationScope scope(both);
    ExpressionBinder binder(scope);
    condition = binder.BindPredicate(*join_ast, "JOIN");
  }
  LogicalPtr join = MakeLogicalJoin(left, right, type, condition);
  if (left->columns.size() > left_width || right->columns.size() > right_width) {
    // The sides' subquery columns leave with the join: the relation is the sides' own columns.
    std::vector<int> kept;
    for (size_t i = 0; i < left_width; ++i) kept.push_back(static_cast<int>(i));
    if (type != exec::JoinType::kLeftSemi && type != exec::JoinType::kLeftAnti) {
      for (size_t i = 0; i < right_width; ++i) kept.push_back(static_cast<int>(left->columns.size() + i));
    }
    return MakeLogicalSelectColumns(join, kept);
  }
  if (subquery_conjuncts.empty()) return join;
  SelectState state;
  LogicalPtr filtered = join;
  for (const ExpressionPtr& conjunct : subquery_conjuncts) filtered = BindWhere(filtered, *conjunct, nullptr, state);
  if (filtered->columns.size() == join->columns.size()) return filtered;
  // The subqueries' joined columns leave with the filter: the relation is the join's columns.
  std::vector<expr::ExpressionPtr> kept;
  for (size_t i = 0; i < join->columns.size(); ++i) {
    kept.push_back(expr::Column(static_cast<int>(i), join->columns[i].type, join->columns[i].nullable));
  }
  return MakeLogicalProject(filtered, std::move(kept), join->columns);
}

LogicalPtr QueryBinder::Impl::BindUsingJoin(LogicalPtr left, LogicalPtr right, exec::JoinType type,
                                            const std::vector<std::string>& names, const SourcePosition& position) {
  std::vector<int> left_keys, right_keys;
  auto find = [&](const LogicalPtr& side, const std::string& name, const char* side_name) {
    std::optional<ResolvedName> found = FindColumn(side->columns, {name}, position);
    if (!found || found->parts_used != 1) {
      std::string suggestion;
      for (const LogicalColumn& column : side->columns) {
        if (column.hidden) continue;
        if (!suggestion.empty()) suggestion += ", ";
        suggestion += "`" + column.name + "`";
      }
      ThrowAt(MakeError(ErrorClass::UNRESOLVED_USING_COLUMN_FOR_JOIN,
                        {{"colName", "`" + name + "`"}, {"side", side_name}, {"suggestion", suggestion}}),
              position);
    }
    return found->column;
  };
  int left_width = static_cast<int>(left->columns.size());
  std::vector<expr::ExpressionPtr> conditions;
  for (const std::string& name : names) {
    int l = find(left, name, "left");
    int r = find(right, name, "right");
    left_keys.push_back(l);
    right_keys.push_back(r);
    const LogicalColumn& lc = left->columns[l];
    const LogicalColumn& rc = right->columns[r];
    conditions.push_back(expr::Compare(expr::ComparisonOperator::kEqual, expr::Column(l, lc.type, lc.nullable),
                                       expr::Column(left_width + r, rc.type, rc.nullable)));
  }
  LogicalPtr join = MakeLogicalJoin(left, right, type, expr::JoinConjunction(conditions));
  if (type == exec::JoinType::kLeftSemi || type == exec::JoinType::kLeftAnti) return join;
  // Spark's output of a USING join: the keys once, then the other left columns, then the other
  // right columns; the duplicate keys stay reachable by qualified name.
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<LogicalColumn> columns;
  auto column_of = [&](int index) {
    const LogicalColumn& column = join->columns[index];
    return expr::Column(index, column.type, column.nullable);
  };
  for (size_t k = 0; k < names.size(); ++k) {
    int l = left_keys[k];
    int r = left_width + right_keys[k];
    if (type == exec::JoinType::kFullOuter) {
      expr::ExpressionPtr merged = expr::Coalesce({column_of(l), column_of(r)});
      expressions.push_back(merged);
      columns.push_back(MakeLogicalColumn(join->columns[l].name, merged->type(), merged->nullable()));
    } else {
      int index = type == exec::JoinType::kRightOuter ? r : l;
      expressions.push_back(column_of(index));
      columns.push_back(join->columns[index]);
    }
  }
  auto is_key = [](const std::vector<int>& keys, int index) {
    return std::find(keys.begin(), keys.end(), index) != keys.end();
  };
  for (int i = 0; i < left_width; ++i) {
    if (is_key(left_keys, i)) continue;
    expressions.push_back(column_of(i));
    columns.push_back(join->columns[i]);
  }
  for (size_t i = 0; i < right->columns.size(); ++i) {
    if (is_key(right_keys, static_cast<int>(i))) continue;
    expressions.push_back(column_of(left_width + static_cast<int>(i)));
    columns.push_back(join->columns[left_width + i]);
  }
  for (size_t k = 0; k < names.size(); ++k) {
    std::vector<int> hidden;
    if (type != exec::JoinType::kInner && type != exec::JoinType::kLeftOuter) hidden.push_back(left_keys[k]);
    if (type != exec::JoinType::kRightOuter) hidden.push_back(left_width + right_keys[k]);
    for (int index : hidden) {
      expressions.push_back(column_of(index));
      LogicalColumn column = join->columns[index];
      column.hidden = true;
      columns.push_back(column);
    }
  }
  return MakeLogicalProject(join, std::move(expressions), std::move(columns));
}

LogicalPtr QueryBinder::Impl::BindTableFunction(const TableReference& reference) {
  const Expression& call = *reference.function;
  std::string name = Lower(call.name.back());
  if (name == "range") {
    expr::EvalContext eval = Eval();
    std::vector<int64_t> arguments;
    for (const ExpressionPtr& argument : call.children) {
      expr::Scalar value = EvaluateConstant(*argument, "range", eval);
      if (!expr::IsIntegral(*value.type()) || value.is_null()) {
        ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                          {{"sqlExpr", "\"" + ExpressionSql(call) + "\""},
                           {"message", "range expects integer arguments, got " + value.type()->ToString()}}),
                argument->position);
      }
      arguments.push_back(value.GetInt());
    }
    if (arguments.empty() || arguments.size() > 4) {
      ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS,
                        {{"functionName", "`range`"}, {"expectedNum", "[1, 2, 3, 4]"},
                         {"actualNum", std::to_string(arguments.size())}}),
              call.position);
    }
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kRange;
    node->range_start = arguments.size() == 1 ? 0 : arguments[0];
    node->range_end = arguments.size() == 1 ? arguments[0] : arguments[1];
    node->range_step = arguments.size() >= 3 ? arguments[2] : 1;
    if (node->range_step == 0) {
      ThrowAt(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                        {{"parameter", "`step`"}, {"functionName", "`range`"}, {"message", "step must not be 0"}}),
              call.position);
    }
    node->columns.push_back(MakeLogicalColumn("id", LongType(), false));
    return Requalify(node, reference.alias, reference.column_aliases, reference.position);
  }
  if (name == "table_changes" || name == "table_changes_by_path") return BindTableChanges(reference, name);
  static const char* kGenerators[] = {"explode", "explode_outer", "posexplode", "posexplode_outer", "inline", "inline_outer",
                                      "json_tuple", "stack"};
  for (const char* generator : kGenerators) {
    if (name != generator) continue;
    LogicalPtr generated = BindGenerate(OneRow(), call, false, reference.alias, reference.column_aliases);
    std::vector<int> kept;
    for (size_t i = 1; i < generated->columns.size(); ++i) kept.push_back(static_cast<int>(i));
    return MakeLogicalSelectColumns(generated, kept);
  }
  ThrowAt(MakeError(ErrorClass::UNRESOLVABLE_TABLE_VALUED_FUNCTION, {{"name", "`" + name + "`"}}), call.position);
}

namespace {

// Splits a table name given as text ('db.t', 'delta.`/p`') into its parts; nullopt when it is
// malformed (an empty part or an unclosed back-quote).
std::optional<QualifiedName> SplitTableName(const std::string& text) {
  QualifiedName parts;
  std::string part;
  bool quoted_part = false;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '.') {
      if (part.empty() && !quoted_part) return std::nullopt;
      parts.push_back(part);
      part.clear();
      quoted_part = false;
      continue;
    }
    if (text[i] == '`') {
      if (!part.empty() || quoted_part) return std::nullopt;
      size_t j = i + 1;
      for (;; ++j) {
        if (j >= text.size()) return std::nullopt;
        if (text[j] != '`') {
          part.push_back(text[j]);
        } else if (j + 1 < text.size() && text[j + 1] == '`') {
          part.push_back('`');  // `` inside back-quotes is one back-quote
          ++j;
        } else {
          break;
        }
      }
      i = j;
      quoted_part = true;
      if (i + 1 < text.size() && text[i + 1] != '.') return std::nullopt;
      continue;
    }
    if (quoted_part) return std::nullopt;
    if (!std::isspace(static_cast<unsigned char>(text[i]))) part.push_back(text[i]);
  }
  return parts;
}

}  // namespace

// table_changes('name', start [, end]) and table_changes_by_path('path', start [, end]): the
// change data feed of a Delta table; integer bounds are versions, strings and timestamps are
// commit timestamps.
LogicalPtr QueryBinder::Impl::BindTableChanges(const TableReference& reference, const std::string& name) {
  const Expression& call = *reference.function;
  if (call.children.size() < 2 || call.children.size() > 3) {
    ThrowAt(MakeError(ErrorClass::WRONG_NUM_ARGS, {{"functionName", "`" + name + "`"},
                                                   {"expectedNum", "[2, 3]"},
                                                   {"actualNum", std::to_string(call.children.size())}}),
            call.position);
  }
  expr::EvalContext eval = Eval();
  auto mismatch = [&](const Expression& argument, const std::string& message) {
    ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                      {{"sqlExpr", "\"" + ExpressionSql(call) + "\""}, {"message", message}}),
            argument.position);
  };
  const Expression& table_argument = *call.children[0];
  expr::Scalar table_value = EvaluateConstant(table_argument, name, eval);
  if (table_value.type()->id() != TypeId::kString || table_value.is_null()) {
    mismatch(table_argument, name + " expects the table " + std::string(name == "table_changes" ? "name" : "path") +
                                 " as a STRING, got " + table_value.type()->ToString());
  }
  std::string table_text(table_value.GetString());

  // A start timestamp rounds up to the next millisecond (commit times are whole milliseconds,
  // and the start selects commits at or after it); an end timestamp rounds down.
  auto bound_of = [&](const Expression& argument, bool round_up) {
    expr::Scalar value = EvaluateConstant(argument, name, eval);
    if (value.is_null()) {
      ThrowAt(MakeError(ErrorClass::DELTA_CDC_READ_NULL_RANGE_BOUNDARY, {}), argument.position);
    }
    TypeId type = value.type()->id();
    if (expr::IsIntegral(*value.type())) return log::ChangeFeedBound::Version(value.GetInt());
    int64_t micros = 0;
    if (type == TypeId::kString) {
      std::optional<int64_t> parsed = expr::ParseSparkTimestamp(value.GetString(), true, eval.Zone());
      if (!parsed) {
        ThrowAt(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                          {{"parameter", "`timestamp`"}, {"functionName", "`" + name + "`"},
                           {"message", "'" + std::string(value.GetString()) + "' is not a valid timestamp"}}),
                argument.position);
      }
      micros = *parsed;
    } else if (type == TypeId::kTimestamp || type == TypeId::kTimestampNtz) {
      micros = value.GetInt();
    } else if (type == TypeId::kDate) {
      micros = value.GetInt() * 86400LL * 1000000LL;
    } else {
      mismatch(argument, name + " expects a version (integer) or a timestamp as a range bound, got " +
                             value.type()->ToString());
    }
    int64_t millis = micros / 1000;
    int64_t rest = micros % 1000;
    if (rest < 0) {
      millis -= 1;
      rest += 1000;
    }
    if (round_up && rest != 0) millis += 1;
    return log::ChangeFeedBound::Timestamp(millis);
  };
  log::ChangeFeedOptions options;
  options.pool = &context.Pool();
  options.start = bound_of(*call.children[1], /*round_up=*/true);
  if (call.children.size() == 3) options.end = bound_of(*call.children[2], /*round_up=*/false);

  TableSource source;
  if (name == "table_changes") {
    std::optional<QualifiedName> table_name = SplitTableName(table_text);
    if (!table_name) {
      ThrowAt(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                        {{"parameter", "`table`"}, {"functionName", "`" + name + "`"},
                         {"message", "'" + table_text + "' is not a valid table name"}}),
              table_argument.position);
    }
    source = session.ResolveTable(*table_name, table_argument.position);
  } else {
    source = session.ResolveTable({"delta", table_text}, table_argument.position);
  }
  if (source.kind == TableSource::Kind::kView) {
    ThrowAt(MakeError(ErrorClass::EXPECT_TABLE_NOT_VIEW, {{"operation", name}, {"viewName", source.display_name}}),
            table_argument.position);
  }
  if (source.kind != TableSource::Kind::kDelta) {
    ThrowAt(MakeError(ErrorClass::DELTA_MISSING_DELTA_TABLE, {{"tableName", source.display_name}}),
            table_argument.position);
  }
  std::shared_ptr<const log::ChangeFeed> feed;
  try {
    feed = log::ChangeFeed::Make(session.fs(), source.location, options);
  } catch (const Error& error) {
    if (error.context().empty()) ThrowAt(error, call.position);
    throw;
  }
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kChangeFeedScan;
  node->change_feed = feed;
  node->table_name = name + "(" + source.display_name + ")";
  const Schema& schema = *feed->schema();
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    const Field& field = schema.field(i);
    node->scan_columns.push_back(static_cast<int>(i));
    node->columns.push_back(MakeLogicalColumn(field.name, field.type, field.nullable));
  }
  return Requalify(node, reference.alias, reference.column_aliases, reference.position);
}

LogicalPtr QueryBinder::Impl::BindGenerate(LogicalPtr child, const Expression& call, bool outer,
                                           const std::string& alias, const std::vector<std::string>& column_aliases) {
  RelationScope scope(child->columns);
  ExpressionBinder binder(scope);
  GeneratorEntry entry = SelectScope::MakeGenerator(call, binder, column_aliases);
  entry.spec.outer = entry.spec.outer || outer;
  auto node = std::make_shared<LogicalNode>();
  node->kind = LogicalKind::kGenerate;
  node->columns = child->columns;
  for (LogicalColumn column : entry.columns) {
    if (!alias.empty()) column.qualifier = {alias};
    column.nullable = column.nullable || entry.spec.outer;
    node->columns.push_back(column);
  }
  node->generate = entry.spec;
  node->children.push_back(child);
  return node;
}

// ---- WHERE and subqueries ----

LogicalPtr QueryBinder::Impl::BindWhere(LogicalPtr plan, const Expression& where, Correlation* correlation,
                                        SelectState& state) {
  std::vector<ExpressionPtr> conjuncts;
  auto where_pointer = std::make_shared<Expression>(where);
  SplitAstConjunction(where_pointer, conjuncts);
  std::vector<expr::ExpressionPtr> predicates;
  for (const ExpressionPtr& conjunct : conjuncts) {
    bool negated = false;
    if (SubqueryPredicate(*conjunct, negated) != nullptr) {
      plan = ApplySubqueryPredicate(plan, *conjunct, negated, state);
      continue;
    }
    if (correlation != nullptr) {
      SelectScope scope(*this, state, plan, Clause::kWhere, &where, correlation);
      ExpressionBinder binder(scope);
      expr::ExpressionPtr bound = binder.BindPredicate(*conjunct, "WHERE");
      int outer_width = static_cast<int>(correlation->outer.size());
      std::vector<int> referenced = expr::ReferencedColumns(*bound);
      bool correlated = !referenced.empty() && referenced.front() < outer_width;
      if (correlated) {
        correlation->pending.push_back(bound);
      } else {
        predicates.push_back(expr::ShiftColumns(bound, -outer_width));
      }
      continue;
    }
    SelectScope scope(*this, state, plan, Clause::kWhere, &where);
    ExpressionBinder binder(scope);
    predicates.push_back(binder.BindPredicate(*conjunct, "WHERE"));
  }
  if (!predicates.empty()) plan = MakeLogicalFilter(plan, expr::JoinConjunction(predicates));
  return plan;
}

LogicalPtr QueryBinder::Impl::ApplySubqueryPredicate(LogicalPtr plan, const Expression& conjunct, bool negated,
                                                     SelectState& state) {
  bool ignored = false;
  const Expression& node = *SubqueryPredicate(conjunct, ignored);
  Correlation correlation;
  correlation.outer = plan->columns;
  correlation.outer_plan = plan;
  LogicalPtr subquery = BindQuery(*node.subquery, &correlation);
  int left_width = static_cast<int>(plan->columns.size());
  std::vector<expr::ExpressionPtr> conditions = correlation.conjuncts;
  bool null_aware = false;
  if (node.kind == ExpressionKind::kIn) {
    const Expression& left_value = *node.children[0];
    bool row_value = left_value.kind == ExpressionKind::kFunction && left_value.name.size() == 1 &&
                     Lower(left_value.name[0]) == "struct" && left_value.children.size() > 1;
    size_t arity = row_value ? left_value.children.size() : 1;
    if (correlation.num_outputs != arity) {
      ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                        {{"sqlExpr", "\"" + ExpressionSql(node) + "\""},
                         {"message", "The number of columns in the left hand side of an IN subquery does not match "
                                     "the number of columns in the output of subquery. Left hand side columns(length: " +
                                         std::to_string(arity) + "), right hand side columns(length: " +
                                         std::to_string(correlation.num_outputs) + ")."}}),
              node.position);
    }
    SelectScope scope(*this, state, plan, Clause::kWhere, &conjunct);
    ExpressionBinder binder(scope);
    std::vector<expr::ExpressionPtr> equalities;
    for (size_t i = 0; i < arity; ++i) {
      expr::ExpressionPtr value = binder.Bind(row_value ? *left_value.children[i] : left_value);
      const LogicalColumn& item = subquery->columns[i];
      try {
        equalities.push_back(expr::Compare(expr::ComparisonOperator::kEqual, value,
                                           expr::Column(left_width + static_cast<int>(i), item.type, item.nullable)));
      } catch (const Error& error) {
        ThrowAt(error, node.position);
      }
    }
    expr::ExpressionPtr equality = expr::JoinConjunction(equalities);
    if (negated && conditions.empty() && arity == 1) {
      null_aware = true;
      conditions.push_back(equality);
    } else if (negated) {
      // NOT IN with correlation: a row is dropped when a correlated row's comparison is TRUE or
      // NULL.
      conditions.push_back(expr::Or(equality, expr::IsNull(equality)));
    } else {
      conditions.push_back(equality);
    }
  }
  LogicalPtr join = MakeLogicalJoin(plan, subquery, negated ? exec::JoinType::kLeftAnti : exec::JoinType::kLeftSemi,
                                    conditions.empty() ? nullptr : expr::JoinConjunction(conditions));
  join->null_aware_anti = null_aware;
  return join;
}

// The value a correlated scalar subquery of the shape SELECT f(aggregates) ... [HAVING p] gives
// over no rows: its aggregates' values on empty input (count 0, most others NULL) put through
// the select expression and HAVING. Nullopt for other shapes.
std::optional<expr::Scalar> QueryBinder::Impl::EmptyGroupValue(const LogicalNode& subquery) {
  if (subquery.kind != LogicalKind::kProject || subquery.children.empty()) return std::nullopt;
  const LogicalNode* below = subquery.children[0].get();
  expr::ExpressionPtr having;
  if (below->kind == LogicalKind::kFilter) {
    having = below->predicate;
    below = below->children[0].get();
  }
  if (below->kind != LogicalKind::kAggregate) return std::nullopt;
  const LogicalNode& aggregate = *below;
  std::vector<VectorPtr> row;
  for (const expr::ExpressionPtr& key : aggregate.expressions) row.push_back(Vector::MakeAllNull(key->type(), 1));
  expr::EvalContext eval = Eval();
  for (const exec::AggregateCall& call : aggregate.aggregates) {
    std::vector<DataTypePtr> argument_types;
    for (const expr::ExpressionPtr& argument : call.arguments) argument_types.push_back(argument->type());
    std::unique_ptr<exec::Accumulator> accumulator = exec::MakeAccumulator(call, argument_types);
    accumulator->Resize(1);
    row.push_back(accumulator->Finalize(1, eval));
  }
  Batch empty_input(OutputSchema(aggregate), std::move(row), 1);
  if (having) {
    expr::Scalar kept = expr::Scalar::FromVector(*expr::Evaluate(*having, empty_input, eval), 0);
    if (kept.is_null() || !kept.GetBool()) return expr::Scalar::Null(subquery.columns[0].type);
  }
  return expr::Scalar::FromVector(*expr::Evaluate(*subquery.expressions[0], empty_input, eval), 0);
}

expr::ExpressionPtr QueryBinder::Impl::BindSubqueryExpression(const Expression& node, LogicalPtr& plan,
                                                              BindingScope& scope) {
  Correlation correlation;
  correlation.outer = plan->columns;
  correlation.outer_plan = plan;
  LogicalPtr subquery = BindQuery(*node.subquery, &correlation);
  bool correlated = !correlation.conjuncts.empty();
  if (node.kind == ExpressionKind::kScalarSubquery) {
    if (correlation.num_outputs != 1) {
      ThrowAt(MakeError(ErrorClass::INVALID_SUBQUERY_COLUMNS,
                        {{"message", "Scalar subquery must return only one column, but got " +
                                         std::to_string(correlation.num_outputs) + "."}}),
              node.position);
    }
    const LogicalColumn item = subquery->columns[0];
    if (!correlated) {
      std::vector<Batch> batches = Run(subquery);
      int64_t rows = 0;
      std::optional<expr::Scalar> value;
      for (const Batch& batch : batches) {
        rows += batch.num_rows();
        if (rows > 1) ThrowAt(MakeError(ErrorClass::SCALAR_SUBQUERY_TOO_MANY_ROWS, {}), node.position);
        if (batch.num_rows() == 1) value = expr::Scalar::FromVector(*batch.column(0), 0);
      }
      return expr::Literal(value ? *value : expr::Scalar::Null(item.type));
    }
    if (!correlation.aggregated) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                        {{"message", "Correlated scalar subqueries must be aggregated: " + ExpressionSql(node)}}),
              node.position);
    }
    int left_width = static_cast<int>(plan->columns.size());
    // Spark's answer for an outer row that no group matches (the "count bug"): the subquery's
    // result over no rows, e.g. 0 for count(*) and 1 for count(*) + 1, not NULL. A marker
    // column, TRUE on every subquery row, tells a matched row from an unmatched one.
    std::optional<expr::Scalar> empty_value = EmptyGroupValue(*subquery);
    bool needs_marker = empty_value.has_value() && !empty_value->is_null();
    // With HAVING, a group that exists but fails it must give NULL, not the empty value: the
    // HAVING condition moves into a column of its own, evaluated after the join.
    bool having_column = false;
    if (needs_marker) {
      std::vector<expr::ExpressionPtr> with_marker;
      std::vector<LogicalColumn> marker_columns = subquery->columns;
      LogicalPtr below = subquery;
      if (subquery->children[0]->kind == LogicalKind::kFilter) {
        with_marker = subquery->expressions;
        with_marker.push_back(subquery->children[0]->predicate);
        marker_columns.push_back(MakeLogicalColumn("having", BooleanType(), true));
        below = subquery->children[0]->children[0];
        having_column = true;
      } else {
        for (size_t i = 0; i < subquery->columns.size(); ++i) {
          const LogicalColumn& column = subquery->columns[i];
          with_marker.push_back(expr::Column(static_cast<int>(i), column.type, column.nullable));
        }
      }
      with_marker.push_back(expr::Literal(expr::Scalar::Boolean(true)));
      marker_columns.push_back(MakeLogicalColumn("matched", BooleanType(), false));
      subquery = MakeLogicalProject(below, std::move(with_marker), std::move(marker_columns));
    }
    LogicalPtr join = MakeLogicalJoin(plan, subquery, exec::JoinType::kLeftOuter,
                                      expr::JoinConjunction(correlation.conjuncts));
    for (size_t i = left_width; i < join->columns.size(); ++i) join->columns[i].hidden = true;
    plan = join;
    expr::ExpressionPtr value = expr::Column(left_width, item.type, true);
    if (needs_marker) {
      int marker = static_cast<int>(join->columns.size()) - 1;
      if (having_column) {
        value = expr::If(expr::Column(marker - 1, BooleanType(), true), value,
                         expr::Literal(expr::Scalar::Null(item.type)));
      }
      value = expr::If(expr::IsNull(expr::Column(marker, BooleanType(), true)),
                       expr::Cast(expr::Literal(*empty_value), item.type), value);
    }
    return value;
  }
  if (correlated) {
    // [NOT] EXISTS / IN with correlation inside a larger expression: left joins against the
    // distinct correlation keys of the subquery's rows plus a marker column, which is non-NULL
    // exactly where a matching row exists.
    const int left_width = static_cast<int>(plan->columns.size());
    const LogicalPtr outer = plan;
    // The marker of whether `rows` (the subquery's columns) hold a row for which `conjuncts`
    // (over outer ++ those columns) hold, joined onto `plan`.
    auto existence_marker = [&](const std::vector<expr::ExpressionPtr>& conjuncts, LogicalPtr rows) {
      std::vector<expr::ExpressionPtr> outer_sides, inner_sides;
      bool all_equalities = true;
      for (const expr::ExpressionPtr& conjunct : conjuncts) {
        bool found = false;
        if (conjunct->kind() == expr::ExpressionKind::kComparison &&
            conjunct->comparison() == expr::ComparisonOperator::kEqual) {
          for (int side = 0; side < 2 && !found; ++side) {
            std::vector<int> a = expr::ReferencedColumns(*conjunct->child(side));
            std::vector<int> b = expr::ReferencedColumns(*conjunct->child(1 - side));
            if (!a.empty() && a.back() < left_width && !b.empty() && b.front() >= left_width) {
              outer_sides.push_back(conjunct->child(side));
              inner_sides.push_back(expr::ShiftColumns(conjunct->child(1 - side), -left_width));
              found = true;
            }
          }
        }
        all_equalities = all_equalities && found;
      }
      bool null_safe = false;
      if (!all_equalities) {
        // Another correlation (t2.c1 > t1.c1): the rows joined under it with the distinct
        // values of the outer columns it reads; those values are then the keys.
        std::vector<int> domain_columns;
        LogicalPtr domain = CorrelationDomain(outer, conjuncts, left_width, domain_columns);
        int inner_width = static_cast<int>(rows->columns.size());
        std::vector<expr::ExpressionPtr> conditions;
        for (const expr::ExpressionPtr& conjunct : conjuncts) {
          conditions.push_back(OntoDomain(conjunct, left_width, inner_width, domain_columns));
        }
        rows = MakeLogicalJoin(rows, domain, exec::JoinType::kInner, expr::JoinConjunction(conditions));
        outer_sides.clear();
        inner_sides.clear();
        for (size_t k = 0; k < domain_columns.size(); ++k) {
          const LogicalColumn& column = outer->columns[domain_columns[k]];
          outer_sides.push_back(expr::Column(domain_columns[k], column.type, column.nullable));
          const LogicalColumn& value = rows->columns[inner_width + k];
          inner_sides.push_back(expr::Column(inner_width + static_cast<int>(k), value.type, value.nullable));
        }
        null_safe = true;
      }
      std::vector<expr::ExpressionPtr> key_expressions = inner_sides;
      std::vector<LogicalColumn> key_columns;
      for (const expr::ExpressionPtr& key : inner_sides) {
        key_columns.push_back(MakeLogicalColumn("exists_key", key->type(), key->nullable()));
      }
      key_expressions.push_back(expr::Literal(expr::Scalar::Boolean(true)));
      key_columns.push_back(MakeLogicalColumn("exists", BooleanType(), false));
      LogicalPtr keys = MakeLogicalDistinct(MakeLogicalProject(rows, key_expressions, key_columns));
      int plan_width = static_cast<int>(plan->columns.size());
      std::vector<expr::ExpressionPtr> conditions;
      for (size_t j = 0; j < outer_sides.size(); ++j) {
        conditions.push_back(expr::Compare(
            null_safe ? expr::ComparisonOperator::kNullSafeEqual : expr::ComparisonOperator::kEqual, outer_sides[j],
            expr::Column(plan_width + static_cast<int>(j), inner_sides[j]->type(), inner_sides[j]->nullable())));
      }
      LogicalPtr join = MakeLogicalJoin(plan, keys, exec::JoinType::kLeftOuter, expr::JoinConjunction(conditions));
      for (size_t i = plan_width; i < join->columns.size(); ++i) join->columns[i].hidden = true;
      plan = join;
      return expr::Column(plan_width + static_cast<int>(outer_sides.size()), BooleanType(), true);
    };
    if (node.kind != ExpressionKind::kIn) return expr::IsNotNull(existence_marker(correlation.conjuncts, subquery));
    if (correlation.num_outputs != 1) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                        {{"message", "Correlated IN subqueries of several columns: " + ExpressionSql(node)}}),
              node.position);
    }
    ExpressionBinder binder(scope);
    expr::ExpressionPtr value = binder.Bind(*node.children[0]);
    const LogicalColumn& item = subquery->columns[0];
    expr::ExpressionPtr item_column = expr::Column(left_width, item.type, item.nullable);
    std::vector<expr::ExpressionPtr> matching = correlation.conjuncts;
    matching.push_back(expr::Compare(expr::ComparisonOperator::kEqual, value, item_column));
    // IN's three values: TRUE on a match; otherwise FALSE over no correlated rows, NULL when
    // the value or one of the rows' values is NULL, else FALSE.
    expr::ExpressionPtr matched = existence_marker(matching, subquery);
    expr::ExpressionPtr any_row = existence_marker(correlation.conjuncts, subquery);
    expr::ExpressionPtr null_row = existence_marker(
        correlation.conjuncts, MakeLogicalFilter(subquery, expr::IsNull(expr::Column(0, item.type, item.nullable))));
    expr::ExpressionPtr null_boolean = expr::Literal(expr::Scalar::Null(BooleanType()));
    expr::ExpressionPtr in = expr::Case(
        {{expr::IsNotNull(matched), expr::Literal(expr::Scalar::Boolean(true))},
         {expr::IsNull(any_row), expr::Literal(expr::Scalar::Boolean(false))},
         {expr::Or(expr::IsNull(value), expr::IsNotNull(null_row)), null_boolean}},
        expr::Literal(expr::Scalar::Boolean(false)));
    return node.negated ? expr::Not(in) : in;
  }
  std::vector<Batch> batches = Run(subquery);
  if (node.kind == ExpressionKind::kExists) {
    bool any = false;
    for (const Batch& batch : batches) any = any || batch.num_rows() > 0;
    return expr::Literal(expr::Scalar::Boolean(any));
  }
  // value [NOT] IN (uncorrelated subquery) outside a WHERE conjunct: the subquery's values as a
  // literal list.
  if (correlation.num_outputs != 1) {
    ThrowAt(MakeError(ErrorClass::DATATYPE_MISMATCH,
                      {{"sqlExpr", "\"" + ExpressionSql(node) + "\""},
                       {"message", "The number of columns in the left hand side of an IN subquery does not match the "
                                   "number of columns in the output of subquery."}}),
            node.position);
  }
  ExpressionBinder binder(scope);
  expr::ExpressionPtr value = binder.Bind(*node.children[0]);
  std::vector<expr::ExpressionPtr> list;
  for (const Batch& batch : batches) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      list.push_back(expr::Literal(expr::Scalar::FromVector(*batch.column(0), row)));
    }
  }
  expr::ExpressionPtr result =
      list.empty() ? expr::Literal(expr::Scalar::Boolean(false)) : expr::In(value, std::move(list));
  return node.negated ? expr::Not(result) : result;
}

// ---- SELECT ----

namespace {

// The value of grouping(col) or grouping_id(...) over the aggregate's grouping id column `gid`:
// bit (n-1-i) of the id is set when key i is not in a row's grouping set. Throws
// GROUPING_COLUMN_MISMATCH / GROUPING_ID_COLUMN_MISMATCH for arguments that are not the keys.
expr::ExpressionPtr GroupingValue(const GroupingCall& call, const expr::ExpressionPtr& gid,
                                  const std::vector<expr::ExpressionPtr>& keys,
                                  const std::vector<std::string>& key_names, size_t num_keys) {
  std::string key_list;
  for (size_t k = 0; k < num_keys; ++k) key_list += (k > 0 ? "," : "") + key_names[k];
  if (call.is_id) {
    bool same = call.arguments.empty() || call.arguments.size() == num_keys;
    for (size_t k = 0; same && k < call.arguments.size(); ++k) same = SameExpression(call.arguments[k], keys[k]);
    if (!same) {
      std::string arguments;
      for (size_t a = 0; a < call.call->children.size(); ++a) {
        arguments += (a > 0 ? "," : "") + ExpressionSql(*call.call->children[a]);
      }
      ThrowAt(MakeError(ErrorClass::GROUPING_ID_COLUMN_MISMATCH,
                        {{"groupingIdColumn", arguments}, {"groupByColumns", key_list}}),
              call.call->position);
    }
    return gid;
  }
  for (size_t k = 0; k < num_keys; ++k) {
    if (!SameExpression(call.arguments[0], keys[k])) continue;
    expr::ExpressionPtr shifted = expr::Shift(expr::ShiftOperator::kRight, gid,
                                              expr::Literal(expr::Scalar::Integer(static_cast<int32_t>(num_keys - 1 - k))));
    expr::ExpressionPtr bit = expr::Bitwise(expr::BitwiseOperator::kAnd, shifted, expr::Literal(expr::Scalar::Long(1)));
    return expr::Cast(bit, ByteType());
  }
  ThrowAt(MakeError(ErrorClass::GROUPING_COLUMN_MISMATCH,
                    {{"grouping", ExpressionSql(*call.call->children[0])}, {"groupingColumns", key_list}}),
          call.call->position);
}

}  // namespace

// Spark's Expand for grouping sets: a projection computes every key once, then each input row is
// copied once per set with the keys outside the set NULL, followed by the set's grouping id (and
// its position among the sets when a set repeats). Keys from `num_user_keys` on (a correlated
// subquery's) are in every set and not in the id. Replaces `key_columns` by the expanded key
// columns, nullable where some set leaves the key out.
LogicalPtr QueryBinder::Impl::BindGroupingSets(const LogicalPtr& input, const std::vector<expr::ExpressionPtr>& keys,
                                               size_t num_user_keys, const std::vector<std::vector<size_t>>& sets,
                                               std::vector<LogicalColumn>& key_columns) {
  size_t width = input->columns.size();
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<LogicalColumn> columns = input->columns;
  for (size_t i = 0; i < width; ++i) {
    expressions.push_back(expr::Column(static_cast<int>(i), input->columns[i].type, input->columns[i].nullable));
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    expressions.push_back(keys[k]);
    columns.push_back(MakeLogicalColumn(key_columns[k].name, keys[k]->type(), keys[k]->nullable()));
  }
  LogicalPtr keyed = MakeLogicalProject(input, std::move(expressions), std::move(columns));

  std::vector<std::vector<bool>> members;
  bool repeated = false;
  for (const std::vector<size_t>& set : sets) {
    std::vector<bool> member(keys.size(), false);
    for (size_t k : set) member[k] = true;
    for (size_t k = num_user_keys; k < keys.size(); ++k) member[k] = true;
    repeated = repeated || std::find(members.begin(), members.end(), member) != members.end();
    members.push_back(std::move(member));
  }
  auto expand = std::make_shared<LogicalNode>();
  expand->kind = LogicalKind::kExpand;
  expand->columns = input->columns;
  for (size_t k = 0; k < keys.size(); ++k) {
    bool always = std::all_of(members.begin(), members.end(), [&](const std::vector<bool>& m) { return m[k]; });
    expand->columns.push_back(MakeLogicalColumn(key_columns[k].name, keys[k]->type(), keys[k]->nullable() || !always,
                                                key_columns[k].qualifier));
    key_columns[k] = expand->columns.back();
  }
  expand->columns.push_back(MakeLogicalColumn("spark_grouping_id", LongType(), false));
  expand->columns.back().hidden = true;
  if (repeated) {
    expand->columns.push_back(MakeLogicalColumn("_gen_grouping_pos", IntegerType(), false));
    expand->columns.back().hidden = true;
  }
  for (size_t s = 0; s < members.size(); ++s) {
    std::vector<expr::ExpressionPtr> projection;
    for (size_t i = 0; i < width; ++i) {
      projection.push_back(expr::Column(static_cast<int>(i), input->columns[i].type, input->columns[i].nullable));
    }
    uint64_t id = 0;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (members[s][k]) {
        projection.push_back(expr::Column(static_cast<int>(width + k), keys[k]->type(), keys[k]->nullable()));
      } else {
        projection.push_back(expr::Literal(expr::Scalar::Null(keys[k]->type())));
        id |= uint64_t{1} << (num_user_keys - 1 - k);
      }
    }
    projection.push_back(expr::Literal(expr::Scalar::Long(static_cast<int64_t>(id))));
    if (repeated) projection.push_back(expr::Literal(expr::Scalar::Integer(static_cast<int32_t>(s))));
    expand->projections.push_back(std::move(projection));
  }
  expand->children.push_back(keyed);
  return expand;
}

LogicalPtr QueryBinder::Impl::BindSelect(const Query& query, Correlation* correlation) {
  SelectState state;
  state.query = &query;
  LogicalPtr plan = BindFrom(query.from);
  size_t from_width = plan->columns.size();
  if (query.where) plan = BindWhere(plan, *query.where, correlation, state);

  // Select items, bound over the input columns with placeholders for aggregates, windows and
  // generators.
  struct Item {
    expr::ExpressionPtr bound;
    LogicalColumn column;
    const Expression* ast = nullptr;
  };
  std::vector<Item> items;
  std::vector<ExpressionPtr> expanded_items;  // select items with star arguments spelled out
  for (const SelectItem& select_item : query.select_list) {
    const Expression* item_expression = select_item.expression.get();
    if (ExpressionPtr expanded = ExpandStarArguments(*item_expression, plan->columns, from_width)) {
      expanded_items.push_back(expanded);
      item_expression = expanded.get();
    }
    const Expression& expression = *item_expression;
    if (expression.kind == ExpressionKind::kStar) {
      bool matched = false;
      std::vector<Item> star_items;
      for (size_t i = 0; i < plan->columns.size() && i < from_width; ++i) {
        const LogicalColumn& column = plan->columns[i];
        // `t.*` also lists t's key column that a USING join merged away (never `_metadata`).
        if ((column.hidden && expression.name.empty()) || column.file_metadata) continue;
        if (!expression.name.empty()) {
          size_t parts = expression.name.size();
          if (parts > column.qualifier.size()) continue;
          bool same = true;
          for (size_t p = 0; p < parts; ++p) {
            same = same && NamesEqual(column.qualifier[column.qualifier.size() - parts + p], expression.name[p]);
          }
          if (!same) continue;
        }
        bool excluded = false;
        for (const QualifiedName& except : expression.except_columns) {
          if (NamesEqual(except.back(), column.name)) excluded = true;
        }
        matched = true;
        if (excluded) continue;
        star_items.push_back(Item{expr::Column(static_cast<int>(i), column.type, column.nullable), column, &expression});
      }
      bool merged_key = std::any_of(star_items.begin(), star_items.end(), [](const Item& item) { return item.column.hidden; });
      if (merged_key) {
        // A relation's columns in their own order (a USING join moved its keys to the front).
        std::stable_sort(star_items.begin(), star_items.end(),
                         [](const Item& a, const Item& b) { return a.column.id < b.column.id; });
      }
      items.insert(items.end(), star_items.begin(), star_items.end());
      if (expression.name.empty() && query.from.empty()) {
        ThrowAt(MakeError(ErrorClass::INVALID_USAGE_OF_STAR_OR_REGEX,
                          {{"elem", "'*'"}, {"prettyName", "a SELECT list without FROM"}}),
                expression.position);
      }
      if (!expression.name.empty() && !matched) {
        // Not a relation: `s.*` of a STRUCT column (or field) `s` lists its fields, as Spark's.
        auto whole = std::make_shared<Expression>();
        whole->kind = ExpressionKind::kColumn;
        whole->position = expression.position;
        whole->name = expression.name;
        expr::ExpressionPtr bound_whole;
        try {
          SelectScope scope(*this, state, plan, Clause::kSelect);
          ExpressionBinder binder(scope);
          bound_whole = binder.Bind(*whole);
        } catch (const Error&) {
          // Neither a relation nor a column: the star's own error below.
        }
        if (bound_whole != nullptr && bound_whole->type()->id() == TypeId::kStruct) {
          for (const Field& field : bound_whole->type()->fields()) {
            bool excluded = false;
            for (const QualifiedName& except : expression.except_columns) {
              if (NamesEqual(except.back(), field.name)) excluded = true;
            }
            if (excluded) continue;
            auto access = std::make_shared<Expression>();
            access->kind = ExpressionKind::kFieldAccess;
            access->position = expression.position;
            access->children = {whole};
            access->name = {field.name};
            expanded_items.push_back(access);  // keeps the item's AST alive
            SelectScope scope(*this, state, plan, Clause::kSelect);
            ExpressionBinder binder(scope);
            expr::ExpressionPtr bound = binder.Bind(*access);
            items.push_back(Item{bound, MakeLogicalColumn(field.name, bound->type(), bound->nullable()),
                                 access.get()});
          }
          continue;
        }
        std::string input;
        for (size_t i = 0; i < from_width; ++i) {
          if (plan->columns[i].hidden) continue;
          input += (input.empty() ? "" : ", ") + std::string("`") + plan->columns[i].name + "`";
        }
        ThrowAt(MakeError(ErrorClass::CANNOT_RESOLVE_STAR_EXPAND,
                          {{"targetString", QuoteName(expression.name)}, {"columns", input}}),
                expression.position);
      }
      continue;
    }
    size_t generators_before = state.generators.size();
    SelectScope scope(*this, state, plan, Clause::kSelect);
    ExpressionBinder binder(scope);
    expr::ExpressionPtr bound = binder.Bind(expression);
    if (state.generators.size() > generators_before) {
      GeneratorEntry& generator = state.generators.back();
      bool direct = bound->kind() == expr::ExpressionKind::kColumn && bound->column_index() >= kGeneratorBase;
      if (!direct) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_GENERATOR,
                          {{"message", "nested in expressions \"" + ExpressionSql(expression) + "\""}}),
                expression.position);
      }
      std::vector<std::string> aliases = select_item.column_aliases;
      if (aliases.empty() && !select_item.alias.empty()) aliases = {select_item.alias};
      if (!aliases.empty() && aliases.size() != generator.columns.size()) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_GENERATOR,
                          {{"message", "The number of aliases supplied in the AS clause does not match the number of "
                                       "columns output by the UDTF: expected " +
                                           std::to_string(generator.columns.size()) + " aliases but got " +
                                           std::to_string(aliases.size())}}),
                expression.position);
      }
      int base = kGeneratorBase + static_cast<int>(state.generators.size() - 1) * kGeneratorStride;
      for (size_t c = 0; c < generator.columns.size(); ++c) {
        if (!aliases.empty()) {
          generator.columns[c].name = aliases[c];
          generator.spec.names[c] = aliases[c];
        }
        const LogicalColumn& column = generator.columns[c];
        items.push_back(Item{expr::Column(base + static_cast<int>(c), column.type, column.nullable), column, &expression});
      }
      continue;
    }
    LogicalColumn column;
    if (!select_item.alias.empty()) {
      column = MakeLogicalColumn(select_item.alias, bound->type(), bound->nullable());
      state.aliases.emplace_back(select_item.alias, bound);
    } else if (bound->kind() == expr::ExpressionKind::kColumn && bound->column_index() < kAggregateBase &&
               (expression.kind == ExpressionKind::kColumn || expression.niladic_keyword)) {
      column = plan->columns[bound->column_index()];
    } else {
      column = MakeLogicalColumn(AutoColumnName(expression), bound->type(), bound->nullable());
    }
    items.push_back(Item{bound, column, &expression});
  }

  expr::ExpressionPtr having;
  if (query.having) {
    SelectScope scope(*this, state, plan, Clause::kHaving);
    ExpressionBinder binder(scope);
    having = binder.BindPredicate(*query.having, "HAVING");
  }
  expr::ExpressionPtr qualify;
  if (query.qualify) {
    SelectScope scope(*this, state, plan, Clause::kQualify);
    ExpressionBinder binder(scope);
    qualify = binder.BindPredicate(*query.qualify, "QUALIFY");
  }

  // ORDER BY: select outputs by name or ordinal, else expressions over the input.
  struct OrderKey {
    int item = -1;
    expr::ExpressionPtr bound;
    bool ascending = true;
    bool nulls_first = true;
  };
  std::vector<OrderKey> order_keys;
  bool apply_order = correlation == nullptr || correlation->pending.empty();
  if (apply_order) {
    for (const OrderItem& order_item : query.order_by) {
      OrderKey key;
      key.ascending = order_item.direction != SortDirection::kDescending;
      key.nulls_first = order_item.null_order == NullOrder::kDefault ? key.ascending
                                                                     : order_item.null_order == NullOrder::kNullsFirst;
      const Expression& expression = *order_item.expression;
      if (IsIntegerLiteral(expression)) {
        int64_t position = std::stoll(expression.text);
        if (position < 1 || position > static_cast<int64_t>(items.size())) {
          ThrowAt(MakeError(ErrorClass::ORDER_BY_POS_OUT_OF_RANGE,
                            {{"index", expression.text}, {"size", std::to_string(items.size())}}),
                  expression.position);
        }
        key.item = static_cast<int>(position - 1);
      } else if (expression.kind == ExpressionKind::kColumn && expression.name.size() == 1) {
        for (size_t i = 0; i < items.size(); ++i) {
          if (NamesEqual(items[i].column.name, expression.name[0])) {
            key.item = static_cast<int>(i);
            break;
          }
        }
      }
      if (key.item < 0) {
        SelectScope scope(*this, state, plan, Clause::kOrderBy);
        ExpressionBinder binder(scope);
        key.bound = binder.Bind(expression);
      }
      order_keys.push_back(key);
    }
  }

  // GROUP BY.
  std::vector<expr::ExpressionPtr> group_keys;
  std::vector<std::string> group_names;
  auto has_aggregate = [](const expr::ExpressionPtr& e) { return ContainsPlaceholder(*e, kAggregateBase, kWindowBase); };
  auto has_window = [](const expr::ExpressionPtr& e) { return ContainsPlaceholder(*e, kWindowBase, std::numeric_limits<int>::max()); };
  // Binds one GROUP BY expression: an ordinal of the select list, a select alias, or an
  // expression over the input.
  auto bind_group_key = [&](const Expression& expression) -> std::pair<expr::ExpressionPtr, std::string> {
    if (IsIntegerLiteral(expression)) {
      int64_t position = std::stoll(expression.text);
      if (position < 1 || position > static_cast<int64_t>(items.size())) {
        ThrowAt(MakeError(ErrorClass::GROUP_BY_POS_OUT_OF_RANGE,
                          {{"index", expression.text}, {"size", std::to_string(items.size())}}),
                expression.position);
      }
      const Item& item = items[position - 1];
      if (has_aggregate(item.bound) || has_window(item.bound)) {
        ThrowAt(MakeError(ErrorClass::GROUP_BY_AGGREGATE,
                          {{"sqlExpr", item.ast != nullptr ? ExpressionSql(*item.ast) : item.column.name}}),
                expression.position);
      }
      return {item.bound, item.column.name};
    }
    if (expression.kind == ExpressionKind::kColumn && expression.name.size() == 1 &&
        !FindColumn(plan->columns, expression.name, expression.position)) {
      for (const auto& [alias, bound] : state.aliases) {
        if (!NamesEqual(alias, expression.name[0])) continue;
        if (has_aggregate(bound)) {
          ThrowAt(MakeError(ErrorClass::GROUP_BY_AGGREGATE, {{"sqlExpr", alias}}), expression.position);
        }
        return {bound, alias};
      }
    }
    SelectScope scope(*this, state, plan, Clause::kGroupBy);
    ExpressionBinder binder(scope);
    return {binder.Bind(expression), AutoColumnName(expression)};
  };
  for (const ExpressionPtr& group : query.group_by) {
    auto [bound, name] = bind_group_key(*group);
    group_keys.push_back(bound);
    group_names.push_back(name);
  }
  // GROUPING SETS, ROLLUP and CUBE: the keys are every distinct expression of the clause in the
  // order written (grouping_id's bits follow it, the first key the most significant), and the
  // grouping sets are the cross product of the elements' sets, each a list of key indexes.
  std::vector<std::vector<size_t>> grouping_sets;
  bool has_grouping_sets = !query.grouping_elements.empty();
  if (has_grouping_sets) {
    auto key_of = [&](const Expression& expression) -> size_t {
      auto [bound, name] = bind_group_key(expression);
      for (size_t k = 0; k < group_keys.size(); ++k) {
        if (SameExpression(group_keys[k], bound)) return k;
      }
      group_keys.push_back(bound);
      group_names.push_back(name);
      return group_keys.size() - 1;
    };
    grouping_sets = {{}};
    for (const GroupingElement& element : query.grouping_elements) {
      std::vector<std::vector<size_t>> element_sets;
      if (!element.analytics) {
        size_t key = key_of(*element.expression);
        // Hive's `GROUP BY a, b GROUPING SETS (...)`: the leading expressions are keys only.
        if (query.grouping_sets_legacy) continue;
        element_sets.push_back({key});
      } else {
        for (const std::vector<ExpressionPtr>& set : ExpandGroupingAnalytics(*element.analytics)) {
          std::vector<size_t> keys;
          for (const ExpressionPtr& expression : set) keys.push_back(key_of(*expression));
          element_sets.push_back(std::move(keys));
        }
      }
      if (grouping_sets.size() * element_sets.size() > kMaxGroupingSets) {
        ThrowAt(MakeError(ErrorClass::GROUPING_SIZE_LIMIT_EXCEEDED, {{"maxSize", std::to_string(kMaxGroupingSets)}}),
                element.analytics ? element.analytics->position : element.expression->position);
      }
      std::vector<std::vector<size_t>> product;
      for (const std::vector<size_t>& left : grouping_sets) {
        for (const std::vector<size_t>& right : element_sets) {
          product.push_back(left);
          product.back().insert(product.back().end(), right.begin(), right.end());
        }
      }
      grouping_sets = std::move(product);
    }
    if (group_keys.size() > kMaxGroupingColumns) {
      ThrowAt(MakeError(ErrorClass::GROUPING_SIZE_LIMIT_EXCEEDED, {{"maxSize", std::to_string(kMaxGroupingColumns)}}),
              query.grouping_elements[0].analytics ? query.grouping_elements[0].analytics->position
                                                   : query.grouping_elements[0].expression->position);
    }
  }
  if (!state.groupings.empty() && !has_grouping_sets) {
    ThrowAt(MakeError(ErrorClass::UNSUPPORTED_GROUPING_EXPRESSION, {}), state.groupings[0].call->position);
  }
  if (query.group_by_all) {
    for (const Item& item : items) {
      if (has_aggregate(item.bound) || has_window(item.bound)) continue;
      group_keys.push_back(item.bound);
      group_names.push_back(item.column.name);
    }
  }
  // A correlated subquery of the SELECT list or HAVING is exact per group only if its
  // correlation reads grouping columns; another outer column is not aggregated, as in Spark.
  for (const SelectState::GroupedSubquery& grouped_subquery : state.grouped_subqueries) {
    for (int column : grouped_subquery.outer_columns) {
      bool is_key = false;
      for (const expr::ExpressionPtr& key : group_keys) {
        is_key = is_key || (key->kind() == expr::ExpressionKind::kColumn && key->column_index() == column);
      }
      if (is_key) continue;
      const std::string name = plan->columns[static_cast<size_t>(column)].name;
      ThrowAt(MakeError(ErrorClass::MISSING_AGGREGATION,
                        {{"expression", "\"" + name + "\""}, {"expressionAnyValue", "\"any_value(" + name + ")\""}}),
              grouped_subquery.node->position);
    }
  }
  bool aggregated = !group_keys.empty() || query.group_by_all || has_grouping_sets || !state.aggregates.empty() ||
                    having != nullptr;
  size_t num_user_keys = group_keys.size();

  // Correlated subqueries: conjuncts over outer ++ FROM columns.
  std::vector<expr::ExpressionPtr> correlation_inner_keys;
  std::vector<expr::ExpressionPtr> correlation_outer_sides;
  // Keys that match with <=>: domain values (a NULL outer value is a value of the domain).
  bool correlation_null_safe = false;
  int outer_width = correlation != nullptr ? static_cast<int>(correlation->outer.size()) : 0;
  auto outer_equals_inner = [&](const expr::ExpressionPtr& conjunct) {
    if (conjunct->kind() != expr::ExpressionKind::kComparison ||
        conjunct->comparison() != expr::ComparisonOperator::kEqual) {
      return false;
    }
    for (int side = 0; side < 2; ++side) {
      std::vector<int> a = expr::ReferencedColumns(*conjunct->child(side));
      std::vector<int> b = expr::ReferencedColumns(*conjunct->child(1 - side));
      if (!a.empty() && a.back() < outer_width && (b.empty() || b.front() >= outer_width)) return true;
    }
    return false;
  };
  if (correlation != nullptr && !correlation->pending.empty() && aggregated &&
      !std::all_of(correlation->pending.begin(), correlation->pending.end(), outer_equals_inner)) {
    // A correlation beyond outer = inner equalities (t2.c1 > t1.c1): the subquery's rows joined
    // with the distinct values of the outer columns the correlation reads, under the
    // correlation itself, then aggregated per domain value, which becomes the key the outer
    // query joins on.
    if (correlation->outer_plan == nullptr) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                        {{"message", "Correlated column is not allowed in a non-equality predicate of an "
                                     "aggregated subquery"}}),
              query.where->position);
    }
    std::vector<int> domain_columns;
    LogicalPtr domain = CorrelationDomain(correlation->outer_plan, correlation->pending, outer_width, domain_columns);
    int inner_width = static_cast<int>(plan->columns.size());
    std::vector<expr::ExpressionPtr> conditions;
    for (const expr::ExpressionPtr& conjunct : correlation->pending) {
      conditions.push_back(OntoDomain(conjunct, outer_width, inner_width, domain_columns));
    }
    plan = MakeLogicalJoin(plan, domain, exec::JoinType::kInner, expr::JoinConjunction(conditions));
    for (size_t k = 0; k < domain_columns.size(); ++k) {
      const LogicalColumn& column = plan->columns[inner_width + k];
      correlation_inner_keys.push_back(expr::Column(inner_width + static_cast<int>(k), column.type, column.nullable));
      const LogicalColumn& outer = correlation->outer[domain_columns[k]];
      correlation_outer_sides.push_back(expr::Column(domain_columns[k], outer.type, outer.nullable));
    }
    correlation_null_safe = true;
  } else if (correlation != nullptr && !correlation->pending.empty() && aggregated) {
    for (const expr::ExpressionPtr& conjunct : correlation->pending) {
      bool supported = conjunct->kind() == expr::ExpressionKind::kComparison &&
                       conjunct->comparison() == expr::ComparisonOperator::kEqual;
      expr::ExpressionPtr outer_side, inner_side;
      if (supported) {
        for (int side = 0; side < 2 && !outer_side; ++side) {
          const expr::ExpressionPtr& a = conjunct->child(side);
          const expr::ExpressionPtr& b = conjunct->child(1 - side);
          std::vector<int> a_columns = expr::ReferencedColumns(*a), b_columns = expr::ReferencedColumns(*b);
          bool a_outer = !a_columns.empty() && a_columns.back() < outer_width;
          bool b_inner = b_columns.empty() || b_columns.front() >= outer_width;
          if (a_outer && b_inner) {
            outer_side = a;
            inner_side = expr::ShiftColumns(b, -outer_width);
          }
        }
      }
      SILT_CHECK(outer_side != nullptr, "a correlation equality without an outer side");
      correlation_outer_sides.push_back(outer_side);
      correlation_inner_keys.push_back(inner_side);
    }
  }

  // The space the select items are in after each step; `map` rewrites an input-space
  // expression into the current space.
  std::function<expr::ExpressionPtr(const expr::ExpressionPtr&)> to_current = [](const expr::ExpressionPtr& e) {
    return e;
  };
  size_t num_group_keys = group_keys.size();
  if (aggregated) {
    for (const expr::ExpressionPtr& key : correlation_inner_keys) {
      group_keys.push_back(key);
      group_names.push_back("correlation_key");
    }
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kAggregate;
    node->expressions = group_keys;
    node->aggregates = state.aggregates;
    for (size_t k = 0; k < group_keys.size(); ++k) {
      const expr::ExpressionPtr& key = group_keys[k];
      if (key->kind() == expr::ExpressionKind::kColumn && key->column_index() < static_cast<int>(plan->columns.size())) {
        node->columns.push_back(plan->columns[key->column_index()]);
        node->columns.back().nullable = key->nullable();
      } else {
        node->columns.push_back(MakeLogicalColumn(group_names[k], key->type(), key->nullable()));
      }
    }
    std::vector<LogicalColumn> input_columns = plan->columns;
    std::vector<expr::ExpressionPtr> grouping_values;
    // `GROUP BY GROUPING SETS (())` (or `ROLLUP ()`, `CUBE ()`) alone is a grand total: an
    // aggregate without keys, one row even over no input.
    bool grand_total = has_grouping_sets && group_keys.empty() && grouping_sets.size() == 1;
    if (grand_total) {
      expr::ExpressionPtr gid = expr::Literal(expr::Scalar::Long(0));
      for (const GroupingCall& call : state.groupings) {
        grouping_values.push_back(GroupingValue(call, gid, group_keys, group_names, num_user_keys));
      }
      node->children.push_back(plan);
    } else if (has_grouping_sets) {
      node->children.push_back(BindGroupingSets(plan, group_keys, num_user_keys, grouping_sets, node->columns));
      // The aggregate groups by the expanded keys and the grouping id (and the set's position
      // when a set repeats, so that each copy stays a group of its own).
      const LogicalNode& expand = *node->children[0];
      node->expressions.clear();
      for (size_t k = plan->columns.size(); k < expand.columns.size(); ++k) {
        node->expressions.push_back(expr::Column(static_cast<int>(k), expand.columns[k].type, expand.columns[k].nullable));
      }
      for (size_t k = group_keys.size(); k < node->expressions.size(); ++k) {
        node->columns.push_back(expand.columns[plan->columns.size() + k]);
      }
      expr::ExpressionPtr gid = expr::Column(static_cast<int>(group_keys.size()), LongType(), false);
      for (const GroupingCall& call : state.groupings) {
        grouping_values.push_back(GroupingValue(call, gid, group_keys, group_names, num_user_keys));
      }
    } else {
      node->children.push_back(plan);
    }
    for (size_t a = 0; a < state.aggregates.size(); ++a) {
      node->columns.push_back(MakeLogicalColumn(state.aggregate_names[a], state.aggregates[a].result_type,
                                                state.aggregates[a].nullable));
    }
    plan = node;
    size_t key_count = node->expressions.size();
    auto keys = group_keys;
    std::vector<LogicalColumn> key_columns(node->columns.begin(), node->columns.begin() + group_keys.size());
    auto uses = state.column_uses;
    to_current = [keys, key_columns, key_count, input_columns, uses, grouping_values](const expr::ExpressionPtr& expression) {
      return RewriteTopDown(expression, [&](const expr::ExpressionPtr& e) -> expr::ExpressionPtr {
        for (size_t k = 0; k < keys.size(); ++k) {
          if (SameExpression(e, keys[k])) return expr::Column(static_cast<int>(k), keys[k]->type(), key_columns[k].nullable);
        }
        if (e->kind() != expr::ExpressionKind::kColumn) return nullptr;
        int index = e->column_index();
        if (index >= kGroupingBase) return grouping_values[index - kGroupingBase];
        if (index >= kWindowBase) return e;
        if (index >= kAggregateBase) {
          return expr::Column(static_cast<int>(key_count) + index - kAggregateBase, e->type(), e->nullable());
        }
        std::string name = index < static_cast<int>(input_columns.size()) ? input_columns[index].name : "?";
        Error error = MakeError(ErrorClass::MISSING_AGGREGATION,
                                {{"expression", "\"" + name + "\""}, {"expressionAnyValue", "\"any_value(" + name + ")\""}});
        auto use = uses.find(index);
        if (use != uses.end()) throw error.WithContext(FormatPosition(use->second.second));
        throw error;
      });
    };
    if (having) plan = MakeLogicalFilter(plan, to_current(having));
  }

  // Windows: a project computing their inputs, then one Window per (partition, order).
  std::map<int, int> window_columns;
  if (!state.windows.empty()) {
    size_t base_width = plan->columns.size();
    std::vector<expr::ExpressionPtr> expressions;
    std::vector<LogicalColumn> columns;
    for (size_t i = 0; i < base_width; ++i) {
      const LogicalColumn& column = plan->columns[i];
      expressions.push_back(expr::Column(static_cast<int>(i), column.type, column.nullable));
      columns.push_back(column);
    }
    auto column_for = [&](const expr::ExpressionPtr& expression) -> int {
      expr::ExpressionPtr current = to_current(expression);
      if (ContainsPlaceholder(*current, kWindowBase, std::numeric_limits<int>::max())) {
        ThrowAt(MakeError(ErrorClass::UNSUPPORTED_FEATURE, {{"message", "window functions nested in window functions"}}),
                query.position);
      }
      for (size_t i = 0; i < expressions.size(); ++i) {
        if (SameExpression(expressions[i], current)) return static_cast<int>(i);
      }
      expressions.push_back(current);
      columns.push_back(MakeLogicalColumn("window_input", current->type(), current->nullable()));
      return static_cast<int>(expressions.size() - 1);
    };
    struct Prepared {
      exec::WindowCall call;
      std::vector<int> partition;
      std::vector<exec::SortKey> order;
      std::string key;
    };
    std::vector<Prepared> prepared;
    for (const WindowEntry& entry : state.windows) {
      Prepared p;
      p.call = entry.call;
      p.call.arguments.clear();
      for (const expr::ExpressionPtr& argument : entry.call.arguments) {
        // Literal arguments (lag/lead offsets and defaults, ntile buckets) stay literals.
        if (argument->kind() == expr::ExpressionKind::kLiteral) {
          p.call.arguments.push_back(argument);
          continue;
        }
        int column = column_for(argument);
        p.call.arguments.push_back(expr::Column(column, expressions[column]->type(), expressions[column]->nullable()));
      }
      if (entry.call.filter) {
        int column = column_for(entry.call.filter);
        p.call.filter = expr::Column(column, expressions[column]->type(), expressions[column]->nullable());
      }
      for (const expr::ExpressionPtr& partition : entry.partition) p.partition.push_back(column_for(partition));
      for (size_t o = 0; o < entry.order.size(); ++o) {
        exec::SortKey key;
        key.column = column_for(entry.order[o]);
        key.ascending = entry.order_directions[o].first;
        key.nulls_first = entry.order_directions[o].second;
        p.order.push_back(key);
      }
      for (int column : p.partition) p.key += std::to_string(column) + ",";
      p.key += "|";
      for (const exec::SortKey& key : p.order) {
        p.key += std::to_string(key.column) + (key.ascending ? "a" : "d") + (key.nulls_first ? "f" : "l") + ",";
      }
      prepared.push_back(std::move(p));
    }
    plan = MakeLogicalProject(plan, expressions, columns);
    std::vector<std::string> done;
    for (size_t i = 0; i < prepared.size(); ++i) {
      if (std::find(done.begin(), done.end(), prepared[i].key) != done.end()) continue;
      done.push_back(prepared[i].key);
      auto node = std::make_shared<LogicalNode>();
      node->kind = LogicalKind::kWindow;
      node->columns = plan->columns;
      for (int column : prepared[i].partition) {
        node->window_partition.push_back(
            expr::Column(column, plan->columns[column].type, plan->columns[column].nullable));
      }
      node->sort_keys = prepared[i].order;
      for (size_t j = i; j < prepared.size(); ++j) {
        if (prepared[j].key != prepared[i].key) continue;
        node->window_calls.push_back(prepared[j].call);
        window_columns[static_cast<int>(j)] = static_cast<int>(node->columns.size());
        node->columns.push_back(MakeLogicalColumn(state.windows[j].call.function, prepared[j].call.result_type, true));
      }
      node->children.push_back(plan);
      plan = node;
    }
  }

  // A generator in the select list.
  std::map<int, int> generator_columns;
  if (!state.generators.empty()) {
    GeneratorEntry& generator = state.generators[0];
    // The generator runs above the windows, so a window in its input reads the window's column.
    generator.spec.input =
        RewriteTopDown(to_current(generator.spec.input), [&](const expr::ExpressionPtr& e) -> expr::ExpressionPtr {
          if (e->kind() != expr::ExpressionKind::kColumn || e->column_index() < kWindowBase ||
              e->column_index() >= kGeneratorBase) {
            return nullptr;
          }
          return expr::Column(window_columns.at(e->column_index() - kWindowBase), e->type(), e->nullable());
        });
    auto node = std::make_shared<LogicalNode>();
    node->kind = LogicalKind::kGenerate;
    node->columns = plan->columns;
    for (size_t c = 0; c < generator.columns.size(); ++c) {
      generator_columns[kGeneratorBase + static_cast<int>(c)] = static_cast<int>(node->columns.size());
      node->columns.push_back(generator.columns[c]);
    }
    node->generate = generator.spec;
    node->children.push_back(plan);
    plan = node;
  }
  auto finish = [&](const expr::ExpressionPtr& expression) {
    expr::ExpressionPtr current = to_current(expression);
    return RewriteTopDown(current, [&](const expr::ExpressionPtr& e) -> expr::ExpressionPtr {
      if (e->kind() != expr::ExpressionKind::kColumn || e->column_index() < kWindowBase) return nullptr;
      int index = e->column_index();
      if (index >= kGeneratorBase) {
        return expr::Column(generator_columns.at(index), e->type(), e->nullable());
      }
      return expr::Column(window_columns.at(index - kWindowBase), e->type(), e->nullable());
    });
  };

  if (qualify) plan = MakeLogicalFilter(plan, finish(qualify));

  // The projection: items, hidden ORDER BY keys, and the columns a correlated subquery adds.
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<LogicalColumn> columns;
  for (const Item& item : items) {
    expressions.push_back(finish(item.bound));
    columns.push_back(item.column);
  }
  size_t num_items = items.size();
  std::vector<exec::SortKey> sort_keys;
  for (OrderKey& key : order_keys) {
    exec::SortKey sort_key;
    sort_key.ascending = key.ascending;
    sort_key.nulls_first = key.nulls_first;
    if (key.item >= 0) {
      sort_key.column = key.item;
    } else {
      expr::ExpressionPtr current = finish(key.bound);
      int found = -1;
      for (size_t i = 0; i < expressions.size(); ++i) {
        if (SameExpression(expressions[i], current)) found = static_cast<int>(i);
        if (found >= 0) break;
      }
      if (found < 0) {
        if (query.distinct) {
          const Expression& expression = *query.order_by[&key - order_keys.data()].expression;
          std::vector<LogicalColumn> visible(columns.begin(), columns.begin() + num_items);
          ThrowUnresolvedColumn(expression.kind == ExpressionKind::kColumn ? expression.name
                                                                           : QualifiedName{ExpressionSql(expression)},
                                visible, expression.position);
        }
        expressions.push_back(current);
        LogicalColumn column = MakeLogicalColumn("sort_key", current->type(), current->nullable());
        column.hidden = true;
        columns.push_back(column);
        found = static_cast<int>(expressions.size() - 1);
      }
      sort_key.column = found;
    }
    sort_keys.push_back(sort_key);
  }
  if (correlation != nullptr) {
    correlation->num_outputs = num_items;
    correlation->aggregated = aggregated;
    int base = outer_width + static_cast<int>(expressions.size());
    if (aggregated) {
      for (size_t j = 0; j < correlation_inner_keys.size(); ++j) {
        int key_index = static_cast<int>(num_group_keys + j);
        const LogicalColumn& key_column = plan->columns[key_index];
        expressions.push_back(expr::Column(key_index, key_column.type, key_column.nullable));
        LogicalColumn column = key_column;
        column.hidden = true;
        columns.push_back(column);
        const expr::ExpressionPtr& outer_side = correlation_outer_sides[j];
        correlation->conjuncts.push_back(expr::Compare(
            correlation_null_safe ? expr::ComparisonOperator::kNullSafeEqual : expr::ComparisonOperator::kEqual,
            outer_side, expr::Column(base + static_cast<int>(j), key_column.type, key_column.nullable)));
      }
    } else if (!correlation->pending.empty()) {
      for (size_t f = 0; f < from_width; ++f) {
        const LogicalColumn& from_column = plan->columns[f];
        expressions.push_back(expr::Column(static_cast<int>(f), from_column.type, from_column.nullable));
        LogicalColumn column = from_column;
        column.hidden = true;
        columns.push_back(column);
      }
      std::vector<int> mapping;
      for (int i = 0; i < outer_width; ++i) mapping.push_back(i);
      for (size_t f = 0; f < from_width; ++f) mapping.push_back(base + static_cast<int>(f));
      for (const expr::ExpressionPtr& conjunct : correlation->pending) {
        std::vector<int> full_mapping = mapping;
        // Columns appended to the FROM relation by scalar subqueries are not reachable here.
        correlation->conjuncts.push_back(expr::RemapColumns(conjunct, full_mapping));
      }
    }
  }
  plan = MakeLogicalProject(plan, std::move(expressions), std::move(columns));
  if (query.distinct) plan = MakeLogicalDistinct(plan);
  if (!sort_keys.empty()) plan = MakeLogicalSort(plan, std::move(sort_keys));
  if (plan->columns.size() > num_items && (correlation == nullptr || correlation->pending.empty())) {
    std::vector<int> kept;
    for (size_t i = 0; i < num_items; ++i) kept.push_back(static_cast<int>(i));
    plan = MakeLogicalSelectColumns(plan, kept);
  }
  return plan;
}

QueryBinder::QueryBinder(SessionState& session, exec::ExecContext& context)
    : impl_(std::make_unique<Impl>(session, context)) {}
QueryBinder::~QueryBinder() = default;

SubplanResults& QueryBinder::subplan_results() { return impl_->subplan_results; }

LogicalPtr QueryBinder::Bind(const Query& query) {
  LogicalPtr plan = impl_->BindQuery(query, nullptr);
  return plan;
}

expr::ExpressionPtr QueryBinder::BindExistsAsMembership(const Expression& node,
                                                        const std::vector<LogicalColumn>& outer) {
  SILT_CHECK(node.kind == ExpressionKind::kExists, "EXISTS membership of another subquery");
  Correlation correlation;
  correlation.outer = outer;
  LogicalPtr subquery = impl_->BindQuery(*node.subquery, &correlation);
  const int width = static_cast<int>(outer.size());
  if (correlation.conjuncts.empty()) {
    bool any = false;
    for (const Batch& batch : impl_->Run(subquery)) any = any || batch.num_rows() > 0;
    return expr::Literal(expr::Scalar::Boolean(any));
  }
  // Equalities outer = inner only: the row's keys are tested against the distinct keys of the
  // subquery's rows (NULL keys never match, so both sides leave them out).
  std::vector<expr::ExpressionPtr> outer_keys, inner_keys;
  for (const expr::ExpressionPtr& conjunct : correlation.conjuncts) {
    bool found = false;
    if (conjunct->kind() == expr::ExpressionKind::kComparison &&
        conjunct->comparison() == expr::ComparisonOperator::kEqual) {
      for (int side = 0; side < 2 && !found; ++side) {
        std::vector<int> a = expr::ReferencedColumns(*conjunct->child(side));
        std::vector<int> b = expr::ReferencedColumns(*conjunct->child(1 - side));
        if (!a.empty() && a.back() < width && !b.empty() && b.front() >= width) {
          outer_keys.push_back(conjunct->child(side));
          inner_keys.push_back(expr::ShiftColumns(conjunct->child(1 - side), -width));
          found = true;
        }
      }
    }
    if (!found) {
      ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                        {{"message", "an EXISTS subquery here may be correlated by equalities only: " +
                                         ExpressionSql(node)}}),
              node.position);
    }
  }
  const expr::FunctionRegistry& functions = expr::FunctionRegistry::Default();
  auto key_of = [&](const std::vector<expr::ExpressionPtr>& keys) {
    return keys.size() == 1 ? keys[0] : functions.Bind("struct", keys);
  };
  expr::ExpressionPtr inner_not_null, outer_not_null;
  for (size_t k = 0; k < inner_keys.size(); ++k) {
    expr::ExpressionPtr inner = expr::IsNotNull(inner_keys[k]);
    expr::ExpressionPtr outer_check = expr::IsNotNull(outer_keys[k]);
    inner_not_null = inner_not_null ? expr::And(inner_not_null, inner) : inner;
    outer_not_null = outer_not_null ? expr::And(outer_not_null, outer_check) : outer_check;
  }
  expr::ExpressionPtr inner_key = key_of(inner_keys);
  LogicalPtr keys = MakeLogicalDistinct(MakeLogicalProject(
      MakeLogicalFilter(subquery, inner_not_null), {inner_key},
      {MakeLogicalColumn("exists_key", inner_key->type(), false)}));
  std::vector<expr::ExpressionPtr> values;
  for (const Batch& batch : impl_->Run(keys)) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      values.push_back(expr::Literal(expr::Scalar::FromVector(*batch.column(0), row)));
    }
  }
  if (values.empty()) return expr::Literal(expr::Scalar::Boolean(false));
  return expr::And(outer_not_null, expr::Coalesce({expr::In(key_of(outer_keys), std::move(values)),
                                                   expr::Literal(expr::Scalar::Boolean(false))}));
}

expr::ExpressionPtr QueryBinder::BindUncorrelatedSubquery(const Expression& node,
                                                          const std::vector<LogicalColumn>& outer,
                                                          BindingScope& scope) {
  // Bound first against the columns around it, so that a reference to one of them is told from
  // an unknown name.
  Correlation correlation;
  correlation.outer = outer;
  impl_->BindQuery(*node.subquery, &correlation);
  if (!correlation.conjuncts.empty()) {
    ThrowAt(MakeError(ErrorClass::UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY,
                      {{"message", "correlated subqueries are not supported here: " + ExpressionSql(node)}}),
            node.position);
  }
  LogicalPtr plan = OneRow();
  expr::ExpressionPtr bound = impl_->BindSubqueryExpression(node, plan, scope);
  SILT_CHECK(plan->columns.size() == 1,
             "an uncorrelated subquery joined onto its input");
  return bound;
}

}  // namespace silt::sql
