#pragma once

// OPTIMIZE: compaction of a Delta table's small files (bin-packing) and Z-ordering, with Delta's
// file selection, bins, commit and metrics (delta-semantics.md §4 "Other operations' metrics").
//
// Bin-packing: per partition, the candidate files are those smaller than `min_file_size` plus
// those whose deletion vector removes more than `max_deleted_rows_ratio` of their rows; sorted by
// size, they are grouped into bins of at most `max_file_size` bytes, and each bin of two or more
// files, or of one file with a deletion vector, is rewritten as one file (deleted rows purged).
// Z-order: every file of each selected partition is read, its rows sorted by the Z-order of the
// columns (zorder.h) and written as max(1, partition bytes / max_file_size) files of equal row
// counts. Either way the commit holds only `remove`s and `add`s with dataChange=false (no change
// data), records the files it read (a concurrent DELETE or UPDATE of one of them makes the commit
// fail with DELTA_CONCURRENT_DELETE_READ; a concurrent append does not conflict), and is skipped
// when there is nothing to rewrite.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "silt/base/progress.h"
#include "silt/log/actions.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"
#include "silt/log/transaction.h"

namespace silt {
class ThreadPool;
}

namespace silt::log {

/// Session configuration keys OPTIMIZE reads (Spark's names).
inline constexpr std::string_view kOptimizeMinFileSizeKey =
    "spark.databricks.delta.optimize.minFileSize";
inline constexpr std::string_view kOptimizeMaxFileSizeKey =
    "spark.databricks.delta.optimize.maxFileSize";
inline constexpr std::string_view kOptimizeMaxDeletedRowsRatioKey =
    "spark.databricks.delta.optimize.maxDeletedRowsRatio";
inline constexpr std::string_view kOptimizeZOrderStatsCheckKey =
    "spark.databricks.delta.optimize.zorder.checkStatsCollection.enabled";
inline constexpr std::string_view kOptimizeClusteringMinCubeSizeKey =
    "spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.threshold";
inline constexpr std::string_view kOptimizeClusteringTargetCubeSizeKey =
    "spark.databricks.delta.optimize.clustering.mergeStrategy.minCubeSize.targetCubeSize";

/// What OPTIMIZE does and how.
struct OptimizeOptions {
  /// Files smaller than this (bytes) are compacted. Spark's default: 1 GiB.
  int64_t min_file_size = int64_t{1} << 30;
  /// The largest bin (bytes), and for Z-order the target size of an output file. Spark's default
  /// 1 GiB; callers pass the table's `delta.targetFileSize` when it is set.
  int64_t max_file_size = int64_t{1} << 30;
  /// Files whose deletion vector removes more than this share of their rows are rewritten.
  double max_deleted_rows_ratio = 0.05;
  /// Keeps the files of the partitions to optimize (called with each live file; it must decide
  /// by partition values only). Empty: every file.
  std::function<bool(const AddFile&)> partition_filter;
  /// The partition predicate as the transaction records it (a concurrent commit's appends are
  /// not checked against it: OPTIMIZE runs under snapshot isolation).
  std::vector<ScanPredicate> read_predicates;
  /// The SQL text of each partition predicate, for the `predicate` operation parameter.
  std::vector<std::string> predicate_sql;
  /// Columns to Z-order by (top-level data columns); empty for bin-packing.
  std::vector<std::string> zorder_columns;
  /// Refuse Z-order columns without statistics (DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS).
  bool check_zorder_column_stats = true;
  /// A clustered table's clustering columns (logical paths; clustering.h). When set, OPTIMIZE
  /// clusters incrementally as Delta's liquid clustering does: files not yet clustered, and
  /// ZCubes (the files one clustering job wrote, tagged ZCUBE_ID) smaller than
  /// `clustering_min_cube_size`, are grouped into new ZCubes of up to
  /// max(`clustering_target_cube_size`, `clustering_min_cube_size`) bytes, each rewritten in
  /// the order of ClusteringPermutation as max(1, bytes / max_file_size) files; a table whose
  /// candidates form a single ZCube is left alone. Files clustered by other columns (or by
  /// another provider) are left alone unless `full`.
  std::vector<std::vector<std::string>> clustering_columns;
  /// OPTIMIZE FULL: also recluster the files clustered by other columns.
  bool full = false;
  /// Delta's defaults: 100 GiB and 1.5 times that.
  int64_t clustering_min_cube_size = int64_t{100} << 30;
  int64_t clustering_target_cube_size = int64_t{150} << 30;
  /// REORG TABLE ... APPLY (PURGE), as Delta runs it: the files with deletion vectors (whatever
  /// share of rows they delete) and the files named in `purge_paths` (data of dropped columns)
  /// are rewritten whatever their size, bin-packed as above, and the commit is a "REORG" with
  /// `applyPurge`. min_file_size, max_deleted_rows_ratio and clustering do not apply.
  bool purge = false;
  /// With `purge`: the paths (as the log spells them) of other files to rewrite.
  std::set<std::string> purge_paths;
  /// The table features the caller enforces itself (see Transaction::Start).
  std::vector<std::string> enforced_features;
  ThreadPool* pool = nullptr;  ///< nullptr: the default pool.
  /// Also carries the statement's cancel request, checked before each bin and row group.
  CommitOptions commit;
  /// Counts the files chosen for rewriting as the input to read, then each one read and the
  /// rows written. Not owned; nullptr = nobody listens.
  Progress* progress = nullptr;
};

/// Sizes of a set of files (Delta's FileSizeMetrics).
struct FileSizeMetrics {
  std::optional<int64_t> min;  ///< nullopt when there are no files.
  std::optional<int64_t> max;
  double avg = 0;
  int64_t total_files = 0;
  int64_t total_size = 0;
};

/// Delta's OptimizeMetrics, the fields silt fills.
struct OptimizeMetrics {
  int64_t num_files_added = 0;
  int64_t num_files_removed = 0;
  FileSizeMetrics files_added;
  FileSizeMetrics files_removed;
  int64_t partitions_optimized = 0;
  /// Z-order only: files merged (all of them: silt keeps no Z-cubes), their bytes, and output
  /// "cubes" (one per partition rewritten).
  bool zorder = false;
  int64_t zorder_merged_files = 0;
  int64_t zorder_merged_bytes = 0;
  int64_t zorder_output_cubes = 0;
  /// Clustering only (Delta's ClusteringStats): the input files in ZCubes of the current
  /// clustering columns (all ZCubes under FULL) and their number of ZCubes, the other input
  /// files, the files rewritten, and the ZCubes written.
  bool clustering = false;
  int64_t clustering_input_cube_files = 0;
  int64_t clustering_input_cube_bytes = 0;
  int64_t clustering_input_other_files = 0;
  int64_t clustering_input_other_bytes = 0;
  int64_t clustering_input_cubes = 0;
  int64_t clustering_merged_files = 0;
  int64_t clustering_merged_bytes = 0;
  int64_t clustering_output_cubes = 0;
  int64_t num_bins = 0;
  int64_t num_batches = 0;
  int64_t total_considered_files = 0;
  int64_t total_files_skipped = 0;
  int64_t start_time_ms = 0;
  int64_t end_time_ms = 0;
  int64_t total_cluster_parallelism = 0;
  int64_t num_deletion_vectors_removed = 0;
  int64_t num_deletion_vector_rows_removed = 0;
  int64_t num_table_columns = 0;
  int64_t num_table_columns_with_stats = 0;
};

/// What Optimize did.
struct OptimizeResult {
  /// The commit, or nullopt when nothing needed rewriting (nothing was committed).
  std::optional<CommitResult> commit;
  OptimizeMetrics metrics;
  /// The commit's operationMetrics, in the order Delta writes them (also without a commit).
  StringMap operation_metrics;
};

/// Runs OPTIMIZE on `snapshot` (the table as read; a concurrent commit since then is checked by
/// the transaction). Throws DELTA_ZORDERING_ON_PARTITION_COLUMN,
/// DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST, DELTA_ZORDERING_ON_COLUMN_WITHOUT_STATS,
/// UNSUPPORTED_DATA_TYPE for a Z-order column silt cannot order, what Transaction::Start and
/// Commit throw (DELTA_CONCURRENT_DELETE_READ, DELTA_CONCURRENT_DELETE_DELETE, ...), and read and
/// write errors. Data files written before a failure stay behind as orphans for VACUUM.
OptimizeResult Optimize(std::shared_ptr<const Snapshot> snapshot, const OptimizeOptions& options);

/// The top-level data columns of `metadata`'s schema that get statistics: the first
/// `delta.dataSkippingNumIndexedCols` (default 32; -1: all) leaf columns, or the columns named by
/// `delta.dataSkippingStatsColumns` when set. Partition columns are never included.
std::vector<std::string> StatsColumns(const Metadata& metadata);

}  // namespace silt::log
