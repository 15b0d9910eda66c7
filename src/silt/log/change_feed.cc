#include "silt/log/change_feed.h"

#include <algorithm>
#include <map>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/io/path.h"
#include "silt/log/checkpoint_reader.h"
#include "silt/log/deletion_vector.h"
#include "silt/log/log_segment.h"
#include "silt/log/partition_values.h"
#include "silt/log/snapshot.h"
#include "silt/log/table_features.h"
#include "silt/parquet/reader.h"
#include "silt/types/date_time.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

constexpr const char* kChangeDataFeedProperty = "delta.enableChangeDataFeed";

std::string FormatMillis(int64_t ms) { return FormatTimestamp(ms * 1000); }

bool FeedEnabled(const Metadata& metadata) { return IsFeatureActive("changeDataFeed", metadata); }

[[noreturn]] void ThrowMissingChangeData(int64_t start, int64_t end, int64_t version) {
  SILT_THROW(DELTA_MISSING_CHANGE_DATA, {{"startVersion", std::to_string(start)},
                                         {"endVersion", std::to_string(end)},
                                         {"version", std::to_string(version)},
                                         {"key", kChangeDataFeedProperty}});
}

// The actions of one commit that the plan needs.
struct CommitActions {
  int64_t version = 0;
  int64_t file_time_ms = 0;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::optional<int64_t> in_commit_timestamp;
  std::vector<AddFile> adds;
  std::vector<RemoveFile> removes;
  std::vector<AddCdcFile> cdcs;
};

CommitActions ParseCommit(io::FileSystem& fs, const CommitFile& commit) {
  CommitActions result;
  result.version = commit.version;
  result.file_time_ms = commit.file.modification_time_ms;
  for (Action& action : ParseActions(fs.ReadFile(commit.file.path), commit.file.path)) {
    if (auto* add = std::get_if<AddFile>(&action)) {
      if (add->data_change) result.adds.push_back(std::move(*add));
    } else if (auto* remove = std::get_if<RemoveFile>(&action)) {
      if (remove->data_change) result.removes.push_back(std::move(*remove));
    } else if (auto* cdc = std::get_if<AddCdcFile>(&action)) {
      result.cdcs.push_back(std::move(*cdc));
    } else if (auto* metadata = std::get_if<Metadata>(&action)) {
      result.metadata = std::move(*metadata);
    } else if (auto* protocol = std::get_if<Protocol>(&action)) {
      result.protocol = std::move(*protocol);
    } else if (auto* info = std::get_if<CommitInfo>(&action)) {
      result.in_commit_timestamp = info->in_commit_timestamp;
    }
  }
  return result;
}

// Fills the protocol and metadata still missing from `protocol` / `metadata` with those in effect
// at `version`: from the commits before it (newest first) back to the checkpoint, of which only
// the protocol and metaData columns are read; the commit at `version` itself is skipped when
// the caller has read it. A snapshot would replay every file action of the table; the feed needs
// none of them.
void LoadProtocolAndMetadata(io::FileSystem& fs, const std::string& root, int64_t version,
                             bool version_read, std::optional<Protocol>& protocol,
                             std::optional<Metadata>& metadata) {
  LogSegmentOptions segment_options;
  segment_options.version = version;
  segment_options.use_compactions = false;
  LogSegment segment = BuildLogSegment(fs, root, segment_options);
  auto take = [&](std::vector<Action>& actions) {
    for (Action& action : actions) {
      if (auto* found = std::get_if<Protocol>(&action); found && !protocol) {
        protocol = std::move(*found);
      } else if (auto* found_metadata = std::get_if<Metadata>(&action); found_metadata && !metadata) {
        metadata = std::move(*found_metadata);
      }
    }
  };
  for (auto commit = segment.commits.rbegin(); commit != segment.commits.rend(); ++commit) {
    if (protocol && metadata) return;
    if (version_read && commit->version == version) continue;
    std::vector<Action> actions = ParseActions(fs.ReadFile(commit->file.path), commit->file.path);
    // Within one commit the last metaData wins; commits hold at most one of each in practice.
    std::reverse(actions.begin(), actions.end());
    take(actions);
  }
  if ((protocol && metadata) || !segment.checkpoint) return;
  for (const io::FileInfo& part : segment.checkpoint->files) {
    bool json = part.path.size() > 5 && part.path.substr(part.path.size() - 5) == ".json";
    std::vector<Action> actions;
    if (json) {
      actions = ParseActions(fs.ReadFile(part.path), part.path);
    } else {
      auto reader = parquet::FileReader::Open(fs, part.path);
      parquet::ReadOptions options;
      for (const char* column : {"protocol", "metaData"}) {
        if (reader->schema().FieldIndex(column, /*case_sensitive=*/true) >= 0) {
          options.columns.push_back(column);
        }
      }
      if (options.columns.empty()) continue;
      for (const Batch& batch : reader->Read(options)) {
        std::vector<Action> batch_actions = ActionsFromCheckpointBatch(batch, part.path);
        for (Action& action : batch_actions) actions.push_back(std::move(action));
      }
    }
    take(actions);
  }
}

