#include "silt/log/table_scan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "silt/error.h"
#include "silt/log/checkpoint_writer.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_segment.h"
#include "silt/parquet/writer.h"

namespace silt::log {
namespace {

using ::testing::ElementsAre;
using ::testing::UnorderedElementsAre;

// Writes a Parquet file with columns (`id_name` long, `value_name` string).
void WriteDataFile(io::FileSystem& fs, const std::string& path, const std::string& id_name,
                   const std::string& value_name, const std::vector<int64_t>& ids,
                   bool field_ids = false) {
  Field id{id_name, LongType(), true, {}};
  Field value{value_name, StringType(), true, {}};
  if (field_ids) {
    id.metadata.emplace_back("parquet.field.id", "1");
    value.metadata.emplace_back("parquet.field.id", "2");
  }
  auto schema = std::make_shared<const Schema>(std::vector<Field>{id, value});
  VectorBuilder id_builder(LongType());
  VectorBuilder value_builder(StringType());
  for (int64_t i : ids) {
    id_builder.AppendInt(i);
    value_builder.AppendString("v" + std::to_string(i));
  }
  Batch batch(schema, {id_builder.Finish(), value_builder.Finish()},
              static_cast<int64_t>(ids.size()));
  parquet::WriterOptions options;
  options.write_field_ids = field_ids;
  options.max_parallelism = 1;
  auto writer = parquet::FileWriter::Open(fs.OpenWrite(path), *schema, options);
  writer->Write(batch);
  writer->Close();
}

std::string SchemaString(const std::string& id_metadata, const std::string& value_metadata) {
  return R"({\"type\":\"struct\",\"fields\":[{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{)" +
         id_metadata +
         R"(}},{\"name\":\"v\",\"type\":\"string\",\"nullable\":true,\"metadata\":{)" +
         value_metadata +
         R"(}},{\"name\":\"part\",\"type\":\"integer\",\"nullable\":true,\"metadata\":{}}]})";
}

std::vector<std::string> RowsOf(const std::vector<Batch>& batches) {
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      std::string row;
      for (size_t c = 0; c < batch.num_columns(); ++c) {
        if (c > 0) row += ",";
        row += batch.column(c)->ValueToString(r);
      }
      rows.push_back(row);
    }
  }
  return rows;
}

class TableScanTest : public ::testing::Test {
 protected:
  void WriteLog(const std::string& configuration, const std::string& schema,
                const std::vector<std::string>& adds) {
    std::string text = R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["deletionVectors","columnMapping"],"writerFeatures":["deletionVectors","columnMapping"]}})"
                       "\n";
    text += R"({"metaData":{"id":"t","format":{"provider":"parquet","options":{}},"schemaString":")" +
            schema + R"(","partitionColumns":["part"],"configuration":{)" + configuration + "}}}\n";
    for (const auto& add : adds) text += add + "\n";
    fs_->WriteFile("t/_delta_log/" + FormatVersion(0) + ".json", text);
  }
  std::string Add(const std::string& path, const std::string& part, const std::string& stats,
                  const std::string& dv = "") {
    std::string json = R"({"add":{"path":")" + path + R"(","partitionValues":{"part":)" + part +
                       R"(},"size":1,"modificationTime":1,"dataChange":true,"stats":")" + stats +
                       "\"";
    if (!dv.empty()) json += R"(,"deletionVector":)" + dv;
    return json + "}}";
  }

  std::shared_ptr<io::FileSystem> fs_ = io::MakeMemoryFileSystem();
};

