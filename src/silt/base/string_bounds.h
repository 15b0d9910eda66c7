#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace silt {

/// The least and greatest of the strings added, in byte-wise (unsigned) order: the order of
/// Parquet's statistics for byte arrays and of Delta's for strings.
/// Each string's first eight bytes are compared first, as one big-endian number (shorter strings
/// padded with zero bytes): a smaller number is always a smaller string, so only strings whose
/// first eight bytes tie with a bound are compared in full. Statistics are taken over every value
/// written, and this spares most of those comparisons a call to memcmp.
/// The views must outlive the tracker's use of low() and high().
class StringBounds {
 public:
  void Add(std::string_view value) {
    const uint64_t prefix = OrderPrefix(value);
    if (!found_) {
      low_ = high_ = value;
      low_prefix_ = high_prefix_ = prefix;
      found_ = true;
    } else if (prefix < low_prefix_ || (prefix == low_prefix_ && value < low_)) {
      low_ = value;
      low_prefix_ = prefix;
    } else if (prefix > high_prefix_ || (prefix == high_prefix_ && value > high_)) {
      high_ = value;
      high_prefix_ = prefix;
    }
  }

  bool found() const { return found_; }
  std::string_view low() const { return low_; }
  std::string_view high() const { return high_; }

  /// The first eight bytes of `value` as a big-endian number, padded with zero bytes.
  static uint64_t OrderPrefix(std::string_view value) {
    uint64_t word = 0;
    if (!value.empty()) std::memcpy(&word, value.data(), value.size() < 8 ? value.size() : 8);
    return __builtin_bswap64(word);
  }

 private:
  bool found_ = false;
  std::string_view low_;
  std::string_view high_;
  uint64_t low_prefix_ = 0;
  uint64_t high_prefix_ = 0;
};

}  // namespace silt
