// Functions between text and bytes: hex, unhex, bin, base64, unbase64, to_binary,
// try_to_binary, encode, decode (both forms), crc32, and the UTF-8 validators
// (is_valid_utf8, make_valid_utf8, validate_utf8, try_validate_utf8).

#include <array>
#include <cctype>

#include "silt/base/ascii.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/value_size.h"
#include "silt/vector/value_text.h"

namespace silt::expr::internal {
namespace {

constexpr char kHexDigits[] = "0123456789ABCDEF";

std::string UpperAscii(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

std::string Quoted(std::string_view name) { return "`" + std::string(name) + "`"; }

// A string argument; binary is accepted too (its bytes read as text), as Spark's UTF-8
// functions take x'..' literals.
ExpressionPtr TextArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kBinary) return Cast(std::move(argument), StringType());
  return ImplicitCast(name, index, std::move(argument), StringType());
}

// The constant text of a format or charset argument: nullopt for a NULL literal. Throws
// DATATYPE_MISMATCH when the argument is not a constant string.
std::optional<std::string> ConstantText(std::string_view name, size_t index, const ExpressionPtr& argument) {
  if (argument->kind() != ExpressionKind::kLiteral ||
      (argument->type()->id() != TypeId::kString && argument->type()->id() != TypeId::kNull)) {
    ThrowArgumentType(name, index, argument, "a constant \"STRING\"");
  }
  if (argument->literal().is_null()) return std::nullopt;
  return std::string(argument->literal().GetString());
}

std::string Hex(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) {
    auto byte = static_cast<unsigned char>(c);
    out += kHexDigits[byte >> 4];
    out += kHexDigits[byte & 0xF];
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Spark's unhex: an odd number of digits reads as if a '0' led; nullopt on a non-hex digit.
std::optional<std::string> Unhex(std::string_view text) {
  std::string out;
  out.reserve(text.size() / 2 + 1);
  size_t i = 0;
  if (text.size() % 2 == 1) {
    int low = HexValue(text[0]);
    if (low < 0) return std::nullopt;
    out += static_cast<char>(low);
    i = 1;
  }
  for (; i < text.size(); i += 2) {
    int high = HexValue(text[i]);
    int low = HexValue(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high << 4 | low);
  }
  return out;
}

int Base64Value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Decodes base64 text as Java's MIME decoder does (which Spark's unbase64 uses): characters
// outside the alphabet (line breaks, spaces) are skipped, '=' padding ends the data. With
// `strict` (to_binary's check) only whitespace may be skipped and padding must complete the
// last group. nullopt when the text cannot be decoded.
std::optional<std::string> Base64Decode(std::string_view text, bool strict) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t group = 0;
  int count = 0;
  size_t i = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '=') break;
    int value = Base64Value(c);
    if (value < 0) {
      if (strict && !std::isspace(static_cast<unsigned char>(c))) return std::nullopt;
      continue;
    }
    group = group << 6 | static_cast<uint32_t>(value);
    if (++count == 4) {
      out += static_cast<char>(group >> 16);
      out += static_cast<char>(group >> 8);
      out += static_cast<char>(group);
      group = 0;
      count = 0;
    }
  }
  if (count == 1) return std::nullopt;
  size_t padding = 0;
  for (; i < text.size(); ++i) {
    if (text[i] == '=') {
      ++padding;
    } else if (strict && !std::isspace(static_cast<unsigned char>(text[i]))) {
      return std::nullopt;
    }
  }
  if (count == 2) {
    out += static_cast<char>(group >> 4);
  } else if (count == 3) {
    out += static_cast<char>(group >> 10);
    out += static_cast<char>(group >> 2);
  }
  if (strict && padding > 0 && (count == 0 || padding != static_cast<size_t>(4 - count))) return std::nullopt;
  return out;
}

uint32_t Crc32(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> values{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      values[n] = c;
    }
    return values;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (char c : bytes) crc = table[(crc ^ static_cast<unsigned char>(c)) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

// Length of the well-formed UTF-8 sequence at `text[i]`, or 0 when the bytes there are not one;
// `invalid_length` is then the maximal subpart of an ill-formed sequence (at least 1), the unit
// that one U+FFFD replaces (Unicode's "best practice", which Java's decoder follows).
size_t Utf8SequenceLength(std::string_view text, size_t i, size_t* invalid_length) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  *invalid_length = 1;
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    if (i + k >= text.size()) {
      *invalid_length = k;
      return 0;
    }
    unsigned char c = byte(i + k);
    unsigned char minimum = k == 1 ? low : 0x80;
    unsigned char maximum = k == 1 ? high : 0xBF;
    if (c < minimum || c > maximum) {
      *invalid_length = k;
      return 0;
    }
  }
  return length;
}

