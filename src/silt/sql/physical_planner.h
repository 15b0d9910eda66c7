#pragma once

#include <vector>

#include "silt/exec/operator.h"
#include "silt/sql/cardinality.h"
#include "silt/sql/logical_plan.h"

/// From an optimized logical plan to exec operators: equi-join keys become hash joins (for
/// inner joins the input estimated smaller, cardinality.h, on the build side), other joins
/// nested-loop joins; aggregates, windows, DISTINCT and set operations map to their hash and sort
/// operators.
namespace silt::sql {

/// The operator tree computing `plan`. Throws INTERNAL_ERROR for malformed plans only.
exec::OperatorPtr PlanPhysical(const LogicalNode& plan);
/// As above, choosing build sides by `estimator`'s estimates (the optimizer's, when it ran with
/// the same estimator).
exec::OperatorPtr PlanPhysical(const LogicalNode& plan, CardinalityEstimator& estimator);

class SubplanResults;

/// Optimizes, plans and runs `plan` to the end (for subqueries run while planning). With
/// `results`, subtrees it holds are read from there and the outputs of the plan's aggregates are
/// kept in it (subplan_results.h).
std::vector<Batch> ExecuteLogicalPlan(const LogicalPtr& plan, exec::ExecContext& context,
                                      SubplanResults* results = nullptr);

}  // namespace silt::sql
