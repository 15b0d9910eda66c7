// Runs the `silt` binary on input built to exhaust it: statements nested far deeper than any
// real one, damaged Parquet footers, byte-order marks, types nested too deeply. Each must end
// with a result or with a clear error class and its exit code, never with a signal.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "silt/io/file_system.h"
#include "silt/parquet/metadata.h"
#include "silt/parquet/writer.h"
#include "support/temp_dir.h"

namespace silt {
namespace {

struct RunResult {
  int exit_code = -1;  // -1 when the process ended by a signal
  int signal = 0;
  std::string out;
  std::string err;
};

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFileText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

RunResult RunSilt(const std::string& args) {
  const char* binary = std::getenv("SILT_BINARY");
  EXPECT_NE(binary, nullptr) << "SILT_BINARY is set by CTest";
  test::TempDir dir;
  std::string command = std::string(binary) + " " + args + " > " + dir.Child("out") + " 2> " +
                        dir.Child("err") + " < /dev/null";
  int status = std::system(command.c_str());
  RunResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    // The shell reports a child killed by a signal as 128 + the signal.
    if (result.exit_code > 128) result.signal = result.exit_code - 128;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.out = ReadFileText(dir.Child("out"));
  result.err = ReadFileText(dir.Child("err"));
  return result;
}

// Runs `script` with `silt sql -f` in a fresh warehouse under `dir`, printing CSV.
RunResult RunScript(const test::TempDir& dir, const std::string& script) {
  std::string file = dir.Child("script.sql");
  WriteFileText(file, script);
  return RunSilt("sql --format csv --warehouse " + dir.Child("warehouse") + " -f " + file);
}

bool StartsWith(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

std::string Repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

// ---- depth ----

std::string CteChain(int length) {
  std::string sql = "WITH c0 AS (SELECT 1 AS x)";
  for (int i = 1; i < length; ++i) {
    sql += ", c" + std::to_string(i) + " AS (SELECT x FROM c" + std::to_string(i - 1) + ")";
  }
  return sql + " SELECT * FROM c" + std::to_string(length - 1);
}

TEST(RobustnessTest, ChainOfFourThousandCtesIsTooComplex) {
  test::TempDir dir;
  RunResult result = RunScript(dir, CteChain(4000));
  EXPECT_EQ(result.signal, 0);
  EXPECT_EQ(result.exit_code, 1) << result.err;
  EXPECT_TRUE(StartsWith(result.err, "[STATEMENT_TOO_COMPLEX] ")) << result.err;
}

TEST(RobustnessTest, ChainOfCtesWithinTheLimitRuns) {
  test::TempDir dir;
  RunResult result = RunScript(dir, CteChain(900));
  EXPECT_EQ(result.signal, 0);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "x\n1\n");
}

TEST(RobustnessTest, ChainOfThreeThousandViewsIsTooComplex) {
  test::TempDir dir;
  std::string script = "CREATE TEMP VIEW v0 AS SELECT 1 AS x;\n";
  for (int i = 1; i < 3000; ++i) {
    script += "CREATE TEMP VIEW v" + std::to_string(i) + " AS SELECT * FROM v" + std::to_string(i - 1) + ";\n";
  }
  script += "SELECT * FROM v2999;\n";
  RunResult result = RunScript(dir, script);
  EXPECT_EQ(result.signal, 0);
  EXPECT_EQ(result.exit_code, 1) << result.err.substr(0, 500);
  EXPECT_TRUE(StartsWith(result.err, "[STATEMENT_TOO_COMPLEX] ")) << result.err.substr(0, 500);
}

TEST(RobustnessTest, DeepChainOfProjectionsRuns) {
  // 900 projections between the scan and the aggregate: the plan is as deep on the threads that
  // scan and aggregate in parallel as on the statement's own.
  test::TempDir dir;
  std::string sql = "WITH c0 AS (SELECT id AS x FROM range(100000))";
  for (int i = 1; i < 900; ++i) {
    sql += ", c" + std::to_string(i) + " AS (SELECT x + 1 - 1 AS x FROM c" + std::to_string(i - 1) + ")";
  }
  RunResult result = RunScript(dir, sql + " SELECT sum(x) AS s FROM c899");
  EXPECT_EQ(result.signal, 0);
  ASSERT_EQ(result.exit_code, 0) << result.err.substr(0, 500);
  EXPECT_EQ(result.out, "s\n4999950000\n");
}

// A statement nested `depth` levels deep in one way.
struct Nesting {
  const char* kind;
  std::function<std::string(int)> sql;
};

std::vector<Nesting> Nestings() {
  return {
      {"parentheses", [](int n) { return "SELECT " + Repeat("(", n) + "1" + Repeat(")", n); }},
      {"arithmetic chain", [](int n) { return "SELECT 1" + Repeat(" + 1", n); }},
      {"unary minus", [](int n) { return "SELECT " + Repeat("-(", n) + "1" + Repeat(")", n); }},
      {"NOT", [](int n) { return "SELECT " + Repeat("NOT ", n) + "true"; }},
      {"AND chain", [](int n) { return "SELECT true" + Repeat(" AND true", n); }},
      {"string concatenation", [](int n) { return "SELECT 'a'" + Repeat(" || 'a'", n); }},
      {"function calls", [](int n) { return "SELECT " + Repeat("abs(", n) + "1" + Repeat(")", n); }},
      {"CASE", [](int n) { return "SELECT " + Repeat("CASE WHEN true THEN ", n) + "1" + Repeat(" END", n); }},
      {"struct fields",
       [](int n) { return "SELECT " + Repeat("named_struct('f', ", n) + "1" + Repeat(")", n) + Repeat(".f", n); }},
      {"scalar subqueries", [](int n) { return "SELECT " + Repeat("(SELECT ", n) + "1" + Repeat(")", n); }},
      {"IN subqueries",
       [](int n) { return "SELECT 1" + Repeat(" WHERE 1 IN (SELECT 1", n) + Repeat(")", n); }},
      {"EXISTS subqueries",
       [](int n) { return "SELECT 1" + Repeat(" WHERE EXISTS (SELECT 1", n) + Repeat(")", n); }},
      {"derived tables",
       [](int n) { return "SELECT * FROM " + Repeat("(SELECT * FROM ", n) + "range(1)" + Repeat(") AS t", n); }},
      {"UNION ALL chain", [](int n) { return "SELECT count(*) FROM (SELECT 1" + Repeat(" UNION ALL SELECT 1", n) + ")"; }},
      {"JOIN chain",
       [](int n) {
         std::string sql = "SELECT count(*) FROM range(1) AS t0";
         for (int i = 1; i <= n; ++i) sql += " JOIN range(1) AS t" + std::to_string(i) + " ON true";
         return sql;
       }},
      {"comma joins",
       [](int n) {
         std::string sql = "SELECT count(*) FROM range(1) AS t0";
         for (int i = 1; i <= n; ++i) sql += ", range(1) AS t" + std::to_string(i);
         return sql;
       }},
      {"LATERAL VIEW chain",
       [](int n) {
         std::string sql = "SELECT count(*) FROM range(1)";
         for (int i = 1; i <= n; ++i) {
           sql += " LATERAL VIEW explode(array(1)) t" + std::to_string(i) + " AS c" + std::to_string(i);
         }
         return sql;
       }},
  };
}

TEST(RobustnessTest, DeepNestingOfEveryKindRunsOrFailsWithAClass) {
  for (const Nesting& nesting : Nestings()) {
    for (int depth : {200, 5000}) {
      SCOPED_TRACE(std::string(nesting.kind) + " " + std::to_string(depth) + " deep");
      test::TempDir dir;
      RunResult result = RunScript(dir, nesting.sql(depth));
      EXPECT_EQ(result.signal, 0);
      if (depth == 200) {
        EXPECT_EQ(result.exit_code, 0) << result.err.substr(0, 300);
      } else {
        EXPECT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.exit_code;
        if (result.exit_code == 1) {
          EXPECT_TRUE(StartsWith(result.err, "[PARSE_NESTING_TOO_DEEP] ") ||
                      StartsWith(result.err, "[STATEMENT_TOO_COMPLEX] "))
              << result.err.substr(0, 300);
        }
      }
    }
  }
}

// ---- byte-order marks ----

TEST(RobustnessTest, LeadingByteOrderMarkIsSkipped) {
  test::TempDir dir;
  RunResult inline_sql = RunSilt("sql --format csv --warehouse " + dir.Child("warehouse") + " -e \"$(printf '\\357\\273\\277SELECT 1 AS one')\"");
  ASSERT_EQ(inline_sql.exit_code, 0) << inline_sql.err;
  EXPECT_EQ(inline_sql.out, "one\n1\n");

  RunResult script = RunScript(dir, "\xEF\xBB\xBF-- a script saved with a byte-order mark\nSELECT 2 AS two;\n");
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(script.out, "two\n2\n");

  // Only a leading mark is invisible: anywhere else it is still a syntax error.
  RunResult inside = RunScript(dir, "SELECT \xEF\xBB\xBF 3");
  EXPECT_EQ(inside.exit_code, 1);
  EXPECT_TRUE(StartsWith(inside.err, "[PARSE_SYNTAX_ERROR] ")) << inside.err;
}

// ---- deeply nested types ----

std::string NestedStruct(int depth) { return Repeat("STRUCT<a: ", depth) + "INT" + Repeat(">", depth); }

TEST(RobustnessTest, TooDeeplyNestedTypesAreRefusedBeforeAnythingIsWritten) {
  test::TempDir dir;
  RunResult deep = RunScript(dir, "CREATE TABLE t (c " + NestedStruct(300) + ")");
  EXPECT_EQ(deep.exit_code, 1) << deep.err;
  EXPECT_TRUE(StartsWith(deep.err, "[DATATYPE_NESTING_TOO_DEEP] ")) << deep.err;
  RunResult after = RunScript(dir, "SHOW TABLES");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out.find("\nt\n"), std::string::npos) << after.out;
  EXPECT_EQ(after.out.find(",t,"), std::string::npos) << after.out;

