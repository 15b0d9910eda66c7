#include "silt/expr/duration_text.h"

#include <cctype>
#include <charconv>
#include <string>
#include <vector>

namespace silt::expr {

namespace {

std::vector<std::string> Words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

std::optional<int64_t> MicrosPerUnit(std::string unit) {
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  if (unit == "week") return int64_t{7} * 86'400'000'000;
  if (unit == "day") return int64_t{86'400'000'000};
  if (unit == "hour") return int64_t{3'600'000'000};
  if (unit == "minute") return int64_t{60'000'000};
  if (unit == "second") return int64_t{1'000'000};
  if (unit == "millisecond") return int64_t{1'000};
  if (unit == "microsecond") return int64_t{1};
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> ParseDurationMicros(std::string_view text) {
  std::vector<std::string> words = Words(text);
  size_t next = 0;
  if (next < words.size() && words[next] == "interval") ++next;
  if (next == words.size() || (words.size() - next) % 2 != 0) return std::nullopt;
  int64_t total = 0;
  for (; next < words.size(); next += 2) {
    std::string number = words[next];
    if (number.size() >= 2 && number.front() == '\'' && number.back() == '\'') {
      number = number.substr(1, number.size() - 2);
    }
    bool negative = !number.empty() && number.front() == '-';
    if (negative || (!number.empty() && number.front() == '+')) number.erase(0, 1);
    int64_t value = 0;
    auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size()) {
      return std::nullopt;
    }
    std::optional<int64_t> unit = MicrosPerUnit(words[next + 1]);
    if (!unit) return std::nullopt;
    int64_t micros = 0;
    if (__builtin_mul_overflow(value, *unit, &micros)) return std::nullopt;
    if (negative) micros = -micros;
    if (__builtin_add_overflow(total, micros, &total)) return std::nullopt;
  }
  return total;
}

}  // namespace silt::expr
