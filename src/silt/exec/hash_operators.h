#pragma once

#include <memory>
#include <string>
#include <vector>

#include "silt/exec/aggregate_function.h"
#include "silt/exec/operator.h"
#include "silt/expr/expression.h"
#include "silt/log/join_key_filter.h"

/// Hash-based operators: joins, aggregation, DISTINCT and the INTERSECT / EXCEPT set operations.
/// Keys compare as GROUP BY and join equality do in Spark: NULL keys never match in a join
/// (unless null-safe), NULLs form one group, NaN equals NaN and -0.0 equals 0.0.
namespace silt::exec {

struct HashJoinSpec {
  JoinType type = JoinType::kInner;  ///< any but kCross
  /// Equi-join keys: left_keys[i] (over the left input) = right_keys[i] (over the right input);
  /// each pair already cast to one type. At least one pair.
  std::vector<expr::ExpressionPtr> left_keys;
  std::vector<expr::ExpressionPtr> right_keys;
  /// Per key: `<=>` (NULL matches NULL) instead of `=`; empty = all false.
  std::vector<bool> null_safe;
  /// Extra condition over left columns followed by right columns; null = none. A pair matches
  /// when the keys are equal and this is TRUE.
  expr::ExpressionPtr residual;
  /// NOT IN (subquery) semantics for kLeftAnti with one key: a left row is dropped when the
  /// right side has any NULL key (and the right side is not empty), or when its own key is NULL
  /// and the right side is not empty.
  bool null_aware_anti = false;
  /// kLeftSemi / kLeftAnti without null_aware_anti only: build the hash table of the left input
  /// instead and stream the right input through it, marking the left rows that match; once the
  /// right input is exhausted the marked rows (semi) or the others (anti) come out. For a left
  /// side much smaller than the right.
  bool build_left = false;
  /// Runtime join filters, for a join that drops the probe rows without a match (inner, right
  /// outer, left semi, and semi joins that build their left side): once the build side is held
  /// in memory whole, `filter` receives the keys of key pair `key` (log::JoinKeySet), which the
  /// scan of the probe side reads to skip what cannot match. A build side of more than
  /// kMaxRuntimeFilterKeys rows, or one that spills, publishes nothing (the scan then reads
  /// every row). EXPLAIN shows each filter's join_id.
  struct RuntimeFilter {
    size_t key = 0;
    std::shared_ptr<log::JoinKeyFilter> filter;
  };
  std::vector<RuntimeFilter> runtime_filters;
};
/// The most build rows whose keys a hash join publishes to its runtime filters.
inline constexpr int64_t kMaxRuntimeFilterKeys = int64_t{4} << 20;
/// Builds a hash table of the right input (of the left one with `build_left`) in parallel, then
/// streams the other input through it. Output: left columns then right columns (semi / anti:
/// left only); outer sides nullable. Memory: the build side plus one batch of the other; a build
/// side past the query's memory limit is partitioned to spill files with the other (grace join).
OperatorPtr MakeHashJoin(OperatorPtr left, OperatorPtr right, HashJoinSpec spec);

/// GROUP BY: output columns are the group keys (named `key_names`) then one per aggregate (named
/// `aggregate_names`). With no keys exactly one row is produced, also for empty input. Uses the
/// worker threads (partial aggregation per thread, then merge) when the input is large.
OperatorPtr MakeHashAggregate(OperatorPtr child, std::vector<expr::ExpressionPtr> keys,
                              std::vector<std::string> key_names,
                              std::vector<AggregateCall> aggregates,
                              std::vector<std::string> aggregate_names);

/// Distinct rows of the child (SELECT DISTINCT, UNION): every column is a key.
OperatorPtr MakeDistinct(OperatorPtr child);

/// INTERSECT [ALL] / EXCEPT [ALL] by position; both inputs have the same column types (the
/// planner casts); output has the left schema. Without ALL the result is distinct.
enum class SetOperation { kIntersect, kExcept };
OperatorPtr MakeSetOperation(OperatorPtr left, OperatorPtr right, SetOperation operation, bool all);

}  // namespace silt::exec
