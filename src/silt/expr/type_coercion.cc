#include "silt/expr/type_coercion.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace silt::expr {
namespace {

// Rank of the numeric types for widening: byte < short < int < long < float < double.
int NumericRank(TypeId id) {
  switch (id) {
    case TypeId::kByte: return 1;
    case TypeId::kShort: return 2;
    case TypeId::kInteger: return 3;
    case TypeId::kLong: return 4;
    case TypeId::kFloat: return 6;
    case TypeId::kDouble: return 7;
    default: return 0;
  }
}

DataTypePtr WiderDecimal(const DataType& left, const DataType& right) {
  int scale = std::max(left.scale(), right.scale());
  int integer_digits = std::max(left.precision() - left.scale(), right.precision() - right.scale());
  // Spark's widerDecimalType bounds to 38 digits, keeping the scale when it can.
  int precision = std::min(integer_digits + scale, kMaxDecimalPrecision);
  scale = std::min(scale, precision - std::min(integer_digits, kMaxDecimalPrecision));
  return DecimalType(precision, std::max(scale, 0));
}

bool IsDatetime(TypeId id) {
  return id == TypeId::kDate || id == TypeId::kTimestamp || id == TypeId::kTimestampNtz;
}

// The wider of two numeric types, or nullptr.
DataTypePtr WiderNumeric(const DataTypePtr& left, const DataTypePtr& right) {
  if (!IsNumeric(*left) || !IsNumeric(*right)) return nullptr;
  bool left_decimal = left->id() == TypeId::kDecimal;
  bool right_decimal = right->id() == TypeId::kDecimal;
  if (left_decimal || right_decimal) {
    if ((!left_decimal && !IsIntegral(*left)) || (!right_decimal && !IsIntegral(*right))) {
      return DoubleType();
    }
    return WiderDecimal(*DecimalForIntegral(left), *DecimalForIntegral(right));
  }
  return NumericRank(left->id()) >= NumericRank(right->id()) ? left : right;
}

// The type a string is implicitly cast to when it meets `other` (ANSI string promotion).
DataTypePtr StringPromotion(const DataTypePtr& other) {
  if (IsIntegral(*other)) return LongType();
  if (IsNumeric(*other)) return DoubleType();
  switch (other->id()) {
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kBoolean:
    case TypeId::kString:
    case TypeId::kBinary: return other;
    default: return nullptr;
  }
}

}  // namespace

bool IsIntegral(const DataType& type) {
  TypeId id = type.id();
  return id == TypeId::kByte || id == TypeId::kShort || id == TypeId::kInteger || id == TypeId::kLong;
}

bool IsNumeric(const DataType& type) {
  return IsIntegral(type) || type.id() == TypeId::kFloat || type.id() == TypeId::kDouble ||
         type.id() == TypeId::kDecimal;
}

DataTypePtr DecimalForIntegral(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kByte: return DecimalType(3, 0);
    case TypeId::kShort: return DecimalType(5, 0);
    case TypeId::kInteger: return DecimalType(10, 0);
    case TypeId::kLong: return DecimalType(20, 0);
    case TypeId::kDecimal: return type;
    default: return nullptr;
  }
}

DataTypePtr AdjustedDecimal(int precision, int scale) {
  if (precision <= kMaxDecimalPrecision) return DecimalType(std::max(precision, 1), scale);
  int integer_digits = precision - scale;
  int minimum_scale = std::min(scale, kMinimumAdjustedScale);
  int adjusted_scale = std::max(kMaxDecimalPrecision - integer_digits, minimum_scale);
  return DecimalType(kMaxDecimalPrecision, adjusted_scale);
}

