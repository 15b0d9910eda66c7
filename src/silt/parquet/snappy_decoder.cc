#include "silt/parquet/snappy_decoder_internal.h"

#include <cstring>

namespace silt::parquet::internal {
namespace {

// Copies `length` bytes from `offset` bytes back in the output; the regions may overlap (a
// short offset repeats a pattern), so the semantics are those of a byte-by-byte forward copy.
inline bool CopyBack(uint8_t* output, uint8_t*& op, uint8_t* output_end, size_t offset,
                     size_t length) {
  size_t produced = static_cast<size_t>(op - output);
  size_t room = static_cast<size_t>(output_end - op);
  if (offset == 0 || offset > produced || length > room) return false;
  const uint8_t* source = op - offset;
  if (offset >= 8 && length <= 16 && room >= 16) {
    // Two 8-byte moves; the second may read what the first wrote, which is exactly the forward
    // copy's result. Bytes past `length` are overwritten by the next element.
    std::memcpy(op, source, 8);
    std::memcpy(op + 8, source + 8, 8);
  } else if (offset >= length) {
    std::memcpy(op, source, length);
  } else {
    for (size_t i = 0; i < length; ++i) op[i] = source[i];
  }
  op += length;
  return true;
}

inline uint32_t Load32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, 4);
  return value;
}
inline void Copy8(uint8_t* to, const uint8_t* from) {
  uint64_t value;
  std::memcpy(&value, from, 8);
  std::memcpy(to, &value, 8);
}
inline void Copy16(uint8_t* to, const uint8_t* from) {
  uint8_t value[16];
  std::memcpy(value, from, 16);
  std::memcpy(to, value, 16);
}

// Bounds of the fast loop: an element reads at most 5 tag bytes and a 16-byte literal window,
// and writes at most 64 bytes plus a 16-byte overrun, so while the input and the output keep
// these margins an element needs no check beyond its own lengths and offset.
constexpr size_t kFastInputMargin = 5 + 16;
constexpr size_t kFastOutputMargin = 64 + 16;

}  // namespace

bool DecompressSnappy(const uint8_t* input, size_t input_size, uint8_t* output,
                      size_t output_size) {
  const uint8_t* ip = input;
  const uint8_t* input_end = input + input_size;
  uint64_t length = 0;
  for (int shift = 0;; shift += 7) {
    if (ip >= input_end || shift > 28) return false;
    uint8_t byte = *ip++;
    length |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) break;
  }
  if (length != output_size) return false;

  uint8_t* op = output;
  uint8_t* output_end = output + output_size;

  // The bulk of a block: elements decoded with fixed-size moves and no per-element bounds
  // checks (see kFastInputMargin); literals longer than 16 bytes are checked as below.
  const uint8_t* fast_input_end =
      input_size > kFastInputMargin ? input_end - kFastInputMargin : input;
  uint8_t* fast_output_end = output_size > kFastOutputMargin ? output_end - kFastOutputMargin : output;
  while (ip < fast_input_end && op < fast_output_end) {
    const uint32_t tag = *ip++;
    if ((tag & 3) == 0) {
      size_t literal = (tag >> 2) + 1u;
      if (literal <= 16) {
        Copy16(op, ip);
        op += literal;
        ip += literal;
        continue;
      }
      if (literal > 60) {
        size_t extra = literal - 60;  // the length follows in 1..4 little-endian bytes
        literal = (Load32(ip) & (0xFFFFFFFFu >> (8 * (4 - extra)))) + 1;
        ip += extra;
      }
      if (literal > static_cast<size_t>(input_end - ip) ||
          literal > static_cast<size_t>(output_end - op)) {
        return false;
      }
      std::memcpy(op, ip, literal);
      op += literal;
      ip += literal;
      continue;
    }
    size_t copy_length;
    size_t offset;
    if ((tag & 3) == 1) {
      copy_length = 4 + ((tag >> 2) & 7u);
      offset = (static_cast<size_t>(tag >> 5) << 8) | ip[0];
      ip += 1;
    } else if ((tag & 3) == 2) {
      copy_length = 1 + (tag >> 2);
      offset = static_cast<size_t>(ip[0]) | (static_cast<size_t>(ip[1]) << 8);
      ip += 2;
    } else {
      copy_length = 1 + (tag >> 2);
      offset = Load32(ip);
      ip += 4;
    }
    // An offset of 0 wraps around and fails as one reaching before the output.
    if (offset - 1 >= static_cast<size_t>(op - output)) return false;
    const uint8_t* source = op - offset;
    // Moves of 8 (or 16) bytes read only bytes already written when the offset is at least
    // their size, which is the forward copy's result; bytes past the length are overwritten by
    // the next element.
    if (offset >= 8 && copy_length <= 16) {
      Copy8(op, source);
      Copy8(op + 8, source + 8);
    } else if (offset >= 16) {
      for (size_t done = 0; done < copy_length; done += 16) Copy16(op + done, source + done);
    } else if (offset >= 8) {
      for (size_t done = 0; done < copy_length; done += 8) Copy8(op + done, source + done);
    } else {
      for (size_t i = 0; i < copy_length; ++i) op[i] = source[i];
    }
    op += copy_length;
  }

  // The tail, element by element with every bound checked.
  while (ip < input_end) {
    uint8_t tag = *ip++;
    size_t available = static_cast<size_t>(input_end - ip);
    switch (tag & 3) {
      case 0: {  // literal
        size_t literal = (tag >> 2) + 1u;
        if (literal > 60) {
          size_t extra = literal - 60;  // the length follows in 1..4 little-endian bytes
          if (available < extra) return false;
          uint32_t value = 0;
          for (size_t i = 0; i < extra; ++i) value |= static_cast<uint32_t>(ip[i]) << (8 * i);
          ip += extra;
          available -= extra;
          literal = static_cast<size_t>(value) + 1;
        }
        size_t room = static_cast<size_t>(output_end - op);
        if (literal <= 16 && available >= 16 && room >= 16) {
          std::memcpy(op, ip, 16);
        } else {
          if (literal > available || literal > room) return false;
          std::memcpy(op, ip, literal);
        }
        op += literal;
        ip += literal;
        break;
      }
      case 1: {  // copy, 3-bit length, 11-bit offset
        if (available < 1) return false;
        size_t copy_length = 4 + ((tag >> 2) & 7u);
        size_t offset = (static_cast<size_t>(tag >> 5) << 8) | ip[0];
        ip += 1;
        if (!CopyBack(output, op, output_end, offset, copy_length)) return false;
        break;
      }
      case 2: {  // copy, 6-bit length, 16-bit offset
        if (available < 2) return false;
        size_t copy_length = 1 + (tag >> 2);
        size_t offset = static_cast<size_t>(ip[0]) | (static_cast<size_t>(ip[1]) << 8);
        ip += 2;
        if (!CopyBack(output, op, output_end, offset, copy_length)) return false;
        break;
      }
      default: {  // copy, 6-bit length, 32-bit offset
        if (available < 4) return false;
        size_t copy_length = 1 + (tag >> 2);
        size_t offset = static_cast<size_t>(ip[0]) | (static_cast<size_t>(ip[1]) << 8) |
                        (static_cast<size_t>(ip[2]) << 16) | (static_cast<size_t>(ip[3]) << 24);
        ip += 4;
        if (!CopyBack(output, op, output_end, offset, copy_length)) return false;
        break;
      }
    }
  }
  return op == output_end;
}

}  // namespace silt::parquet::internal
