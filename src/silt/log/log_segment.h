#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::log {

// Which files of `_delta_log` make up one version of a table (protocol §1-5).

/// The kinds of checkpoint file naming (protocol §3.1).
enum class CheckpointKind {
  kClassic,    ///< NNNN.checkpoint.parquet (V1 content, or V2 content under the classic name)
  kMultiPart,  ///< NNNN.checkpoint.OOOOOOOOOO.PPPPPPPPPP.parquet
  kUuid,       ///< NNNN.checkpoint.<uuid>.json|parquet (V2)
};

/// What a `_delta_log` file name says about itself.
struct LogFileName {
  enum class Type { kCommit, kCheckpoint, kCompaction, kChecksum };
  Type type = Type::kCommit;
  int64_t version = 0;  ///< The commit/checkpoint/crc version; a compaction's start version.
  int64_t end_version = 0;  ///< Compaction only: the last version covered.
  CheckpointKind checkpoint_kind = CheckpointKind::kClassic;
  int32_t part = 0;        ///< Multi-part only: 1-based part number.
  int32_t num_parts = 0;   ///< Multi-part only.
  bool json = false;       ///< UUID checkpoints: JSON rather than Parquet.
};

/// Parses the base name of a `_delta_log` entry; nullopt for anything that is not a commit,
/// checkpoint, compaction or checksum file (hidden files, temp files, `_last_checkpoint`).
std::optional<LogFileName> ParseLogFileName(std::string_view name);

/// Formats `version` as the 20-digit zero-padded prefix of log file names.
std::string FormatVersion(int64_t version);

/// One commit file.
struct CommitFile {
  int64_t version = 0;
  io::FileInfo file;
};

/// One complete checkpoint: all parts (classic and UUID: one file; multi-part: parts in order).
struct Checkpoint {
  int64_t version = 0;
  CheckpointKind kind = CheckpointKind::kClassic;
  std::vector<io::FileInfo> files;
};

/// One log compaction file covering commits [start_version, end_version].
struct Compaction {
  int64_t start_version = 0;
  int64_t end_version = 0;
  io::FileInfo file;
};

/// The content of `_last_checkpoint` that a reader uses.
struct LastCheckpointHint {
  int64_t version = 0;
  std::optional<int64_t> parts;
};

/// Reads `_last_checkpoint`. Returns nullopt when it is missing, empty or not a JSON object with
/// an integer `version`: it is only a hint, and listing finds the truth. Storage errors other
/// than a missing file are thrown.
std::optional<LastCheckpointHint> ReadLastCheckpoint(io::FileSystem& fs, std::string_view log_dir);

/// The files to read to reconstruct one version.
struct LogSegment {
  std::string table_root;
  std::string log_dir;
  int64_t version = -1;  ///< The version this segment reconstructs.
  std::optional<Checkpoint> checkpoint;  ///< Newest complete checkpoint at or before `version`.
  std::vector<CommitFile> commits;       ///< Every commit after the checkpoint up to `version`.
  /// Compactions that may replace runs of `commits` (each within (checkpoint, version]).
  std::vector<Compaction> compactions;
  /// The earliest version reconstructable from what was listed (error messages only: when the
  /// listing started at the `_last_checkpoint` hint this is the hinted checkpoint; use
  /// EarliestReconstructableVersion for the exact answer).
  int64_t earliest_version = 0;
  /// The latest version in the log.
  int64_t latest_version = -1;
};

/// Options for BuildLogSegment.
struct LogSegmentOptions {
  std::optional<int64_t> version;  ///< nullopt: the latest version.
  bool use_compactions = true;
};

/// Lists `<table_root>/_delta_log` (starting from the `_last_checkpoint` hint when it helps) and
/// picks the newest complete checkpoint at or before the wanted version plus the commits after it.
/// Throws DELTA_MISSING_DELTA_TABLE when the log holds no commit or checkpoint,
/// DELTA_VERSION_NOT_FOUND when the wanted version is beyond the latest or before the earliest
/// reconstructable one, and DELTA_VERSIONS_NOT_CONTIGUOUS when a commit is missing in between.
LogSegment BuildLogSegment(io::FileSystem& fs, std::string_view table_root,
                           const LogSegmentOptions& options = {});

/// The earliest version that can be reconstructed from what is in the log (commit 0, or the
/// oldest complete checkpoint), from a full listing. Throws DELTA_MISSING_DELTA_TABLE for an
/// empty log.
int64_t EarliestReconstructableVersion(io::FileSystem& fs, std::string_view table_root);

/// Every commit file of the table in ascending version order (for history and time travel).
std::vector<CommitFile> ListCommits(io::FileSystem& fs, std::string_view table_root);

}  // namespace silt::log
