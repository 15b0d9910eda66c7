#pragma once

#include <cstdint>

#include "silt/expr/expression.h"

/// Bound forms of SQL operators that are calls rather than dedicated expression nodes: struct
/// field extraction, unary minus, bitwise operators and shifts, integral division (`DIV`) and
/// datetime-interval arithmetic. Each checks its operand types as Spark does and throws
/// DATATYPE_MISMATCH otherwise.
namespace silt::expr {

/// Field `index` of a struct value (`s.f`); NULL where the struct is NULL.
ExpressionPtr StructField(ExpressionPtr struct_value, int index);

/// `-x` of a numeric or interval operand (NegateInterval); integral overflow (`-(-2147483648)`) raises ARITHMETIC_OVERFLOW
/// in ANSI mode and wraps otherwise, as Java does.
ExpressionPtr Negate(ExpressionPtr operand);

enum class BitwiseOperator { kAnd, kOr, kXor };
/// `a & b`, `a | b`, `a ^ b` of integral operands, computed in their wider type.
ExpressionPtr Bitwise(BitwiseOperator op, ExpressionPtr left, ExpressionPtr right);
/// `~a` of an integral operand.
ExpressionPtr BitwiseNot(ExpressionPtr operand);

enum class ShiftOperator { kLeft, kRight, kRightUnsigned };
/// `a << n`, `a >> n`, `a >>> n` (shiftleft, shiftright, shiftrightunsigned): `a` is INT or
/// BIGINT (tinyint and smallint widen to INT), `n` INT; the shift count is taken modulo the
/// width, as Java does.
ExpressionPtr Shift(ShiftOperator op, ExpressionPtr value, ExpressionPtr amount);

/// `a DIV b`: integral operands as BIGINT, the quotient truncated toward zero. A zero divisor
/// gives DIVIDE_BY_ZERO in ANSI mode (NULL otherwise or with ErrorMode::kTry).
ExpressionPtr IntegralDivide(ExpressionPtr left, ExpressionPtr right, ErrorMode mode = ErrorMode::kSession);

/// A constant interval in Spark's ANSI kinds: YEAR-MONTH intervals are `months`; DAY-TIME
/// intervals are `micros` (days included). `days_only` marks a DAY-TIME interval whose fields
/// are days only (Spark's INTERVAL DAY), which keeps a DATE a DATE when added.
struct IntervalValue {
  int64_t months = 0;
  int64_t micros = 0;
  bool year_month = false;
  bool days_only = false;
};

/// `datetime + interval` (negate the interval for `-`), with Spark's result types:
/// DATE + YEAR-MONTH and DATE + INTERVAL DAY stay DATE; DATE + other DAY-TIME intervals is a
/// TIMESTAMP; TIMESTAMP and TIMESTAMP_NTZ keep their type. Months are added to the local date
/// (in the session zone for TIMESTAMP) and clamp to the month's last day. Overflow beyond the
/// supported range raises DATETIME_OVERFLOW-style ARITHMETIC_OVERFLOW in ANSI mode.
ExpressionPtr AddInterval(ExpressionPtr datetime, const IntervalValue& interval);

}  // namespace silt::expr
