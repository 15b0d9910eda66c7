#include "silt/log/data_file_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/base/check.h"
#include "silt/base/testing_error_class.h"
#include "silt/log/file_stats.h"
#include "silt/log/stats_collector.h"
#include "silt/log/table_scan.h"
#include "silt/log/table_writer.h"
#include "silt/parquet/reader.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kRoot = "mem/data";

Schema TableSchema() {
  return Schema({Field{"id", LongType(), true, {}}, Field{"name", StringType(), true, {}},
                 Field{"part", StringType(), true, {}}});
}

Batch MakeRows(const std::vector<int64_t>& ids, const std::vector<std::optional<std::string>>& names,
               const std::vector<std::optional<std::string>>& parts) {
  auto schema = std::make_shared<const Schema>(TableSchema());
  VectorBuilder id(LongType()), name(StringType()), part(StringType());
  for (size_t i = 0; i < ids.size(); ++i) {
    id.AppendInt(ids[i]);
    if (names[i]) name.AppendString(*names[i]); else name.AppendNull();
    if (parts[i]) part.AppendString(*parts[i]); else part.AppendNull();
  }
  return Batch(schema, {id.Finish(), name.Finish(), part.Finish()}, static_cast<int64_t>(ids.size()));
}

Metadata MakeMetadata(bool partitioned, StringMap configuration = {}) {
  Metadata metadata;
  metadata.schema_string = ToDeltaSchemaJson(TableSchema());
  if (partitioned) metadata.partition_columns = {"part"};
  metadata.configuration = std::move(configuration);
  return metadata;
}

