#include "silt/stream/flow_sql.h"

#include "silt/sql/parser.h"
#include "silt/vector/vector.h"

namespace silt::stream {

namespace {

constexpr const char* kTxnAppIdKey = "spark.databricks.delta.write.txnAppId";
constexpr const char* kTxnVersionKey = "spark.databricks.delta.write.txnVersion";

}  // namespace

std::string DeltaPathSql(const std::string& location) {
  std::string out = "delta.`";
  for (char c : location) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

commands::StatementResult RunSql(sql::SessionState& session, const std::string& text) {
  return commands::ExecuteStatement(session, sql::ParseStatement(text));
}

int64_t FirstCount(const commands::StatementResult& result) {
  for (const Batch& batch : result.batches) {
    if (batch.num_rows() == 0 || batch.num_columns() == 0) continue;
    const Vector& column = *batch.column(0);
    if (column.IsNull(0) || column.type()->id() != TypeId::kLong) return 0;
    return column.values<int64_t>()[0];
  }
  return 0;
}

int64_t QueryCount(sql::SessionState& session, const std::string& query) {
  return FirstCount(RunSql(session, query));
}

int64_t RunMerge(sql::SessionState& session, const std::string& text) {
  return FirstCount(RunSql(session, text));
}

TemporaryViews::~TemporaryViews() {
  for (const std::string& name : names_) session_.DropTempView(name);
}

void TemporaryViews::Create(const std::string& name, const std::string& query_sql) {
  sql::TempView view;
  view.name = name;
  view.query = sql::ParseStatement(query_sql).query;
  view.sql_text = query_sql;
  session_.CreateTempView(std::move(view), /*replace=*/true);
  names_.push_back(name);
}

TransactionScope::TransactionScope(sql::SessionState& session, const std::string& app_id,
                                   int64_t version)
    : session_(session) {
  for (const char* key : {kTxnAppIdKey, kTxnVersionKey}) {
    previous_.emplace_back(key, session_.GetConf(key));
  }
  session_.SetConf(kTxnAppIdKey, app_id);
  session_.SetConf(kTxnVersionKey, std::to_string(version));
}

TransactionScope::~TransactionScope() {
  for (const auto& [key, value] : previous_) {
    if (value) {
      session_.SetConf(key, *value);
    } else {
      session_.UnsetConf(key);
    }
  }
}

}  // namespace silt::stream
