#include "silt/expr/evaluator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>

#include "silt/base/check.h"
#include "silt/expr/cast.h"
#include "silt/expr/decimal_arithmetic_internal.h"
#include "silt/vector/value_text.h"

namespace silt::expr {
namespace {

using ByteMask = std::vector<uint8_t>;

// Validity of every row as one byte per row.
ByteMask ValidityBytes(const Vector& vector) {
  ByteMask valid(static_cast<size_t>(vector.length()), 1);
  if (vector.type_id() == TypeId::kNull) {
    std::fill(valid.begin(), valid.end(), 0);
  } else if (vector.null_count() > 0 && vector.buffer(0)) {
    const uint8_t* bits = vector.buffer(0)->data();
    int64_t offset = vector.offset();
    for (int64_t i = 0; i < vector.length(); ++i) {
      valid[static_cast<size_t>(i)] = (bits[(offset + i) >> 3] >> ((offset + i) & 7)) & 1;
    }
  }
  return valid;
}

// Eight row bytes (any non-zero byte = 1) as the eight bits of one bitmap byte, row 0 lowest.
uint8_t PackEightBytes(const uint8_t* bytes) {
  uint64_t word;
  std::memcpy(&word, bytes, 8);
  // Fold each byte onto its lowest bit; the shifts move at most 7 bits, so no byte reaches the
  // lowest bit of its neighbour.
  word |= word >> 4;
  word |= word >> 2;
  word |= word >> 1;
  word &= 0x0101010101010101ull;
  // The multiplication moves the bit of byte i to bit 56 + i without carries.
  return static_cast<uint8_t>((word * 0x0102040810204080ull) >> 56);
}

// Set bits of every byte value (a table: the portable popcount is a library call per byte).
constexpr auto kOnesInByte = [] {
  std::array<uint8_t, 256> ones{};
  for (int value = 0; value < 256; ++value) {
    for (int bit = 0; bit < 8; ++bit) ones[value] += (value >> bit) & 1;
  }
  return ones;
}();

// Packs one byte per row into an Arrow bitmap; returns the number of zero bytes via `zeros`.
BufferPtr PackBits(const uint8_t* bytes, int64_t num_rows, int64_t* zeros) {
  BufferPtr bits = Buffer::Allocate(static_cast<size_t>((num_rows + 7) / 8), true);
  uint8_t* out = bits->data();
  int64_t one_count = 0;
  int64_t whole = num_rows / 8;
  for (int64_t b = 0; b < whole; ++b) {
    uint8_t packed = PackEightBytes(bytes + 8 * b);
    out[b] = packed;
    one_count += kOnesInByte[packed];
  }
  for (int64_t i = whole * 8; i < num_rows; ++i) {
    uint8_t bit = bytes[i] != 0;
    out[i >> 3] |= static_cast<uint8_t>(bit << (i & 7));
    one_count += bit;
  }
  if (zeros) *zeros = num_rows - one_count;
  return bits;
}

// Wraps a filled values buffer and validity bytes (null = all valid) into a vector.
VectorPtr MakeFixedVector(DataTypePtr type, BufferPtr values, const uint8_t* valid, int64_t num_rows) {
  BufferPtr validity;
  int64_t null_count = 0;
  if (valid) {
    validity = PackBits(valid, num_rows, &null_count);
    if (null_count == 0) validity = nullptr;
  }
  return Vector::Make(std::move(type), num_rows, {validity, values}, {}, null_count);
}

template <typename T>
const T* ValuesOf(const Vector& vector) {
  return vector.values<T>();
}

// Total order over floating values as Spark compares them: NaN equals NaN and is the largest.
template <typename T>
int CompareValues(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    bool a_nan = std::isnan(a), b_nan = std::isnan(b);
    if (a_nan || b_nan) return a_nan == b_nan ? 0 : (a_nan ? 1 : -1);
  }
  return a < b ? -1 : (b < a ? 1 : 0);
}

bool ApplyComparison(ComparisonOperator op, int order) {
  switch (op) {
    case ComparisonOperator::kEqual:
    case ComparisonOperator::kNullSafeEqual: return order == 0;
    case ComparisonOperator::kNotEqual: return order != 0;
    case ComparisonOperator::kLess: return order < 0;
    case ComparisonOperator::kLessOrEqual: return order <= 0;
    case ComparisonOperator::kGreater: return order > 0;
    case ComparisonOperator::kGreaterOrEqual: return order >= 0;
  }
  return false;
}

// Fills `result[i]` with the ordering of row i of the two vectors (valid rows only matter).
template <typename T>
void OrderFixed(const Vector& left, const Vector& right, int8_t* order) {
  const T* a = ValuesOf<T>(left);
  const T* b = ValuesOf<T>(right);
  for (int64_t i = 0; i < left.length(); ++i) order[i] = static_cast<int8_t>(CompareValues(a[i], b[i]));
}

// Ordering of nested or otherwise uncommon rows via their text (equality only is exact).
int CompareGeneric(const Vector& left, int64_t i, const Vector& right, int64_t j) {
  if (left.RowEquals(i, right, j)) return 0;
  std::string a = CastValueToString(left, i), b = CastValueToString(right, j);
  return a < b ? -1 : 1;
}

void OrderRows(const Vector& left, const Vector& right, int8_t* order) {
  int64_t num_rows = left.length();
  switch (left.type_id()) {
    case TypeId::kByte: return OrderFixed<int8_t>(left, right, order);
    case TypeId::kShort: return OrderFixed<int16_t>(left, right, order);
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: return OrderFixed<int32_t>(left, right, order);
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: return OrderFixed<int64_t>(left, right, order);
    case TypeId::kFloat: return OrderFixed<float>(left, right, order);
    case TypeId::kDouble: return OrderFixed<double>(left, right, order);
    case TypeId::kDecimal: return OrderFixed<Decimal128>(left, right, order);
    case TypeId::kBoolean:
      for (int64_t i = 0; i < num_rows; ++i) {
        order[i] = static_cast<int8_t>(static_cast<int>(left.GetBool(i)) - static_cast<int>(right.GetBool(i)));
      }
      return;
    case TypeId::kString:
    case TypeId::kBinary:
      for (int64_t i = 0; i < num_rows; ++i) {
        if (left.IsNull(i) || right.IsNull(i)) {
          order[i] = 0;
          continue;
        }
        int c = left.GetString(i).compare(right.GetString(i));  // byte order = UTF-8 code point order
        order[i] = static_cast<int8_t>(c < 0 ? -1 : (c > 0 ? 1 : 0));
      }
      return;
    case TypeId::kNull:
      std::memset(order, 0, static_cast<size_t>(num_rows));
      return;
    default:
      for (int64_t i = 0; i < num_rows; ++i) {
        order[i] = (left.IsNull(i) || right.IsNull(i)) ? 0 : static_cast<int8_t>(CompareGeneric(left, i, right, i));
      }
  }
}

// ---- comparison against a literal ----
// A predicate such as `city = 'x'` or `amount > 100` compares a column with one value: these
// loops read the value once instead of materialising it for every row.

// The operator that gives the same result with the operands swapped (`c < x` is `x > c`).
ComparisonOperator Mirror(ComparisonOperator op) {
  switch (op) {
    case ComparisonOperator::kLess: return ComparisonOperator::kGreater;
    case ComparisonOperator::kLessOrEqual: return ComparisonOperator::kGreaterOrEqual;
    case ComparisonOperator::kGreater: return ComparisonOperator::kLess;
    case ComparisonOperator::kGreaterOrEqual: return ComparisonOperator::kLessOrEqual;
    default: return op;
  }
}

// out[i] = (values[i] op constant) for every row; one branch-free loop per operator.
template <typename T>
void CompareToConstant(ComparisonOperator op, const T* values, T constant, int64_t num_rows, uint8_t* out) {
  auto run = [&](auto predicate) {
    for (int64_t i = 0; i < num_rows; ++i) out[i] = predicate(values[i]);
  };
  if constexpr (std::is_floating_point_v<T>) {
    // NaN ordering (Spark's) goes through CompareValues.
    run([&](T v) { return static_cast<uint8_t>(ApplyComparison(op, CompareValues(v, constant))); });
  } else {
    using Op = ComparisonOperator;
    switch (op) {
      case Op::kEqual:
      case Op::kNullSafeEqual: return run([constant](T v) { return static_cast<uint8_t>(v == constant); });
      case Op::kNotEqual: return run([constant](T v) { return static_cast<uint8_t>(v != constant); });
      case Op::kLess: return run([constant](T v) { return static_cast<uint8_t>(v < constant); });
      case Op::kLessOrEqual: return run([constant](T v) { return static_cast<uint8_t>(v <= constant); });
      case Op::kGreater: return run([constant](T v) { return static_cast<uint8_t>(v > constant); });
      case Op::kGreaterOrEqual: return run([constant](T v) { return static_cast<uint8_t>(v >= constant); });
    }
  }
}

template <typename T>
void CompareFixedToLiteral(ComparisonOperator op, const Vector& vector, const Vector& literal, uint8_t* out) {
  CompareToConstant<T>(op, vector.values<T>(), literal.values<T>()[0], vector.length(), out);
}

// Strings and binaries in byte order; equality tests the length before the bytes. NULL rows get
// the result of an equal ordering, as CompareVectors gives them.
void CompareStringsToLiteral(ComparisonOperator op, const Vector& vector, std::string_view constant, uint8_t* out) {
  int64_t num_rows = vector.length();
  const int32_t* offsets = vector.buffer(1)->as<int32_t>() + vector.offset();
  const char* data = reinterpret_cast<const char*>(vector.buffer(2)->data());
  if (op == ComparisonOperator::kEqual || op == ComparisonOperator::kNullSafeEqual ||
      op == ComparisonOperator::kNotEqual) {
    uint8_t differs = op == ComparisonOperator::kNotEqual;
    size_t size = constant.size();
    if (size >= 8 && size <= 16) {
      // Two overlapping 8-byte words cover the value: no call per row.
      uint64_t head, tail;
      std::memcpy(&head, constant.data(), 8);
      std::memcpy(&tail, constant.data() + size - 8, 8);
      for (int64_t i = 0; i < num_rows; ++i) {
        int32_t begin = offsets[i];
        bool equal = static_cast<size_t>(offsets[i + 1] - begin) == size;
        if (equal) {
          uint64_t value_head, value_tail;
          std::memcpy(&value_head, data + begin, 8);
          std::memcpy(&value_tail, data + begin + size - 8, 8);
          equal = value_head == head && value_tail == tail;
        }
        out[i] = static_cast<uint8_t>(equal) ^ differs;
      }
    } else {
      for (int64_t i = 0; i < num_rows; ++i) {
        int32_t begin = offsets[i];
        bool equal = static_cast<size_t>(offsets[i + 1] - begin) == size &&
                     (size == 0 || std::memcmp(data + begin, constant.data(), size) == 0);
        out[i] = static_cast<uint8_t>(equal) ^ differs;
      }
    }
  } else {
    for (int64_t i = 0; i < num_rows; ++i) {
      std::string_view value(data + offsets[i], static_cast<size_t>(offsets[i + 1] - offsets[i]));
      int c = value.compare(constant);
      out[i] = ApplyComparison(op, c < 0 ? -1 : (c > 0 ? 1 : 0));
    }
  }
  if (vector.null_count() > 0) {
    uint8_t null_result = ApplyComparison(op, 0);
    for (int64_t i = 0; i < num_rows; ++i) {
      if (vector.IsNull(i)) out[i] = null_result;
    }
  }
}

// `vector op literal` with CompareVectors' semantics, or null when no dedicated loop applies
// (NULL literal, nested or boolean types, or types that differ).
VectorPtr CompareWithLiteral(ComparisonOperator op, const Vector& vector, const Scalar& literal) {
  if (literal.is_null() || !literal.type()->Equals(*vector.type())) return nullptr;
  int64_t num_rows = vector.length();
  const Vector& constant = *literal.vector();
  ByteMask values(static_cast<size_t>(num_rows));
  uint8_t* out = values.data();
  switch (vector.type_id()) {
    case TypeId::kByte: CompareFixedToLiteral<int8_t>(op, vector, constant, out); break;
    case TypeId::kShort: CompareFixedToLiteral<int16_t>(op, vector, constant, out); break;
    case TypeId::kInteger:
    case TypeId::kDate:
    case TypeId::kYearMonthInterval: CompareFixedToLiteral<int32_t>(op, vector, constant, out); break;
    case TypeId::kLong:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
    case TypeId::kDayTimeInterval: CompareFixedToLiteral<int64_t>(op, vector, constant, out); break;
    case TypeId::kFloat: CompareFixedToLiteral<float>(op, vector, constant, out); break;
    case TypeId::kDouble: CompareFixedToLiteral<double>(op, vector, constant, out); break;
    case TypeId::kDecimal: CompareFixedToLiteral<Decimal128>(op, vector, constant, out); break;
    case TypeId::kString:
    case TypeId::kBinary: CompareStringsToLiteral(op, vector, constant.GetString(0), out); break;
    default: return nullptr;
  }
  if (vector.null_count() == 0) return MakeBooleanVector(out, nullptr, num_rows);
  ByteMask valid = ValidityBytes(vector);
  if (op == ComparisonOperator::kNullSafeEqual) {
    // A NULL row is not equal to a non-NULL literal, and the result is never NULL.
    for (int64_t i = 0; i < num_rows; ++i) out[i] = static_cast<uint8_t>(valid[i] && out[i]);
    return MakeBooleanVector(out, nullptr, num_rows);
  }
  return MakeBooleanVector(out, valid.data(), num_rows);
}

// ---- arithmetic ----

std::string OverflowAlternative(ArithmeticOperator op) {
  switch (op) {
    case ArithmeticOperator::kAdd: return " Use 'try_add' to tolerate overflow and return NULL instead.";
    case ArithmeticOperator::kSubtract: return " Use 'try_subtract' to tolerate overflow and return NULL instead.";
    case ArithmeticOperator::kMultiply: return " Use 'try_multiply' to tolerate overflow and return NULL instead.";
    default: return "";
  }
}

struct ArithmeticState {
  ArithmeticOperator op;
  bool raise;     // ANSI session mode: record errors
  bool try_mode;  // TRY: errors give NULL
  EvalContext* context;
  RowMask mask;
};

template <typename T>
VectorPtr IntegralArithmetic(const ArithmeticState& state, const DataTypePtr& type, const Vector& left,
                             const Vector& right, ByteMask& valid) {
  int64_t num_rows = left.length();
  BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(T));
  T* out = values->as<T>();
  const T* a = ValuesOf<T>(left);
  const T* b = ValuesOf<T>(right);
  bool any_error = false;
  switch (state.op) {
    case ArithmeticOperator::kAdd:
      for (int64_t i = 0; i < num_rows; ++i) any_error |= __builtin_add_overflow(a[i], b[i], &out[i]) & valid[i];
      break;
    case ArithmeticOperator::kSubtract:
      for (int64_t i = 0; i < num_rows; ++i) any_error |= __builtin_sub_overflow(a[i], b[i], &out[i]) & valid[i];
      break;
    case ArithmeticOperator::kMultiply:
      for (int64_t i = 0; i < num_rows; ++i) any_error |= __builtin_mul_overflow(a[i], b[i], &out[i]) & valid[i];
      break;
    case ArithmeticOperator::kRemainder:
      for (int64_t i = 0; i < num_rows; ++i) {
        // x % -1 is 0; computing it directly traps for the minimum value.
        out[i] = (b[i] == 0 || b[i] == -1) ? T{0} : static_cast<T>(a[i] % b[i]);
        any_error |= (b[i] == 0) & valid[i];
      }
      break;
    case ArithmeticOperator::kDivide: SILT_CHECK(false, "integral division is done in double");
  }
  if (any_error) {
    // Rare path: find the failing rows again and apply the error mode.
    for (int64_t i = 0; i < num_rows; ++i) {
      if (!valid[i]) continue;
      T ignored;
      bool failed = false;
      bool divide_by_zero = false;
      switch (state.op) {
        case ArithmeticOperator::kAdd: failed = __builtin_add_overflow(a[i], b[i], &ignored); break;
        case ArithmeticOperator::kSubtract: failed = __builtin_sub_overflow(a[i], b[i], &ignored); break;
        case ArithmeticOperator::kMultiply: failed = __builtin_mul_overflow(a[i], b[i], &ignored); break;
        default: failed = divide_by_zero = b[i] == 0; break;
      }
      if (!failed) continue;
      if (divide_by_zero) {
        // Remainder by zero is NULL outside ANSI and with try_mod.
        valid[i] = 0;
        if (state.raise && state.mask.Contains(i)) state.context->RecordError(MakeError(ErrorClass::DIVIDE_BY_ZERO, {}));
      } else if (state.try_mode) {
        valid[i] = 0;
      } else if (state.raise) {
        valid[i] = 0;
        if (state.mask.Contains(i)) {
          std::string width = sizeof(T) == 8 ? "long" : sizeof(T) == 4 ? "integer" : sizeof(T) == 2 ? "short" : "byte";
          state.context->RecordError(MakeError(ErrorClass::ARITHMETIC_OVERFLOW,
                                               {{"message", width + " overflow"},
                                                {"alternative", OverflowAlternative(state.op)}}));
        }
      }
      // Otherwise legacy mode keeps the wrapped (two's complement) result, as Java does.
    }
  }
  return MakeFixedVector(type, values, valid.data(), num_rows);
}

