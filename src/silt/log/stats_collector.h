#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "silt/log/partition_values.h"
#include "silt/types/data_type.h"
#include "silt/vector/batch.h"

namespace silt::log {

/// Whether statistics keep min/max bounds for a column of this type (Delta's
/// SkippingEligibleDataType: numbers, decimals, dates, timestamps, strings); every leaf type gets
/// a null count.
bool KeepsStatsBounds(TypeId id);

/// Options of StatsCollector (protocol §8).
struct StatsOptions {
  /// Leaf columns (in schema order, nested struct fields counted one by one) that get
  /// statistics: `delta.dataSkippingNumIndexedCols`, default 32; -1 means all.
  int num_indexed_columns = 32;
  /// Longer strings are truncated to this many characters (code points).
  int string_prefix_length = 32;
  /// Write `"tightBounds":true` (Spark does when deletion vectors are enabled).
  bool write_tight_bounds = false;
};

/// Computes a data file's Delta statistics from the vectors written to it: numRecords, and per
/// indexed leaf column minValues / maxValues (numbers, decimals, dates, timestamps, strings) and
/// nullCount (every leaf type). Bounds are always valid: timestamps are cut to milliseconds
/// (min rounded down, max up), long strings to a prefix (max: the prefix followed by U+10FFFF,
/// as Spark writes), and a float column holding NaN or an infinity gets no min/max. Not
/// thread-safe.
class StatsCollector {
 public:
  /// `schema` is the data file's schema (physical names, partition columns excluded).
  StatsCollector(const Schema& schema, StatsOptions options = {});

  /// Adds the rows of `batch`, whose schema must be the collector's.
  void Update(const Batch& batch);
  int64_t num_records() const { return num_records_; }
  /// The statistics as the JSON text of `add.stats`.
  std::string ToJson() const;

 private:
  struct Leaf {
    std::vector<size_t> field_indexes;  ///< Path from the top-level field through structs.
    std::vector<std::string> names;
    DataTypePtr type;
    bool has_bounds = false;  ///< min/max are kept for this type.
    bool poisoned = false;    ///< NaN/infinity seen: no min/max.
    int64_t null_count = 0;
    std::optional<Scalar> min;
    std::optional<Scalar> max;
  };
  void UpdateLeaf(Leaf& leaf, const Batch& batch);

  StatsOptions options_;
  std::vector<Leaf> leaves_;
  int64_t num_records_ = 0;
};

/// Truncates `text` for a min bound: its first `max_characters` UTF-8 characters.
std::string TruncateMinString(std::string_view text, int max_characters);
/// Truncates `text` for a max bound: unchanged when short enough, otherwise a prefix followed by
/// U+10FFFF so that it stays >= `text` in byte order; nullopt when no such bound is shorter.
std::optional<std::string> TruncateMaxString(std::string_view text, int max_characters);

}  // namespace silt::log
