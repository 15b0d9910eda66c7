#pragma once

// Integer-like vectors: byte to bigint, date and the timestamps, whose values compare (and key
// joins) as their int64 value.

#include "silt/vector/vector.h"

namespace silt {

/// Whether values of type `id` are integer-like.
inline bool IsIntegerLike(TypeId id) {
  switch (id) {
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: return true;
    default: return false;
  }
}

/// Calls `body(values)` with the values of an integer-like vector as their stored type
/// (`values[i]` is row i, already advanced by the vector's offset; each widens exactly to int64)
/// and returns true; returns false, without calling it, for any other type.
template <typename Body>
bool VisitIntegerValues(const Vector& vector, Body&& body) {
  switch (vector.type_id()) {
    case TypeId::kByte: body(vector.values<int8_t>()); return true;
    case TypeId::kShort: body(vector.values<int16_t>()); return true;
    case TypeId::kInteger:
    case TypeId::kDate: body(vector.values<int32_t>()); return true;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: body(vector.values<int64_t>()); return true;
    default: return false;
  }
}

}  // namespace silt
