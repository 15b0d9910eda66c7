#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"

namespace silt::log {

// Writing deletion vectors (protocol §14; docs/format/delta-log.md "Deletion vectors"): how
// DELETE, UPDATE and MERGE mark rows of an existing data file as deleted without rewriting it.

/// True when new deletion vectors may be written to the table: its protocol supports the
/// `deletionVectors` feature and `delta.enableDeletionVectors` is true. (Readers honour existing
/// DVs whenever the feature is supported; only creating new ones needs the property.)
bool DeletionVectorsWritable(const Protocol& protocol, const Metadata& metadata);

/// Throws DELTA_ADDING_DELETION_VECTORS_DISALLOWED unless DeletionVectorsWritable.
void CheckDeletionVectorsWritable(const Protocol& protocol, const Metadata& metadata);

/// True when `file` can get a deletion vector: its statistics record `numRecords`, which Delta
/// requires of every file with a DV (readers derive the logical row count from it). A caller
/// rewrites files without it instead. Throws DELTA_INVALID_STATS for unparsable statistics.
bool CanHaveDeletionVector(const AddFile& file);

/// Returns the statistics JSON `stats` with `"tightBounds":false` (replacing the top-level
/// field, or appended when absent), other fields kept byte for byte. Files with a DV keep the
/// statistics of all physical rows, which are then only bounds for the live ones. Throws
/// DELTA_INVALID_STATS naming `path` when `stats` is not a JSON object.
std::string StatsWithoutTightBounds(std::string_view stats, std::string_view path);

/// Options of DeletionVectorWriter.
struct DeletionVectorWriterOptions {
  /// A DV whose serialised bitmap has at most this many bytes is stored inline in the log
  /// (storage type 'i'). 0, what Delta's DML commands do: always in a file.
  int32_t max_inline_bytes = 0;
  /// A DV file is closed and a new one started before it would exceed this size, bounding the
  /// memory held before Finish (offsets are 32-bit, so it must stay below 2^31).
  int64_t max_file_bytes = int64_t{64} << 20;
  /// The removes' deletionTimestamp (ms since the epoch); nullopt: the system clock.
  std::optional<int64_t> now_ms;
};

/// What deleting rows of one data file produces, for the caller to commit.
struct DeletionVectorUpdate {
  /// The file with the union of its old DV and the new rows: the same path, size, partition
  /// values, tags and row-tracking fields, `dataChange` true, `deletionVector` set, statistics
  /// kept with `tightBounds` false. nullopt when every row of the file is now deleted: the file
  /// is then only removed, as Delta does, and no DV is written for it.
  std::optional<AddFile> add;
  /// The remove of the file as it was live (with its old DV, if any), `extendedFileMetadata`
  /// true and the `numRecords` statistic, as Delta writes it.
  RemoveFile remove;
  /// Rows deleted by this call that the old DV did not already delete.
  uint64_t num_deleted_rows = 0;
  /// Rows of the file still live afterwards (numRecords minus the new cardinality).
  uint64_t num_live_rows = 0;
  /// The file had a DV before (for the numDeletionVectorsAdded/Removed/Updated metrics: no old
  /// DV and an add is "added"; an old DV and an add is "updated"; an old DV and no add is
  /// "removed").
  bool had_deletion_vector = false;
};

/// Writes the deletion vectors of one commit. DVs go into `deletion_vector_<uuid>.bin` files in
/// the table root (or under a random prefix folder when `delta.randomizeFilePrefixes` is set),
/// several per file, each record at the offset its descriptor names; small ones may be inlined
/// (see the options). Files are written by Finish, which must return before the returned
/// actions are committed. Not thread-safe; use from one thread.
class DeletionVectorWriter {
 public:
  /// Starts writing DVs for the table at `table_root` whose protocol and metadata are given.
  /// Throws DELTA_ADDING_DELETION_VECTORS_DISALLOWED when the table does not allow new DVs.
  static std::unique_ptr<DeletionVectorWriter> Open(std::shared_ptr<io::FileSystem> fs,
                                                    std::string table_root,
                                                    const Protocol& protocol,
                                                    const Metadata& metadata,
                                                    DeletionVectorWriterOptions options = {});

  DeletionVectorWriter(const DeletionVectorWriter&) = delete;
  DeletionVectorWriter& operator=(const DeletionVectorWriter&) = delete;
  ~DeletionVectorWriter();

  /// Marks the rows at 0-based physical `positions` (any order; duplicates and rows already
  /// deleted allowed) of the live file `file` as deleted, merging them with its existing DV.
  /// Call at most once per file per commit (merge the positions first). Returns nullopt when no
  /// row is newly deleted (nothing to commit for the file). Throws
  /// DELTA_DELETION_VECTOR_MISSING_NUM_RECORDS when the file's statistics lack numRecords,
  /// DELTA_DELETION_VECTOR_INVALID_ROW_INDEX for a position at or past numRecords, and the DV
  /// loader's errors for a corrupt existing DV.
  std::optional<DeletionVectorUpdate> DeleteRows(const AddFile& file,
                                                 const std::vector<uint64_t>& positions);

  /// Writes the DV file holding the records staged since the last Finish (nothing when none).
  /// Later DeleteRows calls start a new file. Throws the storage's errors.
  void Finish();

  /// The DV files written so far (paths as given to the FileSystem).
  const std::vector<std::string>& written_files() const { return written_files_; }

 private:
  DeletionVectorWriter(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                       DeletionVectorWriterOptions options, int random_prefix_length);
  // Stores the serialised bitmap and returns its descriptor (without the cardinality).
  DeletionVectorDescriptor Store(const std::string& bitmap);

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  DeletionVectorWriterOptions options_;
  int random_prefix_length_ = 0;
  // The file being filled: its descriptor path (prefix + Z85 UUID), its path on storage, and
  // its bytes (the version byte, then the records). Empty bytes: no file started.
  std::string pending_descriptor_path_;
  std::string pending_file_path_;
  std::string pending_bytes_;
  std::vector<std::string> written_files_;
};

}  // namespace silt::log
