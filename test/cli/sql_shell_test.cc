// Runs `silt sql` as a user would: statements from -e, -f and piped scripts, the three output
// formats, errors with their exit codes, session options, meta commands, progress on stderr and
// Ctrl-C; plus the statement splitter, tab completion and the progress line as functions.

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "progress_display.h"
#include "silt/io/file_system.h"
#include "silt/session.h"
#include "sql_command.h"
#include "sql_completion.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ShellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs `silt sql --warehouse <warehouse> <args>` with `stdin_text` piped in (an empty stdin
// when there is none).
RunResult RunSql(const std::string& warehouse, const std::vector<std::string>& args,
                 const std::string& stdin_text = "") {
  const char* binary = std::getenv("SILT_BINARY");
  if (binary == nullptr) {
    ADD_FAILURE() << "SILT_BINARY is set by CTest";
    return {};
  }
  test::TempDir dir;
  std::ofstream(dir.Child("in")) << stdin_text;
  std::string command = std::string(binary) + " sql --warehouse " + ShellQuote(warehouse);
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  command += " > " + dir.Child("out") + " 2> " + dir.Child("err") + " < " + dir.Child("in");
  int status = std::system(command.c_str());
  RunResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = ReadFileText(dir.Child("out"));
  result.err = ReadFileText(dir.Child("err"));
  return result;
}

std::string WriteFile(const test::TempDir& dir, const std::string& name, const std::string& text) {
  std::string path = dir.Child(name);
  std::ofstream(path) << text;
  return path;
}

