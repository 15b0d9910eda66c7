#include "silt/delta_table.h"

#include <cmath>
#include <iomanip>
#include <locale>
#include <sstream>

#include "silt/api/sql_text_internal.h"
#include "silt/base/check.h"
#include "silt/sql/ast.h"
#include "silt/sql/parser.h"

namespace silt {
namespace {

using api::QuoteIdentifier;
using api::QuoteMultipartName;
using api::QuoteParts;

[[noreturn]] void ThrowInvalidArgument(std::string_view parameter, std::string_view function,
                                       std::string message) {
  api::ThrowInvalidParameter(parameter, function, std::move(message));
}

std::string PathTable(const std::string& path, std::string_view function) {
  if (path.empty()) ThrowInvalidArgument("path", function, "the path is empty");
  return "delta." + QuoteIdentifier(path);
}

// Checks that `text` is one whole expression and wraps it so that nothing around it can change
// its meaning; the line break ends a trailing `--` comment inside the text.
std::string WrappedExpression(const std::string& text, std::string_view parameter,
                              std::string_view function) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    ThrowInvalidArgument(parameter, function, "the expression is empty");
  }
  sql::ParseExpression(text);
  return "(" + text + "\n)";
}

std::string Assignments(const std::map<std::string, std::string>& set, std::string_view function) {
  if (set.empty()) ThrowInvalidArgument("set", function, "at least one column must be assigned");
  std::string text;
  for (const auto& [column, value] : set) {
    if (!text.empty()) text += ", ";
    text += QuoteMultipartName(column, "set", function) + " = " +
            WrappedExpression(value, "set", function);
  }
  return text;
}

std::string AliasClause(const std::string& alias) {
  return alias.empty() ? "" : " AS " + QuoteIdentifier(alias);
}

}  // namespace

// ---- MergeSource ----

MergeSource MergeSource::Table(std::string name) {
  return MergeSource(Kind::kTable, std::move(name));
}

MergeSource MergeSource::Path(std::string path) {
  return MergeSource(Kind::kPath, std::move(path));
}

MergeSource MergeSource::Query(std::string sql) {
  return MergeSource(Kind::kQuery, std::move(sql));
}

MergeSource MergeSource::Alias(std::string alias) const {
  if (alias.empty()) ThrowInvalidArgument("alias", "MergeSource.Alias", "the alias is empty");
  MergeSource copy = *this;
  copy.alias_ = std::move(alias);
  return copy;
}

std::string MergeSource::ToSql() const {
  std::string text;
  switch (kind_) {
    case Kind::kTable:
      text = QuoteMultipartName(text_, "source", "MergeSource.Table");
      break;
    case Kind::kPath:
      text = PathTable(text_, "MergeSource.Path");
      break;
    case Kind::kQuery: {
      // One query and nothing else: a second statement or a stray parenthesis must not leak
      // into the MERGE around it.
      sql::Statement statement = sql::ParseStatement(text_);
      if (statement.kind != sql::StatementKind::kQuery) {
        ThrowInvalidArgument("sql", "MergeSource.Query", "expected a query, got '" + text_ + "'");
      }
      // The statement's own text leaves out a trailing `;` and comments around the query.
      text = "(\n" + statement.source_text + "\n)";
      break;
    }
  }
  return text + AliasClause(alias_);
}

// ---- MergeBuilder ----

MergeBuilder& MergeBuilder::AddClause(std::string group, std::string condition,
                                      std::string action) {
  // Parsed now, so a malformed condition fails at the call that passed it.
  if (!condition.empty()) condition = WrappedExpression(condition, "condition", "MergeBuilder");
  clauses_.push_back(Clause{std::move(group), std::move(condition), std::move(action)});
  return *this;
}

MergeBuilder& MergeBuilder::WhenMatchedUpdate(std::map<std::string, std::string> set,
                                              std::string condition) {
  return AddClause("MATCHED", std::move(condition),
                   "UPDATE SET " + Assignments(set, "MergeBuilder.WhenMatchedUpdate"));
}

MergeBuilder& MergeBuilder::WhenMatchedUpdateAll(std::string condition) {
  return AddClause("MATCHED", std::move(condition), "UPDATE SET *");
}

