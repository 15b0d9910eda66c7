#include "silt/cdc/postgres_types.h"

#include <cerrno>
#include <cstdlib>
#include <string>

#include "silt/base/error_class.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt::cdc {

namespace {

// pg_type OIDs of the built-in types (fixed across versions: src/include/catalog/pg_type.dat).
enum : uint32_t {
  kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kOid = 26,
  kFloat4 = 700, kFloat8 = 701, kDate = 1082, kTimestamp = 1114, kTimestampTz = 1184,
  kNumeric = 1700,
};

DataTypePtr ScalarType(uint32_t oid, int32_t type_modifier) {
  switch (oid) {
    case kBool: return BooleanType();
    case kBytea: return BinaryType();
    case kInt2: return ShortType();
    case kInt4: return IntegerType();
    case kInt8:
    case kOid: return LongType();
    case kFloat4: return FloatType();
    case kFloat8: return DoubleType();
    case kDate: return DateType();
    case kTimestamp:
    case kTimestampTz: return TimestampType();
    case kNumeric: {
      if (type_modifier < 4) return DecimalType(38, 18);
      int precision = ((type_modifier - 4) >> 16) & 0xffff;
      int scale = (type_modifier - 4) & 0xffff;
      // numeric(p, s) with a negative scale or s > p (PostgreSQL 15 allows both) has no Spark
      // equivalent with the same digits; the widest decimal keeps the values that fit.
      if (precision > 38 || scale > precision || scale > 0x7ff) return DecimalType(38, 18);
      return DecimalType(precision, scale);
    }
    default: return StringType();
  }
}

bool IsNull(std::string_view text) { return text.size() == 4 && (text == "NULL" || text == "null"); }

}  // namespace

DataTypePtr SparkTypeOf(const PostgresType& type) {
  if (type.type_type == 'e') return StringType();
  if (type.element_oid != 0 && type.type_type == 'b') {
    DataTypePtr element = type.element_type_type == 'e' ? StringType() : ScalarType(type.element_oid, type.type_modifier);
    return ListType(element);
  }
  return ScalarType(type.oid, type.type_modifier);
}

PostgresValueParser::PostgresValueParser(const PostgresType& type, std::string column_name)
    : type_(type), column_name_(std::move(column_name)), spark_type_(SparkTypeOf(type)) {}

void PostgresValueParser::ThrowBadValue(std::string_view text) const {
  std::string shown(text.substr(0, 64));
  throw MakeError(ErrorClass::CDC_SOURCE_FAILED,
                  {{"source", "PostgreSQL"},
                   {"message", "column " + column_name_ + ": '" + shown +
                                   "' is not a value of type " + spark_type_->ToString()}});
}

void PostgresValueParser::Append(VectorBuilder& builder, std::string_view text) const {
  if (spark_type_->id() == TypeId::kList) {
    AppendArray(builder, text);
    return;
  }
  AppendScalar(builder, *spark_type_, text);
}

