#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/expr/expression.h"
#include "silt/expr/scalar.h"
#include "silt/log/scan_bound.h"

/// Ordering operators: sort, top-N, and window functions.
namespace silt::exec {

/// ORDER BY: rows of `child` ordered by `keys` (compared as Spark does: NaN above every number,
/// NULLs per key's nulls_first, strings by bytes); stable. With `limit`, a top-N that keeps
/// only offset + limit rows in memory, and returns rows [offset, offset + limit).
/// With `bound` (a top-N only): whenever the top-N holds offset + limit rows it sets `bound` to
/// the first key's value in the last of them, so that the scan the caller gave `bound` to (the
/// column that key reads, >= for a descending key, <= for an ascending one, keeping NULLs where
/// the key puts them first) skips rows that could no longer be kept.
OperatorPtr MakeSort(OperatorPtr child, std::vector<SortKey> keys,
                     std::optional<int64_t> limit = std::nullopt, int64_t offset = 0,
                     std::shared_ptr<log::ScanBound> bound = nullptr);

/// Compares row `i` of `left` columns with row `j` of `right` columns by `keys` (the same column
/// indexes in both): negative, zero or positive. For operators that order or merge rows.
int CompareRows(const std::vector<VectorPtr>& left, int64_t i, const std::vector<VectorPtr>& right,
                int64_t j, const std::vector<SortKey>& keys);

/// ROWS / RANGE frame of a window call.
struct WindowFrame {
  enum class Unit { kRows, kRange };
  enum class BoundKind { kUnboundedPreceding, kPreceding, kCurrentRow, kFollowing, kUnboundedFollowing };
  struct Bound {
    BoundKind kind = BoundKind::kCurrentRow;
    /// kPreceding / kFollowing: a non-negative offset (rows: an integer; range: a number for
    /// numeric ORDER BY keys (a decimal offset is brought to the key's scale), an integer number
    /// of days for DATE keys and of microseconds for TIMESTAMP keys, as there is no interval
    /// type yet).
    std::optional<expr::Scalar> offset;
  };
  Unit unit = Unit::kRows;
  Bound start;
  Bound end;
};

/// Whether `name` is a window-only function (row_number, rank, dense_rank, percent_rank,
/// cume_dist, ntile, lag, lead, nth_value, first_value, last_value). Aggregates
/// (IsAggregateFunction) may also be used with OVER.
bool IsWindowFunction(std::string_view name);

/// Spark's result type of a window function call over `argument_types`: ranking functions INT
/// (percent_rank, cume_dist DOUBLE); lag/lead/first_value/last_value/nth_value the value's type;
/// aggregates as ResolveAggregate. Throws WRONG_NUM_ARGS / DATATYPE_MISMATCH.
DataTypePtr ResolveWindowFunction(std::string_view name, const std::vector<DataTypePtr>& argument_types);

/// One window function call.
struct WindowCall {
  std::string function;  ///< lower-case
  /// Arguments over the child's columns, already cast; lag/lead: value, offset literal,
  /// default (same type as value); ntile: bucket count literal.
  std::vector<expr::ExpressionPtr> arguments;
  /// IGNORE NULLS: lag/lead count and return only non-NULL values; first/last/nth_value skip
  /// NULLs in the frame.
  bool ignore_nulls = false;
  /// Aggregates only: DISTINCT values, rows where `filter` is TRUE (null = every row), and
  /// WITHIN GROUP (ORDER BY ... DESC) of the inverse distribution functions.
  bool distinct = false;
  expr::ExpressionPtr filter;
  bool descending = false;
  /// listagg ... WITHIN GROUP: as AggregateCall::within_group_order.
  std::vector<std::pair<bool, bool>> within_group_order;
  /// nullopt = Spark's default frame: with ORDER BY, RANGE BETWEEN UNBOUNDED PRECEDING AND
  /// CURRENT ROW (peers included); without, the whole partition. Ranking and lag/lead ignore it.
  std::optional<WindowFrame> frame;
  DataTypePtr result_type;
};

/// The PARTITION BY / ORDER BY shared by a Window operator's calls.
struct WindowOrdering {
  std::vector<int> partition_by;  ///< input column indexes
  std::vector<SortKey> order_by;
};

/// Evaluates `calls` (all of one ordering) for each row: the window-only functions above and
/// every aggregate over any frame. count, count_if, sum, avg, min, max, first/last, stddev*,
/// var* and bool_and/bool_or slide their state (each row enters and leaves a frame once); the
/// other aggregates, and any with DISTINCT or FILTER, run an accumulator (accumulator.h) per
/// frame: incrementally while frames only grow (ROWS/RANGE UNBOUNDED PRECEDING) and the
/// accumulator can report a result repeatedly, otherwise over each distinct frame afresh.
/// Frames are checked here: RANGE value offsets need exactly one numeric, DATE or
/// TIMESTAMP ORDER BY key, offsets must be non-negative literals (DATATYPE_MISMATCH otherwise);
/// ntile's bucket count and nth_value's offset must be positive integer literals. Output: the
/// child's columns then one column per call, named `names`. Rows come out grouped by partition
/// (partitions in ascending key order, NULL keys first) and sorted by order_by. Materialises its
/// input; sorts and gathers on up to ExecContext::Parallelism() threads.
OperatorPtr MakeWindow(OperatorPtr child, WindowOrdering ordering, std::vector<WindowCall> calls,
                       std::vector<std::string> names);

}  // namespace silt::exec
