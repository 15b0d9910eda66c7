#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <utility>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/base/testing_error_class.h"
#include "silt/base/thread_pool.h"
#include "silt/io/file_system.h"
#include "silt/io/object_read_file.h"
#include "silt/parquet/column_reader.h"
#include "silt/parquet/metadata.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/schema_from_parquet.h"
#include "silt/parquet/writer.h"
#include "silt/vector/take.h"

namespace silt::parquet {
namespace {

using ::testing::ElementsAre;

std::string ReadSeed(const std::string& name) {
  std::ifstream in(std::string(SILT_PARQUET_SEED_DIR) + "/" + name, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::unique_ptr<FileReader> OpenBytes(const std::string& bytes, const std::string& name = "x") {
  std::shared_ptr<io::FileSystem> fs = io::MakeMemoryFileSystem();
  fs->WriteFile("/" + name, bytes);
  return FileReader::Open(*fs, "/" + name);
}

const char* kSeeds[] = {"flat_nested_snappy.parquet", "flat_nested_v2_zstd.parquet",
                        "uncompressed_nodict.parquet", "delta_v2_uncompressed.parquet",
                        "empty.parquet", "all_null_nested_lists.parquet"};

TEST(FileReaderTest, ReadsFlatAndNestedColumns) {
  for (const char* name : {"flat_nested_snappy.parquet", "flat_nested_v2_zstd.parquet",
                           "uncompressed_nodict.parquet"}) {
    SCOPED_TRACE(name);
    auto reader = OpenBytes(ReadSeed(name));
    EXPECT_EQ(reader->num_rows(), 40);
    const Schema& schema = reader->schema();
    EXPECT_EQ(schema.field(0).type->ToString(), "bigint");
    EXPECT_EQ(schema.field(schema.FieldIndex("i8")).type->ToString(), "tinyint");
    EXPECT_EQ(schema.field(schema.FieldIndex("d18")).type->ToString(), "decimal(18,2)");
    EXPECT_EQ(schema.field(schema.FieldIndex("d38")).type->ToString(), "decimal(38,10)");
    EXPECT_EQ(schema.field(schema.FieldIndex("dt")).type->ToString(), "date");
    EXPECT_EQ(schema.field(schema.FieldIndex("ts")).type->ToString(), "timestamp_ntz");
    EXPECT_EQ(schema.field(schema.FieldIndex("lst")).type->ToString(), "array<bigint>");
    EXPECT_EQ(schema.field(schema.FieldIndex("st")).type->ToString(), "struct<x:bigint,y:string>");
    EXPECT_EQ(schema.field(schema.FieldIndex("mp")).type->ToString(), "map<string,bigint>");

    std::vector<Batch> batches = reader->Read();
    ASSERT_EQ(batches.size(), 1u);
    const Batch& batch = batches[0];
    ASSERT_EQ(batch.num_rows(), 40);
    const Vector& id = *batch.column(0);
    for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(id.values<int64_t>()[i], i);
    const Vector& s = *batch.column(static_cast<size_t>(schema.FieldIndex("s")));
    EXPECT_TRUE(s.IsNull(0));
    EXPECT_EQ(s.GetString(1), "str_1");
    EXPECT_EQ(s.GetString(10), "str_3");
    EXPECT_EQ(s.null_count(), 10);
    const Vector& d18 = *batch.column(static_cast<size_t>(schema.FieldIndex("d18")));
    EXPECT_EQ(static_cast<int64_t>(d18.values<Decimal128>()[10]), 370);  // 3.70
    const Vector& ts = *batch.column(static_cast<size_t>(schema.FieldIndex("ts")));
    EXPECT_TRUE(ts.IsNull(5));
    EXPECT_EQ(ts.values<int64_t>()[1], 1704067201000000);
    const Vector& b = *batch.column(static_cast<size_t>(schema.FieldIndex("b")));
    EXPECT_TRUE(b.GetBool(0));
    EXPECT_FALSE(b.GetBool(1));
    // lst = [range, NULL][1:range % 3]: [], [1], [2, NULL], [] ...
    const Vector& lst = *batch.column(static_cast<size_t>(schema.FieldIndex("lst")));
    EXPECT_EQ(lst.ListLength(0), 0);
    EXPECT_EQ(lst.ListLength(1), 1);
    EXPECT_EQ(lst.ListLength(2), 2);
    EXPECT_EQ(lst.child(0)->values<int64_t>()[lst.ListStart(2)], 2);
    EXPECT_TRUE(lst.child(0)->IsNull(lst.ListStart(2) + 1));
    const Vector& st = *batch.column(static_cast<size_t>(schema.FieldIndex("st")));
    EXPECT_EQ(st.child(0)->values<int64_t>()[7], 2);
    EXPECT_EQ(st.child(1)->GetString(7), "v1");
    const Vector& mp = *batch.column(static_cast<size_t>(schema.FieldIndex("mp")));
    EXPECT_EQ(mp.ListLength(4), 1);
    EXPECT_EQ(mp.child(0)->child(0)->GetString(mp.ListStart(4)), "k1");
    EXPECT_EQ(mp.child(0)->child(1)->values<int64_t>()[mp.ListStart(4)], 4);
  }
}

TEST(FileReaderTest, ReadsDeltaEncodedV2Pages) {
  auto reader = OpenBytes(ReadSeed("delta_v2_uncompressed.parquet"));
  std::vector<Batch> batches = reader->Read();
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].num_rows(), 30);
  for (int64_t i = 0; i < 30; ++i) {
    EXPECT_EQ(batches[0].column(0)->values<int64_t>()[i], i);
    EXPECT_EQ(batches[0].column(1)->GetString(i), "p" + std::to_string(i));
  }
}

TEST(FileReaderTest, ReadsEmptyAndAllNullFiles) {
  auto empty = OpenBytes(ReadSeed("empty.parquet"));
  EXPECT_EQ(empty->num_rows(), 0);
  int64_t rows = 0;
  for (const Batch& batch : empty->Read()) rows += batch.num_rows();
  EXPECT_EQ(rows, 0);

  auto nulls = OpenBytes(ReadSeed("all_null_nested_lists.parquet"));
  std::vector<Batch> batches = nulls->Read();
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].column(0)->null_count(), 10);
  EXPECT_EQ(batches[0].schema()->field(1).type->ToString(), "array<array<bigint>>");
  const Vector& nested = *batches[0].column(1);
  EXPECT_EQ(nested.ListLength(3), 1);
  const Vector& inner = *nested.child(0);
  EXPECT_EQ(inner.ListLength(nested.ListStart(3)), 1);
  EXPECT_EQ(inner.child(0)->values<int64_t>()[inner.ListStart(nested.ListStart(3))], 3);
}

TEST(FileReaderTest, ProjectsByNameAndChecksColumns) {
  auto reader = OpenBytes(ReadSeed("flat_nested_snappy.parquet"), "file.parquet");
  ReadOptions options;
  options.columns = {"S", "id"};  // names resolve case-insensitively when not exact
  options.max_parallelism = 1;
  std::vector<Batch> batches = reader->Read(options);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].num_columns(), 2u);
  EXPECT_EQ(batches[0].schema()->field(0).name, "s");
  options.columns = {"missing"};
  EXPECT_EQ(ErrorClassOf([&] { reader->Read(options); }), "PARQUET_COLUMN_NOT_FOUND");
  options.columns = {};
  options.field_ids = {77};
  EXPECT_EQ(ErrorClassOf([&] { reader->Read(options); }), "PARQUET_COLUMN_NOT_FOUND");
  options.field_ids = {};
  options.row_groups = {1};
  EXPECT_EQ(ErrorClassOf([&] { reader->Read(options); }), "INVALID_ARGUMENT");
}

