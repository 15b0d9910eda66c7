#include "silt/parquet/encoding.h"

#include <bit>

#include "silt/base/check.h"

namespace silt::parquet {
namespace {

void AppendVarint(uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

// Bit-packs values[0, count) (LSB first) padded with zeros to a multiple of 8 values, after a
// bit-packed run header.
template <typename V>
void AppendLiteralRun(const V* values, size_t count, int bit_width, std::string* out) {
  size_t groups = (count + 7) / 8;
  AppendVarint((static_cast<uint64_t>(groups) << 1) | 1, out);
  size_t old_size = out->size();
  out->resize(old_size + groups * static_cast<size_t>(bit_width));
  auto* dest = reinterpret_cast<uint8_t*>(out->data() + old_size);
  uint64_t accumulator = 0;
  int bits = 0;
  for (size_t i = 0; i < groups * 8; ++i) {
    uint64_t value = i < count ? static_cast<uint64_t>(static_cast<uint32_t>(values[i])) : 0;
    accumulator |= value << bits;
    bits += bit_width;
    while (bits >= 8) {
      *dest++ = static_cast<uint8_t>(accumulator);
      accumulator >>= 8;
      bits -= 8;
    }
  }
}

void AppendRepeatedRun(uint32_t value, size_t count, int bit_width, std::string* out) {
  AppendVarint(static_cast<uint64_t>(count) << 1, out);
  int value_bytes = (bit_width + 7) / 8;
  for (int i = 0; i < value_bytes; ++i) out->push_back(static_cast<char>(value >> (8 * i)));
}

template <typename V>
void EncodeHybrid(const V* values, size_t count, int bit_width, std::string* out) {
  // Pending literal values are [literal_start, i). A run of equal values becomes an RLE run when
  // at least 8 of them remain after padding the pending literal values to a whole group of 8
  // with the run's first values (a bit-packed run may only be partial at the end of the data);
  // shorter runs join the literal values.
  size_t literal_start = 0;
  size_t i = 0;
  while (i < count) {
    size_t run_end = i + 1;
    while (run_end < count && values[run_end] == values[i]) ++run_end;
    size_t run = run_end - i;
    if (run < 8) {
      i = run_end;
      continue;
    }
    size_t pending = i - literal_start;
    size_t pad = pending % 8 == 0 ? 0 : 8 - pending % 8;
    if (run - pad >= 8) {
      if (i + pad > literal_start) {
        AppendLiteralRun(values + literal_start, i + pad - literal_start, bit_width, out);
      }
      AppendRepeatedRun(static_cast<uint32_t>(values[i]), run - pad, bit_width, out);
      literal_start = run_end;
    }
    i = run_end;
  }
  if (count > literal_start) {
    AppendLiteralRun(values + literal_start, count - literal_start, bit_width, out);
  }
}

inline uint64_t Mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  return x;
}

inline uint64_t Load64(const char* data) {
  uint64_t word;
  std::memcpy(&word, data, 8);
  return word;
}

inline uint64_t HashBytes(const char* data, size_t size) {
  uint64_t hash = 0x9E3779B97F4A7C15ull ^ size;
  if (size >= 8) {
    // Whole words, then the last 8 bytes (overlapping the previous word) for the tail: no
    // variable-length copies, which matter for the short strings dictionaries mostly hold.
    while (size > 8) {
      hash = (hash ^ Load64(data)) * 0xC2B2AE3D27D4EB4Full;
      hash ^= hash >> 29;
      data += 8;
      size -= 8;
    }
    hash = (hash ^ Load64(data + size - 8)) * 0xC2B2AE3D27D4EB4Full;
  } else if (size >= 4) {
    uint32_t low, high;
    std::memcpy(&low, data, 4);
    std::memcpy(&high, data + size - 4, 4);
    hash = (hash ^ (static_cast<uint64_t>(high) << 32 | low)) * 0xC2B2AE3D27D4EB4Full;
  } else if (size > 0) {
    uint64_t word = static_cast<uint8_t>(data[0]) |
                    static_cast<uint64_t>(static_cast<uint8_t>(data[size / 2])) << 8 |
                    static_cast<uint64_t>(static_cast<uint8_t>(data[size - 1])) << 16;
    hash = (hash ^ word) * 0xC2B2AE3D27D4EB4Full;
  }
  return Mix(hash);
}

template <typename T>
uint64_t FixedBits(const T& value) {
  if constexpr (sizeof(T) == 4) {
    return std::bit_cast<uint32_t>(value);
  } else {
    return std::bit_cast<uint64_t>(value);
  }
}

}  // namespace

int BitWidth(uint64_t max_value) { return 64 - std::countl_zero(max_value); }

void EncodeRleBitPacked(const uint32_t* values, size_t count, int bit_width, std::string* out) {
  SILT_CHECK(bit_width >= 0 && bit_width <= 32, "RLE bit width out of range");
  EncodeHybrid(values, count, bit_width, out);
}

void EncodeRleBitPacked(const int16_t* values, size_t count, int bit_width, std::string* out) {
  SILT_CHECK(bit_width >= 0 && bit_width <= 16, "level bit width out of range");
  EncodeHybrid(values, count, bit_width, out);
}

void EncodeLevelsV1(const int16_t* levels, size_t count, int16_t max_level, std::string* out) {
  size_t length_position = out->size();
  out->append(4, '\0');
  EncodeRleBitPacked(levels, count, BitWidth(static_cast<uint64_t>(max_level)), out);
  auto length = static_cast<uint32_t>(out->size() - length_position - 4);
  std::memcpy(out->data() + length_position, &length, 4);
}

void EncodePlainBoolean(const uint8_t* values, size_t count, std::string* out) {
  size_t old_size = out->size();
  out->resize(old_size + (count + 7) / 8, '\0');
  auto* dest = reinterpret_cast<uint8_t*>(out->data() + old_size);
  for (size_t i = 0; i < count; ++i) {
    dest[i >> 3] |= static_cast<uint8_t>((values[i] != 0) << (i & 7));
  }
}

void EncodePlainByteArray(const std::string_view* values, size_t count, std::string* out) {
  size_t total = 0;
  for (size_t i = 0; i < count; ++i) total += 4 + values[i].size();
  size_t old_size = out->size();
  out->resize(old_size + total);
  char* dest = out->data() + old_size;
  for (size_t i = 0; i < count; ++i) {
    auto length = static_cast<uint32_t>(values[i].size());
    std::memcpy(dest, &length, 4);
    std::memcpy(dest + 4, values[i].data(), length);
    dest += 4 + length;
  }
}

void StoreBigEndianDecimal(Int128 value, int type_length, uint8_t* out) {
  auto bits = static_cast<unsigned __int128>(value);
  for (int i = type_length - 1; i >= 0; --i) {
    out[i] = static_cast<uint8_t>(bits);
    bits >>= 8;
  }
}

void EncodePlainDecimal(const Int128* values, size_t count, int type_length, std::string* out) {
  size_t old_size = out->size();
  out->resize(old_size + count * static_cast<size_t>(type_length));
  auto* dest = reinterpret_cast<uint8_t*>(out->data() + old_size);
  for (size_t i = 0; i < count; ++i) {
    StoreBigEndianDecimal(values[i], type_length, dest + i * static_cast<size_t>(type_length));
  }
}

int MinimalDecimalBytes(int precision) {
  // The smallest n with 2^(8n-1) > 10^precision - 1, found by comparing against 10^precision.
  unsigned __int128 limit = 1;
  for (int i = 0; i < precision; ++i) limit *= 10;
  for (int bytes = 1; bytes <= 16; ++bytes) {
    unsigned __int128 largest_positive = (static_cast<unsigned __int128>(1) << (8 * bytes - 1));
    if (limit <= largest_positive) return bytes;
  }
  return 16;
}

void EncodeDictionaryIndices(const uint32_t* indices, size_t count, size_t dictionary_size,
                             std::string* out) {
  int bit_width = dictionary_size <= 1 ? 1 : BitWidth(dictionary_size - 1);
  out->push_back(static_cast<char>(bit_width));
  EncodeRleBitPacked(indices, count, bit_width, out);
}

// ---- DictionaryBuilder ----

template <typename T>
DictionaryBuilder<T>::DictionaryBuilder(int type_length) : type_length_(type_length) {
  slots_.assign(1024, 0);
  mask_ = slots_.size() - 1;
}

template <typename T>
uint64_t DictionaryBuilder<T>::Hash(const T& value) const {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return HashBytes(value.data(), value.size());
  } else if constexpr (std::is_same_v<T, Int128>) {
    auto bits = static_cast<unsigned __int128>(value);
    return Mix(static_cast<uint64_t>(bits) ^ Mix(static_cast<uint64_t>(bits >> 64)));
  } else {
    return Mix(FixedBits(value));
  }
}

