#pragma once

// RESTORE (delta-semantics.md §4, §8): brings a table back to the state of an earlier version
// by committing the difference between that version and the latest one.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"

namespace silt::log {

struct RestoreOptions {
  /// The version to restore; exactly one of `version` and `timestamp_ms` is set.
  std::optional<int64_t> version;
  /// Restore the latest version committed at or before this time (milliseconds since the epoch).
  std::optional<int64_t> timestamp_ms;
  /// The timestamp as written in the commit's `timestamp` parameter and in error messages (the
  /// statement formats it in the session time zone); empty: `timestamp_ms` formatted in UTC.
  std::string timestamp_text;
  /// Refuse when a file to bring back no longer exists (Spark's
  /// spark.sql.files.ignoreMissingFiles = false).
  bool check_files_exist = true;
  /// The commit clock, in milliseconds since the epoch; nullopt: the system clock.
  std::optional<int64_t> now_ms;
  /// Passed to Transaction::Start.
  std::vector<std::string> enforced_features;
};

/// What RESTORE committed, with Delta's metrics.
struct RestoreResult {
  int64_t committed_version = 0;  ///< The version of the RESTORE commit.
  int64_t restored_version = 0;   ///< The version whose state the table now has.
  int64_t table_size_after_restore = 0;
  int64_t num_of_files_after_restore = 0;
  int64_t num_removed_files = 0;
  int64_t num_restored_files = 0;
  int64_t removed_files_size = 0;
  int64_t restored_files_size = 0;
};

/// Restores the table at `table_root` to an earlier version in one commit (operation RESTORE,
/// parameters `version` and `timestamp`, Delta's metrics): files live then but not now are added
/// again as they were recorded (deletion vectors included, dataChange = true), files live now but
/// not then are removed; a file whose deletion vector differs counts as both. The metadata of
/// the restored version comes back when it differs; the protocol is never downgraded. No
/// change-data files are written: change-feed readers derive the changes from the adds and
/// removes.
///
/// Throws DELTA_CANNOT_RESTORE_TABLE_VERSION (with the restorable range) for a version that does
/// not exist or can no longer be reconstructed, DELTA_CANNOT_RESTORE_TO_LATEST_VERSION for the
/// latest version itself (as Delta, which refuses it), DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER /
/// DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER for a timestamp after the latest or before the
/// earliest commit, DELTA_RESTORE_MISSING_DATA_FILES (before committing anything) when data or
/// deletion-vector files to bring back are gone, and what Snapshot::Load and Transaction throw.
RestoreResult Restore(const std::shared_ptr<io::FileSystem>& fs, const std::string& table_root,
                      const RestoreOptions& options);

/// The protocol that supports everything `current` and `other` support (Delta's
/// Protocol.merge): the higher reader and writer versions, with the union of the features in
/// effect listed when the versions use named features. `current`'s own lists keep their order.
Protocol MergeProtocols(const Protocol& current, const Protocol& other);

}  // namespace silt::log
