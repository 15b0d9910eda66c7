#include "silt/result.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"
#include "silt/session.h"

namespace silt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kMicrosPerDay = 86'400'000'000;

class ResultTest : public ::testing::Test {
 protected:
  io::TestingTemporaryFolder folder_;
  Session session_{SessionOptions{io::JoinPath(folder_.path(), "warehouse"), {}}};
};

TEST_F(ResultTest, TypedGettersReadEachType) {
  Result result = session_.Execute(
      "SELECT CAST(-1 AS TINYINT) AS b, CAST(300 AS SMALLINT) AS s, 70000 AS i, "
      "9000000000L AS l, CAST(1.5 AS FLOAT) AS f, 2.25D AS d, 'héllo' AS str, X'01FF' AS bin, "
      "true AS yes, DATE'2024-01-31' AS day, TIMESTAMP'2024-01-31 10:00:00' AS ts, "
      "CAST('2024-01-31 10:00:00.5' AS TIMESTAMP_NTZ) AS ntz, CAST(12.5 AS DECIMAL(5, 2)) AS dec, "
      "array(1, NULL) AS arr, named_struct('a', 1, 'b', 'x') AS st, map('k', 2) AS m");
  std::vector<std::string> types;
  for (const ColumnInfo& column : result.columns()) types.push_back(column.type);
  EXPECT_THAT(types,
              ElementsAre("tinyint", "smallint", "int", "bigint", "float", "double", "string",
                          "binary", "boolean", "date", "timestamp", "timestamp_ntz", "decimal(5,2)",
                          "array<int>", "struct<a:int,b:string>", "map<string,int>"));
  EXPECT_EQ(result.columns()[0], (ColumnInfo{"b", "tinyint", true}));
  ASSERT_EQ(result.num_rows(), 1);
  Row row = result.row(0);
  ASSERT_EQ(row.size(), 16u);
  EXPECT_EQ(row.GetInt64(0), -1);
  EXPECT_EQ(row.GetInt64(1), 300);
  EXPECT_EQ(row.GetInt64(2), 70000);
  EXPECT_EQ(row.GetInt64(3), 9'000'000'000);
  EXPECT_EQ(row.GetDouble(4), 1.5);
  EXPECT_EQ(row.GetDouble(5), 2.25);
  EXPECT_EQ(row.GetString(6), "héllo");
  EXPECT_EQ(row.GetString(7), std::string("\x01\xff", 2));
  EXPECT_TRUE(row.GetBool(8));
  EXPECT_EQ(row.GetDate(9), 19753);
  EXPECT_EQ(row.GetTimestamp(10), 19753 * kMicrosPerDay + 10 * 3'600'000'000);
  EXPECT_EQ(row.GetTimestamp(11), 19753 * kMicrosPerDay + 10 * 3'600'000'000 + 500'000);
  std::vector<std::string> text;
  for (size_t column = 0; column < row.size(); ++column) text.push_back(row.ToString(column));
  EXPECT_THAT(text,
              ElementsAre("-1", "300", "70000", "9000000000", "1.5", "2.25", "héllo", "[01 FF]",
                          "true", "2024-01-31", "2024-01-31 10:00:00", "2024-01-31 10:00:00.5",
                          "12.50", "[1, NULL]", "{1, x}", "{k -> 2}"));
  for (size_t column = 0; column < row.size(); ++column) EXPECT_FALSE(row.IsNull(column));
}

TEST_F(ResultTest, TimestampsShowInTheSessionZoneAndReadAsInstants) {
  session_.SetConf("spark.sql.session.timeZone", "America/New_York");
  Result result = session_.Execute("SELECT TIMESTAMP'2024-01-31 10:00:00' AS ts");
  // The literal is New York wall-clock time: 15:00 UTC.
  EXPECT_EQ(result.row(0).GetTimestamp(0), 19753 * kMicrosPerDay + 15 * 3'600'000'000);
  EXPECT_EQ(result.row(0).ToString(0), "2024-01-31 10:00:00");
  // A result keeps the zone of its statement.
  session_.SetConf("spark.sql.session.timeZone", "UTC");
  EXPECT_EQ(result.row(0).ToString(0), "2024-01-31 10:00:00");
  EXPECT_EQ(session_.Execute("SELECT TIMESTAMP'2024-01-31 10:00:00'").row(0).GetTimestamp(0),
            19753 * kMicrosPerDay + 10 * 3'600'000'000);
}

TEST_F(ResultTest, GettersRejectOtherTypesNullsAndMissingCells) {
  Result result = session_.Execute("SELECT 1 AS id, 'a' AS Name, CAST(NULL AS BIGINT) AS n");
  Row row = result.row(0);
  EXPECT_EQ(ErrorClassOf([&] { row.GetInt64(1); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.GetString(0); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.GetDouble(0); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.GetBool(0); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.GetDate(0); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.GetTimestamp(0); }), "INVALID_ARGUMENT");
  EXPECT_TRUE(row.IsNull(2));
  EXPECT_EQ(row.ToString(2), "NULL");
  EXPECT_EQ(ErrorClassOf([&] { row.GetInt64(2); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.IsNull(3); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { row.ToString(3); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { result.row(1); }), "INVALID_ARGUMENT");
  EXPECT_EQ(ErrorClassOf([&] { result.row(-1); }), "INVALID_ARGUMENT");
  try {
    row.GetInt64(1);
  } catch (const Error& error) {
    EXPECT_THAT(error.message(), HasSubstr("column 1 (Name, string)"));
  }
  EXPECT_EQ(result.ColumnIndex("name"), 1u);
  EXPECT_EQ(result.ColumnIndex("N"), 2u);
  EXPECT_EQ(ErrorClassOf([&] { result.ColumnIndex("nope"); }), "UNRESOLVED_COLUMN");
}

TEST_F(ResultTest, StatementsWithoutRowsAndEmptyQueries) {
  Result created = session_.Execute("CREATE TABLE t (a INT, b STRING)");
  EXPECT_FALSE(created.has_columns());
  EXPECT_TRUE(created.columns().empty());
  EXPECT_EQ(created.num_rows(), 0);
  EXPECT_TRUE(created.begin() == created.end());
  EXPECT_EQ(created.Show(), "");
  EXPECT_EQ(created.statement_text(), "CREATE TABLE t (a INT, b STRING)");

  Result empty = session_.Execute("SELECT * FROM t");
  EXPECT_TRUE(empty.has_columns());
  EXPECT_THAT(empty.columns(),
              ElementsAre(ColumnInfo{"a", "int", true}, ColumnInfo{"b", "string", true}));
  EXPECT_EQ(empty.num_rows(), 0);
  EXPECT_TRUE(empty.begin() == empty.end());
  EXPECT_EQ(empty.Show(), "+---+---+\n|  a|  b|\n+---+---+\n+---+---+\n");

  Result nothing;
  EXPECT_FALSE(nothing.has_columns());
  EXPECT_EQ(nothing.num_rows(), 0);
  EXPECT_EQ(nothing.statement_text(), "");
}

TEST_F(ResultTest, RowsAcrossBatchesInOrder) {
  // More rows than one batch holds.
  Result result = session_.Execute("SELECT id FROM range(200000)");
  ASSERT_EQ(result.num_rows(), 200000);
  int64_t expected = 0;
  bool in_order = true;
  for (const Row& row : result) in_order = in_order && row.GetInt64(0) == expected++;
  EXPECT_TRUE(in_order);
  EXPECT_EQ(expected, 200000);
  EXPECT_EQ(result.row(150001).GetInt64(0), 150001);
  EXPECT_EQ(result.row(199999).GetInt64(0), 199999);
  // A row keeps its rows alive after the result is gone.
  Row last = Result(result).row(199999);
  result = Result();
  EXPECT_EQ(last.GetInt64(0), 199999);
}

TEST_F(ResultTest, ShowAsSpark) {
  Result result =
      session_.Execute("SELECT * FROM VALUES (1, 'a'), (2, 'a long value'), (3, NULL) AS t(id, s)");
  EXPECT_EQ(result.Show(2, 6),
            "+---+------+\n"
            "| id|     s|\n"
            "+---+------+\n"
            "|  1|     a|\n"
            "|  2|a l...|\n"
            "+---+------+\n"
            "only showing top 2 rows\n");
  EXPECT_EQ(result.Show(20, 0),
            "+---+------------+\n"
            "|id |s           |\n"
            "+---+------------+\n"
            "|1  |a           |\n"
            "|2  |a long value|\n"
            "|3  |NULL        |\n"
            "+---+------------+\n");
  EXPECT_EQ(ErrorClassOf([&] { result.Show(-1); }), "INVALID_ARGUMENT");
}

}  // namespace
}  // namespace silt
