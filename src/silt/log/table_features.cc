#include "silt/log/table_features.h"

#include <algorithm>
#include <array>

#include "silt/base/ascii.h"
#include "silt/base/check.h"

namespace silt::log {

namespace {

// read_supported: the snapshot, scan and checkpoint readers implement what the feature requires
// of readers. write_supported: the Transaction implements what the feature requires of writers,
// or the feature asks nothing of a commit (vacuumProtocolCheck, v2Checkpoint while silt writes no
// checkpoints). Features not write-supported are still writable while *inactive* (see IsActive):
// a legacy writer version implies them, but nothing in the table uses them.
constexpr std::array<TableFeatureInfo, 28> kFeatures = {{
    // name, reader_writer, legacy reader, legacy writer, read, write
    {"appendOnly", false, 0, 2, true, true},
    {"invariants", false, 0, 2, true, false},
    {"checkConstraints", false, 0, 3, true, false},
    {"changeDataFeed", false, 0, 4, true, false},
    {"generatedColumns", false, 0, 4, true, false},
    {"columnMapping", true, 2, 5, true, true},
    {"identityColumns", false, 0, 6, true, false},
    {"deletionVectors", true, 0, 0, true, true},
    {"timestampNtz", true, 0, 0, true, true},
    {"v2Checkpoint", true, 0, 0, true, true},
    {"vacuumProtocolCheck", true, 0, 0, true, true},
    {"typeWidening", true, 0, 0, true, true},
    {"typeWidening-preview", true, 0, 0, true, true},
    {"domainMetadata", false, 0, 0, true, true},
    {"rowTracking", false, 0, 0, true, true},
    {"inCommitTimestamp", false, 0, 0, true, true},
    {"clustering", false, 0, 0, true, true},
    {"liquid", false, 0, 0, true, false},
    {"allowColumnDefaults", false, 0, 0, true, false},
    {"icebergCompatV1", false, 0, 0, true, false},
    {"icebergCompatV2", false, 0, 0, true, false},
    {"icebergWriterCompatV1", false, 0, 0, true, false},
    {"checkpointProtection", false, 0, 0, true, true},
    {"collations-preview", false, 0, 0, true, false},
    // Reader-writer features silt cannot read: no variant type in silt's type system, and
    // catalog-managed tables need a catalog to say which commits are ratified.
    {"variantType", true, 0, 0, false, false},
    {"variantType-preview", true, 0, 0, false, false},
    {"variantShredding-preview", true, 0, 0, false, false},
    {"catalogManaged", true, 0, 0, false, false},
}};

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

void CheckVersions(const Protocol& protocol, std::string_view table, bool writing) {
  bool bad_reader = protocol.min_reader_version < 1 || protocol.min_reader_version > kMaxReaderVersion;
  bool bad_writer = writing && (protocol.min_writer_version < 1 ||
                                protocol.min_writer_version > kMaxWriterVersion);
  if (bad_reader || bad_writer) {
    SILT_THROW(DELTA_INVALID_PROTOCOL_VERSION,
               {{"tableNameOrPath", std::string(table)},
                {"readerRequired", std::to_string(protocol.min_reader_version)},
                {"writerRequired", std::to_string(protocol.min_writer_version)},
                {"supportedReaders", "[1, 2, 3]"},
                {"supportedWriters", "[1, 2, 3, 4, 5, 6, 7]"}});
  }
}

}  // namespace

const TableFeatureInfo* FindTableFeature(std::string_view name) {
  for (const auto& feature : kFeatures) {
    if (feature.name == name) return &feature;
  }
  return nullptr;
}

std::vector<std::string> EffectiveReaderFeatures(const Protocol& protocol) {
  if (protocol.min_reader_version >= 3) {
    return protocol.reader_features.value_or(std::vector<std::string>{});
  }
  std::vector<std::string> features;
  if (protocol.min_reader_version >= 2) features.emplace_back("columnMapping");
  return features;
}

std::vector<std::string> EffectiveWriterFeatures(const Protocol& protocol) {
  if (protocol.min_writer_version >= 7) {
    return protocol.writer_features.value_or(std::vector<std::string>{});
  }
  std::vector<std::string> features;
  for (const auto& feature : kFeatures) {
    if (feature.legacy_min_writer > 0 && protocol.min_writer_version >= feature.legacy_min_writer) {
      features.emplace_back(feature.name);
    }
  }
  return features;
}

bool IsFeatureSupported(const Protocol& protocol, std::string_view feature) {
  auto contains = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), feature) != list.end();
  };
  return contains(EffectiveReaderFeatures(protocol)) || contains(EffectiveWriterFeatures(protocol));
}

