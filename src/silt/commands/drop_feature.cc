#include "silt/commands/drop_feature.h"

#include <algorithm>
#include <set>
#include <vector>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_features.h"

namespace silt::commands::internal {

namespace {

// Delta's removable features (RemovableFeature), and which of them leave traces in the history
// that readers must not meet (reader-writer features: requiresHistoryProtection).
constexpr std::string_view kRemovable[] = {
    "checkConstraints", "columnMapping",       "deletionVectors",      "rowTracking",
    "domainMetadata",   "v2Checkpoint",        "typeWidening",         "typeWidening-preview",
    "inCommitTimestamp", "vacuumProtocolCheck", "checkpointProtection"};

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

void Erase(std::optional<std::vector<std::string>>& names, std::string_view name) {
  if (!names) return;
  names->erase(std::remove(names->begin(), names->end(), name), names->end());
}

void RemoveProperty(log::Metadata& metadata, std::string_view key) {
  auto& configuration = metadata.configuration;
  configuration.erase(std::remove_if(configuration.begin(), configuration.end(),
                                     [&](const auto& entry) { return entry.first == key; }),
                      configuration.end());
}

// `protocol` without `name`, at legacy versions when the features left are exactly what legacy
// versions imply (Delta's denormalize / normalize around removeFeature).
log::Protocol WithoutFeature(const log::Protocol& protocol, const std::string& name) {
  log::Protocol result = protocol;
  if (result.min_writer_version < 7) {
    // A legacy protocol lists its features first.
    result.writer_features = log::EffectiveWriterFeatures(protocol);
    result.min_writer_version = 7;
  }
  if (result.min_reader_version < 3 && result.min_reader_version > 1) {
    result.reader_features = log::EffectiveReaderFeatures(protocol);
    result.min_reader_version = 3;
  }
  Erase(result.writer_features, name);
  Erase(result.reader_features, name);
  if (result.min_reader_version == 3 && (!result.reader_features || result.reader_features->empty())) {
    result.min_reader_version = 1;
    result.reader_features.reset();
  }
  if (result.min_reader_version == 1) {
    std::vector<std::string> left = result.writer_features.value_or(std::vector<std::string>{});
    std::sort(left.begin(), left.end());
    for (int32_t version = 1; version <= 6; ++version) {
      std::vector<std::string> implied =
          log::EffectiveWriterFeatures(log::Protocol{1, version, std::nullopt, std::nullopt});
      std::sort(implied.begin(), implied.end());
      if (implied == left) {
        result.min_writer_version = version;
        result.writer_features.reset();
        break;
      }
    }
  }
  return result;
}

}  // namespace

void DropTableFeature(const std::shared_ptr<const log::Snapshot>& snapshot, log::Transaction& txn,
                      log::Metadata& metadata, const std::string& name, bool truncate_history) {
  const log::Protocol& protocol = snapshot->protocol();
  std::vector<std::string> present = log::EffectiveWriterFeatures(protocol);
  for (const std::string& reader : log::EffectiveReaderFeatures(protocol)) {
    if (!Contains(present, reader)) present.push_back(reader);
  }
  // Feature names are matched ignoring case, as Delta looks them up.
  std::string feature = name;
  for (const std::string& candidate : present) {
    if (EqualsIgnoreCase(candidate, name)) feature = candidate;
  }
  const log::TableFeatureInfo* info = log::FindTableFeature(feature);
  if (info == nullptr) {
    for (std::string_view known : kRemovable) {
      if (EqualsIgnoreCase(known, name)) info = log::FindTableFeature(known);
    }
  }
  bool is_present = Contains(present, feature);
  if (!is_present && AsciiLower(name).rfind("delta.", 0) == 0) {
    SILT_THROW(DELTA_FEATURE_DROP_FEATURE_IS_DELTA_PROPERTY, {{"property", name}});
  }
  if (info == nullptr) SILT_THROW(DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE, {{"feature", name}});
  feature = std::string(info->name);
  if (!is_present) SILT_THROW(DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT, {{"feature", feature}});
  bool removable = std::find(std::begin(kRemovable), std::end(kRemovable), feature) != std::end(kRemovable);
  if (!removable) SILT_THROW(DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE, {{"feature", feature}});
  const bool history_protection = info->reader_writer;
  if (truncate_history && !history_protection) {
    SILT_THROW(DELTA_FEATURE_DROP_HISTORY_TRUNCATION_NOT_ALLOWED, {});
  }
  // Features that need this one (Delta's requiredFeatures).
  if (feature == "domainMetadata") {
    std::string dependents;
    for (const char* dependent : {"rowTracking", "clustering"}) {
      if (Contains(present, dependent)) dependents += (dependents.empty() ? "" : ", ") + std::string(dependent);
    }
    if (!dependents.empty()) {
      SILT_THROW(DELTA_FEATURE_DROP_DEPENDENT_FEATURE,
                 {{"feature", feature}, {"dependentFeatures", dependents}});
    }
  }
  if (history_protection) {
    SILT_THROW(NOT_IMPLEMENTED,
               {{"feature", "DROP FEATURE " + feature +
                                " (a reader-writer feature: dropping it needs barrier checkpoints and "
                                "the checkpointProtection feature)"}});
  }

  if (feature == "checkConstraints") {
    std::string constraints;
    for (const auto& [key, value] : metadata.configuration) {
      if (key.rfind("delta.constraints.", 0) == 0) {
        constraints += (constraints.empty() ? "" : ", ") + key.substr(std::string("delta.constraints.").size());
      }
    }
    if (!constraints.empty()) {
      SILT_THROW(UNSUPPORTED_FEATURE,
                 {{"message", "Dropping the checkConstraints feature while the table has CHECK "
                              "constraints (" + constraints + "); drop them first"}});
    }
  } else if (feature == "inCommitTimestamp") {
    for (const char* key : {"delta.enableInCommitTimestamps", "delta.inCommitTimestampEnablementVersion",
                            "delta.inCommitTimestampEnablementTimestamp"}) {
      RemoveProperty(metadata, key);
    }
  } else if (feature == "rowTracking") {
    for (std::string_view key : {std::string_view("delta.enableRowTracking"),
                                 std::string_view("delta.rowTrackingSuspended"),
                                 log::kMaterializedRowIdColumnKey,
                                 log::kMaterializedRowCommitVersionColumnKey}) {
      RemoveProperty(metadata, key);
    }
    // No file keeps row ids, and the high water mark goes with the feature.
    txn.RecordReadWholeTable();
    for (const log::AddFile& file : snapshot->files()) {
      if (!file.base_row_id && !file.default_row_commit_version) continue;
      log::AddFile recommitted = file;
      recommitted.base_row_id.reset();
      recommitted.default_row_commit_version.reset();
      recommitted.data_change = false;
      txn.Add(std::move(recommitted));
    }
    auto domain = snapshot->domain_metadata().find(std::string(log::kRowTrackingDomain));
    if (domain != snapshot->domain_metadata().end()) {
      log::DomainMetadata removed = domain->second;
      removed.removed = true;
      txn.AddDomainMetadata(std::move(removed));
    }
  } else if (feature == "domainMetadata") {
    // A commit without the feature may not carry domainMetadata actions, so domains would have
    // to go in a commit of their own first (silt's only domain, delta.rowTracking, goes with its
    // feature).
    std::string domains;
    for (const auto& [domain_name, domain] : snapshot->domain_metadata()) {
      domains += (domains.empty() ? "" : ", ") + domain_name;
    }
    if (!domains.empty()) {
      SILT_THROW(NOT_IMPLEMENTED,
                 {{"feature", "DROP FEATURE domainMetadata while the table has domains (" + domains + ")"}});
    }
  } else if (feature == "checkpointProtection") {
    SILT_THROW(NOT_IMPLEMENTED, {{"feature", "DROP FEATURE checkpointProtection"}});
  }
  txn.UpdateProtocol(WithoutFeature(protocol, feature));
}

}  // namespace silt::commands::internal
