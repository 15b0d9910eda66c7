#pragma once

// Shared by the statement implementations of src/silt/commands (private to the folder).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "silt/commands/statement_executor.h"
#include "silt/exec/operator.h"
#include "silt/log/transaction.h"
#include "silt/log/snapshot.h"
#include "silt/sql/planner.h"
#include "silt/vector/vector.h"

namespace silt::commands::internal {

/// The table features the statements enforce themselves before writing: CHECK constraints are
/// evaluated, generated columns computed or checked on every written row, and identity values
/// generated with their high water marks moved in the same commit.
std::vector<std::string> EnforcedFeatures();

/// A Delta table a statement acts on.
struct DeltaTarget {
  std::string location;
  std::string display_name;             ///< as Spark prints it: `spark_catalog`.`db`.`t`
  std::vector<std::string> identifier;  ///< {db, table}; empty for delta.`path`
};

/// Resolves `name` for `operation` ("INSERT", "ALTER TABLE", "DESCRIBE HISTORY", ...): a view
/// throws EXPECT_TABLE_NOT_VIEW, raw files UNSUPPORTED_FEATURE, unknown names
/// TABLE_OR_VIEW_NOT_FOUND.
DeltaTarget ResolveDeltaTarget(sql::SessionState& session, const sql::QualifiedName& name,
                               const sql::SourcePosition& position, const std::string& operation);

/// Lower-cased ASCII.
std::string Lower(std::string_view text);

/// A string parameter as commitInfo stores it: a JSON string.
std::string QuotedJson(std::string_view text);

/// Builds a result table column by column (all columns given as typed builders).
class ResultBuilder {
 public:
  explicit ResultBuilder(std::vector<Field> fields);
  VectorBuilder& column(size_t i) { return *builders_[i]; }
  /// Appends a row of strings (nullopt = NULL) to an all-string result.
  void AddStringRow(const std::vector<std::optional<std::string>>& values);
  StatementResult Finish();

 private:
  SchemaPtr schema_;
  std::vector<std::unique_ptr<VectorBuilder>> builders_;
};

/// An execution context with the session's settings, worker pool, cancel request and progress.
exec::ExecContext MakeExecContext(sql::SessionState& session);
/// Commit options that carry the session's cancel request (a cancelled statement commits
/// nothing).
log::CommitOptions CommitOptionsFor(sql::SessionState& session);

/// Idempotent writes (Delta's "idempotent table writes"): with the session options
/// `spark.databricks.delta.write.txnAppId` and `spark.databricks.delta.write.txnVersion` set,
/// INSERT, MERGE, UPDATE, DELETE and CTAS skip a write the target table already recorded for
/// that application at that version or a later one, and otherwise commit a `txn` action with
/// them. `...txnVersion.autoReset.enabled` (default false) unsets the version after each write.
bool IsIdempotentWriteStatement(const sql::Statement& statement);
/// The (appId, version) of the session options, or nullopt when neither is set. Throws
/// INVALID_CONFIGURATION when only one is set or the version is not a non-negative integer.
std::optional<log::SetTransaction> IdempotentWriteOf(const sql::SessionState& session);
/// Whether the statement's target table already recorded `write` (its version or a later one).
bool IdempotentWriteApplied(sql::SessionState& session, const sql::Statement& statement,
                            const log::SetTransaction& write);
/// Unsets the version when auto-reset is on.
void AfterIdempotentWrite(sql::SessionState& session);
/// Makes CommitOptionsFor carry `write` on this thread while the scope lives.
class IdempotentWriteScope {
 public:
  explicit IdempotentWriteScope(const log::SetTransaction* write);
  ~IdempotentWriteScope();
  IdempotentWriteScope(const IdempotentWriteScope&) = delete;
  IdempotentWriteScope& operator=(const IdempotentWriteScope&) = delete;

 private:
  const log::SetTransaction* previous_;
};
/// The idempotent write of the statement running on this thread, or nullptr.
const log::SetTransaction* RunningIdempotentWrite();

/// Adds `files` (a DML statement's target files to read) to the progress totals.
void AnnounceTargetFiles(sql::SessionState& session, const std::vector<const log::AddFile*>& files);

/// Plans and runs a query with the session's settings.
StatementResult RunQuery(sql::SessionState& session, const sql::Query& query);

/// A query's rows pulled batch by batch, as a write consumes them (CTAS, INSERT ... SELECT):
/// only the batch being written is held, so a source bigger than memory can be written. The plan
/// holds what it reads (the tables' snapshots) until it is destroyed.
struct QuerySource {
  exec::ExecContext context;
  sql::PlannedQuery planned;

