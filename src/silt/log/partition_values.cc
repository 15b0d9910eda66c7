#include "silt/log/partition_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "silt/base/check.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt::log {

namespace {

[[noreturn]] void CastFailed(std::string_view text, const DataType& type, std::string_view column) {
  SILT_THROW(DELTA_PARTITION_COLUMN_CAST_FAILED, {{"value", std::string(text)},
                                                  {"dataType", type.ToString()},
                                                  {"columnName", std::string(column)}});
}

std::optional<int64_t> ParseInteger(std::string_view text, int64_t min, int64_t max) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    i = 1;
  }
  if (i == text.size()) return std::nullopt;
  // Accumulate negatively so that INT64_MIN parses.
  int64_t value = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c < '0' || c > '9') return std::nullopt;
    if (value < (std::numeric_limits<int64_t>::min() + (c - '0')) / 10) return std::nullopt;
    value = value * 10 - (c - '0');
  }
  if (!negative) {
    if (value == std::numeric_limits<int64_t>::min()) return std::nullopt;
    value = -value;
  }
  if (value < min || value > max) return std::nullopt;
  return value;
}

std::optional<double> ParseDouble(std::string_view text) {
  if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (text == "Infinity" || text == "+Infinity") return std::numeric_limits<double>::infinity();
  if (text == "-Infinity") return -std::numeric_limits<double>::infinity();
  if (text.empty()) return std::nullopt;
  std::string copy(text);
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  // Reject hex floats and "inf"/"nan" spellings strtod would accept.
  for (char c : copy) {
    if (c == 'x' || c == 'X' || c == 'n' || c == 'N' || c == 'i' || c == 'I') return std::nullopt;
  }
  return value;
}

int Sign(double value) { return value < 0 ? -1 : (value > 0 ? 1 : 0); }

}  // namespace

std::optional<Decimal128> ParseDecimalText(std::string_view text, int scale) {
  if (text.empty()) return std::nullopt;
  size_t i = 0;
  bool negative = false;
  if (text[0] == '-' || text[0] == '+') {
    negative = text[0] == '-';
    ++i;
  }
  std::string digits;
  int fraction_digits = 0;
  bool seen_point = false;
  bool any_digit = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      digits.push_back(c);
      if (seen_point) ++fraction_digits;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return std::nullopt;
  int64_t exponent = 0;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return std::nullopt;
    auto parsed = ParseInteger(text.substr(i + 1), -1000, 1000);
    if (!parsed) return std::nullopt;
    exponent = *parsed;
  }
  // value = digits * 10^(exponent - fraction_digits); rescale to 10^-scale.
  int64_t shift = exponent - fraction_digits + scale;
  while (shift < 0) {
    if (digits.empty() || digits.back() != '0') return std::nullopt;  // would lose digits
    digits.pop_back();
    ++shift;
  }
  size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? std::string() : digits.substr(first);
  if (static_cast<int64_t>(digits.size()) + shift > 38) return std::nullopt;
  digits.append(static_cast<size_t>(shift), '0');
  Decimal128 value = 0;
  for (char c : digits) value = value * 10 + (c - '0');
  return negative ? -value : value;
}

std::optional<int64_t> ParseTimestampWithOffset(std::string_view text) {
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  int64_t offset_minutes = 0;
  // An offset can only follow the time part, which starts after the 10-character date.
  size_t time_start = text.find_first_of("T ", 8);
  if (time_start != std::string_view::npos) {
    size_t sign = text.find_first_of("+-", time_start);
    if (sign != std::string_view::npos) {
      std::string_view offset = text.substr(sign + 1);
      int64_t hours = 0;
      int64_t minutes = 0;
      std::optional<int64_t> h;
      std::optional<int64_t> m;
      if (offset.size() == 5 && offset[2] == ':') {
        h = ParseInteger(offset.substr(0, 2), 0, 18);
        m = ParseInteger(offset.substr(3, 2), 0, 59);
      } else if (offset.size() == 4) {
        h = ParseInteger(offset.substr(0, 2), 0, 18);
        m = ParseInteger(offset.substr(2, 2), 0, 59);
      } else if (offset.size() == 2) {
        h = ParseInteger(offset, 0, 18);
        m = 0;
      }
      if (!h || !m) return std::nullopt;
      hours = *h;
      minutes = *m;
      offset_minutes = (hours * 60 + minutes) * (text[sign] == '-' ? -1 : 1);
      text = text.substr(0, sign);
    }
  }
  auto local = ParseTimestamp(text);
  if (!local) return std::nullopt;
  // Local wall time = UTC + offset, so UTC = local - offset.
  return *local - offset_minutes * 60 * kMicrosPerSecond;
}

