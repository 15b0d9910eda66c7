// The SQL logic tests: one test case per test/sql/**/*.test file, named by its path relative to
// test/sql without the extension (run one with --gtest_filter='SqlLogic.shell/runner_selfcheck'),
// plus checks of the runner itself.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "silt/vector/vector.h"
#include "sqllogic/sqllogic_runner.h"
#include "support/azurite_test_server.h"
#include "support/s3_test_server.h"

namespace silt::sqllogic {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

// The folder of .test files: $SILT_SQL_TEST_DIR, else the source tree's test/sql.
std::string TestRoot() {
  const char* root = std::getenv("SILT_SQL_TEST_DIR");
  return root != nullptr && *root != '\0' ? root : SILT_SQL_TEST_DIR;
}

class SqlLogicFileTest : public ::testing::Test {
 public:
  SqlLogicFileTest(std::string path, std::string name)
      : path_(std::move(path)), name_(std::move(name)) {}

  void TestBody() override {
    std::ifstream in(path_, std::ios::binary);
    ASSERT_TRUE(in) << "cannot read " << path_;
    std::stringstream text;
    text << in.rdbuf();
    std::optional<StorageLocation> location;
    if (on_azure_) {
      std::string why_not;
      test::AzuriteTestServer* server = test::AzuriteTestServer::Shared(&why_not);
      if (server == nullptr) GTEST_SKIP() << "no Azurite: " << why_not;
      location = StorageLocation{server->NewFolder("warehouse"), server->NewFolder("temp"),
                                 server->SessionSettings()};
    }
    if (on_s3_) {
      std::string why_not;
      test::S3TestServer* server = test::S3TestServer::Shared(&why_not);
      if (server == nullptr) GTEST_SKIP() << "no S3 test server: " << why_not;
      location = StorageLocation{server->NewFolder("warehouse"), server->NewFolder("temp"),
                                 server->SessionSettings()};
    }
    for (const std::string& failure :
         RunTestFile(text.str(), "test/sql/" + name_ + ".test", location)) {
      ADD_FAILURE() << failure;
    }
  }

  SqlLogicFileTest& OnS3() {
    on_s3_ = true;
    return *this;
  }

  SqlLogicFileTest& OnAzure() {
    on_azure_ = true;
    return *this;
  }

 private:
  std::string path_;
  std::string name_;
  bool on_s3_ = false;
  bool on_azure_ = false;
};

// Files that also run with their warehouse and ${TEMP} on the S3 test server and on Azurite:
// DML, MERGE, the change data feed, streaming tables, maintenance and time travel, the same
// files as on disk.
constexpr const char* kAlsoOnObjectStores[] = {
    "ddl/create_table",      "dml/insert",           "dml/delete",
    "dml/update",            "dml/insert_overwrite", "merge/clauses",
    "merge/change_data",     "merge/scenarios",      "cdf/operations",
    "cdf/read_forms",        "stream/streaming_table", "maintenance/vacuum",
    "maintenance/optimize",  "maintenance/convert",  "time_travel/version",
};

// Registers one test case per .test file, in path order, before main() runs the tests.
bool RegisterTestFiles() {
  std::filesystem::path root = TestRoot();
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) return false;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root, error)) {
    if (entry.is_regular_file() && entry.path().extension() == ".test") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  for (const std::filesystem::path& file : files) {
    std::string name = file.lexically_relative(root).replace_extension().generic_string();
    std::string path = file.string();
    ::testing::RegisterTest(
        "SqlLogic", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
        [path, name]() -> ::testing::Test* { return new SqlLogicFileTest(path, name); });
    if (std::find(std::begin(kAlsoOnObjectStores), std::end(kAlsoOnObjectStores), name) !=
        std::end(kAlsoOnObjectStores)) {
      ::testing::RegisterTest(
          "SqlLogicOnS3", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
          [path, name]() -> ::testing::Test* { return &(new SqlLogicFileTest(path, name))->OnS3(); });
      ::testing::RegisterTest(
          "SqlLogicOnAzure", name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
          [path, name]() -> ::testing::Test* {
            return &(new SqlLogicFileTest(path, name))->OnAzure();
          });
    }
  }
  return true;
}

