#include "silt/parquet/statistics.h"

#include <cmath>
#include <cstring>

#include "silt/base/string_bounds.h"

namespace silt::parquet {
namespace {

bool IsContinuationByte(char c) { return (static_cast<uint8_t>(c) & 0xC0) == 0x80; }

// Cuts `value` to at most `max_bytes`, backing up to a character start for UTF-8.
size_t CutLength(std::string_view value, size_t max_bytes, bool utf8) {
  if (value.size() <= max_bytes) return value.size();
  size_t cut = max_bytes;
  if (utf8) {
    while (cut > 0 && IsContinuationByte(value[cut])) --cut;
  }
  return cut;
}

void AppendUtf8(uint32_t code_point, std::string* out) {
  if (code_point < 0x80) {
    out->push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

// Decodes the well-formed UTF-8 character at [begin, end); false when it is not well formed.
bool DecodeUtf8(std::string_view character, uint32_t* code_point) {
  auto byte = [&](size_t i) { return static_cast<uint8_t>(character[i]); };
  size_t size = character.size();
  if (size == 1 && byte(0) < 0x80) {
    *code_point = byte(0);
    return true;
  }
  uint32_t value;
  if (size == 2 && (byte(0) & 0xE0) == 0xC0) {
    value = byte(0) & 0x1F;
  } else if (size == 3 && (byte(0) & 0xF0) == 0xE0) {
    value = byte(0) & 0x0F;
  } else if (size == 4 && (byte(0) & 0xF8) == 0xF0) {
    value = byte(0) & 0x07;
  } else {
    return false;
  }
  for (size_t i = 1; i < size; ++i) {
    if (!IsContinuationByte(character[i])) return false;
    value = (value << 6) | (byte(i) & 0x3F);
  }
  *code_point = value;
  return true;
}

std::optional<std::string> IncrementBytes(std::string prefix) {
  while (!prefix.empty()) {
    auto last = static_cast<uint8_t>(prefix.back());
    if (last != 0xFF) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::nullopt;
}

template <typename T>
std::string EncodeFixed(T value) {
  std::string bytes(sizeof(T), '\0');
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

}  // namespace

std::string TruncateLowerBound(std::string_view value, size_t max_bytes, bool utf8) {
  return std::string(value.substr(0, CutLength(value, max_bytes, utf8)));
}

std::optional<std::string> TruncateUpperBound(std::string_view value, size_t max_bytes, bool utf8) {
  if (value.size() <= max_bytes) return std::string(value);
  std::string prefix(value.substr(0, CutLength(value, max_bytes, utf8)));
  if (!utf8) return IncrementBytes(std::move(prefix));
  // Increment the last character's code point: UTF-8 byte order is code point order, so the
  // result is greater than every string that starts with the prefix, and stays valid UTF-8.
  while (!prefix.empty()) {
    size_t start = prefix.size() - 1;
    while (start > 0 && IsContinuationByte(prefix[start])) --start;
    uint32_t code_point;
    if (!DecodeUtf8(std::string_view(prefix).substr(start), &code_point)) {
      // Not valid UTF-8 after all: a byte-wise increment is still a correct bound.
      return IncrementBytes(std::move(prefix));
    }
    prefix.resize(start);
    uint32_t next = code_point + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;  // skip the surrogates
    if (next <= 0x10FFFF) {
      AppendUtf8(next, &prefix);
      return prefix;
    }
  }
  return std::nullopt;
}

StatisticsBuilder::StatisticsBuilder(StatisticsKind kind, int type_length, bool utf8,
                                     size_t truncate_bytes)
    : kind_(kind), type_length_(type_length), utf8_(utf8), truncate_bytes_(truncate_bytes) {}

void StatisticsBuilder::UpdateBoolean(const uint8_t* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    int64_t value = values[i] != 0;
    if (!has_min_max_) {
      min_integer_ = max_integer_ = value;
      has_min_max_ = true;
    }
    min_integer_ = std::min(min_integer_, value);
    max_integer_ = std::max(max_integer_, value);
  }
}

template <typename T>
static void IntegerMinMax(const T* values, size_t count, bool* has, int64_t* min, int64_t* max) {
  if (count == 0) return;
  T low = values[0], high = values[0];
  for (size_t i = 1; i < count; ++i) {
    low = values[i] < low ? values[i] : low;
    high = values[i] > high ? values[i] : high;
  }
  if (!*has) {
    *min = low;
    *max = high;
    *has = true;
  } else {
    *min = std::min<int64_t>(*min, low);
    *max = std::max<int64_t>(*max, high);
  }
}

void StatisticsBuilder::UpdateInt32(const int32_t* values, size_t count) {
  IntegerMinMax(values, count, &has_min_max_, &min_integer_, &max_integer_);
}

void StatisticsBuilder::UpdateInt64(const int64_t* values, size_t count) {
  IntegerMinMax(values, count, &has_min_max_, &min_integer_, &max_integer_);
}

template <typename T>
static void FloatingMinMax(const T* values, size_t count, bool* has, double* min, double* max) {
  for (size_t i = 0; i < count; ++i) {
    T value = values[i];
    if (std::isnan(value)) continue;  // NaN has no place in an order; readers skip it too.
    if (!*has) {
      *min = *max = value;
      *has = true;
    } else {
      *min = value < *min ? value : *min;
      *max = value > *max ? value : *max;
    }
  }
}

void StatisticsBuilder::UpdateFloat(const float* values, size_t count) {
  FloatingMinMax(values, count, &has_min_max_, &min_floating_, &max_floating_);
}

void StatisticsBuilder::UpdateDouble(const double* values, size_t count) {
  FloatingMinMax(values, count, &has_min_max_, &min_floating_, &max_floating_);
}

void StatisticsBuilder::UpdateByteArray(const std::string_view* values, size_t count) {
  if (count == 0) return;
  // Track candidates as views and copy once per call.
  StringBounds bounds;
  for (size_t i = 0; i < count; ++i) bounds.Add(values[i]);
  const std::string_view low = bounds.low();
  const std::string_view high = bounds.high();
  if (!has_min_max_) {
    min_bytes_.assign(low);
    max_bytes_.assign(high);
    has_min_max_ = true;
  } else {
    if (low < std::string_view(min_bytes_)) min_bytes_.assign(low);
    if (high > std::string_view(max_bytes_)) max_bytes_.assign(high);
  }
}

void StatisticsBuilder::UpdateDecimal(const Int128* values, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (!has_min_max_) {
      min_decimal_ = max_decimal_ = values[i];
      has_min_max_ = true;
    }
    min_decimal_ = values[i] < min_decimal_ ? values[i] : min_decimal_;
    max_decimal_ = values[i] > max_decimal_ ? values[i] : max_decimal_;
  }
}

Statistics StatisticsBuilder::Finish() const {
  Statistics statistics;
  statistics.null_count = null_count_;
  if (!has_min_max_) return statistics;
  std::optional<std::string> min, max;
  bool legacy = true;
  switch (kind_) {
    case StatisticsKind::kBoolean:
      min = std::string(1, static_cast<char>(min_integer_));
      max = std::string(1, static_cast<char>(max_integer_));
      break;
    case StatisticsKind::kInt32:
      min = EncodeFixed(static_cast<int32_t>(min_integer_));
      max = EncodeFixed(static_cast<int32_t>(max_integer_));
      break;
    case StatisticsKind::kInt64:
      min = EncodeFixed(min_integer_);
      max = EncodeFixed(max_integer_);
      break;
    case StatisticsKind::kFloat:
    case StatisticsKind::kDouble: {
      // parquet.thrift: a zero min is written as -0.0 and a zero max as +0.0, so that readers
      // comparing with either zero stay correct.
      double low = min_floating_ == 0 ? -0.0 : min_floating_;
      double high = max_floating_ == 0 ? 0.0 : max_floating_;
      if (kind_ == StatisticsKind::kFloat) {
        min = EncodeFixed(static_cast<float>(low));
        max = EncodeFixed(static_cast<float>(high));
      } else {
        min = EncodeFixed(low);
        max = EncodeFixed(high);
      }
      break;
    }
    case StatisticsKind::kByteArray: {
      legacy = false;
      size_t limit = truncate_bytes_ == 0 ? SIZE_MAX : truncate_bytes_;
      min = TruncateLowerBound(min_bytes_, limit, utf8_);
      max = TruncateUpperBound(max_bytes_, limit, utf8_);
      statistics.is_min_value_exact = min->size() == min_bytes_.size();
      if (max) statistics.is_max_value_exact = *max == max_bytes_;
      break;
    }
    case StatisticsKind::kDecimal: {
      legacy = false;
      std::string low(static_cast<size_t>(type_length_), '\0');
      std::string high(static_cast<size_t>(type_length_), '\0');
      StoreBigEndianDecimal(min_decimal_, type_length_, reinterpret_cast<uint8_t*>(low.data()));
      StoreBigEndianDecimal(max_decimal_, type_length_, reinterpret_cast<uint8_t*>(high.data()));
      min = std::move(low);
      max = std::move(high);
      break;
    }
  }
  statistics.min_value = min;
  statistics.max_value = max;
  if (legacy) {
    statistics.min = min;
    statistics.max = max;
  }
  return statistics;
}

}  // namespace silt::parquet
