#include "silt/exec/row_hash.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "silt/base/check.h"

namespace silt::exec {

namespace {

constexpr uint8_t kNullFlag = 0;
constexpr uint8_t kValidFlag = 1;

// Floating keys compare as Spark's GROUP BY does: every NaN is one value and -0.0 is 0.0.
template <typename T>
T NormalizeFloat(T value) {
  if (std::isnan(value)) return std::numeric_limits<T>::quiet_NaN();
  if (value == 0) return 0;
  return value;
}

template <typename T>
void PutValue(T value, std::string& out) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// The slow, general encoding of one value of any type (nested values included).
void EncodeValueTo(const Vector& vector, int64_t row, std::string& out) {
  if (vector.IsNull(row)) {
    out.push_back(static_cast<char>(kNullFlag));
    return;
  }
  out.push_back(static_cast<char>(kValidFlag));
  switch (vector.type_id()) {
    case TypeId::kNull: return;
    case TypeId::kBoolean: out.push_back(vector.GetBool(row) ? 1 : 0); return;
    case TypeId::kByte: PutValue(vector.values<int8_t>()[row], out); return;
    case TypeId::kShort: PutValue(vector.values<int16_t>()[row], out); return;
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: PutValue(vector.values<int32_t>()[row], out); return;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: PutValue(vector.values<int64_t>()[row], out); return;
    case TypeId::kFloat: PutValue(NormalizeFloat(vector.values<float>()[row]), out); return;
    case TypeId::kDouble: PutValue(NormalizeFloat(vector.values<double>()[row]), out); return;
    case TypeId::kDecimal: PutValue(vector.values<Decimal128>()[row], out); return;
    case TypeId::kString:
    case TypeId::kBinary: {
      std::string_view value = vector.GetString(row);
      PutValue(static_cast<uint32_t>(value.size()), out);
      out.append(value);
      return;
    }
    case TypeId::kStruct:
      for (size_t field = 0; field < vector.children().size(); ++field) {
        EncodeValueTo(*vector.child(field), vector.offset() + row, out);
      }
      return;
    case TypeId::kList: {
      int32_t start = vector.ListStart(row);
      int32_t length = vector.ListLength(row);
      PutValue(static_cast<uint32_t>(length), out);
      for (int32_t k = 0; k < length; ++k) EncodeValueTo(*vector.child(0), start + k, out);
      return;
    }
    case TypeId::kMap: {
      // Maps with the same entries are one key whatever their order (Spark 4 groups by a map
      // with its entries sorted): the entries are encoded one by one and written in byte order.
      // A map's keys are distinct, so the order is the same for equal maps.
      int32_t start = vector.ListStart(row);
      int32_t length = vector.ListLength(row);
      PutValue(static_cast<uint32_t>(length), out);
      std::vector<std::string> entries(static_cast<size_t>(length));
      for (int32_t k = 0; k < length; ++k) EncodeValueTo(*vector.child(0), start + k, entries[static_cast<size_t>(k)]);
      std::sort(entries.begin(), entries.end());
      for (const std::string& entry : entries) out.append(entry);
      return;
    }
  }
}

// Copies `length` bytes; short strings (the usual keys) without a library call.
inline void CopyShort(uint8_t* out, const uint8_t* in, uint32_t length) {
  if (length >= 8 && length <= 16) {
    uint64_t head, tail;
    std::memcpy(&head, in, 8);
    std::memcpy(&tail, in + length - 8, 8);
    std::memcpy(out, &head, 8);
    std::memcpy(out + length - 8, &tail, 8);
  } else if (length >= 4 && length < 8) {
    uint32_t head, tail;
    std::memcpy(&head, in, 4);
    std::memcpy(&tail, in + length - 4, 4);
    std::memcpy(out, &head, 4);
    std::memcpy(out + length - 4, &tail, 4);
  } else {
    for (uint32_t k = 0; k < length && length < 4; ++k) out[k] = in[k];
    if (length > 16) std::memcpy(out, in, length);
  }
}

template <typename T>
void AddFixedSizes(const Vector& vector, int64_t num_rows, uint32_t* sizes) {
  if (vector.null_count() == 0) {
    for (int64_t i = 0; i < num_rows; ++i) sizes[i] += 1 + sizeof(T);
  } else {
    for (int64_t i = 0; i < num_rows; ++i) sizes[i] += vector.IsValid(i) ? 1 + sizeof(T) : 1;
  }
}

template <typename T, bool kFloat>
void WriteFixed(const Vector& vector, int64_t num_rows, uint32_t* cursors, uint8_t* bytes) {
  const T* values = vector.values<T>();
  const bool has_nulls = vector.null_count() != 0;
  for (int64_t i = 0; i < num_rows; ++i) {
    uint8_t* out = bytes + cursors[i];
    if (has_nulls && !vector.IsValid(i)) {
      *out = kNullFlag;
      cursors[i] += 1;
      continue;
    }
    *out = kValidFlag;
    T value = values[i];
    if constexpr (kFloat) value = NormalizeFloat(value);
    std::memcpy(out + 1, &value, sizeof(T));
    cursors[i] += 1 + sizeof(T);
  }
}

void AddSizes(const Vector& vector, int64_t num_rows, uint32_t* sizes, std::vector<std::string>& nested) {
  switch (vector.type_id()) {
    case TypeId::kNull:
      for (int64_t i = 0; i < num_rows; ++i) sizes[i] += 1;
      return;
    case TypeId::kBoolean:
    case TypeId::kByte: AddFixedSizes<uint8_t>(vector, num_rows, sizes); return;
    case TypeId::kShort: AddFixedSizes<int16_t>(vector, num_rows, sizes); return;
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kFloat: AddFixedSizes<int32_t>(vector, num_rows, sizes); return;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kDouble: AddFixedSizes<int64_t>(vector, num_rows, sizes); return;
    case TypeId::kDecimal: AddFixedSizes<Decimal128>(vector, num_rows, sizes); return;
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
      for (int64_t i = 0; i < num_rows; ++i) {
        sizes[i] += vector.IsValid(i) ? 1 + 4 + static_cast<uint32_t>(offsets[i + 1] - offsets[i]) : 1;
      }
      return;
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      nested.resize(static_cast<size_t>(num_rows));
      for (int64_t i = 0; i < num_rows; ++i) {
        nested[i].clear();
        EncodeValueTo(vector, i, nested[i]);
        sizes[i] += static_cast<uint32_t>(nested[i].size());
      }
      return;
  }
}

void WriteColumn(const Vector& vector, int64_t num_rows, uint32_t* cursors, uint8_t* bytes,
                 const std::vector<std::string>& nested) {
  switch (vector.type_id()) {
    case TypeId::kNull:
      for (int64_t i = 0; i < num_rows; ++i) bytes[cursors[i]++] = kNullFlag;
      return;
    case TypeId::kBoolean:
      for (int64_t i = 0; i < num_rows; ++i) {
        uint8_t* out = bytes + cursors[i];
        if (vector.IsValid(i)) {
          out[0] = kValidFlag;
          out[1] = vector.GetBool(i) ? 1 : 0;
          cursors[i] += 2;
        } else {
          out[0] = kNullFlag;
          cursors[i] += 1;
        }
      }
      return;
    case TypeId::kByte: WriteFixed<int8_t, false>(vector, num_rows, cursors, bytes); return;
    case TypeId::kShort: WriteFixed<int16_t, false>(vector, num_rows, cursors, bytes); return;
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: WriteFixed<int32_t, false>(vector, num_rows, cursors, bytes); return;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: WriteFixed<int64_t, false>(vector, num_rows, cursors, bytes); return;
    case TypeId::kFloat: WriteFixed<float, true>(vector, num_rows, cursors, bytes); return;
    case TypeId::kDouble: WriteFixed<double, true>(vector, num_rows, cursors, bytes); return;
    case TypeId::kDecimal: WriteFixed<Decimal128, false>(vector, num_rows, cursors, bytes); return;
    case TypeId::kString:
    case TypeId::kBinary: {
      const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
      const uint8_t* data = vector.buffer(2)->data();
      for (int64_t i = 0; i < num_rows; ++i) {
        uint8_t* out = bytes + cursors[i];
        if (!vector.IsValid(i)) {
          out[0] = kNullFlag;
          cursors[i] += 1;
          continue;
        }
        uint32_t length = static_cast<uint32_t>(offsets[i + 1] - offsets[i]);
        out[0] = kValidFlag;
        std::memcpy(out + 1, &length, 4);
        CopyShort(out + 5, data + offsets[i], length);
        cursors[i] += 5 + length;
      }
      return;
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      for (int64_t i = 0; i < num_rows; ++i) {
        std::memcpy(bytes + cursors[i], nested[i].data(), nested[i].size());
        cursors[i] += static_cast<uint32_t>(nested[i].size());
      }
      return;
  }
}

}  // namespace

uint64_t HashLongBytes(const void* data, size_t length) {
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (length * 0xC2B2AE3D27D4EB4FULL);
  while (length >= 8) {
    uint64_t word;
    std::memcpy(&word, bytes, 8);
    h = (h ^ word) * 0x9FB21C651E98DF25ULL;
    h ^= h >> 29;
    bytes += 8;
    length -= 8;
  }
  if (length > 0) {
    uint64_t word = 0;
    std::memcpy(&word, bytes, length);
    h = (h ^ word) * 0x9FB21C651E98DF25ULL;
    h ^= h >> 29;
  }
  return MixHash(h);
}

void EncodeKeys(const std::vector<VectorPtr>& columns, int64_t num_rows, EncodedKeys& out) {
  const size_t rows = static_cast<size_t>(num_rows);
  out.offsets.assign(rows + 1, 0);
  uint32_t* sizes = out.offsets.data() + 1;
  std::vector<std::vector<std::string>> nested(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) AddSizes(*columns[c], num_rows, sizes, nested[c]);
  uint64_t total = 0;
  for (size_t i = 1; i <= rows; ++i) {
    total += out.offsets[i];
    SILT_USER_CHECK(total <= std::numeric_limits<uint32_t>::max(), VECTOR_CAPACITY_EXCEEDED,
                    {{"type", "key"}});
    out.offsets[i] = static_cast<uint32_t>(total);
  }
  out.bytes.resize(total);
  std::vector<uint32_t> cursors(out.offsets.begin(), out.offsets.end() - 1);
  for (size_t c = 0; c < columns.size(); ++c) {
    WriteColumn(*columns[c], num_rows, cursors.data(), out.bytes.data(), nested[c]);
  }
  out.hashes.resize(rows);
  const uint8_t* bytes = out.bytes.data();
  for (size_t i = 0; i < rows; ++i) {
    out.hashes[i] = HashBytes(bytes + out.offsets[i], out.offsets[i + 1] - out.offsets[i]);
  }
}

BufferPtr ValidityFromBytes(const uint8_t* valid, int64_t num_rows) {
  bool all_valid = true;
  for (int64_t i = 0; i < num_rows && all_valid; ++i) all_valid = valid[i] != 0;
  if (all_valid) return nullptr;
  BufferPtr bitmap = Buffer::Allocate(static_cast<size_t>((num_rows + 7) / 8), true);
  uint8_t* bits = bitmap->data();
  for (int64_t i = 0; i < num_rows; ++i) {
    if (valid[i]) bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  }
  return bitmap;
}

}  // namespace silt::exec
