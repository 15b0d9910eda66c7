#include "silt/log/snapshot.h"

#include <algorithm>
#include <unordered_set>

#include "silt/base/check.h"
#include "silt/base/thread_pool.h"
#include "silt/error.h"
#include "silt/io/path.h"
#include "silt/log/checkpoint_reader.h"
#include "silt/log/type_widening.h"
#include "silt/types/date_time.h"
#include "silt/types/schema_json.h"

namespace silt::log {

namespace {

// How many commit files are parsed at once; bounds memory on long logs while keeping the pool
// busy.
constexpr size_t kCommitsPerChunk = 256;

// One unit of the newest-first replay: a commit file or a compaction file.
struct Piece {
  int64_t start_version = 0;
  int64_t end_version = 0;
  std::string path;
  bool compaction = false;
};

// The reconciliation state while replaying newest-first (protocol §9): the first action seen
// for a key wins.
class Replay {
 public:
  void Apply(Action&& action) {
    std::visit([this](auto&& value) { ApplyOne(std::move(value)); }, std::move(action));
  }

  // Applies an action of the checkpoint, the oldest part of the replay. A checkpoint holds each
  // file once (protocol §3: its file actions are already reconciled), so its files are only
  // looked up among the newer commits' and never remembered; with no newer commit there is
  // nothing to look up.
  void ApplyFromCheckpoint(Action&& action) {
    if (auto* add = std::get_if<AddFile>(&action)) {
      if (!SeenBefore(add->path, add->deletion_vector)) files.push_back(std::move(*add));
      return;
    }
    if (auto* remove = std::get_if<RemoveFile>(&action)) {
      if (!SeenBefore(remove->path, remove->deletion_vector)) {
        remove->stats.reset();
        tombstones.push_back(std::move(*remove));
      }
      return;
    }
    Apply(std::move(action));
  }

  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::vector<AddFile> files;
  std::vector<RemoveFile> tombstones;
  std::map<std::string, SetTransaction> transactions;
  std::map<std::string, DomainMetadata> domains;  // removed ones included until the end

 private:
  // The key of a file action in `key`: its canonical path and deletion vector. A path without
  // escapes or scheme is its own canonical form and is copied as it is.
  static void MakeKey(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv,
                      std::string& key) {
    if (path.find('%') == std::string::npos && path.compare(0, 5, "file:") != 0) {
      key.assign(path);
    } else {
      key = CanonicalLogPath(path);
    }
    key.push_back('\0');
    if (dv) key += dv->UniqueId();
  }
  bool SeenBefore(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
    if (seen_.empty()) return false;
    MakeKey(path, dv, key_);
    return seen_.count(key_) > 0;
  }
  bool FirstSeen(const std::string& path, const std::optional<DeletionVectorDescriptor>& dv) {
    MakeKey(path, dv, key_);
    return seen_.insert(key_).second;
  }
  void ApplyOne(AddFile&& add) {
    if (FirstSeen(add.path, add.deletion_vector)) files.push_back(std::move(add));
  }
  void ApplyOne(RemoveFile&& remove) {
    if (FirstSeen(remove.path, remove.deletion_vector)) {
      // Tombstones keep no stats (checkpoints drop them; protocol §3).
      remove.stats.reset();
      tombstones.push_back(std::move(remove));
    }
  }
  void ApplyOne(Protocol&& value) {
    if (!protocol) protocol = std::move(value);
  }
  void ApplyOne(Metadata&& value) {
    if (!metadata) metadata = std::move(value);
  }
  void ApplyOne(SetTransaction&& txn) {
    std::string app_id = txn.app_id;
    transactions.emplace(std::move(app_id), std::move(txn));
  }
  void ApplyOne(DomainMetadata&& domain) {
    std::string name = domain.domain;
    domains.emplace(std::move(name), std::move(domain));
  }
  void ApplyOne(AddCdcFile&&) {}
  void ApplyOne(CommitInfo&&) {}
  void ApplyOne(CheckpointMetadata&&) {}
  void ApplyOne(Sidecar&&) {}

