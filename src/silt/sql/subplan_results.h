#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/sql/logical_plan.h"

/// Reuse of what a statement already computed while it was planned. An uncorrelated subquery
/// runs while its statement is bound (query_binder.h); when it aggregates a relation the query
/// reads again (a CTE or view referenced twice, TPC-H Q15's `revenue0` and its
/// `max(total_revenue)`), the output of that aggregate is kept, and the identical subplan of the
/// main query, or of a later subquery, reads it instead of computing it again.
namespace silt::sql {

/// Structural equality of two bound expressions: same kinds, types, attributes and children.
/// Non-deterministic expressions never equal one another.
bool SameExpression(const expr::Expression& a, const expr::Expression& b);

/// Structural equality of two optimized logical plans: they compute the same rows. Scans must
/// read the same snapshot object (one statement loads a table once per version), and the node
/// kinds whose attributes are not compared (windows, generators, change feeds, expands) never
/// equal one another. Column names and ids do not count, except where a scan finds its columns
/// by name.
bool SameSubplan(const LogicalNode& a, const LogicalNode& b);

/// The outputs of aggregates and DISTINCTs computed while a statement is planned, kept for the
/// rest of the statement within a fixed budget of bytes. One per statement; its operators may
/// run on several threads.
class SubplanResults {
 public:
  /// Bytes of output kept for one statement; an output that would pass it is not kept.
  static constexpr int64_t kMaxBytes = 32 << 20;

  SubplanResults() = default;
  SubplanResults(const SubplanResults&) = delete;
  SubplanResults& operator=(const SubplanResults&) = delete;

  /// Keeps `plan` alive as long as this object, so that its nodes can be named by Record.
  void Keep(LogicalPtr plan);

  /// `op`, the operator computing `node` (a node of a plan given to Keep), or for an aggregate or
  /// DISTINCT an operator that passes `op`'s batches on and keeps them; once the last has passed
  /// and they fit the budget, Reuse can hand them out for `node`.
  exec::OperatorPtr Record(const LogicalNode& node, exec::OperatorPtr op);

  /// `plan` with each subtree that equals a kept one (SameSubplan) replaced by a kValues node of
  /// its kept batches, under the subtree's own columns. `plan` itself is not changed.
  LogicalPtr Reuse(const LogicalPtr& plan) const;

  /// The number of subtrees Reuse has replaced so far (for tests).
  int64_t reused() const;

  struct Entry;

 private:
  friend class RecordingOperator;
  // Takes `bytes` of the budget, or gives them back when negative; false when they do not fit.
  bool Reserve(int64_t bytes);

  mutable std::mutex mutex_;
  std::vector<LogicalPtr> plans_;
  std::vector<std::shared_ptr<Entry>> entries_;
  int64_t bytes_ = 0;
  mutable int64_t reused_ = 0;
};

}  // namespace silt::sql
