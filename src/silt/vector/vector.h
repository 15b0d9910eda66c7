#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "silt/types/data_type.h"

namespace silt {

/// Decimal values: unscaled 128-bit two's complement integers (Arrow decimal128 layout).
using Decimal128 = __int128;

/// An owned, 64-byte aligned, growable byte buffer. Not thread-safe while being written;
/// immutable (and so shareable) once a Vector refers to it.
class Buffer {
 public:
  /// A buffer of `size` bytes (zeroed when `zero`), with room for at least `capacity` bytes.
  /// The memory is 64-byte aligned and data() is never null, even for an empty buffer. Throws
  /// std::bad_alloc when memory runs out.
  static std::shared_ptr<Buffer> Allocate(size_t size, bool zero = false, size_t capacity = 0);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  uint8_t* data() { return data_; }
  const uint8_t* data() const { return data_; }
  template <typename T>
  T* as() {
    return reinterpret_cast<T*>(data_);
  }
  template <typename T>
  const T* as() const {
    return reinterpret_cast<const T*>(data_);
  }
  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  /// Grows or shrinks to `size` bytes, keeping the content; new bytes are zeroed when `zero`.
  /// Growth is amortised (capacity at least doubles), so appending n bytes costs O(n).
  void Resize(size_t size, bool zero = false);
  /// Ensures room for `capacity` bytes without changing the size.
  void Reserve(size_t capacity);
  /// Appends `length` bytes.
  void Append(const void* bytes, size_t length) {
    if (length == 0) return;  // an empty string_view may carry a null pointer memcpy must not see
    if (size_ + length > capacity_) Reserve(GrowTo(size_ + length));
    std::memcpy(data_ + size_, bytes, length);
    size_ += length;
  }

 private:
  Buffer() = default;
  size_t GrowTo(size_t needed) const { return needed > capacity_ * 2 ? needed : capacity_ * 2; }

  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;
};
using BufferPtr = std::shared_ptr<Buffer>;

class Vector;
using VectorPtr = std::shared_ptr<const Vector>;

/// How a string or binary vector was decoded from a dictionary (a Parquet dictionary page):
/// for every valid row i, the vector's value is dictionary->GetString(codes[offset() + i]). The
/// vector's own buffers still hold every value, so consumers that ignore this see a plain
/// vector; those that know it (grouping) can work once per distinct value instead of per row.
struct DictionaryCodes {
  VectorPtr dictionary;  ///< the distinct values: no NULLs, offset 0, the vector's type
  BufferPtr codes;       ///< one int32 per row of the vector's buffers, each below the
                         ///< dictionary's length (any such value for NULL rows)
};

/// An immutable column of values in the Arrow memory layout:
///  - buffer(0): validity bitmap (LSB first; bit set = valid). May be null: every value valid.
///  - fixed width (bool bit-packed, int8..int64, float, double, decimal128, date32, timestamps):
///    buffer(1) holds the values.
///  - string, binary: buffer(1) holds length+1 int32 offsets, buffer(2) the bytes.
///  - list, map: buffer(1) holds length+1 int32 offsets into child(0) (for map a struct of
///    "key" and "value").
///  - struct: no value buffer; one child per field, each of the struct's length.
///  - null type: no buffers; every value is NULL.
/// `offset` is the logical start into the buffers (Arrow's slicing); children are not sliced by
/// a struct slice either: child values are read at offset + i as in Arrow.
/// Thread-safe for concurrent reads.
class Vector {
 public:
  /// Wraps buffers in a vector. `null_count` may be -1 to have it computed from the bitmap
  /// (without a bitmap it is 0; for the null type always `length`). Checks the layout: buffer
  /// count and sizes for offset + length rows, offsets within the data or child, child types and
  /// lengths; a mismatch is a bug in the caller and throws INTERNAL_ERROR.
  static VectorPtr Make(DataTypePtr type, int64_t length, std::vector<BufferPtr> buffers,
                        std::vector<VectorPtr> children = {}, int64_t null_count = -1,
                        int64_t offset = 0);
  /// A vector of `length` NULLs of any type (with zeroed value buffers and, for structs, all-NULL
  /// children of the same length).
  static VectorPtr MakeAllNull(DataTypePtr type, int64_t length);

