#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "silt/expr/eval_context.h"
#include "silt/expr/expression.h"
#include "silt/types/data_type.h"

/// Aggregate functions: names, type resolution and the call descriptions operators run.
namespace silt::exec {

/// Whether `name` (any case) is an aggregate function: count, sum, avg/mean, min, max, min_by,
/// max_by, first/first_value, last/last_value, any_value, collect_list/array_agg, collect_set,
/// approx_count_distinct, stddev/stddev_samp/std, stddev_pop, variance/var_samp, var_pop,
/// bool_or/any/some, bool_and/every, count_if, percentile, percentile_cont, percentile_disc,
/// percentile_approx/approx_percentile, median, mode, skewness, kurtosis, corr, covar_pop,
/// covar_samp, regr_count, regr_avgx, regr_avgy, regr_sxx, regr_syy, regr_sxy, regr_slope,
/// regr_intercept, regr_r2, try_sum, try_avg, bit_and, bit_or, bit_xor, listagg/string_agg,
/// histogram_numeric, count_min_sketch.
bool IsAggregateFunction(std::string_view name);

/// The argument and result types of an aggregate call, as Spark resolves them.
struct AggregateSignature {
  /// Types the arguments must be cast to before the call (same count as the arguments).
  std::vector<DataTypePtr> argument_types;
  DataTypePtr result_type;
  /// Whether the result can be NULL (count and count_if never are).
  bool nullable = true;
};
/// Resolves `name` over arguments of `argument_types` (count(*) = no arguments). Spark's result
/// types: count BIGINT; sum of integrals BIGINT, of decimal(p,s) decimal(min(38,p+10),s), of
/// floats DOUBLE; avg DOUBLE, of decimal(p,s) decimal(p+4,s+4) (adjusted to 38); stddev and
/// variance DOUBLE; min/max/first/last/any_value the argument's type; collect_* ARRAY;
/// percentile/median/percentile_cont/percentile_disc DOUBLE (of an interval: the interval type;
/// ARRAY of it for an array of percentages); percentile_approx the value's type (or ARRAY);
/// mode the value's type; the moments, correlations and regressions DOUBLE (regr_count BIGINT);
/// try_sum/try_avg as sum/avg (NULL where those overflow); bit_* the integral argument's type;
/// listagg(value [, delimiter [, sort keys...]]) STRING or BINARY as its value;
/// histogram_numeric ARRAY<STRUCT<x, y: DOUBLE>> with x of the value's type; count_min_sketch
/// BINARY.
/// Throws WRONG_NUM_ARGS or DATATYPE_MISMATCH (e.g. sum of a STRING under ANSI), and
/// UNRESOLVED_ROUTINE for a name that is not an aggregate.
AggregateSignature ResolveAggregate(std::string_view name,
                                    const std::vector<DataTypePtr>& argument_types, bool distinct);

/// One aggregate to compute per group.
struct AggregateCall {
  std::string function;  ///< lower-case canonical name (e.g. "avg" for mean)
  /// Arguments over the aggregate's input columns, already cast to the signature's types.
  std::vector<expr::ExpressionPtr> arguments;
  bool distinct = false;
  /// FILTER (WHERE ...): only rows where it is TRUE are aggregated; null = every row.
  expr::ExpressionPtr filter;
  /// first/last/any_value(x, true), first_value(x) IGNORE NULLS.
  bool ignore_nulls = false;
  /// percentile_cont/percentile_disc ... WITHIN GROUP (ORDER BY x DESC): percentages count from
  /// the largest value. mode: ties go to the largest value (Spark's mode() WITHIN GROUP (ORDER
  /// BY x)); otherwise to the smallest (mode(x), mode(x, true), ORDER BY x DESC).
  bool descending = false;
  /// listagg ... WITHIN GROUP (ORDER BY k1, ...): the last within_group_order.size() arguments
  /// are the sort keys, each (ascending, nulls_first).
  std::vector<std::pair<bool, bool>> within_group_order;
  DataTypePtr result_type;
  bool nullable = true;
  /// For EXPLAIN: "sum(amount#3)".
  std::string ToString() const;
};

/// Whether `name` (any case) takes its value through WITHIN GROUP (ORDER BY ...):
/// percentile_cont, percentile_disc and mode (where it is optional).
bool IsInverseDistributionFunction(std::string_view name);

/// Checks and folds the arguments of `call` that Spark requires to be constant: the percentage
/// (or array of percentages) of the percentile functions, the accuracy of percentile_approx and
/// mode's deterministic flag, histogram_numeric's number of bins and count_min_sketch's eps,
/// confidence and seed. A constant expression becomes a literal; an expression over
/// columns, a NULL percentage or one outside [0, 1], and an accuracy outside (0, 2147483647]
/// throw DATATYPE_MISMATCH with Spark's sub-class in the message, naming the call by `sql` (its
/// text as written, as Spark names it; the call's own text when empty). Other calls are
/// unchanged.
void PrepareAggregateArguments(AggregateCall& call, expr::EvalContext& context, const std::string& sql = "");

}  // namespace silt::exec