// False when `version` fails one of the conjuncts on _commit_version.
bool VersionMayMatch(int64_t version, const std::vector<ScanPredicate>& predicates) {
  for (const ScanPredicate& predicate : predicates) {
    int64_t value = 0;
    try {
      value = std::stoll(predicate.value);
    } catch (const std::exception&) {
      continue;  // not an integer literal: left to the row filter
    }
    bool matches = true;
    switch (predicate.op) {
      case ScanPredicate::Op::kEqual: matches = version == value; break;
      case ScanPredicate::Op::kLess: matches = version < value; break;
      case ScanPredicate::Op::kLessOrEqual: matches = version <= value; break;
      case ScanPredicate::Op::kGreater: matches = version > value; break;
      case ScanPredicate::Op::kGreaterOrEqual: matches = version >= value; break;
      default: break;
    }
    if (!matches) return false;
  }
  return true;
}

// Ascending `a` minus ascending `b`.
std::vector<uint64_t> Difference(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> result;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(result));
  return result;
}

// The change files of one commit (protocol §15 reader algorithm).
void AddChangeFiles(io::FileSystem& fs, const std::string& table_root, CommitActions& commit,
                    int64_t timestamp_ms, std::vector<ChangeFile>& out) {
  auto base = [&](std::string path, PartitionValueMap partition_values, int64_t size) {
    ChangeFile file;
    file.version = commit.version;
    file.timestamp_ms = timestamp_ms;
    file.path = std::move(path);
    file.partition_values = std::move(partition_values);
    file.size = size;
    return file;
  };
  // A commit with cdc files records exactly its changes in them.
  if (!commit.cdcs.empty()) {
    for (AddCdcFile& cdc : commit.cdcs) {
      out.push_back(base(std::move(cdc.path), std::move(cdc.partition_values), cdc.size));
    }
    return;
  }
  // A file removed and re-added in one commit with a different deletion vector changed only in
  // the rows whose deletion state differs.
  std::map<std::string, size_t> removed_by_path;  // canonical path -> index in removes
  for (size_t i = 0; i < commit.removes.size(); ++i) {
    removed_by_path.emplace(CanonicalLogPath(commit.removes[i].path), i);
  }
  std::vector<bool> remove_paired(commit.removes.size(), false);
  std::vector<ChangeFile> inserts;
  for (AddFile& add : commit.adds) {
    auto it = removed_by_path.find(CanonicalLogPath(add.path));
    bool paired = it != removed_by_path.end() && !remove_paired[it->second] &&
                  (add.deletion_vector || commit.removes[it->second].deletion_vector);
    if (!paired) {
      ChangeFile file = base(add.path, add.partition_values, add.size);
      file.change_type = "insert";
      file.deletion_vector = add.deletion_vector;
      inserts.push_back(std::move(file));
      continue;
    }
    remove_paired[it->second] = true;
    const RemoveFile& remove = commit.removes[it->second];
    auto load = [&](const std::optional<DeletionVectorDescriptor>& dv) {
      if (!dv) return std::vector<uint64_t>{};
      try {
        return LoadDeletionVector(fs, table_root, *dv).ToVector();
      } catch (const Error& error) {
        if (error.error_class() != "PATH_NOT_FOUND") throw;
        SILT_THROW(DELTA_CHANGE_DATA_FILE_NOT_FOUND,
                   {{"filePath", DeletionVectorPath(*dv, table_root)}});
      }
    };
    std::vector<uint64_t> before = load(remove.deletion_vector);
    std::vector<uint64_t> after = load(add.deletion_vector);
    std::vector<uint64_t> deleted = Difference(after, before);
    std::vector<uint64_t> restored = Difference(before, after);
    if (!deleted.empty()) {
      ChangeFile file = base(add.path, add.partition_values, add.size);
      file.change_type = "delete";
      file.selected_rows = std::make_shared<const std::vector<uint64_t>>(std::move(deleted));
      out.push_back(std::move(file));
    }
    if (!restored.empty()) {
      ChangeFile file = base(add.path, add.partition_values, add.size);
      file.change_type = "insert";
      file.selected_rows = std::make_shared<const std::vector<uint64_t>>(std::move(restored));
      out.push_back(std::move(file));
    }
  }
  for (size_t i = 0; i < commit.removes.size(); ++i) {
    if (remove_paired[i]) continue;
    RemoveFile& remove = commit.removes[i];
    ChangeFile file = base(remove.path, remove.partition_values.value_or(PartitionValueMap{}),
                           remove.size.value_or(0));
    file.change_type = "delete";
    file.deletion_vector = remove.deletion_vector;
    out.push_back(std::move(file));
  }
  for (ChangeFile& file : inserts) out.push_back(std::move(file));
}

}  // namespace

