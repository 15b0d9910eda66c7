// 256-bit intermediates for decimal multiplication and division whose exact intermediate value
// needs more than 128 bits while the rescaled result fits.

#include <cstdint>

#include "silt/expr/decimal_arithmetic_internal.h"

namespace silt::expr {
namespace {

using U128 = unsigned __int128;

struct U256 {
  U128 high = 0;
  U128 low = 0;
};

U128 Magnitude(Decimal128 value) { return value < 0 ? U128(0) - static_cast<U128>(value) : static_cast<U128>(value); }

U256 MultiplyWide(U128 x, U128 y) {
  const U128 mask = ~uint64_t{0};
  U128 x0 = x & mask, x1 = x >> 64, y0 = y & mask, y1 = y >> 64;
  U128 p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
  U128 middle = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  return U256{p11 + (p01 >> 64) + (p10 >> 64) + (middle >> 64), (p00 & mask) | (middle << 64)};
}

// Long division of a 256-bit value by a 128-bit divisor; false when the quotient needs more
// than 128 bits.
bool DivideWide(U256 dividend, U128 divisor, U128& quotient, U128& remainder) {
  if (dividend.high >= divisor) return false;
  U128 rest = dividend.high;
  U128 result = 0;
  for (int bit = 127; bit >= 0; --bit) {
    bool carry = (rest >> 127) != 0;
    rest = (rest << 1) | ((dividend.low >> bit) & 1);
    result <<= 1;
    if (carry || rest >= divisor) {
      rest -= divisor;
      result |= 1;
    }
  }
  quotient = result;
  remainder = rest;
  return true;
}

U128 Pow10Unsigned(int exponent) { return static_cast<U128>(Pow10(exponent)); }

// quotient rounded HALF_UP given the remainder of its division by `divisor`.
bool RoundHalfUp(U128& quotient, U128 remainder, U128 divisor) {
  if (remainder >= divisor - remainder) {
    if (quotient == ~U128(0)) return false;
    ++quotient;
  }
  return true;
}

std::optional<Decimal128> Signed(U128 magnitude, bool negative) {
  const U128 max_positive = ~U128(0) >> 1;
  if (magnitude > max_positive) return std::nullopt;
  Decimal128 value = static_cast<Decimal128>(magnitude);
  return negative ? -value : value;
}

}  // namespace

std::optional<Decimal128> MultiplyRescaleWide(Decimal128 a, Decimal128 b, int shift) {
  if (shift < 0 || shift > 76) return std::nullopt;
  bool negative = (a < 0) != (b < 0);
  U256 product = MultiplyWide(Magnitude(a), Magnitude(b));
  U128 quotient = 0, remainder = 0;
  if (shift > 38) {
    // Truncate by 10^38 first: for an even final divisor the HALF_UP decision depends only on
    // the second remainder.
    U128 first = 0, ignored = 0;
    if (!DivideWide(product, Pow10Unsigned(38), first, ignored)) return std::nullopt;
    U128 divisor = Pow10Unsigned(shift - 38);
    quotient = first / divisor;
    remainder = first % divisor;
    if (!RoundHalfUp(quotient, remainder, divisor)) return std::nullopt;
    return Signed(quotient, negative);
  }
  U128 divisor = Pow10Unsigned(shift);
  if (!DivideWide(product, divisor, quotient, remainder)) return std::nullopt;
  if (!RoundHalfUp(quotient, remainder, divisor)) return std::nullopt;
  return Signed(quotient, negative);
}

std::optional<Decimal128> ShiftDivideWide(Decimal128 a, int shift, Decimal128 b) {
  if (shift < 0 || shift > 38 || b == 0) return std::nullopt;
  bool negative = (a < 0) != (b < 0);
  U256 dividend = MultiplyWide(Magnitude(a), Pow10Unsigned(shift));
  U128 divisor = Magnitude(b);
  U128 quotient = 0, remainder = 0;
  if (!DivideWide(dividend, divisor, quotient, remainder)) return std::nullopt;
  if (!RoundHalfUp(quotient, remainder, divisor)) return std::nullopt;
  return Signed(quotient, negative);
}

}  // namespace silt::expr
