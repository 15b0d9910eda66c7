#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"

namespace silt::stream {

/// What `offsets/<batch>` holds: the batch's end offset of every source (nullopt: the source
/// has none yet, written "-") and the batch's metadata line.
struct OffsetSeq {
  std::vector<std::optional<std::string>> offsets;  ///< each source's offset JSON
  int64_t batch_watermark_ms = 0;
  int64_t batch_timestamp_ms = 0;
  std::map<std::string, std::string> conf;

  bool operator==(const OffsetSeq&) const = default;
};

/// A streaming query's checkpoint folder, laid out as Spark's so that tools that know Spark's
/// layout can read it (docs/streaming.md):
///
///   metadata             {"id":"<query id>"}
///   offsets/<batch>      v1, {"batchWatermarkMs":..,"batchTimestampMs":..,"conf":{..}}, then
///                        one line per source: its end offset for the batch
///   commits/<batch>      v1, {"nextBatchWatermarkMs":..}: the batch's sink commit is done
///   state/<op>/...       the state of stateful operators (stream/state_store.h)
///   sources/<n>/0        v1, source n's start offset, fixed when the query first runs
///
/// Every file is written once with put-if-absent, so a reader never sees half a file and two
/// runs of one query cannot both plan or commit the same batch. Not thread-safe.
class Checkpoint {
 public:
  /// Opens the checkpoint at `location`, creating its `metadata` with a new query id when there
  /// is none. Throws STREAMING_CHECKPOINT_CORRUPT for a `metadata` without an id.
  static std::unique_ptr<Checkpoint> Open(std::shared_ptr<io::FileSystem> fs,
                                          std::string location);

  const std::string& location() const { return location_; }
  /// The query id: stays the same across restarts from this checkpoint.
  const std::string& query_id() const { return query_id_; }

  /// The highest batch with an offsets file, or nullopt before the first batch.
  std::optional<int64_t> LatestPlannedBatch() const;
  /// The highest batch with a commit file, or nullopt.
  std::optional<int64_t> LatestCommittedBatch() const;
  /// Reads `offsets/<batch>`. Throws STREAMING_CHECKPOINT_CORRUPT when it is missing or
  /// malformed.
  OffsetSeq ReadOffsets(int64_t batch) const;
  /// Writes `offsets/<batch>` before the batch runs. Throws STREAMING_CHECKPOINT_MISMATCH when
  /// another run of the query already planned that batch.
  void WriteOffsets(int64_t batch, const OffsetSeq& offsets);
  /// Writes `commits/<batch>` after the batch's sink committed (an existing one is left as is),
  /// with the watermark the next batch runs at.
  void WriteCommit(int64_t batch, int64_t next_batch_watermark_ms = 0);
  /// The `nextBatchWatermarkMs` of `commits/<batch>`. Throws STREAMING_CHECKPOINT_CORRUPT when
  /// the file is missing or malformed.
  int64_t ReadCommitWatermark(int64_t batch) const;

  /// `sources/<source>/0`: the source's start offset. ReadSourceStart returns nullopt when it
  /// was never written; WriteSourceStart keeps the first value written and returns it.
  std::optional<std::string> ReadSourceStart(int source) const;
  std::string WriteSourceStart(int source, const std::string& offset);

 private:
  Checkpoint(std::shared_ptr<io::FileSystem> fs, std::string location)
      : fs_(std::move(fs)), location_(std::move(location)) {}
  std::optional<int64_t> LatestBatchIn(const std::string& folder) const;
  std::string PathOf(const std::string& folder, int64_t batch) const;
  [[noreturn]] void ThrowCorrupt(const std::string& message) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string location_;
  std::string query_id_;
};

}  // namespace silt::stream
