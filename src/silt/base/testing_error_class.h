#pragma once

// Test-only: the error class a call throws, for tests that assert on stable error classes.

#include <functional>
#include <string>

#include "silt/error.h"

namespace silt {

/// The class of the silt::Error `action` throws ("PATH_NOT_FOUND", ...), or "no error" when it
/// returns normally.
inline std::string ErrorClassOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& error) {
    return std::string(error.error_class());
  }
  return "no error";
}

}  // namespace silt
