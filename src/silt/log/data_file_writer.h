#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/stats_collector.h"
#include "silt/parquet/writer.h"
#include "silt/vector/batch.h"

namespace silt::io {
class BackgroundSync;
}  // namespace silt::io

namespace silt::log {

/// Options of DataFileWriter.
struct DataFileWriterOptions {
  parquet::WriterOptions parquet;
  /// Start a new file in a partition after this many rows (0: one file per partition).
  int64_t max_rows_per_file = 0;
  /// Written as the add's `dataChange`.
  bool data_change = true;
  /// Columns the files hold besides the table's, outside its schema (row tracking's materialized
  /// row ids and commit versions): the batches given to Write carry them after the table's
  /// columns. No statistics are collected for them.
  std::vector<Field> hidden_columns;
  /// When set, each finished file is synced and closed by it instead of before Finish returns
  /// (see io::BackgroundSync); its Wait() must return before a commit names the files.
  io::BackgroundSync* background_sync = nullptr;
};

/// Escapes one partition value for a Hive-style folder name (`col=value`): NULL and the empty
/// string become `__HIVE_DEFAULT_PARTITION__`; control characters and `"#%'*/:=?\{[]^` and DEL
/// become `%XX` (upper-case hex), as Hive and Spark do.
std::string EscapePartitionPathValue(const std::optional<std::string>& value);

/// Writes rows of a table as Parquet data files and returns the `add` actions describing them:
/// one folder per partition (`col=value/...`, Hive escaping), files named
/// `part-00000-<uuid>.c000.<codec>.parquet`, partition columns left out of the files and
/// recorded in `partitionValues` (protocol §10 text; NULL as JSON null), and `stats` computed from
/// the vectors while writing (the first `delta.dataSkippingNumIndexedCols` leaf columns;
/// `tightBounds` when deletion vectors are enabled). Not thread-safe.
class DataFileWriter {
 public:
  /// Prepares writing under `table_root` for a table with `metadata` (schema, partitioning,
  /// properties). Under column mapping the files, statistics and partition values use each
  /// column's physical name and the files carry the column ids as Parquet field ids; nested
  /// fields at every depth likewise, a column without an id
  /// DELTA_COLUMN_MAPPING_MISSING_FIELD_ID. Throws INVALID_SCHEMA_JSON for a bad schema and
  /// DELTA_PARTITION_COLUMN_NOT_FOUND for a partition column missing from it.
  static std::unique_ptr<DataFileWriter> Make(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                                              const Metadata& metadata, DataFileWriterOptions options = {});
  ~DataFileWriter();
  DataFileWriter(const DataFileWriter&) = delete;
  DataFileWriter& operator=(const DataFileWriter&) = delete;

  /// Writes `batch`, whose columns must be the table's (same names in order and same types),
  /// followed by the hidden columns: otherwise DELTA_METADATA_MISMATCH. A NULL in a non-nullable column throws
  /// DELTA_NOT_NULL_CONSTRAINT_VIOLATED. Storage and Parquet errors propagate; files already
  /// written stay behind as orphans (VACUUM removes them).
  void Write(const Batch& batch);
  /// Closes every open file and returns one `add` per file written (none for no rows).
  std::vector<AddFile> Finish();

 private:
  struct OpenFile;
  DataFileWriter() = default;
  OpenFile& FileFor(const PartitionValueMap& values, const std::string& key);
  void CloseFile(OpenFile& file);

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  DataFileWriterOptions options_;
  StatsOptions stats_options_;
  SchemaPtr table_schema_;
  SchemaPtr data_schema_;   ///< What the files hold: data columns, then the hidden ones.
  SchemaPtr stats_schema_;  ///< The data columns alone.
  std::vector<size_t> partition_indexes_;  ///< Table column index of each partition column.
  std::vector<size_t> data_indexes_;       ///< Table column index of each data column.
  std::vector<std::string> stored_names_;  ///< Each table column's name in files and stats.
  std::map<std::string, std::unique_ptr<OpenFile>> open_files_;
  std::vector<AddFile> finished_;
};

}  // namespace silt::log
