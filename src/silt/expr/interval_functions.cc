#include "silt/expr/interval_functions.h"

#include <cctype>
#include <cmath>
#include <limits>

#include "silt/base/ascii.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/function_registry.h"
#include "silt/expr/type_coercion.h"
#include "silt/types/date_time.h"
#include "silt/types/time_zone.h"

namespace silt::expr {
namespace {

using internal::MakeCall;
using internal::MapRows;
using internal::ReadInteger;

constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
// Field sizes in microseconds, indexed by DayTimeField.
constexpr int64_t kFieldMicros[] = {kMicrosPerDay, kMicrosPerHour, kMicrosPerMinute, kMicrosPerSecond};
constexpr const char* kDayTimeNames[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
constexpr const char* kYearMonthNames[] = {"YEAR", "MONTH"};
// Dates stay within Spark's supported years; further is an overflow rather than a wrapped value.
constexpr int64_t kMaxYear = 5'000'000;

std::string QuotedType(const DataType& type) {
  std::string name = type.ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

[[noreturn]] void ThrowIncompatible(const std::string& sql, const ExpressionPtr& left, const ExpressionPtr& right) {
  SILT_THROW(DATATYPE_MISMATCH,
             {{"sqlExpr", "\"" + sql + "\""},
              {"message", "the left and right operands of the binary operator have incompatible types (" +
                              QuotedType(*left->type()) + " and " + QuotedType(*right->type()) + ")."}});
}

[[noreturn]] void ThrowBadLiteral(const std::string& value) {
  SILT_THROW(INVALID_TYPED_LITERAL, {{"valueType", "\"INTERVAL\""}, {"value", value}});
}

bool IsDatetime(TypeId id) { return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz; }

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

std::string StripQuotes(const std::string& value) {
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') && value.back() == value.front()) {
    return value.substr(1, value.size() - 2);
  }
  return value;
}

DataTypePtr MakeIntervalType(TypeId id, int start, int end) {
  if (id == TypeId::kYearMonthInterval) {
    return YearMonthIntervalType(static_cast<YearMonthField>(start), static_cast<YearMonthField>(end));
  }
  return DayTimeIntervalType(static_cast<DayTimeField>(start), static_cast<DayTimeField>(end));
}

// Reads unsigned decimal digits at `*position`; nullopt when there are none or they overflow.
std::optional<int64_t> ReadNumber(std::string_view text, size_t* position) {
  size_t begin = *position;
  int64_t value = 0;
  while (*position < text.size() && std::isdigit(static_cast<unsigned char>(text[*position]))) {
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text[*position] - '0', &value)) {
      return std::nullopt;
    }
    ++*position;
  }
  if (*position == begin) return std::nullopt;
  return value;
}

// Reads ".ffffff" (up to 9 digits, truncated to microseconds) at `*position`, if present.
std::optional<int64_t> ReadFractionMicros(std::string_view text, size_t* position) {
  if (*position >= text.size() || text[*position] != '.') return 0;
  ++*position;
  int64_t micros = 0;
  int digits = 0;
  while (*position < text.size() && std::isdigit(static_cast<unsigned char>(text[*position]))) {
    if (digits < 6) micros = micros * 10 + (text[*position] - '0');
    ++digits;
    ++*position;
  }
  if (digits == 0 || digits > 9) return std::nullopt;
  for (int i = digits; i < 6; ++i) micros *= 10;
  return micros;
}

// The bare value of an interval of fields start..end: "[+|-]y-m", "[+|-]d h:m:s.f", ...
std::optional<int64_t> ParseIntervalValue(std::string_view text, TypeId id, int start, int end) {
  size_t position = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    ++position;
  }
  int64_t total = 0;
  if (id == TypeId::kYearMonthInterval) {
    auto first = ReadNumber(text, &position);
    if (!first) return std::nullopt;
    if (start == end) {
      if (start == 0 && __builtin_mul_overflow(*first, 12, &total)) return std::nullopt;
      if (start == 1) total = *first;
    } else {
      if (position >= text.size() || text[position] != '-') return std::nullopt;
      ++position;
      auto months = ReadNumber(text, &position);
      if (!months || *months > 11) return std::nullopt;
      if (__builtin_mul_overflow(*first, 12, &total) || __builtin_add_overflow(total, *months, &total)) {
        return std::nullopt;
      }
    }
    if (position != text.size()) return std::nullopt;
    if (negative) total = -total;
    if (total < std::numeric_limits<int32_t>::min() || total > std::numeric_limits<int32_t>::max()) return std::nullopt;
    return total;
  }
  static constexpr int64_t kFieldLimits[] = {0, 23, 59, 59};
  for (int field = start; field <= end; ++field) {
    if (field > start) {
      char separator = field == 1 ? ' ' : ':';
      if (position >= text.size() || text[position] != separator) return std::nullopt;
      ++position;
    }
    auto amount = ReadNumber(text, &position);
    if (!amount || (field > start && *amount > kFieldLimits[field])) return std::nullopt;
    int64_t micros = 0;
    if (__builtin_mul_overflow(*amount, kFieldMicros[field], &micros) || __builtin_add_overflow(total, micros, &total)) {
      return std::nullopt;
    }
    if (field == 3) {
      auto fraction = ReadFractionMicros(text, &position);
      if (!fraction || __builtin_add_overflow(total, *fraction, &total)) return std::nullopt;
    }
  }
  if (position != text.size()) return std::nullopt;
  return negative ? -total : total;
}

