#include "silt/vector/take.h"

#include <cstring>
#include <limits>
#include <string_view>

#include "silt/base/check.h"
#include "silt/vector/vector.h"

namespace silt {
namespace {

// Random reads into the source dominate a gather; prefetching this many rows ahead hides most
// of their latency.
constexpr int64_t kPrefetchDistance = 16;

void SetBit(uint8_t* bits, int64_t i) { bits[i >> 3] |= static_cast<uint8_t>(1u << (i & 7)); }

// The validity bitmap of the gathered rows, or null when every gathered row is valid.
// `may_have_nulls` false promises that neither the source nor the indexes give a NULL (the
// caller saw no negative index), which skips the scan over the rows.
BufferPtr GatherValidity(const Vector& source, const int64_t* rows, int64_t num_rows, int64_t& null_count,
                         bool may_have_nulls = true) {
  null_count = 0;
  const bool source_nulls = source.null_count() != 0;
  if (!may_have_nulls && !source_nulls) return nullptr;
  bool any_null = false;
  for (int64_t i = 0; i < num_rows && !any_null; ++i) {
    any_null = rows[i] < 0 || (source_nulls && source.IsNull(rows[i]));
  }
  if (!any_null) return nullptr;
  BufferPtr validity = Buffer::Allocate(static_cast<size_t>((num_rows + 7) / 8), /*zero=*/true);
  uint8_t* bits = validity->data();
  for (int64_t i = 0; i < num_rows; ++i) {
    if (rows[i] >= 0 && source.IsValid(rows[i])) {
      SetBit(bits, i);
    } else {
      ++null_count;
    }
  }
  return validity;
}

template <typename T>
VectorPtr TakeFixed(const Vector& source, const int64_t* rows, int64_t num_rows) {
  BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(T));
  T* out = values->as<T>();
  const T* in = source.values<T>();
  bool any_negative = false;
  for (int64_t i = 0; i < num_rows; ++i) {
    if (i + kPrefetchDistance < num_rows && rows[i + kPrefetchDistance] >= 0) {
      __builtin_prefetch(in + rows[i + kPrefetchDistance]);
    }
    const int64_t row = rows[i];
    any_negative |= row < 0;
    out[i] = row >= 0 ? in[row] : T{};
  }
  int64_t null_count = 0;
  BufferPtr validity = GatherValidity(source, rows, num_rows, null_count, any_negative);
  return Vector::Make(source.type(), num_rows, {validity, values}, {}, null_count);
}

VectorPtr TakeBooleans(const Vector& source, const int64_t* rows, int64_t num_rows) {
  int64_t null_count = 0;
  BufferPtr validity = GatherValidity(source, rows, num_rows, null_count);
  BufferPtr values = Buffer::Allocate(static_cast<size_t>((num_rows + 7) / 8), /*zero=*/true);
  uint8_t* bits = values->data();
  for (int64_t i = 0; i < num_rows; ++i) {
    if (rows[i] >= 0 && source.IsValid(rows[i]) && source.GetBool(rows[i])) SetBit(bits, i);
  }
  return Vector::Make(source.type(), num_rows, {validity, values}, {}, null_count);
}

VectorPtr TakeStrings(const Vector& source, const int64_t* rows, int64_t num_rows) {
  int64_t null_count = 0;
  BufferPtr validity = GatherValidity(source, rows, num_rows, null_count);
  const uint8_t* valid = validity ? validity->data() : nullptr;
  auto is_valid = [&](int64_t i) { return valid == nullptr || ((valid[i >> 3] >> (i & 7)) & 1) != 0; };
  // The source's offsets and bytes, read once: GetString reads its buffers again for each row.
  const int32_t* from_offsets = source.buffers()[1]->as<int32_t>() + source.offset();
  const uint8_t* from_bytes = source.buffers()[2]->data();
  BufferPtr offsets = Buffer::Allocate(static_cast<size_t>(num_rows + 1) * sizeof(int32_t));
  int32_t* out_offsets = offsets->as<int32_t>();
  int64_t total = 0;
  out_offsets[0] = 0;
  for (int64_t i = 0; i < num_rows; ++i) {
    if (is_valid(i)) total += from_offsets[rows[i] + 1] - from_offsets[rows[i]];
    out_offsets[i + 1] = static_cast<int32_t>(total);  // not read when the check below fails
  }
  SILT_USER_CHECK(total <= std::numeric_limits<int32_t>::max(), VECTOR_CAPACITY_EXCEEDED,
                  {{"type", source.type()->ToString()}});
  BufferPtr data = Buffer::Allocate(static_cast<size_t>(total));
  uint8_t* out = data->data();
  if (valid == nullptr) {
    // Every row is valid, so rows that follow one another in the source have their bytes side by
    // side in both vectors: each such run is one copy (most rows a filter or a MERGE keeps come
    // in runs).
    for (int64_t i = 0; i < num_rows;) {
      int64_t end = i + 1;
      while (end < num_rows && rows[end] == rows[end - 1] + 1) ++end;
      const int32_t first = from_offsets[rows[i]];
      const int32_t last = from_offsets[rows[end - 1] + 1];
      if (last > first) std::memcpy(out + out_offsets[i], from_bytes + first, static_cast<size_t>(last - first));
      i = end;
    }
  } else {
    for (int64_t i = 0; i < num_rows; ++i) {
      const int32_t length = out_offsets[i + 1] - out_offsets[i];
      if (length == 0) continue;
      std::memcpy(out + out_offsets[i], from_bytes + from_offsets[rows[i]], static_cast<size_t>(length));
    }
  }
  return Vector::Make(source.type(), num_rows, {validity, offsets, data}, {}, null_count);
}

}  // namespace

