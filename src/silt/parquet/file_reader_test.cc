#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <sstream>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/io/file_system.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/schema_from_parquet.h"
#include "silt/parquet/writer.h"

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

std::string ErrorClassOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "";
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

}  // namespace
}  // namespace silt::parquet
