#pragma once

#include <string_view>

#include "silt/error.h"

namespace silt {

/// Every registered error class, by its stable name. Enumerators are spelled exactly as the class
/// names users see (an exception to the kPascalCase rule, so that code and messages grep alike).
enum class ErrorClass : ErrorClassId {
#define SILT_ERROR_CLASS(name, sqlstate, category, message) name,
#include "silt/base/error_classes.def"
#undef SILT_ERROR_CLASS
  kCount
};

/// One registry entry.
struct ErrorClassInfo {
  std::string_view name;
  std::string_view sqlstate;
  ErrorCategory category;
  std::string_view message_template;
};

/// Returns the registry entry of `id`; an out-of-range id maps to INTERNAL_ERROR.
const ErrorClassInfo& GetErrorClassInfo(ErrorClassId id);
/// Returns the id of the class named `name`, or ErrorClass::kCount when there is none.
ErrorClass FindErrorClass(std::string_view name);

/// Builds an Error for `cls`: `MakeError(ErrorClass::IO_ERROR, {{"path", p}, {"message", m}})`.
inline Error MakeError(ErrorClass cls, std::initializer_list<ErrorParam> params) {
  return Error(static_cast<ErrorClassId>(cls), params);
}

}  // namespace silt
