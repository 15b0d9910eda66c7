#include "silt/types/data_type.h"

#include <string>

#include "silt/base/check.h"

namespace silt {
namespace {

DataTypePtr MakePrimitive(TypeId id) {
  return std::make_shared<const DataType>(id, 0, 0, std::vector<Field>{});
}

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreAsciiCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// Names, types and nullability; metadata deliberately ignored (see DataType::Equals).
bool FieldsEqual(const std::vector<Field>& a, const std::vector<Field>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].nullable != b[i].nullable) return false;
    if (a[i].type == b[i].type) continue;
    if (!a[i].type || !b[i].type || !a[i].type->Equals(*b[i].type)) return false;
  }
  return true;
}

}  // namespace

const std::string* Field::FindMetadata(std::string_view key) const {
  for (const auto& [name, value] : metadata) {
    if (name == key) return &value;
  }
  return nullptr;
}

bool Field::operator==(const Field& other) const {
  if (name != other.name || nullable != other.nullable || metadata != other.metadata) return false;
  if (type == other.type) return true;
  return type && other.type && type->Equals(*other.type);
}

int DataType::FieldIndex(std::string_view name) const {
  if (id_ != TypeId::kStruct) return -1;
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (fields_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

bool DataType::Equals(const DataType& other) const {
  if (this == &other) return true;
  if (id_ != other.id_) return false;
  if (id_ == TypeId::kDecimal || is_interval()) {
    return precision_ == other.precision_ && scale_ == other.scale_;
  }
  return FieldsEqual(fields_, other.fields_);
}

std::string DataType::ToString() const {
  // Spark's simpleString differs from Delta's names only for the integral and nested types.
  switch (id_) {
    case TypeId::kByte:
      return "tinyint";
    case TypeId::kShort:
      return "smallint";
    case TypeId::kInteger:
      return "int";
    case TypeId::kLong:
      return "bigint";
    case TypeId::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields_.size(); ++i) {
        if (i > 0) out += ',';
        out += fields_[i].name;
        out += ':';
        out += fields_[i].type->ToString();
      }
      out += '>';
      return out;
    }
    case TypeId::kList:
      return "array<" + element_type()->ToString() + ">";
    case TypeId::kMap:
      return "map<" + key_type()->ToString() + "," + value_type()->ToString() + ">";
    default:
      return DeltaName();
  }
}

std::string DataType::DeltaName() const {
  switch (id_) {
    case TypeId::kNull:
      return "void";
    case TypeId::kBoolean:
      return "boolean";
    case TypeId::kByte:
      return "byte";
    case TypeId::kShort:
      return "short";
    case TypeId::kInteger:
      return "integer";
    case TypeId::kLong:
      return "long";
    case TypeId::kFloat:
      return "float";
    case TypeId::kDouble:
      return "double";
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision_) + "," + std::to_string(scale_) + ")";
    case TypeId::kDate:
      return "date";
    case TypeId::kTimestamp:
      return "timestamp";
    case TypeId::kTimestampNtz:
      return "timestamp_ntz";
    case TypeId::kString:
      return "string";
    case TypeId::kBinary:
      return "binary";
    case TypeId::kStruct:
      return "struct";
    case TypeId::kList:
      return "array";
    case TypeId::kMap:
      return "map";
    case TypeId::kYearMonthInterval:
    case TypeId::kDayTimeInterval: {
      static const char* const kYearMonthNames[] = {"year", "month"};
      static const char* const kDayTimeNames[] = {"day", "hour", "minute", "second"};
      const char* const* names = id_ == TypeId::kYearMonthInterval ? kYearMonthNames : kDayTimeNames;
      std::string out = std::string("interval ") + names[precision_];
      if (scale_ != precision_) out += std::string(" to ") + names[scale_];
      return out;
    }
  }
  return "unknown";
}

int DataType::FixedWidth() const {
  switch (id_) {
    case TypeId::kByte:
      return 1;
    case TypeId::kShort:
      return 2;
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kFloat:
    case TypeId::kYearMonthInterval:
      return 4;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDouble:
    case TypeId::kDayTimeInterval:
      return 8;
    case TypeId::kDecimal:
      return 16;
    default:
      return 0;
  }
}

DataTypePtr NullType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kNull);
  return type;
}
DataTypePtr BooleanType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kBoolean);
  return type;
}
DataTypePtr ByteType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kByte);
  return type;
}
DataTypePtr ShortType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kShort);
  return type;
}
DataTypePtr IntegerType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kInteger);
  return type;
}
DataTypePtr LongType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kLong);
  return type;
}
DataTypePtr FloatType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kFloat);
  return type;
}
DataTypePtr DoubleType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kDouble);
  return type;
}
DataTypePtr DateType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kDate);
  return type;
}
DataTypePtr TimestampType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kTimestamp);
  return type;
}
DataTypePtr TimestampNtzType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kTimestampNtz);
  return type;
}
DataTypePtr StringType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kString);
  return type;
}
DataTypePtr BinaryType() {
  static const DataTypePtr type = MakePrimitive(TypeId::kBinary);
  return type;
}

