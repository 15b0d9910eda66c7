// Numbers to and from formatted text: to_number, try_to_number, to_char/to_varchar (numbers,
// and binary or datetime values), format_number, and format_string/printf (Java's Formatter
// for the common conversions).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "silt/base/ascii.h"
#include "silt/expr/cast.h"
#include "silt/expr/decimal_arithmetic_internal.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/value_size.h"
#include "silt/vector/value_text.h"

namespace silt::expr::internal {
namespace {

constexpr char kFormatStructure[] = "the structure of the valid format is [MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S].";

// A number format of to_number/to_char: [MI|S] [$] [0|9|G|,]* [.|D] [0|9]* [$] [PR|MI|S].
struct NumberFormat {
  enum class Sign { kNone, kS, kMi, kPr };
  std::string text;            // as written, for messages
  Sign leading = Sign::kNone;  // S or MI before the digits
  Sign trailing = Sign::kNone;
  bool dollar = false;
  bool dollar_before = true;
  std::string integer;         // '0', '9' and ',' before the point
  bool point = false;
  std::string fraction;        // '0' and '9' after the point
  int precision = 0;
  int scale = 0;
};

[[noreturn]] void ThrowInvalidFormat(const std::string& format, const std::string& message) {
  SILT_THROW(INVALID_FORMAT, {{"format", "'" + format + "'"}, {"message", message}});
}

NumberFormat ParseNumberFormat(const std::string& written) {
  NumberFormat format;
  format.text = written;
  std::string text;
  for (char c : written) text += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (text.empty()) ThrowInvalidFormat(written, "The format string cannot be empty.");
  size_t i = 0;
  auto unexpected = [&](const std::string& token) {
    ThrowInvalidFormat(written, "Found the unexpected " + token + " in the format string; " + kFormatStructure);
  };
  if (text.compare(i, 2, "MI") == 0) {
    format.leading = NumberFormat::Sign::kMi;
    i += 2;
  } else if (text[i] == 'S') {
    format.leading = NumberFormat::Sign::kS;
    ++i;
  }
  if (i < text.size() && text[i] == '$') {
    format.dollar = true;
    ++i;
  }
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '0' || c == '9') {
      (format.point ? format.fraction : format.integer) += c;
    } else if (c == ',' || c == 'G') {
      if (format.point) unexpected("','");
      if (format.integer.empty() || format.integer.back() == ',') {
        ThrowInvalidFormat(written, "Thousands separators (, or G) must have digits in between them in the number format.");
      }
      format.integer += ',';
    } else if (c == '.' || c == 'D') {
      if (format.point) unexpected("'" + std::string(1, written[i]) + "'");
      format.point = true;
    } else {
      break;
    }
  }
  if (!format.integer.empty() && format.integer.back() == ',') {
    ThrowInvalidFormat(written, "Thousands separators (, or G) must have digits in between them in the number format.");
  }
  if (i < text.size() && text[i] == '$') {
    if (format.dollar) unexpected("'$'");
    format.dollar = true;
    format.dollar_before = false;
    ++i;
  }
  if (i < text.size()) {
    if (format.leading == NumberFormat::Sign::kNone && text.compare(i, 2, "MI") == 0) {
      format.trailing = NumberFormat::Sign::kMi;
      i += 2;
    } else if (format.leading == NumberFormat::Sign::kNone && text.compare(i, 2, "PR") == 0) {
      format.trailing = NumberFormat::Sign::kPr;
      i += 2;
    } else if (format.leading == NumberFormat::Sign::kNone && text[i] == 'S') {
      format.trailing = NumberFormat::Sign::kS;
      ++i;
    }
  }
  if (i < text.size()) unexpected("'" + written.substr(i, 1) + "'");
  for (char c : format.integer) format.precision += c != ',';
  format.scale = static_cast<int>(format.fraction.size());
  format.precision += format.scale;
  if (format.precision == 0) ThrowInvalidFormat(written, "The format string requires at least one number digit.");
  if (format.precision > kMaxDecimalPrecision) {
    ThrowInvalidFormat(written, "The format has more than " + std::to_string(kMaxDecimalPrecision) + " digits.");
  }
  return format;
}