  const DataTypePtr& type() const { return type_; }
  TypeId type_id() const { return type_->id(); }
  int64_t length() const { return length_; }
  int64_t offset() const { return offset_; }
  int64_t null_count() const { return null_count_; }
  const std::vector<BufferPtr>& buffers() const { return buffers_; }
  const BufferPtr& buffer(size_t i) const { return buffers_[i]; }
  const std::vector<VectorPtr>& children() const { return children_; }
  const VectorPtr& child(size_t i) const { return children_[i]; }

  bool IsValid(int64_t i) const {
    if (type_->id() == TypeId::kNull) return false;
    if (null_count_ == 0 || !buffers_[0]) return true;
    int64_t bit = offset_ + i;
    return (buffers_[0]->data()[bit >> 3] >> (bit & 7)) & 1;
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  /// Fixed-width values, already advanced by offset(): `values<int64_t>()[i]` is row i.
  template <typename T>
  const T* values() const {
    return buffers_[1]->as<T>() + offset_;
  }
  bool GetBool(int64_t i) const {
    int64_t bit = offset_ + i;
    return (buffers_[1]->data()[bit >> 3] >> (bit & 7)) & 1;
  }
  /// String or binary value of row i (unspecified content for NULL rows).
  std::string_view GetString(int64_t i) const {
    const int32_t* offsets = buffers_[1]->as<int32_t>() + offset_;
    return std::string_view(reinterpret_cast<const char*>(buffers_[2]->data()) + offsets[i],
                            static_cast<size_t>(offsets[i + 1] - offsets[i]));
  }
  /// List or map: the child range of row i is [ListStart(i), ListStart(i) + ListLength(i)).
  int32_t ListStart(int64_t i) const { return buffers_[1]->as<int32_t>()[offset_ + i]; }
  int32_t ListLength(int64_t i) const {
    const int32_t* offsets = buffers_[1]->as<int32_t>() + offset_;
    return offsets[i + 1] - offsets[i];
  }

  /// A zero-copy view of rows [offset, offset + length), with the same dictionary codes. Throws
  /// INTERNAL_ERROR when the range is not inside the vector.
  VectorPtr Slice(int64_t offset, int64_t length) const;

  /// The dictionary this vector's values were decoded from, or null (the usual case: only
  /// Slice and TakeRows keep it).
  const DictionaryCodes* dictionary_codes() const { return dictionary_codes_.get(); }
  /// `vector` (sharing its buffers) annotated with `codes`. Checks that the vector is a string
  /// or binary vector, that the dictionary has its type and no NULLs, and that there is a code
  /// for every row; a mismatch throws INTERNAL_ERROR. The codes' values are the caller's
  /// promise (a decoder checks them against the dictionary's length).
  static VectorPtr WithDictionaryCodes(const VectorPtr& vector,
                                       std::shared_ptr<const DictionaryCodes> codes);

  /// Struct only: field `i` as a vector aligned with this struct's rows (row r of the result is
  /// the field of row r), i.e. child(i) sliced by this vector's offset and length. Zero-copy.
  VectorPtr StructField(size_t i) const;

  /// Deep value equality (types, nulls and values; float NaN equals NaN). For tests and checks.
  bool Equals(const Vector& other) const;
  /// Deep equality of row i of this vector and row j of `other` (of an equal type).
  bool RowEquals(int64_t i, const Vector& other, int64_t j) const;

  /// Row i as Spark prints it inside show(): NULL as "NULL" (also inside nested values),
  /// booleans "true"/"false", strings raw, binary as "[01 FF]", decimals with exactly `scale`
  /// fraction digits ("1.50"), dates "2024-01-31", timestamps and timestamp_ntz
  /// "2024-01-31 12:00:00.5" (fraction only when non-zero, trailing zeros trimmed, UTC),
  /// floats/doubles as Java's Float/Double.toString ("1.0", "1.0E-4", "NaN"), arrays
  /// "[1, 2, NULL]", structs "{1, a}", maps "{a -> 1, b -> 2}". See value_text.h.
  std::string ValueToString(int64_t i) const;

  Vector(DataTypePtr type, int64_t length, int64_t offset, int64_t null_count,
         std::vector<BufferPtr> buffers, std::vector<VectorPtr> children)
      : type_(std::move(type)),
        length_(length),
        offset_(offset),
        null_count_(null_count),
        buffers_(std::move(buffers)),
        children_(std::move(children)) {}

 private:
  DataTypePtr type_;
  int64_t length_;
  int64_t offset_;
  int64_t null_count_;
  std::vector<BufferPtr> buffers_;
  std::vector<VectorPtr> children_;
  std::shared_ptr<const DictionaryCodes> dictionary_codes_;
};

/// Appends values of one type and produces a Vector. Nested types have child builders:
///  - struct: append each field's value to child(i), then AppendStruct() (or AppendNull(),
///    which also appends a NULL to every child so lengths stay aligned);
///  - list/map: append the row's elements to child(0) (map: to the entries struct's key and value
///    children, then child(0).AppendStruct()), then FinishList(); AppendNull() adds a NULL row.
/// Not thread-safe.
class VectorBuilder {
 public:
  explicit VectorBuilder(DataTypePtr type, int64_t capacity_hint = 0);
  ~VectorBuilder();
  VectorBuilder(const VectorBuilder&) = delete;
  VectorBuilder& operator=(const VectorBuilder&) = delete;

