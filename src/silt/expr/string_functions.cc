// String functions. Lengths and positions count Unicode code points of the UTF-8 text, as
// Spark's UTF8String does.

#include <cctype>
#include <clocale>
#include <cwctype>
#include <locale.h>
#include <wctype.h>
#include <cstring>
#include <iterator>
#include <regex>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/utf8_internal.h"
#include "silt/expr/value_size.h"

namespace silt::expr::internal {
namespace {

// Appends code point `code` as UTF-8.
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

// Upper- or lower-cases UTF-8 text with Unicode's simple case mappings (the C.UTF-8 locale's
// towupper/towlower), plus Java's full mapping of 'ß' to "SS" when upper-casing. Malformed
// bytes are copied as they are.
void MapCase(std::string_view text, std::string& out, bool upper) {
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  for (size_t i = 0; i < text.size();) {
    auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      out += static_cast<char>(upper ? std::toupper(lead) : std::tolower(lead));
      ++i;
      continue;
    }
    size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (length == 1 || i + length > text.size() || utf8 == static_cast<locale_t>(nullptr)) {
      out.append(text.substr(i, length == 1 ? 1 : std::min(length, text.size() - i)));
      i += length == 1 ? 1 : std::min(length, text.size() - i);
      continue;
    }
    uint32_t code = lead & (0x7F >> length);
    for (size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (upper && code == 0xDF) {
      out += "SS";
    } else {
      AppendUtf8(out, static_cast<uint32_t>(upper ? towupper_l(static_cast<wint_t>(code), utf8)
                                                  : towlower_l(static_cast<wint_t>(code), utf8)));
    }
    i += length;
  }
}

ExpressionPtr StringArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  return ImplicitCast(name, index, std::move(argument), StringType());
}

// Registers a function of one string returning a string computed by `transform`.
template <typename Transform>
void RegisterStringToString(FunctionRegistry& registry, std::string_view name, Transform transform) {
  registry.Register(name, [name, transform](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 1);
    // reverse also reverses arrays.
    if (name == "reverse" && arguments[0]->type()->id() == TypeId::kList) return BindArrayReverse(std::move(arguments));
    arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
    return MakeCall(name, StringType(), std::move(arguments),
                    [transform](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        scratch.clear();
                        transform(args[0]->GetString(row), scratch);
                        out.AppendString(scratch);
                      });
                    });
  });
}

std::string_view TrimCharacters(std::string_view text, std::string_view characters, bool left, bool right) {
  // Spark trims whole code points of the trim string; for ASCII trim strings bytes suffice, and
  // a multi-byte trim string is matched by its full sequences below.
  auto starts_with_any = [&](std::string_view value, size_t* length) {
    size_t position = 0;
    while (position < characters.size()) {
      size_t next = position + 1;
      while (next < characters.size() && IsContinuationByte(characters[next])) ++next;
      std::string_view character = characters.substr(position, next - position);
      if (value.substr(0, character.size()) == character) {
        *length = character.size();
        return true;
      }
      position = next;
    }
    return false;
  };
  auto ends_with_any = [&](std::string_view value, size_t* length) {
    size_t position = 0;
    while (position < characters.size()) {
      size_t next = position + 1;
      while (next < characters.size() && IsContinuationByte(characters[next])) ++next;
      std::string_view character = characters.substr(position, next - position);
      if (value.size() >= character.size() && value.substr(value.size() - character.size()) == character) {
        *length = character.size();
        return true;
      }
      position = next;
    }
    return false;
  };
  size_t length = 0;
  if (left) {
    while (!text.empty() && starts_with_any(text, &length)) text.remove_prefix(length);
  }
  if (right) {
    while (!text.empty() && ends_with_any(text, &length)) text.remove_suffix(length);
  }
  return text;
}

void RegisterTrim(FunctionRegistry& registry, std::string_view name, bool left, bool right) {
  registry.Register(name, [name, left, right](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 2);
    for (size_t i = 0; i < arguments.size(); ++i) arguments[i] = StringArgument(name, i, std::move(arguments[i]));
    return MakeCall(name, StringType(), std::move(arguments),
                    [left, right](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view characters = args.size() > 1 ? args[1]->GetString(row) : " ";
                        out.AppendString(TrimCharacters(args[0]->GetString(row), characters, left, right));
                      });
                    });
  });
}

