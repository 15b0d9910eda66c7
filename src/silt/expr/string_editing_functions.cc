// String functions that pick, mask or compare parts of strings: split_part, elt,
// substring_index, overlay, space, find_in_set, soundex, levenshtein, mask, luhn_check and
// len. Positions and lengths count Unicode code points, as Spark does.

#include <algorithm>
#include <clocale>
#include <cwctype>
#include <locale.h>
#include <wctype.h>

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/utf8_internal.h"
#include "silt/expr/value_size.h"

namespace silt::expr::internal {
namespace {

uint32_t DecodeCodePoint(std::string_view bytes) {
  auto lead = static_cast<unsigned char>(bytes[0]);
  if (lead < 0x80 || bytes.size() == 1) return lead;
  uint32_t code = lead & (0x7F >> bytes.size());
  for (size_t k = 1; k < bytes.size(); ++k) code = code << 6 | (static_cast<unsigned char>(bytes[k]) & 0x3F);
  return code;
}

ExpressionPtr StringArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  return ImplicitCast(name, index, std::move(argument), StringType());
}

ExpressionPtr IntArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  TypeId id = argument->type()->id();
  if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*argument->type())) {
    ThrowArgumentType(name, index, argument, "\"INT\"");
  }
  return ImplicitCast(name, index, std::move(argument), IntegerType());
}

// The pieces of `text` between occurrences of `delimiter` (the whole text for an empty one).
std::vector<std::string_view> SplitOn(std::string_view text, std::string_view delimiter) {
  std::vector<std::string_view> pieces;
  if (delimiter.empty()) {
    pieces.push_back(text);
    return pieces;
  }
  size_t position = 0;
  while (true) {
    size_t found = text.find(delimiter, position);
    if (found == std::string_view::npos) break;
    pieces.push_back(text.substr(position, found - position));
    position = found + delimiter.size();
  }
  pieces.push_back(text.substr(position));
  return pieces;
}

// Spark's substring_index: left of the count-th delimiter (count > 0), right of the count-th
// from the end (count < 0); "" for count 0 or an empty delimiter.
std::string_view SubstringIndex(std::string_view text, std::string_view delimiter, int64_t count) {
  if (count == 0 || delimiter.empty() || text.empty()) return {};
  if (count > 0) {
    size_t position = 0;
    for (int64_t i = 0; i < count; ++i) {
      size_t found = text.find(delimiter, position);
      if (found == std::string_view::npos) return text;
      if (i == count - 1) return text.substr(0, found);
      position = found + delimiter.size();
    }
    return text;
  }
  size_t end = text.size();
  for (int64_t i = 0; i < -count; ++i) {
    if (end < delimiter.size()) return text;
    size_t found = text.rfind(delimiter, end - delimiter.size());
    if (found == std::string_view::npos) return text;
    if (i == -count - 1) return text.substr(found + delimiter.size());
    if (found == 0) return text;
    end = found;
  }
  return text;
}

// American Soundex as Spark's UTF8String.soundex computes it: H and W are skipped without
// separating equal codes, other non-coded letters separate them, and text that does not start
// with an ASCII letter is returned as it is.
std::string Soundex(std::string_view text) {
  static constexpr char kCodes[] = "01230127022455012623017202";
  if (text.empty()) return "";
  auto upper = [](char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c; };
  char first = upper(text[0]);
  if (first < 'A' || first > 'Z') return std::string(text);
  std::string result(4, '0');
  result[0] = first;
  size_t next = 1;
  char last = kCodes[first - 'A'];
  for (size_t i = 1; i < text.size() && next < 4; ++i) {
    char c = upper(text[i]);
    if (c < 'A' || c > 'Z') {
      last = '0';
      continue;
    }
    char code = kCodes[c - 'A'];
    if (code == '7') continue;
    if (code != '0' && code != last) result[next++] = code;
    last = code;
  }
  return result;
}

int64_t Levenshtein(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  std::vector<int64_t> previous(b.size() + 1);
  std::vector<int64_t> current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      int64_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

bool LuhnCheck(std::string_view digits) {
  if (digits.empty()) return false;
  int sum = 0;
  bool twice = false;
  for (size_t i = digits.size(); i-- > 0;) {
    char c = digits[i];
    if (c < '0' || c > '9') return false;
    int value = c - '0';
    if (twice) {
      value *= 2;
      if (value > 9) value -= 9;
    }
    sum += value;
    twice = !twice;
  }
  return sum % 10 == 0;
}

// One replacement character of mask(): nullopt keeps the original characters of that class.
std::optional<std::string> MaskCharacter(const ExpressionPtr& argument, size_t index) {
  if (argument->kind() != ExpressionKind::kLiteral ||
      (argument->type()->id() != TypeId::kString && argument->type()->id() != TypeId::kNull)) {
    ThrowArgumentType("mask", index, argument, "a constant \"STRING\"");
  }
  if (argument->literal().is_null()) return std::nullopt;
  std::string_view text = argument->literal().GetString();
  if (CodePoints(text).size() != 1) {
    SILT_THROW(DATATYPE_MISMATCH, {{"sqlExpr", "\"mask(...)\""},
                                   {"message", "Length of " + argument->ToString() + " should be 1."}});
  }
  return std::string(text);
}

}  // namespace

