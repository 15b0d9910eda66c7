// Math functions: abs, round, floor, ceil, mod, pmod, sqrt, pow, logarithms, trigonometric and
// hyperbolic functions and the TRY arithmetic functions. Rounding is HALF_UP (away from zero at
// .5), as Spark's round.

#include <cmath>

#include "silt/expr/decimal_arithmetic_internal.h"
#include "silt/expr/function_kernels_internal.h"
#include "silt/vector/value_text.h"

namespace silt::expr::internal {
namespace {

ExpressionPtr NumericArgument(std::string_view name, size_t index, ExpressionPtr argument) {
  if (argument->type()->id() == TypeId::kNull) return Cast(std::move(argument), DoubleType());
  if (argument->type()->id() == TypeId::kString) return ImplicitCast(name, index, std::move(argument), DoubleType());
  if (!IsNumeric(*argument->type())) ThrowArgumentType(name, index, argument, "\"NUMERIC\"");
  return argument;
}

// Divides rounding HALF_UP, or HALF_EVEN (banker's rounding, for bround).
Decimal128 DivideRounding(Decimal128 dividend, Decimal128 divisor, bool half_even) {
  if (!half_even) return DivideHalfUp(dividend, divisor);
  Decimal128 quotient = dividend / divisor;
  Decimal128 remainder = dividend % divisor;
  Decimal128 twice = remainder < 0 ? -remainder * 2 : remainder * 2;
  Decimal128 absolute_divisor = divisor < 0 ? -divisor : divisor;
  if (twice > absolute_divisor || (twice == absolute_divisor && quotient % 2 != 0)) {
    quotient += ((dividend < 0) != (divisor < 0)) ? -1 : 1;
  }
  return quotient;
}

// Rounds a double to `digits` fraction digits on its shortest decimal text, as Spark rounds
// BigDecimal(value.toString): HALF_UP, or HALF_EVEN for bround.
double RoundDouble(double value, int digits, bool half_even = false) {
  if (!std::isfinite(value)) return value;
  std::string text = FormatJavaDouble(value);
  if (half_even) {
    // Reads the text exactly (at a finer scale than the result), then rounds once.
    int target = std::max(digits, 0);
    for (int fine = target + 20; fine >= target; --fine) {
      auto exact = ParseDecimal(text, kMaxDecimalPrecision, fine);
      if (!exact) continue;
      Decimal128 rounded = DivideRounding(*exact, Pow10(fine - digits), true);
      if (digits >= 0) return DecimalToDouble(rounded, digits);
      return static_cast<double>(rounded * Pow10(-digits));
    }
    return value;  // beyond 38 digits: no fraction left to round
  }
  auto unscaled = ParseDecimal(text, kMaxDecimalPrecision, std::max(digits, 0));
  if (!unscaled) return value;  // beyond 38 digits: no fraction left to round
  if (digits >= 0) return DecimalToDouble(*unscaled, digits);
  Decimal128 whole = DivideHalfUp(*unscaled, Pow10(-digits)) * Pow10(-digits);
  return static_cast<double>(whole);
}

int64_t RoundInteger(int64_t value, int digits, bool half_even = false) {
  if (digits >= 0) return value;
  if (digits < -18) return 0;
  Decimal128 factor = Pow10(-digits);
  return static_cast<int64_t>(DivideRounding(value, factor, half_even) * factor);
}

void RegisterRound(FunctionRegistry& registry, std::string_view name, bool half_even) {
  registry.Register(name, [name, half_even](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 2);
    arguments[0] = NumericArgument(name, 0, std::move(arguments[0]));
    int digits = 0;
    if (arguments.size() == 2) {
      SILT_USER_CHECK(arguments[1]->kind() == ExpressionKind::kLiteral && IsIntegral(*arguments[1]->type()) &&
                          !arguments[1]->literal().is_null(),
                      DATATYPE_MISMATCH,
                      {{"sqlExpr", "\"" + std::string(name) + "\""}, {"message", "the scale must be a constant integer."}});
      digits = static_cast<int>(arguments[1]->literal().GetInt());
    }
    arguments.resize(1);
    DataTypePtr input = arguments[0]->type();
    DataTypePtr type = input;
    if (input->id() == TypeId::kFloat) {
      type = DoubleType();
      arguments[0] = Cast(std::move(arguments[0]), DoubleType());
    }
    if (input->id() == TypeId::kDecimal) {
      int integral_digits = input->precision() - input->scale() + 1;
      int scale = digits < 0 ? 0 : std::min(digits, input->scale());
      type = DecimalType(std::min(integral_digits + scale, kMaxDecimalPrecision), scale);
    }
    return MakeCall(name, type, std::move(arguments),
                    [type, digits, half_even](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&,
                                              RowMask) {
                      const Vector& value = *args[0];
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        switch (value.type_id()) {
                          case TypeId::kDouble:
                            return out.AppendDouble(RoundDouble(value.values<double>()[row], digits, half_even));
                          case TypeId::kDecimal: {
                            int from_scale = value.type()->scale();
                            Decimal128 unscaled = value.values<Decimal128>()[row];
                            if (digits < 0) {
                              Decimal128 factor = Pow10(from_scale - digits);
                              return out.AppendDecimal(DivideRounding(unscaled, factor, half_even) * Pow10(-digits));
                            }
                            if (type->scale() < from_scale) {
                              return out.AppendDecimal(
                                  DivideRounding(unscaled, Pow10(from_scale - type->scale()), half_even));
                            }
                            return out.AppendDecimal(*RescaleDecimal(unscaled, from_scale, type->scale()));
                          }
                          default: return out.AppendInt(RoundInteger(ReadInteger(value, row), digits, half_even));
                        }
                      });
                    });
  });
}

