#include "silt/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"

namespace silt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A cell as CSV writes it: NULL as nothing, the empty string as "", quoted when it holds a
// comma, a quote or a line break.
std::string CsvCell(const Row& row, size_t column) {
  if (row.IsNull(column)) return "";
  std::string text = row.ToString(column);
  if (!text.empty() && text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// The rows of a result as CSV lines without the header.
std::vector<std::string> Rows(const Result& result) {
  std::vector<std::string> lines;
  for (const Row& row : result) {
    std::string line;
    for (size_t column = 0; column < row.size(); ++column) {
      if (column > 0) line += ',';
      line += CsvCell(row, column);
    }
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> ColumnNames(const Result& result) {
  std::vector<std::string> names;
  for (const ColumnInfo& column : result.columns()) names.push_back(column.name);
  return names;
}

class SessionTest : public ::testing::Test {
 protected:
  std::string ErrorClassOf(std::string_view sql) {
    try {
      session_->Execute(sql);
    } catch (const Error& error) {
      return std::string(error.error_class());
    }
    return "no error";
  }

  std::vector<std::string> Query(std::string_view sql) { return Rows(session_->Execute(sql)); }

  int64_t LatestVersion(const std::string& table) {
    std::string location = io::JoinPath(warehouse_, table);
    return log::Snapshot::Load(io::MakeLocalFileSystem(), location)->version();
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  std::unique_ptr<Session> session_ = std::make_unique<Session>(SessionOptions{warehouse_, {}});
};

TEST_F(SessionTest, CreateInsertSelectAndPersistence) {
  session_->Execute(
      "CREATE TABLE t (id BIGINT NOT NULL, name STRING COMMENT 'the name', part STRING) "
      "USING delta PARTITIONED BY (part); "
      "INSERT INTO t VALUES (1, 'a', 'x'), (2, 'b', 'y'); "
      "INSERT INTO t (part, id) VALUES ('x', 3)");
  EXPECT_THAT(Query("SELECT id, name, part FROM t ORDER BY id"),
              ElementsAre("1,a,x", "2,b,y", "3,,x"));
  // A second session over the same warehouse sees the table.
  Session other(SessionOptions{warehouse_, {}});
  EXPECT_THAT(Rows(other.Execute("SELECT count(*) FROM default.t")), ElementsAre("3"));
  EXPECT_THAT(Rows(other.Execute("SELECT count(*) FROM spark_catalog.default.t WHERE part = 'x'")),
              ElementsAre("2"));
  EXPECT_THAT(Query("SHOW TABLES"), ElementsAre("default,t,false"));
  EXPECT_EQ(ErrorClassOf("CREATE TABLE t (a INT)"), "TABLE_OR_VIEW_ALREADY_EXISTS");
  session_->Execute("CREATE TABLE IF NOT EXISTS t (a INT)");
  EXPECT_EQ(ErrorClassOf("SELECT * FROM nope"), "TABLE_OR_VIEW_NOT_FOUND");
}

// A result collected whole counts against the memory limit: one larger than the limit fails
// with the limit's class, while the same rows streamed, or summed, need no more than a batch.
TEST_F(SessionTest, CollectedResultCountsAgainstTheMemoryLimit) {
  session_->Execute("SET silt.memory.limit = '16MB'");
  const std::string rows = "SELECT id, repeat('x', 100) AS padding FROM range(1000000)";
  EXPECT_EQ(ErrorClassOf(rows), "EXEC_MEMORY_LIMIT_EXCEEDED");
  ResultStream stream = session_->ExecuteStream(rows);
  int64_t streamed = 0;
  while (std::optional<Result> batch = stream.Next())
    streamed += static_cast<int64_t>(batch->num_rows());
  EXPECT_EQ(streamed, 1000000);
  EXPECT_THAT(Query("SELECT count(*), sum(length(padding)) FROM (" + rows + ")"),
              ElementsAre("1000000,100000000"));
  session_->Execute("RESET silt.memory.limit");
  EXPECT_THAT(Rows(session_->Execute(rows)), ::testing::SizeIs(1000000));
}

TEST_F(SessionTest, InsertOverwriteAndReplaceWhere) {
  session_->Execute(
      "CREATE TABLE t (id INT, v STRING); "
      "INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')");
  session_->Execute("INSERT INTO t REPLACE WHERE id >= 3 VALUES (3, 'C'), (5, 'E')");
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ElementsAre("1,a", "2,b", "3,C", "5,E"));
  int64_t version = LatestVersion("t");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t REPLACE WHERE id >= 3 VALUES (1, 'x')"),
            "DELTA_REPLACE_WHERE_MISMATCH");
  EXPECT_EQ(LatestVersion("t"), version);
  session_->Execute("INSERT OVERWRITE t SELECT id * 10, v FROM t WHERE id < 3");
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ElementsAre("10,a", "20,b"));
  auto history = session_->Execute("DESCRIBE HISTORY t");
  EXPECT_THAT(
      ColumnNames(history),
      ElementsAre("version", "timestamp", "userId", "userName", "operation", "operationParameters",
                  "job", "notebook", "clusterId", "readVersion", "isolationLevel", "isBlindAppend",
                  "operationMetrics", "userMetadata", "engineInfo"));
  // CREATE, INSERT, REPLACE WHERE, OVERWRITE: the failed statement left no commit.
  ASSERT_EQ(history.num_rows(), 4);
  Row newest = history.row(0);
  EXPECT_EQ(newest.GetInt64(0), 3);
  EXPECT_EQ(newest.GetString(4), "WRITE");
  EXPECT_EQ(newest.ToString(5), "{mode -> Overwrite, partitionBy -> []}");
  EXPECT_EQ(history.row(1).GetString(4), "WRITE");
  EXPECT_THAT(history.row(1).ToString(5), HasSubstr("predicate -> [\"(id >= 3)\"]"));
}

TEST_F(SessionTest, StoreAssignmentErrors) {
  session_->Execute("CREATE TABLE t (a INT NOT NULL, b STRING)");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (1)"), "INSERT_COLUMN_ARITY_MISMATCH");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (1, 'x', 2)"), "DELTA_METADATA_MISMATCH");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES ('x', 'y')"), "INCOMPATIBLE_DATA_FOR_TABLE");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (3000000000, 'y')"),
            "CAST_OVERFLOW_IN_TABLE_INSERT");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (NULL, 'y')"), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t (b) VALUES ('y')"), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t (zz, b) VALUES (1, 'y')"), "UNRESOLVED_COLUMN");
  // Implicit widening and numbers to strings are allowed.
  session_->Execute("INSERT INTO t VALUES (CAST(7 AS SMALLINT), 42)");
  EXPECT_THAT(Query("SELECT * FROM t"), ElementsAre("7,42"));
  // Only the successful INSERT committed (version 0 = CREATE, 1 = the insert).
  EXPECT_EQ(LatestVersion("t"), 1);
}

