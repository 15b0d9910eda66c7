#include "silt/parquet/decoding.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "silt/base/check.h"

namespace silt::parquet {
namespace {

constexpr size_t kMaxByteArrayBytes = static_cast<size_t>(std::numeric_limits<int32_t>::max());
// Spare bytes kept after byte-array data so that short values can be copied 16 bytes at a time.
constexpr size_t kCopySlack = 16;

uint64_t LoadLittleEndian64(const uint8_t* bytes) {
  uint64_t value;
  std::memcpy(&value, bytes, sizeof(value));
  return value;  // silt targets little-endian machines only.
}

uint64_t ReadUleb128(const uint8_t** position, const uint8_t* end) {
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*position == end) ThrowCorruptPage("truncated ULEB128 integer");
    uint8_t byte = *(*position)++;
    if (shift == 63 && byte > 1) ThrowCorruptPage("ULEB128 integer overflows 64 bits");
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return result;
  }
  ThrowCorruptPage("ULEB128 integer too long");
}

int64_t ReadZigZag(const uint8_t** position, const uint8_t* end) {
  uint64_t raw = ReadUleb128(position, end);
  return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
}

size_t FixedWidthOf(PhysicalType type, int type_length) {
  switch (type) {
    case PhysicalType::kBoolean:
      return 1;
    case PhysicalType::kInt32:
      return 4;
    case PhysicalType::kInt64:
      return 8;
    case PhysicalType::kInt96:
      return 12;
    case PhysicalType::kFloat:
      return 4;
    case PhysicalType::kDouble:
      return 8;
    case PhysicalType::kByteArray:
      return 0;
    case PhysicalType::kFixedLenByteArray:
      if (type_length <= 0) ThrowCorruptPage("FIXED_LEN_BYTE_ARRAY without a positive length");
      return static_cast<size_t>(type_length);
  }
  ThrowCorruptPage("unknown physical type " + std::to_string(static_cast<int>(type)));
}

// Unpacks one value of `bit_width` bits starting at bit `bit` of `input`, where at least 16
// readable bytes follow the value's first byte.
inline uint64_t ExtractFast(const uint8_t* input, size_t bit, int bit_width, uint64_t mask) {
  const uint8_t* at = input + (bit >> 3);
  unsigned shift = bit & 7;
  uint64_t value = LoadLittleEndian64(at) >> shift;
  if (shift + static_cast<unsigned>(bit_width) > 64) value |= uint64_t{at[8]} << (64 - shift);
  return value & mask;
}

// The same, reading byte by byte so it never touches bytes past the value.
inline uint64_t ExtractSlow(const uint8_t* input, size_t bit, int bit_width, uint64_t mask) {
  uint64_t value = 0;
  int filled = 0;
  size_t byte = bit >> 3;
  unsigned shift = bit & 7;
  while (filled < bit_width) {
    uint64_t piece = input[byte] >> shift;
    value |= piece << filled;
    filled += 8 - static_cast<int>(shift);
    shift = 0;
    ++byte;
  }
  return value & mask;
}

template <typename Out>
void UnpackBits(const uint8_t* input, size_t input_size, int bit_width, size_t count, Out* output) {
  if (bit_width == 0) {
    std::fill(output, output + count, Out{0});
    return;
  }
  SILT_CHECK(input_size * 8 >= count * static_cast<size_t>(bit_width), "UnpackBits bounds");
  uint64_t mask = bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << bit_width) - 1;
  size_t i = 0;
  // Values whose first byte has 16 readable bytes after it take the unaligned-load path.
  size_t fast_end = input_size >= 16 ? ((input_size - 16) * 8) / static_cast<size_t>(bit_width) : 0;
  fast_end = std::min(fast_end, count);
  size_t bit = 0;
  for (; i < fast_end; ++i, bit += static_cast<size_t>(bit_width)) {
    output[i] = static_cast<Out>(ExtractFast(input, bit, bit_width, mask));
  }
  for (; i < count; ++i, bit += static_cast<size_t>(bit_width)) {
    output[i] = static_cast<Out>(ExtractSlow(input, bit, bit_width, mask));
  }
}

}  // namespace

