#pragma once

#include <cstdint>
#include <string_view>

namespace silt::expr {

/// Spark's Murmur3_x86_32.hashUnsafeBytes of `bytes` with `seed`: the whole 4-byte words
/// (little-endian), then each remaining byte mixed in as a sign-extended word of its own, which
/// differs from the reference MurmurHash3 for lengths that are not a multiple of 4. Spark's
/// hash() hashes strings with it, and its CountMinSketch and BloomFilter their items.
uint32_t SparkMurmur3Bytes(std::string_view bytes, uint32_t seed);

}  // namespace silt::expr