TEST_F(SessionTest, CheckConstraintsAndGeneratedColumns) {
  session_->Execute(
      "CREATE TABLE t (id INT, doubled INT GENERATED ALWAYS AS (id * 2), "
      "CONSTRAINT positive CHECK (id > 0))");
  session_->Execute("INSERT INTO t (id) VALUES (1), (2)");
  session_->Execute("INSERT INTO t VALUES (3, 6)");
  session_->Execute("INSERT INTO t VALUES (4)");
  EXPECT_THAT(Query("SELECT * FROM t ORDER BY id"), ElementsAre("1,2", "2,4", "3,6", "4,8"));
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (5, 11)"), "DELTA_GENERATED_COLUMN_VALUE_MISMATCH");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t (id) VALUES (-1)"), "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t (id) VALUES (NULL)"),
            "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES");
  EXPECT_THAT(Query("SHOW TBLPROPERTIES t (delta.constraints.positive)"),
              ElementsAre("delta.constraints.positive,id > 0"));

  EXPECT_EQ(ErrorClassOf("ALTER TABLE t ADD CONSTRAINT small CHECK (id < 3)"),
            "DELTA_NEW_CHECK_CONSTRAINT_VIOLATION");
  session_->Execute("ALTER TABLE t ADD CONSTRAINT small CHECK (id < 100)");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t ADD CONSTRAINT small CHECK (id < 5)"),
            "DELTA_CONSTRAINT_ALREADY_EXISTS");
  session_->Execute("ALTER TABLE t DROP CONSTRAINT small");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t DROP CONSTRAINT small"), "DELTA_CONSTRAINT_DOES_NOT_EXIST");
  session_->Execute("ALTER TABLE t DROP CONSTRAINT IF EXISTS small");
  Result recent = session_->Execute("DESCRIBE HISTORY t LIMIT 2");
  ASSERT_EQ(recent.num_rows(), 2);
  EXPECT_EQ(recent.row(1).GetString(4), "DROP CONSTRAINT");
  EXPECT_EQ(recent.row(1).ToString(5), "{constraint -> small, expr -> id < 100}");
}