VectorPtr TakeRows(const Vector& source, const int64_t* rows, int64_t num_rows) {
  switch (source.type_id()) {
    case TypeId::kNull: return Vector::MakeAllNull(source.type(), num_rows);
    case TypeId::kBoolean: return TakeBooleans(source, rows, num_rows);
    case TypeId::kByte: return TakeFixed<int8_t>(source, rows, num_rows);
    case TypeId::kShort: return TakeFixed<int16_t>(source, rows, num_rows);
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
    case TypeId::kFloat: return TakeFixed<int32_t>(source, rows, num_rows);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
    case TypeId::kDouble: return TakeFixed<int64_t>(source, rows, num_rows);
    case TypeId::kDecimal: return TakeFixed<Decimal128>(source, rows, num_rows);
    case TypeId::kString:
    case TypeId::kBinary: {
      VectorPtr taken = TakeStrings(source, rows, num_rows);
      const DictionaryCodes* codes = source.dictionary_codes();
      if (codes == nullptr) return taken;
      // The codes follow the rows (a NULL row from a negative index gets code 0), so that a
      // filtered column can still be grouped by its dictionary.
      auto taken_codes = std::make_shared<DictionaryCodes>();
      taken_codes->dictionary = codes->dictionary;
      taken_codes->codes = Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(int32_t));
      const int32_t* from = codes->codes->as<int32_t>() + source.offset();
      int32_t* to = taken_codes->codes->as<int32_t>();
      for (int64_t i = 0; i < num_rows; ++i) to[i] = rows[i] < 0 ? 0 : from[rows[i]];
      return Vector::WithDictionaryCodes(taken, std::move(taken_codes));
    }
    default: {
      // Nested values: rare in gathers, copied value by value.
      VectorBuilder builder(source.type(), num_rows);
      for (int64_t i = 0; i < num_rows; ++i) {
        if (rows[i] < 0) {
          builder.AppendNull();
        } else {
          builder.AppendFrom(source, rows[i]);
        }
      }
      return builder.Finish();
    }
  }
}

Batch TakeBatchRows(const Batch& batch, const std::vector<int64_t>& rows) {
  std::vector<VectorPtr> columns;
  columns.reserve(batch.num_columns());
  for (const VectorPtr& column : batch.columns()) columns.push_back(TakeRows(*column, rows));
  return Batch(batch.schema(), std::move(columns), static_cast<int64_t>(rows.size()));
}

}  // namespace silt
