#pragma once

// A GoogleTest fixture for the DML statement tests: a session over a temporary warehouse (run
// as silt::Session runs statements: parse the script, execute each statement) plus access to
// what a statement committed (commitInfo, file and cdc actions).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/log/actions.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt/commands/statement_executor.h"
#include "silt/sql/parser.h"
#include "silt/sql/session_state.h"
#include "silt/vector/batch.h"

namespace silt::commands {

class DmlTest : public ::testing::Test {
 protected:
  /// Runs the statements of `sql`; returns the last one's result.
  StatementResult Sql(std::string_view sql) {
    StatementResult last;
    for (const sql::Statement& statement : sql::ParseStatements(sql)) {
      last = ExecuteStatement(*state_, statement);
    }
    return last;
  }

  /// The rows of a query as CSV lines (no header).
  std::vector<std::string> Query(std::string_view sql) {
    std::string csv = FormatCsv(Sql(sql).batches, /*header=*/false);
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < csv.size()) {
      size_t end = csv.find('\n', start);
      lines.push_back(csv.substr(start, end - start));
      start = end + 1;
    }
    return lines;
  }

  /// The error class `sql` throws, or "no error".
  std::string ErrorClassOf(std::string_view sql) {
    try {
      Sql(sql);
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  std::string Location(const std::string& table) const { return io::JoinPath(warehouse_, table); }

  std::shared_ptr<const log::Snapshot> Latest(const std::string& table) const {
    return log::Snapshot::Load(fs_, Location(table));
  }

  /// The actions of commit `version` of `table` (latest when negative).
  std::vector<log::Action> Commit(const std::string& table, int64_t version = -1) const {
    if (version < 0) version = Latest(table)->version();
    std::string path =
        io::JoinPath(Location(table), "_delta_log/" + log::FormatVersion(version) + ".json");
    return log::ParseActions(fs_->ReadFile(path), path);
  }

  template <typename T>
  static std::vector<T> Of(const std::vector<log::Action>& actions) {
    std::vector<T> out;
    for (const auto& action : actions) {
      if (const T* typed = std::get_if<T>(&action)) out.push_back(*typed);
    }
    return out;
  }

  static std::string Metric(const log::CommitInfo& info, std::string_view name) {
    const std::string* value = log::FindValue(info.operation_metrics, name);
    return value ? *value : "<absent>";
  }

  static std::string Parameter(const log::CommitInfo& info, std::string_view name) {
    for (const auto& [key, value] : info.operation_parameters) {
      if (key == name) return value;
    }
    return "<absent>";
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  std::shared_ptr<io::FileSystem> fs_ = io::MakeLocalFileSystem();
  std::unique_ptr<sql::SessionState> state_ = std::make_unique<sql::SessionState>(fs_, warehouse_);
};

}  // namespace silt::commands
