// String functions beyond the core set of string_functions.cc: searching (instr, locate,
// position, startswith, endswith, contains), slicing (left, right) and rewriting (repeat,
// initcap, translate, ascii, chr). Positions count Unicode code points, as Spark does.

#include <algorithm>
#include <cctype>

#include "silt/expr/function_kernels_internal.h"
#include "silt/expr/utf8_internal.h"
#include "silt/expr/value_size.h"

namespace silt::expr::internal {
namespace {

int64_t CodePointIndexOfByte(std::string_view text, size_t byte_offset) {
  int64_t index = 0;
  for (size_t i = 0; i < byte_offset && i < text.size(); ++i) index += !IsContinuationByte(text[i]);
  return index;
}

// 1-based code point position of `needle` in `haystack` at or after code point `from`
// (0-based); 0 when absent.
int64_t FindPosition(std::string_view haystack, std::string_view needle, int64_t from) {
  size_t start = ByteOffsetOfCodePoint(haystack, from);
  if (start > haystack.size()) return 0;
  size_t found = haystack.find(needle, start);
  if (found == std::string_view::npos) return 0;
  return CodePointIndexOfByte(haystack, found) + 1;
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

// locate(substr, str[, pos]) and position(substr, str[, pos]): a NULL start position gives 0,
// as Spark's StringLocate does; a start below 1 finds nothing.
void RegisterLocate(FunctionRegistry& registry, std::string_view name) {
  registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 2, 3);
    arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
    arguments[1] = StringArgument(name, 1, std::move(arguments[1]));
    if (arguments.size() == 2) arguments.push_back(Literal(Scalar::Integer(1)));
    arguments[2] = IntArgument(name, 2, std::move(arguments[2]));
    return MakeCall(name, IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorBuilder out(IntegerType(), num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        if (args[2]->IsNull(row)) {
                          out.AppendInt(0);
                        } else if (args[0]->IsNull(row) || args[1]->IsNull(row)) {
                          out.AppendNull();
                        } else {
                          int64_t start = args[2]->values<int32_t>()[row];
                          out.AppendInt(start < 1 ? 0
                                                  : FindPosition(args[1]->GetString(row), args[0]->GetString(row),
                                                                 start - 1));
                        }
                      }
                      return out.Finish();
                    });
  });
}

template <typename Predicate>
void RegisterStringPredicate(FunctionRegistry& registry, std::string_view name, Predicate predicate) {
  registry.Register(name, [name, predicate](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 2, 2);
    // Binary operands compare bytes; anything else compares as strings.
    bool binary = arguments[0]->type()->id() == TypeId::kBinary && arguments[1]->type()->id() == TypeId::kBinary;
    if (!binary) {
      arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
      arguments[1] = StringArgument(name, 1, std::move(arguments[1]));
    }
    return MakeCall(name, BooleanType(), std::move(arguments),
                    [predicate](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(BooleanType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendBool(predicate(args[0]->GetString(row), args[1]->GetString(row)));
                      });
                    });
  });
}

// left(str, n) and right(str, n): the first or last n code points; "" for n <= 0.
void RegisterSide(FunctionRegistry& registry, std::string_view name, bool left) {
  registry.Register(name, [name, left](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 2, 2);
    arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
    arguments[1] = IntArgument(name, 1, std::move(arguments[1]));
    return MakeCall(name, StringType(), std::move(arguments),
                    [left](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        int64_t count = args[1]->values<int32_t>()[row];
                        if (count <= 0) return out.AppendString("");
                        if (left) return out.AppendString(text.substr(0, ByteOffsetOfCodePoint(text, count)));
                        int64_t total = CodePointIndexOfByte(text, text.size());
                        int64_t skip = total > count ? total - count : 0;
                        out.AppendString(text.substr(ByteOffsetOfCodePoint(text, skip)));
                      });
                    });
  });
}

// Appends code point `code` (0..255, a Latin-1 character) as UTF-8.
void AppendLatin1(std::string& out, int code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

}  // namespace