TEST(SqlShellTest, HelpListsTheSqlCommand) {
  test::TempDir warehouse;
  RunResult help = RunSql(warehouse.path(), {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--format"));
  EXPECT_THAT(help.out, HasSubstr("-e,--execute"));
  EXPECT_THAT(help.out, HasSubstr("-f,--file"));
  EXPECT_THAT(help.out, HasSubstr("--conf"));

  const char* binary = std::getenv("SILT_BINARY");
  ASSERT_NE(binary, nullptr) << "SILT_BINARY is set by CTest";
  std::string command = std::string(binary) + " --help";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string top_help;
  char chunk[256];
  while (size_t n = fread(chunk, 1, sizeof(chunk), pipe)) top_help.append(chunk, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_THAT(top_help, HasSubstr("sql"));
}

TEST(SqlShellTest, ExecuteAndFileRunInTheOrderGiven) {
  test::TempDir warehouse;
  test::TempDir dir;
  ASSERT_EQ(RunSql(warehouse.path(), {"-e", "CREATE TABLE t (a INT)"}).exit_code, 0);
  std::string insert = WriteFile(dir, "insert.sql", "INSERT INTO t VALUES (1), (2);\n");
  std::string count = WriteFile(dir, "count.sql", "SELECT count(*) AS n FROM t;");
  RunResult run =
      RunSql(warehouse.path(),
             {"--format", "csv", "-e", "SELECT count(*) AS n FROM t", "-f", insert, "-f", count,
              "-e", "INSERT INTO t VALUES (3)", "-e", "SELECT sum(a) AS total FROM t"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("n\n0\n"));
  EXPECT_THAT(run.out, HasSubstr("n\n2\n"));
  EXPECT_THAT(run.out, EndsWith("total\n6\n"));
  EXPECT_LT(run.out.find("n\n2\n"), run.out.find("total\n6\n"));
  EXPECT_THAT(run.err, IsEmpty());
}

TEST(SqlShellTest, TablePrintsEveryRowLikeShowWithoutTruncation) {
  test::TempDir warehouse;
  RunResult run =
      RunSql(warehouse.path(), {"-e",
                                "SELECT * FROM VALUES (1, 'a long text value, longer than twenty'),"
                                " (22, NULL) AS v(id, name) ORDER BY id"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "+---+-------------------------------------+\n"
            "|id |name                                 |\n"
            "+---+-------------------------------------+\n"
            "|1  |a long text value, longer than twenty|\n"
            "|22 |NULL                                 |\n"
            "+---+-------------------------------------+\n");

  // More rows than show()'s default 20, and no "only showing" footer.
  RunResult many = RunSql(warehouse.path(), {"-e", "SELECT id FROM range(25)"});
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_THAT(many.out, HasSubstr("|24 |\n+---+\n"));
  EXPECT_THAT(many.out, Not(HasSubstr("only showing")));

  // An empty result still prints its header.
  RunResult empty = RunSql(warehouse.path(), {"-e", "SELECT 1 AS one WHERE false"});
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "+---+\n|one|\n+---+\n+---+\n");
}

// Runs `silt sql <args> | head -n <lines>` with the process's address space capped at
// `address_space_kb`, and returns what head printed.
std::string FirstLinesUnderAddressLimit(const std::string& warehouse,
                                        const std::vector<std::string>& args, int lines,
                                        int64_t address_space_kb) {
  const char* binary = std::getenv("SILT_BINARY");
  if (binary == nullptr) {
    ADD_FAILURE() << "SILT_BINARY is set by CTest";
    return {};
  }
  test::TempDir dir;
  std::string command = "ulimit -v " + std::to_string(address_space_kb) + "; " +
                        std::string(binary) + " sql --warehouse " + ShellQuote(warehouse);
  for (const std::string& arg : args) command += " " + ShellQuote(arg);
  command += " 2> " + dir.Child("err") + " < /dev/null | head -n " + std::to_string(lines) +
             " > " + dir.Child("out");
  std::system(("sh -c " + ShellQuote(command)).c_str());
  return ReadFileText(dir.Child("out")) + ReadFileText(dir.Child("err"));
}

TEST(SqlShellTest, RowsPrintAsTheyAreProducedInBoundedMemory) {
  test::TempDir warehouse;
  // A billion rows would take 8 GB held in memory; the output starts long before that, and the
  // process never needs more than the address space it is given.
  constexpr int64_t kAddressSpaceKb = 3 * 1024 * 1024;
  const std::string query = "SELECT id FROM range(1000000000)";
  EXPECT_EQ(FirstLinesUnderAddressLimit(warehouse.path(), {"--format", "csv", "-e", query}, 3,
                                        kAddressSpaceKb),
            "id\n0\n1\n");
  EXPECT_EQ(FirstLinesUnderAddressLimit(warehouse.path(), {"--format", "json", "-e", query}, 2,
                                        kAddressSpaceKb),
            "{\"id\":0}\n{\"id\":1}\n");
  // The table prints once it holds 10,000 rows, its widths fixed by them.
  EXPECT_EQ(FirstLinesUnderAddressLimit(warehouse.path(), {"-e", query}, 5, kAddressSpaceKb),
            "+-----+\n|id   |\n+-----+\n|0    |\n|1    |\n");
}

TEST(SqlShellTest, CsvHasHeaderAndNullAsEmptyField) {
  test::TempDir warehouse;
  RunResult run =
      RunSql(warehouse.path(), {"--format", "csv", "-e",
                                "SELECT 1 AS a, CAST(NULL AS STRING) AS b, '' AS c, 'x,y' AS d, "
                                "CAST(2.50 AS DECIMAL(4,2)) AS e"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "a,b,c,d,e\n1,,\"\",\"x,y\",2.50\n");

  RunResult empty =
      RunSql(warehouse.path(), {"--format", "csv", "-e", "SELECT 1 AS one WHERE false"});
  ASSERT_EQ(empty.exit_code, 0) << empty.err;
  EXPECT_EQ(empty.out, "one\n");
}

TEST(SqlShellTest, JsonLinesKeepDecimalsExactAndNestValues) {
  test::TempDir warehouse;
  RunResult run =
      RunSql(warehouse.path(),
             {"--format", "json", "-e",
              "SELECT CAST(1.50 AS DECIMAL(5,2)) AS d, CAST(12345678901234567.89 AS DECIMAL(19,2)) "
              "AS big, "
              "named_struct('x', 1, 'y', 'a') AS s, array(1, 2) AS arr, map('k', 1) AS m, "
              "CAST(NULL AS INT) AS n, DATE'2024-01-31' AS day"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "{\"d\":1.50,\"big\":12345678901234567.89,\"s\":{\"x\":1,\"y\":\"a\"},\"arr\":[1,2],"
            "\"m\":{\"k\":1},\"n\":null,\"day\":\"2024-01-31\"}\n");
}

TEST(SqlShellTest, ErrorsGoToStderrWithExitCodeAndEarlierStatementsStayCommitted) {
  test::TempDir warehouse;
  RunResult run =
      RunSql(warehouse.path(), {"-e", "CREATE TABLE t (a INT)", "-e", "INSERT INTO t VALUES (1)",
                                "-e", "SELECT nope FROM t", "-e", "INSERT INTO t VALUES (2)"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err, StartsWith("[UNRESOLVED_COLUMN"));
  EXPECT_THAT(run.out, Not(HasSubstr("UNRESOLVED_COLUMN")));

  RunResult count = RunSql(warehouse.path(),
                           {"--format", "csv", "-e", "SELECT count(*) AS n, max(a) AS m FROM t"});
  ASSERT_EQ(count.exit_code, 0) << count.err;
  EXPECT_EQ(count.out, "n,m\n1,1\n");

  RunResult parse = RunSql(warehouse.path(), {"-e", "SELEC 1"});
  EXPECT_EQ(parse.exit_code, 1);
  EXPECT_THAT(parse.err, StartsWith("[PARSE_SYNTAX_ERROR]"));
  EXPECT_THAT(parse.out, IsEmpty());

  RunResult missing_table = RunSql(warehouse.path(), {"-e", "SELECT * FROM no_such_table"});
  EXPECT_EQ(missing_table.exit_code, 1);
  EXPECT_THAT(missing_table.err, StartsWith("[TABLE_OR_VIEW_NOT_FOUND]"));
}

TEST(SqlShellTest, BadCommandLinesExitTwo) {
  test::TempDir warehouse;
  EXPECT_EQ(RunSql(warehouse.path(), {"--format", "xml", "-e", "SELECT 1"}).exit_code, 2);
  EXPECT_EQ(RunSql(warehouse.path(), {"--conf", "no_equals_sign", "-e", "SELECT 1"}).exit_code, 2);
  EXPECT_EQ(RunSql(warehouse.path(), {"-f", warehouse.path() + "/missing.sql"}).exit_code, 2);
}

TEST(SqlShellTest, ConfAndSetChangeSessionOptions) {
  test::TempDir warehouse;
  RunResult ansi = RunSql(warehouse.path(), {"-e", "SELECT 1 / 0"});
  EXPECT_EQ(ansi.exit_code, 1);
  EXPECT_THAT(ansi.err, StartsWith("[DIVIDE_BY_ZERO]"));

  RunResult conf = RunSql(
      warehouse.path(),
      {"--format", "csv", "--conf", "spark.sql.ansi.enabled=false", "-e", "SELECT 1 / 0 AS q"});
  ASSERT_EQ(conf.exit_code, 0) << conf.err;
  EXPECT_EQ(conf.out, "q\n\n");

  RunResult set = RunSql(
      warehouse.path(),
      {"--format", "csv", "-e", "SET spark.sql.ansi.enabled=false", "-e", "SELECT 1 / 0 AS q"});
  ASSERT_EQ(set.exit_code, 0) << set.err;
  // SET key=value returns the pair it set, as Spark's does.
  EXPECT_EQ(set.out, "key,value\nspark.sql.ansi.enabled,false\nq\n\n");
}

TEST(SqlShellTest, PipedStdinRunsAsAScript) {
  test::TempDir warehouse;
  RunResult run = RunSql(warehouse.path(), {"--format", "csv"},
                         "CREATE TABLE t (a INT, s STRING);\n"
                         "INSERT INTO t VALUES (1, 'semi;colon'), -- a comment; not the end\n"
                         "  (2, 'x');\n"
                         "/* a block; comment */ SELECT a, s FROM t ORDER BY a;\n"
                         "\n"
                         "SELECT count(*) AS n\n"
                         "FROM t\n");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("a,s\n1,semi;colon\n2,x\n"));
  EXPECT_THAT(run.out, EndsWith("n\n2\n"));

  // The first failure ends the script, with the statements before it committed.
  RunResult failing = RunSql(warehouse.path(), {"--format", "csv"},
                             "INSERT INTO t VALUES (3, 'y');\n"
                             "SELECT missing FROM t;\n"
                             "INSERT INTO t VALUES (4, 'z');\n");
  EXPECT_EQ(failing.exit_code, 1);
  EXPECT_THAT(failing.err, StartsWith("[UNRESOLVED_COLUMN"));
  RunResult count =
      RunSql(warehouse.path(), {"--format", "csv", "-e", "SELECT max(a) AS m FROM t"});
  EXPECT_EQ(count.out, "m\n3\n");
}

TEST(StatementBufferTest, CutsAtSemicolonsOutsideQuotesAndComments) {
  cli::StatementBuffer buffer;
  EXPECT_THAT(buffer.AddLine("SELECT 'a;b', \"c;\\\"d\", `e;``f`"), IsEmpty());
  EXPECT_TRUE(buffer.has_pending());
  EXPECT_THAT(buffer.AddLine("  -- not here;"), IsEmpty());
  EXPECT_THAT(buffer.AddLine("  /* nor /* nested; */ here; */ FROM t; SELECT 2;"),
              ElementsAre("SELECT 'a;b', \"c;\\\"d\", `e;``f`\n  -- not here;\n"
                          "  /* nor /* nested; */ here; */ FROM t;",
                          "SELECT 2;"));
  EXPECT_FALSE(buffer.has_pending());
}

TEST(StatementBufferTest, DropsEmptyStatementsAndKeepsTheUnfinishedOne) {
  cli::StatementBuffer buffer;
  EXPECT_THAT(buffer.AddLine(";  ; -- only a comment"), IsEmpty());
  EXPECT_FALSE(buffer.has_pending());
  EXPECT_THAT(buffer.AddLine("SELECT 'it''s;"), IsEmpty());
  EXPECT_THAT(buffer.AddLine("still a string'"), IsEmpty());
  EXPECT_TRUE(buffer.has_pending());
  EXPECT_EQ(buffer.TakePending(), "-- only a comment\nSELECT 'it''s;\nstill a string'");
  EXPECT_FALSE(buffer.has_pending());
  EXPECT_EQ(buffer.TakePending(), "");
}

// The data files of a table (everything outside its log).
std::vector<std::string> DataFiles(const std::string& table_path) {
  std::vector<std::string> files;
  for (const io::FileInfo& info :
       io::MakeLocalFileSystem()->List(table_path, "", /*recursive=*/true)) {
    if (info.path.find("/_delta_log/") == std::string::npos) files.push_back(info.path);
  }
  return files;
}

// `silt sql --warehouse <warehouse> <args>` running in the background, its stdout and stderr
// going to files in a folder of its own, until Interrupt() sends it Ctrl-C.
class BackgroundSql {
 public:
  BackgroundSql(const std::string& warehouse, const std::vector<std::string>& args) {
    const char* binary = std::getenv("SILT_BINARY");
    if (binary == nullptr) {
      ADD_FAILURE() << "SILT_BINARY is set by CTest";
      return;
    }
    std::vector<std::string> argv_text = {binary, "sql", "--warehouse", warehouse};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::string out_path = dir_.Child("out");
    std::string err_path = dir_.Child("err");
    child_ = fork();
    if (child_ == 0) {
      int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int in = open("/dev/null", O_RDONLY);
      dup2(in, 0);
      dup2(out, 1);
      dup2(err, 2);
      execv(binary, argv.data());
      _exit(127);
    }
    EXPECT_GT(child_, 0);
  }
  ~BackgroundSql() {
    if (child_ > 0) Interrupt();
  }

  std::string Stderr() const { return ReadFileText(dir_.Child("err")); }

  // Waits (up to two minutes) until stderr holds `text`.
  bool WaitForStderr(const std::string& text) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      if (Stderr().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  // Sends Ctrl-C and waits for the exit: the exit code, or -1 when it did not exit normally.
  int Interrupt() {
    kill(child_, SIGINT);
    int status = 0;
    pid_t ended = waitpid(child_, &status, 0);
    child_ = -1;
    return ended > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

 private:
  test::TempDir dir_;
  pid_t child_ = -1;
};

// The progress lines drawn on stderr (each starts with '\r'), without the erasing ones.
std::vector<std::string> ProgressLines(const std::string& err) {
  std::vector<std::string> lines;
  std::stringstream stream(err);
  for (std::string line; std::getline(stream, line, '\r');) {
    if (line.find_first_not_of(' ') != std::string::npos) lines.push_back(line);
  }
  return lines;
}

TEST(SqlShellTest, ProgressOfAStatementOverManyFilesWhenAsked) {
  test::TempDir warehouse;
  ASSERT_EQ(RunSql(warehouse.path(),
                   {"-e",
                    "CREATE TABLE t (id BIGINT, p INT) USING delta PARTITIONED BY (p)",
                    "-e", "INSERT INTO t SELECT id, CAST(id % 40 AS INT) FROM range(2000000)",
                    "-e", "CREATE TABLE copy (id BIGINT, p INT)"})
                .exit_code,
            0);
  ASSERT_EQ(DataFiles(warehouse.path() + "/t").size(), 40u);

  // The line is redrawn every 100 ms: a plain copy of these rows can end before the first
  // redraw, so each row also costs a hash (about a second in all).
  RunResult shown = RunSql(
      warehouse.path(),
      {"--progress", "--progress-delay", "0", "-e",
       "INSERT INTO copy SELECT id, p FROM t WHERE sha2(CAST(id AS STRING), 512) <> ''"});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, IsEmpty());
  std::vector<std::string> lines = ProgressLines(shown.err);
  ASSERT_THAT(lines, Not(IsEmpty())) << shown.err;
  // Every line counts files of the 40 the scan reads, rows, and the seconds elapsed.
  // Before the scan has started only the time is known.
  std::regex line_pattern(R"(^ *\d+% \[[#-]{20}\] read files (\d+)/40(, rows [0-9.KM]+)?, .* \d+\.\ds *$)");
  std::regex starting_pattern(R"(^\d+\.\ds *$)");
  int counted = 0;
  for (const std::string& line : lines) {
    std::smatch match;
    if (std::regex_match(line, match, line_pattern)) {
      EXPECT_LE(std::stoi(match[1]), 40);
      ++counted;
    } else {
      EXPECT_TRUE(std::regex_match(line, starting_pattern)) << "'" << line << "'";
    }
  }
  EXPECT_GT(counted, 0) << shown.err;
  // The line is erased at the end: the last thing on stderr is blank.
  EXPECT_THAT(shown.err, EndsWith("\r"));
  EXPECT_EQ(shown.err.find('\n'), std::string::npos);

  // Nothing when stderr is not a terminal, or with --no-progress.
  RunResult quiet = RunSql(warehouse.path(), {"--progress-delay", "0", "-e",
                                              "INSERT INTO copy SELECT * FROM t"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.err, IsEmpty());
  RunResult off = RunSql(warehouse.path(), {"--no-progress", "--progress-delay", "0", "-e",
                                            "INSERT INTO copy SELECT * FROM t"});
  ASSERT_EQ(off.exit_code, 0) << off.err;
  EXPECT_THAT(off.err, IsEmpty());
  EXPECT_EQ(RunSql(warehouse.path(), {"--progress", "--no-progress", "-e", "SELECT 1"}).exit_code,
            2);

  RunResult count = RunSql(warehouse.path(), {"--format", "csv", "-e", "SELECT count(*) AS n FROM copy"});
  EXPECT_EQ(count.out, "n\n6000000\n");
}

TEST(SqlShellTest, CtrlCCancelsTheStatementExitsWith130AndLeavesNothingBehind) {
  test::TempDir warehouse;
  ASSERT_EQ(RunSql(warehouse.path(), {"-e", "CREATE TABLE t (id BIGINT, p INT) PARTITIONED BY (p)",
                                      "-e", "INSERT INTO t VALUES (1, 1)"})
                .exit_code,
            0);
  std::string table = warehouse.path() + "/t";
  std::vector<std::string> files_before = DataFiles(table);
  size_t commits_before = io::MakeLocalFileSystem()->List(table + "/_delta_log").size();

  BackgroundSql insert(warehouse.path(),
                       {"--progress", "--progress-delay", "0", "-e",
                        "INSERT INTO t SELECT id, CAST(id % 8 AS INT) FROM range(6000000)"});
  // Interrupt once the progress line shows it writing data files.
  EXPECT_TRUE(insert.WaitForStderr("wrote rows")) << insert.Stderr();
  EXPECT_EQ(insert.Interrupt(), 130);
  std::string err = insert.Stderr();
  EXPECT_THAT(err.substr(err.find_last_of('\r') + 1),
              StartsWith("[OPERATION_CANCELED] The operation has been canceled."));
  EXPECT_EQ(io::MakeLocalFileSystem()->List(table + "/_delta_log").size(), commits_before);
  EXPECT_EQ(DataFiles(table), files_before);
  RunResult count =
      RunSql(warehouse.path(), {"--format", "csv", "-e", "SELECT count(*) AS n FROM t"});
  EXPECT_EQ(count.out, "n\n1\n");
}

TEST(SqlShellTest, MetaCommandsAndQuitInAPipedScript) {
  test::TempDir warehouse;
  RunResult run = RunSql(warehouse.path(), {},
                         "CREATE TABLE people (id BIGINT NOT NULL, name STRING);\n"
                         "CREATE TABLE cities (name STRING);\n"
                         "INSERT INTO people\n"
                         "  VALUES (1, 'Ada');\n"
                         ".tables\n"
                         ".schema people\n"
                         ".mode csv\n"
                         ".mode\n"
                         "SELECT * FROM people;\n"
                         ".MODE json\n"
                         "SELECT * FROM people;\n"
                         "quit;\n"
                         "SELECT 'not run';\n");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out,
            "cities\n"
            "people\n"
            "CREATE TABLE spark_catalog.default.people (\n"
            "  id BIGINT NOT NULL,\n"
            "  name STRING)\n"
            "USING delta\n"
            "TBLPROPERTIES (\n"
            "  'delta.minReaderVersion' = '1',\n"
            "  'delta.minWriterVersion' = '2');\n"
            "csv\n"
            "id,name\n"
            "1,Ada\n"
            "{\"id\":1,\"name\":\"Ada\"}\n");
  EXPECT_THAT(run.err, IsEmpty());

  // Without a name, .schema prints every table of the current database.
  RunResult schemas = RunSql(warehouse.path(), {}, ".schema\n");
  ASSERT_EQ(schemas.exit_code, 0) << schemas.err;
  EXPECT_THAT(schemas.out, StartsWith("CREATE TABLE spark_catalog.default.cities (\n"));
  EXPECT_THAT(schemas.out, HasSubstr(";\nCREATE TABLE spark_catalog.default.people (\n"));

  RunResult help = RunSql(warehouse.path(), {}, ".help\n.exit\nSELECT 1;\n");
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const char* command : {".tables", ".schema", ".mode", ".quit", ".exit"}) {
    EXPECT_THAT(help.out, HasSubstr(command)) << command;
  }
  EXPECT_THAT(help.out, Not(HasSubstr("+---+")));

  RunResult unknown = RunSql(warehouse.path(), {}, ".frobnicate\nSELECT 1;\n");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, StartsWith("[INVALID_ARGUMENT] Invalid argument: unknown shell command .frobnicate"));
  RunResult bad_mode = RunSql(warehouse.path(), {}, ".mode xml\n");
  EXPECT_EQ(bad_mode.exit_code, 1);
  EXPECT_THAT(bad_mode.err, StartsWith("[INVALID_ARGUMENT]"));
  RunResult exit_statement = RunSql(warehouse.path(), {"--format", "csv"}, "SELECT 1 AS a;\nEXIT ;\nSELECT 2 AS b;\n");
  EXPECT_EQ(exit_statement.out, "a\n1\n");
}

// REFRESH STREAMING TABLE as a cron job reads only what is new; REFRESH ... EVERY runs a batch
// per interval, prints a line per batch on stderr and stops on Ctrl-C after the batch in flight.
TEST(SqlShellTest, StreamingTablesRefreshOnceOrEveryIntervalUntilCtrlC) {
  test::TempDir warehouse;
  RunResult created = RunSql(warehouse.path(),
                             {"-e",
                              "CREATE TABLE bronze (id BIGINT); INSERT INTO bronze VALUES (1), (2);"
                              "CREATE STREAMING TABLE silver AS SELECT id * 10 AS id FROM STREAM(bronze)"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  RunResult cron = RunSql(warehouse.path(), {"--format", "csv", "-e",
                                             "INSERT INTO bronze VALUES (3);"
                                             "REFRESH STREAMING TABLE silver"});
  ASSERT_EQ(cron.exit_code, 0) << cron.err;
  EXPECT_THAT(cron.out, StartsWith("batch_id,num_input_rows,num_output_rows,duration_ms\n1,1,1,"));

  BackgroundSql refresh(warehouse.path(),
                        {"-e", "REFRESH STREAMING TABLE silver EVERY '100 milliseconds'"});
  // Rows that land while it runs are picked up by a later batch.
  RunResult landed = RunSql(warehouse.path(), {"-e", "INSERT INTO bronze VALUES (4), (5)"});
  ASSERT_EQ(landed.exit_code, 0) << landed.err;
  EXPECT_TRUE(refresh.WaitForStderr("2 rows in, 2 rows written")) << refresh.Stderr();
  EXPECT_EQ(refresh.Interrupt(), 130);
  std::string err = refresh.Stderr();
  EXPECT_THAT(err, HasSubstr("`spark_catalog`.`default`.`silver` batch 2: 2 rows in, 2 rows written, "));
  EXPECT_THAT(err, HasSubstr("[OPERATION_CANCELED]"));
  RunResult rows = RunSql(warehouse.path(),
                          {"--format", "csv", "-e", "SELECT id FROM silver ORDER BY id"});
  EXPECT_EQ(rows.out, "id\n10\n20\n30\n40\n50\n");
}

TEST(SqlShellTest, ExplainPrintsItsPlanWithLineBreaks) {
  test::TempDir warehouse;
  ASSERT_EQ(RunSql(warehouse.path(), {"-e", "CREATE TABLE t (a INT, b STRING)"}).exit_code, 0);
  RunResult run =
      RunSql(warehouse.path(), {"-e", "EXPLAIN SELECT a, count(*) FROM t WHERE a > 1 GROUP BY a"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("== Physical Plan ==\n"));
  EXPECT_THAT(run.out, HasSubstr("\n+- "));
  EXPECT_THAT(run.out, Not(HasSubstr("\\n")));
  EXPECT_THAT(run.out, Not(HasSubstr("|")));
  EXPECT_THAT(run.out, EndsWith("\n"));
  EXPECT_THAT(run.out, Not(EndsWith("\n\n")));
  // The other formats keep the plan as one value.
  RunResult csv = RunSql(warehouse.path(), {"--format", "csv", "-e", "EXPLAIN SELECT a FROM t"});
  EXPECT_THAT(csv.out, StartsWith("plan\n\"== Physical Plan ==\n"));
}

TEST(SqlCompletionTest, CompletesKeywordsInTheCaseTyped) {
  cli::CompletionCatalog catalog;
  EXPECT_THAT(cli::CompleteSql("SEL", catalog), ElementsAre("SELECT"));
  EXPECT_THAT(cli::CompleteSql("sel", catalog), ElementsAre("select"));
  EXPECT_THAT(cli::CompleteSql("SELECT 1 FROM t WH", catalog), ElementsAre("WHEN", "WHERE"));
  EXPECT_THAT(cli::CompleteSql("insert into t ov", catalog), ElementsAre("over", "overwrite"));
  EXPECT_THAT(cli::CompleteSql("SELECT xyzzy", catalog), IsEmpty());
  EXPECT_THAT(cli::CompleteSql("SELECT ", catalog), IsEmpty());
}

TEST(SqlCompletionTest, CompletesTablesAndTheirColumns) {
  cli::CompletionCatalog catalog;
  catalog.tables = {"people", "places", "orders"};
  std::vector<std::string> asked;
  catalog.columns = [&](const std::string& table) -> std::vector<std::string> {
    asked.push_back(table);
    if (table == "people") return {"id", "name", "place_id"};
    if (table == "places") return {"id", "place_name"};
    return {};
  };
  // After FROM, JOIN, INTO, UPDATE, DESCRIBE ...: table names only, also for an empty word.
  EXPECT_THAT(cli::CompleteSql("SELECT * FROM p", catalog), ElementsAre("people", "places"));
  EXPECT_THAT(cli::CompleteSql("select * from people join ", catalog),
              ElementsAre("orders", "people", "places"));
  EXPECT_THAT(cli::CompleteSql("INSERT INTO Pe", catalog), ElementsAre("people"));
  EXPECT_THAT(cli::CompleteSql("DESCRIBE o", catalog), ElementsAre("orders"));
  // table.column
  EXPECT_THAT(cli::CompleteSql("SELECT people.", catalog),
              ElementsAre("people.id", "people.name", "people.place_id"));
  EXPECT_THAT(cli::CompleteSql("SELECT PEOPLE.na", catalog), ElementsAre("PEOPLE.name"));
  EXPECT_THAT(cli::CompleteSql("SELECT nobody.", catalog), IsEmpty());
  // Elsewhere: keywords, tables and the columns of the tables the statement mentions (earlier
  // lines included).
  EXPECT_THAT(cli::CompleteSql("SELECT * FROM people\nWHERE pla", catalog),
              ElementsAre("place_id", "places"));
  EXPECT_THAT(cli::CompleteSql("SELECT * FROM people WHERE PL", catalog),
              ElementsAre("place_id", "places"));
  EXPECT_THAT(cli::CompleteSql("SELECT * FROM orders WHERE o", catalog),
              ElementsAre("of", "on", "optimize", "or", "order", "orders", "outer", "over",
                          "overwrite"));
  EXPECT_THAT(asked, Not(IsEmpty()));
}

TEST(SqlCompletionTest, CompletesMetaCommandsAtTheStartOfALine) {
  cli::CompletionCatalog catalog;
  catalog.tables = {"t"};
  EXPECT_THAT(cli::CompleteSql(".", catalog),
              ElementsAre(".exit", ".help", ".mode", ".quit", ".schema", ".tables"));
  EXPECT_THAT(cli::CompleteSql("  .s", catalog), ElementsAre(".schema"));
  EXPECT_THAT(cli::CompleteSql(".schema ", catalog), ElementsAre("t"));
}

TEST(ProgressLineTest, ShowsWhatIsDoneOfTheKnownTotals) {
  ProgressSnapshot progress;
  progress.running = true;
  progress.files_read = 12;
  progress.files_to_read = 40;
  progress.rows_read = 1'204'332;
  progress.bytes_read = 340LL << 20;
  progress.bytes_to_read = 1360LL << 20;
  progress.elapsed_ms = 3240;
  EXPECT_EQ(cli::FormatProgressLine(progress, 200),
            " 25% [#####---------------] read files 12/40, rows 1.20M, 340.0 MiB/1.3 GiB | 3.2s");

  // Writes, and a percentage of rows when only their total is known.
  ProgressSnapshot insert;
  insert.running = true;
  insert.rows_read = 500;
  insert.rows_to_read = 1000;
  insert.rows_written = 250;
  insert.files_written = 2;
  insert.bytes_written = 2048;
  insert.elapsed_ms = 1000;
  EXPECT_EQ(cli::FormatProgressLine(insert, 200),
            " 50% [##########----------] read rows 500/1000 | wrote rows 250, files 2, 2.0 KiB | 1.0s");

  // Without totals: no bar. Narrow terminals cut the line.
  ProgressSnapshot unknown;
  unknown.running = true;
  unknown.files_read = 3;
  unknown.elapsed_ms = 61'500;
  EXPECT_EQ(cli::FormatProgressLine(unknown, 200), "read files 3 | 61.5s");
  EXPECT_EQ(cli::FormatProgressLine(progress, 20), " 25% [#####--------");
}

}  // namespace
}  // namespace silt
