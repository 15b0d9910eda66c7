#include "silt/parquet/codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/base/testing_error_class.h"
#include "silt/parquet/snappy_decoder_internal.h"

namespace silt::parquet {
namespace {

const CompressionCodec kCodecs[] = {
    CompressionCodec::kUncompressed, CompressionCodec::kSnappy, CompressionCodec::kGzip,
    CompressionCodec::kBrotli,       CompressionCodec::kZstd,   CompressionCodec::kLz4Raw,
    CompressionCodec::kLz4,
};

std::string SampleData(size_t size) {
  std::string data;
  uint32_t state = 12345;
  while (data.size() < size) {
    state = state * 1103515245u + 12345u;
    // Mix of repetitive and random bytes so that every codec has something to do.
    if ((state >> 16) % 3 == 0) {
      data += "repeated text ";
    } else {
      data += static_cast<char>(state >> 24);
    }
  }
  data.resize(size);
  return data;
}

TEST(CodecTest, RoundTripsEveryCodec) {
  for (CompressionCodec codec : kCodecs) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{100}, size_t{70000}}) {
      std::string input = SampleData(size);
      std::string compressed;
      Compress(codec, reinterpret_cast<const uint8_t*>(input.data()), input.size(), &compressed);
      std::vector<uint8_t> output(size + 1);
      Decompress(codec, reinterpret_cast<const uint8_t*>(compressed.data()), compressed.size(),
                 output.data(), size);
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(output.data()), size), input)
          << CodecName(codec) << " " << size;
    }
  }
}

TEST(CodecTest, CorruptOrWronglySizedInputIsCorrupt) {
  std::string input = SampleData(5000);
  for (CompressionCodec codec : kCodecs) {
    std::string compressed;
    Compress(codec, reinterpret_cast<const uint8_t*>(input.data()), input.size(), &compressed);
    std::vector<uint8_t> output(input.size() * 2);
    // Truncated input.
    EXPECT_EQ(ErrorClassOf([&] {
                Decompress(codec, reinterpret_cast<const uint8_t*>(compressed.data()),
                           compressed.size() / 2, output.data(), input.size());
              }),
              "PARQUET_CORRUPT_FILE")
        << CodecName(codec);
    // The page header promises a different size.
    EXPECT_EQ(ErrorClassOf([&] {
                Decompress(codec, reinterpret_cast<const uint8_t*>(compressed.data()),
                           compressed.size(), output.data(), input.size() + 7);
              }),
              "PARQUET_CORRUPT_FILE")
        << CodecName(codec);
    // Garbage.
    std::string garbage = SampleData(300);
    for (char& c : garbage) c = static_cast<char>(c ^ 0x5A);
    std::string garbage_class = ErrorClassOf([&] {
      Decompress(codec, reinterpret_cast<const uint8_t*>(garbage.data()), garbage.size(),
                 output.data(), 4000);
    });
    EXPECT_EQ(garbage_class, "PARQUET_CORRUPT_FILE") << CodecName(codec);
  }
}

TEST(CodecTest, Lz4FallsBackToRawBlocks) {
  std::string input = SampleData(3000);
  std::string raw;
  Compress(CompressionCodec::kLz4Raw, reinterpret_cast<const uint8_t*>(input.data()), input.size(),
           &raw);
  std::vector<uint8_t> output(input.size());
  // parquet-cpp once wrote raw blocks under the LZ4 codec id.
  Decompress(CompressionCodec::kLz4, reinterpret_cast<const uint8_t*>(raw.data()), raw.size(),
             output.data(), output.size());
  EXPECT_EQ(std::string(output.begin(), output.end()), input);
}

