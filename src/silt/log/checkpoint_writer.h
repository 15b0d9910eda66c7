#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"

namespace silt::log {

// Writing checkpoints (protocol §3-4): the reconciled state of one version as a Parquet file with
// one nullable struct column per action type, and the `_last_checkpoint` hint that points to it.

/// What WriteCheckpoint wrote.
struct CheckpointWriteResult {
  int64_t version = 0;
  std::string path;            ///< The checkpoint file.
  int64_t num_actions = 0;     ///< Rows (actions) in the checkpoint.
  int64_t num_add_files = 0;   ///< `add` rows.
  int64_t size_in_bytes = 0;   ///< The checkpoint file's size.
  bool v2 = false;             ///< A UUID-named V2 checkpoint (with a `checkpointMetadata` row).
  bool already_existed = false;  ///< Another writer had written this checkpoint first.
};

/// Options for WriteCheckpoint.
struct CheckpointWriteOptions {
  /// "Now" for tombstone retention (ms since the epoch); nullopt: the system clock.
  std::optional<int64_t> now_ms;
  /// Rows per Parquet batch handed to the writer (bounds the builders' memory).
  int64_t rows_per_batch = 65536;
};

/// Writes the classic checkpoint `NNNN.checkpoint.parquet` of `snapshot`'s version and then
/// `_last_checkpoint`. The checkpoint holds protocol, metaData, every txn, live domainMetadata,
/// tombstones whose deletionTimestamp is within `delta.deletedFileRetentionDuration` (default one
/// week), and every live add with its `stats` JSON (when `delta.checkpoint.writeStatsAsJson` is
/// not false), plus typed `partitionValues_parsed` / `stats_parsed` unless
/// `delta.checkpoint.writeStatsAsStruct` is false. A table with the v2Checkpoint feature and
/// `delta.checkpointPolicy = v2` (Delta's rule; V1 classic checkpoints stay allowed with the
/// feature, and are what a table leaving the feature needs) gets a UUID-named V2 checkpoint `NNNN.checkpoint.<uuid>.parquet` (one `checkpointMetadata` row, all
/// file actions inline, no sidecars) and a `v2Checkpoint` entry in `_last_checkpoint`. The file
/// is created with put-if-absent, so a reader never sees a partial checkpoint; for the classic
/// name, two writers racing to checkpoint one version keep whichever landed first. `_last_checkpoint` is
/// replaced atomically (temporary file + rename) and is never moved backwards to an older
/// version. Throws storage and Parquet writer errors.
CheckpointWriteResult WriteCheckpoint(const Snapshot& snapshot, const CheckpointWriteOptions& options = {});

/// Loads the snapshot of `table_root` at `version` and checkpoints it.
CheckpointWriteResult WriteCheckpoint(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                                      int64_t version, const CheckpointWriteOptions& options = {});

/// The `checksum` of a `_last_checkpoint` JSON object (protocol §4): the object flattened to
/// `path=value` pairs (keys quoted, array indexes bare, path segments joined by '+', strings
/// quoted and percent-encoded except A-Z a-z 0-9 - . _ ~, the top-level "checksum" dropped),
/// sorted by bytes, joined by ',', MD5 as 32 lower-case hex digits. Throws INVALID_ARGUMENT when
/// `json` is not a JSON object.
std::string LastCheckpointChecksum(std::string_view json);

/// MD5 of `bytes` as 32 lower-case hex digits.
std::string Md5Hex(std::string_view bytes);

}  // namespace silt::log
