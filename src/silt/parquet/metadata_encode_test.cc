#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "silt/parquet/metadata.h"
#include "silt/parquet/thrift_compact_encoder_internal.h"

namespace silt::parquet {
namespace {

using internal::CompactType;
using internal::ThriftCompactEncoder;
using ::testing::ElementsAre;

std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

TEST(MetadataEncodeTest, PageHeaderBytes) {
  PageHeader header;
  header.type = PageType::kDataPage;
  header.uncompressed_page_size = 100;
  header.compressed_page_size = 50;
  DataPageHeader& data = header.data_page_header.emplace();
  data.num_values = 10;
  data.encoding = Encoding::kPlain;
  data.definition_level_encoding = Encoding::kRle;
  data.repetition_level_encoding = Encoding::kRle;
  std::string out;
  EncodePageHeader(header, &out);
  // Hand-computed compact protocol: (delta << 4 | type) headers, zigzag varints, stop bytes.
  // Field ids 1, 2, 3 follow each other (delta 1); 5 comes 2 after 3.
  EXPECT_THAT(Bytes(out), ElementsAre(0x15, 0x00,        // 1: type 0
                                      0x15, 0xC8, 0x01,  // 2: 100 -> zigzag 200
                                      0x15, 0x64,        // 3: 50 -> 100
                                      0x2C,              // 5: struct (delta 2)
                                      0x15, 0x14,        //   1: 10 -> 20
                                      0x15, 0x00,        //   2: PLAIN
                                      0x15, 0x06,        //   3: RLE
                                      0x15, 0x06,        //   4: RLE
                                      0x00,              //   stop
                                      0x00));            // stop
}

TEST(MetadataEncodeTest, EncoderPrimitives) {
  std::string out;
  ThriftCompactEncoder encoder(&out);
  encoder.BeginStruct();
  encoder.BoolField(1, true);
  encoder.BoolField(2, false);
  encoder.I64Field(3, -1);
  encoder.I32Field(20, 1);  // a delta of 17 needs the long form: type byte, then zigzag i16
  encoder.BinaryField(21, "ab");
  encoder.ListField(22, CompactType::kI32, 15);
  for (int i = 0; i < 15; ++i) encoder.I32(0);
  encoder.EndStruct();
  std::vector<uint8_t> expected = {0x11, 0x12, 0x16, 0x01, 0x05, 0x28, 0x02,
                                   0x18, 0x02, 'a',  'b',  0x19, 0xF5, 0x0F};
  expected.insert(expected.end(), 15, 0x00);
  expected.push_back(0x00);
  EXPECT_EQ(Bytes(out), expected);
}

TEST(MetadataEncodeTest, NestedStructsRestoreFieldIds) {
  std::string out;
  ThriftCompactEncoder encoder(&out);
  encoder.BeginStruct();
  encoder.I32Field(5, 0);
  encoder.StructField(6);
  encoder.I32Field(1, 0);
  encoder.EndStruct();
  encoder.I32Field(7, 0);  // delta 1 from field 6, not from the inner field 1
  encoder.EndStruct();
  EXPECT_THAT(Bytes(out), ElementsAre(0x55, 0x00, 0x1C, 0x15, 0x00, 0x00, 0x15, 0x00, 0x00));
}

FileMetaData SampleFooter() {
  FileMetaData metadata;
  metadata.version = 1;
  SchemaElement root;
  root.name = "spark_schema";
  root.num_children = 2;
  SchemaElement amount;
  amount.name = "amount";
  amount.type = PhysicalType::kFixedLenByteArray;
  amount.type_length = 13;
  amount.repetition_type = Repetition::kOptional;
  amount.converted_type = ConvertedType::kDecimal;
  amount.scale = 2;
  amount.precision = 30;
  amount.field_id = 7;
  amount.logical_type.kind = LogicalType::Kind::kDecimal;
  amount.logical_type.decimal_precision = 30;
  amount.logical_type.decimal_scale = 2;
  SchemaElement at;
  at.name = "at";
  at.type = PhysicalType::kInt64;
  at.repetition_type = Repetition::kRequired;
  at.converted_type = ConvertedType::kTimestampMicros;
  at.logical_type.kind = LogicalType::Kind::kTimestamp;
  at.logical_type.is_adjusted_to_utc = true;
  at.logical_type.unit = TimeUnit::kMicros;
  metadata.schema = {root, amount, at};
  metadata.num_rows = 3;
  RowGroup row_group;
  row_group.num_rows = 3;
  row_group.total_byte_size = 99;
  row_group.file_offset = 4;
  row_group.total_compressed_size = 80;
  row_group.ordinal = 0;
  ColumnChunk chunk;
  chunk.file_offset = 4;
  ColumnMetaData& column = chunk.meta_data.emplace();
  column.type = PhysicalType::kInt64;
  column.encodings = {Encoding::kRleDictionary, Encoding::kPlain, Encoding::kRle};
  column.path_in_schema = {"at"};
  column.codec = CompressionCodec::kSnappy;
  column.num_values = 3;
  column.total_uncompressed_size = 99;
  column.total_compressed_size = 80;
  column.data_page_offset = 40;
  column.dictionary_page_offset = 4;
  Statistics& statistics = column.statistics.emplace();
  statistics.null_count = 1;
  statistics.min_value = std::string("\x01\0\0\0\0\0\0\0", 8);
  statistics.max_value = std::string("\x09\0\0\0\0\0\0\0", 8);
  row_group.columns = {chunk};
  metadata.row_groups = {row_group};
  metadata.key_value_metadata = {{"k", std::string("v")}, {"no_value", std::nullopt}};
  metadata.created_by = "silt version test";
  metadata.column_orders = {true, true};
  return metadata;
}

TEST(MetadataEncodeTest, FileMetaDataRoundTrip) {
  FileMetaData metadata = SampleFooter();
  std::string out;
  EncodeFileMetaData(metadata, &out);
  // Starts with version 1 and a 3-element struct list.
  EXPECT_THAT(std::vector<uint8_t>(out.begin(), out.begin() + 3), ElementsAre(0x15, 0x02, 0x19));
  EXPECT_EQ(out.back(), '\0');

  FileMetaData decoded =
      DecodeFileMetaData(reinterpret_cast<const uint8_t*>(out.data()), out.size());
  EXPECT_EQ(decoded.version, 1);
  ASSERT_EQ(decoded.schema.size(), 3u);
  const SchemaElement& amount = decoded.schema[1];
  EXPECT_EQ(amount.name, "amount");
  EXPECT_EQ(amount.type, PhysicalType::kFixedLenByteArray);
  EXPECT_EQ(amount.type_length, 13);
  EXPECT_EQ(amount.field_id, 7);
  EXPECT_EQ(amount.logical_type.kind, LogicalType::Kind::kDecimal);
  EXPECT_EQ(amount.logical_type.decimal_precision, 30);
  EXPECT_EQ(amount.logical_type.decimal_scale, 2);
  const SchemaElement& at = decoded.schema[2];
  EXPECT_EQ(at.repetition_type, Repetition::kRequired);
  EXPECT_EQ(at.logical_type.kind, LogicalType::Kind::kTimestamp);
  EXPECT_TRUE(at.logical_type.is_adjusted_to_utc);
  EXPECT_EQ(at.logical_type.unit, TimeUnit::kMicros);
  EXPECT_EQ(decoded.num_rows, 3);
  ASSERT_EQ(decoded.row_groups.size(), 1u);
  const RowGroup& row_group = decoded.row_groups[0];
  EXPECT_EQ(row_group.ordinal, 0);
  EXPECT_EQ(row_group.total_compressed_size, 80);
  ASSERT_EQ(row_group.columns.size(), 1u);
  const ColumnMetaData& column = *row_group.columns[0].meta_data;
  EXPECT_THAT(column.encodings,
              ElementsAre(Encoding::kRleDictionary, Encoding::kPlain, Encoding::kRle));
  EXPECT_THAT(column.path_in_schema, ElementsAre("at"));
  EXPECT_EQ(column.codec, CompressionCodec::kSnappy);
  EXPECT_EQ(column.data_page_offset, 40);
  EXPECT_EQ(column.dictionary_page_offset, 4);
  ASSERT_TRUE(column.statistics.has_value());
  EXPECT_EQ(column.statistics->null_count, 1);
  EXPECT_EQ(column.statistics->max_value,
            metadata.row_groups[0].columns[0].meta_data->statistics->max_value);
  ASSERT_EQ(decoded.key_value_metadata.size(), 2u);
  EXPECT_EQ(decoded.key_value_metadata[0].value, "v");
  EXPECT_FALSE(decoded.key_value_metadata[1].value.has_value());
  EXPECT_EQ(decoded.created_by, "silt version test");
  EXPECT_THAT(decoded.column_orders, ElementsAre(true, true));
}

TEST(MetadataEncodeTest, PageHeaderRoundTrip) {
  PageHeader header;
  header.type = PageType::kDictionaryPage;
  header.uncompressed_page_size = 1 << 20;
  header.compressed_page_size = 12345;
  DictionaryPageHeader& dictionary = header.dictionary_page_header.emplace();
  dictionary.num_values = 1000;
  dictionary.encoding = Encoding::kPlain;
  std::string out;
  EncodePageHeader(header, &out);
  out += "page body";
  size_t header_size = 0;
  PageHeader decoded =
      DecodePageHeader(reinterpret_cast<const uint8_t*>(out.data()), out.size(), &header_size);
  EXPECT_EQ(header_size, out.size() - 9);
  EXPECT_EQ(decoded.type, PageType::kDictionaryPage);
  EXPECT_EQ(decoded.uncompressed_page_size, 1 << 20);
  EXPECT_EQ(decoded.compressed_page_size, 12345);
  ASSERT_TRUE(decoded.dictionary_page_header.has_value());
  EXPECT_EQ(decoded.dictionary_page_header->num_values, 1000);
  EXPECT_FALSE(decoded.data_page_header.has_value());
}

}  // namespace
}  // namespace silt::parquet
