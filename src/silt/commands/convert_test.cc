// CONVERT TO DELTA through the statement executor: a folder of Parquet files written directly
// (no Delta log involved), partitioned and not, then read, written and described as a table.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/commands/dml_testing.h"
#include "silt/parquet/writer.h"

namespace silt::commands {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

class ConvertTest : public DmlTest {
 protected:
  std::string Folder() const { return io::JoinPath(folder_.path(), "raw"); }

  // Writes (id int, amount double) rows as a Parquet file at `relative` under Folder().
  void WriteParquet(const std::string& relative,
                    const std::vector<std::pair<int32_t, double>>& rows) {
    Schema schema({Field{"id", IntegerType(), true, {}}, Field{"amount", DoubleType(), true, {}}});
    VectorBuilder ids(IntegerType()), amounts(DoubleType());
    for (const auto& [id, amount] : rows) {
      ids.AppendInt(id);
      amounts.AppendDouble(amount);
    }
    auto writer =
        parquet::FileWriter::Open(fs_->OpenWrite(io::JoinPath(Folder(), relative)), schema);
    writer->Write(Batch(std::make_shared<Schema>(schema), {ids.Finish(), amounts.Finish()},
                        static_cast<int64_t>(rows.size())));
    writer->Close();
  }

  std::vector<log::Action> FirstCommit() const {
    std::string path = io::JoinPath(Folder(), "_delta_log/" + log::FormatVersion(0) + ".json");
    return log::ParseActions(fs_->ReadFile(path), path);
  }
};

TEST_F(ConvertTest, ConvertsAPartitionedFolder) {
  WriteParquet("day=2024-01-01/part-0.parquet", {{1, 1.5}, {2, 2.5}});
  WriteParquet("day=2024-01-02/part-0.parquet", {{3, 3.5}});
  std::string table = "delta.`" + Folder() + "`";
  StatementResult result =
      Sql("CONVERT TO DELTA parquet.`" + Folder() + "` PARTITIONED BY (day DATE)");
  EXPECT_EQ(result.schema, nullptr);

  EXPECT_THAT(Query("SELECT id, amount, day FROM " + table + " ORDER BY id"),
              ElementsAre("1,1.5,2024-01-01", "2,2.5,2024-01-01", "3,3.5,2024-01-02"));
  auto actions = FirstCommit();
  auto adds = Of<log::AddFile>(actions);
  ASSERT_THAT(adds, SizeIs(2));
  for (const auto& add : adds) {
    EXPECT_TRUE(add.stats.has_value());
    ASSERT_THAT(add.partition_values, SizeIs(1));
    EXPECT_EQ(add.partition_values[0].first, "day");
  }
  auto info = Of<log::CommitInfo>(actions).at(0);
  EXPECT_EQ(info.operation, "CONVERT");
  EXPECT_EQ(Parameter(info, "numFiles"), "2");
  EXPECT_EQ(Parameter(info, "partitionedBy"), R"("[\"day\"]")");
  EXPECT_EQ(Parameter(info, "collectStats"), "true");
  EXPECT_EQ(Parameter(info, "sourceFormat"), R"("parquet")");
  EXPECT_EQ(Parameter(info, "catalogTable"), "<absent>");
  EXPECT_EQ(Metric(info, "numConvertedFiles"), "2");
  auto metadata = Of<log::Metadata>(actions).at(0);
  EXPECT_THAT(metadata.partition_columns, ElementsAre("day"));

  // Pruning uses the partition values and statistics of the converted files.
  EXPECT_THAT(Query("SELECT sum(amount) FROM " + table + " WHERE day = DATE'2024-01-02'"),
              ElementsAre("3.5"));
  Sql("INSERT INTO " + table + " VALUES (4, 4.5, DATE'2024-01-03')");
  Sql("UPDATE " + table + " SET amount = 0 WHERE id = 1");
  EXPECT_THAT(Query("SELECT id, amount FROM " + table + " ORDER BY id"),
              ElementsAre("1,0.0", "2,2.5", "3,3.5", "4,4.5"));
  EXPECT_THAT(Query("DESCRIBE HISTORY " + table), SizeIs(3));
}

TEST_F(ConvertTest, NoStatisticsAndSessionDefaults) {
  WriteParquet("a.parquet", {{1, 1.0}});
  Sql("SET spark.databricks.delta.properties.defaults.appendOnly = true");
  Sql("CONVERT TO DELTA parquet.`" + Folder() + "` NO STATISTICS");
  auto actions = FirstCommit();
  EXPECT_FALSE(Of<log::AddFile>(actions).at(0).stats.has_value());
  EXPECT_EQ(Parameter(Of<log::CommitInfo>(actions).at(0), "collectStats"), "false");
  auto metadata = Of<log::Metadata>(actions).at(0);
  ASSERT_NE(log::FindValue(metadata.configuration, "delta.appendOnly"), nullptr);
  EXPECT_EQ(*log::FindValue(metadata.configuration, "delta.appendOnly"), "true");
}

TEST_F(ConvertTest, ConvertingTwiceDoesNothing) {
  WriteParquet("a.parquet", {{1, 1.0}});
  Sql("CONVERT TO DELTA parquet.`" + Folder() + "`");
  Sql("CONVERT TO DELTA parquet.`" + Folder() + "`");
  EXPECT_TRUE(fs_->List(io::JoinPath(Folder(), "_delta_log")).size() >= 1);
  EXPECT_FALSE(fs_->Stat(io::JoinPath(Folder(), "_delta_log/" + log::FormatVersion(1) + ".json")));
}

TEST_F(ConvertTest, Errors) {
  EXPECT_EQ(ErrorClassOf("CONVERT TO DELTA parquet.`" + Folder() + "`"),
            "DELTA_PATH_DOES_NOT_EXIST");
  WriteParquet("x=1/a.parquet", {{1, 1.0}});
  EXPECT_EQ(ErrorClassOf("CONVERT TO DELTA parquet.`" + Folder() + "`"),
            "DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME");
  EXPECT_EQ(ErrorClassOf("CONVERT TO DELTA parquet.`" + Folder() + "` PARTITIONED BY (y INT)"),
            "DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME");
  EXPECT_EQ(ErrorClassOf("CONVERT TO DELTA nope"), "DELTA_MISSING_PROVIDER_FOR_CONVERT");
  EXPECT_EQ(ErrorClassOf("CONVERT TO DELTA csv.`" + Folder() + "`"),
            "DELTA_CONVERT_NON_PARQUET_TABLE");
  // None of the failures left a log behind.
  EXPECT_TRUE(fs_->List(io::JoinPath(Folder(), "_delta_log")).empty());
}

}  // namespace
}  // namespace silt::commands
