#include "sql_command.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "exit_codes.h"
#include "interrupt.h"
#include "progress_display.h"
#include "silt/api/session_internal.h"
#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/error_class.h"
#include "silt/error.h"
#include "silt/session.h"
#include "silt/vector/batch.h"
#include "silt/vector/local_time.h"
#include "silt/vector/show_table_writer.h"
#include "sql_completion.h"

namespace silt::cli {
namespace {

constexpr const char* kPrompt = "silt> ";
constexpr const char* kContinuationPrompt = "   > ";
constexpr const char* kHistoryFileName = ".silt_history";
constexpr int kHistoryEntries = 1000;
constexpr int kDefaultProgressDelayMs = 1000;
// Characters that end the word tab completion works on ('.' and '`' do not: `t.col`).
constexpr const char* kCompletionWordBreaks = " \t\n\"'(),;=<>+-*/%|&!";

constexpr const char* kHelp =
    "Statements end with ';' and may span lines. Meta commands:\n"
    "  .help                   this text\n"
    "  .tables                 the tables and temporary views of the current database\n"
    "  .schema [TABLE]         the CREATE TABLE statement of TABLE (default: every table)\n"
    "  .mode [table|json|csv]  the output format (without an argument: the current one)\n"
    "  .quit, .exit            leave the shell (as do quit; exit; and Ctrl-D)\n"
    "Ctrl-C cancels the running statement; at the prompt it clears the input, twice leaves.\n"
    "Tab completes keywords, table names and column names.\n";

enum class OutputFormat { kTable, kCsv, kJson };

struct SqlOptions {
  std::string warehouse;
  std::string format = "table";
  std::vector<std::string> conf;
  std::vector<std::string> statements;  // -e, in the order given
  std::vector<std::string> files;       // -f, in the order given
  bool progress = false;                // --progress
  bool no_progress = false;             // --no-progress
  int progress_delay_ms = kDefaultProgressDelayMs;
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

// The first word of a statement, lower-cased ("explain", "select", ...).
std::string FirstWord(std::string_view text) {
  std::string trimmed = Trim(text);
  size_t end = 0;
  while (end < trimmed.size() && !IsSpace(trimmed[end]) && trimmed[end] != ';') ++end;
  return AsciiLower(std::string_view(trimmed).substr(0, end));
}

// A batch of `schema` without rows: the formatters take the header from the first batch, and
// an empty result still has one.
Batch EmptyBatch(const SchemaPtr& schema) {
  std::vector<VectorPtr> columns;
  for (const Field& field : schema->fields()) columns.push_back(VectorBuilder(field.type).Finish());
  return Batch(schema, std::move(columns), 0);
}

// The non-NULL values of string column `column` of `output`, in order.
std::vector<std::string> StringColumn(const StatementOutput& output, size_t column) {
  std::vector<std::string> values;
  for (const Batch& batch : output.batches()) {
    const Vector& vector = *batch.column(column);
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      if (!vector.IsNull(row)) values.emplace_back(vector.GetString(row));
    }
  }
  return values;
}

// EXPLAIN returns its plan as one multi-line string; a table cell would show it as one very
// wide row, so the table format prints the text itself, as spark-sql does.
bool IsPlanText(const api::StatementStream& stream) {
  return FirstWord(stream.statement_text()) == "explain" && stream.schema()->num_fields() == 1 &&
         stream.schema()->field(0).type->id() == TypeId::kString;
}

// Rows the table format holds before it prints anything: a result that ends within them is laid
// out as Spark's show() lays it out, each column as wide as its widest cell; a longer one is
// printed as its rows come, the column widths fixed by these first rows, so that memory stays
// bounded whatever the size of the result.
constexpr int64_t kTableRowsHeld = 10000;

// Prints the rows of `stream` in `format` as they are produced (see kTableRowsHeld for the
// table format), each piece through `print`.
void PrintStream(api::StatementStream& stream, OutputFormat format,
                 const std::function<void(const std::string&)>& print) {
  if (!stream.has_rows()) return;
  // Timestamps as wall-clock time of the statement's zone.
  auto local = [&stream](Batch batch) {
    std::vector<Batch> batches{std::move(batch)};
    if (!stream.time_zone()) return batches;
    return TimestampsAsLocalTime(batches, *stream.time_zone());
  };
  if (format == OutputFormat::kTable && IsPlanText(stream)) {
    std::string text;
    for (const std::string& plan : StringColumn(stream.Drain(), 0)) {
      text += plan + (plan.empty() || plan.back() != '\n' ? "\n" : "");
    }
    print(text);
    return;
  }
  switch (format) {
    case OutputFormat::kCsv:
      print(FormatCsv({EmptyBatch(stream.schema())}, /*header=*/true));
      while (std::optional<Batch> batch = stream.Next()) {
        print(FormatCsv(local(std::move(*batch)), /*header=*/false));
      }
      return;
    case OutputFormat::kJson:
      while (std::optional<Batch> batch = stream.Next()) {
        print(FormatJsonLines(local(std::move(*batch))));
      }
      return;
    case OutputFormat::kTable:
      break;
  }
  // Spark's show(truncate = false) with every row: the shell never hides rows.
  std::vector<Batch> held;
  int64_t held_rows = 0;
  std::optional<Batch> batch;
  while (held_rows < kTableRowsHeld && (batch = stream.Next())) {
    held_rows += batch->num_rows();
    held.push_back(local(std::move(*batch)).front());
  }
  if (held_rows < kTableRowsHeld) {
    if (held.empty()) held.push_back(EmptyBatch(stream.schema()));
    ShowOptions options;
    options.max_rows = std::numeric_limits<int64_t>::max();
    options.truncate = 0;
    print(FormatShow(held, options));
    return;
  }
  ShowTableWriter writer(held, /*truncate=*/0);
  std::string text = writer.Header();
  for (const Batch& rows : held) text += writer.Rows(rows);
  held.clear();
  print(text);
  while ((batch = stream.Next())) print(writer.Rows(local(std::move(*batch)).front()));
  print(writer.Footer());
}

std::optional<OutputFormat> ParseFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  return std::nullopt;
}

const char* FormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kTable:
      return "table";
    case OutputFormat::kCsv:
      return "csv";
    case OutputFormat::kJson:
      return "json";
  }
  return "table";
}