TEST(FileReaderTest, SkipsRowGroupsByStatistics) {
  auto reader = OpenBytes(ReadSeed("flat_nested_snappy.parquet"));
  auto select = [&](ColumnPredicate predicate) {
    ReadOptions options;
    options.predicates = {std::move(predicate)};
    return reader->SelectRowGroups(options).size();
  };
  StatsLiteral forty;
  forty.int_value = 40;
  StatsLiteral thirty_nine;
  thirty_nine.int_value = 39;
  EXPECT_EQ(select({"id", ColumnPredicate::Op::kEqual, forty}), 0u);
  EXPECT_EQ(select({"id", ColumnPredicate::Op::kGreaterOrEqual, forty}), 0u);
  EXPECT_EQ(select({"id", ColumnPredicate::Op::kGreaterOrEqual, thirty_nine}), 1u);
  EXPECT_EQ(select({"id", ColumnPredicate::Op::kLess, StatsLiteral{}}), 1u);  // no literal
  EXPECT_EQ(select({"id", ColumnPredicate::Op::kIsNull, {}}), 0u);
  EXPECT_EQ(select({"s", ColumnPredicate::Op::kIsNull, {}}), 1u);
  StatsLiteral text;
  text.string_value = "zzz";
  EXPECT_EQ(select({"s", ColumnPredicate::Op::kGreater, text}), 0u);
  text.string_value = "str_";
  EXPECT_EQ(select({"s", ColumnPredicate::Op::kGreater, text}), 1u);
  StatsLiteral big;
  big.decimal_value = Decimal128{100000};  // 1000.00 in decimal(18,2)
  EXPECT_EQ(select({"d18", ColumnPredicate::Op::kGreater, big}), 0u);
  StatsLiteral date;
  date.int_value = 18262 + 39;  // 2020-02-09, the last date
  EXPECT_EQ(select({"dt", ColumnPredicate::Op::kGreater, date}), 0u);
  EXPECT_EQ(select({"dt", ColumnPredicate::Op::kEqual, date}), 1u);
}

TEST(FileReaderTest, BadFilesAreCorruptWithTheFileName) {
  std::string good = ReadSeed("flat_nested_snappy.parquet");
  std::vector<std::string> bad = {"", "PAR1", "PAR1PAR1", good.substr(0, good.size() - 1),
                                  good.substr(1), "PAR1" + std::string(20, '\0') + "PAR1"};
  for (const std::string& bytes : bad) {
    try {
      OpenBytes(bytes, "bad.parquet")->Read();
      ADD_FAILURE() << "expected an error for " << bytes.size() << " bytes";
    } catch (const Error& error) {
      EXPECT_EQ(error.error_class(), "PARQUET_CORRUPT_FILE");
      EXPECT_THAT(error.what(), ::testing::HasSubstr("bad.parquet"));
    }
  }
}

TEST(FileReaderTest, EveryTruncationAndByteFlipFailsCleanly) {
  // A small exhaustive fuzz: every single-byte change of real files either reads or raises a
  // silt::Error (never a crash, which the sanitizer build would catch).
  for (const char* name : kSeeds) {
    std::string good = ReadSeed(name);
    for (size_t i = 0; i < good.size(); ++i) {
      // Small files get two changes per byte; the larger ones one, to keep sanitizer runs short.
      for (int variant = 0; variant < (good.size() < 1000 ? 2 : 1); ++variant) {
        std::string changed = good;
        changed[i] = static_cast<char>(variant == 0 ? changed[i] ^ 0xFF : changed[i] + 1);
        try {
          auto reader = OpenBytes(changed);
          ReadOptions options;
          options.max_parallelism = 1;
          reader->Read(options);
        } catch (const Error&) {
        }
      }
    }
  }
}

TEST(FileReaderTest, ParallelReadMatchesSerialRead) {
  auto reader = OpenBytes(ReadSeed("flat_nested_v2_zstd.parquet"));
  ThreadPool pool(3);
  ReadOptions parallel;
  parallel.pool = &pool;
  ReadOptions serial;
  serial.max_parallelism = 1;
  std::vector<Batch> a = reader->Read(parallel);
  std::vector<Batch> b = reader->Read(serial);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].Equals(b[i]));
}

// Writes `groups` row groups of `rows_per_group` rows (id, name) into `fs` at `path`.
void WriteRowGroups(io::FileSystem& fs, const std::string& path, int groups, int rows_per_group) {
  Schema schema({{"id", LongType(), false, {}}, {"name", StringType(), true, {}}});
  WriterOptions options;
  options.row_group_max_rows = rows_per_group;
  auto writer = FileWriter::Open(fs.OpenWrite(path), schema, options);
  VectorBuilder ids(LongType()), names(StringType());
  for (int i = 0; i < groups * rows_per_group; ++i) {
    ids.AppendInt(i);
    if (i % 5 == 0) {
      names.AppendNull();
    } else {
      names.AppendString("n" + std::to_string(i));
    }
  }
  int64_t rows = groups * rows_per_group;
  writer->Write(Batch(std::make_shared<const Schema>(schema), {ids.Finish(), names.Finish()}, rows));
  writer->Close();
}

TEST(FileReaderTest, OptionalColumnsWithoutNullsKeepNoLevelsUntilTheFirstNull) {
  // Top-level optional columns over several pages: one never NULL, one NULL only after its
  // first pages; and an optional struct with a required field (whose levels say whether the
  // struct is NULL, so they are always kept).
  auto point = StructType({Field{"x", LongType(), false, {}}});
  Schema schema({Field{"dense", LongType(), true, {}}, Field{"late", StringType(), true, {}},
                 Field{"point", point, true, {}}});
  VectorBuilder dense(LongType()), late(StringType()), points(point);
  const int rows = 6000;
  for (int i = 0; i < rows; ++i) {
    dense.AppendInt(i);
    if (i >= 4000 && i % 7 == 0) {
      late.AppendNull();
    } else {
      late.AppendString("v" + std::to_string(i % 13));
    }
    if (i % 11 == 0) {
      points.AppendNull();
    } else {
      points.child(0).AppendInt(i);
      points.AppendStruct();
    }
  }
  Batch batch(std::make_shared<const Schema>(schema), {dense.Finish(), late.Finish(), points.Finish()}, rows);
  auto fs = io::MakeMemoryFileSystem();
  for (bool dictionary : {true, false}) {
    WriterOptions options;
    options.page_bytes = 1024;  // many pages per chunk
    options.dictionary = dictionary;
    auto writer = FileWriter::Open(fs->OpenWrite("levels.parquet"), schema, options);
    writer->Write(batch);
    writer->Close();
    auto reader = FileReader::Open(*fs, "levels.parquet");
    Batch read = reader->ReadRowGroup(0, {});
    for (size_t c = 0; c < 3; ++c) EXPECT_TRUE(read.column(c)->Equals(*batch.column(c))) << c;
    EXPECT_EQ(read.column(0)->null_count(), 0);

    const ParquetSchema mapping = SchemaFromParquet(reader->metadata().schema);
    std::shared_ptr<io::RandomAccessFile> file(fs->OpenRead("levels.parquet"));
    const auto& columns = reader->metadata().row_groups[0].columns;
    ColumnChunkData no_nulls = ReadColumnChunk(*file, file->Size(), columns[0], mapping.leaves[0]);
    EXPECT_TRUE(no_nulls.definition_levels.empty());
    EXPECT_EQ(no_nulls.num_defined, rows);
    ColumnChunkData late_nulls = ReadColumnChunk(*file, file->Size(), columns[1], mapping.leaves[1]);
    ASSERT_EQ(late_nulls.definition_levels.size(), static_cast<size_t>(rows));
    EXPECT_EQ(late_nulls.definition_levels[0], 1);
    EXPECT_EQ(late_nulls.definition_levels[4004], 0);
    ColumnChunkData field = ReadColumnChunk(*file, file->Size(), columns[2], mapping.leaves[2]);
    EXPECT_EQ(field.definition_levels.size(), static_cast<size_t>(rows));
  }
}

TEST(FileReaderTest, ScanStreamsEveryRowGroupOnceWithReadsValues) {
  auto fs = io::MakeMemoryFileSystem();
  WriteRowGroups(*fs, "groups.parquet", 7, 1000);
  auto reader = FileReader::Open(*fs, "groups.parquet");
  ASSERT_EQ(reader->num_row_groups(), 7);
  std::vector<Batch> expected = reader->Read();

  ThreadPool pool(3);
  ReadOptions options;
  options.pool = &pool;
  std::mutex mutex;
  std::multiset<int> seen;
  reader->Scan(options, [&](int group, Batch batch) {
    EXPECT_TRUE(batch.Equals(expected[static_cast<size_t>(group)])) << "row group " << group;
    std::lock_guard<std::mutex> lock(mutex);
    seen.insert(group);
  });
  EXPECT_THAT(seen, ElementsAre(0, 1, 2, 3, 4, 5, 6));

  // Row-group selection and projection apply as in Read.
  options.row_groups = {2, 5};
  options.columns = {"name"};
  std::atomic<int64_t> rows{0};
  reader->Scan(options, [&](int group, Batch batch) {
    EXPECT_TRUE(group == 2 || group == 5);
    EXPECT_EQ(batch.num_columns(), 1u);
    rows += batch.num_rows();
  });
  EXPECT_EQ(rows.load(), 2000);
}

