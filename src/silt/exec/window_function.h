#pragma once

#include <optional>
#include <string_view>

/// The functions a Window operator computes, by name.
namespace silt::exec {

enum class WindowFunctionKind {
  // Ranking and offset functions: they ignore the frame.
  kRowNumber,
  kRank,
  kDenseRank,
  kPercentRank,
  kCumeDist,
  kNtile,
  kLag,
  kLead,
  // Frame functions.
  kFirst,  ///< first, first_value, any_value
  kLast,   ///< last, last_value
  kNthValue,
  kCount,
  kCountIf,
  kSum,
  kAvg,  ///< avg, mean
  kMin,
  kMax,
  kStddevSamp,  ///< stddev, stddev_samp, std
  kStddevPop,
  kVarSamp,  ///< variance, var_samp
  kVarPop,
  kBoolAnd,  ///< bool_and, every
  kBoolOr,   ///< bool_or, any, some
};

/// The kind of window function `name` (any case), or nullopt for the aggregates that a Window
/// operator runs through their accumulator (collect_list, percentile, corr, ...).
std::optional<WindowFunctionKind> WindowFunctionKindOf(std::string_view name);

/// Whether the kind ignores the frame (ranking, lag, lead).
bool IgnoresFrame(WindowFunctionKind kind);

}  // namespace silt::exec
