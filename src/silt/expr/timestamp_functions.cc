// Timestamp construction and arithmetic beyond datetime_functions.cc: [try_]make_timestamp[_ntz|
// _ltz], make_dt_interval, make_ym_interval, timestampadd (dateadd, date_add with a unit),
// timestampdiff (datediff, date_diff, timediff with a unit), months_between, trunc,
// to_utc_timestamp, from_utc_timestamp, convert_timezone, current_timezone, localtimestamp,
// curdate, unix_date/seconds/millis/micros, date_from_unix_date, weekday, dayname, monthname.

#include <cmath>
#include <memory>

#include "silt/base/ascii.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/types/date_time.h"
#include "silt/types/time_zone.h"

namespace silt::expr::internal {
namespace {

constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;

int64_t FloorDivide(int64_t value, int64_t divisor) {
  return value / divisor - ((value % divisor != 0) && ((value < 0) != (divisor < 0)) ? 1 : 0);
}

int64_t FloorModulo(int64_t value, int64_t divisor) { return value - FloorDivide(value, divisor) * divisor; }

// The units of timestampadd and timestampdiff, as Spark's grammar lists them.
enum class DatetimeUnit { kMicrosecond, kMillisecond, kSecond, kMinute, kHour, kDay, kWeek, kMonth, kQuarter, kYear };

std::optional<DatetimeUnit> UnitFromName(std::string_view name) {
  static const std::pair<const char*, DatetimeUnit> kUnits[] = {
      {"MICROSECOND", DatetimeUnit::kMicrosecond}, {"MILLISECOND", DatetimeUnit::kMillisecond},
      {"SECOND", DatetimeUnit::kSecond},           {"MINUTE", DatetimeUnit::kMinute},
      {"HOUR", DatetimeUnit::kHour},               {"DAY", DatetimeUnit::kDay},
      {"DAYOFYEAR", DatetimeUnit::kDay},           {"WEEK", DatetimeUnit::kWeek},
      {"MONTH", DatetimeUnit::kMonth},             {"QUARTER", DatetimeUnit::kQuarter},
      {"YEAR", DatetimeUnit::kYear}};
  for (const auto& [unit_name, unit] : kUnits) {
    if (EqualsIgnoreCase(name, unit_name)) return unit;
  }
  return std::nullopt;
}

// The unit argument: a constant string naming a unit (the parser turns a bare word into one).
DatetimeUnit UnitArgument(std::string_view function, const ExpressionPtr& argument) {
  if (argument->kind() == ExpressionKind::kLiteral && argument->type()->id() == TypeId::kString &&
      !argument->literal().is_null()) {
    std::string_view name = argument->literal().GetString();
    if (auto unit = UnitFromName(name)) return *unit;
    SILT_THROW(INVALID_PARAMETER_VALUE,
               {{"parameter", "`unit`"},
                {"functionName", "`" + std::string(function) + "`"},
                {"message", "expects one of the units without quotes YEAR, QUARTER, MONTH, WEEK, DAY, DAYOFYEAR, "
                            "HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, but got the string literal '" +
                                std::string(name) + "'."}});
  }
  ThrowArgumentType(function, 0, argument, "a constant unit");
}

ExpressionPtr TimestampArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kTimestampNtz) return argument;
  return ImplicitCast(name, index, std::move(argument), TimestampType());
}

void RecordOverflow(EvalContext& context, RowMask mask, int64_t row, const std::string& message) {
  if (context.ansi && mask.Contains(row)) {
    context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW, {{"message", message}, {"alternative", ""}}));
  }
}