TEST(FileReaderTest, ScanRethrowsTheConsumersError) {
  auto fs = io::MakeMemoryFileSystem();
  WriteRowGroups(*fs, "groups.parquet", 4, 100);
  auto reader = FileReader::Open(*fs, "groups.parquet");
  EXPECT_THROW(reader->Scan({}, [](int group, Batch) {
    if (group == 1) throw std::runtime_error("consumer failed");
  }),
               std::runtime_error);
}

TEST(SchemaFromParquetTest, LegacyListLayoutsAndRepeatedFields) {
  auto element = [](std::string name, std::optional<PhysicalType> type, Repetition repetition,
                    int children = 0) {
    SchemaElement e;
    e.name = std::move(name);
    e.type = type;
    e.repetition_type = repetition;
    if (children > 0) e.num_children = children;
    return e;
  };
  std::vector<SchemaElement> elements;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 5;
  elements.push_back(root);
  // 1: a two-level list of a primitive: optional group a (LIST) { repeated int32 element }
  SchemaElement a = element("a", std::nullopt, Repetition::kOptional, 1);
  a.converted_type = ConvertedType::kList;
  elements.push_back(a);
  elements.push_back(element("element", PhysicalType::kInt32, Repetition::kRequired));
  elements.back().repetition_type = Repetition::kRepeated;
  // 2: "array" names the element group: required group b (LIST) { repeated group array { x } }
  SchemaElement b = element("b", std::nullopt, Repetition::kRequired, 1);
  b.converted_type = ConvertedType::kList;
  elements.push_back(b);
  elements.push_back(element("array", std::nullopt, Repetition::kRepeated, 1));
  elements.push_back(element("x", PhysicalType::kInt64, Repetition::kOptional));
  // 3: a bare repeated primitive.
  elements.push_back(element("c", PhysicalType::kDouble, Repetition::kRepeated));
  // 4: a three-level list: optional group d (LIST) { repeated group list { optional binary e } }
  SchemaElement d = element("d", std::nullopt, Repetition::kOptional, 1);
  d.logical_type.kind = LogicalType::Kind::kList;
  elements.push_back(d);
  elements.push_back(element("list", std::nullopt, Repetition::kRepeated, 1));
  SchemaElement e = element("e", PhysicalType::kByteArray, Repetition::kOptional);
  e.converted_type = ConvertedType::kUtf8;
  e.field_id = 12;
  elements.push_back(e);
  // 5: UINT64 and a legacy TIMESTAMP_MILLIS.
  elements.back().field_id = 12;
  elements[0].num_children = 6;
  SchemaElement f = element("f", PhysicalType::kInt64, Repetition::kOptional);
  f.converted_type = ConvertedType::kUint64;
  f.field_id = 7;
  elements.push_back(f);
  SchemaElement g = element("g", PhysicalType::kInt64, Repetition::kOptional);
  g.converted_type = ConvertedType::kTimestampMillis;
  elements.push_back(g);

  ParquetSchema mapping = SchemaFromParquet(elements);
  const Schema& schema = mapping.schema;
  ASSERT_EQ(schema.num_fields(), 6u);
  EXPECT_EQ(schema.field(0).type->ToString(), "array<int>");
  EXPECT_FALSE(schema.field(0).type->contains_null());
  EXPECT_EQ(schema.field(1).type->ToString(), "array<struct<x:bigint>>");
  EXPECT_FALSE(schema.field(1).nullable);
  EXPECT_EQ(schema.field(2).type->ToString(), "array<double>");
  EXPECT_FALSE(schema.field(2).nullable);
  EXPECT_EQ(schema.field(3).type->ToString(), "array<string>");
  EXPECT_TRUE(schema.field(3).type->contains_null());
  EXPECT_EQ(schema.field(4).type->ToString(), "decimal(20,0)");
  ASSERT_NE(schema.field(4).FindMetadata("parquet.field.id"), nullptr);
  EXPECT_EQ(*schema.field(4).FindMetadata("parquet.field.id"), "7");
  EXPECT_EQ(schema.field(5).type->ToString(), "timestamp");
  ASSERT_EQ(mapping.leaves.size(), 6u);
  EXPECT_EQ(mapping.leaves[3].max_definition_level, 3);
  EXPECT_EQ(mapping.leaves[3].max_repetition_level, 1);
  EXPECT_THAT(mapping.leaves[3].path, ElementsAre("d", "list", "e"));
  EXPECT_EQ(mapping.leaves[1].max_definition_level, 2);  // b required, array repeated, x optional
}

// ---- damaged footers ----

// The bytes of a file of one row group of `rows` rows (id BIGINT = 0, 1, ..., name STRING)
// written by silt.
std::string GoodFileBytes(int rows) {
  std::shared_ptr<io::FileSystem> fs = io::MakeMemoryFileSystem();
  WriteRowGroups(*fs, "/good.parquet", 1, rows);
  return fs->ReadFile("/good.parquet");
}

// Where the footer of `file` starts and how long it is.
std::pair<size_t, size_t> FooterRange(const std::string& file) {
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  return {file.size() - 8 - length, length};
}

// `file` with its footer replaced by `footer` (the data pages stay where they are).
std::string WithFooter(const std::string& file, const std::string& footer) {
  std::string out = file.substr(0, FooterRange(file).first) + footer;
  auto length = static_cast<uint32_t>(footer.size());
  out.append(reinterpret_cast<const char*>(&length), 4);
  return out + "PAR1";
}

FileMetaData FooterOf(const std::string& file) {
  auto [start, length] = FooterRange(file);
  return DecodeFileMetaData(reinterpret_cast<const uint8_t*>(file.data()) + start, length);
}

// `file` with its footer decoded, changed by `change` and encoded again.
std::string WithChangedFooter(const std::string& file, const std::function<void(FileMetaData&)>& change) {
  FileMetaData metadata = FooterOf(file);
  change(metadata);
  std::string footer;
  EncodeFileMetaData(metadata, &footer);
  return WithFooter(file, footer);
}

std::string ReadErrorClass(const std::string& bytes) {
  return ErrorClassOf([&] { OpenBytes(bytes, "damaged.parquet")->Read(); });
}

TEST(DamagedFooterTest, DamagedRowGroupListIsCorruptNotEmpty) {
  std::string good = GoodFileBytes(20);
  ASSERT_EQ(OpenBytes(good)->num_rows(), 20);
  // The encoder writes fields in id order, so the row-group list's header is where the footer
  // differs from the same footer without row groups: the byte before it is the field header.
  std::string footer = good.substr(FooterRange(good).first, FooterRange(good).second);
  FileMetaData without_groups = FooterOf(good);
  without_groups.row_groups.clear();
  std::string empty_footer;
  EncodeFileMetaData(without_groups, &empty_footer);
  size_t list_header = 0;
  while (footer[list_header] == empty_footer[list_header]) ++list_header;
  ASSERT_EQ(static_cast<uint8_t>(footer[list_header - 1]), 0x19);  // field 4 (+1), a list
  ASSERT_EQ(static_cast<uint8_t>(footer[list_header]), 0x1C);      // 1 element, structs

  std::string renumbered = footer;
  renumbered[list_header - 1] = static_cast<char>(0x59);  // field 8: unknown, would be skipped
  EXPECT_EQ(ReadErrorClass(WithFooter(good, renumbered)), "PARQUET_CORRUPT_FILE");

  std::string no_elements = footer;
  no_elements[list_header] = static_cast<char>(0x0C);  // 0 elements
  EXPECT_EQ(ReadErrorClass(WithFooter(good, no_elements)), "PARQUET_CORRUPT_FILE");

  // Well-formed Thrift, but the row groups are gone while the footer still counts 20 rows.
  EXPECT_EQ(ReadErrorClass(WithFooter(good, empty_footer)), "PARQUET_CORRUPT_FILE");
}

TEST(DamagedFooterTest, OutOfRangeRepetitionOrEmptyNameIsCorrupt) {
  std::string good = GoodFileBytes(5);
  for (int repetition : {-1, 3, 7}) {
    std::string damaged = WithChangedFooter(good, [&](FileMetaData& metadata) {
      metadata.schema[2].repetition_type = static_cast<Repetition>(repetition);
    });
    EXPECT_EQ(ReadErrorClass(damaged), "PARQUET_CORRUPT_FILE") << repetition;
  }
  std::string nameless = WithChangedFooter(good, [](FileMetaData& metadata) { metadata.schema[2].name = ""; });
  EXPECT_EQ(ReadErrorClass(nameless), "PARQUET_CORRUPT_FILE");
}

