// Calendar functions beyond datetime_functions.cc: date_part (the target of EXTRACT),
// weekofyear, last_day, next_day and to_unix_timestamp.

#include <cctype>

#include "silt/expr/function_kernels_internal.h"
#include "silt/types/date_time.h"

namespace silt::expr::internal {
namespace {

int64_t FloorDivide(int64_t value, int64_t divisor) {
  return value / divisor - ((value % divisor != 0) && ((value < 0) != (divisor < 0)) ? 1 : 0);
}

std::string Upper(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// Monday = 0 .. Sunday = 6 of days since the epoch (1970-01-01 was a Thursday).
int64_t WeekdayFromMonday(int64_t days) { return ((days + 3) % 7 + 7) % 7; }

// ISO-8601 week number (weeks start on Monday; week 1 holds the year's first Thursday).
int32_t IsoWeek(int64_t days) {
  int64_t thursday = days - WeekdayFromMonday(days) + 3;
  CivilDate date = CivilFromDays(thursday);
  return static_cast<int32_t>((thursday - DaysFromCivil(date.year, 1, 1)) / 7 + 1);
}

// Monday = 0 .. Sunday = 6 for Spark's day-of-week names ("MO", "MON", "MONDAY"); -1 otherwise.
int DayOfWeekFromName(std::string_view name) {
  static const char* const kNames[] = {"MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"};
  std::string upper = Upper(name);
  for (int i = 0; i < 7; ++i) {
    std::string full = kNames[i];
    if (upper == full || upper == full.substr(0, 2) || upper == full.substr(0, 3)) return i;
  }
  return -1;
}

ExpressionPtr DateArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  return ImplicitCast(name, index, std::move(argument), DateType());
}

// The registry function of a date_part field name (Spark's synonyms), or "" when unknown.
std::string FieldFunction(const std::string& field) {
  static const std::pair<const char*, const char*> kFields[] = {
      {"YEAR", "year"},           {"Y", "year"},           {"YEARS", "year"},        {"YR", "year"},
      {"YRS", "year"},            {"QUARTER", "quarter"},  {"QTR", "quarter"},       {"MONTH", "month"},
      {"MON", "month"},           {"MONS", "month"},       {"MONTHS", "month"},      {"WEEK", "weekofyear"},
      {"W", "weekofyear"},        {"WEEKS", "weekofyear"}, {"DAY", "day"},           {"D", "day"},
      {"DAYS", "day"},            {"DAYOFWEEK", "dayofweek"}, {"DOW", "dayofweek"},  {"DOY", "dayofyear"},
      {"HOUR", "hour"},           {"H", "hour"},           {"HOURS", "hour"},        {"HR", "hour"},
      {"HRS", "hour"},            {"MINUTE", "minute"},    {"M", "minute"},          {"MIN", "minute"},
      {"MINS", "minute"},         {"MINUTES", "minute"},   {"SECOND", ""},           {"S", ""},
      {"SEC", ""},                {"SECONDS", ""},         {"SECS", ""}};
  for (const auto& [name, function] : kFields) {
    if (field == name) return *function ? function : "second";
  }
  return "";
}

}  // namespace

void RegisterCalendarFunctions(FunctionRegistry& registry) {
  for (std::string_view name : {"date_part", "extract", "datepart"}) {
    registry.Register(name, [name, &registry](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 2, 2);
      const ExpressionPtr& field = arguments[0];
      if (field->kind() != ExpressionKind::kLiteral || field->type()->id() != TypeId::kString ||
          field->literal().is_null()) {
        ThrowArgumentType(name, 0, field, "a constant \"STRING\"");
      }
      std::string field_name = Upper(field->literal().GetString());
      std::string function = FieldFunction(field_name);
      if (function.empty()) {
        SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`field`"},
                                             {"functionName", "`" + std::string(name) + "`"},
                                             {"message", "cannot extract " + field_name + " from a date or timestamp."}});
      }
      if (function != "second") return registry.Bind(function, {arguments[1]});
      // SECOND includes the fraction: DECIMAL(8,6) seconds of the minute.
      ExpressionPtr source = arguments[1];
      if (source->type()->id() != TypeId::kTimestampNtz) {
        source = ImplicitCast(name, 1, std::move(source), TimestampType());
      }
      const bool zoned = source->type()->id() == TypeId::kTimestamp;
      DataTypePtr type = DecimalType(8, 6);
      return MakeCall(name, type, {std::move(source)},
                      [type, zoned](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                        const TimeZone* zone = zoned ? &context.Zone() : nullptr;
                        return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          int64_t value = args[0]->values<int64_t>()[row];
                          int64_t local = zone != nullptr ? zone->UtcToLocal(value) : value;
                          int64_t minute = 60 * kMicrosPerSecond;
                          out.AppendDecimal(local - FloorDivide(local, minute) * minute);
                        });
                      });
    });
  }
  registry.Register("weekofyear", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("weekofyear", arguments, 1, 1);
    arguments[0] = DateArgument("weekofyear", 0, std::move(arguments[0]));
    return MakeCall("weekofyear", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendInt(IsoWeek(args[0]->values<int32_t>()[row]));
                      });
                    });
  });
  registry.Register("last_day", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("last_day", arguments, 1, 1);
    arguments[0] = DateArgument("last_day", 0, std::move(arguments[0]));
    return MakeCall("last_day", DateType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(DateType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        CivilDate date = CivilFromDays(args[0]->values<int32_t>()[row]);
                        int day = 31;
                        while (!IsValidCivilDate(date.year, date.month, day)) --day;
                        out.AppendInt(DaysFromCivil(date.year, date.month, day));
                      });
                    });
  });
  registry.Register("next_day", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("next_day", arguments, 2, 2);
    arguments[0] = DateArgument("next_day", 0, std::move(arguments[0]));
    arguments[1] = ImplicitCast("next_day", 1, std::move(arguments[1]), StringType());
    return MakeCall("next_day", DateType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      // The first date after the start that falls on the named day; an unknown
                      // name raises in ANSI mode and gives NULL otherwise.
                      return MapRows(DateType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int target = DayOfWeekFromName(args[1]->GetString(row));
                        if (target < 0) {
                          if (context.ansi && mask.Contains(row)) {
                            context.RecordError(MakeError(
                                ErrorClass::INVALID_PARAMETER_VALUE,
                                {{"parameter", "`dayOfWeek`"},
                                 {"functionName", "`next_day`"},
                                 {"message", "Illegal input for day of week: " + std::string(args[1]->GetString(row))}}));
                          }
                          return out.AppendNull();
                        }
                        int64_t days = args[0]->values<int32_t>()[row];
                        int64_t ahead = (target - WeekdayFromMonday(days) + 7) % 7;
                        out.AppendInt(days + (ahead == 0 ? 7 : ahead));
                      });
                    });
  });
  registry.Register("to_unix_timestamp", [&registry](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("to_unix_timestamp", arguments, 1, 2);
    // With a format, the text is parsed by to_timestamp first.
    if (arguments.size() == 2) arguments = {registry.Bind("to_timestamp", arguments)};
    return registry.Bind("unix_timestamp", std::move(arguments));
  });
}

}  // namespace silt::expr::internal