void ThrowCorruptPage(const std::string& what) {
  SILT_THROW(PARQUET_CORRUPT_FILE, {{"path", "<page>"}, {"message", what}});
}

// ---- PhysicalValues ----

PhysicalValues::PhysicalValues(PhysicalType type, int type_length)
    : type_(type), width_(FixedWidthOf(type, type_length)) {
  if (type_ == PhysicalType::kByteArray) {
    offsets_ = Buffer::Allocate(sizeof(int32_t), true);
    data_ = Buffer::Allocate(0);
  } else {
    fixed_ = Buffer::Allocate(0);
  }
}

uint8_t* PhysicalValues::ReserveFixed(int64_t count) {
  size_t needed = static_cast<size_t>(count_ + count) * width_;
  if (needed > fixed_->capacity()) {
    fixed_->Reserve(std::max(needed, fixed_->capacity() * 2));
  }
  return fixed_->data() + static_cast<size_t>(count_) * width_;
}

void PhysicalValues::ReserveByteArrays(int64_t count, size_t total_bytes) {
  size_t offsets_needed = static_cast<size_t>(count_ + count + 1) * sizeof(int32_t);
  if (offsets_needed > offsets_->capacity()) {
    offsets_->Reserve(std::max(offsets_needed, offsets_->capacity() * 2));
  }
  size_t data_needed = data_->size() + total_bytes + kCopySlack;
  if (data_needed - kCopySlack > kMaxByteArrayBytes) {
    SILT_THROW(PARQUET_UNSUPPORTED_FEATURE,
               {{"path", "<page>"}, {"feature", "a column chunk with more than 2 GiB of bytes"}});
  }
  if (data_needed > data_->capacity()) data_->Reserve(std::max(data_needed, data_->capacity() * 2));
}

void PhysicalValues::AppendByteArray(const uint8_t* bytes, size_t length) {
  if (data_->size() + length > kMaxByteArrayBytes) {
    SILT_THROW(PARQUET_UNSUPPORTED_FEATURE,
               {{"path", "<page>"}, {"feature", "a column chunk with more than 2 GiB of bytes"}});
  }
  data_->Append(bytes, length);
  int32_t end = static_cast<int32_t>(data_->size());
  offsets_->Append(&end, sizeof(end));
  ++count_;
}

void PhysicalValues::AppendByteArraysUnchecked(const uint8_t* plain, int64_t count,
                                               size_t total_bytes) {
  int32_t* offsets = offsets_->as<int32_t>() + count_;
  uint8_t* bytes = data_->data() + data_->size();
  int32_t end = offsets[0];
  const uint8_t* position = plain;
  for (int64_t i = 0; i < count; ++i) {
    uint32_t length;
    std::memcpy(&length, position, 4);
    std::memcpy(bytes, position + 4, length);
    bytes += length;
    end += static_cast<int32_t>(length);
    offsets[i + 1] = end;
    position += 4 + length;
  }
  count_ += count;
  offsets_->Resize(static_cast<size_t>(count_ + 1) * sizeof(int32_t));
  data_->Resize(data_->size() + total_bytes);
}

void PhysicalValues::Reserve(int64_t count, size_t bytes) {
  if (type_ == PhysicalType::kByteArray) {
    offsets_->Reserve(static_cast<size_t>(count_ + count + 1) * sizeof(int32_t));
    data_->Reserve(data_->size() + bytes + kCopySlack);
  } else {
    fixed_->Reserve(static_cast<size_t>(count_ + count) * width_);
  }
}

