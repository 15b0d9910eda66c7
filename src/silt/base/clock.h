#pragma once

#include <chrono>
#include <cstdint>

namespace silt {

/// Milliseconds since the Unix epoch on the system clock: what Delta records in commitInfo,
/// tombstones and file times.
inline int64_t SystemNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace silt