  RunResult arrays = RunScript(dir, "CREATE TABLE t2 (c " + Repeat("ARRAY<", 65) + "INT" + Repeat(">", 65) + ")");
  EXPECT_EQ(arrays.exit_code, 1) << arrays.err;
  EXPECT_TRUE(StartsWith(arrays.err, "[DATATYPE_NESTING_TOO_DEEP] ")) << arrays.err;

  // A query that builds such a value cannot become a table either.
  std::string value = Repeat("named_struct('a', ", 70) + "1" + Repeat(")", 70);
  RunResult ctas = RunScript(dir, "CREATE TABLE t3 AS SELECT " + value + " AS c");
  EXPECT_EQ(ctas.exit_code, 1) << ctas.err;
  EXPECT_TRUE(StartsWith(ctas.err, "[DATATYPE_NESTING_TOO_DEEP] ")) << ctas.err;

  // The deepest supported type round-trips through the log.
  RunResult ok = RunScript(dir, "CREATE TABLE t4 (c " + NestedStruct(64) + ");\nSELECT count(*) AS n FROM t4;");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "n\n0\n");
}

// ---- damaged Parquet and statistics ----

// A file of ids 1..`rows` written by silt.
void WriteIds(const std::string& path, int rows) {
  auto schema = std::make_shared<Schema>(std::vector<Field>{{"id", LongType(), false, {}}});
  VectorBuilder ids(LongType());
  for (int i = 1; i <= rows; ++i) ids.AppendInt(i);
  auto fs = io::MakeLocalFileSystem();
  auto writer = parquet::FileWriter::Open(fs->OpenWrite(path), *schema);
  writer->Write(Batch(schema, {ids.Finish()}, rows));
  writer->Close();
}