template <typename T>
VectorPtr FloatingArithmetic(const ArithmeticState& state, const DataTypePtr& type, const Vector& left,
                             const Vector& right, ByteMask& valid) {
  int64_t num_rows = left.length();
  BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(T));
  T* out = values->as<T>();
  const T* a = ValuesOf<T>(left);
  const T* b = ValuesOf<T>(right);
  switch (state.op) {
    case ArithmeticOperator::kAdd: for (int64_t i = 0; i < num_rows; ++i) out[i] = a[i] + b[i]; break;
    case ArithmeticOperator::kSubtract: for (int64_t i = 0; i < num_rows; ++i) out[i] = a[i] - b[i]; break;
    case ArithmeticOperator::kMultiply: for (int64_t i = 0; i < num_rows; ++i) out[i] = a[i] * b[i]; break;
    case ArithmeticOperator::kDivide:
    case ArithmeticOperator::kRemainder: {
      bool divide = state.op == ArithmeticOperator::kDivide;
      for (int64_t i = 0; i < num_rows; ++i) {
        if (b[i] == 0) {
          // Spark: a zero divisor gives NULL (or DIVIDE_BY_ZERO in ANSI), never Infinity.
          out[i] = 0;
          if (valid[i]) {
            valid[i] = 0;
            if (state.raise && state.mask.Contains(i)) {
              state.context->RecordError(MakeError(ErrorClass::DIVIDE_BY_ZERO, {}));
            }
          }
        } else {
          out[i] = divide ? a[i] / b[i] : std::fmod(a[i], b[i]);
        }
      }
      break;
    }
  }
  return MakeFixedVector(type, values, valid.data(), num_rows);
}