std::string ReadScript(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CLI::ValidationError("-f", "cannot read SQL file " + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `quit;` and `exit;` end the Spark SQL shell.
bool IsQuitStatement(std::string_view statement) {
  std::string text = AsciiLower(Trim(statement));
  while (!text.empty() && (text.back() == ';' || IsSpace(text.back()))) text.pop_back();
  return text == "quit" || text == "exit";
}

// A name as a backquoted identifier.
std::string QuoteIdentifier(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    out += c;
    if (c == '`') out += '`';
  }
  return out + "`";
}

[[noreturn]] void ThrowCanceled() {
  throw MakeError(ErrorClass::OPERATION_CANCELED, {{"reason", ""}});
}

class SqlShell;
SqlShell* g_completing_shell = nullptr;  // the shell libedit's completion callback asks

class SqlShell {
 public:
  SqlShell(Session& session, OutputFormat format, bool progress, int progress_delay_ms)
      : session_(session),
        format_(format),
        progress_(progress),
        progress_delay_ms_(progress_delay_ms) {}

  // Runs `sql` (one or more statements); a failure propagates with the earlier ones committed.
  // Ctrl-C cancels the statement that runs (OPERATION_CANCELED).
  void Run(std::string_view sql) {
    SetInterruptTarget(&session_);
    try {
      ProgressDisplay display(session_, progress_, STDERR_FILENO, progress_delay_ms_);
      api::RunStatementsStreamed(session_, sql, [&](api::StatementStream& stream) {
        PrintStream(stream, format_, [&](const std::string& text) {
          display.Print([&] { std::cout << text << std::flush; });
        });
      });
    } catch (...) {
      SetInterruptTarget(nullptr);
      catalog_stale_ = true;
      throw;
    }
    SetInterruptTarget(nullptr);
    catalog_stale_ = true;
  }

  // Runs statements given on the command line or read from a file: a Ctrl-C before, during or
  // after one ends the run with OPERATION_CANCELED.
  void RunBatch(std::string_view sql) {
    if (TakeInterrupt()) ThrowCanceled();
    Run(sql);
    if (TakeInterrupt()) ThrowCanceled();
  }

  // Runs a script read from a stream that is not a terminal, statement by statement as its
  // lines arrive; the first failure ends it. Text after the last `;` is run as a statement too.
  // Meta commands and quit; work as in the interactive shell.
  void RunStream(std::istream& in) {
    StatementBuffer buffer;
    std::string line;
    while (std::getline(in, line)) {
      if (!buffer.has_pending() && IsMetaCommand(line)) {
        if (!RunMetaCommand(line)) return;
        continue;
      }
      for (const std::string& statement : buffer.AddLine(line)) {
        if (IsQuitStatement(statement)) return;
        RunBatch(statement);
      }
    }
    std::string rest = buffer.TakePending();
    if (!rest.empty() && !IsQuitStatement(rest)) RunBatch(rest);
  }

  // The interactive shell: line editing, history and tab completion through libedit; errors are
  // printed and the shell goes on. Ends at end of input (Ctrl-D), .quit, quit; or a second
  // Ctrl-C in a row at the prompt.
  void RunInteractive() {
    std::string history_path = HistoryPath();
    rl_catch_signals = 0;  // SIGINT is ours (interrupt.h); libedit would re-raise it
    rl_getc_function = ReadKeyOrInterrupt;
    rl_attempted_completion_function = CompleteCallback;
    rl_completion_entry_function = NoMatch;
    rl_basic_word_break_characters = kCompletionWordBreaks;
    rl_completer_word_break_characters = const_cast<char*>(kCompletionWordBreaks);
    g_completing_shell = this;
    stifle_history(kHistoryEntries);
    if (!history_path.empty()) read_history(history_path.c_str());
    auto remember = [&](const std::string& entry) {
      add_history(entry.c_str());
      if (!history_path.empty()) write_history(history_path.c_str());
    };
    bool interrupted_at_prompt = false;
    while (true) {
      pending_text_ = buffer_.pending();
      char* raw_line = readline(buffer_.has_pending() ? kContinuationPrompt : kPrompt);
      // A Ctrl-C ends readline like an end of input, or with what was typed on the line.
      bool interrupted = TakeInterrupt();
      if (raw_line == nullptr && !interrupted) break;  // end of input (Ctrl-D)
      std::string line(raw_line == nullptr ? "" : raw_line);
      std::free(raw_line);
      if (interrupted) {
        buffer_.TakePending();
        std::cout << std::endl;
        if (interrupted_at_prompt) break;
        interrupted_at_prompt = true;
        std::cerr << "(To exit, press Ctrl-C again or Ctrl-D, or type .quit)" << std::endl;
        continue;
      }
      interrupted_at_prompt = false;
      if (!buffer_.has_pending() && IsMetaCommand(line)) {
        remember(Trim(line));
        if (!ReportingErrors([&] { return RunMetaCommand(line); })) break;
        continue;
      }
      bool quit = false;
      for (const std::string& statement : buffer_.AddLine(line)) {
        remember(statement);
        if (IsQuitStatement(statement)) {
          quit = true;
          break;
        }
        ReportingErrors([&] {
          Run(statement);
          return true;
        });
        TakeInterrupt();  // a Ctrl-C that came as the statement ended cancelled nothing
      }
      if (quit) break;
    }
    std::cout << std::endl;
    g_completing_shell = nullptr;
    std::string rest = buffer_.TakePending();
    if (!rest.empty() && !IsQuitStatement(rest)) {
      ReportingErrors([&] {
        Run(rest);
        return true;
      });
    }
  }

  // Tab completion over the session's catalog (cached until the next statement runs).
  std::vector<std::string> Complete(std::string_view typed) {
    RefreshCatalog();
    CompletionCatalog catalog;
    catalog.tables = tables_;
    catalog.columns = [this](const std::string& table) { return ColumnsOf(table); };
    return CompleteSql(pending_text_ + std::string(typed), catalog);
  }

 private:
  static std::string HistoryPath() {
    // $SILT_HISTORY names the file; set but empty, it turns the history file off.
    if (const char* path = std::getenv("SILT_HISTORY"); path != nullptr) return path;
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return "";
    return std::string(home) + "/" + kHistoryFileName;
  }

  static bool IsMetaCommand(std::string_view line) {
    std::string trimmed = Trim(line);
    return !trimmed.empty() && trimmed.front() == '.';
  }

  // Runs a meta command line; returns false when it ends the shell.
  bool RunMetaCommand(std::string_view line) {
    std::istringstream words{std::string(line)};
    std::string command;
    words >> command;
    std::vector<std::string> arguments;
    for (std::string word; words >> word;) arguments.push_back(word);
    command = AsciiLower(command);
    if (command == ".quit" || command == ".exit") return false;
    if (command == ".help") {
      std::cout << kHelp;
    } else if (command == ".tables") {
      StatementOutput tables = api::RunStatements(session_, "SHOW TABLES");
      for (const std::string& name : StringColumn(tables, 1)) std::cout << name << "\n";
    } else if (command == ".schema") {
      std::vector<std::string> names = arguments;
      if (names.empty()) {
        StatementOutput tables = api::RunStatements(session_, "SHOW TABLES");
        std::vector<std::string> all = StringColumn(tables, 1);
        std::vector<std::string> namespaces = StringColumn(tables, 0);
        // Temporary views (an empty namespace) have no CREATE TABLE statement.
        for (size_t i = 0; i < all.size() && i < namespaces.size(); ++i) {
          if (!namespaces[i].empty()) names.push_back(all[i]);
        }
      }
      for (const std::string& name : names) {
        bool qualified = name.find('.') != std::string::npos || name.find('`') != std::string::npos;
        StatementOutput create = api::RunStatements(
            session_, "SHOW CREATE TABLE " + (qualified ? name : QuoteIdentifier(name)));
        for (const std::string& text : StringColumn(create, 0)) {
          std::string statement = Trim(text);
          std::cout << statement << (statement.empty() || statement.back() != ';' ? ";" : "")
                    << "\n";
        }
      }
    } else if (command == ".mode") {
      if (arguments.empty()) {
        std::cout << FormatName(format_) << "\n";
      } else if (std::optional<OutputFormat> format = ParseFormat(AsciiLower(arguments[0]));
                 format && arguments.size() == 1) {
        format_ = *format;
      } else {
        std::string given;
        for (const std::string& argument : arguments)
          given += (given.empty() ? "" : " ") + argument;
        SILT_THROW(INVALID_ARGUMENT,
                   {{"message", ".mode takes table, json or csv, got '" + given + "'"}});
      }
    } else {
      SILT_THROW(INVALID_ARGUMENT,
                 {{"message", "unknown shell command " + command + "; .help lists them"}});
    }
    std::cout.flush();
    return true;
  }

  // Runs `body`, printing a failure instead of propagating it; returns what body returned, or
  // true after a failure (the shell goes on).
  template <typename Body>
  bool ReportingErrors(Body&& body) {
    try {
      return body();
    } catch (const Error& error) {
      std::cerr << error.what() << std::endl;
    } catch (const std::exception& error) {
      std::cerr << "[INTERNAL_ERROR] " << error.what() << std::endl;
    }
    return true;
  }

  void RefreshCatalog() {
    if (!catalog_stale_) return;
    catalog_stale_ = false;
    tables_.clear();
    columns_.clear();
    try {
      tables_ = StringColumn(api::RunStatements(session_, "SHOW TABLES"), 1);
    } catch (const Error&) {
      // Completion offers what it can: keywords still complete without the catalog.
    }
  }

  std::vector<std::string> ColumnsOf(const std::string& table) {
    auto [entry, inserted] = columns_.try_emplace(table);
    if (inserted) {
      try {
        StatementOutput empty =
            api::RunStatements(session_, "SELECT * FROM " + QuoteIdentifier(table) + " LIMIT 0");
        for (const Field& field : empty.schema()->fields()) entry->second.push_back(field.name);
      } catch (const Error&) {
      }
    }
    return entry->second;
  }

  // libedit's generator protocol: called with state 0 first, then until it returns nullptr;
  // each match is a malloc'ed copy that libedit frees.
  static char* NextMatch(const char*, int state) {
    SqlShell* shell = g_completing_shell;
    if (shell == nullptr) return nullptr;
    if (state == 0) shell->next_match_ = 0;
    if (shell->next_match_ >= shell->matches_.size()) return nullptr;
    return strdup(shell->matches_[shell->next_match_++].c_str());
  }

  static char** CompleteCallback(const char* text, int, int end) {
    if (g_completing_shell == nullptr) return nullptr;
    std::string typed(rl_line_buffer, static_cast<size_t>(std::max(end, 0)));
    g_completing_shell->matches_ = g_completing_shell->Complete(typed);
    return rl_completion_matches(text, NextMatch);
  }

  // What libedit completes when CompleteCallback found nothing: nothing (not file names).
  static char* NoMatch(const char*, int) { return nullptr; }

  Session& session_;
  OutputFormat format_;
  bool progress_;
  int progress_delay_ms_;
  StatementBuffer buffer_;
  std::string pending_text_;  // earlier lines of the statement being typed, for completion
  bool catalog_stale_ = true;
  std::vector<std::string> tables_;
  std::map<std::string, std::vector<std::string>> columns_;
  std::vector<std::string> matches_;  // of the completion in progress
  size_t next_match_ = 0;
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
  // Progress goes to stderr when it is a terminal, unless a flag says otherwise.
  bool progress = options.progress || (!options.no_progress && isatty(STDERR_FILENO));
  Session session(std::move(session_options));
  SqlShell shell(session, ParseFormat(options.format).value_or(OutputFormat::kTable), progress,
                 options.progress_delay_ms);
  InstallInterruptHandler();

  // -e and -f run interleaved in the order they were given on the command line.
  size_t next_statement = 0;
  size_t next_file = 0;
  bool ran_any = false;
  for (const CLI::Option* option : order) {
    if (option == statement_option && next_statement < options.statements.size()) {
      shell.RunBatch(options.statements[next_statement++]);
      ran_any = true;
    } else if (option == file_option && next_file < options.files.size()) {
      shell.RunBatch(ReadScript(options.files[next_file++]));
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
  sql->add_option("--format", options->format,
                  "Output: table (like Spark's show), csv or json. csv and json print rows as "
                  "they are produced; table prints a result of up to 10,000 rows at its end, a "
                  "longer one as its rows come, column widths set by its first 10,000")
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
  CLI::Option* progress = sql->add_flag(
      "--progress", options->progress,
      "Show the progress of long statements on stderr (default: when stderr is a terminal)");
  sql->add_flag("--no-progress", options->no_progress, "Never show progress")->excludes(progress);
  sql->add_option("--progress-delay", options->progress_delay_ms,
                  "Show progress once a statement has run this many milliseconds (default 1000)")
      ->check(CLI::NonNegativeNumber);
  sql->callback([options, sql, statement_option, file_option] {
    std::vector<const CLI::Option*> order(sql->parse_order().begin(), sql->parse_order().end());
    RunSql(*options, order, statement_option, file_option);
  });
}

}  // namespace silt::cli
