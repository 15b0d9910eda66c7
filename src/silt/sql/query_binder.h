#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/sql/ast.h"
#include "silt/sql/expression_binder.h"
#include "silt/sql/logical_plan.h"
#include "silt/sql/session_state.h"

/// Spark's analysis of a query: resolves tables (catalog tables, paths, time travel, temp views,
/// CTEs), names, aggregates, windows, generators and subqueries, and produces a logical plan
/// whose root outputs the query's columns with the names Spark gives them.
namespace silt::sql {

class SubplanResults;

/// The deepest nesting of a bound query, in levels: each query block (a subquery, a view, a CTE
/// reference, a set-operation side) and each join counts one. Every later pass (optimizer,
/// physical planner, EXPLAIN, the operators) recurses over the plan, so a statement nested
/// deeper fails with STATEMENT_TOO_COMPLEX while binding. The parser's limit (kMaxParseDepth)
/// bounds one statement's text; views and CTE references chain statements, hence this second
/// limit on the bound result. Equal to kMaxParseDepth, so that a query that parses and uses no
/// view or CTE more than once along a path also binds.
inline constexpr int kMaxBindDepth = 1000;

class QueryBinder {
 public:
  /// `context` runs uncorrelated scalar, IN and EXISTS subqueries that cannot become joins.
  QueryBinder(SessionState& session, exec::ExecContext& context);
  ~QueryBinder();
  QueryBinder(const QueryBinder&) = delete;
  QueryBinder& operator=(const QueryBinder&) = delete;

  /// The logical plan of `query`. Throws the analysis error classes, positioned at the text,
  /// and STATEMENT_TOO_COMPLEX beyond kMaxBindDepth.
  LogicalPtr Bind(const Query& query);

  /// The outputs the subqueries run while binding kept (subplan_results.h), which the planning
  /// of the bound plan may reuse.
  SubplanResults& subplan_results();

  /// A subquery expression (scalar, [NOT] EXISTS, [NOT] IN) that stands outside a query, over
  /// the columns `outer` (a DML assignment's row): it runs now and becomes a constant, or for IN
  /// its value (bound in `scope`) tested against the subquery's values. One that reads a column
  /// of `outer` is UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY; other errors as Bind.
  /// `EXISTS (subquery)` over the columns `outer` (a DML target's row), two-valued, as an
  /// expression over them: a constant when uncorrelated; when correlated by equalities (outer =
  /// inner), the row's keys tested against the distinct keys of the subquery's rows, which it
  /// runs now. Another correlation is UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.
  expr::ExpressionPtr BindExistsAsMembership(const Expression& node, const std::vector<LogicalColumn>& outer);

  expr::ExpressionPtr BindUncorrelatedSubquery(const Expression& node, const std::vector<LogicalColumn>& outer,
                                               BindingScope& scope);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::sql
