#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

namespace silt::expr {

/// A typed constant: NULL or one value of any silt type (nested values included). Stored as a
/// one-row Vector so that every type, however nested, has one representation. Immutable and
/// cheap to copy (shares the vector).
class Scalar {
 public:
  /// A NULL of `type`.
  static Scalar Null(DataTypePtr type);
  static Scalar Boolean(bool value);
  static Scalar Byte(int8_t value);
  static Scalar Short(int16_t value);
  static Scalar Integer(int32_t value);
  static Scalar Long(int64_t value);
  static Scalar Float(float value);
  static Scalar Double(double value);
  /// A decimal of `type` (which must be a decimal type) with the unscaled value `unscaled`.
  static Scalar Decimal(Decimal128 unscaled, DataTypePtr type);
  /// Days since 1970-01-01.
  static Scalar Date(int32_t days);
  /// Microseconds since the epoch (UTC).
  static Scalar Timestamp(int64_t micros);
  static Scalar TimestampNtz(int64_t micros);
  /// An interval of `type`: months (YEAR-MONTH, within int32) or microseconds (DAY-TIME).
  static Scalar Interval(int64_t value, DataTypePtr type);
  static Scalar String(std::string_view value);
  static Scalar Binary(std::string_view value);
  /// Row `row` of `vector` (any type, nested included); the value is copied.
  static Scalar FromVector(const Vector& vector, int64_t row);

  const DataTypePtr& type() const { return value_->type(); }
  bool is_null() const { return value_->IsNull(0); }

  /// Accessors of the value; calling one that does not match type() is a bug (INTERNAL_ERROR).
  bool GetBool() const;
  /// Integers, date (days), timestamps (µs), intervals (months or µs).
  int64_t GetInt() const;
  double GetDouble() const;
  Decimal128 GetDecimal() const;
  std::string_view GetString() const;

  /// The value as Spark prints it in show(): "NULL", "1.50", "[1, 2]", "{a -> 1}" ...
  std::string ToString() const;
  /// A vector of `num_rows` copies of this value.
  VectorPtr ToVector(int64_t num_rows) const;
  /// The one-row vector holding the value.
  const VectorPtr& vector() const { return value_; }

  /// Deep equality of type and value (NULL equals NULL here; this is not SQL equality).
  bool Equals(const Scalar& other) const;

 private:
  explicit Scalar(VectorPtr value) : value_(std::move(value)) {}
  VectorPtr value_;
};

}  // namespace silt::expr
