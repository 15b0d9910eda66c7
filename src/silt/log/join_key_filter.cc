#include "silt/log/join_key_filter.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string_view>

#include "silt/vector/integer_values.h"

namespace silt::log {

namespace {

// Row i of an integer-like vector, widened (exactly) to int64.
template <typename Visit>
void ForEachInteger(const Vector& vector, Visit&& visit) {
  const int64_t count = vector.length();
  VisitIntegerValues(vector, [&](const auto* values) {
    for (int64_t i = 0; i < count; ++i) visit(i, static_cast<int64_t>(values[i]));
  });
}

// A 64-bit finalizer that spreads every input bit over the output (each output bit depends on
// every input bit), so that close integers land in unrelated Bloom blocks.
uint64_t Spread(uint64_t value) {
  value ^= value >> 33;
  value *= 0xff51afd7ed558ccdULL;
  value ^= value >> 33;
  value *= 0xc4ceb9fe1a85ec53ULL;
  value ^= value >> 33;
  return value;
}

uint64_t HashInteger(int64_t value) { return Spread(static_cast<uint64_t>(value)); }
uint64_t HashString(std::string_view value) { return Spread(std::hash<std::string_view>{}(value)); }

// Odd multipliers, one per word of a Bloom block: each takes the hash's low 32 bits to another
// bit position (its top five bits).
constexpr uint32_t kBloomSalts[8] = {0x9e3779b1U, 0x85ebca77U, 0xc2b2ae3dU, 0x27d4eb2fU,
                                     0x165667b1U, 0xd3a2646dU, 0xfd7046c5U, 0xb55a4f09U};
constexpr uint64_t kBloomBitsPerKey = 16;
constexpr uint64_t kBloomBlockBits = 256;

}  // namespace

bool JoinKeySet::Supports(const DataType& type) {
  return IsIntegerLike(type.id()) || type.id() == TypeId::kString;
}

std::shared_ptr<const JoinKeySet> JoinKeySet::Make(const Vector& keys, const uint8_t* skip,
                                                   const std::function<bool(int64_t)>& reserve) {
  if (!Supports(*keys.type())) return nullptr;
  auto reserved = [&](size_t words, size_t word_bytes) {
    return !reserve || reserve(static_cast<int64_t>(words * word_bytes));
  };
  std::shared_ptr<JoinKeySet> set(new JoinKeySet());
  set->integer_ = IsIntegerLike(keys.type_id());
  const int64_t rows = keys.length();
  auto wanted = [&](int64_t i) { return (skip == nullptr || skip[i] == 0) && keys.IsValid(i); };
  for (int64_t i = 0; i < rows; ++i) set->num_keys_ += wanted(i) ? 1 : 0;
  auto size_bloom = [&] {
    uint64_t blocks = 1;
    while (blocks * kBloomBlockBits < static_cast<uint64_t>(set->num_keys_) * kBloomBitsPerKey) {
      blocks *= 2;
    }
    if (!reserved(blocks * 8, sizeof(uint32_t))) return false;
    set->bloom_.assign(blocks * 8, 0);
    set->block_mask_ = blocks - 1;
    return true;
  };
  if (set->integer_) {
    int64_t low = std::numeric_limits<int64_t>::max();
    int64_t high = std::numeric_limits<int64_t>::min();
    ForEachInteger(keys, [&](int64_t i, int64_t value) {
      if (!wanted(i)) return;
      low = std::min(low, value);
      high = std::max(high, value);
    });
    if (set->num_keys_ == 0) return set;
    set->min_integer_ = low;
    set->max_integer_ = high;
    set->min_ = Scalar(low);
    set->max_ = Scalar(high);
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    const bool narrow = span < kMaxBitmapBits &&
                        (span < kSmallBitmapBits ||
                         span / kBitmapBitsPerKey < static_cast<uint64_t>(set->num_keys_));
    if (narrow) {
      if (!reserved(span / 64 + 1, sizeof(uint64_t))) return nullptr;
      set->bitmap_.assign(span / 64 + 1, 0);
      ForEachInteger(keys, [&](int64_t i, int64_t value) {
        if (!wanted(i)) return;
        const uint64_t bit = static_cast<uint64_t>(value) - static_cast<uint64_t>(low);
        set->bitmap_[bit >> 6] |= uint64_t{1} << (bit & 63);
      });
    } else {
      if (!size_bloom()) return nullptr;
      ForEachInteger(keys, [&](int64_t i, int64_t value) {
        if (wanted(i)) set->AddHash(HashInteger(value));
      });
    }
    return set;
  }
  if (set->num_keys_ == 0) return set;
  if (!size_bloom()) return nullptr;
  std::string_view low, high;
  bool first = true;
  for (int64_t i = 0; i < rows; ++i) {
    if (!wanted(i)) continue;
    std::string_view value = keys.GetString(i);
    set->AddHash(HashString(value));
    if (first || value < low) low = value;
    if (first || value > high) high = value;
    first = false;
  }
  set->min_ = Scalar(std::string(low));
  set->max_ = Scalar(std::string(high));
  return set;
}

void JoinKeySet::AddHash(uint64_t hash) {
  uint32_t* block = &bloom_[((hash >> 32) & block_mask_) * 8];
  const uint32_t low = static_cast<uint32_t>(hash);
  for (int w = 0; w < 8; ++w) block[w] |= uint32_t{1} << ((low * kBloomSalts[w]) >> 27);
}

bool JoinKeySet::MayContainHash(uint64_t hash) const {
  const uint32_t* block = &bloom_[((hash >> 32) & block_mask_) * 8];
  const uint32_t low = static_cast<uint32_t>(hash);
  uint32_t missing = 0;
  for (int w = 0; w < 8; ++w) missing |= ~block[w] & (uint32_t{1} << ((low * kBloomSalts[w]) >> 27));
  return missing == 0;
}

bool JoinKeySet::MayContainInteger(int64_t value) const {
  if (value < min_integer_ || value > max_integer_) return false;
  if (!bitmap_.empty()) {
    const uint64_t bit = static_cast<uint64_t>(value) - static_cast<uint64_t>(min_integer_);
    return (bitmap_[bit >> 6] >> (bit & 63)) & 1;
  }
  return MayContainHash(HashInteger(value));
}

bool JoinKeySet::Contains(const Scalar& value) const {
  if (num_keys_ == 0) return false;
  if (integer_) {
    const int64_t* integer = std::get_if<int64_t>(&value);
    return integer == nullptr || MayContainInteger(*integer);
  }
  const std::string* text = std::get_if<std::string>(&value);
  if (text == nullptr) return true;
  if (*text < std::get<std::string>(*min_) || *text > std::get<std::string>(*max_)) return false;
  return MayContainHash(HashString(*text));
}

void JoinKeySet::KeepMembers(const Vector& values, uint8_t* keep) const {
  const int64_t count = values.length();
  const bool integer_values = IsIntegerLike(values.type_id());
  const bool string_values = values.type_id() == TypeId::kString || values.type_id() == TypeId::kBinary;
  if (integer_ ? !integer_values : !string_values) return;  // a type the set cannot test
  int64_t tested = 0;
  int64_t passed = 0;
  for (int64_t i = 0; i < count; ++i) tested += keep[i];
  if (num_keys_ == 0) {
    for (int64_t i = 0; i < count; ++i) keep[i] = 0;
  } else if (integer_) {
    if (!bitmap_.empty()) {
      const uint64_t* bits = bitmap_.data();
      const uint64_t low = static_cast<uint64_t>(min_integer_);
      const uint64_t span = static_cast<uint64_t>(max_integer_) - low;
      ForEachInteger(values, [&](int64_t i, int64_t value) {
        const uint64_t bit = static_cast<uint64_t>(value) - low;  // wraps above span when below
        keep[i] &= static_cast<uint8_t>(bit <= span && ((bits[bit >> 6] >> (bit & 63)) & 1));
      });
    } else {
      ForEachInteger(values, [&](int64_t i, int64_t value) {
        if (keep[i]) keep[i] = static_cast<uint8_t>(MayContainInteger(value));
      });
    }
  } else {
    const std::string& low = std::get<std::string>(*min_);
    const std::string& high = std::get<std::string>(*max_);
    for (int64_t i = 0; i < count; ++i) {
      if (!keep[i]) continue;
      std::string_view value = values.GetString(i);
      keep[i] = static_cast<uint8_t>(value >= low && value <= high && MayContainHash(HashString(value)));
    }
  }
  for (int64_t i = 0; i < count; ++i) passed += keep[i];
  Count(tested, passed);
}

void JoinKeySet::Count(int64_t tested, int64_t passed) const {
  tested_.fetch_add(tested, std::memory_order_relaxed);
  passed_.fetch_add(passed, std::memory_order_relaxed);
}

bool JoinKeySet::Selective() const {
  if (given_up_.load(std::memory_order_relaxed)) return false;
  const int64_t tested = tested_.load(std::memory_order_relaxed);
  if (tested < kSampleRows) return true;
  if (static_cast<double>(passed_.load(std::memory_order_relaxed)) > kMaxPassShare * static_cast<double>(tested)) {
    given_up_.store(true, std::memory_order_relaxed);
    return false;
  }
  return true;
}

}  // namespace silt::log