// Adds `value` of `unit` (a multi-unit literal part) to `months` or `micros`; seconds and
// smaller units may have a fraction. Returns the DayTimeField/YearMonthField the unit counts as.
int AddLiteralUnit(const std::string& written, std::string unit, int64_t& months, int64_t& micros,
                   bool& year_month) {
  if (unit.size() > 1 && unit.back() == 'S') unit.pop_back();  // DAYS, HOURS, ...
  std::string value = StripQuotes(written);
  std::string_view text = Trim(value);
  bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
  size_t position = 0;
  auto whole = ReadNumber(text, &position);
  if (!whole) ThrowBadLiteral(written);
  if (unit == "YEAR" || unit == "MONTH") {
    year_month = true;
    int64_t amount = *whole;
    if (position != text.size() || (unit == "YEAR" && __builtin_mul_overflow(amount, 12, &amount))) {
      ThrowBadLiteral(written);
    }
    if (__builtin_add_overflow(months, negative ? -amount : amount, &months)) ThrowBadLiteral(written);
    return unit == "YEAR" ? 0 : 1;
  }
  int64_t unit_micros = 0;
  int field = 3;
  if (unit == "WEEK") unit_micros = 7 * kMicrosPerDay, field = 0;
  if (unit == "DAY") unit_micros = kMicrosPerDay, field = 0;
  if (unit == "HOUR") unit_micros = kMicrosPerHour, field = 1;
  if (unit == "MINUTE") unit_micros = kMicrosPerMinute, field = 2;
  if (unit == "SECOND") unit_micros = kMicrosPerSecond;
  if (unit == "MILLISECOND") unit_micros = 1000;
  if (unit == "MICROSECOND") unit_micros = 1;
  if (unit_micros == 0) ThrowBadLiteral(written + " " + unit);
  int64_t amount = 0;
  if (__builtin_mul_overflow(*whole, unit_micros, &amount)) ThrowBadLiteral(written);
  if (position < text.size() && text[position] == '.') {
    // A fraction of the unit, exact to the microsecond (truncated beyond it).
    ++position;
    int64_t scale = 1;
    int64_t numerator = 0;
    while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
      if (scale < 1'000'000'000) {
        numerator = numerator * 10 + (text[position] - '0');
        scale *= 10;
      }
      ++position;
    }
    amount += static_cast<int64_t>(static_cast<__int128>(numerator) * unit_micros / scale);
  }
  if (position != text.size()) ThrowBadLiteral(written);
  if (__builtin_add_overflow(micros, negative ? -amount : amount, &micros)) ThrowBadLiteral(written);
  return field;
}

void RecordOverflow(EvalContext& context, RowMask mask, int64_t row, bool wide, const char* alternative) {
  if (!mask.Contains(row)) return;
  context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                {{"message", wide ? "long overflow" : "integer overflow"},
                                 {"alternative", std::string(" Use '") + alternative +
                                                     "' to tolerate overflow and return NULL instead."}}));
}

