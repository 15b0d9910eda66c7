// UPDATE t SET col = expr[, ...] [WHERE ...] with Delta's semantics: only files holding matching
// rows are rewritten (or, when the table enables deletion vectors, keep their other rows and get
// a deletion vector for the updated ones); updated values are cast by Spark's store-assignment rules, generated
// columns recomputed and constraints checked on the updated rows; with the change feed on, each
// updated row is written as an update_preimage and an update_postimage change row.

#include <algorithm>
#include <atomic>
#include <memory>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/commands/column_defaults.h"
#include "silt/commands/dml_support.h"
#include "silt/commands/dml_views.h"
#include "silt/commands/dml_validation.h"
#include "silt/commands/identity_columns.h"
#include "silt/commands/statement_internal.h"
#include "silt/expr/evaluator.h"

namespace silt::commands::internal {
namespace {

// One `SET path = value`: a top-level column (empty `field_path`) or a nested struct field.
struct BoundAssignment {
  size_t column = 0;
  std::vector<size_t> field_path;  // field indexes inside the column's struct type
  std::string display;             // the path as written, for messages
  expr::ExpressionPtr value;
};

std::string JoinPath(const std::vector<std::string>& parts) {
  std::string text;
  for (const std::string& part : parts) text += (text.empty() ? "" : ".") + part;
  return text;
}

bool SameName(std::string_view left, std::string_view right) {
  return Lower(left) == Lower(right);
}

BoundAssignment BindAssignment(const dml::DmlTable& table, const sql::Assignment& assignment,
                               const std::string& alias, sql::QueryBinder& subqueries) {
  std::vector<std::string> path = assignment.column;
  SILT_CHECK(!path.empty(), "empty SET column");
  const Schema& schema = *table.schema;
  // `t.col` names the table's column when `t` qualifies the table and is not itself a column.
  std::vector<std::string> qualifier = dml::TableQualifier(table, alias);
  if (path.size() > 1 && schema.FieldIndex(path[0], /*case_sensitive=*/false) < 0) {
    for (size_t length = std::min(qualifier.size(), path.size() - 1); length > 0; --length) {
      bool matches = true;
      for (size_t i = 0; i < length; ++i) {
        matches = matches && SameName(path[i], qualifier[qualifier.size() - length + i]);
      }
      if (matches) {
        path.erase(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(length));
        break;
      }
    }
  }
  BoundAssignment bound;
  bound.display = JoinPath(path);
  int index = schema.FieldIndex(path[0], false);
  if (index < 0) {
    std::string proposal;
    for (const Field& field : schema.fields()) {
      proposal += (proposal.empty() ? "`" : ", `") + field.name + "`";
    }
    SILT_THROW(UNRESOLVED_COLUMN,
               {{"objectName", "`" + JoinPath(assignment.column) + "`"}, {"proposal", proposal}});
  }
  bound.column = static_cast<size_t>(index);
  DataTypePtr type = schema.field(bound.column).type;
  for (size_t i = 1; i < path.size(); ++i) {
    if (type->id() != TypeId::kStruct) {
      SILT_THROW(UNSUPPORTED_FEATURE,
                 {{"message", "Updating nested field " + bound.display + " of a non-struct type"}});
    }
    const auto& fields = type->fields();
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const Field& f) { return SameName(f.name, path[i]); });
    if (it == fields.end()) {
      std::string names;
      for (const Field& f : fields) names += (names.empty() ? "`" : ", `") + f.name + "`";
      SILT_THROW(FIELD_NOT_FOUND, {{"fieldName", "`" + path[i] + "`"}, {"fields", names}});
    }
    bound.field_path.push_back(static_cast<size_t>(it - fields.begin()));
    type = it->type;
  }
  bound.value = dml::BindTableValue(table, *assignment.value, alias, &subqueries);
  return bound;
}

// Two assignments conflict when one path is a prefix of the other (`a` and `a`, `s` and `s.f`).
void CheckNoConflicts(const std::vector<BoundAssignment>& assignments) {
  for (size_t i = 0; i < assignments.size(); ++i) {
    for (size_t j = i + 1; j < assignments.size(); ++j) {
      const BoundAssignment& a = assignments[i];
      const BoundAssignment& b = assignments[j];
      if (a.column != b.column) continue;
      size_t common = std::min(a.field_path.size(), b.field_path.size());
      if (std::equal(a.field_path.begin(), a.field_path.begin() + static_cast<std::ptrdiff_t>(common),
                     b.field_path.begin())) {
        SILT_THROW(DELTA_CONFLICT_SET_COLUMN,
                   {{"columnList", "[" + a.display + ", " + b.display + "]"}});
      }
    }
  }
}

