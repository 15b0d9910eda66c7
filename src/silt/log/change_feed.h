#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/table_scan.h"
#include "silt/types/data_type.h"

namespace silt {
class ThreadPool;
}

// Change data feed reads (protocol §15-16): which rows changed in a range of versions, planned
// from the commit files of that range alone, and read through TableScan.
namespace silt::log {

/// One end of a change feed range: a version, or a timestamp resolved against the commit
/// timestamps (start: the first commit at or after it; end: the last commit at or before it).
struct ChangeFeedBound {
  enum class Kind { kVersion, kTimestamp };
  Kind kind = Kind::kVersion;
  int64_t version = 0;       ///< kVersion
  int64_t timestamp_ms = 0;  ///< kTimestamp: milliseconds since the epoch (UTC)

  static ChangeFeedBound Version(int64_t version) { return {Kind::kVersion, version, 0}; }
  static ChangeFeedBound Timestamp(int64_t timestamp_ms) {
    return {Kind::kTimestamp, 0, timestamp_ms};
  }
};

/// The range to read; both bounds inclusive.
struct ChangeFeedOptions {
  ChangeFeedBound start;
  std::optional<ChangeFeedBound> end;  ///< nullopt: the latest version
  ThreadPool* pool = nullptr;          ///< for reading commits in parallel; nullptr = default
};

/// The names of the columns a change feed adds after the table's columns.
inline constexpr const char* kChangeTypeColumn = "_change_type";
inline constexpr const char* kCommitVersionColumn = "_commit_version";
inline constexpr const char* kCommitTimestampColumn = "_commit_timestamp";

/// One file whose rows (or some of them) are changes of one commit.
struct ChangeFile {
  int64_t version = 0;
  int64_t timestamp_ms = 0;  ///< the commit timestamp of `version`
  std::string path;          ///< as written in the log
  PartitionValueMap partition_values;
  int64_t size = 0;
  /// The change type of every row ("insert", "delete"); nullopt for a `cdc` file, whose rows
  /// carry their own `_change_type`.
  std::optional<std::string> change_type;
  /// Rows to leave out: the deletion vector of the add or remove.
  std::optional<DeletionVectorDescriptor> deletion_vector;
  /// When set, only these physical row positions (ascending) are changes: the rows a
  /// deletion-vector change on the same file drops (delete) or brings back (insert).
  std::shared_ptr<const std::vector<uint64_t>> selected_rows;
};

/// Opens the change files of a ChangeFeed and reads their rows as change feed output.
class ChangeFeedReader;

/// The plan of a change feed read: the resolved range, the metadata used to read it and the
/// change files of every commit in it, built from the log only (no data file is read; deletion
/// vectors are read where a file's DV changed within one commit). Immutable after Make; safe to
/// share between threads.
class ChangeFeed : public std::enable_shared_from_this<ChangeFeed> {
 public:
  /// Resolves `options`' bounds and plans the read. Throws:
  /// - DELTA_CDC_START_VERSION_AFTER_LATEST when the start version is after the latest;
  /// - DELTA_TIMESTAMP_GREATER_THAN_COMMIT when the start timestamp is after the last commit;
  /// - DELTA_INVALID_CDC_RANGE when start > end (two timestamps between the same two commits
  ///   give an empty range instead);
  /// - DELTA_VERSION_NOT_FOUND when a commit of the range is no longer in the log, or a
  ///   version is negative;
  /// - DELTA_MISSING_CHANGE_DATA when the feed is off at the start version or turned off by a
  ///   metaData inside the range;
  /// - DELTA_MISSING_DELTA_TABLE when `table_root` holds no commit, and the log readers' errors.
  static std::shared_ptr<const ChangeFeed> Make(std::shared_ptr<io::FileSystem> fs,
                                                std::string table_root,
                                                const ChangeFeedOptions& options);

  /// The resolved range; empty() when it holds no version (start_version = end_version + 1).
  int64_t start_version() const { return start_version_; }
  int64_t end_version() const { return end_version_; }
  bool empty() const { return start_version_ > end_version_; }
  int64_t latest_version() const { return latest_version_; }

  /// The metadata as of the end version: its schema is the output's (older files' missing
  /// columns read as NULL).
  const Metadata& metadata() const { return metadata_; }
  /// The table's columns, then _change_type STRING, _commit_version BIGINT and
  /// _commit_timestamp TIMESTAMP.
  const SchemaPtr& schema() const { return schema_; }
  /// Number of table columns at the front of schema().
  size_t num_table_columns() const { return schema_->num_fields() - 3; }

  /// The change files, by version then in log order.
  const std::vector<ChangeFile>& files() const { return files_; }
  /// The commit files this plan read (a test hook proving that only the range is read).
  int64_t commits_read() const { return commits_read_; }

  const std::shared_ptr<io::FileSystem>& file_system() const { return fs_; }
  const std::string& table_root() const { return table_root_; }

  /// A reader of the output columns `columns` (indexes into schema(), in output order; empty =
  /// all). `predicates` (a conjunction over schema()'s columns) only skip files and row groups
  /// that cannot hold a matching row: by _commit_version, partition values and Parquet
  /// statistics; the caller still filters the rows. Throws INVALID_ARGUMENT for an index out of
  /// range, and what TableScan::Make throws for a bad predicate.
  std::unique_ptr<ChangeFeedReader> MakeReader(std::vector<int> columns, ThreadPool* pool = nullptr,
                                               std::vector<ScanPredicate> predicates = {}) const;

 private:
  ChangeFeed() = default;

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  int64_t start_version_ = 0;
  int64_t end_version_ = -1;
  int64_t latest_version_ = -1;
  Metadata metadata_;
  SchemaPtr schema_;
  std::vector<ChangeFile> files_;
  int64_t commits_read_ = 0;
};

class ChangeFeedReader {
 public:
  /// The output columns chosen in MakeReader.
  const SchemaPtr& schema() const { return schema_; }
  /// The change files read: those the predicates did not rule out.
  size_t num_files() const { return files_.size(); }
  /// Change files skipped by the predicates.
  size_t num_pruned_files() const { return feed_->files().size() - files_.size(); }

  /// Opens the `index`-th change file read (its footer and deletion vector); its row groups return the
  /// change rows in schema()'s columns. Throws DELTA_CHANGE_DATA_FILE_NOT_FOUND when the file
  /// (or its deletion-vector file) is gone, and the Parquet reader's errors. The opened file
  /// must not outlive this reader.
  std::unique_ptr<TableScan::OpenedFile> OpenFile(size_t index) const;

  /// Every change row, files read in parallel (batches in file order). For tests and small
  /// reads; the exec operator streams through OpenFile instead.
  std::vector<Batch> ReadAll() const;

 private:
  friend class ChangeFeed;
  class OpenedChangeFile;
  ChangeFeedReader() = default;

  std::shared_ptr<const ChangeFeed> feed_;
  std::vector<int> columns_;  // output column -> index in the feed's schema
  SchemaPtr schema_;
  std::unique_ptr<TableScan> scan_;
  // Output column -> index among the scan's columns; -1 for the commit columns, and for
  // _change_type when no file needs it read.
  std::vector<int> scan_position_;
  ThreadPool* pool_ = nullptr;
  std::vector<const ChangeFile*> files_;  // the files kept, in the feed's order
};

}  // namespace silt::log
