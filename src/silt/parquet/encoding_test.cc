#include "silt/parquet/encoding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

namespace silt::parquet {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

std::vector<uint8_t> Bytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

// An independent reader of the RLE / bit-packing hybrid, written from Encodings.md, to check
// that what the encoder writes decodes to the input.
std::vector<uint32_t> DecodeHybrid(const std::string& data, int bit_width, size_t count) {
  std::vector<uint32_t> values;
  size_t position = 0;
  auto varint = [&]() {
    uint64_t result = 0;
    int shift = 0;
    while (true) {
      auto byte = static_cast<uint8_t>(data.at(position++));
      result |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return result;
      shift += 7;
    }
  };
  while (values.size() < count) {
    uint64_t header = varint();
    if (header & 1) {
      size_t num_values = (header >> 1) * 8;
      uint64_t bit_position = 0;
      for (size_t i = 0; i < num_values; ++i) {
        uint32_t value = 0;
        for (int bit = 0; bit < bit_width; ++bit, ++bit_position) {
          auto byte = static_cast<uint8_t>(data.at(position + bit_position / 8));
          value |= static_cast<uint32_t>((byte >> (bit_position % 8)) & 1) << bit;
        }
        if (values.size() < count) values.push_back(value);
      }
      position += (header >> 1) * static_cast<size_t>(bit_width);
    } else {
      uint32_t value = 0;
      for (int i = 0; i < (bit_width + 7) / 8; ++i) {
        value |= static_cast<uint32_t>(static_cast<uint8_t>(data.at(position++))) << (8 * i);
      }
      for (uint64_t i = 0; i < (header >> 1); ++i) values.push_back(value);
    }
  }
  EXPECT_EQ(position, data.size()) << "trailing bytes after the encoded values";
  return values;
}

TEST(EncodingTest, BitWidth) {
  EXPECT_EQ(BitWidth(0), 0);
  EXPECT_EQ(BitWidth(1), 1);
  EXPECT_EQ(BitWidth(2), 2);
  EXPECT_EQ(BitWidth(7), 3);
  EXPECT_EQ(BitWidth(8), 4);
  EXPECT_EQ(BitWidth(0xFFFFFFFFu), 32);
}

TEST(EncodingTest, BitPackedSpecExample) {
  // Encodings.md: 0..7 with bit width 3 bit-pack to 10001000 11000110 11111010.
  std::vector<uint32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string out;
  EncodeRleBitPacked(values.data(), values.size(), 3, &out);
  EXPECT_THAT(Bytes(out), ElementsAre(0x03, 0x88, 0xC6, 0xFA));
}

TEST(EncodingTest, RepeatedRun) {
  std::vector<uint32_t> values(10, 5);
  std::string out;
  EncodeRleBitPacked(values.data(), values.size(), 3, &out);
  // Header 10 << 1, then the value in one byte.
  EXPECT_THAT(Bytes(out), ElementsAre(0x14, 0x05));
  out.clear();
  std::vector<uint32_t> wide(300, 0x1234);
  EncodeRleBitPacked(wide.data(), wide.size(), 13, &out);
  // 300 << 1 = 600 = varint 0xD8 0x04; the value in two little-endian bytes.
  EXPECT_THAT(Bytes(out), ElementsAre(0xD8, 0x04, 0x34, 0x12));
}

TEST(EncodingTest, LiteralsPaddedBeforeRun) {
  // Three literals then 13 repeats: the literal group takes 5 repeats, 8 repeats stay RLE.
  std::vector<uint32_t> values = {1, 2, 3};
  values.insert(values.end(), 13, 4);
  std::string out;
  EncodeRleBitPacked(values.data(), values.size(), 3, &out);
  ASSERT_EQ(out.size(), 1u + 3u + 2u);
  EXPECT_EQ(static_cast<uint8_t>(out[0]), 0x03);  // one group of 8 bit-packed
  EXPECT_EQ(static_cast<uint8_t>(out[4]), 8 << 1);
  EXPECT_EQ(static_cast<uint8_t>(out[5]), 4);
  EXPECT_EQ(DecodeHybrid(out, 3, values.size()), values);
}

TEST(EncodingTest, ShortRunsStayLiteral) {
  std::vector<uint32_t> values = {1, 1, 1, 1, 1, 1, 1, 2, 2, 3};
  std::string out;
  EncodeRleBitPacked(values.data(), values.size(), 2, &out);
  // One bit-packed run of two groups (the last padded): header 0x05 and 2 * 2 bytes.
  EXPECT_EQ(out.size(), 5u);
  EXPECT_EQ(static_cast<uint8_t>(out[0]), 0x05);
  EXPECT_EQ(DecodeHybrid(out, 2, values.size()), values);
}

TEST(EncodingTest, RandomRoundTrip) {
  std::mt19937 random(42);
  for (int bit_width : {1, 2, 3, 7, 8, 9, 16, 20, 31, 32}) {
    std::vector<uint32_t> values;
    uint64_t limit = bit_width == 32 ? 0xFFFFFFFFull : (1ull << bit_width) - 1;
    while (values.size() < 5000) {
      auto value = static_cast<uint32_t>(random() % (limit + 1));
      size_t run = random() % 3 == 0 ? random() % 40 : 1;
      values.insert(values.end(), run, value);
    }
    std::string out;
    EncodeRleBitPacked(values.data(), values.size(), bit_width, &out);
    EXPECT_EQ(DecodeHybrid(out, bit_width, values.size()), values) << "bit width " << bit_width;
  }
}

TEST(EncodingTest, LevelsHaveLengthPrefix) {
  std::vector<int16_t> levels = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  std::string out;
  EncodeLevelsV1(levels.data(), levels.size(), 1, &out);
  EXPECT_THAT(Bytes(out), ElementsAre(2, 0, 0, 0, 12 << 1, 1));
}

TEST(EncodingTest, PlainBoolean) {
  std::vector<uint8_t> values = {1, 0, 1, 1, 0, 0, 0, 0, 1};
  std::string out;
  EncodePlainBoolean(values.data(), values.size(), &out);
  EXPECT_THAT(Bytes(out), ElementsAre(0x0D, 0x01));
}

TEST(EncodingTest, PlainFixedAndByteArray) {
  std::vector<int32_t> ints = {1, -1};
  std::string out;
  EncodePlainFixed(ints.data(), ints.size(), &out);
  EXPECT_THAT(Bytes(out), ElementsAre(1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF));
  out.clear();
  std::vector<std::string_view> strings = {"ab", "", "c"};
  EncodePlainByteArray(strings.data(), strings.size(), &out);
  EXPECT_THAT(Bytes(out), ElementsAre(2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0, 1, 0, 0, 0, 'c'));
}

TEST(EncodingTest, DecimalBytes) {
  EXPECT_EQ(MinimalDecimalBytes(1), 1);
  EXPECT_EQ(MinimalDecimalBytes(2), 1);
  EXPECT_EQ(MinimalDecimalBytes(3), 2);
  EXPECT_EQ(MinimalDecimalBytes(5), 3);
  EXPECT_EQ(MinimalDecimalBytes(9), 4);
  EXPECT_EQ(MinimalDecimalBytes(18), 8);
  EXPECT_EQ(MinimalDecimalBytes(19), 9);
  EXPECT_EQ(MinimalDecimalBytes(30), 13);
  EXPECT_EQ(MinimalDecimalBytes(38), 16);
  std::vector<Int128> values = {-1, 256, -256};
  std::string out;
  EncodePlainDecimal(values.data(), values.size(), 3, &out);
  EXPECT_THAT(Bytes(out), ElementsAre(0xFF, 0xFF, 0xFF, 0x00, 0x01, 0x00, 0xFF, 0xFF, 0x00));
}

TEST(EncodingTest, DictionaryOfIntegers) {
  DictionaryBuilder<int64_t> dictionary;
  std::vector<int64_t> values = {7, 3, 7, 7, 3, 9};
  std::vector<uint32_t> indices(values.size());
  dictionary.InsertAll(values.data(), values.size(), indices.data());
  EXPECT_THAT(indices, ElementsAre(0, 1, 0, 0, 1, 2));
  EXPECT_EQ(dictionary.size(), 3u);
  EXPECT_EQ(dictionary.plain_bytes(), 24u);
  EXPECT_EQ(dictionary.value(2), 9);
}

TEST(EncodingTest, DictionaryKeepsFloatBitPatterns) {
  DictionaryBuilder<double> dictionary;
  EXPECT_EQ(dictionary.Insert(0.0), 0u);
  EXPECT_EQ(dictionary.Insert(-0.0), 1u);
  EXPECT_EQ(dictionary.Insert(std::nan("")), 2u);
  EXPECT_EQ(dictionary.Insert(std::nan("")), 2u);
  EXPECT_EQ(dictionary.Insert(0.0), 0u);
}

TEST(EncodingTest, DictionaryOfStringsGrows) {
  DictionaryBuilder<std::string_view> dictionary;
  std::vector<std::string> owned;
  for (int i = 0; i < 5000; ++i) owned.push_back("value_" + std::to_string(i));
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 5000; ++i) EXPECT_EQ(dictionary.Insert(owned[i]), static_cast<uint32_t>(i));
  }
  EXPECT_EQ(dictionary.size(), 5000u);
  EXPECT_EQ(dictionary.value(1234), "value_1234");
  EXPECT_EQ(dictionary.Insert(""), 5000u);
  EXPECT_EQ(dictionary.value(5000), "");
  // The PLAIN body starts with the first value, length-prefixed.
  EXPECT_EQ(dictionary.plain().substr(0, 11), std::string("\x07\0\0\0value_0", 11));
}

TEST(EncodingTest, DictionaryOfDecimals) {
  DictionaryBuilder<Int128> dictionary(13);
  Int128 big = static_cast<Int128>(1) << 90;
  EXPECT_EQ(dictionary.Insert(-big), 0u);
  EXPECT_EQ(dictionary.Insert(big), 1u);
  EXPECT_EQ(dictionary.Insert(-big), 0u);
  EXPECT_EQ(dictionary.plain_bytes(), 26u);
}

TEST(EncodingTest, DictionaryIndicesPage) {
  std::vector<uint32_t> indices = {0, 1, 2, 3, 4, 5, 6, 7};
  std::string out;
  EncodeDictionaryIndices(indices.data(), indices.size(), 8, &out);
  EXPECT_THAT(Bytes(out), ElementsAre(3, 0x03, 0x88, 0xC6, 0xFA));
  out.clear();
  std::vector<uint32_t> zeros(20, 0);
  EncodeDictionaryIndices(zeros.data(), zeros.size(), 1, &out);
  EXPECT_THAT(Bytes(out), ElementsAre(1, 20 << 1, 0));
}

}  // namespace
}  // namespace silt::parquet