template <typename OnBadIndex>
void PhysicalValues::AppendByteArrayGather(const PhysicalValues& dictionary, const uint32_t* index,
                                           size_t count, const OnBadIndex& on_bad_index) {
  const int32_t* dictionary_offsets = dictionary.offsets();
  const uint8_t* dictionary_bytes = dictionary.byte_data();
  const uint64_t limit = static_cast<uint64_t>(dictionary.count());
  const uint32_t last = static_cast<uint32_t>(limit - 1);
  // Short values are copied as 16 fixed bytes, which compiles to two moves instead of a memcpy
  // call. Both buffers have the slack for it: the dictionary's capacity and the output's
  // reservation (ReserveByteArrays keeps kCopySlack spare bytes).
  const size_t dictionary_capacity = dictionary.data_->capacity();
  const bool fits_16 = static_cast<size_t>(dictionary_offsets[last]) + 16 <= dictionary_capacity;
  // Entries of one length (codes, city names, ...): every output offset is known up front, so
  // the copies do not wait on each other, and an index out of range is clamped (nothing is read
  // outside the dictionary) and reported after the loop.
  const int32_t width = dictionary_offsets[1] - dictionary_offsets[0];
  bool one_width = fits_16 && width <= 16;
  for (uint64_t k = 1; k < limit && one_width; ++k) {
    one_width = dictionary_offsets[k + 1] - dictionary_offsets[k] == width;
  }
  if (one_width) {
    const size_t total = count * static_cast<size_t>(width);
    ReserveByteArrays(static_cast<int64_t>(count), total);
    int32_t* offsets = offsets_->as<int32_t>() + count_;
    const int32_t start = offsets[0];
    uint8_t* out = data_->data() + start;
    uint32_t out_of_range = 0;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t k = index[i];
      out_of_range |= static_cast<uint32_t>(k > last);
      std::memcpy(out + i * static_cast<size_t>(width), dictionary_bytes + dictionary_offsets[std::min(k, last)], 16);
      offsets[i + 1] = start + static_cast<int32_t>(i + 1) * width;
    }
    if (out_of_range != 0) on_bad_index();
    count_ += static_cast<int64_t>(count);
    offsets_->Resize(static_cast<size_t>(count_ + 1) * sizeof(int32_t));
    data_->Resize(data_->size() + total);
    return;
  }
  // One pass validates the indices and totals the bytes; an index out of range is clamped for
  // the total (so nothing is read outside the dictionary) and fails after the pass.
  uint32_t out_of_range = 0;
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t k = index[i];
    out_of_range |= static_cast<uint32_t>(k > last);
    const uint32_t entry = std::min(k, last);
    total += static_cast<size_t>(dictionary_offsets[entry + 1] - dictionary_offsets[entry]);
  }
  if (out_of_range != 0) on_bad_index();
  ReserveByteArrays(static_cast<int64_t>(count), total);
  int32_t* offsets = offsets_->as<int32_t>() + count_;
  uint8_t* const base = data_->data();
  int32_t end = offsets[0];
  for (size_t i = 0; i < count; ++i) {
    const int32_t start = dictionary_offsets[index[i]];
    const int32_t length = dictionary_offsets[index[i] + 1] - start;
    if (length <= 16 && static_cast<size_t>(start) + 16 <= dictionary_capacity) {
      std::memcpy(base + end, dictionary_bytes + start, 16);
    } else {
      std::memcpy(base + end, dictionary_bytes + start, static_cast<size_t>(length));
    }
    end += length;
    offsets[i + 1] = end;
  }
  count_ += static_cast<int64_t>(count);
  offsets_->Resize(static_cast<size_t>(count_ + 1) * sizeof(int32_t));
  data_->Resize(data_->size() + total);
}

