#include "silt/log/zorder.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string_view>

#include "silt/base/check.h"

namespace silt::log {
namespace {

template <typename T>
int CompareValues(T left, T right) {
  return left < right ? -1 : (right < left ? 1 : 0);
}

// Spark's ordering of floating point: NaN above everything, -0.0 equal to 0.0.
template <typename T>
int CompareFloating(T left, T right) {
  bool left_nan = std::isnan(left);
  bool right_nan = std::isnan(right);
  if (left_nan || right_nan) return left_nan == right_nan ? 0 : (left_nan ? 1 : -1);
  return CompareValues(left, right);
}

// Compares rows `i` and `j` of `column`; NULLs sort first.
int CompareRows(const Vector& column, int64_t i, int64_t j) {
  bool i_null = column.IsNull(i);
  bool j_null = column.IsNull(j);
  if (i_null || j_null) return i_null == j_null ? 0 : (i_null ? -1 : 1);
  switch (column.type_id()) {
    case TypeId::kBoolean:
      return CompareValues<int>(column.GetBool(i), column.GetBool(j));
    case TypeId::kByte:
      return CompareValues(column.values<int8_t>()[i], column.values<int8_t>()[j]);
    case TypeId::kShort:
      return CompareValues(column.values<int16_t>()[i], column.values<int16_t>()[j]);
    case TypeId::kInteger:
    case TypeId::kDate:
      return CompareValues(column.values<int32_t>()[i], column.values<int32_t>()[j]);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      return CompareValues(column.values<int64_t>()[i], column.values<int64_t>()[j]);
    case TypeId::kFloat:
      return CompareFloating(column.values<float>()[i], column.values<float>()[j]);
    case TypeId::kDouble:
      return CompareFloating(column.values<double>()[i], column.values<double>()[j]);
    case TypeId::kDecimal:
      return CompareValues(column.values<Decimal128>()[i], column.values<Decimal128>()[j]);
    case TypeId::kString:
    case TypeId::kBinary: {
      int result = column.GetString(i).compare(column.GetString(j));
      return result < 0 ? -1 : (result > 0 ? 1 : 0);
    }
    default:
      break;
  }
  SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", column.type()->ToString() + " in ZORDER BY"}});
}

// Each row's dense rank among the distinct values of `column` (NULL lowest), and the number of
// distinct values.
std::vector<uint64_t> DenseRanks(const Vector& column, uint64_t& distinct) {
  int64_t rows = column.length();
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  if (rows > 0) CompareRows(column, 0, 0);  // rejects unsupported types before sorting
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return CompareRows(column, a, b) < 0; });
  std::vector<uint64_t> ranks(static_cast<size_t>(rows));
  uint64_t rank = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    if (k > 0 && CompareRows(column, order[k - 1], order[k]) != 0) ++rank;
    ranks[static_cast<size_t>(order[k])] = rank;
  }
  distinct = rows == 0 ? 0 : rank + 1;
  return ranks;
}

}  // namespace

uint64_t InterleaveBits(const std::vector<uint64_t>& values, int bits_per_value) {
  SILT_CHECK(bits_per_value >= 0 && static_cast<size_t>(bits_per_value) * values.size() <= 64,
             "Z-order key wider than 64 bits");
  uint64_t key = 0;
  for (int bit = bits_per_value - 1; bit >= 0; --bit) {
    for (uint64_t value : values) key = (key << 1) | ((value >> bit) & 1);
  }
  return key;
}

