// Numeric functions beyond arithmetic: factorial, width_bucket, log1p, isnan, bit_count,
// bit_get/getbit, the bitmap helpers (bitmap_bucket_number, bitmap_bit_position, bitmap_count)
// and conv (number base conversion, as Spark's NumberConverter).

#include <cmath>

#include "silt/expr/function_kernels_internal.h"

namespace silt::expr::internal {
namespace {

ExpressionPtr DoubleArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  TypeId id = argument->type()->id();
  if (id != TypeId::kNull && id != TypeId::kString && !IsNumeric(*argument->type())) {
    ThrowArgumentType(name, index, argument, "\"DOUBLE\"");
  }
  return ImplicitCast(name, index, std::move(argument), DoubleType());
}

ExpressionPtr IntegralArgument(std::string_view name, size_t index, ExpressionPtr argument, bool allow_boolean) {
  TypeId id = argument->type()->id();
  if (id == TypeId::kNull) return Cast(std::move(argument), LongType());
  if (!IsIntegral(*argument->type()) && !(allow_boolean && id == TypeId::kBoolean)) {
    ThrowArgumentType(name, index, argument, allow_boolean ? "(\"INTEGRAL\" or \"BOOLEAN\")" : "\"INTEGRAL\"");
  }
  return argument;
}

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

}  // namespace