// The local date-time `local` plus `months` (day clamped to the month's end) and `days`.
std::optional<int64_t> AddCalendar(int64_t local, int64_t months, int64_t days) {
  int64_t day_number = FloorDivide(local, kMicrosPerDay);
  int64_t time_of_day = FloorModulo(local, kMicrosPerDay);
  if (months != 0) {
    CivilDate date = CivilFromDays(day_number);
    int64_t month_index = 0;
    if (__builtin_add_overflow(date.year * 12 + (date.month - 1), months, &month_index)) return std::nullopt;
    int64_t year = FloorDivide(month_index, 12);
    if (year > 300000 || year < -300000) return std::nullopt;
    int month = static_cast<int>(FloorModulo(month_index, 12)) + 1;
    int day = date.day;
    while (!IsValidCivilDate(year, month, day)) --day;
    day_number = DaysFromCivil(year, month, day);
  }
  int64_t result = 0;
  if (__builtin_add_overflow(day_number, days, &day_number) ||
      __builtin_mul_overflow(day_number, kMicrosPerDay, &result) ||
      __builtin_add_overflow(result, time_of_day, &result)) {
    return std::nullopt;
  }
  return result;
}

// Spark's timestampAdd: calendar units move the local date-time in the zone (null for
// TIMESTAMP_NTZ), time units move the instant.
std::optional<int64_t> TimestampAdd(DatetimeUnit unit, int64_t quantity, int64_t micros, const TimeZone* zone) {
  int64_t per_unit = 0;
  switch (unit) {
    case DatetimeUnit::kMicrosecond: per_unit = 1; break;
    case DatetimeUnit::kMillisecond: per_unit = 1000; break;
    case DatetimeUnit::kSecond: per_unit = kMicrosPerSecond; break;
    case DatetimeUnit::kMinute: per_unit = kMicrosPerMinute; break;
    case DatetimeUnit::kHour: per_unit = kMicrosPerHour; break;
    default: break;
  }
  if (per_unit != 0) {
    int64_t delta = 0, result = 0;
    if (__builtin_mul_overflow(quantity, per_unit, &delta) || __builtin_add_overflow(micros, delta, &result)) {
      return std::nullopt;
    }
    return result;
  }
  int64_t months = 0, days = 0;
  switch (unit) {
    case DatetimeUnit::kDay: days = quantity; break;
    case DatetimeUnit::kWeek:
      if (__builtin_mul_overflow(quantity, 7, &days)) return std::nullopt;
      break;
    case DatetimeUnit::kMonth: months = quantity; break;
    case DatetimeUnit::kQuarter:
      if (__builtin_mul_overflow(quantity, 3, &months)) return std::nullopt;
      break;
    default:
      if (__builtin_mul_overflow(quantity, 12, &months)) return std::nullopt;
      break;
  }
  int64_t local = zone != nullptr ? zone->UtcToLocal(micros) : micros;
  std::optional<int64_t> moved = AddCalendar(local, months, days);
  if (!moved) return std::nullopt;
  return zone != nullptr ? zone->LocalToUtc(*moved) : *moved;
}

