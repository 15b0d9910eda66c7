#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/base/testing_error_class.h"
#include "silt/parquet/metadata.h"

namespace silt::parquet {
namespace {

// The seed corpus of the fuzz target doubles as real files written by DuckDB.
std::string ReadSeed(const std::string& name) {
  std::ifstream in(std::string(SILT_PARQUET_SEED_DIR) + "/" + name, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string FooterOf(const std::string& file) {
  uint32_t length;
  std::memcpy(&length, file.data() + file.size() - 8, 4);
  return file.substr(file.size() - 8 - length, length);
}

FileMetaData Decode(const std::vector<uint8_t>& bytes, const DecodeLimits& limits = {}) {
  return DecodeFileMetaData(bytes.data(), bytes.size(), limits);
}

TEST(MetadataDecodeTest, DecodesARealFooter) {
  std::string footer = FooterOf(ReadSeed("flat_nested_snappy.parquet"));
  FileMetaData metadata = DecodeFileMetaData(reinterpret_cast<const uint8_t*>(footer.data()),
                                             footer.size());
  EXPECT_EQ(metadata.num_rows, 40);
  ASSERT_FALSE(metadata.schema.empty());
  EXPECT_EQ(metadata.schema[1].name, "id");
  EXPECT_EQ(metadata.schema[1].type, PhysicalType::kInt64);
  ASSERT_EQ(metadata.row_groups.size(), 1u);
  const ColumnChunk& first = metadata.row_groups[0].columns[0];
  ASSERT_TRUE(first.meta_data.has_value());
  EXPECT_EQ(first.meta_data->codec, CompressionCodec::kSnappy);
  EXPECT_THAT(first.meta_data->path_in_schema, ::testing::ElementsAre("id"));
  EXPECT_EQ(first.meta_data->num_values, 40);
  ASSERT_TRUE(first.meta_data->statistics.has_value());
  EXPECT_TRUE(metadata.created_by.has_value());
  // DECIMAL(18,2) keeps its logical type parameters.
  bool found_decimal = false;
  for (const SchemaElement& element : metadata.schema) {
    if (element.name == "d18") {
      found_decimal = true;
      EXPECT_EQ(element.logical_type.kind, LogicalType::Kind::kDecimal);
      EXPECT_EQ(element.logical_type.decimal_precision, 18);
      EXPECT_EQ(element.logical_type.decimal_scale, 2);
    }
  }
  EXPECT_TRUE(found_decimal);
}

TEST(MetadataDecodeTest, EveryTruncationOfARealFooterIsCorrupt) {
  for (const char* name : {"flat_nested_snappy.parquet", "flat_nested_v2_zstd.parquet"}) {
    std::string footer = FooterOf(ReadSeed(name));
    ASSERT_GT(footer.size(), 100u);
    for (size_t length = 0; length < footer.size(); ++length) {
      std::string cut = footer.substr(0, length);
      EXPECT_EQ(ErrorClassOf([&] {
                  DecodeFileMetaData(reinterpret_cast<const uint8_t*>(cut.data()), cut.size());
                }),
                "PARQUET_CORRUPT_FILE")
          << name << " cut at " << length;
    }
  }
}

TEST(MetadataDecodeTest, EveryByteFlipOfARealFooterDecodesOrIsCorrupt) {
  std::string footer = FooterOf(ReadSeed("flat_nested_snappy.parquet"));
  for (size_t i = 0; i < footer.size(); ++i) {
    std::string changed = footer;
    changed[i] = static_cast<char>(changed[i] ^ 0xFF);
    std::string error_class = ErrorClassOf([&] {
      DecodeFileMetaData(reinterpret_cast<const uint8_t*>(changed.data()), changed.size());
    });
    EXPECT_TRUE(error_class == "no error" || error_class == "PARQUET_CORRUPT_FILE") << error_class;
  }
}

TEST(MetadataDecodeTest, SkipsUnknownFieldsOfEveryType) {
  // struct FileMetaData { 1: version = 2; 100: list<i32>; 101: map<binary, i64>;
  //   102: struct { 1: double; 2: bool }; 103: binary; 3: num_rows = 7; 2: schema = [];
  //   4: row_groups = [] }
  std::vector<uint8_t> bytes = {
      0x15, 0x04,                                      // field 1 i32: 2
      0x09, 0xC8, 0x01, 0x25, 0x02, 0x04,               // field 100 (long form) list<i32>[1, 2]
      0x1B, 0x01, 0x86, 0x01, 'k', 0x02,                // field 101 map size 1 binary->i64
      0x1C, 0x17, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 0x11, 0x00,  // field 102 struct {double, true}
      0x18, 0x03, 'a', 'b', 'c',                        // field 103 binary
      0x06, 0x06, 0x0E,                                 // field 3 (long form) i64: 7
      0x09, 0x04, 0x0C,                                 // field 2 (long form) list<struct>[]
      0x29, 0x0C,                                       // field 4 list<struct>[]
      0x00};
  FileMetaData metadata = Decode(bytes);
  EXPECT_EQ(metadata.version, 2);
  EXPECT_EQ(metadata.num_rows, 7);
}

TEST(MetadataDecodeTest, MissingRequiredFieldsAreCorrupt) {
  // A damaged field header turns a required field into an unknown one, which would be skipped.
  // version = 1, schema = [], num_rows = 0, row_groups = [], each left out in turn.
  std::vector<std::vector<uint8_t>> fields = {{0x15, 0x02}, {0x19, 0x0C}, {0x16, 0x00}, {0x19, 0x0C}};
  std::vector<uint8_t> complete;
  for (const auto& field : fields) complete.insert(complete.end(), field.begin(), field.end());
  complete.push_back(0x00);
  EXPECT_EQ(Decode(complete).version, 1);
  for (size_t missing = 0; missing < fields.size(); ++missing) {
    std::vector<uint8_t> bytes;
    int16_t last_id = 0;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (i == missing) continue;
      // Re-encode the header's id delta against the field before it.
      auto id = static_cast<int16_t>(i + 1);
      bytes.push_back(static_cast<uint8_t>(((id - last_id) << 4) | (fields[i][0] & 0x0F)));
      bytes.insert(bytes.end(), fields[i].begin() + 1, fields[i].end());
      last_id = id;
    }
    bytes.push_back(0x00);
    EXPECT_EQ(ErrorClassOf([&] { Decode(bytes); }), "PARQUET_CORRUPT_FILE") << "without field " << missing + 1;
  }
}

TEST(MetadataDecodeTest, HostileInputsAreCorrupt) {
  DecodeLimits limits;
  // A list claiming more elements than bytes left.
  EXPECT_EQ(ErrorClassOf([&] { Decode({0x29, 0xFC, 0xFF, 0xFF, 0xFF, 0x0F, 0x00}); }),
            "PARQUET_CORRUPT_FILE");
  // A binary longer than the input.
  EXPECT_EQ(ErrorClassOf([&] { Decode({0x68, 0x64, 'x', 0x00}); }), "PARQUET_CORRUPT_FILE");
  // Deeply nested unknown structs.
  std::vector<uint8_t> deep = {0x0C, 0xC8, 0x01};  // unknown field 100, a struct
  for (int i = 0; i < 200; ++i) deep.push_back(0x1C);  // field +1, struct
  deep.insert(deep.end(), 202, 0x00);
  EXPECT_EQ(ErrorClassOf([&] { Decode(deep); }), "PARQUET_CORRUPT_FILE");
  // Deeply nested lists of lists.
  std::vector<uint8_t> lists = {0x09, 0xC8, 0x01};  // unknown field 100, a list
  for (int i = 0; i < 200; ++i) lists.push_back(0x19);  // one element, itself a list
  EXPECT_EQ(ErrorClassOf([&] { Decode(lists); }), "PARQUET_CORRUPT_FILE");
  // An invalid type code and a varint without end.
  EXPECT_EQ(ErrorClassOf([&] { Decode({0x1D, 0x00}); }), "PARQUET_CORRUPT_FILE");
  EXPECT_EQ(ErrorClassOf([&] {
              Decode({0x16, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01});
            }),
            "PARQUET_CORRUPT_FILE");
  // A string above the configured limit.
  limits.max_string_bytes = 2;
  EXPECT_EQ(ErrorClassOf([&] { Decode({0x68, 0x03, 'a', 'b', 'c', 0x00}, limits); }),
            "PARQUET_CORRUPT_FILE");
  // The wrong type for a known field.
  EXPECT_EQ(ErrorClassOf([&] { Decode({0x18, 0x01, 'a', 0x00}); }), "PARQUET_CORRUPT_FILE");
}

TEST(MetadataDecodeTest, DecodesPageHeaders) {
  // PageHeader { 1: DATA_PAGE_V2 (3), 2: 100, 3: 50, 8: { 1: 10, 2: 1, 3: 10, 4: RLE_DICTIONARY,
  //   5: 4, 6: 0, 7: false } } followed by page bytes.
  std::vector<uint8_t> bytes = {0x15, 0x06, 0x15, 0xC8, 0x01, 0x15, 0x64, 0x5C,
                                0x15, 0x14, 0x15, 0x02, 0x15, 0x14, 0x15, 0x10,
                                0x15, 0x08, 0x15, 0x00, 0x12, 0x00, 0x00, 0xAA, 0xBB};
  size_t header_size = 0;
  PageHeader header = DecodePageHeader(bytes.data(), bytes.size(), &header_size);
  EXPECT_EQ(header_size, bytes.size() - 2);
  EXPECT_EQ(header.type, PageType::kDataPageV2);
  EXPECT_EQ(header.uncompressed_page_size, 100);
  EXPECT_EQ(header.compressed_page_size, 50);
  ASSERT_TRUE(header.data_page_header_v2.has_value());
  EXPECT_EQ(header.data_page_header_v2->num_values, 10);
  EXPECT_EQ(header.data_page_header_v2->num_nulls, 1);
  EXPECT_EQ(header.data_page_header_v2->encoding, Encoding::kRleDictionary);
  EXPECT_EQ(header.data_page_header_v2->definition_levels_byte_length, 4);
  EXPECT_FALSE(header.data_page_header_v2->is_compressed);
  // A negative page size is corrupt.
  std::vector<uint8_t> negative = {0x15, 0x00, 0x15, 0x01, 0x15, 0x01, 0x00};
  EXPECT_EQ(ErrorClassOf([&] { DecodePageHeader(negative.data(), negative.size(), &header_size); }),
            "PARQUET_CORRUPT_FILE");
}

}  // namespace
}  // namespace silt::parquet
