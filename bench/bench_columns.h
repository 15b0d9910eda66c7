#pragma once

// Column generators shared by the benchmarks: deterministic synthetic data built straight into
// vectors (no per-value builder calls), so that generating 10M rows costs little next to what is
// timed.

#include <cstdint>
#include <cstring>
#include <functional>
#include <string_view>

#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

namespace silt::bench {

inline uint64_t Hash(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

inline VectorPtr FixedVector(DataTypePtr type, int64_t rows, size_t width,
                             const std::function<void(uint8_t*, int64_t)>& fill) {
  BufferPtr values = Buffer::Allocate(static_cast<size_t>(rows) * width);
  for (int64_t i = 0; i < rows; ++i) fill(values->data() + i * static_cast<int64_t>(width), i);
  return Vector::Make(std::move(type), rows, {nullptr, values}, {}, 0);
}

inline VectorPtr StringVector(int64_t rows, const std::function<std::string_view(int64_t, char*)>& make) {
  BufferPtr offsets = Buffer::Allocate(static_cast<size_t>(rows + 1) * 4);
  BufferPtr data = Buffer::Allocate(0, false, static_cast<size_t>(rows) * 10);
  auto* offset = offsets->as<int32_t>();
  offset[0] = 0;
  char scratch[32];
  for (int64_t i = 0; i < rows; ++i) {
    std::string_view value = make(i, scratch);
    data->Append(value.data(), value.size());
    offset[i + 1] = static_cast<int32_t>(data->size());
  }
  return Vector::Make(StringType(), rows, {nullptr, offsets, data}, {}, 0);
}

inline VectorPtr LongVector(int64_t rows, const std::function<int64_t(int64_t)>& value) {
  return FixedVector(LongType(), rows, 8, [&](uint8_t* out, int64_t i) {
    int64_t v = value(i);
    std::memcpy(out, &v, 8);
  });
}

inline VectorPtr TimestampVector(int64_t rows, const std::function<int64_t(int64_t)>& micros) {
  return FixedVector(TimestampType(), rows, 8, [&](uint8_t* out, int64_t i) {
    int64_t v = micros(i);
    std::memcpy(out, &v, 8);
  });
}

}  // namespace silt::bench