// `base` (a struct vector) with the field at `path` replaced by `value` (already of the field's
// type). A NULL struct becomes a struct of NULL fields with the assigned one set, as Delta's
// rewrite into named_struct(...) of field accesses does.
VectorPtr ReplaceField(const VectorPtr& base, const std::vector<size_t>& path, size_t depth,
                       const VectorPtr& value) {
  if (depth == path.size()) return value;
  const DataType& type = *base->type();
  std::vector<VectorPtr> fields;
  for (size_t i = 0; i < type.fields().size(); ++i) {
    VectorPtr field = base->StructField(i);
    // A field of a NULL struct reads as NULL.
    if (base->null_count() > 0) {
      VectorBuilder masked(field->type(), base->length());
      for (int64_t row = 0; row < base->length(); ++row) {
        if (base->IsNull(row)) {
          masked.AppendNull();
        } else {
          masked.AppendFrom(*field, row);
        }
      }
      field = masked.Finish();
    }
    fields.push_back(i == path[depth] ? ReplaceField(field, path, depth + 1, value) : field);
  }
  VectorBuilder builder(base->type(), base->length());
  for (int64_t row = 0; row < base->length(); ++row) {
    for (size_t i = 0; i < fields.size(); ++i) builder.child(i).AppendFrom(*fields[i], row);
    builder.AppendStruct();
  }
  return builder.Finish();
}

// The type of the field at `path` inside `type`, as a Field for StoreAssign.
Field NestedField(const Field& column, const std::vector<size_t>& path) {
  Field field = column;
  for (size_t index : path) field = field.type->fields()[index];
  return field;
}

}  // namespace