// Reads `input` by `format` (to_number); nullopt when it does not match.
std::optional<Decimal128> ParseFormattedNumber(std::string_view input, const NumberFormat& format) {
  bool negative = false;
  auto take = [&](char c) {
    if (!input.empty() && input.front() == c) {
      input.remove_prefix(1);
      return true;
    }
    return false;
  };
  auto take_back = [&](char c) {
    if (!input.empty() && input.back() == c) {
      input.remove_suffix(1);
      return true;
    }
    return false;
  };
  if (format.leading == NumberFormat::Sign::kS) {
    if (take('-')) negative = true; else take('+');
  } else if (format.leading == NumberFormat::Sign::kMi) {
    negative = take('-');
  }
  if (format.trailing == NumberFormat::Sign::kS) {
    if (take_back('-')) negative = true; else take_back('+');
  } else if (format.trailing == NumberFormat::Sign::kMi) {
    negative = take_back('-');
  } else if (format.trailing == NumberFormat::Sign::kPr) {
    if (!input.empty() && input.front() == '<') {
      if (!take_back('>')) return std::nullopt;
      input.remove_prefix(1);
      negative = true;
    }
  }
  if (format.dollar) {
    if (format.dollar_before ? !take('$') : !take_back('$')) return std::nullopt;
  }
  size_t point = input.find('.');
  std::string_view integer = input.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? std::string_view() : input.substr(point + 1);
  if (point != std::string_view::npos && !format.point) return std::nullopt;
  if (integer.empty() && fraction.empty()) return std::nullopt;
  if (fraction.size() > format.fraction.size()) return std::nullopt;
  // Groups of integer digits line up with the format's groups from the right: every group but
  // the first has the format's size, the first at most its size.
  std::vector<size_t> format_groups;
  std::vector<size_t> input_groups;
  size_t count = 0;
  for (char c : format.integer) {
    if (c == ',') {
      format_groups.push_back(count);
      count = 0;
    } else {
      ++count;
    }
  }
  format_groups.push_back(count);
  count = 0;
  Decimal128 value = 0;
  for (char c : integer) {
    if (c == ',') {
      input_groups.push_back(count);
      count = 0;
    } else if (c >= '0' && c <= '9') {
      ++count;
      value = value * 10 + (c - '0');
    } else {
      return std::nullopt;
    }
  }
  input_groups.push_back(count);
  if (!integer.empty()) {
    if (input_groups.size() > format_groups.size()) return std::nullopt;
    size_t offset = format_groups.size() - input_groups.size();
    for (size_t g = 0; g < input_groups.size(); ++g) {
      size_t expected = format_groups[offset + g];
      if (g == 0 ? (input_groups[g] == 0 || input_groups[g] > expected) : input_groups[g] != expected) return std::nullopt;
    }
  }
  for (size_t k = 0; k < format.fraction.size(); ++k) {
    char c = k < fraction.size() ? fraction[k] : '0';
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return negative ? -value : value;
}

// Writes `unscaled` (at `scale`) by `format` (to_char): '#' in every position when the integer
// part has more digits than the format.
std::string FormatNumberText(Decimal128 unscaled, int scale, const NumberFormat& format) {
  bool negative = unscaled < 0;
  Decimal128 magnitude = negative ? -unscaled : unscaled;
  // Too many integer digits for the format: '#' everywhere (checked first, so that scaling the
  // value below stays within 38 digits).
  Decimal128 integer_part = magnitude / Pow10(scale);
  if (integer_part != 0 && static_cast<int>(FormatDecimal(integer_part, 0).size()) > format.precision - format.scale) {
    return std::string(format.text.size(), '#');
  }
  if (scale > format.scale) {
    magnitude = DivideHalfUp(magnitude, Pow10(scale - format.scale));
  } else {
    magnitude *= Pow10(format.scale - scale);
  }
  Decimal128 whole = magnitude / Pow10(format.scale);
  Decimal128 part = magnitude % Pow10(format.scale);
  std::string integer_digits = whole == 0 ? "" : FormatDecimal(whole, 0);
  int integer_slots = format.precision - format.scale;
  if (static_cast<int>(integer_digits.size()) > integer_slots) return std::string(format.text.size(), '#');
  bool zero_pad = !format.integer.empty() && format.integer[0] == '0';
  std::string integer(format.integer.size(), ' ');
  int next = static_cast<int>(integer_digits.size()) - 1;
  for (int i = static_cast<int>(format.integer.size()) - 1; i >= 0; --i) {
    char token = format.integer[i];
    bool digits_left = next >= 0;
    if (token == ',') {
      integer[i] = digits_left || zero_pad ? ',' : ' ';
    } else if (digits_left) {
      integer[i] = integer_digits[next--];
    } else {
      integer[i] = zero_pad || token == '0' ? '0' : ' ';
    }
  }
  std::string fraction;
  if (format.scale > 0) {
    fraction = FormatDecimal(part, 0);
    fraction.insert(0, static_cast<size_t>(format.scale) - fraction.size(), '0');
  }
  std::string body = integer + (format.point ? "." + fraction : "");
  if (format.dollar) body = format.dollar_before ? "$" + body : body + "$";
  switch (format.leading) {
    case NumberFormat::Sign::kS: return (negative ? "-" : "+") + body;
    case NumberFormat::Sign::kMi: return (negative ? "-" : " ") + body;
    default: break;
  }
  switch (format.trailing) {
    case NumberFormat::Sign::kS: return body + (negative ? "-" : "+");
    case NumberFormat::Sign::kMi: return body + (negative ? "-" : " ");
    case NumberFormat::Sign::kPr: return negative ? "<" + body + ">" : body;
    default: return negative ? "-" + body : body;
  }
}

std::string ConstantFormat(std::string_view name, const ExpressionPtr& argument, size_t index) {
  if (argument->kind() != ExpressionKind::kLiteral || argument->type()->id() != TypeId::kString ||
      argument->literal().is_null()) {
    ThrowArgumentType(name, index, argument, "a constant \"STRING\"");
  }
  return std::string(argument->literal().GetString());
}

ExpressionPtr BindToNumber(std::string_view name, std::vector<ExpressionPtr> arguments, bool try_mode) {
  CheckArgumentCount(name, arguments, 2, 2);
  arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), StringType());
  NumberFormat format = ParseNumberFormat(ConstantFormat(name, arguments[1], 1));
  arguments.resize(1);
  DataTypePtr type = DecimalType(format.precision, format.scale);
  return MakeCall(name, type, std::move(arguments),
                  [type, format, try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                           RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view input = args[0]->GetString(row);
                      std::optional<Decimal128> value = ParseFormattedNumber(input, format);
                      if (!value) {
                        if (!try_mode && mask.Contains(row)) {
                          context.RecordError(MakeError(
                              ErrorClass::INVALID_FORMAT,
                              {{"format", "'" + format.text + "'"},
                               {"message", "The input \"STRING\" '" + std::string(input) + "' does not match the format."}}));
                        }
                        return out.AppendNull();
                      }
                      out.AppendDecimal(*value);
                    });
                  });
}

