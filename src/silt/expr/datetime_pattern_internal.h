#pragma once

// Spark's datetime patterns (the letters of DateTimeFormatter that Spark documents), shared by
// date_format/to_timestamp and the JSON and CSV functions' timestampFormat/dateFormat options.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace silt::expr::internal {

/// Formats the wall-clock time `local_micros` (µs since the epoch, read as UTC) with a pattern:
/// y/u, M/L (MMM, MMMM names), d, D, H, h, K (0-11), k (1-24), Q/q (quarter; QQQ "Q1"), G (era),
/// m, s, S (fraction), a, E (EEE, EEEE), the zone offset
/// of the instant (`offset_micros`) as X/XX/XXX ("Z" for zero), x/xx/xxx and Z/ZZ/ZZZ/ZZZZZ,
/// quoted literals ('T', '' for a quote) and optional sections `[...]` (always printed, as every
/// field is present). Throws INVALID_PARAMETER_VALUE for an unsupported letter.
std::string FormatWithPattern(int64_t local_micros, std::string_view pattern, int64_t offset_micros = 0);

/// Parses `text` with a pattern of the letters above (numbers accept up to their width, or more
/// digits for a single letter; MMM/MMMM and E names; a/AM-PM; zone offsets "Z", "+hh", "+hhmm",
/// "+hh:mm"). An optional section `[...]` is skipped when the text does not match it. Returns the
/// wall-clock µs since the epoch, and the offset in `offset_micros` when the text gave one;
/// nullopt when the text does not match the pattern exactly or is not a real date and time.
std::optional<int64_t> ParseWithPattern(std::string_view text, std::string_view pattern,
                                        std::optional<int64_t>* offset_micros = nullptr);

}  // namespace silt::expr::internal
