#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "silt/base/cancellation.h"
#include "silt/io/file_system.h"
#include "silt/log/actions.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"

namespace silt::log {

// Optimistic transactions on a Delta table (design.md §4; delta-semantics.md §1-3): a transaction
// pins the snapshot it read, records what it read, collects actions, and commits version N+1 with
// put-if-absent. On a lost race it reads each winning commit, runs Delta's conflict checks in
// Delta's order, and either retries at the next version or throws the Delta-named error.

/// Isolation levels as written in `commitInfo.isolationLevel` (delta-semantics.md §2).
enum class IsolationLevel { kSerializable, kWriteSerializable, kSnapshotIsolation };

/// The name Delta writes for `level` ("Serializable", "WriteSerializable", "SnapshotIsolation").
std::string_view IsolationLevelName(IsolationLevel level);

/// A conjunction of conditions a reader used to choose files, e.g. `part = 'a' AND x > 3`.
/// Conditions on partition columns are evaluated against an added file's partition values;
/// conditions on data columns against its min/max/null-count statistics (a file without usable
/// statistics counts as matching). An empty conjunction matches every file.
struct ReadPredicate {
  std::vector<ScanPredicate> conjuncts;
};

/// Returns true when a file with `file`'s partition values and statistics may hold rows matching
/// `predicate` under `metadata`'s schema and partitioning. Unknown columns and values that do not
/// parse make the answer true (the check must only ever err towards a conflict).
bool FileMayMatch(const ReadPredicate& predicate, const AddFile& file, const Metadata& metadata);

/// What a commit wrote.
struct CommitResult {
  int64_t version = 0;     ///< The version the commit landed at.
  int attempts = 1;        ///< Put-if-absent attempts (1 when there was no race).
  bool checkpoint_written = false;  ///< A post-commit checkpoint was written at `version`.
  /// A post-commit step (reading delta.checkpointInterval, the checkpoint, log cleanup) failed;
  /// the commit itself is durable, so Commit returns normally and prints the failure as a
  /// "[WARN]" line on stderr. Holds the error text; empty when everything succeeded.
  std::string post_commit_error;
};

/// Tunables of Commit. Defaults suit production; tests lower the limits.
struct CommitOptions {
  /// Put-if-absent attempts before giving up with DELTA_CONCURRENT_WRITE. Spark's limit is
  /// effectively unbounded; a bound keeps a live-locked writer from spinning forever.
  int max_attempts = 10000;
  /// Write the checkpoint (and clean expired logs) after a commit at a multiple of
  /// `delta.checkpointInterval`.
  bool post_commit_checkpoint = true;
  /// Clock for commitInfo.timestamp / inCommitTimestamp and retention (ms since the epoch);
  /// nullopt: the system clock.
  std::optional<int64_t> now_ms;
  /// The statement's cancel request: Commit throws OPERATION_CANCELED, writing nothing, when it
  /// is requested before an attempt to write the commit file. Not owned; nullptr = none.
  const Cancellation* cancellation = nullptr;
  /// An idempotent write's (appId, version): the commit carries it as a `txn` action and records
  /// the app id as read, so a concurrent commit of the same application conflicts
  /// (DELTA_CONCURRENT_TRANSACTION). The caller checks beforehand that the version is new.
  std::optional<SetTransaction> application_transaction;
};

/// One optimistic transaction. Not thread-safe; use from one thread. Commit at most once.
class Transaction {
 public:
  /// Starts a transaction reading `snapshot`. Throws what CheckWriteSupported throws when silt
  /// cannot write the table. `enforced_features` names the table features the caller enforces
  /// itself (e.g. "checkConstraints", "generatedColumns" for the SQL statements, which check
  /// constraints and compute generated columns before writing); see CheckWriteSupported.
  static std::unique_ptr<Transaction> Start(std::shared_ptr<const Snapshot> snapshot,
                                            std::vector<std::string> enforced_features = {});
  /// Starts a transaction that creates a new table at `table_root` (it must then set metadata;
  /// the protocol is chosen from the features the metadata uses unless set explicitly).
  static std::unique_ptr<Transaction> StartCreate(std::shared_ptr<io::FileSystem> fs,
                                                  std::string table_root,
                                                  std::vector<std::string> enforced_features = {});
  /// Loads the latest snapshot of `table_root` and starts on it, or starts a creating
  /// transaction when the folder holds no Delta log yet.
  static std::unique_ptr<Transaction> StartLatest(std::shared_ptr<io::FileSystem> fs,
                                                  std::string table_root,
                                                  std::vector<std::string> enforced_features = {});

  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  /// The snapshot read, or nullptr for a table being created.
  const std::shared_ptr<const Snapshot>& snapshot() const { return snapshot_; }
  /// The version read, or -1 for a table being created.
  int64_t read_version() const { return snapshot_ ? snapshot_->version() : -1; }
  /// The metadata in effect: this transaction's update, else the snapshot's. Throws
  /// INTERNAL_ERROR for a creating transaction without metadata yet.
  const Metadata& metadata() const;
  /// The protocol in effect (this transaction's update, else the snapshot's, else the one the
  /// metadata needs).
  Protocol protocol() const;