// A decimal operand of the 64-bit kernel: a column's unscaled values, or one constant (a
// literal, never broadcast into a vector).
struct DecimalOperand {
  const Decimal128* values;
  bool constant;
  int precision;  // of the operand's type
};

// Fills out[i] with combine(a[i], b[i]) (0 for NULL rows) in one pass and returns whether the
// operands of every non-NULL row fitted in 64 bits and its result stayed below `limit` in
// magnitude. A constant
// operand is read once. `kChecks` says what the operands' types have not already proven.
enum class DecimalChecks { kNone, kOperands, kAll };

template <bool kConstantA, bool kConstantB, DecimalChecks kChecks, typename Combine>
bool CombineNarrowDecimals(const Decimal128* a, const Decimal128* b, const uint8_t* valid, int64_t num_rows,
                           Decimal128 limit, Decimal128* out, Combine combine) {
  if constexpr (kChecks == DecimalChecks::kNone) {
    for (int64_t i = 0; i < num_rows; ++i) {
      const Decimal128 value =
          combine(static_cast<int64_t>(a[kConstantA ? 0 : i]), static_cast<int64_t>(b[kConstantB ? 0 : i]));
      out[i] = valid[i] ? value : 0;
    }
    return true;
  }
  bool fits = true;
  for (int64_t i = 0; i < num_rows; ++i) {
    const Decimal128 x = a[kConstantA ? 0 : i];
    const Decimal128 y = b[kConstantB ? 0 : i];
    const auto narrow_x = static_cast<int64_t>(x);
    const auto narrow_y = static_cast<int64_t>(y);
    const Decimal128 value = combine(narrow_x, narrow_y);
    out[i] = valid[i] ? value : 0;
    if constexpr (kChecks == DecimalChecks::kOperands) {
      fits &= (valid[i] == 0) | ((x == narrow_x) & (y == narrow_y));
    } else {
      fits &= (valid[i] == 0) | ((x == narrow_x) & (y == narrow_y) & (value < limit) & (value > -limit));
    }
  }
  return fits;
}

