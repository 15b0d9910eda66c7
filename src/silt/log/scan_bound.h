#pragma once

// A bound on one column that the consumer of a scan tightens while the scan runs.

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "silt/log/scan_predicate.h"

namespace silt::log {

/// `column >= value` or `column <= value`, with a value that appears while the scan runs and
/// only ever tightens: an ORDER BY ... LIMIT n over a scan sets it to its n-th best key once it
/// holds n rows, since no row outside the bound can enter them any more. The scan reads the
/// current bound before each row group: it skips row groups whose statistics rule the bound
/// out and decodes the other columns only for the rows within it (as `filter_rows` does for its
/// predicates). Rows with a NULL in the column are outside the bound, unless `keeps_nulls` (an
/// order that puts NULLs first): then the bound applies only to row groups whose statistics
/// prove they hold no NULL there. Shared between threads.
class ScanBound {
 public:
  /// `op` is kGreaterOrEqual or kLessOrEqual. `keep`, when positive, is how many rows the
  /// consumer keeps of all those within the bound, every row the scan returns reaching it (no
  /// filter on the way, in the scan or after it): a file of several row groups read with many
  /// columns then first reads the bound's column alone and skips the row groups and rows outside
  /// its own keep-th best value (no file's row outside its own best `keep` can be kept).
  ScanBound(std::string column, ScanPredicate::Op op, bool keeps_nulls = false, int64_t keep = 0)
      : column_(std::move(column)), op_(op), keeps_nulls_(keeps_nulls), keep_(keep) {}

  const std::string& column() const { return column_; }
  ScanPredicate::Op op() const { return op_; }
  bool keeps_nulls() const { return keeps_nulls_; }
  int64_t keep() const { return keep_; }

  /// Sets the bound's value (ScanPredicate's text form of the column's type).
  void Set(std::string value) {
    std::lock_guard lock(mutex_);
    value_ = std::move(value);
  }

  /// The predicate the scan may apply now; nullopt until the first Set.
  std::optional<ScanPredicate> Current() const {
    std::lock_guard lock(mutex_);
    if (!value_) return std::nullopt;
    return ScanPredicate{column_, op_, *value_};
  }

 private:
  const std::string column_;
  const ScanPredicate::Op op_;
  const bool keeps_nulls_;
  const int64_t keep_;
  mutable std::mutex mutex_;
  std::optional<std::string> value_;
};

}  // namespace silt::log
