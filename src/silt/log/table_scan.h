#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/log/actions.h"
#include "silt/log/join_key_filter.h"
#include "silt/log/partition_values.h"
#include "silt/log/scan_bound.h"
#include "silt/log/scan_predicate.h"
#include "silt/log/snapshot.h"
#include "silt/types/data_type.h"
#include "silt/vector/batch.h"

namespace silt {
class ThreadPool;
}

namespace silt::log {

/// What the statistics of a scan's kept files say about one of its output columns, for row
/// estimates (all of it is a bound, not a count of rows read).
struct ColumnSummary {
  /// The smallest minimum and largest maximum; unset when a kept file does not record them.
  std::optional<Scalar> min;
  std::optional<Scalar> max;
  /// The sum of the files' null counts; unset when a kept file does not record one.
  std::optional<int64_t> null_count;
  /// Partition columns only: the number of distinct values (NULL counted) among the kept files.
  std::optional<int64_t> distinct_values;
};

/// The statistics of a scan's kept files added up.
struct ScanSummary {
  /// Live rows of the kept files: numRecords minus the rows of deletion vectors, a file without
  /// numRecords counted as one row per 100 bytes.
  int64_t num_rows = 0;
  /// One per column of TableScan::schema() (empty for `_metadata`).
  std::vector<ColumnSummary> columns;
};

/// What to scan.
struct ScanOptions {
  /// Logical top-level columns to return, in this order; empty = the whole table schema.
  std::vector<std::string> columns;
  /// A conjunction used to skip files by partition values and min/max/null-count statistics.
  /// It only prunes files: rows of kept files are returned whether or not they match, and the
  /// caller filters rows (exec's Filter operator).
  std::vector<ScanPredicate> predicates;
  /// Also leave out, while decoding, rows of kept files that the predicates on data columns rule
  /// out (a Parquet dictionary column is compared once per entry, and the other columns are
  /// decoded only for the rows that pass). The rows returned are then a superset of the
  /// matching rows, not every live row: only for callers that filter rows themselves.
  bool filter_rows = false;
  ThreadPool* pool = nullptr;  ///< nullptr: the default pool.
  /// Stored columns that are not in the table schema (`_change_type` of change data files),
  /// read by their name in the file and returned after `columns`; NULL in a file without them.
  std::vector<Field> extra_columns;
  /// Also return Spark's hidden `_metadata` column (FileMetadataType) last: the file's path,
  /// name, size and modification time, the row's physical index, and with row tracking enabled
  /// its row id and row commit version (materialized values where the file has them, else the
  /// file's baseRowId + index and defaultRowCommitVersion; protocol "Row Tracking").
  bool file_metadata = false;
  /// A bound the scan's consumer tightens while it runs (scan_bound.h): each row group is
  /// skipped or filtered by its value at the time it is read. Only for consumers that need no
  /// row outside the bound.
  std::shared_ptr<const ScanBound> bound;
  /// Runtime join filters (join_key_filter.h) on columns of the table: once one is published,
  /// files whose partition value it rules out and row groups whose statistics lie outside its
  /// keys' range are skipped, and the rows of the others whose key it rules out are left out
  /// while decoding (the key column decoded first, the other columns only for the rows it
  /// keeps), as for `filter_rows`. Only for consumers that drop rows without a matching key,
  /// and only through OpenFile (ReadFile returns every live row).
  std::vector<std::shared_ptr<const JoinKeyFilter>> join_filters;
};

/// The name of the hidden file metadata column.
inline constexpr std::string_view kFileMetadataColumn = "_metadata";

/// The type of `_metadata`: struct<file_path: string, file_name: string, file_size: bigint,
/// file_block_start: bigint, file_block_length: bigint, file_modification_time: timestamp,
/// row_index: bigint[, row_id: bigint, row_commit_version: bigint]>, the row fields present
/// when `row_tracking`.
DataTypePtr FileMetadataType(bool row_tracking);

/// Reads the live rows of a snapshot: the Parquet data of every live file that the predicate
/// does not rule out, with partition columns filled in from the log, column mapping applied
/// (physical names, or field ids in id mode, mapped to the logical schema; missing columns read
/// as NULL; narrower stored types widened) and rows deleted by deletion vectors left out.
/// Immutable after Make; ReadFile and Read may be called from several threads.
class TableScan {
 public:
  /// Throws DELTA_PARTITION_COLUMN_CAST_FAILED for a literal that does not fit its column and
  /// INVALID_ARGUMENT for an unknown column.
  static std::unique_ptr<TableScan> Make(std::shared_ptr<const Snapshot> snapshot,
                                         ScanOptions options = {});
  /// A scan of files the caller chooses (files of several versions, change data files), read
  /// with `metadata`'s schema, partition columns and column mapping; files() is empty, and
  /// OpenFile/ReadFile take any file of the table. Throws what Make throws and
  /// INVALID_SCHEMA_JSON for a malformed schema.
  static std::unique_ptr<TableScan> MakeForMetadata(std::shared_ptr<io::FileSystem> fs,
                                                    std::string table_root,
                                                    const Metadata& metadata,
                                                    ScanOptions options = {});