void RegisterStringEditingFunctions(FunctionRegistry& registry) {
  registry.Register("split_part", [](std::vector<ExpressionPtr> arguments) {
    // The partNum-th piece (1-based; negative counts from the end; "" past either end).
    CheckArgumentCount("split_part", arguments, 3, 3);
    arguments[0] = StringArgument("split_part", 0, std::move(arguments[0]));
    arguments[1] = StringArgument("split_part", 1, std::move(arguments[1]));
    arguments[2] = IntArgument("split_part", 2, std::move(arguments[2]));
    return MakeCall("split_part", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t part = args[2]->values<int32_t>()[row];
                        if (part == 0) {
                          if (mask.Contains(row)) context.RecordError(MakeError(ErrorClass::INVALID_INDEX_OF_ZERO, {}));
                          return out.AppendNull();
                        }
                        std::vector<std::string_view> pieces = SplitOn(args[0]->GetString(row), args[1]->GetString(row));
                        int64_t count = static_cast<int64_t>(pieces.size());
                        int64_t index = part > 0 ? part - 1 : count + part;
                        out.AppendString(index >= 0 && index < count ? pieces[index] : std::string_view());
                      });
                    });
  });
  registry.Register("elt", [](std::vector<ExpressionPtr> arguments) {
    // elt(n, input1, input2, ...): the n-th input; out of range is INVALID_ARRAY_INDEX with
    // ANSI on, NULL otherwise.
    CheckArgumentCount("elt", arguments, 2, SIZE_MAX);
    arguments[0] = IntArgument("elt", 0, std::move(arguments[0]));
    bool binary = true;
    for (size_t i = 1; i < arguments.size(); ++i) binary = binary && arguments[i]->type()->id() == TypeId::kBinary;
    DataTypePtr type = binary ? BinaryType() : StringType();
    for (size_t i = 1; i < arguments.size(); ++i) arguments[i] = ImplicitCast("elt", i, std::move(arguments[i]), type);
    return MakeCall("elt", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      VectorBuilder out(type, num_rows);
                      auto inputs = static_cast<int64_t>(args.size()) - 1;
                      for (int64_t row = 0; row < num_rows; ++row) {
                        if (args[0]->IsNull(row)) {
                          out.AppendNull();
                          continue;
                        }
                        int64_t index = args[0]->values<int32_t>()[row];
                        if (index < 1 || index > inputs) {
                          if (context.ansi && mask.Contains(row)) {
                            context.RecordError(MakeError(ErrorClass::INVALID_ARRAY_INDEX,
                                                          {{"indexValue", std::to_string(index)},
                                                           {"arraySize", std::to_string(inputs)}}));
                          }
                          out.AppendNull();
                          continue;
                        }
                        out.AppendFrom(*args[index], row);
                      }
                      return out.Finish();
                    });
  });
  registry.Register("substring_index", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("substring_index", arguments, 3, 3);
    arguments[0] = StringArgument("substring_index", 0, std::move(arguments[0]));
    arguments[1] = StringArgument("substring_index", 1, std::move(arguments[1]));
    arguments[2] = IntArgument("substring_index", 2, std::move(arguments[2]));
    return MakeCall("substring_index", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendString(SubstringIndex(args[0]->GetString(row), args[1]->GetString(row),
                                                        args[2]->values<int32_t>()[row]));
                      });
                    });
  });
  registry.Register("overlay", [](std::vector<ExpressionPtr> arguments) {
    // overlay(input, replace, pos[, len]): input with `len` code points from the 1-based `pos`
    // replaced by `replace` (len defaults to replace's length; a negative len too).
    CheckArgumentCount("overlay", arguments, 3, 4);
    arguments[0] = StringArgument("overlay", 0, std::move(arguments[0]));
    arguments[1] = StringArgument("overlay", 1, std::move(arguments[1]));
    if (arguments.size() < 4) arguments.push_back(Literal(Scalar::Integer(-1)));
    arguments[2] = IntArgument("overlay", 2, std::move(arguments[2]));
    arguments[3] = IntArgument("overlay", 3, std::move(arguments[3]));
    return MakeCall("overlay", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::vector<std::string_view> input = CodePoints(args[0]->GetString(row));
                        std::string_view replace = args[1]->GetString(row);
                        int64_t position = args[2]->values<int32_t>()[row];
                        int64_t length = args[3]->values<int32_t>()[row];
                        if (length < 0) length = static_cast<int64_t>(CodePoints(replace).size());
                        auto count = static_cast<int64_t>(input.size());
                        int64_t head = std::clamp<int64_t>(position - 1, 0, count);
                        int64_t tail = std::clamp<int64_t>(position - 1 + length, 0, count);
                        scratch.clear();
                        for (int64_t i = 0; i < head; ++i) scratch.append(input[i]);
                        scratch.append(replace);
                        for (int64_t i = tail; i < count; ++i) scratch.append(input[i]);
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("space", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("space", arguments, 1, 1);
    arguments[0] = IntArgument("space", 0, std::move(arguments[0]));
    return MakeCall("space", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t count = std::max<int64_t>(args[0]->values<int32_t>()[row], 0);
                        CheckValueSize("The result of space", static_cast<uint64_t>(count), context.max_value_bytes);
                        out.AppendString(std::string(static_cast<size_t>(count), ' '));
                      });
                    });
  });
  registry.Register("find_in_set", [](std::vector<ExpressionPtr> arguments) {
    // The 1-based position of str in the comma-separated list; 0 when absent or when str has
    // a comma.
    CheckArgumentCount("find_in_set", arguments, 2, 2);
    for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument("find_in_set", i, std::move(arguments[i]));
    return MakeCall("find_in_set", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        if (text.find(',') != std::string_view::npos) return out.AppendInt(0);
                        std::vector<std::string_view> items = SplitOn(args[1]->GetString(row), ",");
                        auto found = std::find(items.begin(), items.end(), text);
                        out.AppendInt(found == items.end() ? 0 : found - items.begin() + 1);
                      });
                    });
  });
  registry.Register("soundex", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("soundex", arguments, 1, 1);
    arguments[0] = StringArgument("soundex", 0, std::move(arguments[0]));
    return MakeCall("soundex", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendString(Soundex(args[0]->GetString(row)));
                      });
                    });
  });
  registry.Register("levenshtein", [](std::vector<ExpressionPtr> arguments) {
    // The edit distance in code points; with a threshold, -1 when the distance exceeds it.
    CheckArgumentCount("levenshtein", arguments, 2, 3);
    for (size_t i = 0; i < 2; ++i) arguments[i] = StringArgument("levenshtein", i, std::move(arguments[i]));
    if (arguments.size() == 3) arguments[2] = IntArgument("levenshtein", 2, std::move(arguments[2]));
    return MakeCall("levenshtein", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t distance = Levenshtein(CodePoints(args[0]->GetString(row)), CodePoints(args[1]->GetString(row)));
                        if (args.size() > 2 && distance > args[2]->values<int32_t>()[row]) distance = -1;
                        out.AppendInt(distance);
                      });
                    });
  });
  registry.Register("mask", [](std::vector<ExpressionPtr> arguments) {
    // mask(input[, upperChar, lowerChar, digitChar, otherChar]): defaults 'X', 'x', 'n' and
    // NULL; a NULL replacement keeps that class of characters.
    CheckArgumentCount("mask", arguments, 1, 5);
    arguments[0] = StringArgument("mask", 0, std::move(arguments[0]));
    std::optional<std::string> replacements[4] = {"X", "x", "n", std::nullopt};
    for (size_t i = 1; i < arguments.size(); ++i) replacements[i - 1] = MaskCharacter(arguments[i], i);
    arguments.resize(1);
    std::vector<std::optional<std::string>> chosen(std::begin(replacements), std::end(replacements));
    return MakeCall("mask", StringType(), std::move(arguments),
                    [chosen](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        scratch.clear();
                        for (std::string_view point : CodePoints(args[0]->GetString(row))) {
                          auto code = static_cast<wint_t>(DecodeCodePoint(point));
                          bool have_locale = utf8 != static_cast<locale_t>(nullptr);
                          size_t kind = 3;
                          if (have_locale ? iswupper_l(code, utf8) : (code >= 'A' && code <= 'Z')) {
                            kind = 0;
                          } else if (have_locale ? iswlower_l(code, utf8) : (code >= 'a' && code <= 'z')) {
                            kind = 1;
                          } else if (code >= '0' && code <= '9') {
                            kind = 2;
                          }
                          scratch.append(chosen[kind] ? std::string_view(*chosen[kind]) : point);
                        }
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("luhn_check", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("luhn_check", arguments, 1, 1);
    arguments[0] = StringArgument("luhn_check", 0, std::move(arguments[0]));
    return MakeCall("luhn_check", BooleanType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(BooleanType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendBool(LuhnCheck(args[0]->GetString(row)));
                      });
                    });
  });
  registry.Register("len", [&registry](std::vector<ExpressionPtr> arguments) {
    return registry.Bind("length", std::move(arguments));
  });
}

}  // namespace silt::expr::internal
