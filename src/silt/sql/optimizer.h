#pragma once

#include "silt/sql/logical_plan.h"

/// Rewrites of a bound logical plan that keep its result: constant folding, filter pushdown
/// (through projects, into join sides, into scans, with file-pruning conjuncts for Delta
/// scans), column pruning down to the scans, and ORDER BY + LIMIT as one top-N sort.
namespace silt::sql {

class CardinalityEstimator;

/// The optimized plan; `plan` is not modified (rewritten nodes are copies). The output columns
/// of the root keep their order, names and ids.
LogicalPtr OptimizePlan(const LogicalPtr& plan, const expr::EvalContext& context);
/// As above, estimating rows with `estimator` (which the physical planner may use afterwards).
LogicalPtr OptimizePlan(const LogicalPtr& plan, const expr::EvalContext& context,
                        CardinalityEstimator& estimator);

/// Folds sub-expressions made of literals only (and deterministic) into literals. Expressions
/// whose evaluation fails are kept, so the error surfaces when (and if) a row reaches them.
expr::ExpressionPtr FoldConstants(const expr::ExpressionPtr& expression, const expr::EvalContext& context);

/// The file-pruning conjuncts (`column op literal` on top-level columns of `schema`, as
/// log::TableScan takes them) implied by `predicate`, a boolean expression bound over `schema`.
/// Conjuncts that cannot prune (other shapes, nested or timestamp columns) are left out, so the
/// result is a necessary condition only.
std::vector<log::ScanPredicate> DeriveScanPredicates(const expr::ExpressionPtr& predicate, const Schema& schema);

/// The file-pruning conjuncts of a Delta or change-feed scan node's row filter, naming the
/// stored columns (a column alias renames the scan's output, not what the log calls them).
std::vector<log::ScanPredicate> ScanPredicatesOf(const LogicalNode& scan);

}  // namespace silt::sql