// Spark's timestampDiff: time units from the instants, calendar units as Java's
// ChronoUnit.between of the local date-times (whole units, truncated toward zero).
// nullopt when the difference does not fit in 64 bits of microseconds.
std::optional<int64_t> TimestampDiff(DatetimeUnit unit, int64_t start, int64_t end, const TimeZone* zone) {
  int64_t local_start = start, local_end = end;
  if (unit != DatetimeUnit::kMicrosecond && unit != DatetimeUnit::kMillisecond && unit != DatetimeUnit::kSecond &&
      unit != DatetimeUnit::kMinute && unit != DatetimeUnit::kHour && zone != nullptr) {
    local_start = zone->UtcToLocal(start);
    local_end = zone->UtcToLocal(end);
  }
  int64_t micros = 0;
  if (__builtin_sub_overflow(local_end, local_start, &micros)) return std::nullopt;
  switch (unit) {
    case DatetimeUnit::kMicrosecond: return micros;
    case DatetimeUnit::kMillisecond: return micros / 1000;
    case DatetimeUnit::kSecond: return micros / kMicrosPerSecond;
    case DatetimeUnit::kMinute: return micros / kMicrosPerMinute;
    case DatetimeUnit::kHour: return micros / kMicrosPerHour;
    case DatetimeUnit::kDay: return micros / kMicrosPerDay;
    case DatetimeUnit::kWeek: return micros / (7 * kMicrosPerDay);
    default: break;
  }
  CivilDate from = CivilFromDays(FloorDivide(local_start, kMicrosPerDay));
  CivilDate to = CivilFromDays(FloorDivide(local_end, kMicrosPerDay));
  int64_t months = (to.year * 12 + to.month) - (from.year * 12 + from.month);
  // The rest of each date-time within its month: day, then time of day.
  auto rest = [](const CivilDate& date, int64_t local) {
    return date.day * kMicrosPerDay + FloorModulo(local, kMicrosPerDay);
  };
  int64_t rest_from = rest(from, local_start);
  int64_t rest_to = rest(to, local_end);
  if (months > 0 && rest_to < rest_from) --months;
  if (months < 0 && rest_to > rest_from) ++months;
  if (unit == DatetimeUnit::kQuarter) return months / 3;
  if (unit == DatetimeUnit::kYear) return months / 12;
  return months;
}

ExpressionPtr BindTimestampAdd(std::string_view name, std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount(name, arguments, 3, 3);
  DatetimeUnit unit = UnitArgument(name, arguments[0]);
  ExpressionPtr quantity = ImplicitCast(name, 1, arguments[1], LongType());
  ExpressionPtr timestamp = TimestampArgument(name, 2, arguments[2]);
  DataTypePtr type = timestamp->type();
  bool zoned = type->id() == TypeId::kTimestamp;
  std::string function(name);
  return MakeCall(name, type, {quantity, timestamp},
                  [unit, type, zoned, function](const std::vector<VectorPtr>& args, int64_t num_rows,
                                                EvalContext& context, RowMask mask) {
                    const TimeZone* zone = zoned ? &context.Zone() : nullptr;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::optional<int64_t> result =
                          TimestampAdd(unit, args[0]->values<int64_t>()[row], args[1]->values<int64_t>()[row], zone);
                      if (!result) {
                        RecordOverflow(context, mask, row, "Datetime operation overflow in " + function);
                        return out.AppendNull();
                      }
                      out.AppendInt(*result);
                    });
                  });
}

ExpressionPtr BindTimestampDiff(std::string_view name, std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount(name, arguments, 3, 3);
  DatetimeUnit unit = UnitArgument(name, arguments[0]);
  ExpressionPtr start = TimestampArgument(name, 1, arguments[1]);
  ExpressionPtr end = TimestampArgument(name, 2, arguments[2]);
  // Mixed TIMESTAMP and TIMESTAMP_NTZ compare as TIMESTAMP.
  if (start->type()->id() != end->type()->id()) {
    start = ImplicitCast(name, 1, start, TimestampType());
    end = ImplicitCast(name, 2, end, TimestampType());
  }
  bool zoned = start->type()->id() == TypeId::kTimestamp;
  return MakeCall(name, LongType(), {start, end},
                  [unit, zoned](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                RowMask mask) {
                    const TimeZone* zone = zoned ? &context.Zone() : nullptr;
                    return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::optional<int64_t> difference =
                          TimestampDiff(unit, args[0]->values<int64_t>()[row], args[1]->values<int64_t>()[row], zone);
                      if (!difference) {
                        RecordOverflow(context, mask, row, "long overflow");
                        return out.AppendNull();
                      }
                      out.AppendInt(*difference);
                    });
                  });
}