void PhysicalValues::AppendGather(const PhysicalValues& dictionary, const uint32_t* index,
                                  size_t count) {
  const uint64_t limit = static_cast<uint64_t>(dictionary.count());
  auto throw_out_of_range = [&] {
    uint32_t max_index = 0;
    for (size_t i = 0; i < count; ++i) max_index = std::max(max_index, index[i]);
    ThrowCorruptPage("dictionary index " + std::to_string(max_index) + " out of range (" +
                     std::to_string(limit) + " entries)");
  };
  if (type_ == PhysicalType::kByteArray) {
    if (count == 0) return;
    if (limit == 0) throw_out_of_range();
    AppendByteArrayGather(dictionary, index, count, throw_out_of_range);
    return;
  }
  if (count == 0) return;
  if (limit == 0) throw_out_of_range();
  // Indices out of range are clamped while copying (nothing is read outside the dictionary)
  // and fail after the loop, before the values count.
  const uint32_t last = static_cast<uint32_t>(limit - 1);
  uint32_t out_of_range = 0;
  uint8_t* out = ReserveFixed(static_cast<int64_t>(count));
  const uint8_t* source = dictionary.fixed_data();
  auto gather = [&](auto* typed, const auto* from) {
    for (size_t i = 0; i < count; ++i) {
      const uint32_t k = index[i];
      out_of_range |= static_cast<uint32_t>(k > last);
      typed[i] = from[std::min(k, last)];
    }
  };
  switch (width_) {
    case 4:
      gather(reinterpret_cast<uint32_t*>(out), reinterpret_cast<const uint32_t*>(source));
      break;
    case 8:
      gather(reinterpret_cast<uint64_t*>(out), reinterpret_cast<const uint64_t*>(source));
      break;
    default:
      for (size_t i = 0; i < count; ++i) {
        const uint32_t k = index[i];
        out_of_range |= static_cast<uint32_t>(k > last);
        std::memcpy(out + i * width_, source + static_cast<size_t>(std::min(k, last)) * width_, width_);
      }
  }
  if (out_of_range != 0) throw_out_of_range();
  CommitFixed(static_cast<int64_t>(count));
}

// ---- bit unpacking and the RLE / bit-packing hybrid ----

void UnpackBits32(const uint8_t* input, size_t input_size, int bit_width, size_t count,
                  uint32_t* output) {
  SILT_CHECK(bit_width >= 0 && bit_width <= 32, "bit width out of range");
  UnpackBits(input, input_size, bit_width, count, output);
}

void UnpackBits64(const uint8_t* input, size_t input_size, int bit_width, size_t count,
                  uint64_t* output) {
  SILT_CHECK(bit_width >= 0 && bit_width <= 64, "bit width out of range");
  UnpackBits(input, input_size, bit_width, count, output);
}

int BitWidthOf(uint64_t max_value) {
  int width = 0;
  while (max_value != 0) {
    ++width;
    max_value >>= 1;
  }
  return width;
}

RleBitPackedDecoder::RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width)
    : position_(data), end_(data + size), bit_width_(bit_width) {
  if (bit_width < 0 || bit_width > 32) {
    ThrowCorruptPage("RLE bit width " + std::to_string(bit_width) + " out of range");
  }
}

bool RleBitPackedDecoder::NextRun() {
  if (position_ == end_) return false;
  uint64_t header = ReadUleb128(&position_, end_);
  if (header & 1) {
    // Bit-packed: (header >> 1) groups of 8 values, bit_width bytes per group.
    uint64_t groups = header >> 1;
    if (groups == 0) return NextRun();
    size_t available = static_cast<size_t>(end_ - position_);
    uint64_t bytes = groups * static_cast<uint64_t>(bit_width_);
    size_t values;
    if (bit_width_ == 0) {
      values = static_cast<size_t>(std::min<uint64_t>(groups * 8, uint64_t{1} << 40));
      bytes = 0;
    } else if (bytes > available) {
      // Writers may end the last run early; use the whole values that are present.
      values = available * 8 / static_cast<size_t>(bit_width_);
      bytes = available;
      if (values == 0) return false;
    } else {
      values = static_cast<size_t>(groups * 8);
    }
    run_is_packed_ = true;
    packed_ = position_;
    packed_offset_ = 0;
    run_remaining_ = values;
    position_ += bytes;
    return true;
  }
  uint64_t count = header >> 1;
  size_t value_bytes = static_cast<size_t>((bit_width_ + 7) / 8);
  if (static_cast<size_t>(end_ - position_) < value_bytes) {
    ThrowCorruptPage("truncated RLE run value");
  }
  uint32_t value = 0;
  for (size_t i = 0; i < value_bytes; ++i) value |= uint32_t{position_[i]} << (8 * i);
  position_ += value_bytes;
  if (bit_width_ < 32 && (value >> bit_width_) != 0) {
    ThrowCorruptPage("RLE run value wider than the bit width");
  }
  if (count == 0) return NextRun();
  run_is_packed_ = false;
  repeated_value_ = value;
  run_remaining_ = static_cast<size_t>(std::min<uint64_t>(count, uint64_t{1} << 40));
  return true;
}