// a + b, a - b or a * b without rounding (+ and - at the larger scale, * at the sum of the
// scales) for a batch whose operands all fit in 64 bits and whose results all fit the result's
// precision: one 64-bit multiplication per row and no error to record. Null when some row does
// not (or the operation needs rounding): the caller then takes the checked path, which gives the
// same values and raises or nulls the rows that overflow. NULL rows get a zero value.
VectorPtr NarrowDecimalArithmetic(ArithmeticOperator op, const DataTypePtr& type, int left_scale, int right_scale,
                                  DecimalOperand a, DecimalOperand b, const ByteMask& valid, int64_t num_rows) {
  const int result_scale = type->scale();
  const int common_scale = std::max(left_scale, right_scale);
  const bool add_or_subtract = op == ArithmeticOperator::kAdd || op == ArithmeticOperator::kSubtract;
  if (add_or_subtract) {
    // x * 10^k with |x| < 2^63 and k <= 18 stays below 2^123: the sum cannot wrap.
    if (result_scale != common_scale || common_scale - std::min(left_scale, right_scale) > 18) return nullptr;
  } else if (op != ArithmeticOperator::kMultiply || result_scale != left_scale + right_scale) {
    return nullptr;
  }
  const auto left_factor = static_cast<int64_t>(Pow10(common_scale - left_scale));
  const auto right_factor = static_cast<int64_t>(Pow10(common_scale - right_scale));
  const Decimal128 limit = Pow10(type->precision());
  // A decimal value stays within its type's precision (the unchecked decimal sums rely on it
  // too), so operands of at most 18 digits fit in 64 bits, and when their digits cannot pass the
  // result's precision (TPC-H Q01's 1 - l_discount and l_extendedprice * (1 - l_discount), but
  // not that times 1 + l_tax, whose decimal(38,6) is capped) no row needs a check. Results of
  // operands within 64 bits stay below 2^126 (< 10^38), so decimal(38,s) needs no limit check.
  const int result_digits = add_or_subtract ? std::max(a.precision + common_scale - left_scale,
                                                       b.precision + common_scale - right_scale) + 1
                                            : a.precision + b.precision;
  const DecimalChecks checks =
      a.precision <= 18 && b.precision <= 18 && result_digits <= type->precision() ? DecimalChecks::kNone
      : type->precision() >= 38                                                     ? DecimalChecks::kOperands
                                                                                    : DecimalChecks::kAll;
  BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(Decimal128));
  Decimal128* out = values->as<Decimal128>();
  auto run_checked = [&]<DecimalChecks kChecks>(auto combine) {
    const uint8_t* rows_valid = valid.data();
    if (a.constant) {
      return CombineNarrowDecimals<true, false, kChecks>(a.values, b.values, rows_valid, num_rows, limit, out,
                                                          combine);
    }
    if (b.constant) {
      return CombineNarrowDecimals<false, true, kChecks>(a.values, b.values, rows_valid, num_rows, limit, out,
                                                          combine);
    }
    return CombineNarrowDecimals<false, false, kChecks>(a.values, b.values, rows_valid, num_rows, limit, out,
                                                         combine);
  };
  auto run = [&](auto combine) {
    switch (checks) {
      case DecimalChecks::kNone: return run_checked.template operator()<DecimalChecks::kNone>(combine);
      case DecimalChecks::kOperands: return run_checked.template operator()<DecimalChecks::kOperands>(combine);
      case DecimalChecks::kAll: break;
    }
    return run_checked.template operator()<DecimalChecks::kAll>(combine);
  };
  bool fits = false;
  switch (op) {
    case ArithmeticOperator::kAdd:
      fits = run([&](int64_t x, int64_t y) { return Decimal128{x} * left_factor + Decimal128{y} * right_factor; });
      break;
    case ArithmeticOperator::kSubtract:
      fits = run([&](int64_t x, int64_t y) { return Decimal128{x} * left_factor - Decimal128{y} * right_factor; });
      break;
    default: fits = run([](int64_t x, int64_t y) { return Decimal128{x} * y; }); break;
  }
  if (!fits) return nullptr;
  return MakeFixedVector(type, values, valid.data(), num_rows);
}

