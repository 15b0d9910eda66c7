// DELETE FROM t [WHERE ...] with Delta's semantics: whole files are removed without rewriting
// when the predicate holds for all their rows (no predicate, a partition-only predicate, or
// statistics that prove it); other files with matching rows get a deletion vector when the table
// enables them, and are otherwise rewritten without those rows.

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/commands/dml_support.h"
#include "silt/commands/dml_views.h"
#include "silt/commands/statement_internal.h"
#include "silt/expr/evaluator.h"

namespace silt::commands::internal {

StatementResult ExecuteDelete(sql::SessionState& session, const sql::Statement& written) {
  // A view target writes to its table (dml_views.h).
  const sql::Statement statement = dml::ResolveDmlThroughView(session, written, "DELETE");
  dml::Stopwatch total;
  SILT_CHECK(statement.target != nullptr, "DELETE without a target");
  dml::DmlTable table = dml::LoadDmlTable(session, *statement.target, "DELETE");
  expr::EvalContext context = session.MakeEvalContext();
  expr::ExpressionPtr predicate;
  std::vector<std::string> predicate_sql;
  // Delta's DELETE runs [NOT] EXISTS subqueries only when this internal setting is on (off by
  // default); every other subquery is refused either way.
  std::optional<std::string> allow_exists = session.GetConf("spark.databricks.delta.delete.allowExistsSubquery");
  exec::ExecContext subquery_context = MakeExecContext(session);
  sql::QueryBinder subqueries(session, subquery_context);
  const bool exists_allowed = allow_exists && (*allow_exists == "true" || *allow_exists == "TRUE");
  if (statement.where) {
    predicate = dml::BindTablePredicate(table, *statement.where, statement.target->alias, "WHERE", "DELETE",
                                        exists_allowed ? &subqueries : nullptr);
    dml::CheckDeterministicCondition(predicate, *statement.where, "WHERE condition of DELETE operation");
    predicate_sql.push_back(dml::ConditionSql(*statement.where));
  }

  auto txn = dml::StartDmlTransaction(table);
  dml::Stopwatch scan_clock;
  dml::CandidateFiles candidates = dml::ChooseCandidateFiles(table, predicate, &session.pool());
  dml::RecordReads(*txn, candidates);

  dml::DmlCommit commit;
  int64_t deleted_rows = 0;
  int64_t copied_rows = 0;
  int64_t removed_bytes = 0;
  int64_t scan_ms = 0;
  int64_t rewrite_ms = 0;
  dml::DmlWriter writer(table, session.fs());

  // Without a predicate, or with one on partition columns only, the answer is the same for every
  // row of a file: files go whole, and readers of the change feed derive their deletes from the
  // removes, so no change files are needed.
  bool metadata_only = !predicate || dml::IsPartitionOnlyPredicate(table, predicate);
  std::vector<const log::AddFile*> to_rewrite;
  for (const log::AddFile* file : candidates.files) {
    std::optional<bool> whole;
    if (!predicate) {
      whole = true;
    } else if (metadata_only) {
      whole = dml::EvaluateOnPartitionValues(table, predicate, *file, context);
    } else if (!table.change_data_feed && dml::StatsProveAllRowsMatch(table, predicate, *file)) {
      // With the change feed on the deleted rows must go to change files, so the file is read.
      whole = true;
    }
    if (whole.has_value() && (metadata_only || *whole)) {
      if (*whole) {
        deleted_rows += dml::LiveRowCount(table, *session.fs(), *file);
        removed_bytes += file->size;
        commit.removed.push_back(file);
      }
      continue;
    }
    to_rewrite.push_back(file);
  }
  scan_ms += scan_clock.ElapsedMs();

  // Files are read in parallel, and the pieces (row groups) of each file too, so that one large
  // file keeps every thread busy; a file's rows stay in memory until a match shows it must
  // change, and then it is rewritten in parallel parts (dml::WriteRewrite).
  struct FileResult {
    bool by_deletion_vector = false;
    int64_t deleted = 0;
    int64_t copied = 0;
    // Deletion-vector mode: the positions of the deleted rows and their change rows.
    std::vector<uint64_t> deleted_positions;
    std::vector<dml::PieceOutput> pieces;
    dml::WrittenOutput written;
  };
  dml::TargetFileReader reader(table, session.fs(), &session.pool());
  AnnounceTargetFiles(session, to_rewrite);
  ThreadPool& pool = session.pool();
  std::vector<FileResult> results(to_rewrite.size());
  std::atomic<int64_t> write_ms{0};
  dml::Stopwatch file_phase;
  pool.ParallelFor(to_rewrite.size(), [&](size_t f) {
    session.cancellation().ThrowIfRequested();
    const log::AddFile& file = *to_rewrite[f];
    FileResult& result = results[f];
    // With deletion vectors the file stays; only the positions of its matching rows are kept.
    result.by_deletion_vector = writer.UsesDeletionVector(file);
    std::unique_ptr<dml::TargetFileReader::OpenedTarget> opened = reader.Open(file);
    result.pieces.resize(opened->num_pieces());
    std::vector<std::vector<uint64_t>> positions(opened->num_pieces());
    std::vector<int64_t> deleted(opened->num_pieces(), 0);
    pool.ParallelFor(opened->num_pieces(), [&](size_t piece) {
      session.cancellation().ThrowIfRequested();
      dml::PositionedBatch batch = opened->ReadPiece(piece);
      if (batch.rows.num_rows() == 0) return;
      expr::EvalContext piece_context = context;
      std::vector<uint8_t> matches = expr::EvaluateFilter(*predicate, batch.rows, piece_context);
      piece_context.ThrowIfError();
      int64_t matched = 0;
      for (uint8_t match : matches) matched += match != 0;
      dml::PieceOutput& output = result.pieces[piece];
      if (matched > 0 && writer.writes_changes()) {
        output.changes.emplace_back(dml::SelectRows(batch.rows, matches), dml::ChangeType::kDelete);
      }
      dml::KeepUnmatchedRows(batch, matches, matched, result.by_deletion_vector, positions[piece],
                             output);
      deleted[piece] = matched;
    });
    opened.reset();
    session.progress().AddRead(1, 0, file.size);
    for (size_t piece = 0; piece < deleted.size(); ++piece) {
      result.deleted += deleted[piece];
      result.deleted_positions.insert(result.deleted_positions.end(), positions[piece].begin(),
                                      positions[piece].end());
    }
    if (result.deleted == 0 || result.by_deletion_vector) {
      // Nothing to write, or only change rows, which the statement's writer takes in order.
      if (result.deleted == 0) result.pieces.clear();
      return;
    }
    for (const dml::PieceOutput& piece : result.pieces) result.copied += piece.num_rows();
    dml::Stopwatch file_rewrite;
    result.written = dml::WriteRewrite(table, session.fs(), result.pieces, pool);
    result.pieces.clear();
    write_ms += file_rewrite.ElapsedMs();
  });
  rewrite_ms += write_ms.load();
  scan_ms += std::max<int64_t>(0, file_phase.ElapsedMs() - write_ms.load());

  dml::Stopwatch deletion_vector_clock;
  std::vector<dml::WrittenOutput> rewritten;
  for (size_t f = 0; f < results.size(); ++f) {
    FileResult& result = results[f];
    if (result.deleted == 0) continue;
    const log::AddFile* file = to_rewrite[f];
    if (result.by_deletion_vector) {
      for (dml::PieceOutput& piece : result.pieces) {
        for (const auto& [batch, type] : piece.changes) writer.WriteChanges(batch, type);
      }
      deleted_rows += static_cast<int64_t>(writer.DeleteRows(*file, result.deleted_positions));
      continue;
    }
    rewritten.push_back(std::move(result.written));
    copied_rows += result.copied;
    deleted_rows += result.deleted;
    removed_bytes += file->size;
    commit.removed.push_back(file);
  }
  rewrite_ms += deletion_vector_clock.ElapsedMs();

  dml::Stopwatch finish_clock;
  commit.written = writer.Finish();
  for (dml::WrittenOutput& output : rewritten) dml::AppendWritten(commit.written, std::move(output));
  rewrite_ms += finish_clock.ElapsedMs();
  // Delta commits nothing when no file changes.
  if (commit.removed.empty() && commit.written.deletion_vectors.empty()) {
    return dml::AffectedRowsResult(0);
  }
  commit.operation = "DELETE";
  commit.parameters = {{"predicate", dml::PredicateParameter(predicate_sql)}};
  commit.metrics = dml::RewriteMetrics(commit, {"numDeletedRows", deleted_rows, copied_rows, removed_bytes,
                                                total.ElapsedMs(), scan_ms, rewrite_ms});
  dml::CommitDml(*txn, std::move(commit), internal::CommitOptionsFor(session));
  return dml::AffectedRowsResult(deleted_rows);
}

}  // namespace silt::commands::internal