// make_timestamp(year, month, day, hour, min, sec[, timezone]) and its _ntz/_ltz forms. `sec`
// is DECIMAL(16,6); 60 seconds with no fraction is the next minute, as in Spark.
ExpressionPtr BindMakeTimestamp(std::string_view name, std::vector<ExpressionPtr> arguments, bool ntz,
                                bool try_mode = false) {
  CheckArgumentCount(name, arguments, 6, ntz ? 6 : 7);
  for (size_t i = 0; i < 5; ++i) arguments[i] = ImplicitCast(name, i, std::move(arguments[i]), IntegerType());
  arguments[5] = ImplicitCast(name, 5, std::move(arguments[5]), DecimalType(16, 6));
  if (arguments.size() == 7) arguments[6] = ImplicitCast(name, 6, std::move(arguments[6]), StringType());
  DataTypePtr type = ntz ? TimestampNtzType() : TimestampType();
  return MakeCall(name, type, std::move(arguments),
                  [type, ntz, try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                        RowMask mask) {
                    std::shared_ptr<const TimeZone> explicit_zone;
                    std::string explicit_zone_id;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      auto fail = [&](const std::string& message) {
                        if (context.ansi && !try_mode && mask.Contains(row)) {
                          context.RecordError(
                              MakeError(ErrorClass::DATETIME_FIELD_OUT_OF_BOUNDS, {{"rangeMessage", message}}));
                        }
                        out.AppendNull();
                      };
                      int64_t year = args[0]->values<int32_t>()[row];
                      int64_t month = args[1]->values<int32_t>()[row];
                      int64_t day = args[2]->values<int32_t>()[row];
                      int64_t hour = args[3]->values<int32_t>()[row];
                      int64_t minute = args[4]->values<int32_t>()[row];
                      Decimal128 second_micros = args[5]->values<Decimal128>()[row];
                      auto range = [](const char* field, int64_t low, int64_t high, int64_t value) {
                        return std::string("Invalid value for ") + field + " (valid values " + std::to_string(low) +
                               " - " + std::to_string(high) + "): " + std::to_string(value);
                      };
                      if (year < -290000 || year > 290000) return fail(range("Year", -290000, 290000, year));
                      if (month < 1 || month > 12) return fail(range("MonthOfYear", 1, 12, month));
                      if (day < 1 || day > 31) return fail(range("DayOfMonth", 1, 31, day));
                      if (!IsValidCivilDate(year, static_cast<int>(month), static_cast<int>(day))) {
                        return fail("Invalid date '" + std::to_string(day) + "' for month " + std::to_string(month) +
                                    " of year " + std::to_string(year));
                      }
                      if (hour < 0 || hour > 23) return fail(range("HourOfDay", 0, 23, hour));
                      if (minute < 0 || minute > 59) return fail(range("MinuteOfHour", 0, 59, minute));
                      int64_t seconds = static_cast<int64_t>(second_micros / kMicrosPerSecond);
                      int64_t fraction = static_cast<int64_t>(second_micros % kMicrosPerSecond);
                      if (seconds == 60 && fraction != 0) {
                        return fail("The fraction of sec must be zero. Valid range is [0, 60]");
                      }
                      if (second_micros < 0 || seconds > 60) return fail(range("SecondOfMinute", 0, 59, seconds));
                      int64_t local = DaysFromCivil(year, static_cast<int>(month), static_cast<int>(day)) * kMicrosPerDay +
                                      hour * kMicrosPerHour + minute * kMicrosPerMinute +
                                      static_cast<int64_t>(second_micros);
                      if (ntz) return out.AppendInt(local);
                      const TimeZone* zone = &context.Zone();
                      if (args.size() == 7) {
                        std::string_view id = args[6]->GetString(row);
                        if (explicit_zone == nullptr || id != explicit_zone_id) {
                          explicit_zone = TimeZone::Find(id);
                          explicit_zone_id = std::string(id);
                        }
                        if (explicit_zone == nullptr) {
                          if (mask.Contains(row)) {
                            context.RecordError(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                                          {{"parameter", "`timezone`"},
                                                           {"functionName", "`make_timestamp`"},
                                                           {"message", "unknown time zone '" + std::string(id) + "'."}}));
                          }
                          return out.AppendNull();
                        }
                        zone = explicit_zone.get();
                      }
                      out.AppendInt(zone->LocalToUtc(local));
                    });
                  });
}

