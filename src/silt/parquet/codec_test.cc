#include "silt/parquet/codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "silt/base/check.h"

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

std::string ErrorClassOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "";
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