std::optional<ArithmeticTypes> ResolveArithmetic(ArithmeticOperator op, const DataTypePtr& left,
                                                 const DataTypePtr& right) {
  DataTypePtr left_type = left;
  DataTypePtr right_type = right;
  if (left_type->id() == TypeId::kNull) left_type = right_type;
  if (right_type->id() == TypeId::kNull) right_type = left_type;
  if (left_type->id() == TypeId::kNull) left_type = right_type = DoubleType();
  // ANSI string promotion: a string beside an integral operand becomes BIGINT, beside another
  // number DOUBLE (`1 + '2'` is BIGINT 3); two strings are added as DOUBLE.
  if (left_type->id() == TypeId::kString) {
    left_type = IsNumeric(*right_type) ? StringPromotion(right_type) : DoubleType();
  }
  if (right_type->id() == TypeId::kString) {
    right_type = IsNumeric(*left_type) ? StringPromotion(left_type) : DoubleType();
  }
  if (!IsNumeric(*left_type) || !IsNumeric(*right_type)) return std::nullopt;

  bool any_decimal = left_type->id() == TypeId::kDecimal || right_type->id() == TypeId::kDecimal;
  bool any_floating = left_type->id() == TypeId::kFloat || left_type->id() == TypeId::kDouble ||
                      right_type->id() == TypeId::kFloat || right_type->id() == TypeId::kDouble;
  if (any_decimal && !any_floating) {
    DataTypePtr a = DecimalForIntegral(left_type);
    DataTypePtr b = DecimalForIntegral(right_type);
    int p1 = a->precision(), s1 = a->scale(), p2 = b->precision(), s2 = b->scale();
    int precision = 0, scale = 0;
    switch (op) {
      case ArithmeticOperator::kAdd:
      case ArithmeticOperator::kSubtract:
        scale = std::max(s1, s2);
        precision = std::max(p1 - s1, p2 - s2) + scale + 1;
        break;
      case ArithmeticOperator::kMultiply:
        precision = p1 + p2 + 1;
        scale = s1 + s2;
        break;
      case ArithmeticOperator::kDivide:
        scale = std::max(kMinimumAdjustedScale, s1 + p2 + 1);
        precision = p1 - s1 + s2 + scale;
        break;
      case ArithmeticOperator::kRemainder:
        precision = std::min(p1 - s1, p2 - s2) + std::max(s1, s2);
        scale = std::max(s1, s2);
        break;
    }
    ArithmeticTypes types;
    types.decimal = true;
    types.operand = nullptr;
    types.result = AdjustedDecimal(precision, scale);
    return types;
  }
  ArithmeticTypes types;
  if (op == ArithmeticOperator::kDivide) {
    types.operand = DoubleType();
    types.result = DoubleType();
    return types;
  }
  DataTypePtr wider = any_decimal ? DoubleType() : WiderNumeric(left_type, right_type);
  types.operand = wider;
  types.result = wider;
  return types;
}

// Two interval types of the same kind widen to the interval spanning both types' fields
// (INTERVAL HOUR and INTERVAL MINUTE to SECOND: INTERVAL HOUR TO SECOND); the values need no
// conversion. nullptr for other pairs.
DataTypePtr WiderInterval(const DataTypePtr& left, const DataTypePtr& right) {
  if (!left->is_interval() || left->id() != right->id()) return nullptr;
  int start = std::min(left->interval_start(), right->interval_start());
  int end = std::max(left->interval_end(), right->interval_end());
  if (left->id() == TypeId::kYearMonthInterval) {
    return YearMonthIntervalType(static_cast<YearMonthField>(start), static_cast<YearMonthField>(end));
  }
  return DayTimeIntervalType(static_cast<DayTimeField>(start), static_cast<DayTimeField>(end));
}

std::optional<DataTypePtr> ComparisonType(const DataTypePtr& left, const DataTypePtr& right) {
  if (left->Equals(*right)) return left;
  if (left->id() == TypeId::kNull) return right;
  if (right->id() == TypeId::kNull) return left;
  if (DataTypePtr wider = WiderInterval(left, right)) return wider;
  if (DataTypePtr wider = WiderNumeric(left, right)) return wider;
  if (left->id() == TypeId::kString) {
    if (DataTypePtr promoted = StringPromotion(right)) return promoted;
    return std::nullopt;
  }
  if (right->id() == TypeId::kString) return ComparisonType(right, left);
  if (IsDatetime(left->id()) && IsDatetime(right->id())) {
    // date vs timestamp compares as timestamp; timestamp vs timestamp_ntz as timestamp.
    if (left->id() == TypeId::kTimestamp || right->id() == TypeId::kTimestamp) return TimestampType();
    return TimestampNtzType();
  }
  return std::nullopt;
}

std::optional<DataTypePtr> WiderType(const DataTypePtr& left, const DataTypePtr& right) {
  if (left->Equals(*right)) return left;
  if (left->id() == TypeId::kNull) return right;
  if (right->id() == TypeId::kNull) return left;
  if (DataTypePtr wider = WiderInterval(left, right)) return wider;
  if (DataTypePtr wider = WiderNumeric(left, right)) return wider;
  if (left->id() == TypeId::kString || right->id() == TypeId::kString) {
    const DataTypePtr& other = left->id() == TypeId::kString ? right : left;
    // In CASE/COALESCE branches Spark's ANSI coercion widens to string for datetime types and
    // reads the string as the other type for numerics and booleans.
    if (IsDatetime(other->id())) return StringType();
    if (DataTypePtr promoted = StringPromotion(other)) return promoted;
    return std::nullopt;
  }
  if (IsDatetime(left->id()) && IsDatetime(right->id())) {
    if (left->id() == TypeId::kTimestamp || right->id() == TypeId::kTimestamp) return TimestampType();
    return TimestampNtzType();
  }
  if (left->id() == right->id() && left->id() == TypeId::kList) {
    auto element = WiderType(left->element_type(), right->element_type());
    if (!element) return std::nullopt;
    return ListType(*element, left->contains_null() || right->contains_null());
  }
  if (left->id() == right->id() && left->id() == TypeId::kMap) {
    auto key = WiderType(left->key_type(), right->key_type());
    auto value = WiderType(left->value_type(), right->value_type());
    if (!key || !value) return std::nullopt;
    return MapType(*key, *value, left->value_contains_null() || right->value_contains_null());
  }
  if (left->id() == right->id() && left->id() == TypeId::kStruct &&
      left->fields().size() == right->fields().size()) {
    std::vector<Field> fields;
    for (size_t i = 0; i < left->fields().size(); ++i) {
      auto field_type = WiderType(left->fields()[i].type, right->fields()[i].type);
      if (!field_type) return std::nullopt;
      fields.push_back(Field{left->fields()[i].name, *field_type,
                             left->fields()[i].nullable || right->fields()[i].nullable, {}});
    }
    return StructType(std::move(fields));
  }
  return std::nullopt;
}