std::string Int64Bytes(int64_t value) { return std::string(reinterpret_cast<const char*>(&value), 8); }

TEST(DamagedFooterTest, MinAboveMaxStatisticsNeverSkipRows) {
  std::string good = GoodFileBytes(100);  // ids 0..99
  std::string swapped = WithChangedFooter(good, [](FileMetaData& metadata) {
    Statistics& stats = *metadata.row_groups[0].columns[0].meta_data->statistics;
    stats.min_value = Int64Bytes(99);
    stats.max_value = Int64Bytes(0);
    stats.min = stats.min_value;
    stats.max = stats.max_value;
  });
  auto reader = OpenBytes(swapped);
  StatsLiteral fifty;
  fifty.int_value = 50;
  ReadOptions options;
  options.predicates = {{"id", ColumnPredicate::Op::kEqual, fifty}};
  options.row_filters = options.predicates;
  EXPECT_EQ(reader->SelectRowGroups(options).size(), 1u);
  int64_t rows = 0;
  for (const Batch& batch : reader->Read(options)) rows += batch.num_rows();
  EXPECT_EQ(rows, 1);
  // The same footer with consistent bounds that rule the value out still skips the group.
  std::string excluding = WithChangedFooter(good, [](FileMetaData& metadata) {
    Statistics& stats = *metadata.row_groups[0].columns[0].meta_data->statistics;
    stats.min_value = Int64Bytes(60);
    stats.max_value = Int64Bytes(99);
  });
  EXPECT_EQ(OpenBytes(excluding)->SelectRowGroups(options).size(), 0u);
}

TEST(SchemaFromParquetTest, MalformedSchemasAreRejected) {
  SchemaElement root;
  root.name = "schema";
  root.num_children = 3;  // but no children follow
  EXPECT_EQ(ErrorClassOf([&] { SchemaFromParquet({root}); }), "PARQUET_CORRUPT_FILE");
  root.num_children = -1;
  EXPECT_EQ(ErrorClassOf([&] { SchemaFromParquet({root}); }), "PARQUET_CORRUPT_FILE");
  EXPECT_EQ(ErrorClassOf([&] { SchemaFromParquet({}); }), "PARQUET_CORRUPT_FILE");
  // A chain of 200 nested groups.
  std::vector<SchemaElement> deep;
  for (int i = 0; i < 200; ++i) {
    SchemaElement group;
    group.name = "g";
    group.num_children = 1;
    group.repetition_type = Repetition::kOptional;
    deep.push_back(group);
  }
  SchemaElement leaf;
  leaf.name = "v";
  leaf.type = PhysicalType::kInt32;
  deep.push_back(leaf);
  EXPECT_EQ(ErrorClassOf([&] { SchemaFromParquet(deep); }), "PARQUET_CORRUPT_FILE");
  // DECIMAL above precision 38 and FLOAT16 are unsupported.
  SchemaElement wide;
  wide.name = "w";
  wide.type = PhysicalType::kFixedLenByteArray;
  wide.type_length = 20;
  wide.logical_type.kind = LogicalType::Kind::kDecimal;
  wide.logical_type.decimal_precision = 45;
  root.num_children = 1;
  EXPECT_EQ(ErrorClassOf([&] { SchemaFromParquet({root, wide}); }),
            "PARQUET_UNSUPPORTED_FEATURE");
}

// ---- row filters ----

using Op = ColumnPredicate::Op;

Schema RowFilterSchema() {
  return Schema({{"id", LongType(), false, {}},
                 {"city", StringType(), true, {}},
                 {"b", ByteType(), true, {}},
                 {"n", IntegerType(), true, {}},
                 {"amount", DecimalType(18, 2), true, {}},
                 {"wide", DecimalType(38, 10), true, {}},
                 {"day", DateType(), true, {}},
                 {"ts", TimestampType(), true, {}},
                 {"score", DoubleType(), true, {}},
                 {"f", FloatType(), true, {}},
                 {"flag", BooleanType(), true, {}},
                 {"tags", ListType(LongType()), true, {}},
                 {"st", StructType({{"x", LongType(), true, {}}}), true, {}}});
}

const std::vector<std::string>& CityNames() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> result = {"", "\xc3\xa9t\xc3\xa9", "city_"};
    for (int i = 0; i < 37; ++i) result.push_back("city_" + std::to_string(i));
    return result;
  }();
  return names;
}

const std::vector<double>& Doubles() {
  static const std::vector<double> values = {std::nan(""),
                                             -0.0,
                                             0.0,
                                             1.5,
                                             -2.25,
                                             7.0,
                                             std::numeric_limits<double>::infinity(),
                                             -std::numeric_limits<double>::infinity(),
                                             1e300};
  return values;
}

// `rows` rows of RowFilterSchema; `distinct_cities` > 0 draws cities from CityNames, 0 makes
// every city distinct (so a dictionary overflows).
Batch RowFilterRows(int rows, uint32_t seed, bool distinct_cities = false) {
  std::mt19937 random(seed);
  Schema schema = RowFilterSchema();
  std::vector<std::unique_ptr<VectorBuilder>> builders;
  for (const Field& field : schema.fields()) {
    builders.push_back(std::make_unique<VectorBuilder>(field.type));
  }
  auto draw = [&](uint32_t below) { return static_cast<int64_t>(random() % below); };
  for (int i = 0; i < rows; ++i) {
    builders[0]->AppendInt(i);
    if (draw(7) == 0) {
      builders[1]->AppendNull();
    } else if (distinct_cities) {
      builders[1]->AppendString("distinct_" + std::to_string(i * 7919 % 100003));
    } else {
      builders[1]->AppendString(CityNames()[static_cast<size_t>(draw(CityNames().size()))]);
    }
    draw(11) == 0 ? builders[2]->AppendNull() : builders[2]->AppendInt(draw(256) - 128);
    draw(10) == 0 ? builders[3]->AppendNull() : builders[3]->AppendInt(draw(2001) - 1000);
    draw(13) == 0 ? builders[4]->AppendNull() : builders[4]->AppendDecimal(draw(2000) - 500);
    if (draw(9) == 0) {
      builders[5]->AppendNull();
    } else {
      builders[5]->AppendDecimal(static_cast<Decimal128>(draw(21) - 10) * 1000000000000000000LL *
                                 1000);
    }
    draw(12) == 0 ? builders[6]->AppendNull() : builders[6]->AppendInt(18000 + draw(60));
    draw(8) == 0 ? builders[7]->AppendNull()
                 : builders[7]->AppendInt(1700000000000000LL + draw(50) * 1000000);
    draw(9) == 0 ? builders[8]->AppendNull()
                 : builders[8]->AppendDouble(Doubles()[static_cast<size_t>(draw(9))]);
    draw(9) == 0
        ? builders[9]->AppendNull()
        : builders[9]->AppendFloat(static_cast<float>(Doubles()[static_cast<size_t>(draw(8))]));
    draw(5) == 0 ? builders[10]->AppendNull() : builders[10]->AppendBool(draw(2) == 0);
    builders[11]->child(0).AppendInt(i);
    builders[11]->FinishList();
    builders[12]->child(0).AppendInt(i % 4);
    builders[12]->AppendStruct();
  }
  std::vector<VectorPtr> columns;
  for (auto& builder : builders) columns.push_back(builder->Finish());
  return Batch(std::make_shared<const Schema>(schema), std::move(columns), rows);
}

std::unique_ptr<FileReader> WriteRowFilterFile(io::FileSystem& fs, const std::string& path,
                                               const Batch& rows, bool dictionary,
                                               int64_t dictionary_page_bytes = 1 << 20,
                                               int64_t rows_per_group = 700) {
  WriterOptions options;
  options.row_group_max_rows = rows_per_group;
  options.page_bytes = 1024;  // several pages per chunk
  options.dictionary = dictionary;
  options.dictionary_page_bytes = dictionary_page_bytes;
  auto writer = FileWriter::Open(fs.OpenWrite(path), *rows.schema(), options);
  writer->Write(rows);
  writer->Close();
  return FileReader::Open(fs, path);
}

