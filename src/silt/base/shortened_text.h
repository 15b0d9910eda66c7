#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace silt {

/// How many bytes of an identifier an error message echoes.
inline constexpr size_t kEchoedIdentifierLimit = 200;

/// Returns `text` when it has at most `limit` bytes; otherwise its first `limit` bytes (cut at a
/// UTF-8 character boundary), an ellipsis and, unless `with_length` is false (for a message
/// that states the length itself), the full length: "aaaa… (1048576 bytes)". A message thus
/// never echoes a megabyte of user input back.
inline std::string ShortenedForMessage(std::string_view text,
                                       size_t limit = kEchoedIdentifierLimit,
                                       bool with_length = true) {
  if (text.size() <= limit) return std::string(text);
  size_t cut = limit;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to the start of a character.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  std::string out(text.substr(0, cut));
  out += "\xE2\x80\xA6";
  if (with_length) out += " (" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace silt
