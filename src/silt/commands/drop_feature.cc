#include "silt/commands/drop_feature.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <vector>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/log/checkpoint_writer.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/file_rewrite.h"
#include "silt/log/log_cleanup.h"
#include "silt/log/log_segment.h"
#include "silt/log/row_tracking.h"
#include "silt/log/table_features.h"
#include "silt/log/type_widening.h"
#include "silt/types/schema_json.h"

namespace silt::commands::internal {

namespace {

// Delta's removable features (RemovableFeature).
constexpr std::string_view kRemovable[] = {
    "checkConstraints",  "columnMapping",       "deletionVectors",     "rowTracking",
    "domainMetadata",    "v2Checkpoint",        "typeWidening",        "typeWidening-preview",
    "inCommitTimestamp", "vacuumProtocolCheck", "checkpointProtection"};

// The features legacy protocol versions imply.
constexpr std::string_view kLegacyFeatures[] = {
    "appendOnly",       "invariants",    "checkConstraints", "changeDataFeed",
    "generatedColumns", "columnMapping", "identityColumns"};

constexpr std::string_view kCheckpointProtection = "checkpointProtection";
constexpr std::string_view kProtectedVersionKey = "delta.requireCheckpointProtectionBeforeVersion";
constexpr std::string_view kLogRetentionKey = "delta.logRetentionDuration";
constexpr std::string_view kTruncateHistoryRetentionKey =
    "delta.dropFeatureTruncateHistory.retentionDuration";
constexpr std::string_view kColumnMappingPrefix = "delta.columnMapping.";
// Checkpoints Delta writes before the commit that drops a feature, so that a reader that falls
// back from an unreadable checkpoint gives up before reaching history with the feature.
constexpr int kBarrierCheckpoints = 3;
constexpr int kCheckpointAttempts = 3;

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool IsTrue(const log::Metadata& metadata, std::string_view key) {
  const std::string* value = log::FindValue(metadata.configuration, key);
  return value != nullptr && EqualsIgnoreCase(*value, "true");
}

bool RemoveProperty(log::Metadata& metadata, std::string_view key) {
  auto& configuration = metadata.configuration;
  size_t before = configuration.size();
  configuration.erase(std::remove_if(configuration.begin(), configuration.end(),
                                     [&](const auto& entry) { return entry.first == key; }),
                      configuration.end());
  return configuration.size() != before;
}

void SetProperty(log::Metadata& metadata, std::string_view key, std::string value) {
  RemoveProperty(metadata, key);
  metadata.configuration.emplace_back(std::string(key), std::move(value));
}

std::string JsonText(std::string_view text) {
  JsonWriter json;
  json.String(text);
  return json.Release();
}

std::string JsonArray(const std::vector<std::string>& values) {
  JsonWriter json;
  json.BeginArray();
  for (const auto& value : values) json.String(value);
  json.EndArray();
  return json.Release();
}

// ---- protocol versions (Delta's TableFeatureSupport) ----

bool IsReaderWriter(const log::Protocol& protocol, const std::string& feature) {
  if (const log::TableFeatureInfo* info = log::FindTableFeature(feature))
    return info->reader_writer;
  return protocol.reader_features && Contains(*protocol.reader_features, feature);
}

int32_t MinReaderVersion(const log::Protocol& protocol, const std::string& feature) {
  if (!IsReaderWriter(protocol, feature)) return 1;
  const log::TableFeatureInfo* info = log::FindTableFeature(feature);
  return info != nullptr && info->legacy_min_reader > 0 ? info->legacy_min_reader : 3;
}

int32_t MinWriterVersion(const std::string& feature) {
  const log::TableFeatureInfo* info = log::FindTableFeature(feature);
  return info != nullptr && info->legacy_min_writer > 0 ? info->legacy_min_writer : 7;
}

std::set<std::string> ImpliedFeatures(int32_t reader, int32_t writer) {
  std::set<std::string> features;
  for (std::string_view name : kLegacyFeatures) {
    const log::TableFeatureInfo* info = log::FindTableFeature(name);
    SILT_CHECK(info != nullptr, "legacy feature missing from the registry");
    int32_t min_reader = info->legacy_min_reader > 0 ? info->legacy_min_reader : 1;
    if (min_reader <= reader && info->legacy_min_writer <= writer)
      features.insert(std::string(name));
  }
  return features;
}

std::set<std::string> ProtocolFeatures(const log::Protocol& protocol) {
  if (protocol.min_writer_version < 7) {
    return ImpliedFeatures(protocol.min_reader_version, protocol.min_writer_version);
  }
  std::set<std::string> features;
  if (protocol.writer_features)
    features.insert(protocol.writer_features->begin(), protocol.writer_features->end());
  if (protocol.reader_features)
    features.insert(protocol.reader_features->begin(), protocol.reader_features->end());
  return features;
}

// A (reader, 7) protocol listing `features` (reader features only from reader version 3).
log::Protocol TableFeaturesProtocol(int32_t reader, const std::set<std::string>& features,
                                    const log::Protocol& known) {
  log::Protocol result{reader, 7, std::nullopt, std::vector<std::string>{}};
  if (reader >= 3) result.reader_features = std::vector<std::string>{};
  for (const std::string& feature : features) {
    result.writer_features->push_back(feature);
    if (reader >= 3 && IsReaderWriter(known, feature)) result.reader_features->push_back(feature);
  }
  return result;
}

log::Protocol WithoutFeature(log::Protocol protocol, std::string_view feature) {
  for (auto* names : {&protocol.reader_features, &protocol.writer_features}) {
    if (*names)
      (*names)->erase(std::remove((*names)->begin(), (*names)->end(), feature), (*names)->end());
  }
  return protocol;
}

log::Protocol WithWriterFeature(log::Protocol protocol, std::string_view feature) {
  SILT_CHECK(protocol.min_writer_version >= 7, "adding a feature to a legacy protocol");
  if (!protocol.writer_features) protocol.writer_features = std::vector<std::string>{};
  if (!Contains(*protocol.writer_features, feature))
    protocol.writer_features->emplace_back(feature);
  return protocol;
}

// ---- the features' traces (Delta's validateDropInvariants and actionUsesFeature) ----

bool HasColumnMappingMetadata(const std::vector<Field>& fields);

bool TypeHasColumnMappingMetadata(const DataType& type) {
  switch (type.id()) {
    case TypeId::kStruct:
      return HasColumnMappingMetadata(type.fields());
    case TypeId::kList:
      return TypeHasColumnMappingMetadata(*type.element_type());
    case TypeId::kMap:
      return TypeHasColumnMappingMetadata(*type.key_type()) ||
             TypeHasColumnMappingMetadata(*type.value_type());
    default:
      return false;
  }
}

bool HasColumnMappingMetadata(const std::vector<Field>& fields) {
  for (const Field& field : fields) {
    for (const auto& [key, value] : field.metadata) {
      if (key.rfind(kColumnMappingPrefix, 0) == 0) return true;
    }
    if (TypeHasColumnMappingMetadata(*field.type)) return true;
  }
  return false;
}

DataTypePtr WithoutColumnMapping(const DataTypePtr& type);

Field WithoutColumnMapping(const Field& field) {
  Field result = field;
  result.metadata.erase(std::remove_if(result.metadata.begin(), result.metadata.end(),
                                       [](const auto& entry) {
                                         return entry.first.rfind(kColumnMappingPrefix, 0) == 0;
                                       }),
                        result.metadata.end());
  result.type = WithoutColumnMapping(field.type);
  return result;
}

DataTypePtr WithoutColumnMapping(const DataTypePtr& type) {
  switch (type->id()) {
    case TypeId::kStruct: {
      std::vector<Field> fields;
      for (const Field& field : type->fields()) fields.push_back(WithoutColumnMapping(field));
      return StructType(std::move(fields));
    }
    case TypeId::kList:
      return ListType(WithoutColumnMapping(type->element_type()), type->contains_null());
    case TypeId::kMap:
      return MapType(WithoutColumnMapping(type->key_type()),
                     WithoutColumnMapping(type->value_type()), type->value_contains_null());
    default:
      return type;
  }
}

// Column names (at any depth) a Parquet file without column mapping cannot hold, as Delta lists
// them.
void CollectInvalidNames(const std::vector<Field>& fields, std::vector<std::string>& invalid) {
  for (const Field& field : fields) {
    if (field.name.find_first_of(" ,;{}()\n\t=") != std::string::npos)
      invalid.push_back(field.name);
    const DataType* type = field.type.get();
    while (type->id() == TypeId::kList || type->id() == TypeId::kMap) {
      type = type->id() == TypeId::kList ? type->element_type().get() : type->value_type().get();
    }
    if (type->id() == TypeId::kStruct) CollectInvalidNames(type->fields(), invalid);
  }
}

bool SchemaHasTypeChanges(const std::string& schema_string) {
  try {
    return log::HasTypeChanges(ParseDeltaSchema(schema_string));
  } catch (const Error&) {
    return false;
  }
}

bool UsesV2CheckpointPolicy(const log::Metadata& metadata) {
  const std::string* policy = log::FindValue(metadata.configuration, "delta.checkpointPolicy");
  return policy != nullptr && EqualsIgnoreCase(*policy, "v2");
}

// True when `snapshot` is read from a V2 checkpoint. silt writes V2 checkpoints UUID-named only;
// a classic-named one in V2 form from another writer is not told apart.
bool ReadFromV2Checkpoint(const log::Snapshot& snapshot) {
  const auto& checkpoint = snapshot.log_segment().checkpoint;
  return checkpoint.has_value() && checkpoint->kind == log::CheckpointKind::kUuid;
}

// True when `metadata` alone makes the table use `feature`.
bool MetadataUsesFeature(const std::string& feature, const log::Metadata& metadata) {
  if (feature == "deletionVectors") return IsTrue(metadata, "delta.enableDeletionVectors");
  if (feature == "typeWidening" || feature == "typeWidening-preview") {
    return SchemaHasTypeChanges(metadata.schema_string);
  }
  if (feature == "columnMapping") {
    return log::GetColumnMappingMode(metadata) != log::ColumnMappingMode::kNone;
  }
  if (feature == "v2Checkpoint") return UsesV2CheckpointPolicy(metadata);
  return false;
}

bool ActionUsesFeature(const std::string& feature, const log::Action& action) {
  if (const auto* metadata = std::get_if<log::Metadata>(&action)) {
    return MetadataUsesFeature(feature, *metadata);
  }
  if (feature != "deletionVectors") return false;
  if (const auto* add = std::get_if<log::AddFile>(&action)) return add->deletion_vector.has_value();
  if (const auto* remove = std::get_if<log::RemoveFile>(&action)) {
    return remove->deletion_vector.has_value();
  }
  return false;
}

// True when the latest state no longer uses `feature`, so that its protocol entry may go.
bool TracesRemoved(const std::string& feature, const log::Snapshot& snapshot) {
  const log::Metadata& metadata = snapshot.metadata();
  if (feature == "deletionVectors") {
    if (IsTrue(metadata, "delta.enableDeletionVectors")) return false;
    return std::none_of(snapshot.files().begin(), snapshot.files().end(),
                        [](const log::AddFile& file) { return file.deletion_vector.has_value(); });
  }
  if (feature == "typeWidening" || feature == "typeWidening-preview") {
    return !IsTrue(metadata, "delta.enableTypeWidening") && !log::HasTypeChanges(snapshot.schema());
  }
  if (feature == "columnMapping") {
    return log::GetColumnMappingMode(metadata) == log::ColumnMappingMode::kNone &&
           !HasColumnMappingMetadata(snapshot.schema().fields());
  }
  if (feature == "v2Checkpoint") {
    return !UsesV2CheckpointPolicy(metadata) && !ReadFromV2Checkpoint(snapshot);
  }
  return true;
}

// A retention property as Delta prints it in its messages ("30 days", "24 hours").
std::string RetentionText(const log::Metadata& metadata, std::string_view key,
                          std::string_view fallback) {
  const std::string* value = log::FindValue(metadata.configuration, key);
  if (value == nullptr) return std::string(fallback);
  std::string text = *value;
  if (AsciiLower(text).rfind("interval ", 0) == 0) text = text.substr(9);
  return text;
}

int64_t TruncateHistoryRetentionMs(const log::Metadata& metadata) {
  const std::string* value = log::FindValue(metadata.configuration, kTruncateHistoryRetentionKey);
  return value != nullptr ? log::ParseIntervalMs(*value, kTruncateHistoryRetentionKey)
                          : int64_t{24} * 3'600'000;
}

// DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD or DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST.
[[noreturn]] void ThrowHistoryError(ErrorClass cls, const std::string& feature,
                                    const log::Metadata& metadata) {
  throw MakeError(cls,
                  {{"feature", feature},
                   {"logRetentionPeriodKey", std::string(kLogRetentionKey)},
                   {"logRetentionPeriod", RetentionText(metadata, kLogRetentionKey, "30 days")},
                   {"truncateHistoryLogRetentionPeriod",
                    RetentionText(metadata, kTruncateHistoryRetentionKey, "24 hours")}});
}

// One run of DROP FEATURE: each step commits on the latest version of the table.
class FeatureDropper {
 public:
  FeatureDropper(std::shared_ptr<io::FileSystem> fs, std::string table_root,
                 const DropFeatureOptions& options, std::string feature, std::string given_name,
                 bool truncate_history)
      : fs_(std::move(fs)),
        table_root_(std::move(table_root)),
        options_(options),
        feature_(std::move(feature)),
        given_name_(std::move(given_name)),
        truncate_history_(truncate_history) {}