void CheckReadSupported(const Protocol& protocol, std::string_view table) {
  CheckVersions(protocol, table, /*writing=*/false);
  std::vector<std::string> unsupported;
  for (const auto& name : EffectiveReaderFeatures(protocol)) {
    const TableFeatureInfo* feature = FindTableFeature(name);
    if (feature == nullptr || !feature->read_supported) unsupported.push_back(name);
  }
  // A reader-writer feature listed only among the writer features at (2, 7) still changes how
  // data must be read (legacy columnMapping is the one real case), so check those too.
  if (protocol.min_writer_version >= 7 && protocol.writer_features) {
    for (const auto& name : *protocol.writer_features) {
      const TableFeatureInfo* feature = FindTableFeature(name);
      if (feature != nullptr && feature->reader_writer && !feature->read_supported &&
          std::find(unsupported.begin(), unsupported.end(), name) == unsupported.end()) {
        unsupported.push_back(name);
      }
    }
  }
  if (!unsupported.empty()) {
    SILT_THROW(DELTA_UNSUPPORTED_FEATURES_FOR_READ,
               {{"tableNameOrPath", std::string(table)}, {"unsupported", JoinNames(unsupported)}});
  }
}

namespace {

bool AnyFieldHasMetadata(const std::string& schema_json, std::string_view key) {
  // The schema string holds field metadata keys as JSON object keys: a textual search is exact
  // enough, since a quoted key can only appear as a key or inside a string value, and false
  // positives only make the check more conservative.
  return schema_json.find("\"" + std::string(key)) != std::string::npos;
}

bool PropertyIsTrue(const Metadata& metadata, std::string_view key) {
  const std::string* value = FindValue(metadata.configuration, key);
  return value != nullptr && (*value == "true" || *value == "TRUE" || *value == "True");
}

}  // namespace

bool IsFeatureActive(std::string_view feature, const Metadata& metadata) {
  if (feature == "appendOnly") return PropertyIsTrue(metadata, "delta.appendOnly");
  if (feature == "invariants") return AnyFieldHasMetadata(metadata.schema_string, "delta.invariants");
  if (feature == "checkConstraints") {
    for (const auto& [key, value] : metadata.configuration) {
      if (key.rfind("delta.constraints.", 0) == 0) return true;
    }
    return false;
  }
  if (feature == "changeDataFeed") {
    return PropertyIsTrue(metadata, "delta.enableChangeDataFeed") ||
           PropertyIsTrue(metadata, "delta.enableChangeDataCapture");
  }
  if (feature == "generatedColumns") {
    return AnyFieldHasMetadata(metadata.schema_string, "delta.generationExpression");
  }
  if (feature == "columnMapping") return GetColumnMappingMode(metadata) != ColumnMappingMode::kNone;
  if (feature == "identityColumns") return AnyFieldHasMetadata(metadata.schema_string, "delta.identity.");
  if (feature == "deletionVectors") return PropertyIsTrue(metadata, "delta.enableDeletionVectors");
  if (feature == "inCommitTimestamp") return PropertyIsTrue(metadata, "delta.enableInCommitTimestamps");
  if (feature == "typeWidening" || feature == "typeWidening-preview") {
    return PropertyIsTrue(metadata, "delta.enableTypeWidening");
  }
  if (feature == "allowColumnDefaults") return AnyFieldHasMetadata(metadata.schema_string, "CURRENT_DEFAULT");
  // Everything else (row tracking, clustering, Iceberg compatibility, unknown features, ...) is
  // taken as active whenever the protocol lists it.
  return true;
}

void CheckWriteSupported(const Protocol& protocol, const Metadata& metadata,
                         std::string_view table,
                         const std::vector<std::string>& enforced_by_writer) {
  CheckReadSupported(protocol, table);
  CheckVersions(protocol, table, /*writing=*/true);
  std::vector<std::string> unsupported;
  auto check = [&](const std::string& name) {
    const TableFeatureInfo* feature = FindTableFeature(name);
    bool enforced = std::find(enforced_by_writer.begin(), enforced_by_writer.end(), name) !=
                    enforced_by_writer.end();
    bool ok = feature != nullptr &&
              (feature->write_supported || enforced || !IsFeatureActive(name, metadata));
    if (!ok && std::find(unsupported.begin(), unsupported.end(), name) == unsupported.end()) {
      unsupported.push_back(name);
    }
  };
  for (const auto& name : EffectiveWriterFeatures(protocol)) check(name);
  for (const auto& name : EffectiveReaderFeatures(protocol)) check(name);
  if (!unsupported.empty()) {
    SILT_THROW(DELTA_UNSUPPORTED_FEATURES_FOR_WRITE,
               {{"tableNameOrPath", std::string(table)}, {"unsupported", JoinNames(unsupported)}});
  }
}

ColumnMappingMode GetColumnMappingMode(const Metadata& metadata) {
  const std::string* mode = FindValue(metadata.configuration, "delta.columnMapping.mode");
  // Delta reads the mode in any case, and names an unknown one with its own class.
  if (mode == nullptr || EqualsIgnoreCase(*mode, "none")) return ColumnMappingMode::kNone;
  if (EqualsIgnoreCase(*mode, "name")) return ColumnMappingMode::kName;
  if (EqualsIgnoreCase(*mode, "id")) return ColumnMappingMode::kId;
  SILT_THROW(DELTA_UNSUPPORTED_COLUMN_MAPPING_MODE, {{"mode", *mode}});
}

}  // namespace silt::log
