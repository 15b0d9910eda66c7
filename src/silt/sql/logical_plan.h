#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/exec/aggregate_function.h"
#include "silt/exec/hash_operators.h"
#include "silt/exec/operator.h"
#include "silt/exec/operators.h"
#include "silt/exec/sort_window.h"
#include "silt/expr/expression.h"
#include "silt/log/change_feed.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"
#include "silt/vector/batch.h"

/// The logical plan: what a query computes, before physical operators are chosen. The SQL
/// binder (query_binder.h) and the DataFrame API build these nodes; the optimizer
/// (optimizer.h) rewrites them; the physical planner (physical_planner.h) turns them into
/// exec operators. Every node lists its output columns; expressions of a node are bound
/// (expr::Expression) against its child's output columns by index (for joins: the left
/// child's columns followed by the right child's).
namespace silt::sql {

/// One output column of a logical node.
/// The scan column index of a Delta scan's hidden `_metadata` column.
inline constexpr int kFileMetadataScanColumn = -1;

struct LogicalColumn {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
  /// The relation name the column can be qualified with (`t`, or {"spark_catalog","default","t"}
  /// for a catalog table: any suffix qualifies); empty for computed columns.
  std::vector<std::string> qualifier;
  /// Unique within a query; shown as `name#id` in plan text.
  int64_t id = 0;
  /// Reachable by a qualified name only, and left out of `*` (the duplicate key of a USING join).
  bool hidden = false;
  /// Spark's hidden `_metadata` column of a file scan: hidden, yet reachable by its name alone
  /// unless a visible column has the same name.
  bool file_metadata = false;
};

enum class LogicalKind {
  kDeltaScan,     ///< snapshot, scan_columns, scan_predicates, predicate (row filter)
  kParquetScan,   ///< parquet_files, file_system, file_schema, predicate
  kValues,        ///< batches (rows in memory)
  kRange,         ///< range_start, range_end, range_step
  kFilter,        ///< predicate
  kProject,       ///< expressions (one per output column)
  kAggregate,     ///< expressions = group keys; aggregates. Output: keys then aggregates
  kWindow,        ///< window_partition, sort_keys (over the child), window_calls. Output: child
                  ///< columns then one per call
  kJoin,          ///< join_type, predicate (the ON condition; null = none), null_aware_anti
  kSort,          ///< sort_keys; limit/offset when it is a top-N
  kLimit,         ///< limit (nullopt = none), offset
  kUnion,         ///< children of one column layout (UNION ALL)
  kSetOperation,  ///< set_operation, set_all; two children
  kDistinct,      ///< distinct rows of the child
  kGenerate,      ///< generate. Output: child columns then the generated ones
  kChangeFeedScan,  ///< change_feed, scan_columns, scan_predicates, predicate (row filter)
  kExpand,        ///< projections: each child row once per projection (GROUPING SETS, ROLLUP, CUBE)
};

struct LogicalNode;
using LogicalPtr = std::shared_ptr<LogicalNode>;

/// A node of the logical plan. Plain data: see LogicalKind for the fields each kind uses.
struct LogicalNode {
  LogicalKind kind = LogicalKind::kValues;
  std::vector<LogicalColumn> columns;
  std::vector<LogicalPtr> children;

  // Scans.
  std::shared_ptr<const log::Snapshot> snapshot;
  std::string table_name;  ///< for plan text
  /// kChangeFeedScan: the planned change feed read (`table_changes`).
  std::shared_ptr<const log::ChangeFeed> change_feed;
  /// kDeltaScan: indexes of the table schema's columns read, in output order, or
  /// kFileMetadataScanColumn for `_metadata` (always last); kChangeFeedScan: indexes of the
  /// change feed schema's columns.
  std::vector<int> scan_columns;
  /// kDeltaScan, kChangeFeedScan: conjuncts that prune files (derived from `predicate` by the
  /// optimizer).
  std::vector<log::ScanPredicate> scan_predicates;
  std::shared_ptr<io::FileSystem> file_system;
  std::vector<std::string> parquet_files;
  /// kParquetScan: the columns of the files read, in output order.
  SchemaPtr file_schema;

  // kValues.
  std::vector<Batch> batches;

  // kRange.
  int64_t range_start = 0;
  int64_t range_end = 0;
  int64_t range_step = 1;

  /// kFilter predicate, kJoin condition, scan row filter.
  expr::ExpressionPtr predicate;
  /// kProject outputs; kAggregate group keys.
  std::vector<expr::ExpressionPtr> expressions;
  std::vector<exec::AggregateCall> aggregates;

  // kWindow.
  std::vector<expr::ExpressionPtr> window_partition;
  std::vector<exec::WindowCall> window_calls;

  /// kSort and kWindow (ORDER BY): keys over the child's columns.
  std::vector<exec::SortKey> sort_keys;
  std::optional<int64_t> limit;
  int64_t offset = 0;

  exec::JoinType join_type = exec::JoinType::kInner;
  bool null_aware_anti = false;

  exec::SetOperation set_operation = exec::SetOperation::kIntersect;
  bool set_all = false;

  exec::GenerateSpec generate;

  /// kExpand: one list of expressions (one per output column, over the child's columns) per copy
  /// of each row.
  std::vector<std::vector<expr::ExpressionPtr>> projections;
};

/// A fresh column id for this process (ids only need to be unique within one plan's text).
int64_t NextColumnId();

/// A column of `type` with a fresh id.
LogicalColumn MakeLogicalColumn(std::string name, DataTypePtr type, bool nullable,
                                std::vector<std::string> qualifier = {});

/// The node's output as a schema (names, types, nullability).
SchemaPtr OutputSchema(const LogicalNode& node);

/// Node factories: each computes the output columns from the children and arguments.
LogicalPtr MakeLogicalFilter(LogicalPtr child, expr::ExpressionPtr predicate);
/// Output columns are given (names, qualifiers) by `columns`; their types are taken from the
/// expressions.
LogicalPtr MakeLogicalProject(LogicalPtr child, std::vector<expr::ExpressionPtr> expressions,
                              std::vector<LogicalColumn> columns);
/// A project of some of the child's columns (kept as they are: same ids and qualifiers).
LogicalPtr MakeLogicalSelectColumns(LogicalPtr child, const std::vector<int>& indexes);
LogicalPtr MakeLogicalJoin(LogicalPtr left, LogicalPtr right, exec::JoinType type,
                           expr::ExpressionPtr condition);
LogicalPtr MakeLogicalSort(LogicalPtr child, std::vector<exec::SortKey> keys);
LogicalPtr MakeLogicalLimit(LogicalPtr child, std::optional<int64_t> limit, int64_t offset);
LogicalPtr MakeLogicalDistinct(LogicalPtr child);

/// The plan as indented text, one node per line, as EXPLAIN EXTENDED prints logical plans:
/// "Project [a#1, (b#2 + 1) AS c#5]" with children on "+- " lines.
std::string LogicalPlanToString(const LogicalNode& root);

/// An expression over `input` columns in plan text: column references print as `name#id`.
std::string ExpressionText(const expr::Expression& expression,
                           const std::vector<LogicalColumn>& input);

}  // namespace silt::sql