// Inputs that exercise every Snappy element kind: short and long literals (1-byte tags and 1..4
// extra length bytes), copies with 1-, 2- and 4-byte offsets, overlapping pattern copies with
// offsets below 8 and between 8 and 16, and elements ending right at the output's end.
std::vector<std::string> SnappyShapes() {
  std::mt19937 random(7);
  auto noise = [&](size_t n) {
    std::string text(n, '\0');
    for (char& c : text) c = static_cast<char>(random());
    return text;
  };
  std::vector<std::string> shapes = {"", "a", "abc", std::string(100, 'x'), noise(15), noise(16),
                                     noise(17), noise(61), noise(300), noise(70000)};
  for (size_t period = 1; period <= 20; ++period) {
    std::string base = noise(period), text;
    while (text.size() < 1000 + period) text += base;
    shapes.push_back(text);
  }
  std::string mixed;  // short values with repeats near and far, as in Parquet string pages
  for (int i = 0; i < 200000; ++i) {
    mixed += "city_" + std::to_string(random() % 1000);
    if (i % 7 == 0) mixed += noise(random() % 40);
  }
  shapes.push_back(mixed);
  // Plain Parquet pages of 8-byte integers: small random values (short literals and copies of
  // the zero bytes) and sequential ones.
  std::string small_numbers, sequential;
  for (int64_t i = 0; i < 100000; ++i) {
    int64_t value = static_cast<int64_t>(random() % 100000000);
    small_numbers.append(reinterpret_cast<const char*>(&value), 8);
    int64_t next = 1000000 + 7 * i;
    sequential.append(reinterpret_cast<const char*>(&next), 8);
  }
  shapes.push_back(small_numbers);
  shapes.push_back(sequential);
  return shapes;
}

TEST(SnappyDecoderTest, DecodesWhatLibsnappyEncodes) {
  for (const std::string& original : SnappyShapes()) {
    std::string compressed;
    Compress(CompressionCodec::kSnappy, reinterpret_cast<const uint8_t*>(original.data()),
             original.size(), &compressed);
    std::string decoded(original.size(), '\0');
    ASSERT_TRUE(internal::DecompressSnappy(reinterpret_cast<const uint8_t*>(compressed.data()),
                                           compressed.size(),
                                           reinterpret_cast<uint8_t*>(decoded.data()),
                                           decoded.size()))
        << original.size();
    EXPECT_EQ(decoded, original);
  }
}