ColumnPredicate IntPredicate(const std::string& column, Op op, int64_t value) {
  ColumnPredicate predicate{column, op, {}};
  predicate.literal.int_value = value;
  return predicate;
}
ColumnPredicate StringPredicate(const std::string& column, Op op, const std::string& value) {
  ColumnPredicate predicate{column, op, {}};
  predicate.literal.string_value = value;
  return predicate;
}
ColumnPredicate DecimalPredicate(const std::string& column, Op op, Decimal128 value) {
  ColumnPredicate predicate{column, op, {}};
  predicate.literal.decimal_value = value;
  return predicate;
}
ColumnPredicate DoublePredicate(const std::string& column, Op op, double value) {
  ColumnPredicate predicate{column, op, {}};
  predicate.literal.double_value = value;
  return predicate;
}

// The test's own evaluation: Spark's comparison of row `row` of `vector` with the literal.
bool Satisfies(const Vector& vector, int64_t row, const ColumnPredicate& predicate) {
  if (predicate.op == Op::kIn) {
    uint8_t member = 1;
    if (vector.IsValid(row)) predicate.values->KeepMembers(*vector.Slice(row, 1), &member);
    return vector.IsValid(row) && member != 0;
  }
  if (predicate.op == Op::kIsNull) return vector.IsNull(row);
  if (predicate.op == Op::kIsNotNull) return vector.IsValid(row);
  if (vector.IsNull(row)) return false;
  int order = 0;
  auto three_way = [](auto a, auto b) { return a < b ? -1 : (b < a ? 1 : 0); };
  switch (vector.type_id()) {
    case TypeId::kByte:
      order = three_way(int64_t{vector.values<int8_t>()[row]}, *predicate.literal.int_value);
      break;
    case TypeId::kInteger:
    case TypeId::kDate:
      order = three_way(int64_t{vector.values<int32_t>()[row]}, *predicate.literal.int_value);
      break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
      order = three_way(vector.values<int64_t>()[row], *predicate.literal.int_value);
      break;
    case TypeId::kDecimal:
      order = three_way(vector.values<Decimal128>()[row], *predicate.literal.decimal_value);
      break;
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double value = vector.type_id() == TypeId::kFloat ? vector.values<float>()[row]
                                                        : vector.values<double>()[row];
      double literal = *predicate.literal.double_value;
      if (std::isnan(value) || std::isnan(literal)) {
        order = std::isnan(value) == std::isnan(literal) ? 0 : (std::isnan(value) ? 1 : -1);
      } else {
        order = three_way(value, literal);
      }
      break;
    }
    case TypeId::kString: {
      std::string value(vector.GetString(row));
      order = three_way(value, *predicate.literal.string_value);  // unsigned bytes
      break;
    }
    default:
      ADD_FAILURE() << "unexpected type";
  }
  switch (predicate.op) {
    case Op::kEqual:
      return order == 0;
    case Op::kLess:
      return order < 0;
    case Op::kLessOrEqual:
      return order <= 0;
    case Op::kGreater:
      return order > 0;
    case Op::kGreaterOrEqual:
      return order >= 0;
    default:
      return false;
  }
}

// The positions of row group `group` that a filtered read returns, computed from a full read:
// those that pass `predicates` and `keep_rows`, or all that `keep_rows` keeps when more than
// half the rows pass.
std::vector<int64_t> ExpectedPositions(const FileReader& reader, int group,
                                       const std::vector<ColumnPredicate>& predicates,
                                       const std::vector<bool>* keep_rows = nullptr) {
  Batch all = reader.ReadRowGroup(group, ReadOptions{});
  std::vector<int64_t> positions;
  for (int64_t row = 0; row < all.num_rows(); ++row) {
    if (keep_rows != nullptr && !(*keep_rows)[static_cast<size_t>(row)]) continue;
    bool pass = true;
    for (const ColumnPredicate& predicate : predicates) {
      int column = all.schema()->FieldIndex(predicate.column, false);
      pass = pass && Satisfies(*all.column(static_cast<size_t>(column)), row, predicate);
    }
    if (pass) positions.push_back(row);
  }
  // A row group where more than half the rows pass comes back whole, bar the mask.
  if (!predicates.empty() && static_cast<int64_t>(positions.size()) * 2 > all.num_rows()) {
    positions.clear();
    for (int64_t row = 0; row < all.num_rows(); ++row) {
      if (keep_rows == nullptr || (*keep_rows)[static_cast<size_t>(row)]) positions.push_back(row);
    }
  }
  return positions;
}

// Checks that reading with `predicates` as row filters (and `keep_rows`) returns exactly the
// rows the test's own evaluation keeps, every projected column equal to a full read's.
void ExpectFilteredRead(const FileReader& reader, const std::vector<ColumnPredicate>& predicates,
                        const std::vector<std::string>& columns = {}) {
  ReadOptions options;
  options.columns = columns;
  options.row_filters = predicates;
  ReadOptions unfiltered;
  unfiltered.columns = columns;
  for (int group = 0; group < reader.num_row_groups(); ++group) {
    SCOPED_TRACE("row group " + std::to_string(group));
    std::vector<int64_t> expected = ExpectedPositions(reader, group, predicates);
    std::vector<int64_t> positions;
    Batch filtered = reader.ReadRowGroup(group, options, nullptr, &positions);
    ASSERT_EQ(positions, expected);
    Batch all = reader.ReadRowGroup(group, unfiltered);
    Batch wanted = TakeBatchRows(all, expected);
    EXPECT_TRUE(filtered.Equals(wanted));
  }
}

TEST(RowFilterTest, EveryOperatorOnStringsWithDictionaryAndPlainPages) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(2000, 1);
  for (bool dictionary : {true, false}) {
    SCOPED_TRACE(dictionary ? "dictionary" : "plain");
    auto reader = WriteRowFilterFile(*fs, "strings.parquet", rows, dictionary);
    ASSERT_GT(reader->num_row_groups(), 1);
    for (Op op : {Op::kEqual, Op::kLess, Op::kLessOrEqual, Op::kGreater, Op::kGreaterOrEqual}) {
      for (const std::string& literal :
           {std::string("city_17"), std::string(""), std::string("\xc3\xa9t\xc3\xa9"),
            std::string("city_"), std::string("zzz")}) {
        SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)) + " '" + literal + "'");
        ExpectFilteredRead(*reader, {StringPredicate("city", op, literal)});
      }
    }
    ExpectFilteredRead(*reader, {{"city", Op::kIsNull, {}}});
    ExpectFilteredRead(*reader, {{"city", Op::kIsNotNull, {}}});
    // Projected, not projected, and with another column.
    ExpectFilteredRead(*reader, {StringPredicate("city", Op::kEqual, "city_3")}, {"id"});
    ExpectFilteredRead(*reader, {StringPredicate("city", Op::kEqual, "city_3")},
                       {"amount", "city", "id"});
  }
}

TEST(RowFilterTest, EveryOperatorOnNumbersDatesAndTimestamps) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(1500, 2);
  auto reader = WriteRowFilterFile(*fs, "numbers.parquet", rows, true);
  for (Op op : {Op::kEqual, Op::kLess, Op::kLessOrEqual, Op::kGreater, Op::kGreaterOrEqual}) {
    SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)));
    ExpectFilteredRead(*reader, {IntPredicate("id", op, 777)});
    ExpectFilteredRead(*reader, {IntPredicate("b", op, -3)});
    ExpectFilteredRead(*reader, {IntPredicate("b", op, 1000)});  // beyond tinyint
    ExpectFilteredRead(*reader, {IntPredicate("n", op, 0)});
    ExpectFilteredRead(*reader, {DecimalPredicate("amount", op, 100)});
    ExpectFilteredRead(
        *reader, {DecimalPredicate("wide", op, Decimal128{3} * 1000000000000000000LL * 1000)});
    ExpectFilteredRead(*reader, {IntPredicate("day", op, 18030)});
    ExpectFilteredRead(*reader, {IntPredicate("ts", op, 1700000000000000LL + 20000000)});
  }
  for (const char* column : {"b", "n", "amount", "wide", "day", "ts", "score", "f", "flag"}) {
    ExpectFilteredRead(*reader, {{column, Op::kIsNull, {}}});
    ExpectFilteredRead(*reader, {{column, Op::kIsNotNull, {}}});
  }
}

