#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace silt {

/// A day of the proleptic Gregorian calendar (the calendar of Spark 3 and Delta).
struct CivilDate {
  int64_t year = 1970;
  int month = 1;  ///< 1..12
  int day = 1;    ///< 1..31

  bool operator==(const CivilDate& other) const = default;
};

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerDay = 86'400 * kMicrosPerSecond;

/// Returns the date `days` days after 1970-01-01 (negative: before).
CivilDate CivilFromDays(int64_t days);
/// Returns the number of days from 1970-01-01 to the given date. The date is not validated.
int64_t DaysFromCivil(int64_t year, int month, int day);
/// True for a valid month 1..12 and day within that month of `year`.
bool IsValidCivilDate(int64_t year, int month, int day);

/// Formats days since the epoch as Spark does: "yyyy-MM-dd" (years below 1000 zero-padded to four
/// digits; years before year 1 as "-yyyy", years past 9999 as "+yyyyy").
std::string FormatDate(int64_t days);
/// Formats microseconds since the epoch as "yyyy-MM-dd HH:mm:ss" followed by ".f" with the
/// fraction's trailing zeros trimmed when it is non-zero (Spark's timestamp text form, in UTC).
std::string FormatTimestamp(int64_t micros);

/// Parses "yyyy-MM-dd" (also "yyyy-M-d"; surrounding spaces allowed) into days since the epoch;
/// nullopt when malformed or not a real date.
std::optional<int64_t> ParseDate(std::string_view text);
/// Parses "yyyy-MM-dd", "yyyy-MM-dd HH:mm[:ss[.ffffff]][Z]" ('T' also accepted as separator; up
/// to 9 fraction digits, truncated to microseconds; surrounding spaces allowed) into microseconds
/// since the epoch, reading the text as UTC; nullopt when malformed or out of range. Delta
/// partition values use this form ("2024-01-01 10:00:00", "2024-01-01T10:00:00.000000Z").
/// Other zone offsets are not accepted: callers apply a session time zone themselves.
std::optional<int64_t> ParseTimestamp(std::string_view text);

}  // namespace silt