std::shared_ptr<const ChangeFeed> ChangeFeed::Make(std::shared_ptr<io::FileSystem> fs,
                                                   std::string table_root,
                                                   const ChangeFeedOptions& options) {
  std::string root(io::TrimTrailingSeparators(table_root));
  std::vector<CommitFile> commits = ListCommits(*fs, root);
  if (commits.empty()) SILT_THROW(DELTA_MISSING_DELTA_TABLE, {{"tableName", root}});
  int64_t latest = commits.back().version;
  // The commits still in the log that a change feed can read: the contiguous run ending at the
  // latest one (older commits may have been cleaned up).
  size_t first_available = commits.size() - 1;
  while (first_available > 0 &&
         commits[first_available - 1].version == commits[first_available].version - 1) {
    --first_available;
  }
  int64_t earliest = commits[first_available].version;
  auto version_not_found = [&](int64_t version) {
    SILT_THROW(DELTA_VERSION_NOT_FOUND, {{"userVersion", std::to_string(version)},
                                         {"earliest", std::to_string(earliest)},
                                         {"latest", std::to_string(latest)}});
  };

  // Commit timestamps are only listed when a bound is a timestamp.
  std::vector<CommitTimestamp> timestamps;
  auto load_timestamps = [&]() -> const std::vector<CommitTimestamp>& {
    if (timestamps.empty()) timestamps = ListCommitTimestamps(*fs, root);
    return timestamps;
  };
  int64_t start = 0;
  if (options.start.kind == ChangeFeedBound::Kind::kVersion) {
    start = options.start.version;
    if (start < 0) version_not_found(start);
    if (start > latest) {
      SILT_THROW(DELTA_CDC_START_VERSION_AFTER_LATEST,
                 {{"start", std::to_string(start)}, {"latest", std::to_string(latest)}});
    }
  } else {
    const auto& list = load_timestamps();
    int64_t wanted = options.start.timestamp_ms;
    if (list.empty() || wanted > list.back().timestamp_ms) {
      SILT_THROW(DELTA_TIMESTAMP_GREATER_THAN_COMMIT,
                 {{"providedTimestamp", FormatMillis(wanted)},
                  {"tableName", root},
                  {"maximumTimestamp", list.empty() ? "" : FormatMillis(list.back().timestamp_ms)}});
    }
    auto it = std::lower_bound(list.begin(), list.end(), wanted,
                               [](const CommitTimestamp& commit, int64_t value) {
                                 return commit.timestamp_ms < value;
                               });
    start = it->version;
  }
  int64_t end = latest;
  if (options.end) {
    if (options.end->kind == ChangeFeedBound::Kind::kVersion) {
      end = std::min(options.end->version, latest);
    } else {
      const auto& list = load_timestamps();
      int64_t wanted = options.end->timestamp_ms;
      auto it = std::upper_bound(list.begin(), list.end(), wanted,
                                 [](int64_t value, const CommitTimestamp& commit) {
                                   return value < commit.timestamp_ms;
                                 });
      end = it == list.begin() ? (list.empty() ? -1 : list.front().version - 1)
                               : std::prev(it)->version;
    }
  }
  bool both_timestamps = options.start.kind == ChangeFeedBound::Kind::kTimestamp && options.end &&
                         options.end->kind == ChangeFeedBound::Kind::kTimestamp;
  if (start > end) {
    // Two timestamps in the same gap between commits select no commit: an empty feed.
    bool same_gap = both_timestamps && start == end + 1 &&
                    options.start.timestamp_ms <= options.end->timestamp_ms;
    if (!same_gap) {
      SILT_THROW(DELTA_INVALID_CDC_RANGE,
                 {{"start", std::to_string(start)}, {"end", std::to_string(end)}});
    }
  }

  std::shared_ptr<ChangeFeed> feed(new ChangeFeed());
  feed->fs_ = fs;
  feed->table_root_ = root;
  feed->start_version_ = start;
  feed->end_version_ = end;
  feed->latest_version_ = latest;

  // The commits of the range, and nothing else.
  std::vector<CommitFile> range;
  if (start <= end) {
    if (start < earliest) version_not_found(start);
    size_t first = first_available + static_cast<size_t>(start - earliest);
    range.assign(commits.begin() + static_cast<std::ptrdiff_t>(first),
                 commits.begin() + static_cast<std::ptrdiff_t>(first + (end - start) + 1));
  }
  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();
  std::vector<CommitActions> parsed(range.size());
  pool.ParallelFor(range.size(), [&](size_t i) { parsed[i] = ParseCommit(*fs, range[i]); });
  feed->commits_read_ = static_cast<int64_t>(range.size());

  // The protocol and metadata as of the start version: the start commit's own when it has them,
  // otherwise the log before it.
  int64_t at = start;
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  if (!parsed.empty()) {
    protocol = parsed.front().protocol;
    metadata = parsed.front().metadata;
  }
  if (!protocol || !metadata) {
    LoadProtocolAndMetadata(*fs, root, at, /*version_read=*/!parsed.empty(), protocol, metadata);
  }
  if (!protocol || !metadata) {
    SILT_THROW(DELTA_STATE_RECOVER_ERROR,
               {{"operation", !protocol ? "protocol" : "metadata"}, {"version", std::to_string(at)}});
  }
  CheckReadSupported(*protocol, root);
  if (!FeedEnabled(*metadata)) ThrowMissingChangeData(start, end, at);

  int64_t previous_time = INT64_MIN;
  std::vector<int64_t> commit_times;
  commit_times.reserve(parsed.size());
  for (CommitActions& commit : parsed) {
    if (commit.protocol) {
      CheckReadSupported(*commit.protocol, root);
      protocol = commit.protocol;
    }
    if (commit.metadata) {
      if (!FeedEnabled(*commit.metadata)) ThrowMissingChangeData(start, end, commit.version);
      metadata = std::move(commit.metadata);
    }
    // In-commit timestamps where the commit has one; otherwise file times, made increasing as
    // the table's history shows them.
    int64_t timestamp = commit.file_time_ms;
    if (commit.in_commit_timestamp) {
      timestamp = *commit.in_commit_timestamp;
    } else if (previous_time != INT64_MIN && timestamp <= previous_time) {
      timestamp = previous_time + 1;
    }
    previous_time = timestamp;
    commit_times.push_back(timestamp);
  }
  // Commits with deletion-vector changes read their DVs here, so commits are planned in parallel.
  std::vector<std::vector<ChangeFile>> per_commit(parsed.size());
  pool.ParallelFor(parsed.size(), [&](size_t i) {
    AddChangeFiles(*fs, root, parsed[i], commit_times[i], per_commit[i]);
  });
  for (auto& files : per_commit) {
    for (ChangeFile& file : files) feed->files_.push_back(std::move(file));
  }
  feed->metadata_ = std::move(*metadata);

  std::vector<Field> fields = ParseDeltaSchema(feed->metadata_.schema_string).fields();
  fields.push_back(Field{kChangeTypeColumn, StringType(), true, {}});
  fields.push_back(Field{kCommitVersionColumn, LongType(), false, {}});
  fields.push_back(Field{kCommitTimestampColumn, TimestampType(), false, {}});
  feed->schema_ = std::make_shared<const Schema>(std::move(fields));
  return feed;
}