  void DropWriterFeature();
  void DropReaderWriterFeature();
  void DropCheckpointProtection();

 private:
  std::shared_ptr<const log::Snapshot> Latest() const {
    return log::Snapshot::Load(fs_, table_root_);
  }
  std::unique_ptr<log::Transaction> Start(
      const std::shared_ptr<const log::Snapshot>& snapshot) const {
    return log::Transaction::Start(snapshot, options_.enforced_features);
  }
  int64_t Commit(log::Transaction& txn, std::string operation,
                 std::vector<std::pair<std::string, std::string>> parameters = {}) const {
    txn.SetOperation(std::move(operation), std::move(parameters));
    return txn.Commit(options_.commit).version;
  }
  int64_t NowMs() const { return options_.commit.now_ms.value_or(SystemNowMs()); }

  // Commits the latest metadata without `key` (Delta's ALTER TABLE UNSET TBLPROPERTIES IF
  // EXISTS); nothing when the property is not set.
  void UnsetProperty(std::string_view key);
  void CheckpointWithRetries(int64_t version) const;
  void EmptyCommitAndCheckpoint();
  // Removes the feature's traces from the latest version; true when something changed.
  bool RemoveTraces();
  void PurgeDeletionVectors();
  void AddDeletionVectorTombstones();
  void RewriteTypeWidenedFiles();
  void RemoveColumnMapping();
  bool HistoryContainsFeature(const log::Snapshot& snapshot) const;
  bool HistoryBeforeTruncated(int64_t version) const;
  void CleanUpHistory(const log::Metadata& metadata);
  // The commit that takes the feature out of the protocol.
  void DowngradeProtocol(bool protect_checkpoints);

