#pragma once

// Column-chunk statistics of the write path: min/max in the order parquet.thrift defines for
// each type (ColumnOrder TypeDefinedOrder), null counts, and truncated bounds for long strings.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "silt/parquet/encoding.h"
#include "silt/parquet/metadata.h"

namespace silt::parquet {

/// How min/max compare the values of a leaf column (parquet.thrift ColumnOrder notes).
enum class StatisticsKind {
  kBoolean,    ///< false < true
  kInt32,      ///< signed (INT, DATE, DECIMAL in INT32)
  kInt64,      ///< signed (INT, TIMESTAMP, DECIMAL in INT64)
  kFloat,      ///< IEEE order, NaN ignored, zero bounds written as -0.0 / +0.0
  kDouble,     ///< as kFloat
  kByteArray,  ///< unsigned byte-wise (STRING, binary)
  kDecimal,    ///< FIXED_LEN_BYTE_ARRAY decimal: signed numeric order
};

/// Returns the longest prefix of `value` of at most `max_bytes` bytes; for `utf8` the cut never
/// splits a character. The prefix is <= `value` byte-wise, so it stays a valid lower bound.
std::string TruncateLowerBound(std::string_view value, size_t max_bytes, bool utf8);
/// Returns a string of about `max_bytes` bytes that is >= `value` byte-wise: the prefix with its
/// last byte (for `utf8`, its last character) incremented, dropping trailing bytes that cannot be
/// incremented; nullopt when no such bound exists (e.g. all bytes 0xFF).
std::optional<std::string> TruncateUpperBound(std::string_view value, size_t max_bytes, bool utf8);

/// Accumulates the statistics of one column chunk. Call the Update matching `kind` with the
/// non-null values, AddNulls for NULLs, then Finish. Not thread-safe.
class StatisticsBuilder {
 public:
  /// `type_length` is the FIXED_LEN_BYTE_ARRAY width of kDecimal. `utf8` makes truncation
  /// keep whole characters. `truncate_bytes` 0 never truncates.
  StatisticsBuilder(StatisticsKind kind, int type_length, bool utf8, size_t truncate_bytes);

  void AddNulls(int64_t count) { null_count_ += count; }
  void UpdateBoolean(const uint8_t* values, size_t count);
  void UpdateInt32(const int32_t* values, size_t count);
  void UpdateInt64(const int64_t* values, size_t count);
  void UpdateFloat(const float* values, size_t count);
  void UpdateDouble(const double* values, size_t count);
  void UpdateByteArray(const std::string_view* values, size_t count);
  void UpdateDecimal(const Int128* values, size_t count);

  StatisticsKind kind() const { return kind_; }
  bool has_min_max() const { return has_min_max_; }
  int64_t null_count() const { return null_count_; }

  /// The Thrift statistics: null_count always; min_value/max_value (fields 6/5) when a non-null,
  /// non-NaN value was seen; the deprecated min/max (2/1) too for types whose legacy order was
  /// already signed numeric; is_*_value_exact for byte arrays.
  Statistics Finish() const;

 private:
  StatisticsKind kind_;
  int type_length_;
  bool utf8_;
  size_t truncate_bytes_;
  int64_t null_count_ = 0;
  bool has_min_max_ = false;
  int64_t min_integer_ = 0, max_integer_ = 0;   // boolean, int32, int64
  double min_floating_ = 0, max_floating_ = 0;  // float, double
  Int128 min_decimal_ = 0, max_decimal_ = 0;
  std::string min_bytes_, max_bytes_;
};

}  // namespace silt::parquet
