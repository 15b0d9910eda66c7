#pragma once

// The machinery DELETE, UPDATE and MERGE share (private to src/silt/commands): loading the
// target table, choosing the candidate files of a predicate, reading a file's live rows with
// their row positions, writing rewritten data and change-data files, and committing the result
// with Delta's operation name, parameters and metrics.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "silt/commands/statement_internal.h"
#include "silt/sql/query_binder.h"
#include "silt/expr/expression.h"
#include "silt/log/actions.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/deletion_vector_writer.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"
#include "silt/log/transaction.h"
#include "silt/vector/batch.h"

namespace silt::commands::dml {

/// The `_change_type` column of change-data rows.
inline constexpr std::string_view kChangeTypeColumn = "_change_type";
/// The folder (under the table root) holding change-data files.
inline constexpr std::string_view kChangeDataFolder = "_change_data";

/// The values of `_change_type` (delta-protocol §15).
enum class ChangeType { kInsert, kDelete, kUpdatePreimage, kUpdatePostimage };
/// "insert", "delete", "update_preimage" or "update_postimage".
std::string_view ChangeTypeName(ChangeType type);

/// The Delta table a DML statement modifies, pinned at the snapshot it reads.
struct DmlTable {
  internal::DeltaTarget target;
  std::shared_ptr<const log::Snapshot> snapshot;
  /// The logical table schema; rows read, written and validated use it.
  SchemaPtr schema;
  /// `delta.enableChangeDataFeed` (or its legacy alias) is on: rewrites must write change data.
  bool change_data_feed = false;
  /// `delta.enableDeletionVectors` is on.
  bool deletion_vectors = false;
  /// Row tracking is enabled: rows rewritten into new files keep their stable row ids (and
  /// copied rows their commit versions) in the materialized columns named here.
  bool row_tracking = false;
  std::string materialized_row_id_column;
  std::string materialized_row_commit_version_column;
  /// The most rows a written file holds (`spark.sql.files.maxRecordsPerFile`; 0: no limit).
  int64_t max_rows_per_file = 0;

