#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/snapshot.h"
#include "silt/stream/offset.h"
#include "silt/stream/source.h"

namespace silt::stream {

/// A Delta table read as a stream, as Delta's DeltaSource reads it (docs/streaming.md): first
/// the files of the starting snapshot in Delta's order (modification time, then path), then
/// the files each later commit adds, in log order.
///
/// Options (names case-insensitive): `startingVersion` (a version or "latest": stream the
/// commits from there on, without a snapshot), `startingTimestamp` (the first commit at or
/// after it), `maxFilesPerTrigger` (default 1000), `maxBytesPerTrigger` (soft: the file that
/// crosses it is still admitted), `ignoreDeletes` (skip commits that only remove whole files),
/// `skipChangeCommits` (skip every commit that removes data, with what it adds),
/// `ignoreChanges` (Delta's older option: emit a rewrite's added files again),
/// `excludeRegex` (leave out files whose path matches) and `readChangeFeed` (stream the change
/// data feed: the snapshot's rows as inserts, then each commit's changes with `_change_type`,
/// `_commit_version` and `_commit_timestamp`; deletes and updates are changes, not failures;
/// admission counts a commit as one file).
///
/// A commit that removes data fails the stream with DELTA_SOURCE_IGNORE_DELETE (it only
/// removes) or DELTA_SOURCE_TABLE_IGNORE_CHANGES (it also adds) unless an option above says
/// otherwise; a commit that changes the schema fails it with DELTA_SCHEMA_CHANGED_WITH_VERSION
/// (or ..._WITH_STARTING_OPTIONS when the stream was started with a starting option). A batch
/// never reaches past such a commit: the data before it is streamed first, and a restarted
/// source reads with the new schema. Not thread-safe.
class DeltaSource final : public Source {
 public:
  /// Opens the table at `table_root` (its latest snapshot gives the schema and table id).
  /// Throws DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET and INVALID_STREAMING_OPTION for bad
  /// options, and what Snapshot::Load throws.
  static std::unique_ptr<DeltaSource> Open(std::shared_ptr<io::FileSystem> fs,
                                           std::string table_root, std::string display_name,
                                           const StreamOptions& options);

  std::string Describe() const override;
  SchemaPtr schema() const override { return output_schema_; }
  std::string InitialOffset() override;
  /// Throws DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE when the offset is of another table.
  void ValidateOffset(const std::string& offset) override;
  void PrepareForAvailableNow() override;
  std::optional<std::string> LatestOffset(const std::string& start) override;
  BatchInput PlanBatch(const std::string& start, const std::string& end) override;

  const std::string& table_id() const { return table_id_; }

 private:
  // What one commit means to the stream.
  struct CommitChanges {
    std::vector<log::AddFile> adds;  // data adds, in log order (after the options' filtering)
    std::optional<Schema> schema;    // set when the commit changes the schema read
    std::optional<std::string> removed_path;  // a data remove the stream cannot skip
    // Change feed streams: the version's changes as one unit (in `adds`, path empty).
    bool with_adds = false;                   // ... in a commit that also adds data
  };
  // A file position: (version, index); the initial snapshot's files sit at its version.
  struct Position {
    int64_t version = 0;
    int64_t index = DeltaSourceOffset::kBaseIndex;
    bool starting = false;
  };

  DeltaSource() = default;
  DeltaSourceOffset ParseOffset(const std::string& text) const;
  std::string OffsetText(const Position& position) const;
  const std::vector<log::AddFile>& InitialFiles(int64_t version);
  const CommitChanges& Changes(int64_t version);
  int64_t LatestVersion();
  bool Excluded(const log::AddFile& file) const;
  // Walks the files after `start` in stream order, calling `visit` for each with its position
  // and whether it is the last of its version; `visit` returns false to stop before the file.
  // Stops before a version whose commit fails the stream when `stop_before_failure` and
  // something was visited; otherwise throws that version's error. Returns the position after
  // the last file or version passed.
  Position Walk(const Position& start, std::optional<int64_t> last_version,
                const std::function<bool(const Position&, const log::AddFile&)>& visit,
                bool* stopped_at_failure);
  [[noreturn]] void ThrowFailure(int64_t version, const CommitChanges& changes) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  std::string display_name_;
  std::shared_ptr<const log::Snapshot> read_snapshot_;
  SchemaPtr schema_;         // the table's, as read when the source opened
  SchemaPtr output_schema_;  // the rows': with a change feed, plus its three columns
  std::string table_id_;

  std::optional<int64_t> starting_version_;
  bool starting_latest_ = false;
  std::optional<int64_t> starting_timestamp_ms_;
  int64_t max_files_ = 1000;
  std::optional<int64_t> max_bytes_;
  bool ignore_deletes_ = false;
  bool ignore_changes_ = false;
  bool skip_change_commits_ = false;
  std::optional<std::regex> exclude_regex_;
  std::optional<int64_t> available_now_version_;
  bool read_change_feed_ = false;
  std::map<int64_t, int64_t> initial_timestamps_;  // snapshot version -> its commit time

  int64_t latest_known_ = -1;
  std::map<int64_t, std::vector<log::AddFile>> initial_files_;
  std::map<int64_t, CommitChanges> changes_;
};

}  // namespace silt::stream
