#pragma once

// Decoders for the value and level encodings of apache/parquet-format's Encodings.md. Each one
// decodes a whole run of values in a tight loop straight into buffers; none of them is called
// once per value through a virtual function. Every decoder checks its input bounds and throws
// PARQUET_CORRUPT_FILE (path "<page>"; the column reader adds the file and column) on malformed
// input; none reads or writes outside the ranges it was given.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "silt/parquet/metadata.h"
#include "silt/vector/vector.h"

namespace silt::parquet {

/// Throws PARQUET_CORRUPT_FILE for page data: `what` says what is wrong.
[[noreturn]] void ThrowCorruptPage(const std::string& what);

/// Decoded values of one physical type, densely (nulls are not present), appended page by page.
/// Fixed-width types keep `width` bytes per value in `fixed` (BOOLEAN: one byte 0/1 per value,
/// INT96: 12 bytes, FIXED_LEN_BYTE_ARRAY: type_length bytes); BYTE_ARRAY keeps `count + 1` int32
/// offsets in `offsets` and the bytes in `data`. Not thread-safe.
class PhysicalValues {
 public:
  /// `type_length` is the FIXED_LEN_BYTE_ARRAY width (ignored for other types).
  PhysicalValues(PhysicalType type, int type_length);

  PhysicalType type() const { return type_; }
  /// Bytes per value of fixed-width types; 0 for BYTE_ARRAY.
  size_t width() const { return width_; }
  bool is_byte_array() const { return type_ == PhysicalType::kByteArray; }
  int64_t count() const { return count_; }

  /// Fixed-width: makes room for `count` more values and returns where they go; call
  /// CommitFixed once they are written.
  uint8_t* ReserveFixed(int64_t count);
  void CommitFixed(int64_t count) {
    count_ += count;
    fixed_->Resize(count_ * width_);
  }
  const uint8_t* fixed_data() const { return fixed_->data(); }

  /// Byte arrays: appends one value. Throws when the column exceeds 2 GiB of bytes.
  void AppendByteArray(const uint8_t* bytes, size_t length);
  /// Byte arrays: makes room for `count` values of `total_bytes` bytes in all.
  void ReserveByteArrays(int64_t count, size_t total_bytes);
  /// Byte arrays: appends `count` PLAIN-encoded values (4-byte length + bytes each) already
  /// validated to hold `total_bytes` bytes, after ReserveByteArrays(count, total_bytes).
  void AppendByteArraysUnchecked(const uint8_t* plain, int64_t count, size_t total_bytes);
  /// Capacity hint: room for `count` more values (and `bytes` more bytes for byte arrays).
  void Reserve(int64_t count, size_t bytes);
  const int32_t* offsets() const { return offsets_->as<int32_t>(); }
  const uint8_t* byte_data() const { return data_->data(); }
  size_t byte_data_size() const { return data_->size(); }

  /// Hands the buffers over (the object is empty afterwards).
  BufferPtr TakeFixed() { return std::move(fixed_); }
  BufferPtr TakeOffsets() { return std::move(offsets_); }
  BufferPtr TakeData() { return std::move(data_); }

  /// Appends values[index[i]] for i in [0, count): the dictionary gather. Throws when an index
  /// is not below `dictionary.count()`.
  void AppendGather(const PhysicalValues& dictionary, const uint32_t* index, size_t count);

 private:
  // AppendGather for byte arrays; `on_bad_index` throws for an index out of range.
  template <typename OnBadIndex>
  void AppendByteArrayGather(const PhysicalValues& dictionary, const uint32_t* index, size_t count,
                             const OnBadIndex& on_bad_index);

