#pragma once

#include <optional>
#include <string_view>

/// The aggregate functions by kind, shared by name resolution and the aggregation kernels.
namespace silt::exec {

enum class AggregateKind {
  kCount,
  kCountIf,
  kSum,
  kAvg,
  kMin,
  kMax,
  kMinBy,
  kMaxBy,
  kFirst,
  kLast,
  kAnyValue,
  kCollectList,
  kCollectSet,
  kApproxCountDistinct,
  kStddevSamp,
  kStddevPop,
  kVarSamp,
  kVarPop,
  kBoolOr,
  kBoolAnd,
  // Order statistics over every value of a group.
  kPercentile,        ///< percentile, percentile_cont (interpolated, DOUBLE)
  kPercentileDisc,    ///< percentile_disc (the first value whose cumulative share reaches p)
  kPercentileApprox,  ///< percentile_approx, approx_percentile (an input value)
  kMedian,
  kMode,
  // Higher moments and two-variable statistics.
  kSkewness,
  kKurtosis,
  kCorr,
  kCovarPop,
  kCovarSamp,
  kRegrCount,
  kRegrAvgX,
  kRegrAvgY,
  kRegrSxx,
  kRegrSyy,
  kRegrSxy,
  kRegrSlope,
  kRegrIntercept,
  kRegrR2,
  // Overflow gives NULL instead of an error.
  kTrySum,
  kTryAvg,
  // Bitwise folds of integral values.
  kBitAnd,
  kBitOr,
  kBitXor,
  kListAgg,  ///< listagg, string_agg
  // Sketches of a group's values.
  kHistogramNumeric,  ///< histogram_numeric: Ben-Haim and Tom-Tov's streaming histogram
  kCountMinSketch,    ///< count_min_sketch: Spark's CountMinSketch, serialized
};

/// The kind of aggregate `name` (any case, aliases included), or nullopt.
std::optional<AggregateKind> AggregateKindOf(std::string_view name);

}  // namespace silt::exec