  const log::Metadata& metadata() const { return snapshot->metadata(); }
  /// True when `column` (a top-level index of `schema`) is a partition column.
  bool IsPartitionColumn(size_t column) const;
};

/// Resolves `reference` (a kTable reference: catalog name or delta.`path`) for `operation`
/// ("DELETE", "UPDATE", "MERGE") and loads its latest snapshot. Errors as ResolveDeltaTarget;
/// a time-travel target throws UNSUPPORTED_FEATURE.
DmlTable LoadDmlTable(sql::SessionState& session, const sql::TableReference& reference,
                      const std::string& operation);

/// Binds `predicate` (a WHERE / ON condition over the table's columns, optionally qualified by
/// the table's name or `alias`) as a BOOLEAN expression over `table.schema`. Throws the binder's
/// errors (UNRESOLVED_COLUMN, DATATYPE_MISMATCH, ...). With `operation` ("DELETE", "UPDATE") a
/// subquery anywhere in the condition is DELTA_UNSUPPORTED_SUBQUERY, as Delta refuses scalar,
/// IN and EXISTS subqueries in these conditions; with `exists` too, [NOT] EXISTS subqueries run
/// through it (QueryBinder::BindExistsAsMembership), as Delta's DELETE runs them when
/// spark.databricks.delta.delete.allowExistsSubquery is on.
expr::ExpressionPtr BindTablePredicate(const DmlTable& table, const sql::Expression& predicate,
                                       const std::string& alias, const std::string& clause,
                                       const std::string& operation = "", sql::QueryBinder* exists = nullptr);

/// The "(condition = <sql>)." text Delta's condition errors carry, for `condition` as written.
std::string ConditionErrorText(const sql::Expression& condition);

/// Throws DELTA_NON_DETERMINISTIC_FUNCTION_NOT_SUPPORTED when `bound` (the binding of
/// `condition`) is non-deterministic: Delta refuses rand(), uuid() and the like in DML
/// conditions, whose rows would then differ between the scan that finds the files and the
/// rewrite. `operation` names the condition as Delta does ("search condition of MERGE
/// operation", "WHERE condition of UPDATE operation").
void CheckDeterministicCondition(const expr::ExpressionPtr& bound, const sql::Expression& condition,
                                 const std::string& operation);

/// Binds `value` (an assignment's right-hand side) over `table.schema` as BindTablePredicate
/// does, without requiring a type. With `subqueries`, an uncorrelated subquery in the value runs
/// through it and stands for its result (Delta runs them in UPDATE SET); a correlated one is
/// UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY. Without, subqueries are refused.
expr::ExpressionPtr BindTableValue(const DmlTable& table, const sql::Expression& value,
                                   const std::string& alias, sql::QueryBinder* subqueries = nullptr);

/// The names the table's columns can be qualified with: {alias}, or {"spark_catalog", db, t}
/// for a catalog table (any suffix qualifies), or none for delta.`path`.
std::vector<std::string> TableQualifier(const DmlTable& table, const std::string& alias);

/// True when every column `predicate` references is a partition column of `table` and the
/// predicate is deterministic: its value is then the same for every row of a file.
bool IsPartitionOnlyPredicate(const DmlTable& table, const expr::ExpressionPtr& predicate);

/// The files a predicate may touch.
struct CandidateFiles {
  /// The pruning conjuncts derived from the predicate (partition values and min/max stats);
  /// also what the transaction records as its read predicate.
  std::vector<log::ScanPredicate> predicates;
  /// The live files the conjuncts leave possible, in snapshot order. Point into the snapshot.
  std::vector<const log::AddFile*> files;
  /// Live files before pruning.
  size_t num_files_before_skipping = 0;
};

/// Chooses the candidate files of `predicate` (nullptr: every live file), bound over
/// `table.schema`. The scan built for it reads the whole table schema.
CandidateFiles ChooseCandidateFiles(const DmlTable& table, const expr::ExpressionPtr& predicate,
                                    ThreadPool* pool = nullptr);

/// The value of a partition-only `predicate` (IsPartitionOnlyPredicate) for the rows of `file`,
/// computed from its partition values: true when every row matches (NULL counts as false).
/// nullopt when a partition value cannot be found under its column's name.
std::optional<bool> EvaluateOnPartitionValues(const DmlTable& table,
                                              const expr::ExpressionPtr& predicate,
                                              const log::AddFile& file,
                                              const expr::EvalContext& context);

/// True when `file`'s min/max/null-count statistics prove that every live row satisfies
/// `predicate`: each conjunct must be `column op literal` on a numeric or date column whose
/// bounds satisfy it with no NULLs. False when unsure.
bool StatsProveAllRowsMatch(const DmlTable& table, const expr::ExpressionPtr& predicate,
                            const log::AddFile& file);

/// The live rows of `file`: `numRecords` from its statistics (else its Parquet footer) minus the
/// cardinality of its deletion vector.
int64_t LiveRowCount(const DmlTable& table, io::FileSystem& fs, const log::AddFile& file);

/// Live rows of one row group of a target file and each row's physical position (0-based row
/// index in the Parquet file, the index a deletion vector marks).
struct PositionedBatch {
  Batch rows;  ///< In the table schema.
  std::vector<uint64_t> positions;
  /// With row tracking, each row's stable row id and row commit version (else nullptr).
  VectorPtr row_ids;
  VectorPtr row_commit_versions;
};

/// Reads target files of one table: every column of the table schema, partition columns
/// filled in, rows of an existing deletion vector left out. Thread-safe after construction;
/// `table` must outlive it.
class TargetFileReader {
 public:
  /// `read_columns` (one flag per table column; empty = all) names the columns decoded; the
  /// others are all NULL in the batches returned, which keep the table's layout. A statement
  /// that writes deletion vectors and no change data needs only the columns its conditions and
  /// new values use, which spares decoding the rest.
  /// `as_metadata` reads the files as that metadata's schema instead of the table's (a MERGE
  /// with schema evolution: the columns and nested fields it adds read as NULL); it must outlive
  /// the reader, and `read_columns` must then be empty.
  TargetFileReader(const DmlTable& table, std::shared_ptr<io::FileSystem> fs,
                   ThreadPool* pool = nullptr, std::vector<bool> read_columns = {},
                   const log::Metadata* as_metadata = nullptr);