// Spark's monthsBetween: whole months when both days are the same day of the month or both the
// month's last day, otherwise the day and time difference over 31-day months; rounded to 8
// digits unless `round_off` is false.
double MonthsBetween(int64_t first, int64_t second, bool round_off, const TimeZone& zone) {
  int64_t local_first = zone.UtcToLocal(first);
  int64_t local_second = zone.UtcToLocal(second);
  int64_t days_first = FloorDivide(local_first, kMicrosPerDay);
  int64_t days_second = FloorDivide(local_second, kMicrosPerDay);
  CivilDate a = CivilFromDays(days_first);
  CivilDate b = CivilFromDays(days_second);
  double months = static_cast<double>((a.year - b.year) * 12 + (a.month - b.month));
  auto last_day = [](const CivilDate& date) { return !IsValidCivilDate(date.year, date.month, date.day + 1); };
  if (a.day == b.day || (last_day(a) && last_day(b))) return months;
  int64_t seconds_first = (local_first - days_first * kMicrosPerDay) / kMicrosPerSecond;
  int64_t seconds_second = (local_second - days_second * kMicrosPerDay) / kMicrosPerSecond;
  int64_t seconds = (a.day - b.day) * 86400 + seconds_first - seconds_second;
  double difference = months + static_cast<double>(seconds) / (31.0 * 86400);
  return round_off ? std::floor(difference * 1e8 + 0.5) / 1e8 : difference;
}

ExpressionPtr BindMonthsBetween(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("months_between", arguments, 2, 3);
  arguments[0] = ImplicitCast("months_between", 0, std::move(arguments[0]), TimestampType());
  arguments[1] = ImplicitCast("months_between", 1, std::move(arguments[1]), TimestampType());
  if (arguments.size() == 2) arguments.push_back(Literal(Scalar::Boolean(true)));
  if (arguments[2]->type()->id() != TypeId::kBoolean && arguments[2]->type()->id() != TypeId::kNull) {
    ThrowArgumentType("months_between", 2, arguments[2], "\"BOOLEAN\"");
  }
  arguments[2] = ImplicitCast("months_between", 2, std::move(arguments[2]), BooleanType());
  return MakeCall("months_between", DoubleType(), std::move(arguments),
                  [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                    const TimeZone& zone = context.Zone();
                    return MapRows(DoubleType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      out.AppendDouble(MonthsBetween(args[0]->values<int64_t>()[row], args[1]->values<int64_t>()[row],
                                                     args[2]->GetBool(row), zone));
                    });
                  });
}

// trunc(date, unit): the first day of the year, quarter, month or week (Monday); NULL for other
// units.
ExpressionPtr BindTruncDate(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("trunc", arguments, 2, 2);
  arguments[0] = ImplicitCast("trunc", 0, std::move(arguments[0]), DateType());
  arguments[1] = ImplicitCast("trunc", 1, std::move(arguments[1]), StringType());
  return MakeCall("trunc", DateType(), std::move(arguments),
                  [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                    return MapRows(DateType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t days = args[0]->values<int32_t>()[row];
                      std::string_view unit = args[1]->GetString(row);
                      CivilDate date = CivilFromDays(days);
                      if (EqualsIgnoreCase(unit, "YEAR") || EqualsIgnoreCase(unit, "YYYY") || EqualsIgnoreCase(unit, "YY")) {
                        return out.AppendInt(DaysFromCivil(date.year, 1, 1));
                      }
                      if (EqualsIgnoreCase(unit, "QUARTER")) {
                        return out.AppendInt(DaysFromCivil(date.year, (date.month - 1) / 3 * 3 + 1, 1));
                      }
                      if (EqualsIgnoreCase(unit, "MONTH") || EqualsIgnoreCase(unit, "MM") || EqualsIgnoreCase(unit, "MON")) {
                        return out.AppendInt(DaysFromCivil(date.year, date.month, 1));
                      }
                      if (EqualsIgnoreCase(unit, "WEEK")) return out.AppendInt(days - FloorModulo(days + 3, 7));
                      out.AppendNull();
                    });
                  });
}