namespace {

// Each column's dense ranks scaled to `bits` bits: every column spans the same range however many
// distinct values it has, so no column dominates a key built from them.
std::vector<std::vector<uint64_t>> ScaledRanks(const std::vector<VectorPtr>& columns, int bits) {
  SILT_CHECK(!columns.empty(), "a curve needs at least one column");
  int64_t rows = columns[0]->length();
  std::vector<std::vector<uint64_t>> scaled;
  for (const VectorPtr& column : columns) {
    SILT_CHECK(column->length() == rows, "curve columns of different lengths");
    uint64_t distinct = 0;
    std::vector<uint64_t> ranks = DenseRanks(*column, distinct);
    for (uint64_t& rank : ranks) {
      rank = static_cast<uint64_t>((static_cast<unsigned __int128>(rank) << bits) /
                                   std::max<uint64_t>(distinct, 1));
    }
    scaled.push_back(std::move(ranks));
  }
  return scaled;
}

std::vector<int64_t> SortedBy(const std::vector<uint64_t>& keys) {
  std::vector<int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)];
  });
  return order;
}

}  // namespace

uint64_t HilbertIndex(std::vector<uint64_t> values, int bits_per_value) {
  SILT_CHECK(bits_per_value >= 1 && static_cast<size_t>(bits_per_value) * values.size() <= 64,
             "Hilbert key wider than 64 bits");
  // Skilling's transform ("Programming the Hilbert curve", 2004): turn the coordinates into the
  // transposed Hilbert index in place, then read its bits most significant first.
  size_t n = values.size();
  uint64_t top = uint64_t{1} << (bits_per_value - 1);
  for (uint64_t q = top; q > 1; q >>= 1) {
    uint64_t p = q - 1;
    for (size_t i = 0; i < n; ++i) {
      if (values[i] & q) {
        values[0] ^= p;
      } else {
        uint64_t t = (values[0] ^ values[i]) & p;
        values[0] ^= t;
        values[i] ^= t;
      }
    }
  }
  for (size_t i = 1; i < n; ++i) values[i] ^= values[i - 1];
  uint64_t t = 0;
  for (uint64_t q = top; q > 1; q >>= 1) {
    if (values[n - 1] & q) t ^= q - 1;
  }
  for (uint64_t& value : values) value ^= t;
  return InterleaveBits(values, bits_per_value);
}

std::vector<uint64_t> ZOrderKeys(const std::vector<VectorPtr>& columns) {
  int bits = static_cast<int>(64 / std::min<size_t>(std::max<size_t>(columns.size(), 1), 64));
  std::vector<std::vector<uint64_t>> scaled = ScaledRanks(columns, bits);
  std::vector<uint64_t> keys(scaled[0].size());
  std::vector<uint64_t> row_values(columns.size());
  for (size_t row = 0; row < keys.size(); ++row) {
    for (size_t c = 0; c < columns.size(); ++c) row_values[c] = scaled[c][row];
    keys[row] = InterleaveBits(row_values, bits);
  }
  return keys;
}

std::vector<uint64_t> HilbertKeys(const std::vector<VectorPtr>& columns) {
  SILT_CHECK(columns.size() >= 2 && columns.size() <= 64, "Hilbert keys need 2 to 64 columns");
  int bits = static_cast<int>(std::min<size_t>(32, 64 / columns.size()));
  std::vector<std::vector<uint64_t>> scaled = ScaledRanks(columns, bits);
  std::vector<uint64_t> keys(scaled[0].size());
  std::vector<uint64_t> row_values(columns.size());
  for (size_t row = 0; row < keys.size(); ++row) {
    for (size_t c = 0; c < columns.size(); ++c) row_values[c] = scaled[c][row];
    keys[row] = HilbertIndex(row_values, bits);
  }
  return keys;
}

std::vector<int64_t> ClusteringPermutation(const std::vector<VectorPtr>& columns) {
  // Delta clusters by one column in its Z-order, which for one column is its value order.
  if (columns.size() == 1) return ZOrderPermutation(columns);
  return SortedBy(HilbertKeys(columns));
}

std::vector<int64_t> ZOrderPermutation(const std::vector<VectorPtr>& columns) {
  std::vector<uint64_t> keys = ZOrderKeys(columns);
  std::vector<int64_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return keys[static_cast<size_t>(a)] < keys[static_cast<size_t>(b)];
  });
  return order;
}

}  // namespace silt::log
