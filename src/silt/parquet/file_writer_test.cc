#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/io/file_system.h"
#include "silt/parquet/column_writer.h"
#include "silt/parquet/metadata.h"
#include "silt/parquet/reader.h"
#include "silt/parquet/schema_to_parquet.h"
#include "silt/parquet/writer.h"
#include "silt/vector/batch.h"

namespace silt::parquet {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

VectorPtr IntList(const std::vector<std::optional<std::vector<std::optional<int>>>>& rows) {
  VectorBuilder builder(ListType(IntegerType(), true));
  for (const auto& row : rows) {
    if (!row) {
      builder.AppendNull();
      continue;
    }
    for (const auto& element : *row) {
      if (element) {
        builder.child(0).AppendInt(*element);
      } else {
        builder.child(0).AppendNull();
      }
    }
    builder.FinishList();
  }
  return builder.Finish();
}

FileMetaData FooterOf(const std::string& file) {
  EXPECT_GE(file.size(), 12u);
  EXPECT_EQ(file.substr(0, 4), "PAR1");
  EXPECT_EQ(file.substr(file.size() - 4), "PAR1");
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  return DecodeFileMetaData(
      reinterpret_cast<const uint8_t*>(file.data()) + file.size() - 8 - length, length);
}

TEST(SchemaToParquetTest, SparkTypeMapping) {
  Schema schema({{"b", ByteType(), true, {}},
                 {"i", IntegerType(), false, {}},
                 {"ts", TimestampType(), true, {}},
                 {"ntz", TimestampNtzType(), true, {}},
                 {"d5", DecimalType(5, 2), true, {}},
                 {"d15", DecimalType(15, 2), true, {}},
                 {"d30", DecimalType(30, 2), true, {{"parquet.field.id", "12"}}},
                 {"s", StringType(), true, {}},
                 {"v", NullType(), true, {}}});
  WriterSchema parquet = SchemaToParquet(schema, true);
  ASSERT_EQ(parquet.elements.size(), 10u);
  EXPECT_EQ(parquet.elements[0].name, "spark_schema");
  EXPECT_EQ(parquet.elements[0].num_children, 9);
  const SchemaElement& byte = parquet.elements[1];
  EXPECT_EQ(byte.type, PhysicalType::kInt32);
  EXPECT_EQ(byte.converted_type, ConvertedType::kInt8);
  EXPECT_EQ(byte.logical_type.kind, LogicalType::Kind::kInteger);
  EXPECT_EQ(byte.logical_type.bit_width, 8);
  EXPECT_EQ(parquet.elements[2].repetition_type, Repetition::kRequired);
  EXPECT_FALSE(parquet.elements[2].converted_type.has_value());
  EXPECT_EQ(parquet.elements[3].converted_type, ConvertedType::kTimestampMicros);
  EXPECT_TRUE(parquet.elements[3].logical_type.is_adjusted_to_utc);
  EXPECT_FALSE(parquet.elements[4].converted_type.has_value());
  EXPECT_FALSE(parquet.elements[4].logical_type.is_adjusted_to_utc);
  EXPECT_EQ(parquet.elements[5].type, PhysicalType::kInt32);
  EXPECT_EQ(parquet.elements[6].type, PhysicalType::kInt64);
  EXPECT_EQ(parquet.elements[7].type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(parquet.elements[7].type_length, 13);
  EXPECT_EQ(parquet.elements[7].precision, 30);
  EXPECT_EQ(parquet.elements[7].scale, 2);
  EXPECT_EQ(parquet.elements[7].field_id, 12);
  EXPECT_FALSE(parquet.elements[6].field_id.has_value());
  EXPECT_EQ(parquet.elements[8].converted_type, ConvertedType::kUtf8);
  EXPECT_EQ(parquet.elements[9].logical_type.kind, LogicalType::Kind::kUnknown);
  EXPECT_EQ(parquet.elements[9].repetition_type, Repetition::kOptional);
  EXPECT_EQ(parquet.leaves.size(), 9u);
}

TEST(SchemaToParquetTest, NestedLayout) {
  DataTypePtr map = MapType(StringType(), ListType(LongType(), false), true);
  Schema schema({{"m", map, true, {}},
                 {"s",
                  StructType({{"x", IntegerType(), false, {}},
                              {"l", ListType(StringType(), true), true, {}}}),
                  false,
                  {}}});
  WriterSchema parquet = SchemaToParquet(schema, false);
  std::vector<std::string> names;
  for (const SchemaElement& element : parquet.elements) names.push_back(element.name);
  EXPECT_THAT(names, ElementsAre("spark_schema", "m", "key_value", "key", "value", "list",
                                 "element", "s", "x", "l", "list", "element"));
  EXPECT_EQ(parquet.elements[1].converted_type, ConvertedType::kMap);
  EXPECT_EQ(parquet.elements[2].repetition_type, Repetition::kRepeated);
  EXPECT_EQ(parquet.elements[3].repetition_type, Repetition::kRequired);
  EXPECT_EQ(parquet.elements[4].converted_type, ConvertedType::kList);
  EXPECT_EQ(parquet.elements[4].repetition_type, Repetition::kOptional);
  EXPECT_EQ(parquet.elements[5].repetition_type, Repetition::kRepeated);
  EXPECT_EQ(parquet.elements[6].repetition_type, Repetition::kRequired);
  ASSERT_EQ(parquet.leaves.size(), 4u);
  EXPECT_THAT(parquet.leaves[1].path, ElementsAre("m", "key_value", "value", "list", "element"));
  // m optional(1) key_value repeated(2) value optional(3) list repeated(4) element required.
  EXPECT_EQ(parquet.leaves[1].max_definition_level, 4);
  EXPECT_EQ(parquet.leaves[1].max_repetition_level, 2);
  EXPECT_EQ(parquet.leaves[0].max_definition_level, 2);
  EXPECT_EQ(parquet.leaves[2].max_definition_level, 0);  // s.x: both required
  EXPECT_EQ(parquet.leaves[3].max_definition_level, 3);
  EXPECT_EQ(parquet.leaves[3].max_repetition_level, 1);
}

TEST(ColumnWriterTest, ListLevelsFollowDremel) {
  Schema schema({{"a", ListType(IntegerType(), true), true, {}}});
  WriterSchema parquet = SchemaToParquet(schema, false);
  VectorPtr column = IntList({std::vector<std::optional<int>>{1, 2}, std::nullopt,
                              std::vector<std::optional<int>>{},
                              std::vector<std::optional<int>>{std::nullopt, 3}});
  LeafLevels levels = ComputeLeafLevels(parquet.leaves[0], {column});
  EXPECT_EQ(levels.num_levels, 6);
  EXPECT_THAT(levels.definition_levels, ElementsAre(3, 3, 0, 1, 2, 3));
  EXPECT_THAT(levels.repetition_levels, ElementsAre(0, 1, 0, 0, 0, 1));
  // A slice sees only its rows.
  LeafLevels sliced = ComputeLeafLevels(parquet.leaves[0], {column->Slice(2, 2)});
  EXPECT_THAT(sliced.definition_levels, ElementsAre(1, 2, 3));
  EXPECT_THAT(sliced.repetition_levels, ElementsAre(0, 0, 1));
}

TEST(ColumnWriterTest, MapOfListLevels) {
  DataTypePtr type = MapType(StringType(), ListType(IntegerType(), true), true);
  Schema schema({{"m", type, true, {}}});
  WriterSchema parquet = SchemaToParquet(schema, false);
  VectorBuilder builder(type);
  // Row 0: {"a": [1, null], "b": null}; row 1: null; row 2: {}; row 3: {"c": []}.
  VectorBuilder& entries = builder.child(0);
  entries.child(0).AppendString("a");
  entries.child(1).child(0).AppendInt(1);
  entries.child(1).child(0).AppendNull();
  entries.child(1).FinishList();
  entries.AppendStruct();
  entries.child(0).AppendString("b");
  entries.child(1).AppendNull();
  entries.AppendStruct();
  builder.FinishList();
  builder.AppendNull();
  builder.FinishList();
  entries.child(0).AppendString("c");
  entries.child(1).FinishList();
  entries.AppendStruct();
  builder.FinishList();
  VectorPtr column = builder.Finish();
  LeafLevels keys = ComputeLeafLevels(parquet.leaves[0], {column});
  EXPECT_THAT(keys.definition_levels, ElementsAre(2, 2, 0, 1, 2));
  EXPECT_THAT(keys.repetition_levels, ElementsAre(0, 1, 0, 0, 0));
  LeafLevels values = ComputeLeafLevels(parquet.leaves[1], {column});
  // value list elements: m(1) key_value(2) value(3) list(4) element(5).
  EXPECT_THAT(values.definition_levels, ElementsAre(5, 4, 2, 0, 1, 3));
  EXPECT_THAT(values.repetition_levels, ElementsAre(0, 2, 1, 0, 0, 0));
}

TEST(ColumnWriterTest, NullInRequiredColumnIsAnError) {
  Schema schema({{"x", IntegerType(), false, {}}});
  WriterSchema parquet = SchemaToParquet(schema, false);
  VectorBuilder builder(IntegerType());
  builder.AppendInt(1);
  builder.AppendNull();
  try {
    WriteColumnChunk(parquet.leaves[0], {builder.Finish()}, ColumnWriterOptions{});
    FAIL() << "expected PARQUET_WRITE_ERROR";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PARQUET_WRITE_ERROR");
    EXPECT_THAT(error.message(), HasSubstr("non-nullable column x"));
  }
}

TEST(ColumnWriterTest, NearlyAllDistinctValuesSkipTheDictionary) {
  Schema schema({{"x", LongType(), false, {}}});
  WriterSchema parquet = SchemaToParquet(schema, false);
  ColumnWriterOptions options;
  options.codec = CompressionCodec::kUncompressed;
  options.dictionary_page_bytes = 8 * 4096;
  options.page_bytes = 8 * 4096;
  // Unique values: the dictionary is dropped once it holds an eighth of its limit, and every
  // page is PLAIN.
  VectorBuilder unique(LongType());
  for (int i = 0; i < 20000; ++i) unique.AppendInt(20000 - i);
  EncodedColumnChunk chunk = WriteColumnChunk(parquet.leaves[0], {unique.Finish()}, options);
  EXPECT_TRUE(chunk.dictionary_page.empty());
  EXPECT_THAT(chunk.metadata.encodings, ElementsAre(Encoding::kPlain));
  EXPECT_EQ(chunk.metadata.num_values, 20000);
  int64_t min, max;
  std::memcpy(&min, chunk.metadata.statistics->min_value->data(), 8);
  std::memcpy(&max, chunk.metadata.statistics->max_value->data(), 8);
  EXPECT_EQ(min, 1);
  EXPECT_EQ(max, 20000);
  // Repeating values keep it.
  VectorBuilder repeating(LongType());
  for (int i = 0; i < 20000; ++i) repeating.AppendInt(i % 100);
  chunk = WriteColumnChunk(parquet.leaves[0], {repeating.Finish()}, options);
  EXPECT_FALSE(chunk.dictionary_page.empty());
  EXPECT_THAT(chunk.metadata.encodings, ElementsAre(Encoding::kRleDictionary, Encoding::kPlain));
}

TEST(ColumnWriterTest, DictionaryFallsBackToPlain) {
  Schema schema({{"x", LongType(), false, {}}});
  WriterSchema parquet = SchemaToParquet(schema, false);
  VectorBuilder builder(LongType());
  for (int i = 0; i < 20000; ++i) builder.AppendInt(i);
  ColumnWriterOptions options;
  options.codec = CompressionCodec::kUncompressed;
  options.dictionary_page_bytes = 8 * 1000;
  options.page_bytes = 8 * 4096;
  EncodedColumnChunk chunk = WriteColumnChunk(parquet.leaves[0], {builder.Finish()}, options);
  EXPECT_FALSE(chunk.dictionary_page.empty());
  EXPECT_THAT(chunk.metadata.encodings, ElementsAre(Encoding::kRleDictionary, Encoding::kPlain));
  // Walk the pages: a dictionary page, one RLE_DICTIONARY page, then PLAIN pages.
  std::string all = chunk.dictionary_page + chunk.data_pages;
  size_t position = 0;
  std::vector<PageType> types;
  std::vector<Encoding> encodings;
  int64_t values = 0;
  while (position < all.size()) {
    size_t header_size = 0;
    PageHeader header = DecodePageHeader(reinterpret_cast<const uint8_t*>(all.data()) + position,
                                         all.size() - position, &header_size);
    types.push_back(header.type);
    if (header.data_page_header) {
      encodings.push_back(header.data_page_header->encoding);
      values += header.data_page_header->num_values;
    }
    position += header_size + static_cast<size_t>(header.compressed_page_size);
  }
  EXPECT_EQ(position, all.size());
  EXPECT_EQ(values, 20000);
  ASSERT_GE(types.size(), 3u);
  EXPECT_EQ(types[0], PageType::kDictionaryPage);
  EXPECT_EQ(encodings.front(), Encoding::kRleDictionary);
  EXPECT_EQ(encodings.back(), Encoding::kPlain);
  EXPECT_EQ(chunk.metadata.num_values, 20000);
  const Statistics& statistics = *chunk.metadata.statistics;
  int64_t min, max;
  std::memcpy(&min, statistics.min_value->data(), 8);
  std::memcpy(&max, statistics.max_value->data(), 8);
  EXPECT_EQ(min, 0);
  EXPECT_EQ(max, 19999);
  EXPECT_EQ(statistics.null_count, 0);
}

TEST(FileWriterTest, FooterDescribesRowGroupsAndColumns) {
  auto fs = io::MakeMemoryFileSystem();
  auto schema = std::make_shared<Schema>(
      std::vector<Field>{{"id", LongType(), false, {}}, {"name", StringType(), true, {}}});
  WriterOptions options;
  options.row_group_max_rows = 1000;
  options.codec = CompressionCodec::kZstd;
  options.key_value_metadata = {{"writer", std::string("test")}};
  ThreadPool pool(2);
  options.pool = &pool;
  auto writer = FileWriter::Open(fs->OpenWrite("/t.parquet"), *schema, options);
  for (int batch = 0; batch < 3; ++batch) {
    VectorBuilder ids(LongType()), names(StringType());
    for (int i = 0; i < 700; ++i) {
      ids.AppendInt(batch * 700 + i);
      if (i % 10 == 0) {
        names.AppendNull();
      } else {
        names.AppendString("n" + std::to_string(i % 50));
      }
    }
    writer->Write(Batch(schema, {ids.Finish(), names.Finish()}, 700));
  }
  FileMetaData returned = writer->Close();
  std::string file = fs->ReadFile("/t.parquet");
  EXPECT_EQ(writer->bytes_written(), file.size());
  FileMetaData footer = FooterOf(file);
  EXPECT_EQ(footer.num_rows, 2100);
  EXPECT_EQ(returned.num_rows, 2100);
  ASSERT_EQ(footer.row_groups.size(), 3u);
  EXPECT_EQ(footer.row_groups[0].num_rows, 1000);
  EXPECT_EQ(footer.row_groups[1].num_rows, 1000);
  EXPECT_EQ(footer.row_groups[2].num_rows, 100);
  EXPECT_EQ(footer.created_by, std::string("silt version ") + SILT_VERSION);
  EXPECT_THAT(footer.column_orders, ElementsAre(true, true));
  ASSERT_EQ(footer.key_value_metadata.size(), 1u);
  EXPECT_EQ(footer.key_value_metadata[0].key, "writer");
  const ColumnMetaData& names = *footer.row_groups[1].columns[1].meta_data;
  EXPECT_EQ(names.codec, CompressionCodec::kZstd);
  EXPECT_EQ(names.num_values, 1000);
  EXPECT_EQ(names.statistics->null_count, 100);
  EXPECT_EQ(names.statistics->min_value, "n1");
  EXPECT_EQ(names.statistics->max_value, "n9");
  // The dictionary page comes first and the offsets point at page headers inside the file.
  ASSERT_TRUE(names.dictionary_page_offset.has_value());
  EXPECT_LT(*names.dictionary_page_offset, names.data_page_offset);
  size_t header_size = 0;
  PageHeader page = DecodePageHeader(
      reinterpret_cast<const uint8_t*>(file.data()) + *names.dictionary_page_offset,
      file.size() - static_cast<size_t>(*names.dictionary_page_offset), &header_size);
  EXPECT_EQ(page.type, PageType::kDictionaryPage);
  EXPECT_EQ(page.dictionary_page_header->num_values, 45);
  const ColumnMetaData& ids = *footer.row_groups[2].columns[0].meta_data;
  int64_t min;
  std::memcpy(&min, ids.statistics->min_value->data(), 8);
  EXPECT_EQ(min, 2000);
}

TEST(FileWriterTest, RejectsOtherSchemas) {
  auto fs = io::MakeMemoryFileSystem();
  Schema schema({{"id", LongType(), false, {}}});
  auto writer = FileWriter::Open(fs->OpenWrite("/t.parquet"), schema);
  auto other = std::make_shared<Schema>(std::vector<Field>{{"id", IntegerType(), false, {}}});
  VectorBuilder ids(IntegerType());
  ids.AppendInt(1);
  EXPECT_THROW(writer->Write(Batch(other, {ids.Finish()}, 1)), Error);
  FileMetaData footer = writer->Close();
  EXPECT_EQ(footer.num_rows, 0);
  EXPECT_TRUE(footer.row_groups.empty());
  EXPECT_EQ(FooterOf(fs->ReadFile("/t.parquet")).schema.size(), 2u);
}

TEST(FileWriterTest, EncodingErrorsReachTheCaller) {
  auto fs = io::MakeMemoryFileSystem();
  auto schema = std::make_shared<Schema>(std::vector<Field>{{"x", IntegerType(), false, {}}});
  WriterOptions options;
  options.row_group_max_rows = 2;
  auto writer = FileWriter::Open(fs->OpenWrite("/e.parquet"), *schema, options);
  VectorBuilder values(IntegerType());
  values.AppendInt(1);
  values.AppendNull();
  // Row groups are encoded in the background; the error surfaces by Close at the latest.
  try {
    writer->Write(Batch(schema, {values.Finish()}, 2));
    writer->Close();
    FAIL() << "expected PARQUET_WRITE_ERROR";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PARQUET_WRITE_ERROR");
  }
}

TEST(FileWriterTest, DestroyWithoutCloseWaitsForEncoding) {
  auto fs = io::MakeMemoryFileSystem();
  auto schema = std::make_shared<Schema>(std::vector<Field>{{"x", LongType(), true, {}}});
  ThreadPool pool(2);
  WriterOptions options;
  options.row_group_max_rows = 100;
  options.pool = &pool;
  auto writer = FileWriter::Open(fs->OpenWrite("/d.parquet"), *schema, options);
  VectorBuilder values(LongType());
  for (int i = 0; i < 1000; ++i) values.AppendInt(i);
  writer->Write(Batch(schema, {values.Finish()}, 1000));
  writer.reset();  // no Close: must neither crash nor leave tasks writing into freed memory
}

// Everything silt writes, silt's reader reads back equal (nested types, NULLs, slices).
TEST(FileWriterTest, RoundTripThroughSiltReader) {
  auto fs = io::MakeMemoryFileSystem();
  DataTypePtr point = StructType({{"x", IntegerType(), true, {}}, {"y", StringType(), true, {}}});
  auto schema = std::make_shared<Schema>(std::vector<Field>{
      {"id", LongType(), false, {}},
      {"d", DecimalType(30, 3), true, {}},
      {"points", ListType(point, true), true, {}},
      {"m", MapType(StringType(), ListType(IntegerType(), true), true), true, {}},
  });
  std::vector<Batch> batches;
  for (int b = 0; b < 3; ++b) {
    VectorBuilder ids(LongType()), decimals(DecimalType(30, 3));
    VectorBuilder points(ListType(point, true)), maps(schema->field(3).type);
    for (int i = 0; i < 500; ++i) {
      int row = b * 500 + i;
      ids.AppendInt(row);
      if (row % 7 == 0) {
        decimals.AppendNull();
      } else {
        decimals.AppendDecimal((static_cast<Decimal128>(row) << 70) * (row % 2 == 0 ? -1 : 1));
      }
      if (row % 5 == 0) {
        points.AppendNull();
      } else {
        for (int j = 0; j < row % 3; ++j) {
          VectorBuilder& element = points.child(0);
          if (j == 1 && row % 4 == 0) {
            element.AppendNull();
            continue;
          }
          element.child(0).AppendInt(row * 10 + j);
          element.child(1).AppendString("p" + std::to_string(row % 13));
          element.AppendStruct();
        }
        points.FinishList();
      }
      if (row % 6 == 0) {
        maps.AppendNull();
      } else {
        VectorBuilder& entries = maps.child(0);
        for (int j = 0; j < row % 3; ++j) {
          entries.child(0).AppendString("k" + std::to_string(j));
          if (j == 2) {
            entries.child(1).AppendNull();
          } else {
            entries.child(1).child(0).AppendInt(j);
            entries.child(1).child(0).AppendNull();
            entries.child(1).FinishList();
          }
          entries.AppendStruct();
        }
        maps.FinishList();
      }
    }
    batches.emplace_back(
        schema,
        std::vector<VectorPtr>{ids.Finish(), decimals.Finish(), points.Finish(), maps.Finish()},
        500);
  }
  WriterOptions options;
  options.row_group_max_rows = 400;
  options.page_bytes = 1000;
  options.dictionary_page_bytes = 500;
  auto writer = FileWriter::Open(fs->OpenWrite("/r.parquet"), *schema, options);
  writer->Write(batches[0].Slice(0, 250));
  writer->Write(batches[0].Slice(250, 250));
  writer->Write(batches[1]);
  writer->Write(batches[2]);
  writer->Close();

  auto reader = FileReader::Open(*fs, "/r.parquet");
  EXPECT_EQ(reader->num_rows(), 1500);
  EXPECT_EQ(reader->num_row_groups(), 4);
  EXPECT_TRUE(reader->schema().Equals(*schema));
  Batch read = ConcatenateBatches(reader->Read());
  Batch expected = ConcatenateBatches(batches);
  ASSERT_EQ(read.num_rows(), expected.num_rows());
  for (size_t c = 0; c < expected.num_columns(); ++c) {
    for (int64_t row = 0; row < expected.num_rows(); ++row) {
      ASSERT_TRUE(read.column(c)->RowEquals(row, *expected.column(c), row))
          << "column " << c << " row " << row << ": " << read.column(c)->ValueToString(row)
          << " vs " << expected.column(c)->ValueToString(row);
    }
  }
}

}  // namespace
}  // namespace silt::parquet