bool IsValidUtf8(std::string_view text) {
  size_t invalid = 0;
  for (size_t i = 0; i < text.size();) {
    size_t length = Utf8SequenceLength(text, i, &invalid);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

void MakeValidUtf8(std::string_view text, std::string& out) {
  size_t invalid = 0;
  for (size_t i = 0; i < text.size();) {
    size_t length = Utf8SequenceLength(text, i, &invalid);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      i += invalid;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
}

// Spark's rendering of a byte string in INVALID_UTF8_STRING: each byte as \xHH.
std::string EscapedBytes(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    auto byte = static_cast<unsigned char>(c);
    out += "\\x";
    out += kHexDigits[byte >> 4];
    out += kHexDigits[byte & 0xF];
  }
  return out;
}

// The code points of UTF-8 text (callers pass valid UTF-8 or accept U+FFFD for bad bytes).
std::vector<uint32_t> DecodeUtf8(std::string_view text) {
  std::vector<uint32_t> points;
  size_t invalid = 0;
  for (size_t i = 0; i < text.size();) {
    size_t length = Utf8SequenceLength(text, i, &invalid);
    if (length == 0) {
      points.push_back(0xFFFD);
      i += invalid;
      continue;
    }
    auto lead = static_cast<unsigned char>(text[i]);
    uint32_t code = length == 1 ? lead : lead & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) code = code << 6 | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    points.push_back(code);
    i += length;
  }
  return points;
}

void AppendUtf8(std::string& out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// The charsets Spark 4 accepts in encode/decode (spark.sql.legacy.javaCharsets off).
enum class Charset { kUsAscii, kIso88591, kUtf8, kUtf16Be, kUtf16Le, kUtf16, kUtf32 };

Charset FindCharset(std::string_view function, std::string_view name) {
  std::string lower = AsciiLower(name);
  if (lower == "us-ascii") return Charset::kUsAscii;
  if (lower == "iso-8859-1") return Charset::kIso88591;
  if (lower == "utf-8") return Charset::kUtf8;
  if (lower == "utf-16be") return Charset::kUtf16Be;
  if (lower == "utf-16le") return Charset::kUtf16Le;
  if (lower == "utf-16") return Charset::kUtf16;
  if (lower == "utf-32") return Charset::kUtf32;
  SILT_THROW(INVALID_PARAMETER_VALUE,
             {{"parameter", "`charset`"},
              {"functionName", Quoted(function)},
              {"message", "expects one of the us-ascii, iso-8859-1, utf-8, utf-16be, utf-16le, utf-16, utf-32, but got " +
                              std::string(name) + "."}});
}

// Encodes UTF-8 text into `charset`; false when a character cannot be represented (or the text
// is not valid UTF-8), which Spark reports as MALFORMED_CHARACTER_CODING.
bool EncodeText(std::string_view text, Charset charset, std::string& out) {
  if (!IsValidUtf8(text)) return false;
  if (charset == Charset::kUtf8) {
    out.append(text);
    return true;
  }
  std::vector<uint32_t> points = DecodeUtf8(text);
  auto put16 = [&](uint32_t unit, bool big_endian) {
    char high = static_cast<char>(unit >> 8);
    char low = static_cast<char>(unit & 0xFF);
    out += big_endian ? high : low;
    out += big_endian ? low : high;
  };
  // Java's UTF-16 encoder writes a big-endian byte-order mark first.
  if (charset == Charset::kUtf16) put16(0xFEFF, true);
  for (uint32_t code : points) {
    switch (charset) {
      case Charset::kUsAscii:
        if (code > 0x7F) return false;
        out += static_cast<char>(code);
        break;
      case Charset::kIso88591:
        if (code > 0xFF) return false;
        out += static_cast<char>(code);
        break;
      case Charset::kUtf32:
        for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((code >> shift) & 0xFF);
        break;
      default: {
        bool big_endian = charset != Charset::kUtf16Le;
        if (code >= 0x10000) {
          uint32_t value = code - 0x10000;
          put16(0xD800 | (value >> 10), big_endian);
          put16(0xDC00 | (value & 0x3FF), big_endian);
        } else {
          put16(code, big_endian);
        }
      }
    }
  }
  return true;
}

// Decodes bytes in `charset` into UTF-8; false on malformed input.
bool DecodeBytes(std::string_view bytes, Charset charset, std::string& out) {
  switch (charset) {
    case Charset::kUtf8:
      if (!IsValidUtf8(bytes)) return false;
      out.append(bytes);
      return true;
    case Charset::kUsAscii:
      for (char c : bytes) {
        if (static_cast<unsigned char>(c) > 0x7F) return false;
        out += c;
      }
      return true;
    case Charset::kIso88591:
      for (char c : bytes) AppendUtf8(out, static_cast<unsigned char>(c));
      return true;
    case Charset::kUtf32: {
      if (bytes.size() % 4 != 0) return false;
      for (size_t i = 0; i < bytes.size(); i += 4) {
        uint32_t code = 0;
        for (size_t k = 0; k < 4; ++k) code = code << 8 | static_cast<unsigned char>(bytes[i + k]);
        if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
        AppendUtf8(out, code);
      }
      return true;
    }
    default: {
      bool big_endian = charset != Charset::kUtf16Le;
      size_t i = 0;
      if (charset == Charset::kUtf16 && bytes.size() >= 2) {
        // A byte-order mark chooses the order; without one UTF-16 is big-endian.
        auto first = static_cast<unsigned char>(bytes[0]);
        auto second = static_cast<unsigned char>(bytes[1]);
        if (first == 0xFE && second == 0xFF) i = 2;
        if (first == 0xFF && second == 0xFE) {
          big_endian = false;
          i = 2;
        }
      }
      if ((bytes.size() - i) % 2 != 0) return false;
      auto unit = [&](size_t k) {
        auto a = static_cast<unsigned char>(bytes[k]);
        auto b = static_cast<unsigned char>(bytes[k + 1]);
        return big_endian ? static_cast<uint32_t>(a << 8 | b) : static_cast<uint32_t>(b << 8 | a);
      };
      for (; i < bytes.size(); i += 2) {
        uint32_t code = unit(i);
        if (code >= 0xD800 && code <= 0xDBFF) {
          if (i + 3 >= bytes.size()) return false;
          uint32_t next = unit(i + 2);
          if (next < 0xDC00 || next > 0xDFFF) return false;
          code = 0x10000 + ((code - 0xD800) << 10) + (next - 0xDC00);
          i += 2;
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
          return false;
        }
        AppendUtf8(out, code);
      }
      return true;
    }
  }
}

Error MalformedCoding(std::string_view function, std::string_view charset) {
  return MakeError(ErrorClass::MALFORMED_CHARACTER_CODING,
                   {{"function", Quoted(function)}, {"charset", UpperAscii(charset)}});
}

// encode(str, charset) and decode(bin, charset).
ExpressionPtr BindCharsetCoding(std::string_view name, std::vector<ExpressionPtr> arguments, bool encode) {
  CheckArgumentCount(name, arguments, 2, 2);
  arguments[0] = encode ? ImplicitCast(name, 0, std::move(arguments[0]), StringType())
                        : ImplicitCast(name, 0, std::move(arguments[0]), BinaryType());
  arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), StringType());
  DataTypePtr type = encode ? BinaryType() : StringType();
  return MakeCall(name, type, std::move(arguments),
                  [name, type, encode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                       RowMask mask) {
                    std::string scratch;
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view charset_name = args[1]->GetString(row);
                      Charset charset = FindCharset(name, charset_name);
                      scratch.clear();
                      std::string_view input = args[0]->GetString(row);
                      bool ok = encode ? EncodeText(input, charset, scratch) : DecodeBytes(input, charset, scratch);
                      if (!ok) {
                        if (mask.Contains(row)) context.RecordError(MalformedCoding(name, charset_name));
                        return out.AppendNull();
                      }
                      out.AppendString(scratch);
                    });
                  });
}

