// Date and time functions. Timestamps are UTC instants; their fields, text and truncations are
// those of the local time in the session zone (EvalContext::Zone()) at each instant.

#include <cctype>
#include <cmath>

#include "silt/expr/cast.h"
#include "silt/expr/datetime_pattern_internal.h"
#include "silt/expr/duration_text.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/types/date_time.h"

namespace silt::expr::internal {
namespace {

int64_t FloorDivide(int64_t value, int64_t divisor) {
  return value / divisor - ((value % divisor != 0) && ((value < 0) != (divisor < 0)) ? 1 : 0);
}

int64_t FloorModulo(int64_t value, int64_t divisor) { return value - FloorDivide(value, divisor) * divisor; }

ExpressionPtr DateArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  return ImplicitCast(name, index, std::move(argument), DateType());
}

ExpressionPtr TimestampArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kTimestampNtz) return argument;
  return ImplicitCast(name, index, std::move(argument), TimestampType());
}

ExpressionPtr IntegerArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() != TypeId::kNull && argument->type()->id() != TypeId::kString &&
      !IsIntegral(*argument->type())) {
    ThrowArgumentType(name, index, argument, "\"INT\"");
  }
  return ImplicitCast(name, index, std::move(argument), IntegerType());
}

const char* const kMonthNames[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};
const char* const kDayNames[] = {"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};

std::string Padded(int64_t value, size_t width) {
  std::string digits = std::to_string(value < 0 ? -value : value);
  while (digits.size() < width) digits.insert(digits.begin(), '0');
  return value < 0 ? "-" + digits : digits;
}

// timestamp_seconds of a decimal or floating-point count: the fraction is kept to the
// microsecond (truncated); NaN and infinities give NULL; a count beyond the range raises
// ARITHMETIC_OVERFLOW in ANSI mode.
ExpressionPtr FractionalSecondsToTimestamp(ExpressionPtr seconds) {
  if (seconds->type()->id() == TypeId::kFloat) seconds = Cast(std::move(seconds), DoubleType());
  return MakeCall("timestamp_seconds", TimestampType(), {std::move(seconds)},
                  [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    const Vector& input = *args[0];
                    return MapRows(TimestampType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      bool overflow = false;
                      int64_t micros = 0;
                      if (input.type_id() == TypeId::kDouble) {
                        double value = input.values<double>()[row] * static_cast<double>(kMicrosPerSecond);
                        if (std::isnan(value) || std::isinf(value)) return out.AppendNull();
                        overflow = !(value >= -9.2e18 && value <= 9.2e18);
                        if (!overflow) micros = static_cast<int64_t>(value);
                      } else {
                        int scale = input.type()->scale();
                        Decimal128 scaled = input.values<Decimal128>()[row] * static_cast<Decimal128>(kMicrosPerSecond);
                        for (int i = 0; i < scale; ++i) scaled /= 10;
                        overflow = scaled > INT64_MAX || scaled < INT64_MIN;
                        if (!overflow) micros = static_cast<int64_t>(scaled);
                      }
                      if (overflow) {
                        if (context.ansi && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                        {{"message", "long overflow"}, {"alternative", ""}}));
                        }
                        return out.AppendNull();
                      }
                      out.AppendInt(micros);
                    });
                  });
}

}  // namespace

namespace {

// "+hh:mm" style text of an offset (colon and minutes as the letter count asks), or "Z".
std::string FormatOffset(int64_t offset_micros, char letter, size_t count) {
  int64_t total_minutes = offset_micros / (60 * kMicrosPerSecond);
  bool zero = total_minutes == 0;
  if (letter == 'X' && zero) return "Z";
  if (letter == 'Z' && count == 5 && zero) return "Z";
  std::string sign = total_minutes < 0 ? "-" : "+";
  int64_t magnitude = total_minutes < 0 ? -total_minutes : total_minutes;
  std::string hours = Padded(magnitude / 60, 2);
  std::string minutes = Padded(magnitude % 60, 2);
  if (letter == 'Z') {
    if (count == 4) return zero ? "GMT" : "GMT" + sign + hours + ":" + minutes;
    if (count == 5) return sign + hours + ":" + minutes;
    return sign + hours + minutes;
  }
  if (count == 1) return sign + hours + (magnitude % 60 != 0 ? minutes : "");
  if (count == 2) return sign + hours + minutes;
  return sign + hours + ":" + minutes;
}

}  // namespace

