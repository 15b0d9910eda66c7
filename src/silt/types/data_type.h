#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace silt {

/// The logical types of Delta tables. Each maps to one Arrow physical layout (vector.h).
enum class TypeId : uint8_t {
  kNull,          ///< Delta "void": every value is NULL; no buffers.
  kBoolean,       ///< bit-packed values
  kByte,          ///< int8   (Delta "byte")
  kShort,         ///< int16  (Delta "short")
  kInteger,       ///< int32  (Delta "integer")
  kLong,          ///< int64  (Delta "long")
  kFloat,         ///< float32
  kDouble,        ///< float64
  kDecimal,       ///< 128-bit two's complement little-endian, with precision <= 38 and scale
  kDate,          ///< int32 days since 1970-01-01 (Arrow date32)
  kTimestamp,     ///< int64 microseconds since the epoch, UTC (Delta "timestamp")
  kTimestampNtz,  ///< int64 microseconds, no time zone (Delta "timestamp_ntz")
  kString,        ///< UTF-8; int32 offsets + data
  kBinary,        ///< bytes; int32 offsets + data
  kStruct,        ///< children, one per field
  kList,          ///< int32 offsets + one child (Delta "array")
  kMap,           ///< int32 offsets + one child struct<key, value> (Arrow's map layout)
  /// Spark's ANSI YEAR-MONTH interval: int32 months. Not a Delta column type (query values only).
  kYearMonthInterval,
  /// Spark's ANSI DAY-TIME interval: int64 microseconds. Not a Delta column type.
  kDayTimeInterval,
};

/// The fields of a YEAR-MONTH interval type, in Spark's order (YearMonthIntervalType.YEAR = 0).
enum class YearMonthField : uint8_t { kYear = 0, kMonth = 1 };
/// The fields of a DAY-TIME interval type, in Spark's order (DayTimeIntervalType.DAY = 0).
enum class DayTimeField : uint8_t { kDay = 0, kHour = 1, kMinute = 2, kSecond = 3 };

class DataType;
using DataTypePtr = std::shared_ptr<const DataType>;

/// Field metadata as Delta stores it: keys with raw JSON values, in insertion order
/// (e.g. {"delta.columnMapping.id", "3"}, {"comment", "\"the id\""}).
using FieldMetadata = std::vector<std::pair<std::string, std::string>>;

/// A named, typed column or struct member.
struct Field {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
  FieldMetadata metadata;

  /// The raw JSON value of metadata `key`, or nullptr.
  const std::string* FindMetadata(std::string_view key) const;
  /// Equality of name, type (deep), nullability and metadata (unlike DataType::Equals, which
  /// ignores metadata).
  bool operator==(const Field& other) const;
};

/// An immutable logical type. Build with the factory functions below; compare with Equals or ==.
class DataType {
 public:
  TypeId id() const { return id_; }

  /// Decimal only.
  int precision() const { return precision_; }
  int scale() const { return scale_; }
  /// Interval types only: the first and last field as the enum value (YearMonthField or
  /// DayTimeField), e.g. DAY TO SECOND is (0, 3).
  int interval_start() const { return precision_; }
  int interval_end() const { return scale_; }
  bool is_interval() const { return id_ == TypeId::kYearMonthInterval || id_ == TypeId::kDayTimeInterval; }

  /// Struct: the fields. List: one field "element". Map: "key" and "value".
  const std::vector<Field>& fields() const { return fields_; }
  /// List only.
  const DataTypePtr& element_type() const { return fields_[0].type; }
  bool contains_null() const { return fields_[0].nullable; }
  /// Map only.
  const DataTypePtr& key_type() const { return fields_[0].type; }
  const DataTypePtr& value_type() const { return fields_[1].type; }
  bool value_contains_null() const { return fields_[1].nullable; }

  bool is_nested() const {
    return id_ == TypeId::kStruct || id_ == TypeId::kList || id_ == TypeId::kMap;
  }
  /// Index of the struct field named `name` (exact match), or -1 (also for non-struct types).
  int FieldIndex(std::string_view name) const;

