#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "silt/vector/vector.h"

namespace silt {

/// Java's Double.toString with the shortest round-trip digits: "1.0", "0.001", "1.0E-4",
/// "1.2345678E7", "-0.0", "NaN", "Infinity", "-Infinity". Plain notation when
/// 1e-3 <= |value| < 1e7, scientific otherwise (Spark prints doubles this way).
std::string FormatJavaDouble(double value);
/// Java's Float.toString, with the shortest digits that round-trip through float.
std::string FormatJavaFloat(float value);
/// The unscaled decimal `unscaled` with exactly `scale` fraction digits: (150, 2) -> "1.50",
/// (-5, 2) -> "-0.05", (7, 0) -> "7".
std::string FormatDecimal(Decimal128 unscaled, int scale);
/// Parses decimal text ("1.5", "-0.05", "+12", ".5", "1.5E+3") into the unscaled value of a
/// decimal(precision, scale): extra fraction digits are rounded half away from zero (Spark's
/// HALF_UP). Returns nullopt when the text is malformed or the value needs more than
/// `precision` digits. Used for Delta partition values and literals.
std::optional<Decimal128> ParseDecimal(std::string_view text, int precision, int scale);
/// Spark's ANSI text of a YEAR-MONTH interval of `months` whose type has fields start..end
/// (YearMonthField values): "INTERVAL '1-2' YEAR TO MONTH", "INTERVAL '-1' YEAR",
/// "INTERVAL '14' MONTH". A YEAR interval shows whole years only.
std::string FormatYearMonthInterval(int32_t months, int start, int end);
/// Spark's ANSI text of a DAY-TIME interval of `micros` whose type has fields start..end
/// (DayTimeField values): "INTERVAL '1 02:03:04' DAY TO SECOND", "INTERVAL '02' HOUR",
/// "INTERVAL '-0 00:00:01.5' DAY TO SECOND". Fields after `end` are not shown.
std::string FormatDayTimeInterval(int64_t micros, int start, int end);
/// Spark's show() form of binary: "[01 FF]" (upper-case hex bytes separated by spaces).
std::string FormatBinaryHex(std::string_view bytes);
/// Standard base64 with padding (RFC 4648 §4), as Spark's JSON writer emits binary.
std::string EncodeBase64(std::string_view bytes);

}  // namespace silt