// ceil(x, scale) and floor(x, scale): x as a decimal (a double as decimal(30,15)) rounded up or
// down to `scale` fraction digits (negative: to tens, hundreds, ...), typed as Spark's RoundBase
// types decimals.
ExpressionPtr BindScaledFloorCeil(std::string_view name, bool ceil, std::vector<ExpressionPtr> arguments) {
  arguments[0] = NumericArgument(name, 0, std::move(arguments[0]));
  SILT_USER_CHECK(arguments[1]->kind() == ExpressionKind::kLiteral && IsIntegral(*arguments[1]->type()) &&
                      !arguments[1]->literal().is_null(),
                  DATATYPE_MISMATCH,
                  {{"sqlExpr", "\"" + std::string(name) + "\""}, {"message", "the scale must be a constant integer."}});
  const int scale = static_cast<int>(arguments[1]->literal().GetInt());
  DataTypePtr input = arguments[0]->type();
  if (input->id() != TypeId::kDecimal) {
    input = input->id() == TypeId::kFloat || input->id() == TypeId::kDouble ? DecimalType(30, 15)
            : input->id() == TypeId::kLong                                 ? DecimalType(20, 0)
            : input->id() == TypeId::kInteger                              ? DecimalType(10, 0)
            : input->id() == TypeId::kShort                                ? DecimalType(5, 0)
                                                                           : DecimalType(3, 0);
    arguments[0] = Cast(std::move(arguments[0]), input);
  }
  const int precision = input->precision();
  const int input_scale = input->scale();
  const int integral_digits = precision - input_scale + 1;
  DataTypePtr type = scale < 0 ? DecimalType(std::min(std::max(integral_digits, -scale + 1), kMaxDecimalPrecision), 0)
                               : DecimalType(std::min(integral_digits + std::min(input_scale, scale), kMaxDecimalPrecision),
                                             std::min(input_scale, scale));
  arguments.resize(1);
  return MakeCall(name, type, std::move(arguments),
                  [ceil, scale, input_scale, type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context,
                                                   RowMask mask) {
                    return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                      Decimal128 unscaled = args[0]->values<Decimal128>()[row];
                      // Rounds to 10^-scale, then states the result at the result type's scale.
                      int drop = input_scale - scale;
                      Decimal128 rounded = unscaled;
                      bool overflow = false;
                      if (drop > 0) {
                        // Beyond 38 dropped digits every value is a fraction of the unit.
                        Decimal128 whole = drop > kMaxDecimalPrecision ? 0 : unscaled / Pow10(drop);
                        Decimal128 remainder = drop > kMaxDecimalPrecision ? unscaled : unscaled % Pow10(drop);
                        if (ceil && remainder > 0) ++whole;
                        if (!ceil && remainder < 0) --whole;
                        if (scale < 0 && whole != 0) {
                          overflow = -scale > kMaxDecimalPrecision;
                          rounded = overflow ? 0 : whole * Pow10(-scale);
                        } else {
                          rounded = whole;
                        }
                      }
                      if (overflow || !FitsPrecision(rounded, type->precision())) {
                        if (context.ansi && mask.Contains(row)) {
                          context.RecordError(MakeError(ErrorClass::NUMERIC_VALUE_OUT_OF_RANGE,
                                                        {{"value", FormatDecimal(rounded, type->scale())},
                                                         {"precision", std::to_string(type->precision())},
                                                         {"scale", std::to_string(type->scale())}}));
                        }
                        return out.AppendNull();
                      }
                      out.AppendDecimal(rounded);
                    });
                  });
}

