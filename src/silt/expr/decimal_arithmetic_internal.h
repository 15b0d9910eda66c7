#pragma once

#include <array>
#include <cmath>
#include <optional>

#include "silt/vector/vector.h"

namespace silt::expr {

/// 10^0 .. 10^38, computed once: decimal kernels look powers up per row.
inline constexpr std::array<Decimal128, 39> kPowersOfTen = [] {
  std::array<Decimal128, 39> powers{};
  powers[0] = 1;
  for (size_t i = 1; i < powers.size(); ++i) powers[i] = powers[i - 1] * 10;
  return powers;
}();

/// 10^exponent for 0 <= exponent <= 38 (1 for a negative exponent).
inline Decimal128 Pow10(int exponent) {
  if (exponent >= 0 && exponent <= 38) return kPowersOfTen[static_cast<size_t>(exponent)];
  Decimal128 value = 1;
  for (int i = 0; i < exponent; ++i) value *= 10;
  return value;
}

/// True when |unscaled| < 10^precision.
inline bool FitsPrecision(Decimal128 unscaled, int precision) {
  Decimal128 limit = Pow10(precision);
  return unscaled < limit && unscaled > -limit;
}

/// Divides with rounding half away from zero (Java's RoundingMode.HALF_UP). `divisor` != 0.
inline Decimal128 DivideHalfUp(Decimal128 dividend, Decimal128 divisor) {
  Decimal128 quotient = dividend / divisor;
  Decimal128 remainder = dividend % divisor;
  Decimal128 twice = remainder < 0 ? -remainder * 2 : remainder * 2;
  Decimal128 absolute_divisor = divisor < 0 ? -divisor : divisor;
  if (twice >= absolute_divisor) quotient += ((dividend < 0) != (divisor < 0)) ? -1 : 1;
  return quotient;
}

/// Changes the scale of an unscaled value, rounding HALF_UP when the scale shrinks; nullopt when
/// the value no longer fits in 128 bits.
inline std::optional<Decimal128> RescaleDecimal(Decimal128 unscaled, int from_scale, int to_scale) {
  if (to_scale == from_scale) return unscaled;
  if (to_scale > from_scale) {
    Decimal128 result = 0;
    if (__builtin_mul_overflow(unscaled, Pow10(to_scale - from_scale), &result)) return std::nullopt;
    return result;
  }
  // |unscaled| < 2^127 < 0.2 * 10^39: dropping more than 38 digits rounds every value to 0 (and
  // 10^39 itself does not fit in 128 bits).
  if (from_scale - to_scale > 38) return Decimal128{0};
  return DivideHalfUp(unscaled, Pow10(from_scale - to_scale));
}

inline double DecimalToDouble(Decimal128 unscaled, int scale) {
  return static_cast<double>(static_cast<long double>(unscaled) / std::pow(10.0L, scale));
}

/// The decimal(precision, scale) nearest to `value` (HALF_UP); nullopt for NaN, infinities and
/// values needing more than `precision` digits.
inline std::optional<Decimal128> DecimalFromDouble(double value, int precision, int scale) {
  if (!std::isfinite(value)) return std::nullopt;
  long double scaled = static_cast<long double>(value) * std::pow(10.0L, scale);
  long double rounded = scaled < 0 ? -std::floor(-scaled + 0.5L) : std::floor(scaled + 0.5L);
  if (std::fabs(rounded) >= std::pow(10.0L, precision)) return std::nullopt;
  return static_cast<Decimal128>(rounded);
}

/// |a| * |b| / 10^shift rounded HALF_UP with the sign of a * b, computed through a 256-bit
/// product, for when a * b overflows 128 bits but the rescaled result may not (Spark computes
/// these with BigDecimal: 10.300000000000000000 * 3.0000000000000000000 is 30.9).
/// 0 <= shift <= 76; nullopt when the result does not fit in 128 bits.
std::optional<Decimal128> MultiplyRescaleWide(Decimal128 a, Decimal128 b, int shift);

/// a * 10^shift / b rounded HALF_UP, through a 256-bit dividend (0 <= shift <= 38, b != 0);
/// nullopt when the result does not fit in 128 bits.
std::optional<Decimal128> ShiftDivideWide(Decimal128 a, int shift, Decimal128 b);

}  // namespace silt::expr
