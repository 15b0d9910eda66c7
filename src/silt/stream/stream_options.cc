#include "silt/stream/source.h"

#include <charconv>

#include "silt/base/ascii.h"
#include "silt/base/check.h"

namespace silt::stream {

namespace {

[[noreturn]] void ThrowInvalid(const std::string& key, const std::string& value,
                               const std::string& reason) {
  SILT_THROW(INVALID_STREAMING_OPTION, {{"value", value}, {"option", key}, {"reason", reason}});
}

}  // namespace

StreamOptions::StreamOptions(const std::map<std::string, std::string>& options) {
  for (const auto& [key, value] : options) Set(key, value);
}

void StreamOptions::Set(const std::string& key, std::string value) {
  values_[AsciiLower(key)] = std::move(value);
}

std::optional<std::string> StreamOptions::Get(const std::string& key) const {
  auto it = values_.find(AsciiLower(key));
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

bool StreamOptions::GetBool(const std::string& key, bool default_value) const {
  std::optional<std::string> text = Get(key);
  if (!text) return default_value;
  std::string lower = AsciiLower(*text);
  if (lower == "true") return true;
  if (lower == "false") return false;
  ThrowInvalid(key, *text, "expected true or false");
}

std::optional<int64_t> StreamOptions::GetPositiveInt(const std::string& key) const {
  std::optional<std::string> text = Get(key);
  if (!text) return std::nullopt;
  int64_t value = 0;
  const char* end = text->data() + text->size();
  auto [ptr, error] = std::from_chars(text->data(), end, value);
  if (error != std::errc() || ptr != end || value <= 0) {
    ThrowInvalid(key, *text, "expected a positive integer");
  }
  return value;
}

std::optional<int64_t> StreamOptions::GetByteSize(const std::string& key) const {
  std::optional<std::string> text = Get(key);
  if (!text) return std::nullopt;
  std::string lower = AsciiLower(*text);
  int64_t value = 0;
  const char* begin = lower.data();
  const char* end = lower.data() + lower.size();
  auto [ptr, error] = std::from_chars(begin, end, value);
  std::string_view unit(ptr, static_cast<size_t>(end - ptr));
  int shift = -1;
  if (unit.empty() || unit == "b") shift = 0;
  if (unit == "k" || unit == "kb") shift = 10;
  if (unit == "m" || unit == "mb") shift = 20;
  if (unit == "g" || unit == "gb") shift = 30;
  if (unit == "t" || unit == "tb") shift = 40;
  if (error != std::errc() || ptr == begin || value <= 0 || shift < 0 ||
      value > (INT64_MAX >> shift)) {
    ThrowInvalid(key, *text, "expected a positive byte size such as 1048576, 512k or 10g");
  }
  return value << shift;
}

}  // namespace silt::stream
