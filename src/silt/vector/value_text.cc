#include "silt/vector/value_text.h"

#include <charconv>
#include <cmath>

namespace silt {
namespace {

// Lays out shortest scientific digits ("d.ddde±x" from std::to_chars) the way Java's
// Double.toString / Float.toString do.
std::string JavaLayout(const char* scientific, size_t length) {
  std::string_view text(scientific, length);
  std::string out;
  if (!text.empty() && text[0] == '-') {
    out += '-';
    text.remove_prefix(1);
  }
  size_t e = text.find('e');
  std::string_view mantissa = text.substr(0, e);
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(),
                  exponent);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  // value = 0.digits * 10^(exponent + 1); i.e. the decimal point sits after `point` digits.
  if (exponent >= -3 && exponent < 7) {
    int point = exponent + 1;
    if (point <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-point), '0');
      out += digits;
    } else if (static_cast<size_t>(point) >= digits.size()) {
      out += digits;
      out.append(static_cast<size_t>(point) - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, static_cast<size_t>(point));
      out += '.';
      out.append(digits, static_cast<size_t>(point), std::string::npos);
    }
  } else {
    out += digits[0];
    out += '.';
    if (digits.size() > 1) {
      out.append(digits, 1, std::string::npos);
    } else {
      out += '0';
    }
    out += 'E';
    out += std::to_string(exponent);
  }
  return out;
}

template <typename T>
std::string FormatJava(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  auto result =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view shortest(buffer, static_cast<size_t>(result.ptr - buffer));
  if (shortest.find('.') == std::string_view::npos) {
    // Java never settles for one significant digit: when one digit suffices it prints the
    // two-digit decimal closest to the value (Double.MIN_VALUE is "4.9E-324", not "5.0E-324").
    result =
        std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific, 1);
  }
  return JavaLayout(buffer, static_cast<size_t>(result.ptr - buffer));
}

}  // namespace

std::string FormatJavaDouble(double value) { return FormatJava(value); }
std::string FormatJavaFloat(float value) { return FormatJava(value); }

std::string FormatDecimal(Decimal128 unscaled, int scale) {
  bool negative = unscaled < 0;
  // Work on the magnitude as unsigned so that the most negative value does not overflow.
  unsigned __int128 magnitude =
      negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(unscaled)
               : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits += static_cast<char>('0' + static_cast<int>(magnitude % 10));
    magnitude /= 10;
  } while (magnitude != 0);
  while (digits.size() <= static_cast<size_t>(scale)) digits += '0';
  std::string out;
  if (negative) out += '-';
  for (size_t i = digits.size(); i-- > 0;) {
    out += digits[i];
    if (scale > 0 && i == static_cast<size_t>(scale)) out += '.';
  }
  return out;
}

std::optional<Decimal128> ParseDecimal(std::string_view text, int precision, int scale) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  // Collect the significant digits and where the decimal point falls among them.
  std::string digits;
  int64_t point = -1;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == '.' && point < 0) {
      point = static_cast<int64_t>(digits.size());
    } else {
      break;
    }
  }
  if (digits.empty()) return std::nullopt;
  if (point < 0) point = static_cast<int64_t>(digits.size());
  int64_t exponent = 0;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return std::nullopt;
    std::string_view rest = text.substr(i + 1);
    if (!rest.empty() && rest.front() == '+') rest.remove_prefix(1);
    auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), exponent);
    if (error != std::errc() || end != rest.data() + rest.size() || rest.empty()) {
      return std::nullopt;
    }
    if (exponent > 1000 || exponent < -1000) return std::nullopt;
  }
  // The value is 0.digits * 10^(point + exponent); it needs `keep` digits at this scale.
  int64_t keep = point + exponent + scale;
  unsigned __int128 magnitude = 0;
  unsigned __int128 limit = 1;
  for (int p = 0; p < precision; ++p) limit *= 10;
  for (int64_t d = 0; d < keep; ++d) {
    int digit = d < static_cast<int64_t>(digits.size()) ? digits[static_cast<size_t>(d)] - '0' : 0;
    magnitude = magnitude * 10 + static_cast<unsigned>(digit);
    if (magnitude >= limit) return std::nullopt;
  }
  // Half-up rounding on the first dropped digit.
  if (keep >= 0 && keep < static_cast<int64_t>(digits.size()) &&
      digits[static_cast<size_t>(keep)] >= '5') {
    ++magnitude;
    if (magnitude >= limit) return std::nullopt;
  }
  auto value = static_cast<Decimal128>(magnitude);
  return negative ? -value : value;
}