// A function of one DATE (days) or TIMESTAMP (µs) argument computed from its integer value.
template <typename Function>
void RegisterIntegerFunction(FunctionRegistry& registry, std::string_view name, DataTypePtr input, DataTypePtr output,
                             Function function) {
  registry.Register(name, [name, input, output, function](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 1);
    arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), input);
    return MakeCall(name, output, std::move(arguments),
                    [output, function](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(output, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        function(ReadInteger(*args[0], row), out);
                      });
                    });
  });
}

// convert_timezone([source_zone, ]target_zone, timestamp_ntz): the wall clock in the target zone
// at the instant the source zone's (default: the session's) wall clock shows `timestamp_ntz`.
ExpressionPtr BindConvertTimezone(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("convert_timezone", arguments, 2, 3);
  bool has_source = arguments.size() == 3;
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {
    arguments[i] = ImplicitCast("convert_timezone", i, std::move(arguments[i]), StringType());
  }
  size_t last = arguments.size() - 1;
  arguments[last] = ImplicitCast("convert_timezone", last, std::move(arguments[last]), TimestampNtzType());
  return MakeCall("convert_timezone", TimestampNtzType(), std::move(arguments),
                  [has_source](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    std::shared_ptr<const TimeZone> cached[2];
                    std::string cached_id[2];
                    auto find = [&](size_t slot, std::string_view id, int64_t row) -> const TimeZone* {
                      if (cached[slot] == nullptr || cached_id[slot] != id) {
                        cached[slot] = TimeZone::Find(id);
                        cached_id[slot] = std::string(id);
                      }
                      if (cached[slot] == nullptr && mask.Contains(row)) {
                        context.RecordError(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                                      {{"parameter", "`timezone`"},
                                                       {"functionName", "`convert_timezone`"},
                                                       {"message", "unknown time zone '" + std::string(id) + "'."}}));
                      }
                      return cached[slot].get();
                    };
                    return MapRows(TimestampNtzType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      const TimeZone* source = has_source ? find(0, args[0]->GetString(row), row) : &context.Zone();
                      const TimeZone* target = find(1, args[has_source ? 1 : 0]->GetString(row), row);
                      if (source == nullptr || target == nullptr) return out.AppendNull();
                      int64_t local = args[has_source ? 2 : 1]->values<int64_t>()[row];
                      out.AppendInt(target->UtcToLocal(source->LocalToUtc(local)));
                    });
                  });
}

// to_utc_timestamp / from_utc_timestamp: the instant whose UTC wall clock is the given
// timestamp's wall clock in `timezone`, and the reverse (Spark's convertTz).
ExpressionPtr BindZoneShift(std::string_view name, std::vector<ExpressionPtr> arguments, bool to_utc) {
  CheckArgumentCount(name, arguments, 2, 2);
  arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), TimestampType());
  arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), StringType());
  std::string function(name);
  return MakeCall(name, TimestampType(), std::move(arguments),
                  [to_utc, function](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                     RowMask mask) {
                    std::shared_ptr<const TimeZone> zone;
                    std::string zone_id;
                    return MapRows(TimestampType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view id = args[1]->GetString(row);
                      if (zone == nullptr || id != zone_id) {
                        zone = TimeZone::Find(id);
                        zone_id = std::string(id);
                      }
                      if (zone == nullptr) {
                        if (mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::INVALID_PARAMETER_VALUE,
                                                        {{"parameter", "`timezone`"},
                                                         {"functionName", "`" + function + "`"},
                                                         {"message", "unknown time zone '" + std::string(id) + "'."}}));
                        }
                        return out.AppendNull();
                      }
                      int64_t micros = args[0]->values<int64_t>()[row];
                      out.AppendInt(to_utc ? zone->LocalToUtc(micros) : zone->UtcToLocal(micros));
                    });
                  });
}

