#include "silt/expr/cast.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/expr/decimal_arithmetic_internal.h"
#include "silt/expr/interval_functions.h"
#include "silt/expr/type_coercion.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt::expr {
namespace {

bool IsDatetime(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
}

std::string_view TrimSpaces(std::string_view text) {
  // Spark's cast trims ASCII whitespace and control characters on both ends.
  size_t begin = 0, end = text.size();
  while (begin < end && static_cast<unsigned char>(text[begin]) <= ' ') ++begin;
  while (end > begin && static_cast<unsigned char>(text[end - 1]) <= ' ') --end;
  return text.substr(begin, end - begin);
}

// Spark's toSQLType: the upper-case type name in double quotes.
std::string SqlTypeName(const DataType& type) {
  std::string name = type.ToString();
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\"" + name + "\"";
}

// Spark's toSQLValue: strings quoted, integral literals with their type suffix.
std::string SqlValue(const Vector& vector, int64_t row) {
  std::string text = CastValueToString(vector, row);
  switch (vector.type_id()) {
    case TypeId::kString: return "'" + text + "'";
    case TypeId::kByte: return text + "Y";
    case TypeId::kShort: return text + "S";
    case TypeId::kLong: return text + "L";
    case TypeId::kDouble: return text + "D";
    case TypeId::kDate: return "DATE '" + text + "'";
    case TypeId::kTimestamp: return "TIMESTAMP '" + text + "'";
    default: return text;
  }
}

bool IntegralRange(TypeId id, int64_t* minimum, int64_t* maximum) {
  switch (id) {
    case TypeId::kByte: *minimum = INT8_MIN; *maximum = INT8_MAX; return true;
    case TypeId::kShort: *minimum = INT16_MIN; *maximum = INT16_MAX; return true;
    case TypeId::kInteger: *minimum = INT32_MIN; *maximum = INT32_MAX; return true;
    case TypeId::kLong: *minimum = INT64_MIN; *maximum = INT64_MAX; return true;
    default: return false;
  }
}

// Truncates an integer to the width of `id`, as Java's narrowing conversions do.
int64_t WrapTo(TypeId id, int64_t value) {
  switch (id) {
    case TypeId::kByte: return static_cast<int8_t>(value);
    case TypeId::kShort: return static_cast<int16_t>(value);
    case TypeId::kInteger: return static_cast<int32_t>(value);
    default: return value;
  }
}

int64_t ReadIntegral(const Vector& vector, int64_t row) {
  switch (vector.type_id()) {
    case TypeId::kByte: return vector.values<int8_t>()[row];
    case TypeId::kShort: return vector.values<int16_t>()[row];
    case TypeId::kInteger:
    case TypeId::kDate: return vector.values<int32_t>()[row];
    default: return vector.values<int64_t>()[row];
  }
}

double ReadFloating(const Vector& vector, int64_t row) {
  if (vector.type_id() == TypeId::kFloat) return vector.values<float>()[row];
  return vector.values<double>()[row];
}

// Parses an integer as Spark's UTF8String.toLong: optional sign, digits, and, when
// `allow_fraction` (the legacy non-ANSI cast), an optional fraction that is truncated; the ANSI
// cast (toLongExact) refuses a fraction. nullopt when malformed or beyond int64.
std::optional<int64_t> ParseIntegralText(std::string_view text, bool allow_fraction) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++i;
  }
  if (i == text.size()) return std::nullopt;
  // Accumulate negatively so that INT64_MIN parses.
  int64_t value = 0;
  size_t digits = 0;
  for (; i < text.size() && text[i] != '.'; ++i, ++digits) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    if (__builtin_mul_overflow(value, 10, &value) || __builtin_sub_overflow(value, text[i] - '0', &value)) {
      return std::nullopt;
    }
  }
  if (i < text.size()) {
    if (!allow_fraction) return std::nullopt;
    for (size_t j = i + 1; j < text.size(); ++j) {
      if (text[j] < '0' || text[j] > '9') return std::nullopt;
    }
    if (digits == 0 && i + 1 == text.size()) return std::nullopt;
  }
  if (negative) return value;
  if (value == INT64_MIN) return std::nullopt;
  return -value;
}