std::optional<Scalar> ParsePartitionValue(const DataType& type,
                                          const std::optional<std::string>& text,
                                          std::string_view column) {
  if (!text || text->empty()) return std::nullopt;
  const std::string& value = *text;
  switch (type.id()) {
    case TypeId::kNull:
    // Interval types cannot be Delta columns (schema JSON refuses them), so never partition values.
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval:
      return std::nullopt;
    case TypeId::kString:
    case TypeId::kBinary:
      return Scalar(value);
    case TypeId::kBoolean:
      if (value == "true" || value == "TRUE" || value == "True") return Scalar(true);
      if (value == "false" || value == "FALSE" || value == "False") return Scalar(false);
      CastFailed(value, type, column);
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong: {
      int bits = type.id() == TypeId::kByte ? 8
                 : type.id() == TypeId::kShort ? 16
                 : type.id() == TypeId::kInteger ? 32 : 64;
      int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t(1) << (bits - 1)) - 1;
      int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t(1) << (bits - 1));
      auto parsed = ParseInteger(value, min, max);
      if (!parsed) CastFailed(value, type, column);
      return Scalar(*parsed);
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      auto parsed = ParseDouble(value);
      if (!parsed) CastFailed(value, type, column);
      if (type.id() == TypeId::kFloat) return Scalar(static_cast<double>(static_cast<float>(*parsed)));
      return Scalar(*parsed);
    }
    case TypeId::kDecimal: {
      auto parsed = ParseDecimalText(value, type.scale());
      if (!parsed) CastFailed(value, type, column);
      Decimal128 limit = 1;
      for (int i = 0; i < type.precision(); ++i) limit *= 10;
      if (*parsed >= limit || *parsed <= -limit) CastFailed(value, type, column);
      return Scalar(*parsed);
    }
    case TypeId::kDate: {
      auto parsed = ParseDate(value);
      if (!parsed) CastFailed(value, type, column);
      return Scalar(*parsed);
    }
    case TypeId::kTimestamp: {
      auto parsed = ParseTimestampWithOffset(value);
      if (!parsed) CastFailed(value, type, column);
      return Scalar(*parsed);
    }
    case TypeId::kTimestampNtz: {
      auto parsed = ParseTimestamp(value);
      if (!parsed) CastFailed(value, type, column);
      return Scalar(*parsed);
    }
    case TypeId::kStruct:
    case TypeId::kList:
    case TypeId::kMap:
      break;
  }
  SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", type.ToString() + " as a partition column"}});
}

std::string FormatPartitionValue(const DataType& type, const Scalar& value) {
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::get<bool>(value) ? "true" : "false";
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
      return std::to_string(std::get<int64_t>(value));
    case TypeId::kFloat:
      return FormatJavaFloat(static_cast<float>(std::get<double>(value)));
    case TypeId::kDouble:
      return FormatJavaDouble(std::get<double>(value));
    case TypeId::kDecimal:
      return FormatDecimal(std::get<Decimal128>(value), type.scale());
    case TypeId::kDate:
      return FormatDate(std::get<int64_t>(value));
    case TypeId::kTimestamp: {
      int64_t micros = std::get<int64_t>(value);
      std::string text = FormatTimestamp(micros);  // "yyyy-MM-dd HH:mm:ss[.f]"
      std::string date_time = text.substr(0, 19);
      date_time[10] = 'T';
      int64_t fraction = ((micros % kMicrosPerSecond) + kMicrosPerSecond) % kMicrosPerSecond;
      std::string digits = std::to_string(fraction);
      return date_time + "." + std::string(6 - digits.size(), '0') + digits + "Z";
    }
    case TypeId::kTimestampNtz:
      return FormatTimestamp(std::get<int64_t>(value));
    case TypeId::kString:
    case TypeId::kBinary:
      return std::get<std::string>(value);
    default:
      SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", type.ToString() + " as a partition column"}});
  }
}

