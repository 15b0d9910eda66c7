#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"

namespace silt::log {

/// What CleanUpExpiredLogs did.
struct LogCleanupResult {
  /// The checkpoint everything older was cleaned against; nullopt when no checkpoint is old
  /// enough (then nothing was deleted).
  std::optional<int64_t> cutoff_checkpoint_version;
  int64_t deleted_files = 0;
};

/// Deletes expired log files (protocol §17) when `delta.enableExpiredLogCleanup` is not false:
/// finds the newest complete checkpoint whose file is older than `now_ms -
/// delta.logRetentionDuration` (default 30 days), then deletes commit, checkpoint and checksum
/// files of older versions and compactions starting before it, each only when its own
/// modification time is past the cut-off too. The cut-off checkpoint, its commit and every later
/// file are kept, so every version from the cut-off checkpoint on stays reconstructable. Throws
/// INVALID_CONFIGURATION for a malformed retention and storage errors.
///
/// `cutoff_ms`, when given, replaces `now_ms - delta.logRetentionDuration` and applies even when
/// cleanup is disabled (DROP FEATURE ... TRUNCATE HISTORY). Never deleting a checkpoint at or
/// after the cut-off and never writing one keeps the checkpointProtection feature's rule (its
/// protected checkpoints go only with all the history before them).
LogCleanupResult CleanUpExpiredLogs(io::FileSystem& fs, const std::string& table_root,
                                    const Metadata& metadata, int64_t now_ms,
                                    std::optional<int64_t> cutoff_ms = std::nullopt);

}  // namespace silt::log
