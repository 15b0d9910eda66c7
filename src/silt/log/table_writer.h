#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/transaction.h"
#include "silt/vector/batch.h"

namespace silt::log {

// The table-level writes that CREATE TABLE, INSERT INTO and INSERT OVERWRITE run: data files
// written with DataFileWriter, committed through one Transaction with Spark's operation names,
// parameters and metrics.

/// What to create.
struct CreateTableOptions {
  Schema schema;
  std::vector<std::string> partition_columns;
  StringMap configuration;  ///< Table properties (`delta.appendOnly`, ...).
  std::optional<std::string> name;
  std::optional<std::string> description;
  DataFileWriterOptions writer;
  CommitOptions commit;
};

/// Creates a Delta table at `table_root` holding `rows` (none: an empty table), committed as
/// version 0 with operation "CREATE TABLE" (or "CREATE TABLE AS SELECT" with rows). The protocol
/// is the one the properties and schema need (RequiredProtocol). Throws
/// DELTA_TABLE_ALREADY_EXISTS when the folder already holds a Delta log, and what
/// DataFileWriter and Transaction::Commit throw.
CommitResult CreateTable(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                         const CreateTableOptions& options, const std::vector<Batch>& rows = {});

/// Options of AppendToTable and OverwriteTable.
struct WriteOptions {
  DataFileWriterOptions writer;
  CommitOptions commit;
  /// Idempotent writes (DataFrameWriter's txnAppId / txnVersion): when set and the table already
  /// recorded `txn_version` or a later one for `txn_app_id`, nothing is written.
  std::optional<std::string> txn_app_id;
  std::optional<int64_t> txn_version;
};

/// What AppendToTable / OverwriteTable did.
struct WriteResult {
  std::optional<CommitResult> commit;  ///< nullopt when skipped as an already-applied txn.
  std::vector<AddFile> added;
  int64_t removed_files = 0;
};

/// Appends `rows` (INSERT INTO): a blind append, so it never conflicts with other appends.
/// Operation "WRITE", mode "Append", metrics numFiles / numOutputRows / numOutputBytes.
WriteResult AppendToTable(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                          const std::vector<Batch>& rows, const WriteOptions& options = {});

/// Replaces the table's rows with `rows` (INSERT OVERWRITE): removes every live file and adds
/// the new ones in one commit that read the whole table. Operation "WRITE", mode "Overwrite",
/// plus numRemovedFiles / numRemovedBytes. Throws DELTA_CANNOT_MODIFY_APPEND_ONLY on an
/// append-only table that has rows.
WriteResult OverwriteTable(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                           const std::vector<Batch>& rows, const WriteOptions& options = {});

}  // namespace silt::log