  const SchemaPtr& schema() const { return planned.schema; }
  /// The next batch, or nullopt at the end. Throws OPERATION_CANCELED when the statement is
  /// cancelled.
  std::optional<Batch> Next();
};

/// Plans a query with the session's settings (analysis errors throw here); nothing runs yet.
QuerySource OpenQuery(sql::SessionState& session, const sql::Query& query);

/// The CHECK constraints of a table: (name, expression text) from `delta.constraints.*`.
std::vector<std::pair<std::string, std::string>> CheckConstraints(const log::Metadata& metadata);

/// Where CREATE TABLE puts a table: a catalog name (managed, or external with LOCATION) or
/// delta.`path`, and whether a table is there already.
struct CreateTarget {
  std::string location;
  std::optional<std::string> database;  ///< catalog tables
  std::string table;
  std::string display_name;
  bool exists = false;
  bool external = false;
};
/// The target of CREATE [OR REPLACE] TABLE / REPLACE TABLE `statement.name` (LOCATION
/// included). Throws INVALID_SCHEMA_OR_RELATION_NAME, SCHEMA_NOT_FOUND, and
/// TABLE_OR_VIEW_ALREADY_EXISTS for a view of that name.
CreateTarget ResolveCreateTarget(sql::SessionState& session, const sql::Statement& statement);
/// Commits `txn`, which creates or replaces the table at `target`; a new external table is
/// registered in the catalog first and unregistered again when the commit fails.
void CommitCreatedTable(sql::SessionState& session, const CreateTarget& target,
                        log::Transaction& txn);

StatementResult ExecuteCreateTable(sql::SessionState& session, const sql::Statement& statement);
/// The snapshot of a statement's VERSION | TIMESTAMP AS OF (`statement`: "RESTORE", "CLONE", for
/// errors): the version, or the timestamp in milliseconds (strings in the session time zone).
log::SnapshotOptions TimeTravelOptions(const sql::TimeTravel& travel,
                                       const expr::EvalContext& context,
                                       const std::string& statement);
/// CREATE [OR REPLACE] TABLE [IF NOT EXISTS] t SHALLOW CLONE s [VERSION|TIMESTAMP AS OF ...]
/// [TBLPROPERTIES (...)] [LOCATION '...'] (clone_statement.cc): Delta's shallow clone.
StatementResult ExecuteShallowClone(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteInsert(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteAlterTable(sql::SessionState& session, const sql::Statement& statement);
/// DELETE FROM t [WHERE ...] (delete_statement.cc) and UPDATE t SET ... [WHERE ...]
/// (update_statement.cc): each returns Delta's one-row `num_affected_rows` result.
StatementResult ExecuteDelete(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteUpdate(sql::SessionState& session, const sql::Statement& statement);

/// RESTORE TABLE t TO VERSION|TIMESTAMP AS OF ... (restore_statement.cc).
StatementResult ExecuteRestore(sql::SessionState& session, const sql::Statement& statement);
/// VACUUM t [RETAIN n HOURS] [DRY RUN] (vacuum_statement.cc).
StatementResult ExecuteVacuum(sql::SessionState& session, const sql::Statement& statement);
/// OPTIMIZE t [WHERE ...] [ZORDER BY (...)] (optimize_statement.cc).
StatementResult ExecuteOptimize(sql::SessionState& session, const sql::Statement& statement);
/// CONVERT TO DELTA parquet.`path` [PARTITIONED BY (...)] (convert_statement.cc).
StatementResult ExecuteConvertToDelta(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteDescribeTable(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteDescribeDetail(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteDescribeHistory(sql::SessionState& session, const sql::Statement& statement);
/// DESCRIBE HEALTH t: one row of the key numbers of TableHealth (health_statement.cc).
StatementResult ExecuteDescribeHealth(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteShowTableProperties(sql::SessionState& session,
                                           const sql::Statement& statement);
StatementResult ExecuteShowCreateTable(sql::SessionState& session, const sql::Statement& statement);
StatementResult ExecuteShowColumns(sql::SessionState& session, const sql::Statement& statement);

}  // namespace silt::commands::internal
