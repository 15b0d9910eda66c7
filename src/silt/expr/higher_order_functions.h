#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "silt/expr/expression.h"

/// Spark's higher-order functions: transform, filter, exists, forall, aggregate/reduce,
/// zip_with, map_filter, map_zip_with, transform_keys, transform_values and array_sort, each
/// taking lambda functions (`x -> x + 1`, `(acc, x) -> acc + x`).
///
/// A bound lambda is a body over its own input: columns 0..p-1 are its parameters and columns
/// p.. the values it captures from the enclosing scope (outer columns, outer lambda variables,
/// aggregate results). The captured values are ordinary arguments of the call, after the value
/// arguments, so plan rewrites (column pruning, filter pushdown, aggregate placeholders) see and
/// remap them like any other argument, while the body stays untouched. One capture list serves
/// every lambda of a call.
///
/// Evaluation is vectorised: the arrays (or maps) of all rows of a batch are flattened into one
/// batch of elements, each element remembering the row it came from; captured values are
/// gathered to the elements with TakeRows, the body is evaluated once over that batch, and the
/// results are cut back into rows. aggregate folds all rows in lock step (one evaluation per
/// element position), and array_sort runs a merge sort whose comparisons of all rows are
/// evaluated together, one batch per merge step.
namespace silt::expr {

/// One parameter of a lambda: the name it is written with (for plan text), its type and
/// whether it may be NULL.
struct LambdaParameter {
  std::string name;
  DataTypePtr type;
  bool nullable = true;
};

/// A bound lambda function; see the namespace comment for the columns `body` reads.
struct LambdaFunction {
  std::vector<LambdaParameter> parameters;
  ExpressionPtr body;
};

/// True for the names of the higher-order functions (lower case).
bool IsHigherOrderFunction(std::string_view name);

/// Checks the number of arguments of higher-order function `name` (WRONG_NUM_ARGS) and returns,
/// per argument, whether it takes a lambda function.
std::vector<bool> LambdaArgumentPositions(std::string_view name, size_t num_arguments);

/// True for a value argument that Spark evaluates only for the rows that need it: aggregate's
/// start value, skipped for NULL arrays. The binder binds it like a lambda without parameters
/// (its body reads captured values) and passes that body at the argument's position.
bool IsLazyArgument(std::string_view name, size_t position);

/// Checks and coerces the value arguments of `name` in place (the lambda positions hold null):
/// arrays where arrays go, maps where maps go, map_zip_with's key types widened to one type.
/// Throws DATATYPE_MISMATCH naming the argument.
void PrepareValueArguments(std::string_view name, std::vector<ExpressionPtr>& arguments);

/// The parameters (type and nullability, named `names`) of the lambda at argument `position`,
/// given the prepared value arguments. `names` lists the parameters the lambda declares; an
/// ordinary expression in a lambda position passes `hidden` = true and gets the parameters it
/// cannot name. Throws INVALID_LAMBDA_FUNCTION_CALL when the lambda declares a number of
/// parameters the function does not pass.
std::vector<LambdaParameter> LambdaParameters(std::string_view name, size_t position,
                                              const std::vector<ExpressionPtr>& arguments,
                                              const std::vector<std::string>& names, bool hidden);

/// The call of `name` with the prepared value arguments (lambda positions null, lazy arguments
/// as their bodies), the bound lambdas in argument order, and the values the lambdas capture. Checks the lambdas' result
/// types (DATATYPE_MISMATCH: a BOOLEAN predicate for filter, exists, forall and map_filter, an
/// INT comparator for array_sort, aggregate's merge result of the start value's type, map keys
/// that are not maps). array_sort with one argument sorts ascending with NULLs last.
ExpressionPtr HigherOrderCall(std::string_view name, std::vector<ExpressionPtr> arguments,
                              std::vector<LambdaFunction> lambdas, std::vector<ExpressionPtr> captures);

}  // namespace silt::expr