// Java's DecimalFormat pattern subset format_number uses: grouping size, minimum integer
// digits and minimum/maximum fraction digits.
struct DecimalPattern {
  int grouping = 3;
  bool grouped = true;
  int minimum_integer = 1;
  int minimum_fraction = 0;
  int maximum_fraction = 0;
};

DecimalPattern ParseDecimalPattern(std::string_view pattern) {
  DecimalPattern result;
  if (pattern.empty()) return result;
  size_t point = pattern.find('.');
  std::string_view integer = pattern.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? std::string_view() : pattern.substr(point + 1);
  size_t comma = integer.rfind(',');
  result.grouped = comma != std::string_view::npos;
  result.grouping = result.grouped ? static_cast<int>(integer.size() - comma - 1) : 0;
  result.minimum_integer = static_cast<int>(std::count(integer.begin(), integer.end(), '0'));
  result.minimum_fraction = static_cast<int>(std::count(fraction.begin(), fraction.end(), '0'));
  result.maximum_fraction = result.minimum_fraction + static_cast<int>(std::count(fraction.begin(), fraction.end(), '#'));
  return result;
}

// Formats digits "123456.789" (an unsigned plain decimal text) by `pattern`: groups the integer
// digits, pads the integer and fraction to their minimums and drops optional trailing zeros.
std::string ApplyDecimalPattern(std::string digits, bool negative, const DecimalPattern& pattern) {
  size_t point = digits.find('.');
  std::string integer = digits.substr(0, point);
  std::string fraction = point == std::string::npos ? "" : digits.substr(point + 1);
  while (static_cast<int>(fraction.size()) > pattern.minimum_fraction && !fraction.empty() && fraction.back() == '0') {
    fraction.pop_back();
  }
  if (static_cast<int>(fraction.size()) < pattern.minimum_fraction) {
    fraction.append(static_cast<size_t>(pattern.minimum_fraction) - fraction.size(), '0');
  }
  integer.erase(0, std::min(integer.find_first_not_of('0'), integer.size()));
  if (static_cast<int>(integer.size()) < pattern.minimum_integer) {
    integer.insert(0, static_cast<size_t>(pattern.minimum_integer) - integer.size(), '0');
  }
  std::string grouped;
  for (size_t i = 0; i < integer.size(); ++i) {
    if (pattern.grouped && pattern.grouping > 0 && i > 0 && (integer.size() - i) % pattern.grouping == 0) grouped += ',';
    grouped += integer[i];
  }
  std::string result = (negative ? "-" : "") + grouped;
  if (!fraction.empty()) result += "." + fraction;
  return result;
}