// Rewrites the footer of the Parquet file at `path` after `change`.
void ChangeFooter(const std::string& path, const std::function<void(parquet::FileMetaData&)>& change) {
  std::string file = ReadFileText(path);
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  size_t start = file.size() - 8 - length;
  parquet::FileMetaData metadata =
      parquet::DecodeFileMetaData(reinterpret_cast<const uint8_t*>(file.data()) + start, length);
  change(metadata);
  std::string footer;
  parquet::EncodeFileMetaData(metadata, &footer);
  auto new_length = static_cast<uint32_t>(footer.size());
  std::string out = file.substr(0, start) + footer;
  out.append(reinterpret_cast<const char*>(&new_length), 4);
  WriteFileText(path, out + "PAR1");
}

TEST(RobustnessTest, FooterWithoutItsRowGroupsIsCorrupt) {
  test::TempDir dir;
  std::string path = dir.Child("ids.parquet");
  WriteIds(path, 10);
  ChangeFooter(path, [](parquet::FileMetaData& metadata) { metadata.row_groups.clear(); });
  RunResult cat = RunSilt("parquet cat " + path);
  EXPECT_EQ(cat.exit_code, 4) << cat.out;
  EXPECT_TRUE(StartsWith(cat.err, "[PARQUET_CORRUPT_FILE] ")) << cat.err;
  RunResult query = RunScript(dir, "SELECT count(*) FROM parquet.`" + path + "`");
  EXPECT_EQ(query.exit_code, 4) << query.out;
  EXPECT_TRUE(StartsWith(query.err, "[PARQUET_CORRUPT_FILE] ")) << query.err;
}

