#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "silt/expr/eval_context.h"
#include "silt/expr/expression.h"
#include "silt/vector/vector.h"

namespace silt::expr {

/// Whether Spark can CAST from `from` to `to`: between all primitive types except
/// boolean/binary/datetime combinations Spark refuses (e.g. date to boolean, binary to numeric),
/// anything to string, and nested types to the same shape with castable children.
bool CanCast(const DataTypePtr& from, const DataTypePtr& to);

/// Casts every row of `input` to `to`. Malformed or overflowing values raise
/// CAST_INVALID_INPUT / CAST_OVERFLOW / NUMERIC_VALUE_OUT_OF_RANGE into `context` (for rows in
/// `mask`) when `mode` is kSession and ANSI is on; otherwise they become NULL (except that
/// non-ANSI integral narrowing wraps as Java does). `to` must satisfy CanCast.
VectorPtr CastVector(const VectorPtr& input, const DataTypePtr& to, ErrorMode mode,
                     EvalContext& context, RowMask mask = {});

/// Spark's text form of row `row` for CAST(... AS STRING): as Vector::ValueToString but NULL
/// inside nested values is "null", binary is its raw bytes, and timestamps are shown as local
/// time in `zone` (the session zone, EvalContext::Zone(); null shows them in UTC).
std::string CastValueToString(const Vector& vector, int64_t row, const TimeZone* zone = nullptr);

/// Parses a date as Spark's CAST does: trimmed "yyyy", "yyyy-[m]m", "yyyy-[m]m-[d]d", optionally
/// followed by ' ' or 'T' and anything. Returns days since the epoch.
std::optional<int32_t> ParseSparkDate(std::string_view text);
/// Parses a timestamp as Spark's CAST does: a date as above, optionally followed by ' ' or 'T'
/// and "[h]h:[m]m[:[s]s[.ffffff]]" and a zone ("Z", "UTC", "+hh[:mm]", "-hh[:mm]"). Text without
/// a zone is read in the session zone `session_zone` (a local time skipped by a daylight-saving
/// shift moves forward; one that occurs twice takes the earlier offset, as Spark does). The text
/// may also end in any zone id TimeZone::Find accepts ("America/New_York", "UTC+01:00"). With
/// `allow_zone` false (timestamp_ntz) a zone makes the text malformed. Returns µs since epoch.
std::optional<int64_t> ParseSparkTimestamp(std::string_view text, bool allow_zone, const TimeZone& session_zone);
/// As above, with a session zone at the fixed offset `zone_offset_micros` from UTC.
std::optional<int64_t> ParseSparkTimestamp(std::string_view text, bool allow_zone = true,
                                           int64_t zone_offset_micros = 0);

}  // namespace silt::expr