  // ---- recording reads (what the conflict checker protects) ----

  /// The live files matching `predicate` (partition values and statistics), recorded as read
  /// together with the predicate.
  std::vector<AddFile> FilterFiles(const ReadPredicate& predicate);
  /// Records that `predicate` was used to select files (the files are recorded separately).
  void RecordReadPredicate(ReadPredicate predicate);
  /// Records that the transaction depends on the whole table (any concurrent add or data
  /// remove conflicts).
  void RecordReadWholeTable();
  /// Records that the transaction read this file (a concurrent remove of it conflicts).
  void RecordReadFile(const AddFile& file);
  /// The application's last committed version in the snapshot; records the app id as read, so
  /// a concurrent commit of the same app id conflicts (DELTA_CONCURRENT_TRANSACTION).
  std::optional<int64_t> ReadTransactionVersion(const std::string& app_id);

  // ---- collecting actions ----

  /// Replaces the table's metadata (schema, partitioning, properties). A new table needs one.
  void UpdateMetadata(Metadata metadata);
  /// Sets the protocol explicitly (otherwise it is derived when the metadata needs more).
  void UpdateProtocol(Protocol protocol);
  void Add(log::AddFile file);
  void Remove(log::RemoveFile file);
  /// Removes a live file: a `remove` with the file's partition values, size and DV, stamped
  /// with the commit time.
  void RemoveLiveFile(const log::AddFile& file, bool data_change = true);
  void SetApplicationTransaction(std::string app_id, int64_t version);
  void AddDomainMetadata(DomainMetadata domain);
  void AddChangeDataFile(log::AddCdcFile file);
  /// Describes the operation in commitInfo: its name ("WRITE", "CREATE TABLE", ...), parameters
  /// (name -> JSON text, e.g. {"mode", "\"Append\""}) and metrics (name -> decimal text).
  void SetOperation(std::string operation,
                    std::vector<std::pair<std::string, std::string>> parameters = {},
                    StringMap metrics = {});
  /// Overrides the isolation level (default: the table's `delta.isolationLevel`, else
  /// Serializable, downgraded to SnapshotIsolation for rearrangement-only commits).
  void SetIsolationLevel(IsolationLevel level) { isolation_level_ = level; }

  /// True when the commit would be a blind append: only `add` file actions and nothing read.
  bool IsBlindAppend() const;

