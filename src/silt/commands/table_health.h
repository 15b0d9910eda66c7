#pragma once

// A Delta table's health, read from its log: how it grew commit by commit, whether its live
// files are too small or too skewed across partitions, how much of them deletion vectors hide,
// how much change data the log still references, when it was last optimized, vacuumed and
// checkpointed, and what to run about it. Behind `DESCRIBE HEALTH` and `silt report`.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/sql/ast.h"

namespace silt::sql {
class SessionState;
}

namespace silt::commands {

/// The default small-file threshold: 8 MiB.
inline constexpr int64_t kDefaultSmallFileBytes = int64_t{8} << 20;
/// The default share of deleted rows above which a file's deletion vector is called dense.
inline constexpr double kDefaultDenseDeletionVectorRatio = 0.3;

struct TableHealthOptions {
  /// Live files smaller than this count as small.
  int64_t small_file_bytes = kDefaultSmallFileBytes;
  /// Files whose deletion vector hides more than this share of their rows are called dense.
  double dense_deletion_vector_ratio = kDefaultDenseDeletionVectorRatio;
  /// The clock, in milliseconds since the epoch, for ages and the VACUUM estimate; nullopt: the
  /// system clock.
  std::optional<int64_t> now_ms;
};

/// One commit still in the log.
struct CommitHealth {
  int64_t version = 0;
  /// In-commit timestamp, else commitInfo.timestamp, else the commit file's time (as DESCRIBE
  /// HISTORY shows it).
  int64_t timestamp_ms = 0;
  std::string operation;  ///< commitInfo.operation; empty when the commit has none.
  /// Logical rows of the files added / removed (numRecords minus deletion-vector rows). A remove
  /// without statistics counts the rows of the add it removes when that add is still in the log;
  /// an add without them falls back on the operation's numOutputRows metric. nullopt when
  /// nothing tells.
  std::optional<int64_t> rows_added;
  std::optional<int64_t> rows_removed;
  int64_t files_added = 0;
  int64_t files_removed = 0;
  int64_t bytes_added = 0;
  int64_t bytes_removed = 0;  ///< of the removes that carry a size
  int64_t change_data_files = 0;
  int64_t change_data_bytes = 0;
};

/// One bar of the live-file size histogram: files with lower_bytes <= size < upper_bytes.
struct SizeBucket {
  int64_t lower_bytes = 0;
  std::optional<int64_t> upper_bytes;  ///< nullopt: no upper bound
  int64_t files = 0;
  int64_t bytes = 0;
};

/// The live files of one partition.
struct PartitionHealth {
  std::string name;  ///< "c1=v1/c2=v2" as the partition folder is named; "" when unpartitioned
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t small_files = 0;  ///< files under the small-file threshold
};

/// A live file with a deletion vector.
struct DeletionVectorHealth {
  std::string path;             ///< as the log names it
  std::optional<int64_t> rows;  ///< numRecords of the data file; nullopt without statistics
  int64_t deleted_rows = 0;
  /// deleted_rows / rows; nullopt without statistics.
  std::optional<double> density;
};

/// What VACUUM with the table's retention would delete now (a dry run).
struct VacuumEstimate {
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t retention_ms = 0;
};

/// One recommendation. `kind` is stable ("optimize", "vacuum", "purge_deletion_vectors",
/// "checkpoint", "partition_skew"); `message` carries the numbers behind it.
struct HealthAdvice {
  std::string kind;
  std::string message;
};

/// A table's health at its latest version.
struct TableHealth {
  std::string location;
  int64_t version = 0;
  int64_t timestamp_ms = 0;  ///< of the latest version
  int64_t now_ms = 0;        ///< the time the ages below are measured from

  int64_t num_files = 0;
  int64_t size_bytes = 0;
  /// Logical rows of the live files; nullopt when a file has no numRecords statistic.
  std::optional<int64_t> num_rows;

  /// The commits still in the log, ascending by version.
  std::vector<CommitHealth> commits;

  int64_t small_file_bytes = 0;  ///< the threshold used
  /// `delta.targetFileSize` when set, and the live files smaller than half of it.
  std::optional<int64_t> target_file_bytes;
  int64_t files_below_half_target = 0;
  int64_t small_files = 0;
  int64_t small_files_bytes = 0;
  /// The small files OPTIMIZE could compact: those in partitions with at least two of them (a
  /// partition's lone small file has nothing to be packed with).
  int64_t compactable_small_files = 0;
  std::vector<SizeBucket> size_histogram;

  std::vector<std::string> partition_columns;
  /// Every partition with live files, largest (bytes) first; one unnamed entry when the table
  /// is not partitioned.
  std::vector<PartitionHealth> partitions;
  int64_t median_partition_bytes = 0;

  double dense_deletion_vector_ratio = 0;  ///< the threshold used
  int64_t deleted_rows = 0;                ///< rows hidden by deletion vectors
  int64_t dense_deletion_vector_files = 0;
  /// The live files with a deletion vector, densest first.
  std::vector<DeletionVectorHealth> deletion_vectors;

  /// `cdc` actions in the commits still in the log.
  int64_t change_data_files = 0;
  int64_t change_data_bytes = 0;

  std::optional<int64_t> last_optimize_version;
  std::optional<int64_t> last_optimize_ms;
  std::optional<int64_t> last_vacuum_version;  ///< VACUUM END, else VACUUM START
  std::optional<int64_t> last_vacuum_ms;
  std::optional<int64_t> last_checkpoint_version;
  std::optional<int64_t> last_checkpoint_ms;  ///< the checkpoint file's modification time
  /// Commits after the newest checkpoint (every commit when there is none).
  int64_t commits_since_checkpoint = 0;
  int64_t checkpoint_interval = 0;  ///< `delta.checkpointInterval` (10 by default)

  /// nullopt when silt cannot plan a VACUUM of this table; the reason is then in
  /// vacuum_unavailable.
  std::optional<VacuumEstimate> vacuum;
  std::string vacuum_unavailable;

  std::vector<HealthAdvice> advice;
};

/// Computes the health of the Delta table at `table_root`. Reads every commit file still in
/// `_delta_log`, the latest snapshot and the table folder (for the VACUUM estimate); writes
/// nothing. Throws what Snapshot::Load throws, DELTA_INVALID_LOG_ENTRY for a corrupt commit,
/// INVALID_CONFIGURATION for a malformed table property, and storage errors.
TableHealth ComputeTableHealth(const std::shared_ptr<io::FileSystem>& fs,
                               const std::string& table_root,
                               const TableHealthOptions& options = {});

/// As above for the table `name` names in `session` (a catalog name or delta.`path`); throws
/// what the resolution throws (TABLE_OR_VIEW_NOT_FOUND, EXPECT_TABLE_NOT_VIEW, ...).
TableHealth ComputeTableHealth(sql::SessionState& session, const sql::QualifiedName& name,
                               const TableHealthOptions& options = {});

/// The health as one JSON object with stable camelCase keys (docs/table-health.md).
std::string TableHealthJson(const TableHealth& health);

/// `bytes` for people: "512 B", "3.4 KB", "1.2 GB" (binary multiples, one decimal).
std::string FormatByteSize(int64_t bytes);

/// A duration for people: "45 s", "12 min", "5.5 h", "3.2 days".
std::string FormatDuration(int64_t ms);

}  // namespace silt::commands