MergeBuilder& MergeBuilder::WhenMatchedDelete(std::string condition) {
  return AddClause("MATCHED", std::move(condition), "DELETE");
}

MergeBuilder& MergeBuilder::WhenNotMatchedInsert(std::map<std::string, std::string> values,
                                                 std::string condition) {
  constexpr std::string_view kFunction = "MergeBuilder.WhenNotMatchedInsert";
  if (values.empty()) ThrowInvalidArgument("values", kFunction, "at least one column is needed");
  std::string columns;
  std::string expressions;
  for (const auto& [column, value] : values) {
    if (!columns.empty()) {
      columns += ", ";
      expressions += ", ";
    }
    columns += QuoteMultipartName(column, "values", kFunction);
    expressions += WrappedExpression(value, "values", kFunction);
  }
  return AddClause("NOT MATCHED", std::move(condition),
                   "INSERT (" + columns + ") VALUES (" + expressions + ")");
}

MergeBuilder& MergeBuilder::WhenNotMatchedInsertAll(std::string condition) {
  return AddClause("NOT MATCHED", std::move(condition), "INSERT *");
}

MergeBuilder& MergeBuilder::WhenNotMatchedBySourceUpdate(std::map<std::string, std::string> set,
                                                         std::string condition) {
  return AddClause("NOT MATCHED BY SOURCE", std::move(condition),
                   "UPDATE SET " + Assignments(set, "MergeBuilder.WhenNotMatchedBySourceUpdate"));
}

MergeBuilder& MergeBuilder::WhenNotMatchedBySourceDelete(std::string condition) {
  return AddClause("NOT MATCHED BY SOURCE", std::move(condition), "DELETE");
}

MergeBuilder& MergeBuilder::WithSchemaEvolution() {
  schema_evolution_ = true;
  return *this;
}

std::string MergeBuilder::StatementText() const {
  std::string text = schema_evolution_ ? "MERGE WITH SCHEMA EVOLUTION INTO " : "MERGE INTO ";
  text += target_ + "\nUSING " + source_.ToSql() + "\nON " +
          WrappedExpression(condition_, "condition", "DeltaTable.Merge");
  for (const Clause& clause : clauses_) {
    text += "\nWHEN " + clause.group;
    if (!clause.condition.empty()) text += " AND " + clause.condition;
    text += " THEN " + clause.action;
  }
  return text;
}

Result MergeBuilder::Execute() { return session_->Execute(StatementText()); }

// ---- DeltaTable ----

DeltaTable DeltaTable::ForPath(Session& session, const std::string& path) {
  DeltaTable table(session, PathTable(path, "DeltaTable.ForPath"));
  // Fails now rather than at the first operation, as delta-spark's forPath does.
  session.Execute("DESCRIBE HISTORY " + table.table_ + " LIMIT 1");
  return table;
}

DeltaTable DeltaTable::ForName(Session& session, const std::string& name) {
  DeltaTable table(session, QuoteMultipartName(name, "name", "DeltaTable.ForName"));
  session.Execute("DESCRIBE HISTORY " + table.table_ + " LIMIT 1");
  return table;
}

DeltaTable DeltaTable::Alias(std::string alias) const {
  if (alias.empty()) ThrowInvalidArgument("alias", "DeltaTable.Alias", "the alias is empty");
  DeltaTable copy = *this;
  copy.alias_ = std::move(alias);
  return copy;
}

std::string DeltaTable::TargetSql() const { return table_ + AliasClause(alias_); }

MergeBuilder DeltaTable::Merge(MergeSource source, std::string condition) const {
  return MergeBuilder(*session_, TargetSql(), std::move(source), std::move(condition));
}

Result DeltaTable::Update(const std::map<std::string, std::string>& set,
                          const std::string& condition) const {
  std::string text = "UPDATE " + TargetSql() + " SET " + Assignments(set, "DeltaTable.Update");
  if (!condition.empty()) {
    text += " WHERE " + WrappedExpression(condition, "condition", "DeltaTable.Update");
  }
  return session_->Execute(text);
}