  std::unordered_set<std::string> seen_;
  std::string key_;  // MakeKey's buffer
};

// Orders the segment's commits and usable compactions into pieces, oldest first. A compaction
// replaces the commits it covers when it starts exactly where replay stands; the newest commit
// is always read itself because its commitInfo (in-commit timestamp) is needed.
std::vector<Piece> MakePieces(const LogSegment& segment) {
  std::vector<Piece> pieces;
  size_t index = 0;
  while (index < segment.commits.size()) {
    int64_t version = segment.commits[index].version;
    const Compaction* best = nullptr;
    for (const auto& compaction : segment.compactions) {
      if (compaction.start_version == version && compaction.end_version < segment.version &&
          (best == nullptr || compaction.end_version > best->end_version)) {
        best = &compaction;
      }
    }
    if (best != nullptr) {
      pieces.push_back({best->start_version, best->end_version, best->file.path, true});
      index += static_cast<size_t>(best->end_version - best->start_version + 1);
    } else {
      pieces.push_back({version, version, segment.commits[index].file.path, false});
      ++index;
    }
  }
  return pieces;
}

}  // namespace

std::string CanonicalLogPath(std::string_view log_path) {
  std::string path = DecodeLogPath(log_path);
  if (path.rfind("file://", 0) == 0) {
    path.erase(0, 7);  // file:///a/b -> /a/b (an empty authority)
  } else if (path.rfind("file:", 0) == 0) {
    path.erase(0, 5);  // file:/a/b -> /a/b
  }
  return path;
}

std::shared_ptr<const Snapshot> Snapshot::WithFiles(std::vector<AddFile> files) const {
  std::shared_ptr<Snapshot> subset(new Snapshot());
  subset->fs_ = fs_;
  subset->segment_ = segment_;
  subset->protocol_ = protocol_;
  subset->metadata_ = metadata_;
  subset->files_ = std::move(files);
  subset->transactions_ = transactions_;
  subset->domains_ = domains_;
  subset->timestamp_ms_ = timestamp_ms_;
  subset->commit_info_ = commit_info_;
  return subset;
}

std::shared_ptr<const Snapshot> Snapshot::Load(std::shared_ptr<io::FileSystem> fs,
                                               std::string table_root,
                                               const SnapshotOptions& options) {
  SILT_USER_CHECK(!(options.version && options.timestamp_ms), INVALID_ARGUMENT,
                  {{"message", "time travel takes a version or a timestamp, not both"}});
  std::string root(io::TrimTrailingSeparators(table_root));
  LogSegmentOptions segment_options;
  segment_options.version = options.version;
  segment_options.use_compactions = options.use_compactions;
  if (options.timestamp_ms) {
    segment_options.version = VersionAtTimestamp(*fs, root, *options.timestamp_ms);
  }
  std::shared_ptr<Snapshot> snapshot(new Snapshot());
  snapshot->fs_ = fs;
  snapshot->segment_ = BuildLogSegment(*fs, root, segment_options);
  const LogSegment& segment = snapshot->segment_;
  ThreadPool& pool = options.pool != nullptr ? *options.pool : ThreadPool::Default();

  Replay replay;
  std::vector<Piece> pieces = MakePieces(segment);
  // Newest first, in chunks parsed in parallel.
  size_t remaining = pieces.size();
  while (remaining > 0) {
    size_t count = std::min(remaining, kCommitsPerChunk);
    size_t first = remaining - count;
    std::vector<std::vector<Action>> parsed(count);
    pool.ParallelFor(count, [&](size_t i) {
      const Piece& piece = pieces[first + i];
      parsed[i] = ParseActions(fs->ReadFile(piece.path), piece.path);
    });
    for (size_t i = count; i-- > 0;) {
      const Piece& piece = pieces[first + i];
      if (!piece.compaction && piece.end_version == segment.version) {
        for (const auto& action : parsed[i]) {
          if (const auto* info = std::get_if<CommitInfo>(&action)) {
            snapshot->commit_info_ = *info;
            break;
          }
        }
      }
      for (auto& action : parsed[i]) replay.Apply(std::move(action));
    }
    remaining = first;
  }
  if (segment.checkpoint) {
    std::vector<Action> actions = ReadCheckpoint(*fs, segment.log_dir, *segment.checkpoint, &pool);
    replay.files.reserve(replay.files.size() + actions.size());
    for (auto& action : actions) replay.ApplyFromCheckpoint(std::move(action));
  }
  if (!replay.protocol || !replay.metadata) {
    SILT_THROW(DELTA_STATE_RECOVER_ERROR,
               {{"operation", !replay.protocol ? "protocol" : "metadata"},
                {"version", std::to_string(segment.version)}});
  }
  CheckReadSupported(*replay.protocol, root);
  snapshot->protocol_ = std::move(*replay.protocol);
  snapshot->metadata_ = std::move(*replay.metadata);
  // A partition column the schema lacks would read as NULL in every row: the log is damaged.
  for (const std::string& column : snapshot->metadata_.partition_columns) {
    if (snapshot->schema().FieldIndex(column, /*case_sensitive=*/false) < 0) {
      SILT_THROW(DELTA_INVALID_LOG_ENTRY,
                 {{"file", segment.log_dir},
                  {"message", "the metaData of version " + std::to_string(segment.version) +
                                  " names partition column " + column +
                                  ", which its schema does not have"}});
    }
  }
  // Old data files are widened to the recorded types: a change silt cannot widen is refused.
  if (snapshot->metadata_.schema_string.find(kTypeChangesKey) != std::string::npos) {
    CheckTypeChangesReadable(snapshot->schema());
  }
  snapshot->files_ = std::move(replay.files);
  snapshot->tombstones_ = std::move(replay.tombstones);
  snapshot->transactions_ = std::move(replay.transactions);
  for (auto& [name, domain] : replay.domains) {
    if (!domain.removed) snapshot->domains_.emplace(name, std::move(domain));
  }

  if (snapshot->commit_info_ && snapshot->commit_info_->in_commit_timestamp) {
    snapshot->timestamp_ms_ = *snapshot->commit_info_->in_commit_timestamp;
  } else if (!segment.commits.empty() && segment.commits.back().version == segment.version) {
    snapshot->timestamp_ms_ = segment.commits.back().file.modification_time_ms;
  } else if (auto info = fs->Stat(io::JoinPath(segment.log_dir,
                                               FormatVersion(segment.version) + ".json"))) {
    snapshot->timestamp_ms_ = info->modification_time_ms;
  }
  return snapshot;
}

const std::string* Snapshot::Property(std::string_view key) const {
  return FindValue(metadata_.configuration, key);
}

const Schema& Snapshot::schema() const {
  std::call_once(schema_once_, [this] {
    schema_ = std::make_shared<const Schema>(ParseDeltaSchema(metadata_.schema_string));
  });
  return *schema_;
}

std::optional<int64_t> Snapshot::TransactionVersion(std::string_view app_id) const {
  auto it = transactions_.find(std::string(app_id));
  if (it == transactions_.end()) return std::nullopt;
  return it->second.version;
}

std::string Snapshot::ResolvePath(std::string_view log_path) const {
  std::string path = CanonicalLogPath(log_path);
  bool absolute = (!path.empty() && path[0] == '/') || path.find("://") != std::string::npos;
  return absolute ? path : io::JoinPath(segment_.table_root, path);
}

std::vector<CommitTimestamp> ListCommitTimestamps(io::FileSystem& fs, std::string_view table_root) {
  std::vector<CommitFile> commits = ListCommits(fs, table_root);
  std::vector<CommitTimestamp> result;
  if (commits.empty()) return result;
  // Only versions that can be reconstructed can be travelled to.
  int64_t earliest = EarliestReconstructableVersion(fs, table_root);
  // In-commit timestamps, when the table uses them, are read from each commit's first line
  // (commitInfo comes first under ICT). A table without them keeps file times throughout.
  auto first_commit_info = [&](const CommitFile& commit) -> std::optional<CommitInfo> {
    std::string text = fs.ReadFile(commit.file.path);
    size_t end = text.find('\n');
    auto action = ParseActionLine(std::string_view(text).substr(0, end), commit.file.path);
    if (action) {
      if (auto* info = std::get_if<CommitInfo>(&*action)) return *info;
    }
    return std::nullopt;
  };
  auto last_info = first_commit_info(commits.back());
  bool uses_ict = last_info && last_info->in_commit_timestamp;
  int64_t previous = INT64_MIN;
  for (const auto& commit : commits) {
    int64_t timestamp = commit.file.modification_time_ms;
    bool from_ict = false;
    if (uses_ict) {
      auto info = first_commit_info(commit);
      if (info && info->in_commit_timestamp) {
        timestamp = *info->in_commit_timestamp;
        from_ict = true;
      }
    }
    if (!from_ict && previous != INT64_MIN && timestamp <= previous) timestamp = previous + 1;
    previous = timestamp;
    if (commit.version >= earliest) result.push_back({commit.version, timestamp});
  }
  return result;
}

int64_t VersionAtTimestamp(io::FileSystem& fs, std::string_view table_root, int64_t timestamp_ms,
                           bool allow_after_latest) {
  std::vector<CommitTimestamp> timestamps = ListCommitTimestamps(fs, table_root);
  if (timestamps.empty()) {
    SILT_THROW(DELTA_MISSING_DELTA_TABLE, {{"tableName", std::string(table_root)}});
  }
  auto format = [](int64_t ms) { return FormatTimestamp(ms * 1000); };
  if (timestamp_ms < timestamps.front().timestamp_ms) {
    SILT_THROW(DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION,
               {{"userTimestamp", format(timestamp_ms)},
                {"commitTs", format(timestamps.front().timestamp_ms)},
                {"timestampString", format(timestamps.front().timestamp_ms)}});
  }
  if (timestamp_ms > timestamps.back().timestamp_ms && !allow_after_latest) {
    SILT_THROW(DELTA_TIMESTAMP_GREATER_THAN_COMMIT,
               {{"providedTimestamp", format(timestamp_ms)},
                {"tableName", std::string(table_root)},
                {"maximumTimestamp", format(timestamps.back().timestamp_ms)}});
  }
  auto it = std::upper_bound(timestamps.begin(), timestamps.end(), timestamp_ms,
                             [](int64_t value, const CommitTimestamp& commit) {
                               return value < commit.timestamp_ms;
                             });
  return std::prev(it)->version;
}

}  // namespace silt::log
