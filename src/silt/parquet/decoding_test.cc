#include "silt/parquet/decoding.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "silt/base/check.h"

namespace silt::parquet {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;

std::vector<uint8_t> Bytes(std::initializer_list<int> values) {
  std::vector<uint8_t> out;
  for (int v : values) out.push_back(static_cast<uint8_t>(v));
  return out;
}

void ExpectCorrupt(const std::function<void()>& action) {
  try {
    action();
    ADD_FAILURE() << "expected PARQUET_CORRUPT_FILE";
  } catch (const Error& error) {
    EXPECT_EQ(error.error_class(), "PARQUET_CORRUPT_FILE") << error.what();
  }
}

std::vector<std::string> Strings(const PhysicalValues& values) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < values.count(); ++i) {
    out.emplace_back(reinterpret_cast<const char*>(values.byte_data()) + values.offsets()[i],
                     static_cast<size_t>(values.offsets()[i + 1] - values.offsets()[i]));
  }
  return out;
}

template <typename T>
std::vector<T> Fixed(const PhysicalValues& values) {
  std::vector<T> out(static_cast<size_t>(values.count()));
  std::memcpy(out.data(), values.fixed_data(), out.size() * sizeof(T));
  return out;
}

// Packs values LSB first, the hybrid's bit-packing order (the reference for UnpackBits).
std::vector<uint8_t> Pack(const std::vector<uint64_t>& values, int bit_width) {
  std::vector<uint8_t> out((values.size() * static_cast<size_t>(bit_width) + 7) / 8, 0);
  size_t bit = 0;
  for (uint64_t value : values) {
    for (int b = 0; b < bit_width; ++b, ++bit) {
      if ((value >> b) & 1) out[bit / 8] |= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  return out;
}

TEST(DecodingTest, UnpackBitsMatchesAReferencePackerForEveryWidth) {
  for (int width = 0; width <= 64; ++width) {
    std::vector<uint64_t> values;
    uint64_t mask = width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 300; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      values.push_back(state & mask);
    }
    std::vector<uint8_t> packed = Pack(values, width);
    std::vector<uint64_t> unpacked(values.size());
    UnpackBits64(packed.data(), packed.size(), width, values.size(), unpacked.data());
    EXPECT_EQ(unpacked, values) << "width " << width;
    if (width <= 32) {
      std::vector<uint32_t> narrow(values.size());
      UnpackBits32(packed.data(), packed.size(), width, values.size(), narrow.data());
      for (size_t i = 0; i < values.size(); ++i) ASSERT_EQ(narrow[i], values[i]) << width;
    }
  }
}

TEST(DecodingTest, BitPackedRunFromEncodingsMd) {
  // Encodings.md: values 0..7 with bit width 3 bit-pack to 10001000 11000110 11111010.
  std::vector<uint8_t> data = Bytes({0x03, 0x88, 0xC6, 0xFA});
  RleBitPackedDecoder decoder(data.data(), data.size(), 3);
  std::vector<uint32_t> out(8);
  EXPECT_EQ(decoder.GetBatch(out.data(), 8), 8u);
  EXPECT_THAT(out, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_EQ(decoder.GetBatch(out.data(), 1), 0u);
}

TEST(DecodingTest, RleRunsAndSplitBatches) {
  // An RLE run of 5 x 300 (bit width 9: two value bytes), then the bit-packed 0..7 of width 9.
  std::vector<uint64_t> packed_values = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<uint8_t> data = Bytes({5 << 1, 300 & 0xFF, 300 >> 8, 0x03});
  std::vector<uint8_t> packed = Pack(packed_values, 9);
  data.insert(data.end(), packed.begin(), packed.end());
  RleBitPackedDecoder decoder(data.data(), data.size(), 9);
  std::vector<uint32_t> out;
  // Odd batch sizes split runs and bit-packed groups at every offset.
  for (size_t take : {2, 1, 3, 2, 5}) {
    std::vector<uint32_t> part(take);
    size_t got = decoder.GetBatch(part.data(), take);
    out.insert(out.end(), part.begin(), part.begin() + static_cast<long>(got));
  }
  EXPECT_THAT(out, ElementsAre(300, 300, 300, 300, 300, 0, 1, 2, 3, 4, 5, 6, 7));
}

TEST(DecodingTest, LevelsAreCheckedAgainstTheMaximum) {
  std::vector<uint8_t> data = Bytes({4 << 1, 2});  // four levels of 2
  RleBitPackedDecoder ok(data.data(), data.size(), 2);
  std::vector<int16_t> levels(4);
  ok.GetLevels(levels.data(), 4, 2);
  EXPECT_THAT(levels, ElementsAre(2, 2, 2, 2));
  ExpectCorrupt([&] {
    RleBitPackedDecoder decoder(data.data(), data.size(), 2);
    decoder.GetLevels(levels.data(), 4, 1);
  });
  ExpectCorrupt([&] {
    RleBitPackedDecoder decoder(data.data(), data.size(), 2);
    std::vector<int16_t> more(5);
    decoder.GetLevels(more.data(), 5, 2);  // the data holds only four
  });
}

TEST(DecodingTest, LevelsUnlessAllMaxCountAndWriteOnlyWhenNeeded) {
  // All at the maximum (two RLE runs): counted, the output untouched.
  std::vector<uint8_t> all_max = Bytes({3 << 1, 1, 2 << 1, 1});
  RleBitPackedDecoder decoder(all_max.data(), all_max.size(), 1);
  std::vector<int16_t> levels(5, -7);
  EXPECT_EQ(decoder.GetLevelsUnlessAllMax(levels.data(), 5, 1), 5);
  EXPECT_THAT(levels, ElementsAre(-7, -7, -7, -7, -7));

  // A run of the maximum, then NULLs, then the maximum again: every level written.
  std::vector<uint8_t> mixed = Bytes({3 << 1, 1, 2 << 1, 0, 1 << 1, 1});
  RleBitPackedDecoder mixed_decoder(mixed.data(), mixed.size(), 1);
  levels.assign(6, -7);
  EXPECT_EQ(mixed_decoder.GetLevelsUnlessAllMax(levels.data(), 6, 1), 4);
  EXPECT_THAT(levels, ElementsAre(1, 1, 1, 0, 0, 1));

  // A bit-packed group of eight (0b10111111: one NULL) after a run of the maximum.
  std::vector<uint8_t> packed = Bytes({2 << 1, 1, (1 << 1) | 1, 0xBF});
  RleBitPackedDecoder packed_decoder(packed.data(), packed.size(), 1);
  levels.assign(10, -7);
  EXPECT_EQ(packed_decoder.GetLevelsUnlessAllMax(levels.data(), 10, 1), 9);
  EXPECT_THAT(levels, ElementsAre(1, 1, 1, 1, 1, 1, 1, 1, 0, 1));

  // Levels above the maximum and data that ends early are corrupt, as for GetLevels.
  std::vector<uint8_t> too_high = Bytes({4 << 1, 2});
  ExpectCorrupt([&] {
    RleBitPackedDecoder bad(too_high.data(), too_high.size(), 2);
    bad.GetLevelsUnlessAllMax(levels.data(), 4, 1);
  });
  ExpectCorrupt([&] {
    RleBitPackedDecoder short_data(all_max.data(), all_max.size(), 1);
    std::vector<int16_t> more(6);
    short_data.GetLevelsUnlessAllMax(more.data(), 6, 1);
  });
}

TEST(DecodingTest, TruncatedRunsAreCorrupt) {
  std::vector<uint8_t> truncated_value = Bytes({4 << 1});
  ExpectCorrupt([&] {
    RleBitPackedDecoder decoder(truncated_value.data(), truncated_value.size(), 8);
    uint32_t out[4];
    decoder.GetBatch(out, 4);
  });
  std::vector<uint8_t> endless_varint = Bytes({0x80, 0x80, 0x80});
  ExpectCorrupt([&] {
    RleBitPackedDecoder decoder(endless_varint.data(), endless_varint.size(), 8);
    uint32_t out[4];
    decoder.GetBatch(out, 4);
  });
  ExpectCorrupt([&] { RleBitPackedDecoder decoder(nullptr, 0, 33); });
}

TEST(DecodingTest, DeprecatedBitPackedLevelsAreMostSignificantBitFirst) {
  // Encodings.md: 0..7 with width 3 in BIT_PACKED: 00000101 00111001 01110111.
  std::vector<uint8_t> data = Bytes({0x05, 0x39, 0x77});
  std::vector<int16_t> levels(8);
  EXPECT_EQ(DecodeBitPackedLevels(data.data(), data.size(), 3, 8, 7, levels.data()), 3u);
  EXPECT_THAT(levels, ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
}

TEST(DecodingTest, PlainFixedWidthBooleansAndByteArrays) {
  PhysicalValues ints(PhysicalType::kInt32, 0);
  std::vector<uint8_t> data = Bytes({1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF});
  EXPECT_EQ(DecodePlain(data.data(), data.size(), 2, &ints), 8u);
  EXPECT_THAT(Fixed<int32_t>(ints), ElementsAre(1, -1));

  PhysicalValues booleans(PhysicalType::kBoolean, 0);
  std::vector<uint8_t> bits = Bytes({0b10100101, 0b1});
  EXPECT_EQ(DecodePlain(bits.data(), bits.size(), 9, &booleans), 2u);
  EXPECT_THAT(Fixed<uint8_t>(booleans), ElementsAre(1, 0, 1, 0, 0, 1, 0, 1, 1));

  PhysicalValues strings(PhysicalType::kByteArray, 0);
  std::vector<uint8_t> plain = Bytes({2, 0, 0, 0, 'h', 'i', 0, 0, 0, 0, 3, 0, 0, 0, 'a', 'b', 'c'});
  EXPECT_EQ(DecodePlain(plain.data(), plain.size(), 3, &strings), plain.size());
  EXPECT_THAT(Strings(strings), ElementsAre("hi", "", "abc"));

  PhysicalValues fixed(PhysicalType::kFixedLenByteArray, 3);
  std::vector<uint8_t> three = Bytes({1, 2, 3, 4, 5, 6});
  DecodePlain(three.data(), three.size(), 2, &fixed);
  EXPECT_EQ(fixed.count(), 2);
  EXPECT_EQ(fixed.fixed_data()[5], 6);
}

TEST(DecodingTest, PlainPastTheEndIsCorrupt) {
  std::vector<uint8_t> data = Bytes({5, 0, 0, 0, 'a', 'b'});
  ExpectCorrupt([&] {
    PhysicalValues strings(PhysicalType::kByteArray, 0);
    DecodePlain(data.data(), data.size(), 1, &strings);
  });
  ExpectCorrupt([&] {
    PhysicalValues longs(PhysicalType::kInt64, 0);
    DecodePlain(data.data(), data.size(), 1, &longs);
  });
  ExpectCorrupt([&] {
    PhysicalValues booleans(PhysicalType::kBoolean, 0);
    DecodePlain(data.data(), data.size(), 100, &booleans);
  });
}

TEST(DecodingTest, DeltaBinaryPackedExamplesFromEncodingsMd) {
  // Example 1: 1, 2, 3, 4, 5 -> header 8, 1, 5, 1; block: min delta 1, bit width 0.
  std::vector<uint8_t> example1 = Bytes({8, 1, 5, 2, 2, 0});
  std::vector<int64_t> out;
  EXPECT_EQ(DecodeDeltaBinaryPacked(example1.data(), example1.size(), false, 5, &out), 6u);
  EXPECT_THAT(out, ElementsAre(1, 2, 3, 4, 5));

  // Example 2: 7, 5, 3, 1, 2, 3, 4, 5 -> min delta -2, relative deltas 0 0 0 3 3 3 3, width 2.
  std::vector<uint8_t> example2 = Bytes({8, 1, 8, 14, 3, 2, 0xC0, 0x3F});
  out.clear();
  EXPECT_EQ(DecodeDeltaBinaryPacked(example2.data(), example2.size(), false, 8, &out), 8u);
  EXPECT_THAT(out, ElementsAre(7, 5, 3, 1, 2, 3, 4, 5));
}

TEST(DecodingTest, DeltaBinaryPackedWrapsInt32) {
  // INT32_MAX then a delta of +1 wraps to INT32_MIN for an INT32 column.
  std::vector<uint8_t> data = Bytes({8, 1, 2, 0xFE, 0xFF, 0xFF, 0xFF, 0x0F, 2, 0});
  std::vector<int64_t> out;
  DecodeDeltaBinaryPacked(data.data(), data.size(), true, 2, &out);
  EXPECT_THAT(out, ElementsAre(INT32_MAX, INT32_MIN));
}

TEST(DecodingTest, DeltaBinaryPackedRejectsBadHeaders) {
  std::vector<std::vector<uint8_t>> bad = {
      Bytes({0, 1, 5, 2}),           // zero block size
      Bytes({8, 0, 5, 2}),           // zero miniblocks
      Bytes({12, 1, 5, 2}),          // miniblock of 12 values is not whole bytes
      Bytes({8, 1, 1, 2}),           // fewer values than asked for
      Bytes({8, 1, 5, 2, 2}),        // truncated miniblock widths
      Bytes({8, 1, 5, 2, 2, 65}),    // bit width above 64
      Bytes({8, 1, 5, 2, 2, 8, 1}),  // truncated miniblock data
  };
  for (const auto& data : bad) {
    ExpectCorrupt([&] {
      std::vector<int64_t> out;
      DecodeDeltaBinaryPacked(data.data(), data.size(), false, 5, &out);
    });
  }
}

TEST(DecodingTest, DeltaLengthByteArrayExample) {
  // Encodings.md: "Hello", "World", "Foobar", "ABCDEF" -> lengths 5 5 6 6, then the bytes.
  std::vector<uint8_t> data = Bytes({8, 1, 4, 10, 0, 1, 0x02});
  std::string text = "HelloWorldFoobarABCDEF";
  data.insert(data.end(), text.begin(), text.end());
  PhysicalValues out(PhysicalType::kByteArray, 0);
  EXPECT_EQ(DecodeDeltaLengthByteArray(data.data(), data.size(), 4, &out), data.size());
  EXPECT_THAT(Strings(out), ElementsAre("Hello", "World", "Foobar", "ABCDEF"));
  data.pop_back();
  PhysicalValues short_out(PhysicalType::kByteArray, 0);
  ExpectCorrupt([&] { DecodeDeltaLengthByteArray(data.data(), data.size(), 4, &short_out); });
}

TEST(DecodingTest, DeltaByteArrayExample) {
  // Encodings.md: "axis", "axle", "babble", "babyhood" -> prefixes 0 2 0 3, suffixes
  // "axis" "le" "babble" "yhood".
  std::vector<uint8_t> data = Bytes({8, 1, 4, 0, 3, 3, 0x44, 0x01, 0x00,   // prefix lengths
                                     8, 1, 4, 8, 3, 3, 0x70, 0x00, 0x00});  // suffix lengths
  std::string suffixes = "axislebabbleyhood";
  data.insert(data.end(), suffixes.begin(), suffixes.end());
  PhysicalValues out(PhysicalType::kByteArray, 0);
  std::vector<uint8_t> previous;
  EXPECT_EQ(DecodeDeltaByteArray(data.data(), data.size(), 4, &out, &previous), data.size());
  EXPECT_THAT(Strings(out), ElementsAre("axis", "axle", "babble", "babyhood"));
  // A prefix longer than the previous value is corrupt.
  std::vector<uint8_t> bad = Bytes({8, 1, 1, 10, 8, 1, 1, 2, 'a'});
  std::vector<uint8_t> empty;
  PhysicalValues bad_out(PhysicalType::kByteArray, 0);
  ExpectCorrupt([&] { DecodeDeltaByteArray(bad.data(), bad.size(), 1, &bad_out, &empty); });
}

TEST(DecodingTest, ByteStreamSplitInterleavesBytes) {
  float values[3] = {1.5f, -2.25f, 1e30f};
  uint8_t raw[12];
  std::memcpy(raw, values, sizeof(values));
  std::vector<uint8_t> split(12);
  for (int i = 0; i < 3; ++i) {
    for (int k = 0; k < 4; ++k) split[static_cast<size_t>(k * 3 + i)] = raw[i * 4 + k];
  }
  PhysicalValues out(PhysicalType::kFloat, 0);
  EXPECT_EQ(DecodeByteStreamSplit(split.data(), split.size(), 3, &out), 12u);
  EXPECT_THAT(Fixed<float>(out), ElementsAre(1.5f, -2.25f, 1e30f));
  PhysicalValues bad(PhysicalType::kFloat, 0);
  ExpectCorrupt([&] { DecodeByteStreamSplit(split.data(), 11, 3, &bad); });
  PhysicalValues strings(PhysicalType::kByteArray, 0);
  ExpectCorrupt([&] { DecodeByteStreamSplit(split.data(), 12, 3, &strings); });
}

TEST(DecodingTest, DictionaryGatherChecksIndexes) {
  PhysicalValues dictionary(PhysicalType::kByteArray, 0);
  std::vector<uint8_t> plain = Bytes({1, 0, 0, 0, 'a', 2, 0, 0, 0, 'b', 'c'});
  DecodePlain(plain.data(), plain.size(), 2, &dictionary);
  PhysicalValues out(PhysicalType::kByteArray, 0);
  uint32_t indexes[] = {1, 0, 1};
  out.AppendGather(dictionary, indexes, 3);
  EXPECT_THAT(Strings(out), ElementsAre("bc", "a", "bc"));
  uint32_t bad[] = {2};
  ExpectCorrupt([&] { out.AppendGather(dictionary, bad, 1); });

  PhysicalValues longs(PhysicalType::kInt64, 0);
  std::vector<uint8_t> two = Bytes({7, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0});
  DecodePlain(two.data(), two.size(), 2, &longs);
  PhysicalValues gathered(PhysicalType::kInt64, 0);
  gathered.AppendGather(longs, indexes, 3);
  EXPECT_THAT(Fixed<int64_t>(gathered), ElementsAre(9, 7, 9));
  ExpectCorrupt([&] { gathered.AppendGather(longs, bad, 1); });
  EXPECT_EQ(gathered.count(), 3);  // a failed gather adds nothing
  PhysicalValues empty(PhysicalType::kInt64, 0);
  ExpectCorrupt([&] { gathered.AppendGather(empty, indexes, 1); });
}

TEST(DecodingTest, DictionaryGatherOfEqualAndMixedLengthEntries) {
  // Entries of one length (a branch-free gather), of mixed lengths, and longer than 16 bytes,
  // appended after earlier values; an index out of range anywhere fails and adds nothing.
  auto dictionary_of = [](const std::vector<std::string>& entries) {
    PhysicalValues dictionary(PhysicalType::kByteArray, 0);
    for (const std::string& entry : entries) {
      dictionary.AppendByteArray(reinterpret_cast<const uint8_t*>(entry.data()), entry.size());
    }
    return dictionary;
  };
  const std::string long_entry(40, 'z');
  for (const std::vector<std::string>& entries :
       {std::vector<std::string>{"city_0001", "city_0002", "city_0003"},
        std::vector<std::string>{"", "", ""},
        std::vector<std::string>{"a", "bcd", long_entry},
        std::vector<std::string>{"0123456789abcdef", "fedcba9876543210", "0000000000000000"}}) {
    PhysicalValues dictionary = dictionary_of(entries);
    PhysicalValues out(PhysicalType::kByteArray, 0);
    out.AppendByteArray(reinterpret_cast<const uint8_t*>("first"), 5);
    std::vector<uint32_t> indexes;
    std::vector<std::string> expected = {"first"};
    for (uint32_t i = 0; i < 1000; ++i) {
      indexes.push_back(i * 7 % 3);
      expected.push_back(entries[i * 7 % 3]);
    }
    out.AppendGather(dictionary, indexes.data(), indexes.size());
    EXPECT_EQ(Strings(out), expected);
    indexes[500] = 3;
    ExpectCorrupt([&] { out.AppendGather(dictionary, indexes.data(), indexes.size()); });
    EXPECT_EQ(out.count(), 1001);
    EXPECT_EQ(Strings(out), expected);
  }
}

TEST(DecodingTest, BitWidthOf) {
  EXPECT_EQ(BitWidthOf(0), 0);
  EXPECT_EQ(BitWidthOf(1), 1);
  EXPECT_EQ(BitWidthOf(2), 2);
  EXPECT_EQ(BitWidthOf(255), 8);
  EXPECT_EQ(BitWidthOf(256), 9);
}

}  // namespace
}  // namespace silt::parquet
