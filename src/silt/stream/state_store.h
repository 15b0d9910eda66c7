#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/vector/batch.h"

namespace silt::stream {

/// What `state/<operator>/_metadata/metadata` says of a stateful operator.
struct StateOperatorInfo {
  int operator_id = 0;
  std::string name;          ///< Spark's operator name: stateStoreSave, dedupe, ...
  std::string state_schema;  ///< the state rows' type, e.g. struct<__k0:bigint,...>
};

/// The versioned state of one stateful operator in a streaming query's checkpoint, in Spark's
/// folders (docs/streaming.md): `state/<operator>/0/<version>.parquet` holds the whole state
/// after batch `version - 1` (one partition: silt runs an operator's state in one piece), as a
/// Parquet file of the operator's state rows (stream/stateful_query.h); `state/<operator>/
/// _metadata/metadata` names the operator. A batch reads version `batch` and writes version
/// `batch + 1` before the batch's commit marker, so a replayed batch starts again from the
/// state of the batch before it. Each version is written to a temporary file and renamed into
/// place: a reader never sees half a version. Not thread-safe.
class StateStore {
 public:
  StateStore(std::shared_ptr<io::FileSystem> fs, std::string checkpoint, int operator_id);

  /// The file of `version`.
  std::string VersionPath(int64_t version) const;
  /// Checks that `version` exists and is readable: STATE_STORE_CORRUPT when it is missing or
  /// is not a state file.
  void CheckVersion(int64_t version) const;
  /// Writes `version` (replacing a version a crashed run of the same batch left).
  void WriteVersion(int64_t version, const Schema& schema, const std::vector<Batch>& rows);
  /// Bytes of `version`'s file.
  int64_t VersionBytes(int64_t version) const;
  /// Deletes the versions older than the last `retained` ones up to `latest` (Spark's
  /// spark.sql.streaming.minBatchesToRetain).
  void Cleanup(int64_t latest, int64_t retained);

  /// The operators recorded in the checkpoint's `state/*/_metadata/metadata`, by id. Throws
  /// STATE_STORE_CORRUPT for a metadata file that does not parse.
  static std::vector<StateOperatorInfo> ReadOperators(io::FileSystem& fs,
                                                      const std::string& checkpoint);
  /// Records the operator: replacing what is there when `replace` (a query that has not run a
  /// batch yet), else keeping it.
  void WriteOperator(const StateOperatorInfo& info, bool replace);
  /// Removes the operator's metadata (its state files are left to be replaced).
  void ForgetOperator();

 private:
  std::string folder() const;
  [[noreturn]] void ThrowCorrupt(const std::string& path, const std::string& message) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string checkpoint_;
  int operator_id_;
};

}  // namespace silt::stream
