#include "silt/commands/table_health.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <utility>

#include "silt/base/check.h"
#include "silt/base/clock.h"
#include "silt/base/json_writer.h"
#include "silt/commands/statement_internal.h"
#include "silt/exec/text_format.h"
#include "silt/log/actions.h"
#include "silt/log/data_file_writer.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_segment.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_properties.h"
#include "silt/log/transaction.h"
#include "silt/log/vacuum.h"
#include "silt/sql/session_state.h"

namespace silt::commands {
namespace {

// The histogram's bar edges: the small-file range split finely, then the sizes OPTIMIZE aims
// for (Delta's default target is 1 GiB; many tables set 128-256 MiB).
constexpr int64_t kKiB = 1024;
constexpr int64_t kMiB = kKiB * 1024;
constexpr int64_t kGiB = kMiB * 1024;
constexpr int64_t kBucketEdges[] = {0,          64 * kKiB,  kMiB,       8 * kMiB, 32 * kMiB,
                                    128 * kMiB, 256 * kMiB, 512 * kMiB, kGiB};

// Advice thresholds. Small files are worth compacting once a quarter of the files are small;
// a partition is skewed when it is ten times the median one; a checkpoint is overdue after two
// intervals without one (a writer checkpoints at every interval).
constexpr double kSmallFileShareForAdvice = 0.25;
constexpr int64_t kMinSmallFilesForAdvice = 2;
constexpr double kPartitionSkewForAdvice = 10.0;
constexpr int64_t kCheckpointIntervalsForAdvice = 2;

// Logical rows of a file: numRecords minus the rows its deletion vector hides.
std::optional<int64_t> LogicalRows(const std::optional<std::string>& stats,
                                   const std::optional<log::DeletionVectorDescriptor>& dv,
                                   std::string_view path) {
  if (!stats) return std::nullopt;
  std::optional<int64_t> records = log::FileStats::Parse(*stats, path).num_records();
  if (!records) return std::nullopt;
  return *records - (dv ? dv->cardinality : 0);
}

std::optional<int64_t> MetricValue(const log::CommitInfo& info, std::string_view name) {
  const std::string* text = log::FindValue(info.operation_metrics, name);
  if (text == nullptr) return std::nullopt;
  try {
    size_t used = 0;
    int64_t value = std::stoll(*text, &used);
    if (used == text->size()) return value;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// The key of a logical file: its path and deletion vector, as log replay reconciles them.
std::string FileKey(std::string_view path,
                    const std::optional<log::DeletionVectorDescriptor>& deletion_vector) {
  std::string key = log::CanonicalLogPath(path);
  key += '\n';
  if (deletion_vector) key += deletion_vector->UniqueId();
  return key;
}

// Reads one commit. `file_rows` maps the logical files added by earlier commits to their rows,
// so that a remove without statistics (Spark writes most of them so) still counts the rows of
// the file it removes; this commit's adds are recorded in it.
CommitHealth ReadCommit(io::FileSystem& fs, const log::CommitFile& commit,
                        std::unordered_map<std::string, int64_t>& file_rows) {
  CommitHealth health;
  health.version = commit.version;
  std::optional<log::CommitInfo> info;
  int64_t rows_added = 0;
  int64_t rows_removed = 0;
  bool added_known = true;
  bool removed_known = true;
  for (const log::Action& action :
       log::ParseActions(fs.ReadFile(commit.file.path), commit.file.path)) {
    if (const auto* add = std::get_if<log::AddFile>(&action)) {
      ++health.files_added;
      health.bytes_added += add->size;
      std::optional<int64_t> rows = LogicalRows(add->stats, add->deletion_vector, add->path);
      added_known = added_known && rows.has_value();
      rows_added += rows.value_or(0);
      if (rows) file_rows[FileKey(add->path, add->deletion_vector)] = *rows;
    } else if (const auto* remove = std::get_if<log::RemoveFile>(&action)) {
      ++health.files_removed;
      health.bytes_removed += remove->size.value_or(0);
      std::string key = FileKey(remove->path, remove->deletion_vector);
      std::optional<int64_t> rows =
          LogicalRows(remove->stats, remove->deletion_vector, remove->path);
      if (auto known = file_rows.find(key); known != file_rows.end()) {
        if (!rows) rows = known->second;
        file_rows.erase(known);
      }
      removed_known = removed_known && rows.has_value();
      rows_removed += rows.value_or(0);
    } else if (const auto* cdc = std::get_if<log::AddCdcFile>(&action)) {
      ++health.change_data_files;
      health.change_data_bytes += cdc->size;
    } else if (const auto* found = std::get_if<log::CommitInfo>(&action)) {
      info = *found;
    }
  }
  health.timestamp_ms = commit.file.modification_time_ms;
  if (info && info->in_commit_timestamp) {
    health.timestamp_ms = *info->in_commit_timestamp;
  } else if (info && info->timestamp) {
    health.timestamp_ms = *info->timestamp;
  }
  if (info && info->operation) health.operation = *info->operation;
  if (added_known) {
    health.rows_added = rows_added;
  } else if (info) {
    health.rows_added = MetricValue(*info, "numOutputRows");
  }
  // No metric names the rows of the removed files (numDeletedRows counts only the rows a
  // DELETE dropped, not those it copied), so without statistics the count stays unknown.
  if (removed_known) health.rows_removed = rows_removed;
  return health;
}

// A partition column: its logical name, and the key its values have in `partitionValues` (the
// physical name under column mapping).
struct PartitionColumn {
  std::string logical;
  std::string physical;
};

std::vector<PartitionColumn> PartitionColumns(const log::Snapshot& snapshot) {
  std::vector<PartitionColumn> columns;
  bool mapped = snapshot.column_mapping_mode() != log::ColumnMappingMode::kNone;
  for (const std::string& name : snapshot.metadata().partition_columns) {
    PartitionColumn column{name, name};
    int index = mapped ? snapshot.schema().FieldIndex(name) : -1;
    const std::string* raw = index < 0 ? nullptr
                                       : snapshot.schema()
                                             .field(static_cast<size_t>(index))
                                             .FindMetadata("delta.columnMapping.physicalName");
    if (raw != nullptr) {
      exec::JsonValue value = exec::ParseJson(*raw);
      if (value.kind == exec::JsonValue::Kind::kString) column.physical = value.text;
    }
    columns.push_back(std::move(column));
  }
  return columns;
}

// "c1=v1/c2=v2" with logical names, as Spark names the partition's folder.
std::string PartitionName(const std::vector<PartitionColumn>& columns,
                          const log::PartitionValueMap& values) {
  std::string name;
  for (const PartitionColumn& column : columns) {
    std::optional<std::string> value;
    for (const auto& [key, text] : values) {
      if (key == column.physical) value = text;
    }
    if (!name.empty()) name += "/";
    name += column.logical + "=" + log::EscapePartitionPathValue(value);
  }
  return name;
}

std::optional<int64_t> TargetFileBytes(const log::Metadata& metadata) {
  const std::string* text = log::FindValue(metadata.configuration, "delta.targetFileSize");
  if (text == nullptr) return std::nullopt;
  std::optional<int64_t> bytes = log::ParseByteSize(*text);
  if (!bytes || *bytes <= 0) {
    SILT_THROW(INVALID_CONFIGURATION, {{"value", *text},
                                       {"key", "delta.targetFileSize"},
                                       {"reason", "expected a size in bytes"}});
  }
  return bytes;
}

std::string Percent(int64_t part, int64_t whole) {
  return std::to_string(whole == 0 ? 0 : static_cast<int64_t>(std::lround(100.0 * part / whole))) +
         "%";
}

void SummarizeFiles(const log::Snapshot& snapshot, const TableHealthOptions& options,
                    TableHealth& health) {
  for (size_t i = 0; i + 1 < std::size(kBucketEdges); ++i) {
    health.size_histogram.push_back(SizeBucket{kBucketEdges[i], kBucketEdges[i + 1], 0, 0});
  }
  health.size_histogram.push_back(
      SizeBucket{kBucketEdges[std::size(kBucketEdges) - 1], std::nullopt, 0, 0});
  std::vector<PartitionColumn> partition_columns = PartitionColumns(snapshot);
  std::map<std::string, PartitionHealth> partitions;
  int64_t rows = 0;
  bool rows_known = true;
  for (const log::AddFile& file : snapshot.files()) {
    ++health.num_files;
    health.size_bytes += file.size;
    for (SizeBucket& bucket : health.size_histogram) {
      if (file.size >= bucket.lower_bytes &&
          (!bucket.upper_bytes || file.size < *bucket.upper_bytes)) {
        ++bucket.files;
        bucket.bytes += file.size;
        break;
      }
    }
    if (file.size < options.small_file_bytes) {
      ++health.small_files;
      health.small_files_bytes += file.size;
    }
    if (health.target_file_bytes && file.size < *health.target_file_bytes / 2) {
      ++health.files_below_half_target;
    }
    std::string name = PartitionName(partition_columns, file.partition_values);
    PartitionHealth& partition = partitions[name];
    partition.name = name;
    ++partition.files;
    partition.bytes += file.size;
    if (file.size < options.small_file_bytes) ++partition.small_files;

    std::optional<int64_t> records;
    if (file.stats) records = log::FileStats::Parse(*file.stats, file.path).num_records();
    int64_t deleted = file.deletion_vector ? file.deletion_vector->cardinality : 0;
    rows_known = rows_known && records.has_value();
    rows += records.value_or(0) - deleted;
    if (file.deletion_vector) {
      DeletionVectorHealth dv;
      dv.path = file.path;
      dv.rows = records;
      dv.deleted_rows = deleted;
      if (records && *records > 0) dv.density = static_cast<double>(deleted) / *records;
      if (dv.density && *dv.density > options.dense_deletion_vector_ratio) {
        ++health.dense_deletion_vector_files;
      }
      health.deleted_rows += deleted;
      health.deletion_vectors.push_back(std::move(dv));
    }
  }
  if (rows_known) health.num_rows = rows;
  std::sort(health.deletion_vectors.begin(), health.deletion_vectors.end(),
            [](const DeletionVectorHealth& a, const DeletionVectorHealth& b) {
              double da = a.density.value_or(-1);
              double db = b.density.value_or(-1);
              return da != db ? da > db : a.path < b.path;
            });

  for (auto& [name, partition] : partitions) {
    if (partition.small_files >= 2) health.compactable_small_files += partition.small_files;
    health.partitions.push_back(std::move(partition));
  }
  std::sort(health.partitions.begin(), health.partitions.end(),
            [](const PartitionHealth& a, const PartitionHealth& b) {
              return a.bytes != b.bytes ? a.bytes > b.bytes : a.name < b.name;
            });
  if (!health.partitions.empty()) {
    // The lower median: with two partitions it is the smaller one, so a 10x pair is skewed.
    health.median_partition_bytes = health.partitions[health.partitions.size() / 2].bytes;
  }
}

void SummarizeMaintenance(const log::Snapshot& snapshot, TableHealth& health) {
  for (const CommitHealth& commit : health.commits) {
    health.change_data_files += commit.change_data_files;
    health.change_data_bytes += commit.change_data_bytes;
    if (commit.operation == "OPTIMIZE") {
      health.last_optimize_version = commit.version;
      health.last_optimize_ms = commit.timestamp_ms;
    } else if (commit.operation == "VACUUM END" || commit.operation == "VACUUM START") {
      // A START is superseded by its END, which is the later commit.
      health.last_vacuum_version = commit.version;
      health.last_vacuum_ms = commit.timestamp_ms;
    }
  }
  const log::LogSegment& segment = snapshot.log_segment();
  health.checkpoint_interval = log::CheckpointInterval(snapshot.metadata());
  if (segment.checkpoint) {
    health.last_checkpoint_version = segment.checkpoint->version;
    if (!segment.checkpoint->files.empty()) {
      health.last_checkpoint_ms = segment.checkpoint->files.front().modification_time_ms;
    }
    health.commits_since_checkpoint = snapshot.version() - segment.checkpoint->version;
  } else {
    health.commits_since_checkpoint = snapshot.version() + 1;
  }
}

void EstimateVacuum(const std::shared_ptr<const log::Snapshot>& snapshot, TableHealth& health) {
  log::VacuumOptions options;
  options.dry_run = true;
  options.log_operation = false;
  options.now_ms = health.now_ms;
  options.enforced_features = internal::EnforcedFeatures();
  try {
    log::VacuumResult planned = log::Vacuum(snapshot, options);
    health.vacuum = VacuumEstimate{static_cast<int64_t>(planned.files.size()), planned.bytes,
                                   health.now_ms - planned.delete_before_ms};
  } catch (const Error& error) {
    // A table silt cannot write (an unsupported writer feature) still gets the rest of its report.
    if (error.category() != ErrorCategory::kUnsupported) throw;
    health.vacuum_unavailable = error.what();
  }
}

void Advise(TableHealth& health) {
  const std::string threshold = FormatByteSize(health.small_file_bytes);
  if (health.compactable_small_files >= kMinSmallFilesForAdvice &&
      health.small_files >= kSmallFileShareForAdvice * health.num_files) {
    health.advice.push_back({"optimize", Percent(health.small_files, health.num_files) +
                                             " of files (" + std::to_string(health.small_files) +
                                             " of " + std::to_string(health.num_files) +
                                             ") are under " + threshold + ": run OPTIMIZE"});
  }
  if (health.vacuum && health.vacuum->files > 0) {
    health.advice.push_back(
        {"vacuum", "VACUUM would delete " + FormatByteSize(health.vacuum->bytes) + " in " +
                       std::to_string(health.vacuum->files) + " files no longer referenced " +
                       "and older than the retention (" +
                       FormatDuration(health.vacuum->retention_ms) + "): run VACUUM"});
  }
  if (health.dense_deletion_vector_files > 0) {
    health.advice.push_back(
        {"purge_deletion_vectors",
         std::to_string(health.dense_deletion_vector_files) + " of " +
             std::to_string(health.deletion_vectors.size()) +
             " files with deletion vectors have more than " +
             Percent(std::llround(health.dense_deletion_vector_ratio * 1000), 1000) +
             " of their rows deleted (" + std::to_string(health.deleted_rows) +
             " rows hidden): run OPTIMIZE (Spark: REORG TABLE ... APPLY (PURGE))"});
  }
  if (health.commits_since_checkpoint >=
      kCheckpointIntervalsForAdvice * health.checkpoint_interval) {
    std::string since = health.last_checkpoint_version
                            ? "since version " + std::to_string(*health.last_checkpoint_version)
                            : "since the table was created";
    health.advice.push_back(
        {"checkpoint", "no checkpoint for " + std::to_string(health.commits_since_checkpoint) +
                           " commits (" + since + "; delta.checkpointInterval is " +
                           std::to_string(health.checkpoint_interval) +
                           "): every reader replays them; write a checkpoint"});
  }
  if (health.partitions.size() >= 2 && health.median_partition_bytes > 0) {
    const PartitionHealth& largest = health.partitions.front();
    double skew = static_cast<double>(largest.bytes) / health.median_partition_bytes;
    if (skew >= kPartitionSkewForAdvice) {
      char ratio[32];
      std::snprintf(ratio, sizeof(ratio), "%.0f", skew);
      health.advice.push_back({"partition_skew", "partition " + largest.name + " holds " +
                                                     FormatByteSize(largest.bytes) + " in " +
                                                     std::to_string(largest.files) + " files, " +
                                                     ratio + "x the median partition (" +
                                                     FormatByteSize(health.median_partition_bytes) +
                                                     "): consider another partition column"});
    }
  }
}

void WriteOptionalInt(JsonWriter& json, std::string_view key, const std::optional<int64_t>& value) {
  json.Key(key);
  if (value) {
    json.Int(*value);
  } else {
    json.Null();
  }
}

void WriteInt(JsonWriter& json, std::string_view key, int64_t value) {
  json.Key(key);
  json.Int(value);
}

}  // namespace

TableHealth ComputeTableHealth(const std::shared_ptr<io::FileSystem>& fs,
                               const std::string& table_root, const TableHealthOptions& options) {
  SILT_USER_CHECK(options.small_file_bytes > 0, INVALID_ARGUMENT,
                  {{"message", "the small-file threshold must be positive"}});
  SILT_USER_CHECK(
      options.dense_deletion_vector_ratio >= 0 && options.dense_deletion_vector_ratio <= 1,
      INVALID_ARGUMENT, {{"message", "the deleted-rows ratio must be between 0 and 1"}});
  std::shared_ptr<const log::Snapshot> snapshot = log::Snapshot::Load(fs, table_root);
  TableHealth health;
  health.location = table_root;
  health.version = snapshot->version();
  health.timestamp_ms = snapshot->timestamp_ms();
  health.now_ms = options.now_ms.value_or(SystemNowMs());
  health.small_file_bytes = options.small_file_bytes;
  health.dense_deletion_vector_ratio = options.dense_deletion_vector_ratio;
  health.partition_columns = snapshot->metadata().partition_columns;
  health.target_file_bytes = TargetFileBytes(snapshot->metadata());

  std::unordered_map<std::string, int64_t> file_rows;
  for (const log::CommitFile& commit : log::ListCommits(*fs, table_root)) {
    // Commits written after the snapshot was loaded belong to the next report.
    if (commit.version > snapshot->version()) break;
    health.commits.push_back(ReadCommit(*fs, commit, file_rows));
  }
  // The latest version's time as its commit row shows it (DESCRIBE HISTORY's rule), so the two
  // agree even where the file time and commitInfo.timestamp differ.
  if (!health.commits.empty() && health.commits.back().version == health.version) {
    health.timestamp_ms = health.commits.back().timestamp_ms;
  }
  SummarizeFiles(*snapshot, options, health);
  SummarizeMaintenance(*snapshot, health);
  EstimateVacuum(snapshot, health);
  Advise(health);
  return health;
}

TableHealth ComputeTableHealth(sql::SessionState& session, const sql::QualifiedName& name,
                               const TableHealthOptions& options) {
  internal::DeltaTarget target =
      internal::ResolveDeltaTarget(session, name, sql::SourcePosition{}, "DESCRIBE HEALTH");
  return ComputeTableHealth(session.fs(), target.location, options);
}

std::string TableHealthJson(const TableHealth& health) {
  JsonWriter json;
  json.BeginObject();
  json.Key("location");
  json.String(health.location);
  WriteInt(json, "version", health.version);
  WriteInt(json, "timestamp", health.timestamp_ms);
  WriteInt(json, "now", health.now_ms);
  WriteInt(json, "numFiles", health.num_files);
  WriteInt(json, "sizeInBytes", health.size_bytes);
  WriteOptionalInt(json, "numRows", health.num_rows);

  json.Key("commits");
  json.BeginArray();
  for (const CommitHealth& commit : health.commits) {
    json.BeginObject();
    WriteInt(json, "version", commit.version);
    WriteInt(json, "timestamp", commit.timestamp_ms);
    json.Key("operation");
    json.String(commit.operation);
    WriteOptionalInt(json, "rowsAdded", commit.rows_added);
    WriteOptionalInt(json, "rowsRemoved", commit.rows_removed);
    WriteInt(json, "filesAdded", commit.files_added);
    WriteInt(json, "filesRemoved", commit.files_removed);
    WriteInt(json, "bytesAdded", commit.bytes_added);
    WriteInt(json, "bytesRemoved", commit.bytes_removed);
    WriteInt(json, "changeDataFiles", commit.change_data_files);
    WriteInt(json, "changeDataBytes", commit.change_data_bytes);
    json.EndObject();
  }
  json.EndArray();

  json.Key("fileSizes");
  json.BeginObject();
  WriteInt(json, "smallFileThreshold", health.small_file_bytes);
  WriteInt(json, "numSmallFiles", health.small_files);
  WriteInt(json, "smallFilesBytes", health.small_files_bytes);
  WriteInt(json, "numCompactableSmallFiles", health.compactable_small_files);
  WriteOptionalInt(json, "targetFileSize", health.target_file_bytes);
  WriteOptionalInt(json, "numFilesBelowHalfTarget",
                   health.target_file_bytes ? std::optional<int64_t>(health.files_below_half_target)
                                            : std::nullopt);
  json.Key("histogram");
  json.BeginArray();
  for (const SizeBucket& bucket : health.size_histogram) {
    json.BeginObject();
    WriteInt(json, "minBytes", bucket.lower_bytes);
    WriteOptionalInt(json, "maxBytes", bucket.upper_bytes);
    WriteInt(json, "numFiles", bucket.files);
    WriteInt(json, "sizeInBytes", bucket.bytes);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();

  json.Key("partitions");
  json.BeginObject();
  json.Key("columns");
  json.BeginArray();
  for (const std::string& column : health.partition_columns) json.String(column);
  json.EndArray();
  WriteInt(json, "medianSizeInBytes", health.median_partition_bytes);
  json.Key("values");
  json.BeginArray();
  for (const PartitionHealth& partition : health.partitions) {
    json.BeginObject();
    json.Key("name");
    json.String(partition.name);
    WriteInt(json, "numFiles", partition.files);
    WriteInt(json, "sizeInBytes", partition.bytes);
    WriteInt(json, "numSmallFiles", partition.small_files);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();

  json.Key("deletionVectors");
  json.BeginObject();
  json.Key("denseThreshold");
  json.Double(health.dense_deletion_vector_ratio);
  WriteInt(json, "numFiles", static_cast<int64_t>(health.deletion_vectors.size()));
  WriteInt(json, "numDenseFiles", health.dense_deletion_vector_files);
  WriteInt(json, "numDeletedRows", health.deleted_rows);
  json.Key("files");
  json.BeginArray();
  for (const DeletionVectorHealth& dv : health.deletion_vectors) {
    json.BeginObject();
    json.Key("path");
    json.String(dv.path);
    WriteOptionalInt(json, "numRecords", dv.rows);
    WriteInt(json, "numDeletedRows", dv.deleted_rows);
    json.Key("density");
    if (dv.density) {
      json.Double(*dv.density);
    } else {
      json.Null();
    }
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();

  json.Key("changeDataFeed");
  json.BeginObject();
  WriteInt(json, "numFiles", health.change_data_files);
  WriteInt(json, "sizeInBytes", health.change_data_bytes);
  json.EndObject();

  json.Key("maintenance");
  json.BeginObject();
  WriteOptionalInt(json, "lastOptimizeVersion", health.last_optimize_version);
  WriteOptionalInt(json, "lastOptimizeTimestamp", health.last_optimize_ms);
  WriteOptionalInt(json, "lastVacuumVersion", health.last_vacuum_version);
  WriteOptionalInt(json, "lastVacuumTimestamp", health.last_vacuum_ms);
  WriteOptionalInt(json, "lastCheckpointVersion", health.last_checkpoint_version);
  WriteOptionalInt(json, "lastCheckpointTimestamp", health.last_checkpoint_ms);
  WriteInt(json, "commitsSinceCheckpoint", health.commits_since_checkpoint);
  WriteInt(json, "checkpointInterval", health.checkpoint_interval);
  json.EndObject();

  json.Key("vacuum");
  if (health.vacuum) {
    json.BeginObject();
    WriteInt(json, "numFiles", health.vacuum->files);
    WriteInt(json, "sizeInBytes", health.vacuum->bytes);
    WriteInt(json, "retentionMillis", health.vacuum->retention_ms);
    json.EndObject();
  } else {
    json.BeginObject();
    json.Key("unavailable");
    json.String(health.vacuum_unavailable);
    json.EndObject();
  }

  json.Key("advice");
  json.BeginArray();
  for (const HealthAdvice& advice : health.advice) {
    json.BeginObject();
    json.Key("kind");
    json.String(advice.kind);
    json.Key("message");
    json.String(advice.message);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.Release();
}

std::string FormatByteSize(int64_t bytes) {
  static constexpr const char* kUnits[] = {"KB", "MB", "GB", "TB", "PB"};
  if (bytes < kKiB) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  value /= kKiB;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  // "8 MB" rather than "8.0 MB" for round sizes, so advice reads as people write thresholds.
  char text[32];
  bool whole = std::fabs(value - std::round(value)) < 0.05;
  std::snprintf(text, sizeof(text), whole ? "%.0f %s" : "%.1f %s", value, kUnits[unit]);
  return text;
}

std::string FormatDuration(int64_t ms) {
  char text[48];
  double seconds = static_cast<double>(ms) / 1000;
  if (seconds < 60) {
    std::snprintf(text, sizeof(text), "%.0f s", seconds);
  } else if (seconds < 3600) {
    std::snprintf(text, sizeof(text), "%.0f min", seconds / 60);
  } else if (seconds < 48 * 3600) {
    std::snprintf(text, sizeof(text), "%.1f h", seconds / 3600);
  } else {
    std::snprintf(text, sizeof(text), "%.1f days", seconds / 86400);
  }
  return text;
}

}  // namespace silt::commands
