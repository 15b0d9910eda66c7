#include "sql_command.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "exit_codes.h"
#include "silt/api/session_internal.h"
#include "silt/error.h"
#include "silt/session.h"
#include "silt/vector/batch.h"

namespace silt::cli {
namespace {

constexpr const char* kPrompt = "silt> ";
constexpr const char* kContinuationPrompt = "   > ";
constexpr const char* kHistoryFileName = ".silt_history";
constexpr int kHistoryEntries = 1000;

enum class OutputFormat { kTable, kCsv, kJson };

struct SqlOptions {
  std::string warehouse;
  std::string format = "table";
  std::vector<std::string> conf;
  std::vector<std::string> statements;  // -e, in the order given
  std::vector<std::string> files;       // -f, in the order given
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string Trim(std::string_view text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && IsSpace(text[begin])) ++begin;
  while (end > begin && IsSpace(text[end - 1])) --end;
  return std::string(text.substr(begin, end - begin));
}

// The result batches, or one empty batch of the schema when the statement returned no rows:
// the formatters take the header from the first batch, and an empty result still has one.
std::vector<Batch> BatchesWithSchema(const StatementOutput& output) {
  if (!output.batches().empty()) return output.DisplayBatches();
  const Schema& schema = *output.schema();
  std::vector<VectorPtr> columns;
  for (size_t i = 0; i < schema.num_fields(); ++i) {
    columns.push_back(VectorBuilder(schema.field(i).type).Finish());
  }
  return {Batch(output.schema(), std::move(columns), 0)};
}

void PrintOutput(const StatementOutput& output, OutputFormat format) {
  if (!output.has_rows()) return;
  std::vector<Batch> batches = BatchesWithSchema(output);
  switch (format) {
    case OutputFormat::kTable: {
      // Spark's show(truncate = false) with every row: the shell never hides rows.
      ShowOptions options;
      options.max_rows = std::numeric_limits<int64_t>::max();
      options.truncate = 0;
      std::cout << FormatShow(batches, options);
      break;
    }
    case OutputFormat::kCsv:
      std::cout << FormatCsv(batches, /*header=*/true);
      break;
    case OutputFormat::kJson:
      std::cout << FormatJsonLines(batches);
      break;
  }
  std::cout.flush();
}

OutputFormat ParseFormat(const std::string& name) {
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return OutputFormat::kTable;
}

std::string ReadScript(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CLI::ValidationError("-f", "cannot read SQL file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class SqlShell {
 public:
  SqlShell(Session& session, OutputFormat format) : session_(session), format_(format) {}

  // Runs `sql` (one or more statements); a failure propagates with the earlier ones committed.
  void Run(std::string_view sql) {
    api::RunStatementsEach(session_, sql,
                           [this](const StatementOutput& output) { PrintOutput(output, format_); });
  }

  // Runs a script read from a stream that is not a terminal, statement by statement as its
  // lines arrive; the first failure ends it. Text after the last `;` is run as a statement too.
  void RunStream(std::istream& in) {
    StatementBuffer buffer;
    std::string line;
    while (std::getline(in, line)) {
      for (const std::string& statement : buffer.AddLine(line)) Run(statement);
    }
    std::string rest = buffer.TakePending();
    if (!rest.empty()) Run(rest);
  }

  // The interactive shell: line editing and history through libedit; errors are printed and
  // the shell goes on. Ends at end of input (Ctrl-D).
  void RunInteractive() {
    std::string history_path = HistoryPath();
    if (!history_path.empty()) read_history(history_path.c_str());
    stifle_history(kHistoryEntries);
    StatementBuffer buffer;
    while (true) {
      char* raw_line = readline(buffer.has_pending() ? kContinuationPrompt : kPrompt);
      if (raw_line == nullptr) break;
      std::string line(raw_line);
      std::free(raw_line);
      for (const std::string& statement : buffer.AddLine(line)) {
        add_history(statement.c_str());
        if (!history_path.empty()) write_history(history_path.c_str());
        RunReportingErrors(statement);
      }
    }
    std::cout << std::endl;
    std::string rest = buffer.TakePending();
    if (!rest.empty()) RunReportingErrors(rest);
  }

 private:
  static std::string HistoryPath() {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return "";
    return std::string(home) + "/" + kHistoryFileName;
  }

  void RunReportingErrors(const std::string& statement) {
    try {
      Run(statement);
    } catch (const Error& error) {
      std::cerr << error.what() << std::endl;
    } catch (const std::exception& error) {
      std::cerr << "[INTERNAL_ERROR] " << error.what() << std::endl;
    }
  }

  Session& session_;
  OutputFormat format_;
};

void RunSql(const SqlOptions& options, const std::vector<const CLI::Option*>& order,
            const CLI::Option* statement_option, const CLI::Option* file_option) {
  SessionOptions session_options;
  session_options.warehouse = options.warehouse;
  for (const std::string& entry : options.conf) {
    size_t equals = entry.find('=');
    if (equals == std::string::npos || equals == 0) {
      throw CLI::ValidationError("--conf", "expected key=value, got '" + entry + "'");
    }
    session_options.conf[entry.substr(0, equals)] = entry.substr(equals + 1);
  }
  Session session(std::move(session_options));
  SqlShell shell(session, ParseFormat(options.format));

  // -e and -f run interleaved in the order they were given on the command line.
  size_t next_statement = 0;
  size_t next_file = 0;
  bool ran_any = false;
  for (const CLI::Option* option : order) {
    if (option == statement_option && next_statement < options.statements.size()) {
      shell.Run(options.statements[next_statement++]);
      ran_any = true;
    } else if (option == file_option && next_file < options.files.size()) {
      shell.Run(ReadScript(options.files[next_file++]));
      ran_any = true;
    }
  }
  if (ran_any) return;
  if (isatty(STDIN_FILENO)) {
    shell.RunInteractive();
  } else {
    shell.RunStream(std::cin);
  }
}

}  // namespace

std::vector<std::string> StatementBuffer::AddLine(std::string_view line) {
  std::vector<std::string> complete;
  std::string text(line);
  text += '\n';
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char next = i + 1 < text.size() ? text[i + 1] : '\0';
    pending_ += c;
    if (comment_depth_ > 0) {
      // Spark's bracketed comments nest.
      if (c == '/' && next == '*') {
        ++comment_depth_;
        pending_ += text[++i];
      } else if (c == '*' && next == '/') {
        --comment_depth_;
        pending_ += text[++i];
      }
      continue;
    }
    switch (state_) {
      case State::kLineComment:
        if (c == '\n') state_ = State::kCode;
        break;
      case State::kSingleQuoted:
      case State::kDoubleQuoted:
        if (c == '\\' && i + 1 < text.size()) {
          pending_ += text[++i];  // an escaped character, possibly the quote
        } else if (c == (state_ == State::kSingleQuoted ? '\'' : '"')) {
          state_ = State::kCode;
        }
        break;
      case State::kBackquoted:
        // A doubled backquote inside the name leaves and re-enters this state.
        if (c == '`') state_ = State::kCode;
        break;
      case State::kCode:
        if (c == '-' && next == '-') {
          state_ = State::kLineComment;
          pending_ += text[++i];
        } else if (c == '/' && next == '*') {
          comment_depth_ = 1;
          pending_ += text[++i];
        } else if (c == ';') {
          if (pending_has_content_) complete.push_back(Trim(pending_));
          pending_.clear();
          pending_has_content_ = false;
        } else if (!IsSpace(c)) {
          pending_has_content_ = true;
          if (c == '\'') state_ = State::kSingleQuoted;
          if (c == '"') state_ = State::kDoubleQuoted;
          if (c == '`') state_ = State::kBackquoted;
        }
        break;
    }
  }
  return complete;
}

std::string StatementBuffer::TakePending() {
  std::string rest = pending_has_content_ ? Trim(pending_) : std::string();
  pending_.clear();
  pending_has_content_ = false;
  state_ = State::kCode;
  comment_depth_ = 0;
  return rest;
}

void AddSqlCommand(CLI::App& app) {
  auto options = std::make_shared<SqlOptions>();
  CLI::App* sql = app.add_subcommand(
      "sql", "Run Spark SQL: -e/-f statements in order, a piped script, or an interactive shell");
  sql->add_option("--warehouse", options->warehouse,
                  "Folder of the named tables (default $SILT_WAREHOUSE, else ./silt-warehouse)")
      ->type_name("DIR");
  sql->add_option("--format", options->format, "Output: table (like Spark's show), csv or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  sql->add_option("--conf", options->conf, "Set a session option key=value (repeatable)")
      ->allow_extra_args(false);
  CLI::Option* statement_option =
      sql->add_option("-e,--execute", options->statements, "Run these statements (repeatable)")
          ->allow_extra_args(false);
  CLI::Option* file_option =
      sql->add_option("-f,--file", options->files, "Run the statements of this file (repeatable)")
          ->allow_extra_args(false)
          ->check(CLI::ExistingFile);
  sql->callback([options, sql, statement_option, file_option] {
    std::vector<const CLI::Option*> order(sql->parse_order().begin(), sql->parse_order().end());
    RunSql(*options, order, statement_option, file_option);
  });
}

}  // namespace silt::cli