TEST_F(SessionTest, AlterTableCommitsWithSparkOperationNames) {
  session_->Execute(
      "CREATE TABLE t (a INT) TBLPROPERTIES ('delta.appendOnly' = 'false', 'x.y' = '1'); "
      "ALTER TABLE t SET TBLPROPERTIES ('x.y' = '2', 'z' = 'q'); "
      "ALTER TABLE t UNSET TBLPROPERTIES ('z'); "
      "ALTER TABLE t ADD COLUMNS (b STRING COMMENT 'bee')");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t UNSET TBLPROPERTIES ('nope')"),
            "DELTA_UNSET_NON_EXISTENT_PROPERTY");
  session_->Execute("ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('nope')");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE t ADD COLUMNS (A INT)"), "COLUMN_ALREADY_EXISTS");
  auto history = session_->Execute("DESCRIBE HISTORY t");
  std::vector<std::string> operations;
  for (const Row& row : history)
    operations.push_back(row.GetString(history.ColumnIndex("operation")));
  EXPECT_THAT(operations, ElementsAre("UNSET TBLPROPERTIES", "ADD COLUMNS", "UNSET TBLPROPERTIES",
                                      "SET TBLPROPERTIES", "CREATE TABLE"));
  auto limited = session_->Execute("DESCRIBE HISTORY t LIMIT 1");
  EXPECT_EQ(limited.num_rows(), 1);
  EXPECT_THAT(Query("DESCRIBE t"), ElementsAre("a,int,", "b,string,bee"));
  EXPECT_THAT(Query("SHOW TBLPROPERTIES t"),
              ElementsAre("delta.appendOnly,false", "delta.minReaderVersion,1",
                          "delta.minWriterVersion,2", "x.y,2"));
  EXPECT_THAT(Query("SHOW COLUMNS IN t"), ElementsAre("a", "b"));
}