// Appends `value` when it fits the interval type's storage, else records the overflow.
void AppendChecked(VectorBuilder& out, const DataType& type, __int128 value, EvalContext& context, RowMask mask,
                   int64_t row, const char* alternative) {
  const bool wide = type.id() == TypeId::kDayTimeInterval;
  __int128 minimum = wide ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int32_t>::min();
  __int128 maximum = wide ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int32_t>::max();
  if (value < minimum || value > maximum) {
    RecordOverflow(context, mask, row, wide, alternative);
    out.AppendNull();
    return;
  }
  out.AppendInt(static_cast<int64_t>(value));
}

// Java's RoundingMode.HALF_UP: halves round away from zero.
__int128 DivideHalfUp(__int128 numerator, __int128 denominator) {
  __int128 quotient = numerator / denominator;
  __int128 remainder = numerator % denominator;
  __int128 twice = remainder < 0 ? -remainder * 2 : remainder * 2;
  __int128 magnitude = denominator < 0 ? -denominator : denominator;
  if (twice >= magnitude) quotient += ((numerator < 0) != (denominator < 0)) ? -1 : 1;
  return quotient;
}

__int128 Pow10(int exponent) {
  __int128 value = 1;
  for (int i = 0; i < exponent; ++i) value *= 10;
  return value;
}

// Rounds a finite double half up; values beyond int128 saturate (the caller's range check
// then reports the overflow).
__int128 RoundDoubleHalfUp(long double value) {
  long double rounded = value < 0 ? -std::floor(-value + 0.5L) : std::floor(value + 0.5L);
  if (rounded >= 1.0e38L) return Pow10(38);
  if (rounded <= -1.0e38L) return -Pow10(38);
  return static_cast<__int128>(rounded);
}

// Months added to a date: the local day of month clamps to the new month's last day. nullopt
// beyond the supported years.
std::optional<int64_t> AddMonths(int64_t days, int64_t months) {
  CivilDate date = CivilFromDays(days);
  int64_t month_index = date.year * 12 + (date.month - 1) + months;
  int64_t year = month_index >= 0 ? month_index / 12 : -((-month_index + 11) / 12);
  if (year > kMaxYear || year < -kMaxYear) return std::nullopt;
  int month = static_cast<int>(month_index - year * 12) + 1;
  int day = date.day;
  while (!IsValidCivilDate(year, month, day)) --day;
  return DaysFromCivil(year, month, day);
}

ExpressionPtr DatetimePlusInterval(ExpressionPtr datetime, ExpressionPtr interval, bool subtract, const std::string& sql) {
  const DataType& interval_type = *interval->type();
  const bool year_month = interval_type.id() == TypeId::kYearMonthInterval;
  const bool days_only = !year_month && interval_type.interval_end() == static_cast<int>(DayTimeField::kDay);
  TypeId id = datetime->type()->id();
  if (id == TypeId::kString || id == TypeId::kNull) {
    // As Spark, a string (or untyped NULL) operand is read as a date when the interval keeps
    // dates dates, else as a timestamp.
    datetime = Cast(std::move(datetime), year_month || days_only ? DateType() : TimestampType());
    id = datetime->type()->id();
  }
  if (!IsDatetime(id)) {
    SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"" + sql + "\""},
                                   {"message", "the operand " + datetime->ToString() + " has type " +
                                                   QuotedType(*datetime->type()) +
                                                   ", which is not \"DATE\" or \"TIMESTAMP\"."}});
  }
  if (id == TypeId::kDate && !year_month && !days_only) {
    datetime = Cast(std::move(datetime), TimestampType());
    id = TypeId::kTimestamp;
  }
  DataTypePtr type = datetime->type();
  return MakeCall(subtract ? "datetime_subtract_interval" : "datetime_add_interval", type,
                  {std::move(datetime), std::move(interval)},
                  [type, subtract, year_month](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                EvalContext& context, RowMask mask) {
                    const TimeZone* zone =
                        type->id() == TypeId::kTimestamp && year_month ? &context.Zone() : nullptr;
                    const bool is_date = type->id() == TypeId::kDate;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t input = ReadInteger(*args[0], row);
                      int64_t amount = ReadInteger(*args[1], row);
                      auto overflow = [&]() {
                        RecordOverflow(context, mask, row, !is_date, subtract ? "try_subtract" : "try_add");
                        out.AppendNull();
                      };
                      if (subtract && __builtin_sub_overflow(int64_t{0}, amount, &amount)) return overflow();
                      if (is_date) {
                        std::optional<int64_t> days =
                            year_month ? AddMonths(input, amount) : std::optional<int64_t>(input + amount / kMicrosPerDay);
                        if (!days || *days < std::numeric_limits<int32_t>::min() ||
                            *days > std::numeric_limits<int32_t>::max()) {
                          return overflow();
                        }
                        return out.AppendInt(*days);
                      }
                      int64_t result = 0;
                      if (year_month) {
                        // Months move the local date in the session zone; the local time of
                        // day stays, and the new local time maps back with the zone's rules.
                        int64_t local = zone != nullptr ? zone->UtcToLocal(input) : input;
                        int64_t days = local / kMicrosPerDay - (local % kMicrosPerDay < 0 ? 1 : 0);
                        int64_t time_of_day = local - days * kMicrosPerDay;
                        std::optional<int64_t> moved = AddMonths(days, amount);
                        if (!moved || __builtin_mul_overflow(*moved, kMicrosPerDay, &result) ||
                            __builtin_add_overflow(result, time_of_day, &result)) {
                          return overflow();
                        }
                        return out.AppendInt(zone != nullptr ? zone->LocalToUtc(result) : result);
                      }
                      if (__builtin_add_overflow(input, amount, &result)) return overflow();
                      out.AppendInt(result);
                    });
                  });
}

