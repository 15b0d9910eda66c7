#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "silt/exec/aggregate_function.h"
#include "silt/expr/eval_context.h"
#include "silt/vector/vector.h"

/// Per-group states of one aggregate call, updated a batch at a time with typed loops.
namespace silt::exec {

/// The state of one aggregate for every group of a hash aggregation (or of a window frame).
/// Group ids are dense (0 .. num_groups-1). Not thread-safe; parallel aggregation keeps one per
/// thread and merges them.
class Accumulator {
 public:
  virtual ~Accumulator() = default;

  /// Makes room for `num_groups` groups (new groups start empty); never shrinks.
  virtual void Resize(size_t num_groups) = 0;
  /// Adds rows [0, num_rows) of `arguments` (the call's evaluated arguments) to the groups in
  /// `groups`; only rows whose `selected` byte is non-zero count (null = every row). Throws
  /// ARITHMETIC_OVERFLOW for integral sum overflow under ANSI.
  virtual void Update(const std::vector<VectorPtr>& arguments, const uint32_t* groups,
                      const uint8_t* selected, int64_t num_rows, expr::EvalContext& context) = 0;
  /// Adds `other`'s group g (for g < other_groups) into this accumulator's group group_map[g].
  /// `other` comes from MakeAccumulator with the same call.
  virtual void Merge(Accumulator& other, const uint32_t* group_map, size_t other_groups,
                     expr::EvalContext& context) = 0;
  /// Whether MergeGroups may be called: the state is kept per group, so that groups can be
  /// merged one by one. False for states kept as lists of values with their groups
  /// (collect_list, percentiles, listagg, DISTINCT), which merge whole with Merge only.
  virtual bool MergesGroups() const { return false; }
  /// Adds `other`'s group sources[i] into this accumulator's group targets[i], for i < count
  /// (sources null: other's group i). Only reads `other`, so that several threads may each
  /// merge different groups of one `other` into accumulators of their own at once (a hash
  /// aggregation merges its threads' tables partition by partition). Only when MergesGroups().
  virtual void MergeGroups(Accumulator& other, const uint32_t* sources, const uint32_t* targets, size_t count,
                           expr::EvalContext& context);
  /// The result of every group [0, num_groups) as a vector of the call's result type. Decimal
  /// overflow throws ARITHMETIC_OVERFLOW under ANSI and gives NULL otherwise. Call once, unless
  /// RepeatableFinalize().
  virtual VectorPtr Finalize(size_t num_groups, expr::EvalContext& context) = 0;
  /// Whether Finalize leaves the state as it was, so that more Update calls and another
  /// Finalize may follow (a window's running frame reads its result after every row). Default:
  /// false (the accumulator hands its values over to the result).
  virtual bool RepeatableFinalize() const { return false; }

  /// Sharing a running state: sum and avg of one argument both keep a sum and a count per
  /// group. When `twin` (another accumulator of the same table, over the same argument, with
  /// neither FILTER nor DISTINCT) keeps the state this one needs, this returns true, and from
  /// then on the caller neither updates nor merges this accumulator: Finalize reads `twin`'s
  /// state, which must then be complete (and `twin` alive). Default: false.
  virtual bool ShareStateOf(Accumulator& twin) {
    (void)twin;
    return false;
  }

 protected:
  static size_t SourceGroup(const uint32_t* sources, size_t i) { return sources == nullptr ? i : sources[i]; }
};

/// An accumulator for `call`, whose arguments have `argument_types` (the signature's types from
/// ResolveAggregate). DISTINCT and ignore_nulls are honoured; FILTER is the caller's (through
/// `selected`).
std::unique_ptr<Accumulator> MakeAccumulator(const AggregateCall& call,
                                             const std::vector<DataTypePtr>& argument_types);

}  // namespace silt::exec