TEST_F(TableScanTest, FillsPartitionsAndHonoursDeletionVectors) {
  WriteDataFile(*fs_, "t/part=7/a.parquet", "id", "v", {0, 1, 2, 3});
  WriteDataFile(*fs_, "t/part=__HIVE_DEFAULT_PARTITION__/b.parquet", "id", "v", {10});
  auto deleted = DeletedRows::FromIndexes({1, 3});
  fs_->WriteFile("t/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin",
                 MakeDeletionVectorFile(deleted));
  std::string dv = R"({"storageType":"u","pathOrInlineDv":"^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":)" +
                   std::to_string(deleted.Serialize().size()) + R"(,"cardinality":2})";
  WriteLog("", SchemaString("", ""),
           {Add("part=7/a.parquet", "\"7\"",
                R"({\"numRecords\":4,\"minValues\":{\"id\":0},\"maxValues\":{\"id\":3},\"nullCount\":{\"id\":0}})",
                dv),
            Add("part=__HIVE_DEFAULT_PARTITION__/b.parquet", "null",
                R"({\"numRecords\":1,\"minValues\":{\"id\":10},\"maxValues\":{\"id\":10},\"nullCount\":{\"id\":0}})")});
  auto snapshot = Snapshot::Load(fs_, "t");
  auto scan = TableScan::Make(snapshot);
  EXPECT_THAT(RowsOf(scan->Read()), UnorderedElementsAre("0,v0,7", "2,v2,7", "10,v10,NULL"));
  EXPECT_EQ(scan->schema()->field(2).name, "part");

  ScanOptions projected;
  projected.columns = {"PART", "id"};
  EXPECT_THAT(RowsOf(TableScan::Make(snapshot, projected)->Read()),
              UnorderedElementsAre("7,0", "7,2", "NULL,10"));

  // Row positions of what a row group returns: the deletion vector's rows are gaps, with
  // stored columns read and with only the partition column.
  for (const std::vector<std::string>& columns :
       {std::vector<std::string>{"id"}, std::vector<std::string>{"part"}}) {
    ScanOptions options;
    options.columns = columns;
    auto positioned = TableScan::Make(snapshot, options);
    const AddFile* with_dv = nullptr;
    for (const AddFile* file : positioned->files()) {
      if (file->deletion_vector) with_dv = file;
    }
    ASSERT_NE(with_dv, nullptr);
    auto opened = positioned->OpenFile(*with_dv);
    std::vector<uint64_t> positions;
    Batch batch = opened->ReadRowGroup(opened->row_groups().front(), &positions);
    EXPECT_THAT(positions, ElementsAre(0, 2)) << columns.front();
    EXPECT_EQ(batch.num_rows(), 2);
  }
}

TEST_F(TableScanTest, SummarizesTheStatisticsOfTheKeptFiles) {
  auto deleted = DeletedRows::FromIndexes({1, 3});
  std::string dv = R"({"storageType":"u","pathOrInlineDv":"^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":)" +
                   std::to_string(deleted.Serialize().size()) + R"(,"cardinality":2})";
  WriteLog("", SchemaString("", ""),
           {Add("part=7/a.parquet", "\"7\"",
                R"({\"numRecords\":4,\"minValues\":{\"id\":0},\"maxValues\":{\"id\":3},\"nullCount\":{\"id\":1}})",
                dv),
            Add("part=__HIVE_DEFAULT_PARTITION__/b.parquet", "null",
                R"({\"numRecords\":1,\"minValues\":{\"id\":10},\"maxValues\":{\"id\":10},\"nullCount\":{\"id\":0}})")});
  auto snapshot = Snapshot::Load(fs_, "t");
  ScanSummary all = TableScan::Make(snapshot)->Summarize();
  // Live rows: the deletion vector's two rows are not counted.
  EXPECT_EQ(all.num_rows, 3);
  ASSERT_EQ(all.columns.size(), 3u);
  const ColumnSummary& id = all.columns[0];
  ASSERT_TRUE(id.min && id.max && id.null_count);
  EXPECT_EQ(std::get<int64_t>(*id.min), 0);
  EXPECT_EQ(std::get<int64_t>(*id.max), 10);
  EXPECT_EQ(*id.null_count, 1);
  // No statistics for `v`: nothing is known of it.
  EXPECT_FALSE(all.columns[1].min || all.columns[1].max || all.columns[1].null_count);
  // A partition column's distinct values count NULL as one.
  EXPECT_EQ(all.columns[2].distinct_values, 2);
  EXPECT_EQ(std::get<int64_t>(*all.columns[2].max), 7);

  ScanOptions options;
  options.columns = {"part", "id"};
  options.predicates = {{"id", ScanPredicate::Op::kGreater, "5"}};
  ScanSummary kept = TableScan::Make(snapshot, options)->Summarize();
  EXPECT_EQ(kept.num_rows, 1);
  ASSERT_EQ(kept.columns.size(), 2u);
  EXPECT_EQ(kept.columns[0].distinct_values, 1);
  EXPECT_EQ(std::get<int64_t>(*kept.columns[1].min), 10);
}