ExpressionPtr SubtractDatetimes(ExpressionPtr left, ExpressionPtr right, const std::string& sql) {
  if (left->type()->id() == TypeId::kDate && right->type()->id() == TypeId::kDate) {
    DataTypePtr type = DayTimeIntervalType(DayTimeField::kDay, DayTimeField::kDay);
    return MakeCall("subtract_dates", type, {std::move(left), std::move(right)},
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t days = ReadInteger(*args[0], row) - ReadInteger(*args[1], row);
                        out.AppendInt(days * kMicrosPerDay);  // |days| < 2^33: cannot overflow
                      });
                    });
  }
  auto common = ComparisonType(left->type(), right->type());
  if (!common) ThrowIncompatible(sql, left, right);
  left = CastIfNeeded(std::move(left), *common);
  right = CastIfNeeded(std::move(right), *common);
  DataTypePtr type = DayTimeIntervalType();
  const bool zoned = (*common)->id() == TypeId::kTimestamp;
  return MakeCall("subtract_timestamps", type, {std::move(left), std::move(right)},
                  [type, zoned](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                RowMask mask) {
                    // As Spark, TIMESTAMPs subtract as local date-times in the session zone (a
                    // day across a DST change is 24 hours).
                    const TimeZone* zone = zoned ? &context.Zone() : nullptr;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t end = ReadInteger(*args[0], row);
                      int64_t start = ReadInteger(*args[1], row);
                      if (zone != nullptr) {
                        end = zone->UtcToLocal(end);
                        start = zone->UtcToLocal(start);
                      }
                      int64_t result = 0;
                      if (__builtin_sub_overflow(end, start, &result)) {
                        RecordOverflow(context, mask, row, true, "try_subtract");
                        return out.AppendNull();
                      }
                      out.AppendInt(result);
                    });
                  });
}

ExpressionPtr AddIntervals(bool subtract, ExpressionPtr left, ExpressionPtr right, const std::string& sql) {
  if (left->type()->id() == TypeId::kNull) left = Cast(std::move(left), right->type());
  if (right->type()->id() == TypeId::kNull) right = Cast(std::move(right), left->type());
  if (left->type()->id() != right->type()->id()) ThrowIncompatible(sql, left, right);
  DataTypePtr type = *WiderType(left->type(), right->type());
  left = CastIfNeeded(std::move(left), type);
  right = CastIfNeeded(std::move(right), type);
  return MakeCall(subtract ? "interval_subtract" : "interval_add", type, {std::move(left), std::move(right)},
                  [type, subtract](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                   RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      __int128 a = ReadInteger(*args[0], row);
                      __int128 b = ReadInteger(*args[1], row);
                      AppendChecked(out, *type, subtract ? a - b : a + b, context, mask, row,
                                    subtract ? "try_subtract" : "try_add");
                    });
                  });
}

