#pragma once

// A writer of the Thrift compact protocol (Apache Thrift's THRIFT-110 "compact protocol"
// specification), just large enough for parquet.thrift: structs, fields, i8/i16/i32/i64 as
// zigzag varints, binary/string, bool fields, and lists. Private to the Parquet layer.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "silt/parquet/thrift_compact_internal.h"

namespace silt::parquet::internal {

/// Appends compact-protocol bytes to a string. Callers bracket each struct with BeginStruct /
/// EndStruct and write fields in increasing id order (ids are delta-encoded against the previous
/// field of the same struct, as the protocol allows). Not thread-safe.
class ThriftCompactEncoder {
 public:
  explicit ThriftCompactEncoder(std::string* out) : out_(out) {}

  /// Starts a struct (top-level or as the value of a field or list element).
  void BeginStruct() {
    last_field_ids_.push_back(last_field_id_);
    last_field_id_ = 0;
  }
  /// Writes the stop byte and restores the enclosing struct's field-id state.
  void EndStruct() {
    out_->push_back(static_cast<char>(CompactType::kStop));
    last_field_id_ = last_field_ids_.back();
    last_field_ids_.pop_back();
  }

  /// Writes a field header; a bool field carries its value in the header (use BoolField).
  void FieldHeader(int16_t field_id, CompactType type) {
    int delta = field_id - last_field_id_;
    if (delta > 0 && delta <= 15) {
      out_->push_back(static_cast<char>((delta << 4) | static_cast<int>(type)));
    } else {
      out_->push_back(static_cast<char>(type));
      Varint(ZigZag32(field_id));
    }
    last_field_id_ = field_id;
  }

  void BoolField(int16_t field_id, bool value) {
    FieldHeader(field_id, value ? CompactType::kBooleanTrue : CompactType::kBooleanFalse);
  }
  void I8Field(int16_t field_id, int8_t value) {
    FieldHeader(field_id, CompactType::kByte);
    out_->push_back(static_cast<char>(value));
  }
  void I16Field(int16_t field_id, int16_t value) {
    FieldHeader(field_id, CompactType::kI16);
    Varint(ZigZag32(value));
  }
  void I32Field(int16_t field_id, int32_t value) {
    FieldHeader(field_id, CompactType::kI32);
    Varint(ZigZag32(value));
  }
  void I64Field(int16_t field_id, int64_t value) {
    FieldHeader(field_id, CompactType::kI64);
    Varint(ZigZag64(value));
  }
  void BinaryField(int16_t field_id, std::string_view value) {
    FieldHeader(field_id, CompactType::kBinary);
    Binary(value);
  }
  /// Starts a struct-valued field; follow with the fields and EndStruct().
  void StructField(int16_t field_id) {
    FieldHeader(field_id, CompactType::kStruct);
    BeginStruct();
  }
  /// Starts a list-valued field of `size` elements of `element_type`; follow with the elements.
  void ListField(int16_t field_id, CompactType element_type, size_t size) {
    FieldHeader(field_id, CompactType::kList);
    ListHeader(element_type, size);
  }

  void ListHeader(CompactType element_type, size_t size) {
    if (size < 15) {
      out_->push_back(static_cast<char>((size << 4) | static_cast<int>(element_type)));
    } else {
      out_->push_back(static_cast<char>(0xF0 | static_cast<int>(element_type)));
      Varint(size);
    }
  }
  /// List elements.
  void I32(int32_t value) { Varint(ZigZag32(value)); }
  void Binary(std::string_view value) {
    Varint(value.size());
    out_->append(value.data(), value.size());
  }

  void Varint(uint64_t value) {
    while (value >= 0x80) {
      out_->push_back(static_cast<char>((value & 0x7F) | 0x80));
      value >>= 7;
    }
    out_->push_back(static_cast<char>(value));
  }
  static uint64_t ZigZag32(int32_t value) {
    return static_cast<uint32_t>((static_cast<uint32_t>(value) << 1) ^
                                 static_cast<uint32_t>(value >> 31));
  }
  static uint64_t ZigZag64(int64_t value) {
    return (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  }

 private:
  std::string* out_;
  int16_t last_field_id_ = 0;
  std::vector<int16_t> last_field_ids_;
};

}  // namespace silt::parquet::internal
