#include "silt/data_frame.h"

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

std::vector<int64_t> FirstColumn(const Result& result) {
  std::vector<int64_t> values;
  for (const Row& row : result) values.push_back(row.GetInt64(0));
  return values;
}

class DataFrameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    session_.Execute(
        "CREATE TABLE t (id BIGINT, s STRING); INSERT INTO t VALUES (1, 'a'), (2, 'b')");
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  Session session_{SessionOptions{warehouse_, {}}};
};

TEST_F(DataFrameTest, QueriesRunAtEachActionOnTheCurrentVersion) {
  DataFrame frame = session_.Sql("SELECT id FROM t WHERE id > 0 ORDER BY id;");
  EXPECT_EQ(frame.sql(), "SELECT id FROM t WHERE id > 0 ORDER BY id");
  EXPECT_THAT(frame.Schema(), ElementsAre(ColumnInfo{"id", "bigint", true}));
  session_.Execute("INSERT INTO t VALUES (3, 'c')");
  EXPECT_THAT(FirstColumn(frame.Collect()), ElementsAre(1, 2, 3));
  EXPECT_EQ(frame.Count(), 3);
  session_.Execute("DELETE FROM t WHERE id = 1");
  EXPECT_EQ(frame.Count(), 2);
  // Time travel pins the version.
  DataFrame first = session_.Sql("SELECT id FROM t VERSION AS OF 1 ORDER BY id");
  EXPECT_THAT(FirstColumn(first.Collect()), ElementsAre(1, 2));
}

TEST_F(DataFrameTest, AnalysisErrorsAtOnceRuntimeErrorsAtTheAction) {
  EXPECT_EQ(ErrorClassOf([&] { session_.Sql("SELECT * FROM nope"); }), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf([&] { session_.Sql("SELECT zz FROM t"); }), "UNRESOLVED_COLUMN");
  EXPECT_EQ(ErrorClassOf([&] { session_.Sql("SELEC 1"); }), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ErrorClassOf([&] { session_.Sql("SELECT 1; SELECT 2"); }), "PARSE_SYNTAX_ERROR");
  DataFrame failing = session_.Sql("SELECT id / 0 FROM t");
  EXPECT_EQ(ErrorClassOf([&] { failing.Collect(); }), "DIVIDE_BY_ZERO");
  EXPECT_EQ(ErrorClassOf([&] { failing.Show(); }), "DIVIDE_BY_ZERO");
}

TEST_F(DataFrameTest, OtherStatementsRunWhenMade) {
  DataFrame insert = session_.Sql("INSERT INTO t VALUES (7, 'x')");
  EXPECT_EQ(session_.Table("t").Count(), 3);
  // Its actions return the statement's rows; they do not run it again.
  insert.Collect();
  insert.Count();
  insert.Show();
  EXPECT_EQ(session_.Table("t").Count(), 3);

  DataFrame created = session_.Sql("CREATE TABLE u (a INT)");
  EXPECT_TRUE(created.Schema().empty());
  EXPECT_EQ(created.Count(), 0);
  EXPECT_EQ(created.Show(), "");
  EXPECT_EQ(session_.Table("u").Count(), 0);

  DataFrame history = session_.Sql("DESCRIBE HISTORY t");
  EXPECT_EQ(history.Schema().at(0), (ColumnInfo{"version", "bigint", true}));
  EXPECT_EQ(history.Count(), 3);
  EXPECT_EQ(history.Collect().row(0).GetString(4), "WRITE");
}

TEST_F(DataFrameTest, TableByNameOrPath) {
  EXPECT_THAT(FirstColumn(session_.Table("default.t").Collect()), ElementsAre(1, 2));
  EXPECT_THAT(session_.Table("t").Schema(),
              ElementsAre(ColumnInfo{"id", "bigint", true}, ColumnInfo{"s", "string", true}));
  session_.Execute("CREATE TABLE `odd name` (x INT); INSERT INTO `odd name` VALUES (5)");
  EXPECT_EQ(session_.Table("`odd name`").Count(), 1);
  std::string path = io::JoinPath(warehouse_, "t");
  EXPECT_EQ(session_.Table("delta.`" + path + "`").Count(), 2);
  EXPECT_EQ(ErrorClassOf([&] { session_.Table("nope"); }), "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf([&] { session_.Table("t; DROP TABLE t"); }), "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ErrorClassOf([&] { session_.Table("1 + 2"); }), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(session_.Table("t").Count(), 2);
}

TEST_F(DataFrameTest, CountCountsTheQueryRows) {
  EXPECT_EQ(session_.Sql("SELECT id, id FROM t").Count(), 2);
  EXPECT_EQ(session_.Sql("SELECT * FROM t LIMIT 1").Count(), 1);
  EXPECT_EQ(session_.Sql("WITH x AS (SELECT * FROM t) SELECT s FROM x WHERE id = 2").Count(), 1);
  EXPECT_EQ(session_.Sql("SELECT s, count(*) FROM t GROUP BY s").Count(), 2);
  EXPECT_EQ(session_.Sql("SELECT * FROM t WHERE id > 5").Count(), 0);
}

TEST_F(DataFrameTest, ShowProducesOnlyTheRowsItPrints) {
  EXPECT_EQ(session_.Sql("SELECT * FROM t ORDER BY id").Show(1),
            "+---+---+\n"
            "| id|  s|\n"
            "+---+---+\n"
            "|  1|  a|\n"
            "+---+---+\n"
            "only showing top 1 row\n");
  EXPECT_EQ(session_.Sql("SELECT * FROM t WHERE id > 5").Show(),
            "+---+---+\n| id|  s|\n+---+---+\n+---+---+\n");
  // Ten billion rows: only the first batches are produced.
  std::string shown = session_.Sql("SELECT id FROM range(10000000000)").Show(2);
  EXPECT_EQ(shown, "+---+\n| id|\n+---+\n|  0|\n|  1|\n+---+\nonly showing top 2 rows\n");
}

}  // namespace
}  // namespace silt