std::optional<DataTypePtr> CommonType(const std::vector<DataTypePtr>& types) {
  if (types.empty()) return std::nullopt;
  DataTypePtr common = types[0];
  for (size_t i = 1; i < types.size(); ++i) {
    auto wider = WiderType(common, types[i]);
    if (!wider) return std::nullopt;
    common = *wider;
  }
  return common;
}

bool CanStoreAssign(const DataTypePtr& from, const DataTypePtr& to, bool checked_nullability) {
  if (from->Equals(*to) || from->id() == TypeId::kNull) return true;
  if (IsNumeric(*from) && IsNumeric(*to)) return true;
  if (to->id() == TypeId::kString && !from->is_nested()) return true;
  if (IsDatetime(from->id()) && IsDatetime(to->id())) return true;
  if (from->id() != to->id()) return false;
  switch (from->id()) {
    case TypeId::kList:
      return CanStoreAssign(from->element_type(), to->element_type(), checked_nullability) &&
             (to->contains_null() || !from->contains_null());
    case TypeId::kMap:
      return CanStoreAssign(from->key_type(), to->key_type(), checked_nullability) &&
             CanStoreAssign(from->value_type(), to->value_type(), checked_nullability) &&
             (to->value_contains_null() || !from->value_contains_null());
    case TypeId::kStruct: {
      if (from->fields().size() != to->fields().size()) return false;
      for (size_t i = 0; i < from->fields().size(); ++i) {
        if (!CanStoreAssign(from->fields()[i].type, to->fields()[i].type, checked_nullability)) return false;
        if (from->fields()[i].nullable && !to->fields()[i].nullable && !checked_nullability) return false;
      }
      return true;
    }
    default: return false;
  }
}

namespace {

// The decimal an integer type fits exactly (Spark's DecimalType.forType), as {precision, scale}.
std::optional<std::pair<int, int>> DecimalDigits(const DataType& type) {
  switch (type.id()) {
    case TypeId::kByte: return std::pair{3, 0};
    case TypeId::kShort: return std::pair{5, 0};
    case TypeId::kInteger: return std::pair{10, 0};
    case TypeId::kLong: return std::pair{20, 0};
    case TypeId::kDecimal: return std::pair{type.precision(), type.scale()};
    default: return std::nullopt;
  }
}

}  // namespace

bool CanUpCast(const DataTypePtr& from, const DataTypePtr& to) {
  if (from->Equals(*to) || from->id() == TypeId::kNull) return true;
  const TypeId f = from->id();
  const TypeId t = to->id();
  if (t == TypeId::kString && !from->is_nested()) return true;
  if (f == TypeId::kDate && (t == TypeId::kTimestamp || t == TypeId::kTimestampNtz)) return true;
  if ((f == TypeId::kTimestamp && t == TypeId::kTimestampNtz) ||
      (f == TypeId::kTimestampNtz && t == TypeId::kTimestamp)) {
    return true;
  }
  if ((f == TypeId::kTimestamp && t == TypeId::kLong) || (f == TypeId::kLong && t == TypeId::kTimestamp)) {
    return true;
  }
  if (t == TypeId::kDecimal || f == TypeId::kDecimal) {
    // Decimal on either side: every digit of `from` must fit (integers as their exact decimals).
    auto a = DecimalDigits(*from);
    auto b = DecimalDigits(*to);
    if (!a || !b) return false;
    return (b->first - b->second) >= (a->first - a->second) && b->second >= a->second;
  }
  if (NumericRank(f) > 0 && NumericRank(t) > 0) return NumericRank(f) < NumericRank(t);
  if (f != t) return false;
  switch (f) {
    case TypeId::kList:
      return CanUpCast(from->element_type(), to->element_type()) &&
             (to->contains_null() || !from->contains_null());
    case TypeId::kMap:
      return CanUpCast(from->key_type(), to->key_type()) && CanUpCast(from->value_type(), to->value_type()) &&
             (to->value_contains_null() || !from->value_contains_null());
    case TypeId::kStruct: {
      if (from->fields().size() != to->fields().size()) return false;
      for (size_t i = 0; i < from->fields().size(); ++i) {
        if (!CanUpCast(from->fields()[i].type, to->fields()[i].type)) return false;
        if (from->fields()[i].nullable && !to->fields()[i].nullable) return false;
      }
      return true;
    }
    default: return false;
  }
}

ExpressionPtr CastIfNeeded(ExpressionPtr expression, const DataTypePtr& type) {
  if (expression->type()->Equals(*type)) return expression;
  return Cast(std::move(expression), type);
}

}  // namespace silt::expr
