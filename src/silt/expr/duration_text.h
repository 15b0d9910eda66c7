#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace silt::expr {

/// Parses a duration written as Spark's interval strings for time windows and watermark delays:
/// one or more `<number> <unit>` pairs, optionally after the word `interval` and with the
/// number quoted (`10 minutes`, `1 hour 30 minutes`, `interval '10' second`). Units, in any case,
/// singular or plural: week, day, hour, minute, second, millisecond, microsecond. Returns the
/// total in microseconds; nullopt for other text, for a month or year (whose length varies) and
/// on overflow.
std::optional<int64_t> ParseDurationMicros(std::string_view text);

}  // namespace silt::expr
