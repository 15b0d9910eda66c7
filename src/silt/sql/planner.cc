#include "silt/sql/planner.h"

#include "silt/sql/cardinality.h"
#include "silt/sql/logical_plan.h"
#include "silt/sql/optimizer.h"
#include "silt/sql/physical_planner.h"
#include "silt/sql/query_binder.h"
#include "silt/sql/subplan_results.h"

namespace silt::sql {

PlannedQuery PlanQuery(SessionState& session, const Query& query, exec::ExecContext& context) {
  QueryBinder binder(session, context);
  LogicalPtr analyzed = binder.Bind(query);
  CardinalityEstimator estimator;
  LogicalPtr optimized = binder.subplan_results().Reuse(OptimizePlan(analyzed, context.eval, estimator));
  PlannedQuery planned;
  planned.root = PlanPhysical(*optimized, estimator);
  planned.schema = OutputSchema(*analyzed);
  return planned;
}

std::string ExplainQuery(SessionState& session, const Query& query, exec::ExecContext& context,
                         bool extended) {
  QueryBinder binder(session, context);
  LogicalPtr analyzed = binder.Bind(query);
  CardinalityEstimator estimator;
  LogicalPtr optimized = binder.subplan_results().Reuse(OptimizePlan(analyzed, context.eval, estimator));
  exec::OperatorPtr root = PlanPhysical(*optimized, estimator);
  std::string text;
  if (extended) {
    text += "== Analyzed Logical Plan ==\n" + LogicalPlanToString(*analyzed) + "\n";
    text += "== Optimized Logical Plan ==\n" + LogicalPlanToString(*optimized) + "\n";
  }
  text += "== Physical Plan ==\n" + exec::ExplainTree(*root);
  return text;
}

}  // namespace silt::sql
