#pragma once

// CONVERT TO DELTA: turns a folder of Parquet files into a Delta table in place. The files stay
// where they are; version 0 of a new `_delta_log` adds each of them (paths relative to the table
// root), with the schema merged from their footers, partition values parsed from Hive-style
// `col=value` folders, and statistics computed by reading the files (unless disabled).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/transaction.h"
#include "silt/types/data_type.h"

namespace silt {
class ThreadPool;
}

namespace silt::log {

/// How to convert.
struct ConvertOptions {
  /// PARTITIONED BY: the partition columns (name and type) in folder order. Must match the
  /// folder layout exactly; empty for an unpartitioned folder.
  std::vector<Field> partition_columns;
  /// Compute statistics by reading every file (NO STATISTICS turns this off).
  bool collect_stats = true;
  /// Table properties of the new table.
  StringMap properties;
  /// The `catalogTable` operation parameter (a table name), when converting through a catalog.
  std::optional<std::string> catalog_table;
  ThreadPool* pool = nullptr;  ///< nullptr: the default pool.
  CommitOptions commit;
};

/// What ConvertToDelta did.
struct ConvertResult {
  /// The folder already held a Delta table: nothing was done (Delta's CONVERT is idempotent).
  bool already_delta = false;
  int64_t num_files = 0;
  std::optional<CommitResult> commit;  ///< The version-0 commit (none when already_delta).
};

/// Converts the Parquet files under `table_root` (recursively; names starting with `.`, and
/// with `_` unless they are `col=value` folders, are hidden). Throws DELTA_PATH_DOES_NOT_EXIST
/// for a missing folder, DELTA_EMPTY_DIRECTORY when it holds no data file,
/// DELTA_FAILED_READ_FILE_FOOTER for a file that is not Parquet, DELTA_FAILED_MERGE_SCHEMA_FILE
/// when a file's schema contradicts the others',
/// DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME and
/// DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME when a file's folders disagree with
/// `partition_columns`, DELTA_FAILED_CAST_PARTITION_VALUE for a folder value that does not fit
/// its column's type, and what Transaction::Commit throws (DELTA_TABLE_ALREADY_EXISTS when
/// another writer created the table meanwhile).
ConvertResult ConvertToDelta(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                             const ConvertOptions& options);

/// Merges the schema of another Parquet file into `merged`: columns matched by name ignoring
/// case, structs merged field by field, new columns appended, every field nullable. Returns
/// false (leaving `merged` unspecified) when a column has two incompatible types.
bool MergeParquetSchema(std::vector<Field>& merged, const Schema& file_schema);

}  // namespace silt::log