TEST(RowFilterTest, DoublesOrderNaNAboveEverythingAndEqualToItself) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(1200, 3);
  auto reader = WriteRowFilterFile(*fs, "doubles.parquet", rows, false);
  for (Op op : {Op::kEqual, Op::kLess, Op::kLessOrEqual, Op::kGreater, Op::kGreaterOrEqual}) {
    for (double literal : Doubles()) {
      SCOPED_TRACE("op " + std::to_string(static_cast<int>(op)) + " " + std::to_string(literal));
      ExpectFilteredRead(*reader, {DoublePredicate("score", op, literal)});
      ExpectFilteredRead(*reader, {DoublePredicate("f", op, literal)});
    }
  }
  // Spelled out: NaN = NaN keeps the NaN rows, and -0.0 = 0.0.
  ReadOptions options;
  options.columns = {"score"};
  options.row_filters = {DoublePredicate("score", Op::kEqual, std::nan(""))};
  int64_t nan_rows = 0;
  for (const Batch& batch : reader->Read(options)) {
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      EXPECT_TRUE(std::isnan(batch.column(0)->values<double>()[i]));
      ++nan_rows;
    }
  }
  EXPECT_GT(nan_rows, 0);
  options.row_filters = {DoublePredicate("score", Op::kEqual, 0.0)};
  std::set<bool> signs;
  for (const Batch& batch : reader->Read(options)) {
    for (int64_t i = 0; i < batch.num_rows(); ++i) {
      signs.insert(std::signbit(batch.column(0)->values<double>()[i]));
    }
  }
  EXPECT_THAT(signs, ElementsAre(false, true));
}

TEST(RowFilterTest, SeveralFiltersAndEmptyResults) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(2100, 4);
  auto reader = WriteRowFilterFile(*fs, "several.parquet", rows, true);
  ExpectFilteredRead(*reader, {StringPredicate("city", Op::kEqual, "city_17"),
                               DecimalPredicate("amount", Op::kGreater, 100)});
  ExpectFilteredRead(*reader, {StringPredicate("city", Op::kGreaterOrEqual, "city_2"),
                               StringPredicate("city", Op::kLess, "city_3"),
                               IntPredicate("n", Op::kLess, 0),
                               {"score", Op::kIsNotNull, {}}});
  // Nothing passes: every row group comes back empty, with the projected schema.
  ReadOptions options;
  options.columns = {"id", "city", "tags"};
  options.row_filters = {StringPredicate("city", Op::kEqual, "nowhere")};
  std::vector<Batch> batches = reader->Read(options);
  ASSERT_EQ(static_cast<int>(batches.size()), reader->num_row_groups());
  for (const Batch& batch : batches) {
    EXPECT_EQ(batch.num_rows(), 0);
    ASSERT_EQ(batch.num_columns(), 3u);
    EXPECT_EQ(batch.schema()->field(2).type->ToString(), "array<bigint>");
  }
  // Contradictory filters on one column.
  options.row_filters = {{"city", Op::kIsNull, {}}, {"city", Op::kIsNotNull, {}}};
  for (const Batch& batch : reader->Read(options)) EXPECT_EQ(batch.num_rows(), 0);
}

// Integer-like values in `integers`, strings in `strings`.
class TestValueSet final : public ValueSet {
 public:
  TestValueSet(std::set<int64_t> integers, std::set<std::string> strings)
      : integers_(std::move(integers)), strings_(std::move(strings)) {}
  void KeepMembers(const Vector& values, uint8_t* keep) const override {
    for (int64_t i = 0; i < values.length(); ++i) {
      bool member = false;
      switch (values.type_id()) {
        case TypeId::kString: member = strings_.count(std::string(values.GetString(i))) > 0; break;
        case TypeId::kByte: member = integers_.count(values.values<int8_t>()[i]) > 0; break;
        case TypeId::kInteger: member = integers_.count(values.values<int32_t>()[i]) > 0; break;
        case TypeId::kLong: member = integers_.count(values.values<int64_t>()[i]) > 0; break;
        default: member = true;
      }
      keep[i] &= static_cast<uint8_t>(member);
    }
  }

 private:
  std::set<int64_t> integers_;
  std::set<std::string> strings_;
};

ColumnPredicate InPredicate(const std::string& column, std::set<int64_t> integers,
                            std::set<std::string> strings = {}) {
  ColumnPredicate predicate{column, Op::kIn, {}};
  predicate.values = std::make_shared<TestValueSet>(std::move(integers), std::move(strings));
  return predicate;
}

TEST(RowFilterTest, SetMembershipOnIntegersAndStrings) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(2100, 5);
  for (bool dictionary : {true, false}) {
    SCOPED_TRACE(dictionary ? "dictionary" : "plain");
    auto reader = WriteRowFilterFile(*fs, dictionary ? "in_dict.parquet" : "in_plain.parquet", rows,
                                     dictionary);
    ExpectFilteredRead(*reader, {InPredicate("city", {}, {"city_3", "city_17", ""})});
    ExpectFilteredRead(*reader, {InPredicate("n", {-1000, -3, 0, 7, 999})}, {"id", "city", "tags"});
    ExpectFilteredRead(*reader, {InPredicate("b", {-128, 0, 5, 127})});
    // After another filter has dropped rows, and with the set's column not projected.
    std::set<int64_t> ids;
    for (int64_t id = 0; id < 2100; id += 3) ids.insert(id);
    ExpectFilteredRead(*reader, {StringPredicate("city", Op::kGreaterOrEqual, "city_2"),
                                 InPredicate("id", ids)}, {"city", "n"});
    // Nothing is a member: empty row groups; and every row a member: whole row groups.
    ExpectFilteredRead(*reader, {InPredicate("n", {5000})});
    std::set<int64_t> every_id;
    for (int64_t id = 0; id < 2100; ++id) every_id.insert(id);
    ExpectFilteredRead(*reader, {InPredicate("id", every_id)});
  }
  // A row group of NULLs alone is skipped by its statistics; any other is kept.
  auto reader = WriteRowFilterFile(*fs, "in_select.parquet", rows, true);
  ReadOptions selection;
  selection.predicates = {InPredicate("n", {5000})};
  EXPECT_EQ(reader->SelectRowGroups(selection).size(), static_cast<size_t>(reader->num_row_groups()));
}

TEST(RowFilterTest, UnsupportedPredicatesAreIgnored) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(900, 5);
  auto reader = WriteRowFilterFile(*fs, "ignored.parquet", rows, true);
  std::vector<ColumnPredicate> ignored = {
      IntPredicate("tags", Op::kEqual, 3),       // a list
      IntPredicate("st", Op::kEqual, 3),         // a struct
      {"st", Op::kIsNull, {}},                   // a struct, even for NULL tests
      IntPredicate("missing", Op::kEqual, 3),    // no such column
      IntPredicate("flag", Op::kEqual, 1),       // booleans are not compared
      StringPredicate("n", Op::kEqual, "3"),     // a literal of another type
      {"amount", Op::kGreater, StatsLiteral{}},  // no literal
      DoublePredicate("id", Op::kEqual, 3.0)};   // a double for a long
  ReadOptions options;
  options.row_filters = ignored;
  std::vector<Batch> filtered = reader->Read(options);
  std::vector<Batch> all = reader->Read();
  ASSERT_EQ(filtered.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_TRUE(filtered[i].Equals(all[i]));
  // An ignored predicate beside a supported one leaves just the supported one.
  ignored.push_back(IntPredicate("n", Op::kGreater, 500));
  options.row_filters = ignored;
  options.columns = {"n"};
  for (const Batch& batch : reader->Read(options)) {
    for (int64_t i = 0; i < batch.num_rows(); ++i)
      EXPECT_GT(batch.column(0)->values<int32_t>()[i], 500);
  }
}