void RegisterNumericFunctions(FunctionRegistry& registry) {
  registry.Register("factorial", [](std::vector<ExpressionPtr> arguments) {
    // n! for 0 <= n <= 20, NULL otherwise.
    CheckArgumentCount("factorial", arguments, 1, 1);
    TypeId id = arguments[0]->type()->id();
    if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*arguments[0]->type())) {
      ThrowArgumentType("factorial", 0, arguments[0], "\"INT\"");
    }
    arguments[0] = ImplicitCast("factorial", 0, std::move(arguments[0]), IntegerType());
    return MakeCall("factorial", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int32_t n = args[0]->values<int32_t>()[row];
                        if (n < 0 || n > 20) return out.AppendNull();
                        int64_t product = 1;
                        for (int32_t i = 2; i <= n; ++i) product *= i;
                        out.AppendInt(product);
                      });
                    });
  });
  registry.Register("width_bucket", [](std::vector<ExpressionPtr> arguments) {
    // The 1-based bucket of value among num equal-width buckets over [min, max) (or a
    // descending range when min > max); 0 below the range, num + 1 above it. NULL for num <= 0,
    // min = max, or a NaN or infinite bound.
    CheckArgumentCount("width_bucket", arguments, 4, 4);
    for (size_t i = 0; i < 3; ++i) arguments[i] = DoubleArgument("width_bucket", i, std::move(arguments[i]));
    TypeId id = arguments[3]->type()->id();
    if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*arguments[3]->type())) {
      ThrowArgumentType("width_bucket", 3, arguments[3], "\"BIGINT\"");
    }
    arguments[3] = ImplicitCast("width_bucket", 3, std::move(arguments[3]), LongType());
    return MakeCall("width_bucket", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        double value = args[0]->values<double>()[row];
                        double minimum = args[1]->values<double>()[row];
                        double maximum = args[2]->values<double>()[row];
                        int64_t buckets = args[3]->values<int64_t>()[row];
                        if (buckets <= 0 || buckets == INT64_MAX || std::isnan(value) || minimum == maximum ||
                            !std::isfinite(minimum) || !std::isfinite(maximum)) {
                          return out.AppendNull();
                        }
                        double fraction = 0;
                        if (minimum < maximum) {
                          if (value < minimum) return out.AppendInt(0);
                          if (value >= maximum) return out.AppendInt(buckets + 1);
                          fraction = (value - minimum) / (maximum - minimum);
                        } else {
                          if (value > minimum) return out.AppendInt(0);
                          if (value <= maximum) return out.AppendInt(buckets + 1);
                          fraction = (minimum - value) / (minimum - maximum);
                        }
                        out.AppendInt(static_cast<int64_t>(fraction * static_cast<double>(buckets)) + 1);
                      });
                    });
  });
  registry.Register("log1p", [](std::vector<ExpressionPtr> arguments) {
    // ln(1 + x); NULL for x <= -1, as Spark's Log1p.
    CheckArgumentCount("log1p", arguments, 1, 1);
    arguments[0] = DoubleArgument("log1p", 0, std::move(arguments[0]));
    return MakeCall("log1p", DoubleType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(DoubleType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        double value = args[0]->values<double>()[row];
                        if (value <= -1.0) return out.AppendNull();
                        out.AppendDouble(std::log1p(value));
                      });
                    });
  });
  registry.Register("isnan", [](std::vector<ExpressionPtr> arguments) {
    // TRUE for NaN; FALSE otherwise, NULL included.
    CheckArgumentCount("isnan", arguments, 1, 1);
    arguments[0] = DoubleArgument("isnan", 0, std::move(arguments[0]));
    return MakeCall("isnan", BooleanType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      VectorBuilder out(BooleanType(), num_rows);
                      for (int64_t row = 0; row < num_rows; ++row) {
                        out.AppendBool(args[0]->IsValid(row) && std::isnan(args[0]->values<double>()[row]));
                      }
                      return out.Finish();
                    });
  });
  registry.Register("bit_count", [](std::vector<ExpressionPtr> arguments) {
    // The set bits of the value widened to 64 bits (so bit_count(-1) is 64), as Spark counts.
    CheckArgumentCount("bit_count", arguments, 1, 1);
    arguments[0] = IntegralArgument("bit_count", 0, std::move(arguments[0]), true);
    return MakeCall("bit_count", IntegerType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(IntegerType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        if (args[0]->type_id() == TypeId::kBoolean) return out.AppendInt(args[0]->GetBool(row) ? 1 : 0);
                        out.AppendInt(__builtin_popcountll(static_cast<uint64_t>(ReadInteger(*args[0], row))));
                      });
                    });
  });
  for (std::string_view name : {"bit_get", "getbit"}) {
    registry.Register(name, [name](std::vector<ExpressionPtr> arguments) {
      // The bit at 0-based position pos (from the right); positions outside the type's width
      // are INVALID_PARAMETER_VALUE.
      CheckArgumentCount(name, arguments, 2, 2);
      arguments[0] = IntegralArgument(name, 0, std::move(arguments[0]), false);
      TypeId id = arguments[1]->type()->id();
      if (id != TypeId::kNull && !IsIntegral(*arguments[1]->type())) ThrowArgumentType(name, 1, arguments[1], "\"INT\"");
      arguments[1] = ImplicitCast(name, 1, std::move(arguments[1]), IntegerType());
      const int bits = arguments[0]->type()->FixedWidth() * 8;
      return MakeCall(name, ByteType(), std::move(arguments),
                      [name, bits](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                        return MapRows(ByteType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          int32_t position = args[1]->values<int32_t>()[row];
                          if (position < 0 || position >= bits) {
                            if (mask.Contains(row)) {
                              context.RecordError(MakeError(
                                  ErrorClass::INVALID_PARAMETER_VALUE,
                                  {{"parameter", "`pos`"}, {"functionName", "`" + std::string(name) + "`"},
                                   {"message", "expects an integer value in [0, " + std::to_string(bits) + "), but got " +
                                                   std::to_string(position) + "."}}));
                            }
                            return out.AppendNull();
                          }
                          out.AppendInt((static_cast<uint64_t>(ReadInteger(*args[0], row)) >> position) & 1);
                        });
                      });
    });
  }
  // The bitmap helpers of Spark's bitmap aggregates: a value's bucket of 32,768 bits and its bit
  // in that bucket, and the set bits of a bitmap.
  for (bool bucket : {true, false}) {
    std::string_view name = bucket ? "bitmap_bucket_number" : "bitmap_bit_position";
    registry.Register(name, [name, bucket](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(name, arguments, 1, 1);
      arguments[0] = IntegralArgument(name, 0, std::move(arguments[0]), false);
      arguments[0] = Cast(std::move(arguments[0]), LongType());
      return MakeCall(name, LongType(), std::move(arguments),
                      [bucket](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                        constexpr int64_t kBitsPerBucket = 32768;
                        return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                          int64_t value = args[0]->values<int64_t>()[row];
                          if (bucket) {
                            out.AppendInt(value > 0 ? 1 + (value - 1) / kBitsPerBucket : value / kBitsPerBucket);
                          } else {
                            out.AppendInt(value > 0 ? (value - 1) % kBitsPerBucket
                                                    : static_cast<int64_t>(-static_cast<uint64_t>(value) % kBitsPerBucket));
                          }
                        });
                      });
    });
  }
  registry.Register("bitmap_count", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("bitmap_count", arguments, 1, 1);
    if (arguments[0]->type()->id() != TypeId::kBinary && arguments[0]->type()->id() != TypeId::kNull) {
      ThrowArgumentType("bitmap_count", 0, arguments[0], "\"BINARY\"");
    }
    arguments[0] = CastIfNeeded(std::move(arguments[0]), BinaryType());
    return MakeCall("bitmap_count", LongType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(LongType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        int64_t count = 0;
                        for (char c : args[0]->GetString(row)) count += __builtin_popcount(static_cast<unsigned char>(c));
                        out.AppendInt(count);
                      });
                    });
  });
  registry.Register("conv", [](std::vector<ExpressionPtr> arguments) {
    // conv(num, from_base, to_base): num's digits (up to the first that is not one of from_base)
    // read as an unsigned 64-bit value and written in |to_base|; a negative to_base writes a
    // signed value. Bases outside 2..36 give NULL; an overflow is ARITHMETIC_OVERFLOW with ANSI
    // on, else the value of all one bits.
    CheckArgumentCount("conv", arguments, 3, 3);
    arguments[0] = ImplicitCast("conv", 0, std::move(arguments[0]), StringType());
    for (size_t i = 1; i < 3; ++i) {
      TypeId id = arguments[i]->type()->id();
      if (id != TypeId::kNull && id != TypeId::kString && !IsIntegral(*arguments[i]->type())) {
        ThrowArgumentType("conv", i, arguments[i], "\"INT\"");
      }
      arguments[i] = ImplicitCast("conv", i, std::move(arguments[i]), IntegerType());
    }
    return MakeCall("conv", StringType(), std::move(arguments),
                    [](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      return MapRows(StringType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        std::string_view text = args[0]->GetString(row);
                        int32_t from = args[1]->values<int32_t>()[row];
                        int32_t to = args[2]->values<int32_t>()[row];
                        if (from < 2 || from > 36 || std::abs(to) < 2 || std::abs(to) > 36 || text.empty()) {
                          return out.AppendNull();
                        }
                        bool negative = text[0] == '-';
                        uint64_t value = 0;
                        bool overflow = false;
                        for (size_t i = negative ? 1 : 0; i < text.size(); ++i) {
                          int digit = DigitValue(text[i]);
                          if (digit >= from) break;
                          unsigned __int128 next = static_cast<unsigned __int128>(value) * static_cast<unsigned>(from) +
                                                   static_cast<unsigned>(digit);
                          if (next > UINT64_MAX) {
                            overflow = true;
                            break;
                          }
                          value = static_cast<uint64_t>(next);
                        }
                        if (overflow) {
                          if (context.ansi) {
                            if (mask.Contains(row)) {
                              context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                            {{"message", "Overflow in function conv()"}, {"alternative", ""}}));
                            }
                            return out.AppendNull();
                          }
                          value = UINT64_MAX;
                        }
                        if (negative && to > 0) value = static_cast<int64_t>(value) < 0 ? UINT64_MAX : ~value + 1;
                        if (to < 0 && static_cast<int64_t>(value) < 0) {
                          value = ~value + 1;
                          negative = true;
                        }
                        static constexpr char kDigits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
                        auto base = static_cast<uint64_t>(std::abs(to));
                        std::string digits;
                        do {
                          digits.insert(digits.begin(), kDigits[value % base]);
                          value /= base;
                        } while (value != 0);
                        if (negative && to < 0) digits.insert(digits.begin(), '-');
                        out.AppendString(digits);
                      });
                    });
  });
}

}  // namespace silt::expr::internal
