#pragma once

// Helpers shared by the function families (*_functions.cc): argument checks and typed loops
// that turn per-row lambdas into whole-vector kernels.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/base/check.h"
#include "silt/expr/evaluator.h"
#include "silt/expr/expression.h"
#include "silt/expr/function_registry.h"
#include "silt/expr/type_coercion.h"

namespace silt::expr::internal {

/// Throws WRONG_NUM_ARGS unless minimum <= count <= maximum.
void CheckArgumentCount(std::string_view name, const std::vector<ExpressionPtr>& arguments, size_t minimum,
                        size_t maximum);
/// Throws DATATYPE_MISMATCH naming the argument.
[[noreturn]] void ThrowArgumentType(std::string_view name, size_t index, const ExpressionPtr& argument,
                                    const std::string& expected);
/// Casts argument `index` to `type` when it can be implicitly cast (numeric, string, datetime
/// promotion as in ANSI implicit casts); DATATYPE_MISMATCH otherwise.
ExpressionPtr ImplicitCast(std::string_view name, size_t index, ExpressionPtr argument, const DataTypePtr& type);
/// A Call node of a kernel.
ExpressionPtr MakeCall(std::string_view name, DataTypePtr result_type, std::vector<ExpressionPtr> arguments,
                       FunctionKernel kernel, bool deterministic = true);

/// True when row `row` of every argument is valid.
inline bool AllValid(const std::vector<VectorPtr>& arguments, int64_t row) {
  for (const VectorPtr& argument : arguments) {
    if (argument->IsNull(row)) return false;
  }
  return true;
}

/// Runs `function(row, builder)` for rows whose arguments are all valid (appending exactly one
/// value) and appends NULL for the others. For kernels whose per-row work dwarfs the append.
template <typename Function>
VectorPtr MapRows(const DataTypePtr& type, const std::vector<VectorPtr>& arguments, int64_t num_rows,
                  Function function) {
  VectorBuilder builder(type, num_rows);
  for (int64_t row = 0; row < num_rows; ++row) {
    if (!AllValid(arguments, row)) {
      builder.AppendNull();
    } else {
      function(row, builder);
    }
  }
  return builder.Finish();
}

/// Integer value of row `row` of any integral, date, timestamp or interval vector.
int64_t ReadInteger(const Vector& vector, int64_t row);
/// Double value of a float or double vector row.
double ReadDouble(const Vector& vector, int64_t row);

/// Registration of each family (defined in the family's file).
void RegisterConditionalFunctions(FunctionRegistry& registry);
void RegisterStringFunctions(FunctionRegistry& registry);
void RegisterMathFunctions(FunctionRegistry& registry);
void RegisterDatetimeFunctions(FunctionRegistry& registry);
void RegisterHashFunctions(FunctionRegistry& registry);
void RegisterDigestFunctions(FunctionRegistry& registry);
void RegisterCollectionFunctions(FunctionRegistry& registry);
void RegisterTextFunctions(FunctionRegistry& registry);
void RegisterArrayFunctions(FunctionRegistry& registry);
void RegisterCalendarFunctions(FunctionRegistry& registry);
void RegisterOperatorFunctions(FunctionRegistry& registry);
void RegisterRandomFunctions(FunctionRegistry& registry);
void RegisterBinaryFunctions(FunctionRegistry& registry);
void RegisterCastFunctions(FunctionRegistry& registry);
void RegisterArrayBuildingFunctions(FunctionRegistry& registry);
void RegisterMapFunctions(FunctionRegistry& registry);
void RegisterStringEditingFunctions(FunctionRegistry& registry);
void RegisterUrlFunctions(FunctionRegistry& registry);
void RegisterNumberFormatFunctions(FunctionRegistry& registry);
void RegisterNumericFunctions(FunctionRegistry& registry);
void RegisterSessionInfoFunctions(FunctionRegistry& registry);
void RegisterJsonFunctions(FunctionRegistry& registry);
void RegisterCsvFunctions(FunctionRegistry& registry);
void RegisterTimestampFunctions(FunctionRegistry& registry);

/// timestampadd(unit, quantity, timestamp) and timestampdiff(unit, start, end) under another
/// name (date_add, datediff and date_diff with three arguments).
ExpressionPtr BindUnitTimestampAdd(std::string_view name, std::vector<ExpressionPtr> arguments);
ExpressionPtr BindUnitTimestampDiff(std::string_view name, std::vector<ExpressionPtr> arguments);

/// concat over arrays: the arrays joined, NULL when any is NULL (string concat delegates here
/// when its arguments are arrays).
ExpressionPtr BindArrayConcat(std::vector<ExpressionPtr> arguments);
/// reverse over an array: its elements in reverse order (string reverse delegates here).
ExpressionPtr BindArrayReverse(std::vector<ExpressionPtr> arguments);

}  // namespace silt::expr::internal