void RegisterPad(FunctionRegistry& registry, std::string_view name, bool left) {
  registry.Register(name, [name, left](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 2, 3);
    // A binary value padded with binary (zero bytes by default) is padded byte by byte.
    const bool binary = arguments[0]->type()->id() == TypeId::kBinary &&
                        (arguments.size() == 2 || arguments[2]->type()->id() == TypeId::kBinary);
    DataTypePtr type = binary ? BinaryType() : StringType();
    if (!binary) arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
    arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), IntegerType());
    if (arguments.size() == 3 && !binary) arguments[2] = StringArgument(name, 2, std::move(arguments[2]));
    return MakeCall(name, type, std::move(arguments),
                    [name, left, binary, type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      auto count = [binary](std::string_view text) {
                        return binary ? static_cast<int64_t>(text.size()) : CodePointCount(text);
                      };
                      auto offset = [binary](std::string_view text, int64_t index) {
                        return binary ? std::min(static_cast<size_t>(index), text.size()) : ByteOffsetOfCodePoint(text, index);
                      };
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        int64_t target = args[1]->values<int32_t>()[row];
                        std::string_view pad = args.size() > 2 ? args[2]->GetString(row)
                                               : binary ? std::string_view("\0", 1) : std::string_view(" ");
                        int64_t length = count(text);
                        if (target <= 0) return out.AppendString("");
                        if (length >= target) return out.AppendString(text.substr(0, offset(text, target)));
                        int64_t pad_length = count(pad);
                        if (pad_length == 0) return out.AppendString(text);
                        std::string padding;
                        int64_t needed = target - length;
                        uint64_t result_bytes =
                            SaturatingProduct(static_cast<uint64_t>(needed / pad_length), pad.size()) + text.size() +
                            offset(pad, needed % pad_length);
                        CheckValueSize(name == "lpad" ? "The result of lpad" : "The result of rpad", result_bytes, context.max_value_bytes);
                        while (needed >= pad_length) {
                          padding += pad;
                          needed -= pad_length;
                        }
                        padding += pad.substr(0, offset(pad, needed));
                        out.AppendString(left ? padding + std::string(text) : std::string(text) + padding);
                      });
                    });
  });
}

// Spark's substring positions: 1-based; 0 acts as 1; negative counts from the end.
std::string_view Substring(std::string_view text, int64_t position, int64_t length) {
  int64_t count = CodePointCount(text);
  int64_t start = position > 0 ? position - 1 : (position < 0 ? count + position : 0);
  int64_t end = length == INT64_MAX ? count : start + length;
  if (position < 0 && start < 0) {
    // The window starts before the text: only the part inside the text remains.
    start = 0;
  }
  start = std::max<int64_t>(start, 0);
  end = std::min(end, count);
  if (length < 0 || end <= start) return {};
  size_t begin_byte = ByteOffsetOfCodePoint(text, start);
  size_t end_byte = ByteOffsetOfCodePoint(text, end);
  return text.substr(begin_byte, end_byte - begin_byte);
}