TEST(SnappyDecoderTest, RejectsMalformedBlocks) {
  auto decodes = [](const std::vector<uint8_t>& block, size_t output_size) {
    std::vector<uint8_t> output(output_size + 32);
    return internal::DecompressSnappy(block.data(), block.size(), output.data(), output_size);
  };
  EXPECT_TRUE(decodes({3, 0x08, 'a', 'b', 'c'}, 3));           // literal "abc"
  EXPECT_FALSE(decodes({3, 0x08, 'a', 'b', 'c'}, 4));          // length header disagrees
  EXPECT_FALSE(decodes({3, 0x08, 'a', 'b'}, 3));               // literal runs past the input
  EXPECT_FALSE(decodes({2, 0x08, 'a', 'b', 'c'}, 2));          // literal runs past the output
  EXPECT_FALSE(decodes({4, 0xf0}, 4));                         // missing extra length byte
  EXPECT_TRUE(decodes({5, 0x00, 'a', 0x01, 0x01}, 5));         // "a" then copy 4 at offset 1
  EXPECT_FALSE(decodes({5, 0x00, 'a', 0x01, 0x00}, 5));        // offset 0
  EXPECT_FALSE(decodes({5, 0x00, 'a', 0x01, 0x02}, 5));        // offset before the start
  EXPECT_FALSE(decodes({4, 0x00, 'a', 0x01, 0x01}, 4));        // copy past the output's end
  EXPECT_FALSE(decodes({5, 0x00, 'a', 0x02, 0x01}, 5));        // truncated 2-byte offset
  EXPECT_FALSE(decodes({5, 0x00, 'a', 0x03, 0x01, 0x00}, 5));  // truncated 4-byte offset
  EXPECT_FALSE(decodes({2, 0x00, 'a'}, 2));                    // ends before the length
  EXPECT_FALSE(decodes({0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 0));  // varint too long
}

TEST(SnappyDecoderTest, RejectsMalformedElementsInTheBulkOfABlock) {
  // Elements far from both ends (where the decoder skips per-element bounds checks) are still
  // checked for their offsets and long literal lengths.
  auto block_with = [](const std::vector<uint8_t>& element) {
    std::vector<uint8_t> block = {200, 1};   // 200 bytes
    block.push_back(59 << 2);                // a literal of 60 bytes
    for (int i = 0; i < 60; ++i) block.push_back(static_cast<uint8_t>(i));
    block.insert(block.end(), element.begin(), element.end());
    block.push_back(59 << 2);                // another 60 bytes, keeping the element in the bulk
    for (int i = 0; i < 60; ++i) block.push_back(static_cast<uint8_t>(i));
    return block;
  };
  auto decodes = [](const std::vector<uint8_t>& block) {
    std::vector<uint8_t> output(200);
    return internal::DecompressSnappy(block.data(), block.size(), output.data(), output.size());
  };
  // Copies of 64 at offset 60 and 40 bytes of literal: a valid block.
  std::vector<uint8_t> copy_and_literal = {(63 << 2) | 2, 60, 0, (15 << 2) | 0};
  for (int i = 0; i < 16; ++i) copy_and_literal.push_back(0xAB);
  std::vector<uint8_t> valid = block_with(copy_and_literal);
  valid.resize(valid.size() - 61);   // drop the second literal: 60 + 64 + 16 = 140 bytes ...
  valid.push_back(59 << 2);          // ... then 60 more
  for (int i = 0; i < 60; ++i) valid.push_back(static_cast<uint8_t>(i));
  EXPECT_TRUE(decodes(valid));
  EXPECT_FALSE(decodes(block_with({(63 << 2) | 2, 61, 0})));              // offset past the start
  EXPECT_FALSE(decodes(block_with({(63 << 2) | 2, 0, 0})));               // offset 0
  EXPECT_FALSE(decodes(block_with({(63 << 2) | 3, 0xff, 0xff, 0, 0})));   // 4-byte offset
  EXPECT_FALSE(decodes(block_with({(1 << 5) | 1, 0})));                   // 11-bit offset 256
  EXPECT_FALSE(decodes(block_with({61 << 2, 0xff, 0xff})));               // literal past the input
}

TEST(SnappyDecoderTest, DamagedBlocksFailOrDecodeWithinTheirBuffers) {
  // Every damage either fails or decodes to some bytes; none reads or writes outside the
  // buffers (sanitizer builds check that).
  std::string original = SnappyShapes().back();
  original.resize(20000);
  std::string compressed;
  Compress(CompressionCodec::kSnappy, reinterpret_cast<const uint8_t*>(original.data()),
           original.size(), &compressed);
  std::mt19937 random(11);
  for (int trial = 0; trial < 3000; ++trial) {
    std::vector<uint8_t> damaged(compressed.begin(), compressed.end());
    size_t at = 3 + random() % (damaged.size() - 3);  // keep the length header
    damaged[at] = static_cast<uint8_t>(random());
    std::vector<uint8_t> output(original.size());
    internal::DecompressSnappy(damaged.data(), damaged.size(), output.data(), output.size());
  }
}

TEST(CodecTest, LzoIsUnsupported) {
  uint8_t byte = 0;
  EXPECT_EQ(ErrorClassOf([&] { Decompress(CompressionCodec::kLzo, &byte, 1, &byte, 1); }),
            "PARQUET_UNSUPPORTED_FEATURE");
  EXPECT_EQ(ErrorClassOf([&] {
              Decompress(static_cast<CompressionCodec>(42), &byte, 1, &byte, 1);
            }),
            "PARQUET_UNSUPPORTED_FEATURE");
  EXPECT_STREQ(CodecName(CompressionCodec::kZstd), "ZSTD");
}

}  // namespace
}  // namespace silt::parquet
