#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "silt/base/check.h"
#include "silt/vector/vector.h"

namespace silt {
namespace {

size_t BitmapBytes(int64_t bits) { return static_cast<size_t>((bits + 7) / 8); }

void SetBit(uint8_t* bitmap, int64_t bit, bool value) {
  uint8_t mask = static_cast<uint8_t>(1u << (bit & 7));
  if (value) {
    bitmap[bit >> 3] |= mask;
  } else {
    bitmap[bit >> 3] &= static_cast<uint8_t>(~mask);
  }
}

bool IsOffsetType(TypeId id) {
  return id == TypeId::kString || id == TypeId::kBinary || id == TypeId::kList ||
         id == TypeId::kMap;
}

[[noreturn]] void ThrowMismatch(const DataType& type, std::string_view appended) {
  SILT_THROW(VECTOR_TYPE_MISMATCH,
             {{"expected", type.ToString()}, {"actual", std::string(appended)}});
}

}  // namespace

VectorBuilder::VectorBuilder(DataTypePtr type, int64_t capacity_hint) : type_(std::move(type)) {
  SILT_CHECK(type_ != nullptr, "builder type is null");
  capacity_hint = std::max<int64_t>(capacity_hint, 0);
  TypeId id = type_->id();
  if (id == TypeId::kBoolean) {
    values_ = Buffer::Allocate(0, false, BitmapBytes(capacity_hint));
  } else if (IsOffsetType(id)) {
    values_ = Buffer::Allocate(0, false, static_cast<size_t>(capacity_hint + 1) * 4);
    int32_t zero = 0;
    values_->Append(&zero, sizeof(zero));
    if (id == TypeId::kString || id == TypeId::kBinary) data_ = Buffer::Allocate(0);
  } else if (type_->FixedWidth() > 0) {
    values_ = Buffer::Allocate(
        0, false, static_cast<size_t>(capacity_hint) * static_cast<size_t>(type_->FixedWidth()));
  }
  if (id == TypeId::kStruct) {
    for (const Field& field : type_->fields()) {
      children_.push_back(std::make_unique<VectorBuilder>(field.type, capacity_hint));
    }
  } else if (id == TypeId::kList) {
    children_.push_back(std::make_unique<VectorBuilder>(type_->element_type()));
  } else if (id == TypeId::kMap) {
    children_.push_back(std::make_unique<VectorBuilder>(StructType(type_->fields())));
  }
}

VectorBuilder::~VectorBuilder() = default;

void VectorBuilder::AppendValidity(bool valid) {
  if (!valid && !validity_) {
    // The bitmap is materialised at the first NULL; until then every row was valid.
    validity_ = Buffer::Allocate(BitmapBytes(length_ + 1), false, BitmapBytes(length_ + 64));
    std::memset(validity_->data(), 0xFF, validity_->size());
  }
  if (validity_) {
    if (validity_->size() < BitmapBytes(length_ + 1)) {
      validity_->Resize(BitmapBytes(length_ + 1), true);
    }
    SetBit(validity_->data(), length_, valid);
  }
  if (!valid) ++null_count_;
  ++length_;
}

void VectorBuilder::AppendNull() {
  TypeId id = type_->id();
  if (id == TypeId::kNull) {
    ++length_;
    ++null_count_;
    return;
  }
  if (id == TypeId::kBoolean) {
    values_->Resize(BitmapBytes(length_ + 1), true);
  } else if (IsOffsetType(id)) {
    // An empty range: repeat the last offset.
    int32_t last = values_->as<int32_t>()[length_];
    values_->Append(&last, sizeof(last));
  } else if (id == TypeId::kStruct) {
    // Keep the children aligned with the struct's rows.
    for (auto& child : children_) child->AppendNull();
  } else {
    values_->Resize(values_->size() + static_cast<size_t>(type_->FixedWidth()), true);
  }
  AppendValidity(false);
}

void VectorBuilder::AppendNulls(int64_t count) {
  SILT_CHECK(count >= 0, "negative null count");
  int width = type_->FixedWidth();
  if (width == 0 || count < 8) {
    for (int64_t i = 0; i < count; ++i) AppendNull();
    return;
  }
  values_->Resize(values_->size() + static_cast<size_t>(count) * static_cast<size_t>(width), true);
  if (!validity_) {
    validity_ = Buffer::Allocate(BitmapBytes(length_), false, BitmapBytes(length_ + count));
    std::memset(validity_->data(), 0xFF, validity_->size());
  }
  // Bits past the old length may hold stale ones from the last byte; clear them one by one up to
  // the next byte boundary, then whole bytes.
  validity_->Resize(BitmapBytes(length_ + count), true);
  int64_t bit = length_;
  int64_t end = length_ + count;
  for (; bit < end && (bit & 7) != 0; ++bit) SetBit(validity_->data(), bit, false);
  if (bit < end) {
    std::memset(validity_->data() + (bit >> 3), 0,
                BitmapBytes(end) - static_cast<size_t>(bit >> 3));
  }
  length_ += count;
  null_count_ += count;
}

void VectorBuilder::AppendValues(const void* values, int64_t count) {
  int width = type_->FixedWidth();
  if (width == 0) ThrowMismatch(*type_, "fixed-width values");
  SILT_CHECK(count >= 0, "negative value count");
  values_->Append(values, static_cast<size_t>(count) * static_cast<size_t>(width));
  if (validity_) {
    validity_->Resize(BitmapBytes(length_ + count), true);
    for (int64_t i = 0; i < count; ++i) SetBit(validity_->data(), length_ + i, true);
  }
  length_ += count;
}

void VectorBuilder::AppendBool(bool value) {
  if (type_->id() != TypeId::kBoolean) ThrowMismatch(*type_, "boolean");
  values_->Resize(BitmapBytes(length_ + 1), true);
  SetBit(values_->data(), length_, value);
  AppendValidity(true);
}

void VectorBuilder::AppendInt(int64_t value) {
  switch (type_->id()) {
    case TypeId::kByte: {
      SILT_CHECK(value >= INT8_MIN && value <= INT8_MAX, "value out of tinyint range");
      auto narrow = static_cast<int8_t>(value);
      values_->Append(&narrow, sizeof(narrow));
      break;
    }
    case TypeId::kShort: {
      SILT_CHECK(value >= INT16_MIN && value <= INT16_MAX, "value out of smallint range");
      auto narrow = static_cast<int16_t>(value);
      values_->Append(&narrow, sizeof(narrow));
      break;
    }
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: {
      SILT_CHECK(value >= INT32_MIN && value <= INT32_MAX, "value out of int range");
      auto narrow = static_cast<int32_t>(value);
      values_->Append(&narrow, sizeof(narrow));
      break;
    }
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      values_->Append(&value, sizeof(value));
      break;
    default:
      ThrowMismatch(*type_, "integer");
  }
  AppendValidity(true);
}

void VectorBuilder::AppendFloat(float value) {
  if (type_->id() != TypeId::kFloat) ThrowMismatch(*type_, "float");
  values_->Append(&value, sizeof(value));
  AppendValidity(true);
}

void VectorBuilder::AppendDouble(double value) {
  if (type_->id() != TypeId::kDouble) ThrowMismatch(*type_, "double");
  values_->Append(&value, sizeof(value));
  AppendValidity(true);
}

void VectorBuilder::AppendDecimal(Decimal128 unscaled) {
  if (type_->id() != TypeId::kDecimal) ThrowMismatch(*type_, "decimal");
  values_->Append(&unscaled, sizeof(unscaled));
  AppendValidity(true);
}

void VectorBuilder::AppendString(std::string_view value) {
  if (type_->id() != TypeId::kString && type_->id() != TypeId::kBinary) {
    ThrowMismatch(*type_, "string");
  }
  // Offsets are int32 (Arrow's non-large layout); a vector holds at most 2 GiB of bytes.
  SILT_USER_CHECK(data_->size() + value.size() <= static_cast<size_t>(INT32_MAX),
                  VECTOR_CAPACITY_EXCEEDED, {{"type", type_->ToString()}});
  data_->Append(value.data(), value.size());
  auto end = static_cast<int32_t>(data_->size());
  values_->Append(&end, sizeof(end));
  AppendValidity(true);
}

void VectorBuilder::AppendStruct() {
  if (type_->id() != TypeId::kStruct) ThrowMismatch(*type_, "struct");
  for (auto& child : children_) {
    SILT_CHECK(child->length() == length_ + 1,
               "struct child builders must each hold one more value before AppendStruct()");
  }
  AppendValidity(true);
}

void VectorBuilder::FinishList() {
  if (type_->id() != TypeId::kList && type_->id() != TypeId::kMap) ThrowMismatch(*type_, "array");
  int64_t end = children_[0]->length();
  SILT_USER_CHECK(end <= INT32_MAX, VECTOR_CAPACITY_EXCEEDED, {{"type", type_->ToString()}});
  SILT_CHECK(end >= values_->as<int32_t>()[length_], "list child shrank");
  auto narrow = static_cast<int32_t>(end);
  values_->Append(&narrow, sizeof(narrow));
  AppendValidity(true);
}

void VectorBuilder::AppendFrom(const Vector& source, int64_t row) { AppendRange(source, row, 1); }

void VectorBuilder::AppendRange(const Vector& source, int64_t start, int64_t count) {
  if (!source.type()->Equals(*type_)) ThrowMismatch(*type_, source.type()->ToString());
  SILT_CHECK(start >= 0 && count >= 0 && start + count <= source.length(),
             "AppendRange outside the source vector");
  if (count == 0) return;
  TypeId id = type_->id();
  if (id == TypeId::kNull) {
    length_ += count;
    null_count_ += count;
    return;
  }
  int width = type_->FixedWidth();
  if (width > 0) {
    // Fixed width: one copy of the values, then the validity bits.
    values_->Append(source.buffer(1)->data() + (source.offset() + start) * width,
                    static_cast<size_t>(count) * static_cast<size_t>(width));
    for (int64_t i = 0; i < count; ++i) AppendValidity(source.IsValid(start + i));
    return;
  }
  switch (id) {
    case TypeId::kBoolean:
      for (int64_t i = 0; i < count; ++i) {
        if (source.IsNull(start + i)) {
          AppendNull();
        } else {
          AppendBool(source.GetBool(start + i));
        }
      }
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      for (int64_t i = 0; i < count; ++i) {
        if (source.IsNull(start + i)) {
          AppendNull();
        } else {
          AppendString(source.GetString(start + i));
        }
      }
      return;
    case TypeId::kStruct:
      for (size_t f = 0; f < children_.size(); ++f) {
        children_[f]->AppendRange(*source.child(f), source.offset() + start, count);
      }
      for (int64_t i = 0; i < count; ++i) AppendValidity(source.IsValid(start + i));
      return;
    case TypeId::kList:
    case TypeId::kMap: {
      // The child values of consecutive rows are contiguous: copy them in one range.
      int32_t child_start = source.ListStart(start);
      int32_t child_end = source.ListStart(start + count);
      children_[0]->AppendRange(*source.child(0), child_start, child_end - child_start);
      int32_t base = values_->as<int32_t>()[length_];
      for (int64_t i = 0; i < count; ++i) {
        int64_t end = static_cast<int64_t>(base) + source.ListStart(start + i + 1) - child_start;
        SILT_USER_CHECK(end <= INT32_MAX, VECTOR_CAPACITY_EXCEEDED, {{"type", type_->ToString()}});
        auto narrow = static_cast<int32_t>(end);
        values_->Append(&narrow, sizeof(narrow));
        AppendValidity(source.IsValid(start + i));
      }
      return;
    }
    default:
      SILT_CHECK(false, "unhandled type in AppendRange: " + type_->ToString());
  }
}

VectorPtr VectorBuilder::Finish() {
  TypeId id = type_->id();
  int64_t length = length_;
  std::vector<BufferPtr> buffers;
  std::vector<VectorPtr> children;
  if (id != TypeId::kNull) {
    // A bitmap without NULLs carries no information; Arrow allows leaving it out.
    buffers.push_back(null_count_ > 0 ? validity_ : nullptr);
    if (id != TypeId::kStruct) buffers.push_back(values_);
    if (data_) buffers.push_back(data_);
    for (auto& child : children_) children.push_back(child->Finish());
  }
  VectorPtr result =
      Vector::Make(type_, length, std::move(buffers), std::move(children), null_count_);

  // Reset to empty, with fresh buffers: the old ones now belong to the vector.
  length_ = 0;
  null_count_ = 0;
  validity_.reset();
  if (values_) {
    values_ = Buffer::Allocate(0);
    if (IsOffsetType(id)) {
      int32_t zero = 0;
      values_->Append(&zero, sizeof(zero));
    }
  }
  if (data_) data_ = Buffer::Allocate(0);
  return result;
}

}  // namespace silt
