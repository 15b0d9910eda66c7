#pragma once

// Value and level encoders of the write path (apache/parquet-format Encodings.md): PLAIN for
// every physical type, the RLE / bit-packing hybrid for levels and dictionary indices, and
// dictionary builders that produce the PLAIN-encoded dictionary page as they grow.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace silt::parquet {

/// Decimal unscaled values as 128-bit two's complement integers (as silt vectors hold them).
using Int128 = __int128;

/// Returns the number of bits needed to represent `max_value` (0 for 0).
int BitWidth(uint64_t max_value);

/// Appends the RLE / bit-packing hybrid encoding of `values` (each < 2^bit_width) to `out`,
/// without any length prefix (Encodings.md "Run Length Encoding / Bit-Packing Hybrid"). Runs of
/// 8 or more equal values become RLE runs; everything else is bit-packed in groups of 8 (the last
/// group padded with zeros). `bit_width` is 0..32; with 0 nothing but run headers is written.
void EncodeRleBitPacked(const uint32_t* values, size_t count, int bit_width, std::string* out);
/// The same for 16-bit repetition/definition levels.
void EncodeRleBitPacked(const int16_t* values, size_t count, int bit_width, std::string* out);

/// Appends data page v1 levels: a 4-byte little-endian length followed by the RLE / bit-packed
/// hybrid encoding of `levels` for levels up to `max_level`.
void EncodeLevelsV1(const int16_t* levels, size_t count, int16_t max_level, std::string* out);

/// PLAIN encoders: append `count` values to `out`.
/// BOOLEAN: bit-packed LSB first; `values` are 0/1 bytes.
void EncodePlainBoolean(const uint8_t* values, size_t count, std::string* out);
/// INT32, INT64, FLOAT, DOUBLE: little-endian (the host order; silt targets little-endian).
template <typename T>
void EncodePlainFixed(const T* values, size_t count, std::string* out) {
  size_t old_size = out->size();
  out->resize(old_size + count * sizeof(T));
  if (count != 0) std::memcpy(out->data() + old_size, values, count * sizeof(T));
}
/// BYTE_ARRAY: a 4-byte little-endian length before each value's bytes.
void EncodePlainByteArray(const std::string_view* values, size_t count, std::string* out);
/// FIXED_LEN_BYTE_ARRAY holding a decimal: each value as `type_length` bytes of big-endian two's
/// complement (the value must fit; see MinimalDecimalBytes).
void EncodePlainDecimal(const Int128* values, size_t count, int type_length, std::string* out);
/// Writes `value` as `type_length` big-endian two's complement bytes at `out`.
void StoreBigEndianDecimal(Int128 value, int type_length, uint8_t* out);

/// The fewest bytes that hold every unscaled decimal of `precision` digits as big-endian two's
/// complement (LogicalTypes.md DECIMAL: FIXED_LEN_BYTE_ARRAY). 1..16 for precision 1..38.
int MinimalDecimalBytes(int precision);

/// Builds a dictionary of distinct values in first-seen order, and its PLAIN encoding (the
/// dictionary page body) as it grows. `T` is int32_t, int64_t, float, double, Int128 (decimal as
/// FIXED_LEN_BYTE_ARRAY of `type_length` bytes) or std::string_view (BYTE_ARRAY; the builder
/// copies the bytes). Floats are keyed by their bit pattern, so -0.0, +0.0 and distinct NaNs
/// stay distinct and round-trip exactly. Not thread-safe.
template <typename T>
class DictionaryBuilder {
 public:
  /// `type_length` is used only for Int128 (the FIXED_LEN_BYTE_ARRAY width).
  explicit DictionaryBuilder(int type_length = 16);

  /// Returns the index of `value`, adding it when new.
  uint32_t Insert(const T& value);
  /// Inserts `count` values and stores their indices.
  void InsertAll(const T* values, size_t count, uint32_t* indices) {
    for (size_t i = 0; i < count; ++i) indices[i] = Insert(values[i]);
  }

  /// Number of distinct values.
  size_t size() const { return num_entries_; }
  /// Bytes of the PLAIN-encoded dictionary page body.
  size_t plain_bytes() const { return plain_.size(); }
  /// The PLAIN-encoded dictionary page body.
  const std::string& plain() const { return plain_; }
  /// The distinct values in index order (string views point into the builder).
  T value(size_t index) const;

 private:
  uint64_t Hash(const T& value) const;
  bool Matches(uint32_t index, const T& value) const;
  void Grow();

  int type_length_;
  size_t num_entries_ = 0;
  std::string plain_;
  std::vector<T> values_;                // fixed-width types
  std::vector<uint32_t> value_offsets_;  // byte arrays: offset of each value's bytes in plain_
  std::vector<uint32_t> value_lengths_;
  std::vector<uint64_t> hashes_;  // per entry, to rehash without recomputing
  std::vector<uint32_t> slots_;   // open addressing; 0 = empty, else index + 1
  uint64_t mask_ = 0;
};

extern template class DictionaryBuilder<int32_t>;
extern template class DictionaryBuilder<int64_t>;
extern template class DictionaryBuilder<float>;
extern template class DictionaryBuilder<double>;
extern template class DictionaryBuilder<Int128>;
extern template class DictionaryBuilder<std::string_view>;

/// Appends a dictionary-indices data page body: one byte of bit width, then the RLE /
/// bit-packing hybrid of `indices` (Encodings.md "Dictionary Encoding"). `dictionary_size` gives
/// the bit width (at least 1).
void EncodeDictionaryIndices(const uint32_t* indices, size_t count, size_t dictionary_size,
                             std::string* out);

}  // namespace silt::parquet