TEST_F(TableScanTest, PrunesByPartitionValuesAndStatistics) {
  WriteDataFile(*fs_, "t/a.parquet", "id", "v", {0, 1});
  WriteDataFile(*fs_, "t/b.parquet", "id", "v", {10, 11});
  WriteLog("", SchemaString("", ""),
           {Add("a.parquet", "\"1\"",
                R"({\"numRecords\":2,\"minValues\":{\"id\":0,\"v\":\"v0\"},\"maxValues\":{\"id\":1,\"v\":\"v1\"},\"nullCount\":{\"id\":0,\"v\":0}})"),
            Add("b.parquet", "\"2\"",
                R"({\"numRecords\":2,\"minValues\":{\"id\":10,\"v\":\"v10\"},\"maxValues\":{\"id\":11,\"v\":\"v11\"},\"nullCount\":{\"id\":0,\"v\":2}})")});
  auto snapshot = Snapshot::Load(fs_, "t");
  auto files_for = [&](std::vector<ScanPredicate> predicates) {
    ScanOptions options;
    options.predicates = std::move(predicates);
    std::vector<std::string> paths;
    auto scan = TableScan::Make(snapshot, options);
    for (const AddFile* file : scan->files()) paths.push_back(file->path);
    return paths;
  };
  using Op = ScanPredicate::Op;
  EXPECT_THAT(files_for({{"part", Op::kEqual, "2"}}), ElementsAre("b.parquet"));
  EXPECT_THAT(files_for({{"part", Op::kLess, "2"}}), ElementsAre("a.parquet"));
  EXPECT_THAT(files_for({{"id", Op::kGreater, "5"}}), ElementsAre("b.parquet"));
  EXPECT_THAT(files_for({{"id", Op::kEqual, "5"}}), ElementsAre());
  EXPECT_THAT(files_for({{"id", Op::kLessOrEqual, "10"}}), ElementsAre("a.parquet", "b.parquet"));
  EXPECT_THAT(files_for({{"v", Op::kGreaterOrEqual, "v10"}}), ElementsAre("b.parquet"));
  EXPECT_THAT(files_for({{"id", Op::kIsNull, ""}}), ElementsAre());
  EXPECT_THAT(files_for({{"v", Op::kIsNotNull, ""}}), ElementsAre("a.parquet"));
  EXPECT_THAT(files_for({{"part", Op::kIsNull, ""}}), ElementsAre());
  EXPECT_THAT(files_for({{"part", Op::kEqual, "1"}, {"id", Op::kGreater, "0"}}), ElementsAre("a.parquet"));
  ScanOptions bad;
  bad.predicates = {{"part", Op::kEqual, "x"}};
  EXPECT_THROW(TableScan::Make(snapshot, bad), Error);
  bad.predicates = {{"nope", Op::kEqual, "1"}};
  EXPECT_THROW(TableScan::Make(snapshot, bad), Error);
}

