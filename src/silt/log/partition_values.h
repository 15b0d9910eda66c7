#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "silt/types/data_type.h"
#include "silt/vector/vector.h"

namespace silt::log {

// Typed values of partition columns and file statistics (protocol §8 and §10).

/// One typed, non-null value: booleans; integers, dates (days) and timestamps (µs) as int64;
/// floats as double; decimals as the unscaled value at the column's scale; strings and binary
/// as bytes.
using Scalar = std::variant<bool, int64_t, double, Decimal128, std::string>;

/// Parses a partition value's text (protocol §10) as `type`. nullopt, and the empty string,
/// mean NULL. Timestamps accept ISO-8601 with 'Z' or an offset, and the legacy
/// "yyyy-MM-dd HH:mm:ss[.ffffff]" form, which is read as UTC because the writer's session time
/// zone is not recorded. Throws DELTA_PARTITION_COLUMN_CAST_FAILED naming `column` when the text
/// does not fit the type, and UNSUPPORTED_DATA_TYPE for nested types.
std::optional<Scalar> ParsePartitionValue(const DataType& type,
                                          const std::optional<std::string>& text,
                                          std::string_view column);

/// Formats a value as partition text (the inverse of ParsePartitionValue): integers in decimal,
/// doubles as Java prints them, decimals with their scale, dates "yyyy-MM-dd", timestamps in UTC
/// ISO-8601 "yyyy-MM-ddTHH:mm:ss.ffffffZ", timestamp_ntz "yyyy-MM-dd HH:mm:ss[.ffffff]".
std::string FormatPartitionValue(const DataType& type, const Scalar& value);

/// FormatPartitionValue of row `row` of `vector`, which must not be NULL (an empty string stays
/// empty). Throws UNSUPPORTED_DATA_TYPE for nested types.
std::string FormatPartitionValue(const Vector& vector, int64_t row);

/// Parses a timestamp text with an optional 'Z' or ±HH:MM / ±HHMM offset into microseconds since
/// the epoch (UTC); text without an offset is read as UTC. nullopt when malformed.
std::optional<int64_t> ParseTimestampWithOffset(std::string_view text);

/// Parses a decimal text (plain or with an exponent: "1.50", "-3.1661E-8") as the unscaled value
/// at `scale`; nullopt when malformed, when it has more significant fraction digits than
/// `scale`, or when it exceeds 38 digits.
std::optional<Decimal128> ParseDecimalText(std::string_view text, int scale);

/// Orders two scalars of the same column type: negative, zero or positive. Strings compare by
/// bytes; doubles with NaN above everything (as Spark orders them).
int CompareScalars(const Scalar& left, const Scalar& right);

/// Appends `value` (nullopt: NULL) to `builder`, whose type is the column's.
void AppendScalar(VectorBuilder& builder, const std::optional<Scalar>& value);

/// A vector of `length` copies of `value` (nullopt: NULL) of `type`.
VectorPtr MakeConstantVector(const DataTypePtr& type, const std::optional<Scalar>& value,
                             int64_t length);

}  // namespace silt::log