TEST_F(SessionTest, DescribeDetailAndExtended) {
  session_->Execute(
      "CREATE TABLE t (id INT, p STRING) PARTITIONED BY (p) COMMENT 'tbl'; "
      "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  auto detail = session_->Execute("DESCRIBE DETAIL t");
  EXPECT_THAT(
      ColumnNames(detail),
      ElementsAre("format", "id", "name", "description", "location", "createdAt", "lastModified",
                  "partitionColumns", "clusteringColumns", "numFiles", "sizeInBytes", "properties",
                  "minReaderVersion", "minWriterVersion", "tableFeatures", "statistics"));
  ASSERT_EQ(detail.num_rows(), 1);
  Row row = detail.row(0);
  EXPECT_EQ(row.GetString(0), "delta");
  EXPECT_EQ(row.GetString(2), "spark_catalog.default.t");
  EXPECT_EQ(row.GetString(3), "tbl");
  EXPECT_EQ(row.ToString(7), "[p]");
  EXPECT_EQ(row.GetInt64(9), 2);
  EXPECT_THAT(Query("DESCRIBE t"),
              ElementsAre("id,int,", "p,string,", "# Partition Information,\"\",\"\"",
                          "# col_name,data_type,comment", "p,string,"));
  std::vector<std::string> extended = Query("DESCRIBE EXTENDED t");
  EXPECT_THAT(extended, ::testing::Contains("# Detailed Table Information,\"\",\"\""));
  EXPECT_THAT(extended, ::testing::Contains("Type,MANAGED,\"\""));
  EXPECT_THAT(extended, ::testing::Contains("Provider,delta,\"\""));
}

TEST_F(SessionTest, CtasReplaceAndSessionDefaults) {
  session_->Execute("SET spark.databricks.delta.properties.defaults.enableChangeDataFeed = true");
  session_->Execute("CREATE TABLE src AS SELECT id, CAST(id AS STRING) AS s FROM range(3)");
  EXPECT_THAT(Query("SELECT * FROM src ORDER BY id"), ElementsAre("0,0", "1,1", "2,2"));
  EXPECT_THAT(Query("SHOW TBLPROPERTIES src (delta.enableChangeDataFeed)"),
              ElementsAre("delta.enableChangeDataFeed,true"));
  session_->Execute("RESET");
  session_->Execute("CREATE OR REPLACE TABLE src (x INT)");
  EXPECT_THAT(Query("SELECT count(*) FROM src"), ElementsAre("0"));
  EXPECT_THAT(Query("DESCRIBE src"), ElementsAre("x,int,"));
  EXPECT_EQ(ErrorClassOf("CREATE TABLE bad (a INT) USING parquet"), "UNSUPPORTED_FILE_FORMAT");
  EXPECT_EQ(ErrorClassOf("CREATE TABLE bad (a INT) PARTITIONED BY (zz)"),
            "DELTA_PARTITION_COLUMN_NOT_FOUND");
  EXPECT_THAT(Query("SHOW TABLES"), ElementsAre("default,src,false"));
}

TEST_F(SessionTest, DatabasesViewsAndExternalTables) {
  std::string external = io::JoinPath(folder_.path(), "ext_table");
  session_->Execute("CREATE DATABASE sales; USE sales; CREATE TABLE orders (id INT) LOCATION '" +
                    external + "'; INSERT INTO orders VALUES (7)");
  EXPECT_THAT(Query("SHOW DATABASES"), ElementsAre("default", "sales"));
  EXPECT_THAT(Query("SHOW TABLES IN sales"), ElementsAre("sales,orders,false"));
  EXPECT_THAT(Query("SELECT * FROM delta.`" + external + "`"), ElementsAre("7"));
  session_->Execute("CREATE TEMP VIEW v AS SELECT id + 1 AS n FROM orders");
  EXPECT_THAT(Query("SELECT * FROM v"), ElementsAre("8"));
  EXPECT_THAT(Query("SHOW TABLES LIKE 'v|ord*'"), ElementsAre("sales,orders,false", "\"\",v,true"));
  EXPECT_EQ(ErrorClassOf("INSERT INTO v VALUES (1)"), "EXPECT_TABLE_NOT_VIEW");
  EXPECT_EQ(ErrorClassOf("CREATE TEMP VIEW v AS SELECT 1"), "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS");
  session_->Execute("CREATE OR REPLACE TEMP VIEW v AS SELECT 2 AS n");
  EXPECT_THAT(Query("SELECT * FROM v"), ElementsAre("2"));
  session_->Execute("DROP VIEW v");
  EXPECT_EQ(ErrorClassOf("DROP VIEW v"), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf("DROP DATABASE sales"), "SCHEMA_NOT_EMPTY");
  session_->Execute("DROP TABLE orders");
  // External data survives DROP TABLE.
  EXPECT_THAT(Query("SELECT * FROM delta.`" + external + "`"), ElementsAre("7"));
  // A new name over the existing location adopts the table; a different schema is refused.
  EXPECT_EQ(ErrorClassOf("CREATE TABLE default.wrong (x STRING) LOCATION '" + external + "'"),
            "DELTA_CREATE_TABLE_SCHEME_MISMATCH");
  EXPECT_EQ(ErrorClassOf("CREATE TABLE default.ctas LOCATION '" + external + "' AS SELECT 1 AS id"),
            "TABLE_OR_VIEW_ALREADY_EXISTS");
  session_->Execute("CREATE TABLE default.again LOCATION '" + external + "'");
  EXPECT_THAT(Query("SELECT * FROM default.again"), ElementsAre("7"));
  session_->Execute("DROP DATABASE sales");
  EXPECT_EQ(ErrorClassOf("USE sales"), "SCHEMA_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf("DROP TABLE nope"), "TABLE_OR_VIEW_NOT_FOUND");
  session_->Execute("DROP TABLE IF EXISTS nope");
  EXPECT_EQ(ErrorClassOf("CREATE DATABASE default"), "SCHEMA_ALREADY_EXISTS");
}

TEST_F(SessionTest, SetResetExplainAndUnsupported) {
  EXPECT_THAT(Query("SET spark.sql.ansi.enabled"), ElementsAre("spark.sql.ansi.enabled,true"));
  session_->Execute("SET my.key = v1");
  EXPECT_EQ(session_->GetConf("my.key"), "v1");
  EXPECT_THAT(Query("SET"), ElementsAre("my.key,v1"));
  EXPECT_THAT(Query("SET my.key"), ElementsAre("my.key,v1"));
  session_->Execute("RESET my.key");
  EXPECT_EQ(session_->GetConf("my.key"), std::nullopt);
  EXPECT_EQ(ErrorClassOf("SET spark.sql.ansi.enabled = maybe"), "INVALID_CONFIGURATION");
  EXPECT_EQ(ErrorClassOf("SET spark.sql.session.timeZone = +99:99"), "INVALID_CONF_VALUE");
  EXPECT_EQ(session_->GetConf("spark.sql.session.timeZone"), std::nullopt);
  auto explain = session_->Execute("EXPLAIN SELECT 1");
  EXPECT_THAT(ColumnNames(explain), ElementsAre("plan"));
  EXPECT_THAT(Rows(explain)[0], HasSubstr("== Physical Plan =="));
  session_->Execute("CREATE TABLE t (a INT)");
  // Delta needs the allowColumnDefaults feature before a column may have a DEFAULT.
  EXPECT_EQ(ErrorClassOf("CREATE TABLE d (a INT DEFAULT 1)"), "WRONG_COLUMN_DEFAULTS_FOR_DELTA_FEATURE_NOT_ENABLED");
  // A permanent view needs a name for each computed column, as in Spark.
  EXPECT_EQ(ErrorClassOf("CREATE VIEW pv AS SELECT a + 1 FROM t"), "CREATE_PERMANENT_VIEW_WITHOUT_ALIAS");
  // A parse error anywhere runs nothing.
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (1); SELEC"), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ErrorClassOf(""), "PARSE_EMPTY_STATEMENT");
  EXPECT_EQ(ErrorClassOf(" -- nothing"), "PARSE_EMPTY_STATEMENT");
  EXPECT_THAT(Query("SELECT count(*) FROM t"), ElementsAre("0"));
}

TEST_F(SessionTest, FailedStatementsCommitNothing) {
  session_->Execute("CREATE TABLE t (a INT, b STRING); INSERT INTO t VALUES (1, NULL)");
  EXPECT_THAT(Query("SELECT a, b IS NULL FROM t"), ElementsAre("1,true"));
  // The query fails while running (division by zero under ANSI): no table, no commit.
  EXPECT_EQ(ErrorClassOf("CREATE TABLE c AS SELECT 1 / 0 AS x"), "DIVIDE_BY_ZERO");
  EXPECT_EQ(ErrorClassOf("SELECT * FROM c"), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf("INSERT INTO t SELECT a / 0, b FROM t"), "DIVIDE_BY_ZERO");
  EXPECT_EQ(ErrorClassOf("INSERT OVERWRITE t VALUES ('no', 'x')"), "INCOMPATIBLE_DATA_FOR_TABLE");
  EXPECT_EQ(LatestVersion("t"), 1);
  EXPECT_THAT(Query("SELECT count(*) FROM t"), ElementsAre("1"));
  // Statements before a failing one stay committed.
  EXPECT_EQ(ErrorClassOf("INSERT INTO t VALUES (2, 'x'); INSERT INTO t VALUES ('bad', 'y')"),
            "INCOMPATIBLE_DATA_FOR_TABLE");
  EXPECT_THAT(Query("SELECT a FROM t ORDER BY a"), ElementsAre("1", "2"));
}

TEST_F(SessionTest, PathTablesAndWrongKinds) {
  std::string path = io::JoinPath(folder_.path(), "by_path");
  session_->Execute("CREATE TABLE delta.`" + path + "` (a INT); INSERT INTO delta.`" + path +
                    "` VALUES (5)");
  EXPECT_THAT(Query("SELECT * FROM delta.`" + path + "`"), ElementsAre("5"));
  EXPECT_EQ(Query("DESCRIBE HISTORY delta.`" + path + "`").size(), 2u);
  EXPECT_EQ(ErrorClassOf("SELECT * FROM delta.`" + folder_.path() + "/nothing`"),
            "DELTA_MISSING_DELTA_TABLE");
  session_->Execute("CREATE TEMP VIEW v AS SELECT 1 AS one");
  EXPECT_EQ(ErrorClassOf("DESCRIBE HISTORY v"), "EXPECT_TABLE_NOT_VIEW");
  EXPECT_EQ(ErrorClassOf("ALTER TABLE v SET TBLPROPERTIES ('a' = 'b')"), "EXPECT_TABLE_NOT_VIEW");
  EXPECT_THAT(Query("DESCRIBE v"), ElementsAre("one,int,"));
  EXPECT_EQ(ErrorClassOf("CREATE TABLE x.y (a INT)"), "SCHEMA_NOT_FOUND");
}

TEST_F(SessionTest, WarehouseFromOptionsEnvironmentOrDefault) {
  EXPECT_EQ(session_->warehouse(), warehouse_);
  std::string from_environment = io::JoinPath(folder_.path(), "env-warehouse");
  ::setenv("SILT_WAREHOUSE", from_environment.c_str(), 1);
  Session by_environment(SessionOptions{"", {{"spark.sql.session.timeZone", "+01:00"}}});
  ::unsetenv("SILT_WAREHOUSE");
  EXPECT_EQ(by_environment.warehouse(), from_environment);
  EXPECT_EQ(by_environment.GetConf("spark.sql.session.timeZone"), "+01:00");
  by_environment.Execute("CREATE TABLE t (a INT)");
  EXPECT_FALSE(
      io::MakeLocalFileSystem()->List(io::JoinPath(from_environment, "t/_delta_log")).empty());
  Session by_default;
  EXPECT_EQ(by_default.warehouse(), "silt-warehouse");
}

TEST_F(SessionTest, ShowCreateTable) {
  session_->Execute(
      "CREATE TABLE t (id INT NOT NULL, s STRING COMMENT 'c', g INT GENERATED ALWAYS AS (id + 1), "
      "CONSTRAINT pos CHECK (id > 0)) PARTITIONED BY (s)");
  Result output = session_->Execute("SHOW CREATE TABLE t");
  ASSERT_EQ(output.num_rows(), 1);
  std::vector<std::string> text = {output.row(0).GetString(0)};
  EXPECT_THAT(text[0], HasSubstr("CREATE TABLE spark_catalog.default.t ("));
  EXPECT_THAT(text[0], HasSubstr("id INT NOT NULL"));
  EXPECT_THAT(text[0], HasSubstr("g INT GENERATED ALWAYS AS (id + 1)"));
  EXPECT_THAT(text[0], HasSubstr("CONSTRAINT pos CHECK (id > 0)"));
  EXPECT_THAT(text[0], HasSubstr("PARTITIONED BY (s)"));
}

}  // namespace
}  // namespace silt
