#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/exec/operator.h"
#include "silt/expr/expression.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"

/// Sources and row-wise operators: scans, VALUES, range, filter, project, limit, union,
/// generators and nested-loop joins.
namespace silt::exec {

/// A source of batches already in memory (VALUES, a materialised subquery or MERGE source).
/// `batches` must all have `schema` (a batch of zero rows is skipped).
OperatorPtr MakeBatchSource(SchemaPtr schema, std::vector<Batch> batches);

/// range(start, end, step): one non-nullable BIGINT column named `column_name` with start,
/// start+step, ... up to end (exclusive). step 0 throws INVALID_PARAMETER_VALUE.
OperatorPtr MakeRange(int64_t start, int64_t end, int64_t step, std::string column_name = "id");

/// A scan of a Delta table snapshot.
struct DeltaScanSpec {
  std::shared_ptr<const log::Snapshot> snapshot;
  /// Columns to read (empty = all) and the conjuncts that prune files by partition values and
  /// min/max statistics.
  log::ScanOptions options;
  /// Optional row filter bound against the scan's output columns; evaluated inside the scan (on
  /// its worker threads, right after decoding), so only matching rows leave the operator.
  expr::ExpressionPtr filter;
  /// For EXPLAIN: the table's name or path.
  std::string table_name;
};
/// Reads files in parallel (up to ExecContext::Parallelism() files or row groups in flight) and
/// streams batches with bounded buffering (memory stays a few batches per worker, not the
/// table). Updates ExecCounters (files_scanned, files_pruned, rows_scanned). Batches are row
/// groups (after the deletion vector and the filter) in no particular order. Row groups whose
/// statistics rule out `options.predicates` are skipped too. Make throws what TableScan::Make
/// throws (INVALID_ARGUMENT for an unknown column); Next throws the first error of any worker
/// (PATH_NOT_FOUND, Parquet and evaluation errors). Destroying the operator early stops the
/// workers.
OperatorPtr MakeDeltaScan(DeltaScanSpec spec);

/// A scan of plain Parquet files (`parquet.`/path``): every file must have a schema that holds
/// `schema`'s columns (by name, case-insensitively) with the same types: Next throws
/// PARQUET_COLUMN_NOT_FOUND or PARQUET_SCHEMA_MISMATCH otherwise. Streams like MakeDeltaScan.
struct ParquetScanSpec {
  std::shared_ptr<io::FileSystem> fs;
  std::vector<std::string> files;  ///< absolute paths
  SchemaPtr schema;                ///< the output columns, in order
  expr::ExpressionPtr filter;      ///< optional, over the output columns
  std::string display_name;
};
OperatorPtr MakeParquetScan(ParquetScanSpec spec);

/// Rows of `child` for which `predicate` (BOOLEAN, over child's columns) is TRUE.
OperatorPtr MakeFilter(OperatorPtr child, expr::ExpressionPtr predicate);

/// One output column per expression (over child's columns), named `names`. A bare column
/// reference is passed through without copying.
OperatorPtr MakeProject(OperatorPtr child, std::vector<expr::ExpressionPtr> expressions,
                        std::vector<std::string> names);

/// Every input row once per projection (Spark's Expand, for GROUPING SETS, ROLLUP and CUBE):
/// each projection lists one expression per output column (over child's columns; a bare column
/// is passed through), all projections agreeing on the types. A column is nullable when any
/// projection's expression is. Parallel pulls are supported when the child's are.
OperatorPtr MakeExpand(OperatorPtr child, std::vector<std::vector<expr::ExpressionPtr>> projections,
                       std::vector<std::string> names);

/// Skips `offset` rows, then returns at most `limit` rows (nullopt = no limit); stops pulling
/// the child once the limit is reached.
OperatorPtr MakeLimit(OperatorPtr child, std::optional<int64_t> limit, int64_t offset = 0);

/// The children's rows one after the other (UNION ALL). Every child must produce `schema`'s
/// types by position (the planner casts); output batches are relabelled with `schema`.
OperatorPtr MakeUnionAll(std::vector<OperatorPtr> children, SchemaPtr schema);

/// explode / posexplode of an ARRAY or MAP, in SELECT or LATERAL VIEW.
struct GenerateSpec {
  enum class Kind { kExplode, kPosExplode, kInline };
  Kind kind = Kind::kExplode;
  /// The ARRAY or MAP (for kInline: ARRAY<STRUCT>) to expand, over child's columns.
  expr::ExpressionPtr input;
  /// OUTER: a row whose input is NULL or empty still yields one row, with NULL generated values.
  bool outer = false;
  /// Names of the generated columns: explode of an array "col", of a map "key","value";
  /// posexplode adds "pos" first; inline: the struct's fields.
  std::vector<std::string> names;
};
/// Output: every child column, then the generated columns (pos INT, element or key/value).
OperatorPtr MakeGenerate(OperatorPtr child, GenerateSpec spec);

/// A join by evaluating `condition` (over left columns followed by right columns; null = always
/// true, i.e. a cross join) for every pair. For CROSS joins and non-equi conditions. The right
/// side is materialised. Output: left columns then right columns, or left columns only for
/// semi / anti joins; outer sides' columns become nullable.
OperatorPtr MakeNestedLoopJoin(OperatorPtr left, OperatorPtr right, JoinType type,
                               expr::ExpressionPtr condition);

/// The output schema of a join of `left` and `right` of `type` (shared by every join operator).
SchemaPtr JoinOutputSchema(const Schema& left, const Schema& right, JoinType type);

}  // namespace silt::exec