VectorPtr DecimalArithmetic(const ArithmeticState& state, const DataTypePtr& type, const Vector& left,
                            const Vector& right, ByteMask& valid) {
  int64_t num_rows = left.length();
  if (VectorPtr narrow = NarrowDecimalArithmetic(
          state.op, type, left.type()->scale(), right.type()->scale(),
          DecimalOperand{ValuesOf<Decimal128>(left), false, left.type()->precision()},
          DecimalOperand{ValuesOf<Decimal128>(right), false, right.type()->precision()},
          valid, num_rows)) {
    return narrow;
  }
  int s1 = left.type()->scale(), s2 = right.type()->scale();
  int result_scale = type->scale(), result_precision = type->precision();
  const Decimal128* a = ValuesOf<Decimal128>(left);
  const Decimal128* b = ValuesOf<Decimal128>(right);
  const Decimal128 result_limit = Pow10(result_precision);
  // Operands below 2^62 in magnitude, scaled up by at most 10^18, cannot overflow 128 bits when
  // added, subtracted or multiplied, and need only 64-bit multiplications. Rows of the common
  // cases that need no rounding (+ and - at the larger scale, * at the sum of the scales) take
  // that shortcut first; every other row, and every result beyond the precision, goes through
  // the general path below.
  const int common_scale = std::max(s1, s2);
  const bool shortcut =
      ((state.op == ArithmeticOperator::kAdd || state.op == ArithmeticOperator::kSubtract) &&
       result_scale == common_scale && common_scale - std::min(s1, s2) <= 18) ||
      (state.op == ArithmeticOperator::kMultiply && result_scale == s1 + s2);
  // The shortcut writes every row; the general path leaves rows it skips zero.
  BufferPtr values =
      Buffer::Allocate(static_cast<size_t>(num_rows) * sizeof(Decimal128), !shortcut);
  Decimal128* out = values->as<Decimal128>();
  // Per row: whether the general path computes it (every row without the shortcut).
  std::unique_ptr<uint8_t[]> general(
      new uint8_t[static_cast<size_t>(std::max<int64_t>(num_rows, 1))]);
  bool any_general = !shortcut;
  if (!shortcut) std::fill(general.get(), general.get() + num_rows, uint8_t{1});
  if (shortcut) {
    const auto left_factor = static_cast<int64_t>(Pow10(common_scale - s1));
    const auto right_factor = static_cast<int64_t>(Pow10(common_scale - s2));
    auto take = [&](auto combine) {
      constexpr int64_t kNarrow = int64_t{1} << 62;
      for (int64_t i = 0; i < num_rows; ++i) {
        const auto x = static_cast<int64_t>(a[i]);
        const auto y = static_cast<int64_t>(b[i]);
        const Decimal128 value = combine(x, y);
        out[i] = valid[i] ? value : 0;  // NULL rows keep a zero value
        const bool narrow = a[i] == x && b[i] == y && x < kNarrow && x > -kNarrow && y < kNarrow && y > -kNarrow;
        general[i] = !(narrow && value < result_limit && value > -result_limit);
        any_general |= general[i] != 0;
      }
    };
    switch (state.op) {
      case ArithmeticOperator::kAdd:
        take([&](int64_t x, int64_t y) { return Decimal128{x} * left_factor + Decimal128{y} * right_factor; });
        break;
      case ArithmeticOperator::kSubtract:
        take([&](int64_t x, int64_t y) { return Decimal128{x} * left_factor - Decimal128{y} * right_factor; });
        break;
      default: take([](int64_t x, int64_t y) { return Decimal128{x} * y; }); break;
    }
  }
  for (int64_t i = 0; any_general && i < num_rows; ++i) {
    if (!valid[i] || !general[i]) continue;
    std::optional<Decimal128> result;
    bool divide_by_zero = false;
    switch (state.op) {
      case ArithmeticOperator::kAdd:
      case ArithmeticOperator::kSubtract:
      case ArithmeticOperator::kRemainder: {
        int scale = std::max(s1, s2);
        auto x = RescaleDecimal(a[i], s1, scale);
        auto y = RescaleDecimal(b[i], s2, scale);
        if (!x || !y) break;
        Decimal128 combined = 0;
        if (state.op == ArithmeticOperator::kRemainder) {
          if (*y == 0) {
            divide_by_zero = true;
            break;
          }
          combined = *x % *y;
        } else if (state.op == ArithmeticOperator::kAdd ? __builtin_add_overflow(*x, *y, &combined)
                                                         : __builtin_sub_overflow(*x, *y, &combined)) {
          break;
        }
        result = RescaleDecimal(combined, scale, result_scale);
        break;
      }
      case ArithmeticOperator::kMultiply: {
        Decimal128 product = 0;
        if (__builtin_mul_overflow(a[i], b[i], &product)) {
          if (s1 + s2 >= result_scale) result = MultiplyRescaleWide(a[i], b[i], s1 + s2 - result_scale);
          break;
        }
        result = RescaleDecimal(product, s1 + s2, result_scale);
        break;
      }
      case ArithmeticOperator::kDivide: {
        if (b[i] == 0) {
          divide_by_zero = true;
          break;
        }
        // a / b at result_scale: (a * 10^(result_scale - s1 + s2)) / b, rounded HALF_UP.
        int shift = result_scale - s1 + s2;
        Decimal128 dividend = a[i], divisor = b[i];
        if (shift >= 0) {
          if (__builtin_mul_overflow(dividend, Pow10(shift), &dividend)) {
            if (shift <= 38) result = ShiftDivideWide(a[i], shift, b[i]);
            break;
          }
        } else if (__builtin_mul_overflow(divisor, Pow10(-shift), &divisor)) {
          break;
        }
        result = DivideHalfUp(dividend, divisor);
        break;
      }
    }
    if (result && *result < result_limit && *result > -result_limit) {
      out[i] = *result;
      continue;
    }
    out[i] = 0;
    valid[i] = 0;
    if (divide_by_zero) {
      if (state.raise && state.mask.Contains(i)) state.context->RecordError(MakeError(ErrorClass::DIVIDE_BY_ZERO, {}));
    } else if (state.raise && state.mask.Contains(i)) {
      state.context->RecordError(MakeError(
          ErrorClass::NUMERIC_VALUE_OUT_OF_RANGE,
          {{"value", result ? FormatDecimal(*result, result_scale) : std::string("(beyond 38 digits)")},
           {"precision", std::to_string(result_precision)},
           {"scale", std::to_string(result_scale)}}));
    }
  }
  return MakeFixedVector(type, values, valid.data(), num_rows);
}