// to_binary(str[, fmt]) and try_to_binary: fmt is 'hex' (the default), 'utf-8'/'utf8' or
// 'base64', case-insensitive. Malformed input is CONVERSION_INVALID_INPUT (NULL for the try form).
ExpressionPtr BindToBinary(std::string_view name, std::vector<ExpressionPtr> arguments, bool try_mode) {
  CheckArgumentCount(name, arguments, 1, 2);
  arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), StringType());
  std::string format = "hex";
  if (arguments.size() == 2) {
    std::optional<std::string> text = ConstantText(name, 1, arguments[1]);
    if (!text) return Literal(Scalar::Null(BinaryType()));
    format = AsciiLower(*text);
    if (format != "hex" && format != "utf-8" && format != "utf8" && format != "base64") {
      SILT_THROW(INVALID_PARAMETER_VALUE,
                 {{"parameter", "`format`"},
                  {"functionName", Quoted(name)},
                  {"message", "expects one of binary formats 'base64', 'hex', 'utf-8', but got '" + *text + "'."}});
    }
    arguments.resize(1);
  }
  return MakeCall(name, BinaryType(), std::move(arguments),
                  [format, try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                     RowMask mask) {
                    return MapRows(BinaryType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view text = args[0]->GetString(row);
                      if (format == "utf-8" || format == "utf8") return out.AppendString(text);
                      std::optional<std::string> bytes = format == "hex" ? Unhex(text) : Base64Decode(text, true);
                      if (!bytes) {
                        if (!try_mode && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::CONVERSION_INVALID_INPUT,
                                                        {{"str", "'" + std::string(text) + "'"},
                                                         {"fmt", format == "hex" ? "HEX" : "BASE64"},
                                                         {"targetType", "\"BINARY\""},
                                                         {"suggestion", "`try_to_binary`"}}));
                        }
                        return out.AppendNull();
                      }
                      out.AppendString(*bytes);
                    });
                  });
}