// The plain decimal digits of row `row` rounded HALF_EVEN to `digits` fraction digits.
std::string RoundedDigits(const Vector& values, int64_t row, int digits, bool* negative) {
  switch (values.type_id()) {
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double value = ReadDouble(values, row);
      *negative = std::signbit(value) && value != 0;
      // printf rounds the exact binary value, ties to even, as Java's DecimalFormat does.
      std::vector<char> buffer(400 + static_cast<size_t>(digits));
      std::snprintf(buffer.data(), buffer.size(), "%.*f", digits, std::fabs(value));
      return buffer.data();
    }
    case TypeId::kDecimal: {
      Decimal128 unscaled = values.values<Decimal128>()[row];
      int scale = values.type()->scale();
      *negative = unscaled < 0;
      Decimal128 magnitude = unscaled < 0 ? -unscaled : unscaled;
      if (scale > digits) {
        Decimal128 divisor = Pow10(scale - digits);
        Decimal128 quotient = magnitude / divisor;
        Decimal128 remainder = magnitude % divisor;
        if (remainder * 2 > divisor || (remainder * 2 == divisor && quotient % 2 != 0)) ++quotient;
        magnitude = quotient;
        scale = digits;
      }
      return FormatDecimal(magnitude, scale);
    }
    default: {
      int64_t value = ReadInteger(values, row);
      *negative = value < 0;
      std::string text = std::to_string(value);
      return *negative ? text.substr(1) : text;
    }
  }
}