  PhysicalType type_;
  size_t width_;
  int64_t count_ = 0;
  BufferPtr fixed_;
  BufferPtr offsets_;
  BufferPtr data_;
};

/// Unpacks `count` values of `bit_width` (0..32) bits each, packed LSB first as in the RLE /
/// bit-packing hybrid, from `input`, which must hold at least (count * bit_width + 7) / 8 bytes.
void UnpackBits32(const uint8_t* input, size_t input_size, int bit_width, size_t count,
                  uint32_t* output);
/// As UnpackBits32 for widths 0..64.
void UnpackBits64(const uint8_t* input, size_t input_size, int bit_width, size_t count,
                  uint64_t* output);

/// The RLE / bit-packing hybrid (Encodings.md "Run Length Encoding / Bit-Packing Hybrid") over a
/// byte range that holds only runs (no length prefix). Not thread-safe.
class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  /// `bit_width` 0..32.
  RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width);

  /// Decodes up to `count` values into `output`; returns how many (fewer only when the data
  /// ends). Throws on a malformed run header.
  size_t GetBatch(uint32_t* output, size_t count);
  /// Decodes exactly `count` levels, each checked to be <= `max_level`. Throws when the data
  /// ends early or a level is out of range.
  void GetLevels(int16_t* output, size_t count, int16_t max_level);
  /// As GetLevels, and returns how many levels equal `max_level`. When that is `count` (every
  /// level is the maximum, the usual case of a column without NULLs), `output` may be left
  /// unwritten: maximum levels in RLE runs are only counted until another level appears.
  int64_t GetLevelsUnlessAllMax(int16_t* output, size_t count, int16_t max_level);

 private:
  bool NextRun();
  // GetLevels (`write_all`) and GetLevelsUnlessAllMax.
  int64_t DecodeLevels(int16_t* output, size_t count, int16_t max_level, bool write_all);

  const uint8_t* position_ = nullptr;
  const uint8_t* end_ = nullptr;
  int bit_width_ = 0;
  // The current run: an RLE run repeats `repeated_value_`; a bit-packed run has its packed
  // bytes at `packed_`.
  bool run_is_packed_ = false;
  size_t run_remaining_ = 0;
  uint32_t repeated_value_ = 0;
  const uint8_t* packed_ = nullptr;
  size_t packed_offset_ = 0;  // values already consumed from the packed run
};

/// Decodes levels of a v1 data page with the deprecated BIT_PACKED encoding (MSB first, no
/// length prefix) and returns the bytes it used.
size_t DecodeBitPackedLevels(const uint8_t* data, size_t size, int bit_width, size_t count,
                             int16_t max_level, int16_t* output);

/// The number of bits needed for values up to `max_value`.
int BitWidthOf(uint64_t max_value);

/// PLAIN (Encodings.md "Plain"): appends `count` values of `out`'s type; returns the bytes used.
size_t DecodePlain(const uint8_t* data, size_t size, int64_t count, PhysicalValues* out);

/// DELTA_BINARY_PACKED over [data, data + size): appends `count` values (INT32 when
/// `is_int32`, wrapping as the spec says, else INT64) to `output` and returns the bytes used.
size_t DecodeDeltaBinaryPacked(const uint8_t* data, size_t size, bool is_int32, int64_t count,
                               std::vector<int64_t>* output);

/// DELTA_BINARY_PACKED for an INT32/INT64 column: appends `count` values; returns bytes used.
size_t DecodeDeltaBinaryPackedValues(const uint8_t* data, size_t size, int64_t count,
                                     PhysicalValues* out);
/// DELTA_LENGTH_BYTE_ARRAY: appends `count` byte arrays; returns the bytes used.
size_t DecodeDeltaLengthByteArray(const uint8_t* data, size_t size, int64_t count,
                                  PhysicalValues* out);
/// DELTA_BYTE_ARRAY (incremental/front coding) for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
/// `previous` carries the last value across pages of one column chunk.
size_t DecodeDeltaByteArray(const uint8_t* data, size_t size, int64_t count, PhysicalValues* out,
                            std::vector<uint8_t>* previous);
/// BYTE_STREAM_SPLIT for fixed-width types: appends `count` values; returns bytes used.
size_t DecodeByteStreamSplit(const uint8_t* data, size_t size, int64_t count, PhysicalValues* out);

}  // namespace silt::parquet
