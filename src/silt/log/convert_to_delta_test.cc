#include "silt/log/convert_to_delta.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "silt/base/testing_error_class.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/io/path.h"
#include "silt/log/file_stats.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_scan.h"
#include "silt/log/table_writer.h"
#include "silt/parquet/writer.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kRoot = "mem/folder";

class ConvertToDeltaTest : public ::testing::Test {
 protected:
  void SetUp() override { fs_ = io::MakeMemoryFileSystem(); }

  // Writes a Parquet file of (id bigint, name string) rows at `relative` under the folder.
  void WriteIdName(const std::string& relative,
                   const std::vector<std::pair<int64_t, std::string>>& rows) {
    auto schema = std::make_shared<Schema>(std::vector<Field>{
        Field{"id", LongType(), false, {}}, Field{"name", StringType(), true, {}}});
    VectorBuilder ids(LongType()), names(StringType());
    for (const auto& [id, name] : rows) {
      ids.AppendInt(id);
      names.AppendString(name);
    }
    WriteFile(relative,
              Batch(schema, {ids.Finish(), names.Finish()}, static_cast<int64_t>(rows.size())));
  }

  void WriteFile(const std::string& relative, const Batch& batch) {
    auto writer =
        parquet::FileWriter::Open(fs_->OpenWrite(io::JoinPath(kRoot, relative)), *batch.schema());
    writer->Write(batch);
    writer->Close();
  }

  std::vector<std::string> Rows() {
    std::vector<std::string> rows;
    for (const Batch& batch : TableScan::Make(Snapshot::Load(fs_, kRoot))->Read()) {
      for (int64_t r = 0; r < batch.num_rows(); ++r) {
        std::string row;
        for (size_t c = 0; c < batch.num_columns(); ++c) {
          row += (c ? "," : "") + batch.column(c)->ValueToString(r);
        }
        rows.push_back(row);
      }
    }
    std::sort(rows.begin(), rows.end());
    return rows;
  }

  std::shared_ptr<io::FileSystem> fs_;
};

TEST_F(ConvertToDeltaTest, ConvertsAFolderInPlace) {
  WriteIdName("part-0.parquet", {{1, "a"}, {2, "b"}});
  WriteIdName("sub/part-1.parquet", {{3, "c"}});
  fs_->WriteFile(io::JoinPath(kRoot, "_SUCCESS"), "");
  fs_->WriteFile(io::JoinPath(kRoot, ".part-0.parquet.crc"), "crc");
  fs_->WriteFile(io::JoinPath(kRoot, "_tmp/part-9.parquet"), "not parquet");

  ConvertResult result = ConvertToDelta(fs_, kRoot, {});
  EXPECT_FALSE(result.already_delta);
  EXPECT_EQ(result.num_files, 2);
  ASSERT_TRUE(result.commit.has_value());
  EXPECT_EQ(result.commit->version, 0);

  auto snapshot = Snapshot::Load(fs_, kRoot);
  // Every column nullable, whatever the files say.
  EXPECT_EQ(snapshot->schema(),
            Schema({Field{"id", LongType(), true, {}}, Field{"name", StringType(), true, {}}}));
  std::vector<std::string> paths;
  for (const AddFile& add : snapshot->files()) {
    paths.push_back(add.path);
    ASSERT_TRUE(add.stats.has_value());
    EXPECT_TRUE(add.data_change);
  }
  std::sort(paths.begin(), paths.end());
  EXPECT_THAT(paths, ElementsAre("part-0.parquet", "sub/part-1.parquet"));
  EXPECT_THAT(Rows(), ElementsAre("1,a", "2,b", "3,c"));
  for (const AddFile& add : snapshot->files()) {
    FileStats stats = FileStats::Parse(*add.stats, add.path);
    if (add.path == "part-0.parquet") {
      EXPECT_EQ(stats.num_records(), 2);
      EXPECT_EQ(std::get<int64_t>(*stats.Max({"id"}, *LongType())), 2);
    }
  }
  const std::string& info = snapshot->commit_info()->raw_json;
  EXPECT_THAT(info, HasSubstr("\"operation\":\"CONVERT\""));
  EXPECT_THAT(info, HasSubstr("\"numFiles\":2,\"partitionedBy\":\"[]\",\"collectStats\":true"));
  EXPECT_THAT(info, HasSubstr("\"numConvertedFiles\":\"2\""));

  // Converting again does nothing.
  ConvertResult again = ConvertToDelta(fs_, kRoot, {});
  EXPECT_TRUE(again.already_delta);
  EXPECT_EQ(Snapshot::Load(fs_, kRoot)->version(), 0);

  // The converted table takes new writes.
  auto schema = std::make_shared<Schema>(snapshot->schema());
  VectorBuilder ids(LongType()), names(StringType());
  ids.AppendInt(4);
  names.AppendNull();
  AppendToTable(fs_, kRoot, {Batch(schema, {ids.Finish(), names.Finish()}, 1)});
  EXPECT_THAT(Rows(), ElementsAre("1,a", "2,b", "3,c", "4,NULL"));
}

