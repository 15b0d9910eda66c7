#pragma once

// VACUUM (delta-semantics.md §4): deletes the files under a table's folder that no version
// within the retention period needs, and records the run in the table's history.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/cancellation.h"
#include "silt/log/actions.h"
#include "silt/log/snapshot.h"

namespace silt::log {

/// Delta's default for `delta.deletedFileRetentionDuration`: one week.
inline constexpr int64_t kDefaultDeletedFileRetentionMs = 7LL * 24 * 3600 * 1000;

/// How long a table keeps the files of removed data: `delta.deletedFileRetentionDuration`
/// ("interval 1 week" by default) in milliseconds. Throws INVALID_CONFIGURATION for malformed text.
int64_t DeletedFileRetentionMs(const Metadata& metadata);

/// True when VACUUM leaves the entry `name` (one path component) and everything below it alone:
/// names starting with '_' or '.' (`_delta_log`, `_SUCCESS`, `.crc` side files), except
/// `_change_data`, `_delta_index` and partition folders (`<partition column>=value`), whose
/// names may start with '_' but hold table data.
bool IsHiddenFromVacuum(std::string_view name, const std::vector<std::string>& partition_columns);

struct VacuumOptions {
  /// RETAIN n HOURS, in milliseconds; nullopt uses the table's deleted-file retention.
  std::optional<int64_t> retention_ms;
  /// Refuse a retention below the table's (spark.databricks.delta.retentionDurationCheck.enabled).
  bool retention_check_enabled = true;
  /// List what would be deleted without deleting or committing anything.
  bool dry_run = false;
  /// Commit VACUUM START and VACUUM END around the deletion
  /// (spark.databricks.delta.vacuum.logging.enabled).
  bool log_operation = true;
  /// The clock, in milliseconds since the epoch; nullopt: the system clock.
  std::optional<int64_t> now_ms;
  /// Passed to Transaction::Start for the VACUUM START/END commits.
  std::vector<std::string> enforced_features;
  /// The statement's cancel request, checked before each folder listed and each file deleted:
  /// a cancel while listing commits nothing; one while deleting commits VACUUM END with status
  /// FAILED, as any failed deletion does. Not owned; nullptr = not cancellable.
  const Cancellation* cancellation = nullptr;
};

struct VacuumResult {
  /// The storage paths of the files deleted (or, in a dry run, that would be), sorted.
  std::vector<std::string> files;
  /// Their total size in bytes.
  int64_t bytes = 0;
  /// The files actually deleted (a file another process deleted first is not counted).
  int64_t deleted_files = 0;
  /// The folders under the table root that were searched, the root included (Delta's
  /// numVacuumedDirectories).
  int64_t directories = 0;
  /// The time before which unreferenced files were old enough to delete.
  int64_t delete_before_ms = 0;
  /// The versions of the VACUUM START / VACUUM END commits, when written.
  std::optional<int64_t> start_version;
  std::optional<int64_t> end_version;
};

/// Vacuums the table of `snapshot`, which should be its latest version. A file is kept when the
/// snapshot references it (live files, tombstones whose deletionTimestamp is within the
/// retention, and the deletion-vector files of both) or when it was modified within the
/// retention (a concurrent writer's uncommitted file; change-data files of recent commits);
/// every other file under the table root outside hidden folders is deleted through the
/// snapshot's file system. Throws INVALID_ARGUMENT for a negative retention,
/// DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT for one below the table's while the check is on,
/// what Transaction::Start/Commit throw, and storage errors; when a deletion fails after VACUUM
/// START was committed, VACUUM END is committed with status FAILED before the error propagates.
VacuumResult Vacuum(const std::shared_ptr<const Snapshot>& snapshot, const VacuumOptions& options);

}  // namespace silt::log