  /// A target file opened for reading in pieces: its row groups, numbered in file order, which
  /// several threads may read at once (so that one large file is matched and rewritten in
  /// parallel, its pieces' results put back in file order by their numbers). Must not outlive
  /// the reader.
  class OpenedTarget {
   public:
    OpenedTarget(const TargetFileReader& reader,
                 std::unique_ptr<log::TableScan::OpenedFile> file);
    ~OpenedTarget();
    size_t num_pieces() const { return file_->row_groups().size(); }
    /// The live rows of piece `piece` (< num_pieces()) with their physical positions; no rows
    /// when none is live. Thread-safe. Throws what OpenedFile::ReadRowGroup throws.
    PositionedBatch ReadPiece(size_t piece) const;

   private:
    const TargetFileReader& reader_;
    std::unique_ptr<log::TableScan::OpenedFile> file_;
  };
  /// Opens `file`: reads its footer and deletion vector. Throws what TableScan::OpenFile throws.
  std::unique_ptr<OpenedTarget> Open(const log::AddFile& file) const;

  /// Calls `consume` for each row group of `file` in file order (row groups with no live row
  /// are skipped), with the physical position of every row. Throws what TableScan::OpenFile
  /// and OpenedFile::ReadRowGroup throw.
  void Read(const log::AddFile& file,
            const std::function<void(PositionedBatch&&)>& consume) const;
  /// All live rows of `file` (row groups in file order).
  std::vector<PositionedBatch> ReadAll(const log::AddFile& file) const;

 private:
  const DmlTable& table_;
  std::shared_ptr<io::FileSystem> fs_;
  std::unique_ptr<log::TableScan> scan_;
  SchemaPtr schema_;  // of the batches returned
  // Table column -> column of the scan's batches, or -1 for a column not read.
  std::vector<int> scan_column_;
  // The scan's `_metadata` column under row tracking, else -1.
  int metadata_column_ = -1;
  // Per table column not read: the last all-NULL vector made for it, shared by the next piece of
  // as many rows (vectors are immutable), so that the pieces of a file, mostly of one size, do
  // not each allocate and zero their own.
  mutable std::mutex null_columns_mutex_;
  mutable std::vector<VectorPtr> null_columns_;
};

/// The rows of `batch` whose `keep` byte is non-zero (the batch itself when all are kept).
Batch SelectRows(const Batch& batch, const std::vector<uint8_t>& keep);
/// The values of `vector` whose `keep` byte is non-zero; nullptr for nullptr.
VectorPtr SelectValues(const VectorPtr& vector, const std::vector<uint8_t>& keep);

/// What a DmlWriter wrote.
struct WrittenOutput {
  std::vector<log::AddFile> adds;
  std::vector<log::AddCdcFile> change_files;
  /// Files whose rows were deleted with deletion vectors (their add and remove actions).
  std::vector<log::DeletionVectorUpdate> deletion_vectors;
  int64_t data_rows = 0;
  int64_t data_bytes = 0;
  int64_t change_rows = 0;
  int64_t change_bytes = 0;
};
/// Appends `from` to `into` (files in order, counts added).
void AppendWritten(WrittenOutput& into, WrittenOutput&& from);

/// Writes the new data files of a DML commit and, when the table has the change data feed on,
/// its change-data files: rows plus `_change_type`, under `_change_data/` partitioned like the
/// table, returned as `cdc` actions (dataChange false); and the deletion vectors of files whose
/// rows it deletes in place. Not thread-safe; `table` must outlive it.
class DmlWriter {
 public:
  /// Writes with the table's metadata and schema, or with `metadata` and `schema` when given (a
  /// MERGE with schema evolution writes the columns its commit adds); `metadata` must outlive it.
  /// With `background_sync` the files it finishes are made durable there (its Wait() must come
  /// before the commit), not before Finish returns.
  DmlWriter(const DmlTable& table, std::shared_ptr<io::FileSystem> fs,
            const log::Metadata* metadata = nullptr, SchemaPtr schema = nullptr,
            io::BackgroundSync* background_sync = nullptr);
  ~DmlWriter();
  DmlWriter(const DmlWriter&) = delete;
  DmlWriter& operator=(const DmlWriter&) = delete;