// interval * number or interval / number.
ExpressionPtr ScaleInterval(bool divide, ExpressionPtr interval, ExpressionPtr number, const std::string& sql) {
  if (number->type()->id() == TypeId::kNull) number = Cast(std::move(number), DoubleType());
  if (!IsNumeric(*number->type())) ThrowIncompatible(sql, interval, number);
  DataTypePtr type = interval->type()->id() == TypeId::kYearMonthInterval ? YearMonthIntervalType() : DayTimeIntervalType();
  interval = CastIfNeeded(std::move(interval), type);
  const DataTypePtr number_type = number->type();
  const char* alternative = divide ? "try_divide" : "try_multiply";
  return MakeCall(divide ? "interval_divide" : "interval_multiply", type, {std::move(interval), std::move(number)},
                  [type, number_type, divide, alternative](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                            EvalContext& context, RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      const __int128 value = ReadInteger(*args[0], row);
                      const Vector& operand = *args[1];
                      auto divided_by_zero = [&]() {
                        if (mask.Contains(row)) context.RecordError(MakeError(ErrorClass::INTERVAL_DIVIDED_BY_ZERO, {}));
                        out.AppendNull();
                      };
                      if (number_type->id() == TypeId::kFloat || number_type->id() == TypeId::kDouble) {
                        double factor = internal::ReadDouble(operand, row);
                        if (divide && factor == 0) return divided_by_zero();
                        long double result = divide ? static_cast<long double>(value) / factor
                                                    : static_cast<long double>(value) * factor;
                        if (!std::isfinite(result)) {
                          RecordOverflow(context, mask, row, type->id() == TypeId::kDayTimeInterval, alternative);
                          return out.AppendNull();
                        }
                        return AppendChecked(out, *type, RoundDoubleHalfUp(result), context, mask, row, alternative);
                      }
                      __int128 numerator = 0;
                      int scale = 0;
                      if (number_type->id() == TypeId::kDecimal) {
                        numerator = operand.values<Decimal128>()[row];
                        scale = number_type->scale();
                      } else {
                        numerator = ReadInteger(operand, row);
                      }
                      if (divide && numerator == 0) return divided_by_zero();
                      // value * (numerator / 10^scale), or value / (numerator / 10^scale), exactly
                      // in 128 bits when it fits (it always does for integral factors).
                      __int128 product = 0;
                      __int128 scaled = 0;
                      if (!divide && !__builtin_mul_overflow(value, numerator, &product)) {
                        return AppendChecked(out, *type, DivideHalfUp(product, Pow10(scale)), context, mask, row,
                                             alternative);
                      }
                      if (divide && !__builtin_mul_overflow(value, Pow10(scale), &scaled)) {
                        return AppendChecked(out, *type, DivideHalfUp(scaled, numerator), context, mask, row,
                                             alternative);
                      }
                      long double factor = static_cast<long double>(numerator) / static_cast<long double>(Pow10(scale));
                      long double result = divide ? static_cast<long double>(value) / factor
                                                  : static_cast<long double>(value) * factor;
                      AppendChecked(out, *type, RoundDoubleHalfUp(result), context, mask, row, alternative);
                    });
                  });
}

}  // namespace

std::optional<Scalar> AnsiIntervalLiteral(const std::vector<std::pair<std::string, std::string>>& parts) {
  if (parts.empty()) ThrowBadLiteral("");
  for (const auto& part : parts) {
    if (part.second.empty()) return std::nullopt;  // `INTERVAL '1 day'`: a calendar interval
  }
  size_t to = parts[0].second.find(" TO ");
  if (to != std::string::npos) {
    if (parts.size() != 1) return std::nullopt;
    std::string from_name = parts[0].second.substr(0, to);
    std::string to_name = parts[0].second.substr(to + 4);
    DataTypePtr type;
    if (from_name == "YEAR" && to_name == "MONTH") {
      type = YearMonthIntervalType();
    } else {
      int start = -1, end = -1;
      for (int i = 0; i < 4; ++i) {
        if (from_name == kDayTimeNames[i]) start = i;
        if (to_name == kDayTimeNames[i]) end = i;
      }
      if (start < 0 || end <= start) ThrowBadLiteral(parts[0].first + " " + parts[0].second);
      type = MakeIntervalType(TypeId::kDayTimeInterval, start, end);
    }
    std::string value = StripQuotes(parts[0].first);
    auto parsed = ParseIntervalValue(Trim(value), type->id(), type->interval_start(), type->interval_end());
    if (!parsed) ThrowBadLiteral(parts[0].first);
    return Scalar::Interval(*parsed, type);
  }
  int64_t months = 0;
  int64_t micros = 0;
  int year_month_start = 2, year_month_end = -1;
  int day_time_start = 4, day_time_end = -1;
  for (const auto& [written, unit] : parts) {
    if (unit.find(" TO ") != std::string::npos) return std::nullopt;
    bool year_month = false;
    int field = AddLiteralUnit(written, unit, months, micros, year_month);
    if (year_month) {
      year_month_start = std::min(year_month_start, field);
      year_month_end = std::max(year_month_end, field);
    } else {
      day_time_start = std::min(day_time_start, field);
      day_time_end = std::max(day_time_end, field);
    }
  }
  if (year_month_end >= 0 && day_time_end >= 0) return std::nullopt;  // mixed: a calendar interval
  if (year_month_end >= 0) {
    if (months < std::numeric_limits<int32_t>::min() || months > std::numeric_limits<int32_t>::max()) {
      ThrowBadLiteral(parts[0].first);
    }
    return Scalar::Interval(months, MakeIntervalType(TypeId::kYearMonthInterval, year_month_start, year_month_end));
  }
  return Scalar::Interval(micros, MakeIntervalType(TypeId::kDayTimeInterval, day_time_start, day_time_end));
}