size_t RleBitPackedDecoder::GetBatch(uint32_t* output, size_t count) {
  size_t done = 0;
  while (done < count) {
    if (run_remaining_ == 0 && !NextRun()) break;
    size_t take = std::min(count - done, run_remaining_);
    if (run_is_packed_) {
      // Unpack from the run's start so bit offsets stay exact.
      size_t run_bytes_total = static_cast<size_t>(position_ - packed_);
      size_t first_bit = packed_offset_ * static_cast<size_t>(bit_width_);
      if (first_bit % 8 == 0) {
        UnpackBits32(packed_ + first_bit / 8, run_bytes_total - first_bit / 8, bit_width_, take,
                     output + done);
      } else {
        // Only reached when a caller splits a group of 8 mid-way at an odd bit offset: unpack
        // from the enclosing byte-aligned group of 8 values.
        size_t group_start = packed_offset_ & ~size_t{7};
        size_t skip = packed_offset_ - group_start;
        uint32_t scratch[64];
        size_t remaining = take;
        size_t written = 0;
        size_t position = group_start;
        while (remaining > 0) {
          size_t chunk = std::min<size_t>(64, skip + remaining);
          chunk = (chunk + 7) & ~size_t{7};
          size_t available_values = packed_offset_ + run_remaining_;  // values in this run
          chunk = std::min(chunk, available_values - position);
          size_t byte_start = position * static_cast<size_t>(bit_width_) / 8;
          UnpackBits32(packed_ + byte_start, run_bytes_total - byte_start, bit_width_, chunk,
                       scratch);
          size_t usable = std::min(chunk - skip, remaining);
          std::memcpy(output + done + written, scratch + skip, usable * sizeof(uint32_t));
          written += usable;
          remaining -= usable;
          position += chunk;
          skip = 0;
        }
      }
      packed_offset_ += take;
    } else {
      std::fill(output + done, output + done + take, repeated_value_);
    }
    run_remaining_ -= take;
    done += take;
  }
  return done;
}

void RleBitPackedDecoder::GetLevels(int16_t* output, size_t count, int16_t max_level) {
  DecodeLevels(output, count, max_level, /*write_all=*/true);
}

int64_t RleBitPackedDecoder::GetLevelsUnlessAllMax(int16_t* output, size_t count,
                                                   int16_t max_level) {
  return DecodeLevels(output, count, max_level, /*write_all=*/false);
}

int64_t RleBitPackedDecoder::DecodeLevels(int16_t* output, size_t count, int16_t max_level,
                                          bool write_all) {
  uint32_t scratch[1024];
  size_t done = 0;
  int64_t at_max = 0;
  // Unless `write_all`, nothing is written until a level below the maximum (or a bit-packed
  // run) appears: the levels so far are all `max_level`, and are filled in when writing starts.
  // RLE runs fill directly; bit-packed runs go through the scratch buffer.
  bool writing = write_all;
  auto start_writing = [&] {
    if (!writing) std::fill(output, output + done, max_level);
    writing = true;
  };
  while (done < count) {
    if (run_remaining_ == 0 && !NextRun()) {
      ThrowCorruptPage("levels end after " + std::to_string(done) + " of " + std::to_string(count) +
                       " values");
    }
    if (!run_is_packed_) {
      if (repeated_value_ > static_cast<uint32_t>(max_level)) {
        ThrowCorruptPage("level " + std::to_string(repeated_value_) + " above the maximum " +
                         std::to_string(max_level));
      }
      size_t take = std::min(count - done, run_remaining_);
      const bool maximum = repeated_value_ == static_cast<uint32_t>(max_level);
      if (!maximum) start_writing();
      if (writing) std::fill(output + done, output + done + take, static_cast<int16_t>(repeated_value_));
      if (maximum) at_max += static_cast<int64_t>(take);
      run_remaining_ -= take;
      done += take;
      continue;
    }
    start_writing();
    size_t take = std::min({count - done, run_remaining_, sizeof(scratch) / sizeof(scratch[0])});
    size_t got = GetBatch(scratch, take);
    uint32_t max_seen = 0;
    for (size_t i = 0; i < got; ++i) {
      max_seen = std::max(max_seen, scratch[i]);
      output[done + i] = static_cast<int16_t>(scratch[i]);
      at_max += scratch[i] == static_cast<uint32_t>(max_level);
    }
    if (max_seen > static_cast<uint32_t>(max_level)) {
      ThrowCorruptPage("level " + std::to_string(max_seen) + " above the maximum " +
                       std::to_string(max_level));
    }
    done += got;
  }
  return at_max;
}

