#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/log_segment.h"
#include "silt/vector/batch.h"

namespace silt {
class ThreadPool;
}

namespace silt::log {

// Reading checkpoints (protocol §3): classic and multi-part Parquet, V2 checkpoints in JSON or
// Parquet (under a UUID or a classic name) and the sidecar files they reference.

/// Converts the rows of one checkpoint (or sidecar) batch into actions. Each row carries one
/// non-null struct column among add, remove, metaData, protocol, txn, domainMetadata,
/// checkpointMetadata and sidecar; other columns and fields (stats_parsed,
/// partitionValues_parsed, maxRowIndex, ...) are ignored, and a missing column counts as null.
/// Throws DELTA_INVALID_CHECKPOINT naming `file` when a required field is null or mistyped.
std::vector<Action> ActionsFromCheckpointBatch(const Batch& batch, std::string_view file);

/// Reads every action of `checkpoint`: all its parts and, when it is a V2 checkpoint holding
/// `sidecar` actions, the sidecars' file actions (the sidecar actions themselves are kept too).
/// Parts and sidecars are read in parallel on `pool` (nullptr: the default pool).
/// Throws DELTA_INVALID_CHECKPOINT / PARQUET_CORRUPT_FILE for malformed files, PATH_NOT_FOUND when
/// a sidecar is missing.
std::vector<Action> ReadCheckpoint(io::FileSystem& fs, std::string_view log_dir,
                                   const Checkpoint& checkpoint, ThreadPool* pool = nullptr);

}  // namespace silt::log
