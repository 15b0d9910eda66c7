#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "silt/log/table_scan.h"
#include "silt/sql/logical_plan.h"

/// Row-count estimates of logical plans, for choosing join orders and hash-join build sides.
/// A Delta scan starts from its files' statistics (numRecords, and per column min/max/nullCount,
/// of the files its pruning predicates keep); filters scale rows by the selectivity of their
/// conjuncts (range predicates by the fraction of a column's range they keep, or a small fixed
/// fraction on an aggregate's value, equality by one over the column's distinct values or a
/// fixed small fraction, IN lists, AND/OR/NOT); joins,
/// aggregates and projections carry the column estimates up. Estimates are guesses that rank
/// plans, never a bound a result relies on.
namespace silt::sql {

/// What an estimate knows of one output column.
struct ColumnEstimate {
  /// Distinct non-NULL values in the relation; nullopt when nothing bounds them (a string
  /// column of a scan, a computed column).
  std::optional<double> distinct;
  /// The values' range as numbers (integers, dates in days, timestamps in µs, decimals by value,
  /// floating point); unset when unknown or not numeric.
  std::optional<double> min;
  std::optional<double> max;
  double null_fraction = 0;
  /// The value of an aggregate function over each group (a sum, a count), as HAVING reads it.
  bool aggregate = false;
  /// The relation the column's values were read from (a scan or an aggregate's groups), its
  /// rows before any filter and the column's distinct values there: an equi-join to a column
  /// whose values may all differ in its base relation (a key) keeps about the other side's
  /// rows times the fraction of the base relation's rows left. Null origin: computed.
  const void* origin = nullptr;
  double base_rows = 0;
  double base_distinct = 0;
};

/// The estimated rows and columns of a relation.
struct RelationEstimate {
  double rows = 0;
  std::vector<ColumnEstimate> columns;  ///< one per output column
};

/// Estimates plans and the joins the join-order search tries. Remembers each node it estimated
/// (holding the node, so that the address stays its own) and each scan's statistics summary, so
/// that the optimizer and the physical planner of one statement read a table's statistics
/// once; not thread-safe.
class CardinalityEstimator {
 public:
  /// The estimate of `node`'s output.
  const RelationEstimate& Estimate(const LogicalPtr& node);

  /// `input` filtered by `predicate` (over its columns).
  static RelationEstimate Filter(const RelationEstimate& input,
                                 const expr::ExpressionPtr& predicate);
  /// A join of `left` and `right` of `type` under `condition` (over left columns followed by
  /// right columns; null: none). Semi and anti joins keep the left columns only.
  static RelationEstimate Join(const RelationEstimate& left, const RelationEstimate& right,
                               exec::JoinType type, const expr::ExpressionPtr& condition);

 private:
  RelationEstimate Compute(const LogicalPtr& node);
  RelationEstimate ScanEstimate(const LogicalNode& scan);
  /// The summary of `snapshot`'s files `options` keeps (remembered).
  const log::ScanSummary& Summary(const std::shared_ptr<const log::Snapshot>& snapshot,
                                  const log::ScanOptions& options);

  std::unordered_map<const LogicalNode*, std::pair<LogicalPtr, RelationEstimate>> estimates_;
  std::map<std::string, log::ScanSummary> summaries_;
};

}  // namespace silt::sql