template <typename T>
bool DictionaryBuilder<T>::Matches(uint32_t index, const T& value) const {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return value_lengths_[index] == value.size() &&
           std::memcmp(plain_.data() + value_offsets_[index], value.data(), value.size()) == 0;
  } else if constexpr (std::is_same_v<T, Int128>) {
    return values_[index] == value;
  } else {
    return FixedBits(values_[index]) == FixedBits(value);
  }
}

template <typename T>
T DictionaryBuilder<T>::value(size_t index) const {
  if constexpr (std::is_same_v<T, std::string_view>) {
    return std::string_view(plain_.data() + value_offsets_[index], value_lengths_[index]);
  } else {
    return values_[index];
  }
}

template <typename T>
void DictionaryBuilder<T>::Grow() {
  slots_.assign(slots_.size() * 2, 0);
  mask_ = slots_.size() - 1;
  for (size_t index = 0; index < num_entries_; ++index) {
    uint64_t slot = hashes_[index] & mask_;
    while (slots_[slot] != 0) slot = (slot + 1) & mask_;
    slots_[slot] = static_cast<uint32_t>(index + 1);
  }
}

template <typename T>
uint32_t DictionaryBuilder<T>::Insert(const T& value) {
  uint64_t hash = Hash(value);
  uint64_t slot = hash & mask_;
  while (true) {
    uint32_t entry = slots_[slot];
    if (entry == 0) break;
    if (hashes_[entry - 1] == hash && Matches(entry - 1, value)) return entry - 1;
    slot = (slot + 1) & mask_;
  }
  auto index = static_cast<uint32_t>(num_entries_++);
  slots_[slot] = index + 1;
  hashes_.push_back(hash);
  if constexpr (std::is_same_v<T, std::string_view>) {
    auto length = static_cast<uint32_t>(value.size());
    plain_.append(reinterpret_cast<const char*>(&length), 4);
    value_offsets_.push_back(static_cast<uint32_t>(plain_.size()));
    value_lengths_.push_back(length);
    plain_.append(value.data(), value.size());
  } else if constexpr (std::is_same_v<T, Int128>) {
    values_.push_back(value);
    EncodePlainDecimal(&value, 1, type_length_, &plain_);
  } else {
    values_.push_back(value);
    plain_.append(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  // Keep the load factor at most 1/2 so probe sequences stay short.
  if (num_entries_ * 2 > slots_.size()) Grow();
  return index;
}

template class DictionaryBuilder<int32_t>;
template class DictionaryBuilder<int64_t>;
template class DictionaryBuilder<float>;
template class DictionaryBuilder<double>;
template class DictionaryBuilder<Int128>;
template class DictionaryBuilder<std::string_view>;

}  // namespace silt::parquet