TEST_F(TableScanTest, PrunesByTheCheckpointsTypedStatistics) {
  WriteLog(
      "", SchemaString("", ""),
      {Add("a.parquet", "\"1\"",
           R"({\"numRecords\":2,\"minValues\":{\"id\":0,\"v\":\"v0\"},\"maxValues\":{\"id\":1,\"v\":\"v1\"},\"nullCount\":{\"id\":0,\"v\":0}})"),
       Add("b.parquet", "\"2\"",
           R"({\"numRecords\":2,\"minValues\":{\"id\":10,\"v\":\"v10\"},\"maxValues\":{\"id\":11,\"v\":\"v11\"},\"nullCount\":{\"id\":0,\"v\":2}})")});
  WriteCheckpoint(fs_, "t", 0);
  auto loaded = Snapshot::Load(fs_, "t");
  ASSERT_TRUE(loaded->log_segment().checkpoint.has_value());
  // The files keep the checkpoint's stats_parsed; their JSON text is made unreadable, so only
  // the typed statistics can rule a file out.
  std::vector<AddFile> files = loaded->files();
  for (AddFile& file : files) {
    ASSERT_NE(file.parsed_stats.values, nullptr) << file.path;
    file.stats = "not json";
  }
  auto snapshot = loaded->WithFiles(std::move(files));
  auto files_for = [&](std::vector<ScanPredicate> predicates) {
    ScanOptions options;
    options.predicates = std::move(predicates);
    std::vector<std::string> paths;
    auto scan = TableScan::Make(snapshot, options);
    for (const AddFile* file : scan->files()) paths.push_back(file->path);
    std::sort(paths.begin(), paths.end());
    return paths;
  };
  using Op = ScanPredicate::Op;
  EXPECT_THAT(files_for({{"id", Op::kGreater, "5"}}), ElementsAre("b.parquet"));
  EXPECT_THAT(files_for({{"id", Op::kEqual, "5"}}), ElementsAre());
  EXPECT_THAT(files_for({{"id", Op::kLessOrEqual, "10"}}), ElementsAre("a.parquet", "b.parquet"));
  EXPECT_THAT(files_for({{"v", Op::kGreaterOrEqual, "v10"}}), ElementsAre("b.parquet"));
  EXPECT_THAT(files_for({{"id", Op::kIsNull, ""}}), ElementsAre());
  EXPECT_THAT(files_for({{"v", Op::kIsNotNull, ""}}), ElementsAre("a.parquet"));
  // The summary reads the typed statistics too.
  ScanSummary summary = TableScan::Make(snapshot)->Summarize();
  EXPECT_EQ(summary.num_rows, 4);
  ASSERT_TRUE(summary.columns[0].min && summary.columns[0].max);
  EXPECT_EQ(std::get<int64_t>(*summary.columns[0].min), 0);
  EXPECT_EQ(std::get<int64_t>(*summary.columns[0].max), 11);
  EXPECT_EQ(summary.columns[1].null_count, 2);
}

TEST_F(TableScanTest, ColumnMappingByNameAndById) {
  std::string name_schema = SchemaString(
      R"(\"delta.columnMapping.id\":1,\"delta.columnMapping.physicalName\":\"col-a\")",
      R"(\"delta.columnMapping.id\":2,\"delta.columnMapping.physicalName\":\"col-b\")");
  WriteDataFile(*fs_, "t/a.parquet", "col-a", "col-b", {5, 6});
  WriteLog(R"("delta.columnMapping.mode":"name")", name_schema,
           {Add("a.parquet", "\"1\"", R"({\"numRecords\":2})")});
  EXPECT_THAT(RowsOf(TableScan::Make(Snapshot::Load(fs_, "t"))->Read()),
              UnorderedElementsAre("5,v5,1", "6,v6,1"));

  // Id mode: the stored names are irrelevant, the field ids decide.
  WriteDataFile(*fs_, "t/a.parquet", "old_name_1", "old_name_2", {5, 6}, /*field_ids=*/true);
  WriteLog(R"("delta.columnMapping.mode":"id")", name_schema,
           {Add("a.parquet", "\"1\"", R"({\"numRecords\":2})")});
  EXPECT_THAT(RowsOf(TableScan::Make(Snapshot::Load(fs_, "t"))->Read()),
              UnorderedElementsAre("5,v5,1", "6,v6,1"));

  // A column the file does not have reads as NULL.
  WriteDataFile(*fs_, "t/a.parquet", "col-a", "other", {5});
  WriteLog(R"("delta.columnMapping.mode":"name")", name_schema,
           {Add("a.parquet", "\"1\"", R"({\"numRecords\":1})")});
  EXPECT_THAT(RowsOf(TableScan::Make(Snapshot::Load(fs_, "t"))->Read()), ElementsAre("5,NULL,1"));
}

TEST_F(TableScanTest, MissingDataFileIsAnError) {
  WriteLog("", SchemaString("", ""), {Add("gone.parquet", "\"1\"", R"({\"numRecords\":1})")});
  try {
    TableScan::Make(Snapshot::Load(fs_, "t"))->Read();
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PATH_NOT_FOUND");
  }
}