  const DataTypePtr& type() const { return type_; }
  int64_t length() const { return length_; }

  /// Appending a value of the wrong kind (AppendString to a bigint builder, anything but
  /// AppendNull to a void builder, ...) throws VECTOR_TYPE_MISMATCH and appends nothing.

  void AppendNull();
  /// Appends `count` NULLs (as `count` AppendNull() calls, in bulk for flat types).
  void AppendNulls(int64_t count);
  /// Fixed-width types only (not boolean): appends `count` valid values copied from `values`,
  /// which holds count * type()->FixedWidth() bytes in the vector's layout (int8..int64, float,
  /// double, int32 days, int64 µs, 16-byte decimals). For decoders that produce runs of values.
  void AppendValues(const void* values, int64_t count);
  void AppendBool(bool value);
  /// Integers, dates (days) and timestamps (µs); stored at the type's width. A value outside
  /// that width's range throws INTERNAL_ERROR.
  void AppendInt(int64_t value);
  void AppendFloat(float value);
  void AppendDouble(double value);
  /// The unscaled value of a decimal.
  void AppendDecimal(Decimal128 unscaled);
  /// String or binary bytes. More than 2^31-1 bytes in one vector throws
  /// VECTOR_CAPACITY_EXCEEDED (offsets are int32, as in Arrow's non-large layout).
  void AppendString(std::string_view value);
  /// Struct: the children already hold this row's values (each child must have exactly one
  /// value more than before; INTERNAL_ERROR otherwise).
  void AppendStruct();
  /// List/map: closes a row holding the child values appended since the previous row.
  void FinishList();
  /// Copies row `row` of `source` (an equal type, else VECTOR_TYPE_MISMATCH; nested values
  /// deeply; slices honoured).
  void AppendFrom(const Vector& source, int64_t row);
  /// Copies rows [start, start + count) of `source`; fixed-width values and list children are
  /// copied in bulk.
  void AppendRange(const Vector& source, int64_t start, int64_t count);

  VectorBuilder& child(size_t i) { return *children_[i]; }

  /// Returns the built vector and resets the builder (and its children) to empty. The validity
  /// bitmap is left out (null buffer(0)) when no value is NULL.
  VectorPtr Finish();

 private:
  void AppendValidity(bool valid);

  DataTypePtr type_;
  int64_t length_ = 0;
  int64_t null_count_ = 0;
  BufferPtr validity_;
  BufferPtr values_;  // values, or offsets for string/binary/list/map
  BufferPtr data_;    // string/binary bytes
  std::vector<std::unique_ptr<VectorBuilder>> children_;
};

}  // namespace silt