std::unique_ptr<ChangeFeedReader> ChangeFeed::MakeReader(std::vector<int> columns, ThreadPool* pool,
                                                         std::vector<ScanPredicate> predicates) const {
  int total = static_cast<int>(schema_->num_fields());
  if (columns.empty()) {
    for (int i = 0; i < total; ++i) columns.push_back(i);
  }
  int table_columns = static_cast<int>(num_table_columns());
  std::unique_ptr<ChangeFeedReader> reader(new ChangeFeedReader());
  reader->feed_ = shared_from_this();
  reader->pool_ = pool;
  ScanOptions scan_options;
  scan_options.pool = pool;
  bool any_cdc = std::any_of(files_.begin(), files_.end(),
                             [](const ChangeFile& file) { return !file.change_type; });
  std::vector<Field> output_fields;
  for (int column : columns) {
    SILT_USER_CHECK(column >= 0 && column < total, INVALID_ARGUMENT,
                    {{"message", "change feed column " + std::to_string(column) + " out of range"}});
    const Field& field = schema_->field(static_cast<size_t>(column));
    output_fields.push_back(field);
    if (column < table_columns) {
      reader->scan_position_.push_back(static_cast<int>(scan_options.columns.size()));
      scan_options.columns.push_back(field.name);
    } else {
      reader->scan_position_.push_back(-1);
    }
  }
  // An empty column list means the whole table to TableScan: read one column instead when only
  // change columns are wanted.
  if (scan_options.columns.empty() && table_columns > 0) {
    scan_options.columns.push_back(schema_->field(0).name);
  }
  // cdc files carry _change_type as a stored column, read after the table's columns.
  if (any_cdc) {
    for (size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == table_columns) {
        reader->scan_position_[i] = static_cast<int>(scan_options.columns.size());
      }
    }
    Field change_type;
    change_type.name = kChangeTypeColumn;
    change_type.type = StringType();
    scan_options.extra_columns.push_back(change_type);
  }
  reader->columns_ = std::move(columns);
  reader->schema_ = std::make_shared<const Schema>(std::move(output_fields));
  // Predicates on table columns prune through TableScan (partition values, row-group
  // statistics); those on _commit_version prune whole commits here; the other change columns
  // are left to the row filter.
  std::vector<ScanPredicate> version_predicates;
  for (ScanPredicate& predicate : predicates) {
    int index = schema_->FieldIndex(predicate.column, /*case_sensitive=*/false);
    if (index >= 0 && index < table_columns) {
      scan_options.predicates.push_back(std::move(predicate));
    } else if (index == table_columns + 1 && predicate.op != ScanPredicate::Op::kIsNull &&
               predicate.op != ScanPredicate::Op::kIsNotNull) {
      version_predicates.push_back(std::move(predicate));
    }
  }
  reader->scan_ = TableScan::MakeForMetadata(fs_, table_root_, metadata_, std::move(scan_options));
  for (const ChangeFile& file : files_) {
    if (!VersionMayMatch(file.version, version_predicates)) continue;
    AddFile add;
    add.path = file.path;
    add.partition_values = file.partition_values;
    if (!reader->scan_->MayContainMatches(add)) continue;
    reader->files_.push_back(&file);
  }
  return reader;
}