void PostgresValueParser::AppendScalar(VectorBuilder& builder, const DataType& type,
                                       std::string_view text) const {
  switch (type.id()) {
    case TypeId::kBoolean:
      if (text == "t" || text == "true") builder.AppendBool(true);
      else if (text == "f" || text == "false") builder.AppendBool(false);
      else ThrowBadValue(text);
      return;
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong: {
      std::string digits(text);
      errno = 0;
      char* end = nullptr;
      long long value = std::strtoll(digits.c_str(), &end, 10);
      if (digits.empty() || errno != 0 || *end != '\0') {
        // oid is unsigned 32-bit; strtoll reads all of it, so only junk ends up here.
        ThrowBadValue(text);
      }
      builder.AppendInt(value);
      return;
    }
    case TypeId::kFloat:
    case TypeId::kDouble: {
      std::string digits(text);
      char* end = nullptr;
      double value = std::strtod(digits.c_str(), &end);
      if (digits.empty() || *end != '\0') ThrowBadValue(text);
      if (type.id() == TypeId::kFloat) builder.AppendFloat(static_cast<float>(value));
      else builder.AppendDouble(value);
      return;
    }
    case TypeId::kDecimal: {
      if (text == "NaN" || text == "Infinity" || text == "-Infinity") {
        builder.AppendNull();
        return;
      }
      auto value = ParseDecimal(text, type.precision(), type.scale());
      if (!value) ThrowBadValue(text);
      builder.AppendDecimal(*value);
      return;
    }
    case TypeId::kDate: {
      if (text == "infinity" || text == "-infinity") {
        builder.AppendNull();
        return;
      }
      auto days = ParseDate(text);
      if (!days) ThrowBadValue(text);
      builder.AppendInt(*days);
      return;
    }
    case TypeId::kTimestamp: {
      if (text == "infinity" || text == "-infinity") {
        builder.AppendNull();
        return;
      }
      // timestamptz ends in the session zone's offset ("+00", "+05:30", "-08:00:00"), the
      // session zone being UTC; timestamp has none and is read as UTC.
      std::string_view local = text;
      int64_t offset_seconds = 0;
      size_t sign = text.find_last_of("+-");
      if (sign != std::string_view::npos && sign > 10) {
        std::string_view zone = text.substr(sign + 1);
        int parts[3] = {0, 0, 0};
        int part = 0;
        size_t digits = 0;
        for (char c : zone) {
          if (c == ':') {
            if (++part > 2) ThrowBadValue(text);
            continue;
          }
          if (c < '0' || c > '9') ThrowBadValue(text);
          parts[part] = parts[part] * 10 + (c - '0');
          ++digits;
        }
        if (digits == 0) ThrowBadValue(text);
        offset_seconds = parts[0] * 3600 + parts[1] * 60 + parts[2];
        if (text[sign] == '-') offset_seconds = -offset_seconds;
        local = text.substr(0, sign);
      }
      auto micros = ParseTimestamp(local);
      if (!micros) ThrowBadValue(text);
      builder.AppendInt(*micros - offset_seconds * 1000000);
      return;
    }
    case TypeId::kBinary: {
      // bytea_output = hex (the default): "\x" then two hex digits per byte.
      if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0) ThrowBadValue(text);
      std::string bytes;
      bytes.reserve((text.size() - 2) / 2);
      auto nibble = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        ThrowBadValue(text);
      };
      for (size_t i = 2; i < text.size(); i += 2) {
        bytes.push_back(static_cast<char>(nibble(text[i]) * 16 + nibble(text[i + 1])));
      }
      builder.AppendString(bytes);
      return;
    }
    default:
      builder.AppendString(text);
      return;
  }
}

// PostgreSQL's array text: "{1,2,NULL}", "{"a b","c\"d"}"; one dimension (a nested brace is a
// multi-dimensional array, which has no Spark equivalent here: an error, not a wrong value).
void PostgresValueParser::AppendArray(VectorBuilder& builder, std::string_view text) const {
  // A lower bound other than 1 is written first: "[0:2]={1,2,3}".
  if (!text.empty() && text[0] == '[') {
    size_t equals = text.find('=');
    if (equals == std::string_view::npos) ThrowBadValue(text);
    text = text.substr(equals + 1);
  }
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') ThrowBadValue(text);
  const DataType& element = *spark_type_->element_type();
  VectorBuilder& elements = builder.child(0);
  std::string_view body = text.substr(1, text.size() - 2);
  size_t i = 0;
  std::string value;
  while (i < body.size()) {
    bool quoted = false;
    value.clear();
    if (body[i] == '{') ThrowBadValue(text);
    if (body[i] == '"') {
      quoted = true;
      ++i;
      while (i < body.size() && body[i] != '"') {
        if (body[i] == '\\' && i + 1 < body.size()) ++i;
        value.push_back(body[i++]);
      }
      if (i >= body.size()) ThrowBadValue(text);
      ++i;  // closing quote
    } else {
      while (i < body.size() && body[i] != ',') value.push_back(body[i++]);
    }
    if (!quoted && IsNull(value)) elements.AppendNull();
    else AppendScalar(elements, element, value);
    if (i < body.size()) {
      if (body[i] != ',') ThrowBadValue(text);
      ++i;
    }
  }
  builder.FinishList();
}

}  // namespace silt::cdc