TEST(StatsCollectorTest, TruncatesStringsToValidBounds) {
  EXPECT_EQ(TruncateMinString("abcdef", 3), "abc");
  EXPECT_EQ(TruncateMaxString("abcdef", 3), "abc\xF4\x8F\xBF\xBF");
  EXPECT_EQ(TruncateMaxString("ab", 3), "ab");
  // Characters, not bytes: "é" is two bytes.
  EXPECT_EQ(TruncateMinString("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xC3\xA9");
  // The next character is already U+10FFFF: back off one character.
  EXPECT_EQ(TruncateMaxString("ab\xF4\x8F\xBF\xBFz", 2), "a\xF4\x8F\xBF\xBF");
}

TEST(StatsCollectorTest, CollectsMinMaxAndNullCounts) {
  Schema schema({Field{"i", IntegerType(), true, {}}, Field{"s", StringType(), true, {}},
                 Field{"b", BooleanType(), true, {}},
                 Field{"st", StructType({Field{"x", DoubleType(), true, {}}}), true, {}},
                 Field{"ts", TimestampType(), true, {}}, Field{"d", DecimalType(5, 2), true, {}}});
  auto schema_ptr = std::make_shared<const Schema>(schema);
  VectorBuilder i(IntegerType()), s(StringType()), b(BooleanType()), st(schema.field(3).type),
      ts(TimestampType()), d(DecimalType(5, 2));
  i.AppendInt(5); i.AppendNull(); i.AppendInt(-3);
  s.AppendString("pear"); s.AppendString(std::string(40, 'z')); s.AppendString("apple");
  b.AppendBool(true); b.AppendNull(); b.AppendNull();
  st.child(0).AppendDouble(1.5); st.AppendStruct();
  st.AppendNull();
  st.child(0).AppendDouble(-2.25); st.AppendStruct();
  ts.AppendInt(1'500); ts.AppendInt(2'000'001); ts.AppendNull();
  d.AppendDecimal(-150); d.AppendDecimal(12345); d.AppendNull();
  Batch batch(schema_ptr, {i.Finish(), s.Finish(), b.Finish(), st.Finish(), ts.Finish(), d.Finish()}, 3);
  StatsCollector collector(schema);
  collector.Update(batch);
  std::string json = collector.ToJson();
  EXPECT_EQ(json,
            "{\"numRecords\":3,"
            "\"minValues\":{\"i\":-3,\"s\":\"apple\",\"st\":{\"x\":-2.25},\"ts\":\"1970-01-01T00:00:00.001Z\",\"d\":-1.50},"
            "\"maxValues\":{\"i\":5,\"s\":\"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\xF4\x8F\xBF\xBF\",\"st\":{\"x\":1.5},"
            "\"ts\":\"1970-01-01T00:00:02.001Z\",\"d\":123.45},"
            "\"nullCount\":{\"i\":1,\"s\":0,\"b\":2,\"st\":{\"x\":1},\"ts\":1,\"d\":1}}");
  // The reading side parses what we write.
  FileStats stats = FileStats::Parse(json, "f");
  EXPECT_EQ(stats.num_records(), 3);
  EXPECT_EQ(stats.NullCount({"st", "x"}), 1);
  EXPECT_EQ(std::get<int64_t>(*stats.Min({"i"}, *IntegerType())), -3);
  EXPECT_EQ(std::get<int64_t>(*stats.Min({"ts"}, *TimestampType())), 1000);
}

TEST(StatsCollectorTest, IndexesOnlyTheFirstLeafColumns) {
  Schema schema({Field{"a", LongType(), true, {}}, Field{"b", LongType(), true, {}}});
  auto schema_ptr = std::make_shared<const Schema>(schema);
  VectorBuilder a(LongType()), b(LongType());
  a.AppendInt(1);
  b.AppendInt(2);
  StatsOptions options;
  options.num_indexed_columns = 1;
  options.write_tight_bounds = true;
  StatsCollector collector(schema, options);
  collector.Update(Batch(schema_ptr, {a.Finish(), b.Finish()}, 1));
  EXPECT_EQ(collector.ToJson(),
            "{\"numRecords\":1,\"minValues\":{\"a\":1},\"maxValues\":{\"a\":1},\"nullCount\":{\"a\":0},\"tightBounds\":true}");
}

TEST(StatsCollectorTest, BoundsOfBatchesWithoutNullsAndOfSlices) {
  // Batches without NULLs take a branch-free path; strings sharing their first eight bytes are
  // compared in full, bytes above 0x7F compare unsigned, and a slice starts at its own offset.
  Schema schema({Field{"n", LongType(), true, {}}, Field{"s", StringType(), true, {}},
                 Field{"d", DecimalType(5, 2), true, {}}});
  auto schema_ptr = std::make_shared<const Schema>(schema);
  VectorBuilder n(LongType()), s(StringType()), d(DecimalType(5, 2));
  const std::vector<std::string> strings = {"prefix00b", "prefix00", "prefix00a", "\xC3\xA9t\xC3\xA9", "prefix0"};
  const std::vector<int64_t> numbers = {7, -9, 3, 100, -200};
  for (size_t row = 0; row < strings.size(); ++row) {
    n.AppendInt(numbers[row]);
    s.AppendString(strings[row]);
    d.AppendDecimal(numbers[row] * 10);
  }
  Batch batch(schema_ptr, {n.Finish(), s.Finish(), d.Finish()}, 5);
  StatsCollector collector(schema);
  collector.Update(batch.Slice(1, 3));  // -9, 3, 100; "prefix00", "prefix00a", "\xC3\xA9t\xC3\xA9"
  EXPECT_EQ(collector.ToJson(),
            "{\"numRecords\":3,\"minValues\":{\"n\":-9,\"s\":\"prefix00\",\"d\":-0.90},"
            "\"maxValues\":{\"n\":100,\"s\":\"\xC3\xA9t\xC3\xA9\",\"d\":10.00},"
            "\"nullCount\":{\"n\":0,\"s\":0,\"d\":0}}");
  collector.Update(batch.Slice(0, 1));  // "prefix00b" ties "prefix00" on eight bytes
  collector.Update(batch.Slice(4, 1));  // "prefix0" is shorter: the new minimum
  EXPECT_EQ(collector.ToJson(),
            "{\"numRecords\":5,\"minValues\":{\"n\":-200,\"s\":\"prefix0\",\"d\":-20.00},"
            "\"maxValues\":{\"n\":100,\"s\":\"\xC3\xA9t\xC3\xA9\",\"d\":10.00},"
            "\"nullCount\":{\"n\":0,\"s\":0,\"d\":0}}");
}

TEST(StatsCollectorTest, NanLeavesNoBounds) {
  Schema schema({Field{"x", DoubleType(), true, {}}});
  VectorBuilder x(DoubleType());
  x.AppendDouble(1.0);
  x.AppendDouble(std::nan(""));
  StatsCollector collector(schema);
  collector.Update(Batch(std::make_shared<const Schema>(schema), {x.Finish()}, 2));
  EXPECT_EQ(collector.ToJson(), "{\"numRecords\":2,\"nullCount\":{\"x\":0}}");
}

TEST(DataFileWriterTest, EscapesPartitionFolders) {
  EXPECT_EQ(EscapePartitionPathValue(std::nullopt), "__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(EscapePartitionPathValue(std::string("")), "__HIVE_DEFAULT_PARTITION__");
  EXPECT_EQ(EscapePartitionPathValue(std::string("2024-01-01 10:00:00")), "2024-01-01 10%3A00%3A00");
  EXPECT_EQ(EscapePartitionPathValue(std::string("a/b=c%")), "a%2Fb%3Dc%25");
}

TEST(DataFileWriterTest, WritesOneFilePerPartitionWithStats) {
  auto fs = io::MakeMemoryFileSystem();
  auto writer = DataFileWriter::Make(fs, kRoot, MakeMetadata(true));
  writer->Write(MakeRows({1, 2, 3, 4}, {"a", "b", std::nullopt, "d"},
                         {"x", "y:z", "x", std::nullopt}));
  std::vector<AddFile> adds = writer->Finish();
  ASSERT_EQ(adds.size(), 3u);
  std::map<std::string, const AddFile*> by_folder;
  for (const auto& add : adds) by_folder[add.path.substr(0, add.path.find('/'))] = &add;
  ASSERT_EQ(by_folder.count("part=x"), 1u);
  ASSERT_EQ(by_folder.count("part=y%253Az"), 1u);  // Hive escape, then URI encoding
  ASSERT_EQ(by_folder.count("part=__HIVE_DEFAULT_PARTITION__"), 1u);
  const AddFile& x = *by_folder["part=x"];
  EXPECT_THAT(x.path, StartsWith("part=x/part-00000-"));
  EXPECT_THAT(x.path, ::testing::EndsWith(".c000.snappy.parquet"));
  EXPECT_EQ(x.partition_values, (PartitionValueMap{{"part", "x"}}));
  EXPECT_EQ(*x.stats,
            "{\"numRecords\":2,\"minValues\":{\"id\":1,\"name\":\"a\"},\"maxValues\":{\"id\":3,\"name\":\"a\"},"
            "\"nullCount\":{\"id\":0,\"name\":1}}");
  EXPECT_EQ(by_folder["part=__HIVE_DEFAULT_PARTITION__"]->partition_values,
            (PartitionValueMap{{"part", std::nullopt}}));
  EXPECT_EQ(by_folder["part=y%253Az"]->partition_values, (PartitionValueMap{{"part", "y:z"}}));
  // The file holds only the data columns, and its size is the add's.
  std::string storage = std::string(kRoot) + "/" + DecodeLogPath(by_folder["part=y%253Az"]->path);
  auto reader = parquet::FileReader::Open(*fs, storage);
  EXPECT_EQ(reader->schema().num_fields(), 2u);
  EXPECT_EQ(reader->num_rows(), 1);
  EXPECT_EQ(static_cast<int64_t>(fs->Stat(storage)->size), by_folder["part=y%253Az"]->size);
}

TEST(DataFileWriterTest, SplitsFilesAtMaxRows) {
  auto fs = io::MakeMemoryFileSystem();
  DataFileWriterOptions options;
  options.max_rows_per_file = 2;
  auto writer = DataFileWriter::Make(fs, kRoot, MakeMetadata(false), options);
  writer->Write(MakeRows({1, 2, 3, 4, 5}, {"a", "b", "c", "d", "e"}, {"p", "p", "p", "p", "p"}));
  std::vector<AddFile> adds = writer->Finish();
  ASSERT_EQ(adds.size(), 3u);
  int64_t total = 0;
  for (const auto& add : adds) total += *FileStats::Parse(*add.stats, add.path).num_records();
  EXPECT_EQ(total, 5);
}

TEST(DataFileWriterTest, RejectsMismatchedSchemaAndNullsInNotNullColumns) {
  auto fs = io::MakeMemoryFileSystem();
  auto writer = DataFileWriter::Make(fs, kRoot, MakeMetadata(false));
  Schema other({Field{"id", IntegerType(), true, {}}});
  VectorBuilder id(IntegerType());
  id.AppendInt(1);
  Batch wrong(std::make_shared<const Schema>(other), {id.Finish()}, 1);
  EXPECT_EQ(ErrorClassOf([&] { writer->Write(wrong); }), "DELTA_METADATA_MISMATCH");

  Schema strict({Field{"id", LongType(), false, {}}, Field{"name", StringType(), true, {}},
                 Field{"part", StringType(), true, {}}});
  Metadata metadata = MakeMetadata(false);
  metadata.schema_string = ToDeltaSchemaJson(strict);
  auto strict_writer = DataFileWriter::Make(fs, kRoot, metadata);
  VectorBuilder ids(LongType()), names(StringType()), parts(StringType());
  ids.AppendNull();
  names.AppendNull();
  parts.AppendNull();
  Batch with_null(std::make_shared<const Schema>(strict), {ids.Finish(), names.Finish(), parts.Finish()}, 1);
  EXPECT_EQ(ErrorClassOf([&] { strict_writer->Write(with_null); }), "DELTA_NOT_NULL_CONSTRAINT_VIOLATED");
}

std::vector<std::string> ReadRows(const std::shared_ptr<io::FileSystem>& fs) {
  auto scan = TableScan::Make(Snapshot::Load(fs, kRoot));
  std::vector<std::string> rows;
  for (const auto& batch : scan->Read()) {
    for (int64_t row = 0; row < batch.num_rows(); ++row) {
      std::string text;
      for (size_t column = 0; column < batch.num_columns(); ++column) {
        text += batch.column(column)->ValueToString(row) + "|";
      }
      rows.push_back(text);
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST(TableWriterTest, CreateAppendOverwriteReadBack) {
  auto fs = io::MakeMemoryFileSystem();
  CreateTableOptions create;
  create.schema = TableSchema();
  create.partition_columns = {"part"};
  CommitResult created = CreateTable(fs, kRoot, create, {MakeRows({1, 2}, {"a", "b"}, {"x", "y"})});
  EXPECT_EQ(created.version, 0);
  EXPECT_EQ(ReadRows(fs), (std::vector<std::string>{"1|a|x|", "2|b|y|"}));
  EXPECT_EQ(ErrorClassOf([&] { CreateTable(fs, kRoot, create); }), "DELTA_TABLE_ALREADY_EXISTS");

  WriteResult appended = AppendToTable(fs, kRoot, {MakeRows({3}, {std::nullopt}, {"x"})});
  EXPECT_EQ(appended.commit->version, 1);
  EXPECT_EQ(ReadRows(fs), (std::vector<std::string>{"1|a|x|", "2|b|y|", "3|NULL|x|"}));
  auto snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->commit_info()->operation, "WRITE");
  EXPECT_EQ(snapshot->commit_info()->is_blind_append, true);
  EXPECT_THAT(snapshot->commit_info()->raw_json, HasSubstr("\"mode\":\"Append\""));
  EXPECT_THAT(snapshot->commit_info()->raw_json, HasSubstr("\"numOutputRows\":\"1\""));

  WriteResult overwritten = OverwriteTable(fs, kRoot, {MakeRows({9}, {"z"}, {"q"})});
  EXPECT_EQ(overwritten.removed_files, 3);
  EXPECT_EQ(ReadRows(fs), (std::vector<std::string>{"9|z|q|"}));
  snapshot = Snapshot::Load(fs, kRoot);
  EXPECT_EQ(snapshot->tombstones().size(), 3u);
  EXPECT_EQ(snapshot->commit_info()->is_blind_append, false);
}

TEST(TableWriterTest, IdempotentWritesSkipAppliedVersions) {
  auto fs = io::MakeMemoryFileSystem();
  CreateTableOptions create;
  create.schema = TableSchema();
  CreateTable(fs, kRoot, create);
  WriteOptions options;
  options.txn_app_id = "job";
  options.txn_version = 7;
  EXPECT_TRUE(AppendToTable(fs, kRoot, {MakeRows({1}, {"a"}, {"p"})}, options).commit.has_value());
  EXPECT_FALSE(AppendToTable(fs, kRoot, {MakeRows({1}, {"a"}, {"p"})}, options).commit.has_value());
  EXPECT_EQ(ReadRows(fs).size(), 1u);
}

TEST(TableWriterTest, AppendOnlyTableCannotBeOverwritten) {
  auto fs = io::MakeMemoryFileSystem();
  CreateTableOptions create;
  create.schema = TableSchema();
  create.configuration = {{"delta.appendOnly", "true"}};
  CreateTable(fs, kRoot, create, {MakeRows({1}, {"a"}, {"p"})});
  EXPECT_EQ(ErrorClassOf([&] { OverwriteTable(fs, kRoot, {MakeRows({2}, {"b"}, {"p"})}); }),
            "DELTA_CANNOT_MODIFY_APPEND_ONLY");
  EXPECT_EQ(ReadRows(fs), (std::vector<std::string>{"1|a|p|"}));
}

}  // namespace
}  // namespace silt::log
