#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/log_segment.h"
#include "silt/log/table_features.h"
#include "silt/types/data_type.h"

namespace silt {
class ThreadPool;
}

namespace silt::log {

/// How to choose the version of a snapshot. At most one of `version` and `timestamp_ms`.
struct SnapshotOptions {
  std::optional<int64_t> version;       ///< Time travel to this version.
  std::optional<int64_t> timestamp_ms;  ///< Time travel: the latest commit at or before this.
  bool use_compactions = true;          ///< Let log compaction files replace commit runs.
  ThreadPool* pool = nullptr;           ///< For parallel log reading; nullptr = default pool.
};

/// The state of a table at one version (protocol §9): protocol, metadata, live logical files,
/// tombstones, application transaction versions and domain metadata.
///
/// Built by replaying the log newest-first with a seen-set keyed by (decoded path, deletion-vector
/// unique id): the first action seen for a key decides it, which equals oldest-first replay with
/// last-wins and lets a loader skip older actions for files it already knows.
/// Immutable after Load; safe to share between threads.
class Snapshot {
 public:
  /// Loads the snapshot of the table at `table_root`. Throws what BuildLogSegment throws,
  /// DELTA_TIMESTAMP_GREATER_THAN_COMMIT / DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION for
  /// timestamps outside the table's history, DELTA_INVALID_LOG_ENTRY / DELTA_INVALID_CHECKPOINT
  /// for corrupt files, DELTA_STATE_RECOVER_ERROR when no protocol or metadata is found, and the
  /// protocol-check errors of CheckReadSupported.
  static std::shared_ptr<const Snapshot> Load(std::shared_ptr<io::FileSystem> fs,
                                              std::string table_root,
                                              const SnapshotOptions& options = {});

  /// A snapshot of the same version, protocol and metadata whose live files are `files` only
  /// (each with its deletion vector): a scan of it reads exactly those rows. A streaming source
  /// hands a micro-batch's files to the planner this way. Tombstones are left out.
  std::shared_ptr<const Snapshot> WithFiles(std::vector<AddFile> files) const;

  int64_t version() const { return segment_.version; }
  const Protocol& protocol() const { return protocol_; }
  const Metadata& metadata() const { return metadata_; }
  /// The table properties (`metaData.configuration`).
  const StringMap& properties() const { return metadata_.configuration; }
  /// The value of table property `key`, or nullptr.
  const std::string* Property(std::string_view key) const;
  /// The table schema, parsed from `metaData.schemaString` on first use. Throws
  /// INVALID_SCHEMA_JSON when it is malformed.
  const Schema& schema() const;
  ColumnMappingMode column_mapping_mode() const { return GetColumnMappingMode(metadata_); }

  /// The live logical files, in no particular order.
  const std::vector<AddFile>& files() const { return files_; }
  /// The tombstones (removes not superseded by a later add of the same key).
  const std::vector<RemoveFile>& tombstones() const { return tombstones_; }
  /// appId -> the latest txn action of that application.
  const std::map<std::string, SetTransaction>& transactions() const { return transactions_; }
  /// The latest committed version of `app_id`, or nullopt.
  std::optional<int64_t> TransactionVersion(std::string_view app_id) const;
  /// domain -> its live (not removed) domainMetadata.
  const std::map<std::string, DomainMetadata>& domain_metadata() const { return domains_; }

  /// The commit timestamp of this version: the in-commit timestamp when the commit has one,
  /// otherwise the commit file's modification time. -1 when the commit file is gone.
  int64_t timestamp_ms() const { return timestamp_ms_; }
  /// The commitInfo of this version's commit, when it was read.
  const std::optional<CommitInfo>& commit_info() const { return commit_info_; }

  const LogSegment& log_segment() const { return segment_; }
  const std::string& table_root() const { return segment_.table_root; }
  const std::shared_ptr<io::FileSystem>& file_system() const { return fs_; }

  /// The storage path of a file named in the log: the path decoded once, a "file:" scheme
  /// stripped, and a relative path joined to the table root.
  std::string ResolvePath(std::string_view log_path) const;

 private:
  Snapshot() = default;

  std::shared_ptr<io::FileSystem> fs_;
  LogSegment segment_;
  Protocol protocol_;
  Metadata metadata_;
  std::vector<AddFile> files_;
  std::vector<RemoveFile> tombstones_;
  std::map<std::string, SetTransaction> transactions_;
  std::map<std::string, DomainMetadata> domains_;
  int64_t timestamp_ms_ = -1;
  std::optional<CommitInfo> commit_info_;
  mutable std::once_flag schema_once_;
  mutable std::shared_ptr<const Schema> schema_;
};

/// The timestamp of one commit.
struct CommitTimestamp {
  int64_t version = 0;
  int64_t timestamp_ms = 0;
};

/// The commit timestamps of every reconstructable version, ascending: in-commit timestamps where
/// the commit has one, otherwise file modification times made strictly increasing as Spark's
/// history does (a time not after its predecessor's becomes the predecessor's + 1 ms).
std::vector<CommitTimestamp> ListCommitTimestamps(io::FileSystem& fs, std::string_view table_root);

/// The latest version whose commit timestamp is at or before `timestamp_ms`. Throws
/// DELTA_TIMESTAMP_GREATER_THAN_COMMIT when it is after the latest commit (unless
/// `allow_after_latest`, which then returns the latest version) and
/// DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION when it is before the earliest one.
int64_t VersionAtTimestamp(io::FileSystem& fs, std::string_view table_root, int64_t timestamp_ms,
                           bool allow_after_latest = false);

/// Canonical form of a log path used as the file part of the reconciliation key: decoded once,
/// "file:" scheme forms reduced to a plain absolute path.
std::string CanonicalLogPath(std::string_view log_path);

}  // namespace silt::log
