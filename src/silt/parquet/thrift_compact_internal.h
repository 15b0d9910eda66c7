#pragma once

// What the Thrift compact protocol's reader and writer share (thrift's
// doc/specs/thrift-compact-protocol.md). Private to the Parquet layer.

#include <cstdint>

namespace silt::parquet::internal {

/// Compact-protocol type codes as they appear in field headers and list headers.
/// Persisted; never renumber.
enum class CompactType : uint8_t {
  kStop = 0,
  kBooleanTrue = 1,
  kBooleanFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

}  // namespace silt::parquet::internal
