#include "silt/log/restore.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/json_writer.h"
#include "silt/log/clustering.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_features.h"
#include "silt/log/transaction.h"
#include "silt/types/date_time.h"
#include "silt/types/schema_json.h"

namespace silt::log {
namespace {

// Delta reports at most this many missing files.
constexpr size_t kMaxReportedMissingFiles = 100;

std::string FormatMs(int64_t ms) { return FormatTimestamp(ms * 1000); }

// The reconciliation key of a logical file: its path and its deletion vector.
std::string LogicalFileKey(const AddFile& file) {
  std::string key = CanonicalLogPath(file.path);
  key.push_back('\n');
  if (file.deletion_vector) key += file.deletion_vector->UniqueId();
  return key;
}

void AppendIfAbsent(std::vector<std::string>& names, std::string name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
}

void AppendAllIfAbsent(std::vector<std::string>& names, const std::vector<std::string>& more) {
  for (const std::string& name : more) AppendIfAbsent(names, name);
}

int64_t ResolveVersion(io::FileSystem& fs, const std::string& table_root,
                       const RestoreOptions& options, const std::string& timestamp_text) {
  if (options.version) return *options.version;
  int64_t timestamp_ms = *options.timestamp_ms;
  std::vector<CommitTimestamp> timestamps = ListCommitTimestamps(fs, table_root);
  SILT_CHECK(!timestamps.empty(), "a loaded table has commits");
  if (timestamp_ms > timestamps.back().timestamp_ms) {
    SILT_THROW(DELTA_CANNOT_RESTORE_TIMESTAMP_GREATER,
               {{"requestedTimestamp", timestamp_text},
                {"latestTimestamp", FormatMs(timestamps.back().timestamp_ms)}});
  }
  if (timestamp_ms < timestamps.front().timestamp_ms) {
    SILT_THROW(DELTA_CANNOT_RESTORE_TIMESTAMP_EARLIER,
               {{"userTimestamp", timestamp_text},
                {"earliestTimestamp", FormatMs(timestamps.front().timestamp_ms)}});
  }
  return VersionAtTimestamp(fs, table_root, timestamp_ms, /*allow_after_latest=*/true);
}

// The files of `files` (with their deletion-vector files) that are no longer in storage, as
// written in the log.
std::vector<std::string> MissingFiles(const Snapshot& snapshot,
                                      const std::vector<const AddFile*>& files) {
  io::FileSystem& fs = *snapshot.file_system();
  std::vector<std::string> missing;
  for (const AddFile* file : files) {
    if (missing.size() >= kMaxReportedMissingFiles) break;
    if (!fs.Stat(snapshot.ResolvePath(file->path))) {
      missing.push_back(file->path);
      continue;
    }
    const auto& dv = file->deletion_vector;
    if (dv && dv->storage_type != 'i') {
      std::string dv_path = DeletionVectorPath(*dv, snapshot.table_root());
      if (!fs.Stat(dv_path)) missing.push_back(dv_path);
    }
  }
  return missing;
}

// `restored` with the in-commit-timestamp properties of `latest`: once commits carry in-commit
// timestamps they must keep doing so, or time travel by timestamp would mix two clocks.
Metadata WithInCommitTimestampsKept(Metadata restored, const Metadata& latest) {
  for (const char* key :
       {"delta.enableInCommitTimestamps", "delta.inCommitTimestampEnablementVersion",
        "delta.inCommitTimestampEnablementTimestamp"}) {
    const std::string* value = FindValue(latest.configuration, key);
    if (value == nullptr) continue;
    auto it = std::find_if(restored.configuration.begin(), restored.configuration.end(),
                           [&](const auto& entry) { return entry.first == key; });
    if (it != restored.configuration.end()) {
      it->second = *value;
    } else {
      restored.configuration.emplace_back(key, *value);
    }
  }
  return restored;
}

// `restored` with each identity column's high water mark at least as far along as in `latest`
// (Delta's restore keeps the marks): values generated after the restored version must never be
// generated again.
Metadata WithIdentityHighWaterMarksKept(Metadata restored, const Metadata& latest) {
  constexpr std::string_view kMark = "delta.identity.highWaterMark";
  constexpr std::string_view kStep = "delta.identity.step";
  if (restored.schema_string.find(kMark) == std::string::npos &&
      latest.schema_string.find(kMark) == std::string::npos) {
    return restored;
  }
  Schema latest_schema = ParseDeltaSchema(latest.schema_string);
  std::vector<Field> fields = ParseDeltaSchema(restored.schema_string).fields();
  bool changed = false;
  for (Field& field : fields) {
    int index = latest_schema.FieldIndex(field.name, /*case_sensitive=*/true);
    if (index < 0) continue;
    const std::string* latest_mark =
        latest_schema.field(static_cast<size_t>(index)).FindMetadata(kMark);
    const std::string* step = field.FindMetadata(kStep);
    if (latest_mark == nullptr || step == nullptr) continue;
    const std::string* mark = field.FindMetadata(kMark);
    bool descending = !step->empty() && (*step)[0] == '-';
    if (mark != nullptr) {
      auto parse = [](const std::string& text) {
        int64_t value = 0;
        auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        return error == std::errc() && end == text.data() + text.size() ? std::optional(value)
                                                                        : std::nullopt;
      };
      std::optional<int64_t> ours = parse(*mark);
      std::optional<int64_t> theirs = parse(*latest_mark);
      if (!ours || !theirs) continue;
      if (descending ? *theirs >= *ours : *theirs <= *ours) continue;
    }
    bool replaced = false;
    for (auto& [key, value] : field.metadata) {
      if (key == kMark) {
        value = *latest_mark;
        replaced = true;
      }
    }
    if (!replaced) field.metadata.emplace_back(std::string(kMark), *latest_mark);
    changed = true;
  }
  if (changed) restored.schema_string = ToDeltaSchemaJson(Schema(std::move(fields)));
  return restored;
}

}  // namespace

Protocol MergeProtocols(const Protocol& current, const Protocol& other) {
  Protocol merged;
  merged.min_reader_version = std::max(current.min_reader_version, other.min_reader_version);
  merged.min_writer_version = std::max(current.min_writer_version, other.min_writer_version);
  if (merged.min_writer_version >= 7) {
    // Legacy versions imply features; named-feature protocols must list them.
    std::vector<std::string> writer = EffectiveWriterFeatures(current);
    AppendAllIfAbsent(writer, EffectiveReaderFeatures(current));
    AppendAllIfAbsent(writer, EffectiveWriterFeatures(other));
    AppendAllIfAbsent(writer, EffectiveReaderFeatures(other));
    merged.writer_features = std::move(writer);
  }
  if (merged.min_reader_version >= 3) {
    std::vector<std::string> reader = EffectiveReaderFeatures(current);
    AppendAllIfAbsent(reader, EffectiveReaderFeatures(other));
    // Every reader-writer feature the merged protocol supports is a reader feature too.
    for (const std::string& name : *merged.writer_features) {
      const TableFeatureInfo* feature = FindTableFeature(name);
      if (feature != nullptr && feature->reader_writer) AppendIfAbsent(reader, name);
    }
    merged.reader_features = std::move(reader);
  }
  // When nothing new is supported, `current` stays exactly as it was (including the order in
  // which it lists its features).
  auto covered = [](const std::optional<std::vector<std::string>>& wanted,
                    const std::optional<std::vector<std::string>>& have) {
    if (!wanted) return true;
    std::vector<std::string> listed = have.value_or(std::vector<std::string>{});
    return std::all_of(wanted->begin(), wanted->end(), [&](const std::string& name) {
      return std::find(listed.begin(), listed.end(), name) != listed.end();
    });
  };
  if (merged.min_reader_version == current.min_reader_version &&
      merged.min_writer_version == current.min_writer_version &&
      covered(merged.writer_features, current.writer_features) &&
      covered(merged.reader_features, current.reader_features)) {
    return current;
  }
  return merged;
}

RestoreResult Restore(const std::shared_ptr<io::FileSystem>& fs, const std::string& table_root,
                      const RestoreOptions& options) {
  SILT_CHECK(options.version.has_value() != options.timestamp_ms.has_value(),
             "RESTORE needs exactly one of a version and a timestamp");
  std::shared_ptr<const Snapshot> latest = Snapshot::Load(fs, table_root);
  std::string timestamp_text = options.timestamp_text;
  if (options.timestamp_ms && timestamp_text.empty()) {
    timestamp_text = FormatMs(*options.timestamp_ms);
  }

  int64_t version = ResolveVersion(*fs, table_root, options, timestamp_text);
  int64_t earliest = EarliestReconstructableVersion(*fs, table_root);
  if (version < earliest || version > latest->version()) {
    SILT_THROW(DELTA_CANNOT_RESTORE_TABLE_VERSION,
               {{"version", std::to_string(version)},
                {"startVersion", std::to_string(earliest)},
                {"endVersion", std::to_string(latest->version())}});
  }
  if (version == latest->version()) {
    SILT_THROW(DELTA_CANNOT_RESTORE_TO_LATEST_VERSION,
               {{"version", std::to_string(version)},
                {"latestVersion", std::to_string(latest->version())}});
  }
  SnapshotOptions at_version;
  at_version.version = version;
  std::shared_ptr<const Snapshot> restored = Snapshot::Load(fs, table_root, at_version);

  RestoreResult result;
  result.restored_version = version;
  std::set<std::string> restored_keys;
  for (const AddFile& file : restored->files()) {
    restored_keys.insert(LogicalFileKey(file));
    result.table_size_after_restore += file.size;
  }
  result.num_of_files_after_restore = static_cast<int64_t>(restored->files().size());
  std::set<std::string> latest_keys;
  for (const AddFile& file : latest->files()) latest_keys.insert(LogicalFileKey(file));

  std::vector<const AddFile*> to_add;
  for (const AddFile& file : restored->files()) {
    if (!latest_keys.count(LogicalFileKey(file))) to_add.push_back(&file);
  }
  std::vector<const AddFile*> to_remove;
  for (const AddFile& file : latest->files()) {
    if (!restored_keys.count(LogicalFileKey(file))) to_remove.push_back(&file);
  }
  // Sorted so that the commit does not depend on the order of log replay.
  auto by_path = [](const AddFile* a, const AddFile* b) { return a->path < b->path; };
  std::sort(to_add.begin(), to_add.end(), by_path);
  std::sort(to_remove.begin(), to_remove.end(), by_path);

  if (options.check_files_exist) {
    std::vector<std::string> missing = MissingFiles(*restored, to_add);
    if (!missing.empty()) {
      std::string names;
      for (const std::string& name : missing) names += (names.empty() ? "" : ",") + name;
      SILT_THROW(DELTA_RESTORE_MISSING_DATA_FILES,
                 {{"version", std::to_string(version)}, {"missedFiles", names}});
    }
  }

  auto txn = Transaction::Start(latest, options.enforced_features);
  // The restore replaces the table's whole state: any concurrent data change conflicts.
  txn->RecordReadWholeTable();
  Metadata metadata = WithIdentityHighWaterMarksKept(
      WithInCommitTimestampsKept(restored->metadata(), latest->metadata()), latest->metadata());
  if (metadata != latest->metadata()) txn->UpdateMetadata(std::move(metadata));
  Protocol protocol = MergeProtocols(latest->protocol(), restored->protocol());
  if (protocol != latest->protocol()) txn->UpdateProtocol(std::move(protocol));
  // The clustering columns go back to the restored version's (none when it was not clustered),
  // as Delta's RESTORE writes them; the feature itself stays in the protocol.
  if (PhysicalClusteringColumns(latest->domain_metadata())) {
    std::vector<ColumnPath> columns;
    if (IsClusteringSupported(restored->protocol())) {
      columns = PhysicalClusteringColumns(restored->domain_metadata()).value_or(columns);
    }
    txn->AddDomainMetadata(ClusteringDomain(columns));
  }
  for (const AddFile* file : to_add) {
    AddFile add = *file;
    add.data_change = true;
    result.restored_files_size += add.size;
    txn->Add(std::move(add));
  }
  for (const AddFile* file : to_remove) {
    result.removed_files_size += file->size;
    txn->RemoveLiveFile(*file, /*data_change=*/true);
  }
  result.num_restored_files = static_cast<int64_t>(to_add.size());
  result.num_removed_files = static_cast<int64_t>(to_remove.size());

  JsonWriter timestamp_json;
  if (options.timestamp_ms) {
    timestamp_json.String(timestamp_text);
  } else {
    timestamp_json.Null();
  }
  txn->SetOperation("RESTORE",
                    {{"version", options.version ? std::to_string(*options.version) : "null"},
                     {"timestamp", timestamp_json.Release()}},
                    {{"numRestoredFiles", std::to_string(result.num_restored_files)},
                     {"restoredFilesSize", std::to_string(result.restored_files_size)},
                     {"numRemovedFiles", std::to_string(result.num_removed_files)},
                     {"removedFilesSize", std::to_string(result.removed_files_size)},
                     {"numOfFilesAfterRestore", std::to_string(result.num_of_files_after_restore)},
                     {"tableSizeAfterRestore", std::to_string(result.table_size_after_restore)}});
  CommitOptions commit_options;
  commit_options.now_ms = options.now_ms;
  result.committed_version = txn->Commit(commit_options).version;
  return result;
}

}  // namespace silt::log
