#include "silt/delta_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "silt/base/testing_error_class.h"
#include "silt/io/path.h"
#include "silt/io/testing_temporary_folder.h"

namespace silt {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

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

// Rewritten files may come back in any order.
std::vector<std::string> SortedRows(const Result& output) {
  std::vector<std::string> rows = Rows(output);
  std::sort(rows.begin(), rows.end());
  return rows;
}

class DeltaTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    session_.Execute(
        "CREATE TABLE target (id INT, v STRING) USING delta; "
        "INSERT INTO target VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  }

  std::vector<std::string> Query(std::string_view sql) { return Rows(session_.Execute(sql)); }

  // The operation and the operationMetrics map of the newest commit.
  std::pair<std::string, std::string> NewestCommit(const DeltaTable& table) {
    Result history = table.History(1);
    return {history.row(0).GetString(4), history.row(0).ToString(12)};
  }

  io::TestingTemporaryFolder folder_;
  std::string warehouse_ = io::JoinPath(folder_.path(), "warehouse");
  Session session_{SessionOptions{warehouse_, {}}};
};

TEST_F(DeltaTableTest, ForNameAndForPathReachTheSameTable) {
  DeltaTable by_name = DeltaTable::ForName(session_, "target");
  DeltaTable qualified = DeltaTable::ForName(session_, "default.target");
  DeltaTable by_path = DeltaTable::ForPath(session_, io::JoinPath(warehouse_, "target"));
  EXPECT_EQ(by_name.table_sql(), "`target`");
  EXPECT_EQ(qualified.table_sql(), "`default`.`target`");
  for (const DeltaTable* table : {&by_name, &qualified, &by_path}) {
    EXPECT_THAT(Rows(table->ToRows()), ElementsAre("1,a", "2,b", "3,c"));
    EXPECT_EQ(table->ToDF().Count(), 3);
  }
}

TEST_F(DeltaTableTest, MissingOrMalformedTablesFailWithTheEngineClasses) {
  EXPECT_EQ(ErrorClassOf([&] { DeltaTable::ForName(session_, "nope"); }),
            "TABLE_OR_VIEW_NOT_FOUND");
  EXPECT_EQ(ErrorClassOf([&] { DeltaTable::ForPath(session_, io::JoinPath(folder_.path(), "x")); }),
            "DELTA_MISSING_DELTA_TABLE");
  EXPECT_EQ(ErrorClassOf([&] { DeltaTable::ForName(session_, "target; DROP TABLE target"); }),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ErrorClassOf([&] { DeltaTable::ForName(session_, "1 + 2"); }),
            "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf([&] { DeltaTable::ForPath(session_, ""); }), "INVALID_PARAMETER_VALUE");
  EXPECT_THAT(Query("SELECT count(*) FROM target"), ElementsAre("3"));
}

TEST_F(DeltaTableTest, OddNamesAndPathsAreQuoted) {
  session_.Execute("CREATE TABLE `we``ird name` (`my col` INT, `x.y` STRING) USING delta");
  DeltaTable odd = DeltaTable::ForName(session_, "`we``ird name`");
  EXPECT_EQ(odd.table_sql(), "`we``ird name`");
  odd.Alias("t")
      .Merge(MergeSource::Query("SELECT 7 AS `my col`, 'q' AS `x.y`").Alias("s o`urce"),
             "t.`my col` = `s o``urce`.`my col`")
      .WhenNotMatchedInsert({{"`my col`", "`s o``urce`.`my col`"}, {"`x.y`", "'it\\'s'"}})
      .Execute();
  EXPECT_THAT(Rows(odd.ToRows()), ElementsAre("7,it's"));
  odd.Alias("al`ias").Update({{"`x.y`", "upper(`x.y`)"}}, "`al``ias`.`my col` = 7");
  EXPECT_THAT(Rows(odd.ToRows()), ElementsAre("7,IT'S"));

  // A path with a space, a quote and a back quote reaches the same folder it names.
  std::string path = io::JoinPath(folder_.path(), "odd dir's `x`");
  session_.Execute("CREATE TABLE odd_path (id INT) USING delta LOCATION '" + folder_.path() +
                   "/odd dir\\'s `x`'");
  DeltaTable by_path = DeltaTable::ForPath(session_, path);
  EXPECT_EQ(by_path.table_sql(), "delta.`" + folder_.path() + "/odd dir's ``x```");
  by_path.Alias("p")
      .Merge(MergeSource::Table("target").Alias("s"), "p.id = s.id")
      .WhenNotMatchedInsertAll("s.id < 3")
      .Execute();
  EXPECT_THAT(Query("SELECT id FROM odd_path ORDER BY id"), ElementsAre("1", "2"));
}

TEST_F(DeltaTableTest, MergeWithEveryClauseKind) {
  session_.Execute(
      "INSERT INTO target VALUES (4, 'd'), (5, 'e'); "
      "CREATE TABLE updates (id INT, v STRING) USING delta; "
      "INSERT INTO updates VALUES (1, 'A'), (2, 'B'), (3, 'C'), (6, 'F'), (7, 'G')");
  DeltaTable target = DeltaTable::ForName(session_, "target").Alias("t");
  MergeBuilder merge = target.Merge(MergeSource::Table("updates").Alias("s"), "t.id = s.id")
                           .WhenMatchedDelete("s.id = 1")
                           .WhenMatchedUpdate({{"v", "concat(s.v, '!')"}}, "s.id = 2")
                           .WhenMatchedUpdateAll()
                           .WhenNotMatchedInsert({{"id", "s.id"}, {"v", "'new'"}}, "s.id = 6")
                           .WhenNotMatchedInsertAll()
                           .WhenNotMatchedBySourceUpdate({{"t.v", "'stale'"}}, "t.id = 4")
                           .WhenNotMatchedBySourceDelete();
  EXPECT_THAT(merge.StatementText(),
              StartsWith("MERGE INTO `target` AS `t`\nUSING `updates` AS `s`"));
  Result result = merge.Execute();
  ASSERT_TRUE(result.has_columns());
  EXPECT_EQ(result.columns().at(0).name, "num_affected_rows");
  // Updated 2, 3 and 4; deleted 1 and 5; inserted 6 and 7.
  EXPECT_THAT(Rows(result), ElementsAre("7,3,2,2"));
  EXPECT_THAT(Query("SELECT * FROM target ORDER BY id"),
              ElementsAre("2,B!", "3,C", "4,stale", "6,new", "7,G"));
  auto [operation, metrics] = NewestCommit(target);
  EXPECT_EQ(operation, "MERGE");
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsMatchedUpdated -> 2"));
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsNotMatchedBySourceUpdated -> 1"));
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsMatchedDeleted -> 1"));
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsNotMatchedBySourceDeleted -> 1"));
  EXPECT_THAT(metrics, HasSubstr("numTargetRowsInserted -> 2"));
}

TEST_F(DeltaTableTest, MergeFromPathQueryAndView) {
  session_.Execute(
      "CREATE TABLE src (id INT, v STRING) USING delta; INSERT INTO src VALUES (3, 'z'), (9, 'n');"
      "CREATE TEMPORARY VIEW recent AS SELECT id, v FROM src WHERE id > 5");
  DeltaTable target = DeltaTable::ForName(session_, "target");
  // Without an alias, a named table is qualified by its own name.
  target
      .Merge(MergeSource::Path(io::JoinPath(warehouse_, "src")).Alias("src"), "target.id = src.id")
      .WhenMatchedUpdateAll()
      .Execute();
  EXPECT_THAT(SortedRows(target.ToRows()), ElementsAre("1,a", "2,b", "3,z"));
  target.Merge(MergeSource::Table("recent"), "target.id = recent.id")
      .WhenNotMatchedInsertAll()
      .Execute();
  EXPECT_THAT(Query("SELECT id FROM target ORDER BY id"), ElementsAre("1", "2", "3", "9"));
  target.Alias("t")
      .Merge(
          MergeSource::Query("SELECT id, upper(v) AS v FROM src; -- trailing comment").Alias("s"),
          "t.id = s.id -- the key")
      .WhenMatchedUpdate({{"v", "s.v"}}, "s.v IS NOT NULL")
      .Execute();
  EXPECT_THAT(Query("SELECT v FROM target WHERE id IN (3, 9) ORDER BY id"), ElementsAre("Z", "N"));
}

TEST_F(DeltaTableTest, MergeErrorsAreTheEngines) {
  DeltaTable target = DeltaTable::ForName(session_, "target").Alias("t");
  MergeSource duplicates =
      MergeSource::Query("SELECT * FROM VALUES (1, 'x'), (1, 'y') AS d(id, v)").Alias("s");
  EXPECT_EQ(ErrorClassOf(
                [&] { target.Merge(duplicates, "t.id = s.id").WhenMatchedUpdateAll().Execute(); }),
            "DELTA_MULTIPLE_SOURCE_ROW_MATCHING_TARGET_ROW_IN_MERGE");
  EXPECT_EQ(ErrorClassOf([&] { target.Merge(duplicates, "t.id = s.id").Execute(); }),
            "DELTA_MERGE_MISSING_WHEN");
  EXPECT_EQ(ErrorClassOf([&] {
              target.Merge(duplicates, "t.id = s.id")
                  .WhenMatchedDelete()
                  .WhenMatchedUpdateAll("s.v = 'x'")
                  .Execute();
            }),
            "DELTA_NON_LAST_MATCHED_CLAUSE_OMIT_CONDITION");
  EXPECT_EQ(
      ErrorClassOf([&] {
        target.Merge(duplicates, "t.id = s.id").WhenMatchedUpdate({{"v", "s.nope"}}).Execute();
      }),
      "DELTA_MERGE_UNRESOLVED_EXPRESSION");
  // Malformed text fails where it is passed, and cannot break out of its place in the statement.
  EXPECT_EQ(ErrorClassOf([&] { target.Merge(duplicates, "t.id =").WhenMatchedDelete().Execute(); }),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(
      ErrorClassOf([&] { target.Merge(duplicates, "true").WhenMatchedDelete("true) OR (true"); }),
      "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(
      ErrorClassOf([&] {
        target.Merge(MergeSource::Query("SELECT 1) s ON true WHEN MATCHED THEN DELETE --"), "true")
            .WhenNotMatchedInsertAll()
            .Execute();
      }),
      "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(
      ErrorClassOf([&] {
        target.Merge(MergeSource::Query("DROP TABLE target"), "true").WhenMatchedDelete().Execute();
      }),
      "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf([&] { target.Merge(duplicates, "true").WhenMatchedUpdate({}); }),
            "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf([&] { MergeSource::Table("target").Alias(""); }),
            "INVALID_PARAMETER_VALUE");
  // Nothing was committed by any of them.
  EXPECT_THAT(Rows(target.History()), ::testing::SizeIs(2));
  EXPECT_THAT(Rows(target.ToRows()), ElementsAre("1,a", "2,b", "3,c"));

  // The dedupe that fixes the duplicate-key error.
  target
      .Merge(MergeSource::Query("SELECT * FROM VALUES (1, 'x', 1), (1, 'y', 2) AS d(id, v, seq) "
                                "QUALIFY row_number() OVER (PARTITION BY id ORDER BY seq DESC) = 1")
                 .Alias("s"),
             "t.id = s.id -- the key")
      .WhenMatchedUpdate({{"v", "s.v"}}, "s.v IS NOT NULL")
      .Execute();
  EXPECT_THAT(SortedRows(target.ToRows()), ElementsAre("1,y", "2,b", "3,c"));
}

TEST_F(DeltaTableTest, SchemaEvolutionAddsSourceColumns) {
  DeltaTable target = DeltaTable::ForName(session_, "target").Alias("t");
  MergeSource wider = MergeSource::Query("SELECT 4 AS id, 'd' AS v, true AS flag").Alias("s");
  target.Merge(wider, "t.id = s.id").WhenNotMatchedInsertAll().Execute();
  EXPECT_THAT(Query("SELECT * FROM target WHERE id = 4"), ElementsAre("4,d"));
  MergeBuilder evolving =
      target.Merge(wider, "t.id = s.id").WhenMatchedUpdateAll().WithSchemaEvolution();
  EXPECT_THAT(evolving.StatementText(), StartsWith("MERGE WITH SCHEMA EVOLUTION INTO "));
  evolving.Execute();
  EXPECT_THAT(Query("SELECT * FROM target ORDER BY id"),
              ElementsAre("1,a,", "2,b,", "3,c,", "4,d,true"));
}

TEST_F(DeltaTableTest, UpdateDeleteAndHistory) {
  DeltaTable target = DeltaTable::ForName(session_, "target");
  EXPECT_THAT(Rows(target.Update({{"v", "upper(v)"}}, "id >= 2")), ElementsAre("2"));
  EXPECT_THAT(SortedRows(target.ToRows()), ElementsAre("1,a", "2,B", "3,C"));
  EXPECT_EQ(NewestCommit(target).first, "UPDATE");
  EXPECT_THAT(NewestCommit(target).second, HasSubstr("numUpdatedRows -> 2"));

  EXPECT_THAT(Rows(target.Alias("t").Update({{"t.v", "'all'"}})), ElementsAre("3"));
  EXPECT_THAT(Rows(target.Delete("id = 1")), ElementsAre("1"));
  EXPECT_EQ(NewestCommit(target).first, "DELETE");
  EXPECT_THAT(NewestCommit(target).second, HasSubstr("numDeletedRows -> 1"));
  EXPECT_THAT(SortedRows(target.ToRows()), ElementsAre("2,all", "3,all"));
  EXPECT_EQ(ErrorClassOf([&] { target.Update({}); }), "INVALID_PARAMETER_VALUE");
  EXPECT_THAT(ErrorClassOf([&] {
                target.Update({{"nope", "1"}});
              }),
              StartsWith("UNRESOLVED_COLUMN"));
  EXPECT_EQ(ErrorClassOf([&] { target.Delete(" "); }), "INVALID_PARAMETER_VALUE");
  // Text passed as a condition stays one expression: it cannot end the statement early.
  EXPECT_EQ(ErrorClassOf([&] { target.Delete("id = 2); DELETE FROM target WHERE (true"); }),
            "PARSE_SYNTAX_ERROR");
  EXPECT_EQ(ErrorClassOf([&] {
              target.Update({{"v", "'x'; DELETE FROM target"}});
            }),
            "PARSE_SYNTAX_ERROR");

  // Newest first: DELETE, UPDATE, UPDATE, WRITE, CREATE TABLE.
  Result history = target.History();
  std::vector<std::string> versions_and_operations;
  for (const Row& row : history) {
    versions_and_operations.push_back(row.ToString(0) + " " + row.GetString(4));
  }
  EXPECT_THAT(versions_and_operations,
              ElementsAre("4 DELETE", "3 UPDATE", "2 UPDATE", "1 WRITE", "0 CREATE TABLE"));
  EXPECT_THAT(Rows(target.History(2)), ::testing::SizeIs(2));
  EXPECT_EQ(ErrorClassOf([&] { target.History(-1); }), "INVALID_PARAMETER_VALUE");

  EXPECT_THAT(Rows(target.Delete()), ElementsAre("2"));
  EXPECT_TRUE(Rows(target.ToRows()).empty());
}

TEST_F(DeltaTableTest, RestoreOptimizeVacuumAndDetail) {
  DeltaTable table = DeltaTable::ForName(session_, "target");
  table.Delete("id = 2");                                  // version 2
  session_.Execute("INSERT INTO target VALUES (4, 'd')");  // version 3: a second small file
  EXPECT_THAT(SortedRows(table.ToRows()), ElementsAre("1,a", "3,c", "4,d"));

  Result restored = table.RestoreToVersion(1);
  EXPECT_EQ(restored.columns().at(0).name, "table_size_after_restore");
  EXPECT_THAT(SortedRows(table.ToRows()), ElementsAre("1,a", "2,b", "3,c"));
  EXPECT_EQ(NewestCommit(table).first, "RESTORE");
  EXPECT_EQ(ErrorClassOf([&] { table.RestoreToVersion(99); }),
            "DELTA_CANNOT_RESTORE_TABLE_VERSION");
  EXPECT_EQ(ErrorClassOf([&] { table.RestoreToVersion(-1); }), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf([&] { table.RestoreToTimestamp("2000-01-01"); }),
            "DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER");

  session_.Execute("INSERT INTO target VALUES (5, 'e')");
  EXPECT_EQ(table.Optimize().StatementText(), "OPTIMIZE `target`");
  Result optimized = table.Optimize().ExecuteCompaction();
  EXPECT_EQ(optimized.columns().at(1).name, "metrics");
  EXPECT_EQ(NewestCommit(table).first, "OPTIMIZE");
  EXPECT_EQ(table.Detail().row(0).GetInt64(9), 1);  // numFiles
  table.Optimize().ExecuteZOrderBy({"id", "v"});
  EXPECT_THAT(SortedRows(table.ToRows()), ElementsAre("1,a", "2,b", "3,c", "5,e"));
  EXPECT_EQ(ErrorClassOf([&] { table.Optimize().ExecuteZOrderBy({}); }), "INVALID_PARAMETER_VALUE");
  EXPECT_EQ(ErrorClassOf([&] { table.Optimize().Where("id = 1").ExecuteCompaction(); }),
            "DELTA_NON_PARTITION_COLUMN_REFERENCE");

  // The default retention keeps every file a version of the last week needs; a short one is
  // refused unless the check is off, and then removes the files no current version needs.
  table.Vacuum();
  EXPECT_THAT(SortedRows(table.ToRows()), ElementsAre("1,a", "2,b", "3,c", "5,e"));
  EXPECT_EQ(ErrorClassOf([&] { table.Vacuum(1); }), "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT");
  EXPECT_EQ(ErrorClassOf([&] { table.Vacuum(-1); }), "INVALID_PARAMETER_VALUE");
  session_.Execute("SET spark.databricks.delta.retentionDurationCheck.enabled = false");
  table.Vacuum(0);
  EXPECT_THAT(SortedRows(table.ToRows()), ElementsAre("1,a", "2,b", "3,c", "5,e"));
  EXPECT_EQ(NewestCommit(table).first, "VACUUM END");
}

TEST_F(DeltaTableTest, ConvertToDeltaTurnsAParquetFolderIntoATable) {
  std::string folder = io::JoinPath(folder_.path(), "plain");
  session_.Execute("CREATE TABLE delta.`" + folder +
                   "` (id INT, part STRING) USING delta PARTITIONED BY (part)");
  session_.Execute("INSERT INTO delta.`" + folder + "` VALUES (1, 'x'), (2, 'y')");
  // Leave only the Parquet files: what a Spark job writing plain Parquet leaves behind.
  std::filesystem::remove_all(io::JoinPath(folder, "_delta_log"));
  DeltaTable converted =
      DeltaTable::ConvertToDelta(session_, "parquet.`" + folder + "`", "part STRING");
  EXPECT_THAT(SortedRows(converted.ToRows()), ElementsAre("1,x", "2,y"));
  EXPECT_EQ(NewestCommit(converted).first, "CONVERT");
  EXPECT_EQ(ErrorClassOf([&] { DeltaTable::ConvertToDelta(session_, "1 + 1"); }),
            "INVALID_PARAMETER_VALUE");
}

}  // namespace
}  // namespace silt
