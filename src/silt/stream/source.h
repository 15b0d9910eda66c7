#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "silt/exec/text_format.h"
#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"
#include "silt/types/data_type.h"

namespace silt::stream {

/// The name under which a BatchInput's query reads its pinned snapshot.
inline constexpr std::string_view kStreamSnapshotName = "__silt_stream_snapshot";

/// Options of a streaming read or write, as `.option(key, value)` gives them. Spark compares
/// option names case-insensitively; the keys here are kept lower-cased.
class StreamOptions {
 public:
  StreamOptions() = default;
  explicit StreamOptions(const std::map<std::string, std::string>& options);
  void Set(const std::string& key, std::string value);
  std::optional<std::string> Get(const std::string& key) const;
  /// "true"/"false" in any case; INVALID_STREAMING_OPTION for other text.
  bool GetBool(const std::string& key, bool default_value) const;
  /// A positive integer; INVALID_STREAMING_OPTION for other text.
  std::optional<int64_t> GetPositiveInt(const std::string& key) const;
  /// A byte size: a positive number with an optional unit (b, k/kb, m/mb, g/gb, t/tb, as
  /// Spark's byte strings); INVALID_STREAMING_OPTION for other text.
  std::optional<int64_t> GetByteSize(const std::string& key) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;  // lower-case key
};

/// What a source hands the planner for one micro-batch: a Delta table pinned to exactly the
/// batch's files (a Snapshot::WithFiles), scanned like any table, or the batch's rows.
struct BatchInput {
  std::shared_ptr<const log::Snapshot> snapshot;
  /// When set (and `snapshot` not), the batch's rows as the source read them (file and rate
  /// sources), scanned as they are.
  std::shared_ptr<const exec::TextTable> rows;
  /// When not empty, the input is this query instead (bound as a temporary view of the stream
  /// input's name), which reads `snapshot` as kStreamSnapshotName: a change feed stream's rows.
  std::string query_sql;
  int64_t num_files = 0;
  int64_t num_bytes = 0;
  /// Rows in the files (from their statistics, minus deleted rows); nullopt when a file has
  /// no row count.
  std::optional<int64_t> num_rows;
};

/// A streaming source (Spark's `Source` with admission control). Offsets are the source's own
/// JSON text, stored in the checkpoint as they are. Called from one thread.
class Source {
 public:
  virtual ~Source() = default;

  /// For progress reports, e.g. "DeltaSource[/path/to/table]".
  virtual std::string Describe() const = 0;
  /// The rows' schema.
  virtual SchemaPtr schema() const = 0;
  /// Gives the source its folder of the checkpoint (`sources/<n>`), before InitialOffset and
  /// schema are asked. A source that keeps a log of its own there (the file source's list of
  /// the files each batch read, as Spark's FileStreamSourceLog) returns true, and the executor
  /// then stores no start offset in that folder; the default keeps nothing and returns false.
  virtual bool OpenMetadata(const std::shared_ptr<io::FileSystem>& fs, const std::string& folder) {
    (void)fs;
    (void)folder;
    return false;
  }
  /// Where a query that has never run starts (the start of its first batch). The executor
  /// stores it in the checkpoint the first time, so a restart starts from the same place.
  virtual std::string InitialOffset() = 0;
  /// Checks that an offset read from the checkpoint belongs to this source (and throws its
  /// error when not).
  virtual void ValidateOffset(const std::string& offset) = 0;
  /// Limits every later batch to the data present now (Trigger.AvailableNow).
  virtual void PrepareForAvailableNow() = 0;
  /// The end of the next batch starting after `start`, admitting at most what the read limits
  /// allow; nullopt when there is nothing new. Throws the source's errors for data it cannot
  /// stream (e.g. a Delta commit that removes rows).
  virtual std::optional<std::string> LatestOffset(const std::string& start) = 0;
  /// The input of the batch (start, end]; the same for the same offsets every time it is asked.
  virtual BatchInput PlanBatch(const std::string& start, const std::string& end) = 0;
  /// Called once the batch ending at `end` is committed (its commit marker written): a source
  /// may let go of what it read (the file source's cleanSource). Best effort: a batch replayed
  /// after a crash before this call is committed again and calls it then. The default does
  /// nothing.
  virtual void Commit(const std::string& end) { (void)end; }
  /// Called when the query stops running (its trigger is done, Stop, or a failure): a source
  /// lets go of what it holds open between batches (the PostgreSQL stream's replication
  /// connection, which would keep its slot busy). A later batch may reopen it. Must not throw.
  virtual void Close() noexcept {}
};

}  // namespace silt::stream