  std::shared_ptr<io::FileSystem> fs_;
  std::string table_root_;
  const DropFeatureOptions& options_;
  std::string feature_;
  std::string given_name_;  // as the statement spelled it, for commitInfo
  bool truncate_history_;
};

void FeatureDropper::UnsetProperty(std::string_view key) {
  auto snapshot = Latest();
  log::Metadata metadata = snapshot->metadata();
  if (!RemoveProperty(metadata, key)) return;
  auto txn = Start(snapshot);
  txn->UpdateMetadata(std::move(metadata));
  Commit(*txn, "UNSET TBLPROPERTIES",
         {{"properties", JsonText(JsonArray({std::string(key)}))}, {"ifExists", JsonText("true")}});
}

void FeatureDropper::CheckpointWithRetries(int64_t version) const {
  for (int attempt = 1; attempt <= kCheckpointAttempts; ++attempt) {
    try {
      log::WriteCheckpoint(fs_, table_root_, version);
      return;
    } catch (const std::exception&) {
      if (attempt == kCheckpointAttempts) throw;
    }
  }
}

void FeatureDropper::EmptyCommitAndCheckpoint() {
  auto txn = Start(Latest());
  CheckpointWithRetries(Commit(*txn, "Empty Commit"));
}

void FeatureDropper::PurgeDeletionVectors() {
  auto snapshot = Latest();
  std::vector<log::AddFile> files;
  for (const log::AddFile& file : snapshot->files()) {
    if (file.deletion_vector) files.push_back(file);
  }
  if (files.empty()) return;
  auto txn = Start(snapshot);
  for (const log::AddFile& file : files) txn->RecordReadFile(file);
  log::FileRewriteOptions rewrite;
  rewrite.cancellation = options_.commit.cancellation;
  std::vector<log::AddFile> written = log::RewriteFiles(snapshot, files, rewrite);
  for (const log::AddFile& file : files) txn->RemoveLiveFile(file, /*data_change=*/false);
  for (log::AddFile& add : written) txn->Add(std::move(add));
  Commit(*txn, "REORG", {{"predicate", JsonText("[]")}, {"applyPurge", JsonText("true")}});
}

void FeatureDropper::AddDeletionVectorTombstones() {
  // A client without deletion vectors sees a removed file's deletion vector as an unreferenced
  // file; a tombstone of its own keeps VACUUM from deleting it while time travel may read it.
  auto snapshot = Latest();
  std::set<std::string> tombstones;
  for (const log::RemoveFile& remove : snapshot->tombstones()) {
    if (!remove.deletion_vector) tombstones.insert(log::CanonicalLogPath(remove.path));
  }
  std::set<std::string> paths;
  const std::string prefix = table_root_ + "/";
  for (const log::RemoveFile& remove : snapshot->tombstones()) {
    if (!remove.deletion_vector || remove.deletion_vector->storage_type != 'u') continue;
    std::string path = log::DeletionVectorPath(*remove.deletion_vector, table_root_);
    if (path.rfind(prefix, 0) != 0) continue;
    std::string relative = path.substr(prefix.size());
    if (tombstones.count(relative) == 0) paths.insert(relative);
  }
  if (paths.empty()) return;
  auto txn = Start(snapshot);
  int64_t now = NowMs();
  for (const std::string& path : paths) {
    log::RemoveFile remove;
    remove.path = log::EncodeLogPath(path);
    remove.deletion_timestamp = now;
    remove.data_change = false;
    txn->Remove(std::move(remove));
  }
  Commit(*txn, "Deletion Vector Tombstones");
}

void FeatureDropper::RewriteTypeWidenedFiles() {
  auto snapshot = Latest();
  if (log::HasTypeChanges(snapshot->schema())) {
    std::vector<log::AddFile> files = log::FilesWithOtherTypes(snapshot);
    if (!files.empty()) {
      auto txn = Start(snapshot);
      for (const log::AddFile& file : files) txn->RecordReadFile(file);
      log::FileRewriteOptions rewrite;
      rewrite.cancellation = options_.commit.cancellation;
      std::vector<log::AddFile> written = log::RewriteFiles(snapshot, files, rewrite);
      for (const log::AddFile& file : files) txn->RemoveLiveFile(file, /*data_change=*/false);
      for (log::AddFile& add : written) txn->Add(std::move(add));
      Commit(*txn, "REORG", {{"predicate", JsonText("[]")}, {"applyPurge", JsonText("false")}});
      snapshot = Latest();
    }
  }
  if (!log::HasTypeChanges(snapshot->schema())) return;
  // Every file now stores the current types: the history of changes goes from the schema.
  log::Metadata metadata = snapshot->metadata();
  metadata.schema_string = ToDeltaSchemaJson(log::WithoutTypeChanges(snapshot->schema()));
  auto txn = Start(snapshot);
  txn->UpdateMetadata(std::move(metadata));
  Commit(*txn, "DROP FEATURE", {{"columns", JsonText("[]")}});
}

void FeatureDropper::RemoveColumnMapping() {
  auto snapshot = Latest();
  std::vector<std::string> invalid;
  CollectInvalidNames(snapshot->schema().fields(), invalid);
  if (!invalid.empty()) {
    std::string names;
    for (const std::string& name : invalid) names += (names.empty() ? "" : ", ") + name;
    SILT_THROW(DELTA_INVALID_COLUMN_NAMES_WHEN_REMOVING_COLUMN_MAPPING,
               {{"invalidColumnNames", names}});
  }
  log::Metadata metadata = snapshot->metadata();
  RemoveProperty(metadata, "delta.columnMapping.mode");
  RemoveProperty(metadata, "delta.columnMapping.maxColumnId");
  std::vector<Field> fields;
  for (const Field& field : snapshot->schema().fields())
    fields.push_back(WithoutColumnMapping(field));
  metadata.schema_string = ToDeltaSchemaJson(Schema(std::move(fields)));
  // Every file is rewritten with the logical names in one commit with the metadata.
  auto txn = Start(snapshot);
  txn->RecordReadWholeTable();
  log::FileRewriteOptions rewrite;
  rewrite.written_metadata = metadata;
  rewrite.cancellation = options_.commit.cancellation;
  std::vector<log::AddFile> written = log::RewriteFiles(snapshot, snapshot->files(), rewrite);
  for (const log::AddFile& file : snapshot->files())
    txn->RemoveLiveFile(file, /*data_change=*/false);
  for (log::AddFile& add : written) txn->Add(std::move(add));
  txn->UpdateMetadata(std::move(metadata));
  Commit(*txn, "REMOVE COLUMN MAPPING");
}

bool FeatureDropper::RemoveTraces() {
  if (TracesRemoved(feature_, *Latest())) {
    // Deletion vectors of removed files may still lack their tombstones.
    if (feature_ == "deletionVectors") AddDeletionVectorTombstones();
    return false;
  }
  if (feature_ == "deletionVectors") {
    // Unset first, so that no writer adds deletion vectors while the files are purged.
    UnsetProperty("delta.enableDeletionVectors");
    PurgeDeletionVectors();
    AddDeletionVectorTombstones();
  } else if (feature_ == "typeWidening" || feature_ == "typeWidening-preview") {
    UnsetProperty("delta.enableTypeWidening");
    RewriteTypeWidenedFiles();
  } else if (feature_ == "columnMapping") {
    RemoveColumnMapping();
  } else if (feature_ == "v2Checkpoint") {
    // Classic checkpoints from here on; the barrier checkpoints are the first.
    auto snapshot = Latest();
    log::Metadata metadata = snapshot->metadata();
    SetProperty(metadata, "delta.checkpointPolicy", "classic");
    auto txn = Start(snapshot);
    txn->UpdateMetadata(std::move(metadata));
    Commit(*txn, "SET TBLPROPERTIES",
           {{"properties", JsonText("{\"delta.checkpointPolicy\":\"classic\"}")}});
  }
  return true;
}

bool FeatureDropper::HistoryContainsFeature(const log::Snapshot& snapshot) const {
  // The state at the oldest checkpoint left (its tombstones aside), then every commit left.
  int64_t earliest = log::EarliestReconstructableVersion(*fs_, table_root_);
  log::SnapshotOptions at_earliest;
  at_earliest.version = earliest;
  auto oldest = log::Snapshot::Load(fs_, table_root_, at_earliest);
  if (MetadataUsesFeature(feature_, oldest->metadata())) return true;
  if (feature_ == "v2Checkpoint" && ReadFromV2Checkpoint(*oldest)) return true;
  for (const log::AddFile& file : oldest->files()) {
    if (ActionUsesFeature(feature_, log::Action(file))) return true;
  }
  for (const log::CommitFile& commit : log::ListCommits(*fs_, table_root_)) {
    if (commit.version > snapshot.version()) break;
    std::string text = fs_->OpenRead(commit.file.path)->ReadAll();
    for (const log::Action& action : log::ParseActions(text, commit.file.path)) {
      if (ActionUsesFeature(feature_, action)) return true;
    }
  }
  return false;
}

bool FeatureDropper::HistoryBeforeTruncated(int64_t version) const {
  if (version <= 0) return true;
  for (const log::CommitFile& commit : log::ListCommits(*fs_, table_root_)) {
    if (commit.version < version) return false;
  }
  return log::EarliestReconstructableVersion(*fs_, table_root_) >= version;
}

void FeatureDropper::CleanUpHistory(const log::Metadata& metadata) {
  // Delta truncates the cut-off to a minute for TRUNCATE HISTORY.
  int64_t cutoff = NowMs() - TruncateHistoryRetentionMs(metadata);
  cutoff -= cutoff % 60'000;
  log::CleanUpExpiredLogs(*fs_, table_root_, metadata, NowMs(), cutoff);
}

void FeatureDropper::DowngradeProtocol(bool protect_checkpoints) {
  auto snapshot = Latest();
  if (!TracesRemoved(feature_, *snapshot)) {
    // A concurrent commit changed what the clean-up left.
    SILT_THROW(DELTA_FEATURE_DROP_CONFLICT_REVALIDATION_FAIL,
               {{"concurrentCommit", "A commit after the clean-up uses " + feature_ + " again."}});
  }
  auto txn = Start(snapshot);
  // A concurrent write that brings the feature back must not commit under the new protocol.
  txn->RecordReadWholeTable();
  log::Metadata metadata = snapshot->metadata();
  log::Protocol protocol = DenormalizedProtocol(snapshot->protocol());
  if (protect_checkpoints) {
    protocol = WithWriterFeature(std::move(protocol), kCheckpointProtection);
    SetProperty(metadata, kProtectedVersionKey, std::to_string(snapshot->version() + 1));
  }
  txn->UpdateProtocol(NormalizedProtocol(WithoutFeature(std::move(protocol), feature_)));
  txn->UpdateMetadata(std::move(metadata));
  int64_t version = Commit(*txn, "DROP FEATURE",
                           {{"featureName", JsonText(given_name_)},
                            {"truncateHistory", JsonText(truncate_history_ ? "true" : "false")}});
  // The protected checkpoint: replay from the barrier on never needs the commits before it.
  if (protect_checkpoints) CheckpointWithRetries(version);
}

void FeatureDropper::DropReaderWriterFeature() {
  bool removed_traces = RemoveTraces();
  if (!truncate_history_) {
    for (int i = 0; i < kBarrierCheckpoints; ++i) EmptyCommitAndCheckpoint();
    DowngradeProtocol(/*protect_checkpoints=*/true);
    return;
  }
  // The legacy flow: the protocol changes only once no version left uses the feature. The
  // checkpoint on an empty commit lets the history before it expire.
  EmptyCommitAndCheckpoint();
  auto snapshot = Latest();
  if (removed_traces) {
    ThrowHistoryError(ErrorClass::DELTA_FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD, feature_,
                      snapshot->metadata());
  }
  CleanUpHistory(snapshot->metadata());
  if (HistoryContainsFeature(*snapshot)) {
    ThrowHistoryError(ErrorClass::DELTA_FEATURE_DROP_HISTORICAL_VERSIONS_EXIST, feature_,
                      snapshot->metadata());
  }
  DowngradeProtocol(/*protect_checkpoints=*/false);
}

void FeatureDropper::DropCheckpointProtection() {
  auto snapshot = Latest();
  int64_t protected_version = 0;
  if (const std::string* value = snapshot->Property(kProtectedVersionKey)) {
    try {
      protected_version = std::stoll(*value);
    } catch (const std::exception&) {
      protected_version = snapshot->version() + 1;
    }
  }
  if (!HistoryBeforeTruncated(protected_version)) {
    // Cleaning can only go up to a checkpoint: one on a new commit lets it reach the version.
    EmptyCommitAndCheckpoint();
    CleanUpHistory(snapshot->metadata());
    if (!HistoryBeforeTruncated(protected_version)) {
      ThrowHistoryError(ErrorClass::DELTA_FEATURE_DROP_CHECKPOINT_PROTECTION_WAIT_FOR_RETENTION_PERIOD,
                        feature_, snapshot->metadata());
    }
  }
  UnsetProperty(kProtectedVersionKey);
  DowngradeProtocol(/*protect_checkpoints=*/false);
}

void FeatureDropper::DropWriterFeature() {
  auto snapshot = Latest();
  auto txn = Start(snapshot);
  log::Metadata metadata = snapshot->metadata();
  if (feature_ == "checkConstraints") {
    std::string constraints;
    for (const auto& [key, value] : metadata.configuration) {
      if (key.rfind("delta.constraints.", 0) == 0) {
        constraints += (constraints.empty() ? "" : ", ") +
                       key.substr(std::string("delta.constraints.").size());
      }
    }
    if (!constraints.empty()) {
      SILT_THROW(DELTA_CANNOT_DROP_CHECK_CONSTRAINT_FEATURE, {{"constraints", constraints}});
    }
  } else if (feature_ == "inCommitTimestamp") {
    for (const char* key :
         {"delta.enableInCommitTimestamps", "delta.inCommitTimestampEnablementVersion",
          "delta.inCommitTimestampEnablementTimestamp"}) {
      RemoveProperty(metadata, key);
    }
  } else if (feature_ == "rowTracking") {
    for (std::string_view key :
         {std::string_view("delta.enableRowTracking"),
          std::string_view("delta.rowTrackingSuspended"), log::kMaterializedRowIdColumnKey,
          log::kMaterializedRowCommitVersionColumnKey}) {
      RemoveProperty(metadata, key);
    }
    // No file keeps row ids, and the high water mark goes with the feature.
    txn->RecordReadWholeTable();
    for (const log::AddFile& file : snapshot->files()) {
      if (!file.base_row_id && !file.default_row_commit_version) continue;
      log::AddFile recommitted = file;
      recommitted.base_row_id.reset();
      recommitted.default_row_commit_version.reset();
      recommitted.data_change = false;
      txn->Add(std::move(recommitted));
    }
    auto domain = snapshot->domain_metadata().find(std::string(log::kRowTrackingDomain));
    if (domain != snapshot->domain_metadata().end()) {
      log::DomainMetadata removed = domain->second;
      removed.removed = true;
      txn->AddDomainMetadata(std::move(removed));
    }
  } else if (feature_ == "domainMetadata") {
    // A commit without the feature may not carry domainMetadata actions, so domains would have
    // to go in a commit of their own first (silt's only domain, delta.rowTracking, goes with its
    // feature).
    std::string domains;
    for (const auto& [domain_name, domain] : snapshot->domain_metadata()) {
      domains += (domains.empty() ? "" : ", ") + domain_name;
    }
    if (!domains.empty()) {
      SILT_THROW(NOT_IMPLEMENTED,
                 {{"feature",
                   "DROP FEATURE domainMetadata while the table has domains (" + domains + ")"}});
    }
  }
  txn->UpdateProtocol(
      NormalizedProtocol(WithoutFeature(DenormalizedProtocol(snapshot->protocol()), feature_)));
  txn->UpdateMetadata(std::move(metadata));
  Commit(*txn, "DROP FEATURE",
         {{"featureName", JsonText(given_name_)}, {"truncateHistory", JsonText("false")}});
}

}  // namespace

log::Protocol DenormalizedProtocol(const log::Protocol& protocol) {
  if (protocol.min_writer_version >= 7) return protocol;
  std::set<std::string> features =
      ImpliedFeatures(protocol.min_reader_version, protocol.min_writer_version);
  int32_t reader = 1;
  for (const std::string& feature : features)
    reader = std::max(reader, MinReaderVersion(protocol, feature));
  return TableFeaturesProtocol(reader, features, protocol);
}

log::Protocol NormalizedProtocol(const log::Protocol& protocol) {
  if (protocol.min_writer_version < 7) return protocol;
  std::set<std::string> features = ProtocolFeatures(protocol);
  int32_t reader = 1;
  int32_t writer = 1;
  for (const std::string& feature : features) {
    reader = std::max(reader, MinReaderVersion(protocol, feature));
    writer = std::max(writer, MinWriterVersion(feature));
  }
  if (ImpliedFeatures(reader, writer) == features) {
    return log::Protocol{reader, writer, std::nullopt, std::nullopt};
  }
  return TableFeaturesProtocol(reader, features, protocol);
}

void DropTableFeature(std::shared_ptr<io::FileSystem> fs, const std::string& table_root,
                      const std::string& name, bool truncate_history,
                      const DropFeatureOptions& options) {
  auto snapshot = log::Snapshot::Load(fs, table_root);
  std::set<std::string> present = ProtocolFeatures(snapshot->protocol());
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
  bool is_present = present.count(feature) > 0;
  if (!is_present && AsciiLower(name).rfind("delta.", 0) == 0) {
    SILT_THROW(DELTA_FEATURE_DROP_FEATURE_IS_DELTA_PROPERTY, {{"property", name}});
  }
  if (info == nullptr)
    SILT_THROW(DELTA_FEATURE_DROP_UNSUPPORTED_CLIENT_FEATURE, {{"feature", name}});
  feature = std::string(info->name);
  if (!is_present) SILT_THROW(DELTA_FEATURE_DROP_FEATURE_NOT_PRESENT, {{"feature", feature}});
  bool removable =
      std::find(std::begin(kRemovable), std::end(kRemovable), feature) != std::end(kRemovable);
  if (!removable) SILT_THROW(DELTA_FEATURE_DROP_NONREMOVABLE_FEATURE, {{"feature", feature}});
  // Reader-writer features leave traces in the history that readers must not meet
  // (requiresHistoryProtection); checkpointProtection is dropped by truncating history too.
  const bool history_protection = info->reader_writer;
  const bool is_checkpoint_protection = feature == kCheckpointProtection;
  if (truncate_history && !history_protection && !is_checkpoint_protection) {
    SILT_THROW(DELTA_FEATURE_DROP_HISTORY_TRUNCATION_NOT_ALLOWED, {});
  }
  if (is_checkpoint_protection && !truncate_history) {
    SILT_THROW(DELTA_FEATURE_CAN_ONLY_DROP_CHECKPOINT_PROTECTION_WITH_HISTORY_TRUNCATION, {});
  }
  // Features that need this one (Delta's requiredFeatures).
  if (feature == "domainMetadata") {
    std::string dependents;
    for (const char* dependent : {"rowTracking", "clustering"}) {
      if (present.count(dependent) > 0)
        dependents += (dependents.empty() ? "" : ", ") + std::string(dependent);
    }
    if (!dependents.empty()) {
      SILT_THROW(DELTA_FEATURE_DROP_DEPENDENT_FEATURE,
                 {{"feature", feature}, {"dependentFeatures", dependents}});
    }
  }
  FeatureDropper dropper(std::move(fs), table_root, options, feature, name, truncate_history);
  if (is_checkpoint_protection) {
    dropper.DropCheckpointProtection();
  } else if (history_protection) {
    dropper.DropReaderWriterFeature();
  } else {
    dropper.DropWriterFeature();
  }
}

}  // namespace silt::commands::internal