TEST(RowFilterTest, RowMaskDropsRowsAndPositionsLocateTheRest) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(1400, 6);
  auto reader = WriteRowFilterFile(*fs, "mask.parquet", rows, true);
  int64_t group_rows = reader->metadata().row_groups[1].num_rows;
  std::vector<bool> keep_rows(static_cast<size_t>(group_rows));
  for (size_t i = 0; i < keep_rows.size(); ++i) keep_rows[i] = i % 3 != 1;
  std::vector<ColumnPredicate> filters = {StringPredicate("city", Op::kGreater, "city_2")};
  ReadOptions options;
  options.columns = {"id", "city"};
  options.row_filters = filters;
  std::vector<int64_t> positions;
  Batch batch = reader->ReadRowGroup(1, options, &keep_rows, &positions);
  EXPECT_EQ(positions, ExpectedPositions(*reader, 1, filters, &keep_rows));
  ASSERT_EQ(batch.num_rows(), static_cast<int64_t>(positions.size()));
  int64_t first_id = reader->metadata().row_groups[0].num_rows;
  for (size_t k = 0; k < positions.size(); ++k) {
    EXPECT_EQ(batch.column(0)->values<int64_t>()[k], first_id + positions[k]);
  }
  // The mask alone.
  options.row_filters.clear();
  batch = reader->ReadRowGroup(1, options, &keep_rows, &positions);
  EXPECT_EQ(positions, ExpectedPositions(*reader, 1, {}, &keep_rows));
  EXPECT_EQ(batch.num_rows(), static_cast<int64_t>(positions.size()));
  // Neither: every position.
  batch = reader->ReadRowGroup(1, options, nullptr, &positions);
  ASSERT_EQ(static_cast<int64_t>(positions.size()), group_rows);
  EXPECT_EQ(positions.back(), group_rows - 1);
  // A mask that drops everything; a mask of the wrong size.
  std::vector<bool> none(static_cast<size_t>(group_rows), false);
  EXPECT_EQ(reader->ReadRowGroup(1, options, &none, &positions).num_rows(), 0);
  EXPECT_TRUE(positions.empty());
  std::vector<bool> short_mask(3, true);
  EXPECT_EQ(ErrorClassOf([&] { reader->ReadRowGroup(1, options, &short_mask, nullptr); }),
            "INVALID_ARGUMENT");
}

TEST(RowFilterTest, DictionaryFallingBackToPlainMidChunk) {
  auto fs = io::MakeMemoryFileSystem();
  // Distinct cities overflow a 2 KiB dictionary within the writer's first batch of values, so
  // the chunk's first page is dictionary-encoded and the later ones PLAIN.
  Batch rows = RowFilterRows(12000, 7, true);
  auto reader = WriteRowFilterFile(*fs, "fallback.parquet", rows, true, 2048, 8000);
  const ParquetSchema mapping = SchemaFromParquet(reader->metadata().schema);
  const LeafColumn& city = mapping.leaves[1];
  const ColumnMetaData& meta = *reader->metadata().row_groups[0].columns[1].meta_data;
  ASSERT_TRUE(meta.dictionary_page_offset.has_value());
  ASSERT_THAT(meta.encodings, ::testing::Contains(Encoding::kRleDictionary));
  std::shared_ptr<io::RandomAccessFile> file(fs->OpenRead("fallback.parquet"));
  ColumnChunkData kept =
      ReadColumnChunk(*file, file->Size(), reader->metadata().row_groups[0].columns[1], city,
                      DictionaryMode::kKeepIndices);
  EXPECT_EQ(kept.dictionary, nullptr);
  EXPECT_EQ(kept.values->count(), kept.num_defined);
  ExpectFilteredRead(*reader, {StringPredicate("city", Op::kLess, "distinct_5")});
  ExpectFilteredRead(*reader, {StringPredicate("city", Op::kEqual, "distinct_7919")},
                     {"city", "id"});
}

TEST(RowFilterTest, KeptDictionaryIndicesMatchTheGatheredValues) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(700, 8);
  auto reader = WriteRowFilterFile(*fs, "kept.parquet", rows, true);
  const ParquetSchema mapping = SchemaFromParquet(reader->metadata().schema);
  std::shared_ptr<io::RandomAccessFile> file(fs->OpenRead("kept.parquet"));
  const ColumnChunk& chunk = reader->metadata().row_groups[0].columns[1];
  ColumnChunkData kept =
      ReadColumnChunk(*file, file->Size(), chunk, mapping.leaves[1], DictionaryMode::kKeepIndices);
  ColumnChunkData gathered = ReadColumnChunk(*file, file->Size(), chunk, mapping.leaves[1]);
  ASSERT_NE(kept.dictionary, nullptr);
  EXPECT_EQ(gathered.dictionary, nullptr);
  ASSERT_EQ(kept.num_defined, gathered.num_defined);
  ASSERT_EQ(static_cast<int64_t>(kept.dictionary_indices.size()), kept.num_defined);
  EXPECT_EQ(kept.definition_levels, gathered.definition_levels);
  for (int64_t i = 0; i < kept.num_defined; ++i) {
    uint32_t entry = kept.dictionary_indices[static_cast<size_t>(i)];
    std::string_view from_dictionary(reinterpret_cast<const char*>(kept.dictionary->byte_data()) +
                                         kept.dictionary->offsets()[entry],
                                     static_cast<size_t>(kept.dictionary->offsets()[entry + 1] -
                                                         kept.dictionary->offsets()[entry]));
    std::string_view value(
        reinterpret_cast<const char*>(gathered.values->byte_data()) + gathered.values->offsets()[i],
        static_cast<size_t>(gathered.values->offsets()[i + 1] - gathered.values->offsets()[i]));
    ASSERT_EQ(from_dictionary, value);
  }
}

TEST(RowFilterTest, DictionaryEncodedStringColumnsCarryTheirCodes) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(2100, 9);  // cities with NULLs, three row groups
  auto reader = WriteRowFilterFile(*fs, "codes.parquet", rows, true);
  ReadOptions options;
  options.columns = {"city", "id"};
  int64_t start = 0;
  for (const Batch& batch : reader->Read(options)) {
    const Vector& city = *batch.column(0);
    EXPECT_TRUE(city.Equals(*rows.column(1)->Slice(start, batch.num_rows())));
    ASSERT_NE(city.dictionary_codes(), nullptr);
    const Vector& dictionary = *city.dictionary_codes()->dictionary;
    EXPECT_LE(dictionary.length(), static_cast<int64_t>(CityNames().size()));
    const int32_t* codes = city.dictionary_codes()->codes->as<int32_t>() + city.offset();
    for (int64_t row = 0; row < city.length(); ++row) {
      ASSERT_GE(codes[row], 0);
      ASSERT_LT(codes[row], dictionary.length());
      if (city.IsValid(row)) ASSERT_EQ(dictionary.GetString(codes[row]), city.GetString(row));
    }
    EXPECT_EQ(batch.column(1)->dictionary_codes(), nullptr);  // not a string column
    start += batch.num_rows();
  }
  EXPECT_EQ(start, 2100);

  // A chunk that fell back to PLAIN, and a file without dictionaries, read without codes.
  Batch distinct = RowFilterRows(12000, 7, true);
  auto fallback = WriteRowFilterFile(*fs, "fallback.parquet", distinct, true, 2048, 8000);
  auto plain = WriteRowFilterFile(*fs, "plain.parquet", rows, false);
  for (FileReader* other : {fallback.get(), plain.get()}) {
    Batch first = other->ReadRowGroup(0, options);
    EXPECT_EQ(first.column(0)->dictionary_codes(), nullptr);
  }
}

TEST(RowFilterTest, ScanAndReadApplyTheFilters) {
  auto fs = io::MakeMemoryFileSystem();
  Batch rows = RowFilterRows(2000, 9);
  auto reader = WriteRowFilterFile(*fs, "scan.parquet", rows, true);
  ThreadPool pool(2);
  ReadOptions options;
  options.pool = &pool;
  options.columns = {"id", "amount"};
  options.row_filters = {StringPredicate("city", Op::kEqual, "city_17"),
                         DecimalPredicate("amount", Op::kGreater, 100)};
  std::vector<Batch> read = reader->Read(options);
  std::mutex mutex;
  std::vector<Batch> scanned(read.size());
  reader->Scan(options, [&](int group, Batch batch) {
    std::lock_guard<std::mutex> lock(mutex);
    scanned[static_cast<size_t>(group)] = std::move(batch);
  });
  int64_t total = 0;
  for (size_t g = 0; g < read.size(); ++g) {
    EXPECT_TRUE(read[g].Equals(scanned[g]));
    std::vector<int64_t> expected =
        ExpectedPositions(*reader, static_cast<int>(g), options.row_filters);
    EXPECT_EQ(read[g].num_rows(), static_cast<int64_t>(expected.size()));
    total += read[g].num_rows();
  }
  EXPECT_GT(total, 0);
}

