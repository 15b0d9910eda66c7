#include "silt/expr/scalar.h"

#include <cstring>

#include "silt/base/check.h"

namespace silt::expr {
namespace {

template <typename AppendFunction>
Scalar BuildOne(DataTypePtr type, AppendFunction append) {
  VectorBuilder builder(std::move(type), 1);
  append(builder);
  return Scalar::FromVector(*builder.Finish(), 0);
}

}  // namespace

Scalar Scalar::Null(DataTypePtr type) { return Scalar(Vector::MakeAllNull(std::move(type), 1)); }

Scalar Scalar::Boolean(bool value) {
  return BuildOne(BooleanType(), [&](VectorBuilder& b) { b.AppendBool(value); });
}
Scalar Scalar::Byte(int8_t value) {
  return BuildOne(ByteType(), [&](VectorBuilder& b) { b.AppendInt(value); });
}
Scalar Scalar::Short(int16_t value) {
  return BuildOne(ShortType(), [&](VectorBuilder& b) { b.AppendInt(value); });
}
Scalar Scalar::Integer(int32_t value) {
  return BuildOne(IntegerType(), [&](VectorBuilder& b) { b.AppendInt(value); });
}
Scalar Scalar::Long(int64_t value) {
  return BuildOne(LongType(), [&](VectorBuilder& b) { b.AppendInt(value); });
}
Scalar Scalar::Float(float value) {
  return BuildOne(FloatType(), [&](VectorBuilder& b) { b.AppendFloat(value); });
}
Scalar Scalar::Double(double value) {
  return BuildOne(DoubleType(), [&](VectorBuilder& b) { b.AppendDouble(value); });
}
Scalar Scalar::Decimal(Decimal128 unscaled, DataTypePtr type) {
  SILT_CHECK(type && type->id() == TypeId::kDecimal, "Scalar::Decimal needs a decimal type");
  return BuildOne(std::move(type), [&](VectorBuilder& b) { b.AppendDecimal(unscaled); });
}
Scalar Scalar::Date(int32_t days) {
  return BuildOne(DateType(), [&](VectorBuilder& b) { b.AppendInt(days); });
}
Scalar Scalar::Timestamp(int64_t micros) {
  return BuildOne(TimestampType(), [&](VectorBuilder& b) { b.AppendInt(micros); });
}
Scalar Scalar::TimestampNtz(int64_t micros) {
  return BuildOne(TimestampNtzType(), [&](VectorBuilder& b) { b.AppendInt(micros); });
}
Scalar Scalar::Interval(int64_t value, DataTypePtr type) {
  SILT_CHECK(type && type->is_interval(), "Scalar::Interval needs an interval type");
  return BuildOne(std::move(type), [&](VectorBuilder& b) { b.AppendInt(value); });
}
Scalar Scalar::String(std::string_view value) {
  return BuildOne(StringType(), [&](VectorBuilder& b) { b.AppendString(value); });
}
Scalar Scalar::Binary(std::string_view value) {
  return BuildOne(BinaryType(), [&](VectorBuilder& b) { b.AppendString(value); });
}

Scalar Scalar::FromVector(const Vector& vector, int64_t row) {
  SILT_CHECK(row >= 0 && row < vector.length(), "Scalar::FromVector row out of range");
  // Copy so that a scalar never keeps a large batch alive.
  VectorBuilder builder(vector.type(), 1);
  builder.AppendFrom(vector, row);
  return Scalar(builder.Finish());
}

bool Scalar::GetBool() const {
  SILT_CHECK(type()->id() == TypeId::kBoolean && !is_null(), "Scalar::GetBool on a non-boolean");
  return value_->GetBool(0);
}

int64_t Scalar::GetInt() const {
  SILT_CHECK(!is_null(), "Scalar::GetInt on NULL");
  switch (type()->id()) {
    case TypeId::kByte: return value_->values<int8_t>()[0];
    case TypeId::kShort: return value_->values<int16_t>()[0];
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: return value_->values<int32_t>()[0];
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return value_->values<int64_t>()[0];
    default: SILT_CHECK(false, "Scalar::GetInt on type " + type()->ToString());
  }
  return 0;
}

double Scalar::GetDouble() const {
  SILT_CHECK(!is_null(), "Scalar::GetDouble on NULL");
  if (type()->id() == TypeId::kFloat) return value_->values<float>()[0];
  SILT_CHECK(type()->id() == TypeId::kDouble, "Scalar::GetDouble on type " + type()->ToString());
  return value_->values<double>()[0];
}

Decimal128 Scalar::GetDecimal() const {
  SILT_CHECK(type()->id() == TypeId::kDecimal && !is_null(), "Scalar::GetDecimal on a non-decimal");
  return value_->values<Decimal128>()[0];
}

std::string_view Scalar::GetString() const {
  SILT_CHECK((type()->id() == TypeId::kString || type()->id() == TypeId::kBinary) && !is_null(),
             "Scalar::GetString on a non-string");
  return value_->GetString(0);
}

std::string Scalar::ToString() const { return value_->ValueToString(0); }

VectorPtr Scalar::ToVector(int64_t num_rows) const {
  if (is_null()) return Vector::MakeAllNull(type(), num_rows);
  int width = type()->FixedWidth();
  if (width > 0) {
    // Fill the values buffer directly: constants are expanded once per batch.
    BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * width);
    const uint8_t* source = value_->buffer(1)->data() + value_->offset() * width;
    for (int64_t i = 0; i < num_rows; ++i) std::memcpy(values->data() + i * width, source, width);
    return Vector::Make(type(), num_rows, {nullptr, values}, {}, 0);
  }
  if (type()->id() == TypeId::kBoolean) {
    size_t bytes = static_cast<size_t>((num_rows + 7) / 8);
    BufferPtr values = Buffer::Allocate(bytes);
    std::memset(values->data(), value_->GetBool(0) ? 0xFF : 0, bytes);
    return Vector::Make(type(), num_rows, {nullptr, values}, {}, 0);
  }
  VectorBuilder builder(type(), num_rows);
  for (int64_t i = 0; i < num_rows; ++i) builder.AppendFrom(*value_, 0);
  return builder.Finish();
}

bool Scalar::Equals(const Scalar& other) const { return value_->Equals(*other.value_); }

}  // namespace silt::expr