std::string FormatWithPattern(int64_t micros, std::string_view pattern, int64_t offset_micros) {
  int64_t days = FloorDivide(micros, kMicrosPerDay);
  int64_t micros_of_day = FloorModulo(micros, kMicrosPerDay);
  CivilDate date = CivilFromDays(days);
  int64_t hour = micros_of_day / (3600 * kMicrosPerSecond);
  int64_t minute = micros_of_day / (60 * kMicrosPerSecond) % 60;
  int64_t second = micros_of_day / kMicrosPerSecond % 60;
  int64_t fraction = micros_of_day % kMicrosPerSecond;
  std::string out;
  for (size_t i = 0; i < pattern.size();) {
    char letter = pattern[i];
    if (letter == '\'') {
      size_t end = pattern.find('\'', i + 1);
      if (end == i + 1) {
        out += '\'';
        i += 2;
        continue;
      }
      if (end == std::string_view::npos) end = pattern.size();
      out.append(pattern.substr(i + 1, end - i - 1));
      i = end + 1;
      continue;
    }
    if (letter == '[' || letter == ']') {  // every field is present, so optional parts print
      ++i;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(letter))) {
      out += letter;
      ++i;
      continue;
    }
    size_t count = 1;
    while (i + count < pattern.size() && pattern[i + count] == letter) ++count;
    switch (letter) {
      case 'y':
      case 'u':
        out += count == 2 ? Padded(FloorModulo(date.year, 100), 2) : Padded(date.year, count);
        break;
      case 'M':
      case 'L':
        if (count >= 4) out += kMonthNames[date.month - 1];
        else if (count == 3) out += std::string(kMonthNames[date.month - 1]).substr(0, 3);
        else out += Padded(date.month, count);
        break;
      case 'd': out += Padded(date.day, count); break;
      case 'D': out += Padded(days - DaysFromCivil(date.year, 1, 1) + 1, count); break;
      case 'H': out += Padded(hour, count); break;
      case 'h': out += Padded(hour % 12 == 0 ? 12 : hour % 12, count); break;
      case 'K': out += Padded(hour % 12, count); break;
      case 'k': out += Padded(hour == 0 ? 24 : hour, count); break;
      case 'Q':
      case 'q': {
        int quarter = (date.month - 1) / 3 + 1;
        if (count >= 4) out += std::to_string(quarter) + (quarter == 1 ? "st" : quarter == 2 ? "nd" : quarter == 3 ? "rd" : "th") + " quarter";
        else if (count == 3) out += "Q" + std::to_string(quarter);
        else out += Padded(quarter, count);
        break;
      }
      case 'G': out += count >= 4 ? (date.year > 0 ? "Anno Domini" : "Before Christ") : (date.year > 0 ? "AD" : "BC"); break;
      case 'm': out += Padded(minute, count); break;
      case 's': out += Padded(second, count); break;
      case 'a': out += hour < 12 ? "AM" : "PM"; break;
      case 'E': {
        int weekday = static_cast<int>(FloorModulo(days + 3, 7));  // 1970-01-01 was a Thursday
        out += count >= 4 ? kDayNames[weekday] : std::string(kDayNames[weekday]).substr(0, 3);
        break;
      }
      case 'S': {
        std::string digits = Padded(fraction, 6);
        if (count <= 6) out += digits.substr(0, count);
        else out += digits + std::string(count - 6, '0');
        break;
      }
      case 'X':
      case 'x':
      case 'Z': out += FormatOffset(offset_micros, letter, count); break;
      default:
        SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`format`"}, {"functionName", "`date_format`"},
                                             {"message", "unsupported pattern letter '" + std::string(1, letter) + "'."}});
    }
    i += count;
  }
  return out;
}

namespace {

// Date parts as functions of days (for dates) or µs (for timestamps).
template <typename Part>
void RegisterDatePart(FunctionRegistry& registry, std::string_view name, Part part) {
  registry.Register(name, [name, part](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 1);
    arguments[0] = DateArgument(name, 0, std::move(arguments[0]));
    return MakeCall(name, IntegerType(), std::move(arguments),
                    [part](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t days = args[0]->values<int32_t>()[row];
                        out.AppendInt(part(days, CivilFromDays(days)));
                      });
                    });
  });
}

void RegisterTimePart(FunctionRegistry& registry, std::string_view name, int64_t unit, int64_t modulo) {
  registry.Register(name, [name, unit, modulo](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 1);
    arguments[0] = TimestampArgument(name, 0, std::move(arguments[0]));
    return MakeCall(name, IntegerType(), std::move(arguments),
                    [unit, modulo](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      const TimeZone* zone = args[0]->type_id() == TypeId::kTimestamp ? &context.Zone() : nullptr;
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t value = args[0]->values<int64_t>()[row];
                        int64_t micros = FloorModulo(zone != nullptr ? zone->UtcToLocal(value) : value, kMicrosPerDay);
                        out.AppendInt(micros / unit % modulo);
                      });
                    });
  });
}