TEST(RowFilterTest, ByteFlipsFailCleanlyWhenFiltering) {
  // Every single-byte change of a small dictionary-encoded file either reads or raises a
  // silt::Error through the filtered paths (kept indices, selected-row assembly, the mask).
  auto fs = io::MakeMemoryFileSystem();
  Schema schema({{"id", LongType(), false, {}},
                 {"city", StringType(), true, {}},
                 {"n", IntegerType(), true, {}}});
  VectorBuilder ids(LongType()), cities(StringType()), numbers(IntegerType());
  for (int i = 0; i < 120; ++i) {
    ids.AppendInt(i);
    i % 6 == 0 ? cities.AppendNull() : cities.AppendString("c" + std::to_string(i % 9));
    i % 7 == 0 ? numbers.AppendNull() : numbers.AppendInt(i % 13);
  }
  WriterOptions writer_options;
  writer_options.codec = CompressionCodec::kUncompressed;
  auto writer = FileWriter::Open(fs->OpenWrite("small.parquet"), schema, writer_options);
  writer->Write(Batch(std::make_shared<const Schema>(schema),
                      {ids.Finish(), cities.Finish(), numbers.Finish()}, 120));
  writer->Close();
  std::string good = fs->ReadFile("small.parquet");
  ReadOptions options;
  options.max_parallelism = 1;
  options.columns = {"id", "n"};
  options.row_filters = {StringPredicate("city", Op::kGreater, "c3"),
                         IntPredicate("n", Op::kLess, 9)};
  std::vector<bool> keep_rows(120);
  for (size_t i = 0; i < keep_rows.size(); ++i) keep_rows[i] = i % 4 != 0;
  int read_cleanly = 0;
  for (size_t i = 0; i < good.size(); ++i) {
    std::string changed = good;
    changed[i] = static_cast<char>(changed[i] ^ 0x5A);
    try {
      auto reader = OpenBytes(changed);
      std::vector<int64_t> positions;
      for (int group = 0; group < reader->num_row_groups(); ++group) {
        int64_t rows = reader->metadata().row_groups[static_cast<size_t>(group)].num_rows;
        std::vector<bool> mask(static_cast<size_t>(rows), true);
        for (size_t r = 0; r < mask.size(); ++r) mask[r] = r % 4 != 0;
        Batch batch = reader->ReadRowGroup(group, options, &mask, &positions);
        EXPECT_EQ(batch.num_rows(), static_cast<int64_t>(positions.size()));
      }
      ++read_cleanly;
    } catch (const Error&) {
    }
  }
  EXPECT_GT(read_cleanly, 0);
  // The unchanged file, for reference, reads the expected rows.
  auto reader = OpenBytes(good);
  std::vector<int64_t> positions;
  reader->ReadRowGroup(0, options, &keep_rows, &positions);
  EXPECT_EQ(positions, ExpectedPositions(*reader, 0, options.row_filters, &keep_rows));
}

TEST(RowFilterTest, RandomFiltersMatchDecodingEverythingAndFiltering) {
  auto fs = io::MakeMemoryFileSystem();
  std::mt19937 random(42);
  auto pick = [&](size_t below) { return static_cast<size_t>(random() % below); };
  const Op ops[] = {Op::kEqual,          Op::kLess,   Op::kLessOrEqual, Op::kGreater,
                    Op::kGreaterOrEqual, Op::kIsNull, Op::kIsNotNull};
  for (int file = 0; file < 4; ++file) {
    // File 3 has distinct cities and a small dictionary: dictionary pages, then PLAIN ones.
    Batch rows =
        RowFilterRows(file == 3 ? 6000 : 1500, 100 + static_cast<uint32_t>(file), file == 3);
    auto reader = WriteRowFilterFile(*fs, "random.parquet", rows, file % 2 == 0 || file == 3,
                                     file == 3 ? 4096 : 1 << 20, file == 3 ? 6000 : 700);
    for (int round = 0; round < 25; ++round) {
      std::vector<ColumnPredicate> predicates;
      size_t count = 1 + pick(3);
      for (size_t p = 0; p < count; ++p) {
        Op op = ops[pick(7)];
        switch (pick(8)) {
          case 0:
            predicates.push_back(
                StringPredicate("city", op, CityNames()[pick(CityNames().size())]));
            break;
          case 1:
            predicates.push_back(IntPredicate("b", op, static_cast<int64_t>(pick(256)) - 128));
            break;
          case 2:
            predicates.push_back(IntPredicate("n", op, static_cast<int64_t>(pick(2001)) - 1000));
            break;
          case 3:
            predicates.push_back(
                DecimalPredicate("amount", op, static_cast<Decimal128>(pick(2000)) - 500));
            break;
          case 4:
            predicates.push_back(IntPredicate("day", op, 18000 + static_cast<int64_t>(pick(60))));
            break;
          case 5:
            predicates.push_back(DoublePredicate("score", op, Doubles()[pick(Doubles().size())]));
            break;
          case 6:
            predicates.push_back(DoublePredicate("f", op, Doubles()[pick(8)]));
            break;
          default:
            predicates.push_back(IntPredicate("id", op, static_cast<int64_t>(pick(1500))));
            break;
        }
      }
      SCOPED_TRACE("file " + std::to_string(file) + " round " + std::to_string(round));
      ExpectFilteredRead(*reader, predicates,
                         round % 2 == 0 ? std::vector<std::string>{}
                                        : std::vector<std::string>{"city", "id", "st"});
    }
  }
}

// A file of an object store held in memory, counting the requests made of it.
struct StoreObject {
  std::string bytes;
  std::mutex mutex;
  int requests = 0;

  std::shared_ptr<io::RandomAccessFile> Open(std::shared_ptr<io::ObjectStoreSession> session) {
    return std::make_shared<io::ObjectReadFile>(
        "s3://bucket/t/part-0.parquet", bytes.size(), "v1",
        [this](uint64_t offset, uint64_t length) {
          std::lock_guard<std::mutex> lock(mutex);
          ++requests;
          return bytes.substr(offset, length);
        },
        std::move(session));
  }
};

TEST(FileReaderTest, OnAnObjectStoreTheFooterIsOneRequestAndARowGroupOne) {
  std::shared_ptr<io::FileSystem> fs = io::MakeMemoryFileSystem();
  WriteRowGroups(*fs, "/f.parquet", 3, 5000);
  StoreObject object;
  object.bytes = fs->ReadFile("/f.parquet");
  ASSERT_GT(object.bytes.size(), 64u << 10);  // the footer read is not the whole file
  auto local = FileReader::Open(*fs, "/f.parquet");
  auto session = std::make_shared<io::ObjectStoreSession>();

  auto reader = FileReader::Open(object.Open(session));
  EXPECT_EQ(object.requests, 1);
  ASSERT_EQ(reader->num_row_groups(), 3);
  // Both columns of a row group: one request.
  EXPECT_TRUE(reader->ReadRowGroup(1, {}).Equals(local->ReadRowGroup(1, {})));
  EXPECT_EQ(object.requests, 2);
  // Filtered and masked, the row group's chunks still come in one request.
  ReadOptions filtered;
  filtered.columns = {"name"};
  filtered.row_filters = {{"id", ColumnPredicate::Op::kLess, StatsLiteral{.int_value = 10}}};
  std::vector<bool> keep(5000, true);
  keep[3] = false;
  EXPECT_EQ(reader->ReadRowGroup(0, filtered, &keep, nullptr).num_rows(), 9);
  EXPECT_EQ(object.requests, 3);
  // The whole file: the chunks of every row group lie together, one request.
  std::vector<Batch> all = reader->Read();
  std::vector<Batch> expected = local->Read();
  ASSERT_EQ(all.size(), expected.size());
  for (size_t i = 0; i < all.size(); ++i) EXPECT_TRUE(all[i].Equals(expected[i]));
  EXPECT_EQ(object.requests, 4);

  // The next statement of the session finds the footer in the cache.
  uint64_t hits = session->counters.Snapshot().cache_hits;
  auto again = FileReader::Open(object.Open(session));
  EXPECT_EQ(object.requests, 4);
  EXPECT_EQ(again->num_rows(), 15000);
  EXPECT_EQ(session->counters.Snapshot().cache_hits, hits + 1);
}

TEST(FileReaderTest, AFooterLargerThanTheFirstReadTakesOneMoreRequest) {
  std::shared_ptr<io::FileSystem> fs = io::MakeMemoryFileSystem();
  WriteRowGroups(*fs, "/f.parquet", 1500, 1);  // a row group's metadata for each row
  StoreObject object;
  object.bytes = fs->ReadFile("/f.parquet");
  auto session = std::make_shared<io::ObjectStoreSession>();
  auto reader = FileReader::Open(object.Open(session));
  ASSERT_GT(reader->metadata().row_groups.size(), 1000u);
  EXPECT_EQ(object.requests, 2);
  EXPECT_EQ(reader->num_rows(), 1500);
  FileReader::Open(object.Open(session));
  EXPECT_EQ(object.requests, 2);
}

}  // namespace
}  // namespace silt::parquet