int CompareScalars(const Scalar& left, const Scalar& right) {
  SILT_CHECK(left.index() == right.index(), "scalars of one column have one representation");
  switch (left.index()) {
    case 0:
      return int(std::get<bool>(left)) - int(std::get<bool>(right));
    case 1: {
      int64_t a = std::get<int64_t>(left);
      int64_t b = std::get<int64_t>(right);
      return a < b ? -1 : (a > b ? 1 : 0);
    }
    case 2: {
      double a = std::get<double>(left);
      double b = std::get<double>(right);
      if (std::isnan(a) || std::isnan(b)) return int(std::isnan(a)) - int(std::isnan(b));
      return Sign(a - b);
    }
    case 3: {
      Decimal128 a = std::get<Decimal128>(left);
      Decimal128 b = std::get<Decimal128>(right);
      return a < b ? -1 : (a > b ? 1 : 0);
    }
    default: {
      int result = std::get<std::string>(left).compare(std::get<std::string>(right));
      return result < 0 ? -1 : (result > 0 ? 1 : 0);
    }
  }
}

void AppendScalar(VectorBuilder& builder, const std::optional<Scalar>& value) {
  if (!value) {
    builder.AppendNull();
    return;
  }
  switch (builder.type()->id()) {
    case TypeId::kBoolean: builder.AppendBool(std::get<bool>(*value)); break;
    case TypeId::kFloat: builder.AppendFloat(static_cast<float>(std::get<double>(*value))); break;
    case TypeId::kDouble: builder.AppendDouble(std::get<double>(*value)); break;
    case TypeId::kDecimal: builder.AppendDecimal(std::get<Decimal128>(*value)); break;
    case TypeId::kString:
    case TypeId::kBinary: builder.AppendString(std::get<std::string>(*value)); break;
    case TypeId::kNull: builder.AppendNull(); break;
    default: builder.AppendInt(std::get<int64_t>(*value)); break;
  }
}

VectorPtr MakeConstantVector(const DataTypePtr& type, const std::optional<Scalar>& value,
                             int64_t length) {
  if (!value || type->id() == TypeId::kNull) return Vector::MakeAllNull(type, length);
  VectorBuilder builder(type, length);
  for (int64_t i = 0; i < length; ++i) AppendScalar(builder, value);
  return builder.Finish();
}

std::string FormatPartitionValue(const Vector& vector, int64_t row) {
  const DataType& type = *vector.type();
  Scalar value;
  switch (type.id()) {
    case TypeId::kBoolean: value = vector.GetBool(row); break;
    case TypeId::kByte: value = static_cast<int64_t>(vector.values<int8_t>()[row]); break;
    case TypeId::kShort: value = static_cast<int64_t>(vector.values<int16_t>()[row]); break;
    case TypeId::kInteger:
    case TypeId::kDate: value = static_cast<int64_t>(vector.values<int32_t>()[row]); break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz: value = vector.values<int64_t>()[row]; break;
    case TypeId::kFloat: value = static_cast<double>(vector.values<float>()[row]); break;
    case TypeId::kDouble: value = vector.values<double>()[row]; break;
    case TypeId::kDecimal: value = vector.values<Decimal128>()[row]; break;
    case TypeId::kString:
    case TypeId::kBinary: value = std::string(vector.GetString(row)); break;
    default:
      SILT_THROW(UNSUPPORTED_DATA_TYPE, {{"type", type.ToString() + " as a partition column"}});
  }
  return FormatPartitionValue(type, value);
}

}  // namespace silt::log
