#pragma once

#include <string>

#include "silt/exec/operator.h"
#include "silt/sql/ast.h"
#include "silt/sql/session_state.h"

/// From a query's AST to a physical plan: binding (names, types, aggregates, windows,
/// subqueries, CTEs, views, time travel) into a logical plan (logical_plan.h), rewriting it
/// (column pruning, filter pushdown into scans and their file pruning, constant folding), and
/// choosing physical operators (exec/).
namespace silt::sql {

/// A query ready to run.
struct PlannedQuery {
  exec::OperatorPtr root;
  /// Column names as Spark shows them (aliases, or AutoColumnName), with types and nullability.
  SchemaPtr schema;
};

/// Binds and plans `query`. Uncorrelated scalar subqueries are run while planning, with
/// `context`. Throws the analysis error classes (UNRESOLVED_COLUMN, AMBIGUOUS_REFERENCE,
/// TABLE_OR_VIEW_NOT_FOUND, MISSING_AGGREGATION, DATATYPE_MISMATCH, NUM_COLUMNS_MISMATCH, ...),
/// positioned at the offending text.
PlannedQuery PlanQuery(SessionState& session, const Query& query, exec::ExecContext& context);

/// EXPLAIN [EXTENDED] text of a query: "== Physical Plan ==" and the operator tree; EXTENDED also
/// prints "== Analyzed Logical Plan ==" and "== Optimized Logical Plan ==".
std::string ExplainQuery(SessionState& session, const Query& query, exec::ExecContext& context,
                         bool extended);

}  // namespace silt::sql
