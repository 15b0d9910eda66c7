#include "silt/stream/delta_source.h"

#include <algorithm>
#include <charconv>
#include <functional>

#include "silt/base/ascii.h"
#include "silt/base/check.h"
#include "silt/expr/cast.h"
#include "silt/io/path.h"
#include "silt/log/file_stats.h"
#include "silt/log/log_segment.h"
#include "silt/sql/ast_printer.h"
#include "silt/types/schema_json.h"

namespace silt::stream {

namespace {

bool Before(int64_t version, int64_t index, const DeltaSourceOffset& end) {
  return version < end.reservoir_version ||
         (version == end.reservoir_version && index <= end.index);
}

std::string SchemaText(const Schema& schema) { return schema.AsStruct()->ToString(); }

}  // namespace

std::unique_ptr<DeltaSource> DeltaSource::Open(std::shared_ptr<io::FileSystem> fs,
                                               std::string table_root, std::string display_name,
                                               const StreamOptions& options) {
  std::unique_ptr<DeltaSource> source(new DeltaSource());
  source->fs_ = std::move(fs);
  source->table_root_ = std::string(io::TrimTrailingSeparators(table_root));
  source->display_name_ = std::move(display_name);

  std::optional<std::string> version_text = options.Get("startingVersion");
  std::optional<std::string> timestamp_text = options.Get("startingTimestamp");
  if (version_text && timestamp_text) {
    SILT_THROW(DELTA_STARTING_VERSION_AND_TIMESTAMP_BOTH_SET,
               {{"version", "startingVersion"}, {"timestamp", "startingTimestamp"}});
  }
  if (version_text) {
    if (AsciiLower(*version_text) == "latest") {
      source->starting_latest_ = true;
    } else {
      int64_t version = 0;
      const char* end = version_text->data() + version_text->size();
      auto [ptr, error] = std::from_chars(version_text->data(), end, version);
      if (error != std::errc() || ptr != end || version < 0) {
        SILT_THROW(INVALID_STREAMING_OPTION,
                   {{"value", *version_text},
                    {"option", "startingVersion"},
                    {"reason", "expected a table version (a non-negative integer) or 'latest'"}});
      }
      source->starting_version_ = version;
    }
  }
  if (timestamp_text) {
    std::optional<int64_t> micros = expr::ParseSparkTimestamp(*timestamp_text);
    if (!micros) {
      SILT_THROW(INVALID_STREAMING_OPTION,
                 {{"value", *timestamp_text},
                  {"option", "startingTimestamp"},
                  {"reason", "expected a timestamp such as 2024-01-31 or 2024-01-31 12:00:00"}});
    }
    source->starting_timestamp_ms_ =
        *micros >= 0 ? *micros / 1000 : -((-*micros + 999) / 1000);
  }
  if (std::optional<int64_t> files = options.GetPositiveInt("maxFilesPerTrigger")) {
    source->max_files_ = *files;
  }
  source->max_bytes_ = options.GetByteSize("maxBytesPerTrigger");
  source->ignore_deletes_ = options.GetBool("ignoreDeletes", false);
  source->ignore_changes_ = options.GetBool("ignoreChanges", false);
  source->skip_change_commits_ = options.GetBool("skipChangeCommits", false);
  if (std::optional<std::string> pattern = options.Get("excludeRegex")) {
    try {
      source->exclude_regex_.emplace(*pattern);
    } catch (const std::regex_error& error) {
      SILT_THROW(INVALID_STREAMING_OPTION,
                 {{"value", *pattern}, {"option", "excludeRegex"}, {"reason", error.what()}});
    }
  }
  source->read_change_feed_ = options.GetBool("readChangeFeed", false);

  source->read_snapshot_ = log::Snapshot::Load(source->fs_, source->table_root_);
  source->schema_ = std::make_shared<const Schema>(source->read_snapshot_->schema());
  if (source->read_change_feed_) {
    std::vector<Field> fields = source->schema_->fields();
    fields.push_back(Field{"_change_type", StringType(), true, {}});
    fields.push_back(Field{"_commit_version", LongType(), true, {}});
    fields.push_back(Field{"_commit_timestamp", TimestampType(), true, {}});
    source->output_schema_ = std::make_shared<const Schema>(std::move(fields));
  } else {
    source->output_schema_ = source->schema_;
  }
  source->table_id_ = source->read_snapshot_->metadata().id;
  source->latest_known_ = source->read_snapshot_->version();
  return source;
}

std::string DeltaSource::Describe() const { return "DeltaSource[" + table_root_ + "]"; }

DeltaSourceOffset DeltaSource::ParseOffset(const std::string& text) const {
  DeltaSourceOffset offset = DeltaSourceOffset::Parse(text);
  if (offset.reservoir_id != table_id_) {
    SILT_THROW(DIFFERENT_DELTA_TABLE_READ_BY_STREAMING_SOURCE,
               {{"newTableId", table_id_}, {"oldTableId", offset.reservoir_id}});
  }
  return offset;
}

std::string DeltaSource::OffsetText(const Position& position) const {
  return DeltaSourceOffset{table_id_, position.version, position.index, position.starting}
      .ToJson();
}

std::string DeltaSource::InitialOffset() {
  int64_t latest = read_snapshot_->version();
  if (starting_version_) return OffsetText({*starting_version_, DeltaSourceOffset::kBaseIndex});
  if (starting_latest_) return OffsetText({latest + 1, DeltaSourceOffset::kBaseIndex});
  if (starting_timestamp_ms_) {
    // The first commit at or after the timestamp; after the latest commit: the next one.
    int64_t version = latest + 1;
    for (const log::CommitTimestamp& commit : log::ListCommitTimestamps(*fs_, table_root_)) {
      if (commit.timestamp_ms >= *starting_timestamp_ms_) {
        version = commit.version;
        break;
      }
    }
    return OffsetText({version, DeltaSourceOffset::kBaseIndex});
  }
  return OffsetText({latest, DeltaSourceOffset::kBaseIndex, /*starting=*/true});
}

void DeltaSource::ValidateOffset(const std::string& offset) { ParseOffset(offset); }

void DeltaSource::PrepareForAvailableNow() { available_now_version_ = LatestVersion(); }

int64_t DeltaSource::LatestVersion() {
  std::string log_dir = io::JoinPath(table_root_, "_delta_log");
  std::string start_after =
      latest_known_ >= 0 ? log::FormatVersion(latest_known_) + ".json" : std::string();
  for (const io::FileInfo& entry : fs_->List(log_dir, start_after)) {
    std::optional<log::LogFileName> name = log::ParseLogFileName(io::BaseName(entry.path));
    if (name && name->type == log::LogFileName::Type::kCommit) {
      latest_known_ = std::max(latest_known_, name->version);
    }
  }
  return latest_known_;
}

const std::vector<log::AddFile>& DeltaSource::InitialFiles(int64_t version) {
  auto it = initial_files_.find(version);
  if (it != initial_files_.end()) return it->second;
  log::SnapshotOptions options;
  options.version = version;
  auto snapshot = log::Snapshot::Load(fs_, table_root_, options);
  initial_timestamps_[version] = snapshot->timestamp_ms();
  std::vector<log::AddFile> files = snapshot->files();
  std::sort(files.begin(), files.end(), [](const log::AddFile& a, const log::AddFile& b) {
    return a.modification_time != b.modification_time ? a.modification_time < b.modification_time
                                                       : a.path < b.path;
  });
  return initial_files_.emplace(version, std::move(files)).first->second;
}

const DeltaSource::CommitChanges& DeltaSource::Changes(int64_t version) {
  auto it = changes_.find(version);
  if (it != changes_.end()) return it->second;
  std::string path =
      io::JoinPath(io::JoinPath(table_root_, "_delta_log"), log::FormatVersion(version) + ".json");
  CommitChanges changes;
  std::vector<std::string> removed;
  int64_t change_bytes = 0;
  bool has_changes = false;
  for (log::Action& action : log::ParseActions(fs_->ReadFile(path), path)) {
    if (auto* add = std::get_if<log::AddFile>(&action)) {
      if (add->data_change) {
        has_changes = true;
        change_bytes += add->size;
        changes.adds.push_back(std::move(*add));
      }
    } else if (auto* remove = std::get_if<log::RemoveFile>(&action)) {
      if (remove->data_change) {
        has_changes = true;
        removed.push_back(remove->path);
      }
    } else if (auto* cdc = std::get_if<log::AddCdcFile>(&action)) {
      has_changes = true;
      change_bytes += cdc->size;
    } else if (auto* metadata = std::get_if<log::Metadata>(&action)) {
      Schema schema = ParseDeltaSchema(metadata->schema_string);
      if (!(schema == *schema_)) changes.schema = std::move(schema);
    }
  }
  if (read_change_feed_) {
    // The whole commit is one unit; its changes are read through the change feed.
    changes.adds.clear();
    if (has_changes) {
      log::AddFile unit;
      unit.size = change_bytes;
      changes.adds.push_back(std::move(unit));
    }
    return changes_.emplace(version, std::move(changes)).first->second;
  }
  if (!removed.empty()) {
    if (skip_change_commits_) {
      changes.adds.clear();
    } else if (!changes.adds.empty()) {
      if (!ignore_changes_) {
        changes.removed_path = removed.front();
        changes.with_adds = true;
      }
    } else if (!ignore_deletes_ && !ignore_changes_) {
      changes.removed_path = removed.front();
    }
  }
  return changes_.emplace(version, std::move(changes)).first->second;
}

bool DeltaSource::Excluded(const log::AddFile& file) const {
  // A change feed commit (no path) is never excluded.
  return exclude_regex_ && !file.path.empty() && std::regex_search(file.path, *exclude_regex_);
}

void DeltaSource::ThrowFailure(int64_t version, const CommitChanges& changes) const {
  if (changes.schema) {
    bool starting_options = starting_version_ || starting_latest_ || starting_timestamp_ms_;
    throw MakeError(starting_options ? ErrorClass::DELTA_SCHEMA_CHANGED_WITH_STARTING_OPTIONS
                                     : ErrorClass::DELTA_SCHEMA_CHANGED_WITH_VERSION,
                    {{"version", std::to_string(version)},
                     {"readSchema", SchemaText(*schema_)},
                     {"dataSchema", SchemaText(*changes.schema)}});
  }
  SILT_CHECK(changes.removed_path.has_value(), "a commit that fails the stream");
  if (changes.with_adds) {
    SILT_THROW(DELTA_SOURCE_TABLE_IGNORE_CHANGES, {{"file", *changes.removed_path},
                                                   {"version", std::to_string(version)},
                                                   {"dataPath", table_root_}});
  }
  SILT_THROW(DELTA_SOURCE_IGNORE_DELETE, {{"removedFile", *changes.removed_path},
                                          {"version", std::to_string(version)},
                                          {"dataPath", table_root_}});
}

DeltaSource::Position DeltaSource::Walk(
    const Position& start, std::optional<int64_t> last_version,
    const std::function<bool(const Position&, const log::AddFile&)>& visit,
    bool* stopped_at_failure) {
  Position position = start;
  auto moved = [&] {
    return position.version != start.version || position.index != start.index ||
           position.starting != start.starting;
  };
  if (start.starting) {
    const std::vector<log::AddFile>& files = InitialFiles(start.version);
    for (int64_t i = start.index + 1; i < static_cast<int64_t>(files.size()); ++i) {
      Position here{start.version, i, true};
      if (!Excluded(files[i]) && !visit(here, files[i])) return position;
      position = here;
    }
    position = Position{start.version + 1, DeltaSourceOffset::kBaseIndex, false};
  }
  int64_t latest = LatestVersion();
  if (last_version) latest = std::min(latest, *last_version);
  for (int64_t version = position.version; version <= latest; ++version) {
    // A version the caller's end bound excludes as a whole.
    Position base{version, DeltaSourceOffset::kBaseIndex, false};
    if (!visit(base, log::AddFile{})) return position;
    const CommitChanges& changes = Changes(version);
    if (changes.schema || changes.removed_path) {
      if (stopped_at_failure != nullptr && moved()) {
        *stopped_at_failure = true;
        return position;
      }
      ThrowFailure(version, changes);
    }
    int64_t first = version == start.version && !start.starting ? start.index + 1 : 0;
    for (int64_t i = first; i < static_cast<int64_t>(changes.adds.size()); ++i) {
      Position here{version, i, false};
      if (!Excluded(changes.adds[i]) && !visit(here, changes.adds[i])) return position;
      position = here;
    }
    position = Position{version + 1, DeltaSourceOffset::kBaseIndex, false};
  }
  return position;
}

std::optional<std::string> DeltaSource::LatestOffset(const std::string& start_text) {
  DeltaSourceOffset start = ParseOffset(start_text);
  // Versions before the start are never read again.
  changes_.erase(changes_.begin(), changes_.lower_bound(start.reservoir_version));
  int64_t files = 0;
  int64_t bytes = 0;
  auto admit = [&](const Position& position, const log::AddFile& file) {
    if (position.index == DeltaSourceOffset::kBaseIndex) return true;  // a version boundary
    if (files >= max_files_) return false;
    if (max_bytes_ && files > 0 && bytes >= *max_bytes_) return false;
    ++files;
    bytes += file.size;
    return true;
  };
  bool stopped = false;
  Position end = Walk({start.reservoir_version, start.index, start.is_starting_version},
                      available_now_version_, admit, &stopped);
  if (end.version == start.reservoir_version && end.index == start.index &&
      end.starting == start.is_starting_version) {
    return std::nullopt;
  }
  return OffsetText(end);
}

BatchInput DeltaSource::PlanBatch(const std::string& start_text, const std::string& end_text) {
  DeltaSourceOffset start = ParseOffset(start_text);
  DeltaSourceOffset end = ParseOffset(end_text);
  BatchInput input;
  std::vector<log::AddFile> files;
  std::optional<int64_t> first_commit;
  std::optional<int64_t> last_commit;
  int64_t rows = 0;
  bool rows_known = true;
  auto take = [&](const Position& position, const log::AddFile& file) {
    if (position.index == DeltaSourceOffset::kBaseIndex) {
      // The version is in the batch when the end lies past its start.
      return position.version < end.reservoir_version ||
             (position.version == end.reservoir_version &&
              end.index > DeltaSourceOffset::kBaseIndex);
    }
    if (!Before(position.version, position.index, end)) return false;
    input.num_bytes += file.size;
    if (read_change_feed_ && !position.starting) {
      if (!first_commit) first_commit = position.version;
      last_commit = position.version;
      rows_known = false;
      return true;
    }
    std::optional<int64_t> records;
    if (file.stats) records = log::FileStats::Parse(*file.stats, file.path).num_records();
    if (records) {
      rows += *records - (file.deletion_vector ? file.deletion_vector->cardinality : 0);
    } else {
      rows_known = false;
    }
    files.push_back(file);
    return true;
  };
  Walk({start.reservoir_version, start.index, start.is_starting_version}, end.reservoir_version,
       take, nullptr);
  input.num_files = static_cast<int64_t>(files.size());
  if (rows_known) input.num_rows = rows;
  if (read_change_feed_) {
    if (first_commit) input.num_files += *last_commit - *first_commit + 1;
    // The snapshot's rows as inserts at its version, then the commits' changes.
    int64_t version = start.is_starting_version ? start.reservoir_version : 0;
    auto timestamp = initial_timestamps_.find(version);
    std::string columns;
    for (const Field& field : schema_->fields()) {
      columns += sql::QuoteIdentifier(field.name) + ", ";
    }
    input.query_sql = "SELECT " + columns + "'insert' AS _change_type, CAST(" +
                      std::to_string(version) + " AS BIGINT) AS _commit_version, " +
                      "timestamp_millis(" +
                      std::to_string(timestamp == initial_timestamps_.end() ? 0 : timestamp->second) +
                      ") AS _commit_timestamp FROM " + std::string(kStreamSnapshotName);
    if (first_commit) {
      std::string path = table_root_;
      std::string quoted = "'";
      for (char c : path) {
        if (c == '\\' || c == '\'') quoted += '\\';
        quoted += c;
      }
      quoted += "'";
      input.query_sql += " UNION ALL SELECT * FROM table_changes_by_path(" + quoted + ", " +
                         std::to_string(*first_commit) + ", " + std::to_string(*last_commit) + ")";
    }
  }
  input.snapshot = read_snapshot_->WithFiles(std::move(files));
  return input;
}

}  // namespace silt::stream