// Translates a SQL LIKE pattern into a matcher; `escape` escapes '%' and '_'.
bool LikeMatch(std::string_view text, std::string_view pattern, char escape, bool ignore_case) {
  auto lower = [&](char c) {
    return ignore_case ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : c;
  };
  // Iterative wildcard matching with backtracking to the last '%'.
  size_t t = 0, p = 0, star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    if (p < pattern.size()) {
      char c = pattern[p];
      if (c == escape && p + 1 < pattern.size()) {
        if (lower(pattern[p + 1]) == lower(text[t])) {
          p += 2;
          ++t;
          continue;
        }
      } else if (c == '%') {
        star_p = p++;
        star_t = t;
        continue;
      } else if (c == '_') {
        // '_' matches one code point.
        ++t;
        while (t < text.size() && IsContinuationByte(text[t])) ++t;
        ++p;
        continue;
      } else if (lower(c) == lower(text[t])) {
        ++p;
        ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '%') ++p;
  return p == pattern.size();
}

// The first position at or after `from` where `piece` (not empty) starts in `text`, or npos.
// Candidates are the positions whose first and last bytes equal the piece's, tested 16 at a
// time; only those are compared whole.
size_t FindPiece(std::string_view text, std::string_view piece, size_t from) {
  const size_t length = piece.size();
  if (from > text.size() || text.size() - from < length) return std::string_view::npos;
  if (length == 1) {
    const void* found = std::memchr(text.data() + from, piece[0], text.size() - from);
    return found == nullptr ? std::string_view::npos : static_cast<size_t>(static_cast<const char*>(found) - text.data());
  }
  size_t start = from;
#if defined(__SSE2__)
  const __m128i first = _mm_set1_epi8(piece.front());
  const __m128i last = _mm_set1_epi8(piece.back());
  // Each step tests the 16 starts [start, start + 16), reading up to text[start + length + 14].
  for (; start + length + 15 <= text.size(); start += 16) {
    const __m128i heads = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + start));
    const __m128i tails = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + start + length - 1));
    auto candidates = static_cast<uint32_t>(
        _mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(heads, first), _mm_cmpeq_epi8(tails, last))));
    while (candidates != 0) {
      const size_t position = start + static_cast<size_t>(__builtin_ctz(candidates));
      if (std::memcmp(text.data() + position + 1, piece.data() + 1, length - 2) == 0) return position;
      candidates &= candidates - 1;
    }
  }
#endif
  return text.find(piece, start);
}