  /// Writes rows (in the table schema) to new data files. Rows are validated by the caller.
  /// With row tracking, `row_ids` and `row_commit_versions` (one per row; NULL or nullptr for
  /// rows that get fresh ones) are the values the rows keep, written to the materialized
  /// columns: an updated row keeps its id, a copied row its id and commit version.
  void WriteData(const Batch& rows, const VectorPtr& row_ids = nullptr,
                 const VectorPtr& row_commit_versions = nullptr);
  /// Writes change rows (in the table schema) tagged `type`. Does nothing when the table's change
  /// data feed is off, so callers can call it unconditionally.
  void WriteChanges(const Batch& rows, ChangeType type);
  /// True when WriteChanges writes anything.
  bool writes_changes() const { return table_.change_data_feed; }
  /// True when rows of `file` are deleted by DeleteRows (a deletion vector) rather than by
  /// rewriting the file: the table allows new deletion vectors and the file records numRecords.
  bool UsesDeletionVector(const log::AddFile& file) const;
  /// Marks rows at physical `positions` of `file` deleted in a deletion vector (see
  /// log::DeletionVectorWriter::DeleteRows; once per file). Returns the rows newly deleted.
  /// The file's add/remove go to Finish's output; a file left without live rows is only removed.
  uint64_t DeleteRows(const log::AddFile& file, const std::vector<uint64_t>& positions);
  /// Closes the files. Call once.
  WrittenOutput Finish();

 private:
  const DmlTable& table_;
  std::shared_ptr<io::FileSystem> fs_;
  const log::Metadata& metadata_;
  SchemaPtr schema_;
  io::BackgroundSync* background_sync_;
  std::unique_ptr<log::DataFileWriter> data_writer_;
  std::unique_ptr<log::DataFileWriter> change_writer_;
  std::unique_ptr<log::DeletionVectorWriter> deletion_vector_writer_;
  std::vector<log::DeletionVectorUpdate> deletion_vectors_;
  SchemaPtr change_schema_;
  SchemaPtr tracked_schema_;  // the table schema plus the materialized row tracking columns
  int64_t data_rows_ = 0;
  int64_t change_rows_ = 0;
};

/// Rows a rewrite writes, with the row tracking values they keep (nullptr: fresh ones).
struct RowsToWrite {
  Batch rows;
  VectorPtr row_ids;
  VectorPtr row_commit_versions;
};

/// What one piece (row group) of a target file contributes to the file's rewrite.
struct PieceOutput {
  /// Rows with new values (updated rows), written first.
  std::vector<RowsToWrite> changed;
  /// The piece's unchanged rows, copied after the changed ones (none in deletion-vector mode).
  std::vector<RowsToWrite> copied;
  /// Change data rows (written only when the table has the change data feed on).
  std::vector<std::pair<Batch, ChangeType>> changes;