// make_dt_interval([days[, hours[, mins[, secs]]]]) and make_ym_interval([years[, months]]).
ExpressionPtr BindMakeDayTimeInterval(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("make_dt_interval", arguments, 0, 4);
  while (arguments.size() < 4) arguments.push_back(Literal(Scalar::Integer(0)));
  for (size_t i = 0; i < 3; ++i) arguments[i] = ImplicitCast("make_dt_interval", i, std::move(arguments[i]), IntegerType());
  arguments[3] = ImplicitCast("make_dt_interval", 3, std::move(arguments[3]), DecimalType(18, 6));
  DataTypePtr type = DayTimeIntervalType();
  return MakeCall("make_dt_interval", type, std::move(arguments),
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      Decimal128 total = args[3]->values<Decimal128>()[row];
                      total += static_cast<Decimal128>(args[0]->values<int32_t>()[row]) * kMicrosPerDay;
                      total += static_cast<Decimal128>(args[1]->values<int32_t>()[row]) * kMicrosPerHour;
                      total += static_cast<Decimal128>(args[2]->values<int32_t>()[row]) * kMicrosPerMinute;
                      if (total > INT64_MAX || total < INT64_MIN) {
                        RecordOverflow(context, mask, row, "long overflow");
                        return out.AppendNull();
                      }
                      out.AppendInt(static_cast<int64_t>(total));
                    });
                  });
}

ExpressionPtr BindMakeYearMonthInterval(std::vector<ExpressionPtr> arguments) {
  CheckArgumentCount("make_ym_interval", arguments, 0, 2);
  while (arguments.size() < 2) arguments.push_back(Literal(Scalar::Integer(0)));
  for (size_t i = 0; i < 2; ++i) arguments[i] = ImplicitCast("make_ym_interval", i, std::move(arguments[i]), IntegerType());
  DataTypePtr type = YearMonthIntervalType();
  return MakeCall("make_ym_interval", type, std::move(arguments),
                  [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      int64_t months = static_cast<int64_t>(args[0]->values<int32_t>()[row]) * 12 +
                                       args[1]->values<int32_t>()[row];
                      if (months > INT32_MAX || months < INT32_MIN) {
                        RecordOverflow(context, mask, row, "integer overflow");
                        return out.AppendNull();
                      }
                      out.AppendInt(months);
                    });
                  });
}

}  // namespace