class ChangeFeedReader::OpenedChangeFile final : public TableScan::OpenedFile {
 public:
  OpenedChangeFile(const ChangeFeedReader& reader, const ChangeFile& file,
                   std::unique_ptr<TableScan::OpenedFile> opened)
      : reader_(reader), file_(file), opened_(std::move(opened)) {}

  const std::vector<int>& row_groups() const override { return opened_->row_groups(); }
  int num_row_groups() const override { return opened_->num_row_groups(); }

  Batch ReadRowGroup(int index, std::vector<uint64_t>* positions) const override {
    Batch scanned = opened_->ReadRowGroup(index, positions);
    int64_t rows = scanned.num_rows();
    int table_columns = static_cast<int>(reader_.feed_->num_table_columns());
    std::vector<VectorPtr> vectors;
    vectors.reserve(reader_.columns_.size());
    for (size_t i = 0; i < reader_.columns_.size(); ++i) {
      int column = reader_.columns_[i];
      int position = reader_.scan_position_[i];
      const DataTypePtr& type = reader_.schema_->field(i).type;
      if (column < table_columns) {
        vectors.push_back(scanned.column(static_cast<size_t>(position)));
      } else if (column == table_columns) {
        if (file_.change_type) {
          vectors.push_back(MakeConstantVector(type, Scalar(*file_.change_type), rows));
        } else {
          vectors.push_back(scanned.column(static_cast<size_t>(position)));
        }
      } else if (column == table_columns + 1) {
        vectors.push_back(MakeConstantVector(type, Scalar(file_.version), rows));
      } else {
        vectors.push_back(MakeConstantVector(type, Scalar(file_.timestamp_ms * 1000), rows));
      }
    }
    return Batch(reader_.schema_, std::move(vectors), rows);
  }