[[maybe_unused]] const bool registered = RegisterTestFiles();

TEST(SqlLogicParseTest, ReadsEveryRecordKind) {
  std::vector<Record> records = ParseTestFile(
      "# a comment\n"
      "statement ok\n"
      "CREATE TABLE t (a INT,\n"
      "  b STRING)\n"
      "\n"
      "statement error UNRESOLVED_COLUMN\n"
      "SELECT c FROM t\n"
      "\n"
      "query error PARSE_SYNTAX_ERROR line 1, pos 7\n"
      "SELEC 1\n"
      "\n"
      "query ordered header\n"
      "SELECT a, b FROM t\n"
      "----\n"
      "a\tb\n"
      "1\tx\n"
      "#2\tNULL\n"
      "\n"
      "query\n"
      "SELECT a FROM t WHERE false\n"
      "----\n"
      "\n"
      "halt\n"
      "\n"
      "statement ok\n"
      "never parsed\n",
      "t.test");
  ASSERT_THAT(records, SizeIs(6));
  EXPECT_EQ(records[0].kind, RecordKind::kStatementOk);
  EXPECT_EQ(records[0].line, 2);
  EXPECT_EQ(records[0].sql, "CREATE TABLE t (a INT,\n  b STRING)");
  EXPECT_EQ(records[1].kind, RecordKind::kStatementError);
  EXPECT_EQ(records[1].error_class, "UNRESOLVED_COLUMN");
  EXPECT_EQ(records[1].error_text, "");
  EXPECT_EQ(records[2].kind, RecordKind::kStatementError);
  EXPECT_EQ(records[2].error_class, "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(records[2].error_text, "line 1, pos 7");
  EXPECT_EQ(records[3].kind, RecordKind::kQuery);
  EXPECT_TRUE(records[3].ordered);
  EXPECT_TRUE(records[3].header);
  // A '#' line among expected rows is a value, not a comment.
  EXPECT_THAT(records[3].expected, ElementsAre("a\tb", "1\tx", "#2\tNULL"));
  EXPECT_FALSE(records[4].ordered);
  EXPECT_FALSE(records[4].header);
  EXPECT_THAT(records[4].expected, IsEmpty());
  EXPECT_EQ(records[5].kind, RecordKind::kHalt);
}

TEST(SqlLogicParseTest, RejectsMalformedRecordsWithTheirLine) {
  auto problem = [](const std::string& text) {
    try {
      ParseTestFile(text, "bad.test");
    } catch (const std::runtime_error& error) {
      return std::string(error.what());
    }
    return std::string("parsed");
  };
  EXPECT_EQ(problem("\nstatment ok\nSELECT 1\n"), "bad.test:2: unknown record 'statment ok'");
  EXPECT_EQ(problem("query\nSELECT 1\n1\n"), "bad.test:1: a query needs '----' before its rows");
  EXPECT_EQ(problem("query sorted\nSELECT 1\n----\n1\n"),
            "bad.test:1: unknown query option 'sorted'");
  EXPECT_EQ(problem("statement error\nSELECT 1\n"),
            "bad.test:1: an error record needs an error class");
  EXPECT_EQ(problem("statement ok\n\nSELECT 1\n"), "bad.test:1: the record has no SQL");
  EXPECT_EQ(problem("statement ok\nSELECT 1\n----\n1\n"), "bad.test:3: '----' outside a query");
}

TEST(SqlLogicFormatTest, CellsUseSparkTextWithVisibleEmptyStringsAndEscapes) {
  VectorBuilder strings(StringType());
  strings.AppendString("");
  strings.AppendString("a\tb\nc");
  strings.AppendNull();
  strings.AppendString("plain");
  VectorPtr vector = strings.Finish();
  EXPECT_EQ(FormatCell(*vector, 0), "(empty)");
  EXPECT_EQ(FormatCell(*vector, 1), "a\\tb\\nc");
  EXPECT_EQ(FormatCell(*vector, 2), "NULL");
  EXPECT_EQ(FormatCell(*vector, 3), "plain");
}

TEST(SqlLogicRunTest, PassingFileHasNoFailures) {
  EXPECT_THAT(RunTestFile("statement ok\n"
                          "CREATE TABLE t (a INT, b STRING)\n"
                          "\n"
                          "statement ok\n"
                          "INSERT INTO t VALUES (2, ''), (1, 'x'), (3, NULL)\n"
                          "\n"
                          "query ordered header\n"
                          "SELECT a, b FROM t ORDER BY a\n"
                          "----\n"
                          "a\tb\n"
                          "1\tx\n"
                          "2\t(empty)\n"
                          "3\tNULL\n"
                          "\n"
                          "query error UNRESOLVED_COLUMN\n"
                          "SELECT c FROM t\n",
                          "pass.test"),
              IsEmpty());
}

TEST(SqlLogicRunTest, ReportsFileLineSqlExpectedAndActualRows) {
  std::vector<std::string> failures = RunTestFile(
      "statement ok\n"
      "CREATE TABLE t AS SELECT 1 AS a\n"
      "\n"
      "query ordered\n"
      "SELECT a + 1 FROM t\n"
      "----\n"
      "3\n",
      "wrong.test");
  ASSERT_THAT(failures, SizeIs(1));
  EXPECT_THAT(failures[0], HasSubstr("wrong.test:4: query results differ (ordered)"));
  EXPECT_THAT(failures[0], HasSubstr("SELECT a + 1 FROM t"));
  EXPECT_THAT(failures[0], HasSubstr("expected (1 lines):\n    3\n"));
  EXPECT_THAT(failures[0], HasSubstr("actual (1 lines):\n    2\n"));
}

TEST(SqlLogicRunTest, RowsortIgnoresOrderButOrderedDoesNot) {
  std::string query =
      "statement ok\n"
      "CREATE TABLE t AS SELECT * FROM VALUES (2), (1) AS v(a)\n"
      "\n"
      "query MODE\n"
      "SELECT a FROM t ORDER BY a DESC\n"
      "----\n"
      "1\n"
      "2\n";
  auto with_mode = [&](const std::string& mode) {
    std::string text = query;
    text.replace(text.find("MODE"), 4, mode);
    return text;
  };
  EXPECT_THAT(RunTestFile(with_mode("rowsort"), "sorted.test"), IsEmpty());
  EXPECT_THAT(RunTestFile(with_mode("ordered"), "ordered.test"), SizeIs(1));
}

TEST(SqlLogicRunTest, ReportsErrorMismatches) {
  std::vector<std::string> failures = RunTestFile(
      "statement error UNRESOLVED_COLUMN\n"
      "SELECT 1\n"
      "\n"
      "statement error UNRESOLVED_COLUMN\n"
      "SELEC 1\n"
      "\n"
      "statement error PARSE_SYNTAX_ERROR no such text\n"
      "SELEC 1\n"
      "\n"
      "statement ok\n"
      "SELECT * FROM missing_table\n",
      "errors.test");
  ASSERT_THAT(failures, SizeIs(4));
  EXPECT_THAT(failures[0], HasSubstr("errors.test:1: expected error UNRESOLVED_COLUMN, but it "
                                     "succeeded"));
  EXPECT_THAT(failures[1], HasSubstr("errors.test:4: expected error UNRESOLVED_COLUMN, got: "
                                     "[PARSE_SYNTAX_ERROR]"));
  EXPECT_THAT(failures[2], HasSubstr("errors.test:7: error message lacks 'no such text'"));
  EXPECT_THAT(failures[3], HasSubstr("errors.test:10: failed: [TABLE_OR_VIEW_NOT_FOUND]"));
}

TEST(SqlLogicRunTest, TempIsAFreshFolderAndHaltStops) {
  std::vector<std::string> failures = RunTestFile(
      "statement ok\n"
      "CREATE TABLE t (a INT) USING delta LOCATION '${TEMP}/t'\n"
      "\n"
      "statement ok\n"
      "INSERT INTO delta.`${TEMP}/t` VALUES (7)\n"
      "\n"
      "query\n"
      "SELECT a FROM t\n"
      "----\n"
      "7\n"
      "\n"
      "halt\n"
      "\n"
      "statement ok\n"
      "SELECT * FROM not_run\n",
      "temp.test");
  EXPECT_THAT(failures, IsEmpty());
}

}  // namespace
}  // namespace silt::sqllogic
