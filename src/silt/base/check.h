#pragma once

#include <string>

#include "silt/base/error_class.h"

/// Throws `silt::Error` of class `cls` with the given `{{"name", value}, ...}` parameters.
#define SILT_THROW(cls, ...) throw ::silt::MakeError(::silt::ErrorClass::cls, __VA_ARGS__)

/// Guards an internal invariant: a failure is a bug in silt (INTERNAL_ERROR).
#define SILT_CHECK(cond, message)                                                              \
  do {                                                                                         \
    if (!(cond)) [[unlikely]] {                                                                \
      ::silt::internal::ThrowCheckFailure(#cond, __FILE__, __LINE__, (message));               \
    }                                                                                          \
  } while (false)

/// Validates input: throws class `cls` with the parameters when `cond` is false.
#define SILT_USER_CHECK(cond, cls, ...)                                                        \
  do {                                                                                         \
    if (!(cond)) [[unlikely]] {                                                                \
      SILT_THROW(cls, __VA_ARGS__);                                                            \
    }                                                                                          \
  } while (false)

#ifdef NDEBUG
#define SILT_DCHECK(cond, message) \
  do {                             \
  } while (false)
#else
#define SILT_DCHECK(cond, message) SILT_CHECK(cond, message)
#endif

namespace silt::internal {
[[noreturn]] void ThrowCheckFailure(const char* condition, const char* file, int line,
                                    const std::string& message);
}  // namespace silt::internal