int32_t AddMonths(int64_t days, int64_t months) {
  CivilDate date = CivilFromDays(days);
  int64_t month_index = date.year * 12 + (date.month - 1) + months;
  int64_t year = FloorDivide(month_index, 12);
  int month = static_cast<int>(FloorModulo(month_index, 12)) + 1;
  int day = date.day;
  while (!IsValidCivilDate(year, month, day)) --day;  // clamp to the month's last day
  return static_cast<int32_t>(DaysFromCivil(year, month, day));
}

int64_t TruncateTimestamp(int64_t micros, const std::string& unit, bool* known) {
  *known = true;
  int64_t days = FloorDivide(micros, kMicrosPerDay);
  CivilDate date = CivilFromDays(days);
  if (unit == "YEAR" || unit == "YYYY" || unit == "YY") return DaysFromCivil(date.year, 1, 1) * kMicrosPerDay;
  if (unit == "QUARTER") return DaysFromCivil(date.year, (date.month - 1) / 3 * 3 + 1, 1) * kMicrosPerDay;
  if (unit == "MONTH" || unit == "MM" || unit == "MON") return DaysFromCivil(date.year, date.month, 1) * kMicrosPerDay;
  if (unit == "WEEK") return (days - FloorModulo(days + 3, 7)) * kMicrosPerDay;  // weeks start on Monday
  if (unit == "DAY" || unit == "DD") return days * kMicrosPerDay;
  if (unit == "HOUR") return FloorDivide(micros, 3600 * kMicrosPerSecond) * 3600 * kMicrosPerSecond;
  if (unit == "MINUTE") return FloorDivide(micros, 60 * kMicrosPerSecond) * 60 * kMicrosPerSecond;
  if (unit == "SECOND") return FloorDivide(micros, kMicrosPerSecond) * kMicrosPerSecond;
  if (unit == "MILLISECOND") return FloorDivide(micros, 1000) * 1000;
  if (unit == "MICROSECOND") return micros;
  *known = false;
  return 0;
}

// date_trunc of an instant in `zone`, as Spark's truncTimestamp: units up to a day keep the
// instant's offset when the truncated wall clock still has it (Java's truncatedTo), so that an
// hour inside a repeated (overlap) hour stays in it; larger units start at the first instant of
// the truncated day.
int64_t TruncateInZone(int64_t micros, const std::string& unit, const TimeZone& zone, bool* known) {
  int64_t offset = zone.OffsetAt(micros);
  int64_t local = TruncateTimestamp(micros + offset, unit, known);
  if (!*known) return 0;
  bool time_unit = unit == "DAY" || unit == "DD" || unit == "HOUR" || unit == "MINUTE" || unit == "SECOND" ||
                   unit == "MILLISECOND" || unit == "MICROSECOND";
  if (time_unit && zone.OffsetAt(local - offset) == offset) return local - offset;
  return zone.LocalToUtc(local);
}

