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
};

/// The kind of aggregate `name` (any case, aliases included), or nullopt.
std::optional<AggregateKind> AggregateKindOf(std::string_view name);

}  // namespace silt::exec
