#pragma once

#include <optional>
#include <vector>

#include "silt/expr/expression.h"
#include "silt/types/data_type.h"

namespace silt::expr {

/// The decimal precision cap of Spark and Delta.
constexpr int kMaxDecimalPrecision = 38;
/// The scale Spark keeps at least when a decimal result must lose precision.
constexpr int kMinimumAdjustedScale = 6;

bool IsIntegral(const DataType& type);
bool IsNumeric(const DataType& type);

/// The decimal type that holds every value of an integral type exactly: byte decimal(3,0),
/// short (5,0), int (10,0), long (20,0); a decimal returns itself; others nullptr.
DataTypePtr DecimalForIntegral(const DataTypePtr& type);

/// Spark's DecimalType.adjustPrecisionScale with allowPrecisionLoss = true: a result above 38
/// digits keeps its integer digits and at least min(scale, 6) fraction digits.
DataTypePtr AdjustedDecimal(int precision, int scale);

/// The types of an arithmetic operation after coercion.
struct ArithmeticTypes {
  DataTypePtr operand;  ///< both operands are cast to this (for decimals: each keeps its own type)
  DataTypePtr result;
  bool decimal = false;  ///< decimal arithmetic: operands keep their own decimal types
};
/// Spark's rules for + - * / %: the wider numeric type; integral `/` gives double; decimals per
/// DecimalPrecision (+,-: max scale, one carry digit; *: p1+p2+1, s1+s2; /: scale
/// max(6, s1+p2+1), precision p1-s1+s2+scale; %: min integer digits, max scale), adjusted to 38
/// digits; integral with decimal widens the integral to its decimal; float/double win over
/// decimal; a string operand is read as double. nullopt when the types cannot be combined.
std::optional<ArithmeticTypes> ResolveArithmetic(ArithmeticOperator op, const DataTypePtr& left,
                                                 const DataTypePtr& right);

/// The common type two operands are cast to before a comparison: the wider numeric type; string
/// against integral reads the string as bigint, against other numerics as double, against
/// date/timestamp/boolean as that type (ANSI implicit casts); date with timestamp compares as
/// timestamp. nullopt when incomparable.
std::optional<DataTypePtr> ComparisonType(const DataTypePtr& left, const DataTypePtr& right);

/// The wider type of two types for CASE/COALESCE/IN/UNION branches (Spark's findWiderTypeForTwo
/// with ANSI string promotion); void yields to the other type. nullopt when there is none.
std::optional<DataTypePtr> WiderType(const DataTypePtr& left, const DataTypePtr& right);
/// WiderType folded over `types` (at least one).
std::optional<DataTypePtr> CommonType(const std::vector<DataTypePtr>& types);

/// Whether a value of `from` may be stored in a column of `to` under Spark's ANSI store
/// assignment policy (INSERT/MERGE/UPDATE): numeric to numeric (overflow checked at run time),
/// anything to string, date/timestamp/timestamp_ntz among themselves, void to anything, equal
/// types, and nested types field by field. String to numeric or numeric to boolean are refused.
/// A nullable field, element or value does not go into a NOT NULL one, unless
/// `checked_nullability`: a table write lets it and checks the values it writes (Spark's table
/// output resolution asserts each one is not NULL).
bool CanStoreAssign(const DataTypePtr& from, const DataTypePtr& to, bool checked_nullability = false);

/// Whether `from` up-casts to `to` without truncation, precision loss or possible run-time
/// failure (Spark's Cast.canUpCast: the only store assignments the STRICT policy allows):
/// narrower integers to wider numbers, integers and decimals into decimals wide enough, dates to
/// timestamps, atomic values to strings, nested types field by field.
bool CanUpCast(const DataTypePtr& from, const DataTypePtr& to);

/// Casts `expression` to `type` unless it already has it.
ExpressionPtr CastIfNeeded(ExpressionPtr expression, const DataTypePtr& type);

}  // namespace silt::expr
