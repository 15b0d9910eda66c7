#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/cdc/lsn.h"
#include "silt/cdc/postgres_types.h"
#include "silt/io/file_system.h"
#include "silt/log/snapshot.h"
#include "silt/types/data_type.h"

namespace silt::cdc {

class PostgresConnection;

/// The columns every change row carries besides the source table's own (docs/cdc.md).
inline constexpr const char* kOpColumn = "_op";                      ///< r, c, u, d, t
inline constexpr const char* kLsnColumn = "_lsn";                    ///< the commit's LSN
inline constexpr const char* kSeqColumn = "_seq";                    ///< order within the commit
inline constexpr const char* kCommitTimestampColumn = "_commit_timestamp";
inline constexpr const char* kUnchangedColumnsColumn = "_unchanged_columns";  ///< TOASTed, not sent
inline constexpr const char* kBeforeColumn = "_before";              ///< REPLICA IDENTITY FULL only

/// Where and what to read. Option names as `postgres_cdc(...)` and the CLI take them.
struct PostgresCdcOptions {
  std::string connection;               ///< libpq connection string or postgresql:// URI
  std::vector<std::string> tables;      ///< "schema.table" or "table" (schema public)
  std::string slot = "silt_slot";       ///< the logical replication slot, created when missing
  std::string publication = "silt_pub"; ///< created FOR TABLE the tables when missing
  /// A batch ends at the first transaction boundary at or after this many changes.
  int64_t max_changes_per_batch = 100000;

  /// Reads `connection`, `tables`, `slot`, `publication`, `maxChangesPerBatch` (keys compared
  /// case-insensitively); INVALID_STREAMING_OPTION for a missing or malformed value.
  static PostgresCdcOptions FromMap(const std::map<std::string, std::string>& options);
};

/// One source table: its columns as the catalog describes them and the schema of its change rows.
struct CdcTable {
  std::string schema_name;
  std::string table_name;
  uint32_t oid = 0;
  char replica_identity = 'd';
  struct Column {
    std::string name;
    bool is_key = false;
    std::shared_ptr<const PostgresValueParser> parser;
  };
  std::vector<Column> columns;
  SchemaPtr change_schema;

  /// "schema.table".
  std::string QualifiedName() const { return schema_name + "." + table_name; }
  std::vector<std::string> KeyColumns() const;
};

/// Reads a set of PostgreSQL tables through a logical replication slot (the built-in pgoutput
/// plugin) and stages their changes one batch at a time: batch (start, end] holds every change
/// of the transactions whose commit ends in that LSN range, whole transactions only. The first
/// batch (start 0) is the tables' initial snapshot, read in the snapshot the slot exported when
/// it was created, so snapshot and stream meet with no gap and no overlap.
///
/// Staged changes are Delta tables under `staging_root`, one per source table, whose files are
/// tagged with their batch's range; a batch is staged before the stream's offsets name it, so
/// a replay reads exactly the same rows. The slot's confirmed position only moves to a batch's
/// start once the caller asks for the batch after it (a batch is only planned after the one
/// before it committed), so a crash never loses a change. Called from one thread.
class PostgresChangeReader {
 public:
  /// Connects, creates the publication when missing and describes the tables (their schemas are
  /// fixed for the reader's life). Throws CDC_SOURCE_CONNECTION_FAILED, CDC_SOURCE_FAILED and
  /// TABLE_OR_VIEW_NOT_FOUND for a missing table.
  PostgresChangeReader(std::shared_ptr<io::FileSystem> fs, PostgresCdcOptions options);
  ~PostgresChangeReader();

  /// Opens (creating) the staging tables under `staging_root`, a folder of the stream's
  /// checkpoint; needed before StageNextBatch and StagedBatch. Throws CDC_SOURCE_SCHEMA_CHANGED
  /// when a staged table's columns are not a subset of the source's.
  void OpenStaging(const std::string& staging_root);
  /// Tells the server that the changes up to `lsn` are applied (it may let their WAL go).
  void ConfirmApplied(Lsn lsn);
  /// Closes the connections (the slot is free for another reader); the next batch reopens them.
  void Disconnect() noexcept;

  const std::vector<CdcTable>& tables() const { return tables_; }
  const PostgresCdcOptions& options() const { return options_; }

  /// Limits later batches to the changes committed before now (Trigger.AvailableNow).
  void LimitToCurrentPosition();
  /// Stages the batch after `start` (0: the initial snapshot, which (re)creates the slot) and
  /// returns its end, or nullopt when no change is waiting. A schema change of a source table
  /// ends the batch before the transaction that made it; when it is the first thing after
  /// `start`, throws CDC_SOURCE_SCHEMA_CHANGED (a restarted reader takes the new schema).
  std::optional<Lsn> StageNextBatch(Lsn start);
  /// The staged rows of batch (start, end] of table `table` as a snapshot of its staging table
  /// pinned to them.
  std::shared_ptr<const log::Snapshot> StagedBatch(size_t table, Lsn start, Lsn end);

  /// The staging table of `table`.
  std::string StagingPath(size_t table) const;

 private:
  struct Transaction;
  struct TableStage;

  void DescribeTables();
  void EnsurePublication();
  void OpenStagingTables();
  void CheckStagingOpen() const;
  Lsn StageSnapshot();
  std::optional<Lsn> TryStageNextBatch(Lsn start);
  Lsn CurrentWalPosition();
  void StartStreaming(Lsn start);
  void StopStreaming();
  void SendStatus(Lsn flushed, bool reply);
  // Appends a committed transaction's changes to the stages.
  void StageTransaction(const Transaction& transaction);
  // Commits every stage's files as batch (start, end], dropping files of batches at or before
  // `start` (already applied) and of unplanned attempts after it.
  void CommitStages(Lsn start, Lsn end);
  void ResetStages();

  std::shared_ptr<io::FileSystem> fs_;
  std::string staging_root_;
  PostgresCdcOptions options_;
  std::unique_ptr<PostgresConnection> sql_;          // catalog queries and the snapshot
  std::unique_ptr<PostgresConnection> replication_;  // the slot's stream, when streaming
  Lsn streaming_from_ = 0;                           // the position the stream resumes at
  Lsn flushed_ = 0;                                  // what the server was last told
  std::optional<Lsn> limit_;                         // LimitToCurrentPosition
  std::optional<Lsn> stop_before_;                   // a batch ends before this transaction
  std::vector<CdcTable> tables_;
  std::map<uint32_t, size_t> table_by_oid_;
  // Per relation, the table column of each column of its latest relation message (-1: none).
  std::map<uint32_t, std::vector<int>> column_positions_;
  std::vector<std::unique_ptr<TableStage>> stages_;
};

}  // namespace silt::cdc
