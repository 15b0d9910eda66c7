#pragma once

// Walking UTF-8 text by code point, shared by the string function families: Spark counts
// lengths and positions of strings in code points, as its UTF8String does.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace silt::expr::internal {

/// Whether byte `c` continues a multi-byte UTF-8 sequence (10xxxxxx).
inline bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

/// The code points of UTF-8 `text`, each as its bytes (a stray continuation byte stays with
/// the code point before it).
inline std::vector<std::string_view> CodePoints(std::string_view text) {
  std::vector<std::string_view> points;
  size_t start = 0;
  for (size_t i = 1; i <= text.size(); ++i) {
    if (i == text.size() || !IsContinuationByte(text[i])) {
      points.push_back(text.substr(start, i - start));
      start = i;
    }
  }
  return points;
}

/// The number of code points of `text`.
inline int64_t CodePointCount(std::string_view text) {
  int64_t count = 0;
  for (char c : text) count += !IsContinuationByte(c);
  return count;
}

/// The byte offset where code point `index` (0-based) starts; the text's size past its end.
inline size_t ByteOffsetOfCodePoint(std::string_view text, int64_t index) {
  int64_t seen = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsContinuationByte(text[i])) {
      if (seen == index) return i;
      ++seen;
    }
  }
  return text.size();
}

}  // namespace silt::expr::internal