std::optional<double> ParseFloatingText(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string_view body = text;
  bool negative = false;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (EqualsIgnoreCase(body, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (EqualsIgnoreCase(body, "infinity") || EqualsIgnoreCase(body, "inf")) {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  // Java's parseDouble accepts a trailing type suffix.
  std::string copy(text);
  if (!copy.empty() && (copy.back() == 'd' || copy.back() == 'D' || copy.back() == 'f' || copy.back() == 'F')) {
    copy.pop_back();
  }
  for (char c : copy) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
      return std::nullopt;
    }
  }
  if (copy.empty()) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

std::optional<bool> ParseBooleanText(std::string_view text) {
  for (std::string_view word : {"t", "true", "y", "yes", "1"}) {
    if (EqualsIgnoreCase(text, word)) return true;
  }
  for (std::string_view word : {"f", "false", "n", "no", "0"}) {
    if (EqualsIgnoreCase(text, word)) return false;
  }
  return std::nullopt;
}

// Reads up to `max_digits` digits starting at `*position`; at least one.
std::optional<int64_t> ReadDigits(std::string_view text, size_t* position, size_t min_digits, size_t max_digits) {
  size_t start = *position;
  int64_t value = 0;
  while (*position < text.size() && *position - start < max_digits && std::isdigit(static_cast<unsigned char>(text[*position]))) {
    value = value * 10 + (text[*position] - '0');
    ++*position;
  }
  if (*position - start < min_digits) return std::nullopt;
  return value;
}

// Parses the date part; leaves `*position` after it.
std::optional<int64_t> ParseDatePart(std::string_view text, size_t* position) {
  bool negative = false;
  if (*position < text.size() && (text[*position] == '-' || text[*position] == '+')) {
    negative = text[*position] == '-';
    ++*position;
  }
  auto year = ReadDigits(text, position, 4, 7);
  if (!year) return std::nullopt;
  int month = 1, day = 1;
  if (*position < text.size() && text[*position] == '-') {
    ++*position;
    auto parsed_month = ReadDigits(text, position, 1, 2);
    if (!parsed_month) return std::nullopt;
    month = static_cast<int>(*parsed_month);
    if (*position < text.size() && text[*position] == '-') {
      ++*position;
      auto parsed_day = ReadDigits(text, position, 1, 2);
      if (!parsed_day) return std::nullopt;
      day = static_cast<int>(*parsed_day);
    }
  }
  int64_t signed_year = negative ? -*year : *year;
  if (!IsValidCivilDate(signed_year, month, day)) return std::nullopt;
  return DaysFromCivil(signed_year, month, day);
}

VectorPtr FinishWithNulls(VectorBuilder& builder) { return builder.Finish(); }

}  // namespace

std::optional<int32_t> ParseSparkDate(std::string_view text) {
  text = TrimSpaces(text);
  size_t position = 0;
  auto days = ParseDatePart(text, &position);
  if (!days) return std::nullopt;
  // Spark ignores anything after a ' ' or 'T' that follows a complete date.
  if (position < text.size() && text[position] != ' ' && text[position] != 'T') return std::nullopt;
  if (*days < INT32_MIN || *days > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*days);
}

namespace {

// A timestamp's text split into its local wall-clock time and the zone it names, if any.
struct TimestampText {
  int64_t local_micros = 0;
  std::optional<int32_t> offset_seconds;  // a written offset ("Z", "+02:00")
  std::shared_ptr<const TimeZone> zone;   // a written zone id; neither: the session zone

  std::optional<int64_t> ToUtc(const TimeZone* session_zone, int64_t session_offset_micros) const {
    int64_t utc = 0;
    if (offset_seconds || (!zone && session_zone == nullptr)) {
      int64_t offset = offset_seconds ? int64_t{*offset_seconds} * kMicrosPerSecond : session_offset_micros;
      if (__builtin_sub_overflow(local_micros, offset, &utc)) return std::nullopt;
      return utc;
    }
    // Zone rules need room for an offset on either side of the local time.
    constexpr int64_t kMargin = 2 * kMicrosPerDay;
    if (local_micros <= std::numeric_limits<int64_t>::min() + kMargin ||
        local_micros >= std::numeric_limits<int64_t>::max() - kMargin) {
      return std::nullopt;
    }
    return (zone ? *zone : *session_zone).LocalToUtc(local_micros);
  }
};

std::optional<TimestampText> ParseTimestampText(std::string_view text, bool allow_zone) {
  text = TrimSpaces(text);
  size_t position = 0;
  auto days = ParseDatePart(text, &position);
  if (!days) return std::nullopt;
  int64_t micros_of_day = 0;
  TimestampText parsed;
  if (position < text.size()) {
    if (text[position] != ' ' && text[position] != 'T') return std::nullopt;
    ++position;
    auto hour = ReadDigits(text, &position, 1, 2);
    if (!hour || position >= text.size() || text[position] != ':') return std::nullopt;
    ++position;
    auto minute = ReadDigits(text, &position, 1, 2);
    if (!minute) return std::nullopt;
    int64_t second = 0, fraction = 0;
    if (position < text.size() && text[position] == ':') {
      ++position;
      auto parsed_second = ReadDigits(text, &position, 1, 2);
      if (!parsed_second) return std::nullopt;
      second = *parsed_second;
      if (position < text.size() && text[position] == '.') {
        ++position;
        size_t start = position;
        auto digits = ReadDigits(text, &position, 0, 9);
        size_t count = position - start;
        fraction = digits.value_or(0);
        // Keep microseconds; further digits are truncated as Spark does.
        for (size_t i = count; i < 6; ++i) fraction *= 10;
        for (size_t i = 6; i < count; ++i) fraction /= 10;
      }
    }
    if (*hour > 23 || *minute > 59 || second > 59) return std::nullopt;
    micros_of_day = ((*hour * 60 + *minute) * 60 + second) * kMicrosPerSecond + fraction;
    std::string_view zone = TrimSpaces(text.substr(position));
    if (!zone.empty()) {
      if (!allow_zone) return std::nullopt;
      if (zone == "Z" || EqualsIgnoreCase(zone, "UTC") || EqualsIgnoreCase(zone, "GMT")) {
        parsed.offset_seconds = 0;
      } else if (zone[0] == '+' || zone[0] == '-') {
        size_t zone_position = 1;
        auto zone_hours = ReadDigits(zone, &zone_position, 1, 2);
        int64_t zone_minutes = 0;
        if (!zone_hours) return std::nullopt;
        if (zone_position < zone.size() && zone[zone_position] == ':') ++zone_position;
        if (zone_position < zone.size()) {
          auto parsed_minutes = ReadDigits(zone, &zone_position, 2, 2);
          if (!parsed_minutes) return std::nullopt;
          zone_minutes = *parsed_minutes;
        }
        if (zone_position != zone.size() || *zone_hours > 18 || zone_minutes > 59) return std::nullopt;
        parsed.offset_seconds = static_cast<int32_t>((*zone_hours * 3600 + zone_minutes * 60) * (zone[0] == '-' ? -1 : 1));
      } else {
        // Any other zone id Spark accepts: "UTC+01:00", "America/New_York", "PST"...
        parsed.zone = TimeZone::Find(zone);
        if (!parsed.zone) return std::nullopt;
      }
    }
  }
  if (__builtin_mul_overflow(*days, kMicrosPerDay, &parsed.local_micros) ||
      __builtin_add_overflow(parsed.local_micros, micros_of_day, &parsed.local_micros)) {
    return std::nullopt;
  }
  return parsed;
}

}  // namespace

std::optional<int64_t> ParseSparkTimestamp(std::string_view text, bool allow_zone, const TimeZone& session_zone) {
  std::optional<TimestampText> parsed = ParseTimestampText(text, allow_zone);
  if (!parsed) return std::nullopt;
  return parsed->ToUtc(&session_zone, 0);
}

std::optional<int64_t> ParseSparkTimestamp(std::string_view text, bool allow_zone, int64_t zone_offset_micros) {
  std::optional<TimestampText> parsed = ParseTimestampText(text, allow_zone);
  if (!parsed) return std::nullopt;
  return parsed->ToUtc(nullptr, zone_offset_micros);
}

std::string CastValueToString(const Vector& vector, int64_t row, const TimeZone* zone) {
  if (vector.IsNull(row)) return "null";
  switch (vector.type_id()) {
    case TypeId::kTimestamp: {
      int64_t micros = vector.values<int64_t>()[row];
      return FormatTimestamp(zone != nullptr ? zone->UtcToLocal(micros) : micros);
    }
    case TypeId::kBinary: return std::string(vector.GetString(row));
    case TypeId::kList: {
      std::string text = "[";
      int32_t start = vector.ListStart(row);
      for (int32_t i = 0; i < vector.ListLength(row); ++i) {
        if (i > 0) text += ", ";
        text += CastValueToString(*vector.child(0), start + i, zone);
      }
      return text + "]";
    }
    case TypeId::kMap: {
      std::string text = "{";
      int32_t start = vector.ListStart(row);
      const Vector& entries = *vector.child(0);
      for (int32_t i = 0; i < vector.ListLength(row); ++i) {
        if (i > 0) text += ", ";
        int64_t entry = entries.offset() + start + i;
        text += CastValueToString(*entries.child(0), entry, zone) + " -> " +
                CastValueToString(*entries.child(1), entry, zone);
      }
      return text + "}";
    }
    case TypeId::kStruct: {
      std::string text = "{";
      for (size_t i = 0; i < vector.children().size(); ++i) {
        if (i > 0) text += ", ";
        text += CastValueToString(*vector.child(i), vector.offset() + row, zone);
      }
      return text + "}";
    }
    default: return vector.ValueToString(row);
  }
}

bool CanCast(const DataTypePtr& from, const DataTypePtr& to) {
  TypeId f = from->id(), t = to->id();
  if (from->Equals(*to) || f == TypeId::kNull) return true;
  if (t == TypeId::kString) return true;
  if (to->is_interval()) return internal::CanCastToInterval(*from, *to);
  if (f == TypeId::kString) {
    return !to->is_nested();
  }
  bool from_numeric = IsNumeric(*from), to_numeric = IsNumeric(*to);
  if (from_numeric && to_numeric) return true;
  if ((from_numeric && t == TypeId::kBoolean) || (f == TypeId::kBoolean && to_numeric)) return true;
  if (IsDatetime(f) && IsDatetime(t)) return true;
  // Timestamps and integral seconds convert both ways (Spark allows it outside ANSI store
  // assignment).
  if (f == TypeId::kTimestamp && to_numeric) return true;
  if (IsIntegral(*from) && t == TypeId::kTimestamp) return true;
  if (IsIntegral(*from) && t == TypeId::kBinary) return true;
  if (f == t && f == TypeId::kList) return CanCast(from->element_type(), to->element_type());
  if (f == t && f == TypeId::kMap) {
    return CanCast(from->key_type(), to->key_type()) && CanCast(from->value_type(), to->value_type());
  }
  if (f == t && f == TypeId::kStruct && from->fields().size() == to->fields().size()) {
    for (size_t i = 0; i < from->fields().size(); ++i) {
      if (!CanCast(from->fields()[i].type, to->fields()[i].type)) return false;
    }
    return true;
  }
  return false;
}

VectorPtr CastVector(const VectorPtr& input, const DataTypePtr& to, ErrorMode mode,
                     EvalContext& context, RowMask mask) {
  const DataTypePtr& from = input->type();
  if (from->Equals(*to)) return input;
  int64_t num_rows = input->length();
  if (from->id() == TypeId::kNull) return Vector::MakeAllNull(to, num_rows);
  SILT_USER_CHECK(CanCast(from, to), DATATYPE_MISMATCH,
                  {{"sqlExpr", "CAST"},
                   {"message", "cannot cast " + SqlTypeName(*from) + " to " + SqlTypeName(*to) + "."}});
  if (to->is_interval()) return internal::CastToInterval(input, to, mode, context, mask);
  const bool raise = mode == ErrorMode::kSession && context.ansi;
  const bool null_on_error = mode == ErrorMode::kTry || !context.ansi;
  const Vector& source = *input;
  const TypeId target = to->id();
  // The session zone matters only where local time meets UTC instants.
  auto involves_instants = [](const DataType& type) {
    std::string name = type.ToString();
    return name.find("timestamp") != std::string::npos;
  };
  const TimeZone* zone = involves_instants(*from) || involves_instants(*to) ? &context.Zone() : TimeZone::Utc().get();

  // Nested casts convert the children and keep the structure.
  if (to->is_nested()) {
    if (target == TypeId::kStruct) {
      std::vector<VectorPtr> fields;
      for (size_t i = 0; i < to->fields().size(); ++i) {
        fields.push_back(CastVector(source.StructField(i), to->fields()[i].type, mode, context));
      }
      VectorBuilder builder(to, num_rows);
      for (int64_t row = 0; row < num_rows; ++row) {
        if (source.IsNull(row)) {
          builder.AppendNull();
          continue;
        }
        for (size_t i = 0; i < fields.size(); ++i) builder.child(i).AppendFrom(*fields[i], row);
        builder.AppendStruct();
      }
      return builder.Finish();
    }
    // Lists and maps: cast the child vector(s) over their whole range, then rebuild offsets.
    VectorBuilder builder(to, num_rows);
    if (target == TypeId::kList) {
      VectorPtr elements = CastVector(source.child(0), to->element_type(), mode, context);
      for (int64_t row = 0; row < num_rows; ++row) {
        if (source.IsNull(row)) {
          builder.AppendNull();
          continue;
        }
        builder.child(0).AppendRange(*elements, source.ListStart(row), source.ListLength(row));
        builder.FinishList();
      }
      return builder.Finish();
    }
    const Vector& entries = *source.child(0);
    VectorPtr keys = CastVector(entries.StructField(0), to->key_type(), mode, context);
    VectorPtr values = CastVector(entries.StructField(1), to->value_type(), mode, context);
    for (int64_t row = 0; row < num_rows; ++row) {
      if (source.IsNull(row)) {
        builder.AppendNull();
        continue;
      }
      for (int32_t i = 0; i < source.ListLength(row); ++i) {
        int64_t entry = source.ListStart(row) + i;
        builder.child(0).child(0).AppendFrom(*keys, entry);
        builder.child(0).child(1).AppendFrom(*values, entry);
        builder.child(0).AppendStruct();
      }
      builder.FinishList();
    }
    return builder.Finish();
  }

  VectorBuilder builder(to, num_rows);
  auto invalid_input = [&](int64_t row) {
    if (raise && mask.Contains(row)) {
      context.RecordError(MakeError(ErrorClass::CAST_INVALID_INPUT,
                                    {{"expression", SqlValue(source, row)},
                                     {"sourceType", SqlTypeName(*from)},
                                     {"targetType", SqlTypeName(*to)}}));
    }
    builder.AppendNull();
  };
  auto overflow = [&](int64_t row) {
    if (raise && mask.Contains(row)) {
      if (target == TypeId::kDecimal) {
        context.RecordError(MakeError(ErrorClass::NUMERIC_VALUE_OUT_OF_RANGE,
                                      {{"value", CastValueToString(source, row)},
                                       {"precision", std::to_string(to->precision())},
                                       {"scale", std::to_string(to->scale())}}));
      } else {
        context.RecordError(MakeError(ErrorClass::CAST_OVERFLOW,
                                      {{"value", SqlValue(source, row)},
                                       {"sourceType", SqlTypeName(*from)},
                                       {"targetType", SqlTypeName(*to)}}));
      }
    }
    builder.AppendNull();
  };
  // Appends an exact integer to an integral/decimal/floating/boolean target.
  auto append_integer = [&](int64_t row, int64_t value) {
    int64_t minimum = 0, maximum = 0;
    if (IntegralRange(target, &minimum, &maximum)) {
      if (value < minimum || value > maximum) {
        if (null_on_error) {
          // Legacy (non-ANSI) CAST wraps integral narrowing like Java; TRY gives NULL.
          if (mode == ErrorMode::kTry) return builder.AppendNull();
          return builder.AppendInt(WrapTo(target, value));
        }
        return overflow(row);
      }
      return builder.AppendInt(value);
    }
    switch (target) {
      case TypeId::kFloat: return builder.AppendFloat(static_cast<float>(value));
      case TypeId::kDouble: return builder.AppendDouble(static_cast<double>(value));
      case TypeId::kBoolean: return builder.AppendBool(value != 0);
      case TypeId::kDecimal: {
        auto scaled = RescaleDecimal(value, 0, to->scale());
        if (!scaled || !FitsPrecision(*scaled, to->precision())) return overflow(row);
        return builder.AppendDecimal(*scaled);
      }
      case TypeId::kTimestamp: {
        int64_t micros = 0;
        if (__builtin_mul_overflow(value, kMicrosPerSecond, &micros)) {
          micros = value < 0 ? INT64_MIN : INT64_MAX;  // Spark saturates seconds to timestamp.
        }
        return builder.AppendInt(micros);
      }
      case TypeId::kBinary: {
        // Spark writes integral values to binary as big-endian bytes of their own width.
        int width = from->FixedWidth();
        std::string bytes(static_cast<size_t>(width), '\0');
        for (int i = 0; i < width; ++i) bytes[static_cast<size_t>(width - 1 - i)] = static_cast<char>((value >> (8 * i)) & 0xFF);
        return builder.AppendString(bytes);
      }
      default: SILT_CHECK(false, "unexpected cast target " + to->ToString());
    }
  };
  auto append_floating = [&](int64_t row, double value) {
    int64_t minimum = 0, maximum = 0;
    if (IntegralRange(target, &minimum, &maximum)) {
      double truncated = std::trunc(value);
      // The bounds are exclusive at the top: 2^63 is not representable as int64.
      bool fits = !std::isnan(value) && truncated >= static_cast<double>(minimum) &&
                  truncated < static_cast<double>(maximum) + 1.0;
      if (!fits) {
        if (mode == ErrorMode::kTry) return builder.AppendNull();
        if (null_on_error) {
          // Java's (int)/(long) saturates and maps NaN to 0; byte/short narrow from int.
          int64_t saturated = 0;
          if (!std::isnan(value)) {
            int64_t wide_min = target == TypeId::kLong ? INT64_MIN : INT32_MIN;
            int64_t wide_max = target == TypeId::kLong ? INT64_MAX : INT32_MAX;
            saturated = truncated <= static_cast<double>(wide_min) ? wide_min
                        : truncated >= static_cast<double>(wide_max) ? wide_max
                                                                      : static_cast<int64_t>(truncated);
          }
          return builder.AppendInt(WrapTo(target, saturated));
        }
        return overflow(row);
      }
      return builder.AppendInt(static_cast<int64_t>(truncated));
    }
    switch (target) {
      case TypeId::kFloat: return builder.AppendFloat(static_cast<float>(value));
      case TypeId::kDouble: return builder.AppendDouble(value);
      case TypeId::kBoolean: return builder.AppendBool(value != 0);
      case TypeId::kDecimal: {
        auto unscaled = DecimalFromDouble(value, to->precision(), to->scale());
        if (!unscaled) return overflow(row);
        return builder.AppendDecimal(*unscaled);
      }
      case TypeId::kTimestamp: {
        if (std::isnan(value) || std::isinf(value)) return builder.AppendNull();
        return builder.AppendInt(static_cast<int64_t>(value * kMicrosPerSecond));
      }
      default: SILT_CHECK(false, "unexpected cast target " + to->ToString());
    }
  };
  auto append_decimal = [&](int64_t row, Decimal128 unscaled, int scale) {
    int64_t minimum = 0, maximum = 0;
    if (IntegralRange(target, &minimum, &maximum)) {
      Decimal128 whole = unscaled / Pow10(scale);  // truncation toward zero
      if (whole < minimum || whole > maximum) {
        if (mode == ErrorMode::kTry) return builder.AppendNull();
        if (null_on_error) return builder.AppendInt(WrapTo(target, static_cast<int64_t>(whole)));
        return overflow(row);
      }
      return builder.AppendInt(static_cast<int64_t>(whole));
    }
    switch (target) {
      case TypeId::kFloat: return builder.AppendFloat(static_cast<float>(DecimalToDouble(unscaled, scale)));
      case TypeId::kDouble: return builder.AppendDouble(DecimalToDouble(unscaled, scale));
      case TypeId::kBoolean: return builder.AppendBool(unscaled != 0);
      case TypeId::kDecimal: {
        auto rescaled = RescaleDecimal(unscaled, scale, to->scale());
        if (!rescaled || !FitsPrecision(*rescaled, to->precision())) return overflow(row);
        return builder.AppendDecimal(*rescaled);
      }
      case TypeId::kTimestamp:
        return builder.AppendInt(static_cast<int64_t>(unscaled * kMicrosPerSecond / Pow10(scale)));
      default: SILT_CHECK(false, "unexpected cast target " + to->ToString());
    }
  };

  for (int64_t row = 0; row < num_rows; ++row) {
    if (source.IsNull(row)) {
      builder.AppendNull();
      continue;
    }
    if (target == TypeId::kString) {
      builder.AppendString(CastValueToString(source, row, zone));
      continue;
    }
    switch (from->id()) {
      case TypeId::kBoolean:
        append_integer(row, source.GetBool(row) ? 1 : 0);
        break;
      case TypeId::kByte:
      case TypeId::kShort:
      case TypeId::kInteger:
      case TypeId::kLong:
        append_integer(row, ReadIntegral(source, row));
        break;
      case TypeId::kFloat:
      case TypeId::kDouble:
        append_floating(row, ReadFloating(source, row));
        break;
      case TypeId::kDecimal:
        append_decimal(row, source.values<Decimal128>()[row], from->scale());
        break;
      case TypeId::kDate: {
        // Midnight local time: in the session zone for timestamp, as is for timestamp_ntz.
        int64_t days = source.values<int32_t>()[row];
        builder.AppendInt(target == TypeId::kTimestamp ? zone->LocalToUtc(days * kMicrosPerDay) : days * kMicrosPerDay);
        break;
      }
      case TypeId::kTimestamp:
      case TypeId::kTimestampNtz: {
        int64_t micros = source.values<int64_t>()[row];
        // A timestamp's local date and wall clock are in the session zone; timestamp_ntz is
        // already local.
        int64_t local = from->id() == TypeId::kTimestamp ? zone->UtcToLocal(micros) : micros;
        if (target == TypeId::kDate) {
          micros = local;
          int64_t days = micros / kMicrosPerDay - (micros % kMicrosPerDay < 0 ? 1 : 0);
          builder.AppendInt(days);
        } else if (target == TypeId::kTimestampNtz) {
          builder.AppendInt(local);
        } else if (target == TypeId::kTimestamp) {
          builder.AppendInt(from->id() == TypeId::kTimestampNtz ? zone->LocalToUtc(micros) : micros);
        } else {
          // Timestamp to numeric gives seconds (floored for integral targets).
          int64_t seconds = micros / kMicrosPerSecond - (micros % kMicrosPerSecond < 0 ? 1 : 0);
          if (target == TypeId::kDouble || target == TypeId::kFloat) {
            append_floating(row, static_cast<double>(micros) / kMicrosPerSecond);
          } else if (target == TypeId::kDecimal) {
            append_decimal(row, micros, 6);
          } else {
            append_integer(row, seconds);
          }
        }
        break;
      }
      case TypeId::kBinary:
        builder.AppendString(source.GetString(row));  // binary to string handled above; here binary->binary
        break;
      case TypeId::kString: {
        std::string_view raw = source.GetString(row);
        std::string_view text = TrimSpaces(raw);
        switch (target) {
          case TypeId::kBinary: builder.AppendString(raw); break;
          case TypeId::kBoolean: {
            auto value = ParseBooleanText(text);
            if (!value) invalid_input(row); else builder.AppendBool(*value);
            break;
          }
          case TypeId::kByte:
          case TypeId::kShort:
          case TypeId::kInteger:
          case TypeId::kLong: {
            auto value = ParseIntegralText(text, /*allow_fraction=*/!context.ansi && mode != ErrorMode::kTry);
            int64_t minimum = 0, maximum = 0;
            IntegralRange(target, &minimum, &maximum);
            // Out of range text is malformed for Spark's string cast (not an overflow).
            if (!value || *value < minimum || *value > maximum) invalid_input(row);
            else builder.AppendInt(*value);
            break;
          }
          case TypeId::kFloat:
          case TypeId::kDouble: {
            auto value = ParseFloatingText(text);
            if (!value) invalid_input(row);
            else if (target == TypeId::kFloat) builder.AppendFloat(static_cast<float>(*value));
            else builder.AppendDouble(*value);
            break;
          }
          case TypeId::kDecimal: {
            auto value = ParseDecimal(text, to->precision(), to->scale());
            if (value) {
              builder.AppendDecimal(*value);
            } else if (ParseDecimal(text, kMaxDecimalPrecision, 0) || ParseFloatingText(text)) {
              overflow(row);  // well-formed but too large for the type
            } else {
              invalid_input(row);
            }
            break;
          }
          case TypeId::kDate: {
            auto value = ParseSparkDate(text);
            if (!value) invalid_input(row); else builder.AppendInt(*value);
            break;
          }
          case TypeId::kTimestamp:
          case TypeId::kTimestampNtz: {
            auto value = target == TypeId::kTimestamp ? ParseSparkTimestamp(text, true, *zone)
                                                      : ParseSparkTimestamp(text, false, 0);
            if (!value) invalid_input(row); else builder.AppendInt(*value);
            break;
          }
          default: SILT_CHECK(false, "unexpected cast target " + to->ToString());
        }
        break;
      }
      default: SILT_CHECK(false, "unexpected cast source " + from->ToString());
    }
  }
  return FinishWithNulls(builder);
}

}  // namespace silt::expr