  int64_t num_rows() const;
};

/// What a piece keeps of the rows a DML condition did not match (`matches`, of which `matched`
/// are set): with `by_deletion_vector` the matched rows' positions go to `removed` (the others
/// stay where they are); otherwise the other rows go to `output.copied` with their row ids and
/// commit versions (row tracking).
void KeepUnmatchedRows(const PositionedBatch& batch, const std::vector<uint8_t>& matches,
                       int64_t matched, bool by_deletion_vector, std::vector<uint64_t>& removed,
                       PieceOutput& output);

/// A rewritten file is split into parts written in parallel only when each part gets at least
/// this many pieces of it: files of a few row groups stay one file.
inline constexpr size_t kMinPiecesPerRewritePart = 4;

/// Writes the rewrite of one target file from its pieces (in file order): on up to
/// `pool.num_threads()` threads, each writing a contiguous run of pieces (balanced by rows, at
/// least kMinPiecesPerRewritePart each) with its own DmlWriter, so a large file becomes a few
/// files whose rows, taken in part order, keep the pieces' order (each part writes its pieces'
/// changed rows, then their copied rows). The pieces' batches are released as they are
/// written. `metadata`, `schema` and `background_sync` as for DmlWriter. Returns the parts'
/// output in part order.
WrittenOutput WriteRewrite(const DmlTable& table, const std::shared_ptr<io::FileSystem>& fs,
                           std::vector<PieceOutput>& pieces, ThreadPool& pool,
                           const log::Metadata* metadata = nullptr, SchemaPtr schema = nullptr,
                           io::BackgroundSync* background_sync = nullptr);

/// Milliseconds elapsed since construction, for the *TimeMs metrics.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  int64_t ElapsedMs() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start_)
        .count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// Everything a DML commit holds besides its reads.
struct DmlCommit {
  std::string operation;  ///< "DELETE", "UPDATE", "MERGE".
  /// operationParameters: name -> JSON text (use internal::QuotedJson for strings).
  std::vector<std::pair<std::string, std::string>> parameters;
  /// operationMetrics: name -> decimal text, in Delta's order.
  log::StringMap metrics;
  std::vector<const log::AddFile*> removed;  ///< Live files to remove (dataChange true).
  WrittenOutput written;
};

/// The deletion-vector side of a DML commit's metrics.
struct DeletionVectorCounts {
  int64_t added = 0;    ///< numDeletionVectorsAdded: new DVs, plus replaced ones (as Delta).
  int64_t removed = 0;  ///< numDeletionVectorsRemoved: dropped DVs, plus replaced ones.
  int64_t updated = 0;  ///< numDeletionVectorsUpdated: DVs replaced by a larger one.
  int64_t removed_files = 0;  ///< Files left without live rows, removed outright.
  int64_t removed_bytes = 0;  ///< Their sizes.
};
DeletionVectorCounts CountDeletionVectors(const std::vector<log::DeletionVectorUpdate>& updates);

/// What a DELETE or UPDATE counted while rewriting files (the rest of its metrics come from the
/// commit itself).
struct RewriteCounts {
  std::string rows_metric;  ///< "numDeletedRows" or "numUpdatedRows"
  int64_t rows = 0;
  int64_t copied_rows = 0;
  int64_t removed_bytes = 0;  ///< of the files removed for rewriting
  int64_t execution_ms = 0;
  int64_t scan_ms = 0;
  int64_t rewrite_ms = 0;
};

/// DELETE's and UPDATE's operationMetrics, in Delta's order: file, row and byte counts of
/// `commit` (its deletion-vector updates included) and `counts`.
log::StringMap RewriteMetrics(const DmlCommit& commit, const RewriteCounts& counts);

/// The one-row `num_affected_rows` result of DELETE and UPDATE.
StatementResult AffectedRowsResult(int64_t rows);

/// Starts the transaction of a DML statement on `table.snapshot`, with the features the
/// statements enforce themselves (constraints, generated columns, change data feed). Throws
/// DELTA_UNSUPPORTED_FEATURES_FOR_WRITE and the like when silt cannot write the table.
std::unique_ptr<log::Transaction> StartDmlTransaction(const DmlTable& table);

/// Records the reads of a DML statement in `txn`: the pruning predicate (so a concurrent add of
/// a file it could match conflicts) and each file read (so a concurrent remove of it conflicts).
void RecordReads(log::Transaction& txn, const CandidateFiles& candidates);

/// Adds the commit's removes, adds, deletion-vector updates and cdc files to `txn`, sets the
/// operation and commits.
/// Nothing is committed when Commit throws (DELTA_CONCURRENT_*, storage errors,
/// OPERATION_CANCELED when `options` carry a requested cancel).
log::CommitResult CommitDml(log::Transaction& txn, DmlCommit commit,
                            const log::CommitOptions& options);

/// The `predicate` parameter as Delta writes it for DELETE and UPDATE: the JSON text of a string
/// that holds a JSON array of the conditions' SQL (`"[\"(id > 3)\"]"`; `"[]"` for none).
std::string PredicateParameter(const std::vector<std::string>& conditions_sql);

/// The SQL text Delta records for a condition: Spark's expression SQL of the AST (`(a > 1)`).
std::string ConditionSql(const sql::Expression& condition);

}  // namespace silt::commands::dml