void RegisterFloorCeil(FunctionRegistry& registry, std::string_view name, bool ceil) {
  registry.Register(name, [name, ceil](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 1, 2);
    if (arguments.size() == 2) return BindScaledFloorCeil(name, ceil, std::move(arguments));
    arguments[0] = NumericArgument(name, 0, std::move(arguments[0]));
    DataTypePtr input = arguments[0]->type();
    DataTypePtr type = LongType();
    if (input->id() == TypeId::kDecimal) {
      type = DecimalType(std::min(input->precision() - input->scale() + 1, kMaxDecimalPrecision), 0);
    } else if (input->id() == TypeId::kFloat) {
      arguments[0] = Cast(std::move(arguments[0]), DoubleType());
    } else if (IsIntegral(*input)) {
      arguments[0] = Cast(std::move(arguments[0]), LongType());
    }
    return MakeCall(name, type, std::move(arguments),
                    [ceil](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      const Vector& value = *args[0];
                      DataTypePtr type = value.type_id() == TypeId::kDecimal
                                             ? DecimalType(std::min(value.type()->precision() - value.type()->scale() + 1,
                                                                    kMaxDecimalPrecision), 0)
                                             : LongType();
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        switch (value.type_id()) {
                          case TypeId::kDouble: {
                            double rounded = ceil ? std::ceil(value.values<double>()[row]) : std::floor(value.values<double>()[row]);
                            // Java's (long) conversion saturates and maps NaN to 0.
                            if (std::isnan(rounded)) return out.AppendInt(0);
                            if (rounded >= 9223372036854775807.0) return out.AppendInt(INT64_MAX);
                            if (rounded <= -9223372036854775808.0) return out.AppendInt(INT64_MIN);
                            return out.AppendInt(static_cast<int64_t>(rounded));
                          }
                          case TypeId::kDecimal: {
                            Decimal128 factor = Pow10(value.type()->scale());
                            Decimal128 unscaled = value.values<Decimal128>()[row];
                            Decimal128 whole = unscaled / factor;
                            Decimal128 remainder = unscaled % factor;
                            if (ceil && remainder > 0) ++whole;
                            if (!ceil && remainder < 0) --whole;
                            return out.AppendDecimal(whole);
                          }
                          default: return out.AppendInt(value.values<int64_t>()[row]);
                        }
                      });
                    });
  });
}

template <typename Function>
void RegisterDoubleFunction(FunctionRegistry& registry, std::string_view name, size_t arity, Function function) {
  registry.Register(name, [name, arity, function](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, arity, arity);
    for (size_t i = 0; i < arguments.size(); ++i) {
      arguments[i] = Cast(NumericArgument(name, i, std::move(arguments[i])), DoubleType());
    }
    return MakeCall(name, DoubleType(), std::move(arguments),
                    [function](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&, RowMask) {
                      return MapRows(DoubleType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        double a = args[0]->values<double>()[row];
                        double b = args.size() > 1 ? args[1]->values<double>()[row] : 0.0;
                        out.AppendDouble(function(a, b));
                      });
                    });
  });
}

// ln, log10, log2 and log(base, x): NULL for a non-positive operand or base, as Spark's
// Logarithm (which never raises).
void RegisterLogarithm(FunctionRegistry& registry, std::string_view name, double fixed_base) {
  registry.Register(name, [name, fixed_base](std::vector<ExpressionPtr> arguments) {
    const bool with_base = fixed_base == 0 && arguments.size() == 2;
    CheckArgumentCount(name, arguments, 1, fixed_base == 0 ? 2 : 1);
    for (size_t i = 0; i < arguments.size(); ++i) {
      arguments[i] = Cast(NumericArgument(name, i, std::move(arguments[i])), DoubleType());
    }
    const double default_base = fixed_base == 0 ? M_E : fixed_base;
    return MakeCall(name, DoubleType(), std::move(arguments),
                    [default_base, with_base](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext&,
                                              RowMask) {
                      return MapRows(DoubleType(), args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        double value = args.back()->values<double>()[row];
                        double base = with_base ? args[0]->values<double>()[row] : default_base;
                        if (value <= 0 || (with_base && base <= 0)) return out.AppendNull();
                        // log10 is Java's Math.log10 (exact for powers of ten); other bases divide
                        // natural logarithms, as Spark does.
                        if (!with_base && base == 10) return out.AppendDouble(std::log10(value));
                        double natural = std::log(value);
                        out.AppendDouble(base == M_E ? natural : natural / std::log(base));
                      });
                    });
  });
}