// A constant case-sensitive LIKE pattern made only of literal text and '%' (TPC-H's
// '%special%requests%', 'PROMO%', '%BRASS'), matched by substring search instead of
// LikeMatch's byte-at-a-time backtracking. Both match bytes, so they agree on every text.
class PercentPattern {
 public:
  // The pattern split at its '%'s, or nullopt when it has '_' or the escape character.
  static std::optional<PercentPattern> Compile(std::string_view pattern, char escape) {
    if (pattern.find('_') != std::string_view::npos || pattern.find(escape) != std::string_view::npos) {
      return std::nullopt;
    }
    PercentPattern compiled;
    size_t start = 0;
    for (size_t percent = pattern.find('%'); percent != std::string_view::npos; percent = pattern.find('%', start)) {
      compiled.pieces_.emplace_back(pattern.substr(start, percent - start));
      start = percent + 1;
    }
    compiled.pieces_.emplace_back(pattern.substr(start));
    // Empty pieces between two '%'s ('a%%b') require nothing.
    for (size_t i = compiled.pieces_.size() - 1; i-- > 1;) {
      if (compiled.pieces_[i].empty()) compiled.pieces_.erase(compiled.pieces_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return compiled;
  }

  // Whether each row of the string vector `text` matches (whatever a NULL row holds), as a
  // boolean vector with `text`'s NULLs.
  VectorPtr MatchAll(const Vector& text) const {
    const int64_t num_rows = text.length();
    std::vector<uint8_t> matches(static_cast<size_t>(num_rows));
    if (const DictionaryCodes* codes = text.dictionary_codes(); codes != nullptr && codes->dictionary->length() < num_rows) {
      // Each distinct value once.
      VectorPtr entries = MatchAll(*codes->dictionary);
      const int32_t* code = codes->codes->as<int32_t>() + text.offset();
      for (int64_t row = 0; row < num_rows; ++row) {
        matches[static_cast<size_t>(row)] = text.IsValid(row) && entries->GetBool(code[row]);
      }
    } else {
      MatchRows(text, matches.data());
    }
    if (text.null_count() == 0) return MakeBooleanVector(matches.data(), nullptr, num_rows);
    std::vector<uint8_t> valid(static_cast<size_t>(num_rows));
    for (int64_t row = 0; row < num_rows; ++row) valid[static_cast<size_t>(row)] = text.IsValid(row);
    return MakeBooleanVector(matches.data(), valid.data(), num_rows);
  }

 private:
  // Without '%' a row matches when it is the pattern; otherwise when it starts with the first
  // piece, ends with the last, and holds the pieces between in order in the rest, each found
  // leftmost (which is enough: an earlier match leaves more room for the rest).
  void MatchRows(const Vector& text, uint8_t* matches) const {
    const int64_t num_rows = text.length();
    if (num_rows == 0) return;
    const int32_t* offsets = text.buffer(1)->as<int32_t>() + text.offset();
    const char* data = reinterpret_cast<const char*>(text.buffer(2)->data());
    if (pieces_.size() == 1) {
      for (int64_t row = 0; row < num_rows; ++row) {
        matches[row] = std::string_view(data + offsets[row], static_cast<size_t>(offsets[row + 1] - offsets[row])) == pieces_[0];
      }
      return;
    }
    // Per row: where the next middle piece may start and where the last one must end; a row
    // stays a candidate while its pieces are found.
    const std::string& first = pieces_.front();
    const std::string& last = pieces_.back();
    std::vector<size_t> from(static_cast<size_t>(num_rows));
    std::vector<size_t> limit(static_cast<size_t>(num_rows));
    bool ascending = true;
    for (int64_t row = 0; row < num_rows; ++row) {
      const auto begin = static_cast<size_t>(offsets[row]);
      const auto end = static_cast<size_t>(offsets[row + 1]);
      std::string_view value(data + begin, end - begin);
      matches[row] = value.size() >= first.size() + last.size() && value.starts_with(first) && value.ends_with(last);
      from[static_cast<size_t>(row)] = begin + first.size();
      limit[static_cast<size_t>(row)] = end - last.size();
      ascending = ascending && offsets[row] <= offsets[row + 1];
    }
    // The rows' bytes follow each other in the buffer (as every decoded or built vector has
    // them), so each piece is searched for once across the whole buffer: the leftmost match at
    // or after a row's start serves every later row whose start it does not precede.
    const std::string_view all(data, static_cast<size_t>(offsets[num_rows]));
    for (size_t i = 1; i + 1 < pieces_.size(); ++i) {
      const std::string& piece = pieces_[i];
      size_t found = 0;
      bool searched = false;
      for (int64_t row = 0; row < num_rows; ++row) {
        if (!matches[row]) continue;
        size_t& start = from[static_cast<size_t>(row)];
        const size_t end = limit[static_cast<size_t>(row)];
        if (!ascending) {
          found = FindPiece(std::string_view(data, end), piece, start);
        } else if (!searched || found < start) {
          found = FindPiece(all, piece, start);
          searched = true;
        }
        if (found == std::string_view::npos || found + piece.size() > end) {
          matches[row] = 0;
          continue;
        }
        start = found + piece.size();
      }
    }
  }

  std::vector<std::string> pieces_;
};

void RegisterLike(FunctionRegistry& registry, std::string_view name, bool ignore_case) {
  registry.Register(name, [name, ignore_case](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 2, 3);
    for (size_t i = 0; i < arguments.size(); ++i) arguments[i] = StringArgument(name, i, std::move(arguments[i]));
    auto constant_text = [&](size_t i) -> std::optional<std::string_view> {
      const Expression& argument = *arguments[i];
      if (argument.kind() != ExpressionKind::kLiteral || argument.literal().is_null()) return std::nullopt;
      return argument.literal().GetString();
    };
    std::optional<PercentPattern> percent_pattern;
    std::optional<std::string_view> pattern = constant_text(1);
    std::optional<std::string_view> escape = arguments.size() > 2 ? constant_text(2) : std::string_view("\\");
    if (!ignore_case && pattern && escape && escape->size() == 1) {
      percent_pattern = PercentPattern::Compile(*pattern, (*escape)[0]);
    }
    if (percent_pattern) {
      // The pattern (and escape) are constant and not NULL: only the text's NULLs give NULL.
      return MakeCall(name, BooleanType(), std::move(arguments),
                      [matcher = std::move(*percent_pattern)](const std::vector<VectorPtr>& args, int64_t,
                                                              EvalContext&, RowMask) { return matcher.MatchAll(*args[0]); });
    }
    return MakeCall(name, BooleanType(), std::move(arguments),
                    [name, ignore_case](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(BooleanType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        char escape = '\\';
                        if (args.size() > 2) {
                          std::string_view escape_text = args[2]->GetString(row);
                          SILT_USER_CHECK(escape_text.size() == 1, INVALID_PARAMETER_VALUE,
                                          {{"parameter", "`escape`"}, {"functionName", std::string("`") + std::string(name) + "`"},
                                           {"message", "the escape must be one character, got '" + std::string(escape_text) + "'."}});
                          escape = escape_text[0];
                        }
                        out.AppendBool(LikeMatch(args[0]->GetString(row), args[1]->GetString(row), escape, ignore_case));
                      });
                    });
  });
}

