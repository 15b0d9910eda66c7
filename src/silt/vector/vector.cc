#include "silt/vector/vector.h"

#include <bit>
#include <cmath>
#include <string>

#include "silt/base/check.h"
#include "silt/types/date_time.h"
#include "silt/vector/value_text.h"

namespace silt {
namespace {

size_t BitmapBytes(int64_t bits) { return static_cast<size_t>((bits + 7) / 8); }

int64_t CountSetBits(const uint8_t* bitmap, int64_t bit_offset, int64_t length) {
  int64_t count = 0;
  int64_t bit = bit_offset;
  int64_t end = bit_offset + length;
  // Head bits up to a byte boundary, whole bytes, then the tail.
  while (bit < end && (bit & 7) != 0) {
    count += (bitmap[bit >> 3] >> (bit & 7)) & 1;
    ++bit;
  }
  while (bit + 8 <= end) {
    count += std::popcount(static_cast<unsigned>(bitmap[bit >> 3]));
    bit += 8;
  }
  while (bit < end) {
    count += (bitmap[bit >> 3] >> (bit & 7)) & 1;
    ++bit;
  }
  return count;
}

size_t ExpectedBufferCount(TypeId id) {
  switch (id) {
    case TypeId::kNull:
      return 0;
    case TypeId::kStruct:
      return 1;
    case TypeId::kString:
    case TypeId::kBinary:
      return 3;
    default:
      return 2;
  }
}

// The child type a list or map vector holds: the element type, or struct<key, value>.
DataTypePtr ExpectedChildType(const DataType& type) {
  if (type.id() == TypeId::kList) return type.element_type();
  return StructType(type.fields());
}

void CheckLayout(const DataType& type, int64_t length, int64_t offset,
                 const std::vector<BufferPtr>& buffers, const std::vector<VectorPtr>& children) {
  SILT_CHECK(length >= 0 && offset >= 0, "negative vector length or offset");
  TypeId id = type.id();
  if (id == TypeId::kNull) {
    SILT_CHECK(children.empty(), "a void vector has no children");
    return;
  }
  SILT_CHECK(buffers.size() == ExpectedBufferCount(id),
             "vector of type " + type.ToString() + " needs " +
                 std::to_string(ExpectedBufferCount(id)) + " buffers, got " +
                 std::to_string(buffers.size()));
  int64_t end = offset + length;
  if (buffers[0]) {
    SILT_CHECK(buffers[0]->size() >= BitmapBytes(end), "validity bitmap too short");
  }
  switch (id) {
    case TypeId::kBoolean:
      SILT_CHECK(buffers[1] && buffers[1]->size() >= BitmapBytes(end), "boolean values too short");
      break;
    case TypeId::kString:
    case TypeId::kBinary: {
      SILT_CHECK(buffers[1] && buffers[1]->size() >= static_cast<size_t>(end + 1) * 4,
                 "string offsets too short");
      SILT_CHECK(buffers[2] != nullptr, "string data buffer missing");
      int32_t last = buffers[1]->as<int32_t>()[end];
      SILT_CHECK(last >= 0 && static_cast<size_t>(last) <= buffers[2]->size(),
                 "string offsets point past the data buffer");
      break;
    }
    case TypeId::kList:
    case TypeId::kMap: {
      SILT_CHECK(buffers[1] && buffers[1]->size() >= static_cast<size_t>(end + 1) * 4,
                 "list offsets too short");
      SILT_CHECK(children.size() == 1 && children[0], "list and map vectors have one child");
      SILT_CHECK(children[0]->type()->Equals(*ExpectedChildType(type)),
                 "child of " + type.ToString() + " has type " + children[0]->type()->ToString());
      int32_t last = buffers[1]->as<int32_t>()[end];
      SILT_CHECK(last >= 0 && last <= children[0]->length(),
                 "list offsets point past the child vector");
      break;
    }
    case TypeId::kStruct: {
      SILT_CHECK(children.size() == type.fields().size(), "struct needs one child per field");
      for (size_t i = 0; i < children.size(); ++i) {
        SILT_CHECK(children[i] && children[i]->type()->Equals(*type.fields()[i].type),
                   "struct child " + std::to_string(i) + " has the wrong type");
        SILT_CHECK(children[i]->length() >= end, "struct child shorter than the struct");
      }
      break;
    }
    default:
      SILT_CHECK(buffers[1] && buffers[1]->size() >= static_cast<size_t>(end) *
                                                         static_cast<size_t>(type.FixedWidth()),
                 "value buffer too short for " + type.ToString());
      break;
  }
  if (id != TypeId::kStruct && id != TypeId::kList && id != TypeId::kMap) {
    SILT_CHECK(children.empty(), "a primitive vector has no children");
  }
}

template <typename T>
bool FloatEquals(T a, T b) {
  return a == b || (std::isnan(a) && std::isnan(b));
}

// Compares row i of a with row j of b; both are of equal types.
bool RowsEqual(const Vector& a, int64_t i, const Vector& b, int64_t j) {
  bool a_valid = a.IsValid(i);
  if (a_valid != b.IsValid(j)) return false;
  if (!a_valid) return true;
  switch (a.type_id()) {
    case TypeId::kNull:
      return true;
    case TypeId::kBoolean:
      return a.GetBool(i) == b.GetBool(j);
    case TypeId::kByte:
      return a.values<int8_t>()[i] == b.values<int8_t>()[j];
    case TypeId::kShort:
      return a.values<int16_t>()[i] == b.values<int16_t>()[j];
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval:
      return a.values<int32_t>()[i] == b.values<int32_t>()[j];
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval:
      return a.values<int64_t>()[i] == b.values<int64_t>()[j];
    case TypeId::kFloat:
      return FloatEquals(a.values<float>()[i], b.values<float>()[j]);
    case TypeId::kDouble:
      return FloatEquals(a.values<double>()[i], b.values<double>()[j]);
    case TypeId::kDecimal:
      return a.values<Decimal128>()[i] == b.values<Decimal128>()[j];
    case TypeId::kString:
    case TypeId::kBinary:
      return a.GetString(i) == b.GetString(j);
    case TypeId::kStruct:
      for (size_t f = 0; f < a.children().size(); ++f) {
        if (!RowsEqual(*a.child(f), a.offset() + i, *b.child(f), b.offset() + j)) return false;
      }
      return true;
    case TypeId::kList:
    case TypeId::kMap: {
      int32_t length = a.ListLength(i);
      if (length != b.ListLength(j)) return false;
      int32_t a_start = a.ListStart(i);
      int32_t b_start = b.ListStart(j);
      for (int32_t k = 0; k < length; ++k) {
        if (!RowsEqual(*a.child(0), a_start + k, *b.child(0), b_start + k)) return false;
      }
      return true;
    }
  }
  return false;
}

void AppendValueText(const Vector& vector, int64_t i, std::string& out) {
  if (vector.IsNull(i)) {
    out += "NULL";
    return;
  }
  switch (vector.type_id()) {
    case TypeId::kNull:
      out += "NULL";
      return;
    case TypeId::kBoolean:
      out += vector.GetBool(i) ? "true" : "false";
      return;
    case TypeId::kByte:
      out += std::to_string(vector.values<int8_t>()[i]);
      return;
    case TypeId::kShort:
      out += std::to_string(vector.values<int16_t>()[i]);
      return;
    case TypeId::kInteger:
      out += std::to_string(vector.values<int32_t>()[i]);
      return;
    case TypeId::kLong:
      out += std::to_string(vector.values<int64_t>()[i]);
      return;
    case TypeId::kFloat:
      out += FormatJavaFloat(vector.values<float>()[i]);
      return;
    case TypeId::kDouble:
      out += FormatJavaDouble(vector.values<double>()[i]);
      return;
    case TypeId::kDecimal:
      out += FormatDecimal(vector.values<Decimal128>()[i], vector.type()->scale());
      return;
    case TypeId::kDate:
      out += FormatDate(vector.values<int32_t>()[i]);
      return;
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      out += FormatTimestamp(vector.values<int64_t>()[i]);
      return;
    case TypeId::kString:
      out += vector.GetString(i);
      return;
    case TypeId::kBinary:
      out += FormatBinaryHex(vector.GetString(i));
      return;
    case TypeId::kYearMonthInterval:
      out += FormatYearMonthInterval(vector.values<int32_t>()[i], vector.type()->interval_start(),
                                     vector.type()->interval_end());
      return;
    case TypeId::kDayTimeInterval:
      out += FormatDayTimeInterval(vector.values<int64_t>()[i], vector.type()->interval_start(),
                                   vector.type()->interval_end());
      return;
    case TypeId::kStruct:
      out += '{';
      for (size_t f = 0; f < vector.children().size(); ++f) {
        if (f > 0) out += ", ";
        AppendValueText(*vector.child(f), vector.offset() + i, out);
      }
      out += '}';
      return;
    case TypeId::kList: {
      out += '[';
      int32_t start = vector.ListStart(i);
      for (int32_t k = 0; k < vector.ListLength(i); ++k) {
        if (k > 0) out += ", ";
        AppendValueText(*vector.child(0), start + k, out);
      }
      out += ']';
      return;
    }
    case TypeId::kMap: {
      out += '{';
      const Vector& entries = *vector.child(0);
      int32_t start = vector.ListStart(i);
      for (int32_t k = 0; k < vector.ListLength(i); ++k) {
        if (k > 0) out += ", ";
        AppendValueText(*entries.child(0), entries.offset() + start + k, out);
        out += " -> ";
        AppendValueText(*entries.child(1), entries.offset() + start + k, out);
      }
      out += '}';
      return;
    }
  }
}

}  // namespace

VectorPtr Vector::Make(DataTypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                       std::vector<VectorPtr> children, int64_t null_count, int64_t offset) {
  SILT_CHECK(type != nullptr, "vector type is null");
  CheckLayout(*type, length, offset, buffers, children);
  if (type->id() == TypeId::kNull) {
    null_count = length;
    buffers.clear();
  } else if (!buffers[0]) {
    null_count = 0;
  } else if (null_count < 0) {
    null_count = length - CountSetBits(buffers[0]->data(), offset, length);
  }
  return std::make_shared<const Vector>(std::move(type), length, offset, null_count,
                                        std::move(buffers), std::move(children));
}

VectorPtr Vector::MakeAllNull(DataTypePtr type, int64_t length) {
  SILT_CHECK(type != nullptr && length >= 0, "invalid all-null vector");
  TypeId id = type->id();
  if (id == TypeId::kNull) return Make(std::move(type), length, {}, {}, length);
  std::vector<BufferPtr> buffers;
  std::vector<VectorPtr> children;
  buffers.push_back(Buffer::Allocate(BitmapBytes(length), /*zero=*/true));
  switch (id) {
    case TypeId::kStruct:
      for (const Field& field : type->fields()) children.push_back(MakeAllNull(field.type, length));
      break;
    case TypeId::kString:
    case TypeId::kBinary:
      buffers.push_back(Buffer::Allocate(static_cast<size_t>(length + 1) * 4, /*zero=*/true));
      buffers.push_back(Buffer::Allocate(0));
      break;
    case TypeId::kList:
    case TypeId::kMap:
      buffers.push_back(Buffer::Allocate(static_cast<size_t>(length + 1) * 4, /*zero=*/true));
      children.push_back(MakeAllNull(ExpectedChildType(*type), 0));
      break;
    case TypeId::kBoolean:
      buffers.push_back(Buffer::Allocate(BitmapBytes(length), /*zero=*/true));
      break;
    default:
      buffers.push_back(Buffer::Allocate(
          static_cast<size_t>(length) * static_cast<size_t>(type->FixedWidth()), /*zero=*/true));
      break;
  }
  return Make(std::move(type), length, std::move(buffers), std::move(children), length);
}

VectorPtr Vector::Slice(int64_t offset, int64_t length) const {
  SILT_CHECK(offset >= 0 && length >= 0 && offset + length <= length_,
             "slice [" + std::to_string(offset) + ", +" + std::to_string(length) +
                 ") out of a vector of " + std::to_string(length_) + " rows");
  int64_t null_count;
  if (type_->id() == TypeId::kNull || null_count_ == length_) {
    null_count = length;
  } else if (null_count_ == 0 || !buffers_[0]) {
    null_count = 0;
  } else {
    null_count = length - CountSetBits(buffers_[0]->data(), offset_ + offset, length);
  }
  auto slice = std::make_shared<Vector>(type_, length, offset_ + offset, null_count, buffers_,
                                        children_);
  slice->dictionary_codes_ = dictionary_codes_;
  return slice;
}

VectorPtr Vector::WithDictionaryCodes(const VectorPtr& vector,
                                      std::shared_ptr<const DictionaryCodes> codes) {
  SILT_CHECK(vector != nullptr && codes != nullptr && codes->dictionary != nullptr &&
                 codes->codes != nullptr,
             "dictionary codes need a vector, a dictionary and codes");
  TypeId id = vector->type_id();
  SILT_CHECK(id == TypeId::kString || id == TypeId::kBinary,
             "dictionary codes on a vector of type " + vector->type()->ToString());
  const Vector& dictionary = *codes->dictionary;
  SILT_CHECK(dictionary.type()->Equals(*vector->type()) && dictionary.null_count() == 0 &&
                 dictionary.offset() == 0,
             "a dictionary must have the vector's type, no NULLs and no offset");
  SILT_CHECK(codes->codes->size() >=
                 static_cast<size_t>(vector->offset() + vector->length()) * sizeof(int32_t),
             "dictionary codes shorter than the vector");
  auto annotated = std::make_shared<Vector>(vector->type_, vector->length_, vector->offset_,
                                            vector->null_count_, vector->buffers_,
                                            vector->children_);
  annotated->dictionary_codes_ = std::move(codes);
  return annotated;
}

VectorPtr Vector::StructField(size_t i) const {
  SILT_CHECK(type_->id() == TypeId::kStruct && i < children_.size(), "not a struct field");
  return children_[i]->Slice(offset_, length_);
}

bool Vector::Equals(const Vector& other) const {
  if (this == &other) return true;
  if (length_ != other.length_ || !type_->Equals(*other.type_)) return false;
  if (null_count_ != other.null_count_) return false;
  for (int64_t i = 0; i < length_; ++i) {
    if (!RowsEqual(*this, i, other, i)) return false;
  }
  return true;
}

bool Vector::RowEquals(int64_t i, const Vector& other, int64_t j) const {
  SILT_DCHECK(type_->Equals(*other.type_), "RowEquals on different types");
  return RowsEqual(*this, i, other, j);
}

std::string Vector::ValueToString(int64_t i) const {
  std::string out;
  AppendValueText(*this, i, out);
  return out;
}

}  // namespace silt