  /// Deep equality of types, nullability and field names (metadata ignored).
  bool Equals(const DataType& other) const;
  bool operator==(const DataType& other) const { return Equals(other); }

  /// Spark's simpleString: "bigint", "decimal(18,2)", "struct<a:int,b:string>", "array<int>",
  /// "map<string,int>", "timestamp_ntz", "void".
  std::string ToString() const;
  /// Delta's primitive type name: "long", "decimal(18,2)", "timestamp_ntz"; nested types give
  /// "struct"/"array"/"map". Interval types, which Delta cannot store, give Spark's name.
  std::string DeltaName() const;

  /// Bytes per value of a fixed-width type (bool: 0, as it is bit-packed; variable: 0).
  int FixedWidth() const;

  DataType(TypeId id, int precision, int scale, std::vector<Field> fields)
      : id_(id), precision_(precision), scale_(scale), fields_(std::move(fields)) {}

 private:
  TypeId id_;
  int precision_ = 0;
  int scale_ = 0;
  std::vector<Field> fields_;
};

// Factories. Primitive types are shared singletons (thread-safe). The nested factories throw
// INTERNAL_ERROR for a null child type. Map keys are never nullable (the "key" field has
// nullable = false).
DataTypePtr NullType();
DataTypePtr BooleanType();
DataTypePtr ByteType();
DataTypePtr ShortType();
DataTypePtr IntegerType();
DataTypePtr LongType();
DataTypePtr FloatType();
DataTypePtr DoubleType();
/// Throws INVALID_DECIMAL_TYPE unless 1 <= precision <= 38 and 0 <= scale <= precision.
DataTypePtr DecimalType(int precision, int scale);
DataTypePtr DateType();
DataTypePtr TimestampType();
DataTypePtr TimestampNtzType();
DataTypePtr StringType();
DataTypePtr BinaryType();
DataTypePtr StructType(std::vector<Field> fields);
DataTypePtr ListType(DataTypePtr element, bool contains_null = true);
DataTypePtr MapType(DataTypePtr key, DataTypePtr value, bool value_contains_null = true);
/// Spark's YearMonthIntervalType(start, end), simpleString "interval year to month", "interval
/// month". Throws INTERNAL_ERROR unless start <= end.
DataTypePtr YearMonthIntervalType(YearMonthField start = YearMonthField::kYear,
                                  YearMonthField end = YearMonthField::kMonth);
/// Spark's DayTimeIntervalType(start, end), simpleString "interval day to second", "interval
/// hour". Throws INTERNAL_ERROR unless start <= end.
DataTypePtr DayTimeIntervalType(DayTimeField start = DayTimeField::kDay,
                                DayTimeField end = DayTimeField::kSecond);

/// A table schema: the top-level fields of a struct.
class Schema {
 public:
  Schema() = default;
  explicit Schema(std::vector<Field> fields) : fields_(std::move(fields)) {}

  const std::vector<Field>& fields() const { return fields_; }
  size_t num_fields() const { return fields_.size(); }
  const Field& field(size_t i) const { return fields_[i]; }
  /// Index of the field named `name`; Spark resolves column names case-insensitively, so
  /// `case_sensitive = false` matches ASCII case-insensitively. -1 when absent.
  int FieldIndex(std::string_view name, bool case_sensitive = true) const;
  /// This schema as a struct type.
  DataTypePtr AsStruct() const;
  /// Throws DELTA_DUPLICATE_COLUMNS_FOUND when two fields of the schema, or of any struct nested
  /// in it (also inside arrays and maps), have names that are equal ignoring ASCII case: Delta
  /// requires unique column names case-insensitively.
  void CheckNoDuplicateNames() const;

  /// Equality of names, types and nullability; metadata ignored, as in DataType::Equals.
  bool Equals(const Schema& other) const;
  bool operator==(const Schema& other) const { return Equals(other); }

 private:
  std::vector<Field> fields_;
};
using SchemaPtr = std::shared_ptr<const Schema>;

}  // namespace silt