TEST(FileStatsTest, ParsesLazilyTypedValues) {
  auto stats = FileStats::Parse(
      R"({"numRecords":3,"minValues":{"a":1,"s":{"x":"abc"},"d":-3.1661E-8,"ts":"2000-01-01T00:00:00.000-08:00","dt":"2000-01-01"},"maxValues":{"a":9},"nullCount":{"a":0,"s":{"x":1}},"tightBounds":false})",
      "f");
  EXPECT_EQ(stats.num_records(), 3);
  EXPECT_FALSE(stats.tight_bounds());
  EXPECT_EQ(std::get<int64_t>(*stats.Min({"a"}, *LongType())), 1);
  EXPECT_EQ(std::get<int64_t>(*stats.Max({"a"}, *LongType())), 9);
  EXPECT_EQ(std::get<std::string>(*stats.Min({"s", "x"}, *StringType())), "abc");
  EXPECT_EQ(std::get<Decimal128>(*stats.Min({"d"}, *DecimalType(20, 15))), -31661000);
  EXPECT_EQ(std::get<int64_t>(*stats.Min({"ts"}, *TimestampType())), 946713600000000LL);
  EXPECT_EQ(std::get<int64_t>(*stats.Min({"dt"}, *DateType())), 10957);
  EXPECT_EQ(stats.NullCount({"s", "x"}), 1);
  EXPECT_FALSE(stats.Max({"s", "x"}, *StringType()).has_value());
  EXPECT_FALSE(stats.Min({"a"}, *BooleanType()).has_value());
  EXPECT_TRUE(FileStats::Parse("{}", "f").tight_bounds());
  EXPECT_THROW(FileStats::Parse("[1]", "f"), Error);
  EXPECT_THROW(FileStats::Parse(R"({"numRecords":"x"})", "f"), Error);
}

}  // namespace
}  // namespace silt::log