// Java Formatter conversions for format_string: flags, width, precision and n$ indexes; the
// conversions s S d x X o f e E g G b B c C % n.
std::string JavaFormat(std::string_view pattern, const std::vector<VectorPtr>& args, int64_t row, const TimeZone* zone,
                       uint64_t max_value_bytes) {
  std::string out;
  size_t next_argument = 1;
  auto invalid = [&](const std::string& message) {
    SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`strfmt`"}, {"functionName", "`format_string`"},
                                        {"message", message}});
  };
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') {
      out += pattern[i];
      continue;
    }
    size_t start = i++;
    // Reads a run of digits at i (saturating at INT32_MAX); -1 when there is none.
    auto read_number = [&](size_t& position) {
      if (position >= pattern.size() || std::isdigit(static_cast<unsigned char>(pattern[position])) == 0) return -1;
      int64_t number = 0;
      while (position < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[position])) != 0) {
        number = std::min<int64_t>(number * 10 + (pattern[position++] - '0'), INT32_MAX);
      }
      return static_cast<int>(number);
    };
    size_t index = 0;
    size_t digits_end = i;
    int leading = read_number(digits_end);
    if (leading > 0 && digits_end < pattern.size() && pattern[digits_end] == '$') {
      index = static_cast<size_t>(leading);
      i = digits_end + 1;
    }
    std::string flags;
    while (i < pattern.size() && std::string_view("-#+ 0,(").find(pattern[i]) != std::string_view::npos) flags += pattern[i++];
    int width = read_number(i);
    int precision = -1;
    if (i < pattern.size() && pattern[i] == '.') {
      ++i;
      precision = std::max(read_number(i), 0);
    }
    if (i >= pattern.size()) invalid("Incomplete format specifier '" + std::string(pattern.substr(start)) + "'.");
    char conversion = pattern[i];
    if (conversion == '%') {
      out += '%';
      continue;
    }
    if (conversion == 'n') {
      out += '\n';
      continue;
    }
    size_t argument = index > 0 ? index : next_argument++;
    if (argument >= args.size()) invalid("Format specifier '" + std::string(pattern.substr(start, i - start + 1)) + "' has no argument.");
    const Vector& value = *args[argument];
    bool null = value.IsNull(row);
    TypeId id = value.type_id();
    bool upper = std::isupper(static_cast<unsigned char>(conversion)) != 0;
    char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(conversion)));
    std::string text;
    bool numeric = false;
    if (lower == 's') {
      text = null ? "null" : CastValueToString(value, row, zone);
      if (precision >= 0 && static_cast<int>(text.size()) > precision) text.resize(static_cast<size_t>(precision));
    } else if (lower == 'b') {
      text = null ? "false" : id == TypeId::kBoolean ? (value.GetBool(row) ? "true" : "false") : "true";
    } else if (lower == 'c') {
      if (null) {
        text = "null";
      } else if (IsIntegral(*value.type())) {
        int64_t number = ReadInteger(value, row);
        if (number < 0 || number > 0x10FFFF || (number >= 0xD800 && number <= 0xDFFF)) {
          invalid("%c needs a Unicode code point, got " + std::to_string(number) + ".");
        }
        auto code = static_cast<uint32_t>(number);
        if (code < 0x80) {
          text += static_cast<char>(code);
        } else if (code < 0x800) {
          text += static_cast<char>(0xC0 | (code >> 6));
          text += static_cast<char>(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
          text += static_cast<char>(0xE0 | (code >> 12));
          text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (code & 0x3F));
        } else {
          text += static_cast<char>(0xF0 | (code >> 18));
          text += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
          text += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
          text += static_cast<char>(0x80 | (code & 0x3F));
        }
      } else {
        invalid("%c needs a character, got " + value.type()->ToString() + ".");
      }
    } else if (lower == 'd' || lower == 'x' || lower == 'o') {
      numeric = true;
      if (null) {
        text = "null";
      } else if (IsIntegral(*value.type())) {
        int64_t number = ReadInteger(value, row);
        if (lower == 'd') {
          std::string digits = number < 0 ? std::to_string(number).substr(1) : std::to_string(number);
          if (flags.find(',') != std::string::npos) {
            std::string grouped;
            for (size_t k = 0; k < digits.size(); ++k) {
              if (k > 0 && (digits.size() - k) % 3 == 0) grouped += ',';
              grouped += digits[k];
            }
            digits = grouped;
          }
          if (number < 0) {
            text = flags.find('(') != std::string::npos ? "(" + digits + ")" : "-" + digits;
          } else {
            text = (flags.find('+') != std::string::npos ? "+" : flags.find(' ') != std::string::npos ? " " : "") + digits;
          }
        } else {
          // Java prints negative values in hex and octal as the two's complement of their type.
          int bits = value.type()->FixedWidth() * 8;
          uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
          auto raw = static_cast<uint64_t>(number) & mask;
          char buffer[32];
          std::snprintf(buffer, sizeof(buffer), lower == 'x' ? "%llx" : "%llo", static_cast<unsigned long long>(raw));
          text = buffer;
          if (flags.find('#') != std::string::npos) text = (lower == 'x' ? "0x" : "0") + text;
        }
      } else {
        invalid("%" + std::string(1, conversion) + " needs an integral value, got " + value.type()->ToString() + ".");
      }
    } else if (lower == 'f' || lower == 'e' || lower == 'g') {
      numeric = true;
      if (null) {
        text = "null";
      } else if (id == TypeId::kFloat || id == TypeId::kDouble || id == TypeId::kDecimal) {
        double number = id == TypeId::kDecimal ? DecimalToDouble(value.values<Decimal128>()[row], value.type()->scale())
                                               : ReadDouble(value, row);
        if (std::isnan(number) || std::isinf(number)) {
          text = std::isnan(number) ? "NaN" : number > 0 ? "Infinity" : "-Infinity";
        } else {
          std::string spec = "%";
          for (char flag : flags) {
            if (flag == '+' || flag == ' ' || flag == '#') spec += flag;
          }
          if (flags.find(',') != std::string::npos) spec += '\'';
          spec += "." + std::to_string(precision >= 0 ? precision : 6) + lower;
          CheckValueSize("The result of format_string", static_cast<uint64_t>(std::max(precision, 0)) + 400, max_value_bytes);
          std::vector<char> buffer(static_cast<size_t>(std::max(precision, 6)) + 400);
          std::snprintf(buffer.data(), buffer.size(), spec.c_str(), number);
          text = buffer.data();
          if (number < 0 && flags.find('(') != std::string::npos) text = "(" + text.substr(1) + ")";
        }
      } else {
        invalid("%" + std::string(1, conversion) + " needs a floating-point value, got " + value.type()->ToString() + ".");
      }
    } else {
      invalid("Unknown format conversion '" + std::string(1, conversion) + "'.");
    }
    if (upper) {
      for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    CheckValueSize("The result of format_string", uint64_t{out.size()} + static_cast<uint64_t>(std::max(width, 0)) + text.size(),
                   max_value_bytes);
    if (width > 0 && static_cast<int>(text.size()) < width) {
      size_t pad = static_cast<size_t>(width) - text.size();
      if (flags.find('-') != std::string::npos) {
        text.append(pad, ' ');
      } else if (numeric && flags.find('0') != std::string::npos && !null) {
        size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+' || text[0] == ' ') ? 1 : 0;
        text.insert(sign, pad, '0');
      } else {
        text.insert(0, pad, ' ');
      }
    }
    out += text;
  }
  return out;
}

}  // namespace

