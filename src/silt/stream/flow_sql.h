#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "silt/commands/statement_executor.h"
#include "silt/sql/session_state.h"

namespace silt::stream {

// What flows (flow.h, auto_cdc.h) use to run SQL against a micro-batch.

/// `delta.`<location>``, a Delta table by path in SQL.
std::string DeltaPathSql(const std::string& location);

/// Parses and runs one statement on `session`.
commands::StatementResult RunSql(sql::SessionState& session, const std::string& text);

/// The first column of the first row of `result` when it is a BIGINT (a count, or a MERGE's
/// num_affected_rows); 0 when there is none.
int64_t FirstCount(const commands::StatementResult& result);

/// The first column of the first row of `query` (a count); 0 when there is none.
int64_t QueryCount(sql::SessionState& session, const std::string& query);

/// Runs a MERGE; returns its num_affected_rows (0 when it wrote nothing).
int64_t RunMerge(sql::SessionState& session, const std::string& text);

/// Temporary views of `session` that exist while this object does (replacing any of the same
/// name).
class TemporaryViews {
 public:
  explicit TemporaryViews(sql::SessionState& session) : session_(session) {}
  ~TemporaryViews();
  TemporaryViews(const TemporaryViews&) = delete;
  TemporaryViews& operator=(const TemporaryViews&) = delete;

  void Create(const std::string& name, const std::string& query_sql);

 private:
  sql::SessionState& session_;
  std::vector<std::string> names_;
};

/// Sets Delta's idempotent-write options (spark.databricks.delta.write.txnAppId / txnVersion)
/// on `session` while this object exists, then restores what they were: every write made
/// meanwhile is skipped when its table already recorded `app_id` at `version` or later.
class TransactionScope {
 public:
  TransactionScope(sql::SessionState& session, const std::string& app_id, int64_t version);
  ~TransactionScope();
  TransactionScope(const TransactionScope&) = delete;
  TransactionScope& operator=(const TransactionScope&) = delete;

 private:
  sql::SessionState& session_;
  std::vector<std::pair<std::string, std::optional<std::string>>> previous_;
};

}  // namespace silt::stream