TEST(RobustnessTest, InconsistentStatisticsNeverSkipRows) {
  test::TempDir dir;
  std::string path = dir.Child("ids.parquet");
  WriteIds(path, 10);
  ChangeFooter(path, [](parquet::FileMetaData& metadata) {
    parquet::Statistics& stats = *metadata.row_groups[0].columns[0].meta_data->statistics;
    int64_t min = 100, max = 1;  // min above max
    stats.min_value = std::string(reinterpret_cast<const char*>(&min), 8);
    stats.max_value = std::string(reinterpret_cast<const char*>(&max), 8);
  });
  RunResult parquet = RunScript(dir, "SELECT count(*) AS n FROM parquet.`" + path + "` WHERE id = 5");
  ASSERT_EQ(parquet.exit_code, 0) << parquet.err;
  EXPECT_EQ(parquet.out, "n\n1\n");

  // The same in a Delta table's file statistics, which data skipping reads from the log.
  RunResult created = RunScript(dir, "CREATE TABLE t (id BIGINT); INSERT INTO t SELECT id FROM range(1, 11);");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string commit = dir.Child("warehouse") + "/t/_delta_log/00000000000000000001.json";
  std::string log = ReadFileText(commit);
  std::regex min_value(R"(\\"minValues\\":\{\\"id\\":1\})");
  ASSERT_TRUE(std::regex_search(log, min_value)) << log;
  WriteFileText(commit, std::regex_replace(log, min_value, R"(\"minValues\":{\"id\":100})"));
  RunResult delta = RunScript(dir, "SELECT count(*) AS n FROM t WHERE id = 5");
  ASSERT_EQ(delta.exit_code, 0) << delta.err;
  EXPECT_EQ(delta.out, "n\n1\n");
  RunResult deleted = RunScript(dir, "DELETE FROM t WHERE id = 5; SELECT count(*) AS n FROM t;");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_TRUE(deleted.out.ends_with("\nn\n9\n")) << deleted.out;
}

}  // namespace
}  // namespace silt
