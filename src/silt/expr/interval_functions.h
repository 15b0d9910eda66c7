#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "silt/expr/expression.h"

/// Spark's ANSI interval values: YEAR-MONTH intervals (int32 months) and DAY-TIME intervals
/// (int64 microseconds), their literals, arithmetic with datetimes, numbers and each other, and
/// casts from strings. Result types and errors follow Spark 3.5 with ANSI mode on.
namespace silt::expr {

/// The interval an `INTERVAL ...` literal denotes, from its parts as written: (value, unit) with
/// the unit upper-cased, e.g. {"'1'", "DAY"}, {"2", "HOURS"}, {"'1-2'", "YEAR TO MONTH"}.
/// Units alone give the interval type spanning them (`INTERVAL 1 DAY 2 HOURS` is INTERVAL DAY
/// TO HOUR; WEEK counts as DAY, MILLISECOND and MICROSECOND as SECOND); `FROM TO` forms are
/// parsed as Spark's interval strings, with their fields range-checked. Returns nullopt for the
/// forms Spark types as its legacy CalendarIntervalType (a unit-less string such as
/// `INTERVAL '1 day'`, or year-month units mixed with day-time units), which have no ANSI type.
/// Throws INVALID_TYPED_LITERAL for a malformed value.
std::optional<Scalar> AnsiIntervalLiteral(const std::vector<std::pair<std::string, std::string>>& parts);

/// Parses `text` as a value of the interval type `type`, as CAST(string AS INTERVAL ...) does:
/// either the bare value ("1 02:03:04" for DAY TO SECOND, "-1-2" for YEAR TO MONTH, "2" for
/// HOUR; seconds may have up to 6 fraction digits) or Spark's full form ("INTERVAL '1' DAY",
/// whose fields must be the type's). Fields after the first are range-checked (hours 0-23,
/// minutes and seconds 0-59, months 0-11). Returns the months or microseconds; nullopt when
/// malformed or out of range.
std::optional<int64_t> ParseIntervalText(std::string_view text, const DataType& type);

/// Binds `left op right` when an operand is an interval, for `-` between two dates or
/// timestamps, or for a date and a day count; returns nullptr for other operand types
/// (ordinary arithmetic). Spark's rules:
///  - DATE +/- YEAR-MONTH and DATE +/- INTERVAL DAY are DATE; DATE +/- other DAY-TIME intervals
///    is TIMESTAMP; TIMESTAMP/TIMESTAMP_NTZ +/- an interval keeps its type (months are added to
///    the local date and clamp to the month's end); the interval may be on either side of `+`.
///  - DATE - DATE is INTERVAL DAY; other datetime differences are INTERVAL DAY TO SECOND.
///  - DATE +/- TINYINT/SMALLINT/INT and INT + DATE add days (date_add, date_sub).
///  - intervals of one kind add and subtract in the type spanning both operands' fields.
///  - interval * number, number * interval and interval / number give INTERVAL YEAR TO MONTH or
///    INTERVAL DAY TO SECOND, rounding half up; division by zero is INTERVAL_DIVIDED_BY_ZERO.
/// Overflow raises ARITHMETIC_OVERFLOW (NULL with ANSI off). Throws DATATYPE_MISMATCH for
/// other combinations involving an interval (YEAR-MONTH with DAY-TIME, interval - date ...).
ExpressionPtr IntervalArithmetic(ArithmeticOperator op, ExpressionPtr left, ExpressionPtr right);

/// `-interval`, same type; negating the minimum value raises ARITHMETIC_OVERFLOW.
ExpressionPtr NegateInterval(ExpressionPtr operand);

namespace internal {

/// Whether CAST from `from` to the interval type `to` is allowed: from a string or from an
/// interval of the same kind (DAY-TIME to DAY-TIME truncates to the target's last field).
bool CanCastToInterval(const DataType& from, const DataType& to);
/// CAST of every row of `input` to the interval type `to` (CanCastToInterval must hold).
/// Malformed strings raise CAST_INVALID_INPUT in ANSI mode (NULL otherwise or with TRY).
VectorPtr CastToInterval(const VectorPtr& input, const DataTypePtr& to, ErrorMode mode, EvalContext& context,
                         RowMask mask);

}  // namespace internal
}  // namespace silt::expr