void RegisterConstant(FunctionRegistry& registry, std::string_view name, double value) {
  registry.Register(name, [name, value](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount(name, arguments, 0, 0);
    return Literal(Scalar::Double(value));
  });
}

}  // namespace

void RegisterMathFunctions(FunctionRegistry& registry) {
  registry.Register("abs", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("abs", arguments, 1, 1);
    arguments[0] = NumericArgument("abs", 0, std::move(arguments[0]));
    DataTypePtr type = arguments[0]->type();
    return MakeCall("abs", type, std::move(arguments),
                    [type](const std::vector<VectorPtr>& args, int64_t num_rows, EvalContext& context, RowMask mask) {
                      const Vector& value = *args[0];
                      return MapRows(type, args, num_rows, [&](int64_t row, VectorBuilder& out) {
                        switch (value.type_id()) {
                          case TypeId::kFloat: return out.AppendFloat(std::fabs(value.values<float>()[row]));
                          case TypeId::kDouble: return out.AppendDouble(std::fabs(value.values<double>()[row]));
                          case TypeId::kDecimal: {
                            Decimal128 unscaled = value.values<Decimal128>()[row];
                            return out.AppendDecimal(unscaled < 0 ? -unscaled : unscaled);
                          }
                          default: {
                            int64_t integer = ReadInteger(value, row);
                            int64_t minimum = value.type_id() == TypeId::kLong      ? INT64_MIN
                                              : value.type_id() == TypeId::kInteger ? INT32_MIN
                                              : value.type_id() == TypeId::kShort   ? INT16_MIN
                                                                                    : INT8_MIN;
                            if (integer == minimum) {
                              // The minimum has no positive counterpart: ANSI raises, legacy wraps.
                              if (context.ansi) {
                                if (mask.Contains(row)) {
                                  context.RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                                                {{"message", "Overflow in function abs"}, {"alternative", ""}}));
                                }
                                return out.AppendNull();
                              }
                              return out.AppendInt(integer);
                            }
                            return out.AppendInt(integer < 0 ? -integer : integer);
                          }
                        }
                      });
                    });
  });
  RegisterRound(registry, "round", false);
  RegisterRound(registry, "bround", true);
  RegisterFloorCeil(registry, "floor", false);
  RegisterFloorCeil(registry, "ceil", true);
  RegisterFloorCeil(registry, "ceiling", true);
  registry.Register("mod", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("mod", arguments, 2, 2);
    return Arithmetic(ArithmeticOperator::kRemainder, arguments[0], arguments[1]);
  });
  registry.Register("pmod", [](std::vector<ExpressionPtr> arguments) {
    CheckArgumentCount("pmod", arguments, 2, 2);
    // pmod(a, b) = ((a % b) + b) % b when a % b is negative; written as expressions so that the
    // remainder's type and error rules apply.
    ExpressionPtr remainder = Arithmetic(ArithmeticOperator::kRemainder, arguments[0], arguments[1]);
    ExpressionPtr negative = Compare(ComparisonOperator::kLess, remainder, Literal(Scalar::Integer(0)));
    ExpressionPtr adjusted = Arithmetic(ArithmeticOperator::kRemainder,
                                        Arithmetic(ArithmeticOperator::kAdd, remainder, arguments[1]), arguments[1]);
    return If(negative, CastIfNeeded(adjusted, remainder->type()), remainder);
  });
  struct TryFunction {
    std::string_view name;
    ArithmeticOperator op;
  };
  for (TryFunction function : {TryFunction{"try_add", ArithmeticOperator::kAdd},
                               TryFunction{"try_subtract", ArithmeticOperator::kSubtract},
                               TryFunction{"try_multiply", ArithmeticOperator::kMultiply},
                               TryFunction{"try_divide", ArithmeticOperator::kDivide},
                               TryFunction{"try_mod", ArithmeticOperator::kRemainder}}) {
    registry.Register(function.name, [function](std::vector<ExpressionPtr> arguments) {
      CheckArgumentCount(function.name, arguments, 2, 2);
      return Arithmetic(function.op, arguments[0], arguments[1], ErrorMode::kTry);
    });
  }
  RegisterDoubleFunction(registry, "sqrt", 1, [](double a, double) { return std::sqrt(a); });
  RegisterDoubleFunction(registry, "exp", 1, [](double a, double) { return std::exp(a); });
  RegisterDoubleFunction(registry, "pow", 2, [](double a, double b) { return std::pow(a, b); });
  RegisterDoubleFunction(registry, "power", 2, [](double a, double b) { return std::pow(a, b); });
  RegisterDoubleFunction(registry, "sign", 1, [](double a, double) {
    return std::isnan(a) ? a : (a > 0 ? 1.0 : (a < 0 ? -1.0 : 0.0));
  });
  RegisterDoubleFunction(registry, "signum", 1, [](double a, double) {
    return std::isnan(a) ? a : (a > 0 ? 1.0 : (a < 0 ? -1.0 : 0.0));
  });
  RegisterDoubleFunction(registry, "cbrt", 1, [](double a, double) {
    // libm's cbrt may miss exact cubes by an ulp; Java's (Spark's) returns them exactly.
    double root = std::cbrt(a);
    double nearest = std::nearbyint(root);
    return nearest * nearest * nearest == a ? nearest : root;
  });
  RegisterDoubleFunction(registry, "sin", 1, [](double a, double) { return std::sin(a); });
  RegisterDoubleFunction(registry, "cos", 1, [](double a, double) { return std::cos(a); });
  RegisterDoubleFunction(registry, "tan", 1, [](double a, double) { return std::tan(a); });
  RegisterDoubleFunction(registry, "asin", 1, [](double a, double) { return std::asin(a); });
  RegisterDoubleFunction(registry, "acos", 1, [](double a, double) { return std::acos(a); });
  RegisterDoubleFunction(registry, "atan", 1, [](double a, double) { return std::atan(a); });
  RegisterDoubleFunction(registry, "atan2", 2, [](double a, double b) { return std::atan2(a, b); });
  RegisterDoubleFunction(registry, "degrees", 1, [](double a, double) { return a * 180.0 / M_PI; });
  RegisterDoubleFunction(registry, "radians", 1, [](double a, double) { return a * M_PI / 180.0; });
  RegisterLogarithm(registry, "ln", M_E);
  RegisterLogarithm(registry, "log10", 10);
  RegisterLogarithm(registry, "log2", 2);
  RegisterLogarithm(registry, "log", 0);  // log(x) is ln(x); log(base, x)
  RegisterConstant(registry, "pi", M_PI);
  RegisterConstant(registry, "e", M_E);
  RegisterDoubleFunction(registry, "sinh", 1, [](double a, double) { return std::sinh(a); });
  RegisterDoubleFunction(registry, "cosh", 1, [](double a, double) { return std::cosh(a); });
  RegisterDoubleFunction(registry, "tanh", 1, [](double a, double) { return std::tanh(a); });
  RegisterDoubleFunction(registry, "asinh", 1, [](double a, double) { return std::asinh(a); });
  RegisterDoubleFunction(registry, "acosh", 1, [](double a, double) { return std::acosh(a); });
  RegisterDoubleFunction(registry, "atanh", 1, [](double a, double) { return std::atanh(a); });
  RegisterDoubleFunction(registry, "cot", 1, [](double a, double) { return 1.0 / std::tan(a); });
  RegisterDoubleFunction(registry, "sec", 1, [](double a, double) { return 1.0 / std::cos(a); });
  RegisterDoubleFunction(registry, "csc", 1, [](double a, double) { return 1.0 / std::sin(a); });
  RegisterDoubleFunction(registry, "expm1", 1, [](double a, double) { return std::expm1(a); });
  RegisterDoubleFunction(registry, "rint", 1, [](double a, double) { return std::nearbyint(a); });
  RegisterDoubleFunction(registry, "hypot", 2, [](double a, double b) { return std::hypot(a, b); });
}

}  // namespace silt::expr::internal