  /// The logical schema of the batches returned.
  const SchemaPtr& schema() const { return output_schema_; }
  /// The files kept after pruning.
  const std::vector<const AddFile*>& files() const { return files_; }
  /// Live files before pruning.
  size_t num_live_files() const { return snapshot_ ? snapshot_->files().size() : 0; }
  /// The kept files' statistics added up (typed checkpoint statistics where a file has them,
  /// else its JSON statistics; unusable statistics count as absent). Reads no data file.
  ScanSummary Summarize() const;
  /// False when the file's partition values or statistics prove that no row of `file` satisfies
  /// the scan's predicates (for files chosen by the caller of MakeForMetadata).
  bool MayContainMatches(const AddFile& file) const { return MayMatch(file); }

  /// The live rows of one file, one batch per row group (rows deleted by its DV removed).
  /// Throws PATH_NOT_FOUND for a missing data file, the Parquet reader's errors, and the DV
  /// loader's.
  std::vector<Batch> ReadFile(const AddFile& file) const;
  /// The live rows of every kept file (files read in parallel; batches in file order).
  std::vector<Batch> Read() const;

  /// A kept data file opened for reading one row group at a time, so that a caller can spread
  /// the row groups of one large file over several threads and stream them. Immutable;
  /// ReadRowGroup may be called from several threads at once. Must not outlive its TableScan.
  class OpenedFile {
   public:
    virtual ~OpenedFile() = default;
    /// The row groups to read, in file order, after skipping those whose min/max/null-count
    /// statistics prove that no row satisfies the scan's predicates.
    virtual const std::vector<int>& row_groups() const = 0;
    /// Row groups of the file before skipping.
    virtual int num_row_groups() const = 0;
    /// The live rows of row group `index` (as ReadFile returns them: DV rows removed, partition
    /// columns filled, column mapping applied), decoded on the calling thread only.
    Batch ReadRowGroup(int index) const { return ReadRowGroup(index, nullptr); }
    /// As ReadRowGroup(index); `positions`, when not null, receives the physical position in
    /// the file (row index from the file's first row) of every row returned, ascending.
    virtual Batch ReadRowGroup(int index, std::vector<uint64_t>* positions) const = 0;
  };
  /// Opens `file` (one of files()): reads its footer and deletion vector. Throws what ReadFile
  /// throws.
  std::unique_ptr<OpenedFile> OpenFile(const AddFile& file) const;
  /// Opens `file` returning only the rows at `selected_rows` (physical positions, ascending);
  /// the file's deletion vector is not applied, and row groups without a selected row are left
  /// out of row_groups(). Used to read the rows a deletion-vector change adds or drops.
  std::unique_ptr<OpenedFile> OpenFile(
      const AddFile& file, std::shared_ptr<const std::vector<uint64_t>> selected_rows) const;

 private:
  struct Column;
  class OpenedFileImpl;
  TableScan() = default;
  static std::unique_ptr<TableScan> MakeScan(std::shared_ptr<const Snapshot> snapshot,
                                             std::shared_ptr<io::FileSystem> fs,
                                             std::string table_root, const Metadata& metadata,
                                             SchemaPtr table_schema, ScanOptions options);
  bool MayMatch(const AddFile& file) const;
  /// Puts files_ in the order that tightens options_.bound soonest.
  void OrderFilesForBound();
  std::string ResolvePath(std::string_view log_path) const;

  std::shared_ptr<const Snapshot> snapshot_;  ///< null for MakeForMetadata
  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  SchemaPtr table_schema_;
  ColumnMappingMode mapping_mode_ = ColumnMappingMode::kNone;
  std::vector<std::string> partition_columns_;
  bool row_tracking_ = false;
  std::string materialized_row_id_column_;
  std::string materialized_row_commit_version_column_;
  ScanOptions options_;
  SchemaPtr output_schema_;
  std::vector<std::shared_ptr<const Column>> columns_;
  std::vector<const AddFile*> files_;
};

}  // namespace silt::log