// validate_utf8 and try_validate_utf8: the string when it is valid UTF-8, else
// INVALID_UTF8_STRING (NULL for the try form).
ExpressionPtr BindValidateUtf8(std::string_view name, std::vector<ExpressionPtr> arguments, bool try_mode) {
  CheckArgumentCount(name, arguments, 1, 1);
  arguments[0] = TextArgument(name, 0, std::move(arguments[0]));
  return MakeCall(name, StringType(), std::move(arguments),
                  [try_mode](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                    return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      std::string_view text = args[0]->GetString(row);
                      if (IsValidUtf8(text)) return out.AppendString(text);
                      if (!try_mode && mask.Contains(row)) {
                        context.RecordError(MakeError(ErrorClass::INVALID_UTF8_STRING, {{"str", EscapedBytes(text)}}));
                      }
                      out.AppendNull();
                    });
                  });
}

}  // namespace

void RegisterBinaryFunctions(FunctionRegistry& registry) {
  registry.Register("hex", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("hex", arguments, 1, 1);
    const DataTypePtr& type = arguments[0]->type();
    bool integral = IsIntegral(*type);
    if (integral || type->id() == TypeId::kNull) {
      arguments[0] = ImplicitCast("hex", 0, std::move(arguments[0]), LongType());
      integral = true;
    } else if (type->id() != TypeId::kString && type->id() != TypeId::kBinary) {
      ThrowArgumentType("hex", 0, arguments[0], "(\"BIGINT\" or \"BINARY\" or \"STRING\")");
    }
    return MakeCall("hex", StringType(), std::move(arguments),
                    [integral](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        if (!integral) return out.AppendString(Hex(args[0]->GetString(row)));
                        // Java's Long.toHexString: the two's complement digits, no leading zeros.
                        auto value = static_cast<uint64_t>(args[0]->values<int64_t>()[row]);
                        std::string digits;
                        do {
                          digits.insert(digits.begin(), kHexDigits[value & 0xF]);
                          value >>= 4;
                        } while (value != 0);
                        out.AppendString(digits);
                      });
                    });
  });
  registry.Register("unhex", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("unhex", arguments, 1, 1);
    arguments[0] = ImplicitCast("unhex", 0, std::move(arguments[0]), StringType());
    return MakeCall("unhex", BinaryType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(BinaryType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::optional<std::string> bytes = Unhex(args[0]->GetString(row));
                        if (bytes) out.AppendString(*bytes); else out.AppendNull();
                      });
                    });
  });
  registry.Register("bin", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("bin", arguments, 1, 1);
    TypeId id = arguments[0]->type()->id();
    if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*arguments[0]->type())) {
      ThrowArgumentType("bin", 0, arguments[0], "\"BIGINT\"");
    }
    arguments[0] = ImplicitCast("bin", 0, std::move(arguments[0]), LongType());
    return MakeCall("bin", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        auto value = static_cast<uint64_t>(args[0]->values<int64_t>()[row]);
                        std::string digits;
                        do {
                          digits.insert(digits.begin(), static_cast<char>('0' + (value & 1)));
                          value >>= 1;
                        } while (value != 0);
                        out.AppendString(digits);
                      });
                    });
  });
  registry.Register("base64", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("base64", arguments, 1, 1);
    arguments[0] = ImplicitCast("base64", 0, std::move(arguments[0]), BinaryType());
    return MakeCall("base64", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendString(EncodeBase64(args[0]->GetString(row)));
                      });
                    });
  });
  registry.Register("unbase64", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("unbase64", arguments, 1, 1);
    arguments[0] = ImplicitCast("unbase64", 0, std::move(arguments[0]), StringType());
    return MakeCall("unbase64", BinaryType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return MapRows(BinaryType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        std::optional<std::string> bytes = Base64Decode(text, false);
                        if (!bytes) {
                          if (mask.Contains(row)) {
                            context.RecordError(MakeError(ErrorClass::CONVERSION_INVALID_INPUT,
                                                          {{"str", "'" + std::string(text) + "'"},
                                                           {"fmt", "BASE64"},
                                                           {"targetType", "\"BINARY\""},
                                                           {"suggestion", "`try_to_binary`"}}));
                          }
                          return out.AppendNull();
                        }
                        out.AppendString(*bytes);
                      });
                    });
  });
  registry.Register("to_binary", [](std::vector<ExpressionPtr> arguments) {
    return BindToBinary("to_binary", std::move(arguments), false);
  });
  registry.Register("try_to_binary", [](std::vector<ExpressionPtr> arguments) {
    return BindToBinary("try_to_binary", std::move(arguments), true);
  });
  registry.Register("encode", [](std::vector<ExpressionPtr> arguments) {
    return BindCharsetCoding("encode", std::move(arguments), true);
  });
  registry.Register("decode", [](std::vector<ExpressionPtr> arguments) {
    // decode(bin, charset), or decode(expr, search, result [, search, result]... [, default]):
    // the result of the first search value equal to expr (NULL equals NULL), else the default.
    if (arguments.size() == 2) return BindCharsetCoding("decode", std::move(arguments), false);
    CheckArgumentCount("decode", arguments, 3, SIZE_MAX);
    std::vector<std::pair<ExpressionPtr, ExpressionPtr>> branches;
    size_t i = 1;
    for (; i + 1 < arguments.size(); i += 2) {
      branches.emplace_back(Compare(ComparisonOperator::kNullSafeEqual, arguments[0], arguments[i]), arguments[i + 1]);
    }
    return Case(std::move(branches), i < arguments.size() ? arguments[i] : nullptr);
  });
  registry.Register("crc32", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("crc32", arguments, 1, 1);
    arguments[0] = ImplicitCast("crc32", 0, std::move(arguments[0]), BinaryType());
    return MakeCall("crc32", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendInt(Crc32(args[0]->GetString(row)));
                      });
                    });
  });
  registry.Register("is_valid_utf8", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("is_valid_utf8", arguments, 1, 1);
    arguments[0] = TextArgument("is_valid_utf8", 0, std::move(arguments[0]));
    return MakeCall("is_valid_utf8", BooleanType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(BooleanType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendBool(IsValidUtf8(args[0]->GetString(row)));
                      });
                    });
  });
  registry.Register("make_valid_utf8", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("make_valid_utf8", arguments, 1, 1);
    arguments[0] = TextArgument("make_valid_utf8", 0, std::move(arguments[0]));
    return MakeCall("make_valid_utf8", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        scratch.clear();
                        MakeValidUtf8(args[0]->GetString(row), scratch);
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("validate_utf8", [](std::vector<ExpressionPtr> arguments) {
    return BindValidateUtf8("validate_utf8", std::move(arguments), false);
  });
  registry.Register("try_validate_utf8", [](std::vector<ExpressionPtr> arguments) {
    return BindValidateUtf8("try_validate_utf8", std::move(arguments), true);
  });
}

}  // namespace silt::expr::internal