std::string UpperCase(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// The fields read so far by a pattern; copied to try an optional section.
struct PatternFields {
  int64_t year = 1970, month = 1, day = 1, hour = 0, minute = 0, second = 0, fraction = 0;
  int64_t day_of_year = 0;  // D; 0 when the pattern has none
  bool afternoon = false, twelve_hour = false;
  std::optional<int64_t> offset;
  size_t position = 0;
};

// The index of the ']' closing the '[' at `open` (nested sections and quotes skipped), or npos.
size_t ClosingBracket(std::string_view pattern, size_t open) {
  int depth = 0;
  for (size_t i = open; i < pattern.size(); ++i) {
    if (pattern[i] == '\'') {
      size_t end = pattern.find('\'', i + 1);
      if (end == std::string_view::npos) return std::string_view::npos;
      i = end;
    } else if (pattern[i] == '[') {
      ++depth;
    } else if (pattern[i] == ']' && --depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

// A name from `names` (compared case-insensitively, full or its first three letters) at the
// text's position; returns its index and advances, or -1.
int MatchName(std::string_view text, size_t& position, const char* const* names, int count, bool full) {
  for (int i = 0; i < count; ++i) {
    std::string name = full ? std::string(names[i]) : std::string(names[i]).substr(0, 3);
    if (text.size() - position >= name.size() && UpperCase(text.substr(position, name.size())) == UpperCase(name)) {
      position += name.size();
      return i;
    }
  }
  return -1;
}

// Reads `pattern` from fields.position on; false when the text does not match.
bool ParsePatternSection(std::string_view text, std::string_view pattern, PatternFields& fields) {
  size_t& position = fields.position;
  for (size_t i = 0; i < pattern.size();) {
    char letter = pattern[i];
    if (letter == '\'') {
      size_t end = pattern.find('\'', i + 1);
      if (end == std::string_view::npos) end = pattern.size();
      std::string_view literal = pattern.substr(i + 1, end - i - 1);
      if (literal.empty()) literal = "'";
      if (text.substr(position, literal.size()) != literal) return false;
      position += literal.size();
      i = end + 1;
      continue;
    }
    if (letter == '[') {
      size_t close = ClosingBracket(pattern, i);
      if (close == std::string_view::npos) return false;
      PatternFields attempt = fields;
      if (ParsePatternSection(text, pattern.substr(i + 1, close - i - 1), attempt)) fields = attempt;
      i = close + 1;
      continue;
    }
    if (!std::isalpha(static_cast<unsigned char>(letter))) {
      if (position >= text.size() || text[position] != letter) return false;
      ++position;
      ++i;
      continue;
    }
    size_t count = 1;
    while (i + count < pattern.size() && pattern[i + count] == letter) ++count;
    i += count;
    if (letter == 'a') {
      std::string marker = UpperCase(text.substr(position, 2));
      if (marker != "AM" && marker != "PM") return false;
      fields.afternoon = marker == "PM";
      position += 2;
      continue;
    }
    if ((letter == 'M' || letter == 'L') && count >= 3) {
      int month = MatchName(text, position, kMonthNames, 12, count >= 4);
      if (month < 0) return false;
      fields.month = month + 1;
      continue;
    }
    if (letter == 'E') {
      if (MatchName(text, position, kDayNames, 7, count >= 4) < 0) return false;
      continue;
    }
    if (letter == 'X' || letter == 'x' || letter == 'Z') {
      if (position < text.size() && text[position] == 'Z' && letter != 'x') {
        fields.offset = 0;
        ++position;
        continue;
      }
      if (position >= text.size() || (text[position] != '+' && text[position] != '-')) return false;
      bool negative = text[position] == '-';
      ++position;
      auto two_digits = [&](int64_t& value) {
        if (text.size() - position < 2 || !std::isdigit(static_cast<unsigned char>(text[position])) ||
            !std::isdigit(static_cast<unsigned char>(text[position + 1]))) {
          return false;
        }
        value = (text[position] - '0') * 10 + (text[position + 1] - '0');
        position += 2;
        return true;
      };
      int64_t hours = 0, minutes = 0;
      if (!two_digits(hours)) return false;
      if (position < text.size() && text[position] == ':') {
        ++position;
        if (!two_digits(minutes)) return false;
      } else if (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
        if (!two_digits(minutes)) return false;
      }
      if (hours > 18 || minutes > 59) return false;
      int64_t offset = (hours * 60 + minutes) * 60 * kMicrosPerSecond;
      fields.offset = negative ? -offset : offset;
      continue;
    }
    // A single letter reads a variable number of digits; repeated letters read exactly that many.
    size_t maximum = count == 1 ? (letter == 'y' ? 9 : 2) : count;
    if (letter == 'y' && count == 4) maximum = 4;
    if (letter == 'D') maximum = 3;
    size_t start = position;
    int64_t value = 0;
    while (position < text.size() && position - start < maximum && std::isdigit(static_cast<unsigned char>(text[position]))) {
      value = value * 10 + (text[position] - '0');
      ++position;
    }
    size_t digits = position - start;
    if (digits == 0 || (count > 1 && letter != 'S' && digits != count && letter != 'y')) return false;
    switch (letter) {
      case 'y':
      case 'u': fields.year = count == 2 ? 2000 + value : value; break;
      case 'M':
      case 'L': fields.month = value; break;
      case 'd': fields.day = value; break;
      case 'H': fields.hour = value; break;
      case 'h': fields.hour = value; fields.twelve_hour = true; break;
      case 'K':  // 0-11 with a/AM-PM
        if (value > 11) return false;
        fields.hour = value == 0 ? 12 : value;
        fields.twelve_hour = true;
        break;
      case 'k':  // 1-24
        if (value < 1 || value > 24) return false;
        fields.hour = value % 24;
        break;
      case 'm': fields.minute = value; break;
      case 's': fields.second = value; break;
      case 'D':
        if (value < 1) return false;
        fields.day_of_year = value;
        break;
      case 'S':
        fields.fraction = value;
        for (size_t k = digits; k < 6; ++k) fields.fraction *= 10;
        for (size_t k = 6; k < digits; ++k) fields.fraction /= 10;
        break;
      default: return false;
    }
  }
  return true;
}

}  // namespace

std::optional<int64_t> ParseWithPattern(std::string_view text, std::string_view pattern,
                                        std::optional<int64_t>* offset_micros) {
  PatternFields fields;
  if (!ParsePatternSection(text, pattern, fields) || fields.position != text.size()) return std::nullopt;
  int64_t hour = fields.hour;
  if (fields.twelve_hour) {
    if (hour < 1 || hour > 12) return std::nullopt;
    hour = hour % 12 + (fields.afternoon ? 12 : 0);
  }
  int month = static_cast<int>(fields.month);
  int day = static_cast<int>(fields.day);
  if (fields.day_of_year > 0) {
    // The day of the year names the date; a month or day also given must agree with it.
    CivilDate date = CivilFromDays(DaysFromCivil(fields.year, 1, 1) + fields.day_of_year - 1);
    bool month_given = pattern.find_first_of("ML") != std::string_view::npos;
    bool day_given = pattern.find('d') != std::string_view::npos;
    if (date.year != fields.year || (month_given && date.month != month) || (day_given && date.day != day)) {
      return std::nullopt;
    }
    month = date.month;
    day = date.day;
  }
  if (!IsValidCivilDate(fields.year, month, day) || hour > 23 || fields.minute > 59 || fields.second > 59) {
    return std::nullopt;
  }
  if (offset_micros != nullptr) *offset_micros = fields.offset;
  return DaysFromCivil(fields.year, month, day) * kMicrosPerDay +
         ((hour * 60 + fields.minute) * 60 + fields.second) * kMicrosPerSecond + fields.fraction;
}

namespace {

// to_date/to_timestamp[_ntz]/try_to_timestamp with a pattern into `type` (DATE, TIMESTAMP or
// TIMESTAMP_NTZ, which keeps the wall clock): ANSI raises CANNOT_PARSE_TIMESTAMP for text that
// does not match; otherwise (and for the TRY form) the result is NULL.
ExpressionPtr BindParseWithPattern(std::string_view name, std::vector<ExpressionPtr> arguments, DataTypePtr type,
                                   bool try_mode) {
  arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), StringType());
  arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), StringType());
  const bool to_date = type->id() == TypeId::kDate;
  const bool zoned = type->id() == TypeId::kTimestamp;
  return MakeCall(name, type, std::move(arguments),
                  [type, to_date, zoned, try_mode](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                   EvalContext& context, RowMask mask) {
                    const TimeZone* zone = zoned ? &context.Zone() : nullptr;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view text = args[0]->GetString(row);
                      std::string_view pattern = args[1]->GetString(row);
                      std::optional<int64_t> offset;
                      auto micros = ParseWithPattern(text, pattern, &offset);
                      if (!micros) {
                        if (context.ansi && !try_mode && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::CANNOT_PARSE_TIMESTAMP,
                                                        {{"message", "Text '" + std::string(text) +
                                                                         "' could not be parsed with pattern '" +
                                                                         std::string(pattern) + "'"}}));
                        }
                        return out.AppendNull();
                      }
                      if (to_date) return out.AppendInt(FloorDivide(*micros, kMicrosPerDay));
                      if (zone == nullptr) return out.AppendInt(*micros);
                      out.AppendInt(offset ? *micros - *offset : zone->LocalToUtc(*micros));
                    });
                  });
}

}  // namespace