 private:
  const ChangeFeedReader& reader_;
  const ChangeFile& file_;
  std::unique_ptr<TableScan::OpenedFile> opened_;
};

std::unique_ptr<TableScan::OpenedFile> ChangeFeedReader::OpenFile(size_t index) const {
  SILT_CHECK(index < files_.size(), "change file index out of range");
  const ChangeFile& file = *files_[index];
  AddFile add;
  add.path = file.path;
  add.partition_values = file.partition_values;
  add.size = file.size;
  add.deletion_vector = file.deletion_vector;
  std::unique_ptr<TableScan::OpenedFile> opened;
  try {
    opened = file.selected_rows ? scan_->OpenFile(add, file.selected_rows) : scan_->OpenFile(add);
  } catch (const Error& error) {
    if (error.error_class() != "PATH_NOT_FOUND") throw;
    std::string path = CanonicalLogPath(file.path);
    if (path.empty() || path[0] != '/') path = io::JoinPath(feed_->table_root(), path);
    SILT_THROW(DELTA_CHANGE_DATA_FILE_NOT_FOUND, {{"filePath", path}});
  }
  return std::make_unique<OpenedChangeFile>(*this, file, std::move(opened));
}

std::vector<Batch> ChangeFeedReader::ReadAll() const {
  ThreadPool& pool = pool_ != nullptr ? *pool_ : ThreadPool::Default();
  std::vector<std::vector<Batch>> per_file(num_files());
  pool.ParallelFor(num_files(), [&](size_t i) {
    auto opened = OpenFile(i);
    for (int group : opened->row_groups()) {
      Batch batch = opened->ReadRowGroup(group);
      if (batch.num_rows() > 0) per_file[i].push_back(std::move(batch));
    }
  });
  std::vector<Batch> batches;
  for (auto& file_batches : per_file) {
    for (auto& batch : file_batches) batches.push_back(std::move(batch));
  }
  return batches;
}

}  // namespace silt::log