  /// Commits. Writes `_delta_log/<read_version+1>.json` with put-if-absent; on a lost race
  /// checks each winning commit (protocol → DELTA_PROTOCOL_CHANGED, metadata →
  /// DELTA_METADATA_CHANGED, domains / app ids → DELTA_CONCURRENT_TRANSACTION, appends into
  /// what was read → DELTA_CONCURRENT_APPEND, removes of what was read →
  /// DELTA_CONCURRENT_DELETE_READ, removes of what it removes → DELTA_CONCURRENT_DELETE_DELETE)
  /// and retries at the next version. When put-if-absent fails with an error, the commit file is
  /// read back and compared by txnId to tell whether the commit landed. Throws
  /// DELTA_COMMIT_BACKEND_NOT_ATOMIC for a backend without atomic put-if-absent,
  /// DELTA_CANNOT_MODIFY_APPEND_ONLY for data removes on an append-only table,
  /// DELTA_DUPLICATE_ACTIONS_FOUND for two actions on one file, DELTA_TABLE_ALREADY_EXISTS when
  /// a creating transaction finds a table, DELTA_CONCURRENT_WRITE after `max_attempts`, and the
  /// storage's errors when a failed write provably did not land.
  CommitResult Commit(const CommitOptions& options = {});

  /// The txnId written in commitInfo (a UUID chosen at Start).
  const std::string& txn_id() const { return txn_id_; }

 private:
  Transaction(std::shared_ptr<io::FileSystem> fs, std::string table_root,
              std::shared_ptr<const Snapshot> snapshot);

  // The commit's actions with commitInfo first, for one attempt.
  std::vector<Action> BuildActions(int64_t attempt_version, int64_t timestamp_ms,
                                   std::optional<int64_t> in_commit_timestamp) const;
  void Validate() const;
  IsolationLevel ChooseIsolationLevel() const;
  // The row id high water mark fresh ids start above: the snapshot's, or a winning commit's.
  int64_t RowIdHighWaterMarkBefore() const;
  // Throws the conflict error for winning commit `version`, or returns normally (the
  // transaction may have adopted the winner's protocol).
  void CheckConflicts(int64_t version, const std::vector<Action>& winner);
  // After a put-if-absent error: did the file at `path` land with our txnId?
  bool CommitLanded(const std::string& path) const;

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  std::string log_dir_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::string txn_id_;
  std::vector<std::string> enforced_features_;

  std::optional<Metadata> new_metadata_;
  std::optional<Protocol> new_protocol_;
  std::vector<log::AddFile> adds_;
  std::vector<log::RemoveFile> removes_;
  std::vector<log::AddCdcFile> cdc_files_;
  std::vector<log::SetTransaction> set_transactions_;
  std::vector<DomainMetadata> domains_;
  std::string operation_ = "WRITE";
  std::vector<std::pair<std::string, std::string>> operation_parameters_;
  StringMap operation_metrics_;
  std::optional<IsolationLevel> isolation_level_;

  std::vector<ReadPredicate> read_predicates_;
  std::set<std::string> read_file_paths_;  // canonical paths
  std::set<std::string> read_app_ids_;
  bool read_whole_table_ = false;
  // The highest in-commit timestamp seen in winning commits; ours must exceed it.
  std::optional<int64_t> winner_in_commit_timestamp_;
  // The highest row id high water mark seen in winning commits.
  std::optional<int64_t> winner_row_id_high_water_mark_;
  bool committed_ = false;
};

/// The protocol a table with `metadata` needs: (1, 2) by default; (1, 4) with the change data
/// feed or generated columns; (2, 5) with column mapping; (1, 6) with identity columns; table
/// features (3, 7) / (1, 7), listing the features the legacy versions implied as Spark does, when
/// a feature without a legacy version is used (deletion vectors, timestamp_ntz columns, V2
/// checkpoints, in-commit timestamps, domain metadata) or named by a `delta.feature.<name>`
/// property (`supported` or `enabled`).
Protocol RequiredProtocol(const Metadata& metadata);

/// Table property helpers used by the writer.
int64_t CheckpointInterval(const Metadata& metadata);
/// Parses Delta's "interval N unit" durations (`delta.logRetentionDuration` etc.) in
/// milliseconds. Throws INVALID_CONFIGURATION naming `key` for malformed text.
int64_t ParseIntervalMs(std::string_view text, std::string_view key);

}  // namespace silt::log