std::optional<int64_t> ParseIntervalText(std::string_view text, const DataType& type) {
  SILT_CHECK(type.is_interval(), "ParseIntervalText needs an interval type");
  text = Trim(text);
  const int start = type.interval_start();
  const int end = type.interval_end();
  if (text.size() > 8 && EqualsIgnoreCase(text.substr(0, 8), "INTERVAL") &&
      std::isspace(static_cast<unsigned char>(text[8]))) {
    // INTERVAL [+|-]'value' FIELD [TO FIELD], with the type's own fields.
    std::string_view rest = Trim(text.substr(8));
    bool negative = false;
    if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
      negative = rest[0] == '-';
      rest = Trim(rest.substr(1));
    }
    if (rest.empty() || rest[0] != '\'') return std::nullopt;
    size_t close = rest.find('\'', 1);
    if (close == std::string_view::npos) return std::nullopt;
    std::string_view value = rest.substr(1, close - 1);
    const char* const* names = type.id() == TypeId::kYearMonthInterval ? kYearMonthNames : kDayTimeNames;
    std::string expected = names[start];
    if (start != end) expected += std::string(" TO ") + names[end];
    // Compare the qualifier with single spaces between its words.
    std::string qualifier;
    for (char c : Trim(rest.substr(close + 1))) {
      if (std::isspace(static_cast<unsigned char>(c))) {
        if (!qualifier.empty() && qualifier.back() != ' ') qualifier += ' ';
      } else {
        qualifier += c;
      }
    }
    if (!EqualsIgnoreCase(qualifier, expected)) return std::nullopt;
    auto parsed = ParseIntervalValue(Trim(value), type.id(), start, end);
    if (!parsed) return std::nullopt;
    return negative ? -*parsed : *parsed;
  }
  return ParseIntervalValue(text, type.id(), start, end);
}