void RegisterNumberFormatFunctions(FunctionRegistry& registry) {
  registry.Register("to_number", [](std::vector<ExpressionPtr> arguments) {
    return BindToNumber("to_number", std::move(arguments), false);
  });
  registry.Register("try_to_number", [](std::vector<ExpressionPtr> arguments) {
    return BindToNumber("try_to_number", std::move(arguments), true);
  });
  for (std::string_view name : {"to_char", "to_varchar"}) {
    registry.Register(name, [name, &registry](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 2, 2);
      const DataTypePtr& type = arguments[0]->type();
      if (type->id() == TypeId::kDate || type->id() == TypeId::kTimestamp || type->id() == TypeId::kTimestampNtz) {
        return registry.Bind("date_format", std::move(arguments));
      }
      if (type->id() == TypeId::kBinary) {
        // Binary: 'base64', 'hex' or 'utf-8' text of the bytes.
        std::string format = AsciiLower(ConstantFormat(name, arguments[1], 1));
        if (format == "base64") return registry.Bind("base64", {arguments[0]});
        if (format == "hex") return registry.Bind("hex", {arguments[0]});
        if (format == "utf-8" || format == "utf8") return registry.Bind("decode", {arguments[0], Literal(Scalar::String("UTF-8"))});
        SILT_THROW(INVALID_PARAMETER_VALUE,
                   {{"parameter", "`format`"}, {"functionName", "`" + std::string(name) + "`"},
                    {"message", "expects one of binary formats 'base64', 'hex', 'utf-8', but got '" + format + "'."}});
      }
      if (!IsNumeric(*type) && type->id() != TypeId::kNull) ThrowArgumentType(name, 0, arguments[0], "\"DECIMAL\"");
      NumberFormat format = ParseNumberFormat(ConstantFormat(name, arguments[1], 1));
      DataTypePtr decimal = type->id() == TypeId::kDecimal ? type
                            : type->id() == TypeId::kFloat || type->id() == TypeId::kDouble ? DecimalType(30, 15)
                            : type->id() == TypeId::kLong ? DecimalType(20, 0)
                                                          : DecimalType(10, 0);
      arguments[0] = Cast(std::move(arguments[0]), decimal);
      arguments.resize(1);
      return MakeCall(name, StringType(), std::move(arguments),
                      [format, decimal](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          out.AppendString(FormatNumberText(args[0]->values<Decimal128>()[row], decimal->scale(), format));
                        });
                      });
    });
  }
  registry.Register("format_number", [](std::vector<ExpressionPtr> arguments) {
    // format_number(x, d): '#,###,###.##' with d decimals rounded HALF_EVEN (NULL for d < 0);
    // format_number(x, pattern): a DecimalFormat pattern ('' is '#,###,###,##0').
    CheckArgumentCount("format_number", arguments, 2, 2);
    if (!IsNumeric(*arguments[0]->type()) && arguments[0]->type()->id() != TypeId::kNull) {
      ThrowArgumentType("format_number", 0, arguments[0], "\"NUMERIC\"");
    }
    if (arguments[0]->type()->id() == TypeId::kNull) arguments[0] = Cast(std::move(arguments[0]), DoubleType());
    bool pattern = arguments[1]->type()->id() == TypeId::kString;
    if (!pattern) {
      TypeId id = arguments[1]->type()->id();
      if (id != TypeId::kNull && !IsIntegral(*arguments[1]->type())) {
        ThrowArgumentType("format_number", 1, arguments[1], "(\"INT\" or \"STRING\")");
      }
      arguments[1] = ImplicitCast("format_number", 1, std::move(arguments[1]), IntegerType());
    }
    return MakeCall("format_number", StringType(), std::move(arguments),
                    [pattern](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      const uint64_t max_bytes = context.max_value_bytes;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        DecimalPattern format;
                        if (pattern) {
                          format = ParseDecimalPattern(args[1]->GetString(row));
                        } else {
                          int32_t digits = args[1]->values<int32_t>()[row];
                          if (digits < 0) return out.AppendNull();
                          CheckValueSize("The result of format_number", static_cast<uint64_t>(digits) + 400, max_bytes);
                          format.minimum_fraction = format.maximum_fraction = digits;
                        }
                        TypeId id = args[0]->type_id();
                        if (id == TypeId::kFloat || id == TypeId::kDouble) {
                          double value = ReadDouble(*args[0], row);
                          if (std::isnan(value)) return out.AppendString("NaN");
                          if (std::isinf(value)) return out.AppendString(value > 0 ? "\xE2\x88\x9E" : "-\xE2\x88\x9E");
                        }
                        // A negative value that rounds to zero keeps its sign ("-0"), as in Java.
                        bool negative = false;
                        std::string digits = RoundedDigits(*args[0], row, format.maximum_fraction, &negative);
                        out.AppendString(ApplyDecimalPattern(digits, negative, format));
                      });
                    });
  });
  for (std::string_view name : {"format_string", "printf"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, SIZE_MAX);
      arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), StringType());
      return MakeCall(name, StringType(), std::move(arguments),
                      [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                        const TimeZone* zone = &context.Zone();
                        VectorBuilder out(StringType(), num_rows);
                        for (int64_t row = 0; row < num_rows; ++row) {
                          if (args[0]->IsNull(row)) {
                            out.AppendNull();
                            continue;
                          }
                          out.AppendString(JavaFormat(args[0]->GetString(row), args, row, zone, context.max_value_bytes));
                        }
                        return out.Finish();
                      });
    });
  }
}

}  // namespace silt::expr::internal
