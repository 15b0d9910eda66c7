#include "silt/log/table_properties.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <vector>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/log/transaction.h"

namespace silt::log {
namespace {

enum class PropertyKind {
  kBoolean,
  kPositiveInt,          // checkpointInterval, randomPrefixLength
  kIndexedColumnCount,   // dataSkippingNumIndexedCols: an int >= -1
  kInterval,             // retention durations: days and smaller units, not negative
  kReaderVersion,
  kWriterVersion,
  kIsolationLevel,
  kCheckpointPolicy,
  kColumnMappingMode,
  kUniversalFormats,
  kByteSize,             // targetFileSize
  kNotUserSettable,      // columnMapping.maxColumnId: Delta keeps it itself
};

struct PropertyRule {
  std::string_view key;  // Delta's spelling
  PropertyKind kind;
};

// The table properties Delta validates when a statement sets them (DeltaConfigs), with the
// parser and rule of each.
constexpr PropertyRule kRules[] = {
    {"delta.appendOnly", PropertyKind::kBoolean},
    {"delta.autoOptimize", PropertyKind::kBoolean},
    {"delta.autoOptimize.optimizeWrite", PropertyKind::kBoolean},
    {"delta.checkpoint.writeStatsAsJson", PropertyKind::kBoolean},
    {"delta.checkpoint.writeStatsAsStruct", PropertyKind::kBoolean},
    {"delta.checkpointInterval", PropertyKind::kPositiveInt},
    {"delta.checkpointPolicy", PropertyKind::kCheckpointPolicy},
    {"delta.checkpointRetentionDuration", PropertyKind::kInterval},
    {"delta.columnMapping.maxColumnId", PropertyKind::kNotUserSettable},
    {"delta.columnMapping.mode", PropertyKind::kColumnMappingMode},
    {"delta.compatibility.symlinkFormatManifest.enabled", PropertyKind::kBoolean},
    {"delta.dataSkippingNumIndexedCols", PropertyKind::kIndexedColumnCount},
    {"delta.deletedFileRetentionDuration", PropertyKind::kInterval},
    {"delta.dropFeatureTruncateHistory.retentionDuration", PropertyKind::kInterval},
    {"delta.enableChangeDataCapture", PropertyKind::kBoolean},
    {"delta.enableChangeDataFeed", PropertyKind::kBoolean},
    {"delta.enableDeletionVectors", PropertyKind::kBoolean},
    {"delta.enableExpiredLogCleanup", PropertyKind::kBoolean},
    {"delta.enableFullRetentionRollback", PropertyKind::kBoolean},
    {"delta.enableIcebergCompatV1", PropertyKind::kBoolean},
    {"delta.enableIcebergCompatV2", PropertyKind::kBoolean},
    {"delta.enableInCommitTimestamps", PropertyKind::kBoolean},
    {"delta.enableRowTracking", PropertyKind::kBoolean},
    {"delta.enableTypeWidening", PropertyKind::kBoolean},
    {"delta.ignoreProtocolDefaults", PropertyKind::kBoolean},
    {"delta.isolationLevel", PropertyKind::kIsolationLevel},
    {"delta.logRetentionDuration", PropertyKind::kInterval},
    {"delta.minReaderVersion", PropertyKind::kReaderVersion},
    {"delta.minWriterVersion", PropertyKind::kWriterVersion},
    {"delta.randomPrefixLength", PropertyKind::kPositiveInt},
    {"delta.randomizeFilePrefixes", PropertyKind::kBoolean},
    {"delta.sampleRetentionDuration", PropertyKind::kInterval},
    {"delta.setTransactionRetentionDuration", PropertyKind::kInterval},
    {"delta.targetFileSize", PropertyKind::kByteSize},
    {"delta.universalFormat.enabledFormats", PropertyKind::kUniversalFormats},
};

constexpr std::string_view kIntervalRule =
    "needs to be provided as a calendar interval such as '2 weeks'. Months and years are not "
    "accepted. You may specify '365 days' for a year instead.";

[[noreturn]] void Invalid(std::string_view key, std::string_view value, std::string_view rule) {
  SILT_THROW(INVALID_CONFIGURATION,
             {{"value", std::string(value)}, {"key", std::string(key)}, {"reason", std::string(rule)}});
}

// Java's Integer.parseInt: an optional sign and decimal digits, within 32 bits.
std::optional<int32_t> ParseInt32(std::string_view text) {
  size_t position = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    position = 1;
  }
  if (position == text.size()) return std::nullopt;
  int64_t value = 0;
  for (; position < text.size(); ++position) {
    char c = text[position];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
    if (value > int64_t{std::numeric_limits<int32_t>::max()} + 1) return std::nullopt;
  }
  if (negative) value = -value;
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(value);
}

void CheckInterval(std::string_view key, std::string_view value) {
  // Months and years have no fixed length, so Delta refuses them outright.
  std::string lower = AsciiLower(value);
  for (std::string_view unit : {"month", "year"}) {
    if (lower.find(unit) != std::string::npos) Invalid(key, value, kIntervalRule);
  }
  int64_t ms = 0;
  try {
    ms = ParseIntervalMs(value, key);
  } catch (const Error&) {
    Invalid(key, value, kIntervalRule);
  }
  if (ms < 0) Invalid(key, value, kIntervalRule);
}

void CheckValue(const PropertyRule& rule, std::string_view value) {
  std::string_view key = rule.key;
  switch (rule.kind) {
    case PropertyKind::kBoolean: {
      std::string lower = AsciiLower(value);
      if (lower != "true" && lower != "false") Invalid(key, value, "needs to be a boolean.");
      return;
    }
    case PropertyKind::kPositiveInt: {
      std::optional<int32_t> number = ParseInt32(value);
      if (!number || *number <= 0) Invalid(key, value, "needs to be a positive integer.");
      return;
    }
    case PropertyKind::kIndexedColumnCount: {
      std::optional<int32_t> number = ParseInt32(value);
      if (!number || *number < -1) {
        Invalid(key, value, "needs to be larger than or equal to -1.");
      }
      return;
    }
    case PropertyKind::kInterval:
      CheckInterval(key, value);
      return;
    case PropertyKind::kReaderVersion: {
      std::optional<int32_t> number = ParseInt32(value);
      if (!number || *number < 1 || *number > 3) Invalid(key, value, "needs to be one of 1, 2, 3.");
      return;
    }
    case PropertyKind::kWriterVersion: {
      std::optional<int32_t> number = ParseInt32(value);
      if (!number || *number < 1 || *number > 7) {
        Invalid(key, value, "needs to be one of 1, 2, 3, 4, 5, 6, 7.");
      }
      return;
    }
    case PropertyKind::kIsolationLevel:
      // Delta names three levels; a table may be Serializable or WriteSerializable (snapshot
      // isolation is only ever chosen per commit, for rearranging commits).
      if (value != "Serializable" && value != "WriteSerializable") {
        Invalid(key, value, "must be Serializable or WriteSerializable.");
      }
      return;
    case PropertyKind::kCheckpointPolicy:
      if (value != "classic" && value != "v2") {
        Invalid(key, value, "can be one of the following: classic, v2");
      }
      return;
    case PropertyKind::kColumnMappingMode: {
      std::string lower = AsciiLower(value);
      if (lower != "none" && lower != "id" && lower != "name") {
        SILT_THROW(DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE, {{"mode", std::string(value)}});
      }
      return;
    }
    case PropertyKind::kUniversalFormats: {
      // A comma-separated list of distinct formats from {iceberg, hudi}; empty means none.
      std::set<std::string_view> seen;
      size_t start = 0;
      while (!value.empty() && start <= value.size()) {
        size_t end = std::min(value.find(',', start), value.size());
        std::string_view format = value.substr(start, end - start);
        if ((format != "iceberg" && format != "hudi") || !seen.insert(format).second) {
          Invalid(key, value,
                  "Must be a comma-separated list of formats from the list: {iceberg,hudi}.");
        }
        start = end + 1;
      }
      return;
    }
    case PropertyKind::kByteSize: {
      std::optional<int64_t> bytes = ParseByteSize(value);
      if (!bytes || *bytes <= 0) Invalid(key, value, "needs to be a positive size in bytes.");
      return;
    }
    case PropertyKind::kNotUserSettable:
      SILT_THROW(DELTA_CANNOT_MODIFY_TABLE_PROPERTY, {{"prop", std::string(key)}});
  }
}

}  // namespace

