#pragma once

// A bounds-checked reader of the Thrift compact protocol (thrift's doc/specs/thrift-compact-
// protocol.md), enough for parquet.thrift: structs, lists, sets, maps, binaries, integers,
// doubles and booleans. Every read checks the remaining input, so a truncated or hostile footer
// ends in PARQUET_CORRUPT_FILE; lengths are bounded by both DecodeLimits and the bytes left.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "silt/base/check.h"
#include "silt/parquet/metadata.h"
#include "silt/parquet/thrift_compact_internal.h"

namespace silt::parquet::internal {

/// Reads one compact-protocol message from a byte range. Not thread-safe; cheap to create.
class ThriftCompactDecoder {
 public:
  ThriftCompactDecoder(const uint8_t* data, size_t size, const DecodeLimits& limits)
      : begin_(data), position_(data), end_(data + size), limits_(limits) {}

  /// Throws PARQUET_CORRUPT_FILE with `what` and the current byte offset.
  [[noreturn]] void Fail(const std::string& what) const {
    SILT_THROW(PARQUET_CORRUPT_FILE,
               {{"path", "<footer>"},
                {"message", what + " at byte " + std::to_string(position_ - begin_)}});
  }

  size_t consumed() const { return static_cast<size_t>(position_ - begin_); }

  /// Enters a struct: field ids restart from zero. Bounds the nesting depth.
  void BeginStruct() {
    if (static_cast<int>(last_field_ids_.size()) + nested_depth_ >= limits_.max_struct_depth) {
      Fail("Thrift structs nested too deeply");
    }
    last_field_ids_.push_back(0);
  }
  void EndStruct() { last_field_ids_.pop_back(); }

  /// Reads the next field header of the current struct; false at the STOP marker.
  bool ReadFieldHeader(int16_t* field_id, CompactType* type) {
    uint8_t byte = ReadByte();
    uint8_t type_code = byte & 0x0F;
    if (type_code == 0) return false;
    if (type_code > static_cast<uint8_t>(CompactType::kStruct)) Fail("invalid Thrift field type");
    uint8_t delta = byte >> 4;
    int16_t id;
    if (delta != 0) {
      id = static_cast<int16_t>(last_field_ids_.back() + delta);
    } else {
      int64_t raw = ReadZigZag();
      if (raw < INT16_MIN || raw > INT16_MAX) Fail("invalid Thrift field id");
      id = static_cast<int16_t>(raw);
    }
    last_field_ids_.back() = id;
    *field_id = id;
    *type = static_cast<CompactType>(type_code);
    // A boolean field carries its value in the type code.
    pending_bool_ = type_code == static_cast<uint8_t>(CompactType::kBooleanTrue);
    return true;
  }

  /// The value of a boolean field whose header was just read, or a boolean list element.
  bool ReadBool(CompactType type, bool in_list) {
    if (in_list) {
      uint8_t byte = ReadByte();
      return byte == 1;
    }
    if (type != CompactType::kBooleanTrue && type != CompactType::kBooleanFalse) {
      Fail("expected a Thrift boolean");
    }
    return pending_bool_;
  }

  int32_t ReadI32(CompactType type) {
    int64_t value = ReadI64(type);
    if (value < INT32_MIN || value > INT32_MAX) Fail("Thrift i32 out of range");
    return static_cast<int32_t>(value);
  }
  int64_t ReadI64(CompactType type) {
    ExpectInteger(type);
    if (type == CompactType::kByte) return static_cast<int8_t>(ReadByte());
    return ReadZigZag();
  }
  std::string ReadBinary(CompactType type) {
    if (type != CompactType::kBinary) Fail("expected a Thrift binary");
    uint64_t length = ReadVarint();
    if (length > limits_.max_string_bytes) Fail("Thrift binary longer than the limit");
    if (length > Remaining()) Fail("Thrift binary runs past the end");
    std::string out(reinterpret_cast<const char*>(position_), static_cast<size_t>(length));
    position_ += length;
    return out;
  }