DataTypePtr DecimalType(int precision, int scale) {
  SILT_USER_CHECK(precision >= 1 && precision <= 38, INVALID_DECIMAL_TYPE,
                  {{"precision", std::to_string(precision)},
                   {"scale", std::to_string(scale)},
                   {"reason", "precision must be between 1 and 38"}});
  SILT_USER_CHECK(scale >= 0 && scale <= precision, INVALID_DECIMAL_TYPE,
                  {{"precision", std::to_string(precision)},
                   {"scale", std::to_string(scale)},
                   {"reason", "scale must be between 0 and the precision"}});
  return std::make_shared<const DataType>(TypeId::kDecimal, precision, scale, std::vector<Field>{});
}

DataTypePtr StructType(std::vector<Field> fields) {
  for (const Field& field : fields) {
    SILT_CHECK(field.type != nullptr, "struct field '" + field.name + "' has no type");
  }
  return std::make_shared<const DataType>(TypeId::kStruct, 0, 0, std::move(fields));
}

DataTypePtr ListType(DataTypePtr element, bool contains_null) {
  SILT_CHECK(element != nullptr, "array element type is null");
  std::vector<Field> fields;
  fields.push_back(Field{"element", std::move(element), contains_null, {}});
  return std::make_shared<const DataType>(TypeId::kList, 0, 0, std::move(fields));
}

DataTypePtr MapType(DataTypePtr key, DataTypePtr value, bool value_contains_null) {
  SILT_CHECK(key != nullptr && value != nullptr, "map key or value type is null");
  std::vector<Field> fields;
  // Map keys are never NULL in Spark or Delta.
  fields.push_back(Field{"key", std::move(key), false, {}});
  fields.push_back(Field{"value", std::move(value), value_contains_null, {}});
  return std::make_shared<const DataType>(TypeId::kMap, 0, 0, std::move(fields));
}

DataTypePtr YearMonthIntervalType(YearMonthField start, YearMonthField end) {
  SILT_CHECK(start <= end, "a year-month interval type must start at or before its end field");
  return std::make_shared<const DataType>(TypeId::kYearMonthInterval, static_cast<int>(start),
                                          static_cast<int>(end), std::vector<Field>{});
}

DataTypePtr DayTimeIntervalType(DayTimeField start, DayTimeField end) {
  SILT_CHECK(start <= end, "a day-time interval type must start at or before its end field");
  return std::make_shared<const DataType>(TypeId::kDayTimeInterval, static_cast<int>(start),
                                          static_cast<int>(end), std::vector<Field>{});
}

int Schema::FieldIndex(std::string_view name, bool case_sensitive) const {
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (case_sensitive ? fields_[i].name == name : EqualsIgnoreAsciiCase(fields_[i].name, name)) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

namespace {

std::string AsciiLowerCopy(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// `path` names the struct being checked ("" for the top level, "a.b" for a nested one).
void CheckUniqueNames(const std::vector<Field>& fields, const std::string& path);

void CheckNestedNames(const DataType& type, const std::string& path) {
  switch (type.id()) {
    case TypeId::kStruct:
      CheckUniqueNames(type.fields(), path);
      break;
    case TypeId::kList:
      CheckNestedNames(*type.element_type(), path + ".element");
      break;
    case TypeId::kMap:
      CheckNestedNames(*type.key_type(), path + ".key");
      CheckNestedNames(*type.value_type(), path + ".value");
      break;
    default:
      break;
  }
}

void CheckUniqueNames(const std::vector<Field>& fields, const std::string& path) {
  // Schemas are small; a quadratic scan keeps the first duplicate's original spelling at hand.
  for (size_t i = 0; i < fields.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (EqualsIgnoreAsciiCase(fields[i].name, fields[j].name)) {
        std::string qualified = path.empty() ? "" : path + ".";
        SILT_THROW(DELTA_DUPLICATE_COLUMNS_FOUND,
                   {{"coltype", path.empty() ? "in the data schema" : "in " + path},
                    {"duplicateCols", qualified + AsciiLowerCopy(fields[i].name)}});
      }
    }
  }
  for (const Field& field : fields) {
    CheckNestedNames(*field.type, path.empty() ? field.name : path + "." + field.name);
  }
}

}  // namespace

DataTypePtr Schema::AsStruct() const { return StructType(fields_); }

void Schema::CheckNoDuplicateNames() const { CheckUniqueNames(fields_, ""); }

bool Schema::Equals(const Schema& other) const { return FieldsEqual(fields_, other.fields_); }

}  // namespace silt
