// Runs `silt sql` as a user would: statements from -e, -f and piped scripts, the three output
// formats, errors with their exit codes, and session options.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sql_command.h"
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

}  // namespace
}  // namespace silt
