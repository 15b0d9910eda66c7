// DELETE FROM t [WHERE ...] with Delta's semantics: whole files are removed without rewriting
// when the predicate holds for all their rows (no predicate, a partition-only predicate, or
// statistics that prove it); other files with matching rows get a deletion vector when the table
// enables them, and are otherwise rewritten without those rows.

#include <algorithm>
#include <optional>
#include <string>

#include "silt/base/check.h"
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

  dml::TargetFileReader reader(table, session.fs(), &session.pool());
  AnnounceTargetFiles(session, to_rewrite);
  for (const log::AddFile* file : to_rewrite) {
    session.cancellation().ThrowIfRequested();
    session.progress().AddRead(1, 0, file->size);
    dml::Stopwatch file_scan;
    // One file at a time: its survivors are only written once a match shows it must change.
    std::vector<Batch> survivors;
    // Under row tracking survivors keep their row ids and commit versions.
    std::vector<std::pair<VectorPtr, VectorPtr>> survivor_tracking;
    std::vector<Batch> deleted;
    int64_t file_deleted = 0;
    // With deletion vectors the file stays; only the positions of its matching rows are kept.
    bool by_deletion_vector = writer.UsesDeletionVector(*file);
    std::vector<uint64_t> deleted_positions;
    reader.Read(*file, [&](dml::PositionedBatch&& batch) {
      std::vector<uint8_t> matches = expr::EvaluateFilter(*predicate, batch.rows, context);
      context.ThrowIfError();
      std::vector<uint8_t> keep(matches.size());
      int64_t matched = 0;
      for (size_t i = 0; i < matches.size(); ++i) {
        keep[i] = matches[i] == 0;
        matched += matches[i] != 0;
      }
      if (matched > 0 && writer.writes_changes()) deleted.push_back(dml::SelectRows(batch.rows, matches));
      if (by_deletion_vector) {
        for (size_t i = 0; i < matches.size(); ++i) {
          if (matches[i]) deleted_positions.push_back(batch.positions[i]);
        }
      } else if (matched < batch.rows.num_rows()) {
        survivors.push_back(dml::SelectRows(batch.rows, keep));
        survivor_tracking.emplace_back(dml::SelectValues(batch.row_ids, keep),
                                       dml::SelectValues(batch.row_commit_versions, keep));
      }
      file_deleted += matched;
    });
    scan_ms += file_scan.ElapsedMs();
    if (file_deleted == 0) continue;
    dml::Stopwatch file_rewrite;
    for (const Batch& batch : deleted) writer.WriteChanges(batch, dml::ChangeType::kDelete);
    if (by_deletion_vector) {
      deleted_rows += static_cast<int64_t>(writer.DeleteRows(*file, deleted_positions));
      rewrite_ms += file_rewrite.ElapsedMs();
      continue;
    }
    for (size_t i = 0; i < survivors.size(); ++i) {
      writer.WriteData(survivors[i], survivor_tracking[i].first, survivor_tracking[i].second);
      copied_rows += survivors[i].num_rows();
    }
    rewrite_ms += file_rewrite.ElapsedMs();
    deleted_rows += file_deleted;
    removed_bytes += file->size;
    commit.removed.push_back(file);
  }

  dml::Stopwatch finish_clock;
  commit.written = writer.Finish();
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