// Combines two validity masks into `valid`.
ByteMask BothValid(const Vector& left, const Vector& right) {
  ByteMask valid = ValidityBytes(left);
  if (right.null_count() > 0 || right.type_id() == TypeId::kNull) {
    ByteMask other = ValidityBytes(right);
    for (size_t i = 0; i < valid.size(); ++i) valid[i] &= other[i];
  }
  return valid;
}

// Picks row i of the result from `choices[source[i]]` (-1 = NULL).
VectorPtr Gather(const DataTypePtr& type, const std::vector<VectorPtr>& choices, const std::vector<int>& source,
                 int64_t num_rows) {
  int width = type->FixedWidth();
  if (width > 0) {
    BufferPtr values = Buffer::Allocate(static_cast<size_t>(num_rows) * width, true);
    ByteMask valid(static_cast<size_t>(num_rows), 0);
    for (int64_t i = 0; i < num_rows; ++i) {
      int choice = source[i];
      if (choice < 0) continue;
      const Vector& vector = *choices[choice];
      if (vector.IsNull(i)) continue;
      valid[i] = 1;
      std::memcpy(values->data() + i * width, vector.buffer(1)->data() + (vector.offset() + i) * width, width);
    }
    return MakeFixedVector(type, values, valid.data(), num_rows);
  }
  VectorBuilder builder(type, num_rows);
  for (int64_t i = 0; i < num_rows; ++i) {
    if (source[i] < 0) {
      builder.AppendNull();
    } else {
      builder.AppendFrom(*choices[source[i]], i);
    }
  }
  return builder.Finish();
}

// Active rows as bytes (all ones when the mask is empty).
ByteMask MaskBytes(RowMask mask, int64_t num_rows) {
  if (mask.bytes) return ByteMask(mask.bytes, mask.bytes + num_rows);
  return ByteMask(static_cast<size_t>(num_rows), 1);
}

VectorPtr EvaluateLogic(const Expression& expression, const Batch& batch, EvalContext& context, RowMask mask) {
  int64_t num_rows = batch.num_rows();
  bool is_and = expression.kind() == ExpressionKind::kAnd;
  VectorPtr left = EvaluateMasked(*expression.child(0), batch, context, mask);
  ByteMask left_valid = ValidityBytes(*left);
  // The right side matters only where the left does not decide the result (FALSE for AND,
  // TRUE for OR), so its errors elsewhere are ignored.
  ByteMask right_active = MaskBytes(mask, num_rows);
  for (int64_t i = 0; i < num_rows; ++i) {
    if (left_valid[i] && left->GetBool(i) != is_and) right_active[i] = 0;
  }
  VectorPtr right = EvaluateMasked(*expression.child(1), batch, context, RowMask{right_active.data()});
  ByteMask right_valid = ValidityBytes(*right);
  ByteMask values(static_cast<size_t>(num_rows)), valid(static_cast<size_t>(num_rows));
  for (int64_t i = 0; i < num_rows; ++i) {
    bool a = left_valid[i] && left->GetBool(i);
    bool b = right_valid[i] && right->GetBool(i);
    if (is_and) {
      bool left_false = left_valid[i] && !a, right_false = right_valid[i] && !b;
      values[i] = a && b;
      valid[i] = left_false || right_false || (left_valid[i] && right_valid[i]);
    } else {
      values[i] = a || b;
      valid[i] = a || b || (left_valid[i] && right_valid[i]);
    }
  }
  return MakeBooleanVector(values.data(), valid.data(), num_rows);
}

VectorPtr EvaluateCase(const Expression& expression, const Batch& batch, EvalContext& context, RowMask mask) {
  int64_t num_rows = batch.num_rows();
  ByteMask remaining = MaskBytes(mask, num_rows);
  std::vector<int> source(static_cast<size_t>(num_rows), -1);
  std::vector<VectorPtr> choices;
  size_t num_branches = (expression.children().size() - (expression.has_else() ? 1 : 0)) / 2;
  for (size_t branch = 0; branch < num_branches; ++branch) {
    VectorPtr condition = EvaluateMasked(*expression.child(2 * branch), batch, context, RowMask{remaining.data()});
    ByteMask taken(static_cast<size_t>(num_rows), 0);
    bool any = false;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (remaining[i] && condition->IsValid(i) && condition->GetBool(i)) {
        taken[i] = 1;
        remaining[i] = 0;
        any = true;
      }
    }
    if (!any) {
      choices.push_back(nullptr);
      continue;
    }
    // Only rows whose condition chose this branch may raise errors in its value.
    choices.push_back(EvaluateMasked(*expression.child(2 * branch + 1), batch, context, RowMask{taken.data()}));
    for (int64_t i = 0; i < num_rows; ++i) {
      if (taken[i]) source[i] = static_cast<int>(branch);
    }
  }
  if (expression.has_else()) {
    choices.push_back(EvaluateMasked(*expression.children().back(), batch, context, RowMask{remaining.data()}));
    for (int64_t i = 0; i < num_rows; ++i) {
      if (remaining[i]) source[i] = static_cast<int>(choices.size() - 1);
    }
  }
  return Gather(expression.type(), choices, source, num_rows);
}