TEST_F(ConvertToDeltaTest, ParsesPartitionFolders) {
  WriteIdName("year=2024/region=eu%2Fwest/part-0.parquet", {{1, "a"}});
  WriteIdName("year=2024/region=__HIVE_DEFAULT_PARTITION__/part-0.parquet", {{2, "b"}});
  WriteIdName("year=2023/region=us/part-0.parquet", {{3, "c"}});
  ConvertOptions options;
  options.partition_columns = {Field{"year", IntegerType(), true, {}},
                               Field{"region", StringType(), true, {}}};
  ConvertToDelta(fs_, kRoot, options);
  auto snapshot = Snapshot::Load(fs_, kRoot);
  EXPECT_THAT(snapshot->metadata().partition_columns, ElementsAre("year", "region"));
  EXPECT_EQ(snapshot->schema().num_fields(), 4u);
  EXPECT_THAT(Rows(), ElementsAre("1,a,2024,eu/west", "2,b,2024,NULL", "3,c,2023,us"));
  EXPECT_THAT(snapshot->commit_info()->raw_json,
              HasSubstr("\"partitionedBy\":\"[\\\"year\\\",\\\"region\\\"]\""));
}

TEST_F(ConvertToDeltaTest, PartitionLayoutMustMatch) {
  WriteIdName("year=2024/part-0.parquet", {{1, "a"}});
  ConvertOptions none;
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, none); }),
            "DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME");
  ConvertOptions other;
  other.partition_columns = {Field{"month", IntegerType(), true, {}}};
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, other); }),
            "DELTA_UNEXPECTED_PARTITION_COLUMN_FROM_FILE_NAME");
  ConvertOptions two;
  two.partition_columns = {Field{"year", IntegerType(), true, {}},
                           Field{"m", IntegerType(), true, {}}};
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, two); }),
            "DELTA_UNEXPECTED_NUM_PARTITION_COLUMNS_FROM_FILE_NAME");
  ConvertOptions wrong_type;
  wrong_type.partition_columns = {Field{"year", DateType(), true, {}}};
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, wrong_type); }),
            "DELTA_FAILED_CAST_PARTITION_VALUE");
  // Nothing was committed by the failures.
  EXPECT_TRUE(fs_->List(io::JoinPath(kRoot, "_delta_log")).empty());
}

TEST_F(ConvertToDeltaTest, MergesFileSchemas) {
  WriteIdName("a.parquet", {{1, "a"}});
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      Field{"ID", LongType(), true, {}}, Field{"score", DoubleType(), true, {}}});
  VectorBuilder ids(LongType()), scores(DoubleType());
  ids.AppendInt(2);
  scores.AppendDouble(0.5);
  WriteFile("b.parquet", Batch(schema, {ids.Finish(), scores.Finish()}, 1));
  ConvertToDelta(fs_, kRoot, {});
  auto snapshot = Snapshot::Load(fs_, kRoot);
  EXPECT_EQ(snapshot->schema().num_fields(), 3u);
  EXPECT_THAT(Rows(), ElementsAre("1,a,NULL", "2,NULL,0.5"));
}

TEST_F(ConvertToDeltaTest, IncompatibleSchemasFail) {
  WriteIdName("a.parquet", {{1, "a"}});
  auto schema = std::make_shared<Schema>(std::vector<Field>{Field{"id", StringType(), true, {}}});
  VectorBuilder ids(StringType());
  ids.AppendString("x");
  WriteFile("b.parquet", Batch(schema, {ids.Finish()}, 1));
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, {}); }),
            "DELTA_FAILED_MERGE_SCHEMA_FILE");
}

TEST_F(ConvertToDeltaTest, NoStatistics) {
  WriteIdName("a.parquet", {{1, "a"}});
  ConvertOptions options;
  options.collect_stats = false;
  ConvertToDelta(fs_, kRoot, options);
  auto snapshot = Snapshot::Load(fs_, kRoot);
  EXPECT_FALSE(snapshot->files()[0].stats.has_value());
  EXPECT_THAT(snapshot->commit_info()->raw_json, HasSubstr("\"collectStats\":false"));
}

TEST_F(ConvertToDeltaTest, MissingEmptyAndNonParquetFolders) {
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, "mem/nowhere", {}); }),
            "DELTA_PATH_DOES_NOT_EXIST");
  fs_->WriteFile(io::JoinPath(kRoot, "_SUCCESS"), "");
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, {}); }), "DELTA_EMPTY_DIRECTORY");
  fs_->WriteFile(io::JoinPath(kRoot, "notes.txt"), "hello, not parquet");
  EXPECT_EQ(ErrorClassOf([&] { ConvertToDelta(fs_, kRoot, {}); }), "DELTA_FAILED_READ_FILE_FOOTER");
}

TEST(MergeParquetSchemaTest, MergesStructFields) {
  std::vector<Field> merged = {
      Field{"s", StructType({Field{"a", LongType(), false, {}}}), false, {}}};
  Schema update({Field{"S", StructType({Field{"b", StringType(), true, {}}}), true, {}}});
  ASSERT_TRUE(MergeParquetSchema(merged, update));
  ASSERT_EQ(merged.size(), 1u);
  EXPECT_EQ(merged[0].type->ToString(), "struct<a:bigint,b:string>");
  Schema conflict({Field{"s", LongType(), true, {}}});
  EXPECT_FALSE(MergeParquetSchema(merged, conflict));
}

}  // namespace
}  // namespace silt::log