ExpressionPtr IntervalArithmetic(ArithmeticOperator op, ExpressionPtr left, ExpressionPtr right) {
  static const char* const kSymbols[] = {"+", "-", "*", "/", "%"};
  const std::string sql = "(" + left->ToString() + " " + kSymbols[static_cast<int>(op)] + " " + right->ToString() + ")";
  const TypeId l = left->type()->id();
  const TypeId r = right->type()->id();
  const bool left_interval = left->type()->is_interval();
  const bool right_interval = right->type()->is_interval();
  if (!left_interval && !right_interval) {
    if (op == ArithmeticOperator::kSubtract && IsDatetime(l) && IsDatetime(r)) {
      return SubtractDatetimes(std::move(left), std::move(right), sql);
    }
    // DATE +/- INT (TINYINT, SMALLINT) and INT + DATE are date_add/date_sub, as Spark rewrites them.
    auto days_type = [](TypeId id) { return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger; };
    const FunctionRegistry& functions = FunctionRegistry::Default();
    if (l == TypeId::kDate && days_type(r) && (op == ArithmeticOperator::kAdd || op == ArithmeticOperator::kSubtract)) {
      return functions.Bind(op == ArithmeticOperator::kAdd ? "date_add" : "date_sub", {std::move(left), std::move(right)});
    }
    if (op == ArithmeticOperator::kAdd && days_type(l) && r == TypeId::kDate) {
      return functions.Bind("date_add", {std::move(right), std::move(left)});
    }
    return nullptr;
  }
  auto datetime_like = [](TypeId id) { return IsDatetime(id) || id == TypeId::kString; };
  switch (op) {
    case ArithmeticOperator::kAdd:
      if (left_interval && right_interval) return AddIntervals(false, std::move(left), std::move(right), sql);
      if (left_interval && (datetime_like(r) || r == TypeId::kNull)) {
        if (r == TypeId::kNull) return AddIntervals(false, std::move(left), std::move(right), sql);
        return DatetimePlusInterval(std::move(right), std::move(left), false, sql);
      }
      if (right_interval && (datetime_like(l) || l == TypeId::kNull)) {
        if (l == TypeId::kNull) return AddIntervals(false, std::move(left), std::move(right), sql);
        return DatetimePlusInterval(std::move(left), std::move(right), false, sql);
      }
      break;
    case ArithmeticOperator::kSubtract:
      if (left_interval && (right_interval || r == TypeId::kNull)) {
        return AddIntervals(true, std::move(left), std::move(right), sql);
      }
      if (right_interval && l == TypeId::kNull) return AddIntervals(true, std::move(left), std::move(right), sql);
      if (right_interval && datetime_like(l)) return DatetimePlusInterval(std::move(left), std::move(right), true, sql);
      break;
    case ArithmeticOperator::kMultiply:
      if (left_interval && !right_interval) return ScaleInterval(false, std::move(left), std::move(right), sql);
      if (right_interval && !left_interval) return ScaleInterval(false, std::move(right), std::move(left), sql);
      break;
    case ArithmeticOperator::kDivide:
      if (left_interval && !right_interval) return ScaleInterval(true, std::move(left), std::move(right), sql);
      break;
    case ArithmeticOperator::kRemainder:
      break;
  }
  ThrowIncompatible(sql, left, right);
}

ExpressionPtr NegateInterval(ExpressionPtr operand) {
  DataTypePtr type = operand->type();
  SILT_CHECK(type->is_interval(), "NegateInterval needs an interval operand");
  return MakeCall("negative", type, {std::move(operand)},
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      AppendChecked(out, *type, -static_cast<__int128>(ReadInteger(*args[0], row)), context, mask, row,
                                    "try_subtract");
                    });
                  });
}

namespace internal {

bool CanCastToInterval(const DataType& from, const DataType& to) {
  return from.id() == TypeId::kString || from.id() == TypeId::kNull || from.id() == to.id();
}

VectorPtr CastToInterval(const VectorPtr& input, const DataTypePtr& to, ErrorMode mode, EvalContext& context,
                         RowMask mask) {
  const Vector& source = *input;
  const int64_t num_rows = source.length();
  if (source.type_id() == TypeId::kNull) return Vector::MakeAllNull(to, num_rows);
  SILT_CHECK(CanCastToInterval(*source.type(), *to), "CastToInterval from " + source.type()->ToString());
  const bool raise = mode == ErrorMode::kSession && context.ansi;
  VectorBuilder out(to, num_rows);
  for (int64_t row = 0; row < num_rows; ++row) {
    if (source.IsNull(row)) {
      out.AppendNull();
      continue;
    }
    if (source.type_id() == TypeId::kString) {
      std::string_view text = source.GetString(row);
      auto value = ParseIntervalText(text, *to);
      if (value) {
        out.AppendInt(*value);
        continue;
      }
      if (raise && mask.Contains(row)) {
        context.RecordError(MakeError(ErrorClass::CAST_INVALID_INPUT, {{"expression", "'" + std::string(text) + "'"},
                                                                       {"sourceType", "\"STRING\""},
                                                                       {"targetType", QuotedType(*to)}}));
      }
      out.AppendNull();
      continue;
    }
    // Between intervals of one kind the value is truncated to the target's last field.
    int64_t value = ReadInteger(source, row);
    if (to->id() == TypeId::kYearMonthInterval) {
      out.AppendInt(to->interval_end() == static_cast<int>(YearMonthField::kYear) ? value / 12 * 12 : value);
    } else {
      int64_t unit = kFieldMicros[to->interval_end()];
      out.AppendInt(value / unit * unit);
    }
  }
  return out.Finish();
}

}  // namespace internal
}  // namespace silt::expr