namespace silt::log {
namespace {

// Writes ids `ids` (and "v<id>") in row groups of `group_rows` rows.
void WriteRowGroups(io::FileSystem& fs, const std::string& path, const std::vector<int64_t>& ids,
                    int64_t group_rows) {
  auto schema = std::make_shared<const Schema>(
      std::vector<Field>{Field{"id", LongType(), true, {}}, Field{"v", StringType(), true, {}}});
  VectorBuilder id_builder(LongType());
  VectorBuilder value_builder(StringType());
  for (int64_t i : ids) {
    id_builder.AppendInt(i);
    value_builder.AppendString("v" + std::to_string(i));
  }
  parquet::WriterOptions options;
  options.max_parallelism = 1;
  options.row_group_max_rows = group_rows;
  auto writer = parquet::FileWriter::Open(fs.OpenWrite(path), *schema, options);
  writer->Write(Batch(schema, {id_builder.Finish(), value_builder.Finish()}, static_cast<int64_t>(ids.size())));
  writer->Close();
}

std::shared_ptr<JoinKeyFilter> PublishedFilter(const std::string& column, const DataTypePtr& type,
                                               const std::vector<int64_t>& keys) {
  VectorBuilder builder(type);
  for (int64_t key : keys) builder.AppendInt(key);
  auto filter = std::make_shared<JoinKeyFilter>(column);
  filter->Publish(JoinKeySet::Make(*builder.Finish(), nullptr));
  return filter;
}

std::vector<std::string> ReadOpened(const TableScan& scan, const AddFile& file) {
  auto opened = scan.OpenFile(file);
  std::vector<Batch> batches;
  for (int group : opened->row_groups()) batches.push_back(opened->ReadRowGroup(group));
  return RowsOf(batches);
}

TEST_F(TableScanTest, JoinFiltersSkipRowGroupsAndRowsTheirKeysRuleOut) {
  std::vector<int64_t> ids(1000);
  for (int64_t i = 0; i < 1000; ++i) ids[static_cast<size_t>(i)] = i;
  WriteRowGroups(*fs_, "t/part=7/a.parquet", ids, 100);
  WriteRowGroups(*fs_, "t/part=8/b.parquet", {150, 151}, 100);
  auto deleted = DeletedRows::FromIndexes({151});
  fs_->WriteFile("t/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin",
                 MakeDeletionVectorFile(deleted));
  std::string dv = R"({"storageType":"u","pathOrInlineDv":"^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":)" +
                   std::to_string(deleted.Serialize().size()) + R"(,"cardinality":1})";
  WriteLog("", SchemaString("", ""),
           {Add("part=7/a.parquet", "\"7\"", R"({\"numRecords\":1000})", dv),
            Add("part=8/b.parquet", "\"8\"", R"({\"numRecords\":2})")});
  auto snapshot = Snapshot::Load(fs_, "t");
  auto by_path = [](const TableScan& scan, const std::string& path) {
    for (const AddFile* file : scan.files()) {
      if (file->path == path) return file;
    }
    return static_cast<const AddFile*>(nullptr);
  };

  // Keys 150..5000: row group 0 lies below them and is skipped by its statistics; of the others
  // only the keys' rows come back, the deletion vector's row 151 left out.
  ScanOptions options;
  options.columns = {"id", "v", "part"};
  options.join_filters = {PublishedFilter("id", LongType(), {150, 151, 420, 999, 5000})};
  auto scan = TableScan::Make(snapshot, options);
  const AddFile& a = *by_path(*scan, "part=7/a.parquet");
  EXPECT_EQ(scan->OpenFile(a)->row_groups().size(), 9u);
  EXPECT_THAT(ReadOpened(*scan, a), ElementsAre("150,v150,7", "420,v420,7", "999,v999,7"));

  // Published after the file was opened: applied from the next row group read on (the column
  // named in any case).
  ScanOptions late;
  late.columns = {"id"};
  auto later = std::make_shared<JoinKeyFilter>("ID");
  late.join_filters = {later};
  auto late_scan = TableScan::Make(snapshot, late);
  auto opened = late_scan->OpenFile(*by_path(*late_scan, "part=7/a.parquet"));
  EXPECT_EQ(opened->row_groups().size(), 10u);
  EXPECT_EQ(opened->ReadRowGroup(0).num_rows(), 100);
  later->Publish(PublishedFilter("id", LongType(), {150, 151, 420})->Current());
  EXPECT_EQ(opened->ReadRowGroup(0).num_rows(), 0);
  EXPECT_THAT(RowsOf({opened->ReadRowGroup(1)}), ElementsAre("150"));

  // Keys of another kind than the column's test nothing.
  VectorBuilder strings(StringType());
  strings.AppendString("x");
  auto other_kind = std::make_shared<JoinKeyFilter>("id");
  other_kind->Publish(JoinKeySet::Make(*strings.Finish(), nullptr));
  ScanOptions mismatched;
  mismatched.columns = {"id"};
  mismatched.join_filters = {other_kind};
  auto mismatched_scan = TableScan::Make(snapshot, mismatched);
  EXPECT_EQ(ReadOpened(*mismatched_scan, *by_path(*mismatched_scan, "part=7/a.parquet")).size(), 999u);

  // A key on the partition column prunes the files whose value is not a key.
  ScanOptions by_partition;
  by_partition.columns = {"id", "part"};
  by_partition.join_filters = {PublishedFilter("part", IntegerType(), {8, 9})};
  auto partitioned = TableScan::Make(snapshot, by_partition);
  EXPECT_TRUE(partitioned->OpenFile(*by_path(*partitioned, "part=7/a.parquet"))->row_groups().empty());
  EXPECT_THAT(ReadOpened(*partitioned, *by_path(*partitioned, "part=8/b.parquet")),
              ElementsAre("150,8", "151,8"));

  // Without a filter published every live row comes back.
  ScanOptions pending;
  pending.columns = {"id"};
  pending.join_filters = {std::make_shared<JoinKeyFilter>("id")};
  auto unfiltered = TableScan::Make(snapshot, pending);
  EXPECT_EQ(ReadOpened(*unfiltered, *by_path(*unfiltered, "part=7/a.parquet")).size(), 999u);
}

}  // namespace
}  // namespace silt::log