Result DeltaTable::Delete(const std::string& condition) const {
  std::string text = "DELETE FROM " + TargetSql();
  if (!condition.empty()) {
    text += " WHERE " + WrappedExpression(condition, "condition", "DeltaTable.Delete");
  }
  return session_->Execute(text);
}

Result DeltaTable::History(int64_t limit) const {
  if (limit < 0) ThrowInvalidArgument("limit", "DeltaTable.History", "must not be negative");
  std::string text = "DESCRIBE HISTORY " + table_;
  if (limit > 0) text += " LIMIT " + std::to_string(limit);
  return session_->Execute(text);
}

DataFrame DeltaTable::ToDF() const { return session_->Sql("SELECT * FROM " + TargetSql()); }

Result DeltaTable::ToRows() const { return session_->Execute("SELECT * FROM " + TargetSql()); }

Result DeltaTable::Detail() const { return session_->Execute("DESCRIBE DETAIL " + table_); }

Result DeltaTable::RestoreToVersion(int64_t version) const {
  if (version < 0)
    ThrowInvalidArgument("version", "DeltaTable.RestoreToVersion", "must not be negative");
  return session_->Execute("RESTORE TABLE " + table_ + " TO VERSION AS OF " +
                           std::to_string(version));
}

Result DeltaTable::RestoreToTimestamp(const std::string& timestamp) const {
  if (timestamp.empty())
    ThrowInvalidArgument("timestamp", "DeltaTable.RestoreToTimestamp", "is empty");
  return session_->Execute("RESTORE TABLE " + table_ + " TO TIMESTAMP AS OF " +
                           api::QuoteString(timestamp));
}

Result DeltaTable::Vacuum() const { return session_->Execute("VACUUM " + table_); }

Result DeltaTable::Vacuum(double retention_hours) const {
  if (!(retention_hours >= 0) || !std::isfinite(retention_hours)) {
    ThrowInvalidArgument("retentionHours", "DeltaTable.Vacuum", "must be a non-negative number");
  }
  std::ostringstream hours;
  hours.imbue(std::locale::classic());
  hours << std::setprecision(17) << retention_hours;
  return session_->Execute("VACUUM " + table_ + " RETAIN " + hours.str() + " HOURS");
}

OptimizeBuilder DeltaTable::Optimize() const { return OptimizeBuilder(*session_, table_); }

DeltaTable DeltaTable::ConvertToDelta(Session& session, const std::string& identifier,
                                      const std::string& partition_schema) {
  sql::ExpressionPtr parsed = sql::ParseExpression(identifier);
  if (parsed->kind != sql::ExpressionKind::kColumn || parsed->name.size() != 2) {
    ThrowInvalidArgument("identifier", "DeltaTable.ConvertToDelta",
                         "expected parquet.`/path/to/folder`, got '" + identifier + "'");
  }
  std::string text = "CONVERT TO DELTA " + QuoteParts(parsed->name);
  if (!partition_schema.empty()) text += " PARTITIONED BY (" + partition_schema + ")";
  session.Execute(text);
  return ForPath(session, parsed->name[1]);
}

OptimizeBuilder& OptimizeBuilder::Where(std::string partition_filter) {
  where_ = WrappedExpression(partition_filter, "partitionFilter", "OptimizeBuilder.Where");
  return *this;
}

std::string OptimizeBuilder::StatementText() const {
  std::string text = "OPTIMIZE " + table_;
  if (!where_.empty()) text += " WHERE " + where_;
  return text;
}

Result OptimizeBuilder::ExecuteCompaction() { return session_->Execute(StatementText()); }

Result OptimizeBuilder::ExecuteZOrderBy(const std::vector<std::string>& columns) {
  if (columns.empty()) {
    ThrowInvalidArgument("columns", "OptimizeBuilder.ExecuteZOrderBy",
                         "at least one column is needed");
  }
  std::string list;
  for (const std::string& column : columns) {
    if (!list.empty()) list += ", ";
    list += QuoteMultipartName(column, "columns", "OptimizeBuilder.ExecuteZOrderBy");
  }
  return session_->Execute(StatementText() + " ZORDER BY (" + list + ")");
}

}  // namespace silt
