#include "silt/session.h"

#include <cstdlib>

#include "silt/commands/statement_executor.h"
#include "silt/io/file_system.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"

namespace silt {
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

Session::Session(SessionOptions options) {
  // The warehouse folder appears with the first table or database written into it.
  state_ = std::make_unique<sql::SessionState>(io::MakeLocalFileSystem(), ChooseWarehouse(options));
  for (const auto& [key, value] : options.conf) state_->SetConf(key, value);
}

Session::~Session() = default;

StatementOutput Session::Sql(std::string_view sql) {
  StatementOutput last;
  SqlEach(sql, [&](const StatementOutput& output) { last = output; });
  return last;
}

void Session::SqlEach(std::string_view sql,
                      const std::function<void(const StatementOutput&)>& on_output) {
  // Parse the whole script first: a syntax error anywhere runs nothing, as spark-sql -f does.
  std::vector<sql::Statement> statements = sql::ParseStatements(sql);
  for (const sql::Statement& statement : statements) {
    commands::StatementResult result = commands::ExecuteStatement(*state_, statement);
    // The zone after the statement: `SET TIME ZONE` applies to what follows it.
    std::shared_ptr<const TimeZone> zone;
    if (result.schema) zone = TimeZone::Find(state_->MakeEvalContext().time_zone);
    on_output(StatementOutput(std::move(result.schema), std::move(result.batches),
                              statement.source_text, std::move(zone)));
  }
}

void Session::SetConf(const std::string& key, const std::string& value) {
  state_->SetConf(key, value);
}

std::optional<std::string> Session::GetConf(const std::string& key) const {
  return state_->GetConf(key);
}

const std::string& Session::warehouse() const { return state_->catalog().warehouse(); }

}  // namespace silt
