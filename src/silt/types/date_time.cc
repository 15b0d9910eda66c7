#include "silt/types/date_time.h"

#include <cstdio>
#include <limits>

namespace silt {
namespace {

// Floor division: the calendar arithmetic below needs rounding towards minus infinity so that
// dates before 1970 and before year 0 come out right.
int64_t FloorDivide(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --quotient;
  return quotient;
}

bool IsLeapYear(int64_t year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int DaysInMonth(int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && IsLeapYear(year)) return 29;
  return kDays[month - 1];
}

void AppendPadded(std::string& out, int64_t value, int width) {
  char digits[24];
  int length =
      std::snprintf(digits, sizeof(digits), "%0*lld", width, static_cast<long long>(value));
  out.append(digits, static_cast<size_t>(length));
}

// A tiny cursor over the text being parsed.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  bool AtEnd() const { return position_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[position_]; }
  bool Consume(char c) {
    if (Peek() != c) return false;
    ++position_;
    return true;
  }
  /// Reads between `min_digits` and `max_digits` decimal digits.
  bool Digits(int min_digits, int max_digits, int64_t* value, int* count = nullptr) {
    int64_t result = 0;
    int read = 0;
    while (read < max_digits && !AtEnd() && Peek() >= '0' && Peek() <= '9') {
      result = result * 10 + (Peek() - '0');
      ++position_;
      ++read;
    }
    if (read < min_digits) return false;
    *value = result;
    if (count != nullptr) *count = read;
    return true;
  }
  void SkipSpaces() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t')) ++position_;
  }

 private:
  std::string_view text_;
  size_t position_ = 0;
};

bool ScanDate(Scanner& scanner, int64_t* days) {
  int64_t year = 0;
  int64_t month = 0;
  int64_t day = 0;
  bool negative = scanner.Consume('-');
  if (!negative) scanner.Consume('+');
  if (!scanner.Digits(4, 6, &year)) return false;
  if (negative) year = -year;
  if (!scanner.Consume('-') || !scanner.Digits(1, 2, &month)) return false;
  if (!scanner.Consume('-') || !scanner.Digits(1, 2, &day)) return false;
  if (!IsValidCivilDate(year, static_cast<int>(month), static_cast<int>(day))) return false;
  *days = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day));
  return true;
}

}  // namespace

// The algorithm counts in 400-year eras of 146097 days, with years starting on March 1st so that
// the leap day falls at the end of the year.
CivilDate CivilFromDays(int64_t days) {
  int64_t z = days + 719468;  // days from 0000-03-01
  int64_t era = FloorDivide(z, 146097);
  int64_t day_of_era = z - era * 146097;  // [0, 146096]
  int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) /
      365;  // [0, 399]
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t shifted_month = (5 * day_of_year + 2) / 153;  // 0 = March
  CivilDate date;
  date.day = static_cast<int>(day_of_year - (153 * shifted_month + 2) / 5 + 1);
  date.month = static_cast<int>(shifted_month < 10 ? shifted_month + 3 : shifted_month - 9);
  date.year = year_of_era + era * 400 + (date.month <= 2 ? 1 : 0);
  return date;
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  int64_t era = FloorDivide(year, 400);
  int64_t year_of_era = year - era * 400;
  int64_t shifted_month = month > 2 ? month - 3 : month + 9;
  int64_t day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

bool IsValidCivilDate(int64_t year, int month, int day) {
  return month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month);
}

std::string FormatDate(int64_t days) {
  CivilDate date = CivilFromDays(days);
  std::string out;
  out.reserve(12);
  if (date.year < 0) {
    out += '-';
    AppendPadded(out, -date.year, 4);
  } else {
    if (date.year > 9999) out += '+';
    AppendPadded(out, date.year, 4);
  }
  out += '-';
  AppendPadded(out, date.month, 2);
  out += '-';
  AppendPadded(out, date.day, 2);
  return out;
}

std::string FormatTimestamp(int64_t micros) {
  int64_t days = FloorDivide(micros, kMicrosPerDay);
  int64_t micros_of_day = micros - days * kMicrosPerDay;
  int64_t seconds_of_day = micros_of_day / kMicrosPerSecond;
  int64_t fraction = micros_of_day % kMicrosPerSecond;
  std::string out = FormatDate(days);
  out += ' ';
  AppendPadded(out, seconds_of_day / 3600, 2);
  out += ':';
  AppendPadded(out, seconds_of_day / 60 % 60, 2);
  out += ':';
  AppendPadded(out, seconds_of_day % 60, 2);
  if (fraction != 0) {
    std::string digits;
    AppendPadded(digits, fraction, 6);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += '.';
    out += digits;
  }
  return out;
}

std::optional<int64_t> ParseDate(std::string_view text) {
  Scanner scanner(text);
  scanner.SkipSpaces();
  int64_t days = 0;
  if (!ScanDate(scanner, &days)) return std::nullopt;
  scanner.SkipSpaces();
  if (!scanner.AtEnd()) return std::nullopt;
  return days;
}

std::optional<int64_t> ParseTimestamp(std::string_view text) {
  // Trim first, so that a date followed only by spaces is not mistaken for a date and a time.
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  Scanner scanner(text);
  int64_t days = 0;
  if (!ScanDate(scanner, &days)) return std::nullopt;
  int64_t micros_of_day = 0;
  if (scanner.Consume(' ') || scanner.Consume('T')) {
    int64_t hour = 0;
    int64_t minute = 0;
    int64_t second = 0;
    if (!scanner.Digits(1, 2, &hour) || hour > 23) return std::nullopt;
    if (!scanner.Consume(':') || !scanner.Digits(1, 2, &minute) || minute > 59) {
      return std::nullopt;
    }
    if (scanner.Consume(':')) {
      if (!scanner.Digits(1, 2, &second) || second > 59) return std::nullopt;
      if (scanner.Consume('.')) {
        int64_t fraction = 0;
        int count = 0;
        if (!scanner.Digits(1, 9, &fraction, &count)) return std::nullopt;
        // Scale to microseconds; digits past the sixth are truncated as Spark does.
        for (; count < 6; ++count) fraction *= 10;
        for (; count > 6; --count) fraction /= 10;
        micros_of_day += fraction;
      }
    }
    micros_of_day += ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond;
    // An explicit UTC designator, as delta-rs writes timestamp partition values.
    scanner.Consume('Z');
  }
  if (!scanner.AtEnd()) return std::nullopt;
  // int64 microseconds span about ±292,000 years; six-digit years can exceed that.
  constexpr int64_t kMaxDays = std::numeric_limits<int64_t>::max() / kMicrosPerDay - 1;
  if (days > kMaxDays || days < -kMaxDays) return std::nullopt;
  return days * kMicrosPerDay + micros_of_day;
}

}  // namespace silt