void RegisterTextFunctions(FunctionRegistry& registry) {
  registry.Register("instr", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("instr", arguments, 2, 2);
    arguments[0] = StringArgument("instr", 0, std::move(arguments[0]));
    arguments[1] = StringArgument("instr", 1, std::move(arguments[1]));
    return MakeCall("instr", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        out.AppendInt(FindPosition(args[0]->GetString(row), args[1]->GetString(row), 0));
                      });
                    });
  });
  RegisterLocate(registry, "locate");
  RegisterLocate(registry, "position");
  RegisterStringPredicate(registry, "startswith",
                          [](std::string_view a, std::string_view b) { return a.substr(0, b.size()) == b; });
  RegisterStringPredicate(registry, "endswith", [](std::string_view a, std::string_view b) {
    return a.size() >= b.size() && a.substr(a.size() - b.size()) == b;
  });
  RegisterStringPredicate(registry, "contains",
                          [](std::string_view a, std::string_view b) { return a.find(b) != std::string_view::npos; });
  RegisterSide(registry, "left", true);
  RegisterSide(registry, "right", false);
  registry.Register("repeat", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("repeat", arguments, 2, 2);
    arguments[0] = StringArgument("repeat", 0, std::move(arguments[0]));
    arguments[1] = IntArgument("repeat", 1, std::move(arguments[1]));
    return MakeCall("repeat", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        scratch.clear();
                        std::string_view text = args[0]->GetString(row);
                        int32_t times = args[1]->values<int32_t>()[row];
                        if (times > 0) CheckValueSize("The result of repeat", SaturatingProduct(times, text.size()), context.max_value_bytes);
                        for (int32_t i = 0; i < times; ++i) scratch.append(text);
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("initcap", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("initcap", arguments, 1, 1);
    arguments[0] = StringArgument("initcap", 0, std::move(arguments[0]));
    return MakeCall("initcap", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        // Lower-cases the text, then upper-cases each letter that follows a space
                        // (Spark splits words on spaces only).
                        scratch.assign(args[0]->GetString(row));
                        bool word_start = true;
                        for (char& c : scratch) {
                          auto byte = static_cast<unsigned char>(c);
                          if (byte < 0x80) {
                            c = static_cast<char>(word_start ? std::toupper(byte) : std::tolower(byte));
                          }
                          word_start = c == ' ';
                        }
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("translate", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("translate", arguments, 3, 3);
    for (size_t i = 0; i < 3; ++i) arguments[i] = StringArgument("translate", i, std::move(arguments[i]));
    return MakeCall("translate", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask) {
                      std::string scratch;
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        // Each character of `from` becomes the character at its position in `to`
                        // (the first occurrence in `from` wins), or is removed past the end of `to`.
                        std::vector<std::string_view> from = CodePoints(args[1]->GetString(row));
                        std::vector<std::string_view> to = CodePoints(args[2]->GetString(row));
                        scratch.clear();
                        for (std::string_view point : CodePoints(args[0]->GetString(row))) {
                          auto found = std::find(from.begin(), from.end(), point);
                          if (found == from.end()) {
                            scratch.append(point);
                          } else if (static_cast<size_t>(found - from.begin()) < to.size()) {
                            scratch.append(to[found - from.begin()]);
                          }
                          // A replacement may take more bytes than the character it replaces.
                          if (scratch.size() > context.max_value_bytes) CheckValueSize("The result of translate", scratch.size(), context.max_value_bytes);
                        }
                        out.AppendString(scratch);
                      });
                    });
  });
  registry.Register("ascii", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("ascii", arguments, 1, 1);
    arguments[0] = StringArgument("ascii", 0, std::move(arguments[0]));
    return MakeCall("ascii", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        if (text.empty()) return out.AppendInt(0);
                        // The first code point, decoded from UTF-8.
                        auto lead = static_cast<unsigned char>(text[0]);
                        int length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
                        int32_t code = length == 1 ? lead : lead & (0x7F >> length);
                        for (int i = 1; i < length && i < static_cast<int>(text.size()); ++i) {
                          code = (code << 6) | (static_cast<unsigned char>(text[i]) & 0x3F);
                        }
                        out.AppendInt(code);
                      });
                    });
  });
  // octet_length and bit_length count bytes and bits of the UTF-8 text (or of binary values).
  for (std::string_view name : {"octet_length", "bit_length"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, 1);
      if (arguments[0]->type()->id() != TypeId::kBinary) arguments[0] = StringArgument(name, 0, std::move(arguments[0]));
      const int64_t bits_per_byte = name == "bit_length" ? 8 : 1;
      return MakeCall(name, IntegerType(), std::move(arguments),
                      [bits_per_byte](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          out.AppendInt(static_cast<int64_t>(args[0]->GetString(row).size()) * bits_per_byte);
                        });
                      });
    });
  }
  for (std::string_view name : {"chr", "char"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, 1);
      TypeId id = arguments[0]->type()->id();
      if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*arguments[0]->type())) {
        ThrowArgumentType(name, 0, arguments[0], "\"BIGINT\"");
      }
      arguments[0] = ImplicitCast(name, 0, std::move(arguments[0]), LongType());
      return MakeCall(name, StringType(), std::move(arguments),
                      [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        std::string scratch;
                        return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          // Negative gives ""; otherwise the Latin-1 character of the low byte.
                          int64_t code = args[0]->values<int64_t>()[row];
                          scratch.clear();
                          if (code >= 0) AppendLatin1(scratch, static_cast<int>(code & 0xFF));
                          out.AppendString(scratch);
                        });
                      });
    });
  }
}

}  // namespace silt::expr::internal
