#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "silt/vector/take.h"
#include "silt/vector/vector.h"

/// Row keys for hashing operators: a batch's key columns are encoded row by row into bytes that
/// are equal exactly when the keys are equal under GROUP BY semantics (NULL equals NULL, NaN
/// equals NaN, -0.0 equals 0.0, nested values field by field), then hashed.
namespace silt::exec {

/// The encoded keys of `num_rows()` rows: row i is bytes[offsets[i], offsets[i+1]).
struct EncodedKeys {
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> offsets;
  std::vector<uint64_t> hashes;

  int64_t num_rows() const { return offsets.empty() ? 0 : static_cast<int64_t>(offsets.size()) - 1; }
  std::string_view key(int64_t row) const {
    return {reinterpret_cast<const char*>(bytes.data()) + offsets[row], offsets[row + 1] - offsets[row]};
  }
};

/// Encodes and hashes rows [0, num_rows) of `columns` (each at least num_rows long) into `out`
/// (reusing its memory). No columns give one empty key per row. Throws
/// VECTOR_CAPACITY_EXCEEDED when a batch's keys exceed 4 GiB.
void EncodeKeys(const std::vector<VectorPtr>& columns, int64_t num_rows, EncodedKeys& out);

/// The 64-bit hash used for encoded keys (inline for the short keys most operators see).
uint64_t HashLongBytes(const void* data, size_t length);

inline uint64_t MixHash(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

inline uint64_t HashBytes(const void* data, size_t length) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  // Two overlapping loads cover every key of 4 to 16 bytes without a loop.
  if (length >= 8 && length <= 16) {
    uint64_t head, tail;
    std::memcpy(&head, bytes, 8);
    std::memcpy(&tail, bytes + length - 8, 8);
    return MixHash(head * 0x9E3779B97F4A7C15ULL ^ std::rotl(tail * 0xC2B2AE3D27D4EB4FULL, 31) ^ length);
  }
  if (length >= 4 && length < 8) {
    uint32_t head, tail;
    std::memcpy(&head, bytes, 4);
    std::memcpy(&tail, bytes + length - 4, 4);
    return MixHash(((static_cast<uint64_t>(head) << 32) | tail) * 0x9E3779B97F4A7C15ULL ^ length);
  }
  return HashLongBytes(data, length);
}

/// Byte equality of two encoded keys, inline for short keys.
inline bool KeyBytesEqual(std::string_view a, std::string_view b) {
  const size_t length = a.size();
  if (length != b.size()) return false;
  if (length >= 8 && length <= 16) {
    uint64_t a_head, a_tail, b_head, b_tail;
    std::memcpy(&a_head, a.data(), 8);
    std::memcpy(&b_head, b.data(), 8);
    std::memcpy(&a_tail, a.data() + length - 8, 8);
    std::memcpy(&b_tail, b.data() + length - 8, 8);
    return ((a_head ^ b_head) | (a_tail ^ b_tail)) == 0;
  }
  // memcmp must not see the null data pointer of an empty key, even with length 0.
  return length == 0 || std::memcmp(a.data(), b.data(), length) == 0;
}

/// A validity bitmap for one byte per row (non-zero = valid), or null when all are valid.
BufferPtr ValidityFromBytes(const uint8_t* valid, int64_t num_rows);

}  // namespace silt::exec