VectorPtr EvaluateCoalesce(const Expression& expression, const Batch& batch, EvalContext& context, RowMask mask) {
  int64_t num_rows = batch.num_rows();
  ByteMask remaining = MaskBytes(mask, num_rows);
  std::vector<int> source(static_cast<size_t>(num_rows), -1);
  std::vector<VectorPtr> choices;
  for (size_t argument = 0; argument < expression.children().size(); ++argument) {
    VectorPtr value = EvaluateMasked(*expression.child(argument), batch, context, RowMask{remaining.data()});
    choices.push_back(value);
    bool any_left = false;
    for (int64_t i = 0; i < num_rows; ++i) {
      if (remaining[i] && value->IsValid(i)) {
        source[i] = static_cast<int>(argument);
        remaining[i] = 0;
      }
      any_left |= remaining[i] != 0;
    }
    if (!any_left) break;  // later arguments are not evaluated, as in Spark
  }
  // Rows outside the mask are not needed; give them NULL.
  return Gather(expression.type(), choices, source, num_rows);
}

VectorPtr EvaluateIn(const Expression& expression, const Batch& batch, EvalContext& context, RowMask mask) {
  int64_t num_rows = batch.num_rows();
  VectorPtr value = EvaluateMasked(*expression.child(0), batch, context, mask);
  ByteMask found(static_cast<size_t>(num_rows), 0);
  ByteMask saw_null = ValidityBytes(*value);
  for (uint8_t& byte : saw_null) byte = !byte;
  for (size_t item = 1; item < expression.children().size(); ++item) {
    // A literal item (the usual list) is compared without broadcasting it to every row.
    const Expression& item_expression = *expression.child(item);
    VectorPtr equal;
    if (item_expression.kind() == ExpressionKind::kLiteral) {
      equal = CompareWithLiteral(ComparisonOperator::kEqual, *value, item_expression.literal());
    }
    if (!equal) {
      VectorPtr candidate = EvaluateMasked(item_expression, batch, context, mask);
      equal = CompareVectors(ComparisonOperator::kEqual, *value, *candidate);
    }
    for (int64_t i = 0; i < num_rows; ++i) {
      if (equal->IsNull(i)) {
        saw_null[i] = 1;
      } else if (equal->GetBool(i)) {
        found[i] = 1;
      }
    }
  }
  ByteMask valid(static_cast<size_t>(num_rows));
  for (int64_t i = 0; i < num_rows; ++i) valid[i] = found[i] || !saw_null[i];
  return MakeBooleanVector(found.data(), valid.data(), num_rows);
}

// Decimal arithmetic between a column's values and a literal (1 - discount) through the 64-bit
// kernel, without broadcasting the literal; null when the kernel does not apply.
VectorPtr NarrowDecimalWithLiteral(const Expression& expression, const Vector& column, bool literal_on_left) {
  const Expression& literal = *expression.child(literal_on_left ? 0 : 1);
  if (literal.literal().is_null() || literal.type()->id() != TypeId::kDecimal ||
      column.type_id() != TypeId::kDecimal) {
    return nullptr;
  }
  const Decimal128 constant = literal.literal().GetDecimal();
  const DecimalOperand constant_operand{&constant, true, literal.type()->precision()};
  const DecimalOperand column_operand{ValuesOf<Decimal128>(column), false, column.type()->precision()};
  const int literal_scale = literal.type()->scale();
  const int column_scale = column.type()->scale();
  return NarrowDecimalArithmetic(expression.arithmetic(), expression.type(),
                                  literal_on_left ? literal_scale : column_scale,
                                  literal_on_left ? column_scale : literal_scale,
                                  literal_on_left ? constant_operand : column_operand,
                                  literal_on_left ? column_operand : constant_operand, ValidityBytes(column),
                                  column.length());
}

VectorPtr EvaluateArithmetic(const Expression& expression, const Batch& batch, EvalContext& context, RowMask mask) {
  const Expression& left_expression = *expression.child(0);
  const Expression& right_expression = *expression.child(1);
  // A literal operand is broadcast only when the 64-bit decimal kernel does not take it.
  const bool left_literal = left_expression.kind() == ExpressionKind::kLiteral;
  const bool right_literal = right_expression.kind() == ExpressionKind::kLiteral;
  VectorPtr left = left_literal ? nullptr : EvaluateMasked(left_expression, batch, context, mask);
  VectorPtr right = right_literal ? nullptr : EvaluateMasked(right_expression, batch, context, mask);
  if (expression.type()->id() == TypeId::kDecimal && left_literal != right_literal) {
    if (VectorPtr narrow = NarrowDecimalWithLiteral(expression, left_literal ? *right : *left, left_literal)) {
      return narrow;
    }
  }
  if (left_literal) left = left_expression.literal().ToVector(batch.num_rows());
  if (right_literal) right = right_expression.literal().ToVector(batch.num_rows());
  ByteMask valid = BothValid(*left, *right);
  ArithmeticState state{expression.arithmetic(), expression.error_mode() == ErrorMode::kSession && context.ansi,
                        expression.error_mode() == ErrorMode::kTry, &context, mask};
  const DataTypePtr& type = expression.type();
  switch (type->id()) {
    case TypeId::kByte: return IntegralArithmetic<int8_t>(state, type, *left, *right, valid);
    case TypeId::kShort: return IntegralArithmetic<int16_t>(state, type, *left, *right, valid);
    case TypeId::kInteger: return IntegralArithmetic<int32_t>(state, type, *left, *right, valid);
    case TypeId::kLong: return IntegralArithmetic<int64_t>(state, type, *left, *right, valid);
    case TypeId::kFloat: return FloatingArithmetic<float>(state, type, *left, *right, valid);
    case TypeId::kDouble: return FloatingArithmetic<double>(state, type, *left, *right, valid);
    case TypeId::kDecimal: return DecimalArithmetic(state, type, *left, *right, valid);
    default: SILT_CHECK(false, "arithmetic on type " + type->ToString());
  }
  return nullptr;
}

}  // namespace

VectorPtr MakeBooleanVector(const uint8_t* values, const uint8_t* valid, int64_t num_rows) {
  BufferPtr bits = PackBits(values, num_rows, nullptr);
  BufferPtr validity;
  int64_t null_count = 0;
  if (valid) {
    validity = PackBits(valid, num_rows, &null_count);
    if (null_count == 0) validity = nullptr;
  }
  return Vector::Make(BooleanType(), num_rows, {validity, bits}, {}, null_count);
}