namespace {

// A constant duration argument of window(): Spark's interval string, in microseconds.
int64_t WindowDurationArgument(size_t index, const ExpressionPtr& argument, const char* parameter,
                               bool may_be_zero) {
  if (argument->kind() != ExpressionKind::kLiteral || argument->type()->id() != TypeId::kString ||
      argument->literal().is_null()) {
    ThrowArgumentType("window", index, argument, "a constant \"STRING\"");
  }
  std::string text(argument->literal().GetString());
  std::optional<int64_t> micros = ParseDurationMicros(text);
  if (!micros) {
    SILT_THROW(INVALID_PARAMETER_VALUE,
               {{"parameter", std::string("`") + parameter + "`"},
                {"functionName", "`window`"},
                {"message", "'" + text + "' is not an interval of weeks, days, hours, minutes, "
                            "seconds, milliseconds or microseconds (months and years vary in length)"}});
  }
  if (*micros < 0 || (*micros == 0 && !may_be_zero)) {
    SILT_THROW(INVALID_PARAMETER_VALUE,
               {{"parameter", std::string("`") + parameter + "`"},
                {"functionName", "`window`"},
                {"message", "the " + std::string(parameter) + " (" + text + ") must be greater than 0"}});
  }
  return *micros;
}

// window(time, windowDuration[, slideDuration[, startTime]]): the tumbling time window a row
// falls in, as struct<start, end> of the time column's type (Spark's TimeWindow). A window
// starts at startTime plus a multiple of the duration; a NULL time has a NULL window.
ExpressionPtr BindTimeWindow(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("window", arguments, 2, 4);
  TypeId time_type = arguments[0]->type()->id();
  if (time_type != TypeId::kTimestamp && time_type != TypeId::kTimestampNtz) {
    ThrowArgumentType("window", 0, arguments[0], "\"TIMESTAMP\" or \"TIMESTAMP_NTZ\"");
  }
  int64_t duration = WindowDurationArgument(1, arguments[1], "windowDuration", false);
  int64_t slide = arguments.size() > 2 ? WindowDurationArgument(2, arguments[2], "slideDuration", false)
                                       : duration;
  int64_t start = arguments.size() > 3 ? WindowDurationArgument(3, arguments[3], "startTime", true) : 0;
  if (slide != duration) {
    SILT_THROW(UNSUPPORTED_FEATURE,
               {{"message", "sliding time windows (window() with a slide duration other than its "
                            "window duration)"}});
  }
  if (start >= slide) {
    SILT_THROW(INVALID_PARAMETER_VALUE,
               {{"parameter", "`startTime`"},
                {"functionName", "`window`"},
                {"message", "the start time must be less than the slide duration"}});
  }
  DataTypePtr time = arguments[0]->type();
  DataTypePtr type = StructType({Field{"start", time, true, {}}, Field{"end", time, true, {}}});
  std::vector<ExpressionPtr> time_only{std::move(arguments[0])};
  return MakeCall("window", type, std::move(time_only),
                  [type, duration, start](const std::vector<VectorPtr>& args, int64_t num_rows,
                                          EvalContext&, RowMask) {
                    VectorBuilder out(type, num_rows);
                    const Vector& times = *args[0];
                    for (int64_t row = 0; row < num_rows; ++row) {
                      if (times.IsNull(row)) {
                        out.AppendNull();
                        continue;
                      }
                      int64_t micros = times.values<int64_t>()[row];
                      int64_t remainder = (micros - start) % duration;
                      if (remainder < 0) remainder += duration;
                      int64_t window_start = micros - remainder;
                      out.child(0).AppendInt(window_start);
                      out.child(1).AppendInt(window_start + duration);
                      out.AppendStruct();
                    }
                    return out.Finish();
                  });
}

}  // namespace

