#pragma once

#include <cstdint>
#include <string_view>

namespace silt::expr {

/// The largest single value silt builds by default: a string or binary of at most this many
/// bytes, an array of at most this many bytes of elements. A function or aggregate whose result
/// would be larger fails with VALUE_SIZE_LIMIT_EXCEEDED before it allocates the result, instead
/// of running the machine out of memory. The session option `silt.sql.maxValueBytes`
/// (EvalContext::max_value_bytes) sets another limit, up to kMaxValueBytesSetting. (A vector of
/// many values is bounded separately: 2^31-1 bytes, VECTOR_CAPACITY_EXCEEDED.)
inline constexpr uint64_t kMaxValueBytes = uint64_t{1} << 30;
/// The highest `silt.sql.maxValueBytes`: a value must fit in one vector.
inline constexpr uint64_t kMaxValueBytesSetting = (uint64_t{1} << 31) - 1;
/// The session option that sets the limit.
inline constexpr std::string_view kMaxValueBytesKey = "silt.sql.maxValueBytes";

/// Throws VALUE_SIZE_LIMIT_EXCEEDED naming `what` (e.g. "The result of repeat") when `bytes`
/// exceeds `limit`.
void CheckValueSize(std::string_view what, uint64_t bytes, uint64_t limit);

/// `count * each`, saturating at UINT64_MAX instead of wrapping, for sizes about to be checked.
inline uint64_t SaturatingProduct(uint64_t count, uint64_t each) {
  uint64_t product;
  return __builtin_mul_overflow(count, each, &product) ? UINT64_MAX : product;
}

}  // namespace silt::expr