std::string FormatYearMonthInterval(int32_t months, int start, int end) {
  static const char* const kNames[] = {"YEAR", "MONTH"};
  const std::string sign = months < 0 ? "-" : "";
  const int64_t magnitude = months < 0 ? -static_cast<int64_t>(months) : months;
  std::string value;
  if (start != end) {
    value = sign + std::to_string(magnitude / 12) + "-" + std::to_string(magnitude % 12);
  } else if (start == 0) {
    value = sign + std::to_string(magnitude / 12);
  } else {
    value = std::to_string(months);
  }
  std::string out = "INTERVAL '" + value + "' " + kNames[start];
  if (start != end) out += std::string(" TO ") + kNames[end];
  return out;
}

namespace {

// "05", "12.5", "00.000001": seconds with at least two integer digits and the fraction without
// trailing zeros (Java's BigDecimal.stripTrailingZeros().toPlainString()).
std::string SecondsText(uint64_t micros) {
  std::string text = std::to_string(micros / 1000000);
  if (text.size() < 2) text = "0" + text;
  uint64_t fraction = micros % 1000000;
  if (fraction != 0) {
    std::string digits = std::to_string(fraction);
    digits = std::string(6 - digits.size(), '0') + digits;
    while (digits.back() == '0') digits.pop_back();
    text += "." + digits;
  }
  return text;
}

std::string TwoDigits(uint64_t value) {
  std::string text = std::to_string(value);
  return text.size() < 2 ? "0" + text : text;
}

}  // namespace

std::string FormatDayTimeInterval(int64_t micros, int start, int end) {
  static const char* const kNames[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
  constexpr uint64_t kMicrosPerSecond = 1000000;
  constexpr uint64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
  constexpr uint64_t kMicrosPerHour = 60 * kMicrosPerMinute;
  constexpr uint64_t kMicrosPerDay = 24 * kMicrosPerHour;
  // The magnitude as unsigned, so that the most negative value needs no special case.
  uint64_t rest = micros < 0 ? uint64_t{0} - static_cast<uint64_t>(micros) : static_cast<uint64_t>(micros);
  std::string value = micros < 0 ? "-" : "";
  switch (start) {
    case 0:
      value += std::to_string(rest / kMicrosPerDay);
      rest %= kMicrosPerDay;
      break;
    case 1:
      value += TwoDigits(rest / kMicrosPerHour);
      rest %= kMicrosPerHour;
      break;
    case 2:
      value += TwoDigits(rest / kMicrosPerMinute);
      rest %= kMicrosPerMinute;
      break;
    default:
      value += SecondsText(rest);
      break;
  }
  if (start < 1 && 1 <= end) {
    value += " " + TwoDigits(rest / kMicrosPerHour);
    rest %= kMicrosPerHour;
  }
  if (start < 2 && 2 <= end) {
    value += ":" + TwoDigits(rest / kMicrosPerMinute);
    rest %= kMicrosPerMinute;
  }
  if (start < 3 && 3 <= end) value += ":" + SecondsText(rest);
  std::string out = "INTERVAL '" + value + "' " + kNames[start];
  if (start != end) out += std::string(" TO ") + kNames[end];
  return out;
}

std::string FormatBinaryHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "[";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i > 0) out += ' ';
    auto byte = static_cast<unsigned char>(bytes[i]);
    out += kHex[byte >> 4];
    out += kHex[byte & 15];
  }
  out += ']';
  return out;
}

std::string EncodeBase64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t group = (static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16) |
                     (static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8) |
                     static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kAlphabet[(group >> 18) & 63];
    out += kAlphabet[(group >> 12) & 63];
    out += kAlphabet[(group >> 6) & 63];
    out += kAlphabet[group & 63];
  }
  size_t remaining = bytes.size() - i;
  if (remaining > 0) {
    uint32_t group = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (remaining == 2) {
      group |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    }
    out += kAlphabet[(group >> 18) & 63];
    out += kAlphabet[(group >> 12) & 63];
    out += remaining == 2 ? kAlphabet[(group >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace silt