void RegisterDatetimeFunctions(FunctionRegistry& registry) {
  registry.Register("window", BindTimeWindow);
  registry.Register("current_timestamp", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("current_timestamp", arguments, 0, 0);
    return MakeCall("current_timestamp", TimestampType(), {},
                    [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext& context, RowMask) {
                      return Scalar::Timestamp(context.statement_timestamp_micros).ToVector(num_rows);
                    });
  });
  registry.Register("now", [&registry](std::vector<ExpressionPtr> arguments) {
    return registry.Bind("current_timestamp", std::move(arguments));
  });
  registry.Register("current_date", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("current_date", arguments, 0, 0);
    return MakeCall("current_date", DateType(), {},
                    [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext& context, RowMask) {
                      auto days = static_cast<int32_t>(
                          FloorDivide(context.Zone().UtcToLocal(context.statement_timestamp_micros), kMicrosPerDay));
                      return Scalar::Date(days).ToVector(num_rows);
                    });
  });
  for (std::string_view name : {"date_add", "date_sub"}) {
    bool subtract = name == "date_sub";
    registry.Register(name, [name, subtract](std::vector<ExpressionPtr> arguments) {
      // date_add(unit, quantity, timestamp) is timestampadd.
      if (!subtract && arguments.size() == 3) return BindUnitTimestampAdd(name, std::move(arguments));
      CheckArgumentCount(name, arguments, 2, subtract ? 2 : 3);
      arguments[0] = DateArgument(name, 0, std::move(arguments[0]));
      arguments[1] = IntegerArgument(name, 1, std::move(arguments[1]));
      return MakeCall(name, DateType(), std::move(arguments),
                      [subtract](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        return MapRows(DateType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          int64_t delta = args[1]->values<int32_t>()[row];
                          out.AppendInt(static_cast<int32_t>(args[0]->values<int32_t>()[row] + (subtract ? -delta : delta)));
                        });
                      });
    });
  }
  // datediff(end, start) in days; with a unit first, timestampdiff.
  for (std::string_view name : {"datediff", "date_diff"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      if (arguments.size() == 3) return BindUnitTimestampDiff(name, std::move(arguments));
      CheckArgumentCount(name, arguments, 2, 3);
      arguments[0] = DateArgument(name, 0, std::move(arguments[0]));
      arguments[1] = DateArgument(name, 1, std::move(arguments[1]));
      return MakeCall(name, IntegerType(), std::move(arguments),
                      [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          out.AppendInt(static_cast<int64_t>(args[0]->values<int32_t>()[row]) - args[1]->values<int32_t>()[row]);
                        });
                      });
    });
  }
  registry.Register("add_months", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("add_months", arguments, 2, 2);
    arguments[0] = DateArgument("add_months", 0, std::move(arguments[0]));
    arguments[1] = IntegerArgument("add_months", 1, std::move(arguments[1]));
    return MakeCall("add_months", DateType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(DateType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendInt(AddMonths(args[0]->values<int32_t>()[row], args[1]->values<int32_t>()[row]));
                      });
                    });
  });
  registry.Register("to_date", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("to_date", arguments, 1, 2);
    if (arguments.size() == 2) return BindParseWithPattern("to_date", std::move(arguments), DateType(), false);
    return Cast(arguments[0], DateType());
  });
  registry.Register("to_timestamp", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("to_timestamp", arguments, 1, 2);
    if (arguments.size() == 2) return BindParseWithPattern("to_timestamp", std::move(arguments), TimestampType(), false);
    return Cast(arguments[0], TimestampType());
  });
  registry.Register("to_timestamp_ltz", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("to_timestamp_ltz", arguments, 1, 2);
    if (arguments.size() == 2) return BindParseWithPattern("to_timestamp_ltz", std::move(arguments), TimestampType(), false);
    return Cast(arguments[0], TimestampType());
  });
  registry.Register("to_timestamp_ntz", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("to_timestamp_ntz", arguments, 1, 2);
    if (arguments.size() == 2) {
      return BindParseWithPattern("to_timestamp_ntz", std::move(arguments), TimestampNtzType(), false);
    }
    return Cast(arguments[0], TimestampNtzType());
  });
  registry.Register("try_to_timestamp", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("try_to_timestamp", arguments, 1, 2);
    if (arguments.size() == 2) return BindParseWithPattern("try_to_timestamp", std::move(arguments), TimestampType(), true);
    return Cast(arguments[0], TimestampType(), ErrorMode::kTry);
  });
  registry.Register("date_format", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("date_format", arguments, 2, 2);
    arguments[0] = TimestampArgument("date_format", 0, std::move(arguments[0]));
    arguments[1] = ImplicitCast("date_format", 1, std::move(arguments[1]), StringType());
    return MakeCall("date_format", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      const TimeZone* zone = args[0]->type_id() == TypeId::kTimestamp ? &context.Zone() : nullptr;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t value = args[0]->values<int64_t>()[row];
                        out.AppendString(FormatWithPattern(zone != nullptr ? zone->UtcToLocal(value) : value,
                                                           args[1]->GetString(row),
                                                           zone != nullptr ? zone->OffsetAt(value) : 0));
                      });
                    });
  });
  registry.Register("from_unixtime", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("from_unixtime", arguments, 1, 2);
    arguments[0] = ImplicitCast("from_unixtime", 0, std::move(arguments[0]), LongType());
    if (arguments.size() < 2) arguments.push_back(Literal(Scalar::String("yyyy-MM-dd HH:mm:ss")));
    arguments[1] = ImplicitCast("from_unixtime", 1, std::move(arguments[1]), StringType());
    return MakeCall("from_unixtime", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      const TimeZone& zone = context.Zone();
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t seconds = args[0]->values<int64_t>()[row];
                        out.AppendString(FormatWithPattern(zone.UtcToLocal(seconds * kMicrosPerSecond), args[1]->GetString(row)));
                      });
                    });
  });
  registry.Register("unix_timestamp", [&registry](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("unix_timestamp", arguments, 0, 2);
    // With a format, the text is parsed as to_timestamp(text, format) does.
    if (arguments.size() == 2) arguments = {registry.Bind("to_timestamp", std::move(arguments))};
    if (arguments.empty()) {
      return MakeCall("unix_timestamp", LongType(), {},
                      [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext& context, RowMask) {
                        return Scalar::Long(FloorDivide(context.statement_timestamp_micros, kMicrosPerSecond)).ToVector(num_rows);
                      });
    }
    arguments[0] = TimestampArgument("unix_timestamp", 0, std::move(arguments[0]));
    return MakeCall("unix_timestamp", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendInt(FloorDivide(args[0]->values<int64_t>()[row], kMicrosPerSecond));
                      });
                    });
  });
  struct EpochFunction {
    std::string_view name;
    int64_t micros_per_unit;
  };
  for (EpochFunction function : {EpochFunction{"timestamp_seconds", kMicrosPerSecond},
                                 EpochFunction{"timestamp_millis", 1000}, EpochFunction{"timestamp_micros", 1}}) {
    registry.Register(function.name, [function](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(function.name, arguments, 1, 1);
      TypeId input = arguments[0]->type()->id();
      if (function.name == "timestamp_seconds" &&
          (input == TypeId::kDecimal || input == TypeId::kFloat || input == TypeId::kDouble)) {
        return FractionalSecondsToTimestamp(std::move(arguments[0]));
      }
      if (arguments[0]->type()->id() != TypeId::kNull && !IsIntegral(*arguments[0]->type())) {
        ThrowArgumentType(function.name, 0, arguments[0], "\"INTEGRAL\"");
      }
      arguments[0] = ImplicitCast(function.name, 0, std::move(arguments[0]), LongType());
      return MakeCall(function.name, TimestampType(), std::move(arguments),
                      [function](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                        return MapRows(TimestampType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          int64_t micros = 0;
                          if (__builtin_mul_overflow(args[0]->values<int64_t>()[row], function.micros_per_unit, &micros)) {
                            if (context.ansi && mask.Contains(row)) {
                              context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                            {{"message", "long overflow"}, {"alternative", ""}}));
                            }
                            return out.AppendNull();
                          }
                          out.AppendInt(micros);
                        });
                      });
    });
  }
  registry.Register("make_date", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("make_date", arguments, 3, 3);
    for (size_t i = 0; i < 3; ++i) arguments[i] = IntegerArgument("make_date", i, std::move(arguments[i]));
    return MakeCall("make_date", DateType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return MapRows(DateType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t year = args[0]->values<int32_t>()[row];
                        int month = args[1]->values<int32_t>()[row];
                        int day = args[2]->values<int32_t>()[row];
                        if (!IsValidCivilDate(year, month, day) || year < 1 || year > 9999) {
                          if (context.ansi && mask.Contains(row)) {
                            context.RecordError(MakeError(ErrorClass::DATETIME_FIELD_OUT_OF_BOUNDS,
                                                          {{"rangeMessage", "Invalid date " + std::to_string(year) + "-" +
                                                                                std::to_string(month) + "-" + std::to_string(day)}}));
                          }
                          return out.AppendNull();
                        }
                        out.AppendInt(DaysFromCivil(year, month, day));
                      });
                    });
  });
  registry.Register("date_trunc", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("date_trunc", arguments, 2, 2);
    arguments[0] = ImplicitCast("date_trunc", 0, std::move(arguments[0]), StringType());
    arguments[1] = TimestampArgument("date_trunc", 1, std::move(arguments[1]));
    return MakeCall("date_trunc", TimestampType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      // Truncation happens on the local wall clock; an unknown unit gives NULL.
                      const TimeZone* zone = args[1]->type_id() == TypeId::kTimestamp ? &context.Zone() : nullptr;
                      VectorBuilder out(TimestampType(), num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        bool known = false;
                        int64_t value = 0;
                        if (AllValid(args, row)) {
                          int64_t micros = args[1]->values<int64_t>()[row];
                          if (zone == nullptr) {
                            value = TruncateTimestamp(micros, UpperCase(args[0]->GetString(row)), &known);
                          } else {
                            value = TruncateInZone(micros, UpperCase(args[0]->GetString(row)), *zone, &known);
                          }
                        }
                        if (known) out.AppendInt(value); else out.AppendNull();
                      }
                      return out.Finish();
                    });
  });
  RegisterDatePart(registry, "year", [](int64_t, const CivilDate& date) { return date.year; });
  RegisterDatePart(registry, "quarter", [](int64_t, const CivilDate& date) { return (date.month - 1) / 3 + 1; });
  RegisterDatePart(registry, "month", [](int64_t, const CivilDate& date) { return date.month; });
  RegisterDatePart(registry, "day", [](int64_t, const CivilDate& date) { return date.day; });
  RegisterDatePart(registry, "dayofmonth", [](int64_t, const CivilDate& date) { return date.day; });
  RegisterDatePart(registry, "dayofweek", [](int64_t days, const CivilDate&) {
    return FloorModulo(days + 4, 7) + 1;  // 1 = Sunday
  });
  RegisterDatePart(registry, "dayofyear", [](int64_t days, const CivilDate& date) {
    return days - DaysFromCivil(date.year, 1, 1) + 1;
  });
  RegisterTimePart(registry, "hour", 3600 * kMicrosPerSecond, 24);
  RegisterTimePart(registry, "minute", 60 * kMicrosPerSecond, 60);
  RegisterTimePart(registry, "second", kMicrosPerSecond, 60);
}

}  // namespace silt::expr::internal