// Compiles a Java-style regular expression with std::regex (ECMAScript, close to Java for
// common patterns). std::regex is slow; a faster engine is future work. Patterns are cached per
// batch when they are constant across rows.
class RegexCache {
 public:
  const std::regex& Get(std::string_view pattern, std::string_view function_name) {
    if (!compiled_ || pattern != pattern_) {
      // Java's leading inline flag (?i) becomes a case-insensitive compile.
      std::regex::flag_type flags = std::regex::ECMAScript;
      std::string_view body = pattern;
      if (body.substr(0, 4) == "(?i)") {
        flags |= std::regex::icase;
        body.remove_prefix(4);
      }
      try {
        compiled_.emplace(std::string(body), flags);
      } catch (const std::regex_error& error) {
        SILT_THROW(INVALID_PARAMETER_VALUE, {{"parameter", "`regexp`"},
                                            {"functionName", "`" + std::string(function_name) + "`"},
                                            {"message", "invalid pattern '" + std::string(pattern) + "': " + error.what()}});
      }
      pattern_ = std::string(pattern);
    }
    return *compiled_;
  }

 private:
  std::string pattern_;
  std::optional<std::regex> compiled_;
};

// Rewrites Java's "$1" group references for std::regex (which uses the same "$n" syntax) and
// Java's "\$" literal dollar.
std::string ReplacementText(std::string_view java) {
  std::string result;
  for (size_t i = 0; i < java.size(); ++i) {
    if (java[i] == '\\' && i + 1 < java.size()) {
      if (java[i + 1] == '$') {
        result += "$$";
      } else {
        result += java[i + 1];
      }
      ++i;
    } else {
      result += java[i];
    }
  }
  return result;
}

}  // namespace