size_t DecodeBitPackedLevels(const uint8_t* data, size_t size, int bit_width, size_t count,
                             int16_t max_level, int16_t* output) {
  if (bit_width < 0 || bit_width > 16) ThrowCorruptPage("BIT_PACKED level width out of range");
  size_t bytes = (count * static_cast<size_t>(bit_width) + 7) / 8;
  if (bytes > size) ThrowCorruptPage("truncated BIT_PACKED levels");
  // The deprecated BIT_PACKED encoding packs from the most significant bit of each byte.
  size_t bit = 0;
  for (size_t i = 0; i < count; ++i) {
    int value = 0;
    for (int b = 0; b < bit_width; ++b, ++bit) {
      value = (value << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    if (value > max_level) ThrowCorruptPage("level above the maximum");
    output[i] = static_cast<int16_t>(value);
  }
  return bytes;
}

// ---- PLAIN ----

size_t DecodePlain(const uint8_t* data, size_t size, int64_t count, PhysicalValues* out) {
  if (count < 0) ThrowCorruptPage("negative value count");
  size_t n = static_cast<size_t>(count);
  switch (out->type()) {
    case PhysicalType::kBoolean: {
      // Bit-packed, LSB first, one bit per value.
      size_t bytes = (n + 7) / 8;
      if (bytes > size) ThrowCorruptPage("PLAIN booleans run past the page");
      uint8_t* target = out->ReserveFixed(count);
      for (size_t i = 0; i < n; ++i) target[i] = (data[i >> 3] >> (i & 7)) & 1;
      out->CommitFixed(count);
      return bytes;
    }
    case PhysicalType::kByteArray: {
      // First pass: validate lengths and size the buffers, so the copy pass runs unchecked.
      const uint8_t* position = data;
      const uint8_t* end = data + size;
      size_t total = 0;
      for (size_t i = 0; i < n; ++i) {
        if (end - position < 4) ThrowCorruptPage("PLAIN byte array length runs past the page");
        uint32_t length;
        std::memcpy(&length, position, 4);
        position += 4;
        if (length > static_cast<size_t>(end - position)) {
          ThrowCorruptPage("PLAIN byte array runs past the page");
        }
        position += length;
        total += length;
      }
      out->ReserveByteArrays(count, total);
      out->AppendByteArraysUnchecked(data, count, total);
      position = data + (4 * n + total);
      return static_cast<size_t>(position - data);
    }
    default: {
      size_t bytes = n * out->width();
      if (n != 0 && (bytes / n != out->width() || bytes > size)) {
        ThrowCorruptPage("PLAIN values run past the page");
      }
      uint8_t* target = out->ReserveFixed(count);
      if (bytes != 0) std::memcpy(target, data, bytes);
      out->CommitFixed(count);
      return bytes;
    }
  }
}

// ---- DELTA_BINARY_PACKED ----

size_t DecodeDeltaBinaryPacked(const uint8_t* data, size_t size, bool is_int32, int64_t count,
                               std::vector<int64_t>* output) {
  const uint8_t* position = data;
  const uint8_t* end = data + size;
  uint64_t block_size = ReadUleb128(&position, end);
  uint64_t miniblocks_per_block = ReadUleb128(&position, end);
  uint64_t total_count = ReadUleb128(&position, end);
  int64_t first_value = ReadZigZag(&position, end);
  // The spec asks for blocks of a multiple of 128 values and miniblocks of a multiple of 32;
  // accept any miniblock of whole bytes (a multiple of 8 values), as its own examples use.
  if (block_size == 0 || block_size > (1u << 16)) {
    ThrowCorruptPage("DELTA_BINARY_PACKED block size " + std::to_string(block_size));
  }
  if (miniblocks_per_block == 0 || block_size % miniblocks_per_block != 0 ||
      (block_size / miniblocks_per_block) % 8 != 0) {
    ThrowCorruptPage("DELTA_BINARY_PACKED miniblock count " + std::to_string(miniblocks_per_block));
  }
  if (count < 0 || total_count < static_cast<uint64_t>(count)) {
    ThrowCorruptPage("DELTA_BINARY_PACKED holds " + std::to_string(total_count) +
                     " values, expected " + std::to_string(count));
  }
  size_t values_per_miniblock = static_cast<size_t>(block_size / miniblocks_per_block);
  size_t wanted = static_cast<size_t>(count);
  if (wanted == 0) return static_cast<size_t>(position - data);
  // The output grows block by block, so memory follows the data actually decoded rather than
  // the counts a hostile header claims.
  uint64_t last = static_cast<uint64_t>(first_value);
  output->push_back(is_int32 ? static_cast<int32_t>(last) : static_cast<int64_t>(last));
  size_t produced = 1;
  std::vector<uint64_t> deltas(values_per_miniblock);
  std::vector<uint8_t> widths(static_cast<size_t>(miniblocks_per_block));
  while (produced < wanted) {
    int64_t min_delta = ReadZigZag(&position, end);
    if (static_cast<size_t>(end - position) < widths.size()) {
      ThrowCorruptPage("truncated DELTA_BINARY_PACKED miniblock widths");
    }
    std::memcpy(widths.data(), position, widths.size());
    position += widths.size();
    for (size_t m = 0; m < widths.size() && produced < wanted; ++m) {
      int width = widths[m];
      if (width > 64) ThrowCorruptPage("DELTA_BINARY_PACKED bit width above 64");
      size_t bytes = values_per_miniblock * static_cast<size_t>(width) / 8;
      if (static_cast<size_t>(end - position) < bytes) {
        ThrowCorruptPage("truncated DELTA_BINARY_PACKED miniblock");
      }
      UnpackBits64(position, bytes, width, values_per_miniblock, deltas.data());
      position += bytes;
      size_t take = std::min(values_per_miniblock, wanted - produced);
      size_t base = output->size();
      output->resize(base + take);
      int64_t* out = output->data() + base;
      // Wrapping unsigned arithmetic is what the spec asks for on overflow.
      for (size_t i = 0; i < take; ++i) {
        last += static_cast<uint64_t>(min_delta) + deltas[i];
        out[i] = is_int32 ? static_cast<int32_t>(last) : static_cast<int64_t>(last);
      }
      produced += take;
    }
  }
  return static_cast<size_t>(position - data);
}

size_t DecodeDeltaBinaryPackedValues(const uint8_t* data, size_t size, int64_t count,
                                     PhysicalValues* out) {
  bool is_int32 = out->type() == PhysicalType::kInt32;
  if (!is_int32 && out->type() != PhysicalType::kInt64) {
    ThrowCorruptPage("DELTA_BINARY_PACKED on a column that is not INT32 or INT64");
  }
  std::vector<int64_t> values;
  size_t used = DecodeDeltaBinaryPacked(data, size, is_int32, count, &values);
  uint8_t* target = out->ReserveFixed(count);
  if (is_int32) {
    auto* typed = reinterpret_cast<int32_t*>(target);
    for (size_t i = 0; i < values.size(); ++i) typed[i] = static_cast<int32_t>(values[i]);
  } else if (!values.empty()) {
    std::memcpy(target, values.data(), values.size() * sizeof(int64_t));
  }
  out->CommitFixed(count);
  return used;
}

// ---- DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ----

size_t DecodeDeltaLengthByteArray(const uint8_t* data, size_t size, int64_t count,
                                  PhysicalValues* out) {
  if (!out->is_byte_array()) ThrowCorruptPage("DELTA_LENGTH_BYTE_ARRAY on a fixed-width column");
  std::vector<int64_t> lengths;
  size_t used = DecodeDeltaBinaryPacked(data, size, true, count, &lengths);
  size_t total = 0;
  for (int64_t length : lengths) {
    if (length < 0) ThrowCorruptPage("negative byte array length");
    total += static_cast<size_t>(length);
    if (total > size - used) ThrowCorruptPage("DELTA_LENGTH_BYTE_ARRAY data runs past the page");
  }
  out->ReserveByteArrays(count, total);
  const uint8_t* position = data + used;
  for (int64_t length : lengths) {
    out->AppendByteArray(position, static_cast<size_t>(length));
    position += length;
  }
  return used + total;
}

size_t DecodeDeltaByteArray(const uint8_t* data, size_t size, int64_t count, PhysicalValues* out,
                            std::vector<uint8_t>* previous) {
  std::vector<int64_t> prefixes;
  size_t used = DecodeDeltaBinaryPacked(data, size, true, count, &prefixes);
  std::vector<int64_t> suffixes;
  used += DecodeDeltaBinaryPacked(data + used, size - used, true, count, &suffixes);
  const uint8_t* position = data + used;
  const uint8_t* end = data + size;
  std::vector<uint8_t>& value = *previous;
  uint8_t* fixed_target = out->is_byte_array() ? nullptr : out->ReserveFixed(count);
  for (size_t i = 0; i < prefixes.size(); ++i) {
    int64_t prefix = prefixes[i];
    int64_t suffix = suffixes[i];
    if (prefix < 0 || suffix < 0 || static_cast<uint64_t>(prefix) > value.size()) {
      ThrowCorruptPage("DELTA_BYTE_ARRAY prefix or suffix length out of range");
    }
    if (static_cast<uint64_t>(suffix) > static_cast<uint64_t>(end - position)) {
      ThrowCorruptPage("DELTA_BYTE_ARRAY suffix runs past the page");
    }
    value.resize(static_cast<size_t>(prefix));
    value.insert(value.end(), position, position + suffix);
    position += suffix;
    if (fixed_target != nullptr) {
      if (value.size() != out->width()) ThrowCorruptPage("DELTA_BYTE_ARRAY value has wrong width");
      std::memcpy(fixed_target + i * out->width(), value.data(), value.size());
    } else {
      out->AppendByteArray(value.data(), value.size());
    }
  }
  if (fixed_target != nullptr) out->CommitFixed(count);
  return static_cast<size_t>(position - data);
}

// ---- BYTE_STREAM_SPLIT ----

size_t DecodeByteStreamSplit(const uint8_t* data, size_t size, int64_t count, PhysicalValues* out) {
  size_t width = out->width();
  if (out->is_byte_array() || out->type() == PhysicalType::kBoolean || width == 0) {
    ThrowCorruptPage("BYTE_STREAM_SPLIT on a column without a fixed width");
  }
  if (count < 0) ThrowCorruptPage("negative value count");
  // The streams span the whole value section of the page: stream k holds byte k of every value.
  size_t stride = size / width;
  if (size % width != 0 || stride < static_cast<size_t>(count)) {
    ThrowCorruptPage("BYTE_STREAM_SPLIT data size " + std::to_string(size) + " does not match " +
                     std::to_string(count) + " values");
  }
  size_t n = static_cast<size_t>(count);
  uint8_t* target = out->ReserveFixed(count);
  for (size_t k = 0; k < width; ++k) {
    const uint8_t* stream = data + k * stride;
    for (size_t i = 0; i < n; ++i) target[i * width + k] = stream[i];
  }
  out->CommitFixed(count);
  return size;
}

}  // namespace silt::parquet