void RegisterTimestampFunctions(FunctionRegistry& registry) {
  registry.Register("timestampadd", [](std::vector<ExpressionPtr> arguments) {
    return BindTimestampAdd("timestampadd", std::move(arguments));
  });
  // dateadd(start, days) is date_add; with a unit first, timestampadd.
  registry.Register("dateadd", [&registry](std::vector<ExpressionPtr> arguments) {
    if (arguments.size() == 2) return registry.Bind("date_add", std::move(arguments));
    return BindTimestampAdd("dateadd", std::move(arguments));
  });
  for (std::string_view name : {"timestampdiff", "timediff"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      return BindTimestampDiff(name, std::move(arguments));
    });
  }
  registry.Register("make_timestamp", [](std::vector<ExpressionPtr> arguments) {
    return BindMakeTimestamp("make_timestamp", std::move(arguments), false);
  });
  registry.Register("make_timestamp_ltz", [](std::vector<ExpressionPtr> arguments) {
    return BindMakeTimestamp("make_timestamp_ltz", std::move(arguments), false);
  });
  registry.Register("make_timestamp_ntz", [](std::vector<ExpressionPtr> arguments) {
    return BindMakeTimestamp("make_timestamp_ntz", std::move(arguments), true);
  });
  registry.Register("to_utc_timestamp", [](std::vector<ExpressionPtr> arguments) {
    return BindZoneShift("to_utc_timestamp", std::move(arguments), true);
  });
  registry.Register("from_utc_timestamp", [](std::vector<ExpressionPtr> arguments) {
    return BindZoneShift("from_utc_timestamp", std::move(arguments), false);
  });
  registry.Register("current_timezone", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("current_timezone", arguments, 0, 0);
    return MakeCall("current_timezone", StringType(), {},
                    [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext& context, RowMask) {
                      return Scalar::String(context.time_zone).ToVector(num_rows);
                    });
  });
  for (std::string_view name : {"try_make_timestamp", "try_make_timestamp_ltz", "try_make_timestamp_ntz"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      return BindMakeTimestamp(name, std::move(arguments), name == "try_make_timestamp_ntz", true);
    });
  }
  registry.Register("months_between", BindMonthsBetween);
  registry.Register("trunc", BindTruncDate);
  registry.Register("convert_timezone", BindConvertTimezone);
  registry.Register("curdate", [&registry](std::vector<ExpressionPtr> arguments) {
    return registry.Bind("current_date", std::move(arguments));
  });
  registry.Register("localtimestamp", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("localtimestamp", arguments, 0, 0);
    return MakeCall("localtimestamp", TimestampNtzType(), {},
                    [](const std::vector<VectorPtr>&, int64_t num_rows, EvalContext& context, RowMask) {
                      return Scalar::TimestampNtz(context.Zone().UtcToLocal(context.statement_timestamp_micros))
                          .ToVector(num_rows);
                    });
  });
  RegisterIntegerFunction(registry, "unix_date", DateType(), IntegerType(),
                          [](int64_t days, VectorBuilder& out) { out.AppendInt(days); });
  RegisterIntegerFunction(registry, "date_from_unix_date", IntegerType(), DateType(),
                          [](int64_t days, VectorBuilder& out) { out.AppendInt(days); });
  RegisterIntegerFunction(registry, "unix_seconds", TimestampType(), LongType(), [](int64_t micros, VectorBuilder& out) {
    out.AppendInt(FloorDivide(micros, kMicrosPerSecond));
  });
  RegisterIntegerFunction(registry, "unix_millis", TimestampType(), LongType(), [](int64_t micros, VectorBuilder& out) {
    out.AppendInt(FloorDivide(micros, 1000));
  });
  RegisterIntegerFunction(registry, "unix_micros", TimestampType(), LongType(),
                          [](int64_t micros, VectorBuilder& out) { out.AppendInt(micros); });
  RegisterIntegerFunction(registry, "weekday", DateType(), IntegerType(), [](int64_t days, VectorBuilder& out) {
    out.AppendInt(FloorModulo(days + 3, 7));  // 0 = Monday; 1970-01-01 was a Thursday
  });
  RegisterIntegerFunction(registry, "dayname", DateType(), StringType(), [](int64_t days, VectorBuilder& out) {
    static const char* const kNames[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    out.AppendString(kNames[FloorModulo(days + 3, 7)]);
  });
  RegisterIntegerFunction(registry, "monthname", DateType(), StringType(), [](int64_t days, VectorBuilder& out) {
    static const char* const kNames[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    out.AppendString(kNames[CivilFromDays(days).month - 1]);
  });
  registry.Register("make_dt_interval", BindMakeDayTimeInterval);
  registry.Register("make_ym_interval", BindMakeYearMonthInterval);
}

ExpressionPtr BindUnitTimestampAdd(std::string_view name, std::vector<ExpressionPtr> arguments) {
  return BindTimestampAdd(name, std::move(arguments));
}

ExpressionPtr BindUnitTimestampDiff(std::string_view name, std::vector<ExpressionPtr> arguments) {
  return BindTimestampDiff(name, std::move(arguments));
}

}  // namespace silt::expr::internal