void RegisterStringFunctions(FunctionRegistry& registry) {
  RegisterStringToString(registry, "upper", [](std::string_view text, std::string& out) { MapCase(text, out, true); });
  RegisterStringToString(registry, "ucase", [](std::string_view text, std::string& out) { MapCase(text, out, true); });
  RegisterStringToString(registry, "lower", [](std::string_view text, std::string& out) { MapCase(text, out, false); });
  RegisterStringToString(registry, "lcase", [](std::string_view text, std::string& out) { MapCase(text, out, false); });
  RegisterStringToString(registry, "reverse", [](std::string_view text, std::string& out) {
    size_t end = text.size();
    while (end > 0) {
      size_t start = end - 1;
      while (start > 0 && IsContinuationByte(text[start])) --start;
      out.append(text.substr(start, end - start));
      end = start;
    }
  });
  RegisterTrim(registry, "trim", true, true);
  RegisterTrim(registry, "btrim", true, true);
  RegisterTrim(registry, "ltrim", true, false);
  RegisterTrim(registry, "rtrim", false, true);
  RegisterPad(registry, "lpad", true);
  RegisterPad(registry, "rpad", false);
  RegisterLike(registry, "like", false);
  RegisterLike(registry, "ilike", true);

  registry.Register("concat", [](std::vector<ExpressionPtr> arguments) {
    for (const ExpressionPtr& argument : arguments) {
      if (argument->type()->id() == TypeId::kList) return BindArrayConcat(std::move(arguments));
    }
    for (size_t i = 0; i < arguments.size(); ++i) arguments[i] = StringArgument("concat", i, std::move(arguments[i]));
    return MakeCall("concat", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        scratch.clear();
                        uint64_t bytes = 0;
                        for (const VectorPtr& argument : args) bytes += argument->GetString(row).size();
                        CheckValueSize("The result of concat", bytes, context.max_value_bytes);
                        for (const VectorPtr& argument : args) scratch.append(argument->GetString(row));
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("concat_ws", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("concat_ws", arguments, 1, SIZE_MAX);
    for (size_t i = 0; i < arguments.size(); ++i) {
      // Arrays after the separator contribute their elements (as strings).
      if (i > 0 && arguments[i]->type()->id() == TypeId::kList) {
        arguments[i] = CastIfNeeded(std::move(arguments[i]), ListType(StringType(), true));
        continue;
      }
      arguments[i] = StringArgument("concat_ws", i, std::move(arguments[i]));
    }
    return MakeCall("concat_ws", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      // NULL values are skipped; only a NULL separator gives NULL.
                      VectorBuilder out(StringType(), num_rows);
                      std::string scratch;
                      for (int64_t row = 0; row < num_rows; ++row) {
                        if (args[0]->IsNull(row)) {
                          out.AppendNull();
                          continue;
                        }
                        scratch.clear();
                        bool first = true;
                        auto append = [&](const Vector& values, int64_t index) {
                          if (values.IsNull(index)) return;
                          std::string_view separator = first ? std::string_view() : args[0]->GetString(row);
                          std::string_view value = values.GetString(index);
                          CheckValueSize("The result of concat_ws", uint64_t{scratch.size()} + separator.size() + value.size(), context.max_value_bytes);
                          scratch.append(separator);
                          scratch.append(value);
                          first = false;
                        };
                        for (size_t i = 1; i < args.size(); ++i) {
                          if (args[i]->IsNull(row)) continue;
                          if (args[i]->type_id() != TypeId::kList) {
                            append(*args[i], row);
                            continue;
                          }
                          int64_t start = args[i]->ListStart(row);
                          for (int64_t e = start; e < start + args[i]->ListLength(row); ++e) {
                            append(*args[i]->child(0), e);
                          }
                        }
                        out.AppendString(scratch);
                      }
                      return out.Finish();
                    });
  });
  for (std::string_view name : {"substring", "substr"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 2, 3);
      arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
      for (size_t i = 1; i < arguments.size(); ++i) {
        arguments[i] = ImplicitCast(name, i, std::move(arguments[i]), IntegerType());
      }
      return MakeCall(name, StringType(), std::move(arguments),
                      [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          int64_t length = args.size() > 2 ? args[2]->values<int32_t>()[row] : INT64_MAX;
                          out.AppendString(Substring(args[0]->GetString(row), args[1]->values<int32_t>()[row], length));
                        });
                      });
    });
  }
  for (std::string_view name : {"length", "char_length", "character_length"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, 1);
      bool binary = arguments[0]->type()->id() == TypeId::kBinary;
      if (!binary) arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
      return MakeCall(name, IntegerType(), std::move(arguments),
                      [binary](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          std::string_view text = args[0]->GetString(row);
                          out.AppendInt(binary ? static_cast<int64_t>(text.size()) : CodePointCount(text));
                        });
                      });
    });
  }
  registry.Register("replace", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("replace", arguments, 2, 3);
    for (size_t i = 0; i < arguments.size(); ++i) arguments[i] = StringArgument("replace", i, std::move(arguments[i]));
    return MakeCall("replace", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        std::string_view search = args[1]->GetString(row);
                        std::string_view replacement = args.size() > 2 ? args[2]->GetString(row) : "";
                        if (search.empty()) return out.AppendString(text);
                        scratch.clear();
                        size_t position = 0;
                        while (true) {
                          size_t found = text.find(search, position);
                          if (found == std::string_view::npos) break;
                          // Only a replacement longer than its match grows the text.
                          CheckValueSize("The result of replace",
                                         uint64_t{scratch.size()} + (found - position) + replacement.size() +
                                             (text.size() - found - search.size()), context.max_value_bytes);
                          scratch.append(text.substr(position, found - position));
                          scratch.append(replacement);
                          position = found + search.size();
                        }
                        scratch.append(text.substr(position));
                        out.AppendString(scratch);
                      });
                    });
  });
  for (std::string_view name : {"rlike", "regexp", "regexp_like"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 2, 2);
      for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument(name, i, std::move(arguments[i]));
      return MakeCall(name, BooleanType(), std::move(arguments),
                      [name](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        RegexCache cache;
                        return MapRows(BooleanType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          std::string_view text = args[0]->GetString(row);
                          out.AppendBool(std::regex_search(text.begin(), text.end(), cache.Get(args[1]->GetString(row), name)));
                        });
                      });
    });
  }
  registry.Register("regexp_replace", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("regexp_replace", arguments, 3, 3);
    for (size_t i = 0; i < 3; ++i) arguments[i] = StringArgument("regexp_replace", i, std::move(arguments[i]));
    return MakeCall("regexp_replace", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      RegexCache cache;
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string text(args[0]->GetString(row));
                        const std::regex& pattern = cache.Get(args[1]->GetString(row), "regexp_replace");
                        std::string replacement = ReplacementText(args[2]->GetString(row));
                        // std::regex_replace's own loop, with the result's size checked as it grows.
                        scratch.clear();
                        auto rest = text.cbegin();
                        for (std::sregex_iterator match(text.begin(), text.end(), pattern), end; match != end; ++match) {
                          scratch.append(match->prefix().first, match->prefix().second);
                          match->format(std::back_inserter(scratch), replacement);
                          rest = match->suffix().first;
                          CheckValueSize("The result of regexp_replace",
                                         uint64_t{scratch.size()} + static_cast<uint64_t>(text.cend() - rest), context.max_value_bytes);
                        }
                        scratch.append(rest, text.cend());
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("regexp_extract", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("regexp_extract", arguments, 2, 3);
    for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument("regexp_extract", i, std::move(arguments[i]));
    if (arguments.size() < 3) arguments.push_back(Literal(Scalar::Integer(1)));
    arguments[2] = ImplicitCast("regexp_extract", 2, std::move(arguments[2]), IntegerType());
    return MakeCall("regexp_extract", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      RegexCache cache;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string text(args[0]->GetString(row));
                        const std::regex& pattern = cache.Get(args[1]->GetString(row), "regexp_extract");
                        int32_t group = args[2]->values<int32_t>()[row];
                        SILT_USER_CHECK(group >= 0 && static_cast<size_t>(group) <= pattern.mark_count(),
                                        INVALID_PARAMETER_VALUE,
                                        {{"parameter", "`idx`"}, {"functionName", "`regexp_extract`"},
                                         {"message", "Expects group index between 0 and " + std::to_string(pattern.mark_count()) +
                                                         ", but got " + std::to_string(group) + "."}});
                        std::smatch match;
                        if (!std::regex_search(text, match, pattern)) return out.AppendString("");
                        out.AppendString(match[group].matched ? match[group].str() : "");
                      });
                    });
  });
  registry.Register("regexp_count", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("regexp_count", arguments, 2, 2);
    for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument("regexp_count", i, std::move(arguments[i]));
    return MakeCall("regexp_count", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      RegexCache cache;
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string text(args[0]->GetString(row));
                        const std::regex& pattern = cache.Get(args[1]->GetString(row), "regexp_count");
                        out.AppendInt(std::distance(std::sregex_iterator(text.begin(), text.end(), pattern), std::sregex_iterator()));
                      });
                    });
  });
  registry.Register("regexp_substr", [](std::vector<ExpressionPtr> arguments) {
    // The first match, or NULL when there is none.
    CheckArgumentCount("regexp_substr", arguments, 2, 2);
    for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument("regexp_substr", i, std::move(arguments[i]));
    return MakeCall("regexp_substr", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      RegexCache cache;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string text(args[0]->GetString(row));
                        std::smatch match;
                        if (!std::regex_search(text, match, cache.Get(args[1]->GetString(row), "regexp_substr"))) {
                          return out.AppendNull();
                        }
                        out.AppendString(match[0].str());
                      });
                    });
  });
  for (std::string_view name : {"regexp_extract_all", "regexp_instr"}) {
    // regexp_extract_all(str, regexp[, idx]): group idx (default 1) of every match;
    // regexp_instr(str, regexp[, idx]): the 1-based position of the first match, 0 when none.
    const bool all = name == "regexp_extract_all";
    registry.Register(name, [name, all](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 2, 3);
      for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument(name, i, std::move(arguments[i]));
      if (arguments.size() < 3) arguments.push_back(Literal(Scalar::Integer(all ? 1 : 0)));
      arguments[2] = ImplicitCast(name, 2, std::move(arguments[2]), IntegerType());
      DataTypePtr type = all ? ListType(StringType(), true) : IntegerType();
      return MakeCall(name, type, std::move(arguments),
                      [name, all, type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        RegexCache cache;
                        return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          std::string text(args[0]->GetString(row));
                          const std::regex& pattern = cache.Get(args[1]->GetString(row), name);
                          int32_t group = args[2]->values<int32_t>()[row];
                          SILT_USER_CHECK(group >= 0 && static_cast<size_t>(group) <= pattern.mark_count(),
                                          INVALID_PARAMETER_VALUE,
                                          {{"parameter", "`idx`"}, {"functionName", "`" + std::string(name) + "`"},
                                           {"message", "Expects group index between 0 and " + std::to_string(pattern.mark_count()) +
                                                           ", but got " + std::to_string(group) + "."}});
                          if (!all) {
                            std::smatch match;
                            if (!std::regex_search(text, match, pattern)) return out.AppendInt(0);
                            return out.AppendInt(CodePointCount(std::string_view(text).substr(0, match.position(0))) + 1);
                          }
                          for (std::sregex_iterator match(text.begin(), text.end(), pattern), end; match != end; ++match) {
                            const auto& piece = (*match)[group];
                            if (piece.matched) out.child(0).AppendString(piece.str()); else out.child(0).AppendString("");
                          }
                          out.FinishList();
                        });
                      });
    });
  }
  registry.Register("split", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("split", arguments, 2, 3);
    for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument("split", i, std::move(arguments[i]));
    if (arguments.size() < 3) arguments.push_back(Literal(Scalar::Integer(-1)));
    arguments[2] = ImplicitCast("split", 2, std::move(arguments[2]), IntegerType());
    DataTypePtr type = ListType(StringType(), false);
    return MakeCall("split", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      RegexCache cache;
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string text(args[0]->GetString(row));
                        std::string_view pattern_text = args[1]->GetString(row);
                        int32_t limit = args[2]->values<int32_t>()[row];
                        VectorBuilder& elements = out.child(0);
                        if (pattern_text.empty()) {
                          // Java splits between every character for an empty pattern.
                          size_t position = 0;
                          int32_t pieces = 0;
                          while (position < text.size()) {
                            size_t next = position + 1;
                            while (next < text.size() && IsContinuationByte(text[next])) ++next;
                            if (limit > 0 && pieces == limit - 1) next = text.size();
                            elements.AppendString(std::string_view(text).substr(position, next - position));
                            ++pieces;
                            position = next;
                          }
                          if (text.empty()) elements.AppendString("");
                          return out.FinishList();
                        }
                        const std::regex& pattern = cache.Get(pattern_text, "split");
                        size_t position = 0;
                        int32_t pieces = 0;
                        for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
                             it != std::sregex_iterator(); ++it) {
                          if (limit > 0 && pieces == limit - 1) break;
                          size_t start = static_cast<size_t>(it->position());
                          if (it->length() == 0 && start == 0) continue;
                          elements.AppendString(std::string_view(text).substr(position, start - position));
                          ++pieces;
                          position = start + static_cast<size_t>(it->length());
                        }
                        elements.AppendString(std::string_view(text).substr(position));
                        out.FinishList();
                      });
                    });
  });
}

}  // namespace silt::expr::internal
