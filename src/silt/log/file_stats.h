#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "silt/log/partition_values.h"
#include "silt/types/data_type.h"

namespace silt::log {

/// The statistics of one data file (`add.stats`, protocol §8), parsed on demand from the raw
/// JSON kept on the AddFile. Column paths are physical names (nested fields as a path).
class FileStats {
 public:
  /// Parses `json`. Throws DELTA_INVALID_STATS naming `path` when it is not a JSON object or a
  /// known field has the wrong type.
  static FileStats Parse(std::string_view json, std::string_view path);

  /// Physical row count (ignoring deletion vectors), when recorded.
  std::optional<int64_t> num_records() const { return num_records_; }
  /// False when min/max are only bounds (absent means true).
  bool tight_bounds() const { return tight_bounds_; }

  /// The minimum or maximum of column `column_path` read as `type`; nullopt when not recorded,
  /// not representable (a value of another JSON type) or min > max. Timestamps accept offsets.
  std::optional<Scalar> Min(const std::vector<std::string>& column_path, const DataType& type) const;
  std::optional<Scalar> Max(const std::vector<std::string>& column_path, const DataType& type) const;
  /// The null count of `column_path`, when recorded.
  std::optional<int64_t> NullCount(const std::vector<std::string>& column_path) const;

 private:
  static std::optional<Scalar> Convert(const std::string& json_value, const DataType& type);
  std::pair<std::optional<Scalar>, std::optional<Scalar>> Bounds(
      const std::vector<std::string>& column_path, const DataType& type) const;

  std::optional<int64_t> num_records_;
  bool tight_bounds_ = true;
  // Column path joined with '\x1f' -> the raw JSON text of the value.
  std::map<std::string, std::string> min_values_;
  std::map<std::string, std::string> max_values_;
  std::map<std::string, int64_t> null_counts_;
};

}  // namespace silt::log