std::pair<std::string, std::string> ValidateTableProperty(std::string_view key,
                                                          std::string_view value) {
  for (const PropertyRule& rule : kRules) {
    if (!EqualsIgnoreCase(rule.key, key)) continue;
    CheckValue(rule, value);
    return {std::string(rule.key), std::string(value)};
  }
  return {std::string(key), std::string(value)};
}

StringMap ValidateTableProperties(const StringMap& properties) {
  StringMap validated;
  for (const auto& [key, value] : properties) {
    auto entry = ValidateTableProperty(key, value);
    auto same = std::find_if(validated.begin(), validated.end(),
                             [&](const auto& existing) { return existing.first == entry.first; });
    if (same != validated.end()) {
      same->second = std::move(entry.second);
    } else {
      validated.push_back(std::move(entry));
    }
  }
  return validated;
}

std::optional<int64_t> ParseByteSize(std::string_view text) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18) return std::nullopt;
  int64_t value = 0;
  for (size_t i = 0; i < digits; ++i) value = value * 10 + (text[i] - '0');
  std::string unit = AsciiLower(text.substr(digits));
  int shift = 0;
  if (unit.empty() || unit == "b") {
    shift = 0;
  } else if (unit == "k" || unit == "kb") {
    shift = 10;
  } else if (unit == "m" || unit == "mb") {
    shift = 20;
  } else if (unit == "g" || unit == "gb") {
    shift = 30;
  } else if (unit == "t" || unit == "tb") {
    shift = 40;
  } else {
    return std::nullopt;
  }
  if (value > (std::numeric_limits<int64_t>::max() >> shift)) return std::nullopt;
  return value << shift;
}

int64_t NumIndexedColumns(const Metadata& metadata) {
  const std::string* text = FindValue(metadata.configuration, "delta.dataSkippingNumIndexedCols");
  if (text == nullptr) return 32;
  try {
    return std::stoll(*text);
  } catch (const std::exception&) {
    SILT_THROW(INVALID_CONFIGURATION, {{"value", *text},
                                       {"key", "delta.dataSkippingNumIndexedCols"},
                                       {"reason", "expected an integer"}});
  }
}

}  // namespace silt::log