  /// Reads a list (or set) header; the size is bounded by the bytes left (every element takes
  /// at least one byte, except booleans' which also take one in lists).
  void ReadListHeader(CompactType type, CompactType* element_type, size_t* size) {
    if (type != CompactType::kList && type != CompactType::kSet) Fail("expected a Thrift list");
    uint8_t byte = ReadByte();
    uint64_t count = byte >> 4;
    if (count == 15) count = ReadVarint();
    uint8_t element_code = byte & 0x0F;
    if (element_code == 0 || element_code > static_cast<uint8_t>(CompactType::kStruct)) {
      Fail("invalid Thrift list element type");
    }
    if (count > limits_.max_list_elements) Fail("Thrift list longer than the limit");
    if (count > Remaining()) Fail("Thrift list longer than the bytes left");
    *element_type = static_cast<CompactType>(element_code);
    *size = static_cast<size_t>(count);
  }

  /// Skips a value of any type, bounded in depth.
  void Skip(CompactType type, bool in_list = false) {
    switch (type) {
      case CompactType::kBooleanTrue:
      case CompactType::kBooleanFalse:
        if (in_list) ReadByte();
        return;
      case CompactType::kByte:
        ReadByte();
        return;
      case CompactType::kI16:
      case CompactType::kI32:
      case CompactType::kI64:
        ReadVarint();
        return;
      case CompactType::kDouble:
        Advance(8);
        return;
      case CompactType::kBinary: {
        uint64_t length = ReadVarint();
        if (length > Remaining()) Fail("Thrift binary runs past the end");
        Advance(static_cast<size_t>(length));
        return;
      }
      case CompactType::kList:
      case CompactType::kSet: {
        CompactType element_type;
        size_t size;
        ReadListHeader(type, &element_type, &size);
        EnterNested();
        for (size_t i = 0; i < size; ++i) Skip(element_type, true);
        LeaveNested();
        return;
      }
      case CompactType::kMap: {
        uint64_t size = ReadVarint();
        if (size == 0) return;
        if (size > Remaining()) Fail("Thrift map longer than the bytes left");
        uint8_t types = ReadByte();
        auto key_type = static_cast<CompactType>(types >> 4);
        auto value_type = static_cast<CompactType>(types & 0x0F);
        if ((types >> 4) == 0 || (types >> 4) > 12 || (types & 0x0F) == 0 || (types & 0x0F) > 12) {
          Fail("invalid Thrift map types");
        }
        EnterNested();
        for (uint64_t i = 0; i < size; ++i) {
          Skip(key_type, true);
          Skip(value_type, true);
        }
        LeaveNested();
        return;
      }
      case CompactType::kStruct: {
        BeginStruct();
        int16_t id;
        CompactType field_type;
        while (ReadFieldHeader(&id, &field_type)) Skip(field_type);
        EndStruct();
        return;
      }
      case CompactType::kStop:
        break;
    }
    Fail("invalid Thrift type");
  }

 private:
  size_t Remaining() const { return static_cast<size_t>(end_ - position_); }
  void Advance(size_t count) {
    if (count > Remaining()) Fail("unexpected end of Thrift data");
    position_ += count;
  }
  uint8_t ReadByte() {
    if (position_ == end_) Fail("unexpected end of Thrift data");
    return *position_++;
  }
  uint64_t ReadVarint() {
    uint64_t result = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      uint8_t byte = ReadByte();
      if (shift == 63 && byte > 1) Fail("Thrift varint overflows 64 bits");
      result |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) return result;
    }
    Fail("Thrift varint too long");
  }
  int64_t ReadZigZag() {
    uint64_t raw = ReadVarint();
    return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
  }
  void ExpectInteger(CompactType type) {
    if (type != CompactType::kByte && type != CompactType::kI16 && type != CompactType::kI32 &&
        type != CompactType::kI64) {
      Fail("expected a Thrift integer");
    }
  }
  // Lists and maps count toward the depth limit as structs do, so `list<list<...>>` cannot
  // recurse without bound either.
  void EnterNested() {
    if (static_cast<int>(last_field_ids_.size()) + ++nested_depth_ > limits_.max_struct_depth)
      Fail("Thrift values nested too deeply");
  }
  void LeaveNested() { --nested_depth_; }

  const uint8_t* begin_;
  const uint8_t* position_;
  const uint8_t* end_;
  DecodeLimits limits_;
  std::vector<int16_t> last_field_ids_;
  bool pending_bool_ = false;
  int nested_depth_ = 0;
};

}  // namespace silt::parquet::internal
