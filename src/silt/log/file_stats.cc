#include "silt/log/file_stats.h"

#include <simdjson.h>

#include <charconv>

#include "silt/base/check.h"
#include "silt/error.h"
#include "silt/log/json_text_internal.h"

namespace silt::log {

namespace {

constexpr char kPathSeparator = '\x1f';

std::string JoinColumnPath(const std::vector<std::string>& path) {
  std::string joined;
  for (const auto& part : path) {
    if (!joined.empty()) joined.push_back(kPathSeparator);
    joined += part;
  }
  return joined;
}

[[noreturn]] void FailStats(std::string_view path, std::string message) {
  SILT_THROW(DELTA_INVALID_STATS, {{"path", std::string(path)}, {"message", std::move(message)}});
}

// Flattens nested objects into path -> raw JSON value.
void Flatten(simdjson::dom::object object, const std::string& prefix,
             std::map<std::string, std::string>& out) {
  for (auto field : object) {
    std::string key = prefix.empty() ? std::string(field.key)
                                     : prefix + kPathSeparator + std::string(field.key);
    simdjson::dom::object nested;
    if (field.value.get_object().get(nested) == simdjson::SUCCESS) {
      Flatten(nested, key, out);
    } else {
      out[key] = internal::ElementJson(field.value);
    }
  }
}

}  // namespace

FileStats FileStats::Parse(std::string_view json, std::string_view path) {
  FileStats stats;
  simdjson::dom::parser parser;
  simdjson::dom::element element;
  if (parser.parse(json.data(), json.size()).get(element) != simdjson::SUCCESS) {
    FailStats(path, "malformed JSON");
  }
  simdjson::dom::object object;
  if (element.get_object().get(object) != simdjson::SUCCESS) FailStats(path, "not a JSON object");
  for (auto field : object) {
    std::string_view key = field.key;
    if (field.value.is_null()) continue;
    if (key == "numRecords") {
      stats.num_records_ = internal::ElementInt64(field.value);
      if (!stats.num_records_) FailStats(path, "numRecords is not an integer");
    } else if (key == "tightBounds") {
      bool value = true;
      if (field.value.get_bool().get(value) != simdjson::SUCCESS) {
        FailStats(path, "tightBounds is not a boolean");
      }
      stats.tight_bounds_ = value;
    } else if (key == "minValues" || key == "maxValues" || key == "nullCount") {
      simdjson::dom::object nested;
      if (field.value.get_object().get(nested) != simdjson::SUCCESS) {
        FailStats(path, std::string(key) + " is not an object");
      }
      if (key == "nullCount") {
        std::map<std::string, std::string> raw;
        Flatten(nested, "", raw);
        for (const auto& [column, text] : raw) {
          // Non-integer entries (e.g. for map columns in some writers) carry nothing usable.
          int64_t count = 0;
          auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
          if (error == std::errc() && end == text.data() + text.size()) {
            stats.null_counts_[column] = count;
          }
        }
      } else {
        Flatten(nested, "", key == "minValues" ? stats.min_values_ : stats.max_values_);
      }
    }
  }
  return stats;
}

std::optional<Scalar> FileStats::Convert(const std::string& json_value, const DataType& type) {
  if (json_value.empty() || json_value == "null") return std::nullopt;
  std::string text = json_value;
  bool quoted = text.size() >= 2 && text.front() == '"' && text.back() == '"';
  if (quoted) {
    // Re-read through the JSON parser to undo escapes.
    simdjson::dom::parser parser;
    std::string_view unescaped;
    if (parser.parse(json_value).get_string().get(unescaped) != simdjson::SUCCESS) {
      return std::nullopt;
    }
    text = std::string(unescaped);
  }
  switch (type.id()) {
    case TypeId::kString:
    case TypeId::kDate:
    case TypeId::kTimestamp:
    case TypeId::kTimestampNtz:
      if (!quoted) return std::nullopt;
      break;
    case TypeId::kByte:
    case TypeId::kShort:
    case TypeId::kInteger:
    case TypeId::kLong:
    case TypeId::kFloat:
    case TypeId::kDouble:
    case TypeId::kDecimal:
      // Numbers; NaN/Infinity may appear quoted from some writers.
      break;
    default:
      return std::nullopt;  // no min/max for booleans, binary and nested types
  }
  try {
    if (type.id() == TypeId::kTimestampNtz) {
      // Some writers give timestamp_ntz stats an offset or 'Z'; the wall time is what counts.
      auto value = ParseTimestampWithOffset(text);
      return value ? std::optional<Scalar>(*value) : std::nullopt;
    }
    if (type.id() == TypeId::kInteger || type.id() == TypeId::kLong || type.id() == TypeId::kShort ||
        type.id() == TypeId::kByte) {
      // Integer stats may be written as 1.0 by some writers; accept integral doubles.
      if (text.find_first_of(".eE") != std::string::npos) {
        auto value = ParseDecimalText(text, 0);
        if (!value || *value > INT64_MAX || *value < INT64_MIN) return std::nullopt;
        return Scalar(static_cast<int64_t>(*value));
      }
    }
    return ParsePartitionValue(type, text, "stats");
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<Scalar> FileStats::Min(const std::vector<std::string>& column_path,
                                     const DataType& type) const {
  return Bounds(column_path, type).first;
}

std::optional<Scalar> FileStats::Max(const std::vector<std::string>& column_path,
                                     const DataType& type) const {
  return Bounds(column_path, type).second;
}

std::pair<std::optional<Scalar>, std::optional<Scalar>> FileStats::Bounds(
    const std::vector<std::string>& column_path, const DataType& type) const {
  std::string key = JoinColumnPath(column_path);
  std::optional<Scalar> min;
  std::optional<Scalar> max;
  if (auto it = min_values_.find(key); it != min_values_.end()) min = Convert(it->second, type);
  if (auto it = max_values_.find(key); it != max_values_.end()) max = Convert(it->second, type);
  // A minimum above the maximum bounds nothing (a buggy writer or a damaged log): data skipping
  // must not trust either side of it to rule a file out.
  if (min && max && CompareScalars(*min, *max) > 0) return {std::nullopt, std::nullopt};
  return {std::move(min), std::move(max)};
}

std::optional<int64_t> FileStats::NullCount(const std::vector<std::string>& column_path) const {
  auto it = null_counts_.find(JoinColumnPath(column_path));
  if (it == null_counts_.end()) return std::nullopt;
  return it->second;
}

}  // namespace silt::log