StatementResult ExecuteUpdate(sql::SessionState& session, const sql::Statement& written) {
  // A view target writes to its table (dml_views.h).
  const sql::Statement statement = dml::ResolveDmlThroughView(session, written, "UPDATE");
  dml::Stopwatch total;
  SILT_CHECK(statement.target != nullptr, "UPDATE without a target");
  dml::DmlTable table = dml::LoadDmlTable(session, *statement.target, "UPDATE");
  const std::string& alias = statement.target->alias;
  const Schema& schema = *table.schema;
  expr::EvalContext context = session.MakeEvalContext();

  // Uncorrelated subqueries in SET values run once, before the scan.
  exec::ExecContext subquery_context = MakeExecContext(session);
  sql::QueryBinder subqueries(session, subquery_context);
  std::vector<BoundAssignment> assignments;
  for (const sql::Assignment& assignment : statement.assignments) {
    sql::Assignment resolved = assignment;
    if (const Field* target = AssignedColumn(schema, assignment.column)) {
      resolved.value = ResolveDefaultKeyword(assignment.value, *target);
    }
    assignments.push_back(BindAssignment(table, resolved, alias, subqueries));
  }
  CheckNoConflicts(assignments);
  for (const BoundAssignment& assignment : assignments) {
    CheckIdentityNotUpdated(schema.field(assignment.column));
  }
  expr::ExpressionPtr predicate;
  std::vector<std::string> predicate_sql;
  if (statement.where) {
    predicate = dml::BindTablePredicate(table, *statement.where, alias, "WHERE", "UPDATE");
    dml::CheckDeterministicCondition(predicate, *statement.where, "WHERE condition of UPDATE operation");
    predicate_sql.push_back(dml::ConditionSql(*statement.where));
  }

  RowAssembler assembler(table.schema, table.metadata(), table.target.display_name,
                         WriteKind::kModify);
  // Generated columns nobody assigns are recomputed from the updated row; assigned ones must
  // match their expression.
  std::vector<int> mapping(schema.num_fields());
  for (size_t i = 0; i < mapping.size(); ++i) {
    bool assigned = std::any_of(assignments.begin(), assignments.end(),
                                [&](const BoundAssignment& a) { return a.column == i; });
    mapping[i] = assembler.IsGenerated(i) && !assigned ? -1 : static_cast<int>(i);
  }

  auto txn = dml::StartDmlTransaction(table);
  dml::Stopwatch scan_clock;
  dml::CandidateFiles candidates = dml::ChooseCandidateFiles(table, predicate, &session.pool());
  dml::RecordReads(*txn, candidates);
  int64_t scan_ms = scan_clock.ElapsedMs();
  int64_t rewrite_ms = 0;

  dml::DmlCommit commit;
  dml::DmlWriter writer(table, session.fs());
  dml::TargetFileReader reader(table, session.fs(), &session.pool());
  int64_t updated_rows = 0;
  int64_t copied_rows = 0;
  int64_t removed_bytes = 0;

  auto updated_values = [&](const Batch& matched, expr::EvalContext& eval) {
    std::vector<VectorPtr> columns = matched.columns();
    for (const BoundAssignment& assignment : assignments) {
      VectorPtr value = expr::Evaluate(*assignment.value, matched, eval);
      eval.ThrowIfError();
      const Field& column = schema.field(assignment.column);
      Field target = NestedField(column, assignment.field_path);
      value = StoreAssign(value, target, table.target.display_name, eval, WriteKind::kModify);
      columns[assignment.column] =
          ReplaceField(columns[assignment.column], assignment.field_path, 0, value);
    }
    return assembler.Assemble(Batch(table.schema, std::move(columns), matched.num_rows()),
                              mapping, eval);
  };

  // Files are read in parallel, and the pieces (row groups) of each file too, so that one large
  // file keeps every thread busy; a piece's updated values are computed where it was read. A
  // file's rows stay in memory until a match shows it must change, and then it is rewritten in
  // parallel parts (dml::WriteRewrite).
  struct FileResult {
    // With deletion vectors the old rows are marked deleted in place and nothing is copied; the
    // updated rows and change rows then go to the statement's writer.
    bool by_deletion_vector = false;
    int64_t updated = 0;
    int64_t copied = 0;
    std::vector<uint64_t> updated_positions;
    std::vector<dml::PieceOutput> pieces;
    dml::WrittenOutput written;
  };
  AnnounceTargetFiles(session, candidates.files);
  ThreadPool& pool = session.pool();
  std::vector<FileResult> results(candidates.files.size());
  std::atomic<int64_t> write_ms{0};
  dml::Stopwatch file_phase;
  pool.ParallelFor(candidates.files.size(), [&](size_t f) {
    session.cancellation().ThrowIfRequested();
    const log::AddFile& file = *candidates.files[f];
    FileResult& result = results[f];
    result.by_deletion_vector = writer.UsesDeletionVector(file);
    std::unique_ptr<dml::TargetFileReader::OpenedTarget> opened = reader.Open(file);
    result.pieces.resize(opened->num_pieces());
    std::vector<std::vector<uint64_t>> positions(opened->num_pieces());
    pool.ParallelFor(opened->num_pieces(), [&](size_t piece) {
      session.cancellation().ThrowIfRequested();
      dml::PositionedBatch batch = opened->ReadPiece(piece);
      if (batch.rows.num_rows() == 0) return;
      expr::EvalContext piece_context = context;
      std::vector<uint8_t> matches(static_cast<size_t>(batch.rows.num_rows()), 1);
      if (predicate) {
        matches = expr::EvaluateFilter(*predicate, batch.rows, piece_context);
        piece_context.ThrowIfError();
      }
      int64_t matched = 0;
      for (uint8_t match : matches) matched += match != 0;
      dml::PieceOutput& output = result.pieces[piece];
      if (matched > 0) {
        // Updated rows keep their row ids under row tracking.
        Batch before = dml::SelectRows(batch.rows, matches);
        Batch after = updated_values(before, piece_context);
        output.changed.push_back({after, dml::SelectValues(batch.row_ids, matches), nullptr});
        if (writer.writes_changes()) {
          output.changes.emplace_back(std::move(before), dml::ChangeType::kUpdatePreimage);
          output.changes.emplace_back(std::move(after), dml::ChangeType::kUpdatePostimage);
        }
      }
      dml::KeepUnmatchedRows(batch, matches, matched, result.by_deletion_vector, positions[piece],
                             output);
    });
    opened.reset();
    session.progress().AddRead(1, 0, file.size);
    for (size_t piece = 0; piece < result.pieces.size(); ++piece) {
      for (const dml::RowsToWrite& rows : result.pieces[piece].changed) {
        result.updated += rows.rows.num_rows();
      }
      for (const dml::RowsToWrite& rows : result.pieces[piece].copied) {
        result.copied += rows.rows.num_rows();
      }
      result.updated_positions.insert(result.updated_positions.end(), positions[piece].begin(),
                                      positions[piece].end());
    }
    if (result.updated == 0) {
      result.pieces.clear();
      return;
    }
    if (result.by_deletion_vector) return;
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
    if (result.updated == 0) continue;
    const log::AddFile* file = candidates.files[f];
    updated_rows += result.updated;
    if (result.by_deletion_vector) {
      for (dml::PieceOutput& piece : result.pieces) {
        for (const dml::RowsToWrite& rows : piece.changed) writer.WriteData(rows.rows, rows.row_ids);
        for (const auto& [batch, type] : piece.changes) writer.WriteChanges(batch, type);
      }
      writer.DeleteRows(*file, result.updated_positions);
      continue;
    }
    rewritten.push_back(std::move(result.written));
    copied_rows += result.copied;
    removed_bytes += file->size;
    commit.removed.push_back(file);
  }
  rewrite_ms += deletion_vector_clock.ElapsedMs();

  dml::Stopwatch finish_clock;
  commit.written = writer.Finish();
  for (dml::WrittenOutput& output : rewritten) dml::AppendWritten(commit.written, std::move(output));
  rewrite_ms += finish_clock.ElapsedMs();
  // Delta commits nothing when no row matches.
  if (commit.removed.empty() && commit.written.deletion_vectors.empty()) {
    return dml::AffectedRowsResult(0);
  }
  commit.operation = "UPDATE";
  if (!predicate_sql.empty()) {
    commit.parameters = {{"predicate", dml::PredicateParameter(predicate_sql)}};
  }
  commit.metrics = dml::RewriteMetrics(commit, {"numUpdatedRows", updated_rows, copied_rows, removed_bytes,
                                                total.ElapsedMs(), scan_ms, rewrite_ms});
  dml::CommitDml(*txn, std::move(commit), internal::CommitOptionsFor(session));
  return dml::AffectedRowsResult(updated_rows);
}

}  // namespace silt::commands::internal