VectorPtr CompareVectors(ComparisonOperator op, const Vector& left, const Vector& right) {
  int64_t num_rows = left.length();
  SILT_CHECK(right.length() == num_rows, "CompareVectors needs vectors of one length");
  std::vector<int8_t> order(static_cast<size_t>(num_rows));
  OrderRows(left, right, order.data());
  ByteMask values(static_cast<size_t>(num_rows));
  if (op == ComparisonOperator::kNullSafeEqual) {
    ByteMask left_valid = ValidityBytes(left), right_valid = ValidityBytes(right);
    for (int64_t i = 0; i < num_rows; ++i) {
      values[i] = (left_valid[i] && right_valid[i]) ? order[i] == 0 : left_valid[i] == right_valid[i];
    }
    return MakeBooleanVector(values.data(), nullptr, num_rows);
  }
  for (int64_t i = 0; i < num_rows; ++i) values[i] = ApplyComparison(op, order[i]);
  if (left.null_count() == 0 && right.null_count() == 0 && left.type_id() != TypeId::kNull) {
    return MakeBooleanVector(values.data(), nullptr, num_rows);
  }
  ByteMask valid = BothValid(left, right);
  return MakeBooleanVector(values.data(), valid.data(), num_rows);
}

VectorPtr EvaluateMasked(const Expression& expression, const Batch& batch, EvalContext& context, RowMask mask) {
  int64_t num_rows = batch.num_rows();
  switch (expression.kind()) {
    case ExpressionKind::kLiteral: return expression.literal().ToVector(num_rows);
    case ExpressionKind::kColumn: {
      int index = expression.column_index();
      SILT_CHECK(index >= 0 && static_cast<size_t>(index) < batch.num_columns(), "column index out of range");
      const VectorPtr& column = batch.column(static_cast<size_t>(index));
      SILT_CHECK(column->type()->Equals(*expression.type()),
                 "column " + std::to_string(index) + " has type " + column->type()->ToString() +
                     ", the expression expects " + expression.type()->ToString());
      return column;
    }
    case ExpressionKind::kCast:
      return CastVector(EvaluateMasked(*expression.child(0), batch, context, mask), expression.type(),
                        expression.error_mode(), context, mask);
    case ExpressionKind::kIsNull:
    case ExpressionKind::kIsNotNull: {
      VectorPtr value = EvaluateMasked(*expression.child(0), batch, context, mask);
      ByteMask valid = ValidityBytes(*value);
      if (expression.kind() == ExpressionKind::kIsNull) {
        for (uint8_t& byte : valid) byte = !byte;
      }
      return MakeBooleanVector(valid.data(), nullptr, num_rows);
    }
    case ExpressionKind::kNot: {
      VectorPtr value = EvaluateMasked(*expression.child(0), batch, context, mask);
      ByteMask values(static_cast<size_t>(num_rows));
      for (int64_t i = 0; i < num_rows; ++i) values[i] = !value->GetBool(i);
      ByteMask valid = ValidityBytes(*value);
      return MakeBooleanVector(values.data(), valid.data(), num_rows);
    }
    case ExpressionKind::kAnd:
    case ExpressionKind::kOr: return EvaluateLogic(expression, batch, context, mask);
    case ExpressionKind::kComparison: {
      const Expression& left_expression = *expression.child(0);
      const Expression& right_expression = *expression.child(1);
      if (right_expression.kind() == ExpressionKind::kLiteral) {
        VectorPtr left = EvaluateMasked(left_expression, batch, context, mask);
        if (VectorPtr result = CompareWithLiteral(expression.comparison(), *left, right_expression.literal())) {
          return result;
        }
        return CompareVectors(expression.comparison(), *left, *right_expression.literal().ToVector(num_rows));
      }
      if (left_expression.kind() == ExpressionKind::kLiteral) {
        VectorPtr right = EvaluateMasked(right_expression, batch, context, mask);
        if (VectorPtr result = CompareWithLiteral(Mirror(expression.comparison()), *right, left_expression.literal())) {
          return result;
        }
        return CompareVectors(expression.comparison(), *left_expression.literal().ToVector(num_rows), *right);
      }
      VectorPtr left = EvaluateMasked(left_expression, batch, context, mask);
      VectorPtr right = EvaluateMasked(right_expression, batch, context, mask);
      return CompareVectors(expression.comparison(), *left, *right);
    }
    case ExpressionKind::kArithmetic: return EvaluateArithmetic(expression, batch, context, mask);
    case ExpressionKind::kCase: return EvaluateCase(expression, batch, context, mask);
    case ExpressionKind::kCoalesce: return EvaluateCoalesce(expression, batch, context, mask);
    case ExpressionKind::kIn: return EvaluateIn(expression, batch, context, mask);
    case ExpressionKind::kCall: {
      std::vector<VectorPtr> arguments;
      arguments.reserve(expression.children().size());
      for (const ExpressionPtr& child : expression.children()) {
        arguments.push_back(EvaluateMasked(*child, batch, context, mask));
      }
      VectorPtr result = expression.function().kernel(arguments, num_rows, context, mask);
      SILT_CHECK(result && result->length() == num_rows, "function kernel returned a wrong length");
      return result;
    }
  }
  SILT_CHECK(false, "unknown expression kind");
  return nullptr;
}

VectorPtr Evaluate(const Expression& expression, const Batch& batch, EvalContext& context) {
  VectorPtr result = EvaluateMasked(expression, batch, context, RowMask{});
  context.ThrowIfError();
  return result;
}

std::vector<uint8_t> EvaluateFilter(const Expression& predicate, const Batch& batch, EvalContext& context) {
  SILT_CHECK(predicate.type()->id() == TypeId::kBoolean, "a filter needs a boolean predicate");
  VectorPtr result = Evaluate(predicate, batch, context);
  int64_t num_rows = batch.num_rows();
  std::vector<uint8_t> keep(static_cast<size_t>(num_rows));
  if (result->null_count() >= num_rows) return keep;  // all NULL (the values may be absent)
  const uint8_t* bits = result->buffer(1)->data();
  const uint8_t* validity =
      result->null_count() > 0 && result->buffer(0) ? result->buffer(0)->data() : nullptr;
  int64_t offset = result->offset();
  for (int64_t i = 0; i < num_rows; ++i) {
    int64_t bit = offset + i;
    uint8_t value = (bits[bit >> 3] >> (bit & 7)) & 1;
    if (validity) value &= (validity[bit >> 3] >> (bit & 7)) & 1;
    keep[static_cast<size_t>(i)] = value;
  }
  return keep;
}

}  // namespace silt::expr
