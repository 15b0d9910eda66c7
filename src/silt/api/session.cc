#include "silt/session.h"

#include <cstdlib>

#include "silt/api/session_internal.h"
#include "silt/api/sql_text_internal.h"
#include "silt/commands/statement_executor.h"
#include "silt/io/file_system.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"

namespace silt {

struct Session::Impl {
  Impl(std::shared_ptr<io::FileSystem> fs, std::string warehouse)
      : state(std::move(fs), std::move(warehouse)) {}

  sql::SessionState state;
};

namespace {

std::string ChooseWarehouse(const SessionOptions& options) {
  if (!options.warehouse.empty()) return options.warehouse;
  if (const char* from_environment = std::getenv("SILT_WAREHOUSE");
      from_environment != nullptr && *from_environment != '\0') {
    return from_environment;
  }
  return "silt-warehouse";
}

}  // namespace

Session::Session(SessionOptions options)
    // The warehouse folder appears with the first table or database written into it.
    : impl_(std::make_unique<Impl>(io::MakeLocalFileSystem(), ChooseWarehouse(options))) {
  for (const auto& [key, value] : options.conf) impl_->state.SetConf(key, value);
}

Session::~Session() = default;

Result Session::Execute(std::string_view sql) {
  return api::MakeResult(api::RunStatements(*this, sql));
}

DataFrame Session::Sql(std::string_view sql) { return api::Access::MakeDataFrame(*this, sql); }

DataFrame Session::Table(std::string_view name) {
  return api::Access::MakeDataFrame(
      *this,
      "SELECT * FROM " + api::QuoteMultipartName(std::string(name), "name", "Session.Table"));
}

void Session::SetConf(const std::string& key, const std::string& value) {
  impl_->state.SetConf(key, value);
}

std::optional<std::string> Session::GetConf(const std::string& key) const {
  return impl_->state.GetConf(key);
}

const std::string& Session::warehouse() const { return impl_->state.catalog().warehouse(); }

// ---- internal access ----

sql::SessionState& api::Access::State(Session& session) { return session.impl_->state; }

sql::SessionState& api::StateOf(Session& session) { return Access::State(session); }

StatementOutput api::RunStatements(Session& session, std::string_view sql) {
  StatementOutput last;
  RunStatementsEach(session, sql, [&](const StatementOutput& output) { last = output; });
  return last;
}

void api::RunStatementsEach(Session& session, std::string_view sql,
                            const std::function<void(const StatementOutput&)>& on_output) {
  // Parse the whole script first: a syntax error anywhere runs nothing, as spark-sql -f does.
  std::vector<sql::Statement> statements = sql::ParseStatements(sql);
  for (const sql::Statement& statement : statements) on_output(RunStatement(session, statement));
}

StatementOutput api::RunStatement(Session& session, const sql::Statement& statement) {
  sql::SessionState& state = StateOf(session);
  commands::StatementResult result = commands::ExecuteStatement(state, statement);
  // The zone after the statement: `SET TIME ZONE` applies to what follows it.
  std::shared_ptr<const TimeZone> zone;
  if (result.schema) zone = TimeZone::Find(state.MakeEvalContext().time_zone);
  return StatementOutput(std::move(result.schema), std::move(result.batches), statement.source_text,
                         std::move(zone));
}

}  // namespace silt
